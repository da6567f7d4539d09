/* The engine's recorder: runs the springs world itself and records every step in engine mode
 * (each step's input bytes and the engine's own hash; the library runs no world).
 *
 *   springs_record OUT.ostm [STEPS [COUNT]]     default 600 steps of 64 particles
 *   springs_record --kill-after N OUT.ostm ...  stops dead after N steps, as a crash would,
 *                                               leaving OUT.ostm.partial for onescope recover
 *   springs_record --entity-rows OUT.ostm ...  also an entity row per step (docs/recording.md)
 *   springs_record --keyframes K OUT.ostm ...  also a keyframe every K steps
 *   springs_record --change STEP OUT.ostm ...  that step's impulse (a multiple of 10) stronger
 *   springs_record --time OUT.ostm STEPS COUNT  the benchmark: the engine's time per step
 *                                               (its step and its own hash, which a
 *                                               deterministic engine computes anyway) with
 *                                               and without the recording */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "onescope/onescope.h"
#include "springs.h"

const onescope_module *springs_module(void);

static springs_world world;

static void die(const onescope_error *err) {
    char line[1024];
    onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "springs_record: %s\n", line);
    exit(1);
}

/* Step i's input: an impulse on one particle every 10th step, nothing otherwise. */
static uint64_t changed_step = UINT64_MAX; /* --change STEP: that step's impulse is stronger */

static size_t input_of(uint64_t i, uint32_t count, uint8_t out[SPRINGS_IMPULSE_BYTES]) {
    if (i % 10 != 0) return 0;
    uint32_t e = (uint32_t)(i / 10) % count;
    float d[2] = {(float)(i % 7) - 3.0f, i == changed_step ? 4.5f : 4.0f};
    memcpy(out, &e, 4);
    memcpy(out + 4, d, 8);
    return SPRINGS_IMPULSE_BYTES;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile uint64_t sink; /* keeps the bare run's hashes from being optimised away */

/* Runs STEPS steps, recording to path when it is not NULL; returns the seconds taken. */
static int entity_rows;         /* --entity-rows: each row beside the entities' digests */
static unsigned keyframe_every; /* --keyframes K: a snapshot and value table every K steps */

static double run(const char *path, uint64_t steps, uint32_t count, long kill_after,
                  uint32_t plant_step, uint32_t plant_entity) {
    springs_setup s = {count, 12345, plant_step, plant_entity};
    uint8_t setup[SPRINGS_SETUP_PLANT_BYTES];
    size_t setup_size = springs_setup_encode(&s, setup);
    springs_init(&world, &s);
    onescope_recording_writer *w = NULL;
    onescope_error err;
    if (path != NULL) {
        onescope_recording_def def = onescope_recording_def_default();
        def.module = springs_module();
        def.setup = setup;
        def.setup_size = setup_size;
        def.engine_mode = true;
        def.start_hash = springs_hash(&world);
        def.entity_rows = entity_rows != 0;
        def.keyframe_every = keyframe_every;
        def.start_world = &world; /* the module's callbacks read the engine's own world */
        onescope_replay_writer_options o = onescope_replay_writer_options_default();
        if (kill_after >= 0) o.flush_every = 1; /* every step reaches the partial at once */
        if (onescope_recording_writer_open(path, &def, &o, NULL, &w, &err) != ONESCOPE_OK)
            die(&err);
    }
    double t0 = now();
    for (uint64_t i = 0; i < steps; i++) {
        if (kill_after >= 0 && i == (uint64_t)kill_after) _exit(3); /* as a crash: no close */
        uint8_t in[SPRINGS_IMPULSE_BYTES];
        size_t n = input_of(i, count, in);
        springs_step(&world, in, n);
        uint64_t h = springs_hash(&world);
        if (w == NULL)
            sink = h;
        else if (onescope_recording_writer_append_world(
                     w, in, n, &h, entity_rows || keyframe_every ? &world : NULL, &err) !=
                 ONESCOPE_OK)
            die(&err);
    }
    double t = now() - t0;
    if (w != NULL) {
        uint64_t kept;
        if (onescope_recording_writer_close(w, &kept, &err) != ONESCOPE_OK) die(&err);
        onescope_recording_writer_free(w);
    }
    return t;
}

int main(int argc, char **argv) {
    long kill_after = -1;
    int timing = 0, i = 1;
    unsigned plant_step = SPRINGS_NO_PLANT, plant_entity = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--kill-after") == 0)
            kill_after = atol(argv[++i]);
        else if (strcmp(argv[i], "--time") == 0)
            timing = 1;
        else if (strcmp(argv[i], "--entity-rows") == 0)
            entity_rows = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--change") == 0)
            changed_step = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && strcmp(argv[i], "--keyframes") == 0 &&
                 sscanf(argv[i + 1], "%u", &keyframe_every) == 1 && keyframe_every > 0)
            i++;
        else if (i + 1 < argc && strcmp(argv[i], "--plant") == 0 &&
                 sscanf(argv[i + 1], "%u:%u", &plant_step, &plant_entity) == 2 &&
                 plant_step != SPRINGS_NO_PLANT)
            i++;
        else
            break;
    }
    if (i >= argc || argv[i][0] == '-') {
        fprintf(stderr,
                "usage: springs_record [--kill-after N] [--time] [--entity-rows] [--keyframes K] "
                "[--plant STEP:PARTICLE] OUT.ostm [STEPS [COUNT]]\n");
        return 2;
    }
    const char *out = argv[i];
    uint64_t steps = i + 1 < argc ? strtoull(argv[i + 1], NULL, 10) : 600;
    uint32_t count = i + 2 < argc ? (uint32_t)strtoul(argv[i + 2], NULL, 10) : 64;
    if (count < 2 || count > SPRINGS_MAX) {
        fprintf(stderr, "springs_record: COUNT must be 2..%d\n", SPRINGS_MAX);
        return 2;
    }
    if (!timing) {
        run(out, steps, count, kill_after, plant_step, plant_entity);
        printf("springs_record: %s: %llu steps of %u particles\n", out, (unsigned long long)steps,
               count);
        return 0;
    }
    /* the benchmark: bare engine and engine + recording, alternately, 5 times each */
    double bare = 1e9, rec = 1e9;
    for (int k = 0; k < 5; k++) {
        double a = run(NULL, steps, count, -1, plant_step, plant_entity);
        double b = run(out, steps, count, -1, plant_step, plant_entity);
        if (a < bare) bare = a;
        if (b < rec) rec = b;
        unlink(out);
    }
    printf("springs_record: %u particles, %llu steps: engine (step + hash) %.3f us/step, "
           "engine + recording %.3f us/step, ratio %.3f\n",
           count, (unsigned long long)steps, bare * 1e6 / (double)steps, rec * 1e6 / (double)steps,
           rec / bare);
    return 0;
}
