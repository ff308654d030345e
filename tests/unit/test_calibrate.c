/* test_calibrate.c — the fits of MODEL.md's coefficients, on the article's two K3 runs. */
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

static uint64_t k3[COEF_COUNT];

/* The article's runs as the logs print them (REFERENCE-FIGURES.md), with the estimator's view
 * of each run's own knobs: max_dispatch 144 / 128, rows 144 / 960, buckets 6 / 23. */
static calib_point dp16(void)
{
    calib_point p = {0};
    p.run_id = 1;
    snprintf(p.layout, sizeof p.layout, "DP16 MTP6");
    p.static_bytes = 0.18 * GIB;
    p.largest_bytes = 7.17 * GIB;
    p.buckets_bytes = 0.25 * GIB;
    p.draft_bytes = 0.56 * GIB;
    p.static_predicted = 0.184 * GIB;
    p.moe_fixed_bytes = (double)(engine_deepep_ll_hint_bytes(144, 3584, 896) +
                                 engine_masked_gemm_sum_bytes(144, 3584, 3072, 896));
    p.attn_rows_scaled = 144;
    p.attn_rows = 144;
    p.other_buckets = 5;
    p.other_rows = 186;
    p.speculative = true;
    return p;
}

static calib_point dp2(void)
{
    calib_point p = {0};
    p.run_id = 2;
    snprintf(p.layout, sizeof p.layout, "DP2xDCP8 MTP5");
    p.static_bytes = 1.33 * GIB;
    p.largest_bytes = 10.24 * GIB;
    p.buckets_bytes = 1.35 * GIB;
    p.draft_bytes = 1.04 * GIB;
    p.static_predicted = 1.349 * GIB;
    p.moe_fixed_bytes = (double)(engine_deepep_ll_hint_bytes(128, 3584, 896) +
                                 engine_masked_gemm_sum_bytes(128, 3584, 3072, 896));
    p.attn_rows_scaled = 960;
    p.attn_rows = 960;
    p.other_buckets = 22;
    p.other_rows = 11000;
    p.speculative = true;
    return p;
}

static int setup(void **state)
{
    (void)state;
    engine_k3_default_coefficients(k3);
    return 0;
}

static void assert_close(uint64_t got, uint64_t want, double rel)
{
    if (fabs((double)got - (double)want) > rel * (double)want)
        fail_msg("%llu is not within %.1f%% of %llu", (unsigned long long)got, rel * 100, (unsigned long long)want);
}

static void test_two_layouts_reproduce_defaults(void **state)
{
    (void)state;
    calib_point pts[2] = {dp16(), dp2()};
    uint64_t zero[COEF_COUNT] = {0};
    calib_result r;
    calib_fit(pts, 2, zero, &r); /* start from nothing: the fit alone must find K3's values */
    for (int c = 0; c < COEF_COUNT; c++) {
        assert_int_equal(r.coef[c].kind, CALIB_FIT_FULL);
        assert_close(r.coef[c].value, k3[c], 0.05);
    }
    assert_true(r.mixed_layouts);
    assert_int_equal(r.n_layouts, 2);
    /* two points, two unknowns: the residuals vanish */
    assert_true(fabs(r.residuals[0].largest) < 1e3 && fabs(r.residuals[1].largest) < 1e3);
    assert_true(fabs(r.residuals[1].draft) < 1e3);
    assert_true(fabs(r.residuals[0].static_layer + 0.004 * GIB) < 1e3); /* 0.18 - 0.184 */
    engine_calibration cal;
    calib_to_calibration(&r, pts, 2, &cal);
    assert_int_equal(cal.n_runs, 2);
    assert_true(cal.has[COEF_ACT_BYTES_PER_ROW] && cal.has[COEF_DRAFT_BASE_BYTES]);
}

static void test_one_run_fits_intercepts_only(void **state)
{
    (void)state;
    calib_point p = dp2();
    calib_result r;
    calib_fit(&p, 1, k3, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_INTERCEPT);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_INTERCEPT);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].value, k3[COEF_ACT_BYTES_PER_ROW]); /* slope kept */
    assert_non_null(strstr(r.coef[COEF_LAZY_BYTES].note, "one run"));
    assert_close(r.coef[COEF_LAZY_BYTES].value, k3[COEF_LAZY_BYTES], 0.01);
    assert_int_equal(r.coef[COEF_GRAPH_BYTES].kind, CALIB_FIT_INTERCEPT);
    assert_int_equal(r.coef[COEF_OUT_BYTES_PER_ROW].value, k3[COEF_OUT_BYTES_PER_ROW]);
    assert_false(r.mixed_layouts);
    engine_calibration cal;
    calib_to_calibration(&r, &p, 1, &cal);
    assert_true(cal.has[COEF_LAZY_BYTES]);
    assert_false(cal.has[COEF_ACT_BYTES_PER_ROW]);
}

static void test_equal_rows_fit_intercept(void **state)
{
    (void)state;
    calib_point a = dp16(), b = dp16();
    b.run_id = 3;
    b.largest_bytes = 7.27 * GIB;
    calib_point pts[2] = {a, b};
    calib_result r;
    calib_fit(pts, 2, k3, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_INTERCEPT);
    assert_non_null(strstr(r.coef[COEF_LAZY_BYTES].note, "same rows"));
    /* the mean of the two remainders minus the current slope's share */
    double want = (7.17 + 7.27) / 2 * GIB - a.moe_fixed_bytes - (double)k3[COEF_ACT_BYTES_PER_ROW] * 144;
    assert_true(fabs((double)r.coef[COEF_LAZY_BYTES].value - want) < 2);
}

static void test_negative_is_refused(void **state)
{
    (void)state;
    /* a larger remainder at fewer rows gives a negative slope */
    calib_point a = dp16(), b = dp2();
    a.largest_bytes = 12 * GIB;
    calib_point pts[2] = {a, b};
    calib_result r;
    calib_fit(pts, 2, k3, &r);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].kind, CALIB_FIT_REFUSED);
    assert_int_equal(r.coef[COEF_ACT_BYTES_PER_ROW].value, k3[COEF_ACT_BYTES_PER_ROW]);
    assert_true(r.coef[COEF_ACT_BYTES_PER_ROW].fitted < 0);
    assert_non_null(strstr(r.coef[COEF_ACT_BYTES_PER_ROW].note, "refused"));
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_INTERCEPT); /* refitted against the kept slope */
}

static void test_unknown_layers_are_skipped(void **state)
{
    (void)state;
    calib_point a = dp16(), b = dp2();
    b.largest_bytes = NAN; /* e.g. only the final bar survived */
    b.draft_bytes = NAN;
    calib_point pts[2] = {a, b};
    calib_result r;
    calib_fit(pts, 2, k3, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_INTERCEPT);
    assert_int_equal(r.coef[COEF_DRAFT_BASE_BYTES].kind, CALIB_FIT_INTERCEPT);
    assert_int_equal(r.coef[COEF_GRAPH_BYTES].kind, CALIB_FIT_FULL);
    calib_fit(pts, 0, k3, &r);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].kind, CALIB_FIT_NONE);
    assert_int_equal(r.coef[COEF_LAZY_BYTES].value, k3[COEF_LAZY_BYTES]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_layouts_reproduce_defaults),
        cmocka_unit_test(test_one_run_fits_intercepts_only),
        cmocka_unit_test(test_equal_rows_fit_intercept),
        cmocka_unit_test(test_negative_is_refused),
        cmocka_unit_test(test_unknown_layers_are_skipped),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
