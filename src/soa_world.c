/* The headless Box3D world with a structure-of-arrays state view. docs/soa-world.md.
 * Always compiled: without Box3D every entry point reports ONESCOPE_E_UNSUPPORTED. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "numfmt.h"
#include "onescope/soa_world.h"
#include "onescope/version.h"
#include "soa_internal.h"

#if !defined(ONESCOPE_HAVE_BOX3D)

/* ---- this build has no Box3D ---- */

static onescope_code unsupported(onescope_error *error, const char *input) {
    return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, input, OS_NO_OFFSET, "box3d",
                            "a build with Box3D", "this build has no Box3D");
}

bool onescope_soa_world_available(void) {
    return false;
}

onescope_code onescope_soa_world_create(const onescope_soa_world_def *def,
                                        const onescope_allocator *allocator,
                                        onescope_soa_world **out, onescope_error *error) {
    (void)def, (void)allocator;
    if (out != NULL) *out = NULL;
    return unsupported(error, "soa_world_create");
}

void onescope_soa_world_free(onescope_soa_world *world) {
    (void)world;
}

onescope_code onescope_soa_world_add_body(onescope_soa_world *world,
                                          const onescope_soa_body_def *def, uint32_t *index,
                                          onescope_error *error) {
    (void)world, (void)def, (void)index;
    return unsupported(error, "soa_world_add_body");
}

onescope_code onescope_soa_world_remove_body(onescope_soa_world *world, uint32_t index,
                                             onescope_error *error) {
    (void)world, (void)index;
    return unsupported(error, "soa_world_remove_body");
}

onescope_code onescope_soa_world_add_joint(onescope_soa_world *world,
                                           const onescope_soa_joint_def *def, uint32_t *index,
                                           onescope_error *error) {
    (void)world, (void)def, (void)index;
    return unsupported(error, "soa_world_add_joint");
}

onescope_code onescope_soa_world_step(onescope_soa_world *world, float dt, int substeps,
                                      onescope_error *error) {
    (void)world, (void)dt, (void)substeps;
    return unsupported(error, "soa_world_step");
}

onescope_code onescope_soa_world_view(onescope_soa_world *world, onescope_soa_view *view,
                                      onescope_error *error) {
    (void)world;
    if (view != NULL) memset(view, 0, sizeof *view);
    return unsupported(error, "soa_world_view");
}

onescope_code onescope_soa_world_poses(const onescope_soa_world *world, onescope_pose *out,
                                       size_t count, onescope_error *error) {
    (void)world, (void)out, (void)count;
    return unsupported(error, "soa_world_poses");
}

onescope_code onescope_soa_world_record(onescope_soa_world *world, uint32_t steps, float dt,
                                        int substeps, onescope_soa_step_fn on_step, void *user,
                                        const onescope_allocator *allocator,
                                        onescope_pose_cache **out, onescope_error *error) {
    (void)world, (void)steps, (void)dt, (void)substeps, (void)on_step, (void)user, (void)allocator;
    if (out != NULL) *out = NULL;
    return unsupported(error, "soa_world_record");
}

onescope_code onescope_soa_world_act(onescope_soa_world *world, uint32_t index, int action,
                                     const float v[3], onescope_error *error) {
    (void)world, (void)index, (void)action, (void)v;
    return unsupported(error, "soa_world_act");
}

onescope_code onescope_soa_world_set_transform(onescope_soa_world *world, uint32_t index,
                                               const float position[3], const float rotation[4],
                                               onescope_error *error) {
    (void)world, (void)index, (void)position, (void)rotation;
    return unsupported(error, "soa_world_set_transform");
}

bool onescope_soa_world_awake(const onescope_soa_world *world, uint32_t index) {
    (void)world, (void)index;
    return false;
}

#else /* ONESCOPE_HAVE_BOX3D */

#include <pthread.h>

#include <box3d/box3d.h>
#include <box3d/collision.h>

/* Box3D keeps its worlds in a global table that is not safe to change from several threads
 * at once: every b3CreateWorld / b3DestroyWorld goes through this lock. */
static pthread_mutex_t onescope_os_soa_lock = PTHREAD_MUTEX_INITIALIZER;

/* Box3D copies its structures, padding included, into the images a snapshot holds; memory that
 * Box3D allocated and never wrote would make two snapshots of one state differ (and valgrind
 * reports the write). Its memory is therefore handed out zeroed: installed once, before the first
 * world, and process-wide, as b3SetAllocator is (docs/box3d-module.md, "Snapshots"). */
static void *box3d_zeroed_alloc(int32_t size, int32_t alignment) {
    size_t n = (size_t)size, align = (size_t)alignment;
    void *p = aligned_alloc(align, (n + align - 1) / align * align);
    if (p != NULL) memset(p, 0, n);
    return p;
}

static void box3d_free(void *p) {
    free(p);
}

/* Box3D's messages (docs/soa-world.md, "Box3D's messages"). Its default log and assert handlers
 * print to standard output, where they would break a JSON report or a live stream; the library
 * prints nothing. Its log is taken here instead, per thread (every world runs Box3D on the
 * calling thread: one worker, no task system): a call that Box3D leaves in a state the library
 * refuses (a body's non-finite state after a step) carries Box3D's first message in its error.
 * Messages that come with no refusal (a continuous-collision stall measured in milliseconds, a
 * clamped ray fraction) never change the world and are dropped. A Box3D built with assertions
 * (Debug, RelWithDebInfo) reports a failed one here too; the library then refuses the call and
 * Box3D goes on, as a Box3D built without them does. */
typedef struct box3d_messages {
    uint32_t count;      /* messages since the call began, assertions included (saturating) */
    bool asserted;       /* one was a failed assertion */
    char first[112];     /* the first message (a log line, or a failed assertion) */
    char assertion[112]; /* the first failed assertion */
} box3d_messages;
static _Thread_local box3d_messages box3d_said;

static void box3d_log(const char *message) {
    if (box3d_said.count == 0)
        onescope_os_copy_text(box3d_said.first, sizeof box3d_said.first, message);
    if (box3d_said.count < UINT32_MAX) box3d_said.count++;
}

static int box3d_assert(const char *condition, const char *file, int line) {
    if (!box3d_said.asserted) {
        const char *base = strrchr(file, '/');
        snprintf(box3d_said.assertion, sizeof box3d_said.assertion, "assertion %s failed (%s:%d)",
                 condition, base != NULL ? base + 1 : file, line);
        box3d_said.asserted = true;
    }
    box3d_log(box3d_said.assertion);
    return 0; /* no trap: the call that hit it is refused instead */
}

/* Forgets what Box3D said before a call. */
static void box3d_listen(void) {
    memset(&box3d_said, 0, sizeof box3d_said);
}

/* A call during which a Box3D assertion failed is refused (ENGINE), naming the assertion. */
static onescope_code box3d_check_asserted(const char *in, onescope_error *error) {
    if (!box3d_said.asserted) return ONESCOPE_OK;
    return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, OS_NO_OFFSET, "box3d",
                            "no failed Box3D assertion", "%s", box3d_said.assertion);
}

static void box3d_allocator_init(void) {
    b3SetAllocator(box3d_zeroed_alloc, box3d_free);
    b3SetLogFcn(box3d_log);
    b3SetAssertFcn(box3d_assert);
}

/* Installs the allocator and the message handlers, once, before the first Box3D world. */
static void box3d_allocator_once(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, box3d_allocator_init);
}

/* Float body lanes, one array each. */
enum {
    L_PX,
    L_PY,
    L_PZ,
    L_QX,
    L_QY,
    L_QZ,
    L_QW,
    L_VX,
    L_VY,
    L_VZ,
    L_WX,
    L_WY,
    L_WZ,
    L_FX,
    L_FY,
    L_FZ,
    L_TX,
    L_TY,
    L_TZ,
    L_COUNT
};
/* Float joint lanes. */
enum { J_ANGLE, J_FX, J_FY, J_FZ, J_FW, J_RX, J_RY, J_RZ, J_RW, J_WX, J_WY, J_WZ, J_COUNT };

typedef struct onescope_os_event_buffer {
    onescope_soa_contact *items;
    uint32_t count;
    uint32_t capacity;
} onescope_os_event_buffer;

struct onescope_soa_world {
    const onescope_allocator *allocator;
    b3WorldId world;
    b3RecPlayer *player; /* a restored world's owner (it frees the world); NULL otherwise */
    uint32_t capacity, joint_capacity;
    onescope_soa_live live; /* count, joint_count, step, contact events: read by views */
    bool contact_events;

    b3BodyId *bodies;
    b3JointId *joints;
    b3Quat *joint_local_a; /* joint frame rotation in body A */
    b3Quat *joint_local_b;

    /* Box3D shape id (b3StoreShapeId) -> body index: insert-only open addressing, so an
     * event that names a shape destroyed with its body still finds the body. */
    uint64_t *shape_keys;
    int32_t *shape_body;
    size_t shape_mask;
    unsigned shape_shift; /* 64 - log2(table size) */

    uint32_t *stable_id;
    int32_t *kind, *parent, *limb;
    float *lane[L_COUNT];
    int32_t *shape_kind; /* the kind given to add_body, kept after removal */
    float *shape_size;   /* 3 per body: the size given to add_body */

    int32_t *joint_kind, *joint_a, *joint_b;
    float *jlane[J_COUNT];

    onescope_os_event_buffer begin, hit, end;
};

bool onescope_soa_world_available(void) {
    return true;
}

/* The rotation that takes the z axis onto the unit vector a. */
static b3Quat quat_z_to(b3Vec3 a) {
    b3Quat q;
    float d = a.z;
    if (d < -0.999999f) {
        q.v = (b3Vec3){1.0f, 0.0f, 0.0f};
        q.s = 0.0f;
        return q;
    }
    /* half-way quaternion: (cross(z, a), 1 + dot(z, a)) normalised */
    q.v = (b3Vec3){-a.y, a.x, 0.0f};
    q.s = 1.0f + d;
    return b3NormalizeQuat(q);
}

static b3Quat lane_quat(const onescope_soa_world *w, uint32_t i) {
    b3Quat q = {{w->lane[L_QX][i], w->lane[L_QY][i], w->lane[L_QZ][i]}, w->lane[L_QW][i]};
    return q;
}

/* Fibonacci hashing on the whole key: the top bits of the product depend on every key bit
 * (the shape index lives in the high half of the key, the generation in the low half). */
static size_t shape_slot(const onescope_soa_world *w, uint64_t key) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> w->shape_shift) & w->shape_mask;
}

static void shape_map_put(onescope_soa_world *w, b3ShapeId id, int32_t body) {
    uint64_t key = b3StoreShapeId(id);
    size_t h = shape_slot(w, key);
    while (w->shape_keys[h] != 0 && w->shape_keys[h] != key) h = (h + 1) & w->shape_mask;
    w->shape_keys[h] = key;
    w->shape_body[h] = body;
}

static int32_t shape_map_get(const onescope_soa_world *w, b3ShapeId id) {
    uint64_t key = b3StoreShapeId(id);
    size_t h = shape_slot(w, key);
    while (w->shape_keys[h] != 0) {
        if (w->shape_keys[h] == key) return w->shape_body[h];
        h = (h + 1) & w->shape_mask;
    }
    return -1;
}

/* ---- create and free ---- */

static void free_arrays(onescope_soa_world *w) {
    const onescope_allocator *a = w->allocator;
    onescope_os_free(a, w->bodies);
    onescope_os_free(a, w->joints);
    onescope_os_free(a, w->joint_local_a);
    onescope_os_free(a, w->joint_local_b);
    onescope_os_free(a, w->shape_keys);
    onescope_os_free(a, w->shape_body);
    onescope_os_free(a, w->stable_id);
    onescope_os_free(a, w->kind);
    onescope_os_free(a, w->parent);
    onescope_os_free(a, w->limb);
    onescope_os_free(a, w->shape_kind);
    onescope_os_free(a, w->shape_size);
    for (int i = 0; i < L_COUNT; i++) onescope_os_free(a, w->lane[i]);
    onescope_os_free(a, w->joint_kind);
    onescope_os_free(a, w->joint_a);
    onescope_os_free(a, w->joint_b);
    for (int i = 0; i < J_COUNT; i++) onescope_os_free(a, w->jlane[i]);
    onescope_os_free(a, w->begin.items);
    onescope_os_free(a, w->hit.items);
    onescope_os_free(a, w->end.items);
}

onescope_code onescope_soa_world_create(const onescope_soa_world_def *def,
                                        const onescope_allocator *a, onescope_soa_world **out,
                                        onescope_error *error) {
    static const char in[] = "soa_world_create";
    if (out == NULL || def == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, def ? "out" : "def",
                                "a non-NULL pointer", "NULL");
    *out = NULL;
    OS_TRY(onescope_os_soa_check_world(def, in, error));

    onescope_soa_world *w = onescope_os_calloc(a, 1, sizeof *w);
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, in, OS_NO_OFFSET, "world", NULL, NULL);
    w->allocator = a;
    w->capacity = def->body_capacity;
    w->joint_capacity = def->joint_capacity;
    w->contact_events = def->contact_events;
    size_t n = def->body_capacity, nj = def->joint_capacity;
    size_t table = 16;
    unsigned bits = 4;
    while (table < 2 * n) table *= 2, bits++;
    w->shape_mask = table - 1;
    w->shape_shift = 64u - bits;

    bool ok = true;
    ok = ok && (w->bodies = onescope_os_calloc(a, n, sizeof *w->bodies)) != NULL;
    ok = ok && (w->joints = onescope_os_calloc(a, nj, sizeof *w->joints)) != NULL;
    ok = ok && (w->joint_local_a = onescope_os_calloc(a, nj, sizeof *w->joint_local_a)) != NULL;
    ok = ok && (w->joint_local_b = onescope_os_calloc(a, nj, sizeof *w->joint_local_b)) != NULL;
    ok = ok && (w->shape_keys = onescope_os_calloc(a, table, sizeof *w->shape_keys)) != NULL;
    ok = ok && (w->shape_body = onescope_os_calloc(a, table, sizeof *w->shape_body)) != NULL;
    ok = ok && (w->stable_id = onescope_os_calloc(a, n, sizeof *w->stable_id)) != NULL;
    ok = ok && (w->kind = onescope_os_calloc(a, n, sizeof *w->kind)) != NULL;
    ok = ok && (w->parent = onescope_os_calloc(a, n, sizeof *w->parent)) != NULL;
    ok = ok && (w->limb = onescope_os_calloc(a, n, sizeof *w->limb)) != NULL;
    ok = ok && (w->shape_kind = onescope_os_calloc(a, n, sizeof *w->shape_kind)) != NULL;
    ok = ok && (w->shape_size = onescope_os_calloc(a, n, 3 * sizeof *w->shape_size)) != NULL;
    for (int i = 0; i < L_COUNT; i++)
        ok = ok && (w->lane[i] = onescope_os_calloc(a, n, sizeof(float))) != NULL;
    ok = ok && (w->joint_kind = onescope_os_calloc(a, nj, sizeof *w->joint_kind)) != NULL;
    ok = ok && (w->joint_a = onescope_os_calloc(a, nj, sizeof *w->joint_a)) != NULL;
    ok = ok && (w->joint_b = onescope_os_calloc(a, nj, sizeof *w->joint_b)) != NULL;
    for (int i = 0; i < J_COUNT; i++)
        ok = ok && (w->jlane[i] = onescope_os_calloc(a, nj, sizeof(float))) != NULL;
    if (!ok) {
        free_arrays(w);
        onescope_os_free(a, w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, in, OS_NO_OFFSET, "lanes", NULL, NULL);
    }

    b3WorldDef wd = b3DefaultWorldDef();
    wd.gravity = (b3Vec3){def->gravity[0], def->gravity[1], def->gravity[2]};
    wd.enableSleep = def->enable_sleep;
    wd.hitEventThreshold = def->hit_speed_threshold;
    wd.workerCount = 1;
    wd.enqueueTask = NULL;
    wd.finishTask = NULL;
    wd.capacity.dynamicBodyCount = (int)n;
    wd.capacity.dynamicShapeCount = (int)n;

    box3d_allocator_once();
    pthread_mutex_lock(&onescope_os_soa_lock);
    bool full = b3GetWorldCount() >= B3_MAX_WORLDS;
    box3d_listen();
    if (!full) w->world = b3CreateWorld(&wd);
    pthread_mutex_unlock(&onescope_os_soa_lock);
    if (!full && !B3_IS_NULL(w->world) && box3d_said.asserted) {
        onescope_soa_world_free(w);
        return box3d_check_asserted(in, error);
    }
    if (full || B3_IS_NULL(w->world)) {
        free_arrays(w);
        onescope_os_free(a, w);
        return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, OS_NO_OFFSET, "world",
                                "a free Box3D world slot", "all %d Box3D worlds in use",
                                B3_MAX_WORLDS);
    }
    *out = w;
    return ONESCOPE_OK;
}

void onescope_soa_world_free(onescope_soa_world *world) {
    if (world == NULL) return;
    pthread_mutex_lock(&onescope_os_soa_lock);
    if (world->player != NULL)
        b3DestroyPlayer(world->player);
    else
        b3DestroyWorld(world->world);
    pthread_mutex_unlock(&onescope_os_soa_lock);
    const onescope_allocator *a = world->allocator;
    free_arrays(world);
    onescope_os_free(a, world);
}

/* ---- bodies ---- */

/* Copies Box3D's state of body i into the lanes. */
static void read_body(onescope_soa_world *w, uint32_t i) {
    b3BodyId id = w->bodies[i];
    b3Transform t = b3Body_GetTransform(id);
    b3Vec3 v = b3Body_GetLinearVelocity(id);
    b3Vec3 av = b3Body_GetAngularVelocity(id);
    float **l = w->lane;
    l[L_PX][i] = t.p.x, l[L_PY][i] = t.p.y, l[L_PZ][i] = t.p.z;
    l[L_QX][i] = t.q.v.x, l[L_QY][i] = t.q.v.y, l[L_QZ][i] = t.q.v.z, l[L_QW][i] = t.q.s;
    l[L_VX][i] = v.x, l[L_VY][i] = v.y, l[L_VZ][i] = v.z;
    l[L_WX][i] = av.x, l[L_WY][i] = av.y, l[L_WZ][i] = av.z;
}

static onescope_code check_body_def(const onescope_soa_world *w, const onescope_soa_body_def *d,
                                    b3Quat *q, onescope_error *error) {
    static const char in[] = "soa_world_add_body";
    float r[4];
    OS_TRY(onescope_os_soa_check_body(d, w->live.count, in, r, error));
    if (w->live.count >= w->capacity)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "body_capacity",
                                "a free body slot", "all %u slots used", w->capacity);
    *q = (b3Quat){{r[0], r[1], r[2]}, r[3]};
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_add_body(onescope_soa_world *world,
                                          const onescope_soa_body_def *def, uint32_t *index,
                                          onescope_error *error) {
    static const char in[] = "soa_world_add_body";
    if (world == NULL || def == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                world ? "def" : "world", "a non-NULL pointer", "NULL");
    b3Quat q;
    OS_TRY(check_body_def(world, def, &q, error));

    uint32_t i = world->live.count;
    b3BodyDef bd = b3DefaultBodyDef();
    bd.type = def->kind == ONESCOPE_SOA_STATIC_BOX ? b3_staticBody : b3_dynamicBody;
    bd.position = (b3Pos){def->position[0], def->position[1], def->position[2]};
    bd.rotation = q;
    bd.linearVelocity =
        (b3Vec3){def->linear_velocity[0], def->linear_velocity[1], def->linear_velocity[2]};
    bd.angularVelocity =
        (b3Vec3){def->angular_velocity[0], def->angular_velocity[1], def->angular_velocity[2]};
    bd.userData = (void *)(uintptr_t)(i + 1);
    box3d_listen();
    b3BodyId id = b3CreateBody(world->world, &bd);

    b3ShapeDef sd = b3DefaultShapeDef();
    sd.density = def->density;
    sd.baseMaterial.friction = def->friction;
    sd.baseMaterial.restitution = def->restitution;
    sd.baseMaterial.rollingResistance = def->rolling_resistance;
    sd.enableContactEvents = world->contact_events;
    sd.enableHitEvents = world->contact_events;
    /* Box3D copies the filter whole into its shape, and so into snapshots: its tail padding
     * (after groupIndex) must be written, which b3DefaultFilter's return leaves to chance. */
    b3Filter filter;
    memset(&filter, 0, sizeof filter);
    filter.categoryBits = sd.filter.categoryBits;
    filter.maskBits = sd.filter.maskBits;
    filter.groupIndex = sd.filter.groupIndex;
    memcpy(&sd.filter, &filter, sizeof filter);
    b3ShapeId shape;
    if (def->kind == ONESCOPE_SOA_SPHERE) {
        b3Sphere s = {{0.0f, 0.0f, 0.0f}, def->size[0]};
        shape = b3CreateSphereShape(id, &sd, &s);
    } else if (def->kind == ONESCOPE_SOA_CAPSULE) {
        b3Capsule c = {{0.0f, -def->size[1], 0.0f}, {0.0f, def->size[1], 0.0f}, def->size[0]};
        shape = b3CreateCapsuleShape(id, &sd, &c);
    } else {
        b3BoxHull h = b3MakeBoxHull(def->size[0], def->size[1], def->size[2]);
        shape = b3CreateHullShape(id, &sd, &h.base);
    }
    if (box3d_said.asserted) { /* the refusal is total: Box3D's body goes with its shape */
        b3DestroyBody(id);
        return box3d_check_asserted("soa_world_add_body", error);
    }
    shape_map_put(world, shape, (int32_t)i);

    world->bodies[i] = id;
    world->stable_id[i] = i + 1;
    world->kind[i] = def->kind;
    world->shape_kind[i] = def->kind;
    memcpy(&world->shape_size[3 * (size_t)i], def->size, 3 * sizeof(float));
    world->parent[i] = def->parent;
    world->limb[i] = def->limb;
    read_body(world, i);
    world->lane[L_FX][i] = world->lane[L_FY][i] = world->lane[L_FZ][i] = 0.0f;
    world->lane[L_TX][i] = world->lane[L_TY][i] = world->lane[L_TZ][i] = 0.0f;
    world->live.count = i + 1;
    if (index != NULL) *index = i;
    return ONESCOPE_OK;
}

/* A body a call may touch: the world given, the index of a body not removed, and with
 * dynamic_only not a static box. The one check remove_body, act and set_transform share. */
static onescope_code check_live_body(const onescope_soa_world *w, uint32_t index, bool dynamic_only,
                                     const char *in, onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "world",
                                "a non-NULL pointer", "NULL");
    if (index >= w->live.count)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "index",
                                "the index of a body", "%u (bodies: %u)", index, w->live.count);
    if (w->kind[index] == ONESCOPE_SOA_REMOVED)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, in, OS_NO_OFFSET, "index",
                                "a body not yet removed", "%u, removed earlier", index);
    if (dynamic_only && w->kind[index] == ONESCOPE_SOA_STATIC_BOX)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "index",
                                "a dynamic body", "%u, a static box", index);
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_remove_body(onescope_soa_world *world, uint32_t index,
                                             onescope_error *error) {
    OS_TRY(check_live_body(world, index, false, "soa_world_remove_body", error));
    /* Box3D destroys the body's joints with it; mirror that in the joint lanes. */
    for (uint32_t j = 0; j < world->live.joint_count; j++) {
        if (world->joint_kind[j] == ONESCOPE_SOA_JOINT_REMOVED) continue;
        if (world->joint_a[j] == (int32_t)index || world->joint_b[j] == (int32_t)index) {
            world->joint_kind[j] = ONESCOPE_SOA_JOINT_REMOVED;
            world->joints[j] = b3_nullJointId;
        }
    }
    b3DestroyBody(world->bodies[index]);
    world->bodies[index] = b3_nullBodyId;
    world->kind[index] = ONESCOPE_SOA_REMOVED;
    float **l = world->lane;
    l[L_VX][index] = l[L_VY][index] = l[L_VZ][index] = 0.0f;
    l[L_WX][index] = l[L_WY][index] = l[L_WZ][index] = 0.0f;
    l[L_FX][index] = l[L_FY][index] = l[L_FZ][index] = 0.0f;
    l[L_TX][index] = l[L_TY][index] = l[L_TZ][index] = 0.0f;
    return ONESCOPE_OK;
}

static onescope_code check_finite(const float *v, int n, const char *in, const char *field,
                                  onescope_error *error) {
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k]))
            return onescope_os_fail(error, ONESCOPE_E_NOT_FINITE, in, OS_NO_OFFSET, field,
                                    "finite numbers", "%s at %d", onescope_os_num_float(v[k]).s, k);
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_act(onescope_soa_world *world, uint32_t index, int action,
                                     const float v[3], onescope_error *error) {
    static const char in[] = "soa_world_act";
    OS_TRY(check_live_body(world, index, true, in, error));
    if (action < ONESCOPE_SOA_LINEAR_IMPULSE || action > ONESCOPE_SOA_SET_ANGULAR_VELOCITY)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "action",
                                "an onescope_soa_action (1..4)", "%d", action);
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "v",
                                "a non-NULL pointer", "NULL");
    OS_TRY(check_finite(v, 3, in, "v", error));
    b3BodyId id = world->bodies[index];
    b3Vec3 x = {v[0], v[1], v[2]};
    if (action == ONESCOPE_SOA_LINEAR_IMPULSE)
        b3Body_ApplyLinearImpulseToCenter(id, x, true);
    else if (action == ONESCOPE_SOA_ANGULAR_IMPULSE)
        b3Body_ApplyAngularImpulse(id, x, true);
    else if (action == ONESCOPE_SOA_SET_LINEAR_VELOCITY)
        b3Body_SetLinearVelocity(id, x);
    else
        b3Body_SetAngularVelocity(id, x);
    read_body(world, index);
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_set_transform(onescope_soa_world *world, uint32_t index,
                                               const float position[3], const float rotation[4],
                                               onescope_error *error) {
    static const char in[] = "soa_world_set_transform";
    OS_TRY(check_live_body(world, index, true, in, error));
    if (position == NULL || rotation == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                position ? "rotation" : "position", "a non-NULL pointer", "NULL");
    OS_TRY(check_finite(position, 3, in, "position", error));
    OS_TRY(check_finite(rotation, 4, in, "rotation", error));
    double n2 = 0;
    for (int k = 0; k < 4; k++) n2 += (double)rotation[k] * rotation[k];
    if (!(n2 > 0) || !isfinite(n2))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "rotation",
                                "a quaternion that is not zero", "all zero");
    b3Quat q = b3NormalizeQuat((b3Quat){{rotation[0], rotation[1], rotation[2]}, rotation[3]});
    b3Body_SetTransform(world->bodies[index], (b3Pos){position[0], position[1], position[2]}, q);
    read_body(world, index);
    return ONESCOPE_OK;
}

bool onescope_soa_world_awake(const onescope_soa_world *world, uint32_t index) {
    if (world == NULL || index >= world->live.count || world->kind[index] == ONESCOPE_SOA_REMOVED)
        return false;
    return b3Body_IsAwake(world->bodies[index]);
}

/* ---- joints ---- */

/* Joint lanes of joint j from the body lanes (which hold Box3D's state). */
static void read_joint(onescope_soa_world *w, uint32_t j) {
    if (w->joint_kind[j] == ONESCOPE_SOA_JOINT_REMOVED) return;
    uint32_t a = (uint32_t)w->joint_a[j], b = (uint32_t)w->joint_b[j];
    b3Quat fa = b3NormalizeQuat(b3MulQuat(lane_quat(w, a), w->joint_local_a[j]));
    b3Quat fb = b3NormalizeQuat(b3MulQuat(lane_quat(w, b), w->joint_local_b[j]));
    b3Quat rel = b3InvMulQuat(fa, fb);
    if (rel.s < 0.0f) rel = b3NegateQuat(rel);
    b3Vec3 wa = {w->lane[L_WX][a], w->lane[L_WY][a], w->lane[L_WZ][a]};
    b3Vec3 wb = {w->lane[L_WX][b], w->lane[L_WY][b], w->lane[L_WZ][b]};
    b3Vec3 dw = b3InvRotateVector(fa, b3Sub(wb, wa));
    float angle = 0.0f;
    if (w->joint_kind[j] == ONESCOPE_SOA_REVOLUTE)
        angle = b3RevoluteJoint_GetAngle(w->joints[j]);
    else if (w->joint_kind[j] == ONESCOPE_SOA_SPHERICAL)
        angle = b3SphericalJoint_GetTwistAngle(w->joints[j]);
    float **l = w->jlane;
    l[J_ANGLE][j] = angle;
    l[J_FX][j] = fa.v.x, l[J_FY][j] = fa.v.y, l[J_FZ][j] = fa.v.z, l[J_FW][j] = fa.s;
    l[J_RX][j] = rel.v.x, l[J_RY][j] = rel.v.y, l[J_RZ][j] = rel.v.z, l[J_RW][j] = rel.s;
    l[J_WX][j] = dw.x, l[J_WY][j] = dw.y, l[J_WZ][j] = dw.z;
}

static int world_kind(const void *user, uint32_t index) {
    const onescope_soa_world *w = user;
    return w->kind[index];
}

static onescope_code check_joint_def(const onescope_soa_world *w, const onescope_soa_joint_def *d,
                                     b3Vec3 *axis, b3Quat *target, onescope_error *error) {
    static const char in[] = "soa_world_add_joint";
    float a[3], t[4];
    OS_TRY(onescope_os_soa_check_joint(d, in, a, t, error));
    OS_TRY(onescope_os_soa_check_joint_bodies(d, w->live.count, world_kind, w, in, error));
    if (w->live.joint_count >= w->joint_capacity)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "joint_capacity",
                                "a free joint slot", "all %u slots used", w->joint_capacity);
    *axis = (b3Vec3){a[0], a[1], a[2]};
    *target = (b3Quat){{t[0], t[1], t[2]}, t[3]};
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_add_joint(onescope_soa_world *world,
                                           const onescope_soa_joint_def *def, uint32_t *index,
                                           onescope_error *error) {
    static const char in[] = "soa_world_add_joint";
    if (world == NULL || def == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                world ? "def" : "world", "a non-NULL pointer", "NULL");
    b3Vec3 axis = {0.0f, 0.0f, 1.0f};
    b3Quat target = b3Quat_identity;
    OS_TRY(check_joint_def(world, def, &axis, &target, error));

    uint32_t j = world->live.joint_count, a = (uint32_t)def->body_a, b = (uint32_t)def->body_b;
    b3Quat frame = quat_z_to(axis);
    b3Vec3 anchor = {def->anchor[0], def->anchor[1], def->anchor[2]};
    b3Quat qa = lane_quat(world, a), qb = lane_quat(world, b);
    b3Vec3 pa = {world->lane[L_PX][a], world->lane[L_PY][a], world->lane[L_PZ][a]};
    b3Vec3 pb = {world->lane[L_PX][b], world->lane[L_PY][b], world->lane[L_PZ][b]};
    b3JointDef base;
    memset(&base, 0, sizeof base);
    base.bodyIdA = world->bodies[a];
    base.bodyIdB = world->bodies[b];
    base.localFrameA.p = b3InvRotateVector(qa, b3Sub(anchor, pa));
    base.localFrameA.q = b3NormalizeQuat(b3InvMulQuat(qa, frame));
    base.localFrameB.p = b3InvRotateVector(qb, b3Sub(anchor, pb));
    base.localFrameB.q = b3NormalizeQuat(b3InvMulQuat(qb, frame));
    base.collideConnected = def->collide_connected;

    b3JointId id;
    box3d_listen();
    if (def->kind == ONESCOPE_SOA_REVOLUTE) {
        b3RevoluteJointDef jd = b3DefaultRevoluteJointDef();
        b3JointDef keep = jd.base;
        jd.base = base;
        jd.base.internalValue = keep.internalValue;
        jd.base.forceThreshold = keep.forceThreshold;
        jd.base.torqueThreshold = keep.torqueThreshold;
        jd.base.constraintHertz = keep.constraintHertz;
        jd.base.constraintDampingRatio = keep.constraintDampingRatio;
        jd.base.drawScale = keep.drawScale;
        jd.enableLimit = def->enable_limit;
        jd.lowerAngle = def->lower_angle;
        jd.upperAngle = def->upper_angle;
        jd.enableMotor = def->enable_motor;
        jd.motorSpeed = def->motor_speed;
        jd.maxMotorTorque = def->max_motor_torque;
        jd.enableSpring = def->enable_spring;
        jd.hertz = def->spring_hertz;
        jd.dampingRatio = def->spring_damping_ratio;
        jd.targetAngle = def->target_angle;
        id = b3CreateRevoluteJoint(world->world, &jd);
    } else if (def->kind == ONESCOPE_SOA_SPHERICAL) {
        b3SphericalJointDef jd = b3DefaultSphericalJointDef();
        b3JointDef keep = jd.base;
        jd.base = base;
        jd.base.internalValue = keep.internalValue;
        jd.base.forceThreshold = keep.forceThreshold;
        jd.base.torqueThreshold = keep.torqueThreshold;
        jd.base.constraintHertz = keep.constraintHertz;
        jd.base.constraintDampingRatio = keep.constraintDampingRatio;
        jd.base.drawScale = keep.drawScale;
        jd.enableConeLimit = def->enable_cone_limit;
        jd.coneAngle = def->cone_angle;
        jd.enableTwistLimit = def->enable_twist_limit;
        jd.lowerTwistAngle = def->lower_twist;
        jd.upperTwistAngle = def->upper_twist;
        jd.enableMotor = def->enable_motor;
        jd.motorVelocity =
            (b3Vec3){def->motor_velocity[0], def->motor_velocity[1], def->motor_velocity[2]};
        jd.maxMotorTorque = def->max_motor_torque;
        jd.enableSpring = def->enable_spring;
        jd.hertz = def->spring_hertz;
        jd.dampingRatio = def->spring_damping_ratio;
        jd.targetRotation = target;
        id = b3CreateSphericalJoint(world->world, &jd);
    } else {
        b3WeldJointDef jd = b3DefaultWeldJointDef();
        b3JointDef keep = jd.base;
        jd.base = base;
        jd.base.internalValue = keep.internalValue;
        jd.base.forceThreshold = keep.forceThreshold;
        jd.base.torqueThreshold = keep.torqueThreshold;
        jd.base.constraintHertz = keep.constraintHertz;
        jd.base.constraintDampingRatio = keep.constraintDampingRatio;
        jd.base.drawScale = keep.drawScale;
        if (def->enable_spring) {
            jd.linearHertz = jd.angularHertz = def->spring_hertz;
            jd.linearDampingRatio = jd.angularDampingRatio = def->spring_damping_ratio;
        } else {
            jd.linearHertz = jd.angularHertz = 0.0f;
        }
        id = b3CreateWeldJoint(world->world, &jd);
    }
    if (box3d_said.asserted) {
        b3DestroyJoint(id, false);
        return box3d_check_asserted(in, error);
    }
    world->joints[j] = id;
    world->joint_local_a[j] = base.localFrameA.q;
    world->joint_local_b[j] = base.localFrameB.q;
    world->joint_kind[j] = def->kind;
    world->joint_a[j] = def->body_a;
    world->joint_b[j] = def->body_b;
    world->live.joint_count = j + 1;
    read_joint(world, j);
    if (index != NULL) *index = j;
    return ONESCOPE_OK;
}

/* ---- step ---- */

static bool events_reserve(const onescope_allocator *a, onescope_os_event_buffer *b, int need) {
    b->count = 0;
    if (need <= 0) return true;
    if ((uint32_t)need <= b->capacity) return true;
    uint32_t cap = b->capacity ? b->capacity : 64;
    while (cap < (uint32_t)need) cap *= 2;
    onescope_soa_contact *items = onescope_os_calloc(a, cap, sizeof *items);
    if (items == NULL) return false;
    onescope_os_free(a, b->items);
    b->items = items;
    b->capacity = cap;
    return true;
}

/* Puts the event buffers where views read them (a reserve may have moved them). */
static void publish_events(onescope_soa_world *w) {
    w->live.contact_begin_count = w->begin.count;
    w->live.contact_hit_count = w->hit.count;
    w->live.contact_end_count = w->end.count;
    w->live.contact_begin = w->begin.items;
    w->live.contact_hit = w->hit.items;
    w->live.contact_end = w->end.items;
}

static onescope_code collect_events(onescope_soa_world *w, onescope_error *error) {
    w->begin.count = w->hit.count = w->end.count = 0;
    if (!w->contact_events) {
        publish_events(w);
        return ONESCOPE_OK;
    }
    b3ContactEvents ev = b3World_GetContactEvents(w->world);
    const onescope_allocator *a = w->allocator;
    if (!events_reserve(a, &w->begin, ev.beginCount) || !events_reserve(a, &w->hit, ev.hitCount) ||
        !events_reserve(a, &w->end, ev.endCount)) {
        w->begin.count = w->hit.count = w->end.count = 0;
        publish_events(w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, "soa_world_step", OS_NO_OFFSET,
                                "contact events", NULL,
                                "the step ran; its contact events were dropped");
    }
    for (int k = 0; k < ev.beginCount; k++) {
        const b3ContactBeginTouchEvent *e = &ev.beginEvents[k];
        onescope_soa_contact c;
        memset(&c, 0, sizeof c);
        c.body_a = shape_map_get(w, e->shapeIdA);
        c.body_b = shape_map_get(w, e->shapeIdB);
        if (b3Contact_IsValid(e->contactId)) {
            b3ContactData cd = b3Contact_GetData(e->contactId);
            if (cd.manifoldCount > 0 && cd.manifolds[0].pointCount > 0) {
                b3Pos ca = b3Body_GetWorldCenter(b3Shape_GetBody(cd.shapeIdA));
                b3Vec3 p = b3Add(ca, cd.manifolds[0].points[0].anchorA);
                c.point[0] = p.x, c.point[1] = p.y, c.point[2] = p.z;
                c.normal[0] = cd.manifolds[0].normal.x;
                c.normal[1] = cd.manifolds[0].normal.y;
                c.normal[2] = cd.manifolds[0].normal.z;
            }
        }
        w->begin.items[w->begin.count++] = c;
    }
    for (int k = 0; k < ev.hitCount; k++) {
        const b3ContactHitEvent *e = &ev.hitEvents[k];
        onescope_soa_contact c;
        memset(&c, 0, sizeof c);
        c.body_a = shape_map_get(w, e->shapeIdA);
        c.body_b = shape_map_get(w, e->shapeIdB);
        c.point[0] = e->point.x, c.point[1] = e->point.y, c.point[2] = e->point.z;
        c.normal[0] = e->normal.x, c.normal[1] = e->normal.y, c.normal[2] = e->normal.z;
        c.approach_speed = e->approachSpeed;
        w->hit.items[w->hit.count++] = c;
    }
    for (int k = 0; k < ev.endCount; k++) {
        const b3ContactEndTouchEvent *e = &ev.endEvents[k];
        onescope_soa_contact c;
        memset(&c, 0, sizeof c);
        c.body_a = shape_map_get(w, e->shapeIdA);
        c.body_b = shape_map_get(w, e->shapeIdB);
        w->end.items[w->end.count++] = c;
    }
    publish_events(w);
    return ONESCOPE_OK;
}

/* After a step: Box3D's solver can make a body's state non-finite from inputs the rules
 * accept (an extreme impulse or torque on a light body), and a Box3D built with assertions can
 * report a failed one. Either refuses the step (ENGINE): the step has run, the lanes hold what
 * Box3D left. A non-finite value comes first, named as its lane and body index with the first
 * message Box3D gave in that step ("unstable: NULL", logged before the assertion on the same
 * velocity), so a Box3D with or without assertions refuses a diverging step in the same words. */
static onescope_code check_stepped(const onescope_soa_world *w, onescope_error *error) {
    static const char in[] = "soa_world_step";
    static const char *const names[L_FX] = {
        "position_x",        "position_y",        "position_z",         "rotation_x",
        "rotation_y",        "rotation_z",        "rotation_w",         "linear_velocity_x",
        "linear_velocity_y", "linear_velocity_z", "angular_velocity_x", "angular_velocity_y",
        "angular_velocity_z"};
    for (uint32_t i = 0; i < w->live.count; i++) {
        if (w->kind[i] == ONESCOPE_SOA_REMOVED || w->kind[i] == ONESCOPE_SOA_STATIC_BOX) continue;
        for (int k = L_PX; k < L_FX; k++) {
            if (isfinite(w->lane[k][i])) continue;
            char field[96];
            snprintf(field, sizeof field, "%s[%u]", names[k], i);
            return onescope_os_fail(
                error, ONESCOPE_E_ENGINE, in, OS_NO_OFFSET, field, "a finite number after the step",
                "%s (Box3D's solver diverged%s%s%s)", onescope_os_num_float(w->lane[k][i]).s,
                box3d_said.count ? "; it said \"" : "",
                box3d_said.count ? OS_ECHO(box3d_said.first) : "", box3d_said.count ? "\"" : "");
        }
    }
    return box3d_check_asserted(in, error);
}

onescope_code onescope_soa_world_step(onescope_soa_world *world, float dt, int substeps,
                                      onescope_error *error) {
    static const char in[] = "soa_world_step";
    if (world == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "world",
                                "a non-NULL pointer", "NULL");
    OS_TRY(onescope_os_soa_check_dt(dt, in, error));
    OS_TRY(onescope_os_soa_check_substeps(substeps, in, error));
    uint32_t n = world->live.count;
    float **l = world->lane;
    static const char *const write_names[6] = {"force_x",  "force_y",  "force_z",
                                               "torque_x", "torque_y", "torque_z"};
    for (int k = 0; k < 6; k++) {
        const float *lane = l[L_FX + k];
        for (uint32_t i = 0; i < n; i++) {
            if (!isfinite(lane[i])) {
                char field[96];
                snprintf(field, sizeof field, "%s[%u]", write_names[k], i);
                return onescope_os_fail(error, ONESCOPE_E_NOT_FINITE, in, OS_NO_OFFSET, field,
                                        "a finite number (the step was refused)", "%s",
                                        onescope_os_num_float(lane[i]).s);
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (world->kind[i] == ONESCOPE_SOA_REMOVED || world->kind[i] == ONESCOPE_SOA_STATIC_BOX)
            continue;
        b3Vec3 f = {l[L_FX][i], l[L_FY][i], l[L_FZ][i]};
        b3Vec3 t = {l[L_TX][i], l[L_TY][i], l[L_TZ][i]};
        /* zero lanes are skipped so that they never wake a sleeping body */
        if (f.x != 0.0f || f.y != 0.0f || f.z != 0.0f)
            b3Body_ApplyForceToCenter(world->bodies[i], f, true);
        if (t.x != 0.0f || t.y != 0.0f || t.z != 0.0f)
            b3Body_ApplyTorque(world->bodies[i], t, true);
    }
    box3d_listen();
    b3World_Step(world->world, dt, substeps);
    world->live.step++;
    for (int k = L_FX; k <= L_TZ; k++) memset(l[k], 0, (size_t)n * sizeof(float));

    /* Box3D reports every body that moved (all awake bodies, and those that fell asleep this
     * step); the others kept their state, so their lanes are already right. */
    b3BodyEvents be = b3World_GetBodyEvents(world->world);
    for (int k = 0; k < be.moveCount; k++) {
        const b3BodyMoveEvent *e = &be.moveEvents[k];
        uintptr_t tag = (uintptr_t)e->userData;
        if (tag == 0 || tag > n) continue;
        uint32_t i = (uint32_t)(tag - 1);
        b3Vec3 v = b3Body_GetLinearVelocity(e->bodyId);
        b3Vec3 av = b3Body_GetAngularVelocity(e->bodyId);
        l[L_PX][i] = e->transform.p.x, l[L_PY][i] = e->transform.p.y, l[L_PZ][i] = e->transform.p.z;
        l[L_QX][i] = e->transform.q.v.x, l[L_QY][i] = e->transform.q.v.y;
        l[L_QZ][i] = e->transform.q.v.z, l[L_QW][i] = e->transform.q.s;
        l[L_VX][i] = v.x, l[L_VY][i] = v.y, l[L_VZ][i] = v.z;
        l[L_WX][i] = av.x, l[L_WY][i] = av.y, l[L_WZ][i] = av.z;
    }
    for (uint32_t j = 0; j < world->live.joint_count; j++) read_joint(world, j);
    onescope_code rc = collect_events(world, error);
    onescope_code bad = check_stepped(world, error);
    return bad != ONESCOPE_OK ? bad : rc;
}

onescope_code onescope_soa_world_view(onescope_soa_world *world, onescope_soa_view *view,
                                      onescope_error *error) {
    static const char in[] = "soa_world_view";
    if (world == NULL || view == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                world ? "view" : "world", "a non-NULL pointer", "NULL");
    onescope_soa_world *w = world;
    view->live = &w->live;
    view->capacity = w->capacity;
    view->joint_capacity = w->joint_capacity;
    view->stable_id = w->stable_id;
    view->kind = w->kind;
    view->parent = w->parent;
    view->limb = w->limb;
    view->position_x = w->lane[L_PX], view->position_y = w->lane[L_PY],
    view->position_z = w->lane[L_PZ];
    view->rotation_x = w->lane[L_QX], view->rotation_y = w->lane[L_QY];
    view->rotation_z = w->lane[L_QZ], view->rotation_w = w->lane[L_QW];
    view->linear_velocity_x = w->lane[L_VX], view->linear_velocity_y = w->lane[L_VY];
    view->linear_velocity_z = w->lane[L_VZ];
    view->angular_velocity_x = w->lane[L_WX], view->angular_velocity_y = w->lane[L_WY];
    view->angular_velocity_z = w->lane[L_WZ];
    view->force_x = w->lane[L_FX], view->force_y = w->lane[L_FY], view->force_z = w->lane[L_FZ];
    view->torque_x = w->lane[L_TX], view->torque_y = w->lane[L_TY], view->torque_z = w->lane[L_TZ];
    view->joint_kind = w->joint_kind;
    view->joint_body_a = w->joint_a;
    view->joint_body_b = w->joint_b;
    view->joint_angle = w->jlane[J_ANGLE];
    view->joint_frame_x = w->jlane[J_FX], view->joint_frame_y = w->jlane[J_FY];
    view->joint_frame_z = w->jlane[J_FZ], view->joint_frame_w = w->jlane[J_FW];
    view->joint_rotation_x = w->jlane[J_RX], view->joint_rotation_y = w->jlane[J_RY];
    view->joint_rotation_z = w->jlane[J_RZ], view->joint_rotation_w = w->jlane[J_RW];
    view->joint_angular_velocity_x = w->jlane[J_WX];
    view->joint_angular_velocity_y = w->jlane[J_WY];
    view->joint_angular_velocity_z = w->jlane[J_WZ];
    return ONESCOPE_OK;
}

/* ---- recording ---- */

/* One frame: every body's pose as a pose cache holds it (removed bodies absent). The one
 * frame code of record and of onescope_soa_world_poses. */
static void fill_poses(const onescope_soa_world *w, onescope_pose *poses) {
    for (uint32_t i = 0; i < w->live.count; i++) {
        onescope_pose *p = &poses[i];
        if (w->kind[i] == ONESCOPE_SOA_REMOVED) {
            p->position[0] = NAN;
            p->position[1] = p->position[2] = 0.0f;
            memset(p->rotation, 0, sizeof p->rotation);
            continue;
        }
        p->position[0] = w->lane[L_PX][i];
        p->position[1] = w->lane[L_PY][i];
        p->position[2] = w->lane[L_PZ][i];
        p->rotation[0] = w->lane[L_QX][i];
        p->rotation[1] = w->lane[L_QY][i];
        p->rotation[2] = w->lane[L_QZ][i];
        p->rotation[3] = w->lane[L_QW][i];
    }
}

static void record_frame(const onescope_soa_world *w, onescope_pose_cache *c, uint32_t frame) {
    fill_poses(w, &c->poses[(size_t)frame * c->entity_count]);
}

onescope_code onescope_soa_world_poses(const onescope_soa_world *world, onescope_pose *out,
                                       size_t count, onescope_error *error) {
    static const char in[] = "soa_world_poses";
    if (world == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                world ? "out" : "world", "a non-NULL pointer", "NULL");
    if (count != world->live.count)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "count",
                                "one pose per body (the world's body count)", "%zu for %u bodies",
                                count, world->live.count);
    fill_poses(world, out);
    return ONESCOPE_OK;
}

onescope_code onescope_soa_world_record(onescope_soa_world *world, uint32_t steps, float dt,
                                        int substeps, onescope_soa_step_fn on_step, void *user,
                                        const onescope_allocator *allocator,
                                        onescope_pose_cache **out, onescope_error *error) {
    static const char in[] = "soa_world_record";
    if (world == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET,
                                world ? "out" : "world", "a non-NULL pointer", "NULL");
    *out = NULL;
    if (steps >= ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "steps",
                                "fewer than 4194304 steps", "%u", steps);
    if (world->live.step > INT64_MAX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, OS_NO_OFFSET, "step",
                                "a step count <= 2^63-1", "%llu",
                                (unsigned long long)world->live.step);
    if (world->live.count > ONESCOPE_OSPC_MAX_ENTITIES)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, in, OS_NO_OFFSET, "count",
                                "at most 65536 bodies in a pose cache", "%u", world->live.count);
    /* refuse a bad dt or substep count before allocating anything */
    OS_TRY(onescope_os_soa_check_dt(dt, in, error));
    OS_TRY(onescope_os_soa_check_substeps(substeps, in, error));

    onescope_pose_cache *c = NULL;
    OS_TRY(onescope_pose_cache_create(3, world->live.count, steps + 1, allocator, &c, error));
    c->start_step = (int64_t)world->live.step;
    c->metres_per_unit = 1.0;
    const char *version = onescope_version_string();
    onescope_code rc = onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_UNIT_NAME, "m", 1, error);
    if (rc == ONESCOPE_OK)
        rc = onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_MODULE_ID, "onescope.box3d", 14,
                                          error);
    if (rc == ONESCOPE_OK)
        rc = onescope_pose_cache_set_text(c, ONESCOPE_POSE_TEXT_LIBRARY_VERSION, version,
                                          strlen(version), error);
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < world->live.count; i++) {
        onescope_pose_entity *e = &c->entities[i];
        e->id = world->stable_id[i];
        /* a removed body keeps its shape (absent in the frames after its removal) */
        int32_t k = world->shape_kind[i];
        e->shape = k == ONESCOPE_SOA_SPHERE    ? ONESCOPE_SHAPE_SPHERE
                   : k == ONESCOPE_SOA_CAPSULE ? ONESCOPE_SHAPE_CAPSULE
                                               : ONESCOPE_SHAPE_BOX;
        e->size[0] = world->shape_size[3 * (size_t)i];
        e->size[1] = k == ONESCOPE_SOA_SPHERE ? 0.0f : world->shape_size[3 * (size_t)i + 1];
        e->size[2] = k == ONESCOPE_SOA_SPHERE || k == ONESCOPE_SOA_CAPSULE
                         ? 0.0f
                         : world->shape_size[3 * (size_t)i + 2];
    }
    if (rc == ONESCOPE_OK) record_frame(world, c, 0);
    uint32_t frames = 1;
    for (uint32_t s = 0; rc == ONESCOPE_OK && s < steps; s++) {
        if (on_step != NULL) {
            uint32_t count = world->live.count;
            uint64_t step = world->live.step;
            bool stop = on_step(world, s, user);
            /* the cache has one entity per body and one frame per step: a callback that adds
             * a body or steps on its own would break both */
            if (world->live.count != count || world->live.step != step) {
                rc = onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "on_step",
                                      "a callback that neither adds bodies nor steps",
                                      "bodies %u -> %u, step %llu -> %llu at index %u", count,
                                      world->live.count, (unsigned long long)step,
                                      (unsigned long long)world->live.step, s);
                break;
            }
            if (stop) break;
        }
        rc = onescope_soa_world_step(world, dt, substeps, error);
        if (rc == ONESCOPE_OK) record_frame(world, c, frames++);
    }
    /* stopped early: the poses past the last frame stay allocated but are never read */
    c->frame_count = frames;
    if (rc != ONESCOPE_OK) {
        onescope_pose_cache_free(c);
        return rc;
    }
    *out = c;
    return ONESCOPE_OK;
}

/* ---- the world's image (docs/box3d-module.md, "Snapshots") ---- */

/* The image: u32 bodies, u32 joints, u64 step, a removed byte per body and per joint, every
 * body lane then every joint lane (f32, lane after lane), then Box3D's recording bytes. */
#define IMAGE_HEAD 16u

static size_t image_soa_size(uint32_t n, uint32_t nj) {
    return IMAGE_HEAD + n + nj + 4u * ((size_t)n * L_COUNT + (size_t)nj * J_COUNT);
}

/* A recording started and stopped at once: Box3D's seed snapshot of the world and its geometry,
 * the only save of a whole world Box3D offers. NULL when Box3D made none. */
static b3Recording *box3d_image(b3WorldId world) {
    b3Recording *r = b3CreateRecording(0);
    if (r == NULL) return NULL;
    b3World_StartRecording(world, r);
    b3World_StopRecording(world);
    if (b3Recording_GetSize(r) <= 0) {
        b3DestroyRecording(r);
        return NULL;
    }
    return r;
}

/* The first bytes of this build's Box3D image that say which build made it: the recording
 * header's magic, versions, pointer width and byte order, length scale (bytes 0..15), and
 * the seed snapshot's magic, version, layout hash and precision (bytes 48..63). */
#define B3_HEAD 48u
static uint8_t box3d_build[B3_HEAD + 16];
static bool box3d_build_known;

static void box3d_build_init(void) {
    box3d_allocator_once();
    b3WorldDef wd = b3DefaultWorldDef();
    wd.workerCount = 1;
    pthread_mutex_lock(&onescope_os_soa_lock);
    if (b3GetWorldCount() < B3_MAX_WORLDS) {
        b3WorldId id = b3CreateWorld(&wd);
        b3Recording *r = box3d_image(id);
        if (r != NULL && b3Recording_GetSize(r) >= (int)sizeof box3d_build) {
            memcpy(box3d_build, b3Recording_GetData(r), sizeof box3d_build);
            box3d_build_known = true;
        }
        b3DestroyRecording(r);
        b3DestroyWorld(id);
    }
    pthread_mutex_unlock(&onescope_os_soa_lock);
}

static int address_order(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Box3D writes a live hull shape's struct with its hull's address in it (a host address that
 * its restore ignores: it finds the hull in the image's geometry instead), so two images of one
 * state would differ in those bytes. Shapes of one size share a hull. Each address is zeroed
 * where it occurs, when it occurs exactly as often as shapes use it; otherwise (bytes that only
 * look like one) the image is left as it is, and module check's snapshot test says so.
 * false: no memory for the addresses. */
static bool zero_hull_addresses(const onescope_soa_world *w, uint8_t *p, size_t size) {
    uint32_t n = w->live.count, k = 0;
    uint64_t *addr = onescope_os_calloc(w->allocator, (size_t)n + 1, 3 * sizeof *addr);
    if (addr == NULL) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (w->kind[i] == ONESCOPE_SOA_REMOVED) continue;
        b3ShapeId sid;
        if (b3Body_GetShapes(w->bodies[i], &sid, 1) != 1 || b3Shape_GetType(sid) != b3_hullShape)
            continue;
        const b3HullData *h = b3Shape_GetHull(sid);
        uint64_t v = 0;
        memcpy(&v, &h, sizeof h);
        addr[k++] = v;
    }
    qsort(addr, k, sizeof *addr, address_order);
    /* distinct addresses, each with the shapes that use it and the times it was seen */
    uint64_t *uses = addr + n + 1, *seen = uses + n + 1;
    uint32_t d = 0;
    for (uint32_t j = 0; j < k; j++) {
        if (d == 0 || addr[d - 1] != addr[j]) addr[d++] = addr[j];
        uses[d - 1]++;
    }
    for (int pass = 0; pass < 2 && d > 0; pass++) {
        for (size_t o = 0; o + sizeof(void *) <= size; o++) {
            uint64_t v = 0;
            memcpy(&v, p + o, sizeof(void *));
            if (v < addr[0] || v > addr[d - 1]) continue;
            uint64_t *hit = bsearch(&v, addr, d, sizeof *addr, address_order);
            if (hit == NULL) continue;
            if (pass == 0)
                seen[hit - addr]++;
            else
                memset(p + o, 0, sizeof(void *));
        }
        bool exact = true;
        for (uint32_t j = 0; j < d && exact; j++) exact = seen[j] == uses[j];
        if (!exact) break;
    }
    onescope_os_free(w->allocator, addr);
    return true;
}

onescope_code onescope_os_soa_world_save(onescope_soa_world *world, onescope_os_writer *out,
                                         onescope_error *error) {
    static const char in[] = "soa_world_save";
    uint32_t n = world->live.count, nj = world->live.joint_count;
    b3Recording *r = box3d_image(world->world);
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, OS_NO_OFFSET, "image",
                                "Box3D's seed snapshot of the world", "Box3D made none");
    onescope_os_write_u32(out, n);
    onescope_os_write_u32(out, nj);
    onescope_os_write_u64(out, world->live.step);
    for (uint32_t i = 0; i < n; i++)
        onescope_os_write_u8(out, world->kind[i] == ONESCOPE_SOA_REMOVED);
    for (uint32_t j = 0; j < nj; j++)
        onescope_os_write_u8(out, world->joint_kind[j] == ONESCOPE_SOA_JOINT_REMOVED);
    for (int k = 0; k < L_COUNT; k++)
        for (uint32_t i = 0; i < n; i++) onescope_os_write_f32(out, world->lane[k][i]);
    for (int k = 0; k < J_COUNT; k++)
        for (uint32_t j = 0; j < nj; j++) onescope_os_write_f32(out, world->jlane[k][j]);
    /* Box3D's header, seed snapshot and geometry; the records Box3D logs between them (a state
     * hash, bounds, the end of the world) name the world's slot and are left out. */
    const uint8_t *rb = b3Recording_GetData(r);
    size_t rsize = (size_t)b3Recording_GetSize(r), at = out->size;
    uint64_t snap = onescope_os_get_u64(rb + 24), reg = onescope_os_get_u64(rb + 32);
    uint64_t reg_size = onescope_os_get_u64(rb + 40);
    if (rsize < B3_HEAD || snap > rsize - B3_HEAD || reg < B3_HEAD + snap || reg > rsize ||
        reg_size > rsize - reg) {
        b3DestroyRecording(r);
        return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, OS_NO_OFFSET, "image",
                                "Box3D's recording layout", "sizes outside its %zu bytes", rsize);
    }
    onescope_os_write_bytes(out, rb, B3_HEAD + (size_t)snap);
    onescope_os_write_bytes(out, rb + reg, (size_t)reg_size);
    b3DestroyRecording(r);
    if (!out->failed) onescope_os_put_u64(out->data + at + 32, B3_HEAD + snap);
    if (!out->failed && !zero_hull_addresses(world, out->data + at, out->size - at))
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, in, OS_NO_OFFSET, "image", NULL,
                                "no room to find the hull addresses of %u bodies", n);
    if (out->failed)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, in, OS_NO_OFFSET, "image", NULL,
                                "could not hold it (%zu bytes of lanes and Box3D's)",
                                image_soa_size(n, nj));
    return ONESCOPE_OK;
}

/* The checks Box3D would otherwise answer by printing to standard output: the image is of this
 * build, and its three sizes fit. */
static onescope_code check_box3d_part(const uint8_t *p, size_t size, uint64_t base, const char *in,
                                      onescope_error *error) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, box3d_build_init);
    if (!box3d_build_known)
        return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, base, "box3d",
                                "this build's Box3D image header", "Box3D made none");
    if (size < sizeof box3d_build || memcmp(p, box3d_build, 16) != 0 ||
        memcmp(p + B3_HEAD, box3d_build + B3_HEAD, 16) != 0)
        return onescope_os_fail(error, ONESCOPE_E_VERSION, in, base, "box3d",
                                "an image of this build of Box3D (same version, layout, "
                                "pointer width and length scale)",
                                size < sizeof box3d_build ? "%zu bytes" : "another build's", size);
    uint64_t snap = onescope_os_get_u64(p + 24), reg = onescope_os_get_u64(p + 32);
    uint64_t reg_size = onescope_os_get_u64(p + 40);
    if (snap < 16 || snap > size - B3_HEAD || reg < B3_HEAD + snap || reg > size ||
        reg_size > size - reg || size > INT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, in, base + 24, "box3d",
                                "snapshot and registry inside the image",
                                "snapshot %" PRIu64 ", registry at %" PRIu64 " (%" PRIu64
                                " bytes) in %zu",
                                snap, reg, reg_size, size);
    return ONESCOPE_OK;
}

onescope_code onescope_os_soa_world_load(onescope_soa_world *world, const uint8_t *image,
                                         size_t size, const char *in, onescope_error *error) {
    uint32_t n = world->live.count, nj = world->live.joint_count;
    if (size < IMAGE_HEAD)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, in, size, "image", "16 bytes of head",
                                "%zu bytes", size);
    if (onescope_os_get_u32(image) != n || onescope_os_get_u32(image + 4) != nj)
        return onescope_os_fail(
            error, ONESCOPE_E_MISMATCH, in, 0, "image", "the scene's bodies and joints",
            "%" PRIu32 " bodies, %" PRIu32 " joints (the scene has %" PRIu32 " and %" PRIu32 ")",
            onescope_os_get_u32(image), onescope_os_get_u32(image + 4), n, nj);
    size_t head = image_soa_size(n, nj);
    if (size < head)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, in, size, "image",
                                "the lanes of every body and joint", "%zu bytes of %zu", size,
                                head);
    const uint8_t *removed = image + IMAGE_HEAD;
    for (uint32_t i = 0; i < n + nj; i++)
        if (removed[i] > 1 || (i < n && !removed[i] && world->kind[i] == ONESCOPE_SOA_REMOVED))
            return onescope_os_fail(error, ONESCOPE_E_RANGE, in, IMAGE_HEAD + i, "removed",
                                    "0 or 1 (and 1 for what the world has removed)", "%u",
                                    removed[i]);
    OS_TRY(check_box3d_part(image + head, size - head, head, in, error));

    pthread_mutex_lock(&onescope_os_soa_lock);
    box3d_listen();
    b3RecPlayer *player = b3GetWorldCount() < B3_MAX_WORLDS
                              ? b3CreatePlayer(image + head, (int)(size - head), 1)
                              : NULL;
    if (player != NULL && box3d_said.asserted) {
        b3DestroyPlayer(player);
        player = NULL;
    }
    pthread_mutex_unlock(&onescope_os_soa_lock);
    OS_TRY(box3d_check_asserted(in, error));
    if (player == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ENGINE, in, head, "box3d",
                                "an image Box3D restores", "Box3D refused it");
    b3WorldId id = b3RecPlayer_GetWorldId(player);
    /* The image keeps every id's index and generation; only the world's slot changed. */
    uint16_t world0 = (uint16_t)(id.index1 - 1);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        if (removed[i]) continue;
        world->bodies[i].world0 = world0;
        ok = b3Body_IsValid(world->bodies[i]);
        if (ok) b3Body_SetUserData(world->bodies[i], (void *)(uintptr_t)(i + 1));
    }
    for (uint32_t j = 0; j < nj && ok; j++) {
        if (removed[n + j]) continue;
        world->joints[j].world0 = world0;
        ok =
            world->joint_kind[j] != ONESCOPE_SOA_JOINT_REMOVED && b3Joint_IsValid(world->joints[j]);
    }
    if (!ok) {
        pthread_mutex_lock(&onescope_os_soa_lock);
        b3DestroyPlayer(player);
        pthread_mutex_unlock(&onescope_os_soa_lock);
        /* the ids now name the lost world: this world is unusable, which the caller frees */
        return onescope_os_fail(error, ONESCOPE_E_MISMATCH, in, head, "box3d",
                                "every body and joint of the scene", "an image without them");
    }
    pthread_mutex_lock(&onescope_os_soa_lock);
    if (world->player != NULL)
        b3DestroyPlayer(world->player);
    else
        b3DestroyWorld(world->world);
    pthread_mutex_unlock(&onescope_os_soa_lock);
    world->world = id;
    world->player = player;
    for (uint32_t i = 0; i < n; i++) {
        if (!removed[i]) continue;
        world->bodies[i] = b3_nullBodyId;
        world->kind[i] = ONESCOPE_SOA_REMOVED;
    }
    for (uint32_t j = 0; j < nj; j++) {
        if (!removed[n + j]) continue;
        world->joints[j] = b3_nullJointId;
        world->joint_kind[j] = ONESCOPE_SOA_JOINT_REMOVED;
    }
    const uint8_t *p = removed + n + nj;
    for (int k = 0; k < L_COUNT; k++)
        for (uint32_t i = 0; i < n; i++, p += 4) world->lane[k][i] = onescope_os_get_f32(p);
    for (int k = 0; k < J_COUNT; k++)
        for (uint32_t j = 0; j < nj; j++, p += 4) world->jlane[k][j] = onescope_os_get_f32(p);
    world->live.step = onescope_os_get_u64(image + 8);
    world->begin.count = world->hit.count = world->end.count = 0;
    publish_events(world);
    return ONESCOPE_OK;
}

#endif /* ONESCOPE_HAVE_BOX3D */
