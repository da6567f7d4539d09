/* onescope convert IN OUT: an .anm clip to an .ospc pose cache, or an .ospc cache to an .anm
 * clip. The direction comes from IN's content (OSPC magic or the JSON "format" key). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int help(void) {
    printf("usage: onescope convert IN OUT [--fps N] [--source harmony|blender|maya] [--world]\n"
           "                        [--segments]\n"
           "Converts an OTS .anm clip to an OSPC pose cache (every peg baked at every frame of\n"
           "frame_range), or an OSPC pose cache to an .anm clip (one peg per entity, one LINEAR\n"
           "keyframe per present frame). The direction comes from IN's content; OUT must not\n"
           "carry the other extension ('-' for standard input or output).\n"
           "  --fps N      frame rate written into the .anm (default 24)\n"
           "  --source S   source application written into the .anm (default blender)\n"
           "  --world      .anm values are already world space: do not compose parents\n"
           "  --segments   .anm -> .ospc past the 256 MiB file limit: roll over into\n"
           "               OUT-0001.ospc, ... (docs/pose-cache.md); without it such a bake is\n"
           "               refused before anything is written. Not with OUT '-'\n"
           "A bake is written frame by frame (memory does not grow with the frame range); an\n"
           ".anm that would pass 256 MiB is refused from the cache's size before it is built.\n"
           "exit: 0 ok, 1 IN invalid or not convertible or OUT not written, 2 usage\n");
    return CLI_OK;
}

int cmd_convert(int argc, char **argv) {
    const char *paths[2];
    int n = 0;
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    onescope_ots_bake_options bake = onescope_ots_bake_options_default();
    bool only_paths = false;
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_paths && cli_is_help(a)) return help();
        if (!only_paths && strcmp(a, "--") == 0) {
            only_paths = true;
        } else if (!only_paths && strcmp(a, "--fps") == 0) {
            if (++i >= argc) return cli_usage_error("convert", "--fps needs a value");
            char *end;
            from.fps = strtod(argv[i], &end);
            if (*end != '\0' || end == argv[i] || !isfinite(from.fps) || !(from.fps > 0))
                return cli_usage_error("convert", "--fps wants a number above 0, not '%s'",
                                       argv[i]);
        } else if (!only_paths && strcmp(a, "--source") == 0) {
            if (++i >= argc) return cli_usage_error("convert", "--source needs a value");
            if (strcmp(argv[i], "harmony") == 0)
                from.source = ONESCOPE_OTS_SOURCE_HARMONY;
            else if (strcmp(argv[i], "blender") == 0)
                from.source = ONESCOPE_OTS_SOURCE_BLENDER;
            else if (strcmp(argv[i], "maya") == 0)
                from.source = ONESCOPE_OTS_SOURCE_MAYA;
            else
                return cli_usage_error(
                    "convert", "--source wants harmony, blender or maya, not '%s'", argv[i]);
        } else if (!only_paths && strcmp(a, "--world") == 0) {
            bake.world_space = true;
        } else if (!only_paths && strcmp(a, "--segments") == 0) {
            wo.segments = true;
        } else if (!only_paths && a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("convert", "unknown option '%s'", a);
        } else {
            if (n == 2) return cli_usage_error("convert", "takes IN and OUT");
            paths[n++] = a;
        }
    }
    if (n != 2) return cli_usage_error("convert", "takes IN and OUT");
    bool to_stdout = strcmp(paths[1], "-") == 0;
    if (wo.segments && to_stdout)
        return cli_usage_error("convert", "--segments needs a file OUT, not '-'");
    if (cli_refuse_same_file("convert", paths[0], paths[1])) return CLI_FAIL;
    const char *in_name = cli_input_name(paths[0]);
    from.name = in_name;
    bake.name = in_name;
    onescope_buffer in;
    onescope_error err;
    if (onescope_file_read(paths[0], 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    onescope_format format = onescope_format_detect(in.data, in.size);
    bool from_ospc = format == ONESCOPE_FORMAT_OSPC;
    if (!from_ospc && format != ONESCOPE_FORMAT_ANM) {
        onescope_buffer_free(&in);
        if (format == ONESCOPE_FORMAT_PVT)
            fprintf(stderr,
                    "%s: a .pvt rig has no pose-cache conversion (convert takes an .anm clip or an "
                    ".ospc cache)\n",
                    in_name);
        else
            fprintf(stderr,
                    "%s: not an .anm clip or an .ospc pose cache (no OSPC magic, no JSON "
                    "\"format\": \"octo_anm\")\n",
                    in_name);
        return CLI_FAIL;
    }
    if ((from_ospc && ends_with(paths[1], ".ospc")) ||
        (!from_ospc && ends_with(paths[1], ".anm"))) {
        onescope_buffer_free(&in);
        return cli_usage_error("convert", "IN is %s, so OUT '%s' should not end in %s",
                               from_ospc ? "a pose cache" : "an .anm clip", paths[1],
                               from_ospc ? ".ospc" : ".anm");
    }
    onescope_buffer out = {NULL, 0, NULL};
    onescope_code rc;
    if (from_ospc) {
        onescope_pose_cache *cache;
        rc = onescope_pose_cache_parse(in.data, in.size, in_name, NULL, &cache, &err);
        if (rc == ONESCOPE_OK) {
            rc = onescope_ots_pose_cache_to_anm(cache, &from, NULL, &out, &err);
            onescope_pose_cache_free(cache);
        }
    } else if (to_stdout) {
        /* standard output cannot take a partial file: built in memory (size checked first) */
        onescope_pose_cache *cache = NULL;
        rc = onescope_ots_anm_to_pose_cache(in.data, in.size, in_name, NULL, &bake, &cache, &err);
        if (rc == ONESCOPE_OK) rc = onescope_pose_cache_write(cache, NULL, &out, &err);
        onescope_pose_cache_free(cache);
    } else {
        rc = onescope_ots_anm_to_pose_cache_file(in.data, in.size, in_name, NULL, &bake, paths[1],
                                                 &wo, NULL, &err);
        onescope_buffer_free(&in);
        if (rc != ONESCOPE_OK) {
            cli_print_error(&err);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    onescope_buffer_free(&in);
    if (rc == ONESCOPE_OK) rc = onescope_file_write(paths[1], out.data, out.size, &err);
    onescope_buffer_free(&out);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
