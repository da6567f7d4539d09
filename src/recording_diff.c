/* Where two recordings of one module part (onescope_recording_diff): both files checked
 * against the module, then run through the one lockstep (src/module_diff.c), compared by
 * hash at every row; the result says the row, the stage, the first differing entity value
 * and world value, and where the recorded rows disagree although the worlds agree. */
#include <string.h>

#include "recording_internal.h"
#include "run_internal.h"

/* A recording's inputs from row `from` on (a run that starts at a keyframe). */
typedef struct from_row {
    const onescope_recording *r;
    uint32_t from;
} from_row;

static onescope_code recording_input(const void *user, uint32_t i, const uint8_t **data,
                                     size_t *size, uint64_t *at, onescope_error *error) {
    (void)error;
    const from_row *f = user;
    OS_TRY(onescope_recording_step_input(f->r, f->from + i, data, size));
    *at = onescope_os_rec_input_at(f->r, f->from + i);
    return ONESCOPE_OK;
}

static void side_init(onescope_os_diff_side *s, from_row *f, const onescope_recording *r,
                      const onescope_module *m, const char *name) {
    memset(s, 0, sizeof *s);
    s->name = name;
    s->start = onescope_os_recording_start(r, m);
    s->input = recording_input;
    f->r = r;
    f->from = 0;
    s->user = f;
}

/* The first row whose recorded hashes differ (both files hold hash rows), or UINT32_MAX. The
 * rows are compared one by one: a bisection would miss a difference the worlds later heal. */
static uint32_t first_row_differing(const onescope_recording *a, const onescope_recording *b,
                                    uint32_t rows) {
    for (uint32_t i = 0; i < rows; i++)
        if (onescope_recording_hash_row(a, i) != onescope_recording_hash_row(b, i)) return i;
    return UINT32_MAX;
}

/* Whether the world restored from keyframe k of r is the file's world at its row: its hash
 * row, entity row and table (the explanation's proof, src/recording_run.c). */
static bool keyframe_holds(const onescope_recording *r, const onescope_keyframe *k,
                           const onescope_world *w, const onescope_allocator *al) {
    if (onescope_world_hash(w) != onescope_recording_hash_row(r, k->row)) return false;
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    int32_t map[ONESCOPE_RECORDING_MAX_KEY_VALUES];
    onescope_os_table_map(onescope_world_module(w), onescope_os_rec_bytes(r) + h->keys_head_at,
                          h->key_values, map);
    uint32_t compared, differing;
    onescope_error ignored;
    return onescope_os_table_compare(k, map, w, al, NULL, NULL, &compared, &differing, "<diff>",
                                     &ignored) == ONESCOPE_OK &&
           differing == 0;
}

/* Starts both sides at the last keyframe before row `row` (rows before it agree as recorded
 * and so do the inputs) when both files' keyframes there prove themselves and restore to one
 * world; the sides then run to their ends. True when it could. */
static bool start_at_keyframe(onescope_os_diff_side *sa, from_row *fa, onescope_os_diff_side *sb,
                              from_row *fb, uint32_t row, const onescope_allocator *al,
                              onescope_recording_diff_result *result) {
    const onescope_module *m = sa->start.module;
    uint32_t every = onescope_recording_keyframe_every(fa->r);
    uint32_t before = row > 0 ? (row - 1) / every : 0;
    onescope_keyframe ka, kb;
    if (before == 0 || m->restore == NULL) return false;
    (void)onescope_recording_keyframe(fa->r, before - 1, &ka); /* both hold it: row <= steps */
    (void)onescope_recording_keyframe(fb->r, before - 1, &kb);
    if (ka.snapshot_size == 0 || kb.snapshot_size == 0) return false;
    onescope_os_run_start ta = sa->start, tb = sb->start;
    ta.snapshot = ka.snapshot;
    ta.snapshot_size = ka.snapshot_size;
    ta.snapshot_at = (uint64_t)(ka.snapshot - onescope_os_rec_bytes(fa->r));
    tb.snapshot = kb.snapshot;
    tb.snapshot_size = kb.snapshot_size;
    tb.snapshot_at = (uint64_t)(kb.snapshot - onescope_os_rec_bytes(fb->r));
    ta.step_count -= ka.row;
    tb.step_count -= kb.row;
    onescope_world *wa = NULL, *wb = NULL;
    onescope_error *why = &result->restore_error;
    onescope_error_clear(why);
    bool ok = onescope_os_run_start_world(&ta, al, &wa, why) == ONESCOPE_OK;
    if (!ok) onescope_os_rec_keyframe_error(fa->r, &ka, sa->name, why);
    if (ok && onescope_os_run_start_world(&tb, al, &wb, why) != ONESCOPE_OK) {
        onescope_os_rec_keyframe_error(fb->r, &kb, sb->name, why);
        ok = false;
    }
    result->restore_failed = !ok;
    bool proven = ok && keyframe_holds(fa->r, &ka, wa, al) && keyframe_holds(fb->r, &kb, wb, al) &&
                  onescope_world_hash(wa) == onescope_world_hash(wb);
    result->keyframe_disproved = ok && !proven;
    onescope_world_free(wa);
    onescope_world_free(wb);
    if (!proven) return false;
    sa->start = ta;
    sb->start = tb;
    fa->from = fb->from = ka.row;
    return true;
}

/* The first step whose inputs differ (of the first `steps`), or UINT32_MAX. */
static uint32_t first_input_differing(const onescope_recording *a, const onescope_recording *b,
                                      uint32_t steps) {
    for (uint32_t i = 0; i < steps; i++) {
        const uint8_t *pa, *pb;
        size_t na, nb;
        (void)onescope_recording_step_input(a, i, &pa, &na);
        (void)onescope_recording_step_input(b, i, &pb, &nb);
        if (na != nb || (na != 0 && memcmp(pa, pb, na) != 0)) return i;
    }
    return UINT32_MAX;
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
        if (m->values[v->value].type == ONESCOPE_VALUE_F32)
            res->value_ulps = onescope_os_float_ulps((float)v->a, (float)v->b);
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
    from_row fa, fb;
    side_init(&sa, &fa, a, module, name_a);
    side_init(&sb, &fb, b, module, name_b);
    result->steps_a = sa.start.step_count;
    result->steps_b = sb.start.step_count;
    result->setup_differs =
        blobs_differ(sa.start.setup, sa.start.setup_size, sb.start.setup, sb.start.setup_size) ||
        blobs_differ(sa.start.snapshot, sa.start.snapshot_size, sb.start.snapshot,
                     sb.start.snapshot_size);
    uint32_t every = onescope_recording_keyframe_every(a);
    uint32_t common = 1 + (result->steps_a < result->steps_b ? result->steps_a : result->steps_b);
    if (every != 0 && every == onescope_recording_keyframe_every(b) && !result->setup_differs) {
        /* The same setup and the same inputs make the same worlds: the worlds can first part
         * at the row after the first differing input; recorded rows may part sooner. */
        uint32_t rows = first_row_differing(a, b, common);
        uint32_t input = first_input_differing(a, b, common - 1);
        uint32_t first = input != UINT32_MAX && input + 1 < rows ? input + 1 : rows;
        if (first == UINT32_MAX) { /* one setup, one input sequence, one row sequence */
            result->from_keyframes = true;
            result->rows_compared = common;
            result->different = result->steps_a != result->steps_b;
            return ONESCOPE_OK;
        }
        if (start_at_keyframe(&sa, &fa, &sb, &fb, first, al, result)) {
            result->from_keyframes = true;
            result->start_row = fa.from;
        }
    }
    onescope_os_diff_found f;
    OS_TRY(onescope_os_diff_run(&sa, &sb, true, 1, al, &f, error));
    f.row += result->start_row;
    f.rows_compared += result->start_row;
    take_found(&f, module, result);
    result->steps_run = f.steps_run;
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
