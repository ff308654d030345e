/* caplog_json.h — the JSON of a parsed log run, as `ingest --dry-run --format json` prints it
 * (CLI.md). The parser is the engine's (caplog.h); the output format is the CLI's. */
#ifndef CGPLAN_CAPLOG_JSON_H
#define CGPLAN_CAPLOG_JSON_H

#include "caplog.h"
#include "jsonw.h"

/* CLI.md's dry-run run object. MODEL may be NULL (written as null). */
void cli_write_caplog_run_json(jsonw *w, const caplog_run *run, const char *source_name, const char *model);
/* The same object left open, for a caller that adds its own keys (ingest --dry-run: the knobs it
 * derived) and closes it. */
void cli_write_caplog_run_json_open(jsonw *w, const caplog_run *run, const char *source_name, const char *model);

#endif
