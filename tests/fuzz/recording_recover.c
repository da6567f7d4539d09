/* Fuzz target: recovery of a partial module recording (onescope_recording_recover). Any bytes
 * in: either a finished file out whose step count is what recovery reported, whose bytes are
 * the partial's first ones (the count excepted), with what was dropped said to the byte and no
 * whole record among it; or one clean error naming the partial, with no output made. The
 * partial is never changed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_helpers.h"

static char dir[] = "/tmp/recording_recover-XXXXXX", partial[300], out[300];

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

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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

    uint64_t kept = 12345, dropped = 12345;
    onescope_error err;
    onescope_code rc =
        onescope_recording_recover(partial, NULL, &env.allocator, &kept, &dropped, &err);
    struct stat st;
    if (rc != ONESCOPE_OK) {
        fuzz_check_error(&env, rc, &err, partial, size);
        FUZZ_ASSERT(kept == 0 && dropped == 0);
        FUZZ_ASSERT_MSG(stat(out, &st) != 0, "an output was left after %d", (int)rc);
    } else {
        onescope_buffer b;
        FUZZ_ASSERT(onescope_file_read(out, 0, NULL, &b, &err) == ONESCOPE_OK);
        onescope_recording *r = NULL;
        rc = onescope_recording_parse(b.data, b.size, "out", NULL, &r, &err);
        FUZZ_ASSERT_MSG(rc == ONESCOPE_OK, "recovered file refused: %s", err.found);
        FUZZ_ASSERT(onescope_recording_step_count(r) == kept);
        /* the partial's bytes, the count excepted, and what was dropped said to the byte */
        FUZZ_ASSERT(b.size + dropped == size);
        FUZZ_ASSERT(memcmp(b.data, data, 8) == 0);
        FUZZ_ASSERT(memcmp((const uint8_t *)b.data + 12, data + 12, b.size - 12) == 0);
        /* nothing dropped is a whole record: its length, input and row, then its entity row
         * (flag bit 2) and, at a multiple of K, its keyframe (bit 3) must not all fit */
        if (dropped != 0) {
            uint64_t at = b.size, end = size, need = 4;
            bool whole = at + need <= end;
            if (whole) need += (uint64_t)get_u32(data + at) + ((data[6] & 1) ? 8u : 0u);
            uint32_t every = onescope_recording_keyframe_every(r);
            for (int k = 0; k < 2 && whole; k++) {
                bool there = k == 0 ? (data[6] & 4) != 0 : every != 0 && (kept + 1) % every == 0;
                if (!there) continue;
                /* the scan gathers an entity row's first 10 bytes and a keyframe's first 8
                 * before it reads their lengths: those it needs even for a smaller length */
                whole = at + need + 4 <= end;
                uint64_t len = whole ? get_u32(data + at + need) : 0, least = k == 0 ? 6 : 4;
                if (whole) need += 4 + (len > least ? len : least);
            }
            FUZZ_ASSERT_MSG(!whole || at + need > end, "a whole record of %llu bytes was dropped",
                            (unsigned long long)need);
        }
        onescope_recording_free(r);
        onescope_buffer_free(&b);
    }
    /* The partial is only read. */
    onescope_buffer again;
    FUZZ_ASSERT(onescope_file_read(partial, 0, NULL, &again, &err) == ONESCOPE_OK);
    FUZZ_ASSERT(again.size == size && (size == 0 || memcmp(again.data, data, size) == 0));
    onescope_buffer_free(&again);
    fuzz_env_finish(&env);
    return 0;
}
