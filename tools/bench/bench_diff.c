/* onescope diff benchmarks (numbers, never assertions):
 *   bench_diff replays FILE.ostm [N]   diff of a replay with itself vs verify of it, N rounds
 *   bench_diff make A.ospc B.ospc      two ~250 MiB caches (1000 entities x 9000 frames), one
 *                                      pose of b moved at the last frame
 *   bench_diff caches A.ospc B.ospc    streamed diff of two files; prints peak RSS
 * Run each mode as its own process so that peak RSS is the mode's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "onescope/onescope.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_kib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static int fail(const onescope_error *e) {
    char line[512];
    onescope_error_format(e, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    return 1;
}

int main(int argc, char **argv) {
    onescope_error err;
    if (argc >= 3 && strcmp(argv[1], "replays") == 0) {
        int rounds = argc > 3 ? atoi(argv[3]) : 5;
        onescope_replay *r;
        if (onescope_replay_read_file(argv[2], NULL, &r, &err) != ONESCOPE_OK) return fail(&err);
        double tv = 1e9, td = 1e9;
        for (int i = 0; i < rounds; i++) {
            double t0 = now();
            onescope_verify_result v;
            onescope_replay_verify(r, NULL, &v, argv[2], &err);
            double t1 = now();
            onescope_diff_replay *d;
            if (onescope_diff_replays(r, r, NULL, NULL, &d, &err) != ONESCOPE_OK) return fail(&err);
            double t2 = now();
            onescope_diff_replay_free(d);
            if (t1 - t0 < tv) tv = t1 - t0;
            if (t2 - t1 < td) td = t2 - t1;
        }
        printf("steps %u: verify %.3f ms, diff %.3f ms, ratio %.2f (best of %d)\n",
               onescope_replay_step_count(r), tv * 1e3, td * 1e3, td / tv, rounds);
        onescope_replay_free(r);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "make") == 0) {
        onescope_pose_cache *c;
        if (onescope_pose_cache_create(3, 1000, 9000, NULL, &c, &err) != ONESCOPE_OK)
            return fail(&err);
        c->metres_per_unit = 0.001;
        for (size_t i = 0; i < (size_t)1000 * 9000; i++) {
            c->poses[i].position[0] = (float)(i % 1000);
            c->poses[i].position[1] = (float)(i / 1000);
        }
        if (onescope_pose_cache_write_file(c, argv[2], &err) != ONESCOPE_OK) return fail(&err);
        c->poses[(size_t)1000 * 8999 + 7].position[2] = 2.5f;
        if (onescope_pose_cache_write_file(c, argv[3], &err) != ONESCOPE_OK) return fail(&err);
        onescope_pose_cache_free(c);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "caches") == 0) {
        double t0 = now();
        onescope_diff_cache *d;
        if (onescope_diff_cache_files(argv[2], argv[3], NULL, NULL, &d, &err) != ONESCOPE_OK)
            return fail(&err);
        printf("caches: %s, first step %lld entity %llu, %.3f s, peak RSS %ld KiB\n",
               d->different ? "different" : "same", (long long)d->first_step,
               (unsigned long long)d->first_id, now() - t0, peak_kib());
        onescope_diff_cache_free(d);
        return 0;
    }
    fprintf(stderr, "usage: bench_diff replays FILE [N] | make A B | caches A B\n");
    return 2;
}
