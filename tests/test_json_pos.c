/* json_pos (src/json_pos.c): the JSON path context of the OTS and scene parsers. Path text,
 * finding a path's value in the raw text, line:column, jansson's load errors mapped onto
 * onescope codes, and the context's push/pop/fail with and without the document. */
#include <stdio.h>
#include <string.h>

#include "json_pos.h"
#include "test_util.h"

static void test_path_text(void **state) {
    (void)state;
    onescope_os_json_seg segs[4] = {{"bodies", 0}, {NULL, 0}, {"size", 0}, {NULL, 12}};
    char buf[64];
    onescope_os_json_path_text(segs, 4, buf, sizeof buf);
    assert_string_equal(buf, "bodies[0].size[12]");
    onescope_os_json_path_text(segs, 0, buf, sizeof buf);
    assert_string_equal(buf, "");
    /* an index first, and a key after an index, get no leading dot */
    onescope_os_json_seg idx[2] = {{NULL, 3}, {"k", 0}};
    onescope_os_json_path_text(idx, 2, buf, sizeof buf);
    assert_string_equal(buf, "[3].k");
    /* cut to fit, always terminated */
    char small[8];
    onescope_os_json_path_text(segs, 4, small, sizeof small);
    assert_string_equal(small, "bodies[");
}

static void test_skip_ws(void **state) {
    (void)state;
    const char *s = " \t\r\n x";
    assert_int_equal(onescope_os_json_skip_ws(s, strlen(s), 0), 5);
    assert_int_equal(onescope_os_json_skip_ws(s, strlen(s), 5), 5);
    assert_int_equal(onescope_os_json_skip_ws(s, 3, 0), 3);    /* stops at n */
    assert_int_equal(onescope_os_json_skip_ws("\v", 1, 0), 0); /* not JSON white space */
}

static size_t locate(const char *text, const onescope_os_json_seg *segs, int count) {
    return onescope_os_json_locate(text, strlen(text), segs, count);
}

static void test_locate(void **state) {
    (void)state;
    const char *t = "  {\"a\": 1, \"s\": \"x\\\"}{[\", \"b\" : [10, {\"c\": [true, null]}, "
                    "\"e\"], \"d\": {}}";
    assert_int_equal(locate(t, NULL, 0), 2); /* the root, past leading white space */
    onescope_os_json_seg a[1] = {{"a", 0}};
    assert_int_equal(locate(t, a, 1), strchr(t, '1') - t);
    /* a string holding a quote and brackets is skipped whole */
    onescope_os_json_seg b[4] = {{"b", 0}, {NULL, 1}, {"c", 0}, {NULL, 1}};
    assert_int_equal(locate(t, b, 1), strstr(t, "[10") - t);
    assert_int_equal(locate(t, b, 2), strstr(t, "{\"c\"") - t);
    assert_int_equal(locate(t, b, 3), strstr(t, "[true") - t);
    assert_int_equal(locate(t, b, 4), strstr(t, "null") - t);
    onescope_os_json_seg e[2] = {{"b", 0}, {NULL, 2}};
    assert_int_equal(locate(t, e, 2), strstr(t, "\"e\"") - t);
    /* missing parts: the deepest part that exists */
    onescope_os_json_seg missing[2] = {{"b", 0}, {NULL, 7}};
    assert_int_equal(locate(t, missing, 2), strstr(t, "[10") - t);
    onescope_os_json_seg nokey[2] = {{"d", 0}, {"zz", 0}};
    assert_int_equal(locate(t, nokey, 2), strstr(t, "{}") - t);
    onescope_os_json_seg top[1] = {{"nothere", 0}};
    assert_int_equal(locate(t, top, 1), 2);
    /* a key where the value is an array, an index where it is an object */
    onescope_os_json_seg wrong1[2] = {{"b", 0}, {"x", 0}};
    assert_int_equal(locate(t, wrong1, 2), strstr(t, "[10") - t);
    onescope_os_json_seg wrong2[2] = {{"d", 0}, {NULL, 0}};
    assert_int_equal(locate(t, wrong2, 2), strstr(t, "{}") - t);
    /* a key that is a prefix of another is not that key */
    const char *p = "{\"ab\": 1, \"a\": 2}";
    assert_int_equal(locate(p, a, 1), strchr(p, '2') - p);
    /* an empty array has no element 0 */
    const char *emp = "[ ]";
    onescope_os_json_seg zero[1] = {{NULL, 0}};
    assert_int_equal(locate(emp, zero, 1), 0);
    /* a nested object inside the skipped value */
    const char *n = "[{\"x\": [1, {\"y\": 2}]}, 5]";
    onescope_os_json_seg second[1] = {{NULL, 1}};
    assert_int_equal(locate(n, second, 1), strchr(n, '5') - n);
    /* text cut short (the parsers never pass it, but the scan must stop at its end): an open
     * string, an open array, then the root */
    onescope_os_json_seg b1[1] = {{"b", 0}};
    assert_int_equal(locate("{\"a\": \"xx", b1, 1), 0);
    assert_int_equal(locate("{\"a\": [1, {\"c\": 2}", b1, 1), 0);
    assert_int_equal(locate("{\"a", b1, 1), 0);
}

/* Keys are matched by what they decode to: every JSON escape, surrogate pairs, and keys that
 * only differ after an escape. */
static void test_locate_escaped_keys(void **state) {
    (void)state;
    const char *t = "{\"k\\u0065y\": 1, \"\\\"q\\\\/\\/\": 2, \"\\b\\f\\n\\r\\t\": 3, "
                    "\"\\u00e9\\u2014\\ud83d\\ude00\": 4, \"\\u0041\": 5, \"ke\": 6}";
    onescope_os_json_seg key[1] = {{"key", 0}};
    assert_int_equal(locate(t, key, 1), strstr(t, ": 1") + 2 - t);
    onescope_os_json_seg q[1] = {{"\"q\\//", 0}};
    assert_int_equal(locate(t, q, 1), strstr(t, ": 2") + 2 - t);
    onescope_os_json_seg ctl[1] = {{"\b\f\n\r\t", 0}};
    assert_int_equal(locate(t, ctl, 1), strstr(t, ": 3") + 2 - t);
    onescope_os_json_seg utf[1] = {{"\xc3\xa9\xe2\x80\x94\xf0\x9f\x98\x80", 0}};
    assert_int_equal(locate(t, utf, 1), strstr(t, ": 4") + 2 - t);
    onescope_os_json_seg a[1] = {{"A", 0}};
    assert_int_equal(locate(t, a, 1), strstr(t, ": 5") + 2 - t);
    /* a shorter or longer key, or one that differs inside an escape, is not found */
    onescope_os_json_seg k[1] = {{"k", 0}}, keys[1] = {{"keys", 0}}, kez[1] = {{"kez", 0}};
    assert_int_equal(locate(t, k, 1), 0);
    assert_int_equal(locate(t, keys, 1), 0);
    assert_int_equal(locate(t, kez, 1), 0);
    onescope_os_json_seg ke[1] = {{"ke", 0}};
    assert_int_equal(locate(t, ke, 1), strstr(t, ": 6") + 2 - t);
    /* an escape cut short by the end of the text (never from the parsers): no match */
    onescope_os_json_seg e[1] = {{"e", 0}};
    assert_int_equal(locate("{\"\\u00", e, 1), 0);
    assert_int_equal(locate("{\"\\", e, 1), 0);
    assert_int_equal(locate("{\"\\x\": 1}", e, 1), 0);
}

static void test_line_column(void **state) {
    (void)state;
    const char *t = "{\n  \"\xc3\xa9t\xc3\xa9\": x\n}";
    uint32_t line, column;
    onescope_os_json_line_column(t, 0, &line, &column);
    assert_int_equal(line, 1);
    assert_int_equal(column, 1);
    onescope_os_json_line_column(t, 2, &line, &column); /* after the newline */
    assert_int_equal(line, 2);
    assert_int_equal(column, 1);
    /* "x" is after 2 spaces, a quote, 3 characters in 5 bytes, a quote, a colon, a space */
    size_t x = (size_t)(strchr(t, 'x') - t);
    onescope_os_json_line_column(t, x, &line, &column);
    assert_int_equal(line, 2);
    assert_int_equal(column, 10);
    onescope_os_json_line_column(t, strlen(t) - 1, &line, &column);
    assert_int_equal(line, 3);
    assert_int_equal(column, 1);
}

/* json_loadb's refusal, mapped: the code, jansson's offset, line and column. */
static onescope_code load(const char *text, onescope_error *err) {
    json_error_t je;
    json_t *j = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &je);
    assert_null(j);
    onescope_code rc = onescope_os_json_load_fail(err, "doc.json", text, strlen(text), &je);
    assert_int_equal(err->code, rc);
    assert_string_equal(err->input, "doc.json");
    assert_true(err->has_offset);
    assert_string_equal(err->found, je.text);
    return rc;
}

static void test_load_fail(void **state) {
    (void)state;
    onescope_error err;
    assert_int_equal(load("{\"a\": }", &err), ONESCOPE_E_SYNTAX);
    assert_string_equal(err.expected, "valid JSON");
    assert_int_equal(err.line, 1);
    assert_true(err.column > 0);
    assert_int_equal(load("{\"a\": 1,\n \"a\": 2}", &err), ONESCOPE_E_DUPLICATE);
    assert_int_equal(err.line, 2);
    assert_string_equal(err.expected, "each key once per object");
    assert_int_equal(load("[1e999]", &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.expected, "a finite number");
    assert_int_equal(load("[123456789012345678901234567890]", &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.expected, "an integer that fits in 64 bits");
    assert_int_equal(load("[\"\xff\"]", &err), ONESCOPE_E_UTF8);
    assert_int_equal(load("[NaN]", &err), ONESCOPE_E_NOT_FINITE);
    assert_string_equal(err.expected, "a finite number (JSON has no NaN or Infinity)");
    assert_int_equal(load("{\"v\": Infinity}", &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(load("[-Infinity]", &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(load("[nan]", &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(load("[inf]", &err), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(load("[true, nul]", &err), ONESCOPE_E_SYNTAX);
    /* no error to fill: the code alone */
    json_error_t je;
    assert_null(json_loadb("[", 1, 0, &je));
    assert_int_equal(onescope_os_json_load_fail(NULL, "x", "[", 1, &je), ONESCOPE_E_SYNTAX);
    /* jansson's own out-of-memory code */
    memset(&je, 0, sizeof je);
    je.position = 3;
    je.line = -1;
    snprintf(je.text, sizeof je.text, "%s", "out of memory");
    je.text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    assert_int_equal(onescope_os_json_load_fail(&err, "m", "[1, 2]", 6, &je), ONESCOPE_E_NOMEM);
    assert_string_equal(err.expected, "");
    assert_int_equal(err.offset, 3);
    assert_int_equal(err.line, 0); /* jansson gave no line */
}

static void test_ctx(void **state) {
    (void)state;
    onescope_error err;
    onescope_os_json_ctx c;
    onescope_os_json_ctx_init(&c, "rig.pvt", NULL, &err);
    assert_int_equal(c.depth, 0);
    assert_null(c.text);
    /* checking built structs: a path, no position */
    onescope_os_json_push_key(&c, "pegs");
    onescope_os_json_push_index(&c, 3);
    onescope_os_json_push_key(&c, "name");
    assert_int_equal(onescope_os_json_fail(&c, ONESCOPE_E_RANGE, "1 to 64 bytes", "%d bytes", 0),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.input, "rig.pvt");
    assert_string_equal(err.field, "pegs[3].name");
    assert_string_equal(err.expected, "1 to 64 bytes");
    assert_string_equal(err.found, "0 bytes");
    assert_false(err.has_offset);
    assert_int_equal(err.line, 0);
    onescope_os_json_pop(&c);
    onescope_os_json_pop(&c);
    onescope_os_json_pop(&c);
    assert_int_equal(c.depth, 0);
    /* an empty path names the root field when there is one, else nothing */
    onescope_os_json_fail(&c, ONESCOPE_E_TYPE, "an object", "an array");
    assert_string_equal(err.field, "");
    c.root_field = "document";
    onescope_os_json_fail(&c, ONESCOPE_E_TYPE, "an object", "an array");
    assert_string_equal(err.field, "document");
    /* parsing: the path's value is found in the text, with line and column */
    const char *t = "{\n  \"pegs\": [\n    {\"name\": 5}\n  ]\n}";
    c.text = t;
    c.size = strlen(t);
    onescope_os_json_push_key(&c, "pegs");
    onescope_os_json_push_index(&c, 0);
    onescope_os_json_push_key(&c, "name");
    onescope_os_json_fail(&c, ONESCOPE_E_TYPE, "a string", "a number");
    assert_true(err.has_offset);
    assert_int_equal(err.offset, strchr(t, '5') - t);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.column, 14);
    char line[512];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "rig.pvt: line 3, column 14: pegs[0].name: expected a string, "
                              "found a number");
    /* deeper than the maximum: the path keeps its first steps, pops come back even */
    for (int i = 0; i < ONESCOPE_OS_JSON_MAX_DEPTH + 3; i++) onescope_os_json_push_index(&c, 0);
    assert_int_equal(c.depth, ONESCOPE_OS_JSON_MAX_DEPTH + 6);
    onescope_os_json_fail(&c, ONESCOPE_E_RANGE, NULL, "deep");
    assert_string_equal(err.field, "pegs[0].name[0][0][0][0][0][0][0][0][0]");
    for (int i = 0; i < ONESCOPE_OS_JSON_MAX_DEPTH + 3; i++) onescope_os_json_pop(&c);
    assert_int_equal(c.depth, 3);
    onescope_os_json_fail(&c, ONESCOPE_E_RANGE, NULL, "back");
    assert_string_equal(err.field, "pegs[0].name");
    /* out of memory, and a context without an error to fill */
    assert_int_equal(onescope_os_json_nomem(&c), ONESCOPE_E_NOMEM);
    assert_string_equal(err.found, "could not allocate memory");
    assert_false(err.has_offset);
    c.error = NULL;
    assert_int_equal(onescope_os_json_fail(&c, ONESCOPE_E_TYPE, NULL, "x"), ONESCOPE_E_TYPE);
    assert_int_equal(onescope_os_json_nomem(&c), ONESCOPE_E_NOMEM);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_text),
        cmocka_unit_test(test_skip_ws),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_line_column),
        cmocka_unit_test(test_locate_escaped_keys),
        cmocka_unit_test(test_load_fail),
        cmocka_unit_test(test_ctx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
