/* store_glue.h — what `ingest`, `runs` and the store lookups of other commands share. */
#ifndef CGPLAN_STORE_GLUE_H
#define CGPLAN_STORE_GLUE_H

#include "cli.h"
#include "store.h"

/* Opens the store of --db (or its default) and prints the error when it fails. For list/show
 * (WRITE_IF_POSSIBLE): read-only when the file exists and cannot be written, else read-write
 * (which creates and seeds a new store, and migrates an old one). */
typedef enum { CLI_STORE_READ_WRITE, CLI_STORE_WRITE_IF_POSSIBLE } cli_store_need;
store *cli_open_store(const cli_opts *o, cli_store_need need);

/* "DP2 x DCP8 · MTP 5"; unknown values print as "?". */
const char *cli_layout_text(uint32_t dp, uint32_t dcp, uint32_t mtp, char *buf, size_t len);
/* "b200", "h100 (inferred)" or "?" */
const char *cli_gpu_text(const char *gpu, bool inferred, char *buf, size_t len);

/* The deployment a stored run ran, for `runs show` and `calibrate`: R's preset,
 * else its model and GPU presets over engine defaults, then R's own knobs (its captured buckets
 * as an explicit list). Returns 0, or -1 with the reason in WHY (no model, unknown preset). */
int cli_run_deployment(const preset_catalog *cat, const store_run_detail *r, engine_deployment *d, char *why,
                            size_t whylen);

#endif
