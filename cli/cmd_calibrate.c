/* cmd_calibrate.c — `cgplan calibrate`: fit the coefficients of MODEL.md from the stored runs of
 * a model and GPU, show each with its runs and residuals, and store the result so `estimate`
 * uses it (terms marked calibrated with the run ids). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "store_glue.h"
#include "jsonw.h"

#define MAX_RUNS 4096

static double bytes_or_nan(double gib) { return isfinite(gib) ? gib * (double)ENGINE_GIB : NAN; }

typedef struct {
    char model[ENGINE_NAME_MAX];
    char gpu[ENGINE_NAME_MAX];
} pool_key;

typedef struct {
    int64_t run;
    char reason[ENGINE_TEXT_MAX];
} exclusion;

static void print_coef(FILE *out, engine_coef_id c, uint64_t v)
{
    if (c == COEF_LAZY_BYTES || c == COEF_DRAFT_BASE_BYTES)
        fprintf(out, "%9.3f GiB", (double)v / (double)ENGINE_GIB);
    else if (c == COEF_OUT_BYTES_PER_ROW)
        fprintf(out, "%9.1f KiB", (double)v / 1024.0);
    else
        fprintf(out, "%9.2f MiB", (double)v / (double)ENGINE_MIB);
}

static double gib(double bytes) { return bytes / (double)ENGINE_GIB; }

/* Calibrates one (model, GPU) pool. Returns EXIT_OK or EXIT_WORK. */
static int calibrate_pool(const cli_opts *o, store *st, const preset_catalog *cat, const pool_key *key,
                          const store_run_summary *runs, size_t n_runs, jsonw *w)
{
    static calib_point points[CALIB_MAX_POINTS];
    static exclusion excluded[MAX_RUNS];
    int n_points = 0, n_excluded = 0;
    uint64_t current[COEF_COUNT];
    engine_model model;
    char err[ENGINE_TEXT_MAX]; /* the size of an exclusion's reason */
    if (preset_load_model(cat, key->model, &model, err, sizeof err) != 0) {
        cli_error("calibrate: model '%s' has no preset: %s", key->model, err);
        return EXIT_WORK;
    }
    memcpy(current, model.coef, sizeof current);

    for (size_t i = 0; i < n_runs; i++) {
        const store_run_summary *s = &runs[i];
        if (strcmp(s->model, key->model) != 0)
            continue;
        const char *why_not = store_run_calibration_exclusion(s);
        if (why_not && n_excluded < MAX_RUNS) {
            excluded[n_excluded].run = s->id;
            snprintf(excluded[n_excluded++].reason, sizeof excluded[0].reason, "%s", why_not);
            continue;
        }
        if (strcmp(s->gpu, key->gpu) != 0)
            continue;
        static store_run_detail detail;
        static engine_deployment d;
        static engine_estimate e;
        if (store_get_run(st, s->id, &detail, err, sizeof err) != 0 ||
            cli_run_deployment(cat, &detail, &d, err, sizeof err) != 0) {
            if (n_excluded < MAX_RUNS) {
                excluded[n_excluded].run = s->id;
                snprintf(excluded[n_excluded++].reason, sizeof excluded[0].reason, "%s", err);
            }
            continue;
        }
        if (n_points >= CALIB_MAX_POINTS) {
            excluded[n_excluded].run = s->id;
            snprintf(excluded[n_excluded++].reason, sizeof excluded[0].reason, "more than %d runs: the newest are used",
                     CALIB_MAX_POINTS);
            continue;
        }
        engine_estimate_terms(&d, NULL, &e);
        calib_point *p = &points[n_points++];
        memset(p, 0, sizeof *p);
        p->run_id = s->id;
        engine_layout_name(&d.knobs, LAYOUT_NAME_COMPACT, p->layout, sizeof p->layout);
        p->static_bytes = bytes_or_nan(s->static_gib);
        p->largest_bytes = bytes_or_nan(s->largest_gib);
        p->buckets_bytes = bytes_or_nan(s->buckets_gib);
        p->draft_bytes = bytes_or_nan(s->draft_gib);
        p->static_predicted = (double)e.layer_bytes[LAYER_STATIC];
        p->moe_fixed_bytes = (double)(e.terms[TERM_DEEPEP].bytes + e.terms[TERM_MASKED_GEMM].bytes);
        p->attn_rows_scaled = d.model.heads ? (double)e.attn_rows * e.heads_per_gpu / d.model.heads : e.attn_rows;
        p->attn_rows = e.attn_rows;
        p->other_buckets = e.n_buckets ? e.n_buckets - 1 : 0;
        p->other_rows = (double)e.other_bucket_rows;
        p->speculative = d.knobs.mtp > 1;
    }

    if (n_points == 0) {
        cli_error("calibrate: no usable run of %s on %s in %s%s", key->model, key->gpu[0] ? key->gpu : "an unknown GPU",
                  "the store", n_excluded ? " (see the reasons above)" : " (ingest start-up logs first)");
        for (int i = 0; i < n_excluded; i++)
            cli_error("calibrate: run %lld left out: %s", (long long)excluded[i].run, excluded[i].reason);
        return EXIT_WORK;
    }
    static calib_result r;
    calib_fit(points, n_points, current, &r);
    engine_calibration cal;
    calib_to_calibration(&r, points, n_points, &cal);

    /* The report, stored with the calibration and printed. */
    static char report[16384];
    FILE *mem = fmemopen(report, sizeof report, "w");
    FILE *out = mem ? mem : stdout;
    fprintf(out, "calibration of %s on %s from %d run%s (", key->model, key->gpu, n_points, n_points == 1 ? "" : "s");
    for (int i = 0; i < n_points; i++)
        fprintf(out, "%s%lld", i ? ", " : "", (long long)points[i].run_id);
    fprintf(out, ")\n");
    if (r.mixed_layouts) {
        fprintf(out, "mixed %d layouts:", r.n_layouts);
        for (int i = 0; i < r.n_layouts; i++)
            fprintf(out, "%s %s", i ? "," : "", r.layouts[i]);
        fprintf(out, " — their fixed terms (DeepEP, masked GEMM, static) are subtracted exactly, but the article\n"
                     "warns that a slope across layouts is less safe than two launches that differ only in max_bs\n");
    } else {
        fprintf(out, "one layout: %s\n", r.layouts[0]);
    }
    fprintf(out, "\n%-20s %13s %13s  %s\n", "coefficient", "before", "after", "fit");
    for (int c = 0; c < COEF_COUNT; c++) {
        fprintf(out, "%-20s ", engine_coef_names[c]);
        print_coef(out, (engine_coef_id)c, r.coef[c].current);
        fputs(" ", out);
        print_coef(out, (engine_coef_id)c, r.coef[c].value);
        fprintf(out, "  %s: %s\n", calib_fit_names[r.coef[c].kind], r.coef[c].note);
    }
    fprintf(out, "\nresiduals, measured - fitted (GiB; static is not fitted: measured - predicted)\n");
    fprintf(out, "%6s  %-16s %8s %8s %8s %8s\n", "run", "layout", "static", "largest", "buckets", "draft");
    for (int i = 0; i < n_points; i++) {
        const calib_residual *res = &r.residuals[i];
        fprintf(out, "%6lld  %-16s %8.3f %8.3f %8.3f %8.3f\n", (long long)res->run_id, points[i].layout,
                gib(res->static_layer), gib(res->largest), gib(res->buckets), gib(res->draft));
    }
    for (int i = 0; i < n_excluded; i++)
        fprintf(out, "run %lld left out: %s\n", (long long)excluded[i].run, excluded[i].reason);
    if (mem)
        fclose(mem);

    if (store_save_calibration(st, key->model, key->gpu, &cal, report, err, sizeof err) != 0) {
        cli_error("calibrate: %s", err);
        return EXIT_WORK;
    }
    if (o->format == FORMAT_JSON) {
        jsonw_object_begin(w);
        jsonw_kstring(w, "model", key->model);
        jsonw_kstring(w, "gpu", key->gpu);
        jsonw_key(w, "runs");
        jsonw_array_begin(w);
        for (int i = 0; i < n_points; i++)
            jsonw_i64(w, points[i].run_id);
        jsonw_array_end(w);
        jsonw_key(w, "layouts");
        jsonw_array_begin(w);
        for (int i = 0; i < r.n_layouts; i++)
            jsonw_string(w, r.layouts[i]);
        jsonw_array_end(w);
        jsonw_kbool(w, "mixed_layouts", r.mixed_layouts);
        jsonw_key(w, "coefficients");
        jsonw_object_begin(w);
        for (int c = 0; c < COEF_COUNT; c++) {
            jsonw_key(w, engine_coef_names[c]);
            jsonw_object_begin(w);
            jsonw_ku64(w, "before_bytes", r.coef[c].current);
            jsonw_ku64(w, "after_bytes", r.coef[c].value);
            jsonw_kstring(w, "fit", calib_fit_names[r.coef[c].kind]);
            jsonw_kstring(w, "note", r.coef[c].note);
            jsonw_object_end(w);
        }
        jsonw_object_end(w);
        jsonw_key(w, "residuals");
        jsonw_array_begin(w);
        for (int i = 0; i < n_points; i++) {
            const calib_residual *res = &r.residuals[i];
            jsonw_object_begin(w);
            jsonw_ki64(w, "run", res->run_id);
            jsonw_kstring(w, "layout", points[i].layout);
            jsonw_kdouble(w, "static_bytes", res->static_layer, 0);
            jsonw_kdouble(w, "largest_bytes", res->largest, 0);
            jsonw_kdouble(w, "buckets_bytes", res->buckets, 0);
            jsonw_kdouble(w, "draft_bytes", res->draft, 0);
            jsonw_object_end(w);
        }
        jsonw_array_end(w);
        jsonw_key(w, "excluded");
        jsonw_array_begin(w);
        for (int i = 0; i < n_excluded; i++) {
            jsonw_object_begin(w);
            jsonw_ki64(w, "run", excluded[i].run);
            jsonw_kstring(w, "reason", excluded[i].reason);
            jsonw_object_end(w);
        }
        jsonw_array_end(w);
        jsonw_object_end(w);
    } else {
        fputs(report, stdout);
        printf("stored: cgplan estimate now uses these for %s on %s (terms marked calibrated)\n\n", key->model,
               key->gpu);
    }
    return EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "calibrate", OPT_PRESET | OPT_DB | OPT_FORMAT, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("calibrate: unexpected argument '%s'", o.args[0]);
        return EXIT_USAGE;
    }
    if (o.format == FORMAT_CSV) {
        cli_error("calibrate: --format csv is not offered (table or json)");
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    pool_key only = {{0}, {0}};
    if (o.preset) {
        static engine_deployment d;
        engine_warnings adj = {0};
        rc = cli_load_deployment(&o, cat, NULL, &d, &adj);
        if (rc) {
            preset_catalog_free(cat);
            return rc;
        }
        snprintf(only.model, sizeof only.model, "%s", d.model.name);
        snprintf(only.gpu, sizeof only.gpu, "%s", d.gpu.name);
    }
    store *st = cli_open_store(&o, CLI_STORE_READ_WRITE);
    if (!st) {
        preset_catalog_free(cat);
        return EXIT_WORK;
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
    /* The pools: the --preset's (model, GPU), or every pair the store holds. */
    static pool_key pools[MAX_RUNS];
    size_t n_pools = 0;
    if (o.preset)
        pools[n_pools++] = only;
    else
        for (size_t i = 0; i < n_runs; i++) {
            if (!runs[i].gpu[0])
                continue;
            bool seen = false;
            for (size_t p = 0; p < n_pools; p++)
                seen |= !strcmp(pools[p].model, runs[i].model) && !strcmp(pools[p].gpu, runs[i].gpu);
            if (!seen) {
                snprintf(pools[n_pools].model, sizeof pools[0].model, "%s", runs[i].model);
                snprintf(pools[n_pools++].gpu, sizeof pools[0].gpu, "%s", runs[i].gpu);
            }
        }
    if (n_pools == 0) {
        cli_error("calibrate: %s holds no run with a known GPU (ingest start-up logs with --preset first)",
                  store_path(st));
        store_close(st);
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    jsonw w;
    if (o.format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "calibrations");
        jsonw_array_begin(&w);
    }
    rc = EXIT_OK;
    for (size_t p = 0; p < n_pools; p++)
        if (calibrate_pool(&o, st, cat, &pools[p], runs, n_runs, &w) != EXIT_OK)
            rc = EXIT_WORK;
    if (o.format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
    }
    store_close(st);
    preset_catalog_free(cat);
    return rc;
}
