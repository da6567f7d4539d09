/* The committed test data (testdata/), produced byte for byte by code: every file comes from
 * fixed setups, seeded input scripts and the library's own writers. testdata/README.md. */
#ifndef ONESCOPE_TESTDATA_H
#define ONESCOPE_TESTDATA_H

#include "onescope/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the deterministic input script (also what `onescope live serve` plays) ---- */

#define ONESCOPE_TESTDATA_MAX_SCRIPT_INPUT 64u /* a script step is at most 3 operations */

typedef struct onescope_testdata_script {
    uint8_t dimensions;  /* 2 or 3: z operands are 0 in 2D */
    uint32_t seed;       /* the script's own seed (not the world's) */
    int allow_remove;    /* 0: never emits operation 3 */
    int allow_spawn;     /* 0: never emits operation 5 */
} onescope_testdata_script;

/* dimensions 3, seed 0, removes and spawns allowed. */
ONESCOPE_API onescope_testdata_script onescope_testdata_script_default(void);

/* The input of host step `step` (a function of the script and the step only, not of the
 * world): 0 to 3 operations drawn from splitmix64(seed, step). Writes into out (capacity at
 * least ONESCOPE_TESTDATA_MAX_SCRIPT_INPUT) and returns the byte count. */
ONESCOPE_API size_t onescope_testdata_script_input(const onescope_testdata_script *script,
                                                   uint64_t step, uint8_t *out, size_t capacity);

/* ---- the files ---- */

/* Called once per file, in a fixed order; a non-zero return stops the generation (the
 * generator then returns ONESCOPE_E_ARGUMENT naming the file). */
typedef int (*onescope_testdata_callback)(void *user, const char *file_name, const void *data,
                                          size_t size);

/* The number of files and their names, in the order the generator produces them. */
ONESCOPE_API size_t onescope_testdata_file_count(void);
ONESCOPE_API const char *onescope_testdata_file_name(size_t index);

/* Produces every file of testdata/ (except README.md) and hands each to callback. */
ONESCOPE_API onescope_code onescope_testdata_generate(const onescope_allocator *allocator,
                                                      onescope_testdata_callback callback,
                                                      void *user, onescope_error *error);

/* The parameters the files are made from (documented in testdata/README.md). */
#define ONESCOPE_TESTDATA_GHOST_FROM 200u
#define ONESCOPE_TESTDATA_GHOST_FRAMES 40u
#define ONESCOPE_TESTDATA_GHOST_OFFSET_X 400
#define ONESCOPE_TESTDATA_LINK_BODY 3u
#define ONESCOPE_TESTDATA_LINK_STEP 150u

#ifdef __cplusplus
}
#endif

#endif
