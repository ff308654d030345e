/* pending.c — the interactive planner lands in the next change (issue 4); until then the
 * command says so plainly instead of pretending to work. */
#include "cli.h"

int cmd_tui(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("the interactive planner is not built yet in this version");
    return EXIT_WORK;
}
