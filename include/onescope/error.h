/* One error type for the whole library, and one way to print it. */
#ifndef ONESCOPE_ERROR_H
#define ONESCOPE_ERROR_H

#include <stdbool.h>

#include "onescope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values are part of the ABI: never renumber, never reuse. */
typedef enum onescope_code {
    ONESCOPE_OK = 0,
    ONESCOPE_E_ARGUMENT = 1,     /* the caller passed something unusable */
    ONESCOPE_E_NOMEM = 2,        /* the allocator said no */
    ONESCOPE_E_IO = 3,           /* a file could not be read or written */
    ONESCOPE_E_TOO_LARGE = 4,    /* input over max_input_bytes or a size overflow */
    ONESCOPE_E_TRUNCATED = 5,    /* fewer bytes than the format needs */
    ONESCOPE_E_MAGIC = 6,        /* not this format */
    ONESCOPE_E_VERSION = 7,      /* a version this build does not read */
    ONESCOPE_E_FLAGS = 8,        /* flag bits that must be zero are set */
    ONESCOPE_E_RESERVED = 9,     /* non-zero reserved or padding bytes */
    ONESCOPE_E_RANGE = 10,       /* a value outside its allowed range */
    ONESCOPE_E_TRAILING = 11,    /* bytes after the end of the format */
    ONESCOPE_E_DUPLICATE = 12,   /* a value that must be unique is repeated */
    ONESCOPE_E_NOT_FINITE = 13,  /* NaN or infinity where a finite number is required */
    ONESCOPE_E_UTF8 = 14,        /* text that is not valid UTF-8 */
    ONESCOPE_E_LENGTH = 15,      /* a length that does not match what it describes */
    ONESCOPE_E_OPERATION = 16,   /* an unknown replay operation */
    ONESCOPE_E_SYNTAX = 17,      /* malformed text (JSON) */
    ONESCOPE_E_TYPE = 18,        /* a missing key or a value of the wrong type */
    ONESCOPE_E_BAD_STATE = 19,   /* an object that failed earlier and refuses further use */
    ONESCOPE_E_MISMATCH = 20,    /* a recomputed value differs from the recorded one */
    ONESCOPE_E_UNSUPPORTED = 21, /* a feature this build does not have */
    ONESCOPE_E_ENGINE = 22,      /* the physics engine refused or failed */
    ONESCOPE_E_MODULE = 23       /* a recording made by another module or module version */
} onescope_code;

/* Where and why a call failed. Fixed-size text so filling it never allocates. */
typedef struct onescope_error {
    onescope_code code;
    char input[256]; /* file or buffer name given by the caller */
    uint64_t offset; /* byte offset, valid when has_offset */
    bool has_offset;
    uint32_t line; /* 1-based line and column for text formats; 0 when unused */
    uint32_t column;
    char field[96]; /* what was being read, e.g. "flags" or "pegs[3].keyframes[0].pos" */
    char expected[160];
    char found[160];
} onescope_error;

/* The bare name of a code, e.g. "truncated". Never NULL. */
ONESCOPE_API const char *onescope_error_name(onescope_code code);

/* Formats the error as one line without a newline, e.g.
 * "test.ospc: offset 6: flags: expected 0, found 3". Returns the length it wanted
 * (like snprintf); the text is always NUL-terminated when size > 0. */
ONESCOPE_API size_t onescope_error_format(const onescope_error *error, char *buf, size_t size);

/* Clears an error to ONESCOPE_OK. */
ONESCOPE_API void onescope_error_clear(onescope_error *error);

/* Says a failure of a lower layer (an encoder, a module) in the terms of the input a tool was
 * working through: input becomes name (when not NULL) and "WHERE: " goes before the field
 * (when where is not NULL or empty), both cut to fit; the offset stays only with
 * keep_offset (an offset inside a blob the tool cannot place in its input is dropped, never
 * shown as the input's). The code, expected and found stay. The one way a tool puts another
 * layer's error on its own input. */
ONESCOPE_API void onescope_error_locate(onescope_error *error, const char *name, const char *where,
                                        bool keep_offset);

/* The library's one escape for input text shown to a person (file names in a tool's own
 * lines, say): control bytes become \n, \r, \t or \xNN, invalid UTF-8 bytes \xNN, '"' and
 * '\\' get a backslash, and line separators, C1 controls and bidirectional overrides \uNNNN,
 * so the text stays one printable line no input can forge. Writes at most size - 1 bytes and a
 * NUL (nothing when size is 0); text that does not fit ends with "..." after a whole character
 * or escape. Returns the length written. */
ONESCOPE_API size_t onescope_error_escape(char *dst, size_t size, const char *text, size_t length);

/* The library's one UTF-8 rule, the one its parsers and the escape apply (no overlong forms,
 * no surrogates, nothing past U+10FFFF): the length (1 to 4) of the valid character that
 * starts text[0..length), its code point in *cp; 0 when text does not start with one (or
 * length is 0), and *cp is then left alone. For a tool that writes text in another syntax
 * (JSON, XML) and must tell valid characters from bytes to escape or replace. */
ONESCOPE_API size_t onescope_error_utf8_char(const char *text, size_t length, uint32_t *cp);

#ifdef __cplusplus
}
#endif

#endif
