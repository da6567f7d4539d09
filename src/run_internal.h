/* Shared by the running layer: a recording run through any module's world (module_run.c), and
 * the two things the test module's table lends the OSTM v1 tools (sim_module.c, module.c).
 * Not part of the public API. */
#ifndef ONESCOPE_RUN_INTERNAL_H
#define ONESCOPE_RUN_INTERNAL_H

#include "check_internal.h"
#include "onescope/diff.h"
#include "onescope/module.h"
#include "onescope/recording.h"
#include "onescope/replay.h"
#include "onescope/sim.h"

/* Where a recording's run starts, for any module (src/module_run.c): the module, its setup
 * blob, the start snapshot (NULL: the world is made from the setup), the host step of row 0
 * and the step count. */
typedef struct onescope_os_run_start {
    const onescope_module *module;
    const void *setup;
    size_t setup_size;
    const void *snapshot;
    size_t snapshot_size;
    uint64_t start_step;
    uint32_t step_count;
    /* where setup and snapshot sit in the file (at_known; else errors drop the module's
     * offsets inside them) */
    bool at_known;
    uint64_t setup_at, snapshot_at;
} onescope_os_run_start;

/* The start world failed: the error as a step's (the start step), the blob the setup or the
 * start snapshot. */
void onescope_os_run_start_failed(const onescope_os_run_start *start, onescope_error *error,
                                  const char *name, uint64_t step);
onescope_code onescope_os_run_start_world(const onescope_os_run_start *start,
                                          const onescope_allocator *allocator, onescope_world **out,
                                          onescope_error *error);
/* E_MODULE at `at` unless module is the one id and version name (an OSTM v2 file's, a live
 * stream's): "found ID VERSION, loaded ID VERSION", both escaped by the formatter. */
onescope_code onescope_os_module_match(const onescope_module *module, const char *id,
                                       const char *version, const char *name, uint64_t at,
                                       const char *expected, onescope_error *error);
/* A module's failure at a step, said as the file's: the input becomes name, the field starts
 * with the module and the step, and the offset follows the blob rule (onescope_os_blob_offset)
 * for the blob the module was lent there (its input, its setup or start snapshot) at file
 * offset at (OS_NO_OFFSET when the file does not say: the module's offset is then dropped,
 * never shown as the file's). */
void onescope_os_run_at_step(onescope_error *error, const char *name, const char *module_id,
                             uint64_t step, uint64_t at, size_t size);
/* How every line names a row (docs/recording.md, "Rows and steps"): "hash row 0 (the start
 * world)", "hash row R (the world after step R - 1)", with the host step of a replay that
 * starts mid-run. */
void onescope_os_row_text(char *out, size_t size, uint32_t row, uint64_t start_step);
/* The one verify loop over a module world: row i against the world's hash, then step i. */
onescope_code onescope_os_run_verify(const onescope_os_run_start *start,
                                     const onescope_os_replay_source *source,
                                     const onescope_allocator *allocator,
                                     onescope_verify_result *result, const char *name,
                                     onescope_error *error);

/* One side of a lockstep diff (src/module_diff.c): where its run starts, its name for
 * errors, and step i's input (i below start.step_count). */
typedef struct onescope_os_diff_side {
    onescope_os_run_start start;
    const char *name;
    onescope_code (*input)(const void *user, uint32_t i, const uint8_t **data, size_t *size,
                           uint64_t *at, onescope_error *error); /* at: as the replay source's */
    const void *user;
} onescope_os_diff_side;

/* What the lockstep found. Rows as in a recording: row 0 is the start world, row i the world
 * after step i - 1. */
typedef struct onescope_os_diff_found {
    uint32_t rows_compared; /* rows whose worlds agreed */
    bool differ;            /* the worlds differ at `row` (below) */
    uint32_t row;
    uint64_t hash_a, hash_b; /* the worlds' hashes at that row */
    int32_t stage;           /* the stage after which they first differ; -1: row 0, no stages,
                                or no stage shows it */
    /* The values that differ there: every common entity's (index order), then the world's.
     * value_total counts them all, values lists the first value_count (at most value_room). */
    uint32_t value_total, value_count, value_room;
    onescope_diff_value *values;
    uint32_t entities_differing; /* common entities with any value different */
    bool world_differs;          /* a world value differs: the first is first_world */
    onescope_diff_value first_world;
    bool entity_counts_differ;
    uint32_t entity_count_a, entity_count_b;
    uint32_t steps_run; /* steps each side ran, the explanation's included */
    const onescope_allocator *allocator;
} onescope_os_diff_found;

/* Runs both sides (one module: a's) in lockstep, the worlds compared at every row by hash
 * (by_hash) or else by every named value, and explains the first differing row, listing at
 * most max_values values. OK whether or not they differ; free f with _found_free. */
onescope_code onescope_os_diff_run(const onescope_os_diff_side *a, const onescope_os_diff_side *b,
                                   bool by_hash, uint32_t max_values,
                                   const onescope_allocator *allocator, onescope_os_diff_found *f,
                                   onescope_error *error);
/* The same without the lockstep, for a row known to differ (from recorded hash rows): each
 * side runs to the step before row and through it stage by stage, as the explanation does;
 * differ then says whether the worlds' hashes differ there. row is below both step counts + 1. */
onescope_code onescope_os_diff_explain_row(const onescope_os_diff_side *a,
                                           const onescope_os_diff_side *b, uint32_t row,
                                           uint32_t max_values, const onescope_allocator *allocator,
                                           onescope_os_diff_found *f, onescope_error *error);
void onescope_os_diff_found_free(onescope_os_diff_found *f);
/* Where a module recording's run starts: its module, setup blob, start snapshot and count. */
onescope_os_run_start onescope_os_recording_start(const onescope_recording *r,
                                                  const onescope_module *module);
/* An OSTM v1 replay as a diff side over the test module (its setup blob goes into blob; the
 * caller sets input). */
void onescope_os_replay_diff_side(const onescope_replay *r, const char *name, uint8_t blob[10],
                                  onescope_os_diff_side *out);

/* An entity's digest (onescope_world_entity_digest) from a table and its module's own world
 * pointer, so a writer in engine mode digests the engine's world. values holds
 * onescope_os_digest_doubles(t) doubles, bytes 16 times as many plus 32; groups group_count. */
uint32_t onescope_os_digest_doubles(const onescope_module *t);
void onescope_os_entity_digest(const onescope_module *t, const void *world, uint32_t index,
                               double *values, uint8_t *bytes, uint32_t *hash, uint8_t *groups);

/* 1..max printable ASCII bytes (a module's version, a keyframe's value name). */
bool onescope_os_text_ok(const char *text, size_t max);
/* A table's snapshot of its module's own world pointer (the slot must be there), under the
 * sink's limit: so a writer in engine mode snapshots the engine's world. */
onescope_code onescope_os_module_snapshot(const onescope_module *t, const void *state,
                                          const onescope_allocator *allocator, onescope_buffer *out,
                                          onescope_error *error);

/* The test module's setup blob (sim_module.c) for an OSTM v1 setup and link block: 6 bytes,
 * or 10 with a link block. Returns the size. */
size_t onescope_os_test_setup_blob(const onescope_sim_setup *setup, const onescope_link_block *link,
                                   uint8_t out[10]);
/* A module's check refused a blob (rc, the module's error in error): the error names input
 * `name`, the field starts with `what` ("setup", "step 3 input"), and the blob offset becomes
 * the file's by adding `at` (OS_NO_OFFSET: no file, the offset inside the blob stands). A
 * module that refused without saying why gets "module ID refused it". */
onescope_code onescope_os_module_blob_error(onescope_code rc, onescope_error *error,
                                            const char *name, const char *module_id, uint64_t at,
                                            size_t size, const char *what);
/* The one offset rule for a module's error about a blob of size bytes at file offset at
 * (OS_NO_OFFSET: not in a file): the module's offset inside the blob plus at, checked for
 * overflow; an offset past the blob is dropped (said in found) for the blob's own. */
void onescope_os_blob_offset(onescope_error *error, uint64_t at, size_t size);
/* The world's module checks one input against the world's setup (OK when it has no
 * check_input); a refusal as onescope_os_module_blob_error says, with no file offset. */
onescope_code onescope_os_world_check_input(const onescope_world *world, const void *input,
                                            size_t input_size, const char *name, const char *what,
                                            onescope_error *error);
/* The module's own world inside a world (the test module's is an onescope_sim). */
void *onescope_os_world_state(const onescope_world *world);

#endif
