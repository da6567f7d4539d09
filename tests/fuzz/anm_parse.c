/* Fuzz target: OTS .anm clips (JSON): parse; a parsed clip writes, and its written form
 * parses and writes back to itself. */
#define OTS_T clip
#include "ots_harness.h"
