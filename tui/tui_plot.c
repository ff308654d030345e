/* tui_plot.c — the plot panel: graph memory against the knob in focus, as braille (or ASCII
 * levels), with the SGLang heuristic, the comparison, the wall and the stored runs. It draws the
 * curves tui_app_recompute left in the app; it computes no memory itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

/* Unicode braille: U+2800 plus one bit per dot, BRAILLE_W x BRAILLE_H dots to a cell. The
 * legend shows the prediction as U+28C0, the two bottom dots. */
#define BRAILLE_BASE 0x2800
#define BRAILLE_LEGEND 0x28C0
#define BRAILLE_W 2
#define BRAILLE_H 4

/* The y labels' column left of the axis ("%6.1f" and the axis itself), and the y range: the
 * highest point plus Y_HEADROOM, rounded up to a nice number. Values get one decimal below
 * Y_ONE_DECIMAL_BELOW GiB; the middle label only from Y_MID_LABEL_MIN_H rows on. */
#define Y_LABEL_W 7
#define Y_HEADROOM 1.05
#define Y_ONE_DECIMAL_BELOW 10
#define Y_MID_LABEL_MIN_H 5
/* A chart narrower than this is not drawn. */
#define CHART_MIN_W 8
/* One x label per X_TICK_COLS columns, at least X_MIN_TICKS; a label takes at most X_LABEL_MAX_W. */
#define X_TICK_COLS 10
#define X_MIN_TICKS 2
#define X_LABEL_MAX_W 16
/* The wall's label ("wall", "wall B") starts WALL_LABEL_GAP columns right of the wall. */
#define WALL_LABEL_GAP 2
#define WALL_LABEL_W 6
/* Slack in comparing x values (knob steps are doubles), and what keeps y = y_max in the top row. */
#define X_EPS 1e-9
#define TOP_EPS 1e-6

/* The next of 1, 2, 2.5, 5 and 10 times a power of ten at least V: the y axis's upper end. */
static double nice_ceil(double v)
{
    if (v <= 0)
        return 1;
    double e = pow(10, floor(log10(v)));
    double m = v / e;
    double n = m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10;
    return n * e;
}

typedef struct {
    int cx, cy, cw, ch; /* chart cells */
    double x_lo, x_hi, y_max;
    bool log;
} plot_frame;

static double fx(const plot_frame *f, double x)
{
    double a = f->log ? log2(f->x_lo > 0 ? f->x_lo : 1) : f->x_lo;
    double b = f->log ? log2(f->x_hi) : f->x_hi;
    double v = f->log ? log2(x > 0 ? x : 1) : x;
    return b > a ? (v - a) / (b - a) : 0;
}

/* Curve value at X by linear interpolation; false outside the curve. */
static bool curve_at(const tui_curve *c, const double *ys, double x, double *y)
{
    if (c->n == 0 || x < c->x[0] - X_EPS || x > c->x[c->n - 1] + X_EPS)
        return false;
    for (size_t i = 0; i + 1 < c->n; i++)
        if (x <= c->x[i + 1]) {
            double t = c->x[i + 1] > c->x[i] ? (x - c->x[i]) / (c->x[i + 1] - c->x[i]) : 0;
            *y = ys[i] + t * (ys[i + 1] - ys[i]);
            return true;
        }
    *y = ys[c->n - 1];
    return true;
}

static double col_value(const plot_frame *f, double col_frac)
{
    if (f->log) {
        double a = log2(f->x_lo > 0 ? f->x_lo : 1), b = log2(f->x_hi);
        return pow(2, a + col_frac * (b - a));
    }
    return f->x_lo + col_frac * (f->x_hi - f->x_lo);
}

/* Braille: BRAILLE_W x BRAILLE_H dots per cell. */
static void plot_braille(tui_screen *s, const plot_frame *f, const tui_curve *c, const double *ys, tui_style st)
{
    int dw = f->cw * BRAILLE_W, dh = f->ch * BRAILLE_H;
    unsigned char *bits = calloc((size_t)f->cw * (size_t)f->ch, 1);
    if (!bits)
        return;
    static const unsigned char dot[BRAILLE_H][BRAILLE_W] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    int prev_row = -1;
    for (int dx = 0; dx < dw; dx++) {
        double x = col_value(f, dw > 1 ? (double)dx / (dw - 1) : 0);
        double y;
        if (!curve_at(c, ys, x, &y)) {
            prev_row = -1;
            continue;
        }
        int row = dh - 1 - (int)lround(y / f->y_max * (dh - 1));
        if (row < 0)
            row = 0;
        if (row > dh - 1)
            row = dh - 1;
        int a = prev_row < 0 ? row : prev_row, b = row;
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        if (prev_row >= 0 && a != b) { /* join to the previous column: no gaps on steep parts */
            if (prev_row < row)
                a = prev_row + 1;
            else
                b = prev_row - 1;
            if (a > b)
                a = b = row;
        }
        for (int r = a; r <= b; r++)
            bits[(r / BRAILLE_H) * f->cw + dx / BRAILLE_W] |= dot[r % BRAILLE_H][dx % BRAILLE_W];
        bits[(row / BRAILLE_H) * f->cw + dx / BRAILLE_W] |= dot[row % BRAILLE_H][dx % BRAILLE_W];
        prev_row = row;
    }
    for (int cy = 0; cy < f->ch; cy++)
        for (int cx = 0; cx < f->cw; cx++)
            if (bits[cy * f->cw + cx])
                tui_put(s, f->cx + cx, f->cy + cy, (wchar_t)(BRAILLE_BASE + bits[cy * f->cw + cx]), st);
    free(bits);
}

/* One glyph per cell column; ASCII_LEVELS picks . : ' by the height inside the cell. */
static void plot_cells(tui_screen *s, const plot_frame *f, const tui_curve *c, const double *ys, wchar_t glyph,
                       bool ascii_levels, tui_style st)
{
    int prev = -1;
    for (int cx = 0; cx < f->cw; cx++) {
        double x = col_value(f, f->cw > 1 ? (double)cx / (f->cw - 1) : 0);
        double y;
        if (!curve_at(c, ys, x, &y)) {
            prev = -1;
            continue;
        }
        double pos = y / f->y_max * f->ch; /* 0 .. ch, from the bottom */
        if (pos < 0)
            pos = 0;
        if (pos > f->ch - TOP_EPS)
            pos = f->ch - TOP_EPS;
        int row = f->ch - 1 - (int)floor(pos);
        double frac = pos - floor(pos);
        wchar_t ch = glyph;
        if (ascii_levels)
            ch = frac < 1.0 / 3 ? L'.' : frac < 2.0 / 3 ? L':' : L'\'';
        if (ascii_levels && prev >= 0 && prev != row) { /* steep: a column of ':' */
            int step = prev < row ? 1 : -1;
            for (int r = prev + step; r != row; r += step)
                tui_put(s, f->cx + cx, f->cy + r, L':', st);
        }
        tui_put(s, f->cx + cx, f->cy + row, ch, st);
        prev = row;
    }
}

static int plot_col(const plot_frame *f, double x)
{
    return (int)lround(fx(f, x) * (f->cw - 1));
}

static int plot_row(const plot_frame *f, double y)
{
    double pos = y / f->y_max * f->ch;
    if (pos > f->ch - TOP_EPS)
        pos = f->ch - TOP_EPS;
    if (pos < 0)
        pos = 0;
    return f->ch - 1 - (int)floor(pos);
}

bool tui_run_on_axis(const tui_app *app, const tui_plan *p, const store_run_summary *r, engine_deployment *scratch,
                     double *value, uint32_t *unknown)
{
    *unknown = 0;
    if (strcmp(r->model, p->d.model.name) != 0 || !isfinite(r->total_gib))
        return false;
    engine_knob_id axis = app->axis;
    scratch->knobs = r->knobs; /* the knobs are all the comparisons read */
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (!(ENGINE_SHAPE_MASK & KNOB_BIT(k)) || k == (int)axis)
            continue;
        /* the shape's knobs are counts of at least 1: 0 is the store's unknown */
        if (!engine_knob_is_auto(scratch, (engine_knob_id)k) && engine_knob_value(scratch, (engine_knob_id)k) == 0)
            *unknown |= KNOB_BIT(k);
        else if (!engine_knob_equal(scratch, &p->d, (engine_knob_id)k))
            return false;
    }
    if (engine_knob_is_auto(scratch, axis) || !(ENGINE_SHAPE_MASK & KNOB_BIT(axis) || axis == KNOB_MAX_DISPATCH))
        return false;
    *value = engine_knob_value(scratch, axis);
    return *value > 0;
}

/* The x of a stored run on the plot (dp x max_bs in the concurrency view: the plan's dp where the
 * run leaves it unknown), or false when it is not on it. */
static bool run_point(const tui_app *app, const tui_plan *p, const store_run_summary *r, engine_deployment *run,
                      double *x, uint32_t *unknown)
{
    if (!tui_run_on_axis(app, p, r, run, x, unknown))
        return false;
    if (app->axis == KNOB_MAX_BS && app->concurrency && app->compare) /* instance concurrency: dp x max_bs */
        *x *= r->knobs.dp ? r->knobs.dp : p->d.knobs.dp;
    return true;
}

static void axis_label(engine_knob_id axis, double v, char *buf, size_t len)
{
    const engine_knob_info *k = &engine_knobs[axis];
    if (k->field == KNOB_FIELD_DOUBLE) /* a fraction */
        snprintf(buf, len, "%.2f", v);
    else if (k->steps == KNOB_STEPS_POW2) /* a power-of-two axis reads as K and M */
        snprintf(buf, len,
                 v >= ENGINE_MIB ? "%.0fM"
                 : v >= 1024     ? "%.0fK"
                                 : "%.0f",
                 v >= ENGINE_MIB ? v / ENGINE_MIB
                 : v >= 1024     ? v / 1024
                                 : v);
    else
        snprintf(buf, len, "%.0f", v);
}

/* The legend on the plot's top border, right-aligned where it fits after TITLE; the hollow mark
 * only when the frame drew one. */
static void draw_legend(tui_app *app, tui_screen *s, tui_rect r, const char *title, bool cmp)
{
    const tui_glyphs *g = app->g;
    char legend[256];
    /* %lc depends on the locale; build it by hand instead. */
    {
        char out[256];
        size_t o = 0;
        wchar_t glyphs[6] = {g->utf8 ? (wchar_t)BRAILLE_LEGEND : L'.', cmp ? g->pred_b : g->observed, g->observed,
                             g->heur, g->wall};
        const char *words[6];
        int nw;
        char label[2][ENGINE_TEXT_MAX];
        if (cmp) {
            tui_app_plan_label(app, 0, label[0], sizeof label[0]);
            tui_app_plan_label(app, 1, label[1], sizeof label[1]);
            words[0] = label[0];
            words[1] = label[1];
            words[2] = "observed";
            words[3] = "heuristic";
            words[4] = "wall";
            nw = 5;
        } else {
            glyphs[1] = g->observed;
            glyphs[2] = g->heur;
            glyphs[3] = g->wall;
            words[0] = "predicted";
            words[1] = "observed";
            words[2] = "heuristic";
            words[3] = "wall";
            nw = 4;
        }
        if (app->runs_hollow) {
            glyphs[nw] = g->observed_hollow;
            words[nw++] = "a knob unknown";
        }
        out[o++] = ' ';
        for (int i = 0; i < nw && o + 64 < sizeof out; i++) {
            o += (size_t)tui_utf8_encode(glyphs[i], out + o);
            o += (size_t)snprintf(out + o, sizeof out - o, " %s  ", words[i]);
        }
        out[o] = '\0';
        snprintf(legend, sizeof legend, "%s", out);
    }
    int lw = tui_text_width(legend);
    int title_end = r.x + 4 + tui_text_width(title);
    if (r.x + r.w - 2 - lw > title_end)
        tui_print(s, r.x + r.w - 2 - lw, r.y, lw, TUI_ST_DIM, legend);
}

void tui_draw_plot(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    if (r.h < TUI_PLOT_MIN_H)
        return;
    engine_deployment run = app->plan[0].d; /* each stored run's knobs go in here in turn */
    bool cmp = app->compare && app->plan[1].loaded;
    char title[256];
    const char *xname = app->concurrency && cmp && app->axis == KNOB_MAX_BS ? "dp x max_bs (instance concurrency)"
                                                                            : engine_knobs[app->axis].name;
    snprintf(title, sizeof title, "graph memory (GiB) vs %s", xname);
    tui_draw_box(s, g, r, title, false);
    plot_frame f;
    int yl = Y_LABEL_W;
    f.cx = r.x + 1 + yl;
    f.cy = r.y + 1;
    f.cw = r.w - 2 - yl - 1;
    f.ch = r.h - 2; /* the last row holds the x labels */
    f.x_lo = app->x_lo;
    f.x_hi = app->x_hi;
    f.log = app->x_log;
    if (f.cw < CHART_MIN_W || f.ch < 1) {
        draw_legend(app, s, r, title, cmp);
        return;
    }
    double ymax = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < app->curve[k].n; i++) {
            if (app->curve[k].total_gib[i] > ymax)
                ymax = app->curve[k].total_gib[i];
            if (app->curve[k].heur_gib[i] > ymax)
                ymax = app->curve[k].heur_gib[i];
        }
    for (size_t i = 0; i < app->n_runs; i++) {
        double x;
        uint32_t unknown;
        for (int k = 0; k < (cmp ? 2 : 1); k++)
            if (run_point(app, &app->plan[k], &app->runs[i], &run, &x, &unknown) && x <= f.x_hi &&
                app->runs[i].total_gib > ymax)
                ymax = app->runs[i].total_gib;
    }
    f.y_max = nice_ceil(ymax * Y_HEADROOM);
    /* y axis */
    for (int row = 0; row < f.ch; row++) {
        tui_put(s, f.cx - 1, f.cy + row, g->axis_v, TUI_ST_BORDER);
    }
    int label_rows[3] = {0, f.ch / 2, f.ch - 1};
    for (int i = 0; i < 3; i++) {
        int row = label_rows[i];
        if (i == 1 && (f.ch < Y_MID_LABEL_MIN_H))
            continue;
        double v = f.y_max * (double)(f.ch - 1 - row + (row == f.ch - 1 ? 0 : 1)) / f.ch;
        if (row == f.ch - 1)
            v = 0;
        tui_printf(s, r.x + 1, f.cy + row, yl - 1, TUI_ST_DIM, "%*.*f", yl - 1, f.y_max < Y_ONE_DECIMAL_BELOW ? 1 : 0,
                   v);
        tui_put(s, f.cx - 1, f.cy + row, g->tick, TUI_ST_BORDER);
    }
    /* x labels */
    int ly = f.cy + f.ch;
    int last_end = -1;
    int n_ticks = f.cw / X_TICK_COLS;
    if (n_ticks < X_MIN_TICKS)
        n_ticks = X_MIN_TICKS;
    for (int t = 0; t <= n_ticks; t++) {
        double frac = (double)t / n_ticks;
        double v = col_value(&f, frac);
        if (!f.log && engine_knobs[app->axis].field != KNOB_FIELD_DOUBLE) {
            double step = nice_ceil((f.x_hi - f.x_lo) / n_ticks);
            v = f.x_lo + step * t;
            if (v > f.x_hi + X_EPS)
                break;
        }
        char lab[32];
        axis_label(app->axis, v, lab, sizeof lab);
        int col = plot_col(&f, v);
        int lx = f.cx + col - tui_text_width(lab) / 2;
        if (lx <= last_end || lx + tui_text_width(lab) > r.x + r.w - 1)
            continue;
        tui_print(s, lx, ly, X_LABEL_MAX_W, TUI_ST_DIM, lab);
        last_end = lx + tui_text_width(lab);
    }
    /* series: heuristic, comparison, prediction, wall, observed */
    for (int k = cmp ? 1 : 0; k >= 0; k--)
        plot_cells(s, &f, &app->curve[k], app->curve[k].heur_gib, g->heur, false, TUI_ST_HEUR);
    if (cmp)
        plot_cells(s, &f, &app->curve[1], app->curve[1].total_gib, g->pred_b, false, TUI_ST_PRED_B);
    if (g->utf8)
        plot_braille(s, &f, &app->curve[0], app->curve[0].total_gib, TUI_ST_PRED);
    else
        plot_cells(s, &f, &app->curve[0], app->curve[0].total_gib, L'.', true, TUI_ST_PRED);
    for (int k = 0; k < (cmp ? 2 : 1); k++) {
        const tui_curve *c = &app->curve[k];
        if (!c->has_wall || c->wall_x < f.x_lo || c->wall_x > f.x_hi)
            continue;
        int col = plot_col(&f, c->wall_x);
        for (int row = 0; row < f.ch; row++) {
            tui_cell *cell = tui_screen_at(s, f.cx + col, f.cy + row);
            if (cell->ch == L' ')
                tui_put(s, f.cx + col, f.cy + row, g->wall, TUI_ST_WALL);
        }
        const char *lab = k ? "wall B" : "wall";
        if (col + WALL_LABEL_GAP + WALL_LABEL_W < f.cw)
            tui_print(s, f.cx + col + WALL_LABEL_GAP, f.cy + k, WALL_LABEL_W, TUI_ST_WALL, lab);
    }
    /* a run that leaves a knob of the shape unknown is drawn hollow, and counted for the note */
    for (int k = 0; k < (cmp ? 2 : 1); k++)
        for (size_t i = 0; i < app->n_runs; i++) {
            double x;
            uint32_t unknown;
            if (!run_point(app, &app->plan[k], &app->runs[i], &run, &x, &unknown) || x < f.x_lo || x > f.x_hi)
                continue;
            wchar_t mark = unknown ? (k ? g->observed_b_hollow : g->observed_hollow) : k ? g->observed_b : g->observed;
            tui_put(s, f.cx + plot_col(&f, x), f.cy + plot_row(&f, app->runs[i].total_gib), mark, TUI_ST_OBSERVED);
            if (unknown) {
                app->runs_hollow++;
                app->runs_hollow_unknown |= unknown;
            }
        }
    draw_legend(app, s, r, title, cmp);
}
