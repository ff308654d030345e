/* tui_input.c — decoding terminal bytes (keys, CSI/SS3 sequences, SGR mouse) and tmux key names. */
#include "tui_input.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text.h"

void tui_decoder_init(tui_decoder *d)
{
    memset(d, 0, sizeof *d);
}

bool tui_decoder_pending(const tui_decoder *d)
{
    return d->len > 0 || d->utf8_len > 0;
}

static int key_event(tui_event *ev, int key)
{
    memset(ev, 0, sizeof *ev);
    ev->type = TUI_EV_KEY;
    ev->key = key;
    return 1;
}

/* The decimal number at *S (at most MAX) into OUT, *S moved past it. No sign, no overflow: a
 * terminal's report is digits, and anything else (or a number past MAX) is not one. */
static bool read_bounded(const unsigned char **s, const unsigned char *end, int max, int *out)
{
    const unsigned char *p = *s;
    int v = 0;
    if (p >= end || *p < '0' || *p > '9')
        return false;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > max)
            return false;
    }
    *s = p;
    *out = v;
    return true;
}

/* "\e[<b;x;yM" / "...m": xterm SGR mouse (mode 1006). Coordinates are 1-based cells; a report
 * outside 1..TUI_MOUSE_COORD_MAX (an INT_MIN from a hostile or broken terminal) is dropped. */
static int decode_sgr_mouse(const unsigned char *seq, size_t len, tui_event *ev)
{
    if (len < 6)
        return 0;
    const unsigned char *p = seq + 3, *end = seq + len - 1; /* between "\e[<" and the final byte */
    int b, x, y;
    if (!read_bounded(&p, end, TUI_MOUSE_BUTTON_MAX, &b) || p >= end || *p++ != ';' ||
        !read_bounded(&p, end, TUI_MOUSE_COORD_MAX, &x) || p >= end || *p++ != ';' ||
        !read_bounded(&p, end, TUI_MOUSE_COORD_MAX, &y) || p != end || x < 1 || y < 1)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->type = TUI_EV_MOUSE;
    ev->x = x - 1;
    ev->y = y - 1;
    ev->button = b & 3;
    if (b & 64)
        ev->action = (b & 1) ? TUI_MOUSE_WHEEL_DOWN : TUI_MOUSE_WHEEL_UP;
    else if (seq[len - 1] == 'm')
        ev->action = TUI_MOUSE_RELEASE;
    else if (b & 32)
        ev->action = TUI_MOUSE_DRAG;
    else
        ev->action = TUI_MOUSE_PRESS;
    return 1;
}

/* The key a CSI or SS3 sequence ending in FINAL names when it is a cursor key; -1 otherwise. */
static int cursor_key(unsigned char final)
{
    switch (final) {
    case 'A': return TUI_KEY_UP;
    case 'B': return TUI_KEY_DOWN;
    case 'C': return TUI_KEY_RIGHT;
    case 'D': return TUI_KEY_LEFT;
    case 'H': return TUI_KEY_HOME;
    case 'F': return TUI_KEY_END;
    default: return -1;
    }
}

/* A complete CSI ("\e[" params final) or SS3 ("\eO" final) sequence. */
static int decode_sequence(const unsigned char *s, size_t len, tui_event *ev)
{
    unsigned char final = s[len - 1];
    int arrow = cursor_key(final);
    if (s[1] == 'O') { /* SS3: application cursor keys, keypad Enter, F1 */
        if (arrow >= 0)
            return key_event(ev, arrow);
        if (final == 'P')
            return key_event(ev, TUI_KEY_F1);
        if (final == 'Q')
            return key_event(ev, TUI_KEY_F2);
        if (final == 'M')
            return key_event(ev, TUI_KEY_ENTER);
        return 0;
    }
    if (len >= 3 && s[2] == '<')
        return decode_sgr_mouse(s, len, ev);
    if (arrow >= 0)
        return key_event(ev, arrow);
    switch (final) {
    case 'Z':
        return key_event(ev, TUI_KEY_BTAB);
    case '~': {
        const unsigned char *p = s + 2;
        int n = -1;
        if (!read_bounded(&p, s + len, TUI_SEQ_NUMBER_MAX, &n))
            return 0; /* not "\e[<digits>~" (or absurdly long): no key */
        switch (n) {
        case 1:
        case 7:
            return key_event(ev, TUI_KEY_HOME);
        case 4:
        case 8:
            return key_event(ev, TUI_KEY_END);
        case 2:
            return key_event(ev, TUI_KEY_INSERT);
        case 3:
            return key_event(ev, TUI_KEY_DELETE);
        case 5:
            return key_event(ev, TUI_KEY_PGUP);
        case 6:
            return key_event(ev, TUI_KEY_PGDN);
        case 11:
            return key_event(ev, TUI_KEY_F1);
        case 12: /* rxvt's F2; xterm and tmux send SS3 Q */
            return key_event(ev, TUI_KEY_F2);
        case 21: /* xterm, rxvt, the Linux console and tmux all send F10 as "\e[21~" */
            return key_event(ev, TUI_KEY_F10);
        default:
            return 0;
        }
    }
    default:
        return 0;
    }
}

int tui_decoder_feed(tui_decoder *d, unsigned char byte, tui_event *ev)
{
    if (d->len > 0) {
        /* Inside an escape sequence. */
        if (d->len == 1) {
            if (byte == '[' || byte == 'O') {
                d->buf[d->len++] = byte;
                return 0;
            }
            /* ESC followed by something else: the Escape key, then that byte on its own
             * (keys typed quickly, as tmux send-keys does, arrive in one read). */
            d->len = 0;
            key_event(&ev[0], TUI_KEY_ESCAPE);
            return 1 + tui_decoder_feed(d, byte, &ev[1]);
        }
        if (d->len >= sizeof d->buf - 1) {
            d->len = 0; /* garbage: drop it */
            return 0;
        }
        d->buf[d->len++] = byte;
        bool final = d->buf[1] == 'O' ? true : (byte >= 0x40 && byte <= 0x7E);
        if (d->buf[1] == '[' && d->len == 3 && byte == '<')
            final = false; /* SGR mouse introducer */
        if (!final)
            return 0;
        size_t len = d->len;
        d->len = 0;
        return decode_sequence(d->buf, len, ev);
    }
    if (d->utf8_need && (byte & 0xC0) != 0x80) {
        d->utf8_need = d->utf8_len = 0; /* a lead byte without its continuation: drop it */
        return tui_decoder_feed(d, byte, ev);
    }
    if (d->utf8_need) {
        d->utf8[d->utf8_len++] = byte;
        if (d->utf8_len < d->utf8_need)
            return 0;
        size_t n = d->utf8_need;
        d->utf8_need = 0;
        d->utf8_len = 0;
        /* Shortest form only (text.h): an overlong C1 B1 must not be 'q' (quit) nor C0 83 Ctrl-C,
         * and past Unicode or a surrogate must not alias a TUI_KEY_* code above 0x10FFFF. */
        uint32_t c;
        if (engine_utf8_decode((const char *)d->utf8, n, &c) != n || c == ENGINE_UTF8_INVALID)
            return 0;
        return key_event(ev, (int)c);
    }
    if (byte == 27) {
        d->buf[d->len++] = byte;
        return 0;
    }
    if (byte >= 0xC2 && byte <= 0xF4) {
        d->utf8[0] = byte;
        d->utf8_len = 1;
        d->utf8_need = byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
        return 0;
    }
    if (byte >= 0x80)
        return 0; /* a byte no UTF-8 character starts with (C0, C1, F5..FF, a stray continuation) */
    if (byte == '\n' || byte == '\r')
        return key_event(ev, TUI_KEY_ENTER);
    if (byte == 8)
        return key_event(ev, TUI_KEY_BACKSPACE);
    return key_event(ev, byte);
}

int tui_decoder_flush(tui_decoder *d, tui_event *ev)
{
    d->utf8_len = d->utf8_need = 0;
    if (d->len == 1) {
        d->len = 0;
        return key_event(ev, TUI_KEY_ESCAPE);
    }
    if (d->len == 2 && d->buf[1] == '[') { /* Alt+[ ... unlikely; treat as Escape then '[' lost */
        d->len = 0;
        return key_event(ev, TUI_KEY_ESCAPE);
    }
    d->len = 0;
    return 0;
}

static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"Up", TUI_KEY_UP},
    {"Down", TUI_KEY_DOWN},
    {"Left", TUI_KEY_LEFT},
    {"Right", TUI_KEY_RIGHT},
    {"PgUp", TUI_KEY_PGUP},
    {"PageUp", TUI_KEY_PGUP},
    {"PPage", TUI_KEY_PGUP},
    {"PgDn", TUI_KEY_PGDN},
    {"PageDown", TUI_KEY_PGDN},
    {"NPage", TUI_KEY_PGDN},
    {"Home", TUI_KEY_HOME},
    {"End", TUI_KEY_END},
    {"Tab", TUI_KEY_TAB},
    {"BTab", TUI_KEY_BTAB},
    {"Enter", TUI_KEY_ENTER},
    {"Escape", TUI_KEY_ESCAPE},
    {"Space", ' '},
    {"BSpace", TUI_KEY_BACKSPACE},
    {"DC", TUI_KEY_DELETE},
    {"Delete", TUI_KEY_DELETE},
    {"IC", TUI_KEY_INSERT},
    {"F1", TUI_KEY_F1},
    {"F2", TUI_KEY_F2},
    {"F10", TUI_KEY_F10},
};

int tui_keys_parse(const char *spec, tui_event *out, size_t cap, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = spec;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return 0;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t len = (size_t)(p - start);
        int key = -1;
        for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
            if (strlen(key_names[i].name) == len && strncasecmp(key_names[i].name, start, len) == 0)
                key = key_names[i].key;
        if (key < 0 && len == 1 && (unsigned char)start[0] >= 0x21 && (unsigned char)start[0] < 0x7F)
            key = (unsigned char)start[0];
        if (key < 0 && len == 3 && start[0] == 'C' && start[1] == '-' && start[2] >= 'a' && start[2] <= 'z')
            key = start[2] - 'a' + 1; /* C-c and friends */
        if (key < 0) {
            snprintf(err, errlen,
                     "--keys: unknown key '%.*s' (use tmux names: Up Down Left Right PgUp PgDn Home End Tab "
                     "Enter Escape Space, or single characters)",
                     (int)len, start);
            return -1;
        }
        if (*n >= cap) {
            snprintf(err, errlen, "--keys: more than %zu keys", cap);
            return -1;
        }
        key_event(&out[(*n)++], key);
    }
}
