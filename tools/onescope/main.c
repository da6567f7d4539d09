/* onescope: record, check and replay simulations. Dispatches to one function per command. */
#include <string.h>

#include "cli.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"validate", cmd_validate, "check each file against its format"},
    {"dump", cmd_dump, "print a file's header, entities and counts (--json)"},
    {"rewrite", cmd_rewrite, "parse a file and write it again with the library's writer"},
    {"verify", cmd_verify, "re-simulate OSTM replays and compare every hash row"},
    {"replay", cmd_replay, "run an OSTM replay and print per-step hashes (--json, --state)"},
    {"convert", cmd_convert, "convert an .anm clip to an .ospc pose cache or back"},
    {"box3d-dump", cmd_box3d_dump, "run a JSON scene in Box3D and write the poses as OSPC"},
    {"live", cmd_live, "serve a world as a live stream, or attach to one and check its hashes"},
    {"ghost", cmd_ghost, "write a replay's bodies over some steps as a pose cache"},
    {"diff", cmd_diff, "why two replays or pose caches differ: first step, stage, values"},
    {"recover", cmd_recover, "turn a killed recording's PATH.partial into a valid file"},
    {"plot", cmd_plot, "draw trajectories, a field or a diff as SVG or PNG"},
    {"gen-testdata", cmd_gen_testdata, "write every file of testdata/ into a folder"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: onescope [-q] [-v] COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'onescope COMMAND --help' describes a command. libonescope %s\n",
            ONESCOPE_VERSION_STRING);
}

int main(int argc, char **argv) {
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_OK;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("onescope %s\n", ONESCOPE_VERSION_STRING);
            return CLI_OK;
        } else if (strcmp(argv[i], "-q") == 0) {
            cli.quiet = true;
        } else if (strcmp(argv[i], "-v") == 0) {
            cli.verbose = true;
        } else {
            fprintf(stderr, "onescope: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[i], commands[k].name) == 0)
            return commands[k].run(argc - i - 1, argv + i + 1);
    fprintf(stderr, "onescope: unknown command '%s'\n", argv[i]);
    usage(stderr);
    return CLI_USAGE;
}
