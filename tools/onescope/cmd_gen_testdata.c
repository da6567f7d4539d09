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
    unsigned files;
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
    if (!cli_check_output("gen-testdata", NULL, path)) {
        g->failed = true;
        free(path);
        return 1;
    }
    if (onescope_file_write(path, data, size, &g->err) != ONESCOPE_OK) {
        cli_print_error(&g->err);
        g->failed = true;
        free(path);
        return 1;
    }
    if (!cli.quiet) printf("%s (%zu bytes)\n", cli_shown(path), size);
    g->files++;
    free(path);
    return 0;
}

const cli_spec cli_spec_gen_testdata = {
    .name = "gen-testdata",
    .operands = "DIR",
    .about = "Writes every file of testdata/ (see testdata/README.md) into DIR, byte for\n"
             "byte, each atomically, and prints one line per file. DIR is created when it does\n"
             "not exist (one level). With -n, a file that exists stops the run before it.\n",
    .exit_codes = "0 written, 1 a file could not be written or exists under -n, 2 usage",
    .writes = true,
};

int cmd_gen_testdata(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_gen_testdata, argc, argv, 1, 1, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *dir = a.operands[0];
    if (dir == NULL || strcmp(dir, "-") == 0) return cli_usage_error("gen-testdata", "needs a DIR");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "onescope gen-testdata: %s: %s\n", cli_shown(dir), strerror(errno));
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
    if (cli.verbose)
        fprintf(stderr, "onescope gen-testdata: %u files in %s\n", g.files, cli_shown(dir));
    return CLI_OK;
}
