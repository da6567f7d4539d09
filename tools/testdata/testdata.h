/* The test-data generator: every committed file of testdata/, made byte for byte by code from
 * fixed setups, seeded input scripts and the library's own writers (testdata/README.md).
 * A tool, not part of libonescope: it is built as the static library onescope_testdata, linked
 * into the onescope CLI (gen-testdata, and live serve's input script), the tests and benches
 * that need it and the cross checks; nothing here is installed. Its names carry no onescope_
 * prefix, since it never ships inside the library. */
#ifndef ONESCOPE_TOOLS_TESTDATA_H
#define ONESCOPE_TOOLS_TESTDATA_H

#include <stdbool.h>

#include "onescope/error.h"
#include "onescope/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the deterministic input script (also what `onescope live serve` plays) ---- */

#define TESTDATA_MAX_SCRIPT_INPUT 64u /* a script step is at most 3 operations */

/* A zeroed script is the default: 3D, seed 0, removes and spawns allowed. */
typedef struct testdata_script {
    uint8_t dimensions; /* 2: z operands are 0; anything else (0 included) means 3 */
    uint32_t seed;      /* the script's own seed (not the world's) */
    bool no_remove;     /* true: never emits operation 3 (remove) */
    bool no_spawn;      /* true: never emits operation 5 (spawn) */
} testdata_script;

/* The input of host step `step` (a function of the script and the step only, not of the
 * world): 0 to 3 operations drawn from splitmix64(seed, step). Writes into out (capacity at
 * least TESTDATA_MAX_SCRIPT_INPUT) and returns the byte count; 0 for a NULL script or out or
 * a smaller capacity. */
size_t testdata_script_input(const testdata_script *script, uint64_t step, uint8_t *out,
                             size_t capacity);

/* ---- the files ---- */

/* Called once per file, in a fixed order; a non-zero return stops the generation (the
 * generator then returns ONESCOPE_E_ARGUMENT naming the file). */
typedef int (*testdata_callback)(void *user, const char *file_name, const void *data, size_t size);

/* The number of files and their names, in the order the generator produces them
 * (testdata_file_name: NULL past the end). */
size_t testdata_file_count(void);
const char *testdata_file_name(size_t index);

/* Produces every file of testdata/ (except README.md) and hands each to callback (which may be
 * NULL: the files are made and dropped). allocator NULL means libc. */
onescope_code testdata_generate(const onescope_allocator *allocator, testdata_callback callback,
                                void *user, onescope_error *error);

/* The parameters the files are made from (documented in testdata/README.md). */
#define TESTDATA_GHOST_FROM 200u
#define TESTDATA_GHOST_FRAMES 40u
#define TESTDATA_GHOST_OFFSET_X 400
#define TESTDATA_LINK_BODY 3u
#define TESTDATA_LINK_STEP 150u

#ifdef __cplusplus
}
#endif

#endif
