/* onescope diff (src/diff.c, src/diff_cache.c): replays that differ in one operation name a
 * step at or after it, the body and the field; identical pairs are the same; setups that
 * differ are header items; caches with known perturbations give the exact max and its step;
 * q and -q are one rotation; presence flips and entity sets; streamed files agree with memory;
 * a bad file is an error naming it and its offset; allocation failure leaks nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* 2D, 4 bodies, 60 steps: an impulse on body 1 every tenth step (dx = 5, or `changed` at
 * step `k`). */
static onescope_replay *make_replay(uint32_t seed, uint32_t k, int32_t changed) {
    onescope_sim_setup s = {2, 4, seed};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&s, NULL, NULL, &r, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < 60; i++) {
        onescope_op op = {ONESCOPE_OP_IMPULSE, 1, {i == k ? changed : 5, 0, 0}};
        size_t n = i % 10 == 0 || i == k ? 1 : 0;
        assert_int_equal(onescope_replay_append_ops(r, &op, n, &err), ONESCOPE_OK);
    }
    return r;
}

static void test_replays_identical(void **state) {
    (void)state;
    onescope_replay *a = make_replay(7, 99, 0), *b = make_replay(7, 99, 0);
    onescope_diff_replay *d;
    onescope_error err;
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->different);
    assert_false(d->diverged);
    assert_int_equal(d->header_count, 0);
    assert_int_equal(d->steps_compared, 60);
    assert_false(d->has_input_step);
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

static void test_replays_one_operation(void **state) {
    (void)state;
    for (uint32_t k = 3; k < 60; k += 17) {
        onescope_replay *a = make_replay(7, k, 5), *b = make_replay(7, k, 9);
        onescope_diff_options o = {0};
        o.max_items = 1;
        onescope_diff_replay *d;
        onescope_error err;
        assert_int_equal(onescope_diff_replays(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
        assert_true(d->different);
        assert_true(d->diverged);
        assert_false(d->at_start);
        assert_true(d->step >= k);
        assert_int_equal(d->step, k); /* an impulse shows in the input stage itself */
        assert_int_equal(d->stage, ONESCOPE_SIM_STAGE_INPUT);
        assert_int_equal(d->steps_compared, k);
        assert_true(d->inputs_differ);
        assert_int_equal(d->op_index, 0);
        assert_true(d->has_op_a && d->has_op_b);
        assert_int_equal(d->op_a.value[0], 5);
        assert_int_equal(d->op_b.value[0], 9);
        assert_true(d->has_input_step);
        assert_int_equal(d->first_input_step, k);
        assert_int_equal(d->value_count, 1); /* bounded by max_items, ... */
        assert_true(d->value_total >= 1);    /* ... the count is whole */
        assert_int_equal(d->values[0].what, ONESCOPE_DIFF_VELOCITY);
        assert_int_equal(d->values[0].index, 1);
        assert_int_equal(d->values[0].axis, 0);
        assert_int_equal(d->values[0].b - d->values[0].a, 4);
        onescope_diff_replay_free(d);
        onescope_replay_free(a);
        onescope_replay_free(b);
    }
}

static void test_replays_setup(void **state) {
    (void)state;
    onescope_replay *a = make_replay(7, 99, 0), *b = make_replay(8, 99, 0);
    onescope_diff_replay *d;
    onescope_error err;
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_int_equal(d->header_count, 1);
    assert_string_equal(d->header[0].field, "seed");
    assert_string_equal(d->header[0].a, "00000007");
    assert_true(d->at_start);
    assert_true(d->value_total > 0);
    assert_string_equal(onescope_diff_what_name(d->values[0].what), "position");
    assert_string_equal(onescope_diff_what_name((onescope_diff_what)99), "");
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* A 3D cache of 3 entities x 20 frames from step 100, every pose a function of (f, e). */
static onescope_pose_cache *make_cache(double mpu) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 3, 20, NULL, &c, &err), ONESCOPE_OK);
    c->start_step = 100;
    c->metres_per_unit = mpu;
    for (uint32_t f = 0; f < 20; f++)
        for (uint32_t e = 0; e < 3; e++) {
            onescope_pose *p = &c->poses[f * 3 + e];
            p->position[0] = (float)f;
            p->position[1] = (float)e;
            p->position[2] = 1.5f;
            float h = 0.5f * sinf((float)f * 0.1f);
            p->rotation[0] = h;
            p->rotation[3] = sqrtf(1.0f - h * h);
        }
    return c;
}

static onescope_diff_entity *entity(onescope_diff_cache *d, uint64_t id) {
    for (uint32_t i = 0; i < d->entity_count; i++)
        if (d->entities[i].id == id) return &d->entities[i];
    fail_msg("no entity %llu", (unsigned long long)id);
    return NULL;
}

static void test_caches_perturbed(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0.01), *b = make_cache(0.01);
    b->poses[7 * 3 + 1].position[1] += 3.0f;  /* entity 2, frame 7: 3 units = 3 cm */
    b->poses[12 * 3 + 1].position[2] += 1.0f; /* ... and 1 cm at frame 12 */
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different && d->past_tolerance && d->exact);
    assert_int_equal(d->overlap_frames, 20);
    onescope_diff_entity *e = entity(d, 2);
    assert_true(fabs(e->max_distance - 0.03) < 1e-12);
    assert_int_equal(e->max_distance_step, 107);
    assert_true(fabs(e->rms_distance - sqrt((0.03 * 0.03 + 0.01 * 0.01) / 20)) < 1e-12);
    assert_int_equal(e->first_past_step, 107);
    assert_true(e->max_ulps > 0);
    assert_true(d->has_first);
    assert_int_equal(d->first_step, 107);
    assert_int_equal(d->first_id, 2);
    assert_false(entity(d, 1)->past_tolerance);
    assert_int_equal(entity(d, 1)->max_ulps, 0);
    onescope_diff_cache_free(d);
    /* A tolerance of 2 cm lets the 1 cm through and stops at the 3 cm. */
    onescope_diff_options o = {0};
    o.position_tolerance = 0.02;
    assert_int_equal(onescope_diff_caches(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->exact);
    assert_int_equal(entity(d, 2)->first_past_step, 107);
    o.position_tolerance = 0.05;
    onescope_diff_cache_free(d);
    assert_int_equal(onescope_diff_caches(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->different);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

static void test_caches_rotation_and_presence(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(1.0), *b = make_cache(1.0);
    for (uint32_t f = 0; f < 20; f++)
        for (int k = 0; k < 4; k++) b->poses[f * 3].rotation[k] = -b->poses[f * 3].rotation[k];
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->different); /* q and -q */
    assert_true(entity(d, 1)->max_angle == 0.0);
    onescope_diff_cache_free(d);
    /* 90 degrees about z at frame 4 of entity 3; entity 2 absent in b at frame 9. */
    onescope_pose *p = &b->poses[4 * 3 + 2];
    p->rotation[0] = p->rotation[1] = 0;
    p->rotation[2] = p->rotation[3] = sqrtf(0.5f);
    a->poses[4 * 3 + 2].rotation[0] = 0;
    a->poses[4 * 3 + 2].rotation[3] = 1;
    b->poses[9 * 3 + 1].position[0] = NAN;
    onescope_diff_options o = {0};
    o.angle_tolerance = 45;
    assert_int_equal(onescope_diff_caches(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_true(fabs(entity(d, 3)->max_angle - 90.0) < 1e-4);
    assert_int_equal(entity(d, 3)->max_angle_step, 104);
    assert_int_equal(entity(d, 2)->presence_flips, 1);
    assert_int_equal(d->first_step, 104);
    assert_int_equal(d->first_id, 3);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

static void test_caches_entities_and_steps(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0), *b = make_cache(0);
    b->entities[2].id = 40;
    b->start_step = 110; /* b's frame k is step 110 + k: overlap 110..119 */
    for (uint32_t f = 0; f + 10 < 20; f++)
        memcpy(&b->poses[f * 3], &a->poses[(f + 10) * 3], 3 * sizeof *b->poses);
    b->entities[2].id = 40;
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_false(d->past_tolerance);
    assert_true(d->unitless);
    assert_int_equal(d->overlap_frames, 10);
    assert_int_equal(d->overlap_first, 110);
    assert_int_equal(d->overlap_last, 119);
    assert_int_equal(d->only_in_a, 1);
    assert_int_equal(d->only_in_b, 1);
    assert_int_equal(d->entity_count, 4);
    assert_true(entity(d, 3)->in_a && !entity(d, 3)->in_b);
    assert_true(!entity(d, 40)->in_a && entity(d, 40)->in_b);
    assert_int_equal(entity(d, 1)->frames_compared, 10);
    onescope_diff_cache_free(d);
    b->start_step = 500; /* nothing in common */
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_int_equal(d->overlap_frames, 0);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

static void write_cache(const onescope_pose_cache *c, const char *path) {
    onescope_error err;
    assert_int_equal(onescope_pose_cache_write_file(c, path, &err), ONESCOPE_OK);
}

static void test_cache_files(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0.01), *b = make_cache(0.01);
    b->poses[5 * 3 + 2].position[0] += 2.0f;
    write_cache(a, "diff-a.ospc");
    write_cache(b, "diff-b.ospc");
    onescope_diff_cache *dm, *df;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &dm, &err), ONESCOPE_OK);
    assert_int_equal(onescope_diff_cache_files("diff-a.ospc", "diff-b.ospc", NULL, NULL, &df, &err),
                     ONESCOPE_OK);
    assert_int_equal(df->entity_count, dm->entity_count);
    assert_true(df->different && dm->different);
    for (uint32_t i = 0; i < dm->entity_count; i++) {
        assert_true(df->entities[i].max_distance == dm->entities[i].max_distance);
        assert_int_equal(df->entities[i].max_distance_step, dm->entities[i].max_distance_step);
        assert_true(df->entities[i].rms_distance == dm->entities[i].rms_distance);
    }
    onescope_diff_cache_free(dm);
    onescope_diff_cache_free(df);
    /* A bad pose past the frames compared is still found: the file's own error. */
    onescope_buffer buf;
    assert_int_equal(onescope_pose_cache_write(a, NULL, &buf, &err), ONESCOPE_OK);
    size_t at = buf.size - 28 + 4; /* the last pose's y */
    memset(buf.data + at, 0xFF, 4);
    test_write_file("diff-bad.ospc", buf.data, buf.size);
    onescope_error want;
    onescope_pose_cache *x;
    assert_int_not_equal(
        onescope_pose_cache_parse(buf.data, buf.size, "diff-bad.ospc", NULL, &x, &want),
        ONESCOPE_OK);
    df = (onescope_diff_cache *)&buf; /* overwritten with NULL on failure */
    assert_int_not_equal(
        onescope_diff_cache_files("diff-a.ospc", "diff-bad.ospc", NULL, NULL, &df, &err),
        ONESCOPE_OK);
    assert_null(df);
    assert_error_at(err, want.code, want.offset);
    assert_string_equal(err.input, "diff-bad.ospc");
    /* Truncated in the head. */
    test_write_file("diff-short.ospc", buf.data, 30);
    assert_int_equal(
        onescope_diff_cache_files("diff-short.ospc", "diff-a.ospc", NULL, NULL, &df, &err),
        ONESCOPE_E_TRUNCATED);
    assert_int_equal(
        onescope_diff_cache_files("no-such.ospc", "diff-a.ospc", NULL, NULL, &df, &err),
        ONESCOPE_E_IO);
    onescope_buffer_free(&buf);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
    remove("diff-a.ospc");
    remove("diff-b.ospc");
    remove("diff-bad.ospc");
    remove("diff-short.ospc");
}

static void test_replay_vs_ghost(void **state) {
    (void)state;
    onescope_replay *r = make_replay(3, 99, 0);
    onescope_ghost_options g = onescope_ghost_options_default();
    g.from = 10;
    g.frames = 30;
    g.offset[0] = 250;
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_ghost_create(r, &g, NULL, &c, &err), ONESCOPE_OK);
    onescope_diff_options o = {0};
    onescope_diff_cache *d;
    assert_int_equal(onescope_diff_replay_cache(r, c, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different); /* without the offset: 250 mm everywhere */
    assert_true(fabs(d->first_distance - 0.25) < 1e-12);
    assert_int_equal(d->first_step, 10);
    assert_false(d->compares_rotation);
    onescope_diff_cache_free(d);
    o.offset[0] = 250;
    assert_int_equal(onescope_diff_replay_cache(r, c, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->different);
    assert_int_equal(d->overlap_frames, 30);
    onescope_diff_cache_free(d);
    write_cache(c, "diff-ghost.ospc");
    assert_int_equal(onescope_diff_replay_cache_file(r, "diff-ghost.ospc", &o, NULL, &d, &err),
                     ONESCOPE_OK);
    assert_false(d->different);
    assert_int_equal(d->overlap_frames, 30);
    onescope_diff_cache_free(d);
    remove("diff-ghost.ospc");
    onescope_pose_cache_free(c);
    onescope_replay_free(r);
}

typedef struct pair {
    onescope_replay *ra, *rb;
    onescope_pose_cache *ca, *cb;
} pair;

static onescope_code walk_replays(const onescope_allocator *al, void *ctx) {
    pair *p = ctx;
    onescope_diff_replay *d;
    onescope_code rc = onescope_diff_replays(p->ra, p->rb, NULL, al, &d, NULL);
    onescope_diff_replay_free(d);
    return rc;
}

static onescope_code walk_caches(const onescope_allocator *al, void *ctx) {
    pair *p = ctx;
    onescope_diff_cache *d;
    onescope_code rc = onescope_diff_caches(p->ca, p->cb, NULL, al, &d, NULL);
    onescope_diff_cache_free(d);
    return rc;
}

static onescope_code walk_replay_cache(const onescope_allocator *al, void *ctx) {
    pair *p = ctx;
    onescope_diff_cache *d;
    onescope_code rc = onescope_diff_replay_cache(p->ra, p->ca, NULL, al, &d, NULL);
    onescope_diff_cache_free(d);
    return rc;
}

static void test_alloc_failures(void **state) {
    (void)state;
    pair p = {make_replay(7, 20, 5), make_replay(7, 20, 8), make_cache(1), make_cache(1)};
    assert_true(test_alloc_walk(walk_replays, &p) > 0);
    assert_true(test_alloc_walk(walk_caches, &p) > 0);
    onescope_pose_cache_free(p.ca);
    onescope_ghost_options g = onescope_ghost_options_default();
    g.frames = 5;
    onescope_error err;
    assert_int_equal(onescope_ghost_create(p.ra, &g, NULL, &p.ca, &err), ONESCOPE_OK);
    assert_true(test_alloc_walk(walk_replay_cache, &p) > 0);
    onescope_replay_free(p.ra);
    onescope_replay_free(p.rb);
    onescope_pose_cache_free(p.ca);
    onescope_pose_cache_free(p.cb);
}

static void test_arguments(void **state) {
    (void)state;
    onescope_error err;
    onescope_diff_replay *dr;
    onescope_diff_cache *dc;
    assert_int_equal(onescope_diff_replays(NULL, NULL, NULL, NULL, &dr, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_diff_caches(NULL, NULL, NULL, NULL, &dc, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_diff_cache_files(NULL, "x", NULL, NULL, &dc, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_diff_replay_cache(NULL, NULL, NULL, NULL, &dc, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_diff_replay_cache_file(NULL, NULL, NULL, NULL, &dc, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_diff_replay_free(NULL);
    onescope_diff_cache_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replays_identical),
        cmocka_unit_test(test_replays_one_operation),
        cmocka_unit_test(test_replays_setup),
        cmocka_unit_test(test_caches_perturbed),
        cmocka_unit_test(test_caches_rotation_and_presence),
        cmocka_unit_test(test_caches_entities_and_steps),
        cmocka_unit_test(test_cache_files),
        cmocka_unit_test(test_replay_vs_ghost),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
