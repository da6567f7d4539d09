/* The library's file steps, knowing no format: bounded whole-file reads, the streamed
 * validate (a pump feeding whichever codec detection names), cursors over a validated file,
 * the one landing (temporary, fsync, rename) and its sink, and the one streamed recovery.
 * Each format's _read_file/_write_file and streamed reads are its file glue
 * (src/<format>_file.c), built from these; the format files only turn bytes into structs. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_internal.h"
#include "file_internal.h"
#include "internal.h"
#include "onescope/file.h"

static onescope_code io_fail(onescope_error *error, const char *path, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_IO, path, OS_NO_OFFSET, NULL, NULL, "%s: %s", what,
                            strerror(errno));
}

/* Every read of a named input opens it here, once: a FIFO waits for its writer as any reader
 * of a named pipe does (a writer that connects a moment later is read, not taken for an
 * empty input; docs/hardening.md, "Inputs are opened once"), so the bytes a command reads
 * are those its one open found. */
static int open_read(const char *path) {
    int fd;
    do fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

/* A file that must be a regular file (a partial to recover, a writer's own partial): opened
 * without blocking, so a FIFO in its place is refused at once rather than waited on. */
static int open_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int onescope_os_file_open_input(const char *path, const char *name, onescope_error *error) {
    if (strcmp(path, "-") == 0) return STDIN_FILENO;
    int fd = open_read(path);
    if (fd < 0) io_fail(error, name, "cannot open");
    return fd;
}

/* The read path's size rule for a regular file, shared by every reader of this file so a
 * file gets the same verdict whichever way it is read. */
static onescope_code check_file_size(const char *name, const struct stat *st, size_t max_bytes,
                                     onescope_error *error) {
    if ((uint64_t)st->st_size <= max_bytes) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)max_bytes, "file size",
                            "at most the input limit", "%lld bytes (limit %zu)",
                            (long long)st->st_size, max_bytes);
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
    int fd = is_stdin ? STDIN_FILENO : open_read(path);
    if (fd < 0) return io_fail(error, name, "cannot open");

    struct stat st;
    /* A stream of unknown length: never more than limit + 1 bytes, the one byte that proves
     * the input too long. */
    size_t most = max_bytes < SIZE_MAX ? max_bytes + 1 : SIZE_MAX;
    size_t cap = most < 64 * 1024 ? most : 64 * 1024;
    size_t expected = 0; /* a regular file's size: an earlier end means it shrank as it was read */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (check_file_size(name, &st, max_bytes, error) != ONESCOPE_OK) {
            if (!is_stdin) close(fd);
            return ONESCOPE_E_TOO_LARGE;
        }
        cap = (size_t)st.st_size + 1; /* +1 so end of file is seen without a resize */
        expected = (size_t)st.st_size;
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
                rc = onescope_os_stream_too_large(max_bytes, name, error);
                break;
            }
            /* Doubling, but a doubling that would reach the limit goes to limit + 1 at once:
             * growing from a full limit-sized buffer would hold two copies of the input. */
            size_t ncap = cap >= max_bytes - cap ? most : cap * 2;
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
        if (n == 0) {
            if (size < expected)
                rc = onescope_os_fail(error, ONESCOPE_E_IO, name, (uint64_t)size, "file size",
                                      "the size the file had when opened",
                                      "its end after %zu of %zu bytes (it shrank as it was read)",
                                      size, expected);
            break;
        }
        size += (size_t)n;
    }
    /* No check of size against the limit here: the buffer never holds more than limit + 1
     * bytes, and the loop refuses as soon as it is full with that one byte too many. */
    if (!is_stdin) close(fd);
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

/* ---- where a write lands (docs/hardening.md, "### files") ----
 * A regular file (or none) is replaced atomically, keeping an existing file's mode and owner;
 * a symlink is followed and the file it names is replaced, so the link stays a link (a
 * dangling link gets its target created, as a shell's `>` would); a device, FIFO or socket
 * is written in place, never replaced by a regular file. */

static char *copy_path(const onescope_allocator *a, const char *s, size_t n) {
    char *p = onescope_os_alloc(a, n + 1);
    if (p != NULL) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* The name a dangling symlink chain ends at (lstat finds nothing there); NULL when out of
 * memory. */
static char *follow_dangling(const onescope_allocator *a, const char *path) {
    char *cur = copy_path(a, path, strlen(path));
    /* stat() has just said ENOENT, so this chain ends; the bound only guards against links
     * changed meanwhile. */
    for (int hops = 0; cur != NULL && hops < 40; hops++) {
        struct stat st;
        char link[PATH_MAX];
        ssize_t n;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode) ||
            (n = readlink(cur, link, sizeof link - 1)) < 0)
            return cur; /* the name to create; a vanished link fails at the create */
        link[n] = '\0';
        /* A relative link is relative to the directory holding it. */
        const char *slash = strrchr(cur, '/');
        size_t dir = link[0] == '/' || slash == NULL ? 0 : (size_t)(slash - cur) + 1;
        char *next = onescope_os_alloc(a, dir + (size_t)n + 1);
        if (next != NULL) {
            memcpy(next, cur, dir);
            memcpy(next + dir, link, (size_t)n + 1);
        }
        onescope_os_free(a, cur);
        cur = next;
    }
    return cur;
}

onescope_code onescope_os_target_resolve(const char *path, const char *name,
                                         const onescope_allocator *a, onescope_os_target *out,
                                         onescope_error *error) {
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode) ||
            S_ISSOCK(st.st_mode)) {
            /* The path itself, links and all: /dev/stdout's /proc links only open this way. */
            out->special = true;
            out->path = copy_path(a, path, strlen(path));
        } else if (S_ISREG(st.st_mode)) {
            out->exists = true;
            out->mode = (uint32_t)(st.st_mode & 07777);
            out->uid = (uint32_t)st.st_uid;
            out->gid = (uint32_t)st.st_gid;
            char *real = realpath(path, NULL);
            if (real == NULL) return io_fail(error, name, "cannot resolve the output's links");
            out->path = copy_path(a, real, strlen(real));
            free(real);
        } else {
            /* A directory: the rename onto it fails and says so. */
            out->path = copy_path(a, path, strlen(path));
        }
    } else if (errno == ENOENT) {
        out->path = follow_dangling(a, path);
    } else {
        return io_fail(error, name, "cannot inspect the output");
    }
    if (out->path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate the output's name");
    return ONESCOPE_OK;
}

void onescope_os_target_free(onescope_os_target *t, const onescope_allocator *a) {
    onescope_os_free(a, t->path);
    t->path = NULL;
}

onescope_code onescope_os_target_adopt(const onescope_os_target *t, int fd, const char *name,
                                       onescope_error *error) {
    if (!t->exists) return ONESCOPE_OK;
    /* Owner first: chown clears set-id bits, the chmod after it restores them. Only root
     * may give a file away, so EPERM just leaves the writer as owner. */
    if (fchown(fd, (uid_t)t->uid, (gid_t)t->gid) != 0 && errno != EPERM)
        return io_fail(error, name, "cannot keep the output's owner");
    if (fchmod(fd, (mode_t)t->mode) != 0)
        return io_fail(error, name, "cannot keep the output's mode");
    return ONESCOPE_OK;
}

/* ".tmp-" and six hex digits after the (possibly shortened) file name. */
#define TEMP_SUFFIX_LEN 11

onescope_code onescope_os_target_create_temp(const onescope_os_target *t,
                                             const onescope_allocator *a, const char *name,
                                             int *fd_out, char **tmp_out, onescope_error *error) {
    *fd_out = -1;
    *tmp_out = NULL;
    const char *slash = strrchr(t->path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - t->path) + 1 : 0;
    size_t base = strlen(t->path + dir);
    /* The temporary sits in the same directory (rename is atomic only there) and must be a
     * legal name there: a long name's base is cut, at a UTF-8 character boundary. */
    if (base > NAME_MAX - TEMP_SUFFIX_LEN) {
        base = NAME_MAX - TEMP_SUFFIX_LEN;
        while (base > 0 && ((uint8_t)t->path[dir + base] & 0xC0) == 0x80) base--;
    }
    size_t room = dir + base + TEMP_SUFFIX_LEN + 1;
    char *tmp = onescope_os_alloc(a, room);
    if (tmp == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate a temporary name");
    /* Not mkstemp: it creates mode 0600, and fixing that needs the process umask, which
     * another thread may be using. open() lets the kernel apply the umask; a file being
     * replaced lends its own permissions, so its bytes are never readable by more people
     * while they are written than they are now. */
    mode_t mode = t->exists ? (mode_t)(t->mode & 0666) : 0666;
    int fd = -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^
                    ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&now;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        snprintf(tmp, room, "%.*s.tmp-%06llx", (int)(dir + base), t->path,
                 (unsigned long long)(seed >> 40));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        onescope_code rc = io_fail(error, name, "cannot create a temporary file");
        onescope_os_free(a, tmp);
        return rc;
    }
    *fd_out = fd;
    *tmp_out = tmp;
    return ONESCOPE_OK;
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
    /* one output in one piece: the sink's landing, as every writer's */
    onescope_os_file_sink *sink;
    OS_TRY(onescope_os_file_sink_open(path, NULL, &sink, error));
    onescope_code rc = onescope_os_file_sink_write(sink, data, size, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_file_sink_discard(sink);
        return rc;
    }
    return onescope_os_file_sink_commit(sink, error);
}

/* ---- the streaming writers' file steps (src/pose_writer.c): no buffering here, the
 * writer owns its buffer and decides when bytes go out ---- */

int onescope_os_file_create_new(const char *path, const char *name, onescope_error *error) {
    (void)name;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    /* The line names the file that could not be created, so the reason always fits. */
    if (fd < 0) {
        if (errno == EEXIST)
            onescope_os_fail(error, ONESCOPE_E_IO, path, OS_NO_OFFSET, NULL, NULL,
                             "it exists (a crashed recording? recover it or remove it)");
        else
            onescope_os_fail(error, ONESCOPE_E_IO, path, OS_NO_OFFSET, NULL, NULL,
                             "cannot create: %s", strerror(errno));
    }
    return fd;
}

/* ---- what the two streaming writers share ---- */

onescope_code onescope_os_recording_target(const char *path, const onescope_allocator *a,
                                           onescope_os_target *t, onescope_error *error) {
    OS_TRY(onescope_os_target_resolve(path, path, a, t, error));
    struct stat st;
    const char *found = NULL;
    if (t->special)
        found = "a device, FIFO or socket";
    else if (stat(t->path, &st) == 0 && S_ISDIR(st.st_mode))
        found = "a directory";
    if (found == NULL) return ONESCOPE_OK;
    onescope_os_target_free(t, a);
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, path, OS_NO_OFFSET, "output",
                            "a regular file (a recording is renamed into place)", "%s", found);
}

char *onescope_os_partial_name(const char *target, const onescope_allocator *a) {
    const size_t suffix = sizeof ONESCOPE_OS_PARTIAL_SUFFIX - 1;
    const char *slash = strrchr(target, '/');
    size_t dir = slash != NULL ? (size_t)(slash - target) + 1 : 0;
    size_t base = strlen(target + dir);
    if (base > NAME_MAX - suffix) {
        base = NAME_MAX - suffix;
        while (base > 0 && ((uint8_t)target[dir + base] & 0xC0) == 0x80) base--;
    }
    char *p = onescope_os_alloc(a, dir + base + suffix + 1);
    if (p != NULL) {
        memcpy(p, target, dir + base);
        memcpy(p + dir + base, ONESCOPE_OS_PARTIAL_SUFFIX, suffix + 1);
    }
    return p;
}

bool onescope_os_partial_named(const char *name) {
    size_t n = strlen(name), m = sizeof ONESCOPE_OS_PARTIAL_SUFFIX - 1;
    return n > m && strcmp(name + n - m, ONESCOPE_OS_PARTIAL_SUFFIX) == 0;
}

onescope_code onescope_os_recover_names(const char *partial, const char *out_path, const char *call,
                                        const onescope_allocator *a, const char **out,
                                        char **derived, onescope_error *error) {
    *out = NULL;
    *derived = NULL;
    if (partial == NULL || partial[0] == '\0' || strcmp(partial, "-") == 0 ||
        (out_path != NULL && (out_path[0] == '\0' || strcmp(out_path, "-") == 0)))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, partial != NULL ? partial : call,
                                OS_NO_OFFSET, NULL, NULL,
                                "a partial file and an output file (not \"-\": a recovery is "
                                "written atomically) are needed");
    if (out_path == NULL) {
        size_t n = strlen(partial), m = sizeof ONESCOPE_OS_PARTIAL_SUFFIX - 1;
        if (!onescope_os_partial_named(partial) || partial[n - m - 1] == '/')
            return onescope_os_fail(
                error, ONESCOPE_E_ARGUMENT, partial, OS_NO_OFFSET, "output name",
                "one given, or a partial name ending in \".partial\"", "neither");
        *derived = copy_path(a, partial, n - m);
        if (*derived == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, partial, OS_NO_OFFSET, NULL, NULL,
                                    "could not allocate the output name");
        out_path = *derived;
    }
    if (onescope_file_same(partial, out_path)) {
        onescope_os_free(a, *derived);
        *derived = NULL;
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, partial, OS_NO_OFFSET, "output",
                                "a file other than the partial", "%s", "the partial itself");
    }
    *out = out_path;
    return ONESCOPE_OK;
}

static uint64_t monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void onescope_os_flush_rule_init(onescope_os_flush_rule *r, uint32_t every, uint32_t every_ms,
                                 bool fsync) {
    r->every = every != 0 ? every : ONESCOPE_FLUSH_DEFAULT_RECORDS;
    r->every_ms = every_ms != 0 ? every_ms : ONESCOPE_FLUSH_DEFAULT_MS;
    r->fsync = fsync;
    r->pending = 0;
    r->last_ms = r->every_ms != ONESCOPE_FLUSH_NEVER ? monotonic_ms() : 0;
}

bool onescope_os_flush_due(onescope_os_flush_rule *r) {
    r->pending++;
    if (r->every != ONESCOPE_FLUSH_NEVER && r->pending >= r->every) return true;
    return r->every_ms != ONESCOPE_FLUSH_NEVER && monotonic_ms() - r->last_ms >= r->every_ms;
}

void onescope_os_flush_done(onescope_os_flush_rule *r) {
    r->pending = 0;
    if (r->every_ms != ONESCOPE_FLUSH_NEVER) r->last_ms = monotonic_ms();
}

onescope_code onescope_os_writer_refuse(onescope_error *error, const char *name, const char *call,
                                        bool closed, const char *unit) {
    if (closed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, name, OS_NO_OFFSET, call,
                                "an open writer", "one already closed");
    return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, name, OS_NO_OFFSET, call, "an open writer",
                            "one that failed earlier (its partial keeps every complete %s: "
                            "recover it)",
                            unit);
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

onescope_code onescope_os_file_land(int fd, const char *from, const char *to, bool sync,
                                    const char *name, onescope_error *error) {
    onescope_code rc = sync ? onescope_os_file_sync_fd(fd, name, error) : ONESCOPE_OK;
    onescope_code closed = onescope_os_file_close_fd(fd, name, rc == ONESCOPE_OK ? error : NULL);
    if (rc == ONESCOPE_OK) rc = closed;
    if (rc == ONESCOPE_OK && from != NULL) rc = onescope_os_file_rename(from, to, name, error);
    return rc;
}

void onescope_os_file_remove(const char *path) {
    if (path != NULL) (void)unlink(path);
}

bool onescope_file_same(const char *a, const char *b) {
    struct stat sa, sb;
    if (a == NULL || b == NULL) return false;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
/* ---- for every format's file glue (src/<format>_file.c, file_internal.h) ----
 * A read is onescope_file_read under the options' limit (0: the default) and allocator; the
 * format's parser then checks the limit again, so a file and the same bytes in memory get the
 * same verdict. A write is the format's writer, then onescope_file_write. */

onescope_code onescope_os_io_fail(onescope_error *error, const char *name, const char *what) {
    return io_fail(error, name, what);
}

const char *onescope_os_input_name(const char *path) {
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

onescope_code onescope_os_file_read_input(const char *path, const onescope_parse_options *options,
                                          onescope_buffer *buf, onescope_error *error) {
    return onescope_file_read(path, onescope_os_input_limit(options),
                              options != NULL ? options->allocator : NULL, buf, error);
}

onescope_code onescope_os_file_write_buffer(const char *path, onescope_buffer *buf,
                                            onescope_error *error) {
    onescope_code rc = onescope_file_write(path, buf->data, buf->size, error);
    onescope_buffer_free(buf);
    return rc;
}

onescope_code onescope_os_file_open_seekable(const char *path,
                                             const onescope_parse_options *options, int *fd,
                                             uint64_t *size, onescope_os_scratch **spool,
                                             onescope_error *error) {
    *fd = -1;
    *size = 0;
    *spool = NULL;
    const char *name = onescope_os_input_name(path);
    int f = onescope_os_file_open_input(path, name, error);
    if (f < 0) return ONESCOPE_E_IO;
    bool is_stdin = strcmp(path, "-") == 0;
    struct stat st;
    /* Standard input's size is never taken from fstat: it may stand anywhere in the file. */
    if (!is_stdin && fstat(f, &st) == 0 && S_ISREG(st.st_mode)) {
        onescope_code rc = check_file_size(path, &st, onescope_os_input_limit(options), error);
        if (rc != ONESCOPE_OK) {
            close(f);
            return rc;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(f, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        *fd = f;
        *size = (uint64_t)st.st_size;
        return ONESCOPE_OK;
    }
    /* anything else is read once, into a scratch file, from the descriptor opened here */
    return onescope_os_fd_spool(f, !is_stdin, name, onescope_os_input_limit(options),
                                options != NULL ? options->allocator : NULL, spool, fd, size,
                                error);
}

/* ---- validation in constant memory ----
 * A regular file is read once through one fixed buffer and fed to its format's push
 * validator (OSPC: src/pose_cache.c; OSTM: src/replay.c; OSLS: the live decoder,
 * incremental already). Everything
 * else goes through the one read path and the format's parser, which is what the streamed
 * formats' validators reproduce byte for byte. */

#define VALIDATE_BUFFER ONESCOPE_OS_READ_BUFFER
/* the first read is what detection sees, and what the OTS readers check it against */
_Static_assert(VALIDATE_BUFFER >= ONESCOPE_FORMAT_DETECT_BYTES, "detection reads one buffer");

/* A read buffer that starts on a page: read(2) copies into a buffer 16 bytes past a page
 * boundary about five times slower than into an aligned one (measured on this project's
 * x86-64 machines: validate of a 250 MiB cache went from 4.6x cat's time to near it).
 * *raw is what to free. */
#define READ_ALIGN ((size_t)4096)
uint8_t *onescope_os_read_buffer(const onescope_allocator *a, size_t size, void **raw) {
    *raw = onescope_os_alloc(a, size + READ_ALIGN);
    if (*raw == NULL) return NULL;
    uintptr_t p = (uintptr_t)*raw;
    return (uint8_t *)*raw + ((READ_ALIGN - p % READ_ALIGN) % READ_ALIGN);
}

/* The whole-file way: the one read path, then the format's parser. */
static onescope_code validate_whole(const char *path, const onescope_parse_options *options,
                                    onescope_format *format, onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_os_file_read_input(path, options, &buf, error));
    *format = onescope_format_detect(buf.data, buf.size);
    const onescope_os_codec *codec = onescope_os_codec_of(*format);
    const char *name = onescope_os_input_name(path);
    onescope_code rc = codec != NULL ? codec->parse(buf.data, buf.size, name, options, error)
                                     : onescope_os_format_unknown(buf.data, buf.size, name, error);
    onescope_buffer_free(&buf);
    return rc;
}

ssize_t onescope_os_file_read_some(int fd, uint8_t *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* ---- the pump: a file fed to its format's codec (check_internal.h) through one buffer ----
 * The source refills the buffer; an input of unknown size (a pipe, standard input) is
 * counted against the limit as it comes, which is what the parser checks first. */
typedef struct pump_source {
    int fd;
    uint8_t *buf;
    const char *name;
    bool known;
    size_t limit;
    uint64_t seen;
    bool ended, failed; /* failed: the source itself stopped (a read error, the limit) */
} pump_source;

static bool pump_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    pump_source *s = user;
    ssize_t k = onescope_os_file_read_some(s->fd, s->buf, VALIDATE_BUFFER);
    if (k < 0) {
        s->failed = true;
        io_fail(error, s->name, "cannot read");
        return false;
    }
    s->seen += (uint64_t)k;
    if (!s->known && s->seen > s->limit) {
        s->failed = true;
        onescope_os_stream_too_large(s->limit, s->name, error);
        return false;
    }
    s->ended = k == 0;
    *data = s->buf;
    *size = (size_t)k;
    return true;
}

/* Reads on after a check stopped early: an input of unknown size over the limit gets the
 * parser's verdict (the limit first; the errors already handed to on_error stay said:
 * docs/hardening.md). OK when it ended within the limit. */
static onescope_code drain(pump_source *s, onescope_error *error) {
    const uint8_t *p;
    size_t n;
    while (!s->ended)
        if (!pump_more(s, &p, &n, error)) return error->code;
    return ONESCOPE_OK;
}

static pump_source pump_source_of(int fd, uint8_t *buf, size_t n, const char *name, bool known,
                                  size_t limit) {
    pump_source s = {fd, buf, name, known, limit, n, n == 0, false};
    return s;
}

/* The one pump: s->buf holds the input's first n bytes (detection's); codec NULL for an input
 * of no known format. */
static onescope_code pump(const onescope_os_codec *codec, pump_source *s, size_t n, size_t total,
                          const onescope_parse_options *options, onescope_error *error) {
    if (!s->known && s->seen > s->limit)
        return onescope_os_stream_too_large(s->limit, s->name, error);
    if (codec == NULL) {
        uint8_t magic[4];
        size_t m = n < sizeof magic ? n : sizeof magic;
        memcpy(magic, s->buf, m); /* drain reuses the buffer */
        OS_TRY(s->known ? ONESCOPE_OK : drain(s, error));
        return onescope_os_format_unknown(magic, m, s->name, error);
    }
    onescope_code rc =
        onescope_os_codec_check(codec, s->buf, n, total, pump_more, s, s->name, options, error);
    if (rc != ONESCOPE_OK && rc != ONESCOPE_E_TOO_LARGE && !s->known && !s->failed) {
        onescope_code d = drain(s, error);
        if (d != ONESCOPE_OK) rc = d;
    }
    return rc;
}

onescope_code onescope_os_file_push(const onescope_os_push_ops *ops, int fd, uint8_t *buf,
                                    uint64_t total, const char *name,
                                    const onescope_parse_options *options, void **keep,
                                    onescope_error *error) {
    ssize_t n = onescope_os_file_read_some(fd, buf, VALIDATE_BUFFER);
    if (n < 0) return io_fail(error, name, "cannot read");
    pump_source s = pump_source_of(fd, buf, (size_t)n, name, true, 0);
    return onescope_os_push_run(ops, buf, (size_t)n, (size_t)total, pump_more, &s, name, options,
                                keep, error);
}

/* Counts the errors the format's reader hands to the caller's on_error, so that a format
 * that stops at its first error (or a file that cannot be opened) still hands over exactly
 * one. */
typedef struct error_relay {
    onescope_error_fn *on_error;
    void *user;
    uint32_t count;
} error_relay;

static void relay(void *user, const onescope_error *e) {
    error_relay *r = user;
    r->count++;
    r->on_error(r->user, e);
}

static onescope_code validate_path(const char *path, const onescope_parse_options *options,
                                   onescope_format *format, onescope_error *error);

onescope_code onescope_file_validate(const char *path, const onescope_parse_options *options,
                                     onescope_format *format, onescope_error *error) {
    onescope_format unused;
    if (format == NULL) format = &unused;
    if (options == NULL || options->on_error == NULL)
        return validate_path(path, options, format, error);
    error_relay r = {options->on_error, options->on_error_user, 0};
    onescope_parse_options o = *options;
    o.on_error = relay;
    o.on_error_user = &r;
    onescope_error local;
    if (error == NULL) error = &local;
    onescope_code rc = validate_path(path, &o, format, error);
    if (rc != ONESCOPE_OK && r.count == 0) options->on_error(options->on_error_user, error);
    return rc;
}

static onescope_code validate_path(const char *path, const onescope_parse_options *options,
                                   onescope_format *format, onescope_error *error) {
    onescope_error local; /* the pump reads the code of the error it fills */
    if (error == NULL) error = &local;
    onescope_format unused;
    if (format == NULL) format = &unused;
    *format = ONESCOPE_FORMAT_UNKNOWN;
    if (path == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_file_validate", OS_NO_OFFSET,
                                "path", "non-NULL", NULL);
    /* Standard input, pipes and devices stream too, their size learnt at their end (see
     * check_internal.h); a directory is refused by the read path. */
    bool is_stdin = strcmp(path, "-") == 0;
    const char *name = onescope_os_input_name(path);
    int fd = is_stdin ? STDIN_FILENO : open_read(path);
    if (fd < 0) return io_fail(error, path, "cannot open");
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        if (!is_stdin) close(fd);
        return validate_whole(path, options, format, error);
    }
    size_t limit = onescope_os_input_limit(options);
    /* Standard input's size is never taken from fstat: it may stand anywhere in the file. */
    bool known = S_ISREG(st.st_mode) && !is_stdin;
    size_t total = known ? (size_t)st.st_size : ONESCOPE_OS_SIZE_UNKNOWN;
    onescope_code rc = known ? check_file_size(path, &st, limit, error) : ONESCOPE_OK;
    if (rc != ONESCOPE_OK) {
        close(fd);
        return rc;
    }
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    void *raw;
    uint8_t *buf = onescope_os_read_buffer(a, VALIDATE_BUFFER, &raw);
    if (buf == NULL) {
        if (!is_stdin) close(fd);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", VALIDATE_BUFFER);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (known) posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    ssize_t n = onescope_os_file_read_some(fd, buf, VALIDATE_BUFFER);
    if (n < 0) {
        rc = io_fail(error, name, "cannot read");
    } else {
        *format = onescope_format_detect(buf, (size_t)n);
        pump_source s = pump_source_of(fd, buf, (size_t)n, name, known, limit);
        rc = pump(onescope_os_codec_of(*format), &s, (size_t)n, total, options, error);
    }
    if (!is_stdin) close(fd);
    onescope_os_free(a, raw);
    return rc;
}

/* ---- a cursor over a validated file (file_internal.h) ---- */

/* A read at end of file before the bytes the validation saw: the file shrank meanwhile. */
static onescope_code shrank(onescope_error *error, const char *name) {
    return onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, "file size",
                            "the size the file had when validated",
                            "fewer bytes (it shrank while being verified)");
}

/* n bytes at offset at into p, every one of them (fewer is the file shrinking). */
static onescope_code pread_exact(int fd, uint64_t at, uint8_t *p, size_t n, const char *name,
                                 onescope_error *error) {
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(fd, p + got, n - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return io_fail(error, name, "cannot read");
        if (k == 0) return shrank(error, name);
        got += (size_t)k;
    }
    return ONESCOPE_OK;
}

onescope_os_cursor onescope_os_cursor_at(int fd, uint8_t *buf, size_t cap, uint64_t offset,
                                         const char *name) {
    onescope_os_cursor c = {fd, buf, cap, 0, 0, offset, name};
    return c;
}

onescope_code onescope_os_cursor_take(onescope_os_cursor *c, size_t n, const uint8_t **p,
                                      onescope_error *error) {
    if (c->end - c->at < n) {
        memmove(c->buf, c->buf + c->at, c->end - c->at);
        c->end -= c->at;
        c->at = 0;
        while (c->end < n) {
            ssize_t k = pread(c->fd, c->buf + c->end, c->cap - c->end, (off_t)c->next);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) return io_fail(error, c->name, "cannot read");
            if (k == 0) return shrank(error, c->name);
            c->end += (size_t)k;
            c->next += (uint64_t)k;
        }
    }
    *p = c->buf + c->at;
    c->at += n;
    return ONESCOPE_OK;
}

uint64_t onescope_os_cursor_offset(const onescope_os_cursor *c) {
    return c->next - (c->end - c->at);
}

void onescope_os_cursor_skip(onescope_os_cursor *c, uint64_t n) {
    if (c->end - c->at >= n) {
        c->at += (size_t)n;
        return;
    }
    c->next += n - (c->end - c->at);
    c->at = c->end = 0;
}

onescope_code onescope_os_cursor_copy(onescope_os_cursor *c, size_t n, uint8_t *out,
                                      onescope_error *error) {
    size_t have = c->end - c->at;
    if (have > n) have = n;
    memcpy(out, c->buf + c->at, have);
    c->at += have;
    uint64_t at = c->next;
    OS_TRY(pread_exact(c->fd, at, out + have, n - have, c->name, error));
    c->next = at + (n - have);
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_read_new(int fd, uint64_t at, size_t n, const onescope_allocator *a,
                                        uint8_t **out, const char *name, onescope_error *error) {
    *out = onescope_os_alloc(a, n ? n : 1);
    if (*out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", n);
    return pread_exact(fd, at, *out, n, name, error);
}

/* ---- a file mapped read-only (the pose cache's map) ---- */

onescope_code onescope_os_file_map(int fd, size_t size, void **map, const char *name,
                                   onescope_error *error) {
    *map = NULL;
    if (size == 0) return ONESCOPE_OK;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return io_fail(error, name, "cannot map");
    *map = m;
    return ONESCOPE_OK;
}

void onescope_os_file_unmap(void *map, size_t size) {
    if (map != NULL) munmap(map, size);
}

/* ---- more file steps for the streaming writers (src/replay_writer.c): a partial read back,
 * and a sibling temporary for the file built from it. The temporary is named and created as
 * onescope_file_write names and creates its own. ---- */

int onescope_os_file_open_read(const char *path, const char *name, onescope_error *error) {
    int fd = open_regular(path);
    if (fd < 0) {
        onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL, "cannot open %s: %s",
                         path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, NULL, NULL,
                         "cannot read %s: not a regular file", path);
        return -1;
    }
    return fd;
}

onescope_code onescope_os_file_read_at(int fd, uint64_t offset, void *data, size_t n, size_t *got,
                                       const char *name, onescope_error *error) {
    uint8_t *p = data;
    *got = 0;
    while (*got < n) {
        ssize_t k = pread(fd, p + *got, n - *got, (off_t)(offset + *got));
        if (k < 0) {
            if (errno == EINTR) continue;
            return io_fail(error, name, "cannot read");
        }
        if (k == 0) break;
        *got += (size_t)k;
    }
    return ONESCOPE_OK;
}

/* ---- the byte sink (file_internal.h): onescope_file_write's landing, a piece at a time ---- */

struct onescope_os_file_sink {
    const onescope_allocator *allocator;
    onescope_os_target target;
    char *name; /* the path the caller gave: what errors name */
    char *tmp;  /* the temporary, or NULL when target.special */
    int fd;
};

void onescope_os_file_sink_discard(onescope_os_file_sink *s) {
    if (s == NULL) return;
    const onescope_allocator *a = s->allocator;
    if (s->fd >= 0) (void)close(s->fd);
    onescope_os_file_remove(s->tmp);
    onescope_os_free(a, s->tmp);
    onescope_os_free(a, s->name);
    onescope_os_target_free(&s->target, a);
    onescope_os_free(a, s);
}

onescope_code onescope_os_file_sink_open(const char *path, const onescope_allocator *a,
                                         onescope_os_file_sink **out, onescope_error *error) {
    *out = NULL;
    if (path == NULL || strcmp(path, "-") == 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, path ? path : "output", OS_NO_OFFSET,
                                "output", "a file path (standard output cannot be taken back)",
                                path ? "-" : "NULL");
    onescope_os_file_sink *s = onescope_os_calloc(a, 1, sizeof *s);
    size_t len = strlen(path);
    char *name = s != NULL ? onescope_os_alloc(a, len + 1) : NULL;
    if (name == NULL) {
        onescope_os_free(a, s);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, path, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate the output's name");
    }
    memcpy(name, path, len + 1);
    s->allocator = a;
    s->name = name;
    s->fd = -1;
    onescope_code rc = onescope_os_target_resolve(path, path, a, &s->target, error);
    if (rc == ONESCOPE_OK && s->target.special) {
        /* a device, FIFO or socket: written in place (a FIFO blocks until someone reads it) */
        s->fd = open(s->target.path, O_WRONLY | O_CLOEXEC);
        if (s->fd < 0) rc = io_fail(error, path, "cannot open");
    } else if (rc == ONESCOPE_OK) {
        rc = onescope_os_target_create_temp(&s->target, a, path, &s->fd, &s->tmp, error);
        /* a file being replaced keeps its mode and owner, from the temporary's first byte on */
        if (rc == ONESCOPE_OK) rc = onescope_os_target_adopt(&s->target, s->fd, path, error);
    }
    if (rc != ONESCOPE_OK) {
        onescope_os_file_sink_discard(s);
        return rc;
    }
    *out = s;
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_sink_write(onescope_os_file_sink *s, const void *data, size_t n,
                                          onescope_error *error) {
    if (!write_all(s->fd, data, n)) return io_fail(error, s->name, "cannot write");
    return ONESCOPE_OK;
}

onescope_code onescope_os_file_sink_commit(onescope_os_file_sink *s, onescope_error *error) {
    int fd = s->fd;
    s->fd = -1;
    onescope_code rc =
        onescope_os_file_land(fd, s->tmp, s->target.path, !s->target.special, s->name, error);
    if (rc == ONESCOPE_OK) { /* in place now: nothing left to remove */
        onescope_os_free(s->allocator, s->tmp);
        s->tmp = NULL;
    }
    onescope_os_file_sink_discard(s);
    return rc;
}

/* ---- the one streamed recovery (file_internal.h) ---- */

#define RECOVER_BUFFER ((size_t)1 << 20)

int onescope_os_recover_open(const char *partial, uint64_t *size, onescope_error *error) {
    *size = 0;
    int fd = open_regular(partial);
    if (fd < 0) {
        io_fail(error, partial, "cannot open");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        io_fail(error, partial, "cannot inspect");
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        onescope_os_fail(error, ONESCOPE_E_IO, partial, OS_NO_OFFSET, NULL, NULL,
                         "cannot recover: not a regular file (a partial is one)");
        close(fd);
        return -1;
    }
    if (check_file_size(partial, &st, ONESCOPE_MAX_INPUT_BYTES, error) != ONESCOPE_OK) {
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

/* A read before the end the scan saw: the partial shrank meanwhile. */
static onescope_code partial_shrank(onescope_error *error, const char *name) {
    return onescope_os_fail(error, ONESCOPE_E_IO, name, OS_NO_OFFSET, "file size",
                            "the size the partial had when recovery began",
                            "fewer bytes (it shrank while being recovered)");
}

onescope_code
onescope_os_recover_scan(int fd, const char *partial, uint64_t size,
                         onescope_code (*feed)(void *user, const void *data, size_t n), void *user,
                         const onescope_allocator *a, onescope_error *error) {
    void *raw;
    uint8_t *buf = onescope_os_read_buffer(a, RECOVER_BUFFER, &raw);
    if (buf == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, partial, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", RECOVER_BUFFER);
    onescope_code rc = ONESCOPE_OK;
    for (uint64_t at = 0; at < size && rc == ONESCOPE_OK;) {
        size_t want = size - at < RECOVER_BUFFER ? (size_t)(size - at) : RECOVER_BUFFER, got;
        rc = onescope_os_file_read_at(fd, at, buf, want, &got, partial, error);
        if (rc == ONESCOPE_OK && got < want) rc = partial_shrank(error, partial);
        /* the scanner keeps its own verdict: a failure there stops the reading, not the call */
        if (rc == ONESCOPE_OK && feed(user, buf, got) != ONESCOPE_OK) break;
        at += got;
    }
    onescope_os_free(a, raw);
    return rc;
}

onescope_code onescope_os_recover_copy(int fd, const char *partial, uint64_t kept,
                                       uint64_t patch_at, const void *patch, size_t patch_size,
                                       uint64_t body_at, size_t unit,
                                       onescope_os_recover_check *check, void *user,
                                       const char *out_path, const onescope_allocator *a,
                                       onescope_error *error) {
    /* a piece from body_at on is a whole number of units, and the first holds the patch */
    size_t cap = RECOVER_BUFFER / unit * unit;
    if (cap < unit) cap = unit;
    if (cap < patch_at + patch_size) cap = (size_t)(patch_at + patch_size);
    void *raw;
    uint8_t *buf = onescope_os_read_buffer(a, cap, &raw);
    if (buf == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, partial, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate %zu bytes", cap);
    onescope_os_file_sink *sink;
    onescope_code rc = onescope_os_file_sink_open(out_path, a, &sink, error);
    for (uint64_t at = 0; at < kept && rc == ONESCOPE_OK;) {
        /* the head in pieces of cap, then the body from body_at in whole units */
        uint64_t end = at < body_at ? body_at : kept;
        size_t want = end - at < cap ? (size_t)(end - at) : cap, got;
        rc = onescope_os_file_read_at(fd, at, buf, want, &got, partial, error);
        if (rc == ONESCOPE_OK && got < want) rc = partial_shrank(error, partial);
        if (rc == ONESCOPE_OK && at <= patch_at && patch_at + patch_size <= at + got)
            memcpy(buf + (patch_at - at), patch, patch_size);
        if (rc == ONESCOPE_OK && check != NULL && at >= body_at)
            rc = check(user, at, buf, got, error);
        if (rc == ONESCOPE_OK) rc = onescope_os_file_sink_write(sink, buf, got, error);
        at += got;
    }
    if (rc == ONESCOPE_OK)
        rc = onescope_os_file_sink_commit(sink, error);
    else
        onescope_os_file_sink_discard(sink);
    onescope_os_free(a, raw);
    return rc;
}
