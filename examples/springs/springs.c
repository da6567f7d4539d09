/* The springs engine: plain float arithmetic, the same on every run of the same build. */
#include "springs.h"

#include <math.h>
#include <string.h>

const char *const springs_stage_names[SPRINGS_STAGES] = {"forces", "integrate", "collide"};

static const float dt = 1.0f / 60.0f, stiffness = 40.0f, rest = 2.0f, gravity = -9.8f;
static const float size = 100.0f, restitution = 0.75f, damping = 0.995f;

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float get_f32(const uint8_t *p) {
    uint32_t u = get_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int springs_setup_decode(const void *bytes, size_t n, springs_setup *out) {
    if (n != SPRINGS_SETUP_BYTES && n != SPRINGS_SETUP_PLANT_BYTES) return -1;
    const uint8_t *p = bytes;
    out->count = get_u32(p);
    out->seed = get_u32(p + 4);
    out->plant_step = n == SPRINGS_SETUP_PLANT_BYTES ? get_u32(p + 8) : SPRINGS_NO_PLANT;
    out->plant_entity = n == SPRINGS_SETUP_PLANT_BYTES ? get_u32(p + 12) : 0;
    if (n == SPRINGS_SETUP_PLANT_BYTES && out->plant_step == SPRINGS_NO_PLANT) return -1;
    return out->count >= 2 && out->count <= SPRINGS_MAX ? 0 : -1;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

size_t springs_setup_encode(const springs_setup *s, uint8_t out[SPRINGS_SETUP_PLANT_BYTES]) {
    put_u32(out, s->count);
    put_u32(out + 4, s->seed);
    if (s->plant_step == SPRINGS_NO_PLANT) return SPRINGS_SETUP_BYTES;
    put_u32(out + 8, s->plant_step);
    put_u32(out + 12, s->plant_entity);
    return SPRINGS_SETUP_PLANT_BYTES;
}

void springs_init(springs_world *w, const springs_setup *s) {
    memset(w, 0, sizeof *w);
    w->count = s->count;
    w->plant_step = s->plant_step == SPRINGS_NO_PLANT ? ~(uint64_t)0 : s->plant_step;
    w->plant_entity = s->plant_entity;
    uint32_t r = s->seed | 1u;
    for (uint32_t i = 0; i < w->count; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5; /* xorshift32 */
        w->x[i] = 10.0f + (float)(i % 40) * rest;
        w->y[i] = 50.0f + (float)(r % 1000) * 0.01f;
    }
}

long springs_input_check(const springs_world *w, const void *input, size_t n) {
    if (n % SPRINGS_IMPULSE_BYTES != 0) return (long)(n - n % SPRINGS_IMPULSE_BYTES);
    const uint8_t *p = input;
    for (size_t at = 0; at < n; at += SPRINGS_IMPULSE_BYTES) {
        if (get_u32(p + at) >= w->count) return (long)at;
        if (!isfinite(get_f32(p + at + 4))) return (long)(at + 4);
        if (!isfinite(get_f32(p + at + 8))) return (long)(at + 8);
    }
    return -1;
}

/* Stage 0: impulses from the input, gravity, and the chain's springs. */
static void forces(springs_world *w, const uint8_t *input, size_t n) {
    for (size_t at = 0; at + SPRINGS_IMPULSE_BYTES <= n; at += SPRINGS_IMPULSE_BYTES) {
        uint32_t e = get_u32(input + at);
        w->vx[e] += get_f32(input + at + 4);
        w->vy[e] += get_f32(input + at + 8);
    }
    for (uint32_t i = 0; i < w->count; i++) {
        w->fx[i] = 0.0f;
        w->fy[i] = gravity;
    }
    for (uint32_t i = 0; i + 1 < w->count; i++) {
        float dx = w->x[i + 1] - w->x[i], dy = w->y[i + 1] - w->y[i];
        float len = sqrtf(dx * dx + dy * dy);
        if (len < 1e-6f) continue;
        float f = stiffness * (len - rest) / len;
        if (w->step >= w->plant_step && i == w->plant_entity)
            f *= 1.001f; /* the planted change: a spring 0.1% stiffer */
        w->fx[i] += f * dx, w->fy[i] += f * dy;
        w->fx[i + 1] -= f * dx, w->fy[i + 1] -= f * dy;
    }
}

/* Stage 1: semi-implicit Euler. */
static void integrate(springs_world *w) {
    for (uint32_t i = 0; i < w->count; i++) {
        w->vx[i] = (w->vx[i] + w->fx[i] * dt) * damping;
        w->vy[i] = (w->vy[i] + w->fy[i] * dt) * damping;
        w->x[i] += w->vx[i] * dt;
        w->y[i] += w->vy[i] * dt;
    }
}

/* Stage 2: the box's walls. */
static void collide(springs_world *w) {
    for (uint32_t i = 0; i < w->count; i++) {
        if (w->x[i] < 0.0f) w->x[i] = -w->x[i], w->vx[i] = -w->vx[i] * restitution;
        if (w->x[i] > size) w->x[i] = 2.0f * size - w->x[i], w->vx[i] = -w->vx[i] * restitution;
        if (w->y[i] < 0.0f) w->y[i] = -w->y[i], w->vy[i] = -w->vy[i] * restitution;
        if (w->y[i] > size) w->y[i] = 2.0f * size - w->y[i], w->vy[i] = -w->vy[i] * restitution;
    }
}

void springs_run_stage(springs_world *w, const void *input, size_t n) {
    switch (w->stage) {
        case 0: forces(w, input, n); break;
        case 1: integrate(w); break;
        default: collide(w); break;
    }
    if (++w->stage == SPRINGS_STAGES) {
        w->stage = 0;
        w->step++;
    }
}

void springs_step(springs_world *w, const void *input, size_t n) {
    for (int s = 0; s < SPRINGS_STAGES; s++) springs_run_stage(w, input, n);
}

uint64_t springs_hash(const springs_world *w) {
    /* FNV-1a over the state's 32-bit words and the step: every bit of every float counts */
    uint64_t h = 1469598103934665603ull;
    const float *arrays[4] = {w->x, w->y, w->vx, w->vy};
    for (int a = 0; a < 4; a++) {
        for (uint32_t i = 0; i < w->count; i++) {
            uint32_t bits;
            memcpy(&bits, &arrays[a][i], sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
        }
    }
    return h ^ w->step;
}
