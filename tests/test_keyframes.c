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

int main(void) {
    snprintf(pa, sizeof pa, "/tmp/onescope-kf-%ld-a.ostm", (long)getpid());
    snprintf(pb, sizeof pb, "/tmp/onescope-kf-%ld-b.ostm", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_part_where_worlds_agree),
        cmocka_unit_test(other_k_or_setup_runs_the_lockstep),
        cmocka_unit_test(table_entity_missing_from_the_world),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(pa);
    unlink(pb);
    return rc;
}
