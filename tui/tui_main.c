/* tui_main.c — the two front ends of the same renderer: --snapshot (text, no terminal) and the
 * interactive loop over curses (tui_curses.c). */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_app.h"
#include "tui_internal.h"

#define SNAPSHOT_MAX_KEYS 4096

/* UTF-8 glyphs only when the locale's codeset is UTF-8 and --ascii was not given. */
bool tui_locale_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* tui_snapshot with its app and room for SNAPSHOT_MAX_KEYS events given. */
static int snapshot(tui_app *app, tui_event *events, const tui_options *o, int w, int h, const char *keys, FILE *out,
                    char *err, size_t errlen)
{
    size_t n = 0;
    if (keys && tui_keys_parse(keys, events, SNAPSHOT_MAX_KEYS, &n, err, errlen) != 0)
        return 2;
    setlocale(LC_ALL, "");
    bool ascii = o->ascii || !tui_locale_utf8();
    int rc = tui_app_init(app, o->preset, o->plan, o->compare, o->db_path, ascii, err, errlen);
    if (rc != 0) {
        tui_app_free(app);
        return rc;
    }
    tui_screen s;
    if (tui_screen_init(&s, w, h) != 0) {
        snprintf(err, errlen, "out of memory for a %dx%d screen", w, h);
        tui_app_free(app);
        return 1;
    }
    /* Lay out once so mouse geometry and the too-small state are known, then feed the keys. */
    tui_app_render(app, &s);
    for (size_t i = 0; i < n; i++) {
        int flags = tui_app_handle(app, &events[i]);
        if (flags & TUI_RELOAD_RUNS)
            tui_app_reload_runs(app);
        if (flags & TUI_RECOMPUTE)
            tui_app_recompute(app);
        if (flags & TUI_QUIT)
            break;
    }
    tui_app_render(app, &s);
    tui_screen_write_text(&s, out);
    tui_screen_free(&s);
    tui_app_free(app);
    return 0;
}

int tui_snapshot(const tui_options *o, int w, int h, const char *keys, FILE *out, char *err, size_t errlen)
{
    /* The app and the parsed keys belong to this call: on the heap (about 170 and 100 KiB), not
     * in statics that would outlive it. */
    tui_app *app = malloc(sizeof *app);
    tui_event *events = calloc(SNAPSHOT_MAX_KEYS, sizeof *events);
    int rc;
    if (!app || !events) {
        snprintf(err, errlen, "out of memory");
        rc = 1;
    } else {
        rc = snapshot(app, events, o, w, h, keys, out, err, errlen);
    }
    free(events);
    free(app);
    return rc;
}
