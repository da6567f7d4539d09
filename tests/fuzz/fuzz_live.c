/* libFuzzer target for the live stream (not built by CMake yet: the fuzz driver of tests/fuzz/
 * is still to come). Decodes the input whole, then feeds it to a recording viewer in two chunks;
 * when the viewer accepts the stream, the replay it saved must verify. Build by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DONESCOPE_STATIC -D_POSIX_C_SOURCE=200809L \
 *     -Iinclude -Isrc tests/fuzz/fuzz_live.c src/[a-z]*.c -lxxhash -o fuzz_live
 *   onescope live serve --steps 40 --probe-every 7 > corpus/a.bin && ./fuzz_live corpus */
#include <stdint.h>
#include <stddef.h>
#include <onescope/onescope.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    onescope_error e;
    onescope_live_decode(d, n, "f", NULL, NULL, NULL, &e);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.record = true;
    onescope_live_viewer *v;
    if (onescope_live_viewer_create(&o, "f", NULL, &v, &e) == 0) {
        size_t half = n / 3;
        if (onescope_live_viewer_feed(v, d, half, &e) == 0 &&
            onescope_live_viewer_feed(v, d + half, n - half, &e) == 0 &&
            onescope_live_viewer_finish(v, &e) == 0) {
            onescope_replay *r;
            if (onescope_live_viewer_replay(v, NULL, &r, &e) == 0) {
                if (onescope_replay_verify(r, NULL, NULL, "r", &e) != 0) __builtin_trap();
                onescope_replay_free(r);
            }
        }
        onescope_live_viewer_free(v);
    }
    return 0;
}
