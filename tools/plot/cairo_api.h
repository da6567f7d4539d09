/* cairo as plot.c calls it: every function through a pointer that plot_cairo_load fills from
 * libcairo at the first PNG. The CLI does not link cairo, so the twenty libraries behind it
 * (fontconfig, freetype, X11, ...) are not loaded by the commands that never draw a PNG:
 * onescope starts like cat, where it spent 7 ms more (docs/plot.md). Include from plot.c
 * only: the names of cairo's functions become the table's members below. */
#ifndef ONESCOPE_PLOT_CAIRO_API_H
#define ONESCOPE_PLOT_CAIRO_API_H

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <stdbool.h>
#include <stddef.h>

#define PLOT_CAIRO_FUNCTIONS(X)                                                                    \
    X(cairo_arc)                                                                                   \
    X(cairo_close_path)                                                                            \
    X(cairo_create)                                                                                \
    X(cairo_debug_reset_static_data)                                                               \
    X(cairo_destroy)                                                                               \
    X(cairo_fill)                                                                                  \
    X(cairo_fill_preserve)                                                                         \
    X(cairo_get_source)                                                                            \
    X(cairo_image_surface_create)                                                                  \
    X(cairo_line_to)                                                                               \
    X(cairo_move_to)                                                                               \
    X(cairo_new_path)                                                                              \
    X(cairo_paint)                                                                                 \
    X(cairo_pattern_set_filter)                                                                    \
    X(cairo_rectangle)                                                                             \
    X(cairo_rel_line_to)                                                                           \
    X(cairo_scale)                                                                                 \
    X(cairo_select_font_face)                                                                      \
    X(cairo_set_antialias)                                                                         \
    X(cairo_set_dash)                                                                              \
    X(cairo_set_font_size)                                                                         \
    X(cairo_set_line_cap)                                                                          \
    X(cairo_set_line_join)                                                                         \
    X(cairo_set_line_width)                                                                        \
    X(cairo_set_source_rgb)                                                                        \
    X(cairo_set_source_surface)                                                                    \
    X(cairo_show_text)                                                                             \
    X(cairo_status)                                                                                \
    X(cairo_stroke)                                                                                \
    X(cairo_surface_destroy)                                                                       \
    X(cairo_surface_flush)                                                                         \
    X(cairo_surface_write_to_png_stream)                                                           \
    X(cairo_text_extents)

typedef struct plot_cairo_api {
#define PLOT_CAIRO_MEMBER(f) __typeof__(f) *f;
    PLOT_CAIRO_FUNCTIONS(PLOT_CAIRO_MEMBER)
#undef PLOT_CAIRO_MEMBER
    /* fontconfig's, found through cairo's own dependencies; NULL when cairo has none */
    __typeof__(FcFini) *fc_fini;
} plot_cairo_api;

/* The table, or NULL when cairo could not be loaded (then *why, of n bytes, says why: the
 * library's name and the loader's message). Called once a process, by plot.c, which keeps
 * the answer. */
const plot_cairo_api *plot_cairo_load(char *why, size_t n);

#endif
