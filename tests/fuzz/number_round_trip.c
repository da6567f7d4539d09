/* Fuzz target: the number printer (src/numfmt.c). The input is cut into 8-byte doubles and a
 * last 4-byte float (little-endian bits); each finite value is printed in every style the
 * library uses, and each text must read back (strtod, strtof) as the same bits, be a JSON
 * number no longer than ONESCOPE_NUMBER_MAX_LENGTH, and have no one-digit-shorter decimal that
 * reads back too. The public call cut to a smaller buffer gives a prefix of the whole text. */
#include <math.h>

#include "fuzz_helpers.h"
#include "numfmt.h"

static const unsigned styles[] = {
    0,
    OS_NUM_G_SHORTEST,
    OS_NUM_G_SHORTEST | OS_NUM_POINT_ZERO | OS_NUM_PLAIN_BELOW(15), /* the OTS writer */
    OS_NUM_SHORT_EXP,
    OS_NUM_PLAIN_BELOW(9),
};

/* -?(0|[1-9]D*)(.D+)?([eE][+-]?D+)? */
static int is_json_number(const char *s) {
    if (*s == '-') s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9') s++;
    else
        return 0;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

static void check_shortest(double v, int is_float, uint64_t d, int e) {
    if (d < 10) return;
    for (uint64_t c = d / 10; c <= d / 10 + 1; c++) {
        char cand[48];
        snprintf(cand, sizeof cand, "%s%llue%d", signbit(v) ? "-" : "", (unsigned long long)c,
                 e + 1);
        int same = is_float ? strtof(cand, NULL) == (float)v : strtod(cand, NULL) == v;
        FUZZ_ASSERT_MSG(!same, "%a: %s is shorter and reads back", v, cand);
    }
}

static void one_double(double v, size_t cut) {
    if (!isfinite(v)) return;
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
        char t[OS_NUMBER_MAX];
        size_t n = onescope_os_number_write(t, v, styles[i]);
        FUZZ_ASSERT(n == strlen(t) && n <= ONESCOPE_NUMBER_MAX_LENGTH);
        FUZZ_ASSERT_MSG(is_json_number(t), "%a: %s", v, t);
        double back = strtod(t, NULL);
        FUZZ_ASSERT_MSG(memcmp(&back, &v, sizeof v) == 0, "%a printed as %s", v, t);
    }
    uint64_t d;
    int e;
    if (onescope_os_number_decimal(v, &d, &e)) check_shortest(v, 0, d, e);
    char whole[64], part[64];
    size_t n = onescope_number_format(v, whole, sizeof whole);
    size_t size = cut % (n + 2);
    FUZZ_ASSERT(onescope_number_format(v, size ? part : NULL, size) == n);
    if (size)
        FUZZ_ASSERT(strlen(part) == (size <= n ? size - 1 : n) &&
                    !memcmp(part, whole, strlen(part)));
}

static void one_float(float v) {
    if (!isfinite(v)) return;
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
        char t[OS_NUMBER_MAX];
        size_t n = onescope_os_number_write_float(t, v, styles[i]);
        FUZZ_ASSERT(n == strlen(t) && n <= ONESCOPE_NUMBER_MAX_LENGTH);
        FUZZ_ASSERT_MSG(is_json_number(t), "%a: %s", (double)v, t);
        float back = strtof(t, NULL);
        FUZZ_ASSERT_MSG(memcmp(&back, &v, sizeof v) == 0, "float %a printed as %s", (double)v, t);
    }
    uint64_t d;
    int e;
    if (onescope_os_number_decimal_float(v, &d, &e)) check_shortest((double)v, 1, d, e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t b = 0;
        for (int k = 7; k >= 0; k--) b = b << 8 | data[i + (size_t)k];
        double v;
        memcpy(&v, &b, sizeof v);
        one_double(v, data[i]);
    }
    if (i + 4 <= size) {
        uint32_t b = 0;
        for (int k = 3; k >= 0; k--) b = b << 8 | data[i + (size_t)k];
        float f;
        memcpy(&f, &b, sizeof f);
        one_float(f);
    }
    return 0;
}
