/* cmd_check.c — `cgplan check [--model M | --preset P] [--set KNOB=V ...] [--calibrate] [--db PATH]
 * [--format json] server.log`: one start-up log read as ingest reads it (a dry run; stored and
 * calibrated with --calibrate), the knobs it shows, each measured layer beside the estimate and
 * its range, and the next --cuda-graph-max-bs and --mem-fraction-static the engine solves for. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "jsonw.h"
#include "solve.h"
#include "store_glue.h"
#include "text.h"

#define CHECK_TOLERANCE_GIB 0.005 /* the log prints GiB to two decimals */

/* The log's last run that captured a target group, derived as ingest derives it. */
typedef struct {
    const engine_run_context *ctx;
    caplog_run *run; /* a copy (1.2 MiB) */
    engine_run_facts facts;
    uint32_t n_runs, n_captured, index;
    uint32_t memoryless_line; /* a target capture that printed no memory: its first line */
    bool failed_capture;      /* the last run with a target group failed its capture */
    char failure[CAPLOG_STR_MAX];
} check_ctx;

static void on_run(const caplog_run *run, void *ctx_)
{
    check_ctx *c = ctx_;
    c->n_runs++;
    static engine_run_facts f;
    engine_run_derive(run, c->ctx, &f);
    if (f.target_group < 0)
        return;
    const caplog_group *t = &run->groups[f.target_group];
    if (t->failed) {
        c->failed_capture = true;
        snprintf(c->failure, sizeof c->failure, "%s", t->failure[0] ? t->failure : "no reason printed");
        return;
    }
    if (!caplog_known(f.total_gib) && !caplog_known(f.largest_gib) && !caplog_known(f.target_total_gib)) {
        c->memoryless_line = t->first_line;
        return;
    }
    c->n_captured++;
    c->index = c->n_runs;
    c->failed_capture = false;
    memcpy(c->run, run, sizeof *run);
    c->facts = f;
}

/* Reads PATH through the parser. Returns 0, or EXIT_WORK having said why. */
static int read_log(const char *path, check_ctx *c, bool *recognised)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("check: cannot read %s: %s", path, strerror(errno));
        return EXIT_WORK;
    }
    caplog_parser *p = caplog_new();
    if (!p) {
        fclose(f);
        cli_error("check: out of memory reading %s", path);
        return EXIT_WORK;
    }
    caplog_set_callback(p, on_run, c);
    static char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        caplog_feed(p, buf, n);
    bool read_error = ferror(f);
    fclose(f);
    caplog_finish(p);
    *recognised = caplog_recognised(p);
    caplog_free(p);
    if (read_error) {
        cli_error("check: reading %s failed", path);
        return EXIT_WORK;
    }
    return EXIT_OK;
}

/* The facts as a stored run would read back, for cli_run_deployment. */
static void detail_of(const engine_run_facts *f, const char *preset, store_run_detail *r)
{
    memset(r, 0, sizeof *r);
    store_run_summary *s = &r->summary;
    engine_copy_text(s->model, sizeof s->model, f->model);
    engine_copy_text(s->gpu, sizeof s->gpu, f->values.gpu.name);
    s->gpu_inferred = f->gpu_inferred;
    store_summary_set_knobs(s, &f->values);
    s->static_gib = f->static_gib;
    s->largest_gib = f->largest_gib;
    s->buckets_gib = f->buckets_gib;
    s->draft_gib = f->draft_gib;
    s->target_total_gib = f->target_total_gib;
    s->total_gib = f->total_gib;
    engine_copy_text(r->preset, sizeof r->preset, preset);
    r->model_origin = f->model_origin;
    r->values = f->values;
    memcpy(r->origin, f->origin, sizeof r->origin);
    r->has_backend = f->has_backend;
    r->backend = f->backend;
    r->has_a2a = f->has_a2a;
    r->a2a = f->a2a;
}

/* Runs another command's entry point (ingest, calibrate) on ARGV; with QUIET its stdout goes
 * nowhere (the JSON of check is the only thing on stdout then). Returns its exit code. */
static int run_command(int (*fn)(int, char **), int argc, char **argv, bool quiet)
{
    int saved = -1;
    fflush(stdout);
    if (quiet) {
        FILE *null = fopen("/dev/null", "w");
        saved = dup(STDOUT_FILENO);
        if (null && saved >= 0)
            dup2(fileno(null), STDOUT_FILENO);
        if (null)
            fclose(null);
    }
    int rc = fn(argc, argv);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    return rc;
}

/* --calibrate: the log stored as ingest stores it, then its model's pool on its GPU fitted. */
static int store_and_calibrate(const cli_opts *o, const char *log, const engine_run_facts *f, bool quiet,
                               bool *calibrated)
{
    char *argv[16 + 2 * CLI_MAX_SETS];
    int n = 0;
    argv[n++] = "cgplan";
    argv[n++] = "ingest";
    if (o->db) {
        argv[n++] = "--db";
        argv[n++] = (char *)o->db;
    }
    if (o->preset) {
        argv[n++] = "--preset";
        argv[n++] = (char *)o->preset;
    }
    if (o->model) {
        argv[n++] = "--model";
        argv[n++] = (char *)o->model;
    }
    for (int i = 0; i < o->n_sets; i++) {
        argv[n++] = "--set";
        argv[n++] = (char *)o->sets[i];
    }
    argv[n++] = (char *)log;
    argv[n] = NULL;
    int rc = run_command(cmd_ingest, n, argv, quiet);
    if (rc != EXIT_OK)
        return rc;
    if (!f->model[0] || !f->values.gpu.name[0]) {
        cli_error("check --calibrate: stored, not calibrated: the run's %s unknown (--model M, --set gpu=G)",
                  !f->model[0] ? "model is" : "GPU is");
        return EXIT_OK;
    }
    char gpu_set[ENGINE_NAME_MAX + 8], model[ENGINE_NAME_MAX];
    snprintf(gpu_set, sizeof gpu_set, "gpu=%s", f->values.gpu.name);
    snprintf(model, sizeof model, "%s", f->model);
    n = 0;
    argv[n++] = "cgplan";
    argv[n++] = "calibrate";
    if (o->db) {
        argv[n++] = "--db";
        argv[n++] = (char *)o->db;
    }
    argv[n++] = "--model";
    argv[n++] = model;
    argv[n++] = "--set";
    argv[n++] = gpu_set;
    argv[n] = NULL;
    *calibrated = run_command(cmd_calibrate, n, argv, quiet) == EXIT_OK;
    return EXIT_OK;
}

static double known_or_nan_gib(double v)
{
    return caplog_known(v) ? v : NAN;
}

enum { L_STATIC, L_LARGEST, L_BUCKETS, L_DRAFT, L_TOTAL, L_N };
static const char *const layer_keys[L_N] = {"static", "largest", "buckets", "draft", "total"};

typedef struct {
    double measured_gib; /* NaN: the log does not bound it */
    uint64_t bytes, low, high;
    int outside; /* -1 below its range, +1 above, 0 inside or not measured */
} layer_check;

/* Each layer's estimate and range: the terms' ends summed per layer, and whatever the layer
 * holds beyond its terms (a calibration's static intercept) added to both ends. */
static void layer_ranges(const engine_estimate *e, const double measured[L_N], layer_check out[L_N])
{
    static const engine_layer of[L_DRAFT + 1] = {LAYER_STATIC, LAYER_LARGEST, LAYER_BUCKETS, LAYER_DRAFT};
    for (int l = 0; l < L_N; l++) {
        layer_check *c = &out[l];
        memset(c, 0, sizeof *c);
        c->measured_gib = measured[l];
        if (l == L_TOTAL) {
            c->bytes = e->total_bytes;
            c->low = e->total_low_bytes;
            c->high = e->total_complete ? e->total_high_bytes : UINT64_MAX;
        } else {
            uint64_t sum = 0;
            for (int t = 0; t < TERM_COUNT; t++)
                if (e->terms[t].known && e->terms[t].layer == of[l]) {
                    sum += e->terms[t].bytes;
                    c->low += e->terms[t].low_bytes;
                    c->high += e->terms[t].high_bytes;
                }
            c->bytes = l == L_DRAFT ? e->draft_total_bytes : e->layer_bytes[of[l]];
            uint64_t beyond = c->bytes > sum ? c->bytes - sum : 0;
            c->low += beyond;
            c->high += beyond;
        }
        if (!caplog_known(c->measured_gib))
            continue;
        double lo = (double)c->low / (double)ENGINE_GIB, hi = (double)c->high / (double)ENGINE_GIB;
        if (c->measured_gib + CHECK_TOLERANCE_GIB < lo)
            c->outside = -1;
        else if (c->high != UINT64_MAX && c->measured_gib - CHECK_TOLERANCE_GIB > hi)
            c->outside = 1;
    }
}

/* The estimate's term named KEY (engine_terms[].key), or -1 ("unattributed": none). */
static int term_index(const char *key)
{
    for (int t = 0; t < TERM_COUNT; t++)
        if (strcmp(engine_terms[t].key, key) == 0)
            return t;
    return -1;
}

/* Where MEASURED bytes lie against term T's range: -1 below, +1 above, 0 inside. */
static int term_outside(const engine_term *t, uint64_t measured)
{
    uint64_t slack = (uint64_t)(CHECK_TOLERANCE_GIB * (double)ENGINE_GIB);
    return measured + slack < t->low_bytes ? -1 : measured > t->high_bytes + slack ? 1 : 0;
}

static const char *outside_text(int outside)
{
    return outside < 0 ? "below" : outside > 0 ? "above" : NULL;
}

/* The knobs a check prints: the shape, then the others the run knows. */
static const engine_knob_id shown_knobs[] = {KNOB_WORLD, KNOB_DP,           KNOB_DCP,          KNOB_MAX_BS,
                                             KNOB_MTP,   KNOB_MAX_DISPATCH, KNOB_MEM_FRACTION, KNOB_SGLANG};

static int usage(const char *why)
{
    cli_error("check: %s (cgplan check [--model M | --preset P] [--set KNOB=V]... [--calibrate] [--db PATH] [--format "
              "table|json] server.log)",
              why);
    return EXIT_USAGE;
}

int cmd_check(int argc, char **argv)
{
    /* --calibrate is check's own switch; the rest is what every command parses */
    char *args[CLI_MAX_ARGS + CLI_MAX_SETS * 2 + 16];
    int n_args = 0;
    bool calibrate = false;
    for (int i = 0; i < argc && n_args < (int)(sizeof args / sizeof args[0]); i++) {
        if (i >= 2 && strcmp(argv[i], "--calibrate") == 0)
            calibrate = true;
        else
            args[n_args++] = argv[i];
    }
    cli_opts o;
    int rc = cli_parse(n_args, args, 2, "check", OPT_PRESET | OPT_MODEL | OPT_SET | OPT_DB | OPT_FORMAT, &o);
    if (rc)
        return rc;
    if (o.n_args != 1)
        return usage(o.n_args ? "expected one log, got more" : "expected a log");
    if (o.format == FORMAT_CSV)
        return usage("--format csv is not offered (table or json)");
    if (o.preset && o.model)
        return usage("--preset and --model both name the model: give one");
    const char *log = o.args[0];
    preset_catalog *cat = preset_catalog_open();
    if (!cat) {
        cli_error("check: out of memory opening the presets");
        return EXIT_WORK;
    }
    static engine_deployment given;
    static cli_run_presets presets;
    static engine_run_context ctx;
    char model_name[ENGINE_NAME_MAX] = "";
    if ((rc = cli_ingest_context(&o, cat, &given, &presets, &ctx, model_name)) != EXIT_OK) {
        preset_catalog_free(cat);
        return rc;
    }
    static check_ctx c;
    memset(&c, 0, sizeof c);
    c.ctx = &ctx;
    c.run = malloc(sizeof *c.run);
    bool recognised = false;
    if (!c.run) {
        cli_error("check: out of memory");
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    if ((rc = read_log(log, &c, &recognised)) != EXIT_OK)
        goto out;
    rc = EXIT_WORK;
    if (!recognised) {
        cli_error("check: %s holds no SGLang start-up lines (a server's log from its launch to \"fired up\")", log);
        goto out;
    }
    if (c.failed_capture) {
        cli_error("check: %s: its last CUDA-graph capture failed (%s): nothing measured to check; fix the launch "
                  "(cgplan solve max_bs --preset P gives a max_bs that fits) and check the next log",
                  log, c.failure);
        goto out;
    }
    if (!c.n_captured && c.memoryless_line) {
        cli_error("check: %s holds no CUDA-graph capture it can use: the capture at line %u prints no memory after it "
                  "begins (no end line with mem usage, no bar with avail_mem: a log cut short, or one of log level "
                  "warning)",
                  log, c.memoryless_line);
        goto out;
    }
    if (!c.n_captured) {
        cli_error("check: %s holds no CUDA-graph capture it can use: no target decode/verify group prints its memory "
                  "(its begin/end lines or bars: SGLang prints them from the capture of cuda_graph_runner.py at log "
                  "level info)",
                  log);
        goto out;
    }
    const engine_run_facts *f = &c.facts;
    const caplog_run *run = c.run;
    bool calibrated_now = false;
    if (calibrate && (rc = store_and_calibrate(&o, log, f, o.format == FORMAT_JSON, &calibrated_now)) != EXIT_OK)
        goto out;
    rc = EXIT_OK;

    static store_run_detail r;
    detail_of(f, o.preset, &r);
    static engine_deployment d;
    char why[ENGINE_TEXT_MAX * 2] = "";
    bool estimated = false;
    if (!r.summary.model[0])
        snprintf(why, sizeof why, "the log names no model a preset knows (check --model M or --preset P)");
    else if (cli_run_deployment(cat, &r, &d, why, sizeof why) == 0)
        estimated = true;
    if (estimated) {
        const char *slash = strrchr(log, '/');
        snprintf(d.name, sizeof d.name, "%s", slash ? slash + 1 : log);
    }
    static engine_calibration cal;
    bool has_cal = estimated && cli_find_calibration(&o, &d, &cal) > 0;
    static engine_estimate e, full, scratch[2];
    static engine_solution sol;
    bool solved = false;
    if (estimated) {
        calib_estimate_terms(&d, has_cal ? &cal : NULL, &e);       /* the layers, as runs show compares them */
        engine_estimate_compute(&d, has_cal ? &cal : NULL, &full); /* the budget at the logged max_bs */
        solved = engine_solve(&d, has_cal ? &cal : NULL, KNOB_MAX_BS, &sol, scratch) == 0;
    }
    double measured[L_N] = {f->static_gib, f->largest_gib, f->buckets_gib, f->draft_gib, f->total_gib};
    if (!caplog_known(measured[L_DRAFT]) && f->values.knobs.mtp == 1 && f->origin[KNOB_MTP])
        measured[L_DRAFT] = 0; /* no speculation: no draft graphs */
    layer_check layers[L_N];
    if (estimated)
        layer_ranges(&e, measured, layers);
    int n_outside = 0;
    for (int l = 0; estimated && l < L_N; l++)
        n_outside += layers[l].outside != 0;
    store_run_summary *sum = &r.summary;
    const char *excluded = store_run_calibration_exclusion(sum);
    const char *source = strrchr(log, '/') ? strrchr(log, '/') + 1 : log;

    if (o.format == FORMAT_JSON) {
        jsonw w;
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "log", source);
        jsonw_ku64(&w, "first_line", run->first_line);
        jsonw_ku64(&w, "last_line", run->last_line);
        jsonw_ku64(&w, "run", c.index);
        jsonw_ku64(&w, "runs", c.n_runs);
        jsonw_kstring(&w, "model", sum->model[0] ? sum->model : NULL);
        jsonw_kstring(&w, "model_origin", sum->model[0] ? engine_origin_name(r.model_origin) : NULL);
        jsonw_kstring(&w, "gpu", sum->gpu[0] ? sum->gpu : NULL);
        jsonw_kbool(&w, "gpu_inferred", sum->gpu_inferred);
        jsonw_key(&w, "knobs");
        jsonw_object_begin(&w);
        for (int k = 0; k < KNOB_COUNT; k++) {
            if (!r.origin[k])
                continue;
            jsonw_key(&w, engine_knobs[k].name);
            jsonw_object_begin(&w);
            jsonw_key(&w, "value");
            cli_run_knob_json(&w, &r.values, r.origin, (engine_knob_id)k);
            jsonw_kstring(&w, "origin", engine_origin_name(r.origin[k]));
            jsonw_object_end(&w);
        }
        jsonw_object_end(&w);
        jsonw_kbool(&w, "stored", calibrate);
        jsonw_kbool(&w, "calibrated_now", calibrated_now);
        jsonw_kstring(&w, "calibration_excluded", excluded);
        jsonw_key(&w, "estimate");
        if (estimated) {
            jsonw_object_begin(&w);
            jsonw_kbool(&w, "calibrated", has_cal);
            jsonw_key(&w, "layers");
            jsonw_array_begin(&w);
            for (int l = 0; l < L_N; l++) {
                const layer_check *lc = &layers[l];
                jsonw_object_begin(&w);
                jsonw_kstring(&w, "layer", layer_keys[l]);
                jsonw_kdouble(&w, "measured_gib", known_or_nan_gib(lc->measured_gib), 2);
                jsonw_ku64(&w, "estimate_bytes", lc->bytes);
                jsonw_ku64(&w, "low_bytes", lc->low);
                if (lc->high == UINT64_MAX)
                    jsonw_knull(&w, "high_bytes");
                else
                    jsonw_ku64(&w, "high_bytes", lc->high);
                jsonw_kstring(&w, "outside", outside_text(lc->outside));
                jsonw_object_end(&w);
            }
            jsonw_array_end(&w);
            /* the capture hook's terms (hook/cgplan_capture_hook.py), each beside its estimate */
            jsonw_key(&w, "terms");
            jsonw_array_begin(&w);
            for (uint32_t i = 0; i < run->n_hook_terms; i++) {
                int t = term_index(run->hook_terms[i].term);
                jsonw_object_begin(&w);
                jsonw_kstring(&w, "term", run->hook_terms[i].term);
                jsonw_ku64(&w, "measured_bytes", run->hook_terms[i].bytes);
                if (t >= 0 && e.terms[t].known) {
                    jsonw_ku64(&w, "estimate_bytes", e.terms[t].bytes);
                    jsonw_ku64(&w, "low_bytes", e.terms[t].low_bytes);
                    jsonw_ku64(&w, "high_bytes", e.terms[t].high_bytes);
                    jsonw_kstring(&w, "outside", outside_text(term_outside(&e.terms[t], run->hook_terms[i].bytes)));
                } else {
                    jsonw_knull(&w, "estimate_bytes");
                    jsonw_knull(&w, "low_bytes");
                    jsonw_knull(&w, "high_bytes");
                    jsonw_knull(&w, "outside");
                }
                jsonw_object_end(&w);
            }
            jsonw_array_end(&w);
            jsonw_ku64(&w, "outside_count", (uint64_t)n_outside);
            jsonw_kdouble(&w, "recommended_mem_fraction_static", full.budget.recommended_mem_fraction_static, 3);
            jsonw_object_end(&w);
        } else {
            jsonw_null(&w);
        }
        jsonw_kstring(&w, "estimate_missing", estimated ? NULL : why);
        jsonw_key(&w, "next");
        if (solved && sol.found) {
            jsonw_object_begin(&w);
            jsonw_ku64(&w, "cuda_graph_max_bs", (uint64_t)sol.value);
            jsonw_kdouble(&w, "mem_fraction_static", sol.mem_fraction_static, 3);
            jsonw_kstring(&w, "limit", sol.limit_key);
            jsonw_kbool(&w, "beyond_range", sol.beyond_range);
            jsonw_object_end(&w);
        } else {
            jsonw_null(&w);
        }
        jsonw_kstring(&w, "next_missing", solved && sol.found ? NULL : estimated ? sol.reason : why);
        jsonw_object_end(&w);
        fputc('\n', stdout);
        goto out;
    }

    /* table */
    char gpu[ENGINE_NAME_MAX + 16], layout[64];
    cli_gpu_text(sum->gpu, sum->gpu_inferred, gpu, sizeof gpu);
    cli_run_layout_text(sum, layout, sizeof layout);
    cli_shown_line("check %s:%u-%u (run %u of %u) · %s · %s · %s\n", source, run->first_line, run->last_line, c.index,
                   c.n_runs, sum->model[0] ? sum->model : "model ?", gpu, layout);
    printf("knobs   ");
    char buf[ENGINE_MAX_BUCKETS * 6];
    for (size_t i = 0; i < sizeof shown_knobs / sizeof shown_knobs[0]; i++) {
        engine_knob_id k = shown_knobs[i];
        if (r.origin[k])
            engine_knob_text(&r.values, NULL, k, KNOB_TEXT_DISPLAY, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "?");
        printf(" %s %s%s%s%s", engine_knobs[k].name, buf, r.origin[k] ? " (" : "", engine_origin_name(r.origin[k]),
               r.origin[k] ? ")" : "");
    }
    printf("\n");
    if (r.origin[KNOB_BUCKETS]) {
        engine_knob_text(&r.values, NULL, KNOB_BUCKETS, KNOB_TEXT_DISPLAY, buf, sizeof buf);
        printf("buckets  %u (%s): %s\n", r.values.knobs.n_buckets, engine_origin_name(r.origin[KNOB_BUCKETS]), buf);
    }
    if (calibrate)
        printf("stored%s\n", calibrated_now ? " and calibrated (above)" : "; calibration: nothing fitted (above)");
    printf("\n");
    if (!estimated) {
        printf("%-8s %12s   (no estimate: %s)\n", "layer", "measured GiB", why);
        for (int l = 0; l < L_N; l++) {
            char m[16] = "-";
            if (caplog_known(measured[l]))
                snprintf(m, sizeof m, "%.2f", measured[l]);
            printf("%-8s %12s\n", layer_keys[l], m);
        }
        printf("\nnext     no advice without an estimate\n");
        goto out;
    }
    printf("%-8s %12s %13s %19s   estimate: %s, %s coefficients\n", "layer", "measured GiB", "estimate GiB",
           "range GiB", d.name, has_cal ? "calibrated" : "preset");
    for (int l = 0; l < L_N; l++) {
        const layer_check *lc = &layers[l];
        char m[16] = "-", range[48];
        if (caplog_known(lc->measured_gib))
            snprintf(m, sizeof m, "%.2f", lc->measured_gib);
        if (lc->high == UINT64_MAX)
            snprintf(range, sizeof range, "[%.3f, -]", (double)lc->low / (double)ENGINE_GIB);
        else
            snprintf(range, sizeof range, "[%.3f, %.3f]", (double)lc->low / (double)ENGINE_GIB,
                     (double)lc->high / (double)ENGINE_GIB);
        printf("%-8s %12s %13.3f %19s%s%s\n", layer_keys[l], m, (double)lc->bytes / (double)ENGINE_GIB, range,
               lc->outside ? "   OUTSIDE: measured " : "", lc->outside ? outside_text(lc->outside) : "");
    }
    if (run->n_hook_terms) {
        printf("\n%-18s %12s %13s %19s   (the capture hook's snapshot of the largest bucket)\n", "term", "measured GiB",
               "estimate GiB", "range GiB");
        for (uint32_t i = 0; i < run->n_hook_terms; i++) {
            int t = term_index(run->hook_terms[i].term);
            double m = (double)run->hook_terms[i].bytes / (double)ENGINE_GIB;
            if (t < 0 || !e.terms[t].known) {
                cli_shown_line("%-18s %12.3f %13s %19s\n", run->hook_terms[i].term, m, "-", "-");
                continue;
            }
            char range[48];
            snprintf(range, sizeof range, "[%.3f, %.3f]", (double)e.terms[t].low_bytes / (double)ENGINE_GIB,
                     (double)e.terms[t].high_bytes / (double)ENGINE_GIB);
            int out = term_outside(&e.terms[t], run->hook_terms[i].bytes);
            cli_shown_line("%-18s %12.3f %13.3f %19s%s%s\n", run->hook_terms[i].term, m,
                           (double)e.terms[t].bytes / (double)ENGINE_GIB, range, out ? "   OUTSIDE: measured " : "",
                           out ? outside_text(out) : "");
        }
        printf("\n");
    }
    if (n_outside)
        printf("%d layer%s outside %s range: cgplan check --calibrate fits the pool to this log\n", n_outside,
               n_outside == 1 ? "" : "s", n_outside == 1 ? "its" : "their");
    else
        printf("every measured layer within its range\n");
    printf("calibration: %s\n", excluded ? excluded : "usable");
    printf("\n");
    printf("at the logged max_bs the recommended --mem-fraction-static is %.3f",
           full.budget.recommended_mem_fraction_static);
    if (r.origin[KNOB_MEM_FRACTION])
        printf(" (the log ran %.3f)", r.values.knobs.mem_fraction_static);
    printf("\n");
    if (solved && sol.found)
        printf("next     --cuda-graph-max-bs %u --mem-fraction-static %.3f%s (stops at: %s)\n", (unsigned)sol.value,
               sol.mem_fraction_static, sol.beyond_range ? " (the knob's top fits)" : "",
               sol.limit_key ? sol.limit_key : "-");
    else
        printf("next     no max_bs fits: %s\n", solved ? sol.reason : "the engine does not solve max_bs here");
out:
    free(c.run);
    preset_catalog_free(cat);
    return rc;
}
