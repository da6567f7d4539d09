/* Writes the seed corpora of the fuzz harnesses: fuzz_make_seeds DIR makes
 * DIR/<target>/ for every harness of this folder. Everything is deterministic,
 * so the committed tests/fuzz/corpus/ is exactly what this program makes (ctest
 * fuzz_seeds_reproducible checks it). Regenerate with:
 *   build/tests/fuzz/fuzz_make_seeds tests/fuzz/corpus
 * Valid caches come from the library's writer; invalid ones are valid ones with one field
 * broken, so each seed starts the fuzzer next to one rule. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onescope/onescope.h"

static const char *out_dir;
static int failures;

static void put(const char *target, const char *name, const void *data, size_t size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        failures++;
        return;
    }
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write\n", path);
        failures++;
    }
}

static uint64_t rng = 0x6F6E6573636F7065u; /* splitmix64 */
static uint64_t next_rand(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A valid cache; texts and names exercise multi-byte UTF-8, some entities are absent. */
static onescope_buffer make_cache(uint8_t dims, uint32_t entities, uint32_t frames, int texts) {
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_buffer out = {NULL, 0, NULL};
    if (onescope_pose_cache_create(dims, entities, frames, NULL, &c, &err) != ONESCOPE_OK) {
        failures++;
        return out;
    }
    c->start_step = texts ? 1000 : 0;
    c->metres_per_unit = texts ? 0.01 : 0.0;
    static const char *const t[ONESCOPE_POSE_TEXT_COUNT] = {
        "cm", "onescope.test", "0.1.0", "sc\xc3\xa8ne", "run.ostm", "\xe2\x9c\x93 label"};
    for (int i = 0; texts && i < ONESCOPE_POSE_TEXT_COUNT; i++)
        onescope_pose_cache_set_text(c, (onescope_pose_text_field)i, t[i], strlen(t[i]), &err);
    for (uint32_t i = 0; i < entities; i++) {
        onescope_pose_entity *e = &c->entities[i];
        e->id = texts ? 1000 + 7 * (uint64_t)i : (uint64_t)i + 1;
        e->shape = (uint8_t)(i % 4);
        for (int k = 0; k < 3; k++) e->size[k] = 0.5f * (float)(k + 1);
        char name[32];
        snprintf(name, sizeof name, texts ? "body-%u-\xf0\x9f\x8e\xb1" : "b%u", (unsigned)i);
        onescope_pose_cache_set_entity_name(c, i, name, strlen(name), &err);
    }
    for (uint32_t f = 0; f < frames; f++) {
        for (uint32_t i = 0; i < entities; i++) {
            onescope_pose *p = &c->poses[(size_t)f * entities + i];
            if ((f + i) % 5 == 3) {
                p->position[0] = NAN; /* absent */
                continue;
            }
            for (int k = 0; k < 3; k++) p->position[k] = (float)(f * 10 + i) + 0.25f * (float)k;
            if (dims == 2) p->position[2] = 0;
            if (i % 2) {
                p->rotation[0] = p->rotation[3] = 0; /* the all-zero identity */
            } else {
                p->rotation[2] = 0.6f;
                p->rotation[3] = 0.8f;
            }
        }
    }
    if (onescope_pose_cache_write(c, NULL, &out, &err) != ONESCOPE_OK) failures++;
    onescope_pose_cache_free(c);
    return out;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* base with one change: n bytes at offset replaced. */
static void put_patched(const char *name, const onescope_buffer *base, size_t offset,
                        const void *bytes, size_t n) {
    uint8_t *copy = malloc(base->size);
    if (copy == NULL || offset + n > base->size) {
        failures++;
        free(copy);
        return;
    }
    memcpy(copy, base->data, base->size);
    memcpy(copy + offset, bytes, n);
    put("ospc_parse", name, copy, base->size);
    free(copy);
}

/* base followed by the options trailer of fuzz_helpers.h. */
static void put_with_trailer(const char *name, const onescope_buffer *base, uint32_t limit,
                             uint16_t fail_at) {
    size_t n = base->size + 11;
    uint8_t *copy = malloc(n);
    if (copy == NULL) {
        failures++;
        return;
    }
    memcpy(copy, base->data, base->size);
    memcpy(copy + base->size, "FZOP", 4);
    put_u32(copy + base->size + 4, limit);
    copy[base->size + 8] = (uint8_t)fail_at;
    copy[base->size + 9] = (uint8_t)(fail_at >> 8);
    copy[base->size + 10] = 0;
    put("ospc_parse", name, copy, n);
    free(copy);
}

static void ospc_parse_seeds(void) {
    onescope_buffer small = make_cache(3, 1, 1, 0);
    onescope_buffer flat = make_cache(2, 3, 4, 0);
    onescope_buffer rich = make_cache(3, 5, 6, 1);
    put("ospc_parse", "valid-3d-1x1", small.data, small.size);
    put("ospc_parse", "valid-2d-3x4", flat.data, flat.size);
    put("ospc_parse", "valid-3d-5x6-texts", rich.data, rich.size);

    /* Header rules, at the offsets docs/pose-cache.md gives. */
    put_patched("bad-magic", &small, 0, "OSPD", 4);
    put_patched("bad-version", &small, 4, "\x02\x00", 2);
    put_patched("bad-flags", &small, 6, "\x01\x00", 2);
    put_patched("bad-dims", &small, 8, "\x04", 1);
    put_patched("bad-reserved8", &small, 9, "\x01", 1);
    put_patched("bad-reserved16", &small, 10, "\x00\x01", 2);
    put_patched("zero-entities", &small, 12, "\x00\x00\x00\x00", 4);
    put_patched("huge-entities", &small, 12, "\xff\xff\x00\x00", 4);
    put_patched("zero-frames", &small, 16, "\x00\x00\x00\x00", 4);
    put_patched("huge-frames", &small, 16, "\x00\x00\x40\x00", 4);
    put_patched("negative-start", &small, 27, "\x80", 1);
    put_patched("nan-mpu", &small, 28, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);
    put_patched("negative-mpu", &small, 28, "\x00\x00\x00\x00\x00\x00\xf0\xbf", 8);
    /* Texts start at 36: the first text's length, then bytes. */
    put_patched("long-text", &small, 36, "\x01\x04", 2);
    put_patched("bad-utf8-text", &rich, 38, "\xc0", 1);
    /* The only entity of small starts at 36 + 6 x 2 = 48. */
    put_patched("zero-id", &small, 48, "\x00", 1);
    put_patched("bad-shape", &small, 56, "\x09", 1);
    put_patched("bad-padding", &small, 57, "\x01", 1);
    put_patched("inf-size", &small, 60, "\x00\x00\x80\x7f", 4);
    put_patched("bad-utf8-name", &small, 74, "\xff", 1);
    /* small's pose: position x at 76 (after the name "b0"). */
    put_patched("inf-position", &small, 76, "\x00\x00\x80\x7f", 4);
    put_patched("nan-rotation", &small, 88, "\x00\x00\xc0\x7f", 4);
    put_patched("absent-nan-rest", &small, 76, "\x00\x00\xc0\x7f\x00\x00\x80\x7f", 8);
    {
        uint8_t dup[8];
        memcpy(dup, flat.data + 48, 8); /* entity 0's id into entity 1 (48 + 26 + 2) */
        put_patched("duplicate-id", &flat, 76, dup, 8);
    }
    /* Lengths: cut short, one byte too many. */
    for (size_t cut = 0; cut < small.size; cut += 9) {
        char name[32];
        snprintf(name, sizeof name, "truncated-%02zu", cut);
        put("ospc_parse", name, small.data, cut);
    }
    put("ospc_parse", "truncated-last-byte", small.data, small.size - 1);
    put("ospc_parse", "truncated-name", small.data, 75);
    {
        uint8_t *more = malloc(small.size + 1);
        if (more != NULL) {
            memcpy(more, small.data, small.size);
            more[small.size] = 0;
            put("ospc_parse", "trailing-byte", more, small.size + 1);
            free(more);
        }
    }
    /* Options from the tail: a limit under the size, failing allocations. */
    put_with_trailer("opt-limit-under", &small, (uint32_t)small.size - 1, 0);
    put_with_trailer("opt-limit-exact", &small, (uint32_t)small.size, 0);
    put_with_trailer("opt-limit-zero", &small, 0, 0);
    for (uint16_t n = 1; n <= 4; n++) {
        char name[32];
        snprintf(name, sizeof name, "opt-fail-alloc-%u", (unsigned)n);
        put_with_trailer(name, &rich, 1u << 20, n);
    }
    onescope_buffer_free(&small);
    onescope_buffer_free(&flat);
    onescope_buffer_free(&rich);
}

/* ---- OSTM ---- */

/* A replay from the API: impulses, teleports, a removal, a gravity change and a spawn;
 * optionally a link block, a start snapshot and hash rows. */
static onescope_buffer make_replay(uint8_t dims, uint8_t bodies, uint32_t steps, int link,
                                   int snapshot, int hashes) {
    onescope_sim_setup setup = {dims, bodies, 1234u + bodies};
    onescope_link_block lb = {ONESCOPE_LINK_ROLE_SENDER, 0, 3};
    onescope_replay *r = NULL;
    onescope_error err;
    onescope_buffer out = {NULL, 0, NULL};
    if (onescope_replay_create(&setup, link ? &lb : NULL, NULL, &r, &err) != ONESCOPE_OK) {
        failures++;
        return out;
    }
    if (snapshot) {
        onescope_sim_def def = onescope_sim_def_default();
        def.setup = setup;
        onescope_sim *sim = NULL;
        uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
        if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK) failures++;
        for (int i = 0; sim != NULL && i < 3; i++) onescope_sim_step(sim, NULL, 0, &err);
        size_t n = sim ? onescope_sim_snapshot(sim, snap, sizeof snap) : 0;
        if (n == 0 || onescope_replay_set_start_snapshot(r, snap, n, &err) != ONESCOPE_OK)
            failures++;
        onescope_sim_free(sim);
    }
    for (uint32_t i = 0; i < steps; i++) {
        onescope_op ops[3];
        size_t n = 0;
        memset(ops, 0, sizeof ops);
        switch (i % 6) {
            case 0:
                ops[n].code = ONESCOPE_OP_IMPULSE;
                ops[n].body = (uint8_t)(i % bodies);
                ops[n].value[0] = 50;
                ops[n].value[1] = -20;
                ops[n].value[2] = dims == 3 ? 7 : 0;
                n++;
                break;
            case 1:
                ops[n].code = ONESCOPE_OP_TELEPORT;
                ops[n].body = 0;
                ops[n].value[0] = 5000;
                ops[n].value[1] = 9000;
                n++;
                break;
            case 2:
                ops[n].code = ONESCOPE_OP_GRAVITY;
                ops[n].value[0] = -15;
                n++;
                ops[n].code = ONESCOPE_OP_SPAWN;
                ops[n].value[0] = 100;
                ops[n].value[1] = 200;
                n++;
                break;
            case 3: break; /* an empty input */
            case 4:
                ops[n].code = ONESCOPE_OP_REMOVE;
                ops[n].body = (uint8_t)(bodies - 1);
                n++;
                break;
            default:
                ops[n].code = ONESCOPE_OP_IMPULSE;
                ops[n].body = 0;
                ops[n].value[1] = 400;
                n++;
                break;
        }
        if (onescope_replay_append_ops(r, ops, n, &err) != ONESCOPE_OK) failures++;
    }
    if (hashes && onescope_replay_compute_hash_rows(r, &err) != ONESCOPE_OK) failures++;
    if (onescope_replay_write(r, NULL, &out, &err) != ONESCOPE_OK) failures++;
    onescope_replay_free(r);
    return out;
}

static void ostm_parse_seeds(void) {
    onescope_buffer plain = make_replay(3, 4, 12, 0, 0, 1);
    onescope_buffer flat = make_replay(2, 2, 7, 1, 1, 1);
    onescope_buffer bare = make_replay(3, 1, 3, 0, 0, 0);
    put("ostm_parse", "valid-3d-hashes", plain.data, plain.size);
    put("ostm_parse", "valid-2d-link-snapshot", flat.data, flat.size);
    put("ostm_parse", "valid-no-hashes", bare.data, bare.size);
    /* One changed byte every few bytes of the richest file; cuts of the plain one. */
    for (size_t at = 0; at < flat.size; at += 5) {
        uint8_t *copy = malloc(flat.size);
        if (copy == NULL) {
            failures++;
            break;
        }
        memcpy(copy, flat.data, flat.size);
        copy[at] ^= (uint8_t)(0x01u << (at % 8));
        char name[32];
        snprintf(name, sizeof name, "flip-%03zu", at);
        put("ostm_parse", name, copy, flat.size);
        free(copy);
    }
    for (size_t cut = 0; cut < plain.size; cut += 11) {
        char name[32];
        snprintf(name, sizeof name, "truncated-%03zu", cut);
        put("ostm_parse", name, plain.data, cut);
    }
    /* A wrong hash row: verify must name it. */
    if (plain.size >= 8) {
        uint8_t *copy = malloc(plain.size);
        if (copy != NULL) {
            memcpy(copy, plain.data, plain.size);
            copy[plain.size - 1] ^=
                0x80; /* the last bytes are inputs or rows: either way a change */
            put("ostm_parse", "changed-last-byte", copy, plain.size);
            free(copy);
        }
    }
    onescope_buffer_free(&plain);
    onescope_buffer_free(&flat);
    onescope_buffer_free(&bare);
}

/* ---- OTS (.pvt, .anm) ---- */

static const char ots_clip[] =
    "{\n  \"format\": \"octo_anm\",\n  \"version\": 4,\n  \"source\": \"maya\",\n"
    "  \"frame_range\": [1, 12],\n  \"fps\": 24.0,\n"
    "  \"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\",\n"
    "    \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
    "\"quat_wxyz\"},\n"
    "  \"pegs\": [\n"
    "    {\"name\": \"root-P\", \"parent\": null, \"rest_pivot\": [0, 0, 0], \"rest_rotation\": "
    "[1, 0, 0, 0],\n"
    "     \"keyframes\": [\n"
    "       {\"frame\": 1, \"pos\": [0, 0, 0], \"rot_quat\": [1, 0, 0, 0], \"scl\": [1, 1, 1], "
    "\"interp\": \"LINEAR\"},\n"
    "       {\"frame\": 12, \"pos\": [11, 0, 0], \"rot_quat\": [1, 0, 0, 0], \"scl\": [1, 1, 1], "
    "\"interp\": \"LINEAR\"}\n"
    "     ]},\n"
    "    {\"name\": \"hip-P\", \"path\": \"Top/hip-P\", \"parent\": \"root-P\", \"rest_pivot\": "
    "[0, 1, 0],\n"
    "     \"rest_rotation\": [1, 0, 0, 0], \"rig\": \"ship\",\n"
    "     \"keyframes\": [\n"
    "       {\"frame\": 1, \"pos\": [0, 1, 0], \"rot\": [0, 0, 0], \"scl\": [1, 1, 1], \"interp\": "
    "\"BEZIER\",\n"
    "        \"handles\": {\"pos\": [[[1, 0], [4, 0]], [[1, 1], [4, 1]], []], \"rot\": [], "
    "\"scl\": []}}\n"
    "     ]}\n"
    "  ],\n"
    "  \"cameras\": [\n"
    "    {\"name\": \"cam\", \"peg\": \"hip-P\", \"is_default\": true, \"fov\": 40, \"fov_axis\": "
    "\"vertical\",\n"
    "     \"override_fov\": false, \"near_plane\": 0.1, \"far_plane\": 100, \"near_field\": 1, "
    "\"far_field\": 100,\n"
    "     \"angle\": 0, \"offset_x\": 0, \"offset_y\": 0, \"offset_z\": 12, \"pivot_x\": 0, "
    "\"pivot_y\": 0}\n"
    "  ]\n}\n";

static const char ots_rig[] =
    "{\"format\": \"octo_pvt\", \"version\": 4, \"source\": \"harmony\", \"name\": \"ship\", "
    "\"scale_factor\": 2.0,\n"
    " \"pivot_space\": \"local\", \"fps\": 24.0,\n"
    " \"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\", "
    "\"rot_order\": \"xyz\",\n"
    "   \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"},\n"
    " \"bones\": [{\"name\": \"hip\", \"parent\": null, \"pivot\": [0, 2, 0], \"rotation\": [1, 0, "
    "0, 0]},\n"
    "           {\"name\": \"knee\", \"parent\": \"hip\", \"pivot\": [0, 1, 0], \"rotation\": "
    "[0.7071067811865476, 0.7071067811865476, 0, 0]}],\n"
    " \"cameras\": []}\n";

/* text with the first occurrence of from replaced by to (from must occur). */
static void put_replaced(const char *target, const char *name, const char *text, const char *from,
                         const char *to) {
    const char *at = strstr(text, from);
    if (at == NULL) {
        fprintf(stderr, "%s: '%s' not found\n", name, from);
        failures++;
        return;
    }
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    if (out == NULL) {
        failures++;
        return;
    }
    memcpy(out, text, head);
    memcpy(out + head, to, strlen(to));
    strcpy(out + head + strlen(to), at + strlen(from));
    put(target, name, out, n);
    free(out);
}

static void ots_seeds(void) {
    put("anm_parse", "valid-clip", ots_clip, strlen(ots_clip));
    put_replaced("anm_parse", "version-3", ots_clip, "\"version\": 4", "\"version\": 3");
    put_replaced("anm_parse", "duplicate-key", ots_clip, "\"fps\": 24.0,",
                 "\"fps\": 24.0, \"fps\": 25.0,");
    put_replaced("anm_parse", "bad-enum", ots_clip, "\"BEZIER\"", "\"SMOOTH\"");
    put_replaced("anm_parse", "infinite", ots_clip, "[1, 12]", "[1, 1e999]");
    put_replaced("anm_parse", "unknown-parent", ots_clip, "\"parent\": \"root-P\"",
                 "\"parent\": \"nobody\"");
    put_replaced("anm_parse", "syntax", ots_clip, "\"pegs\": [", "\"pegs\": [,");
    put_replaced("anm_parse", "bad-utf8", ots_clip, "maya", "ma\xc3(a");
    put("anm_parse", "truncated", ots_clip, strlen(ots_clip) / 2);
    put("pvt_parse", "valid-rig", ots_rig, strlen(ots_rig));
    put_replaced("pvt_parse", "wrong-format", ots_rig, "octo_pvt", "octo_anm");
    put_replaced("pvt_parse", "cycle", ots_rig, "\"parent\": null", "\"parent\": \"knee\"");
    put_replaced("pvt_parse", "wrong-type", ots_rig, "\"scale_factor\": 2.0",
                 "\"scale_factor\": \"2\"");
    put_replaced("pvt_parse", "nul-in-name", ots_rig, "\"ship\"", "\"sh\\u0000ip\"");
    static const char minimal[] = "{\"format\": \"octo_pvt\"}";
    put("pvt_parse", "format-only", minimal, strlen(minimal));
    static const char deep[] = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
    put("pvt_parse", "nested-arrays", deep, strlen(deep));
    put("pvt_parse", "empty", "", 0);
}

/* ---- the live stream ---- */

/* A stream of a world: probe, steps (each with the host's hash after it), optionally END. */
static onescope_buffer make_stream(uint8_t dims, uint8_t bodies, int steps, int link, int end) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = dims;
    def.setup.body_count = bodies;
    def.setup.seed = 99;
    if (link) def.link = (onescope_link_block){ONESCOPE_LINK_ROLE_FIELDS, 0, 0};
    onescope_sim *sim = NULL;
    onescope_live_encoder *enc = NULL;
    onescope_error err;
    onescope_buffer out = {NULL, 0, NULL};
    if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK ||
        onescope_live_encoder_create(NULL, &enc, &err) != ONESCOPE_OK ||
        onescope_live_encode_probe(enc, sim, &err) != ONESCOPE_OK) {
        failures++;
        goto done;
    }
    for (int i = 0; i < steps; i++) {
        uint8_t input[14];
        onescope_op op = {ONESCOPE_OP_IMPULSE, 0, {30, 60, 0}};
        size_t n = i % 2 ? onescope_op_encode(dims, &op, input, sizeof input, &err) : 0;
        uint64_t at = onescope_sim_host_step(sim);
        if (onescope_sim_step(sim, input, n, &err) != ONESCOPE_OK ||
            onescope_live_encode_step(enc, at, input, n, onescope_sim_hash(sim), &err) !=
                ONESCOPE_OK) {
            failures++;
            goto done;
        }
    }
    if (end && onescope_live_encode_end(enc, onescope_sim_host_step(sim), &err) != ONESCOPE_OK)
        failures++;
    if (onescope_live_encoder_take(enc, &out, &err) != ONESCOPE_OK) failures++;
done:
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    return out;
}

/* A version-2 stream of the test module (it names onescope.test 1): the first probe without a
 * snapshot, a second one with the world's snapshot, steps with the hash after each. */
static onescope_buffer make_stream_v2(int steps) {
    static const uint8_t setup[6] = {2, 2, 99, 0, 0, 0};
    onescope_world *w = NULL;
    onescope_live_encoder *enc = NULL;
    onescope_error err;
    onescope_buffer out = {NULL, 0, NULL};
    if (onescope_world_create(onescope_module_test(), setup, sizeof setup, NULL, &w, &err) !=
            ONESCOPE_OK ||
        onescope_live_encoder_create_module("onescope.test", "1", NULL, &enc, &err) !=
            ONESCOPE_OK ||
        onescope_live_encode_probe_blob(enc, 0, setup, sizeof setup, NULL, 0, &err) !=
            ONESCOPE_OK) {
        failures++;
        goto done;
    }
    for (int i = 0; i < steps; i++) {
        if (i == steps / 2) {
            onescope_buffer snap;
            if (onescope_world_snapshot(w, NULL, &snap, &err) != ONESCOPE_OK) {
                failures++;
                goto done;
            }
            onescope_code rc = onescope_live_encode_probe_blob(
                enc, (uint64_t)i, setup, sizeof setup, snap.data, snap.size, &err);
            onescope_buffer_free(&snap);
            if (rc != ONESCOPE_OK) {
                failures++;
                goto done;
            }
        }
        uint8_t input[14];
        onescope_op op = {ONESCOPE_OP_IMPULSE, 1, {30, 60, 0}};
        size_t n = i % 2 ? onescope_op_encode(2, &op, input, sizeof input, &err) : 0;
        if (onescope_world_step(w, input, n, &err) != ONESCOPE_OK ||
            onescope_live_encode_step(enc, (uint64_t)i, input, n, onescope_world_hash(w), &err) !=
                ONESCOPE_OK) {
            failures++;
            goto done;
        }
    }
    if (onescope_live_encode_end(enc, (uint64_t)steps, &err) != ONESCOPE_OK ||
        onescope_live_encoder_take(enc, &out, &err) != ONESCOPE_OK)
        failures++;
done:
    onescope_live_encoder_free(enc);
    onescope_world_free(w);
    return out;
}

static void live_seeds(void) {
    onescope_buffer a = make_stream(3, 3, 6, 0, 1);
    onescope_buffer b = make_stream(2, 2, 3, 1, 1);
    onescope_buffer c = make_stream(3, 1, 2, 0, 0);
    put("live_decode", "stream-3d", a.data, a.size);
    put("live_decode", "stream-2d-fields", b.data, b.size);
    put("live_decode", "stream-no-end", c.data, c.size);
    for (size_t cut = 0; cut < a.size; cut += 23) {
        char name[32];
        snprintf(name, sizeof name, "cut-%03zu", cut);
        put("live_decode", name, a.data, cut);
    }
    for (size_t at = 0; at < b.size; at += 13) {
        uint8_t *copy = malloc(b.size);
        if (copy == NULL) {
            failures++;
            break;
        }
        memcpy(copy, b.data, b.size);
        copy[at] ^= 0x5a;
        char name[32];
        snprintf(name, sizeof name, "flip-%03zu", at);
        put("live_decode", name, copy, b.size);
        free(copy);
    }
    onescope_buffer_free(&a);
    onescope_buffer_free(&b);
    onescope_buffer_free(&c);
    /* version 2: whole, cut, and flipped through its module texts and records */
    onescope_buffer m = make_stream_v2(6);
    put("live_decode", "v2-stream", m.data, m.size);
    for (size_t cut = 0; cut < m.size; cut += 29) {
        char name[32];
        snprintf(name, sizeof name, "v2-cut-%03zu", cut);
        put("live_decode", name, m.data, cut);
    }
    for (size_t at = 4; at < m.size; at += 17) {
        uint8_t *copy = malloc(m.size);
        if (copy == NULL) {
            failures++;
            break;
        }
        memcpy(copy, m.data, m.size);
        copy[at] ^= 0x5a;
        char name[32];
        snprintf(name, sizeof name, "v2-flip-%03zu", at);
        put("live_decode", name, copy, m.size);
        free(copy);
    }
    onescope_buffer_free(&m);
}

static void random_seeds(const char *target, int count, size_t max_len) {
    for (int i = 0; i < count; i++) {
        size_t n = 1 + (size_t)(next_rand() % max_len);
        uint8_t buf[1024];
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)next_rand();
        char name[32];
        snprintf(name, sizeof name, "random-%02d", i);
        put(target, name, buf, n);
    }
}

static void round_trip_seeds(void) {
    /* dims 3, 2 entities, 2 frames, then mostly ordinary choices. */
    static const uint8_t plain[] = {2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0};
    put("ospc_round_trip", "plain", plain, sizeof plain);
    static const uint8_t texts[] = {1, 1,    1, 5,   0,   0,   0, 0,   0,    0,    0,   0,
                                    4, 1,    3, 'a', 'b', 'c', 1, 2,   0xc3, 0xa9, 0,   0,
                                    1, 0x1f, 1, 0,   0,   17,  4, 'n', 'a',  'm',  'e', 6,
                                    2, 2,    2, 2,   2,   2,   2, 2,   2,    2,    2,   2};
    put("ospc_round_trip", "texts", texts, sizeof texts);
    static const uint8_t nan_pose[] = {2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 3, 9, 0, 0, 0, 0, 9, 0, 0, 0, 0, 9};
    put("ospc_round_trip", "nan-pose", nan_pose, sizeof nan_pose);
    static const uint8_t bad[] = {0, 0, 0};
    put("ospc_round_trip", "refused-dims", bad, sizeof bad);
    /* dims, entities, frames, start step (8), mpu choice and value, 6 text choices, then
     * each entity sets a one-byte id: 7 twice. */
    static const uint8_t dup[] = {2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 3, 7, 3, 7};
    put("ospc_round_trip", "duplicate-ids", dup, sizeof dup);
    random_seeds("ospc_round_trip", 12, 200);
}

/* diff_stream: mode byte, u32 length of A, A, B (see diff_stream.c). */
static void put_pair(const char *name, uint8_t mode, const onescope_buffer *a,
                     const onescope_buffer *b) {
    size_t n = 5 + a->size + b->size;
    uint8_t *buf = malloc(n);
    if (buf == NULL) {
        failures++;
        return;
    }
    buf[0] = mode;
    put_u32(buf + 1, (uint32_t)a->size);
    memcpy(buf + 5, a->data, a->size);
    memcpy(buf + 5 + a->size, b->data, b->size);
    put("diff_stream", name, buf, n);
    free(buf);
}

static void diff_stream_seeds(void) {
    onescope_buffer rich = make_cache(3, 3, 4, 1), plain = make_cache(2, 2, 3, 0);
    put_pair("same-cache", 0, &rich, &rich);
    put_pair("other-header", 0, &plain, &rich);
    /* the last pose's x moved by a little: exact mode finds it, a loose tolerance does not */
    onescope_buffer moved = rich;
    uint8_t *copy = malloc(rich.size);
    if (copy == NULL) {
        failures++;
        return;
    }
    memcpy(copy, rich.data, rich.size);
    copy[rich.size - ONESCOPE_OSPC_POSE_BYTES] ^= 0x01;
    moved.data = copy;
    put_pair("moved-exact", 0, &rich, &moved);
    put_pair("moved-tolerance", 0x02 | 0x08 | 0x40, &rich, &moved);
    free(copy);
    /* a replay against its own ghost (the same bodies) and against an unrelated cache */
    onescope_buffer rb = make_replay(2, 2, 7, 0, 0, 1);
    onescope_replay *r = NULL;
    onescope_pose_cache *g = NULL;
    onescope_error err;
    onescope_ghost_options o = onescope_ghost_options_default();
    o.from = 0;
    o.frames = 8;
    onescope_buffer gb = {NULL, 0, NULL};
    if (onescope_replay_parse(rb.data, rb.size, "seed", NULL, &r, &err) != ONESCOPE_OK ||
        onescope_ghost_create(r, &o, NULL, &g, &err) != ONESCOPE_OK ||
        onescope_pose_cache_write(g, NULL, &gb, &err) != ONESCOPE_OK)
        failures++;
    else
        put_pair("replay-ghost", 1, &rb, &gb);
    put_pair("replay-cache", 1, &rb, &plain);
    onescope_pose_cache_free(g);
    onescope_replay_free(r);
    onescope_buffer_free(&gb);
    onescope_buffer_free(&rb);
    onescope_buffer_free(&rich);
    onescope_buffer_free(&plain);
}

static void bytes_reader_seeds(void) {
    /* script length, script (one op per byte, see bytes_reader.c), then the buffer. */
    static const uint8_t all_ops[] = {11, 0,  1,  2,  3,  4,  5,  6,  7,  8,  3,  9,  10, 1,  2,
                                      3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                                      18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
                                      33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 0,  0};
    put("bytes_reader", "all-ops", all_ops, sizeof all_ops);
    static const uint8_t zeros[] = {2, 9, 4, 0, 0, 1, 0};
    put("bytes_reader", "zeros-reserved", zeros, sizeof zeros);
    static const uint8_t utf8[] = {0,    'a',  0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x8e,
                                   0xb1, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xf4, 0x90, 0x80, 0x80};
    put("bytes_reader", "utf8-mix", utf8, sizeof utf8);
    static const uint8_t short_read[] = {1, 3, 1, 2, 3};
    put("bytes_reader", "short-read", short_read, sizeof short_read);
    random_seeds("bytes_reader", 8, 120);
}

/* ---- module recordings (OSTM v2) ----
 * Made by the library's writer in tool mode from a test-module replay's setup and inputs: the
 * finished file, or (partial) the .partial a writer freed without close leaves; with entity
 * rows, and with a keyframe every keyframes steps (0: none). */
static onescope_buffer make_recording(uint8_t dims, uint8_t bodies, uint32_t steps, int snapshot,
                                      int partial, int entity_rows, uint32_t keyframes) {
    onescope_buffer out = {NULL, 0, NULL};
    onescope_buffer v1 = make_replay(dims, bodies, steps, 0, snapshot, 1);
    onescope_replay *r = NULL;
    onescope_error err;
    if (onescope_replay_parse(v1.data, v1.size, "seed", NULL, &r, &err) != ONESCOPE_OK) {
        failures++;
        onescope_buffer_free(&v1);
        return out;
    }
    char path[1024], partial_path[1100];
    snprintf(path, sizeof path, "%s/.seed-recording.ostm", out_dir);
    snprintf(partial_path, sizeof partial_path, "%s.partial", path);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = onescope_module_test();
    def.setup = (const uint8_t *)v1.data + 12; /* the test module's setup blob: bytes 12.. */
    def.setup_size = 6;
    def.start_snapshot = onescope_replay_start_snapshot(r, &def.snapshot_size);
    def.entity_rows = entity_rows != 0;
    def.keyframe_every = keyframes;
    onescope_replay_writer_options o = onescope_replay_writer_options_default();
    o.flush_every = 1;
    onescope_recording_writer *w = NULL;
    int ok = onescope_recording_writer_open(path, &def, &o, NULL, &w, &err) == ONESCOPE_OK;
    for (uint32_t i = 0; ok && i < steps; i++) {
        const uint8_t *p;
        size_t n;
        ok = onescope_replay_step_input(r, i, &p, &n) == ONESCOPE_OK &&
             onescope_recording_writer_append(w, p, n, NULL, &err) == ONESCOPE_OK;
    }
    if (ok && !partial) ok = onescope_recording_writer_close(w, NULL, &err) == ONESCOPE_OK;
    onescope_recording_writer_free(w);
    if (!ok ||
        onescope_file_read(partial ? partial_path : path, 0, NULL, &out, &err) != ONESCOPE_OK)
        failures++;
    remove(path);
    remove(partial_path);
    onescope_replay_free(r);
    onescope_buffer_free(&v1);
    return out;
}

/* Keyframe index's offset (its length field) in a recording's bytes, from the parsed file:
 * its table's ids less its entity count, its snapshot and its two lengths. 0 when absent. */
static size_t keyframe_offset(const onescope_buffer *b, uint32_t index, size_t *count_at) {
    onescope_recording *r = NULL;
    onescope_error err;
    onescope_keyframe k;
    size_t at = 0;
    if (onescope_recording_parse(b->data, b->size, "seed", NULL, &r, &err) == ONESCOPE_OK &&
        onescope_recording_keyframe(r, index, &k) == ONESCOPE_OK) {
        size_t setup_at = 12 + 1 + strlen(onescope_recording_module_id(r)) + 1 +
                          strlen(onescope_recording_module_version(r)) + 4;
        at = (size_t)(k.ids - onescope_recording_setup(r, NULL)) + setup_at - 12 - k.snapshot_size;
        *count_at = at + 8 + k.snapshot_size;
    }
    onescope_recording_free(r);
    if (at == 0) failures++;
    return at;
}

/* With keyframes: entity rows and a keyframe every 4 steps, a keyframe every 5 without entity
 * rows, one rule of a keyframe broken each; partials whole, cut right after the last keyframe
 * and torn just after it. */
static void keyframe_seeds(void) {
    onescope_buffer keys = make_recording(3, 4, 16, 0, 0, 1, 4);
    onescope_buffer bare = make_recording(2, 3, 12, 0, 0, 0, 5);
    onescope_buffer open = make_recording(3, 3, 14, 0, 1, 1, 4);
    onescope_buffer done = make_recording(3, 3, 14, 0, 0, 1, 4); /* its bytes, closed */
    put("recording_parse", "keyframes", keys.data, keys.size);
    put("recording_parse", "keyframes-no-entity-rows", bare.data, bare.size);
    put("recording_parse", "keyframes-open-count", open.data, open.size);
    size_t count0 = 0, count3 = 0;
    size_t k0 = keyframe_offset(&keys, 0, &count0), k3 = keyframe_offset(&keys, 3, &count3);
    uint8_t *copy = malloc(keys.size);
    if (copy == NULL || k0 == 0 || k3 == 0) {
        failures++;
        free(copy);
        onescope_buffer_free(&keys);
        onescope_buffer_free(&bare);
        onescope_buffer_free(&open);
        onescope_buffer_free(&done);
        return;
    }
    /* the keyframe head follows row 0's entity row: 46 + 4 + its length */
    size_t head = 46 + 4 + ((size_t)keys.data[46] | (size_t)keys.data[47] << 8);
    static const struct {
        const char *name;
        int field; /* 0 K, 1 V, 2 the first name's length, 3 keyframe 0's S, 4 its E */
        uint32_t value;
    } broken[] = {{"key-interval-0", 0, 0},   {"key-values-1025", 1, 1025},
                  {"key-name-empty", 2, 0},   {"key-snapshot-length", 3, 0xffffff},
                  {"key-count-length", 4, 1}, {"key-count-huge", 4, 1048577}};
    for (size_t k = 0; k < sizeof broken / sizeof broken[0]; k++) {
        memcpy(copy, keys.data, keys.size);
        size_t at = broken[k].field == 0   ? head
                    : broken[k].field == 1 ? head + 4
                    : broken[k].field == 2 ? head + 6
                    : broken[k].field == 3 ? k0 + 4
                                           : count0;
        uint32_t v = broken[k].value;
        if (broken[k].field == 4 && v == 1) v += (uint32_t)copy[at]; /* one more entity */
        if (broken[k].field == 2)
            copy[at] = (uint8_t)v;
        else if (broken[k].field == 1)
            copy[at] = (uint8_t)v, copy[at + 1] = (uint8_t)(v >> 8);
        else
            put_u32(copy + at, v);
        put("recording_parse", broken[k].name, copy, keys.size);
    }
    put("recording_parse", "key-cut", keys.data, k3 + 20);
    /* the partials: whole, cut right after the last keyframe (row 12) and 2 bytes past it; the
     * offsets from the closed file, the partial's bytes but for the count */
    size_t count2 = 0, o2 = keyframe_offset(&done, 2, &count2);
    put("recording_recover", "keyframes-open", open.data, open.size);
    if (o2 != 0 && open.size == done.size) {
        size_t end2 = o2 + 4 +
                      ((size_t)open.data[o2] | (size_t)open.data[o2 + 1] << 8 |
                       (size_t)open.data[o2 + 2] << 16);
        put("recording_recover", "keyframes-torn-inside", open.data, o2 + 20);
        put("recording_recover", "keyframes-after-one", open.data, end2);
        put("recording_recover", "keyframes-after-one-torn", open.data, end2 + 2);
    }
    free(copy);
    onescope_buffer_free(&keys);
    onescope_buffer_free(&bare);
    onescope_buffer_free(&open);
    onescope_buffer_free(&done);
}

static void recording_seeds(void) {
    onescope_buffer plain = make_recording(3, 4, 24, 0, 0, 0, 0);
    onescope_buffer snap = make_recording(2, 3, 12, 1, 0, 0, 0);
    onescope_buffer open = make_recording(3, 2, 10, 0, 1, 0, 0);
    onescope_buffer rows = make_recording(3, 4, 16, 0, 0, 1, 0);
    put("recording_parse", "valid-3d", plain.data, plain.size);
    put("recording_parse", "valid-2d-snapshot", snap.data, snap.size);
    put("recording_parse", "open-count", open.data, open.size);
    put("recording_parse", "entity-rows", rows.data, rows.size);
    onescope_buffer_free(&rows);
    uint8_t *copy = malloc(plain.size + 1);
    if (copy == NULL) {
        failures++;
        return;
    }
    /* one field broken each: the module's id, its version, the hash after step 3, an input */
    static const struct {
        const char *name;
        size_t at;
        uint8_t value;
    } broken[] = {{"other-module", 13, 'p'},
                  {"other-version", 28, '2'},
                  {"changed-row", 60, 0x5a},
                  {"bad-flags", 6, 0x07}};
    for (size_t k = 0; k < sizeof broken / sizeof broken[0]; k++) {
        memcpy(copy, plain.data, plain.size);
        if (broken[k].at < plain.size) copy[broken[k].at] ^= broken[k].value;
        put("recording_parse", broken[k].name, copy, plain.size);
    }
    memcpy(copy, plain.data, plain.size);
    copy[plain.size] = 0;
    put("recording_parse", "trailing-byte", copy, plain.size + 1);
    put("recording_parse", "cut-in-records", plain.data, plain.size - 5);
    put("recording_recover", "open", open.data, open.size);
    put("recording_recover", "open-torn", open.data, open.size - 3);
    put("recording_recover", "finished", plain.data, plain.size);
    put("recording_recover", "head-only", open.data, 40 < open.size ? 40 : open.size);
    free(copy);
    onescope_buffer_free(&plain);
    onescope_buffer_free(&snap);
    onescope_buffer_free(&open);
    keyframe_seeds();
}

/* Doubles (8 bytes each, little-endian) and a last float for number_round_trip: the edges of
 * the ranges, powers of two and ten, whole numbers, values of floats. */
static void number_seeds(void) {
    static const double edges[] = {5e-324,
                                   2.2250738585072009e-308,
                                   2.2250738585072014e-308,
                                   1.7976931348623157e308,
                                   0.1,
                                   1.0 / 3,
                                   100,
                                   2560,
                                   1e15,
                                   1e16,
                                   1e17,
                                   1e22,
                                   1e23,
                                   9007199254740993.0,
                                   123456792,
                                   -0.0,
                                   1e-5,
                                   0.0001,
                                   1.5e-7,
                                   0x1p-1022,
                                   0x1p1023};
    uint8_t buf[8 * 24 + 4];
    size_t n = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        uint64_t b;
        memcpy(&b, &edges[i], 8);
        for (int k = 0; k < 8; k++) buf[n++] = (uint8_t)(b >> (8 * k));
    }
    float f = 1.17549435e-38f;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    for (int k = 0; k < 4; k++) buf[n++] = (uint8_t)(fb >> (8 * k));
    put("number_round_trip", "edges", buf, n);
    for (int p = -1074; p <= 1023; p += 97) { /* a power of two and its neighbours */
        double v = ldexp(1.0, p);
        double three[3] = {nextafter(v, 0), v, nextafter(v, INFINITY)};
        n = 0;
        for (int j = 0; j < 3; j++) {
            uint64_t b;
            memcpy(&b, &three[j], 8);
            for (int k = 0; k < 8; k++) buf[n++] = (uint8_t)(b >> (8 * k));
        }
        char name[32];
        snprintf(name, sizeof name, "pow2-%d", p);
        put("number_round_trip", name, buf, n);
    }
    random_seeds("number_round_trip", 8, 64);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_make_seeds DIR\n");
        return 2;
    }
    out_dir = argv[1];
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s\n", out_dir, strerror(errno));
        return 1;
    }
    ospc_parse_seeds();
    round_trip_seeds();
    bytes_reader_seeds();
    ostm_parse_seeds();
    ots_seeds();
    live_seeds();
    recording_seeds();
    diff_stream_seeds();
    number_seeds(); /* last: the seeds before keep the random numbers they had */
    return failures ? 1 : 0;
}
