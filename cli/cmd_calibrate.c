/* cmd_calibrate.c — `cgplan calibrate`: fit the estimator's non-exact terms from the stored runs,
 * one pool per (model, GPU, SGLang release); show each value with its runs, residuals and the
 * layouts pooled; store what was fitted so `estimate` uses it (terms marked calibrated).
 * `calibrate list` shows the stored calibrations, `--reset [MODEL GPU [RELEASE]]` removes them,
 * `--dry-run` fits and shows without storing. One pool's failure does not fail the others. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "jsonw.h"
#include "store_glue.h"

#define MAX_RUNS 4096
#define MAX_POOLS 64

static double bytes_or_nan(double gib) { return isfinite(gib) ? gib * (double)ENGINE_GIB : NAN; }
static double gib(double bytes) { return bytes / (double)ENGINE_GIB; }

typedef struct {
    char model[ENGINE_NAME_MAX];
    char gpu[ENGINE_NAME_MAX];
    char release[ENGINE_RELEASE_TEXT_MAX];
    uint64_t current[COEF_COUNT]; /* the model's (preset's) values */
    bool current_known[COEF_COUNT];
    int n;
    calib_point points[CALIB_MAX_POINTS];
} pool;

typedef struct {
    int64_t run;
    char reason[ENGINE_TEXT_MAX * 2];
} skipped_run;

typedef struct {
    pool pools[MAX_POOLS];
    int n_pools;
    skipped_run skipped[MAX_RUNS];
    int n_skipped;
} work;

static void skip(work *w, int64_t run, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void skip(work *w, int64_t run, const char *fmt, ...)
{
    if (w->n_skipped >= MAX_RUNS)
        return;
    w->skipped[w->n_skipped].run = run;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->skipped[w->n_skipped++].reason, sizeof w->skipped[0].reason, fmt, ap);
    va_end(ap);
}

static void print_value(FILE *out, int param, double v, bool known)
{
    if (!known || !isfinite(v))
        fprintf(out, "%13s", "-");
    else if (param == COEF_LAZY_BYTES || param == COEF_DRAFT_BASE_BYTES || param == CALIB_STATIC)
        fprintf(out, "%9.3f GiB", v / (double)ENGINE_GIB);
    else if (param == COEF_OUT_BYTES_PER_ROW)
        fprintf(out, "%9.1f KiB", v / 1024.0);
    else
        fprintf(out, "%9.2f MiB", v / (double)ENGINE_MIB);
}

static void print_runs(FILE *out, const int64_t *runs, int n, const char *sep)
{
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%lld", i ? sep : "", (long long)runs[i]);
}

/* ---- Pools ---- */

/* Adds stored run S to its pool (or says why it cannot enter one). ONLY: the pool --preset named. */
static void add_run(work *w, store *st, const preset_catalog *cat, const store_run_summary *s, const pool *only)
{
    static store_run_detail detail;
    static engine_deployment d;
    static engine_estimate e;
    char err[ENGINE_TEXT_MAX * 2];
    const char *why_not = store_run_calibration_exclusion(s);
    if (why_not) {
        skip(w, s->id, "%s", why_not);
        return;
    }
    if (only && (strcmp(s->model, only->model) != 0 || strcmp(s->gpu, only->gpu) != 0))
        return;
    if (store_get_run(st, s->id, &detail, err, sizeof err) != 0 ||
        cli_run_deployment(cat, &detail, &d, err, sizeof err) != 0) {
        skip(w, s->id, "%s", err);
        return;
    }
    char release[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(&d.knobs.sglang, release, sizeof release);
    if (only && strcmp(release, only->release) != 0)
        return;
    pool *p = NULL;
    for (int i = 0; i < w->n_pools && !p; i++)
        if (!strcmp(w->pools[i].model, s->model) && !strcmp(w->pools[i].gpu, s->gpu) &&
            !strcmp(w->pools[i].release, release))
            p = &w->pools[i];
    if (!p) {
        if (w->n_pools >= MAX_POOLS) {
            skip(w, s->id, "more than %d pools (model, GPU, release): calibrate them with --preset", MAX_POOLS);
            return;
        }
        p = &w->pools[w->n_pools++];
        memset(p, 0, sizeof *p);
        snprintf(p->model, sizeof p->model, "%s", s->model);
        snprintf(p->gpu, sizeof p->gpu, "%s", s->gpu);
        snprintf(p->release, sizeof p->release, "%s", release);
        for (int c = 0; c < COEF_COUNT; c++) {
            p->current[c] = d.model.coef[c];
            p->current_known[c] = !d.model.coef_missing[c];
        }
    }
    if (p->n >= CALIB_MAX_POINTS) {
        skip(w, s->id, "its pool has more than %d runs: the newest are used", CALIB_MAX_POINTS);
        return;
    }
    engine_estimate_terms(&d, NULL, &e);
    calib_point *q = &p->points[p->n++];
    memset(q, 0, sizeof *q);
    q->run_id = s->id;
    calib_point_from_estimate(&d, &e, q);
    q->static_bytes = bytes_or_nan(s->static_gib);
    q->largest_bytes = bytes_or_nan(s->largest_gib);
    q->buckets_bytes = bytes_or_nan(s->buckets_gib);
    q->target_bytes = bytes_or_nan(s->target_total_gib);
    q->draft_bytes = bytes_or_nan(s->draft_gib);
}

/* ---- One pool's report ---- */

static void write_report(FILE *out, const pool *p, const calib_result *r, bool stored)
{
    fprintf(out, "calibration of %s on %s (sglang %s) from %d run%s (", p->model, p->gpu, p->release, p->n,
            p->n == 1 ? "" : "s");
    for (int i = 0; i < p->n; i++)
        fprintf(out, "%s%lld", i ? ", " : "", (long long)p->points[i].run_id);
    fprintf(out, ")\n");
    if (r->mixed_layouts) {
        fprintf(out, "pooled %d layouts:", r->n_layouts);
        for (int i = 0; i < r->n_layouts; i++)
            fprintf(out, "%s %s", i ? "," : "", r->layouts[i]);
        fprintf(out, " — their exact terms (DeepEP, masked GEMM, static buffers) are subtracted, but a slope\n"
                     "across layouts is less safe than two launches that differ only in max_bs\n");
    } else if (r->n_layouts) {
        fprintf(out, "one layout: %s\n", r->layouts[0]);
    }
    if (r->n_pair_runs >= 2) {
        fprintf(out, "runs ");
        print_runs(out, r->pair_runs, r->n_pair_runs, ", ");
        fprintf(out, " differ only in max_bs: the article's method 2, the cleanest slope%s\n",
                r->mixed_layouts ? " (the slopes come from them alone)" : "");
    }
    fprintf(out, "\n%-20s %13s %13s  %-8s %-10s %s\n", "parameter", "before", "after", "fit", "runs", "note");
    for (int c = 0; c < CALIB_N_PARAMS; c++) {
        const calib_coef *k = &r->coef[c];
        fprintf(out, "%-20s ", calib_param_names[c]);
        print_value(out, c, (double)k->current, k->current_known);
        fputs(" ", out);
        print_value(out, c, (double)k->value, k->stored || k->current_known);
        char runs[64] = "-";
        size_t used = 0;
        for (int i = 0; i < k->n_runs && used + 24 < sizeof runs; i++)
            used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)k->runs[i]);
        fprintf(out, "  %-8s %-10s %s\n", calib_fit_names[k->kind], runs, k->note);
    }
    fprintf(out, "\nresiduals, measured - fitted (GiB; leave-one-out with three runs or more)\n");
    fprintf(out, "%6s  %-16s %8s %8s %8s %8s %8s %7s %9s\n", "run", "layout", "static", "largest", "buckets", "draft",
            "total", "total%", "loo total");
    for (int i = 0; i < r->n_points; i++) {
        const calib_residual *res = &r->residuals[i];
        char cells[7][16];
        double v[7] = {gib(res->static_layer), gib(res->largest), gib(res->buckets), gib(res->draft), gib(res->total),
                       res->total_pct, gib(res->loo_total)};
        for (int k = 0; k < 7; k++) {
            if (!isfinite(v[k]))
                snprintf(cells[k], sizeof cells[k], "-");
            else
                snprintf(cells[k], sizeof cells[k], k == 5 ? "%+.1f%%" : "%+.3f", v[k]);
        }
        fprintf(out, "%6lld  %-16s %8s %8s %8s %8s %8s %7s %9s%s\n", (long long)res->run_id, p->points[i].layout,
                cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6],
                res->used ? "" : "  (measures nothing the fit can use)");
    }
    if (isfinite(r->worst_total_pct) && r->n_fitted > 0)
        fprintf(out, "fitted runs' totals within %.1f%% of what they measured%s\n", r->worst_total_pct,
                r->worst_total_pct > 3.0 ? " — more than 3%: the estimator's terms miss something these runs hold" : "");
    if (r->n_fitted == 0)
        fprintf(out, "nothing fitted, nothing stored: %s\n", r->advice);
    else if (!stored)
        fprintf(out, "dry run: nothing stored\n");
}

static void write_json(jsonw *w, const pool *p, const calib_result *r, bool stored)
{
    jsonw_object_begin(w);
    jsonw_kstring(w, "model", p->model);
    jsonw_kstring(w, "gpu", p->gpu);
    jsonw_kstring(w, "sglang", p->release);
    jsonw_kbool(w, "stored", stored);
    jsonw_key(w, "runs");
    jsonw_array_begin(w);
    for (int i = 0; i < p->n; i++)
        jsonw_i64(w, p->points[i].run_id);
    jsonw_array_end(w);
    jsonw_key(w, "layouts");
    jsonw_array_begin(w);
    for (int i = 0; i < r->n_layouts; i++)
        jsonw_string(w, r->layouts[i]);
    jsonw_array_end(w);
    jsonw_kbool(w, "mixed_layouts", r->mixed_layouts);
    jsonw_key(w, "method2_runs");
    jsonw_array_begin(w);
    for (int i = 0; i < r->n_pair_runs; i++)
        jsonw_i64(w, r->pair_runs[i]);
    jsonw_array_end(w);
    jsonw_key(w, "coefficients");
    jsonw_object_begin(w);
    for (int c = 0; c < CALIB_N_PARAMS; c++) {
        const calib_coef *k = &r->coef[c];
        jsonw_key(w, calib_param_names[c]);
        jsonw_object_begin(w);
        if (k->current_known)
            jsonw_ku64(w, "before_bytes", k->current);
        else
            jsonw_knull(w, "before_bytes");
        if (k->stored || k->current_known)
            jsonw_ku64(w, "after_bytes", k->value);
        else
            jsonw_knull(w, "after_bytes");
        jsonw_kdouble(w, "fitted_bytes", k->fitted, 0);
        jsonw_kstring(w, "fit", calib_fit_names[k->kind]);
        jsonw_kbool(w, "stored", k->stored);
        jsonw_kbool(w, "method2", k->method2);
        jsonw_key(w, "runs");
        jsonw_array_begin(w);
        for (int i = 0; i < k->n_runs; i++)
            jsonw_i64(w, k->runs[i]);
        jsonw_array_end(w);
        jsonw_kstring(w, "note", k->note);
        jsonw_object_end(w);
    }
    jsonw_object_end(w);
    jsonw_key(w, "residuals");
    jsonw_array_begin(w);
    for (int i = 0; i < r->n_points; i++) {
        const calib_residual *res = &r->residuals[i];
        jsonw_object_begin(w);
        jsonw_ki64(w, "run", res->run_id);
        jsonw_kstring(w, "layout", p->points[i].layout);
        jsonw_kbool(w, "used", res->used);
        jsonw_kdouble(w, "static_bytes", res->static_layer, 0);
        jsonw_kdouble(w, "largest_bytes", res->largest, 0);
        jsonw_kdouble(w, "buckets_bytes", res->buckets, 0);
        jsonw_kdouble(w, "draft_bytes", res->draft, 0);
        jsonw_kdouble(w, "total_bytes", res->total, 0);
        jsonw_kdouble(w, "total_percent", res->total_pct, 2);
        jsonw_kdouble(w, "loo_total_bytes", res->loo_total, 0);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_kdouble(w, "worst_total_percent", r->worst_total_pct, 2);
    jsonw_kstring(w, "advice", r->n_fitted ? NULL : r->advice);
    jsonw_object_end(w);
}

/* Fits, reports and (unless a dry run) stores one pool. Returns whether something was fitted. */
static bool calibrate_pool(const cli_opts *o, store *st, const pool *p, jsonw *w, bool *store_failed)
{
    static calib_result r;
    calib_fit(p->points, p->n, p->current, p->current_known, &r);
    bool fitted = r.n_fitted > 0, stored = false;
    static char report[32768];
    FILE *mem = fmemopen(report, sizeof report, "w");
    if (fitted && !o->dry_run) {
        engine_calibration cal;
        calib_to_calibration(&r, p->points, p->n, &cal);
        if (mem) {
            write_report(mem, p, &r, true);
            fclose(mem);
            mem = NULL;
        }
        char err[4096 + 512];
        if (store_save_calibration(st, p->model, p->gpu, p->release, &cal, 0, report, err, sizeof err) != 0) {
            cli_error("calibrate: %s", err);
            *store_failed = true;
        } else {
            stored = true;
        }
    }
    if (mem)
        fclose(mem);
    if (o->format == FORMAT_JSON) {
        write_json(w, p, &r, stored);
    } else {
        write_report(stdout, p, &r, stored);
        if (stored)
            printf("stored: cgplan estimate now uses these for %s on %s, sglang %s (terms marked calibrated; "
                   "cgplan calibrate --reset %s %s %s undoes it)\n",
                   p->model, p->gpu, p->release, p->model, p->gpu, p->release);
        printf("\n");
    }
    if (!fitted)
        cli_error("calibrate: %s on %s (sglang %s): nothing fitted, nothing stored: %s", p->model, p->gpu, p->release,
                  r.advice);
    return fitted;
}

/* ---- list and --reset ---- */

typedef struct {
    const cli_opts *o;
    jsonw *w;
    int n;
} list_ctx;

static void list_one(const store_calibration_info *c, void *ctx_)
{
    list_ctx *l = ctx_;
    l->n++;
    if (l->o->format == FORMAT_JSON) {
        jsonw *w = l->w;
        jsonw_object_begin(w);
        jsonw_ki64(w, "id", c->id);
        jsonw_kstring(w, "model", c->model);
        jsonw_kstring(w, "gpu", c->gpu);
        jsonw_kstring(w, "sglang", c->release[0] ? c->release : NULL);
        jsonw_kstring(w, "created_at", c->created_at);
        jsonw_kbool(w, "current", c->current);
        jsonw_key(w, "values");
        jsonw_object_begin(w);
        for (int k = 0; k < COEF_COUNT; k++)
            if (c->cal.has[k])
                jsonw_ku64(w, engine_coef_names[k], c->cal.value[k]);
        if (c->cal.has_static)
            jsonw_ku64(w, calib_param_names[CALIB_STATIC], c->cal.static_bytes);
        jsonw_object_end(w);
        jsonw_key(w, "runs");
        jsonw_array_begin(w);
        for (int i = 0; i < c->cal.n_runs; i++)
            jsonw_i64(w, c->cal.runs[i]);
        jsonw_array_end(w);
        jsonw_object_end(w);
        return;
    }
    char vals[512] = "";
    size_t used = 0;
    for (int k = 0; k <= COEF_COUNT && used + 40 < sizeof vals; k++) {
        bool has = k < COEF_COUNT ? c->cal.has[k] : c->cal.has_static;
        if (has)
            used += (size_t)snprintf(vals + used, sizeof vals - used, "%s%s", used ? " " : "", calib_param_names[k]);
    }
    char runs[256] = "";
    used = 0;
    for (int i = 0; i < c->cal.n_runs && used + 24 < sizeof runs; i++)
        used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)c->cal.runs[i]);
    printf("%5lld  %-12s %-8s %-18s %-20s %-3s %-12s %s\n", (long long)c->id, c->model, c->gpu,
           c->release[0] ? c->release : "(any)", c->created_at, c->current ? "yes" : "no", runs, vals);
}

static int calibrate_list(const cli_opts *o, store *st)
{
    char err[4096 + 512];
    jsonw w;
    list_ctx l = {o, &w, 0};
    if (o->format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "calibrations");
        jsonw_array_begin(&w);
    } else {
        printf("%5s  %-12s %-8s %-18s %-20s %-3s %-12s %s\n", "id", "model", "gpu", "sglang", "created", "use", "runs",
               "fitted");
    }
    int rc = store_each_calibration(st, list_one, &l, err, sizeof err);
    if (o->format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    } else if (l.n == 0) {
        printf("(no calibration stored in %s: cgplan calibrate fits one from the stored runs)\n", store_path(st));
    }
    if (rc != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    return EXIT_OK;
}

static int calibrate_reset(const cli_opts *o, store *st)
{
    const char *model = o->n_args > 0 ? o->args[0] : NULL, *gpu = o->n_args > 1 ? o->args[1] : NULL,
               *release = o->n_args > 2 ? o->args[2] : NULL;
    char err[4096 + 512], canon[ENGINE_RELEASE_TEXT_MAX];
    if (release) { /* as the pools name it: "v0.5.3" and "0.5.3" are one release */
        engine_release rel;
        if (engine_release_parse(release, &rel, err, sizeof err) != 0) {
            cli_error("calibrate --reset: release '%s': %s", release, err);
            return EXIT_USAGE;
        }
        engine_release_text(&rel, canon, sizeof canon);
        release = canon;
    }
    int n = store_delete_calibrations(st, model, gpu, release, err, sizeof err);
    if (n < 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    char what[256];
    if (model)
        snprintf(what, sizeof what, "%s on %s%s%s", model, gpu, release ? ", sglang " : "", release ? release : "");
    else
        snprintf(what, sizeof what, "every model and GPU");
    if (n == 0) {
        cli_error("calibrate --reset: no calibration of %s in %s (cgplan calibrate list shows them)", what,
                  store_path(st));
        return EXIT_WORK;
    }
    if (o->format == FORMAT_JSON)
        printf("{\"removed\": %d}\n", n);
    else
        printf("removed %d calibration%s of %s: cgplan estimate uses the presets' coefficients again\n", n,
               n == 1 ? "" : "s", what);
    return EXIT_OK;
}

/* ---- The command ---- */

int cmd_calibrate(int argc, char **argv)
{
    /* --reset is this command's alone: taken out before the shared parser sees it. */
    bool reset = false;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        cli_error("calibrate: out of memory");
        return EXIT_WORK;
    }
    int n_args = 0;
    for (int i = 0; i < argc; i++) {
        if (i >= 2 && strcmp(argv[i], "--reset") == 0)
            reset = true;
        else
            args[n_args++] = argv[i];
    }
    cli_opts o;
    int rc = cli_parse(n_args, args, 2, "calibrate", OPT_PRESET | OPT_MODEL | OPT_SET | OPT_DB | OPT_FORMAT | OPT_DRY_RUN,
                       &o);
    free(args);
    if (rc)
        return rc;
    if (o.format == FORMAT_CSV) {
        cli_error("calibrate: --format csv is not offered (table or json)");
        return EXIT_USAGE;
    }
    bool listing = !reset && o.n_args == 1 && strcmp(o.args[0], "list") == 0;
    if (reset && o.n_args != 0 && o.n_args != 2 && o.n_args != 3) {
        cli_error("calibrate --reset: expected nothing, MODEL GPU, or MODEL GPU RELEASE");
        return EXIT_USAGE;
    }
    if (!reset && !listing && o.n_args) {
        cli_error("calibrate: unexpected argument '%s' (calibrate, calibrate list, or calibrate --reset [MODEL GPU "
                  "[RELEASE]])",
                  o.args[0]);
        return EXIT_USAGE;
    }
    if ((reset || listing) && (o.preset || o.model || o.dry_run)) {
        cli_error("calibrate %s: --preset, --model and --dry-run belong to a fit", reset ? "--reset" : "list");
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    static work w;
    memset(&w, 0, sizeof w);
    static pool only;
    bool restrict_pool = o.preset || o.model;
    if (restrict_pool) {
        static engine_deployment d;
        engine_warnings adj = {0};
        rc = cli_load_deployment(&o, cat, NULL, &d, &adj);
        if (rc) {
            preset_catalog_free(cat);
            return rc;
        }
        memset(&only, 0, sizeof only);
        snprintf(only.model, sizeof only.model, "%s", d.model.name);
        snprintf(only.gpu, sizeof only.gpu, "%s", d.gpu.name);
        engine_release_text(&d.knobs.sglang, only.release, sizeof only.release);
    }
    store *st = cli_open_store(&o, listing ? CLI_STORE_WRITE_IF_POSSIBLE : CLI_STORE_READ_WRITE);
    if (!st) {
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    if (listing || reset) {
        rc = listing ? calibrate_list(&o, st) : calibrate_reset(&o, st);
        store_close(st);
        preset_catalog_free(cat);
        return rc;
    }

    char err[ENGINE_TEXT_MAX * 2];
    static store_run_summary runs[MAX_RUNS];
    size_t n_runs = 0;
    if (store_list_runs(st, runs, MAX_RUNS, &n_runs, err, sizeof err) != 0) {
        cli_error("%s", err);
        store_close(st);
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    for (size_t i = 0; i < n_runs; i++)
        add_run(&w, st, cat, &runs[i], restrict_pool ? &only : NULL);
    if (restrict_pool && w.n_pools == 0) {
        /* say so as a pool of its own: nothing fitted, and what data would help */
        w.pools[0] = only;
        w.n_pools = 1;
    }

    jsonw jw;
    if (o.format == FORMAT_JSON) {
        jsonw_init(&jw, stdout, true);
        jsonw_object_begin(&jw);
        jsonw_kbool(&jw, "dry_run", o.dry_run);
        jsonw_key(&jw, "calibrations");
        jsonw_array_begin(&jw);
    }
    int n_fitted = 0;
    bool store_failed = false;
    for (int p = 0; p < w.n_pools; p++)
        n_fitted += calibrate_pool(&o, st, &w.pools[p], &jw, &store_failed);
    if (o.format == FORMAT_JSON) {
        jsonw_array_end(&jw);
        jsonw_key(&jw, "skipped");
        jsonw_array_begin(&jw);
        for (int i = 0; i < w.n_skipped; i++) {
            jsonw_object_begin(&jw);
            jsonw_ki64(&jw, "run", w.skipped[i].run);
            jsonw_kstring(&jw, "reason", w.skipped[i].reason);
            jsonw_object_end(&jw);
        }
        jsonw_array_end(&jw);
        jsonw_object_end(&jw);
        fputc('\n', stdout);
    } else {
        for (int i = 0; i < w.n_skipped; i++)
            printf("skipped run %lld: %s\n", (long long)w.skipped[i].run, w.skipped[i].reason);
    }
    if (w.n_pools == 0)
        cli_error("calibrate: %s holds no run that can be calibrated (%s)", store_path(st),
                  w.n_skipped ? "the skipped runs say why" : "ingest start-up logs first");
    store_close(st);
    preset_catalog_free(cat);
    /* One pool's failure is reported and does not fail the others. */
    return n_fitted > 0 && !store_failed ? EXIT_OK : EXIT_WORK;
}
