/* Benchmark: the SoA world against plain Box3D calls on the same scene, in one program.
 * Prints ms/step (thread CPU time) for both, their ratio, and what reading the state costs.
 * Usage: bench_soa_world [STEPS_1K [STEPS_10K [REPEATS]]]. Not run by ctest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <box3d/box3d.h>
#include <box3d/collision.h>

#include "onescope/onescope.h"

#define DT (1.0f / 60.0f)
#define SUB 4

/* CPU time of this thread: time spent descheduled (the machine may be shared) is not counted. */
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The scene: a static floor, then n - 1 bodies (spheres, boxes, capsules in turn) on a
 * grid above it, dropped into a pile. Body k's descriptor is the same for both sides. */
static onescope_soa_body_def scene_body(int k, int n) {
    onescope_soa_body_def b = onescope_soa_body_def_default();
    if (k == 0) {
        b.kind = ONESCOPE_SOA_STATIC_BOX;
        b.size[0] = 200.0f, b.size[1] = 0.5f, b.size[2] = 200.0f;
        b.position[1] = -0.5f;
        return b;
    }
    int side = (int)ceil(sqrt((double)(n - 1) / 10.0)); /* ten layers */
    int i = k - 1;
    int layer = i / (side * side), cell = i % (side * side);
    b.kind = (i % 3 == 0)   ? ONESCOPE_SOA_SPHERE
             : (i % 3 == 1) ? ONESCOPE_SOA_BOX
                            : ONESCOPE_SOA_CAPSULE;
    b.size[0] = 0.4f, b.size[1] = 0.4f, b.size[2] = 0.4f;
    if (b.kind == ONESCOPE_SOA_CAPSULE) b.size[0] = 0.25f, b.size[1] = 0.3f;
    b.position[0] = ((float)(cell % side) - 0.5f * (float)side) * 1.1f + 0.05f * (float)(layer % 2);
    b.position[1] = 1.0f + 1.1f * (float)layer;
    b.position[2] = ((float)(cell / side) - 0.5f * (float)side) * 1.1f;
    return b;
}

/* ---- the SoA world ---- */

static onescope_soa_world *build_soa(int n) {
    onescope_soa_world_def d = onescope_soa_world_def_default();
    d.body_capacity = (uint32_t)n;
    onescope_soa_world *w = NULL;
    onescope_error err;
    if (onescope_soa_world_create(&d, NULL, &w, &err) != ONESCOPE_OK) exit(1);
    for (int k = 0; k < n; k++) {
        onescope_soa_body_def b = scene_body(k, n);
        if (onescope_soa_world_add_body(w, &b, NULL, &err) != ONESCOPE_OK) {
            char line[512];
            onescope_error_format(&err, line, sizeof line);
            fprintf(stderr, "%s\n", line);
            exit(1);
        }
    }
    return w;
}

/* ---- plain Box3D: the same calls the SoA world makes to build, then b3World_Step ---- */

typedef struct plain {
    b3WorldId world;
    b3BodyId *bodies;
    int n;
} plain;

static plain build_plain(int n) {
    plain p;
    b3WorldDef wd = b3DefaultWorldDef();
    onescope_soa_world_def sd = onescope_soa_world_def_default();
    wd.gravity = (b3Vec3){sd.gravity[0], sd.gravity[1], sd.gravity[2]};
    wd.enableSleep = true;
    wd.hitEventThreshold = sd.hit_speed_threshold;
    wd.workerCount = 1;
    wd.capacity.dynamicBodyCount = n;
    wd.capacity.dynamicShapeCount = n;
    p.world = b3CreateWorld(&wd);
    p.bodies = calloc((size_t)n, sizeof *p.bodies);
    p.n = n;
    for (int k = 0; k < n; k++) {
        onescope_soa_body_def d = scene_body(k, n);
        b3BodyDef bd = b3DefaultBodyDef();
        bd.type = d.kind == ONESCOPE_SOA_STATIC_BOX ? b3_staticBody : b3_dynamicBody;
        bd.position = (b3Pos){d.position[0], d.position[1], d.position[2]};
        bd.userData = (void *)(uintptr_t)(k + 1);
        b3BodyId id = b3CreateBody(p.world, &bd);
        b3ShapeDef s = b3DefaultShapeDef();
        s.density = d.density;
        s.baseMaterial.friction = d.friction;
        s.baseMaterial.restitution = d.restitution;
        s.baseMaterial.rollingResistance = d.rolling_resistance;
        s.enableContactEvents = true;
        s.enableHitEvents = true;
        if (d.kind == ONESCOPE_SOA_SPHERE) {
            b3Sphere sp = {{0.0f, 0.0f, 0.0f}, d.size[0]};
            b3CreateSphereShape(id, &s, &sp);
        } else if (d.kind == ONESCOPE_SOA_CAPSULE) {
            b3Capsule c = {{0.0f, -d.size[1], 0.0f}, {0.0f, d.size[1], 0.0f}, d.size[0]};
            b3CreateCapsuleShape(id, &s, &c);
        } else {
            b3BoxHull h = b3MakeBoxHull(d.size[0], d.size[1], d.size[2]);
            b3CreateHullShape(id, &s, &h.base);
        }
        p.bodies[k] = id;
    }
    return p;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run: both worlds are built, then stepped in lock step (the side that goes first
 * alternates every step), each step timed on its own. Noise from other processes then falls
 * on both sides alike. */
static void run(int n, int steps, int repeats) {
    double *soa_ms = calloc((size_t)repeats, sizeof(double));
    double *plain_ms = calloc((size_t)repeats, sizeof(double));
    double soa_read = 0.0, plain_read = 0.0, view_ns = 0.0;
    double check_soa = 0.0, check_plain = 0.0;
    int same_pointers = 1;
    for (int r = 0; r < repeats; r++) {
        onescope_soa_world *w = build_soa(n);
        plain p = build_plain(n);
        onescope_error err;
        onescope_soa_view v0;
        onescope_soa_world_view(w, &v0, &err);
        double ts = 0.0, tp = 0.0;
        for (int s = 0; s < steps; s++) {
            for (int side = 0; side < 2; side++) {
                double t0 = now_ms();
                if ((side == 0) == (s % 2 == 0)) {
                    onescope_soa_world_step(w, DT, SUB, &err);
                    ts += now_ms() - t0;
                } else {
                    b3World_Step(p.world, DT, SUB);
                    tp += now_ms() - t0;
                }
            }
        }
        soa_ms[r] = ts / steps;
        plain_ms[r] = tp / steps;
        /* reading: take a view (no copy) and sum every position in place */
        double t1 = now_ms();
        onescope_soa_view v;
        for (int k = 0; k < 1000; k++) onescope_soa_world_view(w, &v, &err);
        view_ns += (now_ms() - t1) * 1e6 / 1000.0;
        same_pointers &= v.position_x == v0.position_x && v.rotation_w == v0.rotation_w;
        double t2 = now_ms(), sum = 0.0;
        for (uint32_t i = 0; i < v.live->count; i++)
            sum += (double)v.position_x[i] + v.position_y[i] + v.position_z[i] + v.rotation_w[i] +
                   v.linear_velocity_y[i];
        soa_read += now_ms() - t2;
        check_soa = sum;
        t2 = now_ms();
        sum = 0.0;
        for (int i = 0; i < p.n; i++) {
            b3Transform t = b3Body_GetTransform(p.bodies[i]);
            b3Vec3 lv = b3Body_GetLinearVelocity(p.bodies[i]);
            sum += (double)t.p.x + t.p.y + t.p.z + t.q.s + lv.y;
        }
        plain_read += now_ms() - t2;
        check_plain = sum;
        onescope_soa_world_free(w);
        b3DestroyWorld(p.world);
        free(p.bodies);
    }
    double ratio_med;
    {
        double *ratios = calloc((size_t)repeats, sizeof(double));
        for (int r = 0; r < repeats; r++) ratios[r] = soa_ms[r] / plain_ms[r];
        qsort(ratios, (size_t)repeats, sizeof(double), cmp_double);
        ratio_med = ratios[repeats / 2];
        free(ratios);
    }
    qsort(soa_ms, (size_t)repeats, sizeof(double), cmp_double);
    qsort(plain_ms, (size_t)repeats, sizeof(double), cmp_double);
    double ms = soa_ms[repeats / 2], pms = plain_ms[repeats / 2];
    printf(
        "%6d bodies, %d steps x %d runs, stepped in lock step (median ms/step; min in brackets)\n",
        n, steps, repeats);
    printf("  plain Box3D  %8.3f ms/step  [%8.3f]\n", pms, plain_ms[0]);
    printf("  SoA world    %8.3f ms/step  [%8.3f]\n", ms, soa_ms[0]);
    printf("  ratio        %8.4f (median of per-run SoA / plain; of medians %.4f)\n", ratio_med,
           ms / pms);
    printf("  reading state after the run, per full read of %d bodies:\n", n);
    printf("    SoA view            %8.1f ns (no copy; lane pointers unchanged across steps: %s)\n",
           view_ns / repeats, same_pointers ? "yes" : "NO");
    printf("    SoA lanes in place  %8.4f ms\n", soa_read / repeats);
    printf("    plain b3Body_Get*   %8.4f ms\n", plain_read / repeats);
    printf("    same final state on both sides: %s (checksums %.9g / %.9g)\n",
           check_soa == check_plain ? "yes" : "no", check_soa, check_plain);
    free(soa_ms);
    free(plain_ms);
}

int main(int argc, char **argv) {
    if (!onescope_soa_world_available()) {
        fprintf(stderr, "bench_soa_world: this build has no Box3D\n");
        return 1;
    }
    int steps1k = argc > 1 ? atoi(argv[1]) : 300;
    int steps10k = argc > 2 ? atoi(argv[2]) : 120;
    int repeats = argc > 3 ? atoi(argv[3]) : 5;
    if (steps1k < 1 || steps10k < 1 || repeats < 1) {
        fprintf(stderr, "usage: bench_soa_world [STEPS_1K [STEPS_10K [REPEATS]]]\n");
        return 2;
    }
    printf("bench_soa_world: libonescope %s, dt 1/60 s, %d substeps, one Box3D worker\n",
           onescope_version_string(), SUB);
    run(1000, steps1k, repeats);
    run(10000, steps10k, repeats);
    return 0;
}
