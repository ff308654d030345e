/* tui_overlay.c — the windows drawn over the main screen: help, the preset picker, the runs
 * browser and its delete confirmation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "launch.h"
#include "tui_app.h"
#include "tui_internal.h"

/* Each window's width: the help's and the lists' longest lines (a preset's or a run's row), the
 * confirmation's question. */
#define HELP_W 92
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

/* A stored run's knob as text into BUF (12 bytes): "?" where its log did not give it (0). */
static const char *known(char *buf, uint32_t v)
{
    if (v)
        snprintf(buf, 12, "%u", v);
    else
        snprintf(buf, 12, "?");
    return buf;
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
        char world[12], dp[12], dcp[12], mtp[12], bs[12];
        tui_printf_glyphs(s, g, r.x + 2, y, r.w - 4, st,
                          "%4lld  %-10s %-6s world %-3s dp %-3s dcp %-2s mtp %-2s max_bs %-4s total %6.2f GiB  %s",
                          (long long)run->id, run->model, run->gpu[0] ? run->gpu : "?", known(world, run->world),
                          known(dp, run->dp), known(dcp, run->dcp), known(mtp, run->mtp), known(bs, run->max_bs),
                          run->total_gib, run->label);
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

/* ---- The text pop-ups (w, ?, l): their lines wrapped to the window, scrolled when taller than
 * the screen (Up/Down, PgUp/PgDn, Home/End: tui_app.c), a "more" note on the bottom border. ---- */

/* A pop-up row is the window's width less the borders and a column of margin each side. */
#define POPUP_MARGIN_W 4
#define POPUP_CHROME_H 2
/* A plain line's continuation rows start under its last column (the message, the help) when that
 * leaves POPUP_HANG_MIN_REST columns of text, else POPUP_HANG_NARROW in. */
#define POPUP_HANG_MIN_REST 32
#define POPUP_HANG_NARROW 4
/* A command line's continuation rows: its own indentation and SHELL_HANG more. */
#define SHELL_HANG 4
/* Each pop-up's columns before its last one: "%-22s %-8s " (warnings), "%-20s %-6s %-18s "
 * (knobs), "%-12s %-17s " (terms), and the keys' 16. */
#define HANG_WARNING 32
#define HANG_EXPLAIN 10 /* under the text after "formula   " */
#define HANG_KNOB 48
#define HANG_TERM 31
#define HANG_KEYS 16

static bool popup_add_row(tui_popup *pop, const char *at, size_t len, tui_style st, int indent, const char *pre,
                          const char *post)
{
    if (pop->n_rows >= TUI_POPUP_ROWS_MAX) {
        pop->full = true;
        return false;
    }
    pop->rows[pop->n_rows++] = (tui_popup_row){(unsigned)(at - pop->text), (unsigned)len, (unsigned char)st,
                                               (unsigned char)(indent > 0 ? indent : 0), pre, post};
    return true;
}

/* Room for N more bytes of text (and its NUL) in the pop-up, or NULL (then it is full). */
static char *popup_room(tui_popup *pop, size_t n)
{
    if (pop->used + n + 1 > sizeof pop->text) {
        pop->full = true;
        return NULL;
    }
    return pop->text + pop->used;
}

/* One line of text, wrapped at spaces: continuation rows HANG columns in (see POPUP_HANG_*),
 * each after CONT_PRE (a comment's "# "). An empty line is a blank row. */
static void popup_line(tui_popup *pop, const tui_glyphs *g, tui_style st, int hang, const char *cont_pre,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void popup_line(tui_popup *pop, const tui_glyphs *g, tui_style st, int hang, const char *cont_pre,
                       const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_ascii_fold(g, buf, sizeof buf);
    size_t n = strlen(buf);
    char *text = popup_room(pop, n);
    if (!text)
        return;
    memcpy(text, buf, n + 1);
    pop->used += n + 1;
    int pre_w = tui_text_width(cont_pre);
    if (hang > 0 && pop->width - hang - pre_w < POPUP_HANG_MIN_REST)
        hang = POPUP_HANG_NARROW;
    if (hang + pre_w >= pop->width)
        hang = 0;
    const char *p = text, *pre = "";
    int indent = 0;
    do {
        size_t len;
        int room = pop->width - indent - tui_text_width(pre);
        const char *next = tui_wrap_row(p, room > 0 ? room : 1, &len);
        if (!popup_add_row(pop, p, len, st, indent, pre, ""))
            return;
        p = next;
        indent = hang;
        pre = cont_pre;
    } while (*p);
}

/* Columns from P to END (one a character). */
static int span_width(const char *p, const char *end)
{
    int c = 0;
    while (p < end && *p) {
        tui_utf8_next(&p);
        c++;
    }
    return c;
}

/* Where a character of a shell word is: outside quotes, in '...' or in "..." (engine_shell_quote
 * writes a ' inside quotes as '"'"'). */
typedef enum { SH_BARE, SH_SINGLE, SH_DOUBLE } shell_quote;

/* One line of the launch command (LEN bytes at LINE, in the pop-up's text; CONT: the command
 * goes on below, " \" ends it), wrapped so the rows stay the same shell command: a break between
 * two words ends its row with " \" and indents the next; a word longer than a row is broken
 * inside with a bare "\" (a backslash-newline joins the word again, in "..." too), or inside
 * single quotes with "'\" and a "'" reopening them on the next row. */
static void popup_shell_line(tui_popup *pop, tui_style st, const char *line, size_t len, bool cont)
{
    const char *p = line, *end = line + len;
    int lead = 0;
    while (p + lead < end && p[lead] == ' ')
        lead++;
    static const int cont_w = 2; /* " \" or "'\" */
    int indent = 0;
    const char *pre = "";
    shell_quote at_start = SH_BARE; /* where the row starts */
    for (;;) {
        int room = pop->width - indent - tui_text_width(pre);
        if (span_width(p, end) <= room - (cont ? cont_w : 0)) {
            popup_add_row(pop, p, (size_t)(end - p), st, indent, pre, cont ? " \\" : "");
            return;
        }
        room -= cont_w;
        if (room < 1)
            room = 1;
        /* the last space between words within the row */
        const char *q = p, *brk = NULL;
        shell_quote quote = at_start;
        bool escaped = false;
        for (int c = 0; q < end && c < room; c++) {
            if (quote == SH_BARE && !escaped && *q == ' ' && q > p)
                brk = q;
            if (escaped)
                escaped = false;
            else if (quote == SH_SINGLE)
                quote = *q == '\'' ? SH_BARE : SH_SINGLE;
            else if (*q == '\\')
                escaped = true;
            else if (quote == SH_DOUBLE)
                quote = *q == '"' ? SH_BARE : SH_DOUBLE;
            else if (*q == '\'' || *q == '"')
                quote = *q == '\'' ? SH_SINGLE : SH_DOUBLE;
            tui_utf8_next(&q);
        }
        if (q < end && *q == ' ' && quote == SH_BARE && !escaped)
            brk = q;
        if (brk) {
            if (!popup_add_row(pop, p, (size_t)(brk - p), st, indent, pre, " \\"))
                return;
            while (brk < end && *brk == ' ')
                brk++;
            p = brk;
            indent = lead + SHELL_HANG;
            pre = "";
            at_start = SH_BARE;
            continue;
        }
        if (escaped && q - 1 > p) /* a backslash and what it escapes stay together */
            q--;
        bool single = quote == SH_SINGLE;
        if (!popup_add_row(pop, p, (size_t)(q - p), st, indent, pre, single ? "'\\" : "\\"))
            return;
        p = q;
        indent = 0; /* a space would split the word */
        pre = single ? "'" : "";
        at_start = quote;
    }
}

static void build_help(tui_app *app, tui_popup *pop)
{
    const tui_glyphs *g = app->g;
    if (app->help_page == 1) { /* every term's short and long label with its legend */
        popup_line(pop, g, TUI_ST_DIM, HANG_TERM, "", "%-12s %-17s %s", "short", "label", "what it is");
        for (int t = 0; t < TERM_COUNT; t++)
            popup_line(pop, g, TUI_ST_NORMAL, HANG_TERM, "", "%-12s %-17s %s", engine_terms[t].short_label,
                       engine_terms[t].label, engine_terms[t].legend);
        return;
    }
    static const char *const lines[] = {
        "Up/Down, Tab    focus a knob (the five sliders, then the secondary knobs)",
        "Left/Right      one step of the knob      PgUp/PgDn  ten steps     Home/End  the ends",
        "= digits Enter  type a value              a          max_dispatch back to auto",
        "mouse           press or drag on a slider's track",
        "c compare       i equal instance concurrency (x = dp x max_bs)     p presets   r runs   q quit",
        "w warnings      l launch command (copied: OSC 52)   f apply the recommended fraction   s save preset",
        "e explain a term (formula, origin, depends on; Up/Down the next)",
        "/ filter the preset picker or the runs browser    t light/dark theme    F10 quit",
        "in a pop-up     Up/Down, PgUp/PgDn, Home/End scroll it",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        popup_line(pop, g, TUI_ST_NORMAL, HANG_KEYS, "", "%s", lines[i]);
    popup_line(pop, g, TUI_ST_NORMAL, HANG_KNOB, "", "%-20s %-6s %-18s %s", "knob", "deps", "range",
               "(deps: its short name in the term table)");
    for (int k = 0; k < KNOB_COUNT; k++) {
        char help[ENGINE_TEXT_MAX * 2];
        tui_knob_help(app, k, help, sizeof help); /* the flag as the plan's release spells it */
        popup_line(pop, g, k == app->focus ? TUI_ST_FOCUS : TUI_ST_NORMAL, HANG_KNOB, "", "%-20s %-6s %-18s %s",
                   engine_knobs[k].name, engine_knobs[k].brief, engine_knobs[k].range, help);
    }
    popup_line(pop, g, TUI_ST_NORMAL, 0, "", "%s", "");
    popup_line(pop, g, TUI_ST_DIM, 0, "", "%s",
               "sources: exact = closed formula · derived = first principles · coefficient = per-model · "
               "calibrated = fitted");
    popup_line(pop, g, TUI_ST_DIM, 0, "", "%s", "rows = max_bs, buckets, mtp, dp, world (they decide the rows)");
}

/* w: every warning of the plan, code, severity and message. */
static void build_warnings(tui_app *app, tui_popup *pop)
{
    const tui_glyphs *g = app->g;
    const engine_warnings *w = &app->plan[0].e.warnings;
    if (!w->n)
        popup_line(pop, g, TUI_ST_DIM, 0, "", "%s", "no warnings: the plan fits");
    for (int i = 0; i < w->n; i++) {
        const engine_warning *it = &w->items[i];
        tui_style st = it->severity == SEVERITY_BLOCKING ? TUI_ST_ERROR
                       : it->severity == SEVERITY_WARNING ? TUI_ST_WARN
                                                          : TUI_ST_NORMAL;
        popup_line(pop, g, st, HANG_WARNING, "", "%-22s %-8s %s", it->code, engine_severity_names[it->severity],
                   it->message);
    }
    popup_line(pop, g, TUI_ST_NORMAL, 0, "", "%s", "");
    popup_line(pop, g, TUI_ST_DIM, 0, "", "%s",
               "blocking: SGLang refuses, asserts or OOMs, or the fit rule fails · warning: runs with a caveat · "
               "info: a note");
}

/* l: node 0's command as `cgplan launch` prints it (engine_launch_command), what launch would
 * refuse and the fraction above it as comments: the rows, copied, are still one shell command. */
static void build_launch(tui_app *app, tui_popup *pop)
{
    const tui_glyphs *g = app->g;
    const engine_launch *l = &app->scratch.launch;
    for (int i = 0; i < l->n_refusals; i++)
        popup_line(pop, g, TUI_ST_ERROR, 0, "# ", "# refused: %s", l->refusals[i]);
    popup_line(pop, g, TUI_ST_DIM, 0, "# ", "# planned at --mem-fraction-static %.3f", l->mem_fraction_static);
    if (l->nnodes > 1)
        popup_line(pop, g, TUI_ST_DIM, 0, "# ",
                   "# %u nodes: HOST:PORT is node 0's address (replace it); cgplan launch prints each node's command",
                   l->nnodes);
    size_t room = sizeof pop->text - pop->used;
    char *cmd = popup_room(pop, 0);
    if (!cmd)
        return;
    size_t need = engine_launch_command(l, 0, cmd, room);
    if (need >= room) { /* cut: shown as far as it goes, and said */
        pop->full = true;
        need = strlen(cmd);
    }
    pop->used += need + 1;
    const char *p = cmd;
    /* the environment first, a row each, as the words before python3 that they are */
    for (int i = 0; i < l->n_env && strncmp(p, l->env[i], strlen(l->env[i])) == 0; i++) {
        popup_shell_line(pop, TUI_ST_NORMAL, p, strlen(l->env[i]), true);
        p += strlen(l->env[i]);
        while (*p == ' ')
            p++;
    }
    while (*p) { /* then a row per flag: engine_launch_command's lines, each but the last ending " \" */
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool cont = len >= 2 && p[len - 2] == ' ' && p[len - 1] == '\\';
        popup_shell_line(pop, TUI_ST_NORMAL, p, cont ? len - 2 : len, cont);
        p += len + (nl ? 1 : 0);
    }
}

/* e: one term explained from the term table: formula, origin, the knobs it depends on, each
 * wrapped under its label (the origins cite files and PRs at length). */
static void build_explain(tui_app *app, tui_popup *pop)
{
    const tui_glyphs *g = app->g;
    int t = app->sel >= 0 && app->sel < TERM_COUNT ? app->sel : 0;
    const engine_term_info *info = &engine_terms[t];
    const engine_term *term = &app->plan[0].e.terms[t];
    char deps[ENGINE_TEXT_MAX];
    engine_depends_text(term->depends_on ? term->depends_on : info->depends_on, false, deps, sizeof deps);
    popup_line(pop, g, TUI_ST_FOCUS, 0, "", "%s (%s) · %s · %s layer", info->label, info->key,
               engine_source_names[term->source], engine_layer_names[info->layer]);
    if (term->known)
        popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "now       %.3f GiB per GPU [%.3f, %.3f]",
                   tui_gib(term->bytes), tui_gib(term->low_bytes), tui_gib(term->high_bytes));
    else
        popup_line(pop, g, TUI_ST_WARN, HANG_EXPLAIN, "", "now       unknown (no formula, coefficient or calibration)");
    popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "what      %s", info->legend);
    popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "formula   %s", term->formula ? term->formula : info->formula);
    popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "origin    %s", term->origin ? term->origin : info->origin);
    popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "depends   %s", deps);
    popup_line(pop, g, TUI_ST_DIM, HANG_EXPLAIN, "", "limits as %s", info->limit_phrase);
    for (int p = 0; p < PART_COUNT; p++) { /* a mechanism's parts, each with its range and source */
        const engine_part *part = &app->plan[0].e.parts[p];
        if (engine_parts[p].term == (engine_term_id)t && part->present)
            popup_line(pop, g, TUI_ST_NORMAL, HANG_EXPLAIN, "", "part      %-20s %.3f GiB [%.3f, %.3f] %s",
                       engine_parts[p].key, tui_gib(part->bytes), tui_gib(part->low_bytes), tui_gib(part->high_bytes),
                       engine_source_names[part->source]);
    }
}

/* The window of the mode's text pop-up on a SW x SH screen, its rows built into the app's
 * scratch; *VISIBLE: the rows it shows. */
static tui_rect popup_window(tui_app *app, int sw, int sh, int *visible)
{
    tui_popup *pop = &app->scratch.popup;
    int w = app->mode == TUI_MODE_HELP       ? HELP_W
            : app->mode == TUI_MODE_WARNINGS ? WARN_W
            : app->mode == TUI_MODE_EXPLAIN  ? EXPLAIN_W
                                             : LAUNCH_W;
    if (w > sw - 2)
        w = sw - 2;
    pop->used = 0;
    pop->n_rows = 0;
    pop->full = false;
    pop->width = w - POPUP_MARGIN_W > 1 ? w - POPUP_MARGIN_W : 1;
    if (app->mode == TUI_MODE_HELP)
        build_help(app, pop);
    else if (app->mode == TUI_MODE_WARNINGS)
        build_warnings(app, pop);
    else if (app->mode == TUI_MODE_EXPLAIN)
        build_explain(app, pop);
    else
        build_launch(app, pop);
    int h = pop->n_rows + POPUP_CHROME_H;
    if (h > sh - 2)
        h = sh - 2;
    *visible = h - POPUP_CHROME_H > 1 ? h - POPUP_CHROME_H : 1;
    return (tui_rect){(sw - w) / 2, (sh - h) / 2, w, h};
}

void tui_overlay_popup_extent(tui_app *app, int *rows, int *visible)
{
    popup_window(app, app->layout.w, app->layout.h, visible);
    *rows = app->scratch.popup.n_rows;
}

static void draw_popup(tui_app *app, tui_screen *s, const char *title)
{
    const tui_glyphs *g = app->g;
    int visible;
    tui_rect r = popup_window(app, s->w, s->h, &visible);
    const tui_popup *pop = &app->scratch.popup;
    int n = pop->n_rows;
    if (app->scroll > n - visible)
        app->scroll = n - visible;
    if (app->scroll < 0)
        app->scroll = 0;
    tui_fill(s, r, L' ', TUI_ST_NORMAL);
    char folded[256];
    snprintf(folded, sizeof folded, "%s", title);
    tui_ascii_fold(g, folded, sizeof folded);
    tui_draw_box(s, g, r, folded, true);
    for (int i = 0; i < visible && app->scroll + i < n; i++) {
        const tui_popup_row *row = &pop->rows[app->scroll + i];
        char text[1024];
        snprintf(text, sizeof text, "%s%.*s%s", row->pre, (int)row->len, pop->text + row->start, row->post);
        tui_print(s, r.x + 2 + row->indent, r.y + 1 + i, r.w - POPUP_MARGIN_W - row->indent, (tui_style)row->style,
                  text);
    }
    if (n <= visible && !pop->full)
        return;
    /* where the window is in the text, on the bottom border */
    char more[96];
    int below = n - app->scroll - visible;
    int at = snprintf(more, sizeof more, " %d-%d of %d", app->scroll + 1, app->scroll + visible, n);
    if (below > 0)
        snprintf(more + at, sizeof more - (size_t)at, " · %s %d more ", g->utf8 ? "↓" : "v", below);
    else if (pop->full)
        snprintf(more + at, sizeof more - (size_t)at, " · the rest did not fit ");
    else
        snprintf(more + at, sizeof more - (size_t)at, " · %s Home ", g->utf8 ? "↑" : "^");
    tui_ascii_fold(g, more, sizeof more);
    int mw = tui_text_width(more);
    tui_print(s, r.x + r.w - 2 - mw, r.y + r.h - 1, mw, TUI_ST_DIM, more);
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
        draw_popup(app, s,
                   app->help_page == 1
                       ? "help 2/2: the term labels (Tab: keys and knobs · Up/Down scroll · any other key closes)"
                       : "help 1/2: keys and knobs (Tab: the term labels · Up/Down scroll · any other key closes)");
        break;
    case TUI_MODE_PICKER:
        draw_picker(app, s);
        break;
    case TUI_MODE_RUNS:
    case TUI_MODE_CONFIRM:
        draw_runs(app, s);
        break;
    case TUI_MODE_WARNINGS:
        draw_popup(app, s, "warnings: code · severity · message (Up/Down scroll · any other key closes)");
        break;
    case TUI_MODE_LAUNCH:
        draw_popup(app, s, "launch (node 0; cgplan launch prints every node) · Up/Down scroll · any other key closes");
        break;
    case TUI_MODE_EXPLAIN:
        draw_popup(app, s, "explain: Up/Down the next term · PgUp/PgDn scroll · other keys close");
        break;
    case TUI_MODE_SETUP:
        draw_setup(app, s);
        break;
    default:
        break;
    }
}
