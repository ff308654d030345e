/* tui_input.h — input events and their two sources: raw terminal bytes (keys, escape sequences
 * and xterm SGR mouse reports, decoded here rather than by curses so drags work the same in every
 * terminal and in tmux), and tmux-style key names for --snapshot --keys. */
#ifndef CGPLAN_TUI_INPUT_H
#define CGPLAN_TUI_INPUT_H

#include <stdbool.h>
#include <stddef.h>

enum {
    TUI_KEY_NONE = 0,
    TUI_KEY_TAB = 9,
    TUI_KEY_ENTER = 13,
    TUI_KEY_ESCAPE = 27,
    TUI_KEY_BACKSPACE = 127,
    TUI_KEY_UP = 0x110000, /* above every Unicode code point */
    TUI_KEY_DOWN,
    TUI_KEY_LEFT,
    TUI_KEY_RIGHT,
    TUI_KEY_PGUP,
    TUI_KEY_PGDN,
    TUI_KEY_HOME,
    TUI_KEY_END,
    TUI_KEY_BTAB,
    TUI_KEY_DELETE,
    TUI_KEY_INSERT,
    TUI_KEY_F1,
    TUI_KEY_F10, /* quits, as q does (htop, mc) */
    TUI_KEY_F2,  /* the setup pop-up (htop's Setup) */
};

/* Bounds on the numbers in a terminal's reports: SGR mouse cells are 1-based and xterm caps them
 * far below this; a larger (or overflowing) number is garbage and its report is dropped. */
#define TUI_MOUSE_COORD_MAX 65535
#define TUI_MOUSE_BUTTON_MAX 1023
#define TUI_SEQ_NUMBER_MAX 9999 /* "\e[N~" */

typedef enum { TUI_EV_KEY, TUI_EV_MOUSE, TUI_EV_RESIZE } tui_event_type;
typedef enum {
    TUI_MOUSE_PRESS,
    TUI_MOUSE_DRAG,
    TUI_MOUSE_RELEASE,
    TUI_MOUSE_WHEEL_UP,
    TUI_MOUSE_WHEEL_DOWN
} tui_mouse_action;

typedef struct {
    tui_event_type type;
    int key;                 /* TUI_EV_KEY: a character or TUI_KEY_* */
    tui_mouse_action action; /* TUI_EV_MOUSE */
    int button;              /* 0 left, 1 middle, 2 right */
    int x, y;                /* 0-based cell */
} tui_event;

/* The byte decoder: feed bytes, collect events. An ESC that nothing follows is a key only once
 * tui_decoder_flush() says the terminal has gone quiet. */
typedef struct {
    unsigned char buf[64];
    size_t len;
    unsigned char utf8[4];
    size_t utf8_len, utf8_need;
} tui_decoder;

void tui_decoder_init(tui_decoder *d);
/* Feeds one byte; returns how many events it completed (0, 1 or 2) into EV[0..]: EV must have
 * room for TUI_DECODER_MAX_EVENTS. */
#define TUI_DECODER_MAX_EVENTS 2
int tui_decoder_feed(tui_decoder *d, unsigned char byte, tui_event *ev);
/* No more bytes for now: a pending lone ESC becomes the Escape key (1 with *EV), else 0. */
int tui_decoder_flush(tui_decoder *d, tui_event *ev);
bool tui_decoder_pending(const tui_decoder *d);

/* Parses tmux key names ("Right PgUp = 6 4 Enter q") into events. Returns 0, or -1 with a
 * one-line reason in ERR naming the unknown key. */
int tui_keys_parse(const char *spec, tui_event *out, size_t cap, size_t *n, char *err, size_t errlen);

#endif
