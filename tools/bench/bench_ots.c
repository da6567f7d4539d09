/* bench_ots: speed of the OTS .anm reader and writer on a generated clip of about 50 MB, next
 * to two baselines measured in the same run: one pass over the bytes that counts the JSON
 * structure characters (the floor of any reader that looks at every byte) and Python's
 * json.load. Also the streamed validation of the same text as a file (no structs kept), the
 * writer against the parser, and the number printer alone (onescope_number_format, ns per
 * number) against snprintf("%.17g") and against the "%.Ng" search the writer used before.
 * usage: bench_ots [MEGABYTES] [FILE]   (defaults: 50, /tmp/onescope_bench_ots.anm)
 * Prints numbers only; nothing is asserted (timings are not tests). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "onescope/onescope.h"

/* CPU time of this process: on a shared machine it varies much less than wall time. The
 * python3 run is a child process, so it is timed on the wall clock. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* glibc keeps freed small blocks in "fast bins" and merges them all at the next large
 * request; without this, each timed call would pay for the frees of the call before it
 * (e.g. the parse right after the free of the last clip's keyframes). A large malloc/free before
 * every timed section settles the heap the same way for each contender. */
static void settle_heap(void) {
    void *volatile p = malloc((size_t)1 << 20);
    free(p);
}

static uint64_t rng = 0x1234567u;
static double rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void die(const onescope_error *err) {
    char line[1024];
    onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "bench_ots: %s\n", line);
    exit(1);
}

/* A clip like a DCC bake: float-precision values (as exporters print them), rot_quat and rot
 * on every key, handles on a quarter of them. About 520 bytes per keyframe. */
static onescope_ots_clip *make_clip(size_t pegs, size_t keys) {
    onescope_ots_clip *c;
    onescope_error err;
    if (onescope_ots_clip_create(pegs, 1, NULL, &c, &err) != ONESCOPE_OK) die(&err);
    c->frame_range[0] = 0;
    c->frame_range[1] = (int32_t)keys - 1;
    for (size_t i = 0; i < pegs; i++) {
        onescope_ots_peg *p = &c->pegs[i];
        char name[48];
        snprintf(name, sizeof name, "peg-%zu", i);
        onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, name, &err);
        if (i) {
            snprintf(name, sizeof name, "peg-%zu", (i - 1) / 4);
            onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_PARENT, name, &err);
        }
        onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_PATH, "Top/character/peg", &err);
        onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_RIG, "character", &err);
        if (onescope_ots_clip_set_keyframe_count(c, i, keys, &err) != ONESCOPE_OK) die(&err);
        for (size_t j = 0; j < keys; j++) {
            onescope_ots_keyframe *k = &p->keyframes[j];
            for (int a = 0; a < 3; a++) {
                k->pos[a] = (float)((rnd() - 0.5) * 4);
                k->rot[a] = (float)((rnd() - 0.5) * 360);
            }
            double q[4], n = 0;
            for (int a = 0; a < 4; a++) {
                q[a] = rnd() - 0.5;
                n += q[a] * q[a];
            }
            for (int a = 0; a < 4; a++) k->rot_quat[a] = (float)(q[a] / sqrt(n));
            k->has_rot = true;
            k->interp = j % 4 == 0 ? ONESCOPE_OTS_BEZIER : ONESCOPE_OTS_LINEAR;
            if (j % 4 == 0) {
                k->handle_axes[0] = 3;
                for (int a = 0; a < 3; a++) {
                    k->handles[0][a].present = true;
                    k->handles[0][a].left[0] = k->frame - 0.5;
                    k->handles[0][a].left[1] = (float)k->pos[a];
                    k->handles[0][a].right[0] = k->frame + 0.5;
                    k->handles[0][a].right[1] = (float)k->pos[a];
                }
            }
        }
    }
    onescope_ots_clip_set_camera_text(c, 0, ONESCOPE_OTS_TEXT_NAME, "cam", &err);
    onescope_ots_clip_set_camera_text(c, 0, ONESCOPE_OTS_TEXT_PEG, "peg-0", &err);
    return c;
}

/* The text of v the way the writer and the CLI found it before the printer: "%.Ng" for N = 1,
 * 2, ... until strtod reads it back. */
static size_t old_search(double v, char *buf, size_t size) {
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return (size_t)n;
}

/* ns per number of three printers over the same values, best of 5 runs each. */
static void bench_printer(const char *what, const double *v, size_t count) {
    double best[3] = {1e30, 1e30, 1e30};
    volatile size_t total = 0;
    char buf[64];
    for (int r = 0; r < 5; r++) {
        for (int which = 0; which < 3; which++) {
            size_t n = 0;
            double t0 = now();
            for (size_t i = 0; i < count; i++) {
                if (which == 0)
                    n += onescope_number_format(v[i], buf, sizeof buf);
                else if (which == 1)
                    n += (size_t)snprintf(buf, sizeof buf, "%.17g", v[i]);
                else if (i % 16 == 0) /* a sixteenth: it is slow */
                    n += old_search(v[i], buf, sizeof buf);
            }
            double t = (now() - t0) / (double)(which == 2 ? (count + 15) / 16 : count);
            total += n;
            if (t < best[which]) best[which] = t;
        }
    }
    /* the bytes written, printed so no compiler drops the loops */
    printf("  printer, %s (%zu values, %zu bytes; ns per number, best of 5):\n", what, count,
           (size_t)total);
    printf("    onescope_number_format         %7.1f ns\n", best[0] * 1e9);
    printf("    snprintf %%.17g                 %7.1f ns  (ratio to the printer %5.2f)\n",
           best[1] * 1e9, best[1] / best[0]);
    printf("    %%.Ng search + strtod (before)  %7.1f ns  (ratio to the printer %5.2f)\n",
           best[2] * 1e9, best[2] / best[0]);
}

int main(int argc, char **argv) {
    double mb = argc > 1 ? atof(argv[1]) : 50.0;
    const char *path = argc > 2 ? argv[2] : "/tmp/onescope_bench_ots.anm";
    if (!(mb > 0)) {
        fprintf(stderr, "usage: bench_ots [MEGABYTES] [FILE]\n");
        return 2;
    }
    size_t keys = 500, pegs = (size_t)(mb * 1e6 / (520.0 * (double)keys)) + 1;
    onescope_ots_clip *clip = make_clip(pegs, keys);
    onescope_error err;
    onescope_buffer text = {0};
    enum { RUNS = 5 };
    double best_write = 1e30, best_parse = 1e30, best_scan = 1e30, best_validate = 1e30;
    for (int r = 0; r < RUNS; r++) {
        onescope_buffer_free(&text);
        settle_heap();
        double t0 = now();
        if (onescope_ots_clip_write(clip, NULL, &text, &err) != ONESCOPE_OK) die(&err);
        double t1 = now();
        if (t1 - t0 < best_write) best_write = t1 - t0;
    }
    double size_mb = (double)text.size / 1e6;
    printf("clip: %zu pegs x %zu keyframes, %.1f MB of JSON\n", pegs, keys, size_mb);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(text.data, 1, text.size, f) != text.size || fclose(f) != 0) {
        fprintf(stderr, "bench_ots: cannot write %s\n", path);
        return 1;
    }
    volatile size_t structure = 0;
    for (int r = 0; r < RUNS; r++) {
        onescope_ots_clip *back;
        settle_heap();
        double t0 = now();
        if (onescope_ots_clip_parse(text.data, text.size, path, NULL, &back, &err) != ONESCOPE_OK)
            die(&err);
        double t1 = now();
        onescope_ots_clip_free(back);
        if (t1 - t0 < best_parse) best_parse = t1 - t0;

        t0 = now();
        size_t n = 0;
        for (size_t i = 0; i < text.size; i++) {
            uint8_t c = text.data[i];
            n += c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':' || c == '"';
        }
        structure = n;
        t1 = now();
        if (t1 - t0 < best_scan) best_scan = t1 - t0;

        onescope_format format;
        t0 = now();
        if (onescope_file_validate(path, NULL, &format, &err) != ONESCOPE_OK) die(&err);
        t1 = now();
        if (t1 - t0 < best_validate) best_validate = t1 - t0;
    }
    printf("best of %d runs, process CPU time (%zu structure characters):\n", RUNS,
           (size_t)structure);
    printf("  onescope_ots_clip_write          %7.3f s  %7.1f MB/s\n", best_write,
           size_mb / best_write);
    printf("  onescope_ots_clip_parse+validate %7.3f s  %7.1f MB/s\n", best_parse,
           size_mb / best_parse);
    printf("  onescope_file_validate (stream)  %7.3f s  %7.1f MB/s\n", best_validate,
           size_mb / best_validate);
    printf("  one pass over the bytes (floor)  %7.3f s  %7.1f MB/s\n", best_scan,
           size_mb / best_scan);
    printf("  ratio parse / one pass           %7.2f\n", best_parse / best_scan);
    printf("  ratio write MB/s / parse MB/s    %7.2f\n", best_parse / best_write);
    printf("  ratio validate / one pass        %7.2f\n", best_validate / best_scan);

    enum { VALUES = 1 << 20 };
    double *values = malloc(VALUES * sizeof *values);
    if (values == NULL) return 1;
    for (size_t i = 0; i < VALUES; i++) values[i] = (double)(float)((rnd() - 0.5) * 360);
    bench_printer("doubles of floats, as in the clip", values, VALUES);
    for (size_t i = 0; i < VALUES;) { /* any bit pattern but NaN and infinity */
        uint64_t b = (uint64_t)(rnd() * 4294967296.0) << 32 | (uint64_t)(rnd() * 4294967296.0);
        memcpy(&values[i], &b, sizeof b);
        if (isfinite(values[i])) i++;
    }
    bench_printer("random bit patterns", values, VALUES);
    free(values);

    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
             path);
    printf("  python3 json.load (includes interpreter start, ~20 ms):\n    %s\n", cmd);
    double t0 = wall();
    int rc = system(cmd);
    double t1 = wall();
    if (rc == 0)
        printf("  python3 json.load (wall clock)   %7.3f s  %7.1f MB/s\n", t1 - t0,
               size_mb / (t1 - t0));
    else
        printf("  python3 json.load                (python3 failed or is missing: %d)\n", rc);
    if (argc <= 2) remove(path);
    onescope_buffer_free(&text);
    onescope_ots_clip_free(clip);
    return 0;
}
