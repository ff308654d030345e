/* calibrate.c — least-squares fits of the estimator's non-exact terms (MODEL.md, "Calibration";
 * issue 10). One system holds every row a pool's logs give (layers from the bars, totals from
 * the end lines, the draft groups); columns are chosen by whether the rows separate them. */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const calib_fit_names[5] = {"none", "fitted", "held", "absorbed", "refused"};
const char *const calib_param_names[CALIB_N_PARAMS] = {
    "act_bytes_per_row", "lazy_bytes", "graph_bytes", "out_bytes_per_row", "draft_base_bytes", "draft_bytes_per_row",
    "static_bytes",
};

/* Intercepts first, so a slope is fitted only from what the intercepts leave; the static
 * intercept after lazy_bytes, so totals alone put the unknown part on a term the estimator has. */
static const int priority[CALIB_N_PARAMS] = {COEF_LAZY_BYTES,      CALIB_STATIC,          COEF_ACT_BYTES_PER_ROW,
                                             COEF_GRAPH_BYTES,     COEF_OUT_BYTES_PER_ROW, COEF_DRAFT_BASE_BYTES,
                                             COEF_DRAFT_BYTES_PER_ROW};
static bool is_slope(int j)
{
    return j == COEF_ACT_BYTES_PER_ROW || j == COEF_GRAPH_BYTES || j == COEF_OUT_BYTES_PER_ROW ||
           j == COEF_DRAFT_BYTES_PER_ROW;
}

#define MAX_ROWS (CALIB_MAX_POINTS * 5)
#define ABSURD_BYTES 17592186044416.0 /* 16 TiB: no GPU holds a term this large */
#define DEPENDENT 1e-7                /* a column's part the others leave, relative: below it, not separable */

/* ---- The estimator's side of a point ---- */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

void calib_point_from_estimate(const engine_deployment *d, const engine_estimate *e, calib_point *p)
{
    engine_layout_name(&d->knobs, LAYOUT_NAME_COMPACT, p->layout, sizeof p->layout);
    uint64_t h = 14695981039346656037ull;
    char text[512];
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (k == KNOB_MAX_BS || k == KNOB_BUCKETS)
            continue; /* what method 2 varies */
        engine_knob_text(d, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, text, sizeof text);
        h = fnv(fnv(h, engine_knobs[k].name), text);
    }
    h = fnv(h, d->model.name);
    p->shape = h;
    p->max_bs = d->knobs.max_bs;
    p->gpu_bytes = (double)d->gpu.cuda_total_bytes;
    /* Which coefficients the run's estimate takes: a term of source coefficient or unknown. */
    static const struct {
        engine_term_id term;
        int coef[2];
    } uses[] = {
        {TERM_LAZY, {COEF_LAZY_BYTES, -1}},
        {TERM_ACT, {COEF_ACT_BYTES_PER_ROW, -1}},
        {TERM_BUCKETS, {COEF_GRAPH_BYTES, COEF_OUT_BYTES_PER_ROW}},
        {TERM_DRAFT, {COEF_DRAFT_BASE_BYTES, COEF_DRAFT_BYTES_PER_ROW}},
    };
    bool fitted_term[TERM_COUNT] = {false};
    memset(p->free, 0, sizeof p->free);
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        engine_source s = e->terms[uses[i].term].source;
        if (s != SOURCE_COEFFICIENT && s != SOURCE_UNKNOWN && s != SOURCE_CALIBRATED)
            continue; /* exact or derived: subtracted like the other fixed terms */
        fitted_term[uses[i].term] = true;
        for (int c = 0; c < 2; c++)
            if (uses[i].coef[c] >= 0)
                p->free[uses[i].coef[c]] = true;
    }
    for (int l = 0; l < LAYER_COUNT; l++)
        p->fixed[l] = 0;
    for (int t = 0; t < TERM_COUNT; t++)
        if (!fitted_term[t] && e->terms[t].known)
            p->fixed[e->terms[t].layer] += (double)e->terms[t].bytes;
    p->static_predicted = p->fixed[LAYER_STATIC];
    p->attn_rows = e->attn_rows;
    p->attn_rows_scaled = d->model.heads ? (double)e->attn_rows * e->heads_per_gpu / d->model.heads : e->attn_rows;
    p->other_buckets = e->n_buckets ? e->n_buckets - 1 : 0;
    p->other_rows = (double)e->other_bucket_rows;
    p->speculative = d->knobs.mtp > 1;
}

/* ---- Rows ---- */

typedef struct {
    double a[CALIB_N_PARAMS];
    double y;
    int point;
    bool total; /* an end line's total, not a layer */
} row;

static bool known(double v)
{
    return isfinite(v);
}

static bool layers_known(const calib_point *p)
{
    return known(p->static_bytes) && known(p->largest_bytes) && known(p->buckets_bytes);
}

/* The regressors of each layer of P (a row's columns). */
static void layer_columns(const calib_point *p, int layer, double *a)
{
    memset(a, 0, sizeof(double) * CALIB_N_PARAMS);
    switch (layer) {
    case LAYER_STATIC:
        a[CALIB_STATIC] = 1;
        break;
    case LAYER_LARGEST:
        a[COEF_LAZY_BYTES] = p->free[COEF_LAZY_BYTES];
        a[COEF_ACT_BYTES_PER_ROW] = p->free[COEF_ACT_BYTES_PER_ROW] ? p->attn_rows_scaled : 0;
        break;
    case LAYER_BUCKETS:
        a[COEF_GRAPH_BYTES] = p->free[COEF_GRAPH_BYTES] ? p->other_buckets : 0;
        a[COEF_OUT_BYTES_PER_ROW] = p->free[COEF_OUT_BYTES_PER_ROW] ? p->other_rows : 0;
        break;
    case LAYER_DRAFT:
        if (p->speculative) {
            a[COEF_DRAFT_BASE_BYTES] = p->free[COEF_DRAFT_BASE_BYTES];
            a[COEF_DRAFT_BYTES_PER_ROW] = p->free[COEF_DRAFT_BYTES_PER_ROW] ? p->attn_rows : 0;
        }
        break;
    }
}

static void add_row(row *rows, int *n, const double *a, double y, int point, bool total)
{
    if (*n >= MAX_ROWS)
        return;
    memcpy(rows[*n].a, a, sizeof rows[*n].a);
    rows[*n].y = y;
    rows[*n].point = point;
    rows[*n].total = total;
    (*n)++;
}

/* Every row the points give (SKIP: a point left out, or -1). USE marks the points that gave one. */
static int build_rows(const calib_point *p, int n, int skip, const bool *in, row *rows, bool *use)
{
    int m = 0;
    double a[CALIB_N_PARAMS], b[CALIB_N_PARAMS];
    for (int i = 0; i < n; i++) {
        if (i == skip || (in && !in[i]))
            continue;
        int before = m;
        const calib_point *q = &p[i];
        /* The bars bound the layers: a row each. */
        if (known(q->static_bytes)) {
            layer_columns(q, LAYER_STATIC, a);
            add_row(rows, &m, a, q->static_bytes - q->fixed[LAYER_STATIC], i, false);
        }
        if (known(q->largest_bytes)) {
            layer_columns(q, LAYER_LARGEST, a);
            add_row(rows, &m, a, q->largest_bytes - q->fixed[LAYER_LARGEST], i, false);
        }
        if (known(q->buckets_bytes) && q->other_buckets > 0) {
            layer_columns(q, LAYER_BUCKETS, a);
            add_row(rows, &m, a, q->buckets_bytes - q->fixed[LAYER_BUCKETS], i, false);
        }
        /* Only the end line's total: one row over the three layers. */
        if (!layers_known(q) && known(q->target_bytes)) {
            double sum[CALIB_N_PARAMS] = {0};
            for (int l = LAYER_STATIC; l <= LAYER_BUCKETS; l++) {
                layer_columns(q, l, b);
                for (int j = 0; j < CALIB_N_PARAMS; j++)
                    sum[j] += b[j];
            }
            add_row(rows, &m, sum,
                    q->target_bytes - q->fixed[LAYER_STATIC] - q->fixed[LAYER_LARGEST] - q->fixed[LAYER_BUCKETS], i, true);
        }
        if (q->speculative && known(q->draft_bytes)) {
            layer_columns(q, LAYER_DRAFT, a);
            add_row(rows, &m, a, q->draft_bytes - q->fixed[LAYER_DRAFT], i, false);
        }
        if (use)
            use[i] = m > before;
    }
    return m;
}

/* ---- Least squares with the columns the rows separate ---- */

typedef enum { ST_OFF, ST_NODATA, ST_DEPENDENT, ST_FITTED, ST_REFUSED, ST_PAIR } param_state;

/* Solves for the parameters with state ST_FITTED on entry (the candidates; others held at HELD),
 * by modified Gram-Schmidt in priority order: a candidate the earlier ones leave (almost) nothing
 * of becomes ST_DEPENDENT, one without any data ST_NODATA. */
static void solve(const row *rows, int m, param_state *st, const double *held, double *theta)
{
    static double q[CALIB_N_PARAMS][MAX_ROWS];
    double r[CALIB_N_PARAMS][CALIB_N_PARAMS] = {{0}};
    double y[MAX_ROWS];
    int order[CALIB_N_PARAMS], k = 0;
    for (int pi = 0; pi < CALIB_N_PARAMS; pi++) {
        int j = priority[pi];
        if (st[j] != ST_FITTED)
            continue;
        double *v = q[k], norm0 = 0, norm = 0;
        for (int i = 0; i < m; i++) {
            v[i] = rows[i].a[j];
            norm0 += v[i] * v[i];
        }
        if (norm0 == 0) {
            st[j] = ST_NODATA;
            continue;
        }
        for (int c = 0; c < k; c++) {
            double dot = 0;
            for (int i = 0; i < m; i++)
                dot += q[c][i] * v[i];
            r[c][k] = dot;
            for (int i = 0; i < m; i++)
                v[i] -= dot * q[c][i];
        }
        for (int i = 0; i < m; i++)
            norm += v[i] * v[i];
        if (norm <= DEPENDENT * DEPENDENT * norm0) {
            st[j] = ST_DEPENDENT;
            continue;
        }
        norm = sqrt(norm);
        for (int i = 0; i < m; i++)
            v[i] /= norm;
        r[k][k] = norm;
        order[k++] = j;
    }
    /* What the held parameters (also those just found dependent) explain is taken out first. */
    for (int i = 0; i < m; i++) {
        y[i] = rows[i].y;
        for (int j = 0; j < CALIB_N_PARAMS; j++)
            if (st[j] != ST_FITTED)
                y[i] -= rows[i].a[j] * held[j];
    }
    /* theta = R^-1 Q^T y */
    double qy[CALIB_N_PARAMS], t[CALIB_N_PARAMS];
    for (int c = 0; c < k; c++) {
        qy[c] = 0;
        for (int i = 0; i < m; i++)
            qy[c] += q[c][i] * y[i];
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = qy[c];
        for (int c2 = c + 1; c2 < k; c2++)
            s -= r[c][c2] * t[c2];
        t[c] = s / r[c][c];
    }
    for (int j = 0; j < CALIB_N_PARAMS; j++)
        theta[j] = held[j];
    for (int c = 0; c < k; c++)
        theta[order[c]] = t[c];
}

/* Why VALUE of parameter J is refused, or NULL: negative, non-finite, or larger than a GPU. */
static const char *refusal(const calib_point *p, int n, const row *rows, int m, int j, double value, char *buf,
                           size_t len)
{
    if (!isfinite(value)) {
        snprintf(buf, len, "refused: the fit is not a finite number");
        return buf;
    }
    if (value < -0.5) {
        snprintf(buf, len, "refused: the fit gives %.0f B (< 0)", value);
        return buf;
    }
    for (int i = 0; i < m; i++) {
        double bytes = value * rows[i].a[j];
        double limit = rows[i].point < n && p[rows[i].point].gpu_bytes > 0 ? p[rows[i].point].gpu_bytes : ABSURD_BYTES;
        if (bytes > limit) {
            snprintf(buf, len, "refused: the fit gives %.1f GiB for run %lld, more than its GPU holds (absurd)",
                     bytes / (double)ENGINE_GIB, (long long)p[rows[i].point].run_id);
            return buf;
        }
    }
    return NULL;
}

typedef struct {
    param_state st[CALIB_N_PARAMS];
    double theta[CALIB_N_PARAMS];
    char why[CALIB_N_PARAMS][160]; /* short: it goes into a note with more words */
    double raw[CALIB_N_PARAMS]; /* a refused parameter's fitted value */
    bool pair;                   /* slopes from runs that differ only in max_bs */
    bool pair_in[CALIB_MAX_POINTS];
} fit_state;

/* Fits parameters ELIGIBLE over the points IN (NULL: all) but SKIP; refused values are held and
 * the rest refitted until none is refused. */
static void fit_rows(const calib_point *p, int n, int skip, const bool *in, const bool *eligible, const double *held0,
                     const param_state *preset_state, fit_state *f)
{
    static row rows[MAX_ROWS];
    int m = build_rows(p, n, skip, in, rows, NULL);
    double held[CALIB_N_PARAMS];
    memcpy(held, held0, sizeof held);
    bool refused[CALIB_N_PARAMS] = {false};
    for (int round = 0; round <= CALIB_N_PARAMS; round++) {
        for (int j = 0; j < CALIB_N_PARAMS; j++) {
            if (preset_state && preset_state[j] == ST_PAIR)
                f->st[j] = ST_PAIR;
            else
                f->st[j] = !eligible[j] ? ST_OFF : refused[j] ? ST_REFUSED : ST_FITTED;
        }
        solve(rows, m, f->st, held, f->theta);
        bool again = false;
        for (int j = 0; j < CALIB_N_PARAMS; j++) {
            if (f->st[j] != ST_FITTED)
                continue;
            if (refusal(p, n, rows, m, j, f->theta[j], f->why[j], sizeof f->why[j])) {
                refused[j] = again = true;
                f->raw[j] = f->theta[j];
                f->st[j] = ST_REFUSED;
            }
        }
        if (!again)
            break;
    }
}

/* The largest set of points with one shape and more than one max_bs (method 2), in IN. */
static int pair_group(const calib_point *p, int n, int skip, bool *in)
{
    int best = 0;
    for (int i = 0; i < n; i++) {
        if (i == skip)
            continue;
        int count = 0;
        bool differs = false;
        for (int k = 0; k < n; k++)
            if (k != skip && p[k].shape == p[i].shape) {
                count++;
                differs |= p[k].max_bs != p[i].max_bs;
            }
        if (differs && count > best) {
            best = count;
            for (int k = 0; k < n; k++)
                in[k] = k != skip && p[k].shape == p[i].shape;
        }
    }
    return best;
}

/* The whole fit over the points but SKIP. */
static void fit_core(const calib_point *p, int n, int skip, const bool *eligible, const double *held0, fit_state *f)
{
    memset(f, 0, sizeof *f);
    param_state preset[CALIB_N_PARAMS];
    for (int j = 0; j < CALIB_N_PARAMS; j++)
        preset[j] = ST_OFF;
    double held[CALIB_N_PARAMS];
    memcpy(held, held0, sizeof held);
    int in_pair = pair_group(p, n, skip, f->pair_in);
    int others = 0;
    for (int i = 0; i < n; i++)
        others += i != skip && !f->pair_in[i];
    if (in_pair >= 2) {
        f->pair = true;
        if (others > 0) {
            /* Other layouts are pooled too: the slopes come from the pair alone (the article's
             * method 2), the intercepts from every run. */
            fit_state pf;
            memset(&pf, 0, sizeof pf);
            fit_rows(p, n, skip, f->pair_in, eligible, held, NULL, &pf);
            for (int j = 0; j < CALIB_N_PARAMS; j++)
                if (is_slope(j) && pf.st[j] == ST_FITTED) {
                    preset[j] = ST_PAIR;
                    held[j] = pf.theta[j];
                }
        }
    }
    fit_rows(p, n, skip, NULL, eligible, held, preset, f);
    for (int j = 0; j < CALIB_N_PARAMS; j++)
        if (f->st[j] == ST_PAIR)
            f->theta[j] = held[j];
}

/* ---- Residuals ---- */

/* What the fitted model says of P's layer (VALUES: what the estimate will use). */
static double model_layer(const calib_point *p, int layer, const double *values)
{
    double a[CALIB_N_PARAMS], s = p->fixed[layer];
    layer_columns(p, layer, a);
    for (int j = 0; j < CALIB_N_PARAMS; j++)
        s += a[j] * values[j];
    return layer == LAYER_DRAFT && !p->speculative ? 0 : s;
}

static double measured_target(const calib_point *p)
{
    if (known(p->target_bytes))
        return p->target_bytes;
    return layers_known(p) ? p->static_bytes + p->largest_bytes + p->buckets_bytes : NAN;
}

/* Measured - model of the run's total (target, + draft when it speculates and measured it). */
static double total_residual(const calib_point *p, const double *values, double *measured)
{
    double t = measured_target(p), model = 0;
    for (int l = LAYER_STATIC; l <= LAYER_BUCKETS; l++)
        model += model_layer(p, l, values);
    if (p->speculative && known(p->draft_bytes)) {
        t += p->draft_bytes;
        model += model_layer(p, LAYER_DRAFT, values);
    }
    *measured = t;
    return t - model;
}

/* The values the estimate will use after the fit: stored ones, else the current (0 unknown). */
static void used_values(const fit_state *f, const double *held, double *values)
{
    for (int j = 0; j < CALIB_N_PARAMS; j++)
        values[j] = f->st[j] == ST_FITTED || f->st[j] == ST_PAIR ? f->theta[j] : held[j];
}

/* ---- The fit ---- */

static void add_layout(calib_result *r, const char *layout)
{
    for (int l = 0; l < r->n_layouts; l++)
        if (strcmp(r->layouts[l], layout) == 0)
            return;
    if (r->n_layouts < CALIB_MAX_POINTS)
        snprintf(r->layouts[r->n_layouts++], sizeof r->layouts[0], "%s", layout);
}

void calib_fit(const calib_point *p, int n, const uint64_t current[COEF_COUNT], const bool current_known[COEF_COUNT],
               calib_result *r)
{
    memset(r, 0, sizeof *r);
    if (n > CALIB_MAX_POINTS)
        n = CALIB_MAX_POINTS;
    if (n < 0)
        n = 0;
    r->n_points = n;
    r->worst_total_pct = NAN;

    /* A coefficient is a parameter when every run's estimate takes it; the static intercept always. */
    bool eligible[CALIB_N_PARAMS];
    double held[CALIB_N_PARAMS];
    for (int j = 0; j < CALIB_N_PARAMS; j++) {
        bool have = j == CALIB_STATIC || !current_known || current_known[j];
        eligible[j] = n > 0;
        for (int i = 0; i < n && j < COEF_COUNT; i++)
            eligible[j] &= p[i].free[j];
        held[j] = j < COEF_COUNT && have ? (double)current[j] : 0;
        calib_coef *c = &r->coef[j];
        c->current = j < COEF_COUNT && have ? current[j] : 0;
        c->current_known = have;
        c->fitted = NAN;
    }

    static fit_state f;
    fit_core(p, n, -1, eligible, held, &f);
    static row rows[MAX_ROWS];
    bool use[CALIB_MAX_POINTS] = {false};
    int m = build_rows(p, n, -1, NULL, rows, use);

    for (int j = 0; j < CALIB_N_PARAMS; j++) {
        calib_coef *c = &r->coef[j];
        bool from_totals = false;
        for (int i = 0; i < n; i++) {
            bool touches = false;
            for (int k = 0; k < m; k++)
                if (rows[k].point == i && rows[k].a[j] != 0) {
                    touches = true;
                    from_totals |= rows[k].total;
                }
            if (touches && c->n_runs < CALIB_MAX_POINTS)
                c->runs[c->n_runs++] = p[i].run_id;
        }
        bool one = c->n_runs == 1;
        switch (f.st[j]) {
        case ST_OFF:
            c->kind = CALIB_FIT_NONE;
            c->value = c->current;
            snprintf(c->note, sizeof c->note, "%s",
                     n == 0 ? "no usable run" : "not fitted: the estimator derives this term for the model");
            break;
        case ST_NODATA:
            c->kind = CALIB_FIT_NONE;
            c->value = c->current;
            snprintf(c->note, sizeof c->note, "no run measures it%s",
                     j == COEF_DRAFT_BASE_BYTES || j == COEF_DRAFT_BYTES_PER_ROW ? " (no draft group with memory)"
                     : j == COEF_GRAPH_BYTES || j == COEF_OUT_BYTES_PER_ROW  ? " (no run captured more than one bucket)"
                                                                              : "");
            break;
        case ST_FITTED:
        case ST_PAIR:
            c->kind = CALIB_FIT_FITTED;
            c->stored = true;
            c->fitted = f.theta[j];
            c->value = f.theta[j] > 0 ? (uint64_t)llround(f.theta[j]) : 0;
            c->method2 = f.pair && is_slope(j);
            if (c->method2)
                snprintf(c->note, sizeof c->note, "%s the runs that differ only in max_bs (the article's method 2, "
                         "the cleanest slope)", f.st[j] == ST_PAIR ? "from" : "over");
            else if (j == CALIB_STATIC)
                snprintf(c->note, sizeof c->note, "the static layer's part the exact and derived terms leave");
            else if (!is_slope(j) && from_totals)
                snprintf(c->note, sizeof c->note, "intercept over the exact and derived terms (end-line totals)");
            else
                snprintf(c->note, sizeof c->note, "%s", is_slope(j) ? "slope from runs whose rows differ" : "intercept");
            break;
        case ST_DEPENDENT:
            if (c->current_known || j == CALIB_STATIC) {
                c->kind = CALIB_FIT_HELD;
                c->value = c->current;
                if (j == CALIB_STATIC)
                    snprintf(c->note, sizeof c->note, "held at 0: end-line totals do not part the static layer from "
                             "lazy_bytes (the capture bars do)");
                else
                    snprintf(c->note, sizeof c->note, "held at the preset's value: %s", one ? "one run" :
                             "the runs' rows do not differ enough to part it from the terms before it");
            } else {
                c->kind = CALIB_FIT_ABSORBED;
                c->stored = true;
                c->value = 0;
                snprintf(c->note, sizeof c->note, "absorbed: the model has no value and %s, so the intercept "
                         "carries it (0)", one ? "one run cannot part it" : "the runs do not part it");
            }
            break;
        case ST_REFUSED:
            c->kind = CALIB_FIT_REFUSED;
            c->fitted = f.raw[j];
            c->value = c->current;
            snprintf(c->note, sizeof c->note, "%s; held at %s%s and the rest refitted", f.why[j],
                     c->current_known ? "the current value" : "0 (unknown)", j == CALIB_STATIC ? " (0)" : "");
            break;
        }
        r->n_fitted += c->stored;
    }

    /* Residuals against what the estimate will use, and leave-one-out with three runs or more. */
    double values[CALIB_N_PARAMS];
    used_values(&f, held, values);
    int n_used = 0;
    for (int i = 0; i < n; i++)
        n_used += use[i];
    for (int i = 0; i < n; i++) {
        calib_residual *res = &r->residuals[i];
        const calib_point *q = &p[i];
        res->run_id = q->run_id;
        res->used = use[i];
        res->static_layer = q->static_bytes - model_layer(q, LAYER_STATIC, values);
        res->largest = q->largest_bytes - model_layer(q, LAYER_LARGEST, values);
        res->buckets = q->buckets_bytes - model_layer(q, LAYER_BUCKETS, values);
        res->draft = q->speculative ? q->draft_bytes - model_layer(q, LAYER_DRAFT, values) : NAN;
        res->total = total_residual(q, values, &res->measured_total);
        res->total_pct = res->measured_total > 0 ? 100.0 * res->total / res->measured_total : NAN;
        res->loo_total = NAN;
        if (use[i] && n_used >= 3) {
            static fit_state lf;
            fit_core(p, n, i, eligible, held, &lf);
            double lv[CALIB_N_PARAMS], measured;
            used_values(&lf, held, lv);
            res->loo_total = total_residual(q, lv, &measured);
        }
        if (use[i] && isfinite(res->total_pct) && !(fabs(res->total_pct) <= r->worst_total_pct))
            r->worst_total_pct = fabs(res->total_pct);
        add_layout(r, q->layout);
        if (f.pair && f.pair_in[i] && r->n_pair_runs < CALIB_MAX_POINTS)
            r->pair_runs[r->n_pair_runs++] = q->run_id;
    }
    r->mixed_layouts = r->n_layouts > 1;

    if (r->n_fitted == 0) {
        if (n == 0)
            snprintf(r->advice, sizeof r->advice, "no usable run: ingest start-up logs of this model and GPU whose "
                     "capture groups print memory (cgplan ingest --model M --set gpu=G server.log)");
        else if (m == 0)
            snprintf(r->advice, sizeof r->advice, "the runs measure no graph memory: a log with the target group's "
                     "`Capture ... CUDA graph end ... mem usage=` line, or its capture bars, is needed");
        else
            snprintf(r->advice, sizeof r->advice, "every value the runs give was refused: check the runs' knobs "
                     "(max_dispatch, GPU, layout), or add two runs that differ only in max_bs (the article's method 2)");
    }
}

void calib_to_calibration(const calib_result *r, const calib_point *points, int n, engine_calibration *cal)
{
    memset(cal, 0, sizeof *cal);
    for (int c = 0; c < COEF_COUNT; c++) {
        cal->has[c] = r->coef[c].stored;
        cal->value[c] = cal->has[c] ? r->coef[c].value : 0;
    }
    cal->has_static = r->coef[CALIB_STATIC].stored;
    cal->static_bytes = cal->has_static ? r->coef[CALIB_STATIC].value : 0;
    for (int i = 0; i < n && cal->n_runs < ENGINE_MAX_CAL_RUNS; i++)
        if (i >= r->n_points || r->residuals[i].used)
            cal->runs[cal->n_runs++] = points[i].run_id;
}

void calib_estimate_terms(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    engine_estimate_terms(d, cal, e);
    if (!cal || !cal->has_static)
        return;
    for (int t = 0; t < TERM_COUNT; t++)
        if (e->terms[t].layer == LAYER_STATIC && e->terms[t].source == SOURCE_CALIBRATED)
            return; /* the estimator books it itself */
    e->layer_bytes[LAYER_STATIC] += cal->static_bytes;
    e->target_total_bytes += cal->static_bytes;
    e->total_bytes += cal->static_bytes;
}
