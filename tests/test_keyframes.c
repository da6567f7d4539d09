/* Keyframes in module recordings (docs/recording.md, "Keyframes"), the paths where the fast way
 * gives way to the slow one: a diff whose recorded rows part where the rerun worlds agree, a
 * module that refuses the keyframes' snapshots, files of different K or different setups; and
 * an explanation whose keyframe table names an entity the world does not hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"

static const uint8_t setup[6] = {3, 5, 9, 0, 0, 0};

/* An impulse on body 2 along x of `kick` at step 40; no operation otherwise. */
static size_t input_of(uint32_t i, int32_t kick, uint8_t out[14]) {
    memset(out, 0, 14);
    if (i != 40) return 0;
    out[0] = 1, out[1] = 2;
    for (int b = 0; b < 4; b++) out[2 + b] = (uint8_t)((uint32_t)kick >> (8 * b));
    return 14;
}

/* 60 steps of the test module, keyframes every `every` steps. Engine mode steps its own world
 * with the inputs of kick `ran` but writes those of `said`. */
static void record(const char *p, bool engine, int32_t said, int32_t ran, uint32_t every,
                   const uint8_t *s) {
    onescope_recording_def def = onescope_recording_def_default();
    def.module = onescope_module_test();
    def.setup = s;
    def.setup_size = 6;
    def.keyframe_every = every;
    onescope_sim *sim = NULL;
    onescope_error err;
    if (engine) {
        onescope_sim_def sd = onescope_sim_def_default();
        sd.setup = (onescope_sim_setup){s[0], s[1], (uint16_t)(s[2] | s[3] << 8)};
        assert_int_equal(onescope_sim_create(&sd, NULL, &sim, &err), ONESCOPE_OK);
        def.engine_mode = true;
        def.start_hash = onescope_sim_hash(sim);
        def.start_world = sim;
    }
    onescope_recording_writer *w;
    assert_int_equal(onescope_recording_writer_open(p, &def, NULL, NULL, &w, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < 60; i++) {
        uint8_t in[14], run[14];
        size_t n = input_of(i, said, in);
        if (engine) {
            size_t m = input_of(i, ran, run);
            assert_int_equal(onescope_sim_step(sim, run, m, &err), ONESCOPE_OK);
            uint64_t h = onescope_sim_hash(sim);
            assert_int_equal(onescope_recording_writer_append_world(w, in, n, &h, sim, &err),
                             ONESCOPE_OK);
        } else {
            assert_int_equal(onescope_recording_writer_append(w, in, n, NULL, &err), ONESCOPE_OK);
        }
    }
    assert_int_equal(onescope_recording_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_recording_writer_free(w);
    onescope_sim_free(sim);
}

static onescope_recording *read_back(const char *p) {
    onescope_recording *r;
    onescope_error err;
    assert_int_equal(onescope_recording_read_file(p, NULL, &r, &err), ONESCOPE_OK);
    return r;
}

static onescope_code refuse(void *c, const void *setup_, size_t setup_size, const void *snap,
                            size_t snap_size, const onescope_allocator *a, void **world,
                            onescope_error *e) {
    (void)c, (void)setup_, (void)setup_size, (void)snap, (void)snap_size, (void)a, (void)world;
    return onescope_module_fail(e, ONESCOPE_E_VERSION, 0, "snapshot", "this layout", "another");
}

static char pa[64], pb[64];

/* The engine's rows say the impulse was 101 where its file says 100: the rows of the two files
 * part at row 41, the worlds rerun from row 40's keyframe agree there, so the diff says the
 * recorded rows differ where the worlds agree, having run one step. */
static void rows_part_where_worlds_agree(void **state) {
    (void)state;
    record(pa, true, 100, 101, 8, setup);
    record(pb, false, 100, 100, 8, setup);
    onescope_recording *a = read_back(pa), *b = read_back(pb);
    onescope_recording_diff_result d;
    onescope_error err;
    assert_int_equal(
        onescope_recording_diff(a, b, onescope_module_test(), NULL, &d, "a", "b", &err),
        ONESCOPE_OK);
    /* from the keyframe at row 40 (it proves itself in both files), on to the end: the worlds
     * could still part later, and a speed-up never changes the verdict */
    assert_true(d.from_keyframes);
    assert_int_equal(d.start_row, 40);
    assert_int_equal(d.steps_run, 20);
    assert_false(d.worlds_differ);
    assert_true(d.rows_differ && d.different);
    assert_int_equal(d.rows_row, 41);
    assert_int_equal(d.rows_compared, 61);
    /* a module that refuses the snapshots: from row 0, to the end */
    onescope_module t = *onescope_module_test();
    t.restore = refuse;
    assert_int_equal(onescope_recording_diff(a, b, &t, NULL, &d, "a", "b", &err), ONESCOPE_OK);
    assert_false(d.from_keyframes);
    assert_true(d.restore_failed);
    assert_int_equal(d.start_row, 0);
    assert_int_equal(d.steps_run, 60);
    assert_true(d.rows_differ);
    assert_int_equal(d.rows_row, 41);
    onescope_recording_free(a);
    onescope_recording_free(b);
}

/* Another K, or another setup: the whole lockstep, as without keyframes. */
static void other_k_or_setup_runs_the_lockstep(void **state) {
    (void)state;
    record(pa, false, 100, 100, 8, setup);
    record(pb, false, 101, 101, 10, setup);
    onescope_recording *a = read_back(pa), *b = read_back(pb);
    onescope_recording_diff_result d;
    onescope_error err;
    const onescope_module *m = onescope_module_test();
    assert_int_equal(onescope_recording_diff(a, b, m, NULL, &d, "a", "b", &err), ONESCOPE_OK);
    assert_false(d.from_keyframes);
    assert_true(d.worlds_differ);
    assert_int_equal(d.row, 41);
    assert_true(d.steps_run > 41); /* the lockstep to row 41, then the explanation again */
    onescope_recording_free(b);
    const uint8_t other[6] = {3, 5, 10, 0, 0, 0};
    record(pb, false, 100, 100, 8, other);
    b = read_back(pb);
    assert_int_equal(onescope_recording_diff(a, b, m, NULL, &d, "a", "b", &err), ONESCOPE_OK);
    assert_false(d.from_keyframes);
    assert_true(d.setup_differs && d.different);
    onescope_recording_free(a);
    onescope_recording_free(b);
}

/* A keyframe table whose first id the world does not hold (the file edited, or written by a
 * build that numbered its entities otherwise): its values are listed as not in the world. */
static void table_entity_missing_from_the_world(void **state) {
    (void)state;
    record(pa, true, 100, 101, 8, setup);
    onescope_buffer bytes;
    onescope_error err;
    assert_int_equal(onescope_file_read(pa, 0, NULL, &bytes, &err), ONESCOPE_OK);
    onescope_recording *r = read_back(pa);
    onescope_keyframe k;
    assert_int_equal(onescope_recording_keyframe(r, 5, &k), ONESCOPE_OK); /* row 48 */
    /* the setup starts at 14 + 13 ("onescope.test") + 1 ("1") + 4: so the file's first byte */
    const uint8_t *base = onescope_recording_setup(r, NULL) - 32;
    size_t at = (size_t)(k.ids - base);
    onescope_recording_free(r);
    uint8_t *p = bytes.data;
    assert_int_equal(onescope_os_get_u64(p + at), 0); /* the first body's id */
    onescope_os_put_u64(p + at, 999);
    assert_int_equal(onescope_recording_parse(bytes.data, bytes.size, "kf", NULL, &r, &err),
                     ONESCOPE_OK);
    onescope_recording_explanation *x;
    assert_int_equal(
        onescope_recording_explain(r, onescope_module_test(), 41, 64, NULL, &x, "kf", &err),
        ONESCOPE_OK);
    assert_true(x->has_table);
    assert_int_equal(x->table_row, 48);
    /* one difference each: the table's entity 999 the world lacks, the world's 0 the table
     * lacks (an entity one side lacks counts once, whatever its value count) */
    uint32_t missing = 0, extra = 0;
    for (uint32_t i = 0; i < x->values_listed; i++) {
        if (x->values[i].id == 999) {
            assert_false(x->values[i].found);
            assert_true(x->values[i].in_file);
            assert_true(x->values[i].found_value == 0.0);
            missing++;
        }
        if (x->values[i].id == 0) {
            assert_true(x->values[i].found);
            assert_false(x->values[i].in_file);
            assert_int_equal(x->values[i].value, UINT32_MAX);
            extra++;
        }
    }
    assert_int_equal(missing, 1);
    assert_int_equal(extra, 1);
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
    onescope_buffer_free(&bytes);
}

/* ---- keyframes longer than the streamed verify's read buffer (1 MiB) ----
 * A module of many one-value entities: 70000 of them make a keyframe of 1.4 MB (a 280 KB
 * snapshot, a 1.1 MB table). Setup: u32 entity count. Each step adds the step to every value. */
typedef struct wide {
    uint32_t n;
    uint64_t step;
    float *v;
} wide;

static onescope_code wide_create(void *c, const void *s, size_t size, const onescope_allocator *a,
                                 void **out, onescope_error *e) {
    (void)c, (void)a;
    if (size != 4) return onescope_module_fail(e, ONESCOPE_E_LENGTH, 0, "setup", "4 bytes", "");
    wide *w = calloc(1, sizeof *w);
    memcpy(&w->n, s, 4);
    w->v = calloc(w->n, sizeof *w->v);
    for (uint32_t i = 0; i < w->n; i++) w->v[i] = (float)i * 0.5f;
    *out = w;
    return ONESCOPE_OK;
}

static void wide_free(void *c, void *world) {
    (void)c;
    wide *w = world;
    free(w->v);
    free(w);
}

static onescope_code wide_step(void *c, void *world, const void *in, size_t size,
                               onescope_error *e) {
    (void)c, (void)in, (void)size, (void)e;
    wide *w = world;
    w->step++;
    for (uint32_t i = 0; i < w->n; i++) w->v[i] += (float)w->step;
    return ONESCOPE_OK;
}

static uint64_t wide_hash(void *c, const void *world) {
    (void)c;
    const wide *w = world;
    uint64_t h = 1469598103934665603ull ^ w->step;
    const uint8_t *p = (const uint8_t *)w->v;
    for (size_t i = 0; i < 4 * (size_t)w->n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static onescope_code wide_snapshot(void *c, const void *world, onescope_module_sink *out,
                                   onescope_error *e) {
    (void)c, (void)e;
    const wide *w = world;
    onescope_code rc = onescope_module_sink_append(out, &w->step, 8);
    return rc != ONESCOPE_OK ? rc : onescope_module_sink_append(out, w->v, 4 * (size_t)w->n);
}

static onescope_code wide_restore(void *c, const void *s, size_t size, const void *snap,
                                  size_t snap_size, const onescope_allocator *a, void **out,
                                  onescope_error *e) {
    OS_TRY(wide_create(c, s, size, a, out, e));
    wide *w = *out;
    if (snap_size != 8 + 4 * (size_t)w->n) {
        wide_free(c, w);
        *out = NULL;
        return onescope_module_fail(e, ONESCOPE_E_LENGTH, 0, "snapshot", "one world", "");
    }
    memcpy(&w->step, snap, 8);
    memcpy(w->v, (const uint8_t *)snap + 8, 4 * (size_t)w->n);
    return ONESCOPE_OK;
}

static uint32_t wide_count(void *c, const void *world) {
    (void)c;
    return ((const wide *)world)->n;
}

static uint64_t wide_id(void *c, const void *world, uint32_t i) {
    (void)c, (void)world;
    return (uint64_t)i + 1;
}

static bool wide_pose(void *c, const void *world, uint32_t i, onescope_pose *out) {
    (void)c;
    memset(out, 0, sizeof *out);
    out->position[0] = ((const wide *)world)->v[i];
    out->rotation[3] = 1.0f;
    return true;
}

static void wide_values(void *c, const void *world, uint32_t i, double *out) {
    (void)c;
    out[0] = ((const wide *)world)->v[i];
}

static const onescope_value_info wide_value = {"v", "", ONESCOPE_VALUE_F32, 0};
static const char *const wide_groups[1] = {"state"};

static onescope_module wide_module(void) {
    onescope_module m;
    memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    m.abi = ONESCOPE_MODULE_ABI;
    m.id = "test.wide";
    m.version = "1";
    m.create = wide_create;
    m.free = wide_free;
    m.step = wide_step;
    m.hash = wide_hash;
    m.snapshot = wide_snapshot;
    m.restore = wide_restore;
    m.entity_count = wide_count;
    m.entity_id = wide_id;
    m.entity_pose = wide_pose;
    m.value_count = 1;
    m.values = &wide_value;
    m.group_count = 1;
    m.group_names = wide_groups;
    m.entity_values = wide_values;
    return m;
}

/* Item 21's class: a streamed verify whose keyframes do not fit in its read buffer reads each
 * whole (and compares its table), as the whole-file verify does. */
static void keyframe_longer_than_the_read_buffer(void **state) {
    (void)state;
    onescope_module m = wide_module();
    uint32_t n = 70000;
    uint8_t s[4];
    memcpy(s, &n, 4);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = &m;
    def.setup = s;
    def.setup_size = 4;
    def.keyframe_every = 2;
    onescope_recording_writer *w;
    onescope_error err;
    unlink(pa);
    assert_int_equal(onescope_recording_writer_open(pa, &def, NULL, NULL, &w, &err), ONESCOPE_OK);
    for (int i = 0; i < 5; i++)
        assert_int_equal(onescope_recording_writer_append(w, NULL, 0, NULL, &err), ONESCOPE_OK);
    assert_int_equal(onescope_recording_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_recording_writer_free(w);
    onescope_recording *r = read_back(pa);
    onescope_keyframe k;
    assert_int_equal(onescope_recording_keyframe(r, 0, &k), ONESCOPE_OK);
    assert_true(12 + k.snapshot_size + 16 * (size_t)k.entity_count > ((size_t)1 << 20));
    onescope_verify_result v, vw;
    onescope_error e2;
    assert_int_equal(onescope_recording_verify(r, &m, NULL, &vw, pa, &e2), ONESCOPE_OK);
    onescope_recording_free(r);
    onescope_code rc = onescope_recording_verify_file(pa, &m, NULL, &v, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_PASS);
    assert_int_equal(v.keyframes_checked, 2);
    assert_int_equal(vw.keyframes_checked, 2);
    unlink(pa);
}

/* A lossy variant of the wide module, without named values: its snapshot keeps the step only
 * (a restored world starts its values over) and its hash covers the step only, so a keyframe's
 * hash row and its table (ids alone, without values) agree with a world restored from it, and
 * only the entity row (presence and pose) tells that world from the recorded one. */
static onescope_code lossy_snapshot(void *c, const void *world, onescope_module_sink *out,
                                    onescope_error *e) {
    (void)c, (void)e;
    return onescope_module_sink_append(out, &((const wide *)world)->step, 8);
}

static onescope_code lossy_restore(void *c, const void *s, size_t size, const void *snap,
                                   size_t snap_size, const onescope_allocator *a, void **out,
                                   onescope_error *e) {
    OS_TRY(wide_create(c, s, size, a, out, e));
    if (snap_size != 8) {
        wide_free(c, *out);
        *out = NULL;
        return onescope_module_fail(e, ONESCOPE_E_LENGTH, 0, "snapshot", "8 bytes", "");
    }
    memcpy(&((wide *)*out)->step, snap, 8);
    return ONESCOPE_OK;
}

static uint64_t lossy_hash(void *c, const void *world) {
    (void)c;
    return ((const wide *)world)->step;
}

/* Item 21's keyframe proof: the proof reads the entity row too. Explaining row 6 of such a
 * recording may not start from row 4's keyframe: its hash row and table agree with the
 * restored world, its entity row does not. And verify compares a table of ids alone. */
static void keyframe_disproved_by_its_entity_row(void **state) {
    (void)state;
    onescope_module m = wide_module();
    m.snapshot = lossy_snapshot;
    m.restore = lossy_restore;
    m.hash = lossy_hash;
    m.value_count = 0, m.values = NULL, m.entity_values = NULL;
    m.group_count = 0, m.group_names = NULL;
    uint32_t n = 4;
    uint8_t s[4];
    memcpy(s, &n, 4);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = &m;
    def.setup = s;
    def.setup_size = 4;
    def.keyframe_every = 4;
    def.entity_rows = true;
    onescope_recording_writer *w;
    onescope_error err;
    unlink(pa);
    assert_int_equal(onescope_recording_writer_open(pa, &def, NULL, NULL, &w, &err), ONESCOPE_OK);
    for (int i = 0; i < 8; i++)
        assert_int_equal(onescope_recording_writer_append(w, NULL, 0, NULL, &err), ONESCOPE_OK);
    assert_int_equal(onescope_recording_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_recording_writer_free(w);
    onescope_recording *r = read_back(pa);
    /* a table of ids alone is compared as such (it asked the module for values it has not) */
    onescope_verify_result v;
    assert_int_equal(onescope_recording_verify(r, &m, NULL, &v, pa, &err), ONESCOPE_OK);
    assert_int_equal(v.keyframes_checked, 2);
    assert_int_equal(onescope_recording_verify_file(pa, &m, NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(v.keyframes_checked, 2);
    onescope_recording_explanation *x;
    if (onescope_recording_explain(r, &m, 6, 4, NULL, &x, "lossy", &err) != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_SNAPSHOT_INCOMPLETE);
    assert_int_equal(x->keyframe_row, 4);
    assert_false(x->keyframe_hashes_differ);
    assert_true(x->keyframe_has_entity);
    assert_false(x->from_keyframe);
    assert_int_equal(x->start_row, 0);
    assert_int_equal(x->differing, 0); /* from row 0, row 6 is the recorded world */
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
    unlink(pa);
}

/* Records the lossy module with named values (its table holds them) for 8 steps, keyframes
 * every 4; with `input_at`, step input_at's input is one byte (the module ignores it). */
static void record_lossy(const char *p, const onescope_module *m, int input_at) {
    uint32_t n = 4;
    uint8_t s[4];
    memcpy(s, &n, 4);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = m;
    def.setup = s;
    def.setup_size = 4;
    def.keyframe_every = 4;
    onescope_recording_writer *w;
    onescope_error err;
    unlink(p);
    assert_int_equal(onescope_recording_writer_open(p, &def, NULL, NULL, &w, &err), ONESCOPE_OK);
    uint8_t one = 1;
    for (int i = 0; i < 8; i++)
        assert_int_equal(
            onescope_recording_writer_append(w, &one, i == input_at ? 1 : 0, NULL, &err),
            ONESCOPE_OK);
    assert_int_equal(onescope_recording_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_recording_writer_free(w);
}

/* Item 21's keyframe proof in diff: two recordings whose inputs part at step 5 may start at
 * row 4's keyframes only when those prove themselves. Their hash rows agree with the restored
 * worlds, their tables do not (the snapshot starts the values over): not used. */
static void diff_keyframe_disproved_by_its_table(void **state) {
    (void)state;
    onescope_module m = wide_module();
    m.snapshot = lossy_snapshot;
    m.restore = lossy_restore;
    m.hash = lossy_hash;
    record_lossy(pa, &m, -1);
    record_lossy(pb, &m, 5);
    onescope_recording *a = read_back(pa), *b = read_back(pb);
    onescope_recording_diff_result d;
    onescope_error err;
    assert_int_equal(onescope_recording_diff(a, b, &m, NULL, &d, pa, pb, &err), ONESCOPE_OK);
    assert_true(d.keyframe_disproved);
    assert_false(d.from_keyframes);
    assert_int_equal(d.start_row, 0);
    assert_false(d.worlds_differ); /* the module ignores the input */
    assert_false(d.different);
    onescope_recording_free(a);
    onescope_recording_free(b);
    unlink(pa);
    unlink(pb);
}

int main(void) {
    snprintf(pa, sizeof pa, "/tmp/onescope-kf-%ld-a.ostm", (long)getpid());
    snprintf(pb, sizeof pb, "/tmp/onescope-kf-%ld-b.ostm", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_part_where_worlds_agree),
        cmocka_unit_test(other_k_or_setup_runs_the_lockstep),
        cmocka_unit_test(table_entity_missing_from_the_world),
        cmocka_unit_test(keyframe_longer_than_the_read_buffer),
        cmocka_unit_test(keyframe_disproved_by_its_entity_row),
        cmocka_unit_test(diff_keyframe_disproved_by_its_table),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(pa);
    unlink(pb);
    return rc;
}
