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
    uint64_t *blocks;  /* with entity rows: row i's entity row offset, and where its ids are */
    uint64_t *ids_at;  /* (step_count + 1 each) */
    uint64_t *keys;    /* with keyframes: keyframe j's offset (its length field) */
    uint32_t key_count;
    uint64_t *names; /* and each value name's offset (its length byte) */
};

static bool id_char(uint8_t c, bool first) {
    if (c >= 'a' && c <= 'z') return true;
    return !first && ((c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
}

/* A length-prefixed text of 1..64 bytes; id: [a-z][a-z0-9._-]*, version: printable ASCII. */
onescope_code onescope_os_read_module_text(onescope_os_reader *rd, const char *field, bool id,
                                           char out[65]) {
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

/* ---- the scan: every rule of the container, once, fed in pieces ----
 * The parser feeds it the whole buffer, recovery a partial's bytes, file.c a file through one
 * buffer (check_internal.h). Each unit (the fixed head, a text, a length, a row) is gathered
 * whole, or up to the end of the input, and checked by a reader over its bytes alone; its
 * error's offset is then moved to the file's. Blob bytes (the setup, the snapshot, each input)
 * are the module's and are only counted past. */

typedef enum scan_state {
    S_FIXED,     /* magic, version, flags, step count: 12 bytes */
    S_ID,        /* length byte, then the module id */
    S_VERSION,   /* the module version, the same way */
    S_SETUP_LEN, /* u32 */
    S_SETUP,     /* skipped */
    S_SNAP_LEN,
    S_SNAP,
    S_ROW0,
    S_LEN, /* a record's input length */
    S_INPUT,
    S_ROW,
    S_EHEAD,  /* an entity row's length, count, ids flag and group count: 10 bytes */
    S_EBODY,  /* the rest of it: skipped */
    S_KINT,   /* the keyframe interval K (u32) and the value count V (u16) */
    S_KNAME,  /* a value name: length byte, then the text */
    S_KHEAD,  /* a keyframe's length and snapshot length: 8 bytes */
    S_KSNAP,  /* its snapshot: skipped */
    S_KCOUNT, /* its entity count */
    S_KBODY,  /* its ids and values: skipped */
    S_END,    /* every record read: nothing may follow */
} scan_state;

static onescope_code read_fixed(onescope_os_reader *rd, bool open_ok, onescope_os_rec_head *h) {
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
    if (h->flags & ~(ONESCOPE_RECORDING_FLAG_HASH_ROWS | ONESCOPE_RECORDING_FLAG_START_SNAPSHOT |
                     ONESCOPE_RECORDING_FLAG_ENTITY_ROWS | ONESCOPE_RECORDING_FLAG_KEYFRAMES))
        return onescope_os_reader_fail_at(rd, 6, ONESCOPE_E_FLAGS, "flags", "bits 4-15 zero",
                                          "0x%04x", (unsigned)h->flags);
    if ((h->flags & (ONESCOPE_RECORDING_FLAG_ENTITY_ROWS | ONESCOPE_RECORDING_FLAG_KEYFRAMES)) &&
        !(h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS))
        return onescope_os_reader_fail_at(
            rd, 6, ONESCOPE_E_FLAGS, "flags",
            "bit 0 with bits 2 and 3 (entity rows and keyframes sit beside hash rows)", "0x%04x",
            (unsigned)h->flags);
    OS_TRY(onescope_os_read_u32(rd, "step count", &h->step_count));
    h->open = h->step_count == ONESCOPE_RECORDING_OPEN_COUNT;
    if (h->open ? !open_ok : h->step_count > ONESCOPE_RECORDING_MAX_STEPS)
        return onescope_os_reader_fail_at(
            rd, 8, ONESCOPE_E_RANGE, "step count",
            open_ok ? "at most 16777216, or 0xffffffff (still open)" : "at most 16777216",
            h->open ? "0xffffffff (a partial still being written: recover it)" : "%" PRIu32,
            h->step_count);
    if (open_ok && h->open && !(h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS))
        return onescope_os_reader_fail_at(rd, 6, ONESCOPE_E_FLAGS, "flags",
                                          "bit 0 set (the writer always records hash rows)",
                                          "0x%04x", (unsigned)h->flags);
    return ONESCOPE_OK;
}

/* A u32 length whose bytes must remain in the input: left is what follows the length. */
static onescope_code read_length(onescope_os_reader *rd, const char *field, uint64_t left,
                                 uint32_t *size) {
    OS_TRY(onescope_os_read_u32(rd, field, size));
    if (*size > left)
        return onescope_os_reader_fail_at(
            rd, rd->pos, ONESCOPE_E_TRUNCATED, field, "a length the bytes left can hold",
            "%" PRIu32 " bytes announced, %" PRIu64 " left", *size, left);
    return ONESCOPE_OK;
}

static size_t record_min(const onescope_os_rec_head *h) {
    return 4u + ((h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) ? 8u : 0u) +
           ((h->flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) ? 10u : 0u);
}

/* The bytes after an entity row's length field, by its count, ids flag and group count. */
static uint64_t entity_row_body(uint32_t count, bool ids, uint32_t groups) {
    return 6u + (uint64_t)count * ((ids ? 8u : 0u) + 4u + groups);
}

/* An entity row's first 10 bytes: the length (its bytes must remain: left is what follows the
 * 10), the count, the ids flag (0: the previous row's ids, which needs a previous row with the
 * same count) and the group count (the same in every row); the length must be what they say. */
static onescope_code read_entity_head(onescope_os_reader *rd, onescope_os_rec_scan *s,
                                      uint64_t left, uint32_t *body) {
    uint32_t len, count;
    uint8_t ids, groups;
    OS_TRY(onescope_os_read_u32(rd, "entity row length", &len));
    OS_TRY(onescope_os_read_u32(rd, "entity count", &count));
    OS_TRY(onescope_os_read_u8(rd, "entity ids", &ids));
    OS_TRY(onescope_os_read_u8(rd, "entity groups", &groups));
    if (count > ONESCOPE_RECORDING_MAX_ENTITIES)
        return onescope_os_reader_fail_at(rd, 4, ONESCOPE_E_RANGE, "entity count",
                                          "at most 1048576", "%" PRIu32, count);
    if (ids > 1 || (ids == 0 && (!s->rows_seen || count != s->rows_count)))
        return onescope_os_reader_fail_at(rd, 8, ONESCOPE_E_RANGE, "entity ids",
                                          "1 (ids follow), or 0 after a row of the same count",
                                          "%u%s", (unsigned)ids,
                                          ids == 0 && !s->rows_seen ? " in the first row"
                                          : ids == 0                ? " for another count"
                                                                    : "");
    if (s->rows_seen && groups != s->rows_groups)
        return onescope_os_reader_fail_at(rd, 9, ONESCOPE_E_MISMATCH, "entity groups",
                                          "the group count of the rows before", "%u, not %u",
                                          (unsigned)groups, (unsigned)s->rows_groups);
    uint64_t want = entity_row_body(count, ids == 1, groups);
    if (len != want)
        return onescope_os_reader_fail_at(rd, 0, ONESCOPE_E_LENGTH, "entity row length",
                                          "6 + count x (8 with ids + 4 + groups)",
                                          "%" PRIu32 " for %" PRIu64, len, want);
    if (len - 6u > left)
        return onescope_os_reader_fail_at(
            rd, 0, ONESCOPE_E_TRUNCATED, "entity row length", "a length the bytes left can hold",
            "%" PRIu32 " bytes announced, %" PRIu64 " left", len, left + 6u);
    s->rows_seen = true;
    s->rows_count = count;
    s->rows_groups = groups;
    *body = len - 6u;
    return ONESCOPE_OK;
}

/* The keyframe head's fixed part: K (1..16777216) and V (at most 1024 names follow). */
static onescope_code read_key_interval(onescope_os_reader *rd, onescope_os_rec_head *h) {
    uint16_t v;
    OS_TRY(onescope_os_read_u32(rd, "keyframe interval", &h->key_every));
    OS_TRY(onescope_os_read_u16(rd, "keyframe values", &v));
    if (h->key_every == 0 || h->key_every > ONESCOPE_RECORDING_MAX_STEPS)
        return onescope_os_reader_fail_at(rd, 0, ONESCOPE_E_RANGE, "keyframe interval",
                                          "1..16777216 steps", "%" PRIu32, h->key_every);
    if (v > ONESCOPE_RECORDING_MAX_KEY_VALUES)
        return onescope_os_reader_fail_at(rd, 4, ONESCOPE_E_RANGE, "keyframe values",
                                          "at most 1024", "%u", (unsigned)v);
    h->key_values = v;
    return ONESCOPE_OK;
}

/* A keyframe whose length L (the bytes after the field) runs past the end of the input. */
static onescope_code key_cut(onescope_os_rec_scan *s) {
    return onescope_os_fail(&s->error, ONESCOPE_E_TRUNCATED, s->name, s->key_at, "keyframe length",
                            "a length the bytes left can hold",
                            "%" PRIu32 " bytes announced, %" PRIu64 " left", s->key_len,
                            s->total - s->key_at - 4u);
}

/* A keyframe's first 8 bytes: its length L (the bytes after the field, which must remain:
 * left is what follows the 8) and its snapshot length S, which L must hold with the count. */
static onescope_code read_key_head(onescope_os_reader *rd, onescope_os_rec_scan *s, uint64_t left) {
    OS_TRY(onescope_os_read_u32(rd, "keyframe length", &s->key_len));
    OS_TRY(onescope_os_read_u32(rd, "keyframe snapshot length", &s->key_snap));
    if (s->key_len < 8 || s->key_snap > s->key_len - 8u)
        return onescope_os_reader_fail_at(rd, 4, ONESCOPE_E_LENGTH, "keyframe snapshot length",
                                          "at most the keyframe length less 8",
                                          "%" PRIu32 " in %" PRIu32, s->key_snap, s->key_len);
    /* A length past the end is a torn keyframe only when the fields after it agree with it:
     * with its snapshot and count there, the count proves the length first (read_key_count),
     * so a damaged length is damage, never taken for a kill's tear. */
    if ((uint64_t)s->key_snap + 4u > left)
        return onescope_os_reader_fail_at(
            rd, 0, ONESCOPE_E_TRUNCATED, "keyframe length", "a length the bytes left can hold",
            "%" PRIu32 " bytes announced, %" PRIu64 " left", s->key_len, left + 4u);
    return ONESCOPE_OK;
}

/* A keyframe's entity count E: at most 1048576, and L = 8 + S + E x (8 + 8 V) exactly. */
static onescope_code read_key_count(onescope_os_reader *rd, const onescope_os_rec_scan *s,
                                    uint32_t *body) {
    uint32_t e;
    OS_TRY(onescope_os_read_u32(rd, "keyframe entity count", &e));
    if (e > ONESCOPE_RECORDING_MAX_ENTITIES)
        return onescope_os_reader_fail_at(rd, 0, ONESCOPE_E_RANGE, "keyframe entity count",
                                          "at most 1048576", "%" PRIu32, e);
    uint64_t table = (uint64_t)e * (8u + 8u * (uint64_t)s->h.key_values);
    if (8u + (uint64_t)s->key_snap + table != s->key_len)
        return onescope_os_reader_fail_at(
            rd, 0, ONESCOPE_E_LENGTH, "keyframe entity count",
            "the count the keyframe length holds (8 + snapshot + count x (8 + 8 x values))",
            "%" PRIu32 " entities, %" PRIu64 " bytes for a length of %" PRIu32, e,
            8u + (uint64_t)s->key_snap + table, s->key_len);
    *body = (uint32_t)table;
    return ONESCOPE_OK;
}

void onescope_os_rec_scan_init(onescope_os_rec_scan *s, uint64_t total, bool partial,
                               const char *name) {
    memset(s, 0, sizeof *s);
    s->total = total;
    s->partial = partial;
    s->name = name;
    s->state = S_FIXED;
    s->want = 12;
}

void onescope_os_rec_scan_init_unknown(onescope_os_rec_scan *s, uint64_t limit, const char *name) {
    onescope_os_rec_scan_init(s, limit, false, name);
    s->unknown = true;
}

/* Every record takes at least its length (and its row): a count the bytes cannot hold is
 * refused once the head has passed, before a parser allocates its offsets. */
static bool steps_fit(onescope_os_rec_scan *s) {
    const onescope_os_rec_head *h = &s->h;
    if (h->step_count <= (s->total - h->records_at) / record_min(h)) return true;
    s->rc = onescope_os_fail(&s->error, ONESCOPE_E_TRUNCATED, s->name, 8, "step count",
                             "a count whose records fit in the bytes after the head",
                             "%" PRIu32 " steps in %" PRIu64 " bytes", h->step_count,
                             s->total - h->records_at);
    return false;
}

/* The unit after the head, or the end when a final count has no record. */
static void head_done(onescope_os_rec_scan *s) {
    onescope_os_rec_head *h = &s->h;
    h->records_at = s->pos;
    s->state = !s->partial && h->step_count == 0 ? S_END : S_LEN;
    s->want = 4;
    s->head_passed = true;
    if (s->partial || s->state == S_END) return;
    (void)steps_fit(s);
}

/* After row 0 (and its entity row): the keyframe head, when the file has keyframes. */
static void row0_done(onescope_os_rec_scan *s) {
    if (s->h.flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES) {
        s->h.keys_head_at = s->pos;
        s->state = S_KINT;
        s->want = 6;
        return;
    }
    head_done(s);
}

static void record_done(onescope_os_rec_scan *s) {
    s->records++;
    s->state = !s->partial && s->records == s->h.step_count ? S_END : S_LEN;
    s->want = 4;
}

/* A step's rows are read: its keyframe follows when its row is a multiple of K. */
static void rows_done(onescope_os_rec_scan *s) {
    if ((s->h.flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES) &&
        ((uint64_t)s->records + 1) % s->h.key_every == 0) {
        s->state = S_KHEAD;
        s->want = 8;
        return;
    }
    record_done(s);
}

/* The states whose bytes are counted past, never gathered. */
static bool is_blob(int state) {
    return state == S_SETUP || state == S_SNAP || state == S_INPUT || state == S_EBODY ||
           state == S_KSNAP || state == S_KBODY;
}

/* After a blob's length: past its bytes (none: straight on). */
static void blob_done(onescope_os_rec_scan *s);

/* An empty blob is passed at once, so an input may end right after its length. */
static void skip_then(onescope_os_rec_scan *s, scan_state blob, uint32_t size) {
    s->skip = size;
    s->state = (int)blob;
    s->want = 0;
    if (size == 0) blob_done(s);
}

/* A unit's failure: the error's offset moved from the unit's to the input's. */
static void unit_failed(onescope_os_rec_scan *s, onescope_code rc) {
    if (s->error.has_offset) s->error.offset += s->unit_at;
    s->rc = rc;
}

#define UNIT_TRY(expr)                                                                             \
    do {                                                                                           \
        onescope_code unit_rc_ = (expr);                                                           \
        if (unit_rc_ != ONESCOPE_OK) {                                                             \
            unit_failed(s, unit_rc_);                                                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Checks the gathered unit, then moves on to the next. */
static void unit_done(onescope_os_rec_scan *s) {
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, s->unit, s->have, s->name, &s->error);
    onescope_os_rec_head *h = &s->h;
    uint64_t left = s->total - (s->unit_at + s->have); /* what the input holds after the unit */
    char field[48], text[65];
    uint32_t n;
    uint64_t row;
    if (s->unknown && (s->state == S_SETUP_LEN || s->state == S_SNAP_LEN || s->state == S_LEN ||
                       s->state == S_KHEAD || s->state == S_KCOUNT || s->state == S_EHEAD)) {
        s->fit_state = s->state;
        memcpy(s->fit_unit, s->unit, s->have);
        s->fit_have = s->have;
        s->fit_at = s->unit_at;
        s->fit_rows_seen = s->rows_seen;
        s->fit_rows_count = s->rows_count;
        s->fit_rows_groups = s->rows_groups;
    }
    switch (s->state) {
        case S_FIXED:
            UNIT_TRY(read_fixed(&rd, s->partial, h));
            s->state = S_ID;
            s->want = 1;
            return;
        case S_ID:
            UNIT_TRY(onescope_os_read_module_text(&rd, "module id", true, h->module_id));
            s->state = S_VERSION;
            s->want = 1;
            return;
        case S_VERSION:
            UNIT_TRY(onescope_os_read_module_text(&rd, "module version", false, h->module_version));
            s->state = S_SETUP_LEN;
            s->want = 4;
            return;
        case S_SETUP_LEN:
            UNIT_TRY(read_length(&rd, "setup length", left, &h->setup_size));
            h->setup_at = s->pos;
            skip_then(s, S_SETUP, h->setup_size);
            return;
        case S_SNAP_LEN:
            UNIT_TRY(read_length(&rd, "snapshot length", left, &h->snapshot_size));
            h->snapshot_at = s->pos;
            skip_then(s, S_SNAP, h->snapshot_size);
            return;
        case S_ROW0:
            UNIT_TRY(onescope_os_read_u64(&rd, "hash row 0", &row));
            h->row0_at = s->unit_at;
            if (h->flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) {
                s->block_of_head = true;
                s->state = S_EHEAD;
                s->want = 10;
                return;
            }
            row0_done(s);
            return;
        case S_KINT:
            UNIT_TRY(read_key_interval(&rd, h));
            s->names_left = h->key_values;
            if (s->names_left == 0) {
                head_done(s);
                return;
            }
            s->state = S_KNAME;
            s->want = 1;
            return;
        case S_KNAME:
            snprintf(field, sizeof field, "keyframe value %" PRIu32 " name",
                     h->key_values - s->names_left);
            UNIT_TRY(onescope_os_read_module_text(&rd, field, false, text));
            if (--s->names_left == 0) {
                head_done(s);
                return;
            }
            s->want = 1;
            return;
        case S_KHEAD:
            s->key_at = s->unit_at;
            UNIT_TRY(read_key_head(&rd, s, left));
            skip_then(s, S_KSNAP, s->key_snap);
            return;
        case S_KCOUNT:
            UNIT_TRY(read_key_count(&rd, s, &n));
            if (n > left) { /* the length agrees with the count: a keyframe cut short */
                s->rc = key_cut(s);
                return;
            }
            skip_then(s, S_KBODY, n);
            return;
        case S_EHEAD:
            if (s->block_of_head) h->row0_block_at = s->unit_at;
            UNIT_TRY(read_entity_head(&rd, s, left, &n));
            skip_then(s, S_EBODY, n);
            return;
        case S_LEN:
            snprintf(field, sizeof field, "step %" PRIu32 " input length", s->records);
            UNIT_TRY(read_length(&rd, field, left, &n));
            skip_then(s, S_INPUT, n);
            return;
        default: /* S_ROW */
            snprintf(field, sizeof field, "hash row %" PRIu64, (uint64_t)s->records + 1);
            UNIT_TRY(onescope_os_read_u64(&rd, field, &row));
            if (h->flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) {
                s->block_of_head = false;
                s->state = S_EHEAD;
                s->want = 10;
                return;
            }
            rows_done(s);
    }
}

/* After the blob the state names: what comes next. */
static void blob_done(onescope_os_rec_scan *s) {
    bool rows = s->h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS;
    if (s->state == S_EBODY) { /* an entity row ends its step's rows, or row 0's */
        if (s->block_of_head)
            row0_done(s);
        else
            rows_done(s);
        return;
    }
    if (s->state == S_KSNAP) {
        s->state = S_KCOUNT;
        s->want = 4;
        return;
    }
    if (s->state == S_KBODY) {
        record_done(s);
        return;
    }
    if (s->state == S_SETUP && (s->h.flags & ONESCOPE_RECORDING_FLAG_START_SNAPSHOT)) {
        s->state = S_SNAP_LEN;
        s->want = 4;
    } else if (rows) { /* row 0 after the head, a step's row after its input */
        s->state = s->state == S_INPUT ? S_ROW : S_ROW0;
        s->want = 8;
    } else if (s->state == S_INPUT) {
        record_done(s);
    } else {
        head_done(s); /* without hash rows there are no keyframes */
    }
}

static onescope_code scan_bytes(onescope_os_rec_scan *s, const uint8_t *p, size_t n);

onescope_code onescope_os_rec_scan_feed(onescope_os_rec_scan *s, const void *data, size_t n) {
    if (!s->unknown) return scan_bytes(s, data, n);
    if (s->rc == ONESCOPE_E_TOO_LARGE) return s->rc;
    if (n > s->total - s->seen) {
        s->rc = onescope_os_stream_too_large((size_t)s->total, s->name, &s->error);
        return s->rc;
    }
    s->seen += n;
    if (s->rc == ONESCOPE_OK) scan_bytes(s, data, n);
    return ONESCOPE_OK; /* an error waits for the size: end decides */
}

static onescope_code scan_bytes(onescope_os_rec_scan *s, const uint8_t *p, size_t n) {
    while (s->rc == ONESCOPE_OK && n > 0) {
        if (s->state == S_END) {
            s->rc =
                onescope_os_fail(&s->error, ONESCOPE_E_TRAILING, s->name, s->pos, "end of input",
                                 "end of input", "%" PRIu64 " more bytes", s->total - s->pos);
            break;
        }
        if (is_blob(s->state)) {
            size_t k = s->skip < n ? (size_t)s->skip : n;
            s->skip -= k;
            s->pos += k;
            p += k;
            n -= k;
            if (s->skip == 0) blob_done(s);
            continue;
        }
        if (s->have == 0) {
            s->unit_at = s->pos;
            if (s->state == S_LEN) s->record_at = s->pos;
            if (s->partial && s->state == S_LEN && s->records == ONESCOPE_RECORDING_MAX_STEPS) {
                s->rc = onescope_os_fail(&s->error, ONESCOPE_E_RANGE, s->name, s->pos, "step count",
                                         "at most 16777216 steps", "more records");
                break;
            }
        }
        size_t k = s->want - s->have < n ? s->want - s->have : n;
        memcpy(s->unit + s->have, p, k);
        s->have += k;
        s->pos += k;
        p += k;
        n -= k;
        if (s->have < s->want) continue;
        if ((s->state == S_ID || s->state == S_VERSION || s->state == S_KNAME) && s->have == 1 &&
            s->unit[0] != 0 && s->unit[0] <= 64) {
            s->want = 1 + (size_t)s->unit[0]; /* the text's bytes follow its length */
            continue;
        }
        unit_done(s);
        s->have = 0;
    }
    return s->rc;
}

/* The end of an input of unknown size, now seen bytes long: the rules that need the size run
 * again, in the parser's order, and the first that fails replaces what the scan found. */
static void end_unknown(onescope_os_rec_scan *s, bool clean) {
    s->total = s->seen;
    if (s->head_passed && s->h.step_count > 0 && !steps_fit(s)) return;
    if (s->rc == ONESCOPE_E_TRAILING) { /* its count of bytes, now known */
        s->rc = onescope_os_fail(&s->error, ONESCOPE_E_TRAILING, s->name, s->pos, "end of input",
                                 "end of input", "%" PRIu64 " more bytes", s->total - s->pos);
        return;
    }
    /* The last length that had to fit in what was left, read again with what the input
     * really had: when it fails, the input was cut inside what it announced (or the scan
     * refused it against the limit), and the parser fails there, before anything after it.
     * The lengths before it were passed, so they fit. */
    if (s->fit_have == 0 || (s->rc == ONESCOPE_OK && clean)) return;
    onescope_os_rec_scan t = *s;
    t.state = s->fit_state;
    memcpy(t.unit, s->fit_unit, s->fit_have);
    t.have = s->fit_have;
    t.unit_at = s->fit_at;
    t.rows_seen = s->fit_rows_seen;
    t.rows_count = s->fit_rows_count;
    t.rows_groups = s->fit_rows_groups;
    t.unknown = false;
    unit_done(&t);
    if (t.rc != ONESCOPE_OK) {
        s->rc = t.rc;
        s->error = t.error;
    }
}

onescope_code onescope_os_rec_scan_end(onescope_os_rec_scan *s, onescope_error *error) {
    bool clean = s->state == S_END || (s->partial && s->state == S_LEN && s->have == 0);
    if (s->unknown && s->rc != ONESCOPE_E_TOO_LARGE) end_unknown(s, clean);
    if (s->rc == ONESCOPE_OK && !clean) {
        /* Cut by the end: the unit as far as it got fails its reader the way the whole input's
         * reader would have. */
        if (s->have == 0) {
            s->unit_at = s->pos;
            if (s->state == S_LEN) s->record_at = s->pos;
        }
        if (!is_blob(s->state)) unit_done(s);
        /* Blob lengths are checked against the size given up front, so only an input that
         * ended early (a file that shrank while it was read) stops inside a blob. */
        if (s->rc == ONESCOPE_OK)
            s->rc = onescope_os_fail(&s->error, ONESCOPE_E_TRUNCATED, s->name, s->pos, "input size",
                                     "the size given up front", "%" PRIu64 " bytes", s->pos);
    }
    if (s->rc != ONESCOPE_OK && error != NULL) *error = s->error;
    return s->rc;
}

/* The parse, keeping `owned` (the input's own bytes, from the options' allocator) as the
 * recording's copy when given, so a file read whole is not copied twice. */
static onescope_code parse(const void *data, size_t size, const char *name,
                           const onescope_parse_options *options, uint8_t *owned,
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
    onescope_os_rec_scan s;
    onescope_os_rec_scan_init(&s, size, false, name);
    (void)onescope_os_rec_scan_feed(&s, data, size);
    OS_TRY(onescope_os_rec_scan_end(&s, error));
    const onescope_os_rec_head h = s.h;
    bool erows = h.flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS;
    size_t nrows = erows ? (size_t)h.step_count + 1 : 0;
    bool keyed = h.flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES;
    uint32_t nkeys = keyed ? h.step_count / h.key_every : 0;
    onescope_recording *r = onescope_os_calloc(a, 1, sizeof *r);
    uint64_t *records = onescope_os_calloc(a, h.step_count ? h.step_count : 1, sizeof *records);
    uint64_t *blocks = erows ? onescope_os_calloc(a, 2 * nrows, sizeof *blocks) : NULL;
    uint64_t *keys = keyed ? onescope_os_calloc(a, (size_t)nkeys + h.key_values + 1, 8) : NULL;
    uint8_t *bytes = owned != NULL ? owned : onescope_os_alloc(a, size ? size : 1);
    if (r == NULL || records == NULL || bytes == NULL || (erows && blocks == NULL) ||
        (keyed && keys == NULL)) {
        onescope_os_free(a, r);
        onescope_os_free(a, records);
        onescope_os_free(a, blocks);
        onescope_os_free(a, keys);
        if (owned == NULL) onescope_os_free(a, bytes);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "recording", NULL,
                                "could not allocate memory");
    }
    /* The scan checked every length: the records are walked, not checked again. */
    const uint8_t *p = data;
    uint64_t at = h.records_at, row = (h.flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) ? 8 : 0;
    uint64_t ids = 0;
    for (uint32_t i = 0, j = 0; i < h.step_count; i++) {
        records[i] = at;
        at += 4 + (uint64_t)onescope_os_get_u32(p + at) + row;
        if (erows) at += 4 + (uint64_t)onescope_os_get_u32(p + at);
        if (keyed && (i + 1) % h.key_every == 0) {
            keys[j++] = at;
            at += 4 + (uint64_t)onescope_os_get_u32(p + at);
        }
    }
    if (keyed) { /* the value names, after the interval and the count */
        uint64_t n = h.keys_head_at + 6;
        for (uint32_t v = 0; v < h.key_values; v++) {
            keys[nkeys + v] = n;
            n += 1 + (uint64_t)p[n];
        }
    }
    if (erows) { /* each row's entity row, and the last row at or before it that wrote ids */
        for (uint32_t i = 0; i <= h.step_count; i++) {
            uint64_t b = i == 0 ? h.row0_block_at
                                : records[i - 1] + 4 + onescope_os_get_u32(p + records[i - 1]) + 8;
            blocks[i] = b;
            if (p[b + 8] == 1) ids = b + 10;
            blocks[nrows + i] = ids;
        }
    }
    if (size && owned == NULL) memcpy(bytes, data, size);
    r->allocator = a;
    r->bytes = bytes;
    r->size = size;
    r->h = h;
    r->records = records;
    r->blocks = blocks;
    r->ids_at = blocks != NULL ? blocks + nrows : NULL;
    r->keys = keys;
    r->key_count = nkeys;
    r->names = keys != NULL ? keys + nkeys : NULL;
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_recording_parse(const void *data, size_t size, const char *name,
                                       const onescope_parse_options *options,
                                       onescope_recording **out, onescope_error *error) {
    return parse(data, size, name, options, NULL, out, error);
}

onescope_code onescope_os_recording_parse_owned(onescope_buffer *in, const char *name,
                                                const onescope_parse_options *options,
                                                onescope_recording **out, onescope_error *error) {
    onescope_code rc =
        parse(in->data, in->size, name, options, in->size ? in->data : NULL, out, error);
    if (rc == ONESCOPE_OK && in->size) { /* the recording holds the bytes now */
        in->data = NULL;
        in->size = 0;
    }
    return rc;
}

onescope_code onescope_recording_peek_module(const void *data, size_t size, const char *name,
                                             char id[65], char version[65], onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (id == NULL || version == NULL || (data == NULL && size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "data, id and version must be given");
    id[0] = version[0] = '\0';
    onescope_os_rec_scan s; /* the input's size is not known: no length is checked yet */
    onescope_os_rec_scan_init(&s, UINT64_MAX, true, name);
    if (size > ONESCOPE_RECORDING_PEEK_BYTES) size = ONESCOPE_RECORDING_PEEK_BYTES;
    const uint8_t *p = data;
    for (size_t i = 0; i < size && s.rc == ONESCOPE_OK && s.state < S_SETUP_LEN; i++)
        (void)onescope_os_rec_scan_feed(&s, p + i, 1);
    if (s.rc == ONESCOPE_OK && s.state < S_SETUP_LEN) {
        s.total = s.pos; /* the bytes ended inside the id or the version */
        (void)onescope_os_rec_scan_end(&s, NULL);
    }
    if (s.rc != ONESCOPE_OK) {
        if (error != NULL) *error = s.error;
        return s.rc;
    }
    memcpy(id, s.h.module_id, sizeof s.h.module_id);
    memcpy(version, s.h.module_version, sizeof s.h.module_version);
    return ONESCOPE_OK;
}

void onescope_recording_free(onescope_recording *r) {
    if (r == NULL) return;
    onescope_os_free(r->allocator, r->bytes);
    onescope_os_free(r->allocator, r->records);
    onescope_os_free(r->allocator, r->blocks);
    onescope_os_free(r->allocator, r->keys);
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

onescope_code onescope_recording_entity_row(const onescope_recording *r, uint32_t index,
                                            onescope_entity_row *out) {
    if (out != NULL) memset(out, 0, sizeof *out);
    if (r == NULL || out == NULL || r->blocks == NULL || index > r->h.step_count)
        return ONESCOPE_E_ARGUMENT;
    const uint8_t *b = r->bytes + r->blocks[index];
    out->count = onescope_os_get_u32(b + 4);
    out->group_count = b[9];
    out->ids = r->bytes + r->ids_at[index];
    out->hashes = b + 10 + (b[8] == 1 ? 8 * (size_t)out->count : 0);
    out->groups = out->hashes + 4 * (size_t)out->count;
    return ONESCOPE_OK;
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

uint32_t onescope_recording_keyframe_every(const onescope_recording *r) {
    return r != NULL && r->keys != NULL ? r->h.key_every : 0;
}

uint32_t onescope_recording_keyframe_count(const onescope_recording *r) {
    return r != NULL ? r->key_count : 0;
}

onescope_code onescope_recording_keyframe(const onescope_recording *r, uint32_t index,
                                          onescope_keyframe *out) {
    if (out != NULL) memset(out, 0, sizeof *out);
    if (r == NULL || out == NULL || index >= r->key_count) return ONESCOPE_E_ARGUMENT;
    onescope_os_keyframe_at(r->bytes + r->keys[index], (index + 1) * r->h.key_every,
                            r->h.key_values, out);
    return ONESCOPE_OK;
}

void onescope_os_keyframe_at(const uint8_t *k, uint32_t row, uint32_t value_count,
                             onescope_keyframe *out) {
    out->row = row;
    out->snapshot_size = onescope_os_get_u32(k + 4);
    out->snapshot = out->snapshot_size ? k + 8 : NULL;
    out->entity_count = onescope_os_get_u32(k + 8 + out->snapshot_size);
    out->value_count = value_count;
    out->ids = k + 12 + out->snapshot_size;
    out->values = out->ids + 8 * (size_t)out->entity_count;
}

double onescope_recording_keyframe_value(const onescope_keyframe *k, uint32_t entity,
                                         uint32_t value) {
    if (k == NULL || entity >= k->entity_count || value >= k->value_count) return 0;
    uint64_t bits = onescope_os_get_u64(k->values + 8 * ((size_t)entity * k->value_count + value));
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

onescope_code onescope_recording_value_name(const onescope_recording *r, uint32_t value,
                                            char out[65]) {
    if (out != NULL) out[0] = '\0';
    if (r == NULL || out == NULL || r->names == NULL || value >= r->h.key_values)
        return ONESCOPE_E_ARGUMENT;
    const uint8_t *p = r->bytes + r->names[value];
    memcpy(out, p + 1, p[0]);
    out[p[0]] = '\0';
    return ONESCOPE_OK;
}

uint64_t onescope_os_rec_input_at(const onescope_recording *r, uint32_t index) {
    return r->records[index] + 4;
}

const uint8_t *onescope_os_rec_bytes(const onescope_recording *r) {
    return r->bytes;
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

/* An entity row as the file holds it (its length field and the bytes it counts). */
static void write_entity_row(onescope_os_writer *w, const onescope_recording *r, uint32_t row) {
    const uint8_t *b = r->bytes + r->blocks[row];
    onescope_os_write_bytes(w, b, 4 + (size_t)onescope_os_get_u32(b));
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
    if (r->blocks != NULL) write_entity_row(&w, r, 0);
    if (r->keys != NULL) /* the interval and the names, as they are */
        onescope_os_write_bytes(&w, r->bytes + h->keys_head_at, h->records_at - h->keys_head_at);
    for (uint32_t i = 0; i < h->step_count; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        onescope_os_write_u32(&w, (uint32_t)n);
        onescope_os_write_bytes(&w, p, n);
        if (rows) onescope_os_write_u64(&w, onescope_recording_hash_row(r, i + 1));
        if (r->blocks != NULL) write_entity_row(&w, r, i + 1);
        if (r->keys != NULL && (i + 1) % h->key_every == 0) {
            const uint8_t *k = r->bytes + r->keys[(i + 1) / h->key_every - 1];
            onescope_os_write_bytes(&w, k, 4 + (size_t)onescope_os_get_u32(k));
        }
    }
    return onescope_os_writer_finish(&w, out, error, name);
}

/* ---- a partial, for recovery ---- */

void onescope_os_rec_partial_begin(onescope_os_rec_partial_scanner *p, uint64_t size,
                                   const char *name) {
    onescope_os_rec_scan_init(&p->s, size, true, name);
    p->size = size;
}

onescope_code onescope_os_rec_partial_feed(void *scanner, const void *data, size_t n) {
    return onescope_os_rec_scan_feed(&((onescope_os_rec_partial_scanner *)scanner)->s, data, n);
}

onescope_code onescope_os_rec_partial_end(onescope_os_rec_partial_scanner *p,
                                          onescope_os_rec_partial *info, onescope_error *error) {
    memset(info, 0, sizeof *info);
    onescope_os_rec_scan *s = &p->s;
    onescope_error inner;
    onescope_code rc = onescope_os_rec_scan_end(s, &inner);
    bool in_records = s->state == S_LEN || s->state == S_INPUT || s->state == S_ROW ||
                      (s->state >= S_KHEAD && s->state <= S_KBODY) ||
                      ((s->state == S_EHEAD || s->state == S_EBODY) && !s->block_of_head);
    if (rc != ONESCOPE_OK && !(in_records && inner.code == ONESCOPE_E_TRUNCATED)) {
        if (error != NULL) *error = inner; /* the head's error, or damage inside the records */
        return rc;
    }
    if (rc != ONESCOPE_OK) { /* cut by the end of the file: the record a kill tore, dropped */
        info->dropped_at = s->record_at;
        info->dropped_bytes = p->size - s->record_at;
    }
    const onescope_os_rec_head *h = &s->h;
    if (!h->open && (s->records != h->step_count || info->dropped_bytes != 0))
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, s->name, 8, "step count",
                                "the records the file holds (a final count is kept only when it "
                                "matches them)",
                                "%" PRIu32 " for %" PRIu32 " whole records%s", h->step_count,
                                s->records, info->dropped_bytes ? " and a torn one" : "");
    info->head = *h;
    info->steps = s->records;
    info->kept_bytes = p->size - info->dropped_bytes;
    return ONESCOPE_OK;
}

/* ---- the module recording codec (check_internal.h): the container only, as the parser
 * checks it; the blobs are the module's ---- */

typedef struct rec_check {
    onescope_os_rec_scan scan;
    const onescope_allocator *allocator;
} rec_check;

static onescope_code rec_begin(size_t total, const char *name,
                               const onescope_parse_options *options, void **state,
                               onescope_error *error) {
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    rec_check *c = onescope_os_calloc(a, 1, sizeof *c);
    *state = c;
    if (c == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "cannot allocate the validator");
    c->allocator = a;
    if (total == ONESCOPE_OS_SIZE_UNKNOWN)
        onescope_os_rec_scan_init_unknown(&c->scan, onescope_os_input_limit(options), name);
    else
        onescope_os_rec_scan_init(&c->scan, total, false, name);
    return ONESCOPE_OK;
}

static onescope_code rec_feed(void *state, const void *data, size_t n) {
    return onescope_os_rec_scan_feed(&((rec_check *)state)->scan, data, n);
}

static onescope_code rec_end(void *state, onescope_error *error) {
    return onescope_os_rec_scan_end(&((rec_check *)state)->scan, error);
}

static void rec_free(void *state) {
    if (state != NULL) onescope_os_free(((rec_check *)state)->allocator, state);
}

const onescope_os_rec_head *onescope_os_rec_check_head(const void *state) {
    return &((const rec_check *)state)->scan.h;
}

static onescope_code rec_parse_only(const void *data, size_t size, const char *name,
                                    const onescope_parse_options *options, onescope_error *error) {
    onescope_recording *r;
    onescope_code rc = onescope_recording_parse(data, size, name, options, &r, error);
    onescope_recording_free(rc == ONESCOPE_OK ? r : NULL);
    return rc;
}

const onescope_os_push_ops onescope_os_recording_push = {rec_begin, rec_feed, rec_end, rec_free};
const onescope_os_codec onescope_os_recording_codec = {&onescope_os_recording_push, NULL,
                                                       rec_parse_only};
