/* onescope gen-testdata DIR: writes every file of testdata/ into DIR, byte for byte. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "testdata.h"

typedef struct gen_out {
    const char *dir;
    bool failed; /* a file could not be written (already reported) */
    onescope_error err;
} gen_out;

static int write_one(void *user, const char *name, const void *data, size_t size) {
    gen_out *g = user;
    size_t n = strlen(g->dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path == NULL) {
        fprintf(stderr, "onescope gen-testdata: out of memory\n");
        g->failed = true;
        return 1;
    }
    snprintf(path, n, "%s/%s", g->dir, name);
    if (onescope_file_write(path, data, size, &g->err) != ONESCOPE_OK) {
        cli_print_error(&g->err);
        g->failed = true;
        free(path);
        return 1;
    }
    if (!cli.quiet) printf("%s (%zu bytes)\n", path, size);
    free(path);
    return 0;
}

int cmd_gen_testdata(int argc, char **argv) {
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: onescope gen-testdata DIR\n"
                   "Writes every file of testdata/ (see testdata/README.md) into DIR, byte for\n"
                   "byte, each atomically. DIR is created when it does not exist (one level).\n"
                   "exit: 0 written, 1 a file could not be written, 2 usage\n");
            return CLI_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("gen-testdata", "unknown option '%s'", argv[i]);
        } else if (dir != NULL) {
            return cli_usage_error("gen-testdata", "takes one DIR");
        } else {
            dir = argv[i];
        }
    }
    if (dir == NULL || strcmp(dir, "-") == 0) return cli_usage_error("gen-testdata", "needs a DIR");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "onescope gen-testdata: %s: %s\n", dir, strerror(errno));
        return CLI_FAIL;
    }
    gen_out g;
    memset(&g, 0, sizeof g);
    g.dir = dir;
    onescope_error err;
    if (testdata_generate(NULL, write_one, &g, &err) != ONESCOPE_OK) {
        if (!g.failed) cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
