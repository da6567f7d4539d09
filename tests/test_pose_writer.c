/* The streaming pose-cache writer and recovery: round trips, the partial file, every
 * refusal, the latch, segments, allocation failure at every site. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pose_head.h"
#include "test_util.h"

#define ENTITIES 3u

static char dir[256];

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* A head: 3 entities with ids 1..3, start step 50, a unit name and an entity name. */
static onescope_pose_cache *make_head(void) {
    onescope_pose_cache *h;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, ENTITIES, 1, NULL, &h, &err), ONESCOPE_OK);
    h->start_step = 50;
    h->metres_per_unit = 0.01;
    assert_int_equal(onescope_pose_cache_set_text(h, ONESCOPE_POSE_TEXT_UNIT_NAME, "cm", 2, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_set_entity_name(h, 1, "arm", 3, &err), ONESCOPE_OK);
    return h;
}

/* The deterministic frame f: entity 2 is absent in every third frame. */
static void make_frame(onescope_pose *p, uint32_t f) {
    for (uint32_t e = 0; e < ENTITIES; e++) {
        p[e].position[0] = (float)f + 0.25f * (float)e;
        p[e].position[1] = -(float)f;
        p[e].position[2] = (float)e;
        p[e].rotation[0] = p[e].rotation[1] = p[e].rotation[2] = 0;
        p[e].rotation[3] = 1;
    }
    if (f % 3 == 0) p[2].position[0] = NAN;
}

static void check_cache(const char *path, uint32_t frames, uint32_t first_frame, int64_t start) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->frame_count, frames);
    assert_int_equal(c->entity_count, ENTITIES);
    assert_int_equal(c->start_step, start);
    assert_true(c->metres_per_unit == 0.01);
    assert_memory_equal(c->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "cm", 2);
    assert_memory_equal(c->entities[1].name.data, "arm", 3);
    onescope_pose want[ENTITIES];
    for (uint32_t f = 0; f < frames; f++) {
        make_frame(want, first_frame + f);
        assert_memory_equal(onescope_pose_cache_pose(c, f, 0), want, sizeof want);
    }
    onescope_pose_cache_free(c);
}

/* Bytes before the first pose of a file with make_head's head. */
static long head_size(void) {
    onescope_pose_cache *h = make_head();
    onescope_buffer head;
    onescope_error err;
    assert_int_equal(onescope_os_ospc_encode_head(h, 0, NULL, &head, "h", &err), ONESCOPE_OK);
    long n = (long)head.size;
    onescope_buffer_free(&head);
    onescope_pose_cache_free(h);
    return n;
}

static onescope_pose_writer *open_writer(const char *path, const onescope_pose_writer_options *o) {
    onescope_pose_cache *h = make_head();
    onescope_pose_writer *w;
    onescope_error err;
    assert_int_equal(onescope_pose_writer_open(path, h, o, NULL, &w, &err), ONESCOPE_OK);
    onescope_pose_cache_free(h); /* the writer keeps its own copy */
    return w;
}

static void append_frames(onescope_pose_writer *w, uint32_t from, uint32_t to) {
    onescope_pose p[ENTITIES];
    onescope_error err;
    for (uint32_t f = from; f < to; f++) {
        make_frame(p, f);
        assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_OK);
    }
}

static void write_then_read(void **state) {
    (void)state;
    char path[512], partial[600];
    path_in(path, sizeof path, "a.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer_options o = {0};
    o.buffer_bytes = 50; /* frames straddle buffer flushes */
    onescope_pose_writer *w = open_writer(path, &o);
    assert_true(exists(partial));
    assert_false(exists(path));
    append_frames(w, 0, 40);
    assert_int_equal(onescope_pose_writer_frames(w), 40);
    uint64_t frames;
    onescope_error err;
    assert_int_equal(onescope_pose_writer_close(w, &frames, &err), ONESCOPE_OK);
    assert_int_equal(frames, 40);
    assert_false(exists(partial));
    onescope_pose_writer_free(w);
    check_cache(path, 40, 0, 50);

    /* The same poses through the one-shot writer give the same bytes. */
    onescope_pose_cache *h = make_head(), *c;
    assert_int_equal(onescope_pose_cache_create(3, ENTITIES, 40, NULL, &c, &err), ONESCOPE_OK);
    c->start_step = 50;
    c->metres_per_unit = 0.01;
    onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, "cm", 2, &err);
    onescope_pose_cache_set_entity_name(c, 1, "arm", 3, &err);
    for (uint32_t f = 0; f < 40; f++) make_frame(&c->poses[f * ENTITIES], f);
    onescope_buffer one;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &one, &err), ONESCOPE_OK);
    onescope_buffer file;
    assert_int_equal(onescope_file_read(path, 0, NULL, &file, &err), ONESCOPE_OK);
    assert_int_equal(file.size, one.size);
    assert_memory_equal(file.data, one.data, one.size);
    onescope_buffer_free(&one);
    onescope_buffer_free(&file);
    onescope_pose_cache_free(c);
    onescope_pose_cache_free(h);

    /* Defaults spelled out. */
    onescope_pose_writer_options d = onescope_pose_writer_options_default();
    assert_int_equal(d.buffer_bytes, 1u << 20);
    assert_int_equal(d.max_segment_bytes, ONESCOPE_MAX_INPUT_BYTES);
    assert_false(d.segments);
}

/* discard abandons: no partial, no target; after a good close it leaves the target alone. */
static void discard_abandons(void **state) {
    (void)state;
    char path[512], partial[600];
    path_in(path, sizeof path, "discard.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 3);
    assert_true(exists(partial));
    onescope_pose_writer_discard(w);
    assert_false(exists(partial));
    assert_false(exists(path));
    w = open_writer(path, NULL);
    append_frames(w, 0, 2);
    onescope_error err;
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_pose_writer_discard(w);
    check_cache(path, 2, 0, 50);
    onescope_pose_writer_discard(NULL);
    remove(path);
}

static void refusals_latch(void **state) {
    (void)state;
    char path[512], partial[600], line[512];
    path_in(path, sizeof path, "latch.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 2);
    onescope_pose p[ENTITIES];
    onescope_error err;
    make_frame(p, 2);
    /* Wrong count. */
    assert_int_equal(onescope_pose_writer_append(w, p, 2, &err), ONESCOPE_E_ARGUMENT);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "latch.ospc: frame: expected 3 poses (one per entity)"));
    /* Latched: a good frame is refused now. */
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_BAD_STATE);
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_E_BAD_STATE);
    /* Close keeps the partial (every checked frame in it) and says so. */
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_E_BAD_STATE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "its partial keeps every complete frame: recover it"));
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_E_BAD_STATE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "already closed"));
    onescope_pose_writer_free(w);
    assert_false(exists(path));
    uint64_t kept;
    assert_int_equal(onescope_pose_cache_recover(partial, NULL, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 2);
    check_cache(path, 2, 0, 50);
    unlink(partial);

    /* A non-finite value, at the offset it would have had in the file. */
    w = open_writer(path, NULL);
    append_frames(w, 0, 1);
    make_frame(p, 1);
    p[1].rotation[2] = INFINITY;
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_NOT_FINITE);
    long head = file_size(partial); /* only the head is out: frame 0 is still buffered */
    assert_int_equal(err.offset, (uint64_t)head + 28 * (3 + 1) + 20);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "frame 1 entity 1 rotation z: expected a finite number"));
    assert_int_equal(onescope_pose_writer_append(w, NULL, ENTITIES, &err), ONESCOPE_E_BAD_STATE);
    /* Freed without close: nothing is lost. The buffered frame 0 goes out and the partial
     * stays; recover turns it into a one-frame cache. */
    onescope_pose_writer_free(w);
    assert_true(exists(partial));
    kept = 0;
    assert_int_equal(onescope_pose_cache_recover(partial, NULL, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 1);
    check_cache(path, 1, 0, 50);
    remove(partial);
    remove(path);

    /* NULL poses; NULL writer everywhere. */
    w = open_writer(path, NULL);
    assert_int_equal(onescope_pose_writer_append(w, NULL, ENTITIES, &err), ONESCOPE_E_ARGUMENT);
    onescope_pose_writer_free(w);
    assert_true(exists(partial)); /* kept, holding the head only: abandoning is the caller's */
    remove(partial);
    assert_int_equal(onescope_pose_writer_append(NULL, p, 3, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_writer_flush(NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_writer_close(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_writer_frames(NULL), 0);
    onescope_pose_writer_free(NULL);

    /* Append and flush after close; close without a frame. */
    w = open_writer(path, NULL);
    append_frames(w, 0, 1);
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(file_size(partial), head_size() + 3 * 28); /* flushed: head and frame 0 */
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    make_frame(p, 1);
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_BAD_STATE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "append: expected an open writer, found one already closed"));
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_E_BAD_STATE);
    onescope_pose_writer_free(w);
    check_cache(path, 1, 0, 50);

    char empty[512];
    path_in(empty, sizeof empty, "empty.ospc");
    w = open_writer(empty, NULL);
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_E_RANGE);
    onescope_pose_writer_free(w);
    assert_false(exists(empty));
    snprintf(partial, sizeof partial, "%s.partial", empty);
    assert_false(exists(partial));
}

static void open_refusals(void **state) {
    (void)state;
    char path[512], partial[600];
    path_in(path, sizeof path, "open.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_cache *h = make_head();
    onescope_pose_writer *w = (onescope_pose_writer *)&w;
    onescope_error err;
    assert_int_equal(onescope_pose_writer_open(NULL, h, NULL, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_writer_open("-", h, NULL, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    assert_null(w);
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_writer_open(path, NULL, NULL, NULL, &w, &err),
                     ONESCOPE_E_ARGUMENT);
    /* The head is checked like a file: the offset is where the value sits. */
    h->dimensions = 4;
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 8);
    assert_string_equal(err.input, path);
    h->dimensions = 3;
    h->entities[2].id = 1;
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err),
                     ONESCOPE_E_DUPLICATE);
    h->entities[2].id = 3;
    uint32_t n = h->entity_count;
    assert_error_at(err, ONESCOPE_E_DUPLICATE, 105); /* entity 2's id */
    h->entity_count = 0;
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err), ONESCOPE_E_RANGE);
    h->entity_count = n;
    /* A segment limit the head and one frame do not fit. */
    onescope_pose_writer_options o = {0};
    o.max_segment_bytes = 100;
    assert_int_equal(onescope_pose_writer_open(path, h, &o, NULL, &w, &err), ONESCOPE_E_TOO_LARGE);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "open.ospc: output size: expected at most 100 bytes"));
    assert_false(exists(partial));
    /* A partial that is already there (a crash's leftover) is never overwritten. */
    test_write_file(partial, "keep", 4);
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err), ONESCOPE_E_IO);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "it exists"));
    assert_int_equal(file_size(partial), 4);
    unlink(partial);
    /* A folder that does not exist. */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir.ospc", dir);
    assert_int_equal(onescope_pose_writer_open(nowhere, h, NULL, NULL, &w, &err), ONESCOPE_E_IO);
    onescope_pose_cache_free(h);
}

static void limit_and_segments(void **state) {
    (void)state;
    char path[512], seg[600];
    onescope_error err;
    onescope_pose_cache *h;
    uint64_t head_bytes = (uint64_t)head_size();

    /* Without segments: refused before the file passes the limit, naming file and limit. */
    path_in(path, sizeof path, "limit.ospc");
    onescope_pose_writer_options o = {0};
    o.max_segment_bytes = head_bytes + 3 * 3 * 28 + 10; /* 3 frames fit */
    onescope_pose_writer *w = open_writer(path, &o);
    append_frames(w, 0, 3);
    onescope_pose p[ENTITIES];
    make_frame(p, 3);
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_TOO_LARGE);
    char line[512], want[700];
    onescope_error_format(&err, line, sizeof line);
    snprintf(want, sizeof want, "%s: output size: expected at most %llu bytes (the file limit",
             path, (unsigned long long)o.max_segment_bytes);
    assert_non_null(strstr(line, want));
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_E_BAD_STATE);
    onescope_pose_writer_free(w);
    snprintf(seg, sizeof seg, "%s.partial", path);
    uint64_t kept;
    assert_int_equal(onescope_pose_cache_recover(seg, NULL, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 3);
    assert_true(file_size(path) <= (long)o.max_segment_bytes);

    /* With segments: 10 frames as 3 + 3 + 3 + 1, each a cache whose start continues. */
    path_in(path, sizeof path, "run.ospc");
    o.segments = true;
    w = open_writer(path, &o);
    append_frames(w, 0, 10);
    uint64_t frames;
    assert_int_equal(onescope_pose_writer_close(w, &frames, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    assert_int_equal(frames, 10);
    check_cache(path, 3, 0, 50);
    for (uint32_t k = 1; k <= 3; k++) {
        snprintf(seg, sizeof seg, "%s/run-%04u.ospc", dir, k);
        check_cache(seg, k == 3 ? 1 : 3, 3 * k, 50 + 3 * (int64_t)k);
        assert_true(file_size(seg) <= (long)o.max_segment_bytes);
    }
    snprintf(seg, sizeof seg, "%s/run-0004.ospc", dir);
    assert_false(exists(seg));

    /* Names without an extension, or hidden ones, get the number at the end. */
    path_in(path, sizeof path, ".plain");
    w = open_writer(path, &o);
    append_frames(w, 0, 4);
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    snprintf(seg, sizeof seg, "%s/.plain-0001", dir);
    check_cache(seg, 1, 3, 53);

    /* A frame refused at a segment boundary names frame 0 of the file it would open. */
    path_in(path, sizeof path, "edge.ospc");
    w = open_writer(path, &o);
    append_frames(w, 0, 3);
    make_frame(p, 3);
    p[0].position[1] = NAN;
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(err.offset, head_bytes + 4);
    onescope_pose_writer_free(w);

    /* Start steps that would pass INT64_MAX. */
    h = make_head();
    h->start_step = INT64_MAX - 1;
    path_in(path, sizeof path, "late.ospc");
    assert_int_equal(onescope_pose_writer_open(path, h, &o, NULL, &w, &err), ONESCOPE_OK);
    onescope_pose_cache_free(h);
    append_frames(w, 0, 2); /* steps 2^63 - 2 and 2^63 - 1 */
    make_frame(p, 2);       /* 2^63, inside the segment: refused, not written */
    assert_int_equal(onescope_pose_writer_append(w, p, ENTITIES, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "step of the frame");
    onescope_pose_writer_free(w);
}

static void recover_refusals(void **state) {
    (void)state;
    char path[512], partial[600], line[512];
    onescope_error err;
    uint64_t kept = 7;
    path_in(path, sizeof path, "torn.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 5);
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    /* Tear a sixth frame: 40 of its 84 bytes. */
    int fd = open(partial, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    uint8_t torn[40] = {0};
    assert_int_equal(write(fd, torn, sizeof torn), (ssize_t)sizeof torn);
    close(fd);
    onescope_buffer before;
    assert_int_equal(onescope_file_read(partial, 0, NULL, &before, &err), ONESCOPE_OK);
    char out[600];
    path_in(out, sizeof out, "torn-out.ospc");
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 5);
    check_cache(out, 5, 0, 50);
    /* The partial is untouched. */
    onescope_buffer after;
    assert_int_equal(onescope_file_read(partial, 0, NULL, &after, &err), ONESCOPE_OK);
    assert_int_equal(after.size, before.size);
    assert_memory_equal(after.data, before.data, before.size);
    onescope_buffer_free(&after);

    /* A finished cache is not a partial. */
    assert_int_equal(onescope_pose_cache_recover(out, partial, NULL, &kept, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 16);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "torn-out.ospc: offset 16: frame count: expected the partial"));
    assert_int_equal(kept, 0);
    /* Garbage; an empty file; no complete frame; a bad value in a complete frame. */
    char bad[600];
    path_in(bad, sizeof bad, "junk.partial");
    test_write_file(bad, "hello world", 11);
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, &kept, &err), ONESCOPE_E_MAGIC);
    assert_error_at(err, ONESCOPE_E_MAGIC, 0);
    test_write_file(bad, "", 0);
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, &kept, &err),
                     ONESCOPE_E_TRUNCATED);
    size_t poses_at = before.size - 40 - 5 * 84;
    test_write_file(bad, before.data, poses_at + 83);
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, &kept, &err),
                     ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, poses_at);
    uint8_t *copy = malloc(before.size);
    memcpy(copy, before.data, before.size);
    onescope_os_put_u32(copy + poses_at + 84 + 28 + 8, 0x7F800000u); /* frame 1 entity 1 z */
    test_write_file(bad, copy, before.size);
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, &kept, &err),
                     ONESCOPE_E_NOT_FINITE);
    assert_error_at(err, ONESCOPE_E_NOT_FINITE, poses_at + 84 + 28 + 8);
    copy[ONESCOPE_OS_OSPC_FRAME_COUNT_AT] = 0xFE;
    test_write_file(bad, copy, before.size);
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, &kept, &err), ONESCOPE_E_RANGE);
    free(copy);
    onescope_buffer_free(&before);
    char junk_out[600];
    path_in(junk_out, sizeof junk_out, "junk");
    assert_false(exists(junk_out)); /* never created for a bad partial */

    /* Names: no .partial without OUT; "-"; the same file; a missing file. */
    assert_int_equal(onescope_pose_cache_recover(out, NULL, NULL, &kept, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "a partial name ending in \".partial\""));
    assert_int_equal(onescope_pose_cache_recover(NULL, out, NULL, &kept, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_recover(partial, "-", NULL, &kept, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_recover(partial, partial, NULL, &kept, &err),
                     ONESCOPE_E_ARGUMENT);
    path_in(bad, sizeof bad, "missing.ospc.partial");
    assert_int_equal(onescope_pose_cache_recover(bad, NULL, NULL, NULL, &err), ONESCOPE_E_IO);
    onescope_pose_writer_free(w);
}

/* ---- allocation failure at every site ---- */

/* The target kinds (docs/hardening.md, "### files"): a symlink is followed and stays a link,
 * the partial sits beside the file it names; a 0600 file stays 0600; a device is refused
 * before anything is created. */
static void target_kinds(void **state) {
    (void)state;
    char real[512], link[512], partial[600];
    path_in(real, sizeof real, "kind-real.ospc");
    path_in(link, sizeof link, "kind-link.ospc");
    remove(real);
    remove(link);
    assert_int_equal(symlink("kind-real.ospc", link), 0); /* relative, dangling for now */
    onescope_pose_writer *w = open_writer(link, NULL);
    snprintf(partial, sizeof partial, "%s.partial", real);
    assert_true(exists(partial)); /* beside the file the link names */
    append_frames(w, 0, 2);
    onescope_error err;
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    check_cache(real, 2, 0, 50);
    assert_false(exists(partial));

    /* Recording again over the (now existing) 0600 target through the link. */
    assert_int_equal(chmod(real, 0600), 0);
    w = open_writer(link, NULL);
    assert_int_equal(stat(partial, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* from the partial's first byte on */
    append_frames(w, 0, 3);
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_OK);
    onescope_pose_writer_free(w);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(real, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    check_cache(real, 3, 0, 50);

    /* A device: refused, and /dev/null stays a device. */
    onescope_pose_cache *h = make_head();
    assert_int_equal(onescope_pose_writer_open("/dev/null", h, NULL, NULL, &w, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(h);
    assert_null(w);
    assert_string_equal(err.input, "/dev/null");
    assert_non_null(strstr(err.found, "device"));
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    remove(real);
    remove(link);
}

static onescope_code record_fn(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    char path[512];
    path_in(path, sizeof path, "alloc.ospc");
    onescope_pose_cache *h = make_head();
    onescope_pose_writer *w;
    onescope_error err;
    onescope_pose_writer_options o = {0};
    o.max_segment_bytes = 400; /* segments roll, too */
    o.segments = true;
    onescope_code rc = onescope_pose_writer_open(path, h, &o, a, &w, &err);
    onescope_pose_cache_free(h);
    if (rc != ONESCOPE_OK) {
        assert_false(exists(path));
        return rc;
    }
    onescope_pose p[ENTITIES];
    for (uint32_t f = 0; f < 6 && rc == ONESCOPE_OK; f++) {
        make_frame(p, f);
        rc = onescope_pose_writer_append(w, p, ENTITIES, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_close(w, NULL, &err);
    onescope_pose_writer_free(w);
    return rc;
}

static onescope_code recover_fn(const onescope_allocator *a, void *ctx) {
    const char *partial = ctx;
    char out[512];
    path_in(out, sizeof out, "alloc-recovered.ospc");
    onescope_error err;
    return onescope_pose_cache_recover(partial, out, a, NULL, &err);
}

static void allocation_failures(void **state) {
    (void)state;
    /* open: head poses, id set, head bytes, writer, path, segment name, buffer, and per
     * segment the resolved target and the partial's name (a second segment rolls). */
    assert_int_equal(test_alloc_walk(record_fn, NULL), 11);
    char path[512], partial[600];
    path_in(path, sizeof path, "alloc-src.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 4);
    onescope_error err;
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    /* recover, streamed: the head's buffer, the id set, the copy's buffer, and the sink's
     * struct, name, resolved target and temporary name. */
    assert_int_equal(test_alloc_walk(recover_fn, partial), 7);
    /* With the default name: one more, the derived name. */
    onescope_pose_writer_free(w);
}

/* ---- round three (docs/hardening.md, "### writers") ---- */

/* Durability without a call to flush: the partial holds exactly the frames the count rule
 * promises (the clock rule off, the buffer far larger than the frames). The defaults flush
 * every 64 frames, so the README's loop never leaves an empty partial after 64 frames. */
static void durability_by_count(void **state) {
    (void)state;
    char path[512], partial[600];
    long frame = (long)ENTITIES * ONESCOPE_OSPC_POSE_BYTES;
    uint32_t everies[] = {1, 16, 0 /* the default: 64 */};
    for (int i = 0; i < 3; i++) {
        path_in(path, sizeof path, "durable.ospc");
        snprintf(partial, sizeof partial, "%s.partial", path);
        onescope_pose_writer_options o = onescope_pose_writer_options_default();
        o.flush_every = everies[i];
        o.flush_every_ms = ONESCOPE_FLUSH_NEVER;
        onescope_pose_writer *w = open_writer(path, &o);
        uint32_t every = everies[i] != 0 ? everies[i] : ONESCOPE_FLUSH_DEFAULT_RECORDS;
        for (uint32_t f = 0; f < 150; f++) {
            append_frames(w, f, f + 1);
            long want = head_size() + (long)((f + 1) / every * every) * frame;
            assert_int_equal(file_size(partial), want);
        }
        onescope_pose_writer_discard(w);
        assert_false(exists(partial));
    }
    /* ONESCOPE_FLUSH_NEVER for both: only a full buffer or flush writes. */
    onescope_pose_writer_options o = onescope_pose_writer_options_default();
    o.flush_every = ONESCOPE_FLUSH_NEVER;
    o.flush_every_ms = ONESCOPE_FLUSH_NEVER;
    onescope_pose_writer *w = open_writer(path, &o);
    append_frames(w, 0, 100);
    assert_int_equal(file_size(partial), head_size());
    onescope_error err;
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(file_size(partial), head_size() + 100 * frame);
    onescope_pose_writer_discard(w);
}

/* A directory as the target is refused at open, before a partial exists. */
static void directory_refused_at_open(void **state) {
    (void)state;
    char path[512], partial[600], line[512];
    path_in(path, sizeof path, "a-folder.ospc");
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_cache *h = make_head();
    onescope_pose_writer *w = NULL;
    onescope_error err;
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(h);
    assert_null(w);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "a-folder.ospc: output: expected a regular file"));
    assert_non_null(strstr(line, "found a directory"));
    assert_false(exists(partial));
    rmdir(path);
}

/* A recording whose close dies between writing the count and the rename (played by a
 * folder that appears at the target, so the rename fails there) leaves a complete partial
 * whose count is final: recover keeps every frame, and after it the next recording opens. */
static void killed_inside_close(void **state) {
    (void)state;
    char path[512], partial[600], out[600];
    path_in(path, sizeof path, "closing.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    path_in(out, sizeof out, "closing-out.ospc");
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 70);
    assert_int_equal(mkdir(path, 0777), 0);
    onescope_error err;
    assert_int_equal(onescope_pose_writer_close(w, NULL, &err), ONESCOPE_E_IO);
    onescope_pose_writer_free(w);
    assert_true(exists(partial));
    onescope_buffer b;
    assert_int_equal(onescope_file_read(partial, 0, NULL, &b, &err), ONESCOPE_OK);
    assert_int_equal(onescope_os_get_u32(b.data + ONESCOPE_OS_OSPC_FRAME_COUNT_AT), 70);
    uint64_t kept = 0;
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 70);
    check_cache(out, 70, 0, 50);
    /* A written count that is not the file's frames is damage, at the count. */
    b.data[ONESCOPE_OS_OSPC_FRAME_COUNT_AT] = 69;
    test_write_file(partial, b.data, b.size);
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 16);
    test_write_file(partial, b.data, b.size - 1);
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err),
                     ONESCOPE_E_RANGE);
    onescope_buffer_free(&b);
    /* Recovered: the partial is removed by its owner and the next recording starts. */
    rmdir(path);
    unlink(partial);
    w = open_writer(path, NULL);
    append_frames(w, 0, 2);
    assert_int_equal(onescope_pose_writer_close(w, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 2);
    onescope_pose_writer_free(w);
}

/* Names of 248-255 bytes: the partial's name is cut to fit NAME_MAX (as a temporary's is),
 * the recording lands under the full name. */
static void long_names(void **state) {
    (void)state;
    for (size_t len = 247; len <= 255; len++) {
        char name[300], path[600];
        memset(name, 'n', len);
        memcpy(name + len - 5, ".ospc", 5);
        name[len] = '\0';
        path_in(path, sizeof path, name);
        onescope_pose_writer *w = open_writer(path, NULL);
        append_frames(w, 0, 3);
        onescope_error err;
        uint64_t frames = 0;
        assert_int_equal(onescope_pose_writer_close(w, &frames, &err), ONESCOPE_OK);
        assert_int_equal(frames, 3);
        onescope_pose_writer_free(w);
        check_cache(path, 3, 0, 50);
        unlink(path);
    }
    /* The partial's name: target + ".partial", its file name cut to 255 bytes. */
    char target[300];
    memset(target, 'x', 252);
    target[252] = '\0';
    char *p = onescope_os_partial_name(target, NULL);
    assert_int_equal(strlen(p), 255);
    assert_string_equal(p + 247, ".partial");
    onescope_os_free(NULL, p);
    p = onescope_os_partial_name("d/run.ospc", NULL);
    assert_string_equal(p, "d/run.ospc.partial");
    onescope_os_free(NULL, p);
}

/* validate (every reader) of a partial says it is one and names recover, in one line. */
static void partial_named_by_readers(void **state) {
    (void)state;
    char path[512], partial[600], line[512];
    path_in(path, sizeof path, "seen.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_pose_writer *w = open_writer(path, NULL);
    append_frames(w, 0, 3);
    onescope_error err;
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(onescope_file_validate(partial, NULL, NULL, &err), ONESCOPE_E_RANGE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "seen.ospc.partial: offset 16: frame count"));
    assert_non_null(strstr(line, "a partial recording (onescope recover"));
    assert_null(strchr(line, '\n'));
    onescope_pose_writer_discard(w);
}

/* Recovery streams: a partial of several MiB (pieces of the copy), a bad value deep in it
 * named at its offset with no output made, and a head larger than the first read. */
static void recover_streams(void **state) {
    (void)state;
    char path[512], partial[600], out[600], line[512];
    onescope_error err;
    uint64_t kept;
    path_in(path, sizeof path, "long.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    path_in(out, sizeof out, "long-out.ospc");
    onescope_pose_writer *w = open_writer(path, NULL);
    uint32_t frames = 50000; /* 4.2 MB of poses */
    append_frames(w, 0, frames);
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, frames);
    check_cache(out, frames, 0, 50);
    unlink(out);
    /* A value of frame 40000 made infinite: refused at its offset, nothing at out. */
    onescope_buffer bytes;
    assert_int_equal(onescope_file_read(partial, 0, NULL, &bytes, &err), ONESCOPE_OK);
    size_t at = (size_t)head_size() + 40000u * ENTITIES * 28u + 28u + 4u; /* entity 1 y */
    onescope_os_put_u32(bytes.data + at, 0xFF800000u);
    char bad[600];
    path_in(bad, sizeof bad, "deep.partial");
    test_write_file(bad, bytes.data, bytes.size);
    assert_int_equal(onescope_pose_cache_recover(bad, out, NULL, &kept, &err),
                     ONESCOPE_E_NOT_FINITE);
    assert_error_at(err, ONESCOPE_E_NOT_FINITE, at);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "frame 40000 entity 1 position y"));
    assert_false(exists(out));
    onescope_buffer_free(&bytes);
    onescope_pose_writer_free(w);

    /* A head of about 2.5 MB: 2 500 entity names of 1 000 bytes, read in more than one try. */
    onescope_pose_cache *h;
    uint32_t n = 2500;
    assert_int_equal(onescope_pose_cache_create(3, n, 1, NULL, &h, &err), ONESCOPE_OK);
    char name[1000];
    memset(name, 'n', sizeof name);
    for (uint32_t e = 0; e < n; e++) {
        h->entities[e].id = e + 1;
        name[0] = (char)('A' + e % 26);
        assert_int_equal(onescope_pose_cache_set_entity_name(h, e, name, sizeof name, &err),
                         ONESCOPE_OK);
    }
    path_in(path, sizeof path, "wide.ospc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_int_equal(onescope_pose_writer_open(path, h, NULL, NULL, &w, &err), ONESCOPE_OK);
    onescope_pose *p = calloc(n, sizeof *p);
    for (uint32_t e = 0; e < n; e++) p[e].rotation[3] = 1;
    for (int f = 0; f < 3; f++)
        assert_int_equal(onescope_pose_writer_append(w, p, n, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_writer_flush(w, &err), ONESCOPE_OK);
    assert_true(file_size(partial) > 2500000);
    path_in(out, sizeof out, "wide-out.ospc");
    assert_int_equal(onescope_pose_cache_recover(partial, out, NULL, &kept, &err), ONESCOPE_OK);
    assert_int_equal(kept, 3);
    onescope_pose_cache *c;
    assert_int_equal(onescope_pose_cache_read_file(out, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->frame_count, 3);
    assert_int_equal(c->entity_count, n);
    assert_int_equal(c->entities[2499].name.length, 1000);
    onescope_pose_cache_free(c);
    free(p);
    onescope_pose_writer_free(w);
    onescope_pose_cache_free(h);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_pose_writer-%ld", (long)getpid());
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(write_then_read),
        cmocka_unit_test(refusals_latch),
        cmocka_unit_test(open_refusals),
        cmocka_unit_test(limit_and_segments),
        cmocka_unit_test(recover_refusals),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(discard_abandons),
        cmocka_unit_test(target_kinds),
        cmocka_unit_test(durability_by_count),
        cmocka_unit_test(directory_refused_at_open),
        cmocka_unit_test(killed_inside_close),
        cmocka_unit_test(long_names),
        cmocka_unit_test(partial_named_by_readers),
        cmocka_unit_test(recover_streams),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
