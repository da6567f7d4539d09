/* The CLI's drawing layer (docs/plot.md): one drawing interface with two back ends, a small SVG
 * writer of our own (text stays text, so a test can read the legend) and cairo for PNG.
 * Coordinates given to panels are data units; the layer maps them to pixels. Not part of the
 * library: only the onescope CLI uses it. */
#ifndef ONESCOPE_PLOT_H
#define ONESCOPE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct plot_rgb {
    uint8_t r, g, b;
} plot_rgb;

typedef enum plot_format { PLOT_SVG = 0, PLOT_PNG = 1 } plot_format;
typedef enum plot_marker {
    PLOT_MARK_SPAWN = 0,
    PLOT_MARK_REMOVE = 1,
    PLOT_MARK_HANDOVER = 2
} plot_marker;
typedef enum plot_dash {
    PLOT_SOLID = 0,
    PLOT_DASHED = 1,
    PLOT_DOTTED = 2,
    PLOT_DASH_DOT = 3
} plot_dash;
#define PLOT_DASH_COUNT 4
#define PLOT_PALETTE_SIZE 12u

/* Body or entity index -> its colour (the same index always gets the same colour). */
plot_rgb plot_palette(uint32_t index);
/* A colour ramp ("viridis" or "inferno"; anything else reads as viridis) at t in 0..1. */
plot_rgb plot_ramp(const char *ramp, double t);

typedef struct plot_figure plot_figure;

/* A figure of width x height pixels (both 64..8192) with a title on top (shortened in the
 * middle to the width, whole in the SVG's <title>) and a legend column on the right. NULL when
 * out of memory. */
plot_figure *plot_figure_create(plot_format format, int width, int height, const char *title);
void plot_figure_free(plot_figure *f);

/* Splits the drawing area into `count` panels side by side (1 or 2) and sets panel i's data
 * range and axis labels. equal_aspect: one data unit is as long on both axes (maps). */
void plot_panels(plot_figure *f, int count);
void plot_panel_setup(plot_figure *f, int panel, const char *name, double x0, double x1, double y0,
                      double y1, bool equal_aspect, const char *x_label, const char *y_label);
/* Draws the frame, ticks and labels of a panel (after setup; before or after the data). */
void plot_panel_axes(plot_figure *f, int panel);

/* A polyline in data units, streamed: points within half a pixel of the drawn line are
 * dropped as they arrive. A path that still keeps more than 4 points per pixel column of its
 * panel is simplified: from then on it keeps, per run of consecutive points, only their least
 * and greatest x and y, at most one such run per column, so memory is bounded by the panel's
 * width whatever the number of points. Several paths may be open at once (one per body).
 * NULL when out of memory (render then fails). */
typedef struct plot_path plot_path;
plot_path *plot_path_begin(plot_figure *f, int panel, plot_rgb colour, plot_dash dash,
                           double width);
void plot_path_point(plot_path *p, double x, double y);
/* Ends the current line (the next point starts a new one, e.g. after a teleport). */
void plot_path_break(plot_path *p);
/* Ends the path and frees it (NULL is fine). */
void plot_path_end(plot_path *p);
/* Points kept / points given over every path of the figure so far. */
void plot_path_counts(const plot_figure *f, uint64_t *kept, uint64_t *given);
/* true when the drawing was simplified: *series paths kept per-column extremes only,
 * *markers_dropped markers past PLOT_MAX_MARKERS were not drawn. */
bool plot_simplified(const plot_figure *f, uint64_t *series, uint64_t *markers_dropped);
/* true when the SVG would pass ONESCOPE_MAX_INPUT_BYTES (charged as elements are added;
 * render then fails). */
bool plot_too_large(const plot_figure *f);

/* At most this many spawn, removal and hand-over markers per figure. */
#define PLOT_MAX_MARKERS 10000u

void plot_marker_at(plot_figure *f, int panel, plot_marker kind, double x, double y,
                    plot_rgb colour);
/* A filled polygon in data units (a field cell); value goes into the SVG as data-value. */
void plot_cell(plot_figure *f, int panel, const double *xy, int n, plot_rgb fill, double value);

/* Legend rows, top to bottom in the right column. A text too wide for the column is wrapped at
 * spaces, a word too long shortened in the middle, with the whole text in the SVG's <title>. */
void plot_legend_line(plot_figure *f, const char *name, plot_rgb colour, plot_dash dash);
void plot_legend_marker(plot_figure *f, const char *name, plot_marker kind);
void plot_legend_text(plot_figure *f, const char *text);
/* true when the legend column has no room for another row. */
bool plot_legend_full(const plot_figure *f);
/* A vertical colour scale from lo to hi (labels with the values) under the legend rows. */
void plot_legend_scale(plot_figure *f, const char *ramp, double lo, double hi, const char *label);

/* NULL when PNG can be drawn; else why not (cairo is loaded at run time: cairo_api.h). */
const char *plot_png_unavailable(void);

/* Renders into a new malloc'd buffer (*data, *size). false when out of memory or cairo failed. */
bool plot_figure_render(plot_figure *f, uint8_t **data, size_t *size);

/* A length unit for axes: millimetres below 2 m of span, else metres. */
typedef struct plot_unit {
    const char *name; /* "mm" or "m" */
    double per_metre; /* 1000 or 1 */
} plot_unit;
plot_unit plot_unit_for_span(double metres);

#endif
