/* onescope_module_check_run (module.h): the test module passes every check; a wrapper around
 * its table plants one bug class at a time and the check that catches it is named, with the
 * step (and stage, entity, value where there is one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char *error_line(const onescope_error *e) {
    static char line[1024];
    onescope_error_format(e, line, sizeof line);
    return line;
}

/* ---- a replay as setup and inputs ---- */

typedef struct source {
    onescope_replay *replay;
    uint8_t setup[10];
    size_t setup_size;
} source;

static void source_load(source *s, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ONESCOPE_TESTDATA, name);
    onescope_error err;
    if (onescope_replay_read_file(path, NULL, &s->replay, &err) != ONESCOPE_OK)
        fail_msg("%s", error_line(&err));
    onescope_sim_setup st = onescope_replay_setup(s->replay);
    onescope_sim_setup_encode(&st, s->setup);
    s->setup_size = 6;
    assert_false(onescope_replay_has_start_snapshot(s->replay));
    assert_int_equal(onescope_replay_link(s->replay).role, ONESCOPE_LINK_ROLE_NONE);
}

static onescope_code input_of(void *user, uint64_t step, const void **input, size_t *size,
                              onescope_error *error) {
    (void)error;
    const uint8_t *p = NULL;
    onescope_code rc = onescope_replay_step_input(user, (uint32_t)step, &p, size);
    *input = p;
    return rc;
}

static onescope_module_check_def def_for(source *s, uint64_t steps) {
    onescope_module_check_def d = onescope_module_check_def_default();
    d.steps = steps;
    d.input = input_of;
    d.input_user = s->replay;
    return d;
}

/* ---- the test module with one planted bug ---- */

enum bug { BUG_NONE, BUG_SNAPSHOT, BUG_HASH, BUG_ORDER, BUG_GLOBAL, BUG_STAGES };
static enum bug planted;
static uint64_t global_steps; /* BUG_GLOBAL: state kept outside every world */
static unsigned worlds_made;  /* which order the next world's nodes land in */

/* Two nodes a stage visits in address order (a container keyed by address); where the
 * allocator puts them differs from world to world. */
typedef struct node {
    uint64_t id;
} node;

typedef struct tw {
    void *inner;
    node *nodes;  /* 2 */
    uint64_t acc; /* what the visits leave: part of the hash and the snapshot */
} tw;

#define T (onescope_module_test())
#define SNAP_MAX (12 + 32 * 64)

static onescope_code tw_wrap(void *inner, void **world) {
    tw *w = calloc(1, sizeof *w);
    node *n = calloc(2, sizeof *n);
    if (w == NULL || n == NULL) abort();
    bool swap = (worlds_made++ & 1) != 0;
    n[0].id = swap ? 2 : 1;
    n[1].id = swap ? 1 : 2;
    w->inner = inner, w->nodes = n;
    *world = w;
    return ONESCOPE_OK;
}

static onescope_code tw_create(void *context, const void *setup, size_t size,
                               const onescope_allocator *a, void **world, onescope_error *error) {
    (void)context;
    void *inner = NULL;
    onescope_code rc = T->create(T->context, setup, size, a, &inner, error);
    return rc == ONESCOPE_OK ? tw_wrap(inner, world) : rc;
}

static void tw_free(void *context, void *world) {
    (void)context;
    tw *w = world;
    T->free(T->context, w->inner);
    free(w->nodes);
    free(w);
}

/* What a step does beside the inner world's step, under the planted bug. */
static void tw_extra(tw *w) {
    if (planted == BUG_ORDER) {
        const node *order[2] = {&w->nodes[0], &w->nodes[1]};
        if ((uintptr_t)order[1] < (uintptr_t)order[0])
            order[0] = &w->nodes[1], order[1] = &w->nodes[0];
        for (int i = 0; i < 2; i++) w->acc = w->acc * 31 + order[i]->id;
    }
    if (planted == BUG_GLOBAL) w->acc += ++global_steps;
}

static const uint8_t mark[2] = {0xee, 0xee}; /* an input the refusing check_input refuses */
static bool stepped_mark;                    /* a step was asked to run it */

static onescope_code tw_step(void *context, void *world, const void *in, size_t size,
                             onescope_error *error) {
    (void)context;
    tw *w = world;
    if (size == sizeof mark && memcmp(in, mark, size) == 0) stepped_mark = true;
    tw_extra(w);
    return T->step(T->context, w->inner, in, size, error);
}

static onescope_code tw_run_stage(void *context, void *world, uint32_t stage, const void *in,
                                  size_t size, onescope_error *error) {
    (void)context;
    tw *w = world;
    if (stage == 0) tw_extra(w);
    if (planted == BUG_STAGES && stage == 2) w->acc++; /* only when run stage by stage */
    return T->run_stage(T->context, w->inner, stage, in, size, error);
}

static size_t tw_bytes(const tw *w, uint8_t out[SNAP_MAX + 8]) {
    size_t n = onescope_sim_snapshot(w->inner, out, SNAP_MAX);
    memcpy(out + n, &w->acc, 8);
    return n + 8;
}

static uint64_t tw_hash(void *context, const void *world) {
    (void)context;
    const tw *w = world;
    if (planted != BUG_HASH) return T->hash(T->context, w->inner) ^ (w->acc * 0x9e3779b97f4a7c15u);
    uint8_t b[SNAP_MAX + 8];
    size_t n = tw_bytes(w, b) - 8;
    for (size_t at = 12; at + 32 <= n; at += 32) memset(b + at + 24, 0, 8); /* velocity y, z */
    return onescope_hash_bytes(b, n);
}

static onescope_code tw_snapshot(void *context, const void *world, onescope_module_sink *out,
                                 onescope_error *error) {
    (void)context;
    (void)error;
    uint8_t b[SNAP_MAX + 8];
    size_t n = tw_bytes(world, b);
    if (planted == BUG_SNAPSHOT) memset(b + 12 + 20, 0, 12); /* body 0's velocity is lost */
    return onescope_module_sink_append(out, b, n);
}

static onescope_code tw_restore(void *context, const void *setup, size_t setup_size,
                                const void *snap, size_t size, const onescope_allocator *a,
                                void **world, onescope_error *error) {
    (void)context;
    if (size < 8)
        return onescope_module_fail(error, ONESCOPE_E_LENGTH, 0, "snapshot", "8+", "less");
    void *inner = NULL;
    onescope_code rc = T->restore(T->context, setup, setup_size, snap, size - 8, a, &inner, error);
    if (rc != ONESCOPE_OK) return rc;
    tw_wrap(inner, world);
    memcpy(&((tw *)*world)->acc, (const uint8_t *)snap + size - 8, 8);
    return ONESCOPE_OK;
}

static uint32_t tw_entity_count(void *context, const void *world) {
    (void)context;
    return T->entity_count(T->context, ((const tw *)world)->inner);
}
static uint64_t tw_entity_id(void *context, const void *world, uint32_t i) {
    (void)context;
    return T->entity_id(T->context, ((const tw *)world)->inner, i);
}
static bool tw_entity_pose(void *context, const void *world, uint32_t i, onescope_pose *out) {
    (void)context;
    return T->entity_pose(T->context, ((const tw *)world)->inner, i, out);
}
static void tw_entity_values(void *context, const void *world, uint32_t i, double *out) {
    (void)context;
    T->entity_values(T->context, ((const tw *)world)->inner, i, out);
}
static void tw_world_values(void *context, const void *world, double *out) {
    (void)context;
    T->read_world_values(T->context, ((const tw *)world)->inner, out);
}

static onescope_module wrapped(enum bug bug) {
    planted = bug;
    onescope_module m = *T;
    m.id = "test.wrapped";
    m.create = tw_create, m.free = tw_free, m.step = tw_step, m.hash = tw_hash;
    m.check_setup = NULL, m.check_input = NULL, m.describe_input = NULL;
    m.run_stage = tw_run_stage, m.snapshot = tw_snapshot, m.restore = tw_restore;
    m.entity_count = tw_entity_count, m.entity_id = tw_entity_id, m.entity_pose = tw_entity_pose;
    m.entity_values = tw_entity_values, m.read_world_values = tw_world_values;
    return m;
}

static void run_check(const onescope_module *m, source *s, uint64_t steps,
                      onescope_module_check_result *r) {
    onescope_module_check_def d = def_for(s, steps);
    onescope_error err;
    onescope_code rc = onescope_module_check_run(m, s->setup, s->setup_size, &d, NULL, r, &err);
    if (rc != ONESCOPE_OK) fail_msg("%s", error_line(&err));
    assert_int_equal(r->steps, steps);
}

static void print_failures(const onescope_module_check_result *r) {
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++)
        if (r->checks[k].status == ONESCOPE_MODULE_CHECK_FAILED)
            print_message("  %s: step %llu: %s\n",
                          onescope_module_check_name((onescope_module_check_kind)k),
                          (unsigned long long)r->checks[k].failure.step, r->checks[k].failure.what);
}

/* Only check `k` fails, at `step` (UINT64_MAX: any step); returns its failure. */
static const onescope_module_check_failure *
only_failed(const onescope_module_check_result *r, onescope_module_check_kind k, uint64_t step) {
    print_failures(r);
    for (int j = 0; j < ONESCOPE_MODULE_CHECK_COUNT; j++)
        assert_int_equal(r->checks[j].status,
                         j == (int)k ? ONESCOPE_MODULE_CHECK_FAILED : ONESCOPE_MODULE_CHECK_PASSED);
    assert_int_equal(r->failed, 1);
    if (step != UINT64_MAX) assert_int_equal(r->checks[k].failure.step, step);
    assert_true(strlen(r->checks[k].failure.what) > 0);
    return &r->checks[k].failure;
}

/* A module that is not deterministic fails whatever compares two of its worlds; determinism
 * must fail, at `step`, and no other check before it. */
static const onescope_module_check_failure *
first_failed(const onescope_module_check_result *r, onescope_module_check_kind k, uint64_t step) {
    print_failures(r);
    assert_int_equal(r->checks[k].status, ONESCOPE_MODULE_CHECK_FAILED);
    assert_int_equal(r->checks[k].failure.step, step);
    for (int j = 0; j < ONESCOPE_MODULE_CHECK_COUNT; j++)
        if (r->checks[j].status == ONESCOPE_MODULE_CHECK_FAILED)
            assert_true(r->checks[j].failure.step >= step);
    return &r->checks[k].failure;
}

static source src;

static int setup_source(void **state) {
    (void)state;
    source_load(&src, "test-2d-600.ostm");
    return 0;
}

static int free_source(void **state) {
    (void)state;
    onescope_replay_free(src.replay);
    return 0;
}

static void test_clean_modules_pass(void **state) {
    (void)state;
    onescope_module_check_result r;
    run_check(T, &src, 60, &r);
    print_failures(&r);
    assert_int_equal(r.failed, 0);
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++)
        assert_int_equal(r.checks[k].status, ONESCOPE_MODULE_CHECK_PASSED);
    onescope_module m = wrapped(BUG_NONE);
    run_check(&m, &src, 60, &r);
    assert_int_equal(r.failed, 0);
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++)
        assert_int_equal(r.checks[k].status, ONESCOPE_MODULE_CHECK_PASSED);
}

static void test_snapshot_missing_a_field(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_SNAPSHOT);
    onescope_module_check_result r;
    run_check(&m, &src, 60, &r);
    const onescope_module_check_failure *f =
        only_failed(&r, ONESCOPE_MODULE_CHECK_RESTORE, UINT64_MAX);
    assert_int_equal(f->step % 32, 0); /* seen when restored, at a round trip's step */
    assert_int_equal(f->entity, 0);
    assert_int_equal(f->entity_id, 0);
    assert_non_null(strstr(f->value, "velocity."));
    assert_true(f->values[0] != f->values[1]);
    assert_true(f->hashes[0] != f->hashes[1]);
}

static void test_hash_missing_a_field(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_HASH);
    onescope_module_check_result r;
    run_check(&m, &src, 60, &r);
    const onescope_module_check_failure *f =
        only_failed(&r, ONESCOPE_MODULE_CHECK_HASH, UINT64_MAX);
    assert_int_equal(f->stage, 1); /* gravity changes the velocity only */
    assert_non_null(strstr(f->value, "velocity."));
    assert_int_not_equal(f->entity, ONESCOPE_MODULE_CHECK_NO_ENTITY);
    assert_true(f->values[0] != f->values[1]);
    assert_true(f->hashes[0] == f->hashes[1]);
}

static void test_order_by_address(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_ORDER);
    onescope_module_check_result r;
    run_check(&m, &src, 20, &r);
    const onescope_module_check_failure *f = first_failed(&r, ONESCOPE_MODULE_CHECK_DETERMINISM, 0);
    assert_true(f->hashes[0] != f->hashes[1]);
}

static void test_state_outside_the_world(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_GLOBAL);
    onescope_module_check_result r;
    run_check(&m, &src, 20, &r);
    const onescope_module_check_failure *f = first_failed(&r, ONESCOPE_MODULE_CHECK_DETERMINISM, 0);
    assert_true(f->hashes[0] != f->hashes[1]);
    assert_int_equal(f->stage, ONESCOPE_MODULE_CHECK_NO_STAGE);
}

static void test_stages_differ_from_the_step(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_STAGES);
    onescope_module_check_result r;
    run_check(&m, &src, 20, &r);
    const onescope_module_check_failure *f = only_failed(&r, ONESCOPE_MODULE_CHECK_STAGES, 0);
    assert_int_equal(f->stage, T->stage_count - 1);
    assert_true(f->hashes[0] != f->hashes[1]);
}

/* A check needing a slot the module lacks is skipped, naming the slot; never passed. */
static void test_missing_slots_skip(void **state) {
    (void)state;
    onescope_module m = {0};
    m.struct_size = sizeof m, m.abi = ONESCOPE_MODULE_ABI, m.id = "test.bare", m.version = "1";
    m.create = T->create, m.free = T->free, m.step = T->step, m.hash = T->hash;
    onescope_module_check_result r;
    run_check(&m, &src, 10, &r);
    assert_int_equal(r.failed, 0);
    assert_int_equal(r.checks[ONESCOPE_MODULE_CHECK_DETERMINISM].status,
                     ONESCOPE_MODULE_CHECK_PASSED);
    const char *want[ONESCOPE_MODULE_CHECK_COUNT] = {"", "snapshot", "snapshot", "run_stage",
                                                     "values"};
    for (int k = 1; k < ONESCOPE_MODULE_CHECK_COUNT; k++) {
        assert_int_equal(r.checks[k].status, ONESCOPE_MODULE_CHECK_SKIPPED);
        assert_string_equal(r.checks[k].skipped_for, want[k]);
    }
    assert_string_equal(onescope_module_check_name(ONESCOPE_MODULE_CHECK_HASH), "hash");
    assert_string_equal(onescope_module_check_name((onescope_module_check_kind)99), "?");
}

/* A module whose restore refuses its own snapshots: the snapshot check fails with the module's
 * error, and restore and stages, which could not run, fail rather than pass. */
static onescope_code refusing_restore(void *context, const void *setup, size_t setup_size,
                                      const void *snap, size_t size, const onescope_allocator *a,
                                      void **world, onescope_error *error) {
    (void)context, (void)setup, (void)setup_size, (void)snap, (void)size, (void)a, (void)world;
    return onescope_module_fail(error, ONESCOPE_E_MISMATCH, 3, "tag", "ours", "theirs");
}

static void test_refused_restore_fails_what_needs_it(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_NONE);
    m.restore = refusing_restore;
    onescope_module_check_result r;
    run_check(&m, &src, 10, &r);
    assert_int_equal(r.failed, 3);
    const onescope_module_check_outcome *c = r.checks;
    assert_int_equal(c[ONESCOPE_MODULE_CHECK_SNAPSHOT].status, ONESCOPE_MODULE_CHECK_FAILED);
    assert_non_null(strstr(c[ONESCOPE_MODULE_CHECK_SNAPSHOT].failure.what,
                           "restore of the world's own snapshot failed"));
    assert_non_null(strstr(c[ONESCOPE_MODULE_CHECK_SNAPSHOT].failure.what, "offset 3: tag"));
    for (int k = ONESCOPE_MODULE_CHECK_RESTORE; k <= ONESCOPE_MODULE_CHECK_STAGES; k++) {
        assert_int_equal(c[k].status, ONESCOPE_MODULE_CHECK_FAILED);
        assert_string_equal(c[k].failure.what,
                            "not run from step 0: the restore of the world's own snapshot failed");
    }
    assert_int_equal(c[ONESCOPE_MODULE_CHECK_DETERMINISM].status, ONESCOPE_MODULE_CHECK_PASSED);
}

/* An input the module's check_input refuses is refused before any world steps it, as a
 * recording's would be, in one line naming the module, the step and the module's reason. */
static onescope_code refuse_mark(void *context, const void *setup, size_t setup_size,
                                 const void *in, size_t size, onescope_error *error) {
    (void)context, (void)setup, (void)setup_size;
    if (size == sizeof mark && memcmp(in, mark, size) == 0)
        return onescope_module_fail(error, ONESCOPE_E_OPERATION, 1, "op", "an unmarked op", "0xee");
    return ONESCOPE_OK;
}

static onescope_code marked_input(void *user, uint64_t step, const void **input, size_t *size,
                                  onescope_error *error) {
    if (step != 3) return input_of(user, step, input, size, error);
    *input = mark, *size = sizeof mark;
    return ONESCOPE_OK;
}

static void test_refused_input_is_never_stepped(void **state) {
    (void)state;
    onescope_module m = wrapped(BUG_NONE);
    m.check_input = refuse_mark;
    onescope_module_check_def d = def_for(&src, 10);
    d.input = marked_input;
    onescope_module_check_result r;
    onescope_error err;
    stepped_mark = false;
    onescope_code rc = onescope_module_check_run(&m, src.setup, src.setup_size, &d, NULL, &r, &err);
    assert_int_equal(rc, ONESCOPE_E_OPERATION);
    assert_false(stepped_mark);
    assert_string_equal(error_line(&err), "test.wrapped: offset 1: step 3 input: op: expected an "
                                          "unmarked op, found 0xee");
    /* the same module and inputs without the check: the step meets the input */
    m.check_input = NULL;
    rc = onescope_module_check_run(&m, src.setup, src.setup_size, &d, NULL, &r, &err);
    assert_int_not_equal(rc, ONESCOPE_OK);
    assert_true(stepped_mark);
}

static void test_bad_input(void **state) {
    (void)state;
    onescope_module_check_result r;
    onescope_error err;
    assert_int_equal(onescope_module_check_run(NULL, NULL, 0, NULL, NULL, &r, &err),
                     ONESCOPE_E_ARGUMENT);
    uint8_t bad[3] = {0};
    onescope_code rc = onescope_module_check_run(T, bad, sizeof bad, NULL, NULL, &r, &err);
    assert_int_equal(rc, ONESCOPE_E_LENGTH);
    assert_non_null(strstr(error_line(&err), "onescope.test"));
    assert_null(strchr(error_line(&err), '\n'));
    /* no step: refused, never "passed over 0 steps" */
    onescope_module_check_def zero = def_for(&src, 0);
    rc = onescope_module_check_run(T, src.setup, src.setup_size, &zero, NULL, &r, &err);
    assert_int_equal(rc, ONESCOPE_E_ARGUMENT);
    assert_non_null(strstr(error_line(&err), "at least 1 step"));
    assert_int_equal(r.failed, 0);
    assert_int_equal(r.steps, 0);
    /* more steps than the replay holds: the input callback's refusal, unchanged */
    onescope_module_check_def d = def_for(&src, 700);
    rc = onescope_module_check_run(T, src.setup, src.setup_size, &d, NULL, &r, &err);
    assert_int_equal(rc, ONESCOPE_E_ARGUMENT);
}

static onescope_code walk_one(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_module_check_def d = def_for(&src, 12);
    d.restore_every = 3;
    onescope_module_check_result r;
    onescope_error err;
    onescope_code rc = onescope_module_check_run(T, src.setup, src.setup_size, &d, a, &r, &err);
    if (rc == ONESCOPE_OK && r.failed != 0) return ONESCOPE_E_ENGINE;
    return rc;
}

static void test_alloc_failures(void **state) {
    (void)state;
    assert_true(test_alloc_walk(walk_one, NULL) > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_modules_pass),
        cmocka_unit_test(test_snapshot_missing_a_field),
        cmocka_unit_test(test_refused_restore_fails_what_needs_it),
        cmocka_unit_test(test_hash_missing_a_field),
        cmocka_unit_test(test_order_by_address),
        cmocka_unit_test(test_state_outside_the_world),
        cmocka_unit_test(test_stages_differ_from_the_step),
        cmocka_unit_test(test_missing_slots_skip),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_refused_input_is_never_stepped),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup_source, free_source);
}
