/* The format-generic commands: validate, dump, rewrite. The format comes from the bytes. */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

/* Reads path through the library's one read path and finds its format with the library's
 * one detection; prints the error and returns NULL on failure. */
static const cli_format *load(const char *path, onescope_buffer *buf) {
    onescope_error err;
    if (onescope_file_read(path, 0, NULL, buf, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return NULL;
    }
    const cli_format *f = cli_detect_format(buf->data, buf->size, cli_input_name(path), &err);
    if (f == NULL) {
        cli_print_error(&err);
        onescope_buffer_free(buf);
    }
    return f;
}

/* Prints each error of a file as the library finds it, one line each, and counts them. */
typedef struct printed {
    uint64_t count;
    onescope_code last;
    const cli_input *in; /* errors naming its copy name it */
} printed;

static void print_each(void *user, const onescope_error *error) {
    printed *p = user;
    p->count++;
    p->last = error->code;
    onescope_error e = *error;
    cli_input_rename(p->in, &e);
    cli_print_error(&e);
}

/* Whether the reading may have gone on after an error of this code (the codes that end the
 * list: docs/ots.md section 6). */
static bool list_goes_on(onescope_code code) {
    return code != ONESCOPE_E_SYNTAX && code != ONESCOPE_E_UTF8 && code != ONESCOPE_E_IO &&
           code != ONESCOPE_E_NOMEM && code != ONESCOPE_E_VERSION && code != ONESCOPE_E_TOO_LARGE;
}

#define VALIDATE_MAX_ERRORS 20u

static const cli_option validate_options[] = {
    {"max-errors", 0, "N", "list up to N errors of a .pvt or .anm file, 1 to 100000 (default 20)"},
};
const cli_spec cli_spec_validate = {
    .name = "validate",
    .operands = "FILE...",
    .about = "Checks each file against its format (OSPC, OSTM, OSLS, .pvt or .anm, found\n"
             "from its content). Prints one line per error on stderr: the binary formats\n"
             "stop at their first error, a .pvt or .anm lists every error up to\n"
             "--max-errors (a syntax error ends the list). Files are streamed: memory does\n"
             "not grow with their size.\n",
    .exit_codes = "0 all valid, 1 any invalid or unreadable, 2 usage",
    .options = validate_options,
    .count = 1,
};

/* A module recording's container has passed (streamed); its blobs are the module's. With the
 * module loaded they are checked here, the file read whole; without, only its first bytes are
 * read, to name the module. Every input reaches here as the one file it was opened as (a
 * stream spooled from its one open), so standard input and pipes get the same checks as a
 * file. */
static bool validate_recording(const cli_input *in) {
    char note[256];
    onescope_error err;
    uint8_t head[ONESCOPE_RECORDING_PEEK_BYTES];
    char id[65], version[65];
    const char *name = cli_input_name(in->path);
    ssize_t n = pread(in->fd, head, sizeof head, 0);
    onescope_code rc =
        onescope_recording_peek_module(head, n > 0 ? (size_t)n : 0, name, id, version, &err);
    if (rc == ONESCOPE_OK && cli_module_find(id) == NULL) {
        snprintf(note, sizeof note,
                 " (the container only: module %s %s not loaded, its setup and inputs "
                 "unchecked)",
                 id, version);
    } else if (rc == ONESCOPE_OK) {
        onescope_buffer b;
        rc = onescope_file_read(in->src, 0, NULL, &b, &err);
        if (rc == ONESCOPE_OK) {
            rc = cli_format_recording.validate(b.data, b.size, name, &err);
            snprintf(note, sizeof note, " (module %s %s: its setup and inputs checked)", id,
                     version);
            onescope_buffer_free(&b);
        }
    }
    if (rc != ONESCOPE_OK) {
        cli_input_rename(in, &err);
        cli_print_error(&err);
        return false;
    }
    if (!cli.quiet) printf("%s: valid ostm2%s\n", cli_shown(in->path), cli_shown(note));
    return true;
}

int cmd_validate(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_validate, argc, argv, 1, -1, &a);
    if (status != CLI_PARSE_RUN) return status;
    uint64_t max = VALIDATE_MAX_ERRORS;
    if (a.seen[0] && (!cli_parse_u64(a.value[0], 100000, &max) || max == 0))
        return cli_usage_error("validate", "--max-errors must be 1 to 100000, not '%s'",
                               a.value[0]);
    onescope_parse_options o = onescope_parse_options_default();
    o.on_error = print_each;
    o.max_errors = (uint32_t)max;
    for (int i = 0; i < a.operand_count; i++) {
        const char *path = a.operands[i];
        onescope_error err;
        onescope_format format;
        /* opened once; a stream is spooled from that open, so a module recording can be read
         * again for its module's checks, whatever the input is */
        cli_input in;
        if (!cli_input_open(&in, path)) {
            status = CLI_FAIL;
            continue;
        }
        printed errors = {0, ONESCOPE_OK, &in};
        o.on_error_user = &errors;
        if (onescope_file_validate(in.src, &o, &format, &err) != ONESCOPE_OK) {
            status = CLI_FAIL;
            bool ots = format == ONESCOPE_FORMAT_PVT || format == ONESCOPE_FORMAT_ANM;
            if (ots && errors.count == max && list_goes_on(errors.last))
                fprintf(stderr,
                        "%s: stopped at %" PRIu64 " error%s (--max-errors); there may be more\n",
                        cli_shown(path), max, max == 1 ? "" : "s");
        } else if (format == ONESCOPE_FORMAT_RECORDING) {
            if (!validate_recording(&in)) status = CLI_FAIL;
        } else if (!cli.quiet) {
            printf("%s: valid %s\n", cli_shown(path), onescope_format_name(format));
        }
        cli_input_close(&in);
    }
    return status == CLI_FAIL ? CLI_FAIL : CLI_OK;
}

static const cli_option dump_options[] = {
    {"json", 0, NULL, "one JSON document per file, keys the format's field names"},
};
const cli_spec cli_spec_dump = {
    .name = "dump",
    .operands = "FILE...",
    .about = "Prints the header, the entities or bodies and the counts of each FILE (with\n"
             "more than one, each after a line '==> FILE <=='; with --json, one document\n"
             "after another). Goes on past a bad file: its one line goes to stderr.\n"
             "'onescope dump --poses CACHE.ospc' prints the poses themselves as a table (its\n"
             "own options: 'onescope dump --poses --help').\n",
    .exit_codes = "0 ok, 1 any file invalid or unreadable, 2 usage",
    .options = dump_options,
    .count = 1,
};

int cmd_dump(int argc, char **argv) {
    /* The pose table of one cache is its own mode with its own options (fmt_ospc.c). */
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--poses") == 0) return cli_ospc_dump_poses(argc, argv);
    cli_args a;
    int status = cli_parse(&cli_spec_dump, argc, argv, 1, -1, &a);
    if (status != CLI_PARSE_RUN) return status;
    bool json = a.seen[0];
    for (int i = 0; i < a.operand_count; i++) {
        const char *path = a.operands[i];
        if (a.operand_count > 1 && !json) printf("%s==> %s <==\n", i ? "\n" : "", cli_shown(path));
        onescope_buffer buf;
        const cli_format *f = load(path, &buf);
        if (f == NULL) {
            status = CLI_FAIL;
            continue;
        }
        onescope_error err;
        onescope_code rc = f->dump(buf.data, buf.size, cli_input_name(path), json, stdout, &err);
        onescope_buffer_free(&buf);
        if (rc != ONESCOPE_OK) {
            cli_print_error(&err);
            status = CLI_FAIL;
        }
    }
    return status == CLI_PARSE_RUN ? CLI_OK : status;
}

const cli_spec cli_spec_rewrite = {
    .name = "rewrite",
    .operands = "IN OUT",
    .about = "Parses IN and writes it to OUT with the library's writer ('-' for standard\n"
             "input or output). OUT is written atomically and is not created when IN is\n"
             "invalid.\n",
    .exit_codes = "0 ok, 1 IN invalid or OUT not written, 2 usage",
    .writes = true,
};

int cmd_rewrite(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_rewrite, argc, argv, 2, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    char **paths = a.operands;
    if (!cli_check_output("rewrite", paths[0], paths[1])) return CLI_FAIL;
    onescope_buffer in, out;
    const cli_format *f = load(paths[0], &in);
    if (f == NULL) return CLI_FAIL;
    onescope_error err;
    onescope_code rc = f->rewrite(in.data, in.size, cli_input_name(paths[0]), &out, &err);
    onescope_buffer_free(&in);
    if (rc == ONESCOPE_OK) {
        rc = onescope_file_write(paths[1], out.data, out.size, &err);
        onescope_buffer_free(&out);
    }
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
