/* Pose caches compared frame by frame, and a replay's bodies against a cache. docs/diff.md.
 * Memory: the entity table and one frame per side; frames come from memory, from a file
 * stream (src/file.c) or from a running replay. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"
#include "file_internal.h"
#include "internal.h"
#include "numfmt.h"

static const char *const text_fields[ONESCOPE_POSE_TEXT_COUNT] = {
    "unit_name", "module_id", "library_version", "scene", "replay", "label"};

static onescope_code nomem(onescope_error *error, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, "onescope_diff", OS_NO_OFFSET, NULL, NULL,
                            "cannot allocate %s", what);
}

/* ---- one side: its head, and frames on demand in increasing order ---- */

typedef struct side {
    const onescope_pose_cache *head; /* NULL for a replay */
    uint32_t entity_count, frames;
    int64_t first_step;
    double scale;                    /* metres per unit (0: none) */
    onescope_os_pose_stream *stream; /* NULL: head holds every frame */
    onescope_pose *buf;              /* a streamed side's current frame */
    uint32_t next;                   /* the next frame the stream gives */
} side;

static onescope_code side_frame(side *s, uint32_t frame, const onescope_pose **out,
                                onescope_error *error) {
    if (s->stream == NULL) {
        *out = s->head->poses + (size_t)frame * s->entity_count;
        return ONESCOPE_OK;
    }
    for (; s->next <= frame; s->next++)
        OS_TRY(onescope_os_pose_stream_next(s->stream, s->buf, error));
    *out = s->buf;
    return ONESCOPE_OK;
}

/* ---- the comparison ---- */

typedef struct cmp {
    onescope_diff_cache *d;
    double scale_a, scale_b; /* what turns each side's units into the distance's unit */
    double tol_pos, tol_ang;
    double *sumsq;
} cmp;

typedef struct id_index {
    uint64_t id;
    uint32_t index;
} id_index;

static int by_id(const void *x, const void *y) {
    uint64_t a = ((const id_index *)x)->id, b = ((const id_index *)y)->id;
    return a < b ? -1 : a > b;
}

static void entity_init(onescope_diff_entity *e, uint64_t id) {
    memset(e, 0, sizeof *e);
    e->id = id;
    e->max_distance_step = e->max_angle_step = e->first_past_step = -1;
}

/* Entities by id: a's in a's order (with b's index when b has it), then b's own. ids_a NULL:
 * ids 1..count_a (a replay's bodies). */
static onescope_code match_entities(cmp *c, const onescope_pose_cache *a, uint32_t count_a,
                                    const onescope_pose_cache *b, const onescope_allocator *al,
                                    onescope_error *error) {
    onescope_diff_cache *d = c->d;
    uint32_t nb = b->entity_count;
    size_t total = (size_t)count_a + nb;
    id_index *sorted = onescope_os_calloc(al, nb > 0 ? nb : 1, sizeof *sorted);
    bool *used = onescope_os_calloc(al, nb > 0 ? nb : 1, sizeof *used);
    d->entities = onescope_os_calloc(al, total > 0 ? total : 1, sizeof *d->entities);
    c->sumsq = onescope_os_calloc(al, total > 0 ? total : 1, sizeof *c->sumsq);
    onescope_code rc = ONESCOPE_OK;
    if (sorted == NULL || used == NULL || d->entities == NULL || c->sumsq == NULL) {
        rc = nomem(error, "the entity table");
    } else {
        for (uint32_t i = 0; i < nb; i++) sorted[i] = (id_index){b->entities[i].id, i};
        qsort(sorted, nb, sizeof *sorted, by_id);
        for (uint32_t i = 0; i < count_a; i++) {
            id_index key = {a != NULL ? a->entities[i].id : (uint64_t)i + 1, 0};
            onescope_diff_entity *e = &d->entities[d->entity_count++];
            entity_init(e, key.id);
            e->in_a = true;
            e->index_a = i;
            const id_index *hit = nb > 0 ? bsearch(&key, sorted, nb, sizeof *sorted, by_id) : NULL;
            if (hit != NULL) {
                e->in_b = true;
                e->index_b = hit->index;
                used[hit->index] = true;
            } else {
                d->only_in_a++;
            }
        }
        for (uint32_t i = 0; i < nb; i++) {
            if (used[i]) continue;
            onescope_diff_entity *e = &d->entities[d->entity_count++];
            entity_init(e, b->entities[i].id);
            e->in_b = true;
            e->index_b = i;
            d->only_in_b++;
        }
    }
    onescope_os_free(al, sorted);
    onescope_os_free(al, used);
    if (d->only_in_a > 0 || d->only_in_b > 0) d->different = true;
    return rc;
}

/* The angle between two rotations in degrees; q and -q are the same rotation. */
static double angle_between(const onescope_pose *pa, const onescope_pose *pb) {
    float qa[4], qb[4];
    onescope_pose_rotation(pa, qa);
    onescope_pose_rotation(pb, qb);
    if (memcmp(qa, qb, sizeof qa) == 0) return 0; /* also for a rotation that normalises badly */
    double x[4], y[4], na = 0, nb = 0, dot = 0;
    for (int k = 0; k < 4; k++) {
        x[k] = qa[k];
        y[k] = qb[k];
        na += x[k] * x[k];
        nb += y[k] * y[k];
    }
    na = sqrt(na);
    nb = sqrt(nb);
    for (int k = 0; k < 4; k++) {
        x[k] /= na;
        y[k] /= nb;
        dot += x[k] * y[k];
    }
    /* 4 atan2(|x - y|, |x + y|) is the angle, accurate also near 0 (acos is not). */
    double s = dot < 0 ? -1.0 : 1.0, dm = 0, dp = 0;
    for (int k = 0; k < 4; k++) {
        dm += (x[k] - s * y[k]) * (x[k] - s * y[k]);
        dp += (x[k] + s * y[k]) * (x[k] + s * y[k]);
    }
    return 4.0 * atan2(sqrt(dm), sqrt(dp)) * (180.0 / 3.14159265358979323846);
}

static void past(onescope_diff_cache *d, onescope_diff_entity *e, int64_t step, double dist,
                 double angle, bool presence) {
    e->past_tolerance = true;
    d->past_tolerance = true;
    d->different = true;
    if (e->first_past_step < 0) e->first_past_step = step;
    if (d->has_first) return;
    d->has_first = true;
    d->first_step = step;
    d->first_id = e->id;
    d->first_distance = dist;
    d->first_angle = angle;
    d->first_presence = presence;
}

static void compare_frame(cmp *c, int64_t step, const onescope_pose *fa, const onescope_pose *fb) {
    onescope_diff_cache *d = c->d;
    for (uint32_t i = 0; i < d->entity_count; i++) {
        onescope_diff_entity *e = &d->entities[i];
        if (!e->in_a || !e->in_b) continue;
        const onescope_pose *pa = &fa[e->index_a], *pb = &fb[e->index_b];
        bool here_a = onescope_pose_is_present(pa), here_b = onescope_pose_is_present(pb);
        if (here_a != here_b) {
            e->presence_flips++;
            past(d, e, step, 0, 0, true);
            continue;
        }
        if (!here_a) continue;
        e->frames_compared++;
        double sq = 0;
        for (int k = 0; k < 3; k++) {
            /* One scale: subtract first, so equal positions are 0 apart even where the
             * products would overflow. */
            double v = c->scale_a == c->scale_b
                           ? ((double)pa->position[k] - pb->position[k]) * c->scale_a
                           : pa->position[k] * c->scale_a - pb->position[k] * c->scale_b;
            sq += v * v;
            uint64_t u = onescope_os_float_ulps(pa->position[k], pb->position[k]);
            if (u > e->max_ulps) e->max_ulps = u;
        }
        /* A product that overflowed (huge metres per unit) gives inf or inf - inf = NaN: it
         * is shown as infinity and is past every tolerance, never "the same". */
        double dist = sqrt(sq);
        bool finite = isfinite(dist);
        if (!finite) dist = sq = INFINITY;
        c->sumsq[i] += sq;
        if (dist > e->max_distance || e->max_distance_step < 0) {
            e->max_distance = dist;
            e->max_distance_step = step;
        }
        double angle = 0;
        if (d->compares_rotation) {
            angle = angle_between(pa, pb);
            if (angle > e->max_angle || e->max_angle_step < 0) {
                e->max_angle = angle;
                e->max_angle_step = step;
            }
        }
        if (!finite || dist > c->tol_pos || !(angle <= c->tol_ang))
            past(d, e, step, dist, angle, false);
    }
}

static void finish(cmp *c) {
    onescope_diff_cache *d = c->d;
    for (uint32_t i = 0; i < d->entity_count; i++) {
        onescope_diff_entity *e = &d->entities[i];
        if (e->frames_compared > 0) e->rms_distance = sqrt(c->sumsq[i] / e->frames_compared);
        if (e->max_ulps > d->max_ulps) d->max_ulps = e->max_ulps;
    }
}

static void text_item(onescope_diff_cache *d, const char *field, const onescope_text *a,
                      const onescope_text *b) {
    if (a->length == b->length && memcmp(a->data, b->data, a->length) == 0) return;
    char ta[80], tb[80];
    onescope_os_escape(ta, sizeof ta, a->data, a->length);
    onescope_os_escape(tb, sizeof tb, b->data, b->length);
    onescope_os_diff_header(d->header, &d->header_count, field, ta, tb);
    /* Escaped text can look the same while the bytes differ: the item stays. */
    if (strcmp(ta, tb) == 0 && d->header_count < ONESCOPE_DIFF_MAX_HEADERS) {
        onescope_diff_header *h = &d->header[d->header_count++];
        h->field = field;
        onescope_os_copy_text(h->a, sizeof h->a, ta);
        onescope_os_copy_text(h->b, sizeof h->b, tb);
    }
}

static void scale_item(onescope_diff_cache *d, double a, double b) {
    char ta[OS_NUMBER_MAX], tb[OS_NUMBER_MAX]; /* the shortest texts: equal only if a == b */
    onescope_os_number_write(ta, a, 0);
    onescope_os_number_write(tb, b, 0);
    onescope_os_diff_header(d->header, &d->header_count, "metres_per_unit", ta, tb);
}

/* Sets up the result from both sides' heads (a->head NULL: a replay, ids 1..entity_count). */
static onescope_code begin(cmp *c, const side *a, const side *b, const onescope_diff_options *o,
                           const onescope_allocator *al, onescope_diff_cache **out,
                           onescope_error *error) {
    onescope_diff_cache *d = onescope_os_calloc(al, 1, sizeof *d);
    if (d == NULL) return nomem(error, "a pose cache diff");
    *out = d;
    d->allocator = al;
    c->d = d;
    c->tol_pos = o != NULL ? o->position_tolerance : 0;
    c->tol_ang = o != NULL ? o->angle_tolerance : 0;
    d->exact = c->tol_pos == 0 && c->tol_ang == 0;
    d->compares_rotation = a->head != NULL;
    d->unitless = a->scale == 0 || b->scale == 0;
    c->scale_a = d->unitless ? 1.0 : a->scale;
    c->scale_b = d->unitless ? 1.0 : b->scale;
    const onescope_pose_cache *ha = a->head, *hb = b->head;
    if (ha != NULL) {
        onescope_os_diff_header_u64(d->header, &d->header_count, "dimensions", ha->dimensions,
                                    hb->dimensions);
        onescope_os_diff_header_u64(d->header, &d->header_count, "entity_count", ha->entity_count,
                                    hb->entity_count);
    }
    /* A replay has no such header: its step range and millimetres are shown instead. */
    if (ha != NULL) {
        onescope_os_diff_header_u64(d->header, &d->header_count, "frame_count", a->frames,
                                    b->frames);
        onescope_os_diff_header_u64(d->header, &d->header_count, "start_step",
                                    (uint64_t)a->first_step, (uint64_t)b->first_step);
        scale_item(d, a->scale, b->scale);
        for (int t = 0; t < ONESCOPE_POSE_TEXT_COUNT; t++)
            text_item(d, text_fields[t], &ha->text[t], &hb->text[t]);
    }
    /* Header items are reported, not judged (a reference engine's dump has its own module id
     * and version); a different dimension count is. */
    d->different = ha != NULL && ha->dimensions != hb->dimensions;
    d->first_step_a = a->first_step;
    d->last_step_a = a->first_step + (int64_t)(a->frames - 1); /* frames >= 1 */
    d->first_step_b = b->first_step;
    d->last_step_b = b->first_step + (int64_t)(b->frames - 1);
    d->overlap_first = d->first_step_a > d->first_step_b ? d->first_step_a : d->first_step_b;
    d->overlap_last = d->last_step_a < d->last_step_b ? d->last_step_a : d->last_step_b;
    if (d->overlap_first <= d->overlap_last)
        d->overlap_frames = (uint32_t)(d->overlap_last - d->overlap_first + 1);
    else
        d->different = true; /* nothing to compare is not "the same" */
    return match_entities(c, ha, a->entity_count, hb, al, error);
}

static onescope_code compare_sides(side *a, side *b, const onescope_diff_options *o,
                                   const onescope_allocator *al, onescope_diff_cache **out,
                                   onescope_error *error) {
    cmp c = {0};
    onescope_code rc = begin(&c, a, b, o, al, out, error);
    onescope_diff_cache *d = *out;
    for (uint32_t k = 0; rc == ONESCOPE_OK && k < d->overlap_frames; k++) {
        int64_t step = d->overlap_first + k;
        const onescope_pose *fa, *fb;
        rc = side_frame(a, (uint32_t)(step - a->first_step), &fa, error);
        if (rc == ONESCOPE_OK) rc = side_frame(b, (uint32_t)(step - b->first_step), &fb, error);
        if (rc == ONESCOPE_OK) compare_frame(&c, step, fa, fb);
    }
    if (d != NULL) finish(&c);
    onescope_os_free(al, c.sumsq);
    return rc;
}

static void side_of(side *s, const onescope_pose_cache *c, uint32_t frames) {
    memset(s, 0, sizeof *s);
    s->head = c;
    s->entity_count = c->entity_count;
    s->frames = frames;
    s->first_step = c->start_step;
    s->scale = c->metres_per_unit;
}

/* The options every cache diff takes: tolerances finite and >= 0 (a NaN one would pass
 * everything, since no comparison with NaN is true). */
static onescope_code check_options(const onescope_diff_options *o, const char *name,
                                   onescope_error *error) {
    if (o == NULL) return ONESCOPE_OK;
    const char *field = NULL;
    double v = 0;
    if (!(isfinite(o->position_tolerance) && o->position_tolerance >= 0)) {
        field = "position_tolerance";
        v = o->position_tolerance;
    } else if (!(isfinite(o->angle_tolerance) && o->angle_tolerance >= 0)) {
        field = "angle_tolerance";
        v = o->angle_tolerance;
    }
    if (field == NULL) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, field,
                            "a finite number >= 0", "%s", onescope_os_num(v).s);
}

/* An in-memory cache whose steps break the format's rule (start + frames - 1 past int64_t)
 * cannot be aligned by step: refused, as the parser refuses such a file. */
static onescope_code check_steps(const onescope_pose_cache *c, const char *input,
                                 onescope_error *error) {
    if (onescope_os_ospc_steps_fit(c->start_step, c->frame_count)) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_RANGE, input, OS_NO_OFFSET, "start step",
                            "0 or more, with start step + frame count - 1 at most "
                            "9223372036854775807",
                            "%lld with %lu frames", (long long)c->start_step,
                            (unsigned long)c->frame_count);
}

static onescope_code done(onescope_code rc, onescope_diff_cache **out) {
    if (rc != ONESCOPE_OK) {
        onescope_diff_cache_free(*out);
        *out = NULL;
    }
    return rc;
}

onescope_code onescope_diff_caches(const onescope_pose_cache *a, const onescope_pose_cache *b,
                                   const onescope_diff_options *options,
                                   const onescope_allocator *allocator, onescope_diff_cache **out,
                                   onescope_error *error) {
    if (a == NULL || b == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_diff_caches", OS_NO_OFFSET,
                                NULL, NULL, "a, b and out must not be NULL");
    *out = NULL;
    const char *na, *nb;
    onescope_os_diff_names(options, &na, &nb);
    OS_TRY(check_options(options, "onescope_diff_caches", error));
    OS_TRY(check_steps(a, na, error));
    OS_TRY(check_steps(b, nb, error));
    side sa, sb;
    side_of(&sa, a, a->frame_count);
    side_of(&sb, b, b->frame_count);
    return done(compare_sides(&sa, &sb, options, allocator, out, error), out);
}

/* Opens a streamed side; the frame buffer holds one frame. */
static onescope_code open_side(side *s, const char *path, const onescope_diff_options *o,
                               const onescope_allocator *al, onescope_error *error) {
    onescope_parse_options po = o != NULL ? o->parse : onescope_parse_options_default();
    const onescope_pose_cache *head;
    uint32_t frames;
    memset(s, 0, sizeof *s);
    OS_TRY(onescope_os_pose_stream_open(path, &po, &s->stream, &head, &frames, error));
    onescope_os_pose_stream *keep = s->stream;
    side_of(s, head, frames);
    s->stream = keep;
    s->buf =
        onescope_os_calloc(al, head->entity_count > 0 ? head->entity_count : 1, sizeof *s->buf);
    if (s->buf == NULL) return nomem(error, "a frame");
    return ONESCOPE_OK;
}

static void close_side(side *s, const onescope_allocator *al) {
    onescope_os_pose_stream_free(s->stream);
    onescope_os_free(al, s->buf);
}

onescope_code onescope_diff_cache_files(const char *path_a, const char *path_b,
                                        const onescope_diff_options *options,
                                        const onescope_allocator *allocator,
                                        onescope_diff_cache **out, onescope_error *error) {
    if (path_a == NULL || path_b == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_diff_cache_files",
                                OS_NO_OFFSET, NULL, NULL, "paths and out must not be NULL");
    *out = NULL;
    OS_TRY(check_options(options, "onescope_diff_cache_files", error));
    side sa, sb;
    memset(&sb, 0, sizeof sb);
    onescope_code rc = open_side(&sa, path_a, options, allocator, error);
    if (rc == ONESCOPE_OK) rc = open_side(&sb, path_b, options, allocator, error);
    if (rc == ONESCOPE_OK) rc = compare_sides(&sa, &sb, options, allocator, out, error);
    /* The frames outside the overlap are still checked: an invalid file is never "same". */
    if (rc == ONESCOPE_OK) rc = onescope_os_pose_stream_finish(sa.stream, error);
    if (rc == ONESCOPE_OK) rc = onescope_os_pose_stream_finish(sb.stream, error);
    close_side(&sa, allocator);
    close_side(&sb, allocator);
    return done(rc, out);
}

/* ---- a replay against a cache ---- */

typedef struct replay_run {
    cmp c;
    side *cache;
    int64_t last; /* the last host step to compare */
    int32_t offset[3];
    uint32_t bodies; /* pass 1: the bodies held at `last` */
    onescope_pose frame[ONESCOPE_SIM_MAX_BODIES];
    onescope_code rc;
    onescope_error *error;
} replay_run;

static bool count_bodies(void *user, const onescope_replay_row *row) {
    replay_run *r = user;
    r->bodies = onescope_sim_body_count(row->sim);
    return (int64_t)row->host_step >= r->last;
}

static bool compare_row(void *user, const onescope_replay_row *row) {
    replay_run *r = user;
    int64_t step = (int64_t)row->host_step;
    onescope_diff_cache *d = r->c.d;
    if (step < d->overlap_first) return false;
    uint32_t held = onescope_sim_body_count(row->sim);
    for (uint32_t i = 0; i < r->bodies; i++) {
        onescope_pose *p = &r->frame[i];
        onescope_sim_body_state b;
        memset(p, 0, sizeof *p);
        p->rotation[3] = 1.0f;
        if (i >= held || onescope_sim_body(row->sim, i, &b) != ONESCOPE_OK || b.alive != 1) {
            p->position[0] = NAN;
            continue;
        }
        for (int k = 0; k < 3; k++) p->position[k] = (float)((double)b.position[k] + r->offset[k]);
    }
    const onescope_pose *fb;
    r->rc = side_frame(r->cache, (uint32_t)(step - r->cache->first_step), &fb, r->error);
    if (r->rc != ONESCOPE_OK) return true;
    compare_frame(&r->c, step, r->frame, fb);
    return step >= r->last;
}

static onescope_code replay_vs(const onescope_replay *replay, side *cache,
                               const onescope_diff_options *o, const onescope_allocator *al,
                               onescope_diff_cache **out, onescope_error *error) {
    replay_run *r = onescope_os_calloc(al, 1, sizeof *r);
    if (r == NULL) return nomem(error, "a replay run");
    side a;
    memset(&a, 0, sizeof a);
    a.frames = onescope_replay_step_count(replay) + 1;
    /* The replay's rows are host steps start..start + step_count; beyond int64_t they
     * cannot be aligned with a cache's steps (and host steps would wrap at 2^64). */
    uint64_t start = onescope_replay_start_step(replay);
    if (start > (uint64_t)INT64_MAX || !onescope_os_ospc_steps_fit((int64_t)start, a.frames)) {
        const char *na, *nb;
        onescope_os_diff_names(o, &na, &nb);
        onescope_os_free(al, r);
        return onescope_os_fail(error, ONESCOPE_E_RANGE, na, OS_NO_OFFSET, "start step",
                                "host steps start..start + step count at most "
                                "9223372036854775807 (a pose cache's steps)",
                                "%llu with %lu steps", (unsigned long long)start,
                                (unsigned long)(a.frames - 1));
    }
    a.first_step = (int64_t)start;
    a.scale = 0.001;
    int64_t first = a.first_step > cache->first_step ? a.first_step : cache->first_step;
    int64_t last_a = a.first_step + (int64_t)(a.frames - 1),
            last_b = cache->first_step + (int64_t)(cache->frames - 1);
    r->last = last_a < last_b ? last_a : last_b;
    r->cache = cache;
    r->error = error;
    if (o != NULL) memcpy(r->offset, o->offset, sizeof r->offset);
    onescope_code rc = ONESCOPE_OK;
    if (first <= r->last) rc = onescope_replay_run(replay, al, count_bodies, r, error);
    a.entity_count = r->bodies;
    if (rc == ONESCOPE_OK) rc = begin(&r->c, &a, cache, o, al, out, error);
    if (rc == ONESCOPE_OK && (*out)->overlap_frames > 0)
        rc = onescope_replay_run(replay, al, compare_row, r, error);
    if (rc == ONESCOPE_OK) rc = r->rc;
    if (*out != NULL) finish(&r->c);
    onescope_os_free(al, r->c.sumsq);
    onescope_os_free(al, r);
    return rc;
}

onescope_code onescope_diff_replay_cache(const onescope_replay *replay,
                                         const onescope_pose_cache *cache,
                                         const onescope_diff_options *options,
                                         const onescope_allocator *allocator,
                                         onescope_diff_cache **out, onescope_error *error) {
    if (replay == NULL || cache == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_diff_replay_cache",
                                OS_NO_OFFSET, NULL, NULL, "replay, cache and out must not be NULL");
    *out = NULL;
    const char *na, *nb;
    onescope_os_diff_names(options, &na, &nb);
    OS_TRY(check_options(options, "onescope_diff_replay_cache", error));
    OS_TRY(check_steps(cache, nb, error));
    side sb;
    side_of(&sb, cache, cache->frame_count);
    return done(replay_vs(replay, &sb, options, allocator, out, error), out);
}

onescope_code onescope_diff_replay_cache_file(const onescope_replay *replay, const char *cache_path,
                                              const onescope_diff_options *options,
                                              const onescope_allocator *allocator,
                                              onescope_diff_cache **out, onescope_error *error) {
    if (replay == NULL || cache_path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_diff_replay_cache_file",
                                OS_NO_OFFSET, NULL, NULL, "replay, path and out must not be NULL");
    *out = NULL;
    OS_TRY(check_options(options, "onescope_diff_replay_cache_file", error));
    side sb;
    onescope_code rc = open_side(&sb, cache_path, options, allocator, error);
    if (rc == ONESCOPE_OK) rc = replay_vs(replay, &sb, options, allocator, out, error);
    if (rc == ONESCOPE_OK) rc = onescope_os_pose_stream_finish(sb.stream, error);
    close_side(&sb, allocator);
    return done(rc, out);
}

void onescope_diff_cache_free(onescope_diff_cache *d) {
    if (d == NULL) return;
    onescope_os_free(d->allocator, d->entities);
    onescope_os_free(d->allocator, d);
}
