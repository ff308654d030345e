/* test_engine.c — the estimator against REFERENCE-FIGURES.md, built without YAML so a failure
 * here is the engine's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "sglang_args.h"
#include "weights.h"

#define GIB ((double)ENGINE_GIB)

static void k3_model(engine_model *m)
{
    snprintf(m->name, sizeof m->name, "kimi-k3");
    m->vocab = 163840;
    m->hidden = 7168;
    m->layers = 93;
    m->context_len = 1048576;
    m->attn_kind = ATTN_MLA;
    m->heads = 96;
    m->kv_lora_rank = 512;
    m->qk_rope_dim = 64;
    m->full_attn_layers = 24;
    m->kv_bytes = 2;
    m->num_experts = 896;
    m->dispatch_hidden = 3584;
    m->moe_intermediate = 3072;
    m->top_k = 16;
    m->draft_layers = 1;
    engine_k3_default_coefficients(m->coef);
}

static void k3_common(engine_deployment *d)
{
    engine_deployment_defaults(d);
    k3_model(&d->model);
    snprintf(d->gpu.name, sizeof d->gpu.name, "b200");
    d->gpu.cuda_total_bytes = (uint64_t)llround(178.35 * GIB);
    d->gpu.ue8m0_scales = true;
    d->knobs.world = 16;
    d->knobs.context_len = 1048576;
    d->backend = BACKEND_FLASHINFER_MLA;
    d->a2a = A2A_DEEPEP;
}

static void k3_dp16(engine_deployment *d)
{
    k3_common(d);
    d->knobs.dp = 16;
    d->knobs.dcp = 1;
    d->knobs.max_bs = 24;
    d->knobs.mtp = 6;
    d->knobs.max_dispatch_auto = true;
    d->knobs.buckets_auto = false;
    uint32_t b[] = {1, 2, 4, 8, 16, 24};
    d->knobs.n_buckets = 6;
    memcpy(d->knobs.buckets, b, sizeof b);
    d->knobs.mem_fraction_static = 0.92;
    d->weights_bytes = 150 * ENGINE_GIB;
    d->state_pool_bytes = 8 * ENGINE_GIB;
}

static void k3_dp2_dcp8(engine_deployment *d)
{
    k3_common(d);
    d->knobs.dp = 2;
    d->knobs.dcp = 8;
    d->knobs.max_bs = 192;
    d->knobs.mtp = 5;
    d->knobs.max_dispatch = 128;
    d->knobs.max_dispatch_auto = false;
    d->knobs.buckets_auto = false;
    d->knobs.n_buckets = 0;
    for (uint32_t bs = 16; bs <= 192; bs += 8)
        d->knobs.buckets[d->knobs.n_buckets++] = bs;
    d->knobs.mem_fraction_static = 0.874;
    d->weights_bytes = 98 * ENGINE_GIB;
    d->state_pool_bytes = (uint64_t)(22.5 * GIB);
}

static bool has_warning(const engine_estimate *e, const char *code)
{
    for (int i = 0; i < e->warnings.n; i++)
        if (strcmp(e->warnings.items[i].code, code) == 0)
            return true;
    return false;
}

static const char *warning_message(const engine_estimate *e, const char *code)
{
    for (int i = 0; i < e->warnings.n; i++)
        if (strcmp(e->warnings.items[i].code, code) == 0)
            return e->warnings.items[i].message;
    return "";
}

static void assert_within(double actual, double expected, double tolerance)
{
    if (fabs(actual - expected) > tolerance)
        fail_msg("%.6f is not within %.4f of %.6f", actual, tolerance, expected);
}

static void test_deepep_hint_sizes(void **state)
{
    (void)state;
    /* reference/moe-comm-memory.md §1.4, MODEL.md */
    assert_int_equal(engine_deepep_ll_hint_bytes(144, 3584, 896), 3757186176ULL);
    assert_int_equal(engine_deepep_ll_hint_bytes(128, 3584, 896), 3339721856ULL);
    assert_int_equal(engine_deepep_ll_hint_bytes(768, 3584, 896), 20038294656ULL);
    assert_int_equal(engine_deepep_ll_hint_bytes(128, 7168, 256), 1908410496ULL); /* DeepSeek-V3 */
    assert_within(engine_deepep_ll_hint_bytes(120, 3584, 896) / GIB, 2.916, 0.0005);
    /* NVSHMEM backs it in 512 MiB chunks: 3.499 GiB -> 3.5 GiB, 3.110 -> 3.5 */
    assert_int_equal(engine_deepep_nvshmem_bytes(3757186176ULL), 7 * 512 * ENGINE_MIB);
    assert_int_equal(engine_deepep_nvshmem_bytes(3339721856ULL), 7 * 512 * ENGINE_MIB);
}

static void test_masked_gemm(void **state)
{
    (void)state;
    /* REFERENCE-FIGURES.md: 1.897 / 2.023 / 2.276 / 12.141 GiB */
    assert_within(engine_masked_gemm_sum_bytes(120, 3584, 3072, 896) / GIB, 1.897, 0.0005);
    assert_within(engine_masked_gemm_sum_bytes(128, 3584, 3072, 896) / GIB, 2.023, 0.0005);
    assert_within(engine_masked_gemm_sum_bytes(144, 3584, 3072, 896) / GIB, 2.276, 0.0005);
    assert_within(engine_masked_gemm_sum_bytes(768, 3584, 3072, 896) / GIB, 12.141, 0.0005);
    /* DSV3 EP32 (E=288, T=128) Hopper peak: 606,486,528 B (reference §2) */
    assert_int_equal(engine_masked_gemm_peak_bytes(128, 7168, 2048, 288, false), 606486528ULL);
}

static void test_bucket_grid(void **state)
{
    (void)state;
    uint32_t out[ENGINE_MAX_BUCKETS];
    size_t n = engine_bucket_grid(24, false, out, ENGINE_MAX_BUCKETS);
    uint32_t expect24[] = {1, 2, 4, 8, 12, 16, 24};
    assert_int_equal(n, 7);
    assert_memory_equal(out, expect24, sizeof expect24);
    assert_int_equal(engine_bucket_grid(192, true, out, ENGINE_MAX_BUCKETS), 43);
    assert_int_equal(engine_bucket_grid(256, false, out, ENGINE_MAX_BUCKETS), 36);
    assert_int_equal(engine_bucket_grid(512, false, out, ENGINE_MAX_BUCKETS), 52);
    assert_int_equal(engine_bucket_grid(256, true, out, ENGINE_MAX_BUCKETS), 51);
    assert_int_equal(engine_bucket_grid(512, true, out, ENGINE_MAX_BUCKETS), 67);
}

static void test_bucket_rule_auto(void **state)
{
    (void)state;
    engine_deployment d;
    uint32_t out[ENGINE_MAX_BUCKETS];
    engine_warnings w = {0};
    /* max_bs 24 without speculation, no gathering (dp = world) */
    k3_dp16(&d);
    d.knobs.buckets_auto = true;
    d.knobs.mtp = 1;
    size_t n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    uint32_t expect24[] = {1, 2, 4, 8, 12, 16, 24};
    assert_int_equal(n, 7);
    assert_memory_equal(out, expect24, sizeof expect24);
    /* 192 with speculation and attn_tp 1: 43 sizes */
    d.knobs.mtp = 5;
    d.knobs.max_bs = 192;
    assert_int_equal(engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w), 43);
    /* an off-grid max_bs is appended */
    d.knobs.max_bs = 500;
    d.knobs.mtp = 1;
    n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    assert_int_equal(out[n - 1], 500);
    assert_int_equal(out[n - 2], 496);
    /* dp 2 of 16 GPUs and mtp 6: only bs x 6 divisible by 8 remain (bs multiple of 4) */
    k3_dp2_dcp8(&d);
    d.knobs.buckets_auto = true;
    d.knobs.mtp = 6;
    d.knobs.max_bs = 64;
    n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal((out[i] * 6) % 8, 0);
    uint32_t expect64[] = {4, 8, 12, 16, 20, 24, 28, 32, 40, 44, 48, 52, 56, 60, 64};
    assert_int_equal(n, sizeof expect64 / sizeof expect64[0]);
    assert_memory_equal(out, expect64, sizeof expect64);
    assert_int_equal(w.n, 0);
}

static void test_bucket_rule_explicit(void **state)
{
    (void)state;
    engine_deployment d;
    uint32_t out[ENGINE_MAX_BUCKETS];
    engine_warnings w = {0};
    k3_dp16(&d);
    /* max_bs moves down then up: always from the preset's list */
    d.knobs.max_bs = 10;
    size_t n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    uint32_t expect10[] = {1, 2, 4, 8, 10};
    assert_int_equal(n, 5);
    assert_memory_equal(out, expect10, sizeof expect10);
    d.knobs.max_bs = 128;
    n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    uint32_t expect128[] = {1, 2, 4, 8, 16, 24, 128};
    assert_int_equal(n, 7);
    assert_memory_equal(out, expect128, sizeof expect128);
    d.knobs.max_bs = 24;
    assert_int_equal(engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w), 6);
    assert_int_equal(w.n, 0);
    /* DP2 x DCP8 with max_bs 12: 12 x 5 is not divisible by 8 -> the smallest passing size, 16 */
    k3_dp2_dcp8(&d);
    d.knobs.max_bs = 12;
    n = engine_buckets_resolve(&d, out, ENGINE_MAX_BUCKETS, &w);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 16);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.items[0].code, "no_bucket_survives");
}

static void test_heuristic_branches(void **state)
{
    (void)state;
    /* server_args.py reserve_for_graph_mb: 2 x max_bs, + 3 x max_bs x dp with DP attention,
     * + 1.5 x max_bs x dp more above 300 */
    assert_int_equal(engine_heuristic_graph_bytes(24, 1), 48 * ENGINE_MIB);
    assert_int_equal(engine_heuristic_graph_bytes(192, 2), (384 + 1152) * ENGINE_MIB);
    assert_int_equal(engine_heuristic_graph_bytes(320, 2), (640 + 1920 + 960) * ENGINE_MIB);
    assert_int_equal(engine_heuristic_graph_bytes(301, 3), (602 + 2709) * ENGINE_MIB + 1354 * ENGINE_MIB + ENGINE_MIB / 2);
    assert_int_equal(engine_heuristic_deepep_bytes(A2A_DEEPEP), 2048 * ENGINE_MIB);
    assert_int_equal(engine_heuristic_deepep_bytes(A2A_NONE), 0);
}

static void test_dp16_reference(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    k3_dp16(&d);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.attn_rows, 144);
    assert_int_equal(e.moe_rows, 144);
    assert_int_equal(e.max_dispatch, 144);
    assert_int_equal(e.heads_per_gpu, 96);
    assert_int_equal(e.n_buckets, 6);
    assert_int_equal(e.terms[TERM_LOGITS].bytes, 94371840ULL);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 24ULL * 1048576 * 4);
    assert_int_equal(e.terms[TERM_INPUTS].bytes, 144ULL * (2 * 7168 + 48));
    assert_int_equal(e.terms[TERM_DEEPEP].bytes, 3757186176ULL);
    assert_within((e.terms[TERM_DEEPEP].bytes + e.terms[TERM_MASKED_GEMM].bytes) / GIB, 5.776, 0.0005);
    assert_within(e.layer_bytes[LAYER_STATIC] / GIB, 0.184, 0.001); /* measured 0.18 */
    assert_within(e.layer_bytes[LAYER_LARGEST] / GIB, 7.17, 7.17 * 0.03);
    assert_within(e.layer_bytes[LAYER_BUCKETS] / GIB, 0.25, 0.0075);
    assert_within(e.draft_total_bytes / GIB, 0.56, 0.017);
    assert_within(e.total_bytes / GIB, 8.16, 8.16 * 0.002); /* MODEL.md: within 0.2% */
    assert_int_equal(e.heuristic_total_bytes, 3405774848ULL);
    assert_int_equal(e.heuristic_graph_bytes, 1258291200ULL);
    /* 39% of measured */
    assert_within((double)e.heuristic_total_bytes / (8.16 * GIB), 0.39, 0.005);
    /* budget: KV pool 5.3 GiB, P x (1 - f) 14.20, headroom ~5.04 */
    assert_within(e.budget.static_budget_bytes / GIB, 14.20, 0.01);
    assert_within(e.budget.kv_pool_bytes / GIB, 5.3, 0.06);
    /* headroom at the preset's 0.920: 5.04 GiB on the expected total, 4.94 on its high end (the
     * article's coefficients carry 5% either way), which the answers plan on by default */
    assert_within(e.budget.headroom_bytes / GIB, 4.94, 0.03);
    assert_within(e.total_high_bytes / GIB, 8.27, 0.01);
    assert_true(e.total_low_bytes < e.total_bytes && e.total_bytes < e.total_high_bytes);
    assert_int_equal(e.plan_total_bytes, e.total_high_bytes);
    d.knobs.bound = BOUND_EXPECTED;
    engine_estimate_compute(&d, NULL, &e);
    assert_within(e.budget.headroom_bytes / GIB, 5.04, 0.03);
    assert_int_equal(e.plan_total_bytes, e.total_bytes);
    d.knobs.bound = BOUND_HIGH;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.budget.kv_cell_bytes, 28800);
    assert_int_equal(e.budget.kv_tokens_per_gib, ENGINE_GIB / 28800);
    /* the wall is driven by the MoE floor (article: DP16 hits the max_dispatch-driven floor first) */
    assert_int_equal(e.budget.wall_term, TERM_DEEPEP);
    assert_true(e.budget.wall_max_bs >= 24 && e.budget.wall_max_bs < 64);
    assert_false(has_warning(&e, "dispatch_below_rows"));
    assert_false(has_warning(&e, "dcp_with_speculation"));
}

static void test_dp16_max_bs_128(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    engine_warnings adj = {0};
    char err[256];
    k3_dp16(&d);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_BS, "128", &adj, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.max_dispatch, 768);
    assert_int_equal(e.terms[TERM_DEEPEP].bytes, 20038294656ULL);
    assert_within((e.terms[TERM_DEEPEP].bytes + e.terms[TERM_MASKED_GEMM].bytes) / GIB, 30.80, 0.005);
    assert_true(has_warning(&e, "qp_depth"));
    assert_true(has_warning(&e, "headroom_negative"));
}

static void test_dp16_dispatch_below_rows(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    char err[256];
    k3_dp16(&d);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_DISPATCH, "128", NULL, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_true(has_warning(&e, "dispatch_below_rows"));
    assert_non_null(strstr(warning_message(&e, "dispatch_below_rows"), "144 fits"));
    assert_int_equal(e.terms[TERM_DEEPEP].bytes, 3339721856ULL);
}

static void test_dp2_reference(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    k3_dp2_dcp8(&d);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.attn_tp, 8);
    assert_int_equal(e.attn_rows, 960);
    assert_int_equal(e.moe_rows, 120);
    assert_int_equal(e.heads_per_gpu, 96);
    assert_int_equal(e.n_buckets, 23);
    assert_int_equal(e.terms[TERM_LOGITS].bytes, 629145600ULL);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 805306368ULL);
    assert_int_equal(e.terms[TERM_DEEPEP].bytes, 3339721856ULL);
    assert_within(e.terms[TERM_MASKED_GEMM].bytes / GIB, 2.023, 0.0005);
    assert_within(e.layer_bytes[LAYER_STATIC] / GIB, 1.349, 0.001); /* measured 1.33 */
    assert_within(e.layer_bytes[LAYER_LARGEST] / GIB, 10.24, 10.24 * 0.03);
    assert_within(e.layer_bytes[LAYER_BUCKETS] / GIB, 1.35, 0.04);
    assert_within(e.draft_total_bytes / GIB, 1.04, 0.03);
    assert_within(e.total_bytes / GIB, 13.96, 13.96 * 0.002);
    assert_int_equal(e.heuristic_total_bytes, 3758096384ULL);
    assert_within((double)e.heuristic_total_bytes / (13.96 * GIB), 0.25, 0.005);
    assert_true(has_warning(&e, "dcp_with_speculation"));
    assert_false(has_warning(&e, "dispatch_below_rows")); /* 128 >= 120 */
    /* KV pool 34.6 GiB (article) */
    assert_within(e.budget.kv_pool_bytes / GIB, 34.6, 0.15);
    assert_int_equal(e.budget.kv_tokens_per_gib, ENGINE_GIB / 28800 * 8);
}

/* DeepEP normal mode at EP16, H 7168 B per token (reference/moe-comm-memory.md 1.6's table). */
static void test_deepep_normal_hint(void **state)
{
    (void)state;
    uint64_t nvl, rdma;
    assert_true(engine_deepep_normal_bytes(16, 7168, &nvl, &rdma));
    assert_int_equal(nvl, 212523264);
    assert_int_equal(rdma, 51746944);
    assert_true(engine_deepep_normal_bytes(8, 2 * 7168, &nvl, &rdma));
    assert_int_equal(nvl, 335709824);
    assert_int_equal(rdma, 0); /* one node: no RDMA */
    assert_true(engine_deepep_normal_bytes(128, 2 * 7168, &nvl, &rdma));
    assert_int_equal(nvl, 734372864);
    assert_int_equal(rdma, 693096960);
    assert_false(engine_deepep_normal_bytes(12, 7168, &nvl, &rdma)); /* no default config */
}

static void test_remainder_difference(void **state)
{
    (void)state;
    /* REFERENCE-FIGURES: remainders 1.394 / 5.106 GiB, difference ~3.7 (article) */
    engine_deployment a, b;
    engine_estimate ea, eb;
    k3_dp16(&a);
    k3_dp2_dcp8(&b);
    engine_estimate_terms(&a, NULL, &ea);
    engine_estimate_terms(&b, NULL, &eb);
    /* The remainder: the largest bucket beyond the MoE floor (lazy, activations and, now a term
     * of its own, DeepEP's normal-mode buffer). */
    double ra = (ea.terms[TERM_LAZY].bytes + ea.terms[TERM_ACT].bytes + ea.terms[TERM_DEEPEP_NORMAL].bytes) / GIB;
    double rb = (eb.terms[TERM_LAZY].bytes + eb.terms[TERM_ACT].bytes + eb.terms[TERM_DEEPEP_NORMAL].bytes) / GIB;
    assert_within(ra, 1.394, 0.002);
    assert_within(rb, 5.106, 0.002);
    assert_within(rb - ra, 3.71, 0.01);
}

static void test_knob_rules(void **state)
{
    (void)state;
    engine_deployment d;
    engine_warnings adj = {0};
    char err[256];
    k3_dp2_dcp8(&d);
    assert_int_equal(engine_knob_set_text(&d, KNOB_DCP, "3", &adj, err, sizeof err), -1);
    assert_non_null(strstr(err, "attn_tp 8"));
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_BS, "-1", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_BS, "abc", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_BS, "1025", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MTP, "0", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_MEM_FRACTION, "0.3", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_DP, "3", &adj, err, sizeof err), -1);
    assert_int_equal(adj.n, 0);
    /* world 24: dp 2 still divides; attn_tp 12, dcp 8 no longer divides -> 6 */
    assert_int_equal(engine_knob_set_text(&d, KNOB_WORLD, "24", &adj, err, sizeof err), 0);
    assert_int_equal(d.knobs.dp, 2);
    assert_int_equal(d.knobs.dcp, 6);
    assert_int_equal(adj.n, 1);
    assert_string_equal(adj.items[0].code, "adjusted");
    /* dp 16 on world 24 is refused; dp 8 moves dcp to a divisor of 3 */
    assert_int_equal(engine_knob_set_text(&d, KNOB_DP, "16", &adj, err, sizeof err), -1);
    assert_int_equal(engine_knob_set_text(&d, KNOB_DP, "8", &adj, err, sizeof err), 0);
    assert_int_equal(d.knobs.dcp, 3);
    /* max_dispatch: auto and back */
    assert_int_equal(engine_knob_set_text(&d, KNOB_MAX_DISPATCH, "auto", &adj, err, sizeof err), 0);
    assert_true(d.knobs.max_dispatch_auto);
    assert_int_equal(engine_knob_set_text(&d, KNOB_BUCKETS, "[1, 2, 4]", &adj, err, sizeof err), 0);
    assert_int_equal(d.knobs.n_buckets, 3);
    assert_int_equal(engine_knob_set_text(&d, KNOB_BUCKETS, "[1, x]", &adj, err, sizeof err), -1);
    assert_null(engine_knob_find("nonsense"));
    assert_non_null(engine_knob_find("max_dispatch"));
}

static void test_knob_steps(void **state)
{
    (void)state;
    engine_deployment d;
    double v[1100];
    k3_dp16(&d);
    size_t n = engine_knob_steps(&d, KNOB_DP, v, 1100);
    assert_int_equal(n, 5); /* 1 2 4 8 16 */
    assert_true(v[4] == 16);
    n = engine_knob_steps(&d, KNOB_MAX_BS, v, 1100);
    assert_int_equal(n, engine_bucket_grid(1024, true, (uint32_t[ENGINE_MAX_BUCKETS]){0}, ENGINE_MAX_BUCKETS));
    assert_true(v[0] == 1 && v[n - 1] == 1024);
    n = engine_knob_steps(&d, KNOB_MEM_FRACTION, v, 1100);
    assert_int_equal(n, 99);
    assert_within(v[84], 0.92, 1e-9);
}

/* Llama-4-Maverick-17B-128E-Instruct-FP8 on 8 x H100 with --attention-backend fa3, context 524288,
 * max_bs 160 (bench point llama4-maverick-fp8-tp8-h100-fa3, SGLang issue #8538; the model's
 * shapes from presets/models/llama-4-maverick-fp8.yaml). */
static void maverick_fa3(engine_deployment *d)
{
    engine_deployment_defaults(d);
    engine_model *m = &d->model;
    snprintf(m->name, sizeof m->name, "llama-4-maverick-fp8");
    m->vocab = 202048;
    m->hidden = 5120;
    m->layers = 48;
    m->context_len = 1048576;
    m->attn_kind = ATTN_GQA;
    m->heads = 40;
    m->kv_heads = 8;
    m->head_dim = 128;
    m->sliding_window = 8192;
    m->swa_layers = 36;
    m->full_attn_layers = 12;
    m->attention_chunk = 8192;
    m->intermediate = 16384;
    m->dense_layers = 24;
    m->num_experts = 128;
    m->dispatch_hidden = 5120;
    m->moe_intermediate = 8192;
    m->top_k = 1;
    m->shared_experts = 1;
    m->shared_intermediate = 8192;
    m->dtype = m->dense_dtype = DTYPE_BF16;
    m->expert_dtype = DTYPE_FP8;
    snprintf(d->gpu.name, sizeof d->gpu.name, "h100");
    d->gpu.cuda_total_bytes = (uint64_t)llround(79.19 * GIB);
    d->gpu.nvidia_smi_mib = 81559;
    d->knobs.world = 8;
    d->knobs.max_bs = 160;
    d->knobs.context_len = 524288;
    d->knobs.mem_fraction_static = 0.8;
    d->backend = BACKEND_FA3;
    d->a2a = A2A_NONE;
    d->weights_bytes = 50 * ENGINE_GIB;
    char err[128];
    assert_int_equal(engine_release_parse("0.4.9.post4", &d->knobs.sglang, err, sizeof err), 0);
}

/* FA3's graph state at v0.4.9.post4 (flashattention_backend.py, 2272c2a5b), B = 160, page 1 so
 * P = 524288 columns, chunk 8192:
 *   decode metadata     4 x 160 + 8 x 161 + 4 x 160 x 524288 + 8 x 524288 =   339,740,552
 *   draft-decode table  4 x 160 x 524288 (allocated without speculation)    =   335,544,320
 *   local attention     V = 160 x ceil(524288 / 8192) = 10240 virtual batches:
 *                       4 x 10241 + 4 x 10240 + 4 x 10240 x 8192            =   335,626,244
 *   encoder metadata    4 x 160 x 524288 + 4 x 160 + 4 x 161                =   335,545,604
 *   capture copies      23 sizes [1,2,4,8] + 16..160/8, sum 1687:
 *                       4 x 524288 x 1687                                   = 3,537,895,424
 *   total                                                                    4,884,352,144 (4.549 GiB)
 * From v0.4.10.post2 (PR #8567) the copies go; from v0.5.1 (PR #9455) the draft table;
 * from v0.5.8 (PR #16527) the encoder table: 339,740,552 + 335,626,244 = 675,366,796 on main. */
static void test_fa3_state_llama4_maverick(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    char err[128];
    maverick_fa3(&d);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.bs_max, 160);
    assert_int_equal(e.n_buckets, 23);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 4884352144ULL);
    assert_true(e.terms[TERM_KV_INDEX].known);
    assert_int_equal(engine_release_parse("0.4.10.post2", &d.knobs.sglang, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 4884352144ULL - 3537895424ULL);
    assert_int_equal(engine_release_parse("main", &d.knobs.sglang, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 675366796ULL);
}

/* gpt-oss-120b's attention (presets/models/gpt-oss-120b.yaml: 18 sliding-window layers of window
 * 128 and 18 full ones, 8 KV heads x 64, BF16 KV) at TP 4 on an H100 (81,559 MiB: SGLang's default
 * chunk 8192), fa3 at page 1, SGLang main, --max-running-requests 64 --disable-radix-cache, the
 * weights fixed at 15 GiB so the pools are the test's own arithmetic. */
static void gptoss_capped(engine_deployment *d)
{
    engine_deployment_defaults(d);
    engine_model *m = &d->model;
    snprintf(m->name, sizeof m->name, "gpt-oss-120b");
    snprintf(m->architecture, sizeof m->architecture, "GptOssForCausalLM");
    m->vocab = 201088;
    m->hidden = 2880;
    m->layers = 36;
    m->context_len = 131072;
    m->attn_kind = ATTN_GQA;
    m->heads = 64;
    m->kv_heads = 8;
    m->head_dim = 64;
    m->sliding_window = 128;
    m->swa_layers = 18;
    m->full_attn_layers = 18;
    m->num_experts = 128;
    m->dispatch_hidden = 2880;
    m->moe_intermediate = 2880;
    m->top_k = 4;
    m->dtype = m->dense_dtype = m->expert_dtype = DTYPE_BF16;
    snprintf(d->gpu.name, sizeof d->gpu.name, "h100");
    d->gpu.cuda_total_bytes = (uint64_t)llround(79.19 * GIB);
    d->gpu.nvidia_smi_mib = 81559;
    d->knobs.world = 4;
    d->knobs.max_bs = 64;
    d->knobs.context_len = 131072;
    d->backend = BACKEND_FA3;
    d->a2a = A2A_NONE;
    d->weights_bytes = 15 * ENGINE_GIB;
    d->knobs.max_running_requests = 64;
    d->knobs.max_running_requests_auto = false;
    d->knobs.disable_radix_cache = true;
}

/* SWAChunkCapPoolConfigurator (sglang main 8905cbd42 model_executor/pool_configurator.py; PR
 * #28755, v0.5.14) for gpt-oss-120b TP 4: window = sliding_window - 1 = 127 (gpt_oss.py
 * get_attention_sliding_window_size), per request 127 + 128 x 1 + 1 + 1 = 257; 64 requests:
 * 16,448, + 2 chunks x 8192 + 1 = 32,833 SWA tokens (a decode server: 16,448, no extra slots
 * above 32 a worker), each 2 heads x 128 x 2 B x 18 layers = 9,216 B: 302,588,928 B fixed, and a
 * full-attention token 9,216 B. */
static void test_swa_cap_gptoss(void **state)
{
    (void)state;
    engine_deployment d;
    gptoss_capped(&d);
    engine_swa_cap c = engine_swa_cap_of(&d);
    assert_true(c.applies);
    assert_null(c.why_not);
    assert_int_equal(c.window, 127);
    assert_int_equal(c.page, 1);
    assert_int_equal(c.eviction_interval, 128);
    assert_int_equal(c.draft_tokens, 1);
    assert_int_equal(c.decode_alloc, 1);
    assert_int_equal(c.per_request, 257);
    assert_int_equal(c.requests, 64);
    assert_int_equal(c.chunk, 8192);
    assert_int_equal(c.extra_slots, 0);
    assert_int_equal(c.cap_plain, 32833);
    assert_int_equal(c.cap_decode, 16448);
    assert_false(c.decode_side);
    assert_int_equal(c.cap_tokens, 32833);
    assert_int_equal(c.swa_token_bytes, 9216);
    assert_int_equal(c.full_token_bytes, 9216);
    assert_int_equal(c.fixed_bytes, 302588928ULL);
    uint64_t full, swa;
    assert_int_equal(engine_kv_cell_split(&d, &full, &swa), 9216); /* no SWA share per full token */
    assert_int_equal(full, 9216);
    assert_int_equal(swa, 0);

    /* the budget: the capped pool first, the full pool the rest */
    engine_estimate e;
    engine_estimate_compute(&d, NULL, &e);
    const engine_budget *b = &e.budget;
    assert_true(b->kv_pool_bytes > 302588928LL);
    assert_int_equal(b->kv_swa_cap_tokens, 32833);
    assert_int_equal(b->kv_swa_pool_bytes, 302588928LL);
    assert_int_equal(b->kv_full_pool_bytes, b->kv_pool_bytes - 302588928LL);
    assert_int_equal(b->kv_tokens, (uint64_t)(b->kv_pool_bytes - 302588928LL) / 9216);
    assert_int_equal(b->kv_min_bytes, 64ULL * 4096 * 9216 + 302588928ULL);
    assert_int_equal(b->kv_tokens_per_gib, ENGINE_GIB / 9216);

    /* a decode server: no chunks, extra slots only at 32 requests a worker or fewer */
    d.decode_server = true;
    c = engine_swa_cap_of(&d);
    assert_true(c.decode_side);
    assert_int_equal(c.cap_tokens, 16448);
    d.knobs.max_running_requests = 16; /* 2 x 16 extra slots of 127 + 1 */
    c = engine_swa_cap_of(&d);
    assert_int_equal(c.extra_slots, 32);
    assert_int_equal(c.cap_tokens, 257 * 16 + 128 * 32);
    /* not known to be one: the larger side, here the prefilling server's 257 x 16 + 16,385 */
    d.decode_server = false;
    assert_int_equal(engine_swa_cap_of(&d).cap_tokens, 257 * 16 + 16385);

    /* DP attention 2: 32 requests and a 4096 chunk per rank, 64 extra slots (32 a worker):
     * 257 x 32 + 8192 + 1 = 16,417 against 8,224 + 128 x 64 = 16,416 */
    gptoss_capped(&d);
    d.knobs.dp = 2;
    d.knobs.dp_attention_auto = false;
    d.knobs.dp_attention = true;
    c = engine_swa_cap_of(&d);
    assert_int_equal(c.requests, 32);
    assert_int_equal(c.chunk, 4096);
    assert_int_equal(c.extra_slots, 64);
    assert_int_equal(c.cap_tokens, 16417);
    d.decode_server = true;
    assert_int_equal(engine_swa_cap_of(&d).cap_tokens, 16416);

    /* EAGLE, 4 draft tokens (3 steps, topk 1), the overlap scheduler: decode 2 x max(3, 4) = 8,
     * per request 127 + 128 x 4 + 1 + 8 = 648 */
    gptoss_capped(&d);
    d.knobs.mtp = 4;
    c = engine_swa_cap_of(&d);
    assert_int_equal(c.decode_alloc, 8);
    assert_int_equal(c.per_request, 648);
    assert_int_equal(c.cap_tokens, 648 * 64 + 16385);

    /* page 64 (trtllm_mha), mtp 2, 63 requests: per request 127 + 256 + 64 + 4 = 451;
     * 451 x 63 + 16,384 + 64 = 44,861, to the page 44,864; the full tokens floored to the page */
    gptoss_capped(&d);
    d.backend = BACKEND_TRTLLM_MHA;
    d.knobs.mtp = 2;
    d.knobs.max_running_requests = 63;
    c = engine_swa_cap_of(&d);
    assert_int_equal(c.page, 64);
    assert_int_equal(c.per_request, 451);
    assert_int_equal(c.cap_plain, 44861);
    assert_int_equal(c.cap_tokens, 44864);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.budget.kv_tokens, (uint64_t)(e.budget.kv_pool_bytes - 44864LL * 9216) / 9216 / 64 * 64);
}

/* The ratio rule stays wherever one of the cap's conditions is missing: before v0.5.14, the
 * requests not given, the radix cache on, the sliding layers in the full pool, no full layer. */
static void test_swa_cap_conditions(void **state)
{
    (void)state;
    engine_deployment d;
    char err[128];
    uint64_t full, swa;
    gptoss_capped(&d);
    assert_int_equal(engine_release_parse("0.5.13", &d.knobs.sglang, err, sizeof err), 0);
    assert_false(engine_swa_cap_of(&d).applies);
    assert_non_null(strstr(engine_swa_cap_of(&d).why_not, "#28755"));
    /* 9,216 full + 0.8 x 9,216 = 7,373 by the ratio */
    assert_int_equal(engine_kv_cell_split(&d, &full, &swa), 9216 + 7373);
    assert_int_equal(swa, 7373);
    engine_estimate e;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.budget.kv_swa_cap_tokens, 0);
    assert_int_equal(e.budget.kv_tokens, (uint64_t)e.budget.kv_pool_bytes / (9216 + 7373));
    assert_int_equal(engine_release_parse("0.5.14", &d.knobs.sglang, err, sizeof err), 0);
    assert_true(engine_swa_cap_of(&d).applies);

    /* max_running_requests auto: launch prints max_bs (engine_plan_max_running_requests), so the
     * server it starts is capped with max_bs requests */
    gptoss_capped(&d);
    d.knobs.max_running_requests_auto = true;
    engine_swa_cap launched = engine_swa_cap_of(&d);
    assert_true(launched.applies);
    assert_int_equal(launched.requests, d.knobs.max_bs);
    gptoss_capped(&d);
    d.knobs.disable_radix_cache = false;
    assert_false(engine_swa_cap_of(&d).applies);
    assert_int_equal(engine_kv_cell_bytes(&d), 9216 + 7373);
    gptoss_capped(&d);
    d.knobs.disable_hybrid_swa_memory = true; /* one pool: every layer holds every token */
    assert_false(engine_swa_cap_of(&d).applies);
    assert_int_equal(engine_kv_cell_bytes(&d), 2 * 9216);
    gptoss_capped(&d);
    d.model.full_attn_layers = 0; /* all sliding: HybridSWAPoolConfigurator's all-SWA path */
    d.model.swa_layers = 36;
    assert_false(engine_swa_cap_of(&d).applies);
    gptoss_capped(&d);
    d.model.swa_layers = 0;
    d.model.sliding_window = 0;
    assert_false(engine_swa_cap_of(&d).applies);
}

/* Llama-3.1-8B (dense GQA, no chunked attention; presets/models/llama-3.1-8b.yaml) on one H100 with fa3,
 * context 131072, buckets 1, 2, 4, 8, 16, 32, 64: B = 64, P = 131072.
 *   main:        decode metadata 4 x 64 + 8 x 65 + 4 x 64 x 131072 + 8 x 131072 = 34,603,784
 *   v0.4.9.post4: + draft table 4 x 64 x 131072 = 33,554,432
 *                 + encoder 4 x 64 x 131072 + 4 x 64 + 4 x 65 = 33,554,948
 *                 + capture copies 4 x 131072 x (1+2+4+8+16+32+64 = 127) = 66,584,576
 *                 = 168,297,740
 *   main, mtp 4: + draft table 33,554,432 + verify and draft-extend metadata 2 x 34,603,784
 *                 + tree mask (64 x 4 rows) x (131072 + 4) = 33,555,456: 170,921,240 */
static void test_fa3_state_dense_gqa(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    char err[128];
    engine_deployment_defaults(&d);
    engine_model *m = &d.model;
    snprintf(m->name, sizeof m->name, "llama-3.1-8b");
    m->vocab = 128256;
    m->hidden = 4096;
    m->layers = 32;
    m->context_len = 131072;
    m->attn_kind = ATTN_GQA;
    m->heads = 32;
    m->kv_heads = 8;
    m->head_dim = 128;
    m->full_attn_layers = 32;
    m->intermediate = 14336;
    snprintf(d.gpu.name, sizeof d.gpu.name, "h100");
    d.gpu.cuda_total_bytes = (uint64_t)llround(79.19 * GIB);
    d.gpu.nvidia_smi_mib = 81559;
    d.knobs.world = 1;
    d.knobs.max_bs = 64;
    d.knobs.context_len = 131072;
    d.knobs.buckets_auto = false;
    const uint32_t b[] = {1, 2, 4, 8, 16, 32, 64};
    d.knobs.n_buckets = 7;
    memcpy(d.knobs.buckets, b, sizeof b);
    d.backend = BACKEND_FA3;
    d.a2a = A2A_NONE;
    d.weights_bytes = 15 * ENGINE_GIB;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.n_buckets, 7);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 34603784ULL);
    assert_int_equal(engine_release_parse("0.4.9.post4", &d.knobs.sglang, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 168297740ULL);
    d.knobs.sglang = engine_release_newest();
    d.knobs.mtp = 4;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.n_buckets, 7);
    assert_int_equal(e.attn_rows, 256);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 170921240ULL);
}

/* Llama-3.3-70B at TP8 on H200, SGLang 0.5.3, fa3 (bench/data llama3.3-70b-tp8-h200-bs512-pcg):
 * each captured graph's kernel nodes (graph_nodes.c) per layer, GQA without q/k norm:
 *   norm 1, qkv 1-2, RoPE 1, KV store 1-2, FA3 1-3, o_proj 1-2; MLP 4: 10..15, x 80 = 800..1200
 *   + 2 x 80 + 1 = 161 all-reduces + model 5..9 + the vocab all-gather 1: 967..1371, expected 1169.
 * SGLang's log says "Registering 8372 cuda graph addresses": 161 x 52 graphs, so custom
 * all-reduce serves even the bs-512 graph's 8 MiB inputs; NCCL runs only the 52 vocab
 * all-gathers. Every term lies in its range, and the recommended fraction
 * leaves the margin at the high end: f <= 1 - (high + other runtime + margin) / P. */
static void test_graph_nodes_llama70b_tp8(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    char err[128];
    engine_deployment_defaults(&d);
    engine_model *m = &d.model;
    snprintf(m->name, sizeof m->name, "llama-3.1-70b");
    snprintf(m->architecture, sizeof m->architecture, "LlamaForCausalLM");
    m->vocab = 128256;
    m->hidden = 8192;
    m->layers = 80;
    m->context_len = 131072;
    m->attn_kind = ATTN_GQA;
    m->heads = 64;
    m->kv_heads = 8;
    m->head_dim = 128;
    m->full_attn_layers = 80;
    m->intermediate = 28672;
    for (int c = 0; c < COEF_COUNT; c++)
        m->coef_missing[c] = true; /* a model preset: no fitted coefficient */
    snprintf(d.gpu.name, sizeof d.gpu.name, "h200");
    d.gpu.cuda_total_bytes = (uint64_t)llround(139.80 * GIB);
    d.gpu.nvidia_smi_mib = 143771;
    d.gpu.arch = GPU_ARCH_SM90;
    d.knobs.world = 8;
    d.knobs.max_bs = 512;
    d.knobs.context_len = 131072;
    d.knobs.max_dispatch_auto = true;
    d.knobs.backend_auto = true;
    d.a2a = A2A_NONE;
    assert_int_equal(engine_release_parse("0.5.3", &d.knobs.sglang, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.backend, BACKEND_FA3);
    assert_int_equal(e.n_buckets, 52);
    assert_int_equal(e.graph_nodes.allreduce, 161);
    assert_int_equal(e.graph_nodes.allreduce * e.n_buckets, 8372);
    assert_int_equal(e.graph_nodes.nodes.low, 967);
    assert_int_equal(e.graph_nodes.nodes.high, 1371);
    assert_int_equal(e.graph_nodes.nodes.expected, 1169);
    assert_int_equal(e.nccl_graph_ops, 52);
    assert_true(e.parts[PART_BUCKETS_NODES].present);
    assert_int_equal(e.parts[PART_BUCKETS_NODES].bytes, 52ULL * 1169 * e.node_bytes);
    assert_int_equal(e.parts[PART_BUCKETS_WRAPPERS].bytes, 0); /* fa3 keeps no wrapper */
    assert_int_equal(e.parts[PART_LAZY_CUBLAS].bytes, 33 * ENGINE_MIB);
    assert_int_equal(e.parts[PART_LAZY_NCCL].bytes, 0);
    assert_true(e.total_complete);
    for (int i = 0; i < TERM_COUNT; i++)
        assert_true(e.terms[i].low_bytes <= e.terms[i].bytes && e.terms[i].bytes <= e.terms[i].high_bytes);
    assert_true(e.total_high_bytes > e.total_bytes);
    double P = (double)e.budget.pre_load_free_bytes;
    double cap = 1.0 - (double)(e.total_high_bytes + d.other_runtime_bytes + d.margin_bytes) / P;
    assert_true(e.budget.recommended_mem_fraction_static <= cap + 1e-9);
    /* the node_bytes knob moves the constant and keeps its relative range */
    assert_int_equal(engine_knob_set_text(&d, KNOB_NODE_BYTES, "20000", NULL, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.node_bytes, 20000);
    assert_int_equal(e.parts[PART_BUCKETS_NODES].bytes, 52ULL * 1169 * 20000);
    assert_true(e.node_bytes_range.low < 20000 && e.node_bytes_range.high > 20000);
    /* the order: the knob, a calibration of the GPU's runs, the GPU preset's figure, the arch's */
    engine_calibration cal = {0};
    engine_calibration_set_node_bytes(&cal, (engine_range){16384, 15000, 18000}, 3, "h200", NULL);
    engine_estimate_compute(&d, &cal, &e);
    assert_int_equal(e.node_bytes, 20000); /* the knob still wins, with the calibration's width */
    assert_int_equal(e.node_bytes_range.low, 20000ULL * 15000 / 16384);
    assert_int_equal(e.node_bytes_runs, 0);
    assert_true(engine_knob_set_auto(&d, KNOB_NODE_BYTES));
    engine_estimate_compute(&d, &cal, &e);
    assert_int_equal(e.node_bytes, 16384);
    assert_int_equal(e.node_bytes_range.high, 18000);
    assert_int_equal(e.node_bytes_runs, 3);
    assert_string_equal(e.node_bytes_source,
                        "calibrated from 3 runs on h200 (every release; cgplan calibrate over every model's runs on "
                        "this GPU)");
    assert_int_equal(e.parts[PART_BUCKETS_NODES].bytes, 52ULL * 1169 * 16384);
    assert_int_equal(e.parts[PART_BUCKETS_NODES].source, SOURCE_CALIBRATED);
    assert_int_equal(e.terms[TERM_BUCKETS].source, SOURCE_CALIBRATED);
    d.gpu.node_bytes = (engine_range){12000, 11000, 13000};
    engine_estimate_compute(&d, &cal, &e);
    assert_int_equal(e.node_bytes, 16384); /* above the preset's figure */
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.node_bytes, 12000); /* the preset's, above the arch's default */
    assert_int_equal(e.parts[PART_BUCKETS_NODES].source, SOURCE_EMPIRICAL);
    d.gpu.node_bytes = (engine_range){0, 0, 0};
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.node_bytes, 17715); /* Hopper's empirical fit (graph_nodes.c) */
}

/* attention_backend auto: the release's default for the GPU's arch (engine_release_default_backend),
 * and the page size that backend runs with, in the estimate and its text. Qwen3-8B's shapes
 * (presets/models/qwen3-8b.yaml) at context 40960, buckets 1, 2, 4, 8: B = 8.
 *   B200, main:        trtllm_mha, page 64: 8 x ceil(40960 / 64) x 4 = 20,480
 *   B200, page 32:     8 x 1280 x 4 = 40,960
 *   B200, v0.5.6.post1: flashinfer (before PR #14291): 1 wrapper x 8 x 40960 x 4 = 1,310,720
 *   H100, main:        fa3, page 1: 4 x 8 + 8 x 9 + 4 x 8 x 40960 + 8 x 40960 = 1,638,504 */
static void test_auto_backend_follows_release_and_arch(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    char err[128], text[64];
    engine_deployment_defaults(&d);
    engine_model *m = &d.model;
    snprintf(m->name, sizeof m->name, "qwen3-8b");
    snprintf(m->architecture, sizeof m->architecture, "Qwen3ForCausalLM");
    m->vocab = 151936;
    m->hidden = 4096;
    m->layers = 36;
    m->context_len = 40960;
    m->attn_kind = ATTN_GQA;
    m->heads = 32;
    m->kv_heads = 8;
    m->head_dim = 128;
    m->full_attn_layers = 36;
    m->intermediate = 12288;
    snprintf(d.gpu.name, sizeof d.gpu.name, "b200");
    d.gpu.cuda_total_bytes = (uint64_t)llround(178.35 * GIB);
    d.gpu.nvidia_smi_mib = 183359;
    d.gpu.ue8m0_scales = true;
    d.gpu.arch = GPU_ARCH_SM100;
    d.knobs.world = 1;
    d.knobs.max_bs = 8;
    d.knobs.context_len = 40960;
    d.knobs.buckets_auto = false;
    const uint32_t b[] = {1, 2, 4, 8};
    d.knobs.n_buckets = 4;
    memcpy(d.knobs.buckets, b, sizeof b);
    d.knobs.backend_auto = true;
    d.a2a = A2A_NONE;
    d.weights_bytes = 15 * ENGINE_GIB;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.backend, BACKEND_TRTLLM_MHA);
    assert_int_equal(e.layout.page_size, 64);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 20480ULL);
    engine_knob_text(&d, &e, KNOB_ATTENTION_BACKEND, KNOB_TEXT_FULL, text, sizeof text);
    assert_string_equal(text, "auto (trtllm_mha)");
    engine_knob_text(&d, &e, KNOB_PAGE_SIZE, KNOB_TEXT_FULL, text, sizeof text);
    assert_string_equal(text, "auto (64)");

    d.knobs.page_size_auto = false; /* --page-size 32: trtllm_mha takes it */
    d.knobs.page_size = 32;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.page_size, 32);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 40960ULL);
    d.knobs.page_size_auto = true;

    assert_int_equal(engine_release_parse("0.5.6.post1", &d.knobs.sglang, err, sizeof err), 0);
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.backend, BACKEND_FLASHINFER);
    assert_int_equal(e.layout.page_size, 1);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 1310720ULL);

    d.knobs.sglang = engine_release_newest();
    snprintf(d.gpu.name, sizeof d.gpu.name, "h100");
    d.gpu.cuda_total_bytes = (uint64_t)llround(79.19 * GIB);
    d.gpu.nvidia_smi_mib = 81559;
    d.gpu.ue8m0_scales = false;
    d.gpu.arch = GPU_ARCH_SM90;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.backend, BACKEND_FA3);
    assert_int_equal(e.terms[TERM_KV_INDEX].bytes, 1638504ULL);
    engine_knob_text(&d, &e, KNOB_PAGE_SIZE, KNOB_TEXT_FULL, text, sizeof text);
    assert_string_equal(text, "auto (1)");

    d.knobs.backend_auto = false; /* an explicit backend keeps its own page rule */
    d.backend = BACKEND_TRTLLM_MHA;
    engine_estimate_compute(&d, NULL, &e);
    assert_int_equal(e.layout.page_size, 64);
}

static void test_calibrated_source(void **state)
{
    (void)state;
    engine_deployment d;
    engine_estimate e;
    engine_calibration cal = {0};
    k3_dp16(&d);
    cal.has[COEF_LAZY_BYTES] = true;
    cal.value[COEF_LAZY_BYTES] = ENGINE_GIB;
    cal.n_runs = 2;
    cal.runs[0] = 1;
    cal.runs[1] = 2;
    engine_estimate_terms(&d, &cal, &e);
    assert_int_equal(e.terms[TERM_LAZY].source, SOURCE_CALIBRATED);
    assert_int_equal(e.terms[TERM_LAZY].bytes, ENGINE_GIB);
    assert_int_equal(e.terms[TERM_LAZY].n_runs, 2);
    assert_int_equal(e.terms[TERM_ACT].source, SOURCE_COEFFICIENT);
}

/* A plan from a model alone: SGLang's --tp-size default and the release's max_bs tier, marked
 * as the release's; a value the user set is kept. */
static void test_sglang_defaults(void **state)
{
    (void)state;
    engine_deployment d;
    engine_deployment_defaults(&d);
    engine_deployment_sglang_defaults(&d);
    assert_int_equal(d.knobs.world, 1);
    assert_int_equal(d.knob_origin[KNOB_WORLD], ORIGIN_RELEASE);
    assert_int_equal(d.a2a, A2A_NONE); /* no --moe-a2a-backend, the release's backend, dispatch auto */
    assert_true(d.knobs.backend_auto && d.knobs.max_dispatch_auto);
    d.gpu.nvidia_smi_mib = 81559; /* H100: the 80-160 GiB tier, 256 below tp 4 */
    engine_deployment_resolve_release_knobs(&d);
    assert_int_equal(d.knobs.max_bs, 256);
    d.knobs.world = 8;
    engine_deployment_resolve_release_knobs(&d);
    assert_int_equal(d.knobs.max_bs, 512);
    d.gpu.nvidia_smi_mib = 23034; /* L4: the 20-35 GiB tier, 24 below tp 4 on main, 80 from it */
    engine_deployment_resolve_release_knobs(&d);
    assert_int_equal(d.knobs.max_bs, 80);
    d.knobs.world = 2;
    engine_deployment_resolve_release_knobs(&d);
    assert_int_equal(d.knobs.max_bs, 24);
    d.knobs.max_bs = 48; /* as --set does */
    d.knob_origin[KNOB_MAX_BS] = ORIGIN_SET;
    engine_deployment_resolve_release_knobs(&d);
    assert_int_equal(d.knobs.max_bs, 48);
}

/* Found by fuzz_sglang_args: --speculative-num-steps past a long (strtol's LONG_MAX) overflowed
 * the steps + 1 of the draft tokens SGLang picks; now the knob refuses the number. */
static void test_sglang_args_huge_steps(void **state)
{
    (void)state;
    engine_deployment d;
    engine_deployment_defaults(&d);
    char err[ENGINE_TEXT_MAX] = "";
    assert_int_equal(engine_apply_sglang_args(&d,
                                              "--speculative-algorithm EAGLE --speculative-num-steps "
                                              "99999999999999999999",
                                              NULL, 0, NULL, NULL, err, sizeof err),
                     -1);
    assert_true(err[0] != '\0');
    engine_deployment_defaults(&d);
    assert_int_equal(engine_apply_sglang_args(&d, "--speculative-algorithm EAGLE --speculative-num-steps 3", NULL, 0,
                                              NULL, NULL, err, sizeof err),
                     0);
    assert_int_equal(d.knobs.mtp, 4);
}

/* A measured figure holds at its own layout only (issue 20): off it, the model's count. */
static void test_measured_layout(void **state)
{
    (void)state;
    static engine_deployment d;
    static engine_estimate e;
    k3_dp16(&d);
    engine_measured_layout_record(&d);
    engine_estimate_compute(&d, NULL, &e);
    assert_true(e.budget.weights_measured && e.budget.state_measured && !e.budget.measured_elsewhere);
    assert_int_equal(e.budget.weights_bytes, 150 * ENGINE_GIB);
    d.knobs.dp = 2;
    d.knobs.dcp = 8;
    assert_false(engine_measured_layout_holds(&d));
    engine_estimate_compute(&d, NULL, &e);
    assert_false(e.budget.weights_measured);
    assert_true(e.budget.measured_elsewhere);
    bool known;
    uint64_t model = engine_weight_bytes_per_gpu(&d.model, 16, 2, true, 16, &known);
    assert_true(known == e.budget.weights_known); /* the unit's K3 may lack fields to count: then unknown */
    assert_int_equal(e.budget.weights_bytes, model);
    assert_true(model != 150 * ENGINE_GIB);
    char buf[64];
    engine_measured_layout now = engine_measured_layout_of(&d);
    engine_measured_layout_text(&d.measured_at, &now, buf, sizeof buf);
    assert_string_equal(buf, "DP16");
    engine_measured_layout_text(&now, &d.measured_at, buf, sizeof buf);
    assert_string_equal(buf, "DP2 x DCP8");
    /* ep alone: the names agree, the text says the dimension (off DeepEP, which sets ep = tp) */
    d.knobs.dp = 16;
    d.knobs.dcp = 1;
    d.a2a = A2A_NONE;
    d.knobs.ep_auto = false;
    d.knobs.ep = 8;
    now = engine_measured_layout_of(&d);
    engine_measured_layout_text(&now, &d.measured_at, buf, sizeof buf);
    assert_string_equal(buf, "DP16, ep 8");
    /* no recorded layout (a hand-built plan): the figure holds anywhere */
    d.measured_at.known = false;
    assert_true(engine_measured_layout_holds(&d));
}

/* The request policy is the limit when the requirement grows more than the pool shrinks. */
static void test_fit_limit(void **state)
{
    (void)state;
    engine_fit fits = {.kv_pool_bytes = 100, .kv_min_bytes = 50};
    engine_fit next = {.blocking = "kv_per_request", .kv_pool_bytes = 90, .kv_min_bytes = 120};
    assert_string_equal(engine_fit_limit(&fits, &next, TERM_BUCKETS), "kv_per_request");
    next.kv_pool_bytes = 10;
    next.kv_min_bytes = 60;
    assert_string_equal(engine_fit_limit(&fits, &next, TERM_DEEPEP), engine_terms[TERM_DEEPEP].key);
    assert_string_equal(engine_fit_limit(NULL, &next, TERM_DEEPEP), "kv_per_request");
    next.blocking = "dispatch_below_rows";
    assert_string_equal(engine_fit_limit(&fits, &next, TERM_DEEPEP), engine_terms[TERM_DEEPEP].key);
    assert_int_equal(engine_warning_severity("kv_per_request"), SEVERITY_WARNING);
    assert_int_equal(engine_warning_severity("kv_pool_exhausted"), SEVERITY_BLOCKING);
}

/* The whole-line reader (sglang_args.c): the shell's split, a status per flag, nothing dropped. */
static const engine_sglang_flag *flag_row(const engine_sglang_line *l, const char *flag)
{
    for (int i = 0; i < l->n_flags; i++)
        if (strcmp(l->flags[i].flag, flag) == 0)
            return &l->flags[i];
    return NULL;
}

static void test_sglang_read_line_shell(void **state)
{
    (void)state;
    static engine_deployment d;
    static engine_sglang_line l;
    engine_deployment_defaults(&d);
    char err[ENGINE_TEXT_MAX] = "";
    assert_int_equal(engine_sglang_read_line(&d,
                                             "export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=96\n"
                                             "python3 -m sglang.launch_server \\\n"
                                             "  --model-path \"/models/My Model\" --tp-size=8 \\\n"
                                             "  --served-model-name 'a b' --port 30000 --bogus-flag 3\n"
                                             "echo done --dp-size 4",
                                             &l, NULL, err, sizeof err),
                     0);
    assert_true(l.program && !l.other_program && engine_sglang_line_is_launch(&l));
    assert_string_equal(l.model_path, "/models/My Model");
    assert_int_equal(d.knobs.world, 8);
    assert_int_equal(d.knobs.dp, 1); /* the second command is not read */
    assert_false(d.knobs.max_dispatch_auto);
    assert_int_equal(d.knobs.max_dispatch, 96);
    assert_int_equal(l.n_flags, 6);
    assert_string_equal(flag_row(&l, "--served-model-name")->value, "a b");
    assert_int_equal(flag_row(&l, "--served-model-name")->status, SGLANG_FLAG_NO_EFFECT);
    assert_int_equal(flag_row(&l, "--bogus-flag")->status, SGLANG_FLAG_UNKNOWN);
    assert_string_equal(flag_row(&l, "--bogus-flag")->value, "3");
    assert_int_equal(flag_row(&l, "--tp-size")->status, SGLANG_FLAG_MODELLED);
    assert_int_equal(l.n_status[SGLANG_FLAG_MODELLED], 3); /* env, model path, tp */
    /* not a launch line */
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "ls -la", &l, NULL, err, sizeof err), 0);
    assert_false(engine_sglang_line_is_launch(&l));
    /* an open quote, an over-long line: refused with a reason */
    assert_int_equal(engine_sglang_read_line(&d, "--tp 'x", &l, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "unterminated"));
    static char big[ENGINE_SGLANG_LINE_MAX + 8];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(engine_sglang_read_line(&d, big, &l, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "longer than"));
}

/* A flag a release lacks is rejected with a note that says so; back on a release that has it,
 * the flag reads as it did, its note too. */
static void test_sglang_line_release_recheck(void **state)
{
    (void)state;
    static engine_deployment d;
    static engine_sglang_line l;
    char err[ENGINE_TEXT_MAX] = "";
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "--tp-size 8 --dcp-size 2", &l, NULL, err, sizeof err), 0);
    const engine_sglang_flag *dcp = flag_row(&l, "--dcp-size");
    assert_int_equal(dcp->status, SGLANG_FLAG_MODELLED);
    char as_read[ENGINE_TEXT_MAX];
    snprintf(as_read, sizeof as_read, "%s", dcp->note);
    engine_release old;
    assert_int_equal(engine_release_parse("0.5.6", &old, err, sizeof err), 0);
    engine_sglang_line_check_release(&l, &old);
    assert_int_equal(dcp->status, SGLANG_FLAG_REJECTED);
    assert_string_equal(dcp->note, "SGLang v0.5.6 has no --dcp-size: it refuses the line");
    assert_int_equal(l.n_status[SGLANG_FLAG_REJECTED], 1);
    engine_sglang_line_check_release(&l, &d.knobs.sglang); /* main has it */
    assert_int_equal(dcp->status, SGLANG_FLAG_MODELLED);
    assert_string_equal(dcp->note, as_read);
    assert_int_equal(l.n_status[SGLANG_FLAG_REJECTED], 0);
}

static void test_sglang_read_line_rules(void **state)
{
    (void)state;
    static engine_deployment d;
    static engine_sglang_line l;
    char err[ENGINE_TEXT_MAX] = "";
    /* an explicit list with no max_bs: max_bs = max(list) (server_args.py _handle_gpu_memory_settings) */
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "--cuda-graph-bs 1 2 4 8 16 32", &l, NULL, err, sizeof err), 0);
    assert_int_equal(d.knobs.max_bs, 32);
    assert_int_equal(d.knobs.n_buckets, 6);
    assert_string_equal(l.flags[0].value, "1 2 4 8 16 32");
    /* EAGLE with no --max-running-requests: the release's 48 (PR #4908); none before v0.4.3.post3 */
    engine_release r;
    assert_int_equal(engine_release_parse("0.4.4.post4", &r, err, sizeof err), 0);
    assert_int_equal(engine_release_spec_max_running_requests(&r), 48);
    assert_int_equal(engine_release_parse("0.4.3.post3", &r, err, sizeof err), 0);
    assert_int_equal(engine_release_spec_max_running_requests(&r), 32);
    assert_int_equal(engine_release_parse("0.4.3.post2", &r, err, sizeof err), 0);
    assert_int_equal(engine_release_spec_max_running_requests(&r), 0);
    engine_deployment_defaults(&d);
    d.knobs.world = 8;
    assert_int_equal(engine_sglang_read_line(&d, "--speculative-algorithm NEXTN", &l, NULL, err, sizeof err), 0);
    assert_int_equal(d.knobs.mtp, 4);
    assert_false(d.knobs.max_running_requests_auto);
    assert_int_equal(d.knobs.max_running_requests, 48);
    assert_int_equal(d.knobs.max_bs, 48);
    /* a release without the flag: rejected, and back once the release has it */
    engine_deployment_defaults(&d);
    assert_int_equal(engine_release_parse("0.5.6", &d.knobs.sglang, err, sizeof err), 0);
    assert_int_equal(engine_sglang_read_line(&d, "--tp 16 --dp-size 2 --enable-dp-attention --dcp-size 8", &l, NULL,
                                             err, sizeof err),
                     0);
    assert_int_equal(flag_row(&l, "--dcp-size")->status, SGLANG_FLAG_REJECTED);
    assert_int_equal(l.n_status[SGLANG_FLAG_REJECTED], 1);
    engine_release main_release = engine_release_newest();
    engine_sglang_line_check_release(&l, &main_release);
    assert_int_equal(flag_row(&l, "--dcp-size")->status, SGLANG_FLAG_MODELLED);
    assert_int_equal(l.n_status[SGLANG_FLAG_REJECTED], 0);
    /* statuses of the flags */
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "--enable-torch-compile --torch-compile-max-bs 32 --enable-mixed-chunk "
                                                 "--chunked-prefill-size 8192 --log-level info --quantization awq",
                                             &l, NULL, err, sizeof err),
                     0);
    assert_int_equal(flag_row(&l, "--enable-torch-compile")->status, SGLANG_FLAG_NOT_MODELLED);
    assert_string_equal(flag_row(&l, "--torch-compile-max-bs")->value, "32");
    assert_int_equal(flag_row(&l, "--enable-mixed-chunk")->status, SGLANG_FLAG_NOT_MODELLED);
    assert_int_equal(flag_row(&l, "--chunked-prefill-size")->status, SGLANG_FLAG_NOT_MODELLED);
    assert_int_equal(flag_row(&l, "--log-level")->status, SGLANG_FLAG_NO_EFFECT);
    assert_int_equal(flag_row(&l, "--quantization")->status, SGLANG_FLAG_NOT_MODELLED);
    /* argparse: the last of a repeated flag wins, and the flags' order does not matter (found by
     * fuzz_lint: --tp-size 16 --dp-size 16 --tp 6 read on a DP16 plan, then refused on re-reading) */
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "--tp-size 16 --dp-size 16 --tp 6", &l, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "--dp-size 16"));
    engine_deployment_defaults(&d);
    assert_int_equal(engine_sglang_read_line(&d, "--dcp-size 2 --dp-size 2 --enable-dp-attention --tp 8 --tp 16", &l,
                                             NULL, err, sizeof err),
                     0);
    assert_int_equal(d.knobs.world, 16);
    assert_int_equal(d.knobs.dp, 2);
    assert_int_equal(d.knobs.dcp, 2);
    assert_int_equal(l.flags[3].status, SGLANG_FLAG_NO_EFFECT); /* the first --tp */
    assert_non_null(strstr(l.flags[3].note, "argparse keeps the last"));
    /* the wrapper keeps its contract: what moves no knob is counted */
    engine_deployment_defaults(&d);
    int skipped = -1;
    char path[64];
    assert_int_equal(engine_apply_sglang_args(&d, "--model-path x/y --tp 4 --host h --bogus 1", path, sizeof path,
                                              &skipped, NULL, err, sizeof err),
                     0);
    assert_string_equal(path, "x/y");
    assert_int_equal(skipped, 2);
    assert_int_equal(d.knobs.world, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepep_hint_sizes),   cmocka_unit_test(test_masked_gemm),
        cmocka_unit_test(test_bucket_grid),         cmocka_unit_test(test_bucket_rule_auto),
        cmocka_unit_test(test_bucket_rule_explicit), cmocka_unit_test(test_heuristic_branches),
        cmocka_unit_test(test_dp16_reference),
        cmocka_unit_test(test_dp16_max_bs_128),     cmocka_unit_test(test_dp16_dispatch_below_rows),
        cmocka_unit_test(test_dp2_reference),       cmocka_unit_test(test_remainder_difference),
        cmocka_unit_test(test_deepep_normal_hint),
        cmocka_unit_test(test_knob_rules),          cmocka_unit_test(test_knob_steps),
        cmocka_unit_test(test_calibrated_source),
        cmocka_unit_test(test_fa3_state_llama4_maverick),
        cmocka_unit_test(test_swa_cap_gptoss),
        cmocka_unit_test(test_swa_cap_conditions),
        cmocka_unit_test(test_fa3_state_dense_gqa),
        cmocka_unit_test(test_auto_backend_follows_release_and_arch),
        cmocka_unit_test(test_sglang_defaults),
        cmocka_unit_test(test_sglang_args_huge_steps),
        cmocka_unit_test(test_graph_nodes_llama70b_tp8),
        cmocka_unit_test(test_measured_layout),
        cmocka_unit_test(test_fit_limit),
        cmocka_unit_test(test_sglang_read_line_shell),
        cmocka_unit_test(test_sglang_read_line_rules),
        cmocka_unit_test(test_sglang_line_release_recheck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
