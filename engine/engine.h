/* engine.h — the pure estimator of CUDA-graph memory in SGLang decode deployments.
 *
 * No curses, YAML, SQLite or global mutable state here: every function takes what it needs and
 * writes into caller-owned structs of fixed size, so the TUI can recompute on every drag event.
 * All sizes are per GPU in bytes (uint64_t); GiB = 2^30. The formulas and their sources are in
 * ../shared/design/MODEL.md and are cited again at each term in estimate.c. */
#ifndef CGPLAN_ENGINE_H
#define CGPLAN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "release.h"

#define ENGINE_GIB ((uint64_t)1 << 30)
#define ENGINE_MIB ((uint64_t)1 << 20)
#define ENGINE_NAME_MAX 64
#define ENGINE_TEXT_MAX 256
#define ENGINE_MAX_HF_NAMES 8
#define ENGINE_MAX_BUCKETS 1024
#define ENGINE_MAX_WARNINGS 16
#define ENGINE_MAX_CAL_RUNS 32

/* A quantity with its range: what an estimate expects and the ends it may lie between. Every
 * term carries one (exact: all three equal); an answer plans on one end (the bound knob). */
typedef struct {
    uint64_t expected, low, high;
} engine_range;

/* ---- Knobs: one table (knobs.c) that owns each knob. Sliders, --set, the YAML loader, --help,
 * the help overlay, the store's rows, `runs show` and `launch` iterate it; nothing outside the
 * engine switches on a knob id. ---- */

typedef enum {
    KNOB_MAX_BS,
    KNOB_DP,
    KNOB_DCP,
    KNOB_MAX_DISPATCH,
    KNOB_MTP,
    KNOB_WORLD,
    KNOB_BUCKETS,
    KNOB_CONTEXT_LEN,
    KNOB_MEM_FRACTION,
    KNOB_GPU,
    /* Knobs of the layout and the release, set with --set and YAML, not sliders. */
    KNOB_DP_ATTENTION,
    KNOB_EP,
    KNOB_A2A,
    KNOB_DEEPEP_MODE,
    KNOB_MOE_RUNNER,
    KNOB_ATTENTION_BACKEND,
    KNOB_MAX_RUNNING_REQUESTS,
    KNOB_TBO,
    KNOB_KV_DTYPE,
    KNOB_PAGE_SIZE,
    KNOB_SGLANG,
    /* What a plan must leave: the fit rule of the wall, solve and search. */
    KNOB_MARGIN, /* bytes left free at the recommended fraction */
    KNOB_MIN_KV, /* KV tokens each running request must find in the pool */
    /* The per-graph driver cost and which end of the ranges an answer plans on. */
    KNOB_NODE_BYTES,    /* bytes per kernel node of an instantiated graph (auto: the GPU's) */
    KNOB_BOUND,         /* high (the default) or expected */
    KNOB_SWA_RATIO,     /* --swa-full-tokens-ratio: the sliding-window pool's tokens per full-attention token */
    KNOB_MAMBA_RATIO,   /* --mamba-full-memory-ratio: the state pool's memory per byte of KV pool */
    KNOB_DISABLE_RADIX, /* --disable-radix-cache: a hybrid model's state pool holds one state per request */
    KNOB_DISABLE_HYBRID_SWA, /* --disable-hybrid-swa-memory: sliding-window layers share the full pool */
    KNOB_COUNT
} engine_knob_id;

#define KNOB_PRIMARY_COUNT 5 /* max_bs, dp, dcp, max_dispatch, mtp: the five sliders */
#define KNOB_PANEL_COUNT 10  /* the knobs in the planner's panel: the first ten of the table */

typedef enum {
    KNOB_TYPE_INT,          /* an integer within [min, max] (and the knob's own rule) */
    KNOB_TYPE_INT_OR_AUTO,  /* "auto" or an integer */
    KNOB_TYPE_LIST_OR_AUTO, /* "auto" or a list of integers */
    KNOB_TYPE_FRACTION,     /* a real number within [min, max] */
    KNOB_TYPE_NAME,         /* the name of a preset (resolved outside the engine) */
    KNOB_TYPE_ENUM,         /* one of the row's choices */
    KNOB_TYPE_BOOL,         /* on or off */
    KNOB_TYPE_RELEASE,      /* an SGLang release: 0.4.N / 0.5.N[.postN|rcN] or main */
} engine_knob_type;

/* Where a knob's value lives in engine_deployment (offsets in the table row). */
typedef enum {
    KNOB_FIELD_U32,     /* uint32_t */
    KNOB_FIELD_U64,     /* uint64_t */
    KNOB_FIELD_DOUBLE,  /* double */
    KNOB_FIELD_LIST,    /* uint32_t list[] with a uint32_t count */
    KNOB_FIELD_NAME,    /* char[ENGINE_NAME_MAX] */
    KNOB_FIELD_ENUM,    /* an enum (int-sized) indexing the row's choices */
    KNOB_FIELD_BOOL,    /* bool */
    KNOB_FIELD_RELEASE, /* engine_release */
} engine_knob_field;

/* The step rule of a slider, as data. */
typedef enum {
    KNOB_STEPS_NONE,         /* no slider walk (lists, names) */
    KNOB_STEPS_CAPTURE_GRID, /* SGLang's capture grid up to the knob's max */
    KNOB_STEPS_DIVISORS,     /* the divisors of a base (another knob or a derived number) */
    KNOB_STEPS_LINEAR,       /* first, first + step, ... up to max (and min first if below) */
    KNOB_STEPS_POW2,         /* the powers of two within [min, max] */
} engine_knob_steps_rule;

typedef struct engine_knobs_state engine_knobs_state;
/* A base for KNOB_STEPS_DIVISORS: "world", or "attn_tp" (world / dp). */
typedef struct {
    const char *name;
    uint32_t (*value)(const engine_knobs_state *k);
    const char *how; /* how the base is made, for messages: "world / dp"; NULL: a knob itself */
} engine_knob_base;

/* Where the store keeps a knob's value. */
typedef enum {
    KNOB_STORE_ROW,    /* one row (run, knob, value text, origin): a new knob needs no migration */
    KNOB_STORE_COLUMN, /* a column of the run itself (the GPU: runs are pooled by it) */
} engine_knob_store;

typedef struct {
    engine_knob_id id;
    const char *name;  /* as typed in --set and YAML: "max_bs" */
    const char *alias; /* an older name still accepted ("world" for tp); NULL: none */
    const char *label; /* the short label of its slider */
    const char *brief; /* fewer letters still: "disp", in narrow depends-on columns */
    engine_knob_type type;
    double min, max;   /* static range; relational rules (divisors) are checked on apply */
    const char *range; /* for help: "1..1024", "divisors of world" */
    engine_knob_steps_rule steps;
    double step_first, step_size; /* KNOB_STEPS_LINEAR */
    const engine_knob_base *base; /* KNOB_STEPS_DIVISORS: its values must divide this */
    const char *leaving_auto;     /* INT_OR_AUTO: what stepping away from auto does */
    const char *default_text;     /* "preset", "1", "model" (MODEL.md's knob table) */
    const char *unit;             /* "requests", "GPUs", "" */
    const char *help;             /* one line: what the knob means in SGLang terms */
    const char *const *choices;   /* KNOB_TYPE_ENUM: the names, indexed by value */
    int n_choices;
    bool autoable; /* ENUM, BOOL, INT: "auto" = what the SGLang release would choose */
    engine_knob_field field;
    size_t offset;          /* of the value in engine_deployment */
    size_t auto_offset;     /* of the bool "auto" flag (INT_OR_AUTO, LIST_OR_AUTO) */
    size_t count_offset;    /* of the uint32_t count (KNOB_FIELD_LIST) */
    size_t resolved_offset; /* auto knobs: where the estimate keeps the value resolved (same field
                             * type, in engine_estimate); 0: shown as plain "auto" */
    engine_knob_store store;
    const char *sglang_flag;     /* the launch flag that sets it ("--cuda-graph-max-bs"); NULL: none */
    const char *sglang_flag_alt; /* another spelling SGLang reads ("--cuda-graph-max-bs-decode") */
    const char *sglang_env;      /* the environment variable SGLang reads it from; NULL: none */
    bool human_int;              /* an integer read as SGLang's human_readable_int: 128k = 128,000, 128K = 131,072 */
} engine_knob_info;

extern const engine_knob_info engine_knobs[KNOB_COUNT];
const engine_knob_info *engine_knob_find(const char *name);
#define KNOB_BIT(k) (1u << (k))
/* Writes a one-line reason into ERR (may be NULL) and returns -1: the engine's one way to fail
 * (tmux's `char **cause`). */
int engine_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* SRC (NULL: "") into DST, cut to CAP - 1 bytes: snprintf's "%s" without its format parsing, for
 * the texts copied once per run of a big log. */
void engine_copy_text(char *dst, size_t cap, const char *src);
/* The step rule in words, for --help and the help overlay: "next divisor of world". */
void engine_knob_steps_text(const engine_knob_info *k, char *buf, size_t len);
/* The order to apply several knobs so a base is set before what must divide it (world, dp,
 * dcp, then the rest, in table order). Fills OUT with KNOB_COUNT ids. */
void engine_knob_apply_order(engine_knob_id out[KNOB_COUNT]);
/* "max_bs buckets mtp": the names of the knobs in MASK, in table order, separated by SEP. */
void engine_knob_mask_names(uint32_t mask, const char *sep, char *buf, size_t len);

/* Where a knob's value came from: a run records it per knob (CLI.md), and a plan says it in the
 * estimate (set, preset, or the release's default). */
typedef enum {
    ORIGIN_UNKNOWN,
    ORIGIN_LOG,
    ORIGIN_ENV,
    ORIGIN_PRESET,
    ORIGIN_SET,
    ORIGIN_INFERRED,
    ORIGIN_RELEASE, /* a plan's knob left unset: what the SGLang release would choose */
    ORIGIN_COUNT
} engine_knob_origin;
extern const char *const engine_origin_names[ORIGIN_COUNT]; /* "", "log", ..., "release default" */

/* ---- The model, the GPU and the deployment. ---- */

/* MLA (DeepSeek-V2/V3, Kimi), GQA (MHA, MQA and the sliding-window hybrids), and DeepSeek-V4's
 * compressed sparse attention: one 512-wide MQA head over a sliding window plus 1-in-4 (c4, with
 * a lightning indexer) or 1-in-128 (c128) compressed KV, per layer (models/deepseek_v4.py MQALayer). */
typedef enum { ATTN_MLA, ATTN_GQA, ATTN_DSV4 } engine_attn_kind;
typedef enum { A2A_DEEPEP, A2A_NONE } engine_a2a;
/* SGLang's --attention-backend choices (server_args.py ATTENTION_BACKEND_CHOICES). "flashinfer"
 * on an MLA model is FlashInfer's MLA backend (flashinfer_mla_backend.py); cgplan's older name
 * "flashinfer_mla" is read as that. */
typedef enum {
    BACKEND_FLASHINFER_MLA, /* int32 page indices for the full context */
    BACKEND_TRTLLM_MLA,     /* the block-table backends */
    BACKEND_FLASHMLA,
    BACKEND_CUTLASS_MLA,
    BACKEND_FLASHINFER, /* GQA: kv_indices per token of the largest bucket */
    BACKEND_FA3,
    BACKEND_FA4,
    BACKEND_TRITON,
    BACKEND_AITER,
    BACKEND_TRTLLM_MHA,
    BACKEND_NSA, /* DeepSeek sparse attention ("dsa" in newer releases) */
    BACKEND_TORCH_NATIVE,
    BACKEND_DSV4, /* DeepSeek-V4's own (attention_registry.py create_dsv4_backend: DeepseekV4AttnBackend) */
    BACKEND_COUNT
} engine_backend;
extern const char *const engine_backend_names[BACKEND_COUNT];
/* The MoE runner (--moe-runner-backend). */
typedef enum {
    MOE_RUNNER_AUTO,
    MOE_RUNNER_TRITON,
    MOE_RUNNER_TRITON_KERNEL,
    MOE_RUNNER_DEEP_GEMM,
    MOE_RUNNER_FLASHINFER_TRTLLM,
    MOE_RUNNER_FLASHINFER_CUTLASS,
    MOE_RUNNER_FLASHINFER_MXFP4,
    MOE_RUNNER_CUTLASS,
    MOE_RUNNER_AITER,
    MOE_RUNNER_COUNT
} engine_moe_runner;
extern const char *const engine_moe_runner_names[MOE_RUNNER_COUNT];
/* --deepep-mode: auto allocates both the low-latency and the normal buffers. */
typedef enum { DEEPEP_AUTO, DEEPEP_LOW_LATENCY, DEEPEP_NORMAL, DEEPEP_MODE_COUNT } engine_deepep_mode;
extern const char *const engine_deepep_mode_names[DEEPEP_MODE_COUNT];
/* --kv-cache-dtype. */
typedef enum { KV_DTYPE_AUTO, KV_DTYPE_BF16, KV_DTYPE_FP8_E4M3, KV_DTYPE_FP8_E5M2, KV_DTYPE_COUNT } engine_kv_dtype;
extern const char *const engine_kv_dtype_names[KV_DTYPE_COUNT];
/* The end of each term's range an answer (fraction, wall, solve, search, launch) plans on. */
typedef enum { BOUND_HIGH, BOUND_EXPECTED, BOUND_COUNT } engine_bound;
extern const char *const engine_bound_names[BOUND_COUNT]; /* "high", "expected" */

/* Per-model coefficients behind the terms no closed formula covers (MODEL.md, "Default K3
 * coefficients"). */
typedef enum {
    COEF_ACT_BYTES_PER_ROW,
    COEF_LAZY_BYTES,
    COEF_GRAPH_BYTES,
    COEF_OUT_BYTES_PER_ROW,
    COEF_DRAFT_BASE_BYTES,
    COEF_DRAFT_BYTES_PER_ROW,
    COEF_COUNT
} engine_coef_id;
extern const char *const engine_coef_names[COEF_COUNT]; /* "act_bytes_per_row", ... */

/* Weight and KV element types. Bits per parameter include the scales of the quantised ones
 * (engine_dtype_bits_x1000: FP8 block-128 adds 32 bits per 128 x 128, MXFP4 8 per 32, INT4
 * W4A16 a BF16 scale per group of 32, NVFP4 an FP8 scale per 16, INT4_G128 a 16-bit scale per
 * group of 128, INT4_G128_ZP that and a 4-bit zero point per group of 128). */
typedef enum {
    DTYPE_BF16,
    DTYPE_FP16,
    DTYPE_FP32,
    DTYPE_FP8,   /* e4m3 with block-128 FP32 scales (DeepSeek-V3 style) */
    DTYPE_MXFP4, /* 4-bit e2m1, UE8M0 scale per 32 (gpt-oss experts) */
    DTYPE_INT4,  /* W4A16, BF16 scale per group of 32 (Kimi-K2-Thinking experts) */
    DTYPE_NVFP4, /* 4-bit e2m1, FP8 scale per 16 */
    /* W4A16 group 128 as SGLang's Marlin kernels hold it: GPTQ sym (gptq_marlin drops qzeros),
     * compressed-tensors pack-quantized symmetric */
    DTYPE_INT4_G128,
    /* the same with a 4-bit zero point per group (AWQ: awq_marlin repacks qzeros, same size;
     * GPTQ sym false; compressed-tensors asymmetric) */
    DTYPE_INT4_G128_ZP,
    DTYPE_COUNT
} engine_dtype;
extern const char *const engine_dtype_names[DTYPE_COUNT]; /* "bf16", "fp8", ... */
/* Bits per parameter x 1000, scales included. */
uint32_t engine_dtype_bits_x1000(engine_dtype t);

typedef struct {
    char name[ENGINE_NAME_MAX];
    char description[ENGINE_TEXT_MAX];
    char hf_names[ENGINE_MAX_HF_NAMES][ENGINE_TEXT_MAX / 2];
    int n_hf_names;
    char architecture[ENGINE_NAME_MAX]; /* config.json architectures[0]: "DeepseekV3ForCausalLM" */
    bool trust_remote_code;             /* SGLang needs --trust-remote-code for it */
    uint32_t vocab, hidden, layers;
    uint64_t context_len;
    bool tie_embeddings; /* the LM head shares the embedding matrix */
    engine_attn_kind attn_kind;
    uint32_t heads;
    uint32_t kv_lora_rank, qk_rope_dim, full_attn_layers; /* MLA (full_attn_layers: also GQA hybrids) */
    uint32_t q_lora_rank, qk_nope_dim, v_head_dim;        /* MLA projections (0: no q LoRA) */
    uint32_t kv_heads, head_dim;                          /* GQA */
    /* GQA: the full-attention layers' own KV heads and head size where they differ from the
     * sliding ones (Gemma 4: num_global_key_value_heads, global_head_dim; SGLang's config parser
     * swaps them in as its head_dim / num_key_value_heads and keeps the sliding ones as swa_*).
     * 0: kv_heads, head_dim. Read through engine_full_kv_heads / engine_full_head_dim. */
    uint32_t full_kv_heads, full_head_dim;
    /* GQA: q_proj also gives a sigmoid gate per query head and head_dim (Qwen3-Next, Qwen3.5:
     * attn_output_gate, default true in their SGLang model files): heads x head_dim more rows. */
    bool attn_output_gate;
    uint32_t sliding_window, swa_layers;                  /* sliding-window layers (gpt-oss) */
    uint32_t attention_chunk;                             /* chunked local attention's chunk (Llama 4); 0: none */
    uint32_t linear_attn_layers;                          /* linear-attention layers (Qwen3-Next, K3) */
    /* DeepSeek-V4 (ATTN_DSV4; head_dim, qk_rope_dim, q_lora_rank, sliding_window shared): config
     * compress_ratios counted by value (entries 0, 4 and 128; the list covers the MTP layers too),
     * the grouped low-rank output projection, the c4 layers' indexer and the hyper-connections. */
    uint32_t dsv4_swa_only_layers, dsv4_c4_layers, dsv4_c128_layers;
    uint32_t o_lora_rank, o_groups;
    uint32_t index_heads, index_head_dim, index_topk;
    uint32_t hc_mult;
    uint64_t linear_attn_layer_params; /* one linear-attention layer's parameters (KDA, Gated DeltaNet) */
    uint32_t kv_bytes;                 /* bytes per KV element (BF16: 2) */
    uint32_t intermediate;             /* the dense MLP's intermediate size (dense models, dense layers) */
    uint32_t dense_layers;             /* MoE models: the leading dense layers (first_k_dense_replace) */
    uint32_t num_experts, dispatch_hidden, moe_intermediate, top_k; /* 0 experts: a dense model */
    uint32_t shared_experts;                                        /* shared experts per MoE layer */
    uint32_t shared_intermediate;                                   /* their intermediate size (0: moe_intermediate) */
    engine_dtype dtype;        /* activations and unquantised weights (torch_dtype) */
    engine_dtype dense_dtype;  /* attention, dense MLP, shared experts */
    /* Attention alone, where a checkpoint quantises it apart from the MLP (nvidia's Gemma 4 31B
     * NVFP4 keeps attention BF16, its MLP NVFP4); unset: dense_dtype (engine_attn_dtype). */
    engine_dtype attn_dtype;
    bool attn_dtype_set;
    engine_dtype expert_dtype; /* routed experts */
    uint64_t param_count;      /* parameters as counted from the config (0: not known) */
    uint64_t linear_state_bytes_per_request;
    /* The vision encoder and its projector (a VL model's tower, which SGLang loads beside the
     * language model): every parameter, and the parts its model file splits over the attention
     * TP group (VisionAttention; Qwen3-VL's MLPs and mergers) and over tp (Qwen2.5-VL's and
     * SigLIP's MLPs); the rest (patch and position embeddings, Kimi's MLPs and projector) is whole
     * on every GPU. 0: a text-only model, or a tower the preset does not give. */
    uint64_t vision_params, vision_attn_tp_params, vision_tp_params;
    uint32_t draft_layers;
    bool draft_separate; /* the MTP layer is a separate checkpoint (--speculative-draft-model-path) */
    char draft_model_path[ENGINE_TEXT_MAX / 2];
    uint64_t coef[COEF_COUNT];
    bool coef_missing[COEF_COUNT]; /* the preset has no value: the term is unknown unless calibrated */
    bool coef_borrowed;            /* some coefficients are missing (older name, kept for the loader's callers) */
} engine_model;

/* The full-attention layers' KV heads and head size (GQA): their own where the model gives them,
 * else the sliding layers' (one shape for every layer). */
static inline uint32_t engine_full_kv_heads(const engine_model *m)
{
    return m->full_kv_heads ? m->full_kv_heads : m->kv_heads;
}
static inline uint32_t engine_full_head_dim(const engine_model *m)
{
    return m->full_head_dim ? m->full_head_dim : m->head_dim;
}
/* The dtype of attention's weights: its own where the preset gives one, else dense_dtype. */
static inline engine_dtype engine_attn_dtype(const engine_model *m)
{
    return m->attn_dtype_set ? m->attn_dtype : m->dense_dtype;
}

/* The GPU's architecture as SGLang's platform checks tell it apart when it picks a default
 * attention backend (utils/common.py is_hopper_with_cuda_12_3: major 9, is_sm100_supported: major
 * 10, is_sm120_supported: major 12, is_hip): presets say it (arch:), since neither the memory nor
 * the scale format separates them all. SGLang runs nothing below sm75 (load_model_utils.py
 * maybe_downgrade_dtype_for_legacy_gpu). */
typedef enum {
    GPU_ARCH_SM75,  /* Turing: T4, RTX 20xx */
    GPU_ARCH_SM80,  /* Ampere datacenter: A100, A30 */
    GPU_ARCH_SM86,  /* Ampere: A10, A40, RTX 30xx, RTX A6000 */
    GPU_ARCH_SM89,  /* Ada: L4, L40S, RTX 40xx, RTX 6000 Ada */
    GPU_ARCH_SM90,  /* Hopper: H100, H200, H20, GH200 */
    GPU_ARCH_SM100, /* datacenter Blackwell: B200, GB200 */
    GPU_ARCH_SM103, /* Blackwell Ultra: B300, GB300 (is_sm100_supported takes major 10) */
    GPU_ARCH_SM120, /* consumer and workstation Blackwell: RTX 50xx, RTX PRO 6000 */
    GPU_ARCH_SM121, /* DGX Spark (GB10) */
    GPU_ARCH_CDNA2, /* AMD MI250X, MI210 (gfx90a) */
    GPU_ARCH_CDNA3, /* AMD MI300X, MI325X (gfx942) */
    GPU_ARCH_CDNA4, /* AMD MI350X, MI355X (gfx950) */
    GPU_ARCH_RDNA4, /* AMD Radeon RX 9070, AI PRO R9700 (gfx1201) */
    GPU_ARCH_COUNT
} engine_gpu_arch;
/* "sm75" .. "sm121", "cdna2" .. "cdna4", "rdna4", as presets spell them */
extern const char *const engine_gpu_arch_names[GPU_ARCH_COUNT];
/* The arch an older preset's arch: "other" (any NVIDIA part SGLang's platform checks do not single
 * out) reads as: sm80, which takes the same generic branches. */
#define ENGINE_GPU_ARCH_OTHER_ALIAS GPU_ARCH_SM80

/* How the GPUs of one node (or NVLink domain) reach each other: what decides between SGLang's
 * custom all-reduce and NCCL. */
typedef enum {
    GPU_LINK_NVSWITCH,      /* every GPU to every GPU over NVLink through NVSwitch (HGX, DGX) */
    GPU_LINK_PCIE,          /* PCIe only */
    GPU_LINK_NVLINK_BRIDGE, /* NVLink bridges between pairs (or fours) of PCIe cards: H100 NVL, H200 NVL */
    GPU_LINK_MNNVL,         /* multi-node NVLink: GB200 / GB300 NVL72 */
    GPU_LINK_XGMI,          /* AMD Infinity Fabric */
    GPU_LINK_UNIFIED,       /* one GPU sharing the host's memory: DGX Spark */
    GPU_LINK_COUNT
} engine_gpu_link;
/* "nvswitch", "pcie", "nvlink_bridge", "mnnvl", "xgmi", "unified" */
extern const char *const engine_gpu_link_names[GPU_LINK_COUNT];
/* The link a preset without link: gets: nvswitch for sm90, sm100 and sm103 (those are sold as HGX
 * boards first), pcie for every other arch. */
engine_gpu_link engine_gpu_default_link(engine_gpu_arch arch);
/* AMD (is_hip in SGLang): HIP graphs, hipBLAS, RCCL and custom all-reduce of 16 MiB. */
bool engine_gpu_is_rocm(engine_gpu_arch arch);

typedef struct {
    char name[ENGINE_NAME_MAX];
    char description[ENGINE_TEXT_MAX];
    uint64_t cuda_total_bytes; /* what torch.cuda.mem_get_info() reports as total */
    uint32_t nvidia_smi_mib;   /* nvidia-smi's (on AMD rocm-smi's) total; 0: not known or not reported */
    bool ue8m0_scales;         /* Blackwell: packed UE8M0 scales in the masked GEMM (peak variant only) */
    engine_gpu_arch arch;      /* what SGLang's default attention backend depends on */
    engine_gpu_link link;      /* how the node's GPUs talk (custom all-reduce or NCCL) */
    bool p2p;                  /* peer-to-peer access between the node's GPUs (GeForce cards have none) */
    /* The driver's bytes per kernel node of an instantiated graph on this GPU and its driver:
     * a measured figure from the preset, else (expected 0) the arch's empirical default
     * (engine_node_bytes_default). */
    engine_range node_bytes;
    char node_bytes_source[ENGINE_TEXT_MAX];
} engine_gpu;

/* The bytes per kernel node an estimate uses for G when neither the knob nor the preset gives
 * one: an empirical fit over public captures on G's arch (graph_nodes.c holds the data and the
 * leave-one-out error). Returns the source text. */
const char *engine_node_bytes_default(const engine_gpu *g, engine_range *out);

/* SGLang's default attention backend (release.c; declared here, after the model and the GPU it
 * reads): what release R picks when --attention-backend is not given, for model M on GPU G at
 * --tp-size TP_SIZE, under SPECULATIVE decoding (EAGLE with --speculative-eagle-topk 1, as
 * cgplan launches it) and --page-size PAGE_SIZE (0: not given). */
typedef struct {
    engine_backend backend; /* "flashinfer" on an MLA model reads BACKEND_FLASHINFER_MLA */
    uint32_t page_size;     /* the page size that backend runs with (engine_backend_page_size) */
    const char *rule;       /* the rule that chose it and its source, for messages and tests */
} engine_backend_choice;
engine_backend_choice engine_release_default_backend(const engine_release *r, const engine_model *m,
                                                     const engine_gpu *g, uint32_t tp_size, bool speculative,
                                                     bool radix_cache, uint32_t page_size);
/* The page size BACKEND runs with when --page-size is REQUESTED (0: not given): the backends
 * that support only some sizes move any other to theirs (server_args.py
 * _handle_attention_backend_compatibility); the rest take the request, or 1. */
uint32_t engine_backend_page_size(engine_backend backend, uint32_t requested);

struct engine_knobs_state {
    uint32_t max_bs, dp, dcp, mtp, world;
    uint32_t max_dispatch; /* ignored while max_dispatch_auto */
    bool max_dispatch_auto;
    bool buckets_auto;
    uint32_t n_buckets; /* the preset's (or --set's) explicit list, when !buckets_auto */
    uint32_t buckets[ENGINE_MAX_BUCKETS];
    uint64_t context_len;
    double mem_fraction_static;
    /* The layout beyond dp and dcp; each *_auto: the release's own choice (resolved by the
     * estimate). */
    bool dp_attention, dp_attention_auto; /* auto: on when dp > 1 */
    uint32_t ep;
    bool ep_auto; /* auto: tp with DeepEP, else 1 */
    engine_deepep_mode deepep_mode;
    engine_moe_runner moe_runner;
    bool moe_runner_auto;
    bool backend_auto;
    uint32_t max_running_requests;
    bool max_running_requests_auto;
    bool tbo;
    engine_kv_dtype kv_dtype;
    uint32_t page_size;
    bool page_size_auto;
    engine_release sglang;  /* the release whose behaviour the plan follows */
    uint64_t min_kv_tokens; /* KV tokens per running request the pool must hold (fit rule) */
    bool node_bytes_auto;   /* node_bytes: the GPU's (preset or arch default) */
    engine_bound bound;     /* which end of the ranges the answers plan on */
    double swa_full_tokens_ratio; /* SWA pool tokens per full-attention token (SGLang's default 0.8) */
    double mamba_full_memory_ratio; /* state pool bytes per KV pool byte (SGLang's default 0.9) */
    bool disable_radix_cache;       /* no prefix cache: the state pool is one state per running request */
    bool disable_hybrid_swa_memory; /* no sliding-window pool: every layer's KV in the full one */
};

/* The layout a deployment's measured figures (weights_bytes, state_pool_bytes) were measured at:
 * the weights and the state one GPU holds follow tp, dp, DP attention, ep and dcp, so a measured
 * figure holds only on its own layout; on any other the budget computes it from the model. */
typedef struct {
    bool known; /* false: figures given without their layout (a hand-built plan): held on any */
    uint32_t world, dp, dcp, ep; /* ep as the release resolves it (auto: tp with DeepEP, else 1) */
    bool dp_attention;           /* as the release resolves it (auto: on when dp > 1) */
} engine_measured_layout;

typedef struct {
    char name[ENGINE_NAME_MAX];
    char description[ENGINE_TEXT_MAX];
    engine_model model;
    engine_gpu gpu;
    engine_knobs_state knobs;
    engine_backend backend;
    engine_a2a a2a;
    uint64_t weights_bytes;                     /* per GPU, after load */
    uint64_t state_pool_bytes;                  /* linear-attention state of the running requests */
    uint64_t other_runtime_bytes;               /* MODEL.md default: 1 GiB */
    uint64_t pre_load_free_bytes;               /* 0: cuda_total - 0.8 GiB */
    uint64_t margin_bytes;                      /* left free at the recommended fraction (knob "margin") */
    uint64_t node_bytes;                        /* the node_bytes knob (while !knobs.node_bytes_auto) */
    engine_knob_origin knob_origin[KNOB_COUNT]; /* ORIGIN_UNKNOWN: the engine's default */
    engine_measured_layout measured_at;         /* where weights_bytes and state_pool_bytes were measured */
    /* A PD decode server (--disaggregation-mode decode read from a launch line or a log:
     * engine_plan_decode_server). false: not known to be one (a plan launch may still make it one). */
    bool decode_server;
} engine_deployment;

/* D's layout as the release resolves it (known: true). */
engine_measured_layout engine_measured_layout_of(const engine_deployment *d);
/* Records D's current layout as the one its measured figures were taken at (the preset loader,
 * once the preset's own knobs are set). */
void engine_measured_layout_record(engine_deployment *d);
/* Whether D's measured figures hold for D's current layout (no recorded layout: they do). */
bool engine_measured_layout_holds(const engine_deployment *d);
/* A layout for messages: "DP16", "DP2 x DCP8", "TP8"; where it and OTHER (may be NULL) read the
 * same, the dimension that differs is added ("DP16, ep 16"). */
void engine_measured_layout_text(const engine_measured_layout *l, const engine_measured_layout *other, char *buf,
                                 size_t len);

/* Derived layout numbers. */
/* DP attention as SGLang runs it: auto turns it on when dp > 1. */
static inline bool engine_dp_attention(const engine_knobs_state *k)
{
    return k->dp_attention_auto ? k->dp > 1 : k->dp_attention;
}
/* The GPUs one attention group spans: tp / dp with DP attention, else tp (dp replicas). */
static inline uint32_t engine_attn_tp(const engine_knobs_state *k)
{
    if (!k->dp)
        return 0;
    return engine_dp_attention(k) ? engine_div_u32(k->world, k->dp) : k->world;
}

/* ---- Knob get/set (the rules of MODEL.md's knob table). ---- */

typedef enum { SEVERITY_INFO, SEVERITY_WARNING, SEVERITY_BLOCKING } engine_severity;
extern const char *const engine_severity_names[3]; /* "info", "warning", "blocking" */

/* A warning with its structured fields, so no front end recomputes it: the code's row in the
 * warning table gives the severity and the knobs it concerns; VALUE and LIMIT are the numbers
 * it compares (0 where none); BRIEF is the few words shown beside those knobs' sliders. */
typedef struct {
    char code[32];
    int kind; /* its row of the warning table (estimate.c); -1: a code the table lacks */
    engine_severity severity;
    uint32_t knobs; /* KNOB_BIT mask of the knobs it concerns; 0: none */
    double value, limit;
    char message[ENGINE_TEXT_MAX];
    char brief[48];
} engine_warning;

typedef struct {
    int n;
    bool quiet; /* codes, severities and numbers only: no message or brief text (the wall scan,
                 * solve and search read no text, and formatting it was most of an estimate) */
    engine_warning items[ENGINE_MAX_WARNINGS];
} engine_warnings;

/* Adds a warning: severity and knobs from CODE's row of the warning table. */
void engine_warn(engine_warnings *w, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with the compared numbers and the brief text. */
void engine_warn_at(engine_warnings *w, const char *code, double value, double limit, const char *brief,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The first warning that concerns KNOB (the table's order is the priority), or NULL. */
const engine_warning *engine_warning_for_knob(const engine_warnings *w, engine_knob_id knob);
/* The warning with CODE, or NULL. */
const engine_warning *engine_warning_find(const engine_warnings *w, const char *code);

/* Parses TEXT as a value of KNOB into D. Checks the static range and the relational rules
 * (a divisor knob must divide its base). When a change leaves a dependent knob invalid, that
 * knob is moved to the largest valid value not above it and an "adjusted" warning is added to
 * ADJ (may be NULL). Returns 0, or -1 with a one-line reason in ERR. KNOB_TYPE_NAME knobs (gpu)
 * are not handled here (the caller resolves the name); it returns -1. */
int engine_knob_set_text(engine_deployment *d, engine_knob_id knob, const char *text, engine_warnings *adj, char *err,
                         size_t errlen);

/* Plans D as a disaggregated decode server (--disaggregation-mode decode): SGLang's server_args
 * forces disable_radix_cache there ("KV cache is forced as chunk cache"), and a hybrid model's
 * state pool follows it. The knob is marked as the release's choice unless already on; D is
 * marked decode_server (the sliding-window cap's decode side). */
void engine_plan_decode_server(engine_deployment *d);

/* Numeric access for sliders: the knob's current value (an auto knob: its resolved value). */
double engine_knob_value(const engine_deployment *d, engine_knob_id knob);
/* Sets a numeric value (already one of engine_knob_steps); same adjustment rules. */
int engine_knob_set_value(engine_deployment *d, engine_knob_id knob, double value, engine_warnings *adj, char *err,
                          size_t errlen);
/* The ordered list of values a slider walks through (the row's step rule). Returns the count
 * (at most CAP); 0 for knobs without steps (lists, names). */
size_t engine_knob_steps(const engine_deployment *d, engine_knob_id knob, double *out, size_t cap);
/* Moves KNOB DELTA steps along its walk, or to an end (TO_END > 0: last, < 0: first). Leaving
 * auto starts from the resolved value. Returns 0 when it moved, 1 when it was already there,
 * -1 with ERR when the knob has no steps or the move is refused. */
int engine_knob_step(engine_deployment *d, engine_knob_id knob, int delta, int to_end, engine_warnings *adj, char *err,
                     size_t errlen);

bool engine_knob_is_auto(const engine_deployment *d, engine_knob_id knob);
/* Puts an auto-able knob back to auto; returns false when it has no auto or already is. */
bool engine_knob_set_auto(engine_deployment *d, engine_knob_id knob);
/* Copies KNOB's value (and its auto flag) from SRC to DST, without rules. */
void engine_knob_copy(engine_deployment *dst, const engine_deployment *src, engine_knob_id knob);
/* The bytes KNOB's value takes in D from its field's offset: a list's sizes (its count is a field
 * of its own), a name's whole buffer. */
size_t engine_knob_value_size(const engine_deployment *d, engine_knob_id knob);
bool engine_knob_equal(const engine_deployment *a, const engine_deployment *b, engine_knob_id knob);

typedef enum {
    KNOB_TEXT_CANONICAL, /* parsable back by engine_knob_set_text: "auto", "0.874", "1,2,4" */
    KNOB_TEXT_DISPLAY,   /* for people, unresolved: "auto", "0.874", "[1, 2, 4]" */
    KNOB_TEXT_FULL,      /* resolved: "auto (144)" */
    KNOB_TEXT_SHORT,     /* a slider's value: "auto 144", "1M", a bucket list's count */
} engine_knob_text_style;
typedef struct engine_estimate engine_estimate;
/* KNOB's value as text. E (may be NULL: computed when needed) gives resolved values. */
void engine_knob_text(const engine_deployment *d, const engine_estimate *e, engine_knob_id knob,
                      engine_knob_text_style style, char *buf, size_t len);
/* The same as KNOB_TEXT_FULL (kept for the CLI's tables). */
void engine_knob_format(const engine_deployment *d, engine_knob_id knob, char *buf, size_t len);

/* Reads SGLang's own launch flags ("--tp-size 8 --enable-dp-attention ...", and KEY=VALUE
 * environment assignments) into D's knobs through the knob table's flags; the model path, if
 * given, into MODEL_PATH. Flags that do not change graph memory are skipped and counted in
 * *SKIPPED. Returns 0, or -1 with ERR naming the flag and the fix. */
int engine_apply_sglang_args(engine_deployment *d, const char *args, char *model_path, size_t model_len, int *skipped,
                             engine_warnings *adj, char *err, size_t errlen);

/* ---- Buckets: SGLang's capture list (MODEL.md, "Buckets"). ---- */

/* SGLang's decode capture grid for MAX_BS (without the append). */
size_t engine_bucket_grid(uint32_t max_bs, bool speculative, uint32_t *out, size_t cap);
/* The captured list for a deployment's knobs, ascending; sets *bs_max. Adds a
 * no_bucket_survives warning when the divisibility filter leaves nothing. */
size_t engine_buckets_resolve(const engine_deployment *d, uint32_t *out, size_t cap, engine_warnings *w);

/* ---- DeepEP and the MoE terms. ---- */

/* DeepEP get_low_latency_rdma_size_hint(T, H, ranks, E): the rank count does not enter. */
uint64_t engine_deepep_ll_hint_bytes(uint64_t max_dispatch, uint64_t hidden, uint64_t num_experts);
/* DeepEP normal-mode buffers for RANKS ranks and HIDDEN_BYTES per token (Buffer.get_dispatch_config
 * / get_combine_config, Config::get_nvl_buffer_size_hint / get_rdma_buffer_size_hint; the max
 * over both configs). False for a rank count DeepEP has no default config for. */
bool engine_deepep_normal_bytes(uint32_t ranks, uint64_t hidden_bytes, uint64_t *nvl, uint64_t *rdma);
/* The NVSHMEM_QP_DEPTH DeepEP (>= 2026-03) needs for MAX_DISPATCH tokens per rank. */
uint32_t engine_nvshmem_qp_depth(uint32_t max_dispatch);
/* The same rounded up to NVSHMEM's 512 MiB heap granularity. */
uint64_t engine_deepep_nvshmem_bytes(uint64_t hint_bytes);
/* The article's masked-GEMM sum: FP8 receive + BF16 gate_up + FP8 down input alive together. */
uint64_t engine_masked_gemm_sum_bytes(uint64_t max_dispatch, uint64_t hidden, uint64_t intermediate,
                                      uint64_t num_experts);
/* The lifetime-aware peak (DeepGEMM masked path); ue8m0: Blackwell packed scales. */
uint64_t engine_masked_gemm_peak_bytes(uint64_t max_dispatch, uint64_t hidden, uint64_t intermediate,
                                       uint64_t num_experts, bool ue8m0);

/* ---- The estimate. ---- */

typedef enum {
    TERM_LOGITS,
    TERM_KV_INDEX,
    TERM_INPUTS,
    TERM_DEEPEP,
    TERM_MASKED_GEMM,
    TERM_LAZY,
    TERM_ACT,
    TERM_BUCKETS,
    TERM_DRAFT,
    TERM_FUSED_MOE,     /* the fused-MoE intermediates of the largest bucket (no DeepEP) */
    TERM_GRAPH_LOGITS,  /* each further graph's own FP32 logits (releases before PR #8579) */
    TERM_STATIC_OTHER,  /* the static layer no formula explains: a calibration's intercept */
    TERM_DEEPEP_NORMAL, /* DeepEP's normal-mode NVL buffer (and its RDMA part beyond the LL one) */
    TERM_COUNT
} engine_term_id;

typedef enum { LAYER_STATIC, LAYER_LARGEST, LAYER_BUCKETS, LAYER_DRAFT, LAYER_COUNT } engine_layer;
/* Where a term's bytes come from, which decides its range: exact (the ends equal the value),
 * derived (the formula's own tolerance), coefficient (a preset's fitted number: the fit's
 * tolerance), calibrated (the operator's runs), unknown (no range: nothing can be planned on
 * it), empirical (a physical constant fitted across models: the constant's range). */
typedef enum {
    SOURCE_EXACT,
    SOURCE_DERIVED,
    SOURCE_COEFFICIENT,
    SOURCE_CALIBRATED,
    SOURCE_UNKNOWN,
    SOURCE_EMPIRICAL,
    SOURCE_COUNT
} engine_source;
typedef enum { GROUP_TARGET, GROUP_DRAFT } engine_group;

extern const char *const engine_layer_names[LAYER_COUNT];
extern const char *const engine_source_names[SOURCE_COUNT];
extern const char *const engine_group_names[2];

struct engine_calibration; /* below: a term's compute function reads it */

/* The term table: everything about a term but its bytes. Compute code fills bytes (and the
 * source when a calibration replaces a coefficient); the TUI and CLI take labels, phrases and
 * legends from here. */
typedef struct {
    engine_term_id id;
    const char *key;         /* "static.logits" */
    const char *label;       /* "page index": tables with room */
    const char *short_label; /* "other bkts": the TUI's narrow term table */
    const char *legend;      /* what the short label stands for, in the help overlay */
    engine_layer layer;
    engine_source source;     /* before any calibration */
    uint32_t depends_on;      /* KNOB_BIT mask, transitively (MODEL.md) */
    const char *formula;      /* "logits_rows x vocab x 4 (FP32)" */
    const char *origin;       /* SGLang file / article section */
    const char *limit_phrase; /* "the logits buffer (rows x vocab)": what limits the wall */
    bool moe_floor;           /* part of the MoE floor (DeepEP + masked GEMM) */
    bool hide_when_zero;      /* a term of another path: tables leave it out while it is 0 */
    /* A derived term's tolerance, percent below and above its value (its formula leaves out or
     * bounds what it says); exact terms 0 and 0. */
    uint16_t low_pct, high_pct;
    /* The function that computes it (engine/terms/: one file per mechanism). */
    void (*compute)(const engine_deployment *d, const struct engine_calibration *cal, struct engine_estimate *e);
} engine_term_info;
extern const engine_term_info engine_terms[TERM_COUNT];

/* The knobs that decide bs_max and the rows (MODEL.md's ROWS). */
#define ENGINE_ROWS_MASK                                                                                               \
    (KNOB_BIT(KNOB_MAX_BS) | KNOB_BIT(KNOB_BUCKETS) | KNOB_BIT(KNOB_MTP) | KNOB_BIT(KNOB_DP) | KNOB_BIT(KNOB_WORLD))

/* The knobs that make a deployment's shape: a stored run sits on a plot of one of them when it
 * agrees with the plan on all the others. */
#define ENGINE_SHAPE_MASK                                                                                              \
    (KNOB_BIT(KNOB_MAX_BS) | KNOB_BIT(KNOB_MTP) | KNOB_BIT(KNOB_DP) | KNOB_BIT(KNOB_DCP) | KNOB_BIT(KNOB_WORLD))

/* "max_bs buckets mtp dp world" (names) or, BRIEF, "rows ctx" (MODEL.md's shorthand for the
 * rows, then the knobs' brief labels); "-" for none. */
void engine_depends_text(uint32_t mask, bool brief, char *buf, size_t len);

typedef enum {
    LAYOUT_NAME_PLAIN,    /* "TP8", "DP16", "DP2 x DCP8" */
    LAYOUT_NAME_WITH_MTP, /* "DP16 no MTP", "DP2 x DCP8 MTP 5"; 0 = unknown: "DP? MTP ?" */
    LAYOUT_NAME_COMPACT,  /* "DP16 MTP6", "DP2xDCP8 MTP5" */
} engine_layout_style;
/* The one name of a layout. */
void engine_layout_name(const engine_knobs_state *k, engine_layout_style style, char *buf, size_t len);

typedef struct {
    engine_term_id id;
    engine_group group;
    engine_layer layer;
    engine_source source;
    uint64_t bytes;      /* 0 while !known */
    bool known;          /* false: no formula, preset value or calibration covers it */
    uint32_t depends_on; /* KNOB_BIT mask */
    const char *formula; /* human formula, e.g. "logits_rows x vocab x 4" */
    const char *origin;  /* where it comes from: SGLang file / article section */
    uint64_t low_bytes, high_bytes; /* the range (0, 0 while !known) */
    uint64_t alt_bytes;  /* DeepEP: NVSHMEM-rounded; masked GEMM: lifetime-aware peak; else 0 */
    const char *alt_label;
    int n_runs; /* calibrated: how many runs are behind it (the estimate's calibration_runs) */
} engine_term;

/* A stored calibration, handed in by the caller (the engine never reads the store). */
typedef struct engine_calibration {
    bool has[COEF_COUNT];
    uint64_t value[COEF_COUNT];
    /* The static layer's unexplained part, one intercept per pool (calibrate.c). No term of the
     * estimator carries it yet: calib_estimate_terms() books it to the static layer. */
    bool has_static;
    uint64_t static_bytes;
    int n_runs;
    int64_t runs[ENGINE_MAX_CAL_RUNS];
    /* The GPU's bytes per kernel node, fitted over any model's runs on that GPU (calibrate.c
     * calib_fit_node_bytes): every estimate on the GPU prices its kernel nodes at it, whatever the
     * model, below the node_bytes knob and above the GPU preset's figure. NODE_RUNS runs are
     * behind it; engine_calibration_set_node_bytes writes the source text, which the estimate's
     * node_bytes_source points at (the calibration must outlive the estimate's reading). */
    bool has_node_bytes;
    engine_range node_bytes;
    int node_runs;
    char node_bytes_source[ENGINE_TEXT_MAX];
} engine_calibration;

/* Puts a node_bytes calibration of R over N_RUNS runs into CAL, with its source text:
 * "calibrated from 3 runs on h200 (sglang 0.5.3; ...)". RELEASE NULL or "": every release. */
void engine_calibration_set_node_bytes(engine_calibration *cal, engine_range r, int n_runs, const char *gpu,
                                       const char *release);

typedef struct {
    uint64_t pre_load_free_bytes, weights_bytes, state_pool_bytes, other_runtime_bytes;
    bool weights_measured;        /* the preset's measured figure is in use (its layout is the plan's) */
    bool state_measured;          /* the preset's measured state pool is in use */
    /* The deployment has measured figures, taken on another layout (measured_at): weights and
     * state were computed from the model instead. */
    bool measured_elsewhere;
    bool weights_known;           /* false: the model lacks a field to count its weights */
    uint64_t static_budget_bytes; /* P x (1 - f): what graphs and the runtime must fit in */
    int64_t kv_pool_bytes;        /* may be <= 0: SGLang refuses to start */
    int64_t headroom_bytes;       /* negative: the capture will OOM */
    double recommended_mem_fraction_static;
    uint64_t kv_cell_bytes;                 /* per full-attention token, the sliding-window share included */
    uint64_t kv_cell_full_bytes, kv_cell_swa_bytes; /* its two shares (swa 0: one pool) */
    int64_t kv_full_pool_bytes, kv_swa_pool_bytes;  /* the KV pool split as SGLang allocates it */
    /* the sliding-window pool's tokens where a fixed cap sizes it (engine_swa_cap_of: then
     * kv_cell_swa_bytes is 0, a full-attention token carrying no share of it); 0: by the ratio */
    uint64_t kv_swa_cap_tokens;
    uint64_t state_slots;                           /* request states the state pool holds (0: none) */
    bool state_per_request;     /* no radix cache (the knob, or a release before v0.5.4): one state per request */
    /* logical tokens one GiB of graph memory costs (under the sliding-window cap: full-attention
     * tokens per GiB of the full pool, the capped pool being fixed) */
    uint64_t kv_tokens_per_gib;
    uint32_t wall_max_bs;       /* the largest max_bs that fits at its own recommended fraction (0: none) */
    engine_term_id wall_term;   /* the term that grows most from the wall to the next size */
    /* What stops the wall: wall_term's key when memory does, "kv_per_request" when the request
     * policy does (the pool holds fewer than min_kv_tokens per running request at the next size) */
    const char *wall_limit;
    bool wall_beyond_range;     /* every max_bs up to 1024 fits */
    /* The fit rule (MODEL.md "Budget"): at the fraction recommended for the plan, headroom >=
     * the margin, a KV pool of at least min_kv_tokens per running request, a DeepEP dispatch
     * that covers the MoE rows within SGLang's cap, and no blocking warning. */
    uint64_t margin_bytes;
    uint64_t kv_min_bytes;             /* the pool the running requests need at min_kv_tokens each */
    uint64_t kv_tokens;                /* logical tokens the pool holds (x dcp) */
    uint32_t running_requests;         /* requests per DP rank the pool serves */
    bool fits;                         /* no blocking warning at the plan's own fraction */
    bool meets_min_kv;                 /* the pool holds min_kv_tokens per running request there */
    double wall_mem_fraction_static;   /* the recommended fraction at the wall */
    uint32_t wall_next_bs;             /* the first capture size above the wall (blocked); 0: none */
    const char *wall_code;             /* the blocking code at wall_next_bs (or at 1 when none fits) */
    char wall_reason[ENGINE_TEXT_MAX]; /* why wall_next_bs (or max_bs 1) does not fit, in words */
    /* What SGLang alone would do with this plan: the --mem-fraction-static its server_args.py
     * picks when none is given, and the KV tokens (x dcp) the pool holds at it. Set by budget.c
     * when sglang_default_known; the answers print both beside the plan's own. */
    bool sglang_default_known;
    double sglang_default_mem_fraction_static;
    uint64_t sglang_default_kv_tokens;
    int64_t sglang_default_kv_pool_bytes; /* the KV pool at that fraction */
    /* SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (PR #30157, opt-in; sglang.md 2.4). */
    bool post_capture_applies;
    const char *post_capture_why;  /* why it does not apply, or what it does */
    int64_t post_capture_kv_bytes; /* the pool it would size after capture (where it applies) */
} engine_budget;

/* The layout as SGLang runs it: the auto knobs resolved. */
typedef struct {
    bool dp_attention;
    bool moe;            /* the model has routed experts */
    uint32_t ep, moe_tp; /* experts over ep GPUs; each expert's matrices over moe_tp = tp / ep */
    engine_backend backend;
    uint32_t page_size; /* tokens per KV page: --page-size, else what the backend forces, else 1 */
    engine_moe_runner moe_runner;
    bool deepep;                   /* DeepEP runs the routed experts: a2a deepep on a MoE model */
    bool deepep_ll, deepep_normal; /* DeepEP buffers allocated (auto: both) */
    uint32_t kv_bytes;
} engine_layout;

/* The parts of the terms a mechanism builds from several sources: `buckets`, `lazy.other` and
 * `draft` keep their ids and are the sums of their parts, so keys keep their meaning. A fit
 * (the article's K3 coefficients, a calibration) replaces a term's mechanism parts by its own. */
typedef enum {
    PART_BUCKETS_NODES,     /* buckets.nodes: node_bytes x kernel nodes of every captured graph */
    PART_BUCKETS_WRAPPERS,  /* buckets.wrappers: FlashInfer's per-size wrappers, 8 MiB each */
    PART_BUCKETS_NCCL_WORK, /* buckets.nccl_work: NCCL's persistent work per captured collective */
    PART_BUCKETS_FIT,       /* buckets.fit: graph_bytes x (n - 1) + out_bytes_per_row x rows */
    PART_LAZY_CUBLAS,       /* lazy.cublas: the capture streams' cuBLAS and cuBLASLt workspaces */
    PART_LAZY_NCCL,         /* lazy.nccl: a NCCL communicator created inside the capture window */
    PART_LAZY_FIT,          /* lazy.fit: lazy_bytes */
    PART_DRAFT_NODES,       /* draft.nodes: node_bytes x the draft graphs' kernel nodes */
    PART_DRAFT_WRAPPERS,    /* draft.wrappers: the draft backends' FlashInfer wrappers */
    PART_DRAFT_BUFFERS,     /* draft.buffers: the draft runners' logits, hidden states, temporaries */
    PART_DRAFT_FIT,         /* draft.fit: draft_base_bytes + draft_bytes_per_row x attn_rows */
    PART_COUNT
} engine_part_id;

typedef struct {
    engine_part_id id;
    engine_term_id term; /* the term it is a part of */
    const char *key;     /* "buckets.nodes" */
    const char *label;   /* "kernel nodes" */
    engine_source source;
    const char *formula;
    const char *origin;
} engine_part_info;
extern const engine_part_info engine_parts[PART_COUNT];

typedef struct {
    bool present; /* the term is built from this part in this estimate */
    engine_source source;
    uint64_t bytes, low_bytes, high_bytes;
} engine_part;

/* Kernel nodes of one captured decode graph (graph_nodes.c): what each further graph costs the
 * driver, at node_bytes each. */
typedef struct {
    engine_range nodes;       /* one target graph */
    uint32_t allreduce;       /* of them TP all-reduces: SGLang logs (2L + 1) x graphs of these */
    uint32_t vocab_gather;    /* the logits all-gather (NCCL inside the graph) */
    engine_range draft_nodes; /* one captured size's draft graphs, every step */
} engine_graph_nodes;
void engine_graph_nodes_count(const engine_deployment *d, const engine_layout *l, uint32_t attn_tp,
                              engine_graph_nodes *out);
/* Whether custom all-reduce serves an all-reduce of BYTES over ATTN_TP GPUs (else NCCL). */
bool engine_custom_ar_covers(const engine_deployment *d, uint32_t attn_tp, uint64_t bytes);

struct engine_estimate {
    /* resolved knobs */
    uint32_t attn_tp, heads_per_gpu;
    uint32_t bs_max, attn_rows, moe_rows, logits_rows;
    uint32_t max_dispatch;
    bool max_dispatch_auto;
    engine_layout layout; /* not first: a resolved_offset of 0 means none */
    uint32_t n_buckets;
    uint32_t buckets[ENGINE_MAX_BUCKETS];
    uint64_t other_bucket_rows; /* sum over the buckets but the largest of bs x mtp */
    engine_term terms[TERM_COUNT];
    uint64_t layer_bytes[LAYER_COUNT];
    uint64_t target_total_bytes, draft_total_bytes, total_bytes; /* the known terms */
    bool total_complete;                                         /* every term is known */
    /* The total's range (sums of the terms' ends; no upper end while !total_complete), and the
     * total the answers plan on: the high end unless the bound knob says expected. */
    uint64_t total_low_bytes, total_high_bytes, plan_total_bytes;
    engine_part parts[PART_COUNT];
    engine_graph_nodes graph_nodes;
    uint64_t graph_nodes_total;    /* expected kernel nodes over every captured target graph */
    uint64_t node_bytes;           /* the bytes per node used (resolved node_bytes knob) */
    engine_range node_bytes_range; /* and its range */
    const char *node_bytes_source;
    int node_bytes_runs;           /* > 0: a calibration's, fitted from this many runs on the GPU */
    uint32_t nccl_graph_ops;       /* collectives NCCL runs inside the captured target graphs */
    uint64_t heuristic_graph_bytes, heuristic_deepep_bytes, heuristic_total_bytes;
    engine_budget budget;
    engine_warnings warnings;
    /* The runs the calibration was fitted from, once for every calibrated term (a copy per
     * term made each term 4.5 times as large, and every probe of the wall writes 13 of them). */
    int64_t calibration_runs[ENGINE_MAX_CAL_RUNS];
};

/* Everything for one deployment. CAL may be NULL. Also computes the budget and the wall (a
 * bisection over SGLang's grid: ~9 terms-only estimates); engine_estimate_terms() skips it. */
void engine_estimate_compute(const engine_deployment *d, const engine_calibration *cal, engine_estimate *out);
/* The same numbers without any text (warnings keep codes, severities and values; no wall
 * reason): what search runs over every layout. */
void engine_estimate_compute_quiet(const engine_deployment *d, const engine_calibration *cal, engine_estimate *out);
/* Terms, layers, totals and heuristic only (no budget, no wall, no warnings on the budget). */
/* The same without the warnings' texts (codes, severities and numbers stay): for the estimates
 * nobody reads, the wall's scan, solve and search. */
void engine_estimate_terms_quiet(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
/* The message of the terms' warning CODE for D (the terms re-run with texts): for an answer built
 * on quiet estimates. Returns BUF (CODE itself when D has no such warning). */
const char *engine_warning_message_for(const engine_deployment *d, const engine_calibration *cal, const char *code,
                                       char *buf, size_t len);
void engine_estimate_terms(const engine_deployment *d, const engine_calibration *cal, engine_estimate *out);

/* The MoE floor: DeepEP's buffer plus the masked GEMM, the bytes max_dispatch decides. */
uint64_t engine_moe_floor_bytes(const engine_estimate *e);
/* What limits the wall, in words: the wall term's phrase (the MoE floor says whether
 * max_dispatch follows max_bs). */
const char *engine_wall_phrase(const engine_estimate *e);

/* ---- Fitting (the rule of the wall, solve and search). ---- */

/* Whether F is a --mem-fraction-static the knob takes (>= its 0.50): a recommended fraction
 * below it means no fraction leaves the graphs room, and every answer says "does not fit". */
bool engine_fraction_settable(double f);

/* A plan evaluated at the fraction recommended for it. */
typedef struct {
    bool fits;
    double mem_fraction_static; /* recommended: 1 - (graphs + O + margin) / P, floored to 0.001 */
    int64_t kv_pool_bytes, headroom_bytes;
    uint64_t kv_min_bytes, kv_tokens;
    const char *blocking; /* the first blocking code (NULL: fits) */
} engine_fit;

/* Estimates D (terms only, into SCRATCH, whose budget is left as it was) and evaluates it at its
 * own recommended fraction. */
bool engine_fit_at_recommended(const engine_deployment *d, const engine_calibration *cal, engine_estimate *scratch,
                               engine_fit *out);
/* Why F (a plan D evaluated into E by engine_fit_at_recommended) does not fit, or that it fits,
 * in one sentence that starts with LEAD ("max_bs 200"), its code last in parentheses. */
void engine_fit_reason(const engine_deployment *d, const engine_calibration *cal, const engine_estimate *e,
                       const engine_fit *f, const char *lead, char *buf, size_t len);
/* What stops a scan whose last fitting value evaluated to FITS (NULL: none fits) and whose next
 * to NEXT: "kv_per_request" when NEXT falls short of min_kv_tokens per request and the
 * requirement grows more than the pool shrinks (the request policy is the limit), else TERM's
 * key (what the graphs grow by is). */
const char *engine_fit_limit(const engine_fit *fits, const engine_fit *next, engine_term_id term);
/* The severity of a warning code (unknown codes: SEVERITY_WARNING). */
engine_severity engine_warning_severity(const char *code);
/* How many warnings of W (and ADJ, may be NULL) are blocking. */
int engine_warnings_blocking(const engine_warnings *w, const engine_warnings *adj);

/* SGLang's reserve heuristic in bytes (server_args.py reserve_for_graph_mb and
 * reserve_for_deepep_a2a_mb; decode scope). */
uint64_t engine_heuristic_graph_bytes(uint32_t max_bs, uint32_t dp);
uint64_t engine_heuristic_deepep_bytes(engine_a2a a2a);

/* KV cell per token per GPU (MLA, GQA or DeepSeek-V4), including the draft layers under
 * speculation: for a model whose sliding-window layers SGLang pools apart (engine_swa_pool), the bytes per
 * full-attention token with the sliding-window pool's share, F x n_full + r x S x n_swa (DeepSeek-V4:
 * its calculator's bytes per full token, the window of every layer being the SWA share). FULL
 * and SWA (may be NULL) get the two shares. */
uint64_t engine_kv_cell_bytes(const engine_deployment *d);
uint64_t engine_kv_cell_split(const engine_deployment *d, uint64_t *full, uint64_t *swa);
/* r: the sliding-window pool's tokens per full-attention token D's pools are sized with
 * (--swa-full-tokens-ratio; DeepSeek-V4's 0.1 unless given). */
double engine_swa_ratio(const engine_deployment *d);
/* Whether SGLang pools D's sliding-window layers apart, by architecture and release
 * (engine_release_swa_pool: model_config.py is_hybrid_swa_model's list, server_args.py's
 * disable_hybrid_swa_memory writers), unless the disable_hybrid_swa_memory knob. Without a pool
 * the windowed layers hold every token as full ones do: the window saves compute, not memory. */
bool engine_swa_pool(const engine_deployment *d);
/* Why D's sliding-window layers share the full pool (a sentence naming the knob, the release's
 * rule and its PRs); NULL when they get a pool of their own. */
const char *engine_swa_one_pool_why(const engine_deployment *d);

/* SGLang's capped sliding-window pool (SWAChunkCapPoolConfigurator, PR #28755, from v0.5.14:
 * engine_release_swa_chunk_cap). Where it applies the SWA pool is a fixed number of tokens per
 * GPU (per DP rank), cap_tokens, costing swa_token_bytes each (S x n_swa), and the full pool takes
 * the rest of the KV pool at full_token_bytes a token (F x (n_full + draft layers)); elsewhere the
 * pools split at --swa-full-tokens-ratio (engine_kv_cell_split). The parts are kept for messages. */
typedef struct {
    bool applies;
    const char *why_not;        /* the first condition that fails (NULL when it applies) */
    uint64_t cap_tokens;        /* ceil_align(cap, page): the SWA pool's tokens */
    uint64_t swa_token_bytes;   /* one SWA-pool token over the sliding-window layers */
    uint64_t full_token_bytes;  /* one full-pool token over the full-attention (and draft) layers */
    uint64_t fixed_bytes;       /* cap_tokens x swa_token_bytes: taken off the KV pool first */
    uint32_t window;            /* the model's get_attention_sliding_window_size (or attention chunk) */
    uint32_t eviction_interval; /* SGLANG_SWA_EVICTION_INTERVAL's default */
    uint32_t draft_tokens;      /* speculative_num_draft_tokens, 1 without speculation */
    uint32_t page;              /* the resolved backend's page size */
    uint32_t decode_alloc;      /* the decode step's allocation per request */
    uint64_t per_request;       /* window + eviction_interval x draft_tokens + page + decode_alloc */
    uint32_t requests;          /* --max-running-requests // attention DP size */
    uint32_t chunk;             /* chunked_prefill_size (the GPU's default, / dp under DP attention) */
    uint32_t extra_slots;       /* a decode server's disaggregation_decode_extra_slots (default) */
    uint64_t cap_plain;         /* per_request x requests + 2 chunks + page: a server that prefills */
    uint64_t cap_decode;        /* per_request x requests + (window + page) x extra_slots: a decode server */
    bool decode_side;           /* the decode server's cap: decode_server, or not known and it is the larger */
} engine_swa_cap;
engine_swa_cap engine_swa_cap_of(const engine_deployment *d);
/* SGLang's chunked_prefill_size default by GPU memory (server_args.py _handle_gpu_memory_settings). */
uint32_t engine_default_chunked_prefill(double gpu_mib);

/* The bounds every model and deployment keeps so no product the engine forms can wrap
 * (model_check.c says which products): dimensions, counts, byte sizes and coefficients. */
#define ENGINE_DIM_MAX ((uint64_t)1 << 20)   /* hidden, head and intermediate sizes */
#define ENGINE_VOCAB_MAX ((uint64_t)1 << 24) /* 16.7M tokens */
#define ENGINE_COUNT_MAX ((uint64_t)1 << 16) /* heads, layers, experts, top_k */
#define ENGINE_SIZE_MAX ((uint64_t)1 << 50)  /* 1 PiB: any byte size a preset gives */
#define ENGINE_COEF_MAX ((uint64_t)1 << 32)  /* a coefficient (per row, per graph, lazy): 4 GiB */
/* Returns 0, or -1 with "NAME: value too large: FIELD V is above MAX" in ERR, or the relation a
 * model breaks (context_len outside its knob's range, more layer kinds than layers, top_k above
 * the experts): the one check the preset loader, `model import` and `--model CONFIG` share. */
int engine_model_check(const engine_model *m, char *err, size_t errlen);
/* The largest value a calibration may hold for parameter C (a coefficient, or COEF_COUNT for the
 * static intercept): what the estimate's arithmetic is sized for, kept by the fit, the store's
 * save and every load. A per-row or per-graph coefficient is multiplied by rows or graphs, so it
 * keeps ENGINE_COEF_MAX, a preset's bound; one added once (lazy, the draft's base, the static
 * intercept) may absorb a whole layer's unexplained part, so it keeps ENGINE_SIZE_MAX. */
uint64_t engine_calibration_max(int c);
int engine_deployment_check(const engine_deployment *d, char *err, size_t errlen);
/* The all-to-all the plan runs: DeepEP only where the model has routed experts to dispatch
 * (a dense model's --moe-a2a-backend would create no buffer; launch prints none). */
engine_a2a engine_plan_a2a(const engine_deployment *d);
/* The --max-running-requests a plan runs with: the knob, or when auto what launch prints (max_bs
 * per DP rank under DP attention; max_bs for each of dp replicas). */
uint32_t engine_plan_max_running_requests(const engine_knobs_state *k);

/* Fills D with MODEL.md's defaults that presets may omit (dcp 1, other_runtime 1 GiB, ...). */
void engine_deployment_defaults(engine_deployment *d);
/* A plan from a model alone: SGLang's own launch defaults (tp 1, no a2a backend, the release's
 * attention backend, max_dispatch auto; max_bs from the release's GPU tiers, tp and max_bs marked
 * ORIGIN_RELEASE); resolve after the user's settings are applied. */
void engine_deployment_sglang_defaults(engine_deployment *d);
void engine_deployment_resolve_release_knobs(engine_deployment *d);
/* K3's default coefficients (MODEL.md), for models that have none of their own. */
void engine_k3_default_coefficients(uint64_t coef[COEF_COUNT]);

#endif
