/* store_glue.h — what `ingest`, `runs` and the store lookups of other commands share: opening (and
 * seeding) the store, and what the presets give to derive a run from its log. */
#ifndef CGPLAN_STORE_GLUE_H
#define CGPLAN_STORE_GLUE_H

#include "cli.h"
#include "run_derive.h"
#include "store.h"

#define CLI_MAX_GPU_PRESETS 64 /* 29 built-in GPUs and the user's; the ones past it are not offered for inference */

#define CLI_MODEL_MEMOS 8

/* What the presets know beside a log: the GPUs' totals (to infer an unknown GPU) and the hf_names
 * matches, the last few remembered. Owned by the caller; the context that cli_run_context_init
 * fills points into it. */
typedef struct {
    const preset_catalog *cat;
    size_t n_gpus;
    engine_gpu_ref gpus[CLI_MAX_GPU_PRESETS];
    char gpu_names[CLI_MAX_GPU_PRESETS][ENGINE_NAME_MAX];
    /* the hf_names matches of the last few model paths: a log's runs take turns with a few
     * models, and a match compares the path with every preset's names */
    struct {
        char path[CAPLOG_STR_MAX];
        char model[ENGINE_NAME_MAX];
    } model_memo[CLI_MODEL_MEMOS];
    unsigned n_model_memos, next_model_memo;
    bool arch_cached; /* the architecture match, the last one (every model preset is loaded for it) */
    char cached_arch[CAPLOG_ARCH_MAX];
    char cached_arch_model[ENGINE_NAME_MAX];
} cli_run_presets;

/* Fills CTX with P's GPUs and hf_names match over CAT (CAT NULL: neither); nothing given yet
 * (the caller sets given, given_origin and model_given). */
void cli_run_context_init(engine_run_context *ctx, cli_run_presets *p, const preset_catalog *cat);

/* Opens the store at PATH; a store this call creates is seeded with the article's two K3 runs,
 * each derived with its deployment preset from CAT (NULL: the catalog is opened for the seed).
 * The TUI opens its store with this too. Returns NULL with ERR set. */
store *cli_store_open(const preset_catalog *cat, const char *path, store_mode mode, char *err, size_t errlen);

/* Creates and seeds the store at PATH when there is none yet, for a front end that opens it with
 * store_open itself (the TUI); any error is left for that open to report. */
void cli_store_prepare(const char *path);

/* Opens the store of --db (or its default) and prints the error when it fails. For list/show
 * (WRITE_IF_POSSIBLE): read-only when the file exists and cannot be written, else read-write
 * (which creates and seeds a new store, and migrates an old one). */
typedef enum { CLI_STORE_READ_WRITE, CLI_STORE_WRITE_IF_POSSIBLE } cli_store_need;
store *cli_open_store(const cli_opts *o, cli_store_need need);

/* "b200", "h100 (inferred)" or "?" */
const char *cli_gpu_text(const char *gpu, bool inferred, char *buf, size_t len);
/* "DP2 x DCP8 MTP 5" for a run's summary; unknown values print as "?". */
const char *cli_run_layout_text(const store_run_summary *r, char *buf, size_t len);

/* The deployment a stored run ran, for `runs show` and `calibrate`: R's preset,
 * else its model and GPU presets over engine defaults, then R's own knobs (its captured buckets
 * as an explicit list). Returns 0, or -1 with the reason in WHY (no model, unknown preset). */
int cli_run_deployment(const preset_catalog *cat, const store_run_detail *r, engine_deployment *d, char *why,
                       size_t whylen);

/* After `runs rm REMOVED` (cmd_calibrate.c): each calibration that run fed is refitted from the
 * runs left, or dropped when none is left (an older one of its pool is dropped), one line each to
 * OUT. Returns 0, or -1 having said the error. */
int cli_calibrate_after_rm(store *st, int64_t removed, FILE *out);

/* What --preset, --model and --set give beside a log, as `ingest` reads them (cmd_ingest.c): GIVEN
 * and CTX filled, P holding the presets' side, --model's name in MODEL_NAME (ENGINE_NAME_MAX).
 * Returns EXIT_OK, or EXIT_USAGE / EXIT_WORK having said why. */
int cli_ingest_context(const cli_opts *o, const preset_catalog *cat, engine_deployment *given, cli_run_presets *p,
                       engine_run_context *ctx, char *model_name);

/* A run's knob KNOB as JSON: null when ORIGIN says unknown, "auto", a list, a name (a release as
 * "v0.4.6"), or a number. */
void cli_run_knob_json(jsonw *w, const engine_deployment *values, const engine_knob_origin *origin,
                       engine_knob_id knob);

#endif
