/* The number printer (src/numfmt.c) against the C library: every text read back with strtod or
 * strtof gives the same bits; no decimal with one digit fewer reads back (so none shorter does);
 * and whenever printf's correctly rounded decimal with our digit count N reads back, our texts
 * are printf's byte for byte (so the decimal is the closest one): "%.Ng" for the OTS writer's
 * notation (OS_NUM_G_SHORTEST), and for the public one "%.*e" or "%.*f" as %.17g (floats:
 * %.9g) would choose between them.
 * Values: random bit patterns (fixed seed), every power of two and of ten with their neighbours,
 * subnormals, the edges of the ranges, a stride over every float, and whole numbers. Then the
 * writers' styles against the snprintf searches they replace.
 *
 * ONESCOPE_NUMFMT_EXHAUSTIVE=1 checks every one of the 2^32 floats instead of the stride (=K/N:
 * the K-th of N slices), with a leaner check per float; the run is reported, not in ctest.
 * Sanitizer and coverage builds (ONESCOPE_TEST_LIGHT) check a sixteenth of the values. */
#include <float.h>
#include <stdbool.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numfmt.h"
#include "test_util.h"

#ifdef ONESCOPE_TEST_LIGHT
#define SCALE 16
#else
#define SCALE 1
#endif

static uint64_t checked;

static uint64_t bits_of(double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static uint32_t bits_of_float(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static double double_of(uint64_t b) {
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}
static float float_of(uint32_t b) {
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static int digit_count(uint64_t d) {
    int n = 1;
    while (d >= 10) {
        d /= 10;
        n++;
    }
    return n;
}

/* The checks of one finite double. */
/* printf's correctly rounded n-digit decimal of v ("%.*e") laid out by the public rule, written
 * here from the rule itself: plain when the decimal exponent is from -4 to prec - 1. */
static void reference(char *ref, size_t size, double v, int n, int prec) {
    char e[64], digits[32];
    snprintf(e, sizeof e, "%.*e", n - 1, v);
    const char *s = e;
    bool neg = *s == '-';
    if (neg) s++;
    int nd = 0;
    for (; *s != 'e'; s++)
        if (*s != '.') digits[nd++] = *s;
    int x = atoi(s + 1);
    if (x < -4 || x >= prec) {
        snprintf(ref, size, "%s", e);
        return;
    }
    char *p = ref;
    if (neg) *p++ = '-';
    if (x < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -x - 1; i++) *p++ = '0';
        memcpy(p, digits, (size_t)nd);
        p += nd;
    } else {
        for (int i = 0; i <= x || i < nd; i++) {
            if (i == x + 1) *p++ = '.';
            *p++ = i < nd ? digits[i] : '0';
        }
    }
    *p = '\0';
}

static void check_double(double v) {
    char text[OS_NUMBER_MAX], g[OS_NUMBER_MAX], ref[64], cand[64];
    size_t len = onescope_os_number_write(text, v, 0);
    assert_int_equal(len, strlen(text));
    assert_true(len <= ONESCOPE_NUMBER_MAX_LENGTH);
    double back = strtod(text, NULL);
    if (bits_of(back) != bits_of(v))
        fail_msg("%a printed as %s, which reads back as %a", v, text, back);
    len = onescope_os_number_write(g, v, OS_NUM_G_SHORTEST);
    assert_true(len <= ONESCOPE_NUMBER_MAX_LENGTH);
    if (bits_of(strtod(g, NULL)) != bits_of(v)) fail_msg("%a printed as %s (%%g)", v, g);
    checked++;
    uint64_t d;
    int e;
    if (!onescope_os_number_decimal(v, &d, &e)) {
        assert_true(v == 0);
        assert_string_equal(text, signbit(v) ? "-0" : "0");
        assert_string_equal(g, text);
        return;
    }
    assert_true(d % 10 != 0);
    int n = digit_count(d);
    /* One digit fewer: the two multiples of 10^(e+1) around d 10^e are the only candidates
     * (had v been past either, that multiple would lie between v and d 10^e, inside the
     * interval, and it reads back: the test fails on it). */
    if (n > 1) {
        for (uint64_t c = d / 10; c <= d / 10 + 1; c++) {
            if (c == 0) continue;
            snprintf(cand, sizeof cand, "%s%" PRIu64 "e%d", v < 0 ? "-" : "", c, e + 1);
            if (bits_of(strtod(cand, NULL)) == bits_of(v))
                fail_msg("%a printed as %s, but the shorter %s reads back too", v, text, cand);
        }
    }
    snprintf(ref, sizeof ref, "%.*g", n, v);
    if (bits_of(strtod(ref, NULL)) != bits_of(v)) return; /* the closest does not read back */
    if (strcmp(ref, g) != 0)
        fail_msg("%a printed as %s, but %%.%dg gives %s, which reads back", v, g, n, ref);
    reference(ref, sizeof ref, v, n, 17);
    if (strcmp(ref, text) != 0) fail_msg("%a printed as %s, but printf gives %s", v, text, ref);
}

static void check_float(float v) {
    char text[OS_NUMBER_MAX], g[OS_NUMBER_MAX], ref[64], cand[64];
    size_t len = onescope_os_number_write_float(text, v, 0);
    assert_int_equal(len, strlen(text));
    assert_true(len <= ONESCOPE_NUMBER_MAX_LENGTH);
    float back = strtof(text, NULL);
    if (bits_of_float(back) != bits_of_float(v))
        fail_msg("float %a printed as %s, which reads back as %a", (double)v, text, (double)back);
    onescope_os_number_write_float(g, v, OS_NUM_G_SHORTEST);
    if (bits_of_float(strtof(g, NULL)) != bits_of_float(v))
        fail_msg("float %a printed as %s (%%g)", (double)v, g);
    checked++;
    uint64_t d;
    int e;
    if (!onescope_os_number_decimal_float(v, &d, &e)) {
        assert_true(v == 0);
        assert_string_equal(text, signbit(v) ? "-0" : "0");
        return;
    }
    assert_true(d % 10 != 0);
    int n = digit_count(d);
    assert_true(n <= 9);
    if (n > 1) {
        for (uint64_t c = d / 10; c <= d / 10 + 1; c++) {
            if (c == 0) continue;
            snprintf(cand, sizeof cand, "%s%" PRIu64 "e%d", v < 0 ? "-" : "", c, e + 1);
            if (bits_of_float(strtof(cand, NULL)) == bits_of_float(v))
                fail_msg("float %a printed as %s, but the shorter %s reads back too", (double)v,
                         text, cand);
        }
    }
    snprintf(ref, sizeof ref, "%.*g", n, (double)v);
    if (bits_of_float(strtof(ref, NULL)) != bits_of_float(v)) return;
    if (strcmp(ref, g) != 0)
        fail_msg("float %a printed as %s, but %%.%dg gives %s, which reads back", (double)v, g, n,
                 ref);
    reference(ref, sizeof ref, (double)v, n, 9);
    if (strcmp(ref, text) != 0)
        fail_msg("float %a printed as %s, but printf gives %s", (double)v, text, ref);
}

/* v, its neighbours and their negatives. */
static void check_around(double v) {
    double down = nextafter(v, 0), up = nextafter(v, INFINITY);
    const double vs[] = {v, down, up};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(vs[i])) continue;
        check_double(vs[i]);
        check_double(-vs[i]);
    }
}
static void check_around_float(float v) {
    float down = nextafterf(v, 0), up = nextafterf(v, INFINITY);
    const float vs[] = {v, down, up};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(vs[i])) continue;
        check_float(vs[i]);
        check_float(-vs[i]);
    }
}

static void random_doubles(void **state) {
    (void)state;
    uint64_t seed = 0x6E756D666D74u, n = 0;
    checked = 0;
    while (n < 1500000 / SCALE) {
        double v = double_of(test_rand(&seed));
        if (!isfinite(v)) continue;
        check_double(v);
        n++;
    }
    /* and values as a float-based engine hands them over: doubles of floats */
    for (n = 0; n < 500000 / SCALE;) {
        float f = float_of((uint32_t)test_rand(&seed));
        if (!isfinite(f)) continue;
        check_double((double)f);
        n++;
    }
    printf("  %" PRIu64 " random doubles\n", checked);
}

static void powers_of_two_and_ten(void **state) {
    (void)state;
    checked = 0;
    for (int i = -1074; i <= 1023; i++) check_around(ldexp(1.0, i));
    for (int i = -323; i <= 308; i++) {
        char p[16];
        snprintf(p, sizeof p, "1e%d", i);
        check_around(strtod(p, NULL));
    }
    for (int i = -149; i <= 127; i++) check_around_float(ldexpf(1.0f, i));
    for (int i = -45; i <= 38; i++) {
        char p[16];
        snprintf(p, sizeof p, "1e%d", i);
        check_around_float(strtof(p, NULL));
    }
    printf("  %" PRIu64 " powers of two and ten and their neighbours\n", checked);
}

static void subnormals_and_edges(void **state) {
    (void)state;
    uint64_t seed = 0x5375626E6F726Du;
    checked = 0;
    for (uint64_t t = 1; t <= 20000 / SCALE; t++) {
        check_double(double_of(t));                                    /* the smallest */
        check_double(double_of((UINT64_C(1) << 52) - t));              /* the largest */
        check_double(double_of(test_rand(&seed) >> 12));               /* any */
        check_double(double_of((UINT64_C(1) << 52) + t - 1));          /* the smallest normals */
        check_double(double_of(UINT64_C(0x7FEFFFFFFFFFFFFF) - t + 1)); /* the largest */
    }
    const double edges[] = {DBL_MIN,
                            DBL_MAX,
                            DBL_TRUE_MIN,
                            DBL_EPSILON,
                            9007199254740992,
                            9007199254740993,
                            1e15,
                            1e16,
                            1e17,
                            1e21,
                            1e22,
                            1e23,
                            0.1,
                            0.2,
                            0.3,
                            1.0 / 3,
                            2.0 / 3,
                            123456789012345,
                            5e-324,
                            1e-5,
                            1e-4,
                            0.00012345,
                            123456.0,
                            1234567.0};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) check_around(edges[i]);
    check_double(0.0);
    check_double(-0.0);
    for (uint32_t t = 1; t <= (1u << 23) / 64 / SCALE; t++) {
        check_float(float_of(t));
        check_float(float_of((1u << 23) - t));
        check_float(float_of((uint32_t)test_rand(&seed) & 0x807FFFFFu));
    }
    const float fedges[] = {FLT_MIN,     FLT_MAX, FLT_TRUE_MIN, FLT_EPSILON,   16777216.0f,
                            16777217.0f, 1e10f,   0.1f,         3.4028235e38f, 1.17549435e-38f};
    for (size_t i = 0; i < sizeof fedges / sizeof fedges[0]; i++) check_around_float(fedges[i]);
    check_float(0.0f);
    check_float(-0.0f);
    printf("  %" PRIu64 " subnormals and edges\n", checked);
}

/* Whole numbers up to 2^53 (the shortcut of the printer) and a little past. */
static void whole_numbers(void **state) {
    (void)state;
    uint64_t seed = 0x77686F6C65u;
    checked = 0;
    for (int i = 0; i < 50000 / SCALE; i++) {
        uint64_t w = test_rand(&seed) >> (11 + test_rand(&seed) % 53);
        check_around((double)w);
        check_around_float((float)w);
    }
    for (int i = 1; i <= 1000; i++) check_double(i);
    printf("  %" PRIu64 " whole numbers\n", checked);
}

/* The exhaustive run's check of one float, leaner than check_float (whose notation checks the
 * stride below covers): the round trip, nothing one digit shorter, and the digits are printf's
 * correctly rounded ones whenever those read back. */
static char *put_u64(char *p, uint64_t d) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + d % 10);
        d /= 10;
    } while (d);
    while (n) *p++ = tmp[--n];
    return p;
}

static void check_float_lean(float v) {
    char text[OS_NUMBER_MAX], cand[48], ref[48], mine[24];
    onescope_os_number_write_float(text, v, 0);
    if (bits_of_float(strtof(text, NULL)) != bits_of_float(v))
        fail_msg("float %a printed as %s, which does not read back", (double)v, text);
    checked++;
    uint64_t d;
    int e;
    if (!onescope_os_number_decimal_float(v, &d, &e)) return;
    char *end = put_u64(mine, d);
    int n = (int)(end - mine);
    if (n > 1) {
        for (uint64_t c = d / 10; c <= d / 10 + 1; c++) {
            char *p = cand;
            if (signbit(v)) *p++ = '-';
            p = put_u64(p, c);
            *p++ = 'e';
            snprintf(p, 16, "%d", e + 1);
            if (bits_of_float(strtof(cand, NULL)) == bits_of_float(v))
                fail_msg("float %a printed as %s, but the shorter %s reads back too", (double)v,
                         text, cand);
        }
    }
    snprintf(ref, sizeof ref, "%.*e", n - 1, (double)v);
    const char *r = ref + (ref[0] == '-');
    bool same = r[0] == mine[0];
    for (int i = 1; same && i < n; i++) same = r[i + 1] == mine[i]; /* past the point */
    const char *x = strchr(ref, 'e');
    if (!same || atoi(x + 1) != e + n - 1) {
        if (bits_of_float(strtof(ref, NULL)) == bits_of_float(v))
            fail_msg("float %a printed as %s, but printf's closer %s reads back", (double)v, text,
                     ref);
    }
}

/* Every float, or a stride of them (one bit pattern in 4099, a prime, so every binade's
 * significands are visited in several places). ONESCOPE_NUMFMT_EXHAUSTIVE=1 takes all 2^32
 * patterns, =K/N the K-th of N equal slices (to run them side by side). */
static void floats(void **state) {
    (void)state;
    const char *all = getenv("ONESCOPE_NUMFMT_EXHAUSTIVE");
    uint64_t stride = 4099 * SCALE, from = 0, to = UINT32_MAX, part = 1, parts = 1;
    if (all != NULL &&
        (strcmp(all, "1") == 0 || sscanf(all, "%" SCNu64 "/%" SCNu64, &part, &parts) == 2)) {
        if (parts == 0 || part == 0 || part > parts) fail_msg("ONESCOPE_NUMFMT_EXHAUSTIVE=%s", all);
        stride = 1;
        from = (UINT64_C(1) << 32) / parts * (part - 1);
        to = part == parts ? UINT32_MAX : (UINT64_C(1) << 32) / parts * part - 1;
    }
    struct timespec t0, t1;
    clock_t c0 = clock();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    checked = 0;
    for (uint64_t b = from; b <= to; b += stride) {
        float f = float_of((uint32_t)b);
        if (!isfinite(f)) continue;
        if (stride == 1) {
            check_float_lean(f);
            if ((b & 0x3FFFFFF) == 0) /* progress on stderr, every 2^26 patterns */
                fprintf(stderr, "  at %#010" PRIx64 ", %.0f s of CPU\n", b,
                        (double)(clock() - c0) / CLOCKS_PER_SEC);
        } else {
            check_float(f);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("  %" PRIu64 " floats (bit patterns %#" PRIx64 " to %#" PRIx64 ", one in %" PRIu64
           ") in %.1f s, %.1f s of CPU\n",
           checked, from, to, stride,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
           (double)(clock() - c0) / CLOCKS_PER_SEC);
}

static void specials(void **state) {
    (void)state;
    char t[OS_NUMBER_MAX];
    onescope_os_number_write(t, NAN, 0);
    assert_string_equal(t, "nan");
    onescope_os_number_write(t, -NAN, 0);
    assert_string_equal(t, "nan");
    onescope_os_number_write(t, INFINITY, 0);
    assert_string_equal(t, "inf");
    onescope_os_number_write(t, -INFINITY, OS_NUM_POINT_ZERO);
    assert_string_equal(t, "-inf");
    onescope_os_number_write_float(t, -INFINITY, 0);
    assert_string_equal(t, "-inf");
    onescope_os_number_write_float(t, NAN, 0);
    assert_string_equal(t, "nan");
    assert_false(onescope_os_number_decimal(NAN, &(uint64_t){0}, &(int){0}));
    assert_false(onescope_os_number_decimal_float(0.0f, &(uint64_t){0}, &(int){0}));
}

/* The styles, as the OTS writer, the CLI and the CSV use them. */
static void styles(void **state) {
    (void)state;
    struct {
        double v;
        unsigned style;
        const char *text;
    } cases[] = {
#define OTS (OS_NUM_G_SHORTEST | OS_NUM_POINT_ZERO | OS_NUM_PLAIN_BELOW(15))
        {100, 0, "100"},
        {100, OS_NUM_G_SHORTEST, "1e+02"},
        {2560, 0, "2560"},
        {2560, OS_NUM_G_SHORTEST, "2.56e+03"},
        {123, 0, "123"},
        {1e16, 0, "10000000000000000"},
        {1e17, 0, "1e+17"},
        {0.1, 0, "0.1"},
        {1.5e-7, 0, "1.5e-07"},
        {1e-5, OS_NUM_SHORT_EXP, "1e-5"},
        {1e300, OS_NUM_SHORT_EXP, "1e300"},
        {2.5e-100, OS_NUM_SHORT_EXP, "2.5e-100"},
        {1e20, OS_NUM_SHORT_EXP, "1e20"},
        {1e10, OS_NUM_SHORT_EXP | OS_NUM_G_SHORTEST, "1e10"},
        {0.0001, 0, "0.0001"},
        {0.00001, 0, "1e-05"},
        {1234.5, 0, "1234.5"},
        {-0.0, 0, "-0"},
        {-0.0, OS_NUM_POINT_ZERO, "-0.0"},
        {0.0, OTS, "0.0"},
        {100, OTS, "100.0"},
        {-42, OTS, "-42.0"},
        {999999999999999, OTS, "999999999999999.0"},
        {1e15, OTS, "1e+15"},
        {1234567890123456, OTS, "1234567890123456.0"},
        {0.5, OTS, "0.5"},
        {1e100, OTS, "1e+100"},
        {123456792, OS_NUM_PLAIN_BELOW(9), "123456792"},
        {1e9, OS_NUM_PLAIN_BELOW(9) | OS_NUM_G_SHORTEST, "1e+09"},
        {25e15, OTS, "2.5e+16"},
        {1.7976931348623157e308, 0, "1.7976931348623157e+308"},
        {-2.2250738585072014e-308, 0, "-2.2250738585072014e-308"},
        {5e-324, 0, "5e-324"},
        {1e-323, 0, "1e-323"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[OS_NUMBER_MAX];
        size_t n = onescope_os_number_write(t, cases[i].v, cases[i].style);
        assert_string_equal(t, cases[i].text);
        assert_int_equal(n, strlen(cases[i].text));
    }
    char t[OS_NUMBER_MAX];
    onescope_os_number_write_float(t, 123456792.0f, OS_NUM_PLAIN_BELOW(9));
    assert_string_equal(t, "123456792"); /* the exact integer, not the shortest 1.2345679e+08 */
    onescope_os_number_write_float(t, 123456792.0f, 0);
    assert_string_equal(t, "123456790"); /* reads back as the same float */
    onescope_os_number_write_float(t, 123456792.0f, OS_NUM_G_SHORTEST);
    assert_string_equal(t, "1.2345679e+08");
    onescope_os_number_write_float(t, 1e9f, 0);
    assert_string_equal(t, "1e+09");
    onescope_os_number_write_float(t, 0.1f, 0);
    assert_string_equal(t, "0.1");
    onescope_os_number_write(t, (double)0.1f, 0);
    assert_string_equal(t, "0.10000000149011612");
}

/* What the OTS writer printed before (the shortest "%.Ng", N found by a search, ".0" on whole
 * numbers, whole numbers below 1e15 through "%.0f.0") against the style it uses now: equal
 * whenever the old text was as short as the new. */
static void old_ots(double v, char out[48]) {
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, 48, "%.0f.0", v);
        if (v == 0 && signbit(v)) snprintf(out, 48, "-0.0");
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(out, 48, "%.*g", p, v);
        if (strtod(out, NULL) == v) break;
    }
    if (strpbrk(out, ".eEn") == NULL) strcat(out, ".0");
}

static size_t significant(const char *s) {
    size_t n = 0;
    bool lead = true;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9') continue;
        if (lead && *s == '0') continue;
        lead = false;
        n++;
    }
    return n;
}

static void ots_style_keeps_old_output(void **state) {
    (void)state;
    uint64_t seed = 0x6F6C646F7473u;
    unsigned style = OS_NUM_G_SHORTEST | OS_NUM_POINT_ZERO | OS_NUM_PLAIN_BELOW(15);
    int differ = 0;
    for (int i = 0; i < 300000 / SCALE; i++) {
        uint64_t r = test_rand(&seed);
        double v = i % 3 == 0   ? double_of(r)
                   : i % 3 == 1 ? (double)float_of((uint32_t)r)
                                : (double)(int64_t)(r >> (r % 64)) / (double)(1 + r % 1000);
        if (!isfinite(v)) continue;
        char old[48], now[OS_NUMBER_MAX];
        old_ots(v, old);
        onescope_os_number_write(now, v, style);
        if (strcmp(old, now) == 0) continue;
        if (significant(now) >= significant(old))
            fail_msg("%a: the OTS writer printed %s, now %s (not shorter)", v, old, now);
        differ++;
    }
    printf("  OTS style: %d of %d values shorter than before, the rest byte-identical\n", differ,
           300000 / SCALE);
}

static void public_calls(void **state) {
    (void)state;
    char buf[64];
    assert_int_equal(onescope_number_format(0.1, buf, sizeof buf), 3);
    assert_string_equal(buf, "0.1");
    assert_int_equal(onescope_number_format(-1.5e-7, NULL, 0), 8);
    memset(buf, 'x', sizeof buf);
    assert_int_equal(onescope_number_format(-1.5e-7, buf, 4), 8); /* cut, like snprintf */
    assert_string_equal(buf, "-1.");
    assert_int_equal(buf[5], 'x');
    assert_int_equal(onescope_number_format(1.0 / 3, buf, 1), 18);
    assert_string_equal(buf, "");
    assert_int_equal(onescope_number_format_float(1.0f / 3, buf, sizeof buf), 10);
    assert_string_equal(buf, "0.33333334");
    assert_int_equal(onescope_number_format(-2.2250738585072014e-308, buf, sizeof buf),
                     ONESCOPE_NUMBER_MAX_LENGTH);
    assert_int_equal(onescope_number_format_float(-1.17549435e-38f, buf, 5), 14);
    assert_string_equal(buf, "-1.1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(specials),
        cmocka_unit_test(styles),
        cmocka_unit_test(public_calls),
        cmocka_unit_test(powers_of_two_and_ten),
        cmocka_unit_test(subnormals_and_edges),
        cmocka_unit_test(whole_numbers),
        cmocka_unit_test(random_doubles),
        cmocka_unit_test(floats),
        cmocka_unit_test(ots_style_keeps_old_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
