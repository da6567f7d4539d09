/* Shared pieces of the public API: export macro, allocator, parse limits, buffers. */
#ifndef ONESCOPE_COMMON_H
#define ONESCOPE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(ONESCOPE_STATIC)
#define ONESCOPE_API
#elif defined(_WIN32)
#if defined(ONESCOPE_BUILDING)
#define ONESCOPE_API __declspec(dllexport)
#else
#define ONESCOPE_API __declspec(dllimport)
#endif
#else
#define ONESCOPE_API __attribute__((visibility("default")))
#endif

/* After ONESCOPE_API: version.h declares the runtime version functions with it. */
#include "onescope/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every allocation the library makes goes through one of these; NULL means malloc/free.
 * A hook that returns NULL makes the call fail with ONESCOPE_E_NOMEM and free what it had. */
typedef struct onescope_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} onescope_allocator;

struct onescope_error;
/* Receives one error of an input (see onescope_parse_options.on_error). */
typedef void onescope_error_fn(void *user, const struct onescope_error *error);

/* Limits applied by every parser before it looks at anything else, and the allocator the
 * parsed object is born with. Zero means the default in every field, so a zeroed struct
 * (or a NULL pointer to one) and onescope_parse_options_default() behave the same. */
typedef struct onescope_parse_options {
    size_t max_input_bytes;              /* 0: ONESCOPE_MAX_INPUT_BYTES (256 MiB) */
    const onescope_allocator *allocator; /* NULL: libc */
    /* Every error, not only the first (OTS .pvt/.anm, and onescope_file_validate): with
     * on_error set, the OTS reader goes on past an error in a value or an element and hands
     * each error it finds to on_error, in file order, until max_errors (0: 1) have been found
     * or an error in the text itself (syntax, UTF-8), a wrong format or version, a read error
     * or running out of memory ends the list; the call still fails with the first error, which is
     * also in *error. The other formats stop at their first error; onescope_file_validate
     * hands it to on_error too, so a caller prints every error from one place. NULL: only the
     * first error, in *error. */
    onescope_error_fn *on_error;
    void *on_error_user;
    uint32_t max_errors;
} onescope_parse_options;

#define ONESCOPE_MAX_INPUT_BYTES ((size_t)256 * 1024 * 1024)

/* The defaults spelled out: max_input_bytes ONESCOPE_MAX_INPUT_BYTES, allocator NULL. */
ONESCOPE_API onescope_parse_options onescope_parse_options_default(void);

/* A block of bytes owned by the library's allocator (writers return one). */
typedef struct onescope_buffer {
    uint8_t *data;
    size_t size;
    const onescope_allocator *allocator;
} onescope_buffer;

/* Frees the bytes and zeroes the struct; NULL and empty buffers are fine. */
ONESCOPE_API void onescope_buffer_free(onescope_buffer *buffer);

/* ---- numbers as text (docs/numbers.md) ----
 * The shortest decimal that reads back (strtod) as exactly v, the closest to v when several are
 * as short, laid out as printf's "%.17g" lays out its digits: plain from 0.0001 up to below 1e17,
 * else with an exponent of two digits at least. "0.1" (where %.17g says 0.10000000000000001),
 * "2560", "1e-05", "1.5e+300", "-0"; NaN "nan", infinities "inf" and "-inf". Always '.' (the
 * locale is never consulted) and ASCII; a finite value's text is a JSON number. Writes at most
 * size bytes with the terminating NUL (buf may be NULL when size is 0) and returns the length
 * of the whole text, as snprintf does: at most ONESCOPE_NUMBER_MAX_LENGTH. */
#define ONESCOPE_NUMBER_MAX_LENGTH 24
ONESCOPE_API size_t onescope_number_format(double v, char *buf, size_t size);
/* The same for a float: the shortest decimal that reads back (strtof) as the same float, laid
 * out as "%.9g" would: plain below 1e9 ("123456790" for 123456792, which reads back the same). */
ONESCOPE_API size_t onescope_number_format_float(float v, char *buf, size_t size);

/* ---- durability of the two streaming writers (pose and replay), one meaning for both ----
 * A flush hands the records buffered so far to the partial file with write(2): from then on
 * they survive the process being killed (SIGKILL, a crash), and recover keeps them. With
 * flush_fsync it also fsyncs, so they survive a power loss too. Which records survive each
 * setting: docs/pose-cache.md, "Recording". */

/* flush_every / flush_every_ms value: that rule is off. */
#define ONESCOPE_FLUSH_NEVER UINT32_MAX
/* What 0 means in flush_every (records) and flush_every_ms. */
#define ONESCOPE_FLUSH_DEFAULT_RECORDS 64u
#define ONESCOPE_FLUSH_DEFAULT_MS 100u

#ifdef __cplusplus
}
#endif

#endif
