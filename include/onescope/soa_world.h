/* A headless Box3D world whose state is read as a structure of arrays ("lanes").
 * Box3D decides every physical outcome; this module creates bodies and joints, steps the
 * world and copies Box3D's state into one contiguous array per component at the end of each
 * step, so that reading the state never copies. Rules, units and frames: docs/soa-world.md.
 *
 * Built only when Box3D was found at configure time. Without it every function below
 * returns ONESCOPE_E_UNSUPPORTED (or NULL / 0) and onescope_soa_world_available() is false.
 *
 * The three defs have defaults that are not zero (a gravity, capacities, an identity
 * rotation), so each must start from its _default() initialiser: it sets the private
 * internal_cookie that create / add_body / add_joint check, refusing a def made without it
 * (a zeroed or hand-filled struct) with ONESCOPE_E_ARGUMENT naming the struct. */
#ifndef ONESCOPE_SOA_WORLD_H
#define ONESCOPE_SOA_WORLD_H

#include <stdbool.h>

#include "onescope/error.h"
#include "onescope/pose_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest body or joint capacity a world accepts. */
#define ONESCOPE_SOA_MAX_CAPACITY 1000000u
/* Largest substep count step accepts. */
#define ONESCOPE_SOA_MAX_SUBSTEPS 64

/* Body kinds; the kind lane also holds ONESCOPE_SOA_REMOVED for a removed body. */
typedef enum onescope_soa_kind {
    ONESCOPE_SOA_REMOVED = 0,
    ONESCOPE_SOA_SPHERE = 1, /* dynamic sphere: size[0] radius */
    ONESCOPE_SOA_CAPSULE =
        2,                /* dynamic capsule: size[0] radius, size[1] half length along local Y */
    ONESCOPE_SOA_BOX = 3, /* dynamic box: size[] half extents */
    ONESCOPE_SOA_STATIC_BOX = 4 /* static box: size[] half extents; never moves */
} onescope_soa_kind;

/* Joint kinds; the joint kind lane holds ONESCOPE_SOA_JOINT_REMOVED once a body of the
 * joint was removed (Box3D destroys the joint with the body). */
typedef enum onescope_soa_joint_kind {
    ONESCOPE_SOA_JOINT_REMOVED = 0,
    ONESCOPE_SOA_REVOLUTE = 1,  /* hinge about the axis */
    ONESCOPE_SOA_SPHERICAL = 2, /* ball and socket; twist about the axis */
    ONESCOPE_SOA_WELD = 3       /* rigid */
} onescope_soa_joint_kind;

typedef struct onescope_soa_world onescope_soa_world;

typedef struct onescope_soa_world_def {
    uint32_t body_capacity;    /* 1..ONESCOPE_SOA_MAX_CAPACITY; default 1024 */
    uint32_t joint_capacity;   /* 0..ONESCOPE_SOA_MAX_CAPACITY; default 256 */
    float gravity[3];          /* m/s^2, world frame; default 0, -9.81, 0 (Y up) */
    bool enable_sleep;         /* Box3D may put resting bodies to sleep; default true */
    bool contact_events;       /* collect begin/hit/end contact events; default true */
    float hit_speed_threshold; /* m/s; approach speed above which a hit is reported; default 1 */
    uint32_t internal_cookie;  /* set by onescope_soa_world_def_default(); do not touch */
} onescope_soa_world_def;

typedef struct onescope_soa_body_def {
    int32_t kind;              /* onescope_soa_kind, not REMOVED; default SPHERE */
    float position[3];         /* m, world frame; the body origin (= centre of mass) */
    float rotation[4];         /* x y z w, not all zero; normalised by add_body; default identity */
    float linear_velocity[3];  /* m/s, world frame; must be 0 for a static box */
    float angular_velocity[3]; /* rad/s, world frame; must be 0 for a static box */
    float size[3];            /* m; meaning per kind (see onescope_soa_kind); default 0.5 0.5 0.5 */
    float density;            /* kg/m^3, > 0 (>= 0 for a static box); default 1000 */
    float friction;           /* >= 0; default 0.6 */
    float restitution;        /* >= 0; default 0 */
    float rolling_resistance; /* >= 0; default 0 */
    int32_t parent;           /* -1 or the index of an earlier body; default -1 */
    int32_t limb;             /* any value; stored for the consumer; default 0 */
    uint32_t internal_cookie; /* set by onescope_soa_body_def_default(); do not touch */
} onescope_soa_body_def;

typedef struct onescope_soa_joint_def {
    int32_t kind;           /* onescope_soa_joint_kind, not REMOVED; default REVOLUTE */
    int32_t body_a;         /* parent body index */
    int32_t body_b;         /* child body index, != body_a */
    float anchor[3];        /* m, world frame: the joint origin at creation */
    float axis[3];          /* world frame, non-zero: the joint frame's z axis; default 0 0 1 */
    bool collide_connected; /* the two bodies still collide; default false */
    /* limits (radians, relative to the creation pose) */
    bool enable_limit;       /* revolute: lower_angle..upper_angle */
    float lower_angle;       /* >= -0.99 pi, <= upper_angle */
    float upper_angle;       /* <= 0.99 pi */
    bool enable_cone_limit;  /* spherical: swing of B's z axis away from A's */
    float cone_angle;        /* 0..pi */
    bool enable_twist_limit; /* spherical: twist about the axis */
    float lower_twist;       /* >= -0.99 pi, <= upper_twist */
    float upper_twist;       /* <= 0.99 pi */
    /* motor: drives the relative angular velocity, bounded by max_motor_torque (N m) */
    bool enable_motor;       /* revolute and spherical */
    float motor_speed;       /* revolute: rad/s about the axis */
    float motor_velocity[3]; /* spherical: rad/s, world frame, compared with wB - wA */
    float max_motor_torque;  /* >= 0 */
    /* spring: pulls toward a target pose; weld: softens the weld (0 Hz = rigid) */
    bool enable_spring;
    float spring_hertz;         /* >= 0 */
    float spring_damping_ratio; /* >= 0 */
    float target_angle;         /* revolute: radians from the creation pose */
    float target_rotation[4]; /* spherical: x y z w of frame B relative to frame A; default identity
                               */
    uint32_t internal_cookie; /* set by onescope_soa_joint_def_default(); do not touch */
} onescope_soa_joint_def;

/* One contact event. body_a/body_b are body indices (body_a < body_b is not promised: they
 * follow Box3D's shape order). point and normal (from a to b) are world frame; for begin
 * events they come from the first manifold point when Box3D still has the contact, else
 * they are 0. End events carry only the bodies. approach_speed (m/s) is set for hits only. */
typedef struct onescope_soa_contact {
    int32_t body_a;
    int32_t body_b;
    float point[3];
    float normal[3];
    float approach_speed;
} onescope_soa_contact;

/* What changes as the world runs: counts, the step and the last step's contact events.
 * The world owns this one struct and keeps it current (add_body, add_joint, step), so a
 * view taken once reads it live through view.live: a view taken before a step sees that
 * step's counts and events. The contact arrays hold the last step's events; read them
 * through live each time (a later step may move them). */
typedef struct onescope_soa_live {
    uint32_t count;       /* bodies added (removed ones included) */
    uint32_t joint_count; /* joints added */
    uint64_t step;        /* steps taken */
    uint32_t contact_begin_count, contact_hit_count, contact_end_count; /* last step's events */
    const onescope_soa_contact *contact_begin;
    const onescope_soa_contact *contact_hit;
    const onescope_soa_contact *contact_end;
} onescope_soa_live;

/* The lanes. Every pointer indexes by body (or joint) index and stays the same for the
 * world's whole life, and so does live. State lanes are const: they change only inside step
 * (and a body's own lanes in add_body and remove_body). Force and torque are the caller's
 * write lanes. Lanes are valid up to live->count (live->joint_count for joint lanes). */
typedef struct onescope_soa_view {
    const onescope_soa_live *live; /* counts, step and contact events, always current */
    uint32_t capacity;
    uint32_t joint_capacity;

    const uint32_t *stable_id; /* index + 1, never reused */
    const int32_t *kind;       /* onescope_soa_kind */
    const int32_t *parent;
    const int32_t *limb;
    const float *position_x, *position_y, *position_z;                         /* m, world */
    const float *rotation_x, *rotation_y, *rotation_z, *rotation_w;            /* body to world */
    const float *linear_velocity_x, *linear_velocity_y, *linear_velocity_z;    /* m/s, world */
    const float *angular_velocity_x, *angular_velocity_y, *angular_velocity_z; /* rad/s, world */
    float *force_x, *force_y, *force_z;    /* N, world, at the centre of mass; cleared by step */
    float *torque_x, *torque_y, *torque_z; /* N m, world; cleared by step */

    const int32_t *joint_kind; /* onescope_soa_joint_kind */
    const int32_t *joint_body_a;
    const int32_t *joint_body_b;
    const float *joint_angle; /* rad: revolute angle, spherical twist, weld 0 */
    const float *joint_frame_x, *joint_frame_y, *joint_frame_z,
        *joint_frame_w; /* frame A to world */
    const float *joint_rotation_x, *joint_rotation_y, *joint_rotation_z,
        *joint_rotation_w; /* frame B relative to frame A, w >= 0 */
    const float *joint_angular_velocity_x, *joint_angular_velocity_y,
        *joint_angular_velocity_z; /* rad/s, wB - wA expressed in frame A */
} onescope_soa_view;

/* True when this build has Box3D (the SoA world works). */
ONESCOPE_API bool onescope_soa_world_available(void);

ONESCOPE_API onescope_soa_world_def onescope_soa_world_def_default(void);
ONESCOPE_API onescope_soa_body_def onescope_soa_body_def_default(void);
ONESCOPE_API onescope_soa_joint_def onescope_soa_joint_def_default(void);

/* Creates a world with one Box3D worker. Safe to call from several threads at once (the
 * library serialises world creation and destruction). allocator: the world object and its
 * lanes, kept for the world's life (NULL: libc). */
ONESCOPE_API onescope_code onescope_soa_world_create(const onescope_soa_world_def *def,
                                                     const onescope_allocator *allocator,
                                                     onescope_soa_world **out,
                                                     onescope_error *error);

/* Frees the world; every view pointer becomes invalid. NULL is fine. */
ONESCOPE_API void onescope_soa_world_free(onescope_soa_world *world);

/* Adds a body at the next index (== the count before the call). A refused descriptor changes
 * nothing. index may be NULL. */
ONESCOPE_API onescope_code onescope_soa_world_add_body(onescope_soa_world *world,
                                                       const onescope_soa_body_def *def,
                                                       uint32_t *index, onescope_error *error);

/* Removes a body: Box3D forgets it and its joints; its index is never reused; its lanes keep
 * the last pose with kind ONESCOPE_SOA_REMOVED and zero velocities. */
ONESCOPE_API onescope_code onescope_soa_world_remove_body(onescope_soa_world *world, uint32_t index,
                                                          onescope_error *error);

/* Adds a joint at the next joint index. index may be NULL. */
ONESCOPE_API onescope_code onescope_soa_world_add_joint(onescope_soa_world *world,
                                                        const onescope_soa_joint_def *def,
                                                        uint32_t *index, onescope_error *error);

/* Applies the force and torque lanes to the dynamic bodies, advances Box3D by dt seconds in
 * substeps substeps, clears the write lanes and copies the state into the lanes. A bad dt,
 * substep count or any non-finite write lane refuses the step before anything is touched. */
ONESCOPE_API onescope_code onescope_soa_world_step(onescope_soa_world *world, float dt,
                                                   int substeps, onescope_error *error);

/* What onescope_soa_world_act does to one dynamic body between steps, with one vector. An
 * impulse wakes the body; a velocity set wakes it when the velocity is not zero. */
typedef enum onescope_soa_action {
    ONESCOPE_SOA_LINEAR_IMPULSE = 1,      /* N s, world, at the centre of mass */
    ONESCOPE_SOA_ANGULAR_IMPULSE = 2,     /* N m s, world */
    ONESCOPE_SOA_SET_LINEAR_VELOCITY = 3, /* m/s, world */
    ONESCOPE_SOA_SET_ANGULAR_VELOCITY = 4 /* rad/s, world */
} onescope_soa_action;

/* Applies action to body index at once (not at the next step) and copies the body's state
 * into the lanes. The body must be dynamic and not removed (E_RANGE / E_BAD_STATE / E_ARGUMENT
 * naming it), v finite (E_NOT_FINITE); a refused call changes nothing. */
ONESCOPE_API onescope_code onescope_soa_world_act(onescope_soa_world *world, uint32_t index,
                                                  int action, const float v[3],
                                                  onescope_error *error);

/* Moves body index (dynamic, not removed) to position with rotation (x y z w, normalised here;
 * not all zero), its velocities kept, and copies its state into the lanes. */
ONESCOPE_API onescope_code onescope_soa_world_set_transform(onescope_soa_world *world,
                                                            uint32_t index, const float position[3],
                                                            const float rotation[4],
                                                            onescope_error *error);

/* Whether Box3D has body index awake now (false for a static, a removed or no body). */
ONESCOPE_API bool onescope_soa_world_awake(const onescope_soa_world *world, uint32_t index);

/* Fills view with the lane pointers and the pointer to the live counts. One call is enough
 * for the world's whole life: nothing in the view goes stale until onescope_soa_world_free. */
ONESCOPE_API onescope_code onescope_soa_world_view(onescope_soa_world *world,
                                                   onescope_soa_view *view, onescope_error *error);

/* The per-step callback of onescope_soa_world_record: called before each step with the
 * world and the index of the step about to be taken (0 for the first step of the recording,
 * so index k runs after frame k was recorded). It may apply forces through the view's write
 * lanes, read any lane, and remove bodies; it must not add bodies or joints, step or free the
 * world (record refuses a recording whose body count or step changed under it). Return true
 * to stop before step `index`: the recording then holds index + 1 frames. */
typedef bool (*onescope_soa_step_fn)(onescope_soa_world *world, uint32_t index, void *user);

/* Steps the world `steps` times and records every body as an OSPC pose cache: frame 0 is
 * the state before the first of those steps, frame k after k steps (steps + 1 frames, fewer
 * when on_step stops early; start_step = the world's step count at the call). Before each
 * step on_step(world, k, user) runs (NULL: none), so forces can be applied while recording
 * exactly as in a loop of onescope_soa_world_step. Entity k is body k with id = stable id,
 * its shape and size; removed bodies are absent. metres_per_unit 1, unit "m", module id
 * "onescope.box3d", library version onescope_version_string(). Free with
 * onescope_pose_cache_free. */
ONESCOPE_API onescope_code onescope_soa_world_record(onescope_soa_world *world, uint32_t steps,
                                                     float dt, int substeps,
                                                     onescope_soa_step_fn on_step, void *user,
                                                     const onescope_allocator *allocator,
                                                     onescope_pose_cache **out,
                                                     onescope_error *error);

/* Fills out[0..count) with the world's current frame exactly as onescope_soa_world_record
 * records it (pose i is body i: position and rotation from the lanes; a removed body absent,
 * NaN x). count must be the body count (view.live->count), else ONESCOPE_E_ARGUMENT. With
 * onescope_soa_world_record(world, 0, ...) for the head (frame 0, every entity), a loop of
 * onescope_soa_world_step and this call appends a recording to a streaming pose writer
 * frame by frame (onescope box3d-dump does). */
ONESCOPE_API onescope_code onescope_soa_world_poses(const onescope_soa_world *world,
                                                    onescope_pose *out, size_t count,
                                                    onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif
