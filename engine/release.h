/* release.h — what changed between SGLang releases for resident CUDA-graph memory planning.
 *
 * Pure C11 (libc only): no I/O, no mutable globals; the facts are one const table in release.c,
 * one row per upstream change, each naming its PR and the first release that carries it.
 *
 * Modelled range: v0.3.0 (2024-09-04, the oldest; older text is an error naming it) up to "main",
 * which here means upstream main as of 2026-07-20 (commit 8905cbd42, PR #31837; late enough to
 * have the --cuda-graph-max-bs-decode / --cuda-graph-bs-decode flags of PR #23906, 2026-06-09).
 * main sorts after every v0.5.15.x and before v0.5.16. Releases newer than main parse fine, behave
 * as main and set beyond_model; engine_release_model_note() gives the sentence that says so.
 *
 * Release boundaries were established from the version.py bump commits (<= v0.5.6.post2) and
 * the merge-base of v0.5.13/v0.5.14/v0.5.15 branches with main in a fork carrying upstream history;
 * v0.5.7..v0.5.12 cut points are not in that history and are placed by public release dates
 * (engine_release_fact() reports cut_verified per row). */
#ifndef CGPLAN_RELEASE_H
#define CGPLAN_RELEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A / B (0 for B = 0), a shift when B is a power of two (the usual GPU counts): the estimator
 * divides by layout sizes on every probe of the wall, and a division costs ten times a shift. */
static inline bool engine_is_power_of_two(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static inline uint32_t engine_div_u32(uint32_t a, uint32_t b)
{
    if (b == 0)
        return 0;
    return engine_is_power_of_two(b) ? a >> __builtin_ctz(b) : a / b;
}

/* Stages in version order: rc < final < post < main. */
typedef enum {
    ENGINE_RELEASE_RC = 0,
    ENGINE_RELEASE_FINAL = 1,
    ENGINE_RELEASE_POST = 2,
    ENGINE_RELEASE_MAIN = 3 /* only as 0.5.15 + MAIN: the main snapshot named above */
} engine_release_stage;

#define ENGINE_RELEASE_FACT_FIELDS 64

typedef struct {
    uint16_t major, minor, patch;
    engine_release_stage stage;
    uint16_t number;   /* N of rcN / .postN; 0 otherwise */
    bool beyond_model; /* newer than main@2026-07-20: facts are main's */
    /* The facts table resolved for this release when the value was made (parse, oldest,
     * newest): every estimate asks several of them, and walking the table each time was most
     * of an estimate. A value built by hand has none and is resolved on each query. */
    bool facts_resolved;
    int32_t facts[ENGINE_RELEASE_FACT_FIELDS];
} engine_release;

#define ENGINE_RELEASE_MAIN_DATE "2026-07-20"
#define ENGINE_RELEASE_TEXT_MAX 32
/* Largest batch size the capture list handles; bigger values are dropped with a note. */
#define ENGINE_RELEASE_MAX_BS 65535u

/* Parses "0.3.N" / "0.4.N" / "0.5.N" with an optional leading 'v', an optional ".postN" or "rcN"
 * (a '.' before rc is accepted), or "main" / "main@2026-07-20". Returns 0, or -1 with a sentence in
 * err: unparsable text, or a release older than v0.3.0. */
int engine_release_parse(const char *text, engine_release *out, char *err, size_t errlen);
/* <0, 0, >0 like strcmp; beyond_model is ignored. */
int engine_release_cmp(const engine_release *a, const engine_release *b);
/* "v0.5.3rc2", "v0.4.10.post1", "main@2026-07-20"; truncated to len. */
void engine_release_text(const engine_release *r, char *buf, size_t len);
/* The oldest and newest modelled releases (v0.3.0, main). */
engine_release engine_release_oldest(void);
engine_release engine_release_newest(void);
/* For a release the facts do not reach (newer than main), the sentence that says which modelled
 * release stands in for it ("... newer than the newest modelled release main@2026-07-20: planned
 * as main@2026-07-20"); returns false and writes "" for a modelled one. */
bool engine_release_model_note(const engine_release *r, char *buf, size_t len);

/* Which code builds the default decode capture list. */
typedef enum {
    ENGINE_GRID_RUNNER_V046, /* the runner builds it: v0.3.0 model_runner.init_cuda_graphs, v0.3.1 ..
                              * CudaGraphRunner.__init__, v0.4.2.post2 .. get_batch_sizes_to_capture;
                              * each release's own lists, up to those of v0.4.6 */
    ENGINE_GRID_RUNNER_V047, /* same function, lists of PR #6803 (v0.4.7 .. v0.5.3rc0) */
    ENGINE_GRID_SERVER       /* server_args._generate_cuda_graph_batch_sizes (PR #10372, v0.5.3rc2+) */
} engine_grid_kind;

/* How the default mem_fraction_static is computed (reference/sglang.md §2.2-2.3). */
typedef enum {
    ENGINE_HEURISTIC_TP_FRACTION,      /* v0.3.0 .. v0.4.6.post1: fixed fraction by tp; from v0.4.5.post3
                                        * (G-13 GiB)/G above 80 GiB (engine_release_default_mem_fraction) */
    ENGINE_HEURISTIC_TP_FRACTION_H200, /* v0.4.6.post2 .. v0.4.7: same, H200 relaxed (PR #5893) */
    ENGINE_HEURISTIC_GPU_TIER_RESERVE, /* v0.4.7.post1 .. v0.5.3rc0: per-tier reserve (PR #7054) */
    ENGINE_HEURISTIC_INLINE_FORMULA,   /* v0.5.3rc2 .. v0.5.15: 512 + 1.5 chunk + 2 max_bs ... (PR #10372/#10975) */
    ENGINE_HEURISTIC_RESERVE_METHODS   /* main: reserve_for_graph_mb & co. (PR #30157, 2026-07-07) */
} engine_heuristic_variant;

typedef struct {
    uint32_t max_bs;           /* --cuda-graph-max-bs[-decode]; 0: the release default for the GPU */
    const uint32_t *explicit_bs; /* --cuda-graph-bs[-decode]; NULL or n_explicit 0: none */
    size_t n_explicit;
    bool speculative;          /* any --speculative-algorithm (EAGLE, NEXTN, ...) */
    uint32_t width;            /* tokens per request the decode graph captures (verify: num draft tokens); 0 = 1 */
    uint32_t gpu_mem_mib;      /* nvidia-smi memory.total (min over the box); 0: unknown */
    uint32_t tp_size;          /* 0 = 1 */
    uint32_t dp;               /* attention DP size (dp_size with DP attention, else 1); 0 = 1 */
    uint32_t max_running_requests; /* --max-running-requests; 0: not given */
    uint32_t pool_size;        /* req_to_token_pool.size when known (e.g. from a log); 0: derive it */
    bool require_gathered;     /* require_gathered_buffer(): DP attention, or an a2a backend with attn_tp>1 */
    uint32_t attn_tp;          /* attention TP size (tp/dp with DP attention); 0 = 1 */
    uint32_t attn_cp;          /* --attn-cp-size; 0 = 1 */
    bool tbo;                  /* --enable-two-batch-overlap */
    bool disable_padding;      /* --disable-cuda-graph-padding */
    bool rocm;                 /* is_hip(): v0.4.3 .. v0.4.5.post2 add 168..256 step 8 on AMD GPUs */
} engine_capture_params;

typedef struct {
    uint32_t max_bs;          /* what bounded the list: explicit, release default, or max(explicit) */
    bool max_bs_defaulted;    /* came from the release's GPU tiers */
    uint32_t pool_size;       /* N used by the clamp (after rounding up to mul_base, if the release does) */
    bool pool_defaulted;      /* N derived: 48 under speculation, else the 2048 floor of the default */
    bool clamped_to_pool;     /* sizes above N were dropped (and, from v0.4.0.post1, N added) */
    bool added_pool_minus_one; /* v0.4.0.post1 .. v0.4.6.postN also add N-1 */
    bool appended_max_bs;     /* off-grid max_bs appended (PR #21005) */
    bool extended_to_max_bs;  /* runner era: range(max, max_bs + 1, 16) added (PR #6201) */
    uint32_t mul_base;        /* divisibility base applied; 1: none */
    uint32_t filtered_out;    /* sizes removed by the two-batch-overlap / mul_base filter */
    uint32_t dropped_out_of_range; /* sizes above ENGINE_RELEASE_MAX_BS ignored */
    bool truncated;           /* more sizes than cap: out holds the smallest cap */
    uint64_t written_sum;     /* the sum of the sizes written to out (the estimate's bucket rows) */
    bool capture_fails;       /* nothing survived (assert on an empty capture_bs), or the release's list
                               * cannot be built (v0.4.4.post4 .. v0.4.5 without padding: list + range) */
    bool beyond_model;        /* copied from the release */
    /* What the release could not do with the parameters (the list is built without them): */
    bool no_speculative;      /* no speculative decoding before v0.4.1.post4 (PR #2150) */
    bool no_max_bs_flag;      /* a max_bs below the list's top, but no --cuda-graph-max-bs before v0.3.5 */
    bool no_explicit_flag;    /* explicit sizes, but no --cuda-graph-bs before v0.4.1.post5 (PR #2761) */
    bool max_bs_forced;       /* server_args replaced the max_bs given (4 on small GPUs, min 96 under DP attention) */
} engine_capture_notes;

/* The ascending decode capture list SGLang would use. Writes min(n, cap) sizes and returns n
 * (0 when nothing survives: notes->capture_fails). notes may be NULL. */
size_t engine_release_capture_list(const engine_release *r, const engine_capture_params *p, uint32_t *out,
                                   size_t cap, engine_capture_notes *notes);

/* Graphs share one FP32 logits buffer sized for the largest bucket (PR #8579, v0.4.10.post2);
 * before it every captured size kept its own output. */
bool engine_release_has_shared_logits(const engine_release *r);
/* --cuda-graph-max-bs-decode / --cuda-graph-bs-decode exist (PR #23906, v0.5.14). */
bool engine_release_has_decode_graph_flags(const engine_release *r);
/* Launch flags that older releases lack (argparse refuses a flag it does not know). */
typedef enum {
    ENGINE_FLAG_ATTENTION_BACKEND, /* --attention-backend: v0.3.1 (PR #1380) */
    ENGINE_FLAG_CUDA_GRAPH_MAX_BS, /* --cuda-graph-max-bs: v0.3.5 (PR #1809) */
    ENGINE_FLAG_CUDA_GRAPH_BS,     /* --cuda-graph-bs: v0.4.1.post5 (PR #2761) */
    ENGINE_FLAG_SPECULATIVE,       /* --speculative-algorithm: v0.4.1.post4 (PR #2150) */
    ENGINE_FLAG_DCP_SIZE           /* --dcp-size (decode context parallel): main from 2026-06-24 */
} engine_release_flag;
bool engine_release_has_flag(const engine_release *r, engine_release_flag flag);
engine_heuristic_variant engine_release_heuristic_variant(const engine_release *r);
/* The --max-running-requests an EAGLE-family --speculative-algorithm sets when none is given
 * (server_args.py ServerArgs._handle_speculative_decoding; arg_groups/speculative_hook.py on
 * main): 32 from v0.4.3.post3 (PR #3986), 48 from v0.4.4.post4 (PR #4908); 0 before: no rule. */
uint32_t engine_release_spec_max_running_requests(const engine_release *r);
/* ENGINE_HEURISTIC_TP_FRACTION's default --mem-fraction-static for the GPU (nvidia-smi MiB) and
 * tp x pp: 0.88 / 0.87 / 0.85 / 0.83 (0.82 in v0.3.6, 0.81 from v0.4.0) / 0.79 at tp 1 / 2 / 4 / 8 / 16,
 * and from v0.4.5.post3 (G - 13 GiB) / G above 81,920 MiB. 0 for the later variants, whose
 * fraction comes from a reserve. */
double engine_release_default_mem_fraction(const engine_release *r, uint32_t gpu_mem_mib, uint32_t tp_pp);
/* How speculative (EAGLE-family) decoding captures its graphs. */
typedef enum {
    ENGINE_EAGLE_NONE,          /* no speculative decoding: before v0.4.1.post4 */
    ENGINE_EAGLE_SHARED_RUNNER, /* the draft model's own CudaGraphRunner, one draft step a graph (PR #2150) */
    ENGINE_EAGLE_DRAFT_RUNNER   /* EAGLEDraftCudaGraphRunner: all draft steps in one graph (PR #3269, v0.4.2.post2) */
} engine_eagle_runner;
engine_eagle_runner engine_release_eagle_runner(const engine_release *r);
engine_grid_kind engine_release_grid(const engine_release *r);
/* Speculative add-on (MiB) of the default-fraction heuristic for EAGLE-family algorithms:
 * 2048 (PR #7054), 4096 (PR #19418), 0 once the KV cell size absorbs it (PR #23862);
 * 0 for the tp-fraction variants. */
uint32_t engine_release_eagle_reserve_mib(const engine_release *r);
/* Whether a hybrid linear-attention model keeps the radix cache, its state pool then sized by
 * --mamba-full-memory-ratio (PR #11214, v0.5.3.post2); before it the radix cache is forced off and the
 * pool holds one state per running request. */
bool engine_release_mamba_radix(const engine_release *r);
/* Whether SGLang gives a model's sliding-window layers a pool of their own (SWAKVPool, sized at
 * --swa-full-tokens-ratio) or keeps every layer's KV in one pool, by model family and release. */
typedef enum {
    ENGINE_SWA_FAMILY_OTHER,  /* any model with a sliding window: the generic rule of the release */
    ENGINE_SWA_FAMILY_LLAMA4, /* Llama4ForConditionalGeneration (chunked attention) */
    ENGINE_SWA_FAMILY_GEMMA3, /* Gemma3ForCausalLM / Gemma3ForConditionalGeneration */
    ENGINE_SWA_FAMILY_GPTOSS, /* GptOssForCausalLM */
    ENGINE_SWA_FAMILY_LISTED  /* on is_hybrid_swa_model's list from its first SGLang support (Gemma 4, DSv4, ...) */
} engine_swa_family;
typedef enum {
    ENGINE_SWA_ONE_POOL,                /* windowed layers hold every token in the full pool */
    ENGINE_SWA_POOLED,                  /* a pool of their own */
    ENGINE_SWA_POOLED_UNLESS_TRTLLM_MHA /* a pool of their own unless the attention backend is trtllm_mha */
} engine_swa_pool_rule;
engine_swa_pool_rule engine_release_swa_pool(const engine_release *r, engine_swa_family family);
/* How DeepSeek-V4's KV pools are summed (DSV4PoolConfigurator in model_executor/pool_configurator.py,
 * earlier DSv4MemoryCalculator): engine/dsv4.c follows the release's rule. */
typedef enum {
    ENGINE_DSV4_SUM_ALL_ENTRIES = 0,     /* every compress_ratios entry, MTP layers' too; the c128 ring per token */
    ENGINE_DSV4_SUM_MODEL_LAYERS = 1,    /* PR #25750: compress_ratios[start_layer:end_layer], the model's own */
    ENGINE_DSV4_SUM_DRAFT_SCALED = 2,    /* + PR #23862: x (T + 1) / T under speculation, the draft's pool */
    ENGINE_DSV4_SUM_C128_PER_REQUEST = 3 /* + PR #28612: the c128 state a fixed pool per request slot */
} engine_dsv4_sum;
engine_dsv4_sum engine_release_dsv4_sum(const engine_release *r);
/* Whether SGLANG_OPT_FP8_WO_A_GEMM defaults on (PR #25181): DeepSeek-V4's wo_a then stays FP8 on
 * the GPUs that run it (SM100 / SM103); before it, and elsewhere, it is dequantised to BF16. */
bool engine_release_dsv4_fp8_wo_a(const engine_release *r);
/* Whether SGLang may size a hybrid sliding-window model's SWA pool from a fixed token cap
 * (SWAChunkCapPoolConfigurator, PR #28755, v0.5.14): the conditions and the cap are
 * engine_swa_cap_of's. Before it the pool is always sized at --swa-full-tokens-ratio. */
bool engine_release_swa_chunk_cap(const engine_release *r);
/* FlashAttentionBackend's (fa3, fa4) CUDA-graph state where it changed between releases: a
 * set of ENGINE_FA3_* bits (layers/attention/flashattention_backend.py). */
enum {
    ENGINE_FA3_CAPTURE_COPIES = 1, /* each captured size keeps an indexed copy of its page table (to PR #8567) */
    ENGINE_FA3_DRAFT_TABLE = 2,    /* page_table_draft_decode also without speculation (to PR #9455) */
    ENGINE_FA3_ENCODER_TABLE = 4,  /* the encoder page table also for decoder-only models (to PR #16527) */
    ENGINE_FA3_VERIFY_MASK = 8     /* a preallocated tree-mask scratch for target verify (PR #29589) */
};
uint32_t engine_release_fa3_state(const engine_release *r);
/* The largest decode size the release captures by default on this GPU (dp_size 1; no pool
 * clamp): the tier's max_bs, or before v0.5.3rc2 the --cuda-graph-max-bs server_args sets (160 from
 * v0.3.5 to v0.4.5.post2, the small-GPU values), else the top of the runner-built list (160/256/512,
 * 152 for v0.4.6's speculative list). */
uint32_t engine_release_default_max_bs(const engine_release *r, uint32_t gpu_mem_mib, uint32_t tp,
                                       bool speculative);

/* Facts table access, for listing and tests. */
size_t engine_release_fact_count(void);
/* Row i: its first release, a one-line description and its source; false past the end. */
bool engine_release_fact(size_t i, engine_release *since, const char **what, const char **source,
                         bool *cut_verified);

#endif
