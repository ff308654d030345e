/* tui.h — the interactive planner and its snapshot renderer, as cli/cmd_tui.c calls them. */
#ifndef CGPLAN_TUI_H
#define CGPLAN_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine.h"

typedef struct {
    const char *preset;  /* NULL: k3-dp16 */
    /* The main plan as the command line built it (--model, --set, --sglang-args over the preset);
     * NULL: the preset as it is. */
    const engine_deployment *plan;
    const char *compare; /* NULL: the other K3 preset */
    const char *db_path; /* the store; opened READ_WRITE (created and seeded when new) */
    bool ascii;          /* force the ASCII glyph set */
} tui_options;

/* The planner on the terminal. Returns the exit status (0 after q). Prints its own errors. */
int tui_run(const tui_options *o);

/* Renders one WxH frame after feeding KEYS (tmux key names, may be NULL) and prints it to OUT.
 * Returns 0; 1 when the work failed (preset), 2 for a usage error (an unknown key name), with a
 * one-line reason in ERR. */
int tui_snapshot(const tui_options *o, int w, int h, const char *keys, FILE *out, char *err, size_t errlen);

#endif
