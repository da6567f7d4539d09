/* A live stream's probe record taken from a running test-module world: the one live-stream
 * call that needs a world, kept out of src/live_stream.c so that the format stays bytes in,
 * structs out (docs/architecture.md). */
#include "internal.h"
#include "onescope/live.h"
#include "onescope/sim.h"

onescope_code onescope_live_encode_probe(onescope_live_encoder *e, const onescope_sim *sim,
                                         onescope_error *error) {
    static const char *const name = "live encoder"; /* the encoder's name in its errors */
    if (sim == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "sim must not be NULL");
    if (onescope_sim_next_stage(sim) != ONESCOPE_SIM_STAGE_INPUT)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, name, OS_NO_OFFSET, "world",
                                "a world at a step boundary", "one in the middle of a step");
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_sim_def def = onescope_sim_definition(sim);
    return onescope_live_encode_probe_parts(e, &def.setup, &def.link, snap, n, error);
}
