/* The one argument parser of the onescope CLI (getopt_long; the library never uses it).
 *
 * A command declares its options in a static cli_option table and its text in a cli_spec;
 * cli_parse() reads argv against it and the table also prints the command's --help (and is
 * what docs/cli.md, onescope.1 and onescope.bash are checked against by tests/cli/cli_docs.sh).
 *
 * Every command also takes the global options -q, -v, -h/--help and --version, before or
 * after its name, and commands that write (spec.writes) take -n/--no-clobber. "--" ends the
 * options once: everything after it is an operand, "-" and names starting with '-' too. */
#ifndef ONESCOPE_CLI_ARGS_H
#define ONESCOPE_CLI_ARGS_H

#include <stdbool.h>
#include <stdio.h>

/* One option of a command. Its index in the table is its id in cli_args. */
typedef struct cli_option {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 when it has none */
    const char *arg;  /* the value's placeholder in --help ("N"); NULL: a flag */
    const char *help; /* one line */
} cli_option;

#define CLI_MAX_OPTIONS 16

typedef struct cli_spec {
    const char *name;              /* "box3d-dump", "live serve" */
    const char *operands;          /* "IN OUT" in the usage line */
    const char *about;             /* paragraphs after the usage line, ending in '\n' */
    const char *exit_codes;        /* "0 ok, 1 ..., 2 usage" */
    const cli_option *options;     /* count entries */
    int count;                     /* at most CLI_MAX_OPTIONS */
    bool writes;                   /* takes -n/--no-clobber (cli_check_output) */
    bool stop_at_operand;          /* options end at the first operand (main: the command) */
    void (*print_help)(FILE *out); /* --help, when not printed from the table */
} cli_spec;

typedef struct cli_args {
    bool seen[CLI_MAX_OPTIONS];
    const char *value[CLI_MAX_OPTIONS]; /* the last value given, for options with an arg */
    int operand_count;
    char **operands;
    bool dashdash; /* the word before operands[0] was "--" */
} cli_args;

/* The result of cli_parse(): go on, stop with exit 0 (--help or --version printed), or stop
 * with exit 2 (one "onescope CMD: ..." line printed). */
enum { CLI_PARSE_RUN = -1 };

/* Parses argv[0..argc) (the words after the command's name; argv is permuted in place).
 * Returns CLI_PARSE_RUN, CLI_OK or CLI_USAGE. Operands must number min..max (max < 0: any). */
int cli_parse(const cli_spec *spec, int argc, char **argv, int min, int max, cli_args *out);

/* Prints the command's --help from its spec and table. */
void cli_print_help(const cli_spec *spec, FILE *out);

/* The global options' help lines (main's usage uses them too). */
void cli_print_global_options(FILE *out);

/* The documented range of a real-valued option: min..max, min itself excluded when above_min. */
typedef struct cli_real_range {
    double min, max;
    bool above_min;
} cli_real_range;

/* The one grammar of real-valued options: a decimal number, -?D+(.D+)?([eE][+-]?D+)? with D a
 * digit, nothing around it (no spaces, '+', hex, inf or nan), whose value lies in range.
 * Returns CLI_PARSE_RUN with *out set, or CLI_USAGE after one line naming the option, the
 * value and the range it enforces. */
int cli_parse_real(const char *command, const char *option, const char *s, cli_real_range range,
                   double *out);

/* The machine-readable list of every command's options (onescope --print-options): one JSON
 * document that tools/onescope/gen_docs.py turns into onescope.1, onescope.bash and the option
 * lists of docs/cli.md. */
void cli_print_options(FILE *out, const cli_spec *const *specs, int count);

/* Set by main when "--" came before the command's name: the command reads no options. */
extern bool cli_operands_only;

#endif
