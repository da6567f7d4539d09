/* Checks every hostile file under tests/crashers/ against its line in MANIFEST:
 *
 *   FILE FORMAT CODE@WHERE
 *
 * FORMAT names the parser (the table below: one line per format), CODE is the error code's
 * name in lower case without ONESCOPE_E_ (e.g. truncated, range, utf8), WHERE is the byte
 * offset, LINE:COLUMN for text formats, or '-' for an error without a position. Every file
 * of the folder must have a line and every line a file, so nothing is forgotten.
 * Usage: check_crashers DIR. Exit 0 when every file fails exactly as listed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onescope/onescope.h"

/* ---- the formats: parse the bytes, return the code, fill the error ---- */

static onescope_code check_ospc(const uint8_t *data, size_t size, const char *name,
                                onescope_error *err) {
    onescope_pose_cache *c = NULL;
    onescope_code rc = onescope_pose_cache_parse(data, size, name, NULL, &c, err);
    onescope_pose_cache_free(c);
    return rc;
}

static onescope_code check_ostm(const uint8_t *data, size_t size, const char *name,
                                onescope_error *err) {
    onescope_replay *r = NULL;
    onescope_code rc = onescope_replay_parse(data, size, name, NULL, &r, err);
    onescope_replay_free(r);
    return rc;
}

static onescope_code check_ostm2(const uint8_t *data, size_t size, const char *name,
                                 onescope_error *err) {
    onescope_recording *r = NULL;
    onescope_code rc = onescope_recording_parse(data, size, name, NULL, &r, err);
    onescope_recording_free(r);
    return rc;
}

static onescope_code check_anm(const uint8_t *data, size_t size, const char *name,
                               onescope_error *err) {
    onescope_ots_clip *c = NULL;
    onescope_code rc = onescope_ots_clip_parse(data, size, name, NULL, &c, err);
    onescope_ots_clip_free(c);
    return rc;
}

static onescope_code check_pvt(const uint8_t *data, size_t size, const char *name,
                               onescope_error *err) {
    onescope_ots_rig *r = NULL;
    onescope_code rc = onescope_ots_rig_parse(data, size, name, NULL, &r, err);
    onescope_ots_rig_free(r);
    return rc;
}

static onescope_code check_osls(const uint8_t *data, size_t size, const char *name,
                                onescope_error *err) {
    return onescope_live_decode(data, size, name, NULL, NULL, NULL, err);
}

static onescope_code check_scene(const uint8_t *data, size_t size, const char *name,
                                 onescope_error *err) {
    onescope_soa_scene *s = NULL;
    onescope_code rc = onescope_soa_scene_parse(data, size, name, NULL, &s, err);
    onescope_soa_scene_free(s);
    return rc;
}

static const struct {
    const char *name;
    onescope_code (*check)(const uint8_t *, size_t, const char *, onescope_error *);
} formats[] = {
    {"ospc", check_ospc}, {"ostm", check_ostm}, {"ostm2", check_ostm2}, {"anm", check_anm},
    {"pvt", check_pvt},   {"osls", check_osls}, {"scene", check_scene},
};

/* ---- code names: the enum's names in lower case ---- */

static const char *const code_names[] = {
    "ok",        "argument", "nomem", "io",        "too_large", "truncated",   "magic",  "version",
    "flags",     "reserved", "range", "trailing",  "duplicate", "not_finite",  "utf8",   "length",
    "operation", "syntax",   "type",  "bad_state", "mismatch",  "unsupported", "engine", "module"};

static int code_from_name(const char *s) {
    for (size_t i = 0; i < sizeof code_names / sizeof code_names[0]; i++)
        if (strcmp(code_names[i], s) == 0) return (int)i;
    return -1;
}

static const char *code_name(onescope_code c) {
    return (size_t)c < sizeof code_names / sizeof code_names[0] ? code_names[c] : "?";
}

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    while (data != NULL) {
        n += fread(data + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *p = realloc(data, cap * 2);
        if (p == NULL) free(data);
        data = p;
        cap *= 2;
    }
    fclose(f);
    *size = n;
    return data;
}

#define MAX_FILES 1024

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: check_crashers DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *m = fopen(path, "r");
    if (m == NULL) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    static char listed[MAX_FILES][256];
    int nlisted = 0, failed = 0, checked = 0, lineno = 0;
    char line[1024];
    while (fgets(line, sizeof line, m) != NULL) {
        lineno++;
        char file[256], format[64], expect[128];
        if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line)) continue;
        if (sscanf(line, "%255s %63s %127s", file, format, expect) != 3) {
            fprintf(stderr, "MANIFEST:%d: expected 'FILE FORMAT CODE@WHERE'\n", lineno);
            failed++;
            continue;
        }
        if (nlisted < MAX_FILES) snprintf(listed[nlisted++], sizeof listed[0], "%s", file);
        char *at = strchr(expect, '@');
        if (at == NULL) {
            fprintf(stderr, "MANIFEST:%d: '%s' has no '@'\n", lineno, expect);
            failed++;
            continue;
        }
        *at++ = '\0';
        int want_code = code_from_name(expect);
        unsigned long long want_off = 0;
        unsigned want_line = 0, want_col = 0;
        int want_kind; /* 0 none, 1 offset, 2 line:column */
        if (strcmp(at, "-") == 0)
            want_kind = 0;
        else if (sscanf(at, "%u:%u", &want_line, &want_col) == 2 && strchr(at, ':'))
            want_kind = 2;
        else if (sscanf(at, "%llu", &want_off) == 1)
            want_kind = 1;
        else
            want_kind = -1;
        if (want_code <= 0 || want_kind < 0) {
            fprintf(stderr, "MANIFEST:%d: bad code or position '%s@%s'\n", lineno, expect, at);
            failed++;
            continue;
        }
        size_t k = 0, nformats = sizeof formats / sizeof formats[0];
        while (k < nformats && strcmp(formats[k].name, format) != 0) k++;
        if (k == nformats) {
            fprintf(stderr, "MANIFEST:%d: unknown format '%s'\n", lineno, format);
            failed++;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, file);
        size_t size = 0;
        uint8_t *data = read_all(path, &size);
        if (data == NULL) {
            fprintf(stderr, "MANIFEST:%d: %s: cannot read\n", lineno, path);
            failed++;
            continue;
        }
        onescope_error err;
        onescope_error_clear(&err);
        onescope_code rc = formats[k].check(data, size, file, &err);
        free(data);
        char msg[1024];
        onescope_error_format(&err, msg, sizeof msg);
        int ok = rc == (onescope_code)want_code && err.code == rc;
        /* and the message is one line of printable text, whatever the file held */
        for (const unsigned char *q = (const unsigned char *)msg; *q; q++)
            if (*q < 0x20 || *q == 0x7f) ok = 0;
        if (want_kind == 0) ok = ok && !err.has_offset && err.line == 0;
        if (want_kind == 1) ok = ok && err.has_offset && err.offset == want_off;
        if (want_kind == 2) ok = ok && err.line == want_line && err.column == want_col;
        if (!ok) {
            fprintf(stderr, "FAIL %s: wanted %s@%s, got %s@", file, expect, at, code_name(rc));
            if (err.has_offset)
                fprintf(stderr, "%" PRIu64, err.offset);
            else if (err.line)
                fprintf(stderr, "%u:%u", err.line, err.column);
            else
                fprintf(stderr, "-");
            fprintf(stderr, " (%s)\n", rc == ONESCOPE_OK ? "parsed as valid" : msg);
            failed++;
        } else {
            printf("ok %s: %s\n", file, msg);
        }
        checked++;
    }
    fclose(m);

    /* Every file of the folder has a line (except the manifest, README.md and sources). */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if (n[0] == '.' || strcmp(n, "MANIFEST") == 0 || strcmp(n, "README.md") == 0 ||
            (len > 2 && strcmp(n + len - 2, ".c") == 0))
            continue;
        int found = 0;
        for (int i = 0; i < nlisted && !found; i++) found = strcmp(listed[i], n) == 0;
        if (!found) {
            fprintf(stderr, "FAIL %s: in the folder but not in MANIFEST\n", n);
            failed++;
        }
    }
    if (d != NULL) closedir(d);
    printf("%d crashers checked, %d failures\n", checked, failed);
    return failed || checked == 0 ? 1 : 0;
}
