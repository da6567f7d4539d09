/* OTS v4 .pvt/.anm: every refusal, byte-stable rewrites of generated rigs and clips,
 * interpolation against hand-computed values, conversion both ways, allocation failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ots_internal.h"
#include "test_util.h"
#include "../tools/bench/fnv_names.h"

#define PI 3.14159265358979323846

/* ---- a small valid clip as text, mutated by the refusal tests ---- */

static const char clip_text[] =
    "{\n"
    "  \"format\": \"octo_anm\",\n"
    "  \"version\": 4,\n"
    "  \"source\": \"harmony\",\n"
    "  \"frame_range\": [1, 10],\n"
    "  \"fps\": 24.0,\n"
    "  \"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\",\n"
    "    \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
    "\"quat_wxyz\"},\n"
    "  \"pegs\": [\n"
    "    {\"name\": \"root-P\", \"parent\": null, \"rest_pivot\": [0, 0, 0],\n"
    "     \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": []},\n"
    "    {\"name\": \"hip-P\", \"path\": \"Top/hip-P\", \"parent\": \"root-P\",\n"
    "     \"rest_pivot\": [0.0, 1.0, 0.0], \"rest_rotation\": [1.0, 0.0, 0.0, 0.0],\n"
    "     \"rig\": \"ship\", \"is_camera\": false,\n"
    "     \"source_modes\": {\"position\": \"separate\", \"rotation\": \"euler\", \"scale\": "
    "\"separate\", \"enable_3d\": true},\n"
    "     \"keyframes\": [\n"
    "       {\"frame\": 1, \"pos\": [0.0, 0.0, 0.0], \"rot\": [0.0, 0.0, 0.0], \"rot_quat\": [1.0, "
    "0.0, 0.0, 0.0],\n"
    "        \"scl\": [1.0, 1.0, 1.0], \"interp\": \"BEZIER\", \"handles\": {\"pos\": [], \"rot\": "
    "[], \"scl\": []}},\n"
    "       {\"frame\": 5, \"pos\": [1.0, 2.0, 3.0], \"rot\": [0.0, 0.0, 90.0],\n"
    "        \"scl\": [1.0, 1.0, 1.0], \"interp\": \"LINEAR\"}\n"
    "     ]}\n"
    "  ],\n"
    "  \"cameras\": [\n"
    "    {\"name\": \"cam\", \"peg\": \"hip-P\", \"is_default\": true, \"fov\": 40.0, "
    "\"fov_axis\": \"vertical\",\n"
    "     \"override_fov\": false, \"near_plane\": 0.1, \"far_plane\": 100.0, \"near_field\": "
    "0.5,\n"
    "     \"far_field\": 50.0, \"angle\": 0.0, \"offset_x\": 0.0, \"offset_y\": 0.0, \"offset_z\": "
    "12.0,\n"
    "     \"pivot_x\": 0.0, \"pivot_y\": 0.0}\n"
    "  ]\n"
    "}\n";

static const char rig_text[] =
    "{\n"
    "  \"format\": \"octo_pvt\",\n"
    "  \"version\": 4,\n"
    "  \"source\": \"blender\",\n"
    "  \"name\": \"spaceship\",\n"
    "  \"scale_factor\": 2.0,\n"
    "  \"pivot_space\": \"local\",\n"
    "  \"fps\": 24.0,\n"
    "  \"coordinate_system\": {\"up\": \"z\", \"hand\": \"right\", \"unit\": \"meters\",\n"
    "    \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
    "\"quat_wxyz\"},\n"
    "  \"bones\": [\n"
    "    {\"name\": \"hip\", \"parent\": null, \"pivot\": [0.0, 2.0, 4.0], \"rotation\": [1.0, "
    "0.0, 0.0, 0.0],\n"
    "     \"path\": \"Armature/hip\", \"rig\": \"spaceship\", \"is_camera\": false},\n"
    "    {\"name\": \"leg\", \"parent\": \"hip\", \"pivot\": [1.0, 0.0, 0.0], \"rotation\": [0.0, "
    "1.0, 0.0, 0.0],\n"
    "     \"rig\": \"spaceship\"}\n"
    "  ],\n"
    "  \"cameras\": []\n"
    "}\n";

/* Replaces the first occurrence of from with to (which must exist) in a fresh copy. */
static char *edit(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    if (at == NULL) fail_msg("edit: '%s' not in the text", from);
    size_t n = strlen(text), a = (size_t)(at - text), f = strlen(from), t = strlen(to);
    char *out = malloc(n - f + t + 1);
    assert_non_null(out);
    memcpy(out, text, a);
    memcpy(out + a, to, t);
    memcpy(out + a + t, at + f, n - a - f + 1);
    return out;
}

/* Whether the bytes of b (not NUL-terminated) contain needle. */
static bool has(const onescope_buffer *b, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= b->size; i++)
        if (memcmp(b->data + i, needle, n) == 0) return true;
    return false;
}

static char *fmt(const onescope_error *e) {
    static char line[1024];
    onescope_error_format(e, line, sizeof line);
    return line;
}

/* Parses text as a clip (or a rig) expecting code, the field path and (when line > 0) the
 * line and column. */
static void expect_error(bool rig, const char *text, onescope_code code, const char *field,
                         uint32_t line, uint32_t column) {
    onescope_error err;
    onescope_code rc;
    if (rig) {
        onescope_ots_rig *r = (onescope_ots_rig *)1;
        rc = onescope_ots_rig_parse(text, strlen(text), "t.pvt", NULL, &r, &err);
        if (rc == ONESCOPE_OK)
            onescope_ots_rig_free(r);
        else
            assert_null(r);
    } else {
        onescope_ots_clip *c = (onescope_ots_clip *)1;
        rc = onescope_ots_clip_parse(text, strlen(text), "t.anm", NULL, &c, &err);
        if (rc == ONESCOPE_OK)
            onescope_ots_clip_free(c);
        else
            assert_null(c);
    }
    if (code == ONESCOPE_OK) {
        if (rc != ONESCOPE_OK) fail_msg("wanted success, got %s", fmt(&err));
        return;
    }
    if (rc != code || err.code != code || (field && strcmp(err.field, field) != 0) ||
        (line > 0 && (err.line != line || err.column != column)))
        fail_msg("wanted %s at %s %u:%u, got %s: %s", onescope_error_name(code),
                 field ? field : "-", line, column, onescope_error_name(rc), fmt(&err));
}

static void expect_clip_edit(const char *from, const char *to, onescope_code code,
                             const char *field, uint32_t line, uint32_t column) {
    char *t = edit(clip_text, from, to);
    expect_error(false, t, code, field, line, column);
    free(t);
}

static void expect_rig_edit(const char *from, const char *to, onescope_code code,
                            const char *field) {
    char *t = edit(rig_text, from, to);
    expect_error(true, t, code, field, 0, 0);
    free(t);
}

static onescope_ots_clip *parse_clip_ok(const char *text, size_t size) {
    onescope_ots_clip *c;
    onescope_error err;
    if (onescope_ots_clip_parse(text, size, "ok.anm", NULL, &c, &err) != ONESCOPE_OK)
        fail_msg("%s", fmt(&err));
    return c;
}

static onescope_ots_rig *parse_rig_ok(const char *text, size_t size) {
    onescope_ots_rig *r;
    onescope_error err;
    if (onescope_ots_rig_parse(text, size, "ok.pvt", NULL, &r, &err) != ONESCOPE_OK)
        fail_msg("%s", fmt(&err));
    return r;
}

/* ---- the samples parse, with the right values ---- */

static void samples_parse(void **state) {
    (void)state;
    onescope_ots_clip *c = parse_clip_ok(clip_text, strlen(clip_text));
    assert_int_equal(c->peg_count, 2);
    assert_int_equal(c->frame_range[0], 1);
    assert_int_equal(c->frame_range[1], 10);
    assert_null(c->pegs[0].parent);
    assert_string_equal(c->pegs[1].parent, "root-P");
    assert_string_equal(c->pegs[1].path, "Top/hip-P");
    assert_true(c->pegs[1].has_source_modes);
    assert_string_equal(c->pegs[1].source_modes.rotation, "euler");
    assert_int_equal(c->pegs[1].keyframe_count, 2);
    assert_true(c->pegs[1].keyframes[0].has_rot_quat);
    assert_false(c->pegs[1].keyframes[1].has_rot_quat);
    assert_int_equal(c->pegs[1].keyframes[1].interp, ONESCOPE_OTS_LINEAR);
    assert_true(c->pegs[1].keyframes[1].pos[2] == 3.0);
    assert_int_equal(c->camera_count, 1);
    assert_true(c->cameras[0].offset_z == 12.0);
    assert_true(c->cameras[0].is_default);
    onescope_ots_clip_free(c);

    onescope_ots_rig *r = parse_rig_ok(rig_text, strlen(rig_text));
    assert_int_equal(r->bone_count, 2);
    assert_true(r->scale_factor == 2.0);
    assert_true(r->bones[0].pivot[1] == 1.0); /* divided by the scale factor on read */
    assert_true(r->bones[0].pivot[2] == 2.0);
    assert_int_equal(r->header.coordinate_system.up, ONESCOPE_OTS_UP_Z);
    assert_int_equal(r->header.source, ONESCOPE_OTS_SOURCE_BLENDER);
    onescope_buffer b;
    onescope_error err;
    assert_int_equal(onescope_ots_rig_write(r, NULL, &b, &err), ONESCOPE_OK);
    assert_true(has(&b, "\"pivot\": [0.0, 2.0, 4.0]")); /* multiplied on write */
    assert_false(has(&b, "is_camera"));                 /* false is omitted */
    onescope_buffer_free(&b);
    onescope_ots_rig_free(r);

    assert_int_equal(onescope_ots_detect(clip_text, strlen(clip_text)), ONESCOPE_OTS_ANM);
    assert_int_equal(onescope_ots_detect(rig_text, strlen(rig_text)), ONESCOPE_OTS_PVT);
    assert_int_equal(onescope_ots_detect("OSPC", 4), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("{\"format\": \"octo_x\"}", 20), ONESCOPE_OTS_NONE);
}

/* ---- refusals ---- */

static void version_must_match(void **state) {
    (void)state;
    char *t = edit(clip_text, "\"version\": 4", "\"version\": 3");
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_parse(t, strlen(t), "old.anm", NULL, &c, &err),
                     ONESCOPE_E_VERSION);
    assert_string_equal(
        fmt(&err),
        "old.anm: line 3, column 14: version: unsupported version 3 (this build "
        "writes/reads v4; no backward migration \xe2\x80\x94 re-export from the source DCC)");
    free(t);
    /* the version is checked before any other key, so an old layout still gets the message */
    t = edit(clip_text, "\"version\": 4,", "\"version\": 5, \"pegz\": 1,");
    expect_error(false, t, ONESCOPE_E_VERSION, "version", 3, 14);
    free(t);
    expect_clip_edit("\"version\": 4", "\"version\": \"4\"", ONESCOPE_E_TYPE, "version", 3, 14);
    expect_clip_edit("\"version\": 4,", "", ONESCOPE_E_TYPE, "version", 1, 1);
    expect_clip_edit("\"version\": 4", "\"version\": 4.0", ONESCOPE_OK, NULL, 0, 0);
    expect_rig_edit("\"version\": 4", "\"version\": 40", ONESCOPE_E_VERSION, "version");
}

static void syntax_and_numbers(void **state) {
    (void)state;
    /* a key given twice: the second one's value */
    expect_clip_edit("\"fps\": 24.0,", "\"fps\": 24.0, \"fps\": 25.0,", ONESCOPE_E_DUPLICATE, "fps",
                     6, 23);
    expect_clip_edit("\"unit\": \"meters\",", "\"unit\": \"meters\", \"up\": \"y\",",
                     ONESCOPE_E_DUPLICATE, "coordinate_system.up", 7, 77);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": NaN", ONESCOPE_E_NOT_FINITE, NULL, 6, 10);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": Infinity", ONESCOPE_E_NOT_FINITE, NULL, 0, 0);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": -Infinity", ONESCOPE_E_NOT_FINITE, NULL, 0, 0);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": 1e999", ONESCOPE_E_NOT_FINITE, NULL, 6, 10);
    expect_clip_edit("\"pos\": [1.0, 2.0, 3.0]", "\"pos\": [1.0, -1e400, 3.0]",
                     ONESCOPE_E_NOT_FINITE, NULL, 0, 0);
    expect_clip_edit("\"frame\": 5", "\"frame\": 99999999999999999999", ONESCOPE_E_RANGE, NULL, 0,
                     0);
    expect_clip_edit("\"frame\": 5", "\"frame\": 9999999999", ONESCOPE_E_RANGE,
                     "pegs[1].keyframes[1].frame", 0, 0);
    expect_clip_edit("\"fps\": 24.0,", "\"fps\": 24.0", ONESCOPE_E_SYNTAX, NULL, 0, 0);
    expect_clip_edit("\"harmony\"", "\"harm\xff\"", ONESCOPE_E_UTF8, NULL, 0, 0);
    expect_clip_edit("\"root-P\", \"parent\"", "\"ro\\u0000t\", \"parent\"", ONESCOPE_E_SYNTAX,
                     NULL, 0, 0);
    expect_error(false, "[1, 2]", ONESCOPE_E_TYPE, "", 1, 1);
    expect_error(false, "", ONESCOPE_E_SYNTAX, NULL, 0, 0);
    /* a truncated document names the line where it stopped */
    char *t = strdup(clip_text);
    t[200] = '\0';
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_parse(t, 200, "cut.anm", NULL, &c, &err), ONESCOPE_E_SYNTAX);
    assert_true(err.line >= 6);
    free(t);
    /* the size limit comes first */
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = 100;
    assert_int_equal(onescope_ots_clip_parse(clip_text, strlen(clip_text), "big", &o, &c, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_error_at(err, ONESCOPE_E_TOO_LARGE, 100);
}

static void types_and_missing_keys(void **state) {
    (void)state;
    expect_clip_edit("\"fps\": 24.0", "\"fps\": \"24\"", ONESCOPE_E_TYPE, "fps", 6, 10);
    expect_clip_edit("\"name\": \"hip-P\"", "\"name\": 7", ONESCOPE_E_TYPE, "pegs[1].name", 12, 14);
    expect_clip_edit("\"is_camera\": false", "\"is_camera\": 0", ONESCOPE_E_TYPE,
                     "pegs[1].is_camera", 0, 0);
    expect_clip_edit("\"parent\": \"root-P\"", "\"parent\": 1", ONESCOPE_E_TYPE, "pegs[1].parent",
                     0, 0);
    expect_clip_edit("\"keyframes\": []", "\"keyframes\": {}", ONESCOPE_E_TYPE, "pegs[0].keyframes",
                     0, 0);
    expect_clip_edit("\"pos\": [1.0, 2.0, 3.0]", "\"pos\": [1.0, \"2\", 3.0]", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[1].pos[1]", 19, 34);
    expect_clip_edit("\"frame\": 5", "\"frame\": 5.5", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[1].frame", 0, 0);
    expect_clip_edit("\"frame\": 5", "\"frame\": 5.0", ONESCOPE_OK, NULL, 0, 0);
    expect_clip_edit("\"enable_3d\": true", "\"enable_3d\": \"yes\"", ONESCOPE_E_TYPE,
                     "pegs[1].source_modes.enable_3d", 0, 0);
    expect_clip_edit("\"rest_pivot\": [0, 0, 0]", "\"rest_pivot\": {}", ONESCOPE_E_TYPE,
                     "pegs[0].rest_pivot", 10, 54);
    /* missing required keys point at the object that lacks them */
    expect_clip_edit("\"pos\": [1.0, 2.0, 3.0], ", "", ONESCOPE_E_TYPE, "pegs[1].keyframes[1].pos",
                     19, 8);
    expect_clip_edit("\"scl\": [1.0, 1.0, 1.0], \"interp\": \"LINEAR\"", "\"interp\": \"LINEAR\"",
                     ONESCOPE_E_TYPE, "pegs[1].keyframes[1].scl", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10],", "", ONESCOPE_E_TYPE, "frame_range", 1, 1);
    expect_clip_edit("\"parent\": null, ", "", ONESCOPE_E_TYPE, "pegs[0].parent", 10, 5);
    expect_clip_edit("\"far_field\": 50.0, ", "", ONESCOPE_E_TYPE, "cameras[0].far_field", 0, 0);
    expect_clip_edit("\"rot_order\": \"xyz\", ", "", ONESCOPE_E_TYPE, "coordinate_system.rot_order",
                     0, 0);
    expect_clip_edit(", \"enable_3d\": true", "", ONESCOPE_E_TYPE, "pegs[1].source_modes.enable_3d",
                     0, 0);
    expect_clip_edit("\"rot\": [0.0, 0.0, 90.0],", "", ONESCOPE_E_TYPE, "pegs[1].keyframes[1]", 19,
                     8);
    /* unknown keys are refused where they stand */
    expect_clip_edit("\"fps\": 24.0,", "\"fps\": 24.0, \"fsp\": 1,", ONESCOPE_E_TYPE, "fsp", 6, 23);
    expect_clip_edit("\"interp\": \"LINEAR\"", "\"interp\": \"LINEAR\", \"ease\": 1",
                     ONESCOPE_E_TYPE, "pegs[1].keyframes[1].ease", 0, 0);
    expect_clip_edit("\"scl\": []", "\"scl\": [], \"tan\": []", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[0].handles.tan", 0, 0);
    expect_rig_edit("\"rig\": \"spaceship\"}", "\"rig\": \"spaceship\", \"roll\": 0}",
                    ONESCOPE_E_TYPE, "bones[1].roll");
    expect_rig_edit("\"scale_factor\": 2.0,", "", ONESCOPE_E_TYPE, "scale_factor");
    expect_rig_edit("\"cameras\": []", "\"cameras\": null", ONESCOPE_E_TYPE, "cameras");
    expect_rig_edit("\"name\": \"spaceship\",", "\"name\": null,", ONESCOPE_E_TYPE, "name");
}

static void enums_and_lengths(void **state) {
    (void)state;
    expect_clip_edit("\"harmony\"", "\"houdini\"", ONESCOPE_E_RANGE, "source", 4, 13);
    expect_clip_edit("\"LINEAR\"", "\"linear\"", ONESCOPE_E_RANGE, "pegs[1].keyframes[1].interp", 0,
                     0);
    expect_clip_edit("\"up\": \"y\"", "\"up\": \"w\"", ONESCOPE_E_RANGE, "coordinate_system.up", 7,
                     31);
    expect_clip_edit("\"hand\": \"right\"", "\"hand\": \"up\"", ONESCOPE_E_RANGE,
                     "coordinate_system.hand", 0, 0);
    expect_clip_edit("\"meters\"", "\"feet\"", ONESCOPE_E_RANGE, "coordinate_system.unit", 0, 0);
    expect_clip_edit("\"rot_order\": \"xyz\"", "\"rot_order\": \"xxz\"", ONESCOPE_E_RANGE,
                     "coordinate_system.rot_order", 0, 0);
    expect_clip_edit("\"euler_deg\"", "\"euler_rad\"", ONESCOPE_E_RANGE,
                     "coordinate_system.rot_repr_anim", 0, 0);
    expect_clip_edit("\"vertical\"", "\"diagonal\"", ONESCOPE_E_RANGE, "cameras[0].fov_axis", 0, 0);
    expect_clip_edit("\"octo_anm\"", "\"octo_pvt\"", ONESCOPE_E_RANGE, "format", 2, 13);
    expect_clip_edit("\"octo_anm\"", "\"octo\"", ONESCOPE_E_RANGE, "format", 2, 13);
    expect_rig_edit("\"local\"", "\"world\"", ONESCOPE_E_RANGE, "pivot_space");
    expect_rig_edit("\"scale_factor\": 2.0", "\"scale_factor\": 0", ONESCOPE_E_RANGE,
                    "scale_factor");
    expect_clip_edit("\"fps\": 24.0", "\"fps\": -24", ONESCOPE_E_RANGE, "fps", 6, 10);
    /* array lengths */
    expect_clip_edit("\"pos\": [1.0, 2.0, 3.0]", "\"pos\": [1.0, 2.0]", ONESCOPE_E_LENGTH,
                     "pegs[1].keyframes[1].pos", 19, 28);
    expect_clip_edit("\"rot_quat\": [1.0, 0.0, 0.0, 0.0]", "\"rot_quat\": [1.0, 0.0, 0.0]",
                     ONESCOPE_E_LENGTH, "pegs[1].keyframes[0].rot_quat", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [1, 10, 20]", ONESCOPE_E_LENGTH,
                     "frame_range", 5, 18);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [1, \"a\"]", ONESCOPE_E_TYPE,
                     "frame_range[1]", 5, 22);
    expect_clip_edit("\"rest_rotation\": [1, 0, 0, 0]", "\"rest_rotation\": [1, 0, 0, 0, 0]",
                     ONESCOPE_E_LENGTH, "pegs[0].rest_rotation", 0, 0);
    expect_rig_edit("\"pivot\": [1.0, 0.0, 0.0]", "\"pivot\": []", ONESCOPE_E_LENGTH,
                    "bones[1].pivot");
    expect_clip_edit("\"pos\": []", "\"pos\": [[], []]", ONESCOPE_E_LENGTH,
                     "pegs[1].keyframes[0].handles.pos", 0, 0);
    expect_clip_edit("\"pos\": []", "\"pos\": [[], [[1, 2]], []]", ONESCOPE_E_LENGTH,
                     "pegs[1].keyframes[0].handles.pos[1]", 0, 0);
    expect_clip_edit("\"pos\": []", "\"pos\": [[], [[1, 2], [3]], []]", ONESCOPE_E_LENGTH,
                     "pegs[1].keyframes[0].handles.pos[1][1]", 0, 0);
    expect_clip_edit("\"pos\": []", "\"pos\": [[], [[1, 2], [3, 4]], []]", ONESCOPE_OK, NULL, 0, 0);
    expect_clip_edit("\"handles\": {\"pos\": [], \"rot\": [], \"scl\": []}", "\"handles\": {}",
                     ONESCOPE_OK, NULL, 0, 0);
}

static void rules_between_values(void **state) {
    (void)state;
    /* rot_quat or rot: at least one */
    expect_clip_edit("\"rot\": [0.0, 0.0, 90.0],", "\"rot_quat\": [0, 0, 0, 0],", ONESCOPE_E_RANGE,
                     "pegs[1].keyframes[1].rot_quat", 19, 57);
    /* frames strictly increasing */
    expect_clip_edit("\"frame\": 5", "\"frame\": 1", ONESCOPE_E_DUPLICATE,
                     "pegs[1].keyframes[1].frame", 19, 18);
    expect_clip_edit("\"frame\": 5", "\"frame\": 0", ONESCOPE_E_RANGE, "pegs[1].keyframes[1].frame",
                     0, 0);
    expect_clip_edit("\"frame\": 5", "\"frame\": -5000", ONESCOPE_E_RANGE, NULL, 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [10, 1]", ONESCOPE_E_RANGE,
                     "frame_range", 5, 18);
    /* names: unique per rig tag; parents: not itself, no loops; unknown parents are fine */
    {
        char *t = edit(clip_text, "\"name\": \"hip-P\"", "\"name\": \"root-P\"");
        expect_error(false, t, ONESCOPE_E_RANGE, "pegs[1].parent", 12, 55); /* its own parent */
        char *u = edit(t, "\"parent\": \"root-P\"", "\"parent\": null");
        expect_error(false, u, ONESCOPE_OK, NULL, 0, 0); /* same name, other rig tag */
        free(t);
        free(u);
    }
    expect_clip_edit("\"rig\": \"ship\", ", "", ONESCOPE_OK, NULL, 0, 0);
    {
        char *t = edit(clip_text, "\"rig\": \"ship\", ", "");
        char *u = edit(t, "\"parent\": \"root-P\"", "\"parent\": null");
        expect_error(false, u, ONESCOPE_OK, NULL, 0, 0);
        free(t);
        char *v = edit(u, "\"name\": \"hip-P\"", "\"name\": \"root-P\"");
        expect_error(false, v, ONESCOPE_E_DUPLICATE, "pegs[1].name", 12, 14);
        free(u);
        free(v);
    }
    expect_clip_edit("\"parent\": \"root-P\"", "\"parent\": \"hip-P\"", ONESCOPE_E_RANGE,
                     "pegs[1].parent", 12, 54);
    expect_clip_edit("\"parent\": \"root-P\"", "\"parent\": \"somewhere\"", ONESCOPE_OK, NULL, 0,
                     0);
    expect_rig_edit("\"parent\": null", "\"parent\": \"leg\"", ONESCOPE_E_RANGE,
                    "bones[0].parent"); /* loop */
    expect_rig_edit("\"name\": \"leg\"", "\"name\": \"hip\"", ONESCOPE_E_DUPLICATE,
                    "bones[1].name");
    expect_rig_edit("\"name\": \"leg\"", "\"name\": \"\"", ONESCOPE_E_RANGE, "bones[1].name");
    expect_rig_edit("\"rotation\": [0.0, 1.0, 0.0, 0.0]", "\"rotation\": [0.0, 0.0, 0.0, 0.0]",
                    ONESCOPE_E_RANGE, "bones[1].rotation");
    expect_clip_edit("\"name\": \"cam\"", "\"name\": \"\"", ONESCOPE_E_RANGE, "cameras[0].name", 0,
                     0);
    {
        /* two cameras with one name */
        const char *cam = "{\"name\": \"cam\", \"peg\": \"hip-P\", \"is_default\": true";
        char two[512];
        snprintf(
            two, sizeof two, "%s}, %s",
            "{\"name\": \"cam\", \"peg\": null, \"is_default\": false, \"fov\": 1, "
            "\"fov_axis\": \"horizontal\", \"override_fov\": true, \"near_plane\": 1, "
            "\"far_plane\": 2, "
            "\"near_field\": 1, \"far_field\": 2, \"angle\": 0, \"offset_x\": 0, \"offset_y\": 0, "
            "\"offset_z\": 0, \"pivot_x\": 0, \"pivot_y\": 0",
            cam);
        char *t = edit(clip_text, cam, two);
        expect_error(false, t, ONESCOPE_E_DUPLICATE, "cameras[1].name", 0, 0);
        free(t);
    }
}

/* A parent name used by many rigs, none of them the child's own: ambiguous, so a root. */
static void ambiguous_parent_is_a_root(void **state) {
    (void)state;
    enum { N = 20000 };
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(N + 2, 0, NULL, &c, &err), ONESCOPE_OK);
    c->frame_range[1] = 0;
    for (size_t i = 0; i < N + 2; i++) {
        char rig[32];
        snprintf(rig, sizeof rig, "rig%zu", i);
        assert_int_equal(onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME,
                                                        i < N    ? "same"
                                                        : i == N ? "only"
                                                                 : "child",
                                                        &err),
                         0);
        assert_int_equal(onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_RIG,
                                                        i <= N ? rig : "mine", &err),
                         0);
        c->pegs[i].rest_pivot[0] = 1;
    }
    assert_int_equal(
        onescope_ots_clip_set_peg_text(c, N + 1, ONESCOPE_OTS_TEXT_PARENT, "same", &err), 0);
    onescope_pose_cache *pc;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_OK);
    assert_true(onescope_pose_cache_pose(pc, 0, N + 1)->position[0] == 1.0f); /* not composed */
    onescope_pose_cache_free(pc);
    /* a name only one rig uses is found across rig tags */
    assert_int_equal(
        onescope_ots_clip_set_peg_text(c, N + 1, ONESCOPE_OTS_TEXT_PARENT, "only", &err), 0);
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_OK);
    assert_true(onescope_pose_cache_pose(pc, 0, N + 1)->position[0] == 2.0f); /* composed */
    onescope_pose_cache_free(pc);
    onescope_ots_clip_free(c);
}

/* A chain of 5000 pegs listed child first: parents are still baked before their children. */
static void long_parent_chain(void **state) {
    (void)state;
    enum { N = 5000 };
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(N, 0, NULL, &c, &err), ONESCOPE_OK);
    c->frame_range[0] = 3;
    c->frame_range[1] = 4;
    for (size_t i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%zu", i);
        assert_int_equal(onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, name, &err),
                         0);
        if (i + 1 < N) {
            snprintf(name, sizeof name, "p%zu", i + 1);
            assert_int_equal(
                onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_PARENT, name, &err), 0);
        }
        c->pegs[i].rest_pivot[0] = 1;
    }
    onescope_pose_cache *pc;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_OK);
    for (uint32_t i = 0; i < N; i += 499)
        assert_true(onescope_pose_cache_pose(pc, 1, i)->position[0] == (float)(N - i));
    assert_true(pc->start_step == 3);
    onescope_pose_cache_free(pc);
    /* close the chain into a loop: refused */
    assert_int_equal(onescope_ots_clip_set_peg_text(c, N - 1, ONESCOPE_OTS_TEXT_PARENT, "p0", &err),
                     0);
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    onescope_ots_clip_free(c);
}

/* ---- generated rigs and clips: byte-stable rewrites ---- */

static double rnd(uint64_t *s) {
    return (double)(test_rand(s) >> 11) / 9007199254740992.0;
}

/* Values of every shape the writer must print: whole, short decimals, full doubles, tiny. */
static double rnd_value(uint64_t *s) {
    switch (test_rand(s) % 6) {
        case 0: return (double)(int)(test_rand(s) % 200) - 100;
        case 1: return (double)((int)(test_rand(s) % 2000) - 1000) / 8.0;
        case 2: return (rnd(s) - 0.5) * 1e3;
        case 3: return (double)(float)((rnd(s) - 0.5) * 10);
        case 4: return (rnd(s) - 0.5) * 1e-300;
        default: return (rnd(s) - 0.5) * 1e25;
    }
}

static void set(onescope_ots_clip *c, size_t peg, onescope_ots_text field, const char *text) {
    onescope_error err;
    assert_int_equal(onescope_ots_clip_set_peg_text(c, peg, field, text, &err), ONESCOPE_OK);
}

static void set_camera(onescope_ots_clip *c, size_t camera, onescope_ots_text field,
                       const char *text) {
    onescope_error err;
    assert_int_equal(onescope_ots_clip_set_camera_text(c, camera, field, text, &err), ONESCOPE_OK);
}

static onescope_ots_clip *make_clip(uint64_t seed, size_t pegs, size_t keys,
                                    const onescope_allocator *a) {
    onescope_ots_clip *c;
    onescope_error err;
    uint64_t s = seed;
    assert_int_equal(onescope_ots_clip_create(pegs, 2, a, &c, &err), ONESCOPE_OK);
    c->header.source = ONESCOPE_OTS_SOURCE_MAYA;
    c->header.fps = 29.97;
    c->frame_range[0] = 0;
    c->frame_range[1] = (int32_t)(keys * 2);
    for (size_t i = 0; i < pegs; i++) {
        onescope_ots_peg *p = &c->pegs[i];
        char name[64];
        snprintf(name, sizeof name, i % 7 == 3 ? "peg \"%zu\"\t\xc3\xa9\x01" : "peg-%zu", i);
        set(c, i, ONESCOPE_OTS_TEXT_NAME, name);
        if (i > 0) {
            snprintf(name, sizeof name, i % 7 == 4 ? "peg \"%zu\"\t\xc3\xa9\x01" : "peg-%zu",
                     (size_t)(test_rand(&s) % i));
            set(c, i, ONESCOPE_OTS_TEXT_PARENT, name);
        }
        if (i % 2) set(c, i, ONESCOPE_OTS_TEXT_PATH, "Top/group/peg");
        if (i % 3) set(c, i, ONESCOPE_OTS_TEXT_RIG, "rig");
        p->is_camera = i % 5 == 0;
        for (int k = 0; k < 3; k++) p->rest_pivot[k] = rnd_value(&s);
        p->rest_rotation[0] = 0.5;
        p->rest_rotation[3] = -0.5;
        if (i % 4 == 1) {
            p->has_source_modes = true;
            set(c, i, ONESCOPE_OTS_TEXT_SOURCE_POSITION, "separate");
            set(c, i, ONESCOPE_OTS_TEXT_SOURCE_ROTATION, "quaternion_path");
            set(c, i, ONESCOPE_OTS_TEXT_SOURCE_SCALE, "separate");
            p->source_modes.enable_3d = i % 8 == 1;
        }
        assert_int_equal(onescope_ots_clip_set_keyframe_count(c, i, keys, &err), ONESCOPE_OK);
        for (size_t j = 0; j < keys; j++) {
            onescope_ots_keyframe *k = &p->keyframes[j];
            k->frame = (int32_t)(j * 2 + (test_rand(&s) % 2));
            for (int ax = 0; ax < 3; ax++) {
                k->pos[ax] = rnd_value(&s);
                k->rot[ax] = rnd_value(&s);
                k->scl[ax] = rnd_value(&s);
            }
            k->has_rot = test_rand(&s) % 4 != 0;
            k->has_rot_quat = !k->has_rot || test_rand(&s) % 2;
            for (int q = 0; q < 4; q++) k->rot_quat[q] = rnd(&s) + 0.01;
            k->interp = (onescope_ots_interp)(test_rand(&s) % 3);
            for (int ch = 0; ch < 3; ch++) {
                k->handle_axes[ch] = test_rand(&s) % 2 ? 3 : 0;
                for (int ax = 0; ax < k->handle_axes[ch]; ax++) {
                    onescope_ots_handle *h = &k->handles[ch][ax];
                    h->present = test_rand(&s) % 4 != 0;
                    h->left[0] = k->frame - rnd(&s);
                    h->left[1] = rnd_value(&s);
                    h->right[0] = k->frame + rnd(&s);
                    h->right[1] = rnd_value(&s);
                }
            }
        }
    }
    for (size_t i = 0; i < 2; i++) {
        onescope_ots_camera *k = &c->cameras[i];
        set_camera(c, i, ONESCOPE_OTS_TEXT_NAME, i ? "cam-b" : "cam-a");
        set_camera(c, i, ONESCOPE_OTS_TEXT_PEG, "peg-0");
        if (i) set_camera(c, i, ONESCOPE_OTS_TEXT_RIG, "rig");
        k->fov = rnd_value(&s);
        k->fov_axis = (onescope_ots_fov_axis)i;
        k->far_field = 1e-7;
        k->offset_y = -0.0;
        k->is_default = i == 0;
        k->override_fov = i == 1;
    }
    return c;
}

static onescope_buffer write_clip_ok(const onescope_ots_clip *c) {
    onescope_buffer b;
    onescope_error err;
    if (onescope_ots_clip_write(c, NULL, &b, &err) != ONESCOPE_OK) fail_msg("%s", fmt(&err));
    return b;
}

static void keyframes_equal(const onescope_ots_keyframe *a, const onescope_ots_keyframe *b) {
    assert_int_equal(a->frame, b->frame);
    assert_int_equal(a->interp, b->interp);
    assert_int_equal(a->has_rot, b->has_rot);
    assert_int_equal(a->has_rot_quat, b->has_rot_quat);
    for (int i = 0; i < 3; i++) {
        assert_true(a->pos[i] == b->pos[i]);
        assert_true(a->scl[i] == b->scl[i]);
        if (a->has_rot) assert_true(a->rot[i] == b->rot[i]);
        assert_int_equal(a->handle_axes[i], b->handle_axes[i]);
        for (int ax = 0; ax < a->handle_axes[i]; ax++) {
            assert_int_equal(a->handles[i][ax].present, b->handles[i][ax].present);
            if (a->handles[i][ax].present)
                assert_memory_equal(a->handles[i][ax].left, b->handles[i][ax].left,
                                    sizeof a->handles[i][ax].left);
        }
    }
    if (a->has_rot_quat) assert_memory_equal(a->rot_quat, b->rot_quat, sizeof a->rot_quat);
}

static void generated_clip_round_trip(void **state) {
    (void)state;
    onescope_ots_clip *c = make_clip(42, 300, 12, NULL); /* 300 pegs, 3600 keyframes */
    onescope_buffer b = write_clip_ok(c);
    onescope_ots_clip *d = parse_clip_ok((const char *)b.data, b.size);
    assert_int_equal(d->peg_count, 300);
    for (size_t i = 0; i < 300; i++) {
        assert_string_equal(c->pegs[i].name, d->pegs[i].name);
        assert_int_equal(c->pegs[i].keyframe_count, d->pegs[i].keyframe_count);
        assert_memory_equal(c->pegs[i].rest_pivot, d->pegs[i].rest_pivot,
                            sizeof c->pegs[i].rest_pivot);
        for (size_t j = 0; j < c->pegs[i].keyframe_count; j++)
            keyframes_equal(&c->pegs[i].keyframes[j], &d->pegs[i].keyframes[j]);
    }
    assert_true(signbit(d->cameras[0].offset_y));
    onescope_buffer b2 = write_clip_ok(d);
    assert_int_equal(b.size, b2.size);
    assert_memory_equal(b.data, b2.data, b.size);
    /* the escaped name is valid JSON text: a control character as \u0001 */
    assert_true(has(&b, "\"peg \\\"3\\\"\\u0009\xc3\xa9\\u0001\""));
    onescope_buffer_free(&b);
    onescope_buffer_free(&b2);
    onescope_ots_clip_free(c);
    onescope_ots_clip_free(d);
}

static void generated_rig_round_trip(void **state) {
    (void)state;
    uint64_t s = 7;
    onescope_ots_rig *r;
    onescope_error err;
    assert_int_equal(onescope_ots_rig_create(500, 1, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_name(r, "ship", &err), ONESCOPE_OK);
    r->scale_factor = 2.54;
    r->pivot_space = ONESCOPE_OTS_PIVOT_ARMATURE;
    for (size_t i = 0; i < 500; i++) {
        char name[32];
        snprintf(name, sizeof name, "bone%zu", i);
        assert_int_equal(onescope_ots_rig_set_bone_text(r, i, ONESCOPE_OTS_TEXT_NAME, name, &err),
                         ONESCOPE_OK);
        if (i) {
            snprintf(name, sizeof name, "bone%zu", (size_t)(test_rand(&s) % i));
            assert_int_equal(
                onescope_ots_rig_set_bone_text(r, i, ONESCOPE_OTS_TEXT_PARENT, name, &err),
                ONESCOPE_OK);
        }
        for (int k = 0; k < 3; k++) r->bones[i].pivot[k] = rnd_value(&s);
        r->bones[i].is_camera = i == 9;
    }
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 0, ONESCOPE_OTS_TEXT_NAME, "cam", &err),
                     ONESCOPE_OK);
    onescope_buffer b, b2, b3;
    assert_int_equal(onescope_ots_rig_write(r, NULL, &b, &err), ONESCOPE_OK);
    onescope_ots_rig *d = parse_rig_ok((const char *)b.data, b.size);
    assert_int_equal(onescope_ots_rig_write(d, NULL, &b2, &err), ONESCOPE_OK);
    onescope_ots_rig *e = parse_rig_ok((const char *)b2.data, b2.size);
    assert_int_equal(onescope_ots_rig_write(e, NULL, &b3, &err), ONESCOPE_OK);
    /* the writer's own output rewrites to the same bytes */
    assert_int_equal(b.size, b2.size);
    assert_memory_equal(b.data, b2.data, b.size);
    assert_memory_equal(b2.data, b3.data, b2.size);
    for (size_t i = 0; i < 500; i++)
        for (int k = 0; k < 3; k++)
            assert_true(fabs(d->bones[i].pivot[k] - r->bones[i].pivot[k]) <=
                        1e-15 * fabs(r->bones[i].pivot[k]));
    onescope_buffer_free(&b);
    onescope_buffer_free(&b2);
    onescope_buffer_free(&b3);
    onescope_ots_rig_free(r);
    onescope_ots_rig_free(d);
    onescope_ots_rig_free(e);
}

static void numbers_print_shortest(void **state) {
    (void)state;
    struct {
        double v;
        const char *text;
    } cases[] = {
        {0.1, "0.1"},
        {1.0, "1.0"},
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {24.0, "24.0"},
        {1e300, "1e+300"},
        {5e-324, "5e-324"},
        {1.0 / 3.0, "0.3333333333333333"},
        {123456.789, "123456.789"},
        {1e15, "1e+15"},
        {-2.5, "-2.5"},
        {(double)0.1f, "0.10000000149011612"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        onescope_ots_clip *c;
        onescope_error err;
        assert_int_equal(onescope_ots_clip_create(1, 0, NULL, &c, &err), ONESCOPE_OK);
        set(c, 0, ONESCOPE_OTS_TEXT_NAME, "p");
        c->pegs[0].rest_pivot[0] = cases[i].v;
        onescope_buffer b = write_clip_ok(c);
        char want[96];
        snprintf(want, sizeof want, "\"rest_pivot\": [%s, 0.0, 0.0]", cases[i].text);
        if (!has(&b, want)) fail_msg("no %s in the output", want);
        onescope_ots_clip *d = parse_clip_ok((const char *)b.data, b.size);
        assert_memory_equal(&d->pegs[0].rest_pivot[0], &cases[i].v, sizeof(double));
        onescope_buffer_free(&b);
        onescope_ots_clip_free(c);
        onescope_ots_clip_free(d);
    }
}

static void validator_refuses_what_parser_would(void **state) {
    (void)state;
    onescope_ots_clip *c = make_clip(1, 3, 4, NULL);
    onescope_buffer b;
    onescope_error err;
    c->pegs[2].keyframes[1].pos[1] = NAN;
    assert_int_equal(onescope_ots_clip_write(c, NULL, &b, &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.field, "pegs[2].keyframes[1].pos[1]");
    assert_null(b.data);
    c->pegs[2].keyframes[1].pos[1] = 0;
    c->pegs[1].keyframes[2].interp = (onescope_ots_interp)7;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "pegs[1].keyframes[2].interp");
    c->pegs[1].keyframes[2].interp = ONESCOPE_OTS_LINEAR;
    c->pegs[1].keyframes[2].handle_axes[1] = 2;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_LENGTH);
    c->pegs[1].keyframes[2].handle_axes[1] = 0;
    c->pegs[1].keyframes[2].has_rot = c->pegs[1].keyframes[2].has_rot_quat = false;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_TYPE);
    c->pegs[1].keyframes[2].has_rot = true;
    onescope_os_free(NULL, c->pegs[0].name);
    c->pegs[0].name = NULL;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_TYPE);
    assert_string_equal(err.field, "pegs[0].name");
    set(c, 0, ONESCOPE_OTS_TEXT_NAME, "bad \xff");
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_UTF8);
    set(c, 0, ONESCOPE_OTS_TEXT_NAME, "peg-0");
    c->header.fps = 0;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_E_RANGE);
    c->header.fps = 24;
    assert_int_equal(onescope_ots_clip_validate(c, "c", &err), ONESCOPE_OK);
    onescope_ots_clip_free(c);
    onescope_ots_clip_free(NULL);
    onescope_ots_rig_free(NULL);
}

/* Validates and expects code with the JSON path field (NULL: any field). */
#define EXPECT_RIG(r, want, path)                                                                  \
    expect_validate(onescope_ots_rig_validate((r), "v", &err), &err, (want), (path))
#define EXPECT_CLIP(k, want, path)                                                                 \
    expect_validate(onescope_ots_clip_validate((k), "v", &err), &err, (want), (path))
static void expect_validate(onescope_code rc, const onescope_error *err, onescope_code want,
                            const char *path) {
    if (rc != want ||
        (want != ONESCOPE_OK && (err->code != want || (path && strcmp(err->field, path) != 0))))
        fail_msg("wanted %s at %s, got %s: %s", onescope_error_name(want), path ? path : "-",
                 onescope_error_name(rc), rc == ONESCOPE_OK ? "" : fmt(err));
}

/* Names crafted so the old unseeded FNV-1a put them all in one probe chain (issue 14): the
 * collisions are real, the checks stay within n log n name comparisons, and the duplicate
 * reported is still the lowest index that repeats an earlier name. */
static void colliding_names_stay_n_log_n(void **state) {
    (void)state;
    enum { STAGES = 13, N = 1 << STAGES, LOG2N = STAGES };
    fnv_names f;
    assert_int_equal(fnv_names_make(&f, STAGES), 0);
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(N, 0, NULL, &c, &err), ONESCOPE_OK);
    c->frame_range[1] = 0;
    char name[4 * STAGES + 1], first[4 * STAGES + 1];
    fnv_names_get(&f, 0, first);
    for (size_t i = 0; i < N; i++) {
        fnv_names_get(&f, i, name);
        assert_true((uint32_t)fnv_names_old_hash(name) == (uint32_t)fnv_names_old_hash(first));
        assert_int_equal(onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, name, &err),
                         ONESCOPE_OK);
        if (i > 0) { /* a chain: every peg's parent is the one before */
            fnv_names_get(&f, i - 1, name);
            assert_int_equal(
                onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_PARENT, name, &err),
                ONESCOPE_OK);
        }
    }
    unsigned long before = onescope_os_ots_name_compares();
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    unsigned long used = onescope_os_ots_name_compares() - before;
    /* sort n log n, duplicate scan 2n, one binary search (log n + 1) per parent */
    assert_true(used > 0 && used <= 3ul * N * LOG2N);
    /* two duplicates: the second occurrence with the lower index is reported */
    fnv_names_get(&f, 1000, name);
    assert_int_equal(onescope_ots_clip_set_peg_text(c, N - 1, ONESCOPE_OTS_TEXT_NAME, name, &err),
                     ONESCOPE_OK);
    fnv_names_get(&f, 7000, name);
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 5000, ONESCOPE_OTS_TEXT_NAME, name, &err),
                     ONESCOPE_OK);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "pegs[7000].name");
    assert_non_null(strstr(err.found, "again (first at pegs[5000])"));
    onescope_ots_clip_free(c);
}

/* Three of a name, and duplicates among cameras: the first repeat in file order, naming the
 * first occurrence. */
static void duplicate_is_the_first_repeat(void **state) {
    (void)state;
    static const char *const pegs[] = {"x", "y", "a", "a", "y", "a"};
    static const char *const cams[] = {"k", "m", "m", "k"};
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(6, 4, NULL, &c, &err), ONESCOPE_OK);
    c->frame_range[1] = 0;
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(
            onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, pegs[i], &err), 0);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(
            onescope_ots_clip_set_camera_text(c, i, ONESCOPE_OTS_TEXT_NAME, cams[i], &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "cameras[2].name");
    assert_non_null(strstr(err.found, "\"m\" again (first at cameras[1])"));
    assert_int_equal(onescope_ots_clip_set_camera_text(c, 2, ONESCOPE_OTS_TEXT_NAME, "n", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "cameras[3].name");
    assert_non_null(strstr(err.found, "\"k\" again (first at cameras[0])"));
    assert_int_equal(onescope_ots_clip_set_camera_text(c, 3, ONESCOPE_OTS_TEXT_NAME, "o", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "pegs[3].name");
    assert_non_null(strstr(err.found, "\"a\" again (first at pegs[2])"));
    /* the same name under another rig tag is another name */
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 3, ONESCOPE_OTS_TEXT_RIG, "r", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "pegs[4].name");
    assert_non_null(strstr(err.found, "\"y\" again (first at pegs[1])"));
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 4, ONESCOPE_OTS_TEXT_NAME, "z", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "pegs[5].name");
    assert_non_null(strstr(err.found, "\"a\" again (first at pegs[2])"));
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 5, ONESCOPE_OTS_TEXT_RIG, "r2", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    onescope_ots_clip_free(c);
}

/* A parent is looked up in the child's own rig tag first, then across rig tags when only
 * one element has the name. */
static void parent_lookup_prefers_own_rig(void **state) {
    (void)state;
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(3, 0, NULL, &c, &err), ONESCOPE_OK);
    c->frame_range[1] = 0;
    static const char *const fields[3][3] = {{"a", "r1", "b"}, {"b", "r1", NULL}, {"b", "r2", "a"}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(
            onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, fields[i][0], &err), 0);
        assert_int_equal(
            onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_RIG, fields[i][1], &err), 0);
        assert_int_equal(
            onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_PARENT, fields[i][2], &err), 0);
    }
    EXPECT_CLIP(c, ONESCOPE_OK, NULL); /* 2 -> 0 (only "a") -> 1 (r1's "b"), no loop */
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 1, ONESCOPE_OTS_TEXT_NAME, "c", &err), 0);
    EXPECT_CLIP(c, ONESCOPE_E_RANGE, "pegs[0].parent"); /* now 0 -> 2 (the only "b") -> 0 */
    onescope_ots_clip_free(c);
}

/* Every rig rule the validator checks, one field at a time, each restored afterwards. */
static void validator_checks_every_rig_field(void **state) {
    (void)state;
    onescope_error err;
    onescope_ots_rig *r;
    assert_int_equal(onescope_ots_rig_create(2, 2, NULL, &r, &err), ONESCOPE_OK);
    /* a created rig has no name yet: "none" where a string is required */
    EXPECT_RIG(r, ONESCOPE_E_TYPE, "name");
    assert_int_equal(onescope_ots_rig_set_name(r, "bad \xc3", &err), ONESCOPE_OK);
    EXPECT_RIG(r, ONESCOPE_E_UTF8, "name");
    assert_int_equal(onescope_ots_rig_set_name(r, "ship", &err), ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_bone_text(r, 0, ONESCOPE_OTS_TEXT_NAME, "hip", &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_bone_text(r, 1, ONESCOPE_OTS_TEXT_NAME, "leg", &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_bone_text(r, 1, ONESCOPE_OTS_TEXT_PARENT, "hip", &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 0, ONESCOPE_OTS_TEXT_NAME, "cam-a", &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, ONESCOPE_OTS_TEXT_NAME, "cam-b", &err),
                     ONESCOPE_OK);
    EXPECT_RIG(r, ONESCOPE_OK, NULL);

    r->header.source = (onescope_ots_source)3;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "source");
    r->header.source = ONESCOPE_OTS_SOURCE_MAYA;
    r->header.fps = INFINITY;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "fps");
    r->header.fps = 30;
    onescope_ots_coordinate_system *cs = &r->header.coordinate_system;
    cs->up = (onescope_ots_up)3;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.up");
    cs->up = ONESCOPE_OTS_UP_Z;
    cs->hand = (onescope_ots_hand)2;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.hand");
    cs->hand = ONESCOPE_OTS_HAND_LEFT;
    cs->unit = (onescope_ots_unit)1;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.unit");
    cs->unit = ONESCOPE_OTS_UNIT_METERS;
    cs->rot_order = (onescope_ots_rot_order)6;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.rot_order");
    cs->rot_order = ONESCOPE_OTS_ROT_ZYX;
    cs->rot_repr_anim = (onescope_ots_rot_repr)2;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.rot_repr_anim");
    cs->rot_repr_anim = ONESCOPE_OTS_REPR_QUAT_WXYZ;
    cs->rot_repr_rest = (onescope_ots_rot_repr)-1;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "coordinate_system.rot_repr_rest");
    cs->rot_repr_rest = ONESCOPE_OTS_REPR_EULER_DEG;
    EXPECT_RIG(r, ONESCOPE_OK, NULL);

    r->scale_factor = NAN;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "scale_factor");
    r->scale_factor = -1;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "scale_factor");
    r->scale_factor = 4;
    r->pivot_space = (onescope_ots_pivot_space)2;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "pivot_space");
    r->pivot_space = ONESCOPE_OTS_PIVOT_ARMATURE;

    onescope_ots_bone *bones = r->bones;
    r->bones = NULL;
    EXPECT_RIG(r, ONESCOPE_E_ARGUMENT, "bones");
    r->bones = bones;
    onescope_ots_camera *cams = r->cameras;
    r->cameras = NULL;
    EXPECT_RIG(r, ONESCOPE_E_ARGUMENT, "cameras");
    r->cameras = cams;

    onescope_ots_bone *b = &r->bones[1];
    char **texts[3] = {&b->parent, &b->path, &b->rig};
    const onescope_ots_text fields[3] = {ONESCOPE_OTS_TEXT_PARENT, ONESCOPE_OTS_TEXT_PATH,
                                         ONESCOPE_OTS_TEXT_RIG};
    const char *paths[3] = {"bones[1].parent", "bones[1].path", "bones[1].rig"};
    for (int i = 0; i < 3; i++) {
        char *keep = *texts[i];
        *texts[i] = NULL;
        assert_int_equal(onescope_ots_rig_set_bone_text(r, 1, fields[i], "\xff", &err),
                         ONESCOPE_OK);
        EXPECT_RIG(r, ONESCOPE_E_UTF8, paths[i]);
        onescope_os_free(NULL, *texts[i]);
        *texts[i] = keep;
    }
    b->pivot[2] = NAN;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "bones[1].pivot[2]");
    /* finite alone, not once multiplied by scale_factor */
    b->pivot[2] = 1e308;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "bones[1].pivot[2]");
    b->pivot[2] = 0;
    b->rotation[0] = 0;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "bones[1].rotation");
    b->rotation[3] = -1; /* only z: a valid rotation */
    EXPECT_RIG(r, ONESCOPE_OK, NULL);
    b->rotation[3] = 0;
    b->rotation[2] = 1;
    EXPECT_RIG(r, ONESCOPE_OK, NULL);
    b->rotation[1] = INFINITY;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "bones[1].rotation[1]");
    b->rotation[1] = 0;

    onescope_ots_camera *k = &r->cameras[1];
    char **ktexts[3] = {&k->peg, &k->path, &k->rig};
    const onescope_ots_text kfields[3] = {ONESCOPE_OTS_TEXT_PEG, ONESCOPE_OTS_TEXT_PATH,
                                          ONESCOPE_OTS_TEXT_RIG};
    const char *kpaths[3] = {"cameras[1].peg", "cameras[1].path", "cameras[1].rig"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, kfields[i], "a\xc0\x80", &err),
                         ONESCOPE_OK);
        EXPECT_RIG(r, ONESCOPE_E_UTF8, kpaths[i]);
        assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, kfields[i], NULL, &err),
                         ONESCOPE_OK);
        assert_null(*ktexts[i]);
    }
    k->fov_axis = (onescope_ots_fov_axis)2;
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "cameras[1].fov_axis");
    k->fov_axis = ONESCOPE_OTS_FOV_HORIZONTAL;
    k->pivot_y = -INFINITY;
    EXPECT_RIG(r, ONESCOPE_E_NOT_FINITE, "cameras[1].pivot_y");
    k->pivot_y = 0;
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, ONESCOPE_OTS_TEXT_NAME, "cam-a", &err),
                     ONESCOPE_OK);
    EXPECT_RIG(r, ONESCOPE_E_DUPLICATE, NULL);
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, ONESCOPE_OTS_TEXT_NAME, "", &err),
                     ONESCOPE_OK);
    EXPECT_RIG(r, ONESCOPE_E_RANGE, "cameras[1].name");
    assert_int_equal(onescope_ots_rig_set_camera_text(r, 1, ONESCOPE_OTS_TEXT_NAME, "cam-b", &err),
                     ONESCOPE_OK);
    EXPECT_RIG(r, ONESCOPE_OK, NULL);

    /* the writer validates first and leaves the buffer empty */
    onescope_buffer out;
    r->bones[0].pivot[0] = NAN;
    assert_int_equal(onescope_ots_rig_write(r, NULL, &out, &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.field, "bones[0].pivot[0]");
    assert_null(out.data);
    assert_int_equal(out.size, 0);
    onescope_ots_rig_free(r);
}

/* Every clip rule the validator checks that the parser test does not reach. */
static void validator_checks_every_clip_field(void **state) {
    (void)state;
    onescope_error err;
    onescope_ots_clip *c = make_clip(5, 3, 3, NULL);
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    c->header.fps = NAN;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "fps");
    c->header.fps = 25;
    c->frame_range[0] = 7;
    c->frame_range[1] = 6;
    EXPECT_CLIP(c, ONESCOPE_E_RANGE, "frame_range");
    c->frame_range[1] = 7;
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);

    onescope_ots_peg *pegs = c->pegs;
    c->pegs = NULL;
    EXPECT_CLIP(c, ONESCOPE_E_ARGUMENT, "pegs");
    c->pegs = pegs;
    onescope_ots_camera *cams = c->cameras;
    c->cameras = NULL;
    EXPECT_CLIP(c, ONESCOPE_E_ARGUMENT, NULL);
    c->cameras = cams;

    onescope_ots_peg *p = &c->pegs[1]; /* peg 1 has source modes (make_clip: i % 4 == 1) */
    assert_true(p->has_source_modes);
    char **texts[3] = {&p->path, &p->parent, &p->rig};
    const onescope_ots_text fields[3] = {ONESCOPE_OTS_TEXT_PATH, ONESCOPE_OTS_TEXT_PARENT,
                                         ONESCOPE_OTS_TEXT_RIG};
    const char *paths[3] = {"pegs[1].path", "pegs[1].parent", "pegs[1].rig"};
    for (int i = 0; i < 3; i++) {
        char *keep = *texts[i];
        *texts[i] = NULL;
        set(c, 1, fields[i], "\xed\xa0\x80"); /* a UTF-16 surrogate */
        EXPECT_CLIP(c, ONESCOPE_E_UTF8, paths[i]);
        onescope_os_free(NULL, *texts[i]);
        *texts[i] = keep;
    }
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    char **modes[3] = {&p->source_modes.position, &p->source_modes.rotation,
                       &p->source_modes.scale};
    const char *mpaths[3] = {"pegs[1].source_modes.position", "pegs[1].source_modes.rotation",
                             "pegs[1].source_modes.scale"};
    for (int i = 0; i < 3; i++) {
        char *keep = *modes[i];
        *modes[i] = NULL;
        EXPECT_CLIP(c, ONESCOPE_E_TYPE, mpaths[i]);
        *modes[i] = keep;
    }
    p->rest_pivot[1] = NAN;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "pegs[1].rest_pivot[1]");
    p->rest_pivot[1] = 0;
    double keep_rot[4];
    memcpy(keep_rot, p->rest_rotation, sizeof keep_rot);
    memset(p->rest_rotation, 0, sizeof p->rest_rotation);
    EXPECT_CLIP(c, ONESCOPE_E_RANGE, "pegs[1].rest_rotation");
    memcpy(p->rest_rotation, keep_rot, sizeof keep_rot);

    onescope_ots_keyframe *keys = p->keyframes;
    p->keyframes = NULL;
    EXPECT_CLIP(c, ONESCOPE_E_ARGUMENT, "keyframes");
    p->keyframes = keys;
    onescope_ots_keyframe *k = &keys[1];
    k->has_rot = true;
    k->rot[2] = NAN;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "pegs[1].keyframes[1].rot[2]");
    k->rot[2] = 0;
    k->has_rot_quat = true;
    memset(k->rot_quat, 0, sizeof k->rot_quat);
    EXPECT_CLIP(c, ONESCOPE_E_RANGE, "pegs[1].keyframes[1].rot_quat");
    k->rot_quat[0] = 1;
    k->scl[0] = INFINITY;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "pegs[1].keyframes[1].scl[0]");
    k->scl[0] = 1;
    k->handle_axes[2] = 3;
    for (int ax = 0; ax < 3; ax++) {
        k->handles[2][ax].present = true;
        k->handles[2][ax].left[0] = k->handles[2][ax].right[0] = k->frame;
        k->handles[2][ax].left[1] = k->handles[2][ax].right[1] = 1;
    }
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    k->handles[2][1].left[1] = NAN;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "pegs[1].keyframes[1].handles.scl[1][0][1]");
    k->handles[2][1].left[1] = 1;
    k->handles[2][2].right[0] = -INFINITY;
    EXPECT_CLIP(c, ONESCOPE_E_NOT_FINITE, "pegs[1].keyframes[1].handles.scl[2][1][0]");
    k->handles[2][2].right[0] = k->frame;
    /* frames strictly increase: equal is a duplicate, smaller out of range */
    int32_t f = keys[2].frame;
    keys[2].frame = k->frame;
    EXPECT_CLIP(c, ONESCOPE_E_DUPLICATE, "pegs[1].keyframes[2].frame");
    keys[2].frame = k->frame - 1;
    EXPECT_CLIP(c, ONESCOPE_E_RANGE, "pegs[1].keyframes[2].frame");
    keys[2].frame = f;
    EXPECT_CLIP(c, ONESCOPE_OK, NULL);
    onescope_ots_clip_free(c);
}

/* NULL where a pointer is required, and sizes the API cannot hold: argument errors. */
static void arguments_are_checked(void **state) {
    (void)state;
    onescope_error err;
    onescope_buffer b;
    onescope_ots_rig *r = parse_rig_ok(rig_text, strlen(rig_text));
    onescope_ots_clip *c = parse_clip_ok(clip_text, strlen(clip_text));
    /* setters: NULL objects, indexes past the count, fields the element lacks */
    assert_int_equal(onescope_ots_rig_set_name(NULL, "x", &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_rig_set_bone_text(NULL, 0, ONESCOPE_OTS_TEXT_NAME, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_rig_set_camera_text(NULL, 0, ONESCOPE_OTS_TEXT_NAME, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_set_peg_text(NULL, 0, ONESCOPE_OTS_TEXT_NAME, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_set_camera_text(NULL, 0, ONESCOPE_OTS_TEXT_NAME, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(
        onescope_ots_rig_set_bone_text(r, r->bone_count, ONESCOPE_OTS_TEXT_NAME, "x", &err),
        ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "bone index");
    assert_int_equal(
        onescope_ots_rig_set_camera_text(r, r->camera_count, ONESCOPE_OTS_TEXT_NAME, "x", &err),
        ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "camera index");
    assert_int_equal(
        onescope_ots_clip_set_peg_text(c, c->peg_count, ONESCOPE_OTS_TEXT_NAME, "x", &err),
        ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "peg index");
    assert_int_equal(
        onescope_ots_clip_set_camera_text(c, c->camera_count, ONESCOPE_OTS_TEXT_NAME, "x", &err),
        ONESCOPE_E_RANGE);
    assert_int_equal(onescope_ots_rig_set_bone_text(r, 0, ONESCOPE_OTS_TEXT_PEG, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "field");
    assert_int_equal(onescope_ots_clip_set_peg_text(c, 0, ONESCOPE_OTS_TEXT_PEG, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.found, "4, which is not a text field of a peg");
    assert_int_equal(onescope_ots_clip_set_camera_text(c, 0, ONESCOPE_OTS_TEXT_PARENT, "x", &err),
                     ONESCOPE_E_ARGUMENT);
    /* a setter on an existing element replaces its text (the old one is freed) */
    assert_int_equal(
        onescope_ots_clip_set_peg_text(c, 0, ONESCOPE_OTS_TEXT_SOURCE_SCALE, "s", &err),
        ONESCOPE_OK);
    assert_string_equal(c->pegs[0].source_modes.scale, "s");
    assert_int_equal(
        onescope_ots_clip_set_peg_text(c, 0, ONESCOPE_OTS_TEXT_SOURCE_SCALE, NULL, &err),
        ONESCOPE_OK);
    assert_null(c->pegs[0].source_modes.scale);
    assert_int_equal(onescope_ots_rig_create(1, 0, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_create(1, 0, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_set_keyframe_count(NULL, 0, 1, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_set_keyframe_count(c, c->peg_count, 1, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "peg index");
    assert_int_equal(onescope_ots_clip_set_keyframe_count(c, 0, (size_t)INT32_MAX + 1, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "count");
    assert_int_equal(c->pegs[0].keyframe_count, 0); /* unchanged */
    assert_int_equal(onescope_ots_rig_validate(NULL, "r", &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_validate(NULL, "c", &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_rig_parse(rig_text, strlen(rig_text), "r", NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_parse(clip_text, strlen(clip_text), "c", NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_ots_clip *none = (onescope_ots_clip *)1;
    assert_int_equal(onescope_ots_clip_parse(NULL, 5, "c", NULL, &none, &err), ONESCOPE_E_ARGUMENT);
    assert_null(none);
    /* NULL with size 0 is the empty text: a syntax error at 1:1, not an argument error */
    assert_int_equal(onescope_ots_clip_parse(NULL, 0, "c", NULL, &none, &err), ONESCOPE_E_SYNTAX);
    assert_int_equal(onescope_ots_rig_write(r, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_write(c, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_rig_write(NULL, NULL, &b, &err), ONESCOPE_E_ARGUMENT);
    assert_null(b.data);
    /* detect: a quick look that never reads past size */
    assert_int_equal(onescope_ots_detect(NULL, 10), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("  ", 2), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("{\"a\": 1}", 8), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("{\"format\", \"format\": \"octo_anm\"}", 32),
                     ONESCOPE_OTS_ANM);
    assert_int_equal(onescope_ots_detect("{\"format\": \"octo_pvt\"}", 20), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("{\"form", 6), ONESCOPE_OTS_NONE);
    assert_int_equal(onescope_ots_detect("{\"format\": \"octo_pvt_v5\"}", 25), ONESCOPE_OTS_NONE);
    onescope_ots_rig_free(r);
    onescope_ots_clip_free(c);
}

/* A value of the wrong JSON type wherever the reader takes one, and the type it names. */
static void wrong_types_everywhere(void **state) {
    (void)state;
    expect_clip_edit("\"fps\": 24.0", "\"fps\": true", ONESCOPE_E_TYPE, "fps", 6, 10);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": false", ONESCOPE_E_TYPE, "fps", 6, 10);
    expect_clip_edit("\"fps\": 24.0", "\"fps\": 24", ONESCOPE_OK, NULL, 0,
                     0); /* an integer is a number */
    expect_clip_edit(
        "\"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\",\n"
        "    \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
        "\"quat_wxyz\"}",
        "\"coordinate_system\": 5", ONESCOPE_E_TYPE, "coordinate_system", 7, 24);
    expect_clip_edit("\"up\": \"y\"", "\"up\": 1", ONESCOPE_E_TYPE, "coordinate_system.up", 0, 0);
    expect_clip_edit("\"pegs\": [", "\"pegs\": [7, ", ONESCOPE_E_TYPE, "pegs[0]", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": 1", ONESCOPE_E_TYPE,
                     "frame_range", 5, 18);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [1, 10.5]", ONESCOPE_E_TYPE,
                     "frame_range[1]", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [1, 1e30]", ONESCOPE_E_TYPE,
                     "frame_range[1]", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [-1e30, 10]", ONESCOPE_E_TYPE,
                     "frame_range[0]", 0, 0);
    expect_clip_edit("\"frame_range\": [1, 10]", "\"frame_range\": [1, 1e10]", ONESCOPE_E_RANGE,
                     "frame_range[1]", 0, 0);
    expect_clip_edit("\"pos\": [1.0, 2.0, 3.0]", "\"pos\": [1.0, null, 3.0]", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[1].pos[1]", 0, 0);
    expect_clip_edit("\"path\": \"Top/hip-P\"", "\"path\": 5", ONESCOPE_E_TYPE, "pegs[1].path", 0,
                     0);
    /* handles: channels are arrays of axes, axes arrays of pairs */
    expect_clip_edit("\"pos\": []", "\"pos\": 5", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[0].handles.pos", 0, 0);
    expect_clip_edit("\"pos\": []", "\"pos\": [[], 5, []]", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[0].handles.pos[1]", 0, 0);
    expect_clip_edit("\"pos\": []", "\"pos\": [[], [[1, 2], [3, \"x\"]], []]", ONESCOPE_E_TYPE,
                     "pegs[1].keyframes[0].handles.pos[1][1][1]", 0, 0);
    /* cameras */
    expect_clip_edit("\"is_default\": true", "\"is_default\": null", ONESCOPE_E_TYPE,
                     "cameras[0].is_default", 0, 0);
    expect_clip_edit("\"is_default\": true", "\"is_default\": true, \"path\": []", ONESCOPE_E_TYPE,
                     "cameras[0].path", 0, 0);
    expect_clip_edit("\"fov\": 40.0", "\"fov\": \"wide\"", ONESCOPE_E_TYPE, "cameras[0].fov", 0, 0);
    expect_clip_edit("\"override_fov\": false", "\"override_fov\": 0", ONESCOPE_E_TYPE,
                     "cameras[0].override_fov", 0, 0);
    /* the whole .pvt */
    expect_rig_edit("\"name\": \"spaceship\",", "\"nam\": \"spaceship\",", ONESCOPE_E_TYPE, "nam");
    expect_rig_edit("\"blender\"", "\"houdini\"", ONESCOPE_E_RANGE, "source");
    expect_rig_edit(
        "\"coordinate_system\": {\"up\": \"z\", \"hand\": \"right\", \"unit\": \"meters\",\n"
        "    \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
        "\"quat_wxyz\"},",
        "", ONESCOPE_E_TYPE, "coordinate_system");
    expect_rig_edit("\"rotation\": [1.0, 0.0, 0.0, 0.0]", "\"rotation\": \"identity\"",
                    ONESCOPE_E_TYPE, "bones[0].rotation");
    expect_rig_edit("\"rotation\": [1.0, 0.0, 0.0, 0.0]", "\"rotation\": [1.0, 0.0, 0.0, true]",
                    ONESCOPE_E_TYPE, "bones[0].rotation[3]");
    {
        char *t = edit(rig_text, "\"bones\": [", "\"bones\": {\"b\": [");
        char *u = edit(t, "\"cameras\": []", "\"c\": 1}, \"cameras\": []");
        expect_error(true, u, ONESCOPE_E_TYPE, "bones", 0, 0);
        free(t);
        free(u);
    }
    expect_error(true, "{\"format\": \"octo_pvt\", \"version\": 4}", ONESCOPE_E_TYPE, "source", 0,
                 0);
    expect_error(
        true,
        "{\"format\": \"octo_pvt\", \"version\": 4, \"source\": \"maya\", \"name\": \"n\", "
        "\"scale_factor\": 1, \"pivot_space\": \"local\", \"fps\": 24, \"coordinate_system\": "
        "{\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\", \"rot_order\": \"xyz\", "
        "\"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"}, \"cameras\": []}",
        ONESCOPE_E_TYPE, "bones", 0, 0);
}

/* Pivots are stored divided by scale_factor: the quotient whose product gives the file's
 * value back when one of its neighbours does, else the plain quotient. */
static void pivots_unscale_exactly(void **state) {
    (void)state;
    char *t = edit(rig_text, "\"pivot\": [0.0, 2.0, 4.0]", "\"pivot\": [0.125, 0.7, 4.0]");
    char *u = edit(t, "\"scale_factor\": 2.0", "\"scale_factor\": 2.54");
    onescope_ots_rig *r = parse_rig_ok(u, strlen(u));
    double plain = 0.125 / 2.54;
    assert_true(plain * 2.54 != 0.125); /* the division alone does not give 0.125 back */
    assert_true(r->bones[0].pivot[0] == nextafter(plain, INFINITY));
    assert_true(r->bones[0].pivot[0] * 2.54 == 0.125);
    /* no double times 2.54 gives 0.7: the quotient as it is */
    assert_true(r->bones[0].pivot[1] == 0.7 / 2.54);
    assert_true(r->bones[0].pivot[2] * 2.54 == 4.0);
    onescope_ots_rig_free(r);
    free(t);
    free(u);
}

/* ---- interpolation against hand-computed values ---- */

static onescope_ots_clip *two_keys(onescope_ots_interp interp, double v0, double v1) {
    onescope_ots_clip *c;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_create(1, 0, NULL, &c, &err), ONESCOPE_OK);
    set(c, 0, ONESCOPE_OTS_TEXT_NAME, "p");
    assert_int_equal(onescope_ots_clip_set_keyframe_count(c, 0, 2, &err), ONESCOPE_OK);
    onescope_ots_keyframe *k = c->pegs[0].keyframes;
    k[0].frame = 10;
    k[1].frame = 20;
    k[0].interp = interp;
    k[0].pos[0] = v0;
    k[1].pos[0] = v1;
    return c;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void interpolation_modes(void **state) {
    (void)state;
    onescope_ots_sample s;
    onescope_ots_clip *c = two_keys(ONESCOPE_OTS_CONSTANT, 2, 6);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.pos[0], 2);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 20, &s);
    NEAR(s.pos[0], 6);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 5, &s); /* hold before */
    NEAR(s.pos[0], 2);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 99, &s); /* hold after */
    NEAR(s.pos[0], 6);
    onescope_ots_clip_free(c);

    c = two_keys(ONESCOPE_OTS_LINEAR, 2, 6);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 12.5, &s);
    NEAR(s.pos[0], 3); /* 2 + 4 * 0.25 */
    onescope_ots_clip_free(c);

    /* BEZIER without handles falls back to linear */
    c = two_keys(ONESCOPE_OTS_BEZIER, 2, 6);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.pos[0], 4);
    /* handles at thirds in x: x(t) = 10 + 10t, y(t) = 2(1-t)^3 + 3(1-t)^2 t 8 + 3(1-t)t^2 8 + 6t^3;
     * at frame 15, t = 0.5: (2 + 24 + 24 + 6) / 8 = 7 */
    onescope_ots_keyframe *k = c->pegs[0].keyframes;
    k[0].handle_axes[0] = k[1].handle_axes[0] = 3;
    k[0].handles[0][0] = (onescope_ots_handle){true, {0, 0}, {10.0 + 10.0 / 3.0, 8}};
    k[1].handles[0][0] = (onescope_ots_handle){true, {20.0 - 10.0 / 3.0, 8}, {30, 0}};
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.pos[0], 7);
    NEAR(s.pos[1], 0); /* the other axes have no handles entry: linear (0 to 0) */
    /* an ease curve: handles flat at the keys' values, x at 10+5 and 20-5.
     * x(t) = 10 + 15t(1-t)^2... solve x(t)=12: t from the cubic; compare to a brute-force root */
    k[0].handles[0][0] = (onescope_ots_handle){true, {0, 0}, {15, 2}};
    k[1].handles[0][0] = (onescope_ots_handle){true, {15, 6}, {30, 0}};
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 12, &s);
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; i++) {
        double t = (lo + hi) / 2, u = 1 - t;
        double x = u * u * u * 10 + 3 * u * u * t * 15 + 3 * u * t * t * 15 + t * t * t * 20;
        if (x < 12)
            lo = t;
        else
            hi = t;
    }
    double t = lo, u = 1 - t;
    NEAR(s.pos[0], u * u * u * 2 + 3 * u * u * t * 2 + 3 * u * t * t * 6 + t * t * t * 6);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.pos[0], 4); /* symmetric ease: the middle is the mean */
    /* handle frames outside the segment are clamped to its ends: right handle at 5 -> 10,
     * left handle at 30 -> 20. x(t) = 10 + 10(3t^2 - 2t^3), y(t) = bez(2, 0, 10, 6, t) */
    k[0].handles[0][0] = (onescope_ots_handle){true, {0, 0}, {5, 0}};
    k[1].handles[0][0] = (onescope_ots_handle){true, {30, 10}, {40, 0}};
    for (int i = 1; i < 10; i++) {
        double f = 10 + i;
        onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, f, &s);
        lo = 0;
        hi = 1;
        for (int j = 0; j < 200; j++) {
            double m = (lo + hi) / 2;
            if (10 + 10 * (3 * m * m - 2 * m * m * m) < f)
                lo = m;
            else
                hi = m;
        }
        t = lo;
        u = 1 - t;
        NEAR(s.pos[0], u * u * u * 2 + 3 * u * t * t * 10 + t * t * t * 6);
    }
    onescope_ots_clip_free(c);
}

static void rotation_interpolation(void **state) {
    (void)state;
    onescope_ots_sample s;
    onescope_ots_clip *c = two_keys(ONESCOPE_OTS_LINEAR, 0, 0);
    onescope_ots_keyframe *k = c->pegs[0].keyframes;
    /* quaternions: 0 -> 90 degrees about z, slerp halfway is 45 degrees */
    k[1].rot_quat[0] = cos(PI / 4);
    k[1].rot_quat[3] = sin(PI / 4);
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.rot_quat[0], cos(PI / 8));
    NEAR(s.rot_quat[3], sin(PI / 8));
    /* shortest path: the same rotation written as -q gives the same halfway pose */
    for (int i = 0; i < 4; i++) k[1].rot_quat[i] = -k[1].rot_quat[i];
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(fabs(s.rot_quat[0]), cos(PI / 8));
    NEAR(s.rot_quat[3] * s.rot_quat[0], sin(PI / 8) * cos(PI / 8));
    /* Euler only: interpolated per axis in degrees, then xyz to a quaternion */
    k[0].has_rot_quat = k[1].has_rot_quat = false;
    k[0].has_rot = k[1].has_rot = true;
    k[1].rot[0] = 90;
    k[1].rot[2] = 180;
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    double q[4], e[3] = {45, 0, 90};
    onescope_ots_euler_to_quat(e, ONESCOPE_OTS_ROT_XYZ, q);
    for (int i = 0; i < 4; i++) NEAR(s.rot_quat[i], q[i]);
    /* xyz: x first, then z. (45 about x then 90 about z) = qz * qx */
    NEAR(q[0], cos(PI / 8) * cos(PI / 4));
    NEAR(q[1], sin(PI / 8) * cos(PI / 4));
    NEAR(q[2], sin(PI / 8) * sin(PI / 4));
    NEAR(q[3], cos(PI / 8) * sin(PI / 4));
    double back[3];
    onescope_ots_quat_to_euler_xyz(q, back);
    NEAR(back[0], 45);
    NEAR(back[1], 0);
    NEAR(back[2], 90);
    /* an order outside the enum is read as xyz */
    double q2[4];
    onescope_ots_euler_to_quat(e, (onescope_ots_rot_order)6, q2);
    assert_memory_equal(q, q2, sizeof q);
    onescope_ots_euler_to_quat(e, (onescope_ots_rot_order)-1, q2);
    assert_memory_equal(q, q2, sizeof q);
    /* +-90 degrees about y: the asin argument rounds past 1 and is clamped (no NaN) */
    double ry[4] = {sqrt(0.5), 0, sqrt(0.5), 0};
    assert_true(2 * (ry[0] * ry[2]) > 1);
    onescope_ots_quat_to_euler_xyz(ry, back);
    NEAR(back[1], 90);
    ry[2] = -ry[2];
    onescope_ots_quat_to_euler_xyz(ry, back);
    NEAR(back[1], -90);
    /* rot_quat wins over rot when both are there */
    k[0].has_rot_quat = true;
    k[0].rot_quat[0] = 0;
    k[0].rot_quat[1] = 1;
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 10, &s);
    NEAR(s.rot_quat[1], 1);
    /* no keyframes: the rest pose */
    c->pegs[0].keyframe_count = 0;
    c->pegs[0].rest_pivot[1] = 3;
    onescope_ots_peg_sample(&c->pegs[0], ONESCOPE_OTS_ROT_XYZ, 15, &s);
    NEAR(s.pos[1], 3);
    NEAR(s.rot_quat[0], 1);
    c->pegs[0].keyframe_count = 2;
    onescope_ots_clip_free(c);
}

/* ---- one check per conversion ---- */

/* How many times the clip rules and the hierarchy check ran during the calls between two
 * snapshots of the library's counters (ots_internal.h). */
typedef struct runs {
    unsigned long rules, hierarchy;
} runs;
static runs runs_now(void) {
    runs r = {onescope_os_ots_clip_rule_runs(), onescope_os_ots_hierarchy_runs()};
    return r;
}
#define assert_runs(before, want_rules, want_hierarchy)                                            \
    do {                                                                                           \
        runs now_ = runs_now();                                                                    \
        assert_int_equal(now_.rules - (before).rules, (want_rules));                               \
        assert_int_equal(now_.hierarchy - (before).hierarchy, (want_hierarchy));                   \
    } while (0)

/* `onescope convert` calls the one-shot conversions: each runs the clip rules, and so the
 * hierarchy check, exactly once, and gives the same bytes as the two public steps (which
 * check in each step, as they must for a clip the caller may have changed in between). */
static void conversions_check_once(void **state) {
    (void)state;
    onescope_error err;
    /* zeroed: the default (compose parents), so `once` below equals `twice` (options NULL) */
    onescope_ots_bake_options bake = {0};
    bake.name = "in.anm";
    /* .anm -> OSPC */
    runs before = runs_now();
    onescope_pose_cache *once = NULL;
    assert_int_equal(onescope_ots_anm_to_pose_cache(clip_text, strlen(clip_text), "in.anm", NULL,
                                                    &bake, &once, &err),
                     ONESCOPE_OK);
    assert_runs(before, 1, 1);
    before = runs_now();
    onescope_ots_clip *c = parse_clip_ok(clip_text, strlen(clip_text));
    onescope_pose_cache *twice = NULL;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &twice, &err), ONESCOPE_OK);
    assert_runs(before, 2, 2); /* the parse's and the conversion's own (was 2 and 3) */
    onescope_buffer a, b;
    assert_int_equal(onescope_pose_cache_write(once, NULL, &a, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_write(twice, NULL, &b, &err), ONESCOPE_OK);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    onescope_buffer_free(&a);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(twice);
    /* OSPC -> .anm */
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    from.name = "in.ospc";
    before = runs_now();
    assert_int_equal(onescope_ots_pose_cache_to_anm(once, &from, NULL, &a, &err), ONESCOPE_OK);
    assert_runs(before, 1, 1);
    before = runs_now();
    onescope_ots_clip *back = NULL;
    assert_int_equal(onescope_ots_clip_from_pose_cache(once, &from, NULL, &back, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_ots_clip_write(back, NULL, &b, &err), ONESCOPE_OK);
    assert_runs(before, 2, 2);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    onescope_buffer_free(&a);
    onescope_buffer_free(&b);
    onescope_ots_clip_free(back);
    onescope_pose_cache *world = NULL;

    /* failures: one line naming the input each */
    assert_int_equal(onescope_ots_anm_to_pose_cache(clip_text, strlen(clip_text), "in.anm", NULL,
                                                    NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_anm_to_pose_cache("{", 1, "in.anm", NULL, NULL, &world, &err),
                     ONESCOPE_E_SYNTAX);
    assert_null(world);
    assert_string_equal(err.input, "in.anm");
    char *neg = edit(clip_text, "\"frame_range\": [1, 10]", "\"frame_range\": [-1, 10]");
    assert_int_equal(
        onescope_ots_anm_to_pose_cache(neg, strlen(neg), "neg.anm", NULL, NULL, &world, &err),
        ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "neg.anm"); /* bake->name NULL: the parse name */
    assert_string_equal(err.field, "frame_range");
    free(neg);
    assert_int_equal(onescope_ots_pose_cache_to_anm(once, &from, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_ots_from_cache_options zero = {0};
    assert_int_equal(onescope_ots_pose_cache_to_anm(once, &zero, NULL, &a, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "onescope_ots_from_cache_options");
    assert_null(a.data);
    assert_int_equal(onescope_ots_clip_from_pose_cache(once, &zero, NULL, &back, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_null(back);
    assert_int_equal(onescope_ots_clip_to_pose_cache(NULL, NULL, NULL, &twice, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_null(twice);
    onescope_pose_cache_free(once);
    onescope_ots_clip_free(c);
    onescope_ots_clip_free(back);
}

static onescope_code anm_to_cache_with(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_pose_cache *pc = NULL;
    onescope_error err;
    onescope_code rc =
        onescope_ots_anm_to_pose_cache(clip_text, strlen(clip_text), "in.anm", &o, NULL, &pc, &err);
    if (rc == ONESCOPE_OK) {
        onescope_buffer text;
        rc = onescope_ots_pose_cache_to_anm(pc, NULL, a, &text, &err);
        if (rc == ONESCOPE_OK) assert_true(text.size > 0);
        onescope_buffer_free(&text);
    } else {
        assert_null(pc);
    }
    onescope_pose_cache_free(pc);
    return rc;
}

static void conversions_allocation_failure(void **state) {
    (void)state;
    assert_true(test_alloc_walk(anm_to_cache_with, NULL) > 10);
}

/* ---- conversion ---- */

static void clip_to_cache(void **state) {
    (void)state;
    onescope_ots_clip *c = parse_clip_ok(clip_text, strlen(clip_text));
    /* root at (0, 1, 0) rotated 90 degrees about z (its rest pose: it has no keyframes) */
    c->pegs[0].rest_pivot[1] = 1;
    c->pegs[0].rest_rotation[0] = cos(PI / 4);
    c->pegs[0].rest_rotation[3] = sin(PI / 4);
    onescope_pose_cache *pc;
    onescope_error err;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_OK);
    assert_int_equal(pc->entity_count, 2);
    assert_int_equal(pc->frame_count, 10);
    assert_true(pc->start_step == 1);
    assert_true(pc->metres_per_unit == 1.0);
    assert_string_equal(pc->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "m");
    assert_string_equal(pc->entities[1].name.data, "hip-P");
    /* frame 5 (index 4): hip local (1, 2, 3) -> world (0,1,0) + rotz90(1,2,3) = (-2, 2, 3) */
    const onescope_pose *p = onescope_pose_cache_pose(pc, 4, 1);
    assert_true(fabs(p->position[0] - -2.0f) < 1e-6);
    assert_true(fabs(p->position[1] - 2.0f) < 1e-6);
    assert_true(fabs(p->position[2] - 3.0f) < 1e-6);
    /* rotation: root 90 about z, then hip's own 90 about z = 180 about z (x y z w = 0 0 1 0) */
    assert_true(fabs(fabs(p->rotation[2]) - 1.0f) < 1e-6);
    /* frame 3 (index 2): halfway in position */
    p = onescope_pose_cache_pose(pc, 2, 1);
    assert_true(fabs(p->position[0] - -1.0f) < 1e-6);
    assert_true(fabs(p->position[1] - 1.5f) < 1e-6);
    onescope_pose_cache_free(pc);
    /* --world: no composition */
    onescope_ots_bake_options o = onescope_ots_bake_options_default();
    o.world_space = true;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, &o, NULL, &pc, &err), ONESCOPE_OK);
    p = onescope_pose_cache_pose(pc, 4, 1);
    assert_true(p->position[0] == 1.0f && p->position[2] == 3.0f);
    onescope_pose_cache_free(pc);
    /* a negative first frame cannot be a start step */
    c->frame_range[0] = -1;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "frame_range");
    assert_string_equal(err.input, "anm to ospc");
    onescope_ots_bake_options named = onescope_ots_bake_options_default();
    named.name = "walk.anm"; /* errors then name the caller's input */
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, &named, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "walk.anm");
    /* nor can more frames than a cache holds */
    c->frame_range[0] = 0;
    c->frame_range[1] = (int32_t)ONESCOPE_OSPC_MAX_FRAMES; /* one frame too many */
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "frame_range");
    c->frame_range[1] = (int32_t)ONESCOPE_OSPC_MAX_FRAMES - 1;
    c->peg_count = 0; /* a cache needs an entity */
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "pegs");
    c->peg_count = 2;
    c->frame_range[1] = 10;
    /* a name longer than an OSPC entity name */
    char longname[ONESCOPE_OSPC_MAX_TEXT + 2];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    set(c, 1, ONESCOPE_OTS_TEXT_NAME, longname);
    set_camera(c, 0, ONESCOPE_OTS_TEXT_PEG, longname);
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "pegs[].name");
    assert_null(pc);
    longname[ONESCOPE_OSPC_MAX_TEXT] = '\0'; /* exactly the limit is fine */
    set(c, 1, ONESCOPE_OTS_TEXT_NAME, longname);
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_OK);
    onescope_pose_cache_free(pc);
    /* a world position past the float range: finite in the clip, not in the cache */
    c->pegs[0].rest_pivot[0] = 1e39;
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, &pc, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "position");
    assert_null(pc);
    assert_int_equal(onescope_ots_clip_to_pose_cache(c, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_ots_clip_free(c);
}

static onescope_pose_cache *make_cache(uint64_t seed, uint32_t entities, uint32_t frames,
                                       bool gaps) {
    onescope_pose_cache *pc;
    onescope_error err;
    uint64_t s = seed;
    assert_int_equal(onescope_pose_cache_create(3, entities, frames, NULL, &pc, &err), ONESCOPE_OK);
    pc->start_step = 100;
    pc->metres_per_unit = 1; /* a unitless cache is refused */
    for (uint32_t e = 0; e < entities; e++) {
        char name[32];
        snprintf(name, sizeof name, "body %u", e);
        assert_int_equal(onescope_pose_cache_set_entity_name(pc, e, name, strlen(name), &err), 0);
    }
    for (uint32_t f = 0; f < frames; f++)
        for (uint32_t e = 0; e < entities; e++) {
            onescope_pose *p = &pc->poses[(size_t)f * entities + e];
            for (int k = 0; k < 3; k++) p->position[k] = (float)((rnd(&s) - 0.5) * 100);
            double q[4], n = 0;
            for (int k = 0; k < 4; k++) {
                q[k] = rnd(&s) - 0.5;
                n += q[k] * q[k];
            }
            for (int k = 0; k < 4; k++) p->rotation[k] = (float)(q[k] / sqrt(n));
            if (gaps && e == 1 && f % 5 >= 3) p->position[0] = NAN;
        }
    return pc;
}

static void cache_to_clip_and_back(void **state) {
    (void)state;
    onescope_pose_cache *pc = make_cache(9, 4, 40, true);
    onescope_ots_clip *c;
    onescope_error err;
    onescope_ots_from_cache_options o = onescope_ots_from_cache_options_default();
    o.fps = 60;
    o.keys_all = true; /* one keyframe per present frame */
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &o, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->peg_count, 4);
    assert_true(c->header.fps == 60);
    assert_int_equal(c->frame_range[0], 100);
    assert_int_equal(c->frame_range[1], 139);
    assert_string_equal(c->pegs[2].name, "body 2");
    assert_int_equal(c->pegs[0].keyframe_count, 40);
    assert_int_equal(c->pegs[1].keyframe_count, 24); /* 2 of every 5 frames absent */
    assert_int_equal(c->pegs[1].keyframes[2].interp,
                     ONESCOPE_OTS_CONSTANT); /* frame 102, before the gap */
    assert_int_equal(c->pegs[1].keyframes[1].interp, ONESCOPE_OTS_LINEAR);
    assert_true(c->pegs[1].keyframes[3].frame == 105);
    /* Euler xyz matches rot_quat */
    double q[4];
    onescope_ots_euler_to_quat(c->pegs[0].keyframes[7].rot, ONESCOPE_OTS_ROT_XYZ, q);
    double dot = 0;
    for (int i = 0; i < 4; i++) dot += q[i] * c->pegs[0].keyframes[7].rot_quat[i];
    assert_true(fabs(fabs(dot) - 1) < 1e-6);
    /* through the text form and back to a cache */
    onescope_buffer b = write_clip_ok(c);
    onescope_ots_clip *d = parse_clip_ok((const char *)b.data, b.size);
    onescope_pose_cache *back;
    assert_int_equal(onescope_ots_clip_to_pose_cache(d, NULL, NULL, &back, &err), ONESCOPE_OK);
    assert_int_equal(back->entity_count, 4);
    assert_int_equal(back->frame_count, 40);
    assert_true(back->start_step == 100);
    for (uint32_t f = 0; f < 40; f++)
        for (uint32_t e = 0; e < 4; e++) {
            const onescope_pose *a = onescope_pose_cache_pose(pc, f, e),
                                *z = onescope_pose_cache_pose(back, f, e);
            if (!onescope_pose_is_present(a)) {
                /* held: the last present pose before the gap */
                const onescope_pose *held = onescope_pose_cache_pose(pc, f - (f % 5 - 2), e);
                assert_memory_equal(z, held, sizeof *z);
                continue;
            }
            assert_memory_equal(a->position, z->position, sizeof a->position); /* exact */
            assert_memory_equal(a->rotation, z->rotation, sizeof a->rotation);
        }
    onescope_buffer_free(&b);
    onescope_ots_clip_free(c);
    onescope_ots_clip_free(d);
    onescope_pose_cache_free(back);
    /* empty names become entity-ID; two equal names cannot both be pegs */
    assert_int_equal(onescope_pose_cache_set_entity_name(pc, 3, "", 0, &err), 0);
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_string_equal(c->pegs[3].name, "entity-4");
    assert_true(c->header.fps == 24);
    assert_int_equal(c->header.source, ONESCOPE_OTS_SOURCE_BLENDER);
    onescope_ots_clip_free(c);
    /* so do names with a NUL byte (a .anm string cannot hold one) */
    assert_int_equal(onescope_pose_cache_set_entity_name(pc, 3, "a\0b", 3, &err), 0);
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_string_equal(c->pegs[3].name, "entity-4");
    onescope_ots_clip_free(c);
    assert_int_equal(onescope_pose_cache_set_entity_name(pc, 3, "body 0", 6, &err), 0);
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err),
                     ONESCOPE_E_DUPLICATE);
    assert_null(c);
    /* the last frame must fit a 32-bit frame number */
    assert_int_equal(onescope_pose_cache_set_entity_name(pc, 3, "body 3", 6, &err), 0);
    pc->start_step = (int64_t)INT32_MAX - pc->frame_count + 1;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->frame_range[1], INT32_MAX);
    onescope_ots_clip_free(c);
    pc->start_step++;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "start step");
    assert_null(c);
    /* a last step past int64_t is the cache's own error (offset 20), not an overflow */
    pc->start_step = INT64_MAX;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "start step");
    assert_error_at(err, ONESCOPE_E_RANGE, 20);
    assert_null(c);
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_clip_from_pose_cache(NULL, NULL, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(pc);
}

/* ---- mutated inputs: refused cleanly, or accepted and then rewritten stably ---- */

static void mutations_are_refused_or_stable(void **state) {
    (void)state;
    onescope_ots_clip *src = make_clip(11, 3, 3, NULL);
    onescope_buffer base = write_clip_ok(src);
    static const char junk[] = "{}[],:\"0123456789.eE-+ntfalsrue\\u\xff\x00 \n";
    uint64_t s = 99;
    int accepted = 0;
    for (int iter = 0; iter < 3000; iter++) {
        uint8_t *t = malloc(base.size + 8);
        assert_non_null(t);
        memcpy(t, base.data, base.size);
        size_t size = base.size;
        int edits = 1 + (int)(test_rand(&s) % 3);
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)(test_rand(&s) % size);
            if (test_rand(&s) % 4 == 0 && size > 1) { /* delete a byte */
                memmove(t + at, t + at + 1, size - at - 1);
                size--;
            } else {
                t[at] = (uint8_t)junk[test_rand(&s) % (sizeof junk - 1)];
            }
        }
        onescope_ots_clip *c;
        onescope_error err;
        onescope_code rc = onescope_ots_clip_parse(t, size, "m.anm", NULL, &c, &err);
        if (rc != ONESCOPE_OK) {
            assert_null(c);
            assert_true(strlen(fmt(&err)) > 8);
        } else {
            accepted++;
            onescope_buffer b1 = write_clip_ok(c), b2;
            onescope_ots_clip *d = parse_clip_ok((const char *)b1.data, b1.size);
            assert_int_equal(onescope_ots_clip_write(d, NULL, &b2, &err), ONESCOPE_OK);
            assert_int_equal(b1.size, b2.size);
            assert_memory_equal(b1.data, b2.data, b1.size);
            onescope_buffer_free(&b1);
            onescope_buffer_free(&b2);
            onescope_ots_clip_free(c);
            onescope_ots_clip_free(d);
        }
        free(t);
    }
    assert_true(accepted > 0); /* some edits land in numbers or strings and stay valid */
    onescope_buffer_free(&base);
    onescope_ots_clip_free(src);
}

/* ---- allocation failure: every allocation of ours can fail without a leak ---- */

static void allocation_failure_everywhere(void **state) {
    (void)state;
    onescope_ots_clip *src = make_clip(3, 4, 3, NULL);
    onescope_buffer text = write_clip_ok(src);
    onescope_pose_cache *pc = make_cache(4, 3, 5, true);
    onescope_ots_rig *rig = parse_rig_ok(rig_text, strlen(rig_text));
    for (int what = 0; what < 6; what++) {
        long n = 1;
        for (;; n++) {
            test_alloc t;
            test_alloc_init(&t, n);
            onescope_parse_options o = onescope_parse_options_default();
            o.allocator = &t.allocator;
            onescope_error err;
            onescope_code rc;
            if (what == 0) {
                onescope_ots_clip *c;
                rc = onescope_ots_clip_parse(text.data, text.size, "a", &o, &c, &err);
                onescope_ots_clip_free(rc == ONESCOPE_OK ? c : NULL);
            } else if (what == 1) {
                onescope_ots_rig *r;
                rc = onescope_ots_rig_parse(rig_text, strlen(rig_text), "r", &o, &r, &err);
                onescope_ots_rig_free(rc == ONESCOPE_OK ? r : NULL);
            } else if (what == 2) {
                onescope_buffer b;
                rc = onescope_ots_clip_write(src, &t.allocator, &b, &err);
                if (rc == ONESCOPE_OK) onescope_buffer_free(&b);
            } else if (what == 3) {
                onescope_pose_cache *out;
                rc = onescope_ots_clip_to_pose_cache(src, NULL, &t.allocator, &out, &err);
                onescope_pose_cache_free(rc == ONESCOPE_OK ? out : NULL);
            } else if (what == 4) {
                onescope_ots_clip *out;
                rc = onescope_ots_clip_from_pose_cache(pc, NULL, &t.allocator, &out, &err);
                onescope_ots_clip_free(rc == ONESCOPE_OK ? out : NULL);
            } else {
                onescope_buffer b;
                rc = onescope_ots_rig_write(rig, &t.allocator, &b, &err);
                if (rc == ONESCOPE_OK) onescope_buffer_free(&b);
            }
            assert_int_equal(t.live, 0);
            if (rc == ONESCOPE_OK) break;
            if (rc != ONESCOPE_E_NOMEM) fail_msg("case %d, allocation %ld: %s", what, n, fmt(&err));
        }
        assert_true(n > 3);
    }
    onescope_buffer_free(&text);
    onescope_ots_clip_free(src);
    onescope_pose_cache_free(pc);
    onescope_ots_rig_free(rig);
}

static onescope_code create_rig_with(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_ots_rig *r = (onescope_ots_rig *)1;
    onescope_error err;
    onescope_code rc = onescope_ots_rig_create(3, 2, a, &r, &err);
    if (rc != ONESCOPE_OK) {
        assert_null(r);
        return rc;
    }
    rc = onescope_ots_rig_set_bone_text(r, 2, ONESCOPE_OTS_TEXT_NAME, "b", &err);
    onescope_ots_rig_free(r);
    return rc;
}

static onescope_code create_clip_with(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_ots_clip *c = (onescope_ots_clip *)1;
    onescope_error err;
    onescope_code rc = onescope_ots_clip_create(2, 1, a, &c, &err);
    if (rc != ONESCOPE_OK) {
        assert_null(c);
        return rc;
    }
    rc = onescope_ots_clip_set_keyframe_count(c, 1, 4, &err);
    if (rc == ONESCOPE_OK)
        assert_int_equal(c->pegs[1].keyframe_count, 4);
    else
        assert_int_equal(c->pegs[1].keyframe_count, 0);
    onescope_ots_clip_free(c);
    return rc;
}

/* The building calls under allocation failure: NOMEM, *out NULL, nothing leaked. */
static void building_allocation_failure(void **state) {
    (void)state;
    assert_int_equal(test_alloc_walk(create_rig_with, NULL), 4); /* rig, bones, cameras, name */
    assert_true(test_alloc_walk(create_clip_with, NULL) >= 4);
}

/* ---- streamed bakes and output sizes (issue 14 item 3) ---- */

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* A clip of `pegs` root pegs (one keyframe each) over frames 0..last, as compact text. */
static char *long_clip(unsigned pegs, long last) {
    size_t room = 4096 + (size_t)pegs * 200;
    char *t = malloc(room);
    assert_non_null(t);
    int n = snprintf(t, room,
                     "{\"format\":\"octo_anm\",\"version\":4,\"source\":\"maya\","
                     "\"frame_range\":[0,%ld],\"fps\":24.0,\"coordinate_system\":{\"up\":\"y\","
                     "\"hand\":\"right\",\"unit\":\"meters\",\"rot_order\":\"xyz\","
                     "\"rot_repr_anim\":\"euler_deg\",\"rot_repr_rest\":\"quat_wxyz\"},\"pegs\":[",
                     last);
    for (unsigned i = 0; i < pegs; i++)
        n += snprintf(t + n, room - (size_t)n,
                      "%s{\"name\":\"p%02u\",\"parent\":null,\"rest_pivot\":[0,0,0],"
                      "\"rest_rotation\":[1,0,0,0],\"keyframes\":[{\"frame\":0,\"pos\":[%u,0,0],"
                      "\"rot_quat\":[1,0,0,0],\"scl\":[1,1,1],\"interp\":\"LINEAR\"}]}",
                      i ? "," : "", i, i);
    snprintf(t + n, room - (size_t)n, "],\"cameras\":[]}");
    return t;
}

static void bake_to_file_streams(void **state) {
    (void)state;
    char path[256], partial[300];
    snprintf(path, sizeof path, "/tmp/test_ots-%ld.ospc", (long)getpid());
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_error err;
    /* byte for byte the in-memory bake, composed and world space alike */
    for (int world = 0; world < 2; world++) {
        onescope_ots_bake_options b = onescope_ots_bake_options_default();
        b.world_space = world != 0;
        onescope_pose_cache *pc;
        assert_int_equal(onescope_ots_anm_to_pose_cache(clip_text, strlen(clip_text), "in.anm",
                                                        NULL, &b, &pc, &err),
                         ONESCOPE_OK);
        onescope_buffer want;
        assert_int_equal(onescope_pose_cache_write(pc, NULL, &want, &err), ONESCOPE_OK);
        uint64_t frames = 0;
        onescope_pose_writer_options wo = onescope_pose_writer_options_default();
        wo.buffer_bytes = 64;
        assert_int_equal(onescope_ots_anm_to_pose_cache_file(clip_text, strlen(clip_text), "in.anm",
                                                             NULL, &b, path, &wo, &frames, &err),
                         ONESCOPE_OK);
        assert_int_equal(frames, pc->frame_count);
        onescope_buffer got;
        assert_int_equal(onescope_file_read(path, 0, NULL, &got, &err), ONESCOPE_OK);
        assert_int_equal(got.size, want.size);
        assert_memory_equal(got.data, want.data, want.size);
        onescope_buffer_free(&got);
        onescope_buffer_free(&want);
        onescope_pose_cache_free(pc);
    }
    unlink(path);

    /* 40 pegs over 4 194 304 frames (4.7 GB of poses): refused from the counts, at once and
     * in memory too, naming the input and the limit; nothing is created */
    char *t = long_clip(40, 4194303);
    assert_true(strlen(t) < 8000);
    assert_int_equal(onescope_ots_anm_to_pose_cache_file(t, strlen(t), "long.anm", NULL, NULL, path,
                                                         NULL, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, "long.anm");
    assert_string_equal(err.field, "output size");
    assert_non_null(strstr(err.expected, "at most 268435456 bytes"));
    assert_non_null(strstr(err.found, "4194304 frames of 40 pegs"));
    assert_false(file_exists(path));
    assert_false(file_exists(partial));
    onescope_pose_cache *pc = NULL;
    assert_int_equal(
        onescope_ots_anm_to_pose_cache(t, strlen(t), "long.anm", NULL, NULL, &pc, &err),
        ONESCOPE_E_TOO_LARGE);
    assert_null(pc);
    assert_string_equal(err.input, "long.anm");
    free(t);

    /* segments: a small limit rolls over; every segment valid, start steps continuing */
    t = long_clip(3, 99);
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    wo.max_segment_bytes = 2048;
    assert_int_equal(onescope_ots_anm_to_pose_cache_file(t, strlen(t), "seg.anm", NULL, NULL, path,
                                                         &wo, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, "seg.anm");
    assert_false(file_exists(path));
    wo.segments = true;
    uint64_t frames = 0;
    assert_int_equal(onescope_ots_anm_to_pose_cache_file(t, strlen(t), "seg.anm", NULL, NULL, path,
                                                         &wo, &frames, &err),
                     ONESCOPE_OK);
    assert_int_equal(frames, 100);
    int64_t next = 0;
    for (int k = 0; next < 100; k++) {
        char seg[300];
        if (k == 0)
            snprintf(seg, sizeof seg, "%s", path);
        else
            snprintf(seg, sizeof seg, "/tmp/test_ots-%ld-%04d.ospc", (long)getpid(), k);
        assert_int_equal(onescope_pose_cache_read_file(seg, NULL, &pc, &err), ONESCOPE_OK);
        assert_true(pc->start_step == next);
        assert_true(pc->poses[2].position[0] == 2.0f);
        next += pc->frame_count;
        onescope_pose_cache_free(pc);
        unlink(seg);
        assert_true(k < 40);
    }
    /* a bad clip and a NULL path: the parser's error, ARGUMENT */
    assert_int_equal(
        onescope_ots_anm_to_pose_cache_file("{", 1, "bad.anm", NULL, NULL, path, NULL, NULL, &err),
        ONESCOPE_E_SYNTAX);
    assert_int_equal(onescope_ots_anm_to_pose_cache_file(t, strlen(t), "seg.anm", NULL, NULL, NULL,
                                                         NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    /* the writer's refusal names the output */
    assert_int_equal(onescope_ots_anm_to_pose_cache_file(t, strlen(t), "seg.anm", NULL, NULL, "-",
                                                         NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "-");
    free(t);
}

static onescope_code bake_file_walk(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_ots-walk-%ld.ospc", (long)getpid());
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_error err;
    onescope_code rc = onescope_ots_anm_to_pose_cache_file(clip_text, strlen(clip_text), "in.anm",
                                                           &o, NULL, path, NULL, NULL, &err);
    unlink(path);
    return rc;
}

static void bake_to_file_allocation_failure(void **state) {
    (void)state;
    assert_true(test_alloc_walk(bake_file_walk, NULL) > 3);
}

/* The streamed conversion from a file: every allocation refused in turn (the chunk buffer, the
 * reader's, the spill's runs and buffer, the windows, the writer's) is NOMEM and leaks
 * nothing. */
static onescope_code anm_file_stream_walk(const onescope_allocator *a, void *ctx) {
    const char *in = ctx;
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_ots-swalk-%ld.ospc", (long)getpid());
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_error err;
    onescope_code rc =
        onescope_ots_anm_file_to_pose_cache_file(in, &o, NULL, path, NULL, NULL, &err);
    unlink(path);
    return rc;
}

static void anm_file_stream_allocation_failure(void **state) {
    (void)state;
    char in[256];
    snprintf(in, sizeof in, "/tmp/test_ots-swalk-%ld.anm", (long)getpid());
    test_write_file(in, clip_text, strlen(clip_text));
    assert_true(test_alloc_walk(anm_file_stream_walk, in) > 8);
    unlink(in);
}

/* The streamed conversion from a file keeps the file path's rules: a missing input, a NULL
 * one, a directory, segments under a small limit, "-" as the output. */
static void anm_file_stream_edges(void **state) {
    (void)state;
    char in[256], out[256];
    snprintf(in, sizeof in, "/tmp/test_ots-sedge-%ld.anm", (long)getpid());
    snprintf(out, sizeof out, "/tmp/test_ots-sedge-%ld.ospc", (long)getpid());
    onescope_error err;
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, out, NULL, NULL, &err),
        ONESCOPE_E_IO);
    assert_non_null(strstr(err.found, "cannot open"));
    assert_string_equal(err.input, in);
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(NULL, NULL, NULL, out, NULL, NULL, &err),
        ONESCOPE_E_ARGUMENT);
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file("/tmp", NULL, NULL, out, NULL, NULL, &err),
        ONESCOPE_E_IO);
    assert_non_null(strstr(err.found, "cannot read"));
    char *t = long_clip(3, 99);
    test_write_file(in, t, strlen(t));
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    wo.max_segment_bytes = 2048;
    assert_int_equal(onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, out, &wo, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, in);
    assert_false(file_exists(out));
    wo.segments = true;
    uint64_t frames = 0;
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, out, &wo, &frames, &err),
        ONESCOPE_OK);
    assert_int_equal(frames, 100);
    for (int k = 0; k < 40; k++) {
        char seg[300];
        if (k == 0)
            snprintf(seg, sizeof seg, "%s", out);
        else
            snprintf(seg, sizeof seg, "/tmp/test_ots-sedge-%ld-%04d.ospc", (long)getpid(), k);
        unlink(seg);
    }
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, "-", NULL, NULL, &err),
        ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "-");
    /* a lower input limit: the read path's line, before a byte is parsed */
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = 100;
    assert_int_equal(onescope_ots_anm_file_to_pose_cache_file(in, &o, NULL, out, NULL, NULL, &err),
                     ONESCOPE_E_TOO_LARGE);
    onescope_error want;
    onescope_buffer buf;
    assert_int_equal(onescope_file_read(in, 100, NULL, &buf, &want), ONESCOPE_E_TOO_LARGE);
    char a[512], b[512];
    onescope_error_format(&want, a, sizeof a);
    onescope_error_format(&err, b, sizeof b);
    assert_string_equal(a, b);
    assert_false(file_exists(out));
    /* the scratch file: none left in TMPDIR; a TMPDIR that cannot take one is one E_IO line
     * naming the input and the folder, and no OUT */
    char tmp[256];
    snprintf(tmp, sizeof tmp, "/tmp/test_ots-stmp-%ld", (long)getpid());
    assert_int_equal(mkdir(tmp, 0700), 0);
    const char *was = getenv("TMPDIR");
    char *saved = was != NULL ? strdup(was) : NULL;
    setenv("TMPDIR", tmp, 1);
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, out, NULL, NULL, &err),
        ONESCOPE_OK);
    assert_int_equal(rmdir(tmp), 0); /* empty */
    unlink(out);
    assert_int_equal(
        onescope_ots_anm_file_to_pose_cache_file(in, NULL, NULL, out, NULL, NULL, &err),
        ONESCOPE_E_IO);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "cannot create a scratch file in /tmp/test_ots-stmp-"));
    assert_string_equal(err.input, in);
    assert_false(file_exists(out));
    if (saved != NULL)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    unlink(in);
    free(t);
}

/* The .anm writer spends at least ONESCOPE_OTS_KEYFRAME_MIN_BYTES per keyframe even with the
 * shortest numbers, and a cache whose keyframes alone pass the limit is refused before the
 * clip is built, naming the input. */
static void anm_output_sized_first(void **state) {
    (void)state;
    onescope_error err;
    onescope_pose_cache *pc;
    assert_int_equal(onescope_pose_cache_create(3, 2, 10, NULL, &pc, &err), ONESCOPE_OK);
    pc->metres_per_unit = 1;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    from.keys_all = true; /* still poses: otherwise one key each */
    onescope_buffer one, two;
    pc->frame_count = 1; /* one keyframe per peg, frame 0, every number 0 or 1 */
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, &from, NULL, &one, &err), ONESCOPE_OK);
    pc->frame_count = 10;
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, &from, NULL, &two, &err), ONESCOPE_OK);
    assert_true(two.size - one.size >= 18 * (size_t)ONESCOPE_OTS_KEYFRAME_MIN_BYTES);
    onescope_buffer_free(&one);
    onescope_buffer_free(&two);
    onescope_pose_cache_free(pc);

    /* 65536 entities x 14 frames = 917 504 keyframes: at least 275 MB of JSON */
    assert_int_equal(onescope_pose_cache_create(3, 65536, 14, NULL, &pc, &err), ONESCOPE_OK);
    pc->metres_per_unit = 1;
    from.name = "big.ospc";
    onescope_buffer out;
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, &from, NULL, &out, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_null(out.data);
    assert_string_equal(err.input, "big.ospc");
    assert_non_null(strstr(err.found, "917504 keyframes"));
    /* absent poses make no keyframe: one in 64 present fits */
    for (size_t i = 0; i < (size_t)65536 * 14; i++)
        if (i % 64 != 0) pc->poses[i].position[0] = NAN;
    onescope_ots_clip *clip = NULL;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &clip, &err), ONESCOPE_OK);
    onescope_ots_clip_free(clip);
    onescope_pose_cache_free(pc);
}

/* rig and clip creation give every camera working defaults (ots.h): fov 40 degrees
 * (vertical), near 0.1, far 1000; everything else zero. */
static void check_camera_defaults(const onescope_ots_camera *cams, size_t n) {
    for (size_t i = 0; i < n; i++) {
        assert_true(cams[i].fov == 40.0);
        assert_true(cams[i].near_plane == 0.1);
        assert_true(cams[i].far_plane == 1000.0);
        assert_int_equal(cams[i].fov_axis, ONESCOPE_OTS_FOV_VERTICAL);
        assert_false(cams[i].is_default);
        assert_false(cams[i].override_fov);
        assert_true(cams[i].near_field == 0.0 && cams[i].far_field == 0.0);
        assert_true(cams[i].angle == 0.0 && cams[i].offset_z == 0.0 && cams[i].pivot_y == 0.0);
        assert_null(cams[i].name);
        assert_null(cams[i].peg);
    }
}

static void camera_defaults_on_create(void **state) {
    (void)state;
    onescope_error err;
    onescope_ots_rig *r;
    assert_int_equal(onescope_ots_rig_create(1, 3, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(r->camera_count, 3);
    check_camera_defaults(r->cameras, r->camera_count);
    onescope_ots_rig_free(r);
    onescope_ots_clip *c;
    assert_int_equal(onescope_ots_clip_create(1, 2, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->camera_count, 2);
    check_camera_defaults(c->cameras, c->camera_count);
    onescope_ots_clip_free(c);
}

/* ---- conversions that keep meaning (issue 16, item 3) ---- */

/* Every present pose of a and b is the same bits (b may be 3D where a is 2D). */
static void assert_present_poses_equal(const onescope_pose_cache *a, const onescope_pose_cache *b) {
    assert_int_equal(a->entity_count, b->entity_count);
    assert_int_equal(a->frame_count, b->frame_count);
    assert_true(a->start_step == b->start_step);
    size_t present = 0;
    for (uint32_t f = 0; f < a->frame_count; f++)
        for (uint32_t e = 0; e < a->entity_count; e++) {
            const onescope_pose *x = onescope_pose_cache_pose(a, f, e),
                                *y = onescope_pose_cache_pose(b, f, e);
            if (!onescope_pose_is_present(x)) continue;
            present++;
            float qx[4], qy[4];
            onescope_pose_rotation(x, qx);
            onescope_pose_rotation(y, qy);
            assert_memory_equal(x->position, y->position, sizeof x->position);
            assert_memory_equal(qx, qy, sizeof qx);
        }
    assert_true(present > 0);
}

/* cache -> .anm text -> cache with the bake options given. */
static onescope_pose_cache *through_anm(const onescope_pose_cache *pc,
                                        const onescope_ots_from_cache_options *from,
                                        const onescope_ots_bake_options *bake) {
    onescope_error err;
    onescope_buffer text;
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, from, NULL, &text, &err), ONESCOPE_OK);
    onescope_pose_cache *back = NULL;
    assert_int_equal(
        onescope_ots_anm_to_pose_cache(text.data, text.size, "t.anm", NULL, bake, &back, &err),
        ONESCOPE_OK);
    onescope_buffer_free(&text);
    return back;
}

static void convert_keeps_units(void **state) {
    (void)state;
    onescope_error err;
    onescope_pose_cache *pc;
    assert_int_equal(
        onescope_pose_cache_read_file(ONESCOPE_TESTDATA "/test-2d-ghost.ospc", NULL, &pc, &err),
        ONESCOPE_OK);
    assert_true(pc->metres_per_unit == 0.001);
    onescope_ots_clip *c;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_OK);
    /* positions are metres: exactly the float times 0.001, in double */
    const onescope_pose *p0 = onescope_pose_cache_pose(pc, 0, 0);
    assert_true(c->pegs[0].keyframes[0].pos[0] == (double)p0->position[0] * 0.001);
    assert_true(c->pegs[0].keyframes[0].pos[1] == (double)p0->position[1] * 0.001);
    assert_true(fabs(p0->position[0]) > 1); /* millimetres: a test that can fail */
    assert_int_equal(c->header.coordinate_system.up, ONESCOPE_OTS_UP_Y);
    onescope_ots_clip_free(c);
    /* back in millimetres: every present pose bit for bit, unit name "mm" */
    onescope_ots_bake_options mm = onescope_ots_bake_options_default();
    mm.metres_per_unit = 0.001;
    onescope_pose_cache *back = through_anm(pc, NULL, &mm);
    assert_present_poses_equal(pc, back);
    assert_true(back->metres_per_unit == 0.001);
    assert_string_equal(back->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "mm");
    onescope_pose_cache_free(back);
    /* and in metres by default: the same positions, divided by 1000 (rounded to float) */
    back = through_anm(pc, NULL, NULL);
    assert_true(back->metres_per_unit == 1.0);
    assert_true(onescope_pose_cache_pose(back, 0, 0)->position[0] ==
                (float)((double)p0->position[0] * 0.001));
    onescope_pose_cache_free(back);
    /* centimetres get their name; an odd unit none */
    mm.metres_per_unit = 0.01;
    back = through_anm(pc, NULL, &mm);
    assert_string_equal(back->text[ONESCOPE_POSE_TEXT_UNIT_NAME].data, "cm");
    assert_true(onescope_pose_cache_pose(back, 0, 0)->position[0] ==
                (float)((double)p0->position[0] * 0.001 / 0.01));
    onescope_pose_cache_free(back);
    mm.metres_per_unit = 0.3048;
    back = through_anm(pc, NULL, &mm);
    assert_int_equal(back->text[ONESCOPE_POSE_TEXT_UNIT_NAME].length, 0);
    onescope_pose_cache_free(back);
    /* a bad bake unit is refused */
    onescope_buffer text;
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, NULL, NULL, &text, &err), ONESCOPE_OK);
    const double bad[] = {-1.0, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        mm.metres_per_unit = bad[i];
        back = NULL;
        assert_int_equal(
            onescope_ots_anm_to_pose_cache(text.data, text.size, "t.anm", NULL, &mm, &back, &err),
            ONESCOPE_E_ARGUMENT);
        assert_string_equal(err.field, "metres_per_unit");
        assert_null(back);
    }
    onescope_buffer_free(&text);
    /* the cache's own unit is the only one it takes */
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    from.metres_per_unit = 0.001;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err), ONESCOPE_OK);
    onescope_ots_clip_free(c);
    from.metres_per_unit = 1;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_non_null(strstr(err.found, "the cache has 0.001"));
    from.metres_per_unit = -2;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "metres_per_unit");
    /* a unitless cache is refused unless a unit is given for it */
    pc->metres_per_unit = 0;
    from = onescope_ots_from_cache_options_default();
    from.name = "bare.ospc";
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_null(c);
    assert_string_equal(err.input, "bare.ospc");
    assert_non_null(strstr(err.found, "unitless"));
    from.metres_per_unit = 0.01;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err), ONESCOPE_OK);
    assert_true(c->pegs[0].keyframes[0].pos[0] == (double)p0->position[0] * 0.01);
    onescope_ots_clip_free(c);
    onescope_pose_cache_free(pc);
}

static void convert_keeps_up_axis(void **state) {
    (void)state;
    onescope_error err;
    onescope_pose_cache *pc = make_cache(3, 2, 6, false), *back;
    onescope_ots_clip *c;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    for (int up = 0; up < 3; up++) {
        /* a clip with this up axis -> cache -> clip: the axis comes back */
        from.up_given = true;
        from.up = (onescope_ots_up)up;
        back = through_anm(pc, &from, NULL);
        const onescope_text *label = &back->text[ONESCOPE_POSE_TEXT_LABEL];
        if (up == ONESCOPE_OTS_UP_Y)
            assert_int_equal(label->length, 0); /* the default is not written */
        else
            assert_string_equal(label->data, up == 0 ? "up=x" : "up=z");
        assert_int_equal(onescope_ots_clip_from_pose_cache(back, NULL, NULL, &c, &err),
                         ONESCOPE_OK);
        assert_int_equal(c->header.coordinate_system.up, up);
        onescope_ots_clip_free(c);
        /* an --up that contradicts the recorded axis is refused; the same one is fine */
        from.up = (onescope_ots_up)((up + 1) % 3);
        onescope_code rc = onescope_ots_clip_from_pose_cache(back, &from, NULL, &c, &err);
        if (up == ONESCOPE_OTS_UP_Y) {
            assert_int_equal(rc, ONESCOPE_OK); /* y records nothing: the option decides */
            assert_int_equal(c->header.coordinate_system.up, (up + 1) % 3);
            onescope_ots_clip_free(c);
        } else {
            assert_int_equal(rc, ONESCOPE_E_ARGUMENT);
            assert_string_equal(err.field, "up");
            assert_null(c);
        }
        onescope_pose_cache_free(back);
    }
    /* no option and no label: y */
    from = onescope_ots_from_cache_options_default();
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->header.coordinate_system.up, ONESCOPE_OTS_UP_Y);
    onescope_ots_clip_free(c);
    from.up_given = true;
    from.up = (onescope_ots_up)7;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &from, NULL, &c, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.expected, "x, y or z");
    onescope_pose_cache_free(pc);
}

static void convert_keeps_needed_keys(void **state) {
    (void)state;
    onescope_error err;
    /* entity 0 still, 1 moving at a steady pace, 2 random with gaps, 3 still then moving */
    onescope_pose_cache *pc = make_cache(5, 4, 200, false);
    for (uint32_t f = 0; f < 200; f++) {
        onescope_pose *p = &pc->poses[(size_t)f * 4];
        p[0] = pc->poses[0];
        p[1] = pc->poses[1];
        p[1].position[0] = (float)f * 0.5f; /* exact in float, and so on the line */
        if (f % 7 == 3) p[2].position[0] = NAN;
        if (f < 120) p[3] = pc->poses[3];
    }
    onescope_ots_clip *c;
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->pegs[0].keyframe_count, 1); /* a still entity is one key */
    assert_int_equal(c->pegs[0].keyframes[0].interp, ONESCOPE_OTS_CONSTANT);
    /* steady: one LINEAR key per KEY_SPAN (64) frames, plus the last */
    assert_true(c->pegs[1].keyframe_count >= 4 && c->pegs[1].keyframe_count <= 5);
    assert_true(c->pegs[2].keyframe_count < 200);
    assert_true(c->pegs[3].keyframe_count < 80 + 2);
    assert_int_equal(c->pegs[3].keyframes[0].interp, ONESCOPE_OTS_CONSTANT);
    assert_int_equal(c->pegs[3].keyframes[1].frame, 100 + 120); /* the first change */
    onescope_ots_clip_free(c);
    /* every present pose comes back bit for bit, reduced or not */
    onescope_pose_cache *back = through_anm(pc, NULL, NULL);
    assert_present_poses_equal(pc, back);
    onescope_pose_cache_free(back);
    onescope_ots_from_cache_options all = onescope_ots_from_cache_options_default();
    all.keys_all = true;
    back = through_anm(pc, &all, NULL);
    assert_present_poses_equal(pc, back);
    onescope_pose_cache_free(back);
    assert_int_equal(onescope_ots_clip_from_pose_cache(pc, &all, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->pegs[0].keyframe_count, 200);
    assert_int_equal(c->pegs[2].keyframe_count, 200 - 29);
    onescope_ots_clip_free(c);
    /* the size floor counts the keys written: a still 65536 x 14 cache fits */
    onescope_pose_cache *big;
    assert_int_equal(onescope_pose_cache_create(3, 65536, 14, NULL, &big, &err), ONESCOPE_OK);
    big->metres_per_unit = 1;
    assert_int_equal(onescope_ots_clip_from_pose_cache(big, NULL, NULL, &c, &err), ONESCOPE_OK);
    assert_int_equal(c->pegs[65535].keyframe_count, 1);
    onescope_ots_clip_free(c);
    assert_int_equal(onescope_ots_clip_from_pose_cache(big, &all, NULL, &c, &err),
                     ONESCOPE_E_TOO_LARGE);
    onescope_pose_cache_free(big);
    onescope_pose_cache_free(pc);
}

/* ---- syntax errors in the library's words (issue 16, item 4) ---- */

static void syntax_in_plain_words(void **state) {
    (void)state;
    static const struct {
        const char *text;
        size_t size; /* 0: strlen */
        uint32_t line, column;
        const char *found;
    } cases[] = {
        {"{\"format\": \"octo_anm\", \"version\": 4,}", 0, 1, 37, "a trailing comma"},
        {"{\"format\": \"octo_anm\", \"frame_range\": [4,\n]}", 0, 2, 1, "a trailing comma"},
        /* the end of the text: its offset, one past the last character */
        {"{\"format\": \"octo_anm\", \"version\": 4", 0, 1, 36, "the end of the file inside"},
        /* an unterminated string: where it starts */
        {"{\"format\": \"octo_anm\", \"version\": 4, \"x\": \"ab", 0, 1, 43,
         "an unterminated string"},
        {"{\"format\": \"octo_anm\", \"x\": \"a\nb\"}", 0, 1, 29, "an unterminated string"},
        {"{\"format\": \"octo_anm\", \"a\": tru}", 0, 1, 29, "'tru', which is none of those"},
        {"{\"format\": \"octo_anm\" \"version\": 4}", 0, 1, 23, "with no comma"},
        {"{\"format\": \"octo_anm\", x: 1}", 0, 1, 24, "a bare word where a key"},
        {"{\"format\": \"octo_anm\", 'x': 1}", 0, 1, 24, "a single-quoted key"},
        {"{\"format\": \"octo_anm\", \"x\" 1}", 0, 1, 28, "no ':' after it"},
        {"{\"format\": \"octo_anm\", \"x\": \"\\q\"}", 0, 1, 30, "an unknown escape"},
        {"\xef\xbb\xbf{\"format\": \"octo_anm\"}", 0, 1, 1, "a UTF-8 byte-order mark"},
        {"\xff\xfe{\0}\0", 6, 1, 1, "UTF-16 little-endian text (with a byte-order mark)"},
        {"\0{\0}", 4, 1, 1, "UTF-16 big-endian text: save"},
        {"\n  hello", 0, 2, 3, "text that is not JSON, starting with 'h'"},
        {"\x01", 0, 1, 1, "starting with byte 01"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].size ? cases[i].size : strlen(cases[i].text);
        onescope_error err;
        onescope_ots_clip *c = NULL;
        onescope_code rc = onescope_ots_clip_parse(cases[i].text, n, "s.anm", NULL, &c, &err);
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        if (rc != ONESCOPE_E_SYNTAX || err.line != cases[i].line || err.column != cases[i].column ||
            strstr(err.found, cases[i].found) == NULL || strstr(line, "expected") == NULL ||
            strstr(line, " near ") != NULL) {
            print_message("case %zu: %s (rc %d)\n", i, line, (int)rc);
            bad++;
        }
        assert_null(c);
    }
    assert_int_equal(bad, 0);
    /* the same for a rig, and detection still names what the text claims to be */
    onescope_error err;
    onescope_ots_rig *r = NULL;
    static const char bom_rig[] = "\xef\xbb\xbf{\"format\": \"octo_pvt\"}";
    assert_int_equal(onescope_ots_detect(bom_rig, sizeof bom_rig - 1), ONESCOPE_OTS_PVT);
    assert_int_equal(onescope_ots_rig_parse(bom_rig, sizeof bom_rig - 1, "r.pvt", NULL, &r, &err),
                     ONESCOPE_E_SYNTAX);
    assert_non_null(strstr(err.found, "byte-order mark"));
    static const char be[] = "\0{\0\"\0f\0o\0r\0m\0a\0t\0\"\0:\0\"\0o\0c\0t\0o\0_\0a\0n\0m\0\"\0}";
    assert_int_equal(onescope_ots_detect(be, sizeof be - 1), ONESCOPE_OTS_ANM);
    static const char odd[] = "\xfe\xff\0{\x30\x42";
    assert_int_equal(onescope_ots_detect(odd, sizeof odd - 1), ONESCOPE_OTS_NONE);
    /* text after a whole document, at its first character */
    onescope_ots_clip *c = NULL;
    size_t len = strlen(clip_text);
    char *more = malloc(len + 3);
    assert_non_null(more);
    memcpy(more, clip_text, len);
    memcpy(more + len, " x", 3);
    assert_int_equal(onescope_ots_clip_parse(more, len + 2, "m.anm", NULL, &c, &err),
                     ONESCOPE_E_SYNTAX);
    assert_int_equal(err.offset, len + 1);
    assert_non_null(strstr(err.found, "more text after the end"));
    free(more);
    /* a raw control character inside a string */
    assert_int_equal(onescope_ots_clip_parse("{\"a\": \"\x01\"}", 10, "u.anm", NULL, &c, &err),
                     ONESCOPE_E_SYNTAX);
    assert_non_null(strstr(err.found, "control character"));
}

/* ---- every error of a file (issue 16, item 4) ---- */

typedef struct error_list {
    int count;
    char field[16][96];
    onescope_code code[16];
    uint32_t line[16];
} error_list;

static void collect(void *user, const onescope_error *e) {
    error_list *l = user;
    if (l->count < 16) {
        snprintf(l->field[l->count], sizeof l->field[0], "%s", e->field);
        l->code[l->count] = e->code;
        l->line[l->count] = e->line;
    }
    l->count++;
}

static onescope_code parse_listing(const char *text, uint32_t max, error_list *l,
                                   onescope_error *err) {
    memset(l, 0, sizeof *l);
    onescope_parse_options o = onescope_parse_options_default();
    o.on_error = collect;
    o.on_error_user = l;
    o.max_errors = max;
    onescope_ots_clip *c = (onescope_ots_clip *)1;
    onescope_code rc = onescope_ots_clip_parse(text, strlen(text), "e.anm", &o, &c, err);
    if (rc == ONESCOPE_OK) onescope_ots_clip_free(c);
    return rc;
}

static void every_error_in_file_order(void **state) {
    (void)state;
    /* four errors in four places: a peg name, a keyframe's interp, a keyframe's missing pos,
     * a camera's fov; then the duplicate peg name found once the array is read */
    char *t1 = edit(clip_text, "\"name\": \"root-P\"", "\"name\": 7");
    char *t2 = edit(t1, "\"interp\": \"BEZIER\"", "\"interp\": \"SMOOTH\"");
    char *t3 = edit(t2, "\"pos\": [1.0, 2.0, 3.0], ", "");
    char *t4 = edit(t3, "\"fov\": 40.0", "\"fov\": \"wide\"");
    error_list l;
    onescope_error err;
    assert_int_equal(parse_listing(t4, 50, &l, &err), ONESCOPE_E_TYPE);
    static const char *const want[] = {"pegs[0].name", "pegs[1].keyframes[0].interp",
                                       "pegs[1].keyframes[1].pos", "cameras[0].fov"};
    assert_int_equal(l.count, 4);
    for (int i = 0; i < 4; i++)
        if (strcmp(l.field[i], want[i]) != 0)
            fail_msg("error %d: %s, wanted %s", i, l.field[i], want[i]);
    assert_true(l.line[0] < l.line[1] && l.line[1] < l.line[2] && l.line[2] < l.line[3]);
    /* the call's own error is the first one */
    assert_string_equal(err.field, "pegs[0].name");
    /* the cap: two, and the call still fails with the first */
    assert_int_equal(parse_listing(t4, 2, &l, &err), ONESCOPE_E_TYPE);
    assert_int_equal(l.count, 2);
    assert_string_equal(err.field, "pegs[0].name");
    /* without on_error, the first error only, as before */
    onescope_ots_clip *c;
    assert_int_equal(onescope_ots_clip_parse(t4, strlen(t4), "e.anm", NULL, &c, &err),
                     ONESCOPE_E_TYPE);
    assert_string_equal(err.field, "pegs[0].name");
    /* max_errors 0 means one */
    assert_int_equal(parse_listing(t4, 0, &l, &err), ONESCOPE_E_TYPE);
    assert_int_equal(l.count, 1);
    /* the checks across arrays run when the elements read cleanly: two duplicate names */
    char *d1 = edit(clip_text, "\"name\": \"hip-P\"", "\"name\": \"root-P\"");
    char *d0 = edit(d1, "\"rig\": \"ship\", ", "");
    char *d2 = edit(d0, "\"parent\": \"root-P\"", "\"parent\": null");
    char *d3 = edit(d2, "\"pivot_y\": 0.0}\n",
                    "\"pivot_y\": 0.0},\n    {\"name\": \"cam\", \"peg\": null, \"is_default\": "
                    "false, \"fov\": 40.0, \"fov_axis\": \"vertical\", \"override_fov\": false, "
                    "\"near_plane\": 0.1, \"far_plane\": 100.0, \"near_field\": 0.5, "
                    "\"far_field\": 50.0, \"angle\": 0.0, \"offset_x\": 0.0, \"offset_y\": 0.0, "
                    "\"offset_z\": 12.0, \"pivot_x\": 0.0, \"pivot_y\": 0.0}\n");
    assert_int_equal(parse_listing(d3, 50, &l, &err), ONESCOPE_E_DUPLICATE);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.field[0], "cameras[1].name");
    assert_string_equal(l.field[1], "pegs[1].name");
    /* a syntax error ends the list: the errors before it, then it */
    size_t n = strlen(t4);
    char *cut = malloc(n);
    memcpy(cut, t4, n - 8);
    cut[n - 8] = '\0';
    assert_int_equal(parse_listing(cut, 50, &l, &err), ONESCOPE_E_TYPE);
    assert_int_equal(l.count, 5);
    assert_int_equal(l.code[4], ONESCOPE_E_SYNTAX);
    /* a value a double cannot hold is reported at its member, and the reading goes on */
    char *n1 = edit(clip_text, "\"fps\": 24.0", "\"fps\": NaN, \"bogus\": 1e999");
    char *n2 = edit(n1, "\"frame\": 5", "\"frame\": 99999999999999999999");
    assert_int_equal(parse_listing(n2, 50, &l, &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(l.count, 3); /* and fps, though refused, is not also missing */
    assert_string_equal(l.field[0], "fps");
    assert_int_equal(l.code[1], ONESCOPE_E_NOT_FINITE); /* the unknown key's value */
    assert_string_equal(l.field[1], "bogus");
    assert_string_equal(l.field[2], "pegs[1].keyframes[1].frame");
    assert_int_equal(l.code[2], ONESCOPE_E_RANGE);
    /* bones read before the scale factor: a bone with an error is not checked again later */
    char *b1 = edit(rig_text, "  \"scale_factor\": 2.0,\n", "");
    char *b2 = edit(b1, "\"cameras\": []", "\"cameras\": [], \"scale_factor\": 2.0");
    char *b3 =
        edit(b2, "\"rotation\": [0.0, 1.0, 0.0, 0.0]", "\"rotation\": [0.0, 0.0, \"x\", 0.0]");
    memset(&l, 0, sizeof l);
    onescope_parse_options ro = onescope_parse_options_default();
    ro.on_error = collect;
    ro.on_error_user = &l;
    ro.max_errors = 50;
    onescope_ots_rig *rig = NULL;
    assert_int_equal(onescope_ots_rig_parse(b2, strlen(b2), "b.pvt", &ro, &rig, &err), ONESCOPE_OK);
    assert_true(rig->bones[0].pivot[1] == 1.0); /* unscaled once the factor came */
    onescope_ots_rig_free(rig);
    assert_int_equal(onescope_ots_rig_parse(b3, strlen(b3), "b.pvt", &ro, &rig, &err),
                     ONESCOPE_E_TYPE);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.field[0], "bones[1].rotation[2]");
    free(b1);
    free(b2);
    free(b3);
    free(n1);
    free(n2);
    /* a file of another version: that error alone, however many would follow */
    char *v3 = edit(t4, "\"version\": 4", "\"version\": 3");
    assert_int_equal(parse_listing(v3, 50, &l, &err), ONESCOPE_E_VERSION);
    assert_int_equal(l.count, 1);
    free(v3);
    free(cut);
    free(d0);
    free(d1);
    free(d2);
    free(d3);
    free(t1);
    free(t2);
    free(t3);
    free(t4);
}

/* ---- cache -> .anm file, a peg at a time (issue 12 item 7) ---- */

/* A 3D cache for the file tests: entity 0 still, 1 on a line, 2 on a curve with absent
 * frames, the rest turning; names on even entities only (the others become "entity-ID"). */
static onescope_pose_cache *anm_file_cache(uint32_t ne, uint32_t nf, double mpu,
                                           const onescope_allocator *a) {
    onescope_error err;
    onescope_pose_cache *pc = NULL;
    if (onescope_pose_cache_create(3, ne, nf, a, &pc, &err) != ONESCOPE_OK) return NULL;
    pc->metres_per_unit = mpu;
    pc->start_step = 5;
    for (uint32_t e = 0; e < ne; e++) {
        char name[32];
        int n = snprintf(name, sizeof name, "body %u", (unsigned)e);
        if (e % 2 == 0 &&
            onescope_pose_cache_set_entity_name(pc, e, name, (size_t)n, &err) != ONESCOPE_OK) {
            onescope_pose_cache_free(pc);
            return NULL;
        }
        for (uint32_t f = 0; f < nf; f++) {
            onescope_pose *p = &pc->poses[(size_t)f * ne + e];
            double t = f * 0.1;
            if (e == 0) {
                p->position[1] = 2.5f;
            } else if (e == 1) {
                p->position[0] = (float)f;
            } else if (e == 2) {
                p->position[0] = (float)sin(t);
                p->position[2] = (float)(t * t);
                if (f % 7 == 3) p->position[0] = NAN; /* absent */
            } else {
                double h = 0.5 * t * e;
                p->rotation[1] = (float)sin(h);
                p->rotation[3] = (float)cos(h);
                p->position[2] = (float)(e + 0.01 * f);
            }
        }
    }
    return pc;
}

static char *anm_file_path(const char *tag) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/test_ots-anmfile-%s-%ld.anm", tag, (long)getpid());
    return path;
}

/* The file call and the in-memory call on the same cache and options: the same verdict, and
 * on success the same bytes; on failure no file. Returns the code. */
static onescope_code anm_file_same_as_memory(const onescope_pose_cache *pc,
                                             const onescope_ots_from_cache_options *from) {
    const char *path = anm_file_path("same");
    unlink(path);
    onescope_error e1, e2;
    onescope_buffer mem;
    onescope_code rc = onescope_ots_pose_cache_to_anm(pc, from, NULL, &mem, &e1);
    onescope_code frc = onescope_ots_pose_cache_to_anm_file(pc, from, path, &e2);
    assert_int_equal(frc, rc);
    if (rc == ONESCOPE_OK) {
        onescope_buffer disk;
        assert_int_equal(onescope_file_read(path, 0, NULL, &disk, &e2), ONESCOPE_OK);
        assert_int_equal(disk.size, mem.size);
        assert_memory_equal(disk.data, mem.data, mem.size);
        onescope_buffer_free(&disk);
        onescope_buffer_free(&mem);
    } else {
        assert_null(mem.data);
        assert_string_equal(e2.input, e1.input);
        assert_int_equal(access(path, F_OK), -1);
    }
    unlink(path);
    return rc;
}

static void anm_file_equals_memory(void **state) {
    (void)state;
    onescope_error err;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    /* a 2D cache in millimetres, from the test data */
    onescope_pose_cache *pc;
    assert_int_equal(
        onescope_pose_cache_read_file(ONESCOPE_TESTDATA "/test-2d-ghost.ospc", NULL, &pc, &err),
        ONESCOPE_OK);
    assert_int_equal(anm_file_same_as_memory(pc, NULL), ONESCOPE_OK);
    from.keys_all = true;
    assert_int_equal(anm_file_same_as_memory(pc, &from), ONESCOPE_OK);
    onescope_pose_cache_free(pc);
    /* absent poses, a still entity, fallback names, centimetres, every up axis, both key
     * choices; 40 x 300 with keys_all passes the 1 MiB buffer several times */
    const uint32_t sizes[2][2] = {{5, 40}, {40, 300}};
    for (int s = 0; s < 2; s++) {
        pc = anm_file_cache(sizes[s][0], sizes[s][1], 0.01, NULL);
        assert_non_null(pc);
        for (int up = -1; up < 3; up++)
            for (int all = 0; all < 2; all++) {
                from = onescope_ots_from_cache_options_default();
                from.name = "gen.ospc";
                from.keys_all = all;
                from.up_given = up >= 0;
                from.up = up >= 0 ? (onescope_ots_up)up : ONESCOPE_OTS_UP_Y;
                from.fps = 30;
                from.source = ONESCOPE_OTS_SOURCE_MAYA;
                assert_int_equal(anm_file_same_as_memory(pc, &from), ONESCOPE_OK);
            }
        onescope_pose_cache_free(pc);
    }
    /* the file is big enough to have been written in several pieces */
    pc = anm_file_cache(40, 300, 0.01, NULL);
    from = onescope_ots_from_cache_options_default();
    from.keys_all = true;
    const char *path = anm_file_path("big");
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, path, &err), ONESCOPE_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 3 * (1 << 20));
    unlink(path);
    /* an up label the cache records, and a contradiction of it */
    assert_int_equal(onescope_pose_cache_set_text(pc, ONESCOPE_POSE_TEXT_LABEL, "up=z", 4, &err),
                     ONESCOPE_OK);
    assert_int_equal(anm_file_same_as_memory(pc, NULL), ONESCOPE_OK);
    from.up_given = true;
    from.up = ONESCOPE_OTS_UP_X;
    assert_int_equal(anm_file_same_as_memory(pc, &from), ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(pc);
    /* refusals: a unitless cache, two pegs of one name; neither creates the file */
    pc = anm_file_cache(4, 10, 0, NULL);
    assert_int_equal(anm_file_same_as_memory(pc, NULL), ONESCOPE_E_ARGUMENT);
    pc->metres_per_unit = 1;
    assert_int_equal(onescope_pose_cache_set_entity_name(pc, 2, "body 0", 6, &err), ONESCOPE_OK);
    from = onescope_ots_from_cache_options_default();
    from.name = "dup.ospc";
    onescope_code dup = anm_file_same_as_memory(pc, &from);
    assert_true(dup != ONESCOPE_OK);
    onescope_pose_cache_free(pc);
}

/* A file's worth of allocations, each refused in turn: no leak, no file, no temporary. */
static bool dir_has_temporary(const char *dir, const char *prefix) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '^%s.*\\.tmp-'", dir, prefix);
    return system(cmd) == 0;
}

static onescope_code anm_file_walk(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    const char *path = anm_file_path("walk");
    onescope_pose_cache *pc = anm_file_cache(3, 12, 1, a);
    if (pc == NULL) return ONESCOPE_E_NOMEM;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    onescope_error err;
    onescope_code rc = onescope_ots_pose_cache_to_anm_file(pc, &from, path, &err);
    if (rc != ONESCOPE_OK) {
        assert_int_equal(access(path, F_OK), -1);
        /* the conversion's failures name the input, the file's own the path */
        assert_true(strcmp(err.input, "ospc to anm") == 0 || strcmp(err.input, path) == 0);
    }
    unlink(path);
    onescope_pose_cache_free(pc);
    return rc;
}

static void anm_file_allocation_failure(void **state) {
    (void)state;
    assert_true(test_alloc_walk(anm_file_walk, NULL) > 5);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test_ots-anmfile-walk-%ld", (long)getpid());
    assert_false(dir_has_temporary("/tmp", prefix));
}

/* A failure half way (the output limit passed, an unwritable place) leaves no file, no
 * temporary, and an existing file as it was. */
static void anm_file_failure_leaves_nothing(void **state) {
    (void)state;
    onescope_error err;
    onescope_pose_cache *pc = anm_file_cache(40, 300, 1, NULL);
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    from.keys_all = true;
    from.name = "limit.ospc";
    onescope_buffer mem;
    assert_int_equal(onescope_ots_pose_cache_to_anm(pc, &from, NULL, &mem, &err), ONESCOPE_OK);
    const char *path = anm_file_path("limit");
    test_write_file(path, "old", 3);
    /* one byte short of the real size: refused at the end, naming the input and the limit */
    assert_int_equal(
        onescope_os_ots_pose_cache_to_anm_file_limit(pc, &from, path, mem.size - 1, &err),
        ONESCOPE_E_TOO_LARGE);
    assert_string_equal(err.input, "limit.ospc");
    char limit_text[64];
    snprintf(limit_text, sizeof limit_text, "at most %zu bytes", mem.size - 1);
    assert_non_null(strstr(err.expected, limit_text));
    /* past the first 1 MiB piece: refused before the second is written */
    assert_int_equal(
        onescope_os_ots_pose_cache_to_anm_file_limit(pc, &from, path, (1u << 20) + 100, &err),
        ONESCOPE_E_TOO_LARGE);
    onescope_buffer disk;
    assert_int_equal(onescope_file_read(path, 0, NULL, &disk, &err), ONESCOPE_OK);
    assert_int_equal(disk.size, 3);
    assert_memory_equal(disk.data, "old", 3);
    onescope_buffer_free(&disk);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test_ots-anmfile-limit-%ld", (long)getpid());
    assert_false(dir_has_temporary("/tmp", prefix));
    /* exactly the real size fits, and replaces the old file */
    assert_int_equal(onescope_os_ots_pose_cache_to_anm_file_limit(pc, &from, path, mem.size, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_file_read(path, 0, NULL, &disk, &err), ONESCOPE_OK);
    assert_int_equal(disk.size, mem.size);
    assert_memory_equal(disk.data, mem.data, mem.size);
    onescope_buffer_free(&disk);
    unlink(path);
    onescope_buffer_free(&mem);
    /* a directory that does not exist: the file's own error names the path */
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, "/nonexistent-dir/x.anm", &err),
                     ONESCOPE_E_IO);
    assert_string_equal(err.input, "/nonexistent-dir/x.anm");
    /* "-" and NULL are refused, naming the input */
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, "-", &err),
                     ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "limit.ospc");
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(NULL, &from, path, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(access(path, F_OK), -1);
    /* a refused cache creates nothing either */
    from.name = "far.ospc";
    pc->metres_per_unit = 0;
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, path, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(access(path, F_OK), -1);
    onescope_pose_cache_free(pc);
}

/* Memory: one peg's keyframes and the fixed buffer, whatever the frames. */
/* The most bytes the file call holds at once beyond the cache, for ne x nf frames. */
static size_t anm_file_peak(uint32_t ne, uint32_t nf, bool all) {
    test_byte_count b;
    test_byte_count_init(&b);
    onescope_pose_cache *pc = anm_file_cache(ne, nf, 1, &b.allocator);
    assert_non_null(pc);
    size_t before = b.live;
    b.peak = b.live;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    from.keys_all = all;
    onescope_error err;
    const char *path = anm_file_path("peak");
    assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, path, &err), ONESCOPE_OK);
    unlink(path);
    onescope_pose_cache_free(pc);
    assert_int_equal(b.live, 0);
    return b.peak - before;
}

static void anm_file_memory_is_one_peg(void **state) {
    (void)state;
    for (int all = 0; all < 2; all++) {
        size_t one = anm_file_peak(30, 1000, all), two = anm_file_peak(30, 2000, all);
        size_t many = anm_file_peak(120, 1000, all);
        /* the buffer, one peg's keyframes (room for every frame), names */
        size_t bound = ((size_t)1 << 20) + ((size_t)64 << 10) +
                       2000 * sizeof(onescope_ots_keyframe) +
                       120 * (sizeof(onescope_ots_peg) + 64) + 8192;
        printf("anm file peak bytes (keys %s): 30x1000 %zu, 30x2000 %zu, 120x1000 %zu\n",
               all ? "all" : "needed", one, two, many);
        assert_true(one <= bound && two <= bound && many <= bound);
        /* twice the frames: only the one peg's keyframes grow (and the key index, 8 bytes
         * a key kept, doubled as it grows: at most 24 bytes a key for a moment) */
        assert_true(two - one <= 1000 * (sizeof(onescope_ots_keyframe) + 24) + 4096);
        /* four times the entities: only the names grow */
        assert_true(many - one <= 90 * (sizeof(onescope_ots_peg) + 64));
    }
}

/* A cache of one entity that never moves, nf frames. */
static onescope_pose_cache *still_cache(uint32_t nf, const onescope_allocator *a) {
    onescope_error err;
    onescope_pose_cache *pc = NULL;
    if (onescope_pose_cache_create(3, 1, nf, a, &pc, &err) != ONESCOPE_OK) return NULL;
    pc->metres_per_unit = 1;
    for (uint32_t f = 0; f < nf; f++) pc->poses[f].position[1] = 2.5f;
    return pc;
}

/* Issue 21.9: the keys of a long still entity are decided as the frames go by; nothing
 * is allocated per frame (0.3.0 allocated a keyframe per present frame first: ~500 bytes
 * each, 2.15 GB for 4 M frames). Both the file and the in-memory conversion. */
static void still_entity_memory_follows_keys(void **state) {
    (void)state;
    size_t peak[2][2];
    const uint32_t frames[2] = {50000, 200000};
    for (int k = 0; k < 2; k++) {
        for (int to_file = 0; to_file < 2; to_file++) {
            test_byte_count b;
            test_byte_count_init(&b);
            onescope_pose_cache *pc = still_cache(frames[k], &b.allocator);
            assert_non_null(pc);
            size_t before = b.live;
            b.peak = b.live;
            onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
            onescope_error err;
            if (to_file) {
                const char *path = anm_file_path("still");
                assert_int_equal(onescope_ots_pose_cache_to_anm_file(pc, &from, path, &err),
                                 ONESCOPE_OK);
                unlink(path);
            } else {
                onescope_ots_clip *clip = NULL;
                assert_int_equal(
                    onescope_ots_clip_from_pose_cache(pc, &from, &b.allocator, &clip, &err),
                    ONESCOPE_OK);
                assert_int_equal(clip->pegs[0].keyframe_count, 1); /* one CONSTANT key */
                assert_int_equal(clip->pegs[0].keyframes[0].interp, ONESCOPE_OTS_CONSTANT);
                onescope_ots_clip_free(clip);
            }
            onescope_pose_cache_free(pc);
            assert_int_equal(b.live, 0);
            peak[k][to_file] = b.peak - before;
        }
    }
    printf("still entity peak bytes: memory %zu / %zu, file %zu / %zu (50000 / 200000 frames)\n",
           peak[0][0], peak[1][0], peak[0][1], peak[1][1]);
    /* 1 key: the clip, a few small blocks; the file adds its fixed buffer */
    assert_true(peak[1][0] <= 16384);
    assert_true(peak[1][1] <= ((size_t)1 << 20) + ((size_t)64 << 10) + 16384);
    /* four times the frames, the same bytes */
    assert_int_equal(peak[0][0], peak[1][0]);
    assert_int_equal(peak[0][1], peak[1][1]);
}

/* Issue 21.6: the clip text with its "format" member moved after pad bytes of white space. */
static char *format_after(size_t pad, size_t *size) {
    const char *member = "\"format\": \"octo_anm\",\n";
    const char *at = strstr(clip_text, member);
    assert_non_null(at);
    strbuf b = {0};
    sb_put(&b, clip_text, (size_t)(at - clip_text));
    const char *version = "\"version\": 4,\n";
    const char *rest = strstr(at, version);
    assert_non_null(rest);
    sb_printf(&b, "%s", version);
    for (size_t i = 0; i < pad; i++) sb_put(&b, " ", 1);
    sb_put(&b, member, strlen(member));
    sb_put(&b, rest + strlen(version), strlen(rest + strlen(version)));
    *size = b.n;
    return b.s;
}

/* One rule for every reader: the parse (Python's Clip.open, dump, convert), the file reader and
 * the streamed validate all refuse a "format" member detection does not see, and all accept it
 * up to the last byte detection reads. */
static void format_member_where_detection_looks(void **state) {
    (void)state;
    static const struct {
        size_t pad;
        bool ok;
    } cases[] = {{0, true},
                 {ONESCOPE_FORMAT_DETECT_BYTES - 100, true},
                 {ONESCOPE_FORMAT_DETECT_BYTES - 30, false},
                 {ONESCOPE_FORMAT_DETECT_BYTES, false}};
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_ots-detect-%ld.anm", (long)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        char *t = format_after(cases[i].pad, &size);
        onescope_format want = cases[i].ok ? ONESCOPE_FORMAT_ANM : ONESCOPE_FORMAT_UNKNOWN;
        assert_int_equal(onescope_format_detect(t, size), want);
        onescope_error err;
        onescope_ots_clip *c = NULL;
        onescope_code rc = onescope_ots_clip_parse(t, size, "d.anm", NULL, &c, &err);
        if (cases[i].ok) {
            assert_int_equal(rc, ONESCOPE_OK);
            onescope_ots_clip_free(c);
        } else {
            assert_int_equal(rc, ONESCOPE_E_MAGIC);
            assert_null(c);
            assert_string_equal(err.field, "format");
            assert_non_null(strstr(err.expected, "first 1048576 bytes"));
            assert_true(err.offset > ONESCOPE_FORMAT_DETECT_BYTES - 30);
        }
        test_write_file(path, t, size);
        /* the CLI's dump and convert: the one read path, then detection on the whole file */
        onescope_buffer buf;
        assert_int_equal(onescope_file_read(path, 0, NULL, &buf, &err), ONESCOPE_OK);
        assert_int_equal(onescope_format_detect(buf.data, buf.size), want);
        onescope_buffer_free(&buf);
        onescope_format f;
        rc = onescope_file_validate(path, NULL, &f, &err);
        assert_int_equal(rc, cases[i].ok ? ONESCOPE_OK : ONESCOPE_E_MAGIC);
        assert_int_equal(f, want);
        free(t);
    }
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_parse),
        cmocka_unit_test(camera_defaults_on_create),
        cmocka_unit_test(version_must_match),
        cmocka_unit_test(syntax_and_numbers),
        cmocka_unit_test(types_and_missing_keys),
        cmocka_unit_test(enums_and_lengths),
        cmocka_unit_test(rules_between_values),
        cmocka_unit_test(ambiguous_parent_is_a_root),
        cmocka_unit_test(colliding_names_stay_n_log_n),
        cmocka_unit_test(duplicate_is_the_first_repeat),
        cmocka_unit_test(parent_lookup_prefers_own_rig),
        cmocka_unit_test(long_parent_chain),
        cmocka_unit_test(generated_clip_round_trip),
        cmocka_unit_test(generated_rig_round_trip),
        cmocka_unit_test(numbers_print_shortest),
        cmocka_unit_test(validator_refuses_what_parser_would),
        cmocka_unit_test(validator_checks_every_rig_field),
        cmocka_unit_test(validator_checks_every_clip_field),
        cmocka_unit_test(arguments_are_checked),
        cmocka_unit_test(wrong_types_everywhere),
        cmocka_unit_test(pivots_unscale_exactly),
        cmocka_unit_test(interpolation_modes),
        cmocka_unit_test(rotation_interpolation),
        cmocka_unit_test(clip_to_cache),
        cmocka_unit_test(cache_to_clip_and_back),
        cmocka_unit_test(mutations_are_refused_or_stable),
        cmocka_unit_test(allocation_failure_everywhere),
        cmocka_unit_test(building_allocation_failure),
        cmocka_unit_test(conversions_check_once),
        cmocka_unit_test(conversions_allocation_failure),
        cmocka_unit_test(bake_to_file_streams),
        cmocka_unit_test(bake_to_file_allocation_failure),
        cmocka_unit_test(anm_file_stream_allocation_failure),
        cmocka_unit_test(anm_file_stream_edges),
        cmocka_unit_test(anm_output_sized_first),
        cmocka_unit_test(convert_keeps_units),
        cmocka_unit_test(convert_keeps_up_axis),
        cmocka_unit_test(convert_keeps_needed_keys),
        cmocka_unit_test(syntax_in_plain_words),
        cmocka_unit_test(every_error_in_file_order),
        cmocka_unit_test(anm_file_equals_memory),
        cmocka_unit_test(anm_file_allocation_failure),
        cmocka_unit_test(anm_file_failure_leaves_nothing),
        cmocka_unit_test(anm_file_memory_is_one_peg),
        cmocka_unit_test(still_entity_memory_follows_keys),
        cmocka_unit_test(format_member_where_detection_looks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
