/* error (src/error.c): every code has its own name, the one formatter's line in each shape,
 * truncation of long fields and of a short buffer, clearing, and that the messages the parsers
 * make from hostile bytes are one printable line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static void test_names(void **state) {
    (void)state;
    const char *names[ONESCOPE_E_ENGINE + 1];
    for (int c = ONESCOPE_OK; c <= ONESCOPE_E_ENGINE; c++) {
        names[c] = onescope_error_name((onescope_code)c);
        assert_non_null(names[c]);
        assert_string_not_equal(names[c], "unknown error");
        assert_true(names[c][0] != '\0');
        for (int d = 0; d < c; d++) assert_string_not_equal(names[c], names[d]);
    }
    assert_string_equal(onescope_error_name(ONESCOPE_OK), "ok");
    assert_string_equal(onescope_error_name(ONESCOPE_E_TRUNCATED), "truncated");
    assert_string_equal(onescope_error_name((onescope_code)(ONESCOPE_E_ENGINE + 1)),
                        "unknown error");
    assert_string_equal(onescope_error_name((onescope_code)-1), "unknown error");
}

static const char *format(const onescope_error *e) {
    static char line[1024];
    size_t n = onescope_error_format(e, line, sizeof line);
    assert_int_equal(n, strlen(line));
    return line;
}

static void test_shapes(void **state) {
    (void)state;
    onescope_error e;
    onescope_os_fail(&e, ONESCOPE_E_FLAGS, "a.ospc", 6, "flags", "0", "%u", 3u);
    assert_string_equal(format(&e), "a.ospc: offset 6: flags: expected 0, found 3");
    onescope_os_fail(&e, ONESCOPE_E_TRUNCATED, "a.ospc", 0, NULL, NULL, NULL);
    assert_string_equal(format(&e), "a.ospc: offset 0: truncated");
    onescope_os_fail(&e, ONESCOPE_E_IO, "dir/x", OS_NO_OFFSET, NULL, NULL, "No such file");
    assert_string_equal(format(&e), "dir/x: No such file");
    onescope_os_fail(&e, ONESCOPE_E_RANGE, "x", OS_NO_OFFSET, "count", "at most 4", NULL);
    assert_string_equal(format(&e), "x: count: expected at most 4");
    /* line and column win over the offset */
    onescope_os_fail(&e, ONESCOPE_E_SYNTAX, "s.json", 40, NULL, "valid JSON", "'}'");
    e.line = 3;
    e.column = 7;
    assert_string_equal(format(&e), "s.json: line 3, column 7: expected valid JSON, found '}'");
    /* no input name: a placeholder, never an empty start */
    onescope_os_fail(&e, ONESCOPE_E_MAGIC, NULL, 0, NULL, NULL, NULL);
    assert_string_equal(e.input, "<input>");
    memset(&e, 0, sizeof e);
    e.code = ONESCOPE_E_NOMEM;
    assert_string_equal(format(&e), "<input>: out of memory");
    /* NULL: nothing, an empty line */
    char buf[8] = "junk";
    assert_int_equal(onescope_error_format(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    /* filling no error just returns the code */
    assert_int_equal(onescope_os_fail(NULL, ONESCOPE_E_LENGTH, "x", 1, NULL, NULL, NULL),
                     ONESCOPE_E_LENGTH);
}

static void test_short_buffer(void **state) {
    (void)state;
    onescope_error e;
    onescope_os_fail(&e, ONESCOPE_E_FLAGS, "a.ospc", 6, "flags", "0", "%u", 3u);
    const char *full = "a.ospc: offset 6: flags: expected 0, found 3";
    /* like snprintf: the length wanted, the text cut and terminated */
    for (size_t size = 1; size <= strlen(full) + 1; size++) {
        char buf[64];
        memset(buf, 'Z', sizeof buf);
        assert_int_equal(onescope_error_format(&e, buf, size), strlen(full));
        assert_int_equal(strlen(buf), size - 1);
        assert_memory_equal(buf, full, size - 1);
        assert_true(buf[size] == 'Z'); /* nothing written past size */
    }
    char untouched = 'Q';
    assert_int_equal(onescope_error_format(&e, &untouched, 0), strlen(full));
    assert_true(untouched == 'Q');
}

static void test_long_fields(void **state) {
    (void)state;
    char big[2000];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    onescope_error e;
    onescope_os_fail(&e, ONESCOPE_E_RANGE, big, 1, big, big, "%s", big);
    assert_int_equal(strlen(e.input), sizeof e.input - 1);
    assert_int_equal(strlen(e.field), sizeof e.field - 1);
    assert_int_equal(strlen(e.expected), sizeof e.expected - 1);
    assert_int_equal(strlen(e.found), sizeof e.found - 1);
    /* the line is bounded by the fields' sizes, however long the inputs were */
    size_t n = strlen(format(&e));
    assert_true(n < sizeof e.input + sizeof e.field + sizeof e.expected + sizeof e.found + 64);
    assert_null(strchr(format(&e), '\n'));
}

static void test_clear(void **state) {
    (void)state;
    onescope_error e;
    onescope_os_fail(&e, ONESCOPE_E_FLAGS, "a", 6, "f", "0", "3");
    e.line = 2;
    onescope_error_clear(&e);
    assert_int_equal(e.code, ONESCOPE_OK);
    assert_false(e.has_offset);
    assert_int_equal(e.offset, 0);
    assert_int_equal(e.line, 0);
    assert_string_equal(e.input, "");
    assert_string_equal(e.found, "");
    onescope_error_clear(NULL); /* accepted */
    /* a new failure replaces every field of an older one */
    onescope_os_fail(&e, ONESCOPE_E_FLAGS, "a", 6, "f", "0", "3");
    e.line = 9;
    onescope_os_fail(&e, ONESCOPE_E_IO, "b", OS_NO_OFFSET, NULL, NULL, NULL);
    assert_string_equal(format(&e), "b: i/o error");
}

/* Exactly one line of printable text: no byte below 0x20, no DEL. */
static void assert_one_printable_line(const onescope_error *e, const char *what) {
    char line[1024];
    onescope_error_format(e, line, sizeof line);
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        if (*p < 0x20 || *p == 0x7f) fail_msg("%s: byte 0x%02x in \"%s\"", what, *p, line);
    assert_true(line[0] != '\0');
}

static void test_parsers_print_one_line(void **state) {
    (void)state;
    uint64_t seed = 11;
    uint8_t buf[512];
    size_t refused = 0;
    for (int round = 0; round < 400; round++) {
        size_t n = (size_t)(test_rand(&seed) % sizeof buf);
        for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)test_rand(&seed);
        /* start some with the real magic so the parsers get past it */
        if (n >= 4 && round % 2 == 0) memcpy(buf, round % 4 == 0 ? "OSPC" : "OSTM", 4);
        onescope_error e;
        onescope_pose_cache *c = NULL;
        if (onescope_pose_cache_parse(buf, n, "fuzz.ospc", NULL, &c, &e) != ONESCOPE_OK) {
            assert_one_printable_line(&e, "pose cache");
            refused++;
        }
        onescope_pose_cache_free(c);
        onescope_replay *r = NULL;
        if (onescope_replay_parse(buf, n, "fuzz.ostm", NULL, &r, &e) != ONESCOPE_OK) {
            assert_one_printable_line(&e, "replay");
            refused++;
        }
        onescope_replay_free(r);
    }
    assert_true(refused > 600);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_short_buffer), cmocka_unit_test(test_long_fields),
        cmocka_unit_test(test_clear),        cmocka_unit_test(test_parsers_print_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
