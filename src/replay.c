/* OSTM v1: parser, builder, validator and writer (bytes <-> the replay struct). Running a
 * replay through the simulation is src/replay_run.c. Layout and rules: docs/test-module.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/file.h"
#include "check_internal.h"
#include "onescope/replay.h"
#include "replay_internal.h"

#define FIXED_HEADER 12u /* magic, version, flags, setup length */
#define INITIAL_STEPS 16u

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                            "could not allocate memory");
}

static int has_link(const onescope_replay *r) {
    return r->link.role != ONESCOPE_LINK_ROLE_NONE;
}

uint16_t onescope_replay_flags(const onescope_replay *r) {
    if (r == NULL) return 0;
    return (uint16_t)((r->has_hash_rows ? ONESCOPE_OSTM_FLAG_HASH_ROWS : 0u) |
                      (r->has_start_snapshot ? ONESCOPE_OSTM_FLAG_START_SNAPSHOT : 0u) |
                      (has_link(r) ? ONESCOPE_OSTM_FLAG_LINK : 0u));
}

/* ---- reading ---- */

onescope_sim_setup onescope_replay_setup(const onescope_replay *r) {
    onescope_sim_setup none = {0, 0, 0};
    return r ? r->setup : none;
}

onescope_link_block onescope_replay_link(const onescope_replay *r) {
    onescope_link_block none = {0, 0, 0};
    return r ? r->link : none;
}

uint32_t onescope_replay_step_count(const onescope_replay *r) {
    return r ? r->step_count : 0;
}

bool onescope_replay_has_start_snapshot(const onescope_replay *r) {
    return r != NULL && r->has_start_snapshot;
}

const uint8_t *onescope_replay_start_snapshot(const onescope_replay *r, size_t *size) {
    bool have = r != NULL && r->has_start_snapshot;
    if (size != NULL) *size = have ? r->start_snapshot_size : 0;
    return have ? r->start_snapshot : NULL;
}

uint64_t onescope_replay_start_step(const onescope_replay *r) {
    return r ? r->start_step : 0;
}

bool onescope_replay_has_hash_rows(const onescope_replay *r) {
    return r != NULL && r->has_hash_rows;
}

const uint64_t *onescope_replay_hash_rows(const onescope_replay *r) {
    return r != NULL && r->has_hash_rows ? r->hash_rows : NULL;
}

uint64_t onescope_replay_input_bytes(const onescope_replay *r) {
    return r != NULL && r->input_offsets != NULL ? r->input_offsets[r->step_count] : 0;
}

/* ---- freeing and building ---- */

void onescope_replay_free(onescope_replay *r) {
    if (r == NULL) return;
    const onescope_allocator *a = r->allocator;
    onescope_os_free(a, r->start_snapshot);
    onescope_os_free(a, r->hash_rows);
    onescope_os_free(a, r->inputs);
    onescope_os_free(a, r->input_offsets);
    onescope_os_free(a, r);
}

static onescope_code new_replay(const onescope_sim_setup *setup, const onescope_link_block *link,
                                const onescope_allocator *a, uint32_t steps_capacity,
                                onescope_replay **out, onescope_error *error, const char *name) {
    onescope_replay *r = onescope_os_calloc(a, 1, sizeof *r);
    if (r == NULL) return nomem(error, name, "replay");
    r->allocator = a;
    r->setup = *setup;
    if (link != NULL) r->link = *link;
    r->input_offsets = onescope_os_calloc(a, (size_t)steps_capacity + 1, sizeof *r->input_offsets);
    if (r->input_offsets == NULL) {
        onescope_replay_free(r);
        return nomem(error, name, "step offsets");
    }
    r->steps_capacity = steps_capacity;
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_replay_create(const onescope_sim_setup *setup,
                                     const onescope_link_block *link, const onescope_allocator *a,
                                     onescope_replay **out, onescope_error *error) {
    const char *name = "onescope_replay_create";
    if (out == NULL || setup == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "setup and out must not be NULL");
    *out = NULL;
    OS_TRY(onescope_sim_setup_check(setup, link, name, error));
    return new_replay(setup, link, a, INITIAL_STEPS, out, error, name);
}

static void drop_hash_rows(onescope_replay *r) {
    onescope_os_free(r->allocator, r->hash_rows);
    r->hash_rows = NULL;
    r->has_hash_rows = false;
}

onescope_code onescope_replay_set_start_snapshot(onescope_replay *r, const void *snapshot,
                                                 size_t size, onescope_error *error) {
    const char *name = "onescope_replay_set_start_snapshot";
    if (r == NULL || (snapshot == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and snapshot must not be NULL");
    uint8_t *copy = NULL;
    if (snapshot != NULL) {
        OS_TRY(onescope_sim_snapshot_check(&r->setup, snapshot, size, name, 0, error));
        copy = onescope_os_alloc(r->allocator, size);
        if (copy == NULL) return nomem(error, name, "start snapshot");
        memcpy(copy, snapshot, size);
    }
    onescope_os_free(r->allocator, r->start_snapshot);
    r->start_snapshot = copy;
    r->start_snapshot_size = (uint32_t)size;
    r->has_start_snapshot = copy != NULL;
    r->start_step = copy != NULL ? onescope_os_get_u64(copy) : 0;
    drop_hash_rows(r);
    return ONESCOPE_OK;
}

onescope_code onescope_replay_append_step(onescope_replay *r, const void *input, size_t size,
                                          onescope_error *error) {
    const char *name = "onescope_replay_append_step";
    if (r == NULL || (input == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and input must not be NULL");
    if (r->step_count >= ONESCOPE_OSTM_MAX_STEPS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "step count",
                                "at most 16777216", "one more than %" PRIu32, r->step_count);
    OS_TRY(onescope_op_check_input(r->setup.dimensions, input, size, name, 0, error));
    size_t used = r->input_offsets[r->step_count];
    if (size > UINT32_MAX - used)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "input bytes",
                                "under 4 GiB in all", "%zu more", size);
    if (r->step_count == r->steps_capacity) {
        uint32_t cap = r->steps_capacity < INITIAL_STEPS ? INITIAL_STEPS : r->steps_capacity * 2;
        if (cap > ONESCOPE_OSTM_MAX_STEPS) cap = ONESCOPE_OSTM_MAX_STEPS;
        uint32_t *o = onescope_os_calloc(r->allocator, (size_t)cap + 1, sizeof *o);
        if (o == NULL) return nomem(error, name, "step offsets");
        memcpy(o, r->input_offsets, ((size_t)r->step_count + 1) * sizeof *o);
        onescope_os_free(r->allocator, r->input_offsets);
        r->input_offsets = o;
        r->steps_capacity = cap;
    }
    if (used + size > r->inputs_capacity) {
        size_t cap = r->inputs_capacity < 256 ? 256 : r->inputs_capacity;
        while (cap < used + size) cap = cap > SIZE_MAX / 2 ? used + size : cap * 2;
        uint8_t *p = onescope_os_alloc(r->allocator, cap);
        if (p == NULL) return nomem(error, name, "step inputs");
        if (used) memcpy(p, r->inputs, used);
        onescope_os_free(r->allocator, r->inputs);
        r->inputs = p;
        r->inputs_capacity = cap;
    }
    if (size) memcpy(r->inputs + used, input, size);
    r->step_count++;
    r->input_offsets[r->step_count] = (uint32_t)(used + size);
    drop_hash_rows(r);
    return ONESCOPE_OK;
}

onescope_code onescope_replay_append_ops(onescope_replay *r, const onescope_op *ops, size_t count,
                                         onescope_error *error) {
    const char *name = "onescope_replay_append_ops";
    if (r == NULL || (ops == NULL && count > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and ops must not be NULL");
    uint8_t buf[ONESCOPE_SIM_MAX_INPUT];
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        size_t k = onescope_op_encode(r->setup.dimensions, &ops[i], buf + n, sizeof buf - n, error);
        if (k == 0) {
            if (error != NULL && error->code == ONESCOPE_E_ARGUMENT)
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "input length",
                                        "at most 65535 bytes", "more at operation %zu", i);
            return error != NULL ? error->code : ONESCOPE_E_RANGE;
        }
        n += k;
    }
    return onescope_replay_append_step(r, buf, n, error);
}

onescope_code onescope_replay_set_hash_rows(onescope_replay *r, const uint64_t *rows, size_t count,
                                            onescope_error *error) {
    const char *name = "onescope_replay_set_hash_rows";
    if (r == NULL || (rows == NULL && count > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and rows must not be NULL");
    if (rows == NULL) {
        drop_hash_rows(r);
        return ONESCOPE_OK;
    }
    if (count != (size_t)r->step_count + 1)
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, OS_NO_OFFSET, "hash rows",
                                "step count + 1 rows", "%zu (step count %" PRIu32 ")", count,
                                r->step_count);
    uint64_t *copy = onescope_os_calloc(r->allocator, count, sizeof *copy);
    if (copy == NULL) return nomem(error, name, "hash rows");
    memcpy(copy, rows, count * sizeof *copy);
    drop_hash_rows(r);
    r->hash_rows = copy;
    r->has_hash_rows = true;
    return ONESCOPE_OK;
}

/* The runner (replay_run.c) hands over freshly computed rows; the replay owns them from now. */
void onescope_os_replay_adopt_hash_rows(onescope_replay *r, uint64_t *rows) {
    drop_hash_rows(r);
    r->hash_rows = rows;
    r->has_hash_rows = true;
}

onescope_code onescope_replay_step_input(const onescope_replay *r, uint32_t index,
                                         const uint8_t **data, size_t *size) {
    if (r == NULL || data == NULL || size == NULL || index >= r->step_count)
        return ONESCOPE_E_ARGUMENT;
    uint32_t from = r->input_offsets[index], to = r->input_offsets[index + 1];
    *data = r->inputs == NULL ? (const uint8_t *)"" : r->inputs + from;
    *size = to - from;
    return ONESCOPE_OK;
}

void onescope_replay_count_ops(const onescope_replay *r, uint64_t counts[6]) {
    memset(counts, 0, 6 * sizeof counts[0]);
    if (r == NULL) return;
    for (uint32_t i = 0; i < r->step_count; i++) {
        const uint8_t *p;
        size_t n;
        onescope_replay_step_input(r, i, &p, &n);
        onescope_op_reader rd;
        onescope_op op;
        onescope_op_reader_init(&rd, r->setup.dimensions, p, n, NULL, 0);
        while (onescope_op_reader_next(&rd, &op, NULL) == 1) counts[op.code]++;
    }
}

/* ---- parser ---- */

static onescope_code read_header(onescope_os_reader *rd, onescope_sim_setup *setup,
                                 onescope_link_block *link, uint16_t *flags) {
    const uint8_t *magic;
    uint16_t version;
    uint32_t setup_length;
    OS_TRY(onescope_os_read_bytes(rd, "magic", 4, &magic));
    if (memcmp(magic, "OSTM", 4) != 0)
        return onescope_os_reader_fail_at(rd, 0, ONESCOPE_E_MAGIC, "magic", "\"OSTM\"",
                                          "%02x %02x %02x %02x", magic[0], magic[1], magic[2],
                                          magic[3]);
    OS_TRY(onescope_os_read_u16(rd, "version", &version));
    if (version != ONESCOPE_OSTM_VERSION)
        return onescope_os_reader_fail_at(rd, 4, ONESCOPE_E_VERSION, "version", "1", "%u",
                                          (unsigned)version);
    OS_TRY(onescope_os_read_u16(rd, "flags", flags));
    if (*flags & ~0x7u)
        return onescope_os_reader_fail_at(rd, 6, ONESCOPE_E_FLAGS, "flags", "only bits 0-2 set",
                                          "0x%04x", (unsigned)*flags);
    OS_TRY(onescope_os_read_u32(rd, "setup length", &setup_length));
    uint32_t want = (*flags & ONESCOPE_OSTM_FLAG_LINK) ? 10u : 6u;
    if (setup_length != want)
        return onescope_os_reader_fail_at(
            rd, 8, ONESCOPE_E_LENGTH, "setup length",
            want == 10 ? "10 (flag bit 2 set)" : "6 (flag bit 2 clear)", "%" PRIu32, setup_length);
    OS_TRY(onescope_os_read_u8(rd, "dimensions", &setup->dimensions));
    OS_TRY(onescope_os_read_u8(rd, "body count", &setup->body_count));
    OS_TRY(onescope_os_read_u32(rd, "seed", &setup->seed));
    memset(link, 0, sizeof *link);
    if (want == 10) {
        OS_TRY(onescope_os_read_u8(rd, "link role", &link->role));
        OS_TRY(onescope_os_read_u8(rd, "link body", &link->body));
        OS_TRY(onescope_os_read_u16(rd, "link transfer step", &link->transfer_step));
        if (link->role == ONESCOPE_LINK_ROLE_NONE)
            return onescope_os_reader_fail_at(rd, 18, ONESCOPE_E_RANGE, "link role", "1, 2 or 3",
                                              "0");
    }
    return onescope_sim_setup_check(setup, link, rd->name, rd->error);
}

/* reserve against the whole input (total), at file offset at: the streamed validator holds
 * only a piece of the file but must refuse a count exactly as the parser does. */
static onescope_code reserve_total(const onescope_os_reader *rd, size_t total, size_t at,
                                   const char *field, uint64_t count, size_t min_elem_size) {
    onescope_os_reader t = *rd;
    t.size = total;
    t.pos = at;
    return onescope_os_reader_reserve(&t, field, count, min_elem_size);
}

/* The header, the step count and the snapshot length, from offset 0 of rd; counts are
 * checked against total. Fills the offsets of the parts that follow. */
static onescope_code scan_head(onescope_os_reader *rd, size_t total, onescope_os_ostm_head *h) {
    OS_TRY(read_header(rd, &h->setup, &h->link, &h->flags));
    size_t steps_at = rd->pos;
    OS_TRY(onescope_os_read_u32(rd, "step count", &h->step_count));
    if (h->step_count == ONESCOPE_OS_OSTM_PARTIAL_MARK) /* what a recording leaves until close */
        return onescope_os_reader_fail_at(rd, steps_at, ONESCOPE_E_RANGE, "step count",
                                          "at most 16777216", "%s", ONESCOPE_OS_PARTIAL_FOUND);
    if (h->step_count > ONESCOPE_OSTM_MAX_STEPS)
        return onescope_os_reader_fail_at(rd, steps_at, ONESCOPE_E_RANGE, "step count",
                                          "at most 16777216", "%" PRIu32, h->step_count);
    h->snapshot_size = 0;
    if (h->flags & ONESCOPE_OSTM_FLAG_START_SNAPSHOT) {
        OS_TRY(onescope_os_read_u32(rd, "start snapshot length", &h->snapshot_size));
        OS_TRY(reserve_total(rd, total, rd->pos, "start snapshot length", h->snapshot_size, 1));
    }
    h->snapshot_at = rd->pos;
    h->rows_at = h->snapshot_at + h->snapshot_size;
    h->inputs_at = h->rows_at;
    if (h->flags & ONESCOPE_OSTM_FLAG_HASH_ROWS) h->inputs_at += 8 * ((uint64_t)h->step_count + 1);
    return ONESCOPE_OK;
}

/* After the snapshot: the rows fit, then every step's 2-byte length fits. */
static onescope_code scan_rows(const onescope_os_reader *rd, size_t total,
                               const onescope_os_ostm_head *h) {
    if (h->flags & ONESCOPE_OSTM_FLAG_HASH_ROWS)
        OS_TRY(reserve_total(rd, total, (size_t)h->rows_at, "hash rows",
                             (uint64_t)h->step_count + 1, 8));
    return reserve_total(rd, total, (size_t)h->inputs_at, "step count", h->step_count, 2);
}

/* One step at rd's position: its length, its bytes, its operations. */
static onescope_code scan_step(onescope_os_reader *rd, uint8_t dimensions, uint16_t *len) {
    const uint8_t *p;
    OS_TRY(onescope_os_read_u16(rd, "step input length", len));
    size_t at = rd->pos;
    OS_TRY(onescope_os_read_bytes(rd, "step input", *len, &p));
    return onescope_op_check_input(dimensions, p, *len, rd->name, at, rd->error);
}

/* Step offsets are 32-bit: only reachable with max_input_bytes raised past 4 GiB. */
static onescope_code inputs_too_large(const char *name, uint64_t at, onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, at, "step input",
                            "at most 4 GiB of step inputs in all", "more");
}

onescope_code onescope_replay_parse(const void *data, size_t size, const char *name,
                                    const onescope_parse_options *options, onescope_replay **out,
                                    onescope_error *error) {
    onescope_parse_options defaults = onescope_parse_options_default();
    if (options == NULL) options = &defaults;
    if (name == NULL) name = "<ostm>";
    if (out != NULL) *out = NULL;
    if (out == NULL || (data == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "data and out must not be NULL");
    *out = NULL;
    OS_TRY(onescope_os_check_input_size(size, options, name, error));
    const onescope_allocator *a = options->allocator;
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, data, size, name, error);

    onescope_os_ostm_head h;
    const uint8_t *snapshot = NULL, *rows = NULL;
    OS_TRY(scan_head(&rd, size, &h));
    onescope_sim_setup setup = h.setup;
    onescope_link_block link = h.link;
    uint32_t steps = h.step_count, snapshot_size = h.snapshot_size;
    if (h.flags & ONESCOPE_OSTM_FLAG_START_SNAPSHOT) {
        OS_TRY(onescope_os_read_bytes(&rd, "start snapshot", snapshot_size, &snapshot));
        OS_TRY(onescope_sim_snapshot_check(&setup, snapshot, snapshot_size, name, h.snapshot_at,
                                           error));
    }
    OS_TRY(scan_rows(&rd, size, &h));
    if (h.flags & ONESCOPE_OSTM_FLAG_HASH_ROWS) rows = rd.data + h.rows_at;
    rd.pos = (size_t)h.inputs_at;
    /* First pass: check every step without allocating, and total the input bytes. */
    size_t inputs_at = rd.pos, total = 0;
    for (uint32_t i = 0; i < steps; i++) {
        uint16_t len;
        OS_TRY(scan_step(&rd, setup.dimensions, &len));
        total += len; /* <= size */
        if (total > UINT32_MAX) return inputs_too_large(name, rd.pos - len, error);
    }
    OS_TRY(onescope_os_reader_end(&rd));

    onescope_replay *r = NULL;
    OS_TRY(new_replay(&setup, &link, a, steps, &r, error, name));
    r->step_count = steps;
    if (snapshot != NULL) {
        r->start_snapshot = onescope_os_alloc(a, snapshot_size ? snapshot_size : 1);
        if (r->start_snapshot == NULL) goto fail;
        memcpy(r->start_snapshot, snapshot, snapshot_size);
        r->start_snapshot_size = snapshot_size;
        r->has_start_snapshot = true;
        r->start_step = onescope_os_get_u64(snapshot);
    }
    if (rows != NULL) {
        r->hash_rows = onescope_os_calloc(a, (size_t)steps + 1, sizeof *r->hash_rows);
        if (r->hash_rows == NULL) goto fail;
        for (size_t i = 0; i <= steps; i++) r->hash_rows[i] = onescope_os_get_u64(rows + 8 * i);
        r->has_hash_rows = true;
    }
    if (total > 0) {
        r->inputs = onescope_os_alloc(a, total);
        if (r->inputs == NULL) goto fail;
        r->inputs_capacity = total;
    }
    {
        const uint8_t *p = (const uint8_t *)data + inputs_at;
        uint32_t used = 0;
        for (uint32_t i = 0; i < steps; i++) {
            uint16_t len = onescope_os_get_u16(p);
            if (len) memcpy(r->inputs + used, p + 2, len);
            p += 2 + (size_t)len;
            used += len;
            r->input_offsets[i + 1] = used;
        }
    }
    *out = r;
    return ONESCOPE_OK;
fail:
    onescope_replay_free(r);
    return nomem(error, name, "replay");
}

/* ---- validator and writer ---- */

static size_t header_size(const onescope_replay *r) {
    return FIXED_HEADER + (has_link(r) ? 10u : 6u);
}

onescope_code onescope_replay_validate(const onescope_replay *r, const char *name,
                                       onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (r == NULL || r->input_offsets == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "replay and its step offsets must not be NULL");
    /* Offsets in messages are where the value would be written. */
    OS_TRY(onescope_sim_setup_check(&r->setup, &r->link, name, error));
    uint64_t at = header_size(r);
    if (r->step_count > ONESCOPE_OSTM_MAX_STEPS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, "step count", "at most 16777216",
                                "%" PRIu32, r->step_count);
    at += 4;
    if (r->has_start_snapshot) {
        if (r->start_snapshot == NULL)
            return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, at, "start snapshot", "bytes",
                                    "NULL");
        OS_TRY(onescope_sim_snapshot_check(&r->setup, r->start_snapshot, r->start_snapshot_size,
                                           name, at + 4, error));
        if (r->start_step != onescope_os_get_u64(r->start_snapshot))
            return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, at + 4, "start step",
                                    "the snapshot's host step", "%" PRIu64, r->start_step);
        at += 4 + (uint64_t)r->start_snapshot_size;
    } else if (r->start_step != 0) {
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "start step",
                                "0 without a start snapshot", "%" PRIu64, r->start_step);
    }
    if (r->has_hash_rows) {
        if (r->hash_rows == NULL)
            return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, at, "hash rows", "rows",
                                    "NULL");
        at += 8 * ((uint64_t)r->step_count + 1);
    }
    if (r->input_offsets[0] != 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, at, "step offsets", "0 first",
                                "%" PRIu32, r->input_offsets[0]);
    for (uint32_t i = 0; i < r->step_count; i++) {
        uint32_t from = r->input_offsets[i], to = r->input_offsets[i + 1];
        if (to < from || to - from > ONESCOPE_SIM_MAX_INPUT)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, "step input length",
                                    "0 to 65535", "offsets %" PRIu32 " to %" PRIu32, from, to);
        if (to > from && r->inputs == NULL)
            return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, at, "step input", "bytes",
                                    "NULL");
        OS_TRY(onescope_op_check_input(r->setup.dimensions, to > from ? r->inputs + from : NULL,
                                       to - from, name, at + 2, error));
        at += 2 + (uint64_t)(to - from);
    }
    return ONESCOPE_OK;
}

onescope_code onescope_replay_write(const onescope_replay *r, const onescope_allocator *allocator,
                                    onescope_buffer *out, onescope_error *error) {
    const char *name = "<ostm output>";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    memset(out, 0, sizeof *out);
    OS_TRY(onescope_replay_validate(r, name, error));
    /* Every part is bounded (16M steps, 4 GiB of input): the total fits in 64 bits. */
    uint64_t total64 = header_size(r) + 4 + (uint64_t)r->input_offsets[r->step_count] +
                       2 * (uint64_t)r->step_count;
    if (r->has_start_snapshot) total64 += 4 + (uint64_t)r->start_snapshot_size;
    if (r->has_hash_rows) total64 += 8 * ((uint64_t)r->step_count + 1);
    OS_TRY(onescope_os_check_output_size(total64, name, error));
    onescope_os_writer w;
    onescope_os_writer_init(&w, allocator);
    onescope_os_writer_reserve_total(&w, (size_t)total64);
    onescope_os_write_bytes(&w, "OSTM", 4);
    onescope_os_write_u16(&w, ONESCOPE_OSTM_VERSION);
    onescope_os_write_u16(&w, onescope_replay_flags(r));
    onescope_os_write_u32(&w, has_link(r) ? 10u : 6u);
    onescope_os_write_u8(&w, r->setup.dimensions);
    onescope_os_write_u8(&w, r->setup.body_count);
    onescope_os_write_u32(&w, r->setup.seed);
    if (has_link(r)) {
        onescope_os_write_u8(&w, r->link.role);
        onescope_os_write_u8(&w, r->link.body);
        onescope_os_write_u16(&w, r->link.transfer_step);
    }
    onescope_os_write_u32(&w, r->step_count);
    if (r->has_start_snapshot) {
        onescope_os_write_u32(&w, r->start_snapshot_size);
        onescope_os_write_bytes(&w, r->start_snapshot, r->start_snapshot_size);
    }
    if (r->has_hash_rows)
        for (size_t i = 0; i <= r->step_count; i++) onescope_os_write_u64(&w, r->hash_rows[i]);
    for (uint32_t i = 0; i < r->step_count; i++) {
        uint32_t from = r->input_offsets[i], to = r->input_offsets[i + 1];
        onescope_os_write_u16(&w, (uint16_t)(to - from));
        if (to > from) onescope_os_write_bytes(&w, r->inputs + from, to - from);
    }
    return onescope_os_writer_finish(&w, out, error, name);
}

/* ---- streaming pieces: the head without its steps, the size rules, the partial's records ----
 * Used by the streaming writer and recovery (src/replay_writer.c), which own the I/O. */

onescope_code onescope_os_replay_head_build(const onescope_sim_setup *setup,
                                            const onescope_link_block *link, const void *snapshot,
                                            size_t snapshot_size, uint32_t step_count,
                                            const char *name, uint8_t *out, size_t *size,
                                            onescope_error *error) {
    onescope_link_block none = {0, 0, 0};
    if (link == NULL) link = &none;
    OS_TRY(onescope_sim_setup_check(setup, link, name, error));
    bool linked = link->role != ONESCOPE_LINK_ROLE_NONE;
    size_t at = FIXED_HEADER + (linked ? 10u : 6u);
    if (snapshot != NULL)
        OS_TRY(onescope_sim_snapshot_check(setup, snapshot, snapshot_size, name, at + 8, error));
    uint16_t flags = (uint16_t)(ONESCOPE_OSTM_FLAG_HASH_ROWS |
                                (snapshot != NULL ? ONESCOPE_OSTM_FLAG_START_SNAPSHOT : 0u) |
                                (linked ? ONESCOPE_OSTM_FLAG_LINK : 0u));
    memcpy(out, "OSTM", 4);
    onescope_os_put_u16(out + 4, ONESCOPE_OSTM_VERSION);
    onescope_os_put_u16(out + 6, flags);
    onescope_os_put_u32(out + 8, linked ? 10u : 6u);
    onescope_sim_setup_encode(setup, out + 12);
    if (linked) {
        out[18] = link->role;
        out[19] = link->body;
        onescope_os_put_u16(out + 20, link->transfer_step);
    }
    onescope_os_put_u32(out + at, step_count);
    at += 4;
    if (snapshot != NULL) {
        onescope_os_put_u32(out + at, (uint32_t)snapshot_size);
        memcpy(out + at + 4, snapshot, snapshot_size); /* checked: at most 2060 bytes */
        at += 4 + snapshot_size;
    }
    *size = at;
    return ONESCOPE_OK;
}

onescope_code onescope_os_replay_head_read(const void *data, size_t size, const char *name,
                                           onescope_os_replay_head *h, onescope_error *error) {
    memset(h, 0, sizeof *h);
    onescope_os_reader rd;
    onescope_os_reader_init(&rd, data, size, name, error);
    OS_TRY(read_header(&rd, &h->setup, &h->link, &h->flags));
    h->steps_at = rd.pos;
    OS_TRY(onescope_os_read_u32(&rd, "step count", &h->step_count));
    if (h->flags & ONESCOPE_OSTM_FLAG_START_SNAPSHOT) {
        OS_TRY(onescope_os_read_u32(&rd, "start snapshot length", &h->snapshot_size));
        if (h->snapshot_size > ONESCOPE_SIM_MAX_SNAPSHOT)
            return onescope_os_reader_fail_at(&rd, rd.pos, ONESCOPE_E_LENGTH, "snapshot length",
                                              "at most 2060 bytes", "%" PRIu32, h->snapshot_size);
        size_t at = rd.pos;
        OS_TRY(onescope_os_read_bytes(&rd, "start snapshot", h->snapshot_size, &h->snapshot));
        OS_TRY(
            onescope_sim_snapshot_check(&h->setup, h->snapshot, h->snapshot_size, name, at, error));
    }
    h->size = rd.pos;
    return ONESCOPE_OK;
}

void onescope_os_replay_head_set_steps(uint8_t *head, const onescope_os_replay_head *h,
                                       uint32_t step_count) {
    onescope_os_put_u32(head + h->steps_at, step_count);
}

uint64_t onescope_os_replay_file_size(size_t head_size, uint32_t step_count, uint64_t input_bytes) {
    return (uint64_t)head_size + 8 * ((uint64_t)step_count + 1) + 2 * (uint64_t)step_count +
           input_bytes;
}

size_t onescope_os_replay_record_encode(const void *input, uint16_t size, uint64_t hash,
                                        uint8_t *out) {
    out[0] = 's';
    out[1] = 't';
    onescope_os_put_u16(out + 2, size);
    if (size) memcpy(out + 4, input, size);
    onescope_os_put_u64(out + 4 + size, hash);
    return ONESCOPE_OS_OSTM_RECORD_FIXED + size;
}

onescope_code onescope_os_replay_record_decode(const uint8_t *p, size_t avail, uint8_t dimensions,
                                               const char *name, uint64_t offset, bool *whole,
                                               const uint8_t **input, uint16_t *size,
                                               uint64_t *hash, onescope_error *error) {
    *whole = false;
    /* A marker already there but wrong is damage, not a torn end: say so. */
    if ((avail >= 1 && p[0] != 's') || (avail >= 2 && p[1] != 't')) {
        bool first = p[0] != 's';
        return onescope_os_fail(error, ONESCOPE_E_MAGIC, name, offset + (first ? 0u : 1u),
                                "step record marker", "\"st\"", "%02x", first ? p[0] : p[1]);
    }
    if (avail < 4) return ONESCOPE_OK;
    uint16_t len = onescope_os_get_u16(p + 2);
    if (avail < ONESCOPE_OS_OSTM_RECORD_FIXED + (size_t)len) return ONESCOPE_OK;
    OS_TRY(onescope_op_check_input(dimensions, p + 4, len, name, offset + 4, error));
    *whole = true;
    *input = p + 4;
    *size = len;
    *hash = onescope_os_get_u64(p + 4 + len);
    return ONESCOPE_OK;
}

/* ---- push validator: the parser's checks over bytes fed in pieces (src/file.c feeds it
 * through one fixed buffer) ----
 * Units, in file order: the head (8 bytes first, then as many as the flags say), the start
 * snapshot, the hash rows (only counted), and each step. A unit is gathered in `unit` unless
 * the piece fed holds it whole, then the parser's scan function runs on it with offsets moved
 * by the unit's place in the file. The counts are checked against the whole input's size
 * (known up front), so an input that ends early ends inside a unit, whose scan on the bytes
 * there are fails exactly as the parser does. */

enum { OSTM_HEAD, OSTM_SNAPSHOT, OSTM_ROWS, OSTM_STEPS, OSTM_DONE };

#define OSTM_UNIT_MAX (2u + ONESCOPE_SIM_MAX_INPUT)
/* The longest head: header with a link block, step count, snapshot length. */
#define OSTM_HEAD_BYTES (FIXED_HEADER + 10u + 4u + 4u)

struct onescope_os_ostm_check {
    const char *name;
    const onescope_allocator *allocator;
    size_t total, pos; /* the input's size, bytes fed so far */
    size_t unit_at;    /* file offset of the unit being gathered */
    size_t have, need; /* bytes of it in unit[], bytes it needs (so far) */
    int phase;
    uint32_t step;      /* steps checked */
    uint64_t rows_left; /* hash-row bytes still to pass */
    uint64_t input_total;
    onescope_os_ostm_head h;
    /* Of unknown size (total is then the limit): the bytes fed, errors or not; the head once
     * scanned whole, scanned again at end with the real size; whether the rows were reached. */
    bool unknown;
    size_t seen;
    size_t head_n;
    bool rows_reached;
    uint8_t head[OSTM_HEAD_BYTES];
    onescope_code rc;
    onescope_error error;
    uint8_t snapshot[ONESCOPE_SIM_MAX_SNAPSHOT];
    uint8_t unit[OSTM_UNIT_MAX];
};

onescope_code onescope_os_ostm_check_begin(size_t total, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_os_ostm_check **out, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    *out = NULL;
    bool unknown = total == ONESCOPE_OS_SIZE_UNKNOWN;
    if (unknown)
        total = onescope_os_input_limit(options);
    else
        OS_TRY(onescope_os_check_input_size(total, options, name, error));
    onescope_os_ostm_check *c = onescope_os_calloc(a, 1, sizeof *c);
    if (c == NULL) return nomem(error, name, "validator");
    c->name = name;
    c->allocator = a;
    c->total = total;
    c->unknown = unknown;
    c->phase = OSTM_HEAD;
    c->need = 8; /* magic, version, flags: then the head's size is known */
    *out = c;
    return ONESCOPE_OK;
}

void onescope_os_ostm_check_free(onescope_os_ostm_check *c) {
    if (c != NULL) onescope_os_free(c->allocator, c);
}

const onescope_os_ostm_head *onescope_os_ostm_check_head(const onescope_os_ostm_check *c,
                                                         const uint8_t **snapshot) {
    *snapshot = c->h.snapshot_size > 0 ? c->snapshot : NULL;
    return &c->h;
}

static onescope_code ostm_failed(onescope_os_ostm_check *c, onescope_code rc, size_t base) {
    if (c->error.has_offset) c->error.offset += base;
    c->rc = rc;
    c->phase = OSTM_DONE;
    return rc;
}

/* A reader standing at file offset pos of the whole input, for checks that need no bytes. */
static onescope_os_reader ostm_at(onescope_os_ostm_check *c, size_t pos) {
    onescope_os_reader r;
    onescope_os_reader_init(&r, NULL, 0, c->name, &c->error);
    r.size = c->total;
    r.pos = pos;
    return r;
}

static void ostm_new_unit(onescope_os_ostm_check *c, size_t need) {
    c->unit_at = c->pos;
    c->have = 0;
    c->need = need;
}

/* Moves to phase, running at once the checks that need no more bytes. */
static onescope_code ostm_enter(onescope_os_ostm_check *c, int phase) {
    c->phase = phase;
    if (phase == OSTM_SNAPSHOT) {
        uint32_t n = c->h.snapshot_size;
        ostm_new_unit(c, n <= ONESCOPE_SIM_MAX_SNAPSHOT ? n : 0);
        if (c->need > 0) return ONESCOPE_OK;
        /* Empty or longer than any snapshot: the check refuses it by its size alone, without
         * reading a byte. */
        return ostm_failed(c,
                           onescope_sim_snapshot_check(&c->h.setup, c->snapshot, n, c->name,
                                                       c->h.snapshot_at, &c->error),
                           0);
    }
    if (phase == OSTM_ROWS) {
        c->rows_reached = true;
        onescope_os_reader r = ostm_at(c, c->pos);
        onescope_code rc = scan_rows(&r, c->total, &c->h);
        if (rc != ONESCOPE_OK) return ostm_failed(c, rc, 0);
        c->rows_left = c->h.inputs_at - c->h.rows_at;
        return c->rows_left > 0 ? ONESCOPE_OK : ostm_enter(c, OSTM_STEPS);
    }
    if (phase == OSTM_STEPS) {
        ostm_new_unit(c, 2);
        return c->h.step_count > 0 ? ONESCOPE_OK : ostm_enter(c, OSTM_DONE);
    }
    /* OSTM_DONE: the parser's end-of-input check, with what the whole input has left (of
     * unknown size: a byte fed after this point, and end counts them). */
    if (c->unknown) return ONESCOPE_OK;
    onescope_os_reader r = ostm_at(c, c->pos);
    onescope_code rc = onescope_os_reader_end(&r);
    return rc == ONESCOPE_OK ? rc : ostm_failed(c, rc, 0);
}

/* The unit's full size once enough of it is here to know it. */
static size_t ostm_unit_size(const onescope_os_ostm_check *c) {
    if (c->phase == OSTM_SNAPSHOT) return c->need;
    if (c->phase == OSTM_STEPS) return 2u + onescope_os_get_u16(c->unit); /* have >= 2 here */
    if (c->have < 8) return 8;
    uint16_t flags = onescope_os_get_u16(c->unit + 6);
    if (flags & ~0x7u) return c->have; /* refused at the flags: scan now */
    return FIXED_HEADER + ((flags & ONESCOPE_OSTM_FLAG_LINK) ? 10u : 6u) + 4u +
           ((flags & ONESCOPE_OSTM_FLAG_START_SNAPSHOT) ? 4u : 0u);
}

/* Checks one step held whole (or, at the end of input, what there is of it) at p. */
static onescope_code ostm_step(onescope_os_ostm_check *c, const uint8_t *p, size_t n, size_t base) {
    onescope_os_reader r;
    onescope_os_reader_init(&r, p, n, c->name, &c->error);
    uint16_t len;
    onescope_code rc = scan_step(&r, c->h.setup.dimensions, &len);
    if (rc != ONESCOPE_OK) return ostm_failed(c, rc, base);
    c->input_total += len;
    if (c->input_total > UINT32_MAX)
        return ostm_failed(c, inputs_too_large(c->name, base + 2, &c->error), 0);
    c->step++;
    return ONESCOPE_OK;
}

/* Runs the parser's scan of the gathered unit (complete, or cut by the end of input). */
static onescope_code ostm_scan_unit(onescope_os_ostm_check *c) {
    onescope_os_reader r;
    onescope_os_reader_init(&r, c->unit, c->have, c->name, &c->error);
    onescope_code rc;
    if (c->phase == OSTM_HEAD) {
        if (c->have <= OSTM_HEAD_BYTES) {
            memcpy(c->head, c->unit, c->have);
            c->head_n = c->have;
        }
        rc = scan_head(&r, c->total, &c->h);
        if (rc != ONESCOPE_OK) return ostm_failed(c, rc, 0);
        return ostm_enter(c, (c->h.flags & ONESCOPE_OSTM_FLAG_START_SNAPSHOT) ? OSTM_SNAPSHOT
                                                                              : OSTM_ROWS);
    }
    if (c->phase == OSTM_SNAPSHOT) {
        rc = onescope_sim_snapshot_check(&c->h.setup, c->unit, c->have, c->name, c->h.snapshot_at,
                                         &c->error);
        if (rc != ONESCOPE_OK) return ostm_failed(c, rc, 0);
        memcpy(c->snapshot, c->unit, c->have);
        return ostm_enter(c, OSTM_ROWS);
    }
    OS_TRY(ostm_step(c, c->unit, c->have, c->unit_at));
    if (c->step == c->h.step_count) return ostm_enter(c, OSTM_DONE);
    ostm_new_unit(c, 2);
    return ONESCOPE_OK;
}

static onescope_code ostm_feed_bytes(onescope_os_ostm_check *c, const uint8_t *p, size_t n);

onescope_code onescope_os_ostm_check_feed(onescope_os_ostm_check *c, const void *data, size_t n) {
    if (!c->unknown) return ostm_feed_bytes(c, data, n);
    if (c->rc == ONESCOPE_E_TOO_LARGE) return c->rc;
    if (n > c->total - c->seen) {
        c->phase = OSTM_DONE;
        return c->rc = onescope_os_stream_too_large(c->total, c->name, &c->error);
    }
    c->seen += n;
    if (c->rc == ONESCOPE_OK) ostm_feed_bytes(c, data, n);
    return ONESCOPE_OK; /* an error waits for the size: end decides */
}

static onescope_code ostm_feed_bytes(onescope_os_ostm_check *c, const uint8_t *p, size_t n) {
    if (c->rc != ONESCOPE_OK) return c->rc;
    if (n > c->total - c->pos)
        return ostm_failed(c,
                           onescope_os_fail(&c->error, ONESCOPE_E_IO, c->name, OS_NO_OFFSET,
                                            "file size", "the size the file had when opened",
                                            "more bytes (it grew while being read)"),
                           0);
    while (n > 0) {
        if (c->phase == OSTM_DONE) { /* of unknown size only: a byte past the last step */
            onescope_os_reader r = ostm_at(c, c->pos);
            return ostm_failed(c, onescope_os_reader_end(&r), 0);
        }
        if (c->phase == OSTM_ROWS) {
            size_t k = c->rows_left < n ? (size_t)c->rows_left : n;
            p += k;
            n -= k;
            c->pos += k;
            c->rows_left -= k;
            if (c->rows_left == 0) OS_TRY(ostm_enter(c, OSTM_STEPS));
            continue;
        }
        if (c->phase == OSTM_STEPS && c->have == 0 && n >= 2 && n >= 2u + onescope_os_get_u16(p)) {
            /* The whole step is in this piece: check it where it lies. */
            size_t k = 2u + onescope_os_get_u16(p);
            OS_TRY(ostm_step(c, p, k, c->pos));
            p += k;
            n -= k;
            c->pos += k;
            if (c->step == c->h.step_count)
                OS_TRY(ostm_enter(c, OSTM_DONE));
            else
                ostm_new_unit(c, 2);
            continue;
        }
        size_t k = c->need - c->have;
        if (k > n) k = n;
        memcpy(c->unit + c->have, p, k);
        c->have += k;
        p += k;
        n -= k;
        c->pos += k;
        if (c->have < c->need) continue;
        c->need = ostm_unit_size(c);
        if (c->have < c->need) continue;
        OS_TRY(ostm_scan_unit(c));
    }
    return ONESCOPE_OK;
}

/* The end of an input of unknown size, now seen bytes long: the rules that need the size run
 * again, in the parser's order, and the first that fails replaces what the scan found. */
static void ostm_end_unknown(onescope_os_ostm_check *c) {
    c->total = c->seen;
    onescope_os_ostm_head h;
    if (c->head_n > 0 && c->phase != OSTM_HEAD) { /* the head was scanned whole */
        onescope_os_reader r;
        onescope_os_reader_init(&r, c->head, c->head_n, c->name, &c->error);
        onescope_code rc = scan_head(&r, c->total, &h);
        if (rc != ONESCOPE_OK) {
            ostm_failed(c, rc, 0);
            return;
        }
    }
    if (c->rows_reached) {
        onescope_os_reader r = ostm_at(c, (size_t)c->h.rows_at);
        onescope_code rc = scan_rows(&r, c->total, &c->h);
        if (rc != ONESCOPE_OK) {
            ostm_failed(c, rc, 0);
            return;
        }
    }
    if (c->rc == ONESCOPE_E_TRAILING) { /* its count of bytes, now known */
        onescope_os_reader r = ostm_at(c, c->pos);
        ostm_failed(c, onescope_os_reader_end(&r), 0);
    }
}

onescope_code onescope_os_ostm_check_end(onescope_os_ostm_check *c, onescope_error *error) {
    if (c->unknown && c->rc != ONESCOPE_E_TOO_LARGE) ostm_end_unknown(c);
    if (c->rc == ONESCOPE_OK && c->pos != c->total)
        ostm_failed(c,
                    onescope_os_fail(&c->error, ONESCOPE_E_IO, c->name, OS_NO_OFFSET, "file size",
                                     "the size the file had when opened",
                                     "fewer bytes (it shrank while being read)"),
                    0);
    /* The input ended inside a unit: its scan on what there is fails as the parser does. */
    if (c->rc == ONESCOPE_OK && c->phase != OSTM_DONE) ostm_scan_unit(c);
    if (c->rc != ONESCOPE_OK && error != NULL) *error = c->error;
    return c->rc;
}

/* ---- the OSTM v1 codec (check_internal.h) ---- */

static onescope_code ostm_begin(size_t total, const char *name,
                                const onescope_parse_options *options, void **state,
                                onescope_error *error) {
    onescope_os_ostm_check *c = NULL;
    onescope_code rc = onescope_os_ostm_check_begin(total, name, options, &c, error);
    *state = c;
    return rc;
}

static onescope_code ostm_feed(void *state, const void *data, size_t n) {
    return onescope_os_ostm_check_feed(state, data, n);
}

static onescope_code ostm_end(void *state, onescope_error *error) {
    return onescope_os_ostm_check_end(state, error);
}

static void ostm_free(void *state) {
    onescope_os_ostm_check_free(state);
}

static onescope_code ostm_parse_only(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_error *error) {
    onescope_replay *r;
    onescope_code rc = onescope_replay_parse(data, size, name, options, &r, error);
    onescope_replay_free(rc == ONESCOPE_OK ? r : NULL);
    return rc;
}

const onescope_os_push_ops onescope_os_ostm_push = {ostm_begin, ostm_feed, ostm_end, ostm_free};
const onescope_os_codec onescope_os_ostm_codec = {&onescope_os_ostm_push, NULL, ostm_parse_only};
