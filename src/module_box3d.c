/* The Box3D SoA world as a module (docs/box3d-module.md): the setup is a scene document, one
 * step's input a list of actions on bodies, two stages ("input", "step"), a hash over the raw
 * bits of every body's state, bodies as entities with their named values. Box3D decides every
 * outcome; this file only turns bytes into calls of src/soa_world.c. Without Box3D the table
 * does not exist (onescope_module_box3d returns NULL). */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/module.h"
#include "onescope/soa_scene.h"
#include "onescope/soa_world.h"

#if !defined(ONESCOPE_HAVE_BOX3D)

const onescope_module *onescope_module_box3d(void) {
    return NULL;
}

#else

#include <box3d/box3d.h>
#include <xxhash.h>

/* The input's actions: a code byte, the body's id (u32, its stable id), then the vector. */
enum {
    OP_FORCE = 1,
    OP_TORQUE = 2,
    OP_LINEAR_IMPULSE = 3,
    OP_ANGULAR_IMPULSE = 4,
    OP_SET_LINEAR_VELOCITY = 5,
    OP_SET_ANGULAR_VELOCITY = 6,
    OP_SET_TRANSFORM = 7,
    OP_REMOVE = 8,
    OP_LAST = OP_REMOVE
};

static const char *const op_names[OP_LAST + 1] = {"?",
                                                  "force",
                                                  "torque",
                                                  "linear impulse",
                                                  "angular impulse",
                                                  "set linear velocity",
                                                  "set angular velocity",
                                                  "set transform",
                                                  "remove"};

/* The floats after an action's id. */
static uint32_t op_floats(uint8_t op) {
    return op == OP_REMOVE ? 0 : op == OP_SET_TRANSFORM ? 7 : 3;
}

typedef struct bw_world {
    onescope_soa_world *soa;
    onescope_soa_view view;
    float dt;
    int substeps;
    uint8_t *scratch; /* one hash's bytes */
    size_t scratch_size;
    const onescope_allocator *allocator;
} bw_world;

/* Each body's bytes in the hash: kind (i32), awake (u8), 13 floats. */
#define BODY_HASH_BYTES (4u + 1u + 13u * 4u)

static onescope_code bw_check_setup(void *c, const void *setup, size_t size,
                                    onescope_error *error) {
    (void)c;
    onescope_soa_scene *scene = NULL;
    onescope_code rc = onescope_soa_scene_parse(setup, size, "setup", NULL, &scene, error);
    onescope_soa_scene_free(scene);
    return rc;
}

static onescope_code bw_check_input(void *c, const void *setup, size_t setup_size,
                                    const void *input, size_t size, onescope_error *error) {
    (void)c, (void)setup, (void)setup_size;
    const uint8_t *p = input;
    for (size_t at = 0; at < size;) {
        uint8_t op = p[at];
        if (op == 0 || op > OP_LAST)
            return onescope_module_fail(error, ONESCOPE_E_RANGE, at, "action",
                                        "an action code 1..8", "another byte");
        size_t need = 5 + 4 * (size_t)op_floats(op);
        if (size - at < need)
            return onescope_module_fail(error, ONESCOPE_E_TRUNCATED, at, op_names[op],
                                        "the whole action", "the input ends inside it");
        if (onescope_os_get_u32(p + at + 1) == 0)
            return onescope_module_fail(error, ONESCOPE_E_RANGE, at + 1, "body",
                                        "a body id (1 and up)", "0");
        for (uint32_t k = 0; k < op_floats(op); k++) {
            uint32_t bits = onescope_os_get_u32(p + at + 5 + 4 * k);
            float f;
            memcpy(&f, &bits, 4);
            if (!isfinite(f))
                return onescope_module_fail(error, ONESCOPE_E_NOT_FINITE, at + 5 + 4 * k,
                                            op_names[op], "finite numbers", "not finite");
        }
        at += need;
    }
    return ONESCOPE_OK;
}

static void bw_free(void *c, void *world) {
    (void)c;
    bw_world *w = world;
    if (w == NULL) return;
    onescope_soa_world_free(w->soa);
    onescope_os_free(w->allocator, w->scratch);
    onescope_os_free(w->allocator, w);
}

static onescope_code bw_create(void *c, const void *setup, size_t size, const onescope_allocator *a,
                               void **out, onescope_error *error) {
    (void)c;
    *out = NULL;
    onescope_soa_scene *scene = NULL;
    OS_TRY(onescope_soa_scene_parse(setup, size, "setup", NULL, &scene, error));
    bw_world *w = onescope_os_calloc(a, 1, sizeof *w);
    onescope_code rc = w != NULL ? ONESCOPE_OK
                                 : onescope_os_fail(error, ONESCOPE_E_NOMEM, "setup", OS_NO_OFFSET,
                                                    "world", NULL, "could not allocate it");
    if (rc == ONESCOPE_OK) {
        w->allocator = a;
        w->dt = scene->dt;
        w->substeps = scene->substeps;
        rc = onescope_soa_scene_create_world(scene, a, &w->soa, error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_soa_world_view(w->soa, &w->view, error);
    if (rc == ONESCOPE_OK) {
        w->scratch_size = (size_t)scene->body_count * BODY_HASH_BYTES;
        w->scratch = onescope_os_alloc(a, w->scratch_size ? w->scratch_size : 1);
        if (w->scratch == NULL)
            rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, "setup", OS_NO_OFFSET, "world", NULL,
                                  "could not allocate %zu bytes", w->scratch_size);
    }
    onescope_soa_scene_free(scene);
    if (rc != ONESCOPE_OK) {
        bw_free(NULL, w);
        return rc;
    }
    *out = w;
    return ONESCOPE_OK;
}

/* The body an action names, by id: there, not removed and dynamic, else the action's error.
 * A step's errors carry no offset (the library knows the file's, not the module): the field
 * says which byte of the input. */
static onescope_code body_of(const bw_world *w, const uint8_t *p, size_t at, uint32_t *index,
                             onescope_error *error) {
    uint32_t id = onescope_os_get_u32(p + at + 1), n = w->view.live->count;
    const char *why = id == 0 || id > n                                 ? "no such body"
                      : w->view.kind[id - 1] == ONESCOPE_SOA_REMOVED    ? "a body removed earlier"
                      : w->view.kind[id - 1] == ONESCOPE_SOA_STATIC_BOX ? "a static box"
                                                                        : NULL;
    if (why == NULL) {
        *index = id - 1;
        return ONESCOPE_OK;
    }
    char field[64], found[96];
    snprintf(field, sizeof field, "input byte %zu: %s body", at + 1, op_names[p[at]]);
    snprintf(found, sizeof found, "id %" PRIu32 ", %s (bodies: %" PRIu32 ")", id, why, n);
    return onescope_module_fail(error, id == 0 || id > n ? ONESCOPE_E_RANGE : ONESCOPE_E_BAD_STATE,
                                ONESCOPE_MODULE_NO_OFFSET, field, "a dynamic body of the world",
                                found);
}

/* The "input" stage: every action in order. Forces and torques go to the write lanes (the step
 * applies them); the others act at once. */
static onescope_code apply_input(bw_world *w, const uint8_t *p, size_t size,
                                 onescope_error *error) {
    OS_TRY(bw_check_input(NULL, NULL, 0, p, size, error));
    for (size_t at = 0; at < size;) {
        uint8_t op = p[at];
        uint32_t i = 0;
        OS_TRY(body_of(w, p, at, &i, error));
        float v[7] = {0};
        for (uint32_t k = 0; k < op_floats(op); k++) {
            uint32_t bits = onescope_os_get_u32(p + at + 5 + 4 * k);
            memcpy(&v[k], &bits, 4);
        }
        onescope_code rc = ONESCOPE_OK;
        if (op == OP_FORCE || op == OP_TORQUE) {
            float *x = op == OP_FORCE ? w->view.force_x : w->view.torque_x;
            float *y = op == OP_FORCE ? w->view.force_y : w->view.torque_y;
            float *z = op == OP_FORCE ? w->view.force_z : w->view.torque_z;
            x[i] += v[0], y[i] += v[1], z[i] += v[2];
        } else if (op == OP_SET_TRANSFORM) {
            rc = onescope_soa_world_set_transform(w->soa, i, v, v + 3, error);
        } else if (op == OP_REMOVE) {
            rc = onescope_soa_world_remove_body(w->soa, i, error);
        } else {
            rc = onescope_soa_world_act(
                w->soa, i, op - OP_LINEAR_IMPULSE + ONESCOPE_SOA_LINEAR_IMPULSE, v, error);
        }
        if (rc != ONESCOPE_OK) return rc; /* the SoA world's own refusal */
        at += 5 + 4 * (size_t)op_floats(op);
    }
    return ONESCOPE_OK;
}

static const char *const bw_stage_names[2] = {"input", "step"};

static onescope_code bw_run_stage(void *c, void *world, uint32_t stage, const void *input,
                                  size_t size, onescope_error *error) {
    (void)c;
    bw_world *w = world;
    if (stage == 0) return apply_input(w, input, size, error);
    return onescope_soa_world_step(w->soa, w->dt, w->substeps, error);
}

static onescope_code bw_step(void *c, void *world, const void *input, size_t size,
                             onescope_error *error) {
    OS_TRY(bw_run_stage(c, world, 0, input, size, error));
    return bw_run_stage(c, world, 1, input, size, error);
}

/* Body i's 13 floats in the value order: position, rotation, linear and angular velocity. */
static void body_floats(const bw_world *w, uint32_t i, float f[13]) {
    const onescope_soa_view *v = &w->view;
    const float *lanes[13] = {v->position_x,        v->position_y,         v->position_z,
                              v->rotation_x,        v->rotation_y,         v->rotation_z,
                              v->rotation_w,        v->linear_velocity_x,  v->linear_velocity_y,
                              v->linear_velocity_z, v->angular_velocity_x, v->angular_velocity_y,
                              v->angular_velocity_z};
    for (int k = 0; k < 13; k++) f[k] = lanes[k][i];
}

static uint64_t bw_hash(void *c, const void *world) {
    (void)c;
    const bw_world *w = world;
    uint32_t n = w->view.live->count;
    uint8_t *b = w->scratch;
    for (uint32_t i = 0; i < n; i++, b += BODY_HASH_BYTES) {
        float f[13];
        body_floats(w, i, f);
        onescope_os_put_u32(b, (uint32_t)w->view.kind[i]);
        b[4] = onescope_soa_world_awake(w->soa, i) ? 1 : 0;
        for (int k = 0; k < 13; k++) {
            uint32_t bits;
            memcpy(&bits, &f[k], 4);
            onescope_os_put_u32(b + 5 + 4 * k, bits);
        }
    }
    return XXH3_64bits(w->scratch, (size_t)n * BODY_HASH_BYTES);
}

static uint32_t bw_entity_count(void *c, const void *world) {
    (void)c;
    return ((const bw_world *)world)->view.live->count;
}

static uint64_t bw_entity_id(void *c, const void *world, uint32_t i) {
    (void)c;
    return ((const bw_world *)world)->view.stable_id[i];
}

static bool bw_entity_pose(void *c, const void *world, uint32_t i, onescope_pose *out) {
    (void)c;
    const bw_world *w = world;
    memset(out, 0, sizeof *out);
    if (w->view.kind[i] == ONESCOPE_SOA_REMOVED) return false;
    float f[13];
    body_floats(w, i, f);
    memcpy(out->position, f, 3 * sizeof(float));
    memcpy(out->rotation, f + 3, 4 * sizeof(float));
    return true;
}

static const onescope_value_info bw_values[14] = {
    {"position.x", "m", ONESCOPE_VALUE_F32, 0},
    {"position.y", "m", ONESCOPE_VALUE_F32, 0},
    {"position.z", "m", ONESCOPE_VALUE_F32, 0},
    {"rotation.x", "", ONESCOPE_VALUE_F32, 1},
    {"rotation.y", "", ONESCOPE_VALUE_F32, 1},
    {"rotation.z", "", ONESCOPE_VALUE_F32, 1},
    {"rotation.w", "", ONESCOPE_VALUE_F32, 1},
    {"linear_velocity.x", "m/s", ONESCOPE_VALUE_F32, 2},
    {"linear_velocity.y", "m/s", ONESCOPE_VALUE_F32, 2},
    {"linear_velocity.z", "m/s", ONESCOPE_VALUE_F32, 2},
    {"angular_velocity.x", "rad/s", ONESCOPE_VALUE_F32, 3},
    {"angular_velocity.y", "rad/s", ONESCOPE_VALUE_F32, 3},
    {"angular_velocity.z", "rad/s", ONESCOPE_VALUE_F32, 3},
    {"awake", "", ONESCOPE_VALUE_BOOL, 4},
};
static const char *const bw_groups[5] = {"position", "rotation", "linear velocity",
                                         "angular velocity", "awake"};

static void bw_entity_values(void *c, const void *world, uint32_t i, double *out) {
    (void)c;
    const bw_world *w = world;
    float f[13];
    body_floats(w, i, f);
    for (int k = 0; k < 13; k++) out[k] = f[k];
    out[13] = onescope_soa_world_awake(w->soa, i) ? 1.0 : 0.0;
}

static onescope_code bw_describe(void *c, const void *setup, size_t setup_size, const void *input,
                                 size_t size, onescope_module_sink *text, onescope_error *error) {
    OS_TRY(bw_check_input(c, setup, setup_size, input, size, error));
    const uint8_t *p = input;
    char one[256];
    if (size == 0) return onescope_module_sink_append(text, "no action", 9);
    for (size_t at = 0; at < size; at += 5 + 4 * (size_t)op_floats(p[at])) {
        uint8_t op = p[at];
        int n = snprintf(one, sizeof one, "%s%s body %" PRIu32, at ? "; " : "", op_names[op],
                         onescope_os_get_u32(p + at + 1));
        for (uint32_t k = 0; k < op_floats(op); k++) {
            uint32_t bits = onescope_os_get_u32(p + at + 5 + 4 * k);
            float f;
            memcpy(&f, &bits, 4);
            n += snprintf(one + n, sizeof one - (size_t)n, "%s%.9g", k ? ", " : " (", (double)f);
        }
        if (op_floats(op)) n += snprintf(one + n, sizeof one - (size_t)n, ")");
        OS_TRY(onescope_module_sink_append(text, one, (size_t)n));
    }
    return ONESCOPE_OK;
}

static char bw_version[64];
static onescope_module bw_table;

static void bw_init(void) {
    b3Version v = b3GetVersion();
    snprintf(bw_version, sizeof bw_version, "1 (box3d %d.%d.%d)", v.major, v.minor, v.revision);
    onescope_module t = {
        .struct_size = sizeof(onescope_module),
        .abi = ONESCOPE_MODULE_ABI,
        .id = "onescope.box3d",
        .version = bw_version,
        .create = bw_create,
        .free = bw_free,
        .step = bw_step,
        .hash = bw_hash,
        .check_setup = bw_check_setup,
        .check_input = bw_check_input,
        .stage_count = sizeof bw_stage_names / sizeof bw_stage_names[0],
        .stage_names = bw_stage_names,
        .run_stage = bw_run_stage,
        .entity_count = bw_entity_count,
        .entity_id = bw_entity_id,
        .entity_pose = bw_entity_pose,
        .value_count = sizeof bw_values / sizeof bw_values[0],
        .values = bw_values,
        .group_count = sizeof bw_groups / sizeof bw_groups[0],
        .group_names = bw_groups,
        .entity_values = bw_entity_values,
        .describe_input = bw_describe,
        .metres_per_unit = 1.0,
        .unit_name = "m",
        .dimensions = 3,
    };
    bw_table = t;
}

const onescope_module *onescope_module_box3d(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, bw_init);
    return &bw_table;
}

#endif
