/* main.c — the one binary: dispatch to a subcommand, shared option parsing, --help. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "model_import.h"
#include "text.h"

void cli_error(const char *fmt, ...)
{
    /* Messages quote file names, ids and log text: cleaned (text.h), one inert line each. */
    char line[8192], shown[4 * sizeof line];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cgplan: %s\n", engine_text_cleaned(shown, sizeof shown, line));
}

void cli_shown_line(const char *fmt, ...)
{
    char line[ENGINE_TEXT_MAX * 8], shown[sizeof line * 4];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (len && line[len - 1] == '\n')
        len--;
    engine_text_clean(shown, sizeof shown, line, len);
    printf("%s\n", shown);
}

static const struct {
    const char *name;
    unsigned bit;
    bool takes_value;
} flags[] = {
    {"--preset", OPT_PRESET, true},   {"--set", OPT_SET, true},         {"--db", OPT_DB, true},
    {"--format", OPT_FORMAT, true},   {"--vary", OPT_VARY, true},       {"--compare", OPT_COMPARE, true},
    {"--ascii", OPT_ASCII, false},    {"--snapshot", OPT_SNAPSHOT, true}, {"--keys", OPT_KEYS, true},
    {"--label", OPT_LABEL, true},     {"--dry-run", OPT_DRY_RUN, false}, {"--yes", OPT_YES, false},
    {"--model", OPT_MODEL, true},     {"--sglang-args", OPT_SGLANG_ARGS, true},
    {"--check", OPT_CHECK, false},    {"--gpus", OPT_GPUS, true},       {"--nodes", OPT_NODES, true},
    {"--allow-patched", OPT_ALLOW_PATCHED, false},                      {"--disaggregation-mode", OPT_DISAGG, true},
    {"--all", OPT_ALL, false},        {"--pin-kv", OPT_PIN_KV, false},
};

int cli_parse(int argc, char **argv, int first, const char *command, unsigned allowed, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    if (allowed & OPT_PRESET)
        allowed |= OPT_MODEL | OPT_SGLANG_ARGS;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
            if (strcmp(arg, "--") == 0) { /* everything after is positional */
                for (i++; i < argc; i++)
                    if (o->n_args < CLI_MAX_ARGS)
                        o->args[o->n_args++] = argv[i];
                break;
            }
            if (o->n_args >= CLI_MAX_ARGS) {
                cli_error("%s: more than %d arguments", command, CLI_MAX_ARGS);
                return EXIT_USAGE;
            }
            o->args[o->n_args++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        int f = -1;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (strlen(flags[k].name) == name_len && strncmp(flags[k].name, arg, name_len) == 0)
                f = (int)k;
        if (f < 0 || !(allowed & flags[f].bit)) {
            cli_error("%s: unknown option '%.*s' (see cgplan %s --help)", command, (int)name_len, arg, command);
            return EXIT_USAGE;
        }
        const char *value = NULL;
        if (flags[f].takes_value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else {
                cli_error("%s: %s needs a value", command, flags[f].name);
                return EXIT_USAGE;
            }
        } else if (eq) {
            cli_error("%s: %s takes no value", command, flags[f].name);
            return EXIT_USAGE;
        }
        switch (flags[f].bit) {
        case OPT_PRESET: o->preset = value; break;
        case OPT_MODEL: o->model = value; break;
        case OPT_SGLANG_ARGS: o->sglang_args = value; break;
        case OPT_SET:
            if (o->n_sets >= CLI_MAX_SETS) {
                cli_error("%s: more than %d --set options", command, CLI_MAX_SETS);
                return EXIT_USAGE;
            }
            o->sets[o->n_sets++] = value;
            break;
        case OPT_DB: o->db = value; break;
        case OPT_FORMAT:
            o->format_given = true;
            if (strcmp(value, "table") == 0)
                o->format = FORMAT_TABLE;
            else if (strcmp(value, "json") == 0)
                o->format = FORMAT_JSON;
            else if (strcmp(value, "csv") == 0)
                o->format = FORMAT_CSV;
            else {
                cli_error("%s: --format %s: expected table, json or csv", command, value);
                return EXIT_USAGE;
            }
            break;
        case OPT_VARY: o->vary = value; break;
        case OPT_COMPARE: o->compare = value; break;
        case OPT_ASCII: o->ascii = true; break;
        case OPT_SNAPSHOT: o->snapshot = value; break;
        case OPT_KEYS: o->keys = value; break;
        case OPT_LABEL: o->label = value; break;
        case OPT_DRY_RUN: o->dry_run = true; break;
        case OPT_YES: o->yes = true; break;
        case OPT_CHECK: o->check = true; break;
        case OPT_GPUS: o->gpus = value; break;
        case OPT_NODES: o->nodes = value; break;
        case OPT_ALLOW_PATCHED: o->allow_patched = true; break;
        case OPT_DISAGG: o->disaggregation = value; break;
        case OPT_ALL: o->all = true; break;
        case OPT_PIN_KV: o->pin_kv = true; break;
        }
    }
    return 0;
}

int cli_apply_set(const preset_catalog *cat, engine_deployment *d, const char *assignment, engine_warnings *adj)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        cli_error("--set %s: expected KEY=VALUE, e.g. --set max_bs=64", assignment);
        return EXIT_USAGE;
    }
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - assignment), assignment);
    const char *value = eq + 1;
    const engine_knob_info *knob = engine_knob_find(key);
    if (!knob) {
        char names[256] = "";
        for (int i = 0; i < KNOB_COUNT; i++) {
            strncat(names, engine_knobs[i].name, sizeof names - strlen(names) - 1);
            if (i + 1 < KNOB_COUNT)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
        }
        const char *knob_names[KNOB_COUNT];
        for (int i = 0; i < KNOB_COUNT; i++)
            knob_names[i] = engine_knobs[i].name;
        const char *near = cli_nearest(key, knob_names, KNOB_COUNT);
        if (near)
            cli_error("--set %s: unknown knob '%s'; did you mean %s? (knobs: %s)", assignment, key, near, names);
        else
            cli_error("--set %s: unknown knob '%s' (knobs: %s)", assignment, key, names);
        return EXIT_USAGE;
    }
    char err[ENGINE_TEXT_MAX];
    if (knob->type == KNOB_TYPE_NAME) { /* the GPU: a preset, resolved here */
        int rc = preset_load_gpu(cat, value, &d->gpu, err, sizeof err);
        if (rc) {
            cli_error("--set %s: %s", assignment, err);
            return rc == 1 ? EXIT_WORK : EXIT_USAGE;
        }
        d->knob_origin[knob->id] = ORIGIN_SET;
        return EXIT_OK;
    }
    if (engine_knob_set_text(d, knob->id, value, adj, err, sizeof err) != 0) {
        cli_error("--set %s: %s", assignment, err);
        return EXIT_USAGE;
    }
    d->knob_origin[knob->id] = ORIGIN_SET;
    return EXIT_OK;
}

/* --model: a model preset by name, else the preset whose hf_names holds the id. */
static int load_model(const preset_catalog *cat, const char *name, engine_model *m)
{
    char err[ENGINE_TEXT_MAX * 2];
    size_t len = strlen(name);
    struct stat st;
    if (len > 5 && strcmp(name + len - 5, ".json") == 0 && stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
        /* A Hugging Face config.json: imported on the fly, not written. */
        if (preset_model_from_config_json(name, m, err, sizeof err) != 0) {
            cli_error("--model %s", err);
            return EXIT_WORK;
        }
        return EXIT_OK;
    }
    const preset_entry *e = preset_catalog_find(cat, name, PRESET_MODEL) ? NULL : preset_match_hf_name(cat, name);
    if (!e && !preset_catalog_find(cat, name, PRESET_MODEL) && access(name, R_OK) != 0) {
        cli_error("--model %s: no model preset has that name or that Hugging Face id in its hf_names "
                  "(cgplan presets lists the models; a preset file's path or a Hugging Face config.json works too)",
                  name);
        return EXIT_USAGE;
    }
    int rc = preset_load_model(cat, e ? e->name : name, m, err, sizeof err);
    if (rc == 1) { /* the preset's file is what is wrong: its message says where */
        cli_error("--model %s", err);
        return EXIT_WORK;
    }
    if (rc != 0) {
        cli_error("--model %s: %s (a model preset name or a Hugging Face id in a preset's hf_names; "
                  "cgplan presets lists them)",
                  name, err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cli_load_deployment(const cli_opts *o, const preset_catalog *cat, const char *default_preset,
                        engine_deployment *d, engine_warnings *adj)
{
    /* SGLang's flags may name the model (--model-path); --model and --preset win over them. */
    char args_model[ENGINE_TEXT_MAX] = "";
    engine_deployment scratch;
    if (o->sglang_args) {
        engine_deployment_defaults(&scratch);
        char err[ENGINE_TEXT_MAX];
        if (engine_apply_sglang_args(&scratch, o->sglang_args, args_model, sizeof args_model, NULL, NULL, err,
                                     sizeof err) != 0) {
            cli_error("%s", err);
            return EXIT_USAGE;
        }
    }
    const char *model_name = o->model ? o->model : args_model[0] && !o->preset ? args_model : NULL;
    const char *name = o->preset ? o->preset : model_name ? NULL : default_preset;
    if (!name && !model_name) {
        cli_error("%s: --preset or --model is required (cgplan presets lists them)", o->command);
        return EXIT_USAGE;
    }
    char err[ENGINE_TEXT_MAX * 2];
    int rc;
    if (name) {
        rc = preset_load_deployment(cat, name, d, err, sizeof err);
        if (rc != 0) {
            /* "did you mean": the nearest deployment preset's name, when the name matches none */
            const char *names[256];
            size_t n = 0;
            for (size_t i = 0; i < preset_catalog_count(cat) && n < 256; i++)
                if (preset_catalog_get(cat, i)->kind == PRESET_DEPLOYMENT)
                    names[n++] = preset_catalog_get(cat, i)->name;
            const char *near = !preset_catalog_find(cat, name, PRESET_DEPLOYMENT) ? cli_nearest(name, names, n) : NULL;
            if (near)
                cli_error("%s; did you mean %s?", err, near);
            else
                cli_error("%s", err);
            return rc == 1 ? EXIT_WORK : EXIT_USAGE;
        }
    } else {
        /* A plan from a model alone: SGLang's own defaults (--tp-size 1, no DP attention, no a2a
         * backend, the release's attention backend and max_bs tier), the GPU from --set. */
        engine_deployment_defaults(d);
        engine_deployment_sglang_defaults(d);
        if (o->base_world) /* still SGLang's default for the knob's origin: search scans it */
            d->knobs.world = o->base_world;
        d->gpu.name[0] = '\0';
    }
    if (model_name) {
        rc = load_model(cat, model_name, &d->model);
        if (rc != EXIT_OK)
            return rc;
        if (!name) {
            d->knobs.context_len = d->model.context_len;
            snprintf(d->name, sizeof d->name, "%s", d->model.name);
        }
    }
    /* The reader's rules read the GPU and the release (the speculative pool's window, the max_bs
     * tier): --set gpu= and sglang= apply before the line too. Every --set applies after it, and
     * wins. (Only those two: a layout knob may need the line's tp first.) */
    for (int i = 0; o->sglang_args && i < o->n_sets; i++) {
        if (strncmp(o->sets[i], "gpu=", 4) != 0 && strncmp(o->sets[i], "sglang=", 7) != 0)
            continue;
        rc = cli_apply_set(cat, d, o->sets[i], NULL);
        if (rc != EXIT_OK)
            return rc;
    }
    if (o->sglang_args &&
        engine_apply_sglang_args(d, o->sglang_args, NULL, 0, NULL, adj, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    for (int i = 0; i < o->n_sets; i++) {
        rc = cli_apply_set(cat, d, o->sets[i], adj);
        if (rc != EXIT_OK)
            return rc;
    }
    engine_deployment_resolve_release_knobs(d);
    if (!d->gpu.name[0]) {
        cli_error("%s: --model needs a GPU: add --set gpu=NAME (cgplan presets lists the GPUs)", o->command);
        return EXIT_USAGE;
    }
    if (engine_deployment_check(d, err, sizeof err) != 0) { /* sizes the engine cannot compute with */
        cli_error("%s", err);
        return EXIT_WORK;
    }
    return EXIT_OK;
}

int cli_load_plan(const cli_opts *o, engine_deployment *d, engine_warnings *adj, engine_calibration *cal,
                  bool *calibrated)
{
    preset_catalog *cat = preset_catalog_open();
    int rc = cli_load_deployment(o, cat, NULL, d, adj);
    preset_catalog_free(cat);
    if (rc != EXIT_OK)
        return rc;
    int found = cli_find_calibration(o, d, cal);
    *calibrated = found > 0;
    return found < 0 ? EXIT_WORK : EXIT_OK;
}

const char *cli_db_path(const cli_opts *o, char *buf, size_t len)
{
    if (o && o->db)
        return o->db;
    const char *env = getenv("CGPLAN_DB");
    if (env && *env)
        return env;
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && *xdg)
        snprintf(buf, len, "%s/cgplan/runs.db", xdg);
    else
        snprintf(buf, len, "%s/.local/share/cgplan/runs.db", getenv("HOME") ? getenv("HOME") : ".");
    return buf;
}

static void print_knob_table(FILE *out)
{
    fprintf(out, "Knobs (--set KEY=VALUE):\n");
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[i];
        char step[96];
        engine_knob_steps_text(k, step, sizeof step);
        fprintf(out, "  %-20s %-18s %s (default: %s; step: %s)\n", k->name, k->range, k->help, k->default_text,
                step);
    }
}

int cmd_check(int argc, char **argv); /* cmd_check.c */

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *usage;
    const char *summary;
    const char *details; /* more for --help; NULL: none */
} commands[] = {
    {"tui", cmd_tui,
     "cgplan [tui] [--preset P | --model M] [--set KEY=VALUE]... [--sglang-args \"FLAGS\"] [--compare P2] [--db PATH] "
     "[--ascii]\n"
     "       cgplan tui --snapshot WxH [--preset P | --model M] [--set ...] [--db PATH] [--ascii] [--keys \"K1 K2 "
     "...\"]",
     "the interactive planner (the default command)", NULL},
    {"estimate", cmd_estimate, "cgplan estimate --preset P [--set KEY=VALUE]... [--db PATH] [--format table|json|csv]",
     "every memory term for one deployment", NULL},
    {"sweep", cmd_sweep,
     "cgplan sweep --preset P --vary KNOB=FROM:TO[:STEP] [--set ...] [--db PATH] [--format table|json|csv]",
     "the terms across a range of one knob (without STEP: the knob's own steps)", NULL},
    {"presets", cmd_presets, "cgplan presets [--format table|json|csv]",
     "the presets found, with model, GPU and layout", NULL},
    {"ingest", cmd_ingest,
     "cgplan ingest [--db PATH] [--label TEXT] [--preset P] [--model M] [--set KEY=VALUE]... [--dry-run] [--format "
     "...] "
     "LOG...",
     "parse SGLang start-up logs and store each run", NULL},
    {"runs", cmd_runs,
     "cgplan runs [list | show ID | rm ID | set ID KNOB=VALUE... | set-model ID MODEL] [--db PATH] [--format ...] "
     "[--yes]",
     "the stored runs; show puts measured layers beside the estimate", NULL},
    {"check", cmd_check,
     "cgplan check [--model M | --preset P] [--set KEY=VALUE]... [--calibrate] [--db PATH] [--format table|json] "
     "server.log",
     "one start-up log's measured layers beside the estimate and its range, and the next --cuda-graph-max-bs and "
     "--mem-fraction-static (exit 1: no capture it can use)",
     NULL},
    {"calibrate", cmd_calibrate,
     "cgplan calibrate [--preset P | --model M --set gpu=G] [--dry-run] [--db PATH] [--format table|json]\n"
     "       cgplan calibrate list [--db PATH] [--format ...]\n"
     "       cgplan calibrate --reset [GPU | MODEL GPU [RELEASE]] [--db PATH]",
     "fit the estimator's non-exact terms from stored runs, node_bytes per GPU first, then per model, and store them",
     "The order of a fit (--preset or --model: its GPU's node_bytes, then its model's pool):\n"
     "  1. node_bytes per GPU, and per SGLang release where the runs of each release fit apart: from any\n"
     "     model's runs on that GPU. Each run's buckets layer (where its bars bound it) or its capture\n"
     "     total, less every other term of its estimate, over its graphs' kernel nodes: one slope through\n"
     "     the origin, with the runs' own spread as its range. It takes at least two runs, of two graph\n"
     "     counts (another --cuda-graph-max-bs) or of two models. Stored, it prices the kernel nodes of\n"
     "     every model's estimate on that GPU: one model's log improves every model on it.\n"
     "  2. Per model, GPU and release, after it: every term built from its mechanism held fixed (the\n"
     "     kernel nodes at that node_bytes, wrappers, cuBLAS, the draft's buffers), what the model's own\n"
     "     runs show beyond them: the static intercept (one run), act_bytes_per_row where a run's bars\n"
     "     bound the largest bucket (one run), and a preset fit's coefficients (the K3 deployments; a\n"
     "     slope from runs whose rows differ, best two that differ only in max_bs).\n"
     "What is fitted is labelled calibrated. --reset GPU removes a GPU's node_bytes; --reset with nothing\n"
     "removes every calibration."},
    {"launch", cmd_launch,
     "cgplan launch --preset P | --model M [--set ...] [--db PATH] [--format table|json] [--allow-patched]\n"
     "       [--pin-kv] [--disaggregation-mode decode]",
     "the SGLang command per node that realises the plan (exit 3: it does not fit or the release rejects it)",
     "--pin-kv adds --max-total-tokens N: each rank's KV slots in the plan (per DP rank, over dcp), so the KV pool\n"
     "no longer grows with the memory free at boot. A warning from the estimate is printed; the command still comes."},
    {"solve", cmd_solve,
     "cgplan solve KNOB --preset P | --model M [--set ...] [--db PATH] [--format table|json|csv]\n"
     "       KNOB: max_bs, max_dispatch, context_len, mtp, mem_fraction_static",
     "the largest value of a knob that fits (for the fraction: the recommended one) and the term that stops it", NULL},
    {"search", cmd_search,
     "cgplan search --model M --set gpu=G --gpus N [--nodes K] [--all] [--set ...] [--format table|json|csv]",
     "every layout the release runs for a model on N GPUs, ranked by concurrency, with the Pareto front",
     "Layout knobs given with --set (tp, dp, dp_attention, dcp, a2a, mtp, ep) are held and said. Columns: repl\n"
     "(instances of tp GPUs) and dp (--dp-size). The best mtp per layout is shown unless --all."},
    {"diff", cmd_diff,
     "cgplan diff --preset P | --model M [--set ...] --set KNOB=A --set KNOB=B [--db PATH] [--format table|json]",
     "two estimates side by side, the one knob given twice naming the sides (e.g. sglang=0.5.6, sglang=main)",
     "Each term, the totals, the budget, the wall and the capture grid with B - A. Exit 1: a side could not be\n"
     "estimated (named); 2: not exactly one knob given twice."},
    {"lint", cmd_lint,
     "cgplan lint [--set gpu=G] [--set sglang=R] [--format table|json] \"python3 -m sglang.launch_server ...\"\n"
     "       cgplan lint [--set ...] python3 -m sglang.launch_server --model-path M ...   (several words)\n"
     "       cgplan lint [--set ...] -   (the line from stdin)",
     "what SGLang resolves from a launch line (layout, capture grid, max_bs, pool, backend) and each flag's status",
     "The line is read as a shell would (quotes, \\-newline, NAME=VALUE and export before the command).\n"
     "Each flag is modelled (it moves a knob), no_effect (no graph or KV memory), not_modelled (an SGLang\n"
     "flag that can move memory cgplan does not model), unknown (not an SGLang flag) or rejected (the\n"
     "release, main unless --set sglang=R, lacks it). The grid, max_bs, backend and default fraction need\n"
     "--set gpu=G and a model the catalog knows (--model-path as --model resolves it); else they say unknown.\n"
     "Exit 0: the line was read (warnings included); 2: not a launch line, or a flag's value is out of range."},
    {"model", cmd_model, "cgplan model import PATH/config.json [--name NAME] [--hf-id OWNER/NAME]",
     "write a model preset from a Hugging Face config.json into the user presets", NULL},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_main_help(FILE *out)
{
    fprintf(out,
            "cgplan — plan the GPU memory that CUDA graphs keep resident in SGLang decode deployments\n\n"
            "Usage: cgplan [COMMAND] [OPTIONS]   (no command: the interactive planner on k3-dp16)\n\n"
            "Commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nEvery command takes --help. Presets are names (see cgplan presets) or paths to YAML files;\n"
            "user presets in $XDG_CONFIG_HOME/cgplan/presets override built-in ones.\n"
            "The store of measured runs is --db, else $CGPLAN_DB, else ~/.local/share/cgplan/runs.db.\n"
            "Exit codes: 0 ok (also with warnings), 1 the work failed, 2 usage.\n\n");
    print_knob_table(out);
    fprintf(out, "\nExamples:\n"
                 "  cgplan estimate --preset k3-dp16 --set max_bs=64\n"
                 "  cgplan sweep --preset k3-dp2-dcp8 --vary max_bs=16:256\n"
                 "  cgplan ingest --preset k3-dp16 server.log && cgplan calibrate --preset k3-dp16\n"
                 "  cgplan launch --preset k3-dp16\n");
}

static bool wants_help(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    }
    return false;
}

/* Global options before the command ("cgplan --db X runs list"): the index of the command word
 * after options (skipping the values of options that take one), or 0 when there is none. */
static int command_after_options(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            for (size_t c = 0; c < N_COMMANDS; c++)
                if (strcmp(commands[c].name, a) == 0)
                    return i;
            return 0;
        }
        size_t len = strchr(a, '=') ? (size_t)(strchr(a, '=') - a) : strlen(a);
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (strlen(flags[k].name) == len && strncmp(flags[k].name, a, len) == 0 && flags[k].takes_value &&
                !strchr(a, '='))
                i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int at = argc >= 2 && strncmp(argv[1], "--", 2) == 0 ? command_after_options(argc, argv) : 0;
    if (at > 1) { /* move the command word first; the options keep their order after it */
        char *cmd = argv[at];
        memmove(&argv[2], &argv[1], (size_t)(at - 1) * sizeof argv[0]);
        argv[1] = cmd;
    }
    bool options_only = argc >= 2 && strncmp(argv[1], "--", 2) == 0 && strcmp(argv[1], "--help") != 0 &&
                        strcmp(argv[1], "--version") != 0;
    if (argc < 2 || options_only) {
        /* `cgplan` or `cgplan --preset ...`: the planner */
        if (wants_help(argc, argv, 1)) {
            print_main_help(stdout);
            return EXIT_OK;
        }
        return cmd_tui(argc, argv);
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0)
            name = argv[2];
        else {
            print_main_help(stdout);
            return EXIT_OK;
        }
        for (size_t i = 0; i < N_COMMANDS; i++)
            if (strcmp(commands[i].name, name) == 0) {
                printf("Usage: %s\n\n%s.\n", commands[i].usage, commands[i].summary);
                if (commands[i].details)
                    printf("\n%s\n", commands[i].details);
                return EXIT_OK;
            }
    }
    if (strcmp(name, "--version") == 0) {
        printf("cgplan %s\n", CGPLAN_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i].name, name) != 0)
            continue;
        if (wants_help(argc, argv, 2)) {
            printf("Usage: %s\n\n%s.\n", commands[i].usage, commands[i].summary);
            if (commands[i].details)
                printf("\n%s\n", commands[i].details);
            if (strcmp(name, "estimate") == 0 || strcmp(name, "sweep") == 0 || strcmp(name, "launch") == 0 ||
                strcmp(name, "ingest") == 0 || strcmp(name, "solve") == 0 || strcmp(name, "search") == 0) {
                printf("\n");
                print_knob_table(stdout);
            }
            return EXIT_OK;
        }
        return commands[i].run(argc, argv);
    }
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = cli_nearest(name, names, N_COMMANDS);
    if (near)
        cli_error("unknown command '%s'; did you mean %s? (cgplan --help lists them)", name, near);
    else
        cli_error("unknown command '%s' (cgplan --help lists them)", name);
    return EXIT_USAGE;
}


const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = 4;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        size_t d = engine_edit_distance(word, names[i], false);
        if (d < best_d && d * 2 < strlen(word) + 1) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

int cli_report_blocking(const char *command, const engine_estimate *e, const engine_warnings *adj)
{
    const engine_warnings *lists[2] = {adj, &e->warnings};
    int n = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l] && i < lists[l]->n; i++)
            if (lists[l]->items[i].severity == SEVERITY_BLOCKING) {
                cli_error("%s: does not fit: %s: %s", command, lists[l]->items[i].code, lists[l]->items[i].message);
                n++;
            }
    return n;
}
