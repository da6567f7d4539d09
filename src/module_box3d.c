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
#include "numfmt.h"
#include "onescope/module.h"
#include "onescope/soa_scene.h"
#include "onescope/soa_world.h"
#include "soa_internal.h"

#if !defined(ONESCOPE_HAVE_BOX3D)

const onescope_module *onescope_module_box3d(void) {
    return NULL;
}

#else

#include <box3d/box3d.h>
#include <stdlib.h>
#include <sys/random.h>
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
    uint64_t setup_digest; /* XXH3 of the setup: a snapshot names the setup it belongs to */
    uint8_t *scratch;      /* one hash's bytes */
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
        w->setup_digest = XXH3_64bits(setup, size);
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
            /* the one printer's shortest text of the float: never the locale, never %g */
            n += snprintf(one + n, sizeof one - (size_t)n, "%s%s", k ? ", " : " (",
                          onescope_os_num_float(f).s);
        }
        if (op_floats(op)) n += snprintf(one + n, sizeof one - (size_t)n, ")");
        OS_TRY(onescope_module_sink_append(text, one, (size_t)n));
    }
    return ONESCOPE_OK;
}

/* ---- snapshot and restore (docs/box3d-module.md, "Snapshots") ---- */

/* A snapshot: "OB3S", u32 version 1, u64 tag, u64 the setup's XXH3, then the SoA world's image.
 * Box3D restores its part as a raw image whose inner indices it does not check, so only bytes
 * known to be a snapshot made by this module reach it: ones this process made (the last
 * RECENT of them, remembered by a keyed hash under a key of the process), or ones whose tag is
 * SipHash-2-4 over everything after the tag under ONESCOPE_SNAPSHOT_KEY, when that is set. The
 * tag is 0 without it, so that snapshots (and the recordings holding them) are the same bytes
 * in every run. */
#define SNAP_HEAD 24u
#define RECENT 4096u
static const uint8_t snap_magic[4] = {'O', 'B', '3', 'S'};

static struct {
    uint8_t process[16]; /* random, never leaves the process */
    uint8_t shared[16];  /* ONESCOPE_SNAPSHOT_KEY */
    bool has_shared;
    const char *problem; /* why snapshots cannot be made or restored, or NULL */
    pthread_mutex_t lock;
    uint64_t recent[RECENT]; /* keyed hashes of the snapshots made, a ring */
    uint32_t next;
} snap = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void snap_keys_init(void) {
    for (size_t got = 0; got < sizeof snap.process;) {
        ssize_t k = getrandom(snap.process + got, sizeof snap.process - got, 0);
        if (k <= 0) {
            snap.problem = "the system gave no random bytes for the process's key";
            return;
        }
        got += (size_t)k;
    }
    const char *env = getenv("ONESCOPE_SNAPSHOT_KEY");
    if (env == NULL || env[0] == '\0') return;
    for (int i = 0; i < 32; i++) {
        char ch = env[i];
        int v = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (v < 0) {
            snap.problem = "ONESCOPE_SNAPSHOT_KEY is not 32 hex digits";
            return;
        }
        snap.shared[i / 2] = (uint8_t)(snap.shared[i / 2] << 4 | v);
    }
    if (env[32] != '\0')
        snap.problem = "ONESCOPE_SNAPSHOT_KEY is not 32 hex digits";
    else
        snap.has_shared = true;
}

static onescope_code snap_keys(onescope_error *error) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, snap_keys_init);
    if (snap.problem == NULL) return ONESCOPE_OK;
    return onescope_module_fail(error, ONESCOPE_E_ARGUMENT, ONESCOPE_MODULE_NO_OFFSET,
                                "snapshot key", "32 hex digits, or none", snap.problem);
}

/* true: this process made these bytes (one of its last RECENT snapshots). */
static bool snap_made_here(const uint8_t *p, size_t size, bool remember) {
    uint64_t h = onescope_os_siphash(snap.process, p, size);
    pthread_mutex_lock(&snap.lock);
    bool found = false;
    for (uint32_t i = 0; i < RECENT && !found; i++) found = snap.recent[i] == h;
    if (remember && !found) snap.recent[snap.next++ % RECENT] = h;
    pthread_mutex_unlock(&snap.lock);
    return found;
}

static onescope_code bw_snapshot(void *c, const void *world, onescope_module_sink *out,
                                 onescope_error *error) {
    (void)c;
    OS_TRY(snap_keys(error));
    /* Box3D's save marks the world as recording for the call; the world is as it was after */
    bw_world *w = (bw_world *)(uintptr_t)world;
    onescope_os_writer b;
    onescope_os_writer_init(&b, w->allocator);
    onescope_os_write_bytes(&b, snap_magic, 4);
    onescope_os_write_u32(&b, 1);
    onescope_os_write_u64(&b, 0); /* the tag, once the rest is written */
    onescope_os_write_u64(&b, w->setup_digest);
    onescope_code rc = onescope_os_soa_world_save(w->soa, &b, error);
    if (rc == ONESCOPE_OK && !b.failed) {
        if (snap.has_shared)
            onescope_os_put_u64(b.data + 8,
                                onescope_os_siphash(snap.shared, b.data + 16, b.size - 16));
        (void)snap_made_here(b.data, b.size, true);
        rc = onescope_module_sink_append(out, b.data, b.size);
        if (rc != ONESCOPE_OK)
            rc = onescope_module_fail(error, rc, ONESCOPE_MODULE_NO_OFFSET, "snapshot",
                                      "room for it", "the sink refused it");
    }
    onescope_os_writer_discard(&b);
    return rc;
}

static onescope_code bw_restore(void *c, const void *setup, size_t setup_size, const void *snapshot,
                                size_t size, const onescope_allocator *a, void **out,
                                onescope_error *error) {
    *out = NULL;
    OS_TRY(snap_keys(error));
    const uint8_t *p = snapshot;
    if (size < SNAP_HEAD || memcmp(p, snap_magic, 4) != 0)
        return onescope_module_fail(
            error, size < SNAP_HEAD ? ONESCOPE_E_TRUNCATED : ONESCOPE_E_MAGIC, 0, "snapshot",
            "a Box3D module snapshot (\"OB3S\", 24 bytes of head)",
            size < SNAP_HEAD ? "fewer bytes" : "other bytes");
    if (onescope_os_get_u32(p + 4) != 1)
        return onescope_module_fail(error, ONESCOPE_E_VERSION, 4, "snapshot version", "1",
                                    "another");
    if (onescope_os_get_u64(p + 16) != XXH3_64bits(setup, setup_size))
        return onescope_module_fail(error, ONESCOPE_E_MISMATCH, 16, "setup digest",
                                    "the XXH3 of this recording's setup",
                                    "another setup's (a snapshot of another scene)");
    uint64_t tag = onescope_os_get_u64(p + 8);
    bool shared = snap.has_shared && tag == onescope_os_siphash(snap.shared, p + 16, size - 16);
    if (!shared && !snap_made_here(p, size, false))
        return onescope_module_fail(
            error, ONESCOPE_E_MISMATCH, 8, "tag",
            snap.has_shared ? "a snapshot this process made, or one tagged under its "
                              "ONESCOPE_SNAPSHOT_KEY"
                            : "a snapshot this process made (set ONESCOPE_SNAPSHOT_KEY where "
                              "snapshots are made and restored to trust them across processes)",
            tag == 0 ? "an untagged snapshot of another process, or changed bytes"
                     : "a tag of another key, or changed bytes");
    void *made = NULL;
    OS_TRY(bw_create(c, setup, setup_size, a, &made, error));
    bw_world *w = made;
    onescope_code rc =
        onescope_os_soa_world_load(w->soa, p + SNAP_HEAD, size - SNAP_HEAD, "", error);
    if (rc != ONESCOPE_OK) {
        if (error != NULL && error->has_offset) error->offset += SNAP_HEAD;
        bw_free(c, w);
        return rc;
    }
    *out = w;
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
        .snapshot = bw_snapshot,
        .restore = bw_restore,
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
