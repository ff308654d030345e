/* weights.h — a model's parameters counted from its config, and the weight bytes one GPU holds
 * under a layout (tp, dp with or without DP attention, ep). Pure: libc only.
 *
 * Counted: the embedding, the LM head (none when tied), attention (MLA: q_a/q_b or q, kv_a,
 * kv_b, o; GQA: q, k, v, o; DeepSeek-V4: wq_a, wkv, wq_b, wo_a, wo_b, the compressors' wkv and
 * wgate, the c4 indexers' wq_b, weights_proj and compressor, the FP32 hyper-connection mixers),
 * linear-attention layers (linear_attn_layer_params each), the dense
 * MLP layers (gate, up, down), routed and shared experts (gate, up, down), the routers and a
 * latent MoE's down/up projections, and a VL model's vision tower as the preset gives it
 * (vision_params). Not counted, each well under 0.5% of any model here: norms, biases,
 * attention sinks, q/k norms, MLA output gates, DSA indexers. The MTP draft layers are not part
 * of the target's count (the draft worker loads them). */
#ifndef CGPLAN_WEIGHTS_H
#define CGPLAN_WEIGHTS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/* The parameters of a model by part. */
typedef struct {
    uint64_t embed, lm_head;  /* vocab x hidden each; lm_head 0 when tied */
    uint64_t attn_sharded;    /* q_b (or q), kv_b, o; GQA q and o: split over attn_tp */
    uint64_t attn_replicated; /* MLA q_a and kv_a (ReplicatedLinear in SGLang's deepseek_v2.py) */
    uint64_t attn_kv;         /* GQA k and v: split over attn_tp by KV head, replicated past kv_heads */
    uint64_t attn_kv_full;    /* the full-attention layers' k and v where they have their own KV heads
                               * and head size (Gemma 4's global ones; 0 otherwise, all in attn_kv) */
    uint64_t linear_attn;     /* linear-attention layers */
    uint64_t dense_mlp;       /* the dense layers' MLP */
    uint64_t shared_experts;
    uint64_t routed_experts;
    uint64_t router; /* the gates: replicated */
    uint64_t latent; /* a latent MoE's projections to and from dispatch_hidden */
    uint64_t fp32_replicated; /* DeepSeek-V4's hyper-connection mixers (FP32 nn.Parameter): whole everywhere */
    /* DeepSeek-V4's projections SGLang builds in BF16 whatever the checkpoint's quantisation:
     * wo_a split over attn_tp, the compressors' wkv_gate and the indexers' weights_proj whole */
    uint64_t bf16_sharded, bf16_replicated;
    uint64_t vision;          /* the vision tower and projector (vision_params), in the model's dtype */
} engine_param_parts;

/* Fills OUT with M's parameters by part. Returns false (OUT zeroed) when M lacks a field the
 * count needs (hidden, vocab, layers; MLA's qk_nope_dim and v_head_dim; GQA's head_dim; the
 * intermediate size of any dense MLP layer; an MoE's moe_intermediate). */
bool engine_model_param_parts(const engine_model *m, engine_param_parts *out);

/* Every parameter of the target model (0: the model lacks a field to count it). */
uint64_t engine_model_param_count(const engine_model *m);

/* Tensors the model builds beside its parameters and keeps on every GPU whatever the layout:
 * DeepSeek-V4's RoPE tables (0 for other models). See weights.c. */
uint64_t engine_model_buffer_bytes(const engine_model *m);

/* The weight bytes one GPU holds: parameters x the bits of their dtype (engine_dtype_bits_x1000,
 * scales included). Attention and linear attention are replicated per DP rank and split over
 * attn_tp (tp / dp with DP attention, else tp); the dense MLP, the shared experts and a latent
 * MoE's projections over tp (SGLang gathers the DP ranks' tokens for the MLPs; its default
 * --moe-dense-tp-size is tp); routed experts over ep (ceil(num_experts / ep) per GPU) and each
 * expert's matrices over tp / ep; the embedding and the LM head are vocab-parallel over tp (Gemma 3
 * and 4: whole on every GPU, a plain nn.Embedding);
 * routers and MLA's q_a / kv_a are whole on every GPU; the vision tower's attention part over
 * attn_tp, its tp part over tp, the rest whole, in the model's dtype (the VL model files build the
 * tower unquantised or leave it out of the checkpoint's quantisation). K3 on DP16 gives the
 * 150 GiB the k3-dp16 preset estimates from the checkpoint's composition. DeepSeek-V4 adds its
 * BF16 projections at 2 bytes and engine_model_buffer_bytes.
 * *KNOWN (may be NULL) is false, and the result 0, when the layout is impossible (tp, ep 0; ep
 * not dividing tp; dp not dividing tp under DP attention) or the model cannot be counted. */
uint64_t engine_weight_bytes_per_gpu(const engine_model *m, uint32_t tp, uint32_t dp, bool dp_attention, uint32_t ep,
                                     bool *known);
/* The same with DeepSeek-V4's wo_a kept in the checkpoint's FP8 (FP8_WO_A: SGLANG_OPT_FP8_WO_A_GEMM
 * on, the release and the GPU decide: engine_dsv4_fp8_wo_a) instead of dequantised to BF16. */
uint64_t engine_weight_bytes_per_gpu_wo_a(const engine_model *m, uint32_t tp, uint32_t dp, bool dp_attention,
                                          uint32_t ep, bool fp8_wo_a, bool *known);

#endif
