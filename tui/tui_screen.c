/* tui_screen.c — the in-memory screen and its text backend. */
#include "tui_screen.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

int tui_screen_init(tui_screen *s, int w, int h)
{
    s->w = w > 0 ? w : 0;
    s->h = h > 0 ? h : 0;
    s->cells = calloc((size_t)s->w * (size_t)s->h + 1, sizeof *s->cells);
    if (!s->cells)
        return -1;
    tui_screen_clear(s);
    return 0;
}

void tui_screen_free(tui_screen *s)
{
    free(s->cells);
    s->cells = NULL;
    s->w = s->h = 0;
}

void tui_screen_clear(tui_screen *s)
{
    for (int i = 0; i < s->w * s->h; i++) {
        s->cells[i].ch = L' ';
        s->cells[i].style = TUI_ST_NORMAL;
    }
}

void tui_put(tui_screen *s, int x, int y, wchar_t ch, tui_style st)
{
    if (x < 0 || y < 0 || x >= s->w || y >= s->h)
        return;
    tui_cell *c = tui_screen_at(s, x, y);
    c->ch = ch;
    c->style = (unsigned char)st;
}

void tui_fill(tui_screen *s, tui_rect r, wchar_t ch, tui_style st)
{
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            tui_put(s, x, y, ch, st);
}

wchar_t tui_utf8_next(const char **p)
{
    uint32_t cp;
    size_t n = engine_utf8_decode(*p, strnlen(*p, 4), &cp);
    *p += n ? n : 1;
    return cp == ENGINE_UTF8_INVALID ? (wchar_t)0xFFFD : (wchar_t)cp;
}

int tui_utf8_encode(wchar_t ch, char *buf)
{
    unsigned long c = (unsigned long)ch;
    if (c < 0x80) {
        buf[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        buf[0] = (char)(0xC0 | (c >> 6));
        buf[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        buf[0] = (char)(0xE0 | (c >> 12));
        buf[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        buf[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    buf[0] = (char)(0xF0 | (c >> 18));
    buf[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    buf[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    buf[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

int tui_text_width(const char *text)
{
    int n = 0;
    while (*text) {
        wchar_t c = tui_utf8_next(&text);
        char esc[5];
        n += engine_is_control((uint32_t)c) ? (int)engine_control_escape((uint32_t)c, esc) : 1;
    }
    return n;
}

int tui_print(tui_screen *s, int x, int y, int maxw, tui_style st, const char *text)
{
    int n = 0;
    while (*text && n < maxw) {
        wchar_t c = tui_utf8_next(&text);
        if (engine_is_control((uint32_t)c)) { /* a log's or a file name's ESC stays text on screen */
            char esc[5];
            size_t w = engine_control_escape((uint32_t)c, esc);
            for (size_t i = 0; i < w && n < maxw; i++)
                tui_put(s, x + n++, y, (wchar_t)esc[i], st);
            continue;
        }
        tui_put(s, x + n, y, c, st);
        n++;
    }
    return n;
}

int tui_printf(tui_screen *s, int x, int y, int maxw, tui_style st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tui_print(s, x, y, maxw, st, buf);
}

void tui_screen_row_text(const tui_screen *s, int y, char *buf, size_t len)
{
    size_t used = 0;
    int last = s->w - 1;
    while (last >= 0 && s->cells[y * s->w + last].ch == L' ')
        last--;
    for (int x = 0; x <= last && used + 5 < len; x++)
        used += (size_t)tui_utf8_encode(s->cells[y * s->w + x].ch, buf + used);
    buf[used] = '\0';
}

void tui_screen_write_text(const tui_screen *s, FILE *out)
{
    size_t len = (size_t)s->w * 4 + 8;
    char *buf = malloc(len);
    if (!buf)
        return;
    for (int y = 0; y < s->h; y++) {
        tui_screen_row_text(s, y, buf, len);
        fputs(buf, out);
        fputc('\n', out);
    }
    free(buf);
}
