/* A parsed SoA scene put to work: the Box3D world it describes, and a recording of it as a
 * pose cache. Refusals of the world are named by the scene's JSON path and position. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/soa_scene.h"

/* Names a library refusal of descriptor `index` of list ("bodies"/"joints") by the scene:
 * input = the scene's name, field = its JSON path, position = the descriptor's object. */
static onescope_code relabel(const onescope_soa_scene *s, onescope_error *error, onescope_code rc,
                             const char *list, uint32_t index, uint32_t line, uint32_t column) {
    if (error == NULL) return rc;
    char field[256];
    if (error->field[0])
        snprintf(field, sizeof field, "%s[%u].%s", list, index, error->field);
    else
        snprintf(field, sizeof field, "%s[%u]", list, index);
    onescope_os_copy_text(error->field, sizeof error->field, field);
    onescope_os_copy_text(error->input, sizeof error->input, s->name ? s->name : "scene");
    error->has_offset = false;
    error->offset = 0;
    error->line = line;
    error->column = column;
    return rc;
}

static onescope_code check_scene(const onescope_soa_scene *s, const char *in, const void *out,
                                 onescope_error *error) {
    if (s == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, s ? "out" : "scene",
                                "a non-NULL pointer", "NULL");
    if (s->bodies == NULL && s->body_count > 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "bodies",
                                "a non-NULL pointer", "NULL");
    if (s->joints == NULL && s->joint_count > 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, in, OS_NO_OFFSET, "joints",
                                "a non-NULL pointer", "NULL");
    return ONESCOPE_OK;
}

onescope_code onescope_soa_scene_create_world(const onescope_soa_scene *scene,
                                              const onescope_allocator *allocator,
                                              onescope_soa_world **out, onescope_error *error) {
    OS_TRY(check_scene(scene, "soa_scene_create_world", out, error));
    *out = NULL;
    onescope_soa_world *w = NULL;
    onescope_code rc = onescope_soa_world_create(&scene->world, allocator, &w, error);
    if (rc != ONESCOPE_OK) {
        /* a refused world setting (gravity) keeps its field, which is the document's key */
        if (rc != ONESCOPE_E_UNSUPPORTED && error != NULL)
            onescope_os_copy_text(error->input, sizeof error->input,
                                  scene->name ? scene->name : "scene");
        return rc;
    }
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < scene->body_count; i++) {
        const onescope_soa_scene_body *b = &scene->bodies[i];
        rc = onescope_soa_world_add_body(w, &b->def, NULL, error);
        if (rc != ONESCOPE_OK) relabel(scene, error, rc, "bodies", i, b->line, b->column);
    }
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < scene->joint_count; i++) {
        const onescope_soa_scene_joint *j = &scene->joints[i];
        rc = onescope_soa_world_add_joint(w, &j->def, NULL, error);
        if (rc != ONESCOPE_OK) relabel(scene, error, rc, "joints", i, j->line, j->column);
    }
    if (rc != ONESCOPE_OK) {
        onescope_soa_world_free(w);
        return rc;
    }
    *out = w;
    return ONESCOPE_OK;
}

onescope_code onescope_soa_scene_record(const onescope_soa_scene *scene, uint32_t steps,
                                        const onescope_allocator *allocator,
                                        onescope_pose_cache **out, onescope_error *error) {
    OS_TRY(check_scene(scene, "soa_scene_record", out, error));
    *out = NULL;
    onescope_soa_world *w = NULL;
    OS_TRY(onescope_soa_scene_create_world(scene, allocator, &w, error));
    onescope_pose_cache *cache = NULL;
    onescope_code rc = onescope_soa_world_record(w, steps, scene->dt, scene->substeps, NULL, NULL,
                                                 allocator, &cache, error);
    onescope_soa_world_free(w);
    if (rc != ONESCOPE_OK) {
        if (error != NULL)
            onescope_os_copy_text(error->input, sizeof error->input,
                                  scene->name ? scene->name : "scene");
        return rc;
    }
    /* a fresh world removes no body: entity i is body i */
    for (uint32_t i = 0; i < scene->body_count && i < cache->entity_count; i++) {
        const onescope_soa_scene_body *b = &scene->bodies[i];
        if (b->name == NULL) continue;
        rc = onescope_pose_cache_set_entity_name(cache, i, b->name, strlen(b->name), error);
        if (rc != ONESCOPE_OK) {
            relabel(scene, error, rc, "bodies", i, b->line, b->column);
            if (error != NULL) snprintf(error->field, sizeof error->field, "bodies[%u].name", i);
            onescope_pose_cache_free(cache);
            return rc;
        }
    }
    *out = cache;
    return ONESCOPE_OK;
}
