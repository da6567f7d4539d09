/* OSTM v1: every rule that makes a file invalid (code and offset), round trips, the builder,
 * the runner, verify, links across a pair of replays, allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "replay_internal.h" /* the validator tests corrupt a replay's private fields */
#include "test_util.h"

/* ---- helpers ---- */

static onescope_replay *build(uint8_t dims, uint8_t count, onescope_link_block link,
                              int with_snapshot, int with_rows, int steps) {
    onescope_sim_setup setup = {dims, count, 77};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, link.role ? &link : NULL, NULL, &r, &err),
                     ONESCOPE_OK);
    if (with_snapshot) {
        onescope_sim_def def = onescope_sim_def_default();
        def.setup = setup;
        def.link = link;
        onescope_sim *s;
        assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
        for (int i = 0; i < 5; i++) assert_int_equal(onescope_sim_step(s, NULL, 0, &err), 0);
        uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
        size_t n = onescope_sim_snapshot(s, snap, sizeof snap);
        assert_int_equal(onescope_replay_set_start_snapshot(r, snap, n, &err), ONESCOPE_OK);
        onescope_sim_free(s);
    }
    for (int i = 0; i < steps; i++) {
        onescope_op ops[3] = {{1, (uint8_t)(i % count), {40, 300, dims == 3 ? -7 : 0}},
                              {5, 0, {i, 2 * i, 0}},
                              {4, 0, {i % 5, 0, 0}}};
        assert_int_equal(onescope_replay_append_ops(r, ops, (size_t)(i % 4), &err), ONESCOPE_OK);
    }
    if (with_rows) assert_int_equal(onescope_replay_compute_hash_rows(r, &err), ONESCOPE_OK);
    return r;
}

static onescope_buffer write_ok(const onescope_replay *r) {
    onescope_buffer b;
    onescope_error err;
    assert_int_equal(onescope_replay_write(r, NULL, &b, &err), ONESCOPE_OK);
    return b;
}

static onescope_code parse(const uint8_t *data, size_t size, onescope_error *err) {
    onescope_replay *r = NULL;
    onescope_code rc = onescope_replay_parse(data, size, "t.ostm", NULL, &r, err);
    if (rc == ONESCOPE_OK)
        assert_non_null(r);
    else
        assert_null(r);
    onescope_replay_free(r);
    return rc;
}

/* Parses a changed copy of b and checks the error's code and offset. */
static void expect_error(const onescope_buffer *b, size_t size, size_t at, const uint8_t *bytes,
                         size_t n, onescope_code code, uint64_t offset) {
    uint8_t *copy = malloc(b->size + 16);
    assert_non_null(copy);
    memcpy(copy, b->data, b->size);
    memset(copy + b->size, 0, 16);
    if (bytes != NULL) memcpy(copy + at, bytes, n);
    onescope_error err;
    assert_int_equal(parse(copy, size, &err), code);
    assert_error_at(err, code, offset);
    free(copy);
}

#define PUT(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* ---- parsing and writing ---- */

static void parse_reads_every_part(void **state) {
    (void)state;
    onescope_link_block link = {1, 1, 150};
    onescope_replay *r = build(3, 3, link, 1, 1, 9);
    onescope_buffer b = write_ok(r);
    assert_memory_equal(b.data,
                        "OSTM\x01\x00\x07\x00\x0a\x00\x00\x00\x03\x03\x4d\x00\x00\x00"
                        "\x01\x01\x96\x00\x09\x00\x00\x00",
                        26);
    onescope_replay *d;
    onescope_error err;
    assert_int_equal(onescope_replay_parse(b.data, b.size, "a", NULL, &d, &err), ONESCOPE_OK);
    /* read through the public accessors, as a caller does */
    onescope_sim_setup setup = onescope_replay_setup(d);
    onescope_link_block dl = onescope_replay_link(d);
    assert_int_equal(setup.dimensions, 3);
    assert_int_equal(setup.body_count, 3);
    assert_int_equal(setup.seed, 77);
    assert_int_equal(dl.role, 1);
    assert_int_equal(dl.body, 1);
    assert_int_equal(dl.transfer_step, 150);
    assert_int_equal(onescope_replay_step_count(d), 9);
    assert_true(onescope_replay_has_start_snapshot(d));
    assert_true(onescope_replay_start_step(d) == 5);
    size_t dn = 0, rn = 0;
    const uint8_t *ds = onescope_replay_start_snapshot(d, &dn);
    const uint8_t *rs = onescope_replay_start_snapshot(r, &rn);
    assert_int_equal(dn, rn);
    assert_int_equal(dn, 12 + 3 * 32);
    assert_memory_equal(ds, rs, rn);
    assert_true(onescope_replay_has_hash_rows(d));
    assert_memory_equal(onescope_replay_hash_rows(d), onescope_replay_hash_rows(r),
                        10 * sizeof(uint64_t));
    assert_int_equal(onescope_replay_input_bytes(d), onescope_replay_input_bytes(r));
    assert_int_equal(onescope_replay_flags(d), 7);
    const uint8_t *p;
    size_t n;
    assert_int_equal(onescope_replay_step_input(d, 0, &p, &n), ONESCOPE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(onescope_replay_step_input(d, 3, &p, &n), ONESCOPE_OK);
    assert_int_equal(n, 14 + 13 + 5);
    assert_int_equal(p[0], 1);
    assert_int_equal(onescope_replay_step_input(d, 9, &p, &n), ONESCOPE_E_ARGUMENT);
    uint64_t counts[6];
    onescope_replay_count_ops(d, counts);
    /* steps 0..8 hold i % 4 operations: 0,1,2,3,0,1,2,3,0 */
    assert_true(counts[1] == 6 && counts[5] == 4 && counts[4] == 2);
    assert_true(counts[2] == 0 && counts[3] == 0);
    onescope_buffer b2 = write_ok(d);
    assert_int_equal(b.size, b2.size);
    assert_memory_equal(b.data, b2.data, b.size);
    onescope_buffer_free(&b);
    onescope_buffer_free(&b2);
    onescope_replay_free(r);
    onescope_replay_free(d);
}

static void every_flag_combination_round_trips(void **state) {
    (void)state;
    for (int flags = 0; flags < 8; flags++) {
        for (uint8_t dims = 2; dims <= 3; dims++) {
            onescope_link_block link = {0, 0, 0};
            if (flags & 4) link = (onescope_link_block){(uint8_t)(1 + flags % 3), 0, 3};
            if (link.role == 3) link.transfer_step = 0;
            onescope_replay *r = build(dims, 4, link, flags & 2, flags & 1, 7);
            onescope_buffer b = write_ok(r);
            assert_int_equal(b.data[6], flags);
            onescope_replay *d;
            onescope_error err;
            assert_int_equal(onescope_replay_parse(b.data, b.size, "a", NULL, &d, &err), 0);
            onescope_buffer b2 = write_ok(d);
            assert_int_equal(b.size, b2.size);
            assert_memory_equal(b.data, b2.data, b.size);
            onescope_buffer_free(&b);
            onescope_buffer_free(&b2);
            onescope_replay_free(r);
            onescope_replay_free(d);
        }
    }
}

static void header_rules(void **state) {
    (void)state;
    onescope_replay *r = build(3, 3, (onescope_link_block){2, 1, 10}, 0, 0, 2);
    onescope_buffer b = write_ok(r);
    size_t n = b.size;
    expect_error(&b, n, 0, PUT('O', 'S', 'P', 'C'), ONESCOPE_E_MAGIC, 0);
    expect_error(&b, n, 4, PUT(2, 0), ONESCOPE_E_VERSION, 4);
    expect_error(&b, n, 6, PUT(0x0c, 0), ONESCOPE_E_FLAGS, 6);
    expect_error(&b, n, 6, PUT(0x04, 0x80), ONESCOPE_E_FLAGS, 6);
    expect_error(&b, n, 8, PUT(6), ONESCOPE_E_LENGTH, 8);
    expect_error(&b, n, 6, PUT(0), ONESCOPE_E_LENGTH, 8); /* no link flag but length 10 */
    expect_error(&b, n, 12, PUT(1), ONESCOPE_E_RANGE, 12);
    expect_error(&b, n, 13, PUT(0), ONESCOPE_E_RANGE, 13);
    expect_error(&b, n, 13, PUT(65), ONESCOPE_E_RANGE, 13);
    expect_error(&b, n, 18, PUT(0), ONESCOPE_E_RANGE, 18);
    expect_error(&b, n, 18, PUT(4), ONESCOPE_E_RANGE, 18);
    expect_error(&b, n, 19, PUT(3), ONESCOPE_E_RANGE, 19);
    expect_error(&b, n, 18, PUT(3, 1, 0, 0), ONESCOPE_E_RESERVED, 19);
    expect_error(&b, n, 18, PUT(3, 0, 1, 0), ONESCOPE_E_RESERVED, 20);
    expect_error(&b, n, 22, PUT(0x01, 0x00, 0x00, 0x01), ONESCOPE_E_RANGE, 22); /* 16777217 */
    expect_error(&b, n, 22, PUT(0xff, 0xff, 0xff, 0xff), ONESCOPE_E_RANGE, 22);
    /* 16777216 steps is allowed, but 33 MB of step lengths are not there */
    expect_error(&b, n, 22, PUT(0x00, 0x00, 0x00, 0x01), ONESCOPE_E_TRUNCATED, 26);
    expect_error(&b, n + 1, 0, NULL, 0, ONESCOPE_E_TRAILING, n);
    onescope_error err;
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = n - 1;
    onescope_replay *d = NULL;
    assert_int_equal(onescope_replay_parse(b.data, n, "a", &o, &d, &err), ONESCOPE_E_TOO_LARGE);
    assert_error_at(err, ONESCOPE_E_TOO_LARGE, n - 1);
    assert_null(d);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

static void snapshot_and_hash_row_rules(void **state) {
    (void)state;
    onescope_replay *r = build(2, 2, (onescope_link_block){0, 0, 0}, 1, 1, 3);
    onescope_buffer b = write_ok(r);
    size_t n = b.size;
    /* header 18, step count at 18, snapshot length at 22, snapshot at 26 (12 + 2 x 32 bytes) */
    assert_int_equal(onescope_os_get_u32(b.data + 22), 76);
    expect_error(&b, n, 22, PUT(0xff, 0xff, 0xff, 0xff), ONESCOPE_E_TRUNCATED, 26);
    expect_error(&b, n, 22, PUT(75), ONESCOPE_E_LENGTH, 26);            /* not 12 + 32 n */
    expect_error(&b, n, 22, PUT(44), ONESCOPE_E_LENGTH, 26);            /* 1 body < setup's 2 */
    expect_error(&b, n, 26 + 8, PUT(0xe9, 0x03), ONESCOPE_E_RANGE, 34); /* gravity 1001 */
    expect_error(&b, n, 26 + 12, PUT(2), ONESCOPE_E_RANGE, 38);         /* alive 2 */
    expect_error(&b, n, 26 + 12 + 16, PUT(1), ONESCOPE_E_RANGE, 54);    /* z position in 2D */
    expect_error(&b, n, 26 + 12 + 32 + 20, PUT(0x00, 0x00, 0x01), ONESCOPE_E_RANGE, 90);
    /* hash rows: 4 x 8 bytes from 102; cutting the file inside them */
    expect_error(&b, 110, 0, NULL, 0, ONESCOPE_E_TRUNCATED, 102);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

/* A 3D one-body header (no link) with these flags and step count; returns its size (22). */
static size_t header_with(uint8_t *out, uint8_t flags, uint32_t steps) {
    static const uint8_t head[18] = {'O', 'S', 'T', 'M', 1, 0, 0, 0, 6, 0, 0, 0, 3, 1, 9, 0, 0, 0};
    memcpy(out, head, sizeof head);
    out[6] = flags;
    onescope_os_put_u32(out + 18, steps);
    return 22;
}

/* The order of the size checks, as docs/test-module.md section 8 states it: the snapshot
 * length (fit before shape), the hash-row block (at its first byte), then the step count's
 * 2-bytes-per-step check at the first step's offset I, which is right after N only when flag
 * bits 0 and 1 are both clear; a file cut inside the setup is reported per field. */
static void size_checks_in_file_order(void **state) {
    (void)state;
    uint8_t f[256];
    onescope_error err;
    memset(f, 0, sizeof f);
    /* no snapshot, no rows: I = S + 4 = 22 */
    size_t n = header_with(f, 0, 1000);
    assert_int_equal(parse(f, n + 10, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 22);
    assert_string_equal(err.field, "step count");
    /* a start snapshot (44 bytes: one body) moves I to 22 + 4 + 44 = 70 */
    n = header_with(f, 2, 1000);
    onescope_os_put_u32(f + n, 44);
    memset(f + n + 4, 0, 44);
    f[n + 4 + 12] = 1; /* alive */
    assert_int_equal(parse(f, 70 + 10, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 70);
    assert_string_equal(err.field, "step count");
    /* hash rows (N + 1 = 4 rows, 32 bytes) move I to 22 + 32 = 54 */
    n = header_with(f, 1, 3);
    memset(f + n, 0xab, 32);
    assert_int_equal(parse(f, 54 + 5, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 54);
    assert_string_equal(err.field, "step count");
    /* a short hash-row block is reported at its first byte R, however much of it is there */
    for (size_t have = 0; have < 32; have += 7) {
        assert_int_equal(parse(f, 22 + have, &err), ONESCOPE_E_TRUNCATED);
        assert_error_at(err, ONESCOPE_E_TRUNCATED, 22);
        assert_string_equal(err.field, "hash rows");
    }
    /* both flags: R = 22 + 4 + 44 = 70, I = 70 + 32 = 102 */
    n = header_with(f, 3, 3);
    onescope_os_put_u32(f + n, 44);
    memset(f + n + 4, 0, 44);
    f[n + 4 + 12] = 1;
    assert_int_equal(parse(f, 80, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 70);
    assert_string_equal(err.field, "hash rows");
    memset(f + 70, 0, 32);
    assert_int_equal(parse(f, 102 + 5, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 102);
    /* a snapshot length that is both no valid size (45) and past the end: the fit comes
     * first (TRUNCATED at S + 8); with the 45 bytes present it is LENGTH at the same offset */
    n = header_with(f, 2, 0);
    onescope_os_put_u32(f + n, 45);
    memset(f + n + 4, 0, 64);
    assert_int_equal(parse(f, n + 4 + 10, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 26);
    assert_string_equal(err.field, "start snapshot length");
    assert_int_equal(parse(f, n + 4 + 45, &err), ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, 26);
    /* a file ending inside the setup: TRUNCATED at the field it cuts, with a link block */
    static const uint8_t linked[22] = {'O', 'S', 'T', 'M', 1, 0, 4, 0, 10, 0, 0,
                                       0,   3,   2,   1,   0, 0, 0, 1, 1,  5, 0};
    static const uint64_t field_at[22] = {0, 0,  0,  0,  4,  4,  6,  6,  8,  8,  8,
                                          8, 12, 13, 14, 14, 14, 14, 18, 19, 20, 20};
    for (size_t cut = 0; cut < sizeof linked; cut++) {
        assert_int_equal(parse(linked, cut, &err), ONESCOPE_E_TRUNCATED);
        assert_error_at(err, ONESCOPE_E_TRUNCATED, field_at[cut]);
    }
    /* the setup's values are checked once all its fields are read: a bad dimension (5) in a
     * file cut inside the seed is the cut, not the dimension */
    memcpy(f, linked, sizeof linked);
    f[12] = 5;
    assert_int_equal(parse(f, 16, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 14);
    assert_string_equal(err.field, "seed");
    assert_int_equal(parse(f, 22, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 12);
}

static void step_input_rules(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    const uint8_t in[] = {3, 1, 4, 5, 0, 0, 0};
    assert_int_equal(onescope_replay_append_step(r, in, sizeof in, &err), ONESCOPE_OK);
    onescope_buffer b = write_ok(r);
    /* header 18, step count 18..21, length at 22, operations from 24 */
    size_t n = b.size;
    assert_int_equal(n, 24 + sizeof in);
    expect_error(&b, n, 26, PUT(9), ONESCOPE_E_OPERATION, 26);
    expect_error(&b, n, 24, PUT(0), ONESCOPE_E_OPERATION, 24);
    expect_error(&b, n, 25, PUT(64), ONESCOPE_E_RANGE, 25);
    expect_error(&b, n, 22, PUT(6), ONESCOPE_E_TRUNCATED, 27); /* gravity's i32 cut short */
    expect_error(&b, n, 22, PUT(8), ONESCOPE_E_TRUNCATED, 24); /* length past the end */
    expect_error(&b, n, 24, PUT(5, 0, 0, 0, 0), ONESCOPE_E_TRUNCATED, 29);
    expect_error(&b, n, 18, PUT(2), ONESCOPE_E_TRUNCATED, 31); /* 2 steps, 1 present */
    /* z operands must be 0 in 2D */
    const uint8_t spawn_z[] = {5, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    assert_int_equal(onescope_replay_append_step(r, spawn_z, sizeof spawn_z, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 9);
    assert_int_equal(r->step_count, 1);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

static void every_prefix_is_truncated(void **state) {
    (void)state;
    onescope_replay *r = build(3, 5, (onescope_link_block){2, 4, 1}, 1, 1, 6);
    onescope_buffer b = write_ok(r);
    for (size_t n = 0; n < b.size; n++) {
        onescope_error err;
        assert_int_equal(parse(b.data, n, &err), ONESCOPE_E_TRUNCATED);
    }
    onescope_error err;
    assert_int_equal(parse(b.data, b.size, &err), ONESCOPE_OK);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

/* Random byte changes: a file either fails with an offset inside it, or parses, writes back
 * to the same bytes and runs (verify may then report a mismatch, never anything else). */
static void mutations_fail_cleanly_or_round_trip(void **state) {
    (void)state;
    onescope_replay *r = build(2, 3, (onescope_link_block){2, 1, 4}, 1, 1, 12);
    onescope_buffer b = write_ok(r);
    uint8_t *copy = malloc(b.size);
    assert_non_null(copy);
    uint64_t seed = 99;
    int parsed = 0;
    for (int i = 0; i < 4000; i++) {
        memcpy(copy, b.data, b.size);
        int changes = 1 + (int)(test_rand(&seed) % 3);
        for (int k = 0; k < changes; k++)
            copy[test_rand(&seed) % b.size] = (uint8_t)test_rand(&seed);
        onescope_replay *d = NULL;
        onescope_error err;
        onescope_code rc = onescope_replay_parse(copy, b.size, "m", NULL, &d, &err);
        if (rc != ONESCOPE_OK) {
            assert_null(d);
            assert_true(err.has_offset);
            assert_true(err.offset <= b.size);
            continue;
        }
        parsed++;
        onescope_buffer again = write_ok(d);
        assert_int_equal(again.size, b.size);
        assert_memory_equal(again.data, copy, b.size);
        rc = onescope_replay_verify(d, NULL, NULL, "m", &err);
        assert_true(rc == ONESCOPE_OK || rc == ONESCOPE_E_MISMATCH || rc == ONESCOPE_E_FLAGS);
        onescope_buffer_free(&again);
        onescope_replay_free(d);
    }
    assert_true(parsed > 100); /* the mutations reached the simulation, not just the parser */
    free(copy);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

/* ---- the builder and the validator ---- */

static void builder_rules(void **state) {
    (void)state;
    onescope_error err;
    onescope_replay *r = NULL;
    onescope_sim_setup bad = {3, 0, 0};
    assert_int_equal(onescope_replay_create(&bad, NULL, NULL, &r, &err), ONESCOPE_E_RANGE);
    assert_null(r);
    r = build(3, 2, (onescope_link_block){0, 0, 0}, 0, 1, 3);
    assert_true(r->has_hash_rows);
    uint64_t rows[4] = {1, 2, 3, 4};
    assert_int_equal(onescope_replay_set_hash_rows(r, rows, 3, &err), ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_replay_set_hash_rows(r, rows, 4, &err), ONESCOPE_OK);
    assert_true(r->hash_rows[3] == 4);
    assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), ONESCOPE_OK);
    assert_false(r->has_hash_rows); /* rows no longer cover every step */
    assert_int_equal(r->step_count, 4);
    /* 4682 impulses = 65548 bytes: over a step's 65535 */
    static onescope_op many[4682];
    for (size_t i = 0; i < 4682; i++) many[i] = (onescope_op){1, 0, {1, 1, 1}};
    assert_int_equal(onescope_replay_append_ops(r, many, 4682, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_replay_append_ops(r, many, 4681, &err), ONESCOPE_OK);
    onescope_op unknown = {7, 0, {0, 0, 0}};
    assert_int_equal(onescope_replay_append_ops(r, &unknown, 1, &err), ONESCOPE_E_OPERATION);
    assert_int_equal(r->step_count, 5);
    const uint8_t small[12] = {0};
    assert_int_equal(onescope_replay_set_start_snapshot(r, small, 12, &err), ONESCOPE_E_LENGTH);
    assert_false(r->has_start_snapshot);
    /* Growing past the first capacity keeps every step. */
    for (int i = 0; i < 100; i++) {
        const uint8_t g[] = {4, (uint8_t)i, 0, 0, 0};
        assert_int_equal(onescope_replay_append_step(r, g, sizeof g, &err), ONESCOPE_OK);
    }
    const uint8_t *p;
    size_t n;
    assert_int_equal(onescope_replay_step_input(r, 5 + 77, &p, &n), ONESCOPE_OK);
    assert_int_equal(n, 5);
    assert_int_equal(p[1], 77);
    assert_int_equal(onescope_replay_compute_hash_rows(r, &err), ONESCOPE_OK);
    onescope_buffer b = write_ok(r);
    onescope_replay *d;
    assert_int_equal(onescope_replay_parse(b.data, b.size, "a", NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->step_count, 105);
    assert_int_equal(onescope_replay_verify(d, NULL, NULL, "a", &err), ONESCOPE_OK);
    onescope_buffer_free(&b);
    onescope_replay_free(d);

    /* The writer refuses what the parser would refuse, at the offset it would have. */
    r->link.role = 9;
    assert_int_equal(onescope_replay_write(r, NULL, &b, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 18);
    assert_null(b.data);
    r->link.role = 0;
    r->setup.dimensions = 2; /* the recorded impulses have non-zero dz */
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_RANGE);
    r->setup.dimensions = 3;
    r->input_offsets[2] = r->input_offsets[1] + 70000;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_RANGE);
    onescope_replay_free(r);
    onescope_replay_free(NULL);
}

/* ---- running and verifying ---- */

typedef struct seen {
    uint32_t rows;
    uint64_t first_step, last_step;
    uint32_t stop_at;
} seen;

static bool count_rows(void *user, const onescope_replay_row *row) {
    seen *s = user;
    if (s->rows == 0) s->first_step = row->host_step;
    assert_int_equal(row->index, s->rows);
    assert_true(row->hash == onescope_sim_hash(row->sim));
    assert_true(row->host_step == onescope_sim_host_step(row->sim));
    s->last_step = row->host_step;
    s->rows++;
    return s->rows == s->stop_at;
}

static void run_and_verify(void **state) {
    (void)state;
    onescope_replay *r = build(3, 6, (onescope_link_block){0, 0, 0}, 1, 1, 20);
    onescope_error err;
    seen s = {0, 0, 0, 0};
    assert_int_equal(onescope_replay_run(r, NULL, count_rows, &s, &err), ONESCOPE_OK);
    assert_int_equal(s.rows, 21);
    assert_true(s.first_step == 5 && s.last_step == 25);
    assert_true(r->hash_rows[0] == onescope_hash_bytes(r->start_snapshot, r->start_snapshot_size));
    s = (seen){0, 0, 0, 4};
    assert_int_equal(onescope_replay_run(r, NULL, count_rows, &s, &err), ONESCOPE_OK);
    assert_int_equal(s.rows, 4);

    onescope_verify_result v;
    assert_int_equal(onescope_replay_verify(r, NULL, &v, "a.ostm", &err), ONESCOPE_OK);
    assert_true(v.matched);
    assert_int_equal(v.rows_checked, 21);
    uint64_t good = r->hash_rows[7];
    r->hash_rows[7] ^= 0x10;
    r->hash_rows[9] ^= 0x10;
    assert_int_equal(onescope_replay_verify(r, NULL, &v, "a.ostm", &err), ONESCOPE_E_MISMATCH);
    assert_false(v.matched);
    assert_int_equal(v.first_row, 7);
    assert_true(v.first_step == 12);
    assert_true(v.actual == good && v.expected == (good ^ 0x10));
    char line[256], want[256];
    onescope_error_format(&err, line, sizeof line);
    snprintf(want, sizeof want,
             "a.ostm: hash row 7 (the world after step 6, host step 11): expected %016llx, found "
             "%016llx",
             (unsigned long long)(good ^ 0x10), (unsigned long long)good);
    assert_string_equal(line, want);
    assert_int_equal(onescope_replay_set_hash_rows(r, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_verify(r, NULL, &v, "a.ostm", &err), ONESCOPE_E_FLAGS);
    assert_error_at(err, ONESCOPE_E_FLAGS, 6);
    onescope_replay_free(r);
}

typedef struct link_check {
    int role;
    int checked;
} link_check;

static bool check_link(void *user, const onescope_replay_row *row) {
    link_check *c = user;
    onescope_sim_body_state b;
    assert_int_equal(onescope_sim_body(row->sim, 3, &b), ONESCOPE_OK);
    int here = c->role == 1 ? row->host_step < 150 : row->host_step >= 150;
    assert_int_equal(b.alive, here);
    if (row->host_step == 150 && c->role == 2) {
        assert_int_equal(b.position[0], 5000);
        assert_int_equal(b.position[1], 5000);
        assert_int_equal(b.position[2], 0);
        assert_int_equal(b.velocity[0], 150);
        c->checked++;
    }
    return false;
}

static void linked_pair(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 6, 5};
    for (uint8_t role = 1; role <= 2; role++) {
        onescope_link_block link = {role, 3, 150};
        onescope_replay *r;
        onescope_error err;
        assert_int_equal(onescope_replay_create(&setup, &link, NULL, &r, &err), ONESCOPE_OK);
        for (int i = 0; i < 200; i++)
            assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), 0);
        link_check c = {role, 0};
        assert_int_equal(onescope_replay_run(r, NULL, check_link, &c, &err), ONESCOPE_OK);
        assert_int_equal(c.checked, role == 2);
        onescope_link_info k = onescope_link_describe(&r->link);
        assert_string_equal(k.own_key, role == 1 ? "tm-left" : "tm-right");
        onescope_replay_free(r);
    }
    /* A transfer step past the last step is valid: it never happens. */
    onescope_link_block late = {2, 0, 65535};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, &late, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_compute_hash_rows(r, &err), ONESCOPE_OK);
    onescope_buffer b = write_ok(r);
    assert_int_equal(parse(b.data, b.size, &err), ONESCOPE_OK);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

/* ---- arguments, the validator's own checks, files ---- */

static void arguments_validator_and_files(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_setup setup = {3, 2, 4};
    onescope_replay *r = NULL;
    assert_int_equal(onescope_replay_create(NULL, NULL, NULL, &r, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_parse(NULL, 3, NULL, NULL, &r, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_set_start_snapshot(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_step(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_ops(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_set_hash_rows(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_compute_hash_rows(NULL, &err), ONESCOPE_E_ARGUMENT);
    /* the accessors on NULL: zeros, NULL pointers, false */
    assert_int_equal(onescope_replay_setup(NULL).dimensions, 0);
    assert_int_equal(onescope_replay_link(NULL).role, 0);
    assert_int_equal(onescope_replay_step_count(NULL), 0);
    assert_false(onescope_replay_has_start_snapshot(NULL));
    size_t snap_size = 9;
    assert_null(onescope_replay_start_snapshot(NULL, &snap_size));
    assert_int_equal(snap_size, 0);
    assert_null(onescope_replay_start_snapshot(r, NULL)); /* r has none; size may be NULL */
    assert_true(onescope_replay_start_step(NULL) == 0);
    assert_false(onescope_replay_has_hash_rows(NULL));
    assert_null(onescope_replay_hash_rows(NULL));
    assert_null(onescope_replay_hash_rows(r));
    assert_true(onescope_replay_input_bytes(NULL) == 0);
    assert_int_equal(onescope_replay_validate(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_write(NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_read_file(NULL, NULL, &r, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_start_world(NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_verify(NULL, NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_flags(NULL), 0);
    uint64_t counts[6] = {9, 9, 9, 9, 9, 9};
    onescope_replay_count_ops(NULL, counts);
    assert_true(counts[1] == 0);

    r = build(3, 2, (onescope_link_block){0, 0, 0}, 1, 1, 3);
    /* The builder's limits, checked before anything changes. */
    uint32_t steps = r->step_count;
    r->step_count = ONESCOPE_OSTM_MAX_STEPS;
    assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), ONESCOPE_E_RANGE);
    r->step_count = ONESCOPE_OSTM_MAX_STEPS + 1;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_RANGE);
    r->step_count = steps;
    uint32_t used = r->input_offsets[steps];
    r->input_offsets[steps] = UINT32_MAX - 1;
    const uint8_t g[] = {4, 0, 0, 0, 0};
    assert_int_equal(onescope_replay_append_step(r, g, sizeof g, &err), ONESCOPE_E_TOO_LARGE);
    r->input_offsets[steps] = used;
    /* Inconsistent structs the parser can never produce. */
    r->start_step++;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_MISMATCH);
    r->start_step--;
    uint8_t *snap = r->start_snapshot;
    r->start_snapshot = NULL;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_ARGUMENT);
    r->start_snapshot = snap;
    r->has_start_snapshot = 0;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_ARGUMENT); /* start step */
    r->has_start_snapshot = 1;
    uint64_t *rows = r->hash_rows;
    r->hash_rows = NULL;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_ARGUMENT);
    r->hash_rows = rows;
    r->input_offsets[0] = 1;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_ARGUMENT);
    r->input_offsets[0] = 0;
    uint8_t *inputs = r->inputs;
    r->inputs = NULL;
    assert_int_equal(onescope_replay_validate(r, "v", &err), ONESCOPE_E_ARGUMENT);
    r->inputs = inputs;
    assert_int_equal(onescope_replay_validate(r, NULL, &err), ONESCOPE_OK);

    /* Files: written atomically, read back equal; a missing file is an I/O error. */
    const char *path = "test_replay_file.ostm";
    assert_int_equal(onescope_replay_write_file(r, path, &err), ONESCOPE_OK);
    onescope_replay *d;
    assert_int_equal(onescope_replay_read_file(path, NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->step_count, 3);
    assert_memory_equal(d->hash_rows, r->hash_rows, 4 * 8);
    onescope_replay_free(d);
    remove(path);
    assert_int_equal(onescope_replay_read_file(path, NULL, &d, &err), ONESCOPE_E_IO);
    r->link.role = 7;
    assert_int_equal(onescope_replay_write_file(r, path, &err), ONESCOPE_E_RANGE);
    onescope_replay_free(r);
}

/* ---- allocation failure at every site ---- */

typedef struct alloc_ctx {
    const onescope_replay *r; /* the replay every step works from */
    const onescope_buffer *b; /* its bytes */
} alloc_ctx;

static onescope_code walk_parse(const onescope_allocator *allocator, void *user) {
    const alloc_ctx *c = user;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = allocator;
    onescope_replay *d = (onescope_replay *)&o;
    onescope_error err;
    onescope_code rc = onescope_replay_parse(c->b->data, c->b->size, "a", &o, &d, &err);
    if (rc != ONESCOPE_OK) assert_null(d);
    onescope_replay_free(d);
    return rc;
}

static onescope_code walk_write(const onescope_allocator *allocator, void *user) {
    const alloc_ctx *c = user;
    onescope_buffer out;
    onescope_error err;
    onescope_code rc = onescope_replay_write(c->r, allocator, &out, &err);
    if (rc == ONESCOPE_OK) assert_int_equal(out.size, c->b->size);
    onescope_buffer_free(&out);
    return rc;
}

/* create, snapshot, append (growing), hash rows (runs the world) */
static onescope_code walk_build(const onescope_allocator *allocator, void *user) {
    const onescope_replay *r = ((const alloc_ctx *)user)->r;
    onescope_replay *d = NULL;
    onescope_error err;
    onescope_sim_setup setup = onescope_replay_setup(r);
    onescope_link_block link = onescope_replay_link(r);
    size_t snap_size;
    const uint8_t *snap = onescope_replay_start_snapshot(r, &snap_size);
    uint32_t steps = onescope_replay_step_count(r);
    onescope_code rc = onescope_replay_create(&setup, &link, allocator, &d, &err);
    if (rc == ONESCOPE_OK) rc = onescope_replay_set_start_snapshot(d, snap, snap_size, &err);
    for (uint32_t i = 0; i < steps && rc == ONESCOPE_OK; i++) {
        const uint8_t *p;
        size_t len;
        onescope_replay_step_input(r, i, &p, &len);
        rc = onescope_replay_append_step(d, p, len, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_replay_compute_hash_rows(d, &err);
    if (rc == ONESCOPE_OK)
        assert_memory_equal(onescope_replay_hash_rows(d), onescope_replay_hash_rows(r),
                            ((size_t)steps + 1) * 8);
    onescope_replay_free(d);
    return rc;
}

static onescope_code walk_verify(const onescope_allocator *allocator, void *user) {
    onescope_error err;
    return onescope_replay_verify(((const alloc_ctx *)user)->r, allocator, NULL, "a", &err);
}

static void allocation_failure_everywhere(void **state) {
    (void)state;
    onescope_replay *r = build(3, 4, (onescope_link_block){1, 2, 3}, 1, 1, 40);
    onescope_buffer b = write_ok(r);
    alloc_ctx c = {r, &b};
    assert_true(test_alloc_walk(walk_parse, &c) > 4);
    assert_true(test_alloc_walk(walk_write, &c) >= 1);
    assert_true(test_alloc_walk(walk_build, &c) > 5);
    assert_true(test_alloc_walk(walk_verify, &c) >= 1);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
}

/* Ghost options that skipped onescope_ghost_options_default() are refused by name; NULL
 * options are the defaults (one frame from row 0). */
static void ghost_options_without_default_are_refused(void **state) {
    (void)state;
    onescope_link_block none = {0, 0, 0};
    onescope_replay *r = build(2, 3, none, 0, 0, 4);
    onescope_ghost_options o;
    memset(&o, 0, sizeof o);
    o.frames = 2; /* a plausible value does not make up for the missing cookie */
    onescope_pose_cache *c = (onescope_pose_cache *)&o;
    onescope_error err;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_ARGUMENT);
    assert_null(c);
    assert_string_equal(err.field, "onescope_ghost_options");
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "ghost: onescope_ghost_options: expected options from "
                              "onescope_ghost_options_default(), found options without their "
                              "cookie (0x00000000)");
    assert_int_equal(onescope_ghost_create(r, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->frame_count, 1);
    onescope_pose_cache_free(c);
    onescope_replay_free(r);
}

static bool stop_at_row_2(void *user, const onescope_replay_row *row) {
    int *rows = user;
    (*rows)++;
    assert_int_equal(row->index, (uint32_t)*rows - 1);
    assert_false(row->has_expected);
    return row->index == 2;
}

/* NULL arguments of the building and running calls; an early stop from the callback. */
static void null_arguments_and_early_stop(void **state) {
    (void)state;
    onescope_error err;
    onescope_link_block none = {0, 0, 0};
    onescope_replay *r = build(2, 3, none, 0, 0, 6);
    onescope_op op = {4, 0, {1, 0, 0}};
    assert_int_equal(onescope_replay_set_start_snapshot(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_set_start_snapshot(r, NULL, 5, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_step(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_step(r, NULL, 5, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_ops(NULL, &op, 1, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_append_ops(r, NULL, 1, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_set_hash_rows(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_set_hash_rows(r, NULL, 7, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_count(r), 6); /* none of those changed it */
    const uint8_t *p;
    size_t n;
    assert_int_equal(onescope_replay_step_input(NULL, 0, &p, &n), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_input(r, 0, NULL, &n), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_input(r, 0, &p, NULL), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_input(r, 6, &p, &n), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_input(r, 5, &p, &n), ONESCOPE_OK);
    /* step 5 holds 5 % 4 = 1 operation: the first of build()'s list, code 1 */
    assert_int_equal(n, onescope_op_size(1));
    assert_int_equal(p[0], 1);
    assert_int_equal(onescope_replay_validate(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "<ostm>");
    onescope_replay *out = (onescope_replay *)1;
    assert_int_equal(onescope_replay_parse(NULL, 3, "p", NULL, &out, &err), ONESCOPE_E_ARGUMENT);
    assert_null(out); /* refused arguments still clear *out */
    assert_int_equal(onescope_replay_parse("OSTM", 4, "p", NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_read_file(NULL, NULL, &out, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_write_file(NULL, "never.ostm", &err), ONESCOPE_E_ARGUMENT);
    onescope_sim *sim;
    assert_int_equal(onescope_replay_start_world(NULL, NULL, &sim, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_start_world(r, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_run(NULL, NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    /* a callback that returns non-zero stops the run: OK, rows 0..2 seen */
    int rows = 0;
    assert_int_equal(onescope_replay_run(r, NULL, stop_at_row_2, &rows, &err), ONESCOPE_OK);
    assert_int_equal(rows, 3);
    /* without a callback the run goes to the end */
    assert_int_equal(onescope_replay_run(r, NULL, NULL, NULL, &err), ONESCOPE_OK);
    onescope_replay_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_reads_every_part),
        cmocka_unit_test(null_arguments_and_early_stop),
        cmocka_unit_test(every_flag_combination_round_trips),
        cmocka_unit_test(header_rules),
        cmocka_unit_test(snapshot_and_hash_row_rules),
        cmocka_unit_test(step_input_rules),
        cmocka_unit_test(every_prefix_is_truncated),
        cmocka_unit_test(mutations_fail_cleanly_or_round_trip),
        cmocka_unit_test(builder_rules),
        cmocka_unit_test(run_and_verify),
        cmocka_unit_test(linked_pair),
        cmocka_unit_test(arguments_validator_and_files),
        cmocka_unit_test(size_checks_in_file_order),
        cmocka_unit_test(allocation_failure_everywhere),
        cmocka_unit_test(ghost_options_without_default_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
