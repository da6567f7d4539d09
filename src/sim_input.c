/* The test module's bytes: a world's snapshot, setup and link block, and the operations of a
 * step (sizes, reader, checker, encoder). Shared by the replay and live-stream formats and
 * by the simulation, which consumes what these decode. Rules: docs/test-module.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/sim.h"

/* ---- the snapshot ---- */

static int32_t get_i32(const uint8_t *p) {
    return (int32_t)onescope_os_get_u32(p);
}

onescope_code onescope_sim_snapshot_check(const onescope_sim_setup *setup, const void *snapshot,
                                          size_t size, const char *name, uint64_t base,
                                          onescope_error *error) {
    if (name == NULL) name = "<snapshot>";
    if (setup == NULL || (snapshot == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "setup and snapshot must not be NULL");
    const uint8_t *p = snapshot;
    if (size < ONESCOPE_SIM_SNAPSHOT_HEADER || (size - ONESCOPE_SIM_SNAPSHOT_HEADER) % 32 != 0 ||
        (size - ONESCOPE_SIM_SNAPSHOT_HEADER) / 32 < setup->body_count ||
        (size - ONESCOPE_SIM_SNAPSHOT_HEADER) / 32 > ONESCOPE_SIM_MAX_BODIES) {
        char expected[96];
        snprintf(expected, sizeof expected, "12 + 32 x n bytes with n from %u to 64",
                 (unsigned)setup->body_count);
        return onescope_os_fail(error, ONESCOPE_E_LENGTH, name, base, "snapshot length", expected,
                                "%zu", size);
    }
    int32_t g = get_i32(p + 8);
    if (g < -ONESCOPE_SIM_MAX_GRAVITY || g > ONESCOPE_SIM_MAX_GRAVITY)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, base + 8, "snapshot gravity",
                                "-1000 to 1000", "%ld", (long)g);
    size_t n = (size - ONESCOPE_SIM_SNAPSHOT_HEADER) / 32;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = p + 12 + 32 * i;
        uint64_t at = base + 12 + 32 * i;
        char field[48];
        int32_t v = get_i32(b);
        if (v != 0 && v != 1) {
            snprintf(field, sizeof field, "body %zu alive", i);
            return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at, field, "0 or 1", "%ld",
                                    (long)v);
        }
        v = get_i32(b + 4);
        if (v < 0) {
            snprintf(field, sizeof field, "body %zu still count", i);
            return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at + 4, field, "0 or more",
                                    "%ld", (long)v);
        }
        static const char axes[] = "xyz";
        for (int k = 0; k < 3; k++) {
            v = get_i32(b + 8 + 4 * k);
            int flat = k == 2 && setup->dimensions == 2;
            if (flat ? v != 0 : (v < 0 || v > ONESCOPE_SIM_BOX)) {
                snprintf(field, sizeof field, "body %zu position %c", i, axes[k]);
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at + 8 + 4 * (unsigned)k,
                                        field, flat ? "0 in a 2D world" : "0 to 10000", "%ld",
                                        (long)v);
            }
        }
        for (int k = 0; k < 3; k++) {
            v = get_i32(b + 20 + 4 * k);
            int flat = k == 2 && setup->dimensions == 2;
            if (flat ? v != 0 : (v < -ONESCOPE_SIM_MAX_SPEED || v > ONESCOPE_SIM_MAX_SPEED)) {
                snprintf(field, sizeof field, "body %zu velocity %c", i, axes[k]);
                return onescope_os_fail(error, ONESCOPE_E_RANGE, name, at + 20 + 4 * (unsigned)k,
                                        field, flat ? "0 in a 2D world" : "-1000 to 1000", "%ld",
                                        (long)v);
            }
        }
    }
    return ONESCOPE_OK;
}

/* ---- setup and link ---- */

onescope_code onescope_sim_setup_check(const onescope_sim_setup *s, const onescope_link_block *l,
                                       const char *name, onescope_error *error) {
    if (name == NULL) name = "<setup>";
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "setup", "non-NULL",
                                NULL);
    if (s->dimensions != 2 && s->dimensions != 3)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, 12, "dimensions", "2 or 3", "%u",
                                (unsigned)s->dimensions);
    if (s->body_count < 1 || s->body_count > ONESCOPE_SIM_MAX_BODIES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, 13, "body count", "1 to 64", "%u",
                                (unsigned)s->body_count);
    if (l == NULL || l->role == ONESCOPE_LINK_ROLE_NONE) {
        if (l != NULL && (l->body != 0 || l->transfer_step != 0))
            return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "link",
                                    "body and step 0 without a link role", "body %u, step %u",
                                    (unsigned)l->body, (unsigned)l->transfer_step);
        return ONESCOPE_OK;
    }
    if (l->role > ONESCOPE_LINK_ROLE_FIELDS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, 18, "link role", "1, 2 or 3", "%u",
                                (unsigned)l->role);
    if (l->role == ONESCOPE_LINK_ROLE_FIELDS) {
        if (l->body != 0)
            return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, 19, "link body",
                                    "0 for role 3 (fields only)", "%u", (unsigned)l->body);
        if (l->transfer_step != 0)
            return onescope_os_fail(error, ONESCOPE_E_RESERVED, name, 20, "link transfer step",
                                    "0 for role 3 (fields only)", "%u", (unsigned)l->transfer_step);
        return ONESCOPE_OK;
    }
    if (l->body >= s->body_count)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, 19, "link body",
                                "an index below the setup's body count", "%u (body count %u)",
                                (unsigned)l->body, (unsigned)s->body_count);
    return ONESCOPE_OK;
}

void onescope_sim_setup_encode(const onescope_sim_setup *s, uint8_t out[6]) {
    out[0] = s->dimensions;
    out[1] = s->body_count;
    onescope_os_put_u32(out + 2, s->seed);
}

onescope_code onescope_sim_setup_decode(const void *data, size_t size, const char *name,
                                        uint64_t base, onescope_sim_setup *out,
                                        onescope_error *error) {
    if (name == NULL) name = "<setup>";
    if (out == NULL || (data == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "data and out must not be NULL");
    if (size < ONESCOPE_SIM_SETUP_BYTES)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, name, base, "setup", "6 bytes", "%zu",
                                size);
    const uint8_t *p = data;
    onescope_sim_setup s = {p[0], p[1], onescope_os_get_u32(p + 2)};
    if (s.dimensions != 2 && s.dimensions != 3)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, base, "dimensions", "2 or 3", "%u",
                                (unsigned)s.dimensions);
    if (s.body_count < 1 || s.body_count > ONESCOPE_SIM_MAX_BODIES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, base + 1, "body count", "1 to 64",
                                "%u", (unsigned)s.body_count);
    *out = s;
    return ONESCOPE_OK;
}

onescope_link_info onescope_link_describe(const onescope_link_block *l) {
    onescope_link_info k = {ONESCOPE_LINK_KIND_NONE, "", "", "", 0, 0};
    if (l == NULL) return k;
    if (l->role == ONESCOPE_LINK_ROLE_SENDER) {
        k.kind = ONESCOPE_LINK_KIND_CONTINUED_BY;
        k.kind_name = "ContinuedBy";
        k.own_key = "tm-left";
        k.other_key = "tm-right";
    } else if (l->role == ONESCOPE_LINK_ROLE_RECEIVER) {
        k.kind = ONESCOPE_LINK_KIND_CONTINUES;
        k.kind_name = "Continues";
        k.own_key = "tm-right";
        k.other_key = "tm-left";
    } else {
        return k;
    }
    k.body = l->body;
    k.step = l->transfer_step;
    return k;
}

/* ---- operations ---- */

size_t onescope_op_size(uint8_t code) {
    switch (code) {
        case ONESCOPE_OP_IMPULSE: return 14;
        case ONESCOPE_OP_TELEPORT: return 14;
        case ONESCOPE_OP_REMOVE: return 2;
        case ONESCOPE_OP_GRAVITY: return 5;
        case ONESCOPE_OP_SPAWN: return 13;
        default: return 0;
    }
}

const char *onescope_op_name(uint8_t code) {
    static const char *const names[6] = {"", "impulse", "teleport", "remove", "gravity", "spawn"};
    return code < 6 ? names[code] : "";
}

int onescope_op_format(const onescope_op *op, char *buf, size_t size) {
    switch (op->code) {
        case ONESCOPE_OP_GRAVITY: return snprintf(buf, size, "gravity %" PRId32, op->value[0]);
        case ONESCOPE_OP_REMOVE: return snprintf(buf, size, "remove body %u", op->body);
        case ONESCOPE_OP_SPAWN:
            return snprintf(buf, size, "spawn (%" PRId32 ", %" PRId32 ", %" PRId32 ")",
                            op->value[0], op->value[1], op->value[2]);
        case ONESCOPE_OP_IMPULSE:
        case ONESCOPE_OP_TELEPORT:
            return snprintf(buf, size, "%s body %u (%" PRId32 ", %" PRId32 ", %" PRId32 ")",
                            onescope_op_name(op->code), op->body, op->value[0], op->value[1],
                            op->value[2]);
        default: return snprintf(buf, size, "operation %u", op->code);
    }
}

/* Operand layout of each code: names and offsets inside the operation. */
typedef struct op_layout {
    int has_body;
    int values;           /* i32 operands */
    int z_index;          /* which value must be 0 in 2D, or -1 */
    const char *names[4]; /* body (if any) then the values */
} op_layout;

static const op_layout layouts[6] = {
    {0, 0, -1, {NULL, NULL, NULL, NULL}},
    {1, 3, 2, {"impulse body", "impulse dx", "impulse dy", "impulse dz"}},
    {1, 3, 2, {"teleport body", "teleport x", "teleport y", "teleport z"}},
    {1, 0, -1, {"remove body", NULL, NULL, NULL}},
    {0, 1, -1, {"gravity", NULL, NULL, NULL}},
    {0, 3, 2, {"spawn x", "spawn y", "spawn z", NULL}},
};

void onescope_op_reader_init(onescope_op_reader *r, uint8_t dimensions, const void *data,
                             size_t size, const char *name, uint64_t base_offset) {
    r->data = data;
    r->size = data == NULL ? 0 : size;
    r->pos = 0;
    r->dimensions = dimensions;
    r->base_offset = base_offset;
    r->name = name == NULL ? "<input>" : name;
}

/* Reads one operation: OK with op->code 0 at the end of the input. */
static onescope_code op_read(onescope_op_reader *r, onescope_op *op, onescope_error *error) {
    if (r->pos >= r->size) {
        op->code = 0;
        return ONESCOPE_OK;
    }
    const uint8_t *p = r->data + r->pos;
    size_t left = r->size - r->pos;
    uint64_t at = r->base_offset + r->pos;
    uint8_t code = p[0];
    if (onescope_op_size(code) == 0)
        return onescope_os_fail(error, ONESCOPE_E_OPERATION, r->name, at, "operation", "1 to 5",
                                "%u", (unsigned)code);
    const op_layout *L = &layouts[code];
    memset(op, 0, sizeof *op);
    op->code = code;
    size_t off = 1;
    int n = 0;
    if (L->has_body) {
        if (left < 2)
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, r->name, at + 1, L->names[0],
                                    "1 byte", "end of input");
        op->body = p[1];
        if (op->body >= ONESCOPE_SIM_MAX_BODIES)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, r->name, at + 1, L->names[0],
                                    "0 to 63", "%u", (unsigned)op->body);
        off = 2;
        n = 1;
    }
    for (int k = 0; k < L->values; k++, n++, off += 4) {
        if (left < off + 4)
            return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, r->name, at + off, L->names[n],
                                    "4 bytes", "%zu bytes", left > off ? left - off : 0);
        op->value[k] = (int32_t)onescope_os_get_u32(p + off);
        if (k == L->z_index && r->dimensions == 2 && op->value[k] != 0)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, r->name, at + off, L->names[n],
                                    "0 in a 2D world", "%ld", (long)op->value[k]);
    }
    r->pos += off;
    return ONESCOPE_OK;
}

int onescope_op_reader_next(onescope_op_reader *r, onescope_op *op, onescope_error *error) {
    if (op == NULL || r == NULL) return -1;
    if (op_read(r, op, error) != ONESCOPE_OK) return -1;
    return op->code == 0 ? 0 : 1;
}

onescope_code onescope_op_check_input(uint8_t dimensions, const void *data, size_t size,
                                      const char *name, uint64_t base_offset,
                                      onescope_error *error) {
    if (data == NULL && size > 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name ? name : "<input>", OS_NO_OFFSET,
                                "input", "non-NULL", NULL);
    if (size > ONESCOPE_SIM_MAX_INPUT)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name ? name : "<input>", base_offset,
                                "input length", "at most 65535", "%zu", size);
    onescope_op_reader r;
    onescope_op op;
    onescope_op_reader_init(&r, dimensions, data, size, name, base_offset);
    do {
        OS_TRY(op_read(&r, &op, error));
    } while (op.code != 0);
    return ONESCOPE_OK;
}

size_t onescope_op_encode(uint8_t dimensions, const onescope_op *op, uint8_t *out, size_t capacity,
                          onescope_error *error) {
    const char *name = "onescope_op_encode";
    if (op == NULL || out == NULL) {
        onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                         "op and out must not be NULL");
        return 0;
    }
    size_t n = onescope_op_size(op->code);
    if (n == 0) {
        onescope_os_fail(error, ONESCOPE_E_OPERATION, name, OS_NO_OFFSET, "operation", "1 to 5",
                         "%u", (unsigned)op->code);
        return 0;
    }
    if (capacity < n) {
        onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "capacity",
                         "room for the operation", "%zu bytes", capacity);
        return 0;
    }
    const op_layout *L = &layouts[op->code];
    uint8_t buf[20]; /* 14 needed; room so no compiler sees a possible overrun */
    size_t off = 1;
    buf[0] = op->code;
    if (L->has_body) buf[off++] = op->body;
    for (int k = 0; k < L->values; k++, off += 4)
        onescope_os_put_u32(buf + off, (uint32_t)op->value[k]);
    /* Check the bytes exactly as the parser will read them. */
    onescope_op_reader r;
    onescope_op back;
    onescope_op_reader_init(&r, dimensions, buf, n, name, 0);
    if (onescope_op_reader_next(&r, &back, error) != 1) return 0;
    memcpy(out, buf, n);
    return n;
}
