/* The streaming OSTM writer and the recovery of its partial file. The bytes of the head and of
 * the partial's step records are src/replay.c's; the file steps (create, write, read back,
 * sync, rename) are src/file.c's onescope_os_file_* helpers, and where the finished file
 * lands (symlinks, mode and owner, devices) its onescope_os_target_* rules, as for every
 * other output. This file runs the world and decides what goes where, through fixed buffers.
 * Layout and rules: docs/test-module.md, "The streaming writer". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "file_internal.h"
#include "internal.h"
#include "onescope/file.h"
#include "onescope/replay.h"
#include "replay_internal.h"

#define DEFAULT_BUFFER (256u * 1024u)

struct onescope_replay_writer {
    const onescope_allocator *allocator;
    char *path;          /* the target */
    char *partial;       /* the one partial name (src/file.c) beside the file path ends at */
    onescope_os_out out; /* the partial, through the writers' one core */
    onescope_sim *sim;
    onescope_os_replay_head head; /* head.snapshot points into head_bytes */
    uint8_t head_bytes[ONESCOPE_OS_OSTM_HEAD_MAX];
    uint64_t row0; /* the start world's hash */
    uint32_t steps;
    uint64_t input_bytes;
};

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                            "could not allocate memory");
}

static char *concat(const onescope_allocator *a, const char *s, const char *t) {
    size_t n = strlen(s), m = strlen(t);
    char *p = onescope_os_alloc(a, n + m + 1);
    if (p == NULL) return NULL;
    memcpy(p, s, n);
    memcpy(p + n, t, m + 1);
    return p;
}

/* ---- buffered reading of a partial's records and buffered writing of the final file ---- */

typedef struct src_reader {
    int fd;
    const char *name;
    uint8_t *buf;
    size_t cap, start, end; /* buf[start..end) holds the bytes at file offset pos */
    uint64_t pos;
} src_reader;

/* Makes at least want bytes available at the current position (fewer at the end of the
 * file); returns how many are, or -1 (error filled). want <= cap. */
static ssize_t src_fill(src_reader *s, size_t want, onescope_error *error) {
    if (s->end - s->start >= want) return (ssize_t)(s->end - s->start);
    memmove(s->buf, s->buf + s->start, s->end - s->start);
    s->end -= s->start;
    s->start = 0;
    size_t k;
    if (onescope_os_file_read_at(s->fd, s->pos + s->end, s->buf + s->end, s->cap - s->end, &k,
                                 s->name, error) != ONESCOPE_OK)
        return -1;
    s->end += k;
    return (ssize_t)s->end;
}

static void src_skip(src_reader *s, size_t n) {
    s->start += n;
    s->pos += n;
}

/* Reads the next record of a partial the writer or a scan has already checked. */
static onescope_code next_record(src_reader *s, uint8_t dimensions, const uint8_t **input,
                                 uint16_t *size, uint64_t *hash, onescope_error *error) {
    ssize_t avail = src_fill(s, ONESCOPE_OS_OSTM_RECORD_MAX, error);
    if (avail < 0) return ONESCOPE_E_IO;
    bool whole;
    OS_TRY(onescope_os_replay_record_decode(s->buf + s->start, (size_t)avail, dimensions, s->name,
                                            s->pos, &whole, input, size, hash, error));
    if (!whole) /* the file changed under us since it was scanned */
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, s->name, s->pos, "step record",
                                "a whole record", "the end of the file");
    src_skip(s, ONESCOPE_OS_OSTM_RECORD_FIXED + (size_t)*size);
    return ONESCOPE_OK;
}

/* A recording is renamed into place, so a device, FIFO or socket cannot take it: refused
 * as the pose writer refuses one, before anything is created. */
static onescope_code refuse_special(const char *name, onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "output",
                            "a regular file (a recording is renamed into place)",
                            "a device, FIFO or socket");
}

/* Writes the OSTM file for the first `steps` records of the partial at src (records start at
 * records_at, after row 0) to out_path: head with the count, row 0 and every record's hash,
 * then every input. Two passes over the partial, each through the fixed buffers, so memory
 * does not grow with the steps. Lands as every output does (src/file.c's target rules): a
 * temporary beside the file out_path ends at (symlinks followed, a dangling one's target
 * created), with an existing file's mode and owner, fsync, rename. */
static onescope_code write_final(int src_fd, const char *src_name, const onescope_os_replay_head *h,
                                 const uint8_t *head_bytes, uint64_t row0, uint64_t records_at,
                                 uint32_t steps, const char *out_path, const onescope_allocator *a,
                                 onescope_error *error) {
    uint8_t head[ONESCOPE_OS_OSTM_HEAD_MAX];
    memcpy(head, head_bytes, h->size);
    onescope_os_replay_head_set_steps(head, h, steps);
    src_reader s = {src_fd, src_name, NULL, DEFAULT_BUFFER, 0, 0, records_at};
    onescope_os_out k; /* the writers' buffered output, here onto the temporary */
    memset(&k, 0, sizeof k);
    k.fd = -1;
    k.cap = DEFAULT_BUFFER;
    onescope_os_target t = {NULL, false, false, 0, 0, 0};
    char *tmp = NULL;
    onescope_code rc = ONESCOPE_OK;
    s.buf = onescope_os_alloc(a, s.cap);
    if (s.buf == NULL) return nomem(error, src_name, "read buffer");
    k.buf = onescope_os_alloc(a, k.cap);
    if (k.buf == NULL) {
        rc = nomem(error, out_path, "write buffer");
        goto done;
    }
    rc = onescope_os_target_resolve(out_path, out_path, a, &t, error);
    if (rc == ONESCOPE_OK && t.special) rc = refuse_special(out_path, error);
    if (rc == ONESCOPE_OK) rc = onescope_os_target_create_temp(&t, a, out_path, &k.fd, &tmp, error);
    if (rc != ONESCOPE_OK) goto done;
    /* A file being replaced keeps its mode and owner, from the temporary's first byte on. */
    rc = onescope_os_target_adopt(&t, k.fd, out_path, error);
    uint8_t row[8];
    onescope_os_put_u64(row, row0);
    if (rc == ONESCOPE_OK) rc = onescope_os_out_feed(&k, head, h->size, out_path, error);
    if (rc == ONESCOPE_OK) rc = onescope_os_out_feed(&k, row, 8, out_path, error);
    const uint8_t *input;
    uint16_t size;
    uint64_t hash;
    for (uint32_t i = 0; i < steps && rc == ONESCOPE_OK; i++) {
        rc = next_record(&s, h->setup.dimensions, &input, &size, &hash, error);
        if (rc != ONESCOPE_OK) break;
        onescope_os_put_u64(row, hash);
        rc = onescope_os_out_feed(&k, row, 8, out_path, error);
    }
    s.start = s.end = 0;
    s.pos = records_at;
    for (uint32_t i = 0; i < steps && rc == ONESCOPE_OK; i++) {
        rc = next_record(&s, h->setup.dimensions, &input, &size, &hash, error);
        if (rc != ONESCOPE_OK) break;
        uint8_t len[2];
        onescope_os_put_u16(len, size);
        rc = onescope_os_out_feed(&k, len, 2, out_path, error);
        if (rc == ONESCOPE_OK) rc = onescope_os_out_feed(&k, input, size, out_path, error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_os_out_drain(&k, out_path, error);
    if (rc == ONESCOPE_OK)
        rc = onescope_os_file_land(k.fd, tmp, t.path, true, out_path, error);
    else
        onescope_os_file_close_fd(k.fd, out_path, NULL);
    if (rc != ONESCOPE_OK) onescope_os_file_remove(tmp);
done:
    onescope_os_target_free(&t, a);
    onescope_os_free(a, tmp);
    onescope_os_free(a, k.buf);
    onescope_os_free(a, s.buf);
    return rc;
}

/* ---- the writer ---- */

onescope_replay_writer_options onescope_replay_writer_options_default(void) {
    onescope_replay_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_bytes = DEFAULT_BUFFER;
    return o;
}

void onescope_replay_writer_free(onescope_replay_writer *w) {
    if (w == NULL) return;
    /* The partial stays, with every step appended (recovery keeps whatever whole steps
     * reached it). */
    onescope_os_out_leave(&w->out, w->partial);
    const onescope_allocator *a = w->allocator;
    onescope_sim_free(w->sim);
    onescope_os_free(a, w->out.buf);
    onescope_os_free(a, w->partial);
    onescope_os_free(a, w->path);
    onescope_os_free(a, w);
}

onescope_code onescope_replay_writer_open(const char *path, const onescope_sim_setup *setup,
                                          const onescope_link_block *link, const void *snapshot,
                                          size_t snapshot_size,
                                          const onescope_replay_writer_options *options,
                                          const onescope_allocator *a, onescope_replay_writer **out,
                                          onescope_error *error) {
    const char *fn = "onescope_replay_writer_open";
    if (out != NULL) *out = NULL;
    if (path == NULL || setup == NULL || out == NULL || (snapshot == NULL && snapshot_size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, NULL, NULL,
                                "path, setup and out must not be NULL");
    if (path[0] == '\0' || strcmp(path, "-") == 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "path",
                                "a file name (a recording cannot go to standard output)", "\"%s\"",
                                path);
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    if (options != NULL) {
        o = *options;
        if (o.buffer_bytes == 0) o.buffer_bytes = DEFAULT_BUFFER;
    }
    if (o.buffer_bytes < ONESCOPE_OS_OSTM_RECORD_MAX) o.buffer_bytes = ONESCOPE_OS_OSTM_RECORD_MAX;

    uint8_t head[ONESCOPE_OS_OSTM_HEAD_MAX];
    size_t head_size;
    OS_TRY(onescope_os_replay_head_build(setup, link, snapshot, snapshot_size,
                                         ONESCOPE_OS_OSTM_PARTIAL_MARK, path, head, &head_size,
                                         error));
    /* Where close will land (src/file.c's rules for a recording): a device or a directory is
     * refused now, before a partial is created; the partial sits beside the file a symlink
     * names, as the pose writer's does. close resolves again, so a link changed meanwhile is
     * followed. */
    onescope_os_target t;
    OS_TRY(onescope_os_recording_target(path, a, &t, error));
    char *partial = onescope_os_partial_name(t.path, a);
    onescope_os_target_free(&t, a);
    if (partial == NULL) return nomem(error, path, "replay writer");
    onescope_replay_writer *w = onescope_os_calloc(a, 1, sizeof *w);
    if (w == NULL) {
        onescope_os_free(a, partial);
        return nomem(error, path, "replay writer");
    }
    w->allocator = a;
    w->out.fd = -1;
    w->partial = partial;
    onescope_os_flush_rule_init(&w->out.flush, o.flush_every, o.flush_every_ms, o.flush_fsync);
    memcpy(w->head_bytes, head, head_size);
    onescope_code rc =
        onescope_os_replay_head_read(w->head_bytes, head_size, path, &w->head, error);
    if (rc != ONESCOPE_OK) goto fail; /* cannot happen: it was just built from checked parts */
    w->path = concat(a, path, "");
    w->out.buf = onescope_os_alloc(a, o.buffer_bytes);
    w->out.cap = o.buffer_bytes;
    if (w->path == NULL || w->partial == NULL || w->out.buf == NULL) {
        rc = nomem(error, path, "replay writer");
        goto fail;
    }
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = w->head.setup;
    def.link = w->head.link;
    rc = snapshot != NULL ? onescope_sim_create_from_snapshot(&def, snapshot, snapshot_size, path,
                                                              a, &w->sim, error)
                          : onescope_sim_create(&def, a, &w->sim, error);
    if (rc != ONESCOPE_OK) goto fail;

    /* An existing partial (an earlier crash) is refused, never overwritten. */
    w->out.fd = onescope_os_file_create_new(w->partial, w->path, error);
    if (w->out.fd < 0) {
        rc = ONESCOPE_E_IO;
        goto fail;
    }
    /* The head and row 0 in one write: a partial is either empty, cut inside them, or whole. */
    w->row0 = onescope_sim_hash(w->sim);
    onescope_os_put_u64(head + head_size, w->row0);
    rc = onescope_os_file_write_fd(w->out.fd, head, head_size + 8, w->partial, error);
    if (rc != ONESCOPE_OK) {
        (void)onescope_os_file_close_fd(w->out.fd, w->partial, NULL);
        w->out.fd = -1;
        onescope_os_file_remove(w->partial);
        goto fail;
    }
    *out = w;
    return ONESCOPE_OK;
fail:
    onescope_replay_writer_free(w);
    return rc;
}

/* Refuses a writer that is closed or failed, with one line saying which. */
static onescope_code check_open(onescope_replay_writer *w, const char *what,
                                onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, what, OS_NO_OFFSET, NULL, NULL,
                                "writer must not be NULL");
    if (w->out.state != ONESCOPE_OS_OUT_OPEN)
        return onescope_os_out_refuse(&w->out, w->path, what, "step", error);
    return ONESCOPE_OK;
}

/* Every failure of an open writer goes through here: the writer refuses further use. */
static onescope_code latch(onescope_replay_writer *w, onescope_code rc) {
    return onescope_os_out_latch(&w->out, rc);
}

onescope_code onescope_replay_writer_append(onescope_replay_writer *w, const void *input,
                                            size_t size, const uint64_t *hash,
                                            onescope_error *error) {
    const char *fn = "onescope_replay_writer_append";
    OS_TRY(check_open(w, fn, error));
    if (input == NULL && size > 0)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_ARGUMENT, w->path, OS_NO_OFFSET, fn,
                                         NULL, "input must not be NULL"));
    /* Offsets in messages are where the bytes would land in the finished file. */
    uint64_t at = onescope_os_replay_file_size(w->head.size, w->steps + 1, w->input_bytes) - 2;
    if (size > ONESCOPE_SIM_MAX_INPUT)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_RANGE, w->path, at, "step input length",
                                         "at most 65535 bytes", "%zu", size));
    if (w->steps >= ONESCOPE_OSTM_MAX_STEPS)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_RANGE, w->path, w->head.steps_at,
                                         "step count", "at most 16777216", "one more than %" PRIu32,
                                         w->steps));
    onescope_code rc =
        onescope_op_check_input(w->head.setup.dimensions, input, size, w->path, at + 2, error);
    if (rc != ONESCOPE_OK) return latch(w, rc);
    /* Refused before anything is written: the finished file must stay readable. */
    uint64_t total =
        onescope_os_replay_file_size(w->head.size, w->steps + 1, w->input_bytes + size);
    rc = onescope_os_check_output_size(total, w->path, error);
    if (rc != ONESCOPE_OK) return latch(w, rc);
    rc = onescope_sim_step(w->sim, input, size, error);
    if (rc != ONESCOPE_OK) return latch(w, rc);
    uint64_t row = hash != NULL ? *hash : onescope_sim_hash(w->sim);
    uint8_t *room =
        onescope_os_out_room(&w->out, ONESCOPE_OS_OSTM_RECORD_FIXED + size, w->partial, error);
    if (room == NULL) return latch(w, ONESCOPE_E_IO);
    onescope_os_out_wrote(&w->out,
                          onescope_os_replay_record_encode(input, (uint16_t)size, row, room));
    w->steps++;
    w->input_bytes += size;
    return onescope_os_out_appended(&w->out, w->partial, error);
}

onescope_code onescope_replay_writer_flush(onescope_replay_writer *w, onescope_error *error) {
    OS_TRY(check_open(w, "onescope_replay_writer_flush", error));
    return latch(w, onescope_os_out_flush(&w->out, w->partial, error));
}

uint64_t onescope_replay_writer_steps(const onescope_replay_writer *w) {
    return w != NULL ? w->steps : 0;
}

void onescope_replay_writer_discard(onescope_replay_writer *w) {
    if (w == NULL) return;
    onescope_os_out_abandon(&w->out, w->partial, w->partial);
    onescope_replay_writer_free(w);
}

onescope_code onescope_replay_writer_close(onescope_replay_writer *w, uint64_t *steps,
                                           onescope_error *error) {
    if (steps != NULL) *steps = 0;
    if (w != NULL && w->out.state == ONESCOPE_OS_OUT_LATCHED)
        return onescope_os_out_close_failed(&w->out, w->partial, w->partial, "step", error);
    OS_TRY(check_open(w, "onescope_replay_writer_close", error));
    onescope_code rc = onescope_os_out_drain(&w->out, w->partial, error);
    /* The partial is read back through a descriptor of its own: the writer's is write-only. */
    int src = rc == ONESCOPE_OK ? onescope_os_file_open_read(w->partial, w->partial, error) : -1;
    if (rc == ONESCOPE_OK && src < 0) rc = ONESCOPE_E_IO;
    if (rc == ONESCOPE_OK)
        rc = write_final(src, w->partial, &w->head, w->head_bytes, w->row0, w->head.size + 8,
                         w->steps, w->path, w->allocator, error);
    if (src >= 0) (void)onescope_os_file_close_fd(src, w->partial, NULL);
    if (rc != ONESCOPE_OK) return latch(w, rc);
    (void)onescope_os_file_close_fd(w->out.fd, w->partial, NULL);
    w->out.fd = -1;
    /* The finished file is in place. A kill before this unlink leaves a complete partial,
     * which recovers to the same bytes. */
    onescope_os_file_remove(w->partial);
    w->out.state = ONESCOPE_OS_OUT_CLOSED;
    w->out.committed = true;
    if (steps != NULL) *steps = w->steps;
    return ONESCOPE_OK;
}

/* ---- recovery ---- */

/* Reads and checks a partial's head and row 0; *records_at gets where its records start. */
static onescope_code read_partial_head(int fd, const char *name, uint8_t *bytes,
                                       onescope_os_replay_head *h, uint64_t *row0,
                                       uint64_t *records_at, onescope_error *error) {
    size_t n;
    OS_TRY(onescope_os_file_read_at(fd, 0, bytes, ONESCOPE_OS_OSTM_HEAD_MAX + 8, &n, name, error));
    OS_TRY(onescope_os_replay_head_read(bytes, n, name, h, error));
    if (h->step_count != ONESCOPE_OS_OSTM_PARTIAL_MARK)
        return onescope_os_fail(error, ONESCOPE_E_MAGIC, name, h->steps_at,
                                "partial recording mark (step count)",
                                "ffffffff (a partial recording)",
                                "%" PRIu32 " (a finished replay, or another file)", h->step_count);
    if (!(h->flags & ONESCOPE_OSTM_FLAG_HASH_ROWS))
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 0 set (a partial recording has hash rows)", "0x%04x",
                                (unsigned)h->flags);
    if (n < h->size + 8)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, name, h->size, "hash row 0", "8 bytes",
                                "%zu bytes", n - h->size);
    *row0 = onescope_os_get_u64(bytes + h->size);
    *records_at = h->size + 8;
    return ONESCOPE_OK;
}

/* A record the end of the file cuts is a torn last record only when its bytes could still
 * be the start of a valid record: the input bytes present must read as operations (the last
 * one may be cut). Anything else there is damage, reported at the record: recovery never
 * cuts steps from the middle of a partial without a word. */
static onescope_code check_torn(const src_reader *s, size_t avail, uint8_t dimensions,
                                onescope_error *error) {
    const uint8_t *p = s->buf + s->start;
    if (avail < 4) return ONESCOPE_OK; /* the marker (checked) and part of the length */
    uint16_t len = onescope_os_get_u16(p + 2);
    size_t have = avail - 4 < len ? avail - 4 : len;
    onescope_error scratch;
    onescope_code rc =
        onescope_op_check_input(dimensions, p + 4, have, s->name, s->pos + 4, &scratch);
    if (rc == ONESCOPE_OK || rc == ONESCOPE_E_TRUNCATED) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_LENGTH, s->name, s->pos + 2, "step input length",
                            "a whole record, or a last one cut by the end of the file",
                            "%u, past the end of the file over bytes that are no step input "
                            "(at offset %" PRIu64 ")",
                            (unsigned)len, scratch.offset);
}

/* Counts the whole, valid records (a torn last one is not counted), checking each as the
 * parser would check the step and the file it will make. */
static onescope_code scan_partial(src_reader *s, const onescope_os_replay_head *h, uint32_t *steps,
                                  onescope_error *error) {
    uint64_t input_bytes = 0;
    *steps = 0;
    for (;;) {
        ssize_t avail = src_fill(s, ONESCOPE_OS_OSTM_RECORD_MAX, error);
        if (avail < 0) return ONESCOPE_E_IO;
        if (avail == 0) return ONESCOPE_OK;
        const uint8_t *input;
        uint16_t size;
        uint64_t hash;
        bool whole;
        OS_TRY(onescope_os_replay_record_decode(s->buf + s->start, (size_t)avail,
                                                h->setup.dimensions, s->name, s->pos, &whole,
                                                &input, &size, &hash, error));
        if (!whole) /* torn (the process died while writing it), or damage */
            return check_torn(s, (size_t)avail, h->setup.dimensions, error);
        if (*steps >= ONESCOPE_OSTM_MAX_STEPS)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, s->name, s->pos, "step record",
                                    "at most 16777216 steps", "one more");
        input_bytes += size;
        OS_TRY(onescope_os_check_output_size(
            onescope_os_replay_file_size(h->size, *steps + 1, input_bytes), s->name, error));
        (*steps)++;
        src_skip(s, ONESCOPE_OS_OSTM_RECORD_FIXED + (size_t)size);
    }
}

onescope_code onescope_replay_recover(const char *partial, const char *out_path,
                                      const onescope_allocator *a, uint64_t *steps_kept,
                                      onescope_error *error) {
    if (steps_kept != NULL) *steps_kept = 0;
    char *derived;
    onescope_code rc = onescope_os_recover_names(partial, out_path, "onescope_replay_recover", a,
                                                 &out_path, &derived, error);
    if (rc != ONESCOPE_OK) return rc;
    int fd = onescope_os_file_open_read(partial, partial, error);
    if (fd < 0) {
        rc = ONESCOPE_E_IO;
        goto done;
    }
    uint8_t head_bytes[ONESCOPE_OS_OSTM_HEAD_MAX + 8];
    onescope_os_replay_head h;
    uint64_t row0 = 0, records_at = 0; /* set by read_partial_head when it succeeds */
    rc = read_partial_head(fd, partial, head_bytes, &h, &row0, &records_at, error);
    if (rc != ONESCOPE_OK) goto done;
    src_reader s = {fd, partial, NULL, DEFAULT_BUFFER, 0, 0, records_at};
    s.buf = onescope_os_alloc(a, s.cap);
    if (s.buf == NULL) {
        rc = nomem(error, partial, "read buffer");
        goto done;
    }
    uint32_t steps;
    rc = scan_partial(&s, &h, &steps, error);
    onescope_os_free(a, s.buf);
    if (rc == ONESCOPE_OK)
        rc = write_final(fd, partial, &h, head_bytes, row0, records_at, steps, out_path, a, error);
    if (rc == ONESCOPE_OK && steps_kept != NULL) *steps_kept = steps;
done:
    if (fd >= 0) (void)onescope_os_file_close_fd(fd, partial, NULL);
    onescope_os_free(a, derived);
    return rc;
}
