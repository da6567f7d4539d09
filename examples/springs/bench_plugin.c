/* The cost of calling a module through a plug-in against the same module linked in: verifies
 * one recording with each table, alternately, and prints the best time per step of each and
 * the difference. Prints numbers only.
 *
 *   springs_bench_plugin RUN.ostm PLUGIN.so [ROUNDS]   (default 10 rounds) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "onescope/onescope.h"

const onescope_module *springs_module(void);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double verify_once(const onescope_recording *r, const onescope_module *m) {
    onescope_error err;
    onescope_verify_result v;
    double t0 = now();
    if (onescope_recording_verify(r, m, NULL, &v, "bench", &err) != ONESCOPE_OK) {
        char line[1024];
        onescope_error_format(&err, line, sizeof line);
        fprintf(stderr, "springs_bench_plugin: %s\n", line);
        exit(1);
    }
    return now() - t0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: springs_bench_plugin RUN.ostm PLUGIN.so [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 10;
    onescope_recording *r;
    onescope_error err;
    if (onescope_recording_read_file(argv[1], NULL, &r, &err) != ONESCOPE_OK) return 1;
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, ONESCOPE_MODULE_ENTRY_SYMBOL) : NULL;
    if (sym == NULL) {
        fprintf(stderr, "springs_bench_plugin: %s: no plug-in\n", argv[2]);
        return 1;
    }
    onescope_module_entry_fn *entry;
    memcpy(&entry, &sym, sizeof entry);
    const onescope_module *plugged = entry(ONESCOPE_MODULE_ABI), *linked = springs_module();
    double best_linked = 1e9, best_plugged = 1e9;
    for (int k = 0; k < rounds; k++) {
        double a = verify_once(r, linked), b = verify_once(r, plugged);
        if (a < best_linked) best_linked = a;
        if (b < best_plugged) best_plugged = b;
    }
    double steps = (double)onescope_recording_step_count(r);
    printf("springs_bench_plugin: %.0f steps: linked %.1f ns/step, plug-in %.1f ns/step, "
           "difference %+.1f ns/step (%.3fx)\n",
           steps, best_linked * 1e9 / steps, best_plugged * 1e9 / steps,
           (best_plugged - best_linked) * 1e9 / steps, best_plugged / best_linked);
    onescope_recording_free(r);
    return 0;
}
