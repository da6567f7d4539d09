/* The live stream's bytes <-> records: the framing rules, the incremental decoder and the
 * encoder. Nothing here runs a simulation (the viewer is in live_viewer.c).
 * Rules: docs/live-stream.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "live_internal.h"
#include "onescope/live.h"

static const uint8_t live_magic[4] = {'O', 'S', 'L', 'S'};

/* ---- the record rules, shared by the decoder and the encoder ---- */

typedef enum dec_state {
    DEC_HEADER = 0,  /* reading the 8-byte stream header */
    DEC_RECORD = 1,  /* reading a 5-byte record header */
    DEC_PAYLOAD = 2, /* reading a payload */
    DEC_ENDED = 3,   /* after END: nothing more may follow */
    DEC_FAILED = 4
} dec_state;

/* What the rules remember between records. */
typedef struct live_rules {
    bool have_probe;
    onescope_sim_setup setup;
    onescope_link_block link;
    uint64_t next_step; /* the host step the next STEP, PROBE or END must carry */
} live_rules;

struct onescope_live_decoder {
    const onescope_allocator *allocator;
    char name[256];
    dec_state state;
    uint64_t offset; /* bytes consumed */
    uint8_t head[8];
    size_t head_fill;
    uint8_t type; /* the record being read */
    uint32_t length;
    uint64_t record_offset;
    uint8_t *payload;
    size_t capacity;
    size_t fill;
    live_rules rules;
    onescope_code code; /* the failure, once state is DEC_FAILED */
};

const char *onescope_os_live_type_name(uint8_t type) {
    switch (type) {
        case ONESCOPE_LIVE_PROBE: return "probe";
        case ONESCOPE_LIVE_STEP: return "step";
        case ONESCOPE_LIVE_END: return "end";
        default: return "unknown";
    }
}

static onescope_code check_header(const uint8_t *h, const char *name, onescope_error *error) {
    if (memcmp(h, live_magic, 4) != 0)
        return onescope_os_fail(error, ONESCOPE_E_MAGIC, name, 0, "magic", "\"OSLS\"",
                                "%02x %02x %02x %02x", h[0], h[1], h[2], h[3]);
    uint16_t version = onescope_os_get_u16(h + 4);
    if (version != ONESCOPE_LIVE_VERSION)
        return onescope_os_fail(error, ONESCOPE_E_VERSION, name, 4, "version", "1", "%u",
                                (unsigned)version);
    uint16_t flags = onescope_os_get_u16(h + 6);
    if (flags != 0)
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags", "0", "0x%04x",
                                (unsigned)flags);
    return ONESCOPE_OK;
}

/* The record header: type, length limits, the first-record rule. at = offset of the type. */
static onescope_code check_record_header(const live_rules *rules, uint8_t type, uint32_t length,
                                         uint64_t at, const char *name, onescope_error *error) {
    if (type < ONESCOPE_LIVE_PROBE || type > ONESCOPE_LIVE_END)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, "record type",
                                "1 (probe), 2 (step) or 3 (end)", "%u", (unsigned)type);
    if (!rules->have_probe && type != ONESCOPE_LIVE_PROBE)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, "record type",
                                "1 (probe) as the first record", "%u (%s)", (unsigned)type,
                                onescope_os_live_type_name(type));
    uint32_t min, max;
    const char *expected;
    switch (type) {
        case ONESCOPE_LIVE_PROBE:
            min = 1u + 6u + ONESCOPE_SIM_SNAPSHOT_HEADER + ONESCOPE_SIM_BODY_BYTES;
            max = ONESCOPE_LIVE_MAX_PROBE_PAYLOAD;
            expected = "51 to 2071 bytes for a probe";
            break;
        case ONESCOPE_LIVE_STEP:
            min = 18u;
            max = ONESCOPE_LIVE_MAX_STEP_PAYLOAD;
            expected = "18 to 65553 bytes for a step";
            break;
        default:
            min = max = ONESCOPE_LIVE_END_PAYLOAD;
            expected = "8 bytes for an end";
            break;
    }
    if (length < min || length > max)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, at + 1, "record length", expected,
                                "%" PRIu32, length);
    return ONESCOPE_OK;
}

onescope_code onescope_os_live_check_step(uint64_t want, uint64_t found, uint64_t at,
                                          const char *field, const char *name,
                                          onescope_error *error) {
    if (want == found) return ONESCOPE_OK;
    char expected[64];
    snprintf(expected, sizeof expected, "%" PRIu64, want);
    return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, field, expected, "%" PRIu64, found);
}

/* Checks a whole payload and fills *rec; updates rules only on success.
 * at = stream offset of the record's type byte. */
static onescope_code check_payload(live_rules *rules, uint8_t type, const uint8_t *p,
                                   uint32_t length, uint64_t at, const char *name,
                                   onescope_live_record *rec, onescope_error *error) {
    uint64_t base = at + ONESCOPE_LIVE_RECORD_HEADER_BYTES;
    memset(rec, 0, sizeof *rec);
    rec->type = (onescope_live_record_type)type;
    rec->offset = at;
    if (type == ONESCOPE_LIVE_PROBE) {
        uint8_t has_link = p[0];
        if (has_link > 1)
            return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, base, "probe flags",
                                    "0 (no link block) or 1 (link block)", "%u",
                                    (unsigned)has_link);
        size_t pos = 1;
        onescope_link_block link = {0, 0, 0};
        if (has_link) {
            if (length < 1u + 4u + 6u + ONESCOPE_SIM_SNAPSHOT_HEADER + ONESCOPE_SIM_BODY_BYTES)
                return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, at + 1, "record length",
                                        "55 to 2071 bytes for a probe with a link block",
                                        "%" PRIu32, length);
            link.role = p[1];
            link.body = p[2];
            link.transfer_step = onescope_os_get_u16(p + 3);
            uint64_t lo = base + 1;
            if (link.role < 1 || link.role > 3)
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, lo, "link role", "1, 2 or 3",
                                        "%u", (unsigned)link.role);
            pos = 5;
        }
        onescope_sim_setup setup;
        uint64_t so = base + pos;
        OS_TRY(
            onescope_sim_setup_decode(p + pos, ONESCOPE_SIM_SETUP_BYTES, name, so, &setup, error));
        if (has_link) {
            uint64_t lo = base + 1;
            if (link.role != ONESCOPE_LINK_ROLE_FIELDS && link.body >= setup.body_count)
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, lo + 1, "link body",
                                        "below the body count", "%u (body count %u)",
                                        (unsigned)link.body, (unsigned)setup.body_count);
            if (link.role == ONESCOPE_LINK_ROLE_FIELDS && link.body != 0)
                return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, lo + 1, "link body",
                                        "0 for role 3", "%u", (unsigned)link.body);
            if (link.role == ONESCOPE_LINK_ROLE_FIELDS && link.transfer_step != 0)
                return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, lo + 2,
                                        "link transfer step", "0 for role 3", "%u",
                                        (unsigned)link.transfer_step);
        }
        /* Continuity first, before the snapshot is read with a setup that differs from the
         * first probe's: the error names the first byte that differs (docs/live-stream.md 3). */
        if (rules->have_probe) {
            if (memcmp(&link, &rules->link, sizeof link) != 0)
                return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, base, "link block",
                                        "the link block of the stream's first probe",
                                        "role %u body %u "
                                        "step %u",
                                        (unsigned)link.role, (unsigned)link.body,
                                        (unsigned)link.transfer_step);
            uint64_t differs = setup.dimensions != rules->setup.dimensions   ? so
                               : setup.body_count != rules->setup.body_count ? so + 1
                                                                             : so + 2;
            if (setup.dimensions != rules->setup.dimensions ||
                setup.body_count != rules->setup.body_count || setup.seed != rules->setup.seed)
                return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, differs, "setup",
                                        "the setup of the stream's first probe", "%u %u %" PRIu32,
                                        (unsigned)setup.dimensions, (unsigned)setup.body_count,
                                        setup.seed);
        }
        pos += 6;
        const uint8_t *snap = p + pos;
        size_t snap_size = length - pos;
        OS_TRY(onescope_sim_snapshot_check(&setup, snap, snap_size, name, base + pos, error));
        uint64_t step = onescope_os_get_u64(snap);
        if (rules->have_probe) {
            OS_TRY(onescope_os_live_check_step(rules->next_step, step, base + pos,
                                               "probe host step", name, error));
        }
        rec->step = step;
        rec->setup = setup;
        rec->link = link;
        rec->probe = p + pos - 6;
        rec->probe_size = snap_size + 6;
        rec->snapshot = snap;
        rec->snapshot_size = snap_size;
        rules->have_probe = true;
        rules->setup = setup;
        rules->link = link;
        rules->next_step = step;
        return ONESCOPE_OK;
    }
    if (type == ONESCOPE_LIVE_STEP) {
        uint64_t step = onescope_os_get_u64(p);
        OS_TRY(onescope_os_live_check_step(rules->next_step, step, base, "host step", name, error));
        uint16_t n = onescope_os_get_u16(p + 8);
        if ((uint32_t)n + 18u != length)
            return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base + 8, "input length", NULL,
                                    "%u, but the record holds %" PRIu32 " input bytes", (unsigned)n,
                                    length - 18u);
        OS_TRY(onescope_op_check_input(rules->setup.dimensions, p + 10, n, name, base + 10, error));
        rec->step = step;
        rec->input = p + 10;
        rec->input_size = n;
        rec->hash = onescope_os_get_u64(p + 10 + n);
        rules->next_step = step + 1;
        return ONESCOPE_OK;
    }
    uint64_t step = onescope_os_get_u64(p);
    OS_TRY(onescope_os_live_check_step(rules->next_step, step, base, "end host step", name, error));
    rec->step = step;
    return ONESCOPE_OK;
}

/* ---- decoder ---- */

onescope_code onescope_live_decoder_create(const char *name, const onescope_allocator *a,
                                           onescope_live_decoder **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_create",
                                OS_NO_OFFSET, NULL, NULL, "out must not be NULL");
    *out = NULL;
    onescope_live_decoder *d = onescope_os_calloc(a, 1, sizeof *d);
    if (d == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name ? name : "live stream", OS_NO_OFFSET,
                                "decoder", NULL, "could not allocate memory");
    d->allocator = a;
    onescope_os_copy_text(d->name, sizeof d->name, name ? name : "live stream");
    *out = d;
    return ONESCOPE_OK;
}

void onescope_live_decoder_free(onescope_live_decoder *d) {
    if (d == NULL) return;
    onescope_os_free(d->allocator, d->payload);
    onescope_os_free(d->allocator, d);
}

uint64_t onescope_live_decoder_offset(const onescope_live_decoder *d) {
    return d ? d->offset : 0;
}

onescope_code onescope_os_live_decoder_code(const onescope_live_decoder *d) {
    return d->state == DEC_FAILED ? d->code : ONESCOPE_OK;
}

static int dec_fail(onescope_live_decoder *d, onescope_code code) {
    d->state = DEC_FAILED;
    d->code = code;
    return -1;
}

int onescope_live_decoder_next(onescope_live_decoder *d, const void *data, size_t size,
                               size_t *consumed, onescope_live_record *record,
                               onescope_error *error) {
    size_t used = 0;
    if (consumed != NULL) *consumed = 0;
    if (d == NULL || consumed == NULL || record == NULL || (data == NULL && size != 0)) {
        onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_next", OS_NO_OFFSET,
                         NULL, NULL, "decoder, consumed and record must not be NULL");
        return -1;
    }
    const uint8_t *in = data;
    for (;;) {
        switch (d->state) {
            case DEC_FAILED:
                onescope_os_fail(error, ONESCOPE_E_BAD_STATE, d->name, d->offset, NULL, NULL,
                                 "the decoder failed earlier");
                return -1;
            case DEC_ENDED:
                if (used < size) {
                    return dec_fail(d,
                                    onescope_os_fail(error, ONESCOPE_E_TRAILING, d->name, d->offset,
                                                     "stream", "nothing after the end record",
                                                     "%zu more bytes", size - used));
                }
                return 0;
            case DEC_HEADER:
            case DEC_RECORD: {
                size_t want = d->state == DEC_HEADER ? ONESCOPE_LIVE_HEADER_BYTES
                                                     : ONESCOPE_LIVE_RECORD_HEADER_BYTES;
                size_t n = want - d->head_fill;
                if (n > size - used) n = size - used;
                if (n) memcpy(d->head + d->head_fill, in + used, n);
                d->head_fill += n;
                used += n;
                d->offset += n;
                *consumed = used;
                if (d->head_fill < want) return 0;
                d->head_fill = 0;
                if (d->state == DEC_HEADER) {
                    onescope_code rc = check_header(d->head, d->name, error);
                    if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                    d->state = DEC_RECORD;
                    break;
                }
                d->type = d->head[0];
                d->length = onescope_os_get_u32(d->head + 1);
                d->record_offset = d->offset - ONESCOPE_LIVE_RECORD_HEADER_BYTES;
                onescope_code rc = check_record_header(&d->rules, d->type, d->length,
                                                       d->record_offset, d->name, error);
                if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                if (d->capacity < d->length) {
                    /* the length was checked against the type's limit just above */
                    uint8_t *p = onescope_os_alloc(d->allocator, d->length);
                    if (p == NULL)
                        return dec_fail(d, onescope_os_fail(error, ONESCOPE_E_NOMEM, d->name,
                                                            d->record_offset, "record", NULL,
                                                            "could not allocate %" PRIu32 " bytes",
                                                            d->length));
                    onescope_os_free(d->allocator, d->payload);
                    d->payload = p;
                    d->capacity = d->length;
                }
                d->fill = 0;
                d->state = DEC_PAYLOAD;
                break;
            }
            case DEC_PAYLOAD: {
                size_t n = d->length - d->fill;
                if (n > size - used) n = size - used;
                if (n) memcpy(d->payload + d->fill, in + used, n);
                d->fill += n;
                used += n;
                d->offset += n;
                *consumed = used;
                if (d->fill < d->length) return 0;
                onescope_code rc = check_payload(&d->rules, d->type, d->payload, d->length,
                                                 d->record_offset, d->name, record, error);
                if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                d->state = d->type == ONESCOPE_LIVE_END ? DEC_ENDED : DEC_RECORD;
                return 1;
            }
        }
    }
}

onescope_code onescope_live_decoder_finish(const onescope_live_decoder *d, onescope_error *error) {
    if (d == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_finish",
                                OS_NO_OFFSET, NULL, NULL, "decoder must not be NULL");
    switch (d->state) {
        case DEC_ENDED: return ONESCOPE_OK;
        case DEC_FAILED:
            return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, d->name, d->offset, NULL, NULL,
                                    "the decoder failed earlier");
        case DEC_HEADER:
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, 0, "stream header",
                                    "8 bytes", "%zu bytes", d->head_fill);
        case DEC_RECORD:
            if (d->head_fill == 0)
                return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->offset, "record",
                                        "an end record before the end of the stream",
                                        "the end of the input");
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->offset - d->head_fill,
                                    "record header", "5 bytes", "%zu bytes", d->head_fill);
        default:
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->record_offset,
                                    onescope_os_live_type_name(d->type), NULL,
                                    "%zu of %" PRIu32 " payload bytes", d->fill, d->length);
    }
}

onescope_code onescope_live_decode(const void *data, size_t size, const char *name,
                                   const onescope_allocator *a,
                                   onescope_live_record_callback callback, void *user,
                                   onescope_error *error) {
    /* Refused here, so that the return agrees with the error (the decoder's own argument
     * check does not latch a code). */
    if (data == NULL && size != 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decode", OS_NO_OFFSET,
                                NULL, NULL, "data must not be NULL when size is not 0");
    onescope_live_decoder *d;
    OS_TRY(onescope_live_decoder_create(name, a, &d, error));
    const uint8_t *p = data;
    size_t pos = 0;
    onescope_code rc = ONESCOPE_OK;
    for (;;) {
        onescope_live_record rec;
        size_t used;
        int r = onescope_live_decoder_next(d, p ? p + pos : NULL, size - pos, &used, &rec, error);
        pos += used;
        if (r < 0) {
            rc = d->code;
            break;
        }
        if (r == 0) {
            rc = onescope_live_decoder_finish(d, error);
            break;
        }
        if (callback != NULL && callback(user, &rec)) break;
    }
    onescope_live_decoder_free(d);
    return rc;
}

/* ---- encoder ---- */

struct onescope_live_encoder {
    const onescope_allocator *allocator;
    onescope_os_writer w;
    uint64_t cleared; /* bytes handed out before the writer's first byte */
    live_rules rules;
    bool ended;
    bool failed;
};

static const char *const enc_name = "live encoder";

static onescope_code enc_nomem(onescope_live_encoder *e, onescope_error *error) {
    e->failed = true;
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, enc_name, OS_NO_OFFSET, "output", NULL,
                            "could not allocate the output buffer");
}

onescope_code onescope_live_encoder_create(const onescope_allocator *a, onescope_live_encoder **out,
                                           onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "out must not be NULL");
    *out = NULL;
    onescope_live_encoder *e = onescope_os_calloc(a, 1, sizeof *e);
    if (e == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, enc_name, OS_NO_OFFSET, "encoder", NULL,
                                "could not allocate memory");
    e->allocator = a;
    onescope_os_writer_init(&e->w, a);
    onescope_os_write_bytes(&e->w, live_magic, 4);
    onescope_os_write_u16(&e->w, ONESCOPE_LIVE_VERSION);
    onescope_os_write_u16(&e->w, 0);
    if (e->w.failed) {
        onescope_os_writer_discard(&e->w);
        onescope_os_free(a, e);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, enc_name, OS_NO_OFFSET, "output", NULL,
                                "could not allocate the output buffer");
    }
    *out = e;
    return ONESCOPE_OK;
}

void onescope_live_encoder_free(onescope_live_encoder *e) {
    if (e == NULL) return;
    onescope_os_writer_discard(&e->w);
    onescope_os_free(e->allocator, e);
}

/* Starts a record: writes its header, returns the writer position of the type byte. */
static onescope_code enc_begin(onescope_live_encoder *e, uint8_t type, size_t length, size_t *start,
                               onescope_error *error) {
    if (e == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "encoder must not be NULL");
    if (e->failed || e->ended)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, NULL, NULL,
                                e->failed ? "the encoder failed earlier"
                                          : "the stream has ended (end record written)");
    uint64_t at = e->cleared + e->w.size;
    if (length > UINT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, enc_name, at + 1, "record length",
                                NULL, "%zu bytes", length);
    OS_TRY(check_record_header(&e->rules, type, (uint32_t)length, at, enc_name, error));
    *start = e->w.size;
    onescope_os_write_u8(&e->w, type);
    onescope_os_write_u32(&e->w, (uint32_t)length);
    if (e->w.failed) return enc_nomem(e, error);
    return ONESCOPE_OK;
}

/* Checks the record just written; keeps it or takes it back. */
static onescope_code enc_commit(onescope_live_encoder *e, size_t start, onescope_error *error) {
    if (e->w.failed) return enc_nomem(e, error);
    uint8_t type = e->w.data[start];
    uint32_t length = onescope_os_get_u32(e->w.data + start + 1);
    onescope_live_record rec;
    live_rules rules = e->rules;
    onescope_code rc = check_payload(&rules, type, e->w.data + start + 5, length,
                                     e->cleared + start, enc_name, &rec, error);
    if (rc != ONESCOPE_OK) {
        e->w.size = start;
        return rc;
    }
    e->rules = rules;
    if (type == ONESCOPE_LIVE_END) e->ended = true;
    return ONESCOPE_OK;
}

onescope_code onescope_live_encode_probe_parts(onescope_live_encoder *e,
                                               const onescope_sim_setup *setup,
                                               const onescope_link_block *link,
                                               const void *snapshot, size_t size,
                                               onescope_error *error) {
    if (setup == NULL || (snapshot == NULL && size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "setup and snapshot must not be NULL");
    bool has_link = link != NULL && link->role != ONESCOPE_LINK_ROLE_NONE;
    if (size > ONESCOPE_SIM_MAX_SNAPSHOT)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, enc_name, OS_NO_OFFSET, "snapshot",
                                "at most 2060 bytes", "%zu bytes", size);
    size_t length = 1u + (has_link ? 4u : 0u) + 6u + size;
    size_t start = 0;
    OS_TRY(enc_begin(e, ONESCOPE_LIVE_PROBE, length, &start, error));
    onescope_os_write_u8(&e->w, (uint8_t)has_link);
    if (has_link) {
        onescope_os_write_u8(&e->w, link->role);
        onescope_os_write_u8(&e->w, link->body);
        onescope_os_write_u16(&e->w, link->transfer_step);
    }
    uint8_t setup_bytes[ONESCOPE_SIM_SETUP_BYTES];
    onescope_sim_setup_encode(setup, setup_bytes);
    onescope_os_write_bytes(&e->w, setup_bytes, sizeof setup_bytes);
    onescope_os_write_bytes(&e->w, snapshot, size);
    return enc_commit(e, start, error);
}

onescope_code onescope_live_encode_step(onescope_live_encoder *e, uint64_t step, const void *input,
                                        size_t size, uint64_t hash, onescope_error *error) {
    if (input == NULL && size != 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "input must not be NULL");
    if (size > ONESCOPE_SIM_MAX_INPUT)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, enc_name, OS_NO_OFFSET, "input length",
                                "at most 65535 bytes", "%zu bytes", size);
    size_t start = 0;
    OS_TRY(enc_begin(e, ONESCOPE_LIVE_STEP, 18u + size, &start, error));
    onescope_os_write_u64(&e->w, step);
    onescope_os_write_u16(&e->w, (uint16_t)size);
    onescope_os_write_bytes(&e->w, input, size);
    onescope_os_write_u64(&e->w, hash);
    return enc_commit(e, start, error);
}

onescope_code onescope_live_encode_end(onescope_live_encoder *e, uint64_t step,
                                       onescope_error *error) {
    size_t start = 0;
    OS_TRY(enc_begin(e, ONESCOPE_LIVE_END, ONESCOPE_LIVE_END_PAYLOAD, &start, error));
    onescope_os_write_u64(&e->w, step);
    return enc_commit(e, start, error);
}

void onescope_live_encoder_pending(const onescope_live_encoder *e, const uint8_t **data,
                                   size_t *size) {
    if (data != NULL) *data = e ? e->w.data : NULL;
    if (size != NULL) *size = e ? e->w.size : 0;
}

void onescope_live_encoder_clear(onescope_live_encoder *e) {
    if (e == NULL) return;
    e->cleared += e->w.size;
    e->w.size = 0;
}

onescope_code onescope_live_encoder_take(onescope_live_encoder *e, onescope_buffer *out,
                                         onescope_error *error) {
    if (e == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "encoder and out must not be NULL");
    if (e->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "the encoder failed earlier");
    uint64_t size = e->w.size;
    OS_TRY(onescope_os_writer_finish(&e->w, out, error, enc_name));
    e->cleared += size;
    onescope_os_writer_init(&e->w, e->allocator);
    return ONESCOPE_OK;
}
