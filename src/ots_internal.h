/* Private pieces shared by ots.c (reader, validator, writer) and ots_convert.c. */
#ifndef ONESCOPE_OTS_INTERNAL_H
#define ONESCOPE_OTS_INTERNAL_H

#include "internal.h"
#include "json_pos.h"
#include "onescope/ots.h"

#define OTS_MAX_DEPTH 12

/* One step of a JSON path (json_pos.h). */
typedef onescope_os_json_seg ots_seg;

/* Where a failure goes and the JSON path being read or checked. With text set (parsing),
 * a failure also gets the line and column of the deepest part of the path in text. */
typedef struct ots_ctx {
    const char *name;
    onescope_error *error;
    const onescope_allocator *a;
    const char *text;
    size_t size;
    ots_seg segs[OTS_MAX_DEPTH];
    int depth;
} ots_ctx;

void onescope_os_ots_push_key(ots_ctx *c, const char *key);
void onescope_os_ots_push_index(ots_ctx *c, size_t index);
void onescope_os_ots_pop(ots_ctx *c);
onescope_code onescope_os_ots_fail(ots_ctx *c, onescope_code code, const char *expected, const char *fmt, ...)
    OS_PRINTF(4, 5);
onescope_code onescope_os_ots_nomem(ots_ctx *c);

/* Writes the shortest text that reads back to v (".0" added to whole numbers) into buf
 * (at least 40 bytes); returns its length. */
size_t onescope_os_ots_format_double(double v, char *buf);

/* Checks the clip's names and parents; parents[i] receives peg i's parent index or SIZE_MAX
 * (a root, or a parent that names no peg of the same rig tag). */
onescope_code onescope_os_ots_clip_parents(ots_ctx *c, const onescope_ots_clip *clip, size_t *parents);

#endif
