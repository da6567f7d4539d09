/* Ghosts: a replay's bodies over a range of steps as a pose cache. Rules: docs/ghost.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/ghost.h"

static const char *const ghost_name = "ghost";
/* Marks options that came from onescope_ghost_options_default(). */
#define OPTIONS_COOKIE 0x4F53474Fu /* "OSGO" */

onescope_ghost_options onescope_ghost_options_default(void) {
    onescope_ghost_options o;
    memset(&o, 0, sizeof o);
    o.frames = 1;
    o.internal_cookie = OPTIONS_COOKIE;
    return o;
}

/* The quiet NaN 0x7FC00000, written by bits so every compiler stores the same pattern. */
static float absent_x(void) {
    uint8_t b[4];
    onescope_os_put_u32(b, 0x7FC00000u);
    return onescope_os_get_f32(b);
}

typedef struct ghost_run {
    uint32_t from;
    uint32_t last;        /* from + frames - 1 */
    uint32_t body_count;  /* pass 1: the bodies at the last frame */
    uint64_t start_step;  /* host step of row from */
    onescope_pose *poses; /* pass 2, in memory: frame-major, frames x body_count */
    onescope_pose *frame; /* pass 2, streaming: one frame, appended to writer */
    onescope_pose_writer *writer;
    onescope_code rc; /* the writer's failure, which stops the run */
    onescope_error *error;
    int32_t offset[3];
    float nan;
} ghost_run;

static bool count_pass(void *user, const onescope_replay_row *row) {
    ghost_run *g = user;
    if (row->index == g->from) g->start_step = row->host_step;
    if (row->index < g->last) return false;
    g->body_count = onescope_sim_body_count(row->sim);
    return true;
}

/* One frame of poses from the world at a row: the one frame code of both paths. */
static void fill_frame(const ghost_run *g, const onescope_sim *sim, onescope_pose *poses) {
    uint32_t held = onescope_sim_body_count(sim);
    for (uint32_t i = 0; i < g->body_count; i++) {
        onescope_pose *p = &poses[i];
        onescope_sim_body_state b;
        memset(p, 0, sizeof *p);
        p->rotation[3] = 1.0f;
        if (i >= held || onescope_sim_body(sim, i, &b) != ONESCOPE_OK || b.alive != 1) {
            p->position[0] = g->nan;
            continue;
        }
        /* |position + offset| <= 1010000 < 2^24: the float is exact */
        for (int a = 0; a < 3; a++) p->position[a] = (float)(b.position[a] + g->offset[a]);
    }
}

static bool fill_pass(void *user, const onescope_replay_row *row) {
    ghost_run *g = user;
    if (row->index < g->from) return false;
    size_t frame = row->index - g->from;
    fill_frame(g, row->sim, &g->poses[frame * g->body_count]);
    return row->index >= g->last;
}

static bool append_pass(void *user, const onescope_replay_row *row) {
    ghost_run *g = user;
    if (row->index < g->from) return false;
    fill_frame(g, row->sim, g->frame);
    g->rc = onescope_pose_writer_append(g->writer, g->frame, g->body_count, g->error);
    return g->rc != ONESCOPE_OK || row->index >= g->last;
}

static const char *base_name(const char *path) {
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

/* Checks the options and runs the count pass: everything the output's size depends on. */
static onescope_code ghost_plan(const onescope_replay *replay,
                                const onescope_ghost_options *options, const onescope_allocator *a,
                                onescope_ghost_options *o, ghost_run *g, onescope_error *error) {
    *o = options ? *options : onescope_ghost_options_default();
    if (o->internal_cookie != OPTIONS_COOKIE)
        return onescope_os_fail(
            error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET, "onescope_ghost_options",
            "options from onescope_ghost_options_default()",
            "options without their cookie (0x%08x)", (unsigned)o->internal_cookie);
    if (o->frames < 1 || o->frames > ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "frames",
                                "1 to 4194304", "%" PRIu32, o->frames);
    uint64_t last = (uint64_t)o->from + o->frames - 1;
    uint32_t step_count = onescope_replay_step_count(replay);
    onescope_sim_setup setup = onescope_replay_setup(replay);
    if (last > step_count)
        return onescope_os_fail(
            error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "from + frames", NULL,
            "rows %" PRIu32 " to %" PRIu64 " of a replay whose last row is %" PRIu32, o->from, last,
            step_count);
    for (int i = 0; i < 3; i++) {
        if (o->offset[i] < -ONESCOPE_GHOST_MAX_OFFSET || o->offset[i] > ONESCOPE_GHOST_MAX_OFFSET)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "offset",
                                    "-1000000 to 1000000 mm per axis", "%" PRId32, o->offset[i]);
    }
    if (setup.dimensions == 2 && o->offset[2] != 0)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "offset z",
                                "0 in a 2D world", "%" PRId32, o->offset[2]);
    memset(g, 0, sizeof *g);
    g->from = o->from;
    g->last = (uint32_t)last;
    memcpy(g->offset, o->offset, sizeof g->offset);
    g->nan = absent_x();
    OS_TRY(onescope_replay_run(replay, a, count_pass, g, error));
    /* The cache's steps follow the format's rule (its last frame's step fits int64_t): the
     * writer would refuse it anyway, this says why in the replay's terms. */
    if (g->start_step > (uint64_t)INT64_MAX ||
        !onescope_os_ospc_steps_fit((int64_t)g->start_step, o->frames))
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "start step",
                                "a host step whose last frame's step is at most 2^63 - 1 (a pose "
                                "cache's steps)",
                                "%" PRIu64 " with %" PRIu32 " frames", g->start_step, o->frames);
    return ONESCOPE_OK;
}

/* The cache without its poses (one frame of identity poses): entities and texts. */
static onescope_code ghost_head(const onescope_replay *replay, const onescope_ghost_options *o,
                                const ghost_run *g, const onescope_allocator *a,
                                onescope_pose_cache **out, onescope_error *error) {
    onescope_sim_setup setup = onescope_replay_setup(replay);
    onescope_pose_cache *c;
    OS_TRY(onescope_pose_cache_create(setup.dimensions, g->body_count, 1, a, &c, error));
    c->start_step = (int64_t)g->start_step;
    c->metres_per_unit = 0.001;
    onescope_code rc = ONESCOPE_OK;
    char text[160];
    for (uint32_t i = 0; i < g->body_count && rc == ONESCOPE_OK; i++) {
        c->entities[i].id = (uint64_t)i + 1;
        c->entities[i].shape = ONESCOPE_SHAPE_SPHERE;
        c->entities[i].size[0] = (float)ONESCOPE_GHOST_BODY_RADIUS;
        int n = snprintf(text, sizeof text, "body %" PRIu32, i);
        rc = onescope_pose_cache_set_entity_name(c, i, text, (size_t)n, error);
    }
    int n = snprintf(text, sizeof text, "test-module %uD, %u bodies, seed %" PRIu32,
                     (unsigned)setup.dimensions, (unsigned)setup.body_count, setup.seed);
    struct {
        onescope_pose_text_field field;
        const char *value;
        size_t length;
    } texts[] = {
        {ONESCOPE_POSE_TEXT_UNIT_NAME, "mm", 2},
        {ONESCOPE_POSE_TEXT_MODULE_ID, ONESCOPE_GHOST_MODULE_ID, strlen(ONESCOPE_GHOST_MODULE_ID)},
        {ONESCOPE_POSE_TEXT_LIBRARY_VERSION, ONESCOPE_VERSION_STRING,
         strlen(ONESCOPE_VERSION_STRING)},
        {ONESCOPE_POSE_TEXT_SCENE, text, (size_t)n},
        {ONESCOPE_POSE_TEXT_LABEL, o->label ? o->label : "", o->label ? strlen(o->label) : 0},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0] && rc == ONESCOPE_OK; i++) {
        if (texts[i].length > ONESCOPE_OSPC_MAX_TEXT) {
            rc = onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "label",
                                  "at most 1024 bytes", "%zu bytes", texts[i].length);
            break;
        }
        rc =
            onescope_pose_cache_set_text(c, texts[i].field, texts[i].value, texts[i].length, error);
    }
    if (rc == ONESCOPE_OK && o->replay_name != NULL) {
        const char *b = base_name(o->replay_name);
        size_t len = strlen(b);
        if (len <= ONESCOPE_OSPC_MAX_TEXT && onescope_file_name_is_plain(b, len))
            rc = onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, b, len, error);
    }
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(c);
        return rc;
    }
    *out = c;
    return ONESCOPE_OK;
}

/* Refuses, from the head and the frame count alone, a ghost whose file would pass limit:
 * before a pose is computed or a byte written (the limit is checked, not discovered). */
static onescope_code check_size(const onescope_pose_cache *head, uint32_t frames, uint64_t limit,
                                onescope_error *error) {
    uint64_t total;
    OS_TRY(onescope_pose_cache_head_size(head, &total, error));
    total += (uint64_t)frames * head->entity_count * ONESCOPE_OSPC_POSE_BYTES;
    if (total <= limit) return ONESCOPE_OK;
    char expected[128];
    snprintf(expected, sizeof expected, "at most %" PRIu64 " bytes (the pose-cache file limit%s)",
             limit, "; ask for segments");
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, ghost_name, OS_NO_OFFSET, "output size",
                            expected,
                            "%" PRIu64 " bytes (%" PRIu32 " frames of %" PRIu32 " bodies)", total,
                            frames, head->entity_count);
}

static onescope_code ghost_create(const onescope_replay *replay,
                                  const onescope_ghost_options *options,
                                  const onescope_allocator *a, onescope_pose_cache **out,
                                  onescope_error *error) {
    if (replay == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET, NULL, NULL,
                                "replay and out must not be NULL");
    *out = NULL;
    onescope_ghost_options o;
    ghost_run g;
    OS_TRY(ghost_plan(replay, options, a, &o, &g, error));
    onescope_pose_cache *c;
    OS_TRY(ghost_head(replay, &o, &g, a, &c, error));
    onescope_code rc = check_size(c, o.frames, ONESCOPE_MAX_INPUT_BYTES, error);
    if (rc == ONESCOPE_OK) {
        /* the head's one frame grows to every frame; the size check bounds it */
        onescope_pose *poses =
            onescope_os_calloc(c->allocator, (size_t)o.frames * g.body_count, sizeof *poses);
        if (poses == NULL) {
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, ghost_name, OS_NO_OFFSET, "poses", NULL,
                                  "could not allocate memory");
        } else {
            onescope_os_free(c->allocator, c->poses);
            c->poses = poses;
            c->frame_count = o.frames;
            g.poses = poses;
            rc = onescope_replay_run(replay, a, fill_pass, &g, error);
        }
    }
    if (rc == ONESCOPE_OK) rc = onescope_pose_cache_validate(c, ghost_name, error);
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(c);
        return rc;
    }
    *out = c;
    return ONESCOPE_OK;
}

/* Every failure, nested ones included, names the caller's input when it gave one. */
static onescope_code relabel(onescope_code rc, const onescope_ghost_options *options,
                             onescope_error *error) {
    if (rc != ONESCOPE_OK && error != NULL && options != NULL && options->name != NULL)
        onescope_os_copy_text(error->input, sizeof error->input, options->name);
    return rc;
}

/* Failures about the replay or the options name the input; the writer's own (the output
 * file: create, write, rename) keep the output's name. */
static onescope_code ghost_write(const onescope_replay *replay,
                                 const onescope_ghost_options *options, const char *path,
                                 const onescope_pose_writer_options *writer_options,
                                 const onescope_allocator *a, onescope_ghost_result *result,
                                 onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (replay == NULL || path == NULL)
        return relabel(onescope_os_fail(error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET, NULL,
                                        NULL, "replay and path must not be NULL"),
                       options, error);
    onescope_ghost_options o;
    ghost_run g;
    OS_TRY(relabel(ghost_plan(replay, options, a, &o, &g, error), options, error));
    onescope_pose_cache *head;
    OS_TRY(relabel(ghost_head(replay, &o, &g, a, &head, error), options, error));
    onescope_pose_writer_options wo =
        writer_options ? *writer_options : onescope_pose_writer_options_default();
    uint64_t limit = wo.max_segment_bytes == 0 || wo.max_segment_bytes > ONESCOPE_MAX_INPUT_BYTES
                         ? ONESCOPE_MAX_INPUT_BYTES
                         : wo.max_segment_bytes;
    onescope_code rc = wo.segments ? ONESCOPE_OK : check_size(head, o.frames, limit, error);
    (void)relabel(rc, options, error);
    onescope_pose_writer *w = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_open(path, head, &wo, a, &w, error);
    if (rc == ONESCOPE_OK) {
        g.frame = head->poses; /* the head's one frame is the frame buffer */
        g.writer = w;
        g.error = error;
        rc = onescope_replay_run(replay, a, append_pass, &g, error);
        if (rc != ONESCOPE_OK) (void)relabel(rc, options, error); /* the run itself failed */
        if (rc == ONESCOPE_OK) rc = g.rc;
    }
    uint64_t frames = 0;
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_close(w, &frames, error);
    if (rc == ONESCOPE_OK && result != NULL) {
        result->entity_count = head->entity_count;
        result->frame_count = (uint32_t)frames;
        result->start_step = head->start_step;
    }
    onescope_pose_writer_discard(w); /* a failed run leaves no partial behind */
    onescope_pose_cache_free(head);
    return rc;
}

onescope_code onescope_ghost_create(const onescope_replay *replay,
                                    const onescope_ghost_options *options,
                                    const onescope_allocator *a, onescope_pose_cache **out,
                                    onescope_error *error) {
    return relabel(ghost_create(replay, options, a, out, error), options, error);
}

onescope_code onescope_ghost_write(const onescope_replay *replay,
                                   const onescope_ghost_options *options, const char *path,
                                   const onescope_pose_writer_options *writer_options,
                                   const onescope_allocator *allocator,
                                   onescope_ghost_result *result, onescope_error *error) {
    return ghost_write(replay, options, path, writer_options, allocator, result, error);
}
