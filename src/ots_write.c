/* OTS v4 writer: rigs and clips into indented JSON in the spec's key order, with the
 * shortest numbers that read back. Rules: docs/ots.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "ots_internal.h"

/* ---- writing: indented, stable key order, shortest round-trip numbers ---- */

/* The bytes go to one growing buffer, or with a sink, out in chunks of about FLUSH_BYTES
 * (the buffer is emptied whenever it passes that), so a streamed clip's memory is fixed. */
#define FLUSH_BYTES ((size_t)1 << 20)
/* Room past FLUSH_BYTES for the one put that crosses it (the longest is a peg name). */
#define FLUSH_SLACK ((size_t)64 << 10)

typedef struct jw {
    onescope_os_writer w;
    int depth;
    bool first[OTS_MAX_DEPTH + 2];
    /* streaming only (sink non-NULL) */
    onescope_os_ots_sink sink;
    void *user;
    uint64_t flushed; /* bytes already handed to the sink */
    uint64_t limit;   /* the most the sink may receive in all */
    const char *name; /* what a size refusal names */
    onescope_code rc; /* the first failure of a flush: latches */
    onescope_error *error;
} jw;

/* Hands the buffer to the sink, unless that would take the output past the limit. */
static void flush(jw *j) {
    if (j->rc != ONESCOPE_OK || j->w.failed || j->w.size == 0) return;
    if (j->flushed + j->w.size > j->limit) {
        char expected[96];
        snprintf(expected, sizeof expected, "at most %llu bytes (the .anm output limit)",
                 (unsigned long long)j->limit);
        j->rc =
            onescope_os_fail(j->error, ONESCOPE_E_TOO_LARGE, j->name, OS_NO_OFFSET, "output size",
                             expected, "more than %llu bytes", (unsigned long long)j->limit);
        return;
    }
    j->rc = j->sink(j->user, j->w.data, j->w.size, j->error);
    j->flushed += j->w.size;
    j->w.size = 0;
}

static void put(jw *j, const char *s, size_t n) {
    onescope_os_write_bytes(&j->w, s, n);
    if (j->sink != NULL && j->w.size >= FLUSH_BYTES) flush(j);
}
static void puts_(jw *j, const char *s) {
    put(j, s, strlen(s));
}

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
            if (ch == '"')
                puts_(j, "\\\"");
            else if (ch == '\\')
                puts_(j, "\\\\");
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

/* The shortest text that reads back as v (src/numfmt.c) in the notation the writer has always
 * had: %g at that precision ("1.5e-07", "2.5e+20"), whole numbers with ".0" so they read back as
 * reals, and below 1e15 in full ("100.0", not "1e+02.0"). */
#define OTS_NUMBERS (OS_NUM_G_SHORTEST | OS_NUM_POINT_ZERO | OS_NUM_PLAIN_BELOW(15))
static void put_double(jw *j, double v) {
    char buf[OS_NUMBER_MAX];
    put(j, buf, onescope_os_number_write(buf, v, OTS_NUMBERS));
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
    if (s == NULL)
        puts_(j, "null");
    else
        put_string(j, s);
}
static bool empty(const char *s) {
    return s == NULL || s[0] == '\0';
}

static void write_header_start(jw *j, const char *format, const onescope_ots_header *h) {
    open_(j, "{");
    key_string(j, "format", format);
    key(j, "version");
    put_int(j, ONESCOPE_OTS_VERSION);
    key_string(j, "source", onescope_os_ots_source_names[h->source]);
}

static void write_coordinates(jw *j, const onescope_ots_header *h) {
    key_double(j, "fps", h->fps);
    const onescope_ots_coordinate_system *s = &h->coordinate_system;
    key(j, "coordinate_system");
    open_(j, "{");
    key_string(j, "up", onescope_os_ots_up_names[s->up]);
    key_string(j, "hand", onescope_os_ots_hand_names[s->hand]);
    key_string(j, "unit", onescope_os_ots_unit_names[s->unit]);
    key_string(j, "rot_order", onescope_os_ots_rot_order_names[s->rot_order]);
    key_string(j, "rot_repr_anim", onescope_os_ots_repr_names[s->rot_repr_anim]);
    key_string(j, "rot_repr_rest", onescope_os_ots_repr_names[s->rot_repr_rest]);
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
        key_string(j, "fov_axis", onescope_os_ots_fov_axis_names[k->fov_axis]);
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
    onescope_code rc =
        j->w.failed ? ONESCOPE_OK : onescope_os_check_output_size(j->w.size, "ots writer", error);
    if (rc != ONESCOPE_OK) {
        onescope_os_writer_discard(&j->w);
        return rc;
    }
    return onescope_os_writer_finish(&j->w, out, error, "ots writer");
}

onescope_code onescope_ots_rig_write(const onescope_ots_rig *r, const onescope_allocator *allocator,
                                     onescope_buffer *out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_ots_rig_write", OS_NO_OFFSET,
                                "out", "non-NULL", NULL);
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
    key_string(&j, "pivot_space", onescope_os_ots_pivot_space_names[r->pivot_space]);
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
    key_string(j, "interp", onescope_os_ots_interp_names[k->interp]);
    key(j, "handles");
    open_(j, "{");
    for (int ch = 0; ch < 3; ch++) {
        key(j, onescope_os_ots_channel_names[ch]);
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

onescope_code onescope_ots_clip_write(const onescope_ots_clip *k,
                                      const onescope_allocator *allocator, onescope_buffer *out,
                                      onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_ots_clip_write", OS_NO_OFFSET,
                                "out", "non-NULL", NULL);
    out->data = NULL;
    out->size = 0;
    out->allocator = allocator;
    OS_TRY(onescope_ots_clip_validate(k, "clip", error));
    return onescope_os_ots_clip_write_checked(k, allocator, out, error);
}

/* Everything before the first peg. */
static void write_clip_head(jw *j, const onescope_ots_clip *k) {
    write_header_start(j, "octo_anm", &k->header);
    key(j, "frame_range");
    put(j, "[", 1);
    put_int(j, k->frame_range[0]);
    put(j, ", ", 2);
    put_int(j, k->frame_range[1]);
    put(j, "]", 1);
    write_coordinates(j, &k->header);
    key(j, "pegs");
    open_(j, "[");
}

static void write_peg(jw *j, const onescope_ots_peg *p) {
    next_item(j);
    open_(j, "{");
    key_string(j, "name", p->name);
    if (!empty(p->path)) key_string(j, "path", p->path);
    key_name_or_null(j, "parent", p->parent);
    key_vec(j, "rest_pivot", p->rest_pivot, 3);
    key_vec(j, "rest_rotation", p->rest_rotation, 4);
    if (!empty(p->rig)) key_string(j, "rig", p->rig);
    if (p->is_camera) key_bool(j, "is_camera", true);
    if (p->has_source_modes) {
        key(j, "source_modes");
        open_(j, "{");
        key_string(j, "position", p->source_modes.position);
        key_string(j, "rotation", p->source_modes.rotation);
        key_string(j, "scale", p->source_modes.scale);
        key_bool(j, "enable_3d", p->source_modes.enable_3d);
        close_(j, "}");
    }
    key(j, "keyframes");
    open_(j, "[");
    for (size_t f = 0; f < p->keyframe_count; f++) write_keyframe(j, &p->keyframes[f]);
    close_(j, "]");
    close_(j, "}");
}

/* The pegs' close and the cameras; finish() writes the end. */
static void write_clip_tail(jw *j, const onescope_ots_clip *k) {
    close_(j, "]");
    write_cameras(j, k->cameras, k->camera_count);
}

/* A one-shot clip grows one buffer, and copying it at each doubling cost as much as writing
 * the text (half the writer's time on a 50 MB clip). Once 64 keyframes are out, the rest is
 * reserved at the bytes per keyframe seen so far, plus a quarter; past the output limit
 * nothing is reserved (the write is refused there anyway). */
static void reserve_rest(jw *j, size_t written_keys, size_t keys_left, size_t pegs_left) {
    double rate = (double)j->w.size / (double)written_keys;
    double want = (double)j->w.size + ((double)keys_left * rate + (double)pegs_left * 512) * 1.25;
    if (want < (double)ONESCOPE_MAX_INPUT_BYTES)
        onescope_os_writer_reserve_total(&j->w, (size_t)want + 4096);
}

onescope_code onescope_os_ots_clip_write_checked(const onescope_ots_clip *k,
                                                 const onescope_allocator *allocator,
                                                 onescope_buffer *out, onescope_error *error) {
    out->data = NULL;
    out->size = 0;
    out->allocator = allocator;
    jw j;
    memset(&j, 0, sizeof j);
    onescope_os_writer_init(&j.w, allocator);
    write_clip_head(&j, k);
    size_t keys = 0, written = 0;
    for (size_t i = 0; i < k->peg_count; i++) keys += k->pegs[i].keyframe_count;
    bool reserved = false;
    for (size_t i = 0; i < k->peg_count; i++) {
        write_peg(&j, &k->pegs[i]);
        written += k->pegs[i].keyframe_count;
        if (!reserved && written >= 64 && i + 1 < k->peg_count) {
            reserve_rest(&j, written, keys - written, k->peg_count - i - 1);
            reserved = true;
        }
    }
    write_clip_tail(&j, k);
    return finish(&j, out, error);
}

/* ---- the same clip a peg at a time, through a sink ---- */

struct onescope_os_ots_clip_stream {
    jw j;
};

/* The stream's state after a call: the latched failure, or NOMEM when the buffer could not
 * grow. */
static onescope_code stream_state(onescope_os_ots_clip_stream *s) {
    jw *j = &s->j;
    if (j->rc == ONESCOPE_OK && j->w.failed)
        j->rc = onescope_os_fail(j->error, ONESCOPE_E_NOMEM, j->name, OS_NO_OFFSET, "output", NULL,
                                 "could not allocate the output buffer");
    return j->rc;
}

onescope_code onescope_os_ots_clip_stream_open(const onescope_ots_clip *clip, uint64_t limit,
                                               const char *name, onescope_os_ots_sink sink,
                                               void *user, const onescope_allocator *a,
                                               onescope_os_ots_clip_stream **out,
                                               onescope_error *error) {
    *out = NULL;
    onescope_os_ots_clip_stream *s = onescope_os_calloc(a, 1, sizeof *s);
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "output", NULL,
                                "could not allocate the writer");
    jw *j = &s->j;
    onescope_os_writer_init(&j->w, a);
    j->sink = sink;
    j->user = user;
    j->limit = limit;
    j->name = name;
    j->error = error;
    if (!onescope_os_writer_reserve_total(&j->w, FLUSH_BYTES + FLUSH_SLACK)) j->w.failed = true;
    if (!j->w.failed) write_clip_head(j, clip);
    onescope_code rc = stream_state(s);
    if (rc != ONESCOPE_OK) {
        onescope_os_ots_clip_stream_free(s);
        return rc;
    }
    *out = s;
    return ONESCOPE_OK;
}

onescope_code onescope_os_ots_clip_stream_peg(onescope_os_ots_clip_stream *s,
                                              const onescope_ots_peg *peg, onescope_error *error) {
    s->j.error = error;
    if (s->j.rc == ONESCOPE_OK && !s->j.w.failed) write_peg(&s->j, peg);
    return stream_state(s);
}

onescope_code onescope_os_ots_clip_stream_finish(onescope_os_ots_clip_stream *s,
                                                 const onescope_ots_clip *clip, uint64_t *total,
                                                 onescope_error *error) {
    jw *j = &s->j;
    j->error = error;
    if (j->rc == ONESCOPE_OK && !j->w.failed) {
        write_clip_tail(j, clip);
        close_(j, "}");
        put(j, "\n", 1);
        flush(j);
    }
    if (total != NULL) *total = j->flushed;
    return stream_state(s);
}

void onescope_os_ots_clip_stream_free(onescope_os_ots_clip_stream *s) {
    if (s == NULL) return;
    const onescope_allocator *a = s->j.w.allocator;
    onescope_os_writer_discard(&s->j.w);
    onescope_os_free(a, s);
}
