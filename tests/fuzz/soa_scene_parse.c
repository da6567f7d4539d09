/* Fuzz target: SoA scenes (JSON): parse. A parsed scene keeps the format's ranges; a refused
 * one names a JSON path for every error found while reading, and its line and column are
 * those of its offset. Building a world is not fuzzed here (Box3D is optional and slow). */
#include "fuzz_helpers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    onescope_soa_scene *scene = NULL;
    onescope_error err;
    onescope_code rc = onescope_soa_scene_parse(data, size, "fuzz", &env.options, &scene, &err);
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(scene == NULL);
        fuzz_check_error(&env, rc, &err, "fuzz", size);
        if (err.field[0] != '\0' && rc != ONESCOPE_E_TOO_LARGE && rc != ONESCOPE_E_ARGUMENT) {
            /* found while reading: the position is where the path's value starts */
            FUZZ_ASSERT(err.has_offset && err.offset < size);
            uint32_t line = 1, column = 1;
            for (size_t i = 0; i < err.offset; i++) {
                if (data[i] == '\n')
                    line++, column = 1;
                else if ((data[i] & 0xC0) != 0x80)
                    column++;
            }
            FUZZ_ASSERT_MSG(err.line == line && err.column == column,
                            "%u:%u for offset %llu (%u:%u)", err.line, err.column,
                            (unsigned long long)err.offset, line, column);
        }
        fuzz_env_finish(&env);
        return 0;
    }
    FUZZ_ASSERT(scene->body_count >= 1 && scene->body_count <= ONESCOPE_OSPC_MAX_ENTITIES);
    FUZZ_ASSERT(scene->bodies != NULL);
    FUZZ_ASSERT((scene->joints != NULL) == (scene->joint_count > 0));
    FUZZ_ASSERT(scene->dt > 0.0f && scene->dt <= 1.0f);
    FUZZ_ASSERT(scene->substeps >= 1 && scene->substeps <= ONESCOPE_SOA_MAX_SUBSTEPS);
    FUZZ_ASSERT(scene->world.body_capacity == scene->body_count);
    FUZZ_ASSERT(scene->world.joint_capacity == scene->joint_count);
    for (uint32_t i = 0; i < scene->body_count; i++) {
        const onescope_soa_scene_body *b = &scene->bodies[i];
        FUZZ_ASSERT(b->def.kind >= ONESCOPE_SOA_SPHERE && b->def.kind <= ONESCOPE_SOA_STATIC_BOX);
        FUZZ_ASSERT(b->line >= 1 && b->column >= 1);
    }
    for (uint32_t i = 0; i < scene->joint_count; i++) {
        const onescope_soa_scene_joint *j = &scene->joints[i];
        FUZZ_ASSERT(j->def.kind >= ONESCOPE_SOA_REVOLUTE && j->def.kind <= ONESCOPE_SOA_WELD);
        FUZZ_ASSERT(j->line >= 1 && j->column >= 1);
    }
    onescope_soa_scene_free(scene);
    fuzz_env_finish(&env);
    return 0;
}
