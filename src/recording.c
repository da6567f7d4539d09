/* OSTM v2 module recordings: bytes to a struct and back (the head for the writer, the scan of a
 * partial for recovery). No module runs here; the blobs are the module's (recording_run.c).
 * Layout and rules: docs/recording.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/recording.h"
#include "recording_internal.h"

struct onescope_recording {
    const onescope_allocator *allocator;
    uint8_t *bytes; /* the file's copy */
    size_t size;
    onescope_os_rec_head h;
    uint64_t *records; /* step i's record offset, step_count of them */
};

static bool id_char(uint8_t c, bool first) {
    if (c >= 'a' && c <= 'z') return true;
    return !first && ((c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
}

/* A length-prefixed text of 1..64 bytes; id: [a-z][a-z0-9._-]*, version: printable ASCII. */
static onescope_code read_text(onescope_os_reader *rd, const char *field, bool id, char out[65]) {
    size_t at = rd->pos;
    uint8_t n;
    OS_TRY(onescope_os_read_u8(rd, field, &n));
    if (n == 0 || n > 64) {
        rd->pos = at;
        return onescope_os_reader_fail_at(rd, at, ONESCOPE_E_LENGTH, field, "1..64 bytes", "%u",
                                          (unsigned)n);
    }
    const uint8_t *p;
    OS_TRY(onescope_os_read_bytes(rd, field, n, &p));
    for (size_t i = 0; i < n; i++) {
        bool ok = id ? id_char(p[i], i == 0) : (p[i] >= 0x20 && p[i] <= 0x7e);
        if (!ok)
            return onescope_os_reader_fail_at(rd, at + 1 + i, ONESCOPE_E_RANGE, field,
                                              id ? "[a-z] then [a-z0-9._-]" : "printable ASCII",
                                              "byte 0x%02x", p[i]);
    }
    memcpy(out, p, n);
    out[n] = '\0';
    return ONESCOPE_OK;
}

/* A u32 length and that many bytes, which must remain. */
static onescope_code read_blob(onescope_os_reader *rd, const char *field, uint64_t *at,
                               uint32_t *size) {
    OS_TRY(onescope_os_read_u32(rd, field, size));
    *at = rd->pos;
    if (*size > onescope_os_reader_remaining(rd))
        return onescope_os_reader_fail_at(rd, rd->pos, ONESCOPE_E_TRUNCATED, field,
                                          "the length's bytes", "%zu of %" PRIu32 " bytes left",
                                          onescope_os_reader_remaining(rd), *size);
    rd->pos += *size;
    return ONESCOPE_OK;
}

onescope_code onescope_os_rec_read_head(onescope_os_reader *rd, bool open_ok,
                                        onescope_os_rec_head *h) {
    memset(h, 0, sizeof *h);
    const uint8_t *magic;
    OS_TRY(onescope_os_read_bytes(rd, "magic", 4, &magic));
    if (memcmp(magic, "OSTM", 4) != 0)
        return onescope_os_reader_fail_at(rd, 0, ONESCOPE_E_MAGIC, "magic", "OSTM", "another");
    uint16_t version;
    OS_TRY(onescope_os_read_u16(rd, "version", &version));
    if (version != ONESCOPE_RECORDING_VERSION)
        return onescope_os_reader_fail_at(rd, 4, ONESCOPE_E_VERSION, "version",
                                          "2 (a module recording)", "%u", (unsigned)version);
    OS_TRY(onescope_os_read_u16(rd, "flags", &h->flags));
    if (h->flags & ~(ONESCOPE_RECORDING_FLAG_HASH_ROWS | ONESCOPE_RECORDING_FLAG_START_SNAPSHOT))
        return onescope_os_reader_fail_at(rd, 6, ONESCOPE_E_FLAGS, "flags", "bits 2-15 zero",
                                          "0x%04x", (unsigned)h->flags);
    OS_TRY(onescope_os_read_u32(rd, "step count", &h->step_count));
    h->open = h->step_count == ONESCOPE_RECORDING_OPEN_COUNT;
    if (h->open ? !open_ok : h->step_count > ONESCOPE_RECORDING_MAX_STEPS)
        return onescope_os_reader_fail_at(
            rd, 8, ONESCOPE_E_RANGE, "step count",
            open_ok ? "at most 16777216, or 0xffffffff (still open)" : "at most 16777216",
            h->open ? "0xffffffff (a partial still being written: recover it)" : "%" PRIu32,
            h->step_count);
    OS_TRY(read_text(rd, "module id", true, h->module_id));
    OS_TRY(read_text(rd, "module version", false, h->module_version));
    OS_TRY(read_blob(rd, "setup length", &h->setup_at, &h->setup_size));
    if (h->flags & ONESCOPE_RECORDING_FLAG_START_SNAPSHOT)
        OS_TRY(read_blob(rd, "snapshot length", &h->snapshot_at, &h->snapshot_size));
    if (h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) {
        h->row0_at = rd->pos;
        uint64_t row0;
        OS_TRY(onescope_os_read_u64(rd, "hash row 0", &row0));
    }
    h->records_at = rd->pos;
    return ONESCOPE_OK;
}

size_t onescope_os_rec_record_min(const onescope_os_rec_head *h) {
    return 4u + ((h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) ? 8u : 0u);
}

onescope_code onescope_os_rec_read_record(onescope_os_reader *rd, const onescope_os_rec_head *h,
                                          uint32_t index) {
    char field[48];
    snprintf(field, sizeof field, "step %" PRIu32 " input length", index);
    uint64_t at;
    uint32_t n;
    OS_TRY(read_blob(rd, field, &at, &n));
    if (h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) {
        snprintf(field, sizeof field, "hash row %" PRIu64, (uint64_t)index + 1);
        uint64_t row;
        OS_TRY(onescope_os_read_u64(rd, field, &row));
    }
    return ONESCOPE_OK;
}

onescope_code onescope_recording_parse(const void *data, size_t size, const char *name,
                                       const onescope_parse_options *options,
                                       onescope_recording **out, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (out == NULL || (data == NULL && size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "data and out must be given");
    *out = NULL;
    size_t limit = onescope_os_input_limit(options);
    if (size > limit)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "input size",
                                "at most the input limit", "%zu bytes (limit %zu)", size, limit);
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, data, size, name, error);
    onescope_os_rec_head h;
    OS_TRY(onescope_os_rec_read_head(&rd, false, &h));
    /* Every record takes at least its length (and its row): a count the bytes cannot hold is
     * refused before the offsets are allocated. */
    if (h.step_count > onescope_os_reader_remaining(&rd) / onescope_os_rec_record_min(&h))
        return onescope_os_reader_fail_at(&rd, 8, ONESCOPE_E_TRUNCATED, "step count",
                                          "a count whose records fit in the bytes after the head",
                                          "%" PRIu32 " steps in %zu bytes", h.step_count,
                                          onescope_os_reader_remaining(&rd));
    onescope_recording *r = onescope_os_calloc(a, 1, sizeof *r);
    uint64_t *records = onescope_os_calloc(a, h.step_count ? h.step_count : 1, sizeof *records);
    uint8_t *bytes = onescope_os_alloc(a, size ? size : 1);
    if (r == NULL || records == NULL || bytes == NULL) {
        onescope_os_free(a, r);
        onescope_os_free(a, records);
        onescope_os_free(a, bytes);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "recording", NULL,
                                "could not allocate memory");
    }
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0; i < h.step_count && rc == ONESCOPE_OK; i++) {
        records[i] = rd.pos;
        rc = onescope_os_rec_read_record(&rd, &h, i);
    }
    if (rc == ONESCOPE_OK) rc = onescope_os_reader_end(&rd);
    if (rc != ONESCOPE_OK) {
        onescope_os_free(a, r);
        onescope_os_free(a, records);
        onescope_os_free(a, bytes);
        return rc;
    }
    if (size) memcpy(bytes, data, size);
    r->allocator = a;
    r->bytes = bytes;
    r->size = size;
    r->h = h;
    r->records = records;
    *out = r;
    return ONESCOPE_OK;
}

void onescope_recording_free(onescope_recording *r) {
    if (r == NULL) return;
    onescope_os_free(r->allocator, r->bytes);
    onescope_os_free(r->allocator, r->records);
    onescope_os_free(r->allocator, r);
}

const char *onescope_recording_module_id(const onescope_recording *r) {
    return r ? r->h.module_id : "";
}

const char *onescope_recording_module_version(const onescope_recording *r) {
    return r ? r->h.module_version : "";
}

uint16_t onescope_recording_flags(const onescope_recording *r) {
    return r ? r->h.flags : 0;
}

uint32_t onescope_recording_step_count(const onescope_recording *r) {
    return r ? r->h.step_count : 0;
}

const uint8_t *onescope_recording_setup(const onescope_recording *r, size_t *size) {
    if (size != NULL) *size = r ? r->h.setup_size : 0;
    return r ? r->bytes + r->h.setup_at : NULL;
}

const uint8_t *onescope_recording_start_snapshot(const onescope_recording *r, size_t *size) {
    bool has = r != NULL && (r->h.flags & ONESCOPE_RECORDING_FLAG_START_SNAPSHOT);
    if (size != NULL) *size = has ? r->h.snapshot_size : 0;
    return has ? r->bytes + r->h.snapshot_at : NULL;
}

uint64_t onescope_recording_hash_row(const onescope_recording *r, uint32_t index) {
    if (r == NULL || !(r->h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) || index > r->h.step_count)
        return 0;
    if (index == 0) return onescope_os_get_u64(r->bytes + r->h.row0_at);
    const uint8_t *rec = r->bytes + r->records[index - 1];
    return onescope_os_get_u64(rec + 4 + onescope_os_get_u32(rec));
}

onescope_code onescope_recording_step_input(const onescope_recording *r, uint32_t index,
                                            const uint8_t **data, size_t *size) {
    if (r == NULL || data == NULL || size == NULL || index >= r->h.step_count)
        return ONESCOPE_E_ARGUMENT;
    const uint8_t *rec = r->bytes + r->records[index];
    *size = onescope_os_get_u32(rec);
    *data = rec + 4;
    return ONESCOPE_OK;
}

uint64_t onescope_os_rec_input_at(const onescope_recording *r, uint32_t index) {
    return r->records[index] + 4;
}

const onescope_os_rec_head *onescope_os_rec_head_of(const onescope_recording *r) {
    return &r->h;
}

/* ---- the head a writer starts with ---- */

static void encode_head(onescope_os_writer *w, const char *id, const char *version, uint16_t flags,
                        uint32_t count, const void *setup, size_t setup_size, const void *snapshot,
                        size_t snapshot_size) {
    size_t a = strlen(id), b = strlen(version);
    onescope_os_write_bytes(w, "OSTM", 4);
    onescope_os_write_u16(w, ONESCOPE_RECORDING_VERSION);
    onescope_os_write_u16(w, flags);
    onescope_os_write_u32(w, count);
    onescope_os_write_u8(w, (uint8_t)a);
    onescope_os_write_bytes(w, id, a);
    onescope_os_write_u8(w, (uint8_t)b);
    onescope_os_write_bytes(w, version, b);
    onescope_os_write_u32(w, (uint32_t)setup_size);
    onescope_os_write_bytes(w, setup, setup_size);
    if (flags & ONESCOPE_RECORDING_FLAG_START_SNAPSHOT) {
        onescope_os_write_u32(w, (uint32_t)snapshot_size);
        onescope_os_write_bytes(w, snapshot, snapshot_size);
    }
}

onescope_code onescope_os_rec_encode_head(const onescope_recording_def *def, uint16_t flags,
                                          const onescope_allocator *a, onescope_buffer *out,
                                          const char *name, onescope_error *error) {
    if (def->setup_size > UINT32_MAX || def->snapshot_size > UINT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "setup",
                                "a setup and a snapshot of at most 4 GiB each", "more");
    onescope_os_writer w;
    onescope_os_writer_init(&w, a);
    /* the module's id and version passed onescope_module_check: 1..64 bytes of the rules */
    encode_head(&w, def->module->id, def->module->version, flags, ONESCOPE_RECORDING_OPEN_COUNT,
                def->setup, def->setup_size, def->start_snapshot, def->snapshot_size);
    return onescope_os_writer_finish(&w, out, error, name);
}

onescope_code onescope_recording_write(const onescope_recording *r, const onescope_allocator *a,
                                       onescope_buffer *out, onescope_error *error) {
    const char *name = "onescope_recording_write";
    if (out != NULL) memset(out, 0, sizeof *out);
    if (r == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "recording and out must not be NULL");
    const onescope_os_rec_head *h = &r->h;
    onescope_os_writer w;
    onescope_os_writer_init(&w, a);
    encode_head(&w, h->module_id, h->module_version, h->flags, h->step_count,
                r->bytes + h->setup_at, h->setup_size, r->bytes + h->snapshot_at, h->snapshot_size);
    bool rows = h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS;
    if (rows) onescope_os_write_u64(&w, onescope_recording_hash_row(r, 0));
    for (uint32_t i = 0; i < h->step_count; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        onescope_os_write_u32(&w, (uint32_t)n);
        onescope_os_write_bytes(&w, p, n);
        if (rows) onescope_os_write_u64(&w, onescope_recording_hash_row(r, i + 1));
    }
    return onescope_os_writer_finish(&w, out, error, name);
}

/* ---- a partial, for recovery ---- */

onescope_code onescope_os_rec_partial_scan(const uint8_t *data, size_t size, const char *name,
                                           onescope_os_rec_partial *info, onescope_error *error) {
    memset(info, 0, sizeof *info);
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, data, size, name, error);
    onescope_os_rec_head h;
    OS_TRY(onescope_os_rec_read_head(&rd, true, &h));
    if (!(h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) && h.open)
        return onescope_os_reader_fail_at(&rd, 6, ONESCOPE_E_FLAGS, "flags",
                                          "bit 0 set (the writer always records hash rows)",
                                          "0x%04x", (unsigned)h.flags);
    uint32_t steps = 0;
    onescope_error inner; /* a record's failure: torn at the end, or damage */
    rd.error = &inner;
    while (onescope_os_reader_remaining(&rd) > 0) {
        size_t at = rd.pos;
        if (steps == ONESCOPE_RECORDING_MAX_STEPS)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, "step count",
                                    "at most 16777216 steps", "more records");
        onescope_error_clear(&inner);
        if (onescope_os_rec_read_record(&rd, &h, steps) != ONESCOPE_OK) {
            if (inner.code != ONESCOPE_E_TRUNCATED) { /* not cut by the end: damage */
                if (error != NULL) *error = inner;
                return inner.code;
            }
            /* Cut by the end of the file: the record a kill tore. It is dropped, and said. */
            info->dropped_at = at;
            info->dropped_bytes = size - at;
            rd.pos = size;
            break;
        }
        steps++;
    }
    if (!h.open && (steps != h.step_count || info->dropped_bytes != 0))
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, 8, "step count",
                                "the records the file holds (a final count is kept only when it "
                                "matches them)",
                                "%" PRIu32 " for %" PRIu32 " whole records%s", h.step_count, steps,
                                info->dropped_bytes ? " and a torn one" : "");
    info->head = h;
    info->steps = steps;
    info->kept_bytes = size - info->dropped_bytes;
    return ONESCOPE_OK;
}
