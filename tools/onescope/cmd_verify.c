/* onescope verify FILE.ostm...: re-simulates each replay and compares every hash row. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void help(void) {
    printf("usage: onescope verify FILE.ostm...\n"
           "Re-simulates each replay from its setup or start snapshot and compares the world\n"
           "hash at every step with the file's hash rows. Goes on through every file.\n"
           "A mismatch prints the file, the first differing hash row and host step, and the\n"
           "expected and actual hash as 16 hex digits.\n"
           "exit: 0 every file matches; 1 a mismatch, an invalid or unreadable file, or a\n"
           "file without hash rows; 2 usage\n");
}

/* Verifies one file: 0 when it matches, 1 otherwise (the reason printed on stderr). */
static int verify_one(const char *path) {
    const char *name = cli_input_name(path);
    onescope_error err;
    onescope_verify_result v;
    /* A regular file is streamed (memory does not grow with the replay); the verdict and the
     * line are those of reading it whole. */
    if (onescope_replay_verify_file(path, NULL, &v, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return 1;
    }
    if (!cli.quiet) printf("%s: ok, %" PRIu32 " hash rows match\n", name, v.rows_checked);
    return 0;
}

int cmd_verify(int argc, char **argv) {
    int first = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            first = i + 1;
            break;
        }
        if (cli_is_help(argv[i])) {
            help();
            return CLI_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("verify", "unknown option '%s'", argv[i]);
    }
    if (first >= argc) return cli_usage_error("verify", "needs at least one FILE.ostm");
    int total = argc - first, failed = 0;
    char *bad = calloc((size_t)total, 1); /* which files failed, for the summary */
    if (bad == NULL) {
        fprintf(stderr, "onescope verify: out of memory\n");
        return CLI_FAIL;
    }
    for (int i = 0; i < total; i++) {
        bad[i] = (char)verify_one(argv[first + i]);
        failed += bad[i];
    }
    if (failed) {
        fprintf(stderr, "onescope verify: %d of %d files failed:", failed, total);
        for (int i = 0; i < total; i++)
            if (bad[i]) fprintf(stderr, " %s", cli_input_name(argv[first + i]));
        fputc('\n', stderr);
    }
    free(bad);
    return failed ? CLI_FAIL : CLI_OK;
}
