/* OTS v4 reader: JSON text, through the pull reader of json_reader.c, into rigs and clips,
 * each value checked as it passes with the rules of ots_rules.c. The same reader checks a
 * file streamed through one buffer without keeping its keyframes (onescope_file_validate),
 * and can go on past an error to report the next ones (options->on_error). Rules and the
 * order errors come in: docs/ots.md. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "numfmt.h"
#include "onescope/format.h"
#include "ots_internal.h"

static const char version_message[] =
    "unsupported version %lld (this build writes/reads v4; no backward migration \xe2\x80\x94 "
    "re-export from the source DCC)";

/* Where a bone's, peg's or camera's name and parent values are, for the checks across a
 * whole array that run once it has been read. */
typedef struct element_at {
    onescope_os_jr_pos object, name, parent;
    bool bad; /* an error was reported inside it */
} element_at;

/* The members of the element whose rules are being run, for errors at its keys. */
typedef struct member_table {
    const char *const *keys;
    const onescope_os_jr_pos *at;
    uint32_t seen;
    int n, depth; /* depth: the element's own path depth */
    onescope_os_jr_pos object;
} member_table;

/* The text's first three bytes (fewer when it is shorter), gathered from as many chunks as
 * that takes, and the rest handed on to the reader unchanged. */
typedef struct head_source {
    uint8_t head[3];
    size_t head_n;
    const uint8_t *rest; /* the unread part of the last chunk gathered */
    size_t rest_n;
    bool rest_given;
    onescope_os_jr_more *more;
    void *user;
} head_source;

typedef struct ots_in {
    onescope_os_jr r;
    ots_ctx c;
    onescope_error scratch; /* every error is written here first */
    onescope_error first;
    onescope_os_json_sink sink;
    bool keep_keyframes;   /* false: each keyframe is checked, then dropped */
    onescope_os_jr_pos at; /* the value being read */
    const member_table *table;
    element_at *elements, *cams; /* of the bones or pegs, and of the cameras */
    size_t elements_cap, cams_cap;
    const char *elements_key; /* "bones" or "pegs" */
    bool across;              /* the checks across whole arrays are running */
    onescope_ots_keyframe scratch_key;
    size_t key_cap;    /* room in the current peg's keyframes */
    bool has_previous; /* in the current peg */
    int32_t previous;
    double scale;                   /* a rig's scale_factor once read; 0 before */
    bool bones_waiting;             /* bones read before the scale factor */
    head_source head;               /* the text's first bytes, for the byte-order mark and UTF-16 */
    bool head_failed;               /* reading them failed (error in scratch) */
    onescope_ots_kind detected;     /* what format detection makes of the text's first bytes */
    bool streamed;                  /* the caller detected the kind (detected unused) */
    onescope_os_ots_key_fn *on_key; /* each keyframe once it passed its rules (not kept) */
    void *key_user;
    size_t peg_index; /* of the peg being read */
} ots_in;

/* ---- where errors point ---- */

static void locate(void *user, const onescope_os_json_seg *segs, int depth, uint64_t *offset,
                   uint32_t *line, uint32_t *column) {
    ots_in *in = user;
    onescope_os_jr_pos p = in->at;
    const member_table *t = in->table;
    if (t != NULL) {
        p = t->object;
        if (depth > t->depth && t->depth < ONESCOPE_OS_JSON_MAX_DEPTH && segs[t->depth].key)
            for (int k = 0; k < t->n; k++)
                if ((t->seen >> k & 1) && strcmp(t->keys[k], segs[t->depth].key) == 0) p = t->at[k];
    } else if (in->across && depth == 3 && segs[0].key && !segs[1].key && segs[2].key) {
        /* pegs[i].name, bones[i].parent, cameras[i].name: an array already read */
        const element_at *e = NULL;
        size_t i = segs[1].index;
        if (in->elements_key && strcmp(segs[0].key, in->elements_key) == 0 && i < in->elements_cap)
            e = in->elements;
        else if (strcmp(segs[0].key, "cameras") == 0 && i < in->cams_cap)
            e = in->cams;
        if (e != NULL) {
            e += i;
            p = strcmp(segs[2].key, "name") == 0     ? e->name
                : strcmp(segs[2].key, "parent") == 0 ? e->parent
                                                     : e->object;
        }
    }
    *offset = p.offset;
    *line = p.line;
    *column = p.column;
}

/* ---- going on after an error ---- */

/* After a failure rc inside a value of the container open at reader depth depth: when the
 * reading may go on (the error is counted and there is room for more), skips the rest of the
 * value and returns OK; else rc. */
static onescope_code go_on(ots_in *in, onescope_code rc, int depth) {
    if (rc == ONESCOPE_OK) return ONESCOPE_OK;
    if (in->r.failed || onescope_os_json_stop(&in->c, rc)) return rc;
    while (in->r.depth > depth) {
        onescope_code skipped = onescope_os_jr_next(&in->r);
        if (skipped != ONESCOPE_OK && !in->r.value_error) return skipped; /* NaN in there: moot */
    }
    return ONESCOPE_OK;
}

/* A failure after which nothing else is worth reporting (the wrong format or version). */
static onescope_code fatal(ots_in *in, onescope_code rc) {
    if (rc != ONESCOPE_OK) in->sink.max = in->sink.count;
    return rc;
}

static onescope_code wrong_type(ots_in *in, const char *expected) {
    in->at = in->r.at;
    return onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, expected, "%s",
                                 onescope_os_jr_kind_name(&in->r));
}

/* The next token, where a value may start. A value the text holds whole but a double cannot
 * (NaN, 1e999) is reported at the path being read, and the reading may go on after it. */
static onescope_code next_value(ots_in *in) {
    onescope_code rc = onescope_os_jr_next(&in->r);
    if (rc == ONESCOPE_OK || !in->r.value_error) return rc;
    char expected[sizeof in->scratch.expected], found[sizeof in->scratch.found];
    memcpy(expected, in->scratch.expected, sizeof expected);
    memcpy(found, in->scratch.found, sizeof found);
    in->at = in->r.at;
    return onescope_os_json_fail(&in->c, rc, expected[0] ? expected : NULL, "%s", found);
}

/* ---- values (the reader on the value's first token; each reads the value to its end) ---- */

static onescope_code rd_number(ots_in *in, double *out) {
    if (in->r.kind != OS_JR_NUMBER) return wrong_type(in, "a number");
    *out = in->r.number;
    return ONESCOPE_OK;
}

static const char *vec_expected(size_t n) {
    return n == 2   ? "an array of 2 numbers"
           : n == 3 ? "an array of 3 numbers"
                    : "an array of 4 numbers";
}

/* An array of exactly n numbers. */
static onescope_code rd_vec(ots_in *in, size_t n, double *out) {
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, vec_expected(n));
    onescope_os_jr_pos start = r->at;
    size_t count = 0;
    for (;;) {
        onescope_os_json_push_index(&in->c, count);
        onescope_code rc = next_value(in);
        if (rc == ONESCOPE_OK && r->kind != OS_JR_ARRAY_END && r->kind != OS_JR_NUMBER)
            rc = wrong_type(in, "a number");
        onescope_os_json_pop(&in->c);
        OS_TRY(rc);
        if (r->kind == OS_JR_ARRAY_END) break;
        if (count < n) out[count] = r->number;
        count++;
    }
    if (count == n) return ONESCOPE_OK;
    in->at = start;
    return onescope_os_json_fail(&in->c, ONESCOPE_E_LENGTH, vec_expected(n), "%zu elements", count);
}

/* An integer in [lo, hi]; a real with a whole value is taken too. */
static onescope_code rd_int(ots_in *in, long long lo, long long hi, long long *out) {
    onescope_os_jr *r = &in->r;
    in->at = r->at;
    if (r->kind != OS_JR_NUMBER) return wrong_type(in, "an integer");
    if (r->is_integer) {
        *out = r->integer;
    } else if (r->number == floor(r->number) && r->number >= -9.2e18 && r->number <= 9.2e18) {
        *out = (long long)r->number;
    } else if (r->integer_syntax) { /* an integer past what 64 bits hold */
        char expected[80];
        snprintf(expected, sizeof expected, "an integer from %lld to %lld", lo, hi);
        char found[OS_NUMBER_MAX];
        onescope_os_number_write(found, r->number, 0);
        return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, expected, "%s", found);
    } else {
        return wrong_type(in, "an integer");
    }
    if (*out >= lo && *out <= hi) return ONESCOPE_OK;
    char expected[80];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", lo, hi);
    return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, expected, "%lld", *out);
}

static onescope_code rd_str(ots_in *in, char **out, bool nullable) {
    onescope_os_jr *r = &in->r;
    if (nullable && r->kind == OS_JR_NULL) return ONESCOPE_OK;
    if (r->kind != OS_JR_STRING) return wrong_type(in, nullable ? "a string or null" : "a string");
    *out = onescope_os_ots_strdup_n(in->c.a, r->text, r->len);
    return *out == NULL ? onescope_os_json_nomem(&in->c) : ONESCOPE_OK;
}

static onescope_code rd_bool(ots_in *in, bool *out) {
    if (in->r.kind != OS_JR_TRUE && in->r.kind != OS_JR_FALSE)
        return wrong_type(in, "true or false");
    *out = in->r.kind == OS_JR_TRUE;
    return ONESCOPE_OK;
}

static onescope_code rd_enum(ots_in *in, const char *const *names, int count, const char *expected,
                             unsigned *out) {
    if (in->r.kind != OS_JR_STRING) return wrong_type(in, expected);
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], in->r.text) == 0) {
            *out = (unsigned)i;
            return ONESCOPE_OK;
        }
    return onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, expected, "\"%s\"", OS_ECHO(in->r.text));
}

#define RD_ENUM(in, names, expected, field)                                                        \
    do {                                                                                           \
        unsigned e_ = 0;                                                                           \
        OS_TRY(rd_enum((in), (names), OTS_COUNT(names), (expected), &e_));                         \
        (field) = e_;                                                                              \
    } while (0)

/* ---- objects and arrays ---- */

typedef struct object_spec {
    const char *what; /* "a peg" */
    const char *const *keys;
    int n;
    uint32_t required; /* bit k: keys[k] must be there */
} object_spec;

/* Reads the value of member `key` (the reader on its first token) into obj. */
typedef onescope_code member_fn(ots_in *in, int key, void *obj);

/* An object member by member in file order: an unknown key, a key given twice, a value the
 * member refuses, and (at the end, pointing at the '{') each required key that is missing are
 * errors. *t (when not NULL) receives where each member's value is, for the rules run on the
 * whole element after it. */
static onescope_code rd_object(ots_in *in, const object_spec *o, member_fn *fn, void *obj,
                               onescope_os_jr_pos *member_at, member_table *t) {
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_OBJECT) {
        char expected[80];
        snprintf(expected, sizeof expected, "an object (%s)", o->what);
        return wrong_type(in, expected);
    }
    onescope_os_jr_pos start = r->at;
    int depth = r->depth, path = in->c.depth;
    uint32_t seen = 0;
    for (;;) {
        OS_TRY(onescope_os_jr_next(r));
        if (r->kind == OS_JR_OBJECT_END) break;
        int k = 0;
        while (k < o->n && strcmp(o->keys[k], r->text) != 0) k++;
        char unknown[ONESCOPE_OS_ECHO_MAX + 1] = "";
        if (k == o->n) onescope_os_copy_text(unknown, sizeof unknown, r->text);
        onescope_os_json_push_key(&in->c, k < o->n ? o->keys[k] : unknown);
        onescope_code rc = next_value(in);
        in->at = r->at;
        if (rc != ONESCOPE_OK) {
            /* a value a double cannot hold, reported at this member: the key is there all the
             * same (not reported missing later) */
            if (k < o->n && !(seen >> k & 1)) {
                seen |= 1u << k;
                if (member_at != NULL) member_at[k] = r->at;
            }
        } else if (k == o->n) {
            char expected[96];
            snprintf(expected, sizeof expected, "only the keys OTS v4 defines for %s", o->what);
            rc = onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, expected, "unknown key \"%s\"",
                                       OS_ECHO(unknown));
        } else if (seen >> k & 1) {
            rc = onescope_os_json_fail(&in->c, ONESCOPE_E_DUPLICATE, "each key once per object",
                                       "\"%s\" a second time", o->keys[k]);
        } else {
            seen |= 1u << k;
            if (member_at != NULL) member_at[k] = r->at;
            rc = fn(in, k, obj);
        }
        in->c.depth = path;
        OS_TRY(go_on(in, rc, depth));
    }
    if (t != NULL) {
        t->keys = o->keys;
        t->at = member_at;
        t->seen = seen;
        t->n = o->n;
        t->depth = path;
        t->object = start;
    }
    for (int k = 0; k < o->n; k++) {
        if (!(o->required >> k & 1) || (seen >> k & 1)) continue;
        char expected[80];
        snprintf(expected, sizeof expected, "a key \"%s\"", o->keys[k]);
        in->at = start;
        onescope_os_json_push_key(&in->c, o->keys[k]);
        onescope_code rc = onescope_os_json_fail(&in->c, ONESCOPE_E_TYPE, expected, "none");
        in->c.depth = path;
        if (onescope_os_json_stop(&in->c, rc)) return rc;
    }
    return ONESCOPE_OK;
}

/* Reads element i of an array (the reader on its first token). */
typedef onescope_code element_fn(ots_in *in, size_t i, void *obj);

/* An array whose elements fn reads; an element that fails is skipped when the reading goes
 * on. */
static onescope_code rd_elements(ots_in *in, element_fn *fn, void *obj) {
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, "an array");
    int depth = r->depth, path = in->c.depth;
    for (size_t i = 0;; i++) {
        onescope_os_json_push_index(&in->c, i);
        onescope_code rc = next_value(in);
        if (rc == ONESCOPE_OK && r->kind == OS_JR_ARRAY_END) {
            in->c.depth = path;
            return ONESCOPE_OK;
        }
        in->at = r->at;
        if (rc == ONESCOPE_OK) rc = fn(in, i, obj);
        in->c.depth = path;
        OS_TRY(go_on(in, rc, depth));
    }
}

/* Makes room for element i of an array of elem-byte entries (new entries zeroed). */
static bool room(ots_in *in, void **arr, size_t *cap, size_t i, size_t elem) {
    if (i < *cap) return true;
    size_t n = *cap ? *cap : 4, bytes;
    while (n <= i) n *= 2;
    if (!onescope_os_mul_size(n, elem, &bytes)) return false;
    void *p = onescope_os_calloc(in->c.a, n, elem);
    if (p == NULL) return false;
    if (*cap) memcpy(p, *arr, *cap * elem);
    onescope_os_free(in->c.a, *arr);
    *arr = p;
    *cap = n;
    return true;
}

/* Room for element i of the bones, pegs or cameras' positions. */
static onescope_code element_room(ots_in *in, element_at **e, size_t *cap, size_t i,
                                  onescope_os_jr_pos object) {
    if (!room(in, (void **)e, cap, i, sizeof **e)) return onescope_os_json_nomem(&in->c);
    (*e)[i].object = (*e)[i].name = (*e)[i].parent = object;
    return ONESCOPE_OK;
}

static void element_names_at(element_at *e, const member_table *t, int name_key, int parent_key) {
    if (t->seen >> name_key & 1) e->name = t->at[name_key];
    if (parent_key >= 0 && (t->seen >> parent_key & 1)) e->parent = t->at[parent_key];
}

/* ---- the header: source, fps, coordinate_system ---- */

static onescope_code cs_member(ots_in *in, int key, void *obj) {
    onescope_ots_coordinate_system *s = obj;
    switch (key) {
        case 0: RD_ENUM(in, onescope_os_ots_up_names, "x, y or z", s->up); break;
        case 1: RD_ENUM(in, onescope_os_ots_hand_names, "right or left", s->hand); break;
        case 2: RD_ENUM(in, onescope_os_ots_unit_names, "meters", s->unit); break;
        case 3:
            RD_ENUM(in, onescope_os_ots_rot_order_names, "xyz, xzy, yxz, yzx, zxy or zyx",
                    s->rot_order);
            break;
        case 4:
            RD_ENUM(in, onescope_os_ots_repr_names, "euler_deg or quat_wxyz", s->rot_repr_anim);
            break;
        default:
            RD_ENUM(in, onescope_os_ots_repr_names, "euler_deg or quat_wxyz", s->rot_repr_rest);
    }
    return ONESCOPE_OK;
}

static onescope_code rd_coordinate_system(ots_in *in, onescope_ots_coordinate_system *s) {
    static const char *const keys[] = {"up",        "hand",          "unit",
                                       "rot_order", "rot_repr_anim", "rot_repr_rest"};
    static const object_spec spec = {"coordinate_system", keys, 6, 0x3F};
    return rd_object(in, &spec, cs_member, s, NULL, NULL);
}

_Static_assert(ONESCOPE_FORMAT_DETECT_BYTES == 1048576, "the message below names the size");

/* The format and version keys: anything else about a file of another format or version would
 * only be noise, so their errors end the reading. */

static onescope_code rd_format(ots_in *in, onescope_ots_kind want) {
    static const char *const formats[] = {"octo_pvt", "octo_anm"};
    const char *name = want == ONESCOPE_OTS_PVT ? "octo_pvt" : "octo_anm";
    unsigned kind = 0;
    OS_TRY(fatal(in, rd_enum(in, formats, 2, name, &kind)));
    if (kind + 1 != (unsigned)want)
        return fatal(
            in, onescope_os_json_fail(&in->c, ONESCOPE_E_RANGE, name, "\"%s\"", formats[kind]));
    /* The one rule of every reader (validate streams and sees only the first bytes): a file is
     * of the kind detection finds, so a "format" the detection does not see is refused here too. */
    if (in->streamed || in->detected == want) return ONESCOPE_OK;
    return fatal(in,
                 onescope_os_json_fail(&in->c, ONESCOPE_E_MAGIC,
                                       "the first \"format\" key, unescaped, within the "
                                       "first 1048576 bytes (where format "
                                       "detection looks)",
                                       "\"%s\" that format detection does not see", formats[kind]));
}

static onescope_code rd_version(ots_in *in) {
    long long version = 0;
    OS_TRY(fatal(in, rd_int(in, LLONG_MIN, LLONG_MAX, &version)));
    if (version == ONESCOPE_OTS_VERSION) return ONESCOPE_OK;
    return fatal(in,
                 onescope_os_json_fail(&in->c, ONESCOPE_E_VERSION, NULL, version_message, version));
}

/* A rule of ots_rules.c that names its own key, for the member being read (on the path
 * already). */
#define RULE_OF_MEMBER(in, call)                                                                   \
    do {                                                                                           \
        (in)->c.depth--;                                                                           \
        onescope_code rc_ = (call);                                                                \
        (in)->c.depth++;                                                                           \
        return rc_;                                                                                \
    } while (0)

static onescope_code rd_fps(ots_in *in, double *fps) {
    OS_TRY(rd_number(in, fps));
    RULE_OF_MEMBER(in, onescope_os_ots_check_fps(&in->c, *fps));
}

/* ---- cameras (both formats) ---- */

static const char *const camera_keys[] = {
    "name",         "peg",        "path",      "is_default", "fov",       "fov_axis",
    "override_fov", "near_plane", "far_plane", "near_field", "far_field", "angle",
    "offset_x",     "offset_y",   "offset_z",  "pivot_x",    "pivot_y",   "rig"};

static onescope_code camera_member(ots_in *in, int key, void *obj) {
    onescope_ots_camera *k = obj;
    double *nums[10] = {&k->near_plane, &k->far_plane, &k->near_field, &k->far_field, &k->angle,
                        &k->offset_x,   &k->offset_y,  &k->offset_z,   &k->pivot_x,   &k->pivot_y};
    switch (key) {
        case 0: return rd_str(in, &k->name, false);
        case 1: return rd_str(in, &k->peg, true);
        case 2: return rd_str(in, &k->path, false);
        case 3: return rd_bool(in, &k->is_default);
        case 4: return rd_number(in, &k->fov);
        case 5:
            RD_ENUM(in, onescope_os_ots_fov_axis_names, "vertical or horizontal", k->fov_axis);
            return ONESCOPE_OK;
        case 6: return rd_bool(in, &k->override_fov);
        case 17: return rd_str(in, &k->rig, false);
        default: return rd_number(in, nums[key - 7]);
    }
}

typedef struct camera_list {
    onescope_ots_camera **cams;
    size_t *count, cap;
} camera_list;

static onescope_code camera_element(ots_in *in, size_t i, void *obj) {
    camera_list *l = obj;
    static const object_spec spec = {"a camera", camera_keys, 18, 0x1FFFB};
    if (!room(in, (void **)l->cams, &l->cap, i, sizeof **l->cams))
        return onescope_os_json_nomem(&in->c);
    onescope_ots_camera *k = &(*l->cams)[i];
    *l->count = i + 1;
    OS_TRY(element_room(in, &in->cams, &in->cams_cap, i, in->r.at));
    onescope_os_jr_pos at[18];
    member_table t;
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, camera_member, k, at, &t));
    element_names_at(&in->cams[i], &t, 0, -1);
    if (in->sink.count != before) return ONESCOPE_OK;
    in->table = &t; /* the rules' errors point at the camera's members */
    onescope_code rc = onescope_os_ots_check_camera(&in->c, k);
    in->table = NULL;
    return rc;
}

static onescope_code rd_cameras(ots_in *in, onescope_ots_camera **cams, size_t *count) {
    camera_list l = {cams, count, 0};
    return rd_elements(in, camera_element, &l);
}

/* The camera names (the caller runs this only when no error came before, so every camera has
 * its name). */
static onescope_code camera_names(ots_in *in, const onescope_ots_camera *cams, size_t n) {
    return onescope_os_ots_check_camera_names(&in->c, cams, n);
}

/* ---- text that is not UTF-8 JSON, said plainly ---- */

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

/* A byte-order mark or UTF-16, said plainly before the reader sees the text (it would
 * report a raw byte); head is the text's first bytes (3 are enough). Text that cannot start a
 * JSON value is the reader's to say. */
static onescope_code plain_text_checks(ots_ctx *c, const uint8_t *u, size_t size) {
    bool big, bom;
    onescope_code rc = ONESCOPE_OK;
    if (size >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
        rc = onescope_os_fail(c->error, ONESCOPE_E_SYNTAX, c->name, 0, NULL,
                              "UTF-8 JSON text with no byte-order mark",
                              "a UTF-8 byte-order mark (bytes ef bb bf): save the file without it");
    else if (utf16_text(u, size, &big, &bom))
        rc = onescope_os_fail(c->error, ONESCOPE_E_SYNTAX, c->name, 0, NULL, "UTF-8 JSON text",
                              "UTF-16 %s text%s: save the file as UTF-8",
                              big ? "big-endian" : "little-endian",
                              bom ? " (with a byte-order mark)" : "");
    if (rc != ONESCOPE_OK && c->error != NULL) c->error->line = c->error->column = 1;
    return rc;
}

static bool head_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    head_source *h = user;
    if (!h->rest_given) {
        h->rest_given = true;
        *data = h->rest;
        *size = h->rest_n;
        if (h->rest_n > 0 || h->more == NULL) return true;
    }
    if (h->more == NULL) {
        *data = NULL;
        *size = 0;
        return true;
    }
    return h->more(h->user, data, size, error);
}

/* Fills h from first and then more; false on a read error (error filled). */
static bool gather_head(head_source *h, const uint8_t *first, size_t size, onescope_error *error) {
    const uint8_t *p = first;
    size_t n = first != NULL ? size : 0;
    for (;;) {
        size_t k = n < 3 - h->head_n ? n : 3 - h->head_n;
        if (k) memcpy(h->head + h->head_n, p, k);
        h->head_n += k;
        h->rest = p + k;
        h->rest_n = n - k;
        if (h->head_n == 3 || h->more == NULL) return true;
        if (!h->more(h->user, &p, &n, error)) return false;
        if (p == NULL || n == 0) {
            h->more = NULL; /* the end of the text */
            h->rest = NULL;
            h->rest_n = 0;
            return true;
        }
    }
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

/* ---- .pvt ---- */

static const char *const bone_keys[] = {"name", "parent", "pivot",    "rotation",
                                        "path", "rig",    "is_camera"};

static onescope_code bone_member(ots_in *in, int key, void *obj) {
    onescope_ots_bone *b = obj;
    switch (key) {
        case 0: return rd_str(in, &b->name, false);
        case 1: return rd_str(in, &b->parent, true);
        case 2: return rd_vec(in, 3, b->pivot);
        case 3: return rd_vec(in, 4, b->rotation);
        case 4: return rd_str(in, &b->path, false);
        case 5: return rd_str(in, &b->rig, false);
        default: return rd_bool(in, &b->is_camera);
    }
}

/* A bone's pivot without the scale factor, then its rules. */
static onescope_code bone_rules(ots_in *in, onescope_ots_bone *b) {
    for (int k = 0; k < 3; k++) b->pivot[k] = unscale(b->pivot[k], in->scale);
    return onescope_os_ots_check_bone(&in->c, b, in->scale);
}

typedef struct bone_list {
    onescope_ots_rig *rig;
    size_t cap;
} bone_list;

static onescope_code bone_element(ots_in *in, size_t i, void *obj) {
    bone_list *l = obj;
    static const object_spec spec = {"a bone", bone_keys, 7, 0x0F};
    if (!room(in, (void **)&l->rig->bones, &l->cap, i, sizeof *l->rig->bones))
        return onescope_os_json_nomem(&in->c);
    onescope_ots_bone *b = &l->rig->bones[i];
    l->rig->bone_count = i + 1;
    b->rotation[0] = 1;
    OS_TRY(element_room(in, &in->elements, &in->elements_cap, i, in->r.at));
    onescope_os_jr_pos at[7];
    member_table t;
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, bone_member, b, at, &t));
    element_names_at(&in->elements[i], &t, 0, 1);
    in->elements[i].bad = in->sink.count != before;
    if (in->elements[i].bad) return ONESCOPE_OK;
    if (!(in->scale > 0)) { /* the scale factor comes later in the file */
        in->bones_waiting = true;
        return ONESCOPE_OK;
    }
    in->table = &t;
    onescope_code rc = bone_rules(in, b);
    in->table = NULL;
    return rc;
}

typedef struct rig_read {
    onescope_ots_rig *rig;
    bone_list bones;
} rig_read;

static onescope_code rig_member(ots_in *in, int key, void *obj) {
    rig_read *rr = obj;
    onescope_ots_rig *r = rr->rig;
    switch (key) {
        case 0: return rd_format(in, ONESCOPE_OTS_PVT);
        case 1: return rd_version(in);
        case 2:
            RD_ENUM(in, onescope_os_ots_source_names, "harmony, blender or maya", r->header.source);
            return ONESCOPE_OK;
        case 3: return rd_str(in, &r->name, false);
        case 4:
            OS_TRY(rd_number(in, &r->scale_factor));
            if (r->scale_factor > 0) in->scale = r->scale_factor;
            RULE_OF_MEMBER(in, onescope_os_ots_check_scale_factor(&in->c, r->scale_factor));
        case 5:
            RD_ENUM(in, onescope_os_ots_pivot_space_names, "local or armature", r->pivot_space);
            return ONESCOPE_OK;
        case 6: return rd_fps(in, &r->header.fps);
        case 7: return rd_coordinate_system(in, &r->header.coordinate_system);
        case 8: return rd_elements(in, bone_element, &rr->bones);
        default: return rd_cameras(in, &r->cameras, &r->camera_count);
    }
}

static onescope_code rd_rig(ots_in *in, onescope_ots_rig *r) {
    static const char *const keys[] = {"format",       "version",     "source", "name",
                                       "scale_factor", "pivot_space", "fps",    "coordinate_system",
                                       "bones",        "cameras"};
    static const object_spec spec = {"a .pvt file", keys, 10, 0x3FF};
    rig_read rr = {r, {r, 0}};
    in->elements_key = "bones";
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, rig_member, &rr, NULL, NULL));
    if (in->bones_waiting && in->scale > 0) {
        /* bones that came before the scale factor: checked now, at their objects */
        in->across = true;
        onescope_os_json_push_key(&in->c, "bones");
        for (size_t i = 0; i < r->bone_count; i++) {
            if (in->elements[i].bad) continue; /* reported already */
            onescope_os_json_push_index(&in->c, i);
            in->at = in->elements[i].object;
            onescope_code rc = bone_rules(in, &r->bones[i]);
            onescope_os_json_pop(&in->c);
            if (onescope_os_json_stop(&in->c, rc)) return rc;
        }
        onescope_os_json_pop(&in->c);
    }
    if (in->sink.count != before) return ONESCOPE_OK; /* names may be missing */
    in->across = true;
    onescope_code rc = camera_names(in, r->cameras, r->camera_count);
    if (onescope_os_json_stop(&in->c, rc)) return rc;
    return onescope_os_ots_check_bones(&in->c, r->bones, r->bone_count);
}

/* ---- .anm ---- */

static onescope_code rd_handle_axis(ots_in *in, onescope_ots_handle *h) {
    static const char expected[] = "[] or [[left_frame, left_value], [right_frame, right_value]]";
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, expected);
    onescope_os_jr_pos start = r->at;
    size_t m = 0;
    for (;; m++) {
        onescope_os_json_push_index(&in->c, m);
        onescope_code rn = next_value(in);
        onescope_os_json_pop(&in->c);
        OS_TRY(rn);
        if (r->kind == OS_JR_ARRAY_END) break;
        onescope_os_json_push_index(&in->c, m);
        onescope_code rc =
            m < 2 ? rd_vec(in, 2, m == 0 ? h->left : h->right) : onescope_os_jr_skip(r);
        onescope_os_json_pop(&in->c);
        OS_TRY(rc);
    }
    h->present = m == 2;
    if (m == 0 || m == 2) return ONESCOPE_OK;
    in->at = start;
    return onescope_os_json_fail(&in->c, ONESCOPE_E_LENGTH, expected, "%zu elements", m);
}

static onescope_code handles_member(ots_in *in, int ch, void *obj) {
    static const char expected[] = "an array of 0 or 3 axes";
    onescope_ots_keyframe *k = obj;
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, expected);
    onescope_os_jr_pos start = r->at;
    size_t axes = 0;
    for (;; axes++) {
        onescope_os_json_push_index(&in->c, axes);
        onescope_code rn = next_value(in);
        onescope_os_json_pop(&in->c);
        OS_TRY(rn);
        if (r->kind == OS_JR_ARRAY_END) break;
        onescope_os_json_push_index(&in->c, axes);
        onescope_code rc =
            axes < 3 ? rd_handle_axis(in, &k->handles[ch][axes]) : onescope_os_jr_skip(r);
        onescope_os_json_pop(&in->c);
        OS_TRY(rc);
    }
    if (axes != 0 && axes != 3) {
        in->at = start;
        return onescope_os_json_fail(&in->c, ONESCOPE_E_LENGTH, expected, "%zu elements", axes);
    }
    k->handle_axes[ch] = (uint8_t)axes;
    return ONESCOPE_OK;
}

static onescope_code keyframe_member(ots_in *in, int key, void *obj) {
    onescope_ots_keyframe *k = obj;
    long long frame = 0;
    switch (key) {
        case 0:
            OS_TRY(rd_int(in, INT32_MIN, INT32_MAX, &frame));
            k->frame = (int32_t)frame;
            return ONESCOPE_OK;
        case 1: return rd_vec(in, 3, k->pos);
        case 2: k->has_rot = true; return rd_vec(in, 3, k->rot);
        case 3: k->has_rot_quat = true; return rd_vec(in, 4, k->rot_quat);
        case 4: return rd_vec(in, 3, k->scl);
        case 5:
            RD_ENUM(in, onescope_os_ots_interp_names, "BEZIER, LINEAR or CONSTANT", k->interp);
            return ONESCOPE_OK;
        default: {
            static const object_spec spec = {"handles", onescope_os_ots_channel_names, 3, 0};
            return rd_object(in, &spec, handles_member, k, NULL, NULL);
        }
    }
}

static onescope_code keyframe_element(ots_in *in, size_t i, void *obj) {
    static const char *const keys[] = {"frame", "pos",    "rot",    "rot_quat",
                                       "scl",   "interp", "handles"};
    static const object_spec spec = {"a keyframe", keys, 7, 0x33};
    onescope_ots_peg *p = obj;
    onescope_ots_keyframe *k = &in->scratch_key;
    if (in->keep_keyframes) {
        if (!room(in, (void **)&p->keyframes, &in->key_cap, i, sizeof *p->keyframes))
            return onescope_os_json_nomem(&in->c);
        k = &p->keyframes[i];
        p->keyframe_count = i + 1;
    }
    memset(k, 0, sizeof *k);
    onescope_os_jr_pos at[7];
    member_table t;
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, keyframe_member, k, at, &t));
    if (in->sink.count != before) {
        in->has_previous = false; /* its frame cannot be trusted to order the next */
        return ONESCOPE_OK;
    }
    in->table = &t;
    onescope_code rc = onescope_os_ots_check_keyframe(&in->c, k);
    if (rc == ONESCOPE_OK && in->has_previous)
        rc = onescope_os_ots_check_frame_order(&in->c, in->previous, k->frame);
    in->table = NULL;
    in->has_previous = true;
    in->previous = k->frame;
    if (rc == ONESCOPE_OK && in->on_key != NULL) {
        /* the caller's failure (its file, its memory) ends the reading, as NOMEM does */
        rc = in->on_key(in->key_user, in->peg_index, k, &in->scratch);
        if (rc != ONESCOPE_OK) {
            onescope_os_json_sink_add(&in->sink, &in->scratch);
            in->sink.max = in->sink.count;
        }
    }
    return rc;
}

static const char *const peg_keys[] = {"name",       "path",          "parent",
                                       "rest_pivot", "rest_rotation", "rig",
                                       "is_camera",  "source_modes",  "keyframes"};

static onescope_code modes_member(ots_in *in, int key, void *obj) {
    onescope_ots_source_modes *m = obj;
    switch (key) {
        case 0: return rd_str(in, &m->position, false);
        case 1: return rd_str(in, &m->rotation, false);
        case 2: return rd_str(in, &m->scale, false);
        default: return rd_bool(in, &m->enable_3d);
    }
}

static onescope_code peg_member(ots_in *in, int key, void *obj) {
    onescope_ots_peg *p = obj;
    switch (key) {
        case 0: return rd_str(in, &p->name, false);
        case 1: return rd_str(in, &p->path, false);
        case 2: return rd_str(in, &p->parent, true);
        case 3: return rd_vec(in, 3, p->rest_pivot);
        case 4: return rd_vec(in, 4, p->rest_rotation);
        case 5: return rd_str(in, &p->rig, false);
        case 6: return rd_bool(in, &p->is_camera);
        case 7: {
            static const char *const keys[] = {"position", "rotation", "scale", "enable_3d"};
            static const object_spec spec = {"source_modes", keys, 4, 0x0F};
            p->has_source_modes = true;
            return rd_object(in, &spec, modes_member, &p->source_modes, NULL, NULL);
        }
        default:
            in->has_previous = false;
            in->key_cap = 0;
            return rd_elements(in, keyframe_element, p);
    }
}

typedef struct peg_list {
    onescope_ots_clip *clip;
    size_t cap;
} peg_list;

static onescope_code peg_element(ots_in *in, size_t i, void *obj) {
    static const object_spec spec = {"a peg", peg_keys, 9, 0x11D};
    peg_list *l = obj;
    if (!room(in, (void **)&l->clip->pegs, &l->cap, i, sizeof *l->clip->pegs))
        return onescope_os_json_nomem(&in->c);
    onescope_ots_peg *p = &l->clip->pegs[i];
    l->clip->peg_count = i + 1;
    in->peg_index = i;
    p->rest_rotation[0] = 1;
    OS_TRY(element_room(in, &in->elements, &in->elements_cap, i, in->r.at));
    onescope_os_jr_pos at[9];
    member_table t;
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, peg_member, p, at, &t));
    element_names_at(&in->elements[i], &t, 0, 2);
    if (in->sink.count != before) return ONESCOPE_OK;
    in->table = &t;
    onescope_code rc = onescope_os_ots_check_peg(&in->c, p);
    in->table = NULL;
    return rc;
}

typedef struct clip_read {
    onescope_ots_clip *clip;
    peg_list pegs;
} clip_read;

static onescope_code frame_range(ots_in *in, int32_t range[2]) {
    static const char expected[] = "an array [first, last]";
    onescope_os_jr *r = &in->r;
    if (r->kind != OS_JR_ARRAY) return wrong_type(in, expected);
    onescope_os_jr_pos start = r->at;
    size_t n = 0;
    for (;; n++) {
        onescope_os_json_push_index(&in->c, n);
        onescope_code rc = next_value(in);
        onescope_os_json_pop(&in->c);
        OS_TRY(rc);
        if (r->kind == OS_JR_ARRAY_END) break;
        long long f = 0;
        onescope_os_json_push_index(&in->c, n);
        rc = rd_int(in, INT32_MIN, INT32_MAX, &f);
        onescope_os_json_pop(&in->c);
        OS_TRY(rc);
        if (n < 2) range[n] = (int32_t)f;
    }
    in->at = start;
    if (n != 2)
        return onescope_os_json_fail(&in->c, ONESCOPE_E_LENGTH, expected, "%zu elements", n);
    RULE_OF_MEMBER(in, onescope_os_ots_check_frame_range(&in->c, range));
}

static onescope_code clip_member(ots_in *in, int key, void *obj) {
    clip_read *cr = obj;
    onescope_ots_clip *k = cr->clip;
    switch (key) {
        case 0: return rd_format(in, ONESCOPE_OTS_ANM);
        case 1: return rd_version(in);
        case 2:
            RD_ENUM(in, onescope_os_ots_source_names, "harmony, blender or maya", k->header.source);
            return ONESCOPE_OK;
        case 3: return frame_range(in, k->frame_range);
        case 4: return rd_fps(in, &k->header.fps);
        case 5: return rd_coordinate_system(in, &k->header.coordinate_system);
        case 6: return rd_elements(in, peg_element, &cr->pegs);
        default: return rd_cameras(in, &k->cameras, &k->camera_count);
    }
}

static onescope_code rd_clip(ots_in *in, onescope_ots_clip *k, size_t **parents) {
    static const char *const keys[] = {"format", "version",           "source", "frame_range",
                                       "fps",    "coordinate_system", "pegs",   "cameras"};
    static const object_spec spec = {"an .anm file", keys, 8, 0xFF};
    clip_read cr = {k, {k, 0}};
    in->elements_key = "pegs";
    uint32_t before = in->sink.count;
    OS_TRY(rd_object(in, &spec, clip_member, &cr, NULL, NULL));
    if (in->sink.count != before) return ONESCOPE_OK; /* names may be missing */
    in->across = true;
    onescope_os_ots_clip_rules_ran();
    onescope_code rc = camera_names(in, k->cameras, k->camera_count);
    if (onescope_os_json_stop(&in->c, rc)) return rc;
    size_t *p = NULL;
    if (parents != NULL) {
        p = onescope_os_calloc(in->c.a, k->peg_count ? k->peg_count : 1, sizeof *p);
        if (p == NULL) return onescope_os_json_nomem(&in->c);
        *parents = p;
    }
    return onescope_os_ots_check_pegs(&in->c, k->pegs, k->peg_count, p);
}

/* ---- the whole text ---- */

static void in_init(ots_in *in, const char *name, const onescope_parse_options *o, const void *data,
                    size_t size, onescope_os_jr_more *more, void *user) {
    memset(in, 0, sizeof *in);
    const onescope_allocator *a = o != NULL ? o->allocator : NULL;
    onescope_os_json_ctx_init(&in->c, name, a, &in->scratch);
    in->c.locate = locate;
    in->c.locate_user = in;
    in->c.sink = &in->sink;
    in->sink.first = &in->first;
    in->sink.max = 1;
    if (o != NULL && o->on_error != NULL) {
        in->sink.on_error = o->on_error;
        in->sink.user = o->on_error_user;
        in->sink.max = o->max_errors ? o->max_errors : 1;
    }
    in->keep_keyframes = true;
    /* the reader starts after the head's bytes, which it is handed first */
    in->head.more = more;
    in->head.user = user;
    in->head_failed = !gather_head(&in->head, data, size, &in->scratch);
    /* A whole text is detected here; a streamed one was detected by its caller from its first
     * bytes (validate in src/file.c, the kind handed to onescope_os_ots_check_stream). */
    in->streamed = more != NULL;
    if (!in->streamed) in->detected = onescope_ots_detect(data, size);
    onescope_os_jr_init(&in->r, name, a, &in->scratch, in->head.head, in->head.head_n, head_more,
                        &in->head);
}

/* Reads the text into *rig or *clip (whichever is not NULL); returns the first error's code
 * and copies it to error. */
static onescope_code in_run(ots_in *in, onescope_ots_rig *rig, onescope_ots_clip *clip,
                            size_t **parents, onescope_error *error) {
    onescope_code rc = ONESCOPE_OK;
    if (in->head_failed) /* a source that failed without saying why: still a read error */
        rc = in->scratch.code != ONESCOPE_OK
                 ? in->scratch.code
                 : onescope_os_fail(&in->scratch, ONESCOPE_E_IO, in->c.name, OS_NO_OFFSET, NULL,
                                    NULL, "cannot read");
    else
        rc = plain_text_checks(&in->c, in->head.head, in->head.head_n);
    if (rc == ONESCOPE_OK) rc = onescope_os_jr_next(&in->r);
    if (rc == ONESCOPE_OK) {
        in->at = in->r.at;
        if (in->r.kind != OS_JR_OBJECT)
            rc = wrong_type(in, "a JSON object");
        else
            rc = rig != NULL ? rd_rig(in, rig) : rd_clip(in, clip, parents);
    }
    /* only white space may follow the document (or the reading stopped at an error) */
    if (rc == ONESCOPE_OK && in->sink.count < in->sink.max) rc = onescope_os_jr_next(&in->r);
    /* an error that ended the reading and was not counted yet: the reader's, or one before
     * the reading started */
    if (rc != ONESCOPE_OK && (in->r.failed || in->sink.count == 0))
        onescope_os_json_sink_add(&in->sink, &in->scratch);
    if (in->sink.count > 0) {
        rc = in->first.code;
        if (error != NULL) *error = in->first;
    }
    onescope_os_jr_free(&in->r);
    onescope_os_free(in->c.a, in->elements);
    onescope_os_free(in->c.a, in->cams);
    return rc;
}

/* The options' size limit and the arguments, before the text is read. */
static onescope_code check_arguments(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, const void *out,
                                     onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    OS_TRY(onescope_os_check_input_size(size, options, name, error));
    if (data == NULL && size > 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "data", "non-NULL",
                                NULL);
    return ONESCOPE_OK;
}

onescope_code onescope_ots_rig_parse(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_ots_rig **out,
                                     onescope_error *error) {
    if (out != NULL) *out = NULL;
    OS_TRY(check_arguments(data, size, name, options, out, error));
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_rig *r = onescope_os_calloc(a, 1, sizeof *r);
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    r->allocator = a;
    ots_in in;
    in_init(&in, name, options, data ? data : "", size, NULL, NULL);
    onescope_code rc = in_run(&in, r, NULL, NULL, error);
    if (rc == ONESCOPE_OK && (r->bones == NULL || r->cameras == NULL)) {
        /* empty arrays are still arrays */
        if (r->bones == NULL) r->bones = onescope_os_calloc(a, 1, sizeof *r->bones);
        if (r->cameras == NULL) r->cameras = onescope_os_calloc(a, 1, sizeof *r->cameras);
        if (r->bones == NULL || r->cameras == NULL)
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                  "could not allocate memory");
    }
    if (rc != ONESCOPE_OK) {
        onescope_ots_rig_free(r);
        return rc;
    }
    *out = r;
    return ONESCOPE_OK;
}

static onescope_ots_clip *clip_new(const onescope_allocator *a, const char *name,
                                   onescope_error *error) {
    onescope_ots_clip *k = onescope_os_calloc(a, 1, sizeof *k);
    if (k == NULL)
        onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                         "could not allocate memory");
    else
        k->allocator = a;
    return k;
}

/* Reads clip k through an ots_in already set up: the pegs' and cameras' arrays made
 * non-NULL, the parents handed back (or freed); k is freed on failure. */
static onescope_code clip_run(ots_in *in, onescope_ots_clip *k, const char *name,
                              const onescope_allocator *a, onescope_ots_clip **out,
                              size_t **parents, onescope_error *error) {
    size_t *p = NULL;
    onescope_code rc = in_run(in, NULL, k, &p, error);
    if (rc == ONESCOPE_OK && (k->pegs == NULL || k->cameras == NULL)) {
        if (k->pegs == NULL) k->pegs = onescope_os_calloc(a, 1, sizeof *k->pegs);
        if (k->cameras == NULL) k->cameras = onescope_os_calloc(a, 1, sizeof *k->cameras);
        if (k->pegs == NULL || k->cameras == NULL)
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                  "could not allocate memory");
    }
    if (rc != ONESCOPE_OK) {
        onescope_os_free(a, p);
        onescope_ots_clip_free(k);
        return rc;
    }
    *out = k;
    if (parents != NULL)
        *parents = p;
    else
        onescope_os_free(a, p);
    return ONESCOPE_OK;
}

onescope_code onescope_os_ots_clip_parse(const void *data, size_t size, const char *name,
                                         const onescope_parse_options *options,
                                         onescope_ots_clip **out, size_t **parents,
                                         onescope_error *error) {
    if (parents != NULL) *parents = NULL;
    if (out != NULL) *out = NULL;
    OS_TRY(check_arguments(data, size, name, options, out, error));
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_clip *k = clip_new(a, name, error);
    if (k == NULL) return ONESCOPE_E_NOMEM;
    ots_in in;
    in_init(&in, name, options, data ? data : "", size, NULL, NULL);
    return clip_run(&in, k, name, a, out, parents, error);
}

onescope_code onescope_os_ots_clip_parse_stream(const void *first, size_t size,
                                                onescope_os_jr_more *more, void *user,
                                                onescope_ots_kind detected, const char *name,
                                                const onescope_parse_options *options,
                                                onescope_os_ots_key_fn *on_key, void *key_user,
                                                onescope_ots_clip **out, size_t **parents,
                                                onescope_error *error) {
    if (parents != NULL) *parents = NULL;
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_clip *k = clip_new(a, name, error);
    if (k == NULL) return ONESCOPE_E_NOMEM;
    ots_in in;
    in_init(&in, name, options, first ? first : "", size, more, user);
    /* the format rule as the whole text's parse has it, from the caller's detection */
    in.streamed = false;
    in.detected = detected;
    in.keep_keyframes = false;
    in.on_key = on_key;
    in.key_user = key_user;
    return clip_run(&in, k, name, a, out, parents, error);
}

onescope_code onescope_ots_clip_parse(const void *data, size_t size, const char *name,
                                      const onescope_parse_options *options,
                                      onescope_ots_clip **out, onescope_error *error) {
    return onescope_os_ots_clip_parse(data, size, name, options, out, NULL, error);
}

onescope_code onescope_os_ots_check_stream(onescope_ots_kind kind, const void *first, size_t size,
                                           onescope_os_jr_more *more, void *user, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_error *error) {
    const onescope_allocator *a = options ? options->allocator : NULL;
    onescope_ots_rig *r = NULL;
    onescope_ots_clip *k = NULL;
    if (kind == ONESCOPE_OTS_PVT)
        r = onescope_os_calloc(a, 1, sizeof *r);
    else
        k = onescope_os_calloc(a, 1, sizeof *k);
    if (r == NULL && k == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    if (r != NULL) r->allocator = a;
    if (k != NULL) k->allocator = a;
    ots_in in;
    in_init(&in, name, options, first, size, more, user);
    in.keep_keyframes = false;
    onescope_code rc = in_run(&in, r, k, NULL, error);
    onescope_ots_rig_free(r);
    onescope_ots_clip_free(k);
    return rc;
}

onescope_ots_kind onescope_ots_detect(const void *data, size_t size) {
    const char *s = data;
    size_t n = size < ONESCOPE_FORMAT_DETECT_BYTES ? size : ONESCOPE_FORMAT_DETECT_BYTES;
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

/* ---- the .pvt and .anm codecs (check_internal.h): the reader pulls its chunks ---- */

static onescope_code pvt_pull(const void *first, size_t n, size_t total, onescope_os_jr_more *more,
                              void *user, const char *name, const onescope_parse_options *options,
                              onescope_error *error) {
    (void)total;
    return onescope_os_ots_check_stream(ONESCOPE_OTS_PVT, first, n, more, user, name, options,
                                        error);
}

static onescope_code anm_pull(const void *first, size_t n, size_t total, onescope_os_jr_more *more,
                              void *user, const char *name, const onescope_parse_options *options,
                              onescope_error *error) {
    (void)total;
    return onescope_os_ots_check_stream(ONESCOPE_OTS_ANM, first, n, more, user, name, options,
                                        error);
}

static onescope_code pvt_parse_only(const void *data, size_t size, const char *name,
                                    const onescope_parse_options *options, onescope_error *error) {
    onescope_ots_rig *r;
    onescope_code rc = onescope_ots_rig_parse(data, size, name, options, &r, error);
    onescope_ots_rig_free(r);
    return rc;
}

static onescope_code anm_parse_only(const void *data, size_t size, const char *name,
                                    const onescope_parse_options *options, onescope_error *error) {
    onescope_ots_clip *c;
    onescope_code rc = onescope_ots_clip_parse(data, size, name, options, &c, error);
    onescope_ots_clip_free(c);
    return rc;
}

const onescope_os_codec onescope_os_pvt_codec = {NULL, pvt_pull, pvt_parse_only};
const onescope_os_codec onescope_os_anm_codec = {NULL, anm_pull, anm_parse_only};
