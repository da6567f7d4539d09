/* Private helpers shared by every module: errors, allocation, checked sizes, bytes.
 * They are hidden in the shared library but visible in the static one, so they carry the
 * project prefix too (onescope_os_*): nothing in libonescope.a can collide with a user's
 * own os_free or reader. */
#ifndef ONESCOPE_INTERNAL_H
#define ONESCOPE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "onescope/common.h"
#include "onescope/error.h"

#if defined(__GNUC__) || defined(__clang__)
#define OS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define OS_PRINTF(a, b)
#endif

/* ---- errors ---- */

#define OS_NO_OFFSET UINT64_MAX

/* Fills error (which may be NULL) and returns code. found is printf-style; NULL for none.
 * offset OS_NO_OFFSET means the error has no byte position. */
onescope_code onescope_os_fail(onescope_error *error, onescope_code code, const char *input,
                               uint64_t offset, const char *field, const char *expected,
                               const char *found_fmt, ...) OS_PRINTF(7, 8);
onescope_code onescope_os_failv(onescope_error *error, onescope_code code, const char *input,
                                uint64_t offset, const char *field, const char *expected,
                                const char *found_fmt, va_list ap);

/* Numbers in text are written and read in the C locale, whatever the process's locale (a ','
 * or a multi-byte decimal point would make JSON that no reader takes): begin switches this
 * thread to the C locale and returns what end restores (src/json_reader.c). */
void *onescope_os_c_numbers_begin(void);
void onescope_os_c_numbers_end(void *old);

/* Before a module call on a hot path (a step, an append): what the caller reads afterwards
 * (the code, and whether an input is named) is cleared, not the whole struct, whose memset
 * would cost as much as a small world's step. */
static inline void onescope_os_error_ready(onescope_error *error) {
    if (error == NULL) return;
    error->code = ONESCOPE_OK;
    error->input[0] = '\0';
}

/* Forward a failure unchanged (zstd FORWARD_IF_ERROR). */
#define OS_TRY(expr)                                                                               \
    do {                                                                                           \
        onescope_code onescope_os_rc_ = (expr);                                                    \
        if (onescope_os_rc_ != ONESCOPE_OK) return onescope_os_rc_;                                \
    } while (0)

/* ---- limits (src/limits.c) ---- */

/* The input limit in force (0 or NULL options: ONESCOPE_MAX_INPUT_BYTES) and the check every
 * parser makes before anything else: ONESCOPE_E_TOO_LARGE at the offset of the first byte past
 * the limit. */
size_t onescope_os_input_limit(const onescope_parse_options *options);
onescope_code onescope_os_check_input_size(size_t size, const onescope_parse_options *options,
                                           const char *name, onescope_error *error);
/* The error of an input of unknown size (a pipe, standard input) that has gone past limit:
 * E_TOO_LARGE at offset limit, "more than limit bytes". The one-shot read and the streamed
 * validators say it alike. */
onescope_code onescope_os_stream_too_large(size_t limit, const char *name, onescope_error *error);

/* Writers refuse to produce a file over the default input limit, which no parser would read
 * back with default options: ONESCOPE_E_TOO_LARGE naming the size. */
onescope_code onescope_os_check_output_size(uint64_t total, const char *name,
                                            onescope_error *error);

/* ---- allocation (src/alloc.c) ---- */

void *onescope_os_alloc(const onescope_allocator *a, size_t size);
void *onescope_os_calloc(const onescope_allocator *a, size_t count,
                         size_t size); /* zeroed, checked */
void onescope_os_free(const onescope_allocator *a, void *ptr);

/* ---- checked sizes: return false on overflow ---- */

static inline bool onescope_os_mul_size(size_t a, size_t b, size_t *out) {
    if (b != 0 && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}
static inline bool onescope_os_add_size(size_t a, size_t b, size_t *out) {
    if (a > SIZE_MAX - b) return false;
    *out = a + b;
    return true;
}

/* ---- the byte reader: little-endian by shifts, so the host's byte order never matters ---- */

typedef struct onescope_os_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    const char *name;      /* input name for messages */
    onescope_error *error; /* where failures go (may be NULL) */
} onescope_os_reader;

void onescope_os_reader_init(onescope_os_reader *r, const void *data, size_t size, const char *name,
                             onescope_error *error);
static inline size_t onescope_os_reader_remaining(const onescope_os_reader *r) {
    return r->size - r->pos;
}

/* Each returns ONESCOPE_E_TRUNCATED (naming field and the offset where it starts) when the
 * bytes are not there, and leaves pos unchanged on failure. */
onescope_code onescope_os_read_u8(onescope_os_reader *r, const char *field, uint8_t *out);
onescope_code onescope_os_read_u16(onescope_os_reader *r, const char *field, uint16_t *out);
onescope_code onescope_os_read_u32(onescope_os_reader *r, const char *field, uint32_t *out);
onescope_code onescope_os_read_u64(onescope_os_reader *r, const char *field, uint64_t *out);
onescope_code onescope_os_read_i32(onescope_os_reader *r, const char *field, int32_t *out);
onescope_code onescope_os_read_i64(onescope_os_reader *r, const char *field, int64_t *out);
onescope_code onescope_os_read_f32(onescope_os_reader *r, const char *field, float *out);
onescope_code onescope_os_read_f64(onescope_os_reader *r, const char *field, double *out);
/* Points out at n bytes inside the buffer (no copy). */
onescope_code onescope_os_read_bytes(onescope_os_reader *r, const char *field, size_t n,
                                     const uint8_t **out);
/* Requires n zero bytes (reserved/padding): ONESCOPE_E_RESERVED at the first non-zero one. */
onescope_code onescope_os_read_zeros(onescope_os_reader *r, const char *field, size_t n);
/* Refuses a count that could not fit in what remains at min_elem_size bytes per element,
 * before anything is allocated for it. */
onescope_code onescope_os_reader_reserve(onescope_os_reader *r, const char *field, uint64_t count,
                                         size_t min_elem_size);
/* Requires the reader to be at the end: ONESCOPE_E_TRAILING otherwise. */
onescope_code onescope_os_reader_end(onescope_os_reader *r);
/* Fails with code at the reader's current position (or at offset `at`). */
onescope_code onescope_os_reader_fail_at(onescope_os_reader *r, size_t at, onescope_code code,
                                         const char *field, const char *expected,
                                         const char *found_fmt, ...) OS_PRINTF(6, 7);

/* A module's id or version as a file or stream stores it: a length byte (1..64), then the
 * text; id [a-z][a-z0-9._-]*, version printable ASCII. E_LENGTH at the length byte, E_RANGE at
 * the first bad byte. The one copy of the rule, for OSTM v2 (recording.c) and OSLS v2
 * (live_stream.c); out gets the NUL-terminated text. */
onescope_code onescope_os_read_module_text(onescope_os_reader *rd, const char *field, bool id,
                                           char out[65]);

/* Decoders for fixed-layout records already bounds-checked. */
static inline uint16_t onescope_os_get_u16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t onescope_os_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
/* How many floats lie between two floats, by their bits (0 when equal; +0 and -0 are equal).
 * The one copy of the rule: a diff's ULP figures all come from here. */
static inline uint64_t onescope_os_float_ulps(float x, float y) {
    int32_t a, b;
    memcpy(&a, &x, 4);
    memcpy(&b, &y, 4);
    int64_t ka = a < 0 ? (int64_t)INT32_MIN - a : a;
    int64_t kb = b < 0 ? (int64_t)INT32_MIN - b : b;
    return (uint64_t)(ka > kb ? ka - kb : kb - ka);
}

static inline uint64_t onescope_os_get_u64(const uint8_t *p) {
    return (uint64_t)onescope_os_get_u32(p) | ((uint64_t)onescope_os_get_u32(p + 4) << 32);
}
float onescope_os_get_f32(const uint8_t *p);
double onescope_os_get_f64(const uint8_t *p);
static inline void onescope_os_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void onescope_os_put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void onescope_os_put_u64(uint8_t *p, uint64_t v) {
    onescope_os_put_u32(p, (uint32_t)v);
    onescope_os_put_u32(p + 4, (uint32_t)(v >> 32));
}
void onescope_os_put_f32(uint8_t *p, float v);
void onescope_os_put_f64(uint8_t *p, double v);

/* SipHash-2-4 of size bytes under a 128-bit key (src/siphash.c): a tag that cannot be forged
 * without the key, for bytes the library hands to code that trusts them. */
uint64_t onescope_os_siphash(const uint8_t key[16], const void *data, size_t size);

/* ---- the byte writer: grows through the allocator; a failure latches and is reported once ---- */

typedef struct onescope_os_writer {
    uint8_t *data;
    size_t size;
    size_t capacity;
    const onescope_allocator *allocator;
    bool failed;
} onescope_os_writer;

void onescope_os_writer_init(onescope_os_writer *w, const onescope_allocator *allocator);
/* Reserves room for n more bytes; returns a pointer to write them or NULL (latched). */
uint8_t *onescope_os_writer_grow(onescope_os_writer *w, size_t n);
/* Pre-sizes the buffer to exactly total bytes (writers that know their size up front). */
bool onescope_os_writer_reserve_total(onescope_os_writer *w, size_t total);
void onescope_os_write_u8(onescope_os_writer *w, uint8_t v);
void onescope_os_write_u16(onescope_os_writer *w, uint16_t v);
void onescope_os_write_u32(onescope_os_writer *w, uint32_t v);
void onescope_os_write_u64(onescope_os_writer *w, uint64_t v);
void onescope_os_write_i32(onescope_os_writer *w, int32_t v);
void onescope_os_write_i64(onescope_os_writer *w, int64_t v);
void onescope_os_write_f32(onescope_os_writer *w, float v);
void onescope_os_write_f64(onescope_os_writer *w, double v);
void onescope_os_write_bytes(onescope_os_writer *w, const void *p, size_t n);
/* Hands the bytes to out, or reports ONESCOPE_E_NOMEM and frees them. */
onescope_code onescope_os_writer_finish(onescope_os_writer *w, onescope_buffer *out,
                                        onescope_error *error, const char *name);
void onescope_os_writer_discard(onescope_os_writer *w);

/* ---- deterministic numbers ---- */

/* splitmix64: the PRNG of the test module (docs/test-module.md 3.1) and of the test-data
 * scripts. Its sequence is part of the hash rows: never change it. */
static inline uint64_t onescope_os_splitmix64(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* lo + next mod (hi - lo + 1) (remainder, no rejection), for hi - lo < 2^32. */
static inline int32_t onescope_os_draw(uint64_t *state, int32_t lo, int32_t hi) {
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1u;
    return (int32_t)((int64_t)lo + (int64_t)(onescope_os_splitmix64(state) % span));
}

/* ---- pose cache steps ---- */

/* The OSPC rule for steps (src/pose_cache.c, the one copy): frame k of a cache is step
 * start_step + k, so start_step >= 0, frames >= 1 and start_step + frames - 1 <= INT64_MAX.
 * Every reader may then compute start + frame in int64_t; every writer checks it first. */
bool onescope_os_ospc_steps_fit(int64_t start_step, uint64_t frames);

/* ---- text ---- */

/* Returns true when s[0..n) is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF);
 * otherwise false with *bad the offset of the first bad byte. */
bool onescope_os_utf8_valid(const uint8_t *s, size_t n, size_t *bad);
/* The length of the valid UTF-8 character at s[0..n) (same rules), with its code point in
 * *cp; 0 when s[0] does not start one (or n is 0). */
size_t onescope_os_utf8_char(const uint8_t *s, size_t n, uint32_t *cp);
/* Copies src, always terminated; text that does not fit is cut at a whole UTF-8 character
 * and ends with "...". */
void onescope_os_copy_text(char *dst, size_t size, const char *src);

/* ---- files for the streaming writers (src/file.c) ----
 * Each fills error naming `name` (the file the caller records to) and reports
 * ONESCOPE_E_IO with the system's reason. */

/* Creates path for writing with O_EXCL (mode 0666 less the umask); returns the descriptor,
 * or -1 with error filled. */
int onescope_os_file_create_new(const char *path, const char *name, onescope_error *error);
/* Writes all n bytes at the descriptor's position, retrying short writes and EINTR. */
onescope_code onescope_os_file_write_fd(int fd, const void *data, size_t n, const char *name,
                                        onescope_error *error);
/* Writes n bytes at offset without moving the position (pwrite). */
onescope_code onescope_os_file_patch_fd(int fd, uint64_t offset, const void *data, size_t n,
                                        const char *name, onescope_error *error);
/* fsync. */
onescope_code onescope_os_file_sync_fd(int fd, const char *name, onescope_error *error);
/* close, reporting a failure (the descriptor is gone either way). */
onescope_code onescope_os_file_close_fd(int fd, const char *name, onescope_error *error);
/* rename(from, to): atomic within one directory. */
onescope_code onescope_os_file_rename(const char *from, const char *to, const char *name,
                                      onescope_error *error);
/* The one landing of every output: fsync (unless sync is false: a device or pipe), close, then
 * rename from onto to (from NULL: written in place). The descriptor is closed whatever
 * happens; on failure from stays where it is, for the caller's rule (a temporary is removed,
 * a partial kept). */
onescope_code onescope_os_file_land(int fd, const char *from, const char *to, bool sync,
                                    const char *name, onescope_error *error);
/* unlink, ignoring failures and a NULL path (used to clean up). */
void onescope_os_file_remove(const char *path);
/* Opens path for reading; -1 with error filled when it cannot, or is not a regular file. */
int onescope_os_file_open_read(const char *path, const char *name, onescope_error *error);
/* Reads up to n bytes at offset (pread, retrying short reads and EINTR); *got gets the count,
 * short only at the end of the file. */
onescope_code onescope_os_file_read_at(int fd, uint64_t offset, void *data, size_t n, size_t *got,
                                       const char *name, onescope_error *error);

/* ---- input text in messages (src/error.c) ---- */

/* The one escape for input text that enters an error (keys, names, enumeration values):
 * control bytes become \n, \r, \t or \xNN, invalid UTF-8 bytes \xNN, '"' and '\\' get a
 * backslash, and line separators, C1 controls and bidirectional overrides \uNNNN, so the
 * message stays one printable line that no input can forge or reorder. Writes at most size - 1
 * bytes and a NUL; text that does not fit ends with "..." after a whole character or escape.
 * Returns the length written. */
size_t onescope_os_escape(char *dst, size_t size, const char *src, size_t n);

/* How much of one piece of input text a message shows (escaped bytes, before the "..."). */
#define ONESCOPE_OS_ECHO_MAX 64
/* The most of the input name onescope_error_format prints, escaped. */
#define ONESCOPE_OS_ECHO_NAME 256
typedef struct onescope_os_echo_buf {
    char text[ONESCOPE_OS_ECHO_MAX + 1];
} onescope_os_echo_buf;
/* onescope_os_escape of a NUL-terminated src into buf; returns buf->text, for "%s". */
const char *onescope_os_echo(onescope_os_echo_buf *buf, const char *src);
/* The same in an expression: a buffer that lives until the end of the enclosing block. */
#define OS_ECHO(src) onescope_os_echo(&(onescope_os_echo_buf){{0}}, (src))

/* ---- where an output lands (src/file.c; the rules: docs/hardening.md, "### files") ----
 * Every writer that replaces a file goes resolve -> create_temp -> write/sync -> adopt ->
 * close -> rename(tmp, target.path) -> target_free, or writes target.path in place when
 * target.special. */
typedef struct onescope_os_target {
    char *path;   /* the file to replace: the path itself, or the end of its symlinks */
    bool special; /* a device, FIFO or socket: written in place, never replaced */
    bool exists;  /* an existing regular file: mode and owner below are kept */
    uint32_t mode, uid, gid;
} onescope_os_target;

/* Decides where a write to path goes; name is what errors name. */
onescope_code onescope_os_target_resolve(const char *path, const char *name,
                                         const onescope_allocator *a, onescope_os_target *out,
                                         onescope_error *error);
void onescope_os_target_free(onescope_os_target *t, const onescope_allocator *a);
/* Creates a fresh temporary beside t->path whose name fits NAME_MAX (a long base is cut),
 * with at most the existing file's permissions. *tmp_out is allocated with a. */
onescope_code onescope_os_target_create_temp(const onescope_os_target *t,
                                             const onescope_allocator *a, const char *name,
                                             int *fd_out, char **tmp_out, onescope_error *error);
/* Gives fd (about to be renamed onto t->path) the replaced file's mode and owner (an owner
 * change refused with EPERM is ignored: only root may give files away). */
onescope_code onescope_os_target_adopt(const onescope_os_target *t, int fd, const char *name,
                                       onescope_error *error);

/* ---- what the two streaming writers share (src/file.c; docs/pose-cache.md, "Recording") ---- */

/* Resolves where a recording lands (onescope_os_target_resolve) and refuses, before any
 * partial exists, a target close could not rename onto: a device, FIFO or socket, or a
 * directory. */
onescope_code onescope_os_recording_target(const char *path, const onescope_allocator *a,
                                           onescope_os_target *t, onescope_error *error);
/* The one partial name: target + ".partial" in target's directory, the file name cut (at a
 * UTF-8 character boundary) so it fits NAME_MAX, as a temporary's is. NULL: out of memory. */
char *onescope_os_partial_name(const char *target, const onescope_allocator *a);
#define ONESCOPE_OS_PARTIAL_SUFFIX ".partial"
/* Whether name ends in the suffix with something before it: the one test of a partial's name. */
bool onescope_os_partial_named(const char *name);
/* What every reader says of a count that is the partial mark (both formats use 0xffffffff):
 * one line naming recover. */
#define ONESCOPE_OS_PARTIAL_FOUND                                                                  \
    "4294967295: a partial recording (onescope recover makes a file of its complete records)"

/* Both recoveries' names: partial and out_path files, neither "-" (a recovery is written
 * atomically, never to standard output), out_path NULL meaning partial without ".partial",
 * and not the partial itself. *out gets the name to write: out_path, or *derived (allocated
 * with a, for the caller to free; NULL otherwise). */
onescope_code onescope_os_recover_names(const char *partial, const char *out_path, const char *call,
                                        const onescope_allocator *a, const char **out,
                                        char **derived, onescope_error *error);

/* When a writer flushes (common.h's durability options, resolved). */
typedef struct onescope_os_flush_rule {
    uint32_t every;    /* records; ONESCOPE_FLUSH_NEVER: off */
    uint32_t every_ms; /* ONESCOPE_FLUSH_NEVER: off */
    bool fsync;
    uint32_t pending; /* records buffered since the last flush */
    uint64_t last_ms; /* monotonic clock at the last flush */
} onescope_os_flush_rule;
void onescope_os_flush_rule_init(onescope_os_flush_rule *r, uint32_t every, uint32_t every_ms,
                                 bool fsync);
/* Counts one more buffered record; true when a flush is due now. */
bool onescope_os_flush_due(onescope_os_flush_rule *r);
/* Records that a flush happened. */
void onescope_os_flush_done(onescope_os_flush_rule *r);
/* A writer's refusal of a call when it is closed or failed earlier: one wording for both. */
onescope_code onescope_os_writer_refuse(onescope_error *error, const char *name, const char *call,
                                        bool closed, const char *unit);

#endif
