/* The C side of python/bench/bench_sum.py: maps a pose cache with onescope_pose_cache_map
 * and sums every position in double, as the Python side does through its NumPy view. Prints
 * the best of N runs of open + sum and of open alone in seconds, and the sum, on one line. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#include <onescope/onescope.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sum_positions CACHE.ospc RUNS\n");
        return 2;
    }
    int runs = atoi(argv[2]);
    double best = 1e300, best_open = 1e300, sum = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        onescope_pose_cache *c;
        onescope_error err;
        if (onescope_pose_cache_map(argv[1], NULL, &c, &err) != ONESCOPE_OK) {
            char line[1024];
            onescope_error_format(&err, line, sizeof line);
            fprintf(stderr, "%s\n", line);
            return 1;
        }
        double opened = now() - t0;
        if (opened < best_open) best_open = opened;
        size_t n = (size_t)c->frame_count * c->entity_count;
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += (double)c->poses[i].position[0] + (double)c->poses[i].position[1] +
                 (double)c->poses[i].position[2];
        onescope_pose_cache_free(c);
        double t = now() - t0;
        if (t < best) best = t;
        sum = s;
    }
    printf("%.6f %.6f %.17g\n", best, best_open, sum);
    return 0;
}
