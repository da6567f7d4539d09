/* The streaming pose-cache writer and recovery: frames go through a fixed buffer into
 * PATH.partial (an OSPC file whose frame count is the partial marker), close patches the
 * count and renames it to PATH; recovery turns a dead recording's partial into a cache.
 * The bytes come from src/pose_cache.c (pose_head.h), the file steps from src/file.c.
 * Layout, naming and guarantees: docs/pose-cache.md, "Recording". */
#include <stdio.h>
#include <string.h>

#include "file_internal.h"
#include "internal.h"
#include "onescope/file.h"
#include "onescope/pose_cache.h"
#include "pose_head.h"

#define DEFAULT_BUFFER_BYTES ((size_t)1 << 20)

struct onescope_pose_writer {
    const onescope_allocator *allocator;
    char *path;                /* what the caller asked for: segment 0 */
    char *segment_path;        /* the current segment's target */
    char *partial_path;        /* the current segment's partial, beside its target's file */
    size_t path_room;          /* bytes allocated for path and segment_path */
    onescope_os_target target; /* where the current segment lands (symlinks followed) */
    onescope_os_out out;       /* the current partial, through the writers' one core */
    onescope_buffer head;      /* the head's bytes, frame count = the partial marker */
    uint32_t entity_count;
    size_t frame_bytes;
    uint64_t max_bytes;
    bool segments;
    uint32_t segment;        /* index of the current segment */
    uint32_t segment_frames; /* frames in the current segment */
    int64_t segment_start;   /* its start step */
    uint64_t frames;         /* over every segment */
};

onescope_pose_writer_options onescope_pose_writer_options_default(void) {
    onescope_pose_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_bytes = DEFAULT_BUFFER_BYTES;
    o.max_segment_bytes = ONESCOPE_MAX_INPUT_BYTES;
    return o;
}

/* Segment k of PATH: PATH itself for k = 0, else "-NNNN" before the extension of the file
 * name (run.ospc -> run-0001.ospc; run -> run-0001), so the extension and format detection
 * still work. */
static void segment_name(char *out, size_t room, const char *path, uint32_t k) {
    if (k == 0) {
        snprintf(out, room, "%s", path);
        return;
    }
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot == NULL || dot == base) dot = base + strlen(base); /* ".hidden": no extension */
    snprintf(out, room, "%.*s-%04lu%s", (int)(dot - path), path, (unsigned long)k, dot);
}

/* Names the current segment and decides where it lands by the rules every recording
 * follows (src/file.c): a symlink is followed, so the partial sits beside the file the link
 * names and the rename replaces that file; a device, FIFO, socket or directory is refused
 * now, since close could not rename onto it. The partial's name is the one rule's. */
static onescope_code set_segment_paths(onescope_pose_writer *w, onescope_error *error) {
    const onescope_allocator *a = w->allocator;
    segment_name(w->segment_path, w->path_room, w->path, w->segment);
    onescope_os_target_free(&w->target, a);
    onescope_os_free(a, w->partial_path);
    w->partial_path = NULL;
    OS_TRY(onescope_os_recording_target(w->segment_path, a, &w->target, error));
    w->partial_path = onescope_os_partial_name(w->target.path, a);
    if (w->partial_path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, w->segment_path, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate the partial's name");
    return ONESCOPE_OK;
}

/* Every failure after open goes through here: the writer refuses further work. */
static onescope_code latch(onescope_pose_writer *w, onescope_code rc) {
    return onescope_os_out_latch(&w->out, rc);
}

static onescope_code start_segment(onescope_pose_writer *w, onescope_error *error) {
    OS_TRY(set_segment_paths(w, error));
    onescope_os_put_u64(w->head.data + ONESCOPE_OS_OSPC_START_STEP_AT, (uint64_t)w->segment_start);
    w->out.fd = onescope_os_file_create_new(w->partial_path, w->segment_path, error);
    if (w->out.fd < 0) return ONESCOPE_E_IO;
    /* A file being replaced keeps its mode and owner, from the partial's first byte on. */
    OS_TRY(onescope_os_target_adopt(&w->target, w->out.fd, w->segment_path, error));
    w->segment_frames = 0;
    /* The head goes out at once: from here on the partial is recoverable. */
    return onescope_os_file_write_fd(w->out.fd, w->head.data, w->head.size, w->segment_path, error);
}

/* Writes the frame count and lands the current segment. */
static onescope_code finish_segment(onescope_pose_writer *w, onescope_error *error) {
    uint8_t count[4];
    onescope_os_put_u32(count, w->segment_frames);
    return onescope_os_out_land(&w->out, ONESCOPE_OS_OSPC_FRAME_COUNT_AT, count, 4, w->partial_path,
                                w->target.path, w->segment_path, error);
}

static uint64_t segment_limit(const onescope_pose_writer_options *o) {
    uint64_t max = o->max_segment_bytes;
    return max == 0 || max > ONESCOPE_MAX_INPUT_BYTES ? ONESCOPE_MAX_INPUT_BYTES : max;
}

static onescope_code size_fail(onescope_error *error, const char *name, uint64_t limit,
                               uint64_t size, const char *why) {
    char expected[128];
    snprintf(expected, sizeof expected, "at most %llu bytes (%s)", (unsigned long long)limit, why);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size",
                            expected, "%llu bytes", (unsigned long long)size);
}

static void release(onescope_pose_writer *w) {
    const onescope_allocator *a = w->allocator;
    onescope_buffer_free(&w->head);
    onescope_os_free(a, w->out.buf);
    onescope_os_free(a, w->path);
    onescope_os_free(a, w->segment_path);
    onescope_os_free(a, w->partial_path);
    onescope_os_target_free(&w->target, a);
    onescope_os_free(a, w);
}

static char *copy_string(const onescope_allocator *a, const char *s, size_t room) {
    char *p = onescope_os_alloc(a, room);
    if (p != NULL) snprintf(p, room, "%s", s);
    return p;
}

onescope_code onescope_pose_writer_open(const char *path, const onescope_pose_cache *head,
                                        const onescope_pose_writer_options *options,
                                        const onescope_allocator *a, onescope_pose_writer **out,
                                        onescope_error *error) {
    const char *name = path != NULL ? path : "onescope_pose_writer_open";
    if (out != NULL) *out = NULL;
    if (path == NULL || path[0] == '\0' || strcmp(path, "-") == 0 || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "path (a file, not \"-\") and out must be given");
    onescope_pose_writer_options defaults = onescope_pose_writer_options_default();
    if (options == NULL) options = &defaults;
    onescope_buffer head_bytes;
    OS_TRY(onescope_os_ospc_encode_head(head, ONESCOPE_OS_OSPC_PARTIAL_MARK, a, &head_bytes, name,
                                        error));
    uint64_t limit = segment_limit(options);
    size_t frame_bytes = (size_t)head->entity_count * ONESCOPE_OSPC_POSE_BYTES;
    if (head_bytes.size + frame_bytes > limit) {
        onescope_buffer_free(&head_bytes);
        return size_fail(error, name, limit, head_bytes.size + frame_bytes,
                         "the segment limit; the head and one frame do not fit");
    }
    onescope_pose_writer *w = onescope_os_calloc(a, 1, sizeof *w);
    if (w == NULL) {
        onescope_buffer_free(&head_bytes);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate the writer");
    }
    w->allocator = a;
    w->head = head_bytes;
    w->out.fd = -1;
    w->entity_count = head->entity_count;
    w->frame_bytes = frame_bytes;
    w->max_bytes = limit;
    w->segments = options->segments;
    w->segment_start = head->start_step;
    w->out.cap = options->buffer_bytes != 0 ? options->buffer_bytes : DEFAULT_BUFFER_BYTES;
    onescope_os_flush_rule_init(&w->out.flush, options->flush_every, options->flush_every_ms,
                                options->flush_fsync);
    w->path_room = strlen(path) + 16; /* room for "-NNNN..." */
    w->path = copy_string(a, path, w->path_room);
    w->segment_path = onescope_os_alloc(a, w->path_room);
    w->out.buf = onescope_os_alloc(a, w->out.cap);
    if (w->path == NULL || w->segment_path == NULL || w->out.buf == NULL) {
        release(w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate the writer's buffer");
    }
    onescope_code rc = start_segment(w, error);
    if (rc != ONESCOPE_OK) {
        if (w->out.fd >= 0) {
            onescope_os_file_close_fd(w->out.fd, name, NULL);
            onescope_os_file_remove(w->partial_path);
        }
        release(w);
        return rc;
    }
    *out = w;
    return ONESCOPE_OK;
}

static onescope_code refuse_state(const onescope_pose_writer *w, const char *call,
                                  onescope_error *error) {
    return onescope_os_out_refuse(&w->out, w->segment_path, call, "frame", error);
}

/* Feeds n bytes through the buffer, writing it out each time it fills. */
static onescope_code feed(onescope_pose_writer *w, const uint8_t *p, size_t n,
                          onescope_error *error) {
    return onescope_os_out_feed(&w->out, p, n, w->segment_path, error);
}

onescope_code onescope_pose_writer_append(onescope_pose_writer *w, const onescope_pose *poses,
                                          size_t count, onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_writer_append",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state != ONESCOPE_OS_OUT_OPEN) return refuse_state(w, "append", error);
    if (poses == NULL || count != w->entity_count) {
        char expected[64];
        snprintf(expected, sizeof expected, "%lu poses (one per entity)",
                 (unsigned long)w->entity_count);
        return latch(w, onescope_os_fail(error, ONESCOPE_E_ARGUMENT, w->segment_path, OS_NO_OFFSET,
                                         "frame", expected, "%s",
                                         poses == NULL ? "NULL poses" : "a different count"));
    }
    uint64_t size = w->head.size + (uint64_t)(w->segment_frames + 1) * w->frame_bytes;
    bool full = size > w->max_bytes || w->segment_frames == ONESCOPE_OSPC_MAX_FRAMES;
    if (full && !w->segments)
        return latch(w, size_fail(error, w->segment_path, w->max_bytes, size,
                                  size > w->max_bytes
                                      ? "the file limit; ask for segments to record on"
                                      : "4194304 frames, the format's most; ask for segments"));
    /* In 64 unsigned bits, where start + frames cannot overflow. This frame's step (in this
     * segment or as the next one's start) is within the format's rule, or it is refused. */
    uint64_t next_start = (uint64_t)w->segment_start + w->segment_frames;
    if (!onescope_os_ospc_steps_fit(w->segment_start, (uint64_t)w->segment_frames + 1))
        return latch(w, onescope_os_fail(error, ONESCOPE_E_RANGE, w->segment_path, OS_NO_OFFSET,
                                         "step of the frame", "at most 9223372036854775807", "%llu",
                                         (unsigned long long)next_start));
    /* The frame is checked where it will land: frame 0 of the next segment when this one is
     * full. Nothing is written before it passes. */
    OS_TRY(
        latch(w, onescope_os_ospc_check_frame(poses, w->entity_count, full ? 0 : w->segment_frames,
                                              w->head.size, w->segment_path, error)));
    if (full) {
        OS_TRY(latch(w, finish_segment(w, error)));
        w->segment++;
        w->segment_start = (int64_t)next_start;
        OS_TRY(latch(w, start_segment(w, error)));
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    OS_TRY(latch(w, feed(w, (const uint8_t *)poses, w->frame_bytes, error)));
#else
    for (uint32_t e = 0; e < w->entity_count; e++) {
        uint8_t bytes[ONESCOPE_OSPC_POSE_BYTES];
        onescope_os_ospc_put_poses(bytes, &poses[e], 1);
        OS_TRY(latch(w, feed(w, bytes, sizeof bytes, error)));
    }
#endif
    w->segment_frames++;
    w->frames++;
    return onescope_os_out_appended(&w->out, w->segment_path, error);
}

onescope_code onescope_pose_writer_flush(onescope_pose_writer *w, onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_writer_flush",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state != ONESCOPE_OS_OUT_OPEN) return refuse_state(w, "flush", error);
    return latch(w, onescope_os_out_flush(&w->out, w->segment_path, error));
}

uint64_t onescope_pose_writer_frames(const onescope_pose_writer *w) {
    return w != NULL ? w->frames : 0;
}

onescope_code onescope_pose_writer_close(onescope_pose_writer *w, uint64_t *frames,
                                         onescope_error *error) {
    if (frames != NULL) *frames = 0;
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_writer_close",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state == ONESCOPE_OS_OUT_CLOSED) return refuse_state(w, "close", error);
    if (w->out.state == ONESCOPE_OS_OUT_LATCHED)
        return onescope_os_out_close_failed(
            &w->out, w->segment_path, w->partial_path != NULL ? w->partial_path : w->segment_path,
            "frame", error);
    w->out.state = ONESCOPE_OS_OUT_CLOSED;
    if (w->frames == 0) {
        onescope_os_out_abandon(&w->out, w->segment_path, w->partial_path);
        return onescope_os_fail(error, ONESCOPE_E_RANGE, w->segment_path, OS_NO_OFFSET,
                                "frame count", "at least 1 frame appended before close", "0");
    }
    onescope_code rc = finish_segment(w, error);
    if (rc != ONESCOPE_OK) {
        /* The target is untouched; the partial keeps the frames for recover. */
        w->out.bytes_lost = true;
        return rc;
    }
    w->out.committed = true;
    if (frames != NULL) *frames = w->frames;
    return ONESCOPE_OK;
}

void onescope_pose_writer_discard(onescope_pose_writer *w) {
    if (w == NULL) return;
    onescope_os_out_abandon(&w->out, w->segment_path, w->partial_path);
    release(w);
}

void onescope_pose_writer_free(onescope_pose_writer *w) {
    if (w == NULL) return;
    onescope_os_out_leave(&w->out, w->segment_path);
    release(w);
}

/* ---- recovery ---- */

/* The pose values of each piece the copy hands over (whole poses: the unit is a frame). */
typedef struct pose_check {
    const onescope_os_ospc_partial *info;
    const char *name;
} pose_check;

static onescope_code check_piece(void *user, uint64_t offset, const uint8_t *piece, size_t size,
                                 onescope_error *error) {
    const pose_check *c = user;
    size_t first = (size_t)(offset - c->info->poses_at) / ONESCOPE_OSPC_POSE_BYTES;
    return onescope_os_ospc_partial_poses(c->info, piece, first, size / ONESCOPE_OSPC_POSE_BYTES,
                                          c->name, error);
}

/* Reads the head: the first MiB, or as much more (doubling) as the head turns out to need. */
static onescope_code recover_head(int fd, const char *partial, uint64_t size,
                                  const onescope_allocator *a, onescope_os_ospc_partial *info,
                                  onescope_error *error) {
    size_t n = size < ((size_t)1 << 20) ? (size_t)size : (size_t)1 << 20;
    for (;;) {
        uint8_t *buf = onescope_os_alloc(a, n ? n : 1);
        if (buf == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, partial, OS_NO_OFFSET, NULL, NULL,
                                    "cannot allocate %zu bytes for the head", n);
        size_t got;
        onescope_code rc = onescope_os_file_read_at(fd, 0, buf, n, &got, partial, error);
        /* A file named PATH.partial is a recording's leftover, so a count already written in
         * it is close's (killed before the rename); under any other name a written count is a
         * finished cache, which is no partial. */
        if (rc == ONESCOPE_OK)
            rc = onescope_os_ospc_partial_head(buf, got, size, partial,
                                               onescope_os_partial_named(partial), a, info, error);
        onescope_os_free(a, buf);
        if (rc != ONESCOPE_E_TRUNCATED || got < n || n == size) return rc;
        n = size - n < n ? (size_t)size : 2 * n;
    }
}

onescope_code onescope_pose_cache_recover(const char *partial, const char *out_path,
                                          const onescope_allocator *a, uint64_t *frames_kept,
                                          onescope_error *error) {
    if (frames_kept != NULL) *frames_kept = 0;
    char *derived;
    onescope_code rc = onescope_os_recover_names(partial, out_path, "onescope_pose_cache_recover",
                                                 a, &out_path, &derived, error);
    if (rc != ONESCOPE_OK) return rc;
    uint64_t size;
    int fd = onescope_os_recover_open(partial, &size, error);
    onescope_os_ospc_partial info;
    rc = fd < 0 ? ONESCOPE_E_IO : recover_head(fd, partial, size, a, &info, error);
    if (rc == ONESCOPE_OK) {
        /* The partial on disk is never written: the count goes into the copy. */
        uint8_t count[4];
        onescope_os_put_u32(count, info.frames);
        pose_check c = {&info, partial};
        rc = onescope_os_recover_copy(fd, partial, info.kept_bytes, ONESCOPE_OS_OSPC_FRAME_COUNT_AT,
                                      count, 4, info.poses_at,
                                      (size_t)info.entity_count * ONESCOPE_OSPC_POSE_BYTES,
                                      check_piece, &c, out_path, a, error);
    }
    if (rc == ONESCOPE_OK && frames_kept != NULL) *frames_kept = info.frames;
    if (fd >= 0) onescope_os_file_close_fd(fd, partial, NULL);
    onescope_os_free(a, derived);
    return rc;
}
