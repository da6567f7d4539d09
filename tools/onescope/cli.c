/* Helpers shared by the CLI commands: format detection, errors, JSON printing. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

cli_globals cli;

static const cli_format *const formats[] = {
    &cli_format_ospc, &cli_format_ostm, &cli_format_pvt,
    &cli_format_anm,  &cli_format_osls, &cli_format_recording,
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

/* Writes a line of the CLI's own text with every piece but '"' and '\\' through the one
 * escape, so an argument quoted in a message (a file name, an option's value) cannot break or
 * colour the line, while the message's own quotes stay as they are. */
static void put_escaped(FILE *out, const char *text) {
    char buf[1024];
    while (*text) {
        size_t n = strcspn(text, "\"\\");
        if (n == 0) {
            fputc(*text++, out);
            continue;
        }
        onescope_error_escape(buf, sizeof buf, text, n);
        fputs(buf, out);
        text += n;
    }
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, command[0] ? "onescope %s: " : "onescope: ", command);
    put_escaped(stderr, message);
    fprintf(stderr, " (see 'onescope%s%s --help')\n", command[0] ? " " : "", command);
    return CLI_USAGE;
}

/* Whether the file named out is the input in: the same file by device and inode (so through
 * links), and for "-" the file standard input was redirected from. */
static bool same_file(const char *in, const char *out) {
    if (strcmp(in, "-") != 0) return onescope_file_same(in, out);
    struct stat si, so;
    return fstat(STDIN_FILENO, &si) == 0 && S_ISREG(si.st_mode) && stat(out, &so) == 0 &&
           si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

bool cli_refuse_same_file(const char *command, const char *in, const char *out) {
    if (strcmp(out, "-") == 0 || !same_file(in, out)) return false;
    fprintf(stderr, "%s: refusing to overwrite the input %s with the output of 'onescope %s'\n",
            cli_shown(out), cli_shown(in), command);
    return true;
}

bool cli_check_outputs(const char *command, const char *const *ins, size_t count, const char *out) {
    if (strcmp(out, "-") == 0) return true;
    for (size_t i = 0; i < count; i++)
        if (ins[i] != NULL && cli_refuse_same_file(command, ins[i], out)) return false;
    if (!cli.no_clobber) return true;
    /* any kind of file counts (also a dangling symbolic link: rename would replace it) */
    struct stat st;
    if (lstat(out, &st) != 0) return true;
    fprintf(stderr, "%s: exists, not replaced (--no-clobber given to 'onescope %s')\n",
            cli_shown(out), command);
    return false;
}

bool cli_check_output(const char *command, const char *in, const char *out) {
    return cli_check_outputs(command, &in, 1, out);
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

onescope_code cli_input_try(cli_input *in, const char *path, onescope_error *err) {
    in->path = path;
    in->src[0] = '\0';
    onescope_code rc = onescope_file_open_input(path, NULL, &in->fd, err);
    if (rc == ONESCOPE_OK) snprintf(in->src, sizeof in->src, "/dev/fd/%d", in->fd);
    return rc;
}

bool cli_input_open(cli_input *in, const char *path) {
    onescope_error err;
    if (cli_input_try(in, path, &err) == ONESCOPE_OK) return true;
    cli_print_error(&err);
    return false;
}

void cli_input_close(cli_input *in) {
    if (in->fd >= 0) close(in->fd);
    in->fd = -1;
}

void cli_input_rename(const cli_input *in, onescope_error *err) {
    if (in->src[0] != '\0' && strcmp(err->input, in->src) == 0)
        snprintf(err->input, sizeof err->input, "%s", cli_input_name(in->path));
}

void cli_json_string(FILE *out, const char *s, size_t n) {
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = onescope_error_utf8_char(s + i, n - i, NULL);
        if (len == 0) {
            /* not UTF-8: the byte as the text lines show it, \xNN (docs/cli.md) */
            fprintf(out, "\\\\x%02X", c);
            i++;
            continue;
        }
        switch (c) {
            case '"': fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default:
                if (c < 0x20 || c == 0x7F)
                    fprintf(out, "\\u%04x", c);
                else
                    fwrite(s + i, 1, len, out);
        }
        i += len;
    }
    fputc('"', out);
}

void cli_xml_text(FILE *out, const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t len = onescope_error_utf8_char(s + i, n - i, &cp);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", out); /* U+FFFD for a byte that is not UTF-8 */
            i++;
            continue;
        }
        switch (cp) {
            case '&': fputs("&amp;", out); break;
            case '<': fputs("&lt;", out); break;
            case '>': fputs("&gt;", out); break;
            case '"': fputs("&quot;", out); break;
            case '\'': fputs("&apos;", out); break;
            /* references, so attribute values keep them */
            case '\t': fputs("&#9;", out); break;
            case '\n': fputs("&#10;", out); break;
            case '\r': fputs("&#13;", out); break;
            default:
                /* what XML 1.0 cannot hold is dropped: other controls, U+FFFE, U+FFFF */
                if (cp >= 0x20 && cp != 0xFFFE && cp != 0xFFFF) fwrite(s + i, 1, len, out);
        }
        i += len;
    }
}

void cli_json_double(FILE *out, double v) {
    if (!isfinite(v)) {
        fputs("null", out); /* JSON has no NaN or infinity */
        return;
    }
    char buf[ONESCOPE_NUMBER_MAX_LENGTH + 1];
    fwrite(buf, 1, onescope_number_format(v, buf, sizeof buf), out);
}

const char *cli_number(char buf[CLI_NUMBER_SIZE], double v) {
    onescope_number_format(v, buf, CLI_NUMBER_SIZE);
    return buf;
}

const char *cli_number_float(char buf[CLI_NUMBER_SIZE], float v) {
    onescope_number_format_float(v, buf, CLI_NUMBER_SIZE);
    return buf;
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

/* ---- --entity (plot, view) ---- */

bool cli_entity_filter_parse(cli_entity_filter *f, const char *list) {
    const char *p = list;
    while (f->count < 64) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0) break;
        f->tokens[f->count] = strndup(p, n);
        if (f->tokens[f->count] == NULL) break;
        f->matched[f->count++] = false;
        if (!comma) return true;
        p = comma + 1;
    }
    cli_entity_filter_free(f);
    return false;
}

bool cli_entity_filter_pass(cli_entity_filter *f, uint64_t id, const char *name, size_t name_len) {
    if (f->count == 0) return true;
    char ids[24];
    snprintf(ids, sizeof ids, "%" PRIu64, id);
    bool hit = false;
    for (int i = 0; i < f->count; i++)
        if (strcmp(f->tokens[i], ids) == 0 || (name != NULL && strlen(f->tokens[i]) == name_len &&
                                               memcmp(f->tokens[i], name, name_len) == 0)) {
            f->matched[i] = true;
            hit = true;
        }
    return hit;
}

const char *cli_entity_filter_unmatched(const cli_entity_filter *f) {
    for (int i = 0; i < f->count; i++)
        if (!f->matched[i]) return f->tokens[i];
    return NULL;
}

void cli_entity_filter_free(cli_entity_filter *f) {
    for (int i = 0; i < f->count; i++) free(f->tokens[i]);
    f->count = 0;
}
