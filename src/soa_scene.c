/* The SoA world's JSON scene: text -> the scene struct, read in one pass by the pull reader of
 * json_reader.c, each value checked as it passes. Building a world from it and recording is
 * src/soa_scene_world.c. Format and messages: docs/soa-world.md, "Scene". */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "numfmt.h"
#include "json_pos.h"
#include "json_reader.h"
#include "onescope/soa_scene.h"
#include "soa_internal.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Where each value of the body or joint being read starts, so that a descriptor rule of
 * soa_rules.c, checked once the object is read, points at the value it refuses: one slot per
 * number, and for an array one for its '[' followed by one per element. */
enum {
    B_KIND,
    B_POSITION,
    B_ROTATION = B_POSITION + 4,
    B_LINEAR = B_ROTATION + 5,
    B_ANGULAR = B_LINEAR + 4,
    B_SIZE = B_ANGULAR + 4,
    B_DENSITY = B_SIZE + 4,
    B_FRICTION,
    B_RESTITUTION,
    B_ROLLING,
    B_PARENT,
    B_SLOTS
};
enum {
    J_KIND,
    J_BODY_A,
    J_BODY_B,
    J_ANCHOR,
    J_AXIS = J_ANCHOR + 4,
    J_LOWER = J_AXIS + 4,
    J_UPPER,
    J_CONE,
    J_LOWER_TWIST,
    J_UPPER_TWIST,
    J_MOTOR_SPEED,
    J_MOTOR_VELOCITY,
    J_MAX_TORQUE = J_MOTOR_VELOCITY + 4,
    J_HERTZ,
    J_DAMPING,
    J_TARGET_ANGLE,
    J_TARGET_ROTATION,
    J_PAIR = J_TARGET_ROTATION + 5, /* limit or twist: [lower, upper] */
    J_SLOTS = J_PAIR + 3
};
_Static_assert((int)J_SLOTS >= (int)B_SLOTS, "the slots hold a joint or a body");

/* A descriptor field as the rules name it, its first slot, its element count, and its JSON
 * path in the object where that differs (NULL: the same). */
typedef struct field_slot {
    const char *name;
    int slot, n;
    const char *path;
} field_slot;

typedef struct scene_in {
    onescope_os_jr r;
    onescope_os_json_ctx c; /* the JSON path (json_pos.h), shared with the OTS reader */
    onescope_os_jr_pos at;  /* where an error points: the value read, or the object missing a key */
    onescope_os_jr_pos *mark;          /* where the value being read notes its position, or NULL */
    onescope_os_jr_pos slot[J_SLOTS];  /* the object being read (zero: not in the text) */
    onescope_os_jr_pos gravity[4];     /* the scene's gravity array and elements */
    onescope_os_jr_pos (*joint_at)[3]; /* per joint: its '{', body_a and body_b */
    size_t joint_at_cap;
} scene_in;

/* Notes where the value just reached starts, when the member asked for it. */
static void note(scene_in *in, int k) {
    if (in->mark != NULL) in->mark[k] = in->r.at;
}

/* A rule of soa_rules.c refused what was read: the error becomes the scene's, its field the
 * JSON path (prefix, then the rule's field) and its position the slot of the value the rule
 * names, or `object` for a value the text does not give. */
static onescope_code rule_failed(scene_in *in, onescope_code rc, const char *prefix,
                                 const field_slot *fields, int nfields,
                                 const onescope_os_jr_pos *slots, onescope_os_jr_pos object) {
    onescope_error *e = in->c.error;
    if (e == NULL) return rc;
    onescope_os_jr_pos at = object;
    size_t len = strcspn(e->field, "[");
    const char *path = e->field, *rest = "";
    for (int k = 0; k < nfields; k++) {
        if (strlen(fields[k].name) != len || memcmp(fields[k].name, e->field, len) != 0) continue;
        int i = fields[k].slot;
        /* the rules name elements 0..3: "size[2]" */
        int element = e->field[len] == '[' ? e->field[len + 1] - '0' : -1;
        if (element >= 0 && element < fields[k].n) i += 1 + element;
        if (slots[i].line != 0) at = slots[i];
        if (fields[k].path != NULL) path = fields[k].path, rest = e->field + len;
        break;
    }
    char field[2 * sizeof e->field];
    snprintf(field, sizeof field, "%s%s%s%s", prefix, prefix[0] ? "." : "", path, rest);
    onescope_os_copy_text(e->field, sizeof e->field, field);
    onescope_os_copy_text(e->input, sizeof e->input, in->c.name);
    e->has_offset = true;
    e->offset = at.offset;
    e->line = at.line;
    e->column = at.column;
    return rc;
}

/* The position of the path's value for onescope_os_json_fail: the reader gives it for free. */
static void locate(void *user, const onescope_os_json_seg *segs, int depth, uint64_t *offset,
                   uint32_t *line, uint32_t *column) {
    (void)segs, (void)depth;
    const scene_in *in = user;
    *offset = in->at.offset;
    *line = in->at.line;
    *column = in->at.column;
}

static const char *kind_of(const onescope_os_jr *r) {
    return r->kind == OS_JR_NUMBER && !r->is_integer ? "a number" : onescope_os_jr_kind_name(r);
}

static onescope_code wrong_type(scene_in *in, const char *expected) {
    in->at = in->r.at;
    return onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, expected, "%s", kind_of(&in->r));
}

/* ---- values (the reader on the value's first token, the path pushed; each reads the value to
 * its end) ---- */

static onescope_code rd_float(scene_in *in, float *out) {
    in->at = in->r.at;
    note(in, 0);
    if (in->r.kind != OS_JR_NUMBER) return wrong_type(in, "a number");
    double d = in->r.number;
    if (!(d >= -FLT_MAX && d <= FLT_MAX))
        return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, "a number a float can hold", "%s",
                                     onescope_os_num(d).s);
    *out = (float)d;
    return ONESCOPE_OK;
}

/* An array of exactly n numbers. Its length is checked before its elements, so the whole array
 * is read first and the first bad element is reported once the length is right. */
static onescope_code rd_floats(scene_in *in, float *out, size_t n) {
    static const char *const want[] = {"", "", "an array of 2 numbers", "an array of 3 numbers",
                                       "an array of 4 numbers"};
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, want[n]);
    note(in, 0);
    onescope_os_jr_pos start = r->at, bad_at = start;
    size_t count = 0, bad = SIZE_MAX;
    const char *bad_kind = NULL; /* NULL: the bad element is a number a float cannot hold */
    double bad_value = 0.0;
    for (;; count++) {
        OS_TRY(onescope_os_jr_next(r));
        if (r->kind == OS_JR_ARRAY_END) break;
        bool number = r->kind == OS_JR_NUMBER;
        if (bad == SIZE_MAX && (!number || !(r->number >= -FLT_MAX && r->number <= FLT_MAX))) {
            bad = count;
            bad_at = r->at;
            bad_kind = number ? NULL : kind_of(r);
            bad_value = number ? r->number : 0.0;
        } else if (number && count < n) {
            out[count] = (float)r->number;
            note(in, 1 + (int)count);
        }
        OS_TRY(onescope_os_jr_skip(r));
    }
    in->at = start;
    if (count != n)
        return onescope_os_json_fail(&in->c, ONESCOPE_E_LENGTH, want[n], "%zu elements", count);
    if (bad == SIZE_MAX) return ONESCOPE_OK;
    in->at = bad_at;
    onescope_os_json_push_index(&in->c, bad);
    onescope_code rc =
        bad_kind != NULL
            ? onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, "a number", "%s", bad_kind)
            : onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, "a number a float can hold", "%s",
                                    onescope_os_num(bad_value).s);
    onescope_os_json_pop(&in->c);
    return rc;
}

static onescope_code rd_int(scene_in *in, int32_t *out) {
    in->at = in->r.at;
    note(in, 0);
    if (in->r.kind != OS_JR_NUMBER || !in->r.is_integer) return wrong_type(in, "an integer");
    long long i = in->r.integer;
    if (i < INT32_MIN || i > INT32_MAX)
        return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, "a 32-bit integer", "%lld", i);
    *out = (int32_t)i;
    return ONESCOPE_OK;
}

static onescope_code rd_bool(scene_in *in, bool *out) {
    in->at = in->r.at;
    if (in->r.kind != OS_JR_TRUE && in->r.kind != OS_JR_FALSE)
        return wrong_type(in, "true or false");
    *out = in->r.kind == OS_JR_TRUE;
    return ONESCOPE_OK;
}

/* A word from words[1..n) (words[0] is the removed kind and never matches). */
static onescope_code rd_word(scene_in *in, const char *const *words, int n, const char *expected,
                             int32_t *out) {
    in->at = in->r.at;
    note(in, 0);
    if (in->r.kind != OS_JR_STRING) return wrong_type(in, expected);
    for (int k = 1; k < n; k++)
        if (strcmp(in->r.text, words[k]) == 0) {
            *out = k;
            return ONESCOPE_OK;
        }
    return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, expected, "\"%s\"", OS_ECHO(in->r.text));
}

/* A string copied out (the reader refuses \u0000, so it has no NUL inside). */
static onescope_code rd_name(scene_in *in, char **out) {
    in->at = in->r.at;
    if (in->r.kind != OS_JR_STRING) return wrong_type(in, "a string");
    *out = onescope_os_alloc(in->c.a, in->r.len + 1);
    if (*out == NULL) return onescope_os_json_nomem(&in->c);
    memcpy(*out, in->r.text, in->r.len + 1);
    return ONESCOPE_OK;
}

/* ---- objects ---- */

typedef struct object_spec {
    const char *const *keys;
    int n;
    const char *known;             /* the keys, for an unknown key's "expected" */
    uint32_t required;             /* bit k: keys[k] must be there */
    const char *const *if_missing; /* the "expected" of each required key that is absent */
} object_spec;

/* Reads the value of member keys[key] (the reader on its first token, the key on the path). */
typedef onescope_code member_fn(scene_in *in, int key, void *obj);

/* An object member by member in file order: an unknown key (at its value), a key given twice (at
 * the second value), a value the member refuses, and at the end each required key that is
 * absent (the path names the key, the position is the object's '{') are errors. */
static onescope_code rd_object(scene_in *in, const object_spec *o, member_fn *fn, void *obj) {
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_OBJECT) return wrong_type(in, "an object");
    onescope_os_jr_pos start = r->at;
    int path = in->c.depth;
    uint32_t seen = 0;
    for (;;) {
        OS_TRY(onescope_os_jr_next(r));
        if (r->kind == OS_JR_OBJECT_END) break;
        int k = 0;
        while (k < o->n && strcmp(o->keys[k], r->text) != 0) k++;
        char unknown[ONESCOPE_OS_ECHO_MAX + 1] = "";
        if (k == o->n) onescope_os_copy_text(unknown, sizeof unknown, r->text);
        OS_TRY(onescope_os_jr_next(r));
        in->at = r->at;
        onescope_code rc;
        onescope_os_json_push_key(&in->c, k < o->n ? o->keys[k] : unknown);
        if (k == o->n) {
            rc = onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, o->known, "an unknown key");
        } else if (seen >> k & 1) {
            rc = onescope_os_json_fail(&in->c, ONESCOPE_E_DUPLICATE, "each key once per object",
                                       "\"%s\" a second time", o->keys[k]);
        } else {
            seen |= 1u << k;
            rc = fn(in, k, obj);
        }
        in->c.depth = path;
        OS_TRY(rc);
    }
    for (int k = 0; k < o->n; k++) {
        if (!(o->required >> k & 1) || (seen >> k & 1)) continue;
        in->at = start;
        onescope_os_json_push_key(&in->c, o->keys[k]);
        onescope_code rc = onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, o->if_missing[k], "none");
        in->c.depth = path;
        return rc;
    }
    return ONESCOPE_OK;
}

static const char *const body_words[] = {"", "sphere", "capsule", "box", "static_box"};
static const char *const joint_words[] = {"", "revolute", "spherical", "weld"};

/* The slot of each key of rd_body's list (-1: no rule reads it: name, limb). */
static const int body_key_slot[] = {B_KIND,    -1,       B_POSITION, B_ROTATION, B_LINEAR,
                                    B_ANGULAR, B_SIZE,   B_DENSITY,  B_FRICTION, B_RESTITUTION,
                                    B_ROLLING, B_PARENT, -1};
/* The fields the body rules name, where they are. */
static const field_slot body_fields[] = {{"kind", B_KIND, 1, NULL},
                                         {"position", B_POSITION, 3, NULL},
                                         {"rotation", B_ROTATION, 4, NULL},
                                         {"linear_velocity", B_LINEAR, 3, NULL},
                                         {"angular_velocity", B_ANGULAR, 3, NULL},
                                         {"size", B_SIZE, 3, NULL},
                                         {"density", B_DENSITY, 1, NULL},
                                         {"friction", B_FRICTION, 1, NULL},
                                         {"restitution", B_RESTITUTION, 1, NULL},
                                         {"rolling_resistance", B_ROLLING, 1, NULL},
                                         {"parent", B_PARENT, 1, NULL}};

static onescope_code body_member(scene_in *in, int key, void *obj) {
    onescope_soa_scene_body *b = obj;
    onescope_soa_body_def *d = &b->def;
    in->mark = body_key_slot[key] < 0 ? NULL : in->slot + body_key_slot[key];
    switch (key) {
        case 0:
            return rd_word(in, body_words, COUNT(body_words),
                           "\"sphere\", \"capsule\", \"box\" or \"static_box\"", &d->kind);
        case 1: return rd_name(in, &b->name);
        case 2: return rd_floats(in, d->position, 3);
        case 3: return rd_floats(in, d->rotation, 4);
        case 4: return rd_floats(in, d->linear_velocity, 3);
        case 5: return rd_floats(in, d->angular_velocity, 3);
        case 6: return rd_floats(in, d->size, 3);
        case 7: return rd_float(in, &d->density);
        case 8: return rd_float(in, &d->friction);
        case 9: return rd_float(in, &d->restitution);
        case 10: return rd_float(in, &d->rolling_resistance);
        case 11: return rd_int(in, &d->parent);
        default: return rd_int(in, &d->limb);
    }
}

static onescope_code rd_body(scene_in *in, onescope_soa_scene_body *b) {
    static const char *const keys[] = {
        "kind", "name",    "position", "rotation",    "linear_velocity",    "angular_velocity",
        "size", "density", "friction", "restitution", "rolling_resistance", "parent",
        "limb"};
    static const char *const if_missing[] = {"a key \"kind\""};
    static const object_spec spec = {
        keys, COUNT(keys),
        "kind, name, position, rotation, linear_velocity, angular_velocity, size, density, "
        "friction, restitution, rolling_resistance, parent or limb",
        0x1, if_missing};
    return rd_object(in, &spec, body_member, b);
}

static onescope_code motor_member(scene_in *in, int key, void *obj) {
    onescope_soa_joint_def *d = obj;
    in->mark = in->slot + (key == 0 ? J_MOTOR_SPEED : key == 1 ? J_MOTOR_VELOCITY : J_MAX_TORQUE);
    switch (key) {
        case 0: return rd_float(in, &d->motor_speed);
        case 1: return rd_floats(in, d->motor_velocity, 3);
        default: return rd_float(in, &d->max_motor_torque);
    }
}

static onescope_code spring_member(scene_in *in, int key, void *obj) {
    static const int slot[] = {J_HERTZ, J_DAMPING, J_TARGET_ANGLE, J_TARGET_ROTATION};
    onescope_soa_joint_def *d = obj;
    in->mark = in->slot + slot[key];
    switch (key) {
        case 0: return rd_float(in, &d->spring_hertz);
        case 1: return rd_float(in, &d->spring_damping_ratio);
        case 2: return rd_float(in, &d->target_angle);
        default: return rd_floats(in, d->target_rotation, 4);
    }
}

static onescope_code joint_member(scene_in *in, int key, void *obj) {
    static const char *const motor_keys[] = {"speed", "velocity", "max_torque"};
    static const object_spec motor = {motor_keys, COUNT(motor_keys),
                                      "speed, velocity or max_torque", 0, NULL};
    static const char *const spring_keys[] = {"hertz", "damping_ratio", "target_angle",
                                              "target_rotation"};
    static const object_spec spring = {spring_keys, COUNT(spring_keys),
                                       "hertz, damping_ratio, target_angle or target_rotation", 0,
                                       NULL};
    /* the slot of each key; limit and twist are read as a pair and their slots moved after */
    static const int slot[] = {J_KIND, J_BODY_A, J_BODY_B, J_ANCHOR, J_AXIS, -1,
                               J_PAIR, J_CONE,   J_PAIR,   -1,       -1};
    onescope_soa_joint_def *d = obj;
    float pair[2];
    in->mark = slot[key] < 0 ? NULL : in->slot + slot[key];
    switch (key) {
        case 0:
            return rd_word(in, joint_words, COUNT(joint_words),
                           "\"revolute\", \"spherical\" or \"weld\"", &d->kind);
        case 1: return rd_int(in, &d->body_a);
        case 2: return rd_int(in, &d->body_b);
        case 3: return rd_floats(in, d->anchor, 3);
        case 4: return rd_floats(in, d->axis, 3);
        case 5: return rd_bool(in, &d->collide_connected);
        case 6:
            OS_TRY(rd_floats(in, pair, 2));
            d->enable_limit = true, d->lower_angle = pair[0], d->upper_angle = pair[1];
            in->slot[J_LOWER] = in->slot[J_PAIR + 1], in->slot[J_UPPER] = in->slot[J_PAIR + 2];
            return ONESCOPE_OK;
        case 7:
            OS_TRY(rd_float(in, &d->cone_angle));
            d->enable_cone_limit = true;
            return ONESCOPE_OK;
        case 8:
            OS_TRY(rd_floats(in, pair, 2));
            d->enable_twist_limit = true, d->lower_twist = pair[0], d->upper_twist = pair[1];
            in->slot[J_LOWER_TWIST] = in->slot[J_PAIR + 1];
            in->slot[J_UPPER_TWIST] = in->slot[J_PAIR + 2];
            return ONESCOPE_OK;
        case 9: d->enable_motor = true; return rd_object(in, &motor, motor_member, d);
        default: d->enable_spring = true; return rd_object(in, &spring, spring_member, d);
    }
}

/* The fields the joint rules name (the descriptor's names), where they are. */
static const field_slot joint_fields[] = {
    {"kind", J_KIND, 1, NULL},
    {"body_a", J_BODY_A, 1, NULL},
    {"body_b", J_BODY_B, 1, NULL},
    {"anchor", J_ANCHOR, 3, NULL},
    {"axis", J_AXIS, 3, NULL},
    {"lower_angle", J_LOWER, 1, "limit[0]"},
    {"upper_angle", J_UPPER, 1, "limit[1]"},
    {"cone_angle", J_CONE, 1, "cone"},
    {"lower_twist", J_LOWER_TWIST, 1, "twist[0]"},
    {"upper_twist", J_UPPER_TWIST, 1, "twist[1]"},
    {"motor_speed", J_MOTOR_SPEED, 1, "motor.speed"},
    {"motor_velocity", J_MOTOR_VELOCITY, 3, "motor.velocity"},
    {"max_motor_torque", J_MAX_TORQUE, 1, "motor.max_torque"},
    {"spring_hertz", J_HERTZ, 1, "spring.hertz"},
    {"spring_damping_ratio", J_DAMPING, 1, "spring.damping_ratio"},
    {"target_angle", J_TARGET_ANGLE, 1, "spring.target_angle"},
    {"target_rotation", J_TARGET_ROTATION, 4, "spring.target_rotation"}};

static onescope_code rd_joint(scene_in *in, onescope_soa_scene_joint *j) {
    static const char *const keys[] = {
        "kind",  "body_a", "body_b", "anchor", "axis",  "collide_connected",
        "limit", "cone",   "twist",  "motor",  "spring"};
    static const char *const if_missing[] = {"a key \"kind\"", "a body index", "a body index"};
    static const object_spec spec = {keys, COUNT(keys),
                                     "kind, body_a, body_b, anchor, axis, collide_connected, "
                                     "limit, cone, twist, motor or spring",
                                     0x7, if_missing};
    return rd_object(in, &spec, joint_member, &j->def);
}

/* ---- the bodies and joints arrays ---- */

/* Makes room for element i of *arr (elem bytes each, *cap of them; new ones zeroed). */
static onescope_code room(scene_in *in, void **arr, size_t *cap, size_t i, size_t elem) {
    if (i < *cap) return ONESCOPE_OK;
    size_t n = *cap ? *cap * 2 : 8, bytes;
    if (!onescope_os_mul_size(n, elem, &bytes)) return onescope_os_json_nomem(&in->c);
    void *p = onescope_os_calloc(in->c.a, n, elem);
    if (p == NULL) return onescope_os_json_nomem(&in->c);
    if (*cap) memcpy(p, *arr, *cap * elem);
    onescope_os_free(in->c.a, *arr);
    *arr = p;
    *cap = n;
    return ONESCOPE_OK;
}

/* An array of lo..hi bodies (joints false) or joints, each element's line and column taken from
 * the reader as it passes. A count out of range points at the '['; past hi the rest is only
 * counted. */
static onescope_code rd_list(scene_in *in, onescope_soa_scene *s, bool joints, size_t lo, size_t hi,
                             const char *expected) {
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, expected);
    onescope_os_jr_pos start = r->at;
    size_t count = 0, cap = 0;
    int path = in->c.depth;
    for (;; count++) {
        OS_TRY(onescope_os_jr_next(r));
        if (r->kind == OS_JR_ARRAY_END) break;
        if (count >= hi) {
            OS_TRY(onescope_os_jr_skip(r));
            continue;
        }
        onescope_os_json_push_index(&in->c, count);
        onescope_os_jr_pos object = r->at;
        memset(in->slot, 0, sizeof in->slot);
        char prefix[48];
        snprintf(prefix, sizeof prefix, "%s[%zu]", joints ? "joints" : "bodies", count);
        onescope_code rc;
        float q[4], axis[3];
        if (!joints) {
            OS_TRY(room(in, (void **)&s->bodies, &cap, count, sizeof *s->bodies));
            onescope_soa_scene_body *b = &s->bodies[count];
            b->def = onescope_soa_body_def_default();
            b->line = r->at.line;
            b->column = r->at.column;
            s->body_count = (uint32_t)count + 1; /* freed with the scene from here on */
            rc = rd_body(in, b);
            /* the world's rules, where each value is known; the parent is an earlier body */
            if (rc == ONESCOPE_OK &&
                (rc = onescope_os_soa_check_body(&b->def, (uint32_t)count, in->c.name, q,
                                                 in->c.error)) != ONESCOPE_OK)
                rule_failed(in, rc, prefix, body_fields, COUNT(body_fields), in->slot, object);
        } else {
            OS_TRY(room(in, (void **)&s->joints, &cap, count, sizeof *s->joints));
            OS_TRY(
                room(in, (void **)&in->joint_at, &in->joint_at_cap, count, sizeof *in->joint_at));
            onescope_soa_scene_joint *j = &s->joints[count];
            j->def = onescope_soa_joint_def_default();
            j->line = r->at.line;
            j->column = r->at.column;
            s->joint_count = (uint32_t)count + 1;
            rc = rd_joint(in, j);
            if (rc == ONESCOPE_OK && (rc = onescope_os_soa_check_joint(&j->def, in->c.name, axis, q,
                                                                       in->c.error)) != ONESCOPE_OK)
                rule_failed(in, rc, prefix, joint_fields, COUNT(joint_fields), in->slot, object);
            /* its bodies once the document is read: the bodies may come after the joints */
            in->joint_at[count][0] = object;
            in->joint_at[count][1] = in->slot[J_BODY_A];
            in->joint_at[count][2] = in->slot[J_BODY_B];
        }
        in->c.depth = path;
        OS_TRY(rc);
    }
    if (count >= lo && count <= hi) return ONESCOPE_OK;
    in->at = start;
    return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, expected, "%zu", count);
}

/* ---- the document ---- */

static onescope_code scene_member(scene_in *in, int key, void *obj) {
    onescope_soa_scene *s = obj;
    onescope_code rc;
    in->mark = key == 0 ? in->gravity : NULL;
    switch (key) {
        case 0: return rd_floats(in, s->world.gravity, 3);
        case 1:
            OS_TRY(rd_float(in, &s->dt));
            rc = onescope_os_soa_check_dt(s->dt, in->c.name, in->c.error);
            return rc ? rule_failed(in, rc, "", NULL, 0, NULL, in->at) : rc;
        case 2:
            OS_TRY(rd_int(in, &s->substeps));
            rc = onescope_os_soa_check_substeps(s->substeps, in->c.name, in->c.error);
            return rc ? rule_failed(in, rc, "", NULL, 0, NULL, in->at) : rc;
        case 3: return rd_bool(in, &s->world.enable_sleep);
        case 4:
            return rd_list(in, s, false, 1, ONESCOPE_OSPC_MAX_ENTITIES,
                           "an array of 1..65536 bodies");
        default:
            return rd_list(in, s, true, 0, ONESCOPE_SOA_MAX_CAPACITY,
                           "an array of at most 1000000 joints");
    }
}

static int scene_kind(const void *user, uint32_t index) {
    const onescope_soa_scene *s = user;
    return s->bodies[index].def.kind;
}

static onescope_code rd_scene(scene_in *in, onescope_soa_scene *s) {
    static const char *const keys[] = {"gravity",      "dt",     "substeps",
                                       "enable_sleep", "bodies", "joints"};
    static const char *const if_missing[] = {NULL, NULL, NULL, NULL, "an array of 1..65536 bodies"};
    static const object_spec spec = {keys, COUNT(keys),
                                     "gravity, dt, substeps, enable_sleep, bodies or joints", 0x10,
                                     if_missing};
    OS_TRY(onescope_os_jr_next(&in->r));
    onescope_os_jr_pos object = in->r.at;
    OS_TRY(rd_object(in, &spec, scene_member, s));
    OS_TRY(onescope_os_jr_next(&in->r)); /* nothing but white space after the object */
    s->world.body_capacity = s->body_count;
    s->world.joint_capacity = s->joint_count;
    static const field_slot world_fields[] = {{"gravity", 0, 3, NULL}};
    onescope_code rc = onescope_os_soa_check_world(&s->world, in->c.name, in->c.error);
    if (rc != ONESCOPE_OK)
        return rule_failed(in, rc, "", world_fields, COUNT(world_fields), in->gravity, object);
    static const field_slot bodies_of[] = {{"body_a", 1, 1, NULL}, {"body_b", 2, 1, NULL}};
    for (uint32_t i = 0; i < s->joint_count; i++) {
        rc = onescope_os_soa_check_joint_bodies(&s->joints[i].def, s->body_count, scene_kind, s,
                                                in->c.name, in->c.error);
        if (rc == ONESCOPE_OK) continue;
        char prefix[48];
        snprintf(prefix, sizeof prefix, "joints[%u]", i);
        return rule_failed(in, rc, prefix, bodies_of, COUNT(bodies_of), in->joint_at[i],
                           in->joint_at[i][0]);
    }
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
    scene_in in;
    onescope_os_jr_init(&in.r, name, a, error, data ? data : "", size, NULL, NULL);
    onescope_os_json_ctx_init(&in.c, name, a, error);
    in.c.root_field = "scene";
    in.c.locate = locate;
    in.c.locate_user = &in;
    in.at = in.r.at;
    in.mark = NULL;
    in.joint_at = NULL;
    in.joint_at_cap = 0;
    onescope_code rc = ONESCOPE_OK;
    onescope_soa_scene *s = onescope_os_calloc(a, 1, sizeof *s);
    size_t name_len = strlen(name);
    if (s == NULL) {
        rc = onescope_os_json_nomem(&in.c);
    } else {
        s->allocator = a;
        s->world = onescope_soa_world_def_default();
        s->dt = 1.0f / 60.0f;
        s->substeps = 4;
        s->name = onescope_os_alloc(a, name_len + 1);
        if (s->name == NULL)
            rc = onescope_os_json_nomem(&in.c);
        else
            memcpy(s->name, name, name_len + 1);
    }
    if (rc == ONESCOPE_OK) rc = rd_scene(&in, s);
    onescope_os_jr_free(&in.r);
    onescope_os_free(a, in.joint_at);
    if (rc != ONESCOPE_OK) {
        onescope_soa_scene_free(s);
        return rc;
    }
    *out = s;
    return ONESCOPE_OK;
}
