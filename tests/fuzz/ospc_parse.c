/* Fuzz target: OSPC parse. Any input must parse or fail cleanly (an error naming the input,
 * an offset inside it, nothing leaked); a parsed input must write back to the same bytes. */
#include "fuzz_helpers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    onescope_pose_cache *cache = NULL;
    onescope_error err;
    onescope_code rc =
        onescope_pose_cache_parse(data, size, "fuzz.ospc", &env.options, &cache, &err);
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(cache == NULL);
        fuzz_check_error(&env, rc, &err, "fuzz.ospc", size);
        fuzz_env_finish(&env);
        return 0;
    }
    FUZZ_ASSERT(cache != NULL);
    /* A limit of 0 may mean "the default" (as for onescope_file_read). */
    FUZZ_ASSERT(size <= (env.options.max_input_bytes ? env.options.max_input_bytes
                                                     : ONESCOPE_MAX_INPUT_BYTES));
    /* A parsed cache is valid, and the writer gives back exactly the input. */
    rc = onescope_pose_cache_validate(cache, "fuzz.ospc", &err);
    if (rc != ONESCOPE_OK) fuzz_check_error(&env, rc, &err, "fuzz.ospc", SIZE_MAX);
    FUZZ_ASSERT_MSG(rc == ONESCOPE_OK || (rc == ONESCOPE_E_NOMEM && env.failed),
                    "a parsed cache fails validation: %s", err.found);
    onescope_buffer out;
    rc = onescope_pose_cache_write(cache, &env.allocator, &out, &err);
    if (rc == ONESCOPE_OK) {
        FUZZ_ASSERT_MSG(out.size == size, "wrote %zu bytes for %zu", out.size, size);
        FUZZ_ASSERT(memcmp(out.data, data, size) == 0);
        /* Spot checks of the accessors on what was parsed. */
        for (uint32_t f = 0; f < cache->frame_count && f < 4; f++) {
            int64_t i = onescope_pose_cache_next_present(cache, f, 0);
            FUZZ_ASSERT(i < (int64_t)cache->entity_count);
            if (i >= 0)
                FUZZ_ASSERT(
                    onescope_pose_is_present(onescope_pose_cache_pose(cache, f, (uint32_t)i)));
        }
        FUZZ_ASSERT(onescope_pose_cache_pose(cache, cache->frame_count, 0) == NULL);
        char path[64];
        (void)onescope_pose_cache_replay_path(cache, "dir/fuzz.ospc", path, sizeof path);
    } else {
        FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM && env.failed);
        FUZZ_ASSERT(out.data == NULL);
    }
    onescope_buffer_free(&out);
    onescope_pose_cache_free(cache);
    fuzz_env_finish(&env);
    return 0;
}
