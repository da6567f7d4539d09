/* Where two recordings of one module part (onescope_recording_diff): both files checked
 * against the module, then run through the one lockstep (src/module_diff.c), compared by
 * hash at every row; the result says the row, the stage, the first differing entity value
 * and world value, and where the recorded rows disagree although the worlds agree. */
#include <string.h>

#include "recording_internal.h"
#include "run_internal.h"

static onescope_code recording_input(const void *user, uint32_t i, const uint8_t **data,
                                     size_t *size, onescope_error *error) {
    (void)error;
    return onescope_recording_step_input(user, i, data, size);
}

static void side_init(onescope_os_diff_side *s, const onescope_recording *r,
                      const onescope_module *m, const char *name) {
    memset(s, 0, sizeof *s);
    s->name = name;
    s->start = onescope_os_recording_start(r, m);
    s->input = recording_input;
    s->user = r;
}

static bool blobs_differ(const void *a, size_t na, const void *b, size_t nb) {
    return na != nb || (na != 0 && memcmp(a, b, na) != 0);
}

/* The lockstep's findings in the result's terms: the first entity value and the first world
 * value, with the counts. */
static void take_found(const onescope_os_diff_found *f, const onescope_module *m,
                       onescope_recording_diff_result *res) {
    res->worlds_differ = f->differ;
    res->rows_compared = f->rows_compared;
    if (!f->differ) return;
    res->row = f->row;
    res->hash_a = f->hash_a;
    res->hash_b = f->hash_b;
    res->stage = f->stage;
    if (f->stage >= 0) res->stage_name = m->stage_names[f->stage];
    res->entities_differing = f->entities_differing;
    res->entity_counts_differ = f->entity_counts_differ;
    res->value_total = f->value_total;
    if (f->value_count > 0 && !f->values[0].world) { /* entity values come first */
        const onescope_diff_value *v = &f->values[0];
        res->value_differs = true;
        res->entity = v->index;
        res->entity_id = v->entity_id;
        res->value = v->value;
        res->value_a = v->a;
        res->value_b = v->b;
    }
    if (f->world_differs) {
        res->world_value_differs = true;
        res->world_value = f->first_world.value;
        res->world_index = f->first_world.index;
        res->world_value_a = f->first_world.a;
        res->world_value_b = f->first_world.b;
    }
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
    onescope_os_diff_side sa, sb;
    side_init(&sa, a, module, name_a);
    side_init(&sb, b, module, name_b);
    result->steps_a = sa.start.step_count;
    result->steps_b = sb.start.step_count;
    result->setup_differs =
        blobs_differ(sa.start.setup, sa.start.setup_size, sb.start.setup, sb.start.setup_size) ||
        blobs_differ(sa.start.snapshot, sa.start.snapshot_size, sb.start.snapshot,
                     sb.start.snapshot_size);
    onescope_os_diff_found f;
    OS_TRY(onescope_os_diff_run(&sa, &sb, true, 1, al, &f, error));
    take_found(&f, module, result);
    onescope_os_diff_found_free(&f);
    if (result->worlds_differ && result->row > 0) {
        const uint8_t *pa, *pb;
        size_t na, nb;
        (void)onescope_recording_step_input(a, result->row - 1, &pa, &na);
        (void)onescope_recording_step_input(b, result->row - 1, &pb, &nb);
        result->input_differs = blobs_differ(pa, na, pb, nb);
    }
    /* The recorded rows where the worlds agree: the first that differs. */
    if ((onescope_recording_flags(a) & ONESCOPE_RECORDING_FLAG_HASH_ROWS) &&
        (onescope_recording_flags(b) & ONESCOPE_RECORDING_FLAG_HASH_ROWS)) {
        for (uint32_t i = 0; i < result->rows_compared; i++) {
            if (onescope_recording_hash_row(a, i) == onescope_recording_hash_row(b, i)) continue;
            result->rows_differ = true;
            result->rows_row = i;
            break;
        }
    }
    result->different = result->setup_differs || result->steps_a != result->steps_b ||
                        result->worlds_differ || result->rows_differ;
    return ONESCOPE_OK;
}
