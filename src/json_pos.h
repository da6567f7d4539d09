/* Private helpers for the JSON text parsers (OTS, SoA scene), which read with the pull reader of
 * json_reader.h: the JSON path of the value being read or checked, where its errors go, and
 * where they point (the reader's positions, through a locate callback). */
#ifndef ONESCOPE_JSON_POS_H
#define ONESCOPE_JSON_POS_H

#include "internal.h"

/* One step of a JSON path: a key, or an array index when key is NULL. */
typedef struct onescope_os_json_seg {
    const char *key;
    size_t index;
} onescope_os_json_seg;

/* The deepest path recorded (deeper steps are counted, not kept). */
#define ONESCOPE_OS_JSON_MAX_DEPTH 12

/* Where the errors of a reader that goes on past an error go (issue 16): each error is
 * handed to on_error as it is found (when set), the first is also copied to *first, and
 * once max errors have been found the reader stops. */
typedef struct onescope_os_json_sink {
    onescope_error *first;
    onescope_error_fn *on_error;
    void *user;
    uint32_t max, count;
} onescope_os_json_sink;

/* Counts err (ctx->error after a failure) in the sink; true when the reader must stop (no
 * sink, or it is full). */
bool onescope_os_json_sink_add(onescope_os_json_sink *s, const onescope_error *err);

/* Where a failure goes and the JSON path being read or checked. With locate set (parsing),
 * a failure also gets the offset, line and column the reader gives for the path; without it
 * (checking structs built in code) only the path. */
typedef struct onescope_os_json_ctx {
    const char *name; /* input name */
    onescope_error *error;
    const onescope_allocator *a;
    const char *root_field; /* the field named when the path is empty; NULL: none */
    onescope_os_json_seg segs[ONESCOPE_OS_JSON_MAX_DEPTH];
    int depth; /* may pass the maximum: deeper steps are not recorded */
    /* The reader says where the value at a path is (NULL: no position). */
    void (*locate)(void *user, const onescope_os_json_seg *segs, int depth, uint64_t *offset,
                   uint32_t *line, uint32_t *column);
    void *locate_user;
    /* NULL: a failure is only written to error. Else it is also counted here. */
    onescope_os_json_sink *sink;
} onescope_os_json_ctx;

/* Whether a check that has just returned rc must stop there: rc is a failure and there is
 * no sink to go on with, or the sink is full. */
bool onescope_os_json_stop(const onescope_os_json_ctx *c, onescope_code rc);

void onescope_os_json_ctx_init(onescope_os_json_ctx *c, const char *name,
                               const onescope_allocator *a, onescope_error *error);
void onescope_os_json_push_key(onescope_os_json_ctx *c, const char *key);
void onescope_os_json_push_index(onescope_os_json_ctx *c, size_t index);
void onescope_os_json_pop(onescope_os_json_ctx *c);
/* Fills the error for the value at the current path. */
onescope_code onescope_os_json_fail(onescope_os_json_ctx *c, onescope_code code,
                                    const char *expected, const char *fmt, ...) OS_PRINTF(4, 5);
onescope_code onescope_os_json_nomem(onescope_os_json_ctx *c);

/* The first position at or after p that is not JSON white space (n when none). */
size_t onescope_os_json_skip_ws(const char *s, size_t n, size_t p);

/* Writes the path as text ("bodies[0].size[1]"), cut to fit size. */
void onescope_os_json_path_text(const onescope_os_json_seg *segs, int count, char *buf,
                                size_t size);

#endif
