/* The SoA world's descriptor rules, shared by the world builder (soa_world.c) and the scene
 * parser (soa_scene.c) so that each rule has one copy: a scene is refused where its value is
 * written, a world built by hand with the same words. The rules need no Box3D. Every check
 * fills error with `input` as given, the descriptor's field name ("size[0]") and no offset. */
#ifndef ONESCOPE_SOA_INTERNAL_H
#define ONESCOPE_SOA_INTERNAL_H

#include "onescope/soa_world.h"

/* The world settings: the def's cookie, capacities, gravity and hit speed. */
onescope_code onescope_os_soa_check_world(const onescope_soa_world_def *def, const char *input,
                                          onescope_error *error);

/* A step's dt (finite, 0 < dt <= 1 s) and substeps (1..ONESCOPE_SOA_MAX_SUBSTEPS). */
onescope_code onescope_os_soa_check_dt(float dt, const char *input, onescope_error *error);
onescope_code onescope_os_soa_check_substeps(int substeps, const char *input,
                                             onescope_error *error);

/* A body added after `earlier` bodies (its parent must be one of them); rotation gets the
 * unit quaternion x y z w. The world's capacity is the world's own check. */
onescope_code onescope_os_soa_check_body(const onescope_soa_body_def *d, uint32_t earlier,
                                         const char *input, float rotation[4],
                                         onescope_error *error);

/* A joint's own fields (kind, anchor, axis, limits, motor, spring); axis gets the unit axis and
 * target the unit target rotation (identity unless a spherical joint has a spring). */
onescope_code onescope_os_soa_check_joint(const onescope_soa_joint_def *d, const char *input,
                                          float axis[3], float target[4], onescope_error *error);

/* The kind of body `index` of `count` (ONESCOPE_SOA_REMOVED for a removed one). */
typedef int onescope_os_soa_kind_fn(const void *user, uint32_t index);

/* A joint's two bodies: indices of existing, not removed, distinct bodies, not both static. */
onescope_code onescope_os_soa_check_joint_bodies(const onescope_soa_joint_def *d, uint32_t count,
                                                 onescope_os_soa_kind_fn *kind, const void *user,
                                                 const char *input, onescope_error *error);

#endif
