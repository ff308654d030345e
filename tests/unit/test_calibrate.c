/* test_calibrate.c — the fits of the estimator's non-exact terms (issues 10 and 18): bar ladders,
 * end-line totals, method-2 pairs, refusals, absorption, leave-one-out, nothing fitted; node_bytes
 * per GPU from two models' runs, and the per-model fit after it with the mechanisms fixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"

#define GIB ((double)ENGINE_GIB)
#define MIB ((double)ENGINE_MIB)

static uint64_t k3[COEF_COUNT];
static const bool all_known[COEF_COUNT] = {true, true, true, true, true, true};
static const bool none_known[COEF_COUNT] = {false};

static void free_all(calib_point *p)
{
    for (int c = 0; c < COEF_COUNT; c++)
        p->free[c] = true;
}

/* The article's runs as the logs print them (REFERENCE-FIGURES.md), with the estimator's view of
 * each run's own knobs: max_dispatch 144 / 128, rows 144 / 960, buckets 6 / 23. */
/* DeepEP's normal-mode NVL buffer at EP16 (auto mode): an exact term the fit subtracts. */
static uint64_t deepep_normal_ep16(void)
{
    uint64_t nvl = 0, rdma = 0;
    assert_true(engine_deepep_normal_bytes(16, 2 * 3584, &nvl, &rdma));
    return nvl; /* its RDMA part (51.7 MB) is below the LL buffer's, so auto adds nothing more */
}

static calib_point dp16(void)
{
    calib_point p = {0};
    p.run_id = 1;
    snprintf(p.layout, sizeof p.layout, "DP16 MTP6");
    p.shape = 16;
    p.max_bs = 24;
    p.gpu_bytes = 178.35 * GIB;
    p.static_bytes = 0.18 * GIB;
    p.largest_bytes = 7.17 * GIB;
    p.buckets_bytes = 0.25 * GIB;
    p.target_bytes = 7.60 * GIB;
    p.draft_bytes = 0.56 * GIB;
    p.fixed[LAYER_STATIC] = p.static_predicted = 0.184 * GIB;
    p.fixed[LAYER_LARGEST] = (double)(engine_deepep_ll_hint_bytes(144, 3584, 896) +
                                      engine_masked_gemm_sum_bytes(144, 3584, 3072, 896) + deepep_normal_ep16());
    p.attn_rows_scaled = 144;
    p.attn_rows = 144;
    p.other_buckets = 5;
    p.other_rows = 186;
    p.speculative = true;
    free_all(&p);
    return p;
}

static calib_point dp2(void)
{
    calib_point p = {0};
    p.run_id = 2;
    snprintf(p.layout, sizeof p.layout, "DP2xDCP8 MTP5");
    p.shape = 2;
    p.max_bs = 192;
    p.gpu_bytes = 178.35 * GIB;
    p.static_bytes = 1.33 * GIB;
    p.largest_bytes = 10.24 * GIB;
    p.buckets_bytes = 1.35 * GIB;
    p.target_bytes = 12.92 * GIB;
    p.draft_bytes = 1.04 * GIB;
    p.fixed[LAYER_STATIC] = p.static_predicted = 1.349 * GIB;
    p.fixed[LAYER_LARGEST] = (double)(engine_deepep_ll_hint_bytes(128, 3584, 896) +
                                      engine_masked_gemm_sum_bytes(128, 3584, 3072, 896) + deepep_normal_ep16());
    p.attn_rows_scaled = 960;
    p.attn_rows = 960;
    p.other_buckets = 22;
    p.other_rows = 11000;
    p.speculative = true;
    free_all(&p);
    return p;
}

/* A DP2 run at another max_bs whose layers follow TRUTH exactly (bars or, TOTALS, only the end). */
static calib_point dp2_at(int64_t id, uint32_t max_bs, const double truth[CALIB_N_PARAMS], bool totals)
{
    calib_point p = dp2();
    p.run_id = id;
    p.max_bs = max_bs;
    double n = (max_bs - 16) / 8; /* buckets 16..max_bs step 8, the largest apart */
    double rows = 0;
    for (uint32_t bs = 16; bs < max_bs; bs += 8)
        rows += bs * 5.0;
    p.attn_rows = p.attn_rows_scaled = max_bs * 5.0;
    p.other_buckets = n;
    p.other_rows = rows;
    p.fixed[LAYER_STATIC] = p.static_predicted = 1.349 * GIB * max_bs / 192;
    p.static_bytes = p.fixed[LAYER_STATIC] + truth[CALIB_STATIC];
    p.largest_bytes = p.fixed[LAYER_LARGEST] + truth[COEF_LAZY_BYTES] + truth[COEF_ACT_BYTES_PER_ROW] * p.attn_rows;
    p.buckets_bytes = truth[COEF_GRAPH_BYTES] * n + truth[COEF_OUT_BYTES_PER_ROW] * rows;
    p.target_bytes = p.static_bytes + p.largest_bytes + p.buckets_bytes;
    p.draft_bytes = truth[COEF_DRAFT_BASE_BYTES] + truth[COEF_DRAFT_BYTES_PER_ROW] * p.attn_rows;
    if (totals)
        p.static_bytes = p.largest_bytes = p.buckets_bytes = NAN;
    return p;
}

static int setup(void **state)
{
    (void)state;
    engine_k3_default_coefficients(k3);
    return 0;
}

static void assert_close(double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want))
        fail_msg("%.0f is not within %.1f%% of %.0f", got, rel * 100, want);
}

static void test_two_layouts_reproduce_defaults(void **state)
{
    (void)state;
    calib_point pts[2] = {dp16(), dp2()};
    uint64_t zero[COEF_COUNT] = {0};
    static calib_result r;
    calib_fit(pts, 2, zero, none_known, &r); /* start from nothing: the fit alone must find K3's values */
    for (int c = 0; c < COEF_COUNT; c++) {
        assert_int_equal(r.coef[c].kind, CALIB_FIT_FITTED);
        assert_true(r.coef[c].stored);
        assert_close((double)r.coef[c].value, (double)k3[c], 0.05);
        assert_int_equal(r.coef[c].n_runs, 2);
    }
    /* the static layer's part the exact terms leave is negative here (0.18 - 0.184): refused */
    assert_int_equal(r.coef[CALIB_STATIC].kind, CALIB_FIT_REFUSED);
    assert_false(r.coef[CALIB_STATIC].stored);
    assert_non_null(strstr(r.coef[CALIB_STATIC].note, "refused"));
    assert_true(r.mixed_layouts);
    assert_int_equal(r.n_layouts, 2);
    assert_int_equal(r.n_pair_runs, 0); /* different shapes: not method 2 */
    assert_true(fabs(r.residuals[0].largest) < 1e3 && fabs(r.residuals[1].largest) < 1e3);
    assert_true(fabs(r.residuals[0].static_layer + 0.004 * GIB) < 1e3);
    assert_true(r.worst_total_pct < 0.5);
    assert_true(isnan(r.residuals[0].loo_total)); /* two runs: no leave-one-out */
    engine_calibration cal;
    calib_to_calibration(&r, pts, 2, &cal);
    assert_int_equal(cal.n_runs, 2);
    assert_true(cal.has[COEF_ACT_BYTES_PER_ROW] && cal.has[COEF_DRAFT_BASE_BYTES]);
    assert_false(cal.has_static);
}

static void test_one_run_holds_slopes(void **state)
{
    (void)state;
    calib_point p = dp2();
    static calib_result r;
    calib_fit(&p, 1, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_FITTED);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_HELD);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].value, k3[COEF_ACT_BYTES_PER_ROW]);
    assert_non_null(strstr(r.coef[COEF_ACT_BYTES_PER_ROW].note, "one run"));
    assert_close((double)r.coef[COEF_LAZY_BYTES].value, (double)k3[COEF_LAZY_BYTES], 0.01);
    assert_int_equal(r.coef[COEF_GRAPH_BYTES].kind, CALIB_FIT_FITTED);
    assert_int_equal(r.coef[COEF_OUT_BYTES_PER_ROW].kind, CALIB_FIT_HELD);
    engine_calibration cal;
    calib_to_calibration(&r, &p, 1, &cal);
    assert_true(cal.has[COEF_LAZY_BYTES]);
    assert_false(cal.has[COEF_ACT_BYTES_PER_ROW]);
}

/* A refused intercept refits the slope with the intercept held (accuracy-audit: a real pair). */
static void test_refused_intercept_refits_slope(void **state)
{
    (void)state;
    calib_point a = dp16(), b = dp2();
    b.shape = a.shape;                /* one deployment, two max_bs */
    b.largest_bytes = 16.0 * GIB;     /* steep: the joint intercept goes below zero */
    calib_point pts[2] = {a, b};
    static calib_result r;
    calib_fit(pts, 2, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_REFUSED);
    assert_true(r.coef[COEF_LAZY_BYTES].fitted < 0);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].value, k3[COEF_LAZY_BYTES]);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_FITTED);
    /* the slope through the held intercept: least squares over both runs */
    double ya = a.largest_bytes - a.fixed[LAYER_LARGEST] - (double)k3[COEF_LAZY_BYTES];
    double yb = b.largest_bytes - b.fixed[LAYER_LARGEST] - (double)k3[COEF_LAZY_BYTES];
    double want = (ya * 144 + yb * 960) / (144.0 * 144 + 960.0 * 960);
    assert_close((double)r.coef[COEF_ACT_BYTES_PER_ROW].value, want, 1e-6);
    assert_true(r.coef[COEF_ACT_BYTES_PER_ROW].method2);
}

static void test_negative_slope_refused(void **state)
{
    (void)state;
    calib_point a = dp16(), b = dp2();
    a.largest_bytes = 12 * GIB; /* more at fewer rows */
    calib_point pts[2] = {a, b};
    static calib_result r;
    calib_fit(pts, 2, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_REFUSED);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].value, k3[COEF_ACT_BYTES_PER_ROW]);
    assert_false(r.coef[COEF_ACT_BYTES_PER_ROW].stored);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_FITTED); /* refitted against the kept slope */
}

static void test_absurd_and_non_finite_refused(void **state)
{
    (void)state;
    calib_point p = dp2();
    p.largest_bytes = 5000 * GIB; /* more than a B200 holds */
    static calib_result r;
    calib_fit(&p, 1, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_REFUSED);
    assert_non_null(strstr(r.coef[COEF_LAZY_BYTES].note, "absurd"));
    p = dp2();
    p.largest_bytes = INFINITY;
    p.target_bytes = NAN;
    calib_fit(&p, 1, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_NONE); /* not a measurement */
}

/* Found by fuzz_calibrate: a slope above what a preset may hold (ENGINE_COEF_MAX: 4 GiB a row or
 * a graph) is refused even where the GPU would hold its term (a GPU preset may say up to 1 PiB),
 * and the static intercept stays below ABSURD_BYTES (16 TiB) whatever gpu_bytes says. */
static void test_slope_and_intercept_bounds(void **state)
{
    (void)state;
    double truth[CALIB_N_PARAMS] = {0};
    truth[COEF_ACT_BYTES_PER_ROW] = 5 * GIB; /* 5 GiB a row: above a coefficient's 4 GiB */
    truth[COEF_LAZY_BYTES] = 0.5 * GIB;
    calib_point pts[2] = {dp2_at(3, 128, truth, false), dp2_at(4, 160, truth, false)};
    for (int i = 0; i < 2; i++)
        pts[i].gpu_bytes = 1024.0 * 1024 * GIB;
    static calib_result r;
    calib_fit(pts, 2, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_REFUSED);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].value, k3[COEF_ACT_BYTES_PER_ROW]);
    assert_non_null(strstr(r.coef[COEF_ACT_BYTES_PER_ROW].note, "above the 4294967296 B"));
    calib_point p = dp2();
    p.gpu_bytes = 1024.0 * 1024 * GIB;
    p.static_bytes = 20000.0 * 1024 * GIB; /* 20 TiB of static layer: more than any GPU */
    calib_fit(&p, 1, k3, all_known, &r);
    assert_false(r.coef[CALIB_STATIC].stored);
    assert_int_equal(r.coef[CALIB_STATIC].kind, CALIB_FIT_REFUSED);
}

/* Totals only, three max_bs of one deployment: intercept and slopes, totals reproduced. */
static void test_totals_only(void **state)
{
    (void)state;
    double truth[CALIB_N_PARAMS] = {0};
    truth[COEF_ACT_BYTES_PER_ROW] = 5.1 * MIB;
    truth[COEF_LAZY_BYTES] = 0.3 * GIB;
    truth[COEF_GRAPH_BYTES] = 40 * MIB;
    truth[COEF_OUT_BYTES_PER_ROW] = 30 * 1024;
    truth[COEF_DRAFT_BASE_BYTES] = 0.4 * GIB;
    truth[COEF_DRAFT_BYTES_PER_ROW] = 0.7 * MIB;
    calib_point pts[3] = {dp2_at(3, 128, truth, true), dp2_at(4, 160, truth, true), dp2_at(5, 176, truth, true)};
    static calib_result r;
    calib_fit(pts, 3, k3, all_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_FITTED);
    assert_non_null(strstr(r.coef[COEF_LAZY_BYTES].note, "totals"));
    assert_int_equal(r.coef[CALIB_STATIC].kind, CALIB_FIT_HELD); /* totals do not part it from lazy */
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_FITTED);
    assert_int_equal(r.n_pair_runs, 3);
    assert_true(r.coef[COEF_ACT_BYTES_PER_ROW].method2);
    assert_true(r.worst_total_pct < 0.01);
    for (int i = 0; i < 3; i++) {
        assert_true(r.residuals[i].used);
        assert_true(isfinite(r.residuals[i].loo_total)); /* three runs: leave-one-out */
    }
    assert_close((double)r.coef[COEF_DRAFT_BYTES_PER_ROW].value, truth[COEF_DRAFT_BYTES_PER_ROW], 1e-6);
}

/* One totals run of a model without coefficients: the unknown part as one intercept over the
 * exact terms; what it cannot part is absorbed (0), so the estimate's total is complete. */
static void test_one_total_absorbs(void **state)
{
    (void)state;
    double truth[CALIB_N_PARAMS] = {0};
    truth[COEF_ACT_BYTES_PER_ROW] = 5 * MIB;
    truth[COEF_LAZY_BYTES] = 0.5 * GIB;
    truth[COEF_GRAPH_BYTES] = 40 * MIB;
    calib_point p = dp2_at(7, 128, truth, true);
    p.speculative = false;
    p.draft_bytes = NAN;
    uint64_t zero[COEF_COUNT] = {0};
    static calib_result r;
    calib_fit(&p, 1, zero, none_known, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_FITTED);
    assert_close((double)r.coef[COEF_LAZY_BYTES].value, p.target_bytes - p.fixed[LAYER_STATIC] - p.fixed[LAYER_LARGEST],
                 1e-9);
    for (int c = COEF_ACT_BYTES_PER_ROW; c <= COEF_OUT_BYTES_PER_ROW; c++) {
        if (c == COEF_LAZY_BYTES)
            continue;
        assert_int_equal(r.coef[c].kind, CALIB_FIT_ABSORBED);
        assert_true(r.coef[c].stored);
        assert_int_equal(r.coef[c].value, 0);
    }
    assert_int_equal(r.coef[COEF_DRAFT_BASE_BYTES].kind, CALIB_FIT_NONE); /* no draft: not stored */
    assert_false(r.coef[COEF_DRAFT_BASE_BYTES].stored);
    assert_true(fabs(r.residuals[0].total) < 1);
}

/* Two runs that differ only in max_bs beside another layout: the slopes from the pair alone. */
static void test_method2_pair_gives_slopes(void **state)
{
    (void)state;
    double truth[CALIB_N_PARAMS] = {0};
    truth[COEF_ACT_BYTES_PER_ROW] = 5.1 * MIB;
    truth[COEF_LAZY_BYTES] = 0.3 * GIB;
    truth[COEF_GRAPH_BYTES] = 40 * MIB;
    truth[COEF_OUT_BYTES_PER_ROW] = 30 * 1024;
    truth[COEF_DRAFT_BASE_BYTES] = 0.4 * GIB;
    truth[COEF_DRAFT_BYTES_PER_ROW] = 0.7 * MIB;
    calib_point pts[3] = {dp2_at(3, 128, truth, false), dp2_at(4, 176, truth, false), dp16()};
    static calib_result r;
    calib_fit(pts, 3, k3, all_known, &r);
    assert_int_equal(r.n_pair_runs, 2);
    assert_true(r.mixed_layouts);
    for (int c = 0; c < COEF_COUNT; c++)
        if (c == COEF_ACT_BYTES_PER_ROW || c == COEF_GRAPH_BYTES || c == COEF_OUT_BYTES_PER_ROW ||
            c == COEF_DRAFT_BYTES_PER_ROW) {
            assert_true(r.coef[c].method2);
            assert_close((double)r.coef[c].value, truth[c], 1e-3); /* DP16 does not bend them */
        }
    assert_non_null(strstr(r.coef[COEF_ACT_BYTES_PER_ROW].note, "method 2"));
}

static void test_nothing_fitted(void **state)
{
    (void)state;
    calib_point p = dp2();
    p.static_bytes = p.largest_bytes = p.buckets_bytes = p.target_bytes = p.draft_bytes = NAN;
    static calib_result r;
    calib_fit(&p, 1, k3, all_known, &r);
    assert_int_equal(r.n_fitted, 0);
    assert_false(r.residuals[0].used);
    assert_non_null(strstr(r.advice, "mem usage"));
    calib_fit(&p, 0, k3, all_known, &r);
    assert_int_equal(r.n_fitted, 0);
    assert_non_null(strstr(r.advice, "no usable run"));
    assert_int_equal(r.coef[COEF_LAZY_BYTES].value, k3[COEF_LAZY_BYTES]);
}

static void test_static_intercept_booked(void **state)
{
    (void)state;
    engine_deployment d;
    engine_deployment_defaults(&d);
    snprintf(d.model.name, sizeof d.model.name, "tiny");
    d.model.vocab = 1000;
    d.model.hidden = 512;
    d.model.heads = 8;
    d.model.num_experts = 8;
    d.model.dispatch_hidden = 512;
    d.model.moe_intermediate = 256;
    d.gpu.cuda_total_bytes = 80 * ENGINE_GIB;
    static engine_estimate plain, booked;
    engine_estimate_terms(&d, NULL, &plain);
    engine_calibration cal = {0};
    cal.has_static = true;
    cal.static_bytes = 12345;
    calib_estimate_terms(&d, &cal, &booked);
    assert_int_equal(booked.layer_bytes[LAYER_STATIC], plain.layer_bytes[LAYER_STATIC] + 12345);
    assert_int_equal(booked.total_bytes, plain.total_bytes + 12345);
    /* the point of a run from its estimate: fixed terms and free coefficients */
    calib_point p = {0};
    calib_point_from_estimate(&d, &plain, &p);
    assert_true(p.free[COEF_LAZY_BYTES]);
    assert_true(fabs(p.fixed[LAYER_STATIC] - (double)plain.layer_bytes[LAYER_STATIC]) < 1);
    calib_point q = p;
    d.knobs.max_bs = 48; /* differs only in max_bs: the same shape */
    calib_point_from_estimate(&d, &plain, &q);
    assert_true(q.shape == p.shape && q.max_bs != p.max_bs);
    d.knobs.mtp = 2;
    calib_point_from_estimate(&d, &plain, &q);
    assert_true(q.shape != p.shape);
}

/* ---- node_bytes per GPU, then the per-model residuals ---- */

/* A model with no coefficient on H200 at SGLang 0.5.3: every term from its mechanism. */
static void gqa_model(engine_deployment *d, const char *name, uint32_t hidden, uint32_t layers, uint32_t heads,
                      uint32_t intermediate, uint32_t tp, uint32_t max_bs)
{
    char err[128];
    engine_deployment_defaults(d);
    engine_model *m = &d->model;
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->architecture, sizeof m->architecture, "LlamaForCausalLM");
    m->vocab = 128256;
    m->hidden = hidden;
    m->layers = layers;
    m->context_len = 131072;
    m->attn_kind = ATTN_GQA;
    m->heads = heads;
    m->kv_heads = 8;
    m->head_dim = 128;
    m->full_attn_layers = layers;
    m->intermediate = intermediate;
    for (int c = 0; c < COEF_COUNT; c++)
        m->coef_missing[c] = true;
    snprintf(d->gpu.name, sizeof d->gpu.name, "h200");
    d->gpu.cuda_total_bytes = (uint64_t)llround(139.80 * GIB);
    d->gpu.arch = GPU_ARCH_SM90;
    d->knobs.world = tp;
    d->knobs.max_bs = max_bs;
    d->knobs.context_len = 131072;
    d->knobs.max_dispatch_auto = true;
    d->knobs.backend_auto = true;
    d->a2a = A2A_NONE;
    assert_int_equal(engine_release_parse("0.5.3", &d->knobs.sglang, err, sizeof err), 0);
}

/* As a log prints it: GiB to two decimals. */
static double printed(double bytes)
{
    return round(bytes / GIB * 100) / 100 * GIB;
}

/* What run D would measure if its GPU kept NODE_BYTES per node, as the log prints it: the end
 * line's total (BARS: the layers too, the largest graph's nodes in the largest bucket, as the bars
 * see them). */
static calib_measured measure(const engine_deployment *d, uint64_t node_bytes, bool bars)
{
    static engine_deployment at;
    static engine_estimate e;
    char err[128];
    at = *d;
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)node_bytes);
    assert_int_equal(engine_knob_set_text(&at, KNOB_NODE_BYTES, text, NULL, err, sizeof err), 0);
    engine_estimate_terms(&at, NULL, &e);
    calib_measured m = {NAN, NAN, NAN, printed((double)e.target_total_bytes), NAN};
    if (bars) {
        double largest_graph = (double)e.terms[TERM_BUCKETS].bytes / e.n_buckets;
        m.static_bytes = printed((double)e.layer_bytes[LAYER_STATIC]);
        m.largest_bytes = printed((double)e.layer_bytes[LAYER_LARGEST] + largest_graph);
        m.buckets_bytes = printed((double)e.layer_bytes[LAYER_BUCKETS] - largest_graph);
    }
    return m;
}

static void node_point(const engine_deployment *d, int64_t id, const calib_measured *m, calib_node_point *p)
{
    static engine_estimate e;
    char why[256];
    engine_estimate_terms(d, NULL, &e); /* the arch's default node_bytes: the fit must not lean on it */
    if (!calib_node_point_from_estimate(d, &e, m, p, why, sizeof why))
        fail_msg("run %lld: %s", (long long)id, why);
    p->run_id = id;
}

/* Two models on one GPU whose graphs keep 16 KiB per node: one run with bars, one with the end
 * line only. The slope comes back within 1%, with a range around it from the logs' rounding. */
static void test_node_bytes_two_models(void **state)
{
    (void)state;
    static engine_deployment a, b;
    gqa_model(&a, "llama-3.1-70b", 8192, 80, 64, 28672, 8, 512);
    gqa_model(&b, "llama-3.1-8b", 4096, 32, 32, 14336, 1, 160);
    calib_node_point pts[2];
    calib_measured ma = measure(&a, 16384, true), mb = measure(&b, 16384, false);
    node_point(&a, 3, &ma, &pts[0]);
    node_point(&b, 4, &mb, &pts[1]);
    assert_true(pts[0].from_buckets);
    assert_false(pts[1].from_buckets);
    static calib_node_result r;
    calib_fit_node_bytes(pts, 2, &r);
    assert_true(r.fitted);
    assert_close(r.slope, 16384, 0.01);
    assert_true(r.node_bytes.low <= r.node_bytes.expected && r.node_bytes.expected <= r.node_bytes.high);
    assert_true(r.node_bytes.low < r.node_bytes.high); /* the rounding of two-decimal GiB */
    assert_true(r.node_bytes.low > 15000 && r.node_bytes.high < 18000);
    assert_int_equal(r.n_models, 2);
    assert_int_equal(r.n_runs, 2);
    for (int i = 0; i < 2; i++)
        assert_close(r.k[i], 16384, 0.02);
}

/* Found by fuzz_calibrate: a run whose rounding is larger than its bytes (or that has few nodes)
 * moved the range to 0 B (or past a uint64_t, undefined); the range stays within the knob's
 * 256 B .. 1 MiB, as the slope does. */
static void test_node_bytes_range_within_knob(void **state)
{
    (void)state;
    calib_node_point pts[3] = {
        {.run_id = 1, .model = "a", .graphs = 10, .nodes = 1000, .bytes = 1000 * 16384.0, .tolerance = 0.005 * GIB},
        {.run_id = 2, .model = "b", .graphs = 20, .nodes = 2000, .bytes = 2000 * 16384.0, .tolerance = 0.005 * GIB},
        {.run_id = 3, .model = "b", .graphs = 1, .nodes = 1e-3, .bytes = 16.0, .tolerance = 1e300},
    };
    static calib_node_result r;
    calib_fit_node_bytes(pts, 3, &r);
    assert_true(r.fitted);
    assert_close(r.slope, 16384, 0.01);
    assert_int_equal(r.node_bytes.low, (uint64_t)CALIB_NODE_BYTES_MIN);
    assert_int_equal(r.node_bytes.high, (uint64_t)CALIB_NODE_BYTES_MAX);
    assert_true(r.node_bytes.low <= r.node_bytes.expected && r.node_bytes.expected <= r.node_bytes.high);
}

/* One run of one graph count cannot part node_bytes: nothing fitted, and the advice says what
 * data would. Two runs of one model with one graph count cannot either. */
static void test_node_bytes_one_run_refuses(void **state)
{
    (void)state;
    static engine_deployment a;
    gqa_model(&a, "llama-3.1-70b", 8192, 80, 64, 28672, 8, 512);
    calib_node_point pts[2];
    calib_measured m = measure(&a, 16384, false);
    node_point(&a, 7, &m, &pts[0]);
    static calib_node_result r;
    calib_fit_node_bytes(pts, 1, &r);
    assert_false(r.fitted);
    assert_true(isnan(r.slope));
    assert_non_null(strstr(r.advice, "two graph counts or two models"));
    assert_non_null(strstr(r.advice, "run 7 alone"));
    assert_non_null(strstr(r.advice, "--cuda-graph-max-bs"));
    pts[1] = pts[0];
    pts[1].run_id = 8;
    calib_fit_node_bytes(pts, 2, &r);
    assert_false(r.fitted);
    assert_non_null(strstr(r.advice, "all of llama-3.1-70b with 52 graphs"));
    /* another graph count of the same model parts it */
    static engine_deployment c;
    gqa_model(&c, "llama-3.1-70b", 8192, 80, 64, 28672, 8, 256);
    m = measure(&c, 16384, false);
    node_point(&c, 8, &m, &pts[1]);
    calib_fit_node_bytes(pts, 2, &r);
    assert_true(r.fitted);
    assert_int_equal(r.n_graph_counts, 2);
    assert_close(r.slope, 16384, 0.01);
    /* a slope no driver keeps is refused */
    pts[0].bytes = pts[1].bytes = -1e9;
    calib_fit_node_bytes(pts, 2, &r);
    assert_false(r.fitted);
    assert_non_null(strstr(r.advice, "refused"));
    calib_fit_node_bytes(pts, 0, &r);
    assert_non_null(strstr(r.advice, "no run on this GPU"));
}

/* A run priced by a fit (graph_bytes) or with an unknown term gives no node point. */
static void test_node_point_needs_mechanism(void **state)
{
    (void)state;
    static engine_deployment a;
    static engine_estimate e;
    gqa_model(&a, "llama-3.1-70b", 8192, 80, 64, 28672, 8, 512);
    a.model.coef_missing[COEF_GRAPH_BYTES] = a.model.coef_missing[COEF_OUT_BYTES_PER_ROW] = false;
    a.model.coef[COEF_GRAPH_BYTES] = 20 * ENGINE_MIB;
    engine_estimate_terms(&a, NULL, &e);
    calib_measured m = {NAN, NAN, NAN, 2 * GIB, NAN};
    calib_node_point p;
    char why[256];
    assert_false(calib_node_point_from_estimate(&a, &e, &m, &p, why, sizeof why));
    assert_non_null(strstr(why, "by a fit"));
    a.model.coef_missing[COEF_GRAPH_BYTES] = a.model.coef_missing[COEF_OUT_BYTES_PER_ROW] = true;
    engine_estimate_terms(&a, NULL, &e);
    m.target_bytes = NAN;
    assert_false(calib_node_point_from_estimate(&a, &e, &m, &p, why, sizeof why));
    assert_non_null(strstr(why, "no capture total"));
}

/* After node_bytes, a model without coefficients: its graphs, cuBLAS and wrappers are fixed
 * terms; the bars part the largest bucket's per-row slope (act_bytes_per_row) and the static
 * intercept. From end-line totals alone the static intercept takes what is left, and the
 * activations keep their mechanism. */
static void test_model_fit_after_node_bytes(void **state)
{
    (void)state;
    static engine_deployment a;
    static engine_estimate e;
    gqa_model(&a, "llama-3.1-70b", 8192, 80, 64, 28672, 8, 512);
    engine_calibration node = {0};
    engine_calibration_set_node_bytes(&node, (engine_range){16384, 15000, 18000}, 2, "h200", NULL);
    engine_estimate_terms(&a, &node, &e);
    calib_point p = {0};
    calib_point_from_estimate(&a, &e, &p);
    assert_false(p.free[COEF_GRAPH_BYTES]); /* the kernel nodes at the calibrated node_bytes */
    assert_false(p.free[COEF_LAZY_BYTES]);  /* cuBLAS */
    assert_false(p.free[COEF_DRAFT_BASE_BYTES]);
    assert_true(p.free[COEF_ACT_BYTES_PER_ROW] && p.mechanism[COEF_ACT_BYTES_PER_ROW]);
    double act = (double)e.terms[TERM_ACT].bytes;
    assert_true(fabs(p.fixed[LAYER_LARGEST] + act - (double)e.layer_bytes[LAYER_LARGEST]) < 1);
    assert_true(fabs(p.fixed[LAYER_BUCKETS] - (double)e.layer_bytes[LAYER_BUCKETS]) < 1);
    /* bars: the activations 20% above the mechanism, 64 MiB more in the static layer */
    p.run_id = 9;
    p.static_bytes = (double)e.layer_bytes[LAYER_STATIC] + 64 * MIB;
    p.largest_bytes = p.fixed[LAYER_LARGEST] + 1.2 * act;
    p.buckets_bytes = p.fixed[LAYER_BUCKETS];
    p.target_bytes = p.static_bytes + p.largest_bytes + p.buckets_bytes;
    p.draft_bytes = NAN;
    uint64_t zero[COEF_COUNT] = {0};
    static calib_result r;
    calib_fit(&p, 1, zero, none_known, &r);
    assert_int_equal(r.coef[CALIB_STATIC].kind, CALIB_FIT_FITTED);
    assert_close((double)r.coef[CALIB_STATIC].value, 64 * MIB, 1e-6);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_FITTED);
    assert_close((double)r.coef[COEF_ACT_BYTES_PER_ROW].value * p.attn_rows_scaled, 1.2 * act, 1e-6);
    for (int c = COEF_LAZY_BYTES; c < COEF_COUNT; c++) {
        assert_int_equal(r.coef[c].kind, CALIB_FIT_NONE);
        assert_false(r.coef[c].stored);
    }
    assert_non_null(strstr(r.coef[COEF_GRAPH_BYTES].note, "node_bytes"));
    assert_true(r.worst_total_pct < 0.01);
    /* totals only: the intercept takes it all, the activations stay their mechanism (not 0) */
    p.static_bytes = p.largest_bytes = p.buckets_bytes = NAN;
    calib_fit(&p, 1, zero, none_known, &r);
    assert_int_equal(r.coef[CALIB_STATIC].kind, CALIB_FIT_FITTED);
    assert_close((double)r.coef[CALIB_STATIC].value, 64 * MIB + 0.2 * act, 1e-6);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_NONE);
    assert_false(r.coef[COEF_ACT_BYTES_PER_ROW].stored);
    assert_non_null(strstr(r.coef[COEF_ACT_BYTES_PER_ROW].note, "held at its mechanism"));
    assert_true(fabs(r.residuals[0].total) < 1);
    engine_calibration cal;
    calib_to_calibration(&r, &p, 1, &cal);
    assert_true(cal.has_static);
    assert_false(cal.has[COEF_ACT_BYTES_PER_ROW] || cal.has[COEF_GRAPH_BYTES]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_layouts_reproduce_defaults),
        cmocka_unit_test(test_one_run_holds_slopes),
        cmocka_unit_test(test_refused_intercept_refits_slope),
        cmocka_unit_test(test_negative_slope_refused),
        cmocka_unit_test(test_absurd_and_non_finite_refused),
        cmocka_unit_test(test_slope_and_intercept_bounds),
        cmocka_unit_test(test_totals_only),
        cmocka_unit_test(test_one_total_absorbs),
        cmocka_unit_test(test_method2_pair_gives_slopes),
        cmocka_unit_test(test_nothing_fitted),
        cmocka_unit_test(test_static_intercept_booked),
        cmocka_unit_test(test_node_bytes_two_models),
        cmocka_unit_test(test_node_bytes_range_within_knob),
        cmocka_unit_test(test_node_bytes_one_run_refuses),
        cmocka_unit_test(test_node_point_needs_mechanism),
        cmocka_unit_test(test_model_fit_after_node_bytes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
