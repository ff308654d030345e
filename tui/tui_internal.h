/* tui_internal.h — what the files of tui/ share with each other and with the TUI's own tests,
 * beyond the public headers (tui.h, tui_app.h, ...). Not for cli/ or anything outside tui/. */
#ifndef CGPLAN_TUI_INTERNAL_H
#define CGPLAN_TUI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tui_app.h"

/* tui_main.c: UTF-8 glyphs only when the locale's codeset is UTF-8. */
bool tui_locale_utf8(void);

/* tui_app.c: the slider's list of values for KNOB into STEPS[0..cap) and, in *CUR, the index of
 * the current value (gpu: the catalog's GPUs, by index). Returns the count. */
size_t tui_app_knob_steps(const tui_app *app, int knob, double *steps, size_t cap, size_t *cur);
/* tui_app.c: the INDEXth deployment preset of the catalog (the picker's rows); NULL past the end. */
const preset_entry *tui_app_picker_entry(const tui_app *app, int index);

#endif
