/* A module a new user might write (issue 38's "new engine"): a 2D agents world in float, four
 * stages that each change several fields, a seeded generator, agents spawned and removed (so
 * ids are not indexes). Every fault the trust tests need can be switched on through the
 * context, one at a time or together:
 *   snapshot_misses: the snapshot leaves out each agent's energy (restore sets it to 100);
 *   hash_misses: the hash leaves out energy (which only ever changes with the position);
 *   outside: the generator's state lives in the context, outside every world;
 *   bug_step / bug_id: a planted bug of the verifying build: at step bug_step the agent with
 *     id bug_id has its velocity (bug_energy false) or its energy (true) nudged.
 * Setup: u32 seed, u32 agents (1..200), little-endian. Input: empty, or u32 id + f32 push (an
 * agent's x velocity, pushed; with bit 31 of the id set, its energy fed instead). */
#ifndef ONESCOPE_TEST_AGENTS_MODULE_H
#define ONESCOPE_TEST_AGENTS_MODULE_H

#include <stdbool.h>
#include <stdint.h>

#include "onescope/module.h"

typedef struct agents_faults {
    bool snapshot_misses;
    bool hash_misses;
    bool outside;
    int64_t bug_step; /* -1: none */
    uint64_t bug_id;
    bool bug_energy;
    int64_t refuse_step;    /* -1: none; else the step refuses with E_MISMATCH at that step */
    uint64_t refuse_offset; /* the refusal's offset in the input (ONESCOPE_MODULE_NO_OFFSET) */
    bool fat; /* every snapshot ends in 64 MiB + 1 of zeros (more than a live stream carries) */
    uint64_t outside_rng; /* with outside: the shared generator */
} agents_faults;

agents_faults agents_faults_none(void);
/* The table, with faults as its context (faults must outlive every world made from it). */
onescope_module agents_module(agents_faults *faults);
/* The faults an environment variable names:
 * "snapshot,hash,outside,fat,bug=STEP:ID[:energy],refuse=STEP". */
void agents_faults_parse(agents_faults *f, const char *text);
void agents_setup(uint32_t seed, uint32_t count, uint8_t out[8]);
/* Step i's input of the tests' standard run: a push every 7th step (size 0 or 8). */
size_t agents_input(uint32_t i, uint8_t out[8]);
/* An input that pushes agent id's x velocity by `by` (8 bytes). */
size_t agents_push(uint32_t id, float by, uint8_t out[8]);

#endif
