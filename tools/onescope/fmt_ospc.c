/* The CLI's view of OSPC pose caches: validate, dump, rewrite. */
#include <inttypes.h>
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
    fprintf(out,
            "OSPC v1 pose cache\n  dimensions       %u\n  entities         %" PRIu32
            "\n  frames           %" PRIu32 " (steps %" PRId64 " to %" PRIu64 ")\n"
            "  metres per unit  %.17g\n",
            (unsigned)c->dimensions, c->entity_count, c->frame_count, c->start_step,
            /* unsigned: a start step near INT64_MAX plus the frames may pass INT64_MAX */
            (uint64_t)c->start_step + c->frame_count - 1, c->metres_per_unit);
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
        fprintf(out, "  entity %-6" PRIu32 " id %" PRIu64 " %s size %g %g %g name ", i, e->id,
                shape_names[e->shape], (double)e->size[0], (double)e->size[1], (double)e->size[2]);
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
