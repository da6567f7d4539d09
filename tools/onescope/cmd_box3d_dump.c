/* onescope box3d-dump SCENE.json OUT.ospc --steps N [--segments]: reads a JSON scene
 * (onescope_soa_scene_parse), steps its Box3D world N times and appends every frame to a
 * streaming pose writer as it goes (memory does not grow with N). Scene format:
 * docs/soa-world.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#define SCENE_MAX_STEPS (ONESCOPE_OSPC_MAX_FRAMES - 1u)

/* The file a recording would make: the head's bytes plus frame 0 and one frame per step.
 * Refused from the counts alone, before a step runs or a file is created. */
static onescope_code check_size(const onescope_pose_cache *head, uint32_t steps, uint64_t limit,
                                const char *name, onescope_error *err) {
    uint64_t total;
    onescope_code rc = onescope_pose_cache_head_size(head, &total, err);
    if (rc != ONESCOPE_OK) return rc;
    total += ((uint64_t)steps + 1) * head->entity_count * ONESCOPE_OSPC_POSE_BYTES;
    if (total <= limit) return ONESCOPE_OK;
    memset(err, 0, sizeof *err);
    err->code = ONESCOPE_E_TOO_LARGE;
    err->offset = UINT64_MAX;
    snprintf(err->input, sizeof err->input, "%s", name);
    snprintf(err->field, sizeof err->field, "output size");
    snprintf(err->expected, sizeof err->expected,
             "at most %" PRIu64 " bytes (the pose-cache file limit; ask for --segments)", limit);
    snprintf(err->found, sizeof err->found,
             "%" PRIu64 " bytes (%" PRIu32 " frames of %" PRIu32 " bodies)", total, steps + 1,
             head->entity_count);
    return ONESCOPE_E_TOO_LARGE;
}

/* Steps a fresh world of the scene `steps` times, appending frame 0 and every step's frame
 * to a writer opened with head. */
static onescope_code dump_frames(const onescope_soa_scene *scene, onescope_pose_cache *head,
                                 uint32_t steps, const char *name, const char *path,
                                 const onescope_pose_writer_options *wo, onescope_error *err) {
    onescope_code rc =
        wo->segments ? ONESCOPE_OK : check_size(head, steps, wo->max_segment_bytes, name, err);
    onescope_soa_world *w = NULL;
    onescope_pose_writer *writer = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_soa_scene_create_world(scene, NULL, &w, err);
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_open(path, head, wo, NULL, &writer, err);
    /* the head's one frame is the frame buffer */
    for (uint32_t s = 0; rc == ONESCOPE_OK && s <= steps; s++) {
        if (s > 0) rc = onescope_soa_world_step(w, scene->dt, scene->substeps, err);
        if (rc == ONESCOPE_OK)
            rc = onescope_soa_world_poses(w, head->poses, head->entity_count, err);
        if (rc == ONESCOPE_OK)
            rc = onescope_pose_writer_append(writer, head->poses, head->entity_count, err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_pose_writer_close(writer, NULL, err);
    onescope_pose_writer_discard(writer); /* a failed run leaves no partial behind */
    onescope_soa_world_free(w);
    return rc;
}

enum { OPT_STEPS, OPT_SEGMENTS };
static const cli_option options[] = {
    [OPT_STEPS] = {"steps", 's', "N", "how many steps, 1 or more (required; N + 1 frames)"},
    [OPT_SEGMENTS] = {"segments", 0, NULL, "past 256 MiB: roll over into OUT-0001.ospc, ..."},
};
const cli_spec cli_spec_box3d_dump = {
    .name = "box3d-dump",
    .operands = "SCENE.json OUT.ospc",
    .about = "Builds a Box3D world from the JSON scene (docs/soa-world.md), steps it N times\n"
             "and writes every body's pose before the first step and after each step as an\n"
             "OSPC pose cache (N + 1 frames, metres). '-' reads the scene from standard input\n"
             "or writes the cache to standard output. Frames are written as the world runs,\n"
             "so memory does not grow with N. A dump past the 256 MiB file limit is refused\n"
             "before anything is written, or with --segments rolls over into OUT-0001.ospc,\n"
             "... (docs/pose-cache.md, \"Segments\"; not with OUT '-').\n",
    .exit_codes = "0 written, 1 invalid scene, no Box3D in this build or unwritable OUT, 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

int cmd_box3d_dump(int argc, char **argv) {
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    cli_args a;
    int status = cli_parse(&cli_spec_box3d_dump, argc, argv, 2, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *const paths[2] = {a.operands[0], a.operands[1]};
    if (!a.seen[OPT_STEPS]) return cli_usage_error("box3d-dump", "needs --steps N");
    const char *sv = a.value[OPT_STEPS];
    uint64_t steps;
    if (!cli_parse_u64(sv, SCENE_MAX_STEPS, &steps) || steps < 1)
        return cli_usage_error("box3d-dump", "--steps wants 1..%u, got '%s'", SCENE_MAX_STEPS, sv);
    wo.segments = a.seen[OPT_SEGMENTS];
    bool to_stdout = strcmp(paths[1], "-") == 0;
    if (wo.segments && to_stdout)
        return cli_usage_error("box3d-dump", "--segments needs a file OUT, not '-'");
    const char *name = cli_input_name(paths[0]);
    if (!cli_check_output("box3d-dump", paths[0], paths[1])) return CLI_FAIL;
    onescope_error err;
    onescope_buffer in;
    if (onescope_file_read(paths[0], 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    onescope_parse_options opts = onescope_parse_options_default();
    onescope_soa_scene *scene = NULL;
    onescope_pose_cache *cache = NULL;
    status = CLI_FAIL;
    onescope_code rc = onescope_soa_scene_parse(in.data, in.size, name, &opts, &scene, &err);
    onescope_buffer_free(&in);
    if (rc == ONESCOPE_OK && !onescope_soa_world_available()) {
        fprintf(stderr,
                "onescope box3d-dump: Box3D is not built in (configure with Box3D installed)\n");
        goto done;
    }
    /* Standard output cannot take a partial file: the cache is built in memory there (its
     * size checked first). A file gets the head from a zero-step recording (entities, names,
     * texts: the same rules and errors as a whole one) and then one frame per step. */
    if (rc == ONESCOPE_OK)
        rc = onescope_soa_scene_record(scene, to_stdout ? (uint32_t)steps : 0, NULL, &cache, &err);
    /* the scene field names the scene file without its directory ("" for standard input) */
    const char *base = strcmp(paths[0], "-") == 0 ? "" : paths[0];
    if (strrchr(base, '/') != NULL) base = strrchr(base, '/') + 1;
    if (rc == ONESCOPE_OK)
        rc =
            onescope_pose_cache_set_text(cache, ONESCOPE_POSE_TEXT_SCENE, base, strlen(base), &err);
    if (rc == ONESCOPE_OK && to_stdout) rc = onescope_pose_cache_write_file(cache, paths[1], &err);
    if (rc == ONESCOPE_OK && !to_stdout)
        rc = dump_frames(scene, cache, (uint32_t)steps, name, paths[1], &wo, &err);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        goto done;
    }
    if (!cli.quiet && strcmp(paths[1], "-") != 0)
        printf("%s: %u bodies, %lld steps -> %s\n", cli_shown(name), scene->body_count,
               (long long)steps, cli_shown(paths[1]));
    status = CLI_OK;
done:
    onescope_pose_cache_free(cache);
    onescope_soa_scene_free(scene);
    return status;
}
