/* OTS v4 evaluation and conversion: .anm clips to and from OSPC pose caches.
 * Rules: docs/ots.md, "Conversion". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "file_internal.h" /* the byte sink of onescope_ots_pose_cache_to_anm_file */
#include "ots_internal.h"
#include "numfmt.h"

#define DEG (3.14159265358979323846 / 180.0)

/* ---- quaternions, w x y z ---- */

static void quat_mul(const double a[4], const double b[4], double out[4]) {
    double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(out, r, sizeof r);
}

/* Normalises q unless it is already unit length to within float precision (so a key's
 * quaternion written from floats comes back bit for bit). */
static void quat_normalize(double q[4]) {
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (fabs(n2 - 1.0) <= 1e-6 || n2 == 0) return;
    double n = sqrt(n2);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static void quat_rotate(const double q[4], const double v[3], double out[3]) {
    double p[4] = {0, v[0], v[1], v[2]}, c[4] = {q[0], -q[1], -q[2], -q[3]}, t[4];
    quat_mul(q, p, t);
    quat_mul(t, c, t);
    out[0] = t[1];
    out[1] = t[2];
    out[2] = t[3];
}

static const int order_axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

void onescope_ots_euler_to_quat(const double deg[3], onescope_ots_rot_order order, double q[4]) {
    int o = (int)order >= 0 && (int)order < 6 ? (int)order : 0;
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
    for (int i = 0; i < 3; i++) {
        int axis = order_axes[o][i];
        double half = deg[axis] * DEG * 0.5;
        double r[4] = {cos(half), 0, 0, 0};
        r[1 + axis] = sin(half);
        quat_mul(r, q, q); /* the axis applied later multiplies on the left */
    }
}

void onescope_ots_quat_to_euler_xyz(const double q[4], double deg[3]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double s = 2 * (w * y - z * x);
    if (s > 1) s = 1;
    if (s < -1) s = -1;
    deg[0] = atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)) / DEG;
    deg[1] = asin(s) / DEG;
    deg[2] = atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) / DEG;
}

static void slerp(const double a[4], const double b_in[4], double t, double out[4]) {
    double b[4];
    memcpy(b, b_in, sizeof b);
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) { /* the shorter way round */
        for (int i = 0; i < 4; i++) b[i] = -b[i];
        dot = -dot;
    }
    double wa, wb;
    if (dot > 0.9995) {
        wa = 1 - t;
        wb = t;
    } else {
        double th = acos(dot), s = sin(th);
        wa = sin((1 - t) * th) / s;
        wb = sin(t * th) / s;
    }
    for (int i = 0; i < 4; i++) out[i] = wa * a[i] + wb * b[i];
    double n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (int i = 0; i < 4; i++) out[i] /= n;
}

/* ---- curves ---- */

static const double *channel_values(const onescope_ots_keyframe *k, int ch) {
    return ch == ONESCOPE_OTS_CHANNEL_POS   ? k->pos
           : ch == ONESCOPE_OTS_CHANNEL_ROT ? k->rot
                                            : k->scl;
}

static double clampd(double v, double lo, double hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static double bez(double p0, double p1, double p2, double p3, double t) {
    double u = 1 - t;
    return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

static double bez_d(double p0, double p1, double p2, double p3, double t) {
    double u = 1 - t;
    return 3 * u * u * (p1 - p0) + 6 * u * t * (p2 - p1) + 3 * t * t * (p3 - p2);
}

/* The segment a -> b of one axis at frame f (a.frame < f < b.frame). */
static double segment(const onescope_ots_keyframe *a, const onescope_ots_keyframe *b, int ch,
                      int axis, double f) {
    double x0 = a->frame, x3 = b->frame;
    double y0 = channel_values(a, ch)[axis], y3 = channel_values(b, ch)[axis];
    double t = (f - x0) / (x3 - x0);
    if (a->interp == ONESCOPE_OTS_CONSTANT) return y0;
    const onescope_ots_handle *ha = a->handle_axes[ch] == 3 ? &a->handles[ch][axis] : NULL;
    const onescope_ots_handle *hb = b->handle_axes[ch] == 3 ? &b->handles[ch][axis] : NULL;
    if (a->interp == ONESCOPE_OTS_LINEAR || ha == NULL || hb == NULL || !ha->present ||
        !hb->present)
        return y0 + (y3 - y0) * t;
    /* Bezier: handle frames clamped into the segment so x(t) rises monotonically; find t
     * with x(t) = f by Newton steps kept inside a shrinking bisection bracket. */
    double x1 = clampd(ha->right[0], x0, x3), y1 = ha->right[1];
    double x2 = clampd(hb->left[0], x0, x3), y2 = hb->left[1];
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; i++) {
        double err = bez(x0, x1, x2, x3, t) - f;
        if (fabs(err) <= 1e-12 * (x3 - x0)) break;
        if (err < 0)
            lo = t;
        else
            hi = t;
        double d = bez_d(x0, x1, x2, x3, t), next = d > 0 ? t - err / d : -1;
        t = next > lo && next < hi ? next : 0.5 * (lo + hi);
        if (hi - lo < 1e-15) break;
    }
    return bez(y0, y1, y2, y3, t);
}

static void key_quat(const onescope_ots_keyframe *k, onescope_ots_rot_order order, double q[4]) {
    if (k->has_rot_quat)
        memcpy(q, k->rot_quat, 4 * sizeof *q);
    else
        onescope_ots_euler_to_quat(k->rot, order, q);
    quat_normalize(q);
}

void onescope_ots_peg_sample(const onescope_ots_peg *peg, onescope_ots_rot_order order, double f,
                             onescope_ots_sample *out) {
    size_t n = peg->keyframe_count;
    const onescope_ots_keyframe *k = peg->keyframes;
    if (n == 0) {
        memcpy(out->pos, peg->rest_pivot, sizeof out->pos);
        memcpy(out->rot_quat, peg->rest_rotation, sizeof out->rot_quat);
        quat_normalize(out->rot_quat);
        out->scl[0] = out->scl[1] = out->scl[2] = 1;
        return;
    }
    /* hold before the first and after the last keyframe; exact values on a keyframe */
    const onescope_ots_keyframe *at = NULL;
    if (f <= k[0].frame)
        at = &k[0];
    else if (f >= k[n - 1].frame)
        at = &k[n - 1];
    size_t lo = 0, hi = n - 1; /* k[lo].frame <= f < k[hi].frame */
    if (at == NULL) {
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (k[mid].frame <= f)
                lo = mid;
            else
                hi = mid;
        }
        if (k[lo].frame == f) at = &k[lo];
    }
    if (at != NULL) {
        memcpy(out->pos, at->pos, sizeof out->pos);
        memcpy(out->scl, at->scl, sizeof out->scl);
        key_quat(at, order, out->rot_quat);
        return;
    }
    const onescope_ots_keyframe *a = &k[lo], *b = &k[hi];
    for (int ax = 0; ax < 3; ax++) {
        out->pos[ax] = segment(a, b, ONESCOPE_OTS_CHANNEL_POS, ax, f);
        out->scl[ax] = segment(a, b, ONESCOPE_OTS_CHANNEL_SCL, ax, f);
    }
    if (a->has_rot_quat || b->has_rot_quat) {
        double qa[4], qb[4];
        key_quat(a, order, qa);
        key_quat(b, order, qb);
        if (a->interp == ONESCOPE_OTS_CONSTANT)
            memcpy(out->rot_quat, qa, sizeof qa);
        else
            slerp(qa, qb, (f - a->frame) / ((double)b->frame - a->frame), out->rot_quat);
    } else {
        double e[3];
        for (int ax = 0; ax < 3; ax++) e[ax] = segment(a, b, ONESCOPE_OTS_CHANNEL_ROT, ax, f);
        onescope_ots_euler_to_quat(e, order, out->rot_quat);
    }
}

/* ---- .anm -> OSPC ---- */

onescope_ots_bake_options onescope_ots_bake_options_default(void) {
    onescope_ots_bake_options o;
    memset(&o, 0, sizeof o); /* zero is the default: compose parents */
    return o;
}

/* The conversion's own limits, checked after the clip rules. */
static onescope_code bake_limits(const onescope_ots_clip *clip, const char *name,
                                 onescope_error *error) {
    if (clip->frame_range[0] < 0)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "frame_range",
                                "a first frame >= 0 (it becomes the cache's start step)", "%ld",
                                (long)clip->frame_range[0]);
    int64_t frames = (int64_t)clip->frame_range[1] - clip->frame_range[0] + 1;
    if (frames > (int64_t)ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "frame_range",
                                "at most 4194304 frames", "%lld", (long long)frames);
    if (clip->peg_count < 1 || clip->peg_count > ONESCOPE_OSPC_MAX_ENTITIES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "pegs",
                                "1 to 65536 pegs", "%zu", clip->peg_count);
    return ONESCOPE_OK;
}

/* A clip being baked: the peg order (parents before children) and one frame's world
 * transforms. Both the in-memory bake and the streaming one sample through bake_frame. */
typedef struct bake_run {
    const onescope_ots_clip *clip;
    const onescope_ots_peg *pegs; /* what is sampled: clip->pegs, or windows onto them */
    const size_t *parents;
    size_t *order;
    double *world; /* 7 per peg: position, then quaternion w x y z */
    bool compose;
    double metres_per_unit; /* the cache's: positions in metres are divided by it */
    int64_t frames;
    const char *name;
} bake_run;

static void bake_release(const onescope_allocator *a, bake_run *b) {
    onescope_os_free(a, b->order);
    onescope_os_free(a, b->world);
}

static onescope_code bake_prepare(const onescope_ots_clip *clip, const size_t *parents,
                                  const onescope_ots_bake_options *o, const char *name,
                                  const onescope_allocator *a, bake_run *b, onescope_error *error) {
    memset(b, 0, sizeof *b);
    OS_TRY(bake_limits(clip, name, error));
    if (!isfinite(o->metres_per_unit) || o->metres_per_unit < 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "metres_per_unit",
                                "0 (metres) or a positive finite number", "%s",
                                onescope_os_num(o->metres_per_unit).s);
    b->clip = clip;
    b->pegs = clip->pegs;
    b->parents = parents;
    b->name = name;
    b->frames = (int64_t)clip->frame_range[1] - clip->frame_range[0] + 1;
    b->compose = !o->world_space;
    b->metres_per_unit = o->metres_per_unit == 0 ? 1.0 : o->metres_per_unit;
    size_t n = clip->peg_count;
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    b->order = onescope_os_calloc(a, n, sizeof *b->order);
    size_t *depth = onescope_os_calloc(a, n, sizeof *depth);
    b->world = onescope_os_calloc(a, n, 7 * sizeof *b->world);
    size_t *starts = NULL;
    onescope_code rc = ONESCOPE_OK;
    if (b->order == NULL || depth == NULL || b->world == NULL) {
        rc = onescope_os_json_nomem(&c);
        goto done;
    }
    size_t *order = b->order;
    /* parents before children: order by chain depth (counting sort; loops were refused) */
    size_t max_depth = 0;
    for (size_t i = 0; i < n; i++) depth[i] = b->compose ? SIZE_MAX : 0; /* SIZE_MAX: unknown */
    for (size_t i = 0; i < n; i++) {
        /* climb to a peg of known depth (or past a root), stacking the chain in order[] */
        size_t top = 0, j = i;
        while (j != SIZE_MAX && depth[j] == SIZE_MAX) {
            order[top++] = j;
            j = parents[j];
        }
        size_t d = j == SIZE_MAX ? 0 : depth[j] + 1;
        while (top > 0) depth[order[--top]] = d++;
        if (depth[i] > max_depth) max_depth = depth[i];
    }
    /* counting sort by depth: starts[d] is where depth d begins in order[] */
    starts = onescope_os_calloc(a, max_depth + 2, sizeof *starts);
    if (starts == NULL) {
        rc = onescope_os_json_nomem(&c);
        goto done;
    }
    for (size_t i = 0; i < n; i++) starts[depth[i] + 1]++;
    for (size_t d = 1; d <= max_depth + 1; d++) starts[d] += starts[d - 1];
    for (size_t i = 0; i < n; i++) order[starts[depth[i]]++] = i;
done:
    onescope_os_free(a, depth);
    onescope_os_free(a, starts);
    if (rc != ONESCOPE_OK) bake_release(a, b);
    return rc;
}

/* The unit names the bake writes for the usual metres per unit; other values get none. */
static const char *unit_name(double mpu) {
    return mpu == 1.0 ? "m" : mpu == 0.01 ? "cm" : mpu == 0.001 ? "mm" : "";
}

/* The cache's label for the clip's up axis: y (the default both ways) writes none. */
static const char *const up_labels[3] = {"up=x", "up=y", "up=z"};

/* The cache without its poses (one frame): 3D, one point entity per peg, in the asked unit,
 * the up axis in the label unless it is y. */
static onescope_code bake_head(const bake_run *b, const onescope_allocator *a,
                               onescope_pose_cache **out, onescope_error *error) {
    const onescope_ots_clip *clip = b->clip;
    onescope_pose_cache *cache;
    OS_TRY(onescope_pose_cache_create(3, (uint32_t)clip->peg_count, 1, a, &cache, error));
    cache->start_step = clip->frame_range[0];
    cache->metres_per_unit = b->metres_per_unit;
    const char *unit = unit_name(b->metres_per_unit);
    onescope_code rc = onescope_pose_cache_set_text(cache, ONESCOPE_POSE_TEXT_UNIT_NAME, unit,
                                                    strlen(unit), error);
    onescope_ots_up up = clip->header.coordinate_system.up;
    if (rc == ONESCOPE_OK && up != ONESCOPE_OTS_UP_Y)
        rc = onescope_pose_cache_set_text(cache, ONESCOPE_POSE_TEXT_LABEL, up_labels[up], 4, error);
    for (size_t i = 0; i < clip->peg_count && rc == ONESCOPE_OK; i++) {
        size_t len = strlen(clip->pegs[i].name);
        if (len > ONESCOPE_OSPC_MAX_TEXT)
            rc = onescope_os_fail(error, ONESCOPE_E_RANGE, b->name, OS_NO_OFFSET, "pegs[].name",
                                  "a name of at most 1024 bytes (an OSPC entity name)", "%zu bytes",
                                  len);
        else
            rc = onescope_pose_cache_set_entity_name(cache, (uint32_t)i, clip->pegs[i].name, len,
                                                     error);
    }
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(cache);
        return rc;
    }
    *out = cache;
    return ONESCOPE_OK;
}

/* Samples frame f (0-based within frame_range) of every peg into poses[0..peg_count). */
static onescope_code bake_frame(bake_run *b, int64_t f, onescope_pose *poses,
                                onescope_error *error) {
    const onescope_ots_clip *clip = b->clip;
    onescope_ots_rot_order ro = clip->header.coordinate_system.rot_order;
    double frame = (double)(clip->frame_range[0] + f);
    for (size_t r = 0; r < clip->peg_count; r++) {
        size_t i = b->order[r];
        onescope_ots_sample s;
        onescope_ots_peg_sample(&b->pegs[i], ro, frame, &s);
        double *w = &b->world[i * 7];
        if (b->compose && b->parents[i] != SIZE_MAX) {
            const double *pw = &b->world[b->parents[i] * 7];
            double v[3];
            quat_rotate(pw + 3, s.pos, v);
            for (int k = 0; k < 3; k++) w[k] = pw[k] + v[k];
            quat_mul(pw + 3, s.rot_quat, w + 3);
        } else {
            memcpy(w, s.pos, 3 * sizeof *w);
            memcpy(w + 3, s.rot_quat, 4 * sizeof *w);
        }
        onescope_pose *p = &poses[i];
        for (int k = 0; k < 3; k++) p->position[k] = (float)(w[k] / b->metres_per_unit);
        p->rotation[0] = (float)w[4];
        p->rotation[1] = (float)w[5];
        p->rotation[2] = (float)w[6];
        p->rotation[3] = (float)w[3];
        for (int k = 0; k < 3; k++)
            if (!isfinite(p->position[k]))
                return onescope_os_fail(
                    error, ONESCOPE_E_RANGE, b->name, OS_NO_OFFSET, "position",
                    "a world position that fits a 32-bit float", "%s at frame %s",
                    onescope_os_num(w[k] / b->metres_per_unit).s, onescope_os_num(frame).s);
    }
    return ONESCOPE_OK;
}

/* Refuses, from the pegs and the frame range alone, a bake whose file would pass limit:
 * before a frame is sampled or a byte written. */
static onescope_code bake_check_size(const onescope_pose_cache *head, int64_t frames,
                                     uint64_t limit, const char *name, onescope_error *error) {
    uint64_t total;
    OS_TRY(onescope_pose_cache_head_size(head, &total, error));
    total += (uint64_t)frames * head->entity_count * ONESCOPE_OSPC_POSE_BYTES;
    if (total <= limit) return ONESCOPE_OK;
    char expected[128];
    snprintf(expected, sizeof expected,
             "at most %llu bytes (the pose-cache file limit; ask for segments)",
             (unsigned long long)limit);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size",
                            expected, "%llu bytes (%lld frames of %u pegs)",
                            (unsigned long long)total, (long long)frames,
                            (unsigned)head->entity_count);
}

/* Bakes a clip that has passed the rules; parents is what that one pass found. */
static onescope_code bake_checked(const onescope_ots_clip *clip, const size_t *parents,
                                  const onescope_ots_bake_options *o, const char *name,
                                  const onescope_allocator *a, onescope_pose_cache **out,
                                  onescope_error *error) {
    bake_run b;
    OS_TRY(bake_prepare(clip, parents, o, name, a, &b, error));
    onescope_pose_cache *cache = NULL;
    onescope_code rc = bake_head(&b, a, &cache, error);
    if (rc == ONESCOPE_OK)
        rc = bake_check_size(cache, b.frames, ONESCOPE_MAX_INPUT_BYTES, name, error);
    if (rc == ONESCOPE_OK) {
        /* the head's one frame grows to every frame; the size check bounds it */
        size_t n = clip->peg_count;
        onescope_pose *poses = onescope_os_calloc(a, (size_t)b.frames * n, sizeof *poses);
        if (poses == NULL) {
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "poses", NULL,
                                  "could not allocate memory");
        } else {
            onescope_os_free(a, cache->poses);
            cache->poses = poses;
            cache->frame_count = (uint32_t)b.frames;
            for (int64_t f = 0; f < b.frames && rc == ONESCOPE_OK; f++)
                rc = bake_frame(&b, f, &poses[(size_t)f * n], error);
        }
    }
    bake_release(a, &b);
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(cache);
        return rc;
    }
    *out = cache;
    return ONESCOPE_OK;
}

/* ---- a clip's keyframes spilled to a scratch file, read back a window at a time ----
 * The streamed .anm -> OSPC conversion keeps no keyframe in memory: each one, once the reader
 * has checked it, is packed into a record appended to a scratch file (file_internal.h), each
 * peg's records in one run. The bake then reads every peg forwards through a cursor holding a
 * chunk of its records and a window of at most two keyframes decoded: onescope_ots_peg_sample
 * reads, of a whole peg, only the last keyframe at or before the frame and the one after it
 * (or the first or the last keyframe alone when it holds), so the window gives the same
 * sample bit for bit; the frames go forwards, so the window only moves forwards. */

/* A record: frame (4 bytes), flags (has_rot 1, has_rot_quat 2, channel c's handles 4 << c),
 * interp (1), the handles' present bits (2 bytes: bit 3 c + axis), then the doubles, each
 * with a 2-bit tag: 0 for +0.0, 1 for 1.0 (neither stored), 2 for the 8 bytes that follow.
 * The doubles are pos rot rot_quat scl (13: tags in 4 bytes), then for each channel with
 * handles its axes' left and right (12: tags in 3 bytes). Values are kept bit for bit (a -0.0
 * is stored); native byte order, as the file never leaves the process that wrote it. */
#define REC_HEAD 8
#define REC_MAX (REC_HEAD + 4 + 13 * 8 + 3 * (3 + 12 * 8))

static const double rec_one = 1.0;

/* Tags and values of v[0..n) from p (tags at tags, 4 a byte, n at most 16). */
static size_t rec_put(uint8_t *tags, uint8_t *p, const double *v, int n) {
    static const double zero = 0.0;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        unsigned tag = memcmp(&v[i], &zero, 8) == 0 ? 0 : memcmp(&v[i], &rec_one, 8) == 0 ? 1 : 2;
        tags[i / 4] = (uint8_t)(tags[i / 4] | tag << (i % 4 * 2));
        if (tag == 2) {
            memcpy(p + at, &v[i], 8);
            at += 8;
        }
    }
    return at;
}

static size_t rec_get(const uint8_t *tags, const uint8_t *p, double *v, int n) {
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        unsigned tag = tags[i / 4] >> (i % 4 * 2) & 3;
        if (tag == 2) {
            memcpy(&v[i], p + at, 8);
            at += 8;
        } else {
            v[i] = tag == 1 ? rec_one : 0.0;
        }
    }
    return at;
}

/* The bytes of the values of n doubles whose tags are at tags. */
static size_t rec_values(const uint8_t *tags, int n) {
    size_t at = 0;
    for (int i = 0; i < n; i++) at += (tags[i / 4] >> (i % 4 * 2) & 3) == 2 ? 8 : 0;
    return at;
}

static size_t rec_encode(const onescope_ots_keyframe *k, uint8_t *out) {
    uint8_t flags = (uint8_t)((k->has_rot ? 1 : 0) | (k->has_rot_quat ? 2 : 0));
    unsigned present = 0;
    for (int c = 0; c < 3; c++) {
        if (k->handle_axes[c] != 3) continue;
        flags = (uint8_t)(flags | 4 << c);
        for (int ax = 0; ax < 3; ax++)
            if (k->handles[c][ax].present) present |= 1u << (3 * c + ax);
    }
    memcpy(out, &k->frame, 4);
    out[4] = flags;
    out[5] = (uint8_t)k->interp;
    out[6] = (uint8_t)(present & 0xFF);
    out[7] = (uint8_t)(present >> 8);
    double v[13];
    memcpy(v, k->pos, sizeof k->pos);
    memcpy(v + 3, k->rot, sizeof k->rot);
    memcpy(v + 6, k->rot_quat, sizeof k->rot_quat);
    memcpy(v + 10, k->scl, sizeof k->scl);
    uint8_t *tags = out + REC_HEAD;
    memset(tags, 0, 4);
    size_t n = REC_HEAD + 4;
    n += rec_put(tags, out + n, v, 13);
    for (int c = 0; c < 3; c++) {
        if (k->handle_axes[c] != 3) continue;
        double h[12];
        for (int ax = 0; ax < 3; ax++) {
            memcpy(h + 4 * ax, k->handles[c][ax].left, 2 * sizeof *h);
            memcpy(h + 4 * ax + 2, k->handles[c][ax].right, 2 * sizeof *h);
        }
        tags = out + n;
        memset(tags, 0, 3);
        n += 3;
        n += rec_put(tags, out + n, h, 12);
    }
    return n;
}

/* The record's length from its first bytes (at least REC_HEAD + 4, and the tags of each
 * channel as far as they are there); 0 when have does not hold enough to tell. */
static size_t rec_length(const uint8_t *p, size_t have) {
    if (have < REC_HEAD + 4) return 0;
    size_t n = REC_HEAD + 4 + rec_values(p + REC_HEAD, 13);
    for (int c = 0; c < 3; c++) {
        if (!(p[4] & (4 << c))) continue;
        if (have < n + 3) return 0;
        n += 3 + rec_values(p + n, 12);
    }
    return n;
}

/* The keyframe the reader checked, from its record: every field the sampler reads. */
static void rec_decode(const uint8_t *p, onescope_ots_keyframe *k) {
    memcpy(&k->frame, p, 4);
    k->has_rot = (p[4] & 1) != 0;
    k->has_rot_quat = (p[4] & 2) != 0;
    k->interp = (onescope_ots_interp)p[5];
    unsigned present = p[6] | (unsigned)p[7] << 8;
    double v[13];
    size_t n = REC_HEAD + 4;
    n += rec_get(p + REC_HEAD, p + n, v, 13);
    memcpy(k->pos, v, sizeof k->pos);
    memcpy(k->rot, v + 3, sizeof k->rot);
    memcpy(k->rot_quat, v + 6, sizeof k->rot_quat);
    memcpy(k->scl, v + 10, sizeof k->scl);
    for (int c = 0; c < 3; c++) {
        if (!(p[4] & (4 << c))) {
            /* the handles stay as they were: nothing reads them when the axes are 0 */
            k->handle_axes[c] = 0;
            continue;
        }
        k->handle_axes[c] = 3;
        double h[12];
        const uint8_t *tags = p + n;
        n += 3;
        n += rec_get(tags, p + n, h, 12);
        for (int ax = 0; ax < 3; ax++) {
            onescope_ots_handle *hd = &k->handles[c][ax];
            hd->present = (present >> (3 * c + ax) & 1) != 0;
            memcpy(hd->left, h + 4 * ax, 2 * sizeof *h);
            memcpy(hd->right, h + 4 * ax + 2, 2 * sizeof *h);
        }
    }
}

/* Where each peg's records are in the scratch file. */
typedef struct spill_run {
    uint64_t at, bytes;
    size_t count;
} spill_run;

typedef struct key_spill {
    const onescope_allocator *a;
    const char *name;
    onescope_os_scratch *file; /* made at the first keyframe */
    spill_run *runs;           /* runs[peg], for the pegs seen so far (zero: no keyframes) */
    size_t cap;
} key_spill;

static void spill_release(key_spill *sp) {
    onescope_os_scratch_free(sp->file);
    onescope_os_free(sp->a, sp->runs);
}

/* The reader's on_key: the keyframe appended to its peg's run. */
static onescope_code spill_key(void *user, size_t peg, const onescope_ots_keyframe *k,
                               onescope_error *error) {
    key_spill *sp = user;
    if (peg >= sp->cap) {
        size_t n = sp->cap ? sp->cap : 64;
        while (n <= peg) n *= 2;
        spill_run *r = onescope_os_calloc(sp->a, n, sizeof *r);
        if (r == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, sp->name, OS_NO_OFFSET, NULL, NULL,
                                    "could not allocate memory");
        if (sp->cap) memcpy(r, sp->runs, sp->cap * sizeof *r);
        onescope_os_free(sp->a, sp->runs);
        sp->runs = r;
        sp->cap = n;
    }
    if (sp->file == NULL) OS_TRY(onescope_os_scratch_open(sp->name, sp->a, &sp->file, error));
    spill_run *run = &sp->runs[peg];
    if (run->count == 0) run->at = onescope_os_scratch_size(sp->file);
    uint8_t rec[REC_MAX];
    size_t n = rec_encode(k, rec);
    OS_TRY(onescope_os_scratch_append(sp->file, rec, n, error));
    run->bytes += n;
    run->count++;
    return ONESCOPE_OK;
}

/* Keyframes decoded per peg: the window is slot[lo] and (win_n 2) slot[lo + 1]; it moves up
 * the slots and goes back to the start only when it reaches the end, so one keyframe in
 * WINDOW_SLOTS - 1 is copied, not every one. */
#define WINDOW_SLOTS 4

/* One peg read forwards: chunk[pos..len) holds the records from the file's next - (len - pos)
 * on; the window the keyframes around the last frame sampled. */
typedef struct key_cursor {
    uint64_t next, end; /* the next byte to read, and the end of the peg's run */
    size_t left;        /* records not decoded yet */
    uint8_t *chunk;
    size_t pos, len;
    onescope_ots_keyframe slot[WINDOW_SLOTS];
    size_t lo, win_n;
} key_cursor;

typedef struct key_windows {
    key_spill *spill;
    key_cursor *cur;
    uint8_t *chunks;
    size_t chunk;           /* bytes of each cursor's chunk */
    onescope_ots_peg *view; /* the clip's pegs, each with its window as its keyframes */
} key_windows;

/* The chunk budget shared by the cursors: memory grows with the pegs, never with the file. */
#define WINDOW_BUDGET ((size_t)4 << 20)
#define WINDOW_CHUNK_MAX ((size_t)64 << 10)

/* The next record of c into *k. */
static onescope_code cursor_decode(key_windows *w, key_cursor *c, onescope_ots_keyframe *k,
                                   onescope_error *error) {
    if (c->len - c->pos < REC_MAX && c->next < c->end) {
        size_t keep = c->len - c->pos;
        memmove(c->chunk, c->chunk + c->pos, keep);
        uint64_t want = w->chunk - keep;
        if (want > c->end - c->next) want = c->end - c->next;
        OS_TRY(onescope_os_scratch_read(w->spill->file, c->next, c->chunk + keep, (size_t)want,
                                        error));
        c->next += want;
        c->pos = 0;
        c->len = keep + (size_t)want;
    }
    size_t have = c->len - c->pos, len = rec_length(c->chunk + c->pos, have);
    if (len == 0 || len > have)
        return onescope_os_fail(error, ONESCOPE_E_IO, w->spill->name, OS_NO_OFFSET, NULL, NULL,
                                "the scratch file of the keyframes changed under the conversion");
    rec_decode(c->chunk + c->pos, k);
    c->pos += len;
    /* this peg's next record is wanted a frame later, after every other peg's: asked for now
     * it is in the cache by then (hundreds of pegs are more streams than the hardware
     * prefetcher follows) */
    for (size_t ahead = 0; ahead < 256 && c->pos + ahead < c->len; ahead += 64)
        __builtin_prefetch(c->chunk + c->pos + ahead);
    c->left--;
    return ONESCOPE_OK;
}

static void windows_release(key_windows *w) {
    const onescope_allocator *a = w->spill->a;
    onescope_os_free(a, w->cur);
    onescope_os_free(a, w->chunks);
    onescope_os_free(a, w->view);
}

/* A cursor on each peg, its window on the first two keyframes. */
static onescope_code windows_open(key_windows *w, key_spill *sp, const onescope_ots_clip *clip,
                                  onescope_error *error) {
    memset(w, 0, sizeof *w);
    w->spill = sp;
    size_t n = clip->peg_count;
    w->chunk = WINDOW_BUDGET / (n ? n : 1);
    if (w->chunk > WINDOW_CHUNK_MAX) w->chunk = WINDOW_CHUNK_MAX;
    if (w->chunk < 2 * REC_MAX) w->chunk = 2 * REC_MAX;
    size_t bytes;
    w->cur = onescope_os_calloc(sp->a, n, sizeof *w->cur);
    w->view = onescope_os_calloc(sp->a, n, sizeof *w->view);
    w->chunks = onescope_os_mul_size(n, w->chunk, &bytes) ? onescope_os_alloc(sp->a, bytes) : NULL;
    if (w->cur == NULL || w->view == NULL || w->chunks == NULL) {
        windows_release(w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, sp->name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    }
    for (size_t i = 0; i < n; i++) {
        key_cursor *c = &w->cur[i];
        const spill_run *run = i < sp->cap ? &sp->runs[i] : NULL;
        c->chunk = w->chunks + i * w->chunk;
        if (run != NULL && run->count > 0) {
            c->next = run->at;
            c->end = run->at + run->bytes;
            c->left = run->count;
        }
        w->view[i] = clip->pegs[i]; /* shallow: the names stay the clip's */
        w->view[i].keyframes = c->slot;
        onescope_code rc = ONESCOPE_OK;
        while (rc == ONESCOPE_OK && c->win_n < 2 && c->left > 0)
            rc = cursor_decode(w, c, &c->slot[c->win_n++], error);
        w->view[i].keyframe_count = c->win_n;
        if (rc != ONESCOPE_OK) {
            windows_release(w);
            return rc;
        }
    }
    return ONESCOPE_OK;
}

/* Every window moved to frame: on the last keyframe at or before it and the one after. */
static onescope_code windows_seek(key_windows *w, size_t n, double frame, onescope_error *error) {
    for (size_t i = 0; i < n; i++) {
        key_cursor *c = &w->cur[i];
        while (c->win_n == 2 && c->slot[c->lo + 1].frame <= frame) {
            if (c->left == 0) {
                c->lo++;
                c->win_n = 1;
            } else if (c->lo + 2 < WINDOW_SLOTS) {
                OS_TRY(cursor_decode(w, c, &c->slot[c->lo + 2], error));
                c->lo++;
            } else {
                c->slot[0] = c->slot[c->lo + 1];
                c->lo = 0;
                OS_TRY(cursor_decode(w, c, &c->slot[1], error));
            }
        }
        w->view[i].keyframes = &c->slot[c->lo];
        w->view[i].keyframe_count = c->win_n;
    }
    return ONESCOPE_OK;
}

/* The same bake streamed to path; failures of the clip name `name`, the writer's (the
 * output file) keep the output's name. With sp, the keyframes come from its scratch file
 * through one window per peg (clip holds none). */
static onescope_code bake_to_file(const onescope_ots_clip *clip, const size_t *parents,
                                  const onescope_ots_bake_options *o, const char *name,
                                  const char *path, const onescope_pose_writer_options *wopt,
                                  const onescope_allocator *a, key_spill *sp, uint64_t *frames,
                                  onescope_error *error) {
    bake_run b;
    OS_TRY(bake_prepare(clip, parents, o, name, a, &b, error));
    onescope_pose_writer_options wo = wopt ? *wopt : onescope_pose_writer_options_default();
    uint64_t limit = wo.max_segment_bytes == 0 || wo.max_segment_bytes > ONESCOPE_MAX_INPUT_BYTES
                         ? ONESCOPE_MAX_INPUT_BYTES
                         : wo.max_segment_bytes;
    onescope_pose_cache *head = NULL;
    onescope_code rc = bake_head(&b, a, &head, error);
    if (rc == ONESCOPE_OK && !wo.segments) rc = bake_check_size(head, b.frames, limit, name, error);
    if (rc != ONESCOPE_OK && error != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, name);
    key_windows win;
    bool windows = false;
    if (rc == ONESCOPE_OK && sp != NULL) {
        rc = windows_open(&win, sp, clip, error);
        windows = rc == ONESCOPE_OK;
        if (windows) b.pegs = win.view;
    }
    onescope_pose_writer *w = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_open(path, head, &wo, a, &w, error);
    for (int64_t f = 0; rc == ONESCOPE_OK && f < b.frames; f++) {
        if (windows)
            rc = windows_seek(&win, clip->peg_count, (double)(clip->frame_range[0] + f), error);
        if (rc == ONESCOPE_OK)
            rc = bake_frame(&b, f, head->poses, error); /* the head's frame is the buffer */
        if (rc == ONESCOPE_OK)
            rc = onescope_pose_writer_append(w, head->poses, clip->peg_count, error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_close(w, frames, error);
    onescope_pose_writer_discard(w); /* a failed run leaves no partial behind */
    if (windows) windows_release(&win);
    onescope_pose_cache_free(head);
    bake_release(a, &b);
    return rc;
}

static onescope_code to_pose_cache(const onescope_ots_clip *clip,
                                   const onescope_ots_bake_options *options,
                                   const onescope_allocator *a, onescope_pose_cache **out,
                                   onescope_error *error) {
    const char *name = options && options->name ? options->name : "anm to ospc";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    if (clip == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "clip", "non-NULL",
                                NULL);
    onescope_ots_bake_options o = options ? *options : onescope_ots_bake_options_default();
    /* one pass of the rules, keeping the parents its hierarchy check found */
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, clip->allocator, error);
    size_t *parents = onescope_os_calloc(a, clip->peg_count ? clip->peg_count : 1, sizeof *parents);
    if (parents == NULL) return onescope_os_json_nomem(&c);
    onescope_code rc = onescope_os_ots_clip_rules(&c, clip, parents);
    if (rc == ONESCOPE_OK) rc = bake_checked(clip, parents, &o, name, a, out, error);
    onescope_os_free(a, parents);
    return rc;
}

/* ---- OSPC -> .anm ---- */

/* Marks a struct made by onescope_ots_from_cache_options_default() ("OSFC"). */
#define FROM_CACHE_COOKIE 0x4346534Fu

onescope_ots_from_cache_options onescope_ots_from_cache_options_default(void) {
    onescope_ots_from_cache_options o;
    memset(&o, 0, sizeof o);
    o.fps = 24.0;
    o.source = ONESCOPE_OTS_SOURCE_BLENDER;
    o.private_cookie = FROM_CACHE_COOKIE;
    return o;
}

/* One cache pose as the bake gives it back: position in the cache's unit, rotation x y z w
 * (all zero read as the identity). */
typedef struct cache_pose {
    float position[3];
    float rotation[4];
} cache_pose;

static cache_pose pose_of(const onescope_pose *p) {
    cache_pose c;
    memcpy(c.position, p->position, sizeof c.position);
    onescope_pose_rotation(p, c.rotation);
    return c;
}

static bool same_pose(const cache_pose *a, const cache_pose *b) {
    return memcmp(a, b, sizeof *a) == 0; /* bits: -0 and 0 differ */
}

static void set_key(onescope_ots_keyframe *kf, int32_t frame, const cache_pose *p, double mpu) {
    memset(kf, 0, sizeof *kf); /* no handles */
    kf->frame = frame;
    for (int i = 0; i < 3; i++) kf->pos[i] = p->position[i] * mpu;
    kf->rot_quat[0] = p->rotation[3];
    kf->rot_quat[1] = p->rotation[0];
    kf->rot_quat[2] = p->rotation[1];
    kf->rot_quat[3] = p->rotation[2];
    kf->has_rot_quat = true;
    kf->has_rot = true;
    onescope_ots_quat_to_euler_xyz(kf->rot_quat, kf->rot);
    kf->scl[0] = kf->scl[1] = kf->scl[2] = 1;
    kf->interp = ONESCOPE_OTS_LINEAR;
}

/* Whether the bake of keys a (LINEAR) and b gives back pose p at frame f, bit for bit. */
static bool reproduces(const onescope_ots_keyframe ab[2], double f, const cache_pose *p,
                       double mpu) {
    onescope_ots_peg peg;
    memset(&peg, 0, sizeof peg);
    peg.keyframes = (onescope_ots_keyframe *)ab;
    peg.keyframe_count = 2;
    onescope_ots_sample s;
    onescope_ots_peg_sample(&peg, ONESCOPE_OTS_ROT_XYZ, f, &s);
    cache_pose got;
    for (int k = 0; k < 3; k++) got.position[k] = (float)(s.pos[k] / mpu);
    got.rotation[0] = (float)s.rot_quat[1];
    got.rotation[1] = (float)s.rot_quat[2];
    got.rotation[2] = (float)s.rot_quat[3];
    got.rotation[3] = (float)s.rot_quat[0];
    return same_pose(&got, p);
}

/* The longest LINEAR segment tried from one key: bounds the search to KEY_SPAN^2 / 2 samples
 * per key, so time stays linear in the frames for any motion. */
#define KEY_SPAN 64

/* The keys of one entity as they are decided, each as the frame it is set from and whether
 * it holds (CONSTANT): 8 bytes a key, grown by doubling, so memory follows the keys kept, not
 * the frames (a still entity of 4 M frames keeps one key). The keyframes themselves are made
 * once the count is known. With store false the keys are only counted. */
typedef struct key_ref {
    uint32_t frame; /* the cache frame the key's pose and step come from */
    uint32_t constant;
} key_ref;

typedef struct key_list {
    const onescope_allocator *a;
    bool store;
    bool failed; /* an allocation failed: the list is incomplete */
    key_ref *data;
    size_t count, cap;
} key_list;

static void key_push(key_list *l, uint32_t frame, onescope_ots_interp interp) {
    if (l->store && !l->failed && l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16; /* at most 2 x 4 M keys: no overflow */
        key_ref *d = onescope_os_calloc(l->a, cap, sizeof *d);
        if (d == NULL) {
            l->failed = true;
        } else {
            if (l->count > 0) memcpy(d, l->data, l->count * sizeof *d);
            onescope_os_free(l->a, l->data);
            l->data = d;
            l->cap = cap;
        }
    }
    if (l->store && !l->failed)
        l->data[l->count] = (key_ref){frame, interp == ONESCOPE_OTS_CONSTANT};
    l->count++;
}

/* Entity e's keyframes, pushed onto keys in frame order as each is decided. A run of equal
 * poses is one CONSTANT key; otherwise each key reaches, LINEAR, as far as every frame in
 * between still comes back exactly. */
static void entity_keys(const onescope_pose_cache *cache, uint32_t e, double mpu, bool all,
                        key_list *keys) {
    uint32_t ne = cache->entity_count, nf = cache->frame_count;
    const onescope_pose *poses = cache->poses;
#define PRESENT(f) onescope_pose_is_present(&poses[(size_t)(f)*ne + e])
#define POSE(f) pose_of(&poses[(size_t)(f)*ne + e])
#define STEP(f) ((int32_t)(cache->start_step + (f)))
    onescope_ots_keyframe cur; /* the key being decided; pushed when the next one starts */
    uint32_t cur_frame;
    uint32_t f = 0;
    while (f < nf) {
        if (!PRESENT(f)) {
            f++;
            continue;
        }
        uint32_t last = f; /* the run of present frames f..last */
        while (last + 1 < nf && PRESENT(last + 1)) last++;
        uint32_t i = f;
        cache_pose pi = POSE(i);
        set_key(&cur, STEP(i), &pi, mpu);
        cur_frame = i;
        while (i < last) {
            uint32_t next = i + 1;
            cache_pose pn = POSE(next);
            if (!all && same_pose(&pn, &pi)) {
                /* held: CONSTANT to the first frame that differs (or past the run) */
                while (next <= last) {
                    cache_pose q = POSE(next);
                    if (!same_pose(&q, &pi)) break;
                    next++;
                }
                cur.interp = ONESCOPE_OTS_CONSTANT;
                if (next > last) break;
            } else if (!all) {
                onescope_ots_keyframe ab[2];
                ab[0] = cur;
                uint32_t limit = last - i < KEY_SPAN ? last : i + KEY_SPAN;
                for (uint32_t b = i + 2; b <= limit; b++) {
                    cache_pose pb = POSE(b);
                    set_key(&ab[1], STEP(b), &pb, mpu);
                    bool ok = true;
                    for (uint32_t g = i + 1; g < b && ok; g++) {
                        cache_pose pg = POSE(g);
                        ok = reproduces(ab, (double)STEP(g), &pg, mpu);
                    }
                    if (!ok) break;
                    next = b;
                }
            }
            key_push(keys, cur_frame, cur.interp);
            i = next;
            pi = POSE(i);
            set_key(&cur, STEP(i), &pi, mpu);
            cur_frame = i;
        }
        /* nothing interpolates into an absent frame: hold the pose across the gap */
        if (last + 1 < nf) cur.interp = ONESCOPE_OTS_CONSTANT;
        key_push(keys, cur_frame, cur.interp);
        f = last + 1;
    }
#undef PRESENT
#undef POSE
#undef STEP
}

/* Every keyframe to be written (every present pose, or when that is too many for the limit,
 * the count a dry run of entity_keys gives) takes at least
 * ONESCOPE_OTS_KEYFRAME_MIN_BYTES of JSON:
 * when those alone pass the output limit the .anm could never be written, so it is refused
 * from the cache before a keyframe (about twice its JSON in memory) is built. */
static onescope_code anm_check_size(const onescope_pose_cache *cache, double mpu, bool all,
                                    const char *name, onescope_error *error) {
    uint64_t present = 0, poses = (uint64_t)cache->entity_count * cache->frame_count;
    for (uint64_t i = 0; i < poses; i++) present += onescope_pose_is_present(&cache->poses[i]);
    uint64_t least = present * ONESCOPE_OTS_KEYFRAME_MIN_BYTES;
    if (least <= ONESCOPE_MAX_INPUT_BYTES) return ONESCOPE_OK; /* fewer keys fit too */
    if (!all) { /* a dry run of the key choice counts the keys to be written */
        key_list count = {NULL, false, false, NULL, 0, 0};
        for (uint32_t e = 0; e < cache->entity_count; e++) entity_keys(cache, e, mpu, all, &count);
        present = count.count;
        least = present * ONESCOPE_OTS_KEYFRAME_MIN_BYTES;
        if (least <= ONESCOPE_MAX_INPUT_BYTES) return ONESCOPE_OK;
    }
    char expected[96];
    snprintf(expected, sizeof expected, "at most %zu bytes (the .anm output limit)",
             ONESCOPE_MAX_INPUT_BYTES);
    return onescope_os_fail(
        error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size", expected,
        "at least %llu bytes (%llu keyframes of at least %u bytes each)", (unsigned long long)least,
        (unsigned long long)present, ONESCOPE_OTS_KEYFRAME_MIN_BYTES);
}

/* The .anm's up axis: the option, or the cache's label, or y; a contradiction is refused. */
static onescope_code anm_up(const onescope_pose_cache *cache,
                            const onescope_ots_from_cache_options *o, const char *name,
                            onescope_ots_up *up, onescope_error *error) {
    const onescope_text *label = &cache->text[ONESCOPE_POSE_TEXT_LABEL];
    int recorded = -1;
    for (int i = 0; i < 3; i++)
        if (label->length == 4 && memcmp(label->data, up_labels[i], 4) == 0) recorded = i;
    if (o->up_given && (int)o->up >= 0 && (int)o->up < 3) {
        if (recorded >= 0 && recorded != (int)o->up)
            return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "up",
                                    "the up axis the cache records", "%s (the cache says %s)",
                                    onescope_os_ots_up_names[o->up],
                                    onescope_os_ots_up_names[recorded]);
        *up = o->up;
    } else if (o->up_given) {
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "up", "x, y or z",
                                "%d", (int)o->up);
    } else {
        *up = recorded >= 0 ? (onescope_ots_up)recorded : ONESCOPE_OTS_UP_Y;
    }
    return ONESCOPE_OK;
}

/* The metres per unit positions are multiplied by: the cache's own or the option's. */
static onescope_code anm_unit(const onescope_pose_cache *cache,
                              const onescope_ots_from_cache_options *o, const char *name,
                              double *mpu, onescope_error *error) {
    double asked = o->metres_per_unit, own = cache->metres_per_unit;
    if (!isfinite(asked) || asked < 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "metres_per_unit",
                                "0 (the cache's own) or a positive finite number", "%s",
                                onescope_os_num(asked).s);
    if (own == 0 && asked == 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "metres per unit",
                                "a cache with a unit, or one given for it (CLI --unit)",
                                "a unitless cache (metres per unit 0)");
    if (own != 0 && asked != 0 && asked != own)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "metres per unit",
                                "no unit given, or the cache's own", "%s (the cache has %s)",
                                onescope_os_num(asked).s, onescope_os_num(own).s);
    *mpu = own != 0 ? own : asked;
    return ONESCOPE_OK;
}

/* A cache -> .anm conversion once its options are checked: what both the in-memory and the
 * file path build the clip from. */
typedef struct anm_plan {
    const char *name;
    onescope_ots_from_cache_options o;
    double mpu;
    onescope_ots_up up;
    int64_t last; /* the last frame number */
} anm_plan;

/* The checks before anything is built: the options, the cache, its unit and up axis, the
 * output's size from below, the frame numbers. */
static onescope_code anm_plan_make(const onescope_pose_cache *cache,
                                   const onescope_ots_from_cache_options *options, anm_plan *p,
                                   onescope_error *error) {
    const char *name = p->name;
    if (options != NULL && options->private_cookie != FROM_CACHE_COOKIE)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET,
                                "onescope_ots_from_cache_options",
                                "a struct from onescope_ots_from_cache_options_default()",
                                "one without its cookie (zeroed or built by hand)");
    OS_TRY(onescope_pose_cache_validate(cache, name, error));
    p->o = options ? *options : onescope_ots_from_cache_options_default();
    p->mpu = 1.0; /* both set by anm_unit and anm_up when they succeed */
    p->up = ONESCOPE_OTS_UP_Y;
    OS_TRY(anm_unit(cache, &p->o, name, &p->mpu, error));
    OS_TRY(anm_up(cache, &p->o, name, &p->up, error));
    OS_TRY(anm_check_size(cache, p->mpu, p->o.keys_all, name, error));
    p->last = cache->start_step + ((int64_t)cache->frame_count - 1);
    if (p->last > INT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "start step",
                                "frames that fit a 32-bit .anm frame number", "last step %lld",
                                (long long)p->last);
    return ONESCOPE_OK;
}

/* The clip's header with one empty peg per entity. */
static onescope_code anm_clip_head(const onescope_pose_cache *cache, const anm_plan *p,
                                   const onescope_allocator *a, onescope_ots_clip **out,
                                   onescope_error *error) {
    onescope_ots_clip *clip;
    OS_TRY(onescope_ots_clip_create(cache->entity_count, 0, a, &clip, error));
    clip->header.fps = p->o.fps;
    clip->header.source = p->o.source;
    clip->header.coordinate_system.up = p->up;
    clip->frame_range[0] = (int32_t)cache->start_step;
    clip->frame_range[1] = (int32_t)p->last;
    *out = clip;
    return ONESCOPE_OK;
}

/* Entity e's peg name: its own, or "entity-ID" when it has none (or one with a NUL). */
static onescope_code peg_set_name(onescope_ots_clip *clip, const onescope_pose_cache *cache,
                                  uint32_t e, onescope_error *error) {
    const onescope_pose_entity *ent = &cache->entities[e];
    char fallback[40];
    snprintf(fallback, sizeof fallback, "entity-%llu", (unsigned long long)ent->id);
    const char *pname = ent->name.length > 0 && memchr(ent->name.data, 0, ent->name.length) == NULL
                            ? ent->name.data
                            : fallback;
    return onescope_ots_clip_set_peg_text(clip, e, ONESCOPE_OTS_TEXT_NAME, pname, error);
}

/* Entity e's keyframes into its peg. */
static onescope_code peg_set_keys(onescope_ots_clip *clip, const onescope_pose_cache *cache,
                                  uint32_t e, const anm_plan *p, onescope_error *error) {
    key_list keys = {clip->allocator, true, false, NULL, 0, 0};
    entity_keys(cache, e, p->mpu, p->o.keys_all, &keys);
    onescope_ots_keyframe *k =
        keys.failed ? NULL : onescope_os_calloc(clip->allocator, keys.count, sizeof *k);
    if (k == NULL) {
        onescope_os_free(clip->allocator, keys.data);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, p->name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    }
    for (size_t i = 0; i < keys.count; i++) {
        uint32_t f = keys.data[i].frame;
        cache_pose pose = pose_of(&cache->poses[(size_t)f * cache->entity_count + e]);
        set_key(&k[i], (int32_t)(cache->start_step + f), &pose, p->mpu);
        if (keys.data[i].constant) k[i].interp = ONESCOPE_OTS_CONSTANT;
    }
    onescope_os_free(clip->allocator, keys.data);
    onescope_ots_peg *peg = &clip->pegs[e];
    onescope_os_free(clip->allocator, peg->keyframes);
    peg->keyframes = k;
    peg->keyframe_count = keys.count;
    return ONESCOPE_OK;
}

static onescope_code from_pose_cache(const onescope_pose_cache *cache,
                                     const onescope_ots_from_cache_options *options,
                                     const onescope_allocator *a, onescope_ots_clip **out,
                                     onescope_error *error) {
    anm_plan p;
    p.name = options && options->name ? options->name : "ospc to anm";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, p.name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    OS_TRY(anm_plan_make(cache, options, &p, error));
    onescope_ots_clip *clip;
    OS_TRY(anm_clip_head(cache, &p, a, &clip, error));
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t e = 0; e < cache->entity_count && rc == ONESCOPE_OK; e++) {
        rc = peg_set_name(clip, cache, e, error);
        if (rc == ONESCOPE_OK) rc = peg_set_keys(clip, cache, e, &p, error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_ots_clip_validate(clip, p.name, error);
    if (rc != ONESCOPE_OK) {
        onescope_ots_clip_free(clip);
        return rc;
    }
    *out = clip;
    return ONESCOPE_OK;
}

/* The public conversions: every failure, nested ones included, names the caller's input. */
onescope_code onescope_ots_clip_to_pose_cache(const onescope_ots_clip *clip,
                                              const onescope_ots_bake_options *options,
                                              const onescope_allocator *a,
                                              onescope_pose_cache **out, onescope_error *error) {
    onescope_code rc = to_pose_cache(clip, options, a, out, error);
    if (rc != ONESCOPE_OK && error != NULL && options != NULL && options->name != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, options->name);
    return rc;
}

onescope_code onescope_ots_clip_from_pose_cache(const onescope_pose_cache *cache,
                                                const onescope_ots_from_cache_options *options,
                                                const onescope_allocator *a,
                                                onescope_ots_clip **out, onescope_error *error) {
    onescope_code rc = from_pose_cache(cache, options, a, out, error);
    if (rc != ONESCOPE_OK && error != NULL && options != NULL && options->name != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, options->name);
    return rc;
}

onescope_code onescope_ots_anm_to_pose_cache(const void *data, size_t size, const char *name,
                                             const onescope_parse_options *options,
                                             const onescope_ots_bake_options *bake,
                                             onescope_pose_cache **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    onescope_ots_bake_options o = bake ? *bake : onescope_ots_bake_options_default();
    if (o.name == NULL) o.name = name ? name : "anm to ospc";
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_clip *clip = NULL;
    size_t *parents = NULL;
    /* the parser's one pass of the rules is the only one: its parents feed the bake */
    OS_TRY(onescope_os_ots_clip_parse(data, size, name, options, &clip, &parents, error));
    onescope_code rc = bake_checked(clip, parents, &o, o.name, a, out, error);
    if (rc != ONESCOPE_OK && error != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, o.name);
    onescope_os_free(a, parents);
    onescope_ots_clip_free(clip);
    return rc;
}

onescope_code onescope_ots_anm_to_pose_cache_file(const void *data, size_t size, const char *name,
                                                  const onescope_parse_options *options,
                                                  const onescope_ots_bake_options *bake,
                                                  const char *path,
                                                  const onescope_pose_writer_options *writer,
                                                  uint64_t *frames, onescope_error *error) {
    if (frames != NULL) *frames = 0;
    onescope_ots_bake_options o = bake ? *bake : onescope_ots_bake_options_default();
    if (o.name == NULL) o.name = name ? name : "anm to ospc";
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, o.name, OS_NO_OFFSET, "path",
                                "non-NULL", NULL);
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_clip *clip = NULL;
    size_t *parents = NULL;
    OS_TRY(onescope_os_ots_clip_parse(data, size, name, options, &clip, &parents, error));
    onescope_code rc =
        bake_to_file(clip, parents, &o, o.name, path, writer, a, NULL, frames, error);
    onescope_os_free(a, parents);
    onescope_ots_clip_free(clip);
    return rc;
}

onescope_code onescope_ots_anm_file_to_pose_cache_file(const char *in_path,
                                                       const onescope_parse_options *options,
                                                       const onescope_ots_bake_options *bake,
                                                       const char *path,
                                                       const onescope_pose_writer_options *writer,
                                                       uint64_t *frames, onescope_error *error) {
    if (frames != NULL) *frames = 0;
    const char *name = in_path == NULL             ? "anm to ospc"
                       : strcmp(in_path, "-") == 0 ? "<stdin>"
                                                   : in_path;
    onescope_ots_bake_options o = bake ? *bake : onescope_ots_bake_options_default();
    if (o.name == NULL) o.name = name;
    if (in_path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, o.name, OS_NO_OFFSET, "in_path",
                                "non-NULL", NULL);
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, o.name, OS_NO_OFFSET, "path",
                                "non-NULL", NULL);
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_os_file_chunks *in = NULL;
    const uint8_t *first = NULL;
    size_t n = 0;
    OS_TRY(onescope_os_file_chunks_open(in_path, name, onescope_os_input_limit(options), a, &in,
                                        &first, &n, error));
    key_spill sp = {a, name, NULL, NULL, 0};
    onescope_ots_clip *clip = NULL;
    size_t *parents = NULL;
    /* a stream's caller cannot look first: a cache given for a clip is named as one */
    if (onescope_format_detect(first, n) == ONESCOPE_FORMAT_OSPC) {
        onescope_code rc = onescope_os_fail(error, ONESCOPE_E_MAGIC, name, 0, "content",
                                            "an OTS .anm clip", "an OSPC pose cache");
        onescope_os_file_chunks_free(in);
        return rc;
    }
    onescope_code rc = onescope_os_ots_clip_parse_stream(
        first, n, onescope_os_file_chunks_more, in, onescope_ots_detect(first, n), name, options,
        spill_key, &sp, &clip, &parents, error);
    /* a text refused before its end is read on to it, so the read path's own verdicts (the
     * limit, a file that shrank) win as they do when the text is read whole first */
    if (rc != ONESCOPE_OK && rc != ONESCOPE_E_TOO_LARGE) {
        onescope_code d = onescope_os_file_chunks_drain(in, error);
        if (d != ONESCOPE_OK) rc = d;
    }
    onescope_os_file_chunks_free(in);
    if (rc == ONESCOPE_OK && sp.file != NULL) rc = onescope_os_scratch_flush(sp.file, error);
    if (rc == ONESCOPE_OK)
        rc = bake_to_file(clip, parents, &o, o.name, path, writer, a, &sp, frames, error);
    spill_release(&sp);
    onescope_os_free(a, parents);
    onescope_ots_clip_free(clip);
    return rc;
}

onescope_code onescope_ots_pose_cache_to_anm(const onescope_pose_cache *cache,
                                             const onescope_ots_from_cache_options *options,
                                             const onescope_allocator *a, onescope_buffer *out,
                                             onescope_error *error) {
    const char *name = options && options->name ? options->name : "ospc to anm";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    out->data = NULL;
    out->size = 0;
    out->allocator = a;
    onescope_ots_clip *clip = NULL;
    /* from_pose_cache ends with the clip's one pass of the rules; the writer trusts it */
    OS_TRY(onescope_ots_clip_from_pose_cache(cache, options, a, &clip, error));
    onescope_code rc = onescope_os_ots_clip_write_checked(clip, a, out, error);
    onescope_ots_clip_free(clip);
    if (rc != ONESCOPE_OK && error != NULL) /* the writer's own limit names the input too */
        onescope_os_copy_text(error->input, sizeof error->input, name);
    return rc;
}

/* The rules of one peg's keyframes, at the path the clip rules give them (pegs[i].keyframes[j]). */
static onescope_code check_peg_keys(ots_ctx *c, const onescope_ots_peg *p, size_t i) {
    onescope_os_json_push_key(c, "pegs");
    onescope_os_json_push_index(c, i);
    onescope_code rc = onescope_os_ots_check_keyframes(c, p);
    onescope_os_json_pop(c);
    onescope_os_json_pop(c);
    return rc;
}

/* A failure of a nested call (which names itself) names the conversion's input instead. */
static onescope_code named(onescope_code rc, const char *name, onescope_error *error) {
    if (rc != ONESCOPE_OK && error != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, name);
    return rc;
}

static onescope_code sink_write(void *user, const void *data, size_t size, onescope_error *error) {
    return onescope_os_file_sink_write(user, data, size, error);
}

/* The streamed conversion, limit being the most the file may hold (a test hook may lower
 * it). Failures of the cache or the rules name the input; the file's own keep its path. */
static onescope_code to_anm_file(const onescope_pose_cache *cache,
                                 const onescope_ots_from_cache_options *options, const char *path,
                                 uint64_t limit, onescope_error *error) {
    anm_plan p;
    p.name = options && options->name ? options->name : "ospc to anm";
    if (path == NULL || strcmp(path, "-") == 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, p.name, OS_NO_OFFSET, "path",
                                "a file path (\"-\": use onescope_ots_pose_cache_to_anm)",
                                path ? "-" : "NULL");
    OS_TRY(anm_plan_make(cache, options, &p, error));
    const onescope_allocator *a = cache->allocator;
    /* the names, for the rules across pegs; each peg's keyframes come one peg at a time */
    onescope_ots_clip *clip;
    OS_TRY(named(anm_clip_head(cache, &p, a, &clip, error), p.name, error));
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t e = 0; e < cache->entity_count && rc == ONESCOPE_OK; e++)
        rc = named(peg_set_name(clip, cache, e, error), p.name, error);
    ots_ctx c;
    onescope_os_json_ctx_init(&c, p.name, a, error);
    /* header, frame range, every peg's own fields and the names across pegs: one pass, no
     * keyframes yet, before the file is created */
    if (rc == ONESCOPE_OK) rc = onescope_os_ots_clip_rules(&c, clip, NULL);
    onescope_os_file_sink *sink = NULL;
    onescope_os_ots_clip_stream *w = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_os_file_sink_open(path, a, &sink, error);
    if (rc == ONESCOPE_OK)
        rc = onescope_os_ots_clip_stream_open(clip, limit, p.name, sink_write, sink, a, &w, error);
    for (uint32_t e = 0; e < cache->entity_count && rc == ONESCOPE_OK; e++) {
        onescope_ots_peg *peg = &clip->pegs[e];
        rc = named(peg_set_keys(clip, cache, e, &p, error), p.name, error);
        if (rc == ONESCOPE_OK) rc = check_peg_keys(&c, peg, e);
        if (rc == ONESCOPE_OK) rc = onescope_os_ots_clip_stream_peg(w, peg, error);
        onescope_os_free(a, peg->keyframes); /* one peg's keyframes at a time */
        peg->keyframes = NULL;
        peg->keyframe_count = 0;
    }
    if (rc == ONESCOPE_OK) rc = onescope_os_ots_clip_stream_finish(w, clip, NULL, error);
    onescope_os_ots_clip_stream_free(w);
    if (rc == ONESCOPE_OK)
        rc = onescope_os_file_sink_commit(sink, error);
    else
        onescope_os_file_sink_discard(sink); /* no partial file: path stays as it was */
    onescope_ots_clip_free(clip);
    return rc;
}

onescope_code onescope_os_ots_pose_cache_to_anm_file_limit(
    const onescope_pose_cache *cache, const onescope_ots_from_cache_options *options,
    const char *path, uint64_t limit, onescope_error *error) {
    return to_anm_file(cache, options, path, limit, error);
}

onescope_code onescope_ots_pose_cache_to_anm_file(const onescope_pose_cache *cache,
                                                  const onescope_ots_from_cache_options *options,
                                                  const char *path, onescope_error *error) {
    return to_anm_file(cache, options, path, ONESCOPE_MAX_INPUT_BYTES, error);
}
