/* onescope view INPUT... -o OUT.html: one self-contained page to scrub through runs
 * (docs/view.md). This file reads the inputs with the public API, keeps the steps the
 * decimation rule keeps, and writes them as JSON inside the page; the page's script and style
 * are tools/onescope/view/view.js and view.css, embedded at build time (cmake/embed.cmake). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

extern const char view_js[];
extern const char view_css[];

enum { OPT_OUTPUT, OPT_DIFF, OPT_ENTITY, OPT_TRAIL, OPT_MAX_BYTES, OPT_TITLE };
static const cli_option options[] = {
    [OPT_OUTPUT] = {"output", 'o', "OUT", "OUT.html (required)"},
    [OPT_DIFF] = {"diff", 0, NULL, "A B: where the two runs part, marked on the timeline"},
    [OPT_ENTITY] = {"entity", 0, "LIST", "only these entities: ids or names, comma-separated"},
    [OPT_TRAIL] = {"trail", 0, "N", "steps of trail behind each entity (default 20)"},
    [OPT_MAX_BYTES] = {"max-bytes", 0, "N", "page data budget in bytes (default 4000000)"},
    [OPT_TITLE] = {"title", 0, "TEXT", "the page's title (default the inputs' names)"},
};
const cli_spec cli_spec_view = {
    .name = "view",
    .operands = "INPUT... -o OUT.html",
    .about = "Writes one self-contained HTML page (no network: it opens from file://) holding\n"
             "the runs of OSTM replays, module recordings (their entities and named values,\n"
             "run through their module) and OSPC pose caches: a timeline with a scrubber,\n"
             "play and pause, every entity at the current step with a trail, 2D, or 3D with\n"
             "an orbiting orthographic camera, the inputs overlaid with a legend, an entity's\n"
             "values on hover or click, and a replay's fields as a colour map.\n"
             "Long runs are decimated to keep the page under --max-bytes (every k-th step;\n"
             "the page says so). With --diff, A and B are compared by the library's diff\n"
             "and the page marks the first step where they part, with a strip chart of\n"
             "the largest distance per step and the differing entities highlighted.\n",
    .exit_codes = "0 written; 1 an input is invalid or cannot be shown (OUT is not created); 2 "
                  "usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

#define MAX_INPUTS 8
#define DENSE_HALF 64 /* diff: every step this close to the divergence is kept, budget allowing */

typedef struct vin {
    const char *path;
    cli_drawable src;
    uint32_t est_entities; /* known before running: the decimation's first estimate */
    uint32_t cols;         /* numbers per entity in a frame */
    uint8_t up;            /* 1 (y) or 2 (z): a cache's label up=z */
} vin;

/* The steps a page keeps (docs/view.md, "Long runs"): the grid base + j every, the marks
 * (each input's first and last step, and the divergence), and, with a divergence, every step
 * within half of it. One rule for every input, so overlays line up. Steps are never walked:
 * each row an input holds is asked, so the cost follows the rows, not the step numbers. */
typedef struct keep_rule {
    int64_t base, every;
    int64_t no_grid; /* an every this large keeps no grid step but base: only the marks */
    int64_t marks[2 * MAX_INPUTS + 1];
    int mark_count;
    bool diverged;
    int64_t divergence, half;
} keep_rule;

enum { KEPT_NOT, KEPT_GRID, KEPT_MARK, KEPT_DENSE };

static int kept(const keep_rule *k, int64_t s) {
    /* s >= base >= 0: no overflow. Without a grid only base is on it (a far input's steps
     * could fall on a multiple of every) */
    if (k->every < k->no_grid ? (s - k->base) % k->every == 0 : s == k->base) return KEPT_GRID;
    for (int i = 0; i < k->mark_count; i++)
        if (k->marks[i] == s) return KEPT_MARK;
    /* both >= 0: the distance cannot overflow, as s + half could near INT64_MAX */
    if (k->diverged && (s >= k->divergence ? s - k->divergence : k->divergence - s) <= k->half)
        return KEPT_DENSE;
    return KEPT_NOT;
}

/* ---- JSON text: safe inside <script> whatever the bytes ---- */

/* A JSON string: '<', '>' and '&' as \u escapes (no "</script>" or "<!--" can form), control
 * characters escaped, U+2028/9 escaped, and each byte that is not part of valid UTF-8 (the
 * library's rule) replaced by U+FFFD. n bytes of s (names may hold U+0000). */
static void jstr(FILE *o, const char *s, size_t n) {
    fputc('"', o);
    for (size_t i = 0; i < n;) {
        unsigned c = (unsigned char)s[i];
        uint32_t cp = 0;
        size_t len = onescope_error_utf8_char(s + i, n - i, &cp);
        if (len == 0) {
            fputs("\\ufffd", o);
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", (char)c);
        else if (c == '\n')
            fputs("\\n", o);
        else if (c == '\t')
            fputs("\\t", o);
        else if (c == '\r')
            fputs("\\r", o);
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&' || cp == 0x2028 ||
                 cp == 0x2029) /* the last two end a line in older JavaScript */
            fprintf(o, "\\u%04x", (unsigned)cp);
        else
            fwrite(s + i, 1, len, o);
        i += len;
    }
    fputc('"', o);
}
static void jcstr(FILE *o, const char *s) {
    jstr(o, s ? s : "", s ? strlen(s) : 0);
}
/* The shortest text that reads back as v: a value that came from a float (a cache's or a
 * module's pose) as the shortest float, so the page stays small and a hover shows exact digits. */
static void jnum(FILE *o, double v) {
    if (!isfinite(v)) {
        fputs("null", o);
        return;
    }
    char buf[ONESCOPE_NUMBER_MAX_LENGTH + 1];
    bool single = fabs(v) <= FLT_MAX && (double)(float)v == v; /* no cast out of float's range */
    size_t n = single ? onescope_number_format_float((float)v, buf, sizeof buf)
                      : onescope_number_format(v, buf, sizeof buf);
    fwrite(buf, 1, n, o);
}

/* ---- the page's data, charged as it is written ---- */

/* The data block being written: --max-bytes is a bound on its bytes, checked as they are
 * written (an entity's numbers at a time), so an attempt stops as soon as it passes the budget
 * and memory never holds much more than the budget. */
typedef struct page {
    FILE *o;
    long start;      /* the data block's first byte in o */
    uint64_t budget; /* --max-bytes */
    uint64_t held;   /* data written outside o so far (a replay's fields), charged too */
    bool over;
    /* what an attempt saw, for the rule of the next one */
    uint64_t rows_seen;   /* rows (frames) of the inputs run through so far */
    uint64_t dense_bytes; /* written for steps kept only for being near the divergence */
    uint64_t data_bytes;  /* the data block's size, once complete */
} page;

static uint64_t page_bytes(const page *p) {
    long at = ftell(p->o);
    if (at < 0) return UINT64_MAX;
    return (at > p->start ? (uint64_t)(at - p->start) : 0) + p->held;
}
static bool page_over(page *p) {
    if (!p->over && page_bytes(p) > p->budget) p->over = true;
    return p->over;
}

/* ---- inputs ---- */

/* The bodies a replay's world ever holds (its last row's count: removal keeps an index), for
 * the decimation's first estimate: a run of the test module is cheap next to the page. */
static bool count_bodies(void *user, const onescope_replay_row *row) {
    uint32_t *n = user;
    if (onescope_sim_body_count(row->sim) > *n) *n = onescope_sim_body_count(row->sim);
    return false;
}

static bool load(vin *in) {
    cli_drawable_rules rules = {.command = "view", .draws = "view shows", .map = true};
    if (!cli_drawable_open(&in->src, in->path, &rules)) return false;
    const cli_drawable *d = &in->src;
    in->up = 1;
    in->est_entities = d->shape.entities;
    in->cols = (uint32_t)d->shape.dimensions + d->shape.values;
    if (d->replay) {
        onescope_error err;
        if (onescope_replay_run(d->replay, NULL, count_bodies, &in->est_entities, &err) !=
            ONESCOPE_OK) {
            cli_print_error(&err);
            return false;
        }
    } else if (d->cache) {
        const onescope_text *label = &d->cache->text[ONESCOPE_POSE_TEXT_LABEL];
        /* the axis a converted clip records (docs/ots.md, "up axis") */
        if (label->length >= 4 && strstr(label->data, "up=z") != NULL) in->up = 2;
    }
    return true;
}

static void free_inputs(vin *in, int n) {
    for (int i = 0; i < n; i++) {
        cli_drawable_close(&in[i].src);
    }
}

/* ---- writing one run ---- */

typedef enum { RUN_OK, RUN_OVER, RUN_FAIL } run_result;

typedef struct run_out {
    page *pg;
    const keep_rule *keep;
    cli_entity_filter *f;
    vin *in;
    /* the steps kept, written after the frames (and handed to the caller) */
    int64_t *steps;
    size_t step_count, step_cap;
    bool failed; /* a line was printed */
    /* entities met so far, in slot order */
    uint64_t *ids;
    uint32_t slots, slot_cap;
    /* replay: the slot of each body (-1: none yet, -2: filtered out) */
    int32_t body_slot[ONESCOPE_SIM_MAX_BODIES];
    /* recording: id -> slot (open addressing; value slot+1, 0 empty); -1 slots are filtered */
    uint64_t *hkeys;
    int64_t *hvals;
    size_t hcap;
    /* one frame: the slots of the entities present and their numbers (cols each) */
    uint32_t *fslot;
    double *fval;
    size_t fcount, fcap;
    bool first_frame;
    /* a replay's fields, one JSON array per field, written as the run goes */
    FILE *field[2];
    char *field_buf[2];
    size_t field_size[2];
} run_out;

static bool oom(run_out *r) {
    fprintf(stderr, "onescope view: out of memory\n");
    r->failed = true;
    return true; /* stops the run */
}

static bool push_step(run_out *r, int64_t s) {
    if (r->step_count == r->step_cap) {
        size_t cap = r->step_cap ? r->step_cap * 2 : 1024;
        int64_t *g = realloc(r->steps, cap * sizeof *g);
        if (g == NULL) return false;
        r->steps = g;
        r->step_cap = cap;
    }
    r->steps[r->step_count++] = s;
    return true;
}

static int64_t add_slot(run_out *r, uint64_t id) {
    if (r->slots == r->slot_cap) {
        if (r->slot_cap > UINT32_MAX / 2) return -1;
        uint32_t cap = r->slot_cap ? r->slot_cap * 2 : 64;
        uint64_t *g = realloc(r->ids, cap * sizeof *g);
        if (g == NULL) return -1;
        r->ids = g;
        r->slot_cap = cap;
    }
    r->ids[r->slots] = id;
    return (int64_t)r->slots++;
}

/* Room for one more entity in the frame: its cols numbers, NaN (null) until set. */
static double *frame_add(run_out *r, uint32_t slot) {
    size_t cols = r->in->cols;
    if (r->fcount == r->fcap) {
        size_t cap = r->fcap ? r->fcap * 2 : 64;
        if (cap > SIZE_MAX / (cols * sizeof(double))) return NULL; /* a 32-bit build's limit */
        uint32_t *s = realloc(r->fslot, cap * sizeof *s);
        if (s == NULL) return NULL;
        r->fslot = s;
        double *v = realloc(r->fval, cap * cols * sizeof *v);
        if (v == NULL) return NULL;
        r->fval = v;
        r->fcap = cap;
    }
    r->fslot[r->fcount] = slot;
    double *v = r->fval + r->fcount++ * cols;
    for (size_t k = 0; k < cols; k++) v[k] = NAN;
    return v;
}

/* The frame as the page holds it (docs/view.md, "The data"): groups of entities in
 * consecutive slots, each "slot,count" then count x cols numbers; an entity absent at this
 * step is in no group, so a frame's size follows the entities present, not those ever met.
 * False when the page passed its budget. */
static bool frame_write(run_out *r, int why) {
    FILE *o = r->pg->o;
    long before = ftell(o);
    size_t cols = r->in->cols;
    fputs(r->first_frame ? "[" : ",[", o);
    r->first_frame = false;
    for (size_t i = 0; i < r->fcount;) {
        size_t n = 1;
        while (i + n < r->fcount && r->fslot[i + n] == r->fslot[i] + n) n++;
        fprintf(o, "%s%" PRIu32 ",%zu", i ? "," : "", r->fslot[i], n);
        for (size_t j = i; j < i + n; j++) {
            for (size_t k = 0; k < cols; k++) {
                fputc(',', o);
                jnum(o, r->fval[j * cols + k]);
            }
            if (page_over(r->pg)) return false;
        }
        i += n;
    }
    fputc(']', o);
    r->fcount = 0;
    if (why == KEPT_DENSE && before >= 0) r->pg->dense_bytes += (uint64_t)(ftell(o) - before);
    return !page_over(r->pg);
}

static bool replay_row(void *user, const onescope_replay_row *row) {
    run_out *r = user;
    r->pg->rows_seen++;
    int64_t s = (int64_t)row->host_step;
    int why = kept(r->keep, s);
    if (why == KEPT_NOT) return false;
    uint32_t n = onescope_sim_body_count(row->sim);
    uint8_t dims = r->in->src.shape.dimensions;
    if (!push_step(r, s)) return oom(r);
    for (uint32_t i = 0; i < n; i++) {
        onescope_sim_body_state b;
        onescope_sim_body(row->sim, i, &b);
        if (!b.alive) continue;
        if (r->body_slot[i] == -1) {
            char name[32];
            int len = snprintf(name, sizeof name, "body %" PRIu32, i);
            if (!cli_entity_filter_pass(r->f, i + 1, name, (size_t)len)) {
                r->body_slot[i] = -2;
            } else {
                int64_t slot = add_slot(r, i + 1);
                if (slot < 0) return oom(r);
                r->body_slot[i] = (int32_t)slot;
            }
        }
        if (r->body_slot[i] < 0) continue;
        double *v = frame_add(r, (uint32_t)r->body_slot[i]);
        if (v == NULL) return oom(r);
        for (int k = 0; k < dims; k++) {
            v[k] = b.position[k];
            v[dims + k] = b.velocity[k];
        }
    }
    if (!frame_write(r, why)) return true;
    if (r->field[0]) {
        long held = 0;
        for (int fi = 0; fi < 2; fi++) {
            int32_t vals[ONESCOPE_SIM_GRID_TRIANGLES];
            onescope_field_id id = fi == 0 ? ONESCOPE_FIELD_DENSITY : ONESCOPE_FIELD_OCCUPANCY;
            const onescope_field_overlay *ov = onescope_field_describe(id);
            onescope_error err;
            if (onescope_sim_field(row->sim, id, vals, ONESCOPE_SIM_GRID_TRIANGLES, &err) !=
                ONESCOPE_OK) {
                cli_print_error(&err);
                r->failed = true;
                return true;
            }
            fputs(r->step_count > 1 ? ",[" : "[", r->field[fi]);
            for (uint32_t k = 0; k < ov->value_count; k++)
                fprintf(r->field[fi], "%s%" PRId32, k ? "," : "", vals[k]);
            fputc(']', r->field[fi]);
            long at = ftell(r->field[fi]);
            held += at > 0 ? at : 0;
        }
        r->pg->held = (uint64_t)held;
        if (page_over(r->pg)) return true;
    }
    return false;
}

static size_t hslot(uint64_t id, size_t cap) {
    id ^= id >> 33; /* splitmix64's finaliser: every bit moves the slot */
    id *= 0xff51afd7ed558ccdu;
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

/* The slot of a recording's entity id (-2: filtered out; -1: out of memory). */
static int64_t rec_slot(run_out *r, uint64_t id) {
    if (r->hcap) {
        size_t k = hslot(id, r->hcap);
        while (r->hvals[k] && r->hkeys[k] != id) k = (k + 1) & (r->hcap - 1);
        if (r->hvals[k]) return r->hvals[k] - 1 >= 0 ? r->hvals[k] - 1 : -2;
    }
    if ((r->slots + 1) * 2 > r->hcap || r->hcap == 0) {
        size_t cap = r->hcap ? r->hcap * 2 : 256;
        while (cap < (size_t)(r->slots + 1) * 4) cap *= 2;
        uint64_t *keys = calloc(cap, sizeof *keys);
        int64_t *vals = calloc(cap, sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        for (size_t k = 0; k < r->hcap; k++)
            if (r->hvals[k]) {
                size_t j = hslot(r->hkeys[k], cap);
                while (vals[j]) j = (j + 1) & (cap - 1);
                keys[j] = r->hkeys[k];
                vals[j] = r->hvals[k];
            }
        free(r->hkeys);
        free(r->hvals);
        r->hkeys = keys;
        r->hvals = vals;
        r->hcap = cap;
    }
    char name[40];
    int len = snprintf(name, sizeof name, "entity %" PRIu64, id);
    int64_t slot = -2;
    if (cli_entity_filter_pass(r->f, id, name, (size_t)len)) {
        slot = add_slot(r, id);
        if (slot < 0) return -1;
    }
    size_t k = hslot(id, r->hcap);
    while (r->hvals[k]) k = (k + 1) & (r->hcap - 1);
    r->hkeys[k] = id;
    r->hvals[k] = slot >= 0 ? slot + 1 : -1; /* -1: met and filtered out */
    return slot;
}

static bool rec_row(void *user, const onescope_recording_row *row) {
    run_out *r = user;
    r->pg->rows_seen++;
    int64_t s = row->index;
    int why = kept(r->keep, s);
    if (why == KEPT_NOT) return false;
    uint32_t n = onescope_world_entity_count(row->world);
    uint8_t dims = r->in->src.shape.dimensions;
    if (!push_step(r, s)) return oom(r);
    for (uint32_t i = 0; i < n; i++) {
        onescope_pose p;
        if (!onescope_world_entity_pose(row->world, i, &p)) continue; /* absent */
        int64_t slot = rec_slot(r, onescope_world_entity_id(row->world, i));
        if (slot == -1) return oom(r);
        if (slot < 0) continue;
        double *v = frame_add(r, (uint32_t)slot);
        if (v == NULL) return oom(r);
        for (int k = 0; k < dims; k++) v[k] = p.position[k];
        if (r->in->cols > dims) {
            onescope_error err;
            if (onescope_world_entity_values(row->world, i, v + dims, r->in->cols - dims, &err) !=
                ONESCOPE_OK) {
                cli_print_error(&err);
                r->failed = true;
                return true;
            }
        }
    }
    return !frame_write(r, why);
}

static run_result cache_frames(run_out *r) {
    const onescope_pose_cache *c = r->in->src.cache;
    uint8_t dims = c->dimensions;
    int64_t *slot_of = malloc((c->entity_count ? c->entity_count : 1) * sizeof *slot_of);
    if (slot_of == NULL) {
        oom(r);
        return RUN_FAIL;
    }
    for (uint32_t e = 0; e < c->entity_count; e++) {
        const onescope_pose_entity *pe = &c->entities[e];
        slot_of[e] = cli_entity_filter_pass(r->f, pe->id, pe->name.data, pe->name.length)
                         ? add_slot(r, pe->id)
                         : -2;
        if (slot_of[e] == -1) {
            free(slot_of);
            oom(r);
            return RUN_FAIL;
        }
    }
    run_result res = RUN_OK;
    for (uint32_t f = 0; f < c->frame_count && res == RUN_OK; f++) {
        r->pg->rows_seen++;
        int64_t s = c->start_step + (int64_t)f; /* the format keeps the last step <= INT64_MAX */
        int why = kept(r->keep, s);
        if (why == KEPT_NOT) continue;
        if (!push_step(r, s)) {
            oom(r);
            res = RUN_FAIL;
            break;
        }
        for (uint32_t e = 0; e < c->entity_count; e++) {
            const onescope_pose *p = onescope_pose_cache_pose(c, f, e);
            if (slot_of[e] < 0 || !onescope_pose_is_present(p)) continue;
            double *v = frame_add(r, (uint32_t)slot_of[e]);
            if (v == NULL) {
                oom(r);
                res = RUN_FAIL;
                break;
            }
            for (int k = 0; k < dims; k++) v[k] = p->position[k];
        }
        if (res == RUN_OK && !frame_write(r, why)) res = RUN_OVER;
    }
    free(slot_of);
    return res;
}

static const char *const axis_names[3] = {"x", "y", "z"};

/* A 64-bit id or step as the page holds it: a JSON string of its decimal digits, so a script
 * keeps it exact (a JavaScript number holds integers exactly only up to 2^53). */
static void jid(FILE *o, uint64_t v) {
    fprintf(o, "\"%" PRIu64 "\"", v);
}

/* One run object of the page's JSON. Its kept steps go to *steps (the caller frees them). */
static run_result write_run(page *pg, vin *in, const keep_rule *keep, cli_entity_filter *f,
                            int64_t **steps, size_t *step_count) {
    FILE *o = pg->o;
    run_out r = {.pg = pg, .keep = keep, .f = f, .in = in, .first_frame = true};
    for (uint32_t i = 0; i < ONESCOPE_SIM_MAX_BODIES; i++) r.body_slot[i] = -1;
    fputs("{\"name\":", o);
    jcstr(o, in->src.label);
    fprintf(o, ",\"kind\":\"%s\",\"scale\":",
            in->src.replay ? "replay"
            : in->src.rec  ? "recording"
                           : "cache");
    jnum(o, in->src.shape.scale);
    fputs(",\"unit\":", o);
    jcstr(o, in->src.shape.unit);
    fputs(",\"frames\":[", o);
    run_result res = RUN_OK;
    onescope_error err;
    if (in->src.replay) {
        if (onescope_replay_link(in->src.replay).role != ONESCOPE_LINK_ROLE_NONE)
            for (int fi = 0; fi < 2; fi++) {
                r.field[fi] = open_memstream(&r.field_buf[fi], &r.field_size[fi]);
                if (r.field[fi] == NULL) {
                    oom(&r);
                    res = RUN_FAIL;
                }
            }
        if (res == RUN_OK &&
            onescope_replay_run(in->src.replay, NULL, replay_row, &r, &err) != ONESCOPE_OK) {
            cli_print_error(&err);
            res = RUN_FAIL;
        }
    } else if (in->src.rec) {
        if (onescope_recording_run(in->src.rec, in->src.shape.module, NULL, rec_row, &r,
                                   in->src.name, &err) != ONESCOPE_OK) {
            cli_print_error(&err);
            res = RUN_FAIL;
        }
    } else {
        res = cache_frames(&r);
    }
    if (r.failed) res = RUN_FAIL;
    if (res == RUN_OK && pg->over) res = RUN_OVER;
    if (res == RUN_OK) {
        fputs("],\"steps\":[", o);
        for (size_t i = 0; i < r.step_count && !page_over(pg); i++) {
            if (i) fputc(',', o);
            jid(o, (uint64_t)r.steps[i]);
        }
        fputs("],\"entities\":[", o);
        for (uint32_t i = 0; i < r.slots && !page_over(pg); i++) {
            /* c: the palette index, as plot colours: a body's index, a cache entity's index, a
             * module entity's id */
            uint64_t colour = in->src.replay ? r.ids[i] - 1 : r.ids[i];
            const onescope_pose_entity *pe = NULL;
            if (in->src.cache) /* slots follow the cache's order: its entity is at i or later */
                for (uint32_t e = i; e < in->src.cache->entity_count && pe == NULL; e++)
                    if (in->src.cache->entities[e].id == r.ids[i]) {
                        pe = &in->src.cache->entities[e];
                        colour = e;
                    }
            fputs(i ? ",{\"id\":" : "{\"id\":", o);
            jid(o, r.ids[i]);
            fprintf(o, ",\"c\":%" PRIu64 ",\"name\":", colour % 12);
            if (in->src.replay)
                fprintf(o, "\"body %" PRIu64 "\"", r.ids[i] - 1);
            else if (pe && pe->name.length)
                jstr(o, pe->name.data, pe->name.length);
            else
                fprintf(o, "\"entity %" PRIu64 "\"", r.ids[i]);
            fputc('}', o);
        }
        fputs("],\"columns\":[", o);
        for (uint32_t k = 0; k < in->cols; k++) {
            if (k) fputc(',', o);
            if (k < in->src.shape.dimensions) {
                jcstr(o, axis_names[k]);
            } else if (in->src.replay) {
                char v[8];
                snprintf(v, sizeof v, "v%s", axis_names[k - in->src.shape.dimensions]);
                jcstr(o, v);
            } else {
                jcstr(o, in->src.shape.module->values[k - in->src.shape.dimensions].name);
            }
        }
        fputs("],\"units\":[", o);
        for (uint32_t k = 0; k < in->cols; k++) {
            if (k) fputc(',', o);
            if (k < in->src.shape.dimensions)
                jcstr(o, in->src.shape.unit);
            else if (in->src.replay)
                jcstr(o, "mm/step");
            else
                jcstr(o, in->src.shape.module->values[k - in->src.shape.dimensions].unit);
        }
        fputc(']', o);
    }
    if (r.field[0] || r.field[1]) {
        for (int fi = 0; fi < 2; fi++)
            if (r.field[fi]) fclose(r.field[fi]);
        if (res == RUN_OK) fputs(",\"field\":[", o);
        for (int fi = 0; fi < 2 && res == RUN_OK; fi++) {
            const onescope_field_overlay *ov = onescope_field_describe(
                fi == 0 ? ONESCOPE_FIELD_DENSITY : ONESCOPE_FIELD_OCCUPANCY);
            fprintf(o, "%s{\"name\":\"%s\",\"location\":\"%s\",\"ramp\":\"%s\",\"min\":",
                    fi ? "," : "", ov->field, ov->location_name, ov->ramp);
            /* the overlay's range, widened to the values (as plot's scale) */
            double lo = ov->value_min, hi = ov->value_max;
            for (char *p = r.field_buf[fi]; p && *p;) {
                char *end;
                double v = strtod(p, &end);
                if (end == p) {
                    p++;
                    continue;
                }
                if (v < lo) lo = v;
                if (v > hi) hi = v;
                p = end;
            }
            jnum(o, lo);
            fputs(",\"max\":", o);
            jnum(o, hi);
            fputs(",\"values\":[", o);
            if (r.field_buf[fi]) fwrite(r.field_buf[fi], 1, r.field_size[fi], o);
            fputs("]}", o);
        }
        if (res == RUN_OK) fputc(']', o);
        for (int fi = 0; fi < 2; fi++) free(r.field_buf[fi]);
        pg->held = 0; /* now in o */
    }
    if (res == RUN_OK) fputc('}', o);
    if (res == RUN_OK && page_over(pg)) res = RUN_OVER;
    free(r.ids);
    free(r.hkeys);
    free(r.hvals);
    free(r.fslot);
    free(r.fval);
    if (res == RUN_OK) {
        *steps = r.steps;
        *step_count = r.step_count;
    } else {
        free(r.steps);
    }
    return res;
}

/* ---- diff: the library's answer, as the page shows it ---- */

typedef struct diff_view {
    bool diverged;
    int64_t step; /* the host step of the first frame that differs */
    char text[512];
    uint64_t ids[16];
    int id_count;
    char names[12][96];
    int name_count;
} diff_view;

static void add_id(diff_view *d, uint64_t id) {
    for (int i = 0; i < d->id_count; i++)
        if (d->ids[i] == id) return;
    if (d->id_count < 16) d->ids[d->id_count++] = id;
}

static bool run_diff(vin *a, vin *b, diff_view *d) {
    onescope_error err;
    char na[CLI_NUMBER_SIZE], nb[CLI_NUMBER_SIZE]; /* the library's shortest printer */
    onescope_diff_options opt = {.name_a = a->src.name, .name_b = b->src.name};
    if (a->src.replay && b->src.replay) {
        onescope_diff_replay *r;
        if (onescope_diff_replays(a->src.replay, b->src.replay, &opt, NULL, &r, &err) !=
            ONESCOPE_OK) {
            cli_print_error(&err);
            return false;
        }
        d->diverged = r->diverged;
        if (r->diverged) {
            /* diff's step is the one after which the worlds differ: its row is one later */
            d->step = (int64_t)r->host_step_a + (r->at_start ? 0 : 1);
            if (r->at_start)
                snprintf(d->text, sizeof d->text,
                         "worlds differ at the start (host step %" PRId64 ")", d->step);
            else
                snprintf(d->text, sizeof d->text,
                         "worlds differ after step %" PRIu32 " (host step %" PRIu64
                         "): first differing frame at host step %" PRId64,
                         r->step, r->host_step_a, d->step);
            for (uint32_t i = 0; i < r->value_count; i++) {
                const onescope_diff_value *v = &r->values[i];
                if (!v->world) add_id(d, (uint64_t)v->index + 1);
                if (d->name_count < 12) {
                    if (v->world)
                        snprintf(d->names[d->name_count++], 96, "%s[%" PRIu32 "]: a %s, b %s",
                                 v->name, v->index, cli_number(na, v->a), cli_number(nb, v->b));
                    else
                        snprintf(d->names[d->name_count++], 96, "body %" PRIu32 " %s: a %s, b %s",
                                 v->index, v->name, cli_number(na, v->a), cli_number(nb, v->b));
                }
            }
        } else {
            snprintf(d->text, sizeof d->text, "worlds: the same over %" PRIu32 " steps",
                     r->steps_compared);
        }
        onescope_diff_replay_free(r);
        return true;
    }
    if (a->src.rec && b->src.rec) {
        if (a->src.shape.module != b->src.shape.module) {
            fprintf(stderr, "%s: module: expected the module of %s, found another one\n",
                    cli_shown(b->path), cli_shown(a->path));
            return false;
        }
        onescope_recording_diff_result r;
        if (onescope_recording_diff(a->src.rec, b->src.rec, a->src.shape.module, NULL, &r,
                                    a->src.name, b->src.name, &err) != ONESCOPE_OK) {
            cli_print_error(&err);
            return false;
        }
        d->diverged = r.worlds_differ;
        if (r.worlds_differ) {
            d->step = r.row;
            if (r.row == 0)
                snprintf(d->text, sizeof d->text, "first difference: row 0 (the start worlds)");
            else
                snprintf(d->text, sizeof d->text,
                         "first difference: row %" PRIu32 " (the world after step %" PRIu32 ")",
                         r.row, r.row - 1);
            if (r.value_differs) {
                add_id(d, r.entity_id);
                snprintf(d->names[d->name_count++], 96, "entity %" PRIu64 " %s: a %s, b %s",
                         r.entity_id, a->src.shape.module->values[r.value].name,
                         cli_number(na, r.value_a), cli_number(nb, r.value_b));
            }
            if (r.world_value_differs)
                snprintf(d->names[d->name_count++], 96, "%s[%" PRIu32 "]: a %s, b %s",
                         a->src.shape.module->world_values[r.world_value].name, r.world_index,
                         cli_number(na, r.world_value_a), cli_number(nb, r.world_value_b));
        } else {
            snprintf(d->text, sizeof d->text, "worlds: the same over %" PRIu32 " rows",
                     r.rows_compared);
        }
        return true;
    }
    if (a->src.cache || b->src.cache) {
        onescope_diff_cache *r = NULL;
        onescope_code rc;
        if (a->src.cache && b->src.cache)
            rc = onescope_diff_caches(a->src.cache, b->src.cache, &opt, NULL, &r, &err);
        else if (a->src.replay)
            rc = onescope_diff_replay_cache(a->src.replay, b->src.cache, &opt, NULL, &r, &err);
        else if (b->src.replay) {
            fprintf(stderr,
                    "%s: --diff: expected the replay as A and the cache as B (diff's "
                    "order), found the cache first\n",
                    cli_shown(a->path));
            return false;
        } else {
            fprintf(stderr,
                    "%s: --diff: a module recording and a pose cache are compared by "
                    "onescope diff; view compares two of a kind or a replay and a cache\n",
                    cli_shown(a->src.rec ? a->path : b->path));
            return false;
        }
        if (rc != ONESCOPE_OK) {
            cli_print_error(&err);
            return false;
        }
        d->diverged = r->has_first;
        if (r->has_first) {
            d->step = r->first_step;
            snprintf(d->text, sizeof d->text,
                     "first past tolerance: step %" PRId64 ", entity %" PRIu64, r->first_step,
                     r->first_id);
            add_id(d, r->first_id);
            for (uint32_t i = 0; i < r->entity_count; i++)
                if (r->entities[i].past_tolerance) add_id(d, r->entities[i].id);
        } else {
            snprintf(d->text, sizeof d->text, "the same over %" PRIu32 " frames",
                     r->overlap_frames);
        }
        onescope_diff_cache_free(r);
        return true;
    }
    fprintf(stderr,
            "%s: --diff: expected two replays, two recordings of one module, two caches "
            "or a replay and a cache, found a replay and a module recording\n",
            cli_shown(b->path));
    return false;
}

/* ---- the command ---- */

/* How many distinct steps the runs keep: their sorted step lists merged. */
static uint64_t union_count(int64_t *const *steps, const size_t *count, int n) {
    size_t at[MAX_INPUTS] = {0};
    uint64_t total = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (at[i] < count[i] && (best < 0 || steps[i][at[i]] < steps[best][at[best]])) best = i;
        if (best < 0) return total;
        int64_t s = steps[best][at[best]];
        total++;
        for (int i = 0; i < n; i++)
            while (at[i] < count[i] && steps[i][at[i]] == s) at[i]++;
    }
}

/* How many distinct steps the inputs hold: the union of their ranges, from the ranges alone. */
static uint64_t held_count(const vin *in, int n) {
    int order[MAX_INPUTS];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) /* by first step: at most 8 */
        for (int j = i; j > 0 && in[order[j]].src.first < in[order[j - 1]].src.first; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint64_t total = 0;
    int64_t lo = in[order[0]].src.first, hi = in[order[0]].src.last;
    for (int k = 1; k <= n; k++) {
        if (k < n && in[order[k]].src.first <= hi) { /* overlaps or touches the current span */
            if (in[order[k]].src.last > hi) hi = in[order[k]].src.last;
            continue;
        }
        total += (uint64_t)(hi - lo) + 1;
        if (k < n) {
            lo = in[order[k]].src.first;
            hi = in[order[k]].src.last;
        }
    }
    return total;
}

typedef struct view_page {
    const char *title;
    uint8_t dims, up;
    const char *unit;
    uint64_t trail;
    int64_t first, last;
    uint64_t total_steps; /* distinct steps the inputs hold */
    uint64_t kept_steps;  /* of those, kept (after a complete attempt) */
    bool diff;
    const diff_view *dv;
} view_page;

/* One attempt at the data block under keep: RUN_OVER as soon as it passes the budget. */
static run_result write_data(page *pg, vin *in, int n, const keep_rule *keep, cli_entity_filter *f,
                             view_page *v) {
    FILE *o = pg->o;
    fputs("{\"format\":\"onescope-view\",\"version\":2,\"title\":", o);
    jcstr(o, v->title);
    fprintf(o, ",\"dims\":%u,\"up\":%u,\"unit\":\"%s\",\"trail\":%" PRIu64 ",\"first\":", v->dims,
            v->up, v->unit, v->trail);
    jid(o, (uint64_t)v->first);
    fputs(",\"last\":", o);
    jid(o, (uint64_t)v->last);
    fputs(",\"runs\":[", o);
    int64_t *steps[MAX_INPUTS] = {0};
    size_t counts[MAX_INPUTS] = {0};
    run_result res = RUN_OK;
    for (int i = 0; i < n && res == RUN_OK; i++) {
        if (i) fputc(',', o);
        res = write_run(pg, &in[i], keep, f, &steps[i], &counts[i]);
    }
    if (res == RUN_OK) v->kept_steps = union_count(steps, counts, n);
    for (int i = 0; i < n; i++) free(steps[i]);
    if (res != RUN_OK) return res;
    fputc(']', o);
    const diff_view *dv = v->dv;
    if (v->diff) {
        fprintf(o, ",\"diff\":{\"diverged\":%s,\"step\":", dv->diverged ? "true" : "false");
        if (dv->diverged)
            jid(o, (uint64_t)dv->step);
        else
            fputs("null", o);
        fputs(",\"text\":", o);
        jcstr(o, dv->text);
        fputs(",\"entities\":[", o);
        for (int i = 0; i < dv->id_count; i++) {
            if (i) fputc(',', o);
            jid(o, dv->ids[i]);
        }
        fputs("],\"names\":[", o);
        for (int i = 0; i < dv->name_count; i++) {
            if (i) fputc(',', o);
            jcstr(o, dv->names[i]);
        }
        fputs("]}", o);
    }
    fputs(",\"every\":", o);
    if (keep->every < keep->no_grid)
        fprintf(o, "%" PRId64, keep->every);
    else
        fputs("null", o); /* no grid: only the marks */
    fprintf(o,
            ",\"total_steps\":%" PRIu64 ",\"kept_steps\":%" PRIu64 ",\"decimated\":%s,\"dense\":",
            v->total_steps, v->kept_steps, v->kept_steps < v->total_steps ? "true" : "false");
    if (keep->diverged && keep->half > 0 && keep->every > 1) {
        int64_t d = keep->divergence, h = keep->half; /* all >= 0: no overflow */
        fputc('[', o);
        jid(o, (uint64_t)(d - v->first > h ? d - h : v->first));
        fputc(',', o);
        jid(o, (uint64_t)(v->last - d > h ? d + h : v->last));
        fputc(']', o);
    } else {
        fputs("null", o);
    }
    fputc('}', o);
    return page_over(pg) ? RUN_OVER : RUN_OK;
}

/* After an attempt passed the budget: a sparser rule, or false when none is left. The dense
 * window around the divergence narrows first when it alone took half the budget; else k grows
 * (at least doubling, more when the bytes written per row seen say the page needs it), up to
 * k_inf (no grid step past the first: only the marks); then the window narrows to nothing. */
static bool next_rule(keep_rule *k, const page *pg, uint64_t written, uint64_t rows,
                      int64_t k_inf) {
    if (k->diverged && k->half > 0 && pg->dense_bytes > pg->budget / 2) {
        k->half /= 4;
        return true;
    }
    if (k->every < k_inf) {
        double seen = pg->rows_seen ? (double)pg->rows_seen : 1;
        double need = (double)written * ((double)rows / seen) / (double)pg->budget;
        double grown = ceil((double)k->every * need * 1.25);
        int64_t e = k->every * 2; /* every <= k_inf <= 2^33: no overflow */
        if (grown > (double)e) e = grown >= (double)k_inf ? k_inf : (int64_t)grown;
        k->every = e < k_inf ? e : k_inf;
        return true;
    }
    if (k->diverged && k->half > 0) {
        k->half /= 4;
        return true;
    }
    return false;
}

/* The page: head, the data block (charged), the script. RUN_OVER leaves *o closed. */
static run_result write_page(FILE *o, page *pg, vin *in, int n, const keep_rule *keep,
                             cli_entity_filter *f, view_page *v) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>onescope view</title>\n<style>\n",
          o);
    fputs(view_css, o);
    fputs("</style>\n</head>\n<body>\n<script type=\"application/json\" id=\"onescope-data\">", o);
    *pg = (page){.o = o, .start = ftell(o), .budget = pg->budget};
    run_result res = write_data(pg, in, n, keep, f, v);
    if (res != RUN_OK) return res;
    pg->data_bytes = page_bytes(pg);
    fputs("</script>\n<script>\n", o);
    fputs(view_js, o);
    fputs("</script>\n</body>\n</html>\n", o);
    return RUN_OK;
}

int cmd_view(int argc, char **argv) {
    vin in[MAX_INPUTS];
    memset(in, 0, sizeof in);
    cli_entity_filter f = {0};
    cli_args ca;
    int parsed = cli_parse(&cli_spec_view, argc, argv, 0, -1, &ca);
    if (parsed != CLI_PARSE_RUN) return parsed;
    if (ca.operand_count > MAX_INPUTS)
        return cli_usage_error("view", "takes at most %d inputs", MAX_INPUTS);
    int n = ca.operand_count;
    const char *out = ca.seen[OPT_OUTPUT] ? ca.value[OPT_OUTPUT] : NULL;
    bool diff = ca.seen[OPT_DIFF];
    uint64_t trail = 20, budget = 4000000;
    if (ca.seen[OPT_TRAIL] && !cli_parse_u64(ca.value[OPT_TRAIL], 100000, &trail))
        return cli_usage_error("view", "--trail must be 0..100000 steps, not '%s'",
                               ca.value[OPT_TRAIL]);
    if (ca.seen[OPT_MAX_BYTES] &&
        (!cli_parse_u64(ca.value[OPT_MAX_BYTES], 1u << 30, &budget) || budget < 10000))
        return cli_usage_error("view", "--max-bytes must be 10000..1073741824, not '%s'",
                               ca.value[OPT_MAX_BYTES]);
    if (out == NULL) return cli_usage_error("view", "needs -o OUT.html");
    size_t len = strlen(out);
    if (strcmp(out, "-") != 0 && (len < 6 || strcmp(out + len - 5, ".html") != 0))
        return cli_usage_error("view", "OUT must end in .html, not '%s'", out);
    if (n == 0) return cli_usage_error("view", "needs at least one INPUT");
    if (diff && n != 2) return cli_usage_error("view", "--diff compares two inputs, A and B");
    if (ca.seen[OPT_ENTITY] && !cli_entity_filter_parse(&f, ca.value[OPT_ENTITY]))
        return cli_usage_error("view",
                               "--entity must be up to 64 ids or names, comma-separated, "
                               "none empty, not '%s'",
                               ca.value[OPT_ENTITY]);
    for (int i = 0; i < n; i++) in[i].path = ca.operands[i];
    for (int i = 0; i < n; i++)
        if (cli_refuse_same_file("view", in[i].path, out)) {
            cli_entity_filter_free(&f);
            return CLI_FAIL;
        }
    if (!cli_check_output("view", NULL, out)) {
        cli_entity_filter_free(&f);
        return CLI_FAIL;
    }
    int status = CLI_FAIL;
    char *html = NULL;
    size_t html_size = 0;
    FILE *o = NULL;
    for (int i = 0; i < n; i++)
        if (!load(&in[i])) goto done;
    for (int i = 1; i < n; i++)
        if (in[i].src.shape.dimensions != in[0].src.shape.dimensions ||
            in[i].src.shape.unitless != in[0].src.shape.unitless) {
            fprintf(stderr, "%s: cannot be overlaid on %s: %s\n", cli_shown(in[i].path),
                    cli_shown(in[0].path),
                    in[i].src.shape.dimensions != in[0].src.shape.dimensions
                        ? "one is 2D, the other 3D"
                        : "one has metres per unit 0 (no unit), the other a unit");
            goto done;
        }
    diff_view dv = {0};
    if (diff && !run_diff(&in[0], &in[1], &dv)) goto done;

    /* The decimation (docs/view.md, "Long runs"): the grid's k from an estimate of the data
     * per step, then the page is written, charged as it goes, and written again under a
     * sparser rule whenever it passes the budget. Everything here follows the rows the inputs
     * hold (at most 8 ranges), never the span of their step numbers. */
    int64_t first = in[0].src.first, last = in[0].src.last;
    uint64_t rows = 0, longest = 0;
    double per_step = 0;
    keep_rule keep = {.every = 1};
    for (int i = 0; i < n; i++) {
        if (in[i].src.first < first) first = in[i].src.first;
        if (in[i].src.last > last) last = in[i].src.last;
        uint64_t held = (uint64_t)(in[i].src.last - in[i].src.first) + 1;
        rows += held;
        if (held > longest) longest = held;
        keep.marks[keep.mark_count++] = in[i].src.first;
        keep.marks[keep.mark_count++] = in[i].src.last;
        double bytes = in[i].src.replay ? 6 : 10; /* a number and its comma */
        per_step += (double)in[i].est_entities * in[i].cols * bytes;
        if (in[i].src.replay &&
            onescope_replay_link(in[i].src.replay).role != ONESCOPE_LINK_ROLE_NONE)
            per_step += (81 + 128) * 3;
    }
    keep.base = first;
    if (diff && dv.diverged) {
        keep.diverged = true;
        keep.divergence = dv.step;
        keep.half = DENSE_HALF;
        keep.marks[keep.mark_count++] = dv.step; /* kept whatever the budget */
    }
    int64_t k_inf = (int64_t)longest + 1; /* <= 2^32 + 2: only the grid's first step is kept */
    keep.no_grid = k_inf;
    uint64_t held = held_count(in, n);
    double estimate = (double)held * per_step;
    if (estimate > (double)budget)
        keep.every = estimate / (double)budget >= (double)k_inf
                         ? k_inf
                         : (int64_t)ceil(estimate / (double)budget);

    char title[512];
    const char *t = ca.seen[OPT_TITLE] ? ca.value[OPT_TITLE] : NULL;
    if (t == NULL) {
        size_t at = (size_t)snprintf(title, sizeof title, "%s", diff ? "diff: " : "");
        for (int i = 0; i < n && at < sizeof title; i++)
            at += (size_t)snprintf(title + at, sizeof title - at, "%s%s",
                                   i ? (diff ? " vs " : ", ") : "", in[i].src.label);
        t = title;
    }
    view_page v = {.title = t,
                   .dims = in[0].src.shape.dimensions,
                   .up = 1,
                   .unit = in[0].src.shape.unitless ? "units" : "m",
                   .trail = trail,
                   .first = first,
                   .last = last,
                   .total_steps = held,
                   .diff = diff,
                   .dv = &dv};
    for (int i = 0; i < n; i++)
        if (in[i].up == 2) v.up = 2;
    page pg = {.budget = budget};
    for (;;) {
        o = open_memstream(&html, &html_size);
        if (o == NULL) {
            fprintf(stderr, "onescope view: out of memory\n");
            goto done;
        }
        run_result res = write_page(o, &pg, in, n, &keep, &f, &v);
        if (res == RUN_FAIL) goto done;
        if (res == RUN_OK) break;
        uint64_t found = page_bytes(&pg);
        fclose(o);
        o = NULL;
        free(html);
        html = NULL;
        if (!next_rule(&keep, &pg, found, rows, k_inf)) {
            fprintf(stderr,
                    "%s: --max-bytes %" PRIu64 ": expected the page's data to fit, found %" PRIu64
                    " bytes or more with only each input's first and last step%s kept (raise "
                    "--max-bytes, or keep fewer entities with --entity)\n",
                    cli_shown(out), budget, found, keep.diverged ? " and the divergence" : "");
            goto done;
        }
    }
    if (cli_entity_filter_unmatched(&f) != NULL) {
        status = cli_usage_error("view", "--entity: no input has an entity '%s' (by id or name)",
                                 cli_entity_filter_unmatched(&f));
        goto done;
    }
    if (fclose(o) != 0) {
        o = NULL;
        fprintf(stderr, "onescope view: out of memory\n");
        goto done;
    }
    o = NULL;
    onescope_error err;
    if (onescope_file_write(out, html, html_size, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        goto done;
    }
    if (v.kept_steps < v.total_steps && !cli.quiet) {
        char every[64];
        if (keep.every < k_inf)
            snprintf(every, sizeof every, "every %" PRId64 " steps", keep.every);
        else
            snprintf(every, sizeof every, "each input's first and last step%s",
                     keep.diverged ? " and the divergence" : "");
        fprintf(stderr,
                "%s: decimated: %s kept (%" PRIu64 " of %" PRIu64 ") to stay under %" PRIu64
                " bytes\n",
                cli_shown(out), every, v.kept_steps, v.total_steps, budget);
    }
    if (cli.verbose) {
        for (int i = 0; i < n; i++)
            if (in[i].src.cache)
                fprintf(stderr, "%s: poses %s\n", cli_shown(in[i].path),
                        in[i].src.cache->mapping ? "read in place (mapped)" : "copied into memory");
        fprintf(stderr, "%s: %zu bytes, %" PRIu64 " of them data\n", cli_shown(out), html_size,
                pg.data_bytes);
    }
    status = CLI_OK;
done:
    if (o) fclose(o);
    free(html);
    free_inputs(in, n);
    cli_entity_filter_free(&f);
    return status;
}
