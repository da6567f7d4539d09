/* Private pieces shared by live_stream.c (framing, decoder, encoder) and live_viewer.c. */
#ifndef ONESCOPE_LIVE_INTERNAL_H
#define ONESCOPE_LIVE_INTERNAL_H

#include "internal.h"
#include "onescope/live.h"

/* "probe", "step", "end" or "unknown", for messages. */
const char *onescope_os_live_type_name(uint8_t type);

/* RANGE at `at` naming field when found is not the step number want. */
onescope_code onescope_os_live_check_step(uint64_t want, uint64_t found, uint64_t at,
                                          const char *field, const char *name,
                                          onescope_error *error);

/* The code the decoder latched when it failed (OK while it has not failed). */
onescope_code onescope_os_live_decoder_code(const onescope_live_decoder *decoder);

#endif
