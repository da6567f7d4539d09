/* The pull JSON reader (src/json_reader.c): every token with its offset, line and column;
 * escapes; each syntax error it can give, with its code, position and found text; the
 * depth, string and number limits; the locale; skip; a failing `more` and a failing
 * allocator; and chunk invariance: the tokens and the final error are the same whether the
 * text comes whole, one byte at a time or in random pieces. */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "test_util.h"

#define FUZZ_CORPUS ONESCOPE_TESTDATA "/../tests/fuzz/corpus"

/* ---- feeding ---- */

typedef struct feeder {
    const uint8_t *data;
    size_t size, pos;
    size_t chunk;   /* 0: random sizes */
    uint64_t seed;  /* for random sizes */
    int fail_after; /* > 0: the fail_after-th call fails (a read error) */
    int calls;
    bool fill_error; /* the failing call fills the error */
} feeder;

static bool feed_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    feeder *f = user;
    f->calls++;
    if (f->fail_after > 0 && f->calls >= f->fail_after) {
        if (f->fill_error && error != NULL) {
            error->code = ONESCOPE_E_IO;
            snprintf(error->found, sizeof error->found, "%s", "a read error");
        }
        return false;
    }
    size_t n = f->chunk;
    if (n == 0) {
        uint64_t r = test_rand(&f->seed);
        n = (r & 7) == 0 ? 1 + (size_t)(r >> 8) % 5000 : 1 + (size_t)(r >> 8) % 13;
    }
    if (n > f->size - f->pos) n = f->size - f->pos;
    *data = f->data + f->pos;
    *size = n;
    f->pos += n;
    return true;
}

/* Starts r on text: whole (chunk SIZE_MAX, no `more`), or in pieces of chunk bytes (0:
 * random), the first piece given to init. */
static void start(onescope_os_jr *r, feeder *f, onescope_error *e, const onescope_allocator *a,
                  const void *text, size_t n, size_t chunk, uint64_t seed) {
    memset(f, 0, sizeof *f);
    onescope_error_clear(e);
    if (chunk == SIZE_MAX) {
        onescope_os_jr_init(r, "t.json", a, e, text, n, NULL, NULL);
        return;
    }
    f->data = text;
    f->size = n;
    f->chunk = chunk;
    f->seed = seed;
    const uint8_t *first = NULL;
    size_t k = 0;
    feed_more(f, &first, &k, e);
    f->calls = 0;
    onescope_os_jr_init(r, "t.json", a, e, first, k, feed_more, f);
}

/* ---- a token sequence as text (strbuf: test_util.h) ---- */

/* Every token (kind, position, depth, text, number) and the final error, one per line. */
static onescope_code lex(const void *text, size_t n, size_t chunk, uint64_t seed, strbuf *out) {
    onescope_os_jr r;
    feeder f;
    onescope_error e;
    start(&r, &f, &e, NULL, text, n, chunk, seed);
    onescope_code rc;
    for (int guard = 0; guard < 10000000; guard++) {
        rc = onescope_os_jr_next(&r);
        if (rc != ONESCOPE_OK && r.value_error) {
            /* a value a double cannot hold: reported, not latched; the reading goes on */
            char line[1024];
            onescope_error_format(&e, line, sizeof line);
            sb_printf(out, "VALUE %d %llu %u:%u %s\n", (int)rc, (unsigned long long)e.offset,
                      e.line, e.column, line);
            continue;
        }
        if (rc != ONESCOPE_OK) break;
        sb_printf(out, "%d @%llu:%u:%u d%d", (int)r.kind, (unsigned long long)r.at.offset,
                  r.at.line, r.at.column, r.depth);
        if (r.kind == OS_JR_KEY || r.kind == OS_JR_STRING) {
            sb_printf(out, " %zu:", r.len);
            sb_put(out, r.text, r.len);
        }
        if (r.kind == OS_JR_NUMBER)
            sb_printf(out, " %a %d %lld", r.number, (int)r.is_integer,
                      r.is_integer ? r.integer : 0LL);
        sb_put(out, "\n", 1);
        if (r.kind == OS_JR_END) break;
    }
    if (rc != ONESCOPE_OK) {
        char line[1024];
        onescope_error_format(&e, line, sizeof line);
        sb_printf(out, "ERROR %d %d %llu %u:%u %s | %s | %s\n", (int)rc, (int)e.code,
                  (unsigned long long)e.offset, e.line, e.column, e.expected, e.found, line);
        /* latched */
        assert_int_equal(onescope_os_jr_next(&r), rc);
    }
    onescope_os_jr_free(&r);
    return rc;
}

/* ---- single tokens and errors ---- */

/* The first error of text (whole), checked: code, offset, line, column, a piece of found. */
static void expect_error_at(const char *text, size_t n, onescope_code code, uint64_t offset,
                            uint32_t line, uint32_t column, const char *found_part,
                            const char *file, int at_line) {
    onescope_os_jr r;
    feeder f;
    onescope_error e;
    start(&r, &f, &e, NULL, text, n, SIZE_MAX, 0);
    onescope_code rc;
    int tokens = 0;
    while ((rc = onescope_os_jr_next(&r)) == ONESCOPE_OK && r.kind != OS_JR_END) tokens++;
    onescope_os_jr_free(&r);
    char msg[1024];
    onescope_error_format(&e, msg, sizeof msg);
    if (rc != code || e.code != code || e.offset != offset || !e.has_offset || e.line != line ||
        e.column != column || strstr(e.found, found_part) == NULL ||
        strncmp(msg, "t.json", 6) != 0) {
        print_error("%s:%d: on %s\n  want code %d at %llu %u:%u found ~'%s'\n  got  code %d "
                    "(error %d) at %llu %u:%u after %d tokens: %s\n",
                    file, at_line, text, (int)code, (unsigned long long)offset, line, column,
                    found_part, (int)rc, (int)e.code, (unsigned long long)e.offset, e.line,
                    e.column, tokens, msg);
        fail();
    }
}
#define expect_error(text, code, off, line, col, found)                                            \
    expect_error_at((text), strlen(text), (code), (off), (line), (col), (found), __FILE__, __LINE__)

static void next_ok(onescope_os_jr *r, onescope_os_jr_kind kind, uint64_t off, uint32_t line,
                    uint32_t col) {
    onescope_code rc = onescope_os_jr_next(r);
    if (rc != ONESCOPE_OK || r->kind != kind || r->at.offset != off || r->at.line != line ||
        r->at.column != col) {
        print_error("want kind %d at %llu %u:%u, got rc %d kind %d at %llu %u:%u\n", (int)kind,
                    (unsigned long long)off, line, col, (int)rc, (int)r->kind,
                    (unsigned long long)r->at.offset, r->at.line, r->at.column);
        fail();
    }
}

static void test_every_token(void **state) {
    (void)state;
    /* a two-byte character and a four-byte one are one column each */
    const char *t = "{\"k\u00e9\": [true, false,\n null, -1.5e2, 42, \"\xf0\x9f\x98\x80x\"],\r\n"
                    "\t\"e\": {}, \"a\": []}";
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, strlen(t), NULL, NULL);
    next_ok(&r, OS_JR_OBJECT, 0, 1, 1);
    assert_int_equal(r.depth, 1);
    next_ok(&r, OS_JR_KEY, 1, 1, 2);
    assert_string_equal(r.text, "k\u00e9");
    assert_int_equal(r.len, 3);
    next_ok(&r, OS_JR_ARRAY, 8, 1, 8); /* {"ké": [ : the key is 5 bytes, 4 characters */
    assert_int_equal(r.depth, 2);
    next_ok(&r, OS_JR_TRUE, 9, 1, 9);
    next_ok(&r, OS_JR_FALSE, 15, 1, 15);
    next_ok(&r, OS_JR_NULL, 23, 2, 2);
    next_ok(&r, OS_JR_NUMBER, 29, 2, 8);
    assert_false(r.is_integer);
    assert_true(r.number == -150.0);
    assert_string_equal(onescope_os_jr_kind_name(&r), "a real number");
    next_ok(&r, OS_JR_NUMBER, 37, 2, 16);
    assert_true(r.is_integer);
    assert_int_equal(r.integer, 42);
    assert_true(r.number == 42.0);
    assert_string_equal(onescope_os_jr_kind_name(&r), "an integer");
    next_ok(&r, OS_JR_STRING, 41, 2, 20);
    assert_int_equal(r.len, 5);
    assert_memory_equal(r.text, "\xf0\x9f\x98\x80x", 6);
    /* the ']' comes after "😀x": the emoji is 4 bytes but one column */
    next_ok(&r, OS_JR_ARRAY_END, 48, 2, 24);
    assert_int_equal(r.depth, 1);
    /* "\r\n\t": CR is a column, LF the line break, the tab one column */
    next_ok(&r, OS_JR_KEY, 53, 3, 2);
    assert_string_equal(r.text, "e");
    next_ok(&r, OS_JR_OBJECT, 58, 3, 7);
    assert_int_equal(r.depth, 2);
    next_ok(&r, OS_JR_OBJECT_END, 59, 3, 8);
    assert_int_equal(r.depth, 1);
    next_ok(&r, OS_JR_KEY, 62, 3, 11);
    next_ok(&r, OS_JR_ARRAY, 67, 3, 16);
    next_ok(&r, OS_JR_ARRAY_END, 68, 3, 17);
    next_ok(&r, OS_JR_OBJECT_END, 69, 3, 18);
    assert_int_equal(r.depth, 0);
    next_ok(&r, OS_JR_END, 70, 3, 19);
    /* END again, and here() past it */
    next_ok(&r, OS_JR_END, 70, 3, 19);
    onescope_os_jr_pos p = onescope_os_jr_here(&r);
    assert_int_equal(p.offset, 70);
    onescope_os_jr_free(&r);

    /* scalars as whole documents, white space around */
    const char *docs[] = {" \"s\" ", "\n7\n", "true", "null", "[]", "{}"};
    const onescope_os_jr_kind kinds[] = {OS_JR_STRING, OS_JR_NUMBER, OS_JR_TRUE,
                                         OS_JR_NULL,   OS_JR_ARRAY,  OS_JR_OBJECT};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        onescope_os_jr_init(&r, "t.json", NULL, &e, docs[i], strlen(docs[i]), NULL, NULL);
        assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
        assert_int_equal(r.kind, kinds[i]);
        if (kinds[i] == OS_JR_ARRAY || kinds[i] == OS_JR_OBJECT)
            assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
        assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
        assert_int_equal(r.kind, OS_JR_END);
        onescope_os_jr_free(&r);
    }
}

static void test_here(void **state) {
    (void)state;
    const char *t = "[1,  \n  2]";
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, strlen(t), NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    onescope_os_jr_pos p = onescope_os_jr_here(&r); /* the ',' */
    assert_int_equal(p.offset, 2);
    assert_int_equal(p.column, 3);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.at.offset, 8);
    assert_int_equal(r.at.line, 2);
    assert_int_equal(r.at.column, 3);
    onescope_os_jr_free(&r);
}

/* The one string of the document text. */
static onescope_code read_one_string(const char *text, size_t n, char *out, size_t *len,
                                     onescope_error *e) {
    onescope_os_jr r;
    onescope_os_jr_init(&r, "t.json", NULL, e, text, n, NULL, NULL);
    onescope_code rc = onescope_os_jr_next(&r);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(r.kind, OS_JR_STRING);
        memcpy(out, r.text, r.len + 1);
        *len = r.len;
    }
    onescope_os_jr_free(&r);
    return rc;
}

static void test_escapes(void **state) {
    (void)state;
    char out[64];
    size_t len;
    onescope_error e;
    const char *t = "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\\u0001\"";
    assert_int_equal(read_one_string(t, strlen(t), out, &len, &e), ONESCOPE_OK);
    const char want[] = "\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x01";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(out, want, sizeof want);
    /* U+10FFFF, the last pair */
    t = "\"\\uDBFF\\uDFFF\"";
    assert_int_equal(read_one_string(t, strlen(t), out, &len, &e), ONESCOPE_OK);
    assert_memory_equal(out, "\xf4\x8f\xbf\xbf", 5);
    /* raw UTF-8 boundaries pass unchanged */
    t = "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"";
    assert_int_equal(read_one_string(t, strlen(t), out, &len, &e), ONESCOPE_OK);
    assert_int_equal(len, strlen(t) - 2);
    /* \u0000 is refused, as are the halves of a pair alone */
    expect_error("\"ab\\u0000\"", ONESCOPE_E_SYNTAX, 3, 1, 4, "\\u0000");
    expect_error("[\"\\uD800\"]", ONESCOPE_E_UTF8, 2, 1, 3, "high half of a surrogate pair alone");
}

/* Each fail_at of json_reader.c. */
static void test_syntax_errors(void **state) {
    (void)state;
    /* strings */
    expect_error("[\"\\u12x4\"]", ONESCOPE_E_SYNTAX, 2, 1, 3, "not followed by them");
    expect_error("[\"ab\\q\"]", ONESCOPE_E_SYNTAX, 4, 1, 5, "an unknown escape");
    expect_error("[\"\\uDC00\"]", ONESCOPE_E_UTF8, 2, 1, 3, "low half of a surrogate pair alone");
    expect_error("[\"\\uD800x\"]", ONESCOPE_E_UTF8, 2, 1, 3, "(\\uD800)");
    expect_error("[\"\\uDBFF\\n\"]", ONESCOPE_E_UTF8, 2, 1, 3, "(\\uDBFF)");
    expect_error("[\"\\uD800\\u0041\"]", ONESCOPE_E_UTF8, 2, 1, 3, "high half");
    expect_error("[\"\\uD800\\u00\"]", ONESCOPE_E_SYNTAX, 2, 1, 3, "not followed by them");
    expect_error("\n [\"\\u0000\"]", ONESCOPE_E_SYNTAX, 4, 2, 4, "the escape \\u0000");
    expect_error("[1, \"abc", ONESCOPE_E_SYNTAX, 4, 1, 5, "the file ends inside it");
    expect_error("[1, \"abc\\", ONESCOPE_E_SYNTAX, 4, 1, 5, "the file ends inside it");
    expect_error("[1, \"abc\\u00", ONESCOPE_E_SYNTAX, 8, 1, 9, "not followed by them");
    expect_error("[\"ab\ncd\"]", ONESCOPE_E_SYNTAX, 1, 1, 2, "a line break inside it");
    expect_error("[\"ab\rcd\"]", ONESCOPE_E_SYNTAX, 1, 1, 2, "a line break inside it");
    expect_error("[\"\xc3\xa9\x01\"]", ONESCOPE_E_SYNTAX, 4, 1, 4,
                 "a raw control character (byte 01)");
    expect_error("[\"a\tb\"]", ONESCOPE_E_SYNTAX, 3, 1, 4, "byte 09");
    expect_error("[\"a\xff\"]", ONESCOPE_E_UTF8, 3, 1, 4, "byte ff, which cannot start");
    expect_error("[\"a\x80\"]", ONESCOPE_E_UTF8, 3, 1, 4, "byte 80, which cannot start");
    expect_error("[\"a\xc0\xaf\"]", ONESCOPE_E_UTF8, 3, 1, 4, "byte c0");
    expect_error("[\"a\xf5\x80\x80\x80\"]", ONESCOPE_E_UTF8, 3, 1, 4, "byte f5");
    expect_error("[\"a\xe2\x82\"]", ONESCOPE_E_UTF8, 3, 1, 4,
                 "cut short or malformed after byte e2");
    expect_error("[\"a\xe0\x9f\xbf\"]", ONESCOPE_E_UTF8, 3, 1, 4, "after byte e0"); /* overlong */
    expect_error("[\"a\xed\xa0\x80\"]", ONESCOPE_E_UTF8, 3, 1, 4, "after byte ed"); /* surrogate */
    expect_error("[\"a\xf4\x90\x80\x80\"]", ONESCOPE_E_UTF8, 3, 1, 4,
                 "after byte f4"); /* >10FFFF */
    expect_error("[\"a\xf0\x9f\x98", ONESCOPE_E_UTF8, 3, 1, 4,
                 "after byte f0"); /* cut at the end */
    /* numbers and words */
    expect_error("[tru]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'tru', which is none of those");
    expect_error("[1, #]", ONESCOPE_E_SYNTAX, 4, 1, 5, "'#', which is none of those");
    expect_error("[\x01]", ONESCOPE_E_SYNTAX, 1, 1, 2, "byte 01, which is none");
    expect_error("\xc3\xa9", ONESCOPE_E_SYNTAX, 0, 1, 1, "byte c3");
    expect_error("[NaN]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "'NaN'");
    expect_error("[-Infinity]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "'-Infinity'");
    expect_error("[+inf]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "'+inf'");
    expect_error("[1e309]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "1e309, too large for a double");
    expect_error("[-1e309]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "-1e309");
    /* the grammar */
    expect_error("", ONESCOPE_E_SYNTAX, 0, 1, 1, "no text");
    expect_error(" \n\t ", ONESCOPE_E_SYNTAX, 4, 2, 3, "no text");
    expect_error("[1, {\"a\": 2}", ONESCOPE_E_SYNTAX, 12, 1, 13, "the end of the file inside");
    expect_error("{\"a\": ", ONESCOPE_E_SYNTAX, 6, 1, 7, "the end of the file inside");
    expect_error("[1] 2", ONESCOPE_E_SYNTAX, 4, 1, 5, "more text after the end");
    expect_error("{}\n}", ONESCOPE_E_SYNTAX, 3, 2, 1, "more text after the end");
    expect_error("{\"a\": 1,}", ONESCOPE_E_SYNTAX, 8, 1, 9, "a trailing comma");
    expect_error("[1,\n ]", ONESCOPE_E_SYNTAX, 5, 2, 2, "a trailing comma");
    expect_error("{\"a\" 1}", ONESCOPE_E_SYNTAX, 5, 1, 6, "a key with no ':' after it");
    expect_error("{\"a\"", ONESCOPE_E_SYNTAX, 4, 1, 5, "a key with no ':' after it");
    expect_error("{'a': 1}", ONESCOPE_E_SYNTAX, 1, 1, 2, "a single-quoted key");
    expect_error("{\"a\": 1, b: 2}", ONESCOPE_E_SYNTAX, 9, 1, 10, "a bare word where a key");
    expect_error("{]", ONESCOPE_E_SYNTAX, 1, 1, 2, "']'");
    expect_error("{#}", ONESCOPE_E_SYNTAX, 1, 1, 2, "'#'");
    expect_error("{\x7f}", ONESCOPE_E_SYNTAX, 1, 1, 2, "byte 7f");
    expect_error("{\"a\": }", ONESCOPE_E_SYNTAX, 6, 1, 7, "'}'");
    expect_error("{\"a\": , \"b\": 1}", ONESCOPE_E_SYNTAX, 6, 1, 7, "','");
    expect_error("[1}", ONESCOPE_E_SYNTAX, 2, 1, 3, "'}'");
    expect_error("{\"a\": 1]", ONESCOPE_E_SYNTAX, 7, 1, 8, "']'");
    expect_error("[1 2]", ONESCOPE_E_SYNTAX, 3, 1, 4, "a value right after another");
    expect_error("{\"a\": 1 \"b\": 2}", ONESCOPE_E_SYNTAX, 8, 1, 9, "a value right after another");
    expect_error("[,1]", ONESCOPE_E_SYNTAX, 1, 1, 2, "',', which is none");
    expect_error("[1,,2]", ONESCOPE_E_SYNTAX, 3, 1, 4, "','");

    /* the expected texts of a few, and the one formatted line */
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, "{\"a\": 1,}", 9, NULL, NULL);
    while (onescope_os_jr_next(&r) == ONESCOPE_OK) {
    }
    assert_string_equal(e.expected, "a value after each comma");
    char line[512];
    onescope_error_format(&e, line, sizeof line);
    assert_non_null(strstr(line, "t.json"));
    assert_non_null(strstr(line, "line 1, column 9"));
    assert_null(strchr(line, '\n'));
    onescope_os_jr_free(&r);
}

static void test_depth_limit(void **state) {
    (void)state;
    char t[200];
    for (int depth = 64; depth <= 65; depth++) {
        size_t n = 0;
        for (int i = 0; i < depth; i++) t[n++] = '[';
        for (int i = 0; i < depth; i++) t[n++] = ']';
        t[n] = '\0';
        if (depth == 64) {
            strbuf b = {0};
            assert_int_equal(lex(t, n, SIZE_MAX, 0, &b), ONESCOPE_OK);
            free(b.s);
        } else {
            /* the 65th '[' at offset 64, column 65 */
            expect_error(t, ONESCOPE_E_TOO_LARGE, 64, 1, 65, "a 65th level");
        }
    }
    /* objects count too, mixed with arrays */
    strbuf s = {0};
    for (int i = 0; i < 32; i++) sb_printf(&s, "{\"k\":[");
    sb_printf(&s, "{");
    expect_error(s.s, ONESCOPE_E_TOO_LARGE, (uint64_t)s.n - 1, 1, (uint32_t)s.n, "65th");
    free(s.s);
}

static void test_string_limit(void **state) {
    (void)state;
    size_t max = ONESCOPE_OS_JR_MAX_STRING;
    char *t = malloc(max + 32);
    assert_non_null(t);
    /* exactly the limit, as a value and as a key */
    t[0] = '[';
    t[1] = '"';
    memset(t + 2, 'x', max);
    t[max + 2] = '"';
    t[max + 3] = ']';
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, max + 4, NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_STRING);
    assert_int_equal(r.len, max);
    assert_int_equal(strlen(r.text), max);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_END);
    onescope_os_jr_free(&r);
    /* one byte more */
    t[0] = '[';
    t[1] = '"';
    memset(t + 2, 'x', max + 1);
    t[max + 3] = '"';
    t[max + 4] = ']';
    t[max + 5] = '\0';
    expect_error_at(t, max + 5, ONESCOPE_E_TOO_LARGE, 1, 1, 2, "a longer one", __FILE__, __LINE__);
    /* the limit counts unescaped bytes: max - 1 bytes and a two-byte escape "\u00e9" */
    t[0] = '{';
    t[1] = '"';
    memset(t + 2, 'y', max - 2);
    memcpy(t + max, "\\u00e9\":1}", 11);
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, strlen(t), NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_KEY);
    assert_int_equal(r.len, max);
    onescope_os_jr_free(&r);
    memset(t + 2, 'y', max - 1);
    memcpy(t + max + 1, "\\u00e9\":1}", 11);
    expect_error_at(t, strlen(t), ONESCOPE_E_TOO_LARGE, 1, 1, 2, "a longer one", __FILE__,
                    __LINE__);
    free(t);
}

/* The number of a one-number document, or the failure. */
static onescope_code number_of(const char *text, double *d, bool *is_int, long long *ll) {
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, text, strlen(text), NULL, NULL);
    onescope_code rc = onescope_os_jr_next(&r);
    if (rc == ONESCOPE_OK) {
        assert_int_equal(r.kind, OS_JR_NUMBER);
        *d = r.number;
        *is_int = r.is_integer;
        *ll = r.integer;
        rc = onescope_os_jr_next(&r);
        if (rc == ONESCOPE_OK) assert_int_equal(r.kind, OS_JR_END);
    }
    onescope_os_jr_free(&r);
    return rc;
}

static void test_numbers(void **state) {
    (void)state;
    double d;
    bool i;
    long long ll;
    assert_int_equal(number_of("-0", &d, &i, &ll), ONESCOPE_OK);
    assert_true(i);
    assert_int_equal(ll, 0);
    assert_true(d == 0.0 && signbit(d));
    assert_int_equal(number_of("-0.0", &d, &i, &ll), ONESCOPE_OK);
    assert_false(i);
    assert_true(signbit(d));
    assert_int_equal(number_of("1e308", &d, &i, &ll), ONESCOPE_OK);
    assert_false(i);
    assert_true(d == 1e308);
    assert_int_equal(number_of("1E+2", &d, &i, &ll), ONESCOPE_OK);
    assert_true(d == 100.0 && !i);
    assert_int_equal(number_of("25e-1", &d, &i, &ll), ONESCOPE_OK);
    assert_true(d == 2.5);
    assert_int_equal(number_of("1e-400", &d, &i, &ll), ONESCOPE_OK); /* underflow: 0, finite */
    assert_true(d == 0.0);
    assert_int_equal(number_of("1e309", &d, &i, &ll), ONESCOPE_E_NOT_FINITE);
    assert_int_equal(number_of("9223372036854775807", &d, &i, &ll), ONESCOPE_OK);
    assert_true(i);
    assert_true(ll == 9223372036854775807LL);
    /* an integer past 64 bits is still a number, only not an integer */
    assert_int_equal(number_of("9223372036854775808", &d, &i, &ll), ONESCOPE_OK);
    assert_false(i);
    assert_true(d == 9223372036854775808.0);
    assert_int_equal(number_of("18446744073709551616", &d, &i, &ll), ONESCOPE_OK);
    assert_false(i);
    assert_int_equal(number_of("-9223372036854775808", &d, &i, &ll), ONESCOPE_OK);
    assert_true(i);
    assert_true(ll == -9223372036854775807LL - 1);
    /* a big number with a fraction is a double, not a range error */
    assert_int_equal(number_of("9223372036854775808.0", &d, &i, &ll), ONESCOPE_OK);
    assert_false(i);
    assert_true(d == 9223372036854775808.0);
    /* 400 characters are allowed, 401 are not */
    char w[420] = "0.";
    memset(w + 2, '5', 398);
    w[400] = '\0';
    assert_int_equal(number_of(w, &d, &i, &ll), ONESCOPE_OK);
    assert_true(fabs(d - 0.5555555) < 1e-6);
    w[400] = '5';
    w[401] = '\0';
    expect_error_at(w, 401, ONESCOPE_E_SYNTAX, 0, 1, 1, "a longer one", __FILE__, __LINE__);
    /* not JSON numbers */
    expect_error("01", ONESCOPE_E_SYNTAX, 0, 1, 1, "'01'");
    expect_error("-01", ONESCOPE_E_SYNTAX, 0, 1, 1, "'-01'");
    expect_error("[1.]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'1.'");
    expect_error("[.5]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'.5'");
    expect_error("[+1]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'+1'");
    expect_error("[-]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'-'");
    expect_error("[1e]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'1e'");
    expect_error("[1e+]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'1e+'");
    expect_error("[0x10]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'0x10'");
    expect_error("[1_000]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'1_000'");
    expect_error("[NaN]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "NaN");
    expect_error("[nan]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "nan");
    expect_error("[Infinity]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "Infinity");
    expect_error("[-Inf]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "Inf");
    expect_error("[infinity]", ONESCOPE_E_NOT_FINITE, 1, 1, 2, "infinity");
    expect_error("[trueish]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'trueish'");
    expect_error("[True]", ONESCOPE_E_SYNTAX, 1, 1, 2, "'True'");
    /* a number ends at a character that cannot be in one */
    strbuf b = {0};
    assert_int_equal(lex("[1,-2.5e1]", 10, SIZE_MAX, 0, &b), ONESCOPE_OK);
    assert_non_null(strstr(b.s, "-0x1.9p+4 0 0"));
    free(b.s);
}

static void test_locale(void **state) {
    (void)state;
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8", "fr_FR.utf8",
                           "nl_NL.UTF-8", "ru_RU.UTF-8", "it_IT.UTF-8", "es_ES.UTF-8"};
    const char *found = NULL;
    for (size_t k = 0; k < sizeof names / sizeof names[0] && found == NULL; k++) {
        if (setlocale(LC_NUMERIC, names[k]) == NULL) continue;
        if (strcmp(localeconv()->decimal_point, ",") == 0)
            found = names[k];
        else
            setlocale(LC_NUMERIC, "C");
    }
    if (found == NULL) {
        printf("SKIPPED: test_locale: no locale with a ',' decimal point here (locale -a)\n");
        setlocale(LC_NUMERIC, "C");
        return;
    }
    double d;
    bool i;
    long long ll;
    onescope_code rc = number_of("1.5", &d, &i, &ll);
    onescope_code rc2 = number_of("-2.25e1", &d, &i, &ll);
    double d2 = d;
    /* an error names the number as the file has it */
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, "1.5e309", 7, NULL, NULL);
    onescope_code rc3 = onescope_os_jr_next(&r);
    onescope_os_jr_free(&r);
    char shown[sizeof e.found];
    memcpy(shown, e.found, sizeof shown);
    setlocale(LC_NUMERIC, "C");
    assert_int_equal(rc, ONESCOPE_OK);
    assert_int_equal(rc2, ONESCOPE_OK);
    assert_true(d2 == -22.5);
    assert_int_equal(rc3, ONESCOPE_E_NOT_FINITE);
    /* the message quotes the number as the file has it, not in the locale's spelling */
    assert_non_null(strstr(shown, "1.5e309"));
    assert_int_equal(number_of("1.5", &d, &i, &ll), ONESCOPE_OK);
    assert_true(d == 1.5);
}

/* A decimal point of more than one byte (ps_AF: U+066B, 2 bytes in UTF-8). */
static void test_locale_multibyte_point(void **state) {
    (void)state;
    if (setlocale(LC_NUMERIC, "ps_AF.UTF-8") == NULL || strlen(localeconv()->decimal_point) < 2) {
        printf("SKIPPED: test_locale_multibyte_point: no ps_AF.UTF-8 locale here\n");
        setlocale(LC_NUMERIC, "C");
        return;
    }
    double d = 0;
    bool i;
    long long ll;
    onescope_code rc = number_of("1.5", &d, &i, &ll);
    setlocale(LC_NUMERIC, "C");
    assert_int_equal(rc, ONESCOPE_OK);
    /* (was read as 1 when the point's first byte alone replaced '.'; checked by hand with a
     * locale made by `localedef -i ps_AF -f UTF-8 DIR/ps_AF.UTF-8` and LOCPATH=DIR) */
    assert_true(d == 1.5);
}

static void test_skip(void **state) {
    (void)state;
    const char *t = "[{\"a\": [1, {\"b\": [[], {}]}, \"]}\"], \"c\": {}}, 2, [3, [4]], 5]";
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, strlen(t), NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK); /* [ */
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK); /* { */
    assert_int_equal(r.kind, OS_JR_OBJECT);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_OBJECT_END);
    assert_int_equal(r.depth, 1);
    assert_int_equal(r.at.offset, strstr(t, "}, 2") - t);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_NUMBER);
    assert_int_equal(r.integer, 2);
    /* skip on a scalar does nothing */
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_NUMBER);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK); /* [3, [4]] */
    assert_int_equal(r.kind, OS_JR_ARRAY);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_ARRAY_END);
    assert_int_equal(r.depth, 1);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.integer, 5);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_ARRAY_END);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_OK); /* an end: nothing */
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_END);
    onescope_os_jr_free(&r);
    /* the whole document, and an empty container */
    onescope_os_jr_init(&r, "t.json", NULL, &e, "{}", 2, NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_OBJECT_END);
    assert_int_equal(r.depth, 0);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_END);
    onescope_os_jr_free(&r);
    /* an error inside what is skipped */
    t = "[[1, {\"a\": tru}], 2]";
    onescope_os_jr_init(&r, "t.json", NULL, &e, t, strlen(t), NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_E_SYNTAX);
    assert_int_equal(e.offset, strstr(t, "tru") - t);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_E_SYNTAX);
    onescope_os_jr_free(&r);
    /* the text ends inside it */
    onescope_os_jr_init(&r, "t.json", NULL, &e, "[[1, [2]", 8, NULL, NULL);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(onescope_os_jr_skip(&r), ONESCOPE_E_SYNTAX);
    assert_non_null(strstr(e.found, "the end of the file inside"));
    onescope_os_jr_free(&r);
}

static void test_more_fails(void **state) {
    (void)state;
    /* the second text has escapes, a surrogate pair and raw UTF-8: a read error inside any of
     * them stays the read error (it is not taken for a cut escape or character) */
    static const char *const texts[] = {"{\"abc\": [1, 2, 3], \"d\": \"efgh\"}",
                                        "[\"\\u00e9\\uD83D\\uDE00\xc3\xa9\xf0\x9f\x98\x80\", 1]"};
    for (size_t ti = 0; ti < 2; ti++) {
        const char *t = texts[ti];
        size_t n = strlen(t);
        /* a read error at every call: in white space, a string, a number, a key */
        for (int k = 1; k <= (int)n; k++) {
            for (int fill = 0; fill <= 1; fill++) {
                onescope_os_jr r;
                feeder f;
                onescope_error e;
                start(&r, &f, &e, NULL, t, n, 1, 0);
                f.fail_after = k;
                f.fill_error = fill;
                onescope_code rc;
                int tokens = 0;
                while ((rc = onescope_os_jr_next(&r)) == ONESCOPE_OK && r.kind != OS_JR_END)
                    tokens++;
                assert_int_equal(rc, ONESCOPE_E_IO);
                if (fill) assert_string_equal(e.found, "a read error");
                /* latched: no more reading, the same code */
                int calls = f.calls;
                assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_E_IO);
                assert_int_equal(f.calls, calls);
                assert_int_equal(r.failed, ONESCOPE_E_IO);
                onescope_os_jr_free(&r);
            }
        }
    }
}

/* Reads a text with strings and keys to its end through the allocator. */
static onescope_code read_all(const onescope_allocator *a, void *ctx) {
    const char *t = ctx;
    onescope_os_jr r;
    onescope_error e;
    onescope_os_jr_init(&r, "t.json", a, &e, t, strlen(t), NULL, NULL);
    onescope_code rc;
    while ((rc = onescope_os_jr_next(&r)) == ONESCOPE_OK && r.kind != OS_JR_END) {
    }
    if (rc == ONESCOPE_E_NOMEM) {
        assert_int_equal(e.code, ONESCOPE_E_NOMEM);
        assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_E_NOMEM); /* latched */
    }
    onescope_os_jr_free(&r);
    return rc;
}

static void test_nomem(void **state) {
    (void)state;
    /* strings long enough to grow the text buffer more than once (escapes between short
     * runs, so it grows step by step: a plain run is copied at once) */
    static char t[2000];
    strcpy(t, "{\"k\": \"");
    for (int i = 0; i < 300; i++) strcat(t, "a\\n");
    strcat(t, "\", \"\\u00e9\": [\"x\", \"");
    for (int i = 0; i < 100; i++) strcat(t, "cdefgh");
    strcat(t, "\"]}");
    long allocs = test_alloc_walk(read_all, t);
    assert_true(allocs >= 3);
}

/* ---- chunk invariance ---- */

static const char *const texts[] = {
    "{\"k\u00e9\": [true, false,\n null, -1.5e2, 42, \"\xf0\x9f\x98\x80x\"],\r\n\t\"e\": {}}",
    "[\"\\u0041\\u00e9\\uD83D\\uDE00\\n\", -0, 1e308, 9223372036854775807, -9223372036854775808]",
    "  [ 1 , [ 2 , { \"a\" : [ ] } ] ]  \n\n",
    "\"only a string\"",
    "123456789.125e-3",
    "null",
    "",
    "   ",
    "[1,]",
    "{\"a\": 1,}",
    "{\"a\" 1}",
    "{'a': 1}",
    "{a: 1}",
    "{]",
    "[1}",
    "[1 2]",
    "[1] x",
    "[\"abc",
    "[\"abc\\",
    "[\"abc\\u00",
    "[\"\\uD800\"]",
    "[\"\\uD800\\u0041\"]",
    "[\"\\uDC00\"]",
    "[\"\\u0000\"]",
    "[\"\\q\"]",
    "[\"a\nb\"]",
    "[\"a\x01\"]",
    "[\"a\xff\"]",
    "[\"a\xe2\x82\"]",
    "[\"a\xf0\x9f\x98",
    "[NaN]",
    "[-Infinity]",
    "[1e309]",
    "[9223372036854775808]",
    "[01]",
    "[1.]",
    "[.5]",
    "[+1]",
    "[tru]",
    "{\"a\": }",
    "{\"a\": 1]",
    "[1, {\"a\": 2}",
    "\xef\xbb\xbf{}",
    "{\"a\":\n  [1,\n   2,\n   {\"b\": \"c\u00e9\u20ac\"}\n  ]\n}\n",
};

static void check_invariance(const char *label, const void *text, size_t n) {
    strbuf whole = {0};
    onescope_code rc = lex(text, n, SIZE_MAX, 0, &whole);
    size_t chunks[] = {1, 2, 3, 7, 64, 4096, 0, 0, 0};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        strbuf b = {0};
        onescope_code rc2 = lex(text, n, chunks[k], 0x9e3779b97f4a7c15ULL * (k + 1), &b);
        if (rc2 != rc || b.n != whole.n || memcmp(b.s, whole.s, whole.n) != 0) {
            /* the first differing line */
            size_t i = 0;
            while (i < b.n && i < whole.n && b.s[i] == whole.s[i]) i++;
            while (i > 0 && whole.s[i - 1] != '\n') i--;
            print_error("%s: chunk %zu differs from the whole text at:\n  whole: %.200s\n  chunk: "
                        "%.200s\n",
                        label, chunks[k], whole.s + i, b.s + i);
            fail();
        }
        free(b.s);
    }
    free(whole.s);
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)size + 1);
    assert_non_null(d);
    *n = fread(d, 1, (size_t)size, f);
    fclose(f);
    return d;
}

/* Calls fn on every file of dir whose name ends in ext ("" for all); returns how many. */
static int each_file(const char *dir, const char *ext,
                     void (*fn)(const char *, const uint8_t *, size_t)) {
    DIR *d = opendir(dir);
    if (d == NULL) return 0;
    int count = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name), el = strlen(ext);
        if (ent->d_name[0] == '.') continue;
        if (len < el || strcmp(ent->d_name + len - el, ext) != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        size_t n = 0;
        uint8_t *data = read_file(path, &n);
        if (data == NULL) continue;
        fn(path, data, n);
        free(data);
        count++;
    }
    closedir(d);
    return count;
}

static void invariance_file(const char *path, const uint8_t *d, size_t n) {
    check_invariance(path, d, n);
    /* every cut of a small file, and a few of a big one */
    size_t step = n > 400 ? n / 97 + 1 : 1;
    for (size_t cut = 0; cut < n; cut += step) check_invariance(path, d, cut);
}

static void test_chunk_invariance(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        check_invariance(texts[i], texts[i], strlen(texts[i]));
    /* long strings and numbers across chunk edges; the limits */
    size_t max = ONESCOPE_OS_JR_MAX_STRING;
    char *t = malloc(max + 16);
    assert_non_null(t);
    t[0] = '"';
    memset(t + 1, 'z', max + 1);
    t[max + 2] = '"';
    check_invariance("a string one byte too long", t, max + 3);
    check_invariance("a string at the limit", t + 1, max + 1); /* "zzz...z" unterminated */
    t[max + 1] = '"';
    check_invariance("a string at the limit", t, max + 2);
    free(t);
    int files = each_file(ONESCOPE_TESTDATA, ".anm", invariance_file);
    files += each_file(ONESCOPE_TESTDATA, ".pvt", invariance_file);
    files += each_file(FUZZ_CORPUS "/anm_parse", "", invariance_file);
    files += each_file(FUZZ_CORPUS "/pvt_parse", "", invariance_file);
    files += each_file(FUZZ_CORPUS "/soa_scene_parse", "", invariance_file);
    printf("chunk invariance over %zu texts and %d files\n", sizeof texts / sizeof texts[0], files);
    assert_true(files >= 20);
}

/* The same text from a NULL first piece, every byte through `more`. */
static void test_no_first_piece(void **state) {
    (void)state;
    const char *t = "{\"a\": [1, \"b\"]}";
    strbuf whole = {0}, b = {0};
    assert_int_equal(lex(t, strlen(t), SIZE_MAX, 0, &whole), ONESCOPE_OK);
    onescope_os_jr r;
    onescope_error e;
    feeder f = {(const uint8_t *)t, strlen(t), 0, 5, 0, 0, 0, false};
    onescope_os_jr_init(&r, "t.json", NULL, &e, NULL, 0, feed_more, &f);
    while (onescope_os_jr_next(&r) == ONESCOPE_OK && r.kind != OS_JR_END)
        sb_printf(&b, "%d %llu\n", (int)r.kind, (unsigned long long)r.at.offset);
    assert_int_equal(r.kind, OS_JR_END);
    assert_int_equal(r.at.offset, strlen(t));
    onescope_os_jr_free(&r);
    assert_non_null(strstr(b.s, "6 7\n5 10\n3 13\n1 14\n"));
    free(whole.s);
    free(b.s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_token),
        cmocka_unit_test(test_here),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_string_limit),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_locale),
        cmocka_unit_test(test_locale_multibyte_point),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_more_fails),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_chunk_invariance),
        cmocka_unit_test(test_no_first_piece),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
