/* The live stream: encoder/decoder round trip, every framing error with its offset, chunked
 * delivery, truncation, the viewer (attach mid-run, saved replay, mismatches), allocation
 * failure, random mutations decoded whole and byte by byte, and the viewer saving through the
 * streaming replay writer (limit, failures, SIGKILL, recovery). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "test_util.h"
#include "testdata.h"

/* ---- helpers ---- */

typedef struct stream {
    uint8_t *data;
    size_t size;
    uint64_t *hashes; /* hashes[s] = the world hash at host step s, s = 0..steps */
    uint32_t steps;
} stream;

/* A host: setup, optional link, `steps` steps of the test-data script, a probe every K. */
static stream make_stream(uint8_t dims, uint8_t bodies, const onescope_link_block *link,
                          uint32_t steps, uint32_t probe_every) {
    onescope_error err;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){dims, bodies, 5};
    if (link) def.link = *link;
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    onescope_live_encoder *enc;
    assert_int_equal(onescope_live_encoder_create(NULL, &enc, &err), ONESCOPE_OK);
    testdata_script sc = {0};
    sc.dimensions = dims;
    sc.seed = 9;
    stream s;
    s.steps = steps;
    s.hashes = calloc(steps + 1u, sizeof *s.hashes);
    s.hashes[0] = onescope_sim_hash(sim);
    for (uint32_t i = 0; i < steps; i++) {
        if (i % probe_every == 0) assert_int_equal(onescope_live_encode_probe(enc, sim, &err), 0);
        uint8_t in[TESTDATA_MAX_SCRIPT_INPUT];
        size_t n = testdata_script_input(&sc, i, in, sizeof in);
        assert_int_equal(onescope_sim_step(sim, in, n, &err), ONESCOPE_OK);
        s.hashes[i + 1] = onescope_sim_hash(sim);
        assert_int_equal(onescope_live_encode_step(enc, i, in, n, s.hashes[i + 1], &err), 0);
    }
    assert_int_equal(onescope_live_encode_end(enc, steps, &err), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_live_encoder_take(enc, &b, &err), ONESCOPE_OK);
    s.data = b.data; /* libc allocator: free() below */
    s.size = b.size;
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    return s;
}

static void free_stream(stream *s) {
    free(s->data);
    free(s->hashes);
}

/* A digest of the records a decoder yields, to compare two decodings. */
typedef struct digest {
    uint64_t hash;
    uint32_t records;
    uint32_t probes, steps, ends;
} digest;

static void add_record(digest *d, const onescope_live_record *r) {
    uint8_t head[1 + 8 + 8 + 8];
    head[0] = (uint8_t)r->type;
    onescope_os_put_u64(head + 1, r->step);
    onescope_os_put_u64(head + 9, r->offset);
    onescope_os_put_u64(head + 17, r->hash);
    d->hash = d->hash * 31 + onescope_hash_bytes(head, sizeof head);
    if (r->type == ONESCOPE_LIVE_PROBE && r->version == ONESCOPE_LIVE_MODULE_VERSION)
        d->hash = d->hash * 31 + onescope_hash_bytes(r->setup_blob, r->setup_blob_size) +
                  (r->has_snapshot ? onescope_hash_bytes(r->snapshot, r->snapshot_size) : 1);
    else if (r->type == ONESCOPE_LIVE_PROBE)
        d->hash = d->hash * 31 + onescope_hash_bytes(r->probe, r->probe_size) + r->link.role;
    if (r->type == ONESCOPE_LIVE_STEP)
        d->hash = d->hash * 31 + onescope_hash_bytes(r->input, r->input_size);
    d->records++;
    d->probes += r->type == ONESCOPE_LIVE_PROBE;
    d->steps += r->type == ONESCOPE_LIVE_STEP;
    d->ends += r->type == ONESCOPE_LIVE_END;
}

static bool digest_cb(void *user, const onescope_live_record *r) {
    add_record(user, r);
    return false;
}

/* Decodes in chunks of `chunk` bytes (0: whole); returns the code, fills d and err. */
static onescope_code decode_chunked(const uint8_t *data, size_t size, size_t chunk, digest *d,
                                    onescope_error *err) {
    memset(d, 0, sizeof *d);
    if (chunk == 0) return onescope_live_decode(data, size, "s", NULL, digest_cb, d, err);
    onescope_live_decoder *dec;
    assert_int_equal(onescope_live_decoder_create("s", NULL, &dec, err), ONESCOPE_OK);
    onescope_code rc = ONESCOPE_OK;
    for (size_t pos = 0; pos < size && rc == ONESCOPE_OK;) {
        size_t n = size - pos < chunk ? size - pos : chunk;
        size_t off = 0;
        while (off < n) {
            onescope_live_record rec;
            size_t used;
            int r = onescope_live_decoder_next(dec, data + pos + off, n - off, &used, &rec, err);
            off += used;
            if (r < 0) {
                rc = err->code;
                break;
            }
            if (r == 0) break;
            add_record(d, &rec);
        }
        assert_true(rc != ONESCOPE_OK || off == n);
        pos += n;
    }
    if (rc == ONESCOPE_OK) {
        /* a decoder with nothing more to read still says 0 */
        onescope_live_record rec;
        size_t used;
        int r = onescope_live_decoder_next(dec, NULL, 0, &used, &rec, err);
        assert_int_equal(r, 0);
        rc = onescope_live_decoder_finish(dec, err);
    }
    onescope_live_decoder_free(dec);
    return rc;
}

static void expect_decode_error(const uint8_t *data, size_t size, onescope_code code,
                                uint64_t offset) {
    onescope_error err;
    digest d;
    assert_int_equal(decode_chunked(data, size, 0, &d, &err), code);
    assert_error_at(err, code, offset);
    assert_int_equal(decode_chunked(data, size, 1, &d, &err), code);
    assert_error_at(err, code, offset);
    assert_int_equal(decode_chunked(data, size, 7, &d, &err), code);
    assert_error_at(err, code, offset);
    /* the code does not depend on the caller asking for the details */
    assert_int_equal(onescope_live_decode(data, size, "s", NULL, NULL, NULL, NULL), code);
}

/* Copies s, writes n bytes at `at`, decodes and checks code@offset. */
static void expect_patched(const stream *s, size_t at, const void *bytes, size_t n,
                           onescope_code code, uint64_t offset) {
    uint8_t *c = malloc(s->size);
    memcpy(c, s->data, s->size);
    memcpy(c + at, bytes, n);
    expect_decode_error(c, s->size, code, offset);
    free(c);
}

/* ---- round trip and chunking ---- */

typedef struct collect {
    uint32_t probes, steps, ends;
    const stream *s;
    uint64_t last_step;
} collect;

static bool check_record(void *user, const onescope_live_record *r) {
    collect *c = user;
    if (r->type == ONESCOPE_LIVE_PROBE) {
        c->probes++;
        assert_int_equal(r->probe_size, r->snapshot_size + 6);
        assert_int_equal(r->setup.dimensions, 2);
        assert_int_equal(r->setup.body_count, 5);
        assert_int_equal(onescope_hash_bytes(r->snapshot, r->snapshot_size), c->s->hashes[r->step]);
        assert_int_equal(r->step % 10, 0);
    } else if (r->type == ONESCOPE_LIVE_STEP) {
        assert_int_equal(r->step, c->steps);
        assert_int_equal(r->hash, c->s->hashes[r->step + 1]);
        c->steps++;
    } else {
        c->ends++;
        assert_int_equal(r->step, c->s->steps);
    }
    return false;
}

static void test_round_trip(void **state) {
    (void)state;
    stream s = make_stream(2, 5, NULL, 45, 10);
    assert_memory_equal(s.data, "OSLS\1\0\0\0", 8);
    collect c = {0, 0, 0, &s, 0};
    onescope_error err;
    assert_int_equal(onescope_live_decode(s.data, s.size, "s", NULL, check_record, &c, &err),
                     ONESCOPE_OK);
    assert_int_equal(c.probes, 5);
    assert_int_equal(c.steps, 45);
    assert_int_equal(c.ends, 1);
    free_stream(&s);
}

static void test_link_probe(void **state) {
    (void)state;
    onescope_link_block link = {ONESCOPE_LINK_ROLE_RECEIVER, 2, 7};
    stream s = make_stream(3, 4, &link, 20, 5);
    /* the first probe: flag 1, then the link block, then the setup */
    assert_int_equal(s.data[8], ONESCOPE_LIVE_PROBE);
    assert_int_equal(s.data[13], 1);
    assert_memory_equal(s.data + 14, "\x02\x02\x07\x00", 4);
    assert_memory_equal(s.data + 18, "\x03\x04\x05\x00\x00\x00", 6);
    onescope_live_viewer *v;
    onescope_error err;
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.record = true;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_replay *r;
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_link(r).role, ONESCOPE_LINK_ROLE_RECEIVER);
    assert_int_equal(onescope_replay_link(r).transfer_step, 7);
    assert_int_equal(onescope_replay_verify(r, NULL, NULL, "r", &err), ONESCOPE_OK);
    onescope_replay_free(r);
    onescope_live_viewer_free(v);
    /* a later probe with another link block is a mismatch */
    uint8_t *c = malloc(s.size);
    memcpy(c, s.data, s.size);
    size_t second = 8 + 5 + onescope_os_get_u32(s.data + 9);
    while (c[second] != ONESCOPE_LIVE_PROBE) second += 5 + onescope_os_get_u32(c + second + 1);
    c[second + 5 + 3] = 8; /* transfer step 7 -> 8 */
    expect_decode_error(c, s.size, ONESCOPE_E_MISMATCH, second + 5);
    free(c);
    free_stream(&s);
}

/* Offset of the second probe record of a stream (the first follows the 8-byte header). */
static size_t second_probe(const uint8_t *d) {
    size_t at = 8 + 5 + onescope_os_get_u32(d + 9);
    while (d[at] != ONESCOPE_LIVE_PROBE) at += 5 + onescope_os_get_u32(d + at + 1);
    return at;
}

/* A later probe whose seed, body count or dimensions differ from the first probe's is
 * ONESCOPE_E_MISMATCH at its setup (docs/live-stream.md), each field on its own: the later
 * probe comes whole from another host's stream, so its snapshot is valid for its setup. */
static void test_probe_setup_mismatch(void **state) {
    (void)state;
    stream a = make_stream(3, 4, NULL, 12, 5);
    size_t at = second_probe(a.data);
    /* the seed alone: patched in place (the snapshot does not hold it) */
    uint8_t *c = malloc(a.size);
    memcpy(c, a.data, a.size);
    assert_int_equal(c[at + 6 + 2], 5);
    c[at + 6 + 2] = 6;
    /* reported at the first byte that differs (docs/live-stream.md): the seed's */
    expect_decode_error(c, a.size, ONESCOPE_E_MISMATCH, at + 6 + 2);
    free(c);
    /* the body count alone (its byte, P+L+1), then the dimensions alone (P+L) */
    const uint8_t others[2][2] = {{3, 5}, {2, 4}};
    for (int k = 0; k < 2; k++) {
        stream b = make_stream(others[k][0], others[k][1], NULL, 12, 5);
        size_t bt = second_probe(b.data);
        size_t rec = 5 + onescope_os_get_u32(b.data + bt + 1);
        size_t n = at + rec;
        c = malloc(n);
        memcpy(c, a.data, at);
        memcpy(c + at, b.data + bt, rec);
        onescope_error err;
        assert_int_equal(onescope_live_decode(c, n, "s", NULL, NULL, NULL, &err),
                         ONESCOPE_E_MISMATCH);
        assert_error_at(err, ONESCOPE_E_MISMATCH, at + 6 + (k == 0 ? 1 : 0));
        assert_non_null(strstr(err.expected, "first probe"));
        free(c);
        free_stream(&b);
    }
    free_stream(&a);
}

/* The largest probe: 64 bodies and a link block fill the 2071-byte limit exactly. */
static void test_largest_probe(void **state) {
    (void)state;
    onescope_error err;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){3, 64, 1};
    def.link = (onescope_link_block){ONESCOPE_LINK_ROLE_FIELDS, 0, 0};
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    onescope_live_encoder *enc;
    assert_int_equal(onescope_live_encoder_create(NULL, &enc, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe(enc, sim, &err), ONESCOPE_OK);
    uint8_t big[ONESCOPE_SIM_MAX_INPUT];
    memset(big, 0, sizeof big);
    for (size_t i = 0; i + 5 <= sizeof big; i += 5) big[i] = ONESCOPE_OP_GRAVITY;
    size_t n = sizeof big - sizeof big % 5; /* 65535 = 13107 gravity operations */
    assert_int_equal(onescope_sim_step(sim, big, n, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_step(enc, 0, big, n, onescope_sim_hash(sim), &err), 0);
    assert_int_equal(onescope_live_encode_end(enc, 1, &err), ONESCOPE_OK);
    const uint8_t *p;
    size_t size;
    onescope_live_encoder_pending(enc, &p, &size);
    assert_int_equal(onescope_os_get_u32(p + 9), ONESCOPE_LIVE_MAX_PROBE_PAYLOAD);
    assert_int_equal(onescope_os_get_u32(p + 8 + 5 + 2071 + 1), ONESCOPE_LIVE_MAX_STEP_PAYLOAD);
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(NULL, "big", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, p, size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_steps(v), 1);
    onescope_live_viewer_free(v);
    /* one byte more than an input can hold is refused before anything is written */
    assert_int_equal(onescope_live_encode_step(enc, 1, big, n + 1, 0, &err), ONESCOPE_E_LENGTH);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
}

static void test_chunked_delivery(void **state) {
    (void)state;
    stream s = make_stream(3, 6, NULL, 120, 25);
    onescope_error err;
    digest whole, d;
    assert_int_equal(decode_chunked(s.data, s.size, 0, &whole, &err), ONESCOPE_OK);
    assert_int_equal(whole.records, 5 + 120 + 1);
    size_t chunks[] = {1, 2, 3, 5, 13, 64, 1000, 1u << 20};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        assert_int_equal(decode_chunked(s.data, s.size, chunks[i], &d, &err), ONESCOPE_OK);
        assert_memory_equal(&d, &whole, sizeof d);
    }
    free_stream(&s);
}

static void test_truncated(void **state) {
    (void)state;
    stream s = make_stream(2, 3, NULL, 12, 4);
    size_t probe_end = 8 + 5 + onescope_os_get_u32(s.data + 9);
    expect_decode_error(s.data, 0, ONESCOPE_E_TRUNCATED, 0);
    expect_decode_error(s.data, 3, ONESCOPE_E_TRUNCATED, 0);
    expect_decode_error(s.data, 8, ONESCOPE_E_TRUNCATED, 8);  /* no record at all */
    expect_decode_error(s.data, 10, ONESCOPE_E_TRUNCATED, 8); /* half a record header */
    expect_decode_error(s.data, 20, ONESCOPE_E_TRUNCATED, 8); /* half a probe */
    expect_decode_error(s.data, probe_end, ONESCOPE_E_TRUNCATED, probe_end);
    expect_decode_error(s.data, probe_end + 7, ONESCOPE_E_TRUNCATED, probe_end);
    expect_decode_error(s.data, s.size - 1, ONESCOPE_E_TRUNCATED, s.size - 13);
    /* every proper prefix is truncated, whatever the chunking */
    for (size_t n = 0; n < s.size; n++) {
        onescope_error err;
        digest d;
        assert_int_equal(decode_chunked(s.data, n, 0, &d, &err), ONESCOPE_E_TRUNCATED);
        assert_int_equal(decode_chunked(s.data, n, 1, &d, &err), ONESCOPE_E_TRUNCATED);
    }
    free_stream(&s);
}

/* ---- every framing error ---- */

static void test_framing_errors(void **state) {
    (void)state;
    stream s = make_stream(2, 3, NULL, 10, 5);
    /* layout: header 0..7; probe at 8 (payload 13: flag, 14 setup, 20 snapshot) */
    uint32_t plen = onescope_os_get_u32(s.data + 9);
    assert_int_equal(plen, 1 + 6 + 12 + 3 * 32);
    size_t st = 8 + 5 + plen; /* the first step record */
    uint32_t slen = onescope_os_get_u32(s.data + st + 1);
    size_t end = s.size - 13;
    uint8_t b[8];

    expect_patched(&s, 0, "OSLT", 4, ONESCOPE_E_MAGIC, 0);
    expect_patched(&s, 4, "\3\0", 2, ONESCOPE_E_VERSION, 4); /* 2 names a module: see v2 */
    expect_patched(&s, 6, "\1\0", 2, ONESCOPE_E_FLAGS, 6);
    expect_patched(&s, 8, "\2", 1, ONESCOPE_E_RANGE, 8); /* a step before any probe */
    expect_patched(&s, 8, "\3", 1, ONESCOPE_E_RANGE, 8); /* an end before any probe */
    expect_patched(&s, 8, "\0", 1, ONESCOPE_E_RANGE, 8); /* unknown type */
    expect_patched(&s, 8, "\x09", 1, ONESCOPE_E_RANGE, 8);
    onescope_os_put_u32(b, 50);
    expect_patched(&s, 9, b, 4, ONESCOPE_E_LENGTH, 9); /* shorter than any probe */
    onescope_os_put_u32(b, 0xFFFFFFFFu);
    expect_patched(&s, 9, b, 4, ONESCOPE_E_LENGTH, 9); /* longer than any probe */
    expect_patched(&s, 13, "\2", 1, ONESCOPE_E_FLAGS, 13);
    expect_patched(&s, 14, "\4", 1, ONESCOPE_E_RANGE, 14); /* dimensions */
    expect_patched(&s, 15, "\0", 1, ONESCOPE_E_RANGE, 15); /* body count 0 */
    expect_patched(&s, 15, "\x41", 1, ONESCOPE_E_RANGE, 15);
    expect_patched(&s, 15, "\4", 1, ONESCOPE_E_LENGTH, 20); /* 3 bodies held, 4 in the setup */
    onescope_os_put_u32(b, 5000);
    expect_patched(&s, 28, b, 4, ONESCOPE_E_RANGE, 28);    /* gravity */
    expect_patched(&s, 32, "\2", 1, ONESCOPE_E_RANGE, 32); /* body 0 alive 2 */
    expect_patched(&s, 60, "\1", 1, ONESCOPE_E_RANGE, 60); /* body 0 z velocity in 2D */
    /* the step record */
    onescope_os_put_u32(b, 17);
    expect_patched(&s, st + 1, b, 4, ONESCOPE_E_LENGTH, st + 1);
    onescope_os_put_u32(b, ONESCOPE_LIVE_MAX_STEP_PAYLOAD + 1);
    expect_patched(&s, st + 1, b, 4, ONESCOPE_E_LENGTH, st + 1);
    expect_patched(&s, st + 5, "\1", 1, ONESCOPE_E_RANGE, st + 5); /* host step 1, 0 due */
    onescope_os_put_u16(b, (uint16_t)(slen - 18 + 1));
    expect_patched(&s, st + 13, b, 2, ONESCOPE_E_LENGTH, st + 13);
    /* END: wrong host step, bytes after it */
    expect_patched(&s, end + 5, "\x0b", 1, ONESCOPE_E_RANGE, end + 5);
    expect_patched(&s, end, "\x07", 1, ONESCOPE_E_RANGE, end);
    uint8_t *longer = malloc(s.size + 3);
    memcpy(longer, s.data, s.size);
    memcpy(longer + s.size, "abc", 3);
    expect_decode_error(longer, s.size + 3, ONESCOPE_E_TRAILING, s.size);
    free(longer);
    free_stream(&s);

    /* an operation inside a step: a step with a known input */
    onescope_live_encoder *enc;
    onescope_error err;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){2, 1, 1};
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encoder_create(NULL, &enc, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe(enc, sim, &err), ONESCOPE_OK);
    uint8_t in[5] = {4, 20, 0, 0, 0};
    assert_int_equal(onescope_live_encode_step(enc, 0, in, 5, 1234, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_end(enc, 1, &err), ONESCOPE_OK);
    const uint8_t *p;
    size_t n;
    onescope_live_encoder_pending(enc, &p, &n);
    stream t = {malloc(n), n, NULL, 1};
    memcpy(t.data, p, n);
    size_t st2 = 8 + 5 + 1 + 6 + 44;
    assert_int_equal(t.data[st2], ONESCOPE_LIVE_STEP);
    expect_patched(&t, st2 + 5 + 10, "\x09", 1, ONESCOPE_E_OPERATION, st2 + 15);
    expect_patched(&t, st2 + 5 + 10, "\x03", 1, ONESCOPE_E_OPERATION, st2 + 17);
    /* the encoder refuses what the decoder would: the buffer is left as it was */
    assert_int_equal(onescope_live_encode_step(enc, 1, NULL, 0, 0, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_encoder_free(enc);
    assert_int_equal(onescope_live_encoder_create(NULL, &enc, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_step(enc, 0, NULL, 0, 0, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_live_encode_probe(enc, sim, &err), ONESCOPE_OK);
    onescope_live_encoder_pending(enc, &p, &n);
    size_t before = n;
    assert_int_equal(onescope_live_encode_step(enc, 3, NULL, 0, 0, &err), ONESCOPE_E_RANGE);
    uint8_t bad_op[2] = {3, 64};
    assert_int_equal(onescope_live_encode_step(enc, 0, bad_op, 2, 0, &err), ONESCOPE_E_RANGE);
    onescope_live_encoder_pending(enc, &p, &n);
    assert_int_equal(n, before);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    free(t.data);
}

/* The link block of a probe: each value the decoder refuses, with its offset. */
static void test_link_probe_errors(void **state) {
    (void)state;
    onescope_link_block link = {ONESCOPE_LINK_ROLE_RECEIVER, 2, 7};
    stream s = make_stream(3, 4, &link, 6, 5);
    /* 13 flag, 14 role, 15 body, 16..17 transfer step, 18 setup (body count at 19) */
    expect_patched(&s, 14, "\0", 1, ONESCOPE_E_RANGE, 14);
    expect_patched(&s, 14, "\4", 1, ONESCOPE_E_RANGE, 14);
    expect_patched(&s, 15, "\4", 1, ONESCOPE_E_RANGE, 15);          /* body 4 of 4 */
    expect_patched(&s, 14, "\3\2\0\0", 4, ONESCOPE_E_RESERVED, 15); /* fields: body must be 0 */
    expect_patched(&s, 14, "\3\0\7\0", 4, ONESCOPE_E_RESERVED, 16); /* and the step 0 */
    /* a probe with a link block needs 4 more bytes than one without (51 + 4) */
    uint8_t b[4];
    onescope_os_put_u32(b, 54);
    expect_patched(&s, 9, b, 4, ONESCOPE_E_LENGTH, 9);
    free_stream(&s);
}

static bool stop_after_first(void *user, const onescope_live_record *r) {
    (void)r;
    (*(int *)user)++;
    return true;
}

/* NULL arguments, and every call on a decoder, encoder or viewer in the wrong state. */
static void test_arguments_and_states(void **state) {
    (void)state;
    onescope_error err;
    stream s = make_stream(2, 2, NULL, 3, 2);
    onescope_live_record rec;
    size_t used = 99;

    /* the decoder */
    assert_int_equal(onescope_live_decoder_create("d", NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_decoder_offset(NULL), 0);
    assert_int_equal(onescope_live_decoder_next(NULL, s.data, s.size, &used, &rec, &err), -1);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    assert_int_equal(used, 0);
    assert_int_equal(onescope_live_decoder_finish(NULL, &err), ONESCOPE_E_ARGUMENT);
    onescope_live_decoder *d;
    assert_int_equal(onescope_live_decoder_create(NULL, NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_decoder_next(d, s.data, s.size, NULL, &rec, &err), -1);
    assert_int_equal(onescope_live_decoder_next(d, s.data, s.size, &used, NULL, &err), -1);
    assert_int_equal(onescope_live_decoder_next(d, NULL, 1, &used, &rec, &err), -1);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    /* none of those consumed anything: the stream still decodes from its start */
    assert_int_equal(onescope_live_decoder_offset(d), 0);
    assert_int_equal(onescope_live_decoder_next(d, "OSLT", 4, &used, &rec, &err), 0);
    assert_int_equal(onescope_live_decoder_next(d, "\1\0\0\0", 4, &used, &rec, &err), -1);
    assert_error_at(err, ONESCOPE_E_MAGIC, 0);
    assert_string_equal(err.input, "live stream"); /* the default name */
    assert_int_equal(onescope_live_decoder_next(d, s.data, 1, &used, &rec, &err), -1);
    assert_error_at(err, ONESCOPE_E_BAD_STATE, 8);
    assert_int_equal(used, 0);
    assert_int_equal(onescope_live_decoder_finish(d, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_decoder_free(d);
    /* NULL data with a size: the return agrees with the ARGUMENT error it reports */
    assert_int_equal(onescope_live_decode(NULL, 5, "s", NULL, NULL, NULL, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(err.code, ONESCOPE_E_ARGUMENT);
    assert_string_equal(err.input, "onescope_live_decode");
    /* no data at all (NULL, 0): a stream without its header */
    assert_int_equal(onescope_live_decode(NULL, 0, "s", NULL, NULL, NULL, &err),
                     ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 0);
    /* a callback that stops at the first record: OK, one call */
    int calls = 0;
    assert_int_equal(
        onescope_live_decode(s.data, s.size, "s", NULL, stop_after_first, &calls, &err),
        ONESCOPE_OK);
    assert_int_equal(calls, 1);

    /* the encoder */
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){2, 2, 1};
    onescope_sim *sim;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT + 1];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_live_encoder *e;
    onescope_buffer b;
    assert_int_equal(onescope_live_encoder_create(NULL, &e, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_end(NULL, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encode_probe(e, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encode_probe_parts(e, NULL, NULL, snap, n, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encode_probe_parts(e, &def.setup, NULL, NULL, n, &err),
                     ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encode_probe_parts(e, &def.setup, NULL, snap, sizeof snap, &err),
                     ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_live_encode_step(e, 0, NULL, 5, 0, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encoder_take(NULL, &b, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_encoder_take(e, NULL, &err), ONESCOPE_E_ARGUMENT);
    const uint8_t *p = (const uint8_t *)1;
    size_t size = 1;
    onescope_live_encoder_pending(NULL, &p, &size);
    assert_null(p);
    assert_int_equal(size, 0);
    onescope_live_encoder_pending(e, NULL, NULL);
    onescope_live_encoder_clear(NULL);
    onescope_live_encoder_pending(e, &p, &size);
    assert_int_equal(size, 8); /* only the stream header: every refusal above wrote nothing */
    /* a world in the middle of a step has no probe */
    uint8_t in[5] = {ONESCOPE_OP_GRAVITY, 0, 0, 0, 0};
    assert_int_equal(onescope_sim_run_stage(sim, in, 5, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe(e, sim, &err), ONESCOPE_E_BAD_STATE);
    assert_string_equal(err.field, "world");
    onescope_sim_free(sim);
    /* a link block of role NONE is the same as none: flag byte 0 */
    onescope_link_block none = {ONESCOPE_LINK_ROLE_NONE, 0, 0};
    assert_int_equal(onescope_live_encode_probe_parts(e, &def.setup, &none, snap, n, &err),
                     ONESCOPE_OK);
    onescope_live_encoder_pending(e, &p, &size);
    assert_int_equal(p[8], ONESCOPE_LIVE_PROBE);
    assert_int_equal(p[13], 0);
    assert_int_equal(size, 8 + 5 + 1 + 6 + n);
    onescope_live_encoder_free(e);
    /* an encoder whose buffer could not grow refuses everything after */
    test_alloc t;
    test_alloc_init(&t, 3); /* the encoder, its first 256 bytes, then the growth */
    assert_int_equal(onescope_live_encoder_create(&t.allocator, &e, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe_parts(e, &def.setup, NULL, snap, n, &err),
                     ONESCOPE_OK);
    uint8_t gravity[500];
    memset(gravity, 0, sizeof gravity);
    for (size_t i = 0; i < sizeof gravity; i += 5) gravity[i] = ONESCOPE_OP_GRAVITY;
    assert_int_equal(onescope_live_encode_step(e, 0, gravity, sizeof gravity, 0, &err),
                     ONESCOPE_E_NOMEM);
    assert_int_equal(onescope_live_encode_end(e, 0, &err), ONESCOPE_E_BAD_STATE);
    assert_string_equal(err.found, "the encoder failed earlier");
    assert_int_equal(onescope_live_encoder_take(e, &b, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_encoder_free(e);
    assert_int_equal(t.live, 0);

    /* the viewer */
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_apply(NULL, &rec, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_feed(NULL, s.data, s.size, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_finish(NULL, &err), ONESCOPE_E_ARGUMENT);
    onescope_replay *r = (onescope_replay *)1;
    assert_int_equal(onescope_live_viewer_replay(NULL, NULL, &r, &err), ONESCOPE_E_ARGUMENT);
    assert_false(onescope_live_viewer_synced(NULL));
    assert_false(onescope_live_viewer_ended(NULL));
    assert_null(onescope_live_viewer_sim(NULL));
    assert_int_equal(onescope_live_viewer_steps(NULL), 0);
    assert_int_equal(onescope_live_viewer_create(NULL, NULL, NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_apply(v, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_feed(v, NULL, 3, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_replay(v, NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_E_BAD_STATE);
    assert_null(r);
    assert_null(onescope_live_viewer_sim(v));
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_true(onescope_live_viewer_synced(v));
    assert_true(onescope_live_viewer_ended(v));
    assert_non_null(onescope_live_viewer_sim(v));
    assert_int_equal(onescope_sim_host_step(onescope_live_viewer_sim(v)), 3);
    /* a record applied after the end is trailing, named by its type */
    memset(&rec, 0, sizeof rec);
    rec.type = ONESCOPE_LIVE_STEP;
    rec.offset = 1234;
    assert_int_equal(onescope_live_viewer_apply(v, &rec, &err), ONESCOPE_E_TRAILING);
    assert_error_at(err, ONESCOPE_E_TRAILING, 1234);
    assert_string_equal(err.found, "a record of type step");
    rec.type = (onescope_live_record_type)9;
    assert_int_equal(onescope_live_viewer_apply(v, &rec, &err), ONESCOPE_E_TRAILING);
    assert_string_equal(err.found, "a record of type unknown");
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_live_viewer_free(v);
    /* a viewer that failed refuses everything after */
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, "OSLT\1\0\0\0", 8, &err), ONESCOPE_E_MAGIC);
    rec.type = ONESCOPE_LIVE_END;
    assert_int_equal(onescope_live_viewer_apply(v, &rec, &err), ONESCOPE_E_BAD_STATE);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_viewer_free(v);
    /* records applied without feeding: an END before any probe ends it unsynced */
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_apply(v, &rec, &err), ONESCOPE_OK);
    assert_true(onescope_live_viewer_ended(v));
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "probe");
    onescope_live_viewer_free(v);
    free_stream(&s);
}

/* Records handed to onescope_live_viewer_apply directly (not through the decoder) are
 * checked against the viewer's world all the same. */
static void test_viewer_apply_checks_records(void **state) {
    (void)state;
    onescope_error err;
    onescope_live_encoder *e;
    assert_int_equal(onescope_live_encoder_create(NULL, NULL, &err), ONESCOPE_E_ARGUMENT);
    stream s = make_stream(2, 2, NULL, 4, 2);
    /* the records of s, collected by a decoder */
    onescope_live_record recs[16];
    size_t count = 0, pos = 0, used;
    onescope_live_decoder *d;
    assert_int_equal(onescope_live_decoder_create("s", NULL, &d, &err), ONESCOPE_OK);
    uint8_t copies[16][256]; /* a record points into the decoder's buffer: keep copies */
    while (count < 16 && onescope_live_decoder_next(d, s.data + pos, s.size - pos, &used,
                                                    &recs[count], &err) == 1) {
        onescope_live_record *c = &recs[count];
        if (c->type == ONESCOPE_LIVE_PROBE) {
            assert_true(c->snapshot_size <= sizeof copies[0]);
            memcpy(copies[count], c->snapshot, c->snapshot_size);
            c->snapshot = copies[count];
            c->probe = NULL;
        } else if (c->type == ONESCOPE_LIVE_STEP) {
            assert_true(c->input_size <= sizeof copies[0]);
            memcpy(copies[count], c->input, c->input_size);
            c->input = copies[count];
        }
        pos += used;
        count++;
    }
    assert_int_equal(count, 2 + 4 + 1); /* probes at 0 and 2, four steps, the end */
    assert_int_equal(recs[0].type, ONESCOPE_LIVE_PROBE);
    assert_int_equal(recs[1].type, ONESCOPE_LIVE_STEP);
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, NULL, 0, &err), ONESCOPE_OK); /* nothing */
    assert_int_equal(onescope_live_viewer_apply(v, &recs[0], &err), ONESCOPE_OK);
    assert_true(onescope_live_viewer_synced(v));
    /* a step from the wrong host step */
    onescope_live_record r = recs[1];
    r.step = 1;
    assert_int_equal(onescope_live_viewer_apply(v, &r, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, recs[1].offset + 5);
    assert_string_equal(err.field, "host step");
    onescope_live_viewer_free(v);
    /* a step whose input the world refuses */
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_apply(v, &recs[0], &err), ONESCOPE_OK);
    r = recs[1];
    uint8_t bad[2] = {0x7f, 0};
    r.input = bad;
    r.input_size = sizeof bad;
    assert_int_equal(onescope_live_viewer_apply(v, &r, &err), ONESCOPE_E_OPERATION);
    assert_int_equal(onescope_live_viewer_steps(v), 0);
    onescope_live_viewer_free(v);
    /* a probe whose snapshot is shorter than the world's */
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_apply(v, &recs[0], &err), ONESCOPE_OK);
    r = recs[0];
    r.snapshot_size--;
    assert_int_equal(onescope_live_viewer_apply(v, &r, &err), ONESCOPE_E_MISMATCH);
    assert_error_at(err, ONESCOPE_E_MISMATCH, recs[0].offset);
    onescope_live_viewer_free(v);
    /* an end at the wrong host step */
    assert_int_equal(onescope_live_viewer_create(NULL, "v", NULL, &v, &err), ONESCOPE_OK);
    for (size_t i = 0; i + 1 < count; i++)
        assert_int_equal(onescope_live_viewer_apply(v, &recs[i], &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_steps(v), 4);
    r = recs[count - 1];
    assert_int_equal(r.type, ONESCOPE_LIVE_END);
    r.step = 5;
    assert_int_equal(onescope_live_viewer_apply(v, &r, &err), ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, r.offset + 5);
    assert_string_equal(err.field, "end host step");
    onescope_live_viewer_free(v);
    onescope_live_decoder_free(d);

    /* the encoder: an empty snapshot is refused before anything is written; nothing after END */
    assert_int_equal(onescope_live_encoder_create(NULL, &e, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe_parts(e, &recs[0].setup, NULL, NULL, 0, &err),
                     ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_live_encode_probe_parts(e, &recs[0].setup, NULL, recs[0].snapshot,
                                                      recs[0].snapshot_size, &err),
                     ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_end(e, 0, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe_parts(e, &recs[0].setup, NULL, recs[0].snapshot,
                                                      recs[0].snapshot_size, &err),
                     ONESCOPE_E_BAD_STATE);
    assert_string_equal(err.found, "the stream has ended (end record written)");
    onescope_live_encoder_free(e);
    free_stream(&s);
}

/* A recording viewer over more steps than its first block of hash rows holds (256). */
static void test_viewer_records_many_rows(void **state) {
    (void)state;
    stream s = make_stream(2, 3, NULL, 600, 100);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.record = true;
    onescope_live_viewer *v;
    onescope_error err;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_steps(v), 600);
    onescope_replay *r;
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_step_count(r), 600);
    for (uint32_t i = 0; i <= 600; i++)
        assert_int_equal(onescope_replay_hash_rows(r)[i], s.hashes[i]);
    onescope_replay_free(r);
    onescope_live_viewer_free(v);
    free_stream(&s);
}

/* ---- the viewer ---- */

typedef struct rows {
    uint64_t first;
    uint64_t count;
    const stream *s;
} rows;

static void on_row(void *user, const onescope_live_row *row) {
    rows *r = user;
    if (r->count == 0) r->first = row->step;
    assert_int_equal(row->hash, r->s->hashes[row->step]);
    assert_int_equal(row->hash, onescope_sim_hash(row->sim));
    r->count++;
}

static void test_viewer_attach_mid_run(void **state) {
    (void)state;
    stream s = make_stream(3, 7, NULL, 200, 40);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    rows rr = {0, 0, &s};
    o.from_step = 81;
    o.record = true;
    o.on_row = on_row;
    o.user = &rr;
    onescope_live_viewer *v;
    onescope_error err;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    for (size_t i = 0; i < s.size; i += 3)
        assert_int_equal(
            onescope_live_viewer_feed(v, s.data + i, s.size - i < 3 ? s.size - i : 3, &err),
            ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    assert_int_equal(rr.first, 120); /* the first probe at or after 81 */
    assert_int_equal(rr.count, 81);
    assert_int_equal(onescope_live_viewer_steps(v), 80);
    onescope_replay *r;
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_OK);
    assert_true(onescope_replay_has_start_snapshot(r));
    assert_int_equal(onescope_replay_start_step(r), 120);
    assert_int_equal(onescope_replay_step_count(r), 80);
    assert_int_equal(onescope_replay_flags(r), 3);
    onescope_buffer b;
    assert_int_equal(onescope_replay_write(r, NULL, &b, &err), ONESCOPE_OK);
    onescope_replay *again;
    assert_int_equal(onescope_replay_parse(b.data, b.size, "saved", NULL, &again, &err), 0);
    onescope_verify_result vr;
    assert_int_equal(onescope_replay_verify(again, NULL, &vr, "saved", &err), ONESCOPE_OK);
    assert_int_equal(vr.rows_checked, 81);
    for (uint32_t i = 0; i <= 80; i++)
        assert_int_equal(onescope_replay_hash_rows(again)[i], s.hashes[120 + i]);
    onescope_replay_free(again);
    onescope_buffer_free(&b);
    onescope_replay_free(r);
    onescope_live_viewer_free(v);

    /* from past the last probe: never syncs */
    o.from_step = 161;
    o.on_row = NULL;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_RANGE);
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_E_RANGE);
    onescope_live_viewer_free(v);
    free_stream(&s);
}

static void test_viewer_mismatch(void **state) {
    (void)state;
    stream s = make_stream(2, 4, NULL, 30, 10);
    onescope_error err;
    onescope_live_viewer *v;
    /* a host hash that differs in step 12's record */
    size_t at = 8;
    for (;;) {
        if (s.data[at] == ONESCOPE_LIVE_STEP && onescope_os_get_u64(s.data + at + 5) == 12) break;
        at += 5 + onescope_os_get_u32(s.data + at + 1);
    }
    uint8_t *c = malloc(s.size);
    memcpy(c, s.data, s.size);
    size_t len = onescope_os_get_u32(c + at + 1);
    c[at + 5 + len - 1] ^= 1;
    assert_int_equal(onescope_live_viewer_create(NULL, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, c, s.size, &err), ONESCOPE_E_MISMATCH);
    assert_error_at(err, ONESCOPE_E_MISMATCH, at);
    assert_int_equal(onescope_live_viewer_feed(v, c, 1, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_viewer_free(v);
    /* a viewer that attached after the bad record does not see it */
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.from_step = 20;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, c, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_live_viewer_free(v);
    /* a later probe whose world differs from the viewer's (still a valid snapshot) */
    memcpy(c, s.data, s.size);
    at = 8 + 5 + onescope_os_get_u32(c + 9);
    while (c[at] != ONESCOPE_LIVE_PROBE) at += 5 + onescope_os_get_u32(c + at + 1);
    c[at + 5 + 7 + 16] ^= 1; /* body 0 still count */
    assert_int_equal(onescope_live_viewer_create(NULL, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, c, s.size, &err), ONESCOPE_E_MISMATCH);
    assert_error_at(err, ONESCOPE_E_MISMATCH, at);
    onescope_live_viewer_free(v);
    free(c);
    free_stream(&s);
}

/* ---- the viewer recording through the streaming replay writer ---- */

static char save_dir[64];

static const char *save_file(const char *name) {
    static char path[4][160];
    static int next;
    if (save_dir[0] == '\0') {
        snprintf(save_dir, sizeof save_dir, "test_live_save_XXXXXX");
        assert_non_null(mkdtemp(save_dir));
    }
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", save_dir, name);
    return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static void read_all(const char *path, onescope_buffer *b) {
    onescope_error err;
    assert_int_equal(onescope_file_read(path, 0, NULL, b, &err), ONESCOPE_OK);
}

/* The stream offset of the STEP record that starts from host step `step`. */
static size_t step_record_at(const stream *s, uint64_t step) {
    size_t at = 8;
    while (!(s->data[at] == ONESCOPE_LIVE_STEP && onescope_os_get_u64(s->data + at + 5) == step))
        at += 5 + onescope_os_get_u32(s->data + at + 1);
    return at;
}

/* Saved as it goes: the file is byte for byte the replay the in-memory recording makes, it
 * appears only at finish, and the partial is gone after it. */
static void test_viewer_saves_streaming(void **state) {
    (void)state;
    stream s = make_stream(3, 7, NULL, 200, 40);
    const char *path = save_file("mid.ostm");
    char partial[200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.from_step = 81;
    o.record = true;
    o.save_path = path;
    o.save_options.buffer_bytes = 1; /* raised to one largest step: several flushes */
    onescope_live_viewer *v;
    onescope_error err;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    size_t half = step_record_at(&s, 150); /* past the probe at 120, where it syncs */
    assert_int_equal(onescope_live_viewer_feed(v, s.data, half, &err), ONESCOPE_OK);
    assert_true(file_exists(partial));
    assert_false(file_exists(path));
    assert_int_equal(onescope_live_viewer_feed(v, s.data + half, s.size - half, &err), 0);
    assert_false(file_exists(path)); /* the END record is seen; finish puts the file there */
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    assert_true(file_exists(path));
    assert_false(file_exists(partial));
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK); /* nothing more to do */
    onescope_replay *r;
    assert_int_equal(onescope_live_viewer_replay(v, NULL, &r, &err), ONESCOPE_OK);
    onescope_buffer want, got;
    assert_int_equal(onescope_replay_write(r, NULL, &want, &err), ONESCOPE_OK);
    read_all(path, &got);
    assert_int_equal(got.size, want.size);
    assert_memory_equal(got.data, want.data, want.size);
    onescope_replay *saved;
    assert_int_equal(onescope_replay_read_file(path, NULL, &saved, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_start_step(saved), 120);
    assert_int_equal(onescope_replay_step_count(saved), 80);
    assert_int_equal(onescope_replay_verify(saved, NULL, NULL, "saved", &err), ONESCOPE_OK);
    onescope_replay_free(saved);
    onescope_buffer_free(&want);
    onescope_buffer_free(&got);
    onescope_replay_free(r);
    onescope_live_viewer_free(v);
    /* the path was copied: the caller's string may go */
    char copy[200];
    snprintf(copy, sizeof copy, "%s", save_file("copied.ostm"));
    o.save_path = copy;
    o.record = false;
    o.from_step = 0;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    memset(copy, 'x', 20);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_live_viewer_free(v);
    assert_true(file_exists(save_file("copied.ostm")));
    free_stream(&s);
}

/* Issue 14 item 4: a recording that would pass its limit is refused at the record that would
 * pass it, before the step runs, naming the stream; no file is made, and the partial holds
 * every step before it. The limit here is the size of the whole run's file: exactly that
 * passes, one byte less refuses the last step. */
static void test_viewer_save_limit(void **state) {
    (void)state;
    stream s = make_stream(2, 4, NULL, 100, 1000);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.save_path = save_file("whole.ostm");
    onescope_live_viewer *v;
    onescope_error err;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_live_viewer_free(v);
    onescope_buffer whole;
    read_all(o.save_path, &whole);

    o.save_path = save_file("exact.ostm");
    o.max_record_bytes = whole.size;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    onescope_live_viewer_free(v);
    assert_true(file_exists(o.save_path));

    for (int in_memory = 0; in_memory < 2; in_memory++) {
        o.save_path = in_memory ? NULL : save_file("over.ostm");
        o.record = in_memory;
        o.max_record_bytes = whole.size - 1;
        assert_int_equal(onescope_live_viewer_create(&o, "stdin-like", NULL, &v, &err), 0);
        assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_TOO_LARGE);
        assert_error_at(err, ONESCOPE_E_TOO_LARGE, step_record_at(&s, 99));
        assert_string_equal(err.input, "stdin-like");
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        char want[128];
        snprintf(want, sizeof want, "expected at most %zu bytes (the viewer's limit), found %zu",
                 whole.size - 1, whole.size);
        assert_non_null(strstr(line, want));
        assert_null(strchr(line, '\n'));
        assert_int_equal(onescope_live_viewer_steps(v), 99);
        assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_BAD_STATE);
        onescope_live_viewer_free(v);
    }
    assert_false(file_exists(save_file("over.ostm")));
    uint64_t kept;
    assert_int_equal(
        onescope_replay_recover(save_file("over.ostm.partial"), NULL, NULL, &kept, &err),
        ONESCOPE_OK);
    assert_int_equal(kept, 99);
    onescope_buffer over;
    read_all(save_file("over.ostm"), &over);
    onescope_replay *r;
    assert_int_equal(onescope_replay_parse(over.data, over.size, "over", NULL, &r, &err), 0);
    assert_int_equal(onescope_replay_verify(r, NULL, NULL, "over", &err), ONESCOPE_OK);
    for (uint32_t i = 0; i <= 99; i++)
        assert_int_equal(onescope_replay_hash_rows(r)[i], s.hashes[i]);
    onescope_replay_free(r);
    onescope_buffer_free(&over);
    onescope_buffer_free(&whole);
    free_stream(&s);
}

/* Refusals, and what a failed or abandoned viewer leaves: the target untouched, the partial
 * with every checked step. */
static void test_viewer_save_failures(void **state) {
    (void)state;
    stream s = make_stream(2, 4, NULL, 30, 10);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    onescope_live_viewer *v;
    onescope_error err;
    o.save_path = "-";
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_E_ARGUMENT);
    assert_null(v);
    o.save_path = "";
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_E_ARGUMENT);
    /* a mismatch at step 12: steps 0..11 were checked and stay in the partial */
    uint8_t *c = malloc(s.size);
    memcpy(c, s.data, s.size);
    size_t at = step_record_at(&s, 12);
    c[at + 5 + onescope_os_get_u32(c + at + 1) - 1] ^= 1;
    o.save_path = save_file("bad.ostm");
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, c, s.size, &err), ONESCOPE_E_MISMATCH);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_BAD_STATE);
    onescope_live_viewer_free(v);
    assert_false(file_exists(o.save_path));
    uint64_t kept;
    assert_int_equal(
        onescope_replay_recover(save_file("bad.ostm.partial"), NULL, NULL, &kept, &err), 0);
    assert_int_equal(kept, 12);
    /* the partial is still there: a second viewer to the same path refuses at its sync */
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_IO);
    assert_non_null(strstr(err.found, "it exists"));
    onescope_live_viewer_free(v);
    /* freed before the end (an engine unwinding): the partial holds what was checked */
    o.save_path = save_file("cut.ostm");
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, step_record_at(&s, 20), &err), 0);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_E_TRUNCATED);
    onescope_live_viewer_free(v);
    assert_false(file_exists(o.save_path));
    assert_int_equal(
        onescope_replay_recover(save_file("cut.ostm.partial"), NULL, NULL, &kept, &err), 0);
    assert_int_equal(kept, 20);
    /* a folder that does not exist: refused when the writer opens, at the sync */
    o.save_path = save_file("no/such/dir.ostm");
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_IO);
    onescope_live_viewer_free(v);
    /* the target is a folder: refused when the writer opens (at the sync), before a partial
     * exists, not after the whole stream */
    const char *folder = save_file("folder.ostm");
    assert_int_equal(mkdir(folder, 0777), 0);
    char inside[200];
    snprintf(inside, sizeof inside, "%s/x", folder);
    test_write_file(inside, "x", 1);
    o.save_path = folder;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_ARGUMENT);
    assert_non_null(strstr(err.found, "a directory"));
    onescope_live_viewer_free(v);
    assert_false(file_exists(save_file("folder.ostm.partial")));
    free(c);
    free_stream(&s);
}

/* A viewer killed with SIGKILL at points through the stream (a write per step): recovery
 * gives exactly the steps it had checked, each with the host's hash, and the file verifies. */
static void test_viewer_save_killed(void **state) {
    (void)state;
    stream s = make_stream(3, 6, NULL, 300, 50);
    uint64_t seed = 7;
    for (int round = 0; round < 8; round++) {
        char name[32];
        snprintf(name, sizeof name, "killed-%d.ostm", round);
        const char *path = save_file(name);
        size_t cut = 8 + (size_t)(test_rand(&seed) % (s.size - 8));
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            onescope_live_viewer_options o = onescope_live_viewer_options_default();
            o.save_path = path;
            o.save_options.flush_every = 1;
            onescope_live_viewer *v;
            onescope_error err;
            if (onescope_live_viewer_create(&o, "s", NULL, &v, &err) != ONESCOPE_OK) _exit(1);
            if (onescope_live_viewer_feed(v, s.data, cut, &err) != ONESCOPE_OK) _exit(2);
            uint64_t steps = onescope_live_viewer_steps(v);
            if (write(fds[1], &steps, sizeof steps) != (ssize_t)sizeof steps) _exit(3);
            for (;;) pause(); /* killed here, the viewer still open */
        }
        close(fds[1]);
        uint64_t steps = 0;
        assert_int_equal(read(fds[0], &steps, sizeof steps), (ssize_t)sizeof steps);
        close(fds[0]);
        assert_int_equal(kill(pid, SIGKILL), 0);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_false(file_exists(path));
        char partial[200];
        snprintf(partial, sizeof partial, "%s.partial", path);
        uint64_t kept;
        onescope_error err;
        assert_int_equal(onescope_replay_recover(partial, NULL, NULL, &kept, &err), ONESCOPE_OK);
        assert_int_equal(kept, steps);
        onescope_replay *r;
        assert_int_equal(onescope_replay_read_file(path, NULL, &r, &err), ONESCOPE_OK);
        assert_int_equal(onescope_replay_verify(r, NULL, NULL, "killed", &err), ONESCOPE_OK);
        for (uint32_t i = 0; i <= kept; i++)
            assert_int_equal(onescope_replay_hash_rows(r)[i], s.hashes[i]);
        onescope_replay_free(r);
    }
    free_stream(&s);
}

/* ---- allocation failure ---- */

/* The viewer synced late, recording, then its replay: every allocation refused in turn. */
static onescope_code view_and_record(const onescope_allocator *a, void *ctx) {
    const stream *s = ctx;
    onescope_error err;
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.record = true;
    o.from_step = 15;
    onescope_live_viewer *v = NULL;
    onescope_code rc = onescope_live_viewer_create(&o, "s", a, &v, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_feed(v, s->data, s->size, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_finish(v, &err);
    onescope_replay *r = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_replay(v, a, &r, &err);
    onescope_replay_free(r);
    onescope_live_viewer_free(v);
    return rc;
}

/* The same, saving through the streaming writer: every allocation of the viewer, the writer
 * and its close refused in turn. Each run starts with no file and no partial. */
static onescope_code view_and_save(const onescope_allocator *a, void *ctx) {
    const stream *s = ctx;
    const char *path = save_file("walk.ostm");
    char partial[200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove(path);
    remove(partial);
    onescope_error err;
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.save_path = path;
    o.from_step = 15;
    onescope_live_viewer *v = NULL;
    onescope_code rc = onescope_live_viewer_create(&o, "s", a, &v, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_feed(v, s->data, s->size, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_finish(v, &err);
    onescope_live_viewer_free(v);
    if (rc == ONESCOPE_OK && !file_exists(path)) rc = ONESCOPE_E_IO;
    return rc;
}

/* A host run encoded (probes every 50 steps), taken and decoded again. */
static onescope_code encode_and_decode(const onescope_allocator *a, void *ctx) {
    (void)ctx;
    onescope_error err;
    onescope_live_encoder *enc = NULL;
    onescope_sim_def def = onescope_sim_def_default();
    onescope_sim *sim = NULL;
    onescope_code rc = onescope_sim_create(&def, a, &sim, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_create(a, &enc, &err);
    for (uint64_t i = 0; i < 200 && rc == ONESCOPE_OK; i++) {
        if (i % 50 == 0) rc = onescope_live_encode_probe(enc, sim, &err);
        if (rc == ONESCOPE_OK) rc = onescope_sim_step(sim, NULL, 0, &err);
        if (rc == ONESCOPE_OK)
            rc = onescope_live_encode_step(enc, i, NULL, 0, onescope_sim_hash(sim), &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_live_encode_end(enc, 200, &err);
    onescope_buffer b = {NULL, 0, NULL};
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_take(enc, &b, &err);
    if (rc == ONESCOPE_OK) {
        rc = onescope_live_decode(b.data, b.size, "b", a, NULL, NULL, &err);
        onescope_buffer_free(&b);
    }
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    return rc;
}

static void test_alloc_failure(void **state) {
    (void)state;
    stream s = make_stream(3, 5, NULL, 40, 10);
    /* world, decoder, payload, replay, rows at least: more than 4 allocations to refuse */
    assert_true(test_alloc_walk(view_and_record, &s) > 4);
    assert_true(test_alloc_walk(view_and_save, &s) > 6);
    assert_true(test_alloc_walk(encode_and_decode, NULL) > 3);
    /* a huge declared length is refused before anything is allocated for it */
    uint8_t head[13] = {'O', 'S', 'L', 'S', 1, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0x7F};
    test_alloc t;
    test_alloc_init(&t, 0);
    onescope_error err;
    assert_int_equal(onescope_live_decode(head, sizeof head, "h", &t.allocator, NULL, NULL, &err),
                     ONESCOPE_E_LENGTH);
    assert_int_equal(t.count, 1); /* the decoder itself, nothing for the record */
    free_stream(&s);
}

/* ---- random mutations: no crash, the same answer whole and byte by byte ---- */

static void test_mutations(void **state) {
    (void)state;
    stream s = make_stream(3, 3, NULL, 25, 6);
    uint64_t seed = 42;
    uint8_t *c = malloc(s.size + 8);
    for (int round = 0; round < 3000; round++) {
        size_t size = s.size;
        memcpy(c, s.data, size);
        int edits = 1 + (int)(test_rand(&seed) % 3);
        for (int e = 0; e < edits; e++) {
            uint64_t r = test_rand(&seed);
            size_t at = (size_t)(r % size);
            switch ((r >> 32) % 4) {
                case 0: c[at] = (uint8_t)(r >> 40); break;
                case 1: c[at] ^= (uint8_t)(1u << ((r >> 40) % 8)); break;
                case 2: size = at; break;
                default: c[at] = (uint8_t)((r >> 40) % 4); break;
            }
            if (size == 0) break;
        }
        onescope_error e1, e2;
        digest d1, d2;
        onescope_code r1 = decode_chunked(c, size, 0, &d1, &e1);
        onescope_code r2 = decode_chunked(c, size, 1, &d2, &e2);
        assert_int_equal(r1, r2);
        if (r1 != ONESCOPE_OK) {
            assert_int_equal(e1.offset, e2.offset);
            assert_true(e1.offset <= size);
        }
        assert_int_equal(d1.records, d2.records);
        assert_true(d1.hash == d2.hash);
        /* the viewer never crashes on it either */
        onescope_live_viewer *v;
        assert_int_equal(onescope_live_viewer_create(NULL, "m", NULL, &v, &e1), ONESCOPE_OK);
        if (onescope_live_viewer_feed(v, c, size, &e1) == ONESCOPE_OK)
            (void)onescope_live_viewer_finish(v, &e1);
        onescope_live_viewer_free(v);
    }
    free(c);
    free_stream(&s);
}

/* ---- version 2: a stream that names its module ---- */

/* The test module's setup blob for 2D, 3 bodies, seed 5 (docs/module.md). */
static const uint8_t v2_setup[6] = {2, 3, 5, 0, 0, 0};

/* The test module under another id, with or without snapshot and restore. */
static onescope_module other_module(const char *id, bool snapshots) {
    onescope_module m = *onescope_module_test();
    m.id = id;
    if (!snapshots) {
        m.snapshot = NULL;
        m.restore = NULL;
    }
    return m;
}

/* A version-2 host: the module's world from v2_setup, `steps` steps of the test-data script,
 * a probe every K steps (the first one without a snapshot unless first_snapshot). The stream
 * is named `id` (NULL: the module's own). */
static stream make_stream_v2(const onescope_module *m, const char *id, uint32_t steps,
                             uint32_t probe_every, bool first_snapshot) {
    onescope_error err;
    onescope_world *w;
    assert_int_equal(onescope_world_create(m, v2_setup, sizeof v2_setup, NULL, &w, &err),
                     ONESCOPE_OK);
    onescope_live_encoder *enc;
    assert_int_equal(
        onescope_live_encoder_create_module(id ? id : m->id, m->version, NULL, &enc, &err),
        ONESCOPE_OK);
    testdata_script sc = {0};
    sc.dimensions = 2;
    sc.seed = 9;
    stream s;
    s.steps = steps;
    s.hashes = calloc(steps + 1u, sizeof *s.hashes);
    s.hashes[0] = onescope_world_hash(w);
    for (uint32_t i = 0; i <= steps; i++) {
        if (i == 0 && !first_snapshot) {
            assert_int_equal(
                onescope_live_encode_probe_blob(enc, 0, v2_setup, sizeof v2_setup, NULL, 0, &err),
                ONESCOPE_OK);
        } else if (i % probe_every == 0 && i < steps) {
            onescope_buffer b;
            assert_int_equal(onescope_world_snapshot(w, NULL, &b, &err), ONESCOPE_OK);
            assert_int_equal(onescope_live_encode_probe_blob(enc, i, v2_setup, sizeof v2_setup,
                                                             b.data, b.size, &err),
                             ONESCOPE_OK);
            onescope_buffer_free(&b);
        }
        if (i == steps) break;
        uint8_t in[TESTDATA_MAX_SCRIPT_INPUT];
        size_t n = testdata_script_input(&sc, i, in, sizeof in);
        assert_int_equal(onescope_world_step(w, in, n, &err), ONESCOPE_OK);
        s.hashes[i + 1] = onescope_world_hash(w);
        assert_int_equal(onescope_live_encode_step(enc, i, in, n, s.hashes[i + 1], &err), 0);
    }
    assert_int_equal(onescope_live_encode_end(enc, steps, &err), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_live_encoder_take(enc, &b, &err), ONESCOPE_OK);
    s.data = b.data;
    s.size = b.size;
    onescope_live_encoder_free(enc);
    onescope_world_free(w);
    return s;
}

/* One printable line: what every error must format to. */
static void assert_one_line(const onescope_error *err, const char *want) {
    char line[1024];
    onescope_error_format(err, line, sizeof line);
    for (const char *c = line; *c; c++) assert_true(*c >= 0x20 && *c < 0x7f);
    if (want != NULL && strstr(line, want) == NULL) fail_msg("\"%s\" lacks \"%s\"", line, want);
}

typedef struct v2_collect {
    const stream *s;
    uint32_t probes, steps;
    onescope_live_encoder *again; /* re-encodes every record */
} v2_collect;

static bool v2_record(void *user, const onescope_live_record *r) {
    v2_collect *c = user;
    onescope_error err;
    assert_int_equal(r->version, 2);
    assert_string_equal(r->module_id, "onescope.test");
    assert_string_equal(r->module_version, "1");
    if (r->type == ONESCOPE_LIVE_PROBE) {
        assert_int_equal(r->setup_blob_size, sizeof v2_setup);
        assert_memory_equal(r->setup_blob, v2_setup, sizeof v2_setup);
        assert_null(r->probe);
        assert_int_equal(r->has_snapshot, r->step != 0);
        if (r->has_snapshot) /* the test module's hash is the snapshot's */
            assert_true(onescope_hash_bytes(r->snapshot, r->snapshot_size) ==
                        c->s->hashes[r->step]);
        assert_int_equal(onescope_live_encode_probe_blob(
                             c->again, r->step, r->setup_blob, r->setup_blob_size,
                             r->has_snapshot ? r->snapshot : NULL, r->snapshot_size, &err),
                         ONESCOPE_OK);
        c->probes++;
    } else if (r->type == ONESCOPE_LIVE_STEP) {
        assert_int_equal(r->step, c->steps);
        assert_true(r->hash == c->s->hashes[r->step + 1]);
        assert_int_equal(
            onescope_live_encode_step(c->again, r->step, r->input, r->input_size, r->hash, &err),
            ONESCOPE_OK);
        c->steps++;
    } else {
        assert_int_equal(r->step, c->s->steps);
        assert_int_equal(onescope_live_encode_end(c->again, r->step, &err), ONESCOPE_OK);
    }
    return false;
}

static void test_v2_round_trip(void **state) {
    (void)state;
    stream s = make_stream_v2(onescope_module_test(), NULL, 30, 10, false);
    /* header, then the module's texts with their lengths, as an OSTM v2 file stores them */
    assert_memory_equal(s.data,
                        "OSLS\2\0\0\0\x0donescope.test\x01"
                        "1",
                        24);
    onescope_error err;
    v2_collect c = {&s, 0, 0, NULL};
    assert_int_equal(
        onescope_live_encoder_create_module("onescope.test", "1", NULL, &c.again, &err),
        ONESCOPE_OK);
    assert_int_equal(onescope_live_decode(s.data, s.size, "s", NULL, v2_record, &c, &err),
                     ONESCOPE_OK);
    assert_int_equal(c.probes, 3);
    assert_int_equal(c.steps, 30);
    /* decode, encode again: byte for byte */
    const uint8_t *again;
    size_t size;
    onescope_live_encoder_pending(c.again, &again, &size);
    assert_int_equal(size, s.size);
    assert_memory_equal(again, s.data, size);
    onescope_live_encoder_free(c.again);
    /* any chunking: the same records */
    digest d0, d1, d7;
    assert_int_equal(decode_chunked(s.data, s.size, 0, &d0, &err), ONESCOPE_OK);
    assert_int_equal(decode_chunked(s.data, s.size, 1, &d1, &err), ONESCOPE_OK);
    assert_int_equal(decode_chunked(s.data, s.size, 7, &d7, &err), ONESCOPE_OK);
    assert_int_equal(d0.records, 3 + 30 + 1);
    assert_true(d0.hash == d1.hash && d0.hash == d7.hash);
    free_stream(&s);
}

/* Every field of a version-2 stream, broken in turn: its code at its offset. Layout of the
 * stream below: header 0..7, id length 8, id 9..21, version length 22, version 23, the first
 * probe at H = 24 (payload at P = 29: step, flags 37, setup length 38, setup 42..47), with no
 * snapshot; the first step at 48. */
static void test_v2_framing_errors(void **state) {
    (void)state;
    stream s = make_stream_v2(onescope_module_test(), NULL, 12, 5, false);
    const size_t H = 24, P = 29, st = 48;
    assert_int_equal(s.data[H], ONESCOPE_LIVE_PROBE);
    assert_int_equal(onescope_os_get_u32(s.data + H + 1), 13 + 6);
    assert_int_equal(s.data[st], ONESCOPE_LIVE_STEP);
    uint32_t slen = onescope_os_get_u32(s.data + st + 1);
    size_t p2 = st + 5 + slen; /* the steps up to the probe at 5 */
    while (s.data[p2] != ONESCOPE_LIVE_PROBE) p2 += 5 + onescope_os_get_u32(s.data + p2 + 1);
    uint32_t p2len = onescope_os_get_u32(s.data + p2 + 1);
    size_t end = s.size - 13;
    uint8_t b[8];

    expect_patched(&s, 4, "\3\0", 2, ONESCOPE_E_VERSION, 4);
    expect_patched(&s, 8, "\0", 1, ONESCOPE_E_LENGTH, 8);    /* an empty id */
    expect_patched(&s, 8, "\x41", 1, ONESCOPE_E_LENGTH, 8);  /* 65 bytes */
    expect_patched(&s, 9, "O", 1, ONESCOPE_E_RANGE, 9);      /* [a-z] first */
    expect_patched(&s, 17, "/", 1, ONESCOPE_E_RANGE, 17);    /* then [a-z0-9._-] */
    expect_patched(&s, 22, "\0", 1, ONESCOPE_E_LENGTH, 22);  /* an empty version */
    expect_patched(&s, 23, "\x7f", 1, ONESCOPE_E_RANGE, 23); /* printable ASCII */
    expect_patched(&s, H, "\2", 1, ONESCOPE_E_RANGE, H);     /* a step first */
    expect_patched(&s, H, "\4", 1, ONESCOPE_E_RANGE, H);     /* unknown type */
    onescope_os_put_u32(b, 12);
    expect_patched(&s, H + 1, b, 4, ONESCOPE_E_LENGTH, H + 1); /* shorter than any probe */
    onescope_os_put_u32(b, ONESCOPE_LIVE_MAX_MODULE_PAYLOAD + 1);
    expect_patched(&s, H + 1, b, 4, ONESCOPE_E_LENGTH, H + 1);
    expect_patched(&s, P, "\1", 1, ONESCOPE_E_FLAGS, P + 8); /* no snapshot, host step 1 */
    expect_patched(&s, P + 8, "\2", 1, ONESCOPE_E_FLAGS, P + 8);
    /* a snapshot announced: the setup's 6 bytes then leave no room for its length */
    expect_patched(&s, P + 8, "\1", 1, ONESCOPE_E_LENGTH, P + 9);
    onescope_os_put_u32(b, 7);
    expect_patched(&s, P + 9, b, 4, ONESCOPE_E_LENGTH, P + 9); /* not the rest of the record */
    /* the second probe (with a snapshot) */
    size_t q = p2 + 5;
    onescope_os_put_u64(b, 4);
    expect_patched(&s, q, b, 8, ONESCOPE_E_RANGE, q); /* not the next host step */
    onescope_os_put_u32(b, 5);
    expect_patched(&s, q + 9, b, 4, ONESCOPE_E_MISMATCH, q + 9); /* another setup length */
    onescope_os_put_u32(b, p2len);
    expect_patched(&s, q + 9, b, 4, ONESCOPE_E_LENGTH, q + 9); /* more than the record */
    expect_patched(&s, q + 13 + 2, "\6", 1, ONESCOPE_E_MISMATCH, q + 13 + 2); /* the seed */
    onescope_os_put_u32(b, 1);
    expect_patched(&s, q + 19, b, 4, ONESCOPE_E_LENGTH, q + 19); /* the snapshot length */
    /* a step */
    onescope_os_put_u64(b, 1);
    expect_patched(&s, st + 5, b, 8, ONESCOPE_E_RANGE, st + 5);
    onescope_os_put_u32(b, slen - 19);
    expect_patched(&s, st + 13, b, 4, ONESCOPE_E_LENGTH, st + 13);
    onescope_os_put_u32(b, 19);
    expect_patched(&s, st + 1, b, 4, ONESCOPE_E_LENGTH, st + 1);
    /* the end */
    onescope_os_put_u32(b, 9);
    expect_patched(&s, end + 1, b, 4, ONESCOPE_E_LENGTH, end + 1);
    onescope_os_put_u64(b, 11);
    expect_patched(&s, end + 5, b, 8, ONESCOPE_E_RANGE, end + 5);
    uint8_t *longer = malloc(s.size + 1);
    memcpy(longer, s.data, s.size);
    longer[s.size] = 0;
    expect_decode_error(longer, s.size + 1, ONESCOPE_E_TRAILING, s.size);
    free(longer);
    /* truncation: inside the texts (at their length byte), inside a record */
    expect_decode_error(s.data, 8, ONESCOPE_E_TRUNCATED, 8);
    expect_decode_error(s.data, 15, ONESCOPE_E_TRUNCATED, 8);
    expect_decode_error(s.data, 23, ONESCOPE_E_TRUNCATED, 22);
    expect_decode_error(s.data, H, ONESCOPE_E_TRUNCATED, H);
    expect_decode_error(s.data, P + 3, ONESCOPE_E_TRUNCATED, H);
    /* each one a line naming the input, the offset, what was expected and found */
    uint8_t *c = malloc(s.size);
    memcpy(c, s.data, s.size);
    c[17] = '/';
    onescope_error err;
    assert_int_equal(onescope_live_decode(c, s.size, "pipe\033x", NULL, NULL, NULL, &err),
                     ONESCOPE_E_RANGE);
    assert_one_line(&err, "pipe\\x1Bx: offset 17: module id: expected [a-z] then [a-z0-9._-], "
                          "found byte 0x2f");
    free(c);
    free_stream(&s);
}

/* The encoder checks with the decoder's rules: a refused text or record writes nothing. */
static void test_v2_encoder_refusals(void **state) {
    (void)state;
    onescope_error err;
    onescope_live_encoder *e = NULL;
    assert_int_equal(onescope_live_encoder_create_module("Springs", "1", NULL, &e, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, 9);
    assert_null(e);
    assert_int_equal(onescope_live_encoder_create_module("ab", "", NULL, &e, &err),
                     ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, 11);
    char long_id[101];
    memset(long_id, 'a', 100);
    long_id[100] = '\0';
    assert_int_equal(onescope_live_encoder_create_module(long_id, "1", NULL, &e, &err),
                     ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, 8);
    assert_one_line(&err, "found 100");
    assert_int_equal(onescope_live_encoder_create_module("ab", "1", NULL, &e, &err), ONESCOPE_OK);
    onescope_sim_setup setup = {2, 1, 1};
    uint8_t snap[44] = {0};
    assert_int_equal(onescope_live_encode_probe_parts(e, &setup, NULL, snap, sizeof snap, &err),
                     ONESCOPE_E_BAD_STATE);
    /* no snapshot after host step 0 */
    assert_int_equal(onescope_live_encode_probe_blob(e, 5, "x", 1, NULL, 0, &err),
                     ONESCOPE_E_FLAGS);
    const uint8_t *p;
    size_t n;
    onescope_live_encoder_pending(e, &p, &n);
    assert_int_equal(n, 8 + 3 + 2); /* the header and the texts only */
    /* blobs past the record limit (never read: the length is refused first) */
    assert_int_equal(onescope_live_encode_probe_blob(e, 0, "x", SIZE_MAX, NULL, 0, &err),
                     ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_live_encode_probe_blob(e, 0, "x", 1, "s", SIZE_MAX - 8, &err),
                     ONESCOPE_E_LENGTH);
    assert_int_equal(onescope_live_encode_probe_blob(e, 0, "x", 1, NULL, 0, &err), ONESCOPE_OK);
    assert_int_equal(
        onescope_live_encode_step(e, 0, "in", ONESCOPE_LIVE_MAX_MODULE_PAYLOAD - 19, 7, &err),
        ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, n + 19 + 1);
    /* a later probe with another setup */
    assert_int_equal(onescope_live_encode_probe_blob(e, 0, "y", 1, "", 0, &err),
                     ONESCOPE_E_MISMATCH);
    assert_error_at(err, ONESCOPE_E_MISMATCH, n + 19 + 5 + 13); /* after the first probe */
    assert_int_equal(onescope_live_encode_step(e, 0, "in", 2, 7, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_end(e, 1, &err), ONESCOPE_OK);
    onescope_buffer out;
    assert_int_equal(onescope_live_encoder_take(e, &out, &err), ONESCOPE_OK);
    onescope_live_encoder_free(e);
    /* that stream's probe (14 bytes: no snapshot) with the snapshot flag: too short for one */
    uint8_t *bytes = out.data;
    assert_int_equal(bytes[n], ONESCOPE_LIVE_PROBE);
    bytes[n + 5 + 8] = 1;
    expect_decode_error(bytes, out.size, ONESCOPE_E_LENGTH, n + 1);
    bytes[n + 5 + 8] = 0;
    expect_decode_error(bytes, out.size - 1, ONESCOPE_E_TRUNCATED, out.size - 13);
    onescope_buffer_free(&out);
    /* a version-1 encoder takes no module probe */
    assert_int_equal(onescope_live_encoder_create(NULL, &e, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe_blob(e, 0, "x", 1, NULL, 0, &err),
                     ONESCOPE_E_BAD_STATE);
    onescope_live_encoder_free(e);
}

static void count_row(void *user, const onescope_live_row *row) {
    uint64_t *seen = user;
    assert_non_null(row->world);
    seen[0]++;
    seen[1] = row->step;
    seen[2] = row->hash;
}

/* The viewer follows a version-2 stream through the module: from the start (the world the
 * setup makes), or from a later probe (restored from its snapshot), and saves it as an OSTM v2
 * module recording that verifies. */
static void test_v2_viewer(void **state) {
    (void)state;
    stream s = make_stream_v2(onescope_module_test(), NULL, 40, 10, false);
    onescope_error err;
    for (int late = 0; late < 2; late++) {
        const char *path = save_file(late ? "v2late.ostm" : "v2.ostm");
        uint64_t seen[3] = {0, 0, 0};
        onescope_live_viewer_options o = onescope_live_viewer_options_default();
        o.from_step = late ? 15 : 0;
        o.save_path = path;
        o.on_row = count_row;
        o.user = seen;
        onescope_live_viewer *v;
        assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
        for (size_t i = 0; i < s.size; i += 9) {
            size_t n = s.size - i < 9 ? s.size - i : 9;
            assert_int_equal(onescope_live_viewer_feed(v, s.data + i, n, &err), ONESCOPE_OK);
        }
        assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
        uint64_t first = late ? 20 : 0;
        assert_int_equal(seen[0], 40 - first + 1);
        assert_int_equal(seen[1], 40);
        assert_true(seen[2] == s.hashes[40]);
        assert_int_equal(onescope_live_viewer_steps(v), 40 - first);
        assert_non_null(onescope_live_viewer_sim(v)); /* the test module's world */
        onescope_live_viewer_free(v);
        onescope_recording *r;
        assert_int_equal(onescope_recording_read_file(path, NULL, &r, &err), ONESCOPE_OK);
        assert_int_equal(onescope_recording_step_count(r), 40 - first);
        assert_true(onescope_recording_hash_row(r, 0) == s.hashes[first]);
        size_t snap_size;
        assert_int_equal(onescope_recording_start_snapshot(r, &snap_size) != NULL, late);
        onescope_verify_result vr;
        assert_int_equal(onescope_recording_verify(r, onescope_module_test(), NULL, &vr, "r", &err),
                         ONESCOPE_OK);
        assert_true(vr.matched);
        onescope_recording_free(r);
    }
    /* in memory: version 1 only */
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.record = true;
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(&o, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_UNSUPPORTED);
    assert_error_at(err, ONESCOPE_E_UNSUPPORTED, 24);
    onescope_live_viewer_free(v);
    /* a hash the host did not compute: at the step's record */
    size_t at = 24;
    while (!(s.data[at] == ONESCOPE_LIVE_STEP && onescope_os_get_u64(s.data + at + 5) == 7))
        at += 5 + onescope_os_get_u32(s.data + at + 1);
    s.data[at + 5 + onescope_os_get_u32(s.data + at + 1) - 1] ^= 1;
    assert_int_equal(onescope_live_viewer_create(NULL, "s", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_MISMATCH);
    assert_error_at(err, ONESCOPE_E_MISMATCH, at);
    assert_one_line(&err, "hash at step 8: expected ");
    onescope_live_viewer_free(v);
    free_stream(&s);
}

/* A stream of another module, or another version, is refused at the first record naming
 * both; a version-1 stream is the test module's. */
static void test_v2_wrong_module(void **state) {
    (void)state;
    onescope_error err;
    onescope_module other = other_module("example.other", true);
    stream s = make_stream_v2(onescope_module_test(), NULL, 5, 10, false);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.module = &other;
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_MODULE);
    assert_error_at(err, ONESCOPE_E_MODULE, 8);
    assert_one_line(&err, "pipe: offset 8: module: expected the module the viewer runs, found "
                          "onescope.test 1, loaded example.other 1");
    onescope_live_viewer_free(v);
    /* another version of the same id */
    other = *onescope_module_test();
    other.version = "1.1";
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_MODULE);
    assert_one_line(&err, "found onescope.test 1, loaded onescope.test 1.1");
    onescope_live_viewer_free(v);
    free_stream(&s);
    /* a version-1 stream against another module: at its version field */
    s = make_stream(2, 2, NULL, 4, 2);
    other = other_module("example.other", true);
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_MODULE);
    assert_error_at(err, ONESCOPE_E_MODULE, 4);
    assert_one_line(&err, "found onescope.test 1, loaded example.other 1");
    onescope_live_viewer_free(v);
    /* a table the library refuses is refused at create */
    other.id = "Bad";
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_E_ARGUMENT);
    assert_null(v);
    free_stream(&s);
}

/* A module without snapshot and restore follows a stream from its first probe (the world the
 * setup makes), and cannot start from a later one: one line naming the missing slot. */
static void test_v2_module_without_restore(void **state) {
    (void)state;
    onescope_error err;
    onescope_module plain = other_module("example.plain", false);
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.module = &plain;
    /* the host runs the whole test module (it can snapshot); the stream is named plain */
    stream s = make_stream_v2(onescope_module_test(), "example.plain", 25, 10, false);
    onescope_live_viewer *v;
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_finish(v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_steps(v), 25); /* later probes: hashes suffice */
    assert_null(onescope_live_viewer_sim(v));            /* not the test module's table */
    assert_non_null(onescope_live_viewer_world(v));
    onescope_live_viewer_free(v);
    o.from_step = 5;
    size_t probe = 24;
    while (!(s.data[probe] == ONESCOPE_LIVE_PROBE && onescope_os_get_u64(s.data + probe + 5) == 10))
        probe += 5 + onescope_os_get_u32(s.data + probe + 1);
    assert_int_equal(onescope_live_viewer_create(&o, "pipe", NULL, &v, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_viewer_feed(v, s.data, s.size, &err), ONESCOPE_E_UNSUPPORTED);
    assert_error_at(err, ONESCOPE_E_UNSUPPORTED, probe);
    assert_one_line(&err, "pipe: offset ");
    assert_one_line(&err, "module 'example.plain' has no restore");
    onescope_live_viewer_free(v);
    free_stream(&s);
}

/* The viewer saving a version-2 stream, and a v2 host encoding and decoding: every
 * allocation refused in turn, no leak. */
static onescope_code view_and_save_v2(const onescope_allocator *a, void *ctx) {
    const stream *s = ctx;
    const char *path = save_file("walk2.ostm");
    char partial[200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove(path);
    remove(partial);
    onescope_error err;
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    o.save_path = path;
    o.from_step = 5;
    onescope_live_viewer *v = NULL;
    onescope_code rc = onescope_live_viewer_create(&o, "s", a, &v, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_feed(v, s->data, s->size, &err);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_finish(v, &err);
    onescope_live_viewer_free(v);
    if (rc == ONESCOPE_OK && !file_exists(path)) rc = ONESCOPE_E_IO;
    return rc;
}

static onescope_code encode_and_decode_v2(const onescope_allocator *a, void *ctx) {
    const stream *s = ctx;
    onescope_error err;
    onescope_live_encoder *enc = NULL;
    onescope_code rc = onescope_live_encoder_create_module("onescope.test", "1", a, &enc, &err);
    if (rc == ONESCOPE_OK)
        rc = onescope_live_encode_probe_blob(enc, 0, v2_setup, sizeof v2_setup, NULL, 0, &err);
    for (uint64_t i = 0; i < 20 && rc == ONESCOPE_OK; i++) {
        if (i == 10) rc = onescope_live_encode_probe_blob(enc, i, v2_setup, 6, "snap", 4, &err);
        if (rc == ONESCOPE_OK) rc = onescope_live_encode_step(enc, i, "in", 2, i, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_live_encode_end(enc, 20, &err);
    onescope_buffer b = {NULL, 0, NULL};
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_take(enc, &b, &err);
    if (rc == ONESCOPE_OK) {
        rc = onescope_live_decode(b.data, b.size, "b", a, NULL, NULL, &err);
        onescope_buffer_free(&b);
    }
    if (rc == ONESCOPE_OK) rc = onescope_live_decode(s->data, s->size, "s", a, NULL, NULL, &err);
    onescope_live_encoder_free(enc);
    return rc;
}

/* malloc that remembers its largest request. */
static void *biggest_alloc(void *user, size_t size) {
    size_t *biggest = user;
    if (size > *biggest) *biggest = size;
    return malloc(size);
}
static void biggest_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

static void test_v2_alloc_failure(void **state) {
    (void)state;
    stream s = make_stream_v2(onescope_module_test(), NULL, 30, 10, false);
    assert_true(test_alloc_walk(view_and_save_v2, &s) > 6);
    assert_true(test_alloc_walk(encode_and_decode_v2, &s) > 4);
    /* a forged 64 MiB probe: refused at its length, nothing allocated for it; a huge one
     * that fits the limit grows the buffer only with the bytes that came */
    uint8_t head[29] = {'O', 'S', 'L', 'S', 2, 0, 0, 0, 2, 'a', 'b', 1, '1', 1, 0, 0, 0, 0x05};
    onescope_os_put_u32(head + 14, ONESCOPE_LIVE_MAX_MODULE_PAYLOAD + 1);
    test_alloc t;
    test_alloc_init(&t, 0);
    onescope_error err;
    assert_int_equal(onescope_live_decode(head, 18, "h", &t.allocator, NULL, NULL, &err),
                     ONESCOPE_E_LENGTH);
    assert_error_at(err, ONESCOPE_E_LENGTH, 14);
    assert_int_equal(t.count, 1); /* the decoder itself */
    onescope_os_put_u32(head + 14, ONESCOPE_LIVE_MAX_MODULE_PAYLOAD);
    size_t biggest = 0;
    onescope_allocator a = {biggest_alloc, biggest_free, &biggest};
    assert_int_equal(onescope_live_decode(head, sizeof head, "h", &a, NULL, NULL, &err),
                     ONESCOPE_E_TRUNCATED);
    assert_error_at(err, ONESCOPE_E_TRUNCATED, 13);
    assert_true(biggest < 64 * 1024); /* not the 64 MiB it announced */
    free_stream(&s);
}

/* Random edits of a version-2 stream: the same answer whole and byte by byte, and a viewer
 * that never crashes on them. */
static void test_v2_mutations(void **state) {
    (void)state;
    stream s = make_stream_v2(onescope_module_test(), NULL, 20, 6, false);
    uint64_t seed = 7;
    uint8_t *c = malloc(s.size);
    for (int round = 0; round < 2000; round++) {
        size_t size = s.size;
        memcpy(c, s.data, size);
        for (int e = 0, edits = 1 + (int)(test_rand(&seed) % 3); e < edits; e++) {
            uint64_t r = test_rand(&seed);
            size_t at = (size_t)(r % size);
            switch ((r >> 32) % 4) {
                case 0: c[at] = (uint8_t)(r >> 40); break;
                case 1: c[at] ^= (uint8_t)(1u << ((r >> 40) % 8)); break;
                case 2: size = at; break;
                default: c[at] = (uint8_t)((r >> 40) % 4); break;
            }
            if (size == 0) break;
        }
        onescope_error e1, e2;
        digest d1, d2;
        onescope_code r1 = decode_chunked(c, size, 0, &d1, &e1);
        onescope_code r2 = decode_chunked(c, size, 1, &d2, &e2);
        assert_int_equal(r1, r2);
        if (r1 != ONESCOPE_OK) {
            assert_int_equal(e1.offset, e2.offset);
            assert_true(e1.offset <= size);
            assert_one_line(&e1, NULL);
        }
        assert_int_equal(d1.records, d2.records);
        assert_true(d1.hash == d2.hash);
        onescope_live_viewer *v;
        assert_int_equal(onescope_live_viewer_create(NULL, "m", NULL, &v, &e1), ONESCOPE_OK);
        if (onescope_live_viewer_feed(v, c, size, &e1) == ONESCOPE_OK)
            (void)onescope_live_viewer_finish(v, &e1);
        else
            assert_one_line(&e1, NULL);
        onescope_live_viewer_free(v);
    }
    free(c);
    free_stream(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_link_probe),
        cmocka_unit_test(test_probe_setup_mismatch),
        cmocka_unit_test(test_largest_probe),
        cmocka_unit_test(test_chunked_delivery),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_framing_errors),
        cmocka_unit_test(test_link_probe_errors),
        cmocka_unit_test(test_arguments_and_states),
        cmocka_unit_test(test_viewer_attach_mid_run),
        cmocka_unit_test(test_viewer_mismatch),
        cmocka_unit_test(test_viewer_records_many_rows),
        cmocka_unit_test(test_viewer_apply_checks_records),
        cmocka_unit_test(test_viewer_saves_streaming),
        cmocka_unit_test(test_viewer_save_limit),
        cmocka_unit_test(test_viewer_save_failures),
        cmocka_unit_test(test_viewer_save_killed),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_v2_round_trip),
        cmocka_unit_test(test_v2_framing_errors),
        cmocka_unit_test(test_v2_encoder_refusals),
        cmocka_unit_test(test_v2_viewer),
        cmocka_unit_test(test_v2_wrong_module),
        cmocka_unit_test(test_v2_module_without_restore),
        cmocka_unit_test(test_v2_alloc_failure),
        cmocka_unit_test(test_v2_mutations),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (save_dir[0] != '\0') nftw(save_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}
