/* The CLI's view of a live stream captured to a file: validate, dump, rewrite. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static onescope_code validate(const uint8_t *data, size_t size, const char *name,
                              onescope_error *error) {
    return onescope_live_decode(data, size, name, NULL, NULL, NULL, error);
}

/* What a dump shows: counts, the first probe's setup and link, the step range. */
typedef struct summary {
    uint16_t version;
    char module[140]; /* version 2: "ID VERSION" */
    uint64_t setup_bytes;
    uint64_t records, probes, steps, input_bytes;
    uint64_t first_step, end_step;
    uint32_t max_bodies;
    onescope_sim_setup setup;
    onescope_link_block link;
} summary;

static bool summarise(void *user, const onescope_live_record *r) {
    summary *s = user;
    s->records++;
    if (s->records == 1) {
        s->version = r->version;
        snprintf(s->module, sizeof s->module, "%s %s", r->module_id, r->module_version);
    }
    if (r->type == ONESCOPE_LIVE_PROBE && r->version == ONESCOPE_LIVE_MODULE_VERSION) {
        if (s->probes++ == 0) {
            s->setup_bytes = r->setup_blob_size;
            s->first_step = r->step;
        }
    } else if (r->type == ONESCOPE_LIVE_PROBE) {
        if (s->probes++ == 0) {
            s->setup = r->setup;
            s->link = r->link;
            s->first_step = r->step;
        }
        uint32_t bodies =
            (uint32_t)((r->snapshot_size - ONESCOPE_SIM_SNAPSHOT_HEADER) / ONESCOPE_SIM_BODY_BYTES);
        if (bodies > s->max_bodies) s->max_bodies = bodies;
    } else if (r->type == ONESCOPE_LIVE_STEP) {
        s->steps++;
        s->input_bytes += r->input_size;
    } else {
        s->end_step = r->step;
    }
    return false;
}

static onescope_code dump(const uint8_t *data, size_t size, const char *name, bool json, FILE *out,
                          onescope_error *error) {
    summary s;
    memset(&s, 0, sizeof s);
    onescope_code rc = onescope_live_decode(data, size, name, NULL, summarise, &s, error);
    if (rc != ONESCOPE_OK) return rc;
    static const char *const roles[4] = {"none", "sender", "receiver", "fields"};
    if (s.version == ONESCOPE_LIVE_MODULE_VERSION) {
        /* the module's blobs are its own: their sizes, not their meaning */
        char *space = strchr(s.module, ' ');
        *space = '\0';
        if (json) {
            fprintf(out, "{\n  \"format\": \"osls\",\n  \"version\": 2,\n  \"flags\": 0,\n");
            fprintf(out, "  \"module\": \"%s\",\n  \"module_version\": ", s.module);
            cli_json_string(out, space + 1, strlen(space + 1));
            fprintf(out,
                    ",\n  \"setup_bytes\": %" PRIu64 ",\n  \"record_count\": %" PRIu64
                    ",\n  \"probe_count\": %" PRIu64 ",\n  \"step_count\": %" PRIu64
                    ",\n  \"input_bytes\": %" PRIu64 ",\n  \"first_step\": %" PRIu64
                    ",\n  \"end_step\": %" PRIu64 "\n}\n",
                    s.setup_bytes, s.records, s.probes, s.steps, s.input_bytes, s.first_step,
                    s.end_step);
            return ONESCOPE_OK;
        }
        fprintf(out, "OSLS v2 live stream\n");
        fprintf(out, "  module           %s %s\n", s.module, space + 1);
        fprintf(out, "  setup            %" PRIu64 " bytes\n", s.setup_bytes);
        fprintf(out,
                "  records          %" PRIu64 " (%" PRIu64 " probes, %" PRIu64 " steps, 1 end)\n",
                s.records, s.probes, s.steps);
        fprintf(out, "  host steps       %" PRIu64 " to %" PRIu64 "\n", s.first_step, s.end_step);
        fprintf(out, "  input            %" PRIu64 " bytes\n", s.input_bytes);
        return ONESCOPE_OK;
    }
    if (json) {
        fprintf(out, "{\n  \"format\": \"osls\",\n  \"version\": 1,\n  \"flags\": 0,\n");
        fprintf(out, "  \"dimensions\": %u,\n  \"body_count\": %u,\n  \"seed\": %" PRIu32 ",\n",
                (unsigned)s.setup.dimensions, (unsigned)s.setup.body_count, s.setup.seed);
        if (s.link.role == ONESCOPE_LINK_ROLE_NONE)
            fprintf(out, "  \"link\": null,\n");
        else
            fprintf(out,
                    "  \"link\": {\"role\": %u, \"role_name\": \"%s\", \"body\": %u, "
                    "\"transfer_step\": %u},\n",
                    (unsigned)s.link.role, roles[s.link.role & 3], (unsigned)s.link.body,
                    (unsigned)s.link.transfer_step);
        fprintf(out,
                "  \"record_count\": %" PRIu64 ",\n  \"probe_count\": %" PRIu64
                ",\n  \"step_count\": %" PRIu64 ",\n  \"input_bytes\": %" PRIu64
                ",\n  \"first_step\": %" PRIu64 ",\n  \"end_step\": %" PRIu64
                ",\n  \"max_probe_bodies\": %" PRIu32 "\n}\n",
                s.records, s.probes, s.steps, s.input_bytes, s.first_step, s.end_step,
                s.max_bodies);
        return ONESCOPE_OK;
    }
    fprintf(out, "OSLS v1 live stream\n");
    fprintf(out, "  setup            %uD, %u bodies, seed %" PRIu32 "\n",
            (unsigned)s.setup.dimensions, (unsigned)s.setup.body_count, s.setup.seed);
    if (s.link.role == ONESCOPE_LINK_ROLE_NONE)
        fprintf(out, "  link             none\n");
    else
        fprintf(out, "  link             role %u (%s), body %u, transfer step %u\n",
                (unsigned)s.link.role, roles[s.link.role & 3], (unsigned)s.link.body,
                (unsigned)s.link.transfer_step);
    fprintf(out, "  records          %" PRIu64 " (%" PRIu64 " probes, %" PRIu64 " steps, 1 end)\n",
            s.records, s.probes, s.steps);
    fprintf(out, "  host steps       %" PRIu64 " to %" PRIu64 "\n", s.first_step, s.end_step);
    fprintf(out, "  input            %" PRIu64 " bytes\n", s.input_bytes);
    fprintf(out, "  bodies           up to %" PRIu32 " in a probe\n", s.max_bodies);
    return ONESCOPE_OK;
}

typedef struct recode {
    onescope_live_encoder *enc;
    onescope_error *error;
    onescope_code rc;
} recode;

static bool encode_again(void *user, const onescope_live_record *r) {
    recode *c = user;
    if (c->enc == NULL) { /* the first record says which version to write */
        c->rc = r->version == ONESCOPE_LIVE_MODULE_VERSION
                    ? onescope_live_encoder_create_module(r->module_id, r->module_version, NULL,
                                                          &c->enc, c->error)
                    : onescope_live_encoder_create(NULL, &c->enc, c->error);
        if (c->rc != ONESCOPE_OK) return true;
    }
    if (r->type == ONESCOPE_LIVE_PROBE && r->version == ONESCOPE_LIVE_MODULE_VERSION)
        c->rc = onescope_live_encode_probe_blob(
            c->enc, r->step, r->setup_blob, r->setup_blob_size,
            r->has_snapshot ? (r->snapshot ? r->snapshot : (const uint8_t *)"") : NULL,
            r->snapshot_size, c->error);
    else if (r->type == ONESCOPE_LIVE_PROBE)
        c->rc = onescope_live_encode_probe_parts(c->enc, &r->setup, &r->link, r->snapshot,
                                                 r->snapshot_size, c->error);
    else if (r->type == ONESCOPE_LIVE_STEP)
        c->rc =
            onescope_live_encode_step(c->enc, r->step, r->input, r->input_size, r->hash, c->error);
    else
        c->rc = onescope_live_encode_end(c->enc, r->step, c->error);
    return c->rc != ONESCOPE_OK;
}

static onescope_code rewrite(const uint8_t *data, size_t size, const char *name,
                             onescope_buffer *out, onescope_error *error) {
    recode c = {NULL, error, ONESCOPE_OK};
    onescope_code rc = onescope_live_decode(data, size, name, NULL, encode_again, &c, error);
    if (rc == ONESCOPE_OK) rc = c.rc;
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_take(c.enc, out, error);
    onescope_live_encoder_free(c.enc);
    return rc;
}

const cli_format cli_format_osls = {ONESCOPE_FORMAT_OSLS, validate, dump, rewrite};
