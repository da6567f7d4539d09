/* OTS v4 rules: every check a rig or a clip must pass, shared by the reader (ots_read.c),
 * the writer (ots_write.c) and the conversions (ots_convert.c), so a writer cannot emit
 * what the reader refuses. Rules: docs/ots.md. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "ots_internal.h"
#include "numfmt.h"

/* ---- names of every enumerated value, in enum order ---- */

const char *const onescope_os_ots_source_names[] = {"harmony", "blender", "maya"};
const char *const onescope_os_ots_up_names[] = {"x", "y", "z"};
const char *const onescope_os_ots_hand_names[] = {"right", "left"};
const char *const onescope_os_ots_unit_names[] = {"meters"};
const char *const onescope_os_ots_rot_order_names[] = {"xyz", "xzy", "yxz", "yzx", "zxy", "zyx"};
const char *const onescope_os_ots_repr_names[] = {"euler_deg", "quat_wxyz"};
const char *const onescope_os_ots_pivot_space_names[] = {"local", "armature"};
const char *const onescope_os_ots_interp_names[] = {"BEZIER", "LINEAR", "CONSTANT"};
const char *const onescope_os_ots_fov_axis_names[] = {"vertical", "horizontal"};
const char *const onescope_os_ots_channel_names[] = {"pos", "rot", "scl"};

/* ---- counters (a test hook, see ots_internal.h) ---- */

static atomic_ulong clip_rule_runs;
static atomic_ulong hierarchy_runs;

unsigned long onescope_os_ots_clip_rule_runs(void) {
    return atomic_load_explicit(&clip_rule_runs, memory_order_relaxed);
}
unsigned long onescope_os_ots_hierarchy_runs(void) {
    return atomic_load_explicit(&hierarchy_runs, memory_order_relaxed);
}

/* ---- rules shared by the parser and the validator ---- */

onescope_code onescope_os_ots_check_finite(ots_ctx *c, const char *key, const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            if (key) onescope_os_json_push_key(c, key);
            if (n > 1) onescope_os_json_push_index(c, (size_t)i);
            onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_NOT_FINITE, "a finite number",
                                                     "%s", onescope_os_num(v[i]).s);
            c->depth -= (key ? 1 : 0) + (n > 1 ? 1 : 0);
            return rc;
        }
    return ONESCOPE_OK;
}

onescope_code onescope_os_ots_check_quat(ots_ctx *c, const char *key, const double *q) {
    OS_TRY(onescope_os_ots_check_finite(c, key, q, 4));
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = onescope_os_json_fail(
            c, ONESCOPE_E_RANGE, "a non-zero quaternion [w, x, y, z]", "[0, 0, 0, 0]");
        onescope_os_json_pop(c);
        return rc;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_os_ots_check_text(ots_ctx *c, const char *key, const char *s,
                                         bool required) {
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    size_t bad;
    if (s == NULL) {
        if (required) rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a string", "none");
    } else if (required && s[0] == '\0') {
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a non-empty name", "\"\"");
    } else if (!onescope_os_utf8_valid((const uint8_t *)s, strlen(s), &bad)) {
        rc = onescope_os_json_fail(c, ONESCOPE_E_UTF8, "valid UTF-8",
                                   "an invalid sequence at byte %zu", bad);
    }
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code check_enum(ots_ctx *c, const char *key, int v, int count,
                                const char *expected) {
    if (v >= 0 && v < count) return ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%d", v);
    onescope_os_json_pop(c);
    return rc;
}

/* A finite number above 0 at key (expected: what it is, "a frame rate above 0"). */
static onescope_code check_positive(ots_ctx *c, const char *key, double v, const char *expected) {
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    if (!isfinite(v))
        rc = onescope_os_json_fail(c, ONESCOPE_E_NOT_FINITE, "a finite number", "%s",
                                   onescope_os_num(v).s);
    else if (!(v > 0))
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%s", onescope_os_num(v).s);
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_fps(ots_ctx *c, double fps) {
    return check_positive(c, "fps", fps, "a frame rate above 0");
}

static onescope_code check_header(ots_ctx *c, const onescope_ots_header *h) {
    OS_TRY(check_enum(c, "source", (int)h->source, OTS_COUNT(onescope_os_ots_source_names),
                      "harmony, blender or maya"));
    onescope_code rc = onescope_os_ots_check_fps(c, h->fps);
    OS_TRY(rc);
    const onescope_ots_coordinate_system *s = &h->coordinate_system;
    onescope_os_json_push_key(c, "coordinate_system");
    if ((rc = check_enum(c, "up", (int)s->up, OTS_COUNT(onescope_os_ots_up_names), "x, y or z")) ==
            ONESCOPE_OK &&
        (rc = check_enum(c, "hand", (int)s->hand, OTS_COUNT(onescope_os_ots_hand_names),
                         "right or left")) == ONESCOPE_OK &&
        (rc = check_enum(c, "unit", (int)s->unit, OTS_COUNT(onescope_os_ots_unit_names),
                         "meters")) == ONESCOPE_OK &&
        (rc = check_enum(c, "rot_order", (int)s->rot_order,
                         OTS_COUNT(onescope_os_ots_rot_order_names),
                         "xyz, xzy, yxz, yzx, zxy or zyx")) == ONESCOPE_OK &&
        (rc = check_enum(c, "rot_repr_anim", (int)s->rot_repr_anim,
                         OTS_COUNT(onescope_os_ots_repr_names), "euler_deg or quat_wxyz")) ==
            ONESCOPE_OK)
        rc = check_enum(c, "rot_repr_rest", (int)s->rot_repr_rest,
                        OTS_COUNT(onescope_os_ots_repr_names), "euler_deg or quat_wxyz");
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_camera(ots_ctx *c, const onescope_ots_camera *k) {
    double nums[11] = {k->fov,       k->near_plane, k->far_plane, k->near_field,
                       k->far_field, k->angle,      k->offset_x,  k->offset_y,
                       k->offset_z,  k->pivot_x,    k->pivot_y};
    static const char *const num_keys[11] = {"fov",       "near_plane", "far_plane", "near_field",
                                             "far_field", "angle",      "offset_x",  "offset_y",
                                             "offset_z",  "pivot_x",    "pivot_y"};
    onescope_code rc;
    if ((rc = onescope_os_ots_check_text(c, "name", k->name, true)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "peg", k->peg, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "path", k->path, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "rig", k->rig, false)) == ONESCOPE_OK)
        rc = check_enum(c, "fov_axis", (int)k->fov_axis, OTS_COUNT(onescope_os_ots_fov_axis_names),
                        "vertical or horizontal");
    for (int j = 0; j < 11 && rc == ONESCOPE_OK; j++)
        rc = onescope_os_ots_check_finite(c, num_keys[j], &nums[j], 1);
    return rc;
}

static onescope_code check_cameras(ots_ctx *c, const onescope_ots_camera *cams, size_t n) {
    onescope_os_json_push_key(c, "cameras");
    onescope_code rc = ONESCOPE_OK;
    for (size_t i = 0; i < n && rc == ONESCOPE_OK; i++) {
        onescope_os_json_push_index(c, i);
        rc = onescope_os_ots_check_camera(c, &cams[i]);
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    OS_TRY(rc);
    return onescope_os_ots_check_camera_names(c, cams, n);
}

/* Names are unique per rig tag; a parent names an element of the same rig tag, or nothing
 * in the file (an outside root). Parent chains must not loop.
 *
 * No hashing: names come from the input, and any fixed hash lets an attacker make every name
 * collide (issue 14: 65 536 crafted pegs took 16 s). Instead the element indices are sorted by
 * (name, rig tag) with a stable merge sort, which is O(n log n) comparisons whatever the names
 * are; equal keys end up next to each other in file order, and lookups are binary searches. */
/* Element access for bones, pegs and cameras alike. */
typedef struct element_view {
    const void *base;
    size_t stride;
    size_t name_off, parent_off, rig_off; /* rig_off SIZE_MAX: no rig tag (cameras) */
} element_view;

static const char *view_str(const element_view *v, size_t i, size_t off) {
    if (off == SIZE_MAX) return NULL;
    return *(char *const *)((const char *)v->base + i * v->stride + off);
}

/* Name comparisons made by the checks, summed once per call (a test hook, ots_internal.h). */
static atomic_ulong name_compares;

unsigned long onescope_os_ots_name_compares(void) {
    return atomic_load_explicit(&name_compares, memory_order_relaxed);
}

typedef struct sorted_names {
    const element_view *v;
    size_t *idx; /* element indices ordered by (name, rig tag, index) */
    size_t n;
    unsigned long compares;
} sorted_names;

/* Orders by name, then by rig tag (none = ""). */
static int key_cmp(sorted_names *t, const char *name_a, const char *rig_a, size_t b) {
    t->compares++;
    int d = strcmp(name_a, view_str(t->v, b, t->v->name_off));
    if (d != 0) return d;
    const char *rig_b = view_str(t->v, b, t->v->rig_off);
    return strcmp(rig_a ? rig_a : "", rig_b ? rig_b : "");
}

static int elem_cmp(sorted_names *t, size_t a, size_t b) {
    return key_cmp(t, view_str(t->v, a, t->v->name_off), view_str(t->v, a, t->v->rig_off), b);
}

/* Bottom-up merge sort of t->idx (starting as 0..n-1) using tmp (n entries): stable, so
 * equal keys keep file order; no recursion. */
static void sort_names(sorted_names *t, size_t *tmp) {
    size_t n = t->n, *src = t->idx, *dst = tmp;
    for (size_t i = 0; i < n; i++) src[i] = i;
    for (size_t w = 1; w<n; w = w> n / 2 ? n : w * 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = mid + w < n ? mid + w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = elem_cmp(t, src[b], src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid) dst[o++] = src[a++];
            while (b < hi) dst[o++] = src[b++];
        }
        size_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != t->idx) memcpy(t->idx, src, n * sizeof *src);
}

/* The first position in t->idx whose key is not below (name, rig); with any_rig, the first
 * whose name is not below name. */
static size_t lower_bound(sorted_names *t, const char *name, const char *rig, bool any_rig) {
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d;
        if (any_rig) {
            t->compares++;
            d = strcmp(view_str(t->v, t->idx[mid], t->v->name_off), name);
        } else {
            d = -key_cmp(t, name, rig, t->idx[mid]);
        }
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The element with this name and rig tag, or SIZE_MAX. */
static size_t find_same_rig(sorted_names *t, const char *rig, const char *name) {
    size_t k = lower_bound(t, name, rig, false);
    if (k < t->n && key_cmp(t, name, rig, t->idx[k]) == 0) return t->idx[k];
    return SIZE_MAX;
}

/* The only element named name in any rig tag, or SIZE_MAX (none, or several). */
static size_t find_any_rig(sorted_names *t, const char *name) {
    size_t k = lower_bound(t, name, NULL, true);
    if (k >= t->n || strcmp(view_str(t->v, t->idx[k], t->v->name_off), name) != 0) return SIZE_MAX;
    if (k + 1 < t->n && strcmp(view_str(t->v, t->idx[k + 1], t->v->name_off), name) == 0)
        return SIZE_MAX;
    return t->idx[k];
}

static void count_compares(const sorted_names *t) {
    atomic_fetch_add_explicit(&name_compares, t->compares, memory_order_relaxed);
}

/* Reports each element whose key repeats an earlier element's, in index order (so the first
 * report is the lowest such index), naming that earlier element; it stops at the first when
 * the checks stop at one error. first_of: n entries of scratch. The array's key ("pegs",
 * "cameras") is on the path already. */
static onescope_code report_duplicates(ots_ctx *c, sorted_names *t, size_t *first_of,
                                       const char *what, const char *expected) {
    const element_view *v = t->v;
    for (size_t i = 0; i < t->n; i++) first_of[i] = SIZE_MAX;
    /* a run of equal keys is in file order: its first entry is the element the rest repeat */
    size_t run = 0;
    for (size_t k = 1; k < t->n; k++) {
        if (elem_cmp(t, t->idx[run], t->idx[k]) == 0)
            first_of[t->idx[k]] = t->idx[run];
        else
            run = k;
    }
    onescope_code rc = ONESCOPE_OK;
    for (size_t i = 0; i < t->n; i++) {
        if (first_of[i] == SIZE_MAX) continue;
        onescope_os_json_push_index(c, i);
        onescope_os_json_push_key(c, "name");
        onescope_code r = onescope_os_json_fail(
            c, ONESCOPE_E_DUPLICATE, expected, "\"%s\" again (first at %s[%zu])",
            OS_ECHO(view_str(v, i, v->name_off)), what, first_of[i]);
        c->depth -= 2;
        if (rc == ONESCOPE_OK) rc = r;
        if (onescope_os_json_stop(c, r)) break;
    }
    return rc;
}

onescope_code onescope_os_ots_check_camera_names(ots_ctx *c, const onescope_ots_camera *cams,
                                                 size_t n) {
    if (n < 2) return ONESCOPE_OK;
    element_view v = {cams, sizeof *cams, offsetof(onescope_ots_camera, name), SIZE_MAX, SIZE_MAX};
    sorted_names t = {&v, onescope_os_calloc(c->a, n, sizeof(size_t)), n, 0};
    size_t *tmp = onescope_os_calloc(c->a, n, sizeof *tmp);
    onescope_code rc;
    onescope_os_json_push_key(c, "cameras");
    if (t.idx == NULL || tmp == NULL) {
        rc = onescope_os_json_nomem(c);
    } else {
        sort_names(&t, tmp);
        rc = report_duplicates(c, &t, tmp, "cameras", "a camera name used once");
    }
    onescope_os_json_pop(c);
    count_compares(&t);
    onescope_os_free(c->a, t.idx);
    onescope_os_free(c->a, tmp);
    return rc;
}

/* Keeps the first failure in *rc; true when the checks must stop there. */
static bool failed(ots_ctx *c, onescope_code *rc, onescope_code r) {
    if (*rc == ONESCOPE_OK) *rc = r;
    return onescope_os_json_stop(c, r);
}

static onescope_code check_hierarchy(ots_ctx *c, const element_view *v, size_t n, const char *what,
                                     size_t *parents_out) {
    atomic_fetch_add_explicit(&hierarchy_runs, 1, memory_order_relaxed);
    sorted_names t = {v, onescope_os_calloc(c->a, n ? n : 1, sizeof(size_t)), n, 0};
    /* the merge buffer, then the duplicates' scratch, then the loop walk's state bytes */
    size_t *tmp = onescope_os_calloc(c->a, n ? n : 1, sizeof *tmp);
    size_t *parents =
        parents_out ? parents_out : onescope_os_calloc(c->a, n ? n : 1, sizeof *parents);
    onescope_code rc = ONESCOPE_OK;
    if (t.idx == NULL || tmp == NULL || parents == NULL) {
        rc = onescope_os_json_nomem(c);
        goto done;
    }
    sort_names(&t, tmp);
    onescope_os_json_push_key(c, what);
    bool stop = failed(c, &rc, report_duplicates(c, &t, tmp, what, "a name used once per rig tag"));
    unsigned char *state = (unsigned char *)tmp;
    memset(state, 0, n);
    for (size_t i = 0; i < n && !stop; i++) {
        const char *parent = view_str(v, i, v->parent_off);
        parents[i] = SIZE_MAX;
        if (parent == NULL) continue;
        if (strcmp(parent, view_str(v, i, v->name_off)) == 0) {
            onescope_os_json_push_index(c, i);
            onescope_os_json_push_key(c, "parent");
            stop = failed(c, &rc,
                          onescope_os_json_fail(c, ONESCOPE_E_RANGE,
                                                "a parent other than the element itself", "\"%s\"",
                                                OS_ECHO(parent)));
            c->depth -= 2;
            continue; /* no parent: it is not a loop too */
        }
        parents[i] = find_same_rig(&t, view_str(v, i, v->rig_off), parent);
        if (parents[i] == SIZE_MAX) parents[i] = find_any_rig(&t, parent);
    }
    /* Loops: walk each chain, marking 1 on the current walk and 2 once known to end; each
     * loop is reported once, at the element the walk that found it came back to. */
    for (size_t i = 0; i < n && !stop; i++) {
        size_t j = i;
        while (j != SIZE_MAX && state[j] == 0) {
            state[j] = 1;
            j = parents[j];
        }
        if (j != SIZE_MAX && state[j] == 1) {
            onescope_os_json_push_index(c, j);
            onescope_os_json_push_key(c, "parent");
            stop = failed(c, &rc,
                          onescope_os_json_fail(
                              c, ONESCOPE_E_RANGE, "a parent chain that ends at a root",
                              "a loop through \"%s\"", OS_ECHO(view_str(v, j, v->name_off))));
            c->depth -= 2;
        }
        for (j = i; j != SIZE_MAX && state[j] == 1; j = parents[j]) state[j] = 2;
    }
    onescope_os_json_pop(c);
done:
    count_compares(&t);
    onescope_os_free(c->a, t.idx);
    onescope_os_free(c->a, tmp);
    if (parents_out == NULL) onescope_os_free(c->a, parents);
    return rc;
}

onescope_code onescope_os_ots_check_bones(ots_ctx *c, const onescope_ots_bone *bones, size_t n) {
    element_view v = {bones, sizeof(onescope_ots_bone), offsetof(onescope_ots_bone, name),
                      offsetof(onescope_ots_bone, parent), offsetof(onescope_ots_bone, rig)};
    return check_hierarchy(c, &v, n, "bones", NULL);
}

onescope_code onescope_os_ots_check_pegs(ots_ctx *c, const onescope_ots_peg *pegs, size_t n,
                                         size_t *parents) {
    element_view v = {pegs, sizeof(onescope_ots_peg), offsetof(onescope_ots_peg, name),
                      offsetof(onescope_ots_peg, parent), offsetof(onescope_ots_peg, rig)};
    return check_hierarchy(c, &v, n, "pegs", parents);
}

onescope_code onescope_os_ots_check_scale_factor(ots_ctx *c, double scale) {
    return check_positive(c, "scale_factor", scale, "a scale factor above 0");
}

onescope_code onescope_os_ots_check_bone(ots_ctx *c, const onescope_ots_bone *b, double scale) {
    onescope_code rc;
    if ((rc = onescope_os_ots_check_text(c, "name", b->name, true)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "parent", b->parent, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "path", b->path, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "rig", b->rig, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_finite(c, "pivot", b->pivot, 3)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_quat(c, "rotation", b->rotation)) == ONESCOPE_OK) {
        double scaled[3] = {b->pivot[0] * scale, b->pivot[1] * scale, b->pivot[2] * scale};
        rc = onescope_os_ots_check_finite(c, "pivot", scaled, 3);
    }
    return rc;
}

onescope_code onescope_os_ots_rig_rules(ots_ctx *c, const onescope_ots_rig *r) {
    OS_TRY(check_header(c, &r->header));
    onescope_os_json_push_key(c, "name");
    onescope_code rc = r->name == NULL
                           ? onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a string", "none")
                           : ONESCOPE_OK;
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(onescope_os_ots_check_text(c, "name", r->name, false));
    OS_TRY(onescope_os_ots_check_scale_factor(c, r->scale_factor));
    OS_TRY(check_enum(c, "pivot_space", (int)r->pivot_space,
                      OTS_COUNT(onescope_os_ots_pivot_space_names), "local or armature"));
    if (r->bone_count > 0 && r->bones == NULL)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "bones",
                                "an array", "NULL");
    onescope_os_json_push_key(c, "bones");
    for (size_t i = 0; i < r->bone_count && rc == ONESCOPE_OK; i++) {
        onescope_os_json_push_index(c, i);
        rc = onescope_os_ots_check_bone(c, &r->bones[i], r->scale_factor);
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    OS_TRY(rc);
    if (r->camera_count > 0 && r->cameras == NULL)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "cameras",
                                "an array", "NULL");
    OS_TRY(check_cameras(c, r->cameras, r->camera_count));
    return onescope_os_ots_check_bones(c, r->bones, r->bone_count);
}

onescope_code onescope_os_ots_check_keyframe(ots_ctx *c, const onescope_ots_keyframe *k) {
    OS_TRY(onescope_os_ots_check_finite(c, "pos", k->pos, 3));
    if (k->has_rot) OS_TRY(onescope_os_ots_check_finite(c, "rot", k->rot, 3));
    if (k->has_rot_quat) OS_TRY(onescope_os_ots_check_quat(c, "rot_quat", k->rot_quat));
    if (!k->has_rot && !k->has_rot_quat)
        return onescope_os_json_fail(c, ONESCOPE_E_TYPE, "a key \"rot_quat\" or \"rot\"",
                                     "neither");
    OS_TRY(onescope_os_ots_check_finite(c, "scl", k->scl, 3));
    OS_TRY(check_enum(c, "interp", (int)k->interp, OTS_COUNT(onescope_os_ots_interp_names),
                      "BEZIER, LINEAR or CONSTANT"));
    onescope_os_json_push_key(c, "handles");
    onescope_code rc = ONESCOPE_OK;
    for (int ch = 0; ch < 3 && rc == ONESCOPE_OK; ch++) {
        onescope_os_json_push_key(c, onescope_os_ots_channel_names[ch]);
        if (k->handle_axes[ch] != 0 && k->handle_axes[ch] != 3)
            rc = onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "0 or 3 axes", "%u",
                                       (unsigned)k->handle_axes[ch]);
        for (int ax = 0; ax < k->handle_axes[ch] && rc == ONESCOPE_OK; ax++) {
            const onescope_ots_handle *h = &k->handles[ch][ax];
            if (!h->present) continue;
            onescope_os_json_push_index(c, (size_t)ax);
            onescope_os_json_push_index(c, 0);
            rc = onescope_os_ots_check_finite(c, NULL, h->left, 2);
            onescope_os_json_pop(c);
            if (rc == ONESCOPE_OK) {
                onescope_os_json_push_index(c, 1);
                rc = onescope_os_ots_check_finite(c, NULL, h->right, 2);
                onescope_os_json_pop(c);
            }
            onescope_os_json_pop(c);
        }
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_frame_order(ots_ctx *c, int32_t previous, int32_t frame) {
    if (frame > previous) return ONESCOPE_OK;
    onescope_os_json_push_key(c, "frame");
    onescope_code rc = onescope_os_json_fail(
        c, frame == previous ? ONESCOPE_E_DUPLICATE : ONESCOPE_E_RANGE,
        "a frame after the previous keyframe's", "%ld after %ld", (long)frame, (long)previous);
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_keyframes(ots_ctx *c, const onescope_ots_peg *p) {
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, "keyframes");
    for (size_t j = 0; j < p->keyframe_count && rc == ONESCOPE_OK; j++) {
        onescope_os_json_push_index(c, j);
        rc = onescope_os_ots_check_keyframe(c, &p->keyframes[j]);
        if (rc == ONESCOPE_OK && j > 0)
            rc = onescope_os_ots_check_frame_order(c, p->keyframes[j - 1].frame,
                                                   p->keyframes[j].frame);
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_frame_range(ots_ctx *c, const int32_t range[2]) {
    if (range[0] <= range[1]) return ONESCOPE_OK;
    onescope_os_json_push_key(c, "frame_range");
    onescope_code rc =
        onescope_os_json_fail(c, ONESCOPE_E_RANGE, "[first, last] with first <= last", "[%ld, %ld]",
                              (long)range[0], (long)range[1]);
    onescope_os_json_pop(c);
    return rc;
}

onescope_code onescope_os_ots_check_peg(ots_ctx *c, const onescope_ots_peg *p) {
    onescope_code rc;
    if ((rc = onescope_os_ots_check_text(c, "name", p->name, true)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "path", p->path, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "parent", p->parent, false)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_finite(c, "rest_pivot", p->rest_pivot, 3)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_quat(c, "rest_rotation", p->rest_rotation)) == ONESCOPE_OK &&
        (rc = onescope_os_ots_check_text(c, "rig", p->rig, false)) == ONESCOPE_OK &&
        p->has_source_modes) {
        onescope_os_json_push_key(c, "source_modes");
        if ((rc = onescope_os_ots_check_text(c, "position", p->source_modes.position, true)) ==
                ONESCOPE_OK &&
            (rc = onescope_os_ots_check_text(c, "rotation", p->source_modes.rotation, true)) ==
                ONESCOPE_OK)
            rc = onescope_os_ots_check_text(c, "scale", p->source_modes.scale, true);
        onescope_os_json_pop(c);
    }
    return rc;
}

void onescope_os_ots_clip_rules_ran(void) {
    atomic_fetch_add_explicit(&clip_rule_runs, 1, memory_order_relaxed);
}

onescope_code onescope_os_ots_clip_rules(ots_ctx *c, const onescope_ots_clip *k, size_t *parents) {
    onescope_os_ots_clip_rules_ran();
    OS_TRY(check_header(c, &k->header));
    OS_TRY(onescope_os_ots_check_frame_range(c, k->frame_range));
    if ((k->peg_count > 0 && k->pegs == NULL) || (k->camera_count > 0 && k->cameras == NULL))
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "pegs",
                                "an array", "NULL");
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, "pegs");
    for (size_t i = 0; i < k->peg_count && rc == ONESCOPE_OK; i++) {
        const onescope_ots_peg *p = &k->pegs[i];
        onescope_os_json_push_index(c, i);
        rc = onescope_os_ots_check_peg(c, p);
        if (rc == ONESCOPE_OK && p->keyframe_count > 0 && p->keyframes == NULL)
            rc = onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "keyframes",
                                  "an array", "NULL");
        if (rc == ONESCOPE_OK) rc = onescope_os_ots_check_keyframes(c, p);
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    OS_TRY(rc);
    OS_TRY(check_cameras(c, k->cameras, k->camera_count));
    return onescope_os_ots_check_pegs(c, k->pegs, k->peg_count, parents);
}

onescope_code onescope_ots_rig_validate(const onescope_ots_rig *r, const char *name,
                                        onescope_error *error) {
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "rig", "non-NULL",
                                NULL);
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, r->allocator, error);
    return onescope_os_ots_rig_rules(&c, r);
}

onescope_code onescope_ots_clip_validate(const onescope_ots_clip *k, const char *name,
                                         onescope_error *error) {
    if (k == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "clip", "non-NULL",
                                NULL);
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, k->allocator, error);
    return onescope_os_ots_clip_rules(&c, k, NULL);
}
