/* estimate.c — the term table (each row names the function in engine/terms/ that computes it), the
 * helpers that fill a term and its range, the warning table, the SGLang heuristic and the assembly
 * of an estimate (the budget and the wall: budget.c). */
#include "engine.h"
#include "dsv4.h"
#include "estimate_internal.h"
#include "terms/terms.h"
#include "weights.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ROWS ENGINE_ROWS_MASK
#define DISPATCH KNOB_BIT(KNOB_MAX_DISPATCH)

/* The term table (MODEL.md, "Target group" and "Draft group"). depends_on here is the static
 * part; the MoE terms add ROWS while max_dispatch is auto. */
const engine_term_info engine_terms[TERM_COUNT] = {
    {TERM_LOGITS, "static.logits", "logits", "logits", "the FP32 logits buffer of the largest bucket", LAYER_STATIC,
     SOURCE_EXACT, ROWS, "logits_rows x vocab x 4 (FP32)",
     "graph_shared_output.py GraphSharedOutput; article, static buffers", "the logits buffer (rows x vocab)", false,
     false, 0, 0, term_logits},
    {TERM_KV_INDEX, "static.kv_index", "page index", "page index", "the attention backend's page-index buffer",
     LAYER_STATIC, SOURCE_DERIVED, ROWS | KNOB_BIT(KNOB_CONTEXT_LEN),
     "bs_max x context_len x 4 (int32 page indices, full context)",
     "attention backend init_cuda_graph_state (flashinfer_mla_backend.py)", "the page index (max_bs x context_len)",
     false, false, 0, 5 /* sub-KiB per-size metadata left out */, term_kv_index},
    {TERM_INPUTS, "static.inputs", "inputs", "inputs", "input embeddings, ids, positions, out_cache_loc, mrope",
     LAYER_STATIC, SOURCE_DERIVED, ROWS,
     "attn_rows x (2 x hidden + 48): embeds BF16, ids, positions, out_cache_loc, mrope",
     "runner_utils/buffers.py DecodeInputBuffers.create", "the input buffers", false, false, 0,
     10 /* the smaller per-request tensors left out */, term_inputs},
    {TERM_DEEPEP, "moe.deepep", "DeepEP LL buffer", "DeepEP LL", "DeepEP's low-latency RDMA buffer", LAYER_LARGEST,
     SOURCE_EXACT, DISPATCH, "DeepEP LL hint: 2 send + 2 recv + 2 signal, E x T x (2H + 4H/128)",
     "deep_ep get_low_latency_rdma_size_hint; lazily created at the first dispatch (deepep.py)",
     "the MoE floor (DeepEP + masked GEMM)", true, true, 0, 0, term_deepep},
    {TERM_MASKED_GEMM, "moe.masked_gemm", "masked GEMM", "masked GEMM", "DeepGEMM's masked-GEMM intermediates",
     LAYER_LARGEST, SOURCE_DERIVED, DISPATCH, "E x T x (H + 4I + I): FP8 receive + BF16 gate_up + FP8 down input",
     "moe_runner/deep_gemm.py _run_masked_gemm; article, MoE buffers", "the MoE floor (DeepEP + masked GEMM)", true,
     true, 0, 0 /* low: the lifetime-aware peak (the alternative) */, term_masked_gemm},
    {TERM_LAZY, "lazy.other", "lazy (NCCL, ...)", "lazy (NCCL)", "lazy allocations: cuBLAS workspaces, NCCL",
     LAYER_LARGEST, SOURCE_DERIVED, KNOB_BIT(KNOB_A2A) | KNOB_BIT(KNOB_MTP) | KNOB_BIT(KNOB_WORLD),
     "lazy.cublas + lazy.nccl (or a fit's lazy_bytes)",
     "CublasHandlePool.cpp getCurrentCUDABlasHandle workspace; NCCL ncclCommInitRank inside the window (lazy-comm)",
     "the lazy allocations (NCCL, cuBLAS)", false, false, 0, 0, term_lazy},
    {TERM_ACT, "act.attention", "activations", "activations", "the widest layer's temporaries", LAYER_LARGEST,
     SOURCE_COEFFICIENT, ROWS | KNOB_BIT(KNOB_DCP), "act_bytes_per_row x attn_rows x heads_per_gpu / heads",
     "article, activations of the widest layer; fitted from the two K3 runs",
     "the attention activations (rows x heads per GPU)", false, false, 25,
     50 /* widest layer from shapes: the pool's split blocks and the norms' scratch left out */, term_act},
    {TERM_BUCKETS, "buckets", "captured graphs", "graphs",
     "each captured graph's own cost: driver nodes, wrappers, NCCL work", LAYER_BUCKETS, SOURCE_EMPIRICAL,
     ROWS | KNOB_BIT(KNOB_NODE_BYTES) | KNOB_BIT(KNOB_ATTENTION_BACKEND),
     "buckets.nodes + buckets.wrappers + buckets.nccl_work (or a fit's graph_bytes x (n - 1) + out_bytes_per_row x "
     "sum(other bs x mtp))",
     "CUDA driver graph exec records (bench/gpu/node_cost.py); flashinfer wrappers; NCCL enqueue.cc", "the captured graphs",
     false, false, 0, 0, term_buckets},
    {TERM_DRAFT, "draft", "draft graph", "draft graph", "the draft model's graphs (MTP)", LAYER_DRAFT, SOURCE_EMPIRICAL,
     ROWS | KNOB_BIT(KNOB_NODE_BYTES),
     "draft.nodes + draft.wrappers + draft.buffers (or a fit's draft_base_bytes + draft_bytes_per_row x attn_rows); "
     "0 without speculation",
     "speculative/eagle_draft_cuda_graph_runner.py, eagle_draft_extend_cuda_graph_runner.py", "the draft graphs", false,
     false, 0, 0, term_draft},
    {TERM_FUSED_MOE, "moe.fused", "fused-MoE buffers", "fused MoE", "the fused-MoE kernels' intermediate caches",
     LAYER_LARGEST, SOURCE_DERIVED, ROWS | KNOB_BIT(KNOB_EP) | KNOB_BIT(KNOB_A2A),
     "2 x moe_rows x top_k x (max(2I/moe_tp, hidden) + I/moe_tp) (BF16 cache1/3 shared, cache2)",
     "layers/moe/fused_moe_triton/fused_moe.py fused_experts_impl", "the fused-MoE intermediates (rows x top_k)", false,
     true, 10, 10 /* the runner's block padding and its config's chunking */, term_fused_moe},
    {TERM_GRAPH_LOGITS, "buckets.logits", "per-graph logits", "graph logits",
     "each further graph's own FP32 logits output (before PR #8579)", LAYER_BUCKETS, SOURCE_EXACT, ROWS,
     "sum(other bs x mtp) x vocab x 4", "cuda_graph_runner.py output_buffers before PR #8579 (shared logits buffer)",
     "the per-graph logits outputs", false, true, 0, 0, term_graph_logits},
    {TERM_STATIC_OTHER, "static.other", "other static", "other static",
     "the static layer no formula explains, fitted from measured runs", LAYER_STATIC, SOURCE_CALIBRATED, 0,
     "static_bytes: the calibration's intercept of the static layer", "cgplan calibrate over the pool's runs",
     "the unexplained static buffers", false, true, 0, 0, term_static_other},
    {TERM_DEEPEP_NORMAL, "moe.deepep_normal", "DeepEP normal", "DeepEP norm",
     "DeepEP's normal-mode NVL buffer (auto and normal mode)", LAYER_LARGEST, SOURCE_EXACT,
     KNOB_BIT(KNOB_DEEPEP_MODE) | KNOB_BIT(KNOB_EP) | KNOB_BIT(KNOB_A2A),
     "NVL hint (+ the normal RDMA hint beyond the LL one) over the dispatch and combine configs, hidden x 2 B",
     "deep_ep Config::get_nvl_buffer_size_hint / get_rdma_buffer_size_hint; token_dispatcher/deepep.py "
     "DeepEPBuffer.get_deepep_buffer",
     "DeepEP's normal-mode buffer", false, true, 0, 0, term_deepep_normal},
};

const char *const engine_layer_names[LAYER_COUNT] = {"static", "largest", "buckets", "draft"};
const char *const engine_source_names[SOURCE_COUNT] = {"exact",      "derived", "coefficient",
                                                       "calibrated", "unknown", "empirical"};
const char *const engine_bound_names[BOUND_COUNT] = {"high", "expected"};

/* The parts of the mechanism-built terms (engine.h): each with its formula and source. */
const engine_part_info engine_parts[PART_COUNT] = {
    {PART_BUCKETS_NODES, TERM_BUCKETS, "buckets.nodes", "kernel nodes", SOURCE_EMPIRICAL,
     "node_bytes x kernel nodes per graph x captured graphs",
     "CUDA driver cudaGraphExec node records (measured by bench/gpu/node_cost.py; NVIDIA CCCL estimates 10240 B per node); node "
     "counts from the models' forward code (graph_nodes.c)"},
    {PART_BUCKETS_WRAPPERS, TERM_BUCKETS, "buckets.wrappers", "FlashInfer wrappers", SOURCE_EXACT,
     "8 MiB x wrappers per graph (1, 2 with sliding window; x 2 under speculation for flashinfer) x captured graphs",
     "flashinfer decode.py / mla _int_workspace_buffer (8 MiB); flashinfer_backend.py and "
     "flashinfer_mla_backend.py init_forward_metadata_capture_cuda_graph, a wrapper set per captured size"},
    {PART_BUCKETS_NCCL_WORK, TERM_BUCKETS, "buckets.nccl_work", "NCCL in graphs", SOURCE_EMPIRICAL,
     "0.2 MiB x NCCL collectives captured (the vocab all-gather; all-reduces custom all-reduce does not serve)",
     "NCCL enqueue.cc persistent work per captured op; vLLM PR #2192 (about 0.2 MiB per captured NCCL all-reduce)"},
    {PART_BUCKETS_FIT, TERM_BUCKETS, "buckets.fit", "fitted graphs", SOURCE_COEFFICIENT,
     "graph_bytes x (n - 1) + out_bytes_per_row x sum(other bs x mtp)", "a preset's fit or a calibration"},
    {PART_LAZY_CUBLAS, TERM_LAZY, "lazy.cublas", "cuBLAS workspace", SOURCE_DERIVED,
     "capture streams x (cuBLAS workspace + 1 MiB cuBLASLt): 32 MiB on sm90, 8.125 MiB elsewhere (32 MiB in 2026 "
     "torch builds on sm100), ROCm gfx942/950 128 + 76 MiB",
     "torch CublasHandlePool.cpp (workspace per handle and stream, at the first GEMM on the new capture stream)"},
    {PART_LAZY_NCCL, TERM_LAZY, "lazy.nccl", "NCCL communicator", SOURCE_DERIVED,
     "0 unless a communicator is created inside the window: DeepEP's TP-group gather at its first dispatch, "
     "C x (12 MiB ring + 6..12 MiB tree) + pow2(C) x 16 x chunk",
     "deep_ep buffer init all_gather_object over the TP group; NCCL init.cc, transport/p2p.cc, net.cc (lazy-comm 1.3, "
     "5)"},
    {PART_LAZY_FIT, TERM_LAZY, "lazy.fit", "fitted lazy", SOURCE_COEFFICIENT, "lazy_bytes",
     "a preset's fit or a calibration"},
    {PART_DRAFT_NODES, TERM_DRAFT, "draft.nodes", "draft nodes", SOURCE_EMPIRICAL,
     "node_bytes x the draft graphs' kernel nodes (mtp steps through the draft layers) x captured sizes",
     "eagle_draft_cuda_graph_runner.py, eagle_draft_extend_cuda_graph_runner.py; graph_nodes.c"},
    {PART_DRAFT_WRAPPERS, TERM_DRAFT, "draft.wrappers", "draft wrappers", SOURCE_EXACT,
     "8 MiB x mtp steps x captured sizes (flashinfer, flashinfer_mla draft backends)",
     "flashinfer_backend.py / flashinfer_mla_backend.py multi-step draft backend, a backend per step"},
    {PART_DRAFT_BUFFERS, TERM_DRAFT, "draft.buffers", "draft buffers", SOURCE_DERIVED,
     "attn_rows x (vocab x 4 + 4 x hidden x 2) + the draft layer's widest temporaries",
     "eagle_draft_cuda_graph_runner.py (hidden states, top-k outputs), logits_processor.py"},
    {PART_DRAFT_FIT, TERM_DRAFT, "draft.fit", "fitted draft", SOURCE_COEFFICIENT,
     "draft_base_bytes + draft_bytes_per_row x attn_rows", "a preset's fit or a calibration"},
};
const char *const engine_group_names[2] = {"target", "draft"};
const char *const engine_dtype_names[DTYPE_COUNT] = {"bf16", "fp16",  "fp32",      "fp8",         "mxfp4",
                                                     "int4", "nvfp4", "int4_g128", "int4_g128_zp"};

uint32_t engine_dtype_bits_x1000(engine_dtype t)
{
    switch (t) {
    case DTYPE_BF16:
    case DTYPE_FP16:
        return 16000;
    case DTYPE_FP32:
        return 32000;
    case DTYPE_FP8:
        return 8000 + 32000 / (128 * 128); /* an FP32 scale per 128 x 128 block */
    case DTYPE_MXFP4:
        return 4000 + 8000 / 32; /* a UE8M0 scale per 32 */
    case DTYPE_INT4:
        return 4000 + 16000 / 32; /* a BF16 scale per group of 32 */
    case DTYPE_NVFP4:
        return 4000 + 8000 / 16; /* an FP8 scale per 16 */
    /* W4A16 group 128 as resident after SGLang's Marlin repack (sgl-project/sglang 8905cbd42:
     * awq/schemes/awq_marlin.py, gptq/schemes/gptq_marlin.py, compressed_tensors_wNa16.py create
     * int32 qweight packing 8 weights, a params_dtype scale per group of 128 and, with zero points,
     * int32 qzeros packing 8 groups' 4-bit zeros; hardware_backend/gpu/quantization/awq_kernels.py
     * and gptq_kernels.py repack each in place to the same size, replace g_idx with an empty tensor
     * without act-order, and drop qzeros where the quantisation is symmetric). 4.125 and 4.15625
     * bits; the latter's 0.25 thousandth is truncated (0.006%), as FP8's 0.95 is. */
    case DTYPE_INT4_G128:
        return 4000 + 16000 / 128; /* a 16-bit scale per 128 */
    case DTYPE_INT4_G128_ZP:
        return 4000 + 16000 / 128 + 4000 / 128; /* and a 4-bit zero point per 128 */
    case DTYPE_COUNT:
        break;
    }
    return 16000;
}

const char *const engine_severity_names[3] = {"info", "warning", "blocking"};
const char *const engine_coef_names[COEF_COUNT] = {
    "act_bytes_per_row", "lazy_bytes", "graph_bytes", "out_bytes_per_row", "draft_base_bytes", "draft_bytes_per_row",
};
const char *const engine_backend_names[BACKEND_COUNT] = {"flashinfer_mla", "trtllm_mla", "flashmla", "cutlass_mla",
                                                         "flashinfer",     "fa3",        "fa4",      "triton",
                                                         "aiter",          "trtllm_mha", "nsa",      "torch_native",
                                                         "dsv4"};
const char *const engine_moe_runner_names[MOE_RUNNER_COUNT] = {
    "auto",    "triton", "triton_kernel", "deep_gemm", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_mxfp4",
    "cutlass", "aiter"};
const char *const engine_deepep_mode_names[DEEPEP_MODE_COUNT] = {"auto", "low_latency", "normal"};
const char *const engine_kv_dtype_names[KV_DTYPE_COUNT] = {"auto", "bf16", "fp8_e4m3", "fp8_e5m2"};

/* The warning table: each code's severity and the knobs it concerns (in the order a knob's
 * row shows them: the first that applies wins). */
static const struct {
    const char *code;
    engine_severity severity;
    uint32_t knobs;
} warning_kinds[] = {
    /* blocking: SGLang refuses to start, asserts or OOMs, or the plan breaks the fit rule */
    {"dispatch_below_rows", SEVERITY_BLOCKING, DISPATCH},
    {"dispatch_cap", SEVERITY_BLOCKING, DISPATCH},
    {"weights_exceed_gpu", SEVERITY_BLOCKING, KNOB_BIT(KNOB_GPU) | KNOB_BIT(KNOB_WORLD)},
    {"kv_pool_exhausted", SEVERITY_BLOCKING, KNOB_BIT(KNOB_MEM_FRACTION) | KNOB_BIT(KNOB_MIN_KV)}, /* no pool */
    {"backend_unsupported", SEVERITY_BLOCKING, KNOB_BIT(KNOB_ATTENTION_BACKEND)},
    {"headroom_negative", SEVERITY_BLOCKING, KNOB_BIT(KNOB_MEM_FRACTION)},
    {"terms_unknown", SEVERITY_BLOCKING, 0}, /* no upper end: nothing can be planned on it */
    /* a W4A16 group-128 layer split mid-group: SGLang refuses to build it */
    {"quant_group_split", SEVERITY_BLOCKING, KNOB_BIT(KNOB_WORLD) | KNOB_BIT(KNOB_DP) | KNOB_BIT(KNOB_EP)},
    /* warning: it runs, but not on every build, or the estimate is weaker */
    /* The request policy: a pool under min_kv_tokens per running request still starts (SGLang
     * queues or retracts requests), so SGLang's own default launch is never refused for it; the
     * budget makes it blocking where the operator set min_kv_tokens (budget.c). The wall, solve
     * and search still plan to it. */
    {"kv_per_request", SEVERITY_WARNING, KNOB_BIT(KNOB_MEM_FRACTION) | KNOB_BIT(KNOB_MIN_KV)},
    {"qp_depth", SEVERITY_WARNING, DISPATCH},
    {"dcp_with_speculation", SEVERITY_WARNING, KNOB_BIT(KNOB_DCP)}, /* the article's patched build */
    {"no_bucket_survives", SEVERITY_WARNING, KNOB_BIT(KNOB_BUCKETS) | KNOB_BIT(KNOB_MAX_BS)},
    {"headroom_below_margin", SEVERITY_WARNING, KNOB_BIT(KNOB_MEM_FRACTION) | KNOB_BIT(KNOB_MARGIN)},
    /* hybrid models: the state pool admits fewer requests than the plan runs (SGLang caps them) */
    {"state_caps_requests", SEVERITY_WARNING, KNOB_BIT(KNOB_MEM_FRACTION) | KNOB_BIT(KNOB_MAMBA_RATIO)},
    {"k3_coefficients", SEVERITY_WARNING, 0},
    /* info */
    {"no_moe_model", SEVERITY_INFO, 0},
    {"adjusted", SEVERITY_INFO, 0},
    {"heuristic_no_graph_term", SEVERITY_INFO, 0},
    /* the plan sizes the sliding-window pool by the ratio, the server launch starts by the cap */
};
#define N_WARNING_KINDS (sizeof warning_kinds / sizeof warning_kinds[0])

int estimate_warning_kind(const char *code)
{
    for (size_t i = 0; i < N_WARNING_KINDS; i++) /* this file's literals are the table's own strings */
        if (warning_kinds[i].code == code)
            return (int)i;
    for (size_t i = 0; i < N_WARNING_KINDS; i++)
        if (strcmp(warning_kinds[i].code, code) == 0)
            return (int)i;
    return -1;
}

static engine_warning *warn_v(engine_warnings *w, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* A new item of W for CODE, with its table row and no text (NULL when W is full). */
static engine_warning *warn_item(engine_warnings *w, const char *code)
{
    if (!w || w->n >= ENGINE_MAX_WARNINGS)
        return NULL;
    engine_warning *item = &w->items[w->n++];
    size_t len = strlen(code);
    if (len >= sizeof item->code)
        len = sizeof item->code - 1;
    memcpy(item->code, code, len);
    item->code[len] = '\0';
    int kind = estimate_warning_kind(code);
    item->kind = kind;
    item->severity = kind >= 0 ? warning_kinds[kind].severity : SEVERITY_WARNING;
    item->knobs = kind >= 0 ? warning_kinds[kind].knobs : 0;
    item->value = item->limit = 0;
    item->brief[0] = item->message[0] = '\0';
    return item;
}

static engine_warning *warn_v(engine_warnings *w, const char *code, const char *fmt, va_list ap)
{
    engine_warning *item = warn_item(w, code);
    if (item && !w->quiet)
        vsnprintf(item->message, sizeof item->message, fmt, ap);
    return item;
}

/* The probes of the wall add one on most plans past it: no variadic call there. */
void estimate_warn_quiet(engine_warnings *w, const char *code, double value, double limit)
{
    engine_warning *item = warn_item(w, code);
    if (item) {
        item->value = value;
        item->limit = limit;
    }
}

const char *estimate_warning_code(int kind)
{
    return kind >= 0 && (size_t)kind < N_WARNING_KINDS ? warning_kinds[kind].code : "";
}

uint32_t estimate_warning_knobs(int kind)
{
    return kind >= 0 && (size_t)kind < N_WARNING_KINDS ? warning_kinds[kind].knobs : 0;
}

void engine_warn(engine_warnings *w, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_v(w, code, fmt, ap);
    va_end(ap);
}

void engine_warn_at(engine_warnings *w, const char *code, double value, double limit, const char *brief,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    engine_warning *item = warn_v(w, code, fmt, ap);
    va_end(ap);
    if (!item)
        return;
    item->value = value;
    item->limit = limit;
    if (!w->quiet)
        snprintf(item->brief, sizeof item->brief, "%s", brief ? brief : "");
}

engine_severity engine_warning_severity(const char *code)
{
    int kind = estimate_warning_kind(code);
    return kind >= 0 ? warning_kinds[kind].severity : SEVERITY_WARNING;
}

int engine_warnings_blocking(const engine_warnings *w, const engine_warnings *adj)
{
    int n = 0;
    for (int i = 0; w && i < w->n; i++)
        n += w->items[i].severity == SEVERITY_BLOCKING;
    for (int i = 0; adj && i < adj->n; i++)
        n += adj->items[i].severity == SEVERITY_BLOCKING;
    return n;
}

const engine_warning *engine_warning_find(const engine_warnings *w, const char *code)
{
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->items[i].code, code) == 0)
            return &w->items[i];
    return NULL;
}

const engine_warning *engine_warning_for_knob(const engine_warnings *w, engine_knob_id knob)
{
    for (size_t k = 0; k < N_WARNING_KINDS; k++) {
        if (!(warning_kinds[k].knobs & KNOB_BIT(knob)))
            continue;
        const engine_warning *hit = engine_warning_find(w, warning_kinds[k].code);
        if (hit && hit->brief[0])
            return hit;
    }
    return NULL;
}

void engine_depends_text(uint32_t mask, bool brief, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (brief && (mask & ROWS) == ROWS) {
        used += (size_t)snprintf(buf, len, "rows");
        mask &= ~ROWS;
    }
    for (int k = 0; k < KNOB_COUNT && used < len; k++)
        if (mask & KNOB_BIT(k))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                                     brief ? engine_knobs[k].brief : engine_knobs[k].name);
    if (!buf[0])
        snprintf(buf, len, "-");
}

void engine_layout_name(const engine_knobs_state *k, engine_layout_style style, char *buf, size_t len)
{
    switch (style) {
    case LAYOUT_NAME_PLAIN:
        if (k->dp == 1 && k->dcp == 1)
            snprintf(buf, len, "TP%u", k->world);
        else if (k->dcp > 1)
            snprintf(buf, len, "DP%u x DCP%u", k->dp, k->dcp);
        else
            snprintf(buf, len, "DP%u", k->dp);
        return;
    case LAYOUT_NAME_WITH_MTP: {
        char d[16] = "?", c[24] = "", m[24] = "MTP ?";
        if (k->dp)
            snprintf(d, sizeof d, "%u", k->dp);
        if (k->dcp > 1)
            snprintf(c, sizeof c, " x DCP%u", k->dcp);
        if (k->mtp == 1)
            snprintf(m, sizeof m, "no MTP");
        else if (k->mtp > 1)
            snprintf(m, sizeof m, "MTP %u", k->mtp);
        snprintf(buf, len, "DP%s%s %s", d, c, m);
        return;
    }
    case LAYOUT_NAME_COMPACT:
        if (k->dcp > 1)
            snprintf(buf, len, "DP%uxDCP%u MTP%u", k->dp, k->dcp, k->mtp);
        else
            snprintf(buf, len, "DP%u MTP%u", k->dp, k->mtp);
        return;
    }
}

uint64_t engine_moe_floor_bytes(const engine_estimate *e)
{
    uint64_t sum = 0;
    for (int i = 0; i < TERM_COUNT; i++)
        if (engine_terms[i].moe_floor)
            sum += e->terms[i].bytes;
    return sum;
}

const char *engine_wall_phrase(const engine_estimate *e)
{
    engine_term_id t = e->budget.wall_term;
    if (e->budget.wall_limit && strcmp(e->budget.wall_limit, "kv_per_request") == 0)
        return "the request policy (min_kv_tokens per running request)";
    if (engine_terms[t].moe_floor && e->max_dispatch_auto)
        return "the MoE floor (max_dispatch grows with max_bs)";
    return engine_terms[t].limit_phrase;
}

/* MODEL.md "Default K3 coefficients": the exact solutions of the article's two deployments
 * (REFERENCE-FIGURES.md), kept unrounded so the measured layers reproduce. */
void engine_k3_default_coefficients(uint64_t coef[COEF_COUNT])
{
    coef[COEF_ACT_BYTES_PER_ROW] = 4884109; /* 4.66 MiB per attention row */
    /* 0.739 GiB of the article less DeepEP's normal-mode NVL buffer at EP16 (212,523,264 B),
     * now a term of its own: the sum, and so every K3 total, is unchanged. */
    coef[COEF_LAZY_BYTES] = 581477093;
    coef[COEF_GRAPH_BYTES] = 52706322;       /* 50.3 MiB per further graph */
    coef[COEF_OUT_BYTES_PER_ROW] = 26365;    /* 25.7 KiB per row of a further bucket */
    coef[COEF_DRAFT_BASE_BYTES] = 510343173; /* 0.475 GiB */
    coef[COEF_DRAFT_BYTES_PER_ROW] = 631613; /* 0.602 MiB per attention row */
}

void engine_deployment_defaults(engine_deployment *d)
{
    memset(d, 0, sizeof *d);
    d->knobs.world = 8;
    d->knobs.dp = 1;
    d->knobs.dcp = 1;
    d->knobs.mtp = 1;
    d->knobs.max_bs = 24;
    d->knobs.max_dispatch = 128; /* SGLang's default (environ.py EnvInt(128)) */
    d->knobs.max_dispatch_auto = false;
    d->knobs.buckets_auto = true;
    d->knobs.mem_fraction_static = 0.88;
    d->knobs.dp_attention_auto = true;
    d->knobs.ep = 1;
    d->knobs.ep_auto = true;
    d->knobs.page_size = 1;
    d->knobs.sglang = engine_release_newest();
    d->knobs.moe_runner_auto = true;
    d->knobs.max_running_requests_auto = true;
    d->knobs.page_size_auto = true;
    d->backend = BACKEND_FLASHINFER_MLA;
    d->a2a = A2A_DEEPEP;
    d->other_runtime_bytes = ENGINE_GIB;
    d->gpu.p2p = true;
    d->margin_bytes = 5 * ENGINE_GIB; /* the margin and min_kv_tokens knobs' rows say why */
    d->knobs.min_kv_tokens = 4096;
    d->knobs.node_bytes_auto = true;
    d->knobs.bound = BOUND_HIGH;
    d->knobs.swa_full_tokens_ratio = 0.8;   /* server_args.py swa_full_tokens_ratio */
    d->knobs.mamba_full_memory_ratio = 0.9; /* server_args.py mamba_full_memory_ratio */
    d->model.kv_bytes = 2;
    engine_k3_default_coefficients(d->model.coef);
}

/* A plan from a model alone launches as SGLang would with nothing more on its command line:
 * --tp-size 1 (server_args.py ServerArgs.tp_size), no --moe-a2a-backend, the release's attention
 * backend, the dispatch cap following the MoE rows, and --cuda-graph-max-bs from the release's GPU
 * tiers once the GPU, tp and speculation are known (engine_deployment_resolve_release_knobs). */
void engine_deployment_sglang_defaults(engine_deployment *d)
{
    d->a2a = A2A_NONE;
    d->knobs.backend_auto = true;
    d->knobs.max_dispatch_auto = true;
    d->knobs.world = 1;
    d->knob_origin[KNOB_WORLD] = ORIGIN_RELEASE;
    d->knob_origin[KNOB_MAX_BS] = ORIGIN_RELEASE;
}

void engine_deployment_resolve_release_knobs(engine_deployment *d)
{
    /* An explicit --cuda-graph-bs with no --cuda-graph-max-bs: SGLang takes the list's largest
     * size as max_bs (server_args.py ServerArgs._handle_cuda_graph_max_bs / get_batch_sizes_to_capture:
     * cuda_graph_max_bs = max(cuda_graph_bs)). With both given the list is cut at max_bs instead. */
    if (d->knob_origin[KNOB_MAX_BS] == ORIGIN_RELEASE && !d->knobs.buckets_auto && d->knobs.n_buckets > 0) {
        uint32_t largest = 0;
        for (uint32_t i = 0; i < d->knobs.n_buckets; i++)
            largest = d->knobs.buckets[i] > largest ? d->knobs.buckets[i] : largest;
        d->knobs.max_bs = largest; /* still SGLang's choice: re-resolved after each edit */
        return;
    }
    if (d->knob_origin[KNOB_MAX_BS] == ORIGIN_RELEASE)
        d->knobs.max_bs =
            engine_release_default_max_bs(&d->knobs.sglang, d->gpu.nvidia_smi_mib, d->knobs.world, d->knobs.mtp > 1);
}

/* ---- Buckets (SGLang server_args _generate_decode_cuda_graph_batch_sizes and
 * base_cuda_graph_runner.get_batch_sizes_to_capture, 2026 main). ---- */

size_t engine_bucket_grid(uint32_t max_bs, bool speculative, uint32_t *out, size_t cap)
{
    /* Segments {from, to, step}; the last one runs on to max_bs. */
    static const uint32_t plain[][3] = {{1, 2, 1}, {4, 12, 4}, {16, 256, 8}, {272, 496, 16}, {512, 1u << 30, 32}};
    static const uint32_t spec[][3] = {{1, 8, 1}, {10, 32, 2}, {40, 64, 4}, {72, 256, 8}, {272, 1u << 30, 16}};
    const uint32_t(*seg)[3] = speculative ? spec : plain;
    size_t n = 0;
    for (int s = 0; s < 5; s++)
        for (uint32_t v = seg[s][0]; v <= seg[s][1] && v <= max_bs; v += seg[s][2]) {
            if (n < cap)
                out[n++] = v;
        }
    return n;
}

static void sort_unique(uint32_t *v, size_t *n)
{
    for (size_t i = 1; i < *n; i++) { /* insertion sort: lists are short and nearly sorted */
        uint32_t x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    size_t w = 0;
    for (size_t i = 0; i < *n; i++)
        if (w == 0 || v[w - 1] != v[i])
            v[w++] = v[i];
    *n = w;
}

static uint64_t sum_of(const uint32_t *sizes, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += sizes[i];
    return sum;
}

/* engine_buckets_resolve, also giving the sum of the sizes it wrote (SUM may be NULL). */
static size_t buckets_resolve(const engine_deployment *d, uint32_t *out, size_t cap, engine_warnings *w, uint64_t *sum)
{
    const engine_knobs_state *k = &d->knobs;
    uint32_t list[ENGINE_MAX_BUCKETS + 1];
    size_t n = 0;
    uint32_t attn_tp = engine_attn_tp(k);
    bool dp_attention = engine_dp_attention(k);
    bool gathered = attn_tp > 1 && (dp_attention || engine_plan_a2a(d) == A2A_DEEPEP);
    if (k->buckets_auto) {
        /* The release's own list: its grid, its pool clamp, its divisibility filter. In a plan an
         * unset max_running_requests is what launch prints (engine_plan_max_running_requests),
         * so the clamp keeps the plan's list whole. */
        engine_capture_params p = {
            .max_bs = k->max_bs,
            .speculative = k->mtp > 1,
            .width = k->mtp,
            .gpu_mem_mib = d->gpu.nvidia_smi_mib,
            .tp_size = k->world,
            .dp = dp_attention ? k->dp : 1,
            .max_running_requests = engine_plan_max_running_requests(k),
            .require_gathered = gathered,
            .attn_tp = attn_tp,
            .tbo = k->tbo,
            .rocm = engine_gpu_is_rocm(d->gpu.arch),
        };
        engine_capture_notes notes;
        /* written straight into OUT when it holds a whole list (the estimate's does): this runs
         * on every probe of the wall */
        bool direct = cap >= ENGINE_MAX_BUCKETS;
        n = engine_release_capture_list(&k->sglang, &p, direct ? out : list, ENGINE_MAX_BUCKETS, &notes);
        if (n > ENGINE_MAX_BUCKETS)
            n = ENGINE_MAX_BUCKETS;
        if (n > 0) {
            if (!direct)
                memcpy(out, list, (n < cap ? n : cap) * sizeof list[0]);
            n = n < cap ? n : cap;
            if (sum) /* direct: the list was summed as it was written */
                *sum = direct ? notes.written_sum : sum_of(out, n);
            return n;
        }
        n = engine_bucket_grid(k->max_bs, k->mtp > 1, list, ENGINE_MAX_BUCKETS); /* nothing survived */
    } else { /* always from the preset's list, never from a previous result */
        for (uint32_t i = 0; i < k->n_buckets; i++)
            if (k->buckets[i] <= k->max_bs)
                list[n++] = k->buckets[i];
    }
    list[n++] = k->max_bs; /* SGLang appends max_bs if absent (PR #21005) */
    sort_unique(list, &n);

    /* Gathered buffers (DP attention or DeepEP with attn_tp > 1) need (bs x width) % attn_tp == 0;
     * two-batch overlap captures even sizes only. */
    if (k->tbo) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (list[i] % 2 == 0)
                list[kept++] = list[i];
        n = kept ? kept : n;
    }
    if (gathered) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if ((uint64_t)list[i] * k->mtp % attn_tp == 0)
                list[kept++] = list[i];
        n = kept;
        if (n == 0) {
            uint32_t v = k->max_bs + 1;
            while ((uint64_t)v * k->mtp % attn_tp != 0)
                v++;
            list[n++] = v;
            char brief[48];
            BRIEF(w, brief, "no bucket divides: bs %u", v);
            WARN_AT(w, "no_bucket_survives", v, k->max_bs, brief,
                    "no batch size <= max_bs %u has bs x %u divisible by attn_tp %u: capturing %u instead", k->max_bs,
                    k->mtp, attn_tp, v);
        }
    }
    if (n > cap)
        n = cap;
    memcpy(out, list, n * sizeof list[0]);
    if (sum)
        *sum = sum_of(out, n);
    return n;
}

size_t engine_buckets_resolve(const engine_deployment *d, uint32_t *out, size_t cap, engine_warnings *w)
{
    return buckets_resolve(d, out, cap, w, NULL);
}

/* ---- Heuristic (server_args.py reserve_for_graph_mb / reserve_for_deepep_a2a_mb, decode). ---- */

uint64_t engine_heuristic_graph_bytes(uint32_t max_bs, uint32_t dp)
{
    /* Counted in half MiB so the 1.5 x max_bs x dp term stays exact. */
    uint64_t half_mib = 2 * 2 * (uint64_t)max_bs; /* 2 x max_bs MiB */
    if (dp > 1) {
        half_mib += 2 * 3 * (uint64_t)max_bs * dp; /* DP attention: 3 x max_bs x dp MiB */
        if (max_bs > 300)
            half_mib += 3 * (uint64_t)max_bs * dp; /* and 1.5 x max_bs x dp MiB more */
    }
    return half_mib * ENGINE_MIB / 2;
}

uint64_t engine_heuristic_deepep_bytes(engine_a2a a2a)
{
    return a2a == A2A_DEEPEP ? 2048 * ENGINE_MIB : 0;
}

/* Bytes per KV element: the model's (auto) or --kv-cache-dtype's (model_runner_kv_cache_mixin). */
static uint64_t kv_element_bytes(const engine_deployment *d)
{
    switch (d->knobs.kv_dtype) {
    case KV_DTYPE_BF16:
        return 2;
    case KV_DTYPE_FP8_E4M3:
    case KV_DTYPE_FP8_E5M2:
        return 1;
    case KV_DTYPE_AUTO:
    case KV_DTYPE_COUNT:
        break;
    }
    return d->model.kv_bytes;
}

/* The attention backend and page size: auto is the release's default for the model, GPU, tp,
 * speculation and --page-size (engine_release_default_backend); "flashinfer" on an MLA model is
 * FlashInfer's MLA backend. The page size: --page-size unless the backend moves it, else the
 * backend's, else 1. */
static engine_backend_choice plan_backend(const engine_deployment *d)
{
    const engine_knobs_state *k = &d->knobs;
    uint32_t requested_page = k->page_size_auto ? 0 : k->page_size;
    if (k->backend_auto)
        return engine_release_default_backend(&k->sglang, &d->model, &d->gpu, k->world, k->mtp > 1,
                                              !k->disable_radix_cache, requested_page);
    engine_backend_choice c = {.backend = d->backend};
    if (c.backend == BACKEND_FLASHINFER && d->model.attn_kind == ATTN_MLA)
        c.backend = BACKEND_FLASHINFER_MLA;
    c.page_size = engine_backend_page_size(c.backend, requested_page);
    return c;
}

/* A hybrid model's sliding-window layers get a pool of their own, r tokens for every
 * full-attention one (model_runner set_num_token_hybrid / _resolve_hybrid_swa_tokens, later
 * HybridSWAPoolConfigurator: full = total / (r x n_swa + n_full), swa = r x full). So a
 * full-attention token costs F x n_full + r x S x n_swa (S = F where every layer has the same
 * heads and head_dim; Gemma 4's full layers have their own, so F and S differ). r is
 * --swa-full-tokens-ratio for every model SGLang pools by default, Llama 4 included (PR #16399;
 * its chunk / context_len split came only with --hybrid-kvcache-ratio, not modelled). */
double engine_swa_ratio(const engine_deployment *d)
{
    if (d->model.attn_kind == ATTN_DSV4)
        return engine_dsv4_launch_of(d).swa_ratio;
    return d->knobs.swa_full_tokens_ratio < 1 ? d->knobs.swa_full_tokens_ratio : 1;
}

/* The architectures configs/model_config.py is_hybrid_swa_model lists at main (sglang 001adf564),
 * each pooled from its first SGLang support; Llama 4 and gpt-oss joined the list later and
 * Gemma 3 is on no list: their windows follow the release (engine_release_swa_pool). A config
 * may also opt in with is_hybrid_swa, which no catalog model sets. */
static const char *const hybrid_swa_architectures[] = {
    "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMNextN",
    "MiMoV2ForCausalLM",
    "MiMoV2FlashForCausalLM",
    "MiMoV2MTP",
    "Step3p5ForCausalLM",
    "Step3p5MTP",
    "Step3p7ForConditionalGeneration",
    "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration",
    "LagunaForCausalLM",
};

static engine_swa_family swa_family_of(const char *architecture)
{
    if (strncmp(architecture, "Llama4", 6) == 0)
        return ENGINE_SWA_FAMILY_LLAMA4;
    if (strcmp(architecture, "GptOssForCausalLM") == 0)
        return ENGINE_SWA_FAMILY_GPTOSS;
    if (strcmp(architecture, "Gemma3ForCausalLM") == 0 || strcmp(architecture, "Gemma3ForConditionalGeneration") == 0)
        return ENGINE_SWA_FAMILY_GEMMA3;
    for (size_t i = 0; i < sizeof hybrid_swa_architectures / sizeof hybrid_swa_architectures[0]; i++)
        if (strcmp(architecture, hybrid_swa_architectures[i]) == 0)
            return ENGINE_SWA_FAMILY_LISTED;
    return ENGINE_SWA_FAMILY_OTHER;
}

const char *engine_swa_one_pool_why(const engine_deployment *d)
{
    if (d->knobs.disable_hybrid_swa_memory)
        return "disable_hybrid_swa_memory on";
    engine_swa_family family = swa_family_of(d->model.architecture);
    switch (engine_release_swa_pool(&d->knobs.sglang, family)) {
    case ENGINE_SWA_POOLED:
        return NULL;
    case ENGINE_SWA_POOLED_UNLESS_TRTLLM_MHA:
        if (plan_backend(d).backend != BACKEND_TRTLLM_MHA)
            return NULL;
        return "this release turns gpt-oss's sliding-window pool off under trtllm_mha (PR #17429; back on from "
               "PR #19079, v0.5.10)";
    case ENGINE_SWA_ONE_POOL:
        break;
    }
    switch (family) {
    case ENGINE_SWA_FAMILY_LLAMA4:
        return "before PR #16399 (v0.5.8) Llama 4's chunked layers get a pool of their own only with "
               "--hybrid-kvcache-ratio";
    case ENGINE_SWA_FAMILY_GPTOSS:
        return "this release sets disable_hybrid_swa_memory for gpt-oss (PR #8839; pooled from PR #17261, v0.5.8)";
    case ENGINE_SWA_FAMILY_GEMMA3:
        return "SGLang pools Gemma 3's windowed layers only from PR #7367 to PR #8895 (v0.4.9.post3 .. "
               "v0.4.10.post2)";
    default:
        return "this release pools sliding-window layers apart only for is_hybrid_swa_model's architectures "
               "(any windowed model from PR #7367 to PR #15877, v0.4.9.post3 .. v0.5.6)";
    }
}

bool engine_swa_pool(const engine_deployment *d)
{
    return engine_swa_one_pool_why(d) == NULL;
}

/* A GQA layer's K and V per token per GPU: max(1, kv_heads / attn_tp) x (head_dim + v_head_dim)
 * x bytes (get_num_kv_heads, HybridSWAPoolConfigurator's _full_per_token and _swa_per_token).
 * The full-attention layers take their own heads and head size where the model has them (Gemma
 * 4's global ones); V keeps its own buffer even where the checkpoint ties V to K
 * (attention_k_eq_v: v_head_dim = head_dim, the pool stores both). SWA gets a sliding layer's. */
static uint64_t gqa_layer_bytes(const engine_deployment *d, uint64_t *swa)
{
    const engine_model *m = &d->model;
    uint64_t kv_bytes = kv_element_bytes(d);
    uint32_t attn_tp = engine_attn_tp(&d->knobs);
    uint32_t full_kv = engine_full_kv_heads(m);
    uint64_t heads = attn_tp && m->kv_heads / attn_tp > 1 ? m->kv_heads / attn_tp : 1;
    uint64_t full_heads = attn_tp && full_kv / attn_tp > 1 ? full_kv / attn_tp : 1;
    *swa = heads * 2 * m->head_dim * kv_bytes;
    return full_heads * 2 * engine_full_head_dim(m) * kv_bytes;
}

/* SGLang's chunked_prefill_size default by GPU memory (server_args.py _handle_gpu_memory_settings,
 * v0.5.3rc2 .. main; reference/sglang.md 2.1): 2048 below 35,840 MiB, 4096 below 61,440, 8192
 * below 163,840, else 16384; 4096 where the GPU's memory is not known (its gpu_mem None branch). */
uint32_t engine_default_chunked_prefill(double gpu_mib)
{
    if (gpu_mib <= 0)
        return 4096;
    return gpu_mib < 35840 ? 2048 : gpu_mib < 61440 ? 4096 : gpu_mib < 163840 ? 8192 : 16384;
}

/* SGLANG_SWA_EVICTION_INTERVAL's default: decode batches between out-of-window SWA evictions
 * (environ.py EnvInt(128), PR #28755; read at main 8905cbd42). An environment value on the
 * launch line is not modelled. */
#define SWA_EVICTION_INTERVAL 128

/* The window SGLang's SWA bookkeeping uses (model_executor/model_runner_components/
 * load_model_utils.py resolve_sliding_window_size at main 8905cbd42): the model's own
 * get_attention_sliding_window_size where it has one, config.sliding_window - 1 for gpt-oss
 * (models/gpt_oss.py) and Gemma 4 (models/gemma4_causal.py, gemma4_mm.py); Llama 4 has none and
 * its config no sliding_window, so attention_chunk_size (8192); else the config's sliding_window. */
static uint32_t swa_window(const engine_model *m)
{
    const char *a = m->architecture;
    if ((strcmp(a, "GptOssForCausalLM") == 0 || strncmp(a, "Gemma4", 6) == 0) && m->sliding_window > 0)
        return m->sliding_window - 1;
    if (strncmp(a, "Llama4", 6) == 0 && m->attention_chunk)
        return m->attention_chunk;
    return m->sliding_window ? m->sliding_window : m->attention_chunk;
}

static uint64_t ceil_align_u64(uint64_t x, uint64_t to)
{
    return to ? (x + to - 1) / to * to : x;
}

/* SWAChunkCapPoolConfigurator (model_executor/pool_configurator.py at main 8905cbd42; PR #28755,
 * 6d4ca9bc5, in the v0.5.14 cut). create_memory_pool_configurator takes it for a hybrid SWA model
 * (not DeepSeek-V4, whose configurator comes first) when is_applicable: --max-running-requests
 * given, the radix cache off, chunked_prefill_size set (server_args always sets one: the GPU's
 * default when not given), a sliding window and at least one full-attention layer. Its cap:
 *   per_request = window + SGLANG_SWA_EVICTION_INTERVAL x draft tokens + page + decode_alloc,
 *   decode_alloc = page without speculation; under speculation with the overlap scheduler (spec
 *     v2, the default: speculative_hook.py, SGLANG_ENABLE_SPEC_V2 removed) 2 x
 *     get_alloc_len_per_decode = 2 x max(steps x topk, draft tokens), the draft tokens at topk 1;
 *   requests = max_running_requests // attn_dp_size (v0.5.14: mr.dp_size, dp under DP attention
 *     else 1: the same);
 *   a decode server: per_request x requests + (window + page) x disaggregation_decode_extra_slots
 *     (pd_disaggregation_hook.py: 2 x (max_running_requests // dp_size) at 32 or fewer per worker,
 *     else 0, unless --disaggregation-decode-extra-slots; that flag is not modelled);
 *   otherwise: per_request x requests + 2 chunks in flight (1 with --disable-overlap-schedule, not
 *     modelled: the plan runs the overlap scheduler) x chunked_prefill_size + page, the chunk the
 *     GPU's default divided by dp under DP attention (server_args.py);
 *   swa_tokens = ceil_align(cap, page); the full pool (available - swa_tokens x S x n_swa) // (F x
 *     n_full) tokens, floored to the page (the budget's).
 * Whether the plan is a decode server is known only from a launch line or a log that says so
 * (decode_server); elsewhere (a plan that `launch --disaggregation-mode decode` may start) the
 * larger of the two caps is planned: the smaller full pool, the safe side. */
engine_swa_cap engine_swa_cap_of(const engine_deployment *d)
{
    const engine_model *m = &d->model;
    const engine_knobs_state *k = &d->knobs;
    engine_swa_cap c = {.applies = false};
    if (!engine_release_swa_chunk_cap(&k->sglang))
        c.why_not = "this release sizes the sliding-window pool at --swa-full-tokens-ratio only (the cap is PR "
                    "#28755, v0.5.14)";
    else if (!m->swa_layers || m->attn_kind != ATTN_GQA)
        c.why_not = m->attn_kind == ATTN_DSV4 ? "DeepSeek-V4's pools are its own configurator's"
                                              : "the model has no sliding-window layers";
    else if (!m->full_attn_layers)
        c.why_not = "the model has no full-attention layer";
    else if (!swa_window(m))
        c.why_not = "the model gives no sliding window size";
    else if (!engine_swa_pool(d))
        c.why_not = "the sliding-window layers share the full pool";
    else if (!k->disable_radix_cache)
        c.why_not = "the radix cache is on (the cap needs --disable-radix-cache or a PD decode server)";
    if (c.why_not)
        return c;
    c.applies = true;
    uint64_t swa_layer;
    uint64_t full_layer = gqa_layer_bytes(d, &swa_layer);
    uint64_t draft = k->mtp > 1 ? m->draft_layers : 0;
    c.swa_token_bytes = swa_layer * m->swa_layers;
    c.full_token_bytes = full_layer * (m->full_attn_layers + draft);
    c.window = swa_window(m);
    c.eviction_interval = SWA_EVICTION_INTERVAL;
    c.page = plan_backend(d).page_size;
    if (!c.page)
        c.page = 1;
    c.draft_tokens = k->mtp > 1 ? k->mtp : 1;
    /* topk 1 (the chain cgplan plans): max(steps x 1, draft tokens) = the draft tokens */
    c.decode_alloc = k->mtp > 1 ? 2 * k->mtp : c.page;
    c.per_request = (uint64_t)c.window + (uint64_t)c.eviction_interval * c.draft_tokens + c.page + c.decode_alloc;
    bool dpa = engine_dp_attention(k);
    uint32_t dp = k->dp ? k->dp : 1;
    /* SGLang needs an explicit --max-running-requests; launch always prints one (the knob, or
     * max_bs per DP rank when it is auto), so the plan is the server launch starts */
    uint32_t max_running = engine_plan_max_running_requests(k);
    c.requests = max_running / (dpa ? dp : 1);
    c.chunk = engine_default_chunked_prefill(d->gpu.nvidia_smi_mib) / (dpa ? dp : 1);
    uint32_t per_worker = max_running / dp;
    c.extra_slots = per_worker <= 32 ? 2 * per_worker : 0;
    uint64_t held = c.per_request * c.requests;
    c.cap_plain = held + 2 * (uint64_t)c.chunk + c.page;
    c.cap_decode = held + ((uint64_t)c.window + c.page) * c.extra_slots;
    c.decode_side = d->decode_server || c.cap_decode > c.cap_plain;
    c.cap_tokens = ceil_align_u64(c.decode_side ? c.cap_decode : c.cap_plain, c.page);
    c.fixed_bytes = c.cap_tokens * c.swa_token_bytes;
    return c;
}

uint64_t engine_kv_cell_split(const engine_deployment *d, uint64_t *full, uint64_t *swa)
{
    const engine_model *m = &d->model;
    uint64_t kv_bytes = kv_element_bytes(d);
    uint64_t draft = d->knobs.mtp > 1 ? m->draft_layers : 0;
    uint64_t f = 0, w = 0;
    if (m->attn_kind == ATTN_DSV4) {
        /* DSv4MemoryCalculator: its own row layout whatever --kv-cache-dtype says, every layer's
         * window at swa_full_tokens_ratio (SGLang sets 0.1 for DSv4 unless it is given) plus the
         * compressed rows, indexer keys and compressor rings per full token. */
        engine_dsv4_shape shape = engine_dsv4_shape_of(m);
        engine_dsv4_launch launch = engine_dsv4_launch_of(d);
        engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(&shape, &launch);
        /* SGLang divides by the fractional bytes_per_full_token; the whole bytes rounded up count a
         * token under 1 B heavier (15955.85 -> 15956 for V4-Flash) */
        w = (uint64_t)floor(b.swa_kv);
        f = (uint64_t)ceil(b.total) - w;
    } else if (m->attn_kind == ATTN_MLA) {
        /* model_runner_kv_cache_mixin: (kv_lora_rank + rope) x layers x dtype, not divided by TP;
         * speculative targets scale by 1 + draft_layers / layers (SGLang PR #23862). */
        f = (uint64_t)(m->kv_lora_rank + m->qk_rope_dim) * (m->full_attn_layers + draft) * kv_bytes;
    } else {
        uint64_t layer;
        uint64_t full_layer = gqa_layer_bytes(d, &layer);
        f = full_layer * ((m->full_attn_layers ? m->full_attn_layers : m->layers) + draft);
        if (m->swa_layers && !engine_swa_pool(d)) /* one pool: a sliding layer holds every token */
            f += layer * m->swa_layers;
        /* the capped pool (engine_swa_cap_of) is fixed: a full-attention token carries no share of it */
        else if (m->swa_layers && !engine_swa_cap_of(d).applies)
            w = (uint64_t)llround((double)layer * (double)m->swa_layers * engine_swa_ratio(d));
    }
    if (full)
        *full = f;
    if (swa)
        *swa = w;
    return f + w;
}

uint64_t engine_kv_cell_bytes(const engine_deployment *d)
{
    return engine_kv_cell_split(d, NULL, NULL);
}

/* ---- Terms. ---- */

/* A term's range from its source class, unless its code set one (the parts' sums): exact ends
 * equal the value, derived ones its row's tolerance, a preset's fitted coefficient 5% either
 * way (the K3 fit reproduces its two runs within 0.2%; 5% covers the article's rounding of the
 * layers), a calibration 10% (MODEL.md: the fit's residuals on the pools seen so far stay
 * under it). */
void term_range(engine_term *t)
{
    if (!t->known) {
        t->low_bytes = t->high_bytes = 0;
        return;
    }
    if (t->high_bytes)
        return;
    const engine_term_info *info = &engine_terms[t->id];
    uint64_t lo = 0, hi = 0;
    switch (t->source) {
    case SOURCE_DERIVED:
        lo = info->low_pct, hi = info->high_pct;
        break;
    case SOURCE_COEFFICIENT:
        lo = hi = 5;
        break;
    case SOURCE_CALIBRATED:
        lo = hi = 10;
        break;
    case SOURCE_EXACT:
    case SOURCE_EMPIRICAL: /* set by its code */
    case SOURCE_UNKNOWN:
    case SOURCE_COUNT:
        break;
    }
    t->low_bytes = t->high_bytes = t->bytes;
    if (!lo && !hi) /* exact: most terms of every probe of the wall */
        return;
    t->low_bytes = t->bytes / 100 * (100 - lo) + t->bytes % 100 * (100 - lo) / 100;
    t->high_bytes = t->bytes / 100 * (100 + hi) + t->bytes % 100 * (100 + hi) / 100;
}

/* A part of a mechanism-built term, with its range. */
void set_part(engine_estimate *e, engine_part_id id, uint64_t bytes, uint64_t low, uint64_t high)
{
    engine_part *p = &e->parts[id];
    p->present = true;
    p->source = engine_parts[id].source;
    p->bytes = bytes;
    p->low_bytes = low;
    p->high_bytes = high;
}

/* Each mechanism-built term's parts, a contiguous run of engine_parts. */
static const struct {
    engine_term_id term;
    engine_part_id first, last;
} term_parts[] = {
    {TERM_BUCKETS, PART_BUCKETS_NODES, PART_BUCKETS_FIT},
    {TERM_LAZY, PART_LAZY_CUBLAS, PART_LAZY_FIT},
    {TERM_DRAFT, PART_DRAFT_NODES, PART_DRAFT_FIT},
};

/* The term T as the sum of its present parts: its bytes, range and source (the weakest part's:
 * empirical over derived over exact). */
void term_from_parts(engine_estimate *e, engine_term *t)
{
    static const int rank[SOURCE_COUNT] = {[SOURCE_EXACT] = 0,
                                           [SOURCE_DERIVED] = 1,
                                           [SOURCE_EMPIRICAL] = 2,
                                           [SOURCE_COEFFICIENT] = 3,
                                           [SOURCE_CALIBRATED] = 4};
    t->bytes = t->low_bytes = t->high_bytes = 0;
    t->source = SOURCE_EXACT;
    for (size_t r = 0; r < sizeof term_parts / sizeof term_parts[0]; r++) {
        if (term_parts[r].term != t->id)
            continue;
        for (int i = term_parts[r].first; i <= (int)term_parts[r].last; i++) {
            const engine_part *p = &e->parts[i];
            if (!p->present)
                continue;
            t->bytes += p->bytes;
            t->low_bytes += p->low_bytes;
            t->high_bytes += p->high_bytes;
            if (rank[p->source] > rank[t->source])
                t->source = p->source;
        }
    }
}

/* A coefficient from the preset, or from the calibration when it has one. */
uint64_t coef(const engine_deployment *d, const engine_calibration *cal, engine_coef_id c, engine_term *t)
{
    if (!has_fit(d, cal, c)) { /* never another model's number */
        t->known = false;
        t->source = SOURCE_UNKNOWN;
        return 0;
    }
    if (cal && cal->has[c]) {
        t->source = SOURCE_CALIBRATED;
        t->n_runs = cal->n_runs < ENGINE_MAX_CAL_RUNS ? cal->n_runs : ENGINE_MAX_CAL_RUNS;
        return cal->value[c];
    }
    return d->model.coef[c];
}

/* What the release's default-fraction heuristic sets aside for the graphs (reference/sglang.md
 * 2.2-2.3). main's reserve_for_graph_mb (2 max_bs, + 3 max_bs dp under DP attention, + 1.5 max_bs
 * dp past 300) with reserve_for_deepep_a2a_mb (2048, PR #29615); v0.5.3rc2 .. v0.5.15 the same
 * decode terms inline, plus the speculative add-on; before that no reserve names the graphs
 * (a per-GPU-tier or a per-tp fraction covers everything), so the heuristic is 0 there and
 * the estimate says so in the warning. */
static void heuristic_for_release(const engine_deployment *d, engine_estimate *e)
{
    const engine_knobs_state *k = &d->knobs;
    uint32_t dp = e->layout.dp_attention ? k->dp : 1;
    e->heuristic_graph_bytes = e->heuristic_deepep_bytes = 0;
    switch (engine_release_heuristic_variant(&k->sglang)) {
    case ENGINE_HEURISTIC_RESERVE_METHODS:
        e->heuristic_graph_bytes = engine_heuristic_graph_bytes(k->max_bs, dp);
        e->heuristic_deepep_bytes = engine_heuristic_deepep_bytes(engine_plan_a2a(d));
        break;
    case ENGINE_HEURISTIC_INLINE_FORMULA:
        e->heuristic_graph_bytes =
            engine_heuristic_graph_bytes(k->max_bs, dp) +
            (k->mtp > 1 ? (uint64_t)engine_release_eagle_reserve_mib(&k->sglang) * ENGINE_MIB : 0);
        break;
    case ENGINE_HEURISTIC_GPU_TIER_RESERVE:
    case ENGINE_HEURISTIC_TP_FRACTION:
    case ENGINE_HEURISTIC_TP_FRACTION_H200:
        engine_warn(&e->warnings, "heuristic_no_graph_term",
                    "SGLang before v0.5.3rc2 reserves no memory for graphs by name (its default fraction covers "
                    "everything as one share): the heuristic shows 0");
        break;
    }
    e->heuristic_total_bytes = e->heuristic_graph_bytes + e->heuristic_deepep_bytes;
}

uint32_t engine_plan_max_running_requests(const engine_knobs_state *k)
{
    if (!k->max_running_requests_auto)
        return k->max_running_requests;
    /* Under DP attention one scheduler's pool serves every DP rank (divided by dp_size); dp
     * replicas are each a whole server that takes the flag as it is (data_parallel_controller.py
     * passes the same server_args to every replica). */
    return (engine_dp_attention(k) ? k->dp : 1) * k->max_bs;
}

engine_a2a engine_plan_a2a(const engine_deployment *d)
{
    return d->a2a == A2A_DEEPEP && d->model.num_experts > 0 ? A2A_DEEPEP : A2A_NONE;
}

uint32_t estimate_ep_under(const engine_knobs_state *k, bool deepep)
{
    /* --ep-size defaults to 1; under DeepEP SGLang sets ep_size = tp_size whatever --ep-size says
     * (server_args.py _handle_a2a_moe: "The expert parallel size is adjusted to be the same as
     * the tensor parallel size"). */
    uint32_t ep = deepep ? k->world : k->ep_auto ? 1 : k->ep;
    return !ep || !k->world || k->world % ep ? 1 : ep;
}

uint32_t estimate_resolved_ep(const engine_deployment *d)
{
    return estimate_ep_under(&d->knobs, engine_plan_a2a(d) == A2A_DEEPEP);
}

/* The auto knobs as the release resolves them (MODEL.md's knob table; SGLang server_args.py). */
static void resolve_layout(const engine_deployment *d, engine_layout *l)
{
    const engine_knobs_state *k = &d->knobs;
    const engine_model *m = &d->model;
    l->dp_attention = engine_dp_attention(k);
    l->moe = m->num_experts > 0;
    l->ep = estimate_resolved_ep(d);
    l->moe_tp = k->world / l->ep;
    engine_backend_choice c = plan_backend(d);
    l->backend = c.backend;
    l->page_size = c.page_size;
    l->moe_runner = k->moe_runner_auto ? (engine_plan_a2a(d) == A2A_DEEPEP ? MOE_RUNNER_DEEP_GEMM : MOE_RUNNER_TRITON)
                                       : k->moe_runner;
    l->deepep = engine_plan_a2a(d) == A2A_DEEPEP;
    l->deepep_ll = l->deepep && k->deepep_mode != DEEPEP_NORMAL;
    l->deepep_normal = l->deepep && k->deepep_mode != DEEPEP_LOW_LATENCY;
    l->kv_bytes = k->kv_dtype == KV_DTYPE_AUTO ? m->kv_bytes : k->kv_dtype == KV_DTYPE_BF16 ? 2 : 1;
}

/* A fit for coefficient C: the calibration's, or the preset's (a deployment's or a model's). */
bool has_fit(const engine_deployment *d, const engine_calibration *cal, engine_coef_id c)
{
    return (cal && cal->has[c]) || !d->model.coef_missing[c];
}

/* Term T from a fit's BYTES: its one part PART, with the range of the fit's class (a
 * calibration's, or a preset's coefficient). */
void term_from_fit(engine_estimate *e, engine_term *t, engine_part_id part, uint64_t bytes, const char *preset_origin)
{
    if (!t->known)
        return;
    if (t->source != SOURCE_CALIBRATED)
        t->source = SOURCE_COEFFICIENT;
    t->bytes = bytes;
    t->low_bytes = t->high_bytes = 0;
    term_range(t);
    set_part(e, part, bytes, t->low_bytes, t->high_bytes);
    e->parts[part].source = t->source;
    t->formula = engine_parts[part].formula;
    t->origin = t->source == SOURCE_CALIBRATED ? "cgplan calibrate over the pool's runs" : preset_origin;
}

/* COUNT priced at the range R: bytes at its expected value and at both ends. */
void priced(uint64_t count, const engine_range *r, uint64_t *bytes, uint64_t *low, uint64_t *high)
{
    *bytes = count * r->expected;
    *low = count * r->low;
    *high = count * r->high;
}

/* The bytes per kernel node, first found of: the knob, a calibration over the GPU's runs (any
 * model's), the GPU preset's measurement, its arch's empirical fit. A knob keeps the relative
 * range of what it overrides: it moves the constant, not what is known about its spread across
 * drivers. */
static void resolve_node_bytes(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    engine_range base;
    e->node_bytes_source = engine_node_bytes_default(&d->gpu, &base);
    e->node_bytes_runs = 0;
    if (cal && cal->has_node_bytes && cal->node_bytes.expected) {
        base = cal->node_bytes;
        e->node_bytes_source = cal->node_bytes_source[0] ? cal->node_bytes_source : "calibrated (cgplan calibrate)";
        e->node_bytes_runs = cal->node_runs > 0 ? cal->node_runs : 1;
    }
    e->node_bytes_range = base;
    if (!d->knobs.node_bytes_auto && d->node_bytes && base.expected) {
        double v = (double)d->node_bytes, x = (double)base.expected;
        e->node_bytes_range.expected = d->node_bytes;
        e->node_bytes_range.low = (uint64_t)(v * (double)base.low / x);
        e->node_bytes_range.high = (uint64_t)(v * (double)base.high / x);
        e->node_bytes_source = "the node_bytes knob (the range keeps the default's relative width)";
        e->node_bytes_runs = 0;
    }
    e->node_bytes = e->node_bytes_range.expected;
}

/* A nodes part priced at a calibrated node_bytes is the operator's fit, not the public one. */
void mark_nodes_part(engine_estimate *e, engine_part_id part)
{
    if (e->node_bytes_runs > 0)
        e->parts[part].source = SOURCE_CALIBRATED;
}

void engine_calibration_set_node_bytes(engine_calibration *cal, engine_range r, int n_runs, const char *gpu,
                                       const char *release)
{
    cal->has_node_bytes = true;
    cal->node_bytes = r;
    cal->node_runs = n_runs;
    bool one = release && *release;
    snprintf(cal->node_bytes_source, sizeof cal->node_bytes_source,
             "calibrated from %d run%s on %s (%s%s; cgplan calibrate over every model's runs on this GPU)", n_runs,
             n_runs == 1 ? "" : "s", gpu && *gpu ? gpu : "this GPU", one ? "sglang " : "every release",
             one ? release : "");
}

static bool group128(engine_dtype t)
{
    return t == DTYPE_INT4_G128 || t == DTYPE_INT4_G128_ZP;
}

/* W4A16 group 128 (int4_g128, int4_g128_zp): a row-parallel layer's quantised weight is built only
 * where each rank's input rows are whole groups of 128 (sgl-project/sglang 8905cbd42
 * marlin_utils.py verify_marlin_supports_shape "is not divisible by group_size"; the AWQ and GPTQ
 * kernels awq_marlin and gptq_marlin fall back to raise "The input size is not aligned with the
 * quantized weight shape"): o_proj's heads x head_dim over attn_tp, down_proj's intermediate
 * over tp, an expert's w2 over moe_tp, the shared experts' down over tp. Qwen padded its 72B
 * AWQ / GPTQ checkpoints' 29568 to 29696 for it (QwenLM/Qwen3-VL issue #230). */
static void warn_group_split(const engine_deployment *d, const engine_layout *lay, uint32_t attn_tp, engine_warnings *w)
{
    const engine_model *m = &d->model;
    const uint32_t tp = d->knobs.world;
    uint32_t shared = m->shared_intermediate ? m->shared_intermediate : m->moe_intermediate;
    struct {
        const char *layer;
        uint64_t rows;
        uint32_t split;
        bool quantised;
    } rows[] = {
        {"o_proj", (uint64_t)m->heads * (m->attn_kind == ATTN_MLA ? m->v_head_dim : m->head_dim), attn_tp,
         group128(engine_attn_dtype(m)) && m->attn_kind != ATTN_DSV4},
        {"down_proj", m->num_experts && m->dense_layers == 0 ? 0 : m->intermediate, tp, group128(m->dense_dtype)},
        {"experts' w2", m->num_experts ? m->moe_intermediate : 0, lay->moe_tp, group128(m->expert_dtype)},
        {"shared experts' down_proj", m->num_experts && m->shared_experts ? shared : 0, tp, group128(m->dense_dtype)},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].quantised || !rows[i].rows || !rows[i].split || rows[i].rows % rows[i].split)
            continue;
        uint64_t per_rank = rows[i].rows / rows[i].split;
        if (per_rank % 128 == 0)
            continue;
        WARN_AT(w, "quant_group_split", per_rank, 128, "W4A16 rows split mid-group",
                "%s: %s's %llu input rows over %u GPUs are %llu a GPU, not whole groups of 128: SGLang refuses "
                "to load the 4-bit group-128 weights (use a tp that leaves whole groups, or a checkpoint padded "
                "for it)",
                m->name, rows[i].layer, (unsigned long long)rows[i].rows, rows[i].split, (unsigned long long)per_rank);
    }
}

void estimate_terms_run(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e, bool quiet)
{
    estimate_terms_run_nodes(d, cal, e, quiet, NULL);
}

void estimate_terms_run_nodes(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e, bool quiet,
                              const engine_graph_nodes *nodes)
{
    const engine_knobs_state *k = &d->knobs;
    const engine_model *m = &d->model;
    e->warnings.n = 0; /* the items are written as they are added: no need to clear 6 KB */
    e->warnings.quiet = quiet;
    if (cal && cal->n_runs > 0)
        memcpy(e->calibration_runs, cal->runs,
               (size_t)(cal->n_runs < ENGINE_MAX_CAL_RUNS ? cal->n_runs : ENGINE_MAX_CAL_RUNS) *
                   sizeof e->calibration_runs[0]);

    resolve_layout(d, &e->layout);
    const engine_layout *lay = &e->layout;
    memset(e->parts, 0, sizeof e->parts);
    e->graph_nodes_total = 0;
    e->nccl_graph_ops = 0;
    resolve_node_bytes(d, cal, e);
    uint64_t bucket_sum;
    e->n_buckets = (uint32_t)buckets_resolve(d, e->buckets, ENGINE_MAX_BUCKETS, &e->warnings, &bucket_sum);
    e->bs_max = e->buckets[e->n_buckets - 1];
    e->attn_tp = engine_attn_tp(k);
    /* Each GPU of a DP group runs attention for all the group's requests; with DCP the queries
     * are gathered, so a GPU computes heads x dcp / attn_tp heads (forward_mla.py). */
    e->attn_rows = e->bs_max * k->mtp;
    /* With DeepEP the tokens are scattered over the attention-TP group (reduce-scatter); without
     * an a2a backend every GPU's MoE runs the tokens gathered over its DP groups. */
    if (lay->deepep)
        e->moe_rows = engine_div_u32(e->attn_rows + e->attn_tp - 1, e->attn_tp);
    else
        e->moe_rows = e->attn_rows * (lay->dp_attention ? k->dp : 1);
    e->logits_rows = e->bs_max * k->mtp; /* max_decode_logits_rows() */
    e->heads_per_gpu = m->heads * k->dcp / e->attn_tp;
    e->max_dispatch_auto = k->max_dispatch_auto;
    e->max_dispatch = k->max_dispatch_auto ? e->moe_rows : k->max_dispatch;
    if (nodes)
        e->graph_nodes = *nodes;
    else
        engine_graph_nodes_count(d, lay, e->attn_tp, &e->graph_nodes);

    uint64_t other_bs = bucket_sum - e->bs_max; /* all but the largest */
    e->other_bucket_rows = other_bs * k->mtp;

    /* Every term from its row's function, in the table's order (a term reads only those before
     * it: DeepEP's normal-mode buffer the LL one). */
    for (int i = 0; i < TERM_COUNT; i++)
        engine_terms[i].compute(d, cal, e);

    /* Summed in four scalars: a store indexed by the layer would chain each addition on the
     * previous one through memory, a fifth of a probe's time; the switch follows the same path on
     * every call. */
    uint64_t static_b = 0, largest_b = 0, buckets_b = 0, draft_b = 0, low = 0, high = 0;
    bool complete = true;
    for (int i = 0; i < TERM_COUNT; i++) {
        term_range(&e->terms[i]);
        low += e->terms[i].low_bytes;
        high += e->terms[i].high_bytes;
        uint64_t bytes = e->terms[i].bytes;
        switch (engine_terms[i].layer) {
        case LAYER_STATIC:
            static_b += bytes;
            break;
        case LAYER_LARGEST:
            largest_b += bytes;
            break;
        case LAYER_BUCKETS:
            buckets_b += bytes;
            break;
        case LAYER_DRAFT:
        case LAYER_COUNT:
            draft_b += bytes;
            break;
        }
        complete &= e->terms[i].known;
    }
    e->layer_bytes[LAYER_STATIC] = static_b;
    e->layer_bytes[LAYER_LARGEST] = largest_b;
    e->layer_bytes[LAYER_BUCKETS] = buckets_b;
    e->layer_bytes[LAYER_DRAFT] = draft_b;
    e->total_complete = complete;
    e->target_total_bytes =
        e->layer_bytes[LAYER_STATIC] + e->layer_bytes[LAYER_LARGEST] + e->layer_bytes[LAYER_BUCKETS];
    e->draft_total_bytes = e->layer_bytes[LAYER_DRAFT];
    e->total_bytes = e->target_total_bytes + e->draft_total_bytes;
    e->total_low_bytes = low;
    e->total_high_bytes = complete ? high : 0;
    e->plan_total_bytes = k->bound == BOUND_EXPECTED ? e->total_bytes : high;

    heuristic_for_release(d, e);

    /* MODEL.md's warnings on the combination (never a refusal to estimate). */
    char brief[48];
    bool deepep = lay->deepep;
    if (d->a2a == A2A_DEEPEP && !lay->moe) /* launch prints no --moe-a2a-backend for it either */
        engine_warn(&e->warnings, "adjusted",
                    "a2a=deepep: %s has no routed experts for DeepEP to dispatch; planned (and launched) without it",
                    m->name);
    if (deepep && !k->ep_auto && k->ep != k->world)
        engine_warn(&e->warnings, "adjusted",
                    "ep=%u: under DeepEP SGLang sets --ep-size to --tp-size (%u) (server_args.py _handle_a2a_moe)",
                    k->ep, k->world);
    if (deepep && !k->max_dispatch_auto && k->max_dispatch < e->moe_rows) {
        BRIEF(&e->warnings, brief, "%u < %u rows", e->max_dispatch, e->moe_rows);
        WARN_AT(&e->warnings, "dispatch_below_rows", k->max_dispatch, e->moe_rows, brief,
                "max_dispatch %u < %u MoE rows per GPU: DeepEP asserts at run time; %u fits", k->max_dispatch,
                e->moe_rows, e->moe_rows);
    }
    if (deepep && e->max_dispatch > 1024) {
        BRIEF(&e->warnings, brief, "rows %u > cap 1024", e->moe_rows);
        WARN_AT(&e->warnings, "dispatch_cap", e->max_dispatch, 1024, brief,
                "max_dispatch %u > 1024: SGLang caps SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK at 1024",
                e->max_dispatch);
    }
    if (deepep && e->max_dispatch > 511) {
        uint32_t depth = engine_nvshmem_qp_depth(e->max_dispatch);
        BRIEF(&e->warnings, brief, "needs NVSHMEM_QP_DEPTH %u", depth);
        WARN_AT(&e->warnings, "qp_depth", depth, 0, brief,
                "max_dispatch %u needs NVSHMEM_QP_DEPTH >= %u (DeepEP >= 2026-03)", e->max_dispatch, depth);
    }
    if (k->dcp > 1 && k->mtp > 1)
        WARN_AT(&e->warnings, "dcp_with_speculation", k->dcp, 1, "DCP + MTP: patched SGLang",
                "dcp %u with mtp %u: SGLang main (2026-07) rejects DCP with speculative decoding on CUDA", k->dcp,
                k->mtp);
    /* A backend written for the other attention kind: SGLang refuses to start with it
     * (server_args.py _handle_attention_backend_compatibility). */
    static const struct {
        engine_backend backend;
        bool mla;
    } backend_kind[] = {{BACKEND_TRTLLM_MLA, true}, {BACKEND_FLASHMLA, true},    {BACKEND_CUTLASS_MLA, true},
                        {BACKEND_NSA, true},        {BACKEND_TRTLLM_MHA, false}, {BACKEND_FA4, false}};
    static const char *const kind_text[] = {[ATTN_MLA] = "MLA", [ATTN_GQA] = "GQA", [ATTN_DSV4] = "DeepSeek-V4"};
    for (size_t i = 0; i < sizeof backend_kind / sizeof backend_kind[0]; i++)
        if (lay->backend == backend_kind[i].backend && m->attn_kind != ATTN_DSV4 &&
            backend_kind[i].mla != (m->attn_kind == ATTN_MLA))
            WARN_AT(&e->warnings, "backend_unsupported", 0, 0, "not for this attention",
                    "attention_backend %s is for %s models; %s uses %s attention: SGLang refuses it",
                    engine_backend_names[lay->backend], backend_kind[i].mla ? "MLA" : "MHA/GQA", m->name,
                    kind_text[m->attn_kind]);
    warn_group_split(d, lay, e->attn_tp, &e->warnings);
    /* DeepSeek-V4's compressed KV pools are read by its own backend only, and it by nothing else */
    if ((lay->backend == BACKEND_DSV4) != (m->attn_kind == ATTN_DSV4))
        WARN_AT(&e->warnings, "backend_unsupported", 0, 0, "not for this attention",
                "attention_backend %s %s; %s uses %s attention: SGLang cannot run it",
                engine_backend_names[lay->backend],
                lay->backend == BACKEND_DSV4 ? "is DeepSeek-V4's own" : "cannot read DeepSeek-V4's compressed KV",
                m->name, kind_text[m->attn_kind]);
    if (!e->total_complete) {
        char which[ENGINE_TEXT_MAX] = "";
        for (int i = 0; i < TERM_COUNT && !quiet; i++)
            if (!e->terms[i].known)
                snprintf(which + strlen(which), sizeof which - strlen(which), "%s%s", which[0] ? ", " : "",
                         engine_terms[i].key);
        engine_warn(&e->warnings, "terms_unknown",
                    "cannot plan: %s has no formula, preset value or calibration for %s, so the total has no "
                    "upper end (cgplan calibrate with a measured run fills them)",
                    m->name, which);
    }
}

/* The terms-only estimates leave no budget: it is cleared here, not in estimate_terms, which the
 * wall's probes run ~9 times per plan (the probes read the terms only). */
void engine_estimate_terms(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    memset(&e->budget, 0, sizeof e->budget);
    estimate_terms_run(d, cal, e, false);
}

void engine_estimate_terms_quiet(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    memset(&e->budget, 0, sizeof e->budget);
    estimate_terms_run(d, cal, e, true);
}

const char *engine_warning_message_for(const engine_deployment *d, const engine_calibration *cal, const char *code,
                                       char *buf, size_t len)
{
    engine_estimate e;
    estimate_terms_run(d, cal, &e, false);
    const engine_warning *w = engine_warning_find(&e.warnings, code);
    snprintf(buf, len, "%s", w ? w->message : code);
    return buf;
}
