/* The replay's layout, private to the library: the builder keeps the arrays and their
 * capacities consistent, so callers read a replay only through the accessors in replay.h. */
#ifndef ONESCOPE_REPLAY_INTERNAL_H
#define ONESCOPE_REPLAY_INTERNAL_H

#include "onescope/replay.h"

struct onescope_replay {
    onescope_sim_setup setup;
    onescope_link_block link; /* role NONE: no link block (flag bit 2 clear) */
    uint32_t step_count;
    bool has_start_snapshot; /* flag bit 1 */
    uint8_t *start_snapshot; /* start_snapshot_size bytes, or NULL */
    uint32_t start_snapshot_size;
    uint64_t start_step; /* the snapshot's host step, 0 without one */
    bool has_hash_rows;  /* flag bit 0 */
    uint64_t *hash_rows; /* step_count + 1 rows when has_hash_rows, else NULL */
    /* Step inputs, concatenated: step i is inputs[input_offsets[i] .. input_offsets[i+1]). */
    uint8_t *inputs;
    uint32_t *input_offsets; /* step_count + 1 entries */
    size_t inputs_capacity;  /* bytes allocated at inputs */
    uint32_t steps_capacity; /* steps input_offsets has room for */
    const onescope_allocator *allocator;
};

/* Replaces the replay's hash rows with rows (step_count + 1, from its allocator) and owns
 * them. */
void onescope_os_replay_adopt_hash_rows(onescope_replay *r, uint64_t *rows);

#endif
