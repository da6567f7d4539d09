/* The modules the CLI runs module recordings with: the test module, the ones an engine's own
 * CLI links in (onescope_cli_main), and the plug-ins of `--module PATH` (the library's
 * onescope_module_load). The one entry symbol and the checks: docs/module.md, "Plug-ins".
 * Also the one opener of the inputs plot and view draw (replays, recordings, caches). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MAX_MODULES 16

static const onescope_module *modules[MAX_MODULES];
static const char *origins[MAX_MODULES]; /* "linked" or the plug-in's path */
static size_t module_count;

/* One line on stderr naming the plug-in: "onescope: PATH: module: WHAT". */
static bool refuse(const char *path, const char *what) {
    /* what may hold dlerror's text or another plug-in's path: escaped as names are */
    fprintf(stderr, "onescope: %s: module: %s\n", cli_shown(path), cli_shown(what));
    return false;
}

/* The library's own modules' ids: a table of another origin under one of them would never run
 * (the test module is found first) or would replace the library's (Box3D), so it is refused.
 * "onescope.box3d" is the library's in a build without Box3D too. */
static const char *builtin_of(const char *id) {
    if (strcmp(id, onescope_module_test()->id) == 0) return "the library's test module";
    if (strcmp(id, "onescope.box3d") == 0) return "the library's Box3D module";
    return NULL;
}

static bool add(const onescope_module *m, const char *origin) {
    const char *builtin = builtin_of(m->id);
    if (builtin != NULL) {
        char what[256];
        snprintf(what, sizeof what, "expected an id of its own, found %s, the id of %s", m->id,
                 builtin);
        return refuse(origin, what);
    }
    for (size_t i = 0; i < module_count; i++) {
        /* a second table under an id, or the same table again (one plug-in named twice, or
         * through a link): either is a mistake worth one line, never silently ignored */
        if (strcmp(modules[i]->id, m->id) != 0) continue;
        char what[256];
        snprintf(what, sizeof what, "expected one module per id, found %s already loaded from %s",
                 m->id, origins[i]);
        return refuse(origin, what);
    }
    if (module_count == MAX_MODULES)
        return refuse(origin, "expected at most 16 modules, found more");
    modules[module_count] = m;
    origins[module_count++] = origin;
    return true;
}

bool cli_module_add(const onescope_module *m, const char *origin) {
    onescope_error err;
    if (onescope_module_check(m, origin, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return false;
    }
    return add(m, origin);
}

bool cli_module_load(const char *path) {
    const onescope_module *m;
    onescope_error err;
    if (onescope_module_load(path, &m, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return false;
    }
    return add(m, path);
}

const onescope_module *cli_module_find(const char *id) {
    if (module_count == 0 || modules[0] != onescope_module_test()) {
        /* the test module is always there, first */
        if (module_count < MAX_MODULES) {
            memmove(modules + 1, modules, module_count * sizeof modules[0]);
            memmove(origins + 1, origins, module_count * sizeof origins[0]);
            modules[0] = onescope_module_test();
            origins[0] = "the library";
            module_count++;
        }
    }
    for (size_t i = 0; i < module_count; i++)
        if (strcmp(modules[i]->id, id) == 0) return modules[i];
    /* the library's Box3D module: there for its recordings, never "the only module" */
    if (strcmp(id, "onescope.box3d") == 0) return onescope_module_box3d();
    return NULL;
}

bool cli_module_loaded_any(void) {
    for (size_t i = 0; i < module_count; i++)
        if (modules[i] != onescope_module_test()) return true;
    return false;
}

const onescope_module *cli_module_only(void) {
    (void)cli_module_find(""); /* puts the test module in the list, first */
    if (module_count > 2) return NULL;
    return modules[module_count - 1];
}

const char *cli_module_names(char *buf, size_t size) {
    (void)cli_module_find(""); /* puts the test module in the list */
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < module_count && n < size; i++) {
        int k = snprintf(buf + n, size - n, "%s%s %s", i ? ", " : "", modules[i]->id,
                         modules[i]->version);
        if (k < 0) break;
        n += (size_t)k;
    }
    return buf;
}

onescope_code cli_module_for(const char *id, const char *version, const char *name,
                             const onescope_module **out, onescope_error *error) {
    *out = cli_module_find(id);
    if (*out != NULL) return ONESCOPE_OK;
    if (strcmp(id, "onescope.box3d") == 0) { /* the library's own, absent in this build */
        onescope_error_clear(error);
        error->code = ONESCOPE_E_UNSUPPORTED;
        error->has_offset = true;
        error->offset = 12;
        snprintf(error->input, sizeof error->input, "%s", name);
        snprintf(error->field, sizeof error->field, "module");
        snprintf(error->expected, sizeof error->expected, "a build with Box3D for %s %s", id,
                 version);
        snprintf(error->found, sizeof error->found, "this build has no Box3D");
        return ONESCOPE_E_UNSUPPORTED;
    }
    char have[sizeof error->found - 8]; /* "only " and the list fit in found */
    cli_module_names(have, sizeof have);
    onescope_error_clear(error);
    error->code = ONESCOPE_E_MODULE;
    error->has_offset = true;
    error->offset = 12;
    snprintf(error->input, sizeof error->input, "%s", name);
    snprintf(error->field, sizeof error->field, "module");
    snprintf(error->expected, sizeof error->expected,
             "a module loaded with --module PATH for %s %s", id, version);
    snprintf(error->found, sizeof error->found, "only %s", have);
    return ONESCOPE_E_MODULE;
}

onescope_code cli_recording_shape_of(const onescope_recording *r, const char *name,
                                     const char *verb, cli_recording_shape *out,
                                     onescope_error *error) {
    memset(out, 0, sizeof *out);
    onescope_code rc =
        cli_module_for(onescope_recording_module_id(r), onescope_recording_module_version(r), name,
                       &out->module, error);
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_world *w = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_recording_check(r, out->module, name, error);
    if (rc == ONESCOPE_OK)
        rc = onescope_world_create(out->module, setup, setup_size, NULL, &w, error);
    if (rc != ONESCOPE_OK) return rc;
    const onescope_module *t = onescope_world_module(w);
    bool entities = t->entity_count != NULL && t->entity_id != NULL && t->entity_pose != NULL;
    out->dimensions = t->dimensions == 2 ? 2 : 3;
    out->unitless = t->metres_per_unit == 0;
    out->scale = out->unitless ? 1 : t->metres_per_unit;
    out->unit = t->unit_name ? t->unit_name : "unit";
    out->entities = entities ? onescope_world_entity_count(w) : 0;
    out->values = t->entity_values ? t->value_count : 0;
    onescope_world_free(w);
    if (entities) return ONESCOPE_OK;
    /* refused as the ghost refuses it (docs/ghost.md, section 6), naming what the verb needs */
    onescope_error_clear(error);
    error->code = ONESCOPE_E_UNSUPPORTED;
    snprintf(error->input, sizeof error->input, "%s", name);
    snprintf(error->field, sizeof error->field, "module");
    snprintf(error->expected, sizeof error->expected,
             "a module with entities (entity_count, entity_id, entity_pose) to %s", verb);
    snprintf(error->found, sizeof error->found, "module '%s' has no entities", out->module->id);
    return ONESCOPE_E_UNSUPPORTED;
}

static bool drawable_refuse(const onescope_error *err) {
    cli_print_error(err);
    return false;
}

/* The shape and step range of an opened replay or cache (a recording's shape is its module's). */
static void drawable_shape(cli_drawable *d) {
    cli_recording_shape *sh = &d->shape;
    if (d->replay) {
        onescope_sim_setup s = onescope_replay_setup(d->replay);
        sh->dimensions = s.dimensions;
        sh->scale = 0.001;
        sh->unit = "mm";
        sh->entities = s.body_count;
        sh->values = s.dimensions; /* velocity */
        d->first = (int64_t)onescope_replay_start_step(d->replay);
        d->last = d->first + onescope_replay_step_count(d->replay);
    } else if (d->rec) {
        d->first = 0;
        d->last = onescope_recording_step_count(d->rec);
    } else {
        const onescope_pose_cache *c = d->cache;
        const onescope_text *unit = &c->text[ONESCOPE_POSE_TEXT_UNIT_NAME];
        sh->dimensions = c->dimensions;
        sh->unitless = c->metres_per_unit == 0;
        sh->scale = sh->unitless ? 1 : c->metres_per_unit;
        sh->unit = unit->length ? unit->data : sh->unitless ? "unit" : "";
        sh->entities = c->entity_count;
        d->first = c->start_step;
        d->last = c->start_step + ((int64_t)c->frame_count - 1); /* frames >= 1: no overflow */
    }
}

bool cli_drawable_open(cli_drawable *d, const char *path, const cli_drawable_rules *rules) {
    memset(d, 0, sizeof *d);
    onescope_error err;
    d->name = cli_input_name(path);
    const char *slash = strrchr(d->name, '/');
    d->label = slash && slash[1] ? slash + 1 : d->name;
    /* opened once (a stream spooled from that open): the format from its first bytes, then the
     * bytes read from the same open file */
    cli_input in;
    onescope_format format = ONESCOPE_FORMAT_UNKNOWN;
    if (rules->map) {
        if (!cli_input_open(&in, path)) return false;
        uint8_t magic[64];
        ssize_t got = pread(in.fd, magic, sizeof magic, 0);
        format = onescope_format_detect(magic, got > 0 ? (size_t)got : 0);
        path = in.src;
    }
    if (format == ONESCOPE_FORMAT_OSPC) {
        onescope_parse_options po = onescope_parse_options_default();
        po.max_input_bytes = (size_t)4 << 30;
        onescope_code rc = onescope_pose_cache_map(path, &po, &d->cache, &err);
        cli_input_rename(&in, &err);
        cli_input_close(&in);
        if (rc != ONESCOPE_OK) return drawable_refuse(&err);
        drawable_shape(d);
        return true;
    }
    onescope_buffer buf;
    onescope_code read = onescope_file_read(path, 0, NULL, &buf, &err);
    if (rules->map) {
        cli_input_rename(&in, &err);
        cli_input_close(&in);
        path = in.path;
    }
    if (read != ONESCOPE_OK) return drawable_refuse(&err);
    format = onescope_format_detect(buf.data, buf.size);
    onescope_code rc = ONESCOPE_OK;
    if (format == ONESCOPE_FORMAT_OSTM) {
        rc = onescope_replay_parse(buf.data, buf.size, d->name, NULL, &d->replay, &err);
    } else if (format == ONESCOPE_FORMAT_RECORDING && rules->no_recording) {
        /* said before the module is looked for: no module would change it */
        fprintf(stderr, "%s: %s, found a module recording (OSTM v2)\n", cli_shown(path),
                rules->no_recording);
        onescope_buffer_free(&buf);
        return false;
    } else if (format == ONESCOPE_FORMAT_RECORDING) {
        rc = onescope_recording_parse(buf.data, buf.size, d->name, NULL, &d->rec, &err);
        if (rc == ONESCOPE_OK)
            rc = cli_recording_shape_of(d->rec, d->name, rules->command, &d->shape, &err);
    } else if (format == ONESCOPE_FORMAT_OSPC) {
        rc = onescope_pose_cache_parse(buf.data, buf.size, d->name, NULL, &d->cache, &err);
    } else {
        fprintf(stderr,
                "%s: offset 0: %s OSTM replays, module recordings and OSPC pose caches, found %s\n",
                cli_shown(path), rules->draws,
                format == ONESCOPE_FORMAT_UNKNOWN ? "no known format"
                                                  : onescope_format_name(format));
        onescope_buffer_free(&buf);
        return false;
    }
    onescope_buffer_free(&buf);
    if (rc != ONESCOPE_OK) {
        cli_drawable_close(d);
        return drawable_refuse(&err);
    }
    if (d->replay) {
        uint64_t start = onescope_replay_start_step(d->replay);
        uint32_t count = onescope_replay_step_count(d->replay);
        if (start > (uint64_t)INT64_MAX - count) {
            fprintf(stderr,
                    "%s: start step: expected host steps up to 9223372036854775807, found %" PRIu64
                    " + %" PRIu32 " steps\n",
                    cli_shown(path), start, count);
            cli_drawable_close(d);
            return false;
        }
    }
    drawable_shape(d);
    return true;
}

void cli_drawable_close(cli_drawable *d) {
    onescope_replay_free(d->replay);
    onescope_recording_free(d->rec);
    onescope_pose_cache_free(d->cache);
    d->replay = NULL;
    d->rec = NULL;
    d->cache = NULL;
}
