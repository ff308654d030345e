/* tui_draw.c — the frame: tui_app_render puts each widget on its panel of the layout, then the
 * mode's overlay. The widgets draw into the in-memory screen from the app's estimates (never
 * computing memory themselves): the knobs (tui_knobs.c), the term table (tui_terms.c) and the
 * plot (tui_plot.c) have files of their own, the overlays too (tui_overlay.c); here are the
 * one-line panels (header, total, memory bar, the limiting sentence, status), the too-small
 * screen and the drawing helpers the widgets share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

/* From this width the total line also gives the target's and the draft's share. */
#define TOTAL_SPLIT_W 110
/* From this width the memory bar's suffix is in words; the bar keeps at least BAR_MIN_W cells
 * for its BAR_PARTS parts (weights, KV, graph, free). */
#define BAR_WORDS_W 120
#define BAR_MIN_W 8
#define BAR_PARTS 4
#define BAR_GRAPH 2 /* the part in TUI_ST_ERROR when the deployment does not fit */
/* The limiting sentence gives GiB without decimals from this many on. */
#define WHOLE_GIB_FROM 10

void tui_draw_box(tui_screen *s, const tui_glyphs *g, tui_rect r, const char *title, bool bottom)
{
    if (r.w < 2 || r.h < 2)
        return;
    for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
        tui_put(s, x, r.y, g->h, TUI_ST_BORDER);
        if (bottom)
            tui_put(s, x, r.y + r.h - 1, g->h, TUI_ST_BORDER);
    }
    for (int y = r.y + 1; y < r.y + r.h - (bottom ? 1 : 0); y++) {
        tui_put(s, r.x, y, g->v, TUI_ST_BORDER);
        tui_put(s, r.x + r.w - 1, y, g->v, TUI_ST_BORDER);
    }
    tui_put(s, r.x, r.y, g->tl, TUI_ST_BORDER);
    tui_put(s, r.x + r.w - 1, r.y, g->tr, TUI_ST_BORDER);
    if (bottom) {
        tui_put(s, r.x, r.y + r.h - 1, g->bl, TUI_ST_BORDER);
        tui_put(s, r.x + r.w - 1, r.y + r.h - 1, g->br, TUI_ST_BORDER);
    }
    if (title && r.w > 6) {
        tui_put(s, r.x + 1, r.y, L' ', TUI_ST_TITLE);
        int n = tui_print(s, r.x + 2, r.y, r.w - 4, TUI_ST_TITLE, title);
        tui_put(s, r.x + 2 + n, r.y, L' ', TUI_ST_TITLE);
    }
}

void tui_ascii_fold(const tui_glyphs *g, char *text, size_t len)
{
    if (g->utf8)
        return;
    char out[1024];
    size_t o = 0;
    for (const char *p = text; *p && o + 4 < sizeof out;) {
        if (strncmp(p, "·", strlen("·")) == 0) {
            out[o++] = '-';
            p += strlen("·");
        } else if (strncmp(p, "→", strlen("→")) == 0) {
            out[o++] = '-';
            out[o++] = '>';
            p += strlen("→");
        } else if (strncmp(p, "≤", strlen("≤")) == 0) {
            out[o++] = '<';
            out[o++] = '=';
            p += strlen("≤");
        } else if ((unsigned char)*p >= 0x80) {
            out[o++] = '?';
            p++;
            while (((unsigned char)*p & 0xC0) == 0x80)
                p++;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    snprintf(text, len, "%s", out);
}

int tui_printf_glyphs(tui_screen *s, const tui_glyphs *g, int x, int y, int maxw, tui_style st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_ascii_fold(g, buf, sizeof buf);
    return tui_print(s, x, y, maxw, st, buf);
}


/* ---- header ---- */

static void draw_header(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_plan *p = &app->plan[0];
    const engine_knobs_state *k = &p->d.knobs;
    char lay[64];
    engine_layout_name(k, LAYOUT_NAME_PLAIN, lay, sizeof lay);
    int x = r.x + tui_printf_glyphs(s, app->g, r.x, r.y, r.w, TUI_ST_TITLE, " cgplan  ");
    char mtp[32];
    if (k->mtp > 1)
        snprintf(mtp, sizeof mtp, "MTP %u", k->mtp);
    else
        snprintf(mtp, sizeof mtp, "no speculation");
    bool cmp = app->compare && app->plan[1].loaded;
    char name[ENGINE_TEXT_MAX], other[ENGINE_TEXT_MAX];
    /* comparing, the plan is named with its edits: the label says what is compared */
    if (cmp)
        tui_app_plan_label(app, 0, name, sizeof name);
    else
        snprintf(name, sizeof name, "%s", p->name);
    /* the release the flags and defaults are those of, and the --mem-fraction-static SGLang would
     * pick itself for this plan (the engine's budget: server_args.py's default, sglang.md 2.2) */
    char release[ENGINE_RELEASE_TEXT_MAX + 48], rel[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(&k->sglang, rel, sizeof rel);
    if (p->e.budget.sglang_default_known)
        snprintf(release, sizeof release, " · SGLang %s (its default f %.3f)", rel,
                 p->e.budget.sglang_default_mem_fraction_static);
    else
        snprintf(release, sizeof release, " · SGLang %s", rel);
    /* comparing, what is compared comes first, so a narrow header keeps it */
    x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_NORMAL, "%s", name);
    if (cmp) {
        tui_app_plan_label(app, 1, other, sizeof other);
        x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_PRED_B, " vs %s", other);
    }
    x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_NORMAL, " · %s · %u x %s (%.2f GiB) · %s · %s%s%s",
                           p->d.model.name, k->world, p->d.gpu.name, tui_gib(p->d.gpu.cuda_total_bytes), lay, mtp,
                           p->has_cal ? " · calibrated" : "", release);
    const char *keys = "? help  q quit ";
    int kw = tui_text_width(keys);
    if (x + 2 + kw <= r.x + r.w)
        tui_print(s, r.x + r.w - kw, r.y, kw, TUI_ST_DIM, keys);
}

/* ---- total line: exactly one screen line starts with "total" ---- */

static void draw_total(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_plan *p = &app->plan[0];
    const engine_estimate *e = &p->e;
    int x = r.x + 1;
    x += tui_printf(s, x, r.y, r.w - 1, TUI_ST_TOTAL, "total %.2f GiB", tui_gib(e->total_bytes));
    if (!e->total_complete) /* a term is unknown: the sum is a floor with no upper end */
        x += tui_printf(s, x, r.y, r.x + r.w - x, TUI_ST_WARN, " of the known terms: cannot plan");
    else /* the range the answers plan on (its high end unless bound=expected) */
        x += tui_printf(s, x, r.y, r.x + r.w - x, TUI_ST_DIM, " [%.2f, %.2f]", tui_gib(e->total_low_bytes),
                        tui_gib(e->total_high_bytes));
    if (app->have_prev && app->prev_total != e->total_bytes) {
        int64_t d = (int64_t)e->total_bytes - (int64_t)app->prev_total;
        x += tui_printf(s, x, r.y, r.x + r.w - x, TUI_ST_HILITE, " (%+.2f)", tui_sgib(d));
    }
    if (r.w >= TOTAL_SPLIT_W)
        x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_DIM, "  target %.2f + draft %.2f",
                               tui_gib(e->target_total_bytes), tui_gib(e->draft_total_bytes));
    if (e->total_complete) /* compared only with a complete total */
        x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_HEUR,
                               " · SGLang heuristic %.2f GiB (%.0f%% of it)", tui_gib(e->heuristic_total_bytes),
                               e->total_bytes ? 100.0 * (double)e->heuristic_total_bytes / (double)e->total_bytes
                                              : 0.0);
    else
        x += tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_HEUR, " · SGLang heuristic %.2f GiB",
                               tui_gib(e->heuristic_total_bytes));
    if (app->compare && app->plan[1].loaded) {
        char other[ENGINE_TEXT_MAX];
        tui_app_plan_label(app, 1, other, sizeof other);
        tui_printf_glyphs(s, app->g, x, r.y, r.x + r.w - x, TUI_ST_PRED_B, " · %s %.2f GiB", other,
                          tui_gib(app->plan[1].e.total_bytes));
    }
}

/* ---- per-GPU memory bar ---- */

static void draw_bar(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    const tui_plan *p = &app->plan[0];
    const engine_budget *b = &p->e.budget;
    char suffix[160];
    double rec = tui_fraction_floor(b->recommended_mem_fraction_static);
    if (r.w >= BAR_WORDS_W)
        snprintf(suffix, sizeof suffix, " headroom %.2f GiB · mem_fraction_static %.3f (recommended %.3f)",
                 tui_sgib(b->headroom_bytes), p->d.knobs.mem_fraction_static, rec);
    else
        snprintf(suffix, sizeof suffix, " headroom %.2f · f %.3f (rec. %.3f)", tui_sgib(b->headroom_bytes),
                 p->d.knobs.mem_fraction_static, rec);
    tui_ascii_fold(g, suffix, sizeof suffix);
    const char *prefix = " per GPU ";
    int bw = r.w - tui_text_width(prefix) - tui_text_width(suffix) - 2;
    if (bw < BAR_MIN_W)
        bw = BAR_MIN_W;
    int x = r.x + tui_print(s, r.x, r.y, r.w, TUI_ST_NORMAL, prefix);
    tui_put(s, x++, r.y, g->bar_l, TUI_ST_BORDER);
    /* weights | state + KV pool | graphs | runtime + headroom, over what was free before load */
    double parts[BAR_PARTS] = {(double)b->weights_bytes,
                               (double)b->state_pool_bytes + (b->kv_pool_bytes > 0 ? (double)b->kv_pool_bytes : 0),
                               (double)p->e.total_bytes,
                               b->headroom_bytes > 0 ? (double)b->headroom_bytes + (double)b->other_runtime_bytes
                                                     : (double)b->other_runtime_bytes};
    static const char *const names[BAR_PARTS] = {"weights", "KV", "graph", "free"};
    static const tui_style styles[BAR_PARTS] = {TUI_ST_BAR_WEIGHTS, TUI_ST_BAR_KV, TUI_ST_BAR_GRAPH, TUI_ST_BAR_FREE};
    double sum = parts[0] + parts[1] + parts[2] + parts[3];
    int used = 0;
    double acc = 0;
    for (int i = 0; i < BAR_PARTS; i++) {
        acc += parts[i];
        int end = sum > 0 ? (int)lround(acc / sum * bw) : 0;
        if (i == BAR_PARTS - 1) /* the last part ends at the bar's end, whatever the rounding */
            end = bw;
        int w = end - used;
        tui_style st = styles[i];
        if (i == BAR_GRAPH && b->headroom_bytes < 0)
            st = TUI_ST_ERROR;
        for (int c = 0; c < w; c++)
            tui_put(s, x + used + c, r.y, g->bar[i], st);
        int nl = tui_text_width(names[i]);
        if (w >= nl + 2)
            tui_print(s, x + used + 1, r.y, nl, st, names[i]);
        used = end;
    }
    x += bw;
    tui_put(s, x++, r.y, g->bar_r, TUI_ST_BORDER);
    tui_print(s, x, r.y, r.x + r.w - x, b->headroom_bytes < 0 ? TUI_ST_ERROR : TUI_ST_NORMAL, suffix);
}

/* ---- the bottom line: what limits this deployment, from the engine's wall and term deltas ---- */


static void limits_sentence(const tui_app *app, char *buf, size_t len)
{
    const tui_plan *p = &app->plan[0];
    const engine_estimate *e = &p->e;
    const engine_budget *b = &e->budget;
    char lay[64];
    engine_layout_name(&p->d.knobs, LAYOUT_NAME_PLAIN, lay, sizeof lay);
    size_t used = 0;
    bool moe = engine_terms[b->wall_term].moe_floor;
    if (b->wall_beyond_range)
        used += (size_t)snprintf(buf + used, len - used, "%s: no wall up to max_bs 1024 at mem_fraction_static %.3f",
                                 lay, p->d.knobs.mem_fraction_static);
    else
        used += (size_t)snprintf(buf + used, len - used, "%s: the wall is %s", lay,
                                 engine_wall_phrase(e));
    if (used < len && p->whatif_max_bs > p->d.knobs.max_bs) {
        const engine_estimate *w = &p->whatif;
        double dt = tui_sgib((int64_t)w->total_bytes - (int64_t)e->total_bytes);
        double dg;
        const char *what;
        if (moe) {
            dg = tui_sgib((int64_t)engine_moe_floor_bytes(w) - (int64_t)engine_moe_floor_bytes(e));
            what = "MoE floor";
        } else {
            dg = tui_sgib((int64_t)w->terms[b->wall_term].bytes - (int64_t)e->terms[b->wall_term].bytes);
            what = engine_terms[b->wall_term].label;
        }
        used += (size_t)snprintf(buf + used, len - used, "; max_bs %u → %u adds ~%.*f GiB, %.1f of it %s",
                                 p->d.knobs.max_bs, p->whatif_max_bs, fabs(dt) >= WHOLE_GIB_FROM ? 0 : 1, dt, dg, what);
    }
    if (used < len) {
        if (b->headroom_bytes < 0)
            used += (size_t)snprintf(
                buf + used, len - used, "; it does not fit now (%.2f GiB over: mem_fraction_static ≤ %.3f)",
                tui_sgib(-b->headroom_bytes), tui_fraction_floor(b->recommended_mem_fraction_static));
        else if (!b->wall_beyond_range)
            used += (size_t)snprintf(buf + used, len - used, "; fits up to max_bs %u", b->wall_max_bs);
    }
    if (used < len)
        snprintf(buf + used, len - used, ".");
}

const char *tui_wrap_row(const char *p, int width, size_t *len)
{
    const char *q = p, *last_space = NULL;
    for (int c = 0; *q && c < width; c++) {
        if (*q == ' ')
            last_space = q;
        tui_utf8_next(&q);
    }
    const char *end = q;
    if (*q && *q != ' ') { /* the row ends inside a word: at the last space, else in the word */
        if (last_space && last_space > p)
            end = last_space;
    }
    *len = (size_t)(end - p);
    while (*end == ' ') /* the spaces at a break belong to neither row */
        end++;
    return end;
}

int tui_print_wrapped(tui_screen *s, const tui_glyphs *g, tui_rect r, tui_style st, const char *text)
{
    char folded[1024];
    snprintf(folded, sizeof folded, "%s", text);
    tui_ascii_fold(g, folded, sizeof folded);
    const char *p = folded;
    int row = 0;
    for (; row < r.h && *p; row++) {
        if (row + 1 == r.h) { /* the last line: what is left, cut */
            tui_print(s, r.x, r.y + row, r.w, st, p);
            return row + 1;
        }
        size_t len;
        const char *next = tui_wrap_row(p, r.w, &len);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        tui_print(s, r.x, r.y + row, r.w, st, line);
        p = next;
    }
    return row;
}

int tui_wrapped_rows(const tui_glyphs *g, int width, const char *text)
{
    char folded[1024];
    snprintf(folded, sizeof folded, "%s", text);
    tui_ascii_fold(g, folded, sizeof folded);
    int rows = 0;
    size_t len;
    for (const char *p = folded; *p; rows++)
        p = tui_wrap_row(p, width > 0 ? width : 1, &len);
    return rows;
}

/* The summary under the plot. Comparing, the two layouts' concurrency leads: it is what the
 * comparison is for. */
static void summary_text(const tui_app *app, char *text, size_t len)
{
    char cmp[512];
    tui_app_concurrency_sentence(app, cmp, sizeof cmp);
    int used = snprintf(text, len, "%s%s", cmp, cmp[0] ? " " : "");
    limits_sentence(app, text + used, len - (size_t)used);
}

/* The summary's margins: a column on each side. */
#define SUMMARY_MARGIN 1

static void draw_limits(tui_app *app, tui_screen *s, tui_rect r)
{
    char text[1024];
    summary_text(app, text, sizeof text);
    tui_print_wrapped(s, app->g, (tui_rect){r.x + SUMMARY_MARGIN, r.y, r.w - 2 * SUMMARY_MARGIN, r.h}, TUI_ST_TITLE,
                      text);
}

/* " (2 with unknown dp, mtp drawn hollow)": the runs the plot drew hollow, and the knobs of the
 * shape their logs did not give; "" when none. */
static void hollow_note(const tui_app *app, char *buf, size_t len)
{
    if (!app->runs_hollow)
        return;
    size_t used = (size_t)snprintf(buf, len, " (%d with unknown", app->runs_hollow);
    const char *sep = " ";
    for (int k = 0; k < KNOB_COUNT && used < len; k++)
        if (app->runs_hollow_unknown & KNOB_BIT(k)) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, engine_knobs[k].name);
            sep = ", ";
        }
    if (used < len)
        snprintf(buf + used, len - used, " drawn hollow)");
}

static void draw_status(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    if (app->typing) {
        bool save = app->prompt == TUI_PROMPT_SAVE;
        int x = r.x + (save ? tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_FOCUS, " save preset as: %s", app->input)
                            : tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_FOCUS, " %s = %s",
                                                engine_knobs[app->typing_knob].name, app->input));
        tui_put(s, x, r.y, L'_', TUI_ST_FOCUS);
        tui_printf_glyphs(s, g, x + 2, r.y, r.x + r.w - x - 2, TUI_ST_DIM,
                          save ? "(Enter saves, Escape cancels)" : "(Enter sets, Escape cancels)");
        return;
    }
    if (app->message[0]) {
        tui_printf_glyphs(s, g, r.x, r.y, r.w, app->message_is_error ? TUI_ST_ERROR : TUI_ST_NORMAL, " %s",
                          app->message);
        return;
    }
    if (app->store_note[0]) {
        tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_WARN, " %s", app->store_note);
        return;
    }
    /* a blocking warning first, whatever knob it sits on: the plan does not start */
    const engine_estimate *e = &app->plan[0].e;
    int n_block = engine_warnings_blocking(&e->warnings, NULL);
    for (int i = 0; n_block && i < e->warnings.n; i++)
        if (e->warnings.items[i].severity == SEVERITY_BLOCKING) {
            tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_ERROR, " %d warnings (%d blocking; w lists them): %s: %s",
                              e->warnings.n, n_block, e->warnings.items[i].code, e->warnings.items[i].message);
            return;
        }
    /* warnings that have no slider to sit on */
    for (int i = 0; i < e->warnings.n; i++) {
        const char *c = e->warnings.items[i].code;
        if (strcmp(c, "k3_coefficients") == 0 || strcmp(c, "no_moe_model") == 0) {
            tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_WARN, " ! %s", e->warnings.items[i].message);
            return;
        }
    }
    char hollow[ENGINE_TEXT_MAX] = "";
    hollow_note(app, hollow, sizeof hollow);
    tui_printf_glyphs(s, g, r.x, r.y, r.w, TUI_ST_DIM,
                      " %d warning%s (w) · %zu stored runs%s · Left/Right step  PgUp/PgDn x10  = type  a auto  "
                      "f fraction  l launch  s save  e explain  c compare%s  p presets  r runs",
                      e->warnings.n, e->warnings.n == 1 ? "" : "s", app->n_runs, hollow,
                      app->compare ? "  i concurrency" : "");
}

static void draw_too_small(tui_screen *s)
{
    int y = s->h / 2 - 1;
    if (y < 0)
        y = 0;
    char line[128];
    snprintf(line, sizeof line, "terminal too small: %dx%d", s->w, s->h);
    tui_print(s, (s->w - tui_text_width(line)) / 2 > 0 ? (s->w - tui_text_width(line)) / 2 : 0, y, s->w, TUI_ST_WARN,
              line);
    snprintf(line, sizeof line, "needs at least %dx%d", TUI_MIN_W, TUI_MIN_H);
    tui_print(s, (s->w - tui_text_width(line)) / 2 > 0 ? (s->w - tui_text_width(line)) / 2 : 0, y + 1, s->w,
              TUI_ST_NORMAL, line);
    snprintf(line, sizeof line, "q quits");
    tui_print(s, (s->w - tui_text_width(line)) / 2 > 0 ? (s->w - tui_text_width(line)) / 2 : 0, y + 2, s->w, TUI_ST_DIM,
              line);
}

/* The widget table: one row per panel. */
typedef struct {
    tui_panel panel;
    void (*draw)(tui_app *app, tui_screen *s, tui_rect r);
} tui_widget;

static const tui_widget widgets[] = {
    {TUI_PANEL_HEADER, draw_header}, {TUI_PANEL_KNOBS, tui_draw_knobs}, {TUI_PANEL_TERMS, tui_draw_terms},
    {TUI_PANEL_TOTAL, draw_total},   {TUI_PANEL_BAR, draw_bar},         {TUI_PANEL_PLOT, tui_draw_plot},
    {TUI_PANEL_LIMITS, draw_limits}, {TUI_PANEL_STATUS, draw_status},
};

void tui_app_render(tui_app *app, tui_screen *s)
{
    /* The summary is never cut: the layout gives it the rows it wraps to. */
    char summary[1024];
    summary_text(app, summary, sizeof summary);
    tui_layout_compute(s->w, s->h, tui_wrapped_rows(app->g, s->w - 2 * SUMMARY_MARGIN, summary), &app->layout);
    tui_screen_clear(s);
    app->runs_hollow = 0; /* the plot counts them as it draws them */
    app->runs_hollow_unknown = 0;
    if (app->layout.too_small) {
        draw_too_small(s);
        return;
    }
    for (size_t i = 0; i < sizeof widgets / sizeof widgets[0]; i++) {
        tui_rect r = app->layout.panel[widgets[i].panel];
        if (r.w > 0 && r.h > 0)
            widgets[i].draw(app, s, r);
    }
    tui_draw_overlay(app, s);
}
