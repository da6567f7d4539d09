/* Fuzz target: the pull JSON reader (src/json_reader.c) and the streamed OTS check.
 *
 * The first byte picks how the rest is cut into pieces: bits 0-5 a piece size 1..64, bit 6
 * varying sizes drawn from a seeded generator instead, bit 7 skip every container that opens
 * at depth 2. The rest is read twice in lockstep, whole and in pieces: every token (kind,
 * offset, line, column, depth, text, number) and the final error (code, offset, line,
 * column, expected, found, the formatted line) must be the same, and the error one printable
 * line naming the input. Then the same text goes through the OTS parser (the kind
 * onescope_ots_detect says, else the one bit 6 picks) and onescope_os_ots_check_stream in the
 * same pieces, with on_error and max_errors 50: the code, the first error's line and the
 * list of every error's line must be the same. The FZOP trailer (fuzz_helpers.h) sets a
 * failing allocator for the reader's part. */
#include "check_internal.h"
#include "fuzz_helpers.h"
#include "json_pos.h"

typedef struct pieces {
    const uint8_t *data;
    size_t size, pos;
    size_t chunk; /* 0: varying */
    uint64_t seed;
} pieces;

static size_t piece_size(pieces *p) {
    if (p->chunk) return p->chunk;
    uint64_t z = (p->seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (z & 3) == 0 ? 1 + (size_t)(z >> 8) % 700 : 1 + (size_t)(z >> 8) % 9;
}

static bool pieces_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    (void)error;
    pieces *p = user;
    size_t k = piece_size(p);
    if (k > p->size - p->pos) k = p->size - p->pos;
    *data = p->data + p->pos;
    *size = k;
    p->pos += k;
    return true;
}

static void pieces_init(pieces *p, const uint8_t *data, size_t size, uint8_t mode) {
    p->data = data;
    p->size = size;
    p->pos = 0;
    p->chunk = mode & 0x40 ? 0 : (size_t)(mode & 0x3f) + 1;
    p->seed = mode;
}

static void same_token(const onescope_os_jr *a, const onescope_os_jr *b) {
    FUZZ_ASSERT_MSG(a->kind == b->kind, "kind %d whole, %d in pieces", (int)a->kind, (int)b->kind);
    FUZZ_ASSERT_MSG(
        a->at.offset == b->at.offset && a->at.line == b->at.line && a->at.column == b->at.column,
        "token at %llu %u:%u whole, %llu %u:%u in pieces", (unsigned long long)a->at.offset,
        a->at.line, a->at.column, (unsigned long long)b->at.offset, b->at.line, b->at.column);
    FUZZ_ASSERT(a->depth == b->depth);
    if (a->kind == OS_JR_KEY || a->kind == OS_JR_STRING) {
        FUZZ_ASSERT(a->len == b->len && memcmp(a->text, b->text, a->len + 1) == 0);
        FUZZ_ASSERT(strlen(a->text) == a->len); /* no U+0000 inside */
    }
    if (a->kind == OS_JR_NUMBER) {
        FUZZ_ASSERT(memcmp(&a->number, &b->number, sizeof a->number) == 0);
        FUZZ_ASSERT(a->is_integer == b->is_integer);
        if (a->is_integer) FUZZ_ASSERT(a->integer == b->integer);
        FUZZ_ASSERT(a->number - a->number == 0); /* finite */
    }
}

static void same_error(const onescope_error *a, const onescope_error *b) {
    char la[2048], lb[2048];
    onescope_error_format(a, la, sizeof la);
    onescope_error_format(b, lb, sizeof lb);
    FUZZ_ASSERT_MSG(a->code == b->code && a->offset == b->offset &&
                        a->has_offset == b->has_offset && a->line == b->line &&
                        a->column == b->column && strcmp(a->expected, b->expected) == 0 &&
                        strcmp(a->found, b->found) == 0 && strcmp(la, lb) == 0,
                    "the error whole: %s\n  in pieces: %s", la, lb);
}

static void reader_part(fuzz_env *env, const uint8_t *text, size_t n, uint8_t mode) {
    onescope_os_jr a, b;
    onescope_error ea, eb;
    onescope_error_clear(&ea);
    onescope_error_clear(&eb);
    pieces p;
    pieces_init(&p, text, n, mode);
    const uint8_t *first;
    size_t first_size;
    pieces_more(&p, &first, &first_size, &eb);
    /* the two readers allocate alike, so a failing allocation hits both at the same token:
     * each gets its own count */
    long fail_at = env->fail_at;
    fuzz_env ea_env = *env, eb_env = *env;
    ea_env.allocator.user = &ea_env;
    eb_env.allocator.user = &eb_env;
    ea_env.fail_at = eb_env.fail_at = fail_at;
    onescope_os_jr_init(&a, "fuzz", &ea_env.allocator, &ea, text, n, NULL, NULL);
    onescope_os_jr_init(&b, "fuzz", &eb_env.allocator, &eb, first, first_size, pieces_more, &p);
    onescope_code ra, rb;
    for (;;) {
        ra = onescope_os_jr_next(&a);
        rb = onescope_os_jr_next(&b);
        FUZZ_ASSERT_MSG(ra == rb, "code %d whole, %d in pieces", (int)ra, (int)rb);
        FUZZ_ASSERT(a.value_error == b.value_error);
        if (ra != ONESCOPE_OK && a.value_error) {
            /* a value a double cannot hold: the same error, and both read on (not latched) */
            same_error(&ea, &eb);
            fuzz_check_error(&ea_env, ra, &ea, "fuzz", n);
            FUZZ_ASSERT(a.failed == ONESCOPE_OK && b.failed == ONESCOPE_OK);
            continue;
        }
        if (ra != ONESCOPE_OK) break;
        same_token(&a, &b);
        if (a.kind == OS_JR_END) break;
        if ((mode & 0x80) && a.depth == 2 && (a.kind == OS_JR_OBJECT || a.kind == OS_JR_ARRAY)) {
            ra = onescope_os_jr_skip(&a);
            rb = onescope_os_jr_skip(&b);
            FUZZ_ASSERT(ra == rb && !a.value_error && !b.value_error);
            if (ra != ONESCOPE_OK) break;
            same_token(&a, &b);
            FUZZ_ASSERT(a.depth == 1 && (a.kind == OS_JR_OBJECT_END || a.kind == OS_JR_ARRAY_END));
        }
    }
    if (ra != ONESCOPE_OK) {
        same_error(&ea, &eb);
        fuzz_check_error(&ea_env, ra, &ea, "fuzz", n);
        /* latched */
        FUZZ_ASSERT(onescope_os_jr_next(&a) == ra && onescope_os_jr_next(&b) == rb);
    }
    onescope_os_jr_free(&a);
    onescope_os_jr_free(&b);
    fuzz_env_finish(&ea_env);
    fuzz_env_finish(&eb_env);
}

/* ---- the OTS stream against the parser ---- */

typedef struct lines {
    char text[8192];
    size_t n;
    int count;
} lines;

static void collect(void *user, const onescope_error *e) {
    lines *l = user;
    char line[2048];
    size_t k = onescope_error_format(e, line, sizeof line);
    if (k >= sizeof line) k = sizeof line - 1;
    l->count++;
    if (l->n + k + 2 > sizeof l->text) return; /* counted, not kept */
    memcpy(l->text + l->n, line, k);
    l->n += k;
    l->text[l->n++] = '\n';
    l->text[l->n] = '\0';
}

static void ots_part(const uint8_t *text, size_t n, uint8_t mode) {
    onescope_ots_kind kind = onescope_ots_detect(text, n);
    if (kind == ONESCOPE_OTS_NONE) kind = mode & 0x40 ? ONESCOPE_OTS_PVT : ONESCOPE_OTS_ANM;
    fuzz_env env;
    size_t ignored = 0;
    fuzz_env_init(&env, (const uint8_t *)"", &ignored);
    lines whole, streamed;
    memset(&whole, 0, sizeof whole);
    memset(&streamed, 0, sizeof streamed);
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = &env.allocator;
    o.on_error = collect;
    o.max_errors = 50;

    o.on_error_user = &whole;
    onescope_error ew, es;
    onescope_code rw;
    if (kind == ONESCOPE_OTS_PVT) {
        onescope_ots_rig *r = NULL;
        rw = onescope_ots_rig_parse(text, n, "fuzz", &o, &r, &ew);
        onescope_ots_rig_free(r);
    } else {
        onescope_ots_clip *k = NULL;
        rw = onescope_ots_clip_parse(text, n, "fuzz", &o, &k, &ew);
        onescope_ots_clip_free(k);
    }

    o.on_error_user = &streamed;
    pieces p;
    pieces_init(&p, text, n, mode);
    const uint8_t *first;
    size_t first_size;
    pieces_more(&p, &first, &first_size, &es);
    onescope_code rs =
        onescope_os_ots_check_stream(kind, text, first_size, pieces_more, &p, "fuzz", &o, &es);

    char lw[2048] = "", ls[2048] = "";
    if (rw != ONESCOPE_OK) onescope_error_format(&ew, lw, sizeof lw);
    if (rs != ONESCOPE_OK) onescope_error_format(&es, ls, sizeof ls);
    FUZZ_ASSERT_MSG(rw == rs && strcmp(lw, ls) == 0, "the parse: %d %s\n  the stream: %d %s",
                    (int)rw, lw, (int)rs, ls);
    FUZZ_ASSERT_MSG(whole.count == streamed.count && whole.n == streamed.n &&
                        memcmp(whole.text, streamed.text, whole.n) == 0,
                    "%d errors from the parse:\n%s  %d from the stream:\n%s", whole.count,
                    whole.text, streamed.count, streamed.text);
    FUZZ_ASSERT(whole.count <= 50);
    FUZZ_ASSERT((rw == ONESCOPE_OK) == (whole.count == 0));
    if (rw != ONESCOPE_OK) fuzz_check_error(&env, rw, &ew, "fuzz", n);
    fuzz_env_finish(&env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    if (size == 0) return 0;
    uint8_t mode = data[0];
    const uint8_t *text = data + 1;
    size_t n = size - 1;
    reader_part(&env, text, n, mode);
    if (env.fail_at == 0) ots_part(text, n, mode);
    return 0;
}
