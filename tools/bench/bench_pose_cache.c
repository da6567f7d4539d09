/* Pose cache speed: how close validate + load comes to a plain read(2) of the same file.
 * Writes a ~256 MiB cache (1024 entities x 9000 frames, some absent) to a temporary file,
 * then times each step (best of 3) and prints MiB/s, the ratio read_file / plain read, and
 * the peak resident memory of a plain read and of read_file, each in its own process.
 * Usage: bench_pose_cache [DIR] (default $TMPDIR or /tmp). Not run by ctest. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "onescope/onescope.h"

#define ENTITIES 1024u
#define FRAMES 9000u
#define RUNS 3

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const onescope_error *err) {
    char line[512] = "";
    if (err != NULL) onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "bench_pose_cache: %s: %s\n", what, err != NULL ? line : strerror(errno));
    exit(1);
}

static long max_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static void build_file(const char *path) {
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, ENTITIES, FRAMES, NULL, &c, &err) != ONESCOPE_OK)
        die("create", &err);
    c->metres_per_unit = 0.01;
    onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, "cm", 2, &err);
    onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, "bench.ostm", 10, &err);
    for (uint32_t e = 0; e < ENTITIES; e++) {
        c->entities[e].shape = (uint8_t)(e % 4);
        c->entities[e].size[0] = 0.5f;
        /* Names of one length (9 bytes) keep the pose section at a multiple of 4 (the head is
         * 60 bytes, each entity 35), so the mapped open can point into the file. */
        char name[32];
        int n = snprintf(name, sizeof name, "body %04u", (unsigned)e);
        onescope_pose_cache_set_entity_name(c, e, name, (size_t)n, &err);
    }
    for (uint32_t f = 0; f < FRAMES; f++)
        for (uint32_t e = 0; e < ENTITIES; e++) {
            onescope_pose *p = &c->poses[(size_t)f * ENTITIES + e];
            if ((f + e) % 17 == 0) { /* absent */
                p->position[0] = NAN;
                continue;
            }
            p->position[0] = (float)e * 0.25f;
            p->position[1] = (float)f * 0.001f;
            p->position[2] = -(float)e;
            p->rotation[0] = 0.6f;
            p->rotation[3] = 0.8f;
        }
    if (onescope_pose_cache_write_file(c, path, &err) != ONESCOPE_OK) die("write_file", &err);
    onescope_pose_cache_free(c);
}

static uint8_t *plain_read(const char *path, size_t size) {
    uint8_t *buf = malloc(size);
    if (buf == NULL) die("malloc", NULL);
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", NULL);
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n <= 0) die("read", NULL);
        got += (size_t)n;
    }
    close(fd);
    return buf;
}

/* Runs fn in a child process and returns the child's peak resident set in KiB, so that
 * nothing the parent holds is counted. */
static long child_peak_rss(void (*fn)(const char *, size_t), const char *path, size_t size) {
    int fds[2];
    if (pipe(fds) != 0) die("pipe", NULL);
    pid_t pid = fork();
    if (pid < 0) die("fork", NULL);
    if (pid == 0) {
        close(fds[0]);
        fn(path, size);
        long kib = max_rss_kib();
        if (write(fds[1], &kib, sizeof kib) != (ssize_t)sizeof kib) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    long kib = -1;
    if (read(fds[0], &kib, sizeof kib) != (ssize_t)sizeof kib) kib = -1;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return kib;
}

static void rss_baseline(const char *path, size_t size) {
    (void)path;
    (void)size;
}
static void rss_plain_read(const char *path, size_t size) {
    free(plain_read(path, size));
}
static void rss_read_file(const char *path, size_t size) {
    (void)size;
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_read_file(path, NULL, &c, &err) != ONESCOPE_OK) die("read_file", &err);
    onescope_pose_cache_free(c);
}

/* ---- the read side: the mapped open and the streamed validate ---- */

/* One pass over every pose (sums the positions of the present ones), so each page is read. */
static double pass_over_poses(const onescope_pose_cache *c) {
    double sum = 0;
    size_t count = (size_t)c->entity_count * c->frame_count;
    for (size_t i = 0; i < count; i++)
        if (onescope_pose_is_present(&c->poses[i])) sum += c->poses[i].position[0];
    return sum;
}

static int map_used = -1; /* whether the last mapped open pointed into the file */

static void rss_map_pass(const char *path, size_t size) {
    (void)size;
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_map(path, NULL, &c, &err) != ONESCOPE_OK) die("map", &err);
    if (isnan(pass_over_poses(c))) die("pass", NULL);
    map_used = c->mapping != NULL;
    onescope_pose_cache_free(c);
}
static void rss_read_pass(const char *path, size_t size) {
    (void)size;
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_read_file(path, NULL, &c, &err) != ONESCOPE_OK) die("read_file", &err);
    if (isnan(pass_over_poses(c))) die("pass", NULL);
    onescope_pose_cache_free(c);
}
static void rss_validate(const char *path, size_t size) {
    (void)size;
    onescope_error err;
    if (onescope_file_validate(path, NULL, NULL, &err) != ONESCOPE_OK) die("validate", &err);
}

/* Best-of-RUNS times and peak RSS (each in its own process) of map + pass, read_file + pass
 * and the streamed validate. The whole-process comparison with cat is tools/bench/ab.sh's (see
 * docs/pose-cache.md, "read path"). */
static void bench_read_side(const char *path, size_t size) {
    double best[3] = {1e30, 1e30, 1e30};
    void (*fns[3])(const char *, size_t) = {rss_map_pass, rss_read_pass, rss_validate};
    for (int run = 0; run < RUNS; run++)
        for (int i = 0; i < 3; i++) {
            double t = now();
            fns[i](path, size);
            best[i] = fmin(best[i], now() - t);
        }
    long rss0 = child_peak_rss(rss_baseline, path, size);
    printf("read side, best of %d (peak RSS over an empty child, own process each):\n", RUNS);
    printf("  the mapped open %s\n",
           map_used == 1 ? "pointed into the file (zero copy)" : "fell back to a copy");
    static const char *const names[3] = {"map + one pass over every pose",
                                         "read_file + one pass over every pose",
                                         "file_validate (streamed)"};
    for (int i = 0; i < 3; i++) {
        long rss = child_peak_rss(fns[i], path, size);
        printf("  %-38s %8.1f ms  peak RSS +%.1f MiB\n", names[i], best[i] * 1e3,
               (double)(rss - rss0) / 1024.0);
    }
}

static void report(const char *what, double seconds, size_t size) {
    printf("  %-34s %8.1f ms %9.0f MiB/s\n", what, seconds * 1e3,
           (double)size / (1024.0 * 1024.0) / seconds);
}

/* ---- the streaming writer (onescope_pose_writer): time against one write(2) of the same
 * bytes, and peak RSS at two frame counts, each in its own process ---- */

static void stream_frame(onescope_pose *p, uint32_t f) {
    for (uint32_t e = 0; e < ENTITIES; e++) {
        p[e].position[0] = (float)f * 0.01f + (float)e;
        p[e].position[1] = (float)e;
        p[e].position[2] = 0;
        p[e].rotation[0] = p[e].rotation[1] = p[e].rotation[2] = 0;
        p[e].rotation[3] = 1;
    }
    if (f % 17 == 0) p[f % ENTITIES].position[0] = NAN;
}

/* Streams frames frames to path (open, append each, close: fsync and rename). */
static void stream_write(const char *path, uint32_t frames) {
    onescope_pose_cache *head;
    onescope_error err;
    if (onescope_pose_cache_create(3, ENTITIES, 1, NULL, &head, &err) != ONESCOPE_OK)
        die("create", &err);
    onescope_pose_writer *w;
    if (onescope_pose_writer_open(path, head, NULL, NULL, &w, &err) != ONESCOPE_OK)
        die("writer open", &err);
    onescope_pose_cache_free(head);
    static onescope_pose p[ENTITIES];
    for (uint32_t f = 0; f < frames; f++) {
        stream_frame(p, f);
        if (onescope_pose_writer_append(w, p, ENTITIES, &err) != ONESCOPE_OK) die("append", &err);
    }
    if (onescope_pose_writer_close(w, NULL, &err) != ONESCOPE_OK) die("writer close", &err);
    onescope_pose_writer_free(w);
}

static void rss_stream(const char *path, size_t frames) {
    stream_write(path, (uint32_t)frames);
}

static void bench_streaming_write(const char *dir) {
    char path[4096], plain[4096];
    snprintf(path, sizeof path, "%s/bench_pose_stream_%ld.ospc", dir, (long)getpid());
    snprintf(plain, sizeof plain, "%s/bench_pose_stream_%ld.plain", dir, (long)getpid());
    double best_stream = 1e30, best_plain = 1e30;
    size_t size = 0;
    for (int run = 0; run < RUNS; run++) {
        remove(path);
        double t = now();
        stream_write(path, FRAMES);
        best_stream = fmin(best_stream, now() - t);
        struct stat st;
        if (stat(path, &st) != 0) die("stat", NULL);
        size = (size_t)st.st_size;
        uint8_t *bytes = plain_read(path, size);
        t = now();
        int fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, bytes, size) != (ssize_t)size || fsync(fd) != 0) die("write", NULL);
        close(fd);
        best_plain = fmin(best_plain, now() - t);
        free(bytes);
    }
    printf("streaming write, best of %d (%u frames x %u entities, %.1f MiB):\n", RUNS, FRAMES,
           ENTITIES, (double)size / 1048576.0);
    report("one write(2) + fsync of the same bytes", best_plain, size);
    report("pose writer: open, append each frame, close", best_stream, size);
    double ratio = best_stream / best_plain;
    printf("ratio pose writer / plain write: %.2fx (goal <= 1.2x): %s\n", ratio,
           ratio <= 1.2 ? "met" : "MISSED");
    long base = child_peak_rss(rss_baseline, path, 0);
    remove(path);
    long small = child_peak_rss(rss_stream, path, FRAMES / 10);
    remove(path);
    long large = child_peak_rss(rss_stream, path, FRAMES);
    printf("pose writer peak RSS: empty child %ld KiB, %u frames %ld KiB, %u frames %ld KiB\n",
           base, FRAMES / 10, small, FRAMES, large);
    remove(path);
    remove(plain);
}

int main(int argc, char **argv) {
    /* --make PATH: only write the cache, for whole-process runs (tools/bench/ab.sh, cat). */
    if (argc == 3 && strcmp(argv[1], "--make") == 0) {
        build_file(argv[2]);
        return 0;
    }
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0') dir = "/tmp";
    char path[4096], out_path[4096];
    snprintf(path, sizeof path, "%s/bench_pose_cache_%ld.ospc", dir, (long)getpid());
    snprintf(out_path, sizeof out_path, "%s/bench_pose_cache_%ld_out.ospc", dir, (long)getpid());

    /* The file is built in a child so that the parent stays small for the RSS children. */
    pid_t pid = fork();
    if (pid < 0) die("fork", NULL);
    if (pid == 0) {
        build_file(path);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    struct stat st;
    if (stat(path, &st) != 0) die("stat", NULL);
    size_t size = (size_t)st.st_size;
    printf("pose cache: %u entities x %u frames (1 in 17 poses absent), %zu bytes (%.1f MiB)\n",
           ENTITIES, FRAMES, size, (double)size / (1024.0 * 1024.0));

    long rss0 = child_peak_rss(rss_baseline, path, size);
    long rss_read = child_peak_rss(rss_plain_read, path, size);
    long rss_load = child_peak_rss(rss_read_file, path, size);

    double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
    uint8_t *file = plain_read(path, size); /* also warms the page cache */
    uint8_t *copy = malloc(size);
    if (copy == NULL) die("malloc", NULL);
    memset(copy, 1, size);
    onescope_error err;
    for (int run = 0; run < RUNS; run++) {
        double t = now();
        uint8_t *b = plain_read(path, size);
        best[0] = fmin(best[0], now() - t);
        free(b);

        t = now();
        memcpy(copy, file, size);
        best[1] = fmin(best[1], now() - t);
        if (memcmp(copy, file, 64) != 0) die("memcpy", NULL);

        onescope_pose_cache *c;
        t = now();
        if (onescope_pose_cache_read_file(path, NULL, &c, &err) != ONESCOPE_OK)
            die("read_file", &err);
        best[2] = fmin(best[2], now() - t);
        onescope_pose_cache_free(c);

        t = now();
        if (onescope_pose_cache_parse(file, size, "bench", NULL, &c, &err) != ONESCOPE_OK)
            die("parse", &err);
        best[3] = fmin(best[3], now() - t);

        onescope_buffer out;
        t = now();
        if (onescope_pose_cache_write(c, NULL, &out, &err) != ONESCOPE_OK) die("write", &err);
        best[4] = fmin(best[4], now() - t);
        if (out.size != size || memcmp(out.data, file, size) != 0)
            die("write is not byte-exact", NULL);
        onescope_buffer_free(&out);

        t = now();
        if (onescope_pose_cache_write_file(c, out_path, &err) != ONESCOPE_OK)
            die("write_file", &err);
        best[5] = fmin(best[5], now() - t);
        onescope_pose_cache_free(c);
    }
    printf("best of %d:\n", RUNS);
    report("plain read(2) into a new buffer", best[0], size);
    report("memcpy of the same size", best[1], size);
    report("read_file (read + validate + load)", best[2], size);
    report("parse from memory (validate + load)", best[3], size);
    report("write to memory", best[4], size);
    report("write_file (atomic, fsync)", best[5], size);
    double ratio = best[2] / best[0];
    printf("ratio read_file / plain read: %.2fx (goal <= 1.5x): %s\n", ratio,
           ratio <= 1.5 ? "met" : "MISSED");
    printf("peak RSS: empty child %ld KiB, plain read %ld KiB (+%.1f MiB), read_file %ld KiB "
           "(+%.1f MiB = %.2f x the file)\n",
           rss0, rss_read, (double)(rss_read - rss0) / 1024.0, rss_load,
           (double)(rss_load - rss0) / 1024.0, (double)(rss_load - rss0) * 1024.0 / (double)size);
    free(file);
    free(copy);
    bench_read_side(path, size);
    remove(path);
    remove(out_path);
    bench_streaming_write(dir);
    return 0;
}
