/* The CLI's view of module recordings (OSTM v2): validate, dump, rewrite. The container is the
 * library's to check; the blobs are the module's, checked when the module the file names is
 * there (linked, or loaded with --module), and validate says which was done. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

#define DUMP_STEPS 16u /* the text dump describes this many non-empty steps */

/* The parsed file and the module it names (NULL when not there); with the module, the file
 * is checked against it too. */
static onescope_code parse(const uint8_t *data, size_t size, const char *name,
                           onescope_recording **r, const onescope_module **m,
                           onescope_error *error) {
    onescope_code rc = onescope_recording_parse(data, size, name, NULL, r, error);
    if (rc != ONESCOPE_OK) return rc;
    *m = cli_module_find(onescope_recording_module_id(*r));
    if (*m == NULL) return ONESCOPE_OK;
    rc = onescope_recording_check(*r, *m, name, error);
    if (rc != ONESCOPE_OK) onescope_recording_free(*r);
    return rc;
}

static onescope_code validate(const uint8_t *data, size_t size, const char *name,
                              onescope_error *error) {
    onescope_recording *r;
    const onescope_module *m;
    onescope_code rc = parse(data, size, name, &r, &m, error);
    if (rc != ONESCOPE_OK) return rc;
    onescope_recording_free(r);
    return ONESCOPE_OK;
}

void cli_recording_describe_step(const onescope_recording *r, const onescope_module *m,
                                 uint32_t index, char *buf, size_t size) {
    const uint8_t *p;
    size_t n, setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_world *w;
    onescope_error err;
    buf[0] = '\0';
    /* describe_input reads the setup, not a world; the world is the seam's way to call it */
    if (m->describe_input == NULL ||
        onescope_recording_step_input(r, index, &p, &n) != ONESCOPE_OK ||
        onescope_world_create(m, setup, setup_size, NULL, &w, &err) != ONESCOPE_OK)
        return;
    onescope_buffer text;
    if (onescope_world_describe_input(w, p, n, NULL, &text, &err) == ONESCOPE_OK) {
        snprintf(buf, size, "%s", (const char *)text.data);
        onescope_buffer_free(&text);
    }
    onescope_world_free(w);
}

static uint64_t input_bytes(const onescope_recording *r, uint32_t *with_input) {
    uint64_t total = 0;
    *with_input = 0;
    for (uint32_t i = 0; i < onescope_recording_step_count(r); i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        total += n;
        if (n) (*with_input)++;
    }
    return total;
}

/* The first DUMP_STEPS non-empty steps as the module describes them, each handed to `emit`
 * (its text lent for the call); the count listed. None without the module, or when it has no
 * describe_input; the listing stops at the first input it cannot describe. */
typedef void described_fn(void *user, uint32_t step, const char *text);
static uint32_t describe_steps(const onescope_recording *r, const onescope_module *m,
                               described_fn *emit, void *user) {
    if (m == NULL || m->describe_input == NULL) return 0;
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_world *w;
    onescope_error err;
    if (onescope_world_create(m, setup, setup_size, NULL, &w, &err) != ONESCOPE_OK) return 0;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < onescope_recording_step_count(r) && shown < DUMP_STEPS; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        if (n == 0) continue;
        onescope_buffer text;
        if (onescope_world_describe_input(w, p, n, NULL, &text, &err) != ONESCOPE_OK) break;
        emit(user, i, (const char *)text.data);
        onescope_buffer_free(&text);
        shown++;
    }
    onescope_world_free(w);
    return shown;
}

typedef struct json_steps {
    FILE *out;
    uint32_t n;
} json_steps;

static void json_step(void *user, uint32_t step, const char *text) {
    json_steps *j = user;
    fprintf(j->out, "%s\n    {\"step\": %" PRIu32 ", \"text\": ", j->n++ ? "," : "", step);
    cli_json_string(j->out, text, strlen(text));
    fputc('}', j->out);
}

static void text_step(void *user, uint32_t step, const char *text) {
    fprintf(user, "  step %-8" PRIu32 " %s\n", step, cli_shown(text));
}

static void dump_json(const onescope_recording *r, const onescope_module *m, FILE *out) {
    size_t setup, snapshot;
    onescope_recording_setup(r, &setup);
    bool has_snapshot = onescope_recording_start_snapshot(r, &snapshot) != NULL;
    uint16_t flags = onescope_recording_flags(r);
    bool rows = flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS;
    uint32_t steps = onescope_recording_step_count(r), with;
    uint64_t bytes = input_bytes(r, &with);
    const char *id = onescope_recording_module_id(r), *v = onescope_recording_module_version(r);
    fprintf(out, "{\n  \"format\": \"ostm2\",\n  \"version\": 2,\n  \"flags\": %u,\n  \"module\": ",
            (unsigned)flags);
    cli_json_string(out, id, strlen(id));
    fputs(",\n  \"module_version\": ", out);
    cli_json_string(out, v, strlen(v));
    fprintf(out,
            ",\n  \"module_loaded\": %s,\n  \"step_count\": %" PRIu32 ",\n  \"setup_size\": %zu"
            ",\n  \"has_start_snapshot\": %s,\n  \"start_snapshot_size\": %zu"
            ",\n  \"has_hash_rows\": %s,\n",
            m ? "true" : "false", steps, setup, has_snapshot ? "true" : "false", snapshot,
            rows ? "true" : "false");
    if (rows)
        fprintf(out,
                "  \"first_hash\": \"%016" PRIx64 "\",\n  \"last_hash\": \"%016" PRIx64 "\",\n",
                onescope_recording_hash_row(r, 0), onescope_recording_hash_row(r, steps));
    fprintf(out,
            "  \"has_entity_rows\": %s,\n  \"has_keyframes\": %s,\n  \"keyframe_every\": %" PRIu32
            ",\n  \"keyframe_count\": %" PRIu32 ",\n",
            (flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) ? "true" : "false",
            (flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES) ? "true" : "false",
            onescope_recording_keyframe_every(r), onescope_recording_keyframe_count(r));
    fprintf(out, "  \"input_bytes\": %" PRIu64 ",\n  \"steps_with_input\": %" PRIu32 ",\n", bytes,
            with);
    json_steps j = {out, 0};
    fputs("  \"inputs\": [", out);
    uint32_t listed = describe_steps(r, m, json_step, &j);
    fprintf(out, "%s],\n  \"inputs_not_listed\": %" PRIu32 "\n}\n", listed ? "\n  " : "",
            with - listed);
}

static void dump_text(const onescope_recording *r, const onescope_module *m, FILE *out) {
    size_t setup, snapshot;
    onescope_recording_setup(r, &setup);
    bool has_snapshot = onescope_recording_start_snapshot(r, &snapshot) != NULL;
    uint16_t flags = onescope_recording_flags(r);
    uint32_t steps = onescope_recording_step_count(r), with;
    uint64_t bytes = input_bytes(r, &with);
    fprintf(out, "OSTM v2 module recording\n  module           %s",
            cli_shown(onescope_recording_module_id(r)));
    fprintf(out, " %s%s\n", cli_shown(onescope_recording_module_version(r)),
            m ? "" : " (not loaded)");
    fprintf(out,
            "  flags            0x%04x\n  steps            %" PRIu32
            "\n  setup            %zu bytes\n",
            (unsigned)flags, steps, setup);
    if (has_snapshot)
        fprintf(out, "  start snapshot   %zu bytes\n", snapshot);
    else
        fputs("  start snapshot   none (world from the setup)\n", out);
    if (flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS)
        fprintf(out, "  hash rows        %" PRIu64 " (first %016" PRIx64 ", last %016" PRIx64 ")\n",
                (uint64_t)steps + 1, onescope_recording_hash_row(r, 0),
                onescope_recording_hash_row(r, steps));
    else
        fputs("  hash rows        none\n", out);
    if (flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS)
        fprintf(out, "  entity rows      %" PRIu64 " (one beside each hash row)\n",
                (uint64_t)steps + 1);
    else
        fputs("  entity rows      none\n", out);
    uint32_t every = onescope_recording_keyframe_every(r);
    if (flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES)
        fprintf(out,
                "  keyframes        %" PRIu32 ", K = %" PRIu32 " (one every %" PRIu32 " steps)\n",
                onescope_recording_keyframe_count(r), every, every);
    else
        fputs("  keyframes        none\n", out);
    fprintf(out, "  input            %" PRIu64 " bytes in %" PRIu32 " steps\n", bytes, with);
    uint32_t listed = describe_steps(r, m, text_step, out);
    if (with > listed && listed > 0)
        fprintf(out, "  ... %" PRIu32 " more steps with input, not listed\n", with - listed);
    else if (with > 0 && listed == 0)
        fprintf(out, "  inputs           %" PRIu32 " not listed (%s)\n", with,
                m == NULL                   ? "the module is not loaded"
                : m->describe_input == NULL ? "the module does not describe its inputs"
                                            : "the module did not describe the first");
}

static onescope_code dump(const uint8_t *data, size_t size, const char *name, bool json, FILE *out,
                          onescope_error *error) {
    onescope_recording *r;
    const onescope_module *m;
    onescope_code rc = parse(data, size, name, &r, &m, error);
    if (rc != ONESCOPE_OK) return rc;
    if (json)
        dump_json(r, m, out);
    else
        dump_text(r, m, out);
    onescope_recording_free(r);
    return ONESCOPE_OK;
}

static onescope_code rewrite(const uint8_t *data, size_t size, const char *name,
                             onescope_buffer *out, onescope_error *error) {
    onescope_recording *r;
    const onescope_module *m;
    onescope_code rc = parse(data, size, name, &r, &m, error);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_recording_write(r, NULL, out, error);
    onescope_recording_free(r);
    return rc;
}

const cli_format cli_format_recording = {ONESCOPE_FORMAT_RECORDING, validate, dump, rewrite};
