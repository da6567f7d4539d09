/* Private pieces shared by ots.c (reader, validator, writer) and ots_convert.c. */
#ifndef ONESCOPE_OTS_INTERNAL_H
#define ONESCOPE_OTS_INTERNAL_H

#include "internal.h"
#include "json_pos.h"
#include "onescope/ots.h"

#define OTS_MAX_DEPTH ONESCOPE_OS_JSON_MAX_DEPTH

/* The JSON path context (json_pos.h), shared with the scene parser. */
typedef onescope_os_json_ctx ots_ctx;

/* Writes the shortest text that reads back to v (".0" added to whole numbers) into buf
 * (at least 40 bytes); returns its length. */
size_t onescope_os_ots_format_double(double v, char *buf);

/* Checks the clip's names and parents; parents[i] receives peg i's parent index or SIZE_MAX
 * (a root, or a parent that names no peg of the same rig tag). */
onescope_code onescope_os_ots_clip_parents(ots_ctx *c, const onescope_ots_clip *clip, size_t *parents);

#endif
