/* The SoA world's JSON scene: text -> the scene struct (jansson, positions by json_pos.h).
 * Building a world from it and recording is src/soa_scene_world.c. Format and messages:
 * docs/soa-world.md, "Scene". */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json_pos.h"
#include "onescope/soa_scene.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The JSON path context (json_pos.h), shared with the OTS parser. */
typedef onescope_os_json_ctx scene_ctx;

static const char *kind_of(const json_t *v) {
    switch (json_typeof(v)) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "an array";
        case JSON_STRING: return "a string";
        case JSON_INTEGER: return "an integer";
        case JSON_REAL: return "a number";
        case JSON_TRUE: return "true";
        case JSON_FALSE: return "false";
        case JSON_NULL: return "null";
    }
    return "a value";
}

/* ---- values (each at the path already pushed) ---- */

static onescope_code rd_float(scene_ctx *c, const json_t *v, float *out) {
    if (!json_is_number(v))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a number", "%s", kind_of(v));
    double d = json_number_value(v);
    if (!(d >= -FLT_MAX && d <= FLT_MAX))
        return onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a number a float can hold", "%g", d);
    *out = (float)d;
    return ONESCOPE_OK;
}

static onescope_code rd_floats(scene_ctx *c, const json_t *v, float *out, size_t n) {
    static const char *const want[] = {"", "", "an array of 2 numbers", "an array of 3 numbers",
                                       "an array of 4 numbers"};
    if (!json_is_array(v))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, want[n], "%s", kind_of(v));
    if (json_array_size(v) != n)
        return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, want[n], "%zu elements",
                                     json_array_size(v));
    for (size_t k = 0; k < n; k++) {
        onescope_os_json_push_index(c, k);
        onescope_code rc = rd_float(c, json_array_get(v, k), &out[k]);
        onescope_os_json_pop(c);
        OS_TRY(rc);
    }
    return ONESCOPE_OK;
}

static onescope_code rd_int(scene_ctx *c, const json_t *v, int32_t *out) {
    if (!json_is_integer(v))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "an integer", "%s", kind_of(v));
    json_int_t i = json_integer_value(v);
    if (i < INT32_MIN || i > INT32_MAX)
        return onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a 32-bit integer",
                                     "%" JSON_INTEGER_FORMAT, i);
    *out = (int32_t)i;
    return ONESCOPE_OK;
}

static onescope_code rd_bool(scene_ctx *c, const json_t *v, bool *out) {
    if (!json_is_boolean(v))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "true or false", "%s", kind_of(v));
    *out = json_is_true(v);
    return ONESCOPE_OK;
}

/* A word from words[1..n) (words[0] is the removed kind and never matches). */
static onescope_code rd_word(scene_ctx *c, const json_t *v, const char *const *words, int n,
                             const char *expected, int32_t *out) {
    if (!json_is_string(v))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "%s", kind_of(v));
    for (int k = 1; k < n; k++)
        if (strcmp(json_string_value(v), words[k]) == 0) {
            *out = k;
            return ONESCOPE_OK;
        }
    return onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "\"%s\"",
                                 OS_ECHO(json_string_value(v)));
}

/* Sorts obj's members into vals by the keys table; an unknown key is refused at its value. */
static onescope_code members(scene_ctx *c, const json_t *obj, const char *const *keys, int nkeys,
                             json_t **vals, const char *known) {
    if (!json_is_object(obj))
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "an object", "%s", kind_of(obj));
    for (int i = 0; i < nkeys; i++) vals[i] = NULL;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        int i = 0;
        while (i < nkeys && strcmp(keys[i], key) != 0) i++;
        if (i == nkeys) {
            onescope_os_json_push_key(c, key);
            onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, known, "an unknown key");
            onescope_os_json_pop(c);
            return rc;
        }
        vals[i] = v;
    }
    return ONESCOPE_OK;
}

/* A required key that is absent: the path names it, the position is its object's. */
static onescope_code missing(scene_ctx *c, const char *key, const char *expected) {
    onescope_os_json_push_key(c, key);
    onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "none");
    onescope_os_json_pop(c);
    return rc;
}

/* Reads vals[i] (when present) under keys[i] with one of the readers below. */
enum { F1, F2, F3, F4, I32, BOOL };

static onescope_code rd_member(scene_ctx *c, const char *key, const json_t *v, int type,
                               void *out) {
    if (v == NULL) return ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    onescope_code rc;
    switch (type) {
        case F1: rc = rd_float(c, v, out); break;
        case F2: rc = rd_floats(c, v, out, 2); break;
        case F3: rc = rd_floats(c, v, out, 3); break;
        case F4: rc = rd_floats(c, v, out, 4); break;
        case I32: rc = rd_int(c, v, out); break;
        default: rc = rd_bool(c, v, out); break;
    }
    onescope_os_json_pop(c);
    return rc;
}

static const char *const body_words[] = {"", "sphere", "capsule", "box", "static_box"};
static const char *const joint_words[] = {"", "revolute", "spherical", "weld"};

static onescope_code rd_body(scene_ctx *c, const json_t *o, onescope_soa_scene_body *b) {
    static const char *const keys[] = {
        "kind", "name",    "position", "rotation",    "linear_velocity",    "angular_velocity",
        "size", "density", "friction", "restitution", "rolling_resistance", "parent",
        "limb"};
    json_t *v[COUNT(keys)];
    onescope_soa_body_def *d = &b->def;
    OS_TRY(members(c, o, keys, COUNT(keys), v,
                   "kind, name, position, rotation, linear_velocity, angular_velocity, size, "
                   "density, friction, restitution, rolling_resistance, parent or limb"));
    if (v[0] == NULL) return missing(c, "kind", "a key \"kind\"");
    onescope_os_json_push_key(c, "kind");
    onescope_code rc = rd_word(c, v[0], body_words, COUNT(body_words),
                               "\"sphere\", \"capsule\", \"box\" or \"static_box\"", &d->kind);
    onescope_os_json_pop(c);
    OS_TRY(rc);
    if (v[1] != NULL) {
        onescope_os_json_push_key(c, "name");
        /* json_loadb refuses \u0000, so the name has no NUL inside */
        if (!json_is_string(v[1]))
            rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a string", "%s", kind_of(v[1]));
        onescope_os_json_pop(c);
        OS_TRY(rc);
        size_t n = json_string_length(v[1]);
        b->name = onescope_os_alloc(c->a, n + 1);
        if (b->name == NULL) return onescope_os_json_nomem(c);
        memcpy(b->name, json_string_value(v[1]), n + 1);
    }
    OS_TRY(rd_member(c, "position", v[2], F3, d->position));
    OS_TRY(rd_member(c, "rotation", v[3], F4, d->rotation));
    OS_TRY(rd_member(c, "linear_velocity", v[4], F3, d->linear_velocity));
    OS_TRY(rd_member(c, "angular_velocity", v[5], F3, d->angular_velocity));
    OS_TRY(rd_member(c, "size", v[6], F3, d->size));
    OS_TRY(rd_member(c, "density", v[7], F1, &d->density));
    OS_TRY(rd_member(c, "friction", v[8], F1, &d->friction));
    OS_TRY(rd_member(c, "restitution", v[9], F1, &d->restitution));
    OS_TRY(rd_member(c, "rolling_resistance", v[10], F1, &d->rolling_resistance));
    OS_TRY(rd_member(c, "parent", v[11], I32, &d->parent));
    return rd_member(c, "limb", v[12], I32, &d->limb);
}

static onescope_code rd_motor(scene_ctx *c, const json_t *o, onescope_soa_joint_def *d) {
    static const char *const keys[] = {"speed", "velocity", "max_torque"};
    json_t *v[COUNT(keys)];
    OS_TRY(members(c, o, keys, COUNT(keys), v, "speed, velocity or max_torque"));
    d->enable_motor = true;
    OS_TRY(rd_member(c, "speed", v[0], F1, &d->motor_speed));
    OS_TRY(rd_member(c, "velocity", v[1], F3, d->motor_velocity));
    return rd_member(c, "max_torque", v[2], F1, &d->max_motor_torque);
}

static onescope_code rd_spring(scene_ctx *c, const json_t *o, onescope_soa_joint_def *d) {
    static const char *const keys[] = {"hertz", "damping_ratio", "target_angle", "target_rotation"};
    json_t *v[COUNT(keys)];
    OS_TRY(members(c, o, keys, COUNT(keys), v,
                   "hertz, damping_ratio, target_angle or target_rotation"));
    d->enable_spring = true;
    OS_TRY(rd_member(c, "hertz", v[0], F1, &d->spring_hertz));
    OS_TRY(rd_member(c, "damping_ratio", v[1], F1, &d->spring_damping_ratio));
    OS_TRY(rd_member(c, "target_angle", v[2], F1, &d->target_angle));
    return rd_member(c, "target_rotation", v[3], F4, d->target_rotation);
}

static onescope_code rd_joint(scene_ctx *c, const json_t *o, onescope_soa_scene_joint *j) {
    static const char *const keys[] = {
        "kind",  "body_a", "body_b", "anchor", "axis",  "collide_connected",
        "limit", "cone",   "twist",  "motor",  "spring"};
    json_t *v[COUNT(keys)];
    onescope_soa_joint_def *d = &j->def;
    OS_TRY(members(c, o, keys, COUNT(keys), v,
                   "kind, body_a, body_b, anchor, axis, collide_connected, limit, cone, twist, "
                   "motor or spring"));
    for (int k = 0; k < 3; k++)
        if (v[k] == NULL) return missing(c, keys[k], k == 0 ? "a key \"kind\"" : "a body index");
    onescope_os_json_push_key(c, "kind");
    onescope_code rc = rd_word(c, v[0], joint_words, COUNT(joint_words),
                               "\"revolute\", \"spherical\" or \"weld\"", &d->kind);
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(rd_member(c, "body_a", v[1], I32, &d->body_a));
    OS_TRY(rd_member(c, "body_b", v[2], I32, &d->body_b));
    OS_TRY(rd_member(c, "anchor", v[3], F3, d->anchor));
    OS_TRY(rd_member(c, "axis", v[4], F3, d->axis));
    OS_TRY(rd_member(c, "collide_connected", v[5], BOOL, &d->collide_connected));
    float pair[2];
    if (v[6] != NULL) {
        OS_TRY(rd_member(c, "limit", v[6], F2, pair));
        d->enable_limit = true, d->lower_angle = pair[0], d->upper_angle = pair[1];
    }
    if (v[7] != NULL) {
        OS_TRY(rd_member(c, "cone", v[7], F1, &d->cone_angle));
        d->enable_cone_limit = true;
    }
    if (v[8] != NULL) {
        OS_TRY(rd_member(c, "twist", v[8], F2, pair));
        d->enable_twist_limit = true, d->lower_twist = pair[0], d->upper_twist = pair[1];
    }
    if (v[9] != NULL) {
        onescope_os_json_push_key(c, "motor");
        rc = rd_motor(c, v[9], d);
        onescope_os_json_pop(c);
        OS_TRY(rc);
    }
    if (v[10] != NULL) {
        onescope_os_json_push_key(c, "spring");
        rc = rd_spring(c, v[10], d);
        onescope_os_json_pop(c);
        OS_TRY(rc);
    }
    return ONESCOPE_OK;
}

/* An array member: present and an array, or absent when optional. */
static onescope_code rd_list(scene_ctx *c, const char *key, const json_t *v, size_t lo, size_t hi,
                             const char *expected, size_t *count) {
    *count = 0;
    if (v == NULL) return lo > 0 ? missing(c, key, expected) : ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    onescope_code rc = ONESCOPE_OK;
    if (!json_is_array(v))
        rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "%s", kind_of(v));
    else if (json_array_size(v) < lo || json_array_size(v) > hi)
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%zu", json_array_size(v));
    else
        *count = json_array_size(v);
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code rd_scene(scene_ctx *c, const json_t *root, onescope_soa_scene *s) {
    static const char *const keys[] = {"gravity",      "dt",     "substeps",
                                       "enable_sleep", "bodies", "joints"};
    json_t *v[COUNT(keys)];
    OS_TRY(members(c, root, keys, COUNT(keys), v,
                   "gravity, dt, substeps, enable_sleep, bodies or joints"));
    OS_TRY(rd_member(c, "gravity", v[0], F3, s->world.gravity));
    OS_TRY(rd_member(c, "dt", v[1], F1, &s->dt));
    if (!(s->dt > 0.0f && s->dt <= 1.0f)) {
        onescope_os_json_push_key(c, "dt");
        onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a time step in (0, 1] s", "%g", (double)s->dt);
        onescope_os_json_pop(c);
        return ONESCOPE_E_RANGE;
    }
    OS_TRY(rd_member(c, "substeps", v[2], I32, &s->substeps));
    if (s->substeps < 1 || s->substeps > ONESCOPE_SOA_MAX_SUBSTEPS) {
        onescope_os_json_push_key(c, "substeps");
        onescope_os_json_fail(c, ONESCOPE_E_RANGE, "1..64 substeps", "%d", s->substeps);
        onescope_os_json_pop(c);
        return ONESCOPE_E_RANGE;
    }
    OS_TRY(rd_member(c, "enable_sleep", v[3], BOOL, &s->world.enable_sleep));
    size_t nb = 0, nj = 0;
    OS_TRY(rd_list(c, "bodies", v[4], 1, ONESCOPE_OSPC_MAX_ENTITIES, "an array of 1..65536 bodies",
                   &nb));
    OS_TRY(rd_list(c, "joints", v[5], 0, ONESCOPE_SOA_MAX_CAPACITY,
                   "an array of at most 1000000 joints", &nj));
    /* each element's line and column by one walk over each array, not from the start */
    onescope_os_json_cursor cur;
    onescope_os_json_push_key(c, "bodies");
    onescope_os_json_cursor_init(&cur, c->text, c->size,
                                 onescope_os_json_locate(c->text, c->size, c->segs, c->depth));
    onescope_os_json_pop(c);
    s->bodies = onescope_os_calloc(c->a, nb, sizeof *s->bodies);
    if (s->bodies == NULL) return onescope_os_json_nomem(c);
    s->body_count = (uint32_t)nb;
    for (size_t i = 0; i < nb; i++) {
        s->bodies[i].def = onescope_soa_body_def_default();
        s->bodies[i].line = cur.line;
        s->bodies[i].column = cur.column;
        onescope_os_json_cursor_next(&cur);
        onescope_os_json_push_key(c, "bodies");
        onescope_os_json_push_index(c, i);
        onescope_code rc = rd_body(c, json_array_get(v[4], i), &s->bodies[i]);
        c->depth -= 2;
        OS_TRY(rc);
    }
    if (nj > 0) {
        s->joints = onescope_os_calloc(c->a, nj, sizeof *s->joints);
        if (s->joints == NULL) return onescope_os_json_nomem(c);
        s->joint_count = (uint32_t)nj;
    }
    onescope_os_json_push_key(c, "joints");
    onescope_os_json_cursor_init(&cur, c->text, c->size,
                                 onescope_os_json_locate(c->text, c->size, c->segs, c->depth));
    onescope_os_json_pop(c);
    for (size_t i = 0; i < nj; i++) {
        s->joints[i].def = onescope_soa_joint_def_default();
        s->joints[i].line = cur.line;
        s->joints[i].column = cur.column;
        onescope_os_json_cursor_next(&cur);
        onescope_os_json_push_key(c, "joints");
        onescope_os_json_push_index(c, i);
        onescope_code rc = rd_joint(c, json_array_get(v[5], i), &s->joints[i]);
        c->depth -= 2;
        OS_TRY(rc);
    }
    s->world.body_capacity = s->body_count;
    s->world.joint_capacity = s->joint_count;
    return ONESCOPE_OK;
}

void onescope_soa_scene_free(onescope_soa_scene *scene) {
    if (scene == NULL) return;
    const onescope_allocator *a = scene->allocator;
    if (scene->bodies != NULL)
        for (uint32_t i = 0; i < scene->body_count; i++) onescope_os_free(a, scene->bodies[i].name);
    onescope_os_free(a, scene->bodies);
    onescope_os_free(a, scene->joints);
    onescope_os_free(a, scene->name);
    onescope_os_free(a, scene);
}

onescope_code onescope_soa_scene_parse(const void *data, size_t size, const char *name,
                                       const onescope_parse_options *options,
                                       onescope_soa_scene **out, onescope_error *error) {
    if (name == NULL) name = "scene";
    OS_TRY(onescope_os_check_input_size(size, options, name, error));
    if (out == NULL || (data == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET,
                                out ? "data" : "out", "a non-NULL pointer", "NULL");
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    json_error_t je;
    json_t *root = json_loadb(data ? data : "", size, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) return onescope_os_json_load_fail(error, name, data, size, &je);
    scene_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    c.text = data;
    c.size = size;
    c.root_field = "scene";
    onescope_code rc = ONESCOPE_OK;
    onescope_soa_scene *s = onescope_os_calloc(a, 1, sizeof *s);
    size_t name_len = strlen(name);
    if (s == NULL) {
        rc = onescope_os_json_nomem(&c);
    } else {
        s->allocator = a;
        s->world = onescope_soa_world_def_default();
        s->dt = 1.0f / 60.0f;
        s->substeps = 4;
        s->name = onescope_os_alloc(a, name_len + 1);
        if (s->name == NULL)
            rc = onescope_os_json_nomem(&c);
        else
            memcpy(s->name, name, name_len + 1);
    }
    if (rc == ONESCOPE_OK) rc = rd_scene(&c, root, s);
    json_decref(root);
    if (rc != ONESCOPE_OK) {
        onescope_soa_scene_free(s);
        return rc;
    }
    *out = s;
    return ONESCOPE_OK;
}
