/* Prints the size and XXH3-64 of every file the test-data generator makes, then verifies every
 * committed replay named on the command line, so that native, s390x (big-endian, qemu) and
 * i386 runs can be compared line by line. No cmocka: only the library's sources and the
 * generator. Used by scripts/test_cross.sh (testdata). */
#include <inttypes.h>
#include <stdio.h>

#include "onescope/onescope.h"
#include "testdata.h"

static int print_file(void *user, const char *name, const void *data, size_t size) {
    (void)user;
    printf("file %s %zu %016" PRIx64 "\n", name, size, onescope_hash_bytes(data, size));
    return 0;
}

static int fail(const char *what, const onescope_error *e) {
    char line[512];
    onescope_error_format(e, line, sizeof line);
    printf("FAIL %s: %s\n", what, line);
    return 1;
}

int main(int argc, char **argv) {
    onescope_error e;
    if (testdata_generate(NULL, print_file, NULL, &e) != ONESCOPE_OK) return fail("generate", &e);
    for (int i = 1; i < argc; i++) {
        onescope_replay *r;
        if (onescope_replay_read_file(argv[i], NULL, &r, &e) != ONESCOPE_OK)
            return fail(argv[i], &e);
        onescope_verify_result v;
        onescope_code rc = onescope_replay_verify(r, NULL, &v, argv[i], &e);
        onescope_replay_free(r);
        if (rc != ONESCOPE_OK) return fail(argv[i], &e);
        printf("verify %s %" PRIu32 " rows\n", argv[i], v.rows_checked);
    }
    puts("done");
    return 0;
}
