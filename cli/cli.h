/* cli.h — what the subcommands share: parsed options, error reporting, loading a deployment
 * with --preset/--set, and the exit codes of CLI.md (0 ok, 1 the work failed, 2 usage). */
#ifndef CGPLAN_CLI_H
#define CGPLAN_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "jsonw.h"
#include "preset.h"

/* 3: the plan does not fit (estimate --check, launch, solve, search). */
enum { EXIT_OK = 0, EXIT_WORK = 1, EXIT_USAGE = 2, EXIT_NO_FIT = 3 };

#define CLI_MAX_SETS 64
#define CLI_MAX_ARGS 256

typedef enum { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV } cli_format;

/* Flags a command accepts (bit set). */
enum {
    OPT_PRESET = 1 << 0,
    OPT_SET = 1 << 1,
    OPT_DB = 1 << 2,
    OPT_FORMAT = 1 << 3,
    OPT_VARY = 1 << 4,
    OPT_COMPARE = 1 << 5,
    OPT_ASCII = 1 << 6,
    OPT_SNAPSHOT = 1 << 7,
    OPT_KEYS = 1 << 8,
    OPT_LABEL = 1 << 9,
    OPT_DRY_RUN = 1 << 10,
    OPT_YES = 1 << 11,
    OPT_MODEL = 1 << 12,       /* accepted wherever --preset is */
    OPT_SGLANG_ARGS = 1 << 13, /* likewise */
    OPT_CHECK = 1 << 14,
    OPT_GPUS = 1 << 15,
    OPT_NODES = 1 << 16,
    OPT_ALLOW_PATCHED = 1 << 17,
    OPT_DISAGG = 1 << 18,
    OPT_ALL = 1 << 26,    /* search --all: every mtp variant */
    OPT_PIN_KV = 1 << 27, /* launch --pin-kv: --max-total-tokens from the plan */
};

typedef struct {
    const char *command;
    const char *preset;
    const char *model; /* --model: a model preset or a Hugging Face id (its hf_names) */
    const char *sglang_args; /* --sglang-args "FLAGS": SGLang's own launch flags */
    const char *sets[CLI_MAX_SETS];
    int n_sets;
    const char *db;
    cli_format format;
    bool format_given;
    const char *vary;
    const char *compare;
    bool ascii;
    const char *snapshot;
    const char *keys;
    const char *label;
    bool dry_run;
    bool yes;
    bool check;
    const char *gpus, *nodes; /* search: --gpus N, --nodes K */
    bool allow_patched;       /* launch: print a plan the release rejects */
    const char *disaggregation; /* launch --disaggregation-mode decode */
    bool all;                   /* search --all */
    bool pin_kv;                /* launch --pin-kv */
    uint32_t base_world;        /* search: a model-alone plan's world before --set (the GPUs), so
                                   --set dp=/dcp= are checked against the layouts it scans */
    const char *args[CLI_MAX_ARGS]; /* positional arguments */
    int n_args;
} cli_opts;

/* Prints "cgplan: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints one line of a table or CSV on stdout that quotes outside text (a preset's, a log's, a
 * file name): the formatted line cleaned (text.h: controls escaped, invalid UTF-8 as U+FFFD),
 * then one newline (a trailing newline in FMT is that one). */
void cli_shown_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses argv[first..] for COMMAND, accepting the flags in ALLOWED. Returns 0 or EXIT_USAGE
 * (after printing the error). --help is handled by the caller before this. */
int cli_parse(int argc, char **argv, int first, const char *command, unsigned allowed, cli_opts *o);

/* Loads --preset (DEFAULT when absent and DEFAULT is non-NULL) and applies every --set in
 * order; knob adjustments are added to ADJ. Returns EXIT_OK, EXIT_WORK (a bad preset file) or
 * EXIT_USAGE (unknown preset, unknown knob, value out of range), having printed the error. */
int cli_load_deployment(const cli_opts *o, const preset_catalog *cat, const char *default_preset,
                        engine_deployment *d, engine_warnings *adj);
/* Applies one "KEY=VALUE" to D (knobs of MODEL.md, gpu by preset name). Same return codes. */
int cli_apply_set(const preset_catalog *cat, engine_deployment *d, const char *assignment,
                  engine_warnings *adj);

/* The store path: --db, else $CGPLAN_DB, else $XDG_DATA_HOME/cgplan/runs.db, else
 * ~/.local/share/cgplan/runs.db. */
const char *cli_db_path(const cli_opts *o, char *buf, size_t len);

/* The deployment the options name (cli_load_deployment over a catalog it opens and closes) and
 * its stored calibration, if any (*CALIBRATED). Returns EXIT_OK or the error's exit code. */
int cli_load_plan(const cli_opts *o, engine_deployment *d, engine_warnings *adj, engine_calibration *cal,
                  bool *calibrated);
/* Looks up what the store calibrated for D: its model's calibration (model, GPU, release) and its
 * GPU's node_bytes, whatever the model: 1 found, 0 when there is neither or the store does not
 * exist (never creates one), -1 when a stored value is out of bounds (said on stderr, with the
 * row and its fix: the caller exits EXIT_WORK). */
int cli_find_calibration(const cli_opts *o, const engine_deployment *d, engine_calibration *cal);

/* Output helpers shared by estimate, sweep, runs show and the TUI snapshot. */
double cli_gib(uint64_t bytes);
void cli_write_estimate_json(FILE *out, const char *preset, const engine_deployment *d,
                             const engine_estimate *e, const engine_warnings *adj);
void cli_write_estimate_table(FILE *out, const char *preset, const engine_deployment *d,
                              const engine_estimate *e, const engine_warnings *adj);
void cli_write_estimate_csv(FILE *out, const char *preset, const engine_estimate *e);
/* The estimate's JSON object as a value inside W (diff puts two side by side). */
void cli_write_estimate_value(jsonw *w, const char *preset, const engine_deployment *d, const engine_estimate *e,
                              const engine_warnings *adj);
/* "SGLang 0.5.6 alone: 0.897, 43.04 GiB KV (612k tokens); this plan: 0.874, +8.00 GiB = +120000 tokens". */
void cli_sglang_default_text(const engine_deployment *d, const engine_budget *b, char *buf, size_t len);
/* Where B's weights come from, for the budget line: "measured at DP16", or "computed from the
 * model: the measured 150.00 GiB was at DP16, this plan is DP2 x DCP8". */
void cli_weights_source_text(const engine_deployment *d, const engine_budget *b, char *buf, size_t len);

int cmd_estimate(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_presets(int argc, char **argv);
int cmd_launch(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_lint(int argc, char **argv);

/* The closest of N names to WORD (edit distance at most 3 and under half its length), or NULL:
 * for "did you mean" in errors. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);
/* The blocking warnings of E (and ADJ), one "cgplan: ..." line each on stderr; returns their count. */
int cli_report_blocking(const char *command, const engine_estimate *e, const engine_warnings *adj);

#endif
