/* onescope replay FILE.ostm [--json] [--state]: runs a replay and prints every hash row. */
#include <inttypes.h>
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
    bool quiet; /* -q without --json: no step lines */
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

enum { OPT_JSON, OPT_STATE };
static const cli_option options[] = {
    [OPT_JSON] = {"json", 0, NULL, "print one JSON document (docs/cli.md lists its keys)"},
    [OPT_STATE] = {"state", 0, NULL, "also print gravity and every body after each step"},
};
const cli_spec cli_spec_replay = {
    .name = "replay",
    .operands = "FILE.ostm",
    .about = "Runs the replay and prints the world hash at every host step, from the start\n"
             "step to the last (a recorded row that differs is marked MISMATCH). -q prints\n"
             "nothing but errors (--json is still printed).\n",
    .exit_codes = "0 ran (use 'onescope verify' to check), 1 invalid or unreadable, 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
};

int cmd_replay(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_replay, argc, argv, 1, 1, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *path = a.operands[0];
    replay_print p = {stdout, a.seen[OPT_JSON], a.seen[OPT_STATE], 0, 0, false};
    p.quiet = cli.quiet && !p.json;
    onescope_error err;
    onescope_replay *r;
    if (onescope_replay_read_file(path, NULL, &r, &err) != ONESCOPE_OK) {
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
