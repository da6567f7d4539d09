/* The library's only file I/O: bounded whole-file reads, atomic writes (temp file, fsync,
 * rename), and every format's _read_file/_write_file built on those two. The format files
 * (src/pose_cache.c, src/replay.c, ...) only turn bytes into structs and back. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "replay_internal.h" /* the replay's allocator for the temporary bytes */
#include "onescope/file.h"
#include "onescope/pose_cache.h"
#include "onescope/replay.h"

static onescope_code io_fail(onescope_error *error, const char *path, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_IO, path, OS_NO_OFFSET, NULL, NULL, "%s: %s", what,
                            strerror(errno));
}

onescope_code onescope_file_read(const char *path, size_t max_bytes,
                                 const onescope_allocator *allocator, onescope_buffer *out,
                                 onescope_error *error) {
    if (path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_file_read", OS_NO_OFFSET,
                                NULL, NULL, "path and out must not be NULL");
    memset(out, 0, sizeof *out);
    if (max_bytes == 0) max_bytes = ONESCOPE_MAX_INPUT_BYTES; /* as in onescope_os_input_limit */
    bool is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_fail(error, name, "cannot open");

    struct stat st;
    size_t cap = 64 * 1024;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > max_bytes) {
            if (!is_stdin) close(fd);
            return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)max_bytes,
                                    "file size", "at most the input limit",
                                    "%lld bytes (limit %zu)", (long long)st.st_size, max_bytes);
        }
        cap = (size_t)st.st_size + 1; /* +1 so end of file is seen without a resize */
    } else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin) close(fd);
        errno = EISDIR;
        return io_fail(error, name, "cannot read");
    }

    uint8_t *data = onescope_os_alloc(allocator, cap);
    size_t size = 0;
    onescope_code rc = ONESCOPE_OK;
    for (;;) {
        if (data == NULL) {
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                  "cannot allocate %zu bytes", cap);
            break;
        }
        if (size == cap) {
            if (cap > max_bytes) {
                rc = onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)max_bytes,
                                      "file size", "at most the input limit", "more than %zu bytes",
                                      max_bytes);
                break;
            }
            size_t ncap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
            uint8_t *p = onescope_os_alloc(allocator, ncap);
            if (p != NULL) memcpy(p, data, size);
            onescope_os_free(allocator, data);
            data = p;
            cap = ncap;
            continue;
        }
        ssize_t n = read(fd, data + size, cap - size);
        if (n < 0) {
            if (errno == EINTR) continue;
            rc = io_fail(error, name, "cannot read");
            break;
        }
        if (n == 0) break;
        size += (size_t)n;
    }
    if (!is_stdin) close(fd);
    if (rc == ONESCOPE_OK && size > max_bytes)
        rc = onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)max_bytes, "file size",
                              "at most the input limit", "more than %zu bytes", max_bytes);
    if (rc != ONESCOPE_OK) {
        onescope_os_free(allocator, data);
        return rc;
    }
    out->data = data;
    out->size = size;
    out->allocator = allocator;
    return ONESCOPE_OK;
}

static bool write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += k;
        n -= (size_t)k;
    }
    return true;
}

onescope_code onescope_file_write(const char *path, const void *data, size_t size,
                                  onescope_error *error) {
    if (path == NULL || (data == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_file_write", OS_NO_OFFSET,
                                NULL, NULL, "path and data must not be NULL");
    if (strcmp(path, "-") == 0) {
        if (!write_all(STDOUT_FILENO, data, size))
            return io_fail(error, "<stdout>", "cannot write");
        return ONESCOPE_OK;
    }
    size_t len = strlen(path);
    char *tmp = onescope_os_alloc(NULL, len + 16);
    if (tmp == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, path, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate a temporary name");
    /* Not mkstemp: it creates mode 0600, and fixing that needs the process umask, which
     * another thread may be using. open() with 0666 lets the kernel apply the umask. */
    int fd = -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^
                    ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&now;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        snprintf(tmp, len + 16, "%s.tmp-%06llx", path, (unsigned long long)(seed >> 40));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        onescope_code rc = io_fail(error, path, "cannot create a temporary file");
        onescope_os_free(NULL, tmp);
        return rc;
    }
    onescope_code rc = ONESCOPE_OK;
    if (!write_all(fd, data, size))
        rc = io_fail(error, path, "cannot write");
    else if (fsync(fd) != 0)
        rc = io_fail(error, path, "cannot sync");
    if (close(fd) != 0 && rc == ONESCOPE_OK) rc = io_fail(error, path, "cannot close");
    if (rc == ONESCOPE_OK && rename(tmp, path) != 0)
        rc = io_fail(error, path, "cannot rename into place");
    if (rc != ONESCOPE_OK) unlink(tmp);
    onescope_os_free(NULL, tmp);
    return rc;
}

/* ---- the streaming writers' file steps (src/pose_writer.c): no buffering here, the
 * writer owns its buffer and decides when bytes go out ---- */

int onescope_os_file_create_new(const char *path, const char *name, onescope_error *error) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST)
            onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL,
                             "cannot create %s: it exists (a crashed recording? recover it or "
                             "remove it)",
                             path);
        else
            onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL,
                             "cannot create %s: %s", path, strerror(errno));
    }
    return fd;
}

onescope_code onescope_os_file_write_fd(int fd, const void *data, size_t n, const char *name,
                                        onescope_error *error) {
    if (!write_all(fd, data, n)) return io_fail(error, name, "cannot write");
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_patch_fd(int fd, uint64_t offset, const void *data, size_t n,
                                        const char *name, onescope_error *error) {
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)offset);
        if (k < 0) {
            if (errno == EINTR) continue;
            return io_fail(error, name, "cannot write");
        }
        p += k;
        offset += (uint64_t)k;
        n -= (size_t)k;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_sync_fd(int fd, const char *name, onescope_error *error) {
    if (fsync(fd) != 0) return io_fail(error, name, "cannot sync");
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_close_fd(int fd, const char *name, onescope_error *error) {
    if (close(fd) != 0) return io_fail(error, name, "cannot close");
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_rename(const char *from, const char *to, const char *name,
                                      onescope_error *error) {
    if (rename(from, to) != 0) return io_fail(error, name, "cannot rename into place");
    return ONESCOPE_OK;
}

void onescope_os_file_remove(const char *path) {
    (void)unlink(path);
}

bool onescope_file_same(const char *a, const char *b) {
    struct stat sa, sb;
    if (a == NULL || b == NULL) return false;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- every format's file conveniences: one read path, one write path ----
 * A read is onescope_file_read under the options' limit (0: the default) and allocator,
 * then the format's parser on those bytes under the name messages use for the input; the
 * parser checks the limit again, so a file and the same bytes in memory get the same
 * verdict. A write is the format's writer, then onescope_file_write. */

static const char *input_name(const char *path) {
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

static onescope_code read_input(const char *path, const onescope_parse_options *options,
                                onescope_buffer *buf, onescope_error *error) {
    return onescope_file_read(path, onescope_os_input_limit(options),
                              options != NULL ? options->allocator : NULL, buf, error);
}

/* Writes a writer's buffer out and frees it, whatever happens. */
static onescope_code write_output(const char *path, onescope_buffer *buf, onescope_error *error) {
    onescope_code rc = onescope_file_write(path, buf->data, buf->size, error);
    onescope_buffer_free(buf);
    return rc;
}

onescope_code onescope_pose_cache_read_file(const char *path, const onescope_parse_options *options,
                                            onescope_pose_cache **out, onescope_error *error) {
    if (path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_cache_read_file",
                                OS_NO_OFFSET, NULL, NULL, "path and out must not be NULL");
    *out = NULL;
    onescope_buffer buf;
    OS_TRY(read_input(path, options, &buf, error));
    onescope_code rc =
        onescope_pose_cache_parse(buf.data, buf.size, input_name(path), options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

onescope_code onescope_pose_cache_write_file(const onescope_pose_cache *c, const char *path,
                                             onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_pose_cache_write(c, c != NULL ? c->allocator : NULL, &buf, error));
    return write_output(path, &buf, error);
}

onescope_code onescope_replay_read_file(const char *path, const onescope_parse_options *options,
                                        onescope_replay **out, onescope_error *error) {
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "<ostm>", OS_NO_OFFSET, "path",
                                "non-NULL", NULL);
    onescope_buffer buf;
    OS_TRY(read_input(path, options, &buf, error));
    onescope_code rc =
        onescope_replay_parse(buf.data, buf.size, input_name(path), options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

onescope_code onescope_replay_write_file(const onescope_replay *r, const char *path,
                                         onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_replay_write(r, r != NULL ? r->allocator : NULL, &buf, error));
    return write_output(path, &buf, error);
}
