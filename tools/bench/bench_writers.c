/* The replay writer's speed: N steps (default 10 000 000) of a one-body 2D world with empty
 * inputs, recorded through onescope_replay_writer (open, append, close), against the same
 * world stepped and hashed with nothing written (the work the writer cannot avoid), best of 3,
 * and the peak resident memory. Built beside an older commit, the same source gives that
 * commit's figures (the issue 25 check: the writers no slower after their merge into one core).
 * Usage: bench_writers [STEPS] [DIR] (DIR default $TMPDIR or /tmp). Not run by ctest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "onescope/onescope.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const onescope_error *err) {
    char line[512] = "";
    if (err != NULL) onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "bench_writers: %s: %s\n", what, line);
    exit(1);
}

int main(int argc, char **argv) {
    uint32_t steps = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000000u;
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[1024];
    snprintf(path, sizeof path, "%s/bench_writers-%ld.ostm", dir, (long)getpid());
    onescope_sim_setup setup = {2, 1, 7};
    onescope_error err;
    double best_world = 1e30, best_writer = 1e30;
    uint64_t sink = 0;
    for (int run = 0; run < 3; run++) {
        /* the baseline: the world the writer runs, stepped and hashed */
        onescope_sim_def def = onescope_sim_def_default();
        def.setup = setup;
        onescope_sim *sim;
        if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK) die("sim", &err);
        double t = now();
        for (uint32_t i = 0; i < steps; i++) {
            if (onescope_sim_step(sim, NULL, 0, &err) != ONESCOPE_OK) die("step", &err);
            sink ^= onescope_sim_hash(sim);
        }
        t = now() - t;
        onescope_sim_free(sim);
        if (t < best_world) best_world = t;

        onescope_replay_writer *w;
        t = now();
        if (onescope_replay_writer_open(path, &setup, NULL, NULL, 0, NULL, NULL, &w, &err) !=
            ONESCOPE_OK)
            die("open", &err);
        for (uint32_t i = 0; i < steps; i++)
            if (onescope_replay_writer_append(w, NULL, 0, NULL, &err) != ONESCOPE_OK)
                die("append", &err);
        if (onescope_replay_writer_close(w, NULL, &err) != ONESCOPE_OK) die("close", &err);
        t = now() - t;
        onescope_replay_writer_free(w);
        if (t < best_writer) best_writer = t;
        unlink(path);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("library %s, %u steps, best of 3 (checksum %016llx)\n", onescope_version_string(), steps,
           (unsigned long long)sink);
    printf("world stepped and hashed:  %.3f s (%.1f M steps/s)\n", best_world,
           steps / best_world / 1e6);
    printf("replay writer, open..close: %.3f s (%.1f M steps/s), %.2fx the world alone\n",
           best_writer, steps / best_writer / 1e6, best_writer / best_world);
    printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
    return 0;
}
