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
    /* Which coefficients the run's estimate takes: a term built from a fit (its fit part), one
     * with no formula, and a per-row act from a coefficient. A term built from its mechanism is
     * subtracted like the exact ones (the kernel nodes at the GPU's node_bytes, calibrated first),
     * but the widest layer, whose per-row slope the bars can part, is a free coefficient with its
     * mechanism to fall back on. */
    static const struct {
        engine_term_id term;
        engine_part_id fit; /* PART_COUNT: none (act is a coefficient or the widest layer) */
        int coef[2];
    } uses[] = {
        {TERM_LAZY, PART_LAZY_FIT, {COEF_LAZY_BYTES, -1}},
        {TERM_ACT, PART_COUNT, {COEF_ACT_BYTES_PER_ROW, -1}},
        {TERM_BUCKETS, PART_BUCKETS_FIT, {COEF_GRAPH_BYTES, COEF_OUT_BYTES_PER_ROW}},
        {TERM_DRAFT, PART_DRAFT_FIT, {COEF_DRAFT_BASE_BYTES, COEF_DRAFT_BYTES_PER_ROW}},
    };
    bool fitted_term[TERM_COUNT] = {false};
    memset(p->free, 0, sizeof p->free);
    memset(p->mechanism, 0, sizeof p->mechanism);
    memset(p->mechanism_bytes, 0, sizeof p->mechanism_bytes);
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        const engine_term *t = &e->terms[uses[i].term];
        bool from_fit = uses[i].fit < PART_COUNT ? e->parts[uses[i].fit].present
                                                 : t->source == SOURCE_COEFFICIENT || t->source == SOURCE_CALIBRATED;
        bool widest = uses[i].term == TERM_ACT && t->source == SOURCE_DERIVED && t->known;
        if (!from_fit && !widest && t->source != SOURCE_UNKNOWN)
            continue; /* from its mechanism: subtracted like the other fixed terms */
        fitted_term[uses[i].term] = true;
        for (int c = 0; c < 2; c++)
            if (uses[i].coef[c] >= 0) {
                p->free[uses[i].coef[c]] = true;
                p->mechanism[uses[i].coef[c]] = widest;
                p->mechanism_bytes[uses[i].coef[c]] = widest ? (double)t->bytes : 0;
            }
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

/* Why VALUE of parameter J is refused, or NULL: negative, non-finite, past its bound, or larger than a GPU. */
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
    /* the store's bound on save and load: what the estimate's arithmetic is sized for */
    double top = (double)engine_calibration_max(j);
    if (value > top) {
        snprintf(buf, len, "refused: the fit gives %.0f B, above the %.0f B the estimate takes", value, top);
        return buf;
    }
    for (int i = 0; i < m; i++) {
        double bytes = value * rows[i].a[j];
        double gpu = rows[i].point < n ? p[rows[i].point].gpu_bytes : 0;
        double limit = gpu > 0 && gpu < ABSURD_BYTES ? gpu : ABSURD_BYTES; /* a GPU preset may say up to 1 PiB */
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
        /* then, once the rest stands, a slope above what a preset may hold (ENGINE_COEF_MAX, 4 GiB a
         * row or a graph; an intercept may carry a totals run's whole unexplained part): checked
         * last, so one refused for its sign is refitted before its neighbours are judged */
        bool capped = false;
        for (int j = 0; !again && j < COEF_COUNT; j++) {
            if (f->st[j] != ST_FITTED || !is_slope(j) || !(f->theta[j] > (double)ENGINE_COEF_MAX))
                continue;
            snprintf(f->why[j], sizeof f->why[j],
                     "refused: the fit gives %.0f B, above a coefficient's 4 GiB a row or graph (absurd)", f->theta[j]);
            refused[j] = capped = true;
            f->raw[j] = f->theta[j];
            f->st[j] = ST_REFUSED;
        }
        if (!again && !capped)
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

/* The layer coefficient J's term is in. */
static int coef_layer(int j)
{
    switch (j) {
    case COEF_GRAPH_BYTES:
    case COEF_OUT_BYTES_PER_ROW:
        return LAYER_BUCKETS;
    case COEF_DRAFT_BASE_BYTES:
    case COEF_DRAFT_BYTES_PER_ROW:
        return LAYER_DRAFT;
    default:
        return LAYER_LARGEST;
    }
}

/* Whether some point measures coefficient J's layer on its own (the bars), so that a slope can
 * be parted from the intercepts; end-line totals alone leave it to the static intercept. */
static bool layer_measured(const calib_point *p, int n, int j)
{
    for (int i = 0; i < n; i++) {
        double v = coef_layer(j) == LAYER_BUCKETS ? p[i].buckets_bytes
                   : coef_layer(j) == LAYER_DRAFT ? p[i].draft_bytes
                                                  : p[i].largest_bytes;
        if (known(v))
            return true;
    }
    return false;
}

/* Coefficient J stops being free where its term has a mechanism: the mechanism's bytes join the
 * fixed terms of their layer. */
static void fold_mechanism(calib_point *p, int n, int j)
{
    for (int i = 0; i < n; i++)
        if (p[i].mechanism[j]) {
            p[i].fixed[coef_layer(j)] += p[i].mechanism_bytes[j];
            p[i].free[j] = false;
            p[i].mechanism[j] = false;
        }
}

void calib_fit(const calib_point *points, int n, const uint64_t current[COEF_COUNT],
               const bool current_known[COEF_COUNT], calib_result *r)
{
    memset(r, 0, sizeof *r);
    if (n > CALIB_MAX_POINTS)
        n = CALIB_MAX_POINTS;
    if (n < 0)
        n = 0;
    r->n_points = n;
    r->worst_total_pct = NAN;
    /* A copy the fit may change: a coefficient with a mechanism that the runs do not part is
     * folded back into the fixed terms. */
    calib_point p[CALIB_MAX_POINTS];
    if (n > 0)
        memcpy(p, points, (size_t)n * sizeof p[0]);
    bool backed[CALIB_N_PARAMS] = {false}; /* some run has the term's mechanism to fall back on */
    char folded[CALIB_N_PARAMS][160] = {{0}};
    for (int j = 0; j < COEF_COUNT; j++)
        for (int i = 0; i < n; i++)
            backed[j] |= p[i].mechanism[j];

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

    for (int j = 0; j < COEF_COUNT; j++)
        if (backed[j] && eligible[j] && !layer_measured(p, n, j)) {
            fold_mechanism(p, n, j);
            eligible[j] = false;
            snprintf(folded[j], sizeof folded[j], "no run's bars bound its layer");
        }

    static fit_state f;
    fit_core(p, n, -1, eligible, held, &f);
    /* A mechanism-backed coefficient the rows did not give keeps its mechanism: the rest refitted. */
    bool refit = false;
    for (int j = 0; j < COEF_COUNT; j++) {
        if (!backed[j] || !eligible[j] || f.st[j] == ST_FITTED || f.st[j] == ST_PAIR)
            continue;
        snprintf(folded[j], sizeof folded[j], "%s",
                 f.st[j] == ST_REFUSED  ? f.why[j]
                 : f.st[j] == ST_NODATA ? "no run measures it"
                                        : "the runs do not part it from the intercepts");
        fold_mechanism(p, n, j);
        eligible[j] = false;
        refit = true;
    }
    if (refit)
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
            if (n == 0)
                snprintf(c->note, sizeof c->note, "no usable run");
            else if (folded[j][0])
                snprintf(c->note, sizeof c->note,
                         "held at its mechanism (the widest layer from the model's "
                         "shapes): %.150s",
                         folded[j]);
            else if (j == COEF_GRAPH_BYTES || j == COEF_OUT_BYTES_PER_ROW || j == COEF_DRAFT_BASE_BYTES ||
                     j == COEF_DRAFT_BYTES_PER_ROW)
                snprintf(c->note, sizeof c->note,
                         "fixed: the graphs' kernel nodes at the GPU's node_bytes (fitted "
                         "first, over every model's runs), their wrappers and buffers");
            else
                snprintf(c->note, sizeof c->note, "fixed: the estimator builds this term from its mechanism");
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

/* ---- node_bytes: the GPU's bytes per kernel node, from any model's runs on it ---- */

/* The logs print GiB to two decimals: each printed number is within half a hundredth. */
#define PRINTED_HALF_STEP (0.005 * (double)ENGINE_GIB)

bool calib_node_point_from_estimate(const engine_deployment *d, const engine_estimate *e, const calib_measured *m,
                                    calib_node_point *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    engine_copy_text(out->model, sizeof out->model, d->model.name);
    engine_layout_name(&d->knobs, LAYOUT_NAME_COMPACT, out->layout, sizeof out->layout);
    out->graphs = e->n_buckets;
    if (!e->parts[PART_BUCKETS_NODES].present) {
        snprintf(why, whylen, "its estimate prices the graphs by a fit, not by their kernel nodes");
        return false;
    }
    if (!e->total_complete) {
        snprintf(why, whylen, "its estimate has a term with no formula, so what is left for the nodes is unknown");
        return false;
    }
    double n = e->n_buckets, per_graph = (double)e->graph_nodes.nodes.expected;
    bool layers = known(m->static_bytes) && known(m->largest_bytes) && known(m->buckets_bytes);
    if (layers && e->n_buckets > 1 && per_graph > 0) {
        /* The further graphs alone: their nodes, wrappers, NCCL work (per graph, so all but the
         * largest's share) and their own outputs (already the further graphs'). The largest
         * bucket's temporaries, lazy allocations and the static buffers stay out. */
        double per_graph_parts =
            (double)(e->parts[PART_BUCKETS_WRAPPERS].bytes + e->parts[PART_BUCKETS_NCCL_WORK].bytes);
        double outputs = (double)(e->layer_bytes[LAYER_BUCKETS] - e->terms[TERM_BUCKETS].bytes);
        out->bytes = m->buckets_bytes - outputs - per_graph_parts * (n - 1) / n;
        out->nodes = (n - 1) * per_graph;
        out->tolerance = 2 * PRINTED_HALF_STEP; /* the difference of two printed free-memory values */
        out->from_buckets = true;
    } else {
        double target = known(m->target_bytes) ? m->target_bytes
                        : layers               ? m->static_bytes + m->largest_bytes + m->buckets_bytes
                                               : NAN;
        if (!known(target)) {
            snprintf(why, whylen, "it measures no capture total (a `CUDA graph end ... mem usage=` line or its bars)");
            return false;
        }
        double nodes_bytes = (double)e->parts[PART_BUCKETS_NODES].bytes;
        out->bytes = target - ((double)e->target_total_bytes - nodes_bytes);
        out->nodes = (double)e->graph_nodes_total;
        out->tolerance = PRINTED_HALF_STEP;
        if (d->knobs.mtp > 1 && known(m->draft_bytes) && e->parts[PART_DRAFT_NODES].present) {
            double draft_nodes = (double)e->parts[PART_DRAFT_NODES].bytes;
            out->bytes += m->draft_bytes - ((double)e->draft_total_bytes - draft_nodes);
            out->nodes += n * (double)e->graph_nodes.draft_nodes.expected;
            out->tolerance += PRINTED_HALF_STEP;
            out->with_draft = true;
        }
    }
    if (!(out->nodes > 0) || !known(out->bytes)) {
        snprintf(why, whylen, "its measured part holds no kernel node the estimate counts");
        return false;
    }
    return true;
}

static bool has_name(char names[][ENGINE_NAME_MAX], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

void calib_fit_node_bytes(const calib_node_point *p, int n, calib_node_result *r)
{
    memset(r, 0, sizeof *r);
    if (n > CALIB_MAX_POINTS)
        n = CALIB_MAX_POINTS;
    if (n < 0)
        n = 0;
    r->n_points = n;
    r->slope = NAN;
    uint32_t counts[CALIB_MAX_POINTS];
    double sxy = 0, sxx = 0;
    for (int i = 0; i < n; i++) {
        r->k[i] = r->residual_pct[i] = NAN;
        if (!(p[i].nodes > 0) || !known(p[i].bytes))
            continue;
        r->used[i] = true;
        r->runs[r->n_runs++] = p[i].run_id;
        r->k[i] = p[i].bytes / p[i].nodes;
        sxy += p[i].nodes * p[i].bytes;
        sxx += p[i].nodes * p[i].nodes;
        if (!has_name(r->models, r->n_models, p[i].model))
            engine_copy_text(r->models[r->n_models++], sizeof r->models[0], p[i].model);
        bool seen = false;
        for (int c = 0; c < r->n_graph_counts; c++)
            seen |= counts[c] == p[i].graphs;
        if (!seen)
            counts[r->n_graph_counts++] = p[i].graphs;
    }
    static const char more[] = "ingest a second launch with another --cuda-graph-max-bs (another number of captured "
                               "graphs), or any other model's start-up log on this GPU";
    if (r->n_runs == 0) {
        snprintf(r->advice, sizeof r->advice,
                 "no run on this GPU measures its graphs' memory with its layout known: ingest any model's "
                 "start-up log whose capture prints `mem usage=` or its bars (cgplan ingest --preset P, or --model M "
                 "--set gpu=G --set tp=N, server.log)");
        return;
    }
    if (r->n_runs < 2 || (r->n_graph_counts < 2 && r->n_models < 2)) {
        if (r->n_runs == 1)
            snprintf(r->advice, sizeof r->advice,
                     "node_bytes takes runs of at least two graph counts or two models, "
                     "and run %lld alone cannot part the bytes per node from what else its graphs hold: %s",
                     (long long)r->runs[0], more);
        else
            snprintf(r->advice, sizeof r->advice,
                     "node_bytes takes runs of at least two graph counts or two models, "
                     "and the %d runs are all of %s with %u graphs: %s",
                     r->n_runs, r->models[0], counts[0], more);
        return;
    }
    r->slope = sxy / sxx;
    if (!(r->slope >= CALIB_NODE_BYTES_MIN && r->slope <= CALIB_NODE_BYTES_MAX)) {
        snprintf(r->advice, sizeof r->advice,
                 "refused: the fit gives %.0f B per node, outside %.0f B .. 1 MiB: the "
                 "runs' other terms do not match what they measured; check their knobs (GPU, layout, release) with "
                 "cgplan runs show",
                 r->slope, CALIB_NODE_BYTES_MIN);
        return;
    }
    /* The range: each run's own k, moved by what the log's rounding allows, and never narrower
     * than the slope itself. */
    double lo = r->slope, hi = r->slope;
    for (int i = 0; i < n; i++) {
        if (!r->used[i])
            continue;
        double a = (p[i].bytes - p[i].tolerance) / p[i].nodes, b = (p[i].bytes + p[i].tolerance) / p[i].nodes;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
        r->residual_pct[i] = p[i].bytes != 0 ? 100.0 * (p[i].bytes - r->slope * p[i].nodes) / fabs(p[i].bytes) : NAN;
    }
    /* within the knob's range, as the slope is: a run whose rounding is larger than its bytes
     * would give 0 B (or, with few nodes, past any uint64_t) */
    lo = lo < CALIB_NODE_BYTES_MIN ? CALIB_NODE_BYTES_MIN : lo;
    hi = hi > CALIB_NODE_BYTES_MAX ? CALIB_NODE_BYTES_MAX : hi;
    r->fitted = true;
    r->node_bytes.expected = (uint64_t)llround(r->slope);
    r->node_bytes.low = lo > 0 ? (uint64_t)floor(lo) : 0;
    r->node_bytes.high = (uint64_t)ceil(hi);
}
