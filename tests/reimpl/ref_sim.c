/* Independent re-implementation of the libonescope integer test module and the OSTM v1
 * replay format, written from docs/test-module.md only (no library source read). It is the
 * check that the page is complete: tests/reimpl/run.sh compares it with the library.
 *
 * usage: ref_sim FILE.ostm [--state] [--fields]   print rows like `onescope replay`
 *        ref_sim --rows IN.ostm OUT.ostm           write IN again with hash rows (flag bit 0)
 *                                                  computed by this implementation
 * exit: 0 ok, 1 invalid file (prints "offset N: code" on stderr)
 *
 * Transfer rule (section 9): it runs whenever bookkeeping sets the host step to T, which after
 * a u64 wrap can happen for a world started from a snapshot already past T.
 *
 * Build: cc -std=c17 -O2 -o ref_sim ref_sim.c   (needs libxxhash-dev's xxhash.h)
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    E_OK = 0,
    E_MAGIC,
    E_VERSION,
    E_FLAGS,
    E_LENGTH,
    E_RANGE,
    E_RESERVED,
    E_TRUNCATED,
    E_TRAILING,
    E_OPERATION,
    E_TOO_LARGE
};
static const char *ename[] = {"OK",       "MAGIC",     "VERSION",  "FLAGS",     "LENGTH",   "RANGE",
                              "RESERVED", "TRUNCATED", "TRAILING", "OPERATION", "TOO_LARGE"};

/* ---------- little-endian helpers ---------- */
static uint16_t rd16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}
static int32_t rdi32(const uint8_t *p) {
    uint32_t u = rd32(p);
    return u >= 0x80000000u ? (int32_t)((int64_t)u - 4294967296LL) : (int32_t)u;
}
static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int32_t clampi(int64_t v, int64_t lo, int64_t hi) {
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ---------- world ---------- */
typedef struct {
    int32_t alive, still, p[3], v[3];
} body;

typedef struct {
    int dims, setup_count;
    uint32_t seed;
    int link_role, link_body;
    uint16_t link_T;
    uint64_t step;
    int32_t gravity;
    int n;
    body b[64];
    uint64_t prng;
} world;

static uint64_t next_rand(world *w) {
    w->prng += 0x9E3779B97F4A7C15ull;
    uint64_t z = w->prng;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int32_t draw(world *w, int32_t lo, int32_t hi) {
    uint64_t r = next_rand(w) % (uint64_t)((int64_t)hi - lo + 1);
    return (int32_t)(lo + (int64_t)r);
}

static void transfer(world *w) {
    if (w->link_role == 0 || w->link_role == 3) return;
    if (w->step != (uint64_t)w->link_T) return;
    body *b = &w->b[w->link_body];
    if (w->link_role == 1) {
        b->alive = 0;
    } else {
        b->alive = 1;
        b->still = 0;
        b->p[0] = 5000;
        b->p[1] = 5000;
        b->p[2] = w->dims == 3 ? 5000 : 0;
        b->v[0] = 150;
        b->v[1] = 0;
        b->v[2] = 0;
    }
}

static void world_from_setup(world *w) {
    w->step = 0;
    w->gravity = 10;
    w->prng = (uint64_t)w->seed;
    w->n = w->setup_count;
    for (int i = 0; i < w->n; i++) {
        body *b = &w->b[i];
        memset(b, 0, sizeof *b);
        b->alive = 1;
        b->still = 0;
        for (int a = 0; a < w->dims; a++) b->p[a] = draw(w, 0, 10000);
        for (int a = 0; a < w->dims; a++) b->v[a] = draw(w, -200, 200);
    }
    if (w->link_role == 2) w->b[w->link_body].alive = 0;
    transfer(w);
}

static size_t snapshot(const world *w, uint8_t *out) {
    wr64(out, w->step);
    wr32(out + 8, (uint32_t)w->gravity);
    for (int i = 0; i < w->n; i++) {
        uint8_t *q = out + 12 + 32 * i;
        const body *b = &w->b[i];
        wr32(q, (uint32_t)b->alive);
        wr32(q + 4, (uint32_t)b->still);
        for (int a = 0; a < 3; a++) wr32(q + 8 + 4 * a, (uint32_t)b->p[a]);
        for (int a = 0; a < 3; a++) wr32(q + 20 + 4 * a, (uint32_t)b->v[a]);
    }
    return 12 + 32 * (size_t)w->n;
}

static uint64_t world_hash(const world *w) {
    uint8_t buf[12 + 32 * 64];
    size_t n = snapshot(w, buf);
    return XXH3_64bits(buf, n);
}

/* returns error code, *off = offset inside snapshot */
static int world_from_snapshot(world *w, const uint8_t *s, size_t len, size_t *off) {
    *off = 0;
    if (len < 12 || (len - 12) % 32 != 0) return E_LENGTH;
    size_t n = (len - 12) / 32;
    if (n < (size_t)w->setup_count || n > 64) return E_LENGTH;
    w->step = rd64(s);
    w->gravity = rdi32(s + 8);
    if (w->gravity < -1000 || w->gravity > 1000) {
        *off = 8;
        return E_RANGE;
    }
    w->n = (int)n;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *q = s + 12 + 32 * i;
        body *b = &w->b[i];
        size_t base = 12 + 32 * i;
        b->alive = rdi32(q);
        if (b->alive != 0 && b->alive != 1) {
            *off = base;
            return E_RANGE;
        }
        b->still = rdi32(q + 4);
        if (b->still < 0) {
            *off = base + 4;
            return E_RANGE;
        }
        for (int a = 0; a < 3; a++) {
            b->p[a] = rdi32(q + 8 + 4 * a);
            if (b->p[a] < 0 || b->p[a] > 10000 || (a == 2 && w->dims == 2 && b->p[a] != 0)) {
                *off = base + 8 + 4 * (size_t)a;
                return E_RANGE;
            }
        }
        for (int a = 0; a < 3; a++) {
            b->v[a] = rdi32(q + 20 + 4 * a);
            if (b->v[a] < -1000 || b->v[a] > 1000 || (a == 2 && w->dims == 2 && b->v[a] != 0)) {
                *off = base + 20 + 4 * (size_t)a;
                return E_RANGE;
            }
        }
    }
    return E_OK;
}

/* op sizes by code */
static const int op_size[6] = {0, 14, 14, 2, 5, 13};

/* check a step input; returns error, *off = offset inside input */
static int check_input(const world *w, const uint8_t *in, size_t len, size_t *off) {
    size_t i = 0;
    while (i < len) {
        int code = in[i];
        if (code < 1 || code > 5) {
            *off = i;
            return E_OPERATION;
        }
        /* operand layout */
        size_t pos = i + 1;
        if (code == 1 || code == 2 || code == 3) {
            if (pos + 1 > len) {
                *off = pos;
                return E_TRUNCATED;
            }
            pos += 1;
        }
        int nint = (code == 1 || code == 2 || code == 5) ? 3 : (code == 4 ? 1 : 0);
        for (int k = 0; k < nint; k++) {
            if (pos + 4 > len) {
                *off = pos;
                return E_TRUNCATED;
            }
            pos += 4;
        }
        /* value rules (after the whole op is present) */
        if ((code == 1 || code == 2 || code == 3) && in[i + 1] > 63) {
            *off = i + 1;
            return E_RANGE;
        }
        if (w->dims == 2) {
            size_t zoff = 0;
            if (code == 1 || code == 2) zoff = i + 10;
            if (code == 5) zoff = i + 9;
            if (zoff && rdi32(in + zoff) != 0) {
                *off = zoff;
                return E_RANGE;
            }
        }
        i += (size_t)op_size[code];
    }
    return E_OK;
}

static void run_step(world *w, const uint8_t *in, size_t len) {
    int32_t start[64][3];
    int has_start[64];
    /* stage 0: input */
    for (int i = 0; i < 64; i++) has_start[i] = 0;
    for (int i = 0; i < w->n; i++) {
        has_start[i] = 1;
        for (int a = 0; a < 3; a++) start[i][a] = w->b[i].p[a];
    }
    size_t i = 0;
    while (i < len) {
        int code = in[i];
        const uint8_t *o = in + i;
        switch (code) {
            case 1: {
                int bi = o[1];
                if (bi < w->n && w->b[bi].alive == 1)
                    for (int a = 0; a < w->dims; a++)
                        w->b[bi].v[a] =
                            clampi((int64_t)w->b[bi].v[a] + rdi32(o + 2 + 4 * a), -1000, 1000);
                break;
            }
            case 2: {
                int bi = o[1];
                if (bi < w->n && w->b[bi].alive == 1)
                    for (int a = 0; a < w->dims; a++)
                        w->b[bi].p[a] = clampi(rdi32(o + 2 + 4 * a), 0, 10000);
                break;
            }
            case 3: {
                int bi = o[1];
                if (bi < w->n && w->b[bi].alive == 1) w->b[bi].alive = 0;
                break;
            }
            case 4: w->gravity = clampi(rdi32(o + 1), -1000, 1000); break;
            case 5:
                if (w->n < 64) {
                    body *b = &w->b[w->n];
                    memset(b, 0, sizeof *b);
                    b->alive = 1;
                    b->still = 0;
                    for (int a = 0; a < w->dims; a++)
                        b->p[a] = clampi(rdi32(o + 1 + 4 * a), 0, 10000);
                    has_start[w->n] = 0;
                    w->n++;
                }
                break;
            default: abort();
        }
        i += (size_t)op_size[code];
    }
    /* stage 1: gravity */
    for (int k = 0; k < w->n; k++)
        if (w->b[k].alive == 1)
            w->b[k].v[1] = clampi((int64_t)w->b[k].v[1] - w->gravity, -1000, 1000);
    /* stage 2: move and bounce */
    for (int k = 0; k < w->n; k++) {
        body *b = &w->b[k];
        if (b->alive != 1) continue;
        for (int a = 0; a < w->dims; a++) {
            int32_t p = b->p[a], v = b->v[a];
            int32_t q = p + v, m;
            if (q < 0) {
                q = -q;
                m = -v;
                v = m - m / 8;
            }
            if (q > 10000) {
                q = 20000 - q;
                m = v;
                v = -(m - m / 8);
            }
            b->p[a] = q;
            b->v[a] = v;
        }
    }
    /* stage 3: bookkeeping */
    for (int k = 0; k < w->n; k++) {
        body *b = &w->b[k];
        if (b->alive != 1) continue;
        int same = has_start[k] && b->p[0] == start[k][0] && b->p[1] == start[k][1] &&
                   b->p[2] == start[k][2];
        if (same) {
            if (b->still != 2147483647) b->still++;
        } else
            b->still = 0;
    }
    w->step++;
    transfer(w);
}

/* ---------- fields ---------- */
static void fields(const world *w, int32_t dens[81], int32_t occ[128]) {
    memset(dens, 0, 81 * sizeof dens[0]);
    memset(occ, 0, 128 * sizeof occ[0]);
    for (int k = 0; k < w->n; k++) {
        const body *b = &w->b[k];
        if (b->alive != 1) continue;
        int32_t u = b->p[0], ww = w->dims == 3 ? b->p[2] : b->p[1];
        int32_t ci = u / 1250;
        if (ci > 7) ci = 7;
        int32_t cj = ww / 1250;
        if (cj > 7) cj = 7;
        int32_t fu = u - 1250 * ci, fw = ww - 1250 * cj;
        dens[9 * cj + ci] += (1250 - fu) * (1250 - fw);
        dens[9 * cj + ci + 1] += fu * (1250 - fw);
        dens[9 * (cj + 1) + ci] += (1250 - fu) * fw;
        dens[9 * (cj + 1) + ci + 1] += fu * fw;
        int c = 8 * cj + ci;
        occ[fu + fw < 1250 ? 2 * c : 2 * c + 1] += 1;
    }
}

/* ---------- OSTM ---------- */
typedef struct {
    uint16_t flags;
    int dims, count;
    uint32_t seed;
    int role, lbody;
    uint16_t T;
    uint32_t N;
    const uint8_t *snap;
    uint32_t snap_len;
    const uint8_t *rows;
    size_t rows_off;
    size_t *step_off; /* offset of each step's u16 length */
    size_t end_setup; /* offset S */
} ostm;

static int parse(const uint8_t *d, size_t len, ostm *f, world *w, size_t *off) {
    memset(f, 0, sizeof *f);
    *off = 0;
    if (len > (size_t)256 << 20) return E_TOO_LARGE;
    if (len < 4) return E_TRUNCATED;
    if (memcmp(d, "OSTM", 4) != 0) return E_MAGIC;
    *off = 4;
    if (len < 6) return E_TRUNCATED;
    if (rd16(d + 4) != 1) return E_VERSION;
    *off = 6;
    if (len < 8) return E_TRUNCATED;
    f->flags = rd16(d + 6);
    if (f->flags & ~7u) return E_FLAGS;
    *off = 8;
    if (len < 12) return E_TRUNCATED;
    if (rd32(d + 8) != ((f->flags & 4) ? 10u : 6u)) return E_LENGTH;
    *off = 12;
    if (len < 13) return E_TRUNCATED;
    f->dims = d[12];
    if (f->dims != 2 && f->dims != 3) return E_RANGE;
    *off = 13;
    if (len < 14) return E_TRUNCATED;
    f->count = d[13];
    if (f->count < 1 || f->count > 64) return E_RANGE;
    *off = 14;
    if (len < 18) return E_TRUNCATED;
    f->seed = rd32(d + 14);
    size_t S = 18;
    if (f->flags & 4) {
        *off = 18;
        if (len < 19) return E_TRUNCATED;
        f->role = d[18];
        if (f->role < 1 || f->role > 3) return E_RANGE;
        *off = 19;
        if (len < 20) return E_TRUNCATED;
        f->lbody = d[19];
        if (f->role == 3) {
            if (f->lbody != 0) return E_RESERVED;
        } else if (f->lbody >= f->count)
            return E_RANGE;
        *off = 20;
        if (len < 22) return E_TRUNCATED;
        f->T = rd16(d + 20);
        if (f->role == 3 && f->T != 0) return E_RESERVED;
        S = 22;
    }
    f->end_setup = S;
    *off = S;
    if (len < S + 4) return E_TRUNCATED;
    f->N = rd32(d + S);
    if (f->N > 16777216u) return E_RANGE;
    size_t pos = S + 4;
    memset(w, 0, sizeof *w);
    w->dims = f->dims;
    w->setup_count = f->count;
    w->seed = f->seed;
    w->link_role = f->role;
    w->link_body = f->lbody;
    w->link_T = f->T;
    if (f->flags & 2) {
        *off = pos;
        if (len < pos + 4) return E_TRUNCATED;
        f->snap_len = rd32(d + pos);
        pos += 4;
        *off = pos;
        if (len - pos < f->snap_len) return E_TRUNCATED;
        f->snap = d + pos;
        size_t so;
        int e = world_from_snapshot(w, f->snap, f->snap_len, &so);
        if (e) {
            *off = pos + so;
            return e;
        }
        pos += f->snap_len;
    } else {
        world_from_setup(w);
    }
    if (f->flags & 1) {
        *off = pos;
        if ((len - pos) / 8 < (size_t)f->N + 1) return E_TRUNCATED;
        f->rows = d + pos;
        f->rows_off = pos;
        pos += 8 * ((size_t)f->N + 1);
    }
    *off = pos;
    if ((len - pos) / 2 < f->N) return E_TRUNCATED;
    f->step_off = malloc(sizeof(size_t) * ((size_t)f->N + 1));
    world chk = *w; /* only dims matter for checking */
    for (uint32_t s = 0; s < f->N; s++) {
        *off = pos;
        if (len - pos < 2) return E_TRUNCATED;
        f->step_off[s] = pos;
        uint16_t L = rd16(d + pos);
        pos += 2;
        *off = pos;
        if (len - pos < L) return E_TRUNCATED; /* ambiguous: offset of the length or of the bytes */
        size_t io;
        int e = check_input(&chk, d + pos, L, &io);
        if (e) {
            *off = pos + io;
            return e;
        }
        pos += L;
    }
    *off = pos;
    if (pos != len) return E_TRAILING;
    return E_OK;
}

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!fp) {
        perror(path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t r = fread(buf + n, 1, cap - n, fp);
        if (!r) break;
        n += r;
    }
    if (fp != stdin) fclose(fp);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    int state = 0, showfields = 0, rowsmode = 0;
    const char *in = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--state"))
            state = 1;
        else if (!strcmp(argv[i], "--fields"))
            showfields = 1;
        else if (!strcmp(argv[i], "--rows"))
            rowsmode = 1;
        else if (!in)
            in = argv[i];
        else
            out = argv[i];
    }
    if (!in || (rowsmode && !out)) {
        fprintf(stderr, "usage: ref_sim FILE [--state] [--fields] | --rows IN OUT\n");
        return 2;
    }
    size_t len;
    uint8_t *d = read_all(in, &len);
    ostm f;
    world w;
    size_t off;
    int e = parse(d, len, &f, &w, &off);
    if (e) {
        fprintf(stderr, "%s: offset %zu: E_%s\n", in, off, ename[e]);
        free(f.step_off);
        free(d);
        return 1;
    }
    uint64_t *hashes = malloc(8 * ((size_t)f.N + 1));
    for (uint32_t s = 0; s <= f.N; s++) {
        hashes[s] = world_hash(&w);
        if (!rowsmode) {
            if ((f.flags & 1) && rd64(f.rows + 8 * (size_t)s) != hashes[s])
                printf("step %" PRIu64 " hash %016" PRIx64 " MISMATCH expected %016" PRIx64 "\n",
                       w.step, hashes[s], rd64(f.rows + 8 * (size_t)s));
            else
                printf("step %" PRIu64 " hash %016" PRIx64 "%s\n", w.step, hashes[s],
                       (f.flags & 1) && rd64(f.rows + 8 * (size_t)s) != hashes[s] ? " MISMATCH"
                                                                                  : "");
            if (state) {
                printf("  gravity %d, %d bodies\n", w.gravity, w.n);
                for (int k = 0; k < w.n; k++) {
                    const body *b = &w.b[k];
                    printf("  body %d alive %d still %d position %d %d %d velocity %d %d %d\n", k,
                           b->alive, b->still, b->p[0], b->p[1], b->p[2], b->v[0], b->v[1],
                           b->v[2]);
                }
            }
            if (showfields && f.role) {
                int32_t dens[81], occ[128];
                fields(&w, dens, occ);
                printf("  density");
                for (int k = 0; k < 81; k++) printf(" %d", dens[k]);
                printf("\n  occupancy");
                for (int k = 0; k < 128; k++) printf(" %d", occ[k]);
                printf("\n");
            }
        }
        if (s < f.N) {
            size_t p = f.step_off[s];
            run_step(&w, d + p + 2, rd16(d + p));
        }
    }
    if (rowsmode) {
        /* rewrite with flag bit 0 and these rows */
        size_t rows_at = f.rows ? f.rows_off : f.step_off ? (f.N ? f.step_off[0] : len) : len;
        if (!f.rows) {
            /* rows go right before the first step (or at the end for N = 0) */
            rows_at = f.N ? f.step_off[0] : len;
        }
        size_t tail = f.rows ? rows_at + 8 * ((size_t)f.N + 1) : rows_at;
        FILE *fp = fopen(out, "wb");
        if (!fp) {
            perror(out);
            return 1;
        }
        uint8_t hdr[8];
        memcpy(hdr, d, 8);
        uint16_t fl = (uint16_t)(f.flags | 1);
        hdr[6] = (uint8_t)fl;
        hdr[7] = (uint8_t)(fl >> 8);
        fwrite(hdr, 1, 8, fp);
        fwrite(d + 8, 1, rows_at - 8, fp);
        for (uint32_t s = 0; s <= f.N; s++) {
            uint8_t b8[8];
            wr64(b8, hashes[s]);
            fwrite(b8, 1, 8, fp);
        }
        fwrite(d + tail, 1, len - tail, fp);
        fclose(fp);
    }
    free(hashes);
    free(f.step_off);
    free(d);
    return 0;
}
