/* Shared by the format files and src/file.c: the push validators (bytes in, a verdict out,
 * no I/O) that let file.c check a file through one fixed buffer, and the pieces of the
 * memory-mapped pose cache open. Not part of the public API. */
#ifndef ONESCOPE_CHECK_INTERNAL_H
#define ONESCOPE_CHECK_INTERNAL_H

#include "json_reader.h"
#include "onescope/format.h"
#include "onescope/ots.h"
#include "onescope/pose_cache.h"
#include "onescope/replay.h"

/* An input whose size is not known until its end (a pipe, standard input): the total the
 * push validators below take for it. */
#define ONESCOPE_OS_SIZE_UNKNOWN SIZE_MAX

/* ---- one codec per format: how its bytes are checked, whole or as they come ----
 * Each format defines its codec beside its parser; onescope_os_codec_of (src/format.c) finds
 * it, so src/file.c pumps every format the same way and knows none of them.
 *
 * A push validator is four calls: begin with the input's size (or ONESCOPE_OS_SIZE_UNKNOWN),
 * feed the bytes in order in pieces of any size (the verdict so far; once not OK, later feeds
 * change nothing), end after the last byte (the final verdict, in error), free. */
typedef struct onescope_os_push_ops {
    onescope_code (*begin)(size_t total, const char *name, const onescope_parse_options *options,
                           void **state, onescope_error *error);
    onescope_code (*feed)(void *state, const void *data, size_t n);
    onescope_code (*end)(void *state, onescope_error *error);
    void (*free)(void *state);
} onescope_os_push_ops;

/* The one frame every push validator runs in: first holds the input's first n bytes (what
 * detection saw), more() hands out the rest, size 0 at the end. With keep, an OK validator is
 * handed back there (for the head it learnt) instead of freed. error must not be NULL. */
onescope_code onescope_os_push_run(const onescope_os_push_ops *ops, const void *first, size_t n,
                                   size_t total, onescope_os_jr_more *more, void *user,
                                   const char *name, const onescope_parse_options *options,
                                   void **keep, onescope_error *error);

typedef struct onescope_os_codec {
    /* Exactly one of push and pull: a validator fed in pieces, or a reader that asks for them
     * (pull gets the same first, n, total and more as onescope_os_push_run). */
    const onescope_os_push_ops *push;
    onescope_code (*pull)(const void *first, size_t n, size_t total, onescope_os_jr_more *more,
                          void *user, const char *name, const onescope_parse_options *options,
                          onescope_error *error);
    /* The parser over the whole input in memory: the verdict the streamed check matches. */
    onescope_code (*parse)(const void *data, size_t size, const char *name,
                           const onescope_parse_options *options, onescope_error *error);
} onescope_os_codec;

/* Each format's codec (beside its parser) and the lookup; NULL for ONESCOPE_FORMAT_UNKNOWN. */
extern const onescope_os_codec onescope_os_ospc_codec, onescope_os_ostm_codec,
    onescope_os_recording_codec, onescope_os_osls_codec, onescope_os_pvt_codec,
    onescope_os_anm_codec;
const onescope_os_codec *onescope_os_codec_of(onescope_format format);
/* Checks first..n and the rest through the format's codec (push or pull); error must not be
 * NULL. */
onescope_code onescope_os_codec_check(const onescope_os_codec *codec, const void *first, size_t n,
                                      size_t total, onescope_os_jr_more *more, void *user,
                                      const char *name, const onescope_parse_options *options,
                                      onescope_error *error);
/* The error of an input in no known format (data: its first size bytes). */
onescope_code onescope_os_format_unknown(const void *data, size_t size, const char *name,
                                         onescope_error *error);

/* ---- OSPC push validator (src/pose_cache.c) ----
 * begin with the input's whole size (file.c has a regular file's from fstat) or
 * ONESCOPE_OS_SIZE_UNKNOWN, feed the bytes in order in pieces of any size, then end. The
 * verdict, offset and message are the parser's on the same bytes, because the same scan
 * functions run on each unit (header, a text, an entity, a block of poses). Memory: the struct
 * and the id set (at most 1 MiB).
 *
 * Of unknown size, the counts are checked against the input limit as the bytes come, and the
 * few rules that need the real size (a count the file can hold, the poses there are, how many
 * bytes trail) are decided again at end, from the head kept, once the size is known: so an
 * error found on the way is held, not final, and feed answers OK until end (the bytes after
 * it only counted), except E_TOO_LARGE once more than the limit has come (final: stop
 * feeding). The verdict is still the parser's on the whole input. */
typedef struct onescope_os_ospc_check onescope_os_ospc_check;

onescope_code onescope_os_ospc_check_begin(size_t total, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_os_ospc_check **out, onescope_error *error);
/* Returns the verdict so far: ONESCOPE_OK while the bytes are good, the first error (also
 * on every later call) once one is found. Feeding more than total bytes is an error (of
 * unknown size: more than the limit, E_TOO_LARGE; other errors wait for end). */
onescope_code onescope_os_ospc_check_feed(onescope_os_ospc_check *c, const void *data, size_t n);
/* After the last byte: the final verdict, filled into error. */
onescope_code onescope_os_ospc_check_end(onescope_os_ospc_check *c, onescope_error *error);
void onescope_os_ospc_check_free(onescope_os_ospc_check *c);
/* The offset of the first pose once the head (header, texts, entities) has passed every
 * check; 0 before that or after a failure. Lets a reader stream the poses (src/file.c). */
size_t onescope_os_ospc_check_poses_at(const onescope_os_ospc_check *c);

/* ---- the mapped open (parse in src/pose_cache.c, the mapping in src/file.c) ----
 * Parses data (a mapping of the whole file) like onescope_pose_cache_parse; where the host
 * allows, the cache's poses point into data and *borrowed is set, else they are copied. */
onescope_code onescope_os_pose_cache_parse_mapped(const void *data, size_t size, const char *name,
                                                  const onescope_parse_options *options,
                                                  bool *borrowed, onescope_pose_cache **out,
                                                  onescope_error *error);
/* ---- OSTM push validator (src/replay.c) ----
 * The same protocol as the OSPC one, unknown size included (decided again at end: the
 * snapshot length, the hash rows and the step lengths the input can hold, the trailing
 * bytes). The units are the head (header, step count, snapshot
 * length), the start snapshot, the hash rows (skipped: any bits are valid) and one step at a
 * time (at most 2 + 65535 bytes, checked in place when a piece holds it whole). The parser
 * and the validator share the scan functions, so the verdict is the parser's. */
typedef struct onescope_os_ostm_check onescope_os_ostm_check;

/* What the head says, with the file offsets of the parts after it. */
typedef struct onescope_os_ostm_head {
    onescope_sim_setup setup;
    onescope_link_block link; /* role NONE without a link block */
    uint16_t flags;
    uint32_t step_count;
    uint32_t snapshot_size; /* 0 without a start snapshot */
    uint64_t snapshot_at;
    uint64_t rows_at;   /* the hash rows (if flag bit 0) */
    uint64_t inputs_at; /* step 0's length */
} onescope_os_ostm_head;

onescope_code onescope_os_ostm_check_begin(size_t total, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_os_ostm_check **out, onescope_error *error);
onescope_code onescope_os_ostm_check_feed(onescope_os_ostm_check *c, const void *data, size_t n);
onescope_code onescope_os_ostm_check_end(onescope_os_ostm_check *c, onescope_error *error);
/* After an OK end: the head, and the start snapshot's bytes (NULL without one), valid until
 * the validator is freed. */
const onescope_os_ostm_head *onescope_os_ostm_check_head(const onescope_os_ostm_check *c,
                                                         const uint8_t **snapshot);
void onescope_os_ostm_check_free(onescope_os_ostm_check *c);
/* Its four calls for onescope_os_push_run (kept: an onescope_os_ostm_check). */
extern const onescope_os_push_ops onescope_os_ostm_push;

/* ---- verifying from any source (src/replay_run.c) ----
 * The one verify loop: onescope_replay_verify runs it over a parsed replay, src/file.c over
 * a file read through two cursors (rows and inputs). row() gives recorded row i, input() step
 * i's bytes (valid until the next call); either may fail with error filled. */
struct onescope_world;
typedef struct onescope_os_replay_source {
    onescope_code (*row)(void *user, uint32_t index, uint64_t *expected, onescope_error *error);
    /* *at: the input's file offset (left OS_NO_OFFSET when the source does not know it) */
    onescope_code (*input)(void *user, uint32_t index, const uint8_t **data, size_t *size,
                           uint64_t *at, onescope_error *error);
    void *user;
    /* Optional (module recordings with keyframes): after row index's hash matched, compares
     * the file's keyframe table there (if one is) with the world; on a difference fills
     * result's table_* fields and returns E_MISMATCH. */
    onescope_code (*keyframe)(void *user, uint32_t index, const struct onescope_world *world,
                              onescope_verify_result *result, onescope_error *error);
} onescope_os_replay_source;

onescope_code onescope_os_replay_verify_source(const onescope_os_ostm_head *head,
                                               const uint8_t *snapshot,
                                               const onescope_os_replay_source *source,
                                               const onescope_allocator *allocator,
                                               onescope_verify_result *result, const char *name,
                                               onescope_error *error);

/* ---- OTS .pvt / .anm (ots_read.c) ---- */

/* Checks a whole .pvt or .anm text that arrives in chunks (first, then whatever more hands
 * out; json_reader.h) without keeping its keyframes: memory is the reader's and the names and
 * parents of the bones, pegs and cameras, whatever the text's size. The verdict and the
 * errors (options->on_error, max_errors) are those of the parser. */
onescope_code onescope_os_ots_check_stream(onescope_ots_kind kind, const void *first, size_t size,
                                           onescope_os_jr_more *more, void *user, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_error *error);

#endif
