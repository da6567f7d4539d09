/* A pose cache's files: read whole, written through the one write path, mapped in place, or
 * read frame by frame through its push validator (src/file_internal.h). The bytes are
 * src/pose_cache.c's; the reads, maps and landings are src/file.c's. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

#include "check_internal.h"
#include "file_internal.h"
#include "internal.h"
#include "onescope/file.h"
#include "onescope/pose_cache.h"

onescope_code onescope_pose_cache_read_file(const char *path, const onescope_parse_options *options,
                                            onescope_pose_cache **out, onescope_error *error) {
    if (path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_cache_read_file",
                                OS_NO_OFFSET, NULL, NULL, "path and out must not be NULL");
    *out = NULL;
    onescope_buffer buf;
    OS_TRY(onescope_os_file_read_input(path, options, &buf, error));
    onescope_code rc = onescope_pose_cache_parse(buf.data, buf.size, onescope_os_input_name(path),
                                                 options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

onescope_code onescope_pose_cache_write_file(const onescope_pose_cache *c, const char *path,
                                             onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_pose_cache_write(c, c != NULL ? c->allocator : NULL, &buf, error));
    return onescope_os_file_write_buffer(path, &buf, error);
}

/* ---- the memory-mapped pose cache ---- */

onescope_code onescope_pose_cache_map(const char *path, const onescope_parse_options *options,
                                      onescope_pose_cache **out, onescope_error *error) {
    if (path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_cache_map", OS_NO_OFFSET,
                                NULL, NULL, "path and out must not be NULL");
    *out = NULL;
    int fd;
    uint64_t size;
    onescope_os_scratch *spool;
    /* a stream is spooled from the one open, and its copy mapped */
    OS_TRY(onescope_os_file_open_seekable(path, options, &fd, &size, &spool, error));
    void *map;
    onescope_code rc =
        onescope_os_file_map(fd, (size_t)size, &map, onescope_os_input_name(path), error);
    /* the mapping stays valid without the descriptor */
    if (spool != NULL)
        onescope_os_scratch_free(spool);
    else
        close(fd);
    if (rc != ONESCOPE_OK) return rc;
    bool borrowed;
    rc = onescope_os_pose_cache_parse_mapped(map, (size_t)size, onescope_os_input_name(path),
                                             options, &borrowed, out, error);
    if (rc == ONESCOPE_OK && borrowed) {
        (*out)->mapping = map;
        (*out)->mapping_size = (size_t)size;
        (*out)->release_mapping = onescope_os_file_unmap;
    } else {
        onescope_os_file_unmap(map, (size_t)size);
    }
    return rc;
}

/* ---- a pose cache frame by frame (src/file_internal.h) ----
 * A regular file is read through one buffer of at least 1 MiB (or one frame, when a frame is
 * larger) and every byte goes through the OSPC push validator as it arrives; the head is
 * parsed by the parser itself from its own bytes plus the first frame, with the frame count
 * set to 1 in that copy. A stream is spooled to a scratch file first and read the same way. */

struct onescope_os_pose_stream {
    const onescope_allocator *allocator;
    const char *name;
    int fd;
    onescope_os_scratch *spool; /* a stream's copy, which owns fd */
    onescope_os_ospc_check *check;
    onescope_pose_cache *cache;
    uint32_t frames, next;
    size_t frame_bytes;
    size_t total, fed; /* file size, bytes read and validated */
    uint8_t *buf;
    size_t cap, pos, len; /* unread frame bytes are buf[pos, len) */
    onescope_code rc;
    onescope_error error;
};

void onescope_os_pose_stream_free(onescope_os_pose_stream *s) {
    if (s == NULL) return;
    if (s->spool != NULL)
        onescope_os_scratch_free(s->spool); /* which closes the descriptor */
    else if (s->fd >= 0)
        close(s->fd);
    onescope_os_ospc_check_free(s->check);
    onescope_pose_cache_free(s->cache);
    onescope_os_free(s->allocator, s->buf);
    onescope_os_free(s->allocator, s);
}

/* Reads more bytes after buf[0, len) up to cap, feeding them to the validator. Returns the
 * count read (0 at the end of the file). */
static onescope_code stream_fill(onescope_os_pose_stream *s, size_t *got) {
    *got = 0;
    size_t want = s->cap - s->len;
    if (want > s->total - s->fed) want = s->total - s->fed;
    if (want == 0) return ONESCOPE_OK;
    ssize_t k = onescope_os_file_read_some(s->fd, s->buf + s->len, want);
    if (k < 0) return onescope_os_io_fail(&s->error, s->name, "cannot read");
    if (k == 0) return onescope_os_ospc_check_end(s->check, &s->error); /* shrank: says so */
    onescope_code rc = onescope_os_ospc_check_feed(s->check, s->buf + s->len, (size_t)k);
    if (rc != ONESCOPE_OK) return onescope_os_ospc_check_end(s->check, &s->error);
    s->len += (size_t)k;
    s->fed += (size_t)k;
    *got = (size_t)k;
    return ONESCOPE_OK;
}

/* The file ended where the validator still wanted bytes: its verdict (never OK there). */
static onescope_code stream_ended(onescope_os_pose_stream *s) {
    onescope_code rc = onescope_os_ospc_check_end(s->check, &s->error);
    if (rc != ONESCOPE_OK) return rc;
    return onescope_os_fail(&s->error, ONESCOPE_E_TRUNCATED, s->name, (uint64_t)s->fed, "poses",
                            "a whole frame", "the end of the file");
}

static onescope_code stream_head(onescope_os_pose_stream *s,
                                 const onescope_parse_options *options) {
    size_t got;
    size_t poses_at = 0;
    /* Grow until the validator has passed the head and the first frame is here. */
    for (;;) {
        if (poses_at == 0) poses_at = onescope_os_ospc_check_poses_at(s->check);
        if (poses_at != 0) {
            uint32_t entities = onescope_os_get_u32(s->buf + 12);
            s->frames = onescope_os_get_u32(s->buf + 16);
            s->frame_bytes = (size_t)entities * ONESCOPE_OSPC_POSE_BYTES;
            if (s->len >= poses_at + s->frame_bytes) break;
        }
        if (s->len == s->cap) {
            size_t cap = s->cap * 2;
            uint8_t *nb = onescope_os_alloc(s->allocator, cap);
            if (nb == NULL)
                return onescope_os_fail(&s->error, ONESCOPE_E_NOMEM, s->name, OS_NO_OFFSET, NULL,
                                        NULL, "cannot allocate %zu bytes", cap);
            memcpy(nb, s->buf, s->len);
            onescope_os_free(s->allocator, s->buf);
            s->buf = nb;
            s->cap = cap;
        }
        OS_TRY(stream_fill(s, &got));
        /* The validator saw the whole size up front, so the end comes after the first frame. */
        if (got == 0) return stream_ended(s);
    }
    /* The head with a frame count of 1, parsed by the parser: the same structs as a read. */
    uint8_t saved[4];
    memcpy(saved, s->buf + 16, 4);
    onescope_os_put_u32(s->buf + 16, 1);
    onescope_parse_options o = options != NULL ? *options : onescope_parse_options_default();
    o.max_input_bytes = 0;
    onescope_code rc = onescope_pose_cache_parse(s->buf, poses_at + s->frame_bytes, s->name, &o,
                                                 &s->cache, &s->error);
    memcpy(s->buf + 16, saved, 4);
    if (rc != ONESCOPE_OK) return rc;
    s->pos = poses_at;
    return ONESCOPE_OK;
}

onescope_code onescope_os_pose_stream_open(const char *path, const onescope_parse_options *options,
                                           onescope_os_pose_stream **out,
                                           const onescope_pose_cache **head, uint32_t *frames,
                                           onescope_error *error) {
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    *out = NULL;
    onescope_os_pose_stream *s = onescope_os_calloc(a, 1, sizeof *s);
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, onescope_os_input_name(path), OS_NO_OFFSET,
                                NULL, NULL, "cannot allocate a pose stream");
    s->allocator = a;
    s->name = onescope_os_input_name(path);
    s->fd = -1;
    int fd;
    uint64_t size;
    /* a stream: read as a file once spooled */
    onescope_code rc =
        onescope_os_file_open_seekable(path, options, &fd, &size, &s->spool, &s->error);
    if (rc == ONESCOPE_OK) {
        s->fd = fd;
        s->total = (size_t)size;
        rc = onescope_os_ospc_check_begin(s->total, s->name, options, &s->check, &s->error);
        if (rc == ONESCOPE_OK) {
            s->cap = ONESCOPE_OS_READ_BUFFER;
            s->buf = onescope_os_alloc(a, s->cap);
            if (s->buf == NULL)
                rc = onescope_os_fail(&s->error, ONESCOPE_E_NOMEM, s->name, OS_NO_OFFSET, NULL,
                                      NULL, "cannot allocate %zu bytes", s->cap);
        }
        if (rc == ONESCOPE_OK) rc = stream_head(s, options);
    }
    if (rc != ONESCOPE_OK) {
        if (error != NULL) *error = s->error;
        onescope_os_pose_stream_free(s);
        return rc;
    }
    *out = s;
    *head = s->cache;
    *frames = s->frames;
    return ONESCOPE_OK;
}

onescope_code onescope_os_pose_stream_next(onescope_os_pose_stream *s, onescope_pose *out,
                                           onescope_error *error) {
    if (s->rc == ONESCOPE_OK && s->next >= s->frames)
        s->rc = onescope_os_fail(&s->error, ONESCOPE_E_ARGUMENT, s->name, OS_NO_OFFSET, NULL, NULL,
                                 "no frame past the last");
    if (s->rc == ONESCOPE_OK) {
        while (s->rc == ONESCOPE_OK && s->len - s->pos < s->frame_bytes) {
            memmove(s->buf, s->buf + s->pos, s->len - s->pos);
            s->len -= s->pos;
            s->pos = 0;
            size_t got;
            s->rc = stream_fill(s, &got);
            if (s->rc == ONESCOPE_OK && got == 0) s->rc = stream_ended(s);
        }
        if (s->rc == ONESCOPE_OK) {
            const uint8_t *p = s->buf + s->pos;
            for (uint32_t e = 0; e < s->cache->entity_count; e++, p += ONESCOPE_OSPC_POSE_BYTES)
                for (int k = 0; k < 7; k++) {
                    float v = onescope_os_get_f32(p + 4 * k);
                    if (k < 3)
                        out[e].position[k] = v;
                    else
                        out[e].rotation[k - 3] = v;
                }
            s->pos += s->frame_bytes;
        }
    }
    if (s->rc != ONESCOPE_OK) {
        if (error != NULL) *error = s->error;
        return s->rc;
    }
    s->next++;
    return ONESCOPE_OK;
}

onescope_code onescope_os_pose_stream_finish(onescope_os_pose_stream *s, onescope_error *error) {
    while (s->rc == ONESCOPE_OK && s->fed < s->total) {
        s->pos = s->len = 0; /* the frames not taken are only checked */
        size_t got;
        s->rc = stream_fill(s, &got);
        if (s->rc == ONESCOPE_OK && got == 0) break;
    }
    if (s->rc == ONESCOPE_OK) s->rc = onescope_os_ospc_check_end(s->check, &s->error);
    if (s->rc != ONESCOPE_OK && error != NULL) *error = s->error;
    return s->rc;
}
