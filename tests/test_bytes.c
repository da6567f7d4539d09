/* The shared byte reader/writer, checked sizes, UTF-8 and the error formatter. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

static void reader_reads_little_endian(void **state) {
    (void)state;
    const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xff, 0xff, 0xff, 0xff};
    onescope_os_reader r;
    onescope_error err;
    onescope_os_reader_init(&r, b, sizeof b, "t", &err);
    uint16_t u16;
    uint32_t u32;
    int32_t i32;
    assert_int_equal(onescope_os_read_u16(&r, "a", &u16), ONESCOPE_OK);
    assert_int_equal(u16, 0x0201);
    assert_int_equal(onescope_os_read_u32(&r, "b", &u32), ONESCOPE_OK);
    assert_int_equal(u32, 0x06050403u);
    r.pos = 8;
    assert_int_equal(onescope_os_read_i32(&r, "c", &i32), ONESCOPE_OK);
    assert_int_equal(i32, -1);
    r.pos = 0;
    uint64_t u64;
    assert_int_equal(onescope_os_read_u64(&r, "d", &u64), ONESCOPE_OK);
    assert_true(u64 == 0x0807060504030201ull);
}

static void reader_truncation_names_field_and_offset(void **state) {
    (void)state;
    const uint8_t b[3] = {0};
    onescope_os_reader r;
    onescope_error err;
    onescope_os_reader_init(&r, b, sizeof b, "in.bin", &err);
    uint8_t u8;
    assert_int_equal(onescope_os_read_u8(&r, "x", &u8), ONESCOPE_OK);
    uint32_t v;
    assert_int_equal(onescope_os_read_u32(&r, "count", &v), ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 1);
    assert_int_equal(r.pos, 1); /* unchanged on failure */
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "in.bin: offset 1: count: expected 4 bytes, found 2");
}

static void reader_reserve_refuses_impossible_counts(void **state) {
    (void)state;
    uint8_t b[100] = {0};
    onescope_os_reader r;
    onescope_error err;
    onescope_os_reader_init(&r, b, sizeof b, "t", &err);
    assert_int_equal(onescope_os_reader_reserve(&r, "n", 10, 10), ONESCOPE_OK);
    assert_int_equal(onescope_os_reader_reserve(&r, "n", 11, 10), ONESCOPE_E_TRUNCATED);
    assert_int_equal(onescope_os_reader_reserve(&r, "n", UINT64_MAX, 1), ONESCOPE_E_TRUNCATED);
}

static void reader_zeros_and_end(void **state) {
    (void)state;
    const uint8_t b[] = {0, 0, 7, 1};
    onescope_os_reader r;
    onescope_error err;
    onescope_os_reader_init(&r, b, sizeof b, "t", &err);
    assert_int_equal(onescope_os_read_zeros(&r, "pad", 3), ONESCOPE_E_RESERVED);
    assert_error_at(err, ONESCOPE_E_RESERVED, 2);
    assert_int_equal(onescope_os_read_zeros(&r, "pad", 2), ONESCOPE_OK);
    assert_int_equal(onescope_os_reader_end(&r), ONESCOPE_E_TRAILING);
    assert_error_at(err, ONESCOPE_E_TRAILING, 2);
}

static void writer_round_trips_values(void **state) {
    (void)state;
    onescope_os_writer w;
    onescope_os_writer_init(&w, NULL);
    onescope_os_write_u8(&w, 0xAB);
    onescope_os_write_u16(&w, 0x1234);
    onescope_os_write_i32(&w, -5);
    onescope_os_write_i64(&w, INT64_MIN);
    onescope_os_write_f32(&w, -0.0f);
    onescope_os_write_f64(&w, 0.1);
    onescope_buffer out;
    onescope_error err;
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_OK);
    assert_int_equal(out.size, 1 + 2 + 4 + 8 + 4 + 8);
    onescope_os_reader r;
    onescope_os_reader_init(&r, out.data, out.size, "r", &err);
    uint8_t u8;
    uint16_t u16;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
    assert_int_equal(onescope_os_read_u8(&r, "", &u8), 0);
    assert_int_equal(onescope_os_read_u16(&r, "", &u16), 0);
    assert_int_equal(onescope_os_read_i32(&r, "", &i32), 0);
    assert_int_equal(onescope_os_read_i64(&r, "", &i64), 0);
    assert_int_equal(onescope_os_read_f32(&r, "", &f), 0);
    assert_int_equal(onescope_os_read_f64(&r, "", &d), 0);
    assert_int_equal(u8, 0xAB);
    assert_int_equal(u16, 0x1234);
    assert_int_equal(i32, -5);
    assert_true(i64 == INT64_MIN);
    assert_true(f == 0.0f && signbit(f));
    assert_true(d == 0.1);
    assert_int_equal(onescope_os_reader_end(&r), ONESCOPE_OK);
    onescope_buffer_free(&out);
}

static void writer_allocation_failure_latches(void **state) {
    (void)state;
    test_alloc t;
    test_alloc_init(&t, 2);
    onescope_os_writer w;
    onescope_os_writer_init(&w, &t.allocator);
    for (int i = 0; i < 1000; i++)
        onescope_os_write_u32(&w, (uint32_t)i); /* grows past 256 bytes */
    assert_true(w.failed);
    onescope_buffer out;
    onescope_error err;
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_E_NOMEM);
    assert_int_equal(t.live, 0);
}

/* The writer's other ways to fail, each latched: a refused first buffer (a value write, a
 * reserve, or finishing an empty writer) and a size that would overflow. */
static void writer_failures_latch(void **state) {
    (void)state;
    onescope_buffer out;
    onescope_error err;
    test_alloc t;
    test_alloc_init(&t, 1);
    onescope_os_writer w;
    onescope_os_writer_init(&w, &t.allocator);
    onescope_os_write_f32(&w, 1.5f);
    assert_true(w.failed);
    assert_int_equal(w.size, 0);
    assert_false(onescope_os_writer_reserve_total(&w, 8));
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_E_NOMEM);
    assert_string_equal(err.field, "output");
    assert_int_equal(t.live, 0);
    /* an empty writer still hands over a buffer, and needs one allocation for it */
    test_alloc_init(&t, 1);
    onescope_os_writer_init(&w, &t.allocator);
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_E_NOMEM);
    assert_int_equal(t.live, 0);
    /* reserving what the buffer already holds allocates nothing */
    test_alloc_init(&t, 2);
    onescope_os_writer_init(&w, &t.allocator);
    onescope_os_write_u64(&w, 7);
    assert_true(onescope_os_writer_reserve_total(&w, 200));
    assert_false(w.failed);
    assert_int_equal(t.count, 1);
    /* a size past SIZE_MAX */
    assert_null(onescope_os_writer_grow(&w, SIZE_MAX));
    assert_true(w.failed);
    assert_int_equal(w.size, 8);
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_E_NOMEM);
    assert_int_equal(t.live, 0);
}

static void checked_sizes_catch_overflow(void **state) {
    (void)state;
    size_t out;
    assert_true(onescope_os_mul_size(65536, 4194304, &out));
    assert_false(onescope_os_mul_size(SIZE_MAX / 2 + 1, 2, &out));
    assert_false(onescope_os_add_size(SIZE_MAX, 1, &out));
    assert_true(onescope_os_add_size(SIZE_MAX - 1, 1, &out));
    assert_true(out == SIZE_MAX);
}

static void utf8_rules(void **state) {
    (void)state;
    size_t bad = 99;
    assert_true(onescope_os_utf8_valid((const uint8_t *)"h\xc3\xa9llo \xf0\x9f\x98\x80", 11, &bad));
    assert_false(onescope_os_utf8_valid((const uint8_t *)"ab\xc0\xaf", 4, &bad)); /* overlong '/' */
    assert_int_equal(bad, 2);
    assert_false(onescope_os_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3, &bad)); /* surrogate */
    /* the whole surrogate range: the last one, U+DFFF, too, at its first byte; the code
     * points just outside it are fine */
    assert_false(onescope_os_utf8_valid((const uint8_t *)"ab\xed\xbf\xbf", 5, &bad));
    assert_int_equal(bad, 2);
    assert_true(onescope_os_utf8_valid((const uint8_t *)"\xed\x9f\xbf", 3, &bad)); /* U+D7FF */
    assert_true(onescope_os_utf8_valid((const uint8_t *)"\xee\x80\x80", 3, &bad)); /* U+E000 */
    assert_false(
        onescope_os_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4, &bad));   /* > U+10FFFF */
    assert_false(onescope_os_utf8_valid((const uint8_t *)"x\xe2\x82", 3, &bad)); /* cut short */
    assert_int_equal(bad, 1);
    assert_false(onescope_os_utf8_valid((const uint8_t *)"\x80", 1, &bad));
    assert_true(onescope_os_utf8_valid((const uint8_t *)"", 0, &bad));
}

static void error_format_shapes(void **state) {
    (void)state;
    onescope_error e;
    char line[512];
    onescope_os_fail(&e, ONESCOPE_E_FLAGS, "test.ospc", 6, "flags", "0", "%d", 3);
    onescope_error_format(&e, line, sizeof line);
    assert_string_equal(line, "test.ospc: offset 6: flags: expected 0, found 3");
    onescope_os_fail(&e, ONESCOPE_E_IO, "x", OS_NO_OFFSET, NULL, NULL, "cannot open: %s", "nope");
    onescope_error_format(&e, line, sizeof line);
    assert_string_equal(line, "x: cannot open: nope");
    e.line = 3;
    e.column = 14;
    onescope_error_format(&e, line, sizeof line);
    assert_string_equal(line, "x: line 3, column 14: cannot open: nope");
    /* A short buffer truncates but reports the full length. */
    size_t want = onescope_error_format(&e, line, 5);
    assert_int_equal(strlen(line), 4);
    assert_true(want > 5);
    assert_string_equal(onescope_error_name(ONESCOPE_E_TRUNCATED), "truncated");
    assert_string_equal(onescope_error_name((onescope_code)999), "unknown error");
}

/* SipHash-2-4 against the reference vectors of its paper (key 00..0f, message 00..n-1), and a
 * tag that moves with every key and message bit. */
static void siphash_vectors(void **state) {
    (void)state;
    uint8_t key[16], msg[64];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)i;
    for (int i = 0; i < 64; i++) msg[i] = (uint8_t)i;
    assert_true(onescope_os_siphash(key, msg, 0) == 0x726fdb47dd0e0e31ull);
    assert_true(onescope_os_siphash(key, msg, 1) == 0x74f839c593dc67fdull);
    assert_true(onescope_os_siphash(key, msg, 8) == 0x93f5f5799a932462ull);
    assert_true(onescope_os_siphash(key, msg, 15) == 0xa129ca6149be45e5ull);
    uint64_t t = onescope_os_siphash(key, msg, 64);
    for (int bit = 0; bit < 8 * 64; bit++) {
        msg[bit / 8] ^= (uint8_t)(1u << bit % 8);
        assert_true(onescope_os_siphash(key, msg, 64) != t);
        msg[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
    for (int bit = 0; bit < 128; bit++) {
        key[bit / 8] ^= (uint8_t)(1u << bit % 8);
        assert_true(onescope_os_siphash(key, msg, 64) != t);
        key[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
}

static float float_of(uint32_t bits) {
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Item 21's sign class: the ulp distance counts the floats between two values on the one line
 * of floats, through zero when the signs differ (+0 and -0 one point of it). */
static void float_ulps_across_signs(void **state) {
    (void)state;
    assert_int_equal(onescope_os_float_ulps(0.0f, -0.0f), 0);
    assert_int_equal(onescope_os_float_ulps(float_of(1), float_of(0x80000001u)), 2);
    assert_int_equal(onescope_os_float_ulps(-1.0f, float_of(0xbf800001u)), 1);
    assert_int_equal(onescope_os_float_ulps(float_of(0xbf800001u), -1.0f), 1);
    assert_int_equal(onescope_os_float_ulps(1.0f, -1.0f), 2 * (uint64_t)0x3f800000u);
    assert_int_equal(onescope_os_float_ulps(-2.0f, 1.0f), (uint64_t)0x40000000u + 0x3f800000u);
    assert_int_equal(onescope_os_float_ulps(-INFINITY, INFINITY), 2 * (uint64_t)0x7f800000u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(siphash_vectors),
        cmocka_unit_test(reader_reads_little_endian),
        cmocka_unit_test(reader_truncation_names_field_and_offset),
        cmocka_unit_test(reader_reserve_refuses_impossible_counts),
        cmocka_unit_test(reader_zeros_and_end),
        cmocka_unit_test(writer_round_trips_values),
        cmocka_unit_test(writer_allocation_failure_latches),
        cmocka_unit_test(writer_failures_latch),
        cmocka_unit_test(checked_sizes_catch_overflow),
        cmocka_unit_test(utf8_rules),
        cmocka_unit_test(error_format_shapes),
        cmocka_unit_test(float_ulps_across_signs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
