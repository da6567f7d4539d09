/* Fuzz target: recovery of a partial recording. Any bytes: either a clear error (naming the
 * input, an offset inside it, nothing leaked) or a kept prefix that, with its frame count
 * written, parses as a valid cache of exactly the frames recovery counted. */
#include "fuzz_helpers.h"
#include "internal.h"
#include "pose_head.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    onescope_os_ospc_partial info;
    onescope_error err;
    onescope_code rc = onescope_os_ospc_partial_scan(data, size, "fuzz.partial", true,
                                                     &env.allocator, &info, &err);
    if (rc != ONESCOPE_OK) {
        fuzz_check_error(&env, rc, &err, "fuzz.partial", size);
        fuzz_env_finish(&env);
        return 0;
    }
    FUZZ_ASSERT(info.frames >= 1 && info.kept_bytes <= size);
    FUZZ_ASSERT(info.kept_bytes == info.poses_at + (size_t)info.frames * info.entity_count * 28u);
    FUZZ_ASSERT(size - info.kept_bytes < (size_t)info.entity_count * 28u); /* only a torn frame */
    /* A count close already wrote (killed before its rename) is kept only when it is exactly
     * the file's frames: nothing torn, nothing cut. */
    uint32_t stored = onescope_os_get_u32(data + ONESCOPE_OS_OSPC_FRAME_COUNT_AT);
    if (stored != ONESCOPE_OS_OSPC_PARTIAL_MARK)
        FUZZ_ASSERT(stored == info.frames && size == info.kept_bytes);
    /* What onescope_pose_cache_recover writes, built the same way in memory. */
    uint8_t *copy = malloc(info.kept_bytes);
    FUZZ_ASSERT(copy != NULL);
    memcpy(copy, data, info.kept_bytes);
    onescope_os_put_u32(copy + ONESCOPE_OS_OSPC_FRAME_COUNT_AT, info.frames);
    onescope_pose_cache *c = NULL;
    rc = onescope_pose_cache_parse(copy, info.kept_bytes, "fuzz.recovered", &env.options, &c, &err);
    if (rc == ONESCOPE_OK) {
        FUZZ_ASSERT(c->frame_count == info.frames && c->entity_count == info.entity_count);
        /* The poses are the partial's bytes, unchanged. */
        onescope_buffer out;
        if (onescope_pose_cache_write(c, &env.allocator, &out, &err) == ONESCOPE_OK) {
            FUZZ_ASSERT(out.size == info.kept_bytes);
            FUZZ_ASSERT(memcmp(out.data, copy, out.size) == 0);
            onescope_buffer_free(&out);
        }
    } else {
        /* A recovered file that does not parse is a bug, unless the allocator refused or
         * the trailer set an input limit below the file's size. */
        FUZZ_ASSERT_MSG(rc == ONESCOPE_E_NOMEM || rc == ONESCOPE_E_TOO_LARGE,
                        "a recovered file does not parse: %s %s", err.field, err.found);
    }
    onescope_pose_cache_free(c);
    free(copy);
    fuzz_env_finish(&env);
    return 0;
}
