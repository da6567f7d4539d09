/* Running an OSTM replay through the integer test module: the world at its start, every step
 * with its hash row, verification against the recorded rows, and computing them. The bytes
 * themselves are src/replay.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "run_internal.h"
#include "onescope/replay.h"
#include "replay_internal.h"

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                            "could not allocate memory");
}

/* Where a v1 replay's run starts: the test module, its setup blob (in blob), the snapshot. */
static onescope_os_run_start v1_start(const onescope_sim_setup *setup,
                                      const onescope_link_block *link, const uint8_t *snapshot,
                                      uint32_t snapshot_size, uint32_t step_count,
                                      uint8_t blob[10]) {
    onescope_os_run_start s;
    memset(&s, 0, sizeof s);
    s.module = onescope_module_test();
    s.setup = blob;
    s.setup_size = onescope_os_test_setup_blob(setup, link, blob);
    s.snapshot = snapshot;
    s.snapshot_size = snapshot_size;
    s.start_step = snapshot != NULL ? onescope_os_get_u64(snapshot) : 0;
    s.step_count = step_count;
    return s;
}

void onescope_os_replay_diff_side(const onescope_replay *r, const char *name, uint8_t blob[10],
                                  onescope_os_diff_side *out) {
    memset(out, 0, sizeof *out);
    out->start = v1_start(&r->setup, &r->link, r->has_start_snapshot ? r->start_snapshot : NULL,
                          r->start_snapshot_size, r->step_count, blob);
    out->name = name;
    out->user = r;
}

/* The error of the test module's world, named as the pre-module API named it. */
static onescope_code start_world(const onescope_replay *r, const onescope_allocator *a,
                                 onescope_world **out, onescope_error *error) {
    uint8_t blob[10];
    onescope_os_run_start s =
        v1_start(&r->setup, &r->link, r->has_start_snapshot ? r->start_snapshot : NULL,
                 r->start_snapshot_size, r->step_count, blob);
    onescope_code rc = onescope_os_run_start_world(&s, a, out, error);
    if (rc != ONESCOPE_OK && error != NULL && r->has_start_snapshot)
        snprintf(error->input, sizeof error->input, "start snapshot");
    return rc;
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
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_replay_run", OS_NO_OFFSET,
                                "replay", "non-NULL", NULL);
    onescope_world *w;
    OS_TRY(start_world(r, a, &w, error));
    const onescope_sim *sim = onescope_os_world_state(w);
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0;; i++) {
        onescope_replay_row row;
        row.index = i;
        row.host_step = onescope_sim_host_step(sim);
        row.hash = onescope_world_hash(w);
        row.has_expected = r->has_hash_rows && r->hash_rows != NULL;
        row.expected = row.has_expected ? r->hash_rows[i] : 0;
        row.sim = sim;
        if (callback != NULL && callback(user, &row)) break;
        if (i == r->step_count) break;
        const uint8_t *p;
        size_t n;
        rc = onescope_replay_step_input(r, i, &p, &n);
        if (rc == ONESCOPE_OK) rc = onescope_world_step(w, p, n, error);
        if (rc != ONESCOPE_OK) break;
    }
    onescope_world_free(w);
    return rc;
}

/* The recorded rows and the step inputs of a parsed replay, as a verify source. */
static onescope_code parsed_row(void *user, uint32_t index, uint64_t *expected,
                                onescope_error *error) {
    const onescope_replay *r = user;
    (void)error;
    *expected = r->hash_rows[index];
    return ONESCOPE_OK;
}

static onescope_code parsed_input(void *user, uint32_t index, const uint8_t **data, size_t *size,
                                  uint64_t *at, onescope_error *error) {
    (void)error, (void)at; /* a parsed replay keeps no offsets: the test module's steps never
                              refuse what its parser passed */
    return onescope_replay_step_input(user, index, data, size);
}

onescope_code onescope_os_replay_verify_source(const onescope_os_ostm_head *head,
                                               const uint8_t *snapshot,
                                               const onescope_os_replay_source *source,
                                               const onescope_allocator *a,
                                               onescope_verify_result *result, const char *name,
                                               onescope_error *error) {
    onescope_verify_result local;
    if (result == NULL) result = &local;
    memset(result, 0, sizeof *result);
    if (!(head->flags & ONESCOPE_OSTM_FLAG_HASH_ROWS)) {
        result->verdict = ONESCOPE_VERDICT_NO_HASH_ROWS;
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 0 set (hash rows to verify)", "0x%04x", (unsigned)head->flags);
    }
    uint8_t blob[10];
    onescope_os_run_start s =
        v1_start(&head->setup, &head->link, snapshot, head->snapshot_size, head->step_count, blob);
    return onescope_os_run_verify(&s, source, a, result, name, error);
}

onescope_code onescope_replay_verify(const onescope_replay *r, const onescope_allocator *a,
                                     onescope_verify_result *result, const char *name,
                                     onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (name == NULL) name = "<ostm>";
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "replay",
                                "non-NULL", NULL);
    onescope_os_ostm_head head;
    memset(&head, 0, sizeof head);
    head.setup = r->setup;
    head.link = r->link;
    head.flags = onescope_replay_flags(r);
    if (r->hash_rows == NULL) head.flags &= (uint16_t)~ONESCOPE_OSTM_FLAG_HASH_ROWS;
    head.step_count = r->step_count;
    head.snapshot_size = r->start_snapshot_size;
    onescope_os_replay_source source = {parsed_row, parsed_input, (void *)(uintptr_t)r, NULL};
    return onescope_os_replay_verify_source(&head, r->has_start_snapshot ? r->start_snapshot : NULL,
                                            &source, a, result, name, error);
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
