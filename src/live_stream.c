/* The live stream's bytes <-> records: the framing rules, the incremental decoder and the
 * encoder, for version 1 (the test module's probes) and version 2 (any module's blobs, opaque
 * here). Nothing here runs a simulation or a module (the viewer is in live_viewer.c).
 * Rules: docs/live-stream.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check_internal.h"
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
    DEC_FAILED = 4,
    DEC_MODULE = 5 /* version 2: the module id and version after the header */
} dec_state;

/* The test module's name in records of a version-1 stream. */
static const char *const test_id = "onescope.test", *const test_version = "1";

/* What the rules remember between records. */
typedef struct live_rules {
    uint16_t version;
    bool have_probe;
    onescope_sim_setup setup;
    onescope_link_block link;
    uint64_t next_step; /* the host step the next STEP, PROBE or END must carry */
    /* version 2: the first probe's setup blob (the owner's copy), for continuity */
    const uint8_t *setup_blob;
    uint32_t setup_size;
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
    /* version 2: the module texts, gathered one at a time (length byte, then its bytes) */
    char module_id[65];
    char module_version[65];
    uint8_t text[65];
    size_t text_fill, text_want;
    uint64_t text_at; /* the stream offset of the text's length byte */
    bool text_is_version;
    uint8_t *first_setup; /* the copy rules.setup_blob points at */
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
    if (version != ONESCOPE_LIVE_VERSION && version != ONESCOPE_LIVE_MODULE_VERSION)
        return onescope_os_fail(error, ONESCOPE_E_VERSION, name, 4, "version",
                                "1 (the test module's) or 2 (a module's)", "%u", (unsigned)version);
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
    if (rules->version == ONESCOPE_LIVE_MODULE_VERSION) {
        static const uint32_t lo[3] = {13u, 20u, ONESCOPE_LIVE_END_PAYLOAD};
        static const char *const text[3] = {"13 to 67108864 bytes for a probe",
                                            "20 to 67108864 bytes for a step",
                                            "8 bytes for an end"};
        min = lo[type - 1];
        max = type == ONESCOPE_LIVE_END ? min : ONESCOPE_LIVE_MAX_MODULE_PAYLOAD;
        if (length < min || length > max)
            return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, at + 1, "record length",
                                    text[type - 1], "%" PRIu32, length);
        return ONESCOPE_OK;
    }
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

/* A version-2 PROBE: host step, flags, the setup blob, the snapshot (docs/live-stream.md 7a.3).
 * The blobs are the module's: only their lengths and continuity are the stream's. */
static onescope_code check_probe_v2(live_rules *rules, const uint8_t *p, uint32_t length,
                                    uint64_t at, const char *name, onescope_live_record *rec,
                                    onescope_error *error) {
    uint64_t base = at + ONESCOPE_LIVE_RECORD_HEADER_BYTES;
    uint64_t step = onescope_os_get_u64(p);
    if (rules->have_probe)
        OS_TRY(onescope_os_live_check_step(rules->next_step, step, base, "probe host step", name,
                                           error));
    uint8_t flags = p[8];
    if (flags > 1)
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, base + 8, "probe flags",
                                "0 (no snapshot) or 1 (a snapshot follows)", "0x%02x",
                                (unsigned)flags);
    bool has_snapshot = flags == 1;
    if (!has_snapshot && step != 0)
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, base + 8, "probe flags",
                                "1 (a snapshot) for a probe after host step 0",
                                "0 at host step %" PRIu64, step);
    if (has_snapshot && length < 17u)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, at + 1, "record length",
                                "17 or more bytes for a probe with a snapshot", "%" PRIu32, length);
    uint32_t room = length - 13u - (has_snapshot ? 4u : 0u); /* what the setup may take */
    uint32_t setup_size = onescope_os_get_u32(p + 9);
    if (has_snapshot ? setup_size > room : setup_size != room) {
        char expected[64];
        snprintf(expected, sizeof expected, "%s%" PRIu32 " bytes (%s)",
                 has_snapshot ? "at most " : "", room,
                 has_snapshot ? "what the record holds" : "the rest of the record");
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base + 9, "setup length", expected,
                                "%" PRIu32, setup_size);
    }
    const uint8_t *setup = p + 13;
    if (rules->have_probe) {
        if (setup_size != rules->setup_size)
            return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, base + 9, "setup length",
                                    "the length of the stream's first setup blob",
                                    "%" PRIu32 " (the first probe's: %" PRIu32 ")", setup_size,
                                    rules->setup_size);
        for (uint32_t i = 0; i < setup_size; i++)
            if (setup[i] != rules->setup_blob[i])
                return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, base + 13 + i, "setup",
                                        "the setup blob of the stream's first probe",
                                        "byte 0x%02x (the first probe's: 0x%02x)", setup[i],
                                        rules->setup_blob[i]);
    }
    rec->step = step;
    rec->setup_blob = setup;
    rec->setup_blob_size = setup_size;
    rec->has_snapshot = has_snapshot;
    if (has_snapshot) {
        uint32_t snapshot_size = onescope_os_get_u32(p + 13 + setup_size);
        if (snapshot_size != room - setup_size)
            return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base + 13 + setup_size,
                                    "snapshot length", NULL,
                                    "%" PRIu32 ", but the record holds %" PRIu32 " snapshot bytes",
                                    snapshot_size, room - setup_size);
        rec->snapshot = setup + setup_size + 4;
        rec->snapshot_size = snapshot_size;
    }
    if (!rules->have_probe) {
        rules->have_probe = true;
        rules->setup_blob = setup; /* the owner keeps a copy (keep_first_setup) */
        rules->setup_size = setup_size;
    }
    rules->next_step = step;
    return ONESCOPE_OK;
}

/* A version-2 STEP: host step, u32 input length, the input blob, the hash. */
static onescope_code check_step_v2(live_rules *rules, const uint8_t *p, uint32_t length,
                                   uint64_t at, const char *name, onescope_live_record *rec,
                                   onescope_error *error) {
    uint64_t base = at + ONESCOPE_LIVE_RECORD_HEADER_BYTES;
    uint64_t step = onescope_os_get_u64(p);
    OS_TRY(onescope_os_live_check_step(rules->next_step, step, base, "host step", name, error));
    uint32_t n = onescope_os_get_u32(p + 8);
    if (n != length - 20u)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base + 8, "input length", NULL,
                                "%" PRIu32 ", but the record holds %" PRIu32 " input bytes", n,
                                length - 20u);
    rec->step = step;
    rec->input = p + 12;
    rec->input_size = n;
    rec->hash = onescope_os_get_u64(p + 12 + n);
    rules->next_step = step + 1;
    return ONESCOPE_OK;
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
    rec->version = rules->version;
    if (rules->version == ONESCOPE_LIVE_MODULE_VERSION && type == ONESCOPE_LIVE_PROBE)
        return check_probe_v2(rules, p, length, at, name, rec, error);
    if (rules->version == ONESCOPE_LIVE_MODULE_VERSION && type == ONESCOPE_LIVE_STEP)
        return check_step_v2(rules, p, length, at, name, rec, error);
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
        rec->has_snapshot = true;
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
    onescope_os_free(d->allocator, d->first_setup);
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

/* A version-2 stream's first probe: its setup blob copied, for the continuity of later ones
 * (the payload it points into is reused by the next record). */
static onescope_code keep_first_setup(const onescope_allocator *a, live_rules *rules,
                                      uint8_t **copy, const char *name, uint64_t at,
                                      onescope_error *error) {
    if (*copy != NULL || rules->version != ONESCOPE_LIVE_MODULE_VERSION || !rules->have_probe)
        return ONESCOPE_OK;
    *copy = onescope_os_alloc(a, rules->setup_size ? rules->setup_size : 1);
    if (*copy == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, at, "setup", NULL,
                                "could not allocate %" PRIu32 " bytes", rules->setup_size);
    if (rules->setup_size) memcpy(*copy, rules->setup_blob, rules->setup_size);
    rules->setup_blob = *copy;
    return ONESCOPE_OK;
}

/* One module text of a version-2 header, gathered whole: true when it is done (or failed,
 * with *rc set). The rule is the OSTM v2 file's (onescope_os_read_module_text). */
static bool dec_module_text(onescope_live_decoder *d, onescope_error *error, onescope_code *rc) {
    *rc = ONESCOPE_OK;
    if (d->text_fill == 1 && d->text_want == 1 && d->text[0] >= 1 && d->text[0] <= 64) {
        d->text_want = 1u + d->text[0]; /* a good length: gather the text */
        return false;
    }
    if (d->text_fill < d->text_want) return false;
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, d->text, d->text_fill, d->name, error);
    const char *field = d->text_is_version ? "module version" : "module id";
    *rc = onescope_os_read_module_text(&rd, field, !d->text_is_version,
                                       d->text_is_version ? d->module_version : d->module_id);
    if (*rc != ONESCOPE_OK && error != NULL && error->has_offset) error->offset += d->text_at;
    return true;
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
                    d->rules.version = onescope_os_get_u16(d->head + 4);
                    d->state =
                        d->rules.version == ONESCOPE_LIVE_MODULE_VERSION ? DEC_MODULE : DEC_RECORD;
                    d->text_at = d->offset;
                    d->text_want = 1;
                    break;
                }
                d->type = d->head[0];
                d->length = onescope_os_get_u32(d->head + 1);
                d->record_offset = d->offset - ONESCOPE_LIVE_RECORD_HEADER_BYTES;
                onescope_code rc = check_record_header(&d->rules, d->type, d->length,
                                                       d->record_offset, d->name, error);
                if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                /* Version 2: the buffer grows with the bytes as they arrive (below). */
                if (d->capacity < d->length && d->rules.version != ONESCOPE_LIVE_MODULE_VERSION) {
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
            case DEC_MODULE: {
                if (used == size) return 0;
                d->text[d->text_fill++] = in[used++];
                d->offset++;
                *consumed = used;
                onescope_code rc;
                if (!dec_module_text(d, error, &rc)) break;
                if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                d->text_at = d->offset;
                d->text_fill = 0;
                d->text_want = 1;
                if (d->text_is_version) d->state = DEC_RECORD;
                d->text_is_version = true;
                break;
            }
            case DEC_PAYLOAD: {
                size_t n = d->length - d->fill;
                if (n > size - used) n = size - used;
                if (d->fill + n > d->capacity) {
                    /* version 2: at least double, at most the record's length */
                    size_t want = d->capacity < 4096 ? 4096 : d->capacity * 2;
                    if (want < d->fill + n) want = d->fill + n;
                    if (want > d->length) want = d->length;
                    uint8_t *p = onescope_os_alloc(d->allocator, want);
                    if (p == NULL)
                        return dec_fail(d, onescope_os_fail(error, ONESCOPE_E_NOMEM, d->name,
                                                            d->record_offset, "record", NULL,
                                                            "could not allocate %zu bytes", want));
                    if (d->fill) memcpy(p, d->payload, d->fill);
                    onescope_os_free(d->allocator, d->payload);
                    d->payload = p;
                    d->capacity = want;
                }
                if (n) memcpy(d->payload + d->fill, in + used, n);
                d->fill += n;
                used += n;
                d->offset += n;
                *consumed = used;
                if (d->fill < d->length) return 0;
                onescope_code rc = check_payload(&d->rules, d->type, d->payload, d->length,
                                                 d->record_offset, d->name, record, error);
                if (rc == ONESCOPE_OK)
                    rc = keep_first_setup(d->allocator, &d->rules, &d->first_setup, d->name,
                                          d->record_offset, error);
                if (rc != ONESCOPE_OK) return dec_fail(d, rc);
                bool v2 = d->rules.version == ONESCOPE_LIVE_MODULE_VERSION;
                record->module_id = v2 ? d->module_id : test_id;
                record->module_version = v2 ? d->module_version : test_version;
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
        case DEC_MODULE:
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, d->name, d->text_at,
                                    d->text_is_version ? "module version" : "module id",
                                    d->text_want > 1 ? "its length byte and text" : "a length byte",
                                    "%zu of %zu bytes", d->text_fill, d->text_want);
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
    uint8_t *first_setup; /* version 2: the copy rules.setup_blob points at */
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

onescope_code onescope_live_encoder_create_module(const char *module_id, const char *module_version,
                                                  const onescope_allocator *a,
                                                  onescope_live_encoder **out,
                                                  onescope_error *error) {
    if (out != NULL) *out = NULL;
    if (module_id == NULL || module_version == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "module_id and module_version must not be NULL");
    /* The texts as the stream stores them, checked by the decoder's rule at their offsets. */
    const char *texts[2] = {module_id, module_version};
    uint8_t head[2 * 65];
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        size_t k = strnlen(texts[i], 255);
        head[n++] = (uint8_t)k; /* over 64: refused by the rule, which names the length */
        if (k > 64) break;
        memcpy(head + n, texts[i], k);
        n += k;
    }
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, head, n, enc_name, error);
    char id[65], version[65];
    onescope_code rc = onescope_os_read_module_text(&rd, "module id", true, id);
    if (rc == ONESCOPE_OK) rc = onescope_os_read_module_text(&rd, "module version", false, version);
    if (rc != ONESCOPE_OK) {
        if (error != NULL && error->has_offset) error->offset += ONESCOPE_LIVE_HEADER_BYTES;
        return rc;
    }
    OS_TRY(onescope_live_encoder_create(a, out, error));
    onescope_live_encoder *e = *out;
    e->w.data[4] = ONESCOPE_LIVE_MODULE_VERSION; /* the header just written, little-endian */
    e->rules.version = ONESCOPE_LIVE_MODULE_VERSION;
    onescope_os_write_bytes(&e->w, head, n);
    if (e->w.failed) {
        onescope_live_encoder_free(e);
        *out = NULL;
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, enc_name, OS_NO_OFFSET, "output", NULL,
                                "could not allocate the output buffer");
    }
    return ONESCOPE_OK;
}

void onescope_live_encoder_free(onescope_live_encoder *e) {
    if (e == NULL) return;
    onescope_os_free(e->allocator, e->first_setup);
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
    if (rc == ONESCOPE_OK)
        rc = keep_first_setup(e->allocator, &rules, &e->first_setup, enc_name, e->cleared + start,
                              error);
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
    if (e != NULL && e->rules.version == ONESCOPE_LIVE_MODULE_VERSION)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, "probe",
                                "onescope_live_encode_probe_blob for a version-2 stream",
                                "a test-module probe");
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

onescope_code onescope_live_encode_probe_blob(onescope_live_encoder *e, uint64_t step,
                                              const void *setup, size_t setup_size,
                                              const void *snapshot, size_t snapshot_size,
                                              onescope_error *error) {
    if ((setup == NULL && setup_size != 0) || (snapshot == NULL && snapshot_size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "setup and snapshot must not be NULL with a size");
    if (e != NULL && e->rules.version != ONESCOPE_LIVE_MODULE_VERSION)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, enc_name, OS_NO_OFFSET, "probe",
                                "a test-module probe for a version-1 stream",
                                "a module's setup blob");
    bool has_snapshot = snapshot != NULL;
    size_t length;
    bool fits = onescope_os_add_size(13u + (has_snapshot ? 4u : 0u), setup_size, &length) &&
                (!has_snapshot || onescope_os_add_size(length, snapshot_size, &length));
    if (!fits || length > ONESCOPE_LIVE_MAX_MODULE_PAYLOAD) /* refused by the length rule */
        length = (size_t)ONESCOPE_LIVE_MAX_MODULE_PAYLOAD + 1u;
    size_t start = 0;
    OS_TRY(enc_begin(e, ONESCOPE_LIVE_PROBE, length, &start, error));
    onescope_os_write_u64(&e->w, step);
    onescope_os_write_u8(&e->w, has_snapshot ? 1u : 0u);
    onescope_os_write_u32(&e->w, (uint32_t)setup_size);
    onescope_os_write_bytes(&e->w, setup, setup_size);
    if (has_snapshot) {
        onescope_os_write_u32(&e->w, (uint32_t)snapshot_size);
        onescope_os_write_bytes(&e->w, snapshot, snapshot_size);
    }
    return enc_commit(e, start, error);
}

onescope_code onescope_live_encode_step(onescope_live_encoder *e, uint64_t step, const void *input,
                                        size_t size, uint64_t hash, onescope_error *error) {
    if (input == NULL && size != 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, enc_name, OS_NO_OFFSET, NULL, NULL,
                                "input must not be NULL");
    if (e != NULL && e->rules.version == ONESCOPE_LIVE_MODULE_VERSION) {
        size_t length = size > ONESCOPE_LIVE_MAX_MODULE_PAYLOAD ? size : 20u + size;
        size_t start = 0;
        OS_TRY(enc_begin(e, ONESCOPE_LIVE_STEP, length, &start, error));
        onescope_os_write_u64(&e->w, step);
        onescope_os_write_u32(&e->w, (uint32_t)size);
        onescope_os_write_bytes(&e->w, input, size);
        onescope_os_write_u64(&e->w, hash);
        return enc_commit(e, start, error);
    }
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

/* ---- the OSLS codec (check_internal.h): the decoder, record by record ---- */

static onescope_code osls_pull(const void *first, size_t n, size_t total, onescope_os_jr_more *more,
                               void *user, const char *name, const onescope_parse_options *options,
                               onescope_error *error) {
    (void)total; /* the records say where they end */
    onescope_live_decoder *d;
    OS_TRY(onescope_live_decoder_create(name, options ? options->allocator : NULL, &d, error));
    const uint8_t *p = first;
    while (n > 0) {
        size_t pos = 0;
        while (pos < n) {
            onescope_live_record rec;
            size_t used;
            int r = onescope_live_decoder_next(d, p + pos, n - pos, &used, &rec, error);
            pos += used;
            if (r < 0) {
                onescope_live_decoder_free(d);
                return error->code;
            }
        }
        if (!more(user, &p, &n, error)) {
            onescope_live_decoder_free(d);
            return error->code;
        }
    }
    onescope_code rc = onescope_live_decoder_finish(d, error);
    onescope_live_decoder_free(d);
    return rc;
}

static onescope_code osls_parse_only(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_error *error) {
    return onescope_live_decode(data, size, name, options ? options->allocator : NULL, NULL, NULL,
                                error);
}

const onescope_os_codec onescope_os_osls_codec = {NULL, osls_pull, osls_parse_only};
