/* Where two runs of one module part, for any module: both worlds run in lockstep with their
 * own inputs and are compared at every row; the step before the first differing row is then
 * run again from the start, stage by stage when the module has stages, and the named values
 * (every entity's, then the world's) are compared after each stage. The module is the only
 * one that knows its worlds: this file asks it for nothing but the interface's calls. Used by
 * the diff of two OSTM v1 replays (diff.c) and of two module recordings (recording_diff.c). */
#include <inttypes.h>
#include <string.h>

#include "run_internal.h"

typedef struct side {
    const onescope_os_diff_side *s;
    onescope_world *world;
} side;

static onescope_code side_start(side *s, const onescope_allocator *a, onescope_error *error) {
    onescope_world_free(s->world);
    s->world = NULL;
    onescope_code rc = onescope_os_run_start_world(&s->s->start, a, &s->world, error);
    if (rc != ONESCOPE_OK) onescope_os_run_start_failed(&s->s->start, error, s->s->name, 0);
    return rc;
}

/* Step i whole, or its next stage. i is below the side's step count. */
static onescope_code side_run(side *s, uint32_t i, bool staged, onescope_error *error) {
    const uint8_t *p = NULL;
    size_t n = 0;
    uint64_t at = OS_NO_OFFSET;
    onescope_code rc = s->s->input(s->s->user, i, &p, &n, &at, error);
    if (rc == ONESCOPE_OK)
        rc = staged ? onescope_world_run_stage(s->world, p, n, error)
                    : onescope_world_step(s->world, p, n, error);
    if (rc != ONESCOPE_OK)
        onescope_os_run_at_step(error, s->s->name, s->s->start.module->id, i, at, n);
    return rc;
}

/* Room for one world's values: value_count per entity (read one entity at a time) and every
 * world value's elements, for each side. */
typedef struct scratch {
    double *ea, *eb; /* value_count each */
    double *wa, *wb; /* the world values' elements each */
    uint32_t nv, nw;
    uint32_t max_values; /* values listed at most */
} scratch;

static void add(onescope_os_diff_found *f, const onescope_diff_value *v) {
    if (f->value_total++ < f->value_room) f->values[f->value_count++] = *v;
}

/* Room for the values a listing can find: max_values, or fewer when the worlds hold fewer. */
static onescope_code make_room(onescope_os_diff_found *f, uint32_t common, const scratch *x,
                               uint32_t max_values, const char *name, onescope_error *error) {
    uint64_t can = (uint64_t)common * x->nv + x->nw;
    uint32_t need = can < max_values ? (uint32_t)can : max_values;
    if (need <= f->value_room) return ONESCOPE_OK;
    onescope_os_free(f->allocator, f->values);
    f->value_room = 0;
    f->values = onescope_os_calloc(f->allocator, need, sizeof *f->values);
    if (f->values == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "values", NULL,
                                "could not allocate %" PRIu32 " differing values", need);
    f->value_room = need;
    return ONESCOPE_OK;
}

/* Whether anything differs (a value, bit for bit, so -0 and 0 differ and a NaN equals itself,
 * or the entity counts); with list, every differing value is counted and the first listed:
 * the common entities' values in index order, then the world values. */
static onescope_code compare(const onescope_module *m, const side *a, const side *b, scratch *x,
                             onescope_os_diff_found *f, bool list, bool *any,
                             onescope_error *error) {
    uint32_t na = onescope_world_entity_count(a->world), nb = onescope_world_entity_count(b->world);
    uint32_t common = na < nb ? na : nb;
    *any = na != nb;
    if (*any && !list) return ONESCOPE_OK;
    if (list) {
        OS_TRY(make_room(f, common, x, x->max_values, a->s->name, error));
        f->value_total = f->value_count = 0;
        f->entities_differing = 0;
        f->world_differs = false;
        f->entity_counts_differ = na != nb;
        f->entity_count_a = na;
        f->entity_count_b = nb;
    }
    for (uint32_t i = 0; x->nv != 0 && i < common; i++) {
        (void)onescope_world_entity_values(a->world, i, x->ea, x->nv, NULL);
        (void)onescope_world_entity_values(b->world, i, x->eb, x->nv, NULL);
        if (memcmp(x->ea, x->eb, x->nv * sizeof *x->ea) == 0) continue;
        *any = true;
        if (!list) return ONESCOPE_OK;
        f->entities_differing++;
        for (uint32_t v = 0; v < x->nv; v++) {
            if (memcmp(&x->ea[v], &x->eb[v], sizeof x->ea[v]) == 0) continue;
            onescope_diff_value d = {false,
                                     i,
                                     onescope_world_entity_id(a->world, i),
                                     v,
                                     m->values[v].name,
                                     m->values[v].unit,
                                     x->ea[v],
                                     x->eb[v]};
            add(f, &d);
        }
    }
    if (x->nw == 0) return ONESCOPE_OK;
    (void)onescope_world_values(a->world, x->wa, x->nw, NULL);
    (void)onescope_world_values(b->world, x->wb, x->nw, NULL);
    if (memcmp(x->wa, x->wb, x->nw * sizeof *x->wa) == 0) return ONESCOPE_OK;
    *any = true;
    if (!list) return ONESCOPE_OK;
    uint32_t at = 0;
    for (uint32_t v = 0; v < m->world_value_count; v++) {
        const onescope_world_value_info *vi = &m->world_values[v];
        for (uint32_t e = 0; e < vi->count; e++, at++) {
            if (memcmp(&x->wa[at], &x->wb[at], sizeof x->wa[at]) == 0) continue;
            onescope_diff_value d = {true, e, 0, v, vi->name, vi->unit, x->wa[at], x->wb[at]};
            if (!f->world_differs) f->first_world = d;
            f->world_differs = true;
            add(f, &d);
        }
    }
    return ONESCOPE_OK;
}

/* Do the worlds agree at this row? By hash when the hashes are comparable, else by values. */
static bool rows_agree(const onescope_module *m, const side *a, const side *b, scratch *x,
                       onescope_os_diff_found *f, bool by_hash) {
    if (by_hash) return onescope_world_hash(a->world) == onescope_world_hash(b->world);
    bool any;
    (void)compare(m, a, b, x, f, false, &any, NULL); /* a verdict allocates nothing */
    return !any;
}

/* The row that differs, explained: at row 0 the start worlds' values; otherwise step row - 1
 * again from the start, stage by stage when the module has stages. */
static onescope_code explain(const onescope_module *m, side *a, side *b, scratch *x,
                             const onescope_allocator *al, onescope_os_diff_found *f,
                             onescope_error *error) {
    bool any;
    if (f->row == 0) return compare(m, a, b, x, f, true, &any, error);
    uint32_t k = f->row - 1;
    OS_TRY(side_start(a, al, error));
    OS_TRY(side_start(b, al, error));
    for (uint32_t i = 0; i < k; i++) {
        OS_TRY(side_run(a, i, false, error));
        OS_TRY(side_run(b, i, false, error));
        f->steps_run++;
    }
    f->steps_run++; /* step k, whole or stage by stage */
    if (m->stage_count == 0) {
        OS_TRY(side_run(a, k, false, error));
        OS_TRY(side_run(b, k, false, error));
        return compare(m, a, b, x, f, true, &any, error);
    }
    int32_t hash_stage = -1;
    for (uint32_t s = 0; s < m->stage_count; s++) {
        OS_TRY(side_run(a, k, true, error));
        OS_TRY(side_run(b, k, true, error));
        OS_TRY(compare(m, a, b, x, f, true, &any, error));
        if (any) {
            f->stage = (int32_t)s;
            return ONESCOPE_OK;
        }
        if (hash_stage < 0 && onescope_world_hash(a->world) != onescope_world_hash(b->world))
            hash_stage = (int32_t)s;
    }
    f->stage = hash_stage; /* no value shows it: the hash covers state the values do not */
    return ONESCOPE_OK;
}

/* The lockstep, or with a known row (below UINT32_MAX) straight to its explanation. */
static onescope_code diff_run(const onescope_os_diff_side *da, const onescope_os_diff_side *db,
                              bool by_hash, uint32_t max_values, uint32_t known_row,
                              const onescope_allocator *al, onescope_os_diff_found *f,
                              onescope_error *error) {
    const onescope_module *m = da->start.module;
    memset(f, 0, sizeof *f);
    f->stage = -1;
    f->allocator = al;
    scratch x = {NULL, NULL, NULL, NULL, m->value_count, 0, max_values};
    for (uint32_t v = 0; v < m->world_value_count; v++) x.nw += m->world_values[v].count;
    size_t doubles = 2 * ((size_t)x.nv + x.nw);
    if (!by_hash && doubles == 0)
        return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, da->name, OS_NO_OFFSET, "module",
                                "named values (the start steps differ, so hashes cannot tell)",
                                "module '%s' has none", m->id);
    double *buf = NULL;
    if (doubles != 0) {
        buf = onescope_os_calloc(al, doubles, sizeof *buf);
        if (buf == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, da->name, OS_NO_OFFSET, "values", NULL,
                                    "could not allocate %zu values", doubles);
        x.ea = buf;
        x.eb = x.ea + x.nv;
        x.wa = x.eb + x.nv;
        x.wb = x.wa + x.nw;
    }
    side a = {da, NULL}, b = {db, NULL};
    uint32_t n =
        da->start.step_count < db->start.step_count ? da->start.step_count : db->start.step_count;
    onescope_code rc = side_start(&a, al, error);
    if (rc == ONESCOPE_OK) rc = side_start(&b, al, error);
    if (known_row != UINT32_MAX) { /* the rows before agree as recorded */
        f->differ = true;
        f->row = known_row;
        f->rows_compared = known_row;
    }
    for (uint32_t i = 0; rc == ONESCOPE_OK && known_row == UINT32_MAX; i++) {
        if (!rows_agree(m, &a, &b, &x, f, by_hash)) {
            f->differ = true;
            f->row = i;
            f->hash_a = onescope_world_hash(a.world);
            f->hash_b = onescope_world_hash(b.world);
            break;
        }
        f->rows_compared++;
        if (i == n) break;
        rc = side_run(&a, i, false, error);
        if (rc == ONESCOPE_OK) rc = side_run(&b, i, false, error);
        f->steps_run++;
    }
    if (rc == ONESCOPE_OK && f->differ) rc = explain(m, &a, &b, &x, al, f, error);
    if (rc == ONESCOPE_OK && known_row != UINT32_MAX) { /* do the worlds differ there? */
        f->hash_a = onescope_world_hash(a.world);
        f->hash_b = onescope_world_hash(b.world);
        f->differ = !rows_agree(m, &a, &b, &x, f, by_hash);
        if (!f->differ) f->rows_compared++;
    }
    onescope_world_free(a.world);
    onescope_world_free(b.world);
    onescope_os_free(al, buf);
    if (rc != ONESCOPE_OK) onescope_os_diff_found_free(f);
    return rc;
}

onescope_code onescope_os_diff_run(const onescope_os_diff_side *da, const onescope_os_diff_side *db,
                                   bool by_hash, uint32_t max_values, const onescope_allocator *al,
                                   onescope_os_diff_found *f, onescope_error *error) {
    return diff_run(da, db, by_hash, max_values, UINT32_MAX, al, f, error);
}

onescope_code onescope_os_diff_explain_row(const onescope_os_diff_side *da,
                                           const onescope_os_diff_side *db, uint32_t row,
                                           uint32_t max_values, const onescope_allocator *al,
                                           onescope_os_diff_found *f, onescope_error *error) {
    return diff_run(da, db, true, max_values, row, al, f, error);
}

void onescope_os_diff_found_free(onescope_os_diff_found *f) {
    onescope_os_free(f->allocator, f->values);
    f->values = NULL;
    f->value_count = 0;
}
