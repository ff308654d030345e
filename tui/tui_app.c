/* tui_app.c — the planner's state: loading, recomputing (every number comes from the engine)
 * and handling input. Drawing starts in tui_draw.c. */
#include "tui_app.h"
#include "tui_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch.h"

const tui_glyphs tui_glyphs_utf8 = {
    .utf8 = true,
    .h = L'─',
    .v = L'│',
    .tl = L'┌',
    .tr = L'┐',
    .bl = L'└',
    .br = L'┘',
    .fill = L'━',
    .thumb = L'●',
    .empty = L'─',
    .focus = L'▶',
    .observed = L'●',
    .observed_b = L'◆',
    .observed_hollow = L'○',
    .observed_b_hollow = L'◇',
    .pred_b = L'•',
    .heur = L'┄',
    .wall = L'┃',
    .tick = L'┤',
    .axis_v = L'│',
    .bar = {L'█', L'▒', L'▓', L'░'},
    .bar_l = L'▕',
    .bar_r = L'▏',
};
const tui_glyphs tui_glyphs_ascii = {
    .utf8 = false,
    .h = L'-',
    .v = L'|',
    .tl = L'+',
    .tr = L'+',
    .bl = L'+',
    .br = L'+',
    .fill = L'=',
    .thumb = L'O',
    .empty = L'-',
    .focus = L'>',
    .observed = L'@',
    .observed_b = L'%',
    .observed_hollow = L'o',
    .observed_b_hollow = L'&',
    .pred_b = L'+',
    .heur = L'~',
    .wall = L'|',
    .tick = L'+',
    .axis_v = L'|',
    .bar = {L'#', L'=', L'+', L'-'},
    .bar_l = L'[',
    .bar_r = L']',
};

static void set_message(tui_app *app, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_message(tui_app *app, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->message, sizeof app->message, fmt, ap);
    va_end(ap);
    app->message_is_error = error;
}

/* The store's calibration for plan P: one out of bounds is said on the status line, and the plan
 * is estimated from its preset alone. */
static bool plan_calibration(tui_app *app, tui_plan *p)
{
    if (!app->db)
        return false;
    char err[ENGINE_TEXT_MAX];
    int found = store_load_plan_calibration(app->db, &p->d, &p->cal, err, sizeof err);
    if (found < 0)
        set_message(app, true, "%s", err);
    return found > 0;
}

/* P's knobs and GPU as its name gives them, before any edit. */
static void note_named(tui_plan *p)
{
    p->named_knobs = p->d.knobs;
    snprintf(p->named_gpu, sizeof p->named_gpu, "%s", p->d.gpu.name);
}

/* At most this many edited knobs in a label, then "+N more". */
#define LABEL_EDITS_MAX 3

void tui_app_plan_label(const tui_app *app, int which, char *buf, size_t len)
{
    const tui_plan *p = &app->plan[which];
    size_t used = (size_t)snprintf(buf, len, "%s", p->name);
    if (!p->loaded)
        return;
    engine_deployment named = p->d; /* the plan with its knobs as named, to compare knob by knob */
    named.knobs = p->named_knobs;
    int edits = 0;
    for (int k = 0; k < KNOB_COUNT && used < len; k++) {
        bool same = k == KNOB_GPU ? strcmp(p->d.gpu.name, p->named_gpu) == 0
                                  : engine_knob_equal(&p->d, &named, (engine_knob_id)k);
        if (same)
            continue;
        if (++edits > LABEL_EDITS_MAX)
            continue;
        char val[ENGINE_TEXT_MAX];
        engine_knob_text(&p->d, &p->e, (engine_knob_id)k, KNOB_TEXT_SHORT, val, sizeof val);
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s", edits == 1 ? " edited (" : ", ", engine_knobs[k].name,
                                 val);
    }
    if (edits > LABEL_EDITS_MAX && used < len)
        used += (size_t)snprintf(buf + used, len - used, ", +%d more", edits - LABEL_EDITS_MAX);
    if (edits && used < len)
        snprintf(buf + used, len - used, ")");
}

static int load_plan(tui_app *app, tui_plan *p, const char *name, char *err, size_t errlen)
{
    int rc = preset_load_deployment(app->cat, name, &p->d, err, errlen);
    if (rc != 0) {
        p->loaded = false;
        return rc;
    }
    p->loaded = true;
    snprintf(p->name, sizeof p->name, "%s", p->d.name[0] ? p->d.name : name);
    note_named(p);
    p->has_cal = plan_calibration(app, p);
    return 0;
}

int tui_app_init(tui_app *app, const char *preset, const engine_deployment *plan, const char *compare,
                 const char *db_path, bool ascii, char *err, size_t errlen)
{
    memset(app, 0, sizeof *app);
    app->focus = KNOB_MAX_BS;
    app->drag_knob = -1;
    app->changed_knob = -1;
    app->g = ascii ? &tui_glyphs_ascii : &tui_glyphs_utf8;
    const char *theme = getenv("CGPLAN_THEME");
    if (theme && strcmp(theme, "light") == 0)
        app->theme = TUI_THEME_LIGHT;
    else if (theme && *theme && strcmp(theme, "dark") != 0)
        set_message(app, true, "CGPLAN_THEME=%.32s: dark or light; drawing dark (t toggles)", theme);
    app->cat = preset_catalog_open();
    if (!app->cat) {
        snprintf(err, errlen, "out of memory opening the preset catalog");
        return 1;
    }
    if (db_path) {
        char serr[ENGINE_TEXT_MAX / 2 + 32];
        app->db = store_open(db_path, STORE_READ_WRITE, serr, sizeof serr);
        if (!app->db)
            snprintf(app->store_note, sizeof app->store_note, "no observed runs: store unavailable: %s", serr);
    } else {
        snprintf(app->store_note, sizeof app->store_note, "no store: no observed runs");
    }
    const char *main_name = preset ? preset : "k3-dp16";
    if (plan) { /* built by the command line: a model alone, or a preset with --set */
        tui_plan *p = &app->plan[0];
        p->d = *plan;
        p->loaded = true;
        snprintf(p->name, sizeof p->name, "%s", plan->name[0] ? plan->name : main_name);
        note_named(p);
        p->has_cal = plan_calibration(app, p);
    } else {
        int rc = load_plan(app, &app->plan[0], main_name, err, errlen);
        if (rc != 0)
            return rc;
    }
    const char *other = compare;
    if (!other)
        other = strcmp(app->plan[0].name, "k3-dp16") == 0 ? "k3-dp2-dcp8" : "k3-dp16";
    char cerr[ENGINE_TEXT_MAX * 2];
    if (load_plan(app, &app->plan[1], other, cerr, sizeof cerr) != 0) {
        if (compare) { /* asked for explicitly: an error like --preset */
            snprintf(err, errlen, "--compare %s: %s", compare, cerr);
            return 2;
        }
    }
    if (compare && app->plan[1].loaded) {
        app->compare = true;
        app->compare_chosen = true;
        if (strcmp(app->plan[1].name, app->plan[0].name) == 0)
            set_message(app, true, "comparing %s with itself (--compare names the main preset)", app->plan[0].name);
    }
    app->runs = calloc(TUI_RUNS_MAX, sizeof *app->runs);
    tui_app_reload_runs(app);
    tui_app_recompute(app);
    return 0;
}

void tui_app_free(tui_app *app)
{
    if (app->db)
        store_close(app->db);
    preset_catalog_free(app->cat);
    free(app->runs);
    app->runs = NULL;
    app->db = NULL;
    app->cat = NULL;
}

void tui_app_reload_runs(tui_app *app)
{
    app->n_runs = 0;
    if (!app->db || !app->runs)
        return;
    char err[ENGINE_TEXT_MAX / 2 + 32];
    if (store_list_runs(app->db, app->runs, TUI_RUNS_MAX, &app->n_runs, err, sizeof err) != 0) {
        app->n_runs = 0;
        snprintf(app->store_note, sizeof app->store_note, "no observed runs: store unreadable: %s", err);
    }
    for (int i = 0; i < 2; i++) /* a calibration may have been stored meanwhile */
        if (app->plan[i].loaded)
            app->plan[i].has_cal = plan_calibration(app, &app->plan[i]);
}

/* ---- Recompute ---- */

/* Knob values are doubles: two that differ by less than this are the same step. */
#define STEP_EPS 1e-9

/* The plot's x range (axis_hi). Along max_bs: at least AXIS_BS_ZOOM times the current max_bs
 * and at least AXIS_BS_MIN; the wall with AXIS_WALL_ROOM of room after it, and the stored runs
 * of this layout with AXIS_RUN_ROOM. Along another knob: a list of up to AXIS_SHORT_LIST steps is
 * shown whole; a longer one up to AXIS_LONG_ZOOM times the current value, and at least its first
 * AXIS_SHORT_LIST steps. */
#define AXIS_BS_ZOOM 4
#define AXIS_BS_MIN 64
#define AXIS_WALL_ROOM 1.5
#define AXIS_RUN_ROOM 1.25
#define AXIS_SHORT_LIST 32
#define AXIS_LONG_ZOOM 2.5

/* The what-if's max_bs stops at the max_bs knob's upper end. */
#define WHATIF_MAX_BS 1024

/* At most this many GPU presets on the gpu knob's slider. */
#define GPUS_MAX 64

/* PgUp/PgDn: this many knob steps, or rows of a list. */
#define PAGE_STEPS 10

static const engine_calibration *cal_of(const tui_plan *p)
{
    return p->has_cal ? &p->cal : NULL;
}

static bool axis_ok(engine_knob_id k)
{
    return engine_knobs[k].steps != KNOB_STEPS_NONE; /* a knob without steps has no axis */
}

static size_t knob_steps(const tui_plan *p, engine_knob_id k, double *out, size_t cap)
{
    return engine_knob_steps(&p->d, k, out, cap);
}

/* x of one point of plan P on the axis (dp x max_bs in the concurrency view). */
static double axis_x(const tui_app *app, const engine_deployment *d, double v)
{
    if (app->concurrency && app->compare && app->axis == KNOB_MAX_BS)
        return v * d->knobs.dp;
    return v;
}

static void compute_curve(tui_app *app, int which, double hi_value)
{
    tui_plan *p = &app->plan[which];
    tui_curve *c = &app->curve[which];
    double *steps = app->scratch.steps;
    size_t n = knob_steps(p, app->axis, steps, TUI_CURVE_MAX);
    c->n = 0;
    c->has_wall = false;
    engine_deployment *d = &app->scratch.d;
    engine_estimate *e = &app->scratch.e;
    bool want_wall = app->axis != KNOB_MAX_BS;
    for (size_t i = 0; i < n && c->n < TUI_CURVE_MAX; i++) {
        if (steps[i] > hi_value * (1 + STEP_EPS))
            break;
        *d = p->d;
        if (engine_knob_set_value(d, app->axis, steps[i], NULL, NULL, 0) != 0)
            continue;
        if (want_wall) {
            /* Along a knob other than max_bs the wall is where the engine's headroom turns
             * negative; the full estimate gives it. */
            engine_estimate_compute(d, cal_of(p), e);
            if (!c->has_wall && e->budget.headroom_bytes < 0) {
                c->has_wall = true;
                c->wall_x = axis_x(app, d, steps[i]);
            }
        } else {
            engine_estimate_terms(d, cal_of(p), e);
        }
        c->x[c->n] = axis_x(app, d, steps[i]);
        c->total_gib[c->n] = (double)e->total_bytes / (double)ENGINE_GIB;
        c->heur_gib[c->n] = (double)e->heuristic_total_bytes / (double)ENGINE_GIB;
        c->n++;
    }
    if (!want_wall && !p->e.budget.wall_beyond_range) {
        c->has_wall = true;
        c->wall_x = axis_x(app, &p->d, p->e.budget.wall_max_bs);
    }
}

/* The upper end of the axis for plan P, in the knob's own values. STEPS: room for TUI_CURVE_MAX
 * values, overwritten. */
static double axis_hi(tui_app *app, const tui_plan *p, double *steps)
{
    size_t n = knob_steps(p, app->axis, steps, TUI_CURVE_MAX);
    if (n == 0)
        return 0;
    double v = engine_knob_value(&p->d, app->axis);
    double hi;
    if (app->axis == KNOB_MAX_BS) {
        hi = v * AXIS_BS_ZOOM > AXIS_BS_MIN ? v * AXIS_BS_ZOOM : AXIS_BS_MIN;
        if (!p->e.budget.wall_beyond_range && p->e.budget.wall_max_bs * AXIS_WALL_ROOM > hi)
            hi = p->e.budget.wall_max_bs * AXIS_WALL_ROOM;
        for (size_t i = 0; i < app->n_runs; i++) { /* the runs the plot draws stay in view */
            double bs;
            uint32_t unknown;
            if (tui_run_on_axis(app, p, &app->runs[i], &app->scratch.d, &bs, &unknown) && bs * AXIS_RUN_ROOM > hi)
                hi = bs * AXIS_RUN_ROOM;
        }
    } else if (n <= AXIS_SHORT_LIST) {
        hi = steps[n - 1];
    } else {
        hi = v * AXIS_LONG_ZOOM;
        if (hi < steps[AXIS_SHORT_LIST - 1])
            hi = steps[AXIS_SHORT_LIST - 1];
    }
    /* Snap to the next step. */
    for (size_t i = 0; i < n; i++)
        if (steps[i] >= hi - STEP_EPS)
            return steps[i];
    return steps[n - 1];
}

static uint32_t next_pow2_at_least(uint32_t v)
{
    uint32_t p = 1;
    while (p < v && p < WHATIF_MAX_BS)
        p <<= 1;
    return p;
}

void tui_app_recompute(tui_app *app)
{
    for (int i = 0; i < 2; i++) {
        tui_plan *p = &app->plan[i];
        if (!p->loaded || (i == 1 && !app->compare))
            continue;
        engine_estimate_compute(&p->d, cal_of(p), &p->e);
        /* The bottom line's what-if: max_bs to the next power of two at least twice it. */
        uint32_t bs = p->d.knobs.max_bs;
        p->whatif_max_bs = next_pow2_at_least(bs * 2);
        if (p->whatif_max_bs <= bs)
            p->whatif_max_bs = 0;
        else {
            engine_deployment *w = &app->scratch.d;
            *w = p->d;
            if (engine_knob_set_value(w, KNOB_MAX_BS, p->whatif_max_bs, NULL, NULL, 0) == 0)
                engine_estimate_terms(w, cal_of(p), &p->whatif);
            else
                p->whatif_max_bs = 0;
        }
    }
    app->axis = axis_ok((engine_knob_id)app->focus) ? (engine_knob_id)app->focus : KNOB_MAX_BS;
    app->x_log = engine_knobs[app->axis].steps == KNOB_STEPS_POW2;
    bool both = app->compare && app->plan[1].loaded;
    double hi0 = axis_hi(app, &app->plan[0], app->scratch.steps);
    double hi1 = both ? axis_hi(app, &app->plan[1], app->scratch.steps) : 0;
    if (app->concurrency && both && app->axis == KNOB_MAX_BS) {
        /* Equal instance concurrency: one x range in dp x max_bs for both. */
        double c0 = hi0 * app->plan[0].d.knobs.dp, c1 = hi1 * app->plan[1].d.knobs.dp;
        double c = c0 > c1 ? c0 : c1;
        hi0 = c / app->plan[0].d.knobs.dp;
        hi1 = c / app->plan[1].d.knobs.dp;
        app->x_hi = c;
    } else if (both && app->axis == KNOB_MAX_BS) {
        double h = hi0 > hi1 ? hi0 : hi1;
        hi0 = hi1 = h;
        app->x_hi = h;
    } else {
        app->x_hi = both && hi1 > hi0 ? hi1 : hi0;
        if (both)
            hi0 = hi1 = app->x_hi;
    }
    compute_curve(app, 0, hi0);
    if (both)
        compute_curve(app, 1, hi1);
    else
        app->curve[1].n = 0;
    double *steps = app->scratch.steps;
    size_t n = knob_steps(&app->plan[0], app->axis, steps, TUI_CURVE_MAX);
    app->x_lo = app->axis == KNOB_MAX_BS ? 0 : (n ? steps[0] : 0);
    if (app->x_hi <= app->x_lo)
        app->x_hi = app->x_lo + 1;
}

/* ---- Knob changes ---- */

static void note_change(tui_app *app, int knob)
{
    const engine_estimate *e = &app->plan[0].e;
    app->changed_knob = knob;
    app->have_prev = true;
    for (int i = 0; i < TERM_COUNT; i++)
        app->prev_bytes[i] = e->terms[i].bytes;
    app->prev_total = e->total_bytes;
}

static void report_adjustments(tui_app *app, const engine_warnings *adj)
{
    if (adj->n > 0)
        set_message(app, false, "%s", adj->items[adj->n - 1].message);
}

/* The GPU presets of the catalog, for the gpu knob's slider. */
static size_t gpu_list(const tui_app *app, const preset_entry **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < preset_catalog_count(app->cat); i++) {
        const preset_entry *pe = preset_catalog_get(app->cat, i);
        if (pe->kind == PRESET_GPU && n < cap)
            out[n++] = pe;
    }
    return n;
}

/* A knob change the engine accepted: D (with ADJ's adjustments) becomes the plan. */
static int accept_change(tui_app *app, int knob, const engine_deployment *d, const engine_warnings *adj)
{
    note_change(app, knob);
    app->plan[0].d = *d;
    app->message[0] = '\0';
    report_adjustments(app, adj);
    return TUI_RECOMPUTE | TUI_REDRAW;
}

static int set_gpu(tui_app *app, const char *name)
{
    tui_plan *p = &app->plan[0];
    char err[ENGINE_TEXT_MAX * 2];
    engine_gpu gpu;
    if (preset_load_gpu(app->cat, name, &gpu, err, sizeof err) != 0) {
        set_message(app, true, "gpu %s: %s", name, err);
        return TUI_REDRAW;
    }
    note_change(app, KNOB_GPU);
    p->d.gpu = gpu;
    p->has_cal = plan_calibration(app, p);
    return TUI_RECOMPUTE | TUI_REDRAW;
}

static int set_value(tui_app *app, int knob, double value)
{
    tui_plan *p = &app->plan[0];
    if (knob == KNOB_GPU) {
        const preset_entry *gpus[GPUS_MAX];
        size_t n = gpu_list(app, gpus, GPUS_MAX);
        size_t i = (size_t)value;
        if (i >= n || strcmp(gpus[i]->name, p->d.gpu.name) == 0)
            return 0;
        return set_gpu(app, gpus[i]->name);
    }
    if (!engine_knob_is_auto(&p->d, (engine_knob_id)knob))
        if (fabs(engine_knob_value(&p->d, (engine_knob_id)knob) - value) < STEP_EPS)
            return 0;
    engine_deployment d = p->d;
    engine_warnings adj = {0};
    char err[ENGINE_TEXT_MAX];
    if (engine_knob_set_value(&d, (engine_knob_id)knob, value, &adj, err, sizeof err) != 0) {
        set_message(app, true, "%s", err);
        return TUI_REDRAW;
    }
    return accept_change(app, knob, &d, &adj);
}

/* The slider's list of values and the current index (gpu: the catalog's GPUs). */
size_t tui_app_knob_steps(const tui_app *app, int knob, double *steps, size_t cap, size_t *cur)
{
    const tui_plan *p = &app->plan[0];
    *cur = 0;
    if (knob == KNOB_GPU) {
        const preset_entry *gpus[GPUS_MAX];
        size_t n = gpu_list(app, gpus, GPUS_MAX);
        for (size_t i = 0; i < n && i < cap; i++) {
            steps[i] = (double)i;
            if (strcmp(gpus[i]->name, p->d.gpu.name) == 0)
                *cur = i;
        }
        return n < cap ? n : cap;
    }
    size_t n = engine_knob_steps(&p->d, (engine_knob_id)knob, steps, cap);
    if (n)
        *cur = tui_slider_nearest_index(steps, n, engine_knob_value(&p->d, (engine_knob_id)knob));
    return n;
}

/* DELTA steps from the current value (leaving auto starts from its value); BIG: the ends. */
static int step_knob(tui_app *app, int knob, int delta, int to_end)
{
    double *steps = app->scratch.steps;
    size_t cur;
    size_t n = tui_app_knob_steps(app, knob, steps, TUI_CURVE_MAX, &cur);
    if (n == 0) {
        if (engine_knobs[knob].field == KNOB_FIELD_LIST)
            set_message(app, false, "%s: type a list with = (e.g. = 1,2,4,8 Enter) or = auto Enter", engine_knobs[knob].name);
        return TUI_REDRAW;
    }
    if (knob != KNOB_GPU) { /* the engine walks the knob's steps (leaving auto from its value) */
        engine_deployment d = app->plan[0].d;
        engine_warnings adj = {0};
        char err[ENGINE_TEXT_MAX];
        int rc = engine_knob_step(&d, (engine_knob_id)knob, delta, to_end, &adj, err, sizeof err);
        if (rc < 0) {
            set_message(app, true, "%s", err);
            return TUI_REDRAW;
        }
        return rc > 0 ? 0 : accept_change(app, knob, &d, &adj);
    }
    /* The GPU walks the catalog's GPU presets, which the engine does not know. */
    size_t idx;
    if (to_end)
        idx = to_end > 0 ? n - 1 : 0;
    else {
        long i = (long)cur + delta;
        idx = i < 0 ? 0 : (size_t)i >= n ? n - 1 : (size_t)i;
    }
    return set_value(app, knob, steps[idx]);
}

static int save_preset(tui_app *app, const char *name);

static int apply_typed(tui_app *app)
{
    tui_plan *p = &app->plan[0];
    int knob = app->typing_knob;
    char *text = app->input;
    app->typing = false;
    if (app->prompt == TUI_PROMPT_SAVE)
        return save_preset(app, text);
    if (!text[0])
        return TUI_REDRAW;
    if (knob == KNOB_GPU)
        return set_gpu(app, text);
    engine_deployment d = p->d;
    engine_warnings adj = {0};
    char err[ENGINE_TEXT_MAX];
    if (engine_knob_set_text(&d, (engine_knob_id)knob, text, &adj, err, sizeof err) != 0) {
        set_message(app, true, "%s", err);
        return TUI_REDRAW;
    }
    return accept_change(app, knob, &d, &adj);
}

/* The knob's help with the flag it begins with spelled as the plan's release spells it: the graph
 * flags gained "-decode" in PR #23906 (engine_release_has_decode_graph_flags), and launch.c
 * builds them the same way (graph_flag). */
void tui_knob_help(const tui_app *app, int knob, char *buf, size_t len)
{
    const engine_knob_info *k = &engine_knobs[knob];
    const char *help = k->help;
    snprintf(buf, len, "%s", help);
    if (!k->sglang_flag || !k->sglang_flag_alt)
        return;
    char decode[ENGINE_NAME_MAX];
    snprintf(decode, sizeof decode, "%s-decode", k->sglang_flag);
    if (strcmp(k->sglang_flag_alt, decode) != 0)
        return; /* another spelling (--tp, --dp), not a release's */
    const char *flag = engine_release_has_decode_graph_flags(&app->plan[0].d.knobs.sglang) ? decode : k->sglang_flag;
    size_t skip = 0;
    if (strncmp(help, decode, strlen(decode)) == 0)
        skip = strlen(decode);
    else if (strncmp(help, k->sglang_flag, strlen(k->sglang_flag)) == 0)
        skip = strlen(k->sglang_flag);
    if (skip) /* the flag leads the line */
        snprintf(buf, len, "%s%s", flag, help + skip);
    else /* elsewhere in it ("captured batch sizes (--cuda-graph-bs-decode; ...)") */
    {
        const char *at = strstr(help, decode);
        if (!at)
            at = strstr(help, k->sglang_flag), skip = strlen(k->sglang_flag);
        else
            skip = strlen(decode);
        if (at && !(at[skip] == '-'))
            snprintf(buf, len, "%.*s%s%s", (int)(at - help), help, flag, at + skip);
    }
}

/* ---- The setup pop-up (F2, o): the knobs past the panel's ten, each set through the engine ---- */

int tui_app_setup_knob(int row)
{
    int n = 0;
    for (int k = KNOB_PANEL_COUNT; k < KNOB_COUNT; k++)
        if (engine_knobs[k].type != KNOB_TYPE_NAME && n++ == row) /* gpu has its slider */
            return k;
    return -1;
}

int tui_app_setup_count(void)
{
    int n = 0;
    while (tui_app_setup_knob(n) >= 0)
        n++;
    return n;
}

/* The releases the setup pop-up cycles through: each first release of a row of the engine's
 * release facts (where SGLang's behaviour changed), and main, in version order. */
#define SETUP_RELEASES_MAX 256
static size_t release_steps(engine_release *out, size_t cap)
{
    size_t n = 0;
    engine_release r;
    const char *what, *source;
    for (size_t i = 0; i < engine_release_fact_count() && n < cap; i++) {
        if (!engine_release_fact(i, &r, &what, &source, NULL))
            continue;
        size_t at = 0;
        while (at < n && engine_release_cmp(&out[at], &r) < 0)
            at++;
        if (at < n && engine_release_cmp(&out[at], &r) == 0)
            continue;
        memmove(&out[at + 1], &out[at], (n - at) * sizeof *out);
        out[at] = r;
        n++;
    }
    r = engine_release_newest();
    if (n < cap && (n == 0 || engine_release_cmp(&out[n - 1], &r) < 0))
        out[n++] = r;
    return n;
}

/* Left/Right (DELTA) or Enter on an enum, a switch or the release: the next of its values, "auto"
 * first where the knob has one. Returns -1 when KNOB is not one of those. */
static int cycle_knob(tui_app *app, int knob, int delta)
{
    const engine_knob_info *k = &engine_knobs[knob];
    const engine_deployment *cur = &app->plan[0].d;
    char texts[SETUP_RELEASES_MAX][ENGINE_RELEASE_TEXT_MAX];
    int n = 0, at = -1;
    if (k->type == KNOB_TYPE_RELEASE) {
        engine_release rel[SETUP_RELEASES_MAX];
        size_t nr = release_steps(rel, SETUP_RELEASES_MAX);
        for (size_t i = 0; i < nr; i++) {
            engine_release_text(&rel[i], texts[n], sizeof texts[n]);
            if (engine_release_cmp(&rel[i], &cur->knobs.sglang) <= 0)
                at = n; /* a release between two steps sits on the older one */
            n++;
        }
    } else if (k->type == KNOB_TYPE_ENUM || k->type == KNOB_TYPE_BOOL) {
        if (k->autoable)
            snprintf(texts[n++], sizeof texts[0], "auto");
        if (k->type == KNOB_TYPE_BOOL) {
            snprintf(texts[n++], sizeof texts[0], "off");
            snprintf(texts[n++], sizeof texts[0], "on");
        } else
            for (int i = 0; i < k->n_choices && n < SETUP_RELEASES_MAX; i++)
                snprintf(texts[n++], sizeof texts[0], "%s", k->choices[i]);
        char now[ENGINE_TEXT_MAX];
        engine_knob_text(cur, NULL, (engine_knob_id)knob, KNOB_TEXT_CANONICAL, now, sizeof now);
        for (int i = 0; i < n; i++)
            if (strcmp(texts[i], now) == 0 && !(engine_knob_is_auto(cur, (engine_knob_id)knob) && i > 0))
                at = i;
        if (k->autoable && engine_knob_is_auto(cur, (engine_knob_id)knob))
            at = 0;
    } else {
        return -1;
    }
    if (n == 0)
        return TUI_REDRAW;
    int next = at < 0 ? 0 : ((at + delta) % n + n) % n;
    engine_deployment d = *cur;
    engine_warnings adj = {0};
    char err[ENGINE_TEXT_MAX];
    if (engine_knob_set_text(&d, (engine_knob_id)knob, texts[next], &adj, err, sizeof err) != 0) {
        set_message(app, true, "%s", err);
        return TUI_REDRAW;
    }
    int flags = accept_change(app, knob, &d, &adj);
    if (!app->message[0])
        set_message(app, false, "%s = %s", k->name, texts[next]);
    return flags;
}

static void start_prompt(tui_app *app, tui_prompt prompt, int knob, const char *initial)
{
    app->typing = true;
    app->prompt = prompt;
    app->typing_knob = knob;
    snprintf(app->input, sizeof app->input, "%s", initial);
}

/* Up, Down, PgUp and PgDn (PAGE rows), Home and End over a list of N rows: moves *SEL within it;
 * false for any other key. */
static bool move_in_list(int *sel, int key, int n, int page)
{
    switch (key) {
    case TUI_KEY_UP:
        *sel = *sel > 0 ? *sel - 1 : 0;
        return true;
    case TUI_KEY_DOWN:
        *sel = *sel + 1 < n ? *sel + 1 : *sel;
        return true;
    case TUI_KEY_PGUP:
        *sel = *sel > page ? *sel - page : 0;
        return true;
    case TUI_KEY_PGDN:
        *sel = *sel + page < n ? *sel + page : (n ? n - 1 : 0);
        return true;
    case TUI_KEY_HOME:
        *sel = 0;
        return true;
    case TUI_KEY_END:
        *sel = n ? n - 1 : 0;
        return true;
    default:
        return false;
    }
}

/* The keys of a text pop-up (w, ?, l, e): they scroll it by its first row shown, over the
 * positions that keep the window full; Tab turns the help's page; any other key closes it. */
static int handle_popup(tui_app *app, const tui_event *ev)
{
    if (app->mode == TUI_MODE_HELP && (ev->key == TUI_KEY_TAB || ev->key == TUI_KEY_BTAB)) {
        app->help_page = !app->help_page; /* keys and knobs <-> the term labels */
        app->scroll = 0;
        return TUI_REDRAW;
    }
    int rows, visible;
    tui_overlay_popup_extent(app, &rows, &visible);
    int tops = rows > visible ? rows - visible + 1 : 1;
    if (move_in_list(&app->scroll, ev->key, tops, visible > 1 ? visible - 1 : 1))
        return TUI_REDRAW;
    app->mode = TUI_MODE_MAIN;
    app->scroll = 0;
    return ev->key == 'q' ? TUI_QUIT : TUI_REDRAW;
}

static int handle_setup(tui_app *app, const tui_event *ev)
{
    if (move_in_list(&app->sel, ev->key, tui_app_setup_count(), PAGE_STEPS))
        return TUI_REDRAW;
    int knob = tui_app_setup_knob(app->sel);
    switch (ev->key) {
    case TUI_KEY_LEFT:
    case TUI_KEY_RIGHT: {
        int delta = ev->key == TUI_KEY_RIGHT ? 1 : -1;
        int flags = cycle_knob(app, knob, delta);
        if (flags >= 0)
            return flags;
        if (engine_knobs[knob].steps == KNOB_STEPS_NONE) {
            set_message(app, false, "%s: Enter types a value (%s)", engine_knobs[knob].name, engine_knobs[knob].range);
            return TUI_REDRAW;
        }
        return step_knob(app, knob, delta, 0);
    }
    case TUI_KEY_ENTER: /* an enum or a switch: its next value; a number or the release: typed */
        if (engine_knobs[knob].type == KNOB_TYPE_ENUM || engine_knobs[knob].type == KNOB_TYPE_BOOL)
            return cycle_knob(app, knob, 1);
        start_prompt(app, TUI_PROMPT_KNOB, knob, "");
        return TUI_REDRAW;
    case 'a': { /* back to what the release would choose */
        engine_deployment d = app->plan[0].d;
        if (!engine_knob_set_auto(&d, (engine_knob_id)knob))
            return 0;
        engine_warnings adj = {0};
        return accept_change(app, knob, &d, &adj);
    }
    case '=':
        start_prompt(app, TUI_PROMPT_KNOB, knob, "");
        return TUI_REDRAW;
    case 'q':
        return TUI_QUIT;
    default: /* Escape, F2, o and anything else close it */
        app->mode = TUI_MODE_MAIN;
        return TUI_REDRAW;
    }
}

bool tui_app_track_rect(const tui_app *app, int knob, tui_rect *out)
{
    const tui_layout *l = &app->layout;
    if (l->too_small || knob < 0 || knob >= TUI_KNOB_ROWS)
        return false;
    tui_rect r = l->panel[TUI_PANEL_KNOBS];
    tui_slider_geom g;
    tui_slider_geometry(r.w - 2, &g);
    *out = (tui_rect){r.x + 1 + g.track_x, r.y + 1 + knob, g.track_w, 1};
    return true;
}

static int handle_mouse(tui_app *app, const tui_event *ev)
{
    if (app->mode != TUI_MODE_MAIN || app->layout.too_small)
        return 0;
    if (ev->action == TUI_MOUSE_RELEASE) {
        int was = app->drag_knob;
        app->drag_knob = -1;
        if (was < 0)
            return 0;
    }
    if (ev->action == TUI_MOUSE_WHEEL_UP || ev->action == TUI_MOUSE_WHEEL_DOWN)
        return step_knob(app, app->focus, ev->action == TUI_MOUSE_WHEEL_UP ? 1 : -1, 0);
    int knob = app->drag_knob;
    tui_rect tr = {0, 0, 0, 0};
    if (ev->action == TUI_MOUSE_PRESS && ev->button == 0) {
        tui_rect kr = app->layout.panel[TUI_PANEL_KNOBS];
        int row = ev->y - (kr.y + 1);
        if (ev->x <= kr.x || ev->x >= kr.x + kr.w - 1 || row < 0 || row >= TUI_KNOB_ROWS)
            return 0;
        tui_app_track_rect(app, row, &tr);
        int flags = app->focus != row ? TUI_REDRAW | TUI_RECOMPUTE : 0;
        app->focus = row;
        if (ev->x < tr.x || ev->x >= tr.x + tr.w)
            return flags; /* a press on the name or the value only focuses */
        app->drag_knob = row;
        knob = row;
        if (flags)
            app->changed_knob = -1;
    } else if (knob < 0 || (ev->action != TUI_MOUSE_DRAG && ev->action != TUI_MOUSE_RELEASE)) {
        return 0;
    }
    if (!tui_app_track_rect(app, knob, &tr))
        return 0;
    double *steps = app->scratch.steps;
    size_t cur;
    size_t n = tui_app_knob_steps(app, knob, steps, TUI_CURVE_MAX, &cur);
    if (n == 0)
        return TUI_REDRAW;
    size_t idx = tui_slider_index_for_col(n, tr.w, ev->x - tr.x);
    return set_value(app, knob, steps[idx]) | TUI_REDRAW | TUI_RECOMPUTE;
}

static int pick_preset(tui_app *app, int slot);

/* NEEDLE in HAY, ignoring ASCII case (preset names, models, GPUs and labels are ASCII). */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

/* A picker row matches the filter by its name, model, GPU or description. */
static bool preset_matches(const tui_app *app, const preset_entry *pe)
{
    const char *f = app->filter;
    return pe->kind == PRESET_DEPLOYMENT && (!f[0] || contains_ci(pe->name, f) || contains_ci(pe->model, f) ||
                                             contains_ci(pe->gpu, f) || contains_ci(pe->description, f));
}

/* A run matches by its id, model, GPU or label. */
static bool run_matches(const tui_app *app, const store_run_summary *r)
{
    const char *f = app->filter;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    return !f[0] || contains_ci(id, f) || contains_ci(r->model, f) || contains_ci(r->gpu, f) ||
           contains_ci(r->label, f);
}

const preset_entry *tui_app_picker_entry(const tui_app *app, int index)
{
    int n = 0;
    for (size_t i = 0; i < preset_catalog_count(app->cat); i++) {
        const preset_entry *pe = preset_catalog_get(app->cat, i);
        if (preset_matches(app, pe) && n++ == index)
            return pe;
    }
    return NULL;
}

const store_run_summary *tui_app_run_entry(const tui_app *app, int index)
{
    int n = 0;
    for (size_t i = 0; i < app->n_runs; i++)
        if (run_matches(app, &app->runs[i]) && n++ == index)
            return &app->runs[i];
    return NULL;
}

static int list_len(const tui_app *app)
{
    int n = 0;
    if (app->mode == TUI_MODE_PICKER)
        while (tui_app_picker_entry(app, n))
            n++;
    else
        while (tui_app_run_entry(app, n))
            n++;
    return n;
}

/* The list's filter is typed: characters narrow it, Backspace edits, Enter keeps it (and in the
 * picker loads the highlighted match), Escape clears it. */
static int handle_filter_typing(tui_app *app, const tui_event *ev)
{
    size_t len = strlen(app->filter);
    if (ev->key == TUI_KEY_ESCAPE) {
        app->filtering = false;
        app->filter[0] = '\0';
    } else if (ev->key == TUI_KEY_ENTER) {
        app->filtering = false;
        if (app->mode == TUI_MODE_PICKER && list_len(app) > 0)
            return pick_preset(app, 0);
    } else if (ev->key == TUI_KEY_BACKSPACE) {
        if (len)
            app->filter[len - 1] = '\0';
    } else if (ev->key >= 0x20 && ev->key < 0x7F) {
        if (len + 1 < sizeof app->filter) {
            app->filter[len] = (char)ev->key;
            app->filter[len + 1] = '\0';
        }
    } else {
        return -1; /* not the filter's: the list handles it (Up/Down, ...) */
    }
    app->sel = 0;
    app->scroll = 0;
    return TUI_REDRAW;
}

static int pick_preset(tui_app *app, int slot)
{
    const preset_entry *pe = tui_app_picker_entry(app, app->sel);
    if (!pe)
        return TUI_REDRAW;
    char err[ENGINE_TEXT_MAX * 2];
    tui_plan *loaded = &app->scratch.loaded;
    if (load_plan(app, loaded, pe->name, err, sizeof err) != 0) {
        set_message(app, true, "%s", err);
        return TUI_REDRAW;
    }
    app->plan[slot] = *loaded;
    if (slot == 1)
        app->compare = app->compare_chosen = true;
    app->have_prev = false;
    app->changed_knob = -1;
    app->mode = TUI_MODE_MAIN;
    app->filter[0] = '\0';
    if (app->compare && strcmp(app->plan[0].name, app->plan[1].name) == 0)
        set_message(app, true, "comparing %s with itself (the same preset on both sides)", app->plan[0].name);
    else
        set_message(app, false, "%s %s", slot ? "comparing with" : "loaded", pe->name);
    return TUI_RECOMPUTE | TUI_REDRAW;
}

static int handle_list(tui_app *app, const tui_event *ev)
{
    if (app->filtering) {
        int flags = handle_filter_typing(app, ev);
        if (flags >= 0)
            return flags;
    }
    int n = list_len(app);
    if (ev->key == '/') {
        app->filtering = true;
        return TUI_REDRAW;
    }
    if (ev->key == TUI_KEY_ESCAPE && app->filter[0]) { /* the first Escape clears the filter */
        app->filter[0] = '\0';
        app->sel = app->scroll = 0;
        return TUI_REDRAW;
    }
    if (move_in_list(&app->sel, ev->key, n, PAGE_STEPS))
        return TUI_REDRAW;
    switch (ev->key) {
    case TUI_KEY_ESCAPE:
    case 'q':
    case 'p':
    case 'r':
        if ((ev->key == 'p' && app->mode != TUI_MODE_PICKER) || (ev->key == 'r' && app->mode != TUI_MODE_RUNS))
            return 0;
        app->filter[0] = '\0';
        if (app->mode == TUI_MODE_RUNS) {
            app->mode = TUI_MODE_MAIN;
            return TUI_RELOAD_RUNS | TUI_RECOMPUTE | TUI_REDRAW;
        }
        app->mode = TUI_MODE_MAIN;
        return TUI_REDRAW;
    default:
        break;
    }
    if (app->mode == TUI_MODE_PICKER) {
        if (ev->key == TUI_KEY_ENTER)
            return pick_preset(app, 0);
        if (ev->key == 'c' || ev->key == TUI_KEY_TAB)
            return pick_preset(app, 1);
        return 0;
    }
    /* runs browser */
    if ((ev->key == 'd' || ev->key == TUI_KEY_DELETE || ev->key == 'x') && n > 0 && app->db) {
        app->mode = TUI_MODE_CONFIRM;
        return TUI_REDRAW;
    }
    return 0;
}

static int handle_confirm(tui_app *app, const tui_event *ev)
{
    if (ev->key == 'y' || ev->key == 'Y') {
        const store_run_summary *run = tui_app_run_entry(app, app->sel);
        if (run && app->db) {
            int64_t id = run->id;
            char err[ENGINE_TEXT_MAX * 2];
            int rc = store_delete_run(app->db, id, err, sizeof err);
            if (rc < 0)
                set_message(app, true, "delete run %lld: %s", (long long)id, err);
            else
                set_message(app, false, "run %lld deleted", (long long)id);
            tui_app_reload_runs(app);
            app->mode = TUI_MODE_RUNS; /* list_len counts the browser's rows */
            int left = list_len(app);
            if (app->sel >= left)
                app->sel = left ? left - 1 : 0;
        }
        app->mode = TUI_MODE_RUNS;
        return TUI_REDRAW | TUI_RECOMPUTE;
    }
    app->mode = TUI_MODE_RUNS;
    return TUI_REDRAW;
}

static int handle_typing(tui_app *app, const tui_event *ev)
{
    size_t len = strlen(app->input);
    if (ev->key == TUI_KEY_ENTER)
        return apply_typed(app);
    if (ev->key == TUI_KEY_ESCAPE) {
        app->typing = false;
        if (app->prompt == TUI_PROMPT_SAVE)
            set_message(app, false, "save cancelled");
        return TUI_REDRAW;
    }
    if (ev->key == TUI_KEY_BACKSPACE) {
        if (len)
            app->input[len - 1] = '\0';
        return TUI_REDRAW;
    }
    if (ev->key >= 0x20 && ev->key < 0x7F && len + 1 < sizeof app->input) {
        app->input[len] = (char)ev->key;
        app->input[len + 1] = '\0';
    }
    return TUI_REDRAW;
}

/* OSC 52 puts TEXT on the terminal's clipboard where the terminal allows it (xterm, tmux with
 * set-clipboard, kitty, iTerm2, WezTerm); terminals without it ignore the sequence. Only on a
 * terminal: a snapshot's output is text for a file. */
static bool copy_osc52(const char *text)
{
    const char *term = getenv("TERM");
    if (!isatty(STDOUT_FILENO) || !term || strcmp(term, "dumb") == 0 || strncmp(term, "vt1", 3) == 0 ||
        strcmp(term, "linux") == 0)
        return false;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    fputs("\033]52;c;", stdout);
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)text[i] << 16 | (i + 1 < n ? (unsigned char)text[i + 1] << 8 : 0) |
                     (i + 2 < n ? (unsigned char)text[i + 2] : 0);
        char out[5] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
                       i + 2 < n ? b64[v & 63] : '=', 0};
        fputs(out, stdout);
    }
    fputs("\a", stdout);
    fflush(stdout);
    return true;
}

/* A character a typed preset name may hold: a file stem every shell takes unquoted. */
static bool save_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

/* s's default name: the plan's with "-saved", cut to 48 bytes, each character a name may not hold
 * (a quote, a space, any non-ASCII byte) as '-', so the name offered is always one save takes. */
static void default_save_name(const tui_app *app, char *buf, size_t len)
{
    const char *name = app->plan[0].name;
    char safe[49];
    size_t n = 0;
    for (; name[n] && n < sizeof safe - 1; n++)
        safe[n] = !save_name_char(name[n]) ? '-' : n == 0 && (name[n] == '.' || name[n] == '-') ? '_' : name[n];
    if (n && safe[0] == '-')
        safe[0] = '_'; /* a name does not start with '-' */
    safe[n] = '\0';
    snprintf(buf, len, "%s-saved", n ? safe : "plan");
}

/* A preset name the user may type: a file stem every shell takes unquoted. */
static bool save_name_ok(const char *name)
{
    if (!name[0] || name[0] == '.' || name[0] == '-')
        return false;
    for (const char *c = name; *c; c++)
        if (!save_name_char(*c))
            return false;
    return true;
}

/* Enter on s's prompt: the plan as a deployment preset NAME in the user's directory (the knobs of
 * the table, by the names the loader reads), so `--preset NAME` and the picker find it at once. */
static int save_preset(tui_app *app, const char *name)
{
    const tui_plan *p = &app->plan[0];
    const engine_deployment *d = &p->d;
    if (!save_name_ok(name)) {
        set_message(app, true, "save: '%.64s' is not a preset name: letters, digits, '-', '_' and '.' (s again)", name);
        return TUI_REDRAW;
    }
    char dir[ENGINE_TEXT_MAX * 2], path[ENGINE_TEXT_MAX * 3];
    preset_user_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    /* mkdir -p of the directory */
    char part[sizeof dir];
    for (size_t i = 1; i <= strlen(dir); i++)
        if (dir[i] == '/' || dir[i] == '\0') {
            snprintf(part, sizeof part, "%.*s", (int)i, dir);
            if (mkdir(part, 0755) != 0 && errno != EEXIST) {
                set_message(app, true, "save: cannot create %s: %s (set $CGPLAN_PRESETS to a writable directory)", part,
                            strerror(errno));
                return TUI_REDRAW;
            }
        }
    FILE *f = fopen(path, "w");
    if (!f) {
        set_message(app, true, "save: cannot write %s: %s", path, strerror(errno));
        return TUI_REDRAW;
    }
    /* Names are file stems, which may hold any character: quoted as model import quotes them. */
    char description[ENGINE_TEXT_MAX];
    snprintf(description, sizeof description, "%s, as saved from the planner", p->name);
    fputs("# saved by the cgplan planner from ", f);
    preset_yaml_write_comment_text(f, p->name);
    fputs("\nkind: deployment\nname: ", f);
    preset_yaml_write_quoted(f, name);
    fputs("\ndescription: ", f);
    preset_yaml_write_quoted(f, description);
    fputs("\nmodel: ", f);
    preset_yaml_write_quoted(f, d->model.name);
    fputs("\ngpu: ", f);
    preset_yaml_write_quoted(f, d->gpu.name);
    fputc('\n', f);
    engine_knob_id order[KNOB_COUNT];
    engine_knob_apply_order(order);
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[order[i]];
        if (k->type == KNOB_TYPE_NAME)
            continue;
        char text[ENGINE_TEXT_MAX * 4];
        engine_knob_text(d, &p->e, order[i],
                         k->type == KNOB_TYPE_LIST_OR_AUTO ? KNOB_TEXT_DISPLAY : KNOB_TEXT_CANONICAL, text,
                         sizeof text);
        fprintf(f, "%s: %s\n", k->name, text);
    }
    /* A measured weights figure only while the estimate uses it: after a layout change the
     * engine computes the weights from the model, and the stale figure must not travel on. */
    if (p->e.budget.weights_measured)
        fprintf(f, "weights_bytes: %llu\n", (unsigned long long)d->weights_bytes);
    fprintf(f, "state_pool_bytes: %llu\nother_runtime_bytes: %llu\n", (unsigned long long)d->state_pool_bytes,
            (unsigned long long)d->other_runtime_bytes);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) {
        set_message(app, true, "save: writing %s failed", path);
        return TUI_REDRAW;
    }
    /* The picker lists the catalog: built again, it holds the new preset. */
    preset_catalog *cat = preset_catalog_open();
    if (cat) {
        preset_catalog_free(app->cat);
        app->cat = cat;
    }
    set_message(app, false, "saved as preset %s (%s; p lists it)", name, path);
    return TUI_REDRAW;
}

/* c with the default comparison being the main preset itself (the main one was loaded from the
 * picker): the next deployment preset after it in the catalog's order that has another name. */
static int compare_with_next(tui_app *app)
{
    app->filter[0] = '\0';
    int n = 0, at = 0;
    while (tui_app_picker_entry(app, n)) {
        if (strcmp(tui_app_picker_entry(app, n)->name, app->plan[0].name) == 0)
            at = n;
        n++;
    }
    for (int i = 1; i < n; i++) {
        const preset_entry *pe = tui_app_picker_entry(app, (at + i) % n);
        char err[ENGINE_TEXT_MAX * 2];
        if (strcmp(pe->name, app->plan[0].name) == 0 || load_plan(app, &app->scratch.loaded, pe->name, err, sizeof err))
            continue;
        char was[ENGINE_NAME_MAX];
        snprintf(was, sizeof was, "%s", app->plan[1].name);
        app->plan[1] = app->scratch.loaded;
        set_message(app, false, "comparing with %s (the default, %s, is the main preset)", pe->name, was);
        return TUI_RECOMPUTE | TUI_REDRAW;
    }
    app->compare = false;
    set_message(app, true, "no other deployment preset to compare %s with", app->plan[0].name);
    return TUI_REDRAW;
}

void tui_app_concurrency_sentence(const tui_app *app, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!app->compare || !app->plan[1].loaded)
        return;
    uint64_t conc[2];
    char terms[2][64];
    for (int i = 0; i < 2; i++) {
        const engine_budget *b = &app->plan[i].e.budget;
        uint32_t dp = app->plan[i].d.knobs.dp;
        const char *more = b->wall_beyond_range ? "+" : ""; /* it fits to the end of max_bs's range */
        conc[i] = (uint64_t)dp * b->wall_max_bs;
        snprintf(terms[i], sizeof terms[i], "%u x %u%s = %llu%s", dp, b->wall_max_bs, more,
                 (unsigned long long)conc[i], more);
    }
    char a[ENGINE_TEXT_MAX], b[ENGINE_TEXT_MAX]; /* the plans as on screen, edits and all */
    tui_app_plan_label(app, 0, a, sizeof a);
    tui_app_plan_label(app, 1, b, sizeof b);
    int hi = conc[1] > conc[0];
    uint64_t big = conc[hi], small = conc[!hi];
    if (big == small)
        snprintf(buf, len, "At the wall %s and %s serve as many requests (%s vs %s).", a, b, terms[0], terms[1]);
    else if (small == 0)
        snprintf(buf, len, "At the wall only %s serves any request (%s vs %s).", hi ? b : a, terms[0], terms[1]);
    else
        snprintf(buf, len, "At the wall %s serves %llu more requests than %s (%s vs %s, %.2fx).", hi ? b : a,
                 (unsigned long long)(big - small), hi ? a : b, terms[0], terms[1], (double)big / (double)small);
}

/* The launch command of the current knobs, as `cgplan launch` builds it. */
void tui_app_launch(const tui_app *app, engine_launch *l)
{
    engine_launch_opts o = {0};
    engine_launch_build(&app->plan[0].d, &app->plan[0].e, &o, l);
}

int tui_app_handle(tui_app *app, const tui_event *ev)
{
    if (ev->type == TUI_EV_RESIZE)
        return TUI_RESIZE | TUI_REDRAW;
    if (ev->type == TUI_EV_MOUSE)
        return handle_mouse(app, ev);
    if (ev->key == TUI_KEY_F10) /* the quit key of htop and mc: from any mode, even while typing */
        return TUI_QUIT;
    if (app->typing)
        return handle_typing(app, ev);
    if (app->mode == TUI_MODE_CONFIRM)
        return handle_confirm(app, ev);
    if (app->mode == TUI_MODE_PICKER || app->mode == TUI_MODE_RUNS)
        return handle_list(app, ev);
    if (app->mode == TUI_MODE_SETUP)
        return handle_setup(app, ev);
    if (app->mode == TUI_MODE_HELP || app->mode == TUI_MODE_WARNINGS || app->mode == TUI_MODE_LAUNCH)
        return handle_popup(app, ev);
    if (app->mode == TUI_MODE_EXPLAIN) { /* Up/Down choose the term, PgUp/PgDn/Home/End scroll it */
        if (ev->key == TUI_KEY_UP || ev->key == TUI_KEY_DOWN) {
            app->sel = (app->sel + (ev->key == TUI_KEY_UP ? TERM_COUNT - 1 : 1)) % TERM_COUNT;
            app->scroll = 0;
            return TUI_REDRAW;
        }
        return handle_popup(app, ev);
    }
    int prev_focus = app->focus;
    int flags = 0;
    switch (ev->key) {
    case 'q':
    case 3: /* Ctrl-C in raw input */
        return TUI_QUIT;
    case '?':
    case TUI_KEY_F1:
        app->mode = TUI_MODE_HELP;
        app->help_page = 0;
        app->scroll = 0;
        return TUI_REDRAW;
    case 't':
        app->theme = app->theme == TUI_THEME_LIGHT ? TUI_THEME_DARK : TUI_THEME_LIGHT;
        set_message(app, false, "theme: %s (t toggles; CGPLAN_THEME=light starts with it)",
                    app->theme == TUI_THEME_LIGHT ? "light, for a light background" : "dark");
        return TUI_REDRAW;
    case 'p':
        app->mode = TUI_MODE_PICKER;
        app->filter[0] = '\0';
        app->filtering = false;
        app->sel = 0;
        for (int i = 0; i < list_len(app); i++)
            if (strcmp(tui_app_picker_entry(app, i)->name, app->plan[0].name) == 0)
                app->sel = i;
        return TUI_REDRAW;
    case 'r':
        tui_app_reload_runs(app);
        app->mode = TUI_MODE_RUNS;
        app->filter[0] = '\0';
        app->filtering = false;
        app->sel = 0;
        return TUI_REDRAW | TUI_RECOMPUTE;
    case 'c':
        if (!app->plan[1].loaded) {
            set_message(app, true, "no deployment to compare with (p, then c on one)");
            return TUI_REDRAW;
        }
        app->compare = !app->compare;
        if (!app->compare) {
            set_message(app, false, "comparison off");
            return TUI_RECOMPUTE | TUI_REDRAW;
        }
        if (strcmp(app->plan[1].name, app->plan[0].name) == 0 && !app->compare_chosen)
            return compare_with_next(app);
        if (strcmp(app->plan[1].name, app->plan[0].name) == 0)
            set_message(app, true, "comparing %s with itself (the same preset on both sides; p, then c on another)",
                        app->plan[0].name);
        else
            set_message(app, false, "comparing with %s (i: equal instance concurrency)", app->plan[1].name);
        return TUI_RECOMPUTE | TUI_REDRAW;
    case 'i':
        if (!app->compare) {
            set_message(app, false, "i works in the comparison (c)");
            return TUI_REDRAW;
        }
        app->concurrency = !app->concurrency;
        set_message(app, false, app->concurrency ? "x = instance concurrency (dp x max_bs)" : "x = max_bs per DP rank");
        return TUI_RECOMPUTE | TUI_REDRAW;
    case 'a':
        if (!app->plan[0].d.knobs.max_dispatch_auto) {
            note_change(app, KNOB_MAX_DISPATCH);
            app->plan[0].d.knobs.max_dispatch_auto = true;
            set_message(app, false, "max_dispatch follows the MoE rows again (auto)");
            return TUI_RECOMPUTE | TUI_REDRAW;
        }
        return 0;
    case '=':
        start_prompt(app, TUI_PROMPT_KNOB, app->focus, "");
        return TUI_REDRAW;
    case TUI_KEY_F2:
    case 'o':
        app->mode = TUI_MODE_SETUP;
        app->sel = 0;
        app->scroll = 0;
        return TUI_REDRAW;
    case 'w':
        app->mode = TUI_MODE_WARNINGS;
        app->scroll = 0;
        return TUI_REDRAW;
    case 'e': /* explain a term: the largest first */
        app->mode = TUI_MODE_EXPLAIN;
        app->scroll = 0;
        app->sel = 0;
        for (int t = 0; t < TERM_COUNT; t++)
            if (app->plan[0].e.terms[t].bytes > app->plan[0].e.terms[app->sel].bytes)
                app->sel = t;
        return TUI_REDRAW;
    case 'l': {
        app->mode = TUI_MODE_LAUNCH;
        app->scroll = 0;
        engine_launch *l = &app->scratch.launch;
        tui_app_launch(app, l);
        char *cmd = app->scratch.text;
        size_t used = 0;
        for (uint32_t n = 0; n < l->nnodes && used < sizeof app->scratch.text; n++) {
            used += engine_launch_command(l, n, cmd + used, sizeof app->scratch.text - used);
            if (used + 1 < sizeof app->scratch.text)
                cmd[used++] = '\n', cmd[used] = '\0';
        }
        /* a cut command could end inside a quoted word: copied whole or not at all */
        bool whole = used < sizeof app->scratch.text;
        bool copied = whole && copy_osc52(cmd);
        set_message(app, false, "launch command%s%s",
                    copied  ? " copied to the clipboard (OSC 52)"
                    : whole ? ""
                            : " too long for the clipboard (cgplan launch prints it)",
                    l->n_refusals ? "; cgplan launch would refuse it (see above it)" : "");
        return TUI_REDRAW;
    }
    case 'f': {
        tui_plan *p = &app->plan[0];
        double f = p->e.budget.recommended_mem_fraction_static;
        const engine_knob_info *k = &engine_knobs[KNOB_MEM_FRACTION];
        if (f < k->min || f > k->max) {
            set_message(app, true, "the recommended fraction %.3f is outside %s: the graphs do not fit", f, k->range);
            return TUI_REDRAW;
        }
        note_change(app, KNOB_MEM_FRACTION);
        p->d.knobs.mem_fraction_static = f;
        set_message(app, false, "mem_fraction_static = %.3f (the recommended fraction)", f);
        return TUI_RECOMPUTE | TUI_REDRAW;
    }
    case 's': {
        char name[ENGINE_NAME_MAX];
        default_save_name(app, name, sizeof name);
        start_prompt(app, TUI_PROMPT_SAVE, -1, name);
        return TUI_REDRAW;
    }
    case TUI_KEY_UP:
        app->focus = app->focus > 0 ? app->focus - 1 : 0;
        break;
    case TUI_KEY_DOWN:
        app->focus = app->focus + 1 < KNOB_PANEL_COUNT ? app->focus + 1 : app->focus;
        break;
    case TUI_KEY_TAB:
        app->focus = (app->focus + 1) % KNOB_PANEL_COUNT;
        break;
    case TUI_KEY_BTAB:
        app->focus = (app->focus + KNOB_PANEL_COUNT - 1) % KNOB_PANEL_COUNT;
        break;
    case TUI_KEY_RIGHT:
        flags = step_knob(app, app->focus, 1, 0);
        break;
    case TUI_KEY_LEFT:
        flags = step_knob(app, app->focus, -1, 0);
        break;
    case TUI_KEY_PGUP:
        flags = step_knob(app, app->focus, PAGE_STEPS, 0);
        break;
    case TUI_KEY_PGDN:
        flags = step_knob(app, app->focus, -PAGE_STEPS, 0);
        break;
    case TUI_KEY_HOME:
        flags = step_knob(app, app->focus, 0, -1);
        break;
    case TUI_KEY_END:
        flags = step_knob(app, app->focus, 0, 1);
        break;
    case TUI_KEY_ESCAPE:
        app->message[0] = '\0';
        return TUI_REDRAW;
    default:
        return 0;
    }
    if (app->focus != prev_focus) {
        app->changed_knob = -1;              /* the highlight belongs to the knob that moved */
        flags |= TUI_RECOMPUTE | TUI_REDRAW; /* the plot follows the focus */
    }
    return flags;
}
