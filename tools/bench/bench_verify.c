/* bench_verify: the memory of verifying a large replay, as whole processes.
 *   bench_verify --make PATH [STEPS [BODIES]]  writes a replay of STEPS empty steps (default
 *                                             16777216) over BODIES bodies (default 64), 3D,
 *                                             with hash rows
 *   bench_verify --whole PATH                 read_file + onescope_replay_verify (the old way)
 *   bench_verify --stream PATH                onescope_replay_verify_file
 * Run the last two under /usr/bin/time -v (or side by side with tools/bench/ab.sh) and compare
 * peak RSS and time. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onescope/onescope.h"

static int fail(const onescope_error *e) {
    char line[512];
    onescope_error_format(e, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    return 1;
}

static int make(const char *path, long steps, long bodies) {
    onescope_sim_setup setup = {3, (uint8_t)bodies, 12345};
    onescope_replay *r;
    onescope_error e;
    if (onescope_replay_create(&setup, NULL, NULL, &r, &e) != ONESCOPE_OK) return fail(&e);
    for (long i = 0; i < steps; i++)
        if (onescope_replay_append_step(r, NULL, 0, &e) != ONESCOPE_OK) return fail(&e);
    if (onescope_replay_compute_hash_rows(r, &e) != ONESCOPE_OK ||
        onescope_replay_write_file(r, path, &e) != ONESCOPE_OK)
        return fail(&e);
    onescope_replay_free(r);
    printf("%s: %ld empty steps, %ld bodies\n", path, steps, bodies);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--make") == 0) {
        long steps = argc > 3 ? strtol(argv[3], NULL, 10) : 16777216;
        long bodies = argc > 4 ? strtol(argv[4], NULL, 10) : 64;
        if (steps < 0 || steps > 16777216 || bodies < 1 || bodies > 64) {
            fprintf(stderr, "bench_verify: STEPS 0 to 16777216, BODIES 1 to 64\n");
            return 2;
        }
        return make(argv[2], steps, bodies);
    }
    onescope_error e;
    onescope_verify_result v;
    if (argc == 3 && strcmp(argv[1], "--whole") == 0) {
        onescope_replay *r;
        if (onescope_replay_read_file(argv[2], NULL, &r, &e) != ONESCOPE_OK) return fail(&e);
        onescope_code rc = onescope_replay_verify(r, NULL, &v, argv[2], &e);
        onescope_replay_free(r);
        if (rc != ONESCOPE_OK) return fail(&e);
    } else if (argc == 3 && strcmp(argv[1], "--stream") == 0) {
        if (onescope_replay_verify_file(argv[2], NULL, &v, &e) != ONESCOPE_OK) return fail(&e);
    } else {
        fprintf(stderr, "usage: bench_verify --make PATH [STEPS [BODIES]] | --whole PATH | "
                        "--stream PATH\n");
        return 2;
    }
    printf("%s: %" PRIu32 " hash rows match\n", argv[2], v.rows_checked);
    return 0;
}
