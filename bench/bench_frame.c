/* bench_frame.c — time from a knob change to a finished frame (recompute, layout, render into
 * the in-memory screen) at 200x60, as the TUI does on every drag event. It measures; it does not
 * assert. Usage: bench_frame [PRESET] [FRAMES] [WxH] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui_app.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    printf("%-34s frames %5d  mean %8.1f us  p50 %8.1f us  p99 %8.1f us  max %8.1f us\n", what, n, sum / n, t[n / 2],
           t[(int)(n * 0.99)], t[n - 1]);
}

/* N knob changes through the app's own handler, each followed by one recompute and one render. */
static void run(tui_app *app, tui_screen *s, const char *what, int focus, int n, bool compare)
{
    double *t = malloc(sizeof *t * (size_t)n);
    app->focus = focus;
    app->compare = compare;
    tui_app_recompute(app);
    tui_app_render(app, s);
    int dir = 1;
    for (int i = 0; i < n; i++) {
        tui_event ev = {.type = TUI_EV_KEY, .key = dir > 0 ? TUI_KEY_RIGHT : TUI_KEY_LEFT};
        double t0 = now_us();
        int flags = tui_app_handle(app, &ev);
        if (flags & TUI_RECOMPUTE)
            tui_app_recompute(app);
        tui_app_render(app, s);
        t[i] = now_us() - t0;
        if (!(flags & TUI_RECOMPUTE)) /* an end of the range: turn round */
            dir = -dir;
    }
    report(what, t, n);
    free(t);
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "k3-dp16";
    int frames = argc > 2 ? atoi(argv[2]) : 3000;
    int w = 200, h = 60;
    if (argc > 3 && sscanf(argv[3], "%dx%d", &w, &h) != 2) {
        fprintf(stderr, "bench_frame: expected WxH, got %s\n", argv[3]);
        return 2;
    }
    if (frames < 10)
        frames = 10;
    static tui_app app;
    char err[512];
    if (tui_app_init(&app, preset, NULL, NULL, NULL, false, err, sizeof err) != 0) {
        fprintf(stderr, "bench_frame: %s\n", err);
        return 1;
    }
    tui_screen s;
    if (tui_screen_init(&s, w, h) != 0)
        return 1;
    printf("bench_frame: %s at %dx%d (knob change -> recompute -> layout -> render into memory)\n", preset, w, h);
    run(&app, &s, "max_bs (plot vs max_bs)", KNOB_MAX_BS, frames, false);
    run(&app, &s, "max_bs, comparison on", KNOB_MAX_BS, frames, true);
    run(&app, &s, "max_dispatch (plot vs max_dispatch)", KNOB_MAX_DISPATCH, frames / 4, false);
    run(&app, &s, "mtp (plot vs mtp)", KNOB_MTP, frames, false);
    run(&app, &s, "mem_fraction_static", KNOB_MEM_FRACTION, frames / 4, false);
    tui_screen_free(&s);
    tui_app_free(&app);
    return 0;
}
