/* The shared byte reader and writer used by every binary format, and UTF-8 checking. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

void onescope_os_reader_init(onescope_os_reader *r, const void *data, size_t size, const char *name,
                             onescope_error *error) {
    r->data = (const uint8_t *)data;
    r->size = data != NULL ? size : 0;
    r->pos = 0;
    r->name = name;
    r->error = error;
}

onescope_code onescope_os_reader_fail_at(onescope_os_reader *r, size_t at, onescope_code code,
                                         const char *field, const char *expected,
                                         const char *found_fmt, ...) {
    va_list ap;
    va_start(ap, found_fmt);
    onescope_os_failv(r->error, code, r->name, at, field, expected, found_fmt, ap);
    va_end(ap);
    return code;
}

static onescope_code need(onescope_os_reader *r, const char *field, size_t n) {
    if (n <= r->size - r->pos) return ONESCOPE_OK;
    char expected[48];
    snprintf(expected, sizeof expected, "%zu bytes", n);
    return onescope_os_reader_fail_at(r, r->pos, ONESCOPE_E_TRUNCATED, field, expected, "%zu",
                                      r->size - r->pos);
}

float onescope_os_get_f32(const uint8_t *p) {
    uint32_t bits = onescope_os_get_u32(p);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double onescope_os_get_f64(const uint8_t *p) {
    uint64_t bits = onescope_os_get_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

void onescope_os_put_f32(uint8_t *p, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    onescope_os_put_u32(p, bits);
}

void onescope_os_put_f64(uint8_t *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    onescope_os_put_u64(p, bits);
}

onescope_code onescope_os_read_u8(onescope_os_reader *r, const char *field, uint8_t *out) {
    OS_TRY(need(r, field, 1));
    *out = r->data[r->pos++];
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_u16(onescope_os_reader *r, const char *field, uint16_t *out) {
    OS_TRY(need(r, field, 2));
    *out = onescope_os_get_u16(r->data + r->pos);
    r->pos += 2;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_u32(onescope_os_reader *r, const char *field, uint32_t *out) {
    OS_TRY(need(r, field, 4));
    *out = onescope_os_get_u32(r->data + r->pos);
    r->pos += 4;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_u64(onescope_os_reader *r, const char *field, uint64_t *out) {
    OS_TRY(need(r, field, 8));
    *out = onescope_os_get_u64(r->data + r->pos);
    r->pos += 8;
    return ONESCOPE_OK;
}

/* Two's complement conversion without implementation-defined casts. */
onescope_code onescope_os_read_i32(onescope_os_reader *r, const char *field, int32_t *out) {
    uint32_t u;
    OS_TRY(onescope_os_read_u32(r, field, &u));
    *out = u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_i64(onescope_os_reader *r, const char *field, int64_t *out) {
    uint64_t u;
    OS_TRY(onescope_os_read_u64(r, field, &u));
    *out = u <= INT64_MAX ? (int64_t)u : (int64_t)(u - 0x8000000000000000u) + INT64_MIN;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_f32(onescope_os_reader *r, const char *field, float *out) {
    OS_TRY(need(r, field, 4));
    *out = onescope_os_get_f32(r->data + r->pos);
    r->pos += 4;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_f64(onescope_os_reader *r, const char *field, double *out) {
    OS_TRY(need(r, field, 8));
    *out = onescope_os_get_f64(r->data + r->pos);
    r->pos += 8;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_bytes(onescope_os_reader *r, const char *field, size_t n,
                                     const uint8_t **out) {
    OS_TRY(need(r, field, n));
    *out = r->data + r->pos;
    r->pos += n;
    return ONESCOPE_OK;
}

onescope_code onescope_os_read_zeros(onescope_os_reader *r, const char *field, size_t n) {
    OS_TRY(need(r, field, n));
    for (size_t i = 0; i < n; i++) {
        if (r->data[r->pos + i] != 0)
            return onescope_os_reader_fail_at(r, r->pos + i, ONESCOPE_E_RESERVED, field, "0", "%u",
                                              (unsigned)r->data[r->pos + i]);
    }
    r->pos += n;
    return ONESCOPE_OK;
}

onescope_code onescope_os_reader_reserve(onescope_os_reader *r, const char *field, uint64_t count,
                                         size_t min_elem_size) {
    uint64_t room = min_elem_size ? (uint64_t)(r->size - r->pos) / min_elem_size : UINT64_MAX;
    if (count <= room) return ONESCOPE_OK;
    char expected[64];
    snprintf(expected, sizeof expected, "a count that fits in %zu remaining bytes",
             r->size - r->pos);
    return onescope_os_reader_fail_at(r, r->pos, ONESCOPE_E_TRUNCATED, field, expected, "%llu",
                                      (unsigned long long)count);
}

onescope_code onescope_os_reader_end(onescope_os_reader *r) {
    if (r->pos == r->size) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, r->pos, ONESCOPE_E_TRAILING, "end of input",
                                      "end of input", "%zu more bytes", r->size - r->pos);
}

void onescope_os_writer_init(onescope_os_writer *w, const onescope_allocator *allocator) {
    memset(w, 0, sizeof *w);
    w->allocator = allocator;
}

static bool writer_resize(onescope_os_writer *w, size_t capacity) {
    uint8_t *p = onescope_os_alloc(w->allocator, capacity);
    if (p == NULL) {
        w->failed = true;
        return false;
    }
    if (w->size) memcpy(p, w->data, w->size);
    onescope_os_free(w->allocator, w->data);
    w->data = p;
    w->capacity = capacity;
    return true;
}

bool onescope_os_writer_reserve_total(onescope_os_writer *w, size_t total) {
    if (w->failed) return false;
    if (total <= w->capacity) return true;
    return writer_resize(w, total);
}

uint8_t *onescope_os_writer_grow(onescope_os_writer *w, size_t n) {
    if (w->failed) return NULL;
    size_t want;
    if (!onescope_os_add_size(w->size, n, &want)) {
        w->failed = true;
        return NULL;
    }
    if (want > w->capacity || w->data == NULL) { /* no arithmetic on a NULL buffer */
        size_t cap = w->capacity ? w->capacity : 256;
        while (cap < want) cap = cap > SIZE_MAX / 2 ? want : cap * 2;
        if (!writer_resize(w, cap)) return NULL;
    }
    uint8_t *p = w->data + w->size;
    w->size = want;
    return p;
}

void onescope_os_write_u8(onescope_os_writer *w, uint8_t v) {
    uint8_t *p = onescope_os_writer_grow(w, 1);
    if (p) p[0] = v;
}
void onescope_os_write_u16(onescope_os_writer *w, uint16_t v) {
    uint8_t *p = onescope_os_writer_grow(w, 2);
    if (p) onescope_os_put_u16(p, v);
}
void onescope_os_write_u32(onescope_os_writer *w, uint32_t v) {
    uint8_t *p = onescope_os_writer_grow(w, 4);
    if (p) onescope_os_put_u32(p, v);
}
void onescope_os_write_u64(onescope_os_writer *w, uint64_t v) {
    uint8_t *p = onescope_os_writer_grow(w, 8);
    if (p) onescope_os_put_u64(p, v);
}
void onescope_os_write_i32(onescope_os_writer *w, int32_t v) {
    onescope_os_write_u32(w, (uint32_t)v);
}
void onescope_os_write_i64(onescope_os_writer *w, int64_t v) {
    onescope_os_write_u64(w, (uint64_t)v);
}
void onescope_os_write_f32(onescope_os_writer *w, float v) {
    uint8_t *p = onescope_os_writer_grow(w, 4);
    if (p) onescope_os_put_f32(p, v);
}
void onescope_os_write_f64(onescope_os_writer *w, double v) {
    uint8_t *p = onescope_os_writer_grow(w, 8);
    if (p) onescope_os_put_f64(p, v);
}
void onescope_os_write_bytes(onescope_os_writer *w, const void *src, size_t n) {
    if (n == 0) return;
    uint8_t *p = onescope_os_writer_grow(w, n);
    if (p) memcpy(p, src, n);
}

onescope_code onescope_os_writer_finish(onescope_os_writer *w, onescope_buffer *out,
                                        onescope_error *error, const char *name) {
    if (w->failed) {
        onescope_os_writer_discard(w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "output", NULL,
                                "could not allocate the output buffer");
    }
    if (w->data == NULL && !writer_resize(w, 1)) {
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "output", NULL,
                                "could not allocate the output buffer");
    }
    out->data = w->data;
    out->size = w->size;
    out->allocator = w->allocator;
    memset(w, 0, sizeof *w);
    return ONESCOPE_OK;
}

void onescope_os_writer_discard(onescope_os_writer *w) {
    onescope_os_free(w->allocator, w->data);
    memset(w, 0, sizeof *w);
}
