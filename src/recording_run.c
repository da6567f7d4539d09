/* A module recording against a module: the module it names (id and version), the module's
 * checks of its blobs at their file offsets, the run that lends its world to a callback, and
 * the verify run (src/module_run.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "recording_internal.h"
#include "run_internal.h"

/* A module's check failed on a blob at file offset `at`: the offset made the file's. */
static onescope_code blob_error(onescope_code rc, onescope_error *error, const char *name,
                                const char *module_id, uint64_t at, const char *what) {
    if (error == NULL) return rc;
    if (error->code == ONESCOPE_OK)
        return onescope_os_fail(error, rc, name, at, what, "a blob the module accepts",
                                "module %s refused it", module_id);
    if (error->has_offset && error->offset != ONESCOPE_MODULE_NO_OFFSET)
        error->offset += at;
    else {
        error->offset = at;
        error->has_offset = true;
    }
    char field[sizeof error->field + 64];
    int n =
        snprintf(field, sizeof field, "%s%s%s", what, error->field[0] ? ": " : "", error->field);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (k >= sizeof error->field) k = sizeof error->field - 1;
    memcpy(error->field, field, k);
    error->field[k] = '\0';
    snprintf(error->input, sizeof error->input, "%s", name);
    return rc;
}

onescope_code onescope_recording_check(const onescope_recording *r, const onescope_module *module,
                                       const char *name, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "recording",
                                "non-NULL", NULL);
    OS_TRY(onescope_module_check(module, name, error));
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    OS_TRY(onescope_os_module_match(module, h->module_id, h->module_version, name, 12,
                                    "the module that made the file", error));
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    if (module->check_setup != NULL) {
        onescope_error_clear(error);
        onescope_code rc = module->check_setup(module->context, setup, setup_size, error);
        if (rc != ONESCOPE_OK) return blob_error(rc, error, name, module->id, h->setup_at, "setup");
    }
    if (module->check_input == NULL) return ONESCOPE_OK;
    for (uint32_t i = 0; i < h->step_count; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        onescope_error_clear(error);
        onescope_code rc = module->check_input(module->context, setup, setup_size, p, n, error);
        if (rc != ONESCOPE_OK) {
            char what[48];
            snprintf(what, sizeof what, "step %" PRIu32 " input", i);
            return blob_error(rc, error, name, module->id, onescope_os_rec_input_at(r, i), what);
        }
    }
    return ONESCOPE_OK;
}

static onescope_code rec_row(void *user, uint32_t index, uint64_t *expected,
                             onescope_error *error) {
    (void)error;
    *expected = onescope_recording_hash_row(user, index);
    return ONESCOPE_OK;
}

static onescope_code rec_input(void *user, uint32_t index, const uint8_t **data, size_t *size,
                               onescope_error *error) {
    (void)error;
    return onescope_recording_step_input(user, index, data, size);
}

onescope_os_run_start onescope_os_recording_start(const onescope_recording *r,
                                                  const onescope_module *module) {
    onescope_os_run_start s;
    memset(&s, 0, sizeof s);
    s.module = module;
    s.setup = onescope_recording_setup(r, &s.setup_size);
    s.snapshot = onescope_recording_start_snapshot(r, &s.snapshot_size);
    s.step_count = onescope_recording_step_count(r);
    return s;
}

onescope_code onescope_recording_verify(const onescope_recording *r, const onescope_module *module,
                                        const onescope_allocator *a, onescope_verify_result *result,
                                        const char *name, onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (name == NULL) name = "<ostm>";
    OS_TRY(onescope_recording_check(r, module, name, error));
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    if (!(h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS))
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 0 set (hash rows to verify)", "0x%04x", (unsigned)h->flags);
    onescope_os_run_start s = onescope_os_recording_start(r, module);
    onescope_os_replay_source source = {rec_row, rec_input, (void *)(uintptr_t)r};
    return onescope_os_run_verify(&s, &source, a, result, name, error);
}

onescope_code onescope_recording_run(const onescope_recording *r, const onescope_module *module,
                                     const onescope_allocator *a,
                                     onescope_recording_callback callback, void *user,
                                     const char *name, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    OS_TRY(onescope_recording_check(r, module, name, error));
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    onescope_os_run_start s = onescope_os_recording_start(r, module);
    onescope_world *w;
    onescope_code rc = onescope_os_run_start_world(&s, a, &w, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_run_at_step(error, name, module->id, 0);
        return rc;
    }
    bool rows = (h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) != 0;
    for (uint32_t i = 0;; i++) {
        onescope_recording_row row = {i, rows, rows ? onescope_recording_hash_row(r, i) : 0, w};
        if (callback != NULL && callback(user, &row)) break;
        if (i == s.step_count) break;
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n); /* i < step_count: always there */
        rc = onescope_world_step(w, p, n, error);
        if (rc != ONESCOPE_OK) {
            onescope_os_run_at_step(error, name, module->id, i);
            break;
        }
    }
    onescope_world_free(w);
    return rc;
}
