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
        case ONESCOPE_E_MODULE: return "another module";
    }
    return "unknown error";
}

void onescope_error_clear(onescope_error *error) {
    if (error == NULL) return;
    memset(error, 0, sizeof *error);
}

void onescope_error_locate(onescope_error *error, const char *name, const char *where,
                           bool keep_offset) {
    if (error == NULL) return;
    if (!keep_offset) error->has_offset = false;
    if (name != NULL) snprintf(error->input, sizeof error->input, "%s", name);
    if (where == NULL || where[0] == '\0') return;
    char field[sizeof error->field + 256];
    int n = snprintf(field, sizeof field, "%.200s%s%s", where, error->field[0] ? ": " : "",
                     error->field);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (k >= sizeof error->field) k = sizeof error->field - 1; /* cut, as every field is */
    memcpy(error->field, field, k);
    error->field[k] = '\0';
}

/* Code points that are valid UTF-8 yet can break or disguise a line: C1 controls (U+009B is
 * a terminal's CSI), line and paragraph separators, and the bidirectional overrides that can
 * make a terminal show text in another order than it has. */
static bool invisible(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

/* The escaped form of the character at s[0..n): its text in piece (at most 7 bytes + NUL) and
 * the input bytes it consumed. quotes: also escape '"' and '\\'. */
static size_t escape_piece(const unsigned char *s, size_t n, bool quotes, char piece[8],
                           size_t *plen) {
    uint32_t cp = 0;
    size_t len = onescope_os_utf8_char(s, n, &cp);
    int k;
    if (len == 0) {
        k = snprintf(piece, 8, "\\x%02X", (unsigned)s[0]); /* one invalid byte */
        len = 1;
    } else if (cp == '\n') {
        k = snprintf(piece, 8, "\\n");
    } else if (cp == '\r') {
        k = snprintf(piece, 8, "\\r");
    } else if (cp == '\t') {
        k = snprintf(piece, 8, "\\t");
    } else if (cp < 0x20 || cp == 0x7F) {
        k = snprintf(piece, 8, "\\x%02X", (unsigned)cp);
    } else if (quotes && (cp == '"' || cp == '\\')) {
        k = snprintf(piece, 8, "\\%c", (char)cp);
    } else if (invisible(cp)) {
        k = snprintf(piece, 8, "\\u%04X", (unsigned)cp);
    } else {
        memcpy(piece, s, len);
        piece[len] = '\0';
        k = (int)len;
    }
    *plen = (size_t)k;
    return len;
}

/* Writes src[0..n) into dst escaped; when it does not fit in size - 1 bytes, as much as fits
 * before a closing "..." (cut between two whole characters or escapes). */
static size_t escape_into(char *dst, size_t size, const char *src, size_t n, bool quotes) {
    if (size == 0) return 0;
    const unsigned char *s = (const unsigned char *)src;
    size_t cap = size - 1, len = 0, mark = 0, i = 0;
    while (i < n) {
        char piece[8];
        size_t plen;
        size_t used = escape_piece(s + i, n - i, quotes, piece, &plen);
        if (plen > cap - len) {
            /* does not fit: back to the last boundary with room for the dots */
            len = mark;
            size_t dots = cap - len < 3 ? cap - len : 3;
            memcpy(dst + len, "...", dots);
            len += dots;
            break;
        }
        memcpy(dst + len, piece, plen);
        len += plen;
        i += used;
        if (len + 3 <= cap) mark = len;
    }
    dst[len] = '\0';
    return len;
}

size_t onescope_os_escape(char *dst, size_t size, const char *src, size_t n) {
    if (src == NULL) n = 0;
    return escape_into(dst, size, src ? src : "", n, true);
}

size_t onescope_error_escape(char *dst, size_t size, const char *text, size_t length) {
    if (dst == NULL || size == 0) return 0;
    return onescope_os_escape(dst, size, text, length);
}

size_t onescope_error_utf8_char(const char *text, size_t length, uint32_t *cp) {
    uint32_t unused;
    if (text == NULL) return 0;
    return onescope_os_utf8_char((const uint8_t *)text, length, cp != NULL ? cp : &unused);
}

const char *onescope_os_echo(onescope_os_echo_buf *buf, const char *src) {
    onescope_os_escape(buf->text, sizeof buf->text, src, src ? strlen(src) : 0);
    return buf->text;
}

/* Cuts a string that filled its buffer back to a whole UTF-8 character and ends it with
 * "...", so a truncated field never ends inside a character. */
static void mark_cut(char *dst, size_t size) {
    if (size < 4) return;
    size_t len = size - 4;
    while (len > 0 && ((unsigned char)dst[len] & 0xC0) == 0x80) len--;
    memcpy(dst + len, "...", 4);
}

void onescope_os_copy_text(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    if (src == NULL) src = "";
    size_t n = strlen(src);
    if (n >= size) {
        memcpy(dst, src, size - 1);
        dst[size - 1] = '\0';
        mark_cut(dst, size);
        return;
    }
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
    /* The parsers escape the input text they echo (onescope_os_escape); this pass only
     * catches a control byte or invalid UTF-8 that reached a field some other way (text a
     * caller passes in), and cuts long text at a whole character with "...". */
    if (field) escape_into(error->field, sizeof error->field, field, strlen(field), false);
    if (expected)
        escape_into(error->expected, sizeof error->expected, expected, strlen(expected), false);
    if (found_fmt != NULL) {
        char found[4 * sizeof error->found];
        int n = vsnprintf(found, sizeof found, found_fmt, ap);
        size_t len = n < 0 ? 0 : (size_t)n < sizeof found ? (size_t)n : sizeof found - 1;
        escape_into(error->found, sizeof error->found, found, len, false);
    }
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

/* Length of a field of the struct, which may come from anywhere: never past its array. */
static size_t field_len(const char *text, size_t size) {
    const char *end = memchr(text, '\0', size);
    return end ? (size_t)(end - text) : size;
}

/* Appends text escaped: the input name fully (quotes and backslashes too, at most
 * ONESCOPE_OS_ECHO_NAME bytes); the other fields, which the parsers filled with text already
 * escaped, only where a control byte or invalid UTF-8 slipped through, so one error is always
 * one printable line. */
static void append_text(char *buf, size_t size, size_t *len, const char *prefix, const char *text,
                        size_t n, bool name) {
    char esc[4 * sizeof((onescope_error *)0)->input + 1];
    size_t cap = name ? ONESCOPE_OS_ECHO_NAME + 1 : sizeof esc;
    escape_into(esc, cap, text, n, name);
    append(buf, size, len, "%s%s", prefix, esc);
}

#define FIELD(e, f) (e)->f, field_len((e)->f, sizeof(e)->f)

size_t onescope_error_format(const onescope_error *e, char *buf, size_t size) {
    size_t len = 0;
    if (size > 0) buf[0] = '\0';
    if (e == NULL) return 0;
    if (e->input[0])
        append_text(buf, size, &len, "", FIELD(e, input), true);
    else
        append(buf, size, &len, "<input>");
    append(buf, size, &len, ":");
    if (e->line > 0)
        append(buf, size, &len, " line %" PRIu32 ", column %" PRIu32 ":", e->line, e->column);
    else if (e->has_offset)
        append(buf, size, &len, " offset %" PRIu64 ":", e->offset);
    if (e->field[0]) {
        append_text(buf, size, &len, " ", FIELD(e, field), false);
        append(buf, size, &len, ":");
    }
    if (e->expected[0]) {
        append_text(buf, size, &len, " expected ", FIELD(e, expected), false);
        if (e->found[0]) append_text(buf, size, &len, ", found ", FIELD(e, found), false);
    } else if (e->found[0]) {
        append_text(buf, size, &len, " ", FIELD(e, found), false);
    } else {
        append(buf, size, &len, " %s", onescope_error_name(e->code));
    }
    return len;
}
