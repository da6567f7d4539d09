/* Plausible bugs the other suites let through (mutants that survived; docs/hardening.md,
 * round three, "mutants"): the pose writer's segment limit at its exact boundary, every file
 * that lands by rename synced after its last byte, and the survivors of the generated sample
 * (scripts/mutagen.py) that stand for real slips: a u64 read at the end of the input, the RMS
 * of an entity never compared, a scene's angular velocity and a supplementary code point.
 *
 * The sync check interposes write, pwrite, fsync and rename: this executable's definitions
 * win over libc's for the static library's calls. Each regular file written and not yet
 * fsynced is "dirty" (by device and inode); a rename of a dirty file is a file that a power
 * cut could leave empty or torn under its final name. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "pose_head.h"
#include "onescope/soa_scene.h"
#include "test_util.h"

#define ENTITIES 3u
#define MAX_DIRTY 64

static struct {
    dev_t dev;
    ino_t ino;
} dirty[MAX_DIRTY];
static int dirty_count, fsyncs, renames, dirty_renames;
static int writes_fail; /* while set, writes to regular files fail with ENOSPC */

static int dirty_find(const struct stat *st) {
    for (int i = 0; i < dirty_count; i++)
        if (dirty[i].dev == st->st_dev && dirty[i].ino == st->st_ino) return i;
    return -1;
}

static void mark(int fd, int is_dirty) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    int i = dirty_find(&st);
    if (is_dirty && i < 0 && dirty_count < MAX_DIRTY) {
        dirty[dirty_count].dev = st.st_dev;
        dirty[dirty_count].ino = st.st_ino;
        dirty_count++;
    } else if (!is_dirty && i >= 0) {
        dirty[i] = dirty[--dirty_count];
    }
}

static bool refused(int fd) {
    struct stat st;
    if (!writes_fail || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    errno = ENOSPC;
    return true;
}

ssize_t write(int fd, const void *p, size_t n) {
    if (refused(fd)) return -1;
    ssize_t k = syscall(SYS_write, fd, p, n);
    if (k > 0) mark(fd, 1);
    return k;
}

ssize_t pwrite(int fd, const void *p, size_t n, off_t offset) {
    if (refused(fd)) return -1;
    ssize_t k = syscall(SYS_pwrite64, fd, p, n, offset);
    if (k > 0) mark(fd, 1);
    return k;
}

int fsync(int fd) {
    int r = (int)syscall(SYS_fsync, fd);
    if (r == 0) {
        fsyncs++;
        mark(fd, 0);
    }
    return r;
}

int rename(const char *from, const char *to) {
    struct stat st;
    renames++;
    if (stat(from, &st) == 0 && dirty_find(&st) >= 0) dirty_renames++;
    return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

static void counts_reset(void) {
    dirty_count = fsyncs = renames = dirty_renames = 0;
}

static char dir[256];

static onescope_pose_cache *make_head(void) {
    onescope_pose_cache *h;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, ENTITIES, 1, NULL, &h, &err), ONESCOPE_OK);
    h->start_step = 7;
    return h;
}

static void make_frame(onescope_pose *p, uint32_t f) {
    for (uint32_t e = 0; e < ENTITIES; e++) {
        p[e].position[0] = (float)f;
        p[e].position[1] = (float)e;
        p[e].position[2] = 0;
        p[e].rotation[0] = p[e].rotation[1] = p[e].rotation[2] = 0;
        p[e].rotation[3] = 1;
    }
}

static long head_bytes(void) {
    onescope_pose_cache *h = make_head();
    onescope_buffer head;
    onescope_error err;
    assert_int_equal(onescope_os_ospc_encode_head(h, 0, NULL, &head, "h", &err), ONESCOPE_OK);
    long n = (long)head.size;
    onescope_buffer_free(&head);
    onescope_pose_cache_free(h);
    return n;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static uint32_t frames_of(const char *path) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &c, &err), ONESCOPE_OK);
    uint32_t n = c->frame_count;
    onescope_pose_cache_free(c);
    return n;
}

/* Records frames under a segment limit; returns the frames close reported. */
static uint64_t record(const char *path, uint64_t limit, bool segments, uint32_t frames) {
    onescope_pose_cache *h = make_head();
    onescope_pose_writer_options o = {0};
    o.max_segment_bytes = limit;
    o.segments = segments;
    onescope_pose_writer *w;
    onescope_error err;
    assert_int_equal(onescope_pose_writer_open(path, h, &o, NULL, &w, &err), ONESCOPE_OK);
    onescope_pose_cache_free(h);
    onescope_pose p[ENTITIES];
    for (uint32_t f = 0; f < frames; f++) {
        make_frame(p, f);
        assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_OK);
    }
    uint64_t got = 0;
    assert_int_equal(onescope_pose_writer_close(w, &got, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    return got;
}

/* A segment holds exactly as many frames as the limit has room for: a file of exactly the
 * limit is allowed (rolling one byte early would make it 2 frames, not 3), and one byte
 * less holds one frame fewer. */
static void segment_limit_exact(void **state) {
    (void)state;
    long frame = (long)ENTITIES * 28;
    long exact = head_bytes() + 3 * frame;
    char path[512], seg[600];

    snprintf(path, sizeof path, "%s/exact.ospc", dir);
    assert_int_equal(record(path, (uint64_t)exact, true, 7), 7);
    assert_int_equal(file_size(path), exact);
    assert_int_equal(frames_of(path), 3);
    snprintf(seg, sizeof seg, "%s/exact-0001.ospc", dir);
    assert_int_equal(frames_of(seg), 3);
    assert_int_equal(file_size(seg), exact);
    snprintf(seg, sizeof seg, "%s/exact-0002.ospc", dir);
    assert_int_equal(frames_of(seg), 1);

    snprintf(path, sizeof path, "%s/less.ospc", dir);
    assert_int_equal(record(path, (uint64_t)exact - 1, true, 5), 5);
    assert_int_equal(frames_of(path), 2);
    snprintf(seg, sizeof seg, "%s/less-0001.ospc", dir);
    assert_int_equal(frames_of(seg), 2);
    snprintf(seg, sizeof seg, "%s/less-0002.ospc", dir);
    assert_int_equal(frames_of(seg), 1);

    /* Without segments: 3 frames fill the file exactly, the 4th is refused. */
    snprintf(path, sizeof path, "%s/full.ospc", dir);
    assert_int_equal(record(path, (uint64_t)exact, false, 3), 3);
    assert_int_equal(file_size(path), exact);
}

/* Every segment the writer renames into place was fsynced after its last write (the frame
 * count patch included), and the writer's flush syncs the partial. */
static void segments_synced_before_rename(void **state) {
    (void)state;
    char path[512];
    long exact = head_bytes() + 3 * (long)ENTITIES * 28;
    snprintf(path, sizeof path, "%s/synced.ospc", dir);
    counts_reset();
    assert_int_equal(record(path, (uint64_t)exact, true, 10), 10); /* 3 + 3 + 3 + 1 */
    assert_int_equal(renames, 4);
    assert_int_equal(dirty_renames, 0);
    assert_true(fsyncs >= 4);

    /* flush with flush_fsync: the partial is clean afterwards, and again dirty after more
     * frames (a flush without flush_fsync is a write(2) only: docs/pose-cache.md). */
    snprintf(path, sizeof path, "%s/flushed.ospc", dir);
    onescope_pose_cache *h = make_head();
    onescope_pose_writer *w;
    onescope_error err;
    onescope_pose_writer_options opt = onescope_pose_writer_options_default();
    opt.flush_fsync = true;
    assert_int_equal(onescope_pose_writer_open(path, h, &opt, NULL, &w, &err), ONESCOPE_OK);
    onescope_pose_cache_free(h);
    onescope_pose p[ENTITIES];
    make_frame(p, 0);
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_OK);
    counts_reset();
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(fsyncs, 1);
    assert_int_equal(dirty_count, 0);
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    assert_int_equal(dirty_renames, 0);
    assert_int_equal(renames, 1);
}

/* The whole-file writes (onescope_file_write under every format's _write_file) sync their
 * temporary before it replaces the target. */
static void atomic_write_synced(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/whole.ospc", dir);
    onescope_pose_cache *h = make_head();
    onescope_error err;
    for (int round = 0; round < 2; round++) { /* a new file, then one replaced */
        counts_reset();
        assert_int_equal(onescope_pose_cache_write_file(h, path, &err), ONESCOPE_OK);
        assert_int_equal(renames, 1);
        assert_int_equal(dirty_renames, 0);
        assert_int_equal(fsyncs, 1);
    }
    onescope_pose_cache_free(h);
    assert_int_equal(frames_of(path), 1);
}

/* The byte reader takes a u64 that ends exactly at the end of the input (asking for one byte
 * more would refuse every file whose last field is a u64), and refuses one byte short. */
static void reader_u64_at_end(void **state) {
    (void)state;
    const uint8_t b[9] = {0xAA, 1, 2, 3, 4, 5, 6, 7, 8};
    onescope_os_reader r;
    onescope_error err;
    uint64_t v;
    onescope_os_reader_init(&r, b + 1, 8, "u64", &err);
    assert_int_equal(onescope_os_read_u64(&r, "value", &v), ONESCOPE_OK);
    assert_true(v == 0x0807060504030201u);
    assert_int_equal(onescope_os_reader_remaining(&r), 0);
    onescope_os_reader_init(&r, b + 1, 7, "u64", &err);
    assert_int_equal(onescope_os_read_u64(&r, "value", &v), ONESCOPE_E_TRUNCATED);
}

/* An entity the two caches never hold in the same frame: no frame compared, and its RMS
 * distance is 0, not 0/0. */
static void diff_rms_without_common_frames(void **state) {
    (void)state;
    onescope_pose_cache *a, *b;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 2, 2, NULL, &a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_create(3, 2, 2, NULL, &b, &err), ONESCOPE_OK);
    onescope_pose absent = {{NAN, 0, 0}, {0, 0, 0, 1}};
    assert_int_equal(onescope_pose_cache_set_pose(a, 1, 0, &absent, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_set_pose(b, 0, 0, &absent, &err), ONESCOPE_OK);
    onescope_diff_cache *d;
    assert_int_equal(onescope_diff_caches(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->entity_count, 2);
    assert_int_equal(d->entities[0].frames_compared, 0);
    assert_int_equal(d->entities[0].presence_flips, 2);
    assert_false(isnan(d->entities[0].rms_distance));
    assert_true(d->entities[0].rms_distance == 0.0);
    assert_int_equal(d->entities[1].frames_compared, 2);
    assert_true(d->entities[1].rms_distance == 0.0);
    onescope_diff_cache_free(d);
    onescope_pose_cache_free(a);
    onescope_pose_cache_free(b);
}

/* A scene body's angular velocity is three numbers, all kept; a name escaped as a surrogate
 * pair is the 4-byte UTF-8 of U+10000 (the first code point past the 3-byte forms), U+FFFF
 * stays 3 bytes. */
static void scene_values_kept(void **state) {
    (void)state;
    static const char text[] =
        "{\"bodies\": [{\"name\": \"\\ud800\\udc00|\\uffff\", \"kind\": \"sphere\", "
        "\"size\": [0.5, 0, 0], \"angular_velocity\": [1, 2, 3]}]}";
    onescope_soa_scene *sc;
    onescope_error err;
    onescope_code rc = onescope_soa_scene_parse(text, sizeof text - 1, "scene", NULL, &sc, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    const onescope_soa_body_def *def = &sc->bodies[0].def;
    assert_true(def->angular_velocity[0] == 1 && def->angular_velocity[1] == 2 &&
                def->angular_velocity[2] == 3);
    assert_string_equal(sc->bodies[0].name, "\xF0\x90\x80\x80|\xEF\xBF\xBF");
    onescope_soa_scene_free(sc);
}

/* An empty step (no operations, ops NULL) is a step; only ops NULL with a count is refused. */
static void replay_empty_step(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_ops(r, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_step_count(r), 1);
    assert_int_equal(onescope_replay_append_ops(r, NULL, 1, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_replay_step_count(r), 1);
    onescope_replay_free(r);
}

/* A text parser given no bytes but a size of 1 (or more) refuses the NULL data; only size 0
 * may come with NULL. */
static void ots_null_data_refused(void **state) {
    (void)state;
    onescope_ots_rig *r = NULL;
    onescope_ots_clip *k = NULL;
    onescope_error err;
    assert_int_equal(onescope_ots_rig_parse(NULL, 1, "rig", NULL, &r, &err), ONESCOPE_E_ARGUMENT);
    assert_null(r);
    assert_int_equal(onescope_ots_clip_parse(NULL, 1, "clip", NULL, &k, &err), ONESCOPE_E_ARGUMENT);
    assert_null(k);
}

/* A step that spawns a body in one replay only: the snapshots differ in length, with the
 * shorter one a prefix of the longer; the diff finds that step (a length taken from the
 * wrong side compares the prefix and calls them the same). */
static void diff_spawn_in_one_replay(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *a, *b;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &b, &err), ONESCOPE_OK);
    onescope_op spawn = {ONESCOPE_OP_SPAWN, 0, {0, 0, 0}};
    assert_int_equal(onescope_replay_append_ops(a, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_ops(b, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_ops(a, &spawn, 1, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_ops(b, NULL, 0, &err), ONESCOPE_OK);
    for (int order = 0; order < 2; order++) {
        onescope_diff_replay *d;
        assert_int_equal(onescope_diff_replays(order ? b : a, order ? a : b, NULL, NULL, &d, &err),
                         ONESCOPE_OK);
        assert_true(d->different);
        assert_true(d->diverged);
        assert_int_equal(d->step, 1);
        assert_int_equal(d->steps_compared, 1);
        onescope_diff_replay_free(d);
    }
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* An allocator that watches one request size (counting those requests, and refusing them
 * when asked) and counts the blocks still live. */
typedef struct size_watch {
    onescope_allocator allocator;
    size_t size;
    bool refuse;
    long seen, live;
} size_watch;

static void *sw_alloc(void *user, size_t size) {
    size_watch *s = user;
    if (size == s->size) {
        s->seen++;
        if (s->refuse) return NULL;
    }
    void *p = malloc(size);
    if (p != NULL) s->live++;
    return p;
}

static void sw_free(void *user, void *p) {
    size_watch *s = user;
    if (p != NULL) s->live--;
    free(p);
}

static void sw_init(size_watch *s, size_t size, bool refuse) {
    s->allocator = (onescope_allocator){sw_alloc, sw_free, s};
    s->size = size;
    s->refuse = refuse;
    s->seen = s->live = 0;
}

/* A cache of one frame whose head and frame together pass the streamed reader's first
 * buffer (1 MiB), so that the reader grows it (to 2 MiB) to reach the first frame. */
#define WIDE_ENTITIES 20000u
static void write_wide_cache(const char *path) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, WIDE_ENTITIES, 1, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_write_file(c, path, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    assert_true(file_size(path) > (1l << 20));
}

/* The streamed diff of a file whose first frame lies past the reader's first buffer: the
 * buffer's growth is asked of the caller's allocator, and when it is refused the diff fails
 * with out of memory, naming the size, and frees everything (without the check it copied the
 * buffer into NULL). */
static void stream_growth_refused(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/wide.ospc", dir);
    write_wide_cache(path);
    onescope_diff_options o = {0};
    onescope_diff_cache *d = NULL;
    onescope_error err;
    size_watch s;
    sw_init(&s, (size_t)2 << 20, false);
    o.parse.allocator = &s.allocator;
    assert_int_equal(onescope_diff_cache_files(path, path, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_true(s.seen > 0); /* the growth happened */
    assert_int_equal(d->entity_count, WIDE_ENTITIES);
    onescope_diff_cache_free(d);
    assert_int_equal(s.live, 0);
    sw_init(&s, (size_t)2 << 20, true);
    d = NULL;
    assert_int_equal(onescope_diff_cache_files(path, path, &o, NULL, &d, &err), ONESCOPE_E_NOMEM);
    assert_null(d);
    assert_non_null(strstr(err.found, "2097152 bytes"));
    assert_int_equal(s.live, 0);
    unlink(path);
}

/* The streamed diff parses each file's head with the caller's options: its entity table
 * comes from the caller's allocator (a refusal there is out of memory), not from libc. */
static void streamed_head_uses_allocator(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/wide-head.ospc", dir);
    write_wide_cache(path);
    onescope_diff_options o = {0};
    onescope_diff_cache *d = NULL;
    onescope_error err;
    size_watch s;
    sw_init(&s, (size_t)WIDE_ENTITIES * sizeof(onescope_pose_entity), false);
    o.parse.allocator = &s.allocator;
    assert_int_equal(onescope_diff_cache_files(path, path, &o, NULL, &d, &err), ONESCOPE_OK);
    assert_true(s.seen >= 2); /* one entity table per side */
    onescope_diff_cache_free(d);
    assert_int_equal(s.live, 0);
    sw_init(&s, (size_t)WIDE_ENTITIES * sizeof(onescope_pose_entity), true);
    d = NULL;
    assert_int_equal(onescope_diff_cache_files(path, path, &o, NULL, &d, &err), ONESCOPE_E_NOMEM);
    assert_null(d);
    assert_int_equal(s.live, 0);
    unlink(path);
}

/* A NULL replay is refused and leaves the result cleared: not "matched". */
static void verify_null_replay_clears_result(void **state) {
    (void)state;
    onescope_verify_result v;
    memset(&v, 0, sizeof v);
    v.matched = true, v.rows_checked = 7, v.first_row = 3, v.first_step = 9, v.expected = 1;
    v.actual = 2, v.verdict = ONESCOPE_VERDICT_PASS;
    onescope_error err;
    assert_int_equal(onescope_replay_verify(NULL, NULL, &v, "r", &err), ONESCOPE_E_ARGUMENT);
    assert_false(v.matched);
    assert_int_equal(v.verdict, ONESCOPE_VERDICT_INVALID);
    assert_int_equal(v.rows_checked, 0);
    assert_int_equal(v.first_row, 0);
    assert_true(v.first_step == 0 && v.expected == 0 && v.actual == 0);
}

/* A close whose last write fails returns the I/O error and closes only its own descriptors:
 * standard input stays open (a stand-in descriptor 0 would have been closed). */
static void failed_close_keeps_stdin(void **state) {
    (void)state;
    if (fcntl(0, F_GETFD) == -1) assert_int_equal(open("/dev/null", O_RDONLY), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/full.ostm", dir);
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay_writer_options o = {0};
    o.flush_every = o.flush_every_ms = ONESCOPE_FLUSH_NEVER; /* the step waits for close */
    onescope_replay_writer *w;
    onescope_error err;
    assert_int_equal(onescope_replay_writer_open(path, &setup, NULL, NULL, 0, &o, NULL, &w, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_replay_writer_append(w, NULL, 0, NULL, &err), ONESCOPE_OK);
    writes_fail = 1;
    onescope_code rc = onescope_replay_writer_close(w, NULL, &err);
    writes_fail = 0;
    assert_int_equal(rc, ONESCOPE_E_IO);
    assert_true(fcntl(0, F_GETFD) != -1);
    onescope_replay_writer_discard(w);
    assert_true(fcntl(0, F_GETFD) != -1);
    assert_int_equal(file_size(path), -1);
}

/* The test module, taking an empty setup as a default one. */
static onescope_code create_or_default(void *context, const void *setup, size_t setup_size,
                                       const onescope_allocator *allocator, void **world,
                                       onescope_error *error) {
    static const uint8_t def[6] = {2, 2, 1, 0, 0, 0};
    if (setup_size == 0) {
        setup = def;
        setup_size = sizeof def;
    }
    return onescope_module_test()->create(context, setup, setup_size, allocator, world, error);
}

/* A world's setup may be NULL only when it has no bytes: NULL with 6 bytes is refused before
 * the module sees it, NULL with none reaches the module (which may take it). */
static void world_setup_null_only_when_empty(void **state) {
    (void)state;
    onescope_module t = *onescope_module_test();
    t.create = create_or_default;
    onescope_world *w = NULL;
    onescope_error err;
    assert_int_equal(onescope_world_create(&t, NULL, 6, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    assert_null(w);
    assert_string_equal(err.field, "setup");
    assert_int_equal(onescope_world_create(&t, NULL, 0, NULL, &w, &err), ONESCOPE_OK);
    assert_non_null(w);
    assert_int_equal(onescope_world_step(w, NULL, 0, &err), ONESCOPE_OK);
    onescope_world_free(w);
}

static onescope_replay *one_replay(const onescope_op *steps, int count) {
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    for (int i = 0; i < count; i++)
        assert_int_equal(onescope_replay_append_ops(r, &steps[i], 1, &err), ONESCOPE_OK);
    return r;
}

/* Two replays that teleport body 0 to points apart in x only: the diff stops at the input
 * stage with that one value, x (axis 0), listed. */
static void diff_lists_position_x(void **state) {
    (void)state;
    const onescope_op ta = {ONESCOPE_OP_TELEPORT, 0, {1000, 2000, 0}};
    const onescope_op tb = {ONESCOPE_OP_TELEPORT, 0, {3000, 2000, 0}};
    onescope_replay *a = one_replay(&ta, 1), *b = one_replay(&tb, 1);
    onescope_diff_replay *d;
    onescope_error err;
    assert_int_equal(onescope_diff_replays(a, b, NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->diverged);
    assert_int_equal(d->step, 0);
    assert_int_equal(d->stage, ONESCOPE_SIM_STAGE_INPUT);
    assert_int_equal(d->value_total, 1);
    assert_string_equal(d->values[0].name, "position.x");
    assert_int_equal(d->values[0].index, 0);
    assert_true(d->values[0].a == 1000 && d->values[0].b == 3000);
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* Both replays spawn a body at step 0 (the same one), then part at step 1: the worlds
 * restored at step 1's start hold the spawned body (each its own snapshot size), and the diff
 * finds step 1's input stage. */
static void diff_after_spawn_in_both(void **state) {
    (void)state;
    const onescope_op sa[2] = {{ONESCOPE_OP_SPAWN, 0, {500, 500, 0}},
                               {ONESCOPE_OP_TELEPORT, 2, {1000, 2000, 0}}};
    const onescope_op sb[2] = {{ONESCOPE_OP_SPAWN, 0, {500, 500, 0}},
                               {ONESCOPE_OP_TELEPORT, 2, {3000, 2000, 0}}};
    onescope_replay *a = one_replay(sa, 2), *b = one_replay(sb, 2);
    onescope_diff_replay *d;
    onescope_error err;
    onescope_code rc = onescope_diff_replays(a, b, NULL, NULL, &d, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    assert_true(d->diverged);
    assert_int_equal(d->steps_compared, 1);
    assert_int_equal(d->step, 1);
    assert_int_equal(d->stage, ONESCOPE_SIM_STAGE_INPUT);
    assert_int_equal(d->value_total, 1);
    assert_string_equal(d->values[0].name, "position.x");
    assert_int_equal(d->values[0].index, 2);
    onescope_diff_replay_free(d);
    onescope_replay_free(a);
    onescope_replay_free(b);
}

/* The validator's line for a non-finite value tells infinity from NaN by the bits: a NaN
 * with only the lowest mantissa bit set is a NaN, with its bits. */
static void nan_bits_named(void **state) {
    (void)state;
    static const struct {
        uint32_t bits;
        const char *found;
    } cases[] = {{0x7F800001u, "NaN (bits 0x7f800001)"},
                 {0xFF800001u, "NaN (bits 0xff800001)"},
                 {0x7F800000u, "inf"},
                 {0xFF800000u, "-inf"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        onescope_pose_cache *c;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_create(3, 1, 1, NULL, &c, &err), ONESCOPE_OK);
        memcpy(&c->poses[0].position[1], &cases[i].bits, sizeof cases[i].bits);
        assert_int_not_equal(onescope_pose_cache_validate(c, "c", &err), ONESCOPE_OK);
        assert_string_equal(err.found, cases[i].found);
        onescope_pose_cache_free(c);
    }
}

/* The escape shows the bidirectional isolates U+2066..U+2069 as \uNNNN (a terminal would
 * reorder the text after them) and keeps a printable letter such as U+00E9. */
static void bidi_isolates_escaped(void **state) {
    (void)state;
    static const struct {
        const char *text, *shown;
    } cases[] = {{"a\xE2\x81\xA6z", "a\\u2066z"},
                 {"a\xE2\x81\xA7z", "a\\u2067z"},
                 {"a\xE2\x81\xA9z", "a\\u2069z"},
                 {"a\xC3\xA9z", "a\xC3\xA9z"},
                 /* the C1 range's both ends (seed-2 survivor error.c:47, cp >= 0x80) */
                 {"a\xC2\x80z", "a\\u0080z"},
                 {"a\xC2\x9Fz", "a\\u009Fz"},
                 {"a\xC2\xA0z", "a\xC2\xA0z"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        onescope_error_escape(out, sizeof out, cases[i].text, strlen(cases[i].text));
        assert_string_equal(out, cases[i].shown);
    }
}

/* A file of no known format is named by its first four bytes, each in its place (seed-2
 * survivor file.c:620: the fourth byte printed as the third). */
static void unknown_format_names_four_bytes(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/unknown.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("WXYZ and more", f);
    fclose(f);
    onescope_format fmt;
    onescope_error err;
    assert_int_equal(onescope_file_validate(path, NULL, &fmt, &err), ONESCOPE_E_MAGIC);
    assert_string_equal(err.found, "bytes 57 58 59 5a");
    remove(path);
}

/* An allocator counting the blocks of 4 KiB or more: a growing array doubles, so a rig of n
 * bones makes a few dozen of them, where regrowing at every element makes thousands
 * (seed-3 survivor ots_read.c:339: the room check removed). */
typedef struct big_count {
    onescope_allocator a;
    long big;
} big_count;

static void *counting_alloc(void *user, size_t size) {
    if (size >= 4096) ((big_count *)user)->big++;
    return malloc(size);
}

static void counting_free(void *user, void *p) {
    (void)user;
    free(p);
}

static void rig_arrays_grow_by_doubling(void **state) {
    (void)state;
    enum { BONES = 3000 };
    size_t cap = 128 * BONES + 256, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n,
                          "{\"format\": \"octo_pvt\", \"version\": 4, \"source\": \"blender\", "
                          "\"name\": \"r\", \"scale_factor\": 1.0, \"pivot_space\": \"local\", "
                          "\"fps\": 24.0, \"coordinate_system\": {\"up\": \"y\", \"hand\": "
                          "\"right\", \"unit\": \"meters\", \"rot_order\": \"xyz\", "
                          "\"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"}, "
                          "\"bones\": [");
    for (int i = 0; i < BONES; i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "%s{\"name\": \"b%d\", \"parent\": null, \"pivot\": [0, 0, 0], "
                              "\"rotation\": [1, 0, 0, 0]}",
                              i ? ", " : "", i);
    n += (size_t)snprintf(text + n, cap - n, "], \"cameras\": []}");
    big_count c = {{counting_alloc, counting_free, NULL}, 0};
    c.a.user = &c;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = &c.a;
    onescope_ots_rig *rig = NULL;
    onescope_error err;
    onescope_code rc = onescope_ots_rig_parse(text, n, "many.pvt", &o, &rig, &err);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    if (rc != ONESCOPE_OK) fail_msg("%s", line);
    assert_int_equal(rig->bone_count, BONES);
    assert_true(c.big > 0 && c.big < 64);
    onescope_ots_rig_free(rig);
    free(text);
}

/* Two keyframes 2 degrees apart about z (a dot product past 0.9995, where the interpolation
 * is linear and normalised): frame 5 of 10 is 1 degree (seed-3 survivor ots_convert.c:76,
 * the weight 1 - t made 2 - t). */
static void near_rotations_interpolate_halfway(void **state) {
    (void)state;
    onescope_ots_keyframe k[2];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 2; i++) {
        double half = i ? 1.0 * 3.14159265358979323846 / 180.0 : 0.0; /* half of 2 degrees */
        k[i].frame = i ? 10 : 0;
        k[i].has_rot_quat = true;
        k[i].rot_quat[0] = cos(half);
        k[i].rot_quat[3] = sin(half);
        k[i].scl[0] = k[i].scl[1] = k[i].scl[2] = 1.0;
        k[i].interp = ONESCOPE_OTS_LINEAR;
    }
    onescope_ots_peg peg;
    memset(&peg, 0, sizeof peg);
    peg.name = (char *)"p";
    peg.rest_rotation[0] = 1.0;
    peg.keyframes = k;
    peg.keyframe_count = 2;
    onescope_ots_sample out;
    onescope_ots_peg_sample(&peg, ONESCOPE_OTS_ROT_XYZ, 5.0, &out);
    double deg = 2.0 * atan2(out.rot_quat[3], out.rot_quat[0]) * 180.0 / 3.14159265358979323846;
    assert_true(fabs(deg - 1.0) < 1e-4);
    onescope_ots_peg_sample(&peg, ONESCOPE_OTS_ROT_XYZ, 2.5, &out);
    deg = 2.0 * atan2(out.rot_quat[3], out.rot_quat[0]) * 180.0 / 3.14159265358979323846;
    assert_true(fabs(deg - 0.5) < 1e-4);
}

/* An empty regular file given to the streamed verify is a replay cut at byte 0, as the parser
 * says, not a read error (seed-3 survivor file.c:1012: a read of 0 bytes taken as a failure). */
static void verify_file_of_empty_file(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/empty.ostm", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    onescope_verify_result v;
    onescope_error err;
    assert_int_equal(onescope_replay_verify_file(path, NULL, &v, &err), ONESCOPE_E_TRUNCATED);
    assert_true(err.has_offset && err.offset == 0);
    remove(path);
}

/* A text cut to its buffer backs up over every continuation byte of the character it cut,
 * whatever its low bits (seed-3 survivor error.c:135: only 0x80 and 0xC0 were taken for
 * continuation bytes). */
static void cut_text_ends_on_a_character(void **state) {
    (void)state;
    char dst[8];
    onescope_os_copy_text(dst, sizeof dst, "abc\xc3\xa9\xc3\xa9\xc3\xa9"); /* abc + 3 x e-acute */
    assert_string_equal(dst, "abc...");
    onescope_os_copy_text(dst, sizeof dst, "ab\xe2\x82\xac\xe2\x82\xac"); /* ab + 2 x euro */
    assert_string_equal(dst, "ab...");
}

/* A start snapshot set and then taken away leaves the replay at host step 0 (seed-4 survivor
 * replay.c:139: the step without a snapshot was 1). */
static void start_snapshot_cleared_starts_at_zero(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    for (int i = 0; i < 7; i++)
        assert_int_equal(onescope_sim_step(sim, NULL, 0, &err), ONESCOPE_OK);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    assert_int_equal(onescope_replay_set_start_snapshot(r, snap, n, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_start_step(r), 7);
    assert_int_equal(onescope_replay_set_start_snapshot(r, NULL, 0, &err), ONESCOPE_OK);
    assert_false(onescope_replay_has_start_snapshot(r));
    assert_int_equal(onescope_replay_start_step(r), 0);
    onescope_sim_free(sim);
    onescope_replay_free(r);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/onescope-survivors-%ld", (long)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(segment_limit_exact),
        cmocka_unit_test(segments_synced_before_rename),
        cmocka_unit_test(atomic_write_synced),
        cmocka_unit_test(reader_u64_at_end),
        cmocka_unit_test(diff_rms_without_common_frames),
        cmocka_unit_test(scene_values_kept),
        cmocka_unit_test(replay_empty_step),
        cmocka_unit_test(ots_null_data_refused),
        cmocka_unit_test(diff_spawn_in_one_replay),
        cmocka_unit_test(stream_growth_refused),
        cmocka_unit_test(streamed_head_uses_allocator),
        cmocka_unit_test(verify_null_replay_clears_result),
        cmocka_unit_test(failed_close_keeps_stdin),
        cmocka_unit_test(world_setup_null_only_when_empty),
        cmocka_unit_test(diff_lists_position_x),
        cmocka_unit_test(diff_after_spawn_in_both),
        cmocka_unit_test(nan_bits_named),
        cmocka_unit_test(bidi_isolates_escaped),
        cmocka_unit_test(unknown_format_names_four_bytes),
        cmocka_unit_test(rig_arrays_grow_by_doubling),
        cmocka_unit_test(near_rotations_interpolate_halfway),
        cmocka_unit_test(verify_file_of_empty_file),
        cmocka_unit_test(cut_text_ends_on_a_character),
        cmocka_unit_test(start_snapshot_cleared_starts_at_zero),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
