/* Plug-in modules: a shared library opened with dlopen, its one entry symbol asked for this
 * library's ABI, the table checked. One loader for the CLI's --module, the Python package and
 * any engine program. The rules: docs/module.md, "Plug-ins". */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/module.h"

static onescope_code refuse(onescope_error *error, onescope_code code, const char *path,
                            void *handle, const char *expected, const char *found) {
    if (handle != NULL) dlclose(handle);
    return onescope_os_fail(error, code, path, OS_NO_OFFSET, "module", expected, "%s", found);
}

onescope_code onescope_module_load(const char *path, const onescope_module **out,
                                   onescope_error *error) {
    if (out != NULL) *out = NULL;
    if (path == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "module", OS_NO_OFFSET, NULL, NULL,
                                "path and out must not be NULL");
    /* dlopen searches the library path for a bare name; a plug-in is named by its file */
    char local[4096];
    const char *open_path = path;
    if (strchr(path, '/') == NULL) {
        int n = snprintf(local, sizeof local, "./%s", path);
        if (n < 0 || (size_t)n >= sizeof local)
            return refuse(error, ONESCOPE_E_RANGE, path, NULL, "a path of at most 4093 bytes",
                          "a longer one");
        open_path = local;
    }
    void *h = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        char found[512];
        const char *why = dlerror();
        snprintf(found, sizeof found, "one dlopen refused (%s)",
                 why != NULL ? why : "no reason given");
        return refuse(error, ONESCOPE_E_MODULE, path, NULL, "a shared library", found);
    }
    /* dlsym returns void *; the standard way to a function pointer goes through memcpy */
    void *sym = dlsym(h, ONESCOPE_MODULE_ENTRY_SYMBOL);
    if (sym == NULL)
        return refuse(error, ONESCOPE_E_MODULE, path, h,
                      "the entry symbol " ONESCOPE_MODULE_ENTRY_SYMBOL, "none");
    onescope_module_entry_fn *entry;
    memcpy(&entry, &sym, sizeof entry);
    const onescope_module *m = entry(ONESCOPE_MODULE_ABI);
    if (m == NULL)
        return refuse(error, ONESCOPE_E_VERSION, path, h, "a table for ABI 1 (this library's)",
                      "none: the plug-in was built for another ABI");
    onescope_code rc = onescope_module_check(m, path, error);
    if (rc != ONESCOPE_OK) {
        dlclose(h);
        return rc;
    }
    /* the handle stays open for the process: the table and its functions live in it */
    *out = m;
    return ONESCOPE_OK;
}
