/* onescope convert IN OUT: an .anm clip to an .ospc pose cache, or an .ospc cache to an .anm
 * clip. The direction comes from IN's content (OSPC magic or the JSON "format" key). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What format detection makes of a regular file's first bytes (as many as it looks at);
 * UNKNOWN for anything else, which goes the general way (read whole), which reports what is
 * wrong with it. */
static onescope_format peek_format(const char *path) {
    /* not a pipe's name (/dev/fd/N, a FIFO): the peek would eat bytes the read then misses */
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return ONESCOPE_FORMAT_UNKNOWN;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return ONESCOPE_FORMAT_UNKNOWN;
    char *head = malloc(ONESCOPE_FORMAT_DETECT_BYTES);
    onescope_format format = ONESCOPE_FORMAT_UNKNOWN;
    if (head != NULL)
        format = onescope_format_detect(head, fread(head, 1, ONESCOPE_FORMAT_DETECT_BYTES, f));
    free(head);
    fclose(f);
    return format;
}

/* Standard input, a pipe's name or a FIFO: read once, so never peeked. */
static bool is_stream(const char *path) {
    struct stat st;
    return strcmp(path, "-") == 0 ||
           (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* The real-valued options' ranges (stated in their help): a frame rate up to a million, a unit
 * up to 1e12 metres (an astronomical unit is 1.5e11). */
#define FPS_RANGE ((cli_real_range){0, 1e6, true})
#define UNIT_RANGE ((cli_real_range){0, 1e12, true})
enum { OPT_FPS, OPT_SOURCE, OPT_WORLD, OPT_SEGMENTS, OPT_UNIT, OPT_UP, OPT_KEYS };
static const cli_option options[] = {
    [OPT_FPS] = {"fps", 0, "N", "frame rate written into the .anm, above 0 to 1e6 (default 24)"},
    [OPT_SOURCE] = {"source", 0, "APP",
                    "harmony, blender or maya: written into the .anm (default blender)"},
    [OPT_WORLD] = {"world", 0, NULL, ".anm values are already world space: do not compose parents"},
    [OPT_SEGMENTS] = {"segments", 0, NULL,
                      ".anm -> .ospc past 256 MiB: roll over into OUT-0001.ospc, ..."},
    [OPT_UNIT] = {"unit", 0, "U",
                  "the cache's unit: m, cm, mm or metres per unit, above 0 to 1e12 (default m)"},
    [OPT_UP] = {"up", 0, "AXIS", "x, y or z: the .anm's up axis (default: the cache's, else y)"},
    [OPT_KEYS] = {"keys", 0, "WHICH", "needed (default) or all: which .anm keyframes to write"},
};
const cli_spec cli_spec_convert = {
    .name = "convert",
    .operands = "IN OUT",
    .about = "Converts an OTS .anm clip to an OSPC pose cache (every peg baked at every frame of\n"
             "frame_range), or an OSPC pose cache to an .anm clip (one peg per entity, the\n"
             "keyframes needed to give back every pose). The direction comes from IN's content;\n"
             "OUT must not carry the other extension ('-' for standard input or output).\n"
             "A bake is written frame by frame (memory does not grow with the frame range); from\n"
             "an .anm to a file OUT the clip is streamed too, its keyframes through a scratch\n"
             "file in $TMPDIR (memory grows with the pegs, not the file); standard input or a\n"
             "pipe is streamed so when OUT ends in .ospc (a stream cannot be looked at first,\n"
             "so OUT names the direction; any other OUT reads it whole). A\n"
             "bake past the 256 MiB file limit is refused before anything is written, unless\n"
             "--segments (docs/pose-cache.md; not with OUT '-'); an .anm that would pass 256 MiB\n"
             "is refused from the cache's size before it is built. An .anm file is written a peg\n"
             "at a time (memory does not grow with the frames); with OUT '-' it is built in\n"
             "memory first, so a refusal writes nothing.\n"
             "Positions are metres in the .anm and the cache's unit in the .ospc (docs/ots.md,\n"
             "section 7); a z- or x-up clip's axis is kept in the cache's label.\n",
    .exit_codes = "0 ok, 1 IN invalid or not convertible or OUT not written, 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

/* The usage rules of a direction once IN's format is known: OUT not of IN's own extension,
 * --up and --keys only from a cache. CLI_OK when they hold. */
static int direction_usage(bool from_ospc, const char *out, const cli_args *a) {
    if (ends_with(out, from_ospc ? ".ospc" : ".anm"))
        return cli_usage_error("convert", "IN is %s, so OUT '%s' should not end in %s",
                               from_ospc ? "a pose cache" : "an .anm clip", out,
                               from_ospc ? ".ospc" : ".anm");
    if (!from_ospc && (a->seen[OPT_UP] || a->seen[OPT_KEYS]))
        return cli_usage_error("convert", "--%s is for a pose cache IN (an .anm keeps its own %s)",
                               a->seen[OPT_UP] ? "up" : "keys",
                               a->seen[OPT_UP] ? "up axis" : "keyframes");
    return CLI_OK;
}

int cmd_convert(int argc, char **argv) {
    onescope_ots_from_cache_options from = onescope_ots_from_cache_options_default();
    onescope_ots_bake_options bake = onescope_ots_bake_options_default();
    onescope_pose_writer_options wo = onescope_pose_writer_options_default();
    cli_args a;
    int status = cli_parse(&cli_spec_convert, argc, argv, 2, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *const paths[2] = {a.operands[0], a.operands[1]};
    if (a.seen[OPT_FPS] &&
        cli_parse_real("convert", "--fps", a.value[OPT_FPS], FPS_RANGE, &from.fps) != CLI_PARSE_RUN)
        return CLI_USAGE;
    if (a.seen[OPT_SOURCE]) {
        const char *v = a.value[OPT_SOURCE];
        if (strcmp(v, "harmony") == 0)
            from.source = ONESCOPE_OTS_SOURCE_HARMONY;
        else if (strcmp(v, "blender") == 0)
            from.source = ONESCOPE_OTS_SOURCE_BLENDER;
        else if (strcmp(v, "maya") == 0)
            from.source = ONESCOPE_OTS_SOURCE_MAYA;
        else
            return cli_usage_error("convert", "--source wants harmony, blender or maya, not '%s'",
                                   v);
    }
    if (a.seen[OPT_UNIT]) {
        const char *v = a.value[OPT_UNIT];
        double mpu;
        if (strcmp(v, "m") == 0)
            mpu = 1.0;
        else if (strcmp(v, "cm") == 0)
            mpu = 0.01;
        else if (strcmp(v, "mm") == 0)
            mpu = 0.001;
        else if (cli_parse_real("convert", "--unit (m, cm, mm or metres per unit)", v, UNIT_RANGE,
                                &mpu) != CLI_PARSE_RUN)
            return CLI_USAGE;
        from.metres_per_unit = mpu;
        bake.metres_per_unit = mpu;
    }
    if (a.seen[OPT_UP]) {
        const char *v = a.value[OPT_UP];
        if (strlen(v) != 1 || v[0] < 'x' || v[0] > 'z')
            return cli_usage_error("convert", "--up wants x, y or z, not '%s'", v);
        from.up_given = true;
        from.up = (onescope_ots_up)(v[0] - 'x');
    }
    if (a.seen[OPT_KEYS]) {
        const char *v = a.value[OPT_KEYS];
        if (strcmp(v, "all") != 0 && strcmp(v, "needed") != 0)
            return cli_usage_error("convert", "--keys wants needed or all, not '%s'", v);
        from.keys_all = strcmp(v, "all") == 0;
    }
    bake.world_space = a.seen[OPT_WORLD];
    wo.segments = a.seen[OPT_SEGMENTS];
    bool to_stdout = strcmp(paths[1], "-") == 0;
    if (wo.segments && to_stdout)
        return cli_usage_error("convert", "--segments needs a file OUT, not '-'");
    if (!cli_check_output("convert", paths[0], paths[1])) return CLI_FAIL;
    const char *in_name = cli_input_name(paths[0]);
    from.name = in_name;
    bake.name = in_name;
    onescope_error err;
    onescope_format peeked = peek_format(paths[0]);
    if (!to_stdout && peeked == ONESCOPE_FORMAT_OSPC) {
        /* cache -> .anm file: the cache mapped, the clip written a peg at a time */
        if ((status = direction_usage(true, paths[1], &a)) != CLI_OK) return status;
        onescope_pose_cache *cache;
        onescope_code rc = onescope_pose_cache_map(paths[0], NULL, &cache, &err);
        if (rc == ONESCOPE_OK) {
            rc = onescope_ots_pose_cache_to_anm_file(cache, &from, paths[1], &err);
            onescope_pose_cache_free(cache);
        }
        if (rc != ONESCOPE_OK) {
            cli_print_error(&err);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    if (!to_stdout &&
        (peeked == ONESCOPE_FORMAT_ANM || (is_stream(paths[0]) && ends_with(paths[1], ".ospc")))) {
        /* .anm -> .ospc file: streamed, memory bounded by the pegs, not the file. A stream's
         * first bytes cannot be looked at and given back, so there OUT's extension names the
         * direction (docs/cli.md) */
        if ((status = direction_usage(false, paths[1], &a)) != CLI_OK) return status;
        if (onescope_ots_anm_file_to_pose_cache_file(paths[0], NULL, &bake, paths[1], &wo, NULL,
                                                     &err) != ONESCOPE_OK) {
            cli_print_error(&err);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    onescope_buffer in;
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
                    cli_shown(paths[0]));
        else
            fprintf(stderr,
                    "%s: not an .anm clip or an .ospc pose cache (no OSPC magic, no JSON "
                    "\"format\": \"octo_anm\")\n",
                    cli_shown(paths[0]));
        return CLI_FAIL;
    }
    if ((status = direction_usage(from_ospc, paths[1], &a)) != CLI_OK) {
        onescope_buffer_free(&in);
        return status;
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
