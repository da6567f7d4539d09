/* Where two recordings of one module part (onescope_recording_diff): both run in lockstep
 * through the module's worlds with their own inputs, hashes compared at every row; the step
 * before the first differing row is then run again stage by stage, and every entity's named
 * values are compared after each stage. The module is the only one that knows its worlds, so
 * the diff asks it for nothing but the interface's calls. */
#include <string.h>

#include "recording_internal.h"
#include "run_internal.h"

typedef struct side {
    const onescope_recording *r;
    const char *name;
    onescope_os_run_start start;
    onescope_world *world;
} side;

static void side_init(side *s, const onescope_recording *r, const onescope_module *m,
                      const char *name) {
    memset(s, 0, sizeof *s);
    s->r = r;
    s->name = name;
    s->start.module = m;
    s->start.setup = onescope_recording_setup(r, &s->start.setup_size);
    s->start.snapshot = onescope_recording_start_snapshot(r, &s->start.snapshot_size);
    s->start.step_count = onescope_recording_step_count(r);
}

static onescope_code side_start(side *s, const onescope_allocator *a, onescope_error *error) {
    onescope_world_free(s->world);
    s->world = NULL;
    onescope_code rc = onescope_os_run_start_world(&s->start, a, &s->world, error);
    if (rc != ONESCOPE_OK) onescope_os_run_at_step(error, s->name, s->start.module->id, 0);
    return rc;
}

/* Step i whole, or its next stage when staged. i is below the file's step count. */
static onescope_code side_run(side *s, uint32_t i, bool staged, onescope_error *error) {
    const uint8_t *p;
    size_t n;
    (void)onescope_recording_step_input(s->r, i, &p, &n);
    onescope_code rc = staged ? onescope_world_run_stage(s->world, p, n, error)
                              : onescope_world_step(s->world, p, n, error);
    if (rc != ONESCOPE_OK) onescope_os_run_at_step(error, s->name, s->start.module->id, i);
    return rc;
}

static bool blobs_differ(const void *a, size_t na, const void *b, size_t nb) {
    return na != nb || (na != 0 && memcmp(a, b, na) != 0);
}

/* Compares every common entity's values bit for bit (so -0 and 0 differ, and a NaN equals
 * itself), filling the first difference and the count. va and vb hold value_count each. */
static bool values_differ(const onescope_module *m, const side *a, const side *b, double *va,
                          double *vb, onescope_recording_diff_result *res) {
    uint32_t na = onescope_world_entity_count(a->world), nb = onescope_world_entity_count(b->world);
    uint32_t differing = 0;
    for (uint32_t i = 0; i < na && i < nb; i++) {
        (void)onescope_world_entity_values(a->world, i, va, m->value_count, NULL);
        (void)onescope_world_entity_values(b->world, i, vb, m->value_count, NULL);
        bool any = false;
        for (uint32_t v = 0; v < m->value_count; v++) {
            if (memcmp(&va[v], &vb[v], sizeof va[v]) == 0) continue;
            if (differing == 0 && !any) {
                res->entity = i;
                res->entity_id = onescope_world_entity_id(a->world, i);
                res->value = v;
                res->value_a = va[v];
                res->value_b = vb[v];
            }
            any = true;
        }
        if (any) differing++;
    }
    res->value_differs = differing > 0;
    res->entities_differing = differing;
    res->entity_counts_differ = na != nb;
    return differing > 0 || na != nb;
}

/* The row that differs, explained: at row 0 the start worlds' values; otherwise step row - 1
 * again from the start, stage by stage when the module has stages. */
static onescope_code explain(const onescope_module *m, side *a, side *b,
                             const onescope_allocator *al, double *va, double *vb,
                             onescope_recording_diff_result *res, onescope_error *error) {
    bool values = va != NULL;
    if (res->row == 0) {
        if (values) (void)values_differ(m, a, b, va, vb, res);
        return ONESCOPE_OK;
    }
    uint32_t k = res->row - 1;
    const uint8_t *pa, *pb;
    size_t na, nb;
    (void)onescope_recording_step_input(a->r, k, &pa, &na);
    (void)onescope_recording_step_input(b->r, k, &pb, &nb);
    res->input_differs = blobs_differ(pa, na, pb, nb);
    OS_TRY(side_start(a, al, error));
    OS_TRY(side_start(b, al, error));
    for (uint32_t i = 0; i < k; i++) {
        OS_TRY(side_run(a, i, false, error));
        OS_TRY(side_run(b, i, false, error));
    }
    if (m->stage_count == 0) {
        OS_TRY(side_run(a, k, false, error));
        OS_TRY(side_run(b, k, false, error));
        if (values) (void)values_differ(m, a, b, va, vb, res);
        return ONESCOPE_OK;
    }
    int32_t hash_stage = -1;
    for (uint32_t s = 0; s < m->stage_count; s++) {
        OS_TRY(side_run(a, k, true, error));
        OS_TRY(side_run(b, k, true, error));
        if (values && values_differ(m, a, b, va, vb, res)) {
            res->stage = (int32_t)s;
            break;
        }
        if (hash_stage < 0 && onescope_world_hash(a->world) != onescope_world_hash(b->world))
            hash_stage = (int32_t)s;
    }
    if (res->stage < 0) res->stage = hash_stage;
    if (res->stage >= 0) res->stage_name = m->stage_names[res->stage];
    return ONESCOPE_OK;
}

onescope_code onescope_recording_diff(const onescope_recording *a, const onescope_recording *b,
                                      const onescope_module *module, const onescope_allocator *al,
                                      onescope_recording_diff_result *result, const char *name_a,
                                      const char *name_b, onescope_error *error) {
    onescope_recording_diff_result local;
    if (result == NULL) result = &local;
    memset(result, 0, sizeof *result);
    result->stage = -1;
    if (name_a == NULL) name_a = "<a>";
    if (name_b == NULL) name_b = "<b>";
    OS_TRY(onescope_recording_check(a, module, name_a, error));
    OS_TRY(onescope_recording_check(b, module, name_b, error));
    side sa, sb;
    side_init(&sa, a, module, name_a);
    side_init(&sb, b, module, name_b);
    result->steps_a = sa.start.step_count;
    result->steps_b = sb.start.step_count;
    result->setup_differs =
        blobs_differ(sa.start.setup, sa.start.setup_size, sb.start.setup, sb.start.setup_size) ||
        blobs_differ(sa.start.snapshot, sa.start.snapshot_size, sb.start.snapshot,
                     sb.start.snapshot_size);
    double *va = NULL, *vb = NULL;
    if (module->value_count != 0) {
        va = onescope_os_calloc(al, (size_t)module->value_count * 2, sizeof *va);
        if (va == NULL)
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, name_a, OS_NO_OFFSET, "values", NULL,
                                    "could not allocate %u values", module->value_count * 2);
        vb = va + module->value_count;
    }
    uint32_t n = result->steps_a < result->steps_b ? result->steps_a : result->steps_b;
    bool rows = (onescope_recording_flags(a) & ONESCOPE_RECORDING_FLAG_HASH_ROWS) &&
                (onescope_recording_flags(b) & ONESCOPE_RECORDING_FLAG_HASH_ROWS);
    onescope_code rc = side_start(&sa, al, error);
    if (rc == ONESCOPE_OK) rc = side_start(&sb, al, error);
    for (uint32_t i = 0; rc == ONESCOPE_OK; i++) {
        uint64_t ha = onescope_world_hash(sa.world), hb = onescope_world_hash(sb.world);
        if (ha != hb) {
            result->worlds_differ = true;
            result->row = i;
            result->hash_a = ha;
            result->hash_b = hb;
            break;
        }
        if (rows && !result->rows_differ &&
            onescope_recording_hash_row(a, i) != onescope_recording_hash_row(b, i)) {
            result->rows_differ = true;
            result->rows_row = i;
        }
        result->rows_compared++;
        if (i == n) break;
        rc = side_run(&sa, i, false, error);
        if (rc == ONESCOPE_OK) rc = side_run(&sb, i, false, error);
    }
    if (rc == ONESCOPE_OK && result->worlds_differ)
        rc = explain(module, &sa, &sb, al, va, vb, result, error);
    onescope_world_free(sa.world);
    onescope_world_free(sb.world);
    onescope_os_free(al, va);
    result->different = result->setup_differs || result->steps_a != result->steps_b ||
                        result->worlds_differ || result->rows_differ;
    return rc;
}
