/* bench_live: the live stream's speed. A host (3D, 16 bodies, the test-data script, a probe
 * every 100 steps) encodes STEPS steps into memory; then the stream is decoded whole, decoded
 * in 4 KiB chunks, and fed to a viewer (which re-simulates and hashes every step). Prints MiB/s
 * and steps/s for each; STEPS is the first argument (default 200000). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "onescope/onescope.h"
#include "testdata.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(const onescope_error *err) {
    char line[512];
    onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    return 1;
}

static bool count(void *user, const onescope_live_record *r) {
    (void)r;
    (*(uint64_t *)user)++;
    return false;
}

static void report(const char *what, double seconds, size_t bytes, uint64_t steps) {
    printf("%-34s %8.3f s  %9.1f MiB/s  %12.0f steps/s\n", what, seconds,
           (double)bytes / seconds / (1024.0 * 1024.0), (double)steps / seconds);
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
    if (steps <= 0) {
        fprintf(stderr, "usage: bench_live [STEPS]\n");
        return 2;
    }
    onescope_error err;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 3;
    def.setup.body_count = 16;
    def.setup.seed = 3;
    onescope_sim *sim;
    onescope_live_encoder *enc;
    if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK) return fail(&err);
    if (onescope_live_encoder_create(NULL, &enc, &err) != ONESCOPE_OK) return fail(&err);
    testdata_script sc = {0};
    sc.seed = 3;
    double t0 = now();
    for (long i = 0; i < steps; i++) {
        uint8_t in[TESTDATA_MAX_SCRIPT_INPUT];
        uint64_t s = (uint64_t)i;
        size_t n = testdata_script_input(&sc, s, in, sizeof in);
        if ((i % 100 == 0 && onescope_live_encode_probe(enc, sim, &err) != ONESCOPE_OK) ||
            onescope_sim_step(sim, in, n, &err) != ONESCOPE_OK ||
            onescope_live_encode_step(enc, s, in, n, onescope_sim_hash(sim), &err) != ONESCOPE_OK)
            return fail(&err);
    }
    if (onescope_live_encode_end(enc, (uint64_t)steps, &err) != ONESCOPE_OK) return fail(&err);
    double t1 = now();
    const uint8_t *data;
    size_t size;
    onescope_live_encoder_pending(enc, &data, &size);
    printf("stream: %ld steps, %zu bytes (%.1f bytes per step)\n", steps, size,
           (double)size / (double)steps);
    report("host (simulate + hash + encode)", t1 - t0, size, (uint64_t)steps);

    uint64_t records = 0;
    t0 = now();
    if (onescope_live_decode(data, size, "bench", NULL, count, &records, &err) != ONESCOPE_OK)
        return fail(&err);
    report("decode, whole buffer", now() - t0, size, (uint64_t)steps);

    onescope_live_decoder *dec;
    if (onescope_live_decoder_create("bench", NULL, &dec, &err) != ONESCOPE_OK) return fail(&err);
    t0 = now();
    for (size_t pos = 0; pos < size;) {
        size_t chunk = size - pos < 4096 ? size - pos : 4096, off = 0;
        while (off < chunk) {
            onescope_live_record rec;
            size_t used;
            int r =
                onescope_live_decoder_next(dec, data + pos + off, chunk - off, &used, &rec, &err);
            off += used;
            if (r < 0) return fail(&err);
            if (r == 0) break;
        }
        pos += chunk;
    }
    if (onescope_live_decoder_finish(dec, &err) != ONESCOPE_OK) return fail(&err);
    report("decode, 4 KiB chunks", now() - t0, size, (uint64_t)steps);
    onescope_live_decoder_free(dec);

    onescope_live_viewer *v;
    if (onescope_live_viewer_create(NULL, "bench", NULL, &v, &err) != ONESCOPE_OK)
        return fail(&err);
    t0 = now();
    for (size_t pos = 0; pos < size; pos += 65536)
        if (onescope_live_viewer_feed(v, data + pos, size - pos < 65536 ? size - pos : 65536,
                                      &err) != ONESCOPE_OK)
            return fail(&err);
    if (onescope_live_viewer_finish(v, &err) != ONESCOPE_OK) return fail(&err);
    report("viewer (decode + simulate + check)", now() - t0, size, (uint64_t)steps);
    onescope_live_viewer_free(v);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    printf("records: %" PRIu64 "\n", records);
    return 0;
}
