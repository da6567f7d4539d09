/* onescope box3d-record SCENE.json OUT.ostm --steps N [--seed S] [--entity-rows]
 * [--keyframes K] [--ulp STEP] [--max-bytes N]: runs the scene's Box3D world through the Box3D
 * module in tool mode with inputs made from a seed and writes a module recording
 * (docs/box3d-module.md). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_STEPS, OPT_SEED, OPT_ENTITY_ROWS, OPT_KEYFRAMES, OPT_ULP, OPT_MAX_BYTES };
static const cli_option options[] = {
    [OPT_STEPS] = {"steps", 's', "N", "how many steps, 1 or more (required)"},
    [OPT_SEED] = {"seed", 0, "S", "the inputs' seed (default 1)"},
    [OPT_ENTITY_ROWS] = {"entity-rows", 0, NULL, "an entity row beside each hash row"},
    [OPT_KEYFRAMES] = {"keyframes", 0, "K", "a keyframe (value table) every K steps"},
    [OPT_ULP] = {"ulp", 0, "STEP",
                 "step STEP's first force one ulp larger in x (a planted change)"},
    [OPT_MAX_BYTES] = {"max-bytes", 0, "N",
                       "refuse to grow OUT past N bytes (default 268435456, 256 MiB)"},
};
const cli_spec cli_spec_box3d_record = {
    .name = "box3d-record",
    .operands = "SCENE.json OUT.ostm",
    .about = "Runs the JSON scene (docs/soa-world.md) through the Box3D module for N steps and\n"
             "writes a module recording (docs/recording.md): the scene as the setup, each step's\n"
             "actions as its input, the world hash after every step. The actions come from the\n"
             "seed: every step a force on one dynamic body, every 10th step also an impulse on\n"
             "another. The stock verify, diff, ghost, plot, live and module check then read it.\n",
    .exit_codes = "0 written, 1 invalid scene, no Box3D in this build or unwritable OUT, 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

/* xorshift64*: the same inputs for the same seed on every machine. */
static uint64_t next(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* A float in [-1, 1) from 24 random bits. */
static float unit(uint64_t *s) {
    return (float)(next(s) >> 40) / 8388608.0f - 1.0f;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* One action: code, body id, three floats (docs/box3d-module.md, "Inputs"). */
static size_t put_action(uint8_t *p, uint8_t op, uint32_t body, const float v[3]) {
    p[0] = op;
    put_u32(p + 1, body);
    for (int k = 0; k < 3; k++) {
        uint32_t bits;
        memcpy(&bits, &v[k], 4);
        put_u32(p + 5 + 4 * k, bits);
    }
    return 17;
}

/* Step i's actions: a force on a random dynamic body, and every 10th step an impulse. */
static size_t input_of(uint64_t *seed, uint64_t i, const uint32_t *dynamic, uint32_t count,
                       uint64_t ulp_step, uint8_t out[34]) {
    if (count == 0) return 0;
    float f[3] = {20.0f * unit(seed), 20.0f * unit(seed), 20.0f * unit(seed)};
    if (i == ulp_step) f[0] = nextafterf(f[0], INFINITY);
    size_t n = put_action(out, 1, dynamic[next(seed) % count], f);
    if (i % 10 == 0) {
        float j[3] = {unit(seed), 2.0f * unit(seed), unit(seed)};
        n += put_action(out + n, 3, dynamic[next(seed) % count], j);
    }
    return n;
}

int cmd_box3d_record(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_box3d_record, argc, argv, 2, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *scene_path = a.operands[0], *out = a.operands[1];
    if (!a.seen[OPT_STEPS]) return cli_usage_error("box3d-record", "needs --steps N");
    uint64_t steps, seed = 1, every = 0, ulp = UINT64_MAX, max_bytes = 0;
    if (!cli_parse_u64(a.value[OPT_STEPS], ONESCOPE_RECORDING_MAX_STEPS, &steps) || steps < 1)
        return cli_usage_error("box3d-record", "--steps wants 1..%u, got '%s'",
                               ONESCOPE_RECORDING_MAX_STEPS, a.value[OPT_STEPS]);
    if (a.seen[OPT_SEED] && !cli_parse_u64(a.value[OPT_SEED], UINT64_MAX, &seed))
        return cli_usage_error("box3d-record", "--seed wants a number, got '%s'",
                               a.value[OPT_SEED]);
    if (a.seen[OPT_KEYFRAMES] &&
        (!cli_parse_u64(a.value[OPT_KEYFRAMES], ONESCOPE_RECORDING_MAX_STEPS, &every) || every < 1))
        return cli_usage_error("box3d-record", "--keyframes wants 1..%u, got '%s'",
                               ONESCOPE_RECORDING_MAX_STEPS, a.value[OPT_KEYFRAMES]);
    if (a.seen[OPT_ULP] && (!cli_parse_u64(a.value[OPT_ULP], steps - 1, &ulp)))
        return cli_usage_error("box3d-record", "--ulp wants a step below %" PRIu64 ", got '%s'",
                               steps, a.value[OPT_ULP]);
    if (a.seen[OPT_MAX_BYTES] &&
        (!cli_parse_u64(a.value[OPT_MAX_BYTES], UINT64_MAX, &max_bytes) || max_bytes < 1))
        return cli_usage_error("box3d-record", "--max-bytes wants a number of bytes, got '%s'",
                               a.value[OPT_MAX_BYTES]);
    if (strcmp(out, "-") == 0)
        return cli_usage_error("box3d-record", "OUT must be a file (it is written as a partial)");
    if (!cli_check_output("box3d-record", scene_path, out)) return CLI_FAIL;
    const onescope_module *m = onescope_module_box3d();
    if (m == NULL) {
        fprintf(stderr, "onescope box3d-record: Box3D is not built in (configure with Box3D "
                        "installed)\n");
        return CLI_FAIL;
    }
    onescope_error err;
    onescope_buffer scene_bytes = {NULL, 0, NULL};
    onescope_soa_scene *scene = NULL;
    onescope_recording_writer *w = NULL;
    uint32_t *dynamic = NULL, count = 0;
    onescope_code rc = onescope_file_read(scene_path, 0, NULL, &scene_bytes, &err);
    if (rc == ONESCOPE_OK)
        rc = onescope_soa_scene_parse(scene_bytes.data, scene_bytes.size,
                                      cli_input_name(scene_path), NULL, &scene, &err);
    if (rc == ONESCOPE_OK) {
        dynamic = calloc(scene->body_count, sizeof *dynamic);
        if (dynamic == NULL) {
            fprintf(stderr, "onescope box3d-record: out of memory\n");
            onescope_soa_scene_free(scene);
            onescope_buffer_free(&scene_bytes);
            return CLI_FAIL;
        }
        for (uint32_t i = 0; i < scene->body_count; i++)
            if (scene->bodies[i].def.kind != ONESCOPE_SOA_STATIC_BOX) dynamic[count++] = i + 1;
    }
    if (rc == ONESCOPE_OK) {
        onescope_recording_def def = onescope_recording_def_default();
        def.module = m;
        def.setup = scene_bytes.data;
        def.setup_size = scene_bytes.size;
        def.entity_rows = a.seen[OPT_ENTITY_ROWS];
        def.keyframe_every = (uint32_t)every;
        def.max_bytes = max_bytes; /* 0: the writer's default */
        rc = onescope_recording_writer_open(out, &def, NULL, NULL, &w, &err);
    }
    uint64_t state = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    for (uint64_t i = 0; rc == ONESCOPE_OK && i < steps; i++) {
        uint8_t in[34];
        size_t n = input_of(&state, i, dynamic, count, ulp, in);
        rc = onescope_recording_writer_append(w, in, n, NULL, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_recording_writer_close(w, NULL, &err);
    status = CLI_FAIL;
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        onescope_recording_writer_discard(w); /* a failed run leaves no partial behind */
    } else {
        onescope_recording_writer_free(w);
        if (!cli.quiet)
            printf("%s: %" PRIu32 " bodies, %" PRIu64 " steps -> %s\n",
                   cli_shown(cli_input_name(scene_path)), scene->body_count, steps, cli_shown(out));
        status = CLI_OK;
    }
    free(dynamic);
    onescope_soa_scene_free(scene);
    onescope_buffer_free(&scene_bytes);
    return status;
}
