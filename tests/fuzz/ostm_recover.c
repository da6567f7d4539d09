/* Fuzz target: recovery of a partial replay recording (onescope_replay_recover). Any bytes in:
 * either a valid OSTM file out whose step count is what recovery reported and is exactly the
 * partial's complete records (each one's bytes the file's step, nothing whole after them),
 * or one clean error naming the partial, with no output file made. The partial is never
 * changed. */
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
        /* "kept N" is the records actually complete: the partial's first N records are the
         * file's steps, byte for byte, and what follows them is no whole record (a torn
         * one at most, never a record cut from the middle). */
        FUZZ_ASSERT(stat(out, &st) == 0);
        uint64_t tail = 8 * (kept + 1) + 2 * kept + onescope_replay_input_bytes(r);
        FUZZ_ASSERT((uint64_t)st.st_size > tail);
        size_t pos = (size_t)((uint64_t)st.st_size - tail) + 8; /* the head, row 0 */
        const uint64_t *rows = onescope_replay_hash_rows(r);
        for (uint32_t i = 0; i < kept; i++) {
            const uint8_t *input;
            size_t n;
            FUZZ_ASSERT(onescope_replay_step_input(r, i, &input, &n) == ONESCOPE_OK);
            FUZZ_ASSERT(pos + 12 + n <= size && data[pos] == 's' && data[pos + 1] == 't');
            FUZZ_ASSERT((size_t)(data[pos + 2] | data[pos + 3] << 8) == n);
            FUZZ_ASSERT(n == 0 || memcmp(data + pos + 4, input, n) == 0);
            uint64_t h = 0;
            for (int k = 7; k >= 0; k--) h = h << 8 | data[pos + 4 + n + (size_t)k];
            FUZZ_ASSERT_MSG(h == rows[i + 1], "step %u's hash row differs", i);
            pos += 12 + n;
        }
        size_t left = size - pos;
        FUZZ_ASSERT_MSG(left < 4 || left < 12 + (size_t)(data[pos + 2] | data[pos + 3] << 8),
                        "a whole record after the %llu kept", (unsigned long long)kept);
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
