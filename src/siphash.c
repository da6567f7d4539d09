/* SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed
 * 64-bit hash an attacker without the key cannot forge, used to authenticate bytes the library
 * will hand to code that trusts them (the Box3D module's snapshots). Written from the paper. */
#include <string.h>

#include "internal.h"

static uint64_t rotl(uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);                                  \
        v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;                                                     \
        v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;                                                     \
        v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);                                  \
    } while (0)

uint64_t onescope_os_siphash(const uint8_t key[16], const void *data, size_t size) {
    const uint8_t *p = data;
    uint64_t k0 = onescope_os_get_u64(key), k1 = onescope_os_get_u64(key + 8);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
    size_t whole = size - size % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = onescope_os_get_u64(p + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    /* the last block: the remaining bytes, and the length's low byte on top */
    uint8_t last[8] = {0};
    if (size > whole) memcpy(last, p + whole, size - whole);
    uint64_t m = onescope_os_get_u64(last) | (uint64_t)(size & 0xff) << 56;
    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}
