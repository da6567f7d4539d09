/* The springs engine as a libonescope module: the one table the library runs it through
 * (include/onescope/module.h, docs/module.md). Built twice: into the example's recorder, and
 * as a plug-in for the stock CLI (`onescope --module libsprings_module.so verify run.ostm`),
 * which finds the table through onescope_module_entry.
 *
 * SPRINGS_PLANT=STEP:ENTITY in the environment plants a divergence in every world this module
 * makes: from step STEP on, particle ENTITY's spring is 0.1% stiffer. The example's test uses it
 * to check that verify names the step. The same plant in a 16-byte setup is a property of one
 * recording, so diff can compare a planted run with a clean one in one process. SPRINGS_BARE=1
 * makes the plug-in's table one without the optional slots (entities, values, stages, ...). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onescope/module.h"
#include "springs.h"

/* SPRINGS_BUG=snapshot|hash|order|global plants one bug class for `onescope module check`
 * (run.sh): a snapshot without the velocities, a hash without them, a stage that visits heap
 * nodes in address order, a step that reads a counter kept outside the world;
 * SPRINGS_BUG=refuse=STEP a whole step that refuses at STEP (for verify's verdicts). */
static const char *bug(void) {
    const char *b = getenv("SPRINGS_BUG");
    return b != NULL ? b : "";
}

/* The module's world: the engine's, then (SPRINGS_BUG=order) two heap nodes naming particles.
 * Which node the allocator places first differs from world to world (here: every other world
 * allocates them the other way round, standing in for a heap whose history differs). */
typedef struct node {
    uint32_t particle;
} node;
typedef struct module_world {
    springs_world w; /* first: the engine sees a springs_world */
    node *nodes[2];
} module_world;

static springs_world *world_new(void) {
    module_world *m = calloc(1, sizeof *m);
    if (m == NULL || strcmp(bug(), "order") != 0) return m ? &m->w : NULL;
    static unsigned made;
    unsigned first = made++ & 1u;
    for (unsigned k = 0; k < 2; k++) {
        m->nodes[k] = malloc(sizeof(node));
        if (m->nodes[k] != NULL) m->nodes[k]->particle = k ^ first;
    }
    return &m->w;
}

static void world_free(springs_world *w) {
    module_world *m = (module_world *)w;
    if (m == NULL) return;
    free(m->nodes[0]);
    free(m->nodes[1]);
    free(m);
}

/* Stage forces under SPRINGS_BUG=order: the nodes visited in address order (a set keyed by
 * pointer), the first one's particle nudged. */
static void visit_by_address(springs_world *w) {
    module_world *m = (module_world *)w;
    if (m->nodes[0] == NULL || m->nodes[1] == NULL) return;
    const node *first = (uintptr_t)m->nodes[0] < (uintptr_t)m->nodes[1] ? m->nodes[0] : m->nodes[1];
    w->vx[first->particle] += 1e-3f;
}

static onescope_code bad_setup(onescope_error *error) {
    return onescope_module_fail(error, ONESCOPE_E_RANGE, 0, "setup",
                                "8 bytes (a particle count of 2..4096, a seed) or 16 (and a plant)",
                                "another");
}

static onescope_code check_setup(void *context, const void *setup, size_t size,
                                 onescope_error *error) {
    (void)context;
    springs_setup s;
    return springs_setup_decode(setup, size, &s) == 0 ? ONESCOPE_OK : bad_setup(error);
}

static void plant(springs_world *w) {
    const char *p = getenv("SPRINGS_PLANT");
    unsigned long long step;
    unsigned entity;
    if (p != NULL && sscanf(p, "%llu:%u", &step, &entity) == 2) {
        w->plant_step = step;
        w->plant_entity = entity;
    }
}

static onescope_code create(void *context, const void *setup, size_t size,
                            const onescope_allocator *allocator, void **world,
                            onescope_error *error) {
    (void)context;
    (void)allocator; /* the world is the module's own: malloc */
    springs_setup s;
    if (springs_setup_decode(setup, size, &s) != 0) return bad_setup(error);
    springs_world *w = world_new();
    if (w == NULL)
        return onescope_module_fail(error, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, "world",
                                    NULL, "no memory");
    springs_init(w, &s);
    plant(w);
    *world = w;
    return ONESCOPE_OK;
}

static void destroy(void *context, void *world) {
    (void)context;
    world_free(world);
}

static onescope_code check_input(void *context, const void *setup, size_t setup_size,
                                 const void *input, size_t size, onescope_error *error) {
    (void)context;
    springs_setup s;
    if (springs_setup_decode(setup, setup_size, &s) != 0) return bad_setup(error);
    springs_world probe; /* only its count is read */
    probe.count = s.count;
    long at = springs_input_check(&probe, input, size);
    if (at < 0) return ONESCOPE_OK;
    if (size % SPRINGS_IMPULSE_BYTES != 0)
        return onescope_module_fail(error, ONESCOPE_E_LENGTH, (uint64_t)at, "impulse",
                                    "12 bytes each", "a cut one");
    return onescope_module_fail(error, ONESCOPE_E_RANGE, (uint64_t)at, "impulse",
                                at % SPRINGS_IMPULSE_BYTES == 0 ? "an entity below the count"
                                                                : "a finite number",
                                "another");
}

static onescope_code step(void *context, void *world, const void *input, size_t size,
                          onescope_error *error) {
    (void)context;
    static uint32_t steps_everywhere; /* SPRINGS_BUG=global: state outside every world */
    if (strcmp(bug(), "global") == 0 && ++steps_everywhere % 2 == 0)
        ((springs_world *)world)->vx[0] += 1e-3f;
    if (strcmp(bug(), "order") == 0) visit_by_address(world);
    /* SPRINGS_BUG=refuse=STEP: the step refuses (with E_MISMATCH, which verify must report as
     * an error of its row, never as a hash mismatch) */
    if (strncmp(bug(), "refuse=", 7) == 0 &&
        ((springs_world *)world)->step == strtoull(bug() + 7, NULL, 10))
        return onescope_module_fail(error, ONESCOPE_E_MISMATCH, ONESCOPE_MODULE_NO_OFFSET, "step",
                                    "a step this build can run", "refused (SPRINGS_BUG=refuse)");
    springs_step(world, input, size);
    return ONESCOPE_OK;
}

static onescope_code run_stage(void *context, void *world, uint32_t stage, const void *input,
                               size_t size, onescope_error *error) {
    (void)context;
    springs_world *w = world;
    if (stage != w->stage)
        return onescope_module_fail(error, ONESCOPE_E_BAD_STATE, ONESCOPE_MODULE_NO_OFFSET, "stage",
                                    "the world's next stage", "another");
    if (stage == 0 && strcmp(bug(), "order") == 0) visit_by_address(w);
    springs_run_stage(w, input, size);
    return ONESCOPE_OK;
}

static uint64_t hash(void *context, const void *world) {
    (void)context;
    if (strcmp(bug(), "hash") == 0) { /* the velocities left out */
        const springs_world *w = world;
        uint64_t h = 1469598103934665603ull;
        for (uint32_t i = 0; i < w->count; i++) {
            uint32_t bits[2];
            memcpy(&bits[0], &w->x[i], 4);
            memcpy(&bits[1], &w->y[i], 4);
            h = ((h ^ bits[0]) * 1099511628211ull ^ bits[1]) * 1099511628211ull;
        }
        return h ^ w->step;
    }
    return springs_hash(world);
}

/* A snapshot holds the world's head (count, stage, step, the plant) and then each of its six
 * arrays up to its count, so its size follows the particles, not SPRINGS_MAX (this build's
 * layout: the module's version says which layout a recording holds). */
#define SNAP_HEAD offsetof(springs_world, x)

static size_t snapshot_size(uint32_t count) {
    return SNAP_HEAD + 6 * (size_t)count * sizeof(float);
}

static float *array_of(springs_world *w, int k) {
    float *const a[6] = {w->x, w->y, w->vx, w->vy, w->fx, w->fy};
    return a[k];
}

static onescope_code snapshot(void *context, const void *world, onescope_module_sink *out,
                              onescope_error *error) {
    (void)context;
    springs_world *w = (springs_world *)world; /* read only: array_of wants the mutable type */
    bool lose_velocities = strcmp(bug(), "snapshot") == 0; /* the planted bug class */
    static const float zeros[256];
    onescope_code rc = onescope_module_sink_append(out, w, SNAP_HEAD);
    for (int k = 0; k < 6 && rc == ONESCOPE_OK; k++) {
        if (lose_velocities && (k == 2 || k == 3)) {
            for (uint32_t i = 0; i < w->count && rc == ONESCOPE_OK; i += 256) {
                uint32_t n = w->count - i < 256 ? w->count - i : 256;
                rc = onescope_module_sink_append(out, zeros, n * sizeof(float));
            }
        } else {
            rc = onescope_module_sink_append(out, array_of(w, k), w->count * sizeof(float));
        }
    }
    if (rc != ONESCOPE_OK)
        return onescope_module_fail(error, rc, ONESCOPE_MODULE_NO_OFFSET, "snapshot",
                                    "room for the world", "none");
    return ONESCOPE_OK;
}

static onescope_code restore(void *context, const void *setup, size_t setup_size, const void *snap,
                             size_t snap_size, const onescope_allocator *allocator, void **world,
                             onescope_error *error) {
    (void)context;
    (void)allocator;
    springs_setup s;
    if (springs_setup_decode(setup, setup_size, &s) != 0) return bad_setup(error);
    if (snap_size != snapshot_size(s.count))
        return onescope_module_fail(error, ONESCOPE_E_LENGTH, 0, "snapshot",
                                    "the head and six arrays of the setup's count", "another size");
    springs_world *w = world_new();
    if (w == NULL)
        return onescope_module_fail(error, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, "world",
                                    NULL, "no memory");
    const uint8_t *p = snap;
    memcpy(w, p, SNAP_HEAD);
    if (w->count != s.count || w->stage != 0) {
        world_free(w);
        return onescope_module_fail(error, ONESCOPE_E_RANGE, 0, "snapshot",
                                    "a world of the setup's count, at a step boundary", "another");
    }
    for (int k = 0; k < 6; k++)
        memcpy(array_of(w, k), p + SNAP_HEAD + (size_t)k * s.count * sizeof(float),
               s.count * sizeof(float));
    plant(w);
    *world = w;
    return ONESCOPE_OK;
}

static uint32_t entity_count(void *context, const void *world) {
    (void)context;
    return ((const springs_world *)world)->count;
}

static uint64_t entity_id(void *context, const void *world, uint32_t index) {
    (void)context;
    (void)world;
    return index; /* particles are never added or removed */
}

static bool entity_pose(void *context, const void *world, uint32_t index, onescope_pose *out) {
    (void)context;
    const springs_world *w = world;
    memset(out, 0, sizeof *out);
    out->position[0] = w->x[index];
    out->position[1] = w->y[index];
    out->rotation[3] = 1.0f;
    return true;
}

static const char *const group_names[2] = {"position", "velocity"};
static const onescope_value_info values[4] = {
    {"position.x", "m", ONESCOPE_VALUE_F32, 0},
    {"position.y", "m", ONESCOPE_VALUE_F32, 0},
    {"velocity.x", "m/s", ONESCOPE_VALUE_F32, 1},
    {"velocity.y", "m/s", ONESCOPE_VALUE_F32, 1},
};

static void entity_values(void *context, const void *world, uint32_t index, double *out) {
    (void)context;
    const springs_world *w = world;
    out[0] = w->x[index];
    out[1] = w->y[index];
    out[2] = w->vx[index];
    out[3] = w->vy[index];
}

static onescope_code describe_input(void *context, const void *setup, size_t setup_size,
                                    const void *input, size_t size, onescope_module_sink *text,
                                    onescope_error *error) {
    onescope_code rc = check_input(context, setup, setup_size, input, size, error);
    if (rc != ONESCOPE_OK) return rc;
    const uint8_t *p = input;
    if (size == 0) return onescope_module_sink_append(text, "no impulse", 10);
    for (size_t at = 0; at < size; at += SPRINGS_IMPULSE_BYTES) {
        uint32_t e;
        float d[2];
        memcpy(&e, p + at, 4); /* little-endian hosts; the example is not a format document */
        memcpy(d, p + at + 4, 8);
        char line[96];
        int n = snprintf(line, sizeof line, "%simpulse particle %" PRIu32 " (%g, %g)",
                         at ? "; " : "", e, (double)d[0], (double)d[1]);
        rc = onescope_module_sink_append(text, line, (size_t)n);
        if (rc != ONESCOPE_OK) return rc;
    }
    return ONESCOPE_OK;
}

static const onescope_module table = {
    .struct_size = sizeof(onescope_module),
    .abi = ONESCOPE_MODULE_ABI,
    .id = "example.springs",
    .version = "1",
    .create = create,
    .free = destroy,
    .step = step,
    .hash = hash,
    .check_setup = check_setup,
    .check_input = check_input,
    .stage_count = SPRINGS_STAGES,
    .stage_names = springs_stage_names,
    .run_stage = run_stage,
    .snapshot = snapshot,
    .restore = restore,
    .entity_count = entity_count,
    .entity_id = entity_id,
    .entity_pose = entity_pose,
    .value_count = 4,
    .values = values,
    .group_count = 2,
    .group_names = group_names,
    .entity_values = entity_values,
    .describe_input = describe_input,
    .metres_per_unit = 1.0,
    .unit_name = "m",
    .dimensions = 2,                        /* a flat box: z is always 0 */
    .flags = ONESCOPE_MODULE_IDS_FROM_ZERO, /* ids are indexes: a ghost shows id + 1 */
};

const onescope_module *springs_module(void) {
    return &table;
}

/* The same module with its required slots and checks only: how a tool says that it needs an
 * optional slot the module lacks (the example's test). */
static const onescope_module bare = {
    .struct_size = sizeof(onescope_module),
    .abi = ONESCOPE_MODULE_ABI,
    .id = "example.springs",
    .version = "1",
    .create = create,
    .free = destroy,
    .step = step,
    .hash = hash,
    .check_setup = check_setup,
    .check_input = check_input,
};

/* The plug-in's one entry point: the table for this ABI, or none. SPRINGS_BARE=1 in the
 * environment gives the bare table. */
__attribute__((visibility("default"))) const onescope_module *onescope_module_entry(uint32_t abi) {
    const char *b = getenv("SPRINGS_BARE");
    if (abi != ONESCOPE_MODULE_ABI) return NULL;
    return b != NULL && strcmp(b, "1") == 0 ? &bare : &table;
}
