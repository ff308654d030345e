/* tui_internal.h — what the files of tui/ share with each other and with the TUI's own tests,
 * beyond the public headers (tui.h, tui_app.h, ...). Not for cli/ or anything outside tui/. */
#ifndef CGPLAN_TUI_INTERNAL_H
#define CGPLAN_TUI_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_app.h"

/* tui_main.c: UTF-8 glyphs only when the locale's codeset is UTF-8. */
bool tui_locale_utf8(void);

/* Bytes as GiB, for display (signed: differences and headroom). */
static inline double tui_gib(uint64_t b)
{
    return (double)b / (double)ENGINE_GIB;
}
static inline double tui_sgib(int64_t b)
{
    return (double)b / (double)ENGINE_GIB;
}

/* mem_fraction_static as shown: rounded down to three decimals, so the value printed still fits. */
static inline double tui_fraction_floor(double f)
{
    return floor(f * 1000) / 1000;
}

/* tui_draw.c: a box on R with TITLE on its top border; BOTTOM: close it with a bottom border
 * (the plot's box is open at the bottom, where its x labels go). */
void tui_draw_box(tui_screen *s, const tui_glyphs *g, tui_rect r, const char *title, bool bottom);
/* tui_draw.c: tui_printf for the glyph set G: with ASCII glyphs "·", "→" and "≤" become "-",
 * "->" and "<=", any other non-ASCII character "?". */
int tui_printf_glyphs(tui_screen *s, const tui_glyphs *g, int x, int y, int maxw, tui_style st, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* tui_draw.c: TEXT in R, wrapped at spaces over R's lines (the last one cut), folded to the
 * glyph set G. Returns the lines it used. */
int tui_print_wrapped(tui_screen *s, const tui_glyphs *g, tui_rect r, tui_style st, const char *text);
/* tui_draw.c: the lines tui_print_wrapped needs for all of TEXT at WIDTH columns. */
int tui_wrapped_rows(const tui_glyphs *g, int width, const char *text);
/* tui_draw.c: one row of TEXT wrapped at WIDTH columns: its bytes in *LEN (up to the last space
 * that fits, else WIDTH characters); returns where the next row starts (past the break's spaces). */
const char *tui_wrap_row(const char *text, int width, size_t *len);
/* tui_draw.c: TEXT (LEN bytes of room) folded to the glyph set G: with ASCII glyphs "·", "→" and
 * "≤" become "-", "->" and "<=", any other non-ASCII character "?". */
void tui_ascii_fold(const tui_glyphs *g, char *text, size_t len);

/* The panels of the main screen, each drawn into R (its rectangle of the layout). */
void tui_draw_knobs(tui_app *app, tui_screen *s, tui_rect r); /* tui_knobs.c */
void tui_draw_terms(tui_app *app, tui_screen *s, tui_rect r); /* tui_terms.c */
void tui_draw_plot(tui_app *app, tui_screen *s, tui_rect r);  /* tui_plot.c */

/* tui_plot.c: whether stored run R belongs on plan P's plot along the app's axis: the same model,
 * and each knob of the shape but the axis equal to P's where R knows it. A knob R's log did not
 * give (0 in the store: store_run_summary) matches and is set in *UNKNOWN (KNOB_BIT). *VALUE: R's
 * value of the axis knob, stored (not auto, not unknown). SCRATCH: a deployment whose knobs it
 * overwrites with R's. */
bool tui_run_on_axis(const tui_app *app, const tui_plan *p, const store_run_summary *r, engine_deployment *scratch,
                     double *value, uint32_t *unknown);

/* tui_overlay.c: the window of the app's mode over the main screen (help, the preset picker, the
 * runs browser and its confirmation); nothing in TUI_MODE_MAIN. */
void tui_draw_overlay(tui_app *app, tui_screen *s);
/* tui_overlay.c: the text pop-up of the mode (w, ?, l) as the last frame's screen has it: the
 * rows of its text (wrapped) and how many of them it shows at once; the keys scroll by them. */
void tui_overlay_popup_extent(tui_app *app, int *rows, int *visible);

/* tui_app.c: the slider's list of values for KNOB into STEPS[0..cap) and, in *CUR, the index of
 * the current value (gpu: the catalog's GPUs, by index). Returns the count. */
size_t tui_app_knob_steps(const tui_app *app, int knob, double *steps, size_t cap, size_t *cur);
/* tui_app.c: the INDEXth deployment preset of the catalog that matches the picker's filter (the
 * picker's rows); NULL past the end. */
const preset_entry *tui_app_picker_entry(const tui_app *app, int index);
/* tui_app.c: the INDEXth stored run that matches the runs browser's filter; NULL past the end. */
const store_run_summary *tui_app_run_entry(const tui_app *app, int index);
/* tui_app.c: the setup pop-up's ROWth knob (the table's knobs past the panel's, but names), -1
 * past the end; and how many rows it has. */
int tui_app_setup_knob(int row);
int tui_app_setup_count(void);
/* tui_app.c: KNOB's help line naming the launch flag of the plan's release (--cuda-graph-max-bs
 * before v0.5.14, --cuda-graph-max-bs-decode from it). */
void tui_knob_help(const tui_app *app, int knob, char *buf, size_t len);
/* tui_app.c: plan WHICH as the comparison names it: its name, and the knobs changed since it was
 * loaded ("k3-dp16 edited (max_bs 32, dp 8)"), so the label describes the plan on screen. */
void tui_app_plan_label(const tui_app *app, int which, char *buf, size_t len);
/* tui_app.c: the two layouts' instance concurrency compared in one sentence, from each plan's
 * engine estimate of its wall (dp x budget.wall_max_bs); empty unless comparing. */
void tui_app_concurrency_sentence(const tui_app *app, char *buf, size_t len);

#endif
