/* Fuzz target: module recordings (OSTM v2). Any input must parse or fail cleanly, and the scan
 * the parser runs gives the same verdict, offset and field fed in pieces (cut where the input's
 * first byte says) as whole (what onescope_file_validate relies on); a parsed file writes back
 * to exactly the input; a file of the test module is checked with it and,
 * with hash rows, verified to exactly the first row where a run through the module's world
 * (made independently here) differs from them. */
#include "fuzz_helpers.h"
#include "recording_internal.h"

#define MAX_RUN_STEPS 20000u

/* Whether row i's keyframe table (when the file has one there) holds the world: each table
 * entity found in the world by id with every value bit for bit (by name), and no world entity
 * the table lacks; computed here, apart from the library's compare. */
static bool table_agrees(const onescope_recording *r, const onescope_module *m,
                         const onescope_world *w, uint32_t i) {
    uint32_t every = onescope_recording_keyframe_every(r);
    onescope_keyframe k;
    if (every == 0 || i == 0 || i % every != 0 ||
        onescope_recording_keyframe(r, i / every - 1, &k) != ONESCOPE_OK)
        return true;
    uint32_t n = onescope_world_entity_count(w);
    double values[64];
    if (m->value_count > 64) return true;
    for (uint32_t e = 0; e < k.entity_count; e++) {
        uint64_t id = 0;
        for (int b = 7; b >= 0; b--) id = id << 8 | k.ids[8 * (size_t)e + (size_t)b];
        uint32_t at = UINT32_MAX;
        for (uint32_t j = 0; j < n && at == UINT32_MAX; j++)
            if (onescope_world_entity_id(w, j) == id) at = j;
        if (at == UINT32_MAX) return false;
        if (onescope_world_entity_values(w, at, values, 64, NULL) != ONESCOPE_OK) return false;
        for (uint32_t v = 0; v < k.value_count; v++) {
            char name[65];
            if (onescope_recording_value_name(r, v, name) != ONESCOPE_OK) return false;
            uint32_t mv = 0;
            while (mv < m->value_count && strcmp(m->values[mv].name, name) != 0) mv++;
            double rec = onescope_recording_keyframe_value(&k, e, v);
            if (mv == m->value_count || memcmp(&rec, &values[mv], sizeof rec) != 0) return false;
        }
    }
    for (uint32_t j = 0; j < n; j++) { /* every world entity is in the table */
        uint64_t id = onescope_world_entity_id(w, j);
        bool in = false;
        for (uint32_t e = 0; e < k.entity_count && !in; e++) {
            uint64_t t = 0;
            for (int b = 7; b >= 0; b--) t = t << 8 | k.ids[8 * (size_t)e + (size_t)b];
            in = t == id;
        }
        if (!in) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    onescope_recording *r = NULL;
    onescope_error err;
    onescope_code rc = onescope_recording_parse(data, size, "fuzz.ostm", &env.options, &r, &err);
    onescope_os_rec_scan s;
    onescope_error piece_err;
    onescope_os_rec_scan_init(&s, size, false, "fuzz.ostm");
    size_t chunk = size ? 1 + data[0] % 17 : 1;
    for (size_t at = 0; at < size && s.rc == ONESCOPE_OK; at += chunk)
        (void)onescope_os_rec_scan_feed(&s, data + at, size - at < chunk ? size - at : chunk);
    onescope_code pieces = onescope_os_rec_scan_end(&s, &piece_err);
    if (rc != ONESCOPE_E_NOMEM && rc != ONESCOPE_E_TOO_LARGE) {
        FUZZ_ASSERT_MSG(pieces == rc, "pieces of %zu: %d, whole: %d", chunk, pieces, rc);
        if (rc != ONESCOPE_OK)
            FUZZ_ASSERT(piece_err.offset == err.offset && strcmp(piece_err.field, err.field) == 0 &&
                        strcmp(piece_err.found, err.found) == 0);
    }
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(r == NULL);
        fuzz_check_error(&env, rc, &err, "fuzz.ostm", size);
        fuzz_env_finish(&env);
        return 0;
    }
    onescope_buffer out;
    rc = onescope_recording_write(r, &env.allocator, &out, &err);
    if (rc == ONESCOPE_OK) {
        FUZZ_ASSERT_MSG(out.size == size, "wrote %zu bytes for %zu", out.size, size);
        FUZZ_ASSERT(memcmp(out.data, data, size) == 0);
        onescope_buffer_free(&out);
    } else {
        fuzz_check_error(&env, rc, &err, "", SIZE_MAX);
        FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM);
    }
    const onescope_module *m = onescope_module_test();
    uint32_t steps = onescope_recording_step_count(r);
    rc = onescope_recording_check(r, m, "fuzz.ostm", &err);
    bool ours = strcmp(onescope_recording_module_id(r), m->id) == 0 &&
                strcmp(onescope_recording_module_version(r), m->version) == 0;
    if (!ours) FUZZ_ASSERT(rc == ONESCOPE_E_MODULE);
    if (rc != ONESCOPE_OK) fuzz_check_error(&env, rc, &err, "fuzz.ostm", size);
    if (rc == ONESCOPE_OK && steps <= MAX_RUN_STEPS &&
        (onescope_recording_flags(r) & ONESCOPE_RECORDING_FLAG_HASH_ROWS)) {
        /* the first row a run through the world disagrees with, computed here */
        size_t setup_size, snapshot_size;
        const uint8_t *setup = onescope_recording_setup(r, &setup_size);
        const uint8_t *snapshot = onescope_recording_start_snapshot(r, &snapshot_size);
        onescope_world *w = NULL;
        onescope_code made =
            snapshot != NULL
                ? onescope_world_restore(m, setup, setup_size, snapshot, snapshot_size,
                                         &env.allocator, &w, &err)
                : onescope_world_create(m, setup, setup_size, &env.allocator, &w, &err);
        uint32_t first = UINT32_MAX;
        bool table = false; /* first is a keyframe table's row, its hash row matched */
        onescope_code ran = made;
        for (uint32_t i = 0; made == ONESCOPE_OK; i++) {
            if (onescope_world_hash(w) != onescope_recording_hash_row(r, i)) {
                first = i;
                break;
            }
            if (!table_agrees(r, m, w, i)) {
                first = i;
                table = true;
                break;
            }
            if (i == steps) break;
            const uint8_t *p;
            size_t n;
            FUZZ_ASSERT(onescope_recording_step_input(r, i, &p, &n) == ONESCOPE_OK);
            ran = onescope_world_step(w, p, n, &err);
            if (ran != ONESCOPE_OK) break;
        }
        onescope_world_free(w);
        onescope_verify_result v;
        rc = onescope_recording_verify(r, m, &env.allocator, &v, "fuzz.ostm", &err);
        if (env.failed) {
            if (rc != ONESCOPE_OK && rc != ONESCOPE_E_MISMATCH)
                fuzz_check_error(&env, rc, &err, "fuzz.ostm", SIZE_MAX);
        } else if (ran != ONESCOPE_OK) {
            FUZZ_ASSERT_MSG(rc == ran, "verify %d, the run %d", (int)rc, (int)ran);
            fuzz_check_error(&env, rc, &err, "fuzz.ostm", SIZE_MAX);
        } else if (first == UINT32_MAX) {
            FUZZ_ASSERT_MSG(rc == ONESCOPE_OK && v.matched && v.rows_checked == steps + 1,
                            "verify %d for a file that matches", (int)rc);
        } else {
            FUZZ_ASSERT_MSG(rc == ONESCOPE_E_MISMATCH && v.first_row == first,
                            "verify %d at row %u, the run differs at %u", (int)rc, v.first_row,
                            first);
            FUZZ_ASSERT(v.expected == onescope_recording_hash_row(r, first));
            FUZZ_ASSERT(v.verdict ==
                        (table ? ONESCOPE_VERDICT_TABLE_MISMATCH : ONESCOPE_VERDICT_HASH_MISMATCH));
        }
    }
    onescope_recording_free(r);
    fuzz_env_finish(&env);
    return 0;
}
