/* tui_app.h — the planner's state and its widgets (htop's model): each widget draws into the
 * in-memory screen and handles events by returning reaction flags; the loop recomputes once per
 * input batch, then redraws. Shared by the curses loop, --snapshot and bench_frame. */
#ifndef CGPLAN_TUI_APP_H
#define CGPLAN_TUI_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "launch.h"
#include "preset.h"
#include "store.h"
#include "tui_input.h"
#include "tui_layout.h"
#include "tui_screen.h"

enum {
    TUI_REDRAW = 1 << 0,
    TUI_RECOMPUTE = 1 << 1,
    TUI_RESIZE = 1 << 2,
    TUI_QUIT = 1 << 3,
    TUI_RELOAD_RUNS = 1 << 4,
};

/* Glyphs: UTF-8 box drawing, blocks and braille, or ASCII (`━●─` -> `=O-`, braille -> `.:'`,
 * blocks -> `#=+-`). */
typedef struct {
    bool utf8;
    wchar_t h, v, tl, tr, bl, br;
    wchar_t fill, thumb, empty, focus;
    wchar_t observed, observed_b, pred_b, heur, wall, tick, axis_v;
    wchar_t observed_hollow, observed_b_hollow; /* a stored run that leaves a knob of the shape unknown */
    wchar_t bar[4]; /* weights, KV, graph, free */
    wchar_t bar_l, bar_r;
} tui_glyphs;
extern const tui_glyphs tui_glyphs_utf8, tui_glyphs_ascii;

#define TUI_CURVE_MAX 1100
#define TUI_RUNS_MAX 512

/* A text pop-up (w, ?, l) as rows wrapped to its width: each row a span of TEXT, indented, with
 * what goes before and after it (the launch command's shell continuations: " \\", "'\\").
 * Rebuilt for each frame and for each scrolling key; offsets, not pointers, so a copy of the app
 * (fuzz_tui) stays whole. */
#define TUI_POPUP_TEXT_MAX 16384
#define TUI_POPUP_ROWS_MAX 512
typedef struct {
    unsigned start, len; /* bytes of the pop-up's text */
    unsigned char style; /* tui_style */
    unsigned char indent;
    const char *pre, *post; /* string literals */
} tui_popup_row;
typedef struct {
    size_t used;
    int n_rows;
    int width; /* the columns a row may take, indent and continuation included */
    bool full; /* rows or text ran out: the last rows are missing */
    char text[TUI_POPUP_TEXT_MAX];
    tui_popup_row rows[TUI_POPUP_ROWS_MAX];
} tui_popup;

/* One deployment on screen: the main one or the comparison. */
typedef struct {
    bool loaded;
    char name[ENGINE_NAME_MAX];
    engine_deployment d;
    /* The knobs and GPU as NAME gave them (loaded or from the command line): the knobs edited
     * since are what its label adds to the name (tui_app_plan_label). */
    engine_knobs_state named_knobs;
    char named_gpu[ENGINE_NAME_MAX];
    engine_calibration cal;
    bool has_cal;
    engine_estimate e;
    /* The bottom line's what-if: max_bs doubled (to a power of two). */
    uint32_t whatif_max_bs;
    engine_estimate whatif;
} tui_plan;

/* A series on the plot: total and heuristic over the axis knob's steps. */
typedef struct {
    size_t n;
    double x[TUI_CURVE_MAX];
    double total_gib[TUI_CURVE_MAX];
    double heur_gib[TUI_CURVE_MAX];
    bool has_wall;
    double wall_x;
} tui_curve;

typedef enum {
    TUI_MODE_MAIN,
    TUI_MODE_HELP,
    TUI_MODE_PICKER,
    TUI_MODE_RUNS,
    TUI_MODE_CONFIRM,
    TUI_MODE_WARNINGS, /* w: every warning with its code and severity */
    TUI_MODE_LAUNCH,   /* l: the launch command of the current knobs */
    TUI_MODE_EXPLAIN,  /* e: one term's formula, origin and the knobs it depends on (sel) */
    TUI_MODE_SETUP,    /* F2 / o: the secondary knobs (sel: the row), htop's Setup */
} tui_mode;

/* What the one-line prompt on the status line is typing (while app->typing). */
typedef enum {
    TUI_PROMPT_KNOB, /* = or the setup pop-up's Enter: a value of typing_knob */
    TUI_PROMPT_SAVE, /* s: the name of the preset to save */
} tui_prompt;

/* The colour palette curses draws with (tui_curses.c); the text of a frame is the same in both. */
typedef enum { TUI_THEME_DARK, TUI_THEME_LIGHT } tui_theme;

typedef struct tui_app {
    preset_catalog *cat;
    store *db;
    char store_note[ENGINE_TEXT_MAX]; /* why there are no observed runs, if so */
    tui_plan plan[2];                 /* [0] main, [1] comparison */
    bool compare;
    bool compare_chosen; /* plan[1] was asked for (--compare, the picker's c), not the default */
    bool concurrency; /* x = dp x max_bs in the comparison */
    int focus;        /* engine_knob_id */
    int drag_knob;    /* -1 unless a slider is being dragged */
    /* What the last knob change moved (highlighted in the term table). */
    int changed_knob;
    bool have_prev;
    uint64_t prev_bytes[TERM_COUNT];
    uint64_t prev_total;
    /* Plot */
    engine_knob_id axis;
    tui_curve curve[2];
    double x_lo, x_hi;
    bool x_log;
    /* Stored runs */
    store_run_summary *runs;
    size_t n_runs;
    /* The last frame's plot: how many runs it drew hollow, and the knobs they leave unknown. */
    int runs_hollow;
    uint32_t runs_hollow_unknown;
    /* Modes, typed input, messages */
    tui_mode mode;
    int sel, scroll;
    bool typing;
    tui_prompt prompt;
    int typing_knob; /* TUI_PROMPT_KNOB: the knob the typed value goes to */
    char input[ENGINE_NAME_MAX];
    /* /: the preset picker's and the runs browser's rows narrowed to those containing FILTER
     * (case-insensitive); FILTERING while it is being typed. SEL counts the matching rows. */
    bool filtering;
    char filter[64];
    int help_page; /* 0: keys and knobs; 1: the term table's labels */
    tui_theme theme;
    char message[ENGINE_TEXT_MAX * 2];
    bool message_is_error;
    const tui_glyphs *g;
    tui_layout layout;
    /* Working space for one call at a time (the recompute, the knob handlers, the knob panel):
     * nothing in it outlives the call that fills it. Here rather than on the stack (tens of KiB)
     * or in function-local statics. */
    struct {
        double steps[TUI_CURVE_MAX]; /* one knob's slider values */
        engine_deployment d;         /* a plan's deployment with one knob moved */
        engine_estimate e;           /* the estimate of d */
        tui_plan loaded;             /* a preset the picker loads, kept only if it loads */
        engine_launch launch;        /* the launch overlay's command */
        char text[8192];             /* its shell text, for the clipboard */
        tui_popup popup;             /* the text pop-up of the mode, wrapped */
    } scratch;
} tui_app;

/* Opens the catalog, loads the presets and the store. PLAN, when not NULL, is the main plan as
 * given (PRESET then only names it). Returns 0, or 1/2 (preset_load codes) with ERR set. */
int tui_app_init(tui_app *app, const char *preset, const engine_deployment *plan, const char *compare,
                 const char *db_path, bool ascii, char *err, size_t errlen);
void tui_app_free(tui_app *app);
/* Re-reads the stored runs (after the runs browser closes, and on start). */
void tui_app_reload_runs(tui_app *app);
/* Recomputes every estimate and curve from the knobs (once per input batch). */
void tui_app_recompute(tui_app *app);
/* Handles one event; returns reaction flags. */
int tui_app_handle(tui_app *app, const tui_event *ev);
/* Lays out and draws everything into S (sized to the terminal). */
void tui_app_render(tui_app *app, tui_screen *s);
/* The launch command of plan 0's current knobs (engine/launch.c, as `cgplan launch` builds it). */
void tui_app_launch(const tui_app *app, engine_launch *l);
/* The style the knob track etc. need, in order, for tests: the rectangle of knob K's track. */
bool tui_app_track_rect(const tui_app *app, int knob, tui_rect *out);

#endif
