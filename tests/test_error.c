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
    const char *names[ONESCOPE_E_MODULE + 1];
    for (int c = ONESCOPE_OK; c <= ONESCOPE_E_MODULE; c++) {
        names[c] = onescope_error_name((onescope_code)c);
        assert_non_null(names[c]);
        assert_string_not_equal(names[c], "unknown error");
        assert_true(names[c][0] != '\0');
        for (int d = 0; d < c; d++) assert_string_not_equal(names[c], names[d]);
    }
    assert_string_equal(onescope_error_name(ONESCOPE_OK), "ok");
    assert_string_equal(onescope_error_name(ONESCOPE_E_TRUNCATED), "truncated");
    assert_string_equal(onescope_error_name((onescope_code)(ONESCOPE_E_MODULE + 1)),
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

static const char *esc(const char *src, size_t n, size_t size) {
    static char out[512];
    assert_true(size <= sizeof out);
    memset(out, 'Z', sizeof out);
    size_t len = onescope_os_escape(out, size, src, n);
    assert_int_equal(len, strlen(out));
    assert_true(len < size);
    return out;
}

static void test_escape(void **state) {
    (void)state;
    /* plain text and valid UTF-8 stay as they are */
    assert_string_equal(esc("pegs-P", 6, 64), "pegs-P");
    assert_string_equal(esc("caf\xc3\xa9 \xe2\x80\x94", 9, 64), "caf\xc3\xa9 \xe2\x80\x94");
    /* line breaks, ESC, DEL and other control bytes */
    assert_string_equal(esc("a\nb\rc\td", 7, 64), "a\\nb\\rc\\td");
    assert_string_equal(esc("\x1b[31m\x7f\x01", 7, 64), "\\x1B[31m\\x7F\\x01");
    assert_string_equal(esc("a\0b", 3, 64), "a\\x00b"); /* a NUL inside binary text */
    /* quotes and backslashes, so a quoted echo cannot be closed early */
    assert_string_equal(esc("\"x\\", 3, 64), "\\\"x\\\\");
    /* invalid UTF-8: a stray continuation, a lone lead, an overlong, a surrogate, > U+10FFFF */
    assert_string_equal(esc("\x80", 1, 64), "\\x80");
    assert_string_equal(esc("\xc3x", 2, 64), "\\xC3x");
    assert_string_equal(esc("\xc0\xaf", 2, 64), "\\xC0\\xAF");
    assert_string_equal(esc("\xed\xbf\xbf", 3, 64), "\\xED\\xBF\\xBF");
    assert_string_equal(esc("\xf4\x90\x80\x80", 4, 64), "\\xF4\\x90\\x80\\x80");
    assert_string_equal(esc("\xf0\x9f\x98\x80", 4, 64), "\xf0\x9f\x98\x80");
    assert_string_equal(esc("\xe2\x82", 2, 64), "\\xE2\\x82"); /* cut short by n */
    assert_string_equal(esc("\xff", 1, 64), "\\xFF");
    /* valid, but would break or reorder the line: C1 CSI, U+2028, RLO, BOM */
    assert_string_equal(esc("\xc2\x9b"
                            "2J",
                            4, 64),
                        "\\u009B2J");
    assert_string_equal(esc("\xe2\x80\xa8\xe2\x80\xae\xef\xbb\xbf", 9, 64),
                        "\\u2028\\u202E\\uFEFF");
    /* NULL or nothing: empty */
    assert_string_equal(esc(NULL, 5, 64), "");
    char one[1] = {'Q'};
    assert_int_equal(onescope_os_escape(one, 1, "abc", 3), 0);
    assert_true(one[0] == '\0');
    assert_int_equal(onescope_os_escape(one, 0, "abc", 3), 0);
}

static void test_escape_truncation(void **state) {
    (void)state;
    /* exactly fits: no dots; one byte more: cut with dots inside the same room */
    assert_string_equal(esc("abcdefg", 7, 8), "abcdefg");
    assert_string_equal(esc("abcdefgh", 8, 8), "abcd...");
    /* never inside an escape: "\\x1B" is 4 bytes, whole or not at all */
    assert_string_equal(esc("ab\x1b\x1b\x1b", 5, 10), "ab\\x1B...");
    assert_string_equal(esc("abcd\x1b"
                            "efgh",
                            9, 10),
                        "abcd...");
    /* never inside a UTF-8 character */
    assert_string_equal(esc("ab\xe2\x80\x94\xe2\x80\x94xyz", 11, 10), "ab\xe2\x80\x94...");
    assert_string_equal(esc("abcd\xe2\x80\x94xyz", 10, 10), "abcd...");
    /* rooms too small for the dots */
    assert_string_equal(esc("abcdef", 6, 3), "..");
    assert_string_equal(esc("abcdef", 6, 4), "...");
    /* every cut of a hostile text is valid escaped text and no longer than the room */
    const char hostile[] = "k\n\x1b\xff\"\\\xe2\x80\xae\xc3\xa9z";
    for (size_t size = 1; size < 40; size++) {
        const char *o = esc(hostile, sizeof hostile - 1, size);
        size_t bad = 0;
        assert_true(onescope_os_utf8_valid((const uint8_t *)o, strlen(o), &bad));
        for (const char *q = o; *q; q++) assert_true((unsigned char)*q >= 0x20);
        size_t len = strlen(o);
        /* a cut ends in dots, and what precedes them is a prefix of the whole escape */
        const char *whole = "k\\n\\x1B\\xFF\\\"\\\\\\u202E\xc3\xa9z";
        if (len >= 3 && strcmp(o + len - 3, "...") == 0)
            assert_memory_equal(o, whole, len - 3);
        else if (size > strlen(whole))
            assert_string_equal(o, whole);
    }
    /* OS_ECHO: the bounded echo the parsers use */
    char big[300];
    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(strlen(OS_ECHO(big)), ONESCOPE_OS_ECHO_MAX);
    assert_string_equal(OS_ECHO(big) + ONESCOPE_OS_ECHO_MAX - 3, "...");
    assert_string_equal(OS_ECHO(NULL), "");
}

/* A copy cut short ends at a whole character, with dots; so does a long found text. */
static void test_copy_text_cut(void **state) {
    (void)state;
    char dst[8];
    onescope_os_copy_text(dst, sizeof dst, "abc");
    assert_string_equal(dst, "abc");
    onescope_os_copy_text(dst, sizeof dst, "abcdefgh");
    assert_string_equal(dst, "abcd...");
    onescope_os_copy_text(dst, sizeof dst, "abc\xe2\x80\x94xy");
    assert_string_equal(dst, "abc...");
    onescope_os_copy_text(dst, 3, "abcdefgh");
    assert_string_equal(dst, "ab");
    onescope_error e;
    char big[400];
    memset(big, 'f', sizeof big - 1);
    memcpy(big + 156, "\xe2\x80\x94", 3);
    big[sizeof big - 1] = '\0';
    onescope_os_fail(&e, ONESCOPE_E_RANGE, "x", 0, NULL, NULL, "%s", big);
    assert_int_equal(strlen(e.found), 156 + 3);
    assert_string_equal(e.found + 156, "...");
}

/* Exactly one line of printable text, valid UTF-8, no byte below 0x20, no DEL. */
static void assert_clean_line(const char *line, const char *what) {
    size_t bad = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        if (*p < 0x20 || *p == 0x7f) fail_msg("%s: byte 0x%02x in \"%s\"", what, *p, line);
    if (!onescope_os_utf8_valid((const uint8_t *)line, strlen(line), &bad))
        fail_msg("%s: invalid UTF-8 at %zu in \"%s\"", what, bad, line);
    assert_true(line[0] != '\0');
}

/* The formatter escapes the input name (a caller's, perhaps from a hostile directory) and
 * guards every field, even one filled by hand. */
static void test_format_escapes(void **state) {
    (void)state;
    onescope_error e;
    onescope_os_fail(&e, ONESCOPE_E_RANGE, "dir\n/x.anm: valid anm\x1b[2J", 4, NULL, "0", "1");
    assert_string_equal(format(&e),
                        "dir\\n/x.anm: valid anm\\x1B[2J: offset 4: expected 0, found 1");
    /* a 10 KB name of line breaks: one line, bounded */
    static char name[10240];
    memset(name, '\n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    onescope_os_fail(&e, ONESCOPE_E_SYNTAX, name, 1, NULL, NULL, NULL);
    const char *line = format(&e);
    assert_clean_line(line, "10 KB name");
    assert_true(strlen(line) <= ONESCOPE_OS_ECHO_NAME + 32);
    assert_non_null(strstr(line, "...: offset 1: syntax error"));
    /* fields filled by hand with raw bytes, and not even terminated */
    memset(&e, 0, sizeof e);
    e.code = ONESCOPE_E_TYPE;
    memcpy(e.input, "in", 3);
    memset(e.field, '\n', sizeof e.field);
    memset(e.expected, 0x1b, sizeof e.expected);
    memset(e.found, 0xff, sizeof e.found);
    char buf[4096];
    size_t n = onescope_error_format(&e, buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_clean_line(buf, "raw fields");
    assert_true(n < 4 * (sizeof e.field + sizeof e.expected + sizeof e.found) + 64);
    /* filling catches raw control bytes and invalid UTF-8 too (text a caller passes): the
     * struct itself holds clean text, quotes left as they are */
    onescope_os_fail(&e, ONESCOPE_E_SYNTAX, "j", 0, "k\x1b", "a \"q\"\x7f", "near '\"a\n\xff'");
    assert_string_equal(e.field, "k\\x1B");
    assert_string_equal(e.expected, "a \"q\"\\x7F");
    assert_string_equal(e.found, "near '\"a\\n\\xFF'");
    /* text the parsers escaped already is printed as it is: quotes stay */
    onescope_os_fail(&e, ONESCOPE_E_RANGE, "t.anm", 1, "source", "maya", "\"%s\"",
                     OS_ECHO("a\"b\n"));
    assert_string_equal(format(&e), "t.anm: offset 1: source: expected maya, found \"a\\\"b\\n\"");
}

static onescope_code parse_clip(const char *text, onescope_error *e) {
    onescope_ots_clip *c = NULL;
    onescope_code rc = onescope_ots_clip_parse(text, strlen(text), "x.anm", NULL, &c, e);
    onescope_ots_clip_free(c);
    return rc;
}

/* The column of byte offset at in text (1-based, counting characters), for the checks. */
static uint32_t column_of(const char *text, const char *at) {
    const char *start = at;
    while (start > text && start[-1] != '\n') start--;
    uint32_t col = 1;
    for (const char *p = start; p < at; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) col++;
    return col;
}

/* Keys and values written with JSON escapes: the message shows them escaped, on one line,
 * at the line and column where they are in the text. */
static void test_parser_echoes(void **state) {
    (void)state;
    onescope_error e;
    char line[1024];
    /* a key holding a line break, a forged line, ESC, a quote, a backslash and an RLO */
    const char *forged = "{\"format\": \"octo_anm\",\n\"version\": 4,\n"
                         "  \"a\\nx.anm: valid anm\\n\\u001b[31m\\\"\\\\\\u202e\": 1}";
    assert_int_equal(parse_clip(forged, &e), ONESCOPE_E_TYPE);
    onescope_error_format(&e, line, sizeof line);
    assert_clean_line(line, "forged key");
    assert_null(strstr(line, "\n"));
    assert_int_equal(e.line, 3);
    assert_int_equal(e.column, column_of(forged, strstr(forged, ": 1}") + 2));
    assert_string_equal(e.field, "a\\nx.anm: valid anm\\n\\x1B[31m\\\"\\\\\\u202E");
    assert_non_null(strstr(e.found, "unknown key \"a\\nx.anm: valid anm\\n\\x1B[31m"));
    /* a known key written with escapes is found where it is, not at line 1, column 1 */
    const char *escaped = "{\"format\": \"octo_anm\",\n\"version\": 4,\n"
                          "  \"sourc\\u0065\": \"bad\\u001b\\n\"}";
    assert_int_equal(parse_clip(escaped, &e), ONESCOPE_E_RANGE);
    assert_int_equal(e.line, 3);
    assert_int_equal(e.column, column_of(escaped, strstr(escaped, "\"bad")));
    assert_string_equal(e.found, "\"bad\\x1B\\n\"");
    onescope_error_format(&e, line, sizeof line);
    assert_clean_line(line, "escaped value");
    /* a surrogate pair and a two- and three-byte escape in a key, and the short escapes */
    const char *pair = "{\"format\": \"octo_anm\",\n\"version\": 4,\n"
                       "  \"\\ud83d\\ude00\\u00e9\\u2014\\/\\b\\f\\r\\t\": [1]}";
    assert_int_equal(parse_clip(pair, &e), ONESCOPE_E_TYPE);
    assert_int_equal(e.line, 3);
    assert_int_equal(e.column, column_of(pair, strstr(pair, "[1]")));
    assert_string_equal(e.field, "\xf0\x9f\x98\x80\xc3\xa9\xe2\x80\x94/\\x08\\x0C\\r\\t");
    /* a 10 KB enumeration value: bounded */
    static char big[10300];
    int k = snprintf(big, sizeof big, "{\"format\": \"octo_anm\", \"version\": 4, \"source\": \"");
    memset(big + k, 'x', 10240);
    strcpy(big + k + 10240, "\"}");
    assert_int_equal(parse_clip(big, &e), ONESCOPE_E_RANGE);
    assert_int_equal(strlen(e.found), ONESCOPE_OS_ECHO_MAX + 2);
    onescope_error_format(&e, line, sizeof line);
    assert_clean_line(line, "10 KB value");
    /* invalid UTF-8 in a key: the path quotes the bytes; they come out escaped */
    assert_int_equal(parse_clip("{\"s\xff\x1b\": 5}", &e), ONESCOPE_E_UTF8);
    onescope_error_format(&e, line, sizeof line);
    assert_clean_line(line, "invalid UTF-8");
    /* the scene parser's enumeration values too */
    const char *scene = "{\"bodies\": [{\"kind\": \"sph\\u001bere\\n\"}]}";
    onescope_soa_scene *sc = NULL;
    assert_int_equal(onescope_soa_scene_parse(scene, strlen(scene), "s.json", NULL, &sc, &e),
                     ONESCOPE_E_RANGE);
    onescope_soa_scene_free(sc);
    assert_string_equal(e.found, "\"sph\\x1Bere\\n\"");
    assert_int_equal(e.column, column_of(scene, strstr(scene, "\"sph")));
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

/* The public escape is the library's own: one printable line whatever the text. */
static void public_escape(void **state) {
    (void)state;
    char out[64];
    const char name[] = "x.anm\nx.anm: valid anm\x1b[31m";
    size_t n = onescope_error_escape(out, sizeof out, name, sizeof name - 1);
    assert_string_equal(out, "x.anm\\nx.anm: valid anm\\x1B[31m");
    assert_int_equal(n, strlen(out));
    char small[8];
    onescope_error_escape(small, sizeof small, "abcdefghij", 10);
    assert_string_equal(small, "abcd...");
    assert_int_equal(onescope_error_escape(NULL, 4, "a", 1), 0);
    assert_int_equal(onescope_error_escape(out, 0, "a", 1), 0);
    assert_int_equal(onescope_error_escape(out, sizeof out, NULL, 3), 0);
    assert_string_equal(out, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(public_escape),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_short_buffer),
        cmocka_unit_test(test_long_fields),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_parsers_print_one_line),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_escape_truncation),
        cmocka_unit_test(test_copy_text_cut),
        cmocka_unit_test(test_format_escapes),
        cmocka_unit_test(test_parser_echoes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
