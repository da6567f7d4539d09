/* Checking a module before trusting it (module.h, docs/module.md "Checking a module before
 * trusting it"): the module runs from one setup in up to four worlds at once, through the world
 * API only, and every assumption the tools make of it is compared step by step. The budget is
 * about three plain runs: a second world stepped whole beside the original (determinism), and
 * every K-th step a restored one run stage by stage for S steps (snapshot, restore, stages);
 * a fourth world is restored only to tell restore and stages apart once the third parts. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "numfmt.h"
#include "onescope/module.h"
#include "run_internal.h"

static const char *const check_names[ONESCOPE_MODULE_CHECK_COUNT] = {"determinism", "snapshot",
                                                                     "restore", "stages", "hash"};

const char *onescope_module_check_name(onescope_module_check_kind kind) {
    return (unsigned)kind < ONESCOPE_MODULE_CHECK_COUNT ? check_names[kind] : "?";
}

onescope_module_check_def onescope_module_check_def_default(void) {
    onescope_module_check_def d;
    memset(&d, 0, sizeof d);
    d.steps = 100;
    d.horizon = 4;
    d.restore_every = 32;
    d.hash_probes = 256;
    return d;
}

/* A world's named values at one moment. */
typedef struct values {
    uint32_t entities, room;
    uint64_t *ids;
    double *v; /* entities x value_count */
    double *w; /* every world value's elements */
} values;

typedef struct check {
    const onescope_module *m; /* the first world's copy of the table */
    const onescope_module *module;
    const onescope_allocator *a;
    const onescope_module_check_def *def;
    const void *setup;
    size_t setup_size;
    onescope_module_check_result *out;
    uint32_t nv, nw;          /* values per entity, world value elements */
    uint64_t *hist;           /* the first world's hash before step 0 and after each step */
    onescope_world *w[3];     /* the original, the second world, a restored one */
    values bprev, rprev, cur; /* hash coverage: the second and the restored world's last */
    values x, y;              /* two scratch sets */
    uint64_t b_hash, r_hash;  /* and their last hashes */
    uint64_t r_start;         /* the step the restored world started at */
    uint32_t r_left;          /* steps it still runs */
    onescope_buffer snap[2];  /* a round trip's two snapshots */
    onescope_buffer trip;     /* this round trip's snapshot, restored and matched: the probes'
                                 base, kept past the restored world's horizon */
    onescope_buffer prev;     /* the last round trip's (the probes' second donor) */
    uint64_t prev_step;       /* its step */
    const void *in;           /* the current step's input */
    size_t in_size;
} check;

enum { ORIG = 0, SECOND = 1, RESTORED = 2 };

static void values_free(const check *c, values *s) {
    onescope_os_free(c->a, s->ids);
    onescope_os_free(c->a, s->v);
    onescope_os_free(c->a, s->w);
    memset(s, 0, sizeof *s);
}

static onescope_code nomem(const check *c, onescope_error *error, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, c->m->id, OS_NO_OFFSET, what, NULL,
                            "could not allocate %s", what);
}

static onescope_code values_read(const check *c, const onescope_world *w, values *s,
                                 onescope_error *error) {
    if (s->w == NULL && c->nw != 0) {
        s->w = onescope_os_calloc(c->a, c->nw, sizeof *s->w);
        if (s->w == NULL) return nomem(c, error, "the world values");
    }
    if (c->nw != 0) OS_TRY(onescope_world_values(w, s->w, c->nw, error));
    uint32_t n = onescope_world_entity_count(w);
    if (n > s->room) {
        size_t cells;
        if (!onescope_os_mul_size(n, c->nv, &cells)) return nomem(c, error, "the entity values");
        uint64_t *ids = onescope_os_calloc(c->a, n, sizeof *ids);
        double *v = c->nv ? onescope_os_calloc(c->a, cells, sizeof *v) : NULL;
        if (ids == NULL || (c->nv && v == NULL)) {
            onescope_os_free(c->a, ids);
            onescope_os_free(c->a, v);
            return nomem(c, error, "the entity values");
        }
        onescope_os_free(c->a, s->ids);
        onescope_os_free(c->a, s->v);
        s->ids = ids, s->v = v, s->room = n;
    }
    s->entities = n;
    for (uint32_t e = 0; e < n; e++) {
        s->ids[e] = onescope_world_entity_id(w, e);
        if (c->nv)
            OS_TRY(onescope_world_entity_values(w, e, s->v + (size_t)e * c->nv, c->nv, error));
    }
    return ONESCOPE_OK;
}

/* Bit for bit: a NaN equals itself, -0 differs from 0 (a hash of the bits would see it). */
static bool same(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

static onescope_module_check_failure *fail_at(check *c, onescope_module_check_kind k, uint64_t step,
                                              uint32_t stage) {
    onescope_module_check_outcome *o = &c->out->checks[k];
    if (o->status != ONESCOPE_MODULE_CHECK_PASSED) return NULL; /* the first failure only */
    o->status = ONESCOPE_MODULE_CHECK_FAILED;
    c->out->failed++;
    onescope_module_check_failure *f = &o->failure;
    memset(f, 0, sizeof *f);
    f->step = step;
    f->stage = stage;
    f->entity = ONESCOPE_MODULE_CHECK_NO_ENTITY;
    return f;
}

static void say(onescope_module_check_failure *f, const char *fmt, ...) OS_PRINTF(2, 3);
static void say(onescope_module_check_failure *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    va_end(ap);
}

static void name_value(onescope_module_check_failure *f, const char *name, int index) {
    char shown[ONESCOPE_OS_ECHO_MAX + 1];
    onescope_os_escape(shown, sizeof shown, name, strlen(name));
    if (index < 0)
        snprintf(f->value, sizeof f->value, "%s", shown);
    else
        snprintf(f->value, sizeof f->value, "%s[%d]", shown, index);
}

/* A value as its type prints it: a float as the shortest float that reads back. */
static void value_text(char *out, double v, onescope_value_type type) {
    if (type == ONESCOPE_VALUE_F32 && (double)(float)v == v)
        onescope_os_number_write_float(out, (float)v, 0);
    else
        onescope_os_number_write(out, v, 0);
}

/* Where x and y part: the entity count, an id, a named value or a world value, into f.
 * false when they agree. first and second name the two sides in f->what. */
static bool values_part(const check *c, const values *x, const values *y,
                        onescope_module_check_failure *f, const char *first, const char *second) {
    if (x->entities != y->entities) {
        say(f, "%" PRIu32 " entities %s, %" PRIu32 " %s", x->entities, first, y->entities, second);
        return true;
    }
    for (uint32_t e = 0; e < x->entities; e++) {
        if (x->ids[e] != y->ids[e]) {
            f->entity = e, f->entity_id = x->ids[e];
            say(f, "entity %" PRIu32 " has id %" PRIu64 " %s, %" PRIu64 " %s", e, x->ids[e], first,
                y->ids[e], second);
            return true;
        }
        for (uint32_t k = 0; k < c->nv; k++) {
            double a = x->v[(size_t)e * c->nv + k], b = y->v[(size_t)e * c->nv + k];
            if (same(a, b)) continue;
            f->entity = e, f->entity_id = x->ids[e];
            name_value(f, c->m->values[k].name, -1);
            f->values[0] = a, f->values[1] = b;
            char ta[OS_NUMBER_MAX], tb[OS_NUMBER_MAX];
            value_text(ta, a, c->m->values[k].type);
            value_text(tb, b, c->m->values[k].type);
            say(f, "entity %" PRIu32 " (id %" PRIu64 ") %s is %s %s, %s %s", e, x->ids[e], f->value,
                ta, first, tb, second);
            return true;
        }
    }
    uint32_t at = 0;
    for (uint32_t v = 0; v < c->m->world_value_count; v++) {
        const onescope_world_value_info *vi = &c->m->world_values[v];
        for (uint32_t i = 0; i < vi->count; i++, at++) {
            if (same(x->w[at], y->w[at])) continue;
            name_value(f, vi->name, vi->count == 1 ? -1 : (int)i);
            f->values[0] = x->w[at], f->values[1] = y->w[at];
            char ta[OS_NUMBER_MAX], tb[OS_NUMBER_MAX];
            value_text(ta, x->w[at], vi->type);
            value_text(tb, y->w[at], vi->type);
            say(f, "world value %s is %s %s, %s %s", f->value, ta, first, tb, second);
            return true;
        }
    }
    return false;
}

static bool has_values(const check *c) {
    return c->nv != 0 || c->nw != 0;
}

/* Two worlds whose hashes part: the failure names the first value that differs too. */
static onescope_code worlds_part(check *c, onescope_module_check_kind k, uint64_t step,
                                 uint32_t stage, const onescope_world *wa, uint64_t ha,
                                 const onescope_world *wb, const char *first, const char *second,
                                 onescope_error *error) {
    onescope_module_check_failure *f = fail_at(c, k, step, stage);
    if (f == NULL) return ONESCOPE_OK;
    f->hashes[0] = ha;
    f->hashes[1] = onescope_world_hash(wb);
    if (has_values(c)) {
        OS_TRY(values_read(c, wa, &c->x, error));
        OS_TRY(values_read(c, wb, &c->y, error));
        if (values_part(c, &c->x, &c->y, f, first, second)) return ONESCOPE_OK;
    }
    say(f, "hash %016" PRIx64 " %s, %016" PRIx64 " %s", f->hashes[0], first, f->hashes[1], second);
    return ONESCOPE_OK;
}

/* A module's refusal inside a check is that check's failure; running out of memory is not. */
static onescope_code refused(check *c, onescope_module_check_kind k, uint64_t step, uint32_t stage,
                             const char *call, onescope_code rc, onescope_error *error) {
    if (rc == ONESCOPE_E_NOMEM) return rc;
    onescope_module_check_failure *f = fail_at(c, k, step, stage);
    if (f != NULL) {
        char line[512] = "";
        if (error != NULL) onescope_error_format(error, line, sizeof line);
        say(f, "%s failed: %s", call, error != NULL ? line : onescope_error_name(rc));
    }
    onescope_error_clear(error);
    return ONESCOPE_OK;
}

static onescope_code world_start(check *c, onescope_world **w, onescope_error *error) {
    const onescope_module_check_def *d = c->def;
    if (d->start_snapshot != NULL)
        return onescope_world_restore(c->module, c->setup, c->setup_size, d->start_snapshot,
                                      d->start_snapshot_size, c->a, w, error);
    return onescope_world_create(c->module, c->setup, c->setup_size, c->a, w, error);
}

static onescope_code input_of(check *c, uint64_t step, onescope_error *error) {
    c->in = NULL, c->in_size = 0;
    if (c->def->input == NULL) return ONESCOPE_OK;
    onescope_code rc = c->def->input(c->def->input_user, step, &c->in, &c->in_size, error);
    if (rc == ONESCOPE_OK && c->in == NULL && c->in_size != 0)
        rc = onescope_os_fail(error, ONESCOPE_E_ARGUMENT, c->m->id, OS_NO_OFFSET, "input",
                              "bytes for a size above 0", "NULL for step %" PRIu64, step);
    if (rc != ONESCOPE_OK) return rc;
    /* the module's rules first, as every recording's input meets them: a step is never
     * asked to run an input its module refuses */
    char what[48];
    snprintf(what, sizeof what, "step %" PRIu64 " input", step);
    return onescope_os_world_check_input(c->w[ORIG], c->in, c->in_size, c->m->id, what, error);
}

/* A round trip refused at step i: the snapshot check fails with the module's error, and the
 * checks that run a restored world fail too, since none could be restored from there: a check
 * never passes without running. */
static onescope_code trip_refused(check *c, uint64_t i, const char *call, onescope_code rc,
                                  onescope_error *error) {
    static const onescope_module_check_kind needs[2] = {ONESCOPE_MODULE_CHECK_RESTORE,
                                                        ONESCOPE_MODULE_CHECK_STAGES};
    for (int k = 0; k < 2 && rc != ONESCOPE_E_NOMEM; k++) {
        if (c->out->checks[needs[k]].status != ONESCOPE_MODULE_CHECK_PASSED) continue;
        onescope_module_check_failure *f = fail_at(c, needs[k], i, ONESCOPE_MODULE_CHECK_NO_STAGE);
        say(f, "not run from step %" PRIu64 ": the %s failed", i, call);
    }
    return refused(c, ONESCOPE_MODULE_CHECK_SNAPSHOT, i, ONESCOPE_MODULE_CHECK_NO_STAGE, call, rc,
                   error);
}

/* ---- the hash probes: one snapshot byte spliced in from another step ----
 * Stages that change several values at once (a move writes the position and the energy) hide
 * a hash that misses one of them from the step and stage checks. Two snapshots of one layout
 * differ where the state moved; a world restored from one with a single differing byte taken
 * from the other has (usually) one named value changed, alone: if the hash stays, the hash
 * misses that value. Probes visit the differing bytes in a spread order (a stride near the
 * golden ratio of their count, so entities and fields both vary early) and stop once every
 * value has been seen to move the hash alone, or after hash_probes restores. */

/* Which values differ between x and y (same entity count): moved[k] for entity value k,
 * moved[value_count + j] for world element j. Returns how many of those indexes moved. */
static uint32_t values_moved(const check *c, const values *x, const values *y, uint8_t *moved) {
    memset(moved, 0, (size_t)c->nv + c->nw);
    for (uint32_t e = 0; e < x->entities && e < y->entities; e++)
        for (uint32_t k = 0; k < c->nv; k++)
            if (!same(x->v[(size_t)e * c->nv + k], y->v[(size_t)e * c->nv + k])) moved[k] = 1;
    for (uint32_t j = 0; j < c->nw; j++)
        if (!same(x->w[j], y->w[j])) moved[c->nv + j] = 1;
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->nv + c->nw; k++) n += moved[k];
    return n;
}

static uint32_t stride_for(uint32_t n) {
    if (n < 3) return 1;
    for (uint32_t s = (uint32_t)((double)n * 0.6180339887) | 1u;; s++) {
        uint32_t a = n, b = s; /* coprime to n: the walk visits every offset once */
        while (b) {
            uint32_t t = a % b;
            a = b, b = t;
        }
        if (a == 1) return s;
    }
}

/* The probe buffers: the spliced bytes, the differing offsets, three flags a value. */
typedef struct probe_room {
    uint8_t *bytes;
    uint32_t *at;
    uint8_t *want, *moved;
} probe_room;

/* One probe: offset `at` of this round trip's snapshot taken from prev. c->x holds the values
 * of the world restored from the unspliced bytes, base_hash its hash; a value that moves the
 * hash alone leaves want. */
static onescope_code probe(check *c, uint64_t i, uint32_t at, uint64_t base_hash,
                           const onescope_buffer *donor, uint64_t donor_step, probe_room *p,
                           onescope_error *error) {
    const onescope_buffer *a = &c->trip;
    memcpy(p->bytes, a->data, a->size);
    p->bytes[at] = donor->data[at];
    onescope_world *w = NULL;
    onescope_code rc = onescope_world_restore(c->module, c->setup, c->setup_size, p->bytes, a->size,
                                              c->a, &w, error);
    if (rc == ONESCOPE_E_NOMEM) return rc;
    if (rc != ONESCOPE_OK) { /* a byte the module's rules refuse: no probe */
        onescope_error_clear(error);
        return ONESCOPE_OK;
    }
    rc = values_read(c, w, &c->y, error);
    uint64_t h = onescope_world_hash(w);
    onescope_world_free(w);
    if (rc != ONESCOPE_OK) return rc == ONESCOPE_E_NOMEM ? rc : ONESCOPE_OK;
    if (c->y.entities != c->x.entities) return ONESCOPE_OK;
    uint32_t n = values_moved(c, &c->x, &c->y, p->moved);
    if (n == 0) return ONESCOPE_OK; /* state the values do not show */
    if (h != base_hash) {
        if (n == 1) /* this value alone moved the hash */
            for (uint32_t k = 0; k < c->nv + c->nw; k++)
                if (p->moved[k]) p->want[k] = 0;
        return ONESCOPE_OK;
    }
    onescope_module_check_failure *f =
        fail_at(c, ONESCOPE_MODULE_CHECK_HASH, i, ONESCOPE_MODULE_CHECK_NO_STAGE);
    if (f == NULL) return ONESCOPE_OK;
    onescope_module_check_failure probe_f;
    memset(&probe_f, 0, sizeof probe_f);
    probe_f.entity = ONESCOPE_MODULE_CHECK_NO_ENTITY;
    char first[48], second[64];
    snprintf(first, sizeof first, "in step %" PRIu64 "'s snapshot", i);
    snprintf(second, sizeof second, "with its byte %" PRIu32 " from step %" PRIu64 "'s", at,
             donor_step);
    (void)values_part(c, &c->x, &c->y, &probe_f, first, second);
    probe_f.step = i, probe_f.stage = ONESCOPE_MODULE_CHECK_NO_STAGE;
    probe_f.hashes[0] = probe_f.hashes[1] = h;
    probe_f.has_offset = true, probe_f.offset = at;
    size_t len = strlen(probe_f.what);
    snprintf(probe_f.what + len, sizeof probe_f.what - len, ", the hash stays %016" PRIx64, h);
    *f = probe_f;
    return ONESCOPE_OK;
}

/* Keeps this round trip's snapshot for the probes after the step (the restored world, and
 * its copy of the bytes, may be gone by then). */
static onescope_code keep_trip(check *c, onescope_error *error) {
    if (!has_values(c)) return ONESCOPE_OK;
    onescope_buffer_free(&c->trip);
    c->trip.allocator = c->a;
    c->trip.data = onescope_os_alloc(c->a, c->snap[0].size + 1);
    if (c->trip.data == NULL) return nomem(c, error, "a snapshot");
    memcpy(c->trip.data, c->snap[0].data, c->snap[0].size);
    c->trip.size = c->snap[0].size;
    return ONESCOPE_OK;
}

/* The probes between this round trip's snapshot (step i, c->snap[0]) and a donor of the same
 * layout (one size), taken at another step. */
static onescope_code probes_from(check *c, uint64_t i, const onescope_buffer *donor,
                                 uint64_t donor_step, onescope_error *error) {
    const onescope_buffer *a = &c->trip;
    if (a->data == NULL || donor->data == NULL || donor->size != a->size || a->size == 0 ||
        !has_values(c) ||
        c->out->checks[ONESCOPE_MODULE_CHECK_HASH].status != ONESCOPE_MODULE_CHECK_PASSED)
        return ONESCOPE_OK;
    uint32_t budget = c->def->hash_probes ? c->def->hash_probes : 256, nd = 0;
    size_t cells = (size_t)c->nv + c->nw, span = a->size < UINT32_MAX ? a->size : UINT32_MAX;
    probe_room p = {onescope_os_alloc(c->a, a->size), onescope_os_calloc(c->a, span, sizeof *p.at),
                    onescope_os_calloc(c->a, 2, cells), NULL};
    onescope_world *base = NULL;
    onescope_code rc = ONESCOPE_OK;
    if (p.bytes == NULL || p.at == NULL || p.want == NULL) rc = nomem(c, error, "the probes");
    for (size_t o = 0; rc == ONESCOPE_OK && o < span; o++)
        if (a->data[o] != donor->data[o]) p.at[nd++] = (uint32_t)o;
    if (rc == ONESCOPE_OK && nd != 0) { /* the unspliced world: the values to compare with */
        p.moved = p.want + cells;
        memset(p.want, 1, cells);
        rc = onescope_world_restore(c->module, c->setup, c->setup_size, a->data, a->size, c->a,
                                    &base, error);
        if (rc == ONESCOPE_OK) rc = values_read(c, base, &c->x, error);
        if (rc != ONESCOPE_OK && rc != ONESCOPE_E_NOMEM) { /* restored once already */
            onescope_error_clear(error);
            nd = 0, rc = ONESCOPE_OK;
        }
    }
    uint32_t stride = stride_for(nd);
    for (uint32_t t = 0; rc == ONESCOPE_OK && t < nd && t < budget; t++) {
        if (memchr(p.want, 1, cells) == NULL) break; /* every value moved the hash alone */
        rc = probe(c, i, p.at[(uint64_t)t * stride % nd], c->hist[i], donor, donor_step, &p, error);
        if (c->out->checks[ONESCOPE_MODULE_CHECK_HASH].status != ONESCOPE_MODULE_CHECK_PASSED)
            break;
    }
    onescope_world_free(base);
    onescope_os_free(c->a, p.bytes);
    onescope_os_free(c->a, p.at);
    onescope_os_free(c->a, p.want);
    return rc;
}

/* After the original ran step i of a round trip: donors from the step after (one step of
 * change) and from the last round trip (K steps of change), each when its layout is the same. */
static onescope_code probes(check *c, uint64_t i, onescope_error *error) {
    if (c->trip.data == NULL || !has_values(c)) return ONESCOPE_OK;
    onescope_buffer next = {NULL, 0, NULL};
    onescope_code rc = onescope_world_snapshot(c->w[ORIG], c->a, &next, error);
    if (rc != ONESCOPE_OK && rc != ONESCOPE_E_NOMEM) { /* the snapshot check says why */
        onescope_error_clear(error);
        return ONESCOPE_OK;
    }
    if (rc != ONESCOPE_OK) return rc;
    rc = probes_from(c, i, &next, i + 1, error);
    onescope_buffer_free(&next);
    if (rc == ONESCOPE_OK) rc = probes_from(c, i, &c->prev, c->prev_step, error);
    onescope_buffer_free(&c->prev); /* this round trip's is the next one's donor */
    c->prev = c->trip;
    c->prev_step = i;
    memset(&c->trip, 0, sizeof c->trip);
    return rc;
}

/* Snapshot -> restore -> snapshot at step i. The restored world is kept to run beside the
 * original (restore-and-continue) when its hash agrees now, and the first snapshot with it, so
 * a second world can be restored from the same bytes when the two part. */
static onescope_code round_trip(check *c, uint64_t i, onescope_error *error) {
    onescope_code rc = onescope_world_snapshot(c->w[ORIG], c->a, &c->snap[0], error);
    if (rc != ONESCOPE_OK) return trip_refused(c, i, "snapshot", rc, error);
    rc = onescope_world_restore(c->module, c->setup, c->setup_size, c->snap[0].data,
                                c->snap[0].size, c->a, &c->w[RESTORED], error);
    if (rc != ONESCOPE_OK)
        return trip_refused(c, i, "restore of the world's own snapshot", rc, error);
    rc = onescope_world_snapshot(c->w[RESTORED], c->a, &c->snap[1], error);
    if (rc != ONESCOPE_OK) return trip_refused(c, i, "snapshot of a restored world", rc, error);
    const onescope_buffer *s = c->snap;
    size_t n = s[0].size < s[1].size ? s[0].size : s[1].size, at = 0;
    while (at < n && s[0].data[at] == s[1].data[at]) at++;
    if (at < n || s[0].size != s[1].size) {
        onescope_module_check_failure *f =
            fail_at(c, ONESCOPE_MODULE_CHECK_SNAPSHOT, i, ONESCOPE_MODULE_CHECK_NO_STAGE);
        if (f != NULL) {
            f->has_offset = true, f->offset = at;
            if (at < n)
                say(f, "byte %zu is 0x%02x in the snapshot, 0x%02x in the restored world's", at,
                    s[0].data[at], s[1].data[at]);
            else
                say(f, "the snapshot has %zu bytes, the restored world's %zu", s[0].size,
                    s[1].size);
        }
    }
    onescope_buffer_free(&c->snap[1]);
    if (onescope_world_hash(c->w[RESTORED]) != c->hist[i])
        return worlds_part(c, ONESCOPE_MODULE_CHECK_RESTORE, i, ONESCOPE_MODULE_CHECK_NO_STAGE,
                           c->w[ORIG], c->hist[i], c->w[RESTORED], "in the original", "restored",
                           error);
    c->r_start = i;
    c->r_hash = c->hist[i];
    OS_TRY(keep_trip(c, error));
    return has_values(c) ? values_read(c, c->w[RESTORED], &c->rprev, error) : ONESCOPE_OK;
}

static void restored_free(check *c) {
    onescope_world_free(c->w[RESTORED]);
    c->w[RESTORED] = NULL;
    onescope_buffer_free(&c->snap[0]);
    onescope_buffer_free(&c->snap[1]);
}

/* Hash coverage: world w just ran step i (stage s, or a whole step); when a named value moved
 * from *prev, so must the hash from *h_prev. Leaves w's values in *prev. */
static onescope_code cover(check *c, const onescope_world *w, uint64_t i, uint32_t s,
                           uint64_t *h_prev, values *prev, onescope_error *error) {
    OS_TRY(values_read(c, w, &c->cur, error));
    uint64_t h = onescope_world_hash(w);
    if (h == *h_prev &&
        c->out->checks[ONESCOPE_MODULE_CHECK_HASH].status == ONESCOPE_MODULE_CHECK_PASSED) {
        onescope_module_check_failure probe;
        memset(&probe, 0, sizeof probe);
        probe.entity = ONESCOPE_MODULE_CHECK_NO_ENTITY;
        if (values_part(c, prev, &c->cur, &probe, "before", "after")) {
            onescope_module_check_failure *f = fail_at(c, ONESCOPE_MODULE_CHECK_HASH, i, s);
            probe.step = i, probe.stage = s;
            probe.hashes[0] = probe.hashes[1] = h;
            size_t n = strlen(probe.what); /* what ends with the hash that stayed */
            snprintf(probe.what + n, sizeof probe.what - n, ", the hash stays %016" PRIx64, h);
            if (f != NULL) *f = probe;
        }
    }
    *h_prev = h;
    values swap = *prev;
    *prev = c->cur;
    c->cur = swap;
    return ONESCOPE_OK;
}

/* The restored world, run stage by stage, parted from the original after step i: a second
 * world restored from the same snapshot and stepped whole says whether the restore lost
 * something (it parts too, at the step named) or the stages differ from the step (it agrees). */
static onescope_code tell_apart(check *c, uint64_t i, onescope_error *error) {
    onescope_world *whole = NULL;
    onescope_code rc = onescope_world_restore(c->module, c->setup, c->setup_size, c->snap[0].data,
                                              c->snap[0].size, c->a, &whole, error);
    if (rc != ONESCOPE_OK) return rc; /* it restored the same bytes once already */
    uint64_t parted = UINT64_MAX;
    for (uint64_t j = c->r_start; j <= i && rc == ONESCOPE_OK && parted == UINT64_MAX; j++) {
        rc = input_of(c, j, error);
        if (rc == ONESCOPE_OK) rc = onescope_world_step(whole, c->in, c->in_size, error);
        if (rc == ONESCOPE_OK && onescope_world_hash(whole) != c->hist[j + 1]) parted = j;
    }
    if (rc == ONESCOPE_OK && parted != i) rc = input_of(c, i, error); /* the caller's input */
    if (rc == ONESCOPE_OK && parted == UINT64_MAX)
        rc = worlds_part(c, ONESCOPE_MODULE_CHECK_STAGES, i, c->m->stage_count - 1, c->w[ORIG],
                         c->hist[i + 1], c->w[RESTORED], "stepped whole", "stage by stage", error);
    else if (rc == ONESCOPE_OK)
        rc = worlds_part(c, ONESCOPE_MODULE_CHECK_RESTORE, parted, ONESCOPE_MODULE_CHECK_NO_STAGE,
                         c->w[ORIG], c->hist[parted + 1], whole, "in the original", "restored",
                         error);
    onescope_world_free(whole);
    return rc;
}

/* The restored world's step i: stage by stage while the stages are trusted (hash coverage
 * after each stage), whole otherwise. */
static onescope_code restored_step(check *c, uint64_t i, onescope_error *error) {
    onescope_world *r = c->w[RESTORED];
    bool staged = c->m->stage_count != 0 && c->out->checks[ONESCOPE_MODULE_CHECK_STAGES].status ==
                                                ONESCOPE_MODULE_CHECK_PASSED;
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t s = 0; staged && s < c->m->stage_count && rc == ONESCOPE_OK; s++) {
        rc = onescope_world_run_stage(r, c->in, c->in_size, error);
        if (rc != ONESCOPE_OK)
            OS_TRY(refused(c, ONESCOPE_MODULE_CHECK_STAGES, i, s, "run_stage", rc, error));
        else if (has_values(c) && i == c->r_start) /* its first step: coverage per stage */
            OS_TRY(cover(c, r, i, s, &c->r_hash, &c->rprev, error));
    }
    if (!staged) {
        rc = onescope_world_step(r, c->in, c->in_size, error);
        if (rc != ONESCOPE_OK)
            OS_TRY(refused(c, ONESCOPE_MODULE_CHECK_RESTORE, i, ONESCOPE_MODULE_CHECK_NO_STAGE,
                           "the restored world's step", rc, error));
    }
    if (rc == ONESCOPE_OK && onescope_world_hash(r) != c->hist[i + 1]) {
        rc = ONESCOPE_E_ENGINE; /* parted: this restored world is done */
        if (staged)
            OS_TRY(tell_apart(c, i, error));
        else
            OS_TRY(worlds_part(c, ONESCOPE_MODULE_CHECK_RESTORE, i, ONESCOPE_MODULE_CHECK_NO_STAGE,
                               c->w[ORIG], c->hist[i + 1], r, "in the original", "restored",
                               error));
    }
    if (rc != ONESCOPE_OK || --c->r_left == 0) restored_free(c);
    return ONESCOPE_OK;
}

/* The second world's step i, whole: its hash and named values against the original's. */
/* Hash coverage over step i, read only when it matters: the original is after the step, the
 * second world (a twin while determinism holds) still before it. Values are read only when
 * the hash stayed, which a healthy module's step rarely does. */
static onescope_code cover_step(check *c, uint64_t i, onescope_error *error) {
    if (c->hist[i + 1] != c->hist[i] ||
        c->out->checks[ONESCOPE_MODULE_CHECK_HASH].status != ONESCOPE_MODULE_CHECK_PASSED)
        return ONESCOPE_OK;
    OS_TRY(values_read(c, c->w[SECOND], &c->x, error));
    OS_TRY(values_read(c, c->w[ORIG], &c->y, error));
    onescope_module_check_failure probe;
    memset(&probe, 0, sizeof probe);
    probe.entity = ONESCOPE_MODULE_CHECK_NO_ENTITY;
    if (values_part(c, &c->x, &c->y, &probe, "before", "after")) {
        onescope_module_check_failure *f =
            fail_at(c, ONESCOPE_MODULE_CHECK_HASH, i, ONESCOPE_MODULE_CHECK_NO_STAGE);
        probe.step = i, probe.stage = ONESCOPE_MODULE_CHECK_NO_STAGE;
        probe.hashes[0] = probe.hashes[1] = c->hist[i];
        size_t n = strlen(probe.what);
        snprintf(probe.what + n, sizeof probe.what - n, ", the hash stays %016" PRIx64, c->hist[i]);
        if (f != NULL) *f = probe;
    }
    return ONESCOPE_OK;
}

/* The second world's step i, whole: its hash against the original's, and at the round trips'
 * steps its named values too (equal hashes must mean equal values). */
static onescope_code second_step(check *c, uint64_t i, bool values_too, onescope_error *error) {
    onescope_world *b = c->w[SECOND];
    onescope_code rc = onescope_world_step(b, c->in, c->in_size, error);
    if (rc != ONESCOPE_OK) {
        OS_TRY(refused(c, ONESCOPE_MODULE_CHECK_DETERMINISM, i, ONESCOPE_MODULE_CHECK_NO_STAGE,
                       "the second world's step", rc, error));
    } else if (onescope_world_hash(b) != c->hist[i + 1]) {
        OS_TRY(worlds_part(c, ONESCOPE_MODULE_CHECK_DETERMINISM, i, ONESCOPE_MODULE_CHECK_NO_STAGE,
                           c->w[ORIG], c->hist[i + 1], b, "in the first world", "in the second",
                           error));
        rc = ONESCOPE_E_ENGINE;
    } else if (values_too && has_values(c)) {
        OS_TRY(values_read(c, c->w[ORIG], &c->x, error));
        OS_TRY(values_read(c, b, &c->y, error));
        onescope_module_check_failure probe;
        memset(&probe, 0, sizeof probe);
        probe.entity = ONESCOPE_MODULE_CHECK_NO_ENTITY;
        if (values_part(c, &c->x, &c->y, &probe, "in the first world", "in the second")) {
            onescope_module_check_failure *f =
                fail_at(c, ONESCOPE_MODULE_CHECK_DETERMINISM, i, ONESCOPE_MODULE_CHECK_NO_STAGE);
            probe.step = i, probe.stage = ONESCOPE_MODULE_CHECK_NO_STAGE;
            probe.hashes[0] = probe.hashes[1] = c->hist[i + 1];
            if (f != NULL) *f = probe;
            rc = ONESCOPE_E_ENGINE;
        }
    }
    if (rc != ONESCOPE_OK) { /* determinism decided: coverage goes on in the original */
        onescope_world_free(b);
        c->w[SECOND] = NULL;
        c->b_hash = c->hist[i + 1];
        if (has_values(c)) OS_TRY(values_read(c, c->w[ORIG], &c->bprev, error));
    }
    return ONESCOPE_OK;
}

static void skip(check *c, onescope_module_check_kind k, const char *slot) {
    c->out->checks[k].status = ONESCOPE_MODULE_CHECK_SKIPPED;
    snprintf(c->out->checks[k].skipped_for, sizeof c->out->checks[k].skipped_for, "%s", slot);
}

static onescope_code run(check *c, onescope_error *error) {
    const onescope_module_check_def *d = c->def;
    if (d->steps == 0) /* no step run is no check passed */
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, c->module->id, OS_NO_OFFSET, "steps",
                                "at least 1 step to check", "0");
    OS_TRY(world_start(c, &c->w[ORIG], error));
    c->m = onescope_world_module(c->w[ORIG]);
    c->nv = c->m->value_count;
    c->nw = onescope_world_value_total(c->w[ORIG]);
    OS_TRY(world_start(c, &c->w[SECOND], error));
    size_t rows;
    if (d->steps >= SIZE_MAX / sizeof *c->hist ||
        !onescope_os_mul_size((size_t)d->steps + 1, sizeof *c->hist, &rows))
        return nomem(c, error, "the hash rows");
    c->hist = onescope_os_alloc(c->a, rows);
    if (c->hist == NULL) return nomem(c, error, "the hash rows");
    c->hist[0] = onescope_world_hash(c->w[ORIG]);

    bool snapshots = c->m->snapshot != NULL;
    if (!snapshots) skip(c, ONESCOPE_MODULE_CHECK_SNAPSHOT, "snapshot");
    if (!snapshots) skip(c, ONESCOPE_MODULE_CHECK_RESTORE, "snapshot");
    if (c->m->stage_count == 0)
        skip(c, ONESCOPE_MODULE_CHECK_STAGES, "run_stage");
    else if (!snapshots)
        skip(c, ONESCOPE_MODULE_CHECK_STAGES, "snapshot");
    if (!has_values(c)) skip(c, ONESCOPE_MODULE_CHECK_HASH, "values");
    uint32_t every = d->restore_every ? d->restore_every : 1;

    for (uint64_t i = 0; i < d->steps; i++) {
        OS_TRY(input_of(c, i, error));
        if (snapshots && c->w[RESTORED] == NULL && i % every == 0) {
            OS_TRY(round_trip(c, i, error));
            c->r_left = d->horizon;
            if (c->r_left == 0 || c->w[RESTORED] == NULL) restored_free(c);
        }
        OS_TRY(onescope_world_step(c->w[ORIG], c->in, c->in_size, error));
        c->hist[i + 1] = onescope_world_hash(c->w[ORIG]);
        if (c->w[SECOND] != NULL && has_values(c)) OS_TRY(cover_step(c, i, error));
        if (c->w[SECOND] != NULL)
            OS_TRY(second_step(c, i, i % every == 0, error));
        else if (has_values(c)) /* the second world is gone: coverage in the original */
            OS_TRY(cover(c, c->w[ORIG], i, ONESCOPE_MODULE_CHECK_NO_STAGE, &c->b_hash, &c->bprev,
                         error));
        if (c->w[RESTORED] != NULL) OS_TRY(restored_step(c, i, error));
        /* after the stage coverage, which names a stage when one alone moves a value */
        if (c->trip.data != NULL) OS_TRY(probes(c, i, error));
        c->out->steps = i + 1;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_module_check_run(const onescope_module *module, const void *setup,
                                        size_t setup_size, const onescope_module_check_def *def,
                                        const onescope_allocator *allocator,
                                        onescope_module_check_result *out, onescope_error *error) {
    if (out == NULL || module == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "module check", OS_NO_OFFSET,
                                out == NULL ? "out" : "module", "a pointer", "NULL");
    memset(out, 0, sizeof *out);
    onescope_module_check_def defaults = onescope_module_check_def_default();
    check c;
    memset(&c, 0, sizeof c);
    c.module = module, c.m = module, c.a = allocator, c.def = def ? def : &defaults;
    c.setup = setup, c.setup_size = setup_size, c.out = out;
    onescope_error_clear(error);
    onescope_code rc = run(&c, error);
    for (int k = 0; k < 3; k++) onescope_world_free(c.w[k]);
    values_free(&c, &c.bprev);
    values_free(&c, &c.rprev);
    values_free(&c, &c.cur);
    values_free(&c, &c.x);
    values_free(&c, &c.y);
    onescope_buffer_free(&c.snap[0]);
    onescope_buffer_free(&c.snap[1]);
    onescope_buffer_free(&c.prev);
    onescope_buffer_free(&c.trip);
    onescope_os_free(allocator, c.hist);
    if (rc != ONESCOPE_OK) {
        memset(out, 0, sizeof *out);
        out->failed = 0;
    }
    return rc;
}
