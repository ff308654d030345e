/* tui_knobs.c — the knob panel: one slider per knob (name, value, track and thumb, range or
 * warning), then detail lines on the knob in focus. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_app.h"
#include "tui_internal.h"

static bool has_warning(const engine_estimate *e, const char *code)
{
    for (int i = 0; i < e->warnings.n; i++)
        if (strcmp(e->warnings.items[i].code, code) == 0)
            return true;
    return false;
}

/* MODEL.md's warnings, short, in the place of the knob they concern. */
static bool knob_warning(const tui_app *app, int knob, char *buf, size_t len)
{
    const tui_plan *p = &app->plan[0];
    const engine_estimate *e = &p->e;
    buf[0] = '\0';
    switch (knob) {
    case KNOB_MAX_DISPATCH:
        if (has_warning(e, "dispatch_below_rows"))
            snprintf(buf, len, "%u < %u rows", e->max_dispatch, e->moe_rows);
        else if (has_warning(e, "dispatch_cap"))
            snprintf(buf, len, "rows %u > cap 1024", e->moe_rows);
        else if (has_warning(e, "qp_depth"))
            snprintf(buf, len, "needs NVSHMEM_QP_DEPTH %u", 2 * e->max_dispatch + 2);
        break;
    case KNOB_DCP:
        if (has_warning(e, "dcp_with_speculation"))
            snprintf(buf, len, "DCP + MTP: patched SGLang");
        break;
    case KNOB_BUCKETS:
    case KNOB_MAX_BS:
        if (has_warning(e, "no_bucket_survives"))
            snprintf(buf, len, "no bucket divides: bs %u", e->bs_max);
        break;
    case KNOB_MEM_FRACTION:
        if (has_warning(e, "kv_pool_exhausted"))
            snprintf(buf, len, "no KV pool left");
        else if (has_warning(e, "headroom_negative"))
            snprintf(buf, len, "OOM: use <= %.3f", floor(e->budget.recommended_mem_fraction_static * 1000) / 1000);
        break;
    default:
        break;
    }
    return buf[0] != '\0';
}

static void knob_value_text(const tui_app *app, int knob, char *buf, size_t len)
{
    const tui_plan *p = &app->plan[0];
    switch (knob) {
    case KNOB_MAX_DISPATCH:
        if (p->d.knobs.max_dispatch_auto)
            snprintf(buf, len, "auto %u", p->e.max_dispatch);
        else
            snprintf(buf, len, "%u", p->d.knobs.max_dispatch);
        return;
    case KNOB_CONTEXT_LEN: {
        unsigned long long v = p->d.knobs.context_len;
        if (v >= ENGINE_MIB && v % ENGINE_MIB == 0)
            snprintf(buf, len, "%lluM", v / ENGINE_MIB);
        else if (v >= 1024 && v % 1024 == 0)
            snprintf(buf, len, "%lluK", v / 1024);
        else
            snprintf(buf, len, "%llu", v);
        return;
    }
    case KNOB_BUCKETS:
        snprintf(buf, len, "%u", p->e.n_buckets);
        return;
    default:
        engine_knob_format(&p->d, (engine_knob_id)knob, buf, len);
        return;
    }
}

static const char *knob_label(int knob, int w)
{
    if (knob == KNOB_MEM_FRACTION && w < 19)
        return "mem_fraction";
    return engine_knobs[knob].name;
}

void tui_draw_knobs(tui_app *app, tui_screen *s, tui_rect r)
{
    const tui_glyphs *g = app->g;
    tui_draw_box(s, g, r, "knobs", true);
    int ix = r.x + 1, iy = r.y + 1, iw = r.w - 2, ih = r.h - 2;
    tui_slider_geom geo;
    tui_slider_geometry(iw, &geo);
    const tui_plan *p = &app->plan[0];
    static double steps[TUI_CURVE_MAX];
    char val[64], warn[128];
    int first_warn = -1;
    for (int k = 0; k < TUI_KNOB_ROWS && k < ih; k++) {
        int y = iy + k;
        bool focused = app->focus == k;
        bool warned = knob_warning(app, k, warn, sizeof warn);
        if (warned && first_warn < 0)
            first_warn = k;
        if (focused)
            tui_put(s, ix, y, g->focus, TUI_ST_FOCUS);
        tui_printf(s, ix + geo.name_x, y, geo.name_w, focused ? TUI_ST_FOCUS : TUI_ST_NORMAL, "%-*s", geo.name_w,
                   knob_label(k, geo.name_w));
        knob_value_text(app, k, val, sizeof val);
        tui_printf(s, ix + geo.value_x, y, geo.value_w, warned ? TUI_ST_WARN : TUI_ST_NORMAL, "%*s", geo.value_w, val);
        size_t cur;
        size_t n = tui_app_knob_steps(app, k, steps, TUI_CURVE_MAX, &cur);
        int tx = ix + geo.track_x;
        if (k == KNOB_BUCKETS) {
            char list[256];
            size_t used = 0;
            list[0] = '\0';
            for (uint32_t i = 0; i < p->e.n_buckets && used + 8 < sizeof list; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", i ? "," : "", p->e.buckets[i]);
            if (tui_text_width(list) > geo.track_w && geo.track_w > 1) {
                list[geo.track_w - 1] = '\0';
                snprintf(list + geo.track_w - 1, 2, "~");
            }
            tui_print(s, tx, y, geo.track_w, TUI_ST_DIM, list);
        } else if (n > 0) {
            int thumb = tui_slider_col_for_index(n, geo.track_w, cur);
            for (int c = 0; c < geo.track_w; c++) {
                wchar_t ch = c < thumb ? g->fill : c == thumb ? g->thumb : g->empty;
                tui_style st = c < thumb ? TUI_ST_TRACK : c == thumb ? TUI_ST_THUMB : TUI_ST_DIM;
                tui_put(s, tx + c, y, ch, st);
            }
        }
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
            tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "%s: %s %s · step %s", info->name,
                              info->range, info->unit, info->step);
        }
        row++;
    }
    if (row < ih) {
        tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "%s", engine_knobs[app->focus].help);
        row++;
    }
    if (row < ih) {
        const engine_estimate *e = &p->e;
        tui_printf_glyphs(s, g, ix + 1, iy + row, iw - 2, TUI_ST_DIM, "KV: 1 GiB of graphs = %llu tokens (cell %llu B)",
                          (unsigned long long)e->budget.kv_tokens_per_gib, (unsigned long long)e->budget.kv_cell_bytes);
    }
}
