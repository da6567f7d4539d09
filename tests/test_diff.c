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
        assert_false(d->values[0].world);
        assert_string_equal(d->values[0].name, "velocity.x");
        assert_string_equal(d->values[0].unit, "mm/step");
        assert_int_equal(d->values[0].index, 1);
        assert_int_equal(d->values[0].entity_id, 1);
        assert_true(d->values[0].b - d->values[0].a == 4);
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
    assert_string_equal(d->values[0].name, "position.x");
    assert_false(d->values[0].world);
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

/* The same steps from a start snapshot whose host step is `host` (the world otherwise the
 * setup's after 5 steps). */
static onescope_replay *make_replay_from(uint64_t host) {
    onescope_sim_setup setup = {2, 4, 7};
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    onescope_sim *s;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &s, &err), ONESCOPE_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(onescope_sim_step(s, NULL, 0, &err), 0);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(s, snap, sizeof snap);
    onescope_sim_free(s);
    for (int k = 0; k < 8; k++) snap[k] = (uint8_t)(host >> (8 * k)); /* the host step prefix */
    onescope_replay *r;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_set_start_snapshot(r, snap, n, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < 60; i++) {
        onescope_op op = {ONESCOPE_OP_IMPULSE, 1, {5, 0, 0}};
        assert_int_equal(onescope_replay_append_ops(r, &op, i % 10 == 0 ? 1 : 0, &err),
                         ONESCOPE_OK);
    }
    return r;
}

/* Start steps that differ are a header item; the worlds (snapshots past their host step)
 * are the same at every step. */
static void test_replays_start_steps(void **state) {
    (void)state;
    onescope_replay *a = make_replay_from(5), *b = make_replay_from(1005);
    onescope_diff_replay *d;
    onescope_error err;
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_false(d->diverged);
    assert_int_equal(d->steps_compared, 60);
    bool seen = false;
    for (uint32_t i = 0; i < d->header_count; i++)
        if (strcmp(d->header[i].field, "start_step") == 0) {
            seen = true;
            assert_string_equal(d->header[i].a, "5");
            assert_string_equal(d->header[i].b, "1005");
        }
    assert_true(seen);
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* 2D, 4 bodies (fields when linked), 40 steps: gravity g at step 10, a spawn at step 20 when
 * spawn is set, an impulse on body 2 of dx at step 30. */
static onescope_replay *make_world_replay(bool linked, int32_t g, bool spawn, int32_t dx) {
    onescope_sim_setup s = {2, 4, 11};
    onescope_link_block link = {3, 0, 0};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&s, linked ? &link : NULL, NULL, &r, &err),
                     ONESCOPE_OK);
    for (uint32_t i = 0; i < 40; i++) {
        onescope_op op = {0, 0, {0, 0, 0}};
        if (i == 10) op = (onescope_op){ONESCOPE_OP_GRAVITY, 0, {g, 0, 0}};
        if (i == 20 && spawn) op = (onescope_op){ONESCOPE_OP_SPAWN, 0, {500, 500, 0}};
        if (i == 30) op = (onescope_op){ONESCOPE_OP_IMPULSE, 2, {dx, 0, 0}};
        assert_int_equal(onescope_replay_append_ops(r, &op, op.code != 0, &err), ONESCOPE_OK);
    }
    return r;
}

static onescope_diff_replay *diff_of(onescope_replay *a, onescope_replay *b, uint32_t max) {
    onescope_diff_options o = {0};
    o.max_items = max;
    onescope_diff_replay *d;
    onescope_error err;
    assert_int_equal(onescope_diff_replays(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
    onescope_replay_free(a);
    onescope_replay_free(b);
    return d;
}

/* The world's own values: a gravity that differs is named in the input stage, before any body
 * moves; a spawn in one world only is a body count; with fields, the bodies' values come first
 * and the fields' elements after them. */
static void test_replays_world_values(void **state) {
    (void)state;
    onescope_diff_replay *d =
        diff_of(make_world_replay(false, -3, false, 5), make_world_replay(false, -5, false, 5), 0);
    assert_true(d->diverged);
    assert_int_equal(d->step, 10);
    assert_int_equal(d->stage, ONESCOPE_SIM_STAGE_INPUT);
    assert_int_equal(d->value_total, 1);
    assert_true(d->values[0].world);
    assert_string_equal(d->values[0].name, "gravity");
    assert_string_equal(d->values[0].unit, "mm/step^2");
    assert_true(d->values[0].a == -3 && d->values[0].b == -5);
    assert_int_equal(d->values[0].index, 0);
    assert_false(d->entity_counts_differ);
    onescope_diff_replay_free(d);

    d = diff_of(make_world_replay(false, -3, false, 5), make_world_replay(false, -3, true, 5), 0);
    assert_true(d->diverged);
    assert_int_equal(d->step, 20);
    assert_int_equal(d->stage, ONESCOPE_SIM_STAGE_INPUT);
    assert_true(d->entity_counts_differ);
    assert_int_equal(d->entity_count_a, 4);
    assert_int_equal(d->entity_count_b, 5);
    assert_int_equal(d->value_total, 0); /* the four common bodies agree */
    onescope_diff_replay_free(d);

    d = diff_of(make_world_replay(true, -3, false, 5), make_world_replay(true, -3, false, 400),
                1000);
    assert_true(d->diverged);
    assert_int_equal(d->step, 30); /* the impulse shows in the input stage: velocities only */
    assert_int_equal(d->value_total, 1);
    assert_string_equal(d->values[0].name, "velocity.x");
    onescope_diff_replay_free(d);
    /* start worlds of two seeds: the bodies stand elsewhere, and so do the fields */
    onescope_sim_setup s1 = {2, 4, 11}, s2 = {2, 4, 12};
    onescope_link_block link = {3, 0, 0};
    onescope_replay *a, *b;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&s1, &link, NULL, &a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_create(&s2, &link, NULL, &b, &err), ONESCOPE_OK);
    d = diff_of(a, b, 2000);
    assert_true(d->at_start);
    assert_int_equal(d->value_count, d->value_total);
    bool world = false, fields = false;
    for (uint32_t i = 0; i < d->value_count; i++) {
        const onescope_diff_value *v = &d->values[i];
        if (!v->world) {
            assert_false(world); /* no body after a world value */
            continue;
        }
        world = true;
        fields |= strcmp(v->name, "density") == 0 || strcmp(v->name, "occupancy") == 0;
        assert_true(v->index < (strcmp(v->name, "density") == 0 ? 81u : 128u));
    }
    assert_true(fields);
    onescope_diff_replay_free(d);
}

/* Recorded hash rows that differ where the worlds agree: different (one of them fails
 * verify); one with rows and one without: a header item. */
static void test_replays_hash_rows(void **state) {
    (void)state;
    onescope_replay *a = make_replay(7, 99, 0), *b = make_replay(7, 99, 0);
    onescope_error err;
    assert_int_equal(onescope_replay_compute_hash_rows(a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_compute_hash_rows(b, &err), ONESCOPE_OK);
    onescope_diff_replay *d;
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_false(d->different);
    assert_false(d->hash_rows_differ);
    onescope_diff_replay_free(d);
    for (uint32_t row = 0; row <= 60; row += 30) {
        uint64_t rows[61];
        memcpy(rows, onescope_replay_hash_rows(b), sizeof rows);
        rows[row] ^= 1;
        assert_int_equal(onescope_replay_set_hash_rows(b, rows, 61, &err), ONESCOPE_OK);
        assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
        assert_true(d->different);
        assert_false(d->diverged);
        assert_int_equal(d->header_count, 0);
        assert_true(d->hash_rows_differ);
        assert_int_equal(d->hash_row, row);
        assert_true(d->hash_a == onescope_replay_hash_rows(a)[row]);
        assert_true(d->hash_b == rows[row]);
        onescope_diff_replay_free(d);
        rows[row] ^= 1;
        assert_int_equal(onescope_replay_set_hash_rows(b, rows, 61, &err), ONESCOPE_OK);
    }
    assert_int_equal(onescope_replay_set_hash_rows(b, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->different);
    assert_false(d->hash_rows_differ);
    assert_int_equal(d->header_count, 1);
    assert_string_equal(d->header[0].field, "hash_rows");
    assert_string_equal(d->header[0].a, "1");
    assert_string_equal(d->header[0].b, "0");
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* Each side's distance uses its own metres per unit: 1 m and 1000 mm are the same place. */
static void test_caches_own_scales(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(1.0), *b = make_cache(0.001);
    for (size_t i = 0; i < 60; i++)
        for (int k = 0; k < 3; k++) b->poses[i].position[k] *= 1000.0f;
    onescope_diff_options o = {0};
    o.position_tolerance = 1e-6;
    for (int swap = 0; swap < 2; swap++) {
        onescope_diff_cache *d;
        onescope_error err;
        assert_int_equal(onescope_diff_caches(swap ? b : a, swap ? a : b, &o, NULL, &d, &err),
                         ONESCOPE_OK);
        assert_false(d->unitless);
        assert_false(d->past_tolerance);
        assert_true(d->header_count >= 1); /* metres_per_unit is reported */
        for (uint32_t i = 0; i < d->entity_count; i++)
            assert_true(d->entities[i].max_distance < 1e-6);
        onescope_diff_cache_free(d);
    }
    /* Scales 1 and 2 over the same units: the distance is |p| (entity 1 at frame 19:
     * (19, 0, 1.5), so sqrt(361 + 2.25) m). */
    onescope_pose_cache *c = make_cache(2.0);
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, c, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(fabs(entity(d, 1)->max_distance - sqrt(361 + 2.25)) < 1e-9);
    assert_int_equal(entity(d, 1)->max_distance_step, 119);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
    onescope_pose_cache_free(c);
}

/* Ranges that share exactly one step: that frame, and only it, is compared. */
static void test_caches_one_frame_overlap(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0.01), *b = make_cache(0.01);
    b->start_step = 119; /* a: 100..119, b: 119..138 */
    for (uint32_t e = 0; e < 3; e++) b->poses[e] = a->poses[19 * 3 + e];
    b->poses[1].position[2] += 1.0f; /* 1 cm at step 119 */
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->overlap_frames, 1);
    assert_int_equal(d->overlap_first, 119);
    assert_int_equal(d->overlap_last, 119);
    assert_true(d->has_first);
    assert_int_equal(d->first_step, 119);
    assert_int_equal(d->first_id, 2);
    for (uint32_t i = 0; i < d->entity_count; i++)
        assert_int_equal(d->entities[i].frames_compared, 1);
    assert_true(fabs(entity(d, 2)->max_distance - 0.01) < 1e-9);
    /* the RMS of one frame is that frame's distance (seed-4 survivor diff_cache.c:220) */
    assert_true(fabs(entity(d, 2)->rms_distance - 0.01) < 1e-9);
    assert_true(entity(d, 1)->rms_distance == 0.0);
    onescope_diff_cache_free(d);
    /* One step apart: no overlap, and that is "different". */
    b->start_step = 120;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->overlap_frames, 0);
    assert_true(d->different);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

/* Metres per unit so large that the distance overflows: past every tolerance, never the same;
 * also through files and the streamed reader. Equal poses at one scale stay 0 apart, however
 * large the scale (the fuzzer's diff a a, which once said "differs, distance inf"). */
static void test_caches_not_finite(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(1e308), *b = make_cache(1e308);
    b->poses[7].position[1] += 1.0f; /* frame 2, the second entity: 1e308 m away, squared inf */
    onescope_diff_options o = {0};
    for (int t = 0; t < 2; t++) {
        o.position_tolerance = t ? 1e300 : 0;
        onescope_diff_cache *d;
        onescope_error err;
        assert_int_equal(onescope_diff_caches(a, a, &o, NULL, &d, &err), ONESCOPE_OK);
        assert_false(d->different || d->past_tolerance || d->has_first);
        assert_true(entity(d, 1)->max_distance == 0.0);
        onescope_diff_cache_free(d);
        assert_int_equal(onescope_diff_caches(a, b, &o, NULL, &d, &err), ONESCOPE_OK);
        assert_true(d->different);
        assert_true(d->past_tolerance);
        assert_true(d->has_first);
        assert_true(isinf(d->first_distance));
        assert_true(isinf(entity(d, d->first_id)->max_distance));
        onescope_diff_cache_free(d);
    }
    write_cache(a, "diff-huge-a.ospc");
    write_cache(b, "diff-huge-b.ospc");
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(
        onescope_diff_cache_files("diff-huge-a.ospc", "diff-huge-b.ospc", &o, NULL, &d, &err),
        ONESCOPE_OK);
    assert_true(d->different && d->past_tolerance);
    onescope_diff_cache_free(d);
    remove("diff-huge-a.ospc");
    remove("diff-huge-b.ospc");
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

/* A tolerance that is NaN, negative or infinite is an argument error in every cache diff. */
static void test_bad_tolerances(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0.01);
    onescope_replay *r = make_replay(3, 99, 0);
    write_cache(a, "diff-tol.ospc");
    const double bad[] = {NAN, -1.0, -0.5e-300, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int which = 0; which < 2; which++) {
            onescope_diff_options o = {0};
            if (which)
                o.angle_tolerance = bad[i];
            else
                o.position_tolerance = bad[i];
            onescope_diff_cache *d = (onescope_diff_cache *)&o;
            onescope_error err;
            assert_int_equal(onescope_diff_caches(a, a, &o, NULL, &d, &err), ONESCOPE_E_ARGUMENT);
            assert_null(d);
            assert_string_equal(err.field, which ? "angle_tolerance" : "position_tolerance");
            assert_int_equal(
                onescope_diff_cache_files("diff-tol.ospc", "diff-tol.ospc", &o, NULL, &d, &err),
                ONESCOPE_E_ARGUMENT);
            assert_int_equal(onescope_diff_replay_cache(r, a, &o, NULL, &d, &err),
                             ONESCOPE_E_ARGUMENT);
            assert_int_equal(
                onescope_diff_replay_cache_file(r, "diff-tol.ospc", &o, NULL, &d, &err),
                ONESCOPE_E_ARGUMENT);
        }
    remove("diff-tol.ospc");
    onescope_pose_cache_free(a);
    onescope_replay_free(r);
}

/* Steps at the top of int64_t: a cache whose last step is 2^63 - 1 compares (no overflow,
 * UBSan quiet); one past it is refused by the diff as by the parser. */
static void test_caches_last_step(void **state) {
    (void)state;
    onescope_pose_cache *a = make_cache(0.01), *b = make_cache(0.01);
    a->start_step = b->start_step = INT64_MAX - 19;
    b->poses[19 * 3].position[0] += 1.0f;
    onescope_diff_cache *d;
    onescope_error err;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->last_step_a == INT64_MAX);
    assert_true(d->overlap_last == INT64_MAX);
    assert_int_equal(d->overlap_frames, 20);
    assert_true(d->first_step == INT64_MAX);
    onescope_diff_cache_free(d);
    write_cache(a, "diff-top-a.ospc");
    write_cache(b, "diff-top-b.ospc");
    assert_int_equal(
        onescope_diff_cache_files("diff-top-a.ospc", "diff-top-b.ospc", NULL, NULL, &d, &err),
        ONESCOPE_OK);
    assert_true(d->first_step == INT64_MAX);
    onescope_diff_cache_free(d);
    b->start_step = INT64_MAX - 18; /* its last frame would be step 2^63 */
    onescope_diff_options o = {0};
    o.name_b = "b.ospc";
    assert_int_equal(onescope_diff_caches(a, b, &o, NULL, &d, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "b.ospc");
    assert_string_equal(err.field, "start step");
    /* The same file through the streamed reader: the parser's own refusal. */
    onescope_buffer buf;
    assert_int_equal(onescope_pose_cache_write(a, NULL, &buf, &err), ONESCOPE_OK);
    int64_t top = INT64_MAX;
    for (int k = 0; k < 8; k++) buf.data[20 + k] = (uint8_t)((uint64_t)top >> (8 * k));
    test_write_file("diff-top-b.ospc", buf.data, buf.size);
    onescope_buffer_free(&buf);
    assert_int_equal(
        onescope_diff_cache_files("diff-top-a.ospc", "diff-top-b.ospc", NULL, NULL, &d, &err),
        ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 20);
    /* A replay whose host steps pass 2^63 - 1 against a cache: refused, not wrapped. */
    onescope_replay *r = make_replay_from((uint64_t)INT64_MAX - 10);
    assert_int_equal(onescope_diff_replay_cache(r, a, NULL, NULL, &d, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "start step");
    onescope_replay_free(r);
    remove("diff-top-a.ospc");
    remove("diff-top-b.ospc");
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
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

/* The streamed comparison of two files (seed-3 survivor diff_cache.c:395: a side's frame
 * buffer used unchecked). */
static onescope_code walk_cache_files(const onescope_allocator *al, void *ctx) {
    (void)ctx;
    onescope_diff_options o = {0};
    o.parse = onescope_parse_options_default();
    o.parse.allocator = al; /* the streams' buffers too */
    onescope_diff_cache *d = NULL;
    onescope_code rc = onescope_diff_cache_files("walk-a.ospc", "walk-b.ospc", &o, al, &d, NULL);
    onescope_diff_cache_free(d);
    return rc;
}

static void test_alloc_failures(void **state) {
    (void)state;
    pair p = {make_replay(7, 20, 5), make_replay(7, 20, 8), make_cache(1), make_cache(1)};
    assert_true(test_alloc_walk(walk_replays, &p) > 0);
    assert_true(test_alloc_walk(walk_caches, &p) > 0);
    onescope_error werr;
    onescope_buffer wb;
    assert_int_equal(onescope_pose_cache_write(p.ca, NULL, &wb, &werr), ONESCOPE_OK);
    test_write_file("walk-a.ospc", wb.data, wb.size);
    onescope_buffer_free(&wb);
    assert_int_equal(onescope_pose_cache_write(p.cb, NULL, &wb, &werr), ONESCOPE_OK);
    test_write_file("walk-b.ospc", wb.data, wb.size);
    onescope_buffer_free(&wb);
    assert_true(test_alloc_walk(walk_cache_files, NULL) > 2);
    remove("walk-a.ospc");
    remove("walk-b.ospc");
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
        cmocka_unit_test(test_replays_start_steps),
        cmocka_unit_test(test_replays_world_values),
        cmocka_unit_test(test_replays_hash_rows),
        cmocka_unit_test(test_caches_own_scales),
        cmocka_unit_test(test_caches_one_frame_overlap),
        cmocka_unit_test(test_caches_not_finite),
        cmocka_unit_test(test_bad_tolerances),
        cmocka_unit_test(test_caches_last_step),
        cmocka_unit_test(test_replay_vs_ghost),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
