/* Shared by the running layer: a recording run through any module's world (module_run.c), and
 * the two things the test module's table lends the OSTM v1 tools (sim_module.c, module.c).
 * Not part of the public API. */
#ifndef ONESCOPE_RUN_INTERNAL_H
#define ONESCOPE_RUN_INTERNAL_H

#include "check_internal.h"
#include "onescope/module.h"
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
} onescope_os_run_start;

onescope_code onescope_os_run_start_world(const onescope_os_run_start *start,
                                          const onescope_allocator *allocator, onescope_world **out,
                                          onescope_error *error);
/* E_MODULE at `at` unless module is the one id and version name (an OSTM v2 file's, a live
 * stream's): "found ID VERSION, loaded ID VERSION", both escaped by the formatter. */
onescope_code onescope_os_module_match(const onescope_module *module, const char *id,
                                       const char *version, const char *name, uint64_t at,
                                       const char *expected, onescope_error *error);
/* A module's failure at a step, said as the file's: the input becomes name and the field
 * starts with the module and the step. */
void onescope_os_run_at_step(onescope_error *error, const char *name, const char *module_id,
                             uint64_t step);
/* The one verify loop over a module world: row i against the world's hash, then step i. */
onescope_code onescope_os_run_verify(const onescope_os_run_start *start,
                                     const onescope_os_replay_source *source,
                                     const onescope_allocator *allocator,
                                     onescope_verify_result *result, const char *name,
                                     onescope_error *error);

/* The test module's setup blob (sim_module.c) for an OSTM v1 setup and link block: 6 bytes,
 * or 10 with a link block. Returns the size. */
size_t onescope_os_test_setup_blob(const onescope_sim_setup *setup, const onescope_link_block *link,
                                   uint8_t out[10]);
/* The module's own world inside a world (the test module's is an onescope_sim). */
void *onescope_os_world_state(const onescope_world *world);

#endif
