/* onescope module check RECORDING [--steps N] [--horizon S] [--every K] [--json]: the module a
 * recording names (or the test module, for an OSTM v1 replay) run from the recording's setup
 * and inputs through onescope_module_check_run, one line per check. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_STEPS, OPT_HORIZON, OPT_EVERY, OPT_JSON };
static const cli_option options[] = {
    [OPT_STEPS] = {"steps", 0, "N", "check the first N steps (default: all of the recording's)"},
    [OPT_HORIZON] = {"horizon", 0, "S",
                     "steps a restored world runs beside the original (default 4)"},
    [OPT_EVERY] = {"every", 0, "K",
                   "a snapshot round trip every K steps (default 32; 1: each step)"},
    [OPT_JSON] = {"json", 0, NULL, "one JSON object instead of text"},
};
const cli_spec cli_spec_module_check = {
    .name = "module check",
    .operands = "RECORDING.ostm",
    .about = "Runs the module the recording names (a module recording, OSTM v2, through the test\n"
             "module or one loaded with --module; an OSTM v1 replay through the test module) from\n"
             "the recording's setup with its inputs, and checks each step: two worlds from one\n"
             "setup agree (determinism); snapshot -> restore -> snapshot gives the same bytes\n"
             "(snapshot); a restored world continues as the original (restore); stages run one\n"
             "by one equal a whole step (stages); a named value that changes changes the hash\n"
             "(hash). A check needing a slot the module lacks is skipped, naming the slot.\n"
             "docs/module.md, \"Checking a module before trusting it\".\n",
    .exit_codes = "0 every check that could run passed; 1 one failed, or the recording is "
                  "invalid; 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
};

typedef struct source {
    onescope_replay *replay;
    onescope_recording *recording;
} source;

static onescope_code input_of(void *user, uint64_t step, const void **input, size_t *size,
                              onescope_error *error) {
    (void)error;
    const source *s = user;
    const uint8_t *p = NULL;
    onescope_code rc = s->recording
                           ? onescope_recording_step_input(s->recording, (uint32_t)step, &p, size)
                           : onescope_replay_step_input(s->replay, (uint32_t)step, &p, size);
    *input = p;
    return rc;
}

static const char *status_name(onescope_module_check_status s) {
    return s == ONESCOPE_MODULE_CHECK_PASSED   ? "passed"
           : s == ONESCOPE_MODULE_CHECK_FAILED ? "failed"
                                               : "skipped";
}

static void print_json(const char *file, const onescope_module *m,
                       const onescope_module_check_result *r) {
    printf("{\"file\":");
    cli_json_string(stdout, file, strlen(file));
    printf(",\"module\":");
    cli_json_string(stdout, m->id, strlen(m->id));
    printf(",\"steps\":%" PRIu64 ",\"failed\":%" PRIu32 ",\"checks\":[", r->steps, r->failed);
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++) {
        const onescope_module_check_outcome *o = &r->checks[k];
        const onescope_module_check_failure *f = &o->failure;
        printf("%s{\"check\":\"%s\",\"status\":\"%s\",\"skipped_for\":", k ? "," : "",
               onescope_module_check_name((onescope_module_check_kind)k), status_name(o->status));
        if (o->status == ONESCOPE_MODULE_CHECK_SKIPPED)
            cli_json_string(stdout, o->skipped_for, strlen(o->skipped_for));
        else
            printf("null");
        if (o->status != ONESCOPE_MODULE_CHECK_FAILED) {
            printf(",\"step\":null,\"stage\":null,\"entity\":null,\"entity_id\":null,"
                   "\"value\":null,\"values\":null,\"hashes\":null,\"offset\":null,"
                   "\"what\":null}");
            continue;
        }
        printf(",\"step\":%" PRIu64 ",\"stage\":", f->step);
        if (f->stage == ONESCOPE_MODULE_CHECK_NO_STAGE)
            printf("null");
        else
            cli_json_string(stdout, m->stage_names[f->stage], strlen(m->stage_names[f->stage]));
        if (f->entity == ONESCOPE_MODULE_CHECK_NO_ENTITY)
            printf(",\"entity\":null,\"entity_id\":null");
        else
            printf(",\"entity\":%" PRIu32 ",\"entity_id\":%" PRIu64, f->entity, f->entity_id);
        printf(",\"value\":");
        if (f->value[0]) {
            cli_json_string(stdout, f->value, strlen(f->value));
            printf(",\"values\":[");
            cli_json_double(stdout, f->values[0]);
            printf(",");
            cli_json_double(stdout, f->values[1]);
            printf("]");
        } else {
            printf("null,\"values\":null");
        }
        printf(",\"hashes\":[\"%016" PRIx64 "\",\"%016" PRIx64 "\"],\"offset\":", f->hashes[0],
               f->hashes[1]);
        if (f->has_offset)
            printf("%" PRIu64, f->offset);
        else
            printf("null");
        printf(",\"what\":");
        cli_json_string(stdout, f->what, strlen(f->what));
        printf("}");
    }
    printf("]}\n");
}

static void print_text(const char *file, const onescope_module *m,
                       const onescope_module_check_result *r) {
    for (int k = 0; k < ONESCOPE_MODULE_CHECK_COUNT; k++) {
        const onescope_module_check_outcome *o = &r->checks[k];
        const onescope_module_check_failure *f = &o->failure;
        const char *name = onescope_module_check_name((onescope_module_check_kind)k);
        if (o->status == ONESCOPE_MODULE_CHECK_PASSED) {
            if (!cli.quiet) printf("%s: %s: passed over %" PRIu64 " steps\n", file, name, r->steps);
        } else if (o->status == ONESCOPE_MODULE_CHECK_SKIPPED) {
            if (!cli.quiet) printf("%s: %s: skipped (needs %s)\n", file, name, o->skipped_for);
        } else {
            printf("%s: %s: FAILED at step %" PRIu64, file, name, f->step);
            if (f->stage != ONESCOPE_MODULE_CHECK_NO_STAGE)
                printf(", stage %" PRIu32 " '%s'", f->stage, cli_shown(m->stage_names[f->stage]));
            printf(": %s\n", f->what);
        }
    }
}

int cmd_module_check(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_module_check, argc, argv, 1, 1, &a);
    if (status != CLI_PARSE_RUN) return status;
    onescope_module_check_def d = onescope_module_check_def_default();
    uint64_t v;
    if (a.seen[OPT_HORIZON]) {
        if (!cli_parse_u64(a.value[OPT_HORIZON], UINT32_MAX, &v))
            return cli_usage_error("module check", "--horizon must be a number, not '%s'",
                                   a.value[OPT_HORIZON]);
        d.horizon = (uint32_t)v;
    }
    if (a.seen[OPT_EVERY]) {
        if (!cli_parse_u64(a.value[OPT_EVERY], UINT32_MAX, &v) || v == 0)
            return cli_usage_error("module check", "--every must be a positive number, not '%s'",
                                   a.value[OPT_EVERY]);
        d.restore_every = (uint32_t)v;
    }
    uint64_t steps = UINT64_MAX;
    if (a.seen[OPT_STEPS] && (!cli_parse_u64(a.value[OPT_STEPS], UINT32_MAX, &steps) || steps == 0))
        return cli_usage_error("module check", "--steps must be a positive number, not '%s'",
                               a.value[OPT_STEPS]);
    const char *path = a.operands[0];
    onescope_error err;
    onescope_buffer in;
    if (onescope_file_read(path, 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    const char *name = cli_input_name(path);
    source s = {0};
    const onescope_module *m = onescope_module_test();
    const uint8_t *setup = NULL, *snap = NULL;
    uint8_t blob[10];
    size_t setup_size = 0, snap_size = 0;
    uint32_t count = 0;
    onescope_code rc;
    if (onescope_format_detect(in.data, in.size) == ONESCOPE_FORMAT_RECORDING) {
        rc = onescope_recording_parse(in.data, in.size, name, NULL, &s.recording, &err);
        if (rc == ONESCOPE_OK)
            rc = cli_module_for(onescope_recording_module_id(s.recording),
                                onescope_recording_module_version(s.recording), name, &m, &err);
        if (rc == ONESCOPE_OK) {
            setup = onescope_recording_setup(s.recording, &setup_size);
            snap = onescope_recording_start_snapshot(s.recording, &snap_size);
            count = onescope_recording_step_count(s.recording);
        }
    } else {
        rc = onescope_replay_parse(in.data, in.size, name, NULL, &s.replay, &err);
        if (rc == ONESCOPE_OK) {
            /* the test module's setup blob: the setup bytes, then the link block if any */
            onescope_sim_setup st = onescope_replay_setup(s.replay);
            onescope_sim_setup_encode(&st, blob);
            setup_size = 6;
            onescope_link_block l = onescope_replay_link(s.replay);
            if (l.role != ONESCOPE_LINK_ROLE_NONE) {
                blob[6] = l.role, blob[7] = l.body;
                blob[8] = (uint8_t)(l.transfer_step & 0xff);
                blob[9] = (uint8_t)(l.transfer_step >> 8);
                setup_size = 10;
            }
            setup = blob;
            snap = onescope_replay_start_snapshot(s.replay, &snap_size);
            count = onescope_replay_step_count(s.replay);
        }
    }
    onescope_buffer_free(&in);
    onescope_module_check_result r;
    if (rc == ONESCOPE_OK) {
        d.steps = steps < count ? steps : count;
        d.input = input_of;
        d.input_user = &s;
        d.start_snapshot = snap;
        d.start_snapshot_size = snap_size;
        rc = onescope_module_check_run(m, setup, setup_size, &d, NULL, &r, &err);
    }
    if (rc == ONESCOPE_OK) {
        if (a.seen[OPT_JSON])
            print_json(name, m, &r);
        else {
            char shown[1024]; /* cli_shown's buffers rotate: the stage names use them too */
            snprintf(shown, sizeof shown, "%s", cli_shown(path));
            print_text(shown, m, &r);
        }
    }
    onescope_recording_free(s.recording);
    onescope_replay_free(s.replay);
    if (rc != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    return r.failed ? CLI_FAIL : CLI_OK;
}

static void module_help(FILE *out) {
    fprintf(out, "usage: onescope module check RECORDING.ostm [OPTIONS]\n"
                 "  check  run the recording's module from its setup and check it step by step\n"
                 "'onescope module check --help' says more.\n");
}

int cmd_module(int argc, char **argv) {
    static const cli_spec spec = {
        .name = "module",
        .operands = "check",
        .stop_at_operand = true,
        .print_help = module_help,
    };
    cli_args a;
    int parsed = cli_parse(&spec, argc, argv, 1, -1, &a);
    if (parsed != CLI_PARSE_RUN) return parsed;
    if (a.dashdash) cli_operands_only = true;
    if (strcmp(a.operands[0], "check") == 0)
        return cmd_module_check(a.operand_count - 1, a.operands + 1);
    return cli_usage_error("module", "unknown subcommand '%s' (check)", a.operands[0]);
}
