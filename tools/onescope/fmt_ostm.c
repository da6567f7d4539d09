/* The CLI's view of OSTM replays: validate, dump, rewrite. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"

#define DUMP_STEPS 16u /* the text dump lists the operations of this many non-empty steps */

static onescope_code validate(const uint8_t *data, size_t size, const char *name,
                              onescope_error *error) {
    onescope_replay *r;
    onescope_code rc = onescope_replay_parse(data, size, name, NULL, &r, error);
    onescope_replay_free(rc == ONESCOPE_OK ? r : NULL);
    return rc;
}

static const char *const role_names[4] = {"none", "sender", "receiver", "fields"};

/* Prints one operation as the library writes it: "impulse body 3 (10, -5, 0)". */
static void print_op(FILE *out, const onescope_op *op) {
    char text[96];
    onescope_op_format(op, text, sizeof text);
    fputs(text, out);
}

void fmt_body_json(FILE *out, uint32_t i, const onescope_sim_body_state *b) {
    fprintf(out,
            "{\"index\": %" PRIu32 ", \"alive\": %" PRId32 ", \"still_count\": %" PRId32
            ", \"position\": [%" PRId32 ", %" PRId32 ", %" PRId32 "], \"velocity\": [%" PRId32
            ", %" PRId32 ", %" PRId32 "]}",
            i, b->alive, b->still_count, b->position[0], b->position[1], b->position[2],
            b->velocity[0], b->velocity[1], b->velocity[2]);
}

/* One body per line; the index is padded to three columns, then one space. */
void fmt_body_text(FILE *out, uint32_t i, const onescope_sim_body_state *b) {
    fprintf(out,
            "  body %-3" PRIu32 " alive %" PRId32 " still %" PRId32 " position %" PRId32 " %" PRId32
            " %" PRId32 " velocity %" PRId32 " %" PRId32 " %" PRId32 "\n",
            i, b->alive, b->still_count, b->position[0], b->position[1], b->position[2],
            b->velocity[0], b->velocity[1], b->velocity[2]);
}

/* What the dumps show, read once through the replay's accessors. */
typedef struct replay_facts {
    onescope_sim_setup setup;
    onescope_link_block link;
    uint32_t step_count;
    uint64_t start_step;
    size_t start_snapshot_size;
    const uint64_t *hash_rows; /* NULL without hash rows */
} replay_facts;

static replay_facts facts_of(const onescope_replay *r) {
    replay_facts f;
    f.setup = onescope_replay_setup(r);
    f.link = onescope_replay_link(r);
    f.step_count = onescope_replay_step_count(r);
    f.start_step = onescope_replay_start_step(r);
    onescope_replay_start_snapshot(r, &f.start_snapshot_size);
    f.hash_rows = onescope_replay_hash_rows(r);
    return f;
}

static uint32_t steps_with_input(const onescope_replay *r) {
    uint32_t n = 0, steps = onescope_replay_step_count(r);
    for (uint32_t i = 0; i < steps; i++) {
        const uint8_t *p;
        size_t size;
        onescope_replay_step_input(r, i, &p, &size);
        n += size > 0;
    }
    return n;
}

static void dump_json(const onescope_replay *replay, const onescope_sim *start, FILE *out) {
    replay_facts facts = facts_of(replay);
    const replay_facts *r = &facts;
    fprintf(out, "{\n  \"format\": \"ostm\",\n  \"version\": 1,\n  \"flags\": %u,\n",
            (unsigned)onescope_replay_flags(replay));
    fprintf(out, "  \"dimensions\": %u,\n  \"body_count\": %u,\n  \"seed\": %" PRIu32 ",\n",
            (unsigned)r->setup.dimensions, (unsigned)r->setup.body_count, r->setup.seed);
    if (r->link.role == ONESCOPE_LINK_ROLE_NONE) {
        fputs("  \"link\": null,\n", out);
    } else {
        onescope_link_info k = onescope_link_describe(&r->link);
        fprintf(out,
                "  \"link\": {\"role\": %u, \"role_name\": \"%s\", \"kind\": \"%s\", "
                "\"own_key\": \"%s\", \"other_key\": \"%s\", \"body\": %u, "
                "\"transfer_step\": %u},\n",
                (unsigned)r->link.role, role_names[r->link.role], k.kind_name, k.own_key,
                k.other_key, (unsigned)r->link.body, (unsigned)r->link.transfer_step);
    }
    fputs("  \"fields\": [", out);
    if (r->link.role != ONESCOPE_LINK_ROLE_NONE) {
        for (int f = 0; f < ONESCOPE_FIELD_COUNT; f++) {
            const onescope_field_overlay *o = onescope_field_describe((onescope_field_id)f);
            fprintf(out,
                    "%s\n    {\"field\": \"%s\", \"location\": \"%s\", \"grid_columns\": %" PRIu32
                    ", \"grid_rows\": %" PRIu32 ", \"value_count\": %" PRIu32
                    ", \"value_min\": %" PRId32 ", \"value_max\": %" PRId32 ", \"ramp\": \"%s\"}",
                    f ? "," : "", o->field, o->location_name, o->grid_columns, o->grid_rows,
                    o->value_count, o->value_min, o->value_max, o->ramp);
        }
        fputs("\n  ", out);
    }
    fputs("],\n", out);
    fprintf(out,
            "  \"step_count\": %" PRIu32 ",\n  \"start_step\": %" PRIu64
            ",\n  \"has_start_snapshot\": %s,\n  \"start_snapshot_size\": %zu"
            ",\n  \"has_hash_rows\": %s,\n",
            r->step_count, r->start_step,
            onescope_replay_has_start_snapshot(replay) ? "true" : "false", r->start_snapshot_size,
            r->hash_rows != NULL ? "true" : "false");
    if (r->hash_rows != NULL)
        fprintf(out,
                "  \"first_hash\": \"%016" PRIx64 "\",\n  \"last_hash\": \"%016" PRIx64 "\",\n",
                r->hash_rows[0], r->hash_rows[r->step_count]);
    uint64_t counts[6];
    onescope_replay_count_ops(replay, counts);
    fprintf(out,
            "  \"input_bytes\": %" PRIu64 ",\n  \"steps_with_input\": %" PRIu32
            ",\n  \"operation_counts\": {",
            onescope_replay_input_bytes(replay), steps_with_input(replay));
    for (int c = 1; c <= 5; c++)
        fprintf(out, "%s\"%s\": %" PRIu64, c > 1 ? ", " : "", onescope_op_name((uint8_t)c),
                counts[c]);
    fprintf(out,
            "},\n  \"start_gravity\": %" PRId32 ",\n  \"start_body_count\": %" PRIu32
            ",\n  \"bodies\": [",
            onescope_sim_gravity(start), onescope_sim_body_count(start));
    for (uint32_t i = 0; i < onescope_sim_body_count(start); i++) {
        onescope_sim_body_state b;
        onescope_sim_body(start, i, &b);
        fputs(i ? ",\n    " : "\n    ", out);
        fmt_body_json(out, i, &b);
    }
    fputs("\n  ]\n}\n", out);
}

static void dump_text(const onescope_replay *replay, const onescope_sim *start, FILE *out) {
    replay_facts facts = facts_of(replay);
    const replay_facts *r = &facts;
    fprintf(out,
            "OSTM v1 test-module replay\n  flags            0x%04x\n  dimensions       %u\n"
            "  body count       %u\n  seed             %" PRIu32 "\n",
            (unsigned)onescope_replay_flags(replay), (unsigned)r->setup.dimensions,
            (unsigned)r->setup.body_count, r->setup.seed);
    if (r->link.role == ONESCOPE_LINK_ROLE_NONE) {
        fputs("  link             none\n", out);
    } else {
        onescope_link_info k = onescope_link_describe(&r->link);
        fprintf(out, "  link             role %u (%s)", (unsigned)r->link.role,
                role_names[r->link.role]);
        if (k.kind != ONESCOPE_LINK_KIND_NONE)
            fprintf(out, ", %s, own key %s, other key %s, body %u, transfer step %u", k.kind_name,
                    k.own_key, k.other_key, (unsigned)k.body, (unsigned)k.step);
        fputc('\n', out);
        for (int f = 0; f < ONESCOPE_FIELD_COUNT; f++) {
            const onescope_field_overlay *o = onescope_field_describe((onescope_field_id)f);
            fprintf(out,
                    "  field            %s per %s, %" PRIu32 " x %" PRIu32 " grid, %" PRIu32
                    " values, range %" PRId32 "..%" PRId32 ", ramp %s\n",
                    o->field, o->location_name, o->grid_columns, o->grid_rows, o->value_count,
                    o->value_min, o->value_max, o->ramp);
        }
    }
    fprintf(out, "  steps            %" PRIu32 " (host steps %" PRIu64 " to %" PRIu64 ")\n",
            r->step_count, r->start_step, r->start_step + r->step_count);
    if (onescope_replay_has_start_snapshot(replay))
        fprintf(out, "  start snapshot   %zu bytes, host step %" PRIu64 "\n",
                r->start_snapshot_size, r->start_step);
    else
        fputs("  start snapshot   none (world from the setup)\n", out);
    if (r->hash_rows != NULL)
        fprintf(out, "  hash rows        %" PRIu32 " (first %016" PRIx64 ", last %016" PRIx64 ")\n",
                r->step_count + 1, r->hash_rows[0], r->hash_rows[r->step_count]);
    else
        fputs("  hash rows        none\n", out);
    uint64_t counts[6];
    onescope_replay_count_ops(replay, counts);
    fprintf(out, "  input            %" PRIu64 " bytes in %" PRIu32 " steps\n  operations      ",
            onescope_replay_input_bytes(replay), steps_with_input(replay));
    for (int c = 1; c <= 5; c++)
        fprintf(out, " %s %" PRIu64, onescope_op_name((uint8_t)c), counts[c]);
    fprintf(out, "\n  start world      gravity %" PRId32 ", %" PRIu32 " bodies\n",
            onescope_sim_gravity(start), onescope_sim_body_count(start));
    for (uint32_t i = 0; i < onescope_sim_body_count(start); i++) {
        onescope_sim_body_state b;
        onescope_sim_body(start, i, &b);
        fmt_body_text(out, i, &b);
    }
    uint32_t shown = 0;
    for (uint32_t i = 0; i < r->step_count && shown < DUMP_STEPS; i++) {
        const uint8_t *p;
        size_t n;
        onescope_replay_step_input(replay, i, &p, &n);
        if (n == 0) continue;
        shown++;
        fprintf(out, "  step %-8" PRIu64 " ", r->start_step + i);
        onescope_op_reader rd;
        onescope_op op;
        onescope_op_reader_init(&rd, r->setup.dimensions, p, n, NULL, 0);
        for (int k = 0; onescope_op_reader_next(&rd, &op, NULL) == 1; k++) {
            if (k) fputs("; ", out);
            print_op(out, &op);
        }
        fputc('\n', out);
    }
    uint32_t with = steps_with_input(replay);
    if (with > shown) fprintf(out, "  ... %" PRIu32 " more steps with input\n", with - shown);
}

static onescope_code dump(const uint8_t *data, size_t size, const char *name, bool json, FILE *out,
                          onescope_error *error) {
    onescope_replay *r;
    onescope_code rc = onescope_replay_parse(data, size, name, NULL, &r, error);
    if (rc != ONESCOPE_OK) return rc;
    onescope_sim *start;
    rc = onescope_replay_start_world(r, NULL, &start, error);
    if (rc == ONESCOPE_OK) {
        if (json)
            dump_json(r, start, out);
        else
            dump_text(r, start, out);
        onescope_sim_free(start);
    }
    onescope_replay_free(r);
    return rc;
}

static onescope_code rewrite(const uint8_t *data, size_t size, const char *name,
                             onescope_buffer *out, onescope_error *error) {
    onescope_replay *r;
    onescope_code rc = onescope_replay_parse(data, size, name, NULL, &r, error);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_replay_write(r, NULL, out, error);
    onescope_replay_free(r);
    return rc;
}

const cli_format cli_format_ostm = {ONESCOPE_FORMAT_OSTM, validate, dump, rewrite};
