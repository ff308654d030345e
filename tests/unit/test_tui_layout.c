/* test_tui_layout.c — the TUI without a terminal: the layout never overlaps at any size, the
 * slider's value <-> column mapping round-trips, the input decoder, and the snapshot renderer
 * (the contract of CLI.md "The TUI, as a test sees it"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "tui_app.h"
#include "tui_input.h"
#include "tui_internal.h"
#include "tui_layout.h"
#include "tui_screen.h"

static bool overlap(tui_rect a, tui_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void check_layout(int w, int h, int limits_rows)
{
    tui_layout l;
    tui_layout_compute(w, h, limits_rows, &l);
    if (w < TUI_MIN_W || h < TUI_MIN_H) {
        assert_true(l.too_small);
        return;
    }
    assert_false(l.too_small);
    for (int i = 0; i < TUI_PANEL_COUNT; i++) {
        tui_rect a = l.panel[i];
        assert_true(a.w >= 0 && a.h >= 0);
        if (a.w == 0 || a.h == 0)
            continue;
        assert_true(a.x >= 0 && a.y >= 0 && a.x + a.w <= w && a.y + a.h <= h);
        for (int j = i + 1; j < TUI_PANEL_COUNT; j++)
            if (l.panel[j].w && l.panel[j].h && overlap(a, l.panel[j])) {
                print_error("%dx%d: panels %d and %d overlap\n", w, h, i, j);
                fail();
            }
    }
    /* Everything but the plot is always there. */
    for (int i = 0; i < TUI_PANEL_COUNT; i++)
        if (i != TUI_PANEL_PLOT)
            assert_true(l.panel[i].w > 0 && l.panel[i].h > 0);
    /* The knob box holds every knob row. */
    assert_true(l.panel[TUI_PANEL_KNOBS].h >= TUI_KNOB_ROWS + 2);
    tui_slider_geom g;
    tui_slider_geometry(l.panel[TUI_PANEL_KNOBS].w - 2, &g);
    assert_true(g.track_w >= 4);
    assert_true(g.track_x + g.track_w <= l.panel[TUI_PANEL_KNOBS].w - 2);
    if (g.extra_w)
        assert_true(g.extra_x + g.extra_w <= l.panel[TUI_PANEL_KNOBS].w - 2);
}

static void test_layout_sizes(void **state)
{
    (void)state;
    static const int named[][2] = {{80, 24}, {160, 48}, {60, 20}, {200, 60}, {120, 40},
                                   {59, 20}, {60, 19},  {30, 10}, {1, 1},    {500, 200}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        for (int rows = 0; rows <= 30; rows += 3)
            check_layout(named[i][0], named[i][1], rows);
    for (int w = 1; w <= 260; w += 3)
        for (int h = 1; h <= 90; h += 2)
            check_layout(w, h, 2 + w % 5);
    tui_layout a, b, c, d;
    tui_layout_compute(80, 24, 2, &a);
    tui_layout_compute(160, 48, 1, &b);
    assert_true(a.panel[TUI_PANEL_PLOT].h >= 4);                        /* 80x24 has everything */
    assert_true(b.panel[TUI_PANEL_PLOT].h > a.panel[TUI_PANEL_PLOT].h); /* more room, more plot */
    assert_true(b.panel[TUI_PANEL_KNOBS].w > a.panel[TUI_PANEL_KNOBS].w);
    /* The summary's rows come out of the plot, never out of the status line. */
    tui_layout_compute(80, 24, 3, &c);
    assert_int_equal(c.panel[TUI_PANEL_LIMITS].h, 3);
    assert_int_equal(c.panel[TUI_PANEL_PLOT].h, a.panel[TUI_PANEL_PLOT].h - 1);
    assert_int_equal(c.panel[TUI_PANEL_STATUS].y, 23);
    tui_layout_compute(80, 24, 40, &d); /* more than there is: the rows under the bar, less the status */
    assert_int_equal(d.panel[TUI_PANEL_PLOT].h, 0);
    assert_int_equal(d.panel[TUI_PANEL_LIMITS].y + d.panel[TUI_PANEL_LIMITS].h, 23);
    assert_int_equal(d.panel[TUI_PANEL_LIMITS].y, d.panel[TUI_PANEL_BAR].y + 1);
}

static void test_slider_mapping(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 200; n++)
        for (int tw = 1; tw <= 130; tw++) {
            int prev = -1;
            for (size_t i = 0; i < n; i++) {
                int col = tui_slider_col_for_index(n, tw, i);
                assert_true(col >= 0 && col < tw);
                assert_true(col >= prev); /* monotonic */
                prev = col;
                if ((int)n <= tw && n > 1)
                    assert_int_equal(tui_slider_index_for_col(n, tw, col), i); /* every step reachable */
            }
            if (n > 1 && tw > 1) {
                assert_int_equal(tui_slider_col_for_index(n, tw, 0), 0);
                assert_int_equal(tui_slider_col_for_index(n, tw, n - 1), tw - 1);
                assert_int_equal(tui_slider_index_for_col(n, tw, 0), 0);
                assert_int_equal(tui_slider_index_for_col(n, tw, tw - 1), n - 1);
                assert_int_equal(tui_slider_index_for_col(n, tw, -5), 0);
                assert_int_equal(tui_slider_index_for_col(n, tw, tw + 5), n - 1);
            }
            if ((int)n > tw && tw > 1) /* more steps than columns: every column is its own value */
                for (int c = 0; c < tw; c++)
                    assert_int_equal(tui_slider_col_for_index(n, tw, tui_slider_index_for_col(n, tw, c)), c);
        }
    double steps[] = {1, 2, 4, 8, 16};
    assert_int_equal(tui_slider_nearest_index(steps, 5, 16), 4);
    assert_int_equal(tui_slider_nearest_index(steps, 5, 5), 2);
}

static int decode_all(const char *bytes, tui_event *evs, int cap)
{
    tui_decoder d;
    tui_decoder_init(&d);
    int n = 0;
    for (const char *p = bytes; *p && n + TUI_DECODER_MAX_EVENTS <= cap; p++)
        n += tui_decoder_feed(&d, (unsigned char)*p, &evs[n]);
    if (n < cap)
        n += tui_decoder_flush(&d, &evs[n]);
    return n;
}

static void test_input_decoder(void **state)
{
    (void)state;
    tui_event ev[16];
    int n = decode_all("\033[C\033OD\033[5~\033[6~\033[H\033[4~q\r\t", ev, 16);
    assert_int_equal(n, 9);
    int want[] = {TUI_KEY_RIGHT, TUI_KEY_LEFT, TUI_KEY_PGUP,  TUI_KEY_PGDN, TUI_KEY_HOME,
                  TUI_KEY_END,   'q',          TUI_KEY_ENTER, TUI_KEY_TAB};
    for (int i = 0; i < 9; i++)
        assert_int_equal(ev[i].key, want[i]);
    n = decode_all("\033[<0;12;5M\033[<32;20;5M\033[<0;20;5m", ev, 16);
    assert_int_equal(n, 3);
    assert_int_equal(ev[0].type, TUI_EV_MOUSE);
    assert_int_equal(ev[0].action, TUI_MOUSE_PRESS);
    assert_int_equal(ev[0].x, 11);
    assert_int_equal(ev[0].y, 4);
    assert_int_equal(ev[1].action, TUI_MOUSE_DRAG);
    assert_int_equal(ev[1].x, 19);
    assert_int_equal(ev[2].action, TUI_MOUSE_RELEASE);
    n = decode_all("\033", ev, 16); /* a lone ESC is the Escape key once the input is quiet */
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].key, TUI_KEY_ESCAPE);
    n = decode_all("\033p", ev, 16); /* Escape then p, typed quickly */
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].key, TUI_KEY_ESCAPE);
    assert_int_equal(ev[1].key, 'p');

    size_t k;
    char err[256];
    assert_int_equal(
        tui_keys_parse("Right Left PgUp PgDn Home End Tab Enter Escape Space = 6 4 q", ev, 16, &k, err, sizeof err), 0);
    assert_int_equal(k, 14);
    assert_int_equal(ev[9].key, ' ');
    assert_int_equal(ev[10].key, '=');
    assert_int_equal(tui_keys_parse("Right Bogus", ev, 16, &k, err, sizeof err), -1);
    assert_non_null(strstr(err, "Bogus"));
    assert_null(strchr(err, '\n'));
}


/* Hostile or broken terminal reports (issue 11): coordinates out of range, overflowing numbers,
 * malformed fields and stray UTF-8 give no event (or the bytes' own keys), never UB. */
static void test_input_decoder_hostile(void **state)
{
    (void)state;
    tui_event ev[16];
    static const char *const dropped[] = {
        "\033[<0;-2147483648;5M", /* INT_MIN: `x - 1` was signed overflow */
        "\033[<0;2147483648;5M",  /* overflows int */
        "\033[<0;99999999999999999999;1M",
        "\033[<0;65536;1M", /* past TUI_MOUSE_COORD_MAX */
        "\033[<0;0;1M",     /* cells are 1-based */
        "\033[<0;1;0M",
        "\033[<1024;1;1M", /* past TUI_MOUSE_BUTTON_MAX */
        "\033[<0;1M",      /* two fields */
        "\033[<0;1;1;1M",  /* four */
        "\033[<;1;1M",
        "\033[<0; 1;1M",
        "\033[<+1;1;1M",
        "\033[99999999999999999999~",
    };
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
        int n = decode_all(dropped[i], ev, 16);
        for (int k = 0; k < n; k++)
            if (ev[k].type == TUI_EV_MOUSE)
                fail_msg("a mouse event from %s", dropped[i] + 1);
        if (n)
            fail_msg("%d events from %s", n, dropped[i] + 1);
    }
    /* the largest coordinate is still a report */
    int n = decode_all("\033[<0;65535;65535M", ev, 16);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].type, TUI_EV_MOUSE);
    assert_int_equal(ev[0].x, 65534);
    assert_int_equal(ev[0].y, 65534);
    /* "\e[5;2~" (a modifier) is still PgUp */
    n = decode_all("\033[5;2~", ev, 16);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].key, TUI_KEY_PGUP);
    /* F10 ("\e[21~", with a modifier too); "\e[210~" is no key */
    n = decode_all("\033[21~\033[21;2~\033[210~", ev, 16);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].key, TUI_KEY_F10);
    assert_int_equal(ev[1].key, TUI_KEY_F10);
    /* UTF-8: a lead byte past Unicode gives nothing (it must not alias TUI_KEY_UP and the
     * others above 0x10FFFF); a lead byte followed by ASCII drops the lead, keeps the ASCII */
    n = decode_all("\xf7\xbf\xbf\xbf", ev, 16);
    assert_int_equal(n, 0);
    n = decode_all("\xf4\x90\x80\x80", ev, 16); /* 0x110000 = TUI_KEY_UP */
    assert_int_equal(n, 0);
    n = decode_all("\xed\xa0\x80", ev, 16); /* a surrogate */
    assert_int_equal(n, 0);
    n = decode_all("\xc3q", ev, 16);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].key, 'q');
    n = decode_all("\xc3\xa9", ev, 16);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].key, 0xe9);
}

/* Only shortest-form UTF-8 is a key (issue 21): each form RFC 3629 rejects gives no event, so an
 * overlong 'q' does not quit and an overlong Ctrl-C does not interrupt; the bytes after a bad
 * form decode as themselves. */
static void test_input_decoder_shortest_form(void **state)
{
    (void)state;
    tui_event ev[16];
    static const struct {
        const char *bytes, *what;
    } rejected[] = {
        {"\xc1\xb1", "overlong 'q' (C1 B1)"},
        {"\xc0\x83", "overlong Ctrl-C (C0 83)"},
        {"\xc0\x80", "overlong NUL (C0 80)"},
        {"\xe0\x81\xb1", "three-byte overlong 'q' (E0 81 B1)"},
        {"\xe0\x9f\xbf", "three-byte overlong U+07FF (E0 9F BF)"},
        {"\xf0\x80\x81\xb1", "four-byte overlong 'q' (F0 80 81 B1)"},
        {"\xf0\x8f\xbf\xbf", "four-byte overlong U+FFFF (F0 8F BF BF)"},
        {"\xed\xa0\x80", "a high surrogate (ED A0 80)"},
        {"\xed\xbf\xbf", "a low surrogate (ED BF BF)"},
        {"\xf4\x90\x80\x80", "past U+10FFFF (F4 90 80 80)"},
        {"\xf5\x80\x80\x80", "an F5 lead"},
        {"\xf8\x88\x80\x80\x80", "a five-byte form"},
        {"\xff", "FF"},
        {"\xb1", "a lone continuation byte"},
        {"\x9b", "a raw C1 CSI byte"},
    };
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++) {
        int n = decode_all(rejected[i].bytes, ev, 16);
        if (n)
            fail_msg("%s: %d events, the first key 0x%x", rejected[i].what, n, (unsigned)ev[0].key);
    }
    /* a rejected form does not swallow the key after it */
    int n = decode_all("\xc1\xb1x\xe0\x80q", ev, 16);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].key, 'x');
    assert_int_equal(ev[1].key, 'q');
    /* the shortest forms at each length's edges are keys */
    n = decode_all("\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", ev, 16);
    int want[] = {0x80, 0x7ff, 0x800, 0xd7ff, 0x10000, 0x10ffff};
    assert_int_equal(n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(ev[i].key, want[i]);
}

/* ---- the snapshot renderer ---- */

static bool is_border(wchar_t c)
{
    return c == L' ' || c == L'|' || c == L'+' || c == L'-' || (c >= 0x2500 && c <= 0x259F);
}

/* The first word of row Y after borders and spaces, and the rest of the row. */
static void first_word(const tui_screen *s, int y, char *word, size_t len, char *rest, size_t rest_len)
{
    char row[4096];
    tui_screen_row_text(s, y, row, sizeof row);
    const char *p = row;
    for (;;) {
        const char *q = p;
        wchar_t c = tui_utf8_next(&q);
        if (!*p || !is_border(c))
            break;
        p = q;
    }
    size_t n = strcspn(p, " ");
    snprintf(word, len, "%.*s", (int)n, p);
    snprintf(rest, rest_len, "%s", p);
}

static int count_total_lines(const tui_screen *s, char *line, size_t len)
{
    int found = 0;
    for (int y = 0; y < s->h; y++) {
        char word[64], rest[4096];
        first_word(s, y, word, sizeof word, rest, sizeof rest);
        if (strcmp(word, "total") == 0) {
            found++;
            snprintf(line, len, "%s", rest);
        }
    }
    return found;
}

static bool screen_has(const tui_screen *s, const char *needle)
{
    char row[4096];
    for (int y = 0; y < s->h; y++) {
        tui_screen_row_text(s, y, row, sizeof row);
        if (strstr(row, needle))
            return true;
    }
    return false;
}

static void expect_total(const tui_screen *s, const engine_deployment *d)
{
    engine_estimate *e = malloc(sizeof *e);
    engine_estimate_compute(d, NULL, e);
    char want[64], line[4096];
    snprintf(want, sizeof want, "total %.2f GiB", (double)e->total_bytes / (double)ENGINE_GIB);
    free(e);
    assert_int_equal(count_total_lines(s, line, sizeof line), 1);
    if (strncmp(line, want, strlen(want)) != 0) {
        print_error("want '%s', screen says '%s'\n", want, line);
        fail();
    }
}

static tui_event key(int k)
{
    tui_event ev = {.type = TUI_EV_KEY, .key = k};
    return ev;
}

static void feed(tui_app *app, tui_event ev)
{
    int f = tui_app_handle(app, &ev);
    if (f & TUI_RELOAD_RUNS)
        tui_app_reload_runs(app);
    if (f & TUI_RECOMPUTE)
        tui_app_recompute(app);
}

static void test_snapshot_renderer(void **state)
{
    (void)state;
    static tui_app app;
    char err[512];
    assert_int_equal(tui_app_init(&app, "k3-dp16", NULL, NULL, NULL, false, err, sizeof err), 0);
    static const int sizes[][2] = {{80, 24}, {160, 48}, {60, 20}, {200, 60}};
    for (size_t i = 0; i < 4; i++) {
        tui_screen s;
        assert_int_equal(tui_screen_init(&s, sizes[i][0], sizes[i][1]), 0);
        tui_app_render(&app, &s);
        expect_total(&s, &app.plan[0].d);
        for (int k = 0; k < KNOB_PRIMARY_COUNT; k++)
            assert_true(screen_has(&s, engine_knobs[k].name));
        assert_true(screen_has(&s, "SGLang heuristic"));
        assert_true(screen_has(&s, "the wall is"));
        tui_screen_free(&s);
    }
    tui_screen s;
    assert_int_equal(tui_screen_init(&s, 120, 40), 0);
    tui_app_render(&app, &s);
    /* Right: max_bs takes one step of its list (24 -> 26 with speculation) */
    assert_int_equal(app.focus, KNOB_MAX_BS);
    feed(&app, key(TUI_KEY_RIGHT));
    assert_int_equal(app.plan[0].d.knobs.max_bs, 26);
    tui_app_render(&app, &s);
    expect_total(&s, &app.plan[0].d);
    /* a press on the track, then a drag: the value under the column, every column its step */
    static double steps[2048];
    size_t cur;
    size_t n = tui_app_knob_steps(&app, KNOB_MAX_BS, steps, 2048, &cur);
    tui_rect tr;
    assert_true(tui_app_track_rect(&app, KNOB_MAX_BS, &tr));
    tui_event press = {.type = TUI_EV_MOUSE, .action = TUI_MOUSE_PRESS, .x = tr.x, .y = tr.y};
    feed(&app, press);
    assert_int_equal(app.plan[0].d.knobs.max_bs, (uint32_t)steps[0]);
    for (int c = 0; c < tr.w; c++) {
        tui_event drag = {.type = TUI_EV_MOUSE, .action = TUI_MOUSE_DRAG, .x = tr.x + c, .y = tr.y + 3};
        feed(&app, drag);
        assert_int_equal(app.plan[0].d.knobs.max_bs, (uint32_t)steps[tui_slider_index_for_col(n, tr.w, c)]);
    }
    tui_event release = {.type = TUI_EV_MOUSE, .action = TUI_MOUSE_RELEASE, .x = tr.x + tr.w + 10, .y = tr.y};
    feed(&app, release);
    assert_int_equal(app.plan[0].d.knobs.max_bs, (uint32_t)steps[n - 1]);
    tui_app_render(&app, &s);
    expect_total(&s, &app.plan[0].d);
    /* typing a value, and max_dispatch back to auto */
    feed(&app, key(TUI_KEY_DOWN));
    feed(&app, key(TUI_KEY_DOWN));
    feed(&app, key(TUI_KEY_DOWN));
    assert_int_equal(app.focus, KNOB_MAX_DISPATCH);
    feed(&app, key('='));
    feed(&app, key('6'));
    feed(&app, key('4'));
    feed(&app, key(TUI_KEY_ENTER));
    assert_false(app.plan[0].d.knobs.max_dispatch_auto);
    assert_int_equal(app.plan[0].d.knobs.max_dispatch, 64);
    tui_app_render(&app, &s);
    assert_true(screen_has(&s, "64 < ")); /* the warning in place */
    feed(&app, key('='));
    feed(&app, key('9'));
    feed(&app, key('9'));
    feed(&app, key('9'));
    feed(&app, key('9'));
    feed(&app, key(TUI_KEY_ENTER)); /* out of range: an error, no change */
    assert_int_equal(app.plan[0].d.knobs.max_dispatch, 64);
    assert_true(app.message_is_error);
    feed(&app, key('a'));
    assert_true(app.plan[0].d.knobs.max_dispatch_auto);
    /* every overlay opens and closes; the comparison draws a second deployment */
    int modes[] = {'?', 'p', 'r'};
    for (int i = 0; i < 3; i++) {
        feed(&app, key(modes[i]));
        assert_int_not_equal(app.mode, TUI_MODE_MAIN);
        tui_app_render(&app, &s);
        feed(&app, key(TUI_KEY_ESCAPE));
        assert_int_equal(app.mode, TUI_MODE_MAIN);
    }
    feed(&app, key('c'));
    assert_true(app.compare);
    feed(&app, key('i'));
    tui_app_render(&app, &s);
    assert_true(screen_has(&s, "k3-dp2-dcp8"));
    assert_true(screen_has(&s, "instance concurrency"));
    expect_total(&s, &app.plan[0].d);
    /* every knob in focus draws its own plot without trouble */
    for (int k = 0; k < KNOB_COUNT; k++) {
        feed(&app, key(TUI_KEY_TAB));
        tui_app_render(&app, &s);
        assert_int_equal(count_total_lines(&s, err, sizeof err), 1);
    }
    tui_screen_free(&s);
    /* too small: says what it needs and what it has */
    assert_int_equal(tui_screen_init(&s, 30, 10), 0);
    tui_app_render(&app, &s);
    assert_true(screen_has(&s, "60x20"));
    assert_true(screen_has(&s, "30x10"));
    tui_screen_free(&s);
    tui_app_free(&app);

    /* ASCII: nothing outside ASCII anywhere on the screen */
    assert_int_equal(tui_app_init(&app, "k3-dp2-dcp8", NULL, NULL, NULL, true, err, sizeof err), 0);
    assert_int_equal(tui_screen_init(&s, 160, 48), 0);
    tui_app_render(&app, &s);
    for (int i = 0; i < s.w * s.h; i++)
        if (s.cells[i].ch >= 0x80) {
            print_error("non-ASCII U+%04X at %d,%d\n", (unsigned)s.cells[i].ch, i % s.w, i / s.w);
            fail();
        }
    expect_total(&s, &app.plan[0].d);
    tui_screen_free(&s);
    tui_app_free(&app);

    /* an unknown preset is an error with the reason, not a crash */
    assert_int_not_equal(tui_app_init(&app, "no-such-preset", NULL, NULL, NULL, false, err, sizeof err), 0);
    assert_true(strlen(err) > 0);
    tui_app_free(&app);
}

/* Text from a log or a file name drawn on the screen (issue 21): each control as its escape, each
 * invalid UTF-8 stretch as U+FFFD, and the width the same as tui_text_width says. */
static void test_print_inert(void **state)
{
    (void)state;
    tui_screen s;
    assert_int_equal(tui_screen_init(&s, 60, 2), 0);
    const char *t = "\x1b]0;T\a\xc2\x9b"
                    "31m\xe0\x80\x80!";
    int n = tui_print(&s, 0, 0, 60, TUI_ST_NORMAL, t);
    char row[256];
    tui_screen_row_text(&s, 0, row, sizeof row);
    assert_string_equal(row, "\\x1b]0;T\\x07\\x9b31m\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
    assert_int_equal(n, 23);
    assert_int_equal(tui_text_width(t), 23);
    n = tui_print(&s, 0, 1, 2, TUI_ST_NORMAL, "\x1b"); /* clipped inside the escape: still MAXW */
    assert_int_equal(n, 2);
    tui_screen_row_text(&s, 1, row, sizeof row);
    assert_string_equal(row, "\\x");
    tui_screen_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_sizes),
        cmocka_unit_test(test_slider_mapping),
        cmocka_unit_test(test_input_decoder),
        cmocka_unit_test(test_input_decoder_hostile),
        cmocka_unit_test(test_input_decoder_shortest_form),
        cmocka_unit_test(test_print_inert),
        cmocka_unit_test(test_snapshot_renderer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
