/* The live stream: framing, incremental decoder, encoder, viewer. Rules: docs/live-stream.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/live.h"

static const uint8_t live_magic[4] = {'O', 'S', 'L', 'S'};

/* ---- the record rules, shared by the decoder and the encoder ---- */

typedef enum dec_state {
    DEC_HEADER = 0,     /* reading the 8-byte stream header */
    DEC_RECORD = 1,     /* reading a 5-byte record header */
    DEC_PAYLOAD = 2,    /* reading a payload */
    DEC_ENDED = 3,      /* after END: nothing more may follow */
    DEC_FAILED = 4
} dec_state;

/* What the rules remember between records. */
typedef struct live_rules {
    int have_probe;
    onescope_sim_setup setup;
    onescope_link_block link;
    uint64_t next_step; /* the host step the next STEP, PROBE or END must carry */
} live_rules;

struct onescope_live_decoder {
    const onescope_allocator *allocator;
    char name[256];
    dec_state state;
    uint64_t offset;        /* bytes consumed */
    uint8_t head[8];
    size_t head_fill;
    uint8_t type;           /* the record being read */
    uint32_t length;
    uint64_t record_offset;
    uint8_t *payload;
    size_t capacity;
    size_t fill;
    live_rules rules;
    onescope_code code;     /* the failure, once state is DEC_FAILED */
};

static const char *type_name(uint8_t type) {
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
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags", "0", "0x%04x", (unsigned)flags);
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
                       type_name(type));
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

static onescope_code check_step_number(uint64_t want, uint64_t found, uint64_t at,
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
                           "0 (no link block) or 1 (link block)", "%u", (unsigned)has_link);
        size_t pos = 1;
        onescope_link_block link = {0, 0, 0};
        if (has_link) {
            if (length < 1u + 4u + 6u + ONESCOPE_SIM_SNAPSHOT_HEADER + ONESCOPE_SIM_BODY_BYTES)
                return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, at + 1, "record length",
                               "55 to 2071 bytes for a probe with a link block", "%" PRIu32,
                               length);
            link.role = p[1];
            link.body = p[2];
            link.transfer_step = onescope_os_get_u16(p + 3);
            uint64_t lo = base + 1;
            if (link.role < 1 || link.role > 3)
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, lo, "link role", "1, 2 or 3", "%u",
                               (unsigned)link.role);
            pos = 5;
        }
        onescope_sim_setup setup;
        uint64_t so = base + pos;
        OS_TRY(onescope_sim_setup_decode(p + pos, ONESCOPE_SIM_SETUP_BYTES, name, so, &setup,
                                         error));
        if (has_link) {
            uint64_t lo = base + 1;
            if (link.role != ONESCOPE_LINK_ROLE_FIELDS && link.body >= setup.body_count)
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, lo + 1, "link body",
                               "below the body count", "%u (body count %u)", (unsigned)link.body,
                               (unsigned)setup.body_count);
            if (link.role == ONESCOPE_LINK_ROLE_FIELDS && link.body != 0)
                return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, lo + 1, "link body",
                               "0 for role 3", "%u", (unsigned)link.body);
            if (link.role == ONESCOPE_LINK_ROLE_FIELDS && link.transfer_step != 0)
                return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, lo + 2, "link transfer step",
                               "0 for role 3", "%u", (unsigned)link.transfer_step);
        }
        pos += 6;
        const uint8_t *snap = p + pos;
        size_t snap_size = length - pos;
        OS_TRY(onescope_sim_snapshot_check(&setup, snap, snap_size, name, base + pos, error));
        uint64_t step = onescope_os_get_u64(snap);
        if (rules->have_probe) {
            if (setup.dimensions != rules->setup.dimensions ||
                setup.body_count != rules->setup.body_count || setup.seed != rules->setup.seed)
                return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, so, "setup",
                               "the setup of the stream's first probe", "%u %u %" PRIu32,
                               (unsigned)setup.dimensions, (unsigned)setup.body_count,
                               setup.seed);
            if (memcmp(&link, &rules->link, sizeof link) != 0)
                return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, base, "link block",
                               "the link block of the stream's first probe", "role %u body %u "
                               "step %u", (unsigned)link.role, (unsigned)link.body,
                               (unsigned)link.transfer_step);
            OS_TRY(check_step_number(rules->next_step, step, base + pos, "probe host step",
                                     name, error));
        }
        rec->step = step;
        rec->setup = setup;
        rec->link = link;
        rec->probe = p + pos - 6;
        rec->probe_size = snap_size + 6;
        rec->snapshot = snap;
        rec->snapshot_size = snap_size;
        rules->have_probe = 1;
        rules->setup = setup;
        rules->link = link;
        rules->next_step = step;
        return ONESCOPE_OK;
    }
    if (type == ONESCOPE_LIVE_STEP) {
        uint64_t step = onescope_os_get_u64(p);
        OS_TRY(check_step_number(rules->next_step, step, base, "host step", name, error));
        uint16_t n = onescope_os_get_u16(p + 8);
        if ((uint32_t)n + 18u != length)
            return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base + 8, "input length",
                           NULL, "%u, but the record holds %" PRIu32 " input bytes", (unsigned)n,
                           length - 18u);
        OS_TRY(onescope_op_check_input(rules->setup.dimensions, p + 10, n, name, base + 10,
                                       error));
        rec->step = step;
        rec->input = p + 10;
        rec->input_size = n;
        rec->hash = onescope_os_get_u64(p + 10 + n);
        rules->next_step = step + 1;
        return ONESCOPE_OK;
    }
    uint64_t step = onescope_os_get_u64(p);
    OS_TRY(check_step_number(rules->next_step, step, base, "end host step", name, error));
    rec->step = step;
    return ONESCOPE_OK;
}

/* ---- decoder ---- */

onescope_code onescope_live_decoder_create(const char *name, const onescope_allocator *a,
                                           onescope_live_decoder **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_create", OS_NO_OFFSET,
                       NULL, NULL, "out must not be NULL");
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
        onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_next", OS_NO_OFFSET, NULL,
                NULL, "decoder, consumed and record must not be NULL");
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
                return dec_fail(d, onescope_os_fail(error, ONESCOPE_E_TRAILING, d->name, d->offset,
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
                    return dec_fail(d, onescope_os_fail(error, ONESCOPE_E_NOMEM, d->name, d->record_offset,
                                               "record", NULL, "could not allocate %" PRIu32
                                               " bytes", d->length));
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
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_decoder_finish", OS_NO_OFFSET,
                       NULL, NULL, "decoder must not be NULL");
    switch (d->state) {
    case DEC_ENDED:
        return ONESCOPE_OK;
    case DEC_FAILED:
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, d->name, d->offset, NULL, NULL,
                       "the decoder failed earlier");
    case DEC_HEADER:
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, 0, "stream header",
                       "8 bytes", "%zu bytes", d->head_fill);
    case DEC_RECORD:
        if (d->head_fill == 0)
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->offset, "record",
                           "an end record before the end of the stream", "the end of the input");
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->offset - d->head_fill,
                       "record header", "5 bytes", "%zu bytes", d->head_fill);
    default:
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->record_offset,
                       type_name(d->type), NULL, "%zu of %" PRIu32 " payload bytes", d->fill,
                       d->length);
    }
}

onescope_code onescope_live_decode(const void *data, size_t size, const char *name,
                                   const onescope_allocator *a,
                                   onescope_live_record_callback callback, void *user,
                                   onescope_error *error) {
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
        if (callback != NULL && callback(user, &rec) != 0) break;
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
    int ended;
    int failed;
};

static const char *const enc_name = "live encoder";

static onescope_code enc_nomem(onescope_live_encoder *e, onescope_error *error) {
    e->failed = 1;
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, enc_name, OS_NO_OFFSET, "output", NULL,
                   "could not allocate the output buffer");
}

onescope_code onescope_live_encoder_create(const onescope_allocator *a,
                                           onescope_live_encoder **out, onescope_error *error) {
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
static onescope_code enc_begin(onescope_live_encoder *e, uint8_t type, size_t length,
                               size_t *start, onescope_error *error) {
    if (e == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                       "encoder must not be NULL");
    if (e->failed || e->ended)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, NULL, NULL,
                       e->failed ? "the encoder failed earlier"
                                 : "the stream has ended (end record written)");
    uint64_t at = e->cleared + e->w.size;
    if (length > UINT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, enc_name, at + 1, "record length", NULL,
                       "%zu bytes", length);
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
    if (type == ONESCOPE_LIVE_END) e->ended = 1;
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
    int has_link = link != NULL && link->role != ONESCOPE_LINK_ROLE_NONE;
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

onescope_code onescope_live_encode_probe(onescope_live_encoder *e, const onescope_sim *sim,
                                         onescope_error *error) {
    if (sim == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                       "sim must not be NULL");
    if (onescope_sim_next_stage(sim) != ONESCOPE_SIM_STAGE_INPUT)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, "world",
                       "a world at a step boundary", "one in the middle of a step");
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_sim_def def = onescope_sim_definition(sim);
    return onescope_live_encode_probe_parts(e, &def.setup, &def.link, snap, n, error);
}

onescope_code onescope_live_encode_step(onescope_live_encoder *e, uint64_t step,
                                        const void *input, size_t size, uint64_t hash,
                                        onescope_error *error) {
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

/* ---- viewer ---- */

struct onescope_live_viewer {
    const onescope_allocator *allocator;
    onescope_live_viewer_options options;
    char name[256];
    onescope_live_decoder *decoder; /* created by the first feed */
    onescope_sim *sim;
    int synced;
    int ended;
    int failed;
    uint64_t steps;
    onescope_replay *replay; /* when recording: setup, link, start snapshot, inputs */
    uint64_t *rows;
    size_t row_count;
    size_t row_capacity;
};

onescope_live_viewer_options onescope_live_viewer_options_default(void) {
    onescope_live_viewer_options o;
    memset(&o, 0, sizeof o);
    return o;
}

onescope_code onescope_live_viewer_create(const onescope_live_viewer_options *options,
                                          const char *name, const onescope_allocator *a,
                                          onescope_live_viewer **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_create", OS_NO_OFFSET,
                       NULL, NULL, "out must not be NULL");
    *out = NULL;
    onescope_live_viewer *v = onescope_os_calloc(a, 1, sizeof *v);
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name ? name : "live stream", OS_NO_OFFSET,
                       "viewer", NULL, "could not allocate memory");
    v->allocator = a;
    v->options = options ? *options : onescope_live_viewer_options_default();
    onescope_os_copy_text(v->name, sizeof v->name, name ? name : "live stream");
    *out = v;
    return ONESCOPE_OK;
}

void onescope_live_viewer_free(onescope_live_viewer *v) {
    if (v == NULL) return;
    onescope_live_decoder_free(v->decoder);
    onescope_sim_free(v->sim);
    onescope_replay_free(v->replay);
    onescope_os_free(v->allocator, v->rows);
    onescope_os_free(v->allocator, v);
}

static onescope_code viewer_push_row(onescope_live_viewer *v, uint64_t hash,
                                     onescope_error *error) {
    if (v->options.record) {
        if (v->row_count == v->row_capacity) {
            size_t cap = v->row_capacity ? v->row_capacity * 2 : 256;
            size_t bytes;
            if (!onescope_os_mul_size(cap, sizeof *v->rows, &bytes))
                return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, v->name, OS_NO_OFFSET, "hash rows",
                               NULL, "too many");
            uint64_t *p = onescope_os_alloc(v->allocator, bytes);
            if (p == NULL)
                return onescope_os_fail(error, ONESCOPE_E_NOMEM, v->name, OS_NO_OFFSET, "hash rows", NULL,
                               "could not allocate memory");
            if (v->row_count) memcpy(p, v->rows, v->row_count * sizeof *v->rows);
            onescope_os_free(v->allocator, v->rows);
            v->rows = p;
            v->row_capacity = cap;
        }
        v->rows[v->row_count++] = hash;
    }
    if (v->options.on_row != NULL) {
        onescope_live_row row = {onescope_sim_host_step(v->sim), hash, v->sim};
        v->options.on_row(v->options.user, &row);
    }
    return ONESCOPE_OK;
}

static onescope_code viewer_sync(onescope_live_viewer *v, const onescope_live_record *rec,
                                 onescope_error *error) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = rec->setup;
    def.link = rec->link;
    OS_TRY(onescope_sim_create_from_snapshot(&def, rec->snapshot, rec->snapshot_size, v->name,
                                             v->allocator, &v->sim, error));
    if (v->options.record) {
        const onescope_link_block *link =
            rec->link.role != ONESCOPE_LINK_ROLE_NONE ? &rec->link : NULL;
        OS_TRY(onescope_replay_create(&rec->setup, link, v->allocator, &v->replay, error));
        OS_TRY(onescope_replay_set_start_snapshot(v->replay, rec->snapshot, rec->snapshot_size,
                                                  error));
    }
    v->synced = 1;
    return viewer_push_row(v, onescope_sim_hash(v->sim), error);
}

static onescope_code viewer_apply(onescope_live_viewer *v, const onescope_live_record *rec,
                                  onescope_error *error) {
    if (rec->type == ONESCOPE_LIVE_END) {
        if (v->synced)
            OS_TRY(check_step_number(onescope_sim_host_step(v->sim), rec->step, rec->offset + 5,
                                     "end host step", v->name, error));
        v->ended = 1;
        return ONESCOPE_OK;
    }
    if (!v->synced) {
        if (rec->type == ONESCOPE_LIVE_PROBE && rec->step >= v->options.from_step)
            return viewer_sync(v, rec, error);
        return ONESCOPE_OK; /* not there yet: skip */
    }
    uint64_t now = onescope_sim_host_step(v->sim);
    if (rec->type == ONESCOPE_LIVE_PROBE) {
        uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
        size_t n = onescope_sim_snapshot(v->sim, snap, sizeof snap);
        if (n != rec->snapshot_size || memcmp(snap, rec->snapshot, n) != 0)
            return onescope_os_fail(error, ONESCOPE_E_MISMATCH, v->name, rec->offset,
                           "probe snapshot", NULL,
                           "the host's world at step %" PRIu64 " (hash %016" PRIx64
                           ") differs from the viewer's (hash %016" PRIx64 ")",
                           rec->step, onescope_hash_bytes(rec->snapshot, rec->snapshot_size),
                           onescope_hash_bytes(snap, n));
        return ONESCOPE_OK;
    }
    OS_TRY(check_step_number(now, rec->step, rec->offset + 5, "host step", v->name, error));
    if (v->options.record && v->steps >= ONESCOPE_OSTM_MAX_STEPS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, rec->offset, "recorded steps",
                       "at most 16777216 (an OSTM file's limit)", "one more");
    OS_TRY(onescope_sim_step(v->sim, rec->input, rec->input_size, error));
    uint64_t hash = onescope_sim_hash(v->sim);
    if (hash != rec->hash) {
        char field[96], expected[64];
        snprintf(field, sizeof field, "hash at step %" PRIu64, now + 1);
        snprintf(expected, sizeof expected, "%016" PRIx64 " (the host's)", rec->hash);
        return onescope_os_fail(error, ONESCOPE_E_MISMATCH, v->name, rec->offset, field, expected,
                       "%016" PRIx64 " (the viewer's)", hash);
    }
    if (v->options.record)
        OS_TRY(onescope_replay_append_step(v->replay, rec->input, rec->input_size, error));
    v->steps++;
    return viewer_push_row(v, hash, error);
}

onescope_code onescope_live_viewer_apply(onescope_live_viewer *v, const onescope_live_record *rec,
                                         onescope_error *error) {
    if (v == NULL || rec == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_apply", OS_NO_OFFSET,
                       NULL, NULL, "viewer and record must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                       "the viewer failed earlier");
    if (v->ended)
        return onescope_os_fail(error, ONESCOPE_E_TRAILING, v->name, rec->offset, "record",
                       "nothing after the end record", "a record of type %s", type_name((uint8_t)rec->type));
    onescope_code rc = viewer_apply(v, rec, error);
    if (rc != ONESCOPE_OK) v->failed = 1;
    return rc;
}

onescope_code onescope_live_viewer_feed(onescope_live_viewer *v, const void *data, size_t size,
                                        onescope_error *error) {
    if (v == NULL || (data == NULL && size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_feed", OS_NO_OFFSET,
                       NULL, NULL, "viewer and data must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                       "the viewer failed earlier");
    if (v->decoder == NULL) {
        onescope_code rc = onescope_live_decoder_create(v->name, v->allocator, &v->decoder, error);
        if (rc != ONESCOPE_OK) return rc; /* nothing happened yet: a later feed may retry */
    }
    const uint8_t *p = data;
    size_t pos = 0;
    for (;;) {
        onescope_live_record rec;
        size_t used;
        int r = onescope_live_decoder_next(v->decoder, p ? p + pos : NULL, size - pos, &used,
                                           &rec, error);
        pos += used;
        if (r < 0) {
            v->failed = 1;
            return v->decoder->code;
        }
        if (r == 0) return ONESCOPE_OK;
        OS_TRY(onescope_live_viewer_apply(v, &rec, error));
    }
}

onescope_code onescope_live_viewer_finish(onescope_live_viewer *v, onescope_error *error) {
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_finish", OS_NO_OFFSET,
                       NULL, NULL, "viewer must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                       "the viewer failed earlier");
    if (v->decoder != NULL) OS_TRY(onescope_live_decoder_finish(v->decoder, error));
    else if (!v->ended)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, v->name, 0, "stream header", "8 bytes",
                       "0 bytes");
    if (!v->synced)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, OS_NO_OFFSET, "probe",
                       NULL, "no probe at or after step %" PRIu64 " before the end",
                       v->options.from_step);
    return ONESCOPE_OK;
}

int onescope_live_viewer_synced(const onescope_live_viewer *v) { return v ? v->synced : 0; }
int onescope_live_viewer_ended(const onescope_live_viewer *v) { return v ? v->ended : 0; }
const onescope_sim *onescope_live_viewer_sim(const onescope_live_viewer *v) {
    return v ? v->sim : NULL;
}
uint64_t onescope_live_viewer_steps(const onescope_live_viewer *v) { return v ? v->steps : 0; }

onescope_code onescope_live_viewer_replay(const onescope_live_viewer *v,
                                          const onescope_allocator *a, onescope_replay **out,
                                          onescope_error *error) {
    if (v == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_replay", OS_NO_OFFSET,
                       NULL, NULL, "viewer and out must not be NULL");
    *out = NULL;
    if (!v->options.record)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, "viewer",
                       "a viewer created with options.record", "one that did not record");
    if (!v->synced || v->replay == NULL)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, OS_NO_OFFSET, "probe", NULL,
                       "no probe at or after step %" PRIu64 " seen yet", v->options.from_step);
    /* A copy through the writer and parser, so the viewer can go on recording. */
    onescope_buffer bytes = {NULL, 0, NULL};
    OS_TRY(onescope_replay_write(v->replay, a, &bytes, error));
    onescope_parse_options po = onescope_parse_options_default();
    po.allocator = a;
    onescope_code rc = onescope_replay_parse(bytes.data, bytes.size, v->name, &po, out, error);
    onescope_buffer_free(&bytes);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_replay_set_hash_rows(*out, v->rows, v->row_count, error);
    if (rc != ONESCOPE_OK) {
        onescope_replay_free(*out);
        *out = NULL;
    }
    return rc;
}
