/* onescope diff A B: why two runs differ (two replays, two pose caches, two module recordings,
 * or a replay or a module recording and a pose cache). Output and exit codes: docs/diff.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

/* The tolerances' ranges (the help below states them): no angle between two rotations is
 * above 180 degrees. */
#define POSITION_RANGE ((cli_real_range){0, 1e300, false})
#define ANGLE_RANGE ((cli_real_range){0, 180, false})
enum { OPT_JSON, OPT_MAX, OPT_POSITION, OPT_ANGLE, OPT_OFFSET };
static const cli_option options[] = {
    [OPT_JSON] = {"json", 0, NULL, "one JSON document on stdout (docs/cli.md lists every key)"},
    [OPT_MAX] = {"max", 'm', "N", "print at most N differing values of a replay step (default 16)"},
    [OPT_POSITION] = {"position-tolerance", 0, "METRES", "0 to 1e300 (default 0: exact)"},
    [OPT_ANGLE] = {"angle-tolerance", 0, "DEGREES", "0 to 180 (default 0: exact)"},
    [OPT_OFFSET] = {"offset", 'o', "X,Y,Z",
                    "RUN.ostm CACHE.ospc: shift the run's bodies, mm (a module recording's "
                    "entities: its units)"},
};
const cli_spec cli_spec_diff = {
    .name = "diff",
    .operands = "A B",
    .about = "A.ostm B.ostm: runs both replays in lockstep, stage by stage, and prints the setup\n"
             "  differences, the first step and stage where the worlds differ, every value that\n"
             "  differs there (at most --max; the count of all is given) and the first operation\n"
             "  of that step whose inputs differ.\n"
             "A.ospc B.ospc: header and entity differences (entities matched by id), then the\n"
             "  frames both hold (aligned by step): the first frame and entity past tolerance and\n"
             "  one summary line per entity (max distance and its step, RMS, max angle).\n"
             "  Tolerances are exact (0) by default; exact comparisons also give ULPs.\n"
             "A.ostm B.ostm, module recordings (OSTM v2, with --module for another module's):\n"
             "  both run in lockstep through the module; the first row whose worlds differ,\n"
             "  the step's inputs as the module tells them, and, run again stage by stage,\n"
             "  the stage, entity and named value that differ first, with both values.\n"
             "RUN.ostm CACHE.ospc: the replay's bodies (entity id = body + 1, mm, plus --offset)\n"
             "  against the cache's frames, the same report as for two caches. A module\n"
             "  recording counts as its ghost over the cache's steps (docs/ghost.md): entity\n"
             "  ids 1, 2, ... as its ids first appear, its units, plus --offset.\n"
             "Files only: '-' (standard input) is not taken. Output: docs/diff.md.\n",
    .exit_codes = "0 the same; 1 different, or a file invalid or unreadable; 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
};

typedef struct diff_args {
    const char *path[2];
    const char *src[2]; /* what is read: each input opened once (cli_input) */
    bool json;
    onescope_diff_options o;
} diff_args;

/* The format of an input from its first bytes, read from its one open. */
static onescope_format peek(const cli_input *in, onescope_error *err) {
    uint8_t b[8];
    ssize_t got = pread(in->fd, b, sizeof b, 0);
    onescope_format fmt = onescope_format_detect(b, got > 0 ? (size_t)got : 0);
    if (fmt != ONESCOPE_FORMAT_OSTM && fmt != ONESCOPE_FORMAT_OSPC &&
        fmt != ONESCOPE_FORMAT_RECORDING) {
        onescope_error_clear(err);
        err->code = ONESCOPE_E_MAGIC;
        snprintf(err->input, sizeof err->input, "%s", in->path);
        err->has_offset = 1;
        snprintf(err->field, sizeof err->field, "magic");
        snprintf(err->expected, sizeof err->expected,
                 "an OSTM replay, a module recording or an OSPC pose cache");
        snprintf(err->found, sizeof err->found, "%s", "neither");
        return ONESCOPE_FORMAT_UNKNOWN;
    }
    return fmt;
}

static void json_key(FILE *o, const char *k) {
    cli_json_string(o, k, strlen(k));
    fputc(':', o);
}

static void json_str(FILE *o, const char *k, const char *v) {
    json_key(o, k);
    cli_json_string(o, v, strlen(v));
}

static void print_headers(const onescope_diff_header *h, uint32_t n, bool json, FILE *o) {
    if (json) {
        json_key(o, "header");
        fputc('[', o);
        for (uint32_t i = 0; i < n; i++) {
            fputs(i ? ",{" : "{", o);
            json_str(o, "field", h[i].field);
            fputc(',', o);
            json_str(o, "a", h[i].a);
            fputc(',', o);
            json_str(o, "b", h[i].b);
            fputc('}', o);
        }
        fputs("],", o);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "header %s: a %s, b %s\n", h[i].field, h[i].a, h[i].b);
}

static void json_op(FILE *o, const char *k, bool has, const onescope_op *op) {
    json_key(o, k);
    if (!has) {
        fputs("null", o);
        return;
    }
    fprintf(o, "{\"code\":%u,\"body\":%u,\"values\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]}",
            op->code, op->body, op->value[0], op->value[1], op->value[2]);
}

/* "  body 3 position.x: a 100, b 101 (mm)", "  gravity: a -10, b -9 (mm/step^2)",
 * "  density[12]: a 3, b 4": the test module's names (its own static ASCII); an element of a
 * world value with more than one gets its index. */
static void print_value(const onescope_diff_value *v, FILE *o) {
    if (!v->world)
        fprintf(o, "  body %" PRIu32 " %s", v->index, v->name);
    else if (onescope_module_test()->world_values[v->value].count == 1)
        fprintf(o, "  %s", v->name);
    else
        fprintf(o, "  %s[%" PRIu32 "]", v->name, v->index);
    char a[CLI_NUMBER_SIZE], b[CLI_NUMBER_SIZE];
    fprintf(o, ": a %s, b %s", cli_number(a, v->a), cli_number(b, v->b));
    if (v->unit[0] != '\0') fprintf(o, " (%s)", v->unit);
    fputc('\n', o);
}

static void print_replay(const diff_args *a, const onescope_diff_replay *d, FILE *o) {
    const char *stage = onescope_sim_stage_name(d->stage);
    if (a->json) {
        print_headers(d->header, d->header_count, true, o);
        fprintf(o, "\"steps_compared\":%" PRIu32 ",\"diverged\":%s", d->steps_compared,
                d->diverged ? "true" : "false");
        if (d->diverged) {
            fprintf(o,
                    ",\"at_start\":%s,\"step\":%" PRIu32 ",\"host_step_a\":%" PRIu64
                    ",\"host_step_b\":%" PRIu64 ",",
                    d->at_start ? "true" : "false", d->step, d->host_step_a, d->host_step_b);
            json_str(o, "stage", d->at_start ? "start" : stage);
            fprintf(o, ",\"value_total\":%" PRIu32 ",\"values\":[", d->value_total);
            for (uint32_t i = 0; i < d->value_count; i++) {
                const onescope_diff_value *v = &d->values[i];
                fputs(i ? ",{" : "{", o);
                json_str(o, "kind", v->world ? "world" : "entity");
                fputc(',', o);
                json_str(o, "name", v->name);
                fputc(',', o);
                json_str(o, "unit", v->unit);
                fprintf(o, ",\"index\":%" PRIu32 ",\"id\":", v->index);
                if (v->world)
                    fputs("null", o);
                else
                    fprintf(o, "%" PRIu64, v->entity_id);
                fputs(",\"a\":", o);
                cli_json_double(o, v->a);
                fputs(",\"b\":", o);
                cli_json_double(o, v->b);
                fputc('}', o);
            }
            fputs("],\"entity_counts\":", o);
            if (d->entity_counts_differ)
                fprintf(o, "{\"a\":%" PRIu32 ",\"b\":%" PRIu32 "}", d->entity_count_a,
                        d->entity_count_b);
            else
                fputs("null", o);
            fprintf(o, ",\"inputs_differ\":%s", d->inputs_differ ? "true" : "false");
            if (d->inputs_differ) {
                fprintf(o, ",\"op_index\":%" PRIu32 ",", d->op_index);
                json_op(o, "op_a", d->has_op_a, &d->op_a);
                fputc(',', o);
                json_op(o, "op_b", d->has_op_b, &d->op_b);
            }
        }
        fputs(",\"first_input_step\":", o);
        if (d->has_input_step)
            fprintf(o, "%" PRIu32, d->first_input_step);
        else
            fputs("null", o);
        fputs(",\"hash_rows\":", o);
        if (d->hash_rows_differ)
            fprintf(o, "{\"row\":%" PRIu32 ",\"a\":\"%016" PRIx64 "\",\"b\":\"%016" PRIx64 "\"}",
                    d->hash_row, d->hash_a, d->hash_b);
        else
            fputs("null", o);
        return;
    }
    print_headers(d->header, d->header_count, false, o);
    if (!d->diverged) {
        fprintf(o, "worlds: the same over %" PRIu32 " steps\n", d->steps_compared);
    } else if (d->at_start) {
        fprintf(o, "worlds differ at the start (before step 0), %" PRIu32 " values:\n",
                d->value_total);
    } else {
        fprintf(o,
                "worlds differ at step %" PRIu32 " (host step a %" PRIu64 ", b %" PRIu64
                "), after stage %s, %" PRIu32 " values:\n",
                d->step, d->host_step_a, d->host_step_b, stage, d->value_total);
    }
    if (d->entity_counts_differ)
        fprintf(o, "  bodies: a %" PRIu32 ", b %" PRIu32 "\n", d->entity_count_a,
                d->entity_count_b);
    for (uint32_t i = 0; i < d->value_count; i++) print_value(&d->values[i], o);
    if (d->value_total > d->value_count)
        fprintf(o, "  ... %" PRIu32 " more (--max)\n", d->value_total - d->value_count);
    if (d->diverged && !d->at_start) {
        if (!d->inputs_differ) {
            fprintf(o, "inputs of step %" PRIu32 ": the same\n", d->step);
        } else {
            char x[96] = "none", y[96] = "none";
            if (d->has_op_a) (void)onescope_op_format(&d->op_a, x, sizeof x);
            if (d->has_op_b) (void)onescope_op_format(&d->op_b, y, sizeof y);
            fprintf(o, "inputs of step %" PRIu32 " differ at operation %" PRIu32 ": a %s; b %s\n",
                    d->step, d->op_index, x, y);
        }
    }
    if (d->has_input_step)
        fprintf(o, "first step whose inputs differ: %" PRIu32 "\n", d->first_input_step);
    if (d->hash_rows_differ)
        fprintf(o,
                "recorded hash rows differ at row %" PRIu32 " where the worlds agree: a %016" PRIx64
                ", b %016" PRIx64 " (verify tells which is wrong)\n",
                d->hash_row, d->hash_a, d->hash_b);
}

static void print_cache(const diff_args *a, const onescope_diff_cache *d, FILE *o) {
    const char *unit = d->unitless ? "units" : "m";
    if (a->json) {
        print_headers(d->header, d->header_count, true, o);
        fprintf(o, "\"unitless\":%s,\"exact\":%s,\"compares_rotation\":%s,",
                d->unitless ? "true" : "false", d->exact ? "true" : "false",
                d->compares_rotation ? "true" : "false");
        fprintf(o, "\"steps_a\":[%" PRId64 ",%" PRId64 "],\"steps_b\":[%" PRId64 ",%" PRId64 "],",
                d->first_step_a, d->last_step_a, d->first_step_b, d->last_step_b);
        fprintf(o, "\"overlap_frames\":%" PRIu32 ",", d->overlap_frames);
        if (d->overlap_frames > 0)
            fprintf(o, "\"overlap\":[%" PRId64 ",%" PRId64 "],", d->overlap_first, d->overlap_last);
        else
            fputs("\"overlap\":null,", o);
        fprintf(o, "\"only_in_a\":%" PRIu32 ",\"only_in_b\":%" PRIu32 ",", d->only_in_a,
                d->only_in_b);
        fprintf(o, "\"past_tolerance\":%s,\"max_ulps\":%" PRIu64 ",\"first\":",
                d->past_tolerance ? "true" : "false", d->max_ulps);
        if (d->has_first) {
            fprintf(o, "{\"step\":%" PRId64 ",\"id\":%" PRIu64 ",\"presence\":%s,\"distance\":",
                    d->first_step, d->first_id, d->first_presence ? "true" : "false");
            cli_json_double(o, d->first_distance);
            fputs(",\"angle\":", o);
            cli_json_double(o, d->first_angle);
            fputc('}', o);
        } else {
            fputs("null", o);
        }
        fputs(",\"entities\":[", o);
        for (uint32_t i = 0; i < d->entity_count; i++) {
            const onescope_diff_entity *e = &d->entities[i];
            fprintf(o,
                    "%s{\"id\":%" PRIu64 ",\"in_a\":%s,\"in_b\":%s,\"frames_compared\":%" PRIu32
                    ",\"presence_flips\":%" PRIu32 ",\"max_distance\":",
                    i ? "," : "", e->id, e->in_a ? "true" : "false", e->in_b ? "true" : "false",
                    e->frames_compared, e->presence_flips);
            cli_json_double(o, e->max_distance);
            fprintf(o,
                    ",\"max_distance_step\":%" PRId64 ",\"rms_distance\":", e->max_distance_step);
            cli_json_double(o, e->rms_distance);
            fputs(",\"max_angle\":", o);
            cli_json_double(o, e->max_angle);
            fprintf(o,
                    ",\"max_angle_step\":%" PRId64 ",\"max_ulps\":%" PRIu64
                    ",\"past_tolerance\":%s,\"first_past_step\":%" PRId64 "}",
                    e->max_angle_step, e->max_ulps, e->past_tolerance ? "true" : "false",
                    e->first_past_step);
        }
        fputc(']', o);
        return;
    }
    print_headers(d->header, d->header_count, false, o);
    fprintf(o, "steps: a %" PRId64 "..%" PRId64 ", b %" PRId64 "..%" PRId64, d->first_step_a,
            d->last_step_a, d->first_step_b, d->last_step_b);
    if (d->overlap_frames > 0)
        fprintf(o, "; compared %" PRId64 "..%" PRId64 " (%" PRIu32 " frames)\n", d->overlap_first,
                d->overlap_last, d->overlap_frames);
    else
        fputs("; no step in common, nothing compared\n", o);
    if (d->unitless) fputs("distances in units: a cache has no metres per unit\n", o);
    if (d->only_in_a > 0 || d->only_in_b > 0) {
        fputs("entities only in a:", o);
        for (uint32_t i = 0; i < d->entity_count; i++)
            if (!d->entities[i].in_b) fprintf(o, " %" PRIu64, d->entities[i].id);
        fputs("\nentities only in b:", o);
        for (uint32_t i = 0; i < d->entity_count; i++)
            if (!d->entities[i].in_a) fprintf(o, " %" PRIu64, d->entities[i].id);
        fputc('\n', o);
    }
    if (d->has_first && d->first_presence)
        fprintf(o,
                "first past tolerance: step %" PRId64 ", entity %" PRIu64 ": present in one only\n",
                d->first_step, d->first_id);
    else if (d->has_first)
        fprintf(o,
                "first past tolerance: step %" PRId64 ", entity %" PRIu64
                ": distance %.9g %s, angle %.9g deg\n",
                d->first_step, d->first_id, d->first_distance, unit, d->first_angle);
    else
        fputs("nothing past tolerance\n", o);
    for (uint32_t i = 0; i < d->entity_count; i++) {
        const onescope_diff_entity *e = &d->entities[i];
        if (!e->in_a || !e->in_b) continue;
        if (e->frames_compared == 0) {
            fprintf(o, "entity %" PRIu64 ": never present in both", e->id);
            if (e->presence_flips > 0)
                fprintf(o, ", presence differs in %" PRIu32 " frames", e->presence_flips);
            fputc('\n', o);
            continue;
        }
        fprintf(o, "entity %" PRIu64 ": max %.9g %s at step %" PRId64 ", rms %.9g", e->id,
                e->max_distance, unit, e->max_distance_step, e->rms_distance);
        if (d->compares_rotation)
            fprintf(o, ", max angle %.9g deg at step %" PRId64, e->max_angle, e->max_angle_step);
        if (d->exact) fprintf(o, ", max %" PRIu64 " ulps", e->max_ulps);
        if (e->presence_flips > 0)
            fprintf(o, ", presence differs in %" PRIu32 " frames", e->presence_flips);
        fputc('\n', o);
    }
}

/* ---- two module recordings (OSTM v2, docs/recording.md) ---- */

typedef struct recording_pair {
    onescope_recording *r[2];
    const onescope_module *m;
    onescope_recording_diff_result d;
    char input[2][512]; /* the differing step's inputs as the module tells them */
} recording_pair;

static void json_u64(FILE *o, const char *k, uint64_t v) {
    json_key(o, k);
    fprintf(o, "%" PRIu64, v);
}

static void json_bool(FILE *o, const char *k, bool v) {
    json_key(o, k);
    fputs(v ? "true" : "false", o);
}

static void json_hex(FILE *o, const char *k, uint64_t v) {
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, v);
    json_str(o, k, hex);
}

static void print_recordings_json(const recording_pair *p, FILE *o) {
    const onescope_recording_diff_result *d = &p->d;
    json_str(o, "module", p->m->id);
    fputc(',', o);
    json_str(o, "module_version", p->m->version);
    fputc(',', o);
    json_bool(o, "setup_differs", d->setup_differs);
    fputc(',', o);
    json_u64(o, "steps_a", d->steps_a);
    fputc(',', o);
    json_u64(o, "steps_b", d->steps_b);
    fputc(',', o);
    json_u64(o, "rows_compared", d->rows_compared);
    fputc(',', o);
    json_bool(o, "from_keyframes", d->from_keyframes);
    fputc(',', o);
    json_u64(o, "start_row", d->start_row);
    fputc(',', o);
    json_u64(o, "steps_run", d->steps_run);
    fputc(',', o);
    json_bool(o, "restore_failed", d->restore_failed);
    fputc(',', o);
    json_bool(o, "keyframe_disproved", d->keyframe_disproved);
    fputs(",\"restore_error\":", o);
    if (d->restore_failed) {
        char why[1024];
        onescope_error_format(&d->restore_error, why, sizeof why);
        cli_json_string(o, why, strlen(why));
    } else {
        fputs("null", o);
    }
    fputc(',', o);
    json_bool(o, "worlds_differ", d->worlds_differ);
    fputs(",\"first\":", o);
    if (!d->worlds_differ) {
        fputs("null", o);
    } else {
        fputc('{', o);
        json_u64(o, "row", d->row);
        fputc(',', o);
        json_hex(o, "hash_a", d->hash_a);
        fputc(',', o);
        json_hex(o, "hash_b", d->hash_b);
        fputs(",\"step\":", o);
        if (d->row == 0)
            fputs("null", o);
        else
            fprintf(o, "%" PRIu32, d->row - 1);
        fputc(',', o);
        json_bool(o, "input_differs", d->input_differs);
        for (int k = 0; k < 2; k++) {
            fputc(',', o);
            json_str(o, k ? "input_b" : "input_a", p->input[k]);
        }
        fputs(",\"stage\":", o);
        if (d->stage < 0) {
            fputs("null", o);
        } else {
            fputc('{', o);
            json_u64(o, "index", (uint64_t)d->stage);
            fputc(',', o);
            json_str(o, "name", d->stage_name);
            fputc('}', o);
        }
        fputs(",\"value\":", o);
        if (!d->value_differs) {
            fputs("null", o);
        } else {
            const onescope_value_info *v = &p->m->values[d->value];
            fputc('{', o);
            json_u64(o, "entity", d->entity);
            fputc(',', o);
            json_u64(o, "entity_id", d->entity_id);
            fputc(',', o);
            json_str(o, "name", v->name);
            fputc(',', o);
            json_str(o, "unit", v->unit);
            fputs(",\"a\":", o);
            cli_json_double(o, d->value_a);
            fputs(",\"b\":", o);
            cli_json_double(o, d->value_b);
            fputs(",\"ulps\":", o);
            if (v->type == ONESCOPE_VALUE_F32)
                fprintf(o, "%" PRIu64, d->value_ulps);
            else
                fputs("null", o);
            fputc(',', o);
            json_u64(o, "entities_differing", d->entities_differing);
            fputc('}', o);
        }
        fputs(",\"world_value\":", o);
        if (!d->world_value_differs) {
            fputs("null", o);
        } else {
            const onescope_world_value_info *v = &p->m->world_values[d->world_value];
            fputc('{', o);
            json_str(o, "name", v->name);
            fputc(',', o);
            json_u64(o, "index", d->world_index);
            fputc(',', o);
            json_str(o, "unit", v->unit);
            fputs(",\"a\":", o);
            cli_json_double(o, d->world_value_a);
            fputs(",\"b\":", o);
            cli_json_double(o, d->world_value_b);
            fputc('}', o);
        }
        fputc(',', o);
        json_u64(o, "value_total", d->value_total);
        fputc(',', o);
        json_bool(o, "entity_counts_differ", d->entity_counts_differ);
        fputc('}', o);
    }
    fputc(',', o);
    json_bool(o, "rows_differ", d->rows_differ);
    fputs(",\"rows_row\":", o);
    if (d->rows_differ)
        fprintf(o, "%" PRIu32, d->rows_row);
    else
        fputs("null", o);
}

static void print_recordings(const diff_args *a, const recording_pair *p, FILE *o) {
    if (a->json) {
        print_recordings_json(p, o);
        return;
    }
    const onescope_recording_diff_result *d = &p->d;
    fprintf(o, "module: %s %s\n", cli_shown(p->m->id), cli_shown(p->m->version));
    if (d->setup_differs) fputs("setup: differs\n", o);
    if (d->steps_a != d->steps_b)
        fprintf(o, "steps: %" PRIu32 " and %" PRIu32 "\n", d->steps_a, d->steps_b);
    if (d->from_keyframes)
        fprintf(o,
                "keyframes: ran from row %" PRIu32 ", %" PRIu32 " step%s (the rows before agree "
                "as recorded)\n",
                d->start_row, d->steps_run, d->steps_run == 1 ? "" : "s");
    if (d->restore_failed) {
        char why[1024];
        onescope_error_format(&d->restore_error, why, sizeof why);
        fprintf(o, "keyframes: not restored, ran from row 0: %s\n", why);
    }
    if (d->keyframe_disproved)
        fputs("keyframes: not used, ran from row 0: a restored keyframe is not its file's world "
              "at its row (its hash row or table), or the two files' keyframes hold different "
              "worlds where their inputs agree\n",
              o);
    if (d->worlds_differ) {
        if (d->row == 0)
            fprintf(o, "first difference: row 0 (the start worlds)");
        else
            fprintf(o, "first difference: row %" PRIu32 " (the world after step %" PRIu32 ")",
                    d->row, d->row - 1);
        fprintf(o, ", hashes %016" PRIx64 " and %016" PRIx64 "\n", d->hash_a, d->hash_b);
        if (d->row > 0 && d->input_differs) {
            fprintf(o, "step %" PRIu32 " input: differs", d->row - 1);
            if (p->input[0][0] != '\0' || p->input[1][0] != '\0')
                fprintf(o, ": %s | %s", cli_shown(p->input[0]), cli_shown(p->input[1]));
            fputc('\n', o);
        }
        if (d->stage >= 0)
            fprintf(o, "stage: %s (%" PRId32 " of %" PRIu32 ")\n", cli_shown(d->stage_name),
                    d->stage + 1, p->m->stage_count);
        if (d->value_differs) {
            const onescope_value_info *v = &p->m->values[d->value];
            fprintf(o, "entity %" PRIu32 " (id %" PRIu64 ") %s", d->entity, d->entity_id,
                    cli_shown(v->name));
            if (v->unit[0] != '\0') fprintf(o, " (%s)", cli_shown(v->unit));
            char ta[CLI_NUMBER_SIZE], tb[CLI_NUMBER_SIZE];
            fprintf(o, ": %s and %s", cli_number(ta, d->value_a), cli_number(tb, d->value_b));
            if (v->type == ONESCOPE_VALUE_F32) {
                fprintf(o, ", %" PRIu64 " ulp%s", d->value_ulps, d->value_ulps == 1 ? "" : "s");
            }
            fprintf(o, "; %" PRIu32 " %s\n", d->entities_differing,
                    d->entities_differing == 1 ? "entity differs" : "entities differ");
        }
        if (d->world_value_differs) {
            const onescope_world_value_info *v = &p->m->world_values[d->world_value];
            fprintf(o, "world %s", cli_shown(v->name));
            if (v->count > 1) fprintf(o, "[%" PRIu32 "]", d->world_index);
            if (v->unit[0] != '\0') fprintf(o, " (%s)", cli_shown(v->unit));
            char ta[CLI_NUMBER_SIZE], tb[CLI_NUMBER_SIZE];
            fprintf(o, ": %s and %s\n", cli_number(ta, d->world_value_a),
                    cli_number(tb, d->world_value_b));
        }
        if (d->entity_counts_differ) fputs("entity counts differ\n", o);
    }
    if (d->rows_differ)
        fprintf(o, "recorded hash rows differ from row %" PRIu32 " where the worlds agree\n",
                d->rows_row);
}

static onescope_code diff_recordings(const diff_args *a, recording_pair *p, onescope_error *err) {
    onescope_code rc = ONESCOPE_OK;
    for (int k = 0; k < 2 && rc == ONESCOPE_OK; k++)
        rc = onescope_recording_read_file(a->src[k], NULL, &p->r[k], err);
    if (rc == ONESCOPE_OK)
        rc = cli_module_for(onescope_recording_module_id(p->r[0]),
                            onescope_recording_module_version(p->r[0]), a->path[0], &p->m, err);
    if (rc == ONESCOPE_OK)
        rc = onescope_recording_diff(p->r[0], p->r[1], p->m, NULL, &p->d, a->path[0], a->path[1],
                                     err);
    if (rc == ONESCOPE_OK && p->d.worlds_differ && p->d.row > 0)
        for (int k = 0; k < 2; k++)
            cli_recording_describe_step(p->r[k], p->m, p->d.row - 1, p->input[k],
                                        sizeof p->input[k]);
    return rc;
}

/* A module recording against a cache: the recording's ghost over the steps the cache holds
 * (those of them the recording has), so a cache `onescope ghost` made of the same rows has the
 * same ids, then the report of two caches. The ghost is held in memory, bounded by its own
 * size check. */
static onescope_code diff_recording_cache(const diff_args *a, onescope_diff_cache **out,
                                          onescope_error *err) {
    onescope_recording *r = NULL;
    const onescope_module *m = NULL;
    onescope_pose_cache *ghost = NULL, *cache = NULL;
    onescope_code rc = onescope_pose_cache_map(a->src[1], NULL, &cache, err);
    if (rc == ONESCOPE_OK) rc = onescope_recording_read_file(a->src[0], NULL, &r, err);
    if (rc == ONESCOPE_OK)
        rc = cli_module_for(onescope_recording_module_id(r), onescope_recording_module_version(r),
                            a->path[0], &m, err);
    if (rc == ONESCOPE_OK) {
        /* rows first..last of the cache's steps; none in common: row 0 alone, which the
         * report then shows as no overlap */
        int64_t rows = onescope_recording_step_count(r);
        int64_t last_b = cache->start_step + ((int64_t)cache->frame_count - 1); /* frames >= 1 */
        int64_t first = cache->start_step < 0 ? 0 : cache->start_step;
        int64_t last = last_b < rows ? last_b : rows;
        if (first > last) first = last = 0;
        onescope_ghost_options g = onescope_ghost_options_default();
        g.from = (uint32_t)first;
        g.frames = (uint32_t)(last - first + 1);
        g.name = a->path[0];
        g.replay_name = a->path[0]; /* as `onescope ghost` names it */
        memcpy(g.offset, a->o.offset, sizeof g.offset);
        rc = onescope_ghost_recording_create(r, m, &g, NULL, &ghost, err);
    }
    if (rc == ONESCOPE_OK) {
        onescope_diff_options o = a->o;
        memset(o.offset, 0, sizeof o.offset); /* already in the ghost */
        rc = onescope_diff_caches(ghost, cache, &o, NULL, out, err);
    }
    onescope_pose_cache_free(ghost);
    onescope_pose_cache_free(cache);
    onescope_recording_free(r);
    return rc;
}

static int parse_args(int argc, char **argv, diff_args *a) {
    cli_args p;
    int status = cli_parse(&cli_spec_diff, argc, argv, 2, 2, &p);
    if (status != CLI_PARSE_RUN) return status;
    a->json = p.seen[OPT_JSON];
    uint64_t u;
    if (p.seen[OPT_MAX]) {
        if (!cli_parse_u64(p.value[OPT_MAX], UINT32_MAX, &u) || u == 0)
            return cli_usage_error("diff", "--max must be a count from 1 to 4294967295");
        a->o.max_items = (uint32_t)u;
    }
    if (p.seen[OPT_OFFSET] && !cli_parse_i32_list(p.value[OPT_OFFSET], a->o.offset, 3))
        return cli_usage_error("diff", "offset must be X,Y,Z in whole units");
    if (p.seen[OPT_POSITION] &&
        cli_parse_real("diff", "--position-tolerance", p.value[OPT_POSITION], POSITION_RANGE,
                       &a->o.position_tolerance) != CLI_PARSE_RUN)
        return CLI_USAGE;
    if (p.seen[OPT_ANGLE] && cli_parse_real("diff", "--angle-tolerance", p.value[OPT_ANGLE],
                                            ANGLE_RANGE, &a->o.angle_tolerance) != CLI_PARSE_RUN)
        return CLI_USAGE;
    for (int k = 0; k < 2; k++) {
        a->path[k] = p.operands[k];
        if (strcmp(a->path[k], "-") == 0)
            return cli_usage_error("diff", "files only: '-' (standard input) is not taken");
    }
    return CLI_PARSE_RUN;
}

int cmd_diff(int argc, char **argv) {
    diff_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_PARSE_RUN) return rc;
    a.o.name_a = a.path[0];
    a.o.name_b = a.path[1];
    onescope_error err;
    onescope_format f[2] = {ONESCOPE_FORMAT_UNKNOWN, ONESCOPE_FORMAT_UNKNOWN};
    onescope_code code = ONESCOPE_OK;
    const char *kind = "unknown";
    bool different = false;
    onescope_diff_replay *dr = NULL;
    onescope_diff_cache *dc = NULL;
    onescope_replay *r[2] = {NULL, NULL};
    recording_pair rp;
    memset(&rp, 0, sizeof rp);
    /* each input opened once: its format looked at and then read from that one open */
    cli_input in[2] = {{a.path[0], -1, ""}, {a.path[1], -1, ""}};
    for (int k = 0; k < 2 && code == ONESCOPE_OK; k++) {
        code = cli_input_try(&in[k], a.path[k], &err);
        a.src[k] = in[k].src;
    }
    for (int k = 0; k < 2 && code == ONESCOPE_OK; k++) {
        f[k] = peek(&in[k], &err);
        if (f[k] == ONESCOPE_FORMAT_UNKNOWN)
            code = err.code;
        else if (f[k] == ONESCOPE_FORMAT_OSTM)
            code = onescope_replay_read_file(a.src[k], NULL, &r[k], &err);
    }
    bool recordings = f[0] == ONESCOPE_FORMAT_RECORDING || f[1] == ONESCOPE_FORMAT_RECORDING;
    bool recording_cache = f[0] == ONESCOPE_FORMAT_RECORDING && f[1] == ONESCOPE_FORMAT_OSPC;
    if (code == ONESCOPE_OK && recordings && f[0] != f[1] && !recording_cache) {
        onescope_replay_free(r[0]);
        onescope_replay_free(r[1]);
        cli_input_close(&in[0]);
        cli_input_close(&in[1]);
        return cli_usage_error("diff",
                               f[1] == ONESCOPE_FORMAT_RECORDING && f[0] == ONESCOPE_FORMAT_OSPC
                                   ? "a module recording and a pose cache go in that order: "
                                     "RUN.ostm CACHE.ospc"
                                   : "a module recording (OSTM v2) is diffed with another one, "
                                     "or with a pose cache");
    }
    if (code == ONESCOPE_OK && recording_cache) {
        kind = "recording_cache";
        recordings = false; /* reported as two caches */
        code = diff_recording_cache(&a, &dc, &err);
        different = code == ONESCOPE_OK && dc->different;
    } else if (code == ONESCOPE_OK && recordings) {
        kind = "recordings";
        code = diff_recordings(&a, &rp, &err);
        different = code == ONESCOPE_OK && rp.d.different;
    } else if (code == ONESCOPE_OK && f[0] == ONESCOPE_FORMAT_OSTM &&
               f[1] == ONESCOPE_FORMAT_OSTM) {
        kind = "replays";
        code = onescope_diff_replays(r[0], r[1], &a.o, NULL, &dr, &err);
        different = code == ONESCOPE_OK && dr->different;
    } else if (code == ONESCOPE_OK && f[0] == ONESCOPE_FORMAT_OSPC &&
               f[1] == ONESCOPE_FORMAT_OSPC) {
        kind = "caches";
        code = onescope_diff_cache_files(a.src[0], a.src[1], &a.o, NULL, &dc, &err);
        different = code == ONESCOPE_OK && dc->different;
    } else if (code == ONESCOPE_OK && f[0] == ONESCOPE_FORMAT_OSTM) {
        kind = "replay_cache";
        code = onescope_diff_replay_cache_file(r[0], a.src[1], &a.o, NULL, &dc, &err);
        different = code == ONESCOPE_OK && dc->different;
    } else if (code == ONESCOPE_OK) {
        onescope_replay_free(r[1]);
        r[1] = NULL;
        cli_input_close(&in[0]);
        cli_input_close(&in[1]);
        return cli_usage_error("diff",
                               "a replay and a pose cache go in that order: RUN.ostm CACHE.ospc");
    }
    const char *status = code != ONESCOPE_OK ? "invalid" : different ? "different" : "same";
    char line[1024] = "";
    for (int k = 0; k < 2; k++) {
        if (code != ONESCOPE_OK) cli_input_rename(&in[k], &err);
        cli_input_close(&in[k]);
    }
    if (code != ONESCOPE_OK) onescope_error_format(&err, line, sizeof line);
    if (a.json) {
        fputc('{', stdout);
        json_str(stdout, "kind", kind);
        fputc(',', stdout);
        json_str(stdout, "a", a.path[0]);
        fputc(',', stdout);
        json_str(stdout, "b", a.path[1]);
        fputc(',', stdout);
        json_str(stdout, "status", status);
        fputc(',', stdout);
        if (code != ONESCOPE_OK) {
            json_str(stdout, "error", line);
        } else if (recordings) {
            print_recordings(&a, &rp, stdout);
        } else if (dr != NULL) {
            print_replay(&a, dr, stdout);
        } else {
            print_cache(&a, dc, stdout);
        }
        fputs("}\n", stdout);
    } else if (code == ONESCOPE_OK && !(cli.quiet && !different)) {
        if (recordings)
            print_recordings(&a, &rp, stdout);
        else if (dr != NULL)
            print_replay(&a, dr, stdout);
        else
            print_cache(&a, dc, stdout);
        printf("%s and %s: %s\n", cli_shown(a.path[0]), cli_shown(a.path[1]), status);
    }
    if (code != ONESCOPE_OK) fprintf(stderr, "%s\n", line);
    onescope_recording_free(rp.r[0]);
    onescope_recording_free(rp.r[1]);
    onescope_diff_replay_free(dr);
    onescope_diff_cache_free(dc);
    onescope_replay_free(r[0]);
    onescope_replay_free(r[1]);
    return code == ONESCOPE_OK && !different ? CLI_OK : CLI_FAIL;
}
