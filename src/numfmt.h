/* The one number printer (src/numfmt.c): the shortest decimal that reads back as the same
 * double or float, correctly rounded, laid out as printf's %.17g (floats: %.9g) would, written
 * without the C library's locale machinery. Shared by the OTS writer, the pose cache diff and,
 * through onescope_number_format, the CLI and the Python package. Notation: docs/numbers.md. */
#ifndef ONESCOPE_NUMFMT_H
#define ONESCOPE_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest text any style writes is 24 characters ("-2.2250738585072014e-308"); with the
 * terminating NUL and room to spare: */
#define OS_NUMBER_MAX 32

/* Styles, or-ed together; 0 is the public onescope_number_format notation. */
/* printf's %g at the shortest precision n, the OTS writer's notation since 0.1: an exponent as
 * soon as the decimal exponent reaches n ("1e+02", "1.5e+03"), not 17. */
#define OS_NUM_G_SHORTEST 4u
/* Whole numbers get ".0" (OTS reals stay reals when read back). */
#define OS_NUM_POINT_ZERO 1u
/* The exponent without '+' or leading zeros: "1e300", "1e-5" (the CLI's --help defaults). */
#define OS_NUM_SHORT_EXP 2u
/* Whole numbers below 10^n in magnitude in plain digits, never with an exponent: the exact
 * integer, so also a float above 2^24 whose shortest digits end in zeros it does not have. */
#define OS_NUM_PLAIN_BELOW(n) ((unsigned)(n) << 8)

/* The shortest digits of a finite non-zero v: v reads back from digits * 10^exponent, no
 * decimal with fewer significant digits does, and digits is the closest such decimal (the even
 * one on a tie). digits carries no trailing zeros. False for 0, NaN and infinities. */
bool onescope_os_number_decimal(double v, uint64_t *digits, int *exponent);
bool onescope_os_number_decimal_float(float v, uint64_t *digits, int *exponent);

/* v in the given style into out (at least OS_NUMBER_MAX bytes), NUL-terminated; the length.
 * 0 is "0" and -0 "-0" (with OS_NUM_POINT_ZERO "0.0", "-0.0"); NaN "nan", infinities "inf"
 * and "-inf" (callers that write JSON test isfinite first). */
size_t onescope_os_number_write(char *out, double v, unsigned style);
size_t onescope_os_number_write_float(char *out, float v, unsigned style);

/* A number's text for a message, in the public notation (style 0), as a value whose array
 * lives to the end of the full expression that made it (C11 6.2.4), so a call can take it
 * straight: onescope_os_fail(..., "%s at %s", onescope_os_num(v).s, ...). Never printf's %g,
 * which follows the process locale ("-0,5") and rounds to 6 digits. */
typedef struct onescope_os_num_text {
    char s[OS_NUMBER_MAX];
} onescope_os_num_text;
onescope_os_num_text onescope_os_num(double v);
onescope_os_num_text onescope_os_num_float(float v);

#endif
