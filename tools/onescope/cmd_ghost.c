/* onescope ghost REPLAY.ostm OUT.ospc --from STEP --frames N [--offset X,Y,Z] [--label TEXT]
 * [--segments]: frames go to OUT through the streaming pose writer as the replay runs. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void help(void) {
    printf("usage: onescope ghost REPLAY.ostm OUT.ospc --from ROW --frames N [--offset X,Y,Z]\n"
           "                      [--label TEXT] [--segments]\n"
           "Runs the replay and writes its bodies' positions for N frames as a pose cache\n"
           "(docs/ghost.md): frame k is the world at hash row ROW + k (ROW steps after the\n"
           "replay's start), one sphere per body, absent bodies as absent entities, every\n"
           "position shifted by the offset in millimetres (integers, default 0,0,0; z must be\n"
           "0 for a 2D replay). Frames are written as the replay runs, so memory does not grow\n"
           "with N. A ghost past the 256 MiB file limit is refused before anything is written,\n"
           "or with --segments rolls over into OUT-0001.ospc, OUT-0002.ospc, ...\n"
           "(docs/pose-cache.md, \"Segments\"; not with OUT '-').\n"
           "exit: 0 written; 1 an invalid replay or frames past its end (OUT is not created);\n"
           "2 usage\n");
}

int cmd_ghost(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL};
    int npaths = 0;
    bool have_from = false, have_frames = false;
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    onescope_ghost_options o = onescope_ghost_options_default();
    uint64_t v;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            help();
            return CLI_OK;
        }
        if (strcmp(a, "--from") == 0 || strcmp(a, "--frames") == 0 || strcmp(a, "--offset") == 0 ||
            strcmp(a, "--label") == 0) {
            if (i + 1 >= argc) return cli_usage_error("ghost", "%s needs a value", a);
            const char *val = argv[++i];
            if (strcmp(a, "--from") == 0) {
                if (!cli_parse_u64(val, UINT32_MAX, &v))
                    return cli_usage_error("ghost", "--from must be a row number, not '%s'", val);
                o.from = (uint32_t)v;
                have_from = true;
            } else if (strcmp(a, "--frames") == 0) {
                if (!cli_parse_u64(val, UINT32_MAX, &v) || v == 0)
                    return cli_usage_error("ghost", "--frames must be a positive number, not '%s'",
                                           val);
                o.frames = (uint32_t)v;
                have_frames = true;
            } else if (strcmp(a, "--offset") == 0) {
                if (!cli_parse_i32_list(val, o.offset, 3))
                    return cli_usage_error(
                        "ghost", "--offset must be X,Y,Z in whole millimetres, not '%s'", val);
            } else {
                o.label = val;
            }
        } else if (strcmp(a, "--segments") == 0) {
            wo.segments = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("ghost", "unknown option '%s'", a);
        } else if (npaths == 2) {
            return cli_usage_error("ghost", "takes one REPLAY.ostm and one OUT.ospc");
        } else {
            paths[npaths++] = a;
        }
    }
    if (npaths != 2) return cli_usage_error("ghost", "needs REPLAY.ostm and OUT.ospc");
    if (!have_from || !have_frames) return cli_usage_error("ghost", "needs --from and --frames");
    if (wo.segments && strcmp(paths[1], "-") == 0)
        return cli_usage_error("ghost", "--segments needs a file OUT, not '-'");
    if (cli_refuse_same_file("ghost", paths[0], paths[1])) return CLI_FAIL;
    onescope_error err;
    onescope_replay *r;
    if (onescope_replay_read_file(paths[0], NULL, &r, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    o.replay_name = strcmp(paths[0], "-") == 0 ? NULL : paths[0];
    o.name = cli_input_name(paths[0]);
    onescope_ghost_result res;
    onescope_code rc;
    if (strcmp(paths[1], "-") == 0) {
        /* standard output cannot take a partial file: the cache is built in memory (its
         * size is checked first) and written in one piece */
        onescope_pose_cache *c;
        rc = onescope_ghost_create(r, &o, NULL, &c, &err);
        if (rc == ONESCOPE_OK) rc = onescope_pose_cache_write_file(c, paths[1], &err);
        onescope_pose_cache_free(c);
    } else {
        rc = onescope_ghost_write(r, &o, paths[1], &wo, NULL, &res, &err);
        if (rc == ONESCOPE_OK && !cli.quiet)
            fprintf(stderr, "%s: %" PRIu32 " bodies, %" PRIu32 " frames from step %" PRId64 "\n",
                    paths[1], res.entity_count, res.frame_count, res.start_step);
    }
    onescope_replay_free(r);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
