/* The test-data generator: deterministic bytes, the
 * link pair's hand-over, every operation in test-10000, the live-attach recording, the ghost
 * file's parameters, the input script, allocation failure. Ghosts: tests/test_ghost.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"
#include "testdata.h"

typedef struct files {
    char *name[16];
    uint8_t *data[16];
    size_t size[16];
    size_t count;
} files;

static int keep(void *user, const char *name, const void *data, size_t size) {
    files *f = user;
    assert_true(f->count < 16);
    f->name[f->count] = strdup(name);
    f->data[f->count] = malloc(size ? size : 1);
    memcpy(f->data[f->count], data, size);
    f->size[f->count] = size;
    f->count++;
    return 0;
}

static void generate(files *f) {
    memset(f, 0, sizeof *f);
    onescope_error err;
    assert_int_equal(testdata_generate(NULL, keep, f, &err), ONESCOPE_OK);
    assert_int_equal(f->count, testdata_file_count());
}

static void free_files(files *f) {
    for (size_t i = 0; i < f->count; i++) {
        free(f->name[i]);
        free(f->data[i]);
    }
}

static size_t find(const files *f, const char *name) {
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(f->name[i], name) == 0) return i;
    fail_msg("no file %s", name);
    return 0;
}

static onescope_replay *replay_of(const files *f, const char *name) {
    size_t i = find(f, name);
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_parse(f->data[i], f->size[i], name, NULL, &r, &err), 0);
    return r;
}

static files generated; /* made once for the suite */

static int setup_suite(void **state) {
    (void)state;
    generate(&generated);
    return 0;
}

static int teardown_suite(void **state) {
    (void)state;
    free_files(&generated);
    return 0;
}

/* ---- determinism ---- */

static void test_deterministic(void **state) {
    (void)state;
    files again;
    generate(&again);
    for (size_t i = 0; i < again.count; i++) {
        assert_string_equal(again.name[i], generated.name[i]);
        assert_string_equal(again.name[i], testdata_file_name(i));
        assert_int_equal(again.size[i], generated.size[i]);
        assert_memory_equal(again.data[i], generated.data[i], again.size[i]);
    }
    free_files(&again);
    /* That these are the committed files is scripts/test.sh's "testdata" stage (it names
     * every file that differs and says how to regenerate). */
}

static int stop_at_second(void *user, const char *name, const void *data, size_t size) {
    (void)name;
    (void)data;
    (void)size;
    return ++*(int *)user == 2;
}

static void test_stop_callback(void **state) {
    (void)state;
    onescope_error err;
    int calls = 0;
    assert_int_equal(testdata_generate(NULL, stop_at_second, &calls, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(calls, 2);
    assert_string_equal(err.input, testdata_file_name(1));
    assert_null(testdata_file_name(testdata_file_count()));
}

/* ---- the replays ---- */

static void test_every_operation(void **state) {
    (void)state;
    onescope_replay *r = replay_of(&generated, "test-10000.ostm");
    assert_int_equal(onescope_replay_setup(r).dimensions, 3);
    assert_int_equal(onescope_replay_setup(r).body_count, 24);
    assert_int_equal(onescope_replay_step_count(r), 10000);
    assert_true(onescope_replay_has_hash_rows(r));
    uint64_t counts[6];
    onescope_replay_count_ops(r, counts);
    for (int c = 1; c <= 5; c++) assert_true(counts[c] > 0);
    onescope_error err;
    assert_int_equal(onescope_replay_verify(r, NULL, NULL, "t", &err), ONESCOPE_OK);
    onescope_replay_free(r);
    r = replay_of(&generated, "test-2d-600.ostm");
    assert_int_equal(onescope_replay_setup(r).dimensions, 2);
    assert_int_equal(onescope_replay_step_count(r), 600);
    assert_true(onescope_replay_has_hash_rows(r));
    onescope_replay_free(r);
    const char *fields[2] = {"test-field-2d.ostm", "test-field-3d.ostm"};
    for (int i = 0; i < 2; i++) {
        r = replay_of(&generated, fields[i]);
        assert_int_equal(onescope_replay_setup(r).dimensions, 2 + i);
        assert_int_equal(onescope_replay_link(r).role, ONESCOPE_LINK_ROLE_FIELDS);
        assert_true(onescope_replay_has_hash_rows(r));
        onescope_replay_free(r);
    }
}

typedef struct body_track {
    uint32_t body;
    int alive[400];
    uint32_t rows;
} body_track;

static bool track(void *user, const onescope_replay_row *row) {
    body_track *t = user;
    onescope_sim_body_state b;
    assert_int_equal(onescope_sim_body(row->sim, t->body, &b), ONESCOPE_OK);
    assert_true(row->host_step < 400);
    t->alive[row->host_step] = b.alive;
    t->rows++;
    return 0;
}

static void test_link_hand_over(void **state) {
    (void)state;
    onescope_error err;
    onescope_replay *left = replay_of(&generated, "test-link-left.ostm");
    onescope_replay *right = replay_of(&generated, "test-link-right.ostm");
    assert_int_equal(onescope_replay_link(left).role, ONESCOPE_LINK_ROLE_SENDER);
    assert_int_equal(onescope_replay_link(right).role, ONESCOPE_LINK_ROLE_RECEIVER);
    assert_int_equal(onescope_replay_link(left).body, 3);
    assert_int_equal(onescope_replay_link(right).body, 3);
    assert_int_equal(onescope_replay_link(left).transfer_step, 150);
    assert_int_equal(onescope_replay_link(right).transfer_step, 150);
    assert_true(onescope_replay_step_count(left) > 150 && onescope_replay_step_count(right) > 150);
    body_track l = {3, {0}, 0}, r = {3, {0}, 0};
    assert_int_equal(onescope_replay_run(left, NULL, track, &l, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_run(right, NULL, track, &r, &err), ONESCOPE_OK);
    assert_int_equal(l.rows, onescope_replay_step_count(left) + 1);
    for (uint32_t s = 0; s <= onescope_replay_step_count(left); s++)
        assert_int_equal(l.alive[s], s < 150 ? 1 : 0);
    for (uint32_t s = 0; s <= onescope_replay_step_count(right); s++)
        assert_int_equal(r.alive[s], s < 150 ? 0 : 1);
    assert_int_equal(onescope_replay_verify(left, NULL, NULL, "l", &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_verify(right, NULL, NULL, "r", &err), ONESCOPE_OK);
    onescope_replay_free(left);
    onescope_replay_free(right);
}

static void test_live_attach_file(void **state) {
    (void)state;
    onescope_replay *r = replay_of(&generated, "test-live-attach.ostm");
    assert_int_equal(onescope_replay_flags(r), 3);
    assert_true(onescope_replay_has_start_snapshot(r));
    assert_int_equal(onescope_replay_start_step(r), 150);
    assert_int_equal(onescope_replay_step_count(r), 250);
    onescope_error err;
    assert_int_equal(onescope_replay_verify(r, NULL, NULL, "a", &err), ONESCOPE_OK);
    onescope_replay_free(r);
}

/* The ghost file's parameters (tests/test_ghost.c checks its poses against the replay). */
static void test_ghost_file(void **state) {
    (void)state;
    size_t i = find(&generated, "test-2d-ghost.ospc");
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(
        onescope_pose_cache_parse(generated.data[i], generated.size[i], "g", NULL, &c, &err),
        ONESCOPE_OK);
    assert_int_equal(c->dimensions, 2);
    assert_int_equal(c->frame_count, TESTDATA_GHOST_FRAMES);
    assert_int_equal(c->start_step, TESTDATA_GHOST_FROM);
    assert_int_equal(c->entity_count, 22); /* 16 bodies and 6 spawned by step 240 */
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, "test-2d-600.ostm");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_LABEL].data,
                        "ghost of test-2d-600.ostm, 400 mm to the right");
    onescope_pose_cache_free(c);
}

static void test_script(void **state) {
    (void)state;
    testdata_script sc = {0};
    uint8_t a[TESTDATA_MAX_SCRIPT_INPUT], b[TESTDATA_MAX_SCRIPT_INPUT];
    uint64_t seen[6] = {0};
    onescope_error err;
    for (int dims = 2; dims <= 3; dims++) {
        sc.dimensions = (uint8_t)dims;
        for (uint64_t s = 0; s < 3000; s++) {
            size_t n = testdata_script_input(&sc, s, a, sizeof a);
            assert_int_equal(testdata_script_input(&sc, s, b, sizeof b), n);
            assert_memory_equal(a, b, n);
            assert_int_equal(onescope_op_check_input((uint8_t)dims, a, n, "s", 0, &err), 0);
            onescope_op_reader rd;
            onescope_op op;
            onescope_op_reader_init(&rd, (uint8_t)dims, a, n, "s", 0);
            while (onescope_op_reader_next(&rd, &op, &err) == 1) seen[op.code]++;
        }
    }
    for (int c = 1; c <= 5; c++) assert_true(seen[c] > 0);
    sc.no_remove = true;
    sc.no_spawn = true;
    for (uint64_t s = 0; s < 3000; s++) {
        size_t n = testdata_script_input(&sc, s, a, sizeof a);
        onescope_op_reader rd;
        onescope_op op;
        onescope_op_reader_init(&rd, 3, a, n, "s", 0);
        while (onescope_op_reader_next(&rd, &op, &err) == 1)
            assert_true(op.code != ONESCOPE_OP_REMOVE && op.code != ONESCOPE_OP_SPAWN);
    }
    assert_int_equal(testdata_script_input(&sc, 0, a, 10), 0); /* too small */
    assert_int_equal(testdata_script_input(NULL, 0, a, sizeof a), 0);
    assert_int_equal(testdata_script_input(&sc, 0, NULL, sizeof a), 0);
}

/* ---- allocation failure ---- */

typedef struct gen_ctx {
    files *want; /* the files a run without failures makes */
    size_t seen;
} gen_ctx;

/* Each file a refused run still hands over is the same as the full run's. */
static int same_as_full(void *user, const char *name, const void *data, size_t size) {
    gen_ctx *g = user;
    assert_true(g->seen < g->want->count);
    assert_string_equal(name, g->want->name[g->seen]);
    assert_int_equal(size, g->want->size[g->seen]);
    assert_memory_equal(data, g->want->data[g->seen], size);
    g->seen++;
    return 0;
}

static onescope_code generate_with(const onescope_allocator *a, void *ctx) {
    gen_ctx *g = ctx;
    g->seen = 0;
    onescope_error err;
    onescope_code rc = testdata_generate(a, same_as_full, g, &err);
    if (rc == ONESCOPE_OK)
        assert_int_equal(g->seen, g->want->count);
    else
        assert_int_equal(err.code, rc);
    return rc;
}

/* Every allocation of the generator refused in turn: NOMEM, nothing leaked, and whatever
 * files came out before the failure are the right bytes. */
static void test_generate_allocation_failure(void **state) {
    (void)state;
    gen_ctx g = {&generated, 0};
    long made = test_alloc_walk(generate_with, &g);
    assert_true(made > 50);
    /* no callback: the files are made and dropped */
    onescope_error err;
    test_alloc t;
    test_alloc_init(&t, 0);
    assert_int_equal(testdata_generate(&t.allocator, NULL, NULL, &err), ONESCOPE_OK);
    assert_int_equal(t.count, made);
    assert_int_equal(t.live, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),    cmocka_unit_test(test_stop_callback),
        cmocka_unit_test(test_every_operation),  cmocka_unit_test(test_link_hand_over),
        cmocka_unit_test(test_live_attach_file), cmocka_unit_test(test_ghost_file),
        cmocka_unit_test(test_script),           cmocka_unit_test(test_generate_allocation_failure),
    };
    return cmocka_run_group_tests(tests, setup_suite, teardown_suite);
}
