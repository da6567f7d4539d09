/* Fuzz target: OSTM parse, write and run. Any input must parse or fail cleanly; a parsed
 * replay must write back to exactly the input, run twice to the same hash rows (the
 * simulation is deterministic) and, when it holds hash rows, verify to exactly the first
 * row where the run differs from them. */
#include "fuzz_helpers.h"

#define MAX_RUN_STEPS 100000u /* bigger replays (possible from testdata/) are parsed only */

typedef struct rows {
    uint64_t *hash;
    uint32_t count;
    uint32_t capacity;
} rows;

static bool collect(void *user, const onescope_replay_row *row) {
    rows *r = user;
    FUZZ_ASSERT(row->index == r->count && row->index < r->capacity);
    FUZZ_ASSERT(row->hash == onescope_sim_hash(row->sim));
    r->hash[r->count++] = row->hash;
    return false;
}

static onescope_code run(fuzz_env *env, const onescope_replay *replay, rows *r) {
    r->count = 0;
    onescope_error err;
    onescope_code rc = onescope_replay_run(replay, &env->allocator, collect, r, &err);
    if (rc != ONESCOPE_OK)
        fuzz_check_error(env, rc, &err, "", SIZE_MAX);
    else
        FUZZ_ASSERT(r->count == onescope_replay_step_count(replay) + 1);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    onescope_replay *replay = NULL;
    onescope_error err;
    onescope_code rc = onescope_replay_parse(data, size, "fuzz.ostm", &env.options, &replay, &err);
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(replay == NULL);
        fuzz_check_error(&env, rc, &err, "fuzz.ostm", size);
        fuzz_env_finish(&env);
        return 0;
    }
    onescope_buffer out;
    rc = onescope_replay_write(replay, &env.allocator, &out, &err);
    if (rc == ONESCOPE_OK) {
        FUZZ_ASSERT_MSG(out.size == size, "wrote %zu bytes for %zu", out.size, size);
        FUZZ_ASSERT(memcmp(out.data, data, size) == 0);
        onescope_buffer_free(&out);
    } else {
        fuzz_check_error(&env, rc, &err, "", SIZE_MAX);
        FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM);
    }

    if (onescope_replay_step_count(replay) <= MAX_RUN_STEPS) {
        rows a = {malloc(((size_t)onescope_replay_step_count(replay) + 1) * sizeof(uint64_t)), 0,
                  onescope_replay_step_count(replay) + 1};
        rows b = {malloc(((size_t)onescope_replay_step_count(replay) + 1) * sizeof(uint64_t)), 0,
                  onescope_replay_step_count(replay) + 1};
        FUZZ_ASSERT(a.hash != NULL && b.hash != NULL);
        onescope_code ra = run(&env, replay, &a);
        onescope_code rb = run(&env, replay, &b);
        if (ra == ONESCOPE_OK && rb == ONESCOPE_OK)
            FUZZ_ASSERT(memcmp(a.hash, b.hash, a.count * sizeof(uint64_t)) == 0);
        else if (!env.failed)
            FUZZ_ASSERT_MSG(ra == rb, "two runs of one replay: %d then %d", (int)ra, (int)rb);
        if (ra == ONESCOPE_OK && onescope_replay_has_hash_rows(replay)) {
            onescope_verify_result v;
            rc = onescope_replay_verify(replay, &env.allocator, &v, "fuzz.ostm", &err);
            uint32_t first = 0;
            while (first < a.count && a.hash[first] == onescope_replay_hash_rows(replay)[first])
                first++;
            if (rc == ONESCOPE_OK) {
                FUZZ_ASSERT(v.matched && first == a.count);
            } else if (rc == ONESCOPE_E_MISMATCH) {
                FUZZ_ASSERT(!v.matched && v.first_row == first);
                FUZZ_ASSERT(v.expected == onescope_replay_hash_rows(replay)[first] &&
                            v.actual == a.hash[first]);
            } else {
                fuzz_check_error(&env, rc, &err, "", SIZE_MAX);
                FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM);
            }
        }
        free(a.hash);
        free(b.hash);
    }
    onescope_replay_free(replay);
    fuzz_env_finish(&env);
    return 0;
}
