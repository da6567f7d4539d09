/* agents_record OUT.ostm STEPS K [FAULTS [PUSH_STEP]]: a recording of the agents module
 * (agents_module.h) with entity rows and a keyframe every K steps (0: none), the standard
 * inputs (PUSH_STEP's a push of agent 3 by 2 instead), made by the module with FAULTS (the
 * plug-in's syntax). Seed 7, 76 agents. */
#include <stdio.h>
#include <stdlib.h>

#include "agents_module.h"
#include "onescope/onescope.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: agents_record OUT.ostm STEPS K [FAULTS]\n");
        return 2;
    }
    agents_faults f;
    agents_faults_parse(&f, argc > 4 ? argv[4] : NULL);
    onescope_module m = agents_module(&f);
    uint8_t setup[8];
    agents_setup(7, 76, setup);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = &m;
    def.setup = setup;
    def.setup_size = sizeof setup;
    def.entity_rows = true;
    def.keyframe_every = (uint32_t)strtoul(argv[3], NULL, 10);
    onescope_recording_writer *w = NULL;
    onescope_error err;
    onescope_code rc = onescope_recording_writer_open(argv[1], &def, NULL, NULL, &w, &err);
    uint32_t steps = (uint32_t)strtoul(argv[2], NULL, 10);
    long push = argc > 5 ? strtol(argv[5], NULL, 10) : -1;
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < steps; i++) {
        uint8_t in[8];
        size_t n = agents_input(i, in);
        if ((long)i == push) n = agents_push(3, 2.0f, in);
        rc = onescope_recording_writer_append(w, in, n, NULL, &err);
    }
    if (rc == ONESCOPE_OK) rc = onescope_recording_writer_close(w, NULL, &err);
    onescope_recording_writer_free(w);
    if (rc != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fprintf(stderr, "agents_record: %s\n", line);
        return 1;
    }
    return 0;
}
