/* The streaming replay writer and recovery (src/replay_writer.c): round trips, every refusal,
 * torn and damaged partials, allocation failure at every site, and a kill test that SIGKILLs a
 * recording child at random points and recovers what it left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static char dir[256];

static const char *tmp_path(const char *name) {
    static char paths[64][512];
    static int next;
    char *p = paths[next++ % 64];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static int setup_dir(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_replay_writer-%d", (int)getpid());
    mkdir(dir, 0777);
    return 0;
}

static int teardown_dir(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static const onescope_sim_setup setup2d = {2, 4, 7};

/* The input of step i: deterministic, so a recovered step can be compared with what was
 * written. Returns its size. */
static size_t step_input(uint32_t i, uint8_t *buf) {
    onescope_op op = {0, 0, {0, 0, 0}};
    onescope_error err;
    switch (i % 3) {
        case 0:
            op.code = ONESCOPE_OP_IMPULSE;
            op.body = (uint8_t)(i % 4);
            op.value[0] = (int32_t)(i % 97) - 40;
            op.value[1] = (int32_t)(i % 13);
            break;
        case 1: return 0;
        default:
            op.code = ONESCOPE_OP_GRAVITY;
            op.value[0] = (int32_t)(i % 21) - 10;
            break;
    }
    return onescope_op_encode(2, &op, buf, 64, &err);
}

static onescope_replay *read_replay(const char *path) {
    onescope_replay *r = NULL;
    onescope_error err;
    onescope_code rc = onescope_replay_read_file(path, NULL, &r, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    return r;
}

/* Each step of r is step_input(i). */
static void assert_steps(const onescope_replay *r, uint32_t count) {
    assert_int_equal(onescope_replay_step_count(r), count);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t want[64];
        size_t n = step_input(i, want);
        const uint8_t *p;
        size_t size;
        assert_int_equal(onescope_replay_step_input(r, i, &p, &size), ONESCOPE_OK);
        assert_int_equal(size, n);
        if (n) assert_memory_equal(p, want, n);
    }
}

static void assert_verifies(const onescope_replay *r) {
    onescope_verify_result v;
    onescope_error err;
    assert_int_equal(onescope_replay_verify(r, NULL, &v, "recorded", &err), ONESCOPE_OK);
    assert_true(v.matched);
}

static onescope_replay_writer *open_writer(const char *path) {
    onescope_replay_writer *w = NULL;
    onescope_error err;
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_OK);
    return w;
}

static void append_steps(onescope_replay_writer *w, uint32_t from, uint32_t to) {
    onescope_error err;
    for (uint32_t i = from; i < to; i++) {
        uint8_t in[64];
        size_t n = step_input(i, in);
        assert_int_equal(onescope_replay_writer_append(w, in, n, NULL, &err), ONESCOPE_OK);
    }
}

/* ---- the writer ---- */

static void writes_a_replay_that_verifies(void **state) {
    (void)state;
    const char *path = tmp_path("run.ostm");
    onescope_replay_writer *w = open_writer(path);
    assert_true(exists(tmp_path("run.ostm.partial")));
    assert_false(exists(path)); /* the target is untouched until close */
    append_steps(w, 0, 1000);
    uint64_t steps = 0;
    onescope_error err;
    assert_int_equal(onescope_replay_writer_close(w, &steps, &err), ONESCOPE_OK);
    assert_int_equal(steps, 1000);
    assert_false(exists(tmp_path("run.ostm.partial")));
    onescope_replay_writer_free(w);
    onescope_replay *r = read_replay(path);
    assert_steps(r, 1000);
    assert_true(onescope_replay_has_hash_rows(r));
    assert_verifies(r);

    /* The same replay built in memory writes the same bytes. */
    onescope_replay *b;
    assert_int_equal(onescope_replay_create(&setup2d, NULL, NULL, &b, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < 1000; i++) {
        uint8_t in[64];
        size_t n = step_input(i, in);
        assert_int_equal(onescope_replay_append_step(b, in, n, &err), ONESCOPE_OK);
    }
    assert_int_equal(onescope_replay_compute_hash_rows(b, &err), ONESCOPE_OK);
    onescope_buffer mem, file;
    assert_int_equal(onescope_replay_write(b, NULL, &mem, &err), ONESCOPE_OK);
    assert_int_equal(onescope_file_read(path, 0, NULL, &file, &err), ONESCOPE_OK);
    assert_int_equal(mem.size, file.size);
    assert_memory_equal(mem.data, file.data, mem.size);
    onescope_buffer_free(&mem);
    onescope_buffer_free(&file);
    onescope_replay_free(b);
    onescope_replay_free(r);
}

static void empty_recording_and_snapshot_and_link(void **state) {
    (void)state;
    onescope_error err;
    /* No steps: one hash row. */
    const char *path = tmp_path("empty.ostm");
    onescope_replay_writer *w = open_writer(path);
    uint64_t steps = 9;
    assert_int_equal(onescope_replay_writer_close(w, &steps, &err), ONESCOPE_OK);
    assert_int_equal(steps, 0);
    onescope_replay_writer_free(w);
    onescope_replay *r = read_replay(path);
    assert_int_equal(onescope_replay_step_count(r), 0);
    assert_verifies(r);
    onescope_replay_free(r);

    /* A start snapshot and a link block; a small buffer so steps are flushed often. */
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup2d;
    def.link.role = ONESCOPE_LINK_ROLE_SENDER;
    def.link.body = 1;
    def.link.transfer_step = 30;
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(onescope_sim_step(sim, NULL, 0, &err), 0);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t snap_size = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_sim_free(sim);
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    o.buffer_bytes = 1; /* raised to one largest step */
    path = tmp_path("snap.ostm");
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, &def.link, snap, snap_size, &o, NULL, &w, &err),
        ONESCOPE_OK);
    append_steps(w, 0, 100);
    assert_int_equal(onescope_replay_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
    r = read_replay(path);
    assert_steps(r, 100);
    assert_int_equal(onescope_replay_start_step(r), 5);
    assert_int_equal(onescope_replay_link(r).role, ONESCOPE_LINK_ROLE_SENDER);
    assert_verifies(r);
    onescope_replay_free(r);
}

static void given_hashes_are_stored_as_given(void **state) {
    (void)state;
    const char *path = tmp_path("given.ostm");
    onescope_replay_writer *w = open_writer(path);
    onescope_error err;
    for (uint64_t i = 0; i < 10; i++) {
        uint64_t h = 0x1000 + i;
        /* step 5 leaves the hash to the writer: the two ways mix */
        assert_int_equal(onescope_replay_writer_append(w, NULL, 0, i == 5 ? NULL : &h, &err),
                         ONESCOPE_OK);
    }
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
    onescope_replay *r = read_replay(path);
    const uint64_t *rows = onescope_replay_hash_rows(r);
    for (uint32_t i = 0; i < 10; i++)
        if (i != 5) assert_int_equal(rows[i + 1], 0x1000 + i);
    onescope_verify_result v;
    assert_int_equal(onescope_replay_verify(r, NULL, &v, "given", &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.first_row, 1);
    onescope_replay_free(r);
}

static void open_refuses_bad_arguments(void **state) {
    (void)state;
    onescope_replay_writer *w = (onescope_replay_writer *)&w;
    onescope_error err;
    const char *path = tmp_path("refused.ostm");
    assert_int_equal(
        onescope_replay_writer_open(NULL, &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_ARGUMENT);
    assert_null(w);
    assert_int_equal(onescope_replay_writer_open(path, NULL, NULL, NULL, 0, NULL, NULL, &w, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, NULL, NULL, NULL, &err),
        ONESCOPE_E_ARGUMENT);
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 44, NULL, NULL, &w, &err),
        ONESCOPE_E_ARGUMENT);
    assert_int_equal(
        onescope_replay_writer_open("-", &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_ARGUMENT);
    onescope_sim_setup bad = {4, 1, 0};
    assert_int_equal(onescope_replay_writer_open(path, &bad, NULL, NULL, 0, NULL, NULL, &w, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 12);
    onescope_link_block link = {ONESCOPE_LINK_ROLE_FIELDS, 1, 0};
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, &link, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_RESERVED);
    uint8_t snap[44] = {0};
    snap[8] = 0xff; /* gravity -1 is fine; make it out of range */
    snap[9] = 0xff;
    snap[10] = 0xff;
    snap[11] = 0x7f;
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, snap, 44, NULL, NULL, &w, &err),
        ONESCOPE_E_LENGTH); /* 4 bodies need 140 bytes */
    assert_error_at(err, ONESCOPE_E_LENGTH, 26);
    assert_false(exists(tmp_path("refused.ostm.partial")));
    assert_false(exists(path));

    /* A partial left by an earlier run is never overwritten. */
    test_write_file(tmp_path("refused.ostm.partial"), "keep", 4);
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_IO);
    assert_null(w);
    onescope_buffer b;
    assert_int_equal(onescope_file_read(tmp_path("refused.ostm.partial"), 0, NULL, &b, &err),
                     ONESCOPE_OK);
    assert_int_equal(b.size, 4);
    onescope_buffer_free(&b);
    /* A folder that does not exist. */
    assert_int_equal(onescope_replay_writer_open(tmp_path("no/such/x.ostm"), &setup2d, NULL, NULL,
                                                 0, NULL, NULL, &w, &err),
                     ONESCOPE_E_IO);
}

static void append_and_close_refusals_latch(void **state) {
    (void)state;
    onescope_error err;
    char line[512];
    assert_int_equal(onescope_replay_writer_append(NULL, NULL, 0, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_writer_flush(NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_writer_close(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    onescope_replay_writer_free(NULL);

    /* Each bad input: its own code, then BAD_STATE for everything after. */
    struct {
        const uint8_t *input;
        size_t size;
        onescope_code code;
        uint64_t offset;
    } cases[] = {
        {(const uint8_t *)"\x09", 1, ONESCOPE_E_OPERATION, 0},
        {(const uint8_t *)"\x01\x40", 2, ONESCOPE_E_RANGE, 1},
        {(const uint8_t *)"\x04\x01", 2, ONESCOPE_E_TRUNCATED, 1},
        {NULL, 3, ONESCOPE_E_ARGUMENT, UINT64_MAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *path = tmp_path("latch.ostm");
        onescope_replay_writer *w = open_writer(path);
        append_steps(w, 0, 3);
        assert_int_equal(
            onescope_replay_writer_append(w, cases[c].input, cases[c].size, NULL, &err),
            cases[c].code);
        if (cases[c].offset != UINT64_MAX) {
            /* where the byte would be in the finished file of four steps: head 22, five rows,
             * three steps (2 + 14, 2, 2 + 5), the length, then the input */
            assert_error_at(err, cases[c].code, 22 + 8 * 5 + 25 + 2 + cases[c].offset);
        }
        assert_int_equal(onescope_replay_writer_append(w, NULL, 0, NULL, &err),
                         ONESCOPE_E_BAD_STATE);
        onescope_error_format(&err, line, sizeof line);
        assert_non_null(strstr(line, "failed earlier"));
        assert_null(strchr(line, '\n'));
        assert_int_equal(onescope_replay_writer_flush(w, &err), ONESCOPE_E_BAD_STATE);
        assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_E_BAD_STATE);
        onescope_replay_writer_free(w);
        assert_false(exists(path));
        /* What came before the error is still recoverable. */
        uint64_t kept = 0;
        assert_int_equal(
            onescope_replay_recover(tmp_path("latch.ostm.partial"), NULL, NULL, &kept, &err),
            ONESCOPE_OK);
        assert_int_equal(kept, 3);
        onescope_replay *r = read_replay(path);
        assert_steps(r, 3);
        assert_verifies(r);
        onescope_replay_free(r);
        unlink(path);
        unlink(tmp_path("latch.ostm.partial"));
    }

    /* Too long an input, then after close. */
    const char *path = tmp_path("closed.ostm");
    onescope_replay_writer *w = open_writer(path);
    static uint8_t big[ONESCOPE_SIM_MAX_INPUT + 1];
    assert_int_equal(onescope_replay_writer_append(w, big, sizeof big, NULL, &err),
                     ONESCOPE_E_RANGE);
    onescope_replay_writer_free(w);
    unlink(tmp_path("closed.ostm.partial"));
    w = open_writer(path);
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_writer_append(w, NULL, 0, NULL, &err), ONESCOPE_E_BAD_STATE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "already closed"));
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_E_BAD_STATE);
    assert_int_equal(onescope_replay_writer_flush(w, &err), ONESCOPE_E_BAD_STATE);
    onescope_replay_writer_free(w);
}

static void refuses_past_the_size_limit(void **state) {
    (void)state;
    /* 65535-byte steps of gravity ops (5 bytes; 13107 per step): about 4100 steps reach
     * 256 MiB. The step that would pass it is refused and the file stays readable. */
    const char *path = tmp_path("big.ostm");
    onescope_replay_writer *w = open_writer(path);
    static uint8_t in[65535];
    for (size_t i = 0; i + 5 <= sizeof in; i += 5) {
        in[i] = ONESCOPE_OP_GRAVITY;
        in[i + 1] = 3;
    }
    onescope_error err;
    uint32_t n = 0;
    onescope_code rc;
    while ((rc = onescope_replay_writer_append(w, in, sizeof in, &(uint64_t){n}, &err)) ==
           ONESCOPE_OK)
        n++;
    assert_int_equal(rc, ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, path);
    uint64_t size = 18 + 4 + 8 * ((uint64_t)n + 1) + (2 + 65535) * (uint64_t)n;
    assert_true(size <= ONESCOPE_MAX_INPUT_BYTES);
    assert_true(size + 8 + 2 + 65535 > ONESCOPE_MAX_INPUT_BYTES);
    /* Nothing was written for the refused step: the partial holds exactly n records. */
    onescope_replay_writer_free(w);
    struct stat st;
    assert_int_equal(stat(tmp_path("big.ostm.partial"), &st), 0);
    assert_int_equal((uint64_t)st.st_size, 22 + 8 + (12 + 65535) * (uint64_t)n);
    assert_false(exists(path));
    unlink(path);
    unlink(tmp_path("big.ostm.partial"));
}

/* ---- recovery ---- */

static onescope_buffer read_bytes(const char *path) {
    onescope_buffer b;
    onescope_error err;
    assert_int_equal(onescope_file_read(path, 0, NULL, &b, &err), ONESCOPE_OK);
    return b;
}

/* A partial of `steps` steps, left as a killed process leaves it. */
static void make_partial(const char *path, uint32_t steps) {
    onescope_replay_writer *w = open_writer(path);
    append_steps(w, 0, steps);
    onescope_error err;
    assert_int_equal(onescope_replay_writer_flush(w, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
}

static void recover_drops_only_a_torn_last_step(void **state) {
    (void)state;
    const char *target = tmp_path("torn.ostm");
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", target);
    make_partial(target, 12);
    onescope_buffer whole = read_bytes(partial);
    /* Every cut: the steps whose records are whole are kept, and nothing else. */
    size_t head = 18 + 4 + 8;
    onescope_error err;
    for (size_t cut = head; cut <= whole.size; cut++) {
        const char *p = tmp_path("cut.ostm.partial");
        test_write_file(p, whole.data, cut);
        uint64_t kept = 999;
        assert_int_equal(onescope_replay_recover(p, tmp_path("cut.ostm"), NULL, &kept, &err),
                         ONESCOPE_OK);
        uint32_t want = 0;
        size_t at = head;
        for (uint32_t i = 0; i < 12; i++) {
            uint8_t in[64];
            at += 12 + step_input(i, in);
            if (at <= cut) want = i + 1;
        }
        assert_int_equal(kept, want);
        onescope_replay *r = read_replay(tmp_path("cut.ostm"));
        assert_steps(r, want);
        assert_verifies(r);
        onescope_replay_free(r);
        /* the partial is untouched */
        onescope_buffer again = read_bytes(p);
        assert_int_equal(again.size, cut);
        onescope_buffer_free(&again);
    }
    onescope_buffer_free(&whole);
}

static void recover_refuses_what_is_not_a_partial(void **state) {
    (void)state;
    onescope_error err;
    char line[512];
    char target[600], partial[700]; /* kept: tmp_path's slots are reused */
    snprintf(target, sizeof target, "%s", tmp_path("bad.ostm"));
    snprintf(partial, sizeof partial, "%s.partial", target);
    make_partial(target, 5);
    onescope_buffer good = read_bytes(partial);

    assert_int_equal(onescope_replay_recover(NULL, NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    /* no output name and none to derive */
    assert_int_equal(onescope_replay_recover(tmp_path("x.bin"), NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_recover(tmp_path(".partial"), NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_recover(tmp_path("none.partial"), NULL, NULL, NULL, &err),
                     ONESCOPE_E_IO);
    assert_int_equal(onescope_replay_recover(dir, tmp_path("o.ostm"), NULL, NULL, &err),
                     ONESCOPE_E_IO);
    /* the output may not be the partial itself */
    assert_int_equal(onescope_replay_recover(partial, partial, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);

    /* A finished replay is not a partial: named, with the offset of its step count. */
    onescope_replay_writer *w = open_writer(tmp_path("done.ostm"));
    append_steps(w, 0, 2);
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
    assert_int_equal(
        onescope_replay_recover(tmp_path("done.ostm"), tmp_path("o.ostm"), NULL, NULL, &err),
        ONESCOPE_E_MAGIC);
    assert_error_at(err, ONESCOPE_E_MAGIC, 18);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "done.ostm: offset 18: partial recording mark"));

    struct {
        size_t offset;
        uint8_t value;
        onescope_code code;
        uint64_t at;
    } damage[] = {
        {0, 'X', ONESCOPE_E_MAGIC, 0},    {6, 0x09, ONESCOPE_E_FLAGS, 6},
        {12, 9, ONESCOPE_E_RANGE, 12},    {30, 'x', ONESCOPE_E_MAGIC, 30},
        {31, 'x', ONESCOPE_E_MAGIC, 31},  {34, 9, ONESCOPE_E_OPERATION, 34},
        {35, 0x40, ONESCOPE_E_RANGE, 35},
    };
    for (size_t d = 0; d < sizeof damage / sizeof damage[0]; d++) {
        onescope_buffer copy = read_bytes(partial);
        copy.data[damage[d].offset] = damage[d].value;
        test_write_file(tmp_path("dmg.ostm.partial"), copy.data, copy.size);
        assert_int_equal(
            onescope_replay_recover(tmp_path("dmg.ostm.partial"), NULL, NULL, NULL, &err),
            damage[d].code);
        assert_error_at(err, damage[d].code, damage[d].at);
        assert_false(exists(tmp_path("dmg.ostm")));
        onescope_buffer after = read_bytes(tmp_path("dmg.ostm.partial"));
        assert_memory_equal(after.data, copy.data, copy.size);
        onescope_buffer_free(&after);
        onescope_buffer_free(&copy);
    }
    /* Flag bit 0 clear (a hand-made head): refused at the flags. */
    {
        onescope_buffer copy = read_bytes(partial);
        copy.data[6] = 0;
        test_write_file(tmp_path("dmg.ostm.partial"), copy.data, copy.size);
        assert_int_equal(
            onescope_replay_recover(tmp_path("dmg.ostm.partial"), NULL, NULL, NULL, &err),
            ONESCOPE_E_FLAGS);
        onescope_buffer_free(&copy);
    }
    /* Cut inside the head or row 0. */
    for (size_t cut = 0; cut < 30; cut++) {
        test_write_file(tmp_path("dmg.ostm.partial"), good.data, cut);
        onescope_code rc =
            onescope_replay_recover(tmp_path("dmg.ostm.partial"), NULL, NULL, NULL, &err);
        assert_int_equal(rc, ONESCOPE_E_TRUNCATED);
        assert_true(err.has_offset && err.offset <= cut);
    }
    /* A huge snapshot length is refused at once. */
    {
        uint8_t head[30];
        memcpy(head, good.data, 22);
        head[6] = 0x3;
        memcpy(head + 22, "\xa0\x86\x01\x00", 4); /* snapshot length 100000 */
        test_write_file(tmp_path("dmg.ostm.partial"), head, 26);
        assert_int_equal(
            onescope_replay_recover(tmp_path("dmg.ostm.partial"), NULL, NULL, NULL, &err),
            ONESCOPE_E_LENGTH);
        assert_error_at(err, ONESCOPE_E_LENGTH, 26);
    }
    /* No room for the output: the partial stays. */
    assert_int_equal(
        onescope_replay_recover(partial, tmp_path("no/such/dir.ostm"), NULL, NULL, &err),
        ONESCOPE_E_IO);
    onescope_buffer_free(&good);
}

/* ---- allocation failure at every site ---- */

typedef struct walk_ctx {
    int round;
} walk_ctx;

static onescope_code record_with(const onescope_allocator *a, void *ctx) {
    walk_ctx *c = ctx;
    char name[64];
    snprintf(name, sizeof name, "walk-%d.ostm", c->round++);
    const char *path = tmp_path(name);
    onescope_replay_writer *w;
    onescope_error err;
    onescope_code rc =
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, NULL, a, &w, &err);
    if (rc != ONESCOPE_OK) return rc;
    for (uint32_t i = 0; i < 50 && rc == ONESCOPE_OK; i++) {
        uint8_t in[64];
        size_t n = step_input(i, in);
        rc = onescope_replay_writer_append(w, in, n, NULL, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_replay_writer_close(w, NULL, &err);
    onescope_replay_writer_free(w);
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", path);
    unlink(partial);
    if (rc == ONESCOPE_OK) {
        onescope_replay *r = read_replay(path);
        assert_steps(r, 50);
        onescope_replay_free(r);
    } else {
        assert_false(exists(path));
    }
    unlink(path);
    return rc;
}

static onescope_code recover_with(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_error err;
    uint64_t kept;
    const char *out = tmp_path("walked.ostm");
    onescope_code rc =
        onescope_replay_recover(tmp_path("walk-src.ostm.partial"), NULL, a, &kept, &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(kept, 30);
        onescope_replay *r = read_replay(tmp_path("walk-src.ostm"));
        assert_steps(r, 30);
        onescope_replay_free(r);
    }
    (void)out;
    return rc;
}

static void allocation_failure_everywhere(void **state) {
    (void)state;
    walk_ctx c = {0};
    assert_true(test_alloc_walk(record_with, &c) >= 4);
    make_partial(tmp_path("walk-src.ostm"), 30);
    assert_true(test_alloc_walk(recover_with, NULL) >= 2);
}

/* A NULL error is allowed everywhere; zeroed options are the defaults. */
static void null_error_and_zeroed_options(void **state) {
    (void)state;
    onescope_replay_writer *w;
    assert_int_equal(onescope_replay_writer_open("", &setup2d, NULL, NULL, 0, NULL, NULL, &w, NULL),
                     ONESCOPE_E_ARGUMENT);
    onescope_replay_writer_options zero;
    memset(&zero, 0, sizeof zero);
    zero.flush_every = 1;
    const char *path = tmp_path("nullerr.ostm");
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, &zero, NULL, &w, NULL),
        ONESCOPE_OK);
    append_steps(w, 0, 4);
    assert_int_equal(onescope_replay_writer_append(w, "\x09", 1, NULL, NULL), ONESCOPE_E_OPERATION);
    onescope_replay_writer_free(w);
    /* Damage in a record, reported without an error struct. */
    onescope_buffer b = read_bytes(tmp_path("nullerr.ostm.partial"));
    assert_int_equal(b.size, 30 + 12 * 4 + 14 + 5 + 14);
    b.data[34] = 9;
    test_write_file(tmp_path("nullerr2.ostm.partial"), b.data, b.size);
    assert_int_equal(
        onescope_replay_recover(tmp_path("nullerr2.ostm.partial"), NULL, NULL, NULL, NULL),
        ONESCOPE_E_OPERATION);
    onescope_buffer_free(&b);
    assert_int_equal(
        onescope_replay_recover(tmp_path("nullerr.ostm.partial"), NULL, NULL, NULL, NULL),
        ONESCOPE_OK);
}

/* ---- write failures: a full disk, played by a file size limit in a child ---- */

/* Runs in a child whose files may not grow past limit bytes (writes fail with EFBIG).
 * Returns 0 when every call failed as documented, else the number of the check that did not. */
static int under_size_limit(rlim_t limit, int which) {
    struct rlimit rl = {limit, limit};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 90;
    char path[600];
    snprintf(path, sizeof path, "%s/full-%d.ostm", dir, which);
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    o.flush_every = which == 1 ? 1 : ONESCOPE_FLUSH_NEVER;
    o.flush_every_ms =
        ONESCOPE_FLUSH_NEVER; /* no flush by the clock: the test is about the count */
    onescope_replay_writer *w = NULL;
    onescope_error err;
    onescope_code rc =
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, &o, NULL, &w, &err);
    char partial[700];
    snprintf(partial, sizeof partial, "%s.partial", path);
    if (which == 0) /* the head itself does not fit: no partial is left */
        return rc == ONESCOPE_E_IO && w == NULL && !exists(partial) ? 0 : 1;
    if (rc != ONESCOPE_OK) return 2;
    for (uint32_t i = 0; i < 200 && rc == ONESCOPE_OK; i++) {
        uint8_t in[64];
        size_t n = step_input(i, in);
        rc = onescope_replay_writer_append(w, in, n, NULL, &err);
    }
    if (which == 1) { /* a flush per step meets the limit while appending */
        if (rc != ONESCOPE_E_IO) return 3;
        if (onescope_replay_writer_close(w, NULL, &err) != ONESCOPE_E_BAD_STATE) return 4;
    } else { /* the steps wait in the buffer; writing them at close meets the limit */
        if (rc != ONESCOPE_OK) return 5;
        if (onescope_replay_writer_close(w, NULL, &err) != ONESCOPE_E_IO) return 6;
        if (exists(path)) return 7;
    }
    onescope_replay_writer_free(w);
    return exists(partial) ? 0 : 8;
}

static void write_failures_are_reported(void **state) {
    (void)state;
    rlim_t limits[] = {10, 600, 2000};
    for (int which = 0; which < 3; which++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) _exit(under_size_limit(limits[which], which));
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    /* The target is a folder: refused at open (close could not rename onto it), before any
     * partial exists, not after the recording. */
    const char *folder = tmp_path("folder.ostm");
    assert_int_equal(mkdir(folder, 0777), 0);
    char inside[600];
    snprintf(inside, sizeof inside, "%s/x", folder);
    test_write_file(inside, "x", 1);
    onescope_replay_writer *w = NULL;
    onescope_error err;
    assert_int_equal(
        onescope_replay_writer_open(folder, &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_ARGUMENT);
    assert_null(w);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "folder.ostm: output: expected a regular file"));
    assert_non_null(strstr(line, "found a directory"));
    assert_false(exists(tmp_path("folder.ostm.partial")));
    /* A folder that appears during the recording: close fails at the rename, the partial
     * stays whole and recovers every step. */
    const char *later = tmp_path("later.ostm");
    w = open_writer(later);
    append_steps(w, 0, 5);
    assert_int_equal(mkdir(later, 0777), 0);
    snprintf(inside, sizeof inside, "%s/x", later);
    test_write_file(inside, "x", 1);
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_E_IO);
    assert_non_null(strstr(err.found, "rename"));
    onescope_replay_writer_free(w);
    uint64_t kept;
    assert_int_equal(onescope_replay_recover(tmp_path("later.ostm.partial"), tmp_path("f.ostm"),
                                             NULL, &kept, &err),
                     ONESCOPE_OK);
    assert_int_equal(kept, 5);
}

/* ---- where the finished file lands (docs/hardening.md, "### files") ---- */

/* Temporaries ("NAME.tmp-XXXXXX") left in the test folder. */
static int temporaries_left(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        n += strstr(e->d_name, ".tmp-") != NULL;
    closedir(d);
    return n;
}

static mode_t mode_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

static bool is_link(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* A recording of `steps` steps closed onto path. */
static void record_onto(const char *path, uint32_t steps) {
    onescope_replay_writer *w = open_writer(path);
    append_steps(w, 0, steps);
    onescope_error err;
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
}

static void assert_replay_of(const char *path, uint32_t steps) {
    onescope_replay *r = read_replay(path);
    assert_steps(r, steps);
    assert_verifies(r);
    onescope_replay_free(r);
}

/* close replaces an existing file keeping its mode, follows a symlink (which stays a link),
 * creates a dangling link's target, and refuses a device before anything is created. */
static void close_lands_like_every_output(void **state) {
    (void)state;
    /* A 0640 file: the replaced file's mode, not the umask's 0644 (or 0666). */
    char plain[600];
    snprintf(plain, sizeof plain, "%s", tmp_path("kind-0640.ostm"));
    test_write_file(plain, "old", 3);
    assert_int_equal(chmod(plain, 0640), 0);
    record_onto(plain, 7);
    assert_int_equal(mode_of(plain), 0640);
    assert_replay_of(plain, 7);

    /* A symlink to an existing file: the file at its end is replaced, the link stays. */
    char real[600], link[600];
    snprintf(real, sizeof real, "%s", tmp_path("kind-real.ostm"));
    snprintf(link, sizeof link, "%s", tmp_path("kind-link.ostm"));
    test_write_file(real, "old", 3);
    assert_int_equal(chmod(real, 0600), 0);
    assert_int_equal(symlink("kind-real.ostm", link), 0); /* relative to its folder */
    record_onto(link, 9);
    assert_true(is_link(link));
    assert_int_equal(mode_of(real), 0600);
    assert_replay_of(real, 9);

    /* A dangling symlink: its target is created, the link stays. */
    char target[600], dangling[600];
    snprintf(target, sizeof target, "%s", tmp_path("kind-new.ostm"));
    snprintf(dangling, sizeof dangling, "%s", tmp_path("kind-dangling.ostm"));
    assert_false(exists(target));
    assert_int_equal(symlink(target, dangling), 0); /* absolute */
    record_onto(dangling, 4);
    assert_true(is_link(dangling));
    assert_replay_of(target, 4);
    assert_int_equal(temporaries_left(), 0);

    /* A device: refused at open like the pose writer refuses one; /dev/null stays a device
     * and no partial is created beside it. */
    onescope_replay_writer *w = (onescope_replay_writer *)&w;
    onescope_error err;
    assert_int_equal(
        onescope_replay_writer_open("/dev/null", &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_ARGUMENT);
    assert_null(w);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "/dev/null");
    assert_non_null(strstr(err.found, "device"));
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_false(exists("/dev/null.partial"));
    unlink(plain);
    unlink(link);
    unlink(real);
    unlink(dangling);
    unlink(target);
}

/* recover writes its output the same way: through a symlink onto a 0640 file, through a
 * dangling one, and never over a device. */
static void recover_lands_like_every_output(void **state) {
    (void)state;
    char source[600], partial[700], real[600], link[600], target[600], dangling[600];
    snprintf(source, sizeof source, "%s", tmp_path("rkind.ostm"));
    snprintf(partial, sizeof partial, "%s.partial", source);
    snprintf(real, sizeof real, "%s", tmp_path("rkind-real.ostm"));
    snprintf(link, sizeof link, "%s", tmp_path("rkind-link.ostm"));
    snprintf(target, sizeof target, "%s", tmp_path("rkind-new.ostm"));
    snprintf(dangling, sizeof dangling, "%s", tmp_path("rkind-dangling.ostm"));
    make_partial(source, 11);
    onescope_buffer before = read_bytes(partial);

    test_write_file(real, "old", 3);
    assert_int_equal(chmod(real, 0640), 0);
    assert_int_equal(symlink("rkind-real.ostm", link), 0);
    uint64_t kept = 0;
    onescope_error err;
    assert_int_equal(onescope_replay_recover(partial, link, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 11);
    assert_true(is_link(link));
    assert_int_equal(mode_of(real), 0640);
    assert_replay_of(real, 11);

    assert_int_equal(symlink("rkind-new.ostm", dangling), 0);
    assert_int_equal(onescope_replay_recover(partial, dangling, NULL, &kept, &err), ONESCOPE_OK);
    assert_true(is_link(dangling));
    assert_replay_of(target, 11);

    /* A device cannot take a file that is renamed into place: refused, /dev/null stays. */
    kept = 99;
    assert_int_equal(onescope_replay_recover(partial, "/dev/null", NULL, &kept, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(kept, 0);
    assert_string_equal(err.input, "/dev/null");
    assert_non_null(strstr(err.found, "device"));
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(temporaries_left(), 0);

    /* The partial itself is never changed. */
    onescope_buffer after = read_bytes(partial);
    assert_int_equal(after.size, before.size);
    assert_memory_equal(after.data, before.data, before.size);
    onescope_buffer_free(&before);
    onescope_buffer_free(&after);
    unlink(partial);
    unlink(link);
    unlink(real);
    unlink(dangling);
    unlink(target);
}

/* ---- the kill test ---- */

/* The child: records forever, one step per append, each written at once, and reports every
 * step count it has written to the pipe. */
static void recorder(const char *path, int report) {
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    o.flush_every = 1;
    onescope_replay_writer *w;
    onescope_error err;
    if (onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, &o, NULL, &w, &err) != 0)
        _exit(3);
    for (uint32_t i = 0;; i++) {
        uint8_t in[64];
        size_t n = step_input(i, in);
        if (onescope_replay_writer_append(w, in, n, NULL, &err) != ONESCOPE_OK) _exit(4);
        uint32_t done = i + 1;
        if (write(report, &done, sizeof done) != (ssize_t)sizeof done) _exit(5);
    }
}

static void killed_recordings_recover(void **state) {
    (void)state;
    uint64_t rng = 0x6b696c6c;
    signal(SIGPIPE, SIG_IGN);
    for (int run = 0; run < 60; run++) {
        char name[64];
        snprintf(name, sizeof name, "kill-%d.ostm", run);
        const char *path = tmp_path(name);
        char partial[600];
        snprintf(partial, sizeof partial, "%s.partial", path);
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            recorder(path, fds[1]);
        }
        close(fds[1]);
        /* A random point: after 0..2000 reported steps (0: possibly before the head). */
        uint32_t wait_for = (uint32_t)(test_rand(&rng) % 2001), seen = 0;
        while (seen < wait_for) {
            uint32_t v;
            if (read(fds[0], &v, sizeof v) != (ssize_t)sizeof v) break;
            seen = v;
        }
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        close(fds[0]);
        onescope_error err;
        uint64_t kept = 0;
        onescope_code rc = onescope_replay_recover(partial, NULL, NULL, &kept, &err);
        if (seen == 0 && rc != ONESCOPE_OK) {
            /* killed before or while the head was written */
            assert_true(rc == ONESCOPE_E_IO || rc == ONESCOPE_E_TRUNCATED);
            unlink(partial);
            continue;
        }
        assert_int_equal(rc, ONESCOPE_OK);
        assert_true(kept >= seen);
        onescope_replay *r = read_replay(path);
        assert_steps(r, kept);
        assert_verifies(r);
        onescope_replay_free(r);
        unlink(path);
        unlink(partial);
    }
}

/* ---- round three (docs/hardening.md, "### writers") ---- */

/* Damage with whole records after it is not a torn end: a length of 65535 in record 10 of
 * 100 is reported at that length, nothing is written, and the partial stays as it was. */
static void recover_never_cuts_the_middle(void **state) {
    (void)state;
    const char *target = tmp_path("middle.ostm");
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", target);
    make_partial(target, 100);
    onescope_buffer b = read_bytes(partial);
    size_t at = 18 + 4 + 8;
    for (int i = 0; i < 10; i++) at += 12 + (size_t)(b.data[at + 2] | b.data[at + 3] << 8);
    uint16_t lengths[] = {65535, 4000, 200};
    for (int k = 0; k < 3; k++) {
        onescope_buffer c = read_bytes(partial);
        c.data[at + 2] = (uint8_t)(lengths[k] & 0xff);
        c.data[at + 3] = (uint8_t)(lengths[k] >> 8);
        const char *p = tmp_path("middle2.ostm.partial");
        test_write_file(p, c.data, c.size);
        onescope_error err;
        uint64_t kept = 7;
        onescope_code rc = onescope_replay_recover(p, NULL, NULL, &kept, &err);
        assert_int_equal(kept, 0);
        assert_true(err.has_offset);
        if (k == 0) { /* past the end of the file: not a torn end, since bytes follow */
            assert_int_equal(rc, ONESCOPE_E_LENGTH);
            assert_int_equal(err.offset, at + 2);
            char line[512];
            onescope_error_format(&err, line, sizeof line);
            assert_non_null(
                strstr(line, "step input length: expected a whole record, or a last one"));
        } else { /* inside the file: the bytes it takes are no step input */
            assert_int_not_equal(rc, ONESCOPE_OK);
            assert_true(err.offset >= at);
        }
        assert_false(exists(tmp_path("middle2.ostm")));
        onescope_buffer after = read_bytes(p);
        assert_int_equal(after.size, c.size);
        assert_memory_equal(after.data, c.data, c.size);
        onescope_buffer_free(&after);
        onescope_buffer_free(&c);
    }
    onescope_buffer_free(&b);
}

/* The durability options of the pose writer, with the same meaning: a flush every N steps. */
static void durability_by_count(void **state) {
    (void)state;
    const char *path = tmp_path("durable.ostm");
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", path);
    uint32_t everies[] = {1, 10, 0 /* the default: 64 */};
    for (int i = 0; i < 3; i++) {
        onescope_replay_writer_options o = onescope_replay_writer_options_default();
        o.flush_every = everies[i];
        o.flush_every_ms = ONESCOPE_FLUSH_NEVER;
        onescope_replay_writer *w = NULL;
        onescope_error err;
        assert_int_equal(
            onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, &o, NULL, &w, &err),
            ONESCOPE_OK);
        uint32_t every = everies[i] != 0 ? everies[i] : ONESCOPE_FLUSH_DEFAULT_RECORDS;
        long want = 18 + 4 + 8, pending = 0;
        for (uint32_t k = 0; k < 150; k++) {
            uint8_t in[64];
            size_t n = step_input(k, in);
            assert_int_equal(onescope_replay_writer_append(w, in, n, NULL, &err), ONESCOPE_OK);
            pending += 12 + (long)n;
            if ((k + 1) % every == 0) {
                want += pending;
                pending = 0;
            }
            struct stat st;
            assert_int_equal(stat(partial, &st), 0);
            assert_int_equal(st.st_size, want);
        }
        assert_int_equal(onescope_replay_writer_steps(w), 150);
        onescope_replay_writer_discard(w); /* abandons: no partial, no file */
        assert_false(exists(partial));
        assert_false(exists(path));
    }
}

/* Names of 248-255 bytes record and close (the partial's name is cut to fit), and the
 * error line for an existing partial names it whole, with its reason. */
static void long_names_and_dash(void **state) {
    (void)state;
    for (size_t len = 247; len <= 255; len++) {
        char name[300];
        memset(name, 'r', len);
        memcpy(name + len - 5, ".ostm", 5);
        name[len] = '\0';
        char path[800];
        size_t d = strlen(dir);
        memcpy(path, dir, d);
        path[d] = '/';
        memcpy(path + d + 1, name, len + 1);
        onescope_replay_writer *w = open_writer(path);
        append_steps(w, 0, 3);
        onescope_error err;
        uint64_t steps = 0;
        assert_int_equal(onescope_replay_writer_close(w, &steps, &err), ONESCOPE_OK);
        assert_int_equal(steps, 3);
        onescope_replay_writer_free(w);
        assert_true(exists(path));
        unlink(path);
    }
    /* A stale partial: the line names it and keeps the reason. */
    const char *path = tmp_path("stale.ostm");
    make_partial(path, 2);
    onescope_replay_writer *w = NULL;
    onescope_error err;
    assert_int_equal(
        onescope_replay_writer_open(path, &setup2d, NULL, NULL, 0, NULL, NULL, &w, &err),
        ONESCOPE_E_IO);
    char line[1024];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "stale.ostm.partial: it exists"));
    assert_non_null(strstr(line, "recover it or remove it)"));
    /* Recovery never writes to "-" (the pose recovery refuses it too). */
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_int_equal(onescope_replay_recover(partial, "-", NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_false(exists(tmp_path("-")));
}

/* Killed inside close after the rename, before the partial is removed: the partial is
 * whole and recovers to the very bytes close wrote. */
static void killed_inside_close(void **state) {
    (void)state;
    const char *path = tmp_path("closing.ostm");
    char partial[600];
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_replay_writer *w = open_writer(path);
    append_steps(w, 0, 40);
    onescope_error err;
    assert_int_equal(onescope_replay_writer_flush(w, &err), ONESCOPE_OK);
    onescope_buffer left = read_bytes(partial);
    assert_int_equal(onescope_replay_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_replay_writer_free(w);
    onescope_buffer done = read_bytes(path);
    test_write_file(partial, left.data, left.size);
    uint64_t kept = 0;
    assert_int_equal(onescope_replay_recover(partial, tmp_path("again.ostm"), NULL, &kept, &err),
                     ONESCOPE_OK);
    assert_int_equal(kept, 40);
    onescope_buffer again = read_bytes(tmp_path("again.ostm"));
    assert_int_equal(again.size, done.size);
    assert_memory_equal(again.data, done.data, done.size);
    onescope_buffer_free(&again);
    onescope_buffer_free(&done);
    onescope_buffer_free(&left);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_a_replay_that_verifies),
        cmocka_unit_test(empty_recording_and_snapshot_and_link),
        cmocka_unit_test(given_hashes_are_stored_as_given),
        cmocka_unit_test(open_refuses_bad_arguments),
        cmocka_unit_test(append_and_close_refusals_latch),
        cmocka_unit_test(refuses_past_the_size_limit),
        cmocka_unit_test(recover_drops_only_a_torn_last_step),
        cmocka_unit_test(recover_never_cuts_the_middle),
        cmocka_unit_test(durability_by_count),
        cmocka_unit_test(long_names_and_dash),
        cmocka_unit_test(killed_inside_close),
        cmocka_unit_test(recover_refuses_what_is_not_a_partial),
        cmocka_unit_test(allocation_failure_everywhere),
        cmocka_unit_test(null_error_and_zeroed_options),
        cmocka_unit_test(write_failures_are_reported),
        cmocka_unit_test(close_lands_like_every_output),
        cmocka_unit_test(recover_lands_like_every_output),
        cmocka_unit_test(killed_recordings_recover),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
