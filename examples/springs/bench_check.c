/* What `module check` costs against a plain run of the same steps (the budget: at most 3x):
 * verifies one recording (each step run and hashed once) and checks the module over the same
 * steps with onescope_module_check_run, alternately, and prints the best time of each and the
 * ratio. Prints numbers only.
 *
 *   springs_bench_check RUN.ostm [ROUNDS] [K] [S]   (default 10 rounds, the check's defaults) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "onescope/onescope.h"

const onescope_module *springs_module(void);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const onescope_error *err) {
    char line[1024];
    onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "springs_bench_check: %s\n", line);
    exit(1);
}

static onescope_code input_of(void *user, uint64_t step, const void **input, size_t *size,
                              onescope_error *error) {
    (void)error;
    const uint8_t *p = NULL;
    onescope_code rc = onescope_recording_step_input(user, (uint32_t)step, &p, size);
    *input = p;
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: springs_bench_check RUN.ostm [ROUNDS] [K] [S]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 10;
    onescope_recording *r;
    onescope_error err;
    if (onescope_recording_read_file(argv[1], NULL, &r, &err) != ONESCOPE_OK) die(&err);
    const onescope_module *m = springs_module();
    onescope_module_check_def d = onescope_module_check_def_default();
    d.steps = onescope_recording_step_count(r);
    d.input = input_of;
    d.input_user = r;
    if (argc > 3) d.restore_every = (uint32_t)atoi(argv[3]);
    if (argc > 4) d.horizon = (uint32_t)atoi(argv[4]);
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    double best_plain = 1e9, best_check = 1e9;
    for (int k = 0; k < rounds; k++) {
        onescope_verify_result v;
        double t0 = now();
        if (onescope_recording_verify(r, m, NULL, &v, "bench", &err) != ONESCOPE_OK) die(&err);
        double t1 = now();
        onescope_module_check_result res;
        if (onescope_module_check_run(m, setup, setup_size, &d, NULL, &res, &err) != ONESCOPE_OK)
            die(&err);
        double t2 = now();
        if (res.failed != 0) {
            fprintf(stderr, "springs_bench_check: %u checks failed\n", (unsigned)res.failed);
            return 1;
        }
        if (t1 - t0 < best_plain) best_plain = t1 - t0;
        if (t2 - t1 < best_check) best_check = t2 - t1;
    }
    double steps = (double)d.steps;
    printf("springs_bench_check: %.0f steps (K %u, S %u): plain run %.1f ns/step, module check "
           "%.1f ns/step, %.2fx\n",
           steps, (unsigned)d.restore_every, (unsigned)d.horizon, best_plain * 1e9 / steps,
           best_check * 1e9 / steps, best_check / best_plain);
    onescope_recording_free(r);
    return 0;
}
