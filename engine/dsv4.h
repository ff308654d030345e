/* dsv4.h — DeepSeek-V4's KV pools as SGLang sizes them (DSv4MemoryCalculator.get_bytes_per_full_token
 * and calculate_pool_sizes, SGLang's 0.5.10-era mem_cache, the version that logs "DSv4 memory
 * calculation: bytes_per_full_token=..., available_bytes=..., full_token=..."; the same sum later
 * sits in python/sglang/srt/model_executor/pool_configurator.py DSV4PoolConfigurator, which from PR
 * #25750 sums the model's own layers, from PR #23862 scales the sum by (T + 1) / T under
 * speculation and from PR #28612 keeps the c128 state per request slot: engine_dsv4_launch
 * carries the release's rules, engine_release_dsv4_sum). Pure: shapes in,
 * bytes out; engine_dsv4_shape_of / engine_dsv4_launch_of read them from a model and a plan. */
#ifndef CGPLAN_DSV4_H
#define CGPLAN_DSV4_H

#include "engine.h"

#include <stdbool.h>
#include <stdint.h>

/* The config.json numbers the sum reads. layers_total is len(compress_ratios), which in the
 * published checkpoints counts the MTP layer too (44 for V4-Flash: 43 + 1). */
typedef struct {
    uint32_t qk_nope_head_dim; /* head_dim - qk_rope_head_dim: 448 on V4-Flash */
    uint32_t qk_rope_head_dim; /* 64 */
    uint32_t index_head_dim;   /* 128 */
    uint32_t window_size;      /* sliding_window, the state pools' page: 128 */
    uint32_t layers_total;     /* len(compress_ratios) */
    uint32_t layers_c4;        /* entries equal to 4 */
    uint32_t layers_c128;      /* entries equal to 128 */
    /* The same counts over the model's own layers, compress_ratios[0:num_hidden_layers] (the
     * published configs put the MTP layers' 0 after them): what SGLang sums from PR #25750. */
    uint32_t model_layers, model_c4, model_c128;
} engine_dsv4_shape;

/* What SGLang's launch decides around the sum. */
typedef struct {
    double swa_ratio; /* swa_full_tokens_ratio: SGLang sets 0.1 for DSv4 unless the user gives one */
    bool speculative; /* any speculative algorithm: the compress-state rings double */
    bool online_c128; /* SGLANG_OPT_USE_ONLINE_COMPRESS: the c128 ring is one (max, sum, kv) slot */
    bool model_layers_only; /* the release sums the model's own layers, not every entry (PR #25750) */
    bool draft_scaled;      /* speculative: x (layers + 1) / layers for the draft's pool (PR #23862) */
    bool c128_per_request;  /* the c128 state is a fixed pool per request slot, not per token (PR #28612) */
} engine_dsv4_launch;

/* The per-full-token bytes split by pool; total is what SGLang logs as bytes_per_full_token. */
typedef struct {
    double swa_kv;        /* the sliding-window KV of every layer, swa_ratio of the full tokens */
    double c4_kv;         /* compressed KV of the c4 layers, one row per 4 tokens */
    double c128_kv;       /* compressed KV of the c128 layers, one row per 128 tokens */
    double c4_indexer;    /* the indexer keys of the c4 layers, one per 4 tokens */
    double c4_state;      /* the c4 compressor's fp32 ring */
    double c128_state;    /* the c128 compressor's fp32 ring */
    double indexer_state; /* the c4 indexer compressor's fp32 ring */
    double total;
} engine_dsv4_bytes;

/* The compress-state ring size per request-page (get_compress_state_ring_size in
 * python/sglang/srt/mem_cache/deepseekv4_memory_pool.py): c4 8, c128 128; both double when
 * speculative; the online c128 ring is 1. RATIO is 4 or 128 (else 0). */
uint32_t engine_dsv4_ring_size(uint32_t ratio, const engine_dsv4_launch *l);

/* Bytes per full token and its parts. The KV row is a fixed FP8 nope + BF16 rope + 8 B of scales
 * whatever --kv-cache-dtype says, so bf16 and fp8_e4m3 give the same figure. */
engine_dsv4_bytes engine_dsv4_bytes_per_full_token(const engine_dsv4_shape *s, const engine_dsv4_launch *l);

/* The token counts SGLang derives from AVAILABLE bytes (calculate_pool_sizes): full tokens floored
 * to the page, the SWA pool swa_ratio of that floored to the page, c4 / c128 as fractions. */
typedef struct {
    uint64_t full_tokens, swa_tokens, c4_tokens, c128_tokens;
    uint64_t c4_state_slots, c128_state_slots;
} engine_dsv4_pools;
engine_dsv4_pools engine_dsv4_pool_sizes(const engine_dsv4_shape *s, const engine_dsv4_launch *l,
                                         uint64_t available_bytes, uint32_t page_size);

/* The fixed c128 state pool of the releases with c128_per_request
 * (DSV4PoolConfigurator._get_c128_state_fixed_bytes): rows of (kv, score) x head_dim FP32 for
 * REQ_SLOTS slots (max_running_requests per DP worker + 1) of a c128 ring each, plus one ring and
 * a row, rounded up to 128 rows, in every c128 layer; online c128 keeps one (max, sum, kv) row a
 * slot. 0 for the other releases. */
uint64_t engine_dsv4_c128_state_bytes(const engine_dsv4_shape *s, const engine_dsv4_launch *l, uint64_t req_slots);
/* A DSV4 model's shapes (ATTN_DSV4; layers_total counts every compress_ratios entry). */
engine_dsv4_shape engine_dsv4_shape_of(const engine_model *m);
/* What D's launch decides: swa_full_tokens_ratio as given (log, preset, --set), else 0.1
 * (server_args.py sets it for DeepseekV4ForCausalLM when the user gave none); speculative at
 * mtp > 1; the online c128 ring off (SGLANG_OPT_USE_ONLINE_COMPRESS is opt-in); the release's
 * rules (engine_release_dsv4_sum). */
engine_dsv4_launch engine_dsv4_launch_of(const engine_deployment *d);
/* SGLang's swa_full_tokens_ratio for DeepSeek-V4 when none is given. */
#define ENGINE_DSV4_SWA_RATIO_DEFAULT 0.1

#endif
