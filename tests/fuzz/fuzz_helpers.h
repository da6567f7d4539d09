/* Shared pieces of the fuzz harnesses (tests/fuzz/<target>.c): asserts that are always on,
 * a reader of fuzz bytes, and optional parse options taken from the input's tail. */
#ifndef ONESCOPE_FUZZ_HELPERS_H
#define ONESCOPE_FUZZ_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onescope/onescope.h"

/* Never compiled out (NDEBUG does not touch it): a failed check is a crash the fuzzer
 * reports and the replay driver turns into a failing ctest. */
#define FUZZ_ASSERT_MSG(cond, ...)                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)
#define FUZZ_ASSERT(cond) FUZZ_ASSERT_MSG(cond, "%s", "")

/* Every harness defines this; libFuzzer or tests/fuzz/fuzz_main.c calls it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- consuming fuzz bytes (missing bytes read as zero, so any input is usable) ---- */

typedef struct fuzz_bytes {
    const uint8_t *data;
    size_t size;
    size_t pos;
} fuzz_bytes;

static inline fuzz_bytes fuzz_bytes_init(const uint8_t *data, size_t size) {
    fuzz_bytes b = {data, size, 0};
    return b;
}
static inline size_t fuzz_remaining(const fuzz_bytes *b) {
    return b->size - b->pos;
}
static inline uint8_t fuzz_u8(fuzz_bytes *b) {
    return b->pos < b->size ? b->data[b->pos++] : 0;
}
static inline uint32_t fuzz_u32(fuzz_bytes *b) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fuzz_u8(b) << (8 * i);
    return v;
}
static inline uint64_t fuzz_u64(fuzz_bytes *b) {
    uint64_t lo = fuzz_u32(b);
    return lo | ((uint64_t)fuzz_u32(b) << 32);
}
/* A value in [lo, hi] (hi - lo < 2^32). */
static inline uint32_t fuzz_range(fuzz_bytes *b, uint32_t lo, uint32_t hi) {
    uint32_t span = hi - lo;
    uint32_t v = span < 0x100u ? fuzz_u8(b) : fuzz_u32(b);
    return span == UINT32_MAX ? v : lo + v % (span + 1);
}
static inline float fuzz_f32(fuzz_bytes *b) {
    uint32_t u = fuzz_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double fuzz_f64(fuzz_bytes *b) {
    uint64_t u = fuzz_u64(b);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
/* Up to n bytes from the input (fewer at its end); *got says how many. */
static inline const uint8_t *fuzz_take(fuzz_bytes *b, size_t n, size_t *got) {
    if (n > fuzz_remaining(b)) n = fuzz_remaining(b);
    const uint8_t *p = b->data + b->pos;
    b->pos += n;
    *got = n;
    return p;
}

/* ---- options from the tail ----
 * An input that ends with the 11-byte trailer "FZOP" u32 max_input_bytes u16 fail_alloc_at
 * u8 reserved (little-endian) is parsed without the trailer, with that input limit and an
 * allocator that fails its fail_alloc_at-th allocation (0: never). Any other input is parsed
 * whole with the default options and an allocator that only counts. The counting allocator
 * lets every harness check that nothing leaks, also in the replay driver without ASan. */

#define FUZZ_TRAILER_BYTES 11u

typedef struct fuzz_env {
    onescope_allocator allocator;
    onescope_parse_options options;
    long fail_at; /* which allocation fails (1-based), 0 never */
    long count;   /* allocations attempted */
    long live;    /* blocks not yet freed */
    int failed;   /* 1 once an allocation was refused */
} fuzz_env;

static inline void *fuzz_env_alloc(void *user, size_t size) {
    fuzz_env *e = user;
    e->count++;
    if (e->fail_at != 0 && e->count >= e->fail_at) {
        e->failed = 1;
        return NULL;
    }
    void *p = malloc(size);
    if (p != NULL) e->live++;
    return p;
}

static inline void fuzz_env_free(void *user, void *ptr) {
    fuzz_env *e = user;
    if (ptr == NULL) return;
    e->live--;
    free(ptr);
}

/* Sets up env from the input; *size shrinks by the trailer when there is one. */
static inline void fuzz_env_init(fuzz_env *e, const uint8_t *data, size_t *size) {
    memset(e, 0, sizeof *e);
    e->allocator.alloc = fuzz_env_alloc;
    e->allocator.free = fuzz_env_free;
    e->allocator.user = e;
    e->options = onescope_parse_options_default();
    e->options.allocator = &e->allocator;
    size_t n = *size;
    if (n >= FUZZ_TRAILER_BYTES && memcmp(data + n - FUZZ_TRAILER_BYTES, "FZOP", 4) == 0) {
        const uint8_t *t = data + n - FUZZ_TRAILER_BYTES + 4;
        e->options.max_input_bytes =
            (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
        e->fail_at = (long)(t[4] | t[5] << 8);
        *size = n - FUZZ_TRAILER_BYTES;
    }
}

/* Checks that everything allocated through env was freed. */
static inline void fuzz_env_finish(const fuzz_env *e) {
    FUZZ_ASSERT_MSG(e->live == 0, "%ld blocks leaked", e->live);
}

/* Where line[0..n) stops being one line of printable text (n when it is one): a byte below
 * 0x20 or DEL, or invalid UTF-8 (an overlong, a surrogate, past U+10FFFF, a cut sequence). */
static inline size_t fuzz_unprintable_at(const char *line, size_t n) {
    const unsigned char *s = (const unsigned char *)line;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c < 0x20 || c == 0x7f) return i;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || len > n - i) return i;
        uint32_t cp = c & (0x7Fu >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3Fu);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return n;
}

/* Checks the invariants every failure must keep: a real code, a formatted line that names
 * the input and is exactly one line of printable text (no control byte, valid UTF-8, bounded
 * however long the input's keys and names), ONESCOPE_E_NOMEM only when the allocator refused,
 * an offset inside the input for parse errors (size is the input's length; pass SIZE_MAX to
 * skip that check). */
static inline void fuzz_check_error(const fuzz_env *e, onescope_code rc, const onescope_error *err,
                                    const char *input, size_t size) {
    FUZZ_ASSERT(rc != ONESCOPE_OK);
    FUZZ_ASSERT_MSG(err->code == rc, "returned %d, error says %d", (int)rc, (int)err->code);
    FUZZ_ASSERT(strcmp(onescope_error_name(rc), "unknown error") != 0);
    if (rc == ONESCOPE_E_NOMEM) FUZZ_ASSERT_MSG(e->failed, "NOMEM without a refused allocation");
    char line[2048];
    size_t want = onescope_error_format(err, line, sizeof line);
    FUZZ_ASSERT(want > 0 && strlen(line) == (want < sizeof line ? want : sizeof line - 1));
    FUZZ_ASSERT_MSG(want < sizeof line, "a %zu-byte message", want);
    size_t bad = fuzz_unprintable_at(line, want);
    FUZZ_ASSERT_MSG(bad == want, "byte 0x%02x at %zu is not printable text: %s",
                    (unsigned)(unsigned char)line[bad], bad, line);
    FUZZ_ASSERT_MSG(strncmp(line, input, strlen(input)) == 0, "message does not name the input: %s",
                    line);
    if (size != SIZE_MAX && err->has_offset)
        FUZZ_ASSERT_MSG(err->offset <= size, "offset %llu past the input's %zu bytes: %s",
                        (unsigned long long)err->offset, size, line);
}

#endif
