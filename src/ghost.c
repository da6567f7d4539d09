/* Ghosts: a replay's bodies, or a module recording's entities, over a range of steps as a pose
 * cache. Rules: docs/ghost.md. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/ghost.h"
#include "run_internal.h"

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

/* The caller's options (or the defaults), refused without the default's cookie. */
static onescope_code take_options(const onescope_ghost_options *options, onescope_ghost_options *o,
                                  onescope_error *error) {
    *o = options ? *options : onescope_ghost_options_default();
    if (o->internal_cookie == OPTIONS_COOKIE) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET,
                            "onescope_ghost_options",
                            "options from onescope_ghost_options_default()",
                            "options without their cookie (0x%08x)", (unsigned)o->internal_cookie);
}

/* The frames inside the run (kind: "replay" or "recording") and the offset (in unit). */
static onescope_code check_range(const onescope_ghost_options *o, uint32_t step_count,
                                 uint8_t dimensions, const char *kind, const char *unit,
                                 onescope_error *error) {
    if (o->frames < 1 || o->frames > ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "frames",
                                "1 to 4194304", "%" PRIu32, o->frames);
    uint64_t last = (uint64_t)o->from + o->frames - 1;
    if (last > step_count)
        return onescope_os_fail(
            error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "from + frames", NULL,
            "rows %" PRIu32 " to %" PRIu64 " of a %s whose last row is %" PRIu32, o->from, last,
            kind, step_count);
    for (int i = 0; i < 3; i++) {
        if (o->offset[i] < -ONESCOPE_GHOST_MAX_OFFSET || o->offset[i] > ONESCOPE_GHOST_MAX_OFFSET) {
            char expected[96];
            snprintf(expected, sizeof expected, "-1000000 to 1000000 %s per axis", unit);
            return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "offset",
                                    expected, "%" PRId32, o->offset[i]);
        }
    }
    if (dimensions == 2 && o->offset[2] != 0)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "offset z",
                                "0 in a 2D world", "%" PRId32, o->offset[2]);
    return ONESCOPE_OK;
}

/* Checks the options and runs the count pass: everything the output's size depends on. */
static onescope_code ghost_plan(const onescope_replay *replay,
                                const onescope_ghost_options *options, const onescope_allocator *a,
                                onescope_ghost_options *o, ghost_run *g, onescope_error *error) {
    OS_TRY(take_options(options, o, error));
    onescope_sim_setup setup = onescope_replay_setup(replay);
    OS_TRY(check_range(o, onescope_replay_step_count(replay), setup.dimensions, "replay", "mm",
                       error));
    uint64_t last = (uint64_t)o->from + o->frames - 1;
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

/* The cache's texts: unit, module id, library version, scene, label, and the replay's name
 * when it is a plain file name. */
static onescope_code set_texts(onescope_pose_cache *c, const onescope_ghost_options *o,
                               const char *unit, const char *module_id, const char *scene,
                               size_t scene_len, onescope_error *error) {
    struct {
        onescope_pose_text_field field;
        const char *value;
        size_t length;
    } texts[] = {
        {ONESCOPE_POSE_TEXT_UNIT_NAME, unit, strlen(unit)},
        {ONESCOPE_POSE_TEXT_MODULE_ID, module_id, strlen(module_id)},
        {ONESCOPE_POSE_TEXT_LIBRARY_VERSION, ONESCOPE_VERSION_STRING,
         strlen(ONESCOPE_VERSION_STRING)},
        {ONESCOPE_POSE_TEXT_SCENE, scene, scene_len},
        {ONESCOPE_POSE_TEXT_LABEL, o->label ? o->label : "", o->label ? strlen(o->label) : 0},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (texts[i].length > ONESCOPE_OSPC_MAX_TEXT) /* only the label can be that long */
            return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "label",
                                    "at most 1024 bytes", "%zu bytes", texts[i].length);
        OS_TRY(onescope_pose_cache_set_text(c, texts[i].field, texts[i].value, texts[i].length,
                                            error));
    }
    if (o->replay_name == NULL) return ONESCOPE_OK;
    const char *b = base_name(o->replay_name);
    size_t len = strlen(b);
    if (len > ONESCOPE_OSPC_MAX_TEXT || !onescope_file_name_is_plain(b, len)) return ONESCOPE_OK;
    return onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, b, len, error);
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
    if (rc == ONESCOPE_OK)
        rc = set_texts(c, o, "mm", ONESCOPE_GHOST_MODULE_ID, text, (size_t)n, error);
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

/* ---- module recordings: any module's entities, through the seam ---- */

/* Entity id -> cache index: open addressing, at most half full. The ids are the module's
 * (entity_id), not bytes of the file, so a fixed mixing function is enough. */
typedef struct id_map {
    uint64_t *ids;
    uint32_t *index; /* UINT32_MAX: an empty slot */
    size_t cap;      /* a power of two, or 0 */
    uint32_t count;
} id_map;

static size_t id_slot(uint64_t id, size_t cap) {
    id ^= id >> 33; /* splitmix64's finaliser: every bit of the id moves the slot */
    id *= 0xff51afd7ed558ccdu;
    id ^= id >> 33;
    id *= 0xc4ceb9fe1a85ec53u;
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

static uint32_t id_find(const id_map *m, uint64_t id) {
    if (m->cap == 0) return UINT32_MAX;
    for (size_t k = id_slot(id, m->cap);; k = (k + 1) & (m->cap - 1)) {
        if (m->index[k] == UINT32_MAX) return UINT32_MAX;
        if (m->ids[k] == id) return m->index[k];
    }
}

static void id_put(id_map *m, uint64_t id, uint32_t index) {
    size_t k = id_slot(id, m->cap);
    while (m->index[k] != UINT32_MAX) k = (k + 1) & (m->cap - 1);
    m->ids[k] = id;
    m->index[k] = index;
}

/* Adds id as the next index unless it is there; at most ONESCOPE_OSPC_MAX_ENTITIES. */
static onescope_code id_add(id_map *m, const onescope_allocator *a, uint64_t id,
                            onescope_error *error) {
    if (id_find(m, id) != UINT32_MAX) return ONESCOPE_OK;
    if (m->count == ONESCOPE_OSPC_MAX_ENTITIES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, ghost_name, OS_NO_OFFSET, "entities",
                                "at most 65536 entities over the frames (a pose cache's limit)",
                                "more");
    if ((size_t)m->count + 1 > m->cap / 2) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        id_map grown = {onescope_os_calloc(a, cap, sizeof *grown.ids),
                        onescope_os_alloc(a, cap * sizeof *grown.index), cap, m->count};
        if (grown.ids == NULL || grown.index == NULL) {
            onescope_os_free(a, grown.ids);
            onescope_os_free(a, grown.index);
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, ghost_name, OS_NO_OFFSET, "entities",
                                    NULL, "could not allocate memory");
        }
        memset(grown.index, 0xff, cap * sizeof *grown.index);
        for (size_t k = 0; k < m->cap; k++)
            if (m->index[k] != UINT32_MAX) id_put(&grown, m->ids[k], m->index[k]);
        onescope_os_free(a, m->ids);
        onescope_os_free(a, m->index);
        *m = grown;
    }
    id_put(m, id, m->count++);
    return ONESCOPE_OK;
}

typedef struct rec_ghost {
    const onescope_recording *recording;
    const onescope_module *module; /* the world's copy of the table once a world exists */
    const onescope_allocator *a;
    const char *name;
    uint32_t from, last;
    float offset[3];
    float nan;
    id_map ids;
    onescope_pose *poses; /* create: every frame */
    onescope_pose *frame; /* write: one frame, appended to writer */
    onescope_pose_writer *writer;
} rec_ghost;

typedef onescope_code rec_row_fn(rec_ghost *g, const onescope_world *w, uint32_t row,
                                 onescope_error *error);

typedef struct rec_walker {
    rec_ghost *g;
    rec_row_fn *at_row;
    onescope_error *error;
    onescope_code rc; /* at_row's failure, which stops the run */
} rec_walker;

static bool walk_row(void *user, const onescope_recording_row *row) {
    rec_walker *k = user;
    if (row->index >= k->g->from) k->rc = k->at_row(k->g, row->world, row->index, k->error);
    return k->rc != ONESCOPE_OK || row->index >= k->g->last;
}

/* Runs the recording from its start to row g->last (onescope_recording_run, the one run of a
 * module recording), calling at_row at rows from..last. */
static onescope_code rec_walk(rec_ghost *g, rec_row_fn *at_row, onescope_error *error) {
    rec_walker k = {g, at_row, error, ONESCOPE_OK};
    OS_TRY(onescope_recording_run(g->recording, g->module, g->a, walk_row, &k, g->name, error));
    return k.rc;
}

/* A ghost's entity id (docs/ghost.md): the module's, + 1 for a module whose ids count from 0;
 * else with 0, which a cache cannot hold, as all ones. */
static uint64_t cache_id(const onescope_module *t, uint64_t id) {
    if (t->flags & ONESCOPE_MODULE_IDS_FROM_ZERO) return id + 1;
    return id == 0 ? UINT64_MAX : id;
}

static onescope_code collect_ids(rec_ghost *g, const onescope_world *w, uint32_t row,
                                 onescope_error *error) {
    uint32_t n = onescope_world_entity_count(w);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = onescope_world_entity_id(w, i);
        OS_TRY(id_add(&g->ids, g->a, id, error));
        /* two ids, one cache id: 0 and all ones (or all ones alone, counting from 0) */
        bool zero_based = (onescope_world_module(w)->flags & ONESCOPE_MODULE_IDS_FROM_ZERO) != 0;
        uint64_t other = id == 0 ? UINT64_MAX : 0;
        if ((zero_based && id == UINT64_MAX) ||
            (!zero_based && (id == 0 || id == UINT64_MAX) && id_find(&g->ids, other) != UINT32_MAX))
            return onescope_os_fail(error, ONESCOPE_E_RANGE, g->name, OS_NO_OFFSET, "entity id",
                                    "ids a pose cache can keep (docs/ghost.md)",
                                    "%" PRIu64 " at row %" PRIu32 "%s", id, row,
                                    zero_based ? "" : " beside its other form");
    }
    return ONESCOPE_OK;
}

/* A pose the module gave for a present entity must be a pose a cache can hold (every value
 * finite, also once moved by the offset). One that is not is the module's fault at this row,
 * and the line says so naming the recording, the module, the step and the entity: never the
 * output the writer would have refused it for. */
static onescope_code rec_pose_check(const rec_ghost *g, const onescope_world *w, uint32_t row,
                                    uint64_t id, const onescope_pose *p, onescope_error *error) {
    static const char *const names[7] = {"position x", "position y", "position z", "rotation x",
                                         "rotation y", "rotation z", "rotation w"};
    for (int k = 0; k < 7; k++) {
        float v = k < 3 ? p->position[k] : p->rotation[k - 3];
        if (isfinite(v)) continue;
        char found[ONESCOPE_NUMBER_MAX_LENGTH + 1];
        onescope_number_format((double)v, found, sizeof found);
        char field[192]; /* row R is the world after step R - 1 (docs/recording.md) */
        snprintf(field, sizeof field, "module %s, row %" PRIu32 ": entity %" PRIu64 " pose %s",
                 onescope_world_module(w)->id, row, id, names[k]);
        onescope_os_fail(error, ONESCOPE_E_RANGE, g->name, OS_NO_OFFSET, field,
                         k < 3 && (g->offset[0] != 0 || g->offset[1] != 0 || g->offset[2] != 0)
                             ? "a finite number (the module's value plus the offset)"
                             : "a finite number",
                         "%s", found);
        return ONESCOPE_E_RANGE;
    }
    return ONESCOPE_OK;
}

/* One frame: every cache entity absent, then each the world has and poses, moved by offset. */
static onescope_code rec_frame(const rec_ghost *g, const onescope_world *w, uint32_t row,
                               onescope_pose *poses, onescope_error *error) {
    for (uint32_t k = 0; k < g->ids.count; k++) {
        memset(&poses[k], 0, sizeof poses[k]);
        poses[k].position[0] = g->nan;
        poses[k].rotation[3] = 1.0f;
    }
    uint32_t n = onescope_world_entity_count(w);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = onescope_world_entity_id(w, i);
        uint32_t k = id_find(&g->ids, id);
        onescope_pose p;
        if (k == UINT32_MAX || !onescope_world_entity_pose(w, i, &p)) continue;
        for (int a = 0; a < 3; a++) p.position[a] += g->offset[a];
        OS_TRY(rec_pose_check(g, w, row, id, &p, error));
        poses[k] = p;
    }
    return ONESCOPE_OK;
}

static onescope_code fill_rows(rec_ghost *g, const onescope_world *w, uint32_t row,
                               onescope_error *error) {
    return rec_frame(g, w, row, &g->poses[(size_t)(row - g->from) * g->ids.count], error);
}

static onescope_code append_rows(rec_ghost *g, const onescope_world *w, uint32_t row,
                                 onescope_error *error) {
    OS_TRY(rec_frame(g, w, row, g->frame, error));
    return onescope_pose_writer_append(g->writer, g->frame, g->ids.count, error);
}

/* The options, the recording against its module and the first pass (the entities), then the
 * cache's head: entities, texts and one frame. */
static onescope_code rec_plan(const onescope_recording *r, const onescope_module *module,
                              const onescope_ghost_options *options, const onescope_allocator *a,
                              onescope_ghost_options *o, rec_ghost *g, onescope_pose_cache **head,
                              onescope_error *error) {
    *head = NULL;
    memset(g, 0, sizeof *g);
    OS_TRY(take_options(options, o, error));
    g->name = o->name != NULL ? o->name : ghost_name;
    OS_TRY(onescope_recording_check(r, module, g->name, error));
    /* the table as a world holds it: members past the caller's struct_size read 0 */
    onescope_world *w;
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    OS_TRY(onescope_world_create(module, setup, setup_size, a, &w, error));
    onescope_module t = *onescope_world_module(w);
    onescope_world_free(w);
    if (t.entity_count == NULL)
        return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, g->name, OS_NO_OFFSET, "module",
                                "a module with entities (entity_count, entity_id, entity_pose)",
                                "module '%s' has none", t.id);
    uint8_t dims = t.dimensions == 2 ? 2 : 3;
    OS_TRY(check_range(o, onescope_recording_step_count(r), dims, "recording",
                       t.unit_name != NULL ? t.unit_name : "units", error));
    for (int i = 0; i < 3; i++) g->offset[i] = (float)o->offset[i];
    uint64_t last = (uint64_t)o->from + o->frames - 1;
    g->recording = r;
    g->module = module;
    g->a = a;
    g->from = o->from;
    g->last = (uint32_t)last;
    g->nan = absent_x();
    OS_TRY(rec_walk(g, collect_ids, error));

    onescope_pose_cache *c;
    OS_TRY(onescope_pose_cache_create(dims, g->ids.count, 1, a, &c, error));
    c->start_step = (int64_t)o->from; /* a recording's row i is step i */
    c->metres_per_unit = t.metres_per_unit > 0.0 ? t.metres_per_unit : 1.0;
    onescope_code rc = ONESCOPE_OK;
    char text[192];
    for (size_t k = 0; k < g->ids.cap && rc == ONESCOPE_OK; k++) {
        uint32_t i = g->ids.index[k];
        if (i == UINT32_MAX) continue;
        /* the module's own id, so ghosts of any ranges and the engine's own dumps name the
         * same entity alike; a cache's ids are non-zero, so the module's 0 is all ones */
        c->entities[i].id = cache_id(&t, g->ids.ids[k]);
        c->entities[i].shape = ONESCOPE_SHAPE_POINT;
        int n = snprintf(text, sizeof text, "entity %" PRIu64, g->ids.ids[k]);
        rc = onescope_pose_cache_set_entity_name(c, i, text, (size_t)n, error);
    }
    int n =
        snprintf(text, sizeof text, "%s %s, %" PRIu32 " entities", t.id, t.version, g->ids.count);
    const char *unit = t.unit_name != NULL ? t.unit_name : "unit";
    if (rc == ONESCOPE_OK) rc = set_texts(c, o, unit, t.id, text, (size_t)n, error);
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(c);
        return rc;
    }
    *head = c;
    return ONESCOPE_OK;
}

static void rec_done(rec_ghost *g) {
    onescope_os_free(g->a, g->ids.ids);
    onescope_os_free(g->a, g->ids.index);
}

onescope_code onescope_ghost_recording_create(const onescope_recording *recording,
                                              const onescope_module *module,
                                              const onescope_ghost_options *options,
                                              const onescope_allocator *a,
                                              onescope_pose_cache **out, onescope_error *error) {
    if (out != NULL) *out = NULL;
    if (recording == NULL || module == NULL || out == NULL)
        return relabel(onescope_os_fail(error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET, NULL,
                                        NULL, "recording, module and out must not be NULL"),
                       options, error);
    onescope_ghost_options o;
    rec_ghost g;
    onescope_pose_cache *c;
    onescope_code rc = rec_plan(recording, module, options, a, &o, &g, &c, error);
    if (rc == ONESCOPE_OK) rc = check_size(c, o.frames, ONESCOPE_MAX_INPUT_BYTES, error);
    if (rc == ONESCOPE_OK) {
        /* the head's one frame grows to every frame; the size check bounds it */
        onescope_pose *poses =
            onescope_os_calloc(c->allocator, (size_t)o.frames * g.ids.count, sizeof *poses);
        if (poses == NULL) {
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, ghost_name, OS_NO_OFFSET, "poses", NULL,
                                  "could not allocate memory");
        } else {
            onescope_os_free(c->allocator, c->poses);
            c->poses = poses;
            c->frame_count = o.frames;
            g.poses = poses;
            rc = rec_walk(&g, fill_rows, error);
        }
    }
    if (rc == ONESCOPE_OK) rc = onescope_pose_cache_validate(c, ghost_name, error);
    rec_done(&g);
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(c);
        return relabel(rc, options, error);
    }
    *out = c;
    return ONESCOPE_OK;
}

onescope_code onescope_ghost_recording_write(const onescope_recording *recording,
                                             const onescope_module *module,
                                             const onescope_ghost_options *options,
                                             const char *path,
                                             const onescope_pose_writer_options *writer_options,
                                             const onescope_allocator *a,
                                             onescope_ghost_result *result, onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (recording == NULL || module == NULL || path == NULL)
        return relabel(onescope_os_fail(error, ONESCOPE_E_ARGUMENT, ghost_name, OS_NO_OFFSET, NULL,
                                        NULL, "recording, module and path must not be NULL"),
                       options, error);
    onescope_ghost_options o;
    rec_ghost g;
    onescope_pose_cache *head;
    onescope_code rc = rec_plan(recording, module, options, a, &o, &g, &head, error);
    if (rc != ONESCOPE_OK) {
        rec_done(&g);
        return relabel(rc, options, error);
    }
    onescope_pose_writer_options wo =
        writer_options ? *writer_options : onescope_pose_writer_options_default();
    uint64_t limit = wo.max_segment_bytes == 0 || wo.max_segment_bytes > ONESCOPE_MAX_INPUT_BYTES
                         ? ONESCOPE_MAX_INPUT_BYTES
                         : wo.max_segment_bytes;
    rc = wo.segments ? ONESCOPE_OK : check_size(head, o.frames, limit, error);
    (void)relabel(rc, options, error);
    onescope_pose_writer *w = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_open(path, head, &wo, a, &w, error);
    if (rc == ONESCOPE_OK) {
        g.frame = head->poses; /* the head's one frame is the frame buffer */
        g.writer = w;
        rc = rec_walk(&g, append_rows, error);
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
    rec_done(&g);
    return rc;
}
