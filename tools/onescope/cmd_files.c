/* The format-generic commands: validate, dump, rewrite. The format comes from the bytes. */
#include <string.h>

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

int cmd_validate(int argc, char **argv) {
    static const cli_spec spec = {
        .name = "validate",
        .operands = "FILE...",
        .about = "Checks each file against its format (OSPC, OSTM, OSLS, .pvt or .anm, found\n"
                 "from its content). Prints one line per bad file on stderr.\n",
        .exit_codes = "0 all valid, 1 any invalid or unreadable, 2 usage",
    };
    cli_args a;
    int status = cli_parse(&spec, argc, argv, 1, -1, &a);
    if (status != CLI_PARSE_RUN) return status;
    for (int i = 0; i < a.operand_count; i++) {
        const char *path = a.operands[i];
        /* The library streams what it can, so memory stays flat whatever the file's size. */
        onescope_error err;
        onescope_format format;
        if (onescope_file_validate(path, NULL, &format, &err) != ONESCOPE_OK) {
            cli_print_error(&err);
            status = CLI_FAIL;
        } else if (!cli.quiet) {
            printf("%s: valid %s\n", cli_input_name(path), onescope_format_name(format));
        }
    }
    return status == CLI_FAIL ? CLI_FAIL : CLI_OK;
}

int cmd_dump(int argc, char **argv) {
    /* The pose table of one cache is its own mode with its own options (fmt_ospc.c). */
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--poses") == 0) return cli_ospc_dump_poses(argc, argv);
    static const cli_option options[] = {
        {"json", 0, NULL, "one JSON document per file, keys the format's field names"},
    };
    static const cli_spec spec = {
        .name = "dump",
        .operands = "FILE...",
        .about = "Prints the header, the entities or bodies and the counts of each FILE (with\n"
                 "more than one, each after a line '==> FILE <=='; with --json, one document\n"
                 "after another). Goes on past a bad file: its one line goes to stderr.\n"
                 "onescope dump CACHE.ospc --poses [--frames A:B] [--entity ID] [--csv|--json]\n"
                 "prints the poses themselves as a table.\n",
        .exit_codes = "0 ok, 1 any file invalid or unreadable, 2 usage",
        .options = options,
        .count = 1,
    };
    cli_args a;
    int status = cli_parse(&spec, argc, argv, 1, -1, &a);
    if (status != CLI_PARSE_RUN) return status;
    bool json = a.seen[0];
    for (int i = 0; i < a.operand_count; i++) {
        const char *path = a.operands[i];
        if (a.operand_count > 1 && !json)
            printf("%s==> %s <==\n", i ? "\n" : "", cli_input_name(path));
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

int cmd_rewrite(int argc, char **argv) {
    static const cli_spec spec = {
        .name = "rewrite",
        .operands = "IN OUT",
        .about = "Parses IN and writes it to OUT with the library's writer ('-' for standard\n"
                 "input or output). OUT is written atomically and is not created when IN is\n"
                 "invalid.\n",
        .exit_codes = "0 ok, 1 IN invalid or OUT not written, 2 usage",
        .writes = true,
    };
    cli_args a;
    int status = cli_parse(&spec, argc, argv, 2, 2, &a);
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
