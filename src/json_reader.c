/* The pull JSON reader: json_reader.h. */
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

enum {
    S_DOCUMENT,     /* a value starts the text */
    S_VALUE,        /* a value after ':' */
    S_ELEMENT,      /* a value after ',' in an array */
    S_ARRAY_FIRST,  /* after '[': a value or ']' */
    S_OBJECT_FIRST, /* after '{': a key or '}' */
    S_KEY,          /* after ',' in an object: a key */
    S_AFTER,        /* after a value in a container: ',' or its end */
    S_DONE          /* after the document: white space only */
};

#define NUMBER_MAX 400 /* longest number or bare word, in characters */

void onescope_os_jr_init(onescope_os_jr *r, const char *name, const onescope_allocator *a,
                         onescope_error *error, const void *data, size_t size,
                         onescope_os_jr_more *more, void *user) {
    memset(r, 0, sizeof *r);
    r->p = data;
    r->n = data != NULL ? size : 0;
    r->more = more;
    r->user = user;
    r->eof = more == NULL;
    r->line = r->column = 1;
    r->state = S_DOCUMENT;
    r->name = name;
    r->a = a;
    r->error = error;
}

void onescope_os_jr_free(onescope_os_jr *r) {
    onescope_os_free(r->a, r->text);
    r->text = NULL;
    r->cap = 0;
}

/* ---- bytes ---- */

/* The chunk after the last one; -1 at the end of the text (or after a read error:
 * r->failed), else its first byte. */
static int refill(onescope_os_jr *r) {
    while (r->i >= r->n) {
        if (r->eof || r->failed) return -1;
        r->base += r->n;
        r->i = 0;
        const uint8_t *p = NULL;
        size_t n = 0;
        if (!r->more(r->user, &p, &n, r->error)) {
            r->failed =
                r->error != NULL && r->error->code != ONESCOPE_OK ? r->error->code : ONESCOPE_E_IO;
            r->p = NULL;
            r->n = 0;
            return -1;
        }
        r->p = p;
        r->n = p != NULL ? n : 0;
        if (r->n == 0) r->eof = true;
    }
    return r->p[r->i];
}

/* The next byte, or -1 at the end of the text. */
static inline int peek(onescope_os_jr *r) {
    return r->i < r->n ? r->p[r->i] : refill(r);
}

static inline void take(onescope_os_jr *r) {
    uint8_t b = r->p[r->i++];
    if (b == '\n') {
        r->line++;
        r->column = 1;
    } else if ((b & 0xC0) != 0x80) { /* a continuation byte is part of the same character */
        r->column++;
    }
}

/* Takes n bytes of the chunk that are ASCII and not line breaks. */
static inline void take_plain(onescope_os_jr *r, size_t n) {
    r->i += n;
    r->column += (uint32_t)n;
}

static onescope_os_jr_pos here(const onescope_os_jr *r) {
    onescope_os_jr_pos p = {r->base + r->i, r->line, r->column};
    return p;
}

static onescope_code fail_at(onescope_os_jr *r, onescope_os_jr_pos at, onescope_code code,
                             const char *expected, const char *fmt, ...) OS_PRINTF(5, 6);
static onescope_code fail_at(onescope_os_jr *r, onescope_os_jr_pos at, onescope_code code,
                             const char *expected, const char *fmt, ...) {
    if (r->failed) return r->failed; /* a read error came first: it stays the error */
    va_list ap;
    va_start(ap, fmt);
    onescope_os_failv(r->error, code, r->name, at.offset, NULL, expected, fmt, ap);
    va_end(ap);
    if (r->error != NULL) {
        r->error->line = at.line;
        r->error->column = at.column;
    }
    r->failed = code;
    return code;
}

static void skip_ws(onescope_os_jr *r) {
    for (;;) {
        while (r->i < r->n) {
            uint8_t c = r->p[r->i];
            if (c == ' ' || c == '\t' || c == '\r') {
                r->i++;
                r->column++;
            } else if (c == '\n') {
                r->i++;
                r->line++;
                r->column = 1;
            } else {
                return;
            }
        }
        if (refill(r) < 0) return;
    }
}

onescope_os_jr_pos onescope_os_jr_here(onescope_os_jr *r) {
    if (!r->failed) skip_ws(r);
    return here(r);
}

/* ---- strings ---- */

/* Appends to the current string; its length never passes twice the limit (the caller
 * checks the limit between runs, and a run is at most the limit plus one). */
static bool put(onescope_os_jr *r, const uint8_t *s, size_t n) {
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 64;
        while (cap < r->len + n + 1) cap *= 2;
        char *t = onescope_os_alloc(r->a, cap);
        if (t == NULL) return false;
        if (r->len) memcpy(t, r->text, r->len);
        onescope_os_free(r->a, r->text);
        r->text = t;
        r->cap = cap;
    }
    memcpy(r->text + r->len, s, n);
    r->len += n;
    r->text[r->len] = '\0';
    return true;
}

static onescope_code nomem(onescope_os_jr *r) {
    r->failed = onescope_os_fail(r->error, ONESCOPE_E_NOMEM, r->name, OS_NO_OFFSET, NULL, NULL,
                                 "could not allocate memory");
    return r->failed;
}

static int hex_digit(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits after "\u"; -1 (error filled) when they are not there. */
static long read_hex4(onescope_os_jr *r, onescope_os_jr_pos esc) {
    long v = 0;
    for (int d = 0; d < 4; d++) {
        int h = hex_digit(peek(r));
        if (h < 0) {
            fail_at(r, esc, ONESCOPE_E_SYNTAX, "four hex digits after \\u",
                    "an escape \\u that is not followed by them");
            return -1;
        }
        take(r);
        v = v * 16 + h;
    }
    return v;
}

static size_t utf8_encode(uint32_t cp, uint8_t out[4]) {
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape, the backslash consumed (esc: where it was). */
static onescope_code read_escape(onescope_os_jr *r, onescope_os_jr_pos esc) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = peek(r);
    if (c < 0) return r->failed ? r->failed : ONESCOPE_E_TRUNCATED; /* the caller says */
    if (c != 'u') {
        const char *at = c != 0 ? strchr(from, c) : NULL;
        if (at == NULL)
            return fail_at(r, esc, ONESCOPE_E_SYNTAX,
                           "an escape JSON knows (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                           "an unknown escape in a string");
        take(r);
        uint8_t b = (uint8_t)to[at - from];
        return put(r, &b, 1) ? ONESCOPE_OK : nomem(r);
    }
    take(r);
    long cp = read_hex4(r, esc);
    if (cp < 0) return r->failed;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail_at(r, esc, ONESCOPE_E_UTF8, "a \\u escape of a character",
                       "the low half of a surrogate pair alone (\\u%04lX)", cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (peek(r) != '\\')
            return fail_at(r, esc, ONESCOPE_E_UTF8, "a \\u escape of a character",
                           "the high half of a surrogate pair alone (\\u%04lX)", cp);
        take(r);
        if (peek(r) != 'u')
            return fail_at(r, esc, ONESCOPE_E_UTF8, "a \\u escape of a character",
                           "the high half of a surrogate pair alone (\\u%04lX)", cp);
        take(r);
        long lo = read_hex4(r, esc);
        if (lo < 0) return r->failed;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail_at(r, esc, ONESCOPE_E_UTF8, "a \\u escape of a character",
                           "the high half of a surrogate pair alone (\\u%04lX)", cp);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (cp == 0)
        return fail_at(r, esc, ONESCOPE_E_SYNTAX, "text without U+0000",
                       "the escape \\u0000 (not allowed here)");
    uint8_t out[4];
    size_t m = utf8_encode((uint32_t)cp, out);
    return put(r, out, m) ? ONESCOPE_OK : nomem(r);
}

/* The bytes a UTF-8 sequence with this lead byte has after it, and the range of the first
 * of them (the rest are 80..BF); -1 for a byte that cannot lead. */
static int utf8_tail(int lead, int *lo, int *hi) {
    *lo = 0x80;
    *hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) return 1;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (lead == 0xE0) *lo = 0xA0;
        if (lead == 0xED) *hi = 0x9F;
        return 2;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (lead == 0xF0) *lo = 0x90;
        if (lead == 0xF4) *hi = 0x8F;
        return 3;
    }
    return -1;
}

/* A string, the reader at its opening quote (start). */
static onescope_code read_string(onescope_os_jr *r, onescope_os_jr_pos start) {
    take(r);
    r->len = 0;
    if (!put(r, (const uint8_t *)"", 0)) return nomem(r);
    for (;;) {
        if (r->len > ONESCOPE_OS_JR_MAX_STRING)
            return fail_at(r, start, ONESCOPE_E_TOO_LARGE, "a string of at most 65536 bytes",
                           "a longer one");
        onescope_os_jr_pos at = here(r);
        int c = peek(r);
        if (c < 0) {
            if (r->failed) return r->failed;
            return fail_at(r, start, ONESCOPE_E_SYNTAX, "a string closed by '\"'",
                           "an unterminated string (the file ends inside it)");
        }
        if (c == '"') {
            take(r);
            return ONESCOPE_OK;
        }
        if (c == '\n' || c == '\r')
            return fail_at(r, start, ONESCOPE_E_SYNTAX, "a string closed by '\"' on the same line",
                           "an unterminated string (a line break inside it)");
        if (c < 0x20)
            return fail_at(r, at, ONESCOPE_E_SYNTAX,
                           "control characters in a string written as escapes (\\u00XX)",
                           "a raw control character (byte %02x)", (unsigned)c);
        if (c == '\\') {
            take(r);
            onescope_code rc = read_escape(r, at);
            if (rc == ONESCOPE_E_TRUNCATED)
                return fail_at(r, start, ONESCOPE_E_SYNTAX, "a string closed by '\"'",
                               "an unterminated string (the file ends inside it)");
            if (rc != ONESCOPE_OK) return rc;
            continue;
        }
        if (c < 0x80) {
            /* a run of plain characters, copied at once */
            size_t n = 1;
            while (r->i + n < r->n && n <= ONESCOPE_OS_JR_MAX_STRING) {
                uint8_t b = r->p[r->i + n];
                if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) break;
                n++;
            }
            if (!put(r, r->p + r->i, n)) return nomem(r);
            take_plain(r, n);
            continue;
        }
        int lo, hi, tail = utf8_tail(c, &lo, &hi);
        uint8_t seq[4] = {(uint8_t)c};
        if (tail < 0)
            return fail_at(r, at, ONESCOPE_E_UTF8, "valid UTF-8",
                           "byte %02x, which cannot start a character", (unsigned)c);
        take(r);
        for (int k = 1; k <= tail; k++) {
            int b = peek(r);
            if (b < lo || b > hi)
                return fail_at(r, at, ONESCOPE_E_UTF8, "valid UTF-8",
                               "a character cut short or malformed after byte %02x", (unsigned)c);
            seq[k] = (uint8_t)b;
            take(r);
            lo = 0x80;
            hi = 0xBF;
        }
        if (!put(r, seq, (size_t)tail + 1)) return nomem(r);
    }
}

/* ---- numbers and bare words ---- */

static bool word_char(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' ||
           c == '-' || c == '.' || c == '_';
}

/* RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; *integer when neither part. */
static bool number_syntax(const char *s, bool *integer) {
    if (*s == '-') s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9') s++;
    else
        return false;
    *integer = true;
    if (*s == '.') {
        *integer = false;
        s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        *integer = false;
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

/* The C locale, made once: strtod under it reads '.' whatever the process's locale is (a
 * locale with ',' or a multi-byte decimal point would cut "1.5" to 1). uselocale is per thread,
 * so other threads keep theirs. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) {
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void *onescope_os_c_numbers_begin(void) {
    pthread_once(&c_locale_once, make_c_locale);
    if (c_locale == (locale_t)0) return NULL; /* cannot be: "C" always exists */
    return (void *)uselocale(c_locale);
}

void onescope_os_c_numbers_end(void *old) {
    if (old != NULL) uselocale((locale_t)old);
}

static double c_strtod(const char *s) {
    void *old = onescope_os_c_numbers_begin();
    double v = strtod(s, NULL);
    onescope_os_c_numbers_end(old);
    return v;
}

/* Powers of ten a double holds exactly. */
static const double exact_tens[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The number s (valid JSON syntax) as the nearest double. When it has at most 15 digits (so
 * they make an integer below 2^53, which a double holds exactly) and its power of ten is at
 * most 22 either way, one multiplication or division of two exact doubles is correctly
 * rounded (Clinger's fast path): most numbers a writer prints.
 * Everything else goes to strtod in the C locale. */
static double to_double(const char *s) {
    const char *p = s;
    bool neg = *p == '-';
    if (neg) p++;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) m = m * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, exp10--) m = m * 10 + (uint64_t)(*p - '0');
    if (*p == 'e' || *p == 'E') {
        p++;
        bool eneg = *p == '-';
        if (*p == '+' || *p == '-') p++;
        int e = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (e < 10000) e = e * 10 + (*p - '0');
        exp10 += eneg ? -e : e;
    }
    /* (only where double arithmetic is done in double: FLT_EVAL_METHOD 0, not x87) */
    if (FLT_EVAL_METHOD == 0 && digits <= 15 && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 < 0 ? v / exact_tens[-exp10] : v * exact_tens[exp10];
        return neg ? -v : v;
    }
    return c_strtod(s);
}

/* A value the text holds whole but a double cannot: the error, without latching (the word
 * has been read to its end, so the reader can go on after it). */
static onescope_code value_fail(onescope_os_jr *r, onescope_os_jr_pos at, const char *expected,
                                const char *found) {
    fail_at(r, at, ONESCOPE_E_NOT_FINITE, expected, "%s", found);
    r->failed = ONESCOPE_OK;
    r->value_error = true;
    return ONESCOPE_E_NOT_FINITE;
}

/* A number or a bare word (true, false, null), the reader at its first character. */
static onescope_code read_word(onescope_os_jr *r, onescope_os_jr_pos start) {
    char w[NUMBER_MAX + 1];
    size_t n = 0;
    while (word_char(peek(r))) {
        if (n == NUMBER_MAX)
            return fail_at(r, start, ONESCOPE_E_SYNTAX, "a number of at most 400 characters",
                           "a longer one");
        w[n++] = (char)r->p[r->i];
        take_plain(r, 1); /* word characters are ASCII */
    }
    if (r->failed) return r->failed;
    w[n] = '\0';
    if (strcmp(w, "true") == 0) {
        r->kind = OS_JR_TRUE;
        return ONESCOPE_OK;
    }
    if (strcmp(w, "false") == 0) {
        r->kind = OS_JR_FALSE;
        return ONESCOPE_OK;
    }
    if (strcmp(w, "null") == 0) {
        r->kind = OS_JR_NULL;
        return ONESCOPE_OK;
    }
    bool integer = false;
    if (n == 0 || !number_syntax(w, &integer)) {
        const char *bare = w[0] == '-' || w[0] == '+' ? w + 1 : w;
        char shown[48];
        if (n == 0) {
            int c = peek(r);
            if (c >= 0x20 && c < 0x7F)
                snprintf(shown, sizeof shown, "'%c'", c);
            else
                snprintf(shown, sizeof shown, "byte %02x", (unsigned)c);
        } else {
            onescope_os_escape(shown + 1, sizeof shown - 2, w, n);
            shown[0] = '\'';
            size_t k = strlen(shown);
            shown[k] = '\'';
            shown[k + 1] = '\0';
        }
        if (strcmp(bare, "NaN") == 0 || strcmp(bare, "nan") == 0 || strcmp(bare, "Infinity") == 0 ||
            strcmp(bare, "inf") == 0 || strcmp(bare, "infinity") == 0 || strcmp(bare, "Inf") == 0)
            return value_fail(r, start, "a finite number (JSON has no NaN or Infinity)", shown);
        return fail_at(r, start, ONESCOPE_E_SYNTAX,
                       "a JSON value: a number, a double-quoted string, true, false, null, { or [",
                       "%s, which is none of those", shown);
    }
    r->kind = OS_JR_NUMBER;
    r->is_integer = false;
    r->integer_syntax = integer;
    if (integer) {
        /* exactly, when it fits in 64 bits */
        const char *s = w[0] == '-' ? w + 1 : w;
        unsigned long long v = 0;
        bool over = false;
        for (; *s; s++) {
            unsigned d = (unsigned)(*s - '0');
            if (v > (ULLONG_MAX - d) / 10) over = true;
            v = v * 10 + d;
        }
        unsigned long long lim = w[0] == '-' ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
        if (!over && v <= lim) { /* else only the double: the caller says if it wants less */
            r->integer = w[0] != '-' ? (long long)v : v == 0 ? 0 : -(long long)(v - 1) - 1;
            r->is_integer = true;
        }
    }
    r->number = to_double(w);
    if (!isfinite(r->number)) {
        char shown[NUMBER_MAX + 32];
        snprintf(shown, sizeof shown, "%s, too large for a double", w);
        return value_fail(r, start, "a finite number", shown);
    }
    return ONESCOPE_OK;
}

/* ---- the grammar ---- */

static onescope_code open_container(onescope_os_jr *r, bool object) {
    if (r->depth == ONESCOPE_OS_JR_MAX_DEPTH)
        return fail_at(r, r->at, ONESCOPE_E_TOO_LARGE, "objects and arrays nested at most 64 deep",
                       "a 65th level");
    take(r);
    r->open[r->depth++] = object;
    r->kind = object ? OS_JR_OBJECT : OS_JR_ARRAY;
    r->state = object ? S_OBJECT_FIRST : S_ARRAY_FIRST;
    return ONESCOPE_OK;
}

static void after_value(onescope_os_jr *r) {
    r->state = r->depth == 0 ? S_DONE : S_AFTER;
}

static onescope_code close_container(onescope_os_jr *r) {
    take(r);
    bool object = r->open[--r->depth];
    r->kind = object ? OS_JR_OBJECT_END : OS_JR_ARRAY_END;
    after_value(r);
    return ONESCOPE_OK;
}

static onescope_code trailing_comma(onescope_os_jr *r) {
    return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a value after each comma",
                   "a trailing comma before the closing bracket (JSON allows none)");
}

static onescope_code read_value(onescope_os_jr *r, int c) {
    if (r->state == S_DOCUMENT && (c == 0 || c >= 0x80 || strchr("{[\"-0123456789tfn", c) == NULL))
        /* prose, a log, a BOM-less UTF-16 file...: said plainly, not as a bad token */
        return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a JSON document (an object starting with '{')",
                       c >= 0x20 && c < 0x7F ? "text that is not JSON, starting with '%c'"
                                             : "text that is not JSON, starting with byte %02x",
                       (unsigned)c);
    if (c == '{') return open_container(r, true);
    if (c == '[') return open_container(r, false);
    if (c == '"') {
        OS_TRY(read_string(r, r->at));
        r->kind = OS_JR_STRING;
    } else {
        onescope_code rc = read_word(r, r->at);
        if (rc != ONESCOPE_OK && !r->value_error) return rc;
        after_value(r);
        return rc;
    }
    after_value(r);
    return ONESCOPE_OK;
}

static onescope_code read_key(onescope_os_jr *r, int c) {
    if (c == '"') {
        OS_TRY(read_string(r, r->at));
        skip_ws(r);
        if (peek(r) != ':') {
            if (r->failed) return r->failed;
            return fail_at(r, here(r), ONESCOPE_E_SYNTAX, "':' after a key",
                           "a key with no ':' after it");
        }
        take(r);
        r->kind = OS_JR_KEY;
        r->state = S_VALUE;
        return ONESCOPE_OK;
    }
    if (c == '\'')
        return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "keys in double quotes", "a single-quoted key");
    if (word_char(c))
        return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a key in double quotes",
                       "a bare word where a key belongs");
    if (c == ']') return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "'}' to close the object", "']'");
    return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a key in double quotes",
                   c >= 0x20 && c < 0x7F ? "'%c'" : "byte %02x", (unsigned)c);
}

onescope_code onescope_os_jr_next(onescope_os_jr *r) {
    r->value_error = false;
    for (;;) {
        if (r->failed) return r->failed;
        skip_ws(r);
        if (r->failed) return r->failed;
        r->at = here(r);
        int c = peek(r);
        if (r->failed) return r->failed;
        if (c < 0) {
            if (r->state == S_DONE) {
                r->kind = OS_JR_END;
                return ONESCOPE_OK;
            }
            if (r->state == S_DOCUMENT)
                return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a JSON document",
                               "no text (an empty file or only white space)");
            return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "every '{' and '[' closed",
                           "the end of the file inside an object or array");
        }
        switch (r->state) {
            case S_DONE:
                return fail_at(r, r->at, ONESCOPE_E_SYNTAX,
                               "nothing after the document's closing '}'",
                               "more text after the end of the document");
            case S_OBJECT_FIRST:
                if (c == '}') return close_container(r);
                return read_key(r, c);
            case S_KEY:
                if (c == '}') return trailing_comma(r);
                return read_key(r, c);
            case S_ARRAY_FIRST:
                if (c == ']') return close_container(r);
                return read_value(r, c);
            case S_ELEMENT:
                if (c == ']') return trailing_comma(r);
                return read_value(r, c);
            case S_VALUE:
                if (c == '}' || c == ',')
                    return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a value after ':'", "'%c'", c);
                return read_value(r, c);
            case S_DOCUMENT: return read_value(r, c);
            case S_AFTER: {
                bool object = r->open[r->depth - 1];
                if (c == ',') {
                    take(r);
                    r->state = object ? S_KEY : S_ELEMENT;
                    continue;
                }
                if ((c == '}' && object) || (c == ']' && !object)) return close_container(r);
                if (c == '}' || c == ']')
                    return fail_at(r, r->at, ONESCOPE_E_SYNTAX,
                                   object ? "'}' to close the object" : "']' to close the array",
                                   "'%c'", c);
                return fail_at(r, r->at, ONESCOPE_E_SYNTAX, "a comma between two members",
                               "a value right after another with no comma");
            }
        }
        return fail_at(r, r->at, ONESCOPE_E_BAD_STATE, NULL, "a reader in no known state");
    }
}

onescope_code onescope_os_jr_skip(onescope_os_jr *r) {
    if (r->kind != OS_JR_OBJECT && r->kind != OS_JR_ARRAY) return ONESCOPE_OK;
    int target = r->depth - 1;
    do {
        onescope_code rc = onescope_os_jr_next(r);
        if (rc != ONESCOPE_OK && !r->value_error) return rc; /* a NaN skipped over is no matter */
    } while (r->depth > target || (r->kind != OS_JR_OBJECT_END && r->kind != OS_JR_ARRAY_END));
    r->value_error = false;
    return ONESCOPE_OK;
}

const char *onescope_os_jr_kind_name(const onescope_os_jr *r) {
    switch (r->kind) {
        case OS_JR_OBJECT: return "an object";
        case OS_JR_ARRAY: return "an array";
        case OS_JR_STRING: return "a string";
        case OS_JR_NUMBER: return r->is_integer ? "an integer" : "a real number";
        case OS_JR_TRUE: return "true";
        case OS_JR_FALSE: return "false";
        case OS_JR_NULL: return "null";
        default: return "a value";
    }
}
