/* The SoA world's descriptor rules, shared by the world builder (soa_world.c) and the scene
 * parser (soa_scene.c) so that each rule has one copy: a scene is refused where its value is
 * written, a world built by hand with the same words. The rules need no Box3D. Every check
 * fills error with `input` as given, the descriptor's field name ("size[0]") and no offset. */
#ifndef ONESCOPE_SOA_INTERNAL_H
#define ONESCOPE_SOA_INTERNAL_H

#include "internal.h"
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

/* ---- the world's image: the Box3D module's snapshot (needs Box3D; defined only with it) ---- */

/* Writes the image of world at a step boundary to out: the SoA world's own state (step,
 * removals, every lane) and Box3D's (a recording of Box3D started and stopped at once: its
 * seed snapshot and geometry). The world is left as it was. */
onescope_code onescope_os_soa_world_save(onescope_soa_world *world, onescope_os_writer *out,
                                         onescope_error *error);

/* Makes world, freshly built from the scene the image was taken of, the world of the image:
 * Box3D's world is replaced by one restored from the image's Box3D part. Errors name input
 * and the image's byte offset. Trusts the bytes as far as Box3D's part goes: Box3D checks
 * its counts but not the indices inside its structs, so a caller lends only bytes it made or
 * authenticated (docs/box3d-module.md, "Snapshots"). */
onescope_code onescope_os_soa_world_load(onescope_soa_world *world, const uint8_t *image,
                                         size_t size, const char *input, onescope_error *error);

#endif
