/* cmd_tui.c — `cgplan [tui]`: the interactive planner, or one frame of it as text (--snapshot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store_glue.h"
#include "tui.h"

/* "WxH" with both within sane bounds. */
static bool parse_size(const char *text, int *w, int *h)
{
    char *end;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return false;
    const char *p = end + 1;
    long b = strtol(p, &end, 10);
    if (end == p || *end || a < 1 || b < 1 || a > 1000 || b > 1000)
        return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

int cmd_tui(int argc, char **argv)
{
    /* `cgplan tui ...`, or `cgplan` / `cgplan --preset P` (the default command). */
    int first = argc > 1 && strcmp(argv[1], "tui") == 0 ? 2 : 1;
    cli_opts o;
    int rc = cli_parse(argc, argv, first, "tui",
                       OPT_PRESET | OPT_SET | OPT_COMPARE | OPT_DB | OPT_ASCII | OPT_SNAPSHOT | OPT_KEYS, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("tui: unexpected argument '%s' (see cgplan tui --help)", o.args[0]);
        return EXIT_USAGE;
    }
    if (o.keys && !o.snapshot) {
        cli_error("tui: --keys goes with --snapshot WxH");
        return EXIT_USAGE;
    }
    /* --model, --sglang-args or --set: the main plan is built here as estimate builds it, so the
     * planner opens on the same numbers; a preset alone loads in the TUI itself. */
    engine_deployment plan;
    bool built = o.model || o.sglang_args || o.n_sets;
    if (built) {
        preset_catalog *cat = preset_catalog_open();
        if (!cat) {
            cli_error("tui: out of memory opening the preset catalog");
            return EXIT_WORK;
        }
        engine_warnings adj = {0};
        rc = cli_load_deployment(&o, cat, "k3-dp16", &plan, &adj);
        preset_catalog_free(cat);
        if (rc != EXIT_OK)
            return rc;
    }
    char db_buf[1024];
    tui_options t = {
        .preset = o.preset,
        .plan = built ? &plan : NULL,
        .compare = o.compare,
        .db_path = cli_db_path(&o, db_buf, sizeof db_buf),
        .ascii = o.ascii,
    };
    /* The TUI opens the store itself; a new one is created and seeded here, where the presets
     * that derive the seed runs are at hand. */
    cli_store_prepare(t.db_path);
    if (o.snapshot) {
        int w, h;
        if (!parse_size(o.snapshot, &w, &h)) {
            cli_error("tui: --snapshot %s: expected WxH, e.g. 80x24 (1..1000 each)", o.snapshot);
            return EXIT_USAGE;
        }
        char err[1024];
        rc = tui_snapshot(&t, w, h, o.keys, stdout, err, sizeof err);
        if (rc != 0)
            cli_error("tui: %s", err);
        return rc == 0 ? EXIT_OK : rc == 2 ? EXIT_USAGE : EXIT_WORK;
    }
    return tui_run(&t);
}
