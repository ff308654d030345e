/* calibrate.c — least-squares fits of the coefficients (MODEL.md, "Calibration"). */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const calib_fit_names[4] = {"none", "slope and intercept", "intercept only", "refused"};

/* Rows "differ" when they span more than one row: two runs at 144 and 144 rows cannot give a
 * slope. */
static bool spread(const double *x, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    return n >= 2 && hi - lo >= 1.0;
}

static void keep(calib_coef *c, uint64_t current, calib_fit_kind kind, const char *note)
{
    c->kind = kind;
    c->current = current;
    c->value = current;
    c->fitted = NAN; /* not fitted: the current value stays */
    snprintf(c->note, sizeof c->note, "%s", note);
}

/* Sets C to FITTED unless it is negative (then refused, current kept). */
static void accept(calib_coef *c, uint64_t current, calib_fit_kind kind, double fitted, const char *note)
{
    c->current = current;
    c->fitted = fitted;
    if (!(fitted >= 0)) {
        c->kind = CALIB_FIT_REFUSED;
        c->value = current;
        snprintf(c->note, sizeof c->note, "refused: the fit gives %.0f B (< 0); the runs disagree with the model, "
                 "kept %llu", fitted, (unsigned long long)current);
        return;
    }
    c->kind = kind;
    c->value = (uint64_t)llround(fitted);
    snprintf(c->note, sizeof c->note, "%s", note);
}

/* y = a + b x over the points where y is known: coefficient ids A (intercept) and B (slope). */
static void fit_line(const double *x, const double *y, int n, const uint64_t current[COEF_COUNT], engine_coef_id a,
                     engine_coef_id b, calib_coef *out)
{
    if (n == 0) {
        keep(&out[a], current[a], CALIB_FIT_NONE, "no run measures this layer");
        keep(&out[b], current[b], CALIB_FIT_NONE, "no run measures this layer");
        return;
    }
    if (!spread(x, n)) {
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += y[i] - (double)current[b] * x[i];
        char note[ENGINE_TEXT_MAX];
        snprintf(note, sizeof note, "intercept only: %s, so the slope cannot be fitted and stays %llu",
                 n == 1 ? "one run" : "the runs have the same rows", (unsigned long long)current[b]);
        accept(&out[a], current[a], CALIB_FIT_INTERCEPT, sum / n, note);
        keep(&out[b], current[b], CALIB_FIT_INTERCEPT, note);
        return;
    }
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    double slope = sxy / sxx, intercept = my - slope * mx;
    accept(&out[b], current[b], CALIB_FIT_FULL, slope, "slope from runs whose rows differ");
    accept(&out[a], current[a], CALIB_FIT_FULL, intercept, "intercept");
    if (out[b].kind == CALIB_FIT_REFUSED && out[a].kind == CALIB_FIT_FULL) {
        /* Without a usable slope the intercept must be refitted against the current one. */
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += y[i] - (double)current[b] * x[i];
        accept(&out[a], current[a], CALIB_FIT_INTERCEPT, sum / n, "intercept only: the slope was refused");
    }
}

/* y = g u + o v (no intercept): g per further bucket, o per row of further buckets. */
static void fit_buckets(const double *u, const double *v, const double *y, int n, const uint64_t current[COEF_COUNT],
                        calib_coef *out)
{
    const engine_coef_id G = COEF_GRAPH_BYTES, O = COEF_OUT_BYTES_PER_ROW;
    double suu = 0, svv = 0, suv = 0, suy = 0, svy = 0;
    for (int i = 0; i < n; i++) {
        suu += u[i] * u[i];
        svv += v[i] * v[i];
        suv += u[i] * v[i];
        suy += u[i] * y[i];
        svy += v[i] * y[i];
    }
    if (n == 0 || suu == 0) {
        keep(&out[G], current[G], CALIB_FIT_NONE, "no run captured more than one bucket");
        keep(&out[O], current[O], CALIB_FIT_NONE, "no run captured more than one bucket");
        return;
    }
    double det = suu * svv - suv * suv;
    /* Proportional regressors (one run, or runs with the same rows per bucket) give no slope. */
    if (n < 2 || fabs(det) <= 1e-9 * suu * svv) {
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += u[i] * (y[i] - (double)current[O] * v[i]);
        char note[ENGINE_TEXT_MAX];
        snprintf(note, sizeof note, "per-bucket only: %s, so the per-row part stays %llu",
                 n == 1 ? "one run" : "the runs' bucket rows are proportional", (unsigned long long)current[O]);
        accept(&out[G], current[G], CALIB_FIT_INTERCEPT, sum / suu, note);
        keep(&out[O], current[O], CALIB_FIT_INTERCEPT, note);
        return;
    }
    double g = (suy * svv - svy * suv) / det, o = (suu * svy - suv * suy) / det;
    accept(&out[G], current[G], CALIB_FIT_FULL, g, "per further bucket");
    accept(&out[O], current[O], CALIB_FIT_FULL, o, "per row of the further buckets");
}

void calib_fit(const calib_point *p, int n, const uint64_t current[COEF_COUNT], calib_result *r)
{
    memset(r, 0, sizeof *r);
    if (n > CALIB_MAX_POINTS)
        n = CALIB_MAX_POINTS;
    r->n_points = n;
    double x[CALIB_MAX_POINTS] = {0}, y[CALIB_MAX_POINTS] = {0}, u[CALIB_MAX_POINTS] = {0};
    int m;

    /* largest - MoE fixed = lazy + act x rows' */
    m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(p[i].largest_bytes)) {
            x[m] = p[i].attn_rows_scaled;
            y[m++] = p[i].largest_bytes - p[i].moe_fixed_bytes;
        }
    fit_line(x, y, m, current, COEF_LAZY_BYTES, COEF_ACT_BYTES_PER_ROW, r->coef);

    /* other buckets */
    m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(p[i].buckets_bytes) && p[i].other_buckets > 0) {
            u[m] = p[i].other_buckets;
            x[m] = p[i].other_rows;
            y[m++] = p[i].buckets_bytes;
        }
    fit_buckets(u, x, y, m, current, r->coef);

    /* draft */
    m = 0;
    for (int i = 0; i < n; i++)
        if (p[i].speculative && isfinite(p[i].draft_bytes)) {
            x[m] = p[i].attn_rows;
            y[m++] = p[i].draft_bytes;
        }
    fit_line(x, y, m, current, COEF_DRAFT_BASE_BYTES, COEF_DRAFT_BYTES_PER_ROW, r->coef);

    /* residuals against the coefficients finally chosen */
    const calib_coef *c = r->coef;
    for (int i = 0; i < n; i++) {
        calib_residual *res = &r->residuals[i];
        res->run_id = p[i].run_id;
        res->largest = p[i].largest_bytes - p[i].moe_fixed_bytes - (double)c[COEF_LAZY_BYTES].value -
                       (double)c[COEF_ACT_BYTES_PER_ROW].value * p[i].attn_rows_scaled;
        res->buckets = p[i].buckets_bytes - (double)c[COEF_GRAPH_BYTES].value * p[i].other_buckets -
                       (double)c[COEF_OUT_BYTES_PER_ROW].value * p[i].other_rows;
        res->draft = p[i].speculative ? p[i].draft_bytes - (double)c[COEF_DRAFT_BASE_BYTES].value -
                                            (double)c[COEF_DRAFT_BYTES_PER_ROW].value * p[i].attn_rows
                                      : NAN;
        res->static_layer = p[i].static_bytes - p[i].static_predicted;
        bool seen = false;
        for (int l = 0; l < r->n_layouts; l++)
            seen |= strcmp(r->layouts[l], p[i].layout) == 0;
        if (!seen && r->n_layouts < CALIB_MAX_POINTS)
            snprintf(r->layouts[r->n_layouts++], sizeof r->layouts[0], "%s", p[i].layout);
    }
    r->mixed_layouts = r->n_layouts > 1;
}

void calib_to_calibration(const calib_result *r, const calib_point *points, int n, engine_calibration *cal)
{
    memset(cal, 0, sizeof *cal);
    for (int c = 0; c < COEF_COUNT; c++) {
        cal->has[c] = isfinite(r->coef[c].fitted) && r->coef[c].kind != CALIB_FIT_REFUSED;
        cal->value[c] = r->coef[c].value;
    }
    for (int i = 0; i < n && cal->n_runs < ENGINE_MAX_CAL_RUNS; i++)
        cal->runs[cal->n_runs++] = points[i].run_id;
}
