/* The kill test of the streaming writers (docs/pose-cache.md, "Recording").
 *   record_kill kill DIR POINTS SEED MODE: POINTS times, forks a recorder that appends
 *     deterministic frames (reporting each count and the times around the append through a
 *     pipe), SIGKILLs it after a few hundred frames, recovers its partial and checks that
 *     the frames kept are what MODE promises, each equal to what was written:
 *       frame    flush_every 1 and a tiny buffer (frames torn): every reported frame;
 *       every16  flush_every 16, no clock rule: the frames up to the last multiple of 16;
 *       ms       flush_every_ms 20, no count rule: every frame appended 21 ms or more before
 *                a later append;
 *       default  the defaults (64 frames / 100 ms), the README's loop: at least the frames
 *                up to the last multiple of 64, so never none after 64;
 *       close    flush_every 1, 300 frames, then close, killed at a random point in it:
 *                either the finished file or a partial that recovers all 300, and the next
 *                recording at the same path opens once the partial is recovered and removed;
 *       replay   the replay writer, flush_every 1: every reported step.
 *   record_kill record PATH: records forever (for tests/cli/cli_record_kill.sh).
 * No timed assertion: the clock promise is checked against times the recorder itself took. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "onescope/onescope.h"

#define ENTITIES 5u
#define MS_RULE 20u
#define CLOSE_FRAMES 300u

typedef enum mode { M_FRAME, M_EVERY16, M_MS, M_DEFAULT, M_CLOSE, M_REPLAY } mode;
static const char *const mode_names[] = {"frame", "every16", "ms", "default", "close", "replay"};

/* One report per append: the count after it and the monotonic times before and after. */
typedef struct report {
    uint32_t count;
    uint64_t before_ns, after_ns;
} report;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void frame_poses(onescope_pose *p, uint32_t f) {
    for (uint32_t e = 0; e < ENTITIES; e++) {
        p[e].position[0] = (float)f * 0.5f + (float)e;
        p[e].position[1] = (float)(f % 97);
        p[e].position[2] = -(float)e;
        p[e].rotation[0] = 0;
        p[e].rotation[1] = (float)(f % 7) * 0.125f;
        p[e].rotation[2] = 0;
        p[e].rotation[3] = 1;
    }
    if (f % 4 == 1) p[f % ENTITIES].position[0] = NAN; /* absent now and then */
}

static size_t step_input(uint32_t i, uint8_t *in) {
    /* impulse body 0 dx i (2D: dz 0) */
    memset(in, 0, 14);
    in[0] = 1;
    in[2] = (uint8_t)i;
    return 14;
}

static int fail(const char *what, const onescope_error *err) {
    char line[600] = "";
    if (err != NULL) onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "record_kill: %s%s%s\n", what, err != NULL ? ": " : "", line);
    return 1;
}

static int send(int fd, uint32_t count, uint64_t before, uint64_t after) {
    report r = {count, before, after};
    return fd < 0 || write(fd, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1;
}

static int record_replay(const char *path, int fd) {
    onescope_sim_setup setup = {2, 2, 7};
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    o.flush_every = 1;
    onescope_replay_writer *w;
    onescope_error err;
    if (onescope_replay_writer_open(path, &setup, NULL, NULL, 0, &o, NULL, &w, &err) != ONESCOPE_OK)
        return fail("open", &err);
    for (uint32_t i = 0;; i++) {
        uint8_t in[14];
        size_t n = step_input(i, in);
        uint64_t t0 = now_ns();
        if (onescope_replay_writer_append(w, in, n, NULL, &err) != ONESCOPE_OK)
            return fail("append", &err);
        if (send(fd, i + 1, t0, now_ns()) != 0) return 1;
    }
}

/* Records to path (forever, or CLOSE_FRAMES then close); reports after each append. */
static int record(const char *path, int fd, mode m) {
    if (m == M_REPLAY) return record_replay(path, fd);
    onescope_pose_cache *head;
    onescope_error err;
    if (onescope_pose_cache_create(3, ENTITIES, 1, NULL, &head, &err) != ONESCOPE_OK)
        return fail("create", &err);
    head->start_step = 1000;
    onescope_pose_cache_set_text(head, ONESCOPE_POSE_TEXT_LABEL, "kill test", 9, &err);
    onescope_pose_writer_options o = onescope_pose_writer_options_default();
    switch (m) {
        case M_FRAME:
            o.flush_every = 1;
            o.buffer_bytes = 48; /* a frame is 140 bytes: three writes each, so kills tear */
            break;
        case M_EVERY16:
            o.flush_every = 16;
            o.flush_every_ms = ONESCOPE_FLUSH_NEVER;
            break;
        case M_MS:
            o.flush_every = ONESCOPE_FLUSH_NEVER;
            o.flush_every_ms = MS_RULE;
            break;
        case M_CLOSE: o.flush_every = 1; break;
        default: break; /* the README's loop: the defaults */
    }
    onescope_pose_writer *w;
    if (onescope_pose_writer_open(path, head, &o, NULL, &w, &err) != ONESCOPE_OK)
        return fail("open", &err);
    onescope_pose_cache_free(head);
    onescope_pose p[ENTITIES];
    for (uint32_t f = 0; m != M_CLOSE || f < CLOSE_FRAMES; f++) {
        frame_poses(p, f);
        uint64_t t0 = now_ns();
        if (onescope_pose_writer_append(w, p, ENTITIES, &err) != ONESCOPE_OK)
            return fail("append", &err);
        if (send(fd, f + 1, t0, now_ns()) != 0) return 1;
        if (m == M_MS && f % 8 == 0) { /* a loop that takes its time now and then */
            struct timespec ts = {0, 3000000};
            nanosleep(&ts, NULL);
        }
    }
    if (onescope_pose_writer_close(w, NULL, &err) != ONESCOPE_OK) return fail("close", &err);
    onescope_pose_writer_free(w);
    pause(); /* closed: wait for the kill, so every run ends the same way */
    return 0;
}

/* The fewest frames (or steps) mode promises after these reports. */
static uint32_t promised(mode m, const report *r, uint32_t n) {
    uint32_t lower = n > 0 ? r[n - 1].count : 0;
    switch (m) {
        case M_FRAME:
        case M_REPLAY: return lower;
        case M_EVERY16: return lower / 16 * 16;
        case M_DEFAULT: return lower / 64 * 64;
        case M_MS: {
            /* Frame k is durable once a later append began MS_RULE (+1 for whole
             * milliseconds) after append k ended. */
            uint32_t best = 0, j = 0;
            for (uint32_t k = 0; k < n; k++) {
                while (j < n && r[j].before_ns < r[k].after_ns + (MS_RULE + 1) * 1000000ull) j++;
                if (j < n) best = r[k].count;
            }
            return best;
        }
        case M_CLOSE: return CLOSE_FRAMES;
    }
    return 0;
}

static int check_replay(const char *partial, const char *out, uint32_t lower) {
    onescope_error err;
    uint64_t kept = 0;
    if (onescope_replay_recover(partial, out, NULL, &kept, &err) != ONESCOPE_OK)
        return fail("recover", &err);
    if (kept < lower || kept > (uint64_t)lower + 1) {
        fprintf(stderr, "record_kill: %s: kept %llu steps, promised %u\n", partial,
                (unsigned long long)kept, lower);
        return 1;
    }
    onescope_replay *r;
    if (onescope_replay_read_file(out, NULL, &r, &err) != ONESCOPE_OK)
        return fail("the recovered file", &err);
    onescope_verify_result v;
    int bad = onescope_replay_verify(r, NULL, &v, out, &err) != ONESCOPE_OK || !v.matched;
    onescope_replay_free(r);
    if (bad) fprintf(stderr, "record_kill: %s: does not verify\n", out);
    return bad;
}

/* Checks the recovered file: frames kept at least promised, at most one more than the last
 * report, each as written. */
static int check(const char *partial, const char *out, uint32_t least, uint32_t upper) {
    onescope_error err;
    uint64_t kept = 0;
    onescope_code rc = onescope_pose_cache_recover(partial, out, NULL, &kept, &err);
    if (rc != ONESCOPE_OK) {
        if (least == 0) return 0; /* nothing was promised yet */
        return fail("recover", &err);
    }
    if (kept < least || kept > (uint64_t)upper + 1) {
        fprintf(stderr, "record_kill: %s: kept %llu frames, promised %u to %u\n", partial,
                (unsigned long long)kept, least, upper + 1);
        return 1;
    }
    onescope_pose_cache *c;
    if (onescope_pose_cache_read_file(out, NULL, &c, &err) != ONESCOPE_OK)
        return fail("the recovered file", &err);
    int bad = c->frame_count != kept || c->start_step != 1000 || c->entity_count != ENTITIES;
    onescope_pose want[ENTITIES];
    for (uint32_t f = 0; f < c->frame_count && !bad; f++) {
        frame_poses(want, f);
        bad = memcmp(onescope_pose_cache_pose(c, f, 0), want, sizeof want) != 0;
        if (bad) fprintf(stderr, "record_kill: %s: frame %u differs\n", out, f);
    }
    onescope_pose_cache_free(c);
    return bad;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* After a kill during close: the file is finished, or its partial recovers every frame; in
 * both cases the next recording at the path opens (once the partial is recovered). */
static int check_close(const char *path, const char *partial, const char *out, int *states) {
    int bad = 0;
    if (exists(partial)) {
        states[1]++;
        /* Whether close had written the count already (the state recover used to refuse). */
        unsigned char head[20];
        FILE *f = fopen(partial, "rb");
        if (f != NULL && fread(head, 1, sizeof head, f) == sizeof head &&
            (head[16] & head[17] & head[18] & head[19]) != 0xff)
            states[2]++;
        if (f != NULL) fclose(f);
        bad = check(partial, out, CLOSE_FRAMES, CLOSE_FRAMES - 1);
        unlink(partial);
    } else {
        states[0]++;
        onescope_pose_cache *c;
        onescope_error err;
        if (onescope_pose_cache_read_file(path, NULL, &c, &err) != ONESCOPE_OK)
            return fail("the closed file", &err);
        bad = c->frame_count != CLOSE_FRAMES;
        onescope_pose_cache_free(c);
    }
    onescope_pose_cache *head;
    onescope_error err;
    onescope_pose_writer *w;
    if (onescope_pose_cache_create(3, ENTITIES, 1, NULL, &head, &err) != ONESCOPE_OK)
        return fail("create", &err);
    onescope_code rc = onescope_pose_writer_open(path, head, NULL, NULL, &w, &err);
    onescope_pose_cache_free(head);
    if (rc != ONESCOPE_OK) return fail("the next recording", &err);
    onescope_pose_writer_discard(w);
    return bad;
}

static int kill_points(const char *dir, int points, uint64_t seed, mode m) {
    int failures = 0, close_states[3] = {0, 0, 0};
    uint32_t max_lower = 0, min_promised = UINT32_MAX;
    report *reports = malloc(sizeof *reports * 100000);
    if (reports == NULL) return fail("malloc", NULL);
    const char *ext = m == M_REPLAY ? "ostm" : "ospc";
    for (int i = 0; i < points; i++) {
        char path[512], partial[600], out[600];
        snprintf(path, sizeof path, "%s/kill-%s-%d.%s", dir, mode_names[m], i, ext);
        snprintf(partial, sizeof partial, "%s.partial", path);
        snprintf(out, sizeof out, "%s/kill-%s-%d-recovered.%s", dir, mode_names[m], i, ext);
        unlink(path);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        /* a few hundred frames, then a random moment */
        uint32_t wait_reports = m == M_CLOSE ? CLOSE_FRAMES : 200 + (uint32_t)(seed >> 33) % 200;
        long delay_us = (long)((seed >> 20) % (m == M_CLOSE ? 3000 : 400));
        int fds[2];
        if (pipe(fds) != 0) return fail("pipe", NULL);
        pid_t pid = fork();
        if (pid < 0) return fail("fork", NULL);
        if (pid == 0) {
            close(fds[0]);
            _exit(record(path, fds[1], m));
        }
        close(fds[1]);
        uint32_t n = 0;
        while (n < wait_reports &&
               read(fds[0], &reports[n], sizeof *reports) == (ssize_t)sizeof *reports)
            n++;
        struct timespec ts = {0, delay_us * 1000};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        /* Reports sent before the kill are still in the pipe. */
        while (n < 100000 && read(fds[0], &reports[n], sizeof *reports) == (ssize_t)sizeof *reports)
            n++;
        close(fds[0]);
        if (!WIFSIGNALED(status)) {
            fprintf(stderr, "record_kill: point %d: the recorder exited by itself\n", i);
            failures++;
            continue;
        }
        uint32_t lower = n > 0 ? reports[n - 1].count : 0;
        uint32_t least = promised(m, reports, n);
        if (lower > max_lower) max_lower = lower;
        if (least < min_promised) min_promised = least;
        int bad;
        if (m == M_CLOSE)
            bad = check_close(path, partial, out, close_states);
        else if (m == M_REPLAY)
            bad = check_replay(partial, out, least);
        else
            bad = check(partial, out, least, lower);
        /* The README's loop after 64 frames: never nothing. */
        if (m == M_DEFAULT && lower >= 64 && least == 0) bad = 1;
        if (bad != 0) {
            fprintf(stderr, "record_kill: %s point %d (after %u reports + %ld us) failed\n",
                    mode_names[m], i, wait_reports, delay_us);
            failures++;
        }
        unlink(partial);
        unlink(out);
        unlink(path);
    }
    free(reports);
    printf("record_kill %s: %d kill points, %d failed, up to %u frames reported before a kill, "
           "at least %u promised",
           mode_names[m], points, failures, max_lower, min_promised);
    if (m == M_CLOSE)
        printf(", %d finished, %d partials recovered (%d with the count written)", close_states[0],
               close_states[1], close_states[2]);
    printf("\n");
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "record") == 0) return record(argv[2], -1, M_FRAME);
    if (argc == 6 && strcmp(argv[1], "kill") == 0) {
        for (int m = 0; m < 6; m++)
            if (strcmp(argv[5], mode_names[m]) == 0)
                return kill_points(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10), (mode)m);
    }
    fprintf(stderr, "usage: record_kill kill DIR POINTS SEED "
                    "frame|every16|ms|default|close|replay | record_kill record PATH\n");
    return 2;
}
