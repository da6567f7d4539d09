/* A recording run through any module's world: the world at the start (from the setup, or from
 * the start snapshot), then every step with its hash compared to the recorded row. OSTM v1
 * replays (src/replay_run.c) and module recordings (src/recording_run.c) both verify here, so
 * "world from setup or snapshot" and the row loop are written once. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "run_internal.h"

void onescope_os_run_start_failed(const onescope_os_run_start *s, onescope_error *error,
                                  const char *name, uint64_t step) {
    bool snap = s->snapshot != NULL;
    uint64_t at = !s->at_known ? OS_NO_OFFSET : snap ? s->snapshot_at : s->setup_at;
    onescope_os_run_at_step(error, name, s->module->id, step, at,
                            snap ? s->snapshot_size : s->setup_size);
}

onescope_code onescope_os_run_start_world(const onescope_os_run_start *s,
                                          const onescope_allocator *a, onescope_world **out,
                                          onescope_error *error) {
    if (s->snapshot != NULL)
        return onescope_world_restore(s->module, s->setup, s->setup_size, s->snapshot,
                                      s->snapshot_size, a, out, error);
    return onescope_world_create(s->module, s->setup, s->setup_size, a, out, error);
}

onescope_code onescope_os_module_match(const onescope_module *module, const char *id,
                                       const char *version, const char *name, uint64_t at,
                                       const char *expected, onescope_error *error) {
    if (strcmp(id, module->id) == 0 && strcmp(version, module->version) == 0) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_MODULE, name, at, "module", expected,
                            "%s %s, loaded %s %s", id, version, module->id, module->version);
}

void onescope_os_run_at_step(onescope_error *error, const char *name, const char *module_id,
                             uint64_t step, uint64_t at, size_t size) {
    if (error == NULL) return;
    if (at == OS_NO_OFFSET) /* a blob the file does not place: its offsets mean nothing here */
        error->has_offset = false;
    else
        onescope_os_blob_offset(error, at, size);
    char field[sizeof error->field + 128];
    int n = snprintf(field, sizeof field, "module %s, step %" PRIu64 "%s%s", module_id, step,
                     error->field[0] ? ": " : "", error->field);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (k >= sizeof error->field) k = sizeof error->field - 1; /* cut, as every field is */
    memcpy(error->field, field, k);
    error->field[k] = '\0';
    snprintf(error->input, sizeof error->input, "%s", name);
}

void onescope_os_row_text(char *out, size_t size, uint32_t row, uint64_t start_step) {
    int n = row == 0 ? snprintf(out, size, "hash row 0 (the start world")
                     : snprintf(out, size, "hash row %" PRIu32 " (the world after step %" PRIu32,
                                row, row - 1);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (start_step != 0 && k < size) /* a replay that starts mid-run: its host step too */
        k += (size_t)snprintf(out + k, size - k, ", host step %" PRIu64,
                              start_step + row - (row != 0));
    if (k < size) snprintf(out + k, size - k, ")");
}

/* The verdict of a failed row, said once for every file kind: the module's error keeps its
 * code (E_MISMATCH included) but is an error of that row, never a hash mismatch. */
static onescope_code row_failed(onescope_verify_result *result, uint32_t row, uint64_t step,
                                onescope_code rc) {
    result->matched = false;
    result->verdict = ONESCOPE_VERDICT_MODULE_ERROR;
    result->first_row = row;
    result->first_step = step;
    return rc;
}

onescope_code onescope_os_run_verify(const onescope_os_run_start *s,
                                     const onescope_os_replay_source *source,
                                     const onescope_allocator *a, onescope_verify_result *result,
                                     const char *name, onescope_error *error) {
    onescope_verify_result local;
    if (result == NULL) result = &local;
    memset(result, 0, sizeof *result);
    onescope_world *w;
    onescope_code rc = onescope_os_run_start_world(s, a, &w, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_run_start_failed(s, error, name, s->start_step);
        return row_failed(result, 0, s->start_step, rc);
    }
    result->matched = true;
    for (uint32_t i = 0;; i++) {
        uint64_t expected, hash = onescope_world_hash(w);
        rc = source->row(source->user, i, &expected, error);
        if (rc != ONESCOPE_OK) break; /* the file: INVALID */
        if (hash != expected) {
            result->matched = false;
            result->verdict = ONESCOPE_VERDICT_HASH_MISMATCH;
            result->first_row = i;
            result->first_step = s->start_step + i; /* host steps wrap, as the module's do */
            result->expected = expected;
            result->actual = hash;
            break;
        }
        if (source->keyframe != NULL) {
            rc = source->keyframe(source->user, i, w, result, error);
            if (rc == ONESCOPE_E_MISMATCH && result->verdict == ONESCOPE_VERDICT_TABLE_MISMATCH) {
                result->matched = false;
                result->first_row = i;
                result->first_step = s->start_step + i;
                result->expected = result->actual = hash;
                result->rows_checked++; /* its hash row matched */
                break;
            }
            if (rc != ONESCOPE_OK) break;
        }
        result->rows_checked++;
        if (i == s->step_count) break;
        const uint8_t *p;
        size_t n;
        uint64_t at = OS_NO_OFFSET;
        rc = source->input(source->user, i, &p, &n, &at, error);
        if (rc != ONESCOPE_OK) break;
        rc = onescope_world_step(w, p, n, error);
        if (rc != ONESCOPE_OK) {
            onescope_os_run_at_step(error, name, s->module->id, s->start_step + i, at, n);
            row_failed(result, i + 1, s->start_step + i + 1, rc);
            break;
        }
    }
    onescope_world_free(w);
    if (rc != ONESCOPE_OK || result->verdict == ONESCOPE_VERDICT_TABLE_MISMATCH) {
        if (result->verdict == ONESCOPE_VERDICT_PASS) result->verdict = ONESCOPE_VERDICT_INVALID;
        if (result->verdict == ONESCOPE_VERDICT_INVALID) result->matched = false;
        return rc;
    }
    if (result->matched) {
        result->verdict = s->step_count == 0 ? ONESCOPE_VERDICT_NO_STEPS : ONESCOPE_VERDICT_PASS;
        return ONESCOPE_OK;
    }
    char field[128];
    onescope_os_row_text(field, sizeof field, result->first_row, s->start_step);
    char want[32];
    snprintf(want, sizeof want, "%016" PRIx64, result->expected);
    return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, OS_NO_OFFSET, field, want,
                            "%016" PRIx64, result->actual);
}
