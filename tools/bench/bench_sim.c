/* bench_sim: the integer test module's speed. 64 bodies in 3D, hashing the world after every
 * step (as verify does). Prints body-steps per second; the step count is the first argument
 * (default 100000). Under callgrind, divide Ir by the body-steps printed to get instructions
 * per body-step: valgrind --tool=callgrind ./bench_sim 10000 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "onescope/onescope.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
    if (steps <= 0) {
        fprintf(stderr, "usage: bench_sim [STEPS]\n");
        return 2;
    }
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 3;
    def.setup.body_count = 64;
    def.setup.seed = 12345;
    onescope_sim *sim;
    onescope_error err;
    if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fprintf(stderr, "%s\n", line);
        return 1;
    }
    /* One impulse every 16 steps keeps the bodies moving; gravity pulls them down. */
    uint8_t kick[14] = {1, 0};
    uint64_t mix = 0;
    double t0 = now();
    for (long i = 0; i < steps; i++) {
        size_t n = 0;
        if ((i & 15) == 0) {
            kick[1] = (uint8_t)(i / 16 % 64);
            kick[2] = 100; /* dx = 100 */
            kick[7] = 200; /* dy = 200 */
            n = sizeof kick;
        }
        if (onescope_sim_step(sim, kick, n, &err) != ONESCOPE_OK) return 1;
        mix ^= onescope_sim_hash(sim);
    }
    double dt = now() - t0;
    double body_steps = (double)steps * 64.0;
    printf("bench_sim: %ld steps x 64 bodies = %.0f body-steps in %.3f s\n", steps, body_steps, dt);
    printf("bench_sim: %.1f million body-steps per second (hash every step), %.1f ns per step\n",
           body_steps / dt / 1e6, dt / (double)steps * 1e9);
    printf("bench_sim: final hash %016" PRIx64 ", xor of all hashes %016" PRIx64 "\n",
           onescope_sim_hash(sim), mix);
    onescope_sim_free(sim);
    return 0;
}
