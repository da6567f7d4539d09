/* JSON paths, their positions in the raw text, and jansson's load errors: json_pos.h. */
#include <stdarg.h>
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

static uint32_t hex4(const char *h) {
    uint32_t v = 0;
    for (int d = 0; d < 4; d++) {
        unsigned c = (unsigned char)h[d];
        v = v * 16 + (c <= '9' ? c - '0' : (c | 0x20u) - 'a' + 10);
    }
    return v;
}

/* Whether the JSON string whose text (between the quotes, escapes as written) is s[0..n)
 * decodes to key[0..klen): keys written with escapes ("k\u0065y") are found too. The text
 * was accepted by jansson, so every escape in it is well formed. */
static bool key_equals(const char *s, size_t n, const char *key, size_t klen) {
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned char out[4];
        size_t m = 1;
        if (s[i] != '\\') {
            out[0] = (unsigned char)s[i++];
        } else if (i + 1 < n && s[i + 1] != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *at = strchr(from, s[i + 1]);
            if (at == NULL) return false;
            out[0] = (unsigned char)to[at - from];
            i += 2;
        } else {
            if (i + 6 > n) return false;
            uint32_t cp = hex4(s + i + 2);
            i += 6;
            /* a high surrogate: jansson accepted the text, so its low half follows */
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(s + i + 2) - 0xDC00);
                i += 6;
            }
            if (cp < 0x80) {
                out[0] = (unsigned char)cp;
            } else if (cp < 0x800) {
                out[0] = (unsigned char)(0xC0 | (cp >> 6));
                out[1] = (unsigned char)(0x80 | (cp & 0x3F));
                m = 2;
            } else if (cp < 0x10000) {
                out[0] = (unsigned char)(0xE0 | (cp >> 12));
                out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                out[2] = (unsigned char)(0x80 | (cp & 0x3F));
                m = 3;
            } else {
                out[0] = (unsigned char)(0xF0 | (cp >> 18));
                out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                out[3] = (unsigned char)(0x80 | (cp & 0x3F));
                m = 4;
            }
        }
        if (m > klen - k || memcmp(key + k, out, m) != 0) return false;
        k += m;
    }
    return k == klen;
}

/* p at an opening quote: returns the position after the closing quote. */
static size_t skip_string(const char *s, size_t n, size_t p) {
    for (p++; p < n; p++) {
        if (s[p] == '\\')
            p++;
        else if (s[p] == '"')
            return p + 1;
    }
    return n;
}

static size_t skip_value(const char *s, size_t n, size_t p) {
    if (p >= n) return n;
    if (s[p] == '"') return skip_string(s, n, p);
    if (s[p] == '{' || s[p] == '[') {
        int depth = 0;
        while (p < n) {
            char ch = s[p];
            if (ch == '"') {
                p = skip_string(s, n, p);
                continue;
            }
            if (ch == '{' || ch == '[')
                depth++;
            else if (ch == '}' || ch == ']') {
                depth--;
                if (depth == 0) return p + 1;
            }
            p++;
        }
        return n;
    }
    while (p < n && s[p] != ',' && s[p] != '}' && s[p] != ']' && s[p] != ' ' && s[p] != '\n' &&
           s[p] != '\r' && s[p] != '\t')
        p++;
    return p;
}

size_t onescope_os_json_locate(const char *text, size_t size, const onescope_os_json_seg *segs,
                               int count) {
    const char *s = text;
    size_t n = size;
    size_t p = onescope_os_json_skip_ws(s, n, 0);
    size_t pos = p;
    for (int i = 0; i < count; i++) {
        const onescope_os_json_seg *g = &segs[i];
        bool found = false;
        if (g->key != NULL) {
            if (p >= n || s[p] != '{') return pos;
            size_t klen = strlen(g->key);
            p = onescope_os_json_skip_ws(s, n, p + 1);
            while (p < n && s[p] == '"') {
                size_t end = skip_string(s, n, p);
                bool match = end - p >= 2 && key_equals(s + p + 1, end - p - 2, g->key, klen);
                p = onescope_os_json_skip_ws(s, n, end);
                if (p < n && s[p] == ':') p = onescope_os_json_skip_ws(s, n, p + 1);
                if (match) {
                    found = true;
                    break;
                }
                p = onescope_os_json_skip_ws(s, n, skip_value(s, n, p));
                if (p < n && s[p] == ',')
                    p = onescope_os_json_skip_ws(s, n, p + 1);
                else
                    break;
            }
        } else {
            if (p >= n || s[p] != '[') return pos;
            p = onescope_os_json_skip_ws(s, n, p + 1);
            for (size_t k = 0; p < n && s[p] != ']'; k++) {
                if (k == g->index) {
                    found = true;
                    break;
                }
                p = onescope_os_json_skip_ws(s, n, skip_value(s, n, p));
                if (p < n && s[p] == ',')
                    p = onescope_os_json_skip_ws(s, n, p + 1);
                else
                    break;
            }
        }
        if (!found) return pos;
        pos = p;
    }
    return pos;
}

void onescope_os_json_line_column(const char *s, size_t pos, uint32_t *line, uint32_t *column) {
    *line = 1;
    *column = 1;
    onescope_os_json_advance(s, 0, pos, line, column);
}

void onescope_os_json_advance(const char *s, size_t from, size_t to, uint32_t *line,
                              uint32_t *column) {
    uint32_t l = *line, col = *column;
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\n') {
            l++;
            col = 1;
        } else if ((ch & 0xC0) != 0x80) {
            col++;
        }
    }
    *line = l;
    *column = col;
}

onescope_code onescope_os_json_load_fail(onescope_error *error, const char *name, const char *data,
                                         size_t size, const json_error_t *je) {
    onescope_code code = ONESCOPE_E_SYNTAX;
    const char *expected = "valid JSON";
    size_t at = je->position > 0 ? (size_t)je->position : 0;
    const char *s = data;
    switch (json_error_code(je)) {
        case json_error_duplicate_key:
            code = ONESCOPE_E_DUPLICATE;
            expected = "each key once per object";
            break;
        case json_error_numeric_overflow:
            code = strstr(je->text, "real") ? ONESCOPE_E_NOT_FINITE : ONESCOPE_E_RANGE;
            expected = code == ONESCOPE_E_NOT_FINITE ? "a finite number"
                                                     : "an integer that fits in 64 bits";
            break;
        case json_error_invalid_utf8:
            code = ONESCOPE_E_UTF8;
            expected = "valid UTF-8";
            break;
        case json_error_out_of_memory:
            code = ONESCOPE_E_NOMEM;
            expected = NULL;
            break;
        default:
            /* NaN, Infinity and -Infinity are JSON syntax errors; call them what they are. */
            if (strstr(je->text, "near 'NaN'") || strstr(je->text, "near 'Infinity'") ||
                strstr(je->text, "near 'nan'") || strstr(je->text, "near 'inf") ||
                (at < size && at + 3 <= size && strncmp(s + at, "Inf", 3) == 0) ||
                (at < size && at + 3 <= size && strncmp(s + at, "NaN", 3) == 0)) {
                code = ONESCOPE_E_NOT_FINITE;
                expected = "a finite number (JSON has no NaN or Infinity)";
            }
    }
    onescope_os_fail(error, code, name, at, NULL, expected, "%s", je->text);
    if (error != NULL && je->line > 0) {
        error->line = (uint32_t)je->line;
        /* jansson says column 0 before the first character (an empty file); columns count
         * from 1 */
        error->column = je->column > 0 ? (uint32_t)je->column : 1;
    }
    return code;
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
    if (c->error != NULL && c->text != NULL) {
        size_t pos = onescope_os_json_locate(c->text, c->size, c->segs, depth);
        c->error->has_offset = 1;
        c->error->offset = pos;
        onescope_os_json_line_column(c->text, pos, &c->error->line, &c->error->column);
    } else if (c->error != NULL && c->locate != NULL) {
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

/* ---- walking an array's elements (one pass, positions kept as it goes) ---- */

void onescope_os_json_cursor_init(onescope_os_json_cursor *k, const char *text, size_t size,
                                  size_t pos) {
    k->text = text;
    k->size = size;
    k->line = 1;
    k->column = 1;
    onescope_os_json_advance(text, 0, pos, &k->line, &k->column);
    k->in_array = pos < size && text[pos] == '[';
    k->pos = pos;
    if (k->in_array) {
        size_t p = onescope_os_json_skip_ws(text, size, pos + 1);
        onescope_os_json_advance(text, pos, p, &k->line, &k->column);
        k->pos = p;
    }
}

void onescope_os_json_cursor_next(onescope_os_json_cursor *k) {
    if (!k->in_array || k->pos >= k->size || k->text[k->pos] == ']') return;
    const char *s = k->text;
    size_t n = k->size, p = onescope_os_json_skip_ws(s, n, skip_value(s, n, k->pos));
    if (p < n && s[p] == ',') p = onescope_os_json_skip_ws(s, n, p + 1);
    onescope_os_json_advance(s, k->pos, p, &k->line, &k->column);
    k->pos = p;
}
