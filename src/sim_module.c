/* The integer test module behind the module interface (include/onescope/module.h): a table of
 * thin calls into sim.c and sim_input.c. Its setup blob is an OSTM file's bytes 12..17 (the
 * setup) and, when the file has one, 18..21 (the link block), so a blob offset is the file
 * offset minus 12. docs/module.md, "The test module". */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/module.h"
#include "run_internal.h"
#include "onescope/sim.h"

#define SETUP_FILE_OFFSET 12u /* where the setup blob starts in an OSTM file */
#define LINK_BYTES 4u

/* Decodes a setup blob: 6 setup bytes, then 4 link bytes or nothing. */
static onescope_code decode_setup(const void *setup, size_t size, onescope_sim_def *def,
                                  onescope_error *error) {
    *def = onescope_sim_def_default();
    if (size != ONESCOPE_SIM_SETUP_BYTES && size != ONESCOPE_SIM_SETUP_BYTES + LINK_BYTES)
        return onescope_module_fail(error, ONESCOPE_E_LENGTH, 0, "setup",
                                    "6 setup bytes, then 4 link bytes or none",
                                    size < ONESCOPE_SIM_SETUP_BYTES ? "fewer" : "another length");
    onescope_error inner;
    onescope_error_clear(&inner);
    onescope_code rc = onescope_sim_setup_decode(setup, size, "", 0, &def->setup, &inner);
    if (rc == ONESCOPE_OK && size > ONESCOPE_SIM_SETUP_BYTES) {
        const uint8_t *l = (const uint8_t *)setup + ONESCOPE_SIM_SETUP_BYTES;
        def->link.role = l[0];
        def->link.body = l[1];
        def->link.transfer_step = onescope_os_get_u16(l + 2);
        if (def->link.role == ONESCOPE_LINK_ROLE_NONE) /* a block must declare a role */
            return onescope_module_fail(error, ONESCOPE_E_RANGE, ONESCOPE_SIM_SETUP_BYTES,
                                        "link role", "1, 2 or 3 (a block is present)", "0");
        rc = onescope_sim_setup_check(&def->setup, &def->link, "", &inner);
        if (rc != ONESCOPE_OK && inner.has_offset) inner.offset -= SETUP_FILE_OFFSET;
    }
    if (rc != ONESCOPE_OK && error != NULL) {
        *error = inner;
        error->input[0] = '\0'; /* the library names the input */
    }
    return rc;
}

static onescope_code tm_check_setup(void *context, const void *setup, size_t size,
                                    onescope_error *error) {
    (void)context;
    onescope_sim_def def;
    return decode_setup(setup, size, &def, error);
}

static onescope_code tm_create(void *context, const void *setup, size_t size,
                               const onescope_allocator *allocator, void **world,
                               onescope_error *error) {
    (void)context;
    onescope_sim_def def;
    OS_TRY(decode_setup(setup, size, &def, error));
    onescope_code rc = onescope_sim_create(&def, allocator, (onescope_sim **)world, error);
    if (rc != ONESCOPE_OK && error != NULL) error->input[0] = '\0';
    return rc;
}

static onescope_code tm_restore(void *context, const void *setup, size_t size, const void *snapshot,
                                size_t snapshot_size, const onescope_allocator *allocator,
                                void **world, onescope_error *error) {
    (void)context;
    onescope_sim_def def;
    OS_TRY(decode_setup(setup, size, &def, error));
    onescope_code rc = onescope_sim_create_from_snapshot(&def, snapshot, snapshot_size, "",
                                                         allocator, (onescope_sim **)world, error);
    if (rc != ONESCOPE_OK && error != NULL) error->input[0] = '\0';
    return rc;
}

static void tm_free(void *context, void *world) {
    (void)context;
    onescope_sim_free(world);
}

static onescope_code tm_step(void *context, void *world, const void *input, size_t size,
                             onescope_error *error) {
    (void)context;
    onescope_code rc = onescope_sim_step(world, input, size, error);
    if (rc != ONESCOPE_OK && error != NULL) error->input[0] = '\0';
    return rc;
}

static uint64_t tm_hash(void *context, const void *world) {
    (void)context;
    return onescope_sim_hash(world);
}

static onescope_code tm_check_input(void *context, const void *setup, size_t setup_size,
                                    const void *input, size_t size, onescope_error *error) {
    (void)context;
    onescope_sim_def def;
    OS_TRY(decode_setup(setup, setup_size, &def, error));
    if (size > ONESCOPE_SIM_MAX_INPUT) {
        char found[32];
        snprintf(found, sizeof found, "%zu bytes", size);
        return onescope_module_fail(error, ONESCOPE_E_LENGTH, 0, "input", "at most 65535 bytes",
                                    found);
    }
    onescope_code rc = onescope_op_check_input(def.setup.dimensions, input, size, "", 0, error);
    if (rc != ONESCOPE_OK && error != NULL) error->input[0] = '\0';
    return rc;
}

static const char *const tm_stage_names[ONESCOPE_SIM_STAGE_COUNT] = {"input", "gravity", "move",
                                                                     "bookkeeping"};

static onescope_code tm_run_stage(void *context, void *world, uint32_t stage, const void *input,
                                  size_t size, onescope_error *error) {
    (void)context;
    if (stage != (uint32_t)onescope_sim_next_stage(world))
        return onescope_module_fail(error, ONESCOPE_E_BAD_STATE, ONESCOPE_MODULE_NO_OFFSET, "stage",
                                    "the world's next stage", "another stage");
    onescope_code rc = onescope_sim_run_stage(world, input, size, error);
    if (rc != ONESCOPE_OK && error != NULL) error->input[0] = '\0';
    return rc;
}

static onescope_code tm_snapshot(void *context, const void *world, onescope_module_sink *out,
                                 onescope_error *error) {
    (void)context;
    uint8_t bytes[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(world, bytes, sizeof bytes);
    onescope_code rc = onescope_module_sink_append(out, bytes, n);
    if (rc != ONESCOPE_OK)
        return onescope_module_fail(error, rc, ONESCOPE_MODULE_NO_OFFSET, "snapshot",
                                    "room for the snapshot", "none");
    return ONESCOPE_OK;
}

static uint32_t tm_entity_count(void *context, const void *world) {
    (void)context;
    return onescope_sim_body_count(world);
}

static uint64_t tm_entity_id(void *context, const void *world, uint32_t index) {
    (void)context;
    (void)world;
    return index; /* a body keeps its index for the world's life: removal never reuses one */
}

static bool tm_entity_pose(void *context, const void *world, uint32_t index, onescope_pose *out) {
    (void)context;
    onescope_sim_body_state b;
    memset(out, 0, sizeof *out);
    out->rotation[3] = 1.0f;
    if (onescope_sim_body(world, index, &b) != ONESCOPE_OK || !b.alive) return false;
    /* 0..10000 mm: every coordinate is exact in a float */
    for (int a = 0; a < 3; a++) out->position[a] = (float)b.position[a];
    return true;
}

enum { G_STATE, G_POSITION, G_VELOCITY };
static const char *const tm_group_names[3] = {"state", "position", "velocity"};
static const onescope_value_info tm_values[8] = {
    {"alive", "", ONESCOPE_VALUE_BOOL, G_STATE},
    {"still_count", "steps", ONESCOPE_VALUE_I32, G_STATE},
    {"position.x", "mm", ONESCOPE_VALUE_I32, G_POSITION},
    {"position.y", "mm", ONESCOPE_VALUE_I32, G_POSITION},
    {"position.z", "mm", ONESCOPE_VALUE_I32, G_POSITION},
    {"velocity.x", "mm/step", ONESCOPE_VALUE_I32, G_VELOCITY},
    {"velocity.y", "mm/step", ONESCOPE_VALUE_I32, G_VELOCITY},
    {"velocity.z", "mm/step", ONESCOPE_VALUE_I32, G_VELOCITY},
};

static void tm_entity_values(void *context, const void *world, uint32_t index, double *out) {
    (void)context;
    onescope_sim_body_state b = {0};
    (void)onescope_sim_body(world, index, &b); /* index < count: the library checked */
    out[0] = b.alive;
    out[1] = b.still_count;
    for (int a = 0; a < 3; a++) {
        out[2 + a] = b.position[a];
        out[5 + a] = b.velocity[a];
    }
}

/* The world's own quantities: its gravity, and the two floor fields of a world with a link
 * block (NaN in a world without one: it has no fields). Fields follow from the bodies, so
 * they differ only where bodies do; diff lists them after the bodies' values. */
static const onescope_world_value_info tm_world_values[3] = {
    {"gravity", "mm/step^2", ONESCOPE_VALUE_I32, 1},
    {"density", "", ONESCOPE_VALUE_I32, ONESCOPE_SIM_GRID_VERTICES},
    {"occupancy", "", ONESCOPE_VALUE_I32, ONESCOPE_SIM_GRID_TRIANGLES},
};

static void tm_read_world_values(void *context, const void *world, double *out) {
    (void)context;
    out[0] = onescope_sim_gravity(world);
    int32_t cells[ONESCOPE_SIM_GRID_TRIANGLES];
    static const onescope_field_id fields[2] = {ONESCOPE_FIELD_DENSITY, ONESCOPE_FIELD_OCCUPANCY};
    size_t at = 1;
    for (int f = 0; f < 2; f++) {
        size_t n = tm_world_values[1 + f].count;
        bool has = onescope_sim_has_fields(world) &&
                   onescope_sim_field(world, fields[f], cells, n, NULL) == ONESCOPE_OK;
        for (size_t i = 0; i < n; i++) out[at + i] = has ? (double)cells[i] : (double)NAN;
        at += n;
    }
}

static onescope_code tm_describe_input(void *context, const void *setup, size_t setup_size,
                                       const void *input, size_t size, onescope_module_sink *text,
                                       onescope_error *error) {
    onescope_sim_def def;
    OS_TRY(tm_check_input(context, setup, setup_size, input, size, error));
    OS_TRY(decode_setup(setup, setup_size, &def, error));
    onescope_op_reader r;
    onescope_op_reader_init(&r, def.setup.dimensions, input, size, "", 0);
    onescope_op op;
    bool first = true;
    while (onescope_op_reader_next(&r, &op, NULL) == 1) {
        char line[96];
        int n = onescope_op_format(&op, line, sizeof line);
        if ((!first && onescope_module_sink_append(text, "; ", 2) != ONESCOPE_OK) ||
            onescope_module_sink_append(text, line, (size_t)n) != ONESCOPE_OK)
            return onescope_module_fail(error, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, "text",
                                        "room for the description", "none");
        first = false;
    }
    if (first && onescope_module_sink_append(text, "no operation", 12) != ONESCOPE_OK)
        return onescope_module_fail(error, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, "text",
                                    "room for the description", "none");
    return ONESCOPE_OK;
}

static const onescope_module test_module = {
    .struct_size = sizeof(onescope_module),
    .abi = ONESCOPE_MODULE_ABI,
    .id = "onescope.test",
    .version = "1",
    .context = NULL,
    .create = tm_create,
    .free = tm_free,
    .step = tm_step,
    .hash = tm_hash,
    .check_setup = tm_check_setup,
    .check_input = tm_check_input,
    .stage_count = ONESCOPE_SIM_STAGE_COUNT,
    .stage_names = tm_stage_names,
    .run_stage = tm_run_stage,
    .snapshot = tm_snapshot,
    .restore = tm_restore,
    .entity_count = tm_entity_count,
    .entity_id = tm_entity_id,
    .entity_pose = tm_entity_pose,
    .value_count = 8,
    .values = tm_values,
    .group_count = 3,
    .group_names = tm_group_names,
    .entity_values = tm_entity_values,
    .describe_input = tm_describe_input,
    .metres_per_unit = 0.001, /* positions are millimetres */
    .unit_name = "mm",
    .world_value_count = 3,
    .world_values = tm_world_values,
    .read_world_values = tm_read_world_values,
    .flags = ONESCOPE_MODULE_IDS_FROM_ZERO, /* body indexes: a ghost's body i is i + 1 */
};

const onescope_module *onescope_module_test(void) {
    return &test_module;
}

size_t onescope_os_test_setup_blob(const onescope_sim_setup *setup, const onescope_link_block *link,
                                   uint8_t out[10]) {
    onescope_sim_setup_encode(setup, out);
    if (link == NULL || link->role == ONESCOPE_LINK_ROLE_NONE) return ONESCOPE_SIM_SETUP_BYTES;
    uint8_t *l = out + ONESCOPE_SIM_SETUP_BYTES;
    l[0] = (uint8_t)link->role;
    l[1] = link->body;
    onescope_os_put_u16(l + 2, link->transfer_step);
    return ONESCOPE_SIM_SETUP_BYTES + LINK_BYTES;
}
