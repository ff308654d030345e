/* test_dsv4.c — DeepSeek-V4's KV pool sum (engine/dsv4.c) against the figure SGLang logs for
 * DeepSeek-V4-Flash-Base at TP8 on H20 (bench/data/deployments.json, points
 * dsv4-flash-base-tp8-h20-bs320-f088 and -f060-fp8kv): "DSv4 memory calculation:
 * bytes_per_full_token=15955.85, available_bytes=45.78 GB, full_token=3080960". Shapes from
 * deepseek-ai/DeepSeek-V4-Flash config.json: head_dim 512, qk_rope_head_dim 64 (nope 448),
 * index_head_dim 128, sliding_window 128, compress_ratios of 44 entries (2 x 0, 21 x 4, 20 x 128,
 * the MTP layer's 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsv4.h"
#include "preset.h"
#include "release.h"
#include "weights.h"

static const engine_dsv4_shape v4_flash = {
    .qk_nope_head_dim = 448,
    .qk_rope_head_dim = 64,
    .index_head_dim = 128,
    .window_size = 128,
    .layers_total = 44,
    .layers_c4 = 21,
    .layers_c128 = 20,
    .model_layers = 43,
    .model_c4 = 21,
    .model_c128 = 20,
};
/* SGLang's DSv4 default swa_full_tokens_ratio, no speculation, offline c128 (the env default). */
static const engine_dsv4_launch plain = {.swa_ratio = 0.1, .speculative = false, .online_c128 = false};

static void test_bytes_per_full_token_matches_the_h20_log(void **state)
{
    (void)state;
    engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&v4_flash, &plain);
    /* The log prints two decimals. The second H20 run (--kv-cache-dtype fp8_e4m3) logs the same
     * figure: the sum has no kv dtype in it (the DSv4 row is FP8 nope + BF16 rope + scales whatever
     * the flag says), so engine_dsv4_launch carries none. */
    assert_true(fabs(b.total - 15955.85) < 0.005);
    /* The parts, each by hand: kv row 448 + 128 + 8 = 584 B, indexer row 132 B. */
    assert_true(fabs(b.swa_kv - 0.1 * 584 * 44) < 1e-9);                   /* 2569.6 */
    assert_true(fabs(b.c4_kv - 584.0 / 4 * 21) < 1e-9);                    /* 3066 */
    assert_true(fabs(b.c128_kv - 584.0 / 128 * 20) < 1e-9);                /* 91.25 */
    assert_true(fabs(b.c4_indexer - 132.0 / 4 * 21) < 1e-9);               /* 693 */
    assert_true(fabs(b.c4_state - 0.1 * 8 / 128 * 8192 * 21) < 1e-9);      /* 1075.2 */
    assert_true(fabs(b.c128_state - 0.1 * 128 / 128 * 4096 * 20) < 1e-9);  /* 8192: the largest part */
    assert_true(fabs(b.indexer_state - 0.1 * 8 / 128 * 2048 * 21) < 1e-9); /* 268.8 */
}

/* Speculation doubles both rings (c4 16, c128 256); online c128 is one 3-slot state. */
static void test_rings(void **state)
{
    (void)state;
    engine_dsv4_launch spec = plain;
    spec.speculative = true;
    assert_int_equal(engine_dsv4_ring_size(4, &plain), 8);
    assert_int_equal(engine_dsv4_ring_size(128, &plain), 128);
    assert_int_equal(engine_dsv4_ring_size(4, &spec), 16);
    assert_int_equal(engine_dsv4_ring_size(128, &spec), 256);
    engine_dsv4_bytes s = engine_dsv4_bytes_per_full_token(&v4_flash, &spec);
    /* 15955.85 + 1075.2 + 8192 + 268.8 */
    assert_true(fabs(s.total - 25491.85) < 0.005);
    engine_dsv4_launch online = plain;
    online.online_c128 = true;
    assert_int_equal(engine_dsv4_ring_size(128, &online), 1);
    engine_dsv4_bytes o = engine_dsv4_bytes_per_full_token(&v4_flash, &online);
    /* c128 state: 0.1 x 1/128 x 3 x 512 x 4 x 20 = 96 B instead of 8192. */
    assert_true(fabs(o.c128_state - 96.0) < 1e-9);
}

/* The token counts: the log's available_bytes is rounded to 0.01 GiB, so the logged full_token
 * must lie between the counts of the rounding interval's two ends. */
static void test_full_tokens_bracket_the_logs(void **state)
{
    (void)state;
    const struct {
        double gib;
        uint64_t logged;
    } runs[] = {{45.78, 3080960}, {19.58, 1317632}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        uint64_t lo = (uint64_t)((runs[i].gib - 0.005) * 1073741824.0);
        uint64_t hi = (uint64_t)((runs[i].gib + 0.005) * 1073741824.0);
        engine_dsv4_pools a = engine_dsv4_pool_sizes(&v4_flash, &plain, lo, 256);
        engine_dsv4_pools b = engine_dsv4_pool_sizes(&v4_flash, &plain, hi, 256);
        assert_true(a.full_tokens <= runs[i].logged && runs[i].logged <= b.full_tokens);
        assert_int_equal(a.full_tokens % 256, 0);
    }
    engine_dsv4_pools p = engine_dsv4_pool_sizes(&v4_flash, &plain, (uint64_t)(3080960 * 15955.85) + 1, 256);
    assert_int_equal(p.full_tokens, 3080960);
    assert_int_equal(p.swa_tokens, 307968); /* 308096 floored to the page */
    assert_int_equal(p.c4_tokens, 770240);
    assert_int_equal(p.c128_tokens, 24070);
    assert_int_equal(p.c4_state_slots, 307968 / 128 * 8);
    assert_int_equal(p.c128_state_slots, 307968 / 128 * 128);
}

/* The built-in preset MODEL (the catalog without the tester's own presets). */
static void load_builtin(const char *name, engine_model *m)
{
    char dir[] = "/tmp/cgplan-test-dsv4-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("CGPLAN_PRESETS", dir, 1);
    preset_catalog *c = preset_catalog_open();
    char err[512];
    int rc = preset_load_model(c, name, m, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", name, err);
    preset_catalog_free(c);
    rmdir(dir);
}

/* The V4-Flash preset's shapes give the log's sum, and the parameters the model card publishes
 * (284B), each part as models/deepseek_v4.py builds it. */
static void test_v4_flash_preset(void **state)
{
    (void)state;
    engine_model m;
    load_builtin("deepseek-v4-flash", &m);
    assert_int_equal(m.attn_kind, ATTN_DSV4);
    engine_dsv4_shape s = engine_dsv4_shape_of(&m);
    assert_memory_equal(&s, &v4_flash, sizeof s);
    engine_param_parts p;
    assert_true(engine_model_param_parts(&m, &p));
    const uint64_t L = 43, h = 4096;
    /* wq_b 1024 -> 64 x 512 and wo_b 8 x 1024 -> 4096 (FP8); wo_a 64 x 512 -> 1024 by 8 groups (BF16) */
    assert_int_equal(p.attn_sharded, L * (1024ull * 64 * 512 + 8ull * 1024 * h));
    assert_int_equal(p.bf16_sharded, L * 64ull * 512 * 1024);
    /* wq_a, wkv and the c4 indexer's wq_b 1024 -> 64 x 128 (FP8); BF16: the c4 compressor (2 x 2 x
     * 512 wide), the indexer's weights_proj and compressor (2 x 2 x 128), the c128 compressor 2 x 512 */
    assert_int_equal(p.attn_replicated, L * (h * 1024 + h * 512) + 21 * 1024ull * 64 * 128);
    assert_int_equal(p.bf16_replicated, 21 * (2 * h * 2 * 512 + h * 64 + 2 * h * 2 * 128) + 20 * (2 * h * 512));
    assert_int_equal(p.fp32_replicated, L * 2 * (2 + 4) * 4 * 4 * h);
    assert_int_equal(p.routed_experts, L * 256 * 3 * h * 2048);
    uint64_t total = engine_model_param_count(&m);
    assert_true(fabs((double)total / 284e9 - 1) < 0.02);
    /* Flash (MXFP4 experts) and Base (FP8 experts) on one TP8 GPU differ by the experts alone */
    engine_model base;
    load_builtin("deepseek-v4-flash-base", &base);
    bool known;
    uint64_t w4 = engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, &known);
    assert_true(known);
    uint64_t w8 = engine_weight_bytes_per_gpu(&base, 8, 1, false, 1, &known);
    assert_true(known);
    /* the experts' difference: 1/8 of them at 8 + 32/128^2 bits against 4.25 bits */
    double experts = (double)p.routed_experts / 8;
    double want = experts * (engine_dtype_bits_x1000(DTYPE_FP8) - engine_dtype_bits_x1000(DTYPE_MXFP4)) / 8000.0;
    assert_true(fabs((double)(w8 - w4) / want - 1) < 1e-6);
    /* the RoPE tables: window-only layers at rope_theta and compressed ones at compress_rope_theta,
     * two tables each (freqs_cis complex64 and the FP32 cos_sin_cache) of 1M positions x 64 x 4 B */
    assert_int_equal(engine_model_buffer_bytes(&m), 2ull * 2 * 1048576 * 64 * 4);
}

/* The H20 TP8 log of V4-Flash-Base: "Load weight begin. avail mem=93.61 GB", then "Memory
 * profiling: available_gpu_memory=57.01 GB": 36.60 GiB taken by the load. The FP8 count alone
 * gave 34.04; SGLang's BF16 wo_a / compressors / weights_proj add 0.46 and its RoPE tables 1.00. */
static void test_v4_flash_base_h20_load(void **state)
{
    (void)state;
    engine_model base;
    load_builtin("deepseek-v4-flash-base", &base);
    bool known;
    double gib = (double)engine_weight_bytes_per_gpu(&base, 8, 1, false, 1, &known) / 1073741824.0;
    assert_true(known);
    assert_true(fabs(gib - 35.50) < 0.01);
    engine_param_parts p;
    assert_true(engine_model_param_parts(&base, &p));
    /* BF16 rather than FP8: one more byte a parameter, wo_a over 8 GPUs, the compressors whole */
    double bf16 = ((double)p.bf16_sharded / 8 + (double)p.bf16_replicated) / 1073741824.0;
    assert_true(fabs(bf16 - 0.45) < 0.01);
}

/* V4-Pro (deepseek-ai's config.json): 61 layers, all compressed (c128 twice, then 30 c4 and 29
 * c128 alternating; the MTP layer's entry 0), the 1.6T the model card publishes, and its three
 * checkpoints' weights apart in the routed experts only. */
static void test_v4_pro_presets(void **state)
{
    (void)state;
    engine_model m;
    load_builtin("deepseek-v4-pro", &m);
    engine_dsv4_shape s = engine_dsv4_shape_of(&m);
    assert_int_equal(s.layers_total, 62);
    assert_int_equal(s.layers_c4, 30);
    assert_int_equal(s.layers_c128, 31);
    /* 0.5.10's sum over the 62 entries: 0.1 x 584 x 62 + 584 / 4 x 30 + 584 / 128 x 31 + 132 / 4 x 30
     * + 0.1 x 8 / 128 x (8192 + 2048) x 30 + 0.1 x 4096 x 31 */
    engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&s, &plain);
    assert_true(fabs(b.total - 23749.84) < 0.005);
    double count = (double)engine_model_param_count(&m);
    assert_true(fabs(count / 1.6e12 - 1) < 0.02); /* 1573.0B: -1.7% */
    /* one rotary base (no window-only layer): one freqs_cis and one cos_sin_cache */
    assert_int_equal(engine_model_buffer_bytes(&m), 2ull * 1048576 * 64 * 4);
    engine_param_parts p;
    assert_true(engine_model_param_parts(&m, &p));
    const char *names[] = {"deepseek-v4-pro-fp8", "deepseek-v4-pro-nvfp4"};
    const engine_dtype experts[] = {DTYPE_FP8, DTYPE_NVFP4};
    uint64_t w = engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, NULL);
    for (size_t i = 0; i < 2; i++) {
        engine_model v;
        load_builtin(names[i], &v);
        assert_int_equal(engine_model_param_count(&v), engine_model_param_count(&m));
        uint64_t wv = engine_weight_bytes_per_gpu(&v, 8, 1, false, 1, NULL);
        double want = (double)p.routed_experts / 8 *
                      (engine_dtype_bits_x1000(experts[i]) - engine_dtype_bits_x1000(DTYPE_MXFP4)) / 8000.0;
        assert_true(fabs(((double)wv - (double)w) / want - 1) < 1e-6);
    }
}

/* The sum by release (engine_release_dsv4_sum): every compress_ratios entry up to v0.5.12; the
 * model's own layers from PR #25750 (v0.5.13: the MTP entry's window out); from PR #28612
 * (v0.5.15) the c128 state a fixed pool of request slots, off the per-token sum. */
static void test_sum_by_release(void **state)
{
    (void)state;
    struct {
        const char *release;
        double flash;
    } cases[] = {
        {"0.5.10", 15955.85},
        {"0.5.12", 15955.85},
        {"0.5.13", 15955.85 - 0.1 * 584}, /* 15897.45 */
        {"0.5.14", 15955.85 - 0.1 * 584},
        {"0.5.15", 15955.85 - 0.1 * 584 - 8192.0}, /* 7705.45 */
        {"main", 15955.85 - 0.1 * 584 - 8192.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        engine_deployment d;
        memset(&d, 0, sizeof d);
        char err[128];
        assert_int_equal(engine_release_parse(cases[i].release, &d.knobs.sglang, err, sizeof err), 0);
        engine_dsv4_launch l = engine_dsv4_launch_of(&d);
        assert_true(fabs(l.swa_ratio - 0.1) < 1e-12);
        engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&v4_flash, &l);
        print_message("%s %.2f\n", cases[i].release, b.total);
        assert_true(fabs(b.total - cases[i].flash) < 0.005);
        /* before PR #28612 no fixed pool */
        if (!l.c128_per_request)
            assert_int_equal(engine_dsv4_c128_state_bytes(&v4_flash, &l, 257), 0);
    }
}

/* Under speculation (both rings doubled): from PR #23862 (v0.5.14) SGLang reserves the draft
 * worker's pool by inflating the sum by (T + 1) / T, T the layers it sums (43 for V4-Flash). */
static void test_speculative_by_release(void **state)
{
    (void)state;
    const struct {
        const char *release;
        double flash;
    } cases[] = {
        {"0.5.12", 25491.85},
        {"0.5.13", 25491.85 - 0.1 * 584},                          /* 25433.45 */
        {"0.5.14", (25491.85 - 0.1 * 584) * 44 / 43},              /* 26024.93 */
        {"0.5.15", (25491.85 - 0.1 * 584 - 2 * 8192.0) * 44 / 43}, /* 9259.91 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        engine_deployment d;
        memset(&d, 0, sizeof d);
        char err[128];
        assert_int_equal(engine_release_parse(cases[i].release, &d.knobs.sglang, err, sizeof err), 0);
        d.knobs.mtp = 2;
        engine_dsv4_launch l = engine_dsv4_launch_of(&d);
        assert_true(l.speculative);
        engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&v4_flash, &l);
        assert_true(fabs(b.total - cases[i].flash) < 0.005);
    }
}

/* V4-Pro on 8 MI355X, SGLang v0.5.15.post1, --swa-full-tokens-ratio 0.15 (a public run's notes:
 * "DSV4 memory calculation: bytes_per_full_token=13735.04, available_bytes=118.93 GB,
 * c128_state_fixed=1.01 GB, full_token=9217792"): 61 layers (the MTP entry out), 30 c4 and 31
 * c128, the c128 state per request; 65 slots (64 running requests + 1) give the logged 1.01. */
static void test_v4_pro_v0515_log(void **state)
{
    (void)state;
    engine_model m;
    load_builtin("deepseek-v4-pro", &m);
    engine_dsv4_shape s = engine_dsv4_shape_of(&m);
    assert_int_equal(s.model_layers, 61);
    assert_int_equal(s.model_c4, 30);
    assert_int_equal(s.model_c128, 31);
    engine_dsv4_launch l = {.swa_ratio = 0.15, .model_layers_only = true, .c128_per_request = true};
    engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&s, &l);
    assert_true(fabs(b.total - 13735.04) < 0.005);
    assert_true(b.c128_state == 0);
    /* ceil128(65 x 128 + 129) = 8576 rows of 2 x 512 FP32 in 31 layers */
    uint64_t fixed = engine_dsv4_c128_state_bytes(&s, &l, 65);
    assert_int_equal(fixed, 8576ull * 4096 * 31);
    assert_true(fabs((double)fixed / 1073741824.0 - 1.01) < 0.005);
    /* the logged full_token lies inside the counts of the rounded available_bytes, less the pool */
    uint64_t lo = (uint64_t)((118.93 - 0.005) * 1073741824.0) - fixed;
    uint64_t hi = (uint64_t)((118.93 + 0.005) * 1073741824.0) - fixed;
    engine_dsv4_pools a = engine_dsv4_pool_sizes(&s, &l, lo, 256), z = engine_dsv4_pool_sizes(&s, &l, hi, 256);
    assert_true(a.full_tokens <= 9217792 && 9217792 <= z.full_tokens);
    assert_int_equal(z.c128_state_slots, 0);
    /* the same run's sum before the cut: 62 entries, the c128 ring per token */
    engine_dsv4_launch old = {.swa_ratio = 0.15};
    assert_true(fabs(engine_dsv4_bytes_per_full_token(&s, &old).total - (13735.04 + 0.15 * 584 + 0.15 * 4096 * 31)) <
                0.005);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_per_full_token_matches_the_h20_log),
        cmocka_unit_test(test_rings),
        cmocka_unit_test(test_full_tokens_bracket_the_logs),
        cmocka_unit_test(test_v4_flash_preset),
        cmocka_unit_test(test_v4_flash_base_h20_load),
        cmocka_unit_test(test_v4_pro_presets),
        cmocka_unit_test(test_sum_by_release),
        cmocka_unit_test(test_speculative_by_release),
        cmocka_unit_test(test_v4_pro_v0515_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
