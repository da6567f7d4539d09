/* Helpers shared by the cmocka suites. */
#ifndef ONESCOPE_TEST_UTIL_H
#define ONESCOPE_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "onescope/onescope.h"

/* An allocator that fails the Nth allocation (1-based; 0 never) and counts what is live,
 * so a test can walk N = 1, 2, ... until the call succeeds and check nothing leaked. */
typedef struct test_alloc {
    onescope_allocator allocator;
    long fail_at; /* which allocation fails */
    long count;   /* allocations attempted */
    long live;    /* blocks not yet freed */
} test_alloc;

void test_alloc_init(test_alloc *t, long fail_at);

/* An allocator that keeps the largest block asked for and the most bytes live at once (a
 * memory bound checked as a number of bytes, never as a time). */
typedef struct test_byte_count {
    onescope_allocator allocator;
    size_t largest, live, peak;
} test_byte_count;

void test_byte_count_init(test_byte_count *b);

/* The allocation-failure walk (zstd FUZ_mallocTests): calls fn(allocator, ctx) with the
 * Nth allocation refused, for N = 1, 2, ... until a call makes fewer than N allocations
 * and so runs with none refused. fn must free everything it got before returning. Each
 * refused run must return ONESCOPE_E_NOMEM, the run without a refusal ONESCOPE_OK, and
 * every run must leave no block live. Returns how many allocations the successful run
 * made (so a caller can check fn allocated at all). Fails the test otherwise. */
typedef onescope_code (*test_alloc_fn)(const onescope_allocator *allocator, void *ctx);
#define test_alloc_walk(fn, ctx) test_alloc_walk_at((fn), (ctx), 0, #fn, __FILE__, __LINE__)
/* The same for a call allowed to recover from a refusal (e.g. by retrying another way):
 * a refused run may also return ONESCOPE_OK, never any other code, and never leak. */
#define test_alloc_walk_recovering(fn, ctx)                                                        \
    test_alloc_walk_at((fn), (ctx), 1, #fn, __FILE__, __LINE__)
long test_alloc_walk_at(test_alloc_fn fn, void *ctx, int may_recover, const char *what,
                        const char *file, int line);

/* Deterministic pseudo-random numbers for generated inputs (splitmix64). */
uint64_t test_rand(uint64_t *state);

/* Asserts the error has this code and offset, printing it on failure. */
#define assert_error_at(err, want_code, want_offset)                                               \
    test_assert_error_at(&(err), (want_code), (want_offset), __FILE__, __LINE__)
void test_assert_error_at(const onescope_error *err, onescope_code code, uint64_t offset,
                          const char *file, int line);

/* Writes a file for a test; fails the test on error. */
void test_write_file(const char *path, const void *data, size_t size);

/* A growing text buffer for comparing whole runs as text (s NUL-terminated; free(s)). */
typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

void sb_put(strbuf *b, const void *p, size_t n);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
