/* A module recording's files (OSTM v2): read whole, and verified as they are read. The
 * bytes are src/recording.c's, the module's checks and the run src/recording_run.c's and
 * src/module_run.c's; the reads are src/file.c's. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

#include "check_internal.h"
#include "file_internal.h"
#include "internal.h"
#include "recording_internal.h"
#include "run_internal.h"
#include "onescope/file.h"
#include "onescope/recording.h"

onescope_code onescope_recording_read_file(const char *path, const onescope_parse_options *options,
                                           onescope_recording **out, onescope_error *error) {
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "<ostm>", OS_NO_OFFSET, "path",
                                "non-NULL", NULL);
    onescope_buffer buf;
    OS_TRY(onescope_os_file_read_input(path, options, &buf, error));
    /* the bytes read become the recording's own: one copy of the file, not two */
    onescope_code rc =
        onescope_os_recording_parse_owned(&buf, onescope_os_input_name(path), options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

/* ---- verifying a module recording without holding it ----
 * The same three steps as the whole-file way, each over the file through one cursor: the
 * container's scan, the module's checks of its setup and of every input (so a bad input is
 * reported before any step runs, as there), then the run, reading each record as the loop
 * asks for its input and skipping its entity row. */

typedef struct rec_source {
    onescope_os_cursor c;
    const onescope_os_rec_head *h;
    const onescope_module *m;
    const uint8_t *setup;
    size_t setup_size;
    uint64_t row0, row; /* row 0, and the row of the record read last */
    uint8_t *big;       /* an input longer than the cursor's buffer */
    const onescope_allocator *a;
    bool check;    /* each input through the module's check_input as it is read */
    uint32_t done; /* records read whole */
    /* the keyframe of the record read last (has_key), its file offset, the map of its names
     * and a buffer of its own when it is longer than the cursor's */
    bool has_key;
    onescope_keyframe key;
    uint64_t key_at;
    uint8_t *key_big;
    size_t key_cap;
    int32_t map[ONESCOPE_RECORDING_MAX_KEY_VALUES];
} rec_source;

/* Reads n bytes at the cursor into a buffer of their own (an input past the cursor's size). */
static onescope_code read_big(rec_source *s, size_t n, const uint8_t **p, onescope_error *error) {
    onescope_os_free(s->a, s->big);
    s->big = onescope_os_alloc(s->a, n);
    if (s->big == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, s->c.name, OS_NO_OFFSET, "input", NULL,
                                "cannot allocate %zu bytes", n);
    *p = s->big;
    return onescope_os_cursor_copy(&s->c, n, s->big, error);
}

/* Step index's input, left in the cursor's buffer (or a buffer of its own) until the next
 * read: the verify loop steps the world with it before it asks for the row after it. */
static onescope_code rec_file_input(void *user, uint32_t index, const uint8_t **data, size_t *size,
                                    uint64_t *at_out, onescope_error *error) {
    rec_source *s = user;
    const uint8_t *p = NULL;
    OS_TRY(onescope_os_cursor_take(&s->c, 4, &p, error));
    *size = onescope_os_get_u32(p);
    uint64_t at = onescope_os_cursor_offset(&s->c);
    *at_out = at;
    if (*size <= s->c.cap)
        OS_TRY(onescope_os_cursor_take(&s->c, *size, data, error));
    else
        OS_TRY(read_big(s, *size, data, error));
    if (s->check)
        OS_TRY(onescope_os_recording_check_input(s->m, s->setup, s->setup_size, *data, *size, index,
                                                 at, s->c.name, error));
    return ONESCOPE_OK;
}

/* The keyframe at the cursor, read whole into a buffer of its own (for the run, which
 * compares its table), length field included. */
static onescope_code rec_file_key(rec_source *s, onescope_error *error) {
    const uint8_t *p = NULL;
    s->key_at = onescope_os_cursor_offset(&s->c);
    OS_TRY(onescope_os_cursor_take(&s->c, 4, &p, error));
    size_t n = 4 + (size_t)onescope_os_get_u32(p); /* passed the scan: L bytes remain */
    uint8_t len[4];
    memcpy(len, p, 4);
    if (n > s->key_cap) { /* one buffer, as large as the largest keyframe so far */
        onescope_os_free(s->a, s->key_big);
        s->key_cap = 0;
        s->key_big = onescope_os_alloc(s->a, n);
        if (s->key_big == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, s->c.name, OS_NO_OFFSET, "keyframe",
                                    NULL, "cannot allocate %zu bytes", n);
        s->key_cap = n;
    }
    memcpy(s->key_big, len, 4);
    OS_TRY(onescope_os_cursor_copy(&s->c, n - 4, s->key_big + 4, error));
    onescope_os_keyframe_at(s->key_big, s->done, s->h->key_values, &s->key);
    s->has_key = true;
    return ONESCOPE_OK;
}

/* The rest of the record whose input was read last: its hash row, its entity row (skipped)
 * and its keyframe (read only for the run, which compares its table). */
static onescope_code rec_file_finish(rec_source *s, onescope_error *error) {
    const uint8_t *p = NULL;
    OS_TRY(onescope_os_cursor_take(&s->c, 8, &p, error));
    s->row = onescope_os_get_u64(p);
    s->done++;
    s->has_key = false;
    bool keyed =
        (s->h->flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES) && s->done % s->h->key_every == 0;
    if (s->h->flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) {
        OS_TRY(onescope_os_cursor_take(&s->c, 4, &p, error));
        onescope_os_cursor_skip(&s->c, onescope_os_get_u32(p));
    }
    if (keyed && !s->check) return rec_file_key(s, error);
    if (keyed) {
        OS_TRY(onescope_os_cursor_take(&s->c, 4, &p, error));
        onescope_os_cursor_skip(&s->c, onescope_os_get_u32(p));
    }
    return ONESCOPE_OK;
}

static onescope_code rec_file_keyframe(void *user, uint32_t index, const onescope_world *w,
                                       onescope_verify_result *result, onescope_error *error) {
    rec_source *s = user;
    if (!s->has_key || index != s->key.row) return ONESCOPE_OK;
    return onescope_os_verify_table(&s->key, s->map, s->key_at, w, s->a, result, s->c.name, error);
}

static onescope_code rec_file_row(void *user, uint32_t index, uint64_t *expected,
                                  onescope_error *error) {
    rec_source *s = user;
    if (index > 0) OS_TRY(rec_file_finish(s, error)); /* rows come in order, after each input */
    *expected = index == 0 ? s->row0 : s->row;
    return ONESCOPE_OK;
}

static onescope_code verify_recording_stream(int fd, uint64_t size, const char *path,
                                             const onescope_module *module,
                                             const onescope_parse_options *options,
                                             onescope_verify_result *result,
                                             onescope_error *error) {
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    void *raw = NULL;
    uint8_t *buf = onescope_os_read_buffer(a, ONESCOPE_OS_READ_BUFFER, &raw), *setup = NULL,
            *snap = NULL;
    if (buf == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, path, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", ONESCOPE_OS_READ_BUFFER);
    onescope_os_rec_head h;
    void *kept = NULL;
    memset(&h, 0, sizeof h);
    rec_source s;
    memset(&s, 0, sizeof s);
    onescope_code rc = onescope_os_file_push(&onescope_os_recording_push, fd, buf, size, path,
                                             options, &kept, error);
    if (rc == ONESCOPE_OK) {
        h = *onescope_os_rec_check_head(kept);
        onescope_os_recording_push.free(kept);
    }
    if (rc == ONESCOPE_OK)
        rc = onescope_os_file_read_new(fd, h.setup_at, h.setup_size, a, &setup, path, error);
    if (rc == ONESCOPE_OK && (h.flags & ONESCOPE_RECORDING_FLAG_START_SNAPSHOT))
        rc = onescope_os_file_read_new(fd, h.snapshot_at, h.snapshot_size, a, &snap, path, error);
    if (rc == ONESCOPE_OK)
        rc = onescope_os_recording_check_head(module, h.module_id, h.module_version, setup,
                                              h.setup_size, h.setup_at, path, error);
    if (rc == ONESCOPE_OK && (h.flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES)) {
        uint8_t *names = NULL; /* at most 1024 names of 65 bytes */
        rc = onescope_os_file_read_new(fd, h.keys_head_at, (size_t)(h.records_at - h.keys_head_at),
                                       a, &names, path, error);
        if (rc == ONESCOPE_OK)
            rc = onescope_os_recording_check_names(module, names, &h, path, error);
        if (rc == ONESCOPE_OK) onescope_os_table_map(module, names, h.key_values, s.map);
        onescope_os_free(a, names);
    }
    if (rc == ONESCOPE_OK && !(h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) && result != NULL)
        result->verdict = ONESCOPE_VERDICT_NO_HASH_ROWS;
    if (rc == ONESCOPE_OK && !(h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS))
        rc = onescope_os_fail(error, ONESCOPE_E_FLAGS, path, 6, "flags",
                              "bit 0 set (hash rows to verify)", "0x%04x", (unsigned)h.flags);
    s.h = &h;
    s.m = module;
    s.setup = setup;
    s.setup_size = h.setup_size;
    s.a = a;
    uint8_t row0[8];
    if (rc == ONESCOPE_OK) {
        const uint8_t *p = NULL;
        onescope_os_cursor c0 = onescope_os_cursor_at(fd, row0, sizeof row0, h.row0_at, path);
        rc = onescope_os_cursor_take(&c0, 8, &p, error);
        if (rc == ONESCOPE_OK) s.row0 = onescope_os_get_u64(p);
    }
    /* every input through the module's check first, then the run */
    for (int pass = module->check_input != NULL ? 0 : 1; rc == ONESCOPE_OK && pass < 2; pass++) {
        s.c = onescope_os_cursor_at(fd, buf, ONESCOPE_OS_READ_BUFFER, h.records_at, path);
        s.check = pass == 0;
        s.done = 0;
        if (pass == 0) {
            for (uint32_t i = 0; rc == ONESCOPE_OK && i < h.step_count; i++) {
                const uint8_t *d;
                size_t k;
                uint64_t at;
                rc = rec_file_input(&s, i, &d, &k, &at, error);
                if (rc == ONESCOPE_OK) rc = rec_file_finish(&s, error);
            }
            continue;
        }
        onescope_os_run_start start;
        memset(&start, 0, sizeof start);
        start.module = module;
        start.setup = setup;
        start.setup_size = h.setup_size;
        start.snapshot = snap;
        start.snapshot_size = snap != NULL ? h.snapshot_size : 0;
        start.step_count = h.step_count;
        start.at_known = true;
        start.setup_at = h.setup_at;
        start.snapshot_at = h.snapshot_at;
        onescope_os_replay_source source = {rec_file_row, rec_file_input, &s, rec_file_keyframe};
        rc = onescope_os_run_verify(&start, &source, a, result, path, error);
    }
    onescope_os_free(a, s.big);
    onescope_os_free(a, s.key_big);
    onescope_os_free(a, setup);
    onescope_os_free(a, snap);
    onescope_os_free(a, raw);
    return rc;
}

onescope_code onescope_recording_verify_file(const char *path, const onescope_module *module,
                                             const onescope_parse_options *options,
                                             onescope_verify_result *result,
                                             onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_recording_verify_file",
                                OS_NO_OFFSET, "path", "non-NULL", NULL);
    /* standard input, a pipe: spooled to a scratch file, then verified as a file is */
    int fd;
    uint64_t size;
    onescope_os_scratch *spool = NULL;
    const char *name = onescope_os_input_name(path);
    onescope_code rc = onescope_os_file_open_seekable(path, options, &fd, &size, &spool, error);
    if (rc == ONESCOPE_OK)
        rc = verify_recording_stream(fd, size, name, module, options, result, error);
    if (spool != NULL)
        onescope_os_scratch_free(spool);
    else if (fd >= 0)
        close(fd);
    return rc;
}
