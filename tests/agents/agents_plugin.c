/* The agents module (agents_module.h) as a plug-in for the stock CLI: its faults come from the
 * environment variable AGENTS_FAULTS ("snapshot,hash,outside,bug=STEP:ID[:energy],
 * refuse=STEP"), read once when the CLI loads it, so one build plays every faulty engine. */
#include <stdlib.h>

#include "agents_module.h"

static agents_faults faults;
static onescope_module table;

const onescope_module *onescope_module_entry(uint32_t abi) {
    if (abi != ONESCOPE_MODULE_ABI) return NULL;
    agents_faults_parse(&faults, getenv("AGENTS_FAULTS"));
    table = agents_module(&faults);
    return &table;
}
