/* Two replays in lockstep: where their worlds first differ, and what differs there.
 * docs/diff.md. Pose caches: src/diff_cache.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diff_internal.h"
#include "internal.h"

static const char *const what_names[] = {"gravity",  "body_count", "alive",   "still_count",
                                         "position", "velocity",   "density", "occupancy"};

const char *onescope_diff_what_name(onescope_diff_what what) {
    return (unsigned)what < sizeof what_names / sizeof what_names[0] ? what_names[what] : "";
}

void onescope_os_diff_names(const onescope_diff_options *o, const char **a, const char **b) {
    *a = o != NULL && o->name_a != NULL ? o->name_a : "a";
    *b = o != NULL && o->name_b != NULL ? o->name_b : "b";
}

void onescope_os_diff_header(onescope_diff_header *items, uint32_t *count, const char *field,
                             const char *a, const char *b) {
    if (strcmp(a, b) == 0 || *count >= ONESCOPE_DIFF_MAX_HEADERS) return;
    onescope_diff_header *h = &items[(*count)++];
    h->field = field;
    onescope_os_copy_text(h->a, sizeof h->a, a);
    onescope_os_copy_text(h->b, sizeof h->b, b);
}

void onescope_os_diff_header_u64(onescope_diff_header *items, uint32_t *count, const char *field,
                                 uint64_t a, uint64_t b) {
    char ta[24], tb[24];
    snprintf(ta, sizeof ta, "%" PRIu64, a);
    snprintf(tb, sizeof tb, "%" PRIu64, b);
    onescope_os_diff_header(items, count, field, ta, tb);
}

static onescope_code nomem(onescope_error *error, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, "onescope_diff", OS_NO_OFFSET, NULL, NULL,
                            "cannot allocate %s", what);
}

/* ---- the headers ---- */

static void replay_headers(const onescope_replay *a, const onescope_replay *b,
                           onescope_diff_replay *d) {
    onescope_sim_setup sa = onescope_replay_setup(a), sb = onescope_replay_setup(b);
    onescope_link_block la = onescope_replay_link(a), lb = onescope_replay_link(b);
    onescope_diff_header *h = d->header;
    uint32_t *n = &d->header_count;
    onescope_os_diff_header_u64(h, n, "dimensions", sa.dimensions, sb.dimensions);
    onescope_os_diff_header_u64(h, n, "body_count", sa.body_count, sb.body_count);
    char ta[24], tb[24];
    snprintf(ta, sizeof ta, "%08" PRIx32, sa.seed);
    snprintf(tb, sizeof tb, "%08" PRIx32, sb.seed);
    onescope_os_diff_header(h, n, "seed", ta, tb);
    onescope_os_diff_header_u64(h, n, "link_role", la.role, lb.role);
    onescope_os_diff_header_u64(h, n, "link_body", la.body, lb.body);
    onescope_os_diff_header_u64(h, n, "link_transfer_step", la.transfer_step, lb.transfer_step);
    bool snap_a = onescope_replay_has_start_snapshot(a);
    bool snap_b = onescope_replay_has_start_snapshot(b);
    onescope_os_diff_header_u64(h, n, "start_snapshot", snap_a, snap_b);
    if (snap_a && snap_b) {
        size_t za, zb;
        const uint8_t *pa = onescope_replay_start_snapshot(a, &za);
        const uint8_t *pb = onescope_replay_start_snapshot(b, &zb);
        snprintf(ta, sizeof ta, "%016" PRIx64, onescope_hash_bytes(pa, za));
        snprintf(tb, sizeof tb, "%016" PRIx64, onescope_hash_bytes(pb, zb));
        onescope_os_diff_header(h, n, "start_snapshot_hash", ta, tb);
    }
    onescope_os_diff_header_u64(h, n, "start_step", onescope_replay_start_step(a),
                                onescope_replay_start_step(b));
    onescope_os_diff_header_u64(h, n, "step_count", onescope_replay_step_count(a),
                                onescope_replay_step_count(b));
    onescope_os_diff_header_u64(h, n, "hash_rows", onescope_replay_has_hash_rows(a),
                                onescope_replay_has_hash_rows(b));
}

/* The recorded rows where the worlds agree (rows 0..steps_compared; none when they differ
 * at the start): the first that differs. */
static void hash_rows(const onescope_replay *a, const onescope_replay *b, onescope_diff_replay *d) {
    const uint64_t *ha = onescope_replay_hash_rows(a), *hb = onescope_replay_hash_rows(b);
    if (ha == NULL || hb == NULL || d->at_start) return;
    for (uint32_t i = 0; i <= d->steps_compared; i++) {
        if (ha[i] == hb[i]) continue;
        d->hash_rows_differ = true;
        d->different = true;
        d->hash_row = i;
        d->hash_a = ha[i];
        d->hash_b = hb[i];
        return;
    }
}

/* ---- the worlds ---- */

/* Every value the worlds hold, in a fixed order; 2 + 64 x 8 + 81 + 128 at most. */
#define MAX_VALUES (2u + ONESCOPE_SIM_MAX_BODIES * 8u + 81u + 128u)

typedef struct value_list {
    uint32_t count;
    onescope_diff_value v[MAX_VALUES];
} value_list;

static void add(value_list *l, onescope_diff_what what, uint32_t index, uint8_t axis, int64_t a,
                int64_t b) {
    if (a == b) return;
    onescope_diff_value *v = &l->v[l->count++];
    v->what = what;
    v->index = index;
    v->axis = axis;
    v->a = a;
    v->b = b;
}

static void world_values(const onescope_sim *a, const onescope_sim *b, value_list *l) {
    l->count = 0;
    add(l, ONESCOPE_DIFF_GRAVITY, 0, 0, onescope_sim_gravity(a), onescope_sim_gravity(b));
    uint32_t na = onescope_sim_body_count(a), nb = onescope_sim_body_count(b);
    add(l, ONESCOPE_DIFF_BODY_COUNT, 0, 0, na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        onescope_sim_body_state x, y;
        onescope_sim_body(a, i, &x);
        onescope_sim_body(b, i, &y);
        add(l, ONESCOPE_DIFF_ALIVE, i, 0, x.alive, y.alive);
        add(l, ONESCOPE_DIFF_STILL_COUNT, i, 0, x.still_count, y.still_count);
        for (uint8_t k = 0; k < 3; k++)
            add(l, ONESCOPE_DIFF_POSITION, i, k, x.position[k], y.position[k]);
        for (uint8_t k = 0; k < 3; k++)
            add(l, ONESCOPE_DIFF_VELOCITY, i, k, x.velocity[k], y.velocity[k]);
    }
    if (!onescope_sim_has_fields(a) || !onescope_sim_has_fields(b)) return;
    int32_t fa[ONESCOPE_SIM_GRID_TRIANGLES], fb[ONESCOPE_SIM_GRID_TRIANGLES];
    static const onescope_field_id ids[2] = {ONESCOPE_FIELD_DENSITY, ONESCOPE_FIELD_OCCUPANCY};
    static const onescope_diff_what whats[2] = {ONESCOPE_DIFF_DENSITY, ONESCOPE_DIFF_OCCUPANCY};
    for (int f = 0; f < 2; f++) {
        size_t n = onescope_field_describe(ids[f])->value_count;
        onescope_sim_field(a, ids[f], fa, n, NULL);
        onescope_sim_field(b, ids[f], fb, n, NULL);
        for (size_t i = 0; i < n; i++) add(l, whats[f], (uint32_t)i, 0, fa[i], fb[i]);
    }
}

/* The snapshots agree past the host step (start steps may differ; that is a header item). */
static bool same_state(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    return na == nb && memcmp(a + 8, b + 8, na - 8) == 0;
}

static bool same_op(const onescope_op *x, const onescope_op *y) {
    return x->code == y->code && x->body == y->body && x->value[0] == y->value[0] &&
           x->value[1] == y->value[1] && x->value[2] == y->value[2];
}

/* The first operation of one step where the two inputs differ. */
static void input_ops(onescope_diff_replay *d, uint8_t dims_a, uint8_t dims_b, const uint8_t *pa,
                      size_t na, const uint8_t *pb, size_t nb) {
    onescope_op_reader ra, rb;
    onescope_op_reader_init(&ra, dims_a, pa, na, "a", 0);
    onescope_op_reader_init(&rb, dims_b, pb, nb, "b", 0);
    for (uint32_t i = 0;; i++) {
        onescope_op x, y;
        int ka = onescope_op_reader_next(&ra, &x, NULL);
        int kb = onescope_op_reader_next(&rb, &y, NULL);
        if (ka == 1 && kb == 1 && same_op(&x, &y)) continue;
        d->op_index = i;
        d->has_op_a = ka == 1;
        d->has_op_b = kb == 1;
        if (ka == 1) d->op_a = x;
        if (kb == 1) d->op_b = y;
        return;
    }
}

typedef struct lockstep {
    const onescope_replay *ra, *rb;
    const onescope_allocator *allocator;
    onescope_sim *a, *b;
    uint8_t *snap; /* four snapshots: before (a, b), after (a, b) */
    size_t size[4];
    value_list values;
} lockstep;

static void take(lockstep *s, int slot, const onescope_sim *w) {
    s->size[slot] = onescope_sim_snapshot(w, s->snap + (size_t)slot * ONESCOPE_SIM_MAX_SNAPSHOT,
                                          ONESCOPE_SIM_MAX_SNAPSHOT);
}

static const uint8_t *slot_bytes(const lockstep *s, int slot) {
    return s->snap + (size_t)slot * ONESCOPE_SIM_MAX_SNAPSHOT;
}

/* The worlds differ after step `step` (the "before" slots hold both at its start): put both
 * back there and run the step again stage by stage to find the stage. */
static onescope_code find_stage(lockstep *s, onescope_diff_replay *d, const uint8_t *pa, size_t na,
                                const uint8_t *pb, size_t nb, onescope_error *error) {
    onescope_sim *w[2] = {NULL, NULL};
    const onescope_sim *old[2] = {s->a, s->b};
    onescope_code rc = ONESCOPE_OK;
    for (int k = 0; k < 2 && rc == ONESCOPE_OK; k++) {
        onescope_sim_def def = onescope_sim_definition(old[k]);
        rc = onescope_sim_create_from_snapshot(&def, slot_bytes(s, k), s->size[k], "diff",
                                               s->allocator, &w[k], error);
    }
    d->stage = ONESCOPE_SIM_STAGE_BOOKKEEPING;
    for (int stage = 0; rc == ONESCOPE_OK && stage < ONESCOPE_SIM_STAGE_COUNT; stage++) {
        rc = onescope_sim_run_stage(w[0], pa, na, error);
        if (rc == ONESCOPE_OK) rc = onescope_sim_run_stage(w[1], pb, nb, error);
        if (rc != ONESCOPE_OK) break;
        world_values(w[0], w[1], &s->values);
        if (s->values.count > 0) {
            d->stage = (onescope_sim_stage)stage;
            break;
        }
    }
    /* Past the last stage without a difference cannot happen (the step's end states
     * differed); the step's own end values are then the answer. */
    if (rc == ONESCOPE_OK && s->values.count == 0) world_values(s->a, s->b, &s->values);
    onescope_sim_free(w[0]);
    onescope_sim_free(w[1]);
    return rc;
}

static onescope_code keep_values(lockstep *s, onescope_diff_replay *d, uint32_t max,
                                 onescope_error *error) {
    d->diverged = true;
    d->different = true;
    d->value_total = s->values.count;
    d->value_count = s->values.count < max ? s->values.count : max;
    if (d->value_count == 0) return ONESCOPE_OK;
    d->values = onescope_os_calloc(d->allocator, d->value_count, sizeof *d->values);
    if (d->values == NULL) return nomem(error, "the differing values");
    memcpy(d->values, s->values.v, d->value_count * sizeof *d->values);
    return ONESCOPE_OK;
}

static onescope_code run_lockstep(lockstep *s, onescope_diff_replay *d, uint32_t max,
                                  onescope_error *error) {
    OS_TRY(onescope_replay_start_world(s->ra, s->allocator, &s->a, error));
    OS_TRY(onescope_replay_start_world(s->rb, s->allocator, &s->b, error));
    uint8_t da = onescope_sim_dimensions(s->a), db = onescope_sim_dimensions(s->b);
    take(s, 0, s->a);
    take(s, 1, s->b);
    world_values(s->a, s->b, &s->values);
    if (s->values.count > 0) {
        d->at_start = true;
        d->host_step_a = onescope_sim_host_step(s->a);
        d->host_step_b = onescope_sim_host_step(s->b);
        return keep_values(s, d, max, error);
    }
    uint32_t steps = onescope_replay_step_count(s->ra);
    if (onescope_replay_step_count(s->rb) < steps) steps = onescope_replay_step_count(s->rb);
    for (uint32_t i = 0; i < steps; i++) {
        const uint8_t *pa, *pb;
        size_t na, nb;
        onescope_replay_step_input(s->ra, i, &pa, &na);
        onescope_replay_step_input(s->rb, i, &pb, &nb);
        bool inputs_differ = na != nb || (na > 0 && memcmp(pa, pb, na) != 0);
        if (inputs_differ && !d->has_input_step) {
            d->has_input_step = true;
            d->first_input_step = i;
        }
        OS_TRY(onescope_sim_step(s->a, pa, na, error));
        OS_TRY(onescope_sim_step(s->b, pb, nb, error));
        take(s, 2, s->a);
        take(s, 3, s->b);
        if (same_state(slot_bytes(s, 2), s->size[2], slot_bytes(s, 3), s->size[3])) {
            /* The "after" pair becomes the next step's "before" pair. */
            memcpy(s->snap, slot_bytes(s, 2), s->size[2]);
            memcpy(s->snap + ONESCOPE_SIM_MAX_SNAPSHOT, slot_bytes(s, 3), s->size[3]);
            s->size[0] = s->size[2];
            s->size[1] = s->size[3];
            d->steps_compared = i + 1;
            continue;
        }
        d->step = i;
        d->host_step_a = onescope_os_get_u64(slot_bytes(s, 0));
        d->host_step_b = onescope_os_get_u64(slot_bytes(s, 1));
        d->inputs_differ = inputs_differ;
        if (inputs_differ) input_ops(d, da, db, pa, na, pb, nb);
        OS_TRY(find_stage(s, d, pa, na, pb, nb, error));
        return keep_values(s, d, max, error);
    }
    return ONESCOPE_OK;
}

onescope_code onescope_diff_replays(const onescope_replay *a, const onescope_replay *b,
                                    const onescope_diff_options *options,
                                    const onescope_allocator *allocator, onescope_diff_replay **out,
                                    onescope_error *error) {
    if (a == NULL || b == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_diff_replays", OS_NO_OFFSET,
                                NULL, NULL, "a, b and out must not be NULL");
    *out = NULL;
    uint32_t max = options != NULL && options->max_items != 0 ? options->max_items
                                                              : ONESCOPE_DIFF_DEFAULT_ITEMS;
    onescope_diff_replay *d = onescope_os_calloc(allocator, 1, sizeof *d);
    if (d == NULL) return nomem(error, "a replay diff");
    d->allocator = allocator;
    replay_headers(a, b, d);
    d->different = d->header_count > 0;
    lockstep *s = onescope_os_calloc(allocator, 1, sizeof *s);
    uint8_t *snap = onescope_os_alloc(allocator, 4 * (size_t)ONESCOPE_SIM_MAX_SNAPSHOT);
    onescope_code rc = ONESCOPE_OK;
    if (s == NULL || snap == NULL) {
        rc = nomem(error, "the lockstep state");
    } else {
        s->ra = a;
        s->rb = b;
        s->allocator = allocator;
        s->snap = snap;
        rc = run_lockstep(s, d, max, error);
        if (rc == ONESCOPE_OK) hash_rows(a, b, d);
        onescope_sim_free(s->a);
        onescope_sim_free(s->b);
    }
    onescope_os_free(allocator, snap);
    onescope_os_free(allocator, s);
    if (rc != ONESCOPE_OK) {
        onescope_diff_replay_free(d);
        return rc;
    }
    *out = d;
    return ONESCOPE_OK;
}

void onescope_diff_replay_free(onescope_diff_replay *d) {
    if (d == NULL) return;
    onescope_os_free(d->allocator, d->values);
    onescope_os_free(d->allocator, d);
}
