/* Fuzz target: the byte reader and writer (src/bytes.c) and the UTF-8 check, driven by a
 * script in the input. The first byte splits the input: the script, then the bytes the
 * reader reads. Every read either succeeds inside the buffer or fails with the documented
 * code at the documented offset, leaving the position unchanged; what is read is written
 * again with the writer and must give the same bytes. onescope_os_utf8_valid is compared with a
 * simple reference decoder. */
#include "fuzz_helpers.h"
#include "internal.h"

/* Reference UTF-8 check, written from the Unicode table of well-formed sequences. */
static int ref_utf8(const uint8_t *s, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80)
            len = 1;
        else if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c == 0xE0)
            len = 3, lo = 0xA0;
        else if (c == 0xED)
            len = 3, hi = 0x9F;
        else if (c >= 0xE1 && c <= 0xEF)
            len = 3;
        else if (c == 0xF0)
            len = 4, lo = 0x90;
        else if (c == 0xF4)
            len = 4, hi = 0x8F;
        else if (c >= 0xF1 && c <= 0xF3)
            len = 4;
        else {
            *bad = i;
            return 0;
        }
        for (size_t k = 1; k < len; k++) {
            uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
            if (i + k >= n || s[i + k] < l || s[i + k] > h) {
                *bad = i;
                return 0;
            }
        }
        i += len;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    size_t script_len = data[0] < size - 1 ? data[0] : size - 1;
    fuzz_bytes script = fuzz_bytes_init(data + 1, script_len);
    const uint8_t *buf = data + 1 + script_len;
    size_t n = size - 1 - script_len;

    size_t bad_ref = 0, bad = 0;
    int ok_ref = ref_utf8(buf, n, &bad_ref);
    int ok = onescope_os_utf8_valid(buf, n, &bad);
    FUZZ_ASSERT_MSG(ok == ok_ref, "utf-8: library %d, reference %d", ok, ok_ref);
    if (!ok) FUZZ_ASSERT_MSG(bad == bad_ref, "utf-8: bad at %zu, reference %zu", bad, bad_ref);

    fuzz_env env;
    size_t unused = 0;
    fuzz_env_init(&env, data, &unused);
    onescope_os_reader r;
    onescope_error err;
    onescope_os_reader_init(&r, buf, n, "buf", &err);
    onescope_os_writer w;
    onescope_os_writer_init(&w, &env.allocator);
    while (fuzz_remaining(&script) > 0) {
        uint8_t op = fuzz_u8(&script);
        size_t before = r.pos, width = 0;
        onescope_code rc = ONESCOPE_OK;
        switch (op % 11) {
            case 0: {
                uint8_t v;
                width = 1;
                if ((rc = onescope_os_read_u8(&r, "u8", &v)) == 0) onescope_os_write_u8(&w, v);
                break;
            }
            case 1: {
                uint16_t v;
                width = 2;
                if ((rc = onescope_os_read_u16(&r, "u16", &v)) == 0) onescope_os_write_u16(&w, v);
                break;
            }
            case 2: {
                uint32_t v;
                width = 4;
                if ((rc = onescope_os_read_u32(&r, "u32", &v)) == 0) onescope_os_write_u32(&w, v);
                break;
            }
            case 3: {
                uint64_t v;
                width = 8;
                if ((rc = onescope_os_read_u64(&r, "u64", &v)) == 0) onescope_os_write_u64(&w, v);
                break;
            }
            case 4: {
                int32_t v;
                width = 4;
                if ((rc = onescope_os_read_i32(&r, "i32", &v)) == 0) onescope_os_write_i32(&w, v);
                break;
            }
            case 5: {
                int64_t v;
                width = 8;
                if ((rc = onescope_os_read_i64(&r, "i64", &v)) == 0) onescope_os_write_i64(&w, v);
                break;
            }
            case 6: {
                float v;
                width = 4;
                if ((rc = onescope_os_read_f32(&r, "f32", &v)) == 0) onescope_os_write_f32(&w, v);
                break;
            }
            case 7: {
                double v;
                width = 8;
                if ((rc = onescope_os_read_f64(&r, "f64", &v)) == 0) onescope_os_write_f64(&w, v);
                break;
            }
            case 8: {
                const uint8_t *p;
                width = op < 128 ? fuzz_u8(&script) : (size_t)fuzz_u64(&script);
                if ((rc = onescope_os_read_bytes(&r, "bytes", width, &p)) == 0) {
                    FUZZ_ASSERT(p == buf + before);
                    onescope_os_write_bytes(&w, p, width);
                }
                break;
            }
            case 9: {
                width = fuzz_u8(&script);
                rc = onescope_os_read_zeros(&r, "zeros", width);
                if (rc == ONESCOPE_OK) {
                    uint8_t *p = onescope_os_writer_grow(&w, width);
                    if (p != NULL) memset(p, 0, width);
                } else if (rc == ONESCOPE_E_RESERVED) {
                    FUZZ_ASSERT(err.has_offset && err.offset >= before &&
                                err.offset < before + width);
                    FUZZ_ASSERT(buf[err.offset] != 0);
                    for (size_t k = before; k < err.offset; k++) FUZZ_ASSERT(buf[k] == 0);
                }
                break;
            }
            default: {
                uint64_t count = fuzz_u64(&script) >> (fuzz_u8(&script) & 63);
                size_t elem = fuzz_u8(&script);
                rc = onescope_os_reader_reserve(&r, "count", count, elem);
                if (rc == ONESCOPE_OK && elem > 0)
                    FUZZ_ASSERT(count <= onescope_os_reader_remaining(&r) / elem);
                FUZZ_ASSERT(r.pos == before);
                width = 0;
                break;
            }
        }
        if (rc == ONESCOPE_OK) {
            if (op % 11 != 10) FUZZ_ASSERT(r.pos == before + width);
        } else {
            FUZZ_ASSERT(r.pos == before);
            FUZZ_ASSERT(err.code == rc && err.has_offset && err.offset <= n);
            if (rc == ONESCOPE_E_TRUNCATED && op % 11 != 10) FUZZ_ASSERT(width > n - before);
            if (rc != ONESCOPE_E_RESERVED) FUZZ_ASSERT(err.offset == before);
            /* Skip past what could not be read so the script goes on. */
            if (rc == ONESCOPE_E_RESERVED) {
                const uint8_t *p;
                FUZZ_ASSERT(onescope_os_read_bytes(&r, "skip", width, &p) == ONESCOPE_OK);
                onescope_os_write_bytes(&w, p, width);
            }
        }
        FUZZ_ASSERT(r.pos <= n);
    }
    onescope_code end = onescope_os_reader_end(&r);
    FUZZ_ASSERT(end == (r.pos == n ? ONESCOPE_OK : ONESCOPE_E_TRAILING));
    onescope_buffer out;
    onescope_code rc = onescope_os_writer_finish(&w, &out, &err, "out");
    FUZZ_ASSERT(rc == ONESCOPE_OK);
    FUZZ_ASSERT(out.size == r.pos && (r.pos == 0 || memcmp(out.data, buf, r.pos) == 0));
    onescope_buffer_free(&out);
    fuzz_env_finish(&env);
    return 0;
}
