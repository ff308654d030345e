/* tui_knobs.c — the knob panel: one slider per knob (name, value, track and thumb, range or
 * warning), then detail lines on the knob in focus. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

/* The engine's brief text of the first warning that concerns KNOB, in its place. */
static bool knob_warning(const tui_app *app, int knob, char *buf, size_t len)
{
    const engine_warning *w = engine_warning_for_knob(&app->plan[0].e.warnings, (engine_knob_id)knob);
    snprintf(buf, len, "%s", w ? w->brief : "");
    return w != NULL;
}

static void knob_value_text(const tui_app *app, int knob, char *buf, size_t len)
{
    const tui_plan *p = &app->plan[0];
    engine_knob_text(&p->d, &p->e, (engine_knob_id)knob, KNOB_TEXT_SHORT, buf, len);
}

/* The knob's name, or its shorter label where the name column is narrower than the name. */
static const char *knob_label(int knob, int w)
{
    const engine_knob_info *k = &engine_knobs[knob];
    return (int)strlen(k->name) > w ? k->label : k->name;
}

/* How one slider line looks: the label (and the focus marker before it), the value, and the
 * track left of the thumb (FILL), the thumb and the track right of it (EMPTY). */
typedef struct {
    bool focused; /* the focus marker in the first column, in the label's style */
    tui_style label, value;
    tui_style fill, thumb, empty;
} slider_styles;

/* One slider on LINE, a row of the knob box's interior (tui_slider_geometry's columns for its
 * width): LABEL left-aligned in the name column, VALUE right-aligned in the value column, and the
 * track with the thumb at step INDEX of COUNT. No track when COUNT is 0: the caller may put
 * something else there. The column beside the track (range, warnings) is the caller's too. */
static void tui_draw_slider(tui_screen *s, const tui_glyphs *g, tui_rect line, const char *label, const char *value,
                            size_t index, size_t count, const slider_styles *st)
{
    tui_slider_geom geo;
    tui_slider_geometry(line.w, &geo);
    int y = line.y;
    if (st->focused)
        tui_put(s, line.x, y, g->focus, st->label);
    tui_printf(s, line.x + geo.name_x, y, geo.name_w, st->label, "%-*s", geo.name_w, label);
    tui_printf(s, line.x + geo.value_x, y, geo.value_w, st->value, "%*s", geo.value_w, value);
    if (count == 0)
        return;
    int tx = line.x + geo.track_x;
    int thumb = tui_slider_col_for_index(count, geo.track_w, index);
    for (int c = 0; c < geo.track_w; c++) {
        wchar_t ch = c < thumb ? g->fill : c == thumb ? g->thumb : g->empty;
        tui_style cs = c < thumb ? st->fill : c == thumb ? st->thumb : st->empty;
        tui_put(s, tx + c, y, ch, cs);
    }
}

/* The buckets knob has no steps: its list of buckets goes where the track would, W columns from
 * X, cut with "~" when it does not fit. */
static void draw_bucket_list(tui_screen *s, const engine_estimate *e, int x, int y, int w)
{
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < e->n_buckets && used + 8 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", i ? "," : "", e->buckets[i]);
    if (tui_text_width(list) > w && w > 1) {
        list[w - 1] = '\0';
        snprintf(list + w - 1, 2, "~");
    }
    tui_print(s, x, y, w, TUI_ST_DIM, list);
}

void tui_draw_knobs(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    tui_draw_box(s, g, r, "knobs", true);
    int ix = r.x + 1, iy = r.y + 1, iw = r.w - 2, ih = r.h - 2;
    tui_slider_geom geo;
    tui_slider_geometry(iw, &geo);
    const tui_plan *p = &app->plan[0];
    double *steps = app->scratch.steps;
    char val[64], warn[128];
    int first_warn = -1;
    for (int k = 0; k < TUI_KNOB_ROWS && k < ih; k++) {
        int y = iy + k;
        bool focused = app->focus == k;
        bool warned = knob_warning(app, k, warn, sizeof warn);
        if (warned && first_warn < 0)
            first_warn = k;
        knob_value_text(app, k, val, sizeof val);
        size_t cur;
        size_t n = tui_app_knob_steps(app, k, steps, TUI_CURVE_MAX, &cur);
        bool list = engine_knobs[k].field == KNOB_FIELD_LIST;
        const slider_styles st = {
            .focused = focused,
            .label = focused ? TUI_ST_FOCUS : TUI_ST_NORMAL,
            .value = warned ? TUI_ST_WARN : TUI_ST_NORMAL,
            .fill = TUI_ST_TRACK,
            .thumb = TUI_ST_THUMB,
            .empty = TUI_ST_DIM,
        };
        tui_draw_slider(s, g, (tui_rect){ix, y, iw, 1}, knob_label(k, geo.name_w), val, cur, list ? 0 : n, &st);
        if (list)
            draw_bucket_list(s, &p->e, ix + geo.track_x, y, geo.track_w);
        if (geo.extra_w > 0) {
            if (warned)
                tui_printf_glyphs(s, g, ix + geo.extra_x, y, geo.extra_w, TUI_ST_WARN, "%s", warn);
            else
                tui_printf_glyphs(s, g, ix + geo.extra_x, y, geo.extra_w, TUI_ST_DIM, "%s %s", engine_knobs[k].range,
                                  engine_knobs[k].unit);
        }
    }
    /* Detail lines: a warning in full, else what the focused knob means. */
    int row = TUI_KNOB_ROWS;
    if (row < ih) {
        if (first_warn >= 0 && geo.extra_w == 0) {
            knob_warning(app, first_warn, warn, sizeof warn);
            tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_WARN, "%s %s", engine_knobs[first_warn].name,
                              warn);
        } else {
            const engine_knob_info *info = &engine_knobs[app->focus];
            char step[96];
            engine_knob_steps_text(info, step, sizeof step);
            tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "%s: %s %s · step %s", info->name,
                              info->range, info->unit, step);
        }
        row++;
    }
    if (row < ih) {
        char help[ENGINE_TEXT_MAX * 2];
        tui_knob_help(app, app->focus, help, sizeof help);
        tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "%s", help);
        row++;
    }
    if (row < ih) {
        const engine_estimate *e = &p->e;
        tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "KV: 1 GiB of graphs = %llu tokens (cell %llu B)",
                          (unsigned long long)e->budget.kv_tokens_per_gib, (unsigned long long)e->budget.kv_cell_bytes);
    }
}
