/* Plug-in modules: a shared library opened with dlopen, its one entry symbol asked for this
 * library's ABI, the table checked. One loader for the CLI's --module, the Python package and
 * any engine program. The rules: docs/module.md, "Plug-ins". */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP: the hint at a C++ entry */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__) || defined(RTLD_DI_LINKMAP)
#include <link.h>
#endif

#include "internal.h"
#include "onescope/module.h"

/* A C++ name for the entry among the plug-in's dynamic symbols ("_Z...21onescope_module_
 * entry..."): the entry compiled as C++ without C linkage (module.h not included, the entry
 * in a namespace, or another signature). Only asked after the C name was not found; the names
 * are read from the library's own dynamic string table, bounded by its size. */
static bool mangled_entry(void *handle, char *name, size_t size) {
#if defined(__GLIBC__) || defined(RTLD_DI_LINKMAP)
    struct link_map *lm = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_ld == NULL) return false;
    uintptr_t strtab = 0;
    size_t strsz = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB) strtab = (uintptr_t)d->d_un.d_ptr;
        if (d->d_tag == DT_STRSZ) strsz = (size_t)d->d_un.d_val;
    }
    /* the loader relocates the entry in place on most targets; where the dynamic section is
     * read-only it stays the file's address, below the load base */
    if (strtab != 0 && strtab < (uintptr_t)lm->l_addr) strtab += (uintptr_t)lm->l_addr;
    if (strtab == 0 || strsz == 0) return false;
    const char *tab = (const char *)strtab;
    static const char part[] = "21onescope_module_entry"; /* the Itanium ABI's source name */
    for (size_t at = 0; at < strsz;) {
        const char *sym = tab + at;
        size_t n = strnlen(sym, strsz - at);
        if (n > 2 && sym[0] == '_' && sym[1] == 'Z' && memmem(sym, n, part, sizeof part - 1)) {
            snprintf(name, size, "%.*s", (int)(n < 80 ? n : 80), sym);
            return true;
        }
        at += n + 1;
    }
#else
    (void)handle;
    (void)name;
    (void)size;
#endif
    return false;
}

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
    if (sym == NULL) {
        char mangled[81], found[160];
        if (!mangled_entry(h, mangled, sizeof mangled))
            return refuse(error, ONESCOPE_E_MODULE, path, h,
                          "the entry symbol " ONESCOPE_MODULE_ENTRY_SYMBOL, "none");
        snprintf(found, sizeof found,
                 "none, only the C++ name %s (give it C linkage: include onescope/module.h)",
                 mangled);
        return refuse(error, ONESCOPE_E_MODULE, path, h,
                      "the entry symbol " ONESCOPE_MODULE_ENTRY_SYMBOL, found);
    }
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
