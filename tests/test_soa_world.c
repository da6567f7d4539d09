/* The Box3D SoA world: lanes, determinism, joints, write lanes, events, removal, recording,
 * refusals and threads. Without Box3D the suite reports SKIPPED (exit 77). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define DT (1.0f / 60.0f)
#define SUB 4
#define PI_F 3.14159265358979f

static onescope_soa_world *make_world(float gy, uint32_t cap, uint32_t jcap) {
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.gravity[1] = gy;
    d.body_capacity = cap;
    d.joint_capacity = jcap;
    onescope_soa_world *w = NULL;
    onescope_error err;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_OK);
    assert_non_null(w);
    return w;
}

static uint32_t add(onescope_soa_world *w, const onescope_soa_body_def *b) {
    uint32_t i = UINT32_MAX;
    onescope_error err;
    onescope_code rc = onescope_soa_world_add_body(w, b, &i, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("add_body: %s", line);
    }
    return i;
}

static uint32_t add_joint(onescope_soa_world *w, const onescope_soa_joint_def *j) {
    uint32_t i = UINT32_MAX;
    onescope_error err;
    onescope_code rc = onescope_soa_world_add_joint(w, j, &i, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("add_joint: %s", line);
    }
    return i;
}

/* A static slab whose top face is at y = top. */
static uint32_t slab(onescope_soa_world *w, float top) {
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = 20.0f, b.size[1] = 0.5f, b.size[2] = 20.0f;
    b.position[1] = top - 0.5f;
    return add(w, &b);
}

static uint32_t sphere(onescope_soa_world *w, float x, float y, float z, float r) {
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.position[0] = x, b.position[1] = y, b.position[2] = z;
    b.size[0] = r;
    return add(w, &b);
}

static void step(onescope_soa_world *w, int n) {
    onescope_error err;
    for (int k = 0; k < n; k++) {
        onescope_code rc = onescope_soa_world_step(w, DT, SUB, &err);
        if (rc != ONESCOPE_OK) {
            char line[512];
            onescope_error_format(&err, line, sizeof line);
            fail_msg("step: %s", line);
        }
    }
}

static onescope_soa_view view_of(onescope_soa_world *w) {
    onescope_soa_view v;
    onescope_error err;
    assert_int_equal(onescope_soa_world_view(w, &v, &err), ONESCOPE_OK);
    return v;
}

/* Every state lane of bodies and joints, concatenated, for byte comparisons. */
static size_t snapshot(onescope_soa_world *w, unsigned char *out, size_t cap) {
    onescope_soa_view v = view_of(w);
    const float *lanes[] = {v.position_x,        v.position_y,         v.position_z,
                            v.rotation_x,        v.rotation_y,         v.rotation_z,
                            v.rotation_w,        v.linear_velocity_x,  v.linear_velocity_y,
                            v.linear_velocity_z, v.angular_velocity_x, v.angular_velocity_y,
                            v.angular_velocity_z};
    const float *jl[] = {v.joint_angle,
                         v.joint_frame_x,
                         v.joint_frame_y,
                         v.joint_frame_z,
                         v.joint_frame_w,
                         v.joint_rotation_x,
                         v.joint_rotation_y,
                         v.joint_rotation_z,
                         v.joint_rotation_w,
                         v.joint_angular_velocity_x,
                         v.joint_angular_velocity_y,
                         v.joint_angular_velocity_z};
    size_t n = 0;
    for (size_t k = 0; k < sizeof lanes / sizeof lanes[0]; k++) {
        size_t bytes = v.live->count * sizeof(float);
        assert_true(n + bytes <= cap);
        memcpy(out + n, lanes[k], bytes);
        n += bytes;
    }
    for (size_t k = 0; k < sizeof jl / sizeof jl[0]; k++) {
        size_t bytes = v.live->joint_count * sizeof(float);
        assert_true(n + bytes <= cap);
        memcpy(out + n, jl[k], bytes);
        n += bytes;
    }
    return n;
}

/* ---- gravity, rest, lanes ---- */

static void test_gravity_and_rest(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 8, 0);
    slab(w, 0.0f);
    uint32_t s = sphere(w, 0.0f, 2.0f, 0.0f, 0.25f);
    onescope_soa_view v = view_of(w); /* held for the whole test */
    assert_int_equal(v.live->count, 2);
    assert_float_equal(v.position_y[s], 2.0f, 0.0f);
    assert_float_equal(v.linear_velocity_y[s], 0.0f, 0.0f);
    step(w, 1);
    /* one step of free fall: v = g dt (Box3D integrates velocity first) */
    assert_float_equal(v.linear_velocity_y[s], -9.81f * DT, 1e-5);
    assert_true(v.position_y[s] < 2.0f);
    float prev = v.position_y[s];
    step(w, 10);
    assert_true(v.position_y[s] < prev);
    step(w, 300);
    assert_float_equal(v.position_y[s], 0.25f, 0.01f);
    assert_true(fabsf(v.linear_velocity_y[s]) < 0.01f);
    /* the slab never moved */
    assert_float_equal(v.position_y[0], -0.5f, 0.0f);
    onescope_soa_world_free(w);
}

static void test_lane_addresses_stable(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 16, 4);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    onescope_soa_view a = view_of(w);
    assert_int_equal(a.live->count, 2);
    assert_int_equal(a.live->step, 0);
    step(w, 5);
    assert_int_equal(a.live->step, 5); /* read live: the view taken before the steps */
    sphere(w, 2.0f, 1.0f, 0.0f, 0.25f);
    assert_int_equal(a.live->count, 3); /* ... and before the body was added */
    step(w, 5);
    onescope_soa_view b = view_of(w);
    assert_ptr_equal(a.live, b.live);
    assert_int_equal(a.live->count, 3);
    assert_int_equal(a.live->step, 10);
    assert_ptr_equal(a.stable_id, b.stable_id);
    assert_ptr_equal(a.kind, b.kind);
    assert_ptr_equal(a.position_x, b.position_x);
    assert_ptr_equal(a.position_y, b.position_y);
    assert_ptr_equal(a.rotation_w, b.rotation_w);
    assert_ptr_equal(a.linear_velocity_z, b.linear_velocity_z);
    assert_ptr_equal(a.angular_velocity_x, b.angular_velocity_x);
    assert_ptr_equal(a.force_x, b.force_x);
    assert_ptr_equal(a.torque_z, b.torque_z);
    assert_ptr_equal(a.joint_angle, b.joint_angle);
    assert_int_equal(b.stable_id[0], 1);
    assert_int_equal(b.stable_id[2], 3);
    onescope_soa_world_free(w);
}

/* ---- determinism ---- */

/* 25 spheres over a slab, thrown at each other. delta != 0 nudges sphere 6's x by one ulp. */
static onescope_soa_world *pile(float delta) {
    onescope_soa_world *w = make_world(-9.81f, 32, 0);
    slab(w, 0.0f);
    for (int k = 0; k < 25; k++) {
        onescope_soa_body_def b = onescope_soa_body_def_default();
        b.size[0] = 0.3f;
        b.position[0] = (float)(k % 5) * 0.7f - 1.4f;
        b.position[1] = 1.0f + (float)(k / 5) * 0.65f;
        b.position[2] = (float)((k * 7) % 5) * 0.1f - 0.2f;
        b.linear_velocity[0] = (float)((k % 3) - 1) * 2.0f;
        b.linear_velocity[2] = (float)((k % 2) * 2 - 1) * 1.5f;
        b.restitution = 0.3f;
        if (k == 6)
            b.position[0] = delta == 0.0f ? b.position[0] : nextafterf(b.position[0], 10.0f);
        add(w, &b);
    }
    return w;
}

enum { SNAP_CAP = 64 * 1024 };

static void test_two_runs_byte_equal(void **state) {
    (void)state;
    onescope_soa_world *a = pile(0.0f);
    onescope_soa_world *b = pile(0.0f);
    unsigned char *sa = malloc(SNAP_CAP), *sb = malloc(SNAP_CAP);
    for (int checkpoint = 0; checkpoint < 6; checkpoint++) {
        step(a, 20);
        step(b, 20);
        size_t na = snapshot(a, sa, SNAP_CAP), nb = snapshot(b, sb, SNAP_CAP);
        assert_int_equal(na, nb);
        assert_memory_equal(sa, sb, na);
    }
    /* the scene really moved: spheres collided and came to the slab */
    onescope_soa_view v = view_of(a);
    int low = 0;
    for (uint32_t i = 1; i < v.live->count; i++) low += v.position_y[i] < 1.0f;
    assert_true(low > 10);
    free(sa);
    free(sb);
    onescope_soa_world_free(a);
    onescope_soa_world_free(b);
}

static void test_one_ulp_diverges(void **state) {
    (void)state;
    onescope_soa_world *a = pile(0.0f);
    onescope_soa_world *b = pile(1.0f);
    onescope_soa_view va = view_of(a), vb = view_of(b);
    assert_true(va.position_x[7] != vb.position_x[7]); /* sphere 6 is body 7 */
    step(a, 120);
    step(b, 120);
    /* the difference spread beyond the nudged body */
    int others = 0;
    for (uint32_t i = 1; i < va.live->count; i++)
        if (i != 7 && (memcmp(&va.position_x[i], &vb.position_x[i], sizeof(float)) != 0 ||
                       memcmp(&va.position_y[i], &vb.position_y[i], sizeof(float)) != 0 ||
                       memcmp(&va.position_z[i], &vb.position_z[i], sizeof(float)) != 0))
            others++;
    assert_true(others > 0);
    onescope_soa_world_free(a);
    onescope_soa_world_free(b);
}

/* ---- refusals ---- */

typedef void (*body_mutator)(onescope_soa_body_def *b);
#define MUT(name, stmt)                                                                            \
    static void name(onescope_soa_body_def *b) {                                                   \
        stmt;                                                                                      \
    }
MUT(m_kind0, b->kind = 0)
MUT(m_kind9, b->kind = 9)
MUT(m_pos_nan, b->position[1] = NAN)
MUT(m_pos_far, b->position[0] = 1e9f)
MUT(m_rot_zero, memset(b->rotation, 0, sizeof b->rotation))
MUT(m_rot_inf, b->rotation[2] = INFINITY)
MUT(m_vel_nan, b->linear_velocity[2] = NAN)
MUT(m_avel_inf, b->angular_velocity[0] = -INFINITY)
MUT(m_radius_neg, b->size[0] = -1.0f)
MUT(m_radius_zero, b->size[0] = 0.0f)
MUT(m_unused_size_nan, b->size[2] = NAN)
MUT(m_capsule_len0, (b->kind = ONESCOPE_SOA_CAPSULE, b->size[1] = 0.0f))
MUT(m_box_z0, (b->kind = ONESCOPE_SOA_BOX, b->size[2] = 0.0f))
MUT(m_density0, b->density = 0.0f)
MUT(m_density_nan, b->density = NAN)
MUT(m_density_tiny, b->density = 1e-21f) /* the mass of a small body near underflow */
MUT(m_friction_neg, b->friction = -0.1f)
MUT(m_restitution_nan, b->restitution = NAN)
MUT(m_rolling_neg, b->rolling_resistance = -1.0f)
MUT(m_parent_self, b->parent = 2)
MUT(m_parent_neg, b->parent = -2)
MUT(m_static_moving, (b->kind = ONESCOPE_SOA_STATIC_BOX, b->linear_velocity[0] = 1.0f))

static void test_body_refusals(void **state) {
    (void)state;
    struct {
        body_mutator m;
        onescope_code code;
        const char *field;
    } cases[] = {
        {m_kind0, ONESCOPE_E_RANGE, "kind"},
        {m_kind9, ONESCOPE_E_RANGE, "kind"},
        {m_pos_nan, ONESCOPE_E_NOT_FINITE, "position[1]"},
        {m_pos_far, ONESCOPE_E_RANGE, "position[0]"},
        {m_rot_zero, ONESCOPE_E_RANGE, "rotation"},
        {m_rot_inf, ONESCOPE_E_NOT_FINITE, "rotation[2]"},
        {m_vel_nan, ONESCOPE_E_NOT_FINITE, "linear_velocity[2]"},
        {m_avel_inf, ONESCOPE_E_NOT_FINITE, "angular_velocity[0]"},
        {m_radius_neg, ONESCOPE_E_RANGE, "size[0]"},
        {m_radius_zero, ONESCOPE_E_RANGE, "size[0]"},
        {m_unused_size_nan, ONESCOPE_E_NOT_FINITE, "size[2]"},
        {m_capsule_len0, ONESCOPE_E_RANGE, "size[1]"},
        {m_box_z0, ONESCOPE_E_RANGE, "size[2]"},
        {m_density0, ONESCOPE_E_RANGE, "density"},
        {m_density_nan, ONESCOPE_E_NOT_FINITE, "density"},
        {m_density_tiny, ONESCOPE_E_RANGE, "density"},
        {m_friction_neg, ONESCOPE_E_RANGE, "friction"},
        {m_restitution_nan, ONESCOPE_E_NOT_FINITE, "restitution"},
        {m_rolling_neg, ONESCOPE_E_RANGE, "rolling_resistance"},
        {m_parent_self, ONESCOPE_E_RANGE, "parent"},
        {m_parent_neg, ONESCOPE_E_RANGE, "parent"},
        {m_static_moving, ONESCOPE_E_RANGE, "linear_velocity[0]"},
    };
    onescope_soa_world *w = make_world(-9.81f, 3, 1);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    unsigned char before[4096], after[4096];
    size_t nb = snapshot(w, before, sizeof before);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        onescope_soa_body_def b = onescope_soa_body_def_default();
        cases[k].m(&b);
        onescope_error err;
        uint32_t idx = 77;
        onescope_code rc = onescope_soa_world_add_body(w, &b, &idx, &err);
        if (rc != cases[k].code || strcmp(err.field, cases[k].field) != 0)
            fail_msg("case %zu: code %d field '%s', wanted %d '%s'", k, rc, err.field,
                     cases[k].code, cases[k].field);
        assert_string_equal(err.input, "soa_world_add_body");
        assert_true(err.expected[0] != '\0');
        assert_true(err.found[0] != '\0');
        assert_int_equal(idx, 77);
        assert_int_equal(view_of(w).live->count, 2);
    }
    assert_int_equal(snapshot(w, after, sizeof after), nb);
    assert_memory_equal(before, after, nb);
    /* the message a user sees */
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.size[0] = -1.0f;
    onescope_error err;
    char line[512];
    assert_int_equal(onescope_soa_world_add_body(w, &b, NULL, &err), ONESCOPE_E_RANGE);
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(
        line, "soa_world_add_body: size[0]: expected a sphere radius in 0.001..1000 m, found -1");
    /* capacity full */
    sphere(w, 3.0f, 1.0f, 0.0f, 0.25f);
    b = onescope_soa_body_def_default();
    assert_int_equal(onescope_soa_world_add_body(w, &b, NULL, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "body_capacity");
    assert_int_equal(onescope_soa_world_add_body(NULL, &b, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_soa_world_add_body(w, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    onescope_soa_world_free(w);
}

static void test_world_and_step_refusals(void **state) {
    (void)state;
    onescope_error err;
    onescope_soa_world *w = (onescope_soa_world *)&err; /* must be set to NULL on failure */
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.body_capacity = 0;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_RANGE);
    assert_null(w);
    assert_string_equal(err.field, "body_capacity");
    d = onescope_soa_world_def_default();
    d.gravity[2] = NAN;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.field, "gravity[2]");
    d = onescope_soa_world_def_default();
    d.joint_capacity = ONESCOPE_SOA_MAX_CAPACITY + 1;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_RANGE);
    /* a zeroed def is not the defaults (gravity, capacities): refused by its struct's name */
    memset(&d, 0, sizeof d);
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "onescope_soa_world_def");
    assert_null(w);
    assert_int_equal(onescope_soa_world_create(NULL, NULL, &w, &err), ONESCOPE_E_ARGUMENT);

    w = make_world(-9.81f, 4, 1);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    assert_int_equal(onescope_soa_world_step(w, 0.0f, 4, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "dt");
    assert_int_equal(onescope_soa_world_step(w, -DT, 4, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_soa_world_step(w, NAN, 4, &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(onescope_soa_world_step(w, INFINITY, 4, &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(onescope_soa_world_step(w, DT, 0, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "substeps");
    assert_int_equal(onescope_soa_world_step(w, DT, 65, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_soa_world_step(NULL, DT, 4, &err), ONESCOPE_E_ARGUMENT);
    onescope_soa_view v = view_of(w);
    assert_int_equal(v.live->step, 0);
    assert_float_equal(v.position_y[0], 1.0f, 0.0f);
    assert_int_equal(onescope_soa_world_view(w, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_soa_world_view(NULL, &v, &err), ONESCOPE_E_ARGUMENT);
    onescope_soa_world_free(w);
}

static void test_joint_refusals(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 4, 1);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    onescope_soa_joint_def ok = onescope_soa_joint_def_default();
    ok.body_a = 0, ok.body_b = 1;
    ok.anchor[1] = 1.0f;
    struct {
        onescope_soa_joint_def d;
        onescope_code code;
        const char *field;
    } cases[16];
    int n = 0;
    cases[n].d = ok, cases[n].d.kind = 4, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "kind";
    cases[n].d = ok, cases[n].d.body_a = -1, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "body_a";
    cases[n].d = ok, cases[n].d.body_b = 2, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "body_b";
    cases[n].d = ok, cases[n].d.body_b = 0, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "body_b";
    cases[n].d = ok, cases[n].d.anchor[2] = NAN, cases[n].code = ONESCOPE_E_NOT_FINITE,
    cases[n++].field = "anchor[2]";
    cases[n].d = ok, memset(cases[n].d.axis, 0, sizeof ok.axis), cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "axis";
    cases[n].d = ok, cases[n].d.lower_angle = 0.5f, cases[n].d.upper_angle = 0.2f,
    cases[n].code = ONESCOPE_E_RANGE, cases[n++].field = "upper_angle";
    cases[n].d = ok, cases[n].d.lower_angle = -4.0f, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "lower_angle";
    cases[n].d = ok, cases[n].d.cone_angle = -0.1f, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "cone_angle";
    cases[n].d = ok, cases[n].d.max_motor_torque = -1.0f, cases[n].code = ONESCOPE_E_RANGE,
    cases[n++].field = "max_motor_torque";
    cases[n].d = ok, cases[n].d.spring_hertz = NAN, cases[n].code = ONESCOPE_E_NOT_FINITE,
    cases[n++].field = "spring_hertz";
    cases[n].d = ok, cases[n].d.internal_cookie = 0, cases[n].code = ONESCOPE_E_ARGUMENT,
    cases[n++].field = "onescope_soa_joint_def"; /* filled by hand, not from _default() */
    cases[n].d = ok, cases[n].d.kind = ONESCOPE_SOA_SPHERICAL, cases[n].d.enable_spring = 1,
    memset(cases[n].d.target_rotation, 0, sizeof ok.target_rotation),
    cases[n].code = ONESCOPE_E_RANGE, cases[n++].field = "target_rotation";
    for (int k = 0; k < n; k++) {
        onescope_error err;
        onescope_code rc = onescope_soa_world_add_joint(w, &cases[k].d, NULL, &err);
        if (rc != cases[k].code || strcmp(err.field, cases[k].field) != 0)
            fail_msg("case %d: code %d field '%s', wanted %d '%s'", k, rc, err.field, cases[k].code,
                     cases[k].field);
        assert_int_equal(view_of(w).live->joint_count, 0);
    }
    add_joint(w, &ok);
    onescope_error err;
    assert_int_equal(onescope_soa_world_add_joint(w, &ok, NULL, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "joint_capacity");
    onescope_soa_world_free(w);
}

/* The refusals test_joint_refusals and test_world_and_step_refusals leave out: every joint
 * flag and limit, both bodies static, the remaining world fields, recording arguments. */
static void test_more_refusals(void **state) {
    (void)state;
    onescope_error err;
    onescope_soa_world *w = make_world(-9.81f, 4, 1);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    slab(w, -5.0f);
    onescope_soa_joint_def ok = onescope_soa_joint_def_default();
    ok.body_a = 0, ok.body_b = 1;
    ok.anchor[1] = 1.0f;
    struct {
        onescope_soa_joint_def d;
        onescope_code code;
        const char *field;
    } cases[24];
    int n = 0;
#define CASE(edit, want, name)                                                                     \
    cases[n].d = ok, edit, cases[n].code = (want), cases[n++].field = (name)
    CASE(cases[n].d.kind = 0, ONESCOPE_E_RANGE, "kind");
    CASE(cases[n].d.body_b = 2, ONESCOPE_E_RANGE, "body_b"); /* two static slabs */
    CASE(cases[n].d.axis[1] = INFINITY, ONESCOPE_E_NOT_FINITE, "axis[1]");
    CASE(memset(&cases[n].d, 0, sizeof ok), ONESCOPE_E_ARGUMENT, "onescope_soa_joint_def");
    CASE(cases[n].d.lower_twist = -3.2f, ONESCOPE_E_RANGE, "lower_twist");
    CASE((cases[n].d.lower_twist = 0.3f, cases[n].d.upper_twist = 0.2f), ONESCOPE_E_RANGE,
         "upper_twist");
    CASE(cases[n].d.motor_speed = 2.0e4f, ONESCOPE_E_RANGE, "motor_speed");
    CASE(cases[n].d.motor_velocity[2] = NAN, ONESCOPE_E_NOT_FINITE, "motor_velocity[2]");
    CASE(cases[n].d.spring_damping_ratio = -0.5f, ONESCOPE_E_RANGE, "spring_damping_ratio");
    CASE(cases[n].d.target_angle = 3.5f, ONESCOPE_E_RANGE, "target_angle");
    CASE(cases[n].d.target_rotation[0] = NAN, ONESCOPE_E_NOT_FINITE, "target_rotation[0]");
#undef CASE
    for (int k = 0; k < n; k++) {
        onescope_code rc = onescope_soa_world_add_joint(w, &cases[k].d, NULL, &err);
        if (rc != cases[k].code || strcmp(err.field, cases[k].field) != 0)
            fail_msg("case %d: code %d field '%s', wanted %d '%s'", k, rc, err.field, cases[k].code,
                     cases[k].field);
        assert_int_equal(view_of(w).live->joint_count, 0);
    }
    assert_int_equal(onescope_soa_world_add_joint(NULL, &ok, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "world");
    assert_int_equal(onescope_soa_world_add_joint(w, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "def");
    assert_int_equal(onescope_soa_world_remove_body(NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_soa_world_step(w, 1.5f, 4, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "dt");
    assert_int_equal(view_of(w).live->step, 0);

    /* recording */
    onescope_pose_cache *c = (onescope_pose_cache *)&err;
    assert_int_equal(onescope_soa_world_record(NULL, 1, DT, SUB, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "world");
    assert_int_equal(onescope_soa_world_record(w, 1, DT, SUB, NULL, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "out");
    assert_int_equal(
        onescope_soa_world_record(w, ONESCOPE_OSPC_MAX_FRAMES, DT, SUB, NULL, NULL, NULL, &c, &err),
        ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "steps");
    assert_int_equal(onescope_soa_world_record(w, 1, 2.0f, SUB, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "dt");
    assert_int_equal(onescope_soa_world_record(w, 1, NAN, SUB, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_NOT_FINITE);
    assert_int_equal(onescope_soa_world_record(w, 1, DT, 0, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "substeps");
    assert_int_equal(onescope_soa_world_record(w, 1, DT, 65, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_RANGE);
    assert_int_equal(view_of(w).live->step, 0); /* nothing was stepped */
    onescope_soa_world_free(w);

    /* the world's remaining fields; a def copied field by field misses the cookie */
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.internal_cookie = 0;
    w = (onescope_soa_world *)&err;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "onescope_soa_world_def");
    assert_null(w);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "onescope_soa_world_def: expected a def from its _default()"));
    d = onescope_soa_world_def_default();
    d.hit_speed_threshold = -1.0f;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "hit_speed_threshold");
    d = onescope_soa_world_def_default();
    d.body_capacity = ONESCOPE_SOA_MAX_CAPACITY + 1;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "body_capacity");
    assert_int_equal(onescope_soa_world_create(&d, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "out");
}

/* A weld with its spring on is soft: under gravity the arm sags where a rigid weld holds. */
static void test_soft_weld_sags(void **state) {
    (void)state;
    float sag[2];
    for (int soft = 0; soft < 2; soft++) {
        onescope_soa_world *w = make_world(-9.81f, 4, 2);
        onescope_soa_body_def b = onescope_soa_body_def_default();
        b.kind = ONESCOPE_SOA_STATIC_BOX;
        b.size[0] = b.size[1] = b.size[2] = 0.1f;
        add(w, &b);
        b = onescope_soa_body_def_default();
        b.kind = ONESCOPE_SOA_BOX;
        b.size[0] = 0.5f, b.size[1] = 0.05f, b.size[2] = 0.05f;
        b.position[0] = 0.7f;
        add(w, &b);
        onescope_soa_joint_def j = onescope_soa_joint_def_default();
        j.kind = ONESCOPE_SOA_WELD;
        j.body_a = 0, j.body_b = 1;
        j.enable_spring = soft;
        j.spring_hertz = 0.5f;
        j.spring_damping_ratio = 0.7f;
        add_joint(w, &j);
        onescope_soa_view v = view_of(w);
        step(w, 60);
        sag[soft] = -v.position_y[1];
        onescope_soa_world_free(w);
    }
    assert_true(sag[0] < 0.01f); /* rigid */
    assert_true(sag[1] > 0.05f); /* soft: visibly lower */
}

static void test_destroy(void **state) {
    (void)state;
    onescope_soa_world_free(NULL);
    /* more worlds over time than Box3D has slots: destroy frees the slot */
    for (int k = 0; k < 300; k++) {
        onescope_soa_world *w = make_world(-9.81f, 2, 0);
        sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
        step(w, 1);
        onescope_soa_world_free(w);
    }
    /* the allocator sees every block returned, and a failing one leaks nothing */
    for (long fail = 1;; fail++) {
        test_alloc ta;
        test_alloc_init(&ta, fail);
        onescope_soa_world_def d = onescope_soa_world_def_default();
        d.body_capacity = 8;
        onescope_soa_world *w = NULL;
        onescope_error err;
        onescope_code rc = onescope_soa_world_create(&d, &ta.allocator, &w, &err);
        if (rc == ONESCOPE_OK) {
            sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
            step(w, 2);
            onescope_soa_world_free(w);
            assert_int_equal(ta.live, 0);
            break;
        }
        assert_int_equal(rc, ONESCOPE_E_NOMEM);
        assert_null(w);
        assert_int_equal(ta.live, 0);
        assert_true(fail < 100);
    }
}

/* ---- joints ---- */

/* A static box at the origin and a dynamic box hanging to the side, hinged at the origin. */
static onescope_soa_world *hinge_scene(const float axis[3], float lower, float upper, int limit) {
    onescope_soa_world *w = make_world(-9.81f, 4, 2);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = 0.5f, b.size[1] = 0.05f, b.size[2] = 0.05f;
    b.position[0] = 0.7f;
    add(w, &b);
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.body_a = 0, j.body_b = 1;
    memcpy(j.axis, axis, sizeof j.axis);
    j.enable_limit = limit;
    j.lower_angle = lower, j.upper_angle = upper;
    add_joint(w, &j);
    return w;
}

static void test_hinge_angle_matches_rotation_lanes(void **state) {
    (void)state;
    const float z[3] = {0.0f, 0.0f, 1.0f};
    onescope_soa_world *w = hinge_scene(z, 0.0f, 0.0f, 0);
    onescope_soa_view v = view_of(w);
    assert_int_equal(v.joint_kind[0], ONESCOPE_SOA_REVOLUTE);
    assert_int_equal(v.joint_body_a[0], 0);
    assert_int_equal(v.joint_body_b[0], 1);
    assert_float_equal(v.joint_angle[0], 0.0f, 1e-6); /* the creation pose is the zero */
    assert_float_equal(v.joint_rotation_w[0], 1.0f, 1e-6);
    float lowest = 0.0f;
    for (int k = 0; k < 90; k++) {
        step(w, 1);
        float from_q = 2.0f * atan2f(v.joint_rotation_z[0], v.joint_rotation_w[0]);
        assert_float_equal(v.joint_angle[0], from_q, 2e-3);
        assert_true(v.joint_rotation_w[0] >= 0.0f);
        assert_float_equal(v.joint_rotation_x[0], 0.0f, 2e-3);
        assert_float_equal(v.joint_rotation_y[0], 0.0f, 2e-3);
        /* A is static with identity frame: relative angular velocity is B's */
        assert_float_equal(v.joint_angular_velocity_z[0], v.angular_velocity_z[1], 1e-5);
        if (v.joint_angle[0] < lowest) lowest = v.joint_angle[0];
    }
    assert_true(lowest < -1.0f); /* the arm swung down (clockwise about +z) */
    onescope_soa_world_free(w);
}

static void test_off_axis_hinge(void **state) {
    (void)state;
    const float axis[3] = {0.0f, 1.0f, 1.0f}; /* normalised by add_joint */
    onescope_soa_world *w = hinge_scene(axis, 0.0f, 0.0f, 0);
    onescope_soa_view v = view_of(w);
    /* frame A's z axis is the given axis */
    float qx = v.joint_frame_x[0], qy = v.joint_frame_y[0], qz = v.joint_frame_z[0],
          qw = v.joint_frame_w[0];
    float zx = 2.0f * (qx * qz + qw * qy), zy = 2.0f * (qy * qz - qw * qx),
          zz = 1.0f - 2.0f * (qx * qx + qy * qy);
    assert_float_equal(zx, 0.0f, 1e-5);
    assert_float_equal(zy, 0.70710678f, 1e-5);
    assert_float_equal(zz, 0.70710678f, 1e-5);
    step(w, 60);
    /* the body turned only about the axis: its world angular velocity is along it */
    float wx = v.angular_velocity_x[1], wy = v.angular_velocity_y[1], wz = v.angular_velocity_z[1];
    float len = sqrtf(wx * wx + wy * wy + wz * wz);
    assert_true(len > 0.1f);
    assert_float_equal(fabsf(wy * 0.70710678f + wz * 0.70710678f) / len, 1.0f, 1e-3);
    assert_float_equal(v.joint_rotation_x[0], 0.0f, 2e-3);
    assert_float_equal(v.joint_rotation_y[0], 0.0f, 2e-3);
    assert_true(fabsf(v.joint_angle[0]) > 0.1f);
    onescope_soa_world_free(w);
    /* the axis opposite to z: frame A is half a turn about x, its z axis -z */
    const float down[3] = {0.0f, 0.0f, -1.0f};
    w = hinge_scene(down, 0.0f, 0.0f, 0);
    v = view_of(w);
    assert_float_equal(fabsf(v.joint_frame_x[0]), 1.0f, 1e-6);
    assert_float_equal(v.joint_frame_y[0], 0.0f, 0.0f);
    assert_float_equal(v.joint_frame_z[0], 0.0f, 0.0f);
    assert_float_equal(v.joint_frame_w[0], 0.0f, 1e-6);
    onescope_soa_world_free(w);
}

static void test_limit_and_weld(void **state) {
    (void)state;
    const float z[3] = {0.0f, 0.0f, 1.0f};
    onescope_soa_world *w = hinge_scene(z, -0.3f, 0.3f, 1);
    onescope_soa_view v = view_of(w);
    float lowest = 0.0f;
    for (int k = 0; k < 120; k++) {
        step(w, 1);
        if (v.joint_angle[0] < lowest) lowest = v.joint_angle[0];
    }
    assert_true(lowest > -0.3f - 0.03f);
    assert_true(lowest < -0.25f); /* it reached the stop */
    onescope_soa_world_free(w);

    /* weld: the arm stays where it was made */
    w = make_world(-9.81f, 4, 2);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = 0.5f, b.size[1] = 0.05f, b.size[2] = 0.05f;
    b.position[0] = 0.7f;
    add(w, &b);
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.kind = ONESCOPE_SOA_WELD;
    j.body_a = 0, j.body_b = 1;
    add_joint(w, &j);
    v = view_of(w);
    step(w, 120);
    assert_float_equal(v.position_x[1], 0.7f, 0.01f);
    assert_float_equal(v.position_y[1], 0.0f, 0.01f);
    assert_float_equal(v.joint_rotation_w[0], 1.0f, 1e-3);
    assert_float_equal(v.joint_angle[0], 0.0f, 0.0f);
    assert_int_equal(v.joint_kind[0], ONESCOPE_SOA_WELD);
    onescope_soa_world_free(w);
}

static void test_spherical_leaves_swing_plane(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 4, 2);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    b = onescope_soa_body_def_default();
    b.size[0] = 0.1f;
    b.position[0] = 1.0f;
    b.linear_velocity[2] = 2.0f; /* out of the x-y plane */
    add(w, &b);
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.kind = ONESCOPE_SOA_SPHERICAL;
    j.body_a = 0, j.body_b = 1;
    add_joint(w, &j);
    onescope_soa_view v = view_of(w);
    float maxz = 0.0f;
    for (int k = 0; k < 60; k++) {
        step(w, 1);
        float x = v.position_x[1], y = v.position_y[1], z = v.position_z[1];
        assert_float_equal(sqrtf(x * x + y * y + z * z), 1.0f, 0.01f); /* on the sphere */
        if (fabsf(z) > maxz) maxz = fabsf(z);
    }
    assert_true(maxz > 0.2f);
    assert_int_equal(v.joint_kind[0], ONESCOPE_SOA_SPHERICAL);
    /* twist angle lane agrees with the relative rotation's twist about z */
    float rz = v.joint_rotation_z[0], rw = v.joint_rotation_w[0];
    assert_float_equal(v.joint_angle[0], 2.0f * atan2f(rz, rw), 2e-3);
    onescope_soa_world_free(w);
}

static void test_spherical_cone_and_twist_limits(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 4, 2);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = 0.5f, b.size[1] = 0.05f, b.size[2] = 0.05f;
    b.position[0] = 0.7f;
    add(w, &b);
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.kind = ONESCOPE_SOA_SPHERICAL;
    j.body_a = 0, j.body_b = 1;
    j.axis[0] = 1.0f, j.axis[2] = 0.0f; /* the cone is centred on the arm */
    j.enable_cone_limit = 1;
    j.cone_angle = 0.3f;
    j.enable_twist_limit = 1;
    j.lower_twist = -0.2f, j.upper_twist = 0.2f;
    add_joint(w, &j);
    onescope_soa_view v = view_of(w);
    float max_swing = 0.0f, max_twist = 0.0f;
    for (int k = 0; k < 120; k++) {
        v.torque_x[1] = 2.0f; /* twist the arm about its own length */
        step(w, 1);
        float x = v.position_x[1], y = v.position_y[1], z = v.position_z[1];
        float swing = acosf(x / sqrtf(x * x + y * y + z * z));
        if (swing > max_swing) max_swing = swing;
        if (fabsf(v.joint_angle[0]) > max_twist) max_twist = fabsf(v.joint_angle[0]);
    }
    assert_true(max_swing > 0.25f && max_swing < 0.3f + 0.03f);
    assert_true(max_twist > 0.15f && max_twist < 0.2f + 0.03f);
    onescope_soa_world_free(w);
}

/* ---- write lanes ---- */

static void test_force_and_torque_lanes(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(0.0f, 4, 0);
    float r = 0.5f;
    uint32_t s = sphere(w, 0.0f, 0.0f, 0.0f, r);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.position[0] = 5.0f;
    uint32_t st = add(w, &b);
    uint32_t other = sphere(w, -5.0f, 0.0f, 0.0f, r);
    onescope_soa_view v = view_of(w);
    double mass = 1000.0 * 4.0 / 3.0 * 3.14159265358979 * r * r * r;
    double inertia = 0.4 * mass * r * r;
    v.force_x[s] = 100.0f;
    v.force_y[s] = -50.0f;
    v.torque_z[s] = 30.0f;
    v.force_x[st] = 1e6f;
    v.torque_y[st] = 1e6f;
    step(w, 1);
    double ax = 100.0 / mass * DT, ay = -50.0 / mass * DT, wz = 30.0 / inertia * DT;
    assert_float_equal(v.linear_velocity_x[s], ax, 1e-5 * fabs(ax));
    assert_float_equal(v.linear_velocity_y[s], ay, 1e-5 * fabs(ay));
    assert_float_equal(v.linear_velocity_z[s], 0.0f, 0.0f);
    assert_float_equal(v.angular_velocity_z[s], wz, 1e-4 * fabs(wz));
    /* cleared after the step */
    for (uint32_t i = 0; i < v.live->count; i++) {
        assert_true(v.force_x[i] == 0.0f && v.force_y[i] == 0.0f && v.force_z[i] == 0.0f);
        assert_true(v.torque_x[i] == 0.0f && v.torque_y[i] == 0.0f && v.torque_z[i] == 0.0f);
    }
    /* the static body ignored them */
    assert_float_equal(v.position_x[st], 5.0f, 0.0f);
    assert_float_equal(v.linear_velocity_x[st], 0.0f, 0.0f);
    /* a lane holds one step's intent: no force now, the velocity stays */
    float vx = v.linear_velocity_x[s];
    step(w, 1);
    assert_float_equal(v.linear_velocity_x[s], vx, 0.0f);

    /* NaN anywhere refuses the whole step with nothing touched */
    v.force_x[other] = 10.0f;
    v.torque_y[s] = NAN;
    unsigned char before[1024], after[1024];
    size_t n = snapshot(w, before, sizeof before);
    onescope_error err;
    assert_int_equal(onescope_soa_world_step(w, DT, SUB, &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.field, "torque_y[0]");
    assert_int_equal(snapshot(w, after, sizeof after), n);
    assert_memory_equal(before, after, n);
    assert_int_equal(view_of(w).live->step, 2);
    assert_float_equal(v.force_x[other], 10.0f, 0.0f); /* lanes untouched too */
    v.torque_y[s] = 0.0f;
    step(w, 1);
    assert_true(v.linear_velocity_x[other] > 0.0f);
    onescope_soa_world_free(w);
}

static void test_capsule_and_box_rest_heights(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 4, 0);
    slab(w, 1.0f);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_CAPSULE;
    b.size[0] = 0.2f, b.size[1] = 0.5f;
    b.position[1] = 2.0f;
    /* lying down: local Y turned onto world X */
    b.rotation[2] = sinf(PI_F / 4.0f), b.rotation[3] = cosf(PI_F / 4.0f);
    b.limb = 7;
    uint32_t c = add(w, &b);
    b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = 0.5f, b.size[1] = 0.25f, b.size[2] = 0.4f;
    b.position[0] = 3.0f, b.position[1] = 2.0f;
    b.parent = (int32_t)c;
    b.limb = 3;
    uint32_t x = add(w, &b);
    step(w, 240);
    onescope_soa_view v = view_of(w);
    assert_float_equal(v.position_y[c], 1.2f, 0.01f);
    assert_float_equal(v.position_y[x], 1.25f, 0.01f);
    assert_int_equal(v.kind[c], ONESCOPE_SOA_CAPSULE);
    assert_int_equal(v.kind[x], ONESCOPE_SOA_BOX);
    assert_int_equal(v.kind[0], ONESCOPE_SOA_STATIC_BOX);
    assert_int_equal(v.parent[0], -1);
    assert_int_equal(v.parent[c], -1);
    assert_int_equal(v.parent[x], (int32_t)c);
    assert_int_equal(v.limb[c], 7);
    assert_int_equal(v.limb[x], 3);
    onescope_soa_world_free(w);
}

/* A chain of three boxes hinged to a static post, driven by PD torques from the joint lanes. */
static onescope_soa_world *driven_chain(void) {
    onescope_soa_world *w = make_world(-9.81f, 8, 4);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    for (int k = 0; k < 3; k++) {
        b = onescope_soa_body_def_default();
        b.kind = ONESCOPE_SOA_BOX;
        b.size[0] = 0.3f, b.size[1] = 0.05f, b.size[2] = 0.05f;
        b.position[0] = 0.35f + 0.7f * (float)k;
        b.parent = k;
        b.limb = k + 1;
        add(w, &b);
        onescope_soa_joint_def j = onescope_soa_joint_def_default();
        j.body_a = k, j.body_b = k + 1;
        j.anchor[0] = 0.7f * (float)k;
        add_joint(w, &j);
    }
    return w;
}

static void drive(onescope_soa_world *w, int steps) {
    onescope_soa_view v = view_of(w);
    for (int s = 0; s < steps; s++) {
        for (uint32_t j = 0; j < v.live->joint_count; j++) {
            float target = 0.4f * sinf(0.05f * (float)s + (float)j);
            float tau = 40.0f * (target - v.joint_angle[j]) - 2.0f * v.joint_angular_velocity_z[j];
            /* frame A is the identity here, so the hinge axis is world z */
            v.torque_z[v.joint_body_b[j]] += tau;
            v.torque_z[v.joint_body_a[j]] -= tau;
        }
        step(w, 1);
    }
}

static void test_torque_driven_repeat_runs(void **state) {
    (void)state;
    unsigned char *sa = malloc(SNAP_CAP), *sb = malloc(SNAP_CAP);
    onescope_soa_world *a = driven_chain();
    drive(a, 150);
    size_t na = snapshot(a, sa, SNAP_CAP);
    onescope_soa_view v = view_of(a);
    assert_true(fabsf(v.joint_angle[0]) > 0.01f || fabsf(v.joint_angle[1]) > 0.01f);
    onescope_soa_world_free(a);
    onescope_soa_world *b = driven_chain();
    drive(b, 150);
    size_t nb = snapshot(b, sb, SNAP_CAP);
    assert_int_equal(na, nb);
    assert_memory_equal(sa, sb, na);
    onescope_soa_world_free(b);
    free(sa);
    free(sb);
}

/* ---- contact events, removal, motors and springs ---- */

static int find_pair(const onescope_soa_contact *c, uint32_t n, int32_t x, int32_t y) {
    for (uint32_t k = 0; k < n; k++)
        if ((c[k].body_a == x && c[k].body_b == y) || (c[k].body_a == y && c[k].body_b == x))
            return (int)k;
    return -1;
}

static void test_contact_events(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 4, 0);
    slab(w, 0.0f);
    /* off the origin on x and z, so each coordinate of a contact point is told apart */
    uint32_t s = sphere(w, 0.3f, 1.0f, 0.6f, 0.25f);
    /* one view taken before the steps: its live counts and arrays show each step's events */
    onescope_soa_view v = view_of(w);
    int began = -1, hit = -1;
    for (int k = 0; k < 120 && (began < 0 || hit < 0); k++) {
        step(w, 1);
        assert_int_equal(v.live->step, (uint64_t)k + 1);
        int b = find_pair(v.live->contact_begin, v.live->contact_begin_count, 0, (int32_t)s);
        if (b >= 0 && began < 0) {
            began = k;
            assert_float_equal(fabsf(v.live->contact_begin[b].normal[1]), 1.0f, 1e-3);
            assert_float_equal(v.live->contact_begin[b].point[1], 0.0f, 0.05f);
            assert_float_equal(v.live->contact_begin[b].point[2], 0.6f, 0.05f);
        }
        int h = find_pair(v.live->contact_hit, v.live->contact_hit_count, 0, (int32_t)s);
        if (h >= 0 && hit < 0) {
            hit = k;
            assert_true(v.live->contact_hit[h].approach_speed > 1.0f);
            assert_float_equal(fabsf(v.live->contact_hit[h].normal[1]), 1.0f, 1e-3);
            assert_float_equal(v.live->contact_hit[h].point[0], 0.3f, 0.01f);
            assert_float_equal(v.live->contact_hit[h].point[1], 0.0f, 0.05f);
            assert_float_equal(v.live->contact_hit[h].point[2], 0.6f, 0.01f);
        }
    }
    assert_true(began >= 0);
    assert_true(hit >= 0);
    /* a begin happens once: resting produces no more */
    step(w, 30);
    v = view_of(w);
    assert_int_equal(find_pair(v.live->contact_begin, v.live->contact_begin_count, 0, (int32_t)s),
                     -1);
    /* launch it: the contact ends */
    int ended = 0;
    for (int k = 0; k < 30 && !ended; k++) {
        v.force_y[s] = k < 5 ? 2000.0f : 0.0f;
        step(w, 1);
        v = view_of(w);
        ended = find_pair(v.live->contact_end, v.live->contact_end_count, 0, (int32_t)s) >= 0;
    }
    assert_true(ended);
    onescope_soa_world_free(w);

    /* removing a touching body reports its end on the next step, by index */
    w = make_world(-9.81f, 4, 0);
    slab(w, 0.0f);
    s = sphere(w, 0.0f, 0.25f, 0.0f, 0.25f);
    step(w, 10);
    onescope_error err;
    assert_int_equal(onescope_soa_world_remove_body(w, s, &err), ONESCOPE_OK);
    step(w, 1);
    v = view_of(w);
    assert_true(find_pair(v.live->contact_end, v.live->contact_end_count, 0, (int32_t)s) >= 0);
    onescope_soa_world_free(w);
}

static void test_removal_order(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 8, 4);
    slab(w, 0.0f);
    for (int k = 0; k < 4; k++) sphere(w, (float)k, 1.0f, 0.0f, 0.2f);
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.kind = ONESCOPE_SOA_SPHERICAL;
    j.body_a = 1, j.body_b = 2;
    j.anchor[0] = 0.5f, j.anchor[1] = 1.0f;
    add_joint(w, &j);
    j.body_a = 3, j.body_b = 4;
    j.anchor[0] = 2.5f;
    add_joint(w, &j);
    step(w, 5);
    onescope_soa_view v = view_of(w);
    float px = v.position_x[2], py = v.position_y[2];
    onescope_error err;
    assert_int_equal(onescope_soa_world_remove_body(w, 2, &err), ONESCOPE_OK);
    /* indices keep their bodies; the removed one is marked, frozen and still counted */
    v = view_of(w);
    assert_int_equal(v.live->count, 5);
    assert_int_equal(v.kind[2], ONESCOPE_SOA_REMOVED);
    assert_int_equal(v.stable_id[2], 3);
    assert_int_equal(v.stable_id[3], 4);
    assert_int_equal(v.joint_kind[0], ONESCOPE_SOA_JOINT_REMOVED);
    assert_int_equal(v.joint_kind[1], ONESCOPE_SOA_SPHERICAL);
    assert_float_equal(v.linear_velocity_y[2], 0.0f, 0.0f);
    v.force_y[2] = 1000.0f; /* ignored */
    step(w, 30);
    assert_float_equal(v.position_x[2], px, 0.0f);
    assert_float_equal(v.position_y[2], py, 0.0f);
    assert_true(v.position_y[3] < 1.0f); /* the others go on falling */
    assert_float_equal(v.force_y[2], 0.0f, 0.0f);
    /* a new body takes the next index, never the removed one */
    uint32_t n = sphere(w, 6.0f, 1.0f, 0.0f, 0.2f);
    assert_int_equal(n, 5);
    assert_int_equal(view_of(w).stable_id[5], 6);
    assert_int_equal(onescope_soa_world_remove_body(w, 2, &err), ONESCOPE_E_BAD_STATE);
    assert_int_equal(onescope_soa_world_remove_body(w, 6, &err), ONESCOPE_E_RANGE);
    /* a joint may not name a removed body */
    j.body_a = 1, j.body_b = 2;
    assert_int_equal(onescope_soa_world_add_joint(w, &j, NULL, &err), ONESCOPE_E_BAD_STATE);
    assert_string_equal(err.field, "body_b");
    /* nor may a parent be... it may: parent is the consumer's, and removal keeps indices */
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.parent = 2;
    b.position[0] = -3.0f;
    add(w, &b);
    onescope_soa_world_free(w);
}

static onescope_soa_world *one_arm(int kind, onescope_soa_joint_def *j) {
    onescope_soa_world *w = make_world(0.0f, 4, 2);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_STATIC_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.1f;
    add(w, &b);
    b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = 0.3f, b.size[1] = 0.05f, b.size[2] = 0.05f;
    b.position[0] = 0.5f;
    add(w, &b);
    j->kind = kind;
    j->body_a = 0, j->body_b = 1;
    add_joint(w, j);
    return w;
}

static void test_motors_and_springs(void **state) {
    (void)state;
    onescope_soa_joint_def j = onescope_soa_joint_def_default();
    j.enable_motor = 1;
    j.motor_speed = 2.0f;
    j.max_motor_torque = 100.0f;
    onescope_soa_world *w = one_arm(ONESCOPE_SOA_REVOLUTE, &j);
    onescope_soa_view v = view_of(w);
    step(w, 30);
    assert_float_equal(v.joint_angular_velocity_z[0], 2.0f, 0.01f);
    assert_float_equal(v.joint_angle[0], 2.0f * 30 * DT, 0.1f);
    onescope_soa_world_free(w);

    j = onescope_soa_joint_def_default();
    j.enable_spring = 1;
    j.spring_hertz = 2.0f;
    j.spring_damping_ratio = 1.0f;
    j.target_angle = 0.5f;
    w = one_arm(ONESCOPE_SOA_REVOLUTE, &j);
    v = view_of(w);
    step(w, 240);
    assert_float_equal(v.joint_angle[0], 0.5f, 0.02f);
    onescope_soa_world_free(w);

    j = onescope_soa_joint_def_default();
    j.enable_motor = 1;
    j.motor_velocity[1] = 1.5f;
    j.max_motor_torque = 100.0f;
    w = one_arm(ONESCOPE_SOA_SPHERICAL, &j);
    v = view_of(w);
    step(w, 20);
    assert_float_equal(v.joint_angular_velocity_y[0], 1.5f, 0.02f); /* frame A is the world here */
    assert_float_equal(v.angular_velocity_y[1], 1.5f, 0.02f);
    onescope_soa_world_free(w);

    j = onescope_soa_joint_def_default();
    j.enable_spring = 1;
    j.spring_hertz = 2.0f;
    j.spring_damping_ratio = 1.0f;
    j.target_rotation[0] = sinf(0.15f), j.target_rotation[3] = cosf(0.15f); /* 0.3 rad about x */
    w = one_arm(ONESCOPE_SOA_SPHERICAL, &j);
    v = view_of(w);
    step(w, 240);
    assert_float_equal(v.joint_rotation_x[0], sinf(0.15f), 0.01f);
    assert_float_equal(v.joint_rotation_w[0], cosf(0.15f), 0.01f);
    onescope_soa_world_free(w);
}

/* ---- recording ---- */

static void test_pose_dump(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 8, 0);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_CAPSULE;
    b.size[0] = 0.2f, b.size[1] = 0.4f;
    b.position[0] = 2.0f, b.position[1] = 2.0f;
    add(w, &b);
    sphere(w, -2.0f, 1.0f, 0.0f, 0.3f);
    step(w, 3);
    onescope_error err;
    assert_int_equal(onescope_soa_world_remove_body(w, 3, &err), ONESCOPE_OK);
    onescope_pose_cache *c = NULL;
    assert_int_equal(onescope_soa_world_record(w, 40, DT, SUB, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_OK);
    onescope_buffer buf;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &buf, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    onescope_pose_cache *p = NULL;
    assert_int_equal(onescope_pose_cache_parse(buf.data, buf.size, "rec.ospc", NULL, &p, &err),
                     ONESCOPE_OK);
    onescope_buffer_free(&buf);
    onescope_soa_view v = view_of(w);
    assert_int_equal(p->dimensions, 3);
    assert_int_equal(p->entity_count, 4);
    assert_int_equal(p->frame_count, 41);
    assert_int_equal(p->start_step, 3);
    assert_true(p->metres_per_unit == 1.0);
    assert_string_equal(p->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "m");
    assert_string_equal(p->text[ONESCOPE_POSE_TEXT_MODULE_ID].data, "onescope.box3d");
    assert_string_equal(p->text[ONESCOPE_POSE_TEXT_LIBRARY_VERSION].data, ONESCOPE_VERSION_STRING);
    assert_int_equal(p->entities[0].shape, ONESCOPE_SHAPE_BOX);
    assert_float_equal(p->entities[0].size[0], 20.0f, 0.0f);
    assert_int_equal(p->entities[1].shape, ONESCOPE_SHAPE_SPHERE);
    assert_float_equal(p->entities[1].size[0], 0.25f, 0.0f);
    assert_int_equal(p->entities[2].shape, ONESCOPE_SHAPE_CAPSULE);
    assert_float_equal(p->entities[2].size[1], 0.4f, 0.0f);
    assert_int_equal(p->entities[3].shape, ONESCOPE_SHAPE_SPHERE);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(p->entities[i].id, v.stable_id[i]);
        const onescope_pose *last = onescope_pose_cache_pose(p, 40, i);
        if (i == 3) {
            assert_false(onescope_pose_is_present(last));
            continue;
        }
        assert_true(onescope_pose_is_present(last));
        assert_memory_equal(&last->position[0], &v.position_x[i], sizeof(float));
        assert_memory_equal(&last->position[1], &v.position_y[i], sizeof(float));
        assert_memory_equal(&last->position[2], &v.position_z[i], sizeof(float));
        assert_memory_equal(&last->rotation[3], &v.rotation_w[i], sizeof(float));
    }
    /* frame 0 is the state before the recorded steps */
    assert_true(onescope_pose_cache_pose(p, 0, 1)->position[1] > v.position_y[1]);
    onescope_pose_cache_free(p);
    assert_int_equal(view_of(w).live->step, 43);
    assert_int_equal(onescope_soa_world_record(w, 1, 0.0f, SUB, NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_RANGE);
    assert_null(c);
    onescope_soa_world_free(w);
}

/* ---- recording with a per-step callback ---- */

/* A scene for the callback tests: a slab, two spheres and a box, resting or falling. */
static onescope_soa_world *callback_world(void) {
    onescope_soa_world *w = make_world(-9.81f, 8, 0);
    slab(w, 0.0f);
    sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    sphere(w, 1.0f, 0.25f, 0.0f, 0.25f);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = ONESCOPE_SOA_BOX;
    b.size[0] = b.size[1] = b.size[2] = 0.2f;
    b.position[0] = -1.0f, b.position[1] = 0.2f;
    add(w, &b);
    return w;
}

/* The force program both runs apply: a push on body 2 and a twist on body 3 that change
 * with the step index. */
static void push(const onescope_soa_view *v, uint32_t k) {
    v->force_x[2] = 40.0f + (float)k;
    v->force_y[2] = k % 10 < 5 ? 30.0f : 0.0f;
    v->torque_y[3] = (float)k * 0.05f;
}

typedef struct callback_log {
    uint32_t calls;
    uint32_t stop_at; /* UINT32_MAX: never */
    uint64_t steps_seen[64];
    int misuse; /* 1: add a body, 2: step, 3: remove body 1 */
} callback_log;

static bool on_step(onescope_soa_world *w, uint32_t index, void *user) {
    callback_log *log = user;
    onescope_soa_view v = view_of(w);
    if (index < 64) log->steps_seen[index] = v.live->step;
    log->calls++;
    if (index == log->stop_at) return true;
    if (log->misuse == 1) sphere(w, 3.0f, 1.0f, 0.0f, 0.1f);
    if (log->misuse == 2) step(w, 1);
    if (log->misuse == 3 && index == 2) {
        onescope_error err;
        assert_int_equal(onescope_soa_world_remove_body(w, 1, &err), ONESCOPE_OK);
    }
    push(&v, index);
    return false;
}

static void expect_frame(const onescope_pose_cache *c, uint32_t frame, const onescope_soa_view *v) {
    for (uint32_t i = 0; i < c->entity_count; i++) {
        const onescope_pose *p = onescope_pose_cache_pose(c, frame, i);
        assert_memory_equal(&p->position[0], &v->position_x[i], sizeof(float));
        assert_memory_equal(&p->position[1], &v->position_y[i], sizeof(float));
        assert_memory_equal(&p->position[2], &v->position_z[i], sizeof(float));
        assert_memory_equal(&p->rotation[0], &v->rotation_x[i], sizeof(float));
        assert_memory_equal(&p->rotation[1], &v->rotation_y[i], sizeof(float));
        assert_memory_equal(&p->rotation[2], &v->rotation_z[i], sizeof(float));
        assert_memory_equal(&p->rotation[3], &v->rotation_w[i], sizeof(float));
    }
}

/* Forces applied in the callback give exactly the recording of a hand loop of step with the
 * same forces, and differ from a plain recording. */
static void test_record_callback_matches_hand_loop(void **state) {
    (void)state;
    enum { N = 40 };
    onescope_error err;
    onescope_soa_world *a = callback_world();
    callback_log log = {0, UINT32_MAX, {0}, 0};
    onescope_pose_cache *rec = NULL;
    assert_int_equal(onescope_soa_world_record(a, N, DT, SUB, on_step, &log, NULL, &rec, &err),
                     ONESCOPE_OK);
    assert_int_equal(log.calls, N);
    for (uint32_t k = 0; k < N; k++) assert_int_equal(log.steps_seen[k], k); /* before step k */
    assert_int_equal(rec->frame_count, N + 1);

    onescope_soa_world *b = callback_world();
    onescope_soa_view v = view_of(b);
    expect_frame(rec, 0, &v);
    for (uint32_t k = 0; k < N; k++) {
        push(&v, k);
        step(b, 1);
        expect_frame(rec, k + 1, &v);
    }

    /* without the callback the pushed body ends elsewhere */
    onescope_soa_world *plain = callback_world();
    onescope_pose_cache *still = NULL;
    assert_int_equal(onescope_soa_world_record(plain, N, DT, SUB, NULL, NULL, NULL, &still, &err),
                     ONESCOPE_OK);
    assert_true(onescope_pose_cache_pose(still, N, 2)->position[0] + 0.1f <
                onescope_pose_cache_pose(rec, N, 2)->position[0]);
    onescope_pose_cache_free(still);
    onescope_pose_cache_free(rec);
    onescope_soa_world_free(plain);
    onescope_soa_world_free(b);
    onescope_soa_world_free(a);
}

/* Returning true stops before that step: fewer frames, a valid cache, the world stepped only
 * as far as the frames say. */
static void test_record_callback_stops_early(void **state) {
    (void)state;
    onescope_error err;
    uint32_t stops[] = {0, 1, 7};
    for (size_t t = 0; t < sizeof stops / sizeof stops[0]; t++) {
        onescope_soa_world *w = callback_world();
        callback_log log = {0, stops[t], {0}, 0};
        onescope_pose_cache *c = NULL;
        assert_int_equal(onescope_soa_world_record(w, 30, DT, SUB, on_step, &log, NULL, &c, &err),
                         ONESCOPE_OK);
        assert_int_equal(c->frame_count, stops[t] + 1);
        assert_int_equal(log.calls, stops[t] + 1);
        onescope_soa_view v = view_of(w);
        assert_int_equal(v.live->step, stops[t]);
        expect_frame(c, stops[t], &v); /* the last frame is the state at the stop */
        onescope_buffer buf;
        assert_int_equal(onescope_pose_cache_write(c, NULL, &buf, &err), ONESCOPE_OK);
        onescope_pose_cache *p = NULL;
        assert_int_equal(
            onescope_pose_cache_parse(buf.data, buf.size, "early.ospc", NULL, &p, &err),
            ONESCOPE_OK);
        assert_int_equal(p->frame_count, stops[t] + 1);
        onescope_pose_cache_free(p);
        onescope_buffer_free(&buf);
        onescope_pose_cache_free(c);
        onescope_soa_world_free(w);
    }
}

/* A callback may remove a body (absent from then on); adding one or stepping is refused with
 * no cache. */
static void test_record_callback_misuse(void **state) {
    (void)state;
    onescope_error err;
    onescope_soa_world *w = callback_world();
    callback_log log = {0, UINT32_MAX, {0}, 3};
    onescope_pose_cache *c = NULL;
    assert_int_equal(onescope_soa_world_record(w, 6, DT, SUB, on_step, &log, NULL, &c, &err),
                     ONESCOPE_OK);
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(c, 2, 1)));
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 3, 1)));
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 6, 1)));
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(c, 6, 2)));
    onescope_pose_cache_free(c);
    onescope_soa_world_free(w);

    for (int misuse = 1; misuse <= 2; misuse++) {
        w = callback_world();
        log = (callback_log){0, UINT32_MAX, {0}, misuse};
        c = (onescope_pose_cache *)&log; /* overwritten with NULL */
        assert_int_equal(onescope_soa_world_record(w, 6, DT, SUB, on_step, &log, NULL, &c, &err),
                         ONESCOPE_E_ARGUMENT);
        assert_null(c);
        assert_int_equal(log.calls, 1);
        assert_string_equal(err.field, "on_step");
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        /* the line docs/soa-world.md shows */
        if (misuse == 1)
            assert_string_equal(line, "soa_world_record: on_step: expected a callback that "
                                      "neither adds bodies nor steps, found bodies 4 -> 5, step "
                                      "0 -> 0 at index 0");
        else
            assert_non_null(strstr(line, "bodies 4 -> 4, step 0 -> 1 at index 0"));
        assert_null(strchr(line, '\n'));
        onescope_soa_world_free(w);
    }
}

static void test_contact_events_off(void **state) {
    (void)state;
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.contact_events = 0;
    d.body_capacity = 4;
    onescope_soa_world *w = NULL;
    onescope_error err;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_OK);
    slab(w, 0.0f);
    uint32_t s = sphere(w, 0.0f, 1.0f, 0.0f, 0.25f);
    int touched = 0;
    for (int k = 0; k < 90; k++) {
        step(w, 1);
        onescope_soa_view v = view_of(w);
        assert_int_equal(
            v.live->contact_begin_count + v.live->contact_hit_count + v.live->contact_end_count, 0);
        touched |= v.position_y[s] < 0.26f;
    }
    assert_true(touched); /* it did land */
    onescope_soa_world_free(w);
}

/* When the contact arrays cannot grow, the step still happened and says so. */
static void test_event_growth_failure(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, 0);
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.body_capacity = 4;
    onescope_soa_world *w = NULL;
    onescope_error err;
    assert_int_equal(onescope_soa_world_create(&d, &ta.allocator, &w, &err), ONESCOPE_OK);
    slab(w, 0.0f);
    uint32_t s = sphere(w, 0.0f, 0.3f, 0.0f, 0.25f);
    ta.fail_at = ta.count + 1; /* the first allocation from now on fails */
    onescope_code rc = ONESCOPE_OK;
    int k = 0;
    for (; k < 60 && rc == ONESCOPE_OK; k++) rc = onescope_soa_world_step(w, DT, SUB, &err);
    assert_int_equal(rc, ONESCOPE_E_NOMEM);
    assert_string_equal(err.field, "contact events");
    onescope_soa_view v = view_of(w);
    assert_int_equal(v.live->step, (uint64_t)k); /* the failing step counted */
    assert_int_equal(
        v.live->contact_begin_count + v.live->contact_hit_count + v.live->contact_end_count, 0);
    assert_true(v.position_y[s] < 0.3f);
    step(w, 5); /* the next allocation succeeds: the world goes on */
    onescope_soa_world_free(w);
    assert_int_equal(ta.live, 0);
}

/* A step whose solver leaves a body's state non-finite (an angular impulse of 1e20 on a ball
 * resting on a slab: Box3D logs "unstable") is refused with ENGINE, naming the first non-finite
 * lane and Box3D's message, and nothing reaches standard output (Box3D's own log printed
 * "Box3D: unstable: NULL" there at every such step). The step has run: the counter moved. */
static void test_diverging_step_refused(void **state) {
    (void)state;
    onescope_soa_world *w = make_world(-9.81f, 3, 1);
    slab(w, 0.0f);
    uint32_t ball = sphere(w, 0.0f, 0.25f, 0.0f, 0.25f);
    sphere(w, 0.5f, 0.25f, 0.0f, 0.25f);
    step(w, 5);
    onescope_error err;
    const float huge[3] = {1e20f, 1e20f, 1e20f};
    assert_int_equal(onescope_soa_world_act(w, ball, ONESCOPE_SOA_ANGULAR_IMPULSE, huge, &err),
                     ONESCOPE_OK);
    fflush(stdout);
    FILE *caught = tmpfile();
    assert_non_null(caught);
    int saved = dup(1);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(caught), 1) == 1);
    onescope_code rc = ONESCOPE_OK;
    for (int k = 0; k < 10 && rc == ONESCOPE_OK; k++)
        rc = onescope_soa_world_step(w, DT, SUB, &err);
    fflush(stdout);
    assert_true(dup2(saved, 1) == 1);
    close(saved);
    assert_int_equal(fseek(caught, 0, SEEK_END), 0);
    long printed = ftell(caught);
    fclose(caught);
    assert_int_equal(printed, 0);
    assert_int_equal(rc, ONESCOPE_E_ENGINE);
    assert_string_equal(err.input, "soa_world_step");
    assert_string_equal(err.expected, "a finite number after the step");
    assert_non_null(strstr(err.found, "(Box3D's solver diverged; it said \"unstable: NULL\")"));
    unsigned index = 99;
    char lane[40];
    assert_int_equal(sscanf(err.field, "%39[a-z_][%u]", lane, &index), 2);
    assert_true(index == 1 || index == 2);
    assert_true(view_of(w).live->step >= 6);
    onescope_soa_world_free(w);
}

static void test_world_slots(void **state) {
    (void)state;
    enum { TRY = 200 };
    onescope_soa_world *ws[TRY];
    int made = 0;
    onescope_error err;
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.body_capacity = 1;
    d.joint_capacity = 0;
    for (; made < TRY; made++) {
        onescope_code rc = onescope_soa_world_create(&d, NULL, &ws[made], &err);
        if (rc != ONESCOPE_OK) {
            assert_int_equal(rc, ONESCOPE_E_ENGINE);
            assert_string_equal(err.field, "world");
            assert_null(ws[made]);
            break;
        }
    }
    assert_int_equal(made, 128); /* Box3D's B3_MAX_WORLDS */
    for (int k = 0; k < made; k++) onescope_soa_world_free(ws[k]);
    assert_int_equal(onescope_soa_world_create(&d, NULL, &ws[0], &err), ONESCOPE_OK);
    onescope_soa_world_free(ws[0]);
}

/* ---- threads ---- */

static void *churn(void *arg) {
    long *failures = arg;
    for (int k = 0; k < 25; k++) {
        onescope_soa_world_def d = onescope_soa_world_def_default();
        d.body_capacity = 16;
        onescope_soa_world *w = NULL;
        onescope_error err;
        if (onescope_soa_world_create(&d, NULL, &w, &err) != ONESCOPE_OK) {
            (*failures)++;
            continue;
        }
        onescope_soa_body_def b = onescope_soa_body_def_default();
        for (int i = 0; i < 8; i++) {
            b.position[0] = (float)i;
            if (onescope_soa_world_add_body(w, &b, NULL, &err) != ONESCOPE_OK) (*failures)++;
        }
        for (int s = 0; s < 5; s++)
            if (onescope_soa_world_step(w, DT, SUB, &err) != ONESCOPE_OK) (*failures)++;
        onescope_soa_view v;
        onescope_soa_world_view(w, &v, &err);
        if (!(v.position_y[0] < 0.0f)) (*failures)++;
        onescope_soa_world_free(w);
    }
    return NULL;
}

static void test_concurrent_create_destroy(void **state) {
    (void)state;
    pthread_t t[8];
    long failures[8] = {0};
    for (int k = 0; k < 8; k++)
        assert_int_equal(pthread_create(&t[k], NULL, churn, &failures[k]), 0);
    for (int k = 0; k < 8; k++) assert_int_equal(pthread_join(t[k], NULL), 0);
    for (int k = 0; k < 8; k++) assert_int_equal(failures[k], 0);
}

/* onescope_soa_world_poses fills exactly the frame record stores, step after step, and
 * refuses a wrong count or NULLs. */
static void test_world_poses_match_record(void **state) {
    (void)state;
    enum { N = 20 };
    onescope_error err;
    onescope_soa_world *a = callback_world(), *b = callback_world();
    onescope_pose_cache *rec = NULL;
    assert_int_equal(onescope_soa_world_record(a, N, DT, SUB, NULL, NULL, NULL, &rec, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_soa_world_remove_body(b, 3, &err), ONESCOPE_OK);
    onescope_soa_world *c = callback_world();
    assert_int_equal(onescope_soa_world_remove_body(c, 3, &err), ONESCOPE_OK);
    onescope_pose_cache *rec2 = NULL;
    assert_int_equal(onescope_soa_world_record(c, N, DT, SUB, NULL, NULL, NULL, &rec2, &err),
                     ONESCOPE_OK);
    uint32_t n = rec2->entity_count;
    onescope_pose frame[16];
    assert_true(n <= 16);
    for (uint32_t f = 0; f <= N; f++) {
        if (f > 0) assert_int_equal(onescope_soa_world_step(b, DT, SUB, &err), ONESCOPE_OK);
        assert_int_equal(onescope_soa_world_poses(b, frame, n, &err), ONESCOPE_OK);
        for (uint32_t i = 0; i < n; i++) {
            const onescope_pose *want = onescope_pose_cache_pose(rec2, f, i);
            if (!onescope_pose_is_present(want)) {
                assert_false(onescope_pose_is_present(&frame[i]));
                continue;
            }
            assert_memory_equal(&frame[i], want, sizeof frame[i]);
        }
    }
    assert_int_equal(onescope_soa_world_poses(b, frame, n - 1, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "count");
    assert_int_equal(onescope_soa_world_poses(NULL, frame, n, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_soa_world_poses(b, NULL, n, &err), ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(rec);
    onescope_pose_cache_free(rec2);
    onescope_soa_world_free(a);
    onescope_soa_world_free(b);
    onescope_soa_world_free(c);
}

int main(void) {
    if (!onescope_soa_world_available()) {
        /* the stubs must say so rather than pretend */
        onescope_soa_world_def d = onescope_soa_world_def_default();
        onescope_soa_world *w = NULL;
        onescope_error err;
        if (onescope_soa_world_create(&d, NULL, &w, &err) != ONESCOPE_E_UNSUPPORTED || w != NULL) {
            fprintf(stderr, "FAIL: create without Box3D did not report unsupported\n");
            return 1;
        }
        printf("SKIPPED: Box3D not installed\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gravity_and_rest),
        cmocka_unit_test(test_world_poses_match_record),
        cmocka_unit_test(test_lane_addresses_stable),
        cmocka_unit_test(test_two_runs_byte_equal),
        cmocka_unit_test(test_one_ulp_diverges),
        cmocka_unit_test(test_body_refusals),
        cmocka_unit_test(test_world_and_step_refusals),
        cmocka_unit_test(test_joint_refusals),
        cmocka_unit_test(test_more_refusals),
        cmocka_unit_test(test_soft_weld_sags),
        cmocka_unit_test(test_destroy),
        cmocka_unit_test(test_hinge_angle_matches_rotation_lanes),
        cmocka_unit_test(test_off_axis_hinge),
        cmocka_unit_test(test_limit_and_weld),
        cmocka_unit_test(test_spherical_leaves_swing_plane),
        cmocka_unit_test(test_spherical_cone_and_twist_limits),
        cmocka_unit_test(test_force_and_torque_lanes),
        cmocka_unit_test(test_capsule_and_box_rest_heights),
        cmocka_unit_test(test_torque_driven_repeat_runs),
        cmocka_unit_test(test_contact_events),
        cmocka_unit_test(test_contact_events_off),
        cmocka_unit_test(test_diverging_step_refused),
        cmocka_unit_test(test_world_slots),
        cmocka_unit_test(test_event_growth_failure),
        cmocka_unit_test(test_removal_order),
        cmocka_unit_test(test_motors_and_springs),
        cmocka_unit_test(test_pose_dump),
        cmocka_unit_test(test_record_callback_matches_hand_loop),
        cmocka_unit_test(test_record_callback_stops_early),
        cmocka_unit_test(test_record_callback_misuse),
        cmocka_unit_test(test_concurrent_create_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
