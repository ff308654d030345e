/* tui_layout.h — where every panel goes, as a pure function of the terminal size (nvtop), and
 * the geometry of one slider line with its value <-> column mapping. Unit-tested without a
 * terminal (tests/unit/test_tui_layout.c). */
#ifndef CGPLAN_TUI_LAYOUT_H
#define CGPLAN_TUI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "tui_screen.h"

#define TUI_MIN_W 60
#define TUI_MIN_H 20

typedef enum {
    TUI_PANEL_HEADER, /* title line */
    TUI_PANEL_KNOBS,  /* boxed: the sliders and secondary knobs */
    TUI_PANEL_TERMS,  /* boxed: the term table */
    TUI_PANEL_TOTAL,  /* one line: total and the SGLang heuristic */
    TUI_PANEL_BAR,    /* one line: the per-GPU memory bar */
    TUI_PANEL_PLOT,   /* boxed: graph memory vs the knob in focus (h 0 below TUI_PLOT_MIN_H) */
    TUI_PANEL_LIMITS, /* one line: what limits this deployment */
    TUI_PANEL_STATUS, /* one line: store, warnings, typed input */
    TUI_PANEL_COUNT
} tui_panel;

typedef struct {
    int w, h;
    bool too_small; /* below TUI_MIN_W x TUI_MIN_H: only the "too small" screen */
    tui_rect panel[TUI_PANEL_COUNT];
} tui_layout;

/* The plot's box needs its top border, two rows of chart and the row of x labels. */
#define TUI_PLOT_MIN_H 4

/* The layout for a W x H terminal, the limiting sentence on LIMITS_ROWS lines (as many as fit
 * above the status line; the plot gives them up). Panels never overlap and stay inside the
 * screen. */
void tui_layout_compute(int w, int h, int limits_rows, tui_layout *out);
/* Rows inside the knobs box: one per knob (KNOB_COUNT), then detail lines. */
#define TUI_KNOB_ROWS KNOB_PANEL_COUNT

/* One slider line inside a box of interior width IW: marker, name, value, track, extra text. */
typedef struct {
    int name_x, name_w;
    int value_x, value_w;
    int track_x, track_w;
    int extra_x, extra_w; /* range, unit and warnings; 0 wide on narrow screens */
} tui_slider_geom;

void tui_slider_geometry(int iw, tui_slider_geom *g);

/* The track maps linearly onto the knob's list of N values: index <-> column in [0, track_w). */
int tui_slider_col_for_index(size_t n, int track_w, size_t index);
size_t tui_slider_index_for_col(size_t n, int track_w, int col);
/* The index of the step nearest to VALUE in the ascending list STEPS[0..n). */
size_t tui_slider_nearest_index(const double *steps, size_t n, double value);

#endif
