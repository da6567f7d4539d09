/* The modules the CLI runs module recordings with: the test module, the ones an engine's own
 * CLI links in (onescope_cli_main), and the plug-ins of `--module PATH` (the library's
 * onescope_module_load). The one entry symbol and the checks: docs/module.md, "Plug-ins". */
#include <string.h>

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

static bool add(const onescope_module *m, const char *origin) {
    for (size_t i = 0; i < module_count; i++) {
        if (strcmp(modules[i]->id, m->id) != 0) continue;
        if (modules[i] == m) return true; /* the same table twice: once is enough */
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
