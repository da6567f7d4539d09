/* Fuzz target: recovery of a partial replay recording (onescope_replay_recover). Any bytes in:
 * either a valid OSTM file out whose step count is what recovery reported, or one clean error
 * naming the partial, with no output file made. The partial is never changed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_helpers.h"

static char dir[] = "/tmp/ostm_recover-XXXXXX", partial[300], out[300];

static void clean_up(void) {
    unlink(partial);
    unlink(out);
    rmdir(dir);
}

static void paths(void) {
    if (partial[0]) return;
    FUZZ_ASSERT(mkdtemp(dir) != NULL);
    atexit(clean_up);
    snprintf(partial, sizeof partial, "%s/r.ostm.partial", dir);
    snprintf(out, sizeof out, "%s/r.ostm", dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    paths();
    unlink(out);
    FILE *f = fopen(partial, "wb");
    FUZZ_ASSERT(f != NULL);
    FUZZ_ASSERT(size == 0 || fwrite(data, 1, size, f) == size);
    FUZZ_ASSERT(fclose(f) == 0);

    uint64_t kept = 12345;
    onescope_error err;
    onescope_code rc = onescope_replay_recover(partial, NULL, &env.allocator, &kept, &err);
    struct stat st;
    if (rc != ONESCOPE_OK) {
        fuzz_check_error(&env, rc, &err, partial, size);
        FUZZ_ASSERT(kept == 0);
        FUZZ_ASSERT_MSG(stat(out, &st) != 0, "an output was left after %d", (int)rc);
    } else {
        onescope_replay *r = NULL;
        rc = onescope_replay_read_file(out, NULL, &r, &err);
        FUZZ_ASSERT_MSG(rc == ONESCOPE_OK, "recovered file refused: %s", err.found);
        FUZZ_ASSERT(onescope_replay_step_count(r) == kept);
        FUZZ_ASSERT(onescope_replay_has_hash_rows(r));
        onescope_replay_free(r);
    }
    /* The partial is only read. */
    onescope_buffer again;
    FUZZ_ASSERT(onescope_file_read(partial, 0, NULL, &again, &err) == ONESCOPE_OK);
    FUZZ_ASSERT(again.size == size && (size == 0 || memcmp(again.data, data, size) == 0));
    onescope_buffer_free(&again);
    fuzz_env_finish(&env);
    return 0;
}
