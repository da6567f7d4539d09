/* What the tools say about a subtly wrong module (issue 38, items 1-6): a new user's agents
 * module (agents_module.c) with one fault switched on at a time, recorded, then verified,
 * explained, diffed and checked. Each test names the verdict a trusting tool got wrong: a
 * keyframe restored without proof, a hash that misses a value, a refusal taken for a hash
 * mismatch, a diff whose speed-up changed its verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents_module.h"
#include "test_util.h"

static char dir[64];
static uint8_t setup[8];

static char *line_of(const onescope_error *e) {
    static char line[1024];
    onescope_error_format(e, line, sizeof line);
    return line;
}

static void path_of(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

/* A recording of `steps` steps made by a module with faults f, keyframes every `every` steps
 * (0: none), entity rows always. feed_at: a step whose input feeds agent 3 (energy only)
 * instead of the standard one (-1: none); push_at the same with a push (velocity). */
typedef struct plan {
    uint32_t steps, every;
    int64_t feed_at, push_at;
} plan;

static plan plan_of(uint32_t steps, uint32_t every) {
    return (plan){steps, every, -1, -1};
}

static size_t input_at(const plan *p, uint32_t i, uint8_t out[8]) {
    if ((int64_t)i == p->feed_at || (int64_t)i == p->push_at) {
        return agents_push(3 | ((int64_t)i == p->feed_at ? 0x80000000u : 0), 2.0f, out);
    }
    return agents_input(i, out);
}

static void record(const char *path, agents_faults f, const plan *p) {
    onescope_module m = agents_module(&f);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = &m;
    def.setup = setup;
    def.setup_size = sizeof setup;
    def.entity_rows = true;
    def.keyframe_every = p->every;
    onescope_recording_writer *w;
    onescope_error err;
    unlink(path);
    if (onescope_recording_writer_open(path, &def, NULL, NULL, &w, &err) != ONESCOPE_OK)
        fail_msg("%s", line_of(&err));
    for (uint32_t i = 0; i < p->steps; i++) {
        uint8_t in[8];
        size_t n = input_at(p, i, in);
        if (onescope_recording_writer_append(w, in, n, NULL, &err) != ONESCOPE_OK)
            fail_msg("%s", line_of(&err));
    }
    assert_int_equal(onescope_recording_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_recording_writer_free(w);
}

static onescope_recording *read_back(const char *path) {
    onescope_recording *r;
    onescope_error err;
    if (onescope_recording_read_file(path, NULL, &r, &err) != ONESCOPE_OK)
        fail_msg("%s", line_of(&err));
    return r;
}

/* Both verify paths (the file streamed, the recording parsed) agree on rc and result. */
static onescope_code verify_both(const char *path, const onescope_module *m,
                                 onescope_verify_result *v, onescope_error *err) {
    onescope_verify_result w;
    onescope_error e2;
    onescope_code rc = onescope_recording_verify_file(path, m, NULL, v, err);
    onescope_recording *r = read_back(path);
    assert_int_equal(onescope_recording_verify(r, m, NULL, &w, path, &e2), rc);
    onescope_recording_free(r);
    assert_int_equal(w.verdict, v->verdict);
    assert_int_equal(w.first_row, v->first_row);
    assert_int_equal(w.matched, v->matched);
    assert_int_equal(w.table_entity, v->table_entity);
    assert_int_equal(w.table_value, v->table_value);
    assert_int_equal(w.keyframes_checked, v->keyframes_checked);
    if (rc != ONESCOPE_OK) { /* line_of's buffer is one: keep the first line apart */
        char first[1024];
        snprintf(first, sizeof first, "%s", line_of(err));
        assert_string_equal(first, line_of(&e2));
    }
    return rc;
}

/* A world of m at row `steps` of the standard run (agents_input). */
static onescope_world *standard_run(const onescope_module *m, uint32_t steps) {
    onescope_world *w;
    onescope_error err;
    assert_int_equal(onescope_world_create(m, setup, sizeof setup, NULL, &w, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < steps; i++) {
        uint8_t in[8];
        size_t n = agents_input(i, in);
        assert_int_equal(onescope_world_step(w, in, n, &err), ONESCOPE_OK);
    }
    return w;
}

static uint32_t value_index(const char *name) {
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    for (uint32_t v = 0; v < m.value_count; v++)
        if (strcmp(m.values[v].name, name) == 0) return v;
    fail_msg("no value %s", name);
    return 0;
}

/* Item 1: a snapshot that leaves out energy. A planted velocity bug at step 40 on agent 3 is
 * one entity's difference; the keyframe at row 32 restores every agent with the wrong energy,
 * so a tool that trusts it blames (nearly) every agent. It must be disproved and not used. */
static void snapshot_fault_keyframe_disproved(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "snap.ostm");
    agents_faults rec = agents_faults_none();
    rec.snapshot_misses = true;
    plan pl = plan_of(120, 16);
    record(p, rec, &pl);
    agents_faults ver = rec;
    ver.bug_step = 40;
    ver.bug_id = 3;
    onescope_module m = agents_module(&ver);
    onescope_verify_result v;
    onescope_error err;
    assert_int_equal(verify_both(p, &m, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_HASH_MISMATCH);
    assert_int_equal(v.first_row, 41);
    assert_int_equal(v.keyframes_checked, 2); /* rows 16 and 32 matched the world */
    onescope_recording *r = read_back(p);
    onescope_recording_explanation *x;
    assert_int_equal(onescope_recording_explain(r, &m, 41, 8, NULL, &x, "snap", &err), ONESCOPE_OK);
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_SNAPSHOT_INCOMPLETE);
    assert_int_equal(x->keyframe_row, 32);
    assert_true(x->keyframe_hashes_differ);
    assert_false(x->from_keyframe);
    assert_int_equal(x->start_row, 0);
    assert_int_equal(x->differing, 1);
    assert_int_equal(x->entities[0].id, 3);
    assert_true(x->has_table);
    assert_int_equal(x->table_row, 48);
    assert_true(x->values_listed >= 1);
    assert_int_equal(x->values[0].id, 3); /* the entity the rows name comes first */
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
}

/* Items 1 and 2: a hash that leaves out energy, which only changes together with the position.
 * A planted energy bug at step 40 never shows in a hash row; the keyframe table at row 48 does,
 * and verify must say so there. An explanation asked at a later row must not restore a keyframe
 * that holds the recorder's good state and report nothing. */
static void hash_fault_caught_at_next_keyframe(void **state) {
    (void)state;
    char p[128], plain[128];
    path_of(p, sizeof p, "hash.ostm");
    path_of(plain, sizeof plain, "hash-plain.ostm");
    agents_faults rec = agents_faults_none();
    rec.hash_misses = true;
    plan pl = plan_of(120, 16);
    record(p, rec, &pl);
    plan none = plan_of(120, 0);
    record(plain, rec, &none);
    agents_faults ver = rec;
    ver.bug_step = 40;
    ver.bug_id = 3;
    ver.bug_energy = true;
    onescope_module m = agents_module(&ver);
    onescope_verify_result v;
    onescope_error err;
    /* without keyframes the hash rows cannot tell: a pass is all a verify can say */
    assert_int_equal(verify_both(plain, &m, &v, &err), ONESCOPE_OK);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_PASS);
    assert_int_equal(verify_both(p, &m, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_TABLE_MISMATCH);
    assert_false(v.matched);
    assert_int_equal(v.first_row, 48);
    assert_int_equal(v.rows_checked, 49); /* every hash row through 48 matched */
    assert_int_equal(v.table_entity, 3);
    assert_int_equal(v.table_value, value_index("energy"));
    assert_int_equal(v.table_differing, 1);
    assert_true(v.table_in_file && v.table_in_world);
    assert_true(v.table_recorded - v.table_found == 3.0 ||
                fabs(v.table_recorded - v.table_found - 3.0) < 1e-4);
    assert_non_null(strstr(line_of(&err), "keyframe table at row 48"));
    if (strstr(line_of(&err), "entity 3 energy") == NULL) fail_msg("%s", line_of(&err));
    onescope_recording *r = read_back(p);
    onescope_recording_explanation *x;
    /* at 48: the keyframe at 32 proves itself and the run from it shows the energy */
    assert_int_equal(onescope_recording_explain(r, &m, 48, 8, NULL, &x, "hash", &err), ONESCOPE_OK);
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_USED);
    assert_int_equal(x->start_row, 32);
    assert_int_equal(x->table_row, 48);
    assert_int_equal(x->values_differing, 1);
    assert_int_equal(x->values[0].id, 3);
    assert_int_equal(x->values[0].value, value_index("energy"));
    onescope_recording_explanation_free(x);
    /* at the last row: the keyframe at 112 reproduces it (it holds the good state), so the
     * explanation runs from row 0 and shows the first table that parted */
    assert_int_equal(onescope_recording_explain(r, &m, 120, 8, NULL, &x, "hash", &err),
                     ONESCOPE_OK);
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_NOT_REPRODUCED);
    assert_int_equal(x->keyframe_row, 112);
    assert_int_equal(x->start_row, 0);
    assert_true(x->has_table);
    assert_int_equal(x->table_row, 48);
    assert_int_equal(x->values[0].id, 3);
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
}

/* Item 4: a module that refuses a step with E_MISMATCH is an error of that row, not a hash
 * mismatch with hashes nobody computed. */
static void refusal_is_an_error_of_its_row(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "refuse.ostm");
    agents_faults rec = agents_faults_none();
    plan pl = plan_of(60, 16);
    record(p, rec, &pl);
    agents_faults ver = rec;
    ver.refuse_step = 20;
    onescope_module m = agents_module(&ver);
    onescope_verify_result v;
    onescope_error err;
    assert_int_equal(verify_both(p, &m, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_MODULE_ERROR);
    assert_false(v.matched);
    assert_int_equal(v.first_row, 21);
    assert_non_null(strstr(line_of(&err), "step 20"));
    assert_null(strstr(line_of(&err), "0000000000000000"));
    /* and a module without refusals passes, with its keyframes checked */
    onescope_module clean = agents_module(&rec);
    assert_int_equal(verify_both(p, &clean, &v, &err), ONESCOPE_OK);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_PASS);
    assert_int_equal(v.keyframes_checked, 3);
}

/* Item 9: one offset rule for a module's error while stepping: the input's file offset plus
 * the module's offset inside it; an offset past the input is the input's own, said. */
static void step_errors_at_file_offsets(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "offsets.ostm");
    agents_faults rec = agents_faults_none();
    plan pl = plan_of(40, 0);
    record(p, rec, &pl);
    onescope_buffer bytes;
    onescope_error err;
    assert_int_equal(onescope_file_read(p, 0, NULL, &bytes, &err), ONESCOPE_OK);
    onescope_recording *r = read_back(p);
    const uint8_t *in;
    size_t n;
    assert_int_equal(onescope_recording_step_input(r, 24, &in, &n), ONESCOPE_OK);
    assert_int_equal(n, 8);
    /* where those 8 bytes sit in the file: the one place that holds them after the setup */
    uint64_t at = 0;
    for (size_t o = 40; o + 8 <= bytes.size && at == 0; o++)
        if (memcmp(bytes.data + o, in, 8) == 0 && bytes.data[o - 4] == 8) at = o;
    assert_true(at != 0);
    onescope_buffer_free(&bytes);
    onescope_recording_free(r);
    agents_faults ver = rec;
    ver.refuse_step = 24;
    onescope_module m = agents_module(&ver);
    onescope_verify_result v;
    uint64_t offsets[2] = {4, 100}, want[2] = {at + 4, at};
    for (int k = 0; k < 2; k++) {
        ver.refuse_offset = offsets[k];
        assert_int_equal(verify_both(p, &m, &v, &err), ONESCOPE_E_MISMATCH);
        assert_int_equal(v.verdict, ONESCOPE_VERDICT_MODULE_ERROR);
        assert_true(err.has_offset);
        if (err.offset != want[k])
            fail_msg("%s (want offset %llu)", line_of(&err), (unsigned long long)want[k]);
        assert_true((k == 1) == (strstr(err.found, "past the blob") != NULL));
    }
}

static onescope_code check_input(void *user, uint64_t step, const void **input, size_t *size,
                                 onescope_error *error) {
    (void)error;
    static uint8_t in[8];
    *size = input_at(user, (uint32_t)step, in);
    *input = in;
    return ONESCOPE_OK;
}

static uint32_t check_horizon = 4;

static void module_check_of(agents_faults *f, onescope_module_check_result *out) {
    onescope_module m = agents_module(f);
    plan pl = plan_of(0, 0);
    onescope_module_check_def d = onescope_module_check_def_default();
    d.steps = 100;
    d.horizon = check_horizon;
    d.input = check_input;
    d.input_user = &pl;
    onescope_error err;
    if (onescope_module_check_run(&m, setup, sizeof setup, &d, NULL, out, &err) != ONESCOPE_OK)
        fail_msg("%s", line_of(&err));
}

/* Item 3: module check must catch a hash that misses a value however the stages are cut (energy
 * only changes in "move", with the position), and must pass the module without the fault. */
static void module_check_catches_every_fault(void **state) {
    (void)state;
    onescope_module_check_result res;
    agents_faults f = agents_faults_none();
    module_check_of(&f, &res);
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++)
        if (res.checks[k].status != ONESCOPE_MODULE_CHECK_PASSED)
            fail_msg("%s: %s", onescope_module_check_name((onescope_module_check_kind)k),
                     res.checks[k].failure.what);
    f.hash_misses = true;
    module_check_of(&f, &res);
    const onescope_module_check_outcome *h = &res.checks[ONESCOPE_MODULE_CHECK_HASH];
    assert_int_equal(h->status, ONESCOPE_MODULE_CHECK_FAILED);
    assert_string_equal(h->failure.value, "energy");
    assert_int_equal(res.checks[ONESCOPE_MODULE_CHECK_DETERMINISM].status,
                     ONESCOPE_MODULE_CHECK_PASSED);
    for (check_horizon = 0; check_horizon < 2; check_horizon++) { /* the probes need no horizon */
        module_check_of(&f, &res);
        assert_int_equal(res.checks[ONESCOPE_MODULE_CHECK_HASH].status,
                         ONESCOPE_MODULE_CHECK_FAILED);
    }
    check_horizon = 4;
    f = agents_faults_none();
    f.snapshot_misses = true;
    module_check_of(&f, &res);
    assert_int_not_equal(res.checks[ONESCOPE_MODULE_CHECK_RESTORE].status,
                         ONESCOPE_MODULE_CHECK_PASSED);
    f = agents_faults_none();
    f.outside = true;
    module_check_of(&f, &res);
    assert_int_equal(res.checks[ONESCOPE_MODULE_CHECK_DETERMINISM].status,
                     ONESCOPE_MODULE_CHECK_FAILED);
}

static void diff_of(const char *a, const char *b, const onescope_module *m,
                    onescope_recording_diff_result *res) {
    onescope_recording *ra = read_back(a), *rb = read_back(b);
    onescope_error err;
    if (onescope_recording_diff(ra, rb, m, NULL, res, a, b, &err) != ONESCOPE_OK)
        fail_msg("%s", line_of(&err));
    onescope_recording_free(ra);
    onescope_recording_free(rb);
}

/* Item 5: keyframes make a diff faster, never another verdict. Two recordings by a module whose
 * hash misses energy, one feeding agent 3 at step 40: their recorded rows agree everywhere, but
 * the worlds a complete hash sees part at row 41. With and without keyframes the diff says the
 * same. And the hashes it reports are the row's, not a stage's. */
static void diff_verdict_is_the_same_with_keyframes(void **state) {
    (void)state;
    char a[128], b[128], a0[128], b0[128];
    path_of(a, sizeof a, "da.ostm");
    path_of(b, sizeof b, "db.ostm");
    path_of(a0, sizeof a0, "da0.ostm");
    path_of(b0, sizeof b0, "db0.ostm");
    agents_faults rec = agents_faults_none();
    rec.hash_misses = true;
    plan pa = plan_of(120, 16), pb = pa, pa0 = plan_of(120, 0), pb0 = pa0;
    pb.feed_at = pb0.feed_at = 40;
    record(a, rec, &pa);
    record(b, rec, &pb);
    record(a0, rec, &pa0);
    record(b0, rec, &pb0);
    agents_faults clean_f = agents_faults_none();
    onescope_module clean = agents_module(&clean_f), faulty = agents_module(&rec);
    onescope_recording_diff_result with, without;
    diff_of(a0, b0, &clean, &without);
    diff_of(a, b, &clean, &with);
    assert_true(without.different && without.worlds_differ);
    assert_int_equal(without.row, 41);
    assert_true(with.different);
    assert_true(with.worlds_differ);
    assert_int_equal(with.row, 41);
    assert_int_equal(with.entity_id, without.entity_id);
    assert_int_equal(with.value, without.value);
    assert_int_equal(with.stage, without.stage);
    diff_of(a0, b0, &faulty, &without);
    diff_of(a, b, &faulty, &with);
    assert_int_equal(with.different, without.different);
    assert_int_equal(with.worlds_differ, without.worlds_differ);

    /* a push instead: the rows part at 41; the keyframe at 32 is used, and the hashes named are
     * both rows' */
    plan pc = plan_of(120, 16), pc0 = plan_of(120, 0);
    pc.push_at = pc0.push_at = 40;
    record(b, clean_f, &pc);
    record(a, clean_f, &pa);
    record(b0, clean_f, &pc0);
    record(a0, clean_f, &pa0);
    diff_of(a, b, &clean, &with);
    diff_of(a0, b0, &clean, &without);
    assert_true(with.from_keyframes);
    assert_int_equal(with.start_row, 32);
    assert_int_equal(with.row, 41);
    assert_int_equal(without.row, 41);
    assert_true(with.stage == without.stage && with.stage == 0); /* "think" takes the push */
    onescope_recording *ra = read_back(a), *rb = read_back(b);
    assert_true(with.hash_a == onescope_recording_hash_row(ra, 41));
    assert_true(with.hash_b == onescope_recording_hash_row(rb, 41));
    assert_true(without.hash_a == with.hash_a && without.hash_b == with.hash_b);
    onescope_recording_free(ra);
    onescope_recording_free(rb);
}

/* Item 21's class: ids that are not indexes. Late in a run agents have died (the last took each
 * one's place) and been born, so the agent at index 0 has another id; a bug on it is named by
 * its id in the verify, the entity rows and the keyframe table. */
static void ids_out_of_index_order_are_named(void **state) {
    (void)state;
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    onescope_world *w;
    onescope_error err;
    uint32_t bug_at = 330;
    w = standard_run(&m, bug_at);
    uint64_t id = onescope_world_entity_id(w, 0);
    uint32_t count = onescope_world_entity_count(w);
    onescope_world_free(w);
    assert_int_not_equal(id, 1); /* the first agent died and another took its place */
    assert_true(count != 76);
    char p[128];
    path_of(p, sizeof p, "late.ostm");
    plan pl = plan_of(360, 16);
    record(p, f, &pl);
    agents_faults ver = f;
    ver.bug_step = bug_at;
    ver.bug_id = id;
    onescope_module mv = agents_module(&ver);
    onescope_verify_result v;
    assert_int_equal(verify_both(p, &mv, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.first_row, bug_at + 1);
    onescope_recording *r = read_back(p);
    onescope_recording_explanation *x;
    assert_int_equal(onescope_recording_explain(r, &mv, bug_at + 1, 4, NULL, &x, "late", &err),
                     ONESCOPE_OK);
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_USED);
    assert_int_equal(x->differing, 1);
    assert_int_equal(x->entities[0].id, id);
    assert_int_equal(x->values[0].id, id);
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
}

/* Item 7: a ghost keeps the module's stable ids. Two ghosts of overlapping ranges of a run in
 * which agents die (the last takes the dead one's place) and are born name each agent alike
 * and agree on every shared frame; each id is the module's own. */
static void ghost_keeps_stable_ids(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "ghost.ostm");
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    plan pl = plan_of(400, 0);
    record(p, f, &pl);
    onescope_recording *r = read_back(p);
    onescope_pose_cache *g[2];
    onescope_error err;
    uint32_t from[2] = {300, 340};
    for (int k = 0; k < 2; k++) {
        onescope_ghost_options o = onescope_ghost_options_default();
        o.from = from[k];
        o.frames = 50;
        if (onescope_ghost_recording_create(r, &m, &o, NULL, &g[k], &err) != ONESCOPE_OK)
            fail_msg("%s", line_of(&err));
    }
    /* the ids are the module's: agent ids, never renumbered */
    onescope_world *w;
    w = standard_run(&m, 340);
    uint32_t shared = 0, alive = onescope_world_entity_count(w);
    for (uint32_t e = 0; e < g[1]->entity_count; e++) {
        uint64_t id = g[1]->entities[e].id;
        bool in_world = false;
        for (uint32_t i = 0; i < alive; i++) in_world |= onescope_world_entity_id(w, i) == id;
        uint32_t a = UINT32_MAX;
        for (uint32_t j = 0; j < g[0]->entity_count; j++)
            if (g[0]->entities[j].id == id) a = j;
        if (!in_world || a == UINT32_MAX) continue;
        shared++;
        for (uint32_t fr = 0; fr < 10; fr++) { /* steps 340..349 are in both */
            const onescope_pose *pa = &g[0]->poses[(size_t)(fr + 40) * g[0]->entity_count + a];
            const onescope_pose *pb = &g[1]->poses[(size_t)fr * g[1]->entity_count + e];
            assert_memory_equal(pa, pb, sizeof *pa);
        }
    }
    if (shared < 10) fail_msg("%u shared of %u, %u alive", shared, g[1]->entity_count, alive);
    assert_true(g[0]->entity_count != alive); /* agents died or were born in the ranges */
    onescope_world_free(w);
    onescope_pose_cache_free(g[0]);
    onescope_pose_cache_free(g[1]);
    onescope_recording_free(r);
}

/* Item 21's class: a table whose struct_size ends inside a member holds the members before it
 * only: half of the snapshot pointer is never called. */
static void struct_size_inside_a_member(void **state) {
    (void)state;
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    m.struct_size = (uint32_t)(offsetof(onescope_module, snapshot) + 4);
    m.restore = NULL; /* past the size too: never read */
    onescope_error err;
    assert_int_equal(onescope_module_check(&m, "cut", &err), ONESCOPE_OK);
    onescope_world *w;
    assert_int_equal(onescope_world_create(&m, setup, sizeof setup, NULL, &w, &err), ONESCOPE_OK);
    assert_null(onescope_world_module(w)->snapshot);
    assert_non_null(onescope_world_module(w)->run_stage);
    onescope_buffer b;
    assert_int_equal(onescope_world_snapshot(w, NULL, &b, &err), ONESCOPE_E_UNSUPPORTED);
    onescope_world_free(w);
}

/* Item 21's class: a streamed verify whose entity rows and keyframes cross the 1 MiB read
 * buffer's end many times (a recording of several MiB) says what the parsed one says, keyframe
 * tables included: a late energy bug under a hash that misses energy, at the next keyframe. */
static void streamed_verify_across_the_buffer(void **state) {
    (void)state;
    agents_faults f = agents_faults_none();
    f.hash_misses = true;
    onescope_module m = agents_module(&f);
    onescope_world *w;
    onescope_error err;
    uint32_t bug_at = 11000;
    w = standard_run(&m, bug_at);
    uint64_t id = onescope_world_entity_id(w, onescope_world_entity_count(w) / 2);
    onescope_world_free(w);
    char p[128];
    path_of(p, sizeof p, "long.ostm");
    plan pl = plan_of(12000, 64);
    record(p, f, &pl);
    onescope_buffer bytes;
    assert_int_equal(onescope_file_read(p, 0, NULL, &bytes, &err), ONESCOPE_OK);
    assert_true(bytes.size > 3 * 1024 * 1024); /* the buffer turns over several times */
    onescope_buffer_free(&bytes);
    onescope_verify_result v;
    assert_int_equal(verify_both(p, &m, &v, &err), ONESCOPE_OK);
    assert_int_equal(v.keyframes_checked, 12000 / 64);
    agents_faults ver = f;
    ver.bug_step = bug_at;
    ver.bug_id = id;
    ver.bug_energy = true;
    onescope_module mv = agents_module(&ver);
    assert_int_equal(verify_both(p, &mv, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_TABLE_MISMATCH);
    assert_int_equal(v.first_row, (bug_at / 64 + 1) * 64);
    assert_int_equal(v.table_entity, id);
}

/* Item 21's class again, in the writer: an entity row may say "the previous row's ids" only
 * when every id is the same, not when the count is. In the standard run an agent dies in the
 * step that another is born, so two rows hold the same count with another id among them: each
 * row's ids, as the file holds them (reused or not), are the world's at that row. */
typedef struct row_ids {
    const onescope_recording *r;
    uint32_t replaced; /* rows whose count is the last row's with another id set */
    uint32_t last_count;
    uint64_t last_ids[512];
    char why[256];
} row_ids;

static bool row_ids_agree(void *user, const onescope_recording_row *row) {
    row_ids *c = user;
    onescope_entity_row e;
    if (onescope_recording_entity_row(c->r, row->index, &e) != ONESCOPE_OK) {
        snprintf(c->why, sizeof c->why, "row %u: no entity row", row->index);
        return true;
    }
    uint32_t n = onescope_world_entity_count(row->world);
    if (e.count != n || n > 512) {
        snprintf(c->why, sizeof c->why, "row %u: %u entities recorded, %u in the world", row->index,
                 e.count, n);
        return true;
    }
    bool other = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = onescope_world_entity_id(row->world, i), got = 0;
        for (int b = 0; b < 8; b++) got |= (uint64_t)e.ids[8 * (size_t)i + b] << (8 * b);
        if (got != id) {
            snprintf(c->why, sizeof c->why, "row %u entity %u: id %llu recorded, %llu in the world",
                     row->index, i, (unsigned long long)got, (unsigned long long)id);
            return true;
        }
        other |= row->index > 0 && (n != c->last_count || c->last_ids[i] != id);
        c->last_ids[i] = id;
    }
    if (other && n == c->last_count) c->replaced++;
    c->last_count = n;
    return false;
}

static void entity_rows_hold_each_rows_ids(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "replaced.ostm");
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    plan pl = plan_of(400, 0);
    record(p, f, &pl);
    onescope_recording *r = read_back(p);
    row_ids c;
    memset(&c, 0, sizeof c);
    c.r = r;
    onescope_error err;
    if (onescope_recording_run(r, &m, NULL, row_ids_agree, &c, p, &err) != ONESCOPE_OK)
        fail_msg("%s", line_of(&err));
    if (c.why[0] != '\0') fail_msg("%s", c.why);
    /* the run has what the rule is about: a death and a birth in one step */
    if (c.replaced == 0) fail_msg("no row replaces an entity at the same count");
    onescope_recording_free(r);
}

/* Item 21's class in the keyframe table: a planted bug that kills an agent early (its energy
 * nudged below what the step leaves it) moves the last agent into its index. At the keyframe
 * right after that step (before the thinking, which draws from one generator for all, spreads
 * the difference; a step where one is born too, so the moved agent's old index is held) the
 * table is compared by id: the one difference is the dead agent (in the
 * table, not in the world), never the agents whose indexes moved. */
static void table_compared_by_id_after_a_death(void **state) {
    (void)state;
    agents_faults f = agents_faults_none();
    onescope_module m = agents_module(&f);
    onescope_world *w;
    onescope_error err;
    assert_int_equal(onescope_world_create(&m, setup, sizeof setup, NULL, &w, &err), ONESCOPE_OK);
    uint32_t energy = value_index("energy"), bug_at = 0, n = 0;
    uint64_t id = 0;
    for (uint32_t i = 0; i < 300 && id == 0; i++) {
        /* an agent that is not the last, with enough energy for this step but not for 3 less */
        n = onescope_world_entity_count(w);
        for (uint32_t e = 0; i % 80 == 79 && e + 1 < n && id == 0; e++) {
            double v[8];
            assert_int_equal(onescope_world_entity_values(w, e, v, 8, &err), ONESCOPE_OK);
            if (v[energy] > 1.0 && v[energy] < 2.5) id = onescope_world_entity_id(w, e), bug_at = i;
        }
        uint8_t in[8];
        size_t k = agents_input(i, in);
        assert_int_equal(onescope_world_step(w, in, k, &err), ONESCOPE_OK);
    }
    onescope_world_free(w);
    if (id == 0) fail_msg("no agent with 1 to 2.5 energy at steps 79, 159, 239");
    char p[128];
    path_of(p, sizeof p, "death.ostm");
    plan pl = plan_of(bug_at + 40, 16);
    record(p, f, &pl);
    agents_faults ver = f;
    ver.bug_step = bug_at;
    ver.bug_id = id;
    ver.bug_energy = true;
    onescope_module mv = agents_module(&ver);
    onescope_verify_result v;
    assert_int_equal(verify_both(p, &mv, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.first_row, bug_at + 1);
    onescope_recording *r = read_back(p);
    onescope_recording_explanation *x;
    assert_int_equal(onescope_recording_explain(r, &mv, bug_at + 1, 8, NULL, &x, "death", &err),
                     ONESCOPE_OK);
    assert_true(x->has_table);
    assert_true(x->entities_found + 1 == x->entities_recorded); /* it died in this build */
    assert_int_equal(x->differing, 1);
    assert_int_equal(x->entities[0].id, id);
    assert_int_equal(x->values_differing, 1);
    assert_int_equal(x->values[0].id, id);
    assert_int_equal(x->values[0].value, UINT32_MAX);
    assert_false(x->values[0].found);
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
}

/* Item 21's boundaries: a first differing row that is a multiple of K. The explanation runs
 * from the keyframe before it (row K) to the row's own keyframe, where the table is compared,
 * and no further: K steps, the table of row 2K. */
static void explained_at_a_keyframe_row(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "at-key.ostm");
    agents_faults f = agents_faults_none();
    plan pl = plan_of(80, 16);
    record(p, f, &pl);
    agents_faults ver = f;
    ver.bug_step = 31; /* row 32 = 2K */
    ver.bug_id = 5;
    onescope_module mv = agents_module(&ver);
    onescope_verify_result v;
    onescope_error err;
    assert_int_equal(verify_both(p, &mv, &v, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(v.first_row, 32);
    onescope_recording *r = read_back(p);
    onescope_recording_explanation *x;
    assert_int_equal(onescope_recording_explain(r, &mv, 32, 4, NULL, &x, "at-key", &err),
                     ONESCOPE_OK);
    assert_int_equal(x->keyframe_use, ONESCOPE_KEYFRAME_USED);
    assert_int_equal(x->start_row, 16);
    assert_true(x->has_table);
    assert_int_equal(x->table_row, 32);
    assert_int_equal(x->steps_run, 16);
    assert_int_equal(x->differing, 1);
    assert_int_equal(x->entities[0].id, 5);
    assert_int_equal(x->values_differing, 3); /* vx, and the x and energy it moved */
    for (uint32_t k = 0; k < x->values_listed; k++) assert_int_equal(x->values[k].id, 5);
    onescope_recording_explanation_free(x);
    onescope_recording_free(r);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/onescope-trust-XXXXXX");
    if (mkdtemp(dir) == NULL) return 1;
    agents_setup(7, 76, setup);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_fault_keyframe_disproved),
        cmocka_unit_test(hash_fault_caught_at_next_keyframe),
        cmocka_unit_test(refusal_is_an_error_of_its_row),
        cmocka_unit_test(module_check_catches_every_fault),
        cmocka_unit_test(diff_verdict_is_the_same_with_keyframes),
        cmocka_unit_test(ids_out_of_index_order_are_named),
        cmocka_unit_test(ghost_keeps_stable_ids),
        cmocka_unit_test(step_errors_at_file_offsets),
        cmocka_unit_test(struct_size_inside_a_member),
        cmocka_unit_test(streamed_verify_across_the_buffer),
        cmocka_unit_test(entity_rows_hold_each_rows_ids),
        cmocka_unit_test(table_compared_by_id_after_a_death),
        cmocka_unit_test(explained_at_a_keyframe_row),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
