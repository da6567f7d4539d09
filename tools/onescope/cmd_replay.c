/* onescope replay FILE.ostm [--json] [--state]: runs a replay, or a module recording through
 * the module it names, and prints every hash row. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fmt.h"

typedef struct replay_print {
    FILE *out;
    bool json;
    bool state;
    uint32_t mismatches;
    uint32_t rows;
    bool quiet;     /* -q without --json: no step lines */
    double *values; /* a module recording's --state: room for one entity's named values */
} replay_print;

static void print_state_text(FILE *out, const onescope_sim *sim) {
    fprintf(out, "  gravity %" PRId32 ", %" PRIu32 " bodies\n", onescope_sim_gravity(sim),
            onescope_sim_body_count(sim));
    for (uint32_t i = 0; i < onescope_sim_body_count(sim); i++) {
        onescope_sim_body_state b;
        onescope_sim_body(sim, i, &b);
        fmt_body_text(out, i, &b);
    }
}

static void print_state_json(FILE *out, const onescope_sim *sim) {
    fprintf(out, ", \"gravity\": %" PRId32 ", \"bodies\": [", onescope_sim_gravity(sim));
    for (uint32_t i = 0; i < onescope_sim_body_count(sim); i++) {
        onescope_sim_body_state b;
        onescope_sim_body(sim, i, &b);
        if (i) fputs(", ", out);
        fmt_body_json(out, i, &b);
    }
    fputc(']', out);
}

static bool print_row(void *user, const onescope_replay_row *row) {
    replay_print *p = user;
    bool bad = row->has_expected && row->expected != row->hash;
    p->mismatches += bad;
    p->rows++;
    if (p->quiet) return false;
    if (p->json) {
        fprintf(p->out,
                "%s\n    {\"index\": %" PRIu32 ", \"step\": %" PRIu64 ", \"hash\": \"%016" PRIx64
                "\"",
                row->index ? "," : "", row->index, row->host_step, row->hash);
        if (row->has_expected)
            fprintf(p->out, ", \"expected\": \"%016" PRIx64 "\", \"match\": %s", row->expected,
                    bad ? "false" : "true");
        if (p->state) print_state_json(p->out, row->sim);
        fputc('}', p->out);
    } else {
        fprintf(p->out, "step %" PRIu64 " hash %016" PRIx64, row->host_step, row->hash);
        if (bad) fprintf(p->out, " MISMATCH expected %016" PRIx64, row->expected);
        fputc('\n', p->out);
        if (p->state) print_state_text(p->out, row->sim);
    }
    return false;
}

/* ---- a module recording (OSTM v2) ---- */

/* --state of a module's world: each entity's id, its position (the module's units) and every
 * named value, by name, through the one number printer. */
static void print_entities(const replay_print *p, const onescope_world *w) {
    const onescope_module *t = onescope_world_module(w);
    uint32_t n = onescope_world_entity_count(w), nv = p->values != NULL ? t->value_count : 0;
    char num[3][CLI_NUMBER_SIZE];
    if (p->json) fputs(", \"entities\": [", p->out);
    for (uint32_t i = 0; i < n; i++) {
        onescope_pose pose;
        uint64_t id = onescope_world_entity_id(w, i);
        bool here = onescope_world_entity_pose(w, i, &pose);
        bool values =
            nv != 0 && onescope_world_entity_values(w, i, p->values, nv, NULL) == ONESCOPE_OK;
        if (p->json) {
            fprintf(p->out, "%s{\"id\": %" PRIu64 ", \"present\": %s", i ? ", " : "", id,
                    here ? "true" : "false");
            if (here) {
                fputs(", \"position\": [", p->out);
                for (int k = 0; k < 3; k++) {
                    if (k) fputs(", ", p->out);
                    cli_json_double(p->out, pose.position[k]);
                }
                fputc(']', p->out);
            }
            if (values) { /* by name (unique in the table); NaN and infinities are null */
                fputs(", \"values\": {", p->out);
                for (uint32_t v = 0; v < nv; v++) {
                    if (v) fputs(", ", p->out);
                    cli_json_string(p->out, t->values[v].name, strlen(t->values[v].name));
                    fputs(": ", p->out);
                    cli_json_double(p->out, p->values[v]);
                }
                fputc('}', p->out);
            }
            fputc('}', p->out);
            continue;
        }
        if (here)
            fprintf(p->out, "  entity %" PRIu64 " position %s %s %s", id,
                    cli_number_float(num[0], pose.position[0]),
                    cli_number_float(num[1], pose.position[1]),
                    cli_number_float(num[2], pose.position[2]));
        else
            fprintf(p->out, "  entity %" PRIu64 " absent", id);
        for (uint32_t v = 0; values && v < nv; v++)
            fprintf(p->out, "%s%s %s", v ? ", " : ": ", cli_shown(t->values[v].name),
                    cli_number(num[0], p->values[v]));
        fputc('\n', p->out);
    }
    if (p->json) fputc(']', p->out);
}

static bool print_recording_row(void *user, const onescope_recording_row *row) {
    replay_print *p = user;
    uint64_t hash = onescope_world_hash(row->world);
    bool bad = row->has_expected && row->expected != hash;
    p->mismatches += bad;
    p->rows++;
    if (p->quiet) return false;
    if (p->json) {
        /* a recording's row i is step i */
        fprintf(p->out,
                "%s\n    {\"index\": %" PRIu32 ", \"step\": %" PRIu32 ", \"hash\": \"%016" PRIx64
                "\"",
                row->index ? "," : "", row->index, row->index, hash);
        if (row->has_expected)
            fprintf(p->out, ", \"expected\": \"%016" PRIx64 "\", \"match\": %s", row->expected,
                    bad ? "false" : "true");
        if (p->state) print_entities(p, row->world);
        fputc('}', p->out);
    } else {
        fprintf(p->out, "step %" PRIu32 " hash %016" PRIx64, row->index, hash);
        if (bad) fprintf(p->out, " MISMATCH expected %016" PRIx64, row->expected);
        fputc('\n', p->out);
        if (p->state) print_entities(p, row->world);
    }
    return false;
}

/* The module the file names, and for --state its entities (the world's copy of the table says
 * whether it has them). */
static onescope_code recording_module(const onescope_recording *r, const char *name, bool state,
                                      const onescope_module **m, onescope_error *err) {
    onescope_code rc = cli_module_for(onescope_recording_module_id(r),
                                      onescope_recording_module_version(r), name, m, err);
    if (rc != ONESCOPE_OK || !state) return rc;
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_world *w;
    rc = onescope_recording_check(r, *m, name, err);
    if (rc == ONESCOPE_OK) rc = onescope_world_create(*m, setup, setup_size, NULL, &w, err);
    if (rc != ONESCOPE_OK) return rc;
    const onescope_module *t = onescope_world_module(w);
    bool entities = t->entity_count != NULL && t->entity_id != NULL && t->entity_pose != NULL;
    onescope_world_free(w);
    if (entities) return ONESCOPE_OK;
    onescope_error_clear(err);
    err->code = ONESCOPE_E_UNSUPPORTED;
    snprintf(err->input, sizeof err->input, "%s", name);
    snprintf(err->field, sizeof err->field, "--state");
    snprintf(err->expected, sizeof err->expected,
             "a module with entities (entity_count, entity_id, entity_pose)");
    snprintf(err->found, sizeof err->found, "module '%s' has no entities", (*m)->id);
    return ONESCOPE_E_UNSUPPORTED;
}

static int run_recording(const char *path, onescope_buffer *buf, replay_print *p) {
    const char *name = cli_input_name(path);
    onescope_error err;
    onescope_recording *r = NULL;
    const onescope_module *m = NULL;
    onescope_code rc = onescope_recording_parse(buf->data, buf->size, name, NULL, &r, &err);
    onescope_buffer_free(buf);
    if (rc == ONESCOPE_OK) rc = recording_module(r, name, p->state, &m, &err);
    if (rc != ONESCOPE_OK) {
        onescope_recording_free(r);
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (p->json) {
        fprintf(p->out, "{\n  \"file\": ");
        cli_json_string(p->out, name, strlen(name));
        fprintf(p->out,
                ",\n  \"start_step\": 0,\n  \"step_count\": %" PRIu32
                ",\n  \"has_hash_rows\": %s,\n  \"rows\": [",
                onescope_recording_step_count(r),
                onescope_recording_flags(r) & ONESCOPE_RECORDING_FLAG_HASH_ROWS ? "true" : "false");
    }
    /* --state: room for an entity's named values (the table check bounds their count) */
    if (p->state && (p->values = calloc(ONESCOPE_MODULE_MAX_VALUES, sizeof *p->values)) == NULL) {
        onescope_recording_free(r);
        fprintf(stderr, "onescope replay: out of memory\n");
        return CLI_FAIL;
    }
    rc = onescope_recording_run(r, m, NULL, print_recording_row, p, name, &err);
    free(p->values);
    p->values = NULL;
    onescope_recording_free(r);
    if (p->json) fprintf(p->out, "\n  ],\n  \"mismatches\": %" PRIu32 "\n}\n", p->mismatches);
    if (cli.verbose)
        fprintf(stderr, "onescope replay: %s: %" PRIu32 " rows, %" PRIu32 " mismatches\n",
                cli_shown(path), p->rows, p->mismatches);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

enum { OPT_JSON, OPT_STATE };
static const cli_option options[] = {
    [OPT_JSON] = {"json", 0, NULL, "print one JSON document (docs/cli.md lists its keys)"},
    [OPT_STATE] = {"state", 0, NULL,
                   "also print gravity and every body after each step (a module recording: "
                   "every entity's id, position and named values)"},
};
const cli_spec cli_spec_replay = {
    .name = "replay",
    .operands = "FILE.ostm",
    .about = "Runs the replay and prints the world hash at every host step, from the start\n"
             "step to the last (a recorded row that differs is marked MISMATCH). -q prints\n"
             "nothing but errors (--json is still printed). A module recording (OSTM v2) runs\n"
             "through the module it names (the test module, or one loaded with --module);\n"
             "its host steps are its rows, from 0.\n",
    .exit_codes = "0 ran (use 'onescope verify' to check), 1 invalid or unreadable, 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
};

int cmd_replay(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_replay, argc, argv, 1, 1, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *path = a.operands[0];
    replay_print p = {stdout, a.seen[OPT_JSON], a.seen[OPT_STATE], 0, 0, false, NULL};
    p.quiet = cli.quiet && !p.json;
    onescope_error err;
    onescope_buffer buf;
    if (onescope_file_read(path, 0, NULL, &buf, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (onescope_format_detect(buf.data, buf.size) == ONESCOPE_FORMAT_RECORDING)
        return run_recording(path, &buf, &p);
    onescope_replay *r;
    onescope_code parsed =
        onescope_replay_parse(buf.data, buf.size, cli_input_name(path), NULL, &r, &err);
    onescope_buffer_free(&buf);
    if (parsed != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (p.json) {
        fprintf(p.out, "{\n  \"file\": ");
        cli_json_string(p.out, cli_input_name(path), strlen(cli_input_name(path)));
        fprintf(p.out,
                ",\n  \"start_step\": %" PRIu64 ",\n  \"step_count\": %" PRIu32
                ",\n  \"has_hash_rows\": %s,\n  \"rows\": [",
                onescope_replay_start_step(r), onescope_replay_step_count(r),
                onescope_replay_has_hash_rows(r) ? "true" : "false");
    }
    onescope_code rc = onescope_replay_run(r, NULL, print_row, &p, &err);
    onescope_replay_free(r);
    if (p.json) fprintf(p.out, "\n  ],\n  \"mismatches\": %" PRIu32 "\n}\n", p.mismatches);
    if (cli.verbose)
        fprintf(stderr, "onescope replay: %s: %" PRIu32 " rows, %" PRIu32 " mismatches\n",
                cli_shown(path), p.rows, p.mismatches);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
