/* json_pos (src/json_pos.c): the JSON path context of the OTS and scene parsers. Path text,
 * white space, and the context's push/pop/fail with and without a reader to say
 * where the path's value is. */
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

/* A reader's locate callback: records the path it was asked about, answers a fixed place. */
typedef struct fake_reader {
    char path[96];
    int depth;
} fake_reader;

static void fake_locate(void *user, const onescope_os_json_seg *segs, int depth, uint64_t *offset,
                        uint32_t *line, uint32_t *column) {
    fake_reader *f = user;
    f->depth = depth;
    onescope_os_json_path_text(segs, depth, f->path, sizeof f->path);
    *offset = 27;
    *line = 3;
    *column = 14;
}

static void test_ctx(void **state) {
    (void)state;
    onescope_error err;
    onescope_os_json_ctx c;
    onescope_os_json_ctx_init(&c, "rig.pvt", NULL, &err);
    assert_int_equal(c.depth, 0);
    assert_null(c.locate);
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
    /* parsing: the reader says where the path's value is (offset, line and column) */
    fake_reader f = {"", -1};
    c.locate = fake_locate;
    c.locate_user = &f;
    onescope_os_json_push_key(&c, "pegs");
    onescope_os_json_push_index(&c, 0);
    onescope_os_json_push_key(&c, "name");
    onescope_os_json_fail(&c, ONESCOPE_E_TYPE, "a string", "a number");
    assert_string_equal(f.path, "pegs[0].name");
    assert_int_equal(f.depth, 3);
    assert_true(err.has_offset);
    assert_int_equal(err.offset, 27);
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
    assert_int_equal(f.depth, ONESCOPE_OS_JSON_MAX_DEPTH); /* the locator gets the recorded steps */
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
        cmocka_unit_test(test_ctx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
