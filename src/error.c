/* The library's one error type: filling it and printing it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *onescope_error_name(onescope_code code) {
    switch (code) {
        case ONESCOPE_OK: return "ok";
        case ONESCOPE_E_ARGUMENT: return "invalid argument";
        case ONESCOPE_E_NOMEM: return "out of memory";
        case ONESCOPE_E_IO: return "i/o error";
        case ONESCOPE_E_TOO_LARGE: return "too large";
        case ONESCOPE_E_TRUNCATED: return "truncated";
        case ONESCOPE_E_MAGIC: return "bad magic";
        case ONESCOPE_E_VERSION: return "unsupported version";
        case ONESCOPE_E_FLAGS: return "bad flags";
        case ONESCOPE_E_RESERVED: return "non-zero reserved bytes";
        case ONESCOPE_E_RANGE: return "out of range";
        case ONESCOPE_E_TRAILING: return "trailing bytes";
        case ONESCOPE_E_DUPLICATE: return "duplicate";
        case ONESCOPE_E_NOT_FINITE: return "not finite";
        case ONESCOPE_E_UTF8: return "invalid utf-8";
        case ONESCOPE_E_LENGTH: return "length mismatch";
        case ONESCOPE_E_OPERATION: return "unknown operation";
        case ONESCOPE_E_SYNTAX: return "syntax error";
        case ONESCOPE_E_TYPE: return "wrong type";
        case ONESCOPE_E_BAD_STATE: return "bad state";
        case ONESCOPE_E_MISMATCH: return "mismatch";
        case ONESCOPE_E_UNSUPPORTED: return "unsupported";
        case ONESCOPE_E_ENGINE: return "engine error";
    }
    return "unknown error";
}

void onescope_error_clear(onescope_error *error) {
    if (error == NULL) return;
    memset(error, 0, sizeof *error);
}

void onescope_os_copy_text(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    if (src == NULL) src = "";
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

onescope_code onescope_os_failv(onescope_error *error, onescope_code code, const char *input,
                                uint64_t offset, const char *field, const char *expected,
                                const char *found_fmt, va_list ap) {
    if (error == NULL) return code;
    onescope_error_clear(error);
    error->code = code;
    onescope_os_copy_text(error->input, sizeof error->input, input ? input : "<input>");
    error->has_offset = offset != OS_NO_OFFSET;
    error->offset = error->has_offset ? offset : 0;
    onescope_os_copy_text(error->field, sizeof error->field, field);
    onescope_os_copy_text(error->expected, sizeof error->expected, expected);
    if (found_fmt != NULL) vsnprintf(error->found, sizeof error->found, found_fmt, ap);
    return code;
}

onescope_code onescope_os_fail(onescope_error *error, onescope_code code, const char *input,
                               uint64_t offset, const char *field, const char *expected,
                               const char *found_fmt, ...) {
    va_list ap;
    va_start(ap, found_fmt);
    onescope_os_failv(error, code, input, offset, field, expected, found_fmt, ap);
    va_end(ap);
    return code;
}

/* Appends to buf at *len like snprintf, tracking the length wanted. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) OS_PRINTF(4, 5);
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *dst = *len < size ? buf + *len : NULL;
    size_t room = *len < size ? size - *len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) *len += (size_t)n;
}

size_t onescope_error_format(const onescope_error *e, char *buf, size_t size) {
    size_t len = 0;
    if (size > 0) buf[0] = '\0';
    if (e == NULL) return 0;
    append(buf, size, &len, "%s:", e->input[0] ? e->input : "<input>");
    if (e->line > 0)
        append(buf, size, &len, " line %" PRIu32 ", column %" PRIu32 ":", e->line, e->column);
    else if (e->has_offset)
        append(buf, size, &len, " offset %" PRIu64 ":", e->offset);
    if (e->field[0]) append(buf, size, &len, " %s:", e->field);
    if (e->expected[0]) {
        append(buf, size, &len, " expected %s", e->expected);
        if (e->found[0]) append(buf, size, &len, ", found %s", e->found);
    } else if (e->found[0]) {
        append(buf, size, &len, " %s", e->found);
    } else {
        append(buf, size, &len, " %s", onescope_error_name(e->code));
    }
    return len;
}
