/* OSPC v1: every rule that makes a file invalid (code and offset), file order, limits,
 * round trips of generated caches, allocation failure everywhere, the replay-name rule. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pose_head.h"
#include "test_util.h"

/* ---- a small valid cache and where its fields sit ----
 * 3D, 2 entities, 3 frames, unit name "mm", replay "a.ostm"; entity 1 has id 77 and the
 * name "arm"; entity 1 is absent in frame 1. Layout of its bytes:
 *   36 unit name (len 2) 40 module id  42 library version  44 scene  46 replay (len 6)
 *   54 label  56 entity 0  82 entity 1 (name bytes 108..110)  111 poses (6 x 28)  279 end */
enum {
    T_UNIT = 36,
    T_MODULE = 40,
    T_LIBRARY = 42,
    T_SCENE = 44,
    T_REPLAY = 46,
    T_LABEL = 54,
    E0 = 56,
    E1 = 82,
    E1_NAME = 108,
    POSES = 111,
    END = 279
};

static const onescope_parse_options *no_options = NULL;

static onescope_pose_cache *make_cache(void) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 2, 3, NULL, &c, &err), ONESCOPE_OK);
    c->start_step = 100;
    c->metres_per_unit = 0.001;
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, "mm", 2, &err),
                     0);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, "a.ostm", 6, &err),
                     0);
    c->entities[0].shape = ONESCOPE_SHAPE_SPHERE;
    c->entities[0].size[0] = 50;
    c->entities[1].id = 77;
    c->entities[1].shape = ONESCOPE_SHAPE_CAPSULE;
    c->entities[1].size[0] = 10;
    c->entities[1].size[1] = 30;
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 1, "arm", 3, &err), 0);
    for (uint32_t f = 0; f < 3; f++)
        for (uint32_t e = 0; e < 2; e++) {
            onescope_pose *p = &c->poses[f * 2 + e];
            p->position[0] = (float)f;
            p->position[1] = (float)e;
            p->position[2] = 0.5f;
        }
    c->poses[1 * 2 + 1].position[0] = NAN;
    return c;
}

static onescope_buffer write_ok(const onescope_pose_cache *c) {
    onescope_buffer b;
    onescope_error err;
    onescope_code rc = onescope_pose_cache_write(c, NULL, &b, &err);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fail_msg("write failed: %s", line);
    }
    return b;
}

/* The small cache's bytes, in a malloc'd block with room to grow by `extra`. */
static uint8_t *small_file(size_t *size, size_t extra) {
    onescope_pose_cache *c = make_cache();
    onescope_buffer b = write_ok(c);
    assert_int_equal(b.size, END);
    uint8_t *p = calloc(1, b.size + extra + 1);
    assert_non_null(p);
    memcpy(p, b.data, b.size);
    *size = b.size;
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
    return p;
}

/* Parses and expects failure with code at offset; also checks *out is NULL and nothing
 * leaked, through a counting allocator. */
static void expect_parse_error(const uint8_t *data, size_t size, onescope_code code,
                               uint64_t offset, int line) {
    test_alloc t;
    test_alloc_init(&t, 0);
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = &t.allocator;
    onescope_pose_cache *c = (onescope_pose_cache *)&t; /* must be overwritten with NULL */
    onescope_error err;
    onescope_error_clear(&err);
    onescope_code rc = onescope_pose_cache_parse(data, size, "t.ospc", &o, &c, &err);
    if (rc != code) {
        char msg[512];
        onescope_error_format(&err, msg, sizeof msg);
        fail_msg("line %d: expected %s, got %s: %s", line, onescope_error_name(code),
                 onescope_error_name(rc), msg);
    }
    test_assert_error_at(&err, code, offset, __FILE__, line);
    assert_null(c);
    assert_int_equal(t.live, 0);
}
#define EXPECT(data, size, code, offset)                                                           \
    expect_parse_error((data), (size), (code), (offset), __LINE__)

static void expect_parse_ok(const uint8_t *data, size_t size) {
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = onescope_pose_cache_parse(data, size, "t.ospc", no_options, &c, &err);
    if (rc != ONESCOPE_OK) {
        char msg[512];
        onescope_error_format(&err, msg, sizeof msg);
        fail_msg("expected a valid file: %s", msg);
    }
    onescope_buffer b = write_ok(c);
    assert_int_equal(b.size, size);
    assert_memory_equal(b.data, data, size);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

static void put_f32(uint8_t *p, float v) {
    onescope_os_put_f32(p, v);
}
static void put_bits(uint8_t *p, uint32_t bits) {
    onescope_os_put_u32(p, bits);
}

/* ---- header ---- */

static void the_small_file_is_valid(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    assert_memory_equal(b, "OSPC", 4);
    assert_int_equal(onescope_os_get_u16(b + T_REPLAY), 6);
    assert_int_equal(onescope_os_get_u64(b + E1), 77);
    assert_int_equal(onescope_os_get_u16(b + E1_NAME - 2), 3);
    expect_parse_ok(b, n);
    free(b);
}

static void bad_magic(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    for (int i = 0; i < 4; i++) {
        uint8_t keep = b[i];
        b[i] = 'x';
        EXPECT(b, n, ONESCOPE_E_MAGIC, 0);
        b[i] = keep;
    }
    EXPECT((const uint8_t *)"OX", 2, ONESCOPE_E_MAGIC, 0);
    EXPECT((const uint8_t *)"OSP", 3, ONESCOPE_E_TRUNCATED, 0);
    EXPECT((const uint8_t *)"", 0, ONESCOPE_E_TRUNCATED, 0);
    EXPECT(NULL, 0, ONESCOPE_E_TRUNCATED, 0);
    free(b);
}

static void version_must_be_1(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    b[4] = 0;
    EXPECT(b, n, ONESCOPE_E_VERSION, 4);
    b[4] = 2;
    EXPECT(b, n, ONESCOPE_E_VERSION, 4);
    b[4] = 1;
    b[5] = 1; /* 257 */
    EXPECT(b, n, ONESCOPE_E_VERSION, 4);
    free(b);
}

static void flags_must_be_zero(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    b[6] = 3;
    onescope_pose_cache *d;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(b, n, "test.ospc", NULL, &d, &err),
                     ONESCOPE_E_FLAGS);
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "test.ospc: offset 6: flags: expected 0, found 3");
    EXPECT(b, n, ONESCOPE_E_FLAGS, 6);
    b[6] = 0;
    b[7] = 0x80;
    EXPECT(b, n, ONESCOPE_E_FLAGS, 6);
    free(b);
}

static void dimensions_2_or_3(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    const uint8_t bad[] = {0, 1, 4, 255};
    for (size_t i = 0; i < sizeof bad; i++) {
        b[8] = bad[i];
        EXPECT(b, n, ONESCOPE_E_RANGE, 8);
    }
    b[8] = 2; /* 2D is valid with the same poses (z is kept as written) */
    expect_parse_ok(b, n);
    free(b);
}

static void each_reserved_byte(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    for (size_t at = 9; at <= 11; at++) {
        b[at] = 1;
        EXPECT(b, n, ONESCOPE_E_RESERVED, at);
        b[at] = 0x80;
        EXPECT(b, n, ONESCOPE_E_RESERVED, at);
        b[at] = 0;
    }
    b[10] = 0;
    b[11] = 5; /* the high byte of the u16: reported at its own offset */
    EXPECT(b, n, ONESCOPE_E_RESERVED, 11);
    free(b);
}

static void entity_count_range(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_u32(b + 12, 0);
    EXPECT(b, n, ONESCOPE_E_RANGE, 12);
    onescope_os_put_u32(b + 12, 65537);
    EXPECT(b, n, ONESCOPE_E_RANGE, 12);
    onescope_os_put_u32(b + 12, UINT32_MAX);
    EXPECT(b, n, ONESCOPE_E_RANGE, 12);
    onescope_os_put_u32(b + 12, 65536); /* in range, but the file cannot hold it */
    EXPECT(b, n, ONESCOPE_E_TRUNCATED, 12);
    free(b);
}

static void frame_count_range(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_u32(b + 16, 0);
    EXPECT(b, n, ONESCOPE_E_RANGE, 16);
    onescope_os_put_u32(b + 16, 4194305);
    EXPECT(b, n, ONESCOPE_E_RANGE, 16);
    onescope_os_put_u32(b + 16, 4194304);
    EXPECT(b, n, ONESCOPE_E_TRUNCATED, 16);
    free(b);
}

static void start_step_not_negative(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_u64(b + 20, UINT64_MAX); /* -1 */
    EXPECT(b, n, ONESCOPE_E_RANGE, 20);
    onescope_os_put_u64(b + 20, 0x8000000000000000u); /* INT64_MIN */
    EXPECT(b, n, ONESCOPE_E_RANGE, 20);
    /* Its 3 frames are steps start..start + 2: the last one must fit int64_t too. */
    onescope_os_put_u64(b + 20, INT64_MAX);
    EXPECT(b, n, ONESCOPE_E_RANGE, 20);
    onescope_os_put_u64(b + 20, INT64_MAX - 1);
    EXPECT(b, n, ONESCOPE_E_RANGE, 20);
    onescope_os_put_u64(b + 20, INT64_MAX - 2);
    expect_parse_ok(b, n);
    onescope_os_put_u64(b + 20, 0);
    expect_parse_ok(b, n);
    free(b);
}

/* The step rule: frame k is step start + k, so start + frames - 1 must fit int64_t. The
 * writer, the validator, the parser, the push validator and recover's partial scan all
 * apply it (one copy: onescope_os_ospc_steps_fit). */
static void last_step_fits_int64(void **state) {
    (void)state;
    assert_true(onescope_os_ospc_steps_fit(INT64_MAX, 1));
    assert_true(onescope_os_ospc_steps_fit(INT64_MAX - 1, 2));
    assert_false(onescope_os_ospc_steps_fit(INT64_MAX, 2));
    assert_false(onescope_os_ospc_steps_fit(INT64_MAX - 2, 4));
    assert_false(onescope_os_ospc_steps_fit(0, 0));
    assert_false(onescope_os_ospc_steps_fit(-1, 1));
    assert_true(onescope_os_ospc_steps_fit(0, UINT64_MAX / 2 + 1));
    assert_false(onescope_os_ospc_steps_fit(1, UINT64_MAX / 2 + 1));
    onescope_pose_cache *c = make_cache(); /* 3 frames */
    onescope_error err;
    onescope_buffer out;
    c->start_step = INT64_MAX - 1;
    assert_int_equal(onescope_pose_cache_validate(c, "c", &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 20);
    assert_string_equal(err.field, "start step");
    assert_int_equal(onescope_pose_cache_write(c, NULL, &out, &err), ONESCOPE_E_RANGE);
    c->start_step = INT64_MAX - 2;
    onescope_buffer b = write_ok(c);
    onescope_pose_cache *back;
    assert_int_equal(onescope_pose_cache_parse(b.data, b.size, "t", NULL, &back, &err),
                     ONESCOPE_OK);
    assert_true(back->start_step + ((int64_t)back->frame_count - 1) == INT64_MAX);
    onescope_pose_cache_free(back);
    onescope_os_put_u64(b.data + 20, INT64_MAX);
    EXPECT(b.data, b.size, ONESCOPE_E_RANGE, 20);
    /* The streamed validator (what validate and diff read files through). */
    test_write_file("steps.ospc", b.data, b.size);
    onescope_format fmt;
    assert_int_equal(onescope_file_validate("steps.ospc", NULL, &fmt, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 20);
    /* A partial whose 3 complete frames pass the top: refused whole, not cut to 1. */
    onescope_os_put_u32(b.data + 16, ONESCOPE_OS_OSPC_PARTIAL_MARK);
    onescope_os_put_u64(b.data + 20, INT64_MAX - 1);
    test_write_file("steps.ospc.partial", b.data, b.size);
    uint64_t kept = 9;
    assert_int_equal(
        onescope_pose_cache_recover("steps.ospc.partial", "steps-out.ospc", NULL, &kept, &err),
        ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 20);
    assert_int_equal(kept, 0);
    assert_int_equal(access("steps-out.ospc", F_OK), -1);
    onescope_os_put_u64(b.data + 20, INT64_MAX - 2);
    test_write_file("steps.ospc.partial", b.data, b.size);
    assert_int_equal(
        onescope_pose_cache_recover("steps.ospc.partial", "steps-out.ospc", NULL, &kept, &err),
        ONESCOPE_OK);
    assert_int_equal(kept, 3);
    remove("steps.ospc");
    remove("steps.ospc.partial");
    remove("steps-out.ospc");
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

static void metres_per_unit_rules(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_f64(b + 28, NAN);
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, 28);
    onescope_os_put_u64(b + 28, 0xFFF0000000000001u); /* a negative signalling NaN */
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, 28);
    onescope_os_put_f64(b + 28, INFINITY);
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, 28);
    onescope_os_put_f64(b + 28, -INFINITY);
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, 28);
    onescope_os_put_f64(b + 28, -1.0);
    EXPECT(b, n, ONESCOPE_E_RANGE, 28);
    onescope_os_put_u64(b + 28, 0x8000000000000001u); /* the smallest negative subnormal */
    EXPECT(b, n, ONESCOPE_E_RANGE, 28);
    onescope_os_put_f64(b + 28, 0.0);
    expect_parse_ok(b, n);
    onescope_os_put_f64(b + 28, -0.0); /* accepted as zero, and written back as -0.0 */
    expect_parse_ok(b, n);
    onescope_os_put_u64(b + 28, 1); /* the smallest positive subnormal */
    expect_parse_ok(b, n);
    onescope_os_put_f64(b + 28, 1e300);
    expect_parse_ok(b, n);
    free(b);
}

/* ---- texts ---- */

static void each_text_length_1025(void **state) {
    (void)state;
    const size_t at[ONESCOPE_POSE_TEXT_COUNT] = {T_UNIT,  T_MODULE, T_LIBRARY,
                                                 T_SCENE, T_REPLAY, T_LABEL};
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        size_t n;
        uint8_t *b = small_file(&n, 0);
        onescope_os_put_u16(b + at[i], 1025);
        EXPECT(b, n, ONESCOPE_E_RANGE, at[i]);
        onescope_os_put_u16(b + at[i], 0xFFFF);
        EXPECT(b, n, ONESCOPE_E_RANGE, at[i]);
        free(b);
    }
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_u16(b + E1_NAME - 2, 1025);
    EXPECT(b, n, ONESCOPE_E_RANGE, E1_NAME - 2);
    onescope_os_put_u16(b + E0 + 24, 1025);
    EXPECT(b, n, ONESCOPE_E_RANGE, E0 + 24);
    free(b);
}

/* A cache whose texts and names are exactly 1024 bytes, some of them multi-byte. */
static void texts_of_1024_bytes_are_valid(void **state) {
    (void)state;
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(2, 2, 1, NULL, &c, &err), ONESCOPE_OK);
    char text[1025];
    for (int i = 0; i < 1024; i += 4) memcpy(text + i, "\xF0\x9F\x98\x80", 4); /* U+1F600 */
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++)
        assert_int_equal(onescope_pose_cache_set_text(c, i, text, 1024, &err), ONESCOPE_OK);
    memset(text, 'n', 1024);
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 1, text, 1024, &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 0, text, 1025, &err), ONESCOPE_E_RANGE);
    onescope_buffer b = write_ok(c);
    expect_parse_ok(b.data, b.size);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

static void invalid_utf8_in_text_and_name(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    b[T_UNIT + 2] = 0xFF;
    EXPECT(b, n, ONESCOPE_E_UTF8, T_UNIT + 2);
    b[T_UNIT + 2] = 'm';
    b[T_UNIT + 3] = 0xC3; /* a two-byte sequence cut by the end of the text */
    EXPECT(b, n, ONESCOPE_E_UTF8, T_UNIT + 3);
    b[T_UNIT + 3] = 'm';
    b[T_REPLAY + 2 + 5] = 0x80; /* a lone continuation byte */
    EXPECT(b, n, ONESCOPE_E_UTF8, T_REPLAY + 7);
    b[T_REPLAY + 7] = 'm';
    /* entity name "arm": overlong, surrogate, beyond U+10FFFF, bad continuation */
    const char *bad[] = {"\xC0\x80x", "\xED\xA0\x80", "\xF4\x90\x80", "a\xE2(", "ab\xF5"};
    const size_t at[] = {0, 0, 0, 1, 2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(b + E1_NAME, bad[i], 3);
        EXPECT(b, n, ONESCOPE_E_UTF8, E1_NAME + at[i]);
    }
    memcpy(b + E1_NAME, "\xC3\xA9z", 3); /* "éz" is fine */
    expect_parse_ok(b, n);
    free(b);
}

/* ---- entities ---- */

static void entity_id_zero_and_duplicates(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_os_put_u64(b + E0, 0);
    EXPECT(b, n, ONESCOPE_E_RANGE, E0);
    onescope_os_put_u64(b + E0, 1);
    onescope_os_put_u64(b + E1, 0);
    EXPECT(b, n, ONESCOPE_E_RANGE, E1);
    onescope_os_put_u64(b + E1, 1);
    EXPECT(b, n, ONESCOPE_E_DUPLICATE, E1);
    onescope_os_put_u64(b + E0, UINT64_MAX);
    onescope_os_put_u64(b + E1, UINT64_MAX);
    EXPECT(b, n, ONESCOPE_E_DUPLICATE, E1);
    onescope_os_put_u64(b + E1, UINT64_MAX - 1);
    expect_parse_ok(b, n);
    free(b);
}

static void shape_up_to_3(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    for (unsigned s = 0; s <= 3; s++) {
        b[E0 + 8] = (uint8_t)s;
        expect_parse_ok(b, n);
    }
    b[E0 + 8] = 4;
    EXPECT(b, n, ONESCOPE_E_RANGE, E0 + 8);
    b[E0 + 8] = 255;
    EXPECT(b, n, ONESCOPE_E_RANGE, E0 + 8);
    b[E0 + 8] = 1;
    b[E1 + 8] = 4;
    EXPECT(b, n, ONESCOPE_E_RANGE, E1 + 8);
    free(b);
}

static void each_padding_byte(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    const size_t base[] = {E0, E1};
    for (int e = 0; e < 2; e++)
        for (size_t k = 9; k < 12; k++) {
            b[base[e] + k] = 1;
            EXPECT(b, n, ONESCOPE_E_RESERVED, base[e] + k);
            b[base[e] + k] = 0;
        }
    free(b);
}

static void sizes_must_be_finite(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    const uint32_t bad[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u, 0xFFFFFFFFu};
    for (int k = 0; k < 3; k++) {
        size_t at = E1 + 12 + 4 * (size_t)k;
        uint32_t keep = onescope_os_get_u32(b + at);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            put_bits(b + at, bad[i]);
            EXPECT(b, n, ONESCOPE_E_NOT_FINITE, at);
        }
        put_f32(b + at, -5.0f); /* sizes only need to be finite */
        expect_parse_ok(b, n);
        put_bits(b + at, 0x80000000u); /* -0.0 */
        expect_parse_ok(b, n);
        put_bits(b + at, keep);
    }
    free(b);
}

/* ---- poses ---- */

static void pose_section_length(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 1);
    EXPECT(b, n - 1, ONESCOPE_E_TRUNCATED, POSES);
    EXPECT(b, n - 2, ONESCOPE_E_TRUNCATED, POSES);
    /* 28 bytes short is more than the texts and names hold: the counts show it */
    EXPECT(b, n - 28, ONESCOPE_E_TRUNCATED, 16);
    EXPECT(b, n + 1, ONESCOPE_E_TRAILING, END);
    /* With empty texts and names the counts alone show a short file: reported at the frame
     * count, where that becomes known. */
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 2, 2, NULL, &c, &err), ONESCOPE_OK);
    onescope_buffer w = write_ok(c);
    assert_int_equal(w.size, 36 + 12 + 2 * 26 + 4 * 28);
    EXPECT(w.data, w.size - 1, ONESCOPE_E_TRUNCATED, 16);
    onescope_buffer_free(&w);
    onescope_pose_cache_free(c);
    free(b);
}

static void every_non_finite_pose_value(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    const uint32_t bad[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u,
                            0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu};
    for (size_t pose = 0; pose < 6; pose++) {
        if (pose == 3) continue; /* frame 1 entity 1 is absent */
        for (size_t k = 0; k < 7; k++) {
            size_t at = POSES + pose * 28 + 4 * k;
            uint32_t keep = onescope_os_get_u32(b + at);
            for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                if (k == 0 && (bad[i] & 0x7FFFFFu) != 0) continue; /* NaN x: absent */
                put_bits(b + at, bad[i]);
                EXPECT(b, n, ONESCOPE_E_NOT_FINITE, at);
            }
            put_bits(b + at, keep);
        }
    }
    free(b);
}

/* 7 entities x 9 frames: 63 poses cross every path of the value check (groups of 16 poses,
 * fours, single poses). With absent entities among them, every group holds a NaN and takes
 * the exact test; without, the quick one. A non-finite value at any pose and place is found
 * at its own offset either way. */
static void non_finite_found_in_long_runs(void **state) {
    (void)state;
    for (int absent = 0; absent < 2; absent++) {
        onescope_pose_cache *c;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_create(3, 7, 9, NULL, &c, &err), ONESCOPE_OK);
        for (uint32_t i = 0; i < 63; i++) {
            c->poses[i].position[0] = (float)i;
            c->poses[i].rotation[3] = 1.0f;
            if (absent && i % 5 == 2) c->poses[i].position[0] = NAN;
        }
        onescope_buffer w = write_ok(c);
        size_t poses_at = w.size - 63 * 28;
        uint8_t *b = w.data;
        if (absent) /* an absent pose's other values are ignored, infinities too */
            for (size_t i = 2; i < 63; i += 5) put_bits(b + poses_at + 28 * i + 8, 0x7F800000u);
        expect_parse_ok(b, w.size);
        for (size_t i = 0; i < 63; i++) {
            if (absent && i % 5 == 2) continue;
            for (size_t k = 0; k < 7; k++) {
                size_t at = poses_at + 28 * i + 4 * k;
                uint32_t keep = onescope_os_get_u32(b + at);
                put_bits(b + at, k % 2 ? 0xFF800000u : 0x7F800000u);
                EXPECT(b, w.size, ONESCOPE_E_NOT_FINITE, at);
                put_bits(b + at, keep);
            }
        }
        onescope_buffer_free(&w);
        onescope_pose_cache_free(c);
    }
}

static void absent_entity_ignores_the_rest(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FBFFFFFu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        put_bits(b + POSES, nans[i]); /* frame 0 entity 0 absent */
        for (size_t k = 1; k < 7; k++)
            put_bits(b + POSES + 4 * k, i % 2 ? 0xFF800000u : 0x7FC12345u + (uint32_t)k);
        expect_parse_ok(b, n); /* also proves the ignored bits come back exactly */
        onescope_pose_cache *c;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_parse(b, n, "t", NULL, &c, &err), ONESCOPE_OK);
        assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 0, 0)));
        assert_int_equal(onescope_pose_cache_next_present(c, 0, 0), 1);
        onescope_pose_cache_free(c);
    }
    put_bits(b + POSES, 0x7F800000u); /* +inf x is not absence */
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, POSES);
    free(b);
}

/* ---- file order: the first bad byte is the one reported ---- */

static void first_bad_byte_wins(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 1);
    b[E1 + 8] = 9; /* bad shape */
    b[E1 + 9] = 1; /* and bad padding after it */
    put_bits(b + E1 + 12, 0x7F800000u);
    EXPECT(b, n, ONESCOPE_E_RANGE, E1 + 8);
    onescope_os_put_u64(b + E1, 1); /* a duplicate id comes before the shape */
    EXPECT(b, n, ONESCOPE_E_DUPLICATE, E1);
    b[T_LABEL - 1] = 0xFF; /* bad UTF-8 in the replay text comes first of all */
    EXPECT(b, n + 1, ONESCOPE_E_UTF8, T_LABEL - 1);
    free(b);
    b = small_file(&n, 1);
    put_bits(b + POSES + 28 * 5 + 8, 0x7F800000u); /* a bad pose value before trailing bytes */
    EXPECT(b, n + 1, ONESCOPE_E_NOT_FINITE, POSES + 28 * 5 + 8);
    put_bits(b + POSES + 28 * 2 + 4, 0xFF800000u); /* the earlier of two bad pose values */
    EXPECT(b, n, ONESCOPE_E_NOT_FINITE, POSES + 28 * 2 + 4);
    free(b);
}

/* ---- truncation and limits ---- */

static void every_prefix_fails_cleanly(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    for (size_t len = 0; len < n; len++) {
        uint8_t *p = malloc(len + 1); /* an exact-size copy so ASan sees any over-read */
        assert_non_null(p);
        memcpy(p, b, len);
        test_alloc t;
        test_alloc_init(&t, 0);
        onescope_parse_options o = onescope_parse_options_default();
        o.allocator = &t.allocator;
        onescope_pose_cache *c = NULL;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_parse(p, len, "t", &o, &c, &err),
                         ONESCOPE_E_TRUNCATED);
        assert_true(err.has_offset);
        assert_true(err.offset <= len);
        assert_null(c);
        assert_int_equal(t.live, 0);
        free(p);
    }
    free(b);
}

static void input_over_the_limit(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    onescope_parse_options o = onescope_parse_options_default();
    assert_true(o.max_input_bytes == (size_t)256 * 1024 * 1024);
    o.max_input_bytes = n - 1;
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(b, n, "t", &o, &c, &err), ONESCOPE_E_TOO_LARGE);
    assert_error_at(err, ONESCOPE_E_TOO_LARGE, n - 1); /* the first byte past the limit */
    assert_null(c);
    o.max_input_bytes = n;
    assert_int_equal(onescope_pose_cache_parse(b, n, "t", &o, &c, &err), ONESCOPE_OK);
    onescope_pose_cache_free(c);
    /* a zeroed struct is the defaults: 0 means 256 MiB, a NULL allocator libc */
    onescope_parse_options zero;
    memset(&zero, 0, sizeof zero);
    assert_true(onescope_os_input_limit(&zero) == ONESCOPE_MAX_INPUT_BYTES);
    assert_true(onescope_os_input_limit(NULL) == ONESCOPE_MAX_INPUT_BYTES);
    assert_int_equal(onescope_pose_cache_parse(b, n, "t", &zero, &c, &err), ONESCOPE_OK);
    assert_null(c->allocator);
    onescope_pose_cache_free(c);
    assert_int_equal(onescope_os_check_input_size(ONESCOPE_MAX_INPUT_BYTES + 1, &zero, "t", &err),
                     ONESCOPE_E_TOO_LARGE);
    assert_error_at(err, ONESCOPE_E_TOO_LARGE, ONESCOPE_MAX_INPUT_BYTES);
    free(b);
}

static void huge_counts_fail_before_any_allocation(void **state) {
    (void)state;
    uint8_t b[200];
    memset(b, 0, sizeof b);
    memcpy(b, "OSPC\x01\x00\x00\x00\x03", 9);
    const uint32_t counts[][2] = {
        {65536, 4194304}, {65536, 4194304}, {1, 4194304}, {65536, 1}, {2, 2}};
    const uint64_t at[] = {12, 12, 16, 12, 16};
    const size_t sizes[] = {100, 200, 200, 200, 200};
    for (size_t i = 0; i < 5; i++) {
        onescope_os_put_u32(b + 12, counts[i][0]);
        onescope_os_put_u32(b + 16, counts[i][1]);
        test_alloc t;
        test_alloc_init(&t, 0);
        onescope_parse_options o = onescope_parse_options_default();
        o.allocator = &t.allocator;
        onescope_pose_cache *c = NULL;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_parse(b, sizes[i], "t", &o, &c, &err),
                         ONESCOPE_E_TRUNCATED);
        assert_error_at(err, ONESCOPE_E_TRUNCATED, at[i]);
        assert_int_equal(t.count, 0);
        assert_null(c);
    }
    /* 1 x 1 needs 36 + 12 + 26 + 28 = 102 bytes: 100 are too few, known at the entity count */
    onescope_os_put_u32(b + 12, 1);
    onescope_os_put_u32(b + 16, 1);
    EXPECT(b, 100, ONESCOPE_E_TRUNCATED, 12);
    b[36 + 12] = 1; /* entity id 1; with everything else zero, 102 bytes are a valid cache */
    expect_parse_ok(b, 102);
    onescope_os_put_u16(b + 36 + 12 + 24, 1); /* a one-byte name leaves the poses one byte short */
    EXPECT(b, 102, ONESCOPE_E_TRUNCATED, 36 + 12 + 26 + 1);
}

/* ---- round trips of generated caches ---- */

/* A random text into text field `which`, or (which < 0) into the name of entity `entity`. */
static void rand_text(onescope_pose_cache *c, int which, uint32_t entity, uint64_t *rs) {
    static const char *const pieces[] = {
        "a", "Z", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x00", ".", "/"};
    static const size_t piece_len[] = {1, 1, 1, 2, 3, 4, 1, 1, 1};
    char buf[1024];
    size_t n = 0, want;
    uint64_t r = test_rand(rs) % 4;
    want = r == 0 ? 0 : r == 1 ? 1024 : (size_t)(test_rand(rs) % 40);
    while (n < want) {
        size_t k = (size_t)(test_rand(rs) % 9);
        if (n + piece_len[k] > want) k = 0;
        memcpy(buf + n, pieces[k], piece_len[k]);
        n += piece_len[k];
    }
    onescope_error err;
    onescope_code rc =
        which >= 0 ? onescope_pose_cache_set_text(c, (onescope_pose_text_field)which, buf, n, &err)
                   : onescope_pose_cache_set_entity_name(c, entity, buf, n, &err);
    assert_int_equal(rc, ONESCOPE_OK);
}

static float rand_float(uint64_t *rs) {
    switch (test_rand(rs) % 6) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return FLT_MAX;
        case 3: return -1.17549435e-38f / 4; /* subnormal */
        default: return (float)((double)(int64_t)(test_rand(rs) % 2000001) - 1000000.0) / 7.0f;
    }
}

static onescope_pose_cache *rand_cache(uint64_t *rs) {
    uint8_t dims = (uint8_t)(2 + test_rand(rs) % 2);
    uint32_t entities = (uint32_t)(1 + test_rand(rs) % 9),
             frames = (uint32_t)(1 + test_rand(rs) % 7);
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(dims, entities, frames, NULL, &c, &err),
                     ONESCOPE_OK);
    c->start_step = test_rand(rs) % 3 == 0 ? INT64_MAX - (int64_t)(frames - 1)
                                           : (int64_t)(test_rand(rs) % 100000);
    uint64_t m = test_rand(rs) % 4;
    c->metres_per_unit = m == 0 ? 0.0 : m == 1 ? -0.0 : (double)(test_rand(rs) % 1000) / 1000.0;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) rand_text(c, i, 0, rs);
    for (uint32_t i = 0; i < entities; i++) {
        onescope_pose_entity *e = &c->entities[i];
        e->id = test_rand(rs) | 1u; /* odd, so not 0; duplicates are vanishingly unlikely */
        e->id ^= (uint64_t)i << 1;
        e->shape = (uint8_t)(test_rand(rs) % 4);
        for (int k = 0; k < 3; k++) e->size[k] = rand_float(rs);
        rand_text(c, -1, i, rs);
    }
    for (size_t i = 0; i < (size_t)entities * frames; i++) {
        onescope_pose *p = &c->poses[i];
        for (int k = 0; k < 3; k++) p->position[k] = rand_float(rs);
        for (int k = 0; k < 4; k++) p->rotation[k] = test_rand(rs) % 5 == 0 ? 0.0f : rand_float(rs);
        if (test_rand(rs) % 4 == 0) { /* absent, junk in the ignored floats */
            uint32_t bits[7];
            bits[0] = 0x7F800001u | (uint32_t)(test_rand(rs) & 0x807FFFFFu);
            for (int k = 1; k < 7; k++) bits[k] = (uint32_t)test_rand(rs);
            memcpy(p, bits, sizeof bits);
        }
    }
    return c;
}

static void assert_caches_equal(const onescope_pose_cache *a, const onescope_pose_cache *b) {
    assert_int_equal(a->dimensions, b->dimensions);
    assert_int_equal(a->entity_count, b->entity_count);
    assert_int_equal(a->frame_count, b->frame_count);
    assert_true(a->start_step == b->start_step);
    assert_memory_equal(&a->metres_per_unit, &b->metres_per_unit, sizeof(double));
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        assert_int_equal(a->text[i].length, b->text[i].length);
        assert_memory_equal(a->text[i].data, b->text[i].data, a->text[i].length + 1u);
    }
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const onescope_pose_entity *x = &a->entities[i], *y = &b->entities[i];
        assert_true(x->id == y->id);
        assert_int_equal(x->shape, y->shape);
        assert_memory_equal(x->size, y->size, sizeof x->size);
        assert_int_equal(x->name.length, y->name.length);
        assert_memory_equal(x->name.data, y->name.data, x->name.length + 1u);
    }
    assert_memory_equal(a->poses, b->poses,
                        (size_t)a->entity_count * a->frame_count * sizeof *a->poses);
}

static void generated_round_trips(void **state) {
    (void)state;
    uint64_t rs = 12345;
    for (int iter = 0; iter < 300; iter++) {
        onescope_pose_cache *c = rand_cache(&rs);
        onescope_buffer b = write_ok(c);
        onescope_pose_cache *d;
        onescope_error err;
        assert_int_equal(onescope_pose_cache_parse(b.data, b.size, "rt", NULL, &d, &err),
                         ONESCOPE_OK);
        assert_caches_equal(c, d);
        onescope_buffer b2 = write_ok(d);
        assert_int_equal(b.size, b2.size);
        assert_memory_equal(b.data, b2.data, b.size);
        onescope_buffer_free(&b);
        onescope_buffer_free(&b2);
        onescope_pose_cache_free(c);
        onescope_pose_cache_free(d);
    }
}

/* onescope_pose_cache_head_size is where the written file's first pose starts: for a cache
 * with every text and entity name set (lengths 0 to 1024, multi-byte characters), and for
 * every generated cache. */
static void head_size_is_the_written_head(void **state) {
    (void)state;
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 5, 4, NULL, &c, &err), ONESCOPE_OK);
    static char long_text[1024];
    memset(long_text, 'x', sizeof long_text);
    const char *texts[ONESCOPE_POSE_TEXT_COUNT] = {
        "mm", "test-module", "1.2.3", "scene \xC3\xA9t\xC3\xA9", "run.ostm", NULL};
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++)
        assert_int_equal(onescope_pose_cache_set_text(c, (onescope_pose_text_field)i,
                                                      texts[i] ? texts[i] : long_text,
                                                      texts[i] ? strlen(texts[i]) : 1024, &err),
                         ONESCOPE_OK); /* the label is the 1024-byte one */
    const char *names[5] = {"", "body 1", "\xE2\x82\xAC", "\xF0\x9F\x98\x80 four", NULL};
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(onescope_pose_cache_set_entity_name(c, i, names[i] ? names[i] : long_text,
                                                             names[i] ? strlen(names[i]) : 1000,
                                                             &err),
                         ONESCOPE_OK);
    for (uint32_t f = 0; f < 4; f++)
        for (uint32_t e = 0; e < 5; e++) {
            onescope_pose p = {{(float)f, (float)e, 7.0f}, {0, 0, 0, 1}};
            assert_int_equal(onescope_pose_cache_set_pose(c, f, e, &p, &err), ONESCOPE_OK);
        }
    uint64_t head = 0;
    assert_int_equal(onescope_pose_cache_head_size(c, &head, &err), ONESCOPE_OK);
    /* 36 fixed, 6 texts (2 each + 2, 11, 5, 11, 8, 1024), 5 entities (26 each + 0, 6, 3, 9,
     * 1000) */
    assert_int_equal(head, 36 + 12 + 2 + 11 + 5 + 11 + 8 + 1024 + 5 * 26 + 6 + 3 + 9 + 1000);
    onescope_buffer b = write_ok(c);
    assert_int_equal(b.size, head + 4 * 5 * ONESCOPE_OSPC_POSE_BYTES);
    uint8_t first[ONESCOPE_OSPC_POSE_BYTES]; /* frame 0 entity 0 starts right after the head */
    onescope_os_ospc_put_poses(first, onescope_pose_cache_pose(c, 0, 0), 1);
    assert_memory_equal(b.data + head, first, sizeof first);
    onescope_buffer_free(&b);
    /* Counts and lengths only: a cache the writer refuses (shape 9) still has a head size. */
    c->entities[1].shape = 9;
    uint64_t again = 0;
    assert_int_equal(onescope_pose_cache_head_size(c, &again, &err), ONESCOPE_OK);
    assert_int_equal(again, head);
    /* What it refuses. */
    again = 5;
    assert_int_equal(onescope_pose_cache_head_size(NULL, &again, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    assert_int_equal(again, 0);
    assert_int_equal(onescope_pose_cache_head_size(c, NULL, NULL), ONESCOPE_E_ARGUMENT);
    onescope_pose_entity *kept = c->entities;
    c->entities = NULL;
    assert_int_equal(onescope_pose_cache_head_size(c, &again, &err), ONESCOPE_E_ARGUMENT);
    c->entities = kept;
    onescope_pose_cache_free(c);

    uint64_t rs = 777;
    for (int iter = 0; iter < 200; iter++) {
        c = rand_cache(&rs);
        assert_int_equal(onescope_pose_cache_head_size(c, &head, &err), ONESCOPE_OK);
        b = write_ok(c);
        assert_int_equal(b.size, head + (uint64_t)c->frame_count * c->entity_count *
                                            ONESCOPE_OSPC_POSE_BYTES);
        onescope_buffer_free(&b);
        onescope_pose_cache_free(c);
    }
}

/* ---- allocation failure at every site (test_alloc_walk: each refusal NOMEM, no leak) ---- */

typedef struct bytes_ctx {
    const uint8_t *data;
    size_t size;
} bytes_ctx;

static onescope_code parse_fn(const onescope_allocator *a, void *ctx) {
    const bytes_ctx *in = ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_pose_cache *d = (onescope_pose_cache *)ctx; /* must be overwritten */
    onescope_error err;
    onescope_code rc = onescope_pose_cache_parse(in->data, in->size, "a", &o, &d, &err);
    if (rc == ONESCOPE_OK) {
        assert_ptr_equal(d->allocator, a);
        onescope_pose_cache_free(d);
    } else {
        assert_int_equal(err.code, rc);
        assert_null(d);
    }
    return rc;
}

static void parse_allocation_failure(void **state) {
    (void)state;
    size_t n;
    uint8_t *b = small_file(&n, 0);
    bytes_ctx in = {b, n};
    /* id set, cache, entities, poses, 6 texts, 2 names */
    assert_int_equal(test_alloc_walk(parse_fn, &in), 12);
    free(b);
}

typedef struct write_ctx {
    onescope_pose_cache *cache;
    onescope_buffer ref;
} write_ctx;

static onescope_code write_fn(const onescope_allocator *a, void *ctx) {
    write_ctx *w = ctx;
    w->cache->allocator = a; /* the validator's id set */
    onescope_buffer out = {(uint8_t *)w, 99, NULL};
    onescope_error err;
    onescope_code rc = onescope_pose_cache_write(w->cache, a, &out, &err);
    w->cache->allocator = NULL;
    if (rc == ONESCOPE_OK) {
        assert_int_equal(out.size, w->ref.size);
        assert_memory_equal(out.data, w->ref.data, w->ref.size);
        onescope_buffer_free(&out);
    } else {
        assert_int_equal(err.code, rc);
        assert_null(out.data);
        assert_int_equal(out.size, 0);
    }
    return rc;
}

static void write_allocation_failure(void **state) {
    (void)state;
    write_ctx w;
    w.cache = make_cache();
    w.ref = write_ok(w.cache);
    assert_int_equal(test_alloc_walk(write_fn, &w), 2); /* id set, output buffer */
    onescope_buffer_free(&w.ref);
    onescope_pose_cache_free(w.cache);
}

/* A refused setter keeps the old text: checked on the field the setter was replacing. */
static void expect_text_kept(onescope_code rc, const onescope_text *t, const char *old,
                             const char *want) {
    if (rc == ONESCOPE_OK) {
        assert_string_equal(t->data, want);
    } else {
        assert_int_equal(rc, ONESCOPE_E_NOMEM);
        assert_ptr_equal(t->data, old);
        assert_int_equal(t->length, 0);
    }
}

static onescope_code create_and_set_fn(const onescope_allocator *a, void *ctx) {
    onescope_pose_cache *c = (onescope_pose_cache *)ctx; /* must be overwritten */
    onescope_error err;
    onescope_code rc = onescope_pose_cache_create(2, 3, 4, a, &c, &err);
    if (rc != ONESCOPE_OK) {
        assert_int_equal(err.code, rc);
        assert_null(c);
        return rc;
    }
    onescope_text *scene = &c->text[ONESCOPE_POSE_TEXT_SCENE];
    const char *old = scene->data;
    rc = onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_SCENE, "scene", 5, &err);
    expect_text_kept(rc, scene, old, "scene");
    if (rc == ONESCOPE_OK) {
        onescope_text *name = &c->entities[2].name;
        old = name->data;
        rc = onescope_pose_cache_set_entity_name(c, 2, "arm", 3, &err);
        expect_text_kept(rc, name, old, "arm");
    }
    onescope_pose_cache_free(c);
    return rc;
}

static void create_and_set_text_allocation_failure(void **state) {
    (void)state;
    /* create: cache, entities, poses, 6 texts, 3 names; then one block per setter */
    assert_int_equal(test_alloc_walk(create_and_set_fn, NULL), 12 + 2);
}

/* ---- the writer refuses what the parser refuses, at the same offsets ---- */

static void expect_write_error(onescope_pose_cache *c, onescope_code code, uint64_t offset,
                               int line) {
    onescope_buffer out = {(uint8_t *)c, 1, NULL};
    onescope_error err;
    onescope_code rc = onescope_pose_cache_write(c, NULL, &out, &err);
    if (rc != code) fail_msg("line %d: writer returned %s", line, onescope_error_name(rc));
    test_assert_error_at(&err, code, offset, __FILE__, line);
    assert_null(out.data);
    /* and the same check through validate, under the caller's name */
    assert_int_equal(onescope_pose_cache_validate(c, "x", &err), code);
    assert_string_equal(err.input, "x");
}
#define EXPECT_WRITE(c, code, offset) expect_write_error((c), (code), (offset), __LINE__)

static void writer_refuses_invalid_caches(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    onescope_error err;
    c->dimensions = 4;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, 8);
    c->dimensions = 3;
    c->entity_count = 0;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, 12);
    c->entity_count = 2;
    c->frame_count = 0;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, 16);
    c->frame_count = 3;
    c->start_step = -1;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, 20);
    c->start_step = 0;
    c->metres_per_unit = NAN;
    EXPECT_WRITE(c, ONESCOPE_E_NOT_FINITE, 28);
    c->metres_per_unit = -INFINITY;
    EXPECT_WRITE(c, ONESCOPE_E_NOT_FINITE, 28);
    c->metres_per_unit = -2;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, 28);
    c->metres_per_unit = -0.0;
    onescope_buffer b = write_ok(c);
    onescope_buffer_free(&b);

    /* text too long: bypass set_text, which refuses it too */
    char *big = calloc(1, 1026);
    assert_non_null(big);
    memset(big, 'x', 1025);
    onescope_text keep = c->text[ONESCOPE_POSE_TEXT_LABEL];
    c->text[ONESCOPE_POSE_TEXT_LABEL].data = big;
    c->text[ONESCOPE_POSE_TEXT_LABEL].length = 1025;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, T_LABEL);
    c->text[ONESCOPE_POSE_TEXT_LABEL].length = 3;
    big[1] = (char)0xFF;
    EXPECT_WRITE(c, ONESCOPE_E_UTF8, T_LABEL + 3);
    c->text[ONESCOPE_POSE_TEXT_LABEL].data = NULL;
    EXPECT_WRITE(c, ONESCOPE_E_ARGUMENT, T_LABEL + 2);
    c->text[ONESCOPE_POSE_TEXT_LABEL] = keep;
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, big, 3, &err),
                     ONESCOPE_E_UTF8);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, big, 1025, &err),
                     ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 0, big, 3, &err), ONESCOPE_E_UTF8);
    assert_string_equal(err.input, "onescope_pose_cache_set_entity_name");
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 1, big, 1025, &err), ONESCOPE_E_RANGE);
    assert_string_equal(c->entities[1].name.data, "arm"); /* refused: the old name stays */
    free(big);

    c->entities[1].name.data[1] = (char)0xC0;
    EXPECT_WRITE(c, ONESCOPE_E_UTF8, E1_NAME + 1);
    c->entities[1].name.data[1] = 'r';
    c->entities[0].id = 0;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, E0);
    c->entities[0].id = 77;
    EXPECT_WRITE(c, ONESCOPE_E_DUPLICATE, E1);
    c->entities[0].id = 1;
    c->entities[1].shape = 4;
    EXPECT_WRITE(c, ONESCOPE_E_RANGE, E1 + 8);
    c->entities[1].shape = 3;
    c->entities[1].size[2] = INFINITY;
    EXPECT_WRITE(c, ONESCOPE_E_NOT_FINITE, E1 + 20);
    c->entities[1].size[2] = 0;
    c->poses[4].rotation[3] = NAN;
    EXPECT_WRITE(c, ONESCOPE_E_NOT_FINITE, POSES + 4 * 28 + 24);
    c->poses[4].rotation[3] = 1;
    c->poses[5].position[0] = -INFINITY;
    EXPECT_WRITE(c, ONESCOPE_E_NOT_FINITE, POSES + 5 * 28);
    c->poses[5].position[0] = NAN; /* absent: fine */
    b = write_ok(c);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);

    /* create refuses what the format cannot hold */
    assert_int_equal(onescope_pose_cache_create(1, 1, 1, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_null(c);
    assert_int_equal(onescope_pose_cache_create(3, 0, 1, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_create(3, 65537, 1, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_create(3, 1, 0, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_create(3, 1, 4194305, NULL, &c, &err), ONESCOPE_E_RANGE);
}

/* ---- access ---- */

static void access_helpers(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    assert_null(onescope_pose_cache_pose(c, 3, 0));
    assert_null(onescope_pose_cache_pose(c, 0, 2));
    assert_null(onescope_pose_cache_pose(NULL, 0, 0));
    assert_false(onescope_pose_is_present(NULL));
    /* frame 1: entity 0 present, entity 1 absent */
    assert_int_equal(onescope_pose_cache_next_present(c, 1, 0), 0);
    assert_int_equal(onescope_pose_cache_next_present(c, 1, 1), -1);
    assert_int_equal(onescope_pose_cache_next_present(c, 2, 1), 1);
    assert_int_equal(onescope_pose_cache_next_present(c, 2, 2), -1);
    assert_int_equal(onescope_pose_cache_next_present(c, 3, 0), -1);
    assert_int_equal(onescope_pose_cache_next_present(c, 0, UINT32_MAX), -1);
    c->poses[0].position[0] = NAN;
    int count = 0;
    for (int64_t i = onescope_pose_cache_next_present(c, 0, 0); i >= 0;
         i = onescope_pose_cache_next_present(c, 0, (uint32_t)i + 1)) {
        assert_int_equal(i, 1);
        count++;
    }
    assert_int_equal(count, 1);

    float q[4];
    onescope_pose p;
    memset(&p, 0, sizeof p);
    onescope_pose_rotation(&p, q);
    assert_true(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 1);
    assert_true(p.rotation[3] == 0); /* the stored value is untouched */
    p.rotation[1] = -0.0f;           /* negative zero is still zero */
    onescope_pose_rotation(&p, q);
    assert_true(q[3] == 1);
    p.rotation[0] = 0.6f;
    p.rotation[3] = 0.8f;
    onescope_pose_rotation(&p, q);
    assert_true(q[0] == 0.6f && q[3] == 0.8f);
    /* no pose (an index out of range): the identity; no out: nothing happens */
    q[0] = q[1] = q[2] = q[3] = 5;
    onescope_pose_rotation(onescope_pose_cache_pose(c, 99, 0), q);
    assert_true(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 1);
    onescope_pose_rotation(&p, NULL);
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(c, 0, 1)) == true);

    /* create: ids 1.., identity rotations, empty non-NULL texts */
    onescope_pose_cache *d;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(2, 3, 2, NULL, &d, &err), ONESCOPE_OK);
    assert_true(d->entities[2].id == 3);
    assert_true(d->poses[5].rotation[3] == 1.0f);
    assert_non_null(d->text[ONESCOPE_POSE_TEXT_LABEL].data);
    assert_int_equal(d->text[ONESCOPE_POSE_TEXT_LABEL].length, 0);
    onescope_pose_cache_free(d);
    onescope_pose_cache_free(c);
    onescope_pose_cache_free(NULL);
}

/* ---- the replay field ---- */

static void plain_file_names(void **state) {
    (void)state;
    const char *refused[] = {"../x",
                             "..",
                             ".",
                             "...",
                             ". .",
                             " ",
                             "/etc/x",
                             "a/b",
                             "a\\b",
                             "C:x",
                             "C:\\x",
                             "\\\\server\\share",
                             "",
                             "a\tb",
                             "a\nb",
                             "\x7f",
                             "run.ostm\x1b[2J",
                             "\xFF.ostm",
                             "\xC0\xAE\xC0\xAE"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (onescope_file_name_is_plain(refused[i], strlen(refused[i])))
            fail_msg("accepted '%s'", refused[i]);
    assert_false(onescope_file_name_is_plain("a\0b", 3));
    assert_false(onescope_file_name_is_plain("run.ostm\0", 9));
    assert_false(onescope_file_name_is_plain(NULL, 0));
    const char *accepted[] = {
        "run.ostm", "a b.ostm", "r\xC3\xA9sum\xC3\xA9.ostm", "\xE2\x82\xAC", ".hidden",
        "a..b",     "x"};
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
        if (!onescope_file_name_is_plain(accepted[i], strlen(accepted[i])))
            fail_msg("refused '%s'", accepted[i]);
}

static void replay_path_joins_only_plain_names(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache(); /* replay "a.ostm" */
    onescope_error err;
    char out[64];
    assert_int_equal(onescope_pose_cache_replay_path(c, "/data/clips/x.ospc", out, sizeof out), 1);
    assert_string_equal(out, "/data/clips/a.ostm");
    assert_int_equal(onescope_pose_cache_replay_path(c, "x.ospc", out, sizeof out), 1);
    assert_string_equal(out, "a.ostm");
    assert_int_equal(onescope_pose_cache_replay_path(c, "/x.ospc", out, sizeof out), 1);
    assert_string_equal(out, "/a.ostm");
    assert_int_equal(onescope_pose_cache_replay_path(c, "d/x.ospc", out, 9), 1); /* exactly fits */
    assert_string_equal(out, "d/a.ostm");
    memcpy(out, "untouched", 10);
    assert_int_equal(onescope_pose_cache_replay_path(c, "d/x.ospc", out, 8), 0); /* one short */
    assert_string_equal(out, "untouched");
    assert_int_equal(onescope_pose_cache_replay_path(c, "x.ospc", out, 0), 0);
    assert_int_equal(onescope_pose_cache_replay_path(NULL, "x.ospc", out, sizeof out), 0);
    assert_int_equal(onescope_pose_cache_replay_path(c, NULL, out, sizeof out), 0);
    const char *hostile[] = {"../a.ostm", "/etc/passwd", "sub/a.ostm", "..\\a.ostm", "C:a.ostm",
                             "",          ".."};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, hostile[i],
                                                      strlen(hostile[i]), &err),
                         ONESCOPE_OK);
        memcpy(out, "untouched", 10);
        assert_int_equal(onescope_pose_cache_replay_path(c, "/data/x.ospc", out, sizeof out), 0);
        assert_string_equal(out, "untouched");
    }
    onescope_pose_cache_free(c);
}

/* ---- files ---- */

static void read_and_write_files(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    char path[] = "/tmp/test_pose_cache_XXXXXX.ospc";
    snprintf(path, sizeof path, "/tmp/tpc_%ld.ospc", (long)rand());
    onescope_error err;
    assert_int_equal(onescope_pose_cache_write_file(c, path, &err), ONESCOPE_OK);
    onescope_pose_cache *d;
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &d, &err), ONESCOPE_OK);
    assert_caches_equal(c, d);
    onescope_pose_cache_free(d);
    onescope_parse_options o = onescope_parse_options_default();
    o.max_input_bytes = 100;
    assert_int_equal(onescope_pose_cache_read_file(path, &o, &d, &err), ONESCOPE_E_TOO_LARGE);
    remove(path);
    assert_int_equal(onescope_pose_cache_read_file(path, NULL, &d, &err), ONESCOPE_E_IO);
    c->dimensions = 7;
    assert_int_equal(onescope_pose_cache_write_file(c, path, &err), ONESCOPE_E_RANGE);
    FILE *f = fopen(path, "rb");
    assert_null(f); /* an invalid cache never creates the file */
    onescope_pose_cache_free(c);
}

/* read_file is onescope_file_read then the parser: whatever it reads, its verdict (code,
 * offset, message) must be the parser's on the same bytes. */
typedef struct read_ctx {
    const char *path;
    onescope_code want; /* the parser's verdict on the file's bytes */
} read_ctx;

/* Returns OK for the expected verdict, so the walk can tell it from a refused allocation. */
static onescope_code read_fn(const onescope_allocator *a, void *ctx) {
    const read_ctx *r = ctx;
    onescope_parse_options o = onescope_parse_options_default();
    o.allocator = a;
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = onescope_pose_cache_read_file(r->path, &o, &c, &err);
    if (rc == ONESCOPE_OK)
        assert_ptr_equal(c->allocator, a);
    else
        assert_null(c);
    onescope_pose_cache_free(c);
    return rc == r->want ? ONESCOPE_OK : rc;
}

static void read_file_agrees_with_parse(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tpc_agree_%ld.ospc", (long)getpid());
    size_t n;
    uint8_t *good = small_file(&n, 8);
    uint8_t *b = malloc(n + 8);
    assert_non_null(b);
    for (int variant = 0; variant < 14; variant++) {
        memcpy(b, good, n + 8);
        size_t len = n;
        switch (variant) {
            case 0: break;
            case 1: len = n + 1; break; /* trailing byte */
            case 2: len = n - 1; break; /* short pose section */
            case 3: put_bits(b + POSES + 28 * 4 + 20, 0x7F800000u); break;
            case 4: b[T_UNIT + 2] = 0xFF; break;
            case 5:
                onescope_os_put_u16(b + E1_NAME - 2, 2);
                break; /* name shorter: sections shift */
            case 6: onescope_os_put_u16(b + E1_NAME - 2, 4); break; /* name longer */
            case 7: onescope_os_put_u32(b + 16, 2); break; /* fewer frames than the file holds */
            case 8: onescope_os_put_u32(b + 16, 4); break; /* more frames than it holds */
            case 9: b[8] = 9; break;
            case 10: len = 19; break;
            case 11: b[0] = 'X'; break;
            case 12: put_bits(b + POSES, 0x7FC00000u); break; /* absent: still valid */
            case 13: onescope_os_put_u64(b + E1, 1); break;
        }
        test_write_file(path, b, len);
        onescope_pose_cache *from_file = NULL, *from_memory = NULL;
        onescope_error e1, e2;
        onescope_error_clear(&e1);
        onescope_error_clear(&e2);
        onescope_code rc1 = onescope_pose_cache_read_file(path, NULL, &from_file, &e1);
        onescope_code rc2 = onescope_pose_cache_parse(b, len, path, NULL, &from_memory, &e2);
        assert_int_equal(rc1, rc2);
        if (rc1 == ONESCOPE_OK) {
            assert_caches_equal(from_file, from_memory);
        } else {
            char m1[512], m2[512];
            onescope_error_format(&e1, m1, sizeof m1);
            onescope_error_format(&e2, m2, sizeof m2);
            assert_string_equal(m1, m2);
            assert_null(from_file);
        }
        onescope_pose_cache_free(from_file);
        onescope_pose_cache_free(from_memory);
        /* with every allocation refused in turn: NOMEM and no leak, then the verdict */
        read_ctx r = {path, rc2};
        assert_true(test_alloc_walk(read_fn, &r) >= 1); /* at least the file's buffer */
    }
    remove(path);
    free(b);
    free(good);
}

/* Random byte changes to a valid file: never a crash, and whatever parses writes back to
 * the very same bytes; whatever fails names an offset inside the input. */
static void random_mutations(void **state) {
    (void)state;
    size_t n;
    uint8_t *good = small_file(&n, 4);
    uint8_t *b = malloc(n + 4);
    assert_non_null(b);
    uint64_t rs = 99;
    int valid = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(b, good, n + 4);
        size_t len = n;
        int edits = 1 + (int)(test_rand(&rs) % 3);
        for (int k = 0; k < edits; k++) {
            uint64_t r = test_rand(&rs);
            size_t at = (size_t)(r >> 16) % n;
            switch (r % 4) {
                case 0: b[at] = (uint8_t)(r >> 8); break;
                case 1: b[at] ^= (uint8_t)(1u << ((r >> 8) % 8)); break;
                case 2: len = at; break;
                default: len = n + (size_t)((r >> 8) % 4); break;
            }
        }
        onescope_pose_cache *c = NULL;
        onescope_error err;
        onescope_code rc = onescope_pose_cache_parse(b, len, "m", NULL, &c, &err);
        if (rc == ONESCOPE_OK) {
            valid++;
            onescope_buffer w = write_ok(c);
            assert_int_equal(w.size, len);
            assert_memory_equal(w.data, b, len);
            onescope_buffer_free(&w);
            onescope_pose_cache_free(c);
        } else {
            assert_null(c);
            assert_true(err.has_offset);
            assert_true(err.offset <= len);
        }
    }
    assert_true(valid > 0);
    free(b);
    free(good);
}

/* NULL where a pointer is required: ARGUMENT (or 0 / -1 / NULL from the helpers). */
static void null_arguments(void **state) {
    (void)state;
    onescope_error err;
    onescope_pose_cache *c = make_cache();
    onescope_pose_cache *none = (onescope_pose_cache *)1;
    onescope_buffer b;
    assert_int_equal(onescope_pose_cache_create(3, 1, 1, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_entity_name(NULL, 0, "a", 1, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_text(NULL, ONESCOPE_POSE_TEXT_SCENE, "a", 1, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_SCENE, NULL, 1, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 0, NULL, 1, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 0, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(c->entities[0].name.length, 0);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, NULL, 0, &err),
                     ONESCOPE_OK);
    assert_string_equal(c->text[ONESCOPE_POSE_TEXT_REPLAY].data, ""); /* empty, never NULL */
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_REPLAY, "a.ostm", 6, &err),
                     ONESCOPE_OK);
    /* indexes outside the cache or the enum: RANGE, naming the index, and nothing changes */
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 2, "a", 1, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "entity");
    assert_string_equal(err.expected, "below the entity count 2");
    assert_string_equal(err.found, "2");
    assert_int_equal(onescope_pose_cache_set_entity_name(c, UINT32_MAX, "a", 1, &err),
                     ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_COUNT, "a", 1, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "text field");
    assert_string_equal(err.found, "6");
    assert_int_equal(onescope_pose_cache_set_text(c, (onescope_pose_text_field)-1, "a", 1, &err),
                     ONESCOPE_E_RANGE);
    assert_string_equal(err.found, "-1");
    onescope_pose_entity *entities_before = c->entities;
    c->entities = NULL;
    assert_int_equal(onescope_pose_cache_set_entity_name(c, 0, "a", 1, &err), ONESCOPE_E_ARGUMENT);
    c->entities = entities_before;
    assert_int_equal(onescope_pose_cache_parse("OSPC", 4, "p", no_options, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    none = (onescope_pose_cache *)&err; /* refused arguments still clear *out */
    assert_int_equal(onescope_pose_cache_parse(NULL, 4, "p", no_options, &none, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_null(none);
    assert_int_equal(onescope_pose_cache_parse(NULL, 0, NULL, no_options, &none, &err),
                     ONESCOPE_E_TRUNCATED);
    assert_string_equal(err.input, "<ospc>"); /* the default name */
    assert_int_equal(onescope_pose_cache_validate(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "<ospc>");
    onescope_pose *poses = c->poses;
    c->poses = NULL;
    assert_int_equal(onescope_pose_cache_validate(c, "v", &err), ONESCOPE_E_ARGUMENT);
    c->poses = poses;
    onescope_pose_entity *entities = c->entities;
    c->entities = NULL;
    assert_int_equal(onescope_pose_cache_validate(c, "v", &err), ONESCOPE_E_ARGUMENT);
    c->entities = entities;
    assert_int_equal(onescope_pose_cache_validate(c, "v", &err), ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_write(c, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_write(NULL, NULL, &b, &err), ONESCOPE_E_ARGUMENT);
    assert_null(onescope_pose_cache_pose(NULL, 0, 0));
    assert_int_equal(onescope_pose_cache_next_present(NULL, 0, 0), -1);
    assert_int_equal(onescope_pose_cache_next_present(c, 3, 0), -1); /* past the last frame */
    assert_int_equal(onescope_pose_cache_next_present(c, 1, 0), 0);
    assert_int_equal(onescope_pose_cache_next_present(c, 1, 1), -1); /* entity 1 is absent */
    assert_int_equal(onescope_pose_cache_read_file(NULL, no_options, &none, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_read_file("x.ospc", no_options, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_write_file(NULL, "never.ospc", &err), ONESCOPE_E_ARGUMENT);
    char out[64];
    assert_int_equal(onescope_pose_cache_replay_path(NULL, "d/c.ospc", out, sizeof out), 0);
    assert_int_equal(onescope_pose_cache_replay_path(c, NULL, out, sizeof out), 0);
    assert_int_equal(onescope_pose_cache_replay_path(c, "d/c.ospc", NULL, sizeof out), 0);
    assert_int_equal(onescope_pose_cache_replay_path(c, "d/c.ospc", out, 0), 0);
    assert_int_equal(onescope_pose_cache_replay_path(c, "d/c.ospc", out, sizeof out), 1);
    assert_string_equal(out, "d/a.ostm");
    onescope_pose_cache_free(c);
}

/* The writer refuses a cache whose file would be over the parsers' default input limit. */
static void writer_refuses_output_over_the_limit(void **state) {
    (void)state;
    onescope_pose_cache *c;
    onescope_error err;
    /* 65536 entities x 147 frames x 28 bytes alone are 269.7 MB > 256 MiB */
    assert_int_equal(onescope_pose_cache_create(3, 65536, 147, NULL, &c, &err), ONESCOPE_OK);
    onescope_buffer b = {(uint8_t *)1, 1, NULL};
    assert_int_equal(onescope_pose_cache_write(c, NULL, &b, &err), ONESCOPE_E_TOO_LARGE);
    assert_null(b.data);
    assert_int_equal(b.size, 0);
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "output size: expected at most 268435456 bytes"));
    onescope_pose_cache_free(c);
}

/* The pose setter stores what the parser accepts and nothing else. */
static void set_pose_validates(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    onescope_error err;
    onescope_pose p = {{1, 2, 3}, {0, 0, 0, 1}};
    assert_int_equal(onescope_pose_cache_set_pose(c, 2, 1, &p, &err), ONESCOPE_OK);
    assert_memory_equal(onescope_pose_cache_pose(c, 2, 1), &p, sizeof p);
    /* Absent: any NaN in x, the rest kept bit for bit (here an infinity). */
    onescope_pose absent = {{NAN, INFINITY, 0}, {NAN, 0, 0, 0}};
    assert_int_equal(onescope_pose_cache_set_pose(c, 0, 0, &absent, &err), ONESCOPE_OK);
    assert_memory_equal(onescope_pose_cache_pose(c, 0, 0), &absent, sizeof absent);
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(c, 0, 0)));
    onescope_buffer out;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &out, &err), ONESCOPE_OK);
    onescope_buffer_free(&out);
    /* Refused: infinity in x, NaN elsewhere; the old pose stays. */
    onescope_pose bad = p;
    bad.position[0] = -INFINITY;
    assert_int_equal(onescope_pose_cache_set_pose(c, 2, 1, &bad, &err), ONESCOPE_E_NOT_FINITE);
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "onescope_pose_cache_set_pose: frame 2 entity 1 position x: expected "
                              "a finite number (NaN only in position x, for an absent entity), "
                              "found -inf");
    bad = p;
    bad.rotation[3] = NAN;
    assert_int_equal(onescope_pose_cache_set_pose(c, 2, 1, &bad, &err), ONESCOPE_E_NOT_FINITE);
    assert_memory_equal(onescope_pose_cache_pose(c, 2, 1), &p, sizeof p);
    /* Indices and NULLs. */
    assert_int_equal(onescope_pose_cache_set_pose(c, 3, 0, &p, &err), ONESCOPE_E_RANGE);
    onescope_error_format(&err, line, sizeof line);
    assert_non_null(strstr(line, "frame: expected below the frame count 3, found 3"));
    assert_int_equal(onescope_pose_cache_set_pose(c, 0, 2, &p, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_pose_cache_set_pose(c, 0, 0, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_pose_cache_set_pose(NULL, 0, 0, &p, &err), ONESCOPE_E_ARGUMENT);
    onescope_pose_cache_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_small_file_is_valid),
        cmocka_unit_test(bad_magic),
        cmocka_unit_test(version_must_be_1),
        cmocka_unit_test(flags_must_be_zero),
        cmocka_unit_test(dimensions_2_or_3),
        cmocka_unit_test(each_reserved_byte),
        cmocka_unit_test(entity_count_range),
        cmocka_unit_test(frame_count_range),
        cmocka_unit_test(start_step_not_negative),
        cmocka_unit_test(last_step_fits_int64),
        cmocka_unit_test(metres_per_unit_rules),
        cmocka_unit_test(each_text_length_1025),
        cmocka_unit_test(texts_of_1024_bytes_are_valid),
        cmocka_unit_test(invalid_utf8_in_text_and_name),
        cmocka_unit_test(entity_id_zero_and_duplicates),
        cmocka_unit_test(shape_up_to_3),
        cmocka_unit_test(each_padding_byte),
        cmocka_unit_test(sizes_must_be_finite),
        cmocka_unit_test(pose_section_length),
        cmocka_unit_test(every_non_finite_pose_value),
        cmocka_unit_test(non_finite_found_in_long_runs),
        cmocka_unit_test(absent_entity_ignores_the_rest),
        cmocka_unit_test(first_bad_byte_wins),
        cmocka_unit_test(every_prefix_fails_cleanly),
        cmocka_unit_test(input_over_the_limit),
        cmocka_unit_test(writer_refuses_output_over_the_limit),
        cmocka_unit_test(huge_counts_fail_before_any_allocation),
        cmocka_unit_test(generated_round_trips),
        cmocka_unit_test(head_size_is_the_written_head),
        cmocka_unit_test(parse_allocation_failure),
        cmocka_unit_test(write_allocation_failure),
        cmocka_unit_test(create_and_set_text_allocation_failure),
        cmocka_unit_test(writer_refuses_invalid_caches),
        cmocka_unit_test(access_helpers),
        cmocka_unit_test(plain_file_names),
        cmocka_unit_test(replay_path_joins_only_plain_names),
        cmocka_unit_test(read_and_write_files),
        cmocka_unit_test(read_file_agrees_with_parse),
        cmocka_unit_test(random_mutations),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(set_pose_validates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
