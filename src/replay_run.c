/* Running an OSTM replay through the integer test module: the world at its start, every step
 * with its hash row, verification against the recorded rows, and computing them. The bytes
 * themselves are src/replay.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/replay.h"
#include "replay_internal.h"

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                            "could not allocate memory");
}

onescope_code onescope_replay_start_world(const onescope_replay *r, const onescope_allocator *a,
                                          onescope_sim **out, onescope_error *error) {
    const char *name = "onescope_replay_start_world";
    if (r == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and out must not be NULL");
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = r->setup;
    def.link = r->link;
    if (r->has_start_snapshot)
        return onescope_sim_create_from_snapshot(&def, r->start_snapshot, r->start_snapshot_size,
                                                 "start snapshot", a, out, error);
    return onescope_sim_create(&def, a, out, error);
}

onescope_code onescope_replay_run(const onescope_replay *r, const onescope_allocator *a,
                                  onescope_replay_callback callback, void *user,
                                  onescope_error *error) {
    onescope_sim *sim;
    OS_TRY(onescope_replay_start_world(r, a, &sim, error));
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0;; i++) {
        onescope_replay_row row;
        row.index = i;
        row.host_step = onescope_sim_host_step(sim);
        row.hash = onescope_sim_hash(sim);
        row.has_expected = r->has_hash_rows && r->hash_rows != NULL;
        row.expected = row.has_expected ? r->hash_rows[i] : 0;
        row.sim = sim;
        if (callback != NULL && callback(user, &row)) break;
        if (i == r->step_count) break;
        const uint8_t *p;
        size_t n;
        rc = onescope_replay_step_input(r, i, &p, &n);
        if (rc == ONESCOPE_OK) rc = onescope_sim_step(sim, p, n, error);
        if (rc != ONESCOPE_OK) break;
    }
    onescope_sim_free(sim);
    return rc;
}

static bool compare_row(void *user, const onescope_replay_row *row) {
    onescope_verify_result *v = user;
    if (row->hash == row->expected) {
        v->rows_checked++;
        return false;
    }
    v->matched = false;
    v->first_row = row->index;
    v->first_step = row->host_step;
    v->expected = row->expected;
    v->actual = row->hash;
    return true;
}

onescope_code onescope_replay_verify(const onescope_replay *r, const onescope_allocator *a,
                                     onescope_verify_result *result, const char *name,
                                     onescope_error *error) {
    onescope_verify_result local;
    if (result == NULL) result = &local;
    memset(result, 0, sizeof *result);
    if (name == NULL) name = "<ostm>";
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "replay",
                                "non-NULL", NULL);
    if (!r->has_hash_rows)
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 0 set (hash rows to verify)", "0x%04x",
                                (unsigned)onescope_replay_flags(r));
    result->matched = true;
    OS_TRY(onescope_replay_run(r, a, compare_row, result, error));
    if (result->matched) return ONESCOPE_OK;
    char field[96];
    snprintf(field, sizeof field, "hash row %" PRIu32 " (step %" PRIu64 ")", result->first_row,
             result->first_step);
    char expected[32];
    snprintf(expected, sizeof expected, "%016" PRIx64, result->expected);
    return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, OS_NO_OFFSET, field, expected,
                            "%016" PRIx64, result->actual);
}

static bool store_row(void *user, const onescope_replay_row *row) {
    uint64_t *rows = user;
    rows[row->index] = row->hash;
    return false;
}

onescope_code onescope_replay_compute_hash_rows(onescope_replay *r, onescope_error *error) {
    const char *name = "onescope_replay_compute_hash_rows";
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "replay",
                                "non-NULL", NULL);
    uint64_t *rows = onescope_os_calloc(r->allocator, (size_t)r->step_count + 1, sizeof *rows);
    if (rows == NULL) return nomem(error, name, "hash rows");
    onescope_code rc = onescope_replay_run(r, r->allocator, store_row, rows, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_free(r->allocator, rows);
        return rc;
    }
    onescope_os_replay_adopt_hash_rows(r, rows);
    return ONESCOPE_OK;
}
