/* onescope ghost REPLAY.ostm OUT.ospc --from STEP --frames N [--offset X,Y,Z] [--label TEXT]
 * [--segments]: frames go to OUT through the streaming pose writer as the replay runs. A module
 * recording (OSTM v2) gives its module's entities, through the module it names. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_FROM, OPT_FRAMES, OPT_OFFSET, OPT_LABEL, OPT_SEGMENTS };
static const cli_option options[] = {
    [OPT_FROM] = {"from", 0, "ROW", "first frame: the world at hash row ROW (required)"},
    [OPT_FRAMES] = {"frames", 0, "N", "how many frames, at least 1 (required)"},
    [OPT_OFFSET] = {"offset", 'o', "X,Y,Z",
                    "shift every position, whole millimetres (a module's units for a module "
                    "recording; default 0,0,0)"},
    [OPT_LABEL] = {"label", 0, "TEXT", "the cache's label text"},
    [OPT_SEGMENTS] = {"segments", 0, NULL, "past 256 MiB: roll over into OUT-0001.ospc, ..."},
};
const cli_spec cli_spec_ghost = {
    .name = "ghost",
    .operands = "REPLAY.ostm OUT.ospc",
    .about = "Runs the replay and writes its bodies' positions for N frames as a pose cache\n"
             "(docs/ghost.md): frame k is the world at hash row ROW + k (ROW steps after the\n"
             "replay's start), one sphere per body, absent bodies as absent entities, every\n"
             "position shifted by the offset (z must be 0 for a 2D replay). Frames are written\n"
             "as the replay runs, so memory does not grow with N. A ghost past the 256 MiB file\n"
             "limit is refused before anything is written, or with --segments rolls over into\n"
             "OUT-0001.ospc, OUT-0002.ospc, ... (docs/pose-cache.md, \"Segments\"; not with\n"
             "OUT '-').\n"
             "A module recording (OSTM v2) runs through the module it names (the test module,\n"
             "or one loaded with --module): one point entity per entity id of any frame,\n"
             "absent where the world lacks it, in the module's units.\n",
    .exit_codes = "0 written; 1 an invalid replay or frames past its end (OUT is not created); "
                  "2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

int cmd_ghost(int argc, char **argv) {
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    onescope_ghost_options o = onescope_ghost_options_default();
    uint64_t v;
    cli_args a;
    int status = cli_parse(&cli_spec_ghost, argc, argv, 2, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *const paths[2] = {a.operands[0], a.operands[1]};
    if (!a.seen[OPT_FROM] || !a.seen[OPT_FRAMES])
        return cli_usage_error("ghost", "needs --from and --frames");
    if (!cli_parse_u64(a.value[OPT_FROM], UINT32_MAX, &v))
        return cli_usage_error("ghost", "--from must be a row number, not '%s'", a.value[OPT_FROM]);
    o.from = (uint32_t)v;
    if (!cli_parse_u64(a.value[OPT_FRAMES], UINT32_MAX, &v) || v == 0)
        return cli_usage_error("ghost", "--frames must be a positive number, not '%s'",
                               a.value[OPT_FRAMES]);
    o.frames = (uint32_t)v;
    if (a.seen[OPT_OFFSET] && !cli_parse_i32_list(a.value[OPT_OFFSET], o.offset, 3))
        return cli_usage_error("ghost", "--offset must be X,Y,Z in whole units, not '%s'",
                               a.value[OPT_OFFSET]);
    if (a.seen[OPT_LABEL]) o.label = a.value[OPT_LABEL];
    wo.segments = a.seen[OPT_SEGMENTS];
    if (wo.segments && strcmp(paths[1], "-") == 0)
        return cli_usage_error("ghost", "--segments needs a file OUT, not '-'");
    if (!cli_check_output("ghost", paths[0], paths[1])) return CLI_FAIL;
    onescope_error err;
    onescope_buffer in;
    if (onescope_file_read(paths[0], 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    const char *name = cli_input_name(paths[0]);
    o.replay_name = strcmp(paths[0], "-") == 0 ? NULL : paths[0];
    o.name = name;
    /* a module recording (OSTM v2) runs through the module it names; a v1 replay through the
     * test module's own run */
    onescope_replay *r = NULL;
    onescope_recording *rec = NULL;
    const onescope_module *m = NULL;
    onescope_code rc;
    if (onescope_format_detect(in.data, in.size) == ONESCOPE_FORMAT_RECORDING) {
        rc = onescope_recording_parse(in.data, in.size, name, NULL, &rec, &err);
        if (rc == ONESCOPE_OK)
            rc = cli_module_for(onescope_recording_module_id(rec),
                                onescope_recording_module_version(rec), name, &m, &err);
    } else {
        rc = onescope_replay_parse(in.data, in.size, name, NULL, &r, &err);
    }
    onescope_buffer_free(&in);
    onescope_ghost_result res;
    if (rc != ONESCOPE_OK) {
        /* nothing to run */
    } else if (strcmp(paths[1], "-") == 0) {
        /* standard output cannot take a partial file: the cache is built in memory (its
         * size is checked first) and written in one piece */
        onescope_pose_cache *c;
        rc = rec ? onescope_ghost_recording_create(rec, m, &o, NULL, &c, &err)
                 : onescope_ghost_create(r, &o, NULL, &c, &err);
        if (rc == ONESCOPE_OK) rc = onescope_pose_cache_write_file(c, paths[1], &err);
        onescope_pose_cache_free(c);
    } else {
        rc = rec ? onescope_ghost_recording_write(rec, m, &o, paths[1], &wo, NULL, &res, &err)
                 : onescope_ghost_write(r, &o, paths[1], &wo, NULL, &res, &err);
        if (rc == ONESCOPE_OK && !cli.quiet)
            fprintf(stderr, "%s: %" PRIu32 " %s, %" PRIu32 " frames from step %" PRId64 "\n",
                    cli_shown(paths[1]), res.entity_count, rec ? "entities" : "bodies",
                    res.frame_count, res.start_step);
    }
    onescope_recording_free(rec);
    onescope_replay_free(r);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
