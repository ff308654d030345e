/* tui_overlay.c — the windows drawn over the main screen: help, the preset picker, the runs
 * browser and its delete confirmation. */
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

/* Each window's width: the help's and the lists' longest lines (a preset's or a run's row), the
 * confirmation's question. The help's height: its key lines, one line per knob, the sources
 * legend and the borders, with a few to spare. */
#define HELP_W 92
#define HELP_H (12 + KNOB_COUNT + 6)
#define PICKER_W 90
#define RUNS_W 100
#define CONFIRM_W 44
#define CONFIRM_H 3
/* A list window: two borders and a blank line under the rows (so a window R.h high shows
 * R.h - LIST_CHROME_H rows), one spare line, and at least LIST_MIN_H high. */
#define LIST_CHROME_H 3
#define LIST_MIN_H 8

/* A W x H window in the middle of the screen, leaving at least a column and a row of the screen
 * on each side. */
static tui_rect centered(const tui_screen *s, int w, int h)
{
    if (w > s->w - 2)
        w = s->w - 2;
    if (h > s->h - 2)
        h = s->h - 2;
    tui_rect r = {(s->w - w) / 2, (s->h - h) / 2, w, h};
    return r;
}

/* Help page 2: every term's short label (the narrow term table's) and long label with its legend,
 * from the engine's term table. */
static void draw_labels(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    tui_draw_box(s, g, r, "help 2/2: the term labels (Tab: keys and knobs · any other key closes)", true);
    int y = r.y + 1, bottom = r.y + r.h - 1;
    if (y < bottom)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_DIM, "%-12s %-17s %s", "short", "label", "what it is");
    for (int t = 0; t < TERM_COUNT && y < bottom; t++)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "%-12s %-17s %s", engine_terms[t].short_label,
                          engine_terms[t].label, engine_terms[t].legend);
}

static void draw_help(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    tui_rect r = centered(s, HELP_W, HELP_H);
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    if (app->help_page == 1) {
        draw_labels(app, s, r);
        return;
    }
    tui_draw_box(s, g, r, "help 1/2: keys and knobs (Tab: the term labels · any other key closes)", true);
    static const char *const lines[] = {
        "Up/Down, Tab    focus a knob (the five sliders, then the secondary knobs)",
        "Left/Right      one step of the knob      PgUp/PgDn  ten steps     Home/End  the ends",
        "= digits Enter  type a value              a          max_dispatch back to auto",
        "mouse           press or drag on a slider's track",
        "c compare       i equal instance concurrency (x = dp x max_bs)     p presets   r runs   q quit",
        "w warnings      l launch command (copied: OSC 52)   f apply the recommended fraction   s save preset",
        "e explain a term (formula, origin, depends on; Up/Down the next)",
        "/ filter the preset picker or the runs browser    t light/dark theme    F10 quit",
        "knob                 deps   range              (deps: its short name in the term table)",
    };
    int y = r.y + 1;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0] && y < r.y + r.h - 1; i++)
        tui_print(s, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, lines[i]);
    for (int k = 0; k < KNOB_COUNT && y < r.y + r.h - 1; k++)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, k == app->focus ? TUI_ST_FOCUS : TUI_ST_NORMAL,
                          "%-20s %-6s %-18s %s", engine_knobs[k].name, engine_knobs[k].brief, engine_knobs[k].range,
                          engine_knobs[k].help);
    if (y < r.y + r.h - 1)
        y++;
    if (y < r.y + r.h - 1)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_DIM,
                          "sources: exact = closed formula · derived = first principles · coefficient = per-model · "
                          "calibrated = fitted");
    if (y < r.y + r.h - 1)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_DIM,
                          "rows = max_bs, buckets, mtp, dp, world (they decide the rows)");
}

/* The height of a list window for N rows. */
static int list_height(int n)
{
    int h = n + LIST_CHROME_H + 1;
    return h < LIST_MIN_H ? LIST_MIN_H : h;
}

/* The rows a window of height H shows under CHROME lines (at least one), and the scroll moved so
 * the selection among N rows is one of them. */
static int follow_selection(tui_app *app, int h, int chrome, int n)
{
    int rows = h - chrome;
    if (rows < 1)
        rows = 1;
    if (app->sel < app->scroll)
        app->scroll = app->sel;
    if (app->sel >= app->scroll + rows)
        app->scroll = app->sel - rows + 1;
    if (app->scroll > n - 1)
        app->scroll = n > 0 ? n - 1 : 0;
    return rows;
}

static void draw_list_frame(tui_app *app, tui_rect r, int n, int *first)
{
    follow_selection(app, r.h, LIST_CHROME_H, n);
    *first = app->scroll;
}

/* The blank line under a list's rows: the filter being typed (or kept), and how many rows match. */
static void draw_filter_line(tui_app *app, tui_screen *s, tui_rect r, int matches)
{
    if (!app->filtering && !app->filter[0])
        return;
    int y = r.y + r.h - 2;
    int x = r.x + 2 + tui_printf_glyphs(s, app->g, r.x + 2, y, r.w - 4, TUI_ST_FOCUS, "/%s", app->filter);
    if (app->filtering)
        tui_put(s, x++, y, L'_', TUI_ST_FOCUS);
    tui_printf_glyphs(s, app->g, x + 1, y, r.x + r.w - 2 - (x + 1), TUI_ST_DIM, "%d match%s%s", matches,
                      matches == 1 ? "" : "es",
                      app->filtering ? " · Enter keeps · Backspace edits · Escape clears" : " · Escape clears");
}

static void draw_picker(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    int n = 0;
    while (tui_app_picker_entry(app, n))
        n++;
    tui_rect r = centered(s, PICKER_W, list_height(n));
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "presets: Enter load · c compare with · / filter · Escape close", true);
    draw_filter_line(app, s, r, n);
    int first;
    draw_list_frame(app, r, n, &first);
    for (int i = first, y = r.y + 1; i < n && y < r.y + r.h - 2; i++, y++) {
        const preset_entry *pe = tui_app_picker_entry(app, i);
        tui_style st = i == app->sel ? TUI_ST_SELECT : TUI_ST_NORMAL;
        tui_fill(s, (tui_rect){r.x + 1, y, r.w - 2, 1}, L' ', st);
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, st,
                          "%-16s %-12s %-6s %3u GPUs dp %-3u dcp %-2u mtp %-2u max_bs %-4u %s", pe->name, pe->model,
                          pe->gpu, pe->world, pe->dp, pe->dcp, pe->mtp, pe->max_bs, pe->description);
    }
}

static void draw_runs(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    int n = 0;
    while (tui_app_run_entry(app, n))
        n++;
    tui_rect r = centered(s, RUNS_W, list_height(n));
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "stored runs: d delete · / filter · Escape close", true);
    draw_filter_line(app, s, r, n);
    if (!app->db) {
        tui_printf_glyphs(s, g, r.x + 2, r.y + 1, r.w - 4, TUI_ST_WARN, "%s", app->store_note);
        return;
    }
    if (n == 0 && !app->filter[0])
        tui_printf_glyphs(s, g, r.x + 2, r.y + 1, r.w - 4, TUI_ST_DIM, "no runs stored (cgplan ingest LOG adds one)");
    int first;
    draw_list_frame(app, r, n, &first);
    for (int i = first, y = r.y + 1; i < n && y < r.y + r.h - 2; i++, y++) {
        const store_run_summary *run = tui_app_run_entry(app, i);
        tui_style st = i == app->sel ? TUI_ST_SELECT : TUI_ST_NORMAL;
        tui_fill(s, (tui_rect){r.x + 1, y, r.w - 2, 1}, L' ', st);
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, st,
                          "%4lld  %-10s %-6s world %-3u dp %-3u dcp %-2u mtp %-2u max_bs %-4u total %6.2f GiB  %s",
                          (long long)run->id, run->model, run->gpu[0] ? run->gpu : "?", run->world, run->dp, run->dcp,
                          run->mtp, run->max_bs, run->total_gib, run->label);
    }
    const store_run_summary *doomed = tui_app_run_entry(app, app->sel);
    if (app->mode == TUI_MODE_CONFIRM && doomed) {
        tui_rect c = centered(s, CONFIRM_W, CONFIRM_H);
        tui_fill(s, c, L' ', TUI_ST_NORMAL);
        tui_draw_box(s, g, c, NULL, true);
        tui_printf_glyphs(s, g, c.x + 2, c.y + 1, c.w - 4, TUI_ST_WARN, "delete run %lld? y / n",
                          (long long)doomed->id);
    }
}

#define WARN_W 110
#define LAUNCH_W 110
#define EXPLAIN_W 100

/* w: every warning of the plan (and of the comparison), code, severity and message. */
static void draw_warnings(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    const engine_warnings *w = &app->plan[0].e.warnings;
    int n = w->n;
    tui_rect r = centered(s, WARN_W, (n ? n : 1) + 4);
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "warnings: code · severity · message (any key closes)", true);
    int y = r.y + 1;
    if (!n)
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, TUI_ST_DIM, "no warnings: the plan fits");
    for (int i = 0; i < n && y < r.y + r.h - 2; i++, y++) {
        const engine_warning *it = &w->items[i];
        tui_style st = it->severity == SEVERITY_BLOCKING ? TUI_ST_ERROR
                       : it->severity == SEVERITY_WARNING ? TUI_ST_WARN
                                                          : TUI_ST_NORMAL;
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, st, "%-22s %-8s %s", it->code, engine_severity_names[it->severity],
                          it->message);
    }
    if (y < r.y + r.h - 1)
        tui_printf_glyphs(s, g, r.x + 2, r.y + r.h - 2, r.w - 4, TUI_ST_DIM,
                          "blocking: SGLang refuses, asserts or OOMs, or the fit rule fails · warning: runs with a "
                          "caveat · info: a note");
}

/* l: the launch command of the current knobs, with what `cgplan launch` would refuse above it. */
static void draw_launch(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    const engine_launch *l = &app->scratch.launch;
    int lines = l->n_refusals + l->n_env + l->n_args + 4 + (l->nnodes > 1);
    tui_rect r = centered(s, LAUNCH_W, lines + 2);
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "launch (node 0; cgplan launch prints every node) · any key closes", true);
    int y = r.y + 1, bottom = r.y + r.h - 1;
    for (int i = 0; i < l->n_refusals && y < bottom; i++)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_ERROR, "refused: %s", l->refusals[i]);
    if (y < bottom)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_DIM, "# planned at --mem-fraction-static %.3f",
                          l->mem_fraction_static);
    for (int i = 0; i < l->n_env && y < bottom; i++)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "%s \\", l->env[i]);
    if (y < bottom)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "python3 -m sglang.launch_server \\");
    for (int i = 0; i < l->n_args && y < bottom; i++)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "  %s%s", l->args[i],
                          i + 1 < l->n_args || l->nnodes > 1 ? " \\" : "");
    if (l->nnodes > 1 && y < bottom)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL,
                          "  --nnodes %u --node-rank 0 --dist-init-addr HOST:PORT   (HOST:PORT: node 0's; replace it)",
                          l->nnodes);
}

/* e: one term explained from the term table: formula, origin, the knobs it depends on. */
static void draw_explain(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    int t = app->sel >= 0 && app->sel < TERM_COUNT ? app->sel : 0;
    const engine_term_info *info = &engine_terms[t];
    const engine_term *term = &app->plan[0].e.terms[t];
    int n_parts = 0;
    for (int p = 0; p < PART_COUNT; p++)
        n_parts += engine_parts[p].term == (engine_term_id)t && app->plan[0].e.parts[p].present;
    tui_rect r = centered(s, EXPLAIN_W, 10 + n_parts);
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "explain a term: Up/Down the next term · any other key closes", true);
    char deps[ENGINE_TEXT_MAX];
    engine_depends_text(term->depends_on ? term->depends_on : info->depends_on, false, deps, sizeof deps);
    int y = r.y + 1;
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_FOCUS, "%s (%s) · %s · %s layer", info->label, info->key,
                      engine_source_names[term->source], engine_layer_names[info->layer]);
    if (term->known)
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "now       %.3f GiB per GPU [%.3f, %.3f]",
                          tui_gib(term->bytes), tui_gib(term->low_bytes), tui_gib(term->high_bytes));
    else
        tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_WARN, "now       unknown (no formula, coefficient or calibration)");
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "what      %s", info->legend);
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "formula   %s",
                      term->formula ? term->formula : info->formula);
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "origin    %s",
                      term->origin ? term->origin : info->origin);
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "depends   %s", deps);
    tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_DIM, "limits as %s", info->limit_phrase);
    for (int p = 0; p < PART_COUNT; p++) { /* a mechanism's parts, each with its range and source */
        const engine_part *part = &app->plan[0].e.parts[p];
        if (engine_parts[p].term == (engine_term_id)t && part->present)
            tui_printf_glyphs(s, g, r.x + 2, y++, r.w - 4, TUI_ST_NORMAL, "part      %-20s %.3f GiB [%.3f, %.3f] %s",
                              engine_parts[p].key, tui_gib(part->bytes), tui_gib(part->low_bytes),
                              tui_gib(part->high_bytes), engine_source_names[part->source]);
    }
}

#define SETUP_W 100
/* The setup pop-up: two borders, the rows, a blank line and two lines of the row's help. */
#define SETUP_CHROME_H 5

/* F2 / o: the secondary knobs, one a row (name, value, range), the selected one's help under
 * them; the rows scroll with the selection. */
static void draw_setup(tui_app *app, tui_screen *s)
{
    const tui_glyphs *g = app->g;
    int n = tui_app_setup_count();
    tui_rect r = centered(s, SETUP_W, n + SETUP_CHROME_H);
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    tui_draw_box(s, g, r, "setup: Up/Down a knob · Left/Right or Enter change · = type · a auto · Escape close", true);
    int rows = follow_selection(app, r.h, SETUP_CHROME_H, n);
    const tui_plan *p = &app->plan[0];
    for (int i = app->scroll, y = r.y + 1; i < n && y < r.y + 1 + rows; i++, y++) {
        int k = tui_app_setup_knob(i);
        char val[ENGINE_TEXT_MAX];
        engine_knob_text(&p->d, &p->e, (engine_knob_id)k, KNOB_TEXT_FULL, val, sizeof val);
        tui_style st = i == app->sel ? TUI_ST_SELECT : TUI_ST_NORMAL;
        tui_fill(s, (tui_rect){r.x + 1, y, r.w - 2, 1}, L' ', st);
        if (i == app->sel)
            tui_put(s, r.x + 1, y, g->focus, st);
        const char *unit = strstr(engine_knobs[k].range, engine_knobs[k].unit) ? "" : engine_knobs[k].unit;
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, st, "%-24s %-22s %s %s", engine_knobs[k].name, val,
                          engine_knobs[k].range, unit);
    }
    if (app->scroll > 0)
        tui_print(s, r.x + r.w - 8, r.y, 6, TUI_ST_DIM, g->utf8 ? " ↑more" : " ^more");
    if (app->scroll + rows < n)
        tui_print(s, r.x + r.w - 8, r.y + r.h - 1, 6, TUI_ST_DIM, g->utf8 ? " ↓more" : " vmore");
    int k = tui_app_setup_knob(app->sel);
    if (k >= 0) {
        char help[ENGINE_TEXT_MAX * 2];
        tui_knob_help(app, k, help, sizeof help);
        tui_print_wrapped(s, g, (tui_rect){r.x + 2, r.y + r.h - 3, r.w - 4, 2}, TUI_ST_DIM, help);
    }
}

void tui_draw_overlay(tui_app *app, tui_screen *s)
{
    switch (app->mode) {
    case TUI_MODE_HELP:
        draw_help(app, s);
        break;
    case TUI_MODE_PICKER:
        draw_picker(app, s);
        break;
    case TUI_MODE_RUNS:
    case TUI_MODE_CONFIRM:
        draw_runs(app, s);
        break;
    case TUI_MODE_WARNINGS:
        draw_warnings(app, s);
        break;
    case TUI_MODE_LAUNCH:
        draw_launch(app, s);
        break;
    case TUI_MODE_EXPLAIN:
        draw_explain(app, s);
        break;
    case TUI_MODE_SETUP:
        draw_setup(app, s);
        break;
    default:
        break;
    }
}
