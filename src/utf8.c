/* UTF-8 as every text rule of the library reads it: no overlongs, no surrogates, nothing past
 * U+10FFFF. At the bottom of the library: the byte reader, the parsers and the error escape
 * all use it, and it uses nothing. */
#include "internal.h"

size_t onescope_os_utf8_char(const uint8_t *s, size_t n, uint32_t *cp_out) {
    if (n == 0) return 0;
    uint8_t c = s[0];
    size_t len;
    uint32_t min, cp;
    if (c < 0x80) {
        *cp_out = c;
        return 1;
    }
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        min = 0x80;
        cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        min = 0x800;
        cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        min = 0x10000;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    *cp_out = cp;
    return len;
}

bool onescope_os_utf8_valid(const uint8_t *s, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        if (s[i] < 0x80) { /* the common case, without a call */
            i++;
            continue;
        }
        uint32_t cp;
        size_t len = onescope_os_utf8_char(s + i, n - i, &cp);
        if (len == 0) {
            if (bad) *bad = i;
            return false;
        }
        i += len;
    }
    return true;
}
