/* The streamed OTS check (onescope_os_ots_check_stream, ots_read.c) against the parsers:
 * for every .anm and .pvt the project keeps (testdata/, the fuzz seeds) and for mutations of
 * them (cuts, flipped bytes, deleted and repeated keys, numbers turned into strings), the text
 * fed in 1-byte and 4 KiB pieces gets exactly the code and the one-line error that
 * onescope_ots_clip_parse / onescope_ots_rig_parse give on the whole text; with on_error and
 * max_errors 50 the whole list of errors is the same; onescope_file_validate on a file
 * holding the text says the same too. And the streamed .anm -> OSPC conversion from a file
 * (onescope_ots_anm_file_to_pose_cache_file) against the in-memory one on the same bytes
 * (onescope_ots_anm_to_pose_cache_file): the same code and line, or the same file byte for
 * byte, for every text above and for crafted clips (parents after children, frame_range after
 * the pegs, single keyframes, holds, world space, a unit, handles, many keyframes a peg). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_internal.h"
#include "test_util.h"

#define FUZZ_CORPUS ONESCOPE_TESTDATA "/../tests/fuzz/corpus"
#define LINE_MAX_ 1024

static char scratch[64];

/* ---- text buffers (strbuf: test_util.h) ---- */

static void sb_str(strbuf *b, const char *s) {
    sb_put(b, s, strlen(s));
}

/* on_error: every error's line, one per line. */
static void collect(void *user, const onescope_error *e) {
    char line[LINE_MAX_];
    onescope_error_format(e, line, sizeof line);
    sb_str(user, line);
    sb_str(user, "\n");
}

/* ---- the verdicts ---- */

typedef struct verdict {
    onescope_code rc;
    char line[LINE_MAX_]; /* empty when valid */
    strbuf all;           /* with on_error: every error */
} verdict;

static void verdict_free(verdict *v) {
    free(v->all.s);
    memset(v, 0, sizeof *v);
}

static void finish(verdict *v, onescope_code rc, const onescope_error *e) {
    v->rc = rc;
    v->line[0] = '\0';
    if (rc != ONESCOPE_OK) onescope_error_format(e, v->line, sizeof v->line);
    if (v->all.s == NULL) sb_put(&v->all, "", 0);
}

static onescope_parse_options options_for(verdict *v, bool every) {
    onescope_parse_options o = onescope_parse_options_default();
    if (every) {
        o.on_error = collect;
        o.on_error_user = &v->all;
        o.max_errors = 50;
    }
    return o;
}

static void parse_whole(onescope_ots_kind kind, const uint8_t *d, size_t n, const char *name,
                        bool every, verdict *v) {
    memset(v, 0, sizeof *v);
    onescope_parse_options o = options_for(v, every);
    onescope_error e;
    onescope_code rc;
    if (kind == ONESCOPE_OTS_PVT) {
        onescope_ots_rig *r = NULL;
        rc = onescope_ots_rig_parse(d, n, name, &o, &r, &e);
        onescope_ots_rig_free(r);
    } else {
        onescope_ots_clip *k = NULL;
        rc = onescope_ots_clip_parse(d, n, name, &o, &k, &e);
        onescope_ots_clip_free(k);
    }
    finish(v, rc, &e);
}

typedef struct feeder {
    const uint8_t *data;
    size_t size, pos, chunk;
} feeder;

static bool feed_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    (void)error;
    feeder *f = user;
    size_t k = f->size - f->pos < f->chunk ? f->size - f->pos : f->chunk;
    *data = f->data + f->pos;
    *size = k;
    f->pos += k;
    return true;
}

static void stream(onescope_ots_kind kind, const uint8_t *d, size_t n, size_t chunk,
                   const char *name, bool every, verdict *v) {
    memset(v, 0, sizeof *v);
    onescope_parse_options o = options_for(v, every);
    size_t first = n < chunk ? n : chunk;
    feeder f = {d, n, first, chunk};
    onescope_error e;
    onescope_code rc = onescope_os_ots_check_stream(kind, d, first, feed_more, &f, name, &o, &e);
    finish(v, rc, &e);
}

static void validate_file(const char *path, const uint8_t *d, size_t n, bool every, verdict *v) {
    memset(v, 0, sizeof *v);
    test_write_file(path, d, n);
    onescope_parse_options o = options_for(v, every);
    onescope_error e;
    onescope_format f;
    onescope_code rc = onescope_file_validate(path, &o, &f, &e);
    finish(v, rc, &e);
}

static int compared, invalid, validated, multi, converted, converted_ok;

/* ---- the two conversions ---- */

static uint8_t *read_file(const char *path, size_t *n);
static void same(const char *what, const char *label, const verdict *want, const verdict *got);

/* The in-memory conversion of d and the streamed one of a file holding d, with bake: the same
 * verdict and line, and when both succeed the same bytes. */
static void convert_both(const char *label, const uint8_t *d, size_t n,
                         const onescope_ots_bake_options *bake) {
    char in[128], a[128], b[128];
    snprintf(in, sizeof in, "%s/c.anm", scratch);
    snprintf(a, sizeof a, "%s/mem.ospc", scratch);
    snprintf(b, sizeof b, "%s/file.ospc", scratch);
    unlink(a);
    unlink(b);
    test_write_file(in, d, n);
    onescope_ots_bake_options o = bake ? *bake : onescope_ots_bake_options_default();
    verdict want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    onescope_error e;
    uint64_t fa = 0, fb = 0;
    finish(&want, onescope_ots_anm_to_pose_cache_file(d, n, in, NULL, &o, a, NULL, &fa, &e), &e);
    finish(&got, onescope_ots_anm_file_to_pose_cache_file(in, NULL, &o, b, NULL, &fb, &e), &e);
    same("the streamed convert", label, &want, &got);
    if (want.rc == ONESCOPE_OK) {
        size_t na = 0, nb = 0;
        uint8_t *da = read_file(a, &na), *db = read_file(b, &nb);
        assert_non_null(da);
        assert_non_null(db);
        if (na != nb || memcmp(da, db, na) != 0 || fa != fb) {
            print_error("%s: the streamed convert wrote other bytes (%zu, %zu)\n", label, na, nb);
            fail();
        }
        free(da);
        free(db);
        converted_ok++;
    } else {
        struct stat st;
        assert_int_not_equal(stat(b, &st), 0); /* no output for a refused input */
    }
    converted++;
    verdict_free(&want);
    verdict_free(&got);
}

static void same(const char *what, const char *label, const verdict *want, const verdict *got) {
    if (want->rc == got->rc && strcmp(want->line, got->line) == 0 && want->all.n == got->all.n &&
        memcmp(want->all.s, got->all.s, want->all.n) == 0)
        return;
    print_error("%s: %s differs from the parse of the whole text:\n  parse:  %d %s\n  %s: %d "
                "%s\n  parse's list:\n%s  its list:\n%s",
                label, what, (int)want->rc, want->line, what, (int)got->rc, got->line, want->all.s,
                got->all.s);
    fail();
}

/* Every comparison on one text. */
static void check_text(const char *label, onescope_ots_kind kind, const uint8_t *d, size_t n) {
    const char *name = kind == ONESCOPE_OTS_PVT ? "s.pvt" : "s.anm";
    for (int every = 0; every <= 1; every++) {
        verdict whole, piece;
        parse_whole(kind, d, n, name, every, &whole);
        if (!every && whole.rc != ONESCOPE_OK) invalid++;
        if (every && whole.rc != ONESCOPE_OK) assert_true(whole.all.n > 0);
        if (every && whole.rc == ONESCOPE_OK) assert_int_equal(whole.all.n, 0);
        if (every && whole.all.n > 0 && strchr(whole.all.s, '\n') + 1 < whole.all.s + whole.all.n)
            multi++; /* more than one error */
        static const size_t chunks[] = {1, 4096};
        for (size_t k = 0; k < 2; k++) {
            stream(kind, d, n, chunks[k], name, every, &piece);
            same(chunks[k] == 1 ? "the stream in 1-byte pieces" : "the stream in 4 KiB pieces",
                 label, &whole, &piece);
            verdict_free(&piece);
        }
        verdict_free(&whole);
        compared++;
    }
    if (kind == ONESCOPE_OTS_ANM) convert_both(label, d, n, NULL);
    /* onescope_file_validate names errors by the path, and picks the kind from the text */
    onescope_format f = onescope_format_detect(d, n);
    if (f != ONESCOPE_FORMAT_PVT && f != ONESCOPE_FORMAT_ANM) return;
    onescope_ots_kind fk = f == ONESCOPE_FORMAT_PVT ? ONESCOPE_OTS_PVT : ONESCOPE_OTS_ANM;
    char path[128];
    snprintf(path, sizeof path, "%s/v.%s", scratch, fk == ONESCOPE_OTS_PVT ? "pvt" : "anm");
    for (int every = 0; every <= 1; every++) {
        verdict whole, file;
        parse_whole(fk, d, n, path, every, &whole);
        validate_file(path, d, n, every, &file);
        same("onescope_file_validate", label, &whole, &file);
        verdict_free(&whole);
        verdict_free(&file);
    }
    validated++;
}

/* ---- mutations ---- */

/* The offsets where a key starts ('"' followed by text, '"' and ':'). */
static size_t key_starts(const uint8_t *d, size_t n, size_t *at, size_t max) {
    size_t count = 0;
    for (size_t i = 0; i < n && count < max; i++) {
        if (d[i] != '"') continue;
        size_t j = i + 1;
        while (j < n && d[j] != '"' && d[j] != '\n') j++;
        size_t k = j + 1;
        while (k < n && (d[k] == ' ' || d[k] == '\t')) k++;
        if (j < n && d[j] == '"' && k < n && d[k] == ':') at[count++] = i;
        i = j;
    }
    return count;
}

/* Where the member starting at key ends: after its value and a following ',' if any. */
static size_t member_end(const uint8_t *d, size_t n, size_t key) {
    int depth = 0;
    bool in_string = false;
    size_t i = key;
    while (i < n && d[i] != ':') i++;
    for (i++; i < n; i++) {
        uint8_t c = d[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0) return i;
            depth--;
        } else if (c == ',' && depth == 0)
            return i + 1;
    }
    return n;
}

/* Just past the object or array that opens at d[i]; n when it does not close. */
static size_t object_end(const uint8_t *d, size_t n, size_t i) {
    int depth = 0;
    bool in_string = false;
    for (; i < n; i++) {
        uint8_t c = d[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return n;
}

typedef void mutant_fn(const char *label, onescope_ots_kind kind, const uint8_t *d, size_t n);

static void mutate(const char *label, onescope_ots_kind kind, const uint8_t *d, size_t n,
                   uint64_t *seed, mutant_fn *fn) {
    uint8_t *m = malloc(2 * n + 64);
    assert_non_null(m);
    char what[256];
    /* cuts */
    for (int k = 0; k < 8 && n > 0; k++) {
        size_t cut = (size_t)(test_rand(seed) % n);
        snprintf(what, sizeof what, "%s cut at %zu", label, cut);
        fn(what, kind, d, cut);
    }
    /* flipped bytes */
    for (int k = 0; k < 6 && n > 0; k++) {
        memcpy(m, d, n);
        uint64_t r = test_rand(seed);
        size_t at = (size_t)(r % n);
        uint8_t b = (uint8_t)(r >> 40);
        if (b == m[at]) b ^= 0x20;
        m[at] = b;
        snprintf(what, sizeof what, "%s byte %zu set to %02x", label, at, b);
        fn(what, kind, m, n);
    }
    size_t keys[512];
    size_t nk = key_starts(d, n, keys, 512);
    for (int k = 0; k < 4 && nk > 0; k++) {
        /* a key deleted with its value */
        size_t i = keys[test_rand(seed) % nk], end = member_end(d, n, i);
        memcpy(m, d, i);
        memcpy(m + i, d + end, n - end);
        snprintf(what, sizeof what, "%s member at %zu deleted", label, i);
        fn(what, kind, m, i + n - end);
        /* a key repeated */
        i = keys[test_rand(seed) % nk];
        end = member_end(d, n, i);
        memcpy(m, d, end);
        size_t len = end - i, extra = 0;
        if (end == 0 || d[end - 1] != ',') m[end + extra++] = ','; /* the last member */
        memcpy(m + end + extra, d + i, len);
        extra += len;
        memcpy(m + end + extra, d + end, n - end);
        snprintf(what, sizeof what, "%s member at %zu repeated", label, i);
        fn(what, kind, m, n + extra);
    }
    /* an element of an array (a bone, a peg, a camera, a keyframe) repeated: the same name
     * twice, a keyframe out of order */
    for (int k = 0; k < 4 && n > 0; k++) {
        size_t at = (size_t)(test_rand(seed) % n), i = at;
        while (i < n && !(d[i] == '{' && i > 0)) i++;
        size_t before = i;
        while (before > 0 && strchr(" \t\r\n", d[before - 1]) != NULL) before--;
        if (i >= n || before == 0 || (d[before - 1] != '[' && d[before - 1] != ',')) continue;
        size_t end = object_end(d, n, i);
        if (end >= n) continue;
        memcpy(m, d, end);
        m[end] = ',';
        memcpy(m + end + 1, d + i, end - i);
        memcpy(m + end + 1 + (end - i), d + end, n - end);
        snprintf(what, sizeof what, "%s element at %zu repeated", label, i);
        fn(what, kind, m, n + 1 + (end - i));
    }
    /* a number turned into a string */
    for (int k = 0; k < 4; k++) {
        size_t start = (size_t)(test_rand(seed) % (n + 1));
        while (start < n && !(d[start] == '-' || (d[start] >= '0' && d[start] <= '9'))) start++;
        if (start >= n) break;
        size_t end = start;
        while (end < n && strchr("-+.eE0123456789", d[end]) != NULL) end++;
        memcpy(m, d, start);
        m[start] = '"';
        memcpy(m + start + 1, d + start, end - start);
        m[end + 1] = '"';
        memcpy(m + end + 2, d + end, n - end);
        snprintf(what, sizeof what, "%s number at %zu quoted", label, start);
        fn(what, kind, m, n + 2);
    }
    free(m);
}

/* ---- the files ---- */

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)size + 1);
    assert_non_null(d);
    *n = fread(d, 1, (size_t)size, f);
    fclose(f);
    return d;
}

typedef void file_fn(const char *path, onescope_ots_kind kind, const uint8_t *d, size_t n);

static int each_file(const char *dir, const char *ext, onescope_ots_kind kind, file_fn *fn) {
    DIR *dd = opendir(dir);
    if (dd == NULL) return 0;
    /* sorted, so the seeded mutations are the same on every run */
    char names[256][256];
    int count = 0;
    struct dirent *ent;
    while ((ent = readdir(dd)) != NULL && count < 256) {
        size_t len = strlen(ent->d_name), el = strlen(ext);
        if (ent->d_name[0] == '.' || len < el || strcmp(ent->d_name + len - el, ext) != 0) continue;
        snprintf(names[count++], sizeof names[0], "%s", ent->d_name);
    }
    closedir(dd);
    qsort(names, (size_t)count, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%.500s/%.255s", dir, names[i]);
        size_t n = 0;
        uint8_t *d = read_file(path, &n);
        if (d == NULL) continue;
        fn(path, kind, d, n);
        free(d);
    }
    return count;
}

static uint64_t seed = 20261202;

static void one_file(const char *path, onescope_ots_kind kind, const uint8_t *d, size_t n) {
    check_text(path, kind, d, n);
    /* a valid text gets more mutants: each is wrong in one place, deep inside */
    verdict v;
    parse_whole(kind, d, n, "s", false, &v);
    int rounds = v.rc == ONESCOPE_OK ? 12 : 1;
    verdict_free(&v);
    for (int k = 0; k < rounds; k++) mutate(path, kind, d, n, &seed, check_text);
}

/* A clip of peg_count pegs with keys keyframes each (valid; big ones span many 4 KiB and
 * 1 MiB pieces). */
static void big_clip(strbuf *b, int peg_count, int keys) {
    char tmp[512];
    snprintf(tmp, sizeof tmp,
             "{\n  \"format\": \"octo_anm\",\n  \"version\": 4,\n  \"source\": \"maya\",\n"
             "  \"frame_range\": [1, %d],\n  \"fps\": 24.0,\n  \"coordinate_system\": {\"up\": "
             "\"y\", \"hand\": \"right\", \"unit\": \"meters\",\n    \"rot_order\": \"xyz\", "
             "\"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"},\n  \"pegs\": [",
             keys);
    sb_str(b, tmp);
    for (int p = 0; p < peg_count; p++) {
        snprintf(tmp, sizeof tmp,
                 "%s\n    {\"name\": \"peg%d\", \"parent\": %s%s%s, \"rest_pivot\": [0, 0, 0], "
                 "\"rest_rotation\": [1, 0, 0, 0],\n     \"keyframes\": [",
                 p ? "," : "", p, p ? "\"peg" : "null", p ? "0" : "", p ? "\"" : "");
        sb_str(b, tmp);
        for (int k = 1; k <= keys; k++) {
            snprintf(tmp, sizeof tmp,
                     "%s\n       {\"frame\": %d, \"pos\": [%d.25, -0.5, 1e-3], \"rot\": [0, %d, "
                     "0], \"scl\": [1, 1, 1], \"interp\": \"LINEAR\"}",
                     k > 1 ? "," : "", k, k, k % 360);
            sb_str(b, tmp);
        }
        sb_str(b, "\n     ]}");
    }
    sb_str(b, "\n  ],\n  \"cameras\": []\n}\n");
}

static void test_stream_matches_parse(void **state) {
    (void)state;
    int files = each_file(ONESCOPE_TESTDATA, ".anm", ONESCOPE_OTS_ANM, one_file);
    files += each_file(ONESCOPE_TESTDATA, ".pvt", ONESCOPE_OTS_PVT, one_file);
    files += each_file(FUZZ_CORPUS "/anm_parse", "", ONESCOPE_OTS_ANM, one_file);
    files += each_file(FUZZ_CORPUS "/pvt_parse", "", ONESCOPE_OTS_PVT, one_file);
    printf("%d files, %d texts compared (twice: first error, every error), %d invalid, %d with "
           "more than one error, %d validated from a file\n",
           files, compared / 2, invalid, multi, validated);
    assert_true(multi > 50);
    assert_true(files >= 40);
    assert_true(compared / 2 >= 500);
    assert_true(invalid > 100);
    assert_true(validated > 100);
    printf("%d conversions compared, %d of them written\n", converted, converted_ok);
    assert_true(converted > 300);
    assert_true(converted_ok >= 8);
}

/* Large texts: a valid clip over several 1 MiB buffers, and errors near its end. */
static void test_big_clip(void **state) {
    (void)state;
    strbuf b = {0};
    big_clip(&b, 3, 4000);
    assert_true(b.n > 1200000);
    verdict v;
    parse_whole(ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n, "s.anm", false, &v);
    if (v.rc != ONESCOPE_OK) print_error("%s\n", v.line);
    assert_int_equal(v.rc, ONESCOPE_OK);
    verdict_free(&v);
    check_text("a big clip", ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n);
    /* errors after the first MiB: a frame out of order, a string for a number, a cut */
    char *at = strstr(b.s + 1100000, "\"frame\": ");
    assert_non_null(at);
    at[9] = '1'; /* frame 1 again */
    for (char *c = at + 10; *c >= '0' && *c <= '9'; c++) *c = ' ';
    char *num = strstr(b.s + 1150000, "-0.5");
    assert_non_null(num);
    memcpy(num, "\"x\" ", 4);
    check_text("a big clip with errors", ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n);
    parse_whole(ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n, "s.anm", true, &v);
    assert_int_not_equal(v.rc, ONESCOPE_OK);
    assert_non_null(strchr(strchr(v.all.s, '\n') + 1, '\n')); /* two errors at least */
    verdict_free(&v);
    check_text("a big clip cut", ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n - 7);
    free(b.s);
}

/* Clips made to reach every way the window moves and every field a record keeps. */
static const char clip_head[] =
    "{\"format\": \"octo_anm\", \"version\": 4, \"source\": \"maya\", %s\"fps\": 24.0,\n"
    " \"coordinate_system\": {\"up\": \"%s\", \"hand\": \"right\", \"unit\": \"meters\",\n"
    "  \"rot_order\": \"zyx\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
    "\"quat_wxyz\"},\n \"pegs\": [\n";

static const char *const crafted_pegs =
    /* a child before its parent, its keys inside the range with holds either side */
    "  {\"name\": \"child\", \"parent\": \"root\", \"rest_pivot\": [0, 1, 0],"
    " \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [\n"
    "   {\"frame\": 3, \"pos\": [0, 1, -0.0], \"rot\": [10, 20, 30], \"scl\": [1, 2, 1],"
    " \"interp\": \"BEZIER\", \"handles\": {\"pos\": [[[2, 0], [4, 0.5]], [[2, 1], [4.5, 1]],"
    " []], \"rot\": [[[2, 10], [5, 12]], [[2, 20], [5, 20]], [[2, 30], [5, 31]]],"
    " \"scl\": []}},\n"
    "   {\"frame\": 9, \"pos\": [2, 1.5, 0.25], \"rot\": [40, -20, 0], \"scl\": [1, 1, 1],"
    " \"interp\": \"CONSTANT\", \"handles\": {\"pos\": [[[8, 2], [10, 2]], [[8, 1.5],"
    " [10, 1.5]], [[8, 0.25], [10, 0.25]]], \"rot\": [], \"scl\": [[[8, 1], [10, 1]], [], []]}},\n"
    "   {\"frame\": 12, \"pos\": [3, 1, 0], \"rot_quat\": [0.5, 0.5, 0.5, 0.5],"
    " \"scl\": [1, 1, 1], \"interp\": \"LINEAR\"},\n"
    "   {\"frame\": 15, \"pos\": [3, 1, 1], \"rot\": [0, 0, 90], \"rot_quat\": [0, 0, 0, 1],"
    " \"scl\": [0.5, 0.5, 0.5], \"interp\": \"BEZIER\"}]},\n"
    /* one keyframe: held over the whole range */
    "  {\"name\": \"one\", \"parent\": \"child\", \"rest_pivot\": [0, 0, 0],"
    " \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [\n"
    "   {\"frame\": 7, \"pos\": [0.125, 0, 0], \"rot\": [0, 45, 0], \"scl\": [1, 1, 1],"
    " \"interp\": \"LINEAR\"}]},\n"
    /* none: the rest pose */
    "  {\"name\": \"rest\", \"parent\": \"one\", \"rest_pivot\": [1, 2, 3],"
    " \"rest_rotation\": [0, 1, 0, 0], \"keyframes\": []},\n"
    /* the root, last, its keys before and past the range */
    "  {\"name\": \"root\", \"parent\": null, \"rest_pivot\": [0, 0, 0],"
    " \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [\n"
    "   {\"frame\": -5, \"pos\": [0, 0, 0], \"rot_quat\": [1, 0, 0, 0], \"scl\": [1, 1, 1],"
    " \"interp\": \"LINEAR\"},\n"
    "   {\"frame\": 4, \"pos\": [1e3, 0, 0], \"rot_quat\": [0.7071067811865476, 0, "
    "0.7071067811865476, 0], \"scl\": [1, 1, 1], \"interp\": \"LINEAR\"},\n"
    "   {\"frame\": 40, \"pos\": [1e3, 5, 0], \"rot_quat\": [0, 0, 1, 0], \"scl\": [1, 1, 1],"
    " \"interp\": \"LINEAR\"}]}\n"
    " ],\n";

static void crafted(strbuf *b, bool range_last, const char *up) {
    char head[1024];
    snprintf(head, sizeof head, clip_head, range_last ? "" : "\"frame_range\": [0, 20], ", up);
    sb_str(b, head);
    sb_str(b, crafted_pegs);
    sb_str(b, range_last ? " \"cameras\": [], \"frame_range\": [0, 20]}\n" : " \"cameras\": []}\n");
}

static void test_convert_crafted(void **state) {
    (void)state;
    for (int range_last = 0; range_last <= 1; range_last++) {
        strbuf b = {0};
        crafted(&b, range_last, range_last ? "z" : "y");
        verdict v;
        parse_whole(ONESCOPE_OTS_ANM, (uint8_t *)b.s, b.n, "s.anm", false, &v);
        if (v.rc != ONESCOPE_OK) print_error("%s\n", v.line);
        assert_int_equal(v.rc, ONESCOPE_OK);
        verdict_free(&v);
        onescope_ots_bake_options o = onescope_ots_bake_options_default();
        int before = converted_ok;
        convert_both("crafted", (uint8_t *)b.s, b.n, &o);
        o.world_space = true;
        convert_both("crafted, world space", (uint8_t *)b.s, b.n, &o);
        o.world_space = false;
        o.metres_per_unit = 0.01;
        convert_both("crafted, in cm", (uint8_t *)b.s, b.n, &o);
        o.metres_per_unit = 3.0;
        convert_both("crafted, 3 m a unit", (uint8_t *)b.s, b.n, &o);
        assert_int_equal(converted_ok, before + 4);
        /* refusals after the parse, the same: a bad unit, a world position past a float */
        o.metres_per_unit = -1;
        convert_both("crafted, a bad unit", (uint8_t *)b.s, b.n, &o);
        o.metres_per_unit = 1e-300;
        convert_both("crafted, a unit too small", (uint8_t *)b.s, b.n, &o);
        assert_int_equal(converted_ok, before + 4);
        free(b.s);
    }
    /* many keyframes a peg (the chunk refilled many times), and many pegs (the smallest
     * chunk) */
    strbuf b = {0};
    big_clip(&b, 2, 9000);
    convert_both("2 pegs of 9000 keyframes", (uint8_t *)b.s, b.n, NULL);
    free(b.s);
    memset(&b, 0, sizeof b);
    big_clip(&b, 6000, 3);
    convert_both("6000 pegs of 3 keyframes", (uint8_t *)b.s, b.n, NULL);
    free(b.s);
}

/* A read error from `more`: the stream's verdict is that error, after any found before it. */
typedef struct failing {
    feeder f;
    int calls, fail_at;
} failing;

static bool failing_more(void *user, const uint8_t **data, size_t *size, onescope_error *error) {
    failing *x = user;
    if (++x->calls == x->fail_at) {
        onescope_os_fail(error, ONESCOPE_E_IO, "s.anm", OS_NO_OFFSET, NULL, NULL, "cannot read");
        return false;
    }
    return feed_more(&x->f, data, size, error);
}

static void test_read_error(void **state) {
    (void)state;
    strbuf b = {0};
    big_clip(&b, 1, 200);
    for (int every = 0; every <= 1; every++) {
        for (int bad_first = 0; bad_first <= 1; bad_first++) {
            strbuf text = {0};
            sb_put(&text, b.s, b.n);
            if (bad_first) {
                char *at = strstr(text.s, "\"frame\": 2,");
                assert_non_null(at);
                at[9] = '1'; /* frame 1 twice, in the first piece */
            }
            verdict v;
            memset(&v, 0, sizeof v);
            onescope_parse_options o = options_for(&v, every);
            failing x = {{(uint8_t *)text.s, text.n, 1024, 1024}, 0, 5};
            onescope_error e;
            onescope_code rc = onescope_os_ots_check_stream(ONESCOPE_OTS_ANM, text.s, 1024,
                                                            failing_more, &x, "s.anm", &o, &e);
            finish(&v, rc, &e);
            /* no reading after the failure; none at all when the first error ends it */
            assert_int_equal(x.calls, bad_first && !every ? 0 : 5);
            if (!bad_first) {
                assert_int_equal(rc, ONESCOPE_E_IO);
                assert_string_equal(v.line, "s.anm: cannot read");
            } else {
                assert_int_not_equal(rc, ONESCOPE_E_IO);
                assert_null(strstr(v.line, "cannot read"));
            }
            if (every) {
                /* the list ends with the read error, after the rule error when there is one */
                size_t want = bad_first ? 2 : 1;
                size_t lines = 0;
                for (size_t k = 0; k < v.all.n; k++) lines += v.all.s[k] == '\n';
                assert_int_equal(lines, want);
                assert_non_null(strstr(v.all.s, "s.anm: cannot read\n"));
            }
            verdict_free(&v);
            free(text.s);
        }
    }
    free(b.s);
}

/* The plain-text checks (a byte-order mark, UTF-16, text that is not JSON) look at the text's
 * start, which a stream must see whole however small its first piece. */
static void test_plain_text_starts(void **state) {
    (void)state;
    static const char *const starts[] = {
        "\xef\xbb\xbf{\"format\": \"octo_anm\"}",
        "\xff\xfe{\0\"\0}\0",
        "{\0\"\0}\0",
        "  \n x{\"format\": \"octo_anm\"}",
        "#{}",
    };
    static const size_t sizes[] = {27, 8, 6, 28, 3};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        const uint8_t *d = (const uint8_t *)starts[i];
        verdict whole, piece;
        parse_whole(ONESCOPE_OTS_ANM, d, sizes[i], "s.anm", false, &whole);
        assert_int_equal(whole.rc, ONESCOPE_E_SYNTAX);
        stream(ONESCOPE_OTS_ANM, d, sizes[i], 4096, "s.anm", false, &piece);
        same("the stream in 4 KiB pieces", starts[i], &whole, &piece);
        verdict_free(&piece);
        /* the same in 1-byte pieces: the byte-order mark and UTF-16 checks gather the first
         * three bytes from as many pieces as that takes */
        stream(ONESCOPE_OTS_ANM, d, sizes[i], 1, "s.anm", false, &piece);
        same("the stream in 1-byte pieces", starts[i], &whole, &piece);
        verdict_free(&piece);
        verdict_free(&whole);
    }
}

int main(void) {
    snprintf(scratch, sizeof scratch, "/tmp/onescope-ots-stream-%ld", (long)getpid());
    mkdir(scratch, 0700);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_matches_parse), cmocka_unit_test(test_big_clip),
        cmocka_unit_test(test_read_error),           cmocka_unit_test(test_plain_text_starts),
        cmocka_unit_test(test_convert_crafted),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/v.anm", scratch);
    unlink(path);
    snprintf(path, sizeof path, "%s/v.pvt", scratch);
    unlink(path);
    static const char *const made[] = {"c.anm", "mem.ospc", "file.ospc"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", scratch, made[i]);
        unlink(path);
    }
    rmdir(scratch);
    return rc;
}
