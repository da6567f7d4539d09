/* The input limit (max_input_bytes) on every read path of src/file.c: a file of N bytes is
 * refused with ONESCOPE_E_TOO_LARGE under a limit of N - 1 and read under N, whether it comes
 * as a regular file (checked from its size), through standard input or a pipe's /dev/fd name
 * (counted as it is read), mapped, streamed for validation, verification or a diff. Each
 * path checks the limit itself, and a regular file gets the same line on every path (its
 * size, before a byte is read or mapped): a mutant dropping one path's check survived every
 * other suite, the parser's own check refusing the bytes later with another line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static char dir[256];
static char ospc[512], ostm[512];
static long ospc_size, ostm_size;

static long size_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

static onescope_parse_options limit(long bytes) {
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = (size_t)bytes;
    return o;
}

/* The refusal is the limit's: its code and a line that says so. */
static void assert_too_large(onescope_code rc, const onescope_error *err) {
    char line[1024];
    onescope_error_format(err, line, sizeof line);
    if (rc != ONESCOPE_E_TOO_LARGE || strstr(line, "limit") == NULL)
        fail_msg("expected the input limit's refusal, got code %d: %s", (int)rc, line);
}

/* A regular file's refusal is the same line on every path (the file-size rule of src/file.c,
 * checked before a byte is read, mapped or parsed): the line onescope_file_read gives. */
static void assert_file_refused(onescope_code rc, const onescope_error *err, const char *path,
                                long bytes) {
    assert_too_large(rc, err);
    onescope_buffer b;
    onescope_error want;
    assert_int_equal(onescope_file_read(path, (size_t)bytes, NULL, &b, &want),
                     ONESCOPE_E_TOO_LARGE);
    char got_line[1024], want_line[1024];
    onescope_error_format(err, got_line, sizeof got_line);
    onescope_error_format(&want, want_line, sizeof want_line);
    assert_string_equal(got_line, want_line);
}

/* A pipe fed with a file's bytes by a child; returns the read end. */
static int pipe_of(const char *path, pid_t *child) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    *child = fork();
    assert_true(*child >= 0);
    if (*child == 0) {
        close(p[0]);
        int fd = open(path, O_RDONLY);
        char buf[4096];
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
            if (write(p[1], buf, (size_t)n) != n) break;
        _exit(0);
    }
    close(p[1]);
    return p[0];
}

static void pipe_done(int fd, pid_t child) {
    close(fd);
    int status;
    waitpid(child, &status, 0);
}

/* Standard input replaced by a pipe of path's bytes for one call. */
typedef struct stdin_swap {
    int saved, fd;
    pid_t child;
} stdin_swap;

static stdin_swap stdin_from(const char *path) {
    stdin_swap s;
    s.saved = dup(STDIN_FILENO);
    s.fd = pipe_of(path, &s.child);
    assert_int_equal(dup2(s.fd, STDIN_FILENO), STDIN_FILENO);
    return s;
}

static void stdin_back(stdin_swap *s) {
    assert_int_equal(dup2(s->saved, STDIN_FILENO), STDIN_FILENO);
    close(s->saved);
    pipe_done(s->fd, s->child);
}

static void file_read_paths(void **state) {
    (void)state;
    onescope_buffer b;
    onescope_error err;
    /* regular: from the size */
    assert_too_large(onescope_file_read(ospc, (size_t)ospc_size - 1, NULL, &b, &err), &err);
    assert_int_equal(onescope_file_read(ospc, (size_t)ospc_size, NULL, &b, &err), ONESCOPE_OK);
    assert_int_equal(b.size, ospc_size);
    onescope_buffer_free(&b);
    /* standard input: counted as read */
    for (int exact = 0; exact < 2; exact++) {
        stdin_swap s = stdin_from(ospc);
        onescope_code rc =
            onescope_file_read("-", (size_t)ospc_size - (exact ? 0 : 1), NULL, &b, &err);
        stdin_back(&s);
        if (exact) {
            assert_int_equal(rc, ONESCOPE_OK);
            assert_int_equal(b.size, ospc_size);
            onescope_buffer_free(&b);
        } else {
            assert_too_large(rc, &err);
        }
    }
    /* a pipe named by path (not "-"): the same counting */
    for (int exact = 0; exact < 2; exact++) {
        pid_t child;
        int fd = pipe_of(ostm, &child);
        char name[64];
        snprintf(name, sizeof name, "/dev/fd/%d", fd);
        onescope_code rc =
            onescope_file_read(name, (size_t)ostm_size - (exact ? 0 : 1), NULL, &b, &err);
        pipe_done(fd, child);
        if (exact) {
            assert_int_equal(rc, ONESCOPE_OK);
            assert_int_equal(b.size, ostm_size);
            onescope_buffer_free(&b);
        } else {
            assert_too_large(rc, &err);
        }
    }
}

static void format_read_paths(void **state) {
    (void)state;
    onescope_error err;
    onescope_parse_options under = limit(ospc_size - 1), at = limit(ospc_size);
    onescope_pose_cache *c;
    assert_file_refused(onescope_pose_cache_read_file(ospc, &under, &c, &err), &err, ospc,
                        ospc_size - 1);
    assert_int_equal(onescope_pose_cache_read_file(ospc, &at, &c, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    /* mapped: regular files map, "-" reads */
    assert_file_refused(onescope_pose_cache_map(ospc, &under, &c, &err), &err, ospc, ospc_size - 1);
    assert_int_equal(onescope_pose_cache_map(ospc, &at, &c, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    stdin_swap s = stdin_from(ospc);
    onescope_code rc = onescope_pose_cache_map("-", &under, &c, &err);
    stdin_back(&s);
    assert_too_large(rc, &err);

    onescope_parse_options r_under = limit(ostm_size - 1), r_at = limit(ostm_size);
    onescope_replay *r;
    assert_file_refused(onescope_replay_read_file(ostm, &r_under, &r, &err), &err, ostm,
                        ostm_size - 1);
    assert_int_equal(onescope_replay_read_file(ostm, &r_at, &r, &err), ONESCOPE_OK);
    onescope_replay_free(r);
}

static void validate_paths(void **state) {
    (void)state;
    onescope_error err;
    const char *files[] = {ospc, ostm};
    long sizes[] = {ospc_size, ostm_size};
    for (int i = 0; i < 2; i++) {
        onescope_parse_options under = limit(sizes[i] - 1), at = limit(sizes[i]);
        onescope_format f;
        /* streamed: a regular file */
        assert_file_refused(onescope_file_validate(files[i], &under, &f, &err), &err, files[i],
                            sizes[i] - 1);
        assert_int_equal(onescope_file_validate(files[i], &at, &f, &err), ONESCOPE_OK);
        /* whole: standard input */
        stdin_swap s = stdin_from(files[i]);
        onescope_code rc = onescope_file_validate("-", &under, &f, &err);
        stdin_back(&s);
        assert_too_large(rc, &err);
        s = stdin_from(files[i]);
        rc = onescope_file_validate("-", &at, &f, &err);
        stdin_back(&s);
        assert_int_equal(rc, ONESCOPE_OK);
    }
}

static void verify_paths(void **state) {
    (void)state;
    onescope_error err;
    onescope_verify_result res;
    onescope_parse_options under = limit(ostm_size - 1), at = limit(ostm_size);
    assert_file_refused(onescope_replay_verify_file(ostm, &under, &res, &err), &err, ostm,
                        ostm_size - 1);
    assert_int_equal(onescope_replay_verify_file(ostm, &at, &res, &err), ONESCOPE_OK);
    stdin_swap s = stdin_from(ostm);
    onescope_code rc = onescope_replay_verify_file("-", &under, &res, &err);
    stdin_back(&s);
    assert_too_large(rc, &err);
    s = stdin_from(ostm);
    rc = onescope_replay_verify_file("-", &at, &res, &err);
    stdin_back(&s);
    assert_int_equal(rc, ONESCOPE_OK);
}

/* The streamed diff opens each cache through the pose stream: its own size check. */
static void diff_stream_paths(void **state) {
    (void)state;
    onescope_error err;
    onescope_diff_options o = {0};
    onescope_diff_cache *d;
    o.parse = limit(ospc_size - 1);
    assert_file_refused(onescope_diff_cache_files(ospc, ospc, &o, NULL, &d, &err), &err, ospc,
                        ospc_size - 1);
    o.parse = limit(ospc_size);
    assert_int_equal(onescope_diff_cache_files(ospc, ospc, &o, NULL, &d, &err), ONESCOPE_OK);
    onescope_diff_cache_free(d);
    /* a non-regular cache goes through the whole-file read */
    o.parse = limit(ospc_size - 1);
    stdin_swap s = stdin_from(ospc);
    onescope_code rc = onescope_diff_cache_files("-", ospc, &o, NULL, &d, &err);
    stdin_back(&s);
    assert_too_large(rc, &err);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/onescope-read-limits-%ld", (long)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return 1;
    /* a cache of 40 frames written here, a committed replay */
    snprintf(ospc, sizeof ospc, "%s/c.ospc", dir);
    snprintf(ostm, sizeof ostm, "%s/test-2d-600.ostm", ONESCOPE_TESTDATA);
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, 2, 40, NULL, &c, &err) != ONESCOPE_OK ||
        onescope_pose_cache_write_file(c, ospc, &err) != ONESCOPE_OK)
        return 1;
    onescope_pose_cache_free(c);
    ospc_size = size_of(ospc);
    ostm_size = size_of(ostm);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_read_paths),   cmocka_unit_test(format_read_paths),
        cmocka_unit_test(validate_paths),    cmocka_unit_test(verify_paths),
        cmocka_unit_test(diff_stream_paths),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
