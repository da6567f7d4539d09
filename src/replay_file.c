/* A replay's files (OSTM v1): read whole, written through the one write path, verified as
 * they are read, and one step's input taken without holding the file. The bytes are
 * src/replay.c's, the run src/replay_run.c's; the reads are src/file.c's. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "check_internal.h"
#include "file_internal.h"
#include "internal.h"
#include "replay_internal.h" /* the replay's allocator for the written bytes */
#include "run_internal.h"
#include "onescope/file.h"
#include "onescope/replay.h"

onescope_code onescope_replay_read_file(const char *path, const onescope_parse_options *options,
                                        onescope_replay **out, onescope_error *error) {
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "<ostm>", OS_NO_OFFSET, "path",
                                "non-NULL", NULL);
    onescope_buffer buf;
    OS_TRY(onescope_os_file_read_input(path, options, &buf, error));
    onescope_code rc = onescope_replay_parse(buf.data, buf.size, onescope_os_input_name(path),
                                             options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

onescope_code onescope_replay_write_file(const onescope_replay *r, const char *path,
                                         onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_replay_write(r, r != NULL ? r->allocator : NULL, &buf, error));
    return onescope_os_file_write_buffer(path, &buf, error);
}

/* ---- a replay file without holding it ----
 * First the file is validated through the push validator (so a bad file gets the parser's
 * error, whatever a run would have found first), then the run reads the rows and the step
 * inputs through two cursors over the same descriptor: rows sit before the inputs, and both
 * advance together, one row per step. Standard input, pipes and devices are spooled to a
 * scratch file first and then read the same way (src/file_stream.c), so a stream verifies in
 * the memory a file takes. */

#define ROWS_BUFFER ((size_t)64 << 10)

typedef struct file_source {
    onescope_os_cursor rows, inputs;
} file_source;

static onescope_code file_row(void *user, uint32_t index, uint64_t *expected,
                              onescope_error *error) {
    file_source *s = user;
    const uint8_t *p = NULL; /* set by every successful take */
    (void)index;             /* rows come in order */
    OS_TRY(onescope_os_cursor_take(&s->rows, 8, &p, error));
    *expected = onescope_os_get_u64(p);
    return ONESCOPE_OK;
}

static onescope_code file_input(void *user, uint32_t index, const uint8_t **data, size_t *size,
                                uint64_t *at, onescope_error *error) {
    file_source *s = user;
    const uint8_t *p = NULL; /* set by every successful take */
    (void)index;             /* inputs come in order */
    OS_TRY(onescope_os_cursor_take(&s->inputs, 2, &p, error));
    *size = onescope_os_get_u16(p);
    *at = onescope_os_cursor_offset(&s->inputs);
    return onescope_os_cursor_take(&s->inputs, *size, data, error);
}

/* The file validated: its descriptor (a stream's spooled copy: then spool owns it), the read
 * buffer (*raw to free) and the check that holds its head. */
typedef struct checked_file {
    int fd;
    onescope_os_scratch *spool;
    uint8_t *buf;
    void *raw;
    onescope_os_ostm_check *check;
} checked_file;

static void checked_close(checked_file *f, const onescope_allocator *a) {
    onescope_os_ostm_check_free(f->check);
    onescope_os_free(a, f->raw);
    if (f->spool != NULL)
        onescope_os_scratch_free(f->spool);
    else if (f->fd >= 0)
        close(f->fd);
}

static onescope_code checked_open(const char *path, const onescope_parse_options *options,
                                  checked_file *f, onescope_error *error) {
    memset(f, 0, sizeof *f);
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    const char *name = onescope_os_input_name(path);
    uint64_t size;
    OS_TRY(onescope_os_file_open_seekable(path, options, &f->fd, &size, &f->spool, error));
    f->buf = onescope_os_read_buffer(a, ONESCOPE_OS_READ_BUFFER, &f->raw);
    if (f->buf == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", ONESCOPE_OS_READ_BUFFER);
    void *kept = NULL;
    onescope_code rc = onescope_os_file_push(&onescope_os_ostm_push, f->fd, f->buf, size, name,
                                             options, &kept, error);
    f->check = kept;
    return rc;
}

/* A copy of one input, in the options' allocator. */
static onescope_code input_copy(const uint8_t *data, size_t size, const onescope_allocator *a,
                                onescope_buffer *input, const char *name, onescope_error *error) {
    input->data = onescope_os_alloc(a, size ? size : 1);
    if (input->data == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", size);
    if (size) memcpy(input->data, data, size);
    input->size = size;
    input->allocator = a;
    return ONESCOPE_OK;
}

static onescope_code no_step(uint32_t index, uint32_t count, const char *name,
                             onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "step",
                            "a recorded step", "step %" PRIu32 " of %" PRIu32, index, count);
}

onescope_code onescope_replay_verify_file(const char *path, const onescope_parse_options *options,
                                          onescope_verify_result *result, onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_replay_verify_file",
                                OS_NO_OFFSET, "path", "non-NULL", NULL);
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    const char *name = onescope_os_input_name(path);
    checked_file f;
    onescope_code rc = checked_open(path, options, &f, error);
    if (rc == ONESCOPE_OK) {
        void *rows_raw = NULL;
        uint8_t *rows = onescope_os_read_buffer(a, ROWS_BUFFER, &rows_raw);
        const uint8_t *snapshot;
        const onescope_os_ostm_head *h = onescope_os_ostm_check_head(f.check, &snapshot);
        if (rows == NULL) {
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                  "cannot allocate %zu bytes", ROWS_BUFFER);
        } else {
            file_source s = {
                onescope_os_cursor_at(f.fd, rows, ROWS_BUFFER, h->rows_at, name),
                onescope_os_cursor_at(f.fd, f.buf, ONESCOPE_OS_READ_BUFFER, h->inputs_at, name)};
            onescope_os_replay_source source = {file_row, file_input, &s, NULL};
            rc = onescope_os_replay_verify_source(h, snapshot, &source, a, result, name, error);
        }
        onescope_os_free(a, rows_raw);
    }
    checked_close(&f, a);
    return rc;
}

onescope_code onescope_replay_step_input_file(const char *path,
                                              const onescope_parse_options *options, uint32_t index,
                                              onescope_sim_setup *setup, onescope_buffer *input,
                                              onescope_error *error) {
    if (path == NULL || input == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_replay_step_input_file",
                                OS_NO_OFFSET, NULL, NULL, "path and input must not be NULL");
    memset(input, 0, sizeof *input);
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    const char *name = onescope_os_input_name(path);
    checked_file f;
    onescope_code rc = checked_open(path, options, &f, error);
    if (rc == ONESCOPE_OK) {
        const uint8_t *snapshot;
        const onescope_os_ostm_head *h = onescope_os_ostm_check_head(f.check, &snapshot);
        if (setup != NULL) *setup = h->setup;
        if (index >= h->step_count) rc = no_step(index, h->step_count, name, error);
        /* the validated inputs, walked one length at a time through the buffer */
        file_source s;
        s.inputs = onescope_os_cursor_at(f.fd, f.buf, ONESCOPE_OS_READ_BUFFER, h->inputs_at, name);
        const uint8_t *data = NULL;
        size_t size = 0;
        uint64_t at;
        for (uint32_t i = 0; rc == ONESCOPE_OK && i <= index; i++)
            rc = file_input(&s, i, &data, &size, &at, error);
        if (rc == ONESCOPE_OK) rc = input_copy(data, size, a, input, name, error);
    }
    checked_close(&f, a);
    return rc;
}
