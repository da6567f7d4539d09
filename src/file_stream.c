/* Two file steps for a converter that must not hold its input (file_internal.h): an input read
 * in fixed chunks, counted against the input limit as onescope_file_read counts it, and an
 * unlinked scratch file written in order and read back at any offset. The syscalls stay in
 * the file layer; the formats see chunks and byte ranges. */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_internal.h"
#include "internal.h"
#include "onescope/file.h"
#include "onescope/format.h"

/* One chunk: the format detection's bytes fit the first one. */
#define CHUNK_BYTES ((size_t)1 << 20)
_Static_assert(CHUNK_BYTES >= ONESCOPE_FORMAT_DETECT_BYTES, "detection reads the first chunk");

/* The scratch file's write buffer. */
#define SCRATCH_BUFFER ((size_t)256 << 10)

static onescope_code io_fail(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL, "%s: %s", what,
                            strerror(errno));
}

/* ---- the input ---- */

struct onescope_os_file_chunks {
    const onescope_allocator *a;
    int fd;
    bool is_stdin, known;
    uint64_t expected; /* a regular file's size when opened */
    uint64_t seen;
    size_t limit;
    bool ended;
    onescope_code failed; /* an error said already (latched) */
    uint8_t *buf;         /* on a page (onescope_os_read_buffer): read(2) copies faster */
    void *raw;            /* what to free */
    const char *name;
};

/* The next chunk into c->buf, with the read path's verdicts: past the limit (of a stream), or
 * an end before the size a regular file had when opened. A failure latches. */
static onescope_code chunk_read(onescope_os_file_chunks *c, size_t *size, onescope_error *error) {
    *size = 0;
    if (c->failed) return c->failed;
    if (c->ended) return ONESCOPE_OK;
    ssize_t k = onescope_os_file_read_some(c->fd, c->buf, CHUNK_BYTES);
    if (k < 0) return c->failed = io_fail(error, c->name, "cannot read");
    c->seen += (uint64_t)k;
    if (!c->known && c->seen > c->limit)
        return c->failed = onescope_os_stream_too_large(c->limit, c->name, error);
    c->ended = k == 0;
    if (c->ended && c->known && c->seen < c->expected)
        return c->failed =
                   onescope_os_fail(error, ONESCOPE_E_IO, c->name, c->seen, "file size",
                                    "the size the file had when opened",
                                    "its end after %llu of %llu bytes (it shrank as it was read)",
                                    (unsigned long long)c->seen, (unsigned long long)c->expected);
    *size = (size_t)k;
    return ONESCOPE_OK;
}

void onescope_os_file_chunks_free(onescope_os_file_chunks *c) {
    if (c == NULL) return;
    if (c->fd >= 0 && !c->is_stdin) (void)close(c->fd);
    onescope_os_free(c->a, c->raw);
    onescope_os_free(c->a, c);
}

/* The chunks of an input already open (fd; owned: closed with the chunks, or at once on a
 * failure here). */
static onescope_code chunks_of_fd(int fd, bool owned, const char *name, size_t limit,
                                  const onescope_allocator *a, onescope_os_file_chunks **out,
                                  const uint8_t **first, size_t *first_size,
                                  onescope_error *error) {
    *out = NULL;
    onescope_os_file_chunks *c = onescope_os_calloc(a, 1, sizeof *c);
    void *raw = NULL;
    uint8_t *buf = c != NULL ? onescope_os_read_buffer(a, CHUNK_BYTES, &raw) : NULL;
    if (buf == NULL) {
        onescope_os_free(a, c);
        if (owned) (void)close(fd);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", CHUNK_BYTES);
    }
    c->a = a;
    c->buf = buf;
    c->raw = raw;
    c->name = name;
    c->limit = limit;
    c->fd = fd;
    c->is_stdin = !owned; /* not closed by onescope_os_file_chunks_free */
    struct stat st;
    onescope_code rc = ONESCOPE_OK;
    if (fstat(c->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        rc = io_fail(error, name, "cannot read");
    } else if (owned && fstat(c->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        /* a regular file's size is checked before a byte is read, as onescope_file_read does
         * (standard input's is not: it may stand anywhere in the file) */
        c->known = true;
        c->expected = (uint64_t)st.st_size;
        if ((uint64_t)st.st_size > limit)
            rc = onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)limit, "file size",
                                  "at most the input limit", "%lld bytes (limit %zu)",
                                  (long long)st.st_size, limit);
#ifdef POSIX_FADV_SEQUENTIAL
        else
            (void)posix_fadvise(c->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    if (rc == ONESCOPE_OK) rc = chunk_read(c, first_size, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_file_chunks_free(c);
        return rc;
    }
    *first = c->buf;
    *out = c;
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_chunks_open(const char *path, const char *name, size_t limit,
                                           const onescope_allocator *a,
                                           onescope_os_file_chunks **out, const uint8_t **first,
                                           size_t *first_size, onescope_error *error) {
    *out = NULL;
    /* opened once, as the read path opens: a FIFO waits for its writer */
    int fd = onescope_os_file_open_input(path, name, error);
    if (fd < 0) return ONESCOPE_E_IO;
    return chunks_of_fd(fd, strcmp(path, "-") != 0, name, limit, a, out, first, first_size, error);
}

bool onescope_os_file_chunks_more(void *user, const uint8_t **data, size_t *size,
                                  onescope_error *error) {
    onescope_os_file_chunks *c = user;
    *data = c->buf;
    return chunk_read(c, size, error) == ONESCOPE_OK;
}

onescope_code onescope_os_file_chunks_drain(onescope_os_file_chunks *c, onescope_error *error) {
    if (c->failed) return ONESCOPE_OK;
    size_t n = 1;
    while (!c->ended && n > 0) OS_TRY(chunk_read(c, &n, error));
    return ONESCOPE_OK;
}

/* ---- the scratch file ---- */

struct onescope_os_scratch {
    const onescope_allocator *a;
    int fd;
    uint64_t size; /* bytes appended, buffered ones included */
    uint8_t *buf;
    size_t used;
    const char *name;
    char dir[512];
};

/* The folder scratch files go to: $TMPDIR when it names one, else /tmp. */
static const char *scratch_dir(void) {
    const char *d = getenv("TMPDIR");
    return d != NULL && d[0] != 0 ? d : "/tmp";
}

/* An unnamed file in dir: O_TMPFILE where the file system has it, else a fresh name removed
 * at once. Either way nothing is left behind, even by a killed process (but in the window of
 * the fallback). */
static int scratch_create(const char *dir) {
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
    static unsigned counter;
    char path[640];
    for (int tries = 0; tries < 100; tries++) {
        snprintf(path, sizeof path, "%s/onescope-scratch-%ld-%u-%ld", dir, (long)getpid(),
                 counter++, (long)time(NULL));
        int named = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (named >= 0) {
            (void)unlink(path);
            return named;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

void onescope_os_scratch_free(onescope_os_scratch *s) {
    if (s == NULL) return;
    if (s->fd >= 0) (void)close(s->fd);
    onescope_os_free(s->a, s->buf);
    onescope_os_free(s->a, s);
}

onescope_code onescope_os_scratch_open(const char *name, const onescope_allocator *a,
                                       onescope_os_scratch **out, onescope_error *error) {
    *out = NULL;
    onescope_os_scratch *s = onescope_os_calloc(a, 1, sizeof *s);
    uint8_t *buf = s != NULL ? onescope_os_alloc(a, SCRATCH_BUFFER) : NULL;
    if (buf == NULL) {
        onescope_os_free(a, s);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", SCRATCH_BUFFER);
    }
    s->a = a;
    s->buf = buf;
    s->name = name;
    onescope_os_copy_text(s->dir, sizeof s->dir, scratch_dir());
    s->fd = scratch_create(s->dir);
    if (s->fd < 0) {
        onescope_code rc = onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL,
                                            "cannot create a scratch file in %s: %s",
                                            OS_ECHO(s->dir), strerror(errno));
        onescope_os_scratch_free(s);
        return rc;
    }
    *out = s;
    return ONESCOPE_OK;
}

static onescope_code scratch_write_fail(onescope_os_scratch *s, onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_IO, s->name, OS_NO_OFFSET, NULL, NULL,
                            "cannot write the scratch file in %s: %s", OS_ECHO(s->dir),
                            strerror(errno));
}

static onescope_code scratch_write(onescope_os_scratch *s, const uint8_t *p, size_t n,
                                   onescope_error *error) {
    while (n > 0) {
        ssize_t k = write(s->fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = ENOSPC;
            return scratch_write_fail(s, error);
        }
        p += k;
        n -= (size_t)k;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_os_scratch_flush(onescope_os_scratch *s, onescope_error *error) {
    size_t n = s->used;
    s->used = 0; /* a failure latches in the caller: the bytes are not tried twice */
    return scratch_write(s, s->buf, n, error);
}

onescope_code onescope_os_scratch_append(onescope_os_scratch *s, const void *data, size_t n,
                                         onescope_error *error) {
    if (n > SCRATCH_BUFFER - s->used) OS_TRY(onescope_os_scratch_flush(s, error));
    if (n > SCRATCH_BUFFER) {
        OS_TRY(scratch_write(s, data, n, error));
    } else {
        memcpy(s->buf + s->used, data, n);
        s->used += n;
    }
    s->size += n;
    return ONESCOPE_OK;
}

uint64_t onescope_os_scratch_size(const onescope_os_scratch *s) {
    return s->size;
}

onescope_code onescope_os_scratch_read(onescope_os_scratch *s, uint64_t offset, void *data,
                                       size_t n, onescope_error *error) {
    if (s->used > 0) OS_TRY(onescope_os_scratch_flush(s, error));
    uint8_t *p = data;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(s->fd, p + got, n - got, (off_t)(offset + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0)
            return onescope_os_fail(error, ONESCOPE_E_IO, s->name, OS_NO_OFFSET, NULL, NULL,
                                    "cannot read the scratch file in %s: %s", OS_ECHO(s->dir),
                                    strerror(errno));
        if (k == 0)
            return onescope_os_fail(error, ONESCOPE_E_IO, s->name, OS_NO_OFFSET, NULL, NULL,
                                    "cannot read the scratch file in %s: it ended after %llu "
                                    "bytes (it was written to %llu)",
                                    OS_ECHO(s->dir), (unsigned long long)(offset + got),
                                    (unsigned long long)s->size);
        got += (size_t)k;
    }
    return ONESCOPE_OK;
}

/* ---- a stream spooled ---- */

/* The chunks c copied into a new scratch file; c is freed. */
static onescope_code spool_chunks(onescope_os_file_chunks *c, const uint8_t *p, size_t n,
                                  const char *name, const onescope_allocator *a,
                                  onescope_os_scratch **out, int *fd, uint64_t *size,
                                  onescope_error *error) {
    onescope_os_scratch *s = NULL;
    onescope_code rc = onescope_os_scratch_open(name, a, &s, error);
    while (rc == ONESCOPE_OK && n > 0) {
        rc = onescope_os_scratch_append(s, p, n, error);
        if (rc == ONESCOPE_OK && !onescope_os_file_chunks_more(c, &p, &n, error)) rc = error->code;
    }
    onescope_os_file_chunks_free(c);
    if (rc == ONESCOPE_OK) rc = onescope_os_scratch_flush(s, error);
    if (rc == ONESCOPE_OK && lseek(s->fd, 0, SEEK_SET) != 0)
        rc = onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL,
                              "cannot read the scratch file in %s: %s", OS_ECHO(s->dir),
                              strerror(errno));
    if (rc != ONESCOPE_OK) {
        onescope_os_scratch_free(s);
        return rc;
    }
    *out = s;
    *fd = s->fd;
    *size = s->size;
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_spool(const char *path, const char *name, size_t limit,
                                     const onescope_allocator *a, onescope_os_scratch **out,
                                     int *fd, uint64_t *size, onescope_error *error) {
    onescope_error local; /* the loop reads the code of the error it fills */
    if (error == NULL) error = &local;
    *out = NULL;
    *fd = -1;
    *size = 0;
    onescope_os_file_chunks *c;
    const uint8_t *p = NULL;
    size_t n = 0;
    OS_TRY(onescope_os_file_chunks_open(path, name, limit, a, &c, &p, &n, error));
    return spool_chunks(c, p, n, name, a, out, fd, size, error);
}

onescope_code onescope_os_fd_spool(int in, bool owned, const char *name, size_t limit,
                                   const onescope_allocator *a, onescope_os_scratch **out, int *fd,
                                   uint64_t *size, onescope_error *error) {
    onescope_error local;
    if (error == NULL) error = &local;
    *out = NULL;
    *fd = -1;
    *size = 0;
    onescope_os_file_chunks *c;
    const uint8_t *p = NULL;
    size_t n = 0;
    OS_TRY(chunks_of_fd(in, owned, name, limit, a, &c, &p, &n, error));
    return spool_chunks(c, p, n, name, a, out, fd, size, error);
}

onescope_code onescope_file_spool(const char *path, const onescope_parse_options *options, int *fd,
                                  onescope_error *error) {
    if (fd != NULL) *fd = -1;
    if (path == NULL || fd == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_file_spool", OS_NO_OFFSET,
                                NULL, NULL, "path and fd must not be NULL");
    onescope_os_scratch *s;
    uint64_t size;
    OS_TRY(onescope_os_file_spool(
        path, strcmp(path, "-") == 0 ? "<stdin>" : path, onescope_os_input_limit(options),
        options != NULL ? options->allocator : NULL, &s, fd, &size, error));
    s->fd = -1; /* the caller's now */
    onescope_os_scratch_free(s);
    return ONESCOPE_OK;
}

onescope_code onescope_file_open_input(const char *path, const onescope_parse_options *options,
                                       int *fd, onescope_error *error) {
    if (fd != NULL) *fd = -1;
    if (path == NULL || fd == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_file_open_input",
                                OS_NO_OFFSET, NULL, NULL, "path and fd must not be NULL");
    onescope_os_scratch *s;
    uint64_t size;
    OS_TRY(onescope_os_file_open_seekable(path, options, fd, &size, &s, error));
    if (s != NULL) {
        s->fd = -1; /* the caller's now */
        onescope_os_scratch_free(s);
    }
    return ONESCOPE_OK;
}
