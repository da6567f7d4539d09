/* The loader of cairo_api.h: dlopen of libcairo and one dlsym a function. */
#include "cairo_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static plot_cairo_api api;

/* dlsym's object pointer as a function pointer: copied, since ISO C has no conversion (POSIX
 * makes the two the same size). */
_Static_assert(sizeof(void (*)(void)) == sizeof(void *), "dlsym's pointer holds a function's");
static bool take(void *lib, const char *name, void *slot) {
    void *p = dlsym(lib, name);
    if (p == NULL) return false;
    memcpy(slot, &p, sizeof p);
    return true;
}

const plot_cairo_api *plot_cairo_load(char *why, size_t n) {
    /* the soname of cairo 1.x; the unversioned name is the development link's */
    static const char *const names[] = {"libcairo.so.2", "libcairo.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && lib == NULL; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL && i == 0) { /* the versioned name's reason is the one to show */
            const char *e = dlerror();
            snprintf(why, n, "%s", e != NULL ? e : "libcairo.so.2: cannot be loaded");
        }
    }
    if (lib == NULL) return NULL;
    plot_cairo_api t;
#define PLOT_CAIRO_TAKE(f)                                                                         \
    if (!take(lib, #f, &t.f)) {                                                                    \
        snprintf(why, n, "libcairo has no %s", #f);                                                \
        dlclose(lib);                                                                              \
        return NULL;                                                                               \
    }
    PLOT_CAIRO_FUNCTIONS(PLOT_CAIRO_TAKE)
#undef PLOT_CAIRO_TAKE
    if (!take(lib, "FcFini", &t.fc_fini)) t.fc_fini = NULL;
    api = t; /* kept for the process: cairo's caches are reset, not unloaded */
    return &api;
}
