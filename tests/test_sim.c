/* The integer test module: every rule of docs/test-module.md checked against numbers worked
 * out by hand, the bounds, snapshots, links, fields and the golden hash rows that gate
 * determinism across compilers and optimisation levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* ---- helpers ---- */

typedef struct body_init {
    int32_t alive, still, px, py, pz, vx, vy, vz;
} body_init;

/* Snapshot bytes for a hand-made world. Returns the size. */
static size_t make_snapshot(uint8_t *out, uint64_t host, int32_t gravity, const body_init *b,
                            size_t n) {
    onescope_os_put_u64(out, host);
    onescope_os_put_u32(out + 8, (uint32_t)gravity);
    for (size_t i = 0; i < n; i++) {
        const int32_t v[8] = {b[i].alive, b[i].still, b[i].px, b[i].py,
                              b[i].pz,    b[i].vx,    b[i].vy, b[i].vz};
        for (int k = 0; k < 8; k++)
            onescope_os_put_u32(out + 12 + 32 * i + 4 * (size_t)k, (uint32_t)v[k]);
    }
    return 12 + 32 * n;
}

static onescope_sim *world(uint8_t dims, uint8_t setup_count, onescope_link_block link,
                           uint64_t host, int32_t gravity, const body_init *b, size_t n) {
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t size = make_snapshot(snap, host, gravity, b, n);
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = dims;
    def.setup.body_count = setup_count;
    def.link = link;
    onescope_sim *s = NULL;
    onescope_error err;
    assert_int_equal(onescope_sim_create_from_snapshot(&def, snap, size, "hand", NULL, &s, &err),
                     ONESCOPE_OK);
    return s;
}

static const onescope_link_block no_link = {0, 0, 0};

static onescope_sim_body_state body(const onescope_sim *s, uint32_t i) {
    onescope_sim_body_state b;
    assert_int_equal(onescope_sim_body(s, i, &b), ONESCOPE_OK);
    return b;
}

#define assert_body(s, i, al, st, x, y, z, vx_, vy_, vz_)                                          \
    do {                                                                                           \
        onescope_sim_body_state b_ = body((s), (i));                                               \
        const int32_t got_[8] = {b_.alive,       b_.still_count, b_.position[0], b_.position[1],   \
                                 b_.position[2], b_.velocity[0], b_.velocity[1], b_.velocity[2]};  \
        const int32_t want_[8] = {(al), (st), (x), (y), (z), (vx_), (vy_), (vz_)};                 \
        for (int k_ = 0; k_ < 8; k_++)                                                             \
            if (got_[k_] != want_[k_])                                                             \
                fail_msg("body %d value %d: got %d, want %d", (int)(i), k_, (int)got_[k_],         \
                         (int)want_[k_]);                                                          \
    } while (0)

static void step_ok(onescope_sim *s, const void *input, size_t size) {
    onescope_error err;
    assert_int_equal(onescope_sim_step(s, input, size, &err), ONESCOPE_OK);
}

static size_t op_bytes(uint8_t *out, uint8_t code, uint8_t body_index, int32_t a, int32_t b,
                       int32_t c) {
    onescope_op op = {code, body_index, {a, b, c}};
    onescope_error err;
    size_t n = onescope_op_encode(3, &op, out, 14, &err);
    assert_true(n > 0);
    return n;
}

/* ---- initial state from the seed ---- */

static void setup_draws_bodies_from_splitmix64(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 2;
    def.setup.seed = 1;
    onescope_sim *s;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    assert_true(onescope_sim_host_step(s) == 0);
    assert_int_equal(onescope_sim_gravity(s), 10);
    assert_int_equal(onescope_sim_body_count(s), 1);
    /* The worked example of docs/test-module.md. */
    assert_body(s, 0, 1, 0, 6004, 8118, 0, 103, -37, 0);
    /* The same numbers from an independent splitmix64 (test_util's). */
    uint64_t st = 1;
    int32_t x = (int32_t)(test_rand(&st) % 10001), y = (int32_t)(test_rand(&st) % 10001);
    int32_t vx = (int32_t)(test_rand(&st) % 401) - 200, vy = (int32_t)(test_rand(&st) % 401) - 200;
    assert_body(s, 0, 1, 0, x, y, 0, vx, vy, 0);
    uint8_t snap[44];
    assert_int_equal(onescope_sim_snapshot(s, snap, sizeof snap), 44);
    assert_memory_equal(snap,
                        "\0\0\0\0\0\0\0\0\x0a\0\0\0\x01\0\0\0\0\0\0\0\x74\x17\0\0"
                        "\xb6\x1f\0\0\0\0\0\0\x67\0\0\0\xdb\xff\xff\xff\0\0\0\0",
                        44);
    assert_true(onescope_sim_hash(s) == UINT64_C(0x7eb9508ff7198b74));
    step_ok(s, NULL, 0);
    /* gravity: vy = -37 - 10 = -47; move: 6004 + 103, 8118 - 47 */
    assert_body(s, 0, 1, 0, 6107, 8071, 0, 103, -47, 0);
    assert_true(onescope_sim_hash(s) == UINT64_C(0x0d516a5a4c44d9ab));
    onescope_sim_free(s);

    /* 3D draws x y z, then vx vy vz, body after body. */
    def.setup.dimensions = 3;
    def.setup.body_count = 2;
    def.setup.seed = 99;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    st = 99;
    for (uint32_t i = 0; i < 2; i++) {
        int32_t v[6];
        for (int k = 0; k < 3; k++) v[k] = (int32_t)(test_rand(&st) % 10001);
        for (int k = 3; k < 6; k++) v[k] = (int32_t)(test_rand(&st) % 401) - 200;
        assert_body(s, i, 1, 0, v[0], v[1], v[2], v[3], v[4], v[5]);
    }
    onescope_sim_free(s);
}

/* ---- the stage axis ---- */

static void stages_one_at_a_time(void **state) {
    (void)state;
    body_init b[1] = {{1, 0, 100, 50, 0, -30, -70, 0}};
    onescope_sim *s = world(2, 1, no_link, 7, 10, b, 1);
    onescope_error err;
    assert_int_equal(onescope_sim_next_stage(s), ONESCOPE_SIM_STAGE_INPUT);
    assert_int_equal(onescope_sim_run_stage(s, NULL, 0, &err), ONESCOPE_OK);
    assert_body(s, 0, 1, 0, 100, 50, 0, -30, -70, 0); /* no input: unchanged */
    assert_int_equal(onescope_sim_next_stage(s), ONESCOPE_SIM_STAGE_GRAVITY);
    /* A whole step is refused between stages. */
    assert_int_equal(onescope_sim_step(s, NULL, 0, &err), ONESCOPE_E_BAD_STATE);
    assert_int_equal(onescope_sim_run_stage(s, NULL, 0, &err), ONESCOPE_OK);
    assert_body(s, 0, 1, 0, 100, 50, 0, -30, -80, 0); /* vy = -70 - 10 */
    assert_int_equal(onescope_sim_run_stage(s, NULL, 0, &err), ONESCOPE_OK);
    /* x: 100 - 30 = 70; y: 50 - 80 = -30 reflects to 30, |v| 80 - 80/8 = 70 upwards */
    assert_body(s, 0, 1, 0, 70, 30, 0, -30, 70, 0);
    assert_true(onescope_sim_host_step(s) == 7);
    assert_int_equal(onescope_sim_next_stage(s), ONESCOPE_SIM_STAGE_BOOKKEEPING);
    assert_int_equal(onescope_sim_run_stage(s, NULL, 0, &err), ONESCOPE_OK);
    assert_body(s, 0, 1, 0, 70, 30, 0, -30, 70, 0);
    assert_true(onescope_sim_host_step(s) == 8);
    assert_int_equal(onescope_sim_next_stage(s), ONESCOPE_SIM_STAGE_INPUT);
    step_ok(s, NULL, 0);
    /* vy = 70 - 10 = 60; x 40, y 90 */
    assert_body(s, 0, 1, 0, 40, 90, 0, -30, 60, 0);
    assert_string_equal(onescope_sim_stage_name(ONESCOPE_SIM_STAGE_MOVE), "move");
    assert_string_equal(onescope_sim_stage_name(ONESCOPE_SIM_STAGE_BOOKKEEPING), "bookkeeping");
    onescope_sim_free(s);
}

static void stages_equal_whole_steps(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.body_count = 9;
    def.setup.seed = 5;
    onescope_sim *a, *b;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_sim_create(&def, NULL, &b, &err), ONESCOPE_OK);
    uint8_t in[32];
    size_t n = op_bytes(in, ONESCOPE_OP_IMPULSE, 2, 500, 500, -500);
    n += op_bytes(in + n, ONESCOPE_OP_GRAVITY, 0, -3, 0, 0);
    for (int i = 0; i < 40; i++) {
        step_ok(a, in, i == 3 ? n : 0);
        for (int k = 0; k < 4; k++)
            assert_int_equal(onescope_sim_run_stage(b, in, i == 3 ? n : 0, &err), ONESCOPE_OK);
        assert_true(onescope_sim_hash(a) == onescope_sim_hash(b));
    }
    onescope_sim_free(a);
    onescope_sim_free(b);
}

static void walls_reflect_and_lose_an_eighth(void **state) {
    (void)state;
    body_init b[3] = {
        {1, 0, 9990, 9990, 5, 50, 50, -13},         /* ceiling and far walls, z floor */
        {1, 0, 10000, 0, 10000, 1000, -1000, 1000}, /* fastest possible, at the walls */
        {1, 0, 0, 10000, 0, -1000, 1000, -1000},
    };
    onescope_sim *s = world(3, 3, no_link, 0, 0, b, 3);
    step_ok(s, NULL, 0);
    /* x 9990+50 = 10040 -> 20000-10040 = 9960, v -(50-6) = -44; z 5-13 = -8 -> 8, v 13-1 = 12 */
    assert_body(s, 0, 1, 0, 9960, 9960, 8, -44, -44, 12);
    /* 11000 -> 9000 with v -(1000-125); -1000 -> 1000 with v 875 */
    assert_body(s, 1, 1, 0, 9000, 1000, 9000, -875, 875, -875);
    assert_body(s, 2, 1, 0, 1000, 9000, 1000, 875, -875, 875);
    /* Magnitudes below 8 lose nothing (7/8 rounds down to 0): a slow body bounces fully. */
    body_init c[1] = {{1, 0, 3, 9998, 0, -7, 5, 0}};
    onescope_sim *t = world(2, 1, no_link, 0, 0, c, 1);
    step_ok(t, NULL, 0);
    assert_body(t, 0, 1, 0, 4, 9997, 0, 7, -5, 0);
    onescope_sim_free(s);
    onescope_sim_free(t);
}

static void gravity_pulls_towards_y_zero_and_is_bounded(void **state) {
    (void)state;
    body_init b[1] = {{1, 0, 5000, 5000, 0, 0, 995, 0}};
    onescope_sim *s = world(2, 1, no_link, 0, -1000, b, 1);
    step_ok(s, NULL, 0);
    /* vy = 995 + 1000 clamps to 1000 */
    assert_body(s, 0, 1, 0, 5000, 6000, 0, 0, 1000, 0);
    uint8_t in[16];
    size_t n = op_bytes(in, ONESCOPE_OP_GRAVITY, 0, INT32_MAX, 0, 0);
    step_ok(s, in, n);
    assert_int_equal(onescope_sim_gravity(s), 1000);
    assert_body(s, 0, 1, 1, 5000, 6000, 0, 0, 0, 0); /* vy 1000 - 1000: did not move */
    n = op_bytes(in, ONESCOPE_OP_GRAVITY, 0, INT32_MIN, 0, 0);
    step_ok(s, in, n);
    assert_int_equal(onescope_sim_gravity(s), -1000);
    assert_body(s, 0, 1, 0, 5000, 7000, 0, 0, 1000, 0);
    onescope_sim_free(s);
}

static void impulse_and_teleport_clamp_without_overflow(void **state) {
    (void)state;
    body_init b[1] = {{1, 0, 5000, 5000, 5000, 999, -999, 0}};
    onescope_sim *s = world(3, 1, no_link, 0, 0, b, 1);
    uint8_t in[64];
    size_t n = op_bytes(in, ONESCOPE_OP_IMPULSE, 0, INT32_MAX, INT32_MIN, INT32_MAX);
    onescope_error err;
    assert_int_equal(onescope_sim_run_stage(s, in, n, &err), ONESCOPE_OK);
    assert_body(s, 0, 1, 0, 5000, 5000, 5000, 1000, -1000, 1000);
    for (int k = 0; k < 3; k++) assert_int_equal(onescope_sim_run_stage(s, NULL, 0, &err), 0);
    n = op_bytes(in, ONESCOPE_OP_IMPULSE, 0, INT32_MIN, INT32_MAX, INT32_MIN);
    n += op_bytes(in + n, ONESCOPE_OP_TELEPORT, 0, INT32_MIN, INT32_MAX, 12345);
    assert_int_equal(onescope_sim_run_stage(s, in, n, &err), ONESCOPE_OK);
    assert_body(s, 0, 1, 0, 0, 10000, 10000, -1000, 1000, -1000);
    onescope_sim_free(s);
}

static void spawn_takes_the_next_index_and_stops_at_64(void **state) {
    (void)state;
    body_init b[2] = {{1, 0, 1, 2, 0, 0, 0, 0}, {0, 4, 3, 4, 0, 5, 6, 0}};
    onescope_sim *s = world(2, 1, no_link, 0, 0, b, 2);
    uint8_t in[64];
    size_t n = op_bytes(in, ONESCOPE_OP_SPAWN, 0, -5, 20000, 0);
    step_ok(s, in, n);
    assert_int_equal(onescope_sim_body_count(s), 3);
    /* at rest, clamped into the box; spawned this step counts as having moved */
    assert_body(s, 2, 1, 0, 0, 10000, 0, 0, 0, 0);
    step_ok(s, NULL, 0);
    assert_body(s, 2, 1, 1, 0, 10000, 0, 0, 0, 0);
    assert_body(s, 0, 1, 2, 1, 2, 0, 0, 0, 0);
    assert_body(s, 1, 0, 4, 3, 4, 0, 5, 6, 0); /* removed bodies are frozen */
    onescope_sim_free(s);

    onescope_sim_def def = onescope_sim_def_default();
    def.setup.body_count = 63;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    n = op_bytes(in, ONESCOPE_OP_SPAWN, 0, 7, 8, 9);
    n += op_bytes(in + n, ONESCOPE_OP_SPAWN, 0, 1, 1, 1);
    uint8_t before[ONESCOPE_SIM_MAX_SNAPSHOT];
    step_ok(s, in, n);
    assert_int_equal(onescope_sim_body_count(s), 64);
    onescope_sim_body_state last = body(s, 63);
    assert_int_equal(last.position[0], 7);
    assert_int_equal(last.position[2], 9);
    assert_int_equal(onescope_sim_snapshot_size(s), 12 + 64 * 32);
    assert_int_equal(onescope_sim_snapshot(s, before, 100), 0); /* too small */
    step_ok(s, in, n);                                          /* full: both spawns do nothing */
    assert_int_equal(onescope_sim_body_count(s), 64);
    onescope_sim_free(s);
}

static void operations_on_missing_or_removed_bodies_do_nothing(void **state) {
    (void)state;
    body_init b[2] = {{1, 0, 100, 100, 0, 0, 0, 0}, {1, 0, 200, 200, 0, 0, 0, 0}};
    onescope_sim *s = world(2, 2, no_link, 0, 0, b, 2);
    uint8_t in[128];
    size_t n = op_bytes(in, ONESCOPE_OP_REMOVE, 1, 0, 0, 0);
    n += op_bytes(in + n, ONESCOPE_OP_IMPULSE, 1, 10, 10, 0); /* removed earlier in the step */
    n += op_bytes(in + n, ONESCOPE_OP_TELEPORT, 1, 10, 10, 0);
    n += op_bytes(in + n, ONESCOPE_OP_REMOVE, 1, 0, 0, 0);
    n += op_bytes(in + n, ONESCOPE_OP_IMPULSE, 63, 10, 10, 0); /* not held */
    n += op_bytes(in + n, ONESCOPE_OP_TELEPORT, 2, 10, 10, 0);
    n += op_bytes(in + n, ONESCOPE_OP_REMOVE, 40, 0, 0, 0);
    step_ok(s, in, n);
    assert_int_equal(onescope_sim_body_count(s), 2);
    assert_body(s, 1, 0, 0, 200, 200, 0, 0, 0, 0);
    assert_body(s, 0, 1, 1, 100, 100, 0, 0, 0, 0);
    onescope_sim_free(s);
}

static void still_count_counts_unmoved_steps(void **state) {
    (void)state;
    body_init b[2] = {{1, 0, 10, 10, 10, 0, 0, 0}, {1, INT32_MAX, 20, 20, 20, 0, 0, 0}};
    onescope_sim *s = world(3, 2, no_link, 0, 0, b, 2);
    uint8_t in[32];
    step_ok(s, NULL, 0);
    step_ok(s, NULL, 0);
    assert_body(s, 0, 1, 2, 10, 10, 10, 0, 0, 0);
    assert_body(s, 1, 1, INT32_MAX, 20, 20, 20, 0, 0, 0);         /* saturates */
    size_t n = op_bytes(in, ONESCOPE_OP_TELEPORT, 0, 10, 10, 10); /* same place: still */
    step_ok(s, in, n);
    assert_body(s, 0, 1, 3, 10, 10, 10, 0, 0, 0);
    n = op_bytes(in, ONESCOPE_OP_IMPULSE, 0, 1, 0, 0);
    step_ok(s, in, n);
    assert_body(s, 0, 1, 0, 11, 10, 10, 1, 0, 0);
    /* moving away and back within one step counts as still */
    n = op_bytes(in, ONESCOPE_OP_TELEPORT, 0, 10, 10, 10);
    step_ok(s, in, n);
    assert_body(s, 0, 1, 1, 11, 10, 10, 1, 0, 0);
    onescope_sim_free(s);
}

static void invalid_input_changes_nothing(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 2;
    def.setup.body_count = 3;
    onescope_sim *s;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    uint64_t h = onescope_sim_hash(s);
    const uint8_t unknown[] = {3, 0, 9};
    assert_int_equal(onescope_sim_step(s, unknown, sizeof unknown, &err), ONESCOPE_E_OPERATION);
    assert_error_at(err, ONESCOPE_E_OPERATION, 2);
    const uint8_t body64[] = {3, 64};
    assert_int_equal(onescope_sim_step(s, body64, sizeof body64, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 1);
    const uint8_t z2d[] = {5, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0};
    assert_int_equal(onescope_sim_run_stage(s, z2d, sizeof z2d, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 9);
    const uint8_t shortop[] = {4, 1, 0};
    assert_int_equal(onescope_sim_step(s, shortop, sizeof shortop, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 1);
    const uint8_t nobody[] = {1};
    assert_int_equal(onescope_sim_step(s, nobody, sizeof nobody, &err), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 1);
    assert_true(onescope_sim_hash(s) == h);
    assert_int_equal(onescope_sim_next_stage(s), ONESCOPE_SIM_STAGE_INPUT);
    step_ok(s, NULL, 0); /* still usable */
    onescope_sim_free(s);
    onescope_sim_free(NULL);
}

static void ops_encode_and_decode(void **state) {
    (void)state;
    onescope_op ops[5] = {{1, 63, {-1, 2, -3}},
                          {2, 0, {4, 5, 6}},
                          {3, 7, {0, 0, 0}},
                          {4, 0, {-9, 0, 0}},
                          {5, 0, {1, 2, 3}}};
    uint8_t buf[64];
    size_t n = 0;
    onescope_error err;
    for (int i = 0; i < 5; i++) n += onescope_op_encode(3, &ops[i], buf + n, sizeof buf - n, &err);
    assert_int_equal(n, 14 + 14 + 2 + 5 + 13);
    onescope_op_reader r;
    onescope_op op;
    onescope_op_reader_init(&r, 3, buf, n, "x", 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(onescope_op_reader_next(&r, &op, &err), 1);
        assert_int_equal(op.code, ops[i].code);
        assert_int_equal(op.body, ops[i].body);
        assert_memory_equal(op.value, ops[i].value, sizeof op.value);
    }
    assert_int_equal(onescope_op_reader_next(&r, &op, &err), 0);
    onescope_op bad = {6, 0, {0, 0, 0}};
    assert_int_equal(onescope_op_encode(3, &bad, buf, sizeof buf, &err), 0);
    assert_int_equal(err.code, ONESCOPE_E_OPERATION);
    onescope_op flat = {1, 0, {0, 0, 1}};
    assert_int_equal(onescope_op_encode(2, &flat, buf, sizeof buf, &err), 0);
    assert_int_equal(err.code, ONESCOPE_E_RANGE);
    onescope_op far = {3, 64, {0, 0, 0}};
    assert_int_equal(onescope_op_encode(3, &far, buf, sizeof buf, &err), 0);
    assert_int_equal(err.code, ONESCOPE_E_RANGE);
    assert_int_equal(onescope_op_size(0), 0);
    assert_int_equal(onescope_op_size(4), 5);
}

/* The one printer of operations: each code's text, a cut buffer, an unknown code. */
static void operations_as_text(void **state) {
    (void)state;
    static const struct {
        onescope_op op;
        const char *text;
    } cases[] = {
        {{1, 3, {10, -5, 0}}, "impulse body 3 (10, -5, 0)"},
        {{2, 63, {0, 2147483647, -2147483647 - 1}},
         "teleport body 63 (0, 2147483647, -2147483648)"},
        {{3, 2, {0, 0, 0}}, "remove body 2"},
        {{4, 0, {-9, 0, 0}}, "gravity -9"},
        {{5, 0, {0, 500, 7}}, "spawn (0, 500, 7)"},
        {{9, 1, {1, 2, 3}}, "operation 9"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[96];
        int n = onescope_op_format(&cases[i].op, buf, sizeof buf);
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(n, (int)strlen(cases[i].text));
    }
    char cut[8];
    assert_int_equal(onescope_op_format(&cases[0].op, cut, sizeof cut), 26);
    assert_string_equal(cut, "impulse");
    assert_string_equal(onescope_op_name(1), "impulse");
    assert_string_equal(onescope_op_name(5), "spawn");
    assert_string_equal(onescope_op_name(0), "");
    assert_string_equal(onescope_op_name(6), "");
}

/* ---- snapshots ---- */

static void snapshot_restore_gives_the_same_hashes(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.body_count = 12;
    def.setup.seed = 2024;
    def.link = (onescope_link_block){2, 4, 30};
    onescope_sim *a, *b = NULL;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &a, &err), ONESCOPE_OK);
    uint8_t in[64], snap[ONESCOPE_SIM_MAX_SNAPSHOT], snap2[ONESCOPE_SIM_MAX_SNAPSHOT];
    uint64_t seed = 3;
    uint64_t hashes[80];
    for (int i = 0; i < 80; i++) {
        if (i == 20) {
            size_t n = onescope_sim_snapshot(a, snap, sizeof snap);
            assert_int_equal(n, onescope_sim_snapshot_size(a));
            assert_true(onescope_hash_bytes(snap, n) == onescope_sim_hash(a));
            assert_int_equal(onescope_sim_create_from_snapshot(&def, snap, n, "s", NULL, &b, &err),
                             0);
            assert_int_equal(onescope_sim_snapshot(b, snap2, sizeof snap2), n);
            assert_memory_equal(snap, snap2, n);
        }
        size_t n = 0;
        uint64_t r = test_rand(&seed);
        if (r % 3 == 0) n = op_bytes(in, ONESCOPE_OP_IMPULSE, (uint8_t)(r % 16), 300, -200, 100);
        if (r % 7 == 0) n += op_bytes(in + n, ONESCOPE_OP_SPAWN, 0, 10, 20, 30);
        if (r % 11 == 0) n += op_bytes(in + n, ONESCOPE_OP_REMOVE, (uint8_t)(r % 13), 0, 0, 0);
        step_ok(a, in, n);
        hashes[i] = onescope_sim_hash(a);
        if (b) {
            step_ok(b, in, n);
            assert_true(onescope_sim_hash(b) == hashes[i]);
        }
    }
    onescope_sim_free(a);
    onescope_sim_free(b);
}

static void snapshot_check_rules(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 0};
    body_init b[3] = {{1, 0, 1, 1, 0, 0, 0, 0}, {0, 0, 2, 2, 0, 0, 0, 0}, {1, 0, 3, 3, 0, 0, 0, 0}};
    uint8_t s[ONESCOPE_SIM_MAX_SNAPSHOT + 32];
    onescope_error err;
    size_t n = make_snapshot(s, 0, 0, b, 3);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, n, "s", 100, &err), ONESCOPE_OK);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, n - 1, "s", 100, &err),
                     ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, 100);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, 11, "s", 100, &err), ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, 44, "s", 100, &err), ONESCOPE_E_LENGTH);
    body_init many[65];
    for (int i = 0; i < 65; i++) many[i] = b[0];
    n = make_snapshot(s, 0, 0, many, 65);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, n, "s", 0, &err), ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, n - 32, "s", 0, &err), ONESCOPE_OK);
    /* every value's bound, at its offset */
    struct {
        int body, value;
        int32_t bad;
        uint64_t at;
    } cases[] = {
        {-1, 0, 1001, 8}, {-1, 0, -1001, 8}, {1, 0, 2, 44},    {1, 1, -1, 48},    {1, 2, 10001, 52},
        {1, 3, -1, 56},   {1, 4, 1, 60},     {1, 5, 1001, 64}, {1, 6, -1001, 68}, {1, 7, 1, 72},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        n = make_snapshot(s, 0, 0, b, 3);
        onescope_os_put_u32(s + cases[c].at, (uint32_t)cases[c].bad);
        assert_int_equal(onescope_sim_snapshot_check(&setup, s, n, "s", 0, &err), ONESCOPE_E_RANGE);
        assert_error_at(err, ONESCOPE_E_RANGE, cases[c].at);
    }
    /* In 3D z may be anything in range. */
    setup.dimensions = 3;
    n = make_snapshot(s, 0, 0, b, 3);
    onescope_os_put_u32(s + 60, 10000);
    onescope_os_put_u32(s + 72, (uint32_t)-1000);
    assert_int_equal(onescope_sim_snapshot_check(&setup, s, n, "s", 0, &err), ONESCOPE_OK);
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    onescope_sim *w = NULL;
    assert_int_equal(onescope_sim_create_from_snapshot(&def, s, 13, "s", NULL, &w, &err),
                     ONESCOPE_E_LENGTH);
    assert_null(w);
}

/* ---- setup and links ---- */

static void setup_and_link_rules(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_setup s = {4, 1, 0};
    assert_int_equal(onescope_sim_setup_check(&s, NULL, "x", &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 12);
    s = (onescope_sim_setup){2, 0, 0};
    assert_int_equal(onescope_sim_setup_check(&s, NULL, "x", &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 13);
    s.body_count = 65;
    assert_int_equal(onescope_sim_setup_check(&s, NULL, "x", &err), ONESCOPE_E_RANGE);
    s.body_count = 4;
    onescope_link_block l = {4, 0, 0};
    assert_int_equal(onescope_sim_setup_check(&s, &l, "x", &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 18);
    l = (onescope_link_block){1, 4, 0};
    assert_int_equal(onescope_sim_setup_check(&s, &l, "x", &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 19);
    l = (onescope_link_block){3, 1, 0};
    assert_int_equal(onescope_sim_setup_check(&s, &l, "x", &err), ONESCOPE_E_RESERVED);
    assert_error_at(err, ONESCOPE_E_RESERVED, 19);
    l = (onescope_link_block){3, 0, 1};
    assert_int_equal(onescope_sim_setup_check(&s, &l, "x", &err), ONESCOPE_E_RESERVED);
    assert_error_at(err, ONESCOPE_E_RESERVED, 20);
    l = (onescope_link_block){2, 3, 65535};
    assert_int_equal(onescope_sim_setup_check(&s, &l, "x", &err), ONESCOPE_OK);

    uint8_t six[6];
    onescope_sim_setup_encode(&(onescope_sim_setup){3, 64, 0x01020304u}, six);
    assert_memory_equal(six, "\x03\x40\x04\x03\x02\x01", 6);
    onescope_sim_setup back;
    assert_int_equal(onescope_sim_setup_decode(six, 6, "p", 100, &back, &err), ONESCOPE_OK);
    assert_true(back.dimensions == 3 && back.body_count == 64 && back.seed == 0x01020304u);
    assert_int_equal(onescope_sim_setup_decode(six, 5, "p", 100, &back, &err),
                     ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 100);
    six[1] = 65;
    assert_int_equal(onescope_sim_setup_decode(six, 6, "p", 100, &back, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 101);
    six[0] = 1;
    assert_int_equal(onescope_sim_setup_decode(six, 6, "p", 100, &back, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 100);

    onescope_link_info k = onescope_link_describe(&(onescope_link_block){1, 3, 150});
    assert_int_equal(k.kind, ONESCOPE_LINK_KIND_CONTINUED_BY);
    assert_string_equal(k.kind_name, "ContinuedBy");
    assert_string_equal(k.own_key, "tm-left");
    assert_string_equal(k.other_key, "tm-right");
    assert_int_equal(k.body, 3);
    assert_int_equal(k.step, 150);
    k = onescope_link_describe(&(onescope_link_block){2, 3, 150});
    assert_int_equal(k.kind, ONESCOPE_LINK_KIND_CONTINUES);
    assert_string_equal(k.kind_name, "Continues");
    assert_string_equal(k.own_key, "tm-right");
    assert_string_equal(k.other_key, "tm-left");
    k = onescope_link_describe(&(onescope_link_block){3, 0, 0});
    assert_int_equal(k.kind, ONESCOPE_LINK_KIND_NONE);
    assert_int_equal(onescope_link_describe(NULL).kind, ONESCOPE_LINK_KIND_NONE);
}

static void link_moves_a_body_between_worlds(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.body_count = 5;
    def.setup.seed = 11;
    def.link = (onescope_link_block){1, 3, 4};
    onescope_sim *left, *right, *plain;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &left, &err), ONESCOPE_OK);
    def.link.role = 2;
    assert_int_equal(onescope_sim_create(&def, NULL, &right, &err), ONESCOPE_OK);
    def.link = no_link;
    assert_int_equal(onescope_sim_create(&def, NULL, &plain, &err), ONESCOPE_OK);
    assert_int_equal(onescope_sim_link(left).kind, ONESCOPE_LINK_KIND_CONTINUED_BY);
    assert_int_equal(onescope_sim_link(right).kind, ONESCOPE_LINK_KIND_CONTINUES);
    assert_int_equal(onescope_sim_link(plain).kind, ONESCOPE_LINK_KIND_NONE);
    /* The receiver's body is absent (alive 0, as drawn) before the transfer step. */
    onescope_sim_body_state p3 = body(plain, 3), r3 = body(right, 3);
    assert_int_equal(r3.alive, 0);
    assert_memory_equal(p3.position, r3.position, sizeof p3.position);
    for (int i = 0; i < 6; i++) {
        uint64_t h = onescope_sim_host_step(left);
        assert_int_equal(body(left, 3).alive, h < 4);
        assert_int_equal(body(right, 3).alive, h >= 4);
        if (h == 4) {
            assert_body(right, 3, 1, 0, 5000, 5000, 5000, 150, 0, 0);
            assert_body(left, 3, 0, 0, body(plain, 3).position[0], body(plain, 3).position[1],
                        body(plain, 3).position[2], body(plain, 3).velocity[0],
                        body(plain, 3).velocity[1], body(plain, 3).velocity[2]);
        }
        if (h == 5) assert_body(right, 3, 1, 0, 5150, 4990, 5000, 150, -10, 0);
        step_ok(left, NULL, 0);
        step_ok(right, NULL, 0);
        step_ok(plain, NULL, 0);
    }
    onescope_sim_free(left);
    onescope_sim_free(right);
    onescope_sim_free(plain);

    /* Transfer step 0 happens at creation; 2D arrivals have z 0. */
    def.setup.dimensions = 2;
    def.link = (onescope_link_block){2, 0, 0};
    assert_int_equal(onescope_sim_create(&def, NULL, &right, &err), ONESCOPE_OK);
    assert_body(right, 0, 1, 0, 5000, 5000, 0, 150, 0, 0);
    onescope_sim_free(right);
    def.link = (onescope_link_block){1, 0, 0};
    assert_int_equal(onescope_sim_create(&def, NULL, &left, &err), ONESCOPE_OK);
    assert_int_equal(body(left, 0).alive, 0);
    onescope_sim_free(left);
}

/* ---- fields ---- */

static void fields_on_hand_made_worlds(void **state) {
    (void)state;
    onescope_link_block fields = {3, 0, 0};
    body_init b[5] = {
        {1, 0, 0, 0, 0, 0, 0, 0},         /* vertex 0, triangle 0 */
        {1, 0, 10000, 10000, 0, 0, 0, 0}, /* last cell, upper triangle 127, vertex 80 */
        {1, 0, 1875, 625, 0, 0, 0, 0},    /* cell (1,0), fu = fw = 625: upper triangle 3 */
        {0, 0, 5000, 5000, 0, 0, 0, 0},   /* removed: ignored */
        {1, 0, 1250, 1300, 0, 0, 0, 0},   /* cell (1,1): fu 0 fw 50, lower triangle 18 */
    };
    onescope_sim *s = world(2, 5, fields, 0, 0, b, 5);
    assert_true(onescope_sim_has_fields(s));
    int32_t d[81], o[128];
    onescope_error err;
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_DENSITY, d, 81, &err), ONESCOPE_OK);
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_OCCUPANCY, o, 128, &err), ONESCOPE_OK);
    int32_t want_d[81] = {0};
    want_d[0] = 1562500;
    want_d[80] = 1562500;
    want_d[1] = want_d[2] = want_d[10] = want_d[11] = 390625;
    want_d[10] += 1250 * 1200; /* body 4: vertex (1,1) weight (1250-0)*(1250-50) */
    want_d[19] += 1250 * 50;   /* vertex (1,2) weight (1250-0)*50 */
    assert_memory_equal(d, want_d, sizeof d);
    int32_t want_o[128] = {0};
    want_o[0] = want_o[127] = want_o[3] = want_o[18] = 1;
    assert_memory_equal(o, want_o, sizeof o);
    int64_t sum = 0;
    for (int i = 0; i < 81; i++) sum += d[i];
    assert_true(sum == 4 * 1562500);
    onescope_sim_free(s);

    /* 3D: the floor is x-z. */
    body_init c[1] = {{1, 0, 0, 9999, 10000, 0, 0, 0}};
    s = world(3, 1, (onescope_link_block){1, 0, 9}, 0, 0, c, 1);
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_DENSITY, d, 81, &err), ONESCOPE_OK);
    assert_int_equal(d[72], 1562500);
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_OCCUPANCY, o, 128, &err), ONESCOPE_OK);
    assert_int_equal(o[2 * 56 + 1], 1); /* cell (0,7), fu 0 + fw 1250: upper */
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_DENSITY, d, 80, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_sim_free(s);

    s = world(3, 1, no_link, 0, 0, c, 1);
    assert_false(onescope_sim_has_fields(s));
    assert_int_equal(onescope_sim_field(s, ONESCOPE_FIELD_DENSITY, d, 81, &err),
                     ONESCOPE_E_UNSUPPORTED);
    onescope_sim_free(s);

    const onescope_field_overlay *ov = onescope_field_describe(ONESCOPE_FIELD_DENSITY);
    assert_string_equal(ov->field, "density");
    assert_string_equal(ov->location_name, "vertex");
    assert_int_equal(ov->value_count, 81);
    assert_int_equal(ov->grid_columns, 8);
    assert_string_equal(ov->ramp, "viridis");
    ov = onescope_field_describe(ONESCOPE_FIELD_OCCUPANCY);
    assert_int_equal(ov->location, ONESCOPE_FIELD_AT_TRIANGLE);
    assert_int_equal(ov->value_count, 128);
    assert_null(onescope_field_describe((onescope_field_id)2));
}

/* ---- golden hash rows: the cross-compiler determinism gate ---- */

/* A scripted scenario: every operation kind, deterministic from a seed. */
static onescope_sim *run_scenario(uint8_t dims, uint8_t count, uint32_t seed,
                                  onescope_link_block link, int steps, uint64_t *rows) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){dims, count, seed};
    def.link = link;
    onescope_sim *s;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    uint64_t st = seed;
    rows[0] = onescope_sim_hash(s);
    for (int i = 0; i < steps; i++) {
        uint8_t in[128];
        size_t n = 0;
        uint64_t r = test_rand(&st);
        int32_t a = (int32_t)(r % 4001) - 2000, b = (int32_t)((r >> 16) % 12001) - 1000;
        int32_t z = dims == 3 ? (int32_t)((r >> 32) % 3001) - 1500 : 0;
        onescope_op ops[3];
        int k = 0;
        switch (r % 10) {
            case 0: ops[k++] = (onescope_op){1, (uint8_t)((r >> 8) % 70 % 64), {a, b, z}}; break;
            case 1:
                ops[k++] =
                    (onescope_op){2, (uint8_t)((r >> 8) % count), {b, a + 5000, z < 0 ? -z : z}};
                break;
            case 2: ops[k++] = (onescope_op){3, (uint8_t)((r >> 8) % 64), {0, 0, 0}}; break;
            case 3: ops[k++] = (onescope_op){4, 0, {a / 40, 0, 0}}; break;
            case 4: ops[k++] = (onescope_op){5, 0, {b, b / 2, z < 0 ? 0 : z}}; break;
            case 5:
                ops[k++] = (onescope_op){1, 0, {INT32_MAX, INT32_MIN, dims == 3 ? INT32_MAX : 0}};
                ops[k++] = (onescope_op){4, 0, {INT32_MIN, 0, 0}};
                break;
            case 6: ops[k++] = (onescope_op){4, 0, {10, 0, 0}}; break;
            default: break;
        }
        for (int j = 0; j < k; j++)
            n += onescope_op_encode(dims, &ops[j], in + n, sizeof in - n, &err);
        step_ok(s, in, n);
        rows[i + 1] = onescope_sim_hash(s);
    }
    return s;
}

static void golden_hash_rows(void **state) {
    (void)state;
    /* Values committed from the first run; any change to a rule changes them. */
    static const struct {
        uint8_t dims, count;
        uint32_t seed;
        onescope_link_block link;
        uint64_t row0, row1, row100, row1000;
    } golden[] = {
        {3,
         24,
         12345,
         {0, 0, 0},
         UINT64_C(0x436a8fd4ae796bc9),
         UINT64_C(0x25e35996b9732421),
         UINT64_C(0xaae8bcb45b2b2b1d),
         UINT64_C(0x311097576d597264)},
        {2,
         5,
         7,
         {0, 0, 0},
         UINT64_C(0x1e4d56a19d086602),
         UINT64_C(0x37e05fd0c474b5a9),
         UINT64_C(0x519c75e1321837f2),
         UINT64_C(0x56d19dd1ddde0d2d)},
        {2,
         8,
         1,
         {2, 3, 150},
         UINT64_C(0x827e9b755d9bd463),
         UINT64_C(0xbfbadf6331aae7c1),
         UINT64_C(0xa03d5e683c24eb12),
         UINT64_C(0x85a5595997319de9)},
        {3,
         10,
         42,
         {1, 3, 150},
         UINT64_C(0x81476aa302d46486),
         UINT64_C(0x11b7b51ddc8d276c),
         UINT64_C(0x5d8dead772248420),
         UINT64_C(0x07c1a8c9e8568229)},
        {3,
         64,
         0xFFFFFFFFu,
         {3, 0, 0},
         UINT64_C(0x8eaa9678dd4d011f),
         UINT64_C(0x50dbca54db34a48d),
         UINT64_C(0x58f9b94d8758d167),
         UINT64_C(0x18ca7544548257c3)},
        {2,
         1,
         0,
         {0, 0, 0},
         UINT64_C(0x1d0e51d06367563e),
         UINT64_C(0x863febc1573bf75d),
         UINT64_C(0xa9d25d2437fb2df5),
         UINT64_C(0x538cd73247d73292)},
    };
    uint64_t rows[1001];
    for (size_t g = 0; g < sizeof golden / sizeof golden[0]; g++) {
        onescope_sim *s = run_scenario(golden[g].dims, golden[g].count, golden[g].seed,
                                       golden[g].link, 1000, rows);
        if (getenv("ONESCOPE_PRINT_GOLDEN") != NULL)
            printf("    {%u, %u, %u, {%u, %u, %u}, UINT64_C(0x%016llx), UINT64_C(0x%016llx), "
                   "UINT64_C(0x%016llx), UINT64_C(0x%016llx)},\n",
                   golden[g].dims, golden[g].count, golden[g].seed, golden[g].link.role,
                   golden[g].link.body, golden[g].link.transfer_step, (unsigned long long)rows[0],
                   (unsigned long long)rows[1], (unsigned long long)rows[100],
                   (unsigned long long)rows[1000]);
        else {
            assert_true(rows[0] == golden[g].row0);
            assert_true(rows[1] == golden[g].row1);
            assert_true(rows[100] == golden[g].row100);
            assert_true(rows[1000] == golden[g].row1000);
        }
        onescope_sim_free(s);
    }
}

/* ---- arguments ---- */

static void null_and_bad_arguments(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_def def = onescope_sim_def_default();
    onescope_sim *s = NULL;
    assert_int_equal(onescope_sim_setup_check(NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    onescope_link_block stray = {0, 1, 0};
    assert_int_equal(onescope_sim_setup_check(&def.setup, &stray, "x", &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_create(NULL, NULL, &s, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_create(&def, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    def.setup.body_count = 0;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_sim_create_from_snapshot(&def, "", 0, NULL, NULL, &s, &err),
                     ONESCOPE_E_RANGE);
    assert_null(s);
    def.setup.body_count = 1;
    assert_int_equal(onescope_sim_create_from_snapshot(NULL, "", 0, NULL, NULL, &s, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_snapshot_check(NULL, "", 0, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_snapshot_check(&def.setup, NULL, 4, NULL, 0, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_op_check_input(3, NULL, 3, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    static uint8_t big[65536];
    assert_int_equal(onescope_op_check_input(3, big, sizeof big, NULL, 7, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 7);
    assert_int_equal(onescope_op_check_input(3, NULL, 0, NULL, 0, &err), ONESCOPE_OK);
    onescope_op op = {4, 0, {1, 0, 0}};
    assert_int_equal(onescope_op_encode(3, NULL, big, 14, &err), 0);
    assert_int_equal(onescope_op_encode(3, &op, NULL, 14, &err), 0);
    assert_int_equal(onescope_op_encode(3, &op, big, 4, &err), 0);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    onescope_op_reader r;
    onescope_op_reader_init(&r, 3, NULL, 5, NULL, 0);
    assert_int_equal(onescope_op_reader_next(&r, &op, &err), 0);
    assert_int_equal(onescope_op_reader_next(&r, NULL, &err), -1);
    assert_int_equal(onescope_sim_run_stage(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_step(NULL, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(onescope_sim_stage_name(ONESCOPE_SIM_STAGE_INPUT), "input");
    assert_string_equal(onescope_sim_stage_name(ONESCOPE_SIM_STAGE_GRAVITY), "gravity");
    assert_string_equal(onescope_sim_stage_name((onescope_sim_stage)9), "unknown");
    assert_int_equal(onescope_sim_next_stage(NULL), ONESCOPE_SIM_STAGE_INPUT);
    assert_int_equal(onescope_sim_dimensions(NULL), 0);
    assert_true(onescope_sim_host_step(NULL) == 0);
    assert_int_equal(onescope_sim_gravity(NULL), 0);
    assert_int_equal(onescope_sim_body_count(NULL), 0);
    assert_int_equal(onescope_sim_snapshot_size(NULL), 0);
    assert_int_equal(onescope_sim_definition(NULL).setup.dimensions, 3);
    assert_int_equal(onescope_sim_link(NULL).kind, ONESCOPE_LINK_KIND_NONE);
    assert_int_equal(onescope_sim_has_fields(NULL), 0);
    onescope_sim_body_state b;
    assert_int_equal(onescope_sim_body(NULL, 0, &b), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_setup_decode(NULL, 6, NULL, 0, NULL, &err), ONESCOPE_E_ARGUMENT);
    def.setup.dimensions = 2;
    def.setup.seed = 3;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    assert_int_equal(onescope_sim_dimensions(s), 2);
    assert_int_equal(onescope_sim_definition(s).setup.seed, 3);
    assert_int_equal(onescope_sim_body(s, 1, &b), ONESCOPE_E_ARGUMENT);
    int32_t d[81];
    assert_int_equal(onescope_sim_field(s, (onescope_field_id)5, d, 81, &err), ONESCOPE_E_ARGUMENT);
    onescope_sim_free(s);
}

/* ---- allocation ---- */

typedef struct create_ctx {
    const onescope_sim_def *def;
    const uint8_t *snap; /* NULL: create from the setup */
    size_t size;
} create_ctx;

/* One world made and freed; *out is NULL whenever the call fails. */
static onescope_code create_and_free(const onescope_allocator *allocator, void *user) {
    const create_ctx *c = user;
    onescope_sim *s = (onescope_sim *)&s;
    onescope_error err;
    onescope_code rc = c->snap != NULL ? onescope_sim_create_from_snapshot(c->def, c->snap, c->size,
                                                                           "s", allocator, &s, &err)
                                       : onescope_sim_create(c->def, allocator, &s, &err);
    if (rc != ONESCOPE_OK) assert_null(s);
    onescope_sim_free(s);
    return rc;
}

static void allocation_failure_in_create(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    body_init b[1] = {{1, 0, 1, 2, 3, 4, 5, 6}};
    size_t n = make_snapshot(snap, 0, 0, b, 1);
    create_ctx from_setup = {&def, NULL, 0}, from_snapshot = {&def, snap, n};
    assert_true(test_alloc_walk(create_and_free, &from_setup) >= 1);
    assert_true(test_alloc_walk(create_and_free, &from_snapshot) >= 1);
}

/* A def that skipped onescope_sim_def_default() (zeroed, or copied field by field) is refused
 * by name before its setup is looked at. */
static void def_without_default_is_refused(void **state) {
    (void)state;
    onescope_sim_def def;
    memset(&def, 0, sizeof def);
    onescope_sim *s = (onescope_sim *)&def;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_E_ARGUMENT);
    assert_null(s);
    assert_string_equal(err.field, "onescope_sim_def");
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "onescope_sim_create: onescope_sim_def: expected a def from "
                              "onescope_sim_def_default(), found one without its cookie "
                              "(0x00000000)");
    def.setup = (onescope_sim_setup){3, 1, 0}; /* a good setup does not make up for it */
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    body_init b[1] = {{1, 0, 1, 2, 3, 4, 5, 6}};
    size_t n = make_snapshot(snap, 0, 0, b, 1);
    assert_int_equal(onescope_sim_create_from_snapshot(&def, snap, n, "s", NULL, &s, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "s");
    assert_string_equal(err.field, "onescope_sim_def");
    /* the def a world hands back keeps its cookie, so it makes another world */
    onescope_sim_def good = onescope_sim_def_default();
    assert_int_equal(onescope_sim_create(&good, NULL, &s, &err), ONESCOPE_OK);
    onescope_sim_def again = onescope_sim_definition(s);
    onescope_sim_free(s);
    assert_int_equal(onescope_sim_create(&again, NULL, &s, &err), ONESCOPE_OK);
    onescope_sim_free(s);
}

/* NULL arguments: ARGUMENT (with the default input name where one is given), 0 from sizes. */
static void null_arguments(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_setup setup;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){2, 2, 3};
    onescope_sim *sim;
    assert_int_equal(onescope_sim_setup_decode("\2\2\3\0\0\0", 6, "s", 0, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_setup_decode(NULL, 6, "s", 0, &setup, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_op_check_input(2, NULL, 5, NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "<input>");
    static uint8_t big[ONESCOPE_SIM_MAX_INPUT + 1];
    assert_int_equal(onescope_op_check_input(2, big, sizeof big, NULL, 40, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 40);
    assert_string_equal(err.input, "<input>");
    assert_int_equal(onescope_sim_create(NULL, NULL, &sim, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_create(&def, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    assert_int_equal(n, 12 + 2 * 32);
    assert_int_equal(onescope_sim_snapshot(NULL, snap, sizeof snap), 0);
    assert_int_equal(onescope_sim_snapshot(sim, NULL, sizeof snap), 0);
    assert_int_equal(onescope_sim_snapshot(sim, snap, n - 1), 0);
    onescope_sim *again;
    assert_int_equal(onescope_sim_create_from_snapshot(NULL, snap, n, "s", NULL, &again, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_create_from_snapshot(&def, snap, n, "s", NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_snapshot_check(NULL, snap, n, "s", 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_snapshot_check(&def.setup, NULL, n, "s", 0, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_sim_body_state b;
    assert_int_equal(onescope_sim_body(NULL, 0, &b), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_body(sim, 0, NULL), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_body(sim, 2, &b), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_sim_body(sim, 1, &b), ONESCOPE_OK);
    onescope_sim_free(sim);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(setup_draws_bodies_from_splitmix64),
        cmocka_unit_test(stages_one_at_a_time),
        cmocka_unit_test(operations_as_text),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(stages_equal_whole_steps),
        cmocka_unit_test(walls_reflect_and_lose_an_eighth),
        cmocka_unit_test(gravity_pulls_towards_y_zero_and_is_bounded),
        cmocka_unit_test(impulse_and_teleport_clamp_without_overflow),
        cmocka_unit_test(spawn_takes_the_next_index_and_stops_at_64),
        cmocka_unit_test(operations_on_missing_or_removed_bodies_do_nothing),
        cmocka_unit_test(still_count_counts_unmoved_steps),
        cmocka_unit_test(invalid_input_changes_nothing),
        cmocka_unit_test(ops_encode_and_decode),
        cmocka_unit_test(snapshot_restore_gives_the_same_hashes),
        cmocka_unit_test(snapshot_check_rules),
        cmocka_unit_test(setup_and_link_rules),
        cmocka_unit_test(link_moves_a_body_between_worlds),
        cmocka_unit_test(fields_on_hand_made_worlds),
        cmocka_unit_test(golden_hash_rows),
        cmocka_unit_test(null_and_bad_arguments),
        cmocka_unit_test(allocation_failure_in_create),
        cmocka_unit_test(def_without_default_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
