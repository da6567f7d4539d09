/* Names crafted to collide under 64-bit FNV-1a, as the OTS name checks hashed them before
 * issue 14 (hash of "" + 0xFF + name, slot = hash & (table size - 1)). Used by bench_hostile
 * (the flood input) and tests/test_ots.c (the collisions are real; the checks stay n log n).
 *
 * Why it works: FNV-1a multiplies by an odd constant mod 2^64 and XORs bytes into the low
 * bits, so the low 32 bits of the state depend only on the low 32 bits before. Two 4-byte
 * blocks that reach the same low 32 bits from one state (a birthday search, about 2^16 tries)
 * can be swapped for each other; m such stages give 2^m names of 4m letters whose hashes all
 * share their low 32 bits, so they fill one probe chain of any table up to 2^32 slots.
 * Deterministic (a fixed xorshift seed), header-only, C17 and libc. */
#ifndef ONESCOPE_FNV_NAMES_H
#define ONESCOPE_FNV_NAMES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FNV_NAMES_BLOCK 4
#define FNV_NAMES_MAX_STAGES 30

typedef struct fnv_names {
    int stages;                                            /* 2^stages names */
    char blocks[FNV_NAMES_MAX_STAGES][2][FNV_NAMES_BLOCK]; /* stage j: two interchangeable blocks */
} fnv_names;

static inline uint64_t fnv_names_step(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

/* The old hash of a name without a rig tag (the state after "" and the 0xFF separator). */
static inline uint64_t fnv_names_old_hash(const char *name) {
    uint64_t h = (1469598103934665603u ^ 0xFFu) * 1099511628211u;
    return fnv_names_step(h, name, strlen(name));
}

typedef struct fnv_names_try {
    uint32_t low;
    char block[FNV_NAMES_BLOCK];
} fnv_names_try;

static inline int fnv_names_cmp(const void *a, const void *b) {
    const fnv_names_try *x = a, *y = b;
    if (x->low != y->low) return x->low < y->low ? -1 : 1;
    return memcmp(x->block, y->block, FNV_NAMES_BLOCK);
}

/* Finds stages (at most FNV_NAMES_MAX_STAGES) pairs of blocks; 0 on success, -1 when out of
 * memory. */
static inline int fnv_names_make(fnv_names *out, int stages) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    enum { TRIES = 1 << 17 };
    fnv_names_try *t = malloc(TRIES * sizeof *t);
    if (t == NULL) return -1;
    uint64_t rng = 0x9E3779B97F4A7C15u;
    uint64_t h = (1469598103934665603u ^ 0xFFu) * 1099511628211u;
    out->stages = stages;
    for (int j = 0; j < stages; j++) {
        for (;;) {
            for (size_t k = 0; k < TRIES; k++) {
                for (int b = 0; b < FNV_NAMES_BLOCK; b++) {
                    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                    t[k].block[b] = alphabet[rng % (sizeof alphabet - 1)];
                }
                t[k].low = (uint32_t)fnv_names_step(h, t[k].block, FNV_NAMES_BLOCK);
            }
            qsort(t, TRIES, sizeof *t, fnv_names_cmp);
            size_t k = 1;
            while (k < TRIES && !(t[k].low == t[k - 1].low &&
                                  memcmp(t[k].block, t[k - 1].block, FNV_NAMES_BLOCK) != 0))
                k++;
            if (k == TRIES) continue; /* no pair this round: try again */
            memcpy(out->blocks[j][0], t[k - 1].block, FNV_NAMES_BLOCK);
            memcpy(out->blocks[j][1], t[k].block, FNV_NAMES_BLOCK);
            h = fnv_names_step(h, t[k].block, FNV_NAMES_BLOCK);
            break;
        }
    }
    free(t);
    return 0;
}

/* Name number i (below 2^stages) into buf (at least 4 * stages + 1 bytes). */
static inline void fnv_names_get(const fnv_names *f, uint64_t i, char *buf) {
    for (int j = 0; j < f->stages; j++)
        memcpy(buf + j * FNV_NAMES_BLOCK, f->blocks[j][(i >> j) & 1], FNV_NAMES_BLOCK);
    buf[f->stages * FNV_NAMES_BLOCK] = '\0';
}

#endif
