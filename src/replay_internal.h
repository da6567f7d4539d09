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

/* ---- streaming pieces (src/replay.c, last section): the head of a file without its steps,
 * the size rules, and the partial recording of src/replay_writer.c (docs/test-module.md,
 * section "The streaming writer") ---- */

/* The step count a partial recording holds where a file holds N: above the format's limit,
 * so the parser refuses a partial (E_RANGE) and it is never mistaken for a replay. */
#define ONESCOPE_OS_OSTM_PARTIAL_MARK 0xFFFFFFFFu
/* A partial's step record: "st", u16 input length, the input, u64 hash row. */
#define ONESCOPE_OS_OSTM_RECORD_FIXED 12u
#define ONESCOPE_OS_OSTM_RECORD_MAX (ONESCOPE_OS_OSTM_RECORD_FIXED + ONESCOPE_SIM_MAX_INPUT)
/* The longest head: header, setup with link, step count, snapshot length and snapshot. */
#define ONESCOPE_OS_OSTM_HEAD_MAX (12u + 10u + 4u + 4u + ONESCOPE_SIM_MAX_SNAPSHOT)

/* What comes before the hash rows, read or built. */
typedef struct onescope_os_replay_head {
    onescope_sim_setup setup;
    onescope_link_block link; /* role NONE: none */
    uint16_t flags;
    uint32_t step_count;     /* as found (the partial mark in a partial) */
    size_t steps_at;         /* offset of the step count */
    const uint8_t *snapshot; /* inside the bytes read or given; NULL without one */
    uint32_t snapshot_size;
    size_t size; /* bytes of the head: the hash rows start here */
} onescope_os_replay_head;

/* Checks setup, link (may be NULL) and snapshot (may be NULL) as the parser would and encodes
 * the head of a file with hash rows and this step count into out (ONESCOPE_OS_OSTM_HEAD_MAX
 * bytes); *size gets its length. Error offsets are those of the file. */
onescope_code onescope_os_replay_head_build(const onescope_sim_setup *setup,
                                            const onescope_link_block *link, const void *snapshot,
                                            size_t snapshot_size, uint32_t step_count,
                                            const char *name, uint8_t *out, size_t *size,
                                            onescope_error *error);
/* Reads a head from the first bytes of a file, as the parser does, but leaves the step count
 * unchecked (the caller knows whether it wants a count or the partial mark). A snapshot
 * length over ONESCOPE_SIM_MAX_SNAPSHOT is E_LENGTH at once, so a prefix of
 * ONESCOPE_OS_OSTM_HEAD_MAX bytes always decides. */
onescope_code onescope_os_replay_head_read(const void *data, size_t size, const char *name,
                                           onescope_os_replay_head *out, onescope_error *error);
/* Rewrites the step count of an encoded head. */
void onescope_os_replay_head_set_steps(uint8_t *head, const onescope_os_replay_head *h,
                                       uint32_t step_count);

/* The size of a file with hash rows: head, step_count + 1 rows, 2 + length per step. */
uint64_t onescope_os_replay_file_size(size_t head_size, uint32_t step_count, uint64_t input_bytes);

/* Encodes a partial's step record into out (ONESCOPE_OS_OSTM_RECORD_FIXED + size bytes). */
size_t onescope_os_replay_record_encode(const void *input, uint16_t size, uint64_t hash,
                                        uint8_t *out);
/* Decodes the record at p (avail bytes there; offset is its place in the partial). OK with
 * *whole true and *input, *size and *hash set for a whole valid record; OK with *whole false
 * when avail ends inside it (a torn record); the error's code for a bad marker (E_MAGIC) or an
 * input the parser would refuse. */
onescope_code onescope_os_replay_record_decode(const uint8_t *p, size_t avail, uint8_t dimensions,
                                               const char *name, uint64_t offset, bool *whole,
                                               const uint8_t **input, uint16_t *size,
                                               uint64_t *hash, onescope_error *error);

#endif
