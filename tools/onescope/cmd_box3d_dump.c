/* onescope box3d-dump SCENE.json OUT.ospc --steps N: builds a Box3D SoA world from a small
 * JSON scene, steps it N times and writes every body's pose per step as an OSPC pose cache.
 * Scene format: docs/soa-world.md. */
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "commands.h"

#define SCENE_MAX_STEPS (ONESCOPE_OSPC_MAX_FRAMES - 1u)

/* Copies text, cutting it to fit (messages may be shortened, never overflow). */
static void copy_text(char *dst, size_t size, const char *src) {
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Fills err for a scene problem: line/column when jansson knows them (syntax), else the
 * JSON path of the value in field. */
static int scene_fail(onescope_error *err, const char *name, onescope_code code, const char *field,
                      const char *expected, const char *found_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int scene_fail(onescope_error *err, const char *name, onescope_code code, const char *field,
                      const char *expected, const char *found_fmt, ...) {
    onescope_error_clear(err);
    err->code = code;
    copy_text(err->input, sizeof err->input, name);
    copy_text(err->field, sizeof err->field, field);
    copy_text(err->expected, sizeof err->expected, expected);
    if (found_fmt != NULL) {
        va_list ap;
        va_start(ap, found_fmt);
        vsnprintf(err->found, sizeof err->found, found_fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *json_kind(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "a value";
}

typedef struct scene_ctx {
    const char *name;
    onescope_error *err;
} scene_ctx;

static int get_float(scene_ctx *c, const json_t *v, const char *path, float *out) {
    if (!json_is_number(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, path, "a number", "%s", json_kind(v));
    double d = json_number_value(v);
    if (!(d >= -FLT_MAX && d <= FLT_MAX))
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, path, "a number a float can hold", "%g", d);
    *out = (float)d;
    return 0;
}

static int get_floats(scene_ctx *c, const json_t *v, const char *path, float *out, size_t n) {
    if (!json_is_array(v) || json_array_size(v) != n) {
        char want[48];
        snprintf(want, sizeof want, "an array of %zu numbers", n);
        if (json_is_array(v))
            return scene_fail(c->err, c->name, ONESCOPE_E_LENGTH, path, want, "%zu elements", json_array_size(v));
        return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, path, want, "%s", json_kind(v));
    }
    for (size_t k = 0; k < n; k++) {
        char p[320];
        snprintf(p, sizeof p, "%s[%zu]", path, k);
        if (get_float(c, json_array_get(v, k), p, &out[k]) != 0) return -1;
    }
    return 0;
}

static int get_int(scene_ctx *c, const json_t *v, const char *path, int32_t *out) {
    if (!json_is_integer(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, path, "an integer", "%s", json_kind(v));
    json_int_t i = json_integer_value(v);
    if (i < INT32_MIN || i > INT32_MAX)
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, path, "a 32-bit integer", "%" JSON_INTEGER_FORMAT, i);
    *out = (int32_t)i;
    return 0;
}

static int get_bool(scene_ctx *c, const json_t *v, const char *path, int *out) {
    if (!json_is_boolean(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, path, "true or false", "%s", json_kind(v));
    *out = json_is_true(v) ? 1 : 0;
    return 0;
}

/* Looks up a name in a table of words; -1 and an error when absent. */
static int get_word(scene_ctx *c, const json_t *v, const char *path, const char *const *words, int n,
                    const char *expected, int32_t *out) {
    if (!json_is_string(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, path, expected, "%s", json_kind(v));
    for (int k = 0; k < n; k++)
        if (words[k] != NULL && strcmp(json_string_value(v), words[k]) == 0) {
            *out = k;
            return 0;
        }
    return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, path, expected, "\"%.100s\"", json_string_value(v));
}

static int unknown_key(scene_ctx *c, const char *where, const char *key, const char *known) {
    char p[256];
    snprintf(p, sizeof p, "%s%s%.60s", where, where[0] ? "." : "", key);
    return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, p, known, "an unknown key");
}

static const char *const body_kinds[] = {NULL, "sphere", "capsule", "box", "static_box"};
static const char *const joint_kinds[] = {NULL, "revolute", "spherical", "weld"};

static int parse_body(scene_ctx *c, json_t *o, size_t index, onescope_soa_body_def *b,
                      const char **name) {
    char where[48], p[160];
    snprintf(where, sizeof where, "bodies[%zu]", index);
    if (!json_is_object(o)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, where, "an object", "%s", json_kind(o));
    *b = onescope_soa_body_def_default();
    *name = NULL;
    if (json_object_get(o, "kind") == NULL)
        return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, where, "a \"kind\" key", "none");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        snprintf(p, sizeof p, "%s.%.40s", where, key);
        int rc;
        if (strcmp(key, "kind") == 0)
            rc = get_word(c, v, p, body_kinds, 5, "\"sphere\", \"capsule\", \"box\" or \"static_box\"", &b->kind);
        else if (strcmp(key, "name") == 0) {
            if (!json_is_string(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, p, "a string", "%s", json_kind(v));
            *name = json_string_value(v);
            rc = 0;
        } else if (strcmp(key, "position") == 0) rc = get_floats(c, v, p, b->position, 3);
        else if (strcmp(key, "rotation") == 0) rc = get_floats(c, v, p, b->rotation, 4);
        else if (strcmp(key, "linear_velocity") == 0) rc = get_floats(c, v, p, b->linear_velocity, 3);
        else if (strcmp(key, "angular_velocity") == 0) rc = get_floats(c, v, p, b->angular_velocity, 3);
        else if (strcmp(key, "size") == 0) rc = get_floats(c, v, p, b->size, 3);
        else if (strcmp(key, "density") == 0) rc = get_float(c, v, p, &b->density);
        else if (strcmp(key, "friction") == 0) rc = get_float(c, v, p, &b->friction);
        else if (strcmp(key, "restitution") == 0) rc = get_float(c, v, p, &b->restitution);
        else if (strcmp(key, "rolling_resistance") == 0) rc = get_float(c, v, p, &b->rolling_resistance);
        else if (strcmp(key, "parent") == 0) rc = get_int(c, v, p, &b->parent);
        else if (strcmp(key, "limb") == 0) rc = get_int(c, v, p, &b->limb);
        else
            rc = unknown_key(c, where, key,
                             "kind, name, position, rotation, linear_velocity, angular_velocity, size, "
                             "density, friction, restitution, rolling_resistance, parent or limb");
        if (rc != 0) return -1;
    }
    return 0;
}

static int parse_joint(scene_ctx *c, json_t *o, size_t index, onescope_soa_joint_def *j) {
    char where[48], p[160];
    snprintf(where, sizeof where, "joints[%zu]", index);
    if (!json_is_object(o)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, where, "an object", "%s", json_kind(o));
    *j = onescope_soa_joint_def_default();
    const char *need[3] = {"kind", "body_a", "body_b"};
    for (int k = 0; k < 3; k++)
        if (json_object_get(o, need[k]) == NULL)
            return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, where, "kind, body_a and body_b keys",
                              "no \"%s\"", need[k]);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        snprintf(p, sizeof p, "%s.%.40s", where, key);
        int rc;
        float pair[2];
        if (strcmp(key, "kind") == 0)
            rc = get_word(c, v, p, joint_kinds, 4, "\"revolute\", \"spherical\" or \"weld\"", &j->kind);
        else if (strcmp(key, "body_a") == 0) rc = get_int(c, v, p, &j->body_a);
        else if (strcmp(key, "body_b") == 0) rc = get_int(c, v, p, &j->body_b);
        else if (strcmp(key, "anchor") == 0) rc = get_floats(c, v, p, j->anchor, 3);
        else if (strcmp(key, "axis") == 0) rc = get_floats(c, v, p, j->axis, 3);
        else if (strcmp(key, "collide_connected") == 0) rc = get_bool(c, v, p, &j->collide_connected);
        else if (strcmp(key, "limit") == 0) {
            rc = get_floats(c, v, p, pair, 2);
            j->enable_limit = 1, j->lower_angle = pair[0], j->upper_angle = pair[1];
        } else if (strcmp(key, "cone") == 0) {
            rc = get_float(c, v, p, &j->cone_angle);
            j->enable_cone_limit = 1;
        } else if (strcmp(key, "twist") == 0) {
            rc = get_floats(c, v, p, pair, 2);
            j->enable_twist_limit = 1, j->lower_twist = pair[0], j->upper_twist = pair[1];
        } else if (strcmp(key, "motor") == 0 || strcmp(key, "spring") == 0) {
            bool motor = key[0] == 'm';
            if (!json_is_object(v)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, p, "an object", "%s", json_kind(v));
            if (motor) j->enable_motor = 1;
            else j->enable_spring = 1;
            const char *k2;
            json_t *v2;
            rc = 0;
            json_object_foreach(v, k2, v2) {
                char p2[256];
                snprintf(p2, sizeof p2, "%s.%.30s", p, k2);
                if (motor && strcmp(k2, "speed") == 0) rc = get_float(c, v2, p2, &j->motor_speed);
                else if (motor && strcmp(k2, "velocity") == 0) rc = get_floats(c, v2, p2, j->motor_velocity, 3);
                else if (motor && strcmp(k2, "max_torque") == 0) rc = get_float(c, v2, p2, &j->max_motor_torque);
                else if (!motor && strcmp(k2, "hertz") == 0) rc = get_float(c, v2, p2, &j->spring_hertz);
                else if (!motor && strcmp(k2, "damping_ratio") == 0) rc = get_float(c, v2, p2, &j->spring_damping_ratio);
                else if (!motor && strcmp(k2, "target_angle") == 0) rc = get_float(c, v2, p2, &j->target_angle);
                else if (!motor && strcmp(k2, "target_rotation") == 0) rc = get_floats(c, v2, p2, j->target_rotation, 4);
                else
                    rc = unknown_key(c, p, k2, motor ? "speed, velocity or max_torque"
                                                     : "hertz, damping_ratio, target_angle or target_rotation");
                if (rc != 0) return -1;
            }
        } else
            rc = unknown_key(c, where, key,
                             "kind, body_a, body_b, anchor, axis, collide_connected, limit, cone, twist, "
                             "motor or spring");
        if (rc != 0) return -1;
    }
    return 0;
}

/* Re-labels a library error about one descriptor with the scene's name and JSON path. */
static void relabel(onescope_error *err, const char *name, const char *prefix) {
    char field[256];
    snprintf(field, sizeof field, "%s.%s", prefix, err->field);
    copy_text(err->field, sizeof err->field, field);
    copy_text(err->input, sizeof err->input, name);
}

typedef struct scene_run {
    float dt;
    int substeps;
} scene_run;

/* Builds the world from the parsed document; names[] receives body names (may be NULL). */
static int build(scene_ctx *c, json_t *root, onescope_soa_world **out, scene_run *run, const char ***names,
                 size_t *name_count) {
    *out = NULL;
    *names = NULL;
    *name_count = 0;
    if (!json_is_object(root)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, "scene", "an object", "%s", json_kind(root));
    onescope_soa_world_def wd = onescope_soa_world_def_default();
    run->dt = 1.0f / 60.0f;
    run->substeps = 4;
    json_t *bodies = NULL, *joints = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        int rc = 0;
        if (strcmp(key, "gravity") == 0) rc = get_floats(c, v, "gravity", wd.gravity, 3);
        else if (strcmp(key, "dt") == 0) rc = get_float(c, v, "dt", &run->dt);
        else if (strcmp(key, "substeps") == 0) rc = get_int(c, v, "substeps", &run->substeps);
        else if (strcmp(key, "enable_sleep") == 0) rc = get_bool(c, v, "enable_sleep", &wd.enable_sleep);
        else if (strcmp(key, "bodies") == 0) bodies = v;
        else if (strcmp(key, "joints") == 0) joints = v;
        else rc = unknown_key(c, "", key, "gravity, dt, substeps, enable_sleep, bodies or joints");
        if (rc != 0) return -1;
    }
    if (bodies == NULL) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, "bodies", "an array of bodies", "none");
    if (!json_is_array(bodies)) return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, "bodies", "an array", "%s", json_kind(bodies));
    if (joints != NULL && !json_is_array(joints))
        return scene_fail(c->err, c->name, ONESCOPE_E_TYPE, "joints", "an array", "%s", json_kind(joints));
    size_t nb = json_array_size(bodies), nj = joints ? json_array_size(joints) : 0;
    if (nb < 1 || nb > ONESCOPE_OSPC_MAX_ENTITIES)
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, "bodies", "1..65536 bodies", "%zu", nb);
    if (nj > ONESCOPE_SOA_MAX_CAPACITY)
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, "joints", "at most 1000000 joints", "%zu", nj);
    if (!(run->dt > 0.0f && run->dt <= 1.0f))
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, "dt", "a time step in (0, 1] s", "%g", (double)run->dt);
    if (run->substeps < 1 || run->substeps > ONESCOPE_SOA_MAX_SUBSTEPS)
        return scene_fail(c->err, c->name, ONESCOPE_E_RANGE, "substeps", "1..64", "%d", run->substeps);
    /* every descriptor is parsed before the world exists */
    onescope_soa_body_def *bdefs = calloc(nb, sizeof *bdefs);
    onescope_soa_joint_def *jdefs = calloc(nj ? nj : 1, sizeof *jdefs);
    const char **bnames = calloc(nb, sizeof *bnames);
    int status = 0;
    if (bdefs == NULL || jdefs == NULL || bnames == NULL) {
        status = scene_fail(c->err, c->name, ONESCOPE_E_NOMEM, "scene", "memory for the scene", NULL);
    }
    for (size_t i = 0; status == 0 && i < nb; i++) status = parse_body(c, json_array_get(bodies, i), i, &bdefs[i], &bnames[i]);
    for (size_t i = 0; status == 0 && i < nj; i++) status = parse_joint(c, json_array_get(joints, i), i, &jdefs[i]);
    onescope_soa_world *w = NULL;
    if (status == 0) {
        wd.body_capacity = (uint32_t)nb;
        wd.joint_capacity = (uint32_t)nj;
        if (onescope_soa_world_create(&wd, &w, c->err) != ONESCOPE_OK) {
            relabel(c->err, c->name, "world");
            status = -1;
        }
    }
    for (size_t i = 0; status == 0 && i < nb; i++) {
        if (onescope_soa_world_add_body(w, &bdefs[i], NULL, c->err) != ONESCOPE_OK) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "bodies[%zu]", i);
            relabel(c->err, c->name, prefix);
            status = -1;
        }
    }
    for (size_t i = 0; status == 0 && i < nj; i++) {
        if (onescope_soa_world_add_joint(w, &jdefs[i], NULL, c->err) != ONESCOPE_OK) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "joints[%zu]", i);
            relabel(c->err, c->name, prefix);
            status = -1;
        }
    }
    free(bdefs);
    free(jdefs);
    if (status != 0) {
        onescope_soa_world_destroy(w);
        free(bnames);
        return -1;
    }
    *out = w;
    *names = bnames;
    *name_count = nb;
    return 0;
}

int cmd_box3d_dump(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL};
    int n = 0;
    long long steps = -1;
    bool dashdash = false;
    for (int i = 0; i < argc; i++) {
        if (!dashdash && cli_is_help(argv[i])) {
            printf("usage: onescope box3d-dump SCENE.json OUT.ospc --steps N\n"
                   "Builds a Box3D world from the JSON scene (docs/soa-world.md), steps it N times\n"
                   "and writes every body's pose before the first step and after each step as an\n"
                   "OSPC pose cache (N + 1 frames, metres). '-' reads the scene from standard input\n"
                   "or writes the cache to standard output.\n"
                   "exit: 0 written, 1 invalid scene, no Box3D in this build or unwritable OUT, 2 usage\n");
            return CLI_OK;
        }
        if (!dashdash && strcmp(argv[i], "--") == 0) {
            dashdash = true;
        } else if (!dashdash && strcmp(argv[i], "--steps") == 0) {
            if (i + 1 >= argc) return cli_usage_error("box3d-dump", "--steps needs a number");
            char *end = NULL;
            steps = strtoll(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || steps < 1 || steps > (long long)SCENE_MAX_STEPS)
                return cli_usage_error("box3d-dump", "--steps wants 1..%u, got '%s'", SCENE_MAX_STEPS, argv[i]);
        } else if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("box3d-dump", "unknown option '%s'", argv[i]);
        } else {
            if (n == 2) return cli_usage_error("box3d-dump", "takes SCENE.json and OUT.ospc");
            paths[n++] = argv[i];
        }
    }
    if (n != 2) return cli_usage_error("box3d-dump", "takes SCENE.json and OUT.ospc");
    if (steps < 0) return cli_usage_error("box3d-dump", "needs --steps N");
    if (!onescope_soa_world_available()) {
        fprintf(stderr, "onescope box3d-dump: Box3D is not built in (configure with Box3D installed)\n");
        return CLI_FAIL;
    }
    const char *name = cli_input_name(paths[0]);
    if (strcmp(paths[0], "-") != 0 && onescope_same_file(paths[0], paths[1])) {
        fprintf(stderr, "%s: OUT is the scene itself; refusing to overwrite it\n", name);
        return CLI_FAIL;
    }
    onescope_error err;
    onescope_buffer in;
    if (onescope_read_file(paths[0], 0, NULL, &in, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    json_error_t jerr;
    json_t *root = json_loadb((const char *)in.data, in.size, JSON_REJECT_DUPLICATES, &jerr);
    onescope_buffer_free(&in);
    if (root == NULL) {
        scene_fail(&err, name, ONESCOPE_E_SYNTAX, "", "", "%s", jerr.text);
        err.line = (uint32_t)(jerr.line > 0 ? jerr.line : 1);
        err.column = (uint32_t)(jerr.column > 0 ? jerr.column : 1);
        cli_print_error(&err);
        return CLI_FAIL;
    }
    scene_ctx ctx = {name, &err};
    scene_run run;
    onescope_soa_world *w = NULL;
    const char **names = NULL;
    size_t name_count = 0;
    int status = CLI_FAIL;
    onescope_pose_cache *cache = NULL;
    if (build(&ctx, root, &w, &run, &names, &name_count) != 0) {
        cli_print_error(&err);
        goto done;
    }
    if (onescope_soa_world_record(w, (uint32_t)steps, run.dt, run.substeps, NULL, &cache, &err) != ONESCOPE_OK) {
        copy_text(err.input, sizeof err.input, name);
        cli_print_error(&err);
        goto done;
    }
    for (size_t i = 0; i < name_count; i++) {
        if (names[i] == NULL) continue;
        if (onescope_pose_cache_set_text(cache, &cache->entities[i].name, names[i], strlen(names[i]), &err) != ONESCOPE_OK) {
            copy_text(err.input, sizeof err.input, name);
            snprintf(err.field, sizeof err.field, "bodies[%zu].name", i);
            cli_print_error(&err);
            goto done;
        }
    }
    /* the scene field names the scene file without its directory ("" for standard input) */
    const char *base = strcmp(paths[0], "-") == 0 ? "" : paths[0];
    if (strrchr(base, '/') != NULL) base = strrchr(base, '/') + 1;
    if (onescope_pose_cache_set_text(cache, &cache->text[ONESCOPE_POSE_TEXT_SCENE], base, strlen(base), &err) != ONESCOPE_OK ||
        onescope_pose_cache_write_file(cache, paths[1], &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        goto done;
    }
    if (!cli.quiet && strcmp(paths[1], "-") != 0)
        printf("%s: %zu bodies, %lld steps -> %s\n", name, name_count, steps, paths[1]);
    status = CLI_OK;
done:
    onescope_pose_cache_free(cache);
    onescope_soa_world_destroy(w);
    free(names);
    json_decref(root);
    return status;
}
