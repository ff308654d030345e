/* tui_layout.c — the layout as a pure function of the terminal size. */
#include "tui_layout.h"

#include <math.h>
#include <stdlib.h>

/* The knob box's width: 45% of the terminal, within [KNOBS_MIN_W, KNOBS_MAX_W] (the sliders'
 * columns need KNOBS_MIN_W; wider, the term table makes better use of the room). */
#define KNOBS_SHARE_NUM 9
#define KNOBS_SHARE_DEN 20
#define KNOBS_MIN_W 34
#define KNOBS_MAX_W 72
/* From this height on the knob box has three detail lines under the knobs, else one. */
#define KNOBS_TALL_H 34
#define KNOBS_DETAIL_TALL 3
#define KNOBS_DETAIL_SHORT 1

/* One slider line: the name column (19 fits "mem_fraction_static"; narrow boxes get 12), the
 * value column ("auto 1024"), and at least a few columns of track. */
#define SLIDER_WIDE_IW 52
#define SLIDER_NAME_W_WIDE 19
#define SLIDER_NAME_W_NARROW 12
#define SLIDER_VALUE_W 9
#define SLIDER_MIN_REST 4
/* With this much room after the value, range, unit and warnings get a column of their own:
 * 2/5 of that room, at most SLIDER_EXTRA_MAX_W. */
#define SLIDER_EXTRA_MIN_REST 40
#define SLIDER_EXTRA_NUM 2
#define SLIDER_EXTRA_DEN 5
#define SLIDER_EXTRA_MAX_W 26

static tui_rect rect(int x, int y, int w, int h)
{
    tui_rect r = {x, y, w > 0 ? w : 0, h > 0 ? h : 0};
    return r;
}

void tui_layout_compute(int w, int h, int limits_rows, tui_layout *out)
{
    *out = (tui_layout){.w = w, .h = h};
    if (w < TUI_MIN_W || h < TUI_MIN_H) {
        out->too_small = true;
        return;
    }
    /* Knob box: 10 knob rows + detail lines + borders; more detail when there are rows to spare. */
    int box_h = 2 + TUI_KNOB_ROWS + (h >= KNOBS_TALL_H ? KNOBS_DETAIL_TALL : KNOBS_DETAIL_SHORT);
    int knobs_w = w * KNOBS_SHARE_NUM / KNOBS_SHARE_DEN;
    if (knobs_w < KNOBS_MIN_W)
        knobs_w = KNOBS_MIN_W;
    if (knobs_w > KNOBS_MAX_W)
        knobs_w = KNOBS_MAX_W;
    int y = 0;
    out->panel[TUI_PANEL_HEADER] = rect(0, y, w, 1);
    y += 1;
    out->panel[TUI_PANEL_KNOBS] = rect(0, y, knobs_w, box_h);
    out->panel[TUI_PANEL_TERMS] = rect(knobs_w, y, w - knobs_w, box_h);
    y += box_h;
    out->panel[TUI_PANEL_TOTAL] = rect(0, y, w, 1);
    y += 1;
    out->panel[TUI_PANEL_BAR] = rect(0, y, w, 1);
    y += 1;
    /* At the bottom: the limiting sentence on the rows it wraps to, which the plot gives up (the
     * sentence keeps at least one, and never takes the status line), and the status line. */
    int limits_h = limits_rows < 1 ? 1 : limits_rows;
    if (limits_h > h - y - 1)
        limits_h = h - y - 1;
    int plot_h = h - y - limits_h - 1;
    if (plot_h >= TUI_PLOT_MIN_H) {
        out->panel[TUI_PANEL_PLOT] = rect(0, y, w, plot_h);
        y += plot_h;
    } else {
        out->panel[TUI_PANEL_PLOT] = rect(0, y, w, 0);
        y = h - limits_h - 1;
    }
    out->panel[TUI_PANEL_LIMITS] = rect(0, y, w, limits_h);
    y += limits_h;
    out->panel[TUI_PANEL_STATUS] = rect(0, y, w, 1);
}

void tui_slider_geometry(int iw, tui_slider_geom *g)
{
    /* " max_dispatch  auto 144 ━━━●─── 8..1024 tokens" */
    g->name_x = 1;
    g->name_w = iw >= SLIDER_WIDE_IW ? SLIDER_NAME_W_WIDE : SLIDER_NAME_W_NARROW;
    g->value_x = g->name_x + g->name_w + 1;
    g->value_w = SLIDER_VALUE_W;
    g->track_x = g->value_x + g->value_w + 1;
    int rest = iw - g->track_x - 1;
    if (rest < SLIDER_MIN_REST)
        rest = SLIDER_MIN_REST;
    /* On wide boxes the range, unit and warnings get their own column beside the track. */
    g->extra_w = rest >= SLIDER_EXTRA_MIN_REST ? rest * SLIDER_EXTRA_NUM / SLIDER_EXTRA_DEN : 0;
    if (g->extra_w > SLIDER_EXTRA_MAX_W)
        g->extra_w = SLIDER_EXTRA_MAX_W;
    g->track_w = rest - (g->extra_w ? g->extra_w + 1 : 0);
    g->extra_x = g->track_x + g->track_w + 1;
}

int tui_slider_col_for_index(size_t n, int track_w, size_t index)
{
    if (n <= 1 || track_w <= 1)
        return 0;
    if (index >= n)
        index = n - 1;
    /* index 0 -> column 0, index n-1 -> the last column, linear between (rounded). */
    return (int)((index * (size_t)(track_w - 1) + (n - 1) / 2) / (n - 1));
}

size_t tui_slider_index_for_col(size_t n, int track_w, int col)
{
    if (n <= 1 || track_w <= 1)
        return 0;
    if (col < 0)
        col = 0;
    if (col > track_w - 1)
        col = track_w - 1;
    /* The estimate, then the neighbour whose own column is nearest: exact inverse of
     * tui_slider_col_for_index whenever the columns are distinct. */
    size_t guess = ((size_t)col * (n - 1) + (size_t)(track_w - 1) / 2) / (size_t)(track_w - 1);
    size_t best = guess;
    int best_d = abs(tui_slider_col_for_index(n, track_w, guess) - col);
    for (int delta = -1; delta <= 1; delta += 2) {
        if ((delta < 0 && guess == 0) || (delta > 0 && guess + 1 >= n))
            continue;
        size_t i = guess + (size_t)(long)delta;
        if (delta < 0)
            i = guess - 1;
        int d = abs(tui_slider_col_for_index(n, track_w, i) - col);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

size_t tui_slider_nearest_index(const double *steps, size_t n, double value)
{
    size_t best = 0;
    double best_d = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(steps[i] - value);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}
