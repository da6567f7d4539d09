#include "test_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *t_alloc(void *user, size_t size) {
    test_alloc *t = user;
    t->count++;
    if (t->fail_at != 0 && t->count == t->fail_at) return NULL;
    void *p = malloc(size);
    if (p) t->live++;
    return p;
}

static void t_free(void *user, void *ptr) {
    test_alloc *t = user;
    if (ptr) t->live--;
    free(ptr);
}

void test_alloc_init(test_alloc *t, long fail_at) {
    t->allocator.alloc = t_alloc;
    t->allocator.free = t_free;
    t->allocator.user = t;
    t->fail_at = fail_at;
    t->count = 0;
    t->live = 0;
}

static void *count_alloc(void *user, size_t size) {
    test_byte_count *b = user;
    size_t *p = malloc(sizeof(size_t) + size);
    if (p == NULL) return NULL;
    *p = size;
    if (size > b->largest) b->largest = size;
    b->live += size;
    if (b->live > b->peak) b->peak = b->live;
    return p + 1;
}

static void count_free(void *user, void *ptr) {
    if (ptr == NULL) return;
    test_byte_count *b = user;
    size_t *p = (size_t *)ptr - 1;
    b->live -= *p;
    free(p);
}

void test_byte_count_init(test_byte_count *b) {
    memset(b, 0, sizeof *b);
    b->allocator.alloc = count_alloc;
    b->allocator.free = count_free;
    b->allocator.user = b;
}

long test_alloc_walk_at(test_alloc_fn fn, void *ctx, int may_recover, const char *what,
                        const char *file, int line) {
    for (long n = 1; n < 1000000; n++) {
        test_alloc t;
        test_alloc_init(&t, n);
        onescope_code rc = fn(&t.allocator, ctx);
        if (t.live != 0)
            fail_msg("%s:%d: %s with allocation %ld refused: %ld blocks leaked (returned %s)", file,
                     line, what, n, t.live, onescope_error_name(rc));
        if (t.count < n) { /* nothing was refused: the call must have worked */
            if (rc != ONESCOPE_OK)
                fail_msg("%s:%d: %s failed with %s without a refused allocation", file, line, what,
                         onescope_error_name(rc));
            return t.count;
        }
        if (rc != ONESCOPE_E_NOMEM && !(may_recover && rc == ONESCOPE_OK))
            fail_msg("%s:%d: %s with allocation %ld of %ld refused returned %s, not out of memory",
                     file, line, what, n, t.count, onescope_error_name(rc));
    }
    fail_msg("%s:%d: %s never succeeded", file, line, what);
    return -1;
}

uint64_t test_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void test_assert_error_at(const onescope_error *err, onescope_code code, uint64_t offset,
                          const char *file, int line) {
    char msg[1024];
    onescope_error_format(err, msg, sizeof msg);
    if (err->code != code || !err->has_offset || err->offset != offset) {
        fail_msg("%s:%d: expected %s at offset %llu, got code %d (%s): %s", file, line,
                 onescope_error_name(code), (unsigned long long)offset, (int)err->code,
                 onescope_error_name(err->code), msg);
    }
}

void test_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

void sb_put(strbuf *b, const void *p, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        b->s = realloc(b->s, cap);
        assert_non_null(b->s);
        b->cap = cap;
    }
    if (n) memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void sb_printf(strbuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}
