/* onescope: record, check and replay simulations. Dispatches to one function per command.
 * onescope_cli_main is the whole CLI as one call (include/onescope/cli_main.h): the stock
 * binary's main.c calls it with no module, an engine's own binary with its modules. */
#include "onescope/cli_main.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"validate", cmd_validate, "check each file against its format"},
    {"dump", cmd_dump, "print files' headers, entities and counts (--json)"},
    {"rewrite", cmd_rewrite, "parse a file and write it again with the library's writer"},
    {"verify", cmd_verify, "re-simulate OSTM replays and compare every hash row"},
    {"replay", cmd_replay, "run an OSTM replay and print per-step hashes (--json, --state)"},
    {"convert", cmd_convert, "convert an .anm clip to an .ospc pose cache or back"},
    {"box3d-dump", cmd_box3d_dump, "run a JSON scene in Box3D and write the poses as OSPC"},
    {"box3d-record", cmd_box3d_record, "run a JSON scene through the Box3D module: a recording"},
    {"live", cmd_live, "serve a world as a live stream, or attach to one and check its hashes"},
    {"module", cmd_module, "check a module step by step: determinism, snapshots, stages, hash"},
    {"ghost", cmd_ghost, "write a replay's bodies over some steps as a pose cache"},
    {"diff", cmd_diff, "why two replays or pose caches differ: first step, stage, values"},
    {"recover", cmd_recover, "turn a killed recording's PATH.partial into a valid file"},
    {"plot", cmd_plot, "draw trajectories, a field or a diff as SVG or PNG"},
    {"view", cmd_view, "one HTML page to scrub through runs (overlays, fields, diffs)"},
    {"gen-testdata", cmd_gen_testdata, "write every file of testdata/ into a folder"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: onescope [OPTIONS] COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nglobal options (before or after COMMAND):\n");
    cli_print_global_options(out);
    fprintf(out,
            "\n'onescope COMMAND --help' describes a command; 'man onescope' all of them.\n"
            "libonescope %s\n",
            ONESCOPE_VERSION_STRING);
}

static const cli_spec main_spec = {
    .name = "",
    .operands = "COMMAND",
    .about = "",
    .exit_codes = "",
    .stop_at_operand = true,
    .print_help = usage,
};

/* Every command's table, in the order of the docs (dump's pose form and live's two
 * subcommands are commands of their own there). */
static const cli_spec *const documented[] = {
    &cli_spec_validate,     &cli_spec_dump,       &cli_spec_dump_poses,  &cli_spec_rewrite,
    &cli_spec_verify,       &cli_spec_replay,     &cli_spec_convert,     &cli_spec_box3d_dump,
    &cli_spec_box3d_record, &cli_spec_live_serve, &cli_spec_live_attach, &cli_spec_ghost,
    &cli_spec_diff,         &cli_spec_recover,    &cli_spec_plot,        &cli_spec_gen_testdata,
    &cli_spec_module_check, &cli_spec_view,
};

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int onescope_cli_main(int argc, char **argv, const onescope_module *const *modules, size_t count) {
    if (count != 0 && modules == NULL) {
        fprintf(stderr, "onescope: onescope_cli_main: %zu modules and no table\n", count);
        return CLI_FAIL;
    }
    for (size_t i = 0; i < count; i++)
        if (!cli_module_add(modules[i], "linked")) return CLI_FAIL; /* one line said why */
    /* Not in --help: the tables as JSON for tools/onescope/gen_docs.py (docs/cli.md). */
    if (argc == 2 && strcmp(argv[1], "--print-options") == 0) {
        cli_print_options(stdout, documented, (int)(sizeof documented / sizeof documented[0]));
        return CLI_OK;
    }
    cli_args a;
    int rc = cli_parse(&main_spec, argc - 1, argv + 1, 0, -1, &a);
    if (rc != CLI_PARSE_RUN) return rc;
    if (a.operand_count == 0) {
        usage(stderr);
        return CLI_USAGE;
    }
    /* "onescope -- CMD ...": the one "--" has been used, so every word after CMD is an operand */
    cli_operands_only = a.dashdash;
    const char *name = a.operands[0];
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(name, commands[k].name) != 0) continue;
        double t0 = seconds();
        rc = commands[k].run(a.operand_count - 1, a.operands + 1);
        if (cli.verbose) { /* whole milliseconds, through the one number printer */
            char t[CLI_NUMBER_SIZE];
            fprintf(stderr, "onescope %s: exit %d after %s s\n", name, rc,
                    cli_number(t, round((seconds() - t0) * 1000.0) / 1000.0));
        }
        return rc;
    }
    return cli_usage_error("", "unknown command '%s'", name); /* escaped, like every echo */
}
