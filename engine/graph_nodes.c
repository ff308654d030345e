/* graph_nodes.c — the kernel nodes of one captured decode graph, and the bytes the CUDA driver
 * keeps for each.
 *
 * Each further graph costs what the driver records for its kernel nodes, outside PyTorch
 * (reference: per-graph.md §1 rows 1a/1b; NVIDIA CCCL's executable_graph_cache.cuh estimates
 * 10,240 B per node). So a graph's cost is a count the source fixes (the kernels one decode
 * step launches, read per layer kind below) times a constant of the GPU and its driver
 * (node_bytes), fitted over public captures and labelled empirical.
 *
 * Each row is one kernel (or a few) of one decode step, with the range its code paths take:
 * a split-K GEMM is two kernels, FA3 runs its main kernel and, for long contexts, a combine, a
 * fused RoPE + KV store is one. The expected count is the middle of the range. */
#include "engine.h"

#include <string.h>

typedef struct {
    uint32_t low, high;
} span;

/* A span as a count's range, expected in its middle. */
static engine_range span_range(span s)
{
    return (engine_range){(s.low + s.high + 1) / 2, s.low, s.high};
}

static void add(span *s, span row, uint32_t times)
{
    s->low += row.low * times;
    s->high += row.high * times;
}

/* Architectures whose attention normalises q and k per head before RoPE (apply_qk_norm:
 * models/qwen3.py, qwen3_moe.py, qwen3_next.py Qwen3Attention; gemma3_causal.py; olmo2.py;
 * glm4_moe.py with use_qk_norm; lfm2.py Lfm2Attention q_layernorm / k_layernorm; hunyuan.py
 * query_layernorm / key_layernorm after RoPE, use_qk_norm in the released HunYuan V1 configs). */
static const char *const qk_norm_prefixes[] = {"Qwen3", "Gemma3", "Olmo2", "Glm4Moe", "Qwen3_5", "Lfm2", "HunYuan"};

/* LFM2 and LFM2-MoE (models/lfm2.py, lfm2_moe.py): Lfm2DecoderLayer normalises and adds the
 * residual as separate kernels (no fused add-RMSNorm), and the short-conv layer's in_proj and
 * out_proj are plain nn.Linear, replicated on every TP rank: no all-reduce after it. */
static bool is_lfm2(const engine_model *m)
{
    return strncmp(m->architecture, "Lfm2", 4) == 0;
}

/* Granite 4.0-H (models/granitemoehybrid.py): both layer kinds normalise with a plain RMSNorm and
 * add the residual apart, scaled by residual_multiplier (a multiply and an add after each
 * sublayer); the attention layers are NoPE in the released configs (position_embedding_type
 * "nope": no rotary kernel; "rope" adds one); the MLP sublayer runs GraniteMoeMoE on a clone of
 * its input beside GraniteMoeSharedMLP and adds the two. */
static bool is_granite_hybrid(const engine_model *m)
{
    return strncmp(m->architecture, "GraniteMoeHybrid", 16) == 0;
}
/* Gemma 4 (models/gemma4_causal.py Gemma4DecoderLayer.forward, the CUDA path without per-layer
 * inputs): q, k and v normalised by one fused kernel (gemma_qkv_rmsnorm), a post-attention norm
 * of its own, and the MLP's output normed into the residual and scaled by layer_scalar in one
 * kernel (gemma_rmsnorm_residual_scalar). With enable_moe_block the dense MLP runs beside the
 * experts (held as a shared expert): Gemma4Router normalises its input (a norm without weight,
 * the fused scale) before its GEMM, the experts' input has its own norm (pre_feedforward_
 * layernorm_2), the top-k is a Triton kernel of its own, and one kernel norms both branches into
 * the residual (gemma_dual_rmsnorm_residual_scalar). The dense MLP's down_proj (Gemma3MLP,
 * RowParallelLinear) and the experts (reduce_results=True) each all-reduce: three a layer. */
static bool is_gemma4(const engine_model *m)
{
    return strncmp(m->architecture, "Gemma4", 6) == 0;
}
static const span gemma4_attention_extra = {2, 2}; /* the fused q/k/v norm, the post-attention norm */
static const span gemma4_mlp_extra = {1, 1};       /* the norm + residual + layer_scalar kernel */
static const span gemma4_moe_extra = {4, 4};       /* router norm and scale, pre_feedforward_layernorm_2, dual norm */

static bool has_qk_norm(const engine_model *m)
{
    for (size_t i = 0; i < sizeof qk_norm_prefixes / sizeof qk_norm_prefixes[0]; i++)
        if (strncmp(m->architecture, qk_norm_prefixes[i], strlen(qk_norm_prefixes[i])) == 0)
            return true;
    return false;
}

/* The attention kernel of one decode step, per backend (the layers/attention backends'
 * forward_decode): FA3 runs flash_attn_with_kvcache, plus its combine kernel when it splits the
 * KV and the scheduler-metadata kernel (main); FlashInfer's decode or MLA wrapper run, with a
 * merge of split KV; trtllm's one kernel (two with its split reduce); Triton's two-stage decode
 * (stage 1, stage 2 reduce); FlashMLA's metadata, kernel and combine. */
static span attention_kernel(engine_backend b)
{
    switch (b) {
    case BACKEND_FA3:
    case BACKEND_FA4:
        return (span){1, 3};
    case BACKEND_FLASHINFER:
    case BACKEND_FLASHINFER_MLA:
    case BACKEND_TRTLLM_MHA:
    case BACKEND_TRTLLM_MLA:
    case BACKEND_CUTLASS_MLA:
    case BACKEND_AITER:
        return (span){1, 2};
    case BACKEND_TRITON:
    case BACKEND_FLASHMLA:
        return (span){2, 3};
    case BACKEND_NSA: /* the indexer's top-k and the sparse kernel (nsa_backend.py) */
        return (span){4, 8};
    case BACKEND_DSV4: /* FlashMLA's sparse decode over the window and the compressed rows, its combine */
        return (span){1, 3};
    case BACKEND_TORCH_NATIVE:
    case BACKEND_COUNT:
        break;
    }
    return (span){2, 6}; /* torch_native: SDPA's own kernels */
}

/* A GQA (or sliding-window) attention block of one layer (models/llama.py LlamaAttention,
 * qwen3.py forward_prepare_native): fused add-RMSNorm, qkv GEMM (two with split-K), q/k norm
 * where the model has it, RoPE, KV store (set_kv_buffer, one or two copies), attention,
 * o_proj. FP8 block linear adds a per-token-group quant before each GEMM input (qkv, o). */
static span gqa_block(const engine_model *m, engine_backend b)
{
    span s = {0, 0};
    add(&s, (span){1, 1}, 1); /* fused add-RMSNorm */
    add(&s, (span){1, 2}, 1); /* qkv_proj */
    if (has_qk_norm(m))
        add(&s, (span){2, 2}, 1); /* q_norm, k_norm */
    add(&s, (span){1, 1}, 1);     /* rotary */
    add(&s, (span){1, 2}, 1);     /* KV store */
    add(&s, attention_kernel(b), 1);
    add(&s, (span){1, 2}, 1); /* o_proj */
    if (engine_attn_dtype(m) == DTYPE_FP8)
        add(&s, (span){2, 2}, 1); /* per-token-group quant of the two GEMM inputs */
    return s;
}

/* An absorbed MLA decode block (models/deepseek_v2.py forward_absorb_prepare / core): fused
 * add-RMSNorm, fused_qkv_a_proj, q_a and kv_a norms, q_b_proj, the w_kc bmm (a copy on some
 * paths), RoPE, KV store, attention, the w_vc bmm, o_proj; FP8 quantises the three GEMM inputs. */
static span mla_block(const engine_model *m, engine_backend b)
{
    span s = {0, 0};
    add(&s, (span){1, 1}, 1);                      /* fused add-RMSNorm */
    add(&s, (span){1, 1}, 1);                      /* fused_qkv_a_proj_with_mqa */
    add(&s, (span){m->q_lora_rank ? 2 : 1, 2}, 1); /* q_a_layernorm, kv_a_layernorm */
    add(&s, (span){m->q_lora_rank ? 1 : 0, 1}, 1); /* q_b_proj */
    add(&s, (span){1, 2}, 1);                      /* bmm with w_kc */
    add(&s, (span){1, 1}, 1);                      /* rotary */
    add(&s, (span){1, 1}, 1);                      /* KV store */
    add(&s, attention_kernel(b), 1);
    add(&s, (span){1, 2}, 1); /* bmm with w_vc */
    add(&s, (span){1, 1}, 1); /* o_proj */
    if (m->dense_dtype == DTYPE_FP8)
        add(&s, (span){3, 3}, 1);
    return s;
}

/* A DeepSeek-V4 attention block of one decode step (models/deepseek_v4.py MQALayer.forward,
 * _forward_prepare; layers/attention/dsv4/compressor.py, indexer.py), with each path's range:
 * wq_a and wkv (one fused wqkv_a GEMM, or two), q_norm, wq_b, the fused q norm + RoPE, the
 * fused kv norm + RoPE + cache store, attention, the inverse RoPE on the output, the grouped
 * wo_a einsum (FP8: a per-token quant and the UE8M0 scale before it) and wo_b; FP8 linears add a
 * per-token-group quant before each GEMM input. The c4 and c128 layers run their compressor
 * (the wkv/wgate GEMM, the ring update and compress, the norm + RoPE + store), the c4 layers the
 * lightning indexer too (its compressor, the weights projection, wq_b, the fused RoPE + Hadamard
 * + quant of q, the paged MQA logits and the top-k transform). */
static span dsv4_block(const engine_model *m, engine_backend b, uint32_t ratio)
{
    span s = {0, 0};
    add(&s, (span){1, 2}, 1); /* wqkv_a, or wq_a and wkv */
    add(&s, (span){1, 1}, 1); /* q_norm */
    add(&s, (span){1, 1}, 1); /* wq_b */
    add(&s, (span){1, 1}, 1); /* fused q norm + RoPE */
    add(&s, (span){1, 1}, 1); /* fused kv norm + RoPE + store */
    add(&s, attention_kernel(b), 1);
    add(&s, (span){1, 1}, 1); /* inverse RoPE on the output */
    add(&s, (span){1, 3}, 1); /* wo_a einsum (FP8 path: quant, scale, fp8_einsum) */
    add(&s, (span){1, 1}, 1); /* wo_b */
    if (m->dense_dtype == DTYPE_FP8)
        add(&s, (span){2, 3}, 1); /* the quants before wq_a/wkv, wq_b and wo_b */
    if (ratio)
        add(&s, (span){3, 6}, 1); /* the compressor */
    if (ratio == 4)
        add(&s, (span){6, 10}, 1); /* the indexer */
    return s;
}

/* The hyper-connections around each sublayer (DeepseekV4DecoderLayer.hc_pre / hc_post, each
 * twice a layer): TileLang's fused mhc_pre (with the norm) and mhc_post are one kernel each;
 * the torch path takes the prenorm GEMM, the rsqrt, the Sinkhorn split and the weighted sum
 * (three to five), a separate RMSNorm, and one or two for the post mix. */
static const span dsv4_hyper_connections = {4, 16};

/* A linear-attention block (Kimi KDA, Gated DeltaNet, Mamba-2 mixers: models/qwen3_next.py
 * Qwen3GatedDeltaNet, kimi_linear.py): fused add-RMSNorm, the input projections (two or three
 * GEMMs), the short causal convolution's update, the gates and beta, the recurrent state
 * update, the gated RMSNorm and the output projection. */
static span linear_block(const engine_model *m, uint32_t attn_tp)
{
    /* LFM2's Lfm2ShortConv at decode: operator_norm, in_proj, B * x, the int32 cast of
     * req_pool_indices, causal_conv1d_update, C * conv_out, out_proj, the residual add (chunk
     * is a view); one more where the conv update takes a strided copy. */
    span s = is_lfm2(m) ? (span){8, 9} : (span){8, 16};
    /* Granite 4.0-H's Mamba2 layer at decode (layers/attention/mamba/mamba.py MambaMixer2.forward,
     * its decode branch, under granitemoehybrid.py's layer): input_layernorm, in_proj (split-K:
     * two), causal_conv1d_update, selective_state_update, the gated RMSNorm (Mixer2RMSNormGated:
     * one to three), out_proj (two with split-K), the copy into the layer's output, the residual
     * multiply and add. Over more than one GPU the released configs' one B / C group does not
     * divide among the ranks, so the gated norm takes forward_native (mixer2_rms_norm_gated.py):
     * the gate's cast and SiLU, the product, the square, the sum (then the all-reduce of the
     * sums, counted with the collectives), the mean, epsilon, rsqrt, the scaling, the cast back
     * and the weight: ten to twelve kernels for its one to three. */
    if (is_granite_hybrid(m))
        s = attn_tp > 1 ? (span){18, 23} : (span){9, 14};
    if (m->dense_dtype == DTYPE_FP8)
        add(&s, (span){2, 3}, 1);
    return s;
}

/* A dense gated MLP: fused add-RMSNorm, gate_up, SiluAndMul, down (FP8: two quants). */
static span dense_mlp(const engine_model *m)
{
    span s = {4, 4};
    if (m->dense_dtype == DTYPE_FP8)
        add(&s, (span){2, 2}, 1);
    return s;
}

/* The routed experts of one MoE layer, per runner: the router GEMM with the norm before it,
 * then Triton's fused_experts_impl (topk_softmax, moe_align_block_size and its fill, two fused
 * GEMMs, the activation, moe_sum_reduce; FP8 quantises both GEMM inputs), FlashInfer's fused
 * trtllm MoE (routing, quant, GEMMs, finalize in four to six), the cutlass paths, DeepGEMM's
 * masked path behind DeepEP (topk, dispatch, quant, two masked GEMMs, the activation with its
 * quant, combine), and the MXFP4 kernels of gpt-oss. */
static span moe_block(const engine_model *m, engine_moe_runner runner, bool deepep)
{
    span s = {2, 2}; /* fused add-RMSNorm, router GEMM */
    bool fp8 = m->expert_dtype == DTYPE_FP8;
    switch (runner) {
    case MOE_RUNNER_FLASHINFER_TRTLLM:
        add(&s, (span){4, 6}, 1);
        break;
    case MOE_RUNNER_FLASHINFER_CUTLASS:
    case MOE_RUNNER_CUTLASS:
        add(&s, (span){4, 8}, 1);
        break;
    case MOE_RUNNER_DEEP_GEMM:
        add(&s, deepep ? (span){6, 11} : (span){6, 10}, 1);
        break;
    case MOE_RUNNER_FLASHINFER_MXFP4:
    case MOE_RUNNER_TRITON_KERNEL:
        add(&s, (span){4, 8}, 1);
        break;
    case MOE_RUNNER_AITER:
        add(&s, (span){3, 6}, 1);
        break;
    case MOE_RUNNER_AUTO:
    case MOE_RUNNER_TRITON:
    case MOE_RUNNER_COUNT:
        add(&s, (span){6, 9}, 1);
        if (fp8)
            add(&s, (span){2, 2}, 1);
        break;
    }
    if (m->shared_experts) /* gate_up, activation, down, and the shared gate where there is one */
        add(&s, (span){3, 5}, 1);
    return s;
}

/* Whether SGLang's custom all-reduce serves an all-reduce of BYTES over ATTN_TP GPUs: world 2,
 * 4, 6 or 8 on one node, two GPUs or all on NVLink, inputs below its 8 MiB buffer
 * (custom_all_reduce.py __init__ and should_custom_ar: inp_size <= max_size as logged; _MAX_CAR_SIZE 8192 x
 * 1024, ROCm 16 MiB). Anything else goes to pynccl and is captured as a NCCL kernel
 * (lazy-comm.md §1.5). */
bool engine_custom_ar_covers(const engine_deployment *d, uint32_t attn_tp, uint64_t bytes)
{
    if (attn_tp < 2 || attn_tp > 8 || attn_tp % 2)
        return false;
    /* beyond two GPUs it needs every pair on NVLink (full_nvlink): not over PCIe or a bridge */
    engine_gpu_link link = d->gpu.link;
    if (attn_tp > 2 && (link == GPU_LINK_PCIE || link == GPU_LINK_NVLINK_BRIDGE))
        return false;
    if (!d->gpu.p2p) /* _can_p2p: without peer access custom all-reduce is disabled */
        return false;
    /* The source reads inp_size < max_size, but the Llama-3.3-70B TP8 log registers all 161
     * all-reduces of its bs-512 graph (8372 = 161 x 52), an input of exactly 8 MiB: the buffer
     * serves its own size (tests/fixtures/sglang-logs/28-...). */
    uint64_t max = (engine_gpu_is_rocm(d->gpu.arch) ? 16 : 8) * ENGINE_MIB;
    return bytes <= max;
}

void engine_graph_nodes_count(const engine_deployment *d, const engine_layout *l, uint32_t attn_tp,
                              engine_graph_nodes *out)
{
    const engine_model *m = &d->model;
    uint32_t linear = m->linear_attn_layers < m->layers ? m->linear_attn_layers : 0;
    uint32_t softmax = m->layers - linear;
    uint32_t dense = m->num_experts ? (m->dense_layers < m->layers ? m->dense_layers : m->layers) : m->layers;
    uint32_t moe = m->layers - dense;
    bool deepep = l->deepep;
    span s = {0, 0};
    span attn = m->attn_kind == ATTN_MLA ? mla_block(m, l->backend) : gqa_block(m, l->backend);
    if (m->attn_kind == ATTN_DSV4) {
        /* the layers in config order are taken as the counts say: the c4 and c128 blocks are
         * costlier than the window-only ones, whatever their order; the MTP layers' entries are
         * the draft's */
        uint32_t c4 = m->dsv4_c4_layers, c128 = m->dsv4_c128_layers;
        c4 = c4 < m->layers ? c4 : m->layers;
        c128 = c128 < m->layers - c4 ? c128 : m->layers - c4;
        attn = (span){0, 0};
        add(&attn, dsv4_block(m, l->backend, 4), c4);
        add(&attn, dsv4_block(m, l->backend, 128), c128);
        add(&attn, dsv4_block(m, l->backend, 0), m->layers - c4 - c128);
        add(&attn, dsv4_hyper_connections, m->layers);
        softmax = 1; /* ATTN above is every layer's */
    }
    span mlp = dense_mlp(m);
    span moe_layer = moe_block(m, l->moe_runner, deepep);
    if (is_gemma4(m)) {
        add(&attn, gemma4_attention_extra, 1);
        add(&mlp, gemma4_mlp_extra, 1);
        add(&moe_layer, gemma4_moe_extra, 1);
    }
    if (is_lfm2(m)) {
        add(&attn, (span){1, 1}, 1); /* the residual add after the mixer, unfused */
        /* Lfm2MLP: ffn_norm, w1 and w3 as two GEMMs, silu, the product, w2, the residual add */
        mlp = (span){7, 7};
        if (m->dense_dtype == DTYPE_FP8)
            add(&mlp, (span){2, 3}, 1);
    }
    if (is_granite_hybrid(m)) {
        /* the attention layer: no rotary (NoPE; RoPE configs keep it), the residual multiply and add */
        add(&attn, (span){1, 2}, 1);
        /* every layer's MLP sublayer: the residual multiply and add, and beside routed experts the
         * clone of their input and the sum with the shared MLP */
        add(&s, (span){2, 2}, m->layers);
        if (m->num_experts && m->shared_experts)
            add(&s, (span){2, 2}, moe);
    }
    add(&s, attn, softmax);
    add(&s, linear_block(m, attn_tp), linear);
    add(&s, mlp, dense);
    add(&s, moe_layer, moe);
    /* TP collectives, one kernel each: an all-reduce after attention and after the MLP at
     * attn_tp > 1, and the embedding's (the "+1" of SGLang's "Registering (2L + 1) x graphs cuda
     * graph addresses", per-graph.md 3a); a Gemma 4 MoE layer a third (its dense MLP's). DP
     * attention gathers before and scatters after the MoE of each layer; DeepEP's dispatch and
     * combine are in the MoE rows. */
    uint32_t ar = attn_tp > 1 ? 2 * m->layers + 1 - (is_lfm2(m) ? linear : 0) + (is_gemma4(m) ? moe : 0) : 0;
    /* Granite 4.0-H: o_proj's after attention; none after a Mamba2 out_proj (reduce_results=False
     * in MambaMixer2) but the gated norm's sum of squares; then GraniteMoeMoE's experts
     * (reduce_results=True, granitemoe.py) and GraniteMoeSharedMLP's output_linear (a
     * RowParallelLinear) each reduce their own output: two a layer beside routed experts. */
    if (attn_tp > 1 && is_granite_hybrid(m))
        ar = softmax + linear +
             m->layers * ((m->num_experts ? 1 : 0) + (m->shared_experts || !m->num_experts ? 1 : 0)) + 1;
    uint32_t gathers = l->dp_attention && d->knobs.dp > 1 && !deepep ? 2 * moe : 0;
    add(&s, (span){1, 1}, ar + gathers);
    /* The model's own: embedding, final norm, lm_head, the vocab all-gather at tp > 1, the copy
     * into the shared logits buffer, the input preparation copies (positions, seq_lens). */
    add(&s, (span){5, 9}, 1);
    uint32_t gather = attn_tp > 1 ? 1 : 0;
    add(&s, (span){1, 1}, gather);
    /* Target verify under speculation: the tree mask and the accept-length bookkeeping. */
    if (d->knobs.mtp > 1)
        add(&s, (span){1, 4}, 1);
    out->nodes = span_range(s);
    out->allreduce = ar;
    out->vocab_gather = gather;

    /* The draft runners (speculative/eagle_draft_cuda_graph_runner.py and
     * eagle_draft_extend_cuda_graph_runner.py): per captured size, mtp - 1 draft decode steps and
     * one draft extend, each through the draft layers, the lm_head and a top-k. */
    span draft = {0, 0};
    if (d->knobs.mtp > 1) {
        span layer = attn;
        if (m->attn_kind == ATTN_DSV4) { /* the MTP layer: a window-only block (its compress_ratios entry is 0) */
            layer = dsv4_block(m, l->backend, 0);
            add(&layer, dsv4_hyper_connections, 1);
        }
        add(&layer, m->num_experts ? moe_block(m, l->moe_runner, deepep) : dense_mlp(m), 1);
        uint32_t layers = m->draft_layers ? m->draft_layers : 1;
        span step = {0, 0};
        add(&step, layer, layers);
        add(&step, (span){4, 8}, 1); /* the fusion of hidden and embedding, norm, lm_head, top-k */
        if (attn_tp > 1)
            add(&step, (span){1, 1}, 2 * layers + 1);
        add(&draft, step, d->knobs.mtp);
    }
    out->draft_nodes = span_range(draft);
}

/* ---- node_bytes: an empirical constant of the GPU and its driver ----
 *
 * Fitted with `bench/accuracy --fit` over the public captures of bench/data/deployments.json:
 * each point's k is its measured total less every other term, over its graphs' expected nodes
 * (bench/data/README.md lists them, with the leave-one-out errors). Per point, KiB per node:
 *   Hopper:    Llama-4-Maverick FP8 TP8 H100 15.2, Qwen3-30B-A3B-FP8 TP2 16.8, Grok-2 TP8 H100 17.3,
 *              DeepSeek-V4-Flash-Base TP8 H20 18.7 (two runs, one capture: counted once),
 *              Llama-3.3-70B TP8 H200 20.0
 *   Blackwell: DeepSeek-R1 TP8 B200 5.6, Qwen3-8B TP1 B200 10.0, Qwen3-30B-A3B TP8 B200 19.0
 *   Ada:       Qwen3.5-9B TP2 RTX 4090 15.6, QwQ-32B TP4 L4 (PCIe, NCCL in the graphs) 17.1
 * An arch's row is the median of its points; its range their spread, widened by the node counts'
 * own tolerance (about 17% either way: graph_nodes' low and high over the expected count). An
 * arch with fewer than two public points takes the median of all points with a wider range;
 * ROCm's HIP graphs also take memory per capture in chunks (ROCm/pytorch#2286: 4 MiB a graph
 * with the HSA fragment allocator off), for which no per-node figure is public: the widest. */
static const struct {
    engine_gpu_arch arch;
    engine_range bytes;
    const char *source;
} node_bytes_fits[] = {
    {GPU_ARCH_SM90,
     {17715, 12918, 23962},
     "empirical: median of the 5 public Hopper captures (17.3 KiB; bench/accuracy --fit), driver-dependent"},
    {GPU_ARCH_SM100,
     {10240, 4760, 22765},
     "empirical: median of the 3 public Blackwell captures (10.0 KiB; bench/accuracy --fit), driver-dependent"},
    {GPU_ARCH_SM89,
     {16742, 13259, 20488},
     "empirical: median of the 2 public Ada captures (16.3 KiB; bench/accuracy --fit), driver-dependent"},
    {GPU_ARCH_CDNA3,
     {17306, 4760, 49152},
     "empirical: no public per-node figure for HIP graphs (ROCm/pytorch#2286: 4 MiB chunks per capture); the "
     "fit of all points, with the widest range"},
    {GPU_ARCH_CDNA4,
     {17306, 4760, 49152},
     "empirical: no public per-node figure for HIP graphs (ROCm/pytorch#2286: 4 MiB chunks per capture); the "
     "fit of all points, with the widest range"},
};
/* every point: median 16.9 KiB, spread 5.6 .. 20.0 widened to 4.6 .. 30 */
static const engine_range node_bytes_all = {17306, 4760, 30720};

const char *engine_node_bytes_default(const engine_gpu *g, engine_range *out)
{
    if (g->node_bytes.expected) {
        *out = g->node_bytes;
        return g->node_bytes_source[0] ? g->node_bytes_source : "the GPU preset's node_bytes";
    }
    for (size_t i = 0; i < sizeof node_bytes_fits / sizeof node_bytes_fits[0]; i++)
        if (node_bytes_fits[i].arch == g->arch) {
            *out = node_bytes_fits[i].bytes;
            return node_bytes_fits[i].source;
        }
    *out = node_bytes_all;
    return "empirical: no public point for this arch; the fit of all points, with a wider range";
}
