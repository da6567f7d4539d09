/* The CLI's view of OTS v4 files (.pvt rigs, .anm clips): validate, dump, rewrite. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static const char *const source_names[] = {"harmony", "blender", "maya"};
static const char *const pivot_space_names[] = {"local", "armature"};

static void json_str_or_null(FILE *out, const char *s) {
    if (s == NULL)
        fputs("null", out);
    else
        cli_json_string(out, s, strlen(s));
}

static void dump_cameras_json(FILE *out, const onescope_ots_camera *cams, size_t n) {
    fprintf(out, ",\n  \"camera_count\": %zu,\n  \"cameras\": [", n);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        json_str_or_null(out, cams[i].name);
        fputs(", \"peg\": ", out);
        json_str_or_null(out, cams[i].peg);
        fprintf(out, ", \"is_default\": %s}", cams[i].is_default ? "true" : "false");
    }
    fprintf(out, "%s]", n ? "\n  " : "");
}

static void dump_cameras_text(FILE *out, const onescope_ots_camera *cams, size_t n) {
    fprintf(out, "  cameras          %zu\n", n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  camera %-6zu %s on %s%s\n", i, cams[i].name,
                cams[i].peg ? cams[i].peg : "(none)", cams[i].is_default ? " (default)" : "");
}

static onescope_code validate_pvt(const uint8_t *data, size_t size, const char *name,
                                  onescope_error *error) {
    onescope_ots_rig *r;
    onescope_code rc = onescope_ots_rig_parse(data, size, name, NULL, &r, error);
    onescope_ots_rig_free(r);
    return rc;
}

static onescope_code dump_pvt(const uint8_t *data, size_t size, const char *name, bool json,
                              FILE *out, onescope_error *error) {
    onescope_ots_rig *r;
    onescope_code rc = onescope_ots_rig_parse(data, size, name, NULL, &r, error);
    if (rc != ONESCOPE_OK) return rc;
    if (json) {
        fprintf(out,
                "{\n  \"format\": \"octo_pvt\",\n  \"version\": %d,\n  \"source\": \"%s\",\n  "
                "\"name\": ",
                ONESCOPE_OTS_VERSION, source_names[r->header.source]);
        cli_json_string(out, r->name, strlen(r->name));
        fputs(",\n  \"scale_factor\": ", out);
        cli_json_double(out, r->scale_factor);
        fprintf(out,
                ",\n  \"pivot_space\": \"%s\",\n  \"fps\": ", pivot_space_names[r->pivot_space]);
        cli_json_double(out, r->header.fps);
        fprintf(out, ",\n  \"bone_count\": %zu,\n  \"bones\": [", r->bone_count);
        for (size_t i = 0; i < r->bone_count; i++) {
            fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
            json_str_or_null(out, r->bones[i].name);
            fputs(", \"parent\": ", out);
            json_str_or_null(out, r->bones[i].parent);
            fputs("}", out);
        }
        fprintf(out, "%s]", r->bone_count ? "\n  " : "");
        dump_cameras_json(out, r->cameras, r->camera_count);
        fputs("\n}\n", out);
    } else {
        char scale[CLI_NUMBER_SIZE], fps[CLI_NUMBER_SIZE];
        fprintf(out,
                "OTS v%d rig (.pvt) from %s\n  name             %s\n  scale factor     %s\n"
                "  pivot space      %s\n  fps              %s\n  bones            %zu\n",
                ONESCOPE_OTS_VERSION, source_names[r->header.source], r->name,
                cli_number(scale, r->scale_factor), pivot_space_names[r->pivot_space],
                cli_number(fps, r->header.fps), r->bone_count);
        for (size_t i = 0; i < r->bone_count; i++)
            fprintf(out, "  bone %-8zu %s parent %s\n", i, r->bones[i].name,
                    r->bones[i].parent ? r->bones[i].parent : "(none)");
        dump_cameras_text(out, r->cameras, r->camera_count);
    }
    onescope_ots_rig_free(r);
    return ONESCOPE_OK;
}

static onescope_code rewrite_pvt(const uint8_t *data, size_t size, const char *name,
                                 onescope_buffer *out, onescope_error *error) {
    onescope_ots_rig *r;
    onescope_code rc = onescope_ots_rig_parse(data, size, name, NULL, &r, error);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_ots_rig_write(r, NULL, out, error);
    onescope_ots_rig_free(r);
    return rc;
}

static onescope_code validate_anm(const uint8_t *data, size_t size, const char *name,
                                  onescope_error *error) {
    onescope_ots_clip *c;
    onescope_code rc = onescope_ots_clip_parse(data, size, name, NULL, &c, error);
    onescope_ots_clip_free(c);
    return rc;
}

static onescope_code dump_anm(const uint8_t *data, size_t size, const char *name, bool json,
                              FILE *out, onescope_error *error) {
    onescope_ots_clip *c;
    onescope_code rc = onescope_ots_clip_parse(data, size, name, NULL, &c, error);
    if (rc != ONESCOPE_OK) return rc;
    size_t total = 0;
    for (size_t i = 0; i < c->peg_count; i++) total += c->pegs[i].keyframe_count;
    if (json) {
        fprintf(out,
                "{\n  \"format\": \"octo_anm\",\n  \"version\": %d,\n  \"source\": \"%s\",\n"
                "  \"frame_range\": [%" PRId32 ", %" PRId32 "],\n  \"fps\": ",
                ONESCOPE_OTS_VERSION, source_names[c->header.source], c->frame_range[0],
                c->frame_range[1]);
        cli_json_double(out, c->header.fps);
        fprintf(out, ",\n  \"peg_count\": %zu,\n  \"keyframe_count\": %zu,\n  \"pegs\": [",
                c->peg_count, total);
        for (size_t i = 0; i < c->peg_count; i++) {
            const onescope_ots_peg *p = &c->pegs[i];
            fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
            json_str_or_null(out, p->name);
            fputs(", \"parent\": ", out);
            json_str_or_null(out, p->parent);
            fprintf(out, ", \"keyframe_count\": %zu}", p->keyframe_count);
        }
        fprintf(out, "%s]", c->peg_count ? "\n  " : "");
        dump_cameras_json(out, c->cameras, c->camera_count);
        fputs("\n}\n", out);
    } else {
        char fps[CLI_NUMBER_SIZE];
        fprintf(out,
                "OTS v%d animation (.anm) from %s\n  frame range      %" PRId32 " to %" PRId32
                "\n  fps              %s\n  pegs             %zu\n  keyframes        %zu\n",
                ONESCOPE_OTS_VERSION, source_names[c->header.source], c->frame_range[0],
                c->frame_range[1], cli_number(fps, c->header.fps), c->peg_count, total);
        for (size_t i = 0; i < c->peg_count; i++)
            fprintf(out, "  peg %-9zu %s parent %s keyframes %zu\n", i, c->pegs[i].name,
                    c->pegs[i].parent ? c->pegs[i].parent : "(none)", c->pegs[i].keyframe_count);
        dump_cameras_text(out, c->cameras, c->camera_count);
    }
    onescope_ots_clip_free(c);
    return ONESCOPE_OK;
}

static onescope_code rewrite_anm(const uint8_t *data, size_t size, const char *name,
                                 onescope_buffer *out, onescope_error *error) {
    onescope_ots_clip *c;
    onescope_code rc = onescope_ots_clip_parse(data, size, name, NULL, &c, error);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_ots_clip_write(c, NULL, out, error);
    onescope_ots_clip_free(c);
    return rc;
}

const cli_format cli_format_pvt = {ONESCOPE_FORMAT_PVT, validate_pvt, dump_pvt, rewrite_pvt};
const cli_format cli_format_anm = {ONESCOPE_FORMAT_ANM, validate_anm, dump_anm, rewrite_anm};
