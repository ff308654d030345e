/* cmd_calibrate.c — `cgplan calibrate`: fit the estimator's non-exact terms from the stored runs,
 * in two steps. First node_bytes per GPU (and per SGLang release where the runs separate them),
 * from any model's runs on it: the driver's cost per kernel node is the GPU's, so one model's log
 * improves every model there. Then per (model, GPU, SGLang release), with every term built from
 * its mechanism held fixed at that node_bytes: what the model's own runs show beyond them. Each
 * value is shown with its runs, residuals and the layouts pooled, and stored so `estimate` uses it
 * (terms marked calibrated). `calibrate list` shows the stored calibrations, `--reset [GPU |
 * MODEL GPU [RELEASE]]` removes them, `--dry-run` fits and shows without storing. One pool's
 * failure does not fail the others. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "jsonw.h"
#include "store_glue.h"
#include "text.h"

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
    uint64_t held_node_bytes; /* the node_bytes its runs' kernel nodes were held at */
    char held_source[ENGINE_TEXT_MAX];
    int n;
    calib_point points[CALIB_MAX_POINTS];
} pool;

typedef struct {
    int64_t run;
    char reason[ENGINE_TEXT_MAX * 2];
} skipped_run;

/* The runs of one GPU for its node_bytes (RELEASE "": every release they hold). */
typedef struct {
    char gpu[ENGINE_NAME_MAX];
    char release[ENGINE_RELEASE_TEXT_MAX];
    int n;
    calib_node_point points[CALIB_MAX_POINTS];
    char point_release[CALIB_MAX_POINTS][ENGINE_RELEASE_TEXT_MAX];
    int n_left; /* runs that give the fit nothing, and why */
    skipped_run left[CALIB_MAX_POINTS];
    engine_range before; /* what the GPU's estimates used: its preset's, else its arch's default */
    char before_source[ENGINE_TEXT_MAX];
    calib_node_result r;
    bool stored;
} node_pool;

typedef struct {
    node_pool nodes[MAX_POOLS];
    int n_nodes;
    pool pools[MAX_POOLS];
    int n_pools;
    skipped_run skipped[MAX_RUNS];
    int n_skipped;
} work;

/* Adds RUN with its reason to LIST (N of CAP used): a run a fit leaves out, said once. */
static void note_run(skipped_run *list, int *n, int cap, int64_t run, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static void note_run(skipped_run *list, int *n, int cap, int64_t run, const char *fmt, va_list ap)
{
    if (*n >= cap)
        return;
    list[*n].run = run;
    vsnprintf(list[(*n)++].reason, sizeof list[0].reason, fmt, ap);
}

static void skip(work *w, int64_t run, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void skip(work *w, int64_t run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_run(w->skipped, &w->n_skipped, MAX_RUNS, run, fmt, ap);
    va_end(ap);
}

/* A run the GPU's node_bytes fit leaves out, and why. */
static void leave_out(node_pool *p, int64_t run, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void leave_out(node_pool *p, int64_t run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_run(p->left, &p->n_left, CALIB_MAX_POINTS, run, fmt, ap);
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

static calib_measured measured_of(const store_run_summary *s)
{
    return (calib_measured){bytes_or_nan(s->static_gib), bytes_or_nan(s->largest_gib), bytes_or_nan(s->buckets_gib),
                            bytes_or_nan(s->target_total_gib), bytes_or_nan(s->draft_gib)};
}

static node_pool *find_node_pool(work *w, const char *gpu, const char *release)
{
    for (int i = 0; i < w->n_nodes; i++)
        if (!strcmp(w->nodes[i].gpu, gpu) && !strcmp(w->nodes[i].release, release))
            return &w->nodes[i];
    return NULL;
}

static node_pool *new_node_pool(work *w, const char *gpu, const char *release)
{
    if (w->n_nodes >= MAX_POOLS)
        return NULL;
    node_pool *p = &w->nodes[w->n_nodes++];
    memset(p, 0, sizeof *p);
    snprintf(p->gpu, sizeof p->gpu, "%s", gpu);
    snprintf(p->release, sizeof p->release, "%s", release);
    return p;
}

/* Adds stored run S to its GPU's node_bytes pool, estimated with every term from its mechanism
 * (a preset fit's coefficients cleared: they would replace the kernel nodes). A run that cannot
 * enter any pool is said so by add_run. ONLY_GPU: the GPU --preset named (NULL: every GPU). */
static void add_node_run(work *w, store *st, const preset_catalog *cat, const store_run_summary *s,
                         const char *only_gpu)
{
    static store_run_detail detail;
    static engine_deployment d;
    static engine_estimate e;
    char err[ENGINE_TEXT_MAX * 2];
    if (store_run_calibration_exclusion(s) || (only_gpu && strcmp(s->gpu, only_gpu) != 0))
        return;
    /* The seeded article runs are reconstructed from one model's figures: they keep their own
     * deployment fit, and a fresh store's calibrate must not turn them into every model's
     * node_bytes on that GPU (only the operator's logs do). */
    if (s->reconstructed)
        return;
    if (store_get_run(st, s->id, &detail, err, sizeof err) != 0 ||
        cli_run_deployment(cat, &detail, &d, err, sizeof err) != 0)
        return;
    for (int c = 0; c < COEF_COUNT; c++)
        d.model.coef_missing[c] = true;
    d.knobs.node_bytes_auto = true;
    node_pool *p = find_node_pool(w, s->gpu, "");
    if (!p && !(p = new_node_pool(w, s->gpu, "")))
        return;
    engine_estimate_terms(&d, NULL, &e);
    if (p->n == 0 && p->n_left == 0) {
        p->before = e.node_bytes_range;
        snprintf(p->before_source, sizeof p->before_source, "%s", e.node_bytes_source);
    }
    /* The nodes are counted per graph and GPU: a run that does not say how many graphs it
     * captured, or over how many GPUs, would be priced on the defaults' guesses. */
    bool graphs_known = detail.origin[KNOB_BUCKETS] != ORIGIN_UNKNOWN || detail.origin[KNOB_MAX_BS] != ORIGIN_UNKNOWN;
    if (!detail.preset[0] && (!graphs_known || detail.origin[KNOB_WORLD] == ORIGIN_UNKNOWN)) {
        leave_out(p, s->id, "its log does not say %s: ingest it again with --preset P, or --set tp=N --set max_bs=B",
                  graphs_known ? "over how many GPUs it ran (tp)" : "how many graphs it captured (max_bs, buckets)");
        return;
    }
    calib_measured m = measured_of(s);
    char why[ENGINE_TEXT_MAX];
    if (p->n >= CALIB_MAX_POINTS) {
        leave_out(p, s->id, "more than %d runs: the newest are used", CALIB_MAX_POINTS);
        return;
    }
    calib_node_point *q = &p->points[p->n];
    if (!calib_node_point_from_estimate(&d, &e, &m, q, why, sizeof why)) {
        leave_out(p, s->id, "%s", why);
        return;
    }
    q->run_id = s->id;
    engine_release_text(&d.knobs.sglang, p->point_release[p->n], sizeof p->point_release[0]);
    p->n++;
}

/* Fits every GPU's pool, then, where its runs hold more than one release, each release's own
 * (kept where it fits: the releases' drivers then separate). */
static void fit_node_pools(work *w)
{
    int n_gpus = w->n_nodes;
    for (int g = 0; g < n_gpus; g++) {
        node_pool *all = &w->nodes[g];
        calib_fit_node_bytes(all->points, all->n, &all->r);
        int first = w->n_nodes;
        for (int i = 0; i < all->n; i++) {
            const char *rel = all->point_release[i];
            bool other = false;
            for (int k = 0; k < all->n; k++)
                other |= strcmp(all->point_release[k], rel) != 0;
            node_pool *own = find_node_pool(w, all->gpu, rel);
            if (!other || (!own && !(own = new_node_pool(w, all->gpu, rel))))
                continue;
            own->before = all->before;
            snprintf(own->before_source, sizeof own->before_source, "%s", all->before_source);
            own->points[own->n] = all->points[i];
            snprintf(own->point_release[own->n++], sizeof own->point_release[0], "%s", rel);
        }
        for (int k = first; k < w->n_nodes; k++)
            calib_fit_node_bytes(w->nodes[k].points, w->nodes[k].n, &w->nodes[k].r);
        /* a release whose runs alone do not fit adds nothing to the pool over every release */
        int kept = first;
        for (int k = first; k < w->n_nodes; k++)
            if (w->nodes[k].r.fitted)
                w->nodes[kept++] = w->nodes[k];
        w->n_nodes = kept;
    }
}

/* The node_bytes a plan on GPU at RELEASE will use once this calibration is stored: a release's
 * own fit, the fit over every release, else what the store already holds. Returns 1, 0 (none), or
 * -1 with ERR when the stored one is out of bounds. */
static int node_calibration_for(const work *w, store *st, const char *gpu, const char *release, engine_calibration *cal,
                                char *err, size_t errlen)
{
    memset(cal, 0, sizeof *cal);
    const node_pool *best = NULL;
    for (int i = 0; i < w->n_nodes; i++) {
        const node_pool *p = &w->nodes[i];
        if (strcmp(p->gpu, gpu) != 0 || !p->r.fitted)
            continue;
        if (!strcmp(p->release, release))
            best = p;
        else if (!p->release[0] && !best)
            best = p;
    }
    if (best) {
        engine_calibration_set_node_bytes(cal, best->r.node_bytes, best->r.n_runs, gpu, best->release);
        return 1;
    }
    return store_load_node_calibration(st, gpu, release, cal, err, errlen);
}

/* Adds stored run S to its pool (or says why it cannot enter one). ONLY: the model and GPU
 * --preset or --model named; ONLY_RELEASE: the release --set sglang= named (NULL: each run's own
 * release decides its pool). */
static void add_run(work *w, store *st, const preset_catalog *cat, const store_run_summary *s, const pool *only,
                    const char *only_release)
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
    if (only_release && strcmp(release, only_release) != 0)
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
    /* The model's own terms come after node_bytes: its kernel nodes priced at the GPU's. */
    static engine_calibration node;
    int has_node = node_calibration_for(w, st, s->gpu, release, &node, err, sizeof err);
    if (has_node < 0) { /* a fit over this run must not stand on a number the store should not hold */
        skip(w, s->id, "%s", err);
        return;
    }
    d.knobs.node_bytes_auto = true;
    engine_estimate_terms(&d, has_node > 0 ? &node : NULL, &e);
    if (p->n == 0) {
        p->held_node_bytes = e.node_bytes;
        snprintf(p->held_source, sizeof p->held_source, "%s", e.node_bytes_source);
    }
    calib_point *q = &p->points[p->n++];
    memset(q, 0, sizeof *q);
    q->run_id = s->id;
    calib_point_from_estimate(&d, &e, q);
    calib_measured m = measured_of(s);
    q->static_bytes = m.static_bytes;
    q->largest_bytes = m.largest_bytes;
    q->buckets_bytes = m.buckets_bytes;
    q->target_bytes = m.target_bytes;
    q->draft_bytes = m.draft_bytes;
}

/* ---- One GPU's node_bytes report ---- */

static void kib_range(char *buf, size_t len, engine_range r)
{
    snprintf(buf, len, "%.1f KiB [%.1f, %.1f]", r.expected / 1024.0, r.low / 1024.0, r.high / 1024.0);
}

static void join_models(const calib_node_result *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n_models && used + 2 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", r->models[i]);
}

static void join_releases(const node_pool *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n && used + 2 < len; i++) {
        if (!p->r.used[i])
            continue;
        bool seen = false;
        for (int k = 0; k < i; k++)
            seen |= p->r.used[k] && !strcmp(p->point_release[k], p->point_release[i]);
        if (!seen)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", p->point_release[i]);
    }
}

static void write_node_report(FILE *out, const node_pool *p, bool dry_run)
{
    char models[ENGINE_TEXT_MAX], range[96];
    join_models(&p->r, models, sizeof models);
    fprintf(out, "node_bytes of %s (%s%s) from %d run%s of %d model%s%s%s%s\n", p->gpu,
            p->release[0] ? "sglang " : "every sglang release", p->release, p->r.n_runs, p->r.n_runs == 1 ? "" : "s",
            p->r.n_models, p->r.n_models == 1 ? "" : "s", p->r.n_models ? " (" : "", models, p->r.n_models ? ")" : "");
    if (p->n > 0) {
        fprintf(out, "%6s  %-20s %-16s %-18s %6s %9s  %-13s %9s %9s %9s\n", "run", "model", "layout", "sglang",
                "graphs", "nodes", "measured", "GiB", "KiB/node", "residual");
        for (int i = 0; i < p->n; i++) {
            const calib_node_point *q = &p->points[i];
            char res[16] = "-";
            if (isfinite(p->r.residual_pct[i]))
                snprintf(res, sizeof res, "%+.1f%%", p->r.residual_pct[i]);
            fprintf(out, "%6lld  %-20s %-16s %-18s %6u %9.0f  %-13s %9.3f %9.1f %9s\n", (long long)q->run_id, q->model,
                    q->layout, p->point_release[i], q->graphs, q->nodes,
                    q->from_buckets ? "other buckets"
                    : q->with_draft ? "total + draft"
                                    : "total",
                    gib(q->bytes), q->bytes / q->nodes / 1024.0, res);
        }
    }
    for (int i = 0; i < p->n_left; i++)
        fprintf(out, "%6lld  gives node_bytes nothing: %s\n", (long long)p->left[i].run, p->left[i].reason);
    kib_range(range, sizeof range, p->before);
    if (!p->r.fitted) {
        fprintf(out, "node_bytes not fitted, nothing stored: %s\n(its estimates keep %s per node: %s)\n", p->r.advice,
                range, p->before_source);
        return;
    }
    char fit[96];
    kib_range(fit, sizeof fit, p->r.node_bytes);
    fprintf(out,
            "node_bytes = %s per kernel node (before: %s, %s)\n"
            "  the slope through the origin of each run's measured part less every other term of its estimate,\n"
            "  over its kernel nodes; the range: the runs' own KiB/node, moved by the logs' two-decimal GiB\n",
            fit, range, p->before_source);
    double lo = INFINITY, hi = 0;
    bool totals = false;
    for (int i = 0; i < p->n; i++)
        if (p->r.used[i] && isfinite(p->r.k[i])) {
            lo = fmin(lo, p->r.k[i]);
            hi = fmax(hi, p->r.k[i]);
            totals |= !p->points[i].from_buckets;
        }
    if (lo > 0 && hi / lo > 1.5)
        fprintf(out, "  the runs' own KiB/node differ %.1fx: %s\n", hi / lo,
                totals ? "a total carries whatever its estimate misses in the largest bucket and the static "
                         "layer,\n  where a run's bars (the other buckets alone) do not"
                       : "their graphs differ by more than their kernel nodes (check the runs' layouts)");
    if (dry_run)
        fprintf(out, "dry run: nothing stored\n");
}

static void write_node_json(jsonw *w, const node_pool *p, bool stored)
{
    jsonw_object_begin(w);
    jsonw_kstring(w, "gpu", p->gpu);
    jsonw_kstring(w, "sglang", p->release[0] ? p->release : NULL);
    jsonw_kbool(w, "fitted", p->r.fitted);
    jsonw_kbool(w, "stored", stored);
    if (p->r.fitted) {
        jsonw_ku64(w, "node_bytes", p->r.node_bytes.expected);
        jsonw_ku64(w, "node_bytes_low", p->r.node_bytes.low);
        jsonw_ku64(w, "node_bytes_high", p->r.node_bytes.high);
    } else {
        jsonw_knull(w, "node_bytes");
        jsonw_knull(w, "node_bytes_low");
        jsonw_knull(w, "node_bytes_high");
    }
    jsonw_kdouble(w, "slope", p->r.slope, 1);
    jsonw_ku64(w, "before_bytes", p->before.expected);
    jsonw_kstring(w, "before_source", p->before_source);
    jsonw_key(w, "models");
    jsonw_array_begin(w);
    for (int i = 0; i < p->r.n_models; i++)
        jsonw_string(w, p->r.models[i]);
    jsonw_array_end(w);
    jsonw_key(w, "runs");
    jsonw_array_begin(w);
    for (int i = 0; i < p->n; i++) {
        const calib_node_point *q = &p->points[i];
        jsonw_object_begin(w);
        jsonw_ki64(w, "run", q->run_id);
        jsonw_kstring(w, "model", q->model);
        jsonw_kstring(w, "layout", q->layout);
        jsonw_kstring(w, "sglang", p->point_release[i]);
        jsonw_ku64(w, "graphs", q->graphs);
        jsonw_kdouble(w, "nodes", q->nodes, 0);
        jsonw_kstring(w, "measured", q->from_buckets ? "buckets" : q->with_draft ? "total_with_draft" : "total");
        jsonw_kdouble(w, "bytes", q->bytes, 0);
        jsonw_kdouble(w, "bytes_per_node", p->r.k[i], 1);
        jsonw_kdouble(w, "residual_percent", p->r.residual_pct[i], 2);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_key(w, "left_out");
    jsonw_array_begin(w);
    for (int i = 0; i < p->n_left; i++) {
        jsonw_object_begin(w);
        jsonw_ki64(w, "run", p->left[i].run);
        jsonw_kstring(w, "reason", p->left[i].reason);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_kstring(w, "advice", p->r.fitted ? NULL : p->r.advice);
    jsonw_object_end(w);
}

/* Fits were made by fit_node_pools; reports and (unless a dry run) stores one GPU's. Returns
 * whether it was fitted. */
static bool calibrate_node_pool(const cli_opts *o, store *st, node_pool *p, jsonw *w, bool *store_failed, bool quiet)
{
    static char report[32768];
    if (p->r.fitted && !o->dry_run) {
        report[0] = '\0';
        FILE *mem = fmemopen(report, sizeof report, "w");
        if (mem) {
            write_node_report(mem, p, false);
            fclose(mem);
        }
        static store_node_calibration c;
        memset(&c, 0, sizeof c);
        snprintf(c.gpu, sizeof c.gpu, "%s", p->gpu);
        snprintf(c.release, sizeof c.release, "%s", p->release);
        c.node_bytes = p->r.node_bytes;
        c.n_runs = p->r.n_runs;
        for (int i = 0; i < p->r.n_runs && i < ENGINE_MAX_CAL_RUNS; i++)
            c.runs[i] = p->r.runs[i];
        join_releases(p, c.run_releases, sizeof c.run_releases);
        join_models(&p->r, c.run_models, sizeof c.run_models);
        char err[4096 + 512];
        if (store_save_node_calibration(st, &c, report, err, sizeof err) != 0) {
            cli_error("calibrate: %s", err);
            *store_failed = true;
        } else {
            p->stored = true;
        }
    }
    if (quiet)
        return p->r.fitted;
    if (o->format == FORMAT_JSON) {
        write_node_json(w, p, p->stored);
        return p->r.fitted;
    }
    write_node_report(stdout, p, o->dry_run);
    if (p->stored)
        printf("stored: one model's log improves every model on %s: every estimate there, whatever its model, now\n"
               "prices its graphs' kernel nodes at this node_bytes (its source: calibrated from %d run%s on %s);\n"
               "cgplan calibrate --reset %s undoes it\n",
               p->gpu, p->r.n_runs, p->r.n_runs == 1 ? "" : "s", p->gpu, p->gpu);
    printf("\n");
    return p->r.fitted;
}

/* ---- One pool's report ---- */

static void write_report(FILE *out, const pool *p, const calib_result *r, bool stored)
{
    char model[sizeof p->model * 4], gpu[sizeof p->gpu * 4]; /* the store's names, cleaned (text.h) */
    fprintf(out, "calibration of %s on %s (sglang %s) from %d run%s (",
            engine_text_cleaned(model, sizeof model, p->model), engine_text_cleaned(gpu, sizeof gpu, p->gpu),
            p->release, p->n, p->n == 1 ? "" : "s");
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
    if (p->n > 0 && p->points[0].free[COEF_GRAPH_BYTES])
        fprintf(out, "its graphs are priced by its preset's fit (graph_bytes), not by their kernel nodes: the fit's\n"
                     "coefficients are refitted; every term built from its mechanism is held fixed\n");
    else
        fprintf(out,
                "kernel nodes held at %.1f KiB each: %s\n"
                "every term built from its mechanism is held fixed; the fit takes what the runs show beyond them\n",
                p->held_node_bytes / 1024.0, p->held_source);
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
    jsonw_ku64(w, "held_node_bytes", p->held_node_bytes);
    jsonw_kstring(w, "held_node_bytes_source", p->held_source);
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
static bool calibrate_pool(const cli_opts *o, store *st, const pool *p, jsonw *w, bool *store_failed, bool quiet)
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
        if (store_save_calibration(st, p->model, p->gpu, p->release, &cal, p->held_node_bytes, report, err,
                                   sizeof err) != 0) {
            cli_error("calibrate: %s", err);
            *store_failed = true;
        } else {
            stored = true;
        }
    }
    if (mem)
        fclose(mem);
    if (quiet)
        return stored;
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
    int n, n_before; /* rows, and those fitted before node_bytes was per GPU with a graph_bytes */
    store *st;       /* for the releases of a calibration's runs */
    preset_catalog *cat;
} list_ctx;

/* The releases of RUNS as their deployments run them ("v0.4.6,main@2026-07-20"), each once; a run
 * removed since is "run N gone". */
static void runs_releases(list_ctx *l, const int64_t *runs, int n, char *buf, size_t len)
{
    static store_run_detail detail;
    static engine_deployment d;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && i < ENGINE_MAX_CAL_RUNS && used + 40 < len; i++) {
        char rel[ENGINE_RELEASE_TEXT_MAX + 24], err[ENGINE_TEXT_MAX * 2];
        int rc = l->st ? store_get_run(l->st, runs[i], &detail, err, sizeof err) : -1;
        if (rc == 1)
            snprintf(rel, sizeof rel, "run %lld gone", (long long)runs[i]);
        else if (rc != 0 || !l->cat || cli_run_deployment(l->cat, &detail, &d, err, sizeof err) != 0)
            snprintf(rel, sizeof rel, "?");
        else
            engine_release_text(&d.knobs.sglang, rel, sizeof rel);
        char needle[sizeof rel + 2];
        snprintf(needle, sizeof needle, ",%s,", rel);
        char hay[1024];
        snprintf(hay, sizeof hay, ",%s,", buf);
        if (!strstr(hay, needle))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", rel);
    }
}

static void list_node(const store_node_calibration *c, void *ctx_)
{
    list_ctx *l = ctx_;
    l->n++;
    if (l->o->format == FORMAT_JSON) {
        jsonw *w = l->w;
        jsonw_object_begin(w);
        jsonw_ki64(w, "id", c->id);
        jsonw_kstring(w, "gpu", c->gpu);
        jsonw_kstring(w, "sglang", c->release[0] ? c->release : NULL);
        jsonw_kstring(w, "created_at", c->created_at);
        jsonw_kbool(w, "current", c->current);
        jsonw_ku64(w, "node_bytes", c->node_bytes.expected);
        jsonw_ku64(w, "node_bytes_low", c->node_bytes.low);
        jsonw_ku64(w, "node_bytes_high", c->node_bytes.high);
        jsonw_ki64(w, "n_runs", c->n_runs);
        jsonw_key(w, "runs");
        jsonw_array_begin(w);
        for (int i = 0; i < c->n_runs && i < ENGINE_MAX_CAL_RUNS; i++)
            jsonw_i64(w, c->runs[i]);
        jsonw_array_end(w);
        jsonw_kstring(w, "run_releases", c->run_releases);
        jsonw_kstring(w, "run_models", c->run_models);
        jsonw_object_end(w);
        return;
    }
    char runs[256] = "", range[96];
    size_t used = 0;
    for (int i = 0; i < c->n_runs && i < ENGINE_MAX_CAL_RUNS && used + 24 < sizeof runs; i++)
        used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)c->runs[i]);
    kib_range(range, sizeof range, c->node_bytes);
    printf("%5lld  %-8s %-18s %-20s %-3s %-28s %-12s %-24s %s\n", (long long)c->id, c->gpu,
           c->release[0] ? c->release : "(every)", c->created_at, c->current ? "yes" : "no", range, runs,
           c->run_releases, c->run_models);
}

static void list_one(const store_calibration_info *c, void *ctx_)
{
    list_ctx *l = ctx_;
    l->n++;
    /* a graph_bytes fitted before node_bytes was per GPU carries the model's node cost */
    bool before = c->held_node_bytes == 0 && c->cal.has[COEF_GRAPH_BYTES];
    l->n_before += before;
    char releases[ENGINE_TEXT_MAX];
    runs_releases(l, c->cal.runs, c->cal.n_runs, releases, sizeof releases);
    if (l->o->format == FORMAT_JSON) {
        jsonw *w = l->w;
        jsonw_object_begin(w);
        jsonw_ki64(w, "id", c->id);
        jsonw_kstring(w, "model", c->model);
        jsonw_kstring(w, "gpu", c->gpu);
        jsonw_kstring(w, "sglang", c->release[0] ? c->release : NULL);
        jsonw_kstring(w, "created_at", c->created_at);
        jsonw_kbool(w, "current", c->current);
        if (c->held_node_bytes)
            jsonw_ku64(w, "held_node_bytes", c->held_node_bytes);
        else
            jsonw_knull(w, "held_node_bytes");
        jsonw_kbool(w, "before_node_bytes", before);
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
        jsonw_kstring(w, "run_releases", releases);
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
    char runs[256] = "", held[32];
    used = 0;
    for (int i = 0; i < c->cal.n_runs && used + 24 < sizeof runs; i++)
        used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)c->cal.runs[i]);
    if (c->held_node_bytes)
        snprintf(held, sizeof held, "%.1f KiB", c->held_node_bytes / 1024.0);
    else
        snprintf(held, sizeof held, "%s", before ? "before *" : "before");
    printf("%5lld  %-12s %-8s %-18s %-20s %-3s %-10s %-12s %-24s %s\n", (long long)c->id, c->model, c->gpu,
           c->release[0] ? c->release : "(any)", c->created_at, c->current ? "yes" : "no", held, runs, releases, vals);
}

static int calibrate_list(const cli_opts *o, store *st)
{
    char err[4096 + 512];
    jsonw w;
    preset_catalog *cat = preset_catalog_open();
    list_ctx nodes = {o, &w, 0, 0, st, cat}, models = {o, &w, 0, 0, st, cat};
    if (o->format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "node_bytes");
        jsonw_array_begin(&w);
    } else {
        printf("node_bytes per GPU, fitted over any model's runs on it: one model's log improves every model on that "
               "GPU\n");
        printf("%5s  %-8s %-18s %-20s %-3s %-28s %-12s %-24s %s\n", "id", "gpu", "sglang", "created", "use",
               "node_bytes [low, high]", "runs", "releases of its runs", "models");
    }
    int rc = store_each_node_calibration(st, list_node, &nodes, err, sizeof err);
    if (o->format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_key(&w, "calibrations");
        jsonw_array_begin(&w);
    } else {
        if (nodes.n == 0)
            printf("(none: cgplan calibrate fits one from two runs of any model on a GPU, of two graph counts or two "
                   "models)\n");
        printf("\nper model, GPU and release, fitted after the GPU's node_bytes (the node_bytes column: the one it "
               "held)\n");
        printf("%5s  %-12s %-8s %-18s %-20s %-3s %-10s %-12s %-24s %s\n", "id", "model", "gpu", "sglang", "created",
               "use", "node_bytes", "runs", "releases of its runs", "fitted");
    }
    if (rc == 0)
        rc = store_each_calibration(st, list_one, &models, err, sizeof err);
    if (o->format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    } else {
        if (models.n == 0 && nodes.n == 0)
            printf("(no calibration stored in %s: cgplan calibrate fits one from the stored runs)\n", store_path(st));
        else if (models.n == 0)
            printf("(none)\n");
        if (models.n_before)
            printf("* fitted before node_bytes was calibrated per GPU (a store of schema 7 or older): its graph_bytes "
                   "carries\n  the model's kernel-node cost and still overrides the mechanism for that model alone "
                   "(labelled\n  calibrated); cgplan calibrate refits the model after its GPU's node_bytes\n");
    }
    preset_catalog_free(cat);
    if (rc != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    return EXIT_OK;
}

static int calibrate_reset(const cli_opts *o, store *st)
{
    const char *model = o->n_args > 1 ? o->args[0] : NULL, *gpu = o->n_args > 1 ? o->args[1] : NULL,
               *release = o->n_args > 2 ? o->args[2] : NULL;
    char err[4096 + 512], canon[ENGINE_RELEASE_TEXT_MAX];
    if (o->n_args == 1) /* a GPU alone (cmd_calibrate checked it names one): its node_bytes */
        gpu = o->args[0];
    if (release) { /* as the pools name it: "v0.5.3" and "0.5.3" are one release */
        engine_release rel;
        if (engine_release_parse(release, &rel, err, sizeof err) != 0) {
            cli_error("calibrate --reset: release '%s': %s", release, err);
            return EXIT_USAGE;
        }
        engine_release_text(&rel, canon, sizeof canon);
        release = canon;
    }
    int n = 0, n_nodes = 0;
    if (o->n_args != 1)
        n = store_delete_calibrations(st, model, gpu, release, err, sizeof err);
    if (n >= 0 && o->n_args <= 1)
        n_nodes = store_delete_node_calibrations(st, gpu, NULL, err, sizeof err);
    if (n < 0 || n_nodes < 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    char what[256];
    if (model)
        snprintf(what, sizeof what, "%s on %s%s%s", model, gpu, release ? ", sglang " : "", release ? release : "");
    else if (gpu)
        snprintf(what, sizeof what, "node_bytes on %s", gpu);
    else
        snprintf(what, sizeof what, "every model and GPU");
    if (n + n_nodes == 0) {
        cli_error("calibrate --reset: no calibration of %s in %s (cgplan calibrate list shows them)", what,
                  store_path(st));
        return EXIT_WORK;
    }
    if (o->format == FORMAT_JSON)
        printf("{\"removed\": %d, \"removed_node_bytes\": %d}\n", n, n_nodes);
    else if (o->n_args == 1)
        printf("removed %d node_bytes calibration%s of %s: its estimates use the GPU preset's node_bytes again\n",
               n_nodes, n_nodes == 1 ? "" : "s", gpu);
    else
        printf("removed %d calibration%s%s of %s: cgplan estimate uses the presets' coefficients%s again\n",
               n + n_nodes, n + n_nodes == 1 ? "" : "s", n_nodes ? " (node_bytes included)" : "", what,
               n_nodes ? " and node_bytes" : "");
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
    if (reset && o.n_args > 3) {
        cli_error("calibrate --reset: expected nothing, GPU (its node_bytes), MODEL GPU, or MODEL GPU RELEASE");
        return EXIT_USAGE;
    }
    if (!reset && !listing && o.n_args) {
        cli_error("calibrate: unexpected argument '%s' (calibrate, calibrate list, or calibrate --reset [GPU | MODEL "
                  "GPU [RELEASE]])",
                  o.args[0]);
        return EXIT_USAGE;
    }
    if ((reset || listing) && (o.preset || o.model || o.dry_run)) {
        cli_error("calibrate %s: --preset, --model and --dry-run belong to a fit", reset ? "--reset" : "list");
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    if (reset && o.n_args == 1) {
        engine_gpu g;
        char err[ENGINE_TEXT_MAX * 2];
        if (preset_load_gpu(cat, o.args[0], &g, err, sizeof err) != 0) {
            cli_error("calibrate --reset: '%s' is not a GPU preset: expected nothing, GPU (its node_bytes), MODEL "
                      "GPU, or MODEL GPU RELEASE",
                      o.args[0]);
            preset_catalog_free(cat);
            return EXIT_USAGE;
        }
    }
    static work w;
    memset(&w, 0, sizeof w);
    static pool only;
    bool restrict_pool = o.preset || o.model;
    /* a run's own release decides its pool; --set sglang= picks one pool of them */
    bool release_given = false;
    for (int i = 0; i < o.n_sets; i++)
        release_given |= strncmp(o.sets[i], "sglang=", 7) == 0;
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
    /* node_bytes per GPU first, from every model's runs; the models' own fits then hold it. */
    for (size_t i = 0; i < n_runs; i++)
        add_node_run(&w, st, cat, &runs[i], restrict_pool ? only.gpu : NULL);
    fit_node_pools(&w);
    for (size_t i = 0; i < n_runs; i++)
        add_run(&w, st, cat, &runs[i], restrict_pool ? &only : NULL,
                restrict_pool && release_given ? only.release : NULL);
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
        jsonw_key(&jw, "node_bytes");
        jsonw_array_begin(&jw);
    }
    int n_fitted = 0;
    bool store_failed = false;
    for (int p = 0; p < w.n_nodes; p++)
        n_fitted += calibrate_node_pool(&o, st, &w.nodes[p], &jw, &store_failed, false);
    if (o.format == FORMAT_JSON) {
        jsonw_array_end(&jw);
        jsonw_key(&jw, "calibrations");
        jsonw_array_begin(&jw);
    }
    for (int p = 0; p < w.n_pools; p++)
        n_fitted += calibrate_pool(&o, st, &w.pools[p], &jw, &store_failed, false);
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

/* ---- After `runs rm`: the calibrations the run fed ---- */

typedef struct {
    int64_t removed;
    int n;
    struct {
        bool node, current;
        int64_t id;
        char model[ENGINE_NAME_MAX], gpu[ENGINE_NAME_MAX], release[ENGINE_RELEASE_TEXT_MAX];
    } fed[MAX_POOLS];
} fed_list;

static bool has_run(const int64_t *runs, int n, int64_t id)
{
    for (int i = 0; i < n && i < ENGINE_MAX_CAL_RUNS; i++)
        if (runs[i] == id)
            return true;
    return false;
}

static void note_fed_node(const store_node_calibration *c, void *ctx)
{
    fed_list *f = ctx;
    if (f->n < MAX_POOLS && has_run(c->runs, c->n_runs, f->removed)) {
        f->fed[f->n].node = true;
        f->fed[f->n].current = c->current;
        f->fed[f->n].id = c->id;
        snprintf(f->fed[f->n].gpu, sizeof f->fed[0].gpu, "%s", c->gpu);
        snprintf(f->fed[f->n++].release, sizeof f->fed[0].release, "%s", c->release);
    }
}

static void note_fed_model(const store_calibration_info *c, void *ctx)
{
    fed_list *f = ctx;
    if (f->n < MAX_POOLS && has_run(c->cal.runs, c->cal.n_runs, f->removed)) {
        f->fed[f->n].node = false;
        f->fed[f->n].current = c->current;
        f->fed[f->n].id = c->id;
        snprintf(f->fed[f->n].model, sizeof f->fed[0].model, "%s", c->model);
        snprintf(f->fed[f->n].gpu, sizeof f->fed[0].gpu, "%s", c->gpu);
        snprintf(f->fed[f->n++].release, sizeof f->fed[0].release, "%s", c->release);
    }
}

int cli_calibrate_after_rm(store *st, int64_t removed, FILE *out)
{
    static fed_list f;
    memset(&f, 0, sizeof f);
    f.removed = removed;
    char err[4096 + 512];
    /* node_bytes first: the models' fits hold it */
    if (store_each_node_calibration(st, note_fed_node, &f, err, sizeof err) != 0 ||
        store_each_calibration(st, note_fed_model, &f, err, sizeof err) != 0) {
        cli_error("%s", err);
        return -1;
    }
    if (f.n == 0)
        return 0;
    preset_catalog *cat = preset_catalog_open();
    static store_run_summary runs[MAX_RUNS];
    size_t n_runs = 0;
    if (!cat || store_list_runs(st, runs, MAX_RUNS, &n_runs, err, sizeof err) != 0) {
        cli_error("%s", cat ? err : "out of memory opening the presets");
        preset_catalog_free(cat);
        return -1;
    }
    static work w;
    cli_opts o = {.format = FORMAT_TABLE};
    int failed = 0;
    for (int i = 0; i < f.n; i++) {
        const char *what = f.fed[i].node ? "node_bytes calibration" : "calibration";
        char name[ENGINE_NAME_MAX * 2 + ENGINE_RELEASE_TEXT_MAX + 16];
        if (f.fed[i].node)
            snprintf(name, sizeof name, "%s (sglang %s)", f.fed[i].gpu,
                     f.fed[i].release[0] ? f.fed[i].release : "every");
        else
            snprintf(name, sizeof name, "%s on %s (sglang %s)", f.fed[i].model, f.fed[i].gpu,
                     f.fed[i].release[0] ? f.fed[i].release : "any");
        if (store_delete_calibration_id(st, f.fed[i].node, f.fed[i].id, err, sizeof err) < 0) {
            cli_error("%s", err);
            failed = -1;
            continue;
        }
        if (!f.fed[i].current) { /* an older one of its pool: no estimate used it */
            fprintf(out, "%s %lld of %s dropped: superseded, and run %lld fed it\n", what, (long long)f.fed[i].id, name,
                    (long long)removed);
            continue;
        }
        memset(&w, 0, sizeof w);
        bool store_failed = false, stored = false;
        int n_used = 0;
        if (f.fed[i].node) {
            for (size_t r = 0; r < n_runs; r++)
                add_node_run(&w, st, cat, &runs[r], f.fed[i].gpu);
            fit_node_pools(&w);
            node_pool *p = find_node_pool(&w, f.fed[i].gpu, f.fed[i].release);
            if (p && p->n > 0) {
                stored = calibrate_node_pool(&o, st, p, NULL, &store_failed, true) && p->stored;
                n_used = p->r.n_runs;
            }
        } else {
            static pool only;
            memset(&only, 0, sizeof only);
            snprintf(only.model, sizeof only.model, "%s", f.fed[i].model);
            snprintf(only.gpu, sizeof only.gpu, "%s", f.fed[i].gpu);
            snprintf(only.release, sizeof only.release, "%s", f.fed[i].release);
            for (size_t r = 0; r < n_runs; r++)
                add_run(&w, st, cat, &runs[r], &only, f.fed[i].release[0] ? only.release : NULL);
            for (int p = 0; p < w.n_pools && !stored; p++) {
                stored = calibrate_pool(&o, st, &w.pools[p], NULL, &store_failed, true);
                n_used = w.pools[p].n;
            }
        }
        if (stored)
            fprintf(out, "%s %lld of %s refitted from %d run%s\n", what, (long long)f.fed[i].id, name, n_used,
                    n_used == 1 ? "" : "s");
        else if (n_used == 0)
            fprintf(out, "%s %lld of %s dropped: no runs left\n", what, (long long)f.fed[i].id, name);
        else
            fprintf(out, "%s %lld of %s dropped: the %d run%s left fit nothing (cgplan calibrate says why)\n", what,
                    (long long)f.fed[i].id, name, n_used, n_used == 1 ? "" : "s");
        if (store_failed)
            failed = -1;
    }
    preset_catalog_free(cat);
    return failed;
}
