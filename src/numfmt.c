/* The one number printer: Schubfach (R. Giulietti, "The Schubfach way to render doubles",
 * 2020), for doubles and floats, then the digits laid out as printf's %.17g (or, for the OTS
 * writer, %g at the shortest precision) would, all in integer arithmetic, so no locale, rounding
 * mode or C library printf is involved. Foundation layer: calls nothing of the library.
 *
 * The idea, briefly: a binary value v = c 2^q reads back from every decimal inside its rounding
 * interval R (half the gap to each neighbour on either side; the edges too when c is even).
 * k is chosen so that 10^k <= the gap < 10^(k+1): scaled by 10^-k, R is 1 to 10 units wide, so
 * it holds at most one multiple of 10 (a decimal one digit shorter, taken when it is there) and
 * at least one of s = floor(v 10^-k) and s + 1 (the one in R, or the closer when both are, the
 * even one on a tie). The scaling is one 128-bit multiply per edge: the table holds 10^-k
 * rounded up to 126 bits, and a "sticky" lowest bit says whether a product was exact, which is
 * all the comparisons need to be exact. */
#include "numfmt.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "numfmt_table.h"

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 numfmt_u128;
static inline uint64_t mul_high(uint64_t a, uint64_t b) {
    return (uint64_t)(((numfmt_u128)a * b) >> 64);
}
#else
/* 32-bit targets (i386): the high half from four 32 x 32 products. */
static inline uint64_t mul_high(uint64_t a, uint64_t b) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
#endif

/* floor(q log10 2), floor(log10(3/4 2^q)) and floor(e log2 10) as a multiply and a shift;
 * tools/numfmt_tables.py proves them exact over every q and e used here. The shifts are of
 * negative numbers too: arithmetic on every compiler the project supports (gcc, clang). */
static inline int floor_log10_pow2(int q) {
    return (int)(((int64_t)q * 661971961083) >> 41);
}
static inline int floor_log10_three_quarters_pow2(int q) {
    return (int)(((int64_t)q * 661971961083 - 274743187321) >> 41);
}
static inline int floor_log2_pow10(int e) {
    return (int)(((int64_t)e * 913124641741) >> 38);
}

#define MASK63 ((UINT64_C(1) << 63) - 1)

/* floor(g cp / 2^127), with the lowest bit set when the product is not exact (g = g1 2^63 + g0:
 * rounding up there keeps the comparisons below exact). */
static inline uint64_t round_odd(uint64_t g1, uint64_t g0, uint64_t cp) {
    uint64_t x1 = mul_high(g0, cp);
    uint64_t y0 = g1 * cp;
    uint64_t y1 = mul_high(g1, cp);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & MASK63) + MASK63) >> 63);
}

/* The same for floats: 64 bits of g suffice. */
static inline uint32_t round_odd_float(uint64_t g, uint64_t cp) {
    uint64_t x1 = mul_high(g, cp);
    uint64_t vbp = x1 >> 31;
    return (uint32_t)(vbp | (((x1 & 0xFFFFFFFFu) + 0xFFFFFFFFu) >> 32));
}

/* Schubfach's last step, for doubles and floats alike (a float's values are below 2^32, so 64
 * bits hold every sum): vb, vbl and vbr are the value and the ends of its rounding interval,
 * scaled by 4; out is 1 when the ends are outside it. The decimal one digit shorter when one
 * lies inside, else the closer of the two neighbours (ties to even). */
static uint64_t pick_digits(uint64_t vb, uint64_t vbl, uint64_t vbr, uint64_t out) {
    uint64_t s = vb >> 2;
    if (s >= 10) {
        uint64_t sp10 = 10 * (s / 10), tp10 = sp10 + 10;
        bool upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) return upin ? sp10 : tp10;
    }
    uint64_t t = s + 1;
    bool uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
    if (uin != win) return uin ? s : t;
    uint64_t mid = (s + t) << 1; /* vb against the midpoint of s and t, both scaled by 4 */
    return vb < mid || (vb == mid && (s & 1) == 0) ? s : t;
}

/* The decimal for c 2^q (c_min: c is the smallest significand of a binade above the first, where
 * the gap below is half the gap above). The paper's Java code keeps two digits at least (its
 * toString always has a fraction digit: 4.9E-324); here the shorter decimal is taken from
 * s >= 10 on, and the tiniest subnormals get no extra digit, so 5e-324 is the text of the
 * smallest double. */
static void decimal_of(int q, uint64_t c, bool c_min, uint64_t *d, int *e) {
    uint64_t out = c & 1; /* odd c: the interval's edges do not read back as v */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (!c_min) {
        cbl = cb - 2;
        k = floor_log10_pow2(q);
    } else {
        cbl = cb - 1;
        k = floor_log10_three_quarters_pow2(q);
    }
    int h = q + floor_log2_pow10(-k) + 2;
    const uint64_t *g = numfmt_g[k - NUMFMT_K_MIN];
    uint64_t vb = round_odd(g[0], g[1], cb << h);
    uint64_t vbl = round_odd(g[0], g[1], cbl << h);
    uint64_t vbr = round_odd(g[0], g[1], cbr << h);
    *e = k;
    *d = pick_digits(vb, vbl, vbr, out);
}

static void decimal_of_float(int q, uint32_t c, bool c_min, uint64_t *d, int *e) {
    uint32_t out = c & 1;
    uint64_t cb = (uint64_t)c << 2, cbr = cb + 2, cbl;
    int k;
    if (!c_min) {
        cbl = cb - 2;
        k = floor_log10_pow2(q);
    } else {
        cbl = cb - 1;
        k = floor_log10_three_quarters_pow2(q);
    }
    int h = q + floor_log2_pow10(-k) + 33;
    uint64_t g = numfmt_g[k - NUMFMT_K_MIN][0] + 1;
    uint32_t vb = round_odd_float(g, cb << h);
    uint32_t vbl = round_odd_float(g, cbl << h);
    uint32_t vbr = round_odd_float(g, cbr << h);
    *e = k;
    *d = pick_digits(vb, vbl, vbr, out);
}

static void strip_zeros(uint64_t *d, int *e) {
    while (*d % 10 == 0) {
        *d /= 10;
        *e += 1;
    }
}

bool onescope_os_number_decimal(double v, uint64_t *digits, int *exponent) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t t = bits & ((UINT64_C(1) << 52) - 1);
    int bq = (int)(bits >> 52) & 0x7FF;
    if (bq == 0x7FF || (bq == 0 && t == 0)) return false;
    if (bq != 0) {
        int mq = 1075 - bq; /* v = c 2^-mq */
        uint64_t c = t | (UINT64_C(1) << 52);
        if (mq > 0 && mq < 53 && (c & ((UINT64_C(1) << mq) - 1)) == 0) {
            /* a whole number below 2^53: its own digits are the shortest */
            *digits = c >> mq;
            *exponent = 0;
        } else {
            decimal_of(-mq, c, t == 0 && bq != 1, digits, exponent);
        }
    } else {
        decimal_of(-1074, t, false, digits, exponent);
    }
    strip_zeros(digits, exponent);
    return true;
}

bool onescope_os_number_decimal_float(float v, uint64_t *digits, int *exponent) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t t = bits & ((UINT32_C(1) << 23) - 1);
    int bq = (int)(bits >> 23) & 0xFF;
    if (bq == 0xFF || (bq == 0 && t == 0)) return false;
    if (bq != 0) {
        int mq = 150 - bq;
        uint32_t c = t | (UINT32_C(1) << 23);
        if (mq > 0 && mq < 24 && (c & ((UINT32_C(1) << mq) - 1)) == 0) {
            *digits = c >> mq;
            *exponent = 0;
        } else {
            decimal_of_float(-mq, c, t == 0 && bq != 1, digits, exponent);
        }
    } else {
        decimal_of_float(-149, t, false, digits, exponent);
    }
    strip_zeros(digits, exponent);
    return true;
}

/* ---- text ---- */

static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                               "31323334353637383940414243444546474849505152535455565758596061"
                               "62636465666768697071727374757677787980818283848586878889909192"
                               "93949596979899";

static const uint64_t pow10s[20] = {1u,
                                    10u,
                                    100u,
                                    1000u,
                                    10000u,
                                    100000u,
                                    1000000u,
                                    10000000u,
                                    100000000u,
                                    1000000000u,
                                    10000000000u,
                                    100000000000u,
                                    1000000000000u,
                                    10000000000000u,
                                    100000000000000u,
                                    1000000000000000u,
                                    10000000000000000u,
                                    100000000000000000u,
                                    1000000000000000000u,
                                    10000000000000000000u};

/* How many decimal digits d > 0 has. */
static int digit_count(uint64_t d) {
#if defined(__GNUC__) || defined(__clang__)
    int t = ((64 - __builtin_clzll(d)) * 1233) >> 12; /* about bits * log10 2 */
    return t + 1 - (d < pow10s[t]);
#else
    int n = 1;
    while (n < 20 && d >= pow10s[n]) n++;
    return n;
#endif
}

/* d's digits, ending just before end. */
static void put_digits(char *end, uint64_t d) {
    while (d >= 100000000u) { /* eight at a time in 32-bit arithmetic */
        uint32_t low = (uint32_t)(d % 100000000u);
        d /= 100000000u;
        for (int i = 0; i < 4; i++) {
            end -= 2;
            memcpy(end, pairs + 2 * (low % 100), 2);
            low /= 100;
        }
    }
    uint32_t x = (uint32_t)d;
    while (x >= 100) {
        end -= 2;
        memcpy(end, pairs + 2 * (x % 100), 2);
        x /= 100;
    }
    if (x >= 10) {
        end -= 2;
        memcpy(end, pairs + 2 * x, 2);
    } else {
        *--end = (char)('0' + x);
    }
}

static char *put_exponent(char *p, int x, unsigned style) {
    *p++ = 'e';
    if (x < 0) {
        *p++ = '-';
        x = -x;
    } else if (!(style & OS_NUM_SHORT_EXP)) {
        *p++ = '+';
    }
    if (x >= 100) {
        *p++ = (char)('0' + x / 100);
        x %= 100;
    } else if (x < 10 && (style & OS_NUM_SHORT_EXP)) {
        *p++ = (char)('0' + x);
        return p;
    }
    memcpy(p, pairs + 2 * x, 2);
    return p + 2;
}

/* digits * 10^e (digits without trailing zeros, n of them, decimal exponent x) as printf's
 * %.Pg lays it out: an exponent when x < -4 or x >= P, else plain. P is 17 for doubles and 9
 * for floats (the digits %.17g and %.9g would show, without their noise), or with
 * OS_NUM_G_SHORTEST n itself. */
static size_t write_decimal(char *out, char *p, uint64_t digits, int e, int prec, unsigned style) {
    int n = digit_count(digits);
    int x = e + n - 1;
    if (style & OS_NUM_G_SHORTEST) prec = n;
    if (x < -4 || x >= prec) {
        put_digits(p + 1 + n, digits); /* d.ddd: the first digit moves left over the point */
        p[0] = p[1];
        if (n > 1) {
            p[1] = '.';
            p += n + 1;
        } else {
            p += 1;
        }
        p = put_exponent(p, x, style);
    } else if (x >= n - 1) { /* whole: the digits, then zeros */
        put_digits(p + n, digits);
        p += n;
        memset(p, '0', (size_t)(x - n + 1));
        p += x - n + 1;
        if (style & OS_NUM_POINT_ZERO) {
            memcpy(p, ".0", 2);
            p += 2;
        }
    } else if (x >= 0) {
        put_digits(p + 1 + n, digits);
        memmove(p, p + 1, (size_t)x + 1);
        p[x + 1] = '.';
        p += n + 1;
    } else {
        memcpy(p, "0.0000", (size_t)(1 - x));
        p += 1 - x;
        put_digits(p + n, digits);
        p += n;
    }
    *p = '\0';
    return (size_t)(p - out);
}

/* Zero, NaN and the infinities (p is past the sign, if any). */
static size_t write_special(char *out, char *p, bool finite, bool nan, unsigned style) {
    const char *s = nan ? "nan" : !finite ? "inf" : style & OS_NUM_POINT_ZERO ? "0.0" : "0";
    if (nan) p = out; /* a NaN's sign bit means nothing */
    size_t n = strlen(s);
    memcpy(p, s, n + 1);
    return (size_t)(p - out) + n;
}

/* A whole number below 10^m (m from style) as its exact digits; 0 when the style has no such
 * rule or v is not one. */
static size_t write_plain(char *out, char *p, double mag, unsigned style) {
    unsigned m = style >> 8;
    if (m == 0 || m >= 20 || !(mag < (double)pow10s[m]) || mag != (double)(uint64_t)mag) return 0;
    uint64_t w = (uint64_t)mag;
    int n = digit_count(w);
    put_digits(p + n, w);
    p += n;
    if (style & OS_NUM_POINT_ZERO) {
        memcpy(p, ".0", 2);
        p += 2;
    }
    *p = '\0';
    return (size_t)(p - out);
}

size_t onescope_os_number_write(char *out, double v, unsigned style) {
    char *p = out;
    if (signbit(v)) *p++ = '-';
    uint64_t digits;
    int e;
    if (!onescope_os_number_decimal(v, &digits, &e))
        return write_special(out, p, v - v == 0, v != v, style);
    size_t n = write_plain(out, p, v < 0 ? -v : v, style);
    if (n) return n;
    return write_decimal(out, p, digits, e, 17, style);
}

size_t onescope_os_number_write_float(char *out, float v, unsigned style) {
    char *p = out;
    if (signbit(v)) *p++ = '-';
    uint64_t digits;
    int e;
    if (!onescope_os_number_decimal_float(v, &digits, &e))
        return write_special(out, p, v - v == 0, v != v, style);
    size_t n = write_plain(out, p, v < 0 ? -(double)v : (double)v, style);
    if (n) return n;
    return write_decimal(out, p, digits, e, 9, style);
}

/* ---- the public calls (include/onescope/common.h) ---- */

static size_t copy_out(const char *text, size_t n, char *buf, size_t size) {
    if (buf != NULL && size > 0) {
        size_t m = n < size ? n : size - 1;
        memcpy(buf, text, m);
        buf[m] = '\0';
    }
    return n;
}

size_t onescope_number_format(double v, char *buf, size_t size) {
    char text[OS_NUMBER_MAX];
    if (buf != NULL && size >= OS_NUMBER_MAX) return onescope_os_number_write(buf, v, 0);
    return copy_out(text, onescope_os_number_write(text, v, 0), buf, size);
}

size_t onescope_number_format_float(float v, char *buf, size_t size) {
    char text[OS_NUMBER_MAX];
    if (buf != NULL && size >= OS_NUMBER_MAX) return onescope_os_number_write_float(buf, v, 0);
    return copy_out(text, onescope_os_number_write_float(text, v, 0), buf, size);
}

onescope_os_num_text onescope_os_num(double v) {
    onescope_os_num_text t;
    onescope_os_number_write(t.s, v, 0);
    return t;
}

onescope_os_num_text onescope_os_num_float(float v) {
    onescope_os_num_text t;
    onescope_os_number_write_float(t.s, v, 0);
    return t;
}
