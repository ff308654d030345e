/* fuzz_calibrate.c — the calibration fits (engine/calibrate.c) on points decoded from the input:
 * the first byte picks the fit (even: the per-model calib_fit, odd: the GPU's
 * calib_fit_node_bytes) and the point count (up to 32); each number then takes a tag byte (NAN,
 * infinity, 0, a negative, or a positive of two bytes' mantissa scaled by a byte's power of two:
 * 1 B .. far past a GPU) so the fuzzer steers the points, not only their bits. What is stored must be finite,
 * non-negative and within its bounds (a slope ENGINE_COEF_MAX, an intercept what no GPU exceeds, node_bytes the knob's
 * range), what is not stored the current value, and the result then prices an estimate of k3-dp16 (the estimator on the
 * calibration). */
#include <math.h>
#include <string.h>

#include "calibrate.h"
#include "fuzz_common.h"
#include "preset.h"

static engine_deployment base;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-fuzz", 1); /* the built-ins only */
    preset_catalog *cat = preset_catalog_open();
    char err[1024];
    FUZZ_CHECK(cat && preset_load_deployment(cat, "k3-dp16", &base, err, sizeof err) == 0, "k3-dp16: %s", err);
    preset_catalog_free(cat);
    return 0;
}

typedef struct {
    const uint8_t *p, *end;
} input;

static unsigned byte(input *in)
{
    return in->p < in->end ? *in->p++ : 0;
}

static double number(input *in)
{
    unsigned tag = byte(in);
    switch (tag % 8) {
    case 0:
        return NAN;
    case 1:
        return tag & 8 ? -INFINITY : INFINITY;
    case 2:
        return 0;
    case 3:
        return -(double)byte(in);
    default: {
        unsigned m = byte(in) << 8 | byte(in);
        return ldexp(1.0 + m / 65536.0, (int)(byte(in) % 64) - 8) * (tag & 16 ? 1.0 : 1048576.0);
    }
    }
}

static void fit_model(input *in, int n)
{
    static calib_point pts[CALIB_MAX_POINTS];
    static calib_result r;
    static engine_estimate e;
    memset(pts, 0, sizeof pts);
    uint64_t current[COEF_COUNT];
    bool known[COEF_COUNT];
    for (int c = 0; c < COEF_COUNT; c++) {
        unsigned b = byte(in);
        known[c] = b & 1;
        current[c] = known[c] ? base.model.coef[c] >> (b >> 5) : 0;
    }
    for (int i = 0; i < n; i++) {
        calib_point *p = &pts[i];
        p->run_id = i + 1;
        snprintf(p->layout, sizeof p->layout, "L%u", byte(in) % 3);
        p->shape = byte(in) % 4; /* equal shapes: the max_bs pairs of method 2 */
        p->max_bs = byte(in) * 4u;
        p->gpu_bytes = byte(in) & 1 ? 192.0 * ENGINE_GIB : number(in);
        p->static_bytes = number(in);
        p->largest_bytes = number(in);
        p->buckets_bytes = number(in);
        p->target_bytes = number(in);
        p->draft_bytes = number(in);
        for (int l = 0; l < LAYER_COUNT; l++)
            p->fixed[l] = number(in);
        p->static_predicted = p->fixed[LAYER_STATIC];
        p->attn_rows = number(in);
        p->attn_rows_scaled = byte(in) & 1 ? p->attn_rows : number(in);
        p->other_buckets = byte(in) % 40;
        p->other_rows = number(in);
        unsigned flags = byte(in) | byte(in) << 8 | byte(in) << 16;
        p->speculative = flags >> 23 & 1;
        for (int c = 0; c < COEF_COUNT; c++) {
            p->free[c] = flags >> c & 1;
            p->mechanism[c] = p->free[c] && (flags >> (c + 12) & 1);
            p->mechanism_bytes[c] = p->mechanism[c] ? number(in) : 0;
        }
    }
    calib_fit(pts, n, current, known, &r);
    FUZZ_CHECK(r.n_points == n, "%d points read of %d", r.n_points, n);
    int stored = 0;
    for (int j = 0; j < CALIB_N_PARAMS; j++) {
        const calib_coef *c = &r.coef[j];
        FUZZ_CHECK(c->kind >= CALIB_FIT_NONE && c->kind <= CALIB_FIT_REFUSED, "%s: kind %d", calib_param_names[j],
                   (int)c->kind);
        FUZZ_CHECK(c->n_runs >= 0 && c->n_runs <= n, "%s: %d runs of %d", calib_param_names[j], c->n_runs, n);
        FUZZ_CHECK(memchr(c->note, '\0', sizeof c->note), "%s: its note is not a string", calib_param_names[j]);
        FUZZ_CHECK(c->stored == (c->kind == CALIB_FIT_FITTED || c->kind == CALIB_FIT_ABSORBED), "%s: %s, stored %d",
                   calib_param_names[j], calib_fit_names[c->kind], c->stored);
        stored += c->stored;
        if (c->kind == CALIB_FIT_FITTED)
            FUZZ_CHECK(isfinite(c->fitted), "%s: fitted %g", calib_param_names[j], c->fitted);
        if (!c->stored) {
            FUZZ_CHECK(c->value == c->current, "%s: not stored, but %llu, not %llu", calib_param_names[j],
                       (unsigned long long)c->value, (unsigned long long)c->current);
            continue;
        }
        /* a slope (a row's, a graph's) what a preset may hold; an intercept (lazy, the draft's base,
         * static) may carry a totals run's whole unexplained part, but no more than any GPU holds */
        bool slope = j == COEF_ACT_BYTES_PER_ROW || j == COEF_GRAPH_BYTES || j == COEF_OUT_BYTES_PER_ROW ||
                     j == COEF_DRAFT_BYTES_PER_ROW;
        uint64_t max = slope ? ENGINE_COEF_MAX : (uint64_t)17592186044416; /* 16 TiB */
        FUZZ_CHECK(c->value <= max, "%s: stored %llu (fitted %g), above %llu", calib_param_names[j],
                   (unsigned long long)c->value, c->fitted, (unsigned long long)max);
    }
    FUZZ_CHECK(stored == r.n_fitted, "%d stored, n_fitted %d", stored, r.n_fitted);
    FUZZ_CHECK(isnan(r.worst_total_pct) || r.worst_total_pct >= 0, "worst residual %g %%", r.worst_total_pct);
    FUZZ_CHECK(r.n_layouts >= 0 && r.n_layouts <= n && r.n_pair_runs >= 0 && r.n_pair_runs <= n,
               "%d layouts, %d pair runs of %d points", r.n_layouts, r.n_pair_runs, n);
    engine_calibration cal;
    calib_to_calibration(&r, pts, n, &cal);
    calib_estimate_terms(&base, &cal, &e);
    engine_estimate_compute(&base, &cal, &e);
}

static void fit_node_bytes(input *in, int n)
{
    static calib_node_point pts[CALIB_MAX_POINTS];
    static calib_node_result r;
    static engine_estimate e;
    memset(pts, 0, sizeof pts);
    for (int i = 0; i < n; i++) {
        calib_node_point *p = &pts[i];
        p->run_id = i + 1;
        snprintf(p->model, sizeof p->model, "m%u", byte(in) % 3);
        p->graphs = byte(in) % 64;
        p->nodes = number(in);
        p->bytes = number(in);
        p->tolerance = byte(in) & 1 ? 0.005 * ENGINE_GIB : number(in);
        unsigned f = byte(in);
        p->from_buckets = f & 1;
        p->with_draft = f & 2;
    }
    calib_fit_node_bytes(pts, n, &r);
    FUZZ_CHECK(r.n_points == n && r.n_runs >= 0 && r.n_runs <= n && r.n_models <= n, "%d points, %d runs of %d",
               r.n_points, r.n_runs, n);
    FUZZ_CHECK(memchr(r.advice, '\0', sizeof r.advice), "the advice is not a string");
    if (!r.fitted) {
        FUZZ_CHECK(r.advice[0], "not fitted, and no advice");
        return;
    }
    FUZZ_CHECK(r.slope >= CALIB_NODE_BYTES_MIN && r.slope <= CALIB_NODE_BYTES_MAX, "slope %g", r.slope);
    FUZZ_CHECK(r.node_bytes.low <= r.node_bytes.expected && r.node_bytes.expected <= r.node_bytes.high,
               "node_bytes %llu .. %llu .. %llu", (unsigned long long)r.node_bytes.low,
               (unsigned long long)r.node_bytes.expected, (unsigned long long)r.node_bytes.high);
    FUZZ_CHECK(r.node_bytes.low >= CALIB_NODE_BYTES_MIN && r.node_bytes.high <= CALIB_NODE_BYTES_MAX,
               "node_bytes %llu .. %llu, outside the knob's range", (unsigned long long)r.node_bytes.low,
               (unsigned long long)r.node_bytes.high);
    static engine_calibration cal;
    memset(&cal, 0, sizeof cal);
    engine_calibration_set_node_bytes(&cal, r.node_bytes, r.n_runs, "b200", "main");
    engine_estimate_compute(&base, &cal, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, data + size};
    unsigned first = byte(&in);
    int n = (int)(first >> 1) % (CALIB_MAX_POINTS + 1);
    if (first & 1)
        fit_node_bytes(&in, n);
    else
        fit_model(&in, n);
    return 0;
}
