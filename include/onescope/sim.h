/* The integer test module: up to 64 bodies bouncing in a 10 m box measured in millimetres,
 * integers only, identical results everywhere. Every rule: docs/test-module.md. */
#ifndef ONESCOPE_SIM_H
#define ONESCOPE_SIM_H

#include <stdbool.h>

#include "onescope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- bounds (every value the world holds stays inside these) ---- */

#define ONESCOPE_SIM_MAX_BODIES 64u
#define ONESCOPE_SIM_BOX 10000           /* coordinates are 0..10000 mm inclusive */
#define ONESCOPE_SIM_MAX_SPEED 1000      /* each velocity component is -1000..1000 mm/step */
#define ONESCOPE_SIM_MAX_GRAVITY 1000    /* gravity is -1000..1000 mm/step/step */
#define ONESCOPE_SIM_START_GRAVITY 10    /* a world made from a setup starts with this gravity */
#define ONESCOPE_SIM_SNAPSHOT_HEADER 12u /* u64 host step, i32 gravity */
#define ONESCOPE_SIM_BODY_BYTES 32u      /* eight i32 per body */
#define ONESCOPE_SIM_MAX_SNAPSHOT (ONESCOPE_SIM_SNAPSHOT_HEADER + 64u * ONESCOPE_SIM_BODY_BYTES)
#define ONESCOPE_SIM_GRID 8u             /* fields: an 8 x 8 floor grid */
#define ONESCOPE_SIM_GRID_VERTICES 81u   /* 9 x 9 */
#define ONESCOPE_SIM_GRID_TRIANGLES 128u /* 8 x 8 cells x 2 */
#define ONESCOPE_SIM_MAX_INPUT 65535u    /* a step's input is at most a u16 length */

/* The 6-byte setup of an OSTM file (and of the live stream's probe). */
typedef struct onescope_sim_setup {
    uint8_t dimensions; /* 2 or 3 */
    uint8_t body_count; /* 1..64 */
    uint32_t seed;
} onescope_sim_setup;

typedef enum onescope_link_role {
    ONESCOPE_LINK_ROLE_NONE = 0,     /* no link block */
    ONESCOPE_LINK_ROLE_SENDER = 1,   /* removes `body` when the host step reaches `transfer_step` */
    ONESCOPE_LINK_ROLE_RECEIVER = 2, /* holds `body` only from `transfer_step` on */
    ONESCOPE_LINK_ROLE_FIELDS = 3    /* neither: declares the fields only (body and step are 0) */
} onescope_link_role;

/* The 4-byte link block. Any role other than NONE also declares the two fields. */
typedef struct onescope_link_block {
    uint8_t role;           /* onescope_link_role */
    uint8_t body;           /* roles 1 and 2: < setup body_count; role 3: 0 */
    uint16_t transfer_step; /* roles 1 and 2: any (past the last step: never happens); role 3: 0 */
} onescope_link_block;

typedef enum onescope_link_kind {
    ONESCOPE_LINK_KIND_NONE = 0,
    ONESCOPE_LINK_KIND_CONTINUED_BY = 1, /* the sender: its body is continued by the other world */
    ONESCOPE_LINK_KIND_CONTINUES = 2     /* the receiver: its body continues the other world's */
} onescope_link_kind;

/* The link a world declares, as a viewer shows it. Keys are static strings. */
typedef struct onescope_link_info {
    onescope_link_kind kind;
    const char *kind_name; /* "ContinuedBy", "Continues" or "" */
    const char *own_key;   /* sender "tm-left", receiver "tm-right", else "" */
    const char *other_key; /* sender "tm-right", receiver "tm-left", else "" */
    uint8_t body;
    uint16_t step;
} onescope_link_info;

/* The link a block declares (kind NONE for NULL, role NONE or role FIELDS). */
ONESCOPE_API onescope_link_info onescope_link_describe(const onescope_link_block *link);

/* Checks a setup (and link, may be NULL) as the OSTM parser does: dimensions 2 or 3 (RANGE),
 * body count 1..64 (RANGE), link role 0..3 (RANGE), roles 1/2 body < body count (RANGE),
 * role 3 body and step 0 (RESERVED). Offsets in the error are those of an OSTM file. */
ONESCOPE_API onescope_code onescope_sim_setup_check(const onescope_sim_setup *setup,
                                                    const onescope_link_block *link,
                                                    const char *name, onescope_error *error);

/* The 6 setup bytes (u8 dimensions, u8 body count, u32 seed, little-endian), as they open an
 * OSTM setup and the live stream's probe snapshot. */
#define ONESCOPE_SIM_SETUP_BYTES 6u
ONESCOPE_API void onescope_sim_setup_encode(const onescope_sim_setup *setup, uint8_t out[6]);
/* Reads and checks 6 setup bytes: TRUNCATED when size < 6 (at base_offset), RANGE for the
 * dimensions (base_offset) or body count (base_offset + 1). Extra bytes are the caller's. */
ONESCOPE_API onescope_code onescope_sim_setup_decode(const void *data, size_t size,
                                                     const char *name, uint64_t base_offset,
                                                     onescope_sim_setup *out,
                                                     onescope_error *error);

/* ---- operations (a step's input) ---- */

typedef enum onescope_op_code {
    ONESCOPE_OP_IMPULSE = 1,  /* body, dx dy dz: add to the velocity */
    ONESCOPE_OP_TELEPORT = 2, /* body, x y z: set the position */
    ONESCOPE_OP_REMOVE = 3,   /* body: alive = 0 */
    ONESCOPE_OP_GRAVITY = 4,  /* g: set the gravity (in value[0]) */
    ONESCOPE_OP_SPAWN = 5     /* x y z: a new body at rest at the next free index */
} onescope_op_code;

/* One decoded operation. Unused fields are 0 (body for 4 and 5, value[1..2] for 3 and 4). */
typedef struct onescope_op {
    uint8_t code; /* onescope_op_code */
    uint8_t body; /* 0..63 */
    int32_t value[3];
} onescope_op;

/* Encoded size of an operation with this code (1 + operands), 0 for an unknown code. */
ONESCOPE_API size_t onescope_op_size(uint8_t code);
/* The code's name: "impulse", "teleport", "remove", "gravity", "spawn"; "" for another. */
ONESCOPE_API const char *onescope_op_name(uint8_t code);
/* One operation as a person reads it: "impulse body 3 (10, -5, 0)", "remove body 2",
 * "gravity -9", "spawn (0, 500, 0)"; "operation N" for an unknown code. As snprintf: NUL
 * terminated when size > 0, returns the length the whole text needs. The one printer of the
 * test module's operations (its input description, dump, verify and diff use it). */
ONESCOPE_API int onescope_op_format(const onescope_op *op, char *buf, size_t size);

/* Walks the operations of one step's input. Rules (the parser's): an unknown code is
 * OPERATION at its offset; missing operand bytes are TRUNCATED at the operand's offset; a body
 * index >= 64 is RANGE; a non-zero z operand (impulse dz, teleport z, spawn z) in a 2D world
 * is RANGE. Error offsets are base_offset + the position inside data. */
typedef struct onescope_op_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    uint8_t dimensions;
    uint64_t base_offset;
    const char *name; /* input name for errors */
} onescope_op_reader;

ONESCOPE_API void onescope_op_reader_init(onescope_op_reader *r, uint8_t dimensions,
                                          const void *data, size_t size, const char *name,
                                          uint64_t base_offset);
/* 1: *op holds the next operation; 0: the end of the input; -1: an invalid operation
 * (error filled, the reader stays on it). */
ONESCOPE_API int onescope_op_reader_next(onescope_op_reader *r, onescope_op *op,
                                         onescope_error *error);
/* Checks a whole input (all operations valid); OK for an empty one. */
ONESCOPE_API onescope_code onescope_op_check_input(uint8_t dimensions, const void *data,
                                                   size_t size, const char *name,
                                                   uint64_t base_offset, onescope_error *error);
/* Encodes op into out (which needs onescope_op_size(op->code) bytes) after checking it as the
 * reader would; returns the bytes written, 0 on error. */
ONESCOPE_API size_t onescope_op_encode(uint8_t dimensions, const onescope_op *op, uint8_t *out,
                                       size_t capacity, onescope_error *error);

/* ---- the world ---- */

typedef struct onescope_sim onescope_sim;

/* A zeroed def is not a valid setup (dimensions 0), so a def must start from
 * onescope_sim_def_default(): it sets a private cookie that onescope_sim_create and
 * onescope_sim_create_from_snapshot check, refusing a def made without it with
 * ONESCOPE_E_ARGUMENT ("onescope_sim_def: ..."). */
typedef struct onescope_sim_def {
    onescope_sim_setup setup; /* default: 3D, 1 body, seed 0 */
    onescope_link_block link; /* default: role NONE (no link block, no fields) */
    uint32_t internal_cookie; /* set by onescope_sim_def_default(); do not touch */
} onescope_sim_def;

ONESCOPE_API onescope_sim_def onescope_sim_def_default(void);

/* A world from the setup: host step 0, gravity 10, bodies from the seed (docs). */
ONESCOPE_API onescope_code onescope_sim_create(const onescope_sim_def *def,
                                               const onescope_allocator *allocator,
                                               onescope_sim **out, onescope_error *error);

/* A world restored from a snapshot (the def gives dimensions, the minimum body count and the
 * link; the seed is unused). The snapshot is checked by onescope_sim_snapshot_check. */
ONESCOPE_API onescope_code onescope_sim_create_from_snapshot(
    const onescope_sim_def *def, const void *snapshot, size_t size, const char *name,
    const onescope_allocator *allocator, onescope_sim **out, onescope_error *error);

/* Checks snapshot bytes for a setup: length 12 + 32 n with n in body_count..64 (LENGTH at
 * base_offset), and every value in bounds (RANGE at its offset): gravity -1000..1000, alive 0 or
 * 1, still count >= 0, positions 0..10000, velocities -1000..1000, z position and velocity 0 in
 * 2D. Offsets are base_offset + the position inside the snapshot. */
ONESCOPE_API onescope_code onescope_sim_snapshot_check(const onescope_sim_setup *setup,
                                                       const void *snapshot, size_t size,
                                                       const char *name, uint64_t base_offset,
                                                       onescope_error *error);

ONESCOPE_API void onescope_sim_free(onescope_sim *sim);

/* The four stages of a step, in order. */
typedef enum onescope_sim_stage {
    ONESCOPE_SIM_STAGE_INPUT = 0,
    ONESCOPE_SIM_STAGE_GRAVITY = 1,
    ONESCOPE_SIM_STAGE_MOVE = 2,
    ONESCOPE_SIM_STAGE_BOOKKEEPING = 3
} onescope_sim_stage;
#define ONESCOPE_SIM_STAGE_COUNT 4

/* Runs one whole step with this input (NULL/0: none). The world must be at a step boundary
 * (BAD_STATE otherwise). An invalid input fails before anything changes (the world is left
 * as it was and stays usable). */
ONESCOPE_API onescope_code onescope_sim_step(onescope_sim *sim, const void *input, size_t size,
                                             onescope_error *error);

/* Runs the next stage only (see onescope_sim_next_stage). input is read only when that
 * stage is the input stage (it is checked first, as in onescope_sim_step) and ignored
 * otherwise. After the bookkeeping stage the world is at the next step boundary. */
ONESCOPE_API onescope_code onescope_sim_run_stage(onescope_sim *sim, const void *input, size_t size,
                                                  onescope_error *error);

/* The stage that runs next; ONESCOPE_SIM_STAGE_INPUT at a step boundary. */
ONESCOPE_API onescope_sim_stage onescope_sim_next_stage(const onescope_sim *sim);
/* A stage's name: "input", "gravity", "move", "bookkeeping". */
ONESCOPE_API const char *onescope_sim_stage_name(onescope_sim_stage stage);

/* ---- reading the world (valid between any two stages) ---- */

typedef struct onescope_sim_body_state {
    int32_t alive;       /* 1 or 0 (removed, or a receiver's body before it arrives) */
    int32_t still_count; /* consecutive steps its position did not change, 0..INT32_MAX */
    int32_t position[3]; /* mm, 0..10000; z 0 in 2D */
    int32_t velocity[3]; /* mm/step, -1000..1000; z 0 in 2D */
} onescope_sim_body_state;

ONESCOPE_API uint8_t onescope_sim_dimensions(const onescope_sim *sim);
/* The host step: the number of whole steps behind the world (a snapshot's first field). */
ONESCOPE_API uint64_t onescope_sim_host_step(const onescope_sim *sim);
ONESCOPE_API int32_t onescope_sim_gravity(const onescope_sim *sim);
/* Bodies the world holds, removed ones included (setup count + spawned), <= 64. */
ONESCOPE_API uint32_t onescope_sim_body_count(const onescope_sim *sim);
/* Copies body index into *out; ARGUMENT when index >= body count. */
ONESCOPE_API onescope_code onescope_sim_body(const onescope_sim *sim, uint32_t index,
                                             onescope_sim_body_state *out);
/* The def the world was made from (a world restored from a snapshot: its setup and link, the
 * seed as given). Not onescope_sim_def: that name is the type's. */
ONESCOPE_API onescope_sim_def onescope_sim_definition(const onescope_sim *sim);
/* The link the world declares (kind NONE without one). */
ONESCOPE_API onescope_link_info onescope_sim_link(const onescope_sim *sim);

/* Snapshot bytes: 12 + 32 x body count (little-endian whatever the host). */
ONESCOPE_API size_t onescope_sim_snapshot_size(const onescope_sim *sim);
/* Writes the snapshot into out; returns its size, or 0 when capacity is too small. */
ONESCOPE_API size_t onescope_sim_snapshot(const onescope_sim *sim, void *out, size_t capacity);
/* XXH3-64 (seed 0) of the snapshot bytes. */
ONESCOPE_API uint64_t onescope_sim_hash(const onescope_sim *sim);
/* XXH3-64 (seed 0) of any bytes (the same hash, for callers holding snapshot bytes). */
ONESCOPE_API uint64_t onescope_hash_bytes(const void *data, size_t size);

/* ---- fields (only in worlds with a link block) ---- */

typedef enum onescope_field_id {
    ONESCOPE_FIELD_DENSITY = 0,  /* per grid vertex (81) */
    ONESCOPE_FIELD_OCCUPANCY = 1 /* per triangle (128) */
} onescope_field_id;
#define ONESCOPE_FIELD_COUNT 2

typedef enum onescope_field_location {
    ONESCOPE_FIELD_AT_VERTEX = 0,
    ONESCOPE_FIELD_AT_TRIANGLE = 1
} onescope_field_location;

/* How a viewer draws a field. Strings are static. */
typedef struct onescope_field_overlay {
    const char *field; /* "density" or "occupancy" */
    onescope_field_location location;
    const char *location_name; /* "vertex" or "triangle" */
    uint32_t grid_columns;     /* 8 */
    uint32_t grid_rows;        /* 8 */
    uint32_t value_count;      /* 81 or 128 */
    int32_t value_min;
    int32_t value_max; /* values above are drawn at the top of the ramp */
    const char *ramp;  /* colour ramp name: "viridis" or "inferno" */
} onescope_field_overlay;

/* The overlay of a field, or NULL for an unknown id (named like onescope_link_describe). */
ONESCOPE_API const onescope_field_overlay *onescope_field_describe(onescope_field_id field);
/* True when the world declares the fields (it has a link block of any role). */
ONESCOPE_API bool onescope_sim_has_fields(const onescope_sim *sim);
/* Computes a field from the bodies as they are now into out (count >= value_count).
 * UNSUPPORTED when the world declares no fields, ARGUMENT for a bad id or a short array. */
ONESCOPE_API onescope_code onescope_sim_field(const onescope_sim *sim, onescope_field_id field,
                                              int32_t *out, size_t count, onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif
