/* Numbers through the JSON reader (src/json_reader.c) against strtod, bit for bit: the fast
 * path (digits that fit in 53 bits, a power of ten up to 22 either way) must round exactly as
 * strtod does, and every other number goes to strtod itself. Random decimal texts with 1 to
 * 20 digits, fractions and exponents from -30 to 30, fixed seed; then the edges. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "test_util.h"

/* Reads text as one JSON document holding one number. */
static double read_number(const char *text) {
    onescope_os_jr r;
    onescope_error err;
    onescope_os_jr_init(&r, "n.json", NULL, &err, text, strlen(text), NULL, NULL);
    if (onescope_os_jr_next(&r) != ONESCOPE_OK || r.kind != OS_JR_NUMBER) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("%s: %s", text, line);
    }
    double v = r.number;
    assert_int_equal(onescope_os_jr_next(&r), ONESCOPE_OK);
    assert_int_equal(r.kind, OS_JR_END);
    onescope_os_jr_free(&r);
    return v;
}

static void same_bits(const char *text) {
    double a = read_number(text), b = strtod(text, NULL);
    if (memcmp(&a, &b, sizeof a) != 0) fail_msg("%s: reader %.17g, strtod %.17g", text, a, b);
}

static uint64_t state_ = 0x9E3779B97F4A7C15u;
static uint32_t next_u32(void) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return (uint32_t)(state_ >> 11);
}

static void random_numbers_round_as_strtod(void **state) {
    (void)state;
    char text[64];
    for (int i = 0; i < 200000; i++) {
        int digits = 1 + (int)(next_u32() % 20), point = (int)(next_u32() % (unsigned)(digits + 1));
        size_t n = 0;
        if (next_u32() & 1) text[n++] = '-';
        for (int d = 0; d < digits; d++) {
            if (d == point && d > 0) text[n++] = '.';
            char c = (char)('0' + next_u32() % 10);
            if (d == 0 && c == '0' && digits > 1 && point != 1) c = '1'; /* no leading zero */
            text[n++] = c;
        }
        if (next_u32() % 3 == 0)
            n += (size_t)snprintf(text + n, sizeof text - n, "e%d", (int)(next_u32() % 61) - 30);
        text[n] = '\0';
        /* a bare integer must fit in 64 bits (a rule of its own, docs/ots.md section 1) */
        if (strpbrk(text, ".e") == NULL && digits > 18) continue;
        same_bits(text);
    }
}

static void edges_round_as_strtod(void **state) {
    (void)state;
    static const char *const cases[] = {
        "0",
        "-0",
        "0.0",
        "1",
        "9007199254740991",
        "9007199254740993",
        "123456789012345",
        "1234567890123456",
        "0.1",
        "0.3",
        "1e22",
        "1e23",
        "1e-22",
        "1e-23",
        "4.35",
        "2.675",
        "3.6870000000000003",
        "5e-324",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "123456789012345e-22",
        "123456789012345e22",
        "0.000000000000001",
        "1E5",
        "1e+5",
        "-1.5e-7",
        "1e24",
        "9.81",
        "0.1e1",
        "-9223372036854775808",
        "9223372036854775807",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) same_bits(cases[i]);
    assert_true(signbit(read_number("-0")));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_numbers_round_as_strtod),
        cmocka_unit_test(edges_round_as_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
