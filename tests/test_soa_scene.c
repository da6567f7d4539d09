/* The SoA world's JSON scene: parsing (with or without Box3D), the line, column, offset and
 * JSON path of every kind of error, limits, allocation failures, and building/recording
 * (ONESCOPE_E_UNSUPPORTED without Box3D). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char full_scene[] =
    "{\n"
    "  \"gravity\": [0, -9.81, 0],\n"
    "  \"dt\": 0.02,\n"
    "  \"substeps\": 6,\n"
    "  \"enable_sleep\": false,\n"
    "  \"bodies\": [\n"
    "    {\"name\": \"floor\", \"kind\": \"static_box\", \"position\": [0, -0.5, 0], \"size\": "
    "[10, 0.5, 10]},\n"
    "    {\"name\": \"ball\", \"kind\": \"sphere\", \"position\": [0, 2, 0], \"size\": [0.25, 0, "
    "0], \"restitution\": 0.2},\n"
    "    {\"name\": \"post\", \"kind\": \"static_box\", \"position\": [3, 2, 0], \"size\": [0.1, "
    "0.1, 0.1]},\n"
    "    {\"name\": \"arm\", \"kind\": \"box\", \"position\": [3.6, 2, 0], \"size\": [0.5, 0.05, "
    "0.05], \"parent\": 2, \"limb\": 1},\n"
    "    {\"kind\": \"capsule\", \"position\": [-2, 1, 0], \"size\": [0.2, 0.4, 0], \"rotation\": "
    "[0, 0, 1, 1]}\n"
    "  ],\n"
    "  \"joints\": [\n"
    "    {\"kind\": \"revolute\", \"body_a\": 2, \"body_b\": 3, \"anchor\": [3, 2, 0], \"axis\": "
    "[0, 0, 1],\n"
    "     \"limit\": [-1, 1], \"spring\": {\"hertz\": 1, \"damping_ratio\": 0.5},\n"
    "     \"motor\": {\"speed\": 0.5, \"max_torque\": 3}, \"collide_connected\": true}\n"
    "  ]\n"
    "}\n";

static const char *fmt(const onescope_error *e) {
    static char line[1024];
    onescope_error_format(e, line, sizeof line);
    return line;
}

static onescope_soa_scene *parse_ok(const char *text) {
    onescope_soa_scene *s = NULL;
    onescope_error err;
    onescope_code rc = onescope_soa_scene_parse(text, strlen(text), "scene.json", NULL, &s, &err);
    if (rc != ONESCOPE_OK) fail_msg("parse: %s", fmt(&err));
    assert_non_null(s);
    return s;
}

/* Every body's and joint's line and column, which the parser takes from the reader as it
 * passes each element (one walk: issue 14 made finding each element from the start of the text
 * quadratic), equal where the element starts, found below by a naive scan of the text, under
 * awkward spacing, strings holding brackets, commas, quotes and escapes, and multibyte
 * characters. */
static void append(char **buf, size_t *len, size_t *cap, const char *piece) {
    size_t n = strlen(piece);
    while (*len + n + 1 > *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
    memcpy(*buf + *len, piece, n + 1);
    *len += n;
}

/* The offsets where the elements of the array under the root's key `key` (as written in the
 * text, escapes and all) start, at most max of them: a scan that only tracks strings, nesting
 * and commas, independent of the parser. */
static size_t element_starts(const char *t, const char *key, size_t *out, size_t max) {
    size_t n = strlen(t), count = 0, klen = strlen(key), last_len = 0;
    const char *last_key = NULL;
    int depth = 0;
    bool in_array = false, expect = false;
    for (size_t i = 0; i < n; i++) {
        char ch = t[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t' || ch == ':') continue;
        if (in_array && depth == 2 && expect && ch != ']') {
            assert_true(count < max);
            out[count++] = i;
        }
        expect = false;
        if (ch == '"') {
            size_t j = i + 1;
            while (t[j] != '"') j += t[j] == '\\' ? 2 : 1;
            if (depth == 1) last_key = t + i + 1, last_len = j - i - 1;
            i = j;
        } else if (ch == '{' || ch == '[') {
            if (depth == 1 && ch == '[' && last_key != NULL && last_len == klen &&
                memcmp(last_key, key, klen) == 0)
                in_array = expect = true;
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 1) in_array = false;
        } else if (ch == ',' && in_array && depth == 2) {
            expect = true;
        }
    }
    return count;
}

/* Line and column from 1, columns in characters (a UTF-8 sequence counts once). */
static void line_column_of(const char *t, size_t at, uint32_t *line, uint32_t *column) {
    *line = *column = 1;
    for (size_t i = 0; i < at; i++) {
        if (t[i] == '\n')
            ++*line, *column = 1;
        else if (((unsigned char)t[i] & 0xC0) != 0x80)
            ++*column;
    }
}

static void expect_positions(const char *text, const char *bodies_key, size_t nb, size_t nj) {
    onescope_soa_scene *s = parse_ok(text);
    assert_int_equal(s->body_count, nb);
    assert_int_equal(s->joint_count, nj);
    size_t *at = malloc((nb + nj + 1) * sizeof *at);
    assert_non_null(at);
    assert_int_equal(element_starts(text, bodies_key, at, nb), nb);
    assert_int_equal(element_starts(text, "joints", at + nb, nj), nj);
    for (size_t i = 0; i < nb + nj; i++) {
        uint32_t line, column;
        line_column_of(text, at[i], &line, &column);
        const onescope_soa_scene_body *b = i < nb ? &s->bodies[i] : NULL;
        const onescope_soa_scene_joint *j = i < nb ? NULL : &s->joints[i - nb];
        uint32_t got_line = b ? b->line : j->line, got_column = b ? b->column : j->column;
        if (got_line != line || got_column != column)
            fail_msg("%s[%zu]: at %u:%u, want %u:%u", i < nb ? "bodies" : "joints",
                     i < nb ? i : i - nb, got_line, got_column, line, column);
    }
    free(at);
    onescope_soa_scene_free(s);
}

static void test_positions_in_one_pass(void **state) {
    (void)state;
    static const char *const gaps[] = {"", " ", "\n", "\r\n  ", "\t", " \n\n   "};
    enum { NB = 300, NJ = 500 };
    char *text = NULL, piece[256];
    size_t len = 0, cap = 0;
    append(&text, &len, &cap, "{\"joints\": [");
    for (size_t i = 0; i < NJ; i++) {
        snprintf(piece, sizeof piece,
                 "%s%s{\"kind\": \"weld\",%s\"body_a\": %zu, \"body_b\": %zu, \"motor\": "
                 "{\"speed\": 1}}%s",
                 i ? "," : "", gaps[i % 6], gaps[(i / 6) % 6], i % NB, (i + 1) % NB,
                 gaps[(i / 3) % 6]);
        append(&text, &len, &cap, piece);
    }
    append(&text, &len, &cap, "], \"bodies\"\n:\n[");
    for (size_t i = 0; i < NB; i++) {
        snprintf(piece, sizeof piece,
                 "%s%s{\"name\": \"b%zu [\\\"]\\\\ , {} \\u00e9 \xc3\xa9\xe2\x82\xac\",%s\"kind\": "
                 "\"sphere\", \"size\": [1, 0, 0]}%s",
                 gaps[(i / 2) % 6], i ? "," : "", i, gaps[i % 6], gaps[(i / 5) % 6]);
        append(&text, &len, &cap, piece);
    }
    append(&text, &len, &cap, "]}");
    expect_positions(text, "bodies", NB, NJ);
    free(text);
    /* the key written with an escape, and an empty joints array */
    expect_positions("{\"bod\\u0069es\": [{\"kind\": \"sphere\"},\n {\"kind\": \"sphere\"}]}",
                     "bod\\u0069es", 2, 0);
    expect_positions("{\"bodies\": [{\"kind\": \"sphere\"}], \"joints\": []}", "bodies", 1, 0);
}

static void test_parse_full(void **state) {
    (void)state;
    onescope_soa_scene *s = parse_ok(full_scene);
    assert_true(s->world.gravity[1] == -9.81f);
    assert_int_equal(s->world.enable_sleep, 0);
    assert_true(s->dt == 0.02f);
    assert_int_equal(s->substeps, 6);
    assert_int_equal(s->body_count, 5);
    assert_int_equal(s->joint_count, 1);
    assert_int_equal(s->world.body_capacity, 5);
    assert_int_equal(s->world.joint_capacity, 1);
    assert_string_equal(s->name, "scene.json");
    assert_string_equal(s->bodies[0].name, "floor");
    assert_string_equal(s->bodies[3].name, "arm");
    assert_null(s->bodies[4].name);
    assert_int_equal(s->bodies[0].def.kind, ONESCOPE_SOA_STATIC_BOX);
    assert_int_equal(s->bodies[1].def.kind, ONESCOPE_SOA_SPHERE);
    assert_int_equal(s->bodies[3].def.kind, ONESCOPE_SOA_BOX);
    assert_int_equal(s->bodies[4].def.kind, ONESCOPE_SOA_CAPSULE);
    assert_true(s->bodies[1].def.restitution == 0.2f);
    assert_true(s->bodies[3].def.position[0] == 3.6f);
    assert_int_equal(s->bodies[3].def.parent, 2);
    assert_int_equal(s->bodies[3].def.limb, 1);
    assert_true(s->bodies[4].def.rotation[2] == 1.0f && s->bodies[4].def.rotation[3] == 1.0f);
    /* keys the scene leaves out keep the descriptor defaults */
    onescope_soa_body_def bd = onescope_soa_body_def_default();
    assert_true(s->bodies[1].def.density == bd.density);
    assert_true(s->bodies[0].def.rotation[3] == bd.rotation[3]);
    assert_int_equal(s->bodies[0].def.parent, -1);
    /* each body's object: line 7.. , column 5 */
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(s->bodies[i].line, 7 + i);
        assert_int_equal(s->bodies[i].column, 5);
    }
    const onescope_soa_joint_def *j = &s->joints[0].def;
    assert_int_equal(s->joints[0].line, 14);
    assert_int_equal(s->joints[0].column, 5);
    assert_int_equal(j->kind, ONESCOPE_SOA_REVOLUTE);
    assert_int_equal(j->body_a, 2);
    assert_int_equal(j->body_b, 3);
    assert_int_equal(j->enable_limit, 1);
    assert_true(j->lower_angle == -1.0f && j->upper_angle == 1.0f);
    assert_int_equal(j->enable_spring, 1);
    assert_true(j->spring_hertz == 1.0f && j->spring_damping_ratio == 0.5f);
    assert_int_equal(j->enable_motor, 1);
    assert_true(j->motor_speed == 0.5f && j->max_motor_torque == 3.0f);
    assert_int_equal(j->collide_connected, 1);
    assert_int_equal(j->enable_cone_limit, 0);
    assert_int_equal(j->enable_twist_limit, 0);
    onescope_soa_scene_free(s);
    onescope_soa_scene_free(NULL);
}

static void test_parse_defaults(void **state) {
    (void)state;
    onescope_soa_scene *s = parse_ok("{\"bodies\": [{\"kind\": \"sphere\"}],\n"
                                     " \"joints\": []}");
    onescope_soa_world_def wd = onescope_soa_world_def_default();
    assert_true(s->dt == 1.0f / 60.0f);
    assert_int_equal(s->substeps, 4);
    assert_true(s->world.gravity[1] == wd.gravity[1]);
    assert_int_equal(s->world.enable_sleep, wd.enable_sleep);
    assert_int_equal(s->body_count, 1);
    assert_int_equal(s->joint_count, 0);
    assert_null(s->joints);
    onescope_soa_scene_free(s);
    /* spherical joint: cone, twist, motor velocity and spring target rotation */
    s = parse_ok("{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": "
                 "[{\"kind\": \"spherical\",\n"
                 " \"body_a\": 0, \"body_b\": 1, \"cone\": 0.5, \"twist\": [-0.25, 0.75],\n"
                 " \"motor\": {\"velocity\": [1, 2, 3]}, \"spring\": {\"target_rotation\": [0, 0, "
                 "0, 1], \"target_angle\": 0.1}}]}");
    const onescope_soa_joint_def *j = &s->joints[0].def;
    assert_int_equal(j->kind, ONESCOPE_SOA_SPHERICAL);
    assert_int_equal(j->enable_cone_limit, 1);
    assert_true(j->cone_angle == 0.5f);
    assert_int_equal(j->enable_twist_limit, 1);
    assert_true(j->lower_twist == -0.25f && j->upper_twist == 0.75f);
    assert_true(j->motor_velocity[2] == 3.0f);
    assert_true(j->target_rotation[3] == 1.0f && j->target_angle == 0.1f);
    assert_int_equal(s->joints[0].line, 1);
    assert_int_equal(s->joints[0].column, 62);
    onescope_soa_scene_free(s);
}

typedef struct bad_case {
    const char *text;
    onescope_code code;
    const char *field; /* "" for none */
    uint32_t line, column;
    const char *at; /* the text where the offset points (NULL: not checked) */
} bad_case;

static const bad_case bad_cases[] = {
    /* wrong type */
    {"{\"bodies\": [{\"kind\": \"sphere\", \"position\": [0, \"up\", 0]}]}", ONESCOPE_E_TYPE,
     "bodies[0].position[1]", 1, 48, "\"up\""},
    {"{\n  \"bodies\": [\n    {\"kind\": \"sphere\",\n     \"parent\": 1.5}]}", ONESCOPE_E_TYPE,
     "bodies[0].parent", 4, 16, "1.5"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}], \"enable_sleep\": 1}", ONESCOPE_E_TYPE, "enable_sleep",
     1, 50, "1}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}], \"dt\": false}", ONESCOPE_E_TYPE, "dt", 1, 40,
     "false"},
    {"{\"bodies\": {}}", ONESCOPE_E_TYPE, "bodies", 1, 12, "{}"},
    {"{\"bodies\": [7]}", ONESCOPE_E_TYPE, "bodies[0]", 1, 13, "7]"},
    {"[1, 2]", ONESCOPE_E_TYPE, "scene", 1, 1, "[1"},
    {"{\"bodies\": [{\"kind\": 3}]}", ONESCOPE_E_TYPE, "bodies[0].kind", 1, 22, "3}"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"name\": null}]}", ONESCOPE_E_TYPE, "bodies[0].name", 1,
     40, "null"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}],\n \"joints\": [{\"kind\": "
     "\"weld\", \"body_a\": 0,\n"
     "   \"body_b\": 1, \"motor\": [1]}]}",
     ONESCOPE_E_TYPE, "joints[0].motor", 3, 26, "[1]"},
    /* missing key: the path names the key, the position is its object's */
    {"{\"bodies\": [{\"name\": \"x\"}]}", ONESCOPE_E_TYPE, "bodies[0].kind", 1, 13, "{\"name\""},
    {"{\"dt\": 0.5}", ONESCOPE_E_TYPE, "bodies", 1, 1, "{\"dt\""},
    {"{\"bodies\": [{\"kind\": \"sphere\"}],\n \"joints\": [{\"kind\": \"weld\", \"body_a\": 0}]}",
     ONESCOPE_E_TYPE, "joints[0].body_b", 2, 13, "{\"kind\": \"weld\""},
    /* out of range */
    {"{\"dt\": 2, \"bodies\": [{\"kind\": \"sphere\"}]}", ONESCOPE_E_RANGE, "dt", 1, 8, "2,"},
    {"{\"dt\": 0, \"bodies\": [{\"kind\": \"sphere\"}]}", ONESCOPE_E_RANGE, "dt", 1, 8, "0,"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}],\n\"substeps\": 65}", ONESCOPE_E_RANGE, "substeps", 2,
     13, "65}"},
    {"{\"bodies\": []}", ONESCOPE_E_RANGE, "bodies", 1, 12, "[]"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"limb\": 2147483648}]}", ONESCOPE_E_RANGE,
     "bodies[0].limb", 1, 40, "2147483648"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"density\": -1e39}]}", ONESCOPE_E_RANGE,
     "bodies[0].density", 1, 43, "-1e39"},
    {"{\"bodies\": [{\"kind\": \"cube\"}]}", ONESCOPE_E_RANGE, "bodies[0].kind", 1, 22, "\"cube\""},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"hinge\", \"body_a\": 0, \"body_b\": 1}]}",
     ONESCOPE_E_RANGE, "joints[0].kind", 1, 71, "\"hinge\""},
    /* the world's rules (soa_rules.c), checked as each body or joint is read, at the value they
     * refuse; a joint's bodies once the document is read, as they may follow it */
    {"{\"bodies\": [{\"kind\": \"sphere\"},\n  {\"kind\": \"sphere\", \"size\": [-1, 0, 0]}]}",
     ONESCOPE_E_RANGE, "bodies[1].size[0]", 2, 31, "-1,"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"density\": 0}]}", ONESCOPE_E_RANGE,
     "bodies[0].density", 1, 43, "0}"},
    /* a density so small that Box3D's mass underflows (it printed "Box3D: unstable" each step) */
    {"{\"bodies\": [{\"kind\": \"sphere\",\n  \"density\": 1e-45}]}", ONESCOPE_E_RANGE,
     "bodies[0].density", 2, 14, "1e-45}"},
    {"{\"bodies\": [{\"kind\": \"box\", \"density\": 9e-21}]}", ONESCOPE_E_RANGE,
     "bodies[0].density", 1, 40, "9e-21}"},
    {"{\"bodies\": [{\"kind\": \"sphere\",\n  \"rotation\": [0, 0, 0, 0]}]}", ONESCOPE_E_RANGE,
     "bodies[0].rotation", 2, 15, "[0, 0, 0, 0]"},
    {"{\"bodies\": [{\"kind\": \"static_box\", \"linear_velocity\": [0, 0.5, 0]}]}",
     ONESCOPE_E_RANGE, "bodies[0].linear_velocity[1]", 1, 59, "0.5,"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"parent\": 0}]}", ONESCOPE_E_RANGE, "bodies[0].parent",
     1, 42, "0}"},
    {"{\"gravity\": [0, -20000, 0], \"bodies\": [{\"kind\": \"sphere\"}]}", ONESCOPE_E_RANGE,
     "gravity[1]", 1, 17, "-20000"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}],\n \"joints\": [\n   {\"kind\": \"weld\", \"body_a\": "
     "0, \"body_b\": 3}]}",
     ONESCOPE_E_RANGE, "joints[0].body_b", 3, 44, "3}"},
    {"{\"joints\": [{\"kind\": \"revolute\", \"body_a\": 1, \"body_b\": 2}],\n \"bodies\": "
     "[{\"kind\": \"sphere\"}, {\"kind\": \"box\"}]}",
     ONESCOPE_E_RANGE, "joints[0].body_b", 1, 57, "2}"},
    {"{\"joints\": [{\"kind\": \"revolute\", \"body_a\": 1, \"body_b\": 1}],\n \"bodies\": "
     "[{\"kind\": \"sphere\"}, {\"kind\": \"box\"}]}",
     ONESCOPE_E_RANGE, "joints[0].body_b", 1, 57, "1}"},
    {"{\"joints\": [{\"kind\": \"revolute\", \"body_a\": 0, \"body_b\": 1}],\n \"bodies\": "
     "[{\"kind\": \"static_box\"}, {\"kind\": \"static_box\"}]}",
     ONESCOPE_E_RANGE, "joints[0].body_b", 1, 57, "1}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"anchor\": [0, 0, 1e5]}]}",
     ONESCOPE_E_RANGE, "joints[0].anchor[2]", 1, 126, "1e5]"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"axis\": [0, 0, 0]}]}",
     ONESCOPE_E_RANGE, "joints[0].axis", 1, 117, "[0, 0, 0]"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"limit\": [-4, 0]}]}",
     ONESCOPE_E_RANGE, "joints[0].limit[0]", 1, 119, "-4,"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"limit\": [1, 0.5]}]}",
     ONESCOPE_E_RANGE, "joints[0].limit[1]", 1, 122, "0.5]"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"spherical\", \"body_a\": 0, \"body_b\": 1, \"cone\": 4}]}",
     ONESCOPE_E_RANGE, "joints[0].cone", 1, 118, "4}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"spherical\", \"body_a\": 0, \"body_b\": 1, \"twist\": [0, 9]}]}",
     ONESCOPE_E_RANGE, "joints[0].twist[1]", 1, 123, "9]"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"motor\": {\"max_torque\": -1}}]}",
     ONESCOPE_E_RANGE, "joints[0].motor.max_torque", 1, 133, "-1}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1,\n  \"motor\": {\"velocity\": [0, 2e4, 0]}}]}",
     ONESCOPE_E_RANGE, "joints[0].motor.velocity[1]", 2, 29, "2e4"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"revolute\", \"body_a\": 0, \"body_b\": 1, \"spring\": {\"hertz\": -1}}]}",
     ONESCOPE_E_RANGE, "joints[0].spring.hertz", 1, 129, "-1}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"spherical\", \"body_a\": 0, \"body_b\": 1,\n  \"spring\": {\"target_rotation\": [0, 0, 0, "
     "0]}}]}",
     ONESCOPE_E_RANGE, "joints[0].spring.target_rotation", 2, 33, "[0, 0, 0, 0]"},
    /* wrong length */
    {"{\"bodies\": [{\"kind\": \"sphere\", \"size\": [1, 2]}]}", ONESCOPE_E_LENGTH,
     "bodies[0].size", 1, 40, "[1, 2]"},
    /* unknown key: the position is its value's */
    {"{\n  \"bodies\": [{\"kind\": \"sphere\",\n    \"colour\": 1}]}", ONESCOPE_E_TYPE,
     "bodies[0].colour", 3, 15, "1}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}], \"wind\": 3}", ONESCOPE_E_TYPE, "wind", 1, 42, "3}"},
    {"{\"bodies\": [{\"kind\": \"sphere\"}, {\"kind\": \"box\"}], \"joints\": [{\"kind\": "
     "\"weld\", \"body_a\": 0,\n"
     "  \"body_b\": 1, \"spring\": {\"hertz\": 2, \"stiffness\": 9}}]}",
     ONESCOPE_E_TYPE, "joints[0].spring.stiffness", 2, 52, "9}"},
    /* columns count characters, not bytes */
    {"{\"bodies\": [{\"name\": \"\xc3\xa9t\xc3\xa9\", \"kind\": true}]}", ONESCOPE_E_TYPE,
     "bodies[0].kind", 1, 37, "true"},
    /* a name with U+0000: the reader refuses it as syntax, at the escape */
    {"{\"bodies\": [{\"kind\": \"sphere\", \"name\": \"a\\u0000b\"}]}", ONESCOPE_E_SYNTAX, "", 1,
     42, "\\u0000"},
    /* a duplicate key: its path, at the second value */
    {"{\"bodies\": [{\"kind\": \"sphere\",\n  \"kind\": \"box\"}]}", ONESCOPE_E_DUPLICATE,
     "bodies[0].kind", 2, 11, "\"box\""},
    /* syntax and non-finite numbers: the reader's errors, no path, at the token (the syntax
     * error follows a valid body: values are checked as they pass, so a bad element before it
     * would be reported first) */
    {"{\"bodies\": [{\"kind\": \"sphere\"},}", ONESCOPE_E_SYNTAX, "", 1, 32, "}"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"density\": NaN}]}", ONESCOPE_E_NOT_FINITE, "", 1, 43,
     "NaN"},
    {"{\"bodies\": [{\"kind\": \"sphere\", \"density\": 1e999}]}", ONESCOPE_E_NOT_FINITE, "", 1, 43,
     "1e999"},
    {"", ONESCOPE_E_SYNTAX, "", 1, 1, NULL}, /* columns count from 1, even in an empty file */
};

static void test_errors_line_column(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *b = &bad_cases[i];
        onescope_soa_scene *s = (onescope_soa_scene *)1;
        onescope_error err;
        onescope_code rc =
            onescope_soa_scene_parse(b->text, strlen(b->text), "bad.json", NULL, &s, &err);
        if (rc != b->code || strcmp(err.field, b->field) != 0 || err.line != b->line ||
            err.column != b->column || strcmp(err.input, "bad.json") != 0)
            fail_msg("case %zu: want %s %s at %u:%u, got %s: %s", i, onescope_error_name(b->code),
                     b->field, b->line, b->column, onescope_error_name(rc), fmt(&err));
        assert_null(s);
        if (b->at != NULL) {
            assert_true(err.has_offset);
            if (strncmp(b->text + err.offset, b->at, strlen(b->at)) != 0)
                fail_msg("case %zu: offset %llu points at '%.12s', want '%s'", i,
                         (unsigned long long)err.offset, b->text + err.offset, b->at);
        }
    }
}

static void test_error_message(void **state) {
    (void)state;
    const char *t = "{\"bodies\": [{\"kind\": \"sphere\",\n  \"position\": [0, \"up\", 0]}]}";
    onescope_soa_scene *s = NULL;
    onescope_error err;
    assert_int_equal(onescope_soa_scene_parse(t, strlen(t), "scene.json", NULL, &s, &err),
                     ONESCOPE_E_TYPE);
    assert_string_equal(
        fmt(&err),
        "scene.json: line 2, column 19: bodies[0].position[1]: expected a number, found a string");
}

static void test_limits_and_arguments(void **state) {
    (void)state;
    const char *t = "{\"bodies\": [{\"kind\": \"sphere\"}]}";
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = 10;
    onescope_soa_scene *s = NULL;
    onescope_error err;
    assert_int_equal(onescope_soa_scene_parse(t, strlen(t), "big.json", &o, &s, &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_error_at(err, ONESCOPE_E_TOO_LARGE, 10);
    assert_null(s);
    assert_int_equal(onescope_soa_scene_parse(t, strlen(t), "x", NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_soa_scene_parse(NULL, 4, "x", NULL, &s, &err), ONESCOPE_E_ARGUMENT);
    /* a NULL name is called "scene" */
    assert_int_equal(onescope_soa_scene_parse("{}", 2, NULL, NULL, &s, &err), ONESCOPE_E_TYPE);
    assert_string_equal(err.input, "scene");
    onescope_soa_world *w = (onescope_soa_world *)1;
    assert_int_equal(onescope_soa_scene_create_world(NULL, NULL, &w, &err), ONESCOPE_E_ARGUMENT);
    onescope_pose_cache *c = NULL;
    assert_int_equal(onescope_soa_scene_record(NULL, 1, NULL, &c, &err), ONESCOPE_E_ARGUMENT);
    s = parse_ok(t);
    assert_int_equal(onescope_soa_scene_record(s, 1, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    /* the world's record refuses too many steps; the error names the scene */
    assert_int_equal(onescope_soa_scene_record(s, ONESCOPE_OSPC_MAX_FRAMES, NULL, &c, &err),
                     onescope_soa_world_available() ? ONESCOPE_E_RANGE : ONESCOPE_E_UNSUPPORTED);
    assert_null(c);
    if (onescope_soa_world_available()) {
        assert_string_equal(err.input, "scene.json");
        assert_string_equal(err.field, "steps");
    }
    onescope_soa_scene_free(s);
}

static onescope_code parse_with(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_soa_scene *s = NULL;
    onescope_error err;
    onescope_code rc =
        onescope_soa_scene_parse(full_scene, strlen(full_scene), "scene.json", &o, &s, &err);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(s->body_count, 5);
        assert_ptr_equal(s->allocator, a);
    }
    onescope_soa_scene_free(s);
    return rc;
}

static void test_allocation_failures(void **state) {
    (void)state;
    /* scene, name, the reader's string buffer, bodies (room for 8), 4 body names, joints, and
     * the joints' positions (kept for checking their bodies at the end) */
    assert_int_equal(test_alloc_walk(parse_with, NULL), 10);
}

/* ---- building and recording ---- */

static void test_record(void **state) {
    (void)state;
    onescope_soa_scene *s = parse_ok(full_scene);
    onescope_pose_cache *c = (onescope_pose_cache *)1;
    onescope_soa_world *w = (onescope_soa_world *)1;
    onescope_error err;
    if (!onescope_soa_world_available()) {
        assert_int_equal(onescope_soa_scene_record(s, 10, NULL, &c, &err), ONESCOPE_E_UNSUPPORTED);
        assert_null(c);
        assert_int_equal(onescope_soa_scene_create_world(s, NULL, &w, &err),
                         ONESCOPE_E_UNSUPPORTED);
        assert_null(w);
        onescope_soa_scene_free(s);
        return;
    }
    onescope_code rc = onescope_soa_scene_record(s, 30, NULL, &c, &err);
    if (rc != ONESCOPE_OK) fail_msg("record: %s", fmt(&err));
    assert_int_equal(c->entity_count, 5);
    assert_int_equal(c->frame_count, 31);
    assert_string_equal(c->entities[1].name.data, "ball");
    assert_int_equal(c->entities[4].name.length, 0);
    /* the same as building the world by hand and recording it */
    rc = onescope_soa_scene_create_world(s, NULL, &w, &err);
    if (rc != ONESCOPE_OK) fail_msg("create_world: %s", fmt(&err));
    onescope_soa_view v;
    assert_int_equal(onescope_soa_world_view(w, &v, &err), ONESCOPE_OK);
    assert_int_equal(v.live->count, 5);
    assert_int_equal(v.live->joint_count, 1);
    onescope_pose_cache *c2 = NULL;
    assert_int_equal(
        onescope_soa_world_record(w, 30, s->dt, s->substeps, NULL, NULL, NULL, &c2, &err),
        ONESCOPE_OK);
    assert_int_equal(c2->frame_count, 31);
    assert_memory_equal(c->poses, c2->poses, sizeof c->poses[0] * 31 * 5);
    /* the ball fell */
    assert_true(c->poses[30 * 5 + 1].position[1] < c->poses[1].position[1]);
    onescope_pose_cache_free(c2);
    onescope_soa_world_free(w);
    onescope_pose_cache_free(c);
    onescope_soa_scene_free(s);
}

/* Joints may come before the bodies they join; the rules' message carries the value's place. */
static void test_rules_at_parse(void **state) {
    (void)state;
    onescope_soa_scene *s = parse_ok("{\"joints\": [{\"kind\": \"weld\", \"body_a\": 0, "
                                     "\"body_b\": 1}],\n \"bodies\": [{\"kind\": \"sphere\"}, "
                                     "{\"kind\": \"box\"}]}");
    assert_int_equal(s->joint_count, 1);
    assert_int_equal(s->joints[0].def.body_b, 1);
    assert_int_equal(s->body_count, 2);
    onescope_soa_scene_free(s);

    const char *t =
        "{\"bodies\": [{\"kind\": \"sphere\"},\n  {\"kind\": \"sphere\", \"size\": [-1, 0, "
        "0]}]}";
    onescope_error err;
    s = (onescope_soa_scene *)1;
    assert_int_equal(onescope_soa_scene_parse(t, strlen(t), "scene.json", NULL, &s, &err),
                     ONESCOPE_E_RANGE);
    assert_null(s);
    assert_string_equal(fmt(&err), "scene.json: line 2, column 31: bodies[1].size[0]: expected a "
                                   "sphere radius in 0.001..1000 m, found -1");
    assert_true(err.has_offset);
    assert_int_equal(err.offset, strchr(t, '-') - t);
}

/* A dynamic body's density is at least 1e-20 kg/m^3 (src/soa_rules.c): below, Box3D's mass of a
 * small body underflows and every step printed "Box3D: unstable" on standard output. The bound
 * is accepted, a static box still takes 0, and a refusal is one line at the value. */
static void test_density_bound(void **state) {
    (void)state;
    onescope_soa_scene *s = parse_ok("{\"bodies\": [{\"kind\": \"static_box\", \"density\": 0},\n"
                                     " {\"kind\": \"sphere\", \"size\": [0.001, 0, 0], "
                                     "\"density\": 1e-20}]}");
    assert_true(s->bodies[1].def.density == 1e-20f);
    onescope_soa_scene_free(s);
    const char *t = "{\"bodies\": [{\"kind\": \"capsule\",\n  \"density\": 1e-45}]}";
    onescope_error err;
    s = (onescope_soa_scene *)1;
    assert_int_equal(onescope_soa_scene_parse(t, strlen(t), "tiny.json", NULL, &s, &err),
                     ONESCOPE_E_RANGE);
    assert_null(s);
    assert_string_equal(fmt(&err), "tiny.json: line 2, column 14: bodies[0].density: expected a "
                                   "finite density in 1e-20..1e9 kg/m^3, found 1e-45");
}

/* A name too long for a pose cache is refused by record, at the body's object. */
static void test_refused_name(void **state) {
    (void)state;
    size_t n = ONESCOPE_OSPC_MAX_TEXT + 1;
    char *text = malloc(n + 128);
    assert_non_null(text);
    int k = snprintf(text, 128,
                     "{\"bodies\": [{\"kind\": \"sphere\"},\n  {\"kind\": \"box\", \"name\": \"");
    memset(text + k, 'n', n);
    strcpy(text + (size_t)k + n, "\"}]}");
    onescope_soa_scene *s = parse_ok(text);
    assert_int_equal(strlen(s->bodies[1].name), n);
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = onescope_soa_scene_record(s, 1, NULL, &c, &err);
    assert_null(c);
    if (onescope_soa_world_available()) {
        assert_int_not_equal(rc, ONESCOPE_OK);
        assert_string_equal(err.field, "bodies[1].name");
        assert_string_equal(err.input, "scene.json");
        assert_int_equal(err.line, 2);
        assert_int_equal(err.column, 3);
    } else {
        assert_int_equal(rc, ONESCOPE_E_UNSUPPORTED);
    }
    onescope_soa_scene_free(s);
    free(text);
}

/* A scene filled by hand: no name ("scene"), no positions. */
static void test_hand_made(void **state) {
    (void)state;
    onescope_soa_scene_body bodies[2] = {{onescope_soa_body_def_default(), NULL, 0, 0},
                                         {onescope_soa_body_def_default(), NULL, 0, 0}};
    bodies[1].def.size[0] = -1.0f;
    onescope_soa_scene s;
    memset(&s, 0, sizeof s);
    s.world = onescope_soa_world_def_default();
    s.dt = 1.0f / 60.0f;
    s.substeps = 4;
    s.body_count = 2;
    s.bodies = bodies;
    onescope_soa_world *w = NULL;
    onescope_error err;
    onescope_code rc = onescope_soa_scene_create_world(&s, NULL, &w, &err);
    assert_null(w);
    if (onescope_soa_world_available()) {
        assert_int_equal(rc, ONESCOPE_E_RANGE);
        assert_string_equal(
            fmt(&err),
            "scene: bodies[1].size[0]: expected a sphere radius in 0.001..1000 m, found -1");
    } else {
        assert_int_equal(rc, ONESCOPE_E_UNSUPPORTED);
    }
    s.body_count = 1;
    onescope_pose_cache *c = NULL;
    rc = onescope_soa_scene_record(&s, 3, NULL, &c, &err);
    if (onescope_soa_world_available()) {
        assert_int_equal(rc, ONESCOPE_OK);
        assert_int_equal(c->frame_count, 4);
        assert_int_equal(c->entity_count, 1);
    } else {
        assert_int_equal(rc, ONESCOPE_E_UNSUPPORTED);
    }
    onescope_pose_cache_free(c);
    s.bodies = NULL;
    assert_int_equal(onescope_soa_scene_record(&s, 3, NULL, &c, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.field, "bodies");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_full),
        cmocka_unit_test(test_parse_defaults),
        cmocka_unit_test(test_errors_line_column),
        cmocka_unit_test(test_error_message),
        cmocka_unit_test(test_limits_and_arguments),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_rules_at_parse),
        cmocka_unit_test(test_density_bound),
        cmocka_unit_test(test_refused_name),
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_positions_in_one_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
