/* A small engine of its own: particles on a chain of springs in a 2D box, in float, stepped in
 * three stages (forces, integrate, collide). It knows nothing of libonescope; springs_module.c
 * is the one file that shows it to the library. */
#ifndef SPRINGS_H
#define SPRINGS_H

#include <stddef.h>
#include <stdint.h>

#define SPRINGS_MAX 4096
#define SPRINGS_STAGES 3
#define SPRINGS_SETUP_BYTES 8        /* count, seed */
#define SPRINGS_SETUP_PLANT_BYTES 16 /* and a planted divergence: step, entity */
#define SPRINGS_IMPULSE_BYTES 12     /* u32 entity, f32 dx, f32 dy */

typedef struct springs_setup {
    uint32_t count; /* 2..SPRINGS_MAX particles */
    uint32_t seed;  /* where they start */
    /* A divergence planted by the setup, so two recordings can differ by it (diff's demo):
     * from step plant_step on, particle plant_entity's spring is 0.1% stiffer. Written only
     * when plant_step != SPRINGS_NO_PLANT (16 setup bytes instead of 8). */
    uint32_t plant_step;
    uint32_t plant_entity;
} springs_setup;

#define SPRINGS_NO_PLANT 0xffffffffu

typedef struct springs_world {
    uint32_t count;
    uint32_t stage; /* the next stage of the current step: 0 at a step boundary */
    uint64_t step;
    /* A planted divergence for the example's test: from step plant_step on, stage "forces"
     * computes particle plant_entity's spring force in another order (off: plant_step = ~0). */
    uint64_t plant_step;
    uint32_t plant_entity;
    float x[SPRINGS_MAX], y[SPRINGS_MAX], vx[SPRINGS_MAX], vy[SPRINGS_MAX];
    float fx[SPRINGS_MAX], fy[SPRINGS_MAX];
} springs_world;

extern const char *const springs_stage_names[SPRINGS_STAGES];

/* 0 or -1 (a setup out of range) */
int springs_setup_decode(const void *bytes, size_t size, springs_setup *out);
/* Returns the size written: SPRINGS_SETUP_BYTES, or SPRINGS_SETUP_PLANT_BYTES with a plant. */
size_t springs_setup_encode(const springs_setup *s, uint8_t out[SPRINGS_SETUP_PLANT_BYTES]);
void springs_init(springs_world *w, const springs_setup *s);
/* An input is a list of impulses, 12 bytes each. Returns the byte offset of the first bad one's
 * bad field, or -1 when the input is good. */
long springs_input_check(const springs_world *w, const void *input, size_t size);
/* Runs stage w->stage (the input is read by stage 0 only). */
void springs_run_stage(springs_world *w, const void *input, size_t size);
void springs_step(springs_world *w, const void *input, size_t size);
uint64_t springs_hash(const springs_world *w);

#endif
