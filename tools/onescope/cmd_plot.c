/* onescope plot INPUT... -o OUT.svg|OUT.png: trajectories, fields and diffs as pictures
 * (docs/plot.md). Drawing goes through tools/plot/; this file only reads the inputs with the
 * public API and decides what to draw. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

/* The table is outside the cairo part: --help and the generated docs are the same in every
 * build. */
enum {
    OPT_OUTPUT,
    OPT_FROM,
    OPT_TO,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_TITLE,
    OPT_FIELD,
    OPT_STEP,
    OPT_DIFF,
    OPT_ENTITY
};
static const cli_option options[] = {
    [OPT_OUTPUT] = {"output", 'o', "OUT", "OUT.svg or OUT.png (required)"},
    [OPT_FROM] = {"from", 0, "STEP", "first host step drawn (default 0)"},
    [OPT_TO] = {"to", 0, "STEP", "last host step drawn (default the end)"},
    [OPT_WIDTH] = {"width", 0, "PX", "200..8192 pixels (default 1000, 3D 1400)"},
    [OPT_HEIGHT] = {"height", 0, "PX", "200..8192 pixels (default 760)"},
    [OPT_TITLE] = {"title", 0, "TEXT", "the title (default the inputs' names)"},
    [OPT_FIELD] = {"field", 0, "NAME", "density or occupancy: one replay's field at --step"},
    [OPT_STEP] = {"step", 0, "STEP", "the host step of --field"},
    [OPT_DIFF] = {"diff", 0, NULL, "the largest distance between A and B at every step"},
    [OPT_ENTITY] = {"entity", 0, "LIST", "only these entities: ids or names, comma-separated"},
};
const cli_spec cli_spec_plot = {
    .name = "plot",
    .operands = "INPUT... -o OUT.svg|OUT.png",
    .about = "Draws OSTM replays (the bodies' trajectories, run through the test module),\n"
             "module recordings (OSTM v2: the entities' paths, run through the module they\n"
             "name: the test module, or one loaded with --module) and OSPC pose caches (the\n"
             "entities' paths), overlaid with a legend naming each input; 2D as x-y, 3D as a\n"
             "top (x-z) and a side (x-y) view (a cache labelled up=z: x-y and x-z). Bodies\n"
             "and cache entities are coloured by index, a module's entities by id, with a\n"
             "key naming them; spawns, removals and link hand-overs are marked. --entity\n"
             "keeps the entities it names (a replay's body N is id N + 1, \"body N\").\n"
             "--from/--to keep host steps in a range (inclusive). The format comes from\n"
             "OUT's extension. Two more forms:\n"
             "onescope plot REPLAY.ostm --field density|occupancy --step STEP -o OUT\n"
             "  draws a replay's field on the 8 x 8 floor grid at a host step, with a colour\n"
             "  scale (test-module replays only);\n"
             "onescope plot --diff A B -o OUT\n"
             "  draws the largest distance between the entities of A and B (caches, or\n"
             "  replays and recordings as their ghosts) at every common step.\n",
    .exit_codes = "0 written; 1 an input is invalid or cannot be drawn (OUT is not created); 2 "
                  "usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

#ifndef ONESCOPE_HAVE_CAIRO

int cmd_plot(int argc, char **argv) {
    cli_args ca;
    int parsed = cli_parse(&cli_spec_plot, argc, argv, 0, -1, &ca);
    if (parsed != CLI_PARSE_RUN) return parsed;
    fprintf(stderr, "onescope plot: this build has no plot support (cairo was not found when it "
                    "was configured)\n");
    return CLI_FAIL;
}

#else

#include "../plot/plot.h"

#define MAX_INPUTS 8

typedef struct input {
    const char *path;
    /* One of src's replay, cache and rec; --diff adds a replay's or a recording's ghost as
     * src.cache (its shape's scale then the ghost's) */
    cli_drawable src;
} input;

/* One row of the colour key: an entity's name and palette index. */
typedef struct key_row {
    uint32_t colour;
    char name[48];
} key_row;
#define MAX_KEY 64
typedef struct plot_key {
    key_row rows[MAX_KEY];
    int count;
    uint64_t more; /* rows past MAX_KEY */
} plot_key;

typedef struct plot_args {
    const char *out;
    cli_entity_filter *filter; /* --entity (matches are marked as entities are met) */
    plot_key *key;             /* the colour key, filled as entities are drawn */
    plot_format format;
    int64_t from, to; /* host steps, inclusive */
    int width, height;
    const char *title;
    bool have_field, diff;
    onescope_field_id field;
    int64_t step;
} plot_args;

static void free_inputs(input *in, int n) {
    for (int i = 0; i < n; i++) {
        cli_drawable_close(&in[i].src);
    }
}

/* A row of the colour key, once per name and colour. */
static void key_add(plot_key *key, uint32_t colour, const char *name, size_t len) {
    for (int i = 0; i < key->count; i++)
        if (key->rows[i].colour == colour && strlen(key->rows[i].name) == len &&
            memcmp(key->rows[i].name, name, len) == 0)
            return;
    if (key->count == MAX_KEY) {
        key->more++;
        return;
    }
    key_row *k = &key->rows[key->count++];
    k->colour = colour;
    snprintf(k->name, sizeof k->name, "%.*s", (int)len, name);
}

/* Reads one input (cli_drawable_open). field: --field, which only a test-module replay has. */
static bool load(input *in, bool field) {
    cli_drawable_rules rules = {
        .command = "plot",
        .draws = "plot draws",
        .no_recording = field ? "--field: expected a test-module replay (OSTM v1, the only one "
                                "with the floor grid's fields)"
                              : NULL,
    };
    return cli_drawable_open(&in->src, in->path, &rules);
}

/* The axes of the views: 2D one x-y view; 3D a top view (x, z) and a side view (x, y), or for
 * a cache that records z as up (label up=z, docs/ots.md) top (x, y) and side (x, z). */
static const int view_axes[2][2][2] = {{{0, 2}, {0, 1}}, {{0, 1}, {0, 2}}};
static int up_axis = 1; /* 1 (y) or 2 (z), from the first input */
static int view_count(uint8_t dims) {
    return dims == 3 ? 2 : 1;
}
static int view_axis(uint8_t dims, int view, int k) {
    return dims == 3 ? view_axes[up_axis == 2][view][k] : k;
}

typedef struct bounds {
    double lo[3], hi[3];
    bool any;
} bounds;

static void grow(bounds *b, int axis, double v) {
    if (v < b->lo[axis]) b->lo[axis] = v;
    if (v > b->hi[axis]) b->hi[axis] = v;
}

static bool add_recording_bounds(const input *in, const plot_args *a, bounds *b);

static bool add_bounds(const input *in, const plot_args *a, bounds *b) {
    if (in->src.rec) return add_recording_bounds(in, a, b);
    if (in->src.replay) { /* the world's box */
        for (int k = 0; k < 3; k++) {
            grow(b, k, 0);
            grow(b, k, ONESCOPE_SIM_BOX * in->src.shape.scale);
        }
        b->any = true;
        return true;
    }
    const onescope_pose_cache *c = in->src.cache;
    for (uint32_t f = 0; f < c->frame_count; f++) {
        int64_t step = c->start_step + f;
        if (step < a->from || step > a->to) continue;
        for (uint32_t e = 0; e < c->entity_count; e++) {
            const onescope_pose_entity *pe = &c->entities[e];
            if (!cli_entity_filter_pass(a->filter, pe->id, pe->name.data, pe->name.length))
                continue;
            const onescope_pose *p = onescope_pose_cache_pose(c, f, e);
            if (!onescope_pose_is_present(p)) continue;
            for (int k = 0; k < 3; k++) grow(b, k, p->position[k] * in->src.shape.scale);
            b->any = true;
        }
    }
    return true;
}

/* ---- trajectories of a replay ---- */

typedef struct body_track {
    bool seen, alive;
    int8_t pass; /* --entity: 0 not asked yet, 1 drawn, -1 left out */
    int32_t pos[3];
    plot_path *path[2];
} body_track;

typedef struct replay_draw {
    plot_figure *f;
    const plot_args *a;
    const input *in;
    plot_dash dash;
    double unit; /* plotted units per metre */
    onescope_link_info link;
    body_track bodies[ONESCOPE_SIM_MAX_BODIES];
    uint64_t marks;
} replay_draw;

static void mark(replay_draw *d, plot_marker kind, uint32_t body, const int32_t pos[3]) {
    for (int v = 0; v < view_count(d->in->src.shape.dimensions); v++)
        plot_marker_at(
            d->f, v, kind,
            pos[view_axis(d->in->src.shape.dimensions, v, 0)] * d->in->src.shape.scale * d->unit,
            pos[view_axis(d->in->src.shape.dimensions, v, 1)] * d->in->src.shape.scale * d->unit,
            plot_palette(body));
    d->marks++;
}

static bool replay_row(void *user, const onescope_replay_row *row) {
    replay_draw *d = user;
    int64_t step = (int64_t)row->host_step;
    if (step < d->a->from) return false;
    if (step > d->a->to) return true;
    uint8_t dims = d->in->src.shape.dimensions;
    bool first_row = step == d->a->from || row->index == 0;
    for (uint32_t i = 0; i < onescope_sim_body_count(row->sim); i++) {
        onescope_sim_body_state s;
        onescope_sim_body(row->sim, i, &s);
        body_track *t = &d->bodies[i];
        if (t->pass == 0) { /* a body is id index + 1, "body N", as in its ghost */
            char name[24];
            int len = snprintf(name, sizeof name, "body %" PRIu32, i);
            t->pass = cli_entity_filter_pass(d->a->filter, i + 1, name, (size_t)len) ? 1 : -1;
            if (t->pass > 0) key_add(d->a->key, i, name, (size_t)len);
        }
        if (t->pass < 0) continue;
        bool handover = d->link.kind != ONESCOPE_LINK_KIND_NONE && d->link.body == i &&
                        (uint64_t)d->link.step == row->host_step;
        if (!t->seen) {
            t->seen = true;
            for (int v = 0; v < view_count(dims); v++)
                t->path[v] = plot_path_begin(d->f, v, plot_palette(i), d->dash, 2);
            /* a body the world gains after the first drawn row was spawned (or handed over) */
            if (s.alive && !first_row)
                mark(d, handover ? PLOT_MARK_HANDOVER : PLOT_MARK_SPAWN, i, s.position);
        } else if (t->alive && !s.alive) {
            mark(d, handover ? PLOT_MARK_HANDOVER : PLOT_MARK_REMOVE, i, t->pos);
        } else if (!t->alive && s.alive) {
            mark(d, handover ? PLOT_MARK_HANDOVER : PLOT_MARK_SPAWN, i, s.position);
        }
        if (s.alive) {
            /* a move faster than the world allows is a teleport: the line breaks there */
            bool jump = false;
            for (int k = 0; k < 3 && t->alive; k++)
                jump |= abs(s.position[k] - t->pos[k]) > ONESCOPE_SIM_MAX_SPEED;
            for (int v = 0; v < view_count(dims); v++) {
                if (jump || !t->alive) plot_path_break(t->path[v]);
                plot_path_point(
                    t->path[v],
                    s.position[view_axis(dims, v, 0)] * d->in->src.shape.scale * d->unit,
                    s.position[view_axis(dims, v, 1)] * d->in->src.shape.scale * d->unit);
            }
            memcpy(t->pos, s.position, sizeof t->pos);
        } else {
            for (int v = 0; v < view_count(dims); v++) plot_path_break(t->path[v]);
        }
        t->alive = s.alive != 0;
    }
    return false;
}

static bool draw_replay(plot_figure *f, const plot_args *a, const input *in, plot_dash dash,
                        double unit) {
    replay_draw *d = calloc(1, sizeof *d);
    if (d == NULL) return false;
    d->f = f;
    d->a = a;
    d->in = in;
    d->dash = dash;
    d->unit = unit;
    d->link = onescope_link_describe(&(onescope_link_block){
        onescope_replay_link(in->src.replay).role, onescope_replay_link(in->src.replay).body,
        onescope_replay_link(in->src.replay).transfer_step});
    onescope_error err;
    onescope_code rc = onescope_replay_run(in->src.replay, NULL, replay_row, d, &err);
    for (uint32_t i = 0; i < ONESCOPE_SIM_MAX_BODIES; i++)
        for (int v = 0; v < 2; v++) plot_path_end(d->bodies[i].path[v]);
    free(d);
    if (rc != ONESCOPE_OK) cli_print_error(&err);
    return rc == ONESCOPE_OK;
}

/* ---- entity paths of a module recording ---- */

/* One entity of a module's world, by its stable id: ids, not indices, follow an entity when
 * others come and go, and give its colour. */
typedef struct entity_track {
    bool used;
    bool alive; /* present at the last row drawn */
    uint64_t id;
    uint32_t row; /* the last row it was present */
    float pos[3];
    plot_path *path[2];
} entity_track;

/* At most a pose cache's entities, as the recording's ghost is bounded. */
#define MAX_TRACKS 65536u

typedef struct rec_draw {
    plot_figure *f; /* NULL: the bounds pass */
    const plot_args *a;
    const input *in;
    bounds *b;
    plot_dash dash;
    double unit;          /* plotted units per metre */
    entity_track *tracks; /* open addressing, at most half full */
    size_t cap;           /* a power of two, or 0 */
    uint32_t count;
    uint32_t alive; /* tracks present at the last row drawn */
    bool failed;    /* said on stderr; the run stopped */
} rec_draw;

static size_t track_slot(uint64_t id, size_t cap) {
    id ^= id >> 33; /* splitmix64's finaliser (the ghost's id map): every bit moves the slot */
    id *= 0xff51afd7ed558ccdu;
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

static entity_track *track_find(entity_track *t, size_t cap, uint64_t id) {
    size_t k = track_slot(id, cap);
    while (t[k].used && t[k].id != id) k = (k + 1) & (cap - 1);
    return &t[k];
}

/* The track of id (*fresh when made now); NULL, said, past MAX_TRACKS or out of memory. */
static entity_track *track_of(rec_draw *d, uint64_t id, bool *fresh) {
    *fresh = false;
    if (d->cap) {
        entity_track *t = track_find(d->tracks, d->cap, id);
        if (t->used) return t;
    }
    if (d->count == MAX_TRACKS) {
        fprintf(stderr, "%s: entities: expected at most %u distinct entity ids, found more\n",
                cli_shown(d->in->path), MAX_TRACKS);
        return NULL;
    }
    if ((size_t)d->count + 1 > d->cap / 2) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        entity_track *grown = calloc(cap, sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "onescope plot: out of memory\n");
            return NULL;
        }
        for (size_t k = 0; k < d->cap; k++)
            if (d->tracks[k].used) *track_find(grown, cap, d->tracks[k].id) = d->tracks[k];
        free(d->tracks);
        d->tracks = grown;
        d->cap = cap;
    }
    entity_track *t = track_find(d->tracks, d->cap, id);
    *t = (entity_track){.used = true, .id = id};
    d->count++;
    *fresh = true;
    return t;
}

static void rec_mark(rec_draw *d, plot_marker kind, const entity_track *t, const float pos[3]) {
    uint8_t dims = d->in->src.shape.dimensions;
    for (int v = 0; v < view_count(dims); v++)
        plot_marker_at(d->f, v, kind, pos[view_axis(dims, v, 0)] * d->in->src.shape.scale * d->unit,
                       pos[view_axis(dims, v, 1)] * d->in->src.shape.scale * d->unit,
                       plot_palette((uint32_t)(t->id % 12)));
}

static bool rec_row(void *user, const onescope_recording_row *row) {
    rec_draw *d = user;
    int64_t step = (int64_t)row->index;
    if (step < d->a->from) return false;
    if (step > d->a->to) return true;
    uint8_t dims = d->in->src.shape.dimensions;
    bool first_row = step == d->a->from || row->index == 0;
    uint32_t n = onescope_world_entity_count(row->world), present = 0;
    for (uint32_t i = 0; i < n; i++) {
        onescope_pose p;
        uint64_t id = onescope_world_entity_id(row->world, i);
        char name[40];
        int len = snprintf(name, sizeof name, "entity %" PRIu64, id);
        if (!cli_entity_filter_pass(d->a->filter, id, name, (size_t)len)) continue;
        if (!onescope_world_entity_pose(row->world, i, &p)) continue; /* absent here */
        if (!isfinite(p.position[0]) || !isfinite(p.position[1]) || !isfinite(p.position[2])) {
            char num[3][CLI_NUMBER_SIZE];
            fprintf(stderr,
                    "%s: row %" PRIu32 ": entity %" PRIu64
                    " position: expected finite coordinates, found %s, %s, %s\n",
                    cli_shown(d->in->path), row->index, id, cli_number_float(num[0], p.position[0]),
                    cli_number_float(num[1], p.position[1]),
                    cli_number_float(num[2], p.position[2]));
            d->failed = true;
            return true;
        }
        if (d->f == NULL) { /* the bounds pass */
            for (int k = 0; k < 3; k++) grow(d->b, k, p.position[k] * d->in->src.shape.scale);
            d->b->any = true;
            continue;
        }
        bool fresh;
        entity_track *t = track_of(d, id, &fresh);
        if (t == NULL) {
            d->failed = true;
            return true;
        }
        if (!fresh && t->alive && t->row == row->index) {
            /* two entities with one id would draw one zigzag line between them */
            fprintf(stderr,
                    "%s: row %" PRIu32
                    ": entity ids: expected each id once in a world, found %" PRIu64 " twice\n",
                    cli_shown(d->in->path), row->index, id);
            d->failed = true;
            return true;
        }
        if (fresh) key_add(d->a->key, (uint32_t)(id % 12), name, (size_t)len);
        if (fresh)
            for (int v = 0; v < view_count(dims); v++)
                t->path[v] =
                    plot_path_begin(d->f, v, plot_palette((uint32_t)(id % 12)), d->dash, 2);
        /* absent to present after the first drawn row: a spawn */
        if (!t->alive && !first_row) rec_mark(d, PLOT_MARK_SPAWN, t, p.position);
        for (int v = 0; v < view_count(dims); v++) {
            if (!t->alive) plot_path_break(t->path[v]);
            plot_path_point(t->path[v],
                            p.position[view_axis(dims, v, 0)] * d->in->src.shape.scale * d->unit,
                            p.position[view_axis(dims, v, 1)] * d->in->src.shape.scale * d->unit);
        }
        memcpy(t->pos, p.position, sizeof t->pos);
        d->alive += !t->alive;
        t->alive = true;
        t->row = row->index;
        present++;
    }
    /* present before, not now (gone from the world, or absent): a removal; looked for only
     * when fewer are present than were */
    if (d->f == NULL || present == d->alive) return false;
    for (size_t k = 0; k < d->cap; k++) {
        entity_track *t = &d->tracks[k];
        if (!t->used || !t->alive || t->row == row->index) continue;
        rec_mark(d, PLOT_MARK_REMOVE, t, t->pos);
        for (int v = 0; v < view_count(dims); v++) plot_path_break(t->path[v]);
        t->alive = false;
        d->alive--;
    }
    return false;
}

/* One run of the recording through its module: the bounds (f NULL) or the paths. */
static bool run_recording(rec_draw *d) {
    onescope_error err;
    onescope_code rc = onescope_recording_run(d->in->src.rec, d->in->src.shape.module, NULL,
                                              rec_row, d, d->in->src.name, &err);
    for (size_t k = 0; k < d->cap; k++)
        for (int v = 0; v < 2; v++) plot_path_end(d->tracks[k].path[v]);
    free(d->tracks);
    if (rc != ONESCOPE_OK) cli_print_error(&err);
    return rc == ONESCOPE_OK && !d->failed;
}

static bool add_recording_bounds(const input *in, const plot_args *a, bounds *b) {
    rec_draw d = {.a = a, .in = in, .b = b};
    return run_recording(&d);
}

static bool draw_recording(plot_figure *f, const plot_args *a, const input *in, plot_dash dash,
                           double unit) {
    rec_draw d = {.f = f, .a = a, .in = in, .dash = dash, .unit = unit};
    return run_recording(&d);
}

/* ---- entity paths of a pose cache ---- */

static void draw_cache(plot_figure *f, const plot_args *a, const input *in, plot_dash dash,
                       double unit) {
    const onescope_pose_cache *c = in->src.cache;
    uint8_t dims = c->dimensions;
    for (uint32_t e = 0; e < c->entity_count; e++) {
        const onescope_pose_entity *pe = &c->entities[e];
        if (!cli_entity_filter_pass(a->filter, pe->id, pe->name.data, pe->name.length)) continue;
        char name[40];
        int len = pe->name.length
                      ? snprintf(name, sizeof name, "%.*s", (int)pe->name.length, pe->name.data)
                      : snprintf(name, sizeof name, "entity %" PRIu64, pe->id);
        key_add(a->key, e, name, (size_t)len < sizeof name ? (size_t)len : sizeof name - 1);
        plot_path *path[2] = {NULL, NULL};
        for (int v = 0; v < view_count(dims); v++)
            path[v] = plot_path_begin(f, v, plot_palette(e), dash, 2);
        bool was = false, first = true;
        const onescope_pose *last = NULL;
        for (uint32_t fr = 0; fr < c->frame_count; fr++) {
            int64_t step = c->start_step + fr;
            if (step < a->from || step > a->to) continue;
            const onescope_pose *p = onescope_pose_cache_pose(c, fr, e);
            bool now = onescope_pose_is_present(p);
            const onescope_pose *at = now ? p : last;
            if (!first && now != was && at != NULL)
                for (int v = 0; v < view_count(dims); v++)
                    plot_marker_at(f, v, now ? PLOT_MARK_SPAWN : PLOT_MARK_REMOVE,
                                   at->position[view_axis(dims, v, 0)] * in->src.shape.scale * unit,
                                   at->position[view_axis(dims, v, 1)] * in->src.shape.scale * unit,
                                   plot_palette(e));
            for (int v = 0; v < view_count(dims); v++) {
                if (now)
                    plot_path_point(
                        path[v], p->position[view_axis(dims, v, 0)] * in->src.shape.scale * unit,
                        p->position[view_axis(dims, v, 1)] * in->src.shape.scale * unit);
                else
                    plot_path_break(path[v]);
            }
            if (now) last = p;
            was = now;
            first = false;
        }
        for (int v = 0; v < view_count(dims); v++) plot_path_end(path[v]);
    }
}

static const char *const axis_names[3] = {"x", "y", "z"};

static int plot_trajectories(plot_figure *f, const plot_args *a, input *in, int n) {
    uint8_t dims = in[0].src.shape.dimensions;
    bounds b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, false};
    for (int i = 0; i < n; i++) {
        if (in[i].src.shape.dimensions != dims ||
            in[i].src.shape.unitless != in[0].src.shape.unitless) {
            fprintf(stderr, "%s: cannot be overlaid on %s: %s\n", cli_shown(in[i].path),
                    cli_shown(in[0].path),
                    in[i].src.shape.dimensions != dims
                        ? "one is 2D, the other 3D"
                        : "one has metres per unit 0 (no unit), the other a unit");
            return CLI_FAIL;
        }
        if (in[i].src.last < a->from || in[i].src.first > a->to) {
            fprintf(stderr,
                    "%s: holds host steps %" PRId64 " to %" PRId64 ", none in --from/--to\n",
                    cli_shown(in[i].path), in[i].src.first, in[i].src.last);
            return CLI_FAIL;
        }
        if (!add_bounds(&in[i], a, &b)) return CLI_FAIL;
    }
    if (!b.any) {
        fprintf(stderr, "%s: no entity is present in the steps drawn\n", cli_shown(in[0].path));
        return CLI_FAIL;
    }
    double span = 0;
    for (int k = 0; k < 3; k++)
        if (b.hi[k] - b.lo[k] > span) span = b.hi[k] - b.lo[k];
    plot_unit u = in[0].src.shape.unitless ? (plot_unit){"units", 1} : plot_unit_for_span(span);
    plot_panels(f, view_count(dims));
    for (int v = 0; v < view_count(dims); v++) {
        int ax = view_axis(dims, v, 0), ay = view_axis(dims, v, 1);
        double pad = span * 0.02;
        char xl[64], yl[64], name[16];
        snprintf(xl, sizeof xl, "%s (%s)", axis_names[ax], u.name);
        snprintf(yl, sizeof yl, "%s (%s)", axis_names[ay], u.name);
        snprintf(name, sizeof name, "%s %s-%s",
                 dims == 2 ? ""
                 : v == 0  ? "top"
                           : "side",
                 axis_names[ax], axis_names[ay]);
        if (dims == 2) snprintf(name, sizeof name, "x-y");
        plot_panel_setup(f, v, name, (b.lo[ax] - pad) * u.per_metre, (b.hi[ax] + pad) * u.per_metre,
                         (b.lo[ay] - pad) * u.per_metre, (b.hi[ay] + pad) * u.per_metre, true, xl,
                         yl);
        plot_panel_axes(f, v);
    }
    for (int i = 0; i < n; i++) {
        plot_dash dash = (plot_dash)(i % PLOT_DASH_COUNT);
        if (in[i].src.replay) {
            if (!draw_replay(f, a, &in[i], dash, u.per_metre)) return CLI_FAIL;
        } else if (in[i].src.rec) {
            if (!draw_recording(f, a, &in[i], dash, u.per_metre)) return CLI_FAIL;
        } else {
            draw_cache(f, a, &in[i], dash, u.per_metre);
        }
        plot_legend_line(f, in[i].src.label, (plot_rgb){60, 60, 60}, dash);
    }
    plot_legend_marker(f, "spawn", PLOT_MARK_SPAWN);
    plot_legend_marker(f, "removal", PLOT_MARK_REMOVE);
    plot_legend_marker(f, "link hand-over", PLOT_MARK_HANDOVER);
    if (dims == 3) plot_legend_text(f, "left: top view, right: side");
    /* the colour key: each entity drawn, by name, while the column has room */
    plot_legend_text(f, "colours:");
    int shown = 0;
    for (; shown < a->key->count && !plot_legend_full(f); shown++)
        plot_legend_line(f, a->key->rows[shown].name, plot_palette(a->key->rows[shown].colour),
                         PLOT_SOLID);
    uint64_t more = a->key->more + (uint64_t)(a->key->count - shown);
    if (more) {
        char note[48];
        snprintf(note, sizeof note, "... %" PRIu64 " more", more);
        plot_legend_text(f, note);
    }
    return CLI_OK;
}

/* ---- a field at a step ---- */

typedef struct field_run {
    int64_t step;
    bool found;
    onescope_code rc;
    onescope_error err;
    int32_t values[ONESCOPE_SIM_GRID_TRIANGLES];
    onescope_field_id field;
} field_run;

static bool field_row(void *user, const onescope_replay_row *row) {
    field_run *r = user;
    if ((int64_t)row->host_step != r->step) return false;
    r->found = true;
    r->rc = onescope_sim_field(row->sim, r->field, r->values, ONESCOPE_SIM_GRID_TRIANGLES, &r->err);
    return true;
}

static int plot_field(plot_figure *f, const plot_args *a, const input *in) {
    if (in->src.replay == NULL) {
        fprintf(stderr, "%s: --field draws a replay's field; this is a pose cache\n",
                cli_shown(in->path));
        return CLI_FAIL;
    }
    if (onescope_replay_link(in->src.replay).role == ONESCOPE_LINK_ROLE_NONE) {
        fprintf(stderr, "%s: has no fields (no link block); --field needs a replay with one\n",
                cli_shown(in->path));
        return CLI_FAIL;
    }
    if (a->step < in->src.first || a->step > in->src.last) {
        fprintf(stderr,
                "%s: --step %" PRId64 " is outside its host steps %" PRId64 " to %" PRId64 "\n",
                cli_shown(in->path), a->step, in->src.first, in->src.last);
        return CLI_FAIL;
    }
    field_run r = {.step = a->step, .field = a->field};
    onescope_error err;
    if (onescope_replay_run(in->src.replay, NULL, field_row, &r, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (r.rc != ONESCOPE_OK) {
        cli_print_error(&r.err);
        return CLI_FAIL;
    }
    const onescope_field_overlay *o = onescope_field_describe(a->field);
    int32_t dmin = INT32_MAX, dmax = INT32_MIN;
    for (uint32_t i = 0; i < o->value_count; i++) {
        if (r.values[i] < dmin) dmin = r.values[i];
        if (r.values[i] > dmax) dmax = r.values[i];
    }
    /* the ramp spans the overlay's range, widened to the values so the scale covers them */
    double lo = dmin < o->value_min ? dmin : o->value_min;
    double hi = dmax > o->value_max ? dmax : o->value_max;
    uint8_t dims = in->src.shape.dimensions;
    const char *floor_axis = dims == 3 ? "z" : "y";
    char xl[32], yl[32];
    snprintf(xl, sizeof xl, "x (m)");
    snprintf(yl, sizeof yl, "%s (m)", floor_axis);
    plot_panels(f, 1);
    plot_panel_setup(f, 0, "floor", -0.2, 10.2, -0.2, 10.2, true, xl, yl);
    const double cell = 1.25; /* metres */
    for (uint32_t i = 0; i < o->value_count; i++) {
        double t = (r.values[i] - lo) / (hi - lo);
        double xy[8];
        int npts;
        if (o->location == ONESCOPE_FIELD_AT_VERTEX) { /* a tile around the vertex */
            double cx = (i % 9) * cell, cy = (double)(i / 9) * cell;
            double x0 = fmax(cx - cell / 2, 0), x1 = fmin(cx + cell / 2, 10);
            double y0 = fmax(cy - cell / 2, 0), y1 = fmin(cy + cell / 2, 10);
            double q[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
            memcpy(xy, q, sizeof q);
            npts = 4;
        } else { /* triangle 2c lower-left, 2c + 1 upper-right (docs/test-module.md) */
            uint32_t c = i / 2;
            double x = (c % 8) * cell, y = (double)(c / 8) * cell;
            if (i % 2 == 0) {
                double q[6] = {x, y, x + cell, y, x, y + cell};
                memcpy(xy, q, sizeof q);
            } else {
                double q[6] = {x + cell, y, x + cell, y + cell, x, y + cell};
                memcpy(xy, q, sizeof q);
            }
            npts = 3;
        }
        plot_cell(f, 0, xy, npts, plot_ramp(o->ramp, t), r.values[i]);
    }
    plot_panel_axes(f, 0);
    char label[96];
    snprintf(label, sizeof label, "%s per %s", o->field, o->location_name);
    plot_legend_line(f, in->src.label, (plot_rgb){60, 60, 60}, PLOT_SOLID);
    plot_legend_scale(f, o->ramp, lo, hi, label);
    snprintf(label, sizeof label, "host step %" PRId64, a->step);
    plot_legend_text(f, label);
    snprintf(label, sizeof label, "values %" PRId32 " to %" PRId32, dmin, dmax);
    plot_legend_text(f, label);
    return CLI_OK;
}

/* ---- the per-step error of a diff ---- */

typedef struct id_index {
    uint64_t id;
    uint32_t index;
} id_index;

static int by_id(const void *x, const void *y) {
    const id_index *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* A replay as its bodies, a module recording as its entities, over every row: the ghost of
 * the whole run, so ids match as they do between a run and its ghost (docs/ghost.md). */
static bool as_cache(input *in) {
    if (in->src.cache) return true;
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 0;
    o.frames = (in->src.rec ? onescope_recording_step_count(in->src.rec)
                            : onescope_replay_step_count(in->src.replay)) +
               1;
    o.name = in->src.name;
    onescope_error err;
    onescope_code rc = in->src.rec
                           ? onescope_ghost_recording_create(in->src.rec, in->src.shape.module, &o,
                                                             NULL, &in->src.cache, &err)
                           : onescope_ghost_create(in->src.replay, &o, NULL, &in->src.cache, &err);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return false;
    }
    /* a module that does not say its unit stays unitless (the ghost writes 1 for it) */
    in->src.shape.scale = in->src.shape.unitless ? 1 : in->src.cache->metres_per_unit;
    return true;
}

/* The largest distance at host step s between an entity of a and the entity of b with its id
 * (both present); -1 when no id is present on both sides. */
static double step_distance(const onescope_pose_cache *ca, const onescope_pose_cache *cb,
                            const id_index *ids, double sa, double sb, int64_t s) {
    uint32_t fa = (uint32_t)(s - ca->start_step), fb = (uint32_t)(s - cb->start_step);
    double m = -1;
    for (uint32_t e = 0; e < ca->entity_count; e++) {
        id_index key = {ca->entities[e].id, 0};
        const id_index *hit = bsearch(&key, ids, cb->entity_count, sizeof *ids, by_id);
        if (hit == NULL) continue;
        const onescope_pose *pa = onescope_pose_cache_pose(ca, fa, e);
        const onescope_pose *pb = onescope_pose_cache_pose(cb, fb, hit->index);
        if (!onescope_pose_is_present(pa) || !onescope_pose_is_present(pb)) continue;
        double d2 = 0;
        for (int k = 0; k < 3; k++) {
            double dk = pa->position[k] * sa - pb->position[k] * sb;
            d2 += dk * dk;
        }
        if (sqrt(d2) > m) m = sqrt(d2);
    }
    return m;
}

static int plot_diff(plot_figure *f, const plot_args *a, input *in) {
    if (!as_cache(&in[0]) || !as_cache(&in[1])) return CLI_FAIL;
    const onescope_pose_cache *ca = in[0].src.cache, *cb = in[1].src.cache;
    bool unitless = ca->metres_per_unit == 0 || cb->metres_per_unit == 0 ||
                    in[0].src.shape.unitless || in[1].src.shape.unitless;
    double sa = unitless ? 1 : ca->metres_per_unit, sb = unitless ? 1 : cb->metres_per_unit;
    int64_t lo = ca->start_step > cb->start_step ? ca->start_step : cb->start_step;
    int64_t hi = in[0].src.last < in[1].src.last ? in[0].src.last : in[1].src.last;
    if (lo < a->from) lo = a->from;
    if (hi > a->to) hi = a->to;
    if (lo > hi) {
        fprintf(stderr,
                "%s: holds host steps %" PRId64 " to %" PRId64 ", %s %" PRId64 " to %" PRId64
                ": no common step to compare\n",
                cli_shown(in[0].path), in[0].src.first, in[0].src.last, cli_shown(in[1].path),
                in[1].src.first, in[1].src.last);
        return CLI_FAIL;
    }
    /* b's entities by id, for matching a's */
    id_index *ids = malloc((cb->entity_count ? cb->entity_count : 1) * sizeof *ids);
    if (ids == NULL) {
        fprintf(stderr, "onescope plot: out of memory\n");
        return CLI_FAIL;
    }
    for (uint32_t e = 0; e < cb->entity_count; e++) ids[e] = (id_index){cb->entities[e].id, e};
    qsort(ids, cb->entity_count, sizeof *ids, by_id);
    /* Two passes over the steps, the largest distance first (for the axis), then the line:
     * nothing is held per step, the path keeps what its pixel columns need. Counted, not
     * `s <= hi; s++`: hi may be INT64_MAX. */
    double top = 0;
    for (uint64_t n = 0; n <= (uint64_t)(hi - lo); n++) {
        double m = step_distance(ca, cb, ids, sa, sb, lo + (int64_t)n);
        if (m > top) top = m;
    }
    plot_unit u = unitless ? (plot_unit){"units", 1} : plot_unit_for_span(top);
    char yl[64], xl[64] = "host step";
    snprintf(yl, sizeof yl, "largest distance (%s)", u.name);
    /* Steps past 2^52 are drawn from lo ("host step - lo"): a double tells such steps apart
     * no better than 1 in 2^52 (near 2^63, every step of a 3-frame cache was one x). hi - lo
     * is at most the frames both hold, exact in a double. */
    int64_t origin = hi > ((int64_t)1 << 52) ? lo : 0;
    if (origin) snprintf(xl, sizeof xl, "host step - %" PRId64, origin);
    plot_panels(f, 1);
    plot_panel_setup(f, 0, "diff", (double)(lo - origin),
                     hi > lo ? (double)(hi - origin) : (double)(lo - origin) + 1.0, 0,
                     top > 0 ? top * 1.1 * u.per_metre : 1, false, xl, yl);
    plot_panel_axes(f, 0);
    plot_path *p = plot_path_begin(f, 0, plot_palette(0), PLOT_SOLID, 2);
    for (uint64_t n = 0; n <= (uint64_t)(hi - lo); n++) {
        int64_t s = lo + (int64_t)n;
        double m = step_distance(ca, cb, ids, sa, sb, s);
        if (m < 0)
            plot_path_break(p); /* no entity present on both sides */
        else
            plot_path_point(p, (double)(s - origin), m * u.per_metre);
    }
    plot_path_end(p);
    free(ids);
    plot_legend_text(f, "A:");
    plot_legend_line(f, in[0].src.label, (plot_rgb){60, 60, 60}, PLOT_SOLID);
    plot_legend_text(f, "B:");
    plot_legend_line(f, in[1].src.label, (plot_rgb){60, 60, 60}, PLOT_DASHED);
    plot_legend_line(f, "largest distance, matched ids", plot_palette(0), PLOT_SOLID);
    return CLI_OK;
}

/* ---- options ---- */

static bool parse_step(const char *s, int64_t *out) {
    uint64_t v;
    if (!cli_parse_u64(s, INT64_MAX, &v)) return false;
    *out = (int64_t)v;
    return true;
}

int cmd_plot(int argc, char **argv) {
    static plot_key key; /* 64 rows of 52 bytes: off the stack */
    cli_entity_filter filter = {0};
    memset(&key, 0, sizeof key);
    plot_args a = {.from = 0,
                   .to = INT64_MAX,
                   .width = 0,
                   .height = 0,
                   .step = -1,
                   .filter = &filter,
                   .key = &key};
    input in[MAX_INPUTS];
    memset(in, 0, sizeof in);
    cli_args ca;
    int parsed = cli_parse(&cli_spec_plot, argc, argv, 0, -1, &ca);
    if (parsed != CLI_PARSE_RUN) return parsed;
    if (ca.operand_count > MAX_INPUTS)
        return cli_usage_error("plot", "takes at most %d inputs", MAX_INPUTS);
    int n = ca.operand_count;
    for (int i = 0; i < n; i++) in[i].path = ca.operands[i];
    a.diff = ca.seen[OPT_DIFF];
    if (ca.seen[OPT_OUTPUT]) a.out = ca.value[OPT_OUTPUT];
    if (ca.seen[OPT_TITLE]) a.title = ca.value[OPT_TITLE];
    for (int k = OPT_FROM; k <= OPT_TO; k++)
        if (ca.seen[k] && !parse_step(ca.value[k], k == OPT_FROM ? &a.from : &a.to))
            return cli_usage_error("plot", "--%s must be a host step (0 or more), not '%s'",
                                   options[k].name, ca.value[k]);
    if (ca.seen[OPT_STEP] && !parse_step(ca.value[OPT_STEP], &a.step))
        return cli_usage_error("plot", "--step must be a host step (0 or more), not '%s'",
                               ca.value[OPT_STEP]);
    for (int k = OPT_WIDTH; k <= OPT_HEIGHT; k++) {
        uint64_t px;
        if (!ca.seen[k]) continue;
        if (!cli_parse_u64(ca.value[k], 8192, &px) || px < 200)
            return cli_usage_error("plot", "--%s must be 200..8192 pixels, not '%s'",
                                   options[k].name, ca.value[k]);
        *(k == OPT_WIDTH ? &a.width : &a.height) = (int)px;
    }
    if (ca.seen[OPT_FIELD]) {
        const char *v = ca.value[OPT_FIELD];
        if (strcmp(v, "density") != 0 && strcmp(v, "occupancy") != 0)
            return cli_usage_error("plot", "--field must be density or occupancy, not '%s'", v);
        a.have_field = true;
        a.field = strcmp(v, "density") == 0 ? ONESCOPE_FIELD_DENSITY : ONESCOPE_FIELD_OCCUPANCY;
    }
    if (a.out == NULL) return cli_usage_error("plot", "needs -o OUT.svg or -o OUT.png");
    if (ca.seen[OPT_ENTITY] && (ca.seen[OPT_FIELD] || a.diff))
        return cli_usage_error("plot", "--entity filters trajectories, not --field or --diff");
    size_t len = strlen(a.out);
    if (len > 4 && strcmp(a.out + len - 4, ".svg") == 0)
        a.format = PLOT_SVG;
    else if (len > 4 && strcmp(a.out + len - 4, ".png") == 0)
        a.format = PLOT_PNG;
    else
        return cli_usage_error("plot", "OUT must end in .svg or .png, not '%s'", a.out);
    const char *no_png = a.format == PLOT_PNG ? plot_png_unavailable() : NULL;
    if (no_png != NULL) { /* before any input is read: a PNG without cairo is known at once */
        fprintf(stderr, "%s: PNG output needs cairo, which could not be loaded: %s\n",
                cli_shown(a.out), cli_shown(no_png));
        return CLI_FAIL;
    }
    if (n == 0) return cli_usage_error("plot", "needs at least one INPUT");
    if (a.from > a.to)
        return cli_usage_error("plot", "--from %" PRId64 " is after --to %" PRId64, a.from, a.to);
    if (a.have_field != (a.step >= 0))
        return cli_usage_error("plot", "--field and --step go together");
    if (a.have_field && (n != 1 || a.diff))
        return cli_usage_error("plot", "--field draws one replay");
    if (a.diff && n != 2) return cli_usage_error("plot", "--diff compares two inputs, A and B");
    for (int i = 0; i < n; i++)
        if (cli_refuse_same_file("plot", in[i].path, a.out)) return CLI_FAIL;
    if (!cli_check_output("plot", NULL, a.out)) return CLI_FAIL; /* -n */

    if (ca.seen[OPT_ENTITY] && !cli_entity_filter_parse(&filter, ca.value[OPT_ENTITY]))
        return cli_usage_error("plot",
                               "--entity must be up to 64 ids or names, comma-separated, "
                               "none empty, not '%s'",
                               ca.value[OPT_ENTITY]);
    for (int i = 0; i < n; i++)
        if (!load(&in[i], a.have_field)) {
            free_inputs(in, n);
            cli_entity_filter_free(&filter);
            return CLI_FAIL;
        }
    /* a z-up cache's top view looks down z (the first input decides for an overlay) */
    up_axis = 1;
    if (in[0].src.cache && strstr(in[0].src.cache->text[ONESCOPE_POSE_TEXT_LABEL].data
                                      ? in[0].src.cache->text[ONESCOPE_POSE_TEXT_LABEL].data
                                      : "",
                                  "up=z") != NULL)
        up_axis = 2;
    bool wide = !a.have_field && !a.diff && in[0].src.shape.dimensions == 3;
    if (a.width == 0) a.width = wide ? 1400 : 1000;
    if (a.height == 0) a.height = 760;
    /* the default title names the files */
    char title[512];
    if (a.title == NULL) {
        size_t at = (size_t)snprintf(title, sizeof title, "%s",
                                     a.diff         ? "diff: "
                                     : a.have_field ? "field: "
                                                    : "");
        for (int i = 0; i < n && at < sizeof title; i++)
            at += (size_t)snprintf(title + at, sizeof title - at, "%s%s",
                                   i ? (a.diff ? " vs " : ", ") : "", in[i].src.label);
        if (a.have_field && at < sizeof title)
            snprintf(title + at, sizeof title - at, " %s at step %" PRId64,
                     a.field == ONESCOPE_FIELD_DENSITY ? "density" : "occupancy", a.step);
        a.title = title;
    }
    plot_figure *f = plot_figure_create(a.format, a.width, a.height, a.title);
    int status = f == NULL      ? CLI_FAIL
                 : a.have_field ? plot_field(f, &a, &in[0])
                 : a.diff       ? plot_diff(f, &a, in)
                                : plot_trajectories(f, &a, in, n);
    free_inputs(in, n);
    if (status == CLI_OK && cli_entity_filter_unmatched(&filter) != NULL) {
        /* said before anything is written: an id or name no input has */
        status = cli_usage_error("plot", "--entity: no input has an entity '%s' (by id or name)",
                                 cli_entity_filter_unmatched(&filter));
    }
    cli_entity_filter_free(&filter);
    uint64_t series = 0, dropped = 0;
    if (status == CLI_OK && plot_simplified(f, &series, &dropped)) {
        /* said in the picture and once on stderr */
        char note[96];
        snprintf(note, sizeof note, "simplified (%" PRIu64 " lines)", series);
        plot_legend_text(f, note);
        if (dropped) {
            snprintf(note, sizeof note, "simplified (%" PRIu64 " marks not drawn)", dropped);
            plot_legend_text(f, note);
        }
    }
    if (status == CLI_OK) {
        uint8_t *data;
        size_t size;
        onescope_error err;
        if (!plot_figure_render(f, &data, &size)) {
            if (plot_too_large(f))
                fprintf(stderr,
                        "%s: output size: expected at most %zu bytes (the parsers' default input "
                        "limit), found more; not written\n",
                        cli_shown(a.out), (size_t)ONESCOPE_MAX_INPUT_BYTES);
            else
                fprintf(stderr, "%s: drawing failed (out of memory or cairo error); not written\n",
                        cli_shown(a.out));
            status = CLI_FAIL;
        } else {
            if (onescope_file_write(a.out, data, size, &err) != ONESCOPE_OK) {
                cli_print_error(&err);
                status = CLI_FAIL;
            } else {
                if (series || dropped)
                    fprintf(stderr,
                            "%s: simplified: %" PRIu64 " line%s kept only their extremes per "
                            "pixel column, %" PRIu64 " markers past %u not drawn\n",
                            cli_shown(a.out), series, series == 1 ? "" : "s", dropped,
                            PLOT_MAX_MARKERS);
            }
            if (status == CLI_OK && cli.verbose) {
                uint64_t kept, given;
                plot_path_counts(f, &kept, &given);
                fprintf(stderr, "%s: %zu bytes, %" PRIu64 " of %" PRIu64 " points kept\n",
                        cli_shown(a.out), size, kept, given);
            }
            free(data);
        }
    } else if (f == NULL) {
        fprintf(stderr, "onescope plot: out of memory\n");
    }
    plot_figure_free(f);
    return status;
}

#endif
