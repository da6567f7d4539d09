/* The test-data generator and ghosts: deterministic bytes (and equal to testdata/ when it is
 * there), the link pair's hand-over, every operation in test-10000, the live-attach recording,
 * ghost frames equal to the replay's positions plus the offset, absent bodies, refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

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
    assert_int_equal(onescope_testdata_generate(NULL, keep, f, &err), ONESCOPE_OK);
    assert_int_equal(f->count, onescope_testdata_file_count());
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
        assert_string_equal(again.name[i], onescope_testdata_file_name(i));
        assert_int_equal(again.size[i], generated.size[i]);
        assert_memory_equal(again.data[i], generated.data[i], again.size[i]);
    }
    free_files(&again);
    /* the committed files, when the tree has them, are these bytes */
    size_t compared = 0;
    for (size_t i = 0; i < generated.count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ONESCOPE_TESTDATA, generated.name[i]);
        onescope_buffer b;
        onescope_error err;
        if (onescope_read_file(path, 0, NULL, &b, &err) != ONESCOPE_OK) continue;
        if (b.size != generated.size[i] || memcmp(b.data, generated.data[i], b.size) != 0)
            fail_msg("%s differs from what the generator makes now", path);
        onescope_buffer_free(&b);
        compared++;
    }
    printf("compared %zu committed files\n", compared);
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
    assert_int_equal(onescope_testdata_generate(NULL, stop_at_second, &calls, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(calls, 2);
    assert_string_equal(err.input, onescope_testdata_file_name(1));
    assert_null(onescope_testdata_file_name(onescope_testdata_file_count()));
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

/* ---- ghosts ---- */

typedef struct ghost_check {
    const onescope_pose_cache *c;
    uint32_t from;
    int32_t offset[3];
    uint32_t absent;
    uint32_t present;
} ghost_check;

static bool compare_frame(void *user, const onescope_replay_row *row) {
    ghost_check *g = user;
    if (row->index < g->from || row->index >= g->from + g->c->frame_count) return 0;
    uint32_t frame = row->index - g->from;
    assert_int_equal((uint64_t)g->c->start_step + frame, row->host_step);
    uint32_t held = onescope_sim_body_count(row->sim);
    assert_true(held <= g->c->entity_count);
    for (uint32_t i = 0; i < g->c->entity_count; i++) {
        const onescope_pose *p = onescope_pose_cache_pose(g->c, frame, i);
        onescope_sim_body_state b;
        if (i >= held || (onescope_sim_body(row->sim, i, &b), b.alive == 0)) {
            assert_false(onescope_pose_is_present(p));
            g->absent++;
            continue;
        }
        assert_true(onescope_pose_is_present(p));
        for (int a = 0; a < 3; a++)
            assert_true(p->position[a] == (float)(b.position[a] + g->offset[a]));
        assert_true(p->rotation[0] == 0.0f && p->rotation[3] == 1.0f);
        g->present++;
    }
    return 0;
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
    /* a ghost of it counts from the start snapshot: row 10 is host step 160 */
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 10;
    o.frames = 5;
    onescope_pose_cache *c;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->start_step, 160);
    ghost_check g = {c, 10, {0, 0, 0}, 0, 0};
    assert_int_equal(onescope_replay_run(r, NULL, compare_frame, &g, &err), ONESCOPE_OK);
    assert_int_equal(g.present + g.absent, 5 * c->entity_count);
    onescope_pose_cache_free(c);
    onescope_replay_free(r);
}

static void test_ghost_file(void **state) {
    (void)state;
    size_t i = find(&generated, "test-2d-ghost.ospc");
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(generated.data[i], generated.size[i], "g", NULL,
                                               &c, &err), ONESCOPE_OK);
    onescope_replay *r = replay_of(&generated, "test-2d-600.ostm");
    assert_int_equal(c->dimensions, 2);
    assert_int_equal(c->frame_count, 40);
    assert_int_equal(c->start_step, 200);
    assert_true(c->metres_per_unit == 0.001);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "mm");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, "test-2d-600.ostm");
    /* a viewer finds the replay beside the ghost */
    char path[256];
    assert_int_equal(onescope_pose_cache_replay_path(c, "testdata/test-2d-ghost.ospc", path,
                                                     sizeof path), 1);
    assert_string_equal(path, "testdata/test-2d-600.ostm");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_MODULE_ID].data, "onescope.test-module");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_LIBRARY_VERSION].data,
                        ONESCOPE_VERSION_STRING);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_SCENE].data,
                        "test-module 2D, 16 bodies, seed 600");
    for (uint32_t e = 0; e < c->entity_count; e++) {
        char name[32];
        snprintf(name, sizeof name, "body %u", e);
        assert_int_equal(c->entities[e].id, e + 1);
        assert_int_equal(c->entities[e].shape, ONESCOPE_SHAPE_SPHERE);
        assert_true(c->entities[e].size[0] == 100.0f);
        assert_string_equal(c->entities[e].name.data, name);
    }
    ghost_check g = {c, 200, {400, 0, 0}, 0, 0};
    assert_int_equal(onescope_replay_run(r, NULL, compare_frame, &g, &err), ONESCOPE_OK);
    assert_int_equal(g.present + g.absent, 40 * c->entity_count);
    assert_true(g.present > 0);
    onescope_replay_free(r);
    onescope_pose_cache_free(c);
}

/* A replay whose bodies leave and arrive inside the ghost's frames. */
static void test_ghost_absent_and_refusals(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_setup setup = {3, 3, 8};
    onescope_replay *r;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    for (int s = 0; s < 20; s++) {
        onescope_op op = {0, 0, {0, 0, 0}};
        size_t n = 0;
        if (s == 4) op = (onescope_op){ONESCOPE_OP_REMOVE, 1, {0, 0, 0}}, n = 1;
        if (s == 6) op = (onescope_op){ONESCOPE_OP_SPAWN, 0, {10, 20, 30}}, n = 1;
        assert_int_equal(onescope_replay_append_ops(r, &op, n, &err), ONESCOPE_OK);
    }
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 2;
    o.frames = 10; /* rows 2..11 */
    o.offset[0] = -5;
    o.offset[1] = 7;
    o.offset[2] = 1000000;
    o.replay_name = "some/dir/run.ostm";
    onescope_pose_cache *c;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->entity_count, 4);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, "run.ostm");
    /* body 1 is removed by step 4: present in rows 2..4, absent from row 5 (frame 3) */
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(c, 2, 1)));
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 3, 1)));
    /* body 3 is spawned by step 6: absent until row 6, present from row 7 (frame 5) */
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 4, 3)));
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(c, 5, 3)));
    /* spawned at (10, 20, 30) at rest; gravity 10 moved it to y 10 within that step */
    const onescope_pose *p = onescope_pose_cache_pose(c, 5, 3);
    assert_true(p->position[0] == 5.0f && p->position[1] == 17.0f &&
                p->position[2] == 1000030.0f);
    ghost_check g = {c, 2, {-5, 7, 1000000}, 0, 0};
    assert_int_equal(onescope_replay_run(r, NULL, compare_frame, &g, &err), ONESCOPE_OK);
    assert_int_equal(g.present + g.absent, 40);
    onescope_pose_cache_free(c);

    /* refusals: past the end, no frames, offsets */
    o = onescope_ghost_options_default();
    o.from = 15;
    o.frames = 6; /* rows 15..20: the last row is 20, fine */
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    o.frames = 7;
    c = (onescope_pose_cache *)&o;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_null(c);
    o.from = UINT32_MAX;
    o.frames = 2;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    o.from = 0;
    o.frames = 0;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "ghost"); /* no name given */
    o.name = "runs/a.ostm";
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "runs/a.ostm");
    o.name = NULL;
    o.frames = 1;
    o.offset[1] = -1000001;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    onescope_replay_free(r);
    setup.dimensions = 2;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    o = onescope_ghost_options_default();
    o.offset[2] = 1;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    o.offset[2] = 0;
    o.replay_name = "..";
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].length, 0);
    onescope_pose_cache_free(c);
    /* a backslash separates directories too; a base name past 1024 bytes is not kept */
    o.replay_name = "C:\\runs\\b.ostm";
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, "b.ostm");
    onescope_pose_cache_free(c);
    char long_name[ONESCOPE_OSPC_MAX_TEXT + 2];
    memset(long_name, 'r', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    o.replay_name = long_name;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].length, 0);
    onescope_pose_cache_free(c);
    /* NULL options: the defaults (one frame, row 0); NULL replay or out: ARGUMENT */
    assert_int_equal(onescope_ghost_create(r, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->frame_count, 1);
    assert_true(c->start_step == 0);
    onescope_pose_cache_free(c);
    assert_int_equal(onescope_ghost_create(NULL, &o, NULL, &c, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ghost_create(r, &o, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    o.replay_name = "..";

    /* allocation failure: every failure frees everything */
    long n;
    for (n = 1;; n++) {
        test_alloc t;
        test_alloc_init(&t, n);
        onescope_code rc = onescope_ghost_create(r, &o, &t.allocator, &c, &err);
        if (rc == ONESCOPE_OK) onescope_pose_cache_free(c);
        assert_int_equal(t.live, 0);
        if (rc == ONESCOPE_OK) break;
        assert_int_equal(rc, ONESCOPE_E_NOMEM);
    }
    assert_true(n > 3);
    onescope_replay_free(r);
}

static void test_script(void **state) {
    (void)state;
    onescope_testdata_script sc = onescope_testdata_script_default();
    uint8_t a[ONESCOPE_TESTDATA_MAX_SCRIPT_INPUT], b[ONESCOPE_TESTDATA_MAX_SCRIPT_INPUT];
    uint64_t seen[6] = {0};
    onescope_error err;
    for (int dims = 2; dims <= 3; dims++) {
        sc.dimensions = (uint8_t)dims;
        for (uint64_t s = 0; s < 3000; s++) {
            size_t n = onescope_testdata_script_input(&sc, s, a, sizeof a);
            assert_int_equal(onescope_testdata_script_input(&sc, s, b, sizeof b), n);
            assert_memory_equal(a, b, n);
            assert_int_equal(onescope_op_check_input((uint8_t)dims, a, n, "s", 0, &err), 0);
            onescope_op_reader rd;
            onescope_op op;
            onescope_op_reader_init(&rd, (uint8_t)dims, a, n, "s", 0);
            while (onescope_op_reader_next(&rd, &op, &err) == 1) seen[op.code]++;
        }
    }
    for (int c = 1; c <= 5; c++) assert_true(seen[c] > 0);
    sc.allow_remove = 0;
    sc.allow_spawn = 0;
    for (uint64_t s = 0; s < 3000; s++) {
        size_t n = onescope_testdata_script_input(&sc, s, a, sizeof a);
        onescope_op_reader rd;
        onescope_op op;
        onescope_op_reader_init(&rd, 3, a, n, "s", 0);
        while (onescope_op_reader_next(&rd, &op, &err) == 1)
            assert_true(op.code != ONESCOPE_OP_REMOVE && op.code != ONESCOPE_OP_SPAWN);
    }
    assert_int_equal(onescope_testdata_script_input(&sc, 0, a, 10), 0); /* too small */
    assert_int_equal(onescope_testdata_script_input(NULL, 0, a, sizeof a), 0);
    assert_int_equal(onescope_testdata_script_input(&sc, 0, NULL, sizeof a), 0);
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
    onescope_code rc = onescope_testdata_generate(a, same_as_full, g, &err);
    if (rc == ONESCOPE_OK) assert_int_equal(g->seen, g->want->count);
    else assert_int_equal(err.code, rc);
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
    assert_int_equal(onescope_testdata_generate(&t.allocator, NULL, NULL, &err), ONESCOPE_OK);
    assert_int_equal(t.count, made);
    assert_int_equal(t.live, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_stop_callback),
        cmocka_unit_test(test_every_operation),
        cmocka_unit_test(test_link_hand_over),
        cmocka_unit_test(test_live_attach_file),
        cmocka_unit_test(test_ghost_file),
        cmocka_unit_test(test_ghost_absent_and_refusals),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_generate_allocation_failure),
    };
    return cmocka_run_group_tests(tests, setup_suite, teardown_suite);
}
