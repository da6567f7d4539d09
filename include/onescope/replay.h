/* OSTM v1 test-module replays: a setup, an optional link block and start snapshot, optional
 * hash rows and one input per step. Format and rules: docs/test-module.md. */
#ifndef ONESCOPE_REPLAY_H
#define ONESCOPE_REPLAY_H

#include "onescope/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_OSTM_VERSION 1
#define ONESCOPE_OSTM_MAX_STEPS 16777216u
#define ONESCOPE_OSTM_FLAG_HASH_ROWS 0x1u
#define ONESCOPE_OSTM_FLAG_START_SNAPSHOT 0x2u
#define ONESCOPE_OSTM_FLAG_LINK 0x4u

/* A parsed or built replay. Owned by the library's allocator; read the fields, change it
 * only through the functions below. */
typedef struct onescope_replay {
    onescope_sim_setup setup;
    onescope_link_block link;      /* role NONE: no link block (flag bit 2 clear) */
    uint32_t step_count;
    int has_start_snapshot;        /* flag bit 1 */
    uint8_t *start_snapshot;       /* start_snapshot_size bytes, or NULL */
    uint32_t start_snapshot_size;
    uint64_t start_step;           /* the snapshot's host step, 0 without one */
    int has_hash_rows;             /* flag bit 0 */
    uint64_t *hash_rows;           /* step_count + 1 rows when has_hash_rows, else NULL */
    /* Step inputs, concatenated: step i is inputs[input_offsets[i] .. input_offsets[i+1]). */
    uint8_t *inputs;
    uint32_t *input_offsets;       /* step_count + 1 entries */
    /* private: capacities of the growing arrays */
    size_t inputs_capacity;
    uint32_t steps_capacity;
    const onescope_allocator *allocator;
} onescope_replay;

/* The flags word a replay writes (bits 0-2 from has_hash_rows, has_start_snapshot, link). */
ONESCOPE_API uint16_t onescope_replay_flags(const onescope_replay *replay);

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
/* Runs the replay and stores its hash rows (sets has_hash_rows). */
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
    uint32_t index;        /* 0..step_count */
    uint64_t host_step;    /* start_step + index (mod 2^64) */
    uint64_t hash;         /* the world's hash now */
    int has_expected;      /* the replay holds hash rows */
    uint64_t expected;     /* the recorded row, when has_expected */
    const onescope_sim *sim; /* the world at this step boundary (valid during the callback) */
} onescope_replay_row;

/* Called once per row, in order; a non-zero return stops the run (the run returns OK). */
typedef int (*onescope_replay_callback)(void *user, const onescope_replay_row *row);

/* Runs every step, calling back at every step boundary. callback may be NULL. */
ONESCOPE_API onescope_code onescope_replay_run(const onescope_replay *replay,
                                               const onescope_allocator *allocator,
                                               onescope_replay_callback callback, void *user,
                                               onescope_error *error);

typedef struct onescope_verify_result {
    int matched;           /* 1: every row matched */
    uint32_t rows_checked; /* rows compared (all of them when matched) */
    uint32_t first_row;    /* the first differing row (when !matched) */
    uint64_t first_step;   /* its host step: start_step + first_row */
    uint64_t expected;     /* the recorded hash */
    uint64_t actual;       /* the recomputed hash */
} onescope_verify_result;

/* Re-simulates and compares every hash row. OK: all match. MISMATCH: result names the first
 * differing row (error: "hash row N (step S): expected <16 hex>, found <16 hex>"). FLAGS (offset
 * 6): the replay has no hash rows. result may be NULL. */
ONESCOPE_API onescope_code onescope_replay_verify(const onescope_replay *replay,
                                                  const onescope_allocator *allocator,
                                                  onescope_verify_result *result,
                                                  const char *name, onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif
