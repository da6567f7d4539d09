/* The CLI's one argument parser: a command's option table turned into getopt_long's. */
#include "args.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_operands_only;

/* getopt_long ids: a command's option i is CLI_ID_BASE + i; the global ones follow. */
enum {
    CLI_ID_BASE = 256,
    ID_VERSION = 512,
    ID_QUIET,
    ID_VERBOSE,
    ID_HELP,
    ID_NO_CLOBBER,
    ID_MODULE
};

static const struct {
    cli_option opt;
    int id;
} globals[] = {
    {{"quiet", 'q', NULL, "no per-step, progress or success lines (errors still print)"}, ID_QUIET},
    {{"verbose", 'v', NULL, "timings and counts on stderr after the command"}, ID_VERBOSE},
    {{"help", 'h', NULL, "print this help and exit 0"}, ID_HELP},
    {{"version", 0, NULL, "print the version and exit 0"}, ID_VERSION},
    {{"module", 0, "PATH", "load a simulation module from a shared library (repeatable)"},
     ID_MODULE},
};
static const cli_option no_clobber = {"no-clobber", 'n', NULL,
                                      "refuse to replace an existing output (exit 1)"};

#define NGLOBALS (int)(sizeof globals / sizeof globals[0])

#define END_OF_OPTIONS "'--' ends the options: every word after it is an operand."

static void print_option(FILE *out, const cli_option *o) {
    char left[64];
    snprintf(left, sizeof left, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ',
             o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
             o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(out, "  %-26s %s\n", left, o->help);
}

void cli_print_global_options(FILE *out) {
    for (int i = 0; i < NGLOBALS; i++) print_option(out, &globals[i].opt);
}

void cli_print_help(const cli_spec *spec, FILE *out) {
    fprintf(out, "usage: onescope %s%s%s [OPTIONS]\n%s", spec->name, spec->operands[0] ? " " : "",
            spec->operands, spec->about);
    if (spec->count > 0 || spec->writes) fprintf(out, "options:\n");
    for (int i = 0; i < spec->count; i++) print_option(out, &spec->options[i]);
    if (spec->writes) print_option(out, &no_clobber);
    fprintf(out, "global options (also before the command's name):\n");
    cli_print_global_options(out);
    fprintf(out, "%s\n", END_OF_OPTIONS);
    fprintf(out, "exit: %s\n", spec->exit_codes);
}

/* The option a getopt id or short letter stands for, or NULL. */
static const cli_option *find(const cli_spec *spec, int id) {
    if (id >= CLI_ID_BASE && id < CLI_ID_BASE + spec->count)
        return &spec->options[id - CLI_ID_BASE];
    for (int i = 0; i < spec->count; i++)
        if (id != 0 && spec->options[i].short_name == id) return &spec->options[i];
    for (int i = 0; i < NGLOBALS; i++)
        if (globals[i].id == id || (id != 0 && globals[i].opt.short_name == id))
            return &globals[i].opt;
    if (spec->writes && (id == ID_NO_CLOBBER || id == 'n')) return &no_clobber;
    return NULL;
}

/* "--name" or "-c" for messages, as the word was spelled. */
static void spell(const cli_option *o, const char *word, char *buf, size_t size) {
    if (strncmp(word, "--", 2) != 0 && o->short_name != 0)
        snprintf(buf, size, "-%c", o->short_name);
    else
        snprintf(buf, size, "--%s", o->name);
}

int cli_parse(const cli_spec *spec, int argc, char **argv, int min, int max, cli_args *out) {
    memset(out, 0, sizeof *out);
    int first = 0;
    if (!cli_operands_only) {
        struct option longs[CLI_MAX_OPTIONS + NGLOBALS + 2];
        char shorts[3 * (CLI_MAX_OPTIONS + NGLOBALS + 1) + 2];
        size_t ns = 0, nl = 0;
        if (spec->stop_at_operand) shorts[ns++] = '+';
        shorts[ns++] = ':'; /* a missing value returns ':' (not '?') and prints nothing */
        for (int i = 0; i < spec->count + NGLOBALS + (spec->writes ? 1 : 0); i++) {
            const cli_option *o = i < spec->count              ? &spec->options[i]
                                  : i < spec->count + NGLOBALS ? &globals[i - spec->count].opt
                                                               : &no_clobber;
            int id = i < spec->count              ? CLI_ID_BASE + i
                     : i < spec->count + NGLOBALS ? globals[i - spec->count].id
                                                  : ID_NO_CLOBBER;
            longs[nl++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                          o->short_name ? o->short_name : id};
            if (o->short_name) {
                shorts[ns++] = o->short_name;
                if (o->arg) shorts[ns++] = ':';
            }
        }
        longs[nl] = (struct option){NULL, 0, NULL, 0};
        shorts[ns] = '\0';
        /* getopt reads from argv[1]: argv[-1] is the command's name (main passes argv + i + 1) */
        opterr = 0;
        optind = 0; /* glibc: a full restart, whatever an earlier parse left behind */
        int c, index = -1;
        while ((c = getopt_long(argc + 1, argv - 1, shorts, longs, &index)) != -1) {
            char name[64];
            if (index >= 0 && c != '?' && c != ':') {
                /* getopt_long takes "--fr" for "--frames"; scripts get the full names only,
                 * so that a new option can never change what an old command line means */
                const char *word = argv[optind - 2];
                if (longs[index].has_arg && optarg == word) word = argv[optind - 3];
                size_t len = strlen(longs[index].name);
                if (strncmp(word + 2, longs[index].name, len) != 0 ||
                    (word[2 + len] != '\0' && word[2 + len] != '='))
                    return cli_usage_error(spec->name, "unknown option '%.*s' (did you mean --%s?)",
                                           (int)strcspn(word, "="), word, longs[index].name);
            }
            index = -1;
            if (c == '?' || c == ':') {
                const cli_option *o = find(spec, optopt);
                if (o == NULL) {
                    if (optopt != 0)
                        return cli_usage_error(spec->name, "unknown option '-%c'", (char)optopt);
                    return cli_usage_error(spec->name, "unknown option '%.*s'",
                                           (int)strcspn(argv[optind - 2], "="), argv[optind - 2]);
                }
                spell(o, argv[optind - 2], name, sizeof name);
                if (c == ':') return cli_usage_error(spec->name, "%s needs a value", name);
                return cli_usage_error(spec->name, "%s takes no value", name);
            }
            const cli_option *o = find(spec, c);
            if (o == &no_clobber) {
                cli.no_clobber = true;
            } else if (o == &globals[0].opt) {
                cli.quiet = true;
            } else if (o == &globals[1].opt) {
                cli.verbose = true;
            } else if (o == &globals[2].opt) {
                if (spec->print_help != NULL)
                    spec->print_help(stdout);
                else
                    cli_print_help(spec, stdout);
                return CLI_OK;
            } else if (o == &globals[3].opt) {
                printf("onescope %s\n", ONESCOPE_VERSION_STRING);
                return CLI_OK;
            } else if (o == &globals[4].opt) {
                if (!cli_module_load(optarg)) return CLI_FAIL;
            } else {
                int i = (int)(o - spec->options);
                out->seen[i] = true;
                out->value[i] = optarg;
            }
        }
        first = optind - 1;
    }
    out->dashdash = first > 0 && strcmp(argv[first - 1], "--") == 0;
    out->operands = argv + first;
    out->operand_count = argc - first;
    if (out->operand_count < min || (max >= 0 && out->operand_count > max))
        return cli_usage_error(spec->name, "takes %s, not %d operand%s",
                               spec->operands[0] ? spec->operands : "no operand",
                               out->operand_count, out->operand_count == 1 ? "" : "s");
    return CLI_PARSE_RUN;
}

/* The shortest decimal that reads back as v, exponent without '+' or leading zeros ("1e300"). */
static void put_real(char *buf, size_t size, double v) {
    onescope_number_format(v, buf, size);
    char *e = strchr(buf, 'e');
    if (e == NULL) return;
    char *from = e + 1, *to = e + 1;
    if (*from == '+')
        from++;
    else if (*from == '-')
        *to++ = *from++;
    while (*from == '0' && from[1] != '\0') from++;
    memmove(to, from, strlen(from) + 1);
}

/* Whether s is -?D+(.D+)?([eE][+-]?D+)?: the digits are checked here, so strtod (which would
 * also take spaces, '+', hex, inf and nan) only computes the value. */
static bool is_decimal(const char *s) {
    if (*s == '-') s++;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') s++;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9') return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (*s < '0' || *s > '9') return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

int cli_parse_real(const char *command, const char *option, const char *s, cli_real_range range,
                   double *out) {
    /* The CLI never calls setlocale, so strtod reads '.' as the decimal point. */
    double v = is_decimal(s) ? strtod(s, NULL) : NAN;
    bool low_ok = range.above_min ? v > range.min : v >= range.min;
    if (isfinite(v) && low_ok && v <= range.max) {
        *out = v + 0.0; /* -0 is 0 */
        return CLI_PARSE_RUN;
    }
    char lo[32], hi[32], shown[256];
    put_real(lo, sizeof lo, range.min);
    put_real(hi, sizeof hi, range.max);
    onescope_error_escape(shown, sizeof shown, s, strlen(s));
    return cli_usage_error(command, "%s must be a decimal number %s %s %s %s, not '%s'", option,
                           range.above_min ? "above" : "from", lo,
                           range.above_min ? "and at most" : "to", hi, shown);
}

static void put_option_json(FILE *out, const cli_option *o) {
    fputs("{\"long\": ", out);
    cli_json_string(out, o->name, strlen(o->name));
    fputs(", \"short\": ", out);
    if (o->short_name)
        cli_json_string(out, &o->short_name, 1);
    else
        fputs("null", out);
    fputs(", \"arg\": ", out);
    if (o->arg)
        cli_json_string(out, o->arg, strlen(o->arg));
    else
        fputs("null", out);
    fputs(", \"help\": ", out);
    cli_json_string(out, o->help, strlen(o->help));
    fputc('}', out);
}

static void put_text_json(FILE *out, const char *key, const char *s) {
    fprintf(out, "\"%s\": ", key);
    cli_json_string(out, s ? s : "", s ? strlen(s) : 0);
}

void cli_print_options(FILE *out, const cli_spec *const *specs, int count) {
    fputs("{\"globals\": [", out);
    for (int i = 0; i < NGLOBALS; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        put_option_json(out, &globals[i].opt);
    }
    fputs("],\n \"no_clobber\": ", out);
    put_option_json(out, &no_clobber);
    fputs(",\n ", out);
    put_text_json(out, "end_of_options", END_OF_OPTIONS);
    fputs(",\n \"commands\": [", out);
    for (int c = 0; c < count; c++) {
        const cli_spec *s = specs[c];
        fputs(c ? ",\n  {" : "\n  {", out);
        put_text_json(out, "name", s->name);
        fputs(", ", out);
        put_text_json(out, "operands", s->operands);
        fputs(",\n   ", out);
        put_text_json(out, "about", s->about);
        fputs(",\n   ", out);
        put_text_json(out, "exit", s->exit_codes);
        fprintf(out, ",\n   \"writes\": %s, \"options\": [", s->writes ? "true" : "false");
        for (int i = 0; i < s->count; i++) {
            fputs(i ? ",\n    " : "\n    ", out);
            put_option_json(out, &s->options[i]);
        }
        fputs("]}", out);
    }
    fputs("]}\n", out);
}
