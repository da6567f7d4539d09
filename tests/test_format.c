/* Format detection (src/format.c): every committed test-data file, every prefix of them,
 * near-miss magics and JSON, and the names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* What a committed file's name says it is. */
static onescope_format format_of_name(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot == NULL) return ONESCOPE_FORMAT_UNKNOWN;
    if (strcmp(dot, ".ospc") == 0) return ONESCOPE_FORMAT_OSPC;
    if (strcmp(dot, ".ostm") == 0) return ONESCOPE_FORMAT_OSTM;
    if (strcmp(dot, ".osls") == 0) return ONESCOPE_FORMAT_OSLS;
    if (strcmp(dot, ".pvt") == 0) return ONESCOPE_FORMAT_PVT;
    if (strcmp(dot, ".anm") == 0) return ONESCOPE_FORMAT_ANM;
    return ONESCOPE_FORMAT_UNKNOWN;
}

/* Every prefix of data: under 4 bytes nothing is known (binary) or the JSON key is cut
 * (text); a binary magic is known from 4 bytes on. */
static void check_prefixes(const uint8_t *data, size_t size, onescope_format want) {
    for (size_t len = 0; len <= size && len < 64; len++) {
        uint8_t *p = malloc(len + 1); /* an exact copy, so ASan sees any over-read */
        assert_non_null(p);
        memcpy(p, data, len);
        onescope_format got = onescope_format_detect(p, len);
        bool binary = want == ONESCOPE_FORMAT_OSPC || want == ONESCOPE_FORMAT_OSTM ||
                      want == ONESCOPE_FORMAT_OSLS;
        if (binary && got != (len >= 4 ? want : ONESCOPE_FORMAT_UNKNOWN))
            fail_msg("%zu-byte prefix: %s", len, onescope_format_name(got));
        if (!binary && got != want && got != ONESCOPE_FORMAT_UNKNOWN)
            fail_msg("%zu-byte prefix: %s", len, onescope_format_name(got));
        free(p);
    }
}

static void every_testdata_file(void **state) {
    (void)state;
    DIR *dir = opendir(ONESCOPE_TESTDATA);
    assert_non_null(dir);
    int files = 0, known = 0;
    struct dirent *d;
    while ((d = readdir(dir)) != NULL) {
        if (d->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ONESCOPE_TESTDATA, d->d_name);
        onescope_buffer b;
        onescope_error err;
        assert_int_equal(onescope_file_read(path, 0, NULL, &b, &err), ONESCOPE_OK);
        onescope_format want = format_of_name(d->d_name);
        onescope_format got = onescope_format_detect(b.data, b.size);
        if (got != want)
            fail_msg("%s: detected %s, named %s", d->d_name, onescope_format_name(got),
                     onescope_format_name(want));
        check_prefixes(b.data, b.size, want);
        files++;
        known += want != ONESCOPE_FORMAT_UNKNOWN;
        onescope_buffer_free(&b);
    }
    closedir(dir);
    assert_true(files >= 2);
    assert_true(known >= 1); /* README.md is the unknown one */
}

static const char anm_text[] = "\n  {\n  \"format\" :\t\"octo_anm\",\n  \"version\": 4\n}\n";
static const char pvt_text[] = "{\"version\": 4, \"name\": \"format\", \"format\": \"octo_pvt\"}";

static void every_format_from_its_bytes(void **state) {
    (void)state;
    /* A cache the library wrote. */
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(2, 1, 1, NULL, &c, &err), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &b, &err), ONESCOPE_OK);
    assert_int_equal(onescope_format_detect(b.data, b.size), ONESCOPE_FORMAT_OSPC);
    check_prefixes(b.data, b.size, ONESCOPE_FORMAT_OSPC);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);

    const uint8_t osls[] = {'O', 'S', 'L', 'S', 1, 0, 0, 0};
    assert_int_equal(onescope_format_detect(osls, sizeof osls), ONESCOPE_FORMAT_OSLS);
    check_prefixes(osls, sizeof osls, ONESCOPE_FORMAT_OSLS);
    assert_int_equal(onescope_format_detect("OSTM", 4), ONESCOPE_FORMAT_OSTM);

    assert_int_equal(onescope_format_detect(anm_text, strlen(anm_text)), ONESCOPE_FORMAT_ANM);
    check_prefixes((const uint8_t *)anm_text, strlen(anm_text), ONESCOPE_FORMAT_ANM);
    assert_int_equal(onescope_format_detect(pvt_text, strlen(pvt_text)), ONESCOPE_FORMAT_PVT);
    check_prefixes((const uint8_t *)pvt_text, strlen(pvt_text), ONESCOPE_FORMAT_PVT);
    /* the key's value cut just before its closing quote: not yet known */
    const char *cut = strstr(pvt_text, "octo_pvt") + 8;
    assert_int_equal(onescope_format_detect(pvt_text, (size_t)(cut - pvt_text)),
                     ONESCOPE_FORMAT_UNKNOWN);
}

static void near_misses(void **state) {
    (void)state;
    static const char *const magics[] = {"OSPC", "OSTM", "OSLS"};
    for (size_t m = 0; m < 3; m++) {
        uint8_t b[8];
        /* every single-bit change of every magic byte */
        for (int at = 0; at < 4; at++)
            for (int bit = 0; bit < 8; bit++) {
                memcpy(b, magics[m], 4);
                memset(b + 4, 0, 4);
                b[at] ^= (uint8_t)(1u << bit);
                onescope_format got = onescope_format_detect(b, sizeof b);
                bool other = memcmp(b, "OSPC", 4) == 0 || memcmp(b, "OSTM", 4) == 0 ||
                             memcmp(b, "OSLS", 4) == 0;
                if (!other && got != ONESCOPE_FORMAT_UNKNOWN)
                    fail_msg("%s with byte %d bit %d flipped: %s", magics[m], at, bit,
                             onescope_format_name(got));
            }
    }
    assert_int_equal(onescope_format_detect("ospc", 4), ONESCOPE_FORMAT_UNKNOWN);
    assert_int_equal(onescope_format_detect(" OSPC", 5), ONESCOPE_FORMAT_UNKNOWN);
    assert_int_equal(onescope_format_detect("OSP", 3), ONESCOPE_FORMAT_UNKNOWN);
    const char *const json[] = {
        "{\"format\": \"octo_anmx\"}",  /* a longer name */
        "{\"format\": \"octo_an\"}",    /* a shorter one */
        "{\"format\": \"OCTO_ANM\"}",   /* case matters */
        "[{\"format\": \"octo_anm\"}]", /* not an object */
        "{\"Format\": \"octo_pvt\"}",
        "{\"format\": \"octo_ospc\", \"format\": \"octo_pvt\"}", /* the first key decides */
        "{}",
        "",
    };
    for (size_t i = 0; i < sizeof json / sizeof json[0]; i++)
        if (onescope_format_detect(json[i], strlen(json[i])) != ONESCOPE_FORMAT_UNKNOWN)
            fail_msg("detected '%s'", json[i]);
    /* a byte-order mark or UTF-16 still names its format, so its parser can say what is wrong
     * (docs/ots.md, section 1) */
    static const char bom[] = "\xef\xbb\xbf{\"format\": \"octo_anm\"}";
    assert_int_equal(onescope_format_detect(bom, sizeof bom - 1), ONESCOPE_FORMAT_ANM);
    static const char utf16[] =
        "{\0\"\0f\0o\0r\0m\0a\0t\0\"\0:\0\"\0o\0c\0t\0o\0_\0p\0v\0t\0\"\0}\0";
    assert_int_equal(onescope_format_detect(utf16, sizeof utf16 - 1), ONESCOPE_FORMAT_PVT);
    assert_int_equal(onescope_format_detect("\xff\xfe{\0}\0", 6), ONESCOPE_FORMAT_UNKNOWN);
    assert_int_equal(onescope_format_detect(NULL, 0), ONESCOPE_FORMAT_UNKNOWN);
    assert_int_equal(onescope_format_detect(NULL, 8), ONESCOPE_FORMAT_UNKNOWN);
}

static void names(void **state) {
    (void)state;
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_UNKNOWN), "unknown");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_OSPC), "ospc");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_OSTM), "ostm");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_OSLS), "osls");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_PVT), "pvt");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_ANM), "anm");
    assert_string_equal(onescope_format_name(ONESCOPE_FORMAT_RECORDING), "ostm2");
    /* version 2 after the magic is a module recording; it takes six bytes to tell */
    assert_int_equal(onescope_format_detect("OSTM\2\0", 6), ONESCOPE_FORMAT_RECORDING);
    assert_int_equal(onescope_format_detect("OSTM\1\0", 6), ONESCOPE_FORMAT_OSTM);
    assert_int_equal(onescope_format_detect("OSTM\2\1", 6), ONESCOPE_FORMAT_OSTM);
    assert_int_equal(onescope_format_detect("OSTM\2", 5), ONESCOPE_FORMAT_OSTM);
    assert_string_equal(onescope_format_name((onescope_format)99), "unknown");
    assert_string_equal(onescope_format_name((onescope_format)-1), "unknown");
    /* ABI values */
    assert_int_equal(ONESCOPE_FORMAT_OSPC, 1);
    assert_int_equal(ONESCOPE_FORMAT_ANM, 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_testdata_file),
        cmocka_unit_test(every_format_from_its_bytes),
        cmocka_unit_test(near_misses),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
