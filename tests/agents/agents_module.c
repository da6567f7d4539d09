/* The agents module of the trust tests (agents_module.h): written from docs/module.md as a new
 * user would, with its faults switchable. Plain C17; floats; no library call but the sink, the
 * error filler and the number printer. */
#include "agents_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AGENTS 4096u
#define START_ENERGY 100.0f
#define FAT (64u * 1024u * 1024u) /* the fat snapshot's padding, + 1 */

typedef struct agent {
    uint64_t id;
    float x, y, vx, vy, energy;
} agent;

typedef struct world {
    uint64_t step, rng, next_id;
    uint32_t n;
    agent a[MAX_AGENTS];
} world;

agents_faults agents_faults_none(void) {
    agents_faults f;
    memset(&f, 0, sizeof f);
    f.bug_step = -1;
    f.refuse_step = -1;
    f.refuse_offset = ONESCOPE_MODULE_NO_OFFSET;
    f.outside_rng = 12345;
    return f;
}

void agents_faults_parse(agents_faults *f, const char *text) {
    *f = agents_faults_none();
    if (text == NULL) return;
    f->snapshot_misses = strstr(text, "snapshot") != NULL;
    f->hash_misses = strstr(text, "hash") != NULL;
    f->outside = strstr(text, "outside") != NULL;
    f->fat = strstr(text, "fat") != NULL;
    const char *bug = strstr(text, "bug=");
    if (bug != NULL) {
        long long step = 0;
        unsigned long long id = 0;
        if (sscanf(bug, "bug=%lld:%llu", &step, &id) == 2) {
            f->bug_step = step;
            f->bug_id = id;
        }
        f->bug_energy = strstr(bug, ":energy") != NULL;
    }
    const char *refuse = strstr(text, "refuse=");
    long long at = 0;
    if (refuse != NULL && sscanf(refuse, "refuse=%lld", &at) == 1) f->refuse_step = at;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}
static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void agents_setup(uint32_t seed, uint32_t count, uint8_t out[8]) {
    put32(out, seed);
    put32(out + 4, count);
}

size_t agents_push(uint32_t id, float by, uint8_t out[8]) {
    put32(out, id);
    put32(out + 4, fbits(by));
    return 8;
}

size_t agents_input(uint32_t i, uint8_t out[8]) {
    if (i % 7 != 3) return 0;
    put32(out, i % 5 + 1);
    put32(out + 4, fbits(i % 2 ? 0.75f : -0.5f));
    return 8;
}

/* splitmix64, as a new user would copy it */
static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static float unit(uint64_t *s) {
    return (float)(next(s) >> 40) / 16777216.0f; /* [0, 1) */
}

static uint64_t *rng_of(agents_faults *f, world *w) {
    return f->outside ? &f->outside_rng : &w->rng;
}

static onescope_code check_setup(void *ctx, const void *setup, size_t size, onescope_error *e) {
    (void)ctx;
    if (size != 8) return onescope_module_fail(e, ONESCOPE_E_LENGTH, 0, "setup", "8 bytes", NULL);
    uint32_t n = get32((const uint8_t *)setup + 4);
    if (n < 1 || n > 200)
        return onescope_module_fail(e, ONESCOPE_E_RANGE, 4, "agents", "1 to 200", NULL);
    return ONESCOPE_OK;
}

static onescope_code check_input(void *ctx, const void *setup, size_t setup_size, const void *in,
                                 size_t size, onescope_error *e) {
    (void)ctx, (void)setup, (void)setup_size, (void)in;
    if (size != 0 && size != 8)
        return onescope_module_fail(e, ONESCOPE_E_LENGTH, 0, "input", "0 or 8 bytes", NULL);
    return ONESCOPE_OK;
}

static void spawn(world *w, uint64_t *rng) {
    if (w->n == MAX_AGENTS) return;
    agent *a = &w->a[w->n++];
    a->id = w->next_id++;
    a->x = unit(rng) * 80.0f - 40.0f;
    a->y = unit(rng) * 80.0f - 40.0f;
    a->vx = unit(rng) - 0.5f;
    a->vy = unit(rng) - 0.5f;
    a->energy = START_ENERGY - unit(rng) * 40.0f;
}

static onescope_code create(void *ctx, const void *setup, size_t size, const onescope_allocator *al,
                            void **out, onescope_error *e) {
    (void)al;
    onescope_code rc = check_setup(ctx, setup, size, e);
    if (rc != ONESCOPE_OK) return rc;
    world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return onescope_module_fail(e, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, NULL, NULL,
                                    "no memory for a world");
    w->rng = get32(setup);
    w->next_id = 1;
    uint64_t *rng = rng_of(ctx, w);
    for (uint32_t i = get32((const uint8_t *)setup + 4); i > 0; i--) spawn(w, rng);
    *out = w;
    return ONESCOPE_OK;
}

static void destroy(void *ctx, void *w) {
    (void)ctx;
    free(w);
}

static onescope_code run_stage(void *ctx, void *wp, uint32_t stage, const void *in, size_t size,
                               onescope_error *e) {
    agents_faults *f = ctx;
    world *w = wp;
    uint64_t *rng = rng_of(f, w);
    onescope_code rc = check_input(ctx, NULL, 0, in, size, e);
    if (rc != ONESCOPE_OK) return rc;
    if (stage == 0 && f->refuse_step >= 0 && w->step == (uint64_t)f->refuse_step)
        return onescope_module_fail(e, ONESCOPE_E_MISMATCH, f->refuse_offset, "world",
                                    "agents in step", "a planted refusal");
    for (uint32_t i = 0; stage == 0 && i < w->n; i++) { /* think: both velocities */
        agent *a = &w->a[i];
        a->vx += (unit(rng) - 0.5f) * 0.2f;
        a->vy += (unit(rng) - 0.5f) * 0.2f;
        uint32_t target = size == 8 ? get32(in) : 0;
        float push = size == 8 ? bitsf(get32((const uint8_t *)in + 4)) : 0.0f;
        if (size == 8 && a->id == (target & 0x7FFFFFFFu)) {
            if (target & 0x80000000u) /* a feed: energy only */
                a->energy += push;
            else
                a->vx += push;
        }
        if (f->bug_step >= 0 && w->step == (uint64_t)f->bug_step && a->id == f->bug_id) {
            if (f->bug_energy)
                a->energy -= 3.0f;
            else
                a->vx += 0.5f;
        }
    }
    for (uint32_t i = 0; stage == 1 && i < w->n; i++) { /* move: position and energy */
        agent *a = &w->a[i];
        a->x += a->vx;
        a->y += a->vy;
        a->energy -= 0.25f + 0.05f * (fabsf(a->vx) + fabsf(a->vy));
    }
    for (uint32_t i = 0; stage == 2 && i < w->n; i++) { /* bounce: position and velocity */
        agent *a = &w->a[i];
        if (a->x > 50.0f || a->x < -50.0f) {
            a->x = a->x > 0 ? 100.0f - a->x : -100.0f - a->x;
            a->vx = -a->vx;
        }
        if (a->y > 50.0f || a->y < -50.0f) {
            a->y = a->y > 0 ? 100.0f - a->y : -100.0f - a->y;
            a->vy = -a->vy;
        }
    }
    if (stage == 3) { /* life: the spent leave (the last takes their place), one is born */
        for (uint32_t i = 0; i < w->n;) {
            if (w->a[i].energy <= 0.0f)
                w->a[i] = w->a[--w->n];
            else
                i++;
        }
        if (w->step % 10 == 9) spawn(w, rng);
        w->step++;
    }
    return ONESCOPE_OK;
}

static onescope_code step(void *ctx, void *w, const void *in, size_t size, onescope_error *e) {
    for (uint32_t s = 0; s < 4; s++) {
        onescope_code rc = run_stage(ctx, w, s, in, size, e);
        if (rc != ONESCOPE_OK) return rc;
    }
    return ONESCOPE_OK;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; i++) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001B3u;
    return h;
}

static uint64_t hash(void *ctx, const void *wp) {
    const agents_faults *f = ctx;
    const world *w = wp;
    uint64_t h = mix(mix(mix(mix(0xCBF29CE484222325u, w->n), w->step), w->rng), w->next_id);
    for (uint32_t i = 0; i < w->n; i++) {
        const agent *a = &w->a[i];
        h = mix(mix(mix(h, a->id), fbits(a->x) | (uint64_t)fbits(a->y) << 32),
                fbits(a->vx) | (uint64_t)fbits(a->vy) << 32);
        if (!f->hash_misses) h = mix(h, fbits(a->energy));
    }
    return h;
}

static size_t agent_bytes(const agents_faults *f) {
    return f->snapshot_misses ? 24 : 28;
}

static onescope_code snapshot(void *ctx, const void *wp, onescope_module_sink *out,
                              onescope_error *e) {
    (void)e;
    const agents_faults *f = ctx;
    const world *w = wp;
    uint8_t head[28], one[28];
    memcpy(head, "AGT1", 4);
    put64(head + 4, w->step);
    put64(head + 12, w->rng);
    put32(head + 20, (uint32_t)w->next_id);
    put32(head + 24, w->n);
    onescope_code rc = onescope_module_sink_append(out, head, sizeof head);
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < w->n; i++) {
        const agent *a = &w->a[i];
        put64(one, a->id);
        put32(one + 8, fbits(a->x));
        put32(one + 12, fbits(a->y));
        put32(one + 16, fbits(a->vx));
        put32(one + 20, fbits(a->vy));
        put32(one + 24, fbits(a->energy));
        rc = onescope_module_sink_append(out, one, agent_bytes(f));
    }
    static const uint8_t zeros[65536];
    for (uint32_t k = 0; f->fat && rc == ONESCOPE_OK && k <= FAT / sizeof zeros; k++)
        rc = onescope_module_sink_append(out, zeros, k < FAT / sizeof zeros ? sizeof zeros : 1);
    return rc;
}

static onescope_code restore(void *ctx, const void *setup, size_t setup_size, const void *snap,
                             size_t size, const onescope_allocator *al, void **out,
                             onescope_error *e) {
    (void)al;
    const agents_faults *f = ctx;
    const uint8_t *p = snap;
    onescope_code rc = check_setup(ctx, setup, setup_size, e);
    if (rc != ONESCOPE_OK) return rc;
    if (size < 28 || memcmp(p, "AGT1", 4) != 0)
        return onescope_module_fail(e, ONESCOPE_E_MAGIC, 0, "snapshot", "AGT1", NULL);
    uint32_t n = get32(p + 24);
    if (n > MAX_AGENTS || size != 28 + (size_t)n * agent_bytes(f) + (f->fat ? FAT + 1 : 0))
        return onescope_module_fail(e, ONESCOPE_E_LENGTH, 24, "agents", "the snapshot's size",
                                    NULL);
    world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return onescope_module_fail(e, ONESCOPE_E_NOMEM, ONESCOPE_MODULE_NO_OFFSET, NULL, NULL,
                                    "no memory for a world");
    w->step = get64(p + 4);
    w->rng = get64(p + 12);
    w->next_id = get32(p + 20);
    w->n = n;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *q = p + 28 + (size_t)i * agent_bytes(f);
        agent *a = &w->a[i];
        a->id = get64(q);
        a->x = bitsf(get32(q + 8));
        a->y = bitsf(get32(q + 12));
        a->vx = bitsf(get32(q + 16));
        a->vy = bitsf(get32(q + 20));
        a->energy = f->snapshot_misses ? START_ENERGY : bitsf(get32(q + 24));
    }
    *out = w;
    return ONESCOPE_OK;
}

static uint32_t entity_count(void *ctx, const void *w) {
    (void)ctx;
    return ((const world *)w)->n;
}

static uint64_t entity_id(void *ctx, const void *w, uint32_t i) {
    (void)ctx;
    return ((const world *)w)->a[i].id;
}

static bool entity_pose(void *ctx, const void *w, uint32_t i, onescope_pose *out) {
    (void)ctx;
    const agent *a = &((const world *)w)->a[i];
    memset(out, 0, sizeof *out);
    out->position[0] = a->x;
    out->position[1] = a->y;
    out->rotation[3] = 1.0f;
    return true;
}

static void entity_values(void *ctx, const void *w, uint32_t i, double *out) {
    (void)ctx;
    const agent *a = &((const world *)w)->a[i];
    out[0] = a->x, out[1] = a->y, out[2] = a->vx, out[3] = a->vy, out[4] = a->energy;
}

static onescope_code describe(void *ctx, const void *setup, size_t setup_size, const void *in,
                              size_t size, onescope_module_sink *text, onescope_error *e) {
    (void)ctx, (void)setup, (void)setup_size, (void)e;
    if (size == 0) return onescope_module_sink_append(text, "nothing", 7);
    char push[ONESCOPE_NUMBER_MAX_LENGTH + 1], line[96];
    onescope_number_format_float(bitsf(get32((const uint8_t *)in + 4)), push, sizeof push);
    uint32_t target = get32(in);
    int n = snprintf(line, sizeof line, "%s agent %u by %s", target >> 31 ? "feed" : "push",
                     (unsigned)(target & 0x7FFFFFFFu), push);
    return onescope_module_sink_append(text, line, (size_t)n);
}

static const char *const stage_names[4] = {"think", "move", "bounce", "life"};
static const char *const group_names[3] = {"position", "velocity", "state"};
static const onescope_value_info values[5] = {
    {"x", "m", ONESCOPE_VALUE_F32, 0},       {"y", "m", ONESCOPE_VALUE_F32, 0},
    {"vx", "m/step", ONESCOPE_VALUE_F32, 1}, {"vy", "m/step", ONESCOPE_VALUE_F32, 1},
    {"energy", "", ONESCOPE_VALUE_F32, 2},
};

onescope_module agents_module(agents_faults *faults) {
    onescope_module m;
    memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    m.abi = ONESCOPE_MODULE_ABI;
    m.id = "test.agents";
    m.version = "1";
    m.context = faults;
    m.create = create;
    m.free = destroy;
    m.step = step;
    m.hash = hash;
    m.check_setup = check_setup;
    m.check_input = check_input;
    m.stage_count = 4;
    m.stage_names = stage_names;
    m.run_stage = run_stage;
    m.snapshot = snapshot;
    m.restore = restore;
    m.entity_count = entity_count;
    m.entity_id = entity_id;
    m.entity_pose = entity_pose;
    m.value_count = 5;
    m.values = values;
    m.group_count = 3;
    m.group_names = group_names;
    m.entity_values = entity_values;
    m.describe_input = describe;
    m.metres_per_unit = 1.0;
    m.dimensions = 2;
    return m;
}
