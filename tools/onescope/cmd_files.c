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
    /* First pass: options and usage; files are the arguments after "--" or not starting with
     * '-' ("-" itself is standard input). */
    int first_file = argc, files = 0;
    for (int i = 0; i < argc; i++) {
        if (first_file == argc && cli_is_help(argv[i])) {
            printf("usage: onescope validate [--] FILE...\n"
                   "Checks each file against its format (OSPC, OSTM, OSLS, .pvt or .anm, found\n"
                   "from its content). Prints one line per bad file on stderr.\n"
                   "exit: 0 all valid, 1 any invalid or unreadable, 2 usage\n");
            return CLI_OK;
        }
        if (first_file == argc && strcmp(argv[i], "--") == 0) {
            first_file = i + 1;
            continue;
        }
        if (first_file == argc && argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("validate", "unknown option '%s'", argv[i]);
        files++;
    }
    if (files == 0) return cli_usage_error("validate", "needs at least one FILE");
    int status = CLI_OK;
    for (int i = 0; i < argc; i++) {
        if (i < first_file && strcmp(argv[i], "--") == 0) continue;
        const char *path = argv[i];
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
    return status;
}

int cmd_dump(int argc, char **argv) {
    const char *path = NULL;
    bool json = false;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--poses") == 0) return cli_ospc_dump_poses(argc, argv);
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: onescope dump FILE [--json]\n"
                   "       onescope dump CACHE.ospc --poses [--frames A:B] [--entity ID] "
                   "[--csv|--json]\n"
                   "Prints the header, the entities or bodies and the counts of FILE.\n"
                   "--json prints one JSON document whose keys are the format's field names.\n"
                   "exit: 0 ok, 1 invalid or unreadable, 2 usage\n");
            return CLI_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("dump", "unknown option '%s'", argv[i]);
        } else if (path != NULL) {
            return cli_usage_error("dump", "takes one FILE");
        } else {
            path = argv[i];
        }
    }
    if (path == NULL) return cli_usage_error("dump", "needs a FILE");
    onescope_buffer buf;
    const cli_format *f = load(path, &buf);
    if (f == NULL) return CLI_FAIL;
    onescope_error err;
    onescope_code rc = f->dump(buf.data, buf.size, cli_input_name(path), json, stdout, &err);
    onescope_buffer_free(&buf);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_rewrite(int argc, char **argv) {
    const char *paths[2];
    int n = 0;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        if (!options_done && strcmp(argv[i], "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && cli_is_help(argv[i])) {
            printf("usage: onescope rewrite [--] IN OUT\n"
                   "Parses IN and writes it to OUT with the library's writer ('-' for standard\n"
                   "input or output). OUT is written atomically and is not created when IN is\n"
                   "invalid.\n"
                   "exit: 0 ok, 1 IN invalid or OUT not written, 2 usage\n");
            return CLI_OK;
        }
        if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("rewrite", "unknown option '%s'", argv[i]);
        if (n == 2) return cli_usage_error("rewrite", "takes IN and OUT");
        paths[n++] = argv[i];
    }
    if (n != 2) return cli_usage_error("rewrite", "takes IN and OUT");
    if (cli_refuse_same_file("rewrite", paths[0], paths[1])) return CLI_FAIL;
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
