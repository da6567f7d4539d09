/* A scene for the SoA world: the world settings, the step settings and every body and joint
 * descriptor, read from a small JSON document (format and messages: docs/soa-world.md,
 * "Scene"). Parsing needs no Box3D; building or recording a world from a scene returns
 * ONESCOPE_E_UNSUPPORTED in a build without it. */
#ifndef ONESCOPE_SOA_SCENE_H
#define ONESCOPE_SOA_SCENE_H

#include "onescope/common.h"
#include "onescope/error.h"
#include "onescope/pose_cache.h"
#include "onescope/soa_world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onescope_soa_scene_body {
    onescope_soa_body_def def;
    char *name;            /* NUL-terminated UTF-8; NULL when the scene gives none */
    uint32_t line, column; /* where the body's object starts in the scene text (1-based) */
} onescope_soa_scene_body;

typedef struct onescope_soa_scene_joint {
    onescope_soa_joint_def def;
    uint32_t line, column; /* where the joint's object starts in the scene text (1-based) */
} onescope_soa_scene_joint;

typedef struct onescope_soa_scene {
    /* gravity and enable_sleep from the scene; body_capacity and joint_capacity are the
     * numbers of bodies and joints; the other fields are onescope_soa_world_def_default()'s */
    onescope_soa_world_def world;
    float dt;             /* s per step, (0, 1]; default 1/60 */
    int substeps;         /* 1..ONESCOPE_SOA_MAX_SUBSTEPS; default 4 */
    uint32_t body_count;  /* 1..ONESCOPE_OSPC_MAX_ENTITIES */
    uint32_t joint_count; /* 0..ONESCOPE_SOA_MAX_CAPACITY */
    onescope_soa_scene_body *bodies;
    onescope_soa_scene_joint *joints; /* NULL when joint_count is 0 */
    char *name; /* the input name given to parse (errors from build and record) */
    const onescope_allocator *allocator; /* what parse allocated with */
} onescope_soa_scene;

/* Reads a scene document. The descriptors are only read here (types, kind words, dt,
 * substeps and counts are checked); the library checks each descriptor when a world is built
 * from it. Every failure names the JSON path in error->field and the line and column (and
 * byte offset) where the offending value starts. Free with onescope_soa_scene_free. */
ONESCOPE_API onescope_code onescope_soa_scene_parse(const void *data, size_t size, const char *name,
                                                    const onescope_parse_options *options,
                                                    onescope_soa_scene **out,
                                                    onescope_error *error);

/* Frees the scene and its names. NULL is fine. */
ONESCOPE_API void onescope_soa_scene_free(onescope_soa_scene *scene);

/* Creates a world with the scene's settings and adds its bodies and joints in order. A
 * descriptor the library refuses fails with the scene's name as input, the JSON path of the
 * descriptor's field ("bodies[2].size[0]") and the line and column of the body or joint
 * object. allocator: the world's (NULL: libc). */
ONESCOPE_API onescope_code onescope_soa_scene_create_world(const onescope_soa_scene *scene,
                                                           const onescope_allocator *allocator,
                                                           onescope_soa_world **out,
                                                           onescope_error *error);

/* Builds the scene's world, records `steps` steps with the scene's dt and substeps
 * (onescope_soa_world_record: steps + 1 frames) and names each entity after its body (when
 * the body has a name), then destroys the world. Free the cache with onescope_pose_cache_free. */
ONESCOPE_API onescope_code onescope_soa_scene_record(const onescope_soa_scene *scene,
                                                     uint32_t steps,
                                                     const onescope_allocator *allocator,
                                                     onescope_pose_cache **out,
                                                     onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif
