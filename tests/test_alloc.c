/* Allocation-failure walks (test_alloc_walk in test_util.c) over every call that
 * allocates (files, OSPC, OSTM and its runs): each refused allocation must give
 * ONESCOPE_E_NOMEM and leak nothing. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* A valid cache with texts, names and an absent entity, written with libc. */
static onescope_buffer sample_bytes(uint32_t entities, uint32_t frames) {
    onescope_pose_cache *c = NULL;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, entities, frames, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(
        onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_SCENE, "sc\xc3\xa8ne", 6, &err),
        ONESCOPE_OK);
    for (uint32_t i = 0; i < entities; i++) {
        c->entities[i].id = 100 + i;
        assert_int_equal(onescope_pose_cache_set_entity_name(c, i, "body", 4, &err), ONESCOPE_OK);
    }
    c->poses[0].position[0] = NAN;
    onescope_buffer out;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &out, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    return out;
}

/* fn results must carry a matching error. */
static onescope_code checked(onescope_code rc, const onescope_error *err) {
    if (rc != ONESCOPE_OK) assert_int_equal(err->code, rc);
    return rc;
}

/* ---- onescope_file_read ---- */

typedef struct file_ctx {
    const char *path;
    size_t size;
    const uint8_t *want;
} file_ctx;

static onescope_code read_file_fn(const onescope_allocator *a, void *ctx) {
    file_ctx *f = ctx;
    onescope_buffer buf;
    onescope_error err;
    onescope_code rc = checked(onescope_file_read(f->path, 0, a, &buf, &err), &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(buf.size, f->size);
        assert_memory_equal(buf.data, f->want, f->size);
        onescope_buffer_free(&buf);
    } else {
        assert_null(buf.data);
    }
    return rc;
}

static void test_read_file_regular(void **state) {
    (void)state;
    uint8_t data[5000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7);
    const char *path = "test_alloc_read.bin";
    test_write_file(path, data, sizeof data);
    file_ctx f = {path, sizeof data, data};
    assert_true(test_alloc_walk(read_file_fn, &f) >= 1);
    remove(path);
}

/* Standard input from a pipe has no size up front, so the buffer grows: every growth step
 * gets refused once. A child writes the bytes for each run. */
static uint8_t pipe_data[300000];

static onescope_code read_pipe_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        size_t off = 0;
        while (off < sizeof pipe_data) {
            ssize_t n = write(fds[1], pipe_data + off, sizeof pipe_data - off);
            if (n <= 0) _exit(1);
            off += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fds[0], STDIN_FILENO) >= 0);
    close(fds[0]);
    file_ctx f = {"-", sizeof pipe_data, pipe_data};
    onescope_code rc = read_file_fn(a, &f);
    assert_true(dup2(saved, STDIN_FILENO) >= 0); /* closes our read end: the child may stop */
    close(saved);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return rc;
}

static void test_read_file_pipe(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof pipe_data; i++) pipe_data[i] = (uint8_t)(i ^ (i >> 9));
    signal(SIGPIPE, SIG_IGN);
    /* 64 KiB, then 128, 256 and 512 KiB: at least four allocations. */
    assert_true(test_alloc_walk(read_pipe_fn, NULL) >= 4);
}

/* ---- OSPC ---- */

static onescope_code parse_fn(const onescope_allocator *a, void *ctx) {
    const onescope_buffer *in = ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc =
        checked(onescope_pose_cache_parse(in->data, in->size, "walk.ospc", &o, &c, &err), &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(c->entity_count, 4);
        assert_string_equal(c->entities[3].name.data, "body");
    } else {
        assert_null(c);
    }
    onescope_pose_cache_free(c);
    return rc;
}

static void test_parse(void **state) {
    (void)state;
    onescope_buffer in = sample_bytes(4, 3);
    /* cache, entities, poses, 6 texts, id set, 4 names */
    assert_true(test_alloc_walk(parse_fn, &in) >= 14);
    onescope_buffer_free(&in);
}

typedef struct write_ctx {
    const onescope_pose_cache *cache;
    const onescope_buffer *want;
} write_ctx;

static onescope_code write_fn(const onescope_allocator *a, void *ctx) {
    write_ctx *w = ctx;
    onescope_buffer out;
    onescope_error err;
    onescope_code rc = checked(onescope_pose_cache_write(w->cache, a, &out, &err), &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(out.size, w->want->size);
        assert_memory_equal(out.data, w->want->data, out.size);
        onescope_buffer_free(&out);
    } else {
        assert_null(out.data);
    }
    return rc;
}

static void test_write(void **state) {
    (void)state;
    onescope_buffer in = sample_bytes(5, 2);
    onescope_pose_cache *c = NULL;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(in.data, in.size, "in", NULL, &c, &err),
                     ONESCOPE_OK);
    write_ctx w = {c, &in};
    assert_true(test_alloc_walk(write_fn, &w) >= 1);
    onescope_pose_cache_free(c);
    onescope_buffer_free(&in);
}

/* Everything in the cache's own allocator: create, set texts, validate, write, parse back. */
static onescope_code build_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = checked(onescope_pose_cache_create(2, 3, 2, a, &c, &err), &err);
    if (rc != ONESCOPE_OK) {
        assert_null(c);
        return rc;
    }
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT && rc == ONESCOPE_OK; i++)
        rc = checked(onescope_pose_cache_set_text(c, i, "text", 4, &err), &err);
    for (uint32_t i = 0; i < c->entity_count && rc == ONESCOPE_OK; i++)
        rc = checked(onescope_pose_cache_set_entity_name(c, i, "\xe2\x82\xac", 3, &err), &err);
    if (rc == ONESCOPE_OK) rc = checked(onescope_pose_cache_validate(c, "built", &err), &err);
    onescope_buffer out = {NULL, 0, NULL};
    if (rc == ONESCOPE_OK) rc = checked(onescope_pose_cache_write(c, a, &out, &err), &err);
    if (rc == ONESCOPE_OK) {
        onescope_parse_options o = onescope_parse_options_default();
        o.allocator = a;
        onescope_pose_cache *back = NULL;
        rc = checked(onescope_pose_cache_parse(out.data, out.size, "back", &o, &back, &err), &err);
        if (rc == ONESCOPE_OK) assert_string_equal(back->entities[2].name.data, "\xe2\x82\xac");
        onescope_pose_cache_free(back);
    }
    onescope_buffer_free(&out);
    onescope_pose_cache_free(c);
    return rc;
}

static void test_create_set_write_parse(void **state) {
    (void)state;
    assert_true(test_alloc_walk(build_fn, NULL) >= 20);
}

static onescope_code read_ospc_fn(const onescope_allocator *a, void *ctx) {
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = checked(onescope_pose_cache_read_file(ctx, &o, &c, &err), &err);
    onescope_pose_cache_free(c);
    return rc;
}

static void test_read_ospc_file(void **state) {
    (void)state;
    onescope_buffer in = sample_bytes(2, 2);
    const char *path = "test_alloc_read.ospc";
    test_write_file(path, in.data, in.size);
    /* One read path (the file's buffer, then the parser): every refusal is NOMEM. */
    assert_true(test_alloc_walk(read_ospc_fn, (void *)path) >= 2);
    remove(path);
    onescope_buffer_free(&in);
}

/* ---- OSTM ---- */

/* Builds a small replay in the given allocator: create, snapshot, steps, hash rows, write. */
static onescope_code build_replay(const onescope_allocator *a, onescope_buffer *out) {
    onescope_sim_setup setup = {3, 3, 42};
    onescope_link_block link = {ONESCOPE_LINK_ROLE_RECEIVER, 1, 2};
    onescope_replay *r = NULL;
    onescope_error err;
    onescope_code rc = checked(onescope_replay_create(&setup, &link, a, &r, &err), &err);
    if (rc != ONESCOPE_OK) {
        assert_null(r);
        return rc;
    }
    for (int i = 0; i < 40 && rc == ONESCOPE_OK; i++) { /* enough steps for the arrays to grow */
        onescope_op op = {ONESCOPE_OP_IMPULSE, (uint8_t)(i % 3), {i, -i, 3}};
        if (i % 7 == 6) op = (onescope_op){ONESCOPE_OP_SPAWN, 0, {100, 200, 300}};
        rc = checked(onescope_replay_append_ops(r, &op, 1, &err), &err);
    }
    if (rc == ONESCOPE_OK) rc = checked(onescope_replay_compute_hash_rows(r, &err), &err);
    if (rc == ONESCOPE_OK) rc = checked(onescope_replay_write(r, a, out, &err), &err);
    onescope_replay_free(r);
    return rc;
}

static onescope_code build_replay_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_buffer out = {NULL, 0, NULL};
    onescope_code rc = build_replay(a, &out);
    onescope_buffer_free(&out);
    return rc;
}

static onescope_code replay_parse_run_fn(const onescope_allocator *a, void *ctx) {
    const onescope_buffer *in = ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_replay *r = NULL;
    onescope_error err;
    onescope_code rc =
        checked(onescope_replay_parse(in->data, in->size, "walk.ostm", &o, &r, &err), &err);
    if (rc != ONESCOPE_OK) {
        assert_null(r);
        return rc;
    }
    onescope_verify_result v;
    rc = checked(onescope_replay_verify(r, a, &v, "walk.ostm", &err), &err);
    if (rc == ONESCOPE_OK) assert_true(v.matched);
    onescope_buffer out = {NULL, 0, NULL};
    if (rc == ONESCOPE_OK) rc = checked(onescope_replay_write(r, a, &out, &err), &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(out.size, in->size);
        assert_memory_equal(out.data, in->data, in->size);
    }
    onescope_buffer_free(&out);
    onescope_replay_free(r);
    return rc;
}

static void test_replay(void **state) {
    (void)state;
    assert_true(test_alloc_walk(build_replay_fn, NULL) >= 5);
    onescope_buffer bytes = {NULL, 0, NULL};
    assert_int_equal(build_replay(NULL, &bytes), ONESCOPE_OK);
    assert_true(test_alloc_walk(replay_parse_run_fn, &bytes) >= 4);
    onescope_buffer_free(&bytes);
}

/* The walker itself: a function that leaks or hides a refusal must be caught. These run
 * in a child so the expected cmocka failure does not end this suite. */
static onescope_code leaky_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    void *p = a->alloc(a->user, 8);
    void *q = a->alloc(a->user, 8);
    if (p == NULL || q == NULL) { /* the failure path is clean... */
        if (p) a->free(a->user, p);
        if (q) a->free(a->user, q);
        return ONESCOPE_E_NOMEM;
    }
    a->free(a->user, p);
    return ONESCOPE_OK; /* ...but success leaks q */
}

static onescope_code wrong_code_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    void *p = a->alloc(a->user, 8);
    if (p == NULL) return ONESCOPE_E_IO;
    a->free(a->user, p);
    return ONESCOPE_OK;
}

static void walk_leaky(void **state) {
    (void)state;
    test_alloc_walk(leaky_fn, NULL);
}
static void walk_wrong_code(void **state) {
    (void)state;
    test_alloc_walk(wrong_code_fn, NULL);
}

static int run_one_in_child(const char *name, void (*test)(void **)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL || freopen("/dev/null", "w", stderr) == NULL)
            _exit(3);
        const struct CMUnitTest t[] = {{name, test, NULL, NULL, NULL}};
        _exit(_cmocka_run_group_tests(name, t, 1, NULL, NULL) == 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

static void test_walker_catches_mistakes(void **state) {
    (void)state;
    assert_int_equal(run_one_in_child("leaky", walk_leaky), 1);
    assert_int_equal(run_one_in_child("wrong code", walk_wrong_code), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_file_regular),
        cmocka_unit_test(test_read_file_pipe),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_create_set_write_parse),
        cmocka_unit_test(test_read_ospc_file),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_walker_catches_mistakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
