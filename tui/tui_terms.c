/* tui_terms.c — the term table: the engine's terms of the estimate by layer, with their share,
 * source and the knobs they depend on; the terms the last knob change moved are highlighted. */
#include <stdio.h>
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

static const char *const short_sources[SOURCE_COUNT] = {"exact", "deriv", "coeff", "calib", "?", "empir"};

/* The table's columns. From TERMS_WIDE_IW interior columns on, the long names: "largest", the
 * terms' labels, "coefficient"; below it the short ones. GiB as "%7.2f" or "%5.2f". */
#define TERMS_WIDE_IW 64
typedef struct {
    int layer, label, gib, source;
} term_columns;
static const term_columns wide_columns = {.layer = 8, .label = 17, .gib = 7, .source = 11};
static const term_columns narrow_columns = {.layer = 7, .label = 11, .gib = 5, .source = 5};
/* The share column ("share", "100%") from TERMS_SHARE_MIN_IW columns on, plus the comparison's. */
#define TERMS_SHARE_MIN_IW 48
#define TERMS_SHARE_W 5

/* A term of another path (fused MoE under DeepEP, ...) stays out of the table while it is 0. */
static bool shown(const engine_term *t)
{
    return !(engine_terms[t->id].hide_when_zero && t->known && t->bytes == 0);
}

void tui_draw_terms(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    const tui_plan *p = &app->plan[0];
    const engine_estimate *e = &p->e;
    bool cmp = app->compare && app->plan[1].loaded;
    const engine_estimate *eb = &app->plan[1].e;
    tui_draw_box(s, g, r, "CUDA-graph memory per GPU (GiB)", true);
    int ix = r.x + 1, iy = r.y + 1, iw = r.w - 2, ih = r.h - 2;
    bool wide = iw >= TERMS_WIDE_IW;
    const term_columns *cols = wide ? &wide_columns : &narrow_columns;
    int layer_w = cols->layer, label_w = cols->label, gib_w = cols->gib;
    /* Comparing: B's GiB ("vs") and B - A ("B-A", signed), each a GiB column. */
    int b_w = cmp ? gib_w + 1 : 0;
    bool show_share = iw >= TERMS_SHARE_MIN_IW + 2 * b_w;
    int share_w = show_share ? TERMS_SHARE_W : 0;
    int src_w = cols->source;
    int x_label = layer_w + 1, x_gib = x_label + label_w + 1, x_b = x_gib + gib_w + 1, x_diff = x_b + b_w;
    int x_share = x_diff + b_w, x_src = x_share + (share_w ? share_w + 1 : 0), x_dep = x_src + src_w + 1;
    int dep_w = iw - x_dep - 1;
    /* heading */
    tui_print(s, ix + 1 + x_label, iy, label_w, TUI_ST_DIM, "term");
    tui_printf(s, ix + 1 + x_gib, iy, gib_w, TUI_ST_DIM, "%*s", gib_w, "GiB");
    if (cmp) {
        tui_printf(s, ix + 1 + x_b, iy, gib_w, TUI_ST_PRED_B, "%*s", gib_w, "vs");
        tui_printf(s, ix + 1 + x_diff, iy, gib_w, TUI_ST_PRED_B, "%*s", gib_w, "B-A");
    }
    if (show_share)
        tui_printf(s, ix + 1 + x_share, iy, share_w, TUI_ST_DIM, "%*s", share_w, "share");
    tui_print(s, ix + 1 + x_src, iy, src_w, TUI_ST_DIM, wide ? "source" : "src");
    if (dep_w > 3)
        tui_print(s, ix + 1 + x_dep, iy, dep_w, TUI_ST_DIM, wide ? "depends on" : "deps");
    /* Knob names where every row's fit, else MODEL.md's "rows" shorthand in all rows. */
    bool brief_deps = false;
    for (int i = 0; i < TERM_COUNT; i++) {
        char dep[160];
        if (!shown(&e->terms[i]))
            continue;
        engine_depends_text(e->terms[i].depends_on, false, dep, sizeof dep);
        brief_deps |= (int)strlen(dep) > dep_w;
    }
    int row = 1;
    for (int l = 0; l < LAYER_COUNT; l++) {
        bool first = true;
        for (int i = 0; i < TERM_COUNT && row < ih; i++) {
            const engine_term *t = &e->terms[i];
            if ((int)t->layer != l || !shown(t))
                continue;
            int y = iy + row++;
            bool moved = app->have_prev && app->changed_knob >= 0 && (t->depends_on & KNOB_BIT(app->changed_knob)) &&
                         app->prev_bytes[i] != t->bytes;
            tui_style st = moved ? TUI_ST_HILITE : TUI_ST_NORMAL;
            if (first)
                tui_print(s, ix + 1, y, layer_w, TUI_ST_DIM,
                          l == LAYER_LARGEST && wide ? "largest" : engine_layer_names[l]);
            first = false;
            tui_print(s, ix + 1 + x_label, y, label_w, st, wide ? engine_terms[i].label : engine_terms[i].short_label);
            if (t->known)
                tui_printf(s, ix + 1 + x_gib, y, gib_w, st, "%*.2f", gib_w, tui_gib(t->bytes));
            else
                tui_printf(s, ix + 1 + x_gib, y, gib_w, TUI_ST_WARN, "%*s", gib_w, "?");
            if (cmp) {
                const engine_term *tb = &eb->terms[i];
                tui_printf(s, ix + 1 + x_b, y, gib_w, TUI_ST_PRED_B, "%*.2f", gib_w, tui_gib(tb->bytes));
                if (t->known && tb->known) /* the engine's two numbers, subtracted for display */
                    tui_printf(s, ix + 1 + x_diff, y, gib_w, TUI_ST_PRED_B, "%+*.2f", gib_w,
                               tui_sgib((int64_t)tb->bytes - (int64_t)t->bytes));
                else
                    tui_printf(s, ix + 1 + x_diff, y, gib_w, TUI_ST_WARN, "%*s", gib_w, "?");
            }
            if (show_share)
                tui_printf(s, ix + 1 + x_share, y, share_w, TUI_ST_DIM, "%*.0f%%", share_w - 1,
                           e->total_bytes ? 100.0 * (double)t->bytes / (double)e->total_bytes : 0.0);
            tui_print(s, ix + 1 + x_src, y, src_w, t->source == SOURCE_CALIBRATED ? TUI_ST_TITLE : TUI_ST_DIM,
                      wide ? engine_source_names[t->source] : short_sources[t->source]);
            if (dep_w > 1) {
                char dep[160];
                engine_depends_text(t->depends_on, brief_deps, dep, sizeof dep);
                tui_print(s, ix + 1 + x_dep, y, dep_w, TUI_ST_DIM, dep);
            }
        }
    }
    if (row < ih) {
        tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "rows: attn %u · moe %u · logits %u · bs_max %u",
                          e->attn_rows, e->moe_rows, e->logits_rows, e->bs_max);
        row++;
    }
    if (row < ih) {
        const engine_term *t = &e->terms[TERM_DEEPEP];
        if (t->alt_label && t->alt_bytes)
            tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "DeepEP %s: %.2f GiB", t->alt_label,
                              tui_gib(t->alt_bytes));
    }
}
