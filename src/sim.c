/* The integer test module: world, operations, stages, snapshot, hash, links and fields.
 * Every rule here is stated in docs/test-module.md; change one and the golden hash rows in
 * tests/test_sim.c must change with it. Integers only: no value can overflow (see the bounds
 * in include/onescope/sim.h, and the comments at each arithmetic step). */
#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"
#include "onescope/sim.h"

#define BOX ONESCOPE_SIM_BOX
#define VMAX ONESCOPE_SIM_MAX_SPEED
#define GMAX ONESCOPE_SIM_MAX_GRAVITY
#define CELL (ONESCOPE_SIM_BOX / (int32_t)ONESCOPE_SIM_GRID) /* 1250 mm */
#define ARRIVAL_SPEED_X 150 /* a receiver's body arrives at the middle moving +x */
#define SPAWNED (-1)        /* start position of a body spawned during this step */
/* Marks a def that came from onescope_sim_def_default() (a zeroed def is not a setup). */
#define DEF_COOKIE 0x4F534446u /* "OSDF" */

struct onescope_sim {
    const onescope_allocator *allocator;
    onescope_sim_def def;
    uint64_t host_step;
    int32_t gravity;
    uint32_t body_count;
    onescope_sim_stage next_stage;
    onescope_sim_body_state bodies[ONESCOPE_SIM_MAX_BODIES];
    onescope_sim_body_state
        start[ONESCOPE_SIM_MAX_BODIES]; /* the bodies as the input stage began */
};

/* A body is exactly its eight snapshot values, in snapshot order. */
_Static_assert(sizeof(onescope_sim_body_state) == ONESCOPE_SIM_BODY_BYTES, "eight packed int32");

static int32_t clamp64(int64_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* ---- setup and link ---- */

onescope_sim_def onescope_sim_def_default(void) {
    onescope_sim_def d;
    memset(&d, 0, sizeof d);
    d.setup.dimensions = 3;
    d.setup.body_count = 1;
    d.setup.seed = 0;
    d.link.role = ONESCOPE_LINK_ROLE_NONE;
    d.internal_cookie = DEF_COOKIE;
    return d;
}

/* ---- creating a world ---- */

/* A receiver's body arrives (or a sender's body leaves) when the step counter reaches the
 * transfer step. */
static void apply_transfer(onescope_sim *s) {
    const onescope_link_block *l = &s->def.link;
    if (l->role != ONESCOPE_LINK_ROLE_SENDER && l->role != ONESCOPE_LINK_ROLE_RECEIVER) return;
    if (s->host_step != l->transfer_step || l->body >= s->body_count) return;
    onescope_sim_body_state *b = &s->bodies[l->body];
    if (l->role == ONESCOPE_LINK_ROLE_SENDER) {
        b->alive = 0;
        return;
    }
    b->alive = 1;
    b->still_count = 0;
    b->position[0] = BOX / 2;
    b->position[1] = BOX / 2;
    b->position[2] = s->def.setup.dimensions == 3 ? BOX / 2 : 0;
    b->velocity[0] = ARRIVAL_SPEED_X;
    b->velocity[1] = 0;
    b->velocity[2] = 0;
}

static onescope_code check_cookie(const onescope_sim_def *def, const char *name,
                                  onescope_error *error) {
    if (def->internal_cookie == DEF_COOKIE) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "onescope_sim_def",
                            "a def from onescope_sim_def_default()",
                            "one without its cookie (0x%08x)", (unsigned)def->internal_cookie);
}

static onescope_code new_sim(const onescope_sim_def *def, const onescope_allocator *a,
                             onescope_sim **out, onescope_error *error, const char *name) {
    if (out == NULL || def == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "def and out must not be NULL");
    *out = NULL;
    OS_TRY(check_cookie(def, name, error));
    OS_TRY(onescope_sim_setup_check(&def->setup, &def->link, name, error));
    onescope_sim *s = onescope_os_calloc(a, 1, sizeof *s);
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "world", NULL,
                                "could not allocate memory");
    s->allocator = a;
    s->def = *def;
    s->next_stage = ONESCOPE_SIM_STAGE_INPUT;
    *out = s;
    return ONESCOPE_OK;
}

onescope_code onescope_sim_create(const onescope_sim_def *def, const onescope_allocator *a,
                                  onescope_sim **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_sim_create", OS_NO_OFFSET,
                                "out", "non-NULL", NULL);
    *out = NULL;
    onescope_sim *s;
    OS_TRY(new_sim(def, a, &s, error, "onescope_sim_create"));
    int dims = def->setup.dimensions;
    uint64_t state = def->setup.seed;
    s->host_step = 0;
    s->gravity = ONESCOPE_SIM_START_GRAVITY;
    s->body_count = def->setup.body_count;
    for (uint32_t i = 0; i < s->body_count; i++) {
        onescope_sim_body_state *b = &s->bodies[i];
        b->alive = 1;
        for (int k = 0; k < dims; k++) b->position[k] = onescope_os_draw(&state, 0, BOX);
        for (int k = 0; k < dims; k++) b->velocity[k] = onescope_os_draw(&state, -200, 200);
    }
    if (def->link.role == ONESCOPE_LINK_ROLE_RECEIVER) s->bodies[def->link.body].alive = 0;
    apply_transfer(s);
    *out = s;
    return ONESCOPE_OK;
}

static int32_t get_i32(const uint8_t *p) {
    return (int32_t)onescope_os_get_u32(p);
}

onescope_code onescope_sim_create_from_snapshot(const onescope_sim_def *def, const void *snapshot,
                                                size_t size, const char *name,
                                                const onescope_allocator *a, onescope_sim **out,
                                                onescope_error *error) {
    if (name == NULL) name = "<snapshot>";
    if (def == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "def and out must not be NULL");
    *out = NULL;
    OS_TRY(check_cookie(def, name, error));
    OS_TRY(onescope_sim_setup_check(&def->setup, &def->link, name, error));
    OS_TRY(onescope_sim_snapshot_check(&def->setup, snapshot, size, name, 0, error));
    onescope_sim *s;
    OS_TRY(new_sim(def, a, &s, error, name));
    const uint8_t *p = snapshot;
    s->host_step = onescope_os_get_u64(p);
    s->gravity = get_i32(p + 8);
    s->body_count = (uint32_t)((size - ONESCOPE_SIM_SNAPSHOT_HEADER) / 32);
    for (uint32_t i = 0; i < s->body_count; i++) {
        const uint8_t *b = p + 12 + 32 * (size_t)i;
        onescope_sim_body_state *d = &s->bodies[i];
        d->alive = get_i32(b);
        d->still_count = get_i32(b + 4);
        for (int k = 0; k < 3; k++) {
            d->position[k] = get_i32(b + 8 + 4 * k);
            d->velocity[k] = get_i32(b + 20 + 4 * k);
        }
    }
    *out = s;
    return ONESCOPE_OK;
}

void onescope_sim_free(onescope_sim *s) {
    if (s == NULL) return;
    onescope_os_free(s->allocator, s);
}

/* ---- the four stages ---- */

static void apply_op(onescope_sim *s, const onescope_op *op) {
    int dims = s->def.setup.dimensions;
    if (op->code == ONESCOPE_OP_GRAVITY) {
        s->gravity = clamp64(op->value[0], -GMAX, GMAX);
        return;
    }
    if (op->code == ONESCOPE_OP_SPAWN) {
        if (s->body_count >= ONESCOPE_SIM_MAX_BODIES) return;
        uint32_t i = s->body_count++;
        onescope_sim_body_state *b = &s->bodies[i];
        memset(b, 0, sizeof *b);
        b->alive = 1;
        for (int k = 0; k < dims; k++) b->position[k] = clamp64(op->value[k], 0, BOX);
        for (int k = 0; k < 3; k++) s->start[i].position[k] = SPAWNED;
        return;
    }
    /* Operations on a body the world does not hold, or on a removed body, do nothing. */
    if (op->body >= s->body_count || !s->bodies[op->body].alive) return;
    onescope_sim_body_state *b = &s->bodies[op->body];
    if (op->code == ONESCOPE_OP_IMPULSE) { /* |v| <= 1000, |d| < 2^31: fits in 64 bits */
        for (int k = 0; k < dims; k++)
            b->velocity[k] = clamp64((int64_t)b->velocity[k] + op->value[k], -VMAX, VMAX);
    } else if (op->code == ONESCOPE_OP_TELEPORT) {
        for (int k = 0; k < dims; k++) b->position[k] = clamp64(op->value[k], 0, BOX);
    } else { /* ONESCOPE_OP_REMOVE: the decoder admits no other code here */
        b->alive = 0;
    }
}

static void stage_input(onescope_sim *s, const uint8_t *input, size_t size) {
    memcpy(s->start, s->bodies, s->body_count * sizeof s->bodies[0]);
    onescope_op_reader r;
    onescope_op op;
    onescope_op_reader_init(&r, s->def.setup.dimensions, input, size, NULL, 0);
    while (onescope_op_reader_next(&r, &op, NULL) == 1) apply_op(s, &op);
}

/* Positive gravity pulls towards y = 0: vy -= g, clamped. |vy|, |g| <= 1000. */
static void stage_gravity(onescope_sim *s) {
    int32_t g = s->gravity;
    for (uint32_t i = 0; i < s->body_count; i++) {
        onescope_sim_body_state *b = &s->bodies[i];
        if (!b->alive) continue;
        int32_t v = b->velocity[1] - g;
        b->velocity[1] = v < -VMAX ? -VMAX : v > VMAX ? VMAX : v;
    }
}

/* p += v per axis; a wall crossing reflects the position and reverses the velocity, losing
 * an eighth of its magnitude (rounded down). |v| <= 1000 < BOX, so one reflection lands the
 * body inside 0..BOX. */
static void stage_move(onescope_sim *s) {
    int dims = s->def.setup.dimensions;
    for (uint32_t i = 0; i < s->body_count; i++) {
        onescope_sim_body_state *b = &s->bodies[i];
        if (!b->alive) continue;
        for (int k = 0; k < dims; k++) {
            int32_t v = b->velocity[k];
            int32_t p = b->position[k] + v;
            if (p < 0) {
                int32_t m = -v; /* v < 0 here */
                p = -p;
                v = m - m / 8;
            } else if (p > BOX) {
                int32_t m = v; /* v > 0 here */
                p = 2 * BOX - p;
                v = -(m - m / 8);
            }
            b->position[k] = p;
            b->velocity[k] = v;
        }
    }
}

static void stage_bookkeeping(onescope_sim *s) {
    for (uint32_t i = 0; i < s->body_count; i++) {
        onescope_sim_body_state *b = &s->bodies[i];
        if (!b->alive) continue;
        const int32_t *was = s->start[i].position;
        if (b->position[0] == was[0] && b->position[1] == was[1] && b->position[2] == was[2]) {
            if (b->still_count < INT32_MAX) b->still_count++;
        } else {
            b->still_count = 0;
        }
    }
    s->host_step++; /* unsigned: wraps after 2^64 - 1 */
    apply_transfer(s);
}

onescope_code onescope_sim_run_stage(onescope_sim *s, const void *input, size_t size,
                                     onescope_error *error) {
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_sim_run_stage", OS_NO_OFFSET,
                                "sim", "non-NULL", NULL);
    switch (s->next_stage) {
        case ONESCOPE_SIM_STAGE_INPUT:
            OS_TRY(onescope_op_check_input(s->def.setup.dimensions, input, size, "<step input>", 0,
                                           error));
            stage_input(s, input, size);
            s->next_stage = ONESCOPE_SIM_STAGE_GRAVITY;
            break;
        case ONESCOPE_SIM_STAGE_GRAVITY:
            stage_gravity(s);
            s->next_stage = ONESCOPE_SIM_STAGE_MOVE;
            break;
        case ONESCOPE_SIM_STAGE_MOVE:
            stage_move(s);
            s->next_stage = ONESCOPE_SIM_STAGE_BOOKKEEPING;
            break;
        case ONESCOPE_SIM_STAGE_BOOKKEEPING:
            stage_bookkeeping(s);
            s->next_stage = ONESCOPE_SIM_STAGE_INPUT;
            break;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_sim_step(onescope_sim *s, const void *input, size_t size,
                                onescope_error *error) {
    if (s == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_sim_step", OS_NO_OFFSET,
                                "sim", "non-NULL", NULL);
    if (s->next_stage != ONESCOPE_SIM_STAGE_INPUT)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, "onescope_sim_step", OS_NO_OFFSET,
                                "stage", "a step boundary", "before the %s stage",
                                onescope_sim_stage_name(s->next_stage));
    OS_TRY(onescope_op_check_input(s->def.setup.dimensions, input, size, "<step input>", 0, error));
    stage_input(s, input, size);
    stage_gravity(s);
    stage_move(s);
    stage_bookkeeping(s);
    return ONESCOPE_OK;
}

onescope_sim_stage onescope_sim_next_stage(const onescope_sim *s) {
    return s == NULL ? ONESCOPE_SIM_STAGE_INPUT : s->next_stage;
}

const char *onescope_sim_stage_name(onescope_sim_stage stage) {
    switch (stage) {
        case ONESCOPE_SIM_STAGE_INPUT: return "input";
        case ONESCOPE_SIM_STAGE_GRAVITY: return "gravity";
        case ONESCOPE_SIM_STAGE_MOVE: return "move";
        case ONESCOPE_SIM_STAGE_BOOKKEEPING: return "bookkeeping";
    }
    return "unknown";
}

/* ---- reading the world ---- */

/* Accessors answer 0 (or an empty value) for a NULL world. */
uint8_t onescope_sim_dimensions(const onescope_sim *s) {
    return s ? s->def.setup.dimensions : 0;
}
uint64_t onescope_sim_host_step(const onescope_sim *s) {
    return s ? s->host_step : 0;
}
int32_t onescope_sim_gravity(const onescope_sim *s) {
    return s ? s->gravity : 0;
}
uint32_t onescope_sim_body_count(const onescope_sim *s) {
    return s ? s->body_count : 0;
}
onescope_sim_def onescope_sim_definition(const onescope_sim *s) {
    return s ? s->def : onescope_sim_def_default();
}
onescope_link_info onescope_sim_link(const onescope_sim *s) {
    return onescope_link_describe(s ? &s->def.link : NULL);
}

onescope_code onescope_sim_body(const onescope_sim *s, uint32_t index,
                                onescope_sim_body_state *out) {
    if (s == NULL || out == NULL || index >= s->body_count) return ONESCOPE_E_ARGUMENT;
    *out = s->bodies[index];
    return ONESCOPE_OK;
}

size_t onescope_sim_snapshot_size(const onescope_sim *s) {
    if (s == NULL) return 0;
    return ONESCOPE_SIM_SNAPSHOT_HEADER + (size_t)s->body_count * ONESCOPE_SIM_BODY_BYTES;
}

size_t onescope_sim_snapshot(const onescope_sim *s, void *out, size_t capacity) {
    size_t size = onescope_sim_snapshot_size(s);
    if (s == NULL || out == NULL || capacity < size) return 0;
    uint8_t *p = out;
    onescope_os_put_u64(p, s->host_step);
    onescope_os_put_u32(p + 8, (uint32_t)s->gravity);
    p += ONESCOPE_SIM_SNAPSHOT_HEADER;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The bodies are already the snapshot's bytes on a little-endian host. */
    memcpy(p, s->bodies, (size_t)s->body_count * ONESCOPE_SIM_BODY_BYTES);
#else
    for (uint32_t i = 0; i < s->body_count; i++, p += ONESCOPE_SIM_BODY_BYTES) {
        const onescope_sim_body_state *b = &s->bodies[i];
        onescope_os_put_u32(p, (uint32_t)b->alive);
        onescope_os_put_u32(p + 4, (uint32_t)b->still_count);
        for (int k = 0; k < 3; k++) {
            onescope_os_put_u32(p + 8 + 4 * k, (uint32_t)b->position[k]);
            onescope_os_put_u32(p + 20 + 4 * k, (uint32_t)b->velocity[k]);
        }
    }
#endif
    return size;
}

uint64_t onescope_hash_bytes(const void *data, size_t size) {
    return XXH3_64bits(data, size);
}

uint64_t onescope_sim_hash(const onescope_sim *s) {
    uint8_t buf[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(s, buf, sizeof buf);
    return XXH3_64bits(buf, n);
}

/* ---- fields ---- */

static const onescope_field_overlay overlays[ONESCOPE_FIELD_COUNT] = {
    {"density", ONESCOPE_FIELD_AT_VERTEX, "vertex", ONESCOPE_SIM_GRID, ONESCOPE_SIM_GRID,
     ONESCOPE_SIM_GRID_VERTICES, 0, CELL *CELL, "viridis"},
    {"occupancy", ONESCOPE_FIELD_AT_TRIANGLE, "triangle", ONESCOPE_SIM_GRID, ONESCOPE_SIM_GRID,
     ONESCOPE_SIM_GRID_TRIANGLES, 0, 4, "inferno"},
};

const onescope_field_overlay *onescope_field_describe(onescope_field_id field) {
    if ((unsigned)field >= ONESCOPE_FIELD_COUNT) return NULL;
    return &overlays[field];
}

bool onescope_sim_has_fields(const onescope_sim *s) {
    return s != NULL && s->def.link.role != ONESCOPE_LINK_ROLE_NONE;
}

onescope_code onescope_sim_field(const onescope_sim *s, onescope_field_id field, int32_t *out,
                                 size_t count, onescope_error *error) {
    const char *name = "onescope_sim_field";
    const onescope_field_overlay *o = onescope_field_describe(field);
    if (s == NULL || o == NULL || out == NULL || count < o->value_count)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "field",
                                "a world, a known field and room for its values", NULL);
    if (!onescope_sim_has_fields(s))
        return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, name, OS_NO_OFFSET, "fields",
                                "a world with a link block", "none");
    memset(out, 0, o->value_count * sizeof *out);
    int floor_axis = s->def.setup.dimensions == 3 ? 2 : 1; /* the grid's second axis */
    for (uint32_t i = 0; i < s->body_count; i++) {
        const onescope_sim_body_state *b = &s->bodies[i];
        if (!b->alive) continue;
        int32_t u = b->position[0], w = b->position[floor_axis];
        int32_t ci = u / CELL, cj = w / CELL;
        if (ci > 7) ci = 7;
        if (cj > 7) cj = 7;
        int32_t fu = u - ci * CELL, fw = w - cj * CELL; /* 0..1250 */
        if (field == ONESCOPE_FIELD_DENSITY) {
            /* Bilinear weights summing to 1250^2; 64 bodies stay below 10^8. */
            int32_t v0 = cj * 9 + ci;
            out[v0] += (CELL - fu) * (CELL - fw);
            out[v0 + 1] += fu * (CELL - fw);
            out[v0 + 9] += (CELL - fu) * fw;
            out[v0 + 10] += fu * fw;
        } else {
            int32_t t = 2 * (cj * 8 + ci) + (fu + fw < CELL ? 0 : 1);
            out[t] += 1;
        }
    }
    return ONESCOPE_OK;
}
