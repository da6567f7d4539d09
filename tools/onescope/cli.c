/* Helpers shared by the CLI commands: format detection, errors, JSON printing. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

cli_globals cli;

static const cli_format *const formats[] = {
    &cli_format_ospc, &cli_format_ostm, &cli_format_pvt, &cli_format_anm, &cli_format_osls,
};

const cli_format *cli_detect_format(const uint8_t *data, size_t size, const char *name,
                                    onescope_error *error) {
    onescope_format format = onescope_format_detect(data, size);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (format != ONESCOPE_FORMAT_UNKNOWN && formats[i]->format == format) return formats[i];
    onescope_error_clear(error);
    error->code = ONESCOPE_E_MAGIC;
    error->has_offset = 1;
    error->offset = 0;
    snprintf(error->input, sizeof error->input, "%s", name);
    snprintf(error->field, sizeof error->field, "format");
    snprintf(
        error->expected, sizeof error->expected,
        "a known format (OSPC, OSTM or OSLS magic, or a JSON \"format\" of octo_pvt or octo_anm)");
    if (size >= 4)
        snprintf(error->found, sizeof error->found, "bytes %02x %02x %02x %02x", data[0], data[1],
                 data[2], data[3]);
    else
        snprintf(error->found, sizeof error->found, "%zu bytes", size);
    return NULL;
}

void cli_print_error(const onescope_error *error) {
    char line[1024];
    onescope_error_format(error, line, sizeof line);
    fprintf(stderr, "%s\n", line);
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, command[0] ? "onescope %s: " : "onescope: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'onescope%s%s --help')\n", command[0] ? " " : "", command);
    va_end(ap);
    return CLI_USAGE;
}

bool cli_refuse_same_file(const char *command, const char *in, const char *out) {
    if (strcmp(in, "-") == 0 || strcmp(out, "-") == 0 || !onescope_file_same(in, out)) return false;
    fprintf(stderr, "%s: refusing to overwrite the input %s with the output of 'onescope %s'\n",
            cli_shown(out), cli_shown(in), command);
    return true;
}

bool cli_check_output(const char *command, const char *in, const char *out) {
    if (strcmp(out, "-") == 0) return true;
    if (in != NULL && cli_refuse_same_file(command, in, out)) return false;
    if (!cli.no_clobber) return true;
    /* any kind of file counts (also a dangling symbolic link: rename would replace it) */
    struct stat st;
    if (lstat(out, &st) != 0) return true;
    fprintf(stderr, "%s: exists, not replaced (--no-clobber given to 'onescope %s')\n", out,
            command);
    return false;
}

bool cli_is_help(const char *arg) {
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *cli_input_name(const char *path) {
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

const char *cli_shown(const char *path) {
    /* A few rotating buffers, so one line can show several names; per thread for verify -j. */
    static _Thread_local char shown[4][1024];
    static _Thread_local unsigned next;
    char *buf = shown[next++ % 4];
    const char *name = cli_input_name(path);
    onescope_error_escape(buf, sizeof shown[0], name, strlen(name));
    return buf;
}

void cli_json_string(FILE *out, const char *s, size_t n) {
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
            case '"': fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default:
                if (c < 0x20)
                    fprintf(out, "\\u%04x", c);
                else
                    fputc(c, out);
        }
    }
    fputc('"', out);
}

void cli_json_double(FILE *out, double v) {
    if (!isfinite(v)) {
        fputs("null", out); /* JSON has no NaN or infinity */
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, out);
}

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (s == NULL || *s < '0' || *s > '9') return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (d > max || v > (max - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool cli_parse_i32_list(const char *s, int32_t *out, size_t count) {
    for (size_t i = 0; i < count; i++) {
        bool neg = *s == '-';
        if (neg || *s == '+') s++;
        if (*s < '0' || *s > '9') return false;
        int64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            v = v * 10 + (*s - '0');
            if (v > (int64_t)INT32_MAX + 1) return false;
        }
        if (neg) v = -v;
        if (v > INT32_MAX || v < INT32_MIN) return false;
        out[i] = (int32_t)v;
        if (i + 1 < count) {
            if (*s != ',') return false;
            s++;
        }
    }
    return *s == '\0';
}
