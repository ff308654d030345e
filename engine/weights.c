/* weights.c — parameters from the config and weight bytes per GPU (see weights.h). The shapes
 * are those of the Hugging Face checkpoints, as SGLang's model files load them
 * (deepseek_v2.py, qwen3.py, qwen3_moe.py, qwen3_next.py, llama.py, llama4.py, glm4_moe.py,
 * gpt_oss.py, kimi_k3.py, gemma4_causal.py; the vision towers of qwen2_5_vl.py, qwen3_vl.py, siglip.py,
 * kimi_k25.py). */
#include "weights.h"

#include <string.h>

#define GATED_MLP_MATRICES 3 /* gate, up, down: every MLP and expert here is a gated (SwiGLU) one */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* Gemma 3 and 4 embed with a plain nn.Embedding (gemma3_causal.py Gemma3TextScaledWordEmbedding, which
 * gemma4_causal.py reuses; their _shard_weight: "Gemma3 uses nn.Embedding (unsharded)"): the whole
 * vocabulary on every TP rank, and the tied LM head is that same matrix. */
static bool whole_embedding(const engine_model *m)
{
    return strncmp(m->architecture, "Gemma3", 6) == 0 || strncmp(m->architecture, "Gemma4", 6) == 0;
}

bool engine_model_param_parts(const engine_model *m, engine_param_parts *out)
{
    memset(out, 0, sizeof *out);
    if (!m->hidden || !m->vocab || !m->layers || m->linear_attn_layers > m->layers)
        return false;
    uint64_t h = m->hidden;
    uint64_t attn_layers = m->layers - m->linear_attn_layers; /* MLA or GQA layers */
    bool moe = m->num_experts > 0;
    uint64_t moe_layers = moe ? m->layers - (m->dense_layers < m->layers ? m->dense_layers : m->layers) : 0;
    uint64_t dense_layers = m->layers - moe_layers;

    out->embed = (uint64_t)m->vocab * h;
    out->lm_head = m->tie_embeddings ? 0 : (uint64_t)m->vocab * h;

    if (m->attn_kind == ATTN_DSV4) {
        /* models/deepseek_v4.py MQALayer: wq_a (hidden -> q_lora) and wkv (hidden -> head_dim)
         * replicated; wq_b (q_lora -> heads x head_dim), wo_a (heads x head_dim / o_groups -> o_groups
         * x o_lora, one block per group) and wo_b (o_groups x o_lora -> hidden) split over attn_tp.
         * Compressor: wkv and wgate (hidden -> coff x head_dim; coff 2 for the overlapping c4
         * windows, 1 for c128); C4Indexer: wq_b (q_lora -> index_heads x index_head_dim),
         * weights_proj (hidden -> index_heads) and its own c4 compressor, all ReplicatedLinear.
         * DeepseekV4DecoderLayer: hc_attn_fn and hc_ffn_fn, (2 + hc) hc x hc hidden FP32 each.
         * Kept in BF16 whatever the checkpoint (sgl-project/sglang deepseek_v4.py @ f8101ac7 and
         * 000328a8, compressor.py @ 00bc152d, indexer.py @ 00509fc3): wo_a (quant_config None,
         * params_dtype bfloat16 unless SGLANG_OPT_FP8_WO_A_GEMM; load_weights dequantises the
         * checkpoint's FP8 wo_a; engine_weight_bytes_per_gpu_wo_a prices it FP8 where the flag is
         * on), the compressors' fused wkv_gate (quant_config None, bfloat16) and the indexer's
         * weights_proj (bfloat16). */
        if (!m->heads || !m->head_dim || !m->q_lora_rank || !m->o_lora_rank || !m->o_groups)
            return false;
        uint64_t c4 = m->dsv4_c4_layers < attn_layers ? m->dsv4_c4_layers : attn_layers;
        uint64_t c128 = m->dsv4_c128_layers < attn_layers - c4 ? m->dsv4_c128_layers : attn_layers - c4;
        uint64_t hd = m->head_dim, ihd = m->index_head_dim, hc = m->hc_mult ? m->hc_mult : 1;
        uint64_t q_b = (uint64_t)m->q_lora_rank * m->heads * hd;
        uint64_t wo_a = (uint64_t)m->heads * hd * m->o_lora_rank;
        uint64_t wo_b = (uint64_t)m->o_groups * m->o_lora_rank * h;
        out->attn_sharded = attn_layers * (q_b + wo_b);
        out->bf16_sharded = attn_layers * wo_a;
        out->attn_replicated = attn_layers * (h * m->q_lora_rank + h * hd) + c4 * m->q_lora_rank * m->index_heads * ihd;
        out->bf16_replicated = c4 * (2 * h * 2 * hd + h * m->index_heads + 2 * h * 2 * ihd) + c128 * 2 * h * hd;
        out->fp32_replicated = m->hc_mult ? m->layers * 2 * (2 + hc) * hc * hc * h : 0;
    } else if (m->attn_kind == ATTN_MLA) {
        if (!m->heads || !m->kv_lora_rank || !m->qk_nope_dim || !m->v_head_dim)
            return false;
        uint64_t qk_head = (uint64_t)m->qk_nope_dim + m->qk_rope_dim;
        uint64_t q_sharded = m->q_lora_rank ? (uint64_t)m->q_lora_rank * m->heads * qk_head : h * m->heads * qk_head;
        uint64_t q_a = m->q_lora_rank ? h * m->q_lora_rank : 0;
        uint64_t kv_a = h * ((uint64_t)m->kv_lora_rank + m->qk_rope_dim);
        uint64_t kv_b = (uint64_t)m->kv_lora_rank * m->heads * ((uint64_t)m->qk_nope_dim + m->v_head_dim);
        uint64_t o = (uint64_t)m->heads * m->v_head_dim * h;
        out->attn_sharded = attn_layers * (q_sharded + kv_b + o);
        out->attn_replicated = attn_layers * (q_a + kv_a);
    } else {
        if (!m->heads || !m->kv_heads || !m->head_dim)
            return false;
        /* q and o; a gated model's q_proj yields the gate too (qwen3_next.py / qwen3_5.py
         * QKVParallelLinear over total_num_heads x (1 + attn_output_gate)) */
        uint64_t q_o = (2 + (m->attn_output_gate ? 1 : 0)) * (uint64_t)m->heads * m->head_dim * h;
        out->attn_sharded = attn_layers * q_o;
        out->attn_kv = attn_layers * 2 * (uint64_t)m->kv_heads * m->head_dim * h;
        if (m->full_kv_heads || m->full_head_dim) {
            /* Gemma 4 (gemma4_causal.py Gemma4Attention): a full-attention layer's q, k, v and o
             * take the global head size, its k and v the global KV heads; SGLang's
             * QKVParallelLinear holds v there too, loaded from k_proj (attention_k_eq_v) */
            uint64_t swa = m->swa_layers < attn_layers ? m->swa_layers : attn_layers, full = attn_layers - swa;
            uint64_t fhd = engine_full_head_dim(m);
            out->attn_sharded = swa * q_o + full * 2 * (uint64_t)m->heads * fhd * h;
            out->attn_kv = swa * 2 * (uint64_t)m->kv_heads * m->head_dim * h;
            out->attn_kv_full = full * 2 * (uint64_t)engine_full_kv_heads(m) * fhd * h;
        }
    }
    out->linear_attn = (uint64_t)m->linear_attn_layers * m->linear_attn_layer_params;

    if (dense_layers) {
        if (!m->intermediate)
            return false;
        out->dense_mlp = dense_layers * GATED_MLP_MATRICES * h * m->intermediate;
    }
    if (moe) {
        if (!m->moe_intermediate)
            return false;
        uint64_t dispatch = m->dispatch_hidden ? m->dispatch_hidden : h;
        uint64_t shared_inter = m->shared_intermediate ? m->shared_intermediate : m->moe_intermediate;
        out->routed_experts = moe_layers * m->num_experts * GATED_MLP_MATRICES * dispatch * m->moe_intermediate;
        out->shared_experts = moe_layers * m->shared_experts * GATED_MLP_MATRICES * h * shared_inter;
        out->router = moe_layers * m->num_experts * h;
        /* K3's latent MoE: down to dispatch_hidden before the dispatch, up after the combine. */
        out->latent = dispatch != h ? moe_layers * 2 * h * dispatch : 0;
    }
    out->vision = m->vision_params;
    return true;
}

uint64_t engine_model_param_count(const engine_model *m)
{
    engine_param_parts p;
    if (!engine_model_param_parts(m, &p))
        return 0;
    return p.embed + p.lm_head + p.attn_sharded + p.attn_replicated + p.attn_kv + p.attn_kv_full + p.linear_attn +
           p.dense_mlp + p.shared_experts + p.routed_experts + p.router + p.latent + p.fp32_replicated +
           p.bf16_sharded + p.bf16_replicated + p.vision;
}

/* DeepSeek-V4's RoPE tables, two per rotary base, built at load on the GPU and kept whole on
 * every rank (sgl-project/sglang deepseek_v4.py MQALayer @ f8101ac7 / 000328a8): the freqs_cis
 * buffer, precompute_freqs_cis(qk_rope_head_dim, max_position_embeddings, ...), complex64
 * [positions, rope / 2], shared by the layers of one base (layers/deepseek_v4_rope.py
 * lru_cache(2)), and the rotary_emb get_rope_wrapper makes, a DeepseekScalingRotaryEmbedding whose
 * FP32 cos_sin_cache is [original_max_position_embeddings x factor, rope] (rotary_embedding.py keeps
 * it FP32 on CUDA; get_rope caches one per base). Both come to positions x rope x 4 bytes: the
 * published configs have 65536 x 16 = max_position_embeddings. The window-only layers take
 * rope_theta, the compressed ones compress_rope_theta: V4-Flash has both (1 GiB), V4-Pro's 61
 * layers are all compressed (0.5 GiB). */
uint64_t engine_model_buffer_bytes(const engine_model *m)
{
    if (m->attn_kind != ATTN_DSV4 || !m->qk_rope_dim)
        return 0;
    uint64_t layers = m->layers - (m->linear_attn_layers < m->layers ? m->linear_attn_layers : m->layers);
    uint64_t compressed = (uint64_t)m->dsv4_c4_layers + m->dsv4_c128_layers;
    if (compressed > layers)
        compressed = layers;
    uint64_t bases = (compressed > 0) + (compressed < layers);
    const uint64_t tables = 2, fp32 = 4;
    return bases * tables * m->context_len * m->qk_rope_dim * fp32;
}

/* PARAMS of dtype T in bytes, scales included. */
static uint64_t bytes_of(uint64_t params, engine_dtype t)
{
    return params * engine_dtype_bits_x1000(t) / 8000;
}

uint64_t engine_weight_bytes_per_gpu(const engine_model *m, uint32_t tp, uint32_t dp, bool dp_attention, uint32_t ep,
                                     bool *known)
{
    return engine_weight_bytes_per_gpu_wo_a(m, tp, dp, dp_attention, ep, false, known);
}

uint64_t engine_weight_bytes_per_gpu_wo_a(const engine_model *m, uint32_t tp, uint32_t dp, bool dp_attention,
                                          uint32_t ep, bool fp8_wo_a, bool *known)
{
    engine_param_parts p;
    if (known)
        *known = false;
    if (!tp || !ep || tp % ep || (dp_attention && (!dp || tp % dp)) || !engine_model_param_parts(m, &p))
        return 0;
    uint64_t attn_tp = dp_attention ? tp / dp : tp;
    uint64_t moe_tp = tp / ep;

    uint64_t b = 0;
    /* Vocab-parallel: each GPU holds ceil(vocab / tp) rows (Gemma's nn.Embedding: all of them). */
    uint64_t rows = whole_embedding(m) ? m->vocab : ceil_div(m->vocab, tp);
    b += bytes_of(rows * m->hidden, m->dtype) * (p.lm_head ? 2 : 1);

    engine_dtype attn_dtype = engine_attn_dtype(m);
    b += bytes_of(p.attn_sharded / attn_tp, attn_dtype);
    b += bytes_of(p.attn_replicated, attn_dtype);
    if (p.attn_kv) {
        /* KV heads split over attn_tp; past kv_heads each GPU keeps a whole head (replicated). */
        uint64_t kv_per_gpu = m->kv_heads >= attn_tp ? ceil_div(m->kv_heads, attn_tp) : 1;
        b += bytes_of(p.attn_kv / m->kv_heads * kv_per_gpu, attn_dtype);
    }
    if (p.attn_kv_full) { /* the same rule over the full-attention layers' own KV heads */
        uint64_t kv = engine_full_kv_heads(m), kv_per_gpu = kv >= attn_tp ? ceil_div(kv, attn_tp) : 1;
        b += bytes_of(p.attn_kv_full / kv * kv_per_gpu, attn_dtype);
    }
    b += bytes_of(p.linear_attn / attn_tp, m->dense_dtype);
    /* The MLPs run on the tokens gathered from every DP rank, split over the whole tp group
     * (deepseek_v2.py: the dense MLP's tp is --moe-dense-tp-size, default tp; the shared experts
     * sit in the MoE layer). */
    b += bytes_of((p.dense_mlp + p.shared_experts + p.latent) / tp, m->dense_dtype);
    b += bytes_of(p.router, m->dtype);
    b += bytes_of(p.fp32_replicated, DTYPE_FP32);
    b += bytes_of(p.bf16_sharded / attn_tp, fp8_wo_a ? DTYPE_FP8 : DTYPE_BF16);
    b += bytes_of(p.bf16_replicated, DTYPE_BF16);
    b += engine_model_buffer_bytes(m);
    if (p.vision) {
        /* The vision tower (qwen2_5_vl.py, qwen3_vl.py, siglip.py, kimi_k25.py): VisionAttention
         * splits over the attention TP group, the MLPs and mergers over what their model file
         * gives, the rest whole on every GPU (--mm-enable-dp-encoder, not modelled, makes it all
         * whole). gemma4_vision.py's layers, attention too, are all over tp. */
        uint64_t split = m->vision_attn_tp_params + m->vision_tp_params;
        uint64_t whole = split < p.vision ? p.vision - split : 0; /* engine_model_check refuses more */
        b += bytes_of(m->vision_attn_tp_params / attn_tp + m->vision_tp_params / tp + whole, m->dtype);
    }
    if (m->num_experts) {
        uint64_t experts_per_gpu = ceil_div(m->num_experts, ep);
        b += bytes_of(p.routed_experts / m->num_experts * experts_per_gpu / moe_tp, m->expert_dtype);
    }
    if (known)
        *known = true;
    return b;
}
