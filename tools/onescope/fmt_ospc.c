/* The CLI's view of OSPC pose caches: validate, dump, rewrite. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static onescope_code validate(const uint8_t *data, size_t size, const char *name,
                              onescope_error *error) {
    onescope_pose_cache *c;
    onescope_code rc = onescope_pose_cache_parse(data, size, name, NULL, &c, error);
    onescope_pose_cache_free(rc == ONESCOPE_OK ? c : NULL);
    return rc;
}

static const char *const text_keys[ONESCOPE_POSE_TEXT_COUNT] = {
    "unit_name", "module_id", "library_version", "scene", "replay", "label"};
static const char *const shape_names[] = {"point", "sphere", "box", "capsule"};

static void dump_json(const onescope_pose_cache *c, FILE *out) {
    fprintf(out, "{\n  \"format\": \"ospc\",\n  \"version\": 1,\n  \"flags\": 0,\n");
    fprintf(out,
            "  \"dimensions\": %u,\n  \"entity_count\": %" PRIu32 ",\n  \"frame_count\": %" PRIu32
            ",\n  \"start_step\": %" PRId64 ",\n  \"metres_per_unit\": ",
            (unsigned)c->dimensions, c->entity_count, c->frame_count, c->start_step);
    cli_json_double(out, c->metres_per_unit);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        fprintf(out, ",\n  \"%s\": ", text_keys[i]);
        cli_json_string(out, c->text[i].data, c->text[i].length);
    }
    uint64_t present = 0;
    for (uint32_t f = 0; f < c->frame_count; f++)
        for (int64_t e = onescope_pose_cache_next_present(c, f, 0); e >= 0;
             e = onescope_pose_cache_next_present(c, f, (uint32_t)e + 1))
            present++;
    fprintf(out, ",\n  \"present_pose_count\": %" PRIu64 ",\n  \"entities\": [", present);
    for (uint32_t i = 0; i < c->entity_count; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        fprintf(out, "%s\n    {\"id\": %" PRIu64 ", \"shape\": \"%s\", \"size\": [", i ? "," : "",
                e->id, shape_names[e->shape]);
        for (int k = 0; k < 3; k++) {
            if (k) fputs(", ", out);
            cli_json_double(out, e->size[k]);
        }
        fputs("], \"name\": ", out);
        cli_json_string(out, e->name.data, e->name.length);
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}

static void dump_text(const onescope_pose_cache *c, FILE *out) {
    char mpu[CLI_NUMBER_SIZE];
    fprintf(out,
            "OSPC v1 pose cache\n  dimensions       %u\n  entities         %" PRIu32
            "\n  frames           %" PRIu32 " (steps %" PRId64 " to %" PRIu64 ")\n"
            "  metres per unit  %s\n",
            (unsigned)c->dimensions, c->entity_count, c->frame_count, c->start_step,
            /* unsigned: a start step near INT64_MAX plus the frames may pass INT64_MAX */
            (uint64_t)c->start_step + c->frame_count - 1, cli_number(mpu, c->metres_per_unit));
    static const char *const labels[ONESCOPE_POSE_TEXT_COUNT] = {
        "unit name", "module id", "library version", "scene", "replay", "label"};
    /* Texts are quoted and escaped: a name can never move the cursor or clear a terminal. */
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        fprintf(out, "  %-16s ", labels[i]);
        cli_json_string(out, c->text[i].data, c->text[i].length);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < c->entity_count; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        char sz[3][CLI_NUMBER_SIZE];
        fprintf(out, "  entity %-6" PRIu32 " id %" PRIu64 " %s size %s %s %s name ", i, e->id,
                shape_names[e->shape], cli_number_float(sz[0], e->size[0]),
                cli_number_float(sz[1], e->size[1]), cli_number_float(sz[2], e->size[2]));
        cli_json_string(out, e->name.data, e->name.length);
        fputc('\n', out);
    }
}

static onescope_code dump(const uint8_t *data, size_t size, const char *name, bool json, FILE *out,
                          onescope_error *error) {
    onescope_pose_cache *c;
    onescope_code rc = onescope_pose_cache_parse(data, size, name, NULL, &c, error);
    if (rc != ONESCOPE_OK) return rc;
    if (json)
        dump_json(c, out);
    else
        dump_text(c, out);
    onescope_pose_cache_free(c);
    return ONESCOPE_OK;
}

static onescope_code rewrite(const uint8_t *data, size_t size, const char *name,
                             onescope_buffer *out, onescope_error *error) {
    onescope_pose_cache *c;
    onescope_code rc = onescope_pose_cache_parse(data, size, name, NULL, &c, error);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_pose_cache_write(c, NULL, out, error);
    onescope_pose_cache_free(c);
    return rc;
}

const cli_format cli_format_ospc = {ONESCOPE_FORMAT_OSPC, validate, dump, rewrite};

/* ---- dump --poses: the pose values themselves ---- */

/* The shortest decimal that reads back as the same float; whole numbers (millimetres) below
 * 1e9 in plain digits, and -0 as 0, as the CSV has always had them. */
static void put_float(FILE *out, float v) {
    char buf[ONESCOPE_NUMBER_MAX_LENGTH + 1];
    if (v > -1e9f && v < 1e9f && v == (float)(int32_t)v) {
        fprintf(out, "%" PRId32, (int32_t)v);
        return;
    }
    fwrite(buf, 1, onescope_number_format_float(v, buf, sizeof buf), out);
}

/* A:B, A: or :B; *b_open says B was left open (the last frame), so only a B given and past
 * the end is an error. */
static bool parse_frames(const char *s, uint64_t *a, uint64_t *b, bool *b_open) {
    const char *colon = strchr(s, ':');
    if (colon == NULL) return false;
    char first[24];
    size_t n = (size_t)(colon - s);
    if (n >= sizeof first) return false;
    memcpy(first, s, n);
    first[n] = '\0';
    *a = 0;
    *b = UINT32_MAX;
    *b_open = colon[1] == '\0';
    if (n > 0 && !cli_parse_u64(first, UINT32_MAX, a)) return false;
    if (colon[1] != '\0' && !cli_parse_u64(colon + 1, UINT32_MAX, b)) return false;
    return *a <= *b;
}

enum { P_POSES, P_FRAMES, P_ENTITY, P_CSV, P_JSON };
static const cli_option poses_options[] = {
    [P_POSES] = {"poses", 0, NULL, "print the poses themselves (this form of dump)"},
    [P_FRAMES] = {"frames", 0, "A:B", "frames A to B only (0-based, inclusive; A: or :B open)"},
    [P_ENTITY] = {"entity", 0, "ID", "the entity with this id only"},
    [P_CSV] = {"csv", 0, NULL, "RFC 4180 CSV, a header line, names quoted (not with --json)"},
    [P_JSON] = {"json", 0, NULL, "one JSON document (not with --csv)"},
};
const cli_spec cli_spec_dump_poses = {
    .name = "dump --poses",
    .operands = "CACHE.ospc",
    .about = "Prints one row per frame and entity: frame, step, entity id, name, present,\n"
             "position x y z (in the cache's units; metres per unit in the header line) and\n"
             "rotation x y z w (the all-zero quaternion printed as the identity). Floats are\n"
             "the shortest decimals that read back exactly. Absent poses print as absent\n"
             "(CSV: empty fields; JSON: \"present\": false, no position).\n",
    .exit_codes = "0 ok, 1 an invalid file or a frame or entity it does not hold, 2 usage",
    .options = poses_options,
    .count = sizeof poses_options / sizeof poses_options[0],
};

int cli_ospc_dump_poses(int argc, char **argv) {
    uint64_t f0 = 0, f1 = UINT32_MAX, id = 0;
    cli_args pa;
    int parsed = cli_parse(&cli_spec_dump_poses, argc, argv, 1, 1, &pa);
    if (parsed != CLI_PARSE_RUN) return parsed;
    const char *path = pa.operands[0];
    bool csv = pa.seen[P_CSV], json = pa.seen[P_JSON];
    bool have_entity = pa.seen[P_ENTITY], have_frames = pa.seen[P_FRAMES];
    if (csv && json) return cli_usage_error("dump --poses", "--csv and --json: choose one");
    bool f1_open = true;
    if (have_frames && !parse_frames(pa.value[P_FRAMES], &f0, &f1, &f1_open))
        return cli_usage_error("dump --poses", "--frames must be A:B with frames A <= B, not '%s'",
                               pa.value[P_FRAMES]);
    if (have_entity && (!cli_parse_u64(pa.value[P_ENTITY], UINT64_MAX, &id) || id == 0))
        return cli_usage_error("dump --poses",
                               "--entity must be an entity id (1 or more), not '%s'",
                               pa.value[P_ENTITY]);
    const char *name = cli_input_name(path);
    onescope_error err;
    onescope_pose_cache *c;
    /* mapped: the poses are read in place, so memory does not grow with the file */
    if (onescope_pose_cache_map(path, NULL, &c, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    uint32_t e0 = 0, e1 = c->entity_count; /* entity indices [e0, e1) */
    if (have_entity) {
        for (e0 = 0; e0 < c->entity_count && c->entities[e0].id != id; e0++) continue;
        if (e0 == c->entity_count) {
            fprintf(stderr, "%s: --entity: none of its %" PRIu32 " entities has id %" PRIu64 "\n",
                    cli_shown(path), c->entity_count, id);
            onescope_pose_cache_free(c);
            return CLI_FAIL;
        }
        e1 = e0 + 1;
    }
    if (have_frames && f0 >= c->frame_count) {
        fprintf(stderr, "%s: --frames: frame %" PRIu64 " is past its last frame %" PRIu32 "\n",
                cli_shown(path), f0, c->frame_count - 1);
        onescope_pose_cache_free(c);
        return CLI_FAIL;
    }
    if (!f1_open && f1 >= c->frame_count) {
        fprintf(stderr, "%s: --frames: frame %" PRIu64 " is past its last frame %" PRIu32 "\n",
                cli_shown(path), f1, c->frame_count - 1);
        onescope_pose_cache_free(c);
        return CLI_FAIL;
    }
    if (c->frame_count == 0)
        f0 = 1, f1 = 0; /* no frame: the header only */
    else if (f1 >= c->frame_count)
        f1 = c->frame_count - 1; /* B left open: the last frame */
    FILE *out = stdout;
    if (csv)
        fputs("frame,step,entity,name,present,x,y,z,qx,qy,qz,qw\n", out);
    else if (json)
        fprintf(out, "{\"file\": "), cli_json_string(out, name, strlen(name)),
            fputs(", \"metres_per_unit\": ", out), cli_json_double(out, c->metres_per_unit),
            fputs(", \"poses\": [", out);
    else {
        char mpu[CLI_NUMBER_SIZE];
        fprintf(
            out,
            "%-7s %-9s %-7s %-16s %-8s position (units; metres per unit %s) | rotation x y z w\n",
            "frame", "step", "entity", "name", "present", cli_number(mpu, c->metres_per_unit));
    }
    bool first = true;
    for (uint64_t f = f0; f <= f1; f++) {
        for (uint32_t e = e0; e < e1; e++) {
            const onescope_pose *p = onescope_pose_cache_pose(c, (uint32_t)f, e);
            const onescope_pose_entity *en = &c->entities[e];
            bool present = onescope_pose_is_present(p);
            float q[4];
            onescope_pose_rotation(p, q);
            int64_t step = c->start_step + (int64_t)f;
            if (json) {
                fprintf(out,
                        "%s\n  {\"frame\": %" PRIu64 ", \"step\": %" PRId64 ", \"entity\": %" PRIu64
                        ", \"name\": ",
                        first ? "" : ",", f, step, en->id);
                cli_json_string(out, en->name.data, en->name.length);
                fprintf(out, ", \"present\": %s", present ? "true" : "false");
                if (present) {
                    for (int k = 0; k < 7; k++) {
                        fputs(k == 0   ? ", \"position\": ["
                              : k == 3 ? "], \"rotation\": ["
                                       : ", ",
                              out);
                        put_float(out, k < 3 ? p->position[k] : q[k - 3]);
                    }
                    fputc(']', out);
                }
                fputc('}', out);
            } else if (csv) {
                fprintf(out, "%" PRIu64 ",%" PRId64 ",%" PRIu64 ",", f, step, en->id);
                /* RFC 4180: the name always quoted, a quote doubled; commas and line breaks
                 * stay inside the field (the name is valid UTF-8, the format's rule) */
                fputc('"', out);
                for (uint32_t i = 0; i < en->name.length; i++) {
                    if (en->name.data[i] == '"') fputc('"', out);
                    fputc(en->name.data[i], out);
                }
                fputc('"', out);
                fprintf(out, ",%d", present);
                for (int k = 0; k < 7; k++) {
                    fputc(',', out);
                    if (present) put_float(out, k < 3 ? p->position[k] : q[k - 3]);
                }
                fputc('\n', out);
            } else {
                fprintf(out, "%-7" PRIu64 " %-9" PRId64 " %-7" PRIu64 " ", f, step, en->id);
                cli_json_string(out, en->name.data, en->name.length);
                fprintf(out, "%*s %-8s", en->name.length + 2 < 16 ? 16 - (en->name.length + 2) : 0,
                        "", present ? "yes" : "absent");
                if (present)
                    for (int k = 0; k < 7; k++) {
                        fputs(k == 3 ? " | " : " ", out);
                        put_float(out, k < 3 ? p->position[k] : q[k - 3]);
                    }
                fputc('\n', out);
            }
            first = false;
        }
    }
    if (json) fputs("\n]}\n", out);
    onescope_pose_cache_free(c);
    return CLI_OK;
}
