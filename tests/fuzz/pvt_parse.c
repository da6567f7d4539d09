/* Fuzz target: OTS .pvt rigs (JSON): parse; a parsed rig writes, and its written form
 * parses and writes back to itself. */
#define OTS_T rig
#include "ots_harness.h"
