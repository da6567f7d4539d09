/* onescope box3d-dump SCENE.json OUT.ospc --steps N: reads a JSON scene
 * (onescope_soa_scene_parse), records N steps of its Box3D world (onescope_soa_scene_record)
 * and writes the pose cache atomically. Scene format: docs/soa-world.md. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#define SCENE_MAX_STEPS (ONESCOPE_OSPC_MAX_FRAMES - 1u)

int cmd_box3d_dump(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL};
    int n = 0;
    long long steps = -1;
    bool dashdash = false;
    for (int i = 0; i < argc; i++) {
        if (!dashdash && cli_is_help(argv[i])) {
            printf(
                "usage: onescope box3d-dump SCENE.json OUT.ospc --steps N\n"
                "Builds a Box3D world from the JSON scene (docs/soa-world.md), steps it N times\n"
                "and writes every body's pose before the first step and after each step as an\n"
                "OSPC pose cache (N + 1 frames, metres). '-' reads the scene from standard input\n"
                "or writes the cache to standard output.\n"
                "exit: 0 written, 1 invalid scene, no Box3D in this build or unwritable OUT, 2 "
                "usage\n");
            return CLI_OK;
        }
        if (!dashdash && strcmp(argv[i], "--") == 0) {
            dashdash = true;
        } else if (!dashdash && strcmp(argv[i], "--steps") == 0) {
            if (i + 1 >= argc) return cli_usage_error("box3d-dump", "--steps needs a number");
            char *end = NULL;
            steps = strtoll(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || steps < 1 || steps > (long long)SCENE_MAX_STEPS)
                return cli_usage_error("box3d-dump", "--steps wants 1..%u, got '%s'",
                                       SCENE_MAX_STEPS, argv[i]);
        } else if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("box3d-dump", "unknown option '%s'", argv[i]);
        } else {
            if (n == 2) return cli_usage_error("box3d-dump", "takes SCENE.json and OUT.ospc");
            paths[n++] = argv[i];
        }
    }
    if (n != 2) return cli_usage_error("box3d-dump", "takes SCENE.json and OUT.ospc");
    if (steps < 0) return cli_usage_error("box3d-dump", "needs --steps N");
    const char *name = cli_input_name(paths[0]);
    if (cli_refuse_same_file("box3d-dump", paths[0], paths[1])) return CLI_FAIL;
    onescope_error err;
    onescope_buffer in;
    if (onescope_file_read(paths[0], 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    onescope_parse_options opts = onescope_parse_options_default();
    onescope_soa_scene *scene = NULL;
    onescope_pose_cache *cache = NULL;
    int status = CLI_FAIL;
    onescope_code rc = onescope_soa_scene_parse(in.data, in.size, name, &opts, &scene, &err);
    onescope_buffer_free(&in);
    if (rc == ONESCOPE_OK && !onescope_soa_world_available()) {
        fprintf(stderr,
                "onescope box3d-dump: Box3D is not built in (configure with Box3D installed)\n");
        goto done;
    }
    if (rc == ONESCOPE_OK)
        rc = onescope_soa_scene_record(scene, (uint32_t)steps, NULL, &cache, &err);
    /* the scene field names the scene file without its directory ("" for standard input) */
    const char *base = strcmp(paths[0], "-") == 0 ? "" : paths[0];
    if (strrchr(base, '/') != NULL) base = strrchr(base, '/') + 1;
    if (rc == ONESCOPE_OK)
        rc =
            onescope_pose_cache_set_text(cache, ONESCOPE_POSE_TEXT_SCENE, base, strlen(base), &err);
    if (rc == ONESCOPE_OK) rc = onescope_pose_cache_write_file(cache, paths[1], &err);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        goto done;
    }
    if (!cli.quiet && strcmp(paths[1], "-") != 0)
        printf("%s: %u bodies, %lld steps -> %s\n", name, scene->body_count, steps, paths[1]);
    status = CLI_OK;
done:
    onescope_pose_cache_free(cache);
    onescope_soa_scene_free(scene);
    return status;
}
