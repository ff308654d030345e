/* tui_screen.h — the in-memory screen every widget draws into (tmux's model): a grid of cells,
 * each a wide character and a semantic style. The curses backend maps styles to colours or
 * attributes; the text backend (--snapshot) prints the characters. No curses here. */
#ifndef CGPLAN_TUI_SCREEN_H
#define CGPLAN_TUI_SCREEN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <wchar.h>

/* What a cell means, not how it looks: the colour scheme decides (tui_curses.c). */
typedef enum {
    TUI_ST_NORMAL,
    TUI_ST_DIM,
    TUI_ST_TITLE,
    TUI_ST_BORDER,
    TUI_ST_FOCUS, /* the knob in focus */
    TUI_ST_TRACK, /* slider fill */
    TUI_ST_THUMB,
    TUI_ST_WARN,
    TUI_ST_ERROR,
    TUI_ST_HILITE, /* terms the last knob change moved */
    TUI_ST_TOTAL,
    TUI_ST_PRED, /* plot series */
    TUI_ST_PRED_B,
    TUI_ST_OBSERVED,
    TUI_ST_HEUR,
    TUI_ST_WALL,
    TUI_ST_BAR_WEIGHTS,
    TUI_ST_BAR_KV,
    TUI_ST_BAR_GRAPH,
    TUI_ST_BAR_FREE,
    TUI_ST_SELECT, /* the selected row of a list overlay */
    TUI_ST_COUNT
} tui_style;

typedef struct {
    wchar_t ch;
    unsigned char style;
} tui_cell;

typedef struct {
    int w, h;
    tui_cell *cells;
} tui_screen;

typedef struct {
    int x, y, w, h;
} tui_rect;

int tui_screen_init(tui_screen *s, int w, int h); /* 0, or -1 on out of memory */
void tui_screen_free(tui_screen *s);
void tui_screen_clear(tui_screen *s);
static inline tui_cell *tui_screen_at(tui_screen *s, int x, int y)
{
    return &s->cells[y * s->w + x];
}

/* Puts one character; silently clipped to the screen (and to CLIP when not NULL). */
void tui_put(tui_screen *s, int x, int y, wchar_t ch, tui_style st);
void tui_fill(tui_screen *s, tui_rect r, wchar_t ch, tui_style st);
/* Writes UTF-8 TEXT at (x, y), at most MAXW columns; returns the columns written. Controls are
 * drawn as their "\x1b" escapes, so no text reaches the terminal as a command. */
int tui_print(tui_screen *s, int x, int y, int maxw, tui_style st, const char *text);
int tui_printf(tui_screen *s, int x, int y, int maxw, tui_style st, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Columns TEXT takes (UTF-8; every character one column, a control those of its escape). */
int tui_text_width(const char *text);
/* Decodes one UTF-8 character from *P (advancing it), strictly (text.h); invalid bytes give
 * U+FFFD. */
wchar_t tui_utf8_next(const char **p);
/* Encodes CH as UTF-8 into BUF (at least 5 bytes); returns the length. */
int tui_utf8_encode(wchar_t ch, char *buf);

/* The text backend: each row as UTF-8, trailing spaces trimmed, one line each. */
void tui_screen_write_text(const tui_screen *s, FILE *out);
/* One row as UTF-8 into BUF (for tests). */
void tui_screen_row_text(const tui_screen *s, int y, char *buf, size_t len);

#endif
