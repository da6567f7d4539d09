/* The kill test of the streaming pose writer (docs/pose-cache.md, "Recording").
 *   record_kill kill DIR POINTS SEED: POINTS times, forks a recorder that appends
 *     deterministic frames forever (flushing each and then reporting its count through a
 *     pipe), SIGKILLs it at a random point, recovers its partial and checks the result: a
 *     valid cache holding exactly the frames written before the kill, each equal to what was
 *     written (the last report is a lower bound; one more frame may have reached the file).
 *   record_kill record PATH: records forever (for tests/cli/cli_record_kill.sh).
 * A tiny buffer makes every frame take several write(2) calls, so kills tear frames. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "onescope/onescope.h"

#define ENTITIES 5u

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

static int fail(const char *what, const onescope_error *err) {
    char line[512] = "";
    if (err != NULL) onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "record_kill: %s%s%s\n", what, err != NULL ? ": " : "", line);
    return 1;
}

/* Records to path forever; after each flushed frame writes its count to fd (if >= 0). */
static int record(const char *path, int fd) {
    onescope_pose_cache *head;
    onescope_error err;
    if (onescope_pose_cache_create(3, ENTITIES, 1, NULL, &head, &err) != ONESCOPE_OK)
        return fail("create", &err);
    head->start_step = 1000;
    onescope_pose_cache_set_text(head, ONESCOPE_POSE_TEXT_LABEL, "kill test", 9, &err);
    onescope_pose_writer_options o = onescope_pose_writer_options_default();
    o.buffer_bytes = 48; /* a frame is 140 bytes: three writes each */
    onescope_pose_writer *w;
    if (onescope_pose_writer_open(path, head, &o, NULL, &w, &err) != ONESCOPE_OK)
        return fail("open", &err);
    onescope_pose_cache_free(head);
    onescope_pose p[ENTITIES];
    for (uint32_t f = 0;; f++) {
        frame_poses(p, f);
        if (onescope_pose_writer_append(w, p, ENTITIES, &err) != ONESCOPE_OK)
            return fail("append", &err);
        if (onescope_pose_writer_flush(w, &err) != ONESCOPE_OK) return fail("flush", &err);
        uint32_t done = f + 1;
        if (fd >= 0 && write(fd, &done, sizeof done) != (ssize_t)sizeof done) return 1;
    }
}

/* Checks the recovered file: frames kept are lower..lower+1, each as written. */
static int check(const char *partial, const char *out, uint32_t lower) {
    onescope_error err;
    uint64_t kept;
    onescope_code rc = onescope_pose_cache_recover(partial, out, NULL, &kept, &err);
    if (rc != ONESCOPE_OK) {
        /* Only a recording killed before its first durable frame may hold nothing. */
        if (lower == 0) return 0;
        return fail("recover", &err);
    }
    if (kept < lower || kept > lower + 1) {
        fprintf(stderr, "record_kill: %s: kept %llu frames, %u were reported durable\n", partial,
                (unsigned long long)kept, lower);
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

static int kill_points(const char *dir, int points, uint64_t seed) {
    int failures = 0;
    uint32_t max_lower = 0;
    for (int i = 0; i < points; i++) {
        char path[512], partial[600], out[600];
        snprintf(path, sizeof path, "%s/kill-%d.ospc", dir, i);
        snprintf(partial, sizeof partial, "%s.partial", path);
        snprintf(out, sizeof out, "%s/kill-%d-recovered.ospc", dir, i);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint32_t wait_reports = (uint32_t)(seed >> 33) % 60;
        long delay_us = (long)((seed >> 20) % 400);
        int fds[2];
        if (pipe(fds) != 0) return fail("pipe", NULL);
        pid_t pid = fork();
        if (pid < 0) return fail("fork", NULL);
        if (pid == 0) {
            close(fds[0]);
            _exit(record(path, fds[1]));
        }
        close(fds[1]);
        uint32_t lower = 0, got;
        while (lower < wait_reports && read(fds[0], &got, sizeof got) == (ssize_t)sizeof got)
            lower = got;
        struct timespec ts = {0, delay_us * 1000};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        /* Reports sent before the kill are still in the pipe. */
        while (read(fds[0], &got, sizeof got) == (ssize_t)sizeof got) lower = got;
        close(fds[0]);
        if (!WIFSIGNALED(status)) {
            fprintf(stderr, "record_kill: point %d: the recorder exited by itself\n", i);
            failures++;
            continue;
        }
        if (lower > max_lower) max_lower = lower;
        if (check(partial, out, lower) != 0) {
            fprintf(stderr, "record_kill: point %d (after %u reports + %ld us) failed\n", i,
                    wait_reports, delay_us);
            failures++;
        }
        unlink(partial);
        unlink(out);
    }
    printf("record_kill: %d kill points, %d failed, up to %u frames reported before a kill\n",
           points, failures, max_lower);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "record") == 0) return record(argv[2], -1);
    if (argc == 5 && strcmp(argv[1], "kill") == 0)
        return kill_points(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10));
    fprintf(stderr, "usage: record_kill kill DIR POINTS SEED | record_kill record PATH\n");
    return 2;
}
