/* OTS v4 reader: JSON text (through jansson's tree) into rigs and clips, then the rules of
 * ots_rules.c. Rules: docs/ots.md. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ots_internal.h"

static const char version_message[] =
    "unsupported version %lld (this build writes/reads v4; no backward migration \xe2\x80\x94 "
    "re-export from the source DCC)";

/* ---- reading: jansson's tree into the structs ---- */

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "an array";
        case JSON_STRING: return "a string";
        case JSON_INTEGER: return "an integer";
        case JSON_REAL: return "a real number";
        case JSON_TRUE: return "true";
        case JSON_FALSE: return "false";
        case JSON_NULL: return "null";
    }
    return "a value";
}

/* A value of the wrong type at key (pushed by the caller). */
static onescope_code wrong_type(ots_ctx *c, const char *expected, const json_t *v) {
    return onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "%s", type_name(v));
}

static onescope_code missing(ots_ctx *c, const char *key) {
    char expected[80];
    snprintf(expected, sizeof expected, "a key \"%s\"", key);
    onescope_os_json_push_key(c, key);
    onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected, "none");
    onescope_os_json_pop(c);
    return rc;
}

/* Sorts obj's members into vals by the keys table; an unknown key is refused. */
static onescope_code members(ots_ctx *c, json_t *obj, const char *const *keys, int nkeys,
                             json_t **vals, const char *what) {
    if (!json_is_object(obj)) {
        char expected[80];
        snprintf(expected, sizeof expected, "an object (%s)", what);
        return wrong_type(c, expected, obj);
    }
    for (int i = 0; i < nkeys; i++) vals[i] = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int i = 0;
        while (i < nkeys && strcmp(keys[i], key) != 0) i++;
        if (i == nkeys) {
            char expected[96];
            snprintf(expected, sizeof expected, "only the keys OTS v4 defines for %s", what);
            onescope_os_json_push_key(c, key);
            onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_TYPE, expected,
                                                     "unknown key \"%s\"", OS_ECHO(key));
            onescope_os_json_pop(c);
            return rc;
        }
        vals[i] = v;
    }
    return ONESCOPE_OK;
}

static onescope_code rd_number(ots_ctx *c, const char *key, json_t *v, double *out, bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    if (!json_is_number(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = wrong_type(c, "a number", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = json_number_value(v);
    return onescope_os_ots_check_finite(c, key, out, 1);
}

/* An array of exactly n numbers (key NULL: the value itself, already pushed). */
static onescope_code rd_vec(ots_ctx *c, const char *key, json_t *v, size_t n, double *out,
                            bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    onescope_code rc = ONESCOPE_OK;
    if (key) onescope_os_json_push_key(c, key);
    const char *expected = n == 2   ? "an array of 2 numbers"
                           : n == 3 ? "an array of 3 numbers"
                                    : "an array of 4 numbers";
    if (!json_is_array(v)) {
        rc = wrong_type(c, expected, v);
    } else if (json_array_size(v) != n) {
        rc = onescope_os_json_fail(c, ONESCOPE_E_LENGTH, expected, "%zu elements",
                                   json_array_size(v));
    } else {
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_number(e)) {
                onescope_os_json_push_index(c, i);
                rc = wrong_type(c, "a number", e);
                onescope_os_json_pop(c);
                break;
            }
            out[i] = json_number_value(e);
        }
        if (rc == ONESCOPE_OK) rc = onescope_os_ots_check_finite(c, NULL, out, (int)n);
    }
    if (key) onescope_os_json_pop(c);
    return rc;
}

/* An integer in [lo, hi]; a real with a whole value is accepted too. */
static onescope_code rd_int(ots_ctx *c, const char *key, json_t *v, long long lo, long long hi,
                            long long *out) {
    if (v == NULL) return missing(c, key);
    onescope_code rc = ONESCOPE_OK;
    if (key) onescope_os_json_push_key(c, key);
    double d = json_is_real(v) ? json_real_value(v) : 0.5;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
    } else if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
        *out = (long long)d;
    } else {
        rc = wrong_type(c, "an integer", v);
    }
    if (rc == ONESCOPE_OK && (*out < lo || *out > hi)) {
        char expected[80];
        snprintf(expected, sizeof expected, "an integer from %lld to %lld", lo, hi);
        rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "%lld", *out);
    }
    if (key) onescope_os_json_pop(c);
    return rc;
}

enum { STR_OPTIONAL = 0, STR_REQUIRED = 1, STR_NULLABLE = 2 };

static onescope_code rd_str(ots_ctx *c, const char *key, json_t *v, char **out, int flags) {
    if (v == NULL) return (flags & STR_REQUIRED) ? missing(c, key) : ONESCOPE_OK;
    if ((flags & STR_NULLABLE) && json_is_null(v)) return ONESCOPE_OK;
    if (!json_is_string(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc =
            wrong_type(c, (flags & STR_NULLABLE) ? "a string or null" : "a string", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = onescope_os_ots_strdup_n(c->a, json_string_value(v), json_string_length(v));
    return *out == NULL ? onescope_os_json_nomem(c) : ONESCOPE_OK;
}

static onescope_code rd_bool(ots_ctx *c, const char *key, json_t *v, bool *out, bool required) {
    if (v == NULL) return required ? missing(c, key) : ONESCOPE_OK;
    if (!json_is_boolean(v)) {
        onescope_os_json_push_key(c, key);
        onescope_code rc = wrong_type(c, "true or false", v);
        onescope_os_json_pop(c);
        return rc;
    }
    *out = json_is_true(v);
    return ONESCOPE_OK;
}

static onescope_code rd_enum(ots_ctx *c, const char *key, json_t *v, const char *const *names,
                             int count, const char *expected, unsigned *out) {
    if (v == NULL) return missing(c, key);
    onescope_code rc = ONESCOPE_OK;
    onescope_os_json_push_key(c, key);
    if (!json_is_string(v)) {
        rc = wrong_type(c, expected, v);
    } else {
        const char *s = json_string_value(v);
        int i = 0;
        while (i < count && strcmp(names[i], s) != 0) i++;
        if (i == count)
            rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE, expected, "\"%s\"", OS_ECHO(s));
        else
            *out = (unsigned)i;
    }
    onescope_os_json_pop(c);
    return rc;
}

#define RD_ENUM(c, key, v, names, expected, field)                                                 \
    do {                                                                                           \
        unsigned e_ = 0;                                                                           \
        OS_TRY(rd_enum((c), (key), (v), (names), OTS_COUNT(names), (expected), &e_));              \
        (field) = e_;                                                                              \
    } while (0)

static onescope_code rd_header(ots_ctx *c, json_t *source, json_t *fps, json_t *cs,
                               onescope_ots_header *h) {
    RD_ENUM(c, "source", source, onescope_os_ots_source_names, "harmony, blender or maya",
            h->source);
    OS_TRY(rd_number(c, "fps", fps, &h->fps, true));
    if (cs == NULL) return missing(c, "coordinate_system");
    static const char *const keys[] = {"up",        "hand",          "unit",
                                       "rot_order", "rot_repr_anim", "rot_repr_rest"};
    json_t *v[6];
    onescope_os_json_push_key(c, "coordinate_system");
    onescope_ots_coordinate_system *s = &h->coordinate_system;
    OS_TRY(members(c, cs, keys, 6, v, "coordinate_system"));
    RD_ENUM(c, "up", v[0], onescope_os_ots_up_names, "x, y or z", s->up);
    RD_ENUM(c, "hand", v[1], onescope_os_ots_hand_names, "right or left", s->hand);
    RD_ENUM(c, "unit", v[2], onescope_os_ots_unit_names, "meters", s->unit);
    RD_ENUM(c, "rot_order", v[3], onescope_os_ots_rot_order_names, "xyz, xzy, yxz, yzx, zxy or zyx",
            s->rot_order);
    RD_ENUM(c, "rot_repr_anim", v[4], onescope_os_ots_repr_names, "euler_deg or quat_wxyz",
            s->rot_repr_anim);
    RD_ENUM(c, "rot_repr_rest", v[5], onescope_os_ots_repr_names, "euler_deg or quat_wxyz",
            s->rot_repr_rest);
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

/* An array value at key: its elements are read by the caller. */
static onescope_code rd_array(ots_ctx *c, const char *key, json_t *v, size_t *count) {
    if (v == NULL) return missing(c, key);
    if (json_is_array(v)) {
        *count = json_array_size(v);
        return ONESCOPE_OK;
    }
    onescope_os_json_push_key(c, key);
    onescope_code rc = wrong_type(c, "an array", v);
    onescope_os_json_pop(c);
    return rc;
}

static onescope_code rd_camera(ots_ctx *c, json_t *obj, onescope_ots_camera *k) {
    static const char *const keys[] = {
        "name",         "peg",        "path",      "is_default", "fov",       "fov_axis",
        "override_fov", "near_plane", "far_plane", "near_field", "far_field", "angle",
        "offset_x",     "offset_y",   "offset_z",  "pivot_x",    "pivot_y",   "rig"};
    json_t *v[18];
    OS_TRY(members(c, obj, keys, 18, v, "a camera"));
    OS_TRY(rd_str(c, "name", v[0], &k->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "peg", v[1], &k->peg, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_str(c, "path", v[2], &k->path, STR_OPTIONAL));
    OS_TRY(rd_bool(c, "is_default", v[3], &k->is_default, true));
    OS_TRY(rd_number(c, "fov", v[4], &k->fov, true));
    RD_ENUM(c, "fov_axis", v[5], onescope_os_ots_fov_axis_names, "vertical or horizontal",
            k->fov_axis);
    OS_TRY(rd_bool(c, "override_fov", v[6], &k->override_fov, true));
    double *nums[11] = {
        &k->near_plane, &k->far_plane, &k->near_field, &k->far_field, &k->angle, &k->offset_x,
        &k->offset_y,   &k->offset_z,  &k->pivot_x,    &k->pivot_y,   NULL};
    for (int i = 0; i < 10; i++) OS_TRY(rd_number(c, keys[7 + i], v[7 + i], nums[i], true));
    return rd_str(c, "rig", v[17], &k->rig, STR_OPTIONAL);
}

static onescope_code rd_cameras(ots_ctx *c, json_t *v, onescope_ots_camera **out, size_t *count) {
    size_t n = 0;
    OS_TRY(rd_array(c, "cameras", v, &n));
    *out = onescope_os_calloc(c->a, n, sizeof **out);
    if (*out == NULL) return onescope_os_json_nomem(c);
    *count = n;
    onescope_os_json_push_key(c, "cameras");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_camera(c, json_array_get(v, i), &(*out)[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

/* The light pass for a document the strict parse refused (a duplicate key, 1e999, a syntax
 * error further on): when its top level still shows the format being read and an integer
 * version other than 4, the version message wins, as for a document that parses (docs/ots.md
 * 1). The scan only follows the top level's members and stops at the first it cannot read;
 * returns ONESCOPE_OK when it finds nothing to report. */
static onescope_code version_first(ots_ctx *c, const char *text, size_t size,
                                   onescope_ots_kind want) {
    static const onescope_os_json_seg fmt_key[1] = {{"format", 0}}, ver_key[1] = {{"version", 0}};
    size_t root = onescope_os_json_skip_ws(text, size, 0);
    size_t f = onescope_os_json_locate(text, size, fmt_key, 1);
    size_t v = onescope_os_json_locate(text, size, ver_key, 1);
    const char *fmt = want == ONESCOPE_OTS_PVT ? "\"octo_pvt\"" : "\"octo_anm\"";
    if (f == root || v == root || v >= size || size - f < 10 || memcmp(text + f, fmt, 10) != 0)
        return ONESCOPE_OK;
    /* an integer literal of at most 18 digits, so it fits a long long */
    size_t p = v + (text[v] == '-'), digits = 0;
    long long version = 0;
    while (p < size && text[p] >= '0' && text[p] <= '9' && digits < 18) {
        version = version * 10 + (text[p++] - '0');
        digits++;
    }
    bool more = p < size && (text[p] == '.' || text[p] == 'e' || text[p] == 'E' ||
                             (text[p] >= '0' && text[p] <= '9')); /* a real, or 19+ digits */
    if (text[v] == '-') version = -version;
    if (digits == 0 || more || version == ONESCOPE_OTS_VERSION) return ONESCOPE_OK;
    c->text = text;
    c->size = size;
    onescope_os_json_push_key(c, "version");
    onescope_os_json_fail(c, ONESCOPE_E_VERSION, NULL, version_message, version);
    onescope_os_json_pop(c);
    return ONESCOPE_E_VERSION;
}

/* ---- text that is not UTF-8 JSON, and jansson's messages in our words ---- */

static bool utf16_text(const unsigned char *u, size_t size, bool *big_endian, bool *bom) {
    *bom = size >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF));
    *big_endian = *bom && u[0] == 0xFE;
    if (*bom) return true;
    /* ASCII in UTF-16: every other byte zero ('{' 00 or 00 '{') */
    if (size >= 2 && u[0] != 0 && u[1] == 0) return true;
    if (size >= 2 && u[0] == 0 && u[1] != 0) {
        *big_endian = true;
        return true;
    }
    return false;
}

/* A byte-order mark, UTF-16 or text that cannot start a JSON value, said plainly before
 * jansson sees it (it would report a raw byte). */
static onescope_code plain_text_checks(ots_ctx *c, const char *text, size_t size) {
    const unsigned char *u = (const unsigned char *)text;
    bool big, bom;
    onescope_code rc;
    size_t at = 0;
    if (size >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        rc = onescope_os_fail(c->error, ONESCOPE_E_SYNTAX, c->name, 0, NULL,
                              "UTF-8 JSON text with no byte-order mark",
                              "a UTF-8 byte-order mark (bytes ef bb bf): save the file without it");
    } else if (utf16_text(u, size, &big, &bom)) {
        rc = onescope_os_fail(c->error, ONESCOPE_E_SYNTAX, c->name, 0, NULL, "UTF-8 JSON text",
                              "UTF-16 %s text%s: save the file as UTF-8",
                              big ? "big-endian" : "little-endian",
                              bom ? " (with a byte-order mark)" : "");
    } else {
        at = onescope_os_json_skip_ws(text, size, 0);
        if (at >= size || strchr("{[\"-0123456789tfn", text[at]) != NULL) return ONESCOPE_OK;
        char shown[16];
        if (u[at] >= 0x20 && u[at] < 0x7F)
            snprintf(shown, sizeof shown, "'%c'", text[at]);
        else
            snprintf(shown, sizeof shown, "byte %02x", u[at]);
        rc = onescope_os_fail(c->error, ONESCOPE_E_SYNTAX, c->name, at, NULL,
                              "a JSON document (an object starting with '{')",
                              "text that is not JSON, starting with %s", shown);
    }
    if (c->error != NULL) {
        uint32_t line = 1, column = 1;
        if (at > 0) onescope_os_json_line_column(text, at, &line, &column);
        c->error->line = line;
        c->error->column = column;
    }
    return rc;
}

/* The last character before offset at that is not white space (0 when none). */
static char before(const char *text, size_t at) {
    while (at > 0) {
        char ch = text[--at];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') return ch;
    }
    return 0;
}

static bool starts(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Rewrites a syntax error's expected and found from jansson's wording into the library's;
 * a message not recognised keeps jansson's words (they name the token). */
static void rephrase_syntax(onescope_error *e, const char *text, size_t size,
                            const json_error_t *je) {
    if (e == NULL || e->code != ONESCOPE_E_SYNTAX) return;
    const char *m = je->text, *exp = NULL, *found = NULL;
    size_t at = je->position > 0 ? (size_t)je->position : 0;
    if (at > size) at = size;
    /* jansson's position is just past the token it quotes after " near '" */
    const char *near = strstr(m, " near '");
    size_t tok = near ? strlen(near + 7) : 0;
    if (tok > 0) tok--; /* the closing quote */
    char prev = before(text, at >= tok ? at - tok : 0);
    bool at_end = strstr(m, "end of file") != NULL || strstr(m, "premature end") != NULL;
    if (prev == ',' &&
        (starts(m, "string or '}' expected near '}'") || starts(m, "unexpected token near ']'"))) {
        exp = "a value after each comma";
        found = "a trailing comma before the closing bracket (JSON allows none)";
    } else if (strstr(m, "unexpected newline") != NULL ||
               (at_end && strstr(m, "near '\"") != NULL)) {
        exp = "a string closed by '\"' on the same line";
        found = "an unterminated string";
    } else if (starts(m, "end of file expected")) {
        exp = "nothing after the document's closing '}'";
        found = "more text after the end of the document";
    } else if (at_end) {
        exp = "every '{' and '[' closed";
        found = "the end of the file inside an object or array";
    } else if (starts(m, "string or '}' expected near '''")) {
        exp = "keys in double quotes";
        found = "a single-quoted key";
    } else if (starts(m, "string or '}' expected")) {
        exp = "a key in double quotes";
        found = "a bare word where a key belongs";
    } else if (starts(m, "'}' expected") || starts(m, "']' expected")) {
        exp = "a comma between two members";
        found = "a value right after another with no comma";
    } else if (starts(m, "':' expected")) {
        exp = "':' after a key";
        found = "a key with no ':' after it";
    } else if (starts(m, "invalid escape")) {
        exp = "an escape JSON knows (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
        found = "an unknown escape in a string";
    } else if (near != NULL && (starts(m, "invalid token") || starts(m, "unexpected token"))) {
        exp = "a JSON value: a number, a double-quoted string, true, false, null, { or [";
    }
    if (exp == NULL) return;
    onescope_os_copy_text(e->expected, sizeof e->expected, exp);
    if (found != NULL) {
        onescope_os_copy_text(e->found, sizeof e->found, found);
    } else { /* name the token itself */
        char word[48];
        size_t n = tok < sizeof word - 1 ? tok : sizeof word - 1;
        memcpy(word, near + 7, n);
        word[n] = '\0';
        snprintf(e->found, sizeof e->found, "'%s', which is none of those", word);
    }
}

/* Reads the document and its format and version; *root is the tree to walk. */
static onescope_code load_root(ots_ctx *c, const void *data, size_t size,
                               const onescope_parse_options *o, onescope_ots_kind want,
                               json_t **root) {
    OS_TRY(onescope_os_check_input_size(size, o, c->name, c->error));
    if (data == NULL && size > 0)
        return onescope_os_fail(c->error, ONESCOPE_E_ARGUMENT, c->name, OS_NO_OFFSET, "data",
                                "non-NULL", NULL);
    if (data != NULL) OS_TRY(plain_text_checks(c, data, size));
    json_error_t je;
    *root = json_loadb(data ? data : "", size, JSON_REJECT_DUPLICATES, &je);
    if (*root == NULL) {
        OS_TRY(version_first(c, data, size, want));
        onescope_code rc = onescope_os_json_load_fail(c->error, c->name, data, size, &je);
        rephrase_syntax(c->error, data ? data : "", size, &je);
        return rc;
    }
    c->text = data;
    c->size = size;
    if (!json_is_object(*root)) return wrong_type(c, "a JSON object", *root);
    json_t *f = json_object_get(*root, "format");
    if (f == NULL) return missing(c, "format");
    static const char *const formats[] = {"octo_pvt", "octo_anm"};
    unsigned kind = 0;
    OS_TRY(rd_enum(c, "format", f, formats, 2, want == ONESCOPE_OTS_PVT ? "octo_pvt" : "octo_anm",
                   &kind));
    if (kind + 1 != (unsigned)want) {
        onescope_os_json_push_key(c, "format");
        onescope_code rc = onescope_os_json_fail(c, ONESCOPE_E_RANGE,
                                                 want == ONESCOPE_OTS_PVT ? "octo_pvt" : "octo_anm",
                                                 "\"%s\"", formats[kind]);
        onescope_os_json_pop(c);
        return rc;
    }
    long long version = 0;
    OS_TRY(rd_int(c, "version", json_object_get(*root, "version"), LLONG_MIN, LLONG_MAX, &version));
    if (version != ONESCOPE_OTS_VERSION) {
        onescope_os_json_push_key(c, "version");
        onescope_os_json_fail(c, ONESCOPE_E_VERSION, NULL, version_message, version);
        onescope_os_json_pop(c);
        return ONESCOPE_E_VERSION;
    }
    return ONESCOPE_OK;
}

/* The value x / s whose product with s gives x back, when a nearby one does. */
static double unscale(double x, double s) {
    double p = x / s;
    if (s == 1.0 || p * s == x || !isfinite(p)) return p;
    double up = p, down = p;
    for (int i = 0; i < 4; i++) {
        up = nextafter(up, INFINITY);
        if (up * s == x) return up;
        down = nextafter(down, -INFINITY);
        if (down * s == x) return down;
    }
    return p;
}

static onescope_code rd_bone(ots_ctx *c, json_t *obj, onescope_ots_bone *b, double scale) {
    static const char *const keys[] = {"name", "parent", "pivot",    "rotation",
                                       "path", "rig",    "is_camera"};
    json_t *v[7];
    OS_TRY(members(c, obj, keys, 7, v, "a bone"));
    OS_TRY(rd_str(c, "name", v[0], &b->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "parent", v[1], &b->parent, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_vec(c, "pivot", v[2], 3, b->pivot, true));
    for (int k = 0; k < 3; k++) b->pivot[k] = unscale(b->pivot[k], scale);
    OS_TRY(rd_vec(c, "rotation", v[3], 4, b->rotation, true));
    OS_TRY(rd_str(c, "path", v[4], &b->path, STR_OPTIONAL));
    OS_TRY(rd_str(c, "rig", v[5], &b->rig, STR_OPTIONAL));
    return rd_bool(c, "is_camera", v[6], &b->is_camera, false);
}

static onescope_code parse_rig(ots_ctx *c, json_t *root, onescope_ots_rig *r) {
    static const char *const keys[] = {"format",       "version",     "source", "name",
                                       "scale_factor", "pivot_space", "fps",    "coordinate_system",
                                       "bones",        "cameras"};
    json_t *v[10];
    OS_TRY(members(c, root, keys, 10, v, "a .pvt file"));
    OS_TRY(rd_header(c, v[2], v[6], v[7], &r->header));
    OS_TRY(rd_str(c, "name", v[3], &r->name, STR_REQUIRED));
    OS_TRY(rd_number(c, "scale_factor", v[4], &r->scale_factor, true));
    if (!(r->scale_factor > 0)) {
        onescope_os_json_push_key(c, "scale_factor");
        return onescope_os_json_fail(c, ONESCOPE_E_RANGE, "a scale factor above 0", "%g",
                                     r->scale_factor);
    }
    RD_ENUM(c, "pivot_space", v[5], onescope_os_ots_pivot_space_names, "local or armature",
            r->pivot_space);
    size_t n = 0;
    OS_TRY(rd_array(c, "bones", v[8], &n));
    r->bones = onescope_os_calloc(c->a, n, sizeof *r->bones);
    if (r->bones == NULL) return onescope_os_json_nomem(c);
    r->bone_count = n;
    onescope_os_json_push_key(c, "bones");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_bone(c, json_array_get(v[8], i), &r->bones[i], r->scale_factor));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rd_cameras(c, v[9], &r->cameras, &r->camera_count);
}

static onescope_code rd_handles(ots_ctx *c, json_t *obj, onescope_ots_keyframe *k) {
    json_t *v[3];
    onescope_os_json_push_key(c, "handles");
    OS_TRY(members(c, obj, onescope_os_ots_channel_names, 3, v, "handles"));
    for (int ch = 0; ch < 3; ch++) {
        if (v[ch] == NULL) continue;
        onescope_os_json_push_key(c, onescope_os_ots_channel_names[ch]);
        if (!json_is_array(v[ch])) return wrong_type(c, "an array of 0 or 3 axes", v[ch]);
        size_t axes = json_array_size(v[ch]);
        if (axes != 0 && axes != 3)
            return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "an array of 0 or 3 axes",
                                         "%zu elements", axes);
        k->handle_axes[ch] = (uint8_t)axes;
        for (size_t ax = 0; ax < axes; ax++) {
            json_t *pair = json_array_get(v[ch], ax);
            onescope_ots_handle *h = &k->handles[ch][ax];
            const char *expected = "[] or [[left_frame, left_value], [right_frame, right_value]]";
            onescope_os_json_push_index(c, ax);
            if (!json_is_array(pair)) return wrong_type(c, expected, pair);
            size_t m = json_array_size(pair);
            if (m != 0 && m != 2)
                return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, expected, "%zu elements", m);
            if (m == 2) {
                h->present = true;
                onescope_os_json_push_index(c, 0);
                OS_TRY(rd_vec(c, NULL, json_array_get(pair, 0), 2, h->left, true));
                onescope_os_json_pop(c);
                onescope_os_json_push_index(c, 1);
                OS_TRY(rd_vec(c, NULL, json_array_get(pair, 1), 2, h->right, true));
                onescope_os_json_pop(c);
            }
            onescope_os_json_pop(c);
        }
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

static onescope_code rd_keyframe(ots_ctx *c, json_t *obj, onescope_ots_keyframe *k) {
    static const char *const keys[] = {"frame", "pos",    "rot",    "rot_quat",
                                       "scl",   "interp", "handles"};
    json_t *v[7];
    OS_TRY(members(c, obj, keys, 7, v, "a keyframe"));
    long long frame = 0;
    OS_TRY(rd_int(c, "frame", v[0], INT32_MIN, INT32_MAX, &frame));
    k->frame = (int32_t)frame;
    OS_TRY(rd_vec(c, "pos", v[1], 3, k->pos, true));
    OS_TRY(rd_vec(c, "rot", v[2], 3, k->rot, false));
    k->has_rot = v[2] != NULL;
    OS_TRY(rd_vec(c, "rot_quat", v[3], 4, k->rot_quat, false));
    k->has_rot_quat = v[3] != NULL;
    OS_TRY(rd_vec(c, "scl", v[4], 3, k->scl, true));
    RD_ENUM(c, "interp", v[5], onescope_os_ots_interp_names, "BEZIER, LINEAR or CONSTANT",
            k->interp);
    return v[6] ? rd_handles(c, v[6], k) : ONESCOPE_OK;
}

static onescope_code rd_peg(ots_ctx *c, json_t *obj, onescope_ots_peg *p) {
    static const char *const keys[] = {"name",       "path",          "parent",
                                       "rest_pivot", "rest_rotation", "rig",
                                       "is_camera",  "source_modes",  "keyframes"};
    json_t *v[9];
    OS_TRY(members(c, obj, keys, 9, v, "a peg"));
    OS_TRY(rd_str(c, "name", v[0], &p->name, STR_REQUIRED));
    OS_TRY(rd_str(c, "path", v[1], &p->path, STR_OPTIONAL));
    OS_TRY(rd_str(c, "parent", v[2], &p->parent, STR_REQUIRED | STR_NULLABLE));
    OS_TRY(rd_vec(c, "rest_pivot", v[3], 3, p->rest_pivot, true));
    OS_TRY(rd_vec(c, "rest_rotation", v[4], 4, p->rest_rotation, true));
    OS_TRY(rd_str(c, "rig", v[5], &p->rig, STR_OPTIONAL));
    OS_TRY(rd_bool(c, "is_camera", v[6], &p->is_camera, false));
    if (v[7] != NULL) {
        static const char *const mkeys[] = {"position", "rotation", "scale", "enable_3d"};
        json_t *m[4];
        onescope_os_json_push_key(c, "source_modes");
        OS_TRY(members(c, v[7], mkeys, 4, m, "source_modes"));
        OS_TRY(rd_str(c, "position", m[0], &p->source_modes.position, STR_REQUIRED));
        OS_TRY(rd_str(c, "rotation", m[1], &p->source_modes.rotation, STR_REQUIRED));
        OS_TRY(rd_str(c, "scale", m[2], &p->source_modes.scale, STR_REQUIRED));
        OS_TRY(rd_bool(c, "enable_3d", m[3], &p->source_modes.enable_3d, true));
        onescope_os_json_pop(c);
        p->has_source_modes = true;
    }
    size_t n = 0;
    OS_TRY(rd_array(c, "keyframes", v[8], &n));
    p->keyframes = onescope_os_calloc(c->a, n, sizeof *p->keyframes);
    if (p->keyframes == NULL) return onescope_os_json_nomem(c);
    p->keyframe_count = n;
    onescope_os_json_push_key(c, "keyframes");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_keyframe(c, json_array_get(v[8], i), &p->keyframes[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return ONESCOPE_OK;
}

static onescope_code parse_clip(ots_ctx *c, json_t *root, onescope_ots_clip *k) {
    static const char *const keys[] = {"format", "version",           "source", "frame_range",
                                       "fps",    "coordinate_system", "pegs",   "cameras"};
    json_t *v[8];
    OS_TRY(members(c, root, keys, 8, v, "an .anm file"));
    OS_TRY(rd_header(c, v[2], v[4], v[5], &k->header));
    if (v[3] == NULL) return missing(c, "frame_range");
    onescope_os_json_push_key(c, "frame_range");
    if (!json_is_array(v[3])) return wrong_type(c, "an array [first, last]", v[3]);
    if (json_array_size(v[3]) != 2)
        return onescope_os_json_fail(c, ONESCOPE_E_LENGTH, "an array [first, last]", "%zu elements",
                                     json_array_size(v[3]));
    for (size_t i = 0; i < 2; i++) {
        long long f = 0;
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_int(c, NULL, json_array_get(v[3], i), INT32_MIN, INT32_MAX, &f));
        onescope_os_json_pop(c);
        k->frame_range[i] = (int32_t)f;
    }
    onescope_os_json_pop(c);
    size_t n = 0;
    OS_TRY(rd_array(c, "pegs", v[6], &n));
    k->pegs = onescope_os_calloc(c->a, n, sizeof *k->pegs);
    if (k->pegs == NULL) return onescope_os_json_nomem(c);
    k->peg_count = n;
    onescope_os_json_push_key(c, "pegs");
    for (size_t i = 0; i < n; i++) {
        onescope_os_json_push_index(c, i);
        OS_TRY(rd_peg(c, json_array_get(v[6], i), &k->pegs[i]));
        onescope_os_json_pop(c);
    }
    onescope_os_json_pop(c);
    return rd_cameras(c, v[7], &k->cameras, &k->camera_count);
}

onescope_code onescope_ots_rig_parse(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_ots_rig **out,
                                     onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    json_t *root = NULL;
    onescope_code rc = load_root(&c, data, size, options, ONESCOPE_OTS_PVT, &root);
    onescope_ots_rig *r = NULL;
    if (rc == ONESCOPE_OK) {
        r = onescope_os_calloc(a, 1, sizeof *r);
        if (r == NULL) rc = onescope_os_json_nomem(&c);
    }
    if (rc == ONESCOPE_OK) {
        r->allocator = a;
        c.depth = 0;
        rc = parse_rig(&c, root, r);
    }
    if (rc == ONESCOPE_OK) {
        c.depth = 0;
        rc = onescope_os_ots_rig_rules(&c, r);
    }
    json_decref(root);
    if (rc != ONESCOPE_OK) {
        onescope_ots_rig_free(r);
        return rc;
    }
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_os_ots_clip_parse(const void *data, size_t size, const char *name,
                                         const onescope_parse_options *options,
                                         onescope_ots_clip **out, size_t **parents,
                                         onescope_error *error) {
    if (parents != NULL) *parents = NULL;
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    ots_ctx c;
    onescope_os_json_ctx_init(&c, name, a, error);
    json_t *root = NULL;
    onescope_code rc = load_root(&c, data, size, options, ONESCOPE_OTS_ANM, &root);
    onescope_ots_clip *k = NULL;
    size_t *p = NULL;
    if (rc == ONESCOPE_OK) {
        k = onescope_os_calloc(a, 1, sizeof *k);
        if (k == NULL) rc = onescope_os_json_nomem(&c);
    }
    if (rc == ONESCOPE_OK) {
        k->allocator = a;
        c.depth = 0;
        rc = parse_clip(&c, root, k);
    }
    if (rc == ONESCOPE_OK && parents != NULL) {
        p = onescope_os_calloc(a, k->peg_count ? k->peg_count : 1, sizeof *p);
        if (p == NULL) rc = onescope_os_json_nomem(&c);
    }
    if (rc == ONESCOPE_OK) {
        c.depth = 0;
        rc = onescope_os_ots_clip_rules(&c, k, p);
    }
    json_decref(root);
    if (rc != ONESCOPE_OK) {
        onescope_os_free(a, p);
        onescope_ots_clip_free(k);
        return rc;
    }
    *out = k;
    if (parents != NULL) *parents = p;
    return ONESCOPE_OK;
}

onescope_code onescope_ots_clip_parse(const void *data, size_t size, const char *name,
                                      const onescope_parse_options *options,
                                      onescope_ots_clip **out, onescope_error *error) {
    return onescope_os_ots_clip_parse(data, size, name, options, out, NULL, error);
}

onescope_ots_kind onescope_ots_detect(const void *data, size_t size) {
    const char *s = data;
    size_t n = size;
    if (s == NULL) return ONESCOPE_OTS_NONE;
    /* a BOM or UTF-16 text is still the file it names, so the parser can say what is wrong */
    const unsigned char *u = data;
    bool big, bom;
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        s += 3;
        n -= 3;
    } else if (utf16_text(u, n, &big, &bom)) {
        char narrow[2048]; /* a quick look at the first 2048 characters */
        size_t m = 0;
        for (size_t i = bom ? 2 : 0; i + 1 < n && m < sizeof narrow; i += 2) {
            unsigned char hi = u[i + !big], lo = u[i + big];
            narrow[m++] = hi == 0 && lo > 0 && lo < 0x80 ? (char)lo : '?';
        }
        return onescope_ots_detect(narrow, m);
    }
    size_t p = onescope_os_json_skip_ws(s, n, 0);
    if (p >= n || s[p] != '{') return ONESCOPE_OTS_NONE;
    static const char key[] = "\"format\"";
    for (; p + sizeof key - 1 <= n; p++) {
        const char *quote = memchr(s + p, '"', n - p);
        if (quote == NULL) break;
        p = (size_t)(quote - s);
        if (p + sizeof key - 1 > n) break;
        if (memcmp(s + p, key, sizeof key - 1) != 0) continue;
        size_t q = onescope_os_json_skip_ws(s, n, p + sizeof key - 1);
        if (q >= n || s[q] != ':') continue;
        q = onescope_os_json_skip_ws(s, n, q + 1);
        if (q + 10 > n) return ONESCOPE_OTS_NONE;
        if (memcmp(s + q, "\"octo_pvt\"", 10) == 0) return ONESCOPE_OTS_PVT;
        if (memcmp(s + q, "\"octo_anm\"", 10) == 0) return ONESCOPE_OTS_ANM;
        return ONESCOPE_OTS_NONE;
    }
    return ONESCOPE_OTS_NONE;
}
