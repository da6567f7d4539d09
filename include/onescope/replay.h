/* OSTM v1 test-module replays: a setup, an optional link block and start snapshot, optional
 * hash rows and one input per step. Format and rules: docs/test-module.md. */
#ifndef ONESCOPE_REPLAY_H
#define ONESCOPE_REPLAY_H

#include <stdbool.h>

#include "onescope/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_OSTM_VERSION 1
#define ONESCOPE_OSTM_MAX_STEPS 16777216u
#define ONESCOPE_OSTM_FLAG_HASH_ROWS 0x1u
#define ONESCOPE_OSTM_FLAG_START_SNAPSHOT 0x2u
#define ONESCOPE_OSTM_FLAG_LINK 0x4u

/* A parsed or built replay: opaque, so that its arrays and their capacities stay consistent.
 * Born with an allocator (the parse options' or create's) and kept for its life. Read it with
 * the accessors below, change it only through the builder functions. */
typedef struct onescope_replay onescope_replay;

/* The flags word a replay writes (bits 0-2: hash rows, start snapshot, link block). */
ONESCOPE_API uint16_t onescope_replay_flags(const onescope_replay *replay);

/* ---- reading a replay (NULL gives zeros, NULL pointers and false) ---- */

ONESCOPE_API onescope_sim_setup onescope_replay_setup(const onescope_replay *replay);
/* Role NONE: no link block (flag bit 2 clear). */
ONESCOPE_API onescope_link_block onescope_replay_link(const onescope_replay *replay);
ONESCOPE_API uint32_t onescope_replay_step_count(const onescope_replay *replay);
/* Flag bit 1. */
ONESCOPE_API bool onescope_replay_has_start_snapshot(const onescope_replay *replay);
/* The start snapshot's bytes (NULL without one); *size gets its length (size may be NULL). */
ONESCOPE_API const uint8_t *onescope_replay_start_snapshot(const onescope_replay *replay,
                                                           size_t *size);
/* The start snapshot's host step, 0 without one. */
ONESCOPE_API uint64_t onescope_replay_start_step(const onescope_replay *replay);
/* Flag bit 0. */
ONESCOPE_API bool onescope_replay_has_hash_rows(const onescope_replay *replay);
/* step_count + 1 recorded rows, or NULL without hash rows. */
ONESCOPE_API const uint64_t *onescope_replay_hash_rows(const onescope_replay *replay);
/* The input bytes of every step together (the length prefixes not counted). */
ONESCOPE_API uint64_t onescope_replay_input_bytes(const onescope_replay *replay);

/* Parses an OSTM v1 file from memory (options may be NULL). *out owns copies of everything. */
ONESCOPE_API onescope_code onescope_replay_parse(const void *data, size_t size, const char *name,
                                                 const onescope_parse_options *options,
                                                 onescope_replay **out, onescope_error *error);

/* ---- building a replay from code ---- */

/* An empty replay (no steps, no snapshot, no hash rows); link may be NULL (none). The setup
 * and link are checked as the parser checks them. */
ONESCOPE_API onescope_code onescope_replay_create(const onescope_sim_setup *setup,
                                                  const onescope_link_block *link,
                                                  const onescope_allocator *allocator,
                                                  onescope_replay **out, onescope_error *error);
/* Sets (copies, after checking) the start snapshot; NULL/0 removes it. Drops hash rows. */
ONESCOPE_API onescope_code onescope_replay_set_start_snapshot(onescope_replay *replay,
                                                              const void *snapshot, size_t size,
                                                              onescope_error *error);
/* Appends one step with raw input bytes (checked: every operation valid, size <= 65535).
 * Drops hash rows (they no longer cover every step). */
ONESCOPE_API onescope_code onescope_replay_append_step(onescope_replay *replay, const void *input,
                                                       size_t size, onescope_error *error);
/* Appends one step made of these operations (encoded and checked). */
ONESCOPE_API onescope_code onescope_replay_append_ops(onescope_replay *replay,
                                                      const onescope_op *ops, size_t count,
                                                      onescope_error *error);
/* Sets step_count + 1 hash rows (copied); NULL/0 removes them. count must be step_count + 1. */
ONESCOPE_API onescope_code onescope_replay_set_hash_rows(onescope_replay *replay,
                                                         const uint64_t *rows, size_t count,
                                                         onescope_error *error);
/* Runs the replay and stores its hash rows (so onescope_replay_has_hash_rows is true). */
ONESCOPE_API onescope_code onescope_replay_compute_hash_rows(onescope_replay *replay,
                                                             onescope_error *error);

/* The input of step index (0-based); ARGUMENT when index >= step_count. */
ONESCOPE_API onescope_code onescope_replay_step_input(const onescope_replay *replay, uint32_t index,
                                                      const uint8_t **data, size_t *size);

/* Counts the operations of every step: counts[code] for codes 1..5 (counts[0] unused). */
ONESCOPE_API void onescope_replay_count_ops(const onescope_replay *replay, uint64_t counts[6]);

ONESCOPE_API void onescope_replay_free(onescope_replay *replay);

/* Checks every rule the parser checks; the writer calls it first. */
ONESCOPE_API onescope_code onescope_replay_validate(const onescope_replay *replay, const char *name,
                                                    onescope_error *error);

/* Serialises a valid replay; write(parse(b)) == b. */
ONESCOPE_API onescope_code onescope_replay_write(const onescope_replay *replay,
                                                 const onescope_allocator *allocator,
                                                 onescope_buffer *out, onescope_error *error);

ONESCOPE_API onescope_code onescope_replay_read_file(const char *path,
                                                     const onescope_parse_options *options,
                                                     onescope_replay **out, onescope_error *error);
ONESCOPE_API onescope_code onescope_replay_write_file(const onescope_replay *replay,
                                                      const char *path, onescope_error *error);

/* ---- running ---- */

/* The world a replay starts from: its start snapshot, or the setup. */
ONESCOPE_API onescope_code onescope_replay_start_world(const onescope_replay *replay,
                                                       const onescope_allocator *allocator,
                                                       onescope_sim **out, onescope_error *error);

/* One hash row as the runner produces it: row 0 before any input, row i after step i-1. */
typedef struct onescope_replay_row {
    uint32_t index;          /* 0..step_count */
    uint64_t host_step;      /* start_step + index (mod 2^64) */
    uint64_t hash;           /* the world's hash now */
    bool has_expected;       /* the replay holds hash rows */
    uint64_t expected;       /* the recorded row, when has_expected */
    const onescope_sim *sim; /* the world at this step boundary (valid during the callback) */
} onescope_replay_row;

/* Called once per row, in order; returning true stops the run (the run returns OK). */
typedef bool (*onescope_replay_callback)(void *user, const onescope_replay_row *row);

/* Runs every step, calling back at every step boundary. callback may be NULL. */
ONESCOPE_API onescope_code onescope_replay_run(const onescope_replay *replay,
                                               const onescope_allocator *allocator,
                                               onescope_replay_callback callback, void *user,
                                               onescope_error *error);

/* What a verify decided, as a code a caller branches on (never the error's text). Rows and
 * steps (docs/recording.md, "Rows and steps"): row 0 is the start world, row r the world after
 * step r - 1. */
typedef enum onescope_verdict {
    ONESCOPE_VERDICT_INVALID = 0,        /* the file, or its module, failed before a row was
                                            compared: the error says why (E_MODULE: not loaded) */
    ONESCOPE_VERDICT_PASS = 1,           /* every hash row (and keyframe table) matched */
    ONESCOPE_VERDICT_HASH_MISMATCH = 2,  /* hash row first_row differs: expected, actual */
    ONESCOPE_VERDICT_TABLE_MISMATCH = 3, /* every hash row through first_row matched, but the
                                            keyframe table there differs from the world: the
                                            module's hash misses a value (table_*) */
    ONESCOPE_VERDICT_MODULE_ERROR = 4,   /* the module failed making row first_row (the start
                                            world at 0, else step first_row - 1): the error */
    ONESCOPE_VERDICT_NO_HASH_ROWS = 5,   /* the file holds no hash rows to verify */
    ONESCOPE_VERDICT_NO_STEPS = 6        /* OK, but the file holds no step: only row 0 was
                                            compared, which is never a pass in CI */
} onescope_verdict;

typedef struct onescope_verify_result {
    bool matched;          /* every row matched */
    uint32_t rows_checked; /* rows compared (all of them when matched) */
    uint32_t first_row;    /* the first differing row (when !matched) */
    uint64_t first_step;   /* its host step: start_step + first_row */
    uint64_t expected;     /* the recorded hash */
    uint64_t actual;       /* the recomputed hash */
    /* ---- added in 0.5.0 ---- */
    onescope_verdict verdict;
    uint32_t keyframes_checked; /* keyframe tables compared with the world (module recordings) */
    /* TABLE_MISMATCH: how many values differ at first_row (an entity one side lacks counts
     * once), and the first: its entity, its index in the file's value names (UINT32_MAX: an
     * entity only one side holds), and both values (0 for the side without the entity). */
    uint32_t table_differing;
    uint64_t table_entity;
    uint32_t table_value;
    bool table_in_file, table_in_world;
    double table_recorded, table_found;
} onescope_verify_result;

/* Re-simulates and compares every hash row. OK: all match. MISMATCH: result names the first
 * differing row (error: "hash row N (step S): expected <16 hex>, found <16 hex>"). FLAGS (offset
 * 6): the replay has no hash rows. result may be NULL. */
ONESCOPE_API onescope_code onescope_replay_verify(const onescope_replay *replay,
                                                  const onescope_allocator *allocator,
                                                  onescope_verify_result *result, const char *name,
                                                  onescope_error *error);

/* ---- recording as the simulation runs: the streaming writer and recovery ----
 * Layout of the partial file and the rules: docs/test-module.md, "The streaming writer". */

typedef struct onescope_replay_writer onescope_replay_writer;

/* Zeroed (or NULL) options are the defaults. */
typedef struct onescope_replay_writer_options {
    /* Appended steps wait in a buffer of this many bytes and reach the partial file with one
     * write(2) when it is full (or at a flush). 0: 256 KiB; values below one largest step
     * (65547 bytes) are raised to it. */
    size_t buffer_bytes;
    /* Durability (common.h), as in onescope_pose_writer_options: a flush after every
     * flush_every steps (0: 64; 1: each step, so a killed process loses none;
     * ONESCOPE_FLUSH_NEVER: off) and at the first append flush_every_ms milliseconds or more
     * after the last flush (0: 100; ONESCOPE_FLUSH_NEVER: off), besides a full buffer. */
    uint32_t flush_every;
    uint32_t flush_every_ms;
    bool flush_fsync; /* every flush also fsyncs (close always does) */
} onescope_replay_writer_options;

ONESCOPE_API onescope_replay_writer_options onescope_replay_writer_options_default(void);

/* Starts recording a replay to path. Until close, the bytes go to the sibling "PATH.partial"
 * (created anew: an existing one, left by an earlier crash, is refused so it is never
 * overwritten); path itself is not touched until close renames the finished file onto it.
 * setup, link (may be NULL: none) and the start snapshot (NULL/0: none) are checked as the
 * parser checks them. The writer runs its own world from them; hash row 0 is its hash. */
ONESCOPE_API onescope_code onescope_replay_writer_open(
    const char *path, const onescope_sim_setup *setup, const onescope_link_block *link,
    const void *start_snapshot, size_t snapshot_size, const onescope_replay_writer_options *options,
    const onescope_allocator *allocator, onescope_replay_writer **out, onescope_error *error);

/* Appends one step: its input (checked as the parser checks it) and its hash row: *hash when
 * hash is non-NULL (stored as given), else the hash of the writer's world after running the
 * input. Refuses a step that would take the file past 16777216 steps or 256 MiB. Any error
 * latches: every later append, flush or close returns ONESCOPE_E_BAD_STATE (the partial file
 * keeps every step appended before it and can be recovered). */
ONESCOPE_API onescope_code onescope_replay_writer_append(onescope_replay_writer *writer,
                                                         const void *input, size_t size,
                                                         const uint64_t *hash,
                                                         onescope_error *error);

/* Flushes now (common.h): the steps appended so far survive a killed process (recover keeps
 * them), and a power loss too when the options ask for flush_fsync. */
ONESCOPE_API onescope_code onescope_replay_writer_flush(onescope_replay_writer *writer,
                                                        onescope_error *error);

/* Finishes the recording: writes the OSTM file beside path from the partial (the inputs are
 * streamed back through a fixed buffer), fsyncs it, renames it onto path and removes the
 * partial. *steps (may be NULL) gets the steps written. A failed close latches and leaves the
 * partial; a second close is ONESCOPE_E_BAD_STATE. */
ONESCOPE_API onescope_code onescope_replay_writer_close(onescope_replay_writer *writer,
                                                        uint64_t *steps, onescope_error *error);

/* Steps appended so far. */
ONESCOPE_API uint64_t onescope_replay_writer_steps(const onescope_replay_writer *writer);

/* Releases the writer (NULL is fine). A writer not closed leaves its partial file in place,
 * holding every step written to it, for onescope_replay_recover. */
ONESCOPE_API void onescope_replay_writer_free(onescope_replay_writer *writer);

/* Abandons the recording and releases the writer: its partial is removed (after a
 * successful close it is the same as free). NULL is fine. */
ONESCOPE_API void onescope_replay_writer_discard(onescope_replay_writer *writer);

/* Turns a partial recording into an OSTM file holding every complete step (a torn last step
 * is dropped), written atomically to out_path (NULL: partial_path without ".partial"). The
 * partial is only read, never changed. *steps_kept (may be NULL) gets the steps kept. A file
 * that is not a partial, or a damaged one, is refused naming it and the offset: a record cut
 * by the end of the file is torn only when its bytes could begin a valid record. "-" is
 * refused as either name. */
ONESCOPE_API onescope_code onescope_replay_recover(const char *partial_path, const char *out_path,
                                                   const onescope_allocator *allocator,
                                                   uint64_t *steps_kept, onescope_error *error);

/* onescope_replay_read_file then onescope_replay_verify (the same result and every error the
 * same), but a regular file is never held whole: it is validated through one 1 MiB buffer,
 * then run with the hash rows and the step inputs read through two buffered cursors, so
 * memory stays near 1.1 MiB whatever the replay's size. Standard input ("-"), pipes and
 * devices are read whole. The allocator is the options'. result may be NULL. */
ONESCOPE_API onescope_code onescope_replay_verify_file(const char *path,
                                                       const onescope_parse_options *options,
                                                       onescope_verify_result *result,
                                                       onescope_error *error);

/* The input of step index (0-based) of a replay file, read the way
 * onescope_replay_verify_file reads it: a regular file is validated through one 1 MiB buffer,
 * then its inputs are walked up to that step, so memory does not grow with the replay (for
 * the operations of the step a verify found differing). Standard input and other non-regular
 * files are read whole. *setup (may be NULL) gets the replay's setup; *input the step's bytes
 * (free with onescope_buffer_free). ARGUMENT when index >= the step count. */
ONESCOPE_API onescope_code onescope_replay_step_input_file(
    const char *path, const onescope_parse_options *options, uint32_t index,
    onescope_sim_setup *setup, onescope_buffer *input, onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif
