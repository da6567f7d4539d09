/* Two replays in lockstep: where their worlds first differ, and what differs there.
 * docs/diff.md. Pose caches: src/diff_cache.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diff_internal.h"
#include "internal.h"
#include "run_internal.h"

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

/* ---- the worlds, through the test module ---- */

static bool same_op(const onescope_op *x, const onescope_op *y) {
    return x->code == y->code && x->body == y->body && x->value[0] == y->value[0] &&
           x->value[1] == y->value[1] && x->value[2] == y->value[2];
}

/* The first operation of one step where the two inputs differ (the OSTM v1 operations). */
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

static bool inputs_differ(const onescope_replay *a, const onescope_replay *b, uint32_t i) {
    const uint8_t *pa, *pb;
    size_t na, nb;
    (void)onescope_replay_step_input(a, i, &pa, &na);
    (void)onescope_replay_step_input(b, i, &pb, &nb);
    return na != nb || (na > 0 && memcmp(pa, pb, na) != 0);
}

static onescope_code replay_input(const void *user, uint32_t i, const uint8_t **data, size_t *size,
                                  uint64_t *at, onescope_error *error) {
    (void)error, (void)at; /* a parsed replay keeps no input offsets */
    return onescope_replay_step_input(user, i, data, size);
}

/* The lockstep's findings in the replay diff's terms: a differing row r > 0 is step r - 1. */
static onescope_code lockstep(const onescope_replay *a, const onescope_replay *b,
                              const onescope_diff_options *o, uint32_t max, onescope_diff_replay *d,
                              onescope_error *error) {
    const char *name_a, *name_b;
    onescope_os_diff_names(o, &name_a, &name_b);
    uint8_t blob_a[10], blob_b[10];
    onescope_os_diff_side sa, sb;
    onescope_os_replay_diff_side(a, name_a, blob_a, &sa);
    onescope_os_replay_diff_side(b, name_b, blob_b, &sb);
    sa.input = sb.input = replay_input;
    /* The test module's hash covers the host step: replays starting at different host steps
     * are compared by their values instead, which are the rest of its state. */
    bool by_hash = sa.start.start_step == sb.start.start_step;
    onescope_os_diff_found f;
    OS_TRY(onescope_os_diff_run(&sa, &sb, by_hash, max, d->allocator, &f, error));
    d->steps_compared = f.differ ? (f.row > 0 ? f.row - 1 : 0) : f.rows_compared - 1;
    if (f.differ) {
        d->diverged = d->different = true;
        d->at_start = f.row == 0;
        d->step = f.row > 0 ? f.row - 1 : 0;
        d->host_step_a = sa.start.start_step + d->step;
        d->host_step_b = sb.start.start_step + d->step;
        d->stage = f.stage >= 0 ? (onescope_sim_stage)f.stage : ONESCOPE_SIM_STAGE_BOOKKEEPING;
        d->value_total = f.value_total;
        d->value_count = f.value_count;
        d->values = f.values; /* the diff owns them now (same allocator) */
        d->entity_counts_differ = f.entity_counts_differ;
        d->entity_count_a = f.entity_count_a;
        d->entity_count_b = f.entity_count_b;
        if (!d->at_start && inputs_differ(a, b, d->step)) {
            const uint8_t *pa, *pb;
            size_t na, nb;
            (void)onescope_replay_step_input(a, d->step, &pa, &na);
            (void)onescope_replay_step_input(b, d->step, &pb, &nb);
            d->inputs_differ = true;
            input_ops(d, onescope_replay_setup(a).dimensions, onescope_replay_setup(b).dimensions,
                      pa, na, pb, nb);
        }
    }
    /* The first step whose inputs differ, at or before the divergence (anywhere without one). */
    uint32_t last = onescope_replay_step_count(a) < onescope_replay_step_count(b)
                        ? onescope_replay_step_count(a)
                        : onescope_replay_step_count(b);
    if (d->diverged) last = d->at_start ? 0 : d->step + 1;
    for (uint32_t i = 0; i < last; i++) {
        if (!inputs_differ(a, b, i)) continue;
        d->has_input_step = true;
        d->first_input_step = i;
        break;
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
    onescope_code rc = lockstep(a, b, options, max, d, error);
    if (rc == ONESCOPE_OK) hash_rows(a, b, d);
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
