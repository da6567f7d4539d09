/* The SoA world's descriptors: their defaults and their rules, without Box3D. The world builder
 * (soa_world.c) and the scene parser (soa_scene.c) both check through these functions, so a
 * scene value is refused with the same words as a def filled by hand. docs/soa-world.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "numfmt.h"
#include "soa_internal.h"

/* Marks a def that came from its _default() initialiser (zero is not every field's default). */
#define DEF_COOKIE 0x4F534442u /* "OSDB" */

#define OS_SOA_MAX_COORD 1.0e4f        /* m: |position component| */
#define OS_SOA_MIN_SIZE 0.001f         /* m */
#define OS_SOA_MAX_SIZE 1000.0f        /* m */
#define OS_SOA_MIN_HALF_LENGTH 0.0025f /* m: Box3D's shortest capsule segment is 0.005 m */
/* kg/m^3, a dynamic body's least density. Box3D computes a body's mass as density x volume in
 * float and its inverse as 1/mass: the smallest body the size rules allow (a sphere of radius
 * 0.001 m, 4.19e-9 m^3) must weigh a normal float (>= 1.18e-38 kg) or 1/mass overflows and
 * Box3D's solver turns the body's velocity non-finite ("unstable", measured at 1e-30 kg/m^3 and
 * below; at 1e-45 the mass of a 0.5 m sphere is 0). At 1e-20 that body weighs 4.2e-29 kg, nine
 * decades above the float's smallest normal number. docs/soa-world.md, "Body descriptor". */
#define OS_SOA_MIN_DENSITY 1.0e-20f
#define OS_SOA_PI 3.14159265358979f
#define OS_SOA_MAX_LIMIT (0.99f * OS_SOA_PI)

onescope_soa_world_def onescope_soa_world_def_default(void) {
    onescope_soa_world_def d;
    memset(&d, 0, sizeof d);
    d.body_capacity = 1024;
    d.joint_capacity = 256;
    d.gravity[1] = -9.81f;
    d.enable_sleep = true;
    d.contact_events = true;
    d.hit_speed_threshold = 1.0f;
    d.internal_cookie = DEF_COOKIE;
    return d;
}

onescope_soa_body_def onescope_soa_body_def_default(void) {
    onescope_soa_body_def d;
    memset(&d, 0, sizeof d);
    d.kind = ONESCOPE_SOA_SPHERE;
    d.rotation[3] = 1.0f;
    d.size[0] = d.size[1] = d.size[2] = 0.5f;
    d.density = 1000.0f;
    d.friction = 0.6f;
    d.parent = -1;
    d.internal_cookie = DEF_COOKIE;
    return d;
}

onescope_soa_joint_def onescope_soa_joint_def_default(void) {
    onescope_soa_joint_def d;
    memset(&d, 0, sizeof d);
    d.kind = ONESCOPE_SOA_REVOLUTE;
    d.body_a = -1;
    d.body_b = -1;
    d.axis[2] = 1.0f;
    d.target_rotation[3] = 1.0f;
    d.internal_cookie = DEF_COOKIE;
    return d;
}

/* ---- small helpers ---- */

static onescope_code bad_float(onescope_error *error, const char *input, const char *field,
                               const char *expected, float found) {
    return onescope_os_fail(error, isfinite(found) ? ONESCOPE_E_RANGE : ONESCOPE_E_NOT_FINITE,
                            input, OS_NO_OFFSET, field, expected, "%s",
                            onescope_os_num_float(found).s);
}

/* A def made without its _default() (zeroed or filled by hand) is refused by name. */
static onescope_code check_cookie(onescope_error *error, const char *in, const char *type,
                                  uint32_t cookie) {
    if (cookie == DEF_COOKIE) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, type,
                            "a def from its _default() initialiser",
                            "one without its cookie (0x%08x)", (unsigned)cookie);
}

/* Checks n floats: finite, and within [lo, hi]. */
static onescope_code check_floats(onescope_error *error, const char *input, const char *name,
                                  const float *v, int n, float lo, float hi, const char *expected) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] < lo || v[i] > hi) {
            char field[96];
            if (n == 1)
                onescope_os_copy_text(field, sizeof field, name);
            else
                snprintf(field, sizeof field, "%s[%d]", name, i);
            return bad_float(error, input, field, expected, v[i]);
        }
    }
    return ONESCOPE_OK;
}

/* Normalises q (x y z w) in double; refuses non-finite or (near) zero quaternions. */
static onescope_code unit_quat(onescope_error *error, const char *input, const char *name,
                               const float q[4], float out[4]) {
    OS_TRY(check_floats(error, input, name, q, 4, -1.0e6f, 1.0e6f, "a finite quaternion x y z w"));
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double len2 = x * x + y * y + z * z + w * w;
    if (!(len2 > 1e-12))
        return onescope_os_fail(error, ONESCOPE_E_RANGE, input, OS_NO_OFFSET, name,
                                "a non-zero quaternion", "%s %s %s %s",
                                onescope_os_num_float(q[0]).s, onescope_os_num_float(q[1]).s,
                                onescope_os_num_float(q[2]).s, onescope_os_num_float(q[3]).s);
    double s = 1.0 / sqrt(len2);
    out[0] = (float)(x * s);
    out[1] = (float)(y * s);
    out[2] = (float)(z * s);
    out[3] = (float)(w * s);
    return ONESCOPE_OK;
}

/* ---- the rules ---- */

onescope_code onescope_os_soa_check_world(const onescope_soa_world_def *def, const char *in,
                                          onescope_error *error) {
    OS_TRY(check_cookie(error, in, "onescope_soa_world_def", def->internal_cookie));
    if (def->body_capacity < 1 || def->body_capacity > ONESCOPE_SOA_MAX_CAPACITY)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "body_capacity",
                                "1..1000000", "%u", def->body_capacity);
    if (def->joint_capacity > ONESCOPE_SOA_MAX_CAPACITY)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "joint_capacity",
                                "0..1000000", "%u", def->joint_capacity);
    OS_TRY(check_floats(error, in, "gravity", def->gravity, 3, -1.0e4f, 1.0e4f,
                        "a finite acceleration, |g| <= 10000 m/s^2"));
    return check_floats(error, in, "hit_speed_threshold", &def->hit_speed_threshold, 1, 0.0f,
                        1.0e6f, "a finite speed >= 0");
}

onescope_code onescope_os_soa_check_dt(float dt, const char *in, onescope_error *error) {
    if (!isfinite(dt) || !(dt > 0.0f) || dt > 1.0f)
        return bad_float(error, in, "dt", "a time step in (0, 1] s", dt);
    return ONESCOPE_OK;
}

onescope_code onescope_os_soa_check_substeps(int substeps, const char *in, onescope_error *error) {
    if (substeps < 1 || substeps > ONESCOPE_SOA_MAX_SUBSTEPS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "substeps",
                                "1..64 substeps", "%d", substeps);
    return ONESCOPE_OK;
}

onescope_code onescope_os_soa_check_body(const onescope_soa_body_def *d, uint32_t earlier,
                                         const char *in, float rotation[4], onescope_error *error) {
    OS_TRY(check_cookie(error, in, "onescope_soa_body_def", d->internal_cookie));
    if (d->kind < ONESCOPE_SOA_SPHERE || d->kind > ONESCOPE_SOA_STATIC_BOX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "kind",
                                "1 sphere, 2 capsule, 3 box or 4 static box", "%d", (int)d->kind);
    OS_TRY(check_floats(error, in, "position", d->position, 3, -OS_SOA_MAX_COORD, OS_SOA_MAX_COORD,
                        "a finite coordinate, |x| <= 10000 m"));
    OS_TRY(unit_quat(error, in, "rotation", d->rotation, rotation));
    bool is_static = d->kind == ONESCOPE_SOA_STATIC_BOX;
    float vmax = is_static ? 0.0f : 1.0e4f;
    const char *vexp = is_static ? "0 for a static box" : "a finite speed, |v| <= 10000 m/s";
    OS_TRY(check_floats(error, in, "linear_velocity", d->linear_velocity, 3, -vmax, vmax, vexp));
    const char *wexp = is_static ? "0 for a static box" : "a finite rate, |w| <= 10000 rad/s";
    OS_TRY(check_floats(error, in, "angular_velocity", d->angular_velocity, 3, -vmax, vmax, wexp));
    switch (d->kind) {
        case ONESCOPE_SOA_SPHERE:
            OS_TRY(check_floats(error, in, "size[0]", &d->size[0], 1, OS_SOA_MIN_SIZE,
                                OS_SOA_MAX_SIZE, "a sphere radius in 0.001..1000 m"));
            break;
        case ONESCOPE_SOA_CAPSULE:
            OS_TRY(check_floats(error, in, "size[0]", &d->size[0], 1, OS_SOA_MIN_SIZE,
                                OS_SOA_MAX_SIZE, "a capsule radius in 0.001..1000 m"));
            OS_TRY(check_floats(error, in, "size[1]", &d->size[1], 1, OS_SOA_MIN_HALF_LENGTH,
                                OS_SOA_MAX_SIZE, "a capsule half length in 0.0025..1000 m"));
            break;
        default:
            OS_TRY(check_floats(error, in, "size", d->size, 3, OS_SOA_MIN_SIZE, OS_SOA_MAX_SIZE,
                                "a half extent in 0.001..1000 m"));
            break;
    }
    /* sizes a kind does not use must still be finite numbers */
    OS_TRY(check_floats(error, in, "size", d->size, 3, -INFINITY, INFINITY, "a finite number"));
    if (is_static)
        OS_TRY(check_floats(error, in, "density", &d->density, 1, 0.0f, 1.0e9f,
                            "a finite density >= 0 kg/m^3"));
    else if (!isfinite(d->density) || !(d->density >= OS_SOA_MIN_DENSITY) || d->density > 1.0e9f)
        return bad_float(error, in, "density", "a finite density in 1e-20..1e9 kg/m^3", d->density);
    OS_TRY(check_floats(error, in, "friction", &d->friction, 1, 0.0f, 1.0e3f,
                        "a friction in 0..1000"));
    OS_TRY(check_floats(error, in, "restitution", &d->restitution, 1, 0.0f, 1.0e3f,
                        "a restitution in 0..1000"));
    OS_TRY(check_floats(error, in, "rolling_resistance", &d->rolling_resistance, 1, 0.0f, 1.0e3f,
                        "a rolling resistance in 0..1000"));
    if (d->parent < -1 || (d->parent >= 0 && (uint32_t)d->parent >= earlier))
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "parent",
                                "-1 or the index of an earlier body", "%d (bodies: %u)",
                                (int)d->parent, earlier);
    return ONESCOPE_OK;
}

onescope_code onescope_os_soa_check_joint(const onescope_soa_joint_def *d, const char *in,
                                          float axis[3], float target[4], onescope_error *error) {
    OS_TRY(check_cookie(error, in, "onescope_soa_joint_def", d->internal_cookie));
    if (d->kind < ONESCOPE_SOA_REVOLUTE || d->kind > ONESCOPE_SOA_WELD)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "kind",
                                "1 revolute, 2 spherical or 3 weld", "%d", (int)d->kind);
    OS_TRY(check_floats(error, in, "anchor", d->anchor, 3, -OS_SOA_MAX_COORD, OS_SOA_MAX_COORD,
                        "a finite coordinate, |x| <= 10000 m"));
    OS_TRY(check_floats(error, in, "axis", d->axis, 3, -1.0e6f, 1.0e6f, "a finite direction"));
    double ax = d->axis[0], ay = d->axis[1], az = d->axis[2];
    double len = sqrt(ax * ax + ay * ay + az * az);
    if (!(len > 1e-6))
        return onescope_os_fail(
            error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "axis", "a non-zero direction", "%s %s %s",
            onescope_os_num_float(d->axis[0]).s, onescope_os_num_float(d->axis[1]).s,
            onescope_os_num_float(d->axis[2]).s);
    axis[0] = (float)(ax / len), axis[1] = (float)(ay / len), axis[2] = (float)(az / len);
    const char *lim = "an angle in -0.99 pi..0.99 pi rad";
    OS_TRY(check_floats(error, in, "lower_angle", &d->lower_angle, 1, -OS_SOA_MAX_LIMIT,
                        OS_SOA_MAX_LIMIT, lim));
    OS_TRY(check_floats(error, in, "upper_angle", &d->upper_angle, 1, d->lower_angle,
                        OS_SOA_MAX_LIMIT, "an angle in lower_angle..0.99 pi rad"));
    OS_TRY(check_floats(error, in, "cone_angle", &d->cone_angle, 1, 0.0f, OS_SOA_PI,
                        "an angle in 0..pi rad"));
    OS_TRY(check_floats(error, in, "lower_twist", &d->lower_twist, 1, -OS_SOA_MAX_LIMIT,
                        OS_SOA_MAX_LIMIT, lim));
    OS_TRY(check_floats(error, in, "upper_twist", &d->upper_twist, 1, d->lower_twist,
                        OS_SOA_MAX_LIMIT, "an angle in lower_twist..0.99 pi rad"));
    OS_TRY(check_floats(error, in, "motor_speed", &d->motor_speed, 1, -1.0e4f, 1.0e4f,
                        "a finite rate, |w| <= 10000 rad/s"));
    OS_TRY(check_floats(error, in, "motor_velocity", d->motor_velocity, 3, -1.0e4f, 1.0e4f,
                        "a finite rate, |w| <= 10000 rad/s"));
    OS_TRY(check_floats(error, in, "max_motor_torque", &d->max_motor_torque, 1, 0.0f, 1.0e12f,
                        "a finite torque >= 0 N m"));
    OS_TRY(check_floats(error, in, "spring_hertz", &d->spring_hertz, 1, 0.0f, 1.0e6f,
                        "a finite frequency >= 0 Hz"));
    OS_TRY(check_floats(error, in, "spring_damping_ratio", &d->spring_damping_ratio, 1, 0.0f,
                        1.0e6f, "a finite ratio >= 0"));
    OS_TRY(check_floats(error, in, "target_angle", &d->target_angle, 1, -OS_SOA_PI, OS_SOA_PI,
                        "an angle in -pi..pi rad"));
    target[0] = target[1] = target[2] = 0.0f, target[3] = 1.0f;
    if (d->kind == ONESCOPE_SOA_SPHERICAL && d->enable_spring)
        return unit_quat(error, in, "target_rotation", d->target_rotation, target);
    return check_floats(error, in, "target_rotation", d->target_rotation, 4, -1.0e6f, 1.0e6f,
                        "a finite quaternion x y z w");
}

onescope_code onescope_os_soa_check_joint_bodies(const onescope_soa_joint_def *d, uint32_t count,
                                                 onescope_os_soa_kind_fn *kind, const void *user,
                                                 const char *in, onescope_error *error) {
    const char *names[2] = {"body_a", "body_b"};
    int32_t ids[2] = {d->body_a, d->body_b};
    for (int k = 0; k < 2; k++) {
        if (ids[k] < 0 || (uint32_t)ids[k] >= count)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, names[k],
                                    "the index of a body", "%d (bodies: %u)", (int)ids[k], count);
        if (kind(user, (uint32_t)ids[k]) == ONESCOPE_SOA_REMOVED)
            return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, in, OS_NO_OFFSET, names[k],
                                    "a body that is not removed", "%d, removed", (int)ids[k]);
    }
    if (d->body_a == d->body_b)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "body_b",
                                "a body other than body_a", "%d", (int)d->body_b);
    if (kind(user, (uint32_t)d->body_a) == ONESCOPE_SOA_STATIC_BOX &&
        kind(user, (uint32_t)d->body_b) == ONESCOPE_SOA_STATIC_BOX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "body_b",
                                "a dynamic body (both bodies are static)", "%d", (int)d->body_b);
    return ONESCOPE_OK;
}
