/* Validation in constant memory and the mapped pose cache: the streamed verdict is the
 * parser's, byte for byte, on every file the project keeps and every cut and mutation of the
 * pose caches among them; the mapped cache holds the parser's poses or the parser's error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_internal.h"
#include "recording_internal.h"
#include "test_util.h"

#define CRASHERS ONESCOPE_TESTDATA "/../tests/crashers"

static char scratch[64];

static void error_line(const onescope_error *e, char *buf, size_t size) {
    onescope_error_format(e, buf, size);
}

/* The parser's verdict on bytes, as the one line it prints (empty when valid). */
static onescope_code parse_line(const uint8_t *d, size_t n, char *line, size_t size) {
    onescope_pose_cache *c = NULL;
    onescope_error e;
    onescope_code rc = onescope_pose_cache_parse(d, n, "x.ospc", NULL, &c, &e);
    onescope_pose_cache_free(c);
    line[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

/* The push validator's verdict, fed in pieces of `chunk` bytes (0: varying sizes); unknown:
 * begun without the size, as for a pipe. */
static onescope_code push_line(const uint8_t *d, size_t n, size_t chunk, bool unknown, char *line,
                               size_t size) {
    onescope_os_ospc_check *c;
    onescope_error e;
    line[0] = '\0';
    onescope_code rc = onescope_os_ospc_check_begin(unknown ? ONESCOPE_OS_SIZE_UNKNOWN : n,
                                                    "x.ospc", NULL, &c, &e);
    if (rc != ONESCOPE_OK) {
        error_line(&e, line, size);
        return rc;
    }
    static const size_t sizes[] = {1, 3, 28, 27, 29, 1000, 7, 4096};
    size_t pos = 0;
    for (int i = 0; pos < n; i++) {
        size_t k = chunk ? chunk : sizes[i % 8];
        if (k > n - pos) k = n - pos;
        if (onescope_os_ospc_check_feed(c, d + pos, k) != ONESCOPE_OK) break;
        pos += k;
    }
    rc = onescope_os_ospc_check_end(c, &e);
    onescope_os_ospc_check_free(c);
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static void assert_same(const uint8_t *d, size_t n) {
    char a[1024], b[1024];
    static const size_t chunks[] = {0, 1, 5, 1u << 20};
    onescope_code want = parse_line(d, n, a, sizeof a);
    for (int i = 0; i < 8; i++) {
        onescope_code got = push_line(d, n, chunks[i % 4], i >= 4, b, sizeof b);
        if (got != want || strcmp(a, b) != 0) {
            print_error("size %zu chunk %zu%s:\n parser: %s\n stream: %s\n", n, chunks[i % 4],
                        i >= 4 ? " (size unknown)" : "", a, b);
            fail();
        }
    }
}

static uint8_t *slurp(const char *path, size_t *n) {
    onescope_buffer b;
    onescope_error e;
    assert_int_equal(onescope_file_read(path, 0, NULL, &b, &e), ONESCOPE_OK);
    *n = b.size;
    return b.data; /* libc allocator: free() releases it */
}

/* Every .ospc and every file of the crashers and testdata folders, cut at every length (a
 * stride past the first 4 KiB), and with one byte changed at each of the first offsets. */
static void check_ospc_bytes(const uint8_t *d, size_t n) {
    for (size_t len = 0; len <= n; len += len < 4096 ? 1 : 97) assert_same(d, len);
    assert_same(d, n);
    uint8_t *m = malloc(n + 8);
    assert_non_null(m);
    memcpy(m, d, n);
    memcpy(m + n, "trailing", 8);
    assert_same(m, n + 8);
    for (size_t i = 0; i < n && i < 700; i++) {
        static const uint8_t values[] = {0xFF, 0x00, 0x7F, 0x80};
        for (int v = 0; v < 4; v++) {
            uint8_t old = m[i];
            m[i] = values[v];
            assert_same(m, n);
            m[i] = old;
        }
    }
    /* A non-finite pose value in the middle and at the end of the poses. */
    for (size_t at = n / 2 & ~(size_t)3; at + 4 <= n; at = n - 4) {
        uint8_t old[4];
        memcpy(old, m + at, 4);
        memcpy(m + at, "\x00\x00\x80\x7f", 4);
        assert_same(m, n);
        memcpy(m + at, old, 4);
        if (at == n - 4) break;
    }
    free(m);
}

static void for_each_file(const char *dir, void (*fn)(const char *path)) {
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.' || strcmp(de->d_name, "MANIFEST") == 0) continue;
        size_t len = strlen(de->d_name);
        if (len > 2 &&
            (strcmp(de->d_name + len - 2, ".c") == 0 || strcmp(de->d_name + len - 3, ".md") == 0))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        fn(path);
        files++;
    }
    closedir(dp);
    assert_true(files > 0);
}

static void ospc_file(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    if (n >= 4 && memcmp(d, "OSPC", 4) == 0) check_ospc_bytes(d, n);
    free(d);
}

static void test_push_matches_parser(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, ospc_file);
    for_each_file(CRASHERS, ospc_file);
    /* A cache with many entities, long names and duplicate ids made here. */
    onescope_pose_cache *c;
    onescope_error e;
    assert_int_equal(onescope_pose_cache_create(3, 40, 3, NULL, &c, &e), ONESCOPE_OK);
    char name[1024];
    memset(name, 'n', sizeof name);
    for (uint32_t i = 0; i < 40; i++)
        assert_int_equal(onescope_pose_cache_set_entity_name(c, i, name, i * 25, &e), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &b, &e), ONESCOPE_OK);
    check_ospc_bytes(b.data, b.size);
    c->entities[39].id = 7; /* written by hand: the writer refuses duplicates */
    size_t at = 36 + 12;
    for (uint32_t i = 0; i < 39; i++) at += 26 + i * 25;
    b.data[at] = 7;
    assert_same(b.data, b.size);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

/* onescope_file_validate against onescope_file_read plus the format's parser. */
static onescope_code whole_line(const char *path, char *line, size_t size) {
    onescope_buffer b;
    onescope_error e;
    line[0] = '\0';
    onescope_code rc = onescope_file_read(path, 0, NULL, &b, &e);
    if (rc == ONESCOPE_OK) {
        void *obj = NULL;
        switch (onescope_format_detect(b.data, b.size)) {
            case ONESCOPE_FORMAT_OSPC:
                rc = onescope_pose_cache_parse(b.data, b.size, path, NULL,
                                               (onescope_pose_cache **)&obj, &e);
                onescope_pose_cache_free(obj);
                break;
            case ONESCOPE_FORMAT_OSTM:
                rc =
                    onescope_replay_parse(b.data, b.size, path, NULL, (onescope_replay **)&obj, &e);
                onescope_replay_free(obj);
                break;
            case ONESCOPE_FORMAT_OSLS:
                rc = onescope_live_decode(b.data, b.size, path, NULL, NULL, NULL, &e);
                break;
            case ONESCOPE_FORMAT_RECORDING:
                rc = onescope_recording_parse(b.data, b.size, path, NULL,
                                              (onescope_recording **)&obj, &e);
                onescope_recording_free(obj);
                break;
            default: rc = ONESCOPE_E_MAGIC; break; /* compared by code only */
        }
        onescope_buffer_free(&b);
    }
    if (rc != ONESCOPE_OK && rc != ONESCOPE_E_MAGIC) error_line(&e, line, size);
    return rc;
}

static void validate_file_same(const char *path) {
    char a[1024], b[1024];
    onescope_code want = whole_line(path, a, sizeof a);
    onescope_error e;
    onescope_format f;
    onescope_code got = onescope_file_validate(path, NULL, &f, &e);
    b[0] = '\0';
    if (got != ONESCOPE_OK && want != ONESCOPE_E_MAGIC) error_line(&e, b, sizeof b);
    if (want == ONESCOPE_E_MAGIC && got != ONESCOPE_E_MAGIC) {
        /* JSON formats: the one read path decides; OK or any parser error is theirs. */
        assert_true(f == ONESCOPE_FORMAT_PVT || f == ONESCOPE_FORMAT_ANM);
        return;
    }
    if (got != want || strcmp(a, b) != 0) {
        print_error("%s:\n whole:  %s\n stream: %s\n", path, a, b);
        fail();
    }
}

/* Cuts of a stream file written to disk, through the CLI's library call. */
static void validate_cuts(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s/cut", scratch);
    if (n >= 4 && (memcmp(d, "OSPC", 4) == 0 || memcmp(d, "OSLS", 4) == 0))
        for (size_t len = 0; len <= n; len += 1 + n / 50) {
            test_write_file(tmp, d, len);
            validate_file_same(tmp);
        }
    free(d);
}

static void test_validate_file_matches_read_path(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, validate_file_same);
    for_each_file(CRASHERS, validate_file_same);
    for_each_file(ONESCOPE_TESTDATA, validate_cuts);
    for_each_file(CRASHERS, validate_cuts);
}

/* ---- pipes and standard input: the size learnt at the end ---- */

/* onescope_file_validate of the bytes d coming through a pipe, written by a child `step`
 * bytes a write (1: a byte at a time), read as /dev/fd/N or, with as_stdin, as "-". */
/* fn(path, ctx) over d written into a pipe by a child, step bytes a write: path is "-" with
 * the pipe as standard input (as_stdin), else the pipe's /dev/fd name. */
typedef onescope_code pipe_fn(const char *path, void *ctx);
static onescope_code through_pipe(const uint8_t *d, size_t n, size_t step, bool as_stdin,
                                  pipe_fn *fn, void *ctx) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL); /* the reader stopped (the limit): nothing more to say */
        close(fds[0]);
        for (size_t pos = 0; pos < n;) {
            size_t k = step < n - pos ? step : n - pos;
            ssize_t w = write(fds[1], d + pos, k);
            if (w <= 0) _exit(1);
            pos += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    onescope_code rc;
    if (as_stdin) {
        int saved = dup(STDIN_FILENO);
        assert_true(saved >= 0);
        assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
        rc = fn("-", ctx);
        assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
        close(saved);
    } else {
        char path[32];
        snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
        rc = fn(path, ctx);
    }
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return rc;
}

typedef struct validate_call {
    const onescope_parse_options *o;
    onescope_format *f;
    onescope_error *e;
} validate_call;

static onescope_code validate_call_fn(const char *path, void *ctx) {
    validate_call *c = ctx;
    return onescope_file_validate(path, c->o, c->f, c->e);
}

static onescope_code pipe_validate(const uint8_t *d, size_t n, size_t step, bool as_stdin,
                                   const onescope_parse_options *o, onescope_format *f,
                                   onescope_error *e) {
    validate_call c = {o, f, e};
    return through_pipe(d, n, step, as_stdin, validate_call_fn, &c);
}

/* The error without its input name, as one line. */
static void unnamed_line(const onescope_error *e, char *buf, size_t size) {
    onescope_error copy = *e;
    strcpy(copy.input, "x");
    onescope_error_format(&copy, buf, size);
}

/* A pipe (read a byte at a time, in odd pieces, and whole) and standard input give what the
 * regular file gives, which test_validate_file_matches_read_path holds to the parser's; quick:
 * the odd pieces only (the validators' own tests feed every cut a byte at a time). */
static void validate_pipe_same_bytes(const char *label, const uint8_t *d, size_t n, bool quick) {
    char path[96], a[1024], b[1024];
    snprintf(path, sizeof path, "%s/piped", scratch);
    test_write_file(path, d, n);
    onescope_error e;
    onescope_format fa, fb;
    onescope_code want = onescope_file_validate(path, NULL, &fa, &e);
    a[0] = '\0';
    if (want != ONESCOPE_OK) unnamed_line(&e, a, sizeof a);
    static const size_t steps[] = {1, 4093, 1u << 20};
    for (int i = quick ? 1 : 0; i < (quick ? 2 : 4); i++) {
        onescope_code got = pipe_validate(d, n, steps[i % 3], i == 3, NULL, &fb, &e);
        b[0] = '\0';
        if (got != ONESCOPE_OK) unnamed_line(&e, b, sizeof b);
        if (got != want || fa != fb || strcmp(a, b) != 0) {
            print_error("%s (%zu bytes, %s):\n file: %s\n pipe: %s\n", label, n,
                        i == 3 ? "stdin" : "pipe", a, b);
            fail();
        }
    }
}

static void validate_pipe_same(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    validate_pipe_same_bytes(path, d, n, false);
    /* cut inside each part: a stride of cuts, and one byte more */
    uint8_t *m = malloc(n + 1);
    assert_non_null(m);
    memcpy(m, d, n);
    m[n] = 'x';
    validate_pipe_same_bytes(path, m, n + 1, true);
    for (size_t len = 0; len < n; len += 1 + n / 23) validate_pipe_same_bytes(path, m, len, true);
    free(m);
    free(d);
}

static void test_validate_pipe_matches_file(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, validate_pipe_same);
    for_each_file(CRASHERS, validate_pipe_same);
    /* Over the caller's limit: the one-shot read's error for a stream, at the limit, whatever
     * the bytes before (good, or already bad); at the limit exactly: the format's verdict. */
    size_t n;
    uint8_t *d = slurp(ONESCOPE_TESTDATA "/test-2d-ghost.ospc", &n);
    onescope_error e;
    onescope_format f;
    onescope_parse_options o = {.max_input_bytes = 100};
    for (int bad = 0; bad < 2; bad++) {
        d[6] = (uint8_t)bad; /* flags */
        assert_int_equal(pipe_validate(d, n, 7, bad, &o, &f, &e), ONESCOPE_E_TOO_LARGE);
        assert_error_at(e, ONESCOPE_E_TOO_LARGE, 100);
        assert_string_equal(e.found, "more than 100 bytes");
    }
    d[6] = 0;
    o.max_input_bytes = n;
    assert_int_equal(pipe_validate(d, n, 1, false, &o, &f, &e), ONESCOPE_OK);
    assert_int_equal(f, ONESCOPE_FORMAT_OSPC);
    o.max_input_bytes = n - 1;
    assert_int_equal(pipe_validate(d, n, 1, false, &o, &f, &e), ONESCOPE_E_TOO_LARGE);
    assert_error_at(e, ONESCOPE_E_TOO_LARGE, n - 1);
    free(d);
    const char *others[] = {ONESCOPE_TESTDATA "/test-2d-600.ostm", CRASHERS "/anm-forged-key.anm",
                            CRASHERS "/rec-erows-length.ostm2",
                            CRASHERS "/osls2-setup-differs.osls"};
    for (int i = 0; i < 4; i++) {
        d = slurp(others[i], &n);
        o.max_input_bytes = n / 2;
        assert_int_equal(pipe_validate(d, n, 4096, false, &o, &f, &e), ONESCOPE_E_TOO_LARGE);
        assert_error_at(e, ONESCOPE_E_TOO_LARGE, n / 2);
        free(d);
    }
    /* Unknown bytes over the limit: the limit first, as the parser; within it: the magic. */
    uint8_t junk[300] = {'j', 'u', 'n', 'k'};
    o.max_input_bytes = 200;
    assert_int_equal(pipe_validate(junk, sizeof junk, 1, false, &o, &f, &e), ONESCOPE_E_TOO_LARGE);
    assert_int_equal(pipe_validate(junk, 200, 1, true, &o, &f, &e), ONESCOPE_E_MAGIC);
    assert_int_equal(f, ONESCOPE_FORMAT_UNKNOWN);
}

static void test_validate_file_edges(void **state) {
    (void)state;
    onescope_error e;
    onescope_format f = ONESCOPE_FORMAT_OSPC;
    assert_int_equal(onescope_file_validate(NULL, NULL, &f, &e), ONESCOPE_E_ARGUMENT);
    assert_int_equal(f, ONESCOPE_FORMAT_UNKNOWN);
    assert_int_equal(onescope_file_validate("/nonexistent/x.ospc", NULL, NULL, &e), ONESCOPE_E_IO);
    assert_int_equal(onescope_file_validate(scratch, NULL, &f, &e), ONESCOPE_E_IO); /* a folder */
    /* Over the caller's limit: the read path's error, before any byte is read. */
    char path[96];
    snprintf(path, sizeof path, "%s/limit.ospc", scratch);
    size_t n;
    uint8_t *d = slurp(ONESCOPE_TESTDATA "/test-2d-ghost.ospc", &n);
    test_write_file(path, d, n);
    onescope_parse_options o = {.max_input_bytes = 100};
    assert_int_equal(onescope_file_validate(path, &o, &f, &e), ONESCOPE_E_TOO_LARGE);
    assert_error_at(e, ONESCOPE_E_TOO_LARGE, 100);
    assert_int_equal(onescope_file_validate(path, NULL, &f, &e), ONESCOPE_OK);
    assert_int_equal(f, ONESCOPE_FORMAT_OSPC);
    /* Unknown bytes: the magic error, short or long. */
    test_write_file(path, "xy", 2);
    assert_int_equal(onescope_file_validate(path, NULL, &f, &e), ONESCOPE_E_MAGIC);
    test_write_file(path, "nothing known", 13);
    assert_int_equal(onescope_file_validate(path, NULL, &f, &e), ONESCOPE_E_MAGIC);
    /* A replay larger than the buffer is streamed too. */
    uint8_t *big = calloc(1, (1u << 20) + 10);
    assert_non_null(big);
    memcpy(big, "OSTM", 4);
    test_write_file(path, big, (1u << 20) + 10);
    assert_int_not_equal(onescope_file_validate(path, NULL, &f, &e), ONESCOPE_OK);
    assert_int_equal(f, ONESCOPE_FORMAT_OSTM);
    free(big);
    free(d);
    /* The validator itself: more bytes than announced. */
    onescope_os_ospc_check *c;
    assert_int_equal(onescope_os_ospc_check_begin(2, NULL, NULL, &c, &e), ONESCOPE_OK);
    assert_int_equal(onescope_os_ospc_check_feed(c, "OSPC", 4), ONESCOPE_E_IO);
    assert_int_equal(onescope_os_ospc_check_feed(c, "OS", 2), ONESCOPE_E_IO); /* latched */
    assert_int_equal(onescope_os_ospc_check_end(c, &e), ONESCOPE_E_IO);
    onescope_os_ospc_check_free(c);
    assert_int_equal(onescope_os_ospc_check_begin(300, NULL, &o, &c, &e), ONESCOPE_E_TOO_LARGE);
    /* Fewer bytes than announced. */
    assert_int_equal(onescope_os_ospc_check_begin(8, NULL, NULL, &c, &e), ONESCOPE_OK);
    assert_int_equal(onescope_os_ospc_check_feed(c, "OSPC", 4), ONESCOPE_OK);
    assert_int_equal(onescope_os_ospc_check_end(c, &e), ONESCOPE_E_IO);
    onescope_os_ospc_check_free(c);
    onescope_os_ospc_check_free(NULL);
}

static onescope_code validate_with(const onescope_allocator *a, void *ctx) {
    onescope_parse_options o = {.allocator = a};
    onescope_error e;
    return onescope_file_validate(ctx, &o, NULL, &e);
}

static void test_validate_alloc_failures(void **state) {
    (void)state;
    assert_true(test_alloc_walk(validate_with, ONESCOPE_TESTDATA "/test-2d-ghost.ospc") >= 2);
    test_alloc_walk(validate_with, ONESCOPE_TESTDATA "/test-2d-600.ostm");
}

/* ---- the mapped cache ---- */

static void test_map_matches_read_file(void **state) {
    (void)state;
    const char *path = ONESCOPE_TESTDATA "/test-2d-ghost.ospc";
    onescope_pose_cache *m, *r;
    onescope_error e;
    assert_int_equal(onescope_pose_cache_map(path, NULL, &m, &e), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &r, &e), ONESCOPE_OK);
    assert_int_equal(m->frame_count, r->frame_count);
    assert_int_equal(m->entity_count, r->entity_count);
    size_t count = (size_t)m->frame_count * m->entity_count;
    assert_memory_equal(m->poses, r->poses, count * sizeof *m->poses);
    assert_memory_equal(m->entities[0].name.data, r->entities[0].name.data,
                        r->entities[0].name.length);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Zero copy: the poses are the file's pages. */
    assert_non_null(m->mapping);
    assert_true((const uint8_t *)m->poses > (const uint8_t *)m->mapping);
    assert_true((const uint8_t *)m->poses < (const uint8_t *)m->mapping + m->mapping_size);
#endif
    /* Read-only: the setters refuse it. */
    if (m->mapping != NULL) {
        assert_int_equal(onescope_pose_cache_set_text(m, ONESCOPE_POSE_TEXT_LABEL, "x", 1, &e),
                         ONESCOPE_E_BAD_STATE);
        assert_int_equal(onescope_pose_cache_set_entity_name(m, 0, "x", 1, &e),
                         ONESCOPE_E_BAD_STATE);
        onescope_pose pose = {{1.0f, 2.0f, 3.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
        assert_int_equal(onescope_pose_cache_set_pose(m, 0, 0, &pose, &e), ONESCOPE_E_BAD_STATE);
    }
    /* It writes what the parser's cache writes. */
    onescope_buffer a, b;
    assert_int_equal(onescope_pose_cache_write(m, NULL, &a, &e), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_write(r, NULL, &b, &e), ONESCOPE_OK);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    onescope_buffer_free(&a);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(m);
    onescope_pose_cache_free(r);
}

/* The parser's error on every crasher, and a copy for an unaligned pose section. */
static void map_same(const char *path) {
    onescope_pose_cache *m = NULL, *r = NULL;
    onescope_error em, er;
    onescope_code a = onescope_pose_cache_map(path, NULL, &m, &em);
    onescope_code b = onescope_pose_cache_read_file(path, NULL, &r, &er);
    assert_int_equal(a, b);
    if (a != ONESCOPE_OK) {
        char x[1024], y[1024];
        error_line(&em, x, sizeof x);
        error_line(&er, y, sizeof y);
        assert_string_equal(x, y);
    }
    onescope_pose_cache_free(m);
    onescope_pose_cache_free(r);
}

static void map_ospc_only(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    bool ospc = n >= 4 && memcmp(d, "OSPC", 4) == 0;
    free(d);
    if (ospc || n == 0) map_same(path);
}

static void test_map_errors_and_copies(void **state) {
    (void)state;
    for_each_file(CRASHERS, map_ospc_only);
    onescope_pose_cache *c;
    onescope_error e;
    assert_int_equal(onescope_pose_cache_map(NULL, NULL, &c, &e), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_map("x", NULL, NULL, &e), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_map("/nonexistent.ospc", NULL, &c, &e), ONESCOPE_E_IO);
    assert_null(c);
    assert_int_equal(onescope_pose_cache_map(scratch, NULL, &c, &e), ONESCOPE_E_IO); /* folder */
    onescope_parse_options o = {.max_input_bytes = 64};
    assert_int_equal(onescope_pose_cache_map(ONESCOPE_TESTDATA "/test-2d-ghost.ospc", &o, &c, &e),
                     ONESCOPE_E_TOO_LARGE);
    /* A label of odd length puts the poses at an odd offset: they are copied. */
    assert_int_equal(onescope_pose_cache_create(2, 3, 4, NULL, &c, &e), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_LABEL, "odd", 3, &e),
                     ONESCOPE_OK);
    c->poses[5].position[1] = 2.5f;
    char path[96];
    snprintf(path, sizeof path, "%s/odd.ospc", scratch);
    assert_int_equal(onescope_pose_cache_write_file(c, path, &e), ONESCOPE_OK);
    onescope_pose_cache *m;
    assert_int_equal(onescope_pose_cache_map(path, NULL, &m, &e), ONESCOPE_OK);
    assert_null(m->mapping);
    assert_true(m->poses[5].position[1] == 2.5f);
    assert_int_equal(onescope_pose_cache_set_text(m, ONESCOPE_POSE_TEXT_LABEL, "x", 1, &e),
                     ONESCOPE_OK);
    onescope_pose_cache_free(m);
    onescope_pose_cache_free(c);
    map_same(path);
}

static onescope_code map_with(const onescope_allocator *a, void *ctx) {
    onescope_parse_options o = {.allocator = a};
    onescope_pose_cache *c;
    onescope_error e;
    onescope_code rc = onescope_pose_cache_map(ctx, &o, &c, &e);
    if (rc == ONESCOPE_OK) onescope_pose_cache_free(c);
    return rc;
}

static void test_map_alloc_failures(void **state) {
    (void)state;
    assert_true(test_alloc_walk(map_with, ONESCOPE_TESTDATA "/test-2d-ghost.ospc") >= 3);
}

/* The pose rule at every place of a block (the vector test takes four poses at a time):
 * an infinity or NaN in any value of any pose is refused at its offset, unless that pose's
 * x is a NaN. */
static void test_pose_rule_every_lane(void **state) {
    (void)state;
    onescope_pose_cache *c;
    onescope_error e;
    assert_int_equal(onescope_pose_cache_create(3, 1, 11, NULL, &c, &e), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &b, &e), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    size_t poses_at = b.size - 11 * 28;
    static const uint8_t inf[4] = {0x00, 0x00, 0x80, 0x7f}, nan[4] = {0x01, 0x00, 0xc0, 0xff};
    for (size_t p = 0; p < 11; p++)
        for (int k = 0; k < 7; k++)
            for (int absent = 0; absent < 2; absent++) {
                uint8_t *m = malloc(b.size);
                assert_non_null(m);
                memcpy(m, b.data, b.size);
                uint8_t *pose = m + poses_at + 28 * p;
                memcpy(pose + 4 * k, k % 2 ? nan : inf, 4);
                if (absent) memcpy(pose, nan, 4);
                onescope_code rc = onescope_pose_cache_parse(m, b.size, "x", NULL, &c, &e);
                onescope_pose_cache_free(c);
                if (absent) {
                    assert_int_equal(rc, ONESCOPE_OK);
                } else {
                    assert_int_equal(rc, ONESCOPE_E_NOT_FINITE);
                    assert_error_at(e, ONESCOPE_E_NOT_FINITE, poses_at + 28 * p + 4 * (size_t)k);
                }
                assert_same(m, b.size);
                free(m);
            }
    onescope_buffer_free(&b);
}

/* ---- the OSTM push validator and the streamed verify ---- */

static onescope_code ostm_parse_line(const uint8_t *d, size_t n, char *line, size_t size) {
    onescope_replay *r = NULL;
    onescope_error e;
    onescope_code rc = onescope_replay_parse(d, n, "x.ostm", NULL, &r, &e);
    onescope_replay_free(r);
    line[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static onescope_code ostm_push_line(const uint8_t *d, size_t n, size_t chunk, bool unknown,
                                    char *line, size_t size) {
    onescope_os_ostm_check *c;
    onescope_error e;
    line[0] = '\0';
    onescope_code rc = onescope_os_ostm_check_begin(unknown ? ONESCOPE_OS_SIZE_UNKNOWN : n,
                                                    "x.ostm", NULL, &c, &e);
    if (rc != ONESCOPE_OK) {
        error_line(&e, line, size);
        return rc;
    }
    static const size_t sizes[] = {1, 3, 2, 27, 29, 1000, 7, 70000};
    size_t pos = 0;
    for (int i = 0; pos < n; i++) {
        size_t k = chunk ? chunk : sizes[i % 8];
        if (k > n - pos) k = n - pos;
        if (onescope_os_ostm_check_feed(c, d + pos, k) != ONESCOPE_OK) break;
        pos += k;
    }
    rc = onescope_os_ostm_check_end(c, &e);
    onescope_os_ostm_check_free(c);
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static void ostm_assert_same(const uint8_t *d, size_t n) {
    char a[1024], b[1024];
    static const size_t chunks[] = {0, 1, 5, 1u << 20};
    onescope_code want = ostm_parse_line(d, n, a, sizeof a);
    for (int i = 0; i < 8; i++) {
        onescope_code got = ostm_push_line(d, n, chunks[i % 4], i >= 4, b, sizeof b);
        if (got != want || strcmp(a, b) != 0) {
            print_error("size %zu chunk %zu%s:\n parser: %s\n stream: %s\n", n, chunks[i % 4],
                        i >= 4 ? " (size unknown)" : "", a, b);
            fail();
        }
    }
}

/* Every cut (a stride past the first 4 KiB), trailing bytes, each of the first 160 bytes
 * changed four ways, then 300 bytes spread over the rest. */
static void check_ostm_bytes(const uint8_t *d, size_t n) {
    for (size_t len = 0; len <= n; len += len < 4096 ? 1 : 1 + n / 300) ostm_assert_same(d, len);
    ostm_assert_same(d, n);
    uint8_t *m = malloc(n + 8);
    assert_non_null(m);
    memcpy(m, d, n);
    memcpy(m + n, "trailing", 8);
    ostm_assert_same(m, n + 8);
    for (size_t i = 0; i < n; i += i < 160 ? 1 : 1 + n / 300) {
        static const uint8_t values[] = {0xFF, 0x00, 0x01, 0x80};
        for (int v = 0; v < 4; v++) {
            uint8_t old = m[i];
            m[i] = values[v];
            ostm_assert_same(m, n);
            m[i] = old;
        }
    }
    free(m);
}

static void ostm_file(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    if (n < 4 || memcmp(d, "OSTM", 4) == 0) check_ostm_bytes(d, n);
    free(d);
}

/* A replay made here with what the test data lacks: a start snapshot and hash rows with
 * steps of up to 65535 bytes (longer than most pieces fed). */
static void make_big_steps(onescope_buffer *out) {
    size_t n;
    uint8_t *d = slurp(ONESCOPE_TESTDATA "/test-10000.ostm", &n);
    onescope_replay *src, *r;
    onescope_error e;
    assert_int_equal(onescope_replay_parse(d, n, "src", NULL, &src, &e), ONESCOPE_OK);
    onescope_sim_setup setup = onescope_replay_setup(src);
    onescope_link_block link = onescope_replay_link(src);
    assert_int_equal(onescope_replay_create(&setup, &link, NULL, &r, &e), ONESCOPE_OK);
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    def.link = link;
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &e), ONESCOPE_OK);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t sn = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_sim_free(sim);
    assert_int_equal(onescope_replay_set_start_snapshot(r, snap, sn, &e), ONESCOPE_OK);
    static uint8_t step[ONESCOPE_SIM_MAX_INPUT];
    size_t used = 0;
    for (uint32_t i = 0; i < onescope_replay_step_count(src); i++) {
        const uint8_t *p;
        size_t k;
        onescope_replay_step_input(src, i, &p, &k);
        if (used + k > sizeof step) {
            assert_int_equal(onescope_replay_append_step(r, step, used, &e), ONESCOPE_OK);
            assert_int_equal(onescope_replay_append_step(r, NULL, 0, &e), ONESCOPE_OK);
            used = 0;
        }
        memcpy(step + used, p, k);
        used += k;
    }
    assert_int_equal(onescope_replay_append_step(r, step, used, &e), ONESCOPE_OK);
    assert_int_equal(onescope_replay_compute_hash_rows(r, &e), ONESCOPE_OK);
    assert_int_equal(onescope_replay_write(r, NULL, out, &e), ONESCOPE_OK);
    onescope_replay_free(r);
    onescope_replay_free(src);
    free(d);
}

static void test_ostm_push_matches_parser(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, ostm_file);
    for_each_file(CRASHERS, ostm_file);
    onescope_buffer b;
    make_big_steps(&b);
    assert_true(b.size > 70000);
    /* Cuts and changes around the long steps (the head is the first bytes). */
    for (size_t len = 0; len <= b.size; len += 1 + b.size / 300) ostm_assert_same(b.data, len);
    ostm_assert_same(b.data, b.size);
    for (size_t i = 0; i < b.size; i += 1 + b.size / 200) {
        uint8_t old = b.data[i];
        b.data[i] = 0xFF;
        ostm_assert_same(b.data, b.size);
        b.data[i] = old;
    }
    onescope_buffer_free(&b);
    /* Counts past what the input can hold, checked against the whole size. */
    static const uint8_t head[] = {'O', 'S', 'T', 'M', 1, 0, 3, 0, 6, 0,    0,    0, 2,
                                   1,   0,   0,   0,   0, 5, 0, 0, 0, 0xFF, 0xFF, 0, 0};
    ostm_assert_same(head, sizeof head);
    uint8_t rows[26 + 2060];
    memcpy(rows, head, sizeof head);
    memset(rows + sizeof head, 0, sizeof rows - sizeof head);
    rows[22] = 0; /* an empty snapshot */
    rows[23] = 0;
    ostm_assert_same(rows, sizeof rows);
    rows[22] = 12 + 32; /* a snapshot of one body, then too few rows */
    ostm_assert_same(rows, sizeof rows);
    rows[6] = 1; /* rows only: 6 rows need 48 bytes, then 5 steps need 10 */
    ostm_assert_same(rows, 22 + 40);
    ostm_assert_same(rows, 22 + 48 + 9);
    ostm_assert_same(rows, 22 + 48 + 10);
}

static void test_ostm_validate_edges(void **state) {
    (void)state;
    onescope_error e;
    onescope_os_ostm_check *c;
    onescope_parse_options o = {.max_input_bytes = 100};
    assert_int_equal(onescope_os_ostm_check_begin(300, NULL, &o, &c, &e), ONESCOPE_E_TOO_LARGE);
    assert_int_equal(onescope_os_ostm_check_begin(2, NULL, NULL, &c, &e), ONESCOPE_OK);
    assert_int_equal(onescope_os_ostm_check_feed(c, "OSTM", 4), ONESCOPE_E_IO);
    assert_int_equal(onescope_os_ostm_check_feed(c, "OS", 2), ONESCOPE_E_IO); /* latched */
    assert_int_equal(onescope_os_ostm_check_end(c, &e), ONESCOPE_E_IO);
    onescope_os_ostm_check_free(c);
    assert_int_equal(onescope_os_ostm_check_begin(8, NULL, NULL, &c, &e), ONESCOPE_OK);
    assert_int_equal(onescope_os_ostm_check_feed(c, "OSTM", 4), ONESCOPE_OK);
    assert_int_equal(onescope_os_ostm_check_end(c, &e), ONESCOPE_E_IO); /* it shrank */
    onescope_os_ostm_check_free(c);
    onescope_os_ostm_check_free(NULL);
}

/* onescope_replay_verify_file against read_file + onescope_replay_verify: code, line and
 * result. */
typedef struct verify_call {
    const onescope_parse_options *o;
    onescope_verify_result *v;
    onescope_error *e;
} verify_call;

static onescope_code verify_call_fn(const char *path, void *ctx) {
    verify_call *c = ctx;
    return onescope_replay_verify_file(path, c->o, c->v, c->e);
}

/* The file's verdict (want, *v and *e as the file gave them) from a pipe and from standard
 * input, which are spooled to a scratch file: the same code, result and line, names aside. */
static void verify_pipe_same(const char *path, onescope_code want, const onescope_verify_result *v,
                             const onescope_error *e) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    char a[1024] = "", b[1024] = "";
    if (want != ONESCOPE_OK) unnamed_line(e, a, sizeof a);
    for (int as_stdin = 0; as_stdin < 2; as_stdin++) {
        onescope_verify_result got;
        onescope_error ge;
        verify_call c = {NULL, &got, &ge};
        onescope_code rc = through_pipe(d, n, 4093, as_stdin, verify_call_fn, &c);
        b[0] = '\0';
        if (rc != ONESCOPE_OK) unnamed_line(&ge, b, sizeof b);
        if (rc != want || strcmp(a, b) != 0 || memcmp(v, &got, sizeof got) != 0) {
            print_error("%s from %s:\n file: %d %s\n pipe: %d %s\n", path,
                        as_stdin ? "stdin" : "a pipe", want, a, rc, b);
            fail();
        }
    }
    free(d);
}

static void verify_same(const char *path) {
    char a[1024] = "", b[1024] = "";
    onescope_error e;
    onescope_verify_result want, got;
    memset(&want, 0xAA, sizeof want);
    onescope_replay *r;
    onescope_code wrc = onescope_replay_read_file(path, NULL, &r, &e);
    if (wrc == ONESCOPE_OK) {
        wrc = onescope_replay_verify(r, NULL, &want, path, &e);
        onescope_replay_free(r);
    } else {
        memset(&want, 0, sizeof want);
    }
    if (wrc != ONESCOPE_OK) error_line(&e, a, sizeof a);
    onescope_code grc = onescope_replay_verify_file(path, NULL, &got, &e);
    if (grc != ONESCOPE_OK) error_line(&e, b, sizeof b);
    if (grc != wrc || strcmp(a, b) != 0 || memcmp(&want, &got, sizeof want) != 0) {
        print_error("%s:\n whole:  %d %s\n stream: %d %s\n", path, wrc, a, grc, b);
        fail();
    }
    verify_pipe_same(path, grc, &got, &e);
}

static void verify_cuts(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s/v.ostm", scratch);
    if (n >= 4 && memcmp(d, "OSTM", 4) == 0) {
        for (size_t len = 0; len <= n; len += 1 + n / 16) {
            test_write_file(tmp, d, len);
            verify_same(tmp);
        }
        /* A changed hash row (the first and the last) and a changed step input. */
        test_write_file(tmp, d, n);
        verify_same(tmp);
        onescope_replay *r;
        onescope_error e;
        assert_int_equal(onescope_replay_parse(d, n, "x", NULL, &r, &e), ONESCOPE_OK);
        if (onescope_replay_has_hash_rows(r)) {
            size_t rows_at = n - onescope_replay_input_bytes(r) -
                             2 * (size_t)onescope_replay_step_count(r) -
                             8 * ((size_t)onescope_replay_step_count(r) + 1);
            for (int k = 0; k < 3; k++) {
                size_t at = k == 0   ? rows_at
                            : k == 1 ? rows_at + 8 * onescope_replay_step_count(r)
                                     : n - 1;
                d[at] ^= 1;
                test_write_file(tmp, d, n);
                verify_same(tmp);
                d[at] ^= 1;
            }
        }
        onescope_replay_free(r);
    }
    free(d);
}

static void test_verify_file_matches_read_path(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, verify_same);
    for_each_file(CRASHERS, verify_same);
    for_each_file(ONESCOPE_TESTDATA, verify_cuts);
    onescope_buffer b;
    make_big_steps(&b);
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s/big.ostm", scratch);
    test_write_file(tmp, b.data, b.size);
    verify_cuts(tmp);
    onescope_buffer_free(&b);
    onescope_error e;
    onescope_verify_result v;
    assert_int_equal(onescope_replay_verify_file(NULL, NULL, &v, &e), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_verify_file("/nonexistent/x.ostm", NULL, NULL, &e),
                     ONESCOPE_E_IO);
    assert_int_equal(onescope_replay_verify_file(scratch, NULL, NULL, &e), ONESCOPE_E_IO);
    onescope_parse_options o = {.max_input_bytes = 100};
    assert_int_equal(
        onescope_replay_verify_file(ONESCOPE_TESTDATA "/test-2d-600.ostm", &o, NULL, &e),
        ONESCOPE_E_TOO_LARGE);
    assert_error_at(e, ONESCOPE_E_TOO_LARGE, 100);
    assert_int_equal(
        onescope_replay_verify_file(ONESCOPE_TESTDATA "/test-2d-600.ostm", NULL, &v, &e),
        ONESCOPE_OK);
    assert_true(v.matched);
    assert_int_equal(v.rows_checked, 601);
}

/* A replay of many empty steps and all-zero hash rows (the first is wrong): a verify must
 * read the whole file (validation first) and then fails at row 0. */
static uint8_t *zero_steps(uint32_t steps, size_t *n) {
    *n = 22 + 8 * ((size_t)steps + 1) + 2 * (size_t)steps;
    uint8_t *d = calloc(1, *n);
    assert_non_null(d);
    /* version 1, hash rows; a setup of 6 bytes: 3D, one body, seed 1; then the step count */
    const uint8_t head[18] = {'O', 'S', 'T', 'M', 1, 0, 1, 0, 6, 0, 0, 0, 3, 1, 1, 0, 0, 0};
    memcpy(d, head, sizeof head);
    onescope_os_put_u32(d + 18, steps);
    return d;
}

static void test_verify_pipe_memory(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = zero_steps(1u << 20, &n); /* 10 MiB */
    char path[96];
    snprintf(path, sizeof path, "%s/zero.ostm", scratch);
    test_write_file(path, d, n);
    test_byte_count b;
    test_byte_count_init(&b);
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = &b.allocator;
    onescope_verify_result v;
    onescope_error e;
    /* the file first: a file's memory is fixed, and so is a pipe's, spooled */
    assert_int_equal(onescope_replay_verify_file(path, &o, &v, &e), ONESCOPE_E_MISMATCH);
    size_t file_peak = b.peak;
    verify_call c = {&o, &v, &e};
    for (int as_stdin = 0; as_stdin < 2; as_stdin++) {
        test_byte_count_init(&b);
        assert_int_equal(through_pipe(d, n, 65536, as_stdin, verify_call_fn, &c),
                         ONESCOPE_E_MISMATCH);
        assert_int_equal(v.first_row, 0);
        assert_int_equal(b.live, 0);
        print_message("verify of %zu bytes: peak %zu bytes from a file, %zu from %s\n", n,
                      file_peak, b.peak, as_stdin ? "stdin" : "a pipe");
        assert_true(b.peak < file_peak + (1u << 20)); /* the spool's own buffers */
        assert_true(b.peak < n / 3);
    }
    /* what it took before: the stream read whole */
    test_byte_count_init(&b);
    onescope_replay *r;
    assert_int_equal(onescope_replay_read_file(path, &o, &r, &e), ONESCOPE_OK);
    assert_true(b.peak >= n);
    onescope_replay_free(r);
    free(d);
}

static onescope_code verify_with(const onescope_allocator *a, void *ctx) {
    onescope_parse_options o = {.allocator = a};
    onescope_error e;
    return onescope_replay_verify_file(ctx, &o, NULL, &e);
}

static void test_verify_alloc_failures(void **state) {
    (void)state;
    assert_true(test_alloc_walk(verify_with, ONESCOPE_TESTDATA "/test-live-attach.ostm") >= 4);
    test_alloc_walk(verify_with, ONESCOPE_TESTDATA "/test-2d-600.ostm");
}

/* ---- module recordings (OSTM v2): the one scan fed whole (the parser) and in pieces ---- */

static onescope_code rec_parse_line(const uint8_t *d, size_t n, char *line, size_t size) {
    onescope_recording *r = NULL;
    onescope_error e;
    onescope_code rc = onescope_recording_parse(d, n, "x.ostm", NULL, &r, &e);
    onescope_recording_free(r);
    line[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static onescope_code rec_push_line(const uint8_t *d, size_t n, size_t chunk, bool unknown,
                                   char *line, size_t size) {
    onescope_os_rec_scan s;
    onescope_error e;
    if (unknown)
        onescope_os_rec_scan_init_unknown(&s, ONESCOPE_MAX_INPUT_BYTES, "x.ostm");
    else
        onescope_os_rec_scan_init(&s, n, false, "x.ostm");
    static const size_t sizes[] = {1, 3, 12, 11, 13, 1000, 7, 4096};
    size_t pos = 0;
    for (int i = 0; pos < n; i++) {
        size_t k = chunk ? chunk : sizes[i % 8];
        if (k > n - pos) k = n - pos;
        if (onescope_os_rec_scan_feed(&s, d + pos, k) != ONESCOPE_OK) break;
        pos += k;
    }
    onescope_code rc = onescope_os_rec_scan_end(&s, &e);
    line[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static void rec_assert_same(const uint8_t *d, size_t n) {
    char a[1024], b[1024];
    static const size_t chunks[] = {0, 1, 5, 1u << 20};
    onescope_code want = rec_parse_line(d, n, a, sizeof a);
    for (int i = 0; i < 8; i++) {
        onescope_code got = rec_push_line(d, n, chunks[i % 4], i >= 4, b, sizeof b);
        if (got != want || strcmp(a, b) != 0) {
            print_error("size %zu chunk %zu%s:\n parser: %s\n stream: %s\n", n, chunks[i % 4],
                        i >= 4 ? " (size unknown)" : "", a, b);
            fail();
        }
    }
}

/* Five recordings of the test module: tool mode with inputs of up to 1400 bytes; engine mode
 * with a 5000-byte start snapshot and no check of it (the container does not look inside);
 * tool mode with entity rows (kind 2); with entity rows and keyframes every 8 steps (kind 3);
 * with keyframes every 5 steps and no entity rows (kind 4). */
#define RECORDING_KINDS 5
static void make_recording(const char *path, int kind) {
    bool engine = kind == 1;
    onescope_recording_def def = onescope_recording_def_default();
    const uint8_t setup[6] = {3, 6, 11, 0, 0, 0};
    def.module = onescope_module_test();
    def.setup = setup;
    def.setup_size = 6;
    uint8_t *snap = calloc(1, 5000);
    assert_non_null(snap);
    if (engine) {
        def.engine_mode = true;
        def.start_snapshot = snap;
        def.snapshot_size = 5000;
    }
    def.entity_rows = kind == 2 || kind == 3;
    def.keyframe_every = kind == 3 ? 8 : kind == 4 ? 5 : 0;
    onescope_recording_writer *w;
    onescope_error e;
    assert_int_equal(onescope_recording_writer_open(path, &def, NULL, NULL, &w, &e), ONESCOPE_OK);
    uint8_t in[1400];
    for (uint32_t i = 0; i < 40; i++) {
        size_t ops = i % 7 == 0 ? 100 : i % 3; /* impulses on body i % 6 */
        for (size_t k = 0; k < ops; k++) {
            uint8_t op[14] = {1, (uint8_t)(i % 6), (uint8_t)(k + 1)};
            memcpy(in + 14 * k, op, 14);
        }
        uint64_t h = i * 0x9e3779b97f4a7c15u;
        assert_int_equal(onescope_recording_writer_append(w, in, 14 * ops, engine ? &h : NULL, &e),
                         ONESCOPE_OK);
    }
    assert_int_equal(onescope_recording_writer_close(w, NULL, &e), ONESCOPE_OK);
    onescope_recording_writer_free(w);
    free(snap);
}

/* Each byte of a keyframe's two lengths and its entity count changed four ways, and the
 * lengths and the count set to the values next to each rule's edge. */
static void rec_keyframe_mutations(uint8_t *m, size_t n) {
    onescope_recording *r = NULL;
    onescope_error e;
    assert_int_equal(onescope_recording_parse(m, n, "k", NULL, &r, &e), ONESCOPE_OK);
    uint32_t count = onescope_recording_keyframe_count(r);
    assert_true(count >= 2);
    for (uint32_t i = 0; i < count; i += count - 1) { /* the first and the last */
        onescope_keyframe k;
        assert_int_equal(onescope_recording_keyframe(r, i, &k), ONESCOPE_OK);
        /* its length field, as an offset: the parsed copy starts setup_at before its setup */
        const uint8_t *copy =
            onescope_recording_setup(r, NULL) - (18 + strlen(onescope_recording_module_id(r)) +
                                                 strlen(onescope_recording_module_version(r)));
        size_t at = (size_t)(k.ids - copy) - 12 - k.snapshot_size;
        assert_memory_equal(m + at, k.ids - 12 - k.snapshot_size, 4);
        size_t fields[] = {at, at + 4, at + 8 + k.snapshot_size};
        uint32_t len = onescope_os_get_u32(m + at);
        for (int f = 0; f < 3; f++) {
            for (size_t b = fields[f]; b < fields[f] + 4; b++) {
                static const uint8_t values[] = {0xFF, 0x00, 0x01, 0x80};
                for (int v = 0; v < 4; v++) {
                    uint8_t old = m[b];
                    m[b] = values[v];
                    rec_assert_same(m, n);
                    m[b] = old;
                }
            }
            const uint32_t edges[] = {0,
                                      1,
                                      7,
                                      8,
                                      len - 8,
                                      len - 7,
                                      len - 1,
                                      len + 1,
                                      1048576,
                                      1048577,
                                      k.entity_count + 1,
                                      (uint32_t)(n - at - 4),
                                      (uint32_t)(n - at - 3)};
            uint8_t old[4];
            memcpy(old, m + fields[f], 4);
            for (size_t v = 0; v < sizeof edges / sizeof edges[0]; v++) {
                onescope_os_put_u32(m + fields[f], edges[v]);
                rec_assert_same(m, n);
            }
            memcpy(m + fields[f], old, 4);
        }
        /* cut at every byte of the keyframe and the record after it */
        for (size_t len2 = at - 12; len2 <= at + 4 + len + 16 && len2 <= n; len2++)
            rec_assert_same(m, len2);
    }
    onescope_recording_free(r);
}

/* Every cut, trailing bytes, each of the first 200 bytes changed four ways and 300 more
 * spread over the rest, each field of the keyframes; and onescope_file_validate (the scan
 * through one buffer) on cuts. */
static void test_recording_push_matches_parser(void **state) {
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "%s/r.ostm", scratch);
    for (int kind = 0; kind < RECORDING_KINDS; kind++) {
        make_recording(path, kind);
        size_t n;
        uint8_t *d = slurp(path, &n);
        onescope_recording *r = NULL;
        onescope_error e;
        assert_int_equal(onescope_recording_parse(d, n, "r", NULL, &r, &e), ONESCOPE_OK);
        assert_int_equal(onescope_recording_keyframe_count(r), kind == 3 ? 5 : kind == 4 ? 8 : 0);
        onescope_recording_free(r);
        for (size_t len = 0; len <= n; len += len < 2048 ? 1 : 1 + n / 300) rec_assert_same(d, len);
        uint8_t *m = malloc(n + 8);
        assert_non_null(m);
        memcpy(m, d, n);
        memcpy(m + n, "trailing", 8);
        rec_assert_same(m, n + 8);
        for (size_t i = 0; i < n; i += i < 200 ? 1 : 1 + n / 300) {
            static const uint8_t values[] = {0xFF, 0x00, 0x01, 0x80};
            for (int v = 0; v < 4; v++) {
                uint8_t old = m[i];
                m[i] = values[v];
                rec_assert_same(m, n);
                m[i] = old;
            }
        }
        if (kind >= 3) rec_keyframe_mutations(m, n);
        free(m);
        validate_file_same(path);
        validate_pipe_same(path);
        char cut[96];
        snprintf(cut, sizeof cut, "%s/cut", scratch);
        for (size_t len = 0; len <= n; len += 1 + n / 60) {
            test_write_file(cut, d, len);
            validate_file_same(cut);
        }
        free(d);
    }
    unlink(path);
}

/* ---- every format's codec (check_internal.h): its parse, and its check through the one
 * frame in pieces, give the same line, of known and of unknown size ---- */

typedef struct mem_source {
    const uint8_t *d;
    size_t n, at, chunk;
} mem_source;

static bool mem_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    (void)error;
    mem_source *m = user;
    size_t k = m->n - m->at < m->chunk ? m->n - m->at : m->chunk;
    *data = m->d + m->at;
    *size = k;
    m->at += k;
    return true;
}

static onescope_code codec_line(const onescope_os_codec *codec, const uint8_t *d, size_t n,
                                size_t chunk, bool unknown, char *line, size_t size) {
    onescope_error e;
    memset(&e, 0, sizeof e);
    size_t first = n < chunk ? n : chunk;
    mem_source m = {d, n, first, chunk};
    onescope_code rc = onescope_os_codec_check(
        codec, d, first, unknown ? ONESCOPE_OS_SIZE_UNKNOWN : n, mem_more, &m, "x", NULL, &e);
    line[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, line, size);
    return rc;
}

static void codec_same_bytes(const char *label, const uint8_t *d, size_t n) {
    const onescope_os_codec *codec = onescope_os_codec_of(onescope_format_detect(d, n));
    if (codec == NULL) return;
    onescope_error e;
    memset(&e, 0, sizeof e);
    char want[1024], got[1024];
    onescope_code rc = codec->parse(d, n, "x", NULL, &e);
    want[0] = '\0';
    if (rc != ONESCOPE_OK) error_line(&e, want, sizeof want);
    static const size_t chunks[] = {1u << 20, 4096, 7};
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        if (chunks[c] < 4096 && n > ((size_t)1 << 16)) continue; /* bytewise only when small */
        for (int unknown = 0; unknown < 2; unknown++) {
            onescope_code got_rc = codec_line(codec, d, n, chunks[c], unknown, got, sizeof got);
            if (got_rc != rc || strcmp(want, got) != 0) {
                print_error("%s (%zu bytes, pieces of %zu, %s size):\n parse: %s\n codec: %s\n",
                            label, n, chunks[c], unknown ? "unknown" : "known", want, got);
                fail();
            }
        }
    }
}

static void codec_file(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    codec_same_bytes(path, d, n);
    /* and a cut of it: the end of the input is where the rules that need the size sit */
    if (n > 1) codec_same_bytes(path, d, n - 1 - n / 3);
    free(d);
}

static void test_codecs_match_their_parsers(void **state) {
    (void)state;
    for_each_file(ONESCOPE_TESTDATA, codec_file);
    for_each_file(CRASHERS, codec_file);
    assert_null(onescope_os_codec_of(ONESCOPE_FORMAT_UNKNOWN));
}

int main(void) {
    snprintf(scratch, sizeof scratch, "/tmp/onescope-validate-%ld", (long)getpid());
    mkdir(scratch, 0700);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_matches_parser),
        cmocka_unit_test(test_validate_file_matches_read_path),
        cmocka_unit_test(test_validate_pipe_matches_file),
        cmocka_unit_test(test_validate_file_edges),
        cmocka_unit_test(test_validate_alloc_failures),
        cmocka_unit_test(test_map_matches_read_file),
        cmocka_unit_test(test_map_errors_and_copies),
        cmocka_unit_test(test_map_alloc_failures),
        cmocka_unit_test(test_pose_rule_every_lane),
        cmocka_unit_test(test_ostm_push_matches_parser),
        cmocka_unit_test(test_ostm_validate_edges),
        cmocka_unit_test(test_verify_file_matches_read_path),
        cmocka_unit_test(test_verify_alloc_failures),
        cmocka_unit_test(test_verify_pipe_memory),
        cmocka_unit_test(test_recording_push_matches_parser),
        cmocka_unit_test(test_codecs_match_their_parsers),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
