/* The test-data generator: every file of testdata/ from fixed parameters. testdata/README.md.
 * A tool beside the CLI: it builds on the public API and on src/internal.h's PRNG and error
 * helpers (which the static library it links against provides). */
#include <string.h>

#include "internal.h"
#include "onescope/ghost.h"
#include "onescope/live.h"
#include "onescope/pose_cache.h"
#include "onescope/replay.h"
#include "testdata.h"

/* ---- the input script ---- */

static const int32_t huge_values[4] = {INT32_MIN, INT32_MAX, -5000, 5000};

static void script_op(const testdata_script *sc, uint64_t *st, onescope_op *op) {
    int axes = sc->dimensions == 2 ? 2 : 3;
    uint32_t k = (uint32_t)(onescope_os_splitmix64(st) % 1000u);
    memset(op, 0, sizeof *op);
    op->body = (uint8_t)(onescope_os_splitmix64(st) % 40u);
    if (k >= 990 && sc->no_remove) k = 600;
    if (k >= 960 && k < 990 && sc->no_spawn) k = 100;
    if (k < 450) { /* a small impulse */
        op->code = ONESCOPE_OP_IMPULSE;
        for (int a = 0; a < axes; a++) op->value[a] = onescope_os_draw(st, -300, 300);
    } else if (k < 520) { /* a big impulse, clamped by the world */
        op->code = ONESCOPE_OP_IMPULSE;
        for (int a = 0; a < axes; a++) op->value[a] = huge_values[onescope_os_splitmix64(st) % 4u];
    } else if (k < 700) { /* a teleport, sometimes outside the box (clamped) */
        op->code = ONESCOPE_OP_TELEPORT;
        for (int a = 0; a < axes; a++) op->value[a] = onescope_os_draw(st, -500, 10500);
    } else if (k < 800) { /* a teleport onto a wall */
        op->code = ONESCOPE_OP_TELEPORT;
        for (int a = 0; a < axes; a++) op->value[a] = onescope_os_draw(st, 0, 10000);
        int wall = onescope_os_draw(st, 0, axes - 1);
        op->value[wall] = (onescope_os_splitmix64(st) & 1u) ? ONESCOPE_SIM_BOX : 0;
    } else if (k < 950) { /* a gravity change */
        op->code = ONESCOPE_OP_GRAVITY;
        op->body = 0;
        op->value[0] =
            k < 940 ? onescope_os_draw(st, -40, 60) : huge_values[onescope_os_splitmix64(st) % 2u];
    } else if (k < 960) { /* back to the usual gravity */
        op->code = ONESCOPE_OP_GRAVITY;
        op->body = 0;
        op->value[0] = ONESCOPE_SIM_START_GRAVITY;
    } else if (k < 990) {
        op->code = ONESCOPE_OP_SPAWN;
        op->body = 0;
        for (int a = 0; a < axes; a++) op->value[a] = onescope_os_draw(st, 0, 10000);
    } else {
        op->code = ONESCOPE_OP_REMOVE;
    }
}

size_t testdata_script_input(const testdata_script *sc, uint64_t step, uint8_t *out,
                             size_t capacity) {
    if (sc == NULL || out == NULL || capacity < TESTDATA_MAX_SCRIPT_INPUT) return 0;
    uint64_t st = ((uint64_t)sc->seed << 32) ^ (step * 0xD1B54A32D192ED03u);
    onescope_os_splitmix64(&st);
    uint32_t r = (uint32_t)(onescope_os_splitmix64(&st) % 16u);
    int ops = r < 9 ? 0 : r < 13 ? 1 : r < 15 ? 2 : 3;
    size_t n = 0;
    for (int i = 0; i < ops; i++) {
        onescope_op op;
        script_op(sc, &st, &op);
        n += onescope_op_encode(sc->dimensions == 2 ? 2 : 3, &op, out + n, capacity - n, NULL);
    }
    return n;
}

/* ---- replays ---- */

typedef struct replay_plan {
    onescope_sim_setup setup;
    onescope_link_block link; /* role NONE: none */
    testdata_script script;
    uint32_t steps;
    bool fixed_ops; /* steps 5..9 run one of every operation first (test-10000) */
} replay_plan;

/* Steps 5..9 of test-10000: spawn, remove, teleport to a wall, a huge impulse, strong gravity;
 * step 12 restores the usual gravity. */
static size_t fixed_input(uint32_t step, uint8_t dims, uint8_t *out, size_t capacity) {
    onescope_op op;
    memset(&op, 0, sizeof op);
    switch (step) {
        case 5:
            op.code = ONESCOPE_OP_SPAWN;
            op.value[0] = 5000;
            op.value[1] = 9000;
            op.value[2] = dims == 3 ? 5000 : 0;
            break;
        case 6:
            op.code = ONESCOPE_OP_REMOVE;
            op.body = 0;
            break;
        case 7:
            op.code = ONESCOPE_OP_TELEPORT;
            op.body = 1;
            op.value[0] = 10000;
            op.value[1] = 0;
            break;
        case 8:
            op.code = ONESCOPE_OP_IMPULSE;
            op.body = 2;
            op.value[0] = INT32_MAX;
            op.value[1] = INT32_MIN;
            break;
        case 9:
            op.code = ONESCOPE_OP_GRAVITY;
            op.value[0] = 1000;
            break;
        case 12:
            op.code = ONESCOPE_OP_GRAVITY;
            op.value[0] = ONESCOPE_SIM_START_GRAVITY;
            break;
        default: return 0;
    }
    return onescope_op_encode(dims, &op, out, capacity, NULL);
}

static onescope_code build_replay(const replay_plan *plan, const onescope_allocator *a,
                                  onescope_replay **out, onescope_error *error) {
    const onescope_link_block *link = plan->link.role ? &plan->link : NULL;
    onescope_replay *r;
    OS_TRY(onescope_replay_create(&plan->setup, link, a, &r, error));
    onescope_code rc = ONESCOPE_OK;
    uint8_t input[2 * TESTDATA_MAX_SCRIPT_INPUT];
    for (uint32_t s = 0; s < plan->steps && rc == ONESCOPE_OK; s++) {
        size_t n =
            plan->fixed_ops ? fixed_input(s, plan->setup.dimensions, input, sizeof input) : 0;
        n += testdata_script_input(&plan->script, s, input + n, sizeof input - n);
        rc = onescope_replay_append_step(r, input, n, error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_replay_compute_hash_rows(r, error);
    if (rc != ONESCOPE_OK) {
        onescope_replay_free(r);
        return rc;
    }
    *out = r;
    return ONESCOPE_OK;
}

/* ---- the live attach recording ---- */

/* Host: 3D, 12 bodies, seed 77, 400 steps, a probe every 50 steps. Viewer: attaches from step
 * 130 (syncs at the probe of step 150), the stream delivered 7 bytes at a time. */
static onescope_code live_attach_replay(const onescope_allocator *a, onescope_replay **out,
                                        onescope_error *error) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 3;
    def.setup.body_count = 12;
    def.setup.seed = 77;
    testdata_script sc = {0};
    sc.seed = 77;
    onescope_sim *sim = NULL;
    onescope_live_encoder *enc = NULL;
    onescope_live_viewer *view = NULL;
    onescope_code rc = onescope_sim_create(&def, a, &sim, error);
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_create(a, &enc, error);
    for (uint64_t s = 0; s < 400 && rc == ONESCOPE_OK; s++) {
        if (s % 50 == 0) rc = onescope_live_encode_probe(enc, sim, error);
        uint8_t input[TESTDATA_MAX_SCRIPT_INPUT];
        size_t n = testdata_script_input(&sc, s, input, sizeof input);
        if (rc == ONESCOPE_OK) rc = onescope_sim_step(sim, input, n, error);
        if (rc == ONESCOPE_OK)
            rc = onescope_live_encode_step(enc, s, input, n, onescope_sim_hash(sim), error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_live_encode_end(enc, 400, error);
    onescope_live_viewer_options vo = onescope_live_viewer_options_default();
    vo.from_step = 130;
    vo.record = 1;
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_create(&vo, "live", a, &view, error);
    if (rc == ONESCOPE_OK) {
        const uint8_t *bytes;
        size_t size;
        onescope_live_encoder_pending(enc, &bytes, &size);
        for (size_t pos = 0; pos < size && rc == ONESCOPE_OK; pos += 7)
            rc = onescope_live_viewer_feed(view, bytes + pos, size - pos < 7 ? size - pos : 7,
                                           error);
    }
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_finish(view, error);
    if (rc == ONESCOPE_OK) rc = onescope_live_viewer_replay(view, a, out, error);
    onescope_live_viewer_free(view);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    return rc;
}

/* ---- the files ---- */

enum {
    F_10000,
    F_2D_600,
    F_FIELD_2D,
    F_FIELD_3D,
    F_LINK_LEFT,
    F_LINK_RIGHT,
    F_GHOST,
    F_LIVE,
    F_COUNT
};

static const char *const file_names[F_COUNT] = {
    "test-10000.ostm",     "test-2d-600.ostm",     "test-field-2d.ostm", "test-field-3d.ostm",
    "test-link-left.ostm", "test-link-right.ostm", "test-2d-ghost.ospc", "test-live-attach.ostm",
};

size_t testdata_file_count(void) {
    return F_COUNT;
}
const char *testdata_file_name(size_t index) {
    return index < F_COUNT ? file_names[index] : NULL;
}

static replay_plan plan_for(int file) {
    replay_plan p;
    memset(&p, 0, sizeof p);
    switch (file) {
        case F_10000:
            p.setup = (onescope_sim_setup){3, 24, 10000};
            p.script.seed = 10000;
            p.steps = 10000;
            p.fixed_ops = true;
            break;
        case F_2D_600:
            p.setup = (onescope_sim_setup){2, 16, 600};
            p.script.dimensions = 2;
            p.script.seed = 600;
            p.steps = 600;
            break;
        case F_FIELD_2D:
        case F_FIELD_3D:
            p.setup = file == F_FIELD_2D ? (onescope_sim_setup){2, 8, 21}
                                         : (onescope_sim_setup){3, 8, 31};
            p.script.dimensions = p.setup.dimensions;
            p.script.seed = p.setup.seed;
            p.link = (onescope_link_block){ONESCOPE_LINK_ROLE_FIELDS, 0, 0};
            p.steps = 300;
            break;
        default: /* the linked pair: no removes, so body 3 lives exactly as the link says */
            p.setup = file == F_LINK_LEFT ? (onescope_sim_setup){3, 6, 41}
                                          : (onescope_sim_setup){3, 6, 42};
            p.script.seed = p.setup.seed;
            p.script.no_remove = true;
            p.link = (onescope_link_block){file == F_LINK_LEFT ? ONESCOPE_LINK_ROLE_SENDER
                                                               : ONESCOPE_LINK_ROLE_RECEIVER,
                                           TESTDATA_LINK_BODY, TESTDATA_LINK_STEP};
            p.steps = 300;
            break;
    }
    return p;
}

static onescope_code emit(testdata_callback cb, void *user, int file, onescope_buffer *b,
                          onescope_error *error) {
    bool stop = cb != NULL && cb(user, file_names[file], b->data, b->size) != 0;
    onescope_buffer_free(b);
    if (stop)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, file_names[file], OS_NO_OFFSET, NULL,
                                NULL, "the callback stopped the generation");
    return ONESCOPE_OK;
}

onescope_code testdata_generate(const onescope_allocator *a, testdata_callback cb, void *user,
                                onescope_error *error) {
    onescope_code rc = ONESCOPE_OK;
    for (int f = 0; f < F_COUNT && rc == ONESCOPE_OK; f++) {
        onescope_buffer b = {NULL, 0, NULL};
        if (f == F_GHOST) {
            replay_plan p = plan_for(F_2D_600);
            onescope_replay *r;
            OS_TRY(build_replay(&p, a, &r, error));
            onescope_ghost_options o = onescope_ghost_options_default();
            o.from = TESTDATA_GHOST_FROM;
            o.frames = TESTDATA_GHOST_FRAMES;
            o.offset[0] = TESTDATA_GHOST_OFFSET_X;
            o.replay_name = file_names[F_2D_600];
            o.label = "ghost of test-2d-600.ostm, 400 mm to the right";
            onescope_pose_cache *c;
            rc = onescope_ghost_create(r, &o, a, &c, error);
            onescope_replay_free(r);
            if (rc != ONESCOPE_OK) return rc;
            rc = onescope_pose_cache_write(c, a, &b, error);
            onescope_pose_cache_free(c);
        } else {
            onescope_replay *r;
            if (f == F_LIVE) {
                OS_TRY(live_attach_replay(a, &r, error));
            } else {
                replay_plan p = plan_for(f);
                OS_TRY(build_replay(&p, a, &r, error));
            }
            rc = onescope_replay_write(r, a, &b, error);
            onescope_replay_free(r);
        }
        if (rc == ONESCOPE_OK) rc = emit(cb, user, f, &b, error);
    }
    return rc;
}
