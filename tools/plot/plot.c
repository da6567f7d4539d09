/* The CLI's drawing layer: figures are recorded as a display list in pixel coordinates, then
 * written either as SVG by hand (text elements stay text, panels carry their data-to-pixel
 * mapping as data-* attributes so tests can find a position) or rasterised by cairo as PNG. */
#include "plot.h"

#include "cairo_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onescope/common.h"
#include "onescope/error.h"

/* tab10 and two more: adjacent indices differ in hue. */
static const plot_rgb palette[PLOT_PALETTE_SIZE] = {
    {31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
    {188, 189, 34},  {23, 190, 207}, {0, 63, 92},     {184, 134, 11}};

plot_rgb plot_palette(uint32_t index) {
    return palette[index % PLOT_PALETTE_SIZE];
}

/* Nine stops of each matplotlib ramp; linear in between. */
static const plot_rgb viridis[9] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                    {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                    {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
static const plot_rgb inferno[9] = {{0, 0, 4},      {31, 12, 72},   {85, 15, 109},
                                    {136, 34, 106}, {186, 54, 85},  {227, 89, 51},
                                    {249, 140, 10}, {249, 201, 50}, {252, 255, 164}};

plot_rgb plot_ramp(const char *ramp, double t) {
    const plot_rgb *s = ramp != NULL && strcmp(ramp, "inferno") == 0 ? inferno : viridis;
    if (!(t > 0)) t = 0; /* NaN too */
    if (t > 1) t = 1;
    double p = t * 8;
    int i = (int)p;
    if (i >= 8) return s[8];
    double u = p - i;
    plot_rgb c = {(uint8_t)lround(s[i].r + (s[i + 1].r - s[i].r) * u),
                  (uint8_t)lround(s[i].g + (s[i + 1].g - s[i].g) * u),
                  (uint8_t)lround(s[i].b + (s[i + 1].b - s[i].b) * u)};
    return c;
}

plot_unit plot_unit_for_span(double metres) {
    plot_unit u = {"m", 1};
    if (metres < 2) u = (plot_unit){"mm", 1000};
    return u;
}

typedef enum item_kind { IT_LINE, IT_POLY, IT_MARK, IT_TEXT, IT_RECT } item_kind;

typedef struct item {
    item_kind kind;
    plot_rgb colour;
    plot_dash dash;
    double width;
    size_t first, count; /* points (IT_LINE, IT_POLY) */
    plot_marker marker;
    double x, y, w, h; /* IT_MARK centre; IT_TEXT anchor; IT_RECT box */
    double value;      /* IT_POLY, IT_RECT: data-value */
    bool has_value;
    char *text;       /* IT_TEXT: what is drawn */
    char *full;       /* IT_TEXT: the whole text when `text` is a shortened or wrapped part */
    double size;      /* font size */
    int anchor;       /* 0 start, 1 middle, 2 end */
    const char *cls;  /* SVG class, static */
    bool stroke_only; /* IT_RECT */
} item;

typedef struct panel {
    char name[16];
    double px, py, pw, ph; /* pixel rectangle of the panel's plotting area */
    double x0, x1, y0, y1; /* data range */
    double sx, sy, ox, oy; /* pixel = o + s * data (sy negative: data y up) */
    char x_label[64], y_label[64];
} panel;

struct plot_figure {
    plot_format format;
    int width, height;
    char *title;
    char *title_shown; /* the title shortened in the middle to the figure's width */
    panel panels[2];
    int panel_count;
    item *items;
    size_t item_count, item_cap;
    double *pts; /* x, y pairs */
    size_t pt_count, pt_cap;
    bool failed; /* out of memory somewhere: render fails */
    double legend_y;
    uint64_t kept, given;
    /* The SVG's size, charged as the display list grows (an upper bound per element), so a
     * drawing past the CLI's output limit fails before it is written. */
    uint64_t charged;
    bool too_large;
    uint64_t markers, markers_dropped;
    uint64_t series_simplified; /* paths that went over to per-column extrema */
};

enum { LEGEND_W = 190, MARGIN_L = 64, MARGIN_R = 16, MARGIN_T = 44, MARGIN_B = 52, GAP = 64 };

static char *dup_text(const char *s) {
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

static char *shorten_middle(const char *s, size_t n, size_t max);
static size_t chars_for(double px, double size);

plot_figure *plot_figure_create(plot_format format, int width, int height, const char *title) {
    plot_figure *f = calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    f->format = format;
    f->width = width;
    f->height = height;
    f->title = dup_text(title);
    f->title_shown = shorten_middle(title, strlen(title), chars_for(width - 20, 15));
    f->legend_y = MARGIN_T + 10;
    if (f->title == NULL || f->title_shown == NULL) {
        free(f->title);
        free(f->title_shown);
        free(f);
        return NULL;
    }
    plot_panels(f, 1);
    return f;
}

void plot_figure_free(plot_figure *f) {
    if (f == NULL) return;
    for (size_t i = 0; i < f->item_count; i++) {
        free(f->items[i].text);
        free(f->items[i].full);
    }
    free(f->title_shown);
    free(f->items);
    free(f->pts);
    free(f->title);
    free(f);
}

/* What an element can cost in the SVG at most (the fixed markup; text and points apart). */
enum { ITEM_BYTES = 320, POINT_BYTES = 24 };

static bool charge(plot_figure *f, uint64_t bytes) {
    f->charged += bytes;
    if (f->charged <= ONESCOPE_MAX_INPUT_BYTES) return true;
    f->too_large = f->failed = true;
    return false;
}

static item *add_item(plot_figure *f, item_kind kind) {
    if (!charge(f, ITEM_BYTES)) return NULL;
    if (f->item_count == f->item_cap) {
        size_t cap = f->item_cap ? f->item_cap * 2 : 64;
        item *n = realloc(f->items, cap * sizeof *n);
        if (n == NULL) {
            f->failed = true;
            return NULL;
        }
        f->items = n;
        f->item_cap = cap;
    }
    item *it = &f->items[f->item_count++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->width = 1;
    return it;
}

static bool add_point(plot_figure *f, double x, double y) {
    if (!charge(f, POINT_BYTES)) return false;
    if (f->pt_count == f->pt_cap) {
        size_t cap = f->pt_cap ? f->pt_cap * 2 : 1024;
        double *n = realloc(f->pts, cap * 2 * sizeof *n);
        if (n == NULL) {
            f->failed = true;
            return false;
        }
        f->pts = n;
        f->pt_cap = cap;
    }
    f->pts[2 * f->pt_count] = x;
    f->pts[2 * f->pt_count + 1] = y;
    f->pt_count++;
    return true;
}

static void add_text(plot_figure *f, double x, double y, const char *s, double size, int anchor,
                     const char *cls) {
    item *it = add_item(f, IT_TEXT);
    if (it == NULL) return;
    it->x = x;
    it->y = y;
    it->size = size;
    it->anchor = anchor;
    it->cls = cls;
    /* escaped, a byte becomes at most 6 ("&quot;") */
    if (!charge(f, 6 * (uint64_t)strlen(s))) return;
    it->text = dup_text(s);
    if (it->text == NULL) f->failed = true;
}

/* ---- text that fits: wrapped at spaces, a word too long shortened in the middle ----
 * Widths are estimated, not measured (the SVG is drawn by whichever renderer opens it): a
 * code point of sans-serif text at size s is taken as 0.62 s wide, more than the average of
 * DejaVu Sans and Liberation Sans, so what is estimated to fit does. */

/* The byte length of the code point at s (a byte that is not UTF-8 counts alone, as svg_text
 * shows it). */
static size_t cp_bytes(const char *s, size_t n) {
    size_t len = onescope_error_utf8_char(s, n, NULL);
    return len ? len : 1;
}
static size_t cp_count(const char *s, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i += cp_bytes(s + i, n - i)) k++;
    return k;
}
/* The byte offset after k code points. */
static size_t cp_offset(const char *s, size_t n, size_t k) {
    size_t i = 0;
    while (k-- > 0 && i < n) i += cp_bytes(s + i, n - i);
    return i;
}

/* s[0..n) in at most max code points: the head, an ellipsis, the tail. */
static char *shorten_middle(const char *s, size_t n, size_t max) {
    size_t count = cp_count(s, n);
    if (max < 3) max = 3;
    size_t head = (max - 1) / 2, tail = max - 1 - head;
    size_t hb = cp_offset(s, n, head), tb = cp_offset(s, n, count - tail);
    size_t len = count <= max ? n : hb + 3 + (n - tb);
    char *out = malloc(len + 1);
    if (out == NULL) return NULL;
    if (count <= max) {
        memcpy(out, s, n);
    } else {
        memcpy(out, s, hb);
        memcpy(out + hb, "\xE2\x80\xA6", 3); /* U+2026 */
        memcpy(out + hb + 3, s + tb, n - tb);
    }
    out[len] = '\0';
    return out;
}

static size_t chars_for(double px, double size) {
    double k = px / (0.62 * size);
    return k < 3 ? 3 : (size_t)k;
}

/* Text in lines of at most max code points from (x, y), line_h apart; every line that is not
 * the whole text keeps the whole in `full` (the SVG's <title>, a tooltip). Returns the lines. */
static int add_wrapped(plot_figure *f, double x, double y, double line_h, const char *s,
                       double size, const char *cls, size_t max) {
    size_t n = strlen(s);
    bool whole = cp_count(s, n) <= max;
    int lines = 0;
    size_t at = 0;
    do {
        /* the most whole words from `at` that fit; a first word that does not fit alone */
        size_t best = at, count = 0, p = at;
        bool first = true;
        while (p < n) {
            size_t end = p;
            while (end < n && s[end] != ' ') end += cp_bytes(s + end, n - end);
            size_t c = (first ? 0 : count + 1) + cp_count(s + p, end - p);
            if (!first && c > max) break;
            best = end;
            count = c;
            first = false;
            if (c > max) break;
            p = end;
            while (p < n && s[p] == ' ') p++;
        }
        char *line = shorten_middle(s + at, best - at, max);
        add_text(f, x, y + line_h * lines, line ? line : "", size, 0, cls);
        free(line);
        if (!whole && f->item_count > 0 && f->items[f->item_count - 1].kind == IT_TEXT &&
            charge(f, 6 * (uint64_t)n + 16)) {
            item *it = &f->items[f->item_count - 1];
            it->full = dup_text(s);
            if (it->full == NULL) f->failed = true;
        }
        lines++;
        at = best;
        while (at < n && s[at] == ' ') at++;
    } while (at < n);
    return lines;
}

static void add_rect(plot_figure *f, double x, double y, double w, double h, plot_rgb c,
                     bool stroke_only, const char *cls) {
    item *it = add_item(f, IT_RECT);
    if (it == NULL) return;
    it->x = x;
    it->y = y;
    it->w = w;
    it->h = h;
    it->colour = c;
    it->stroke_only = stroke_only;
    it->cls = cls;
}

void plot_panels(plot_figure *f, int count) {
    f->panel_count = count < 1 ? 1 : count > 2 ? 2 : count;
    double left = MARGIN_L, right = f->width - LEGEND_W - MARGIN_R;
    double w = (right - left - (f->panel_count - 1) * GAP) / f->panel_count;
    for (int i = 0; i < f->panel_count; i++) {
        panel *p = &f->panels[i];
        p->px = left + i * (w + GAP);
        p->py = MARGIN_T;
        p->pw = w;
        p->ph = f->height - MARGIN_T - MARGIN_B;
    }
}

void plot_panel_setup(plot_figure *f, int index, const char *name, double x0, double x1, double y0,
                      double y1, bool equal_aspect, const char *x_label, const char *y_label) {
    panel *p = &f->panels[index];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->x_label, sizeof p->x_label, "%s", x_label);
    snprintf(p->y_label, sizeof p->y_label, "%s", y_label);
    if (!(x1 > x0)) x1 = x0 + 1; /* a single point still gets a range */
    if (!(y1 > y0)) y1 = y0 + 1;
    double sx = p->pw / (x1 - x0), sy = p->ph / (y1 - y0);
    if (equal_aspect) {
        /* the shorter scale for both; the spare room widens the data range, centred */
        double s = sx < sy ? sx : sy;
        double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
        x0 = cx - p->pw / s / 2;
        x1 = cx + p->pw / s / 2;
        y0 = cy - p->ph / s / 2;
        y1 = cy + p->ph / s / 2;
        sx = sy = s;
    }
    p->x0 = x0;
    p->x1 = x1;
    p->y0 = y0;
    p->y1 = y1;
    p->sx = sx;
    p->sy = -sy;
    p->ox = p->px - sx * x0;
    p->oy = p->py + p->ph + sy * y0;
}

static double to_px(const panel *p, double x) {
    return p->ox + p->sx * x;
}
static double to_py(const panel *p, double y) {
    return p->oy + p->sy * y;
}

/* A tick step of 1, 2 or 5 times a power of ten giving about six ticks. */
static double tick_step(double span) {
    double raw = span / 6, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void plot_panel_axes(plot_figure *f, int index) {
    const panel *p = &f->panels[index];
    const plot_rgb black = {0, 0, 0}, grey = {200, 200, 200};
    char buf[64];
    for (int axis = 0; axis < 2; axis++) {
        double lo = axis ? p->y0 : p->x0, hi = axis ? p->y1 : p->x1, step = tick_step(hi - lo);
        for (double t = ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
            double v = fabs(t) < step * 1e-9 ? 0 : t;
            snprintf(buf, sizeof buf, "%g", v);
            item *g = add_item(f, IT_LINE);
            if (g == NULL) return;
            g->colour = grey;
            g->width = 0.5;
            g->first = f->pt_count;
            g->count = 2;
            g->cls = "grid";
            if (axis == 0) {
                add_point(f, to_px(p, v), p->py);
                add_point(f, to_px(p, v), p->py + p->ph);
                add_text(f, to_px(p, v), p->py + p->ph + 14, buf, 11, 1, "tick");
            } else {
                add_point(f, p->px, to_py(p, v));
                add_point(f, p->px + p->pw, to_py(p, v));
                add_text(f, p->px - 4, to_py(p, v) + 4, buf, 11, 2, "tick");
            }
        }
    }
    add_rect(f, p->px, p->py, p->pw, p->ph, black, true, "frame");
    add_text(f, p->px + p->pw / 2, p->py + p->ph + 32, p->x_label, 12, 1, "axis-label");
    /* the y label above the axis rather than rotated: both back ends then draw it alike */
    add_text(f, p->px, p->py - 6, p->y_label, 12, 0, "axis-label");
}

/* ---- streamed polylines ---- */

static double seg_dist(double px, double py, double ax, double ay, double bx, double by) {
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, t = 0;
    if (l2 > 0) t = ((px - ax) * dx + (py - ay) * dy) / l2;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    double ex = ax + t * dx - px, ey = ay + t * dy - py;
    return sqrt(ex * ex + ey * ey);
}

/* A path holds its points in one of two ways. First as drawn: the half-pixel simplifier
 * below, each line (between breaks) handed to the figure when it ends. When a path has kept
 * more than PATH_POINTS_PER_COLUMN points per pixel column of its panel, it goes over to
 * buckets: consecutive points in time, each bucket keeping only its extremes (least and
 * greatest x and y, in their order), so a spike stays visible. When the buckets fill, pairs
 * are merged and a bucket covers twice the points, so a path never holds more than one bucket
 * per pixel column, whatever the number of steps. */
enum { PATH_POINTS_PER_COLUMN = 4, PATH_MIN_BUCKETS = 64 };

typedef struct bucket {
    double pt[4][2]; /* in time order */
    uint8_t n;
    bool brk; /* a break comes before this bucket */
} bucket;

struct plot_path {
    plot_figure *f;
    int panel;
    plot_rgb colour;
    plot_dash dash;
    double width;
    double *pts; /* kept points of the current line (x, y pairs) */
    size_t count, cap;
    double pend[64][2]; /* points since the last kept one, not yet dropped or kept */
    int pend_count;
    size_t *lines; /* the items of the lines handed to the figure so far */
    size_t line_count, line_cap;
    uint64_t kept; /* points kept over those lines and the current one */
    /* buckets (NULL until the path goes over) */
    bucket *b;
    size_t nb, max_b;
    bucket cur;
    uint64_t cur_given, stride;
    bool brk_next;
};

plot_path *plot_path_begin(plot_figure *f, int panel_index, plot_rgb colour, plot_dash dash,
                           double width) {
    plot_path *p = calloc(1, sizeof *p);
    if (p == NULL) {
        f->failed = true;
        return NULL;
    }
    p->f = f;
    p->panel = panel_index;
    p->colour = colour;
    p->dash = dash;
    p->width = width;
    double columns = f->panels[panel_index].pw;
    p->max_b = columns > PATH_MIN_BUCKETS ? (size_t)columns : PATH_MIN_BUCKETS;
    return p;
}

static void keep(plot_path *p, double x, double y) {
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        double *n = realloc(p->pts, cap * 2 * sizeof *n);
        if (n == NULL) {
            p->f->failed = true;
            return;
        }
        p->pts = n;
        p->cap = cap;
    }
    p->pts[2 * p->count] = x;
    p->pts[2 * p->count + 1] = y;
    p->count++;
    p->kept++;
    p->f->kept++;
}

/* The extremes of a's points followed by b's (at most 4 of 8), in their order. */
static void bucket_merge(bucket *a, const double (*pts)[2], int n) {
    double all[8][2];
    int m = 0;
    for (int i = 0; i < a->n; i++, m++) memcpy(all[m], a->pt[i], sizeof all[m]);
    for (int i = 0; i < n && m < 8; i++, m++) memcpy(all[m], pts[i], sizeof all[m]);
    int pick[4] = {0, 0, 0, 0}; /* least x, greatest x, least y, greatest y */
    for (int i = 1; i < m; i++) {
        if (all[i][0] < all[pick[0]][0]) pick[0] = i;
        if (all[i][0] > all[pick[1]][0]) pick[1] = i;
        if (all[i][1] < all[pick[2]][1]) pick[2] = i;
        if (all[i][1] > all[pick[3]][1]) pick[3] = i;
    }
    a->n = 0;
    for (int i = 0; i < m; i++)
        if (i == pick[0] || i == pick[1] || i == pick[2] || i == pick[3])
            memcpy(a->pt[a->n++], all[i], sizeof all[i]);
}

/* Ends the current bucket; a full array merges neighbours (a bucket then covers twice the
 * points; a break inside a merged bucket is lost, the line joins there). */
static void bucket_close(plot_path *p) {
    if (p->cur.n == 0) return;
    if (p->nb == p->max_b) {
        size_t k = 0;
        for (size_t i = 0; i + 1 < p->nb; i += 2, k++) {
            bucket m = p->b[i];
            bucket_merge(&m, (const double(*)[2])p->b[i + 1].pt, p->b[i + 1].n);
            p->b[k] = m;
        }
        if (p->nb % 2) p->b[k++] = p->b[p->nb - 1];
        p->nb = k;
        p->stride *= 2;
    }
    p->b[p->nb++] = p->cur;
    memset(&p->cur, 0, sizeof p->cur);
    p->cur_given = 0;
}

static void bucket_point(plot_path *p, double X, double Y) {
    if (p->cur.n == 0) {
        p->cur.brk = p->brk_next;
        p->brk_next = false;
    }
    const double q[1][2] = {{X, Y}};
    bucket_merge(&p->cur, q, 1);
    if (++p->cur_given >= p->stride) bucket_close(p);
}

/* Goes over to buckets: the lines drawn so far are taken back from the figure (their items
 * left empty) and become the first buckets, one point each. */
static void to_buckets(plot_path *p) {
    plot_figure *f = p->f;
    p->b = malloc(p->max_b * sizeof *p->b);
    if (p->b == NULL) {
        f->failed = true;
        return;
    }
    p->stride = 1;
    for (size_t l = 0; l < p->line_count; l++) {
        item *it = &f->items[p->lines[l]];
        p->brk_next = true;
        for (size_t i = 0; i < it->count; i++)
            bucket_point(p, f->pts[2 * (it->first + i)], f->pts[2 * (it->first + i) + 1]);
        it->count = 0;
    }
    p->brk_next = p->line_count > 0;
    for (size_t i = 0; i < p->count; i++) bucket_point(p, p->pts[2 * i], p->pts[2 * i + 1]);
    for (int i = 0; i < p->pend_count; i++) bucket_point(p, p->pend[i][0], p->pend[i][1]);
    f->kept -= p->kept;
    p->count = 0;
    p->pend_count = 0;
    f->series_simplified++;
}

void plot_path_point(plot_path *p, double x, double y) {
    if (p == NULL) return;
    const panel *pn = &p->f->panels[p->panel];
    double X = to_px(pn, x), Y = to_py(pn, y);
    p->f->given++;
    if (p->b == NULL && p->kept >= PATH_POINTS_PER_COLUMN * (uint64_t)p->max_b) to_buckets(p);
    if (p->b != NULL) {
        bucket_point(p, X, Y);
        return;
    }
    if (p->count == 0) {
        keep(p, X, Y);
        return;
    }
    /* The new point becomes the candidate end when every pending point lies within half a
     * pixel of the segment from the last kept point to it; otherwise the previous candidate
     * is kept. So every dropped point is within half a pixel of the drawn line. */
    const double *a = &p->pts[2 * (p->count - 1)];
    bool fits = p->pend_count < 64;
    for (int i = 0; fits && i < p->pend_count; i++)
        fits = seg_dist(p->pend[i][0], p->pend[i][1], a[0], a[1], X, Y) <= 0.5;
    if (!fits) {
        keep(p, p->pend[p->pend_count - 1][0], p->pend[p->pend_count - 1][1]);
        p->pend_count = 0;
    }
    p->pend[p->pend_count][0] = X;
    p->pend[p->pend_count][1] = Y;
    p->pend_count++;
}

void plot_path_break(plot_path *p) {
    if (p == NULL) return;
    if (p->b != NULL) {
        bucket_close(p);
        p->brk_next = true;
        return;
    }
    if (p->count == 0) return;
    if (p->pend_count > 0) keep(p, p->pend[p->pend_count - 1][0], p->pend[p->pend_count - 1][1]);
    plot_figure *f = p->f;
    if (p->line_count == p->line_cap) {
        size_t cap = p->line_cap ? p->line_cap * 2 : 16;
        size_t *n = realloc(p->lines, cap * sizeof *n);
        if (n == NULL) {
            f->failed = true;
            return;
        }
        p->lines = n;
        p->line_cap = cap;
    }
    item *it = add_item(f, IT_LINE);
    if (it != NULL) {
        p->lines[p->line_count++] = f->item_count - 1;
        it->colour = p->colour;
        it->dash = p->dash;
        it->width = p->width;
        it->first = f->pt_count;
        it->cls = "path";
        for (size_t i = 0; i < p->count; i++)
            if (add_point(f, p->pts[2 * i], p->pts[2 * i + 1])) it->count++;
    }
    p->count = 0;
    p->pend_count = 0;
}

/* The buckets as lines: a new line at each break. */
static void emit_buckets(plot_path *p) {
    plot_figure *f = p->f;
    bucket_close(p);
    item *it = NULL;
    for (size_t k = 0; k < p->nb; k++) {
        if (it == NULL || p->b[k].brk) {
            it = add_item(f, IT_LINE);
            if (it == NULL) return;
            it->colour = p->colour;
            it->dash = p->dash;
            it->width = p->width;
            it->first = f->pt_count;
            it->cls = "path";
        }
        for (int i = 0; i < p->b[k].n; i++)
            if (add_point(f, p->b[k].pt[i][0], p->b[k].pt[i][1])) {
                it->count++;
                f->kept++;
            }
    }
}

void plot_path_end(plot_path *p) {
    if (p == NULL) return;
    if (p->b != NULL)
        emit_buckets(p);
    else
        plot_path_break(p);
    free(p->b);
    free(p->lines);
    free(p->pts);
    free(p);
}

void plot_path_counts(const plot_figure *f, uint64_t *kept, uint64_t *given) {
    *kept = f->kept;
    *given = f->given;
}

bool plot_simplified(const plot_figure *f, uint64_t *series, uint64_t *markers_dropped) {
    *series = f->series_simplified;
    *markers_dropped = f->markers_dropped;
    return f->series_simplified > 0 || f->markers_dropped > 0;
}

bool plot_too_large(const plot_figure *f) {
    return f->too_large;
}

void plot_marker_at(plot_figure *f, int panel_index, plot_marker kind, double x, double y,
                    plot_rgb colour) {
    const panel *p = &f->panels[panel_index];
    /* spawns and removals grow with the steps: past PLOT_MAX_MARKERS they are counted, not
     * drawn */
    if (f->markers >= PLOT_MAX_MARKERS) {
        f->markers_dropped++;
        return;
    }
    f->markers++;
    item *it = add_item(f, IT_MARK);
    if (it == NULL) return;
    it->marker = kind;
    it->x = to_px(p, x);
    it->y = to_py(p, y);
    it->colour = colour;
    it->width = 1.5;
    it->cls = kind == PLOT_MARK_SPAWN ? "spawn" : kind == PLOT_MARK_REMOVE ? "removal" : "handover";
}

void plot_cell(plot_figure *f, int panel_index, const double *xy, int n, plot_rgb fill,
               double value) {
    const panel *p = &f->panels[panel_index];
    item *it = add_item(f, IT_POLY);
    if (it == NULL) return;
    it->colour = fill;
    it->first = f->pt_count;
    it->value = value;
    it->has_value = true;
    it->cls = "cell";
    for (int i = 0; i < n; i++)
        if (add_point(f, to_px(p, xy[2 * i]), to_py(p, xy[2 * i + 1]))) it->count++;
}

/* ---- legend ---- */

static double legend_x(const plot_figure *f) {
    return f->width - LEGEND_W + 8;
}

void plot_legend_line(plot_figure *f, const char *name, plot_rgb colour, plot_dash dash) {
    double x = legend_x(f), y = f->legend_y;
    item *it = add_item(f, IT_LINE);
    if (it == NULL) return;
    it->colour = colour;
    it->dash = dash;
    it->width = 2;
    it->first = f->pt_count;
    it->count = 2;
    it->cls = "legend-line";
    add_point(f, x, y - 4);
    add_point(f, x + 28, y - 4);
    int lines = add_wrapped(f, x + 34, y, 15, name, 12, "legend", chars_for(LEGEND_W - 42, 12));
    f->legend_y += 20 + 15 * (lines - 1);
}

void plot_legend_marker(plot_figure *f, const char *name, plot_marker kind) {
    double x = legend_x(f), y = f->legend_y;
    item *it = add_item(f, IT_MARK);
    if (it == NULL) return;
    it->marker = kind;
    it->x = x + 14;
    it->y = y - 4;
    it->width = 1.5;
    it->cls = "legend-mark";
    int lines = add_wrapped(f, x + 34, y, 15, name, 12, "legend", chars_for(LEGEND_W - 42, 12));
    f->legend_y += 20 + 15 * (lines - 1);
}

void plot_legend_text(plot_figure *f, const char *text) {
    int lines = add_wrapped(f, legend_x(f), f->legend_y, 14, text, 11, "note",
                            chars_for(LEGEND_W - 16, 11));
    f->legend_y += 18 + 14 * (lines - 1);
}

bool plot_legend_full(const plot_figure *f) {
    return f->legend_y > f->height - 40;
}

void plot_legend_scale(plot_figure *f, const char *ramp, double lo, double hi, const char *label) {
    double x = legend_x(f), top = f->legend_y + 10, h = 240;
    char buf[64];
    int lines =
        add_wrapped(f, x, f->legend_y, 15, label, 12, "legend", chars_for(LEGEND_W - 16, 12));
    top += 15 * (lines - 1);
    const int steps = 64;
    for (int i = 0; i < steps; i++) {
        double t = (i + 0.5) / steps;
        /* top of the bar is hi; slices overlap by a pixel so no seam shows */
        add_rect(f, x, top + h * (1 - (double)(i + 1) / steps), 24, h / steps + 1,
                 plot_ramp(ramp, t), false, "scale-step");
    }
    add_rect(f, x, top, 24, h, (plot_rgb){0, 0, 0}, true, "scale-frame");
    snprintf(buf, sizeof buf, "%.10g", hi);
    add_text(f, x + 30, top + 8, buf, 11, 0, "scale-max");
    f->items[f->item_count - 1].value = hi;
    f->items[f->item_count - 1].has_value = true;
    snprintf(buf, sizeof buf, "%.10g", lo);
    add_text(f, x + 30, top + h, buf, 11, 0, "scale-min");
    f->items[f->item_count - 1].value = lo;
    f->items[f->item_count - 1].has_value = true;
    f->legend_y = top + h + 30;
}

/* ---- SVG ---- */

/* The library's UTF-8 rule (no overlongs, no surrogates, nothing past U+10FFFF). */
static bool utf8_ok(const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = onescope_error_utf8_char(s + i, n - i, NULL);
        if (len == 0) return false;
        i += len;
    }
    return true;
}

/* Text from a file name or a title, XML-escaped and always well-formed: valid UTF-8 is kept,
 * each byte that is not UTF-8 becomes U+FFFD, and what XML 1.0 cannot hold (control bytes,
 * U+FFFE, U+FFFF) becomes '?'. */
static void svg_text(FILE *o, const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t len = onescope_error_utf8_char(s + i, n - i, &cp);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", o);
            i++;
            continue;
        }
        if (cp == '&')
            fputs("&amp;", o);
        else if (cp == '<')
            fputs("&lt;", o);
        else if (cp == '>')
            fputs("&gt;", o);
        else if (cp == '"')
            fputs("&quot;", o);
        else if (cp < 0x20 || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF)
            fputc('?', o);
        else
            fwrite(s + i, 1, len, o);
        i += len;
    }
}

static const char *const dash_svg[PLOT_DASH_COUNT] = {
    "", " stroke-dasharray=\"7 4\"", " stroke-dasharray=\"2 3\"", " stroke-dasharray=\"8 3 2 3\""};
static const double dash_len[PLOT_DASH_COUNT][4] = {{0}, {7, 4}, {2, 3}, {8, 3, 2, 3}};
static const int dash_count[PLOT_DASH_COUNT] = {0, 2, 2, 4};

static void svg_marker(FILE *o, const item *it) {
    int r = 5;
    const char *cls = it->cls;
    char col[8];
    snprintf(col, sizeof col, "#%02x%02x%02x", it->colour.r, it->colour.g, it->colour.b);
    if (it->marker == PLOT_MARK_SPAWN)
        fprintf(o,
                "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"1.5\"/>\n",
                cls, it->x, it->y, r, col);
    else if (it->marker == PLOT_MARK_REMOVE)
        fprintf(o,
                "<path class=\"%s\" d=\"M%.1f %.1fl%d %dm0 %dl%d %d\" stroke=\"%s\" "
                "stroke-width=\"1.5\"/>\n",
                cls, it->x - r, it->y - r, 2 * r, 2 * r, -2 * r, -2 * r, 2 * r, col);
    else
        fprintf(o,
                "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" "
                "stroke=\"%s\" stroke-width=\"1.5\" transform=\"rotate(45 %.1f %.1f)\"/>\n",
                cls, it->x - r, it->y - r, 2 * r, 2 * r, col, it->x, it->y);
}

/* The charge is an upper bound for coordinates of up to nine digits; this checks the bytes
 * themselves as they are written (a point far outside its panel could be longer). */
static bool render_svg(plot_figure *f, FILE *o) {
    fprintf(o,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
            "%d\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            f->width, f->height, f->width, f->height);
    /* where each panel's data sits in pixels (pixel = o + s * value) */
    for (int i = 0; i < f->panel_count; i++) {
        const panel *p = &f->panels[i];
        fprintf(o, "<g class=\"panel\" data-name=\"%s\"", p->name);
        const char *names[8] = {"x0", "x1", "y0", "y1", "sx", "sy", "ox", "oy"};
        const double values[8] = {p->x0, p->x1, p->y0, p->y1, p->sx, p->sy, p->ox, p->oy};
        for (int k = 0; k < 8; k++) {
            char v[ONESCOPE_NUMBER_MAX_LENGTH + 1]; /* the shortest text that reads back */
            onescope_number_format(values[k], v, sizeof v);
            fprintf(o, " data-%s=\"%s\"", names[k], v);
        }
        fputs("/>\n", o);
    }
    fputs("<text class=\"title\" x=\"", o);
    fprintf(o, "%d\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">", f->width / 2);
    svg_text(o, f->title_shown);
    if (strcmp(f->title_shown, f->title) != 0) {
        fputs("<title>", o);
        svg_text(o, f->title);
        fputs("</title>", o);
    }
    fputs("</text>\n", o);
    static const char *const anchors[3] = {"start", "middle", "end"};
    for (size_t k = 0; k < f->item_count; k++) {
        const item *it = &f->items[k];
        long at = ftell(o);
        if (at < 0 || (uint64_t)at > ONESCOPE_MAX_INPUT_BYTES) {
            f->too_large = true;
            return false;
        }
        char col[8];
        snprintf(col, sizeof col, "#%02x%02x%02x", it->colour.r, it->colour.g, it->colour.b);
        switch (it->kind) {
            case IT_LINE:
            case IT_POLY:
                if (it->count == 0) break;
                fprintf(o, "<%s class=\"%s\" points=\"",
                        it->kind == IT_LINE ? "polyline" : "polygon", it->cls);
                for (size_t i = 0; i < it->count; i++) {
                    const double *q = &f->pts[2 * (it->first + i)];
                    fprintf(o, "%s%.1f,%.1f", i ? " " : "", q[0], q[1]);
                }
                if (it->kind == IT_LINE)
                    fprintf(o,
                            "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" "
                            "stroke-linejoin=\"round\" stroke-linecap=\"round\"%s/>\n",
                            col, it->width, dash_svg[it->dash]);
                else
                    fprintf(o,
                            "\" fill=\"%s\" stroke=\"%s\" stroke-width=\"0.5\" "
                            "data-value=\"%.10g\"/>\n",
                            col, col, it->value);
                break;
            case IT_MARK: svg_marker(o, it); break;
            case IT_RECT:
                if (it->stroke_only)
                    fprintf(o,
                            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"none\" stroke=\"%s\"/>\n",
                            it->cls, it->x, it->y, it->w, it->h, col);
                else
                    fprintf(o,
                            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"%s\"/>\n",
                            it->cls, it->x, it->y, it->w, it->h, col);
                break;
            case IT_TEXT:
                fprintf(
                    o,
                    "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" text-anchor=\"%s\"",
                    it->cls, it->x, it->y, it->size, anchors[it->anchor]);
                if (it->has_value) {
                    char v[ONESCOPE_NUMBER_MAX_LENGTH + 1];
                    onescope_number_format(it->value, v, sizeof v);
                    fprintf(o, " data-value=\"%s\"", v);
                }
                fputc('>', o);
                svg_text(o, it->text);
                if (it->full) { /* the whole text as a tooltip */
                    fputs("<title>", o);
                    svg_text(o, it->full);
                    fputs("</title>", o);
                }
                fputs("</text>\n", o);
                break;
        }
    }
    fputs("</svg>\n", o);
    long at = ftell(o);
    if (at >= 0 && (uint64_t)at <= ONESCOPE_MAX_INPUT_BYTES) return true;
    f->too_large = true;
    return false;
}

/* ---- PNG through cairo ---- */

/* cairo's functions, loaded once by plot_png_unavailable (which cmd_plot calls before any
 * drawing, and render_png again): the answer, a table or why not, is kept */
static const plot_cairo_api *C;

const char *plot_png_unavailable(void) {
    static char why[256];
    static bool tried;
    if (!tried) C = plot_cairo_load(why, sizeof why);
    tried = true;
    return C == NULL ? why : NULL;
}

static void set_colour(cairo_t *cr, plot_rgb c) {
    C->cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

static void cairo_text(cairo_t *cr, const item *it) {
    C->cairo_set_font_size(cr, it->size);
    cairo_text_extents_t e;
    /* cairo's toy API wants UTF-8: a name that is not gets '?' for its non-ASCII bytes */
    char *s = it->text;
    char *fixed = NULL;
    if (!utf8_ok(s)) {
        fixed = dup_text(s);
        if (fixed == NULL) return;
        for (char *p = fixed; *p; p++)
            if ((unsigned char)*p >= 0x80) *p = '?';
        s = fixed;
    }
    C->cairo_text_extents(cr, s, &e);
    double x = it->x - (it->anchor == 1 ? e.x_advance / 2 : it->anchor == 2 ? e.x_advance : 0);
    C->cairo_move_to(cr, x, it->y);
    C->cairo_show_text(cr, s);
    free(fixed);
}

static void cairo_marker(cairo_t *cr, const item *it) {
    double r = 5;
    C->cairo_set_line_width(cr, 1.5);
    C->cairo_set_dash(cr, NULL, 0, 0);
    set_colour(cr, it->colour);
    C->cairo_new_path(cr);
    if (it->marker == PLOT_MARK_SPAWN) {
        C->cairo_arc(cr, it->x, it->y, r, 0, 2 * 3.14159265358979323846);
    } else if (it->marker == PLOT_MARK_REMOVE) {
        C->cairo_move_to(cr, it->x - r, it->y - r);
        C->cairo_line_to(cr, it->x + r, it->y + r);
        C->cairo_move_to(cr, it->x - r, it->y + r);
        C->cairo_line_to(cr, it->x + r, it->y - r);
    } else {
        double d = r * 1.41421356237309504880;
        C->cairo_move_to(cr, it->x, it->y - d);
        C->cairo_line_to(cr, it->x + d, it->y);
        C->cairo_line_to(cr, it->x, it->y + d);
        C->cairo_line_to(cr, it->x - d, it->y);
        C->cairo_close_path(cr);
    }
    C->cairo_stroke(cr);
}

static cairo_status_t png_sink(void *closure, const unsigned char *data, unsigned int length) {
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

/* Trajectory lines are drawn at SUPERSAMPLE times the size without antialiasing, then the
 * picture is box-filtered down. cairo's antialiasing rasteriser costs per row of every stroke's
 * bounding box (and far more when a stroke's edges cross), so 123 662 points of a long run took
 * a second with it; its aliased rasteriser does the same lines in a fifth of that, and
 * averaging 2 x 2 samples gives the edges back their antialiasing. Above SUPERSAMPLE_MAX_PX
 * pixels the figure is drawn at its own size (aliased lines) so memory stays at most 256 MB. */
enum { SUPERSAMPLE = 2 };
#define SUPERSAMPLE_MAX_PX (4096.0 * 4096.0)

static int png_supersample(const plot_figure *f) {
    return (double)f->width * f->height <= SUPERSAMPLE_MAX_PX ? SUPERSAMPLE : 1;
}

static void cairo_line(cairo_t *cr, const plot_figure *f, const item *it) {
    /* a trajectory is one path: round joins cost a circle per point, so bevel ones; a dash
     * runs on along the whole line as in the SVG */
    bool trajectory = strcmp(it->cls, "path") == 0;
    C->cairo_new_path(cr);
    for (size_t i = 0; i < it->count; i++) {
        const double *q = &f->pts[2 * (it->first + i)];
        if (i)
            C->cairo_line_to(cr, q[0], q[1]);
        else
            C->cairo_move_to(cr, q[0], q[1]);
    }
    if (it->kind == IT_POLY) {
        C->cairo_close_path(cr);
        C->cairo_fill_preserve(cr);
        C->cairo_set_line_width(cr, 0.5);
        C->cairo_set_dash(cr, NULL, 0, 0);
    } else {
        if (it->count == 1) C->cairo_rel_line_to(cr, 0, 0); /* a dot (round cap) */
        C->cairo_set_line_width(cr, it->width);
        C->cairo_set_dash(cr, dash_len[it->dash], dash_count[it->dash], 0);
    }
    if (trajectory) C->cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    C->cairo_stroke(cr);
    if (trajectory) C->cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

static void cairo_items(cairo_t *cr, const plot_figure *f) {
    C->cairo_set_source_rgb(cr, 1, 1, 1);
    C->cairo_paint(cr);
    C->cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    C->cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL);
    C->cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    item title = {.kind = IT_TEXT,
                  .x = f->width / 2.0,
                  .y = 24,
                  .size = 15,
                  .anchor = 1,
                  .text = f->title_shown};
    set_colour(cr, (plot_rgb){0, 0, 0});
    cairo_text(cr, &title);
    for (size_t k = 0; k < f->item_count; k++) {
        const item *it = &f->items[k];
        set_colour(cr, it->colour);
        switch (it->kind) {
            case IT_LINE:
            case IT_POLY:
                if (it->count > 0) cairo_line(cr, f, it);
                break;
            case IT_MARK: cairo_marker(cr, it); break;
            case IT_RECT:
                C->cairo_new_path(cr);
                C->cairo_rectangle(cr, it->x, it->y, it->w, it->h);
                if (it->stroke_only) {
                    C->cairo_set_line_width(cr, 1);
                    C->cairo_set_dash(cr, NULL, 0, 0);
                    C->cairo_stroke(cr);
                } else {
                    C->cairo_fill(cr);
                }
                break;
            case IT_TEXT: cairo_text(cr, it); break;
        }
    }
}

static bool render_png(const plot_figure *f, FILE *o) {
    if (plot_png_unavailable() != NULL) return false;
    int ss = png_supersample(f);
    cairo_surface_t *big =
        C->cairo_image_surface_create(CAIRO_FORMAT_RGB24, f->width * ss, f->height * ss);
    cairo_t *cr = C->cairo_create(big);
    C->cairo_scale(cr, ss, ss);
    cairo_items(cr, f);
    bool ok = C->cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    C->cairo_destroy(cr);
    cairo_surface_t *s = big;
    if (ss > 1) {
        /* GOOD filters a downscale over the whole footprint (a box of ss x ss samples) */
        s = C->cairo_image_surface_create(CAIRO_FORMAT_RGB24, f->width, f->height);
        cr = C->cairo_create(s);
        C->cairo_scale(cr, 1.0 / ss, 1.0 / ss);
        C->cairo_set_source_surface(cr, big, 0, 0);
        C->cairo_pattern_set_filter(C->cairo_get_source(cr), CAIRO_FILTER_GOOD);
        C->cairo_paint(cr);
        ok = ok && C->cairo_status(cr) == CAIRO_STATUS_SUCCESS;
        C->cairo_destroy(cr);
        C->cairo_surface_destroy(big);
    }
    C->cairo_surface_flush(s);
    ok = ok && C->cairo_surface_write_to_png_stream(s, png_sink, o) == CAIRO_STATUS_SUCCESS;
    C->cairo_surface_destroy(s);
    /* cairo and fontconfig keep font caches for the process's life; the CLI draws once, so
     * they are released here and leak checkers see only our own memory */
    C->cairo_debug_reset_static_data();
    if (C->fc_fini != NULL) C->fc_fini();
    return ok;
}

bool plot_figure_render(plot_figure *f, uint8_t **data, size_t *size) {
    if (f->failed) return false;
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    if (o == NULL) return false;
    bool ok = true;
    if (f->format == PLOT_SVG)
        ok = render_svg(f, o);
    else
        ok = render_png(f, o);
    ok = fclose(o) == 0 && ok;
    if (!ok) {
        free(buf);
        return false;
    }
    *data = (uint8_t *)buf;
    *size = n;
    return true;
}
