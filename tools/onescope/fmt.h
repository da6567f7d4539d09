/* Printers shared by the CLI's commands (defined in fmt_ostm.c). */
#ifndef ONESCOPE_CLI_FMT_H
#define ONESCOPE_CLI_FMT_H

#include <stdint.h>
#include <stdio.h>

#include "onescope/sim.h"

/* One body as a text line: "  body 0   alive 1 still 0 position 1 2 3 velocity 4 5 6\n". */
void fmt_body_text(FILE *out, uint32_t index, const onescope_sim_body_state *b);
/* One body as a JSON object (no separator, no newline). */
void fmt_body_json(FILE *out, uint32_t index, const onescope_sim_body_state *b);

#endif
