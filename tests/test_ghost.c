/* Ghosts (src/ghost.c): a replay's bodies over some steps as a pose cache. Every frame equals
 * the replay's positions plus the offset, absent bodies stay absent, a replay with a start
 * snapshot counts from it, bad options are refused, allocation failure leaks nothing. The
 * committed files of testdata/ are the fixtures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"

static onescope_replay *committed_replay(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", ONESCOPE_TESTDATA, name);
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_read_file(path, NULL, &r, &err), ONESCOPE_OK);
    return r;
}

static onescope_pose_cache *committed_ghost(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", ONESCOPE_TESTDATA, name);
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &c, &err), ONESCOPE_OK);
    return c;
}

typedef struct ghost_check {
    const onescope_pose_cache *c;
    uint32_t from;
    int32_t offset[3];
    uint32_t absent;
    uint32_t present;
} ghost_check;

static bool compare_frame(void *user, const onescope_replay_row *row) {
    ghost_check *g = user;
    if (row->index < g->from || row->index >= g->from + g->c->frame_count) return false;
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
    return false;
}

/* A ghost of a replay that starts from a snapshot counts from it: row 10 is host step 160. */
static void test_ghost_of_attached_replay(void **state) {
    (void)state;
    onescope_replay *r = committed_replay("test-live-attach.ostm");
    assert_int_equal(onescope_replay_start_step(r), 150);
    onescope_error err;
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

/* testdata/test-2d-ghost.ospc: 40 frames of test-2d-600.ostm from row 200, 400 mm to the right
 * (scripts/test.sh checks the committed file is the generator's). */
static void test_ghost_file(void **state) {
    (void)state;
    onescope_pose_cache *c = committed_ghost("test-2d-ghost.ospc");
    onescope_replay *r = committed_replay("test-2d-600.ostm");
    onescope_error err;
    assert_int_equal(c->dimensions, 2);
    assert_int_equal(c->frame_count, 40);
    assert_int_equal(c->start_step, 200);
    assert_true(c->metres_per_unit == 0.001);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "mm");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, "test-2d-600.ostm");
    /* a viewer finds the replay beside the ghost */
    char path[256];
    assert_int_equal(
        onescope_pose_cache_replay_path(c, "testdata/test-2d-ghost.ospc", path, sizeof path), 1);
    assert_string_equal(path, "testdata/test-2d-600.ostm");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_MODULE_ID].data, "onescope.test-module");
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_LIBRARY_VERSION].data, ONESCOPE_VERSION_STRING);
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
    assert_true(p->position[0] == 5.0f && p->position[1] == 17.0f && p->position[2] == 1000030.0f);
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

/* ---- onescope_ghost_write: streamed, byte for byte the in-memory ghost ---- */

static void scratch(char *out, size_t room, const char *leaf) {
    snprintf(out, room, "/tmp/test_ghost-%ld-%s", (long)getpid(), leaf);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static onescope_buffer slurp(const char *path) {
    onescope_buffer b;
    onescope_error err;
    assert_int_equal(onescope_file_read(path, 0, NULL, &b, &err), ONESCOPE_OK);
    return b;
}

static void test_ghost_write_same_bytes(void **state) {
    (void)state;
    onescope_replay *r = committed_replay("test-link-right.ostm");
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 140;
    o.frames = 30;
    o.offset[0] = -7;
    o.label = "streamed";
    o.replay_name = "x/test-link-right.ostm";
    onescope_error err;
    onescope_pose_cache *c;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    onescope_buffer want;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &want, &err), ONESCOPE_OK);
    char path[256];
    scratch(path, sizeof path, "same.ospc");
    onescope_ghost_result res;
    /* a tiny writer buffer: many write(2)s, the same bytes */
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    wo.buffer_bytes = 100;
    assert_int_equal(onescope_ghost_write(r, &o, path, &wo, NULL, &res, &err), ONESCOPE_OK);
    assert_int_equal(res.entity_count, c->entity_count);
    assert_int_equal(res.frame_count, 30);
    assert_true(res.start_step == 140);
    onescope_buffer got = slurp(path);
    assert_int_equal(got.size, want.size);
    assert_memory_equal(got.data, want.data, want.size);
    onescope_buffer_free(&got);
    /* NULL writer options and result: the defaults */
    assert_int_equal(onescope_ghost_write(r, &o, path, NULL, NULL, NULL, &err), ONESCOPE_OK);
    got = slurp(path);
    assert_memory_equal(got.data, want.data, want.size);
    onescope_buffer_free(&got);
    onescope_buffer_free(&want);
    onescope_pose_cache_free(c);
    unlink(path);
    onescope_replay_free(r);
}

/* Past the segment limit: refused from the counts, naming the input and the limit, with no
 * file or partial left; with segments: consecutive valid caches holding every frame. */
static void test_ghost_write_limit_and_segments(void **state) {
    (void)state;
    onescope_replay *r = committed_replay("test-10000.ostm");
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 0;
    o.frames = 200;
    o.name = "runs/long.ostm";
    char path[256], partial[300], seg[300];
    scratch(path, sizeof path, "seg.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    wo.max_segment_bytes = 64 * 1024; /* about 35 frames of 64 bodies */
    onescope_error err;
    assert_int_equal(onescope_ghost_write(r, &o, path, &wo, NULL, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, "runs/long.ostm");
    assert_string_equal(err.field, "output size");
    assert_non_null(strstr(err.expected, "at most 65536 bytes"));
    assert_non_null(strstr(err.found, "(200 frames of "));
    assert_false(exists(path));
    assert_false(exists(partial));

    wo.segments = true;
    onescope_ghost_result res;
    assert_int_equal(onescope_ghost_write(r, &o, path, &wo, NULL, &res, &err), ONESCOPE_OK);
    assert_int_equal(res.frame_count, 200);
    uint64_t frames = 0;
    int64_t next = 0;
    onescope_pose_cache *whole;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &whole, &err), ONESCOPE_OK);
    for (int k = 0; frames < 200; k++) {
        if (k == 0)
            snprintf(seg, sizeof seg, "%s", path);
        else
            snprintf(seg, sizeof seg, "/tmp/test_ghost-%ld-seg-%04d.ospc", (long)getpid(), k);
        onescope_pose_cache *c;
        assert_int_equal(onescope_pose_cache_read_file(seg, NULL, &c, &err), ONESCOPE_OK);
        assert_true(c->start_step == next);
        for (uint32_t f = 0; f < c->frame_count; f++)
            assert_memory_equal(onescope_pose_cache_pose(c, f, 0),
                                onescope_pose_cache_pose(whole, (uint32_t)(frames + f), 0),
                                sizeof(onescope_pose) * c->entity_count);
        frames += c->frame_count;
        next += c->frame_count;
        onescope_pose_cache_free(c);
        unlink(seg);
        assert_true(k < 10);
    }
    assert_int_equal(frames, 200);
    onescope_pose_cache_free(whole);

    /* refusals of the options come first, named; nothing is created */
    o.frames = 0;
    assert_int_equal(onescope_ghost_write(r, &o, path, NULL, NULL, NULL, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "runs/long.ostm");
    assert_int_equal(onescope_ghost_write(NULL, &o, path, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ghost_write(r, &o, NULL, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    o.frames = 1;
    /* the writer's own refusals keep the output's name */
    assert_int_equal(onescope_ghost_write(r, &o, "-", NULL, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "-");
    assert_false(exists(path));
    onescope_replay_free(r);
}

/* A ghost past 256 MiB (150 000 frames of 64 bodies, 268.8 MB) is refused by both calls
 * after the counting pass and before the poses are allocated: no allocation above 1 MiB. */
typedef struct big_alloc {
    onescope_allocator a;
    size_t largest;
} big_alloc;

/* A replay from a start snapshot at host step 2^63 - 1 - k, 4 steps. */
static onescope_replay *replay_at_top(uint64_t k) {
    onescope_sim_setup setup = {2, 3, 9};
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    onescope_sim *s;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(s, snap, sizeof snap);
    onescope_sim_free(s);
    onescope_os_put_u64(snap, (uint64_t)INT64_MAX - k);
    onescope_replay *r;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_set_start_snapshot(r, snap, n, &err), ONESCOPE_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), 0);
    return r;
}

/* A ghost never writes a cache the parser refuses: its last step must fit int64_t. */
static void test_ghost_last_step(void **state) {
    (void)state;
    onescope_replay *r = replay_at_top(0);
    onescope_ghost_options o = onescope_ghost_options_default();
    o.frames = 2;
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "start step");
    assert_int_equal(onescope_ghost_write(r, &o, "ghost-top.ospc", NULL, NULL, NULL, &err),
                     ONESCOPE_E_RANGE);
    assert_int_equal(access("ghost-top.ospc", F_OK), -1);
    o.frames = 1; /* the one step 2^63 - 1 fits */
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_true(c->start_step == INT64_MAX);
    onescope_pose_cache_free(c);
    onescope_replay_free(r);
    r = replay_at_top(3); /* rows 0..3 at 2^63 - 4 .. 2^63 - 1 */
    o.frames = 4;
    assert_int_equal(onescope_ghost_write(r, &o, "ghost-top.ospc", NULL, NULL, NULL, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_read_file("ghost-top.ospc", NULL, &c, &err), ONESCOPE_OK);
    assert_true(c->start_step == INT64_MAX - 3 && c->frame_count == 4);
    onescope_pose_cache_free(c);
    remove("ghost-top.ospc");
    onescope_replay_free(r);
}

static void *big_alloc_fn(void *user, size_t size) {
    big_alloc *b = user;
    if (size > b->largest) b->largest = size;
    return malloc(size);
}

static void big_free_fn(void *user, void *p) {
    (void)user;
    free(p);
}

static void test_ghost_refused_before_allocating(void **state) {
    (void)state;
    onescope_sim_setup setup = {3, 64, 7};
    onescope_error err;
    onescope_replay *r;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    for (int i = 0; i < 150000; i++)
        assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), ONESCOPE_OK);
    big_alloc b = {{big_alloc_fn, big_free_fn, NULL}, 0};
    b.a.user = &b;
    onescope_ghost_options o = onescope_ghost_options_default();
    o.frames = 150000;
    o.name = "big.ostm";
    onescope_pose_cache *c = NULL;
    assert_int_equal(onescope_ghost_create(r, &o, &b.a, &c, &err), ONESCOPE_E_TOO_LARGE);
    assert_null(c);
    assert_string_equal(err.input, "big.ostm");
    assert_non_null(strstr(err.expected, "268435456"));
    char path[256];
    scratch(path, sizeof path, "big.ospc");
    assert_int_equal(onescope_ghost_write(r, &o, path, NULL, &b.a, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, "big.ostm");
    assert_false(exists(path));
    assert_true(b.largest < ((size_t)1 << 20));
    onescope_replay_free(r);
}

static onescope_code ghost_write_walk(const onescope_allocator *a, void *ctx) {
    const onescope_replay *r = ctx;
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 3;
    o.frames = 4;
    char path[256];
    scratch(path, sizeof path, "walk.ospc");
    onescope_error err;
    onescope_code rc = onescope_ghost_write(r, &o, path, NULL, a, NULL, &err);
    char partial[300];
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_false(exists(partial));
    unlink(path);
    return rc;
}

static void test_ghost_write_alloc_failure(void **state) {
    (void)state;
    onescope_replay *r = committed_replay("test-2d-600.ostm");
    assert_true(test_alloc_walk(ghost_write_walk, r) > 3);
    onescope_replay_free(r);
}

/* A module whose pose of entity index 1 is infinite: the ghost's error names the recording,
 * the module, the step and the entity (issue 38 item 11: it named the output file, as if the
 * output were the bad input), for the cache built in memory and for the file written. */
static bool inf_pose(void *context, const void *world, uint32_t index, onescope_pose *out) {
    bool present = onescope_module_test()->entity_pose(context, world, index, out);
    if (present && index == 1) out->position[1] = INFINITY;
    return present;
}

static void test_ghost_recording_infinite_pose(void **state) {
    (void)state;
    /* the test module's recording: 3 dimensions, 4 bodies, seed 7; five empty steps */
    uint8_t bytes[256];
    size_t n = 0;
    memcpy(bytes, "OSTM\x02\x00\x01\x00\x05\x00\x00\x00\x0d", 13);
    n = 13;
    memcpy(bytes + n,
           "onescope.test\x01"
           "1",
           15);
    n += 15;
    const uint8_t setup[] = {6, 0, 0, 0, 3, 4, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(bytes + n, setup, sizeof setup);
    n += sizeof setup;
    for (int i = 0; i < 5; i++) {
        memset(bytes + n, 0, 12);
        n += 12;
    }
    onescope_error err;
    onescope_recording *r;
    assert_int_equal(onescope_recording_parse(bytes, n, "rec.ostm", NULL, &r, &err), ONESCOPE_OK);
    onescope_module m = *onescope_module_test();
    m.entity_pose = inf_pose;
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 2;
    o.frames = 3;
    o.name = "rec.ostm";
    onescope_pose_cache *c = NULL;
    char line[512];
    assert_int_equal(onescope_ghost_recording_create(r, &m, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_null(c);
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(err.input, "rec.ostm");
    assert_non_null(strstr(line, "module onescope.test, row 2: entity "));
    assert_non_null(strstr(line, " pose position y: expected a finite number, found inf"));
    char out[512];
    scratch(out, sizeof out, "inf-ghost.ospc");
    remove(out);
    assert_int_equal(onescope_ghost_recording_write(r, &m, &o, out, NULL, NULL, NULL, &err),
                     ONESCOPE_E_RANGE);
    char line2[512];
    onescope_error_format(&err, line2, sizeof line2);
    assert_string_equal(line2, line);
    assert_int_equal(access(out, F_OK), -1); /* nothing written */
    onescope_recording_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ghost_of_attached_replay),
        cmocka_unit_test(test_ghost_file),
        cmocka_unit_test(test_ghost_absent_and_refusals),
        cmocka_unit_test(test_ghost_write_same_bytes),
        cmocka_unit_test(test_ghost_write_limit_and_segments),
        cmocka_unit_test(test_ghost_last_step),
        cmocka_unit_test(test_ghost_refused_before_allocating),
        cmocka_unit_test(test_ghost_write_alloc_failure),
        cmocka_unit_test(test_ghost_recording_infinite_pose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
