/* pending.c — commands whose modules land in later changes (the store: issue 3, the TUI:
 * issue 4). Each says so plainly instead of pretending to work. */
#include "cli.h"

static int pending(const char *what)
{
    cli_error("%s is not built yet in this version", what);
    return EXIT_WORK;
}

int cmd_ingest(int argc, char **argv) { (void)argc; (void)argv; return pending("ingest"); }
int cmd_runs(int argc, char **argv) { (void)argc; (void)argv; return pending("runs"); }
int cmd_calibrate(int argc, char **argv) { (void)argc; (void)argv; return pending("calibrate"); }
int cmd_tui(int argc, char **argv) { (void)argc; (void)argv; return pending("the interactive planner"); }
bool cli_find_calibration(const cli_opts *o, const engine_deployment *d, engine_calibration *cal)
{
    (void)o; (void)d; (void)cal;
    return false;
}
