/* OTS v4 .pvt and .anm: reader (jansson), validator, writer. Rules: docs/ots.md.
 * Conversion to and from pose caches is in ots_convert.c. */
#include <jansson.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "onescope/ots.h"
#include "ots_internal.h"

/* ---- names of every enumerated value, in enum order ---- */

static const char *const source_names[] = {"harmony", "blender", "maya"};
static const char *const up_names[] = {"x", "y", "z"};
static const char *const hand_names[] = {"right", "left"};
static const char *const unit_names[] = {"meters"};
static const char *const rot_order_names[] = {"xyz", "xzy", "yxz", "yzx", "zxy", "zyx"};
static const char *const repr_names[] = {"euler_deg", "quat_wxyz"};
static const char *const pivot_space_names[] = {"local", "armature"};
static const char *const interp_names[] = {"BEZIER", "LINEAR", "CONSTANT"};
static const char *const fov_axis_names[] = {"vertical", "horizontal"};
static const char *const channel_names[] = {"pos", "rot", "scl"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char version_message[] =
    "unsupported version %lld (this build writes/reads v4; no backward migration \xe2\x80\x94 "
    "re-export from the source DCC)";

onescope_ots_header onescope_ots_header_default(void) {
    onescope_ots_header h;
    h.source = ONESCOPE_OTS_SOURCE_HARMONY;
    h.fps = 24.0;
    h.coordinate_system.up = ONESCOPE_OTS_UP_Y;
    h.coordinate_system.hand = ONESCOPE_OTS_HAND_RIGHT;
    h.coordinate_system.unit = ONESCOPE_OTS_UNIT_METERS;
    h.coordinate_system.rot_order = ONESCOPE_OTS_ROT_XYZ;
    h.coordinate_system.rot_repr_anim = ONESCOPE_OTS_REPR_EULER_DEG;
    h.coordinate_system.rot_repr_rest = ONESCOPE_OTS_REPR_QUAT_WXYZ;
    return h;
}

/* ---- context: the JSON path being read, and where failures go ---- */

/* ---- strings ---- */

static char *dup_n(const onescope_allocator *a, const char *s, size_t n) {
    char *p = onescope_os_alloc(a, n + 1);
    if (p == NULL) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

onescope_code onescope_ots_set_string(const onescope_allocator *a, char **field, const char *text,
                                      onescope_error *error) {
    if (field == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_ots_set_string", OS_NO_OFFSET,
                       "field", "non-NULL", NULL);
    char *p = NULL;
    if (text != NULL && (p = dup_n(a, text, strlen(text))) == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, "onescope_ots_set_string", OS_NO_OFFSET, NULL,
                       NULL, "could not allocate memory");
    onescope_os_free(a, *field);
    *field = p;
    return ONESCOPE_OK;
}

/* ---- freeing and building ---- */

static void free_cameras(const onescope_allocator *a, onescope_ots_camera *cams, size_t n) {
    if (cams == NULL) return;
    for (size_t i = 0; i < n; i++) {
        onescope_os_free(a, cams[i].name);
        onescope_os_free(a, cams[i].peg);
        onescope_os_free(a, cams[i].path);
        onescope_os_free(a, cams[i].rig);
    }
    onescope_os_free(a, cams);
}

void onescope_ots_rig_free(onescope_ots_rig *rig) {
    if (rig == NULL) return;
    const onescope_allocator *a = rig->allocator;
    if (rig->bones != NULL)
        for (size_t i = 0; i < rig->bone_count; i++) {
            onescope_ots_bone *b = &rig->bones[i];
            onescope_os_free(a, b->name);
            onescope_os_free(a, b->parent);
            onescope_os_free(a, b->path);
            onescope_os_free(a, b->rig);
        }
    onescope_os_free(a, rig->bones);
    free_cameras(a, rig->cameras, rig->camera_count);
    onescope_os_free(a, rig->name);
    onescope_os_free(a, rig);
}

void onescope_ots_clip_free(onescope_ots_clip *clip) {
    if (clip == NULL) return;
    const onescope_allocator *a = clip->allocator;
    if (clip->pegs != NULL)
        for (size_t i = 0; i < clip->peg_count; i++) {
            onescope_ots_peg *p = &clip->pegs[i];
            onescope_os_free(a, p->name);
            onescope_os_free(a, p->path);
            onescope_os_free(a, p->parent);
            onescope_os_free(a, p->rig);
            onescope_os_free(a, p->source_modes.position);
            onescope_os_free(a, p->source_modes.rotation);
            onescope_os_free(a, p->source_modes.scale);
            onescope_os_free(a, p->keyframes);
        }
    onescope_os_free(a, clip->pegs);
    free_cameras(a, clip->cameras, clip->camera_count);
    onescope_os_free(a, clip);
}

static void camera_defaults(onescope_ots_camera *cams, size_t n) {
    for (size_t i = 0; i < n; i++) {
        cams[i].fov = 40.0;
        cams[i].near_plane = 0.1;
        cams[i].far_plane = 1000.0;
    }
}

onescope_code onescope_ots_rig_create(size_t bone_count, size_t camera_count,
                                      const onescope_allocator *a, onescope_ots_rig **out,
                                      onescope_error *error) {
    const char *name = "onescope_ots_rig_create";
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    *out = NULL;
    onescope_ots_rig *r = onescope_os_calloc(a, 1, sizeof *r);
    if (r == NULL) return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL, "could not allocate memory");
    r->allocator = a;
    r->header = onescope_ots_header_default();
    r->scale_factor = 1.0;
    r->bones = onescope_os_calloc(a, bone_count, sizeof *r->bones);
    r->cameras = onescope_os_calloc(a, camera_count, sizeof *r->cameras);
    if (r->bones == NULL || r->cameras == NULL) {
        onescope_ots_rig_free(r);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL, "could not allocate memory");
    }
    r->bone_count = bone_count;
    r->camera_count = camera_count;
    for (size_t i = 0; i < bone_count; i++) r->bones[i].rotation[0] = 1.0;
    camera_defaults(r->cameras, camera_count);
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_ots_clip_create(size_t peg_count, size_t camera_count,
                                       const onescope_allocator *a, onescope_ots_clip **out,
                                       onescope_error *error) {
    const char *name = "onescope_ots_clip_create";
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    *out = NULL;
    onescope_ots_clip *c = onescope_os_calloc(a, 1, sizeof *c);
    if (c == NULL) return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL, "could not allocate memory");
    c->allocator = a;
    c->header = onescope_ots_header_default();
    c->pegs = onescope_os_calloc(a, peg_count, sizeof *c->pegs);
    c->cameras = onescope_os_calloc(a, camera_count, sizeof *c->cameras);
    if (c->pegs == NULL || c->cameras == NULL) {
        onescope_ots_clip_free(c);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL, "could not allocate memory");
    }
    c->peg_count = peg_count;
    c->camera_count = camera_count;
    for (size_t i = 0; i < peg_count; i++) c->pegs[i].rest_rotation[0] = 1.0;
    camera_defaults(c->cameras, camera_count);
    *out = c;
    return ONESCOPE_OK;
}

static void keyframe_defaults(onescope_ots_keyframe *k, int32_t frame) {
    memset(k, 0, sizeof *k);
    k->frame = frame;
    k->has_rot_quat = true;
    k->rot_quat[0] = 1.0;
    k->scl[0] = k->scl[1] = k->scl[2] = 1.0;
    k->interp = ONESCOPE_OTS_LINEAR;
}

onescope_code onescope_ots_peg_set_keyframe_count(onescope_ots_clip *clip, onescope_ots_peg *peg,
                                                  size_t count, onescope_error *error) {
    const char *name = "onescope_ots_peg_set_keyframe_count";
    if (clip == NULL || peg == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL, "clip and peg must not be NULL");
    if (count > (size_t)INT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "count", "at most 2147483647", "%zu", count);
    onescope_ots_keyframe *k = onescope_os_calloc(clip->allocator, count, sizeof *k);
    if (k == NULL) return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL, "could not allocate memory");
    for (size_t i = 0; i < count; i++) keyframe_defaults(&k[i], (int32_t)i);
    onescope_os_free(clip->allocator, peg->keyframes);
    peg->keyframes = k;
    peg->keyframe_count = count;
    return ONESCOPE_OK;
}

/* ---- rules shared by the parser and the validator ---- */

static onescope_code check_finite(ots_ctx *c, const char *key, const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            if (key) onescope_os_json_push_key(c, key);
            if (n > 1) onescope_os_json_push_index(c, (size_t)i);
            onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_NOT_FINITE, "a finite number", "%g", v[i]);
            c->depth -= (key ? 1 : 0) + (n > 1 ? 1 : 0);
            return rc;
        }
    return ONESCOPE_OK;
}

static onescope_code check_quat(ots_ctx *c, const char *key, const double *q) {
    OS_TRY(check_finite(c, key, q, 4));
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a non-zero quaternion [w, x, y, z]",
                                    "[0, 0, 0, 0]");
        onescope_os_json_pop(c);
        return rc;
    }
    return ONESCOPE_OK;
}

static onescope_code check_text(ots_ctx *c, const char *key, const char *s, bool required) {
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    size_t bad;
    if (s == NULL) {
        if (required) rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a string", "none");
    } else if (required && s[0] == '\0') {
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a non-empty name", "\"\"");
    } else if (!onescope_os_utf8_valid((const uint8_t *)s, strlen(s), &bad)) {
        rc = onescope_os_json_fail(c, ONESCOPE_E_UTF8, "valid UTF-8", "an invalid sequence at byte %zu", bad);
    }
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code check_enum(ots_ctx *c, const char *key, int v, int count, const char *expected) {
    if (v >= 0 && v < count) return ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%d", v);
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code check_header(ots_ctx *c, const onescope_ots_header *h) {
    OS_TRY(check_enum(c, "source", (int)h->source, COUNT(source_names), "harmony, blender or maya"));
    onescope_os_json_push_key(c, "fps");
    onescope_code rc = ONESCOPE_OK;
    if (!isfinite(h->fps)) rc = onescope_os_json_fail(c, ONESCOPE_E_NOT_FINITE, "a finite number", "%g", h->fps);
    else if (!(h->fps > 0)) rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a frame rate above 0", "%g", h->fps);
    onescope_os_json_pop(c);
    OS_TRY(rc);
    const onescope_ots_coordinate_system *s = &h->coordinate_system;
    onescope_os_json_push_key(c, "coordinate_system");
    if ((rc = check_enum(c, "up", (int)s->up, COUNT(up_names), "x, y or z")) == ONESCOPE_OK &&
        (rc = check_enum(c, "hand", (int)s->hand, COUNT(hand_names), "right or left")) == ONESCOPE_OK &&
        (rc = check_enum(c, "unit", (int)s->unit, COUNT(unit_names), "meters")) == ONESCOPE_OK &&
        (rc = check_enum(c, "rot_order", (int)s->rot_order, COUNT(rot_order_names),
                         "xyz, xzy, yxz, yzx, zxy or zyx")) == ONESCOPE_OK &&
        (rc = check_enum(c, "rot_repr_anim", (int)s->rot_repr_anim, COUNT(repr_names),
                         "euler_deg or quat_wxyz")) == ONESCOPE_OK)
        rc = check_enum(c, "rot_repr_rest", (int)s->rot_repr_rest, COUNT(repr_names),
                        "euler_deg or quat_wxyz");
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code camera_names_unique(ots_ctx *c, const onescope_ots_camera *cams, size_t n);

static onescope_code check_cameras(ots_ctx *c, const onescope_ots_camera *cams, size_t n) {
    onescope_os_json_push_key(c, "cameras");
    onescope_code rc = ONESCOPE_OK;
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        const onescope_ots_camera *k = &cams[i];
        onescope_os_json_push_index(c, i);
        double nums[11] = {k->fov, k->near_plane, k->far_plane, k->near_field, k->far_field,
                           k->angle, k->offset_x, k->offset_y, k->offset_z, k->pivot_x, k->pivot_y};
        static const char *const num_keys[11] = {"fov", "near_plane", "far_plane", "near_field",
                                                 "far_field", "angle", "offset_x", "offset_y",
                                                 "offset_z", "pivot_x", "pivot_y"};
        if ((rc = check_text(c, "name", k->name, true)) == ONESCOPE_OK &&
            (rc = check_text(c, "peg", k->peg, false)) == ONESCOPE_OK &&
            (rc = check_text(c, "path", k->path, false)) == ONESCOPE_OK &&
            (rc = check_text(c, "rig", k->rig, false)) == ONESCOPE_OK)
            rc = check_enum(c, "fov_axis", (int)k->fov_axis, COUNT(fov_axis_names), "vertical or horizontal");
        for (int j = 0; j < 11 && rc == ONESCOPE_OK; j++) rc = check_finite(c, num_keys[j], &nums[j], 1);
        onescope_os_json_pop(c);
    }
    if (rc == ONESCOPE_OK) rc = camera_names_unique(c, cams, n);
    onescope_os_json_pop(c);
    return rc;
}

/* Names are unique per rig tag; a parent names an element of the same rig tag, or nothing
 * in the file (an outside root). Parent chains must not loop. The table maps (rig, name)
 * to an index; parents[i] receives the parent's index or SIZE_MAX. */
typedef struct name_table {
    size_t *slots; /* index + 1, 0 empty */
    size_t mask;
} name_table;

static uint64_t hash_pair(const char *rig, const char *name) {
    uint64_t h = 1469598103934665603u;
    for (const char *s = rig ? rig : ""; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    h = (h ^ 0xFFu) * 1099511628211u;
    for (const char *s = name; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static bool same_rig(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

/* Element access for bones and pegs alike. */
typedef struct element_view {
    const void *base;
    size_t stride;
    size_t name_off, parent_off, rig_off;
} element_view;

static const char *view_str(const element_view *v, size_t i, size_t off) {
    return *(char *const *)((const char *)v->base + i * v->stride + off);
}

/* Camera names are unique in a file (hash set; "cameras" is on the path already). */
static onescope_code camera_names_unique(ots_ctx *c, const onescope_ots_camera *cams, size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    size_t *slots = onescope_os_calloc(c->a, cap, sizeof *slots);
    if (slots == NULL) return onescope_os_json_nomem(c);
    onescope_code rc = ONESCOPE_OK;
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        for (size_t s = (size_t)hash_pair(NULL, cams[i].name) & (cap - 1);; s = (s + 1) & (cap - 1)) {
            if (slots[s] == 0) {
                slots[s] = i + 1;
                break;
            }
            if (strcmp(cams[slots[s] - 1].name, cams[i].name) == 0) {
                onescope_os_json_push_index(c, i);
                onescope_os_json_push_key(c, "name");
                rc = onescope_os_json_fail(c, ONESCOPE_E_DUPLICATE, "a camera name used once",
                              "\"%.100s\" again (first at cameras[%zu])", cams[i].name, slots[s] - 1);
                c->depth -= 2;
                break;
            }
        }
    }
    onescope_os_free(c->a, slots);
    return rc;
}

static size_t table_find(const name_table *t, const element_view *v, const char *rig, const char *name) {
    for (size_t s = (size_t)hash_pair(rig, name) & t->mask;; s = (s + 1) & t->mask) {
        size_t e = t->slots[s];
        if (e == 0) return SIZE_MAX;
        if (strcmp(view_str(v, e - 1, v->name_off), name) == 0 &&
            same_rig(view_str(v, e - 1, v->rig_off), rig))
            return e - 1;
    }
}

/* A set of names across rig tags: one slot per distinct name holding the first element's
 * index + 1, with NAME_MULTI set once a second element has the same name (so names shared by
 * many rigs never make long probe chains). */
#define NAME_MULTI (((size_t)-1 >> 1) + 1)

static void names_insert(size_t *slots, size_t mask, const element_view *v, size_t i) {
    const char *name = view_str(v, i, v->name_off);
    for (size_t s = (size_t)hash_pair(NULL, name) & mask;; s = (s + 1) & mask) {
        if (slots[s] == 0) {
            slots[s] = i + 1;
            return;
        }
        if (strcmp(view_str(v, (slots[s] & ~NAME_MULTI) - 1, v->name_off), name) == 0) {
            slots[s] |= NAME_MULTI;
            return;
        }
    }
}

/* The only element named name in any rig tag, or SIZE_MAX (none, or several). */
static size_t find_any_rig(const size_t *slots, size_t mask, const element_view *v, const char *name) {
    for (size_t s = (size_t)hash_pair(NULL, name) & mask;; s = (s + 1) & mask) {
        size_t e = slots[s];
        if (e == 0) return SIZE_MAX;
        if (strcmp(view_str(v, (e & ~NAME_MULTI) - 1, v->name_off), name) == 0)
            return (e & NAME_MULTI) ? SIZE_MAX : e - 1;
    }
}

static onescope_code check_hierarchy(ots_ctx *c, const element_view *v, size_t n, const char *what,
                                     size_t *parents_out) {
    name_table t;
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    t.mask = cap - 1;
    t.slots = onescope_os_calloc(c->a, cap, sizeof *t.slots);
    size_t *by_name = onescope_os_calloc(c->a, cap, sizeof *by_name);
    size_t *parents = parents_out ? parents_out : onescope_os_calloc(c->a, n ? n : 1, sizeof *parents);
    unsigned char *state = onescope_os_calloc(c->a, n ? n : 1, 1);
    onescope_code rc = ONESCOPE_OK;
    if (t.slots == NULL || by_name == NULL || parents == NULL || state == NULL) {
        rc = onescope_os_json_nomem(c);
        goto done;
    }
    onescope_os_json_push_key(c, what);
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        const char *name = view_str(v, i, v->name_off), *rig = view_str(v, i, v->rig_off);
        names_insert(by_name, t.mask, v, i);
        size_t s = (size_t)hash_pair(rig, name) & t.mask;
        for (;; s = (s + 1) & t.mask) {
            size_t e = t.slots[s];
            if (e == 0) {
                t.slots[s] = i + 1;
                break;
            }
            if (strcmp(view_str(v, e - 1, v->name_off), name) == 0 &&
                same_rig(view_str(v, e - 1, v->rig_off), rig)) {
                onescope_os_json_push_index(c, i);
                onescope_os_json_push_key(c, "name");
                rc = onescope_os_json_fail(c, ONESCOPE_E_DUPLICATE, "a name used once per rig tag",
                              "\"%.100s\" again (first at %s[%zu])", name, what, e - 1);
                c->depth -= 2;
                break;
            }
        }
    }
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        const char *parent = view_str(v, i, v->parent_off);
        parents[i] = SIZE_MAX;
        if (parent == NULL) continue;
        if (strcmp(parent, view_str(v, i, v->name_off)) == 0) {
            onescope_os_json_push_index(c, i);
            onescope_os_json_push_key(c, "parent");
            rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a parent other than the element itself",
                          "\"%.100s\"", parent);
            c->depth -= 2;
            break;
        }
        parents[i] = table_find(&t, v, view_str(v, i, v->rig_off), parent);
        if (parents[i] == SIZE_MAX) parents[i] = find_any_rig(by_name, t.mask, v, parent);
    }
    /* Loops: walk each chain, marking 1 on the current walk and 2 once known to end. */
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        size_t j = i;
        while (j != SIZE_MAX && state[j] == 0) {
            state[j] = 1;
            j = parents[j];
        }
        if (j != SIZE_MAX && state[j] == 1) {
            onescope_os_json_push_index(c, j);
            onescope_os_json_push_key(c, "parent");
            rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a parent chain that ends at a root",
                          "a loop through \"%.100s\"", view_str(v, j, v->name_off));
            c->depth -= 2;
        }
        for (j = i; j != SIZE_MAX && state[j] == 1; j = parents[j]) state[j] = 2;
    }
    onescope_os_json_pop(c);
done:
    onescope_os_free(c->a, t.slots);
    onescope_os_free(c->a, by_name);
    if (parents_out == NULL) onescope_os_free(c->a, parents);
    onescope_os_free(c->a, state);
    return rc;
}

static onescope_code rig_rules(ots_ctx *c, const onescope_ots_rig *r) {
    OS_TRY(check_header(c, &r->header));
    onescope_os_json_push_key(c, "name");
    onescope_code rc = r->name == NULL ? onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a string", "none") : ONESCOPE_OK;
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(check_text(c, "name", r->name, false));
    onescope_os_json_push_key(c, "scale_factor");
    if (!isfinite(r->scale_factor)) rc = onescope_os_json_fail(c, ONESCOPE_E_NOT_FINITE, "a finite number", "%g", r->scale_factor);
    else if (!(r->scale_factor > 0)) rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a scale factor above 0", "%g", r->scale_factor);
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(check_enum(c, "pivot_space", (int)r->pivot_space, COUNT(pivot_space_names), "local or armature"));
    if (r->bone_count > 0 && r->bones == NULL)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "bones", "an array", "NULL");
    onescope_os_json_push_key(c, "bones");
    for (size_t i = 0; i < r->bone_count && rc == ONESCOPE_OK; i++) {
        const onescope_ots_bone *b = &r->bones[i];
        onescope_os_json_push_index(c, i);
        if ((rc = check_text(c, "name", b->name, true)) == ONESCOPE_OK &&
            (rc = check_text(c, "parent", b->parent, false)) == ONESCOPE_OK &&
            (rc = check_text(c, "path", b->path, false)) == ONESCOPE_OK &&
            (rc = check_text(c, "rig", b->rig, false)) == ONESCOPE_OK &&
            (rc = check_finite(c, "pivot", b->pivot, 3)) == ONESCOPE_OK &&
            (rc = check_quat(c, "rotation", b->rotation)) == ONESCOPE_OK) {
            double scaled[3] = {b->pivot[0] * r->scale_factor, b->pivot[1] * r->scale_factor,
                                b->pivot[2] * r->scale_factor};
            rc = check_finite(c, "pivot", scaled, 3);
        }
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    OS_TRY(rc);
    if (r->camera_count > 0 && r->cameras == NULL)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "cameras", "an array", "NULL");
    OS_TRY(check_cameras(c, r->cameras, r->camera_count));
    element_view v = {r->bones, sizeof(onescope_ots_bone), offsetof(onescope_ots_bone, name),
                      offsetof(onescope_ots_bone, parent), offsetof(onescope_ots_bone, rig)};
    return check_hierarchy(c, &v, r->bone_count, "bones", NULL);
}

static onescope_code check_keyframe(ots_ctx *c, const onescope_ots_keyframe *k) {
    OS_TRY(check_finite(c, "pos", k->pos, 3));
    if (k->has_rot) OS_TRY(check_finite(c, "rot", k->rot, 3));
    if (k->has_rot_quat) OS_TRY(check_quat(c, "rot_quat", k->rot_quat));
    if (!k->has_rot && !k->has_rot_quat)
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a key \"rot_quat\" or \"rot\"", "neither");
    OS_TRY(check_finite(c, "scl", k->scl, 3));
    OS_TRY(check_enum(c, "interp", (int)k->interp, COUNT(interp_names), "BEZIER, LINEAR or CONSTANT"));
    onescope_os_json_push_key(c, "handles");
    onescope_code rc = ONESCOPE_OK;
    for (int ch = 0; ch < 3 && rc == ONESCOPE_OK; ch++) {
        onescope_os_json_push_key(c, channel_names[ch]);
        if (k->handle_axes[ch] != 0 && k->handle_axes[ch] != 3)
            rc = onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "0 or 3 axes", "%u", (unsigned)k->handle_axes[ch]);
        for (int ax = 0; ax < k->handle_axes[ch] && rc == ONESCOPE_OK; ax++) {
            const onescope_ots_handle *h = &k->handles[ch][ax];
            if (!h->present) continue;
            onescope_os_json_push_index(c, (size_t)ax);
            onescope_os_json_push_index(c, 0);
            rc = check_finite(c, NULL, h->left, 2);
            onescope_os_json_pop(c);
            if (rc == ONESCOPE_OK) {
                onescope_os_json_push_index(c, 1);
                rc = check_finite(c, NULL, h->right, 2);
                onescope_os_json_pop(c);
            }
            onescope_os_json_pop(c);
        }
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code clip_rules(ots_ctx *c, const onescope_ots_clip *k) {
    OS_TRY(check_header(c, &k->header));
    onescope_code rc = ONESCOPE_OK;
    if (k->frame_range[0] > k->frame_range[1]) {
        onescope_os_json_push_key(c, "frame_range");
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "[first, last] with first <= last", "[%ld, %ld]",
                      (long)k->frame_range[0], (long)k->frame_range[1]);
        onescope_os_json_pop(c);
        return rc;
    }
    if ((k->peg_count > 0 && k->pegs == NULL) || (k->camera_count > 0 && k->cameras == NULL))
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "pegs", "an array", "NULL");
    onescope_os_json_push_key(c, "pegs");
    for (size_t i = 0; i < k->peg_count && rc == ONESCOPE_OK; i++) {
        const onescope_ots_peg *p = &k->pegs[i];
        onescope_os_json_push_index(c, i);
        if ((rc = check_text(c, "name", p->name, true)) == ONESCOPE_OK &&
            (rc = check_text(c, "path", p->path, false)) == ONESCOPE_OK &&
            (rc = check_text(c, "parent", p->parent, false)) == ONESCOPE_OK &&
            (rc = check_finite(c, "rest_pivot", p->rest_pivot, 3)) == ONESCOPE_OK &&
            (rc = check_quat(c, "rest_rotation", p->rest_rotation)) == ONESCOPE_OK &&
            (rc = check_text(c, "rig", p->rig, false)) == ONESCOPE_OK && p->has_source_modes) {
            onescope_os_json_push_key(c, "source_modes");
            if ((rc = check_text(c, "position", p->source_modes.position, true)) == ONESCOPE_OK &&
                (rc = check_text(c, "rotation", p->source_modes.rotation, true)) == ONESCOPE_OK)
                rc = check_text(c, "scale", p->source_modes.scale, true);
            onescope_os_json_pop(c);
        }
        if (rc == ONESCOPE_OK && p->keyframe_count > 0 && p->keyframes == NULL)
            rc = onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "keyframes", "an array", "NULL");
        onescope_os_json_push_key(c, "keyframes");
        for (size_t j = 0; j < p->keyframe_count && rc == ONESCOPE_OK; j++) {
            onescope_os_json_push_index(c, j);
            rc = check_keyframe(c, &p->keyframes[j]);
            if (rc == ONESCOPE_OK && j > 0 && p->keyframes[j].frame <= p->keyframes[j - 1].frame) {
                onescope_os_json_push_key(c, "frame");
                rc = onescope_os_json_fail(c, p->keyframes[j].frame == p->keyframes[j - 1].frame ? ONESCOPE_E_DUPLICATE
                                                                                      : ONESCOPE_E_RANGE,
                              "a frame after the previous keyframe's", "%ld after %ld",
                              (long)p->keyframes[j].frame, (long)p->keyframes[j - 1].frame);
                onescope_os_json_pop(c);
            }
            onescope_os_json_pop(c);
        }
        onescope_os_json_pop(c);
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(check_cameras(c, k->cameras, k->camera_count));
    element_view v = {k->pegs, sizeof(onescope_ots_peg), offsetof(onescope_ots_peg, name),
                      offsetof(onescope_ots_peg, parent), offsetof(onescope_ots_peg, rig)};
    return check_hierarchy(c, &v, k->peg_count, "pegs", NULL);
}

onescope_code onescope_os_ots_clip_parents(ots_ctx *c, const onescope_ots_clip *k, size_t *parents) {
    element_view v = {k->pegs, sizeof(onescope_ots_peg), offsetof(onescope_ots_peg, name),
                      offsetof(onescope_ots_peg, parent), offsetof(onescope_ots_peg, rig)};
    return check_hierarchy(c, &v, k->peg_count, "pegs", parents);
}

onescope_code onescope_ots_rig_validate(const onescope_ots_rig *r, const char *name,
                                        onescope_error *error) {
    if (r == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "rig", "non-NULL", NULL);
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, r->allocator, error);
    return rig_rules(&c, r);
}

onescope_code onescope_ots_clip_validate(const onescope_ots_clip *k, const char *name,
                                         onescope_error *error) {
    if (k == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "clip", "non-NULL", NULL);
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, k->allocator, error);
    return clip_rules(&c, k);
}

/* ---- reading: jansson's tree into the structs ---- */

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* A value of the wrong type at key (pushed by the caller). */
static onescope_code wrong_type(ots_ctx *c, const char *expected, const json_t *v) {
    return onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "%s", type_name(v));
}

static onescope_code missing(ots_ctx *c, const char *key) {
    char expected[80];
    snprintf(expected, sizeof expected, "a key \"%s\"", key);
    onescope_os_json_push_key(c, key);
    onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "none");
    onescope_os_json_pop(c);
    return rc;
}

/* Sorts obj's members into vals by the keys table; an unknown key is refused. */
static onescope_code members(ots_ctx *c, json_t *obj, const char *const *keys, int nkeys,
                             json_t **vals, const char *what) {
    if (!json_is_object(obj)) {
        char expected[80];
        snprintf(expected, sizeof expected, "an object (%s)", what);
        return wrong_type(c, expected, obj);
    }
    for (int i = 0; i < nkeys; i++) vals[i] = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int i = 0;
        while (i < nkeys && strcmp(keys[i], key) != 0) i++;
        if (i == nkeys) {
            char expected[96];
            snprintf(expected, sizeof expected, "only the keys OTS v4 defines for %s", what);
            onescope_os_json_push_key(c, key);
            onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "unknown key \"%.80s\"", key);
            onescope_os_json_pop(c);
            return rc;
        }
        vals[i] = v;
    }
    return ONESCOPE_OK;
}

static onescope_code rd_number(ots_ctx *c, const char *key, json_t *v, double *out, bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    if (!json_is_number(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = wrong_type(c, "a number", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = json_number_value(v);
    return check_finite(c, key, out, 1);
}

/* An array of exactly n numbers (key NULL: the value itself, already pushed). */
static onescope_code rd_vec(ots_ctx *c, const char *key, json_t *v, size_t n, double *out,
                            bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    onescope_code rc = ONESCOPE_OK;
    if (key) onescope_os_json_push_key(c, key);
    const char *expected = n == 2 ? "an array of 2 numbers" : n == 3 ? "an array of 3 numbers" : "an array of 4 numbers";
    if (!json_is_array(v)) {
        rc = wrong_type(c, expected, v);
    } else if (json_array_size(v) != n) {
        rc = onescope_os_json_fail(c, ONESCOPE_E_LENGTH, expected, "%zu elements", json_array_size(v));
    } else {
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_number(e)) {
                onescope_os_json_push_index(c, i);
                rc = wrong_type(c, "a number", e);
                onescope_os_json_pop(c);
                break;
            }
            out[i] = json_number_value(e);
        }
        if (rc == ONESCOPE_OK) rc = check_finite(c, NULL, out, (int)n);
    }
    if (key) onescope_os_json_pop(c);
    return rc;
}

/* An integer in [lo, hi]; a real with a whole value is accepted too. */
static onescope_code rd_int(ots_ctx *c, const char *key, json_t *v, long long lo, long long hi,
                            long long *out) {
    if (v == NULL) return missing(c, key);
    onescope_code rc = ONESCOPE_OK;
    if (key) onescope_os_json_push_key(c, key);
    double d = json_is_real(v) ? json_real_value(v) : 0.5;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
    } else if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
        *out = (long long)d;
    } else {
        rc = wrong_type(c, "an integer", v);
    }
    if (rc == ONESCOPE_OK && (*out < lo || *out > hi)) {
        char expected[80];
        snprintf(expected, sizeof expected, "an integer from %lld to %lld", lo, hi);
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%lld", *out);
    }
    if (key) onescope_os_json_pop(c);
    return rc;
}

enum { STR_OPTIONAL = 0, STR_REQUIRED = 1, STR_NULLABLE = 2 };

static onescope_code rd_str(ots_ctx *c, const char *key, json_t *v, char **out, int flags) {
    if (v == NULL) return (flags & STR_REQUIRED) ? missing(c, key) : ONESCOPE_OK;
    if ((flags & STR_NULLABLE) && json_is_null(v)) return ONESCOPE_OK;
    if (!json_is_string(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = wrong_type(c, (flags & STR_NULLABLE) ? "a string or null" : "a string", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = dup_n(c->a, json_string_value(v), json_string_length(v));
    return *out == NULL ? onescope_os_json_nomem(c) : ONESCOPE_OK;
}

static onescope_code rd_bool(ots_ctx *c, const char *key, json_t *v, bool *out, bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    if (!json_is_boolean(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = wrong_type(c, "true or false", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = json_is_true(v);
    return ONESCOPE_OK;
}

static onescope_code rd_enum(ots_ctx *c, const char *key, json_t *v, const char *const *names,
                             int count, const char *expected, unsigned *out) {
    if (v == NULL) return missing(c, key);
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    if (!json_is_string(v)) {
        rc = wrong_type(c, expected, v);
    } else {
        const char *s = json_string_value(v);
        int i = 0;
        while (i < count && strcmp(names[i], s) != 0) i++;
        if (i == count) rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "\"%.100s\"", s);
        else *out = (unsigned)i;
    }
    onescope_os_json_pop(c);
    return rc;
}

#define RD_ENUM(c, key, v, names, expected, field)                                   \
    do {                                                                              \
        unsigned e_ = 0;                                                              \
        OS_TRY(rd_enum((c), (key), (v), (names), COUNT(names), (expected), &e_));      \
        (field) = e_;                                                                 \
    } while (0)

static onescope_code rd_header(ots_ctx *c, json_t *source, json_t *fps, json_t *cs,
                               onescope_ots_header *h) {
    RD_ENUM(c, "source", source, source_names, "harmony, blender or maya", h->source);
    OS_TRY(rd_number(c, "fps", fps, &h->fps, true));
    if (cs == NULL) return missing(c, "coordinate_system");
    static const char *const keys[] = {"up", "hand", "unit", "rot_order", "rot_repr_anim", "rot_repr_rest"};
    json_t *v[6];
    onescope_os_json_push_key(c, "coordinate_system");
    onescope_ots_coordinate_system *s = &h->coordinate_system;
    OS_TRY(members(c, cs, keys, 6, v, "coordinate_system"));
    RD_ENUM(c, "up", v[0], up_names, "x, y or z", s->up);
    RD_ENUM(c, "hand", v[1], hand_names, "right or left", s->hand);
    RD_ENUM(c, "unit", v[2], unit_names, "meters", s->unit);
    RD_ENUM(c, "rot_order", v[3], rot_order_names, "xyz, xzy, yxz, yzx, zxy or zyx", s->rot_order);
    RD_ENUM(c, "rot_repr_anim", v[4], repr_names, "euler_deg or quat_wxyz", s->rot_repr_anim);
    RD_ENUM(c, "rot_repr_rest", v[5], repr_names, "euler_deg or quat_wxyz", s->rot_repr_rest);
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

/* An array value at key: its elements are read by the caller. */
static onescope_code rd_array(ots_ctx *c, const char *key, json_t *v, size_t *count) {
    if (v == NULL) return missing(c, key);
    if (json_is_array(v)) {
        *count = json_array_size(v);
        return ONESCOPE_OK;
    }
    onescope_os_json_push_key(c, key);
    onescope_code rc = wrong_type(c, "an array", v);
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code rd_camera(ots_ctx *c, json_t *obj, onescope_ots_camera *k) {
    static const char *const keys[] = {"name", "peg", "path", "is_default", "fov", "fov_axis",
                                       "override_fov", "near_plane", "far_plane", "near_field",
                                       "far_field", "angle", "offset_x", "offset_y", "offset_z",
                                       "pivot_x", "pivot_y", "rig"};
    json_t *v[18];
    OS_TRY(members(c, obj, keys, 18, v, "a camera"));
    OS_TRY(rd_str(c, "name", v[0], &k->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "peg", v[1], &k->peg, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_str(c, "path", v[2], &k->path, STR_OPTIONAL));
    OS_TRY(rd_bool(c, "is_default", v[3], &k->is_default, true));
    OS_TRY(rd_number(c, "fov", v[4], &k->fov, true));
    RD_ENUM(c, "fov_axis", v[5], fov_axis_names, "vertical or horizontal", k->fov_axis);
    OS_TRY(rd_bool(c, "override_fov", v[6], &k->override_fov, true));
    double *nums[11] = {&k->near_plane, &k->far_plane, &k->near_field, &k->far_field, &k->angle,
                        &k->offset_x, &k->offset_y, &k->offset_z, &k->pivot_x, &k->pivot_y, NULL};
    for (int i = 0; i < 10; i++) OS_TRY(rd_number(c, keys[7 + i], v[7 + i], nums[i], true));
    return rd_str(c, "rig", v[17], &k->rig, STR_OPTIONAL);
}

static onescope_code rd_cameras(ots_ctx *c, json_t *v, onescope_ots_camera **out, size_t *count) {
    size_t n = 0;
    OS_TRY(rd_array(c, "cameras", v, &n));
    *out = onescope_os_calloc(c->a, n, sizeof **out);
    if (*out == NULL) return onescope_os_json_nomem(c);
    *count = n;
    onescope_os_json_push_key(c, "cameras");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_camera(c, json_array_get(v, i), &(*out)[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

/* Reads the document and its format and version; *root is the tree to walk. */
static onescope_code load_root(ots_ctx *c, const void *data, size_t size,
                               const onescope_parse_options *o, onescope_ots_kind want,
                               json_t **root) {
    OS_TRY(onescope_os_check_input_size(size, o, c->name, c->error));
    if (data == NULL && size > 0)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "data", "non-NULL", NULL);
    json_error_t je;
    *root = json_loadb(data ? data : "", size, JSON_REJECT_DUPLICATES, &je);
    if (*root == NULL) return onescope_os_json_load_fail(c->error, c->name, data, size, &je);
    c->text = data;
    c->size = size;
    if (!json_is_object(*root)) return wrong_type(c, "a JSON object", *root);
    json_t *f = json_object_get(*root, "format");
    if (f == NULL) return missing(c, "format");
    static const char *const formats[] = {"octo_pvt", "octo_anm"};
    unsigned kind = 0;
    OS_TRY(rd_enum(c, "format", f, formats, 2, want == ONESCOPE_OTS_PVT ? "octo_pvt" : "octo_anm", &kind));
    if (kind + 1 != (unsigned)want) {
        onescope_os_json_push_key(c, "format");
        onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, want == ONESCOPE_OTS_PVT ? "octo_pvt" : "octo_anm",
                                    "\"%s\"", formats[kind]);
        onescope_os_json_pop(c);
        return rc;
    }
    long long version = 0;
    OS_TRY(rd_int(c, "version", json_object_get(*root, "version"), LLONG_MIN, LLONG_MAX, &version));
    if (version != ONESCOPE_OTS_VERSION) {
        onescope_os_json_push_key(c, "version");
        onescope_os_json_fail(c, ONESCOPE_E_VERSION, NULL, version_message, version);
        onescope_os_json_pop(c);
        return ONESCOPE_E_VERSION;
    }
    return ONESCOPE_OK;
}

/* The value x / s whose product with s gives x back, when a nearby one does. */
static double unscale(double x, double s) {
    double p = x / s;
    if (s == 1.0 || p * s == x || !isfinite(p)) return p;
    double up = p, down = p;
    for (int i = 0; i < 4; i++) {
        up = nextafter(up, INFINITY);
        if (up * s == x) return up;
        down = nextafter(down, -INFINITY);
        if (down * s == x) return down;
    }
    return p;
}

static onescope_code rd_bone(ots_ctx *c, json_t *obj, onescope_ots_bone *b, double scale) {
    static const char *const keys[] = {"name", "parent", "pivot", "rotation", "path", "rig", "is_camera"};
    json_t *v[7];
    OS_TRY(members(c, obj, keys, 7, v, "a bone"));
    OS_TRY(rd_str(c, "name", v[0], &b->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "parent", v[1], &b->parent, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_vec(c, "pivot", v[2], 3, b->pivot, true));
    for (int k = 0; k < 3; k++) b->pivot[k] = unscale(b->pivot[k], scale);
    OS_TRY(rd_vec(c, "rotation", v[3], 4, b->rotation, true));
    OS_TRY(rd_str(c, "path", v[4], &b->path, STR_OPTIONAL));
    OS_TRY(rd_str(c, "rig", v[5], &b->rig, STR_OPTIONAL));
    return rd_bool(c, "is_camera", v[6], &b->is_camera, false);
}

static onescope_code parse_rig(ots_ctx *c, json_t *root, onescope_ots_rig *r) {
    static const char *const keys[] = {"format", "version", "source", "name", "scale_factor",
                                       "pivot_space", "fps", "coordinate_system", "bones", "cameras"};
    json_t *v[10];
    OS_TRY(members(c, root, keys, 10, v, "a .pvt file"));
    OS_TRY(rd_header(c, v[2], v[6], v[7], &r->header));
    OS_TRY(rd_str(c, "name", v[3], &r->name, STR_REQUIRED));
    OS_TRY(rd_number(c, "scale_factor", v[4], &r->scale_factor, true));
    if (!(r->scale_factor > 0)) {
        onescope_os_json_push_key(c, "scale_factor");
        return onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a scale factor above 0", "%g", r->scale_factor);
    }
    RD_ENUM(c, "pivot_space", v[5], pivot_space_names, "local or armature", r->pivot_space);
    size_t n = 0;
    OS_TRY(rd_array(c, "bones", v[8], &n));
    r->bones = onescope_os_calloc(c->a, n, sizeof *r->bones);
    if (r->bones == NULL) return onescope_os_json_nomem(c);
    r->bone_count = n;
    onescope_os_json_push_key(c, "bones");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_bone(c, json_array_get(v[8], i), &r->bones[i], r->scale_factor));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rd_cameras(c, v[9], &r->cameras, &r->camera_count);
}

static onescope_code rd_handles(ots_ctx *c, json_t *obj, onescope_ots_keyframe *k) {
    json_t *v[3];
    onescope_os_json_push_key(c, "handles");
    OS_TRY(members(c, obj, channel_names, 3, v, "handles"));
    for (int ch = 0; ch < 3; ch++) {
        if (v[ch] == NULL) continue;
        onescope_os_json_push_key(c, channel_names[ch]);
        if (!json_is_array(v[ch])) return wrong_type(c, "an array of 0 or 3 axes", v[ch]);
        size_t axes = json_array_size(v[ch]);
        if (axes != 0 && axes != 3)
            return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "an array of 0 or 3 axes", "%zu elements", axes);
        k->handle_axes[ch] = (uint8_t)axes;
        for (size_t ax = 0; ax < axes; ax++) {
            json_t *pair = json_array_get(v[ch], ax);
            onescope_ots_handle *h = &k->handles[ch][ax];
            const char *expected = "[] or [[left_frame, left_value], [right_frame, right_value]]";
            onescope_os_json_push_index(c, ax);
            if (!json_is_array(pair)) return wrong_type(c, expected, pair);
            size_t m = json_array_size(pair);
            if (m != 0 && m != 2) return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, expected, "%zu elements", m);
            if (m == 2) {
                h->present = true;
                onescope_os_json_push_index(c, 0);
                OS_TRY(rd_vec(c, NULL, json_array_get(pair, 0), 2, h->left, true));
                onescope_os_json_pop(c);
                onescope_os_json_push_index(c, 1);
                OS_TRY(rd_vec(c, NULL, json_array_get(pair, 1), 2, h->right, true));
                onescope_os_json_pop(c);
            }
            onescope_os_json_pop(c);
        }
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

static onescope_code rd_keyframe(ots_ctx *c, json_t *obj, onescope_ots_keyframe *k) {
    static const char *const keys[] = {"frame", "pos", "rot", "rot_quat", "scl", "interp", "handles"};
    json_t *v[7];
    OS_TRY(members(c, obj, keys, 7, v, "a keyframe"));
    long long frame = 0;
    OS_TRY(rd_int(c, "frame", v[0], INT32_MIN, INT32_MAX, &frame));
    k->frame = (int32_t)frame;
    OS_TRY(rd_vec(c, "pos", v[1], 3, k->pos, true));
    OS_TRY(rd_vec(c, "rot", v[2], 3, k->rot, false));
    k->has_rot = v[2] != NULL;
    OS_TRY(rd_vec(c, "rot_quat", v[3], 4, k->rot_quat, false));
    k->has_rot_quat = v[3] != NULL;
    OS_TRY(rd_vec(c, "scl", v[4], 3, k->scl, true));
    RD_ENUM(c, "interp", v[5], interp_names, "BEZIER, LINEAR or CONSTANT", k->interp);
    return v[6] ? rd_handles(c, v[6], k) : ONESCOPE_OK;
}

static onescope_code rd_peg(ots_ctx *c, json_t *obj, onescope_ots_peg *p) {
    static const char *const keys[] = {"name", "path", "parent", "rest_pivot", "rest_rotation",
                                       "rig", "is_camera", "source_modes", "keyframes"};
    json_t *v[9];
    OS_TRY(members(c, obj, keys, 9, v, "a peg"));
    OS_TRY(rd_str(c, "name", v[0], &p->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "path", v[1], &p->path, STR_OPTIONAL));
    OS_TRY(rd_str(c, "parent", v[2], &p->parent, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_vec(c, "rest_pivot", v[3], 3, p->rest_pivot, true));
    OS_TRY(rd_vec(c, "rest_rotation", v[4], 4, p->rest_rotation, true));
    OS_TRY(rd_str(c, "rig", v[5], &p->rig, STR_OPTIONAL));
    OS_TRY(rd_bool(c, "is_camera", v[6], &p->is_camera, false));
    if (v[7] != NULL) {
        static const char *const mkeys[] = {"position", "rotation", "scale", "enable_3d"};
        json_t *m[4];
        onescope_os_json_push_key(c, "source_modes");
        OS_TRY(members(c, v[7], mkeys, 4, m, "source_modes"));
        OS_TRY(rd_str(c, "position", m[0], &p->source_modes.position, STR_REQUIRED));
        OS_TRY(rd_str(c, "rotation", m[1], &p->source_modes.rotation, STR_REQUIRED));
        OS_TRY(rd_str(c, "scale", m[2], &p->source_modes.scale, STR_REQUIRED));
        OS_TRY(rd_bool(c, "enable_3d", m[3], &p->source_modes.enable_3d, true));
        onescope_os_json_pop(c);
        p->has_source_modes = true;
    }
    size_t n = 0;
    OS_TRY(rd_array(c, "keyframes", v[8], &n));
    p->keyframes = onescope_os_calloc(c->a, n, sizeof *p->keyframes);
    if (p->keyframes == NULL) return onescope_os_json_nomem(c);
    p->keyframe_count = n;
    onescope_os_json_push_key(c, "keyframes");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_keyframe(c, json_array_get(v[8], i), &p->keyframes[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

static onescope_code parse_clip(ots_ctx *c, json_t *root, onescope_ots_clip *k) {
    static const char *const keys[] = {"format", "version", "source", "frame_range", "fps",
                                       "coordinate_system", "pegs", "cameras"};
    json_t *v[8];
    OS_TRY(members(c, root, keys, 8, v, "an .anm file"));
    OS_TRY(rd_header(c, v[2], v[4], v[5], &k->header));
    if (v[3] == NULL) return missing(c, "frame_range");
    onescope_os_json_push_key(c, "frame_range");
    if (!json_is_array(v[3])) return wrong_type(c, "an array [first, last]", v[3]);
    if (json_array_size(v[3]) != 2)
        return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "an array [first, last]", "%zu elements", json_array_size(v[3]));
    for (size_t i = 0; i < 2; i++) {
        long long f = 0;
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_int(c, NULL, json_array_get(v[3], i), INT32_MIN, INT32_MAX, &f));
        onescope_os_json_pop(c);
        k->frame_range[i] = (int32_t)f;
    }
    onescope_os_json_pop(c);
    size_t n = 0;
    OS_TRY(rd_array(c, "pegs", v[6], &n));
    k->pegs = onescope_os_calloc(c->a, n, sizeof *k->pegs);
    if (k->pegs == NULL) return onescope_os_json_nomem(c);
    k->peg_count = n;
    onescope_os_json_push_key(c, "pegs");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_peg(c, json_array_get(v[6], i), &k->pegs[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rd_cameras(c, v[7], &k->cameras, &k->camera_count);
}

onescope_code onescope_ots_rig_parse(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options,
                                     onescope_ots_rig **out, onescope_error *error) {
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    json_t *root = NULL;
    onescope_code rc = load_root(&c, data, size, options, ONESCOPE_OTS_PVT, &root);
    onescope_ots_rig *r = NULL;
    if (rc == ONESCOPE_OK) {
        r = onescope_os_calloc(a, 1, sizeof *r);
        if (r == NULL) rc = onescope_os_json_nomem(&c);
    }
    if (rc == ONESCOPE_OK) {
        r->allocator = a;
        c.depth = 0;
        rc = parse_rig(&c, root, r);
    }
    if (rc == ONESCOPE_OK) {
        c.depth = 0;
        rc = rig_rules(&c, r);
    }
    json_decref(root);
    if (rc != ONESCOPE_OK) {
        onescope_ots_rig_free(r);
        return rc;
    }
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_ots_clip_parse(const void *data, size_t size, const char *name,
                                      const onescope_parse_options *options,
                                      onescope_ots_clip **out, onescope_error *error) {
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    json_t *root = NULL;
    onescope_code rc = load_root(&c, data, size, options, ONESCOPE_OTS_ANM, &root);
    onescope_ots_clip *k = NULL;
    if (rc == ONESCOPE_OK) {
        k = onescope_os_calloc(a, 1, sizeof *k);
        if (k == NULL) rc = onescope_os_json_nomem(&c);
    }
    if (rc == ONESCOPE_OK) {
        k->allocator = a;
        c.depth = 0;
        rc = parse_clip(&c, root, k);
    }
    if (rc == ONESCOPE_OK) {
        c.depth = 0;
        rc = clip_rules(&c, k);
    }
    json_decref(root);
    if (rc != ONESCOPE_OK) {
        onescope_ots_clip_free(k);
        return rc;
    }
    *out = k;
    return ONESCOPE_OK;
}

onescope_ots_kind onescope_ots_detect(const void *data, size_t size) {
    const char *s = data;
    size_t n = size;
    if (s == NULL) return ONESCOPE_OTS_NONE;
    size_t p = onescope_os_json_skip_ws(s, n, 0);
    if (p >= n || s[p] != '{') return ONESCOPE_OTS_NONE;
    static const char key[] = "\"format\"";
    for (; p + sizeof key - 1 <= n; p++) {
        const char *quote = memchr(s + p, '"', n - p);
        if (quote == NULL) break;
        p = (size_t)(quote - s);
        if (p + sizeof key - 1 > n) break;
        if (memcmp(s + p, key, sizeof key - 1) != 0) continue;
        size_t q = onescope_os_json_skip_ws(s, n, p + sizeof key - 1);
        if (q >= n || s[q] != ':') continue;
        q = onescope_os_json_skip_ws(s, n, q + 1);
        if (q + 10 > n) return ONESCOPE_OTS_NONE;
        if (memcmp(s + q, "\"octo_pvt\"", 10) == 0) return ONESCOPE_OTS_PVT;
        if (memcmp(s + q, "\"octo_anm\"", 10) == 0) return ONESCOPE_OTS_ANM;
        return ONESCOPE_OTS_NONE;
    }
    return ONESCOPE_OTS_NONE;
}

/* ---- writing: indented, stable key order, shortest round-trip numbers ---- */

typedef struct jw {
    onescope_os_writer w;
    int depth;
    bool first[OTS_MAX_DEPTH + 2];
} jw;

static void put(jw *j, const char *s, size_t n) { onescope_os_write_bytes(&j->w, s, n); }
static void puts_(jw *j, const char *s) { put(j, s, strlen(s)); }

static void newline(jw *j) {
    static const char spaces[] = "\n                                                ";
    size_t n = 1 + 2 * (size_t)j->depth;
    put(j, spaces, n < sizeof spaces - 1 ? n : sizeof spaces - 1);
}

/* Separator and indentation before the next member or element of the open container. */
static void next_item(jw *j) {
    if (!j->first[j->depth]) put(j, ",", 1);
    j->first[j->depth] = false;
    newline(j);
}

static void open_(jw *j, const char *bracket) {
    puts_(j, bracket);
    j->depth++;
    j->first[j->depth] = true;
}

static void close_(jw *j, const char *bracket) {
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) newline(j);
    puts_(j, bracket);
}

static void put_string(jw *j, const char *s) {
    put(j, "\"", 1);
    if (s != NULL) {
        const char *run = s;
        for (; *s; s++) {
            unsigned char ch = (unsigned char)*s;
            if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
            put(j, run, (size_t)(s - run));
            run = s + 1;
            char esc[8];
            if (ch == '"') puts_(j, "\\\"");
            else if (ch == '\\') puts_(j, "\\\\");
            else {
                snprintf(esc, sizeof esc, "\\u%04x", ch);
                put(j, esc, 6);
            }
        }
        put(j, run, (size_t)(s - run));
    }
    put(j, "\"", 1);
}

static void key(jw *j, const char *k) {
    next_item(j);
    put(j, "\"", 1);
    puts_(j, k);
    put(j, "\": ", 3);
}

/* Prints v with precision p into out; true when the text reads back to v. */
static bool fits(double v, int p, char out[40]) {
    char tmp[320]; /* %.17g needs at most 24 bytes; the compiler cannot know p <= 17 */
    int n = snprintf(tmp, sizeof tmp, "%.*g", p, v);
    if (n < 0 || n > 38) return false;
    memcpy(out, tmp, (size_t)n + 1);
    return strtod(out, NULL) == v;
}

/* The shortest %.Ng text (N = 1..17) that reads back to v. Round trip holds for every N from
 * the shortest one up, so after 16 and 15 a binary search finds it; most values taken from
 * floats need 16 or 17 digits and stop early. Whole numbers get ".0" so they stay reals. */
size_t onescope_os_ots_format_double(double v, char *buf) {
    char best[40], cand[40];
    if (!fits(v, 16, best)) {
        fits(v, 17, best); /* 17 significant digits always read back */
    } else if (fits(v, 15, cand)) {
        memcpy(best, cand, sizeof best);
        int lo = 1, hi = 15; /* best holds the text for hi */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (fits(v, mid, cand)) {
                hi = mid;
                memcpy(best, cand, sizeof best);
            } else {
                lo = mid + 1;
            }
        }
    }
    /* printf and strtod agree on the locale's decimal point; JSON wants '.' */
    const char *point = localeconv()->decimal_point;
    if (point != NULL && point[0] != '.' && point[0] != '\0' && point[1] == '\0') {
        char *at = strchr(best, point[0]);
        if (at != NULL) *at = '.';
    }
    size_t n = strlen(best);
    memcpy(buf, best, n + 1);
    if (strpbrk(buf, ".eEn") == NULL) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    return n;
}

static void put_double(jw *j, double v) {
    char buf[48];
    if (v == floor(v) && fabs(v) < 1e15) {
        int n = snprintf(buf, sizeof buf, "%.0f.0", v);
        if (v == 0 && signbit(v)) n = snprintf(buf, sizeof buf, "-0.0");
        put(j, buf, (size_t)n);
        return;
    }
    put(j, buf, onescope_os_ots_format_double(v, buf));
}

static void put_int(jw *j, long long v) {
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    put(j, buf, (size_t)n);
}

static void put_vec(jw *j, const double *v, int n) {
    put(j, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) put(j, ", ", 2);
        put_double(j, v[i]);
    }
    put(j, "]", 1);
}

static void key_string(jw *j, const char *k, const char *s) {
    key(j, k);
    put_string(j, s);
}
static void key_double(jw *j, const char *k, double v) {
    key(j, k);
    put_double(j, v);
}
static void key_bool(jw *j, const char *k, bool v) {
    key(j, k);
    puts_(j, v ? "true" : "false");
}
static void key_vec(jw *j, const char *k, const double *v, int n) {
    key(j, k);
    put_vec(j, v, n);
}
static void key_name_or_null(jw *j, const char *k, const char *s) {
    key(j, k);
    if (s == NULL) puts_(j, "null");
    else put_string(j, s);
}
static bool empty(const char *s) { return s == NULL || s[0] == '\0'; }

static void write_header_start(jw *j, const char *format, const onescope_ots_header *h) {
    open_(j, "{");
    key_string(j, "format", format);
    key(j, "version");
    put_int(j, ONESCOPE_OTS_VERSION);
    key_string(j, "source", source_names[h->source]);
}

static void write_coordinates(jw *j, const onescope_ots_header *h) {
    key_double(j, "fps", h->fps);
    const onescope_ots_coordinate_system *s = &h->coordinate_system;
    key(j, "coordinate_system");
    open_(j, "{");
    key_string(j, "up", up_names[s->up]);
    key_string(j, "hand", hand_names[s->hand]);
    key_string(j, "unit", unit_names[s->unit]);
    key_string(j, "rot_order", rot_order_names[s->rot_order]);
    key_string(j, "rot_repr_anim", repr_names[s->rot_repr_anim]);
    key_string(j, "rot_repr_rest", repr_names[s->rot_repr_rest]);
    close_(j, "}");
}

static void write_cameras(jw *j, const onescope_ots_camera *cams, size_t n) {
    key(j, "cameras");
    open_(j, "[");
    for (size_t i = 0; i < n; i++) {
        const onescope_ots_camera *k = &cams[i];
        next_item(j);
        open_(j, "{");
        key_string(j, "name", k->name);
        key_name_or_null(j, "peg", k->peg);
        if (!empty(k->path)) key_string(j, "path", k->path);
        key_bool(j, "is_default", k->is_default);
        key_double(j, "fov", k->fov);
        key_string(j, "fov_axis", fov_axis_names[k->fov_axis]);
        key_bool(j, "override_fov", k->override_fov);
        key_double(j, "near_plane", k->near_plane);
        key_double(j, "far_plane", k->far_plane);
        key_double(j, "near_field", k->near_field);
        key_double(j, "far_field", k->far_field);
        key_double(j, "angle", k->angle);
        key_double(j, "offset_x", k->offset_x);
        key_double(j, "offset_y", k->offset_y);
        key_double(j, "offset_z", k->offset_z);
        key_double(j, "pivot_x", k->pivot_x);
        key_double(j, "pivot_y", k->pivot_y);
        if (!empty(k->rig)) key_string(j, "rig", k->rig);
        close_(j, "}");
    }
    close_(j, "]");
}

static onescope_code finish(jw *j, onescope_buffer *out, onescope_error *error) {
    close_(j, "}");
    put(j, "\n", 1);
    onescope_code rc = j->w.failed ? ONESCOPE_OK : onescope_os_check_output_size(j->w.size, "ots writer", error);
    if (rc != ONESCOPE_OK) {
        onescope_os_writer_discard(&j->w);
        return rc;
    }
    return onescope_os_writer_finish(&j->w, out, error, "ots writer");
}

onescope_code onescope_ots_rig_write(const onescope_ots_rig *r, const onescope_allocator *allocator,
                                     onescope_buffer *out, onescope_error *error) {
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_ots_rig_write", OS_NO_OFFSET, "out", "non-NULL", NULL);
    out->data = NULL;
    out->size = 0;
    out->allocator = allocator;
    OS_TRY(onescope_ots_rig_validate(r, "rig", error));
    jw j;
    memset(&j, 0, sizeof j);
    onescope_os_writer_init(&j.w, allocator);
    write_header_start(&j, "octo_pvt", &r->header);
    key_string(&j, "name", r->name);
    key_double(&j, "scale_factor", r->scale_factor);
    key_string(&j, "pivot_space", pivot_space_names[r->pivot_space]);
    write_coordinates(&j, &r->header);
    key(&j, "bones");
    open_(&j, "[");
    for (size_t i = 0; i < r->bone_count; i++) {
        const onescope_ots_bone *b = &r->bones[i];
        next_item(&j);
        open_(&j, "{");
        key_string(&j, "name", b->name);
        key_name_or_null(&j, "parent", b->parent);
        double p[3] = {b->pivot[0] * r->scale_factor, b->pivot[1] * r->scale_factor,
                       b->pivot[2] * r->scale_factor};
        key_vec(&j, "pivot", p, 3);
        key_vec(&j, "rotation", b->rotation, 4);
        if (!empty(b->path)) key_string(&j, "path", b->path);
        if (!empty(b->rig)) key_string(&j, "rig", b->rig);
        if (b->is_camera) key_bool(&j, "is_camera", true);
        close_(&j, "}");
    }
    close_(&j, "]");
    write_cameras(&j, r->cameras, r->camera_count);
    return finish(&j, out, error);
}

static void write_keyframe(jw *j, const onescope_ots_keyframe *k) {
    next_item(j);
    open_(j, "{");
    key(j, "frame");
    put_int(j, k->frame);
    key_vec(j, "pos", k->pos, 3);
    if (k->has_rot) key_vec(j, "rot", k->rot, 3);
    if (k->has_rot_quat) key_vec(j, "rot_quat", k->rot_quat, 4);
    key_vec(j, "scl", k->scl, 3);
    key_string(j, "interp", interp_names[k->interp]);
    key(j, "handles");
    open_(j, "{");
    for (int ch = 0; ch < 3; ch++) {
        key(j, channel_names[ch]);
        put(j, "[", 1);
        for (int ax = 0; ax < k->handle_axes[ch]; ax++) {
            const onescope_ots_handle *h = &k->handles[ch][ax];
            if (ax) put(j, ", ", 2);
            if (!h->present) {
                put(j, "[]", 2);
                continue;
            }
            put(j, "[", 1);
            put_vec(j, h->left, 2);
            put(j, ", ", 2);
            put_vec(j, h->right, 2);
            put(j, "]", 1);
        }
        put(j, "]", 1);
    }
    close_(j, "}");
    close_(j, "}");
}

onescope_code onescope_ots_clip_write(const onescope_ots_clip *k, const onescope_allocator *allocator,
                                      onescope_buffer *out, onescope_error *error) {
    if (out == NULL) return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_ots_clip_write", OS_NO_OFFSET, "out", "non-NULL", NULL);
    out->data = NULL;
    out->size = 0;
    out->allocator = allocator;
    OS_TRY(onescope_ots_clip_validate(k, "clip", error));
    jw j;
    memset(&j, 0, sizeof j);
    onescope_os_writer_init(&j.w, allocator);
    write_header_start(&j, "octo_anm", &k->header);
    key(&j, "frame_range");
    put(&j, "[", 1);
    put_int(&j, k->frame_range[0]);
    put(&j, ", ", 2);
    put_int(&j, k->frame_range[1]);
    put(&j, "]", 1);
    write_coordinates(&j, &k->header);
    key(&j, "pegs");
    open_(&j, "[");
    for (size_t i = 0; i < k->peg_count; i++) {
        const onescope_ots_peg *p = &k->pegs[i];
        next_item(&j);
        open_(&j, "{");
        key_string(&j, "name", p->name);
        if (!empty(p->path)) key_string(&j, "path", p->path);
        key_name_or_null(&j, "parent", p->parent);
        key_vec(&j, "rest_pivot", p->rest_pivot, 3);
        key_vec(&j, "rest_rotation", p->rest_rotation, 4);
        if (!empty(p->rig)) key_string(&j, "rig", p->rig);
        if (p->is_camera) key_bool(&j, "is_camera", true);
        if (p->has_source_modes) {
            key(&j, "source_modes");
            open_(&j, "{");
            key_string(&j, "position", p->source_modes.position);
            key_string(&j, "rotation", p->source_modes.rotation);
            key_string(&j, "scale", p->source_modes.scale);
            key_bool(&j, "enable_3d", p->source_modes.enable_3d);
            close_(&j, "}");
        }
        key(&j, "keyframes");
        open_(&j, "[");
        for (size_t f = 0; f < p->keyframe_count; f++) write_keyframe(&j, &p->keyframes[f]);
        close_(&j, "]");
        close_(&j, "}");
    }
    close_(&j, "]");
    write_cameras(&j, k->cameras, k->camera_count);
    return finish(&j, out, error);
}
