/* A pull reader of JSON text (RFC 8259): one token per call, from bytes that arrive in
 * chunks, so the same reader serves text held in memory and a file streamed through one
 * buffer. It checks the whole grammar (a token it hands out is always well placed), UTF-8,
 * escapes and numbers, and says what is wrong in one line with the byte offset, line and
 * column. Memory: the current string or number (at most ONESCOPE_OS_JR_MAX_STRING bytes) and
 * one byte per open container, whatever the size of the text. The OTS reader (ots_read.c) is
 * built on it. */
#ifndef ONESCOPE_JSON_READER_H
#define ONESCOPE_JSON_READER_H

#include "internal.h"

/* Deepest nesting of objects and arrays (an OTS file needs 9). */
#define ONESCOPE_OS_JR_MAX_DEPTH 64
/* Longest string or key, in bytes once unescaped (a name, a path). */
#define ONESCOPE_OS_JR_MAX_STRING ((size_t)64 * 1024)

typedef enum onescope_os_jr_kind {
    OS_JR_OBJECT = 0,     /* '{' */
    OS_JR_OBJECT_END = 1, /* '}' */
    OS_JR_ARRAY = 2,      /* '[' */
    OS_JR_ARRAY_END = 3,  /* ']' */
    OS_JR_KEY = 4,        /* a member's key, its ':' consumed: text */
    OS_JR_STRING = 5,     /* text */
    OS_JR_NUMBER = 6,     /* number; integer too when is_integer */
    OS_JR_TRUE = 7,
    OS_JR_FALSE = 8,
    OS_JR_NULL = 9,
    OS_JR_END = 10 /* the end of the text, after the one document */
} onescope_os_jr_kind;

/* Gives the reader the chunk after the last one: *data and *size, size 0 at the end of the
 * text. Returns false on a read error, with error filled. */
typedef bool onescope_os_jr_more(void *user, const uint8_t **data, size_t *size,
                                 onescope_error *error);

/* Where a token starts. */
typedef struct onescope_os_jr_pos {
    uint64_t offset;
    uint32_t line, column; /* from 1; columns count characters, not bytes */
} onescope_os_jr_pos;

typedef struct onescope_os_jr {
    /* the token just read (valid until the next call) */
    onescope_os_jr_kind kind;
    onescope_os_jr_pos at;
    char *text; /* KEY, STRING: the unescaped UTF-8, NUL-terminated (no U+0000 inside) */
    size_t len;
    double number;
    long long integer;
    bool is_integer;     /* the number has no fraction or exponent and fits in 64 bits (integer) */
    bool integer_syntax; /* no fraction or exponent, whatever its size (a longer one: only
                            number) */
    int depth;           /* containers open after this token */
    /* The call failed on a whole value JSON holds but a double cannot (NaN, Infinity, a number
     * too large such as 1e999): the error is filled, but the reader has read past the value and
     * is not latched, so the caller may report it at its own path and go on. */
    bool value_error;

    /* private */
    const uint8_t *p;
    size_t n, i;
    uint64_t base; /* offset of p[0] */
    bool eof;
    onescope_os_jr_more *more;
    void *user;
    uint32_t line, column;                  /* of p[i] */
    uint8_t open[ONESCOPE_OS_JR_MAX_DEPTH]; /* 1: object, 0: array */
    int state;
    size_t cap;
    const char *name;
    const onescope_allocator *a;
    onescope_error *error;
    onescope_code failed; /* latched: every later call returns it */
} onescope_os_jr;

/* Starts reading data[0..size), then whatever more hands out (more NULL: data is the whole
 * text). name labels every error. */
void onescope_os_jr_init(onescope_os_jr *r, const char *name, const onescope_allocator *a,
                         onescope_error *error, const void *data, size_t size,
                         onescope_os_jr_more *more, void *user);
/* The next token. A failure fills the error (one line, with the offset, line and column) and
 * latches. */
onescope_code onescope_os_jr_next(onescope_os_jr *r);
/* After an OBJECT or ARRAY token: reads on to its matching end (values a double cannot hold
 * inside are passed over). Other tokens: nothing. */
onescope_code onescope_os_jr_skip(onescope_os_jr *r);
/* The offset, line and column of the next byte not yet read (after white space). */
onescope_os_jr_pos onescope_os_jr_here(onescope_os_jr *r);
void onescope_os_jr_free(onescope_os_jr *r);

/* "an object", "a string", ... for the token just read, for "found" texts. */
const char *onescope_os_jr_kind_name(const onescope_os_jr *r);

#endif
