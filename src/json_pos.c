/* JSON paths and where their errors go: json_pos.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json_pos.h"

void onescope_os_json_path_text(const onescope_os_json_seg *segs, int count, char *buf,
                                size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && len < size; i++) {
        int k;
        if (segs[i].key != NULL) {
            /* a key may be the input's own text (an unknown key): escaped like any echo */
            char key[40];
            onescope_os_escape(key, sizeof key, segs[i].key, strlen(segs[i].key));
            k = snprintf(buf + len, size - len, "%s%s", len ? "." : "", key);
        } else
            k = snprintf(buf + len, size - len, "[%zu]", segs[i].index);
        if (k < 0) break;
        len += (size_t)k;
    }
}

size_t onescope_os_json_skip_ws(const char *s, size_t n, size_t p) {
    while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) p++;
    return p;
}

/* ---- the path context shared by the OTS and scene parsers ---- */

void onescope_os_json_ctx_init(onescope_os_json_ctx *c, const char *name,
                               const onescope_allocator *a, onescope_error *error) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->a = a;
    c->error = error;
}

void onescope_os_json_push_key(onescope_os_json_ctx *c, const char *key) {
    if (c->depth < ONESCOPE_OS_JSON_MAX_DEPTH) {
        c->segs[c->depth].key = key;
        c->segs[c->depth].index = 0;
    }
    c->depth++;
}

void onescope_os_json_push_index(onescope_os_json_ctx *c, size_t index) {
    if (c->depth < ONESCOPE_OS_JSON_MAX_DEPTH) {
        c->segs[c->depth].key = NULL;
        c->segs[c->depth].index = index;
    }
    c->depth++;
}

void onescope_os_json_pop(onescope_os_json_ctx *c) {
    c->depth--;
}

onescope_code onescope_os_json_fail(onescope_os_json_ctx *c, onescope_code code,
                                    const char *expected, const char *fmt, ...) {
    int depth = c->depth < ONESCOPE_OS_JSON_MAX_DEPTH ? c->depth : ONESCOPE_OS_JSON_MAX_DEPTH;
    char path[96];
    onescope_os_json_path_text(c->segs, depth, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    onescope_os_failv(c->error, code, c->name, OS_NO_OFFSET,
                      path[0] || !c->root_field ? path : c->root_field, expected, fmt, ap);
    va_end(ap);
    if (c->error != NULL && c->locate != NULL) {
        c->error->has_offset = 1;
        c->locate(c->locate_user, c->segs, depth, &c->error->offset, &c->error->line,
                  &c->error->column);
    }
    if (c->sink != NULL && c->error != NULL) onescope_os_json_sink_add(c->sink, c->error);
    return code;
}

onescope_code onescope_os_json_nomem(onescope_os_json_ctx *c) {
    onescope_os_fail(c->error, ONESCOPE_E_NOMEM, c->name, OS_NO_OFFSET, NULL, NULL,
                     "could not allocate memory");
    /* running out of memory ends the reading, whatever room the sink has */
    if (c->sink != NULL && c->error != NULL) {
        onescope_os_json_sink_add(c->sink, c->error);
        c->sink->max = c->sink->count;
    }
    return ONESCOPE_E_NOMEM;
}

bool onescope_os_json_sink_add(onescope_os_json_sink *s, const onescope_error *err) {
    if (s->count == 0 && s->first != NULL && s->first != err) *s->first = *err;
    s->count++;
    if (s->on_error != NULL) s->on_error(s->user, err);
    return s->count >= s->max;
}

bool onescope_os_json_stop(const onescope_os_json_ctx *c, onescope_code rc) {
    if (rc == ONESCOPE_OK) return false;
    return c->sink == NULL || c->sink->count >= c->sink->max;
}
