/* fuzz_tui.c — the TUI without a terminal: the input is terminal bytes (keys, CSI/SS3
 * sequences, SGR mouse reports) through the decoder (tui/tui_input.c) into the app
 * (tui_app_handle), recomputed as the loop does, and rendered at sizes taken from the input's
 * first bytes (tiny, too small, huge), switching size halfway as a resize does. The app starts
 * from the same state every time: a copy made after one tui_app_init (k3-dp16 beside
 * k3-dp2-dcp8, no store: the store's runs would change between inputs). */
#include <string.h>

#include "fuzz_common.h"
#include "tui_app.h"

static tui_app pristine, app;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-fuzz", 1); /* the built-ins only */
    char err[1024];
    FUZZ_CHECK(tui_app_init(&pristine, "k3-dp16", NULL, NULL, NULL, false, err, sizeof err) == 0, "tui_app_init: %s",
               err);
    return 0;
}

/* A screen size from two bytes: mostly near the layouts' breakpoints, sometimes extreme. */
static void size_of(uint8_t a, uint8_t b, int *w, int *h)
{
    *w = a < 200 ? 20 + a : 1 + (a - 200) * 8; /* 20..219, or 1..441 */
    *h = b < 200 ? 5 + b / 2 : 1 + (b - 200) * 3;
}

static void render(int w, int h)
{
    tui_screen s;
    if (tui_screen_init(&s, w, h) != 0)
        abort();
    tui_app_render(&app, &s);
    tui_screen_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5 || size > 4096)
        return 0;
    int w1, h1, w2, h2;
    size_of(data[0], data[1], &w1, &h1);
    size_of(data[2], data[3], &w2, &h2);
    app = pristine;
    app.g = (data[4] & 1) ? &tui_glyphs_ascii : &tui_glyphs_utf8;
    data += 5;
    size -= 5;
    tui_decoder dec;
    tui_decoder_init(&dec);
    int w = w1, h = h1, events = 0;
    for (size_t i = 0; i < size; i++) {
        tui_event evs[TUI_DECODER_MAX_EVENTS + 1];
        int n = tui_decoder_feed(&dec, data[i], evs);
        FUZZ_CHECK(n >= 0 && n <= TUI_DECODER_MAX_EVENTS, "%d events from one byte", n);
        if (data[i] == 0) /* NUL: the terminal goes quiet (the loop's poll timeout) */
            n += tui_decoder_flush(&dec, &evs[n]);
        if (i == size / 2) { /* a resize halfway */
            w = w2;
            h = h2;
            evs[n++] = (tui_event){.type = TUI_EV_RESIZE};
        }
        int flags = 0;
        for (int k = 0; k < n; k++) {
            flags |= tui_app_handle(&app, &evs[k]);
            if (flags & TUI_RELOAD_RUNS) {
                tui_app_reload_runs(&app);
                flags &= ~TUI_RELOAD_RUNS;
            }
        }
        if (flags & TUI_RECOMPUTE)
            tui_app_recompute(&app);
        events += n;
        if (flags & TUI_QUIT)
            break;
        if (n && events % 16 == 0)
            render(w, h);
    }
    tui_event ev;
    if (tui_decoder_flush(&dec, &ev))
        tui_app_handle(&app, &ev);
    tui_app_recompute(&app);
    render(w, h);
    /* s builds the catalog again and frees the one the copy shared with PRISTINE: the next input
     * starts from the new one (the app owns its catalog; a copy of the app does not) */
    if (app.cat != pristine.cat)
        pristine.cat = app.cat;
    return 0;
}
