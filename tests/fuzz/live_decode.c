/* Fuzz target: the live stream decoder, both versions (the test module's probes; a module's
 * blobs). The whole-buffer decoder and the incremental one fed in uneven chunks must see the
 * same records (type, offset, step, hash, payload sizes) and
 * end with the same result: OK, or the same error code at the same stream offset. Record
 * offsets stay inside the input; a decoder that failed refuses further use. */
#include "fuzz_helpers.h"

typedef struct summary {
    uint64_t fold; /* FNV-1a over every record's fields */
    uint64_t count;
    size_t size; /* the input's length */
} summary;

static void fold_u64(summary *s, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        s->fold ^= (uint8_t)(v >> (8 * i));
        s->fold *= 0x100000001B3u;
    }
}

static void add(summary *s, const onescope_live_record *r) {
    FUZZ_ASSERT(r->offset < s->size);
    FUZZ_ASSERT(r->type >= ONESCOPE_LIVE_PROBE && r->type <= ONESCOPE_LIVE_END);
    fold_u64(s, (uint64_t)r->type);
    fold_u64(s, r->offset);
    fold_u64(s, r->step);
    FUZZ_ASSERT(r->version == 1 || r->version == 2);
    FUZZ_ASSERT(r->module_id != NULL && r->module_version != NULL);
    if (r->type == ONESCOPE_LIVE_PROBE && r->version == 2) {
        /* the blobs lie inside the record, one after the other */
        FUZZ_ASSERT(r->probe == NULL && r->setup_blob != NULL);
        FUZZ_ASSERT(!r->has_snapshot || r->snapshot == r->setup_blob + r->setup_blob_size + 4);
        FUZZ_ASSERT(r->has_snapshot || r->step == 0);
        FUZZ_ASSERT(r->setup_blob_size + r->snapshot_size < s->size);
        fold_u64(s, r->setup_blob_size);
        fold_u64(s, onescope_hash_bytes(r->setup_blob, r->setup_blob_size));
        fold_u64(s, r->has_snapshot ? onescope_hash_bytes(r->snapshot, r->snapshot_size) : 1);
        fold_u64(s, onescope_hash_bytes(r->module_id, strlen(r->module_id)));
    } else if (r->type == ONESCOPE_LIVE_PROBE) {
        FUZZ_ASSERT(r->snapshot == r->probe + 6 && r->snapshot_size + 6 == r->probe_size);
        fold_u64(s, r->probe_size);
        fold_u64(s, onescope_hash_bytes(r->probe, r->probe_size));
        fold_u64(s, (uint64_t)r->link.role << 8 | r->setup.body_count);
    } else if (r->type == ONESCOPE_LIVE_STEP) {
        fold_u64(s, r->hash);
        fold_u64(s, r->input_size);
        fold_u64(s, onescope_hash_bytes(r->input, r->input_size));
    }
    s->count++;
}

static bool on_record(void *user, const onescope_live_record *r) {
    add(user, r);
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    summary whole = {0xCBF29CE484222325u, 0, size}, parts = whole;
    onescope_error e1, e2;
    onescope_code r1 =
        onescope_live_decode(data, size, "fuzz.live", &env.allocator, on_record, &whole, &e1);
    if (r1 != ONESCOPE_OK) fuzz_check_error(&env, r1, &e1, "fuzz.live", size);

    onescope_live_decoder *d = NULL;
    onescope_code r2 = onescope_live_decoder_create("fuzz.live", &env.allocator, &d, &e2);
    if (r2 != ONESCOPE_OK) {
        fuzz_check_error(&env, r2, &e2, "", SIZE_MAX);
        FUZZ_ASSERT(r2 == ONESCOPE_E_NOMEM && d == NULL);
        fuzz_env_finish(&env);
        return 0;
    }
    static const size_t chunks[] = {1, 7, 3, 64, 2, 1000, 5};
    size_t k = size ? data[0] % 7 : 0, pos = 0;
    int state = 0;
    while (pos < size && state >= 0) {
        size_t n = chunks[k++ % 7];
        if (n > size - pos) n = size - pos;
        size_t used = 0;
        while (used < n) {
            size_t consumed = 0;
            onescope_live_record rec;
            state =
                onescope_live_decoder_next(d, data + pos + used, n - used, &consumed, &rec, &e2);
            FUZZ_ASSERT(consumed <= n - used);
            used += consumed;
            if (state < 0) break;
            if (state == 1)
                add(&parts, &rec);
            else
                FUZZ_ASSERT(used == n); /* 0: everything consumed, more needed */
        }
        pos += used;
    }
    if (state < 0) {
        r2 = e2.code;
        FUZZ_ASSERT(r2 != ONESCOPE_OK);
        fuzz_check_error(&env, r2, &e2, "fuzz.live", size);
        /* A failed decoder stays failed. */
        size_t consumed = 0;
        onescope_live_record rec;
        onescope_error e3;
        FUZZ_ASSERT(onescope_live_decoder_next(d, data, size, &consumed, &rec, &e3) < 0);
    } else {
        FUZZ_ASSERT(onescope_live_decoder_offset(d) == size);
        r2 = onescope_live_decoder_finish(d, &e2);
        if (r2 != ONESCOPE_OK) fuzz_check_error(&env, r2, &e2, "fuzz.live", size);
    }
    onescope_live_decoder_free(d);

    if (!env.failed) {
        FUZZ_ASSERT_MSG(r1 == r2, "whole buffer: %d, in chunks: %d", (int)r1, (int)r2);
        if (r1 != ONESCOPE_OK)
            FUZZ_ASSERT_MSG(e1.has_offset == e2.has_offset && e1.offset == e2.offset,
                            "whole buffer fails at %llu, in chunks at %llu",
                            (unsigned long long)e1.offset, (unsigned long long)e2.offset);
        FUZZ_ASSERT(whole.count == parts.count && whole.fold == parts.fold);
    }
    fuzz_env_finish(&env);
    return 0;
}
