/* Benchmark: the Box3D module's recordings against a plain Box3D run of the same steps, and
 * against Box3D's own recording (b3World_StartRecording, b3ValidateReplay). Prints ms (thread
 * CPU time, the best of REPEATS) and ratios, and bytes per step of each recording.
 * Usage: bench_box3d_module SCENE.json REC.ostm REC_ROWS.ostm [REPEATS]: the two recordings
 * are `onescope box3d-record` files of the scene, without and with entity rows, the same steps
 * and seed. Not run by ctest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <box3d/box3d.h>

#include "onescope/onescope.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void die(const onescope_error *e) {
    char line[512];
    onescope_error_format(e, line, sizeof line);
    fprintf(stderr, "bench_box3d_module: %s\n", line);
    exit(1);
}

static float f32(const uint8_t *p) {
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static uint32_t u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The plain run: the scene's world, each step's forces and impulses applied through the SoA
 * world's calls, the step; no hash, no file. */
static double plain_run(const onescope_soa_scene *scene, const onescope_recording *r) {
    onescope_soa_world *w;
    onescope_soa_view v;
    onescope_error err;
    if (onescope_soa_scene_create_world(scene, NULL, &w, &err) != ONESCOPE_OK) die(&err);
    if (onescope_soa_world_view(w, &v, &err) != ONESCOPE_OK) die(&err);
    double t0 = now_ms();
    for (uint32_t i = 0; i < onescope_recording_step_count(r); i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        for (size_t at = 0; at + 17 <= n; at += 17) {
            uint32_t b = u32(p + at + 1) - 1;
            float x[3] = {f32(p + at + 5), f32(p + at + 9), f32(p + at + 13)};
            if (p[at] == 1) {
                v.force_x[b] += x[0], v.force_y[b] += x[1], v.force_z[b] += x[2];
            } else if (onescope_soa_world_act(w, b, ONESCOPE_SOA_LINEAR_IMPULSE, x, &err) !=
                       ONESCOPE_OK) {
                die(&err);
            }
        }
        if (onescope_soa_world_step(w, scene->dt, scene->substeps, &err) != ONESCOPE_OK) die(&err);
    }
    double t = now_ms() - t0;
    onescope_soa_world_free(w);
    return t;
}

static double verify_ms(const char *path) {
    onescope_error err;
    onescope_verify_result res;
    double t0 = now_ms();
    if (onescope_recording_verify_file(path, onescope_module_box3d(), NULL, &res, &err) !=
        ONESCOPE_OK)
        die(&err);
    return now_ms() - t0;
}

/* The module's snapshot and restore at the recording's last step: time of each (best of
 * repeats) against one step of the plain run, and the snapshot's size. */
static void snapshot_costs(const onescope_recording *r, int repeats, double step_ms) {
    const onescope_module *m = onescope_module_box3d();
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_error err;
    onescope_world *w;
    if (onescope_world_create(m, setup, setup_size, NULL, &w, &err) != ONESCOPE_OK) die(&err);
    uint32_t steps = onescope_recording_step_count(r);
    for (uint32_t i = 0; i < steps; i++) {
        size_t n;
        const uint8_t *in;
        (void)onescope_recording_step_input(r, i, &in, &n);
        if (onescope_world_step(w, in, n, &err) != ONESCOPE_OK) die(&err);
    }
    double snap = 1e300, restore = 1e300;
    size_t size = 0;
    for (int k = 0; k < repeats; k++) {
        onescope_buffer b;
        double t0 = now_ms();
        if (onescope_world_snapshot(w, NULL, &b, &err) != ONESCOPE_OK) die(&err);
        double t1 = now_ms();
        onescope_world *back;
        if (onescope_world_restore(m, setup, setup_size, b.data, b.size, NULL, &back, &err) !=
            ONESCOPE_OK)
            die(&err);
        double t2 = now_ms();
        if (onescope_world_hash(back) != onescope_world_hash(w)) {
            fprintf(stderr, "bench_box3d_module: the restored world's hash differs\n");
            exit(1);
        }
        onescope_world_free(back);
        size = b.size;
        onescope_buffer_free(&b);
        snap = t1 - t0 < snap ? t1 - t0 : snap;
        restore = t2 - t1 < restore ? t2 - t1 : restore;
    }
    printf("module snapshot                   %9.1f ms  %.2f steps of the plain run, %zu bytes\n",
           snap, snap / step_ms, size);
    printf("module restore (setup + image)    %9.1f ms  %.2f steps of the plain run\n", restore,
           restore / step_ms);
    onescope_world_free(w);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_box3d_module SCENE.json REC.ostm REC_ROWS.ostm [REPEATS]\n");
        return 2;
    }
    int repeats = argc > 4 ? atoi(argv[4]) : 3;
    onescope_error err;
    onescope_buffer bytes;
    onescope_soa_scene *scene;
    onescope_recording *r;
    if (onescope_file_read(argv[1], 0, NULL, &bytes, &err) != ONESCOPE_OK) die(&err);
    if (onescope_soa_scene_parse(bytes.data, bytes.size, argv[1], NULL, &scene, &err) !=
        ONESCOPE_OK)
        die(&err);
    if (onescope_recording_read_file(argv[2], NULL, &r, &err) != ONESCOPE_OK) die(&err);
    double plain = 1e300, ver = 1e300, rows = 1e300;
    for (int k = 0; k < repeats; k++) {
        double a = plain_run(scene, r), b = verify_ms(argv[2]), c = verify_ms(argv[3]);
        plain = a < plain ? a : plain;
        ver = b < ver ? b : ver;
        rows = c < rows ? c : rows;
    }
    uint32_t steps = onescope_recording_step_count(r);
    printf("scene %s: %u bodies, %u steps (best of %d)\n", argv[1], scene->body_count, steps,
           repeats);
    printf("plain Box3D run (inputs applied)  %9.1f ms\n", plain);
    printf("verify                            %9.1f ms  %.3fx the plain run\n", ver, ver / plain);
    printf("verify, file with entity rows     %9.1f ms  %.3fx verify\n", rows, rows / ver);

    /* Box3D's own recording of the same run (a world built with Box3D's calls from the same
     * descriptors, the same actions), and its validation */
    b3WorldDef wd = b3DefaultWorldDef();
    wd.gravity =
        (b3Vec3){scene->world.gravity[0], scene->world.gravity[1], scene->world.gravity[2]};
    wd.workerCount = 1;
    b3WorldId world = b3CreateWorld(&wd);
    b3BodyId *ids = calloc(scene->body_count, sizeof *ids);
    for (uint32_t i = 0; i < scene->body_count; i++) {
        const onescope_soa_body_def *d = &scene->bodies[i].def;
        b3BodyDef bd = b3DefaultBodyDef();
        bd.type = d->kind == ONESCOPE_SOA_STATIC_BOX ? b3_staticBody : b3_dynamicBody;
        bd.position = (b3Pos){d->position[0], d->position[1], d->position[2]};
        ids[i] = b3CreateBody(world, &bd);
        b3ShapeDef sd = b3DefaultShapeDef();
        sd.density = d->density;
        if (d->kind == ONESCOPE_SOA_SPHERE) {
            b3Sphere sp = {{0, 0, 0}, d->size[0]};
            b3CreateSphereShape(ids[i], &sd, &sp);
        } else {
            b3BoxHull h = b3MakeBoxHull(d->size[0], d->size[1], d->size[2]);
            b3CreateHullShape(ids[i], &sd, &h.base);
        }
    }
    b3Recording *rec = b3CreateRecording(0);
    b3World_StartRecording(world, rec);
    double t0 = now_ms();
    for (uint32_t i = 0; i < steps; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        for (size_t at = 0; at + 17 <= n; at += 17) {
            b3Vec3 x = {f32(p + at + 5), f32(p + at + 9), f32(p + at + 13)};
            b3BodyId b = ids[u32(p + at + 1) - 1];
            if (p[at] == 1)
                b3Body_ApplyForceToCenter(b, x, true);
            else
                b3Body_ApplyLinearImpulseToCenter(b, x, true);
        }
        b3World_Step(world, scene->dt, scene->substeps);
    }
    double native = now_ms() - t0;
    b3World_StopRecording(world);
    int size = b3Recording_GetSize(rec);
    t0 = now_ms();
    bool valid = b3ValidateReplay(b3Recording_GetData(rec), size, 1);
    double validate = now_ms() - t0;
    printf("Box3D run while recording itself  %9.1f ms\n", native);
    printf("b3ValidateReplay                  %9.1f ms  %.3fx the plain run, says %s\n", validate,
           validate / plain, valid ? "true" : "false");
    printf("Box3D recording                   %9d bytes  %.1f bytes/step\n", size,
           (double)size / steps);
    b3DestroyRecording(rec);
    b3DestroyWorld(world);
    free(ids);
    long ours = 0;
    FILE *f = fopen(argv[2], "rb");
    if (f != NULL) {
        fseek(f, 0, SEEK_END);
        ours = ftell(f);
        fclose(f);
    }
    FILE *g = fopen(argv[3], "rb");
    long ours_rows = 0;
    if (g != NULL) {
        fseek(g, 0, SEEK_END);
        ours_rows = ftell(g);
        fclose(g);
    }
    printf("OSTM v2 recording                 %9ld bytes  %.1f bytes/step\n", ours,
           (double)ours / steps);
    printf("OSTM v2 with entity rows          %9ld bytes  %.1f bytes/step\n", ours_rows,
           (double)ours_rows / steps);
    snapshot_costs(r, repeats, plain / steps);
    onescope_recording_free(r);
    onescope_soa_scene_free(scene);
    onescope_buffer_free(&bytes);
    return 0;
}
