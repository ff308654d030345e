/* release.c — SGLang release facts for decode CUDA-graph planning (see release.h).
 *
 * Sources: sgl-project/sglang history (read in a fork that carries it, modal-projects/sglang).
 * Paths are python/sglang/srt/...; "runner" = model_executor/cuda_graph_runner.py
 * get_batch_sizes_to_capture (v0.4.x-v0.5.x), later runner/base_cuda_graph_runner.py. */
#include "release.h"

#include "engine.h" /* engine_release_default_backend reads the model and the GPU */

#include <stdio.h>
#include <string.h>

/* ---- Versions ---- */

#define REL(mi, pa, st, nu)                                                                                            \
    {                                                                                                                  \
        0, (mi), (pa), (st), (nu), false, false,                                                                       \
        {                                                                                                              \
            0                                                                                                          \
        }                                                                                                              \
    }
#define FINAL ENGINE_RELEASE_FINAL
#define POST ENGINE_RELEASE_POST
#define RC ENGINE_RELEASE_RC

static const engine_release release_oldest = REL(3, 0, FINAL, 0);
static const engine_release release_main = REL(5, 15, ENGINE_RELEASE_MAIN, 0);

static engine_release with_facts(engine_release r);

engine_release engine_release_oldest(void)
{
    return with_facts(release_oldest);
}
engine_release engine_release_newest(void)
{
    return with_facts(release_main);
}

/* One ordered key: major, minor, patch (16 bits each), then the stage; the number breaks ties.
 * The estimator compares a release with every row of the facts table on each estimate. */
static uint64_t release_key(const engine_release *r)
{
    return (uint64_t)r->major << 48 | (uint64_t)r->minor << 32 | (uint64_t)r->patch << 16 |
           ((uint32_t)r->stage & 0xffffu);
}

int engine_release_cmp(const engine_release *a, const engine_release *b)
{
    uint64_t ka = release_key(a), kb = release_key(b);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    if (a->number != b->number)
        return a->number < b->number ? -1 : 1;
    return 0;
}

static void set_err(char *err, size_t errlen, const char *text, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "SGLang release '%s': %s", text, why);
}

/* Reads a decimal number without sign; false if none or it overflows 16 bits. */
static bool read_u16(const char **s, uint16_t *out)
{
    const char *p = *s;
    uint32_t v = 0;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (uint32_t)(*p - '0');
        if (v > 65535)
            return false;
        p++;
    }
    *out = (uint16_t)v;
    *s = p;
    return true;
}

int engine_release_parse(const char *text, engine_release *out, char *err, size_t errlen)
{
    if (!text || !out) {
        set_err(err, errlen, "", "no text");
        return -1;
    }
    if (strcmp(text, "main") == 0 || strcmp(text, "main@" ENGINE_RELEASE_MAIN_DATE) == 0) {
        *out = with_facts(release_main);
        return 0;
    }
    if (strncmp(text, "main", 4) == 0) {
        set_err(err, errlen, text, "only main@" ENGINE_RELEASE_MAIN_DATE " is modelled; give that or a release");
        return -1;
    }
    const char *p = text;
    if (*p == 'v' || *p == 'V')
        p++;
    engine_release r = {0, 0, 0, FINAL, 0, false, false, {0}};
    if (!read_u16(&p, &r.major) || *p++ != '.' || !read_u16(&p, &r.minor) || *p++ != '.' || !read_u16(&p, &r.patch)) {
        set_err(err, errlen, text, "expected MAJOR.MINOR.PATCH[rcN|.postN] or main");
        return -1;
    }
    const char *suffix = p;
    if (*suffix == '.')
        suffix++;
    if (strncmp(suffix, "post", 4) == 0 && *p == '.') {
        p = suffix + 4;
        r.stage = POST;
        if (!read_u16(&p, &r.number)) {
            set_err(err, errlen, text, "'.post' needs a number");
            return -1;
        }
    } else if (strncmp(suffix, "rc", 2) == 0) {
        p = suffix + 2;
        r.stage = RC;
        if (!read_u16(&p, &r.number)) {
            set_err(err, errlen, text, "'rc' needs a number");
            return -1;
        }
    }
    if (*p != '\0') {
        set_err(err, errlen, text, "unexpected text after the version");
        return -1;
    }
    if (engine_release_cmp(&r, &release_oldest) < 0) {
        set_err(err, errlen, text, "older than the oldest modelled release v0.3.0 (2024-09-04)");
        return -1;
    }
    r.beyond_model = engine_release_cmp(&r, &release_main) > 0;
    *out = with_facts(r);
    return 0;
}

void engine_release_text(const engine_release *r, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    if (r->stage == ENGINE_RELEASE_MAIN)
        snprintf(buf, len, "main@%s", ENGINE_RELEASE_MAIN_DATE);
    else if (r->stage == RC)
        snprintf(buf, len, "v%u.%u.%urc%u", r->major, r->minor, r->patch, r->number);
    else if (r->stage == POST)
        snprintf(buf, len, "v%u.%u.%u.post%u", r->major, r->minor, r->patch, r->number);
    else
        snprintf(buf, len, "v%u.%u.%u", r->major, r->minor, r->patch);
}

bool engine_release_model_note(const engine_release *r, char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    if (!r->beyond_model)
        return false;
    if (buf && len) {
        char given[ENGINE_RELEASE_TEXT_MAX], stand_in[ENGINE_RELEASE_TEXT_MAX];
        engine_release_text(r, given, sizeof given);
        engine_release_text(&release_main, stand_in, sizeof stand_in);
        snprintf(buf, len, "SGLang %s is newer than the newest modelled release %s: planned as %s", given, stand_in,
                 stand_in);
    }
    return true;
}

/* ---- Facts: one row per upstream change, applied in order up to the release asked for ---- */

typedef enum {
    RF_GRID,             /* engine_grid_kind */
    RF_PAD_GRID,         /* pad_grid: the runner's default list with padding */
    RF_NOPAD_GRID,       /* nopad_grid: ... with --disable-cuda-graph-padding */
    RF_SPEC_GRID,        /* spec_grid: ... under speculative decoding */
    RF_EAGLE_RUNNER,     /* engine_eagle_runner */
    RF_SPEC_NO_PADDING,  /* EAGLE sets disable_cuda_graph_padding */
    RF_SPEC_MAX_RUNNING, /* max_running_requests EAGLE sets when unset; 0: none */
    RF_POOL_CLAMP,       /* pool_clamp_rule */
    RF_MAXBS_FLAG,       /* --cuda-graph-max-bs exists */
    RF_EXPLICIT_FLAG,    /* --cuda-graph-bs exists */
    RF_BACKEND_FLAG,     /* --attention-backend exists */
    RF_DEFAULT_MAX_BS,   /* cuda_graph_max_bs server_args sets off small GPUs; 0: leaves it unset */
    RF_HIP_TIER,         /* hip_tier_rule: 168..256 step 8 on AMD GPUs */
    RF_SMALL_GPU_BS_LT4, /* small-GPU cuda_graph_max_bs at tp < 4 */
    RF_SMALL_GPU_BS_GE4, /* ... at tp >= 4 */
    RF_SMALL_GPU_FORCED, /* ... replaces a given --cuda-graph-max-bs too */
    RF_DP_ATTN_MAX_BS,   /* DP attention: cuda_graph_max_bs = min(it, this); 0: no cap */
    RF_FRACTION_TP8,     /* tp-fraction heuristic at tp >= 8, thousandths */
    RF_FRACTION_BIG_GPU, /* tp-fraction heuristic: (G - 13 GiB) / G above 81920 MiB */
    RF_RUNNER_MID_MIB,   /* runner grid adds 160..256 step 8 when gpu_mem > this; 0: never */
    RF_RUNNER_MID_DP1,   /* ... and only with dp_size == 1 */
    RF_RUNNER_BIG_MIB,   /* runner grid adds 256..512 step 16 when gpu_mem > this; 0: never */
    RF_SMALL_GPU_MIB,    /* runner era: the small-GPU cuda_graph_max_bs applies below this; 0: never */
    RF_A10_TIER_TP_LT4,  /* server era: max_bs default for 35 GiB-class GPUs at tp<4 */
    RF_SPEC_GRID_64,     /* server spec grid has 64 (range(40, 65, 4)) */
    RF_APPEND_MAX_BS,    /* generator appends an off-grid max_bs */
    RF_POOL_ADD_PREV,    /* pool clamp adds N-1 as well as N */
    RF_MAXBS_RULE,       /* maxbs_rule */
    RF_TBO,              /* tbo_rule */
    RF_GATHERED_MULBASE, /* mul_base *= attn_tp when gathered buffers are required */
    RF_WIDTH_FILTER,     /* filter on (bs * width) % mul_base */
    RF_ATTN_CP,          /* mul_base *= attn_cp when not already a multiple */
    RF_POOL_PAD,         /* N rounded up to mul_base before the clamp */
    RF_POOL_PER_DP,      /* max_running_requests divided by the attention DP size for the pool */
    RF_POOL_EXTRA_ROW,   /* req_to_token_pool.size is max_num_reqs + this */
    RF_SHARED_LOGITS,
    RF_DECODE_FLAGS,
    RF_DCP_FLAG,  /* --dcp-size exists */
    RF_HEURISTIC, /* engine_heuristic_variant */
    RF_EAGLE_RESERVE_MIB,
    RF_FA3_STATE, /* ENGINE_FA3_* bits */
    /* The default attention backend (engine_release_default_backend). */
    RF_ATTN_HOPPER_MHA,      /* hopper_mha_rule: which MHA models fa3 takes on Hopper */
    RF_ATTN_FA3_ARCHS,       /* FA3_ARCH_* bits: is_fa3_default_architecture's list */
    RF_ATTN_HOPPER_MLA,      /* hopper_mla_rule */
    RF_ATTN_SM100_MHA,       /* trtllm_mha is the generic MHA default on SM100 */
    RF_ATTN_DEEPSEEK_SM100,  /* DeepSeek-family MLA models take trtllm_mla on SM100 */
    RF_ATTN_LLAMA4_SM100,    /* Llama 4 takes trtllm_mha on SM100 */
    RF_ATTN_GPTOSS_HIP,      /* gpt-oss takes aiter on ROCm (else triton) */
    RF_ATTN_QWEN3NEXT_SM100, /* Qwen3-Next may take trtllm_mha on SM100 (else triton) */
    RF_ATTN_HIP_MHA,         /* MHA on ROCm: aiter (else "flashinfer if available", i.e. triton) */
    RF_ATTN_HIP_MLA,         /* hip_mla_rule */
    RF_ATTN_SM100_MLA,       /* MLA on SM100: flashinfer (else triton) */
    RF_ATTN_LLAMA4_AUTO,     /* Llama 4's own rule: fa3 / trtllm_mha / aiter, triton elsewhere */
    RF_MAMBA_RADIX,          /* a hybrid linear-attention model may keep the radix cache (its state pool by ratio) */
    RF_ATTN_GEMMA4_SM100,    /* Gemma 4 takes trtllm_mha on SM100 (else triton, as everywhere else) */
    /* Which sliding-window models get a pool of their own (engine_release_swa_pool). */
    RF_SWA_BY_WINDOW, /* any model with a sliding window, unless its own rule turns it off */
    RF_SWA_LLAMA4,    /* Llama 4's chunked layers */
    RF_SWA_GEMMA3,    /* Gemma 3 */
    RF_SWA_GPTOSS,    /* engine_swa_gptoss_rule */
    RF_DSV4_SUM,             /* engine_dsv4_sum: DeepSeek-V4's KV sum */
    RF_DSV4_FP8_WO_A,        /* SGLANG_OPT_FP8_WO_A_GEMM on by default (where the GPU runs it) */
    RF_SWA_CHUNK_CAP,        /* SWAChunkCapPoolConfigurator: the SWA pool from a token cap (engine_swa_cap_of) */
    RF_COUNT
} release_field;
_Static_assert(RF_COUNT <= ENGINE_RELEASE_FACT_FIELDS, "raise ENGINE_RELEASE_FACT_FIELDS");

typedef enum { MAXBS_CUT, MAXBS_CUT_EXTEND16, MAXBS_IN_GENERATOR } maxbs_rule;
/* The runner's lists; each names the range() it writes out. */
typedef enum {
    PAD_1_2_4,  /* [1, 2, 4] + 8..160 step 8 (written [1, 2, 4, 8] + 16..160 from v0.4.4.post4) */
    PAD_1_2_3_4 /* [1, 2, 3, 4] + 8..160 step 8 */
} pad_grid;
typedef enum {
    NOPAD_31,       /* range(1, 32) + [64, 128] */
    NOPAD_32,       /* range(1, 33) + [64, 128] */
    NOPAD_32_160,   /* range(1, 33) + [64, 96, 128, 160] */
    NOPAD_RAISES,   /* list(range(1, 33)) + range(40, 161, 16): a TypeError, no graphs */
    NOPAD_32_40_16, /* 1..32 + 40..160 step 16 */
    NOPAD_32_48_16  /* 1..32 + 48..160 step 16 */
} nopad_grid;
typedef enum {
    SPEC_AS_DEFAULT, /* no list of its own: the padded or unpadded one */
    SPEC_1_32,       /* range(1, 33) */
    SPEC_9_ODD,      /* 1..8 + 9..31 step 2 + [64, 96, 128, 160] */
    SPEC_10_EVEN_40, /* 1..8 + 10..32 step 2 + 40..160 step 16 */
    SPEC_10_EVEN_80  /* 1..8 + 10..32 step 2 + 40, 48, 56 + 80..160 step 16 */
} spec_grid;
/* The clamp to req_to_token_pool.size N: none, drop sizes above N, or also add N (and N-1). */
typedef enum { POOL_NONE, POOL_DROP, POOL_ADD } pool_clamp_rule;
/* is_hip: 168..256 step 8 added after the pool and max_bs filters (explicit lists too), before
 * them (explicit lists too), or to the default list only. */
typedef enum { HIP_TIER_NONE, HIP_TIER_AFTER_CUT, HIP_TIER_BEFORE_CLAMP, HIP_TIER_DEFAULT_LIST } hip_tier_rule;
/* MLA on Hopper: triton, fa3 unless speculation with topk > 1 (or page > 1), fa3. */
typedef enum { HOPPER_MLA_TRITON = 0, HOPPER_MLA_FA3_TOPK1 = 1, HOPPER_MLA_FA3 = 2 } hopper_mla_rule;
typedef enum { TBO_NONE, TBO_AT_LEAST_2, TBO_EVEN, TBO_MULBASE } tbo_rule;
/* fa3 on Hopper for MHA models: only the architectures of utils is_fa3_default_architecture, or
 * every MHA model (PR #17425). */
typedef enum { HOPPER_FA3_NONE = 0, HOPPER_FA3_ALLOWLIST = 1, HOPPER_FA3_ALL = 2 } hopper_mha_rule;
/* is_fa3_default_architecture's members that cgplan models can name, one bit each
 * (fa3_default_archs below). */
enum {
    FA3_ARCH_QWEN2 = 1 << 0,
    FA3_ARCH_LLAMA = 1 << 1,
    FA3_ARCH_LLAMA4 = 1 << 2,
    FA3_ARCH_MISTRAL = 1 << 3,
    FA3_ARCH_GEMMA2 = 1 << 4,
    FA3_ARCH_GEMMA3 = 1 << 5,
    FA3_ARCH_MIXTRAL = 1 << 6,
    FA3_ARCH_QWEN3 = 1 << 7,
    FA3_ARCH_QWEN3_MOE = 1 << 8,
    FA3_ARCH_GLM4_MOE = 1 << 9,
    FA3_ARCH_QWEN3_VL = 1 << 10,
    FA3_ARCH_QWEN3_VL_MOE = 1 << 11
};
/* MLA on ROCm: triton, or aiter for 16 or 128 KV heads per GPU (first only without speculation). */
typedef enum { HIP_MLA_TRITON = 0, HIP_MLA_AITER_NO_SPEC = 1, HIP_MLA_AITER = 2 } hip_mla_rule;
/* gpt-oss's sliding-window pool: off, on unless the backend is trtllm_mha, on. */
typedef enum { SWA_GPTOSS_OFF = 0, SWA_GPTOSS_UNLESS_TRTLLM = 1, SWA_GPTOSS_ON = 2 } swa_gptoss_rule;

typedef struct {
    engine_release since; /* first release carrying the change */
    release_field field;
    int32_t value;
    bool cut_verified; /* since checked by ancestry of the PR commit and the release cut */
    const char *what;
    const char *source;
} release_fact;

/* v0.3.0 rows give the baseline; later rows override one field each. Release cut commits
 * (version.py bumps): v0.3.0 a63c8275c, v0.3.1 e79f6cd73, v0.3.1.post2 5ce55aee1, v0.3.4.post1
 * 1f26e8b8e, v0.3.4.post2 30643fed7, v0.3.5 65859754f, v0.3.5.post1 f407fcf9e, v0.3.5.post2
 * 32c9a7ec1, v0.3.6 9a00e6f45, v0.3.6.post3 fae4e5e99, v0.4.0 f8b032693, v0.4.0.post1 e5f227c0e,
 * v0.4.0.post2 8f4d04e54, v0.4.1.post3 03d5fbfd4, v0.4.1.post4 2f0d38649, v0.4.1.post5 f624901cd,
 * v0.4.2.post1 cf0f7eafe, v0.4.2.post2 7aad8d185, v0.4.2.post4 cddb1cdf8, v0.4.3 e0b9a423c,
 * v0.4.3.post2 a5375adc3, v0.4.3.post3 fc671f66c, v0.4.4 6aaeb8487, v0.4.4.post1 ba80c102f,
 * v0.4.4.post2 1099f6c97, v0.4.4.post3 19e96e592, v0.4.4.post4 35e0856b9, v0.4.5 57f99608f,
 * v0.4.5.post1 5b5c7237c, v0.4.5.post2 fbdc94ba5, v0.4.5.post3 b9c87e781, v0.4.6 84022c0e5,
 * v0.4.6.post1 dcae1fb2c, v0.4.6.post2 9858113c3, v0.4.6.post3 678d8cc98, v0.4.6.post4 16267d4fa,
 * v0.4.6.post5 7e257cd66, v0.4.7 4f723edd3, v0.4.7.post1 f9dc9dd28, v0.4.9 ec5f9c626,
 * v0.4.9.post3 01c000043, v0.4.9.post4 2272c2a5b, v0.4.9.post5 45bc170b3, v0.4.10.post2 8cd344586,
 * v0.5.0rc0 9020f7fc3, v0.5.3rc2 0b13cbb7c, v0.5.3.post2 baf277a9b,
 * v0.5.4.post1 55d75e11b, v0.5.4.post2 41c10e67f, v0.5.6.post1 9a327bdfc, v0.5.6.post2 5c8bd8b51;
 * a row's release is the first cut whose history holds the PR's commit (git merge-base
 * --is-ancestor). Branch cuts (merge-base with main): v0.5.13 0f8673851 (06-08), v0.5.14 7e6587c94
 * (06-23), v0.5.15 9a6f8e599 (07-07). v0.5.7..v0.5.12 have no cut in the history: rows placed there
 * use public dates (v0.5.7 out by 2026-01-05, v0.5.8 by 01-29, v0.5.9 still the latest on 03-30,
 * v0.5.11 on 05-06) and are marked unverified. */
static const release_fact facts[] = {
    {REL(3, 0, FINAL, 0), RF_GRID, ENGINE_GRID_RUNNER_V046, true, "the runner builds the list (up to v0.5.3rc0)",
     "model_executor/model_runner.py init_cuda_graphs at v0.3.0 (a63c8275c)"},
    {REL(3, 0, FINAL, 0), RF_PAD_GRID, PAD_1_2_4, true, "[1, 2, 4] + [i * 8 for i in range(1, 21)]: 23 sizes to 160",
     "model_runner.py init_cuda_graphs at v0.3.0 (a63c8275c)"},
    {REL(3, 0, FINAL, 0), RF_NOPAD_GRID, NOPAD_31, true, "no padding: list(range(1, 32)) + [64, 128]",
     "model_runner.py init_cuda_graphs at v0.3.0 (a63c8275c)"},
    {REL(3, 0, FINAL, 0), RF_SPEC_GRID, SPEC_AS_DEFAULT, true, "no speculative list", "v0.3.0: no speculation"},
    {REL(3, 0, FINAL, 0), RF_EAGLE_RUNNER, ENGINE_EAGLE_NONE, true, "no speculative decoding",
     "server_args.py at v0.3.0: no --speculative-algorithm"},
    {REL(3, 0, FINAL, 0), RF_SPEC_NO_PADDING, 0, true, "(no speculation)", "-"},
    {REL(3, 0, FINAL, 0), RF_SPEC_MAX_RUNNING, 0, true, "(no speculation)", "-"},
    {REL(3, 0, FINAL, 0), RF_POOL_CLAMP, POOL_NONE, true, "no clamp to req_to_token_pool.size",
     "model_runner.py init_cuda_graphs at v0.3.0 (a63c8275c)"},
    {REL(3, 0, FINAL, 0), RF_MAXBS_FLAG, 0, true, "no --cuda-graph-max-bs", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_EXPLICIT_FLAG, 0, true, "no --cuda-graph-bs", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_BACKEND_FLAG, 0, true, "no --attention-backend (--disable-flashinfer for triton)",
     "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_DEFAULT_MAX_BS, 0, true, "(no cuda_graph_max_bs)", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_HIP_TIER, HIP_TIER_NONE, true, "nothing of its own on AMD GPUs",
     "model_runner.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_RUNNER_MID_MIB, 0, true, "no 160..256 tier", "model_runner.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_RUNNER_MID_DP1, 0, true, "(no 160..256 tier)", "-"},
    {REL(3, 0, FINAL, 0), RF_RUNNER_BIG_MIB, 0, true, "no 512 tier", "model_runner.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_SMALL_GPU_MIB, 0, true, "no small-GPU setting", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_SMALL_GPU_BS_LT4, 0, true, "(no small-GPU setting)", "-"},
    {REL(3, 0, FINAL, 0), RF_SMALL_GPU_BS_GE4, 0, true, "(no small-GPU setting)", "-"},
    {REL(3, 0, FINAL, 0), RF_SMALL_GPU_FORCED, 0, true, "(no small-GPU setting)", "-"},
    {REL(3, 0, FINAL, 0), RF_DP_ATTN_MAX_BS, 0, true, "no DP-attention cap", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_A10_TIER_TP_LT4, 16, true, "(server era only)", "-"},
    {REL(3, 0, FINAL, 0), RF_SPEC_GRID_64, 0, true, "(server era only)", "-"},
    {REL(3, 0, FINAL, 0), RF_APPEND_MAX_BS, 0, true, "no append of max_bs", "model_runner.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_POOL_ADD_PREV, 0, true, "(no clamp)", "model_runner.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_MAXBS_RULE, MAXBS_CUT, true, "max_bs only cuts the list", "runner at v0.3.5 .. v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_TBO, TBO_NONE, true, "no two-batch overlap", "runner at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_GATHERED_MULBASE, 0, true, "no attn_tp divisibility filter", "runner at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_WIDTH_FILTER, 0, true, "filter on bs only", "runner at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_ATTN_CP, 0, true, "no attention-CP term", "runner at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_POOL_PAD, 0, true, "pool size used as is", "runner at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_POOL_PER_DP, 0, true, "pool = max_running_requests, undivided",
     "model_runner.py init_memory_pool at v0.4.6"},
    /* ModelRunner.init_memory_pool builds ReqToTokenPool(size=max_num_reqs + 1): read in a
     * v0.3.x-era model_runner.py (disable_mla / double-sparsity branches); still so in the diff
     * of PR #6744 (2025-05-29, after v0.4.6.post5), which reserves (max_num_reqs + 1) rows; the
     * scheduler's "max_running_requests=2049" for the default 2048 requests in a 2025-01 log and
     * at v0.4.3.post4 (tests/fixtures/sglang-logs/27-*.log, 15-*.log) is that size. So the clamp's
     * N-1 and N (PR #2359) are max_num_reqs and max_num_reqs + 1. */
    {REL(3, 0, FINAL, 0), RF_POOL_EXTRA_ROW, 1, true, "req_to_token_pool.size = max_num_reqs + 1",
     "model_runner.py init_memory_pool at v0.3.x; PR #6744 diff (2025-05-29)"},
    {REL(3, 0, FINAL, 0), RF_SHARED_LOGITS, 0, true, "each captured size keeps its own FP32 logits output",
     "cuda_graph_runner.py output_buffers[bs] from v0.3.0 (a63c8275c) to PR #8579"},
    {REL(3, 0, FINAL, 0), RF_DCP_FLAG, 0, true, "no --dcp-size (decode context parallel)", "server_args.py at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_DECODE_FLAGS, 0, true, "no --cuda-graph-max-bs-decode / --cuda-graph-bs-decode",
     "server_args.py before PR #23906"},
    {REL(3, 0, FINAL, 0), RF_HEURISTIC, ENGINE_HEURISTIC_TP_FRACTION, true,
     "fraction by tp: 0.88 / 0.87 / 0.85 / 0.83 / 0.79 at tp 1 / 2 / 4 / 8 / 16",
     "server_args.py __post_init__ at v0.3.0 (a63c8275c)"},
    {REL(3, 0, FINAL, 0), RF_FRACTION_TP8, 830, true, "tp >= 8: 0.83", "server_args.py __post_init__ at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_FRACTION_BIG_GPU, 0, true, "the same fraction on every GPU",
     "server_args.py __post_init__ at v0.3.0"},
    {REL(3, 0, FINAL, 0), RF_EAGLE_RESERVE_MIB, 0, true, "no separate speculative reserve", "server_args.py at v0.4.6"},
    {REL(3, 0, FINAL, 0), RF_FA3_STATE, ENGINE_FA3_CAPTURE_COPIES | ENGINE_FA3_DRAFT_TABLE | ENGINE_FA3_ENCODER_TABLE,
     true, "fa3: per-size page-table copies at capture; draft-decode and encoder page tables always",
     "flashattention_backend.py init_cuda_graph_state / init_forward_metadata_capture_cuda_graph at v0.4.9.post4 "
     "(2272c2a5b)"},
    /* The default attention backend. Before v0.4.5.post1 model_runner.py (and server_args.py
     * __post_init__) give "flashinfer if is_flashinfer_available() else triton", and triton for MLA
     * (read at v0.3.6, v0.4.0, v0.4.3, v0.4.4, v0.4.5). The generic rule is then model_runner.py
     * model_specific_adjustment, later server_args.py _handle_attention_backend_compatibility /
     * _get_default_attn_backend, read in snapshots of 2025-06 .. 2025-11 and at main (8905cbd42); the
     * policy is issue #5064 (2025-04-04). The ROCm, SM100-MLA, Hopper and Llama 4 rows were read at
     * each release's cut; the other baseline rows were not read at each cut and stay unverified. */
    {REL(3, 0, FINAL, 0), RF_ATTN_HOPPER_MHA, HOPPER_FA3_NONE, true, "Hopper MHA: flashinfer (no fa3 backend)",
     "model_runner.py / server_args.py at v0.3.0 .. v0.4.5 (57f99608f)"},
    {REL(3, 0, FINAL, 0), RF_ATTN_FA3_ARCHS, 0, true, "(no is_fa3_default_architecture)", "utils.py at v0.4.5"},
    {REL(3, 0, FINAL, 0), RF_ATTN_HOPPER_MLA, HOPPER_MLA_TRITON, true, "MLA on Hopper: triton",
     "model_runner.py model_specific_adjustment at v0.4.5 (57f99608f): 'triton for mla attention'"},
    {REL(3, 0, FINAL, 0), RF_ATTN_SM100_MHA, 0, false, "SM100 MHA: flashinfer (the generic branch)",
     "_get_default_attn_backend before PR #14291"},
    {REL(3, 0, FINAL, 0), RF_ATTN_DEEPSEEK_SM100, 0, false,
     "DeepSeek-family MLA on SM100: the generic MLA rule (FlashInfer MLA)", "_get_default_attn_backend"},
    {REL(3, 0, FINAL, 0), RF_ATTN_LLAMA4_SM100, 0, false, "Llama 4 on SM100: no model rule (the generic one)",
     "_handle_model_specific_adjustments before PR #12003"},
    {REL(3, 0, FINAL, 0), RF_ATTN_GPTOSS_HIP, 0, false, "gpt-oss off NVIDIA: triton",
     "_handle_model_specific_adjustments GptOssForCausalLM (snapshot of 2025-10/11)"},
    {REL(3, 0, FINAL, 0), RF_ATTN_QWEN3NEXT_SM100, 0, false, "Qwen3-Next on SM100: triton",
     "PR #19030's description: the hybrid Qwen models' default MHA backend on SM100 was triton"},
    {REL(3, 0, FINAL, 0), RF_ATTN_HIP_MHA, 0, true,
     "MHA on ROCm: triton (flashinfer is CUDA-only, is_flashinfer_available)",
     "server_args.py __post_init__ at v0.3.6 .. v0.4.5; model_runner.py model_specific_adjustment at v0.4.6 "
     "(84022c0e5)"},
    {REL(3, 0, FINAL, 0), RF_ATTN_HIP_MLA, HIP_MLA_TRITON, true, "MLA on ROCm: triton",
     "model_runner.py model_specific_adjustment at v0.4.3 .. v0.4.6 (84022c0e5)"},
    {REL(3, 0, FINAL, 0), RF_ATTN_SM100_MLA, 0, true, "MLA on SM100: triton (only Hopper is singled out)",
     "model_runner.py model_specific_adjustment at v0.4.3 .. v0.4.6 (84022c0e5)"},
    {REL(3, 0, FINAL, 0), RF_ATTN_LLAMA4_AUTO, 0, true,
     "Llama 4: no rule of its own (server_args asserts fa3 or aiter, later triton too, is given)",
     "server_args.py model_specific_adjustments at v0.5.1 (97a38ee85)"},
    {REL(3, 0, FINAL, 0), RF_MAMBA_RADIX, 0, false,
     "hybrid linear-attention models: radix cache forced off, max_mamba_cache_size = max_running_requests (512 "
     "unset) // dp",
     "model_runner.py __init__ before PR #11214: 'Hybrid GDN model detected, disable radix cache'"},
    /* Sliding-window pools (SWAKVPool): none before PR #6563; the rows below follow the decision
     * through model_runner.py (is_hybrid from a sliding window, PR #7367 .. #15877), server_args.py's
     * disable_hybrid_swa_memory writers and model_config.py is_hybrid_swa_model's list. */
    {REL(3, 0, FINAL, 0), RF_SWA_BY_WINDOW, 0, true, "no sliding-window pool: every layer holds every token",
     "model_runner.py before PR #7367 (9379da77d)"},
    {REL(3, 0, FINAL, 0), RF_SWA_LLAMA4, 0, true,
     "Llama 4's chunked layers hold every token (a pool of their own only with --hybrid-kvcache-ratio, PR #6563)",
     "model_config.py is_hybrid_model from PR #6563 (eb6c2c166, 2025-06-27): None unless hybrid_kvcache_ratio"},
    {REL(3, 0, FINAL, 0), RF_SWA_GEMMA3, 0, true, "Gemma 3: one pool", "model_runner.py before PR #7367"},
    {REL(3, 0, FINAL, 0), RF_SWA_GPTOSS, SWA_GPTOSS_OFF, true,
     "gpt-oss: one pool (server_args.py sets disable_hybrid_swa_memory)",
     "PR #8839 (8128e08d3, 2025-08-06), in gpt-oss's first release v0.5.0rc0"},

    {REL(3, 0, FINAL, 0), RF_ATTN_GEMMA4_SM100, 0, false,
     "Gemma 4: triton on every GPU (its 512-wide global heads are past fa3's and flashinfer's 256)",
     "PR #25006's description: 'keeps the existing non-SM100 behavior' (triton) as it adds trtllm_mha on SM100"},

    {REL(3, 0, FINAL, 0), RF_DSV4_SUM, ENGINE_DSV4_SUM_ALL_ENTRIES, false,
     "DeepSeek-V4 KV sum over every compress_ratios entry (the MTP layer's too), the c128 compressor ring per "
     "SWA token",
     "DSv4MemoryCalculator.get_bytes_per_full_token of the 0.5.10-era DSv4 code (the H20 log's 15955.85 for "
     "V4-Flash: bench/data/deployments.json dsv4-flash-base-tp8-h20-*)"},
    {REL(3, 0, FINAL, 0), RF_DSV4_FP8_WO_A, 0, false,
     "DeepSeek-V4's wo_a dequantised to BF16 at load (SGLANG_OPT_FP8_WO_A_GEMM off by default)",
     "environ.py EnvBool(False) and models/deepseek_v4.py load_weights _dequant_fp8_wo_a before PR #25181"},
    {REL(3, 0, FINAL, 0), RF_SWA_CHUNK_CAP, 0, true,
     "a sliding-window pool is always sized at --swa-full-tokens-ratio (HybridSWAPoolConfigurator and before it "
     "model_runner's own split)",
     "model_executor/pool_configurator.py create_memory_pool_configurator before PR #28755"},

    {REL(3, 1, FINAL, 0), RF_BACKEND_FLAG, 1, true, "--attention-backend flashinfer | triton",
     "PR #1380 (46094e0c1, 2024-09-10)"},
    {REL(3, 1, POST, 2), RF_POOL_CLAMP, POOL_DROP, true, "sizes above req_to_token_pool.size dropped",
     "PR #1469 (2d346a57c, 2024-09-19), CudaGraphRunner.__init__"},
    {REL(3, 4, POST, 2), RF_PAD_GRID, PAD_1_2_3_4, true, "[1, 2, 3, 4] + 8..160/8", "PR #1772 (05b3bf5e8, 2024-10-23)"},
    {REL(3, 5, FINAL, 0), RF_PAD_GRID, PAD_1_2_4, true, "back to [1, 2, 4] + 8..160/8",
     "PR #1809 (2b8097885, 2024-10-26)"},
    {REL(3, 5, FINAL, 0), RF_MAXBS_FLAG, 1, true, "--cuda-graph-max-bs cuts the list",
     "PR #1809, renamed by PR #1811 (86e0dde55, 2024-10-26)"},
    {REL(3, 5, FINAL, 0), RF_DEFAULT_MAX_BS, 160, true, "cuda_graph_max_bs: int = 160", "PR #1809"},
    {REL(3, 5, POST, 2), RF_SMALL_GPU_MIB, 25000, true, "below 25000 MiB cuda_graph_max_bs = 4, even when given",
     "PR #2044 (b01df48cf, 2024-11-15), server_args.py __post_init__"},
    {REL(3, 5, POST, 2), RF_SMALL_GPU_BS_LT4, 4, true, "small GPU: 4", "PR #2044"},
    {REL(3, 5, POST, 2), RF_SMALL_GPU_BS_GE4, 4, true, "small GPU: 4 at any tp", "PR #2044"},
    {REL(3, 5, POST, 2), RF_SMALL_GPU_FORCED, 1, true, "small GPU: replaces a given --cuda-graph-max-bs", "PR #2044"},
    {REL(3, 6, FINAL, 0), RF_DP_ATTN_MAX_BS, 96, true, "DP attention: cuda_graph_max_bs = min(it, 96)",
     "PR #2061 (62832bb27, 2024-11-18), server_args.py __post_init__"},
    {REL(3, 6, FINAL, 0), RF_FRACTION_TP8, 820, true, "tp >= 8: 0.82", "PR #2053 (f719d9aeb, 2024-11-16)"},
    {REL(4, 0, FINAL, 0), RF_SMALL_GPU_BS_LT4, 8, true, "below 25000 MiB the default is 8 (a given one stays)",
     "PR #2268 (94e167ea5, 2024-11-29); PR #2225 (262e370f7) drops the forced 4"},
    {REL(4, 0, FINAL, 0), RF_SMALL_GPU_BS_GE4, 8, true, "... at any tp", "PR #2268"},
    {REL(4, 0, FINAL, 0), RF_SMALL_GPU_FORCED, 0, true, "... only when unset", "PR #2268"},
    {REL(4, 0, FINAL, 0), RF_FRACTION_TP8, 810, true, "tp >= 8: 0.81", "PR #2325 (3ddb1c467, 2024-12-02)"},
    {REL(4, 0, POST, 1), RF_POOL_CLAMP, POOL_ADD, true, "above the pool: N-1 and N added, larger sizes dropped",
     "PR #2359 (71e2a2775, 2024-12-05)"},
    {REL(4, 0, POST, 1), RF_POOL_ADD_PREV, 1, true, "pool clamp adds N-1 and N", "PR #2359"},
    {REL(4, 0, POST, 1), RF_SMALL_GPU_BS_GE4, 80, true, "small GPU at tp >= 4: 80", "PR #2360 (34b364e07, 2024-12-06)"},
    {REL(4, 0, POST, 2), RF_NOPAD_GRID, NOPAD_32, true, "no padding: range(1, 33) + [64, 128]",
     "PR #2422 (641b7d0ae, 2024-12-09)"},
    {REL(4, 0, POST, 2), RF_DP_ATTN_MAX_BS, 0, true, "no DP-attention cap", "PR #2484 (0ba2c5894, 2024-12-14)"},
    {REL(4, 1, POST, 4), RF_EAGLE_RUNNER, ENGINE_EAGLE_SHARED_RUNNER, true,
     "EAGLE: the target verify and each draft step in CudaGraphRunner (TARGET_VERIFY / topk tokens a request)",
     "PR #2150 (815dce055, 2025-01-02)"},
    {REL(4, 1, POST, 4), RF_SPEC_NO_PADDING, 1, true, "EAGLE sets disable_cuda_graph_padding",
     "PR #2709 (ad20b7957, 2025-01-02), server_args.py __post_init__"},
    {REL(4, 1, POST, 5), RF_EXPLICIT_FLAG, 1, true, "--cuda-graph-bs", "PR #2761 (bdc1acf6c, 2025-01-07)"},
    {REL(4, 2, POST, 2), RF_EAGLE_RUNNER, ENGINE_EAGLE_DRAFT_RUNNER, true, "EAGLEDraftCudaGraphRunner for the draft",
     "PR #3269 (013021b6a, 2025-02-03)"},
    {REL(4, 3, FINAL, 0), RF_HIP_TIER, HIP_TIER_AFTER_CUT, true,
     "AMD: 168..256/8 appended after the pool and max_bs filters",
     "PR #3420 (d81ac4434, 2025-02-11), get_batch_sizes_to_capture"},
    {REL(4, 3, POST, 3), RF_HIP_TIER, HIP_TIER_BEFORE_CLAMP, true, "AMD: 168..256/8 added before the filters",
     "PR #3857 (4606e2a3f, 2025-02-26)"},
    {REL(4, 3, POST, 3), RF_SPEC_GRID, SPEC_1_32, true, "speculative list range(1, 33)",
     "PR #3988 (ac2387279, 2025-03-03)"},
    {REL(4, 3, POST, 3), RF_NOPAD_GRID, NOPAD_32_160, true, "no padding: range(1, 33) + [64, 96, 128, 160]",
     "PR #3988"},
    {REL(4, 3, POST, 3), RF_SPEC_MAX_RUNNING, 32, true, "EAGLE: max_running_requests 32 when unset",
     "PR #3986 (d3d4d7675, 2025-03-05)"},
    {REL(4, 4, POST, 2), RF_SPEC_GRID, SPEC_9_ODD, true, "speculative list 1..8 + 9..31/2 + [64, 96, 128, 160]",
     "PR #4363 (1b859295f, 2025-03-16)"},
    {REL(4, 4, POST, 2), RF_SPEC_NO_PADDING, 0, true, "EAGLE keeps the padding", "PR #4363"},
    {REL(4, 4, POST, 3), RF_HIP_TIER, HIP_TIER_DEFAULT_LIST, true, "AMD: 168..256/8 for the default list only",
     "PR #4638 (17000d2b3, 2025-03-28)"},
    {REL(4, 4, POST, 4), RF_SPEC_GRID, SPEC_10_EVEN_40, true, "speculative list 1..8 + 10..32/2 + 40..160/16",
     "PR #4908 (b26bc86b3, 2025-03-30)"},
    {REL(4, 4, POST, 4), RF_NOPAD_GRID, NOPAD_RAISES, true,
     "no padding: list(range(1, 33)) + range(40, 161, 16) raises a TypeError", "PR #4908"},
    {REL(4, 4, POST, 4), RF_SPEC_MAX_RUNNING, 48, true, "EAGLE: max_running_requests 48 when unset", "PR #4908"},
    {REL(4, 5, POST, 1), RF_NOPAD_GRID, NOPAD_32_40_16, true, "no padding: 1..32 + 40..160/16",
     "PR #5412 (5d1344016, 2025-04-15)"},
    {REL(4, 5, POST, 1), RF_ATTN_HOPPER_MHA, HOPPER_FA3_ALLOWLIST, true,
     "Hopper MHA: fa3 for the is_fa3_default_architecture models without speculation (or topk 1, page 1)",
     "PR #5344 (fa909dc3c, 2025-04-15), model_runner.py model_specific_adjustment; issue #5064"},
    {REL(4, 5, POST, 1), RF_ATTN_FA3_ARCHS, FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_MISTRAL, true,
     "is_fa3_default_architecture: Qwen2, Llama 4, Llama, Mistral", "PR #5344, utils.py"},
    {REL(4, 5, POST, 1), RF_ATTN_HOPPER_MLA, HOPPER_MLA_FA3_TOPK1, true,
     "MLA on Hopper: fa3 without speculation (or topk 1, page 1), else triton",
     "PR #5210 (57de7c6b5, 2025-04-12); PR #5344's is_no_spec_infer_or_topk_one"},
    {REL(4, 5, POST, 3), RF_HIP_TIER, HIP_TIER_NONE, true, "no AMD rule: the memory tier covers MI300",
     "PR #5610 (134320029, 2025-04-21)"},
    {REL(4, 5, POST, 3), RF_RUNNER_MID_MIB, 81920, true, "adds 160..256/8 when gpu_mem > 81920 MiB", "PR #5610"},
    {REL(4, 5, POST, 3), RF_DEFAULT_MAX_BS, 0, true, "cuda_graph_max_bs left unset off small GPUs",
     "PR #5604 (e69a21907, 2025-04-22), server_args.py __post_init__"},
    {REL(4, 5, POST, 3), RF_FRACTION_BIG_GPU, 1, true, "above 81920 MiB: (G - 13 GiB) / G", "PR #5604"},
    {REL(4, 5, POST, 3), RF_ATTN_HOPPER_MLA, HOPPER_MLA_FA3, true, "MLA on Hopper: fa3, speculation or not",
     "PR #5318 (188f0955f, 2025-04-20), model_runner.py model_specific_adjustment"},
    {REL(4, 5, POST, 3), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_MISTRAL | FA3_ARCH_GEMMA2, true, "+ Gemma2",
     "PR #5586 (66c0ff9e3, 2025-04-20)"},
    {REL(4, 6, FINAL, 0), RF_RUNNER_MID_DP1, 1, true, "160..256/8 only with dp_size == 1",
     "PR #5634 (917324862, 2025-04-23)"},
    {REL(4, 6, FINAL, 0), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_MISTRAL | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3, true,
     "+ Gemma3 (Qwen3 not yet)", "PR #5622 (04f2abcb3, 2025-04-22); utils.py at v0.4.6 (84022c0e5)"},
    {REL(4, 6, POST, 1), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_MISTRAL | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3 |
         FA3_ARCH_MIXTRAL | FA3_ARCH_QWEN3 | FA3_ARCH_QWEN3_MOE,
     true, "+ Mixtral, Qwen3, Qwen3-MoE", "PR #5796 (daed453e8, 2025-04-27), PR #5854 (663037a7a, 2025-04-28)"},
    {REL(4, 6, POST, 2), RF_RUNNER_MID_MIB, 96 * 1024, true, "160..256/8 tier moves to gpu_mem > 98304 MiB",
     "PR #5893 (e4b6133b7, 2025-04-30)"},
    {REL(4, 6, POST, 2), RF_RUNNER_MID_DP1, 0, true, "... whatever dp_size", "PR #5893"},
    {REL(4, 6, POST, 2), RF_HEURISTIC, ENGINE_HEURISTIC_TP_FRACTION_H200, true, "fraction relaxed for H200",
     "PR #5893"},
    {REL(4, 6, POST, 4), RF_MAXBS_RULE, MAXBS_CUT_EXTEND16, true,
     "max_bs cuts, then range(max, max_bs + 1, 16) extends", "PR #6201 (fba8eccd7, 2025-05-12)"},
    {REL(4, 6, POST, 4), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_MISTRAL | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3 |
         FA3_ARCH_QWEN3 | FA3_ARCH_QWEN3_MOE,
     true, "- Mixtral", "PR #6191 (e9bebafb1, 2025-05-11)"},
    {REL(4, 6, POST, 5), RF_ATTN_HIP_MHA, 1, true, "MHA on ROCm: aiter",
     "PR #6381 (5c0b38f36, 2025-05-20), model_runner.py model_specific_adjustment"},
    {REL(4, 6, POST, 5), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3 | FA3_ARCH_QWEN3 |
         FA3_ARCH_QWEN3_MOE,
     true, "- Mistral", "PR #6379 (b3f3d610f, 2025-05-17)"},
    {REL(4, 7, FINAL, 0), RF_GRID, ENGINE_GRID_RUNNER_V047, true,
     "spec list 1..8,10..32/2,40,48,56,80..160/16; no padding 1..32,48..160/16", "PR #6803 (20fd53b8f, 2025-06-01)"},
    {REL(4, 7, FINAL, 0), RF_NOPAD_GRID, NOPAD_32_48_16, true, "no padding: 1..32 + 48..160/16", "PR #6803"},
    {REL(4, 7, FINAL, 0), RF_SPEC_GRID, SPEC_10_EVEN_80, true,
     "speculative list 1..8 + 10..32/2 + 40, 48, 56 + 80..160/16", "PR #6803"},
    {REL(4, 7, FINAL, 0), RF_POOL_ADD_PREV, 0, true, "pool clamp adds N only", "PR #6803"},
    /* Read at a June 2025 model_runner.py (it has PR #7023's SM100 MLA default, so v0.4.7's
     * tree): init_memory_pool builds ReqToTokenPool(size=max_num_reqs) (DecodeReqToTokenPool
     * likewise, plus pre_alloc_size), and that pool's free_slots are range(size): N is
     * max_num_reqs. PR #23635 (2026-04-24) keeps size = max_num_reqs with one more row for
     * slot 0, so N stays max_num_reqs on main. The value is read; the cut (between PR #6744
     * and that tree, whose exact commit is not known) is placed with PR #6803. */
    {REL(4, 7, FINAL, 0), RF_POOL_EXTRA_ROW, 0, false, "req_to_token_pool.size = max_num_reqs",
     "model_runner.py init_memory_pool after PR #7023 (6716b4178, 2025-06-09); PR #23635 description"},
    {REL(4, 7, FINAL, 0), RF_RUNNER_BIG_MIB, 180000, true, "adds 256..512/16 when gpu_mem > 180000 MiB",
     "PR #6718 (f2bd3515f, 2025-05-29)"},
    {REL(4, 7, FINAL, 0), RF_TBO, TBO_AT_LEAST_2, true, "two-batch overlap drops bs 1",
     "PR #4068 (0d4778802, 2025-05-25)"},
    {REL(4, 7, FINAL, 0), RF_ATTN_HIP_MLA, HIP_MLA_AITER_NO_SPEC, true,
     "MLA on ROCm: aiter for 16 or 128 KV heads per GPU without speculation, else triton",
     "PR #6838 (b819381fe, 2025-06-05), model_runner.py model_specific_adjustment"},
    {REL(4, 7, FINAL, 0), RF_ATTN_SM100_MLA, 1, true, "MLA on SM100: flashinfer",
     "PR #7023 (6716b4178, 2025-06-09), model_runner.py model_specific_adjustment"},
    {REL(4, 7, POST, 1), RF_RUNNER_MID_MIB, 90 * 1024, true, "160..256/8 tier at gpu_mem > 92160 MiB",
     "PR #7053 (4a102a2b0, 2025-06-10)"},
    {REL(4, 7, POST, 1), RF_RUNNER_BIG_MIB, 160000, true, "256..512/16 tier at gpu_mem > 160000 MiB", "PR #7053"},
    {REL(4, 7, POST, 1), RF_SMALL_GPU_MIB, 35 * 1024, true, "small-GPU max_bs default below 35840 MiB",
     "PR #7054 (6b12d6a8d, 2025-06-10)"},
    {REL(4, 7, POST, 1), RF_HEURISTIC, ENGINE_HEURISTIC_GPU_TIER_RESERVE, true, "per-GPU-tier reserve", "PR #7054"},
    {REL(4, 7, POST, 1), RF_EAGLE_RESERVE_MIB, 2048, true, "+2048 MiB for EAGLE-family speculation", "PR #7054"},
    {REL(4, 9, FINAL, 0), RF_TBO, TBO_EVEN, true, "two-batch overlap keeps even sizes",
     "PR #7569 (3d7cdb2eb, 2025-06-27)"},
    {REL(4, 9, POST, 3), RF_SWA_BY_WINDOW, 1, true,
     "a model with a sliding window (not Llama 4) pools its windowed layers at --swa-full-tokens-ratio",
     "PR #7367 (9379da77d, 2025-07-13), model_runner.py __init__ / set_num_token_hybrid"},
    {REL(4, 9, POST, 3), RF_SWA_GEMMA3, 1, true, "Gemma 3 pooled by its window", "PR #7367 (9379da77d)"},
    {REL(4, 9, POST, 4), RF_TBO, TBO_MULBASE, true, "two-batch overlap folded into mul_base (x2)",
     "PR #8280 (c0fb25e94, 2025-07-24)"},
    {REL(4, 9, POST, 4), RF_GATHERED_MULBASE, 1, true, "bs % (2 if tbo) * attn_tp when gathered buffers", "PR #8280"},
    {REL(4, 9, POST, 5), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3 | FA3_ARCH_QWEN3 |
         FA3_ARCH_QWEN3_MOE | FA3_ARCH_GLM4_MOE,
     true, "+ GLM-4.5 (Glm4MoeForCausalLM)", "PR #8224 (6d6a8bc27, 2025-07-28)"},
    {REL(4, 10, POST, 2), RF_SHARED_LOGITS, 1, true, "graphs write one next_token_logits buffer",
     "PR #8579 (cb099d209, 2025-08-03)"},
    {REL(4, 10, POST, 2), RF_FA3_STATE, ENGINE_FA3_DRAFT_TABLE | ENGINE_FA3_ENCODER_TABLE, true,
     "fa3: capture binds slices of the page tables instead of indexed copies", "PR #8567 (7a9133014, 2025-08-03)"},
    {REL(5, 0, RC, 0), RF_SWA_GEMMA3, 0, true, "Gemma 3: disable_hybrid_swa_memory (CUDA illegal memory access)",
     "PR #8895 (c36a6693f, 2025-08-07), server_args.py _handle_model_specific_adjustments"},
    {REL(5, 1, FINAL, 0), RF_FA3_STATE, ENGINE_FA3_ENCODER_TABLE, true,
     "fa3: page_table_draft_decode only with speculation", "PR #9455 (cded039b5, 2025-08-21)"},
    {REL(5, 3, RC, 2), RF_GRID, ENGINE_GRID_SERVER, true,
     "server_args generator {1,2,4,8,12}+16..256/8+272..496/16+512../32; spec 1..8,10..32/2,40..60/4,"
     "72..256/8,272../16; max_bs from GPU tiers",
     "PR #10372 (05a352665, 2025-09-26), _handle_gpu_memory_settings / _generate_cuda_graph_batch_sizes"},
    {REL(5, 3, RC, 2), RF_MAXBS_RULE, MAXBS_IN_GENERATOR, true, "max_bs bounds the generator only", "PR #10372"},
    {REL(5, 3, RC, 2), RF_HEURISTIC, ENGINE_HEURISTIC_INLINE_FORMULA, true,
     "512 + 1.5 max(chunk, 2048) + 2 max_bs + tp*pp/8 GiB (+DP terms), 10 GiB floor",
     "PR #10372, PR #10975 (a17e70f5c, 2025-09-29)"},
    {REL(5, 3, RC, 2), RF_ATTN_HIP_MLA, HIP_MLA_AITER, true,
     "MLA on ROCm: aiter for 16 or 128 KV heads per GPU, speculation or not",
     "PR #11161 (b00a0c786, 2025-10-03), model_runner.py model_specific_adjustment"},
    /* v0.5.3.post2 alone shipped mamba_full_memory_ratio 0.2 (PR #11214's default; 0.9 from PR #11679,
     * 97d857c09, in v0.5.3.post3): not modelled, the knob's 0.9 is used. */
    {REL(5, 3, POST, 2), RF_MAMBA_RADIX, 1, true,
     "hybrid GDN models keep the radix cache: the state pool takes mamba_full_memory_ratio of the rest",
     "PR #11214 (a55cf5304, 2025-10-13), model_runner.py handle_max_mamba_cache; Mamba2 models keep "
     "'model detected, disable radix cache'"},
    {REL(5, 4, POST, 1), RF_A10_TIER_TP_LT4, 24, true, "35 GiB-class tp<4 default max_bs 16 -> 24",
     "PR #12124 (4caca1ba0, 2025-10-25)"},
    {REL(5, 4, POST, 1), RF_ATTN_LLAMA4_SM100, 1, false, "Llama 4 on SM100: trtllm_mha",
     "PR #12003 (2025-10-23), _handle_model_specific_adjustments"},
    {REL(5, 4, POST, 1), RF_ATTN_DEEPSEEK_SM100, 1, false,
     "DeepseekV3ForCausalLM (DeepSeek V3/R1, Kimi K2; main adds KimiK25) on SM100: trtllm_mla",
     "_handle_model_specific_adjustments, read in a server_args.py between PR #12003 and PR #13421 "
     "(2025-10/11); the PR that added it was not found: older releases take the generic MLA rule"},
    {REL(5, 4, POST, 2), RF_SPEC_GRID_64, 1, true, "spec grid 40..64/4 (adds 64)", "PR #12002 (750940ae3, 2025-10-29)"},
    {REL(5, 6, FINAL, 0), RF_ATTN_LLAMA4_AUTO, 1, true,
     "Llama 4: trtllm_mha on SM100, fa3 on Hopper, aiter on ROCm, triton on every other GPU",
     "PR #13421 (fcccaf900, 2025-11-25, in the v0.5.6 bump 7ae368efd), _handle_model_specific_adjustments; main: "
     "arg_groups/overrides.py _llama4_overrides"},
    {REL(5, 6, POST, 2), RF_ATTN_FA3_ARCHS,
     FA3_ARCH_QWEN2 | FA3_ARCH_LLAMA | FA3_ARCH_LLAMA4 | FA3_ARCH_GEMMA2 | FA3_ARCH_GEMMA3 | FA3_ARCH_QWEN3 |
         FA3_ARCH_QWEN3_MOE | FA3_ARCH_GLM4_MOE | FA3_ARCH_QWEN3_VL | FA3_ARCH_QWEN3_VL_MOE,
     true, "+ Qwen3-VL, Qwen3-VL-MoE", "PR #14634 (8810152e8, 2025-12-09)"},
    {REL(5, 6, POST, 2), RF_ATTN_SM100_MHA, 1, false,
     "SM100 MHA: trtllm_mha (page 64) without speculation or with eagle topk 1 and page size 1",
     "PR #14291 (2025-12-02), _get_default_attn_backend; v0.5.6.post2's bump (5c8bd8b51, 2025-12-11) follows "
     "it, the v0.5.6 and .post1 cuts are not established"},
    {REL(5, 7, FINAL, 0), RF_SWA_BY_WINDOW, 0, false,
     "a sliding window alone no longer makes a pool: only model_config.py's hybrid architectures",
     "PR #15877 (3de23274e, 2025-12-30), model_runner.py"},
    {REL(5, 8, FINAL, 0), RF_SWA_LLAMA4, 1, false, "Llama 4's chunked layers pooled at --swa-full-tokens-ratio (0.8)",
     "PR #16399 (3aa11ca72, 2026-01-06): is_hybrid_swa_model lists Llama4ForConditionalGeneration, "
     "--hybrid-kvcache-ratio removed"},
    {REL(5, 8, FINAL, 0), RF_SWA_GPTOSS, SWA_GPTOSS_UNLESS_TRTLLM, false,
     "gpt-oss pooled, except with trtllm_mha (its default on SM100)",
     "PR #17261 (e499258e9, 2026-01-18) and PR #17429 (ce2d686e9, 2026-01-20); PR #17517 turned it off under "
     "speculation for three days until PR #17630 (2026-01-25), not modelled"},
    {REL(5, 8, FINAL, 0), RF_FA3_STATE, 0, false, "fa3: encoder page table only for encoder-decoder models",
     "PR #16527 (4c85f9d03, 2026-01-06)"},
    {REL(5, 8, FINAL, 0), RF_WIDTH_FILTER, 1, false, "filter on (bs * tokens per request) % mul_base",
     "PR #16961 (d2105d4ab, 2026-01-19)"},
    {REL(5, 8, FINAL, 0), RF_ATTN_HOPPER_MHA, HOPPER_FA3_ALL, false, "Hopper MHA: fa3 for every MHA model",
     "PR #17425 (2026-01-20, after flashinfer 0.6.1's Hopper regression, issue #17411), _get_default_attn_backend"},
    {REL(5, 9, FINAL, 0), RF_ATTN_CP, 1, false, "mul_base *= attn_cp when not a multiple",
     "PR #17213 (8b4c36496, 2026-02-13)"},
    {REL(5, 10, FINAL, 0), RF_EAGLE_RESERVE_MIB, 4096, false, "speculative reserve 2048 -> 4096 MiB",
     "PR #19418 (e55e65535, 2026-02-26)"},
    {REL(5, 10, FINAL, 0), RF_SWA_GPTOSS, SWA_GPTOSS_ON, false, "gpt-oss pooled with trtllm_mha too",
     "PR #19079 (35ef38c61, 2026-02-28) after trtllm_mha learnt SWA (PR #18970)"},
    {REL(5, 10, FINAL, 0), RF_POOL_PER_DP, 1, false, "pool = max_running_requests // attention DP size",
     "PR #20063 (ddcecdea4, 2026-03-06)"},
    {REL(5, 10, FINAL, 0), RF_POOL_PAD, 1, false, "N rounded up to mul_base before the clamp",
     "PR #20978 (343998865, 2026-03-22)"},
    {REL(5, 10, FINAL, 0), RF_APPEND_MAX_BS, 1, false, "generator appends max_bs when off-grid",
     "PR #21005 (9191b02ed, 2026-03-31)"},
    {REL(5, 10, FINAL, 0), RF_ATTN_QWEN3NEXT_SM100, 1, false,
     "Qwen3-Next on SM100: trtllm_mha (page 64) where the generic rule gives it and speculation (or "
     "extra_buffer, or no radix cache) allows, else triton (page 1)",
     "PR #19030 (opened 2026-02-19, approved 03-02), _handle_model_specific_adjustments; main: "
     "arg_groups/model_overrides/qwen3_5.py"},
    {REL(5, 12, FINAL, 0), RF_ATTN_GEMMA4_SM100, 1, false, "Gemma 4 on SM100: trtllm_mha (triton elsewhere)",
     "PR #25006 (merged 2026-05-11; placed by date after v0.5.11, out on 05-06); main: "
     "arg_groups/model_overrides/gemma4.py _gemma4_overrides (18d17a78a)"},
    {REL(5, 13, FINAL, 0), RF_DSV4_FP8_WO_A, 1, false,
     "DeepSeek-V4's wo_a stays FP8 on SM100 / SM103 (SGLANG_OPT_FP8_WO_A_GEMM on by default; server_args turns "
     "it off below SM100, PR #28983 of 2026-06-23 keeps SM90 opt-in; SM120 and ROCm forced off)",
     "PR #25181 (merged 2026-05-14); placed at the first cut known to follow it (v0.5.13, 06-08): v0.5.12's "
     "date is not known"},
    {REL(5, 13, FINAL, 0), RF_DSV4_SUM, ENGINE_DSV4_SUM_MODEL_LAYERS, false,
     "DeepSeek-V4 KV sum over the model's own layers: compress_ratios[start_layer:end_layer] (the MTP entry out)",
     "PR #25750 (merged 2026-05-19), pool_configurator.py DSV4PoolConfigurator; placed at the first cut known "
     "to follow it (v0.5.13, 06-08): v0.5.12's date is not known"},
    {REL(5, 14, FINAL, 0), RF_DECODE_FLAGS, 1, true, "--cuda-graph-max-bs-decode / --cuda-graph-bs-decode",
     "PR #23906 (2495c02c2, 2026-06-09)"},
    {REL(5, 14, FINAL, 0), RF_DSV4_SUM, ENGINE_DSV4_SUM_DRAFT_SCALED, true,
     "DeepSeek-V4 under speculation: bytes_per_full_token x (target layers + 1) / target layers for the draft "
     "worker's pool (DSV4PoolConfigurator; PR #28219 of 06-15 names it among the paths #23862 scaled)",
     "PR #23862 (75998d042, 2026-06-12)"},
    {REL(5, 14, FINAL, 0), RF_EAGLE_RESERVE_MIB, 0, true, "speculative reserve removed (KV cell size scaled)",
     "PR #23862 (75998d042, 2026-06-12)"},
    {REL(5, 14, FINAL, 0), RF_SWA_CHUNK_CAP, 1, true,
     "with an explicit --max-running-requests, the radix cache off (--disable-radix-cache, or a PD decode server) "
     "and a chunked prefill size, a hybrid sliding-window model's SWA pool is a fixed token cap (window + "
     "eviction interval x draft tokens + page + decode allocation per running request per DP rank, + the chunks "
     "in flight or a decode server's extra slots) and the full pool takes the rest",
     "PR #28755 (6d4ca9bc5, 2026-06-21), pool_configurator.py SWAChunkCapPoolConfigurator; in the v0.5.14 cut "
     "(7e6587c94), not the v0.5.13 one (0f8673851)"},
    {REL(5, 15, FINAL, 0), RF_DSV4_SUM, ENGINE_DSV4_SUM_C128_PER_REQUEST, false,
     "DeepSeek-V4: the c128 compressor state per request slot, a fixed pool off the per-token sum "
     "(c128_state_fixed)",
     "PR #28612 (opened 2026-06-18; PR #30313 of 07-07 finds it merged), pool_configurator.py "
     "_get_c128_state_fixed_bytes; placed at v0.5.15 (cut 07-07): whether it beat the v0.5.14 cut (06-23) is not "
     "known. Check: V4-Pro at ratio 0.15 logs 13735.04 B a full token and c128_state_fixed=1.01 GB (v0.5.15.post1)"},
    {REL(5, 15, ENGINE_RELEASE_MAIN, 0), RF_DCP_FLAG, 1, true, "--dcp-size (decode context parallel)",
     "server_args.py dcp_size on main from 2026-06-24 (after the v0.5.15 cut); docs: PR #34654"},
    {REL(5, 15, ENGINE_RELEASE_MAIN, 0), RF_HEURISTIC, ENGINE_HEURISTIC_RESERVE_METHODS, true,
     "reserve_for_graph_mb / reserve_for_deepep_a2a_mb", "PR #30157 (2ad9a243f, 2026-07-07, after the v0.5.15 cut)"},
    {REL(5, 15, ENGINE_RELEASE_MAIN, 0), RF_FA3_STATE, ENGINE_FA3_VERIFY_MASK, true,
     "fa3: target verify preallocates a bool tree mask of max_num_tokens x (context_len + draft tokens)",
     "PR #29589 (2ab531cfc, 2026-07-13, after the v0.5.15 cut)"},
    {REL(5, 15, ENGINE_RELEASE_MAIN, 0), RF_ATTN_GPTOSS_HIP, 1, false, "gpt-oss on ROCm: aiter",
     "main (8905cbd42): GptOssForCausalLM accepts aiter; the registry's _gpt_oss_overrides picks it; "
     "absent in the 2025-10/11 snapshot, placed at main (the PR was not found)"},
};

size_t engine_release_fact_count(void)
{
    return sizeof facts / sizeof facts[0];
}

bool engine_release_fact(size_t i, engine_release *since, const char **what, const char **source, bool *cut_verified)
{
    if (i >= engine_release_fact_count())
        return false;
    if (since)
        *since = facts[i].since;
    if (what)
        *what = facts[i].what;
    if (source)
        *source = facts[i].source;
    if (cut_verified)
        *cut_verified = facts[i].cut_verified;
    return true;
}

/* The field values in force at release r (a newer-than-modelled release gets main's). */
static void resolve(const engine_release *r, int32_t v[RF_COUNT])
{
    engine_release at = *r;
    if (engine_release_cmp(&at, &release_main) > 0)
        at = release_main;
    for (size_t i = 0; i < engine_release_fact_count(); i++)
        if (engine_release_cmp(&facts[i].since, &at) <= 0)
            v[facts[i].field] = facts[i].value;
}

/* R's facts: the ones resolved when R was made, else resolved into SCRATCH now. */
static const int32_t *facts_of(const engine_release *r, int32_t scratch[RF_COUNT])
{
    if (r->facts_resolved)
        return r->facts;
    memset(scratch, 0, RF_COUNT * sizeof scratch[0]);
    resolve(r, scratch);
    return scratch;
}

/* Fills R's resolved facts (a value that leaves this module carries them). */
static engine_release with_facts(engine_release r)
{
    memset(r.facts, 0, sizeof r.facts);
    r.facts_resolved = false;
    resolve(&r, r.facts);
    r.facts_resolved = true;
    return r;
}

static int32_t fact(const engine_release *r, release_field f)
{
    int32_t scratch[RF_COUNT];
    return facts_of(r, scratch)[f];
}

bool engine_release_has_shared_logits(const engine_release *r)
{
    return fact(r, RF_SHARED_LOGITS) != 0;
}
bool engine_release_has_decode_graph_flags(const engine_release *r)
{
    return fact(r, RF_DECODE_FLAGS) != 0;
}
bool engine_release_has_flag(const engine_release *r, engine_release_flag flag)
{
    switch (flag) {
    case ENGINE_FLAG_ATTENTION_BACKEND:
        return fact(r, RF_BACKEND_FLAG) != 0;
    case ENGINE_FLAG_CUDA_GRAPH_MAX_BS:
        return fact(r, RF_MAXBS_FLAG) != 0;
    case ENGINE_FLAG_CUDA_GRAPH_BS:
        return fact(r, RF_EXPLICIT_FLAG) != 0;
    case ENGINE_FLAG_SPECULATIVE:
        return fact(r, RF_EAGLE_RUNNER) != ENGINE_EAGLE_NONE;
    case ENGINE_FLAG_DCP_SIZE:
        return fact(r, RF_DCP_FLAG) != 0;
    }
    return false;
}
engine_heuristic_variant engine_release_heuristic_variant(const engine_release *r)
{
    return (engine_heuristic_variant)fact(r, RF_HEURISTIC);
}
uint32_t engine_release_spec_max_running_requests(const engine_release *r)
{
    return (uint32_t)fact(r, RF_SPEC_MAX_RUNNING);
}

engine_grid_kind engine_release_grid(const engine_release *r)
{
    return (engine_grid_kind)fact(r, RF_GRID);
}
bool engine_release_mamba_radix(const engine_release *r)
{
    return fact(r, RF_MAMBA_RADIX) != 0;
}
engine_swa_pool_rule engine_release_swa_pool(const engine_release *r, engine_swa_family family)
{
    switch (family) {
    case ENGINE_SWA_FAMILY_LLAMA4:
        return fact(r, RF_SWA_LLAMA4) ? ENGINE_SWA_POOLED : ENGINE_SWA_ONE_POOL;
    case ENGINE_SWA_FAMILY_GEMMA3:
        return fact(r, RF_SWA_GEMMA3) ? ENGINE_SWA_POOLED : ENGINE_SWA_ONE_POOL;
    case ENGINE_SWA_FAMILY_GPTOSS:
        switch (fact(r, RF_SWA_GPTOSS)) {
        case SWA_GPTOSS_UNLESS_TRTLLM:
            return ENGINE_SWA_POOLED_UNLESS_TRTLLM_MHA;
        case SWA_GPTOSS_ON:
            return ENGINE_SWA_POOLED;
        default:
            return ENGINE_SWA_ONE_POOL;
        }
    case ENGINE_SWA_FAMILY_LISTED:
        return ENGINE_SWA_POOLED;
    case ENGINE_SWA_FAMILY_OTHER:
        break;
    }
    return fact(r, RF_SWA_BY_WINDOW) ? ENGINE_SWA_POOLED : ENGINE_SWA_ONE_POOL;
}
engine_dsv4_sum engine_release_dsv4_sum(const engine_release *r)
{
    return (engine_dsv4_sum)fact(r, RF_DSV4_SUM);
}
bool engine_release_dsv4_fp8_wo_a(const engine_release *r)
{
    return fact(r, RF_DSV4_FP8_WO_A) != 0;
}
bool engine_release_swa_chunk_cap(const engine_release *r)
{
    return fact(r, RF_SWA_CHUNK_CAP) != 0;
}
uint32_t engine_release_eagle_reserve_mib(const engine_release *r)
{
    return (uint32_t)fact(r, RF_EAGLE_RESERVE_MIB);
}
uint32_t engine_release_fa3_state(const engine_release *r)
{
    return (uint32_t)fact(r, RF_FA3_STATE);
}
engine_eagle_runner engine_release_eagle_runner(const engine_release *r)
{
    return (engine_eagle_runner)fact(r, RF_EAGLE_RUNNER);
}

/* server_args.py __post_init__ "Set mem fraction static" at v0.3.0 .. v0.4.6.post1: by tp_size
 * alone (v0.4.6.post2's PR #5893 brings tp x pp and the H200 branch, another variant). */
double engine_release_default_mem_fraction(const engine_release *r, uint32_t gpu_mem_mib, uint32_t tp)
{
    int32_t scratch[RF_COUNT];
    const int32_t *v = facts_of(r, scratch);
    if (v[RF_HEURISTIC] != ENGINE_HEURISTIC_TP_FRACTION)
        return 0;
    if (v[RF_FRACTION_BIG_GPU] && gpu_mem_mib > 81920) /* "FIXME: more fine grained auto-selection polices" */
        return ((double)gpu_mem_mib - 1024.0 * 13) / (double)gpu_mem_mib;
    if (tp >= 16)
        return 0.79;
    if (tp >= 8)
        return v[RF_FRACTION_TP8] / 1000.0;
    if (tp >= 4)
        return 0.85;
    return tp >= 2 ? 0.87 : 0.88;
}

/* ---- Default attention backend ---- */

static bool arch_is(const engine_model *m, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m->architecture, names[i]) == 0)
            return true;
    return false;
}
#define ARCH_IS(m, list) arch_is((m), (list), sizeof(list) / sizeof(list)[0])

/* utils is_fa3_default_architecture's members that cgplan models can name (the Olmo, GLM-V,
 * Step and MiMo entries of main are of models without a preset); which of them a release lists is
 * its RF_ATTN_FA3_ARCHS row. */
static const struct {
    const char *architecture;
    uint32_t bit;
} fa3_default_archs[] = {
    {"Qwen2ForCausalLM", FA3_ARCH_QWEN2},
    {"LlamaForCausalLM", FA3_ARCH_LLAMA},
    {"Llama4ForConditionalGeneration", FA3_ARCH_LLAMA4},
    {"MistralForCausalLM", FA3_ARCH_MISTRAL},
    {"Gemma2ForCausalLM", FA3_ARCH_GEMMA2},
    {"Gemma3ForConditionalGeneration", FA3_ARCH_GEMMA3},
    {"MixtralForCausalLM", FA3_ARCH_MIXTRAL},
    {"Qwen3ForCausalLM", FA3_ARCH_QWEN3},
    {"Qwen3MoeForCausalLM", FA3_ARCH_QWEN3_MOE},
    {"Glm4MoeForCausalLM", FA3_ARCH_GLM4_MOE},
    {"Qwen3VLForConditionalGeneration", FA3_ARCH_QWEN3_VL},
    {"Qwen3VLMoeForConditionalGeneration", FA3_ARCH_QWEN3_VL_MOE},
};

static bool is_fa3_default_architecture(const int32_t *v, const engine_model *m)
{
    for (size_t i = 0; i < sizeof fa3_default_archs / sizeof fa3_default_archs[0]; i++)
        if (strcmp(m->architecture, fa3_default_archs[i].architecture) == 0)
            return ((uint32_t)v[RF_ATTN_FA3_ARCHS] & fa3_default_archs[i].bit) != 0;
    return false;
}
/* _handle_model_specific_adjustments' DeepSeek branch without DSA (main adds KimiK25). */
static const char *const deepseek_mla_archs[] = {"DeepseekV3ForCausalLM", "KimiK25ForConditionalGeneration"};
/* is_deepseek_nsa / is_deepseek_dsa: DeepSeek V3.2 and GLM-5 attend through the sparse indexer. */
static const char *const dsa_archs[] = {"DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"};
static const char *const llama4_archs[] = {"Llama4ForConditionalGeneration", "Llama4ForCausalLM"};
static const char *const gpt_oss_archs[] = {"GptOssForCausalLM"};
static const char *const qwen3_next_archs[] = {"Qwen3NextForCausalLM"};
static const char *const gemma4_archs[] = {"Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
                                           "Gemma4UnifiedForConditionalGeneration"};

uint32_t engine_backend_page_size(engine_backend backend, uint32_t requested)
{
    switch (backend) {
    case BACKEND_TRTLLM_MHA: /* "TensorRT-LLM MHA only supports page_size of 16, 32 or 64" */
        return requested == 16 || requested == 32 || requested == 64 ? requested : 64;
    case BACKEND_TRTLLM_MLA: /* "... only supports page_size of 32 or 64" */
        return requested == 32 || requested == 64 ? requested : 64;
    case BACKEND_FLASHMLA: /* "FlashMLA only supports a page_size of 64" */
        return 64;
    case BACKEND_CUTLASS_MLA: /* "Cutlass MLA only supports a page_size of 128" */
        return 128;
    case BACKEND_NSA: /* the DSA models' branch: "Setting page size to 64 for DeepSeek NSA/DSA" */
        return 64;
    case BACKEND_DSV4: /* DeepseekV4AttnBackend asserts page_size == 256 ("the system hardcodes") */
        return 256;
    default:
        return requested ? requested : 1; /* _handle_page_size: None -> 1 */
    }
}

/* SGLang's platform checks (utils/common.py at main 8905cbd42; the same majors in layers/utils.py
 * and utils.py of the 2025 releases): Hopper is is_hopper_with_cuda_12_3 (major 9),
 * is_sm100_supported takes major 10 (B200, GB200 and the SM103 B300, GB300), and everything else on
 * NVIDIA (Turing, Ampere, Ada, the major-12 consumer Blackwell and DGX Spark) falls to the generic
 * branches. */
static bool is_hopper(engine_gpu_arch arch)
{
    return arch == GPU_ARCH_SM90;
}

static bool is_sm100(engine_gpu_arch arch)
{
    return arch == GPU_ARCH_SM100 || arch == GPU_ARCH_SM103;
}

/* is_hip: any AMD part. SGLang builds its ROCm kernels for gfx942 and gfx950 only
 * (sgl-kernel/setup_rocm.py, docker/rocm.Dockerfile), so CDNA2 and RDNA4 reach this branch only on a
 * build of their own. */

static engine_backend_choice chose(engine_backend backend, uint32_t requested, const char *rule)
{
    engine_backend_choice c = {backend, engine_backend_page_size(backend, requested), rule};
    return c;
}

/* _get_default_attn_backend (server_args.py; before v0.5.3rc2 the same branches in model_runner.py
 * model_specific_adjustment), read at main 8905cbd42 and in 2025-06 .. 2025-11 snapshots. CUDA is
 * taken to be 12.3 or newer (is_hopper_with_cuda_12_3). */
static engine_backend_choice generic_default(const int32_t *v, const engine_model *m, engine_gpu_arch arch,
                                             uint32_t tp_size, bool speculative, uint32_t page)
{
    /* is_no_spec_infer_or_topk_one: no --speculative-eagle-topk, or topk 1 with page size 1. cgplan
     * launches speculation with topk 1, so the trtllm_mha branch's "topk is given" holds too. */
    bool no_spec_or_topk_one = !speculative || page <= 1;
    if (m->attn_kind != ATTN_MLA) {
        if (is_hopper(arch) && no_spec_or_topk_one && v[RF_ATTN_HOPPER_MHA] != HOPPER_FA3_NONE &&
            (v[RF_ATTN_HOPPER_MHA] == HOPPER_FA3_ALL || is_fa3_default_architecture(v, m)))
            return chose(BACKEND_FA3, page, "MHA on Hopper: fa3 (_get_default_attn_backend)");
        if (is_sm100(arch) && v[RF_ATTN_SM100_MHA] && no_spec_or_topk_one)
            return chose(BACKEND_TRTLLM_MHA, page, "MHA on SM100: trtllm_mha (PR #14291)");
        if (engine_gpu_is_rocm(arch))
            return v[RF_ATTN_HIP_MHA] ? chose(BACKEND_AITER, page, "MHA on ROCm: aiter (PR #6381)")
                                      : chose(BACKEND_TRITON, page, "MHA on ROCm before PR #6381: triton");
        /* flashinfer unless the model has attention sinks (then triton): the one model with
         * sinks, gpt-oss, is decided by its own rule before this. */
        return chose(BACKEND_FLASHINFER, page, "MHA: flashinfer (_get_default_attn_backend)");
    }
    if (is_hopper(arch) && (v[RF_ATTN_HOPPER_MLA] == HOPPER_MLA_FA3 ||
                            (v[RF_ATTN_HOPPER_MLA] == HOPPER_MLA_FA3_TOPK1 && no_spec_or_topk_one)))
        return chose(BACKEND_FA3, page, "MLA on Hopper: fa3 (PR #5210)");
    if (is_sm100(arch) && v[RF_ATTN_SM100_MLA])
        return chose(BACKEND_FLASHINFER_MLA, page, "MLA on SM100: flashinfer (PR #7023)");
    if (engine_gpu_is_rocm(arch) && v[RF_ATTN_HIP_MLA] != HIP_MLA_TRITON) {
        /* model_config.get_num_kv_heads(tp_size): num_key_value_heads // tp, which the DeepSeek-family
         * configs set to the attention heads; aiter's MLA kernel takes 16 or 128 heads only. */
        uint32_t kv_heads = m->kv_heads ? m->kv_heads : m->heads, tp = tp_size ? tp_size : 1;
        uint32_t per_gpu = kv_heads / tp ? kv_heads / tp : 1;
        bool spec_allowed = v[RF_ATTN_HIP_MLA] == HIP_MLA_AITER || !speculative;
        if ((per_gpu == 16 || per_gpu == 128) && spec_allowed)
            return chose(BACKEND_AITER, page, "MLA on ROCm with 16 or 128 KV heads per GPU: aiter");
        return chose(BACKEND_TRITON, page, "MLA on ROCm, other head counts (or speculation before PR #11161): triton");
    }
    return chose(BACKEND_TRITON, page, "MLA: triton (_get_default_attn_backend)");
}

/* _handle_model_specific_adjustments runs before the generic default and sets the backend for
 * some architectures when none is given; then the generic rule fills the rest. */
engine_backend_choice engine_release_default_backend(const engine_release *r, const engine_model *m,
                                                     const engine_gpu *g, uint32_t tp_size, bool speculative,
                                                     bool radix_cache, uint32_t page_size)
{
    int32_t scratch[RF_COUNT];
    const int32_t *v = facts_of(r, scratch);
    engine_gpu_arch arch = g->arch;
    if (m->attn_kind == ATTN_DSV4) /* attention_registry.py create_dsv4_backend: the only backend the model runs */
        return chose(BACKEND_DSV4, 256, "DeepSeek-V4: its own backend, page 256 (dsv4)");
    if (ARCH_IS(m, dsa_archs))
        return chose(BACKEND_NSA, page_size, "DSA model: the sparse-attention backend, page 64 (nsa, later dsa)");
    if (ARCH_IS(m, deepseek_mla_archs) && is_sm100(arch) && v[RF_ATTN_DEEPSEEK_SM100])
        return chose(BACKEND_TRTLLM_MLA, page_size, "DeepSeek-family MLA on SM100: trtllm_mla");
    if (ARCH_IS(m, gpt_oss_archs)) { /* sliding window and attention sinks: a few backends only */
        if (is_sm100(arch))
            return chose(BACKEND_TRTLLM_MHA, page_size, "gpt-oss on SM100: trtllm_mha");
        if (is_hopper(arch))
            return chose(BACKEND_FA3, page_size, "gpt-oss on Hopper: fa3");
        if (engine_gpu_is_rocm(arch) && v[RF_ATTN_GPTOSS_HIP])
            return chose(BACKEND_AITER, page_size, "gpt-oss on ROCm: aiter");
        return chose(BACKEND_TRITON, page_size, "gpt-oss: triton");
    }
    if (ARCH_IS(m, gemma4_archs)) /* _gemma4_overrides: whenever --attention-backend is not given */
        return is_sm100(arch) && v[RF_ATTN_GEMMA4_SM100]
                   ? chose(BACKEND_TRTLLM_MHA, page_size, "Gemma 4 on SM100: trtllm_mha (PR #25006)")
                   : chose(BACKEND_TRITON, page_size, "Gemma 4: triton (_gemma4_overrides)");
    if (ARCH_IS(m, llama4_archs) && is_sm100(arch) && v[RF_ATTN_LLAMA4_SM100])
        return chose(BACKEND_TRTLLM_MHA, page_size, "Llama 4 on SM100: trtllm_mha (PR #12003)");
    if (ARCH_IS(m, llama4_archs) && v[RF_ATTN_LLAMA4_AUTO]) { /* PR #13421: whatever the speculation */
        if (is_hopper(arch))
            return chose(BACKEND_FA3, page_size, "Llama 4 on Hopper: fa3 (PR #13421)");
        if (engine_gpu_is_rocm(arch))
            return chose(BACKEND_AITER, page_size, "Llama 4 on ROCm: aiter (PR #13421)");
        return chose(BACKEND_TRITON, page_size, "Llama 4 off Hopper, SM100 and ROCm: triton (PR #13421)");
    }
    if (ARCH_IS(m, qwen3_next_archs) && is_sm100(arch)) {
        /* PR #19030: trtllm_mha where the generic rule picks it, unless the radix cache is on with
         * neither extra_buffer nor speculation (cgplan plans no extra_buffer); the page size is
         * set with it, 64 or 1. */
        engine_backend_choice generic = generic_default(v, m, arch, tp_size, speculative, page_size);
        engine_backend_choice trtllm = {BACKEND_TRTLLM_MHA, 64,
                                        "Qwen3-Next on SM100 with speculation or no radix cache: trtllm_mha"};
        engine_backend_choice triton = {BACKEND_TRITON, 1, "Qwen3-Next on SM100: triton, page 1"};
        return v[RF_ATTN_QWEN3NEXT_SM100] && generic.backend == BACKEND_TRTLLM_MHA && (speculative || !radix_cache)
                   ? trtllm
                   : triton;
    }
    return generic_default(v, m, arch, tp_size, speculative, page_size);
}

/* ---- Default max_bs ---- */

/* Server era: _handle_gpu_memory_settings tiers (reference/sglang.md §2.1; CUDA, NPU tiers left out). */
static uint32_t server_default_max_bs(const int32_t *v, uint32_t gpu_mem, uint32_t tp)
{
    if (gpu_mem == 0)
        return 160;
    if (gpu_mem < 20 * 1024) /* T4, 4080 */
        return 8;
    if (gpu_mem < 35 * 1024) /* A10, 4090, 5090 */
        return tp < 4 ? (uint32_t)v[RF_A10_TIER_TP_LT4] : 80;
    if (gpu_mem < 60 * 1024) /* A100-40G, L40 */
        return tp < 4 ? 32 : 160;
    if (gpu_mem < 160 * 1024) /* H100, A100-80G, H20, H200 */
        return tp < 4 ? 256 : 512;
    return 512; /* B200, MI300 */
}

/* Runner era: small GPUs' cuda_graph_max_bs (server_args __post_init__, nvidia-smi's MiB), if
 * the release has one. */
static bool runner_small_gpu(const int32_t *v, uint32_t gpu_mem)
{
    return v[RF_MAXBS_FLAG] && v[RF_SMALL_GPU_MIB] && gpu_mem != 0 && gpu_mem < (uint32_t)v[RF_SMALL_GPU_MIB];
}

/* Runner era: the cuda_graph_max_bs server_args sets (160 from v0.3.5 to v0.4.5.post2, the
 * small-GPU values); 0 = unset, or no such flag. */
static uint32_t runner_max_bs_setting(const int32_t *v, uint32_t gpu_mem, uint32_t tp)
{
    if (!v[RF_MAXBS_FLAG])
        return 0;
    if (runner_small_gpu(v, gpu_mem))
        return (uint32_t)(tp < 4 ? v[RF_SMALL_GPU_BS_LT4] : v[RF_SMALL_GPU_BS_GE4]);
    return (uint32_t)v[RF_DEFAULT_MAX_BS];
}

static bool runner_mid_tier(const int32_t *v, uint32_t gpu_mem, uint32_t dp)
{
    return gpu_mem != 0 && v[RF_RUNNER_MID_MIB] != 0 && gpu_mem > (uint32_t)v[RF_RUNNER_MID_MIB] &&
           (!v[RF_RUNNER_MID_DP1] || dp == 1);
}

static bool runner_big_tier(const int32_t *v, uint32_t gpu_mem)
{
    return gpu_mem != 0 && v[RF_RUNNER_BIG_MIB] != 0 && gpu_mem > (uint32_t)v[RF_RUNNER_BIG_MIB];
}

/* ---- Capture list: a set of sizes kept as a bitmap, so sort/dedupe are free ---- */

typedef struct {
    uint64_t bits[(ENGINE_RELEASE_MAX_BS + 64) / 64];
    uint32_t dropped;
    size_t hi; /* words [0, hi) are valid (zeroed when first reached); the rest are never read */
} bs_set;

static void set_init(bs_set *s)
{
    s->dropped = 0;
    s->hi = 0;
}

static void set_add(bs_set *s, uint64_t bs)
{
    if (bs == 0)
        return;
    if (bs > ENGINE_RELEASE_MAX_BS) {
        s->dropped++;
        return;
    }
    size_t w = (size_t)(bs / 64);
    for (; s->hi <= w; s->hi++)
        s->bits[s->hi] = 0;
    s->bits[w] |= 1ull << (bs % 64);
}

static bool set_has(const bs_set *s, uint32_t bs)
{
    return bs != 0 && bs / 64 < s->hi && (s->bits[bs / 64] >> (bs % 64) & 1u);
}

static void set_del(bs_set *s, uint32_t bs)
{
    if (bs / 64 < s->hi)
        s->bits[bs / 64] &= ~(1ull << (bs % 64));
}

/* The bits of every multiple of 2^i within a word, for i = 0 .. 6 (steps 1, 2, 4 .. 64). */
static const uint64_t every_power_of_two[7] = {~0ull,
                                               0x5555555555555555ull,
                                               0x1111111111111111ull,
                                               0x0101010101010101ull,
                                               0x0001000100010001ull,
                                               0x0000000100000001ull,
                                               1ull};

static bool divides_64(uint64_t step)
{
    return step <= 64 && engine_is_power_of_two(step);
}

static void set_range(bs_set *s, uint64_t from, uint64_t to_inclusive, uint64_t step)
{
    if (to_inclusive > ENGINE_RELEASE_MAX_BS)
        to_inclusive = ENGINE_RELEASE_MAX_BS;
    if (from == 0)
        from = step; /* 0 is never a size */
    if (step == 0 || from > to_inclusive)
        return;
    if (!divides_64(step)) {
        for (uint64_t x = from; x <= to_inclusive; x += step)
            set_add(s, x);
        return;
    }
    /* A step dividing 64 sets the same bit pattern in every word: the grids' ranges are written a
     * word at a time (the list is resolved on every probe of the wall). */
    uint64_t pattern = every_power_of_two[__builtin_ctzll(step)] << (from & (step - 1));
    size_t first = (size_t)(from / 64), last = (size_t)(to_inclusive / 64);
    for (; s->hi <= last; s->hi++)
        s->bits[s->hi] = 0;
    for (size_t w = first; w <= last; w++) {
        uint64_t word = pattern;
        if (w == first)
            word &= ~0ull << (from % 64);
        if (w == last && to_inclusive % 64 != 63)
            word &= (1ull << (to_inclusive % 64 + 1)) - 1;
        s->bits[w] |= word;
    }
}

/* The helpers below walk the bitmap a word at a time and skip empty words: the set spans 65,535
 * sizes but holds at most a few hundred, and the estimator resolves a list on every drag event
 * and every step of the wall search. */
static uint32_t set_max(const bs_set *s)
{
    for (size_t w = s->hi; w-- > 0;)
        if (s->bits[w])
            return (uint32_t)(w * 64 + 63 - (size_t)__builtin_clzll(s->bits[w]));
    return 0;
}

static void set_keep_at_most(bs_set *s, uint32_t limit)
{
    if (limit >= ENGINE_RELEASE_MAX_BS)
        return;
    size_t w = (limit + 1) / 64;
    unsigned b = (limit + 1) % 64;
    if (w >= s->hi)
        return;
    s->bits[w] &= b ? (1ull << b) - 1 : 0; /* keep the bits below limit + 1 in its word */
    for (w++; w < s->hi; w++)
        s->bits[w] = 0;
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    if (b && engine_is_power_of_two(a)) /* a power of two (the usual attention-TP sizes): no division */
        return 1u << (__builtin_ctz(a) < __builtin_ctz(b) ? __builtin_ctz(a) : __builtin_ctz(b));
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Removes sizes whose (bs * width) is not a multiple of base; returns how many went. That holds
 * exactly for the multiples of step = base / gcd(base, width); a step dividing 64 (the usual
 * attention-TP sizes) is one repeating bit pattern over every word, anything else is tested
 * size by size. */
static uint32_t set_keep_multiples(bs_set *s, uint32_t base, uint32_t width)
{
    if (base <= 1)
        return 0;
    uint32_t step = base / gcd32(base, width ? width : 1);
    if (step <= 1)
        return 0;
    uint32_t gone = 0;
    if (divides_64(step)) {
        uint64_t pattern = every_power_of_two[__builtin_ctz(step)];
        for (size_t w = 0; w < s->hi; w++) {
            uint64_t kept = s->bits[w] & pattern;
            for (uint64_t dropped = s->bits[w] & ~pattern; dropped; dropped &= dropped - 1)
                gone++; /* a few bits a word: cheaper than a software popcount */
            s->bits[w] = kept;
        }
        return gone;
    }
    for (size_t w = 0; w < s->hi; w++)
        for (uint64_t bits = s->bits[w]; bits; bits &= bits - 1) {
            uint32_t bs = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
            if (bs % step != 0) {
                set_del(s, bs);
                gone++;
            }
        }
    return gone;
}

/* The AMD sizes of v0.4.3 .. v0.4.5.post2: [i * 8 for i in range(21, 33)] (PR #3420), later
 * range(160, 257, 8) with 160 already there. */
static void hip_tier(bs_set *s)
{
    set_range(s, 168, 256, 8);
}

/* v0.3.0 .. v0.5.3rc0 runner-built default list (SPECULATIVE: the release has it and it is on;
 * NO_PADDING: --disable-cuda-graph-padding, or set by EAGLE). False when the release's own
 * expression raises (v0.4.4.post4 .. v0.4.5: a list plus a range). */
static bool runner_grid(const int32_t *v, bool speculative, bool no_padding, uint32_t gpu_mem, uint32_t dp, bool rocm,
                        bs_set *s)
{
    if (speculative && v[RF_SPEC_GRID] != SPEC_AS_DEFAULT) {
        /* denser small sizes, fewer large ones: speculative graphs cost more */
        if (v[RF_SPEC_GRID] == SPEC_1_32) {
            set_range(s, 1, 32, 1);
        } else {
            set_range(s, 1, 8, 1);
            if (v[RF_SPEC_GRID] == SPEC_9_ODD) {
                set_range(s, 9, 31, 2);
                set_range(s, 64, 160, 32);
            } else if (v[RF_SPEC_GRID] == SPEC_10_EVEN_40) {
                set_range(s, 10, 32, 2);
                set_range(s, 40, 160, 16);
            } else {
                set_range(s, 10, 32, 2);
                set_range(s, 40, 63, 8);
                set_range(s, 80, 160, 16);
            }
        }
    } else if (no_padding) {
        switch (v[RF_NOPAD_GRID]) {
        case NOPAD_RAISES:
            return false;
        case NOPAD_31:
            set_range(s, 1, 31, 1);
            set_range(s, 64, 128, 64);
            break;
        case NOPAD_32:
            set_range(s, 1, 32, 1);
            set_range(s, 64, 128, 64);
            break;
        case NOPAD_32_160:
            set_range(s, 1, 32, 1);
            set_range(s, 64, 160, 32);
            break;
        case NOPAD_32_40_16:
            set_range(s, 1, 32, 1);
            set_range(s, 40, 160, 16);
            break;
        default:
            set_range(s, 1, 32, 1);
            set_range(s, 48, 160, 16);
            break;
        }
    } else {
        set_range(s, 1, 2, 1);
        if (v[RF_PAD_GRID] == PAD_1_2_3_4)
            set_add(s, 3);
        set_range(s, 4, 8, 4);
        set_range(s, 16, 160, 8);
    }
    if (runner_mid_tier(v, gpu_mem, dp))
        set_range(s, 160, 256, 8);
    if (runner_big_tier(v, gpu_mem))
        set_range(s, 256, 512, 16);
    if (rocm && v[RF_HIP_TIER] == HIP_TIER_DEFAULT_LIST)
        hip_tier(s);
    return true;
}

uint32_t engine_release_default_max_bs(const engine_release *r, uint32_t gpu_mem_mib, uint32_t tp, bool speculative)
{
    int32_t scratch[RF_COUNT];
    const int32_t *v = facts_of(r, scratch);
    if (tp == 0)
        tp = 1;
    if (v[RF_GRID] == ENGINE_GRID_SERVER) /* both server grids reach every tier value */
        return server_default_max_bs(v, gpu_mem_mib, tp);
    uint32_t set_by_tier = runner_max_bs_setting(v, gpu_mem_mib, tp);
    if (set_by_tier)
        return set_by_tier;
    /* Unset, or no flag: the runner list's own top, which v0.4.6's speculative grid leaves at 152. */
    bool spec = speculative && v[RF_EAGLE_RUNNER] != ENGINE_EAGLE_NONE;
    bs_set s;
    set_init(&s);
    runner_grid(v, spec, spec && v[RF_SPEC_NO_PADDING], gpu_mem_mib, 1, false, &s);
    return set_max(&s);
}

/* The server era's list in one ascending pass. server_args builds the sorted list (or takes the
 * explicit one), the runner adds the pool size N when the list goes past it, keeps the multiples
 * of mul_base and cuts at N. The sizes arrive in order, so each is decided as it comes: no set
 * to build, sort or walk (this runs on every probe of the wall). */
typedef struct {
    uint32_t *out;
    size_t cap, n;
    uint32_t step;     /* keep multiples of step (1: all) */
    uint32_t pool;     /* N: the cut, and the size added when the list goes past it */
    uint32_t last;     /* the size fed last (0: none yet) */
    uint32_t filtered; /* sizes the divisibility filter removed */
    uint64_t sum;      /* of the sizes written to out */
    bool passed_pool;  /* a size above N came: N was added */
} capture_stream;

static void stream_keep(capture_stream *st, uint32_t bs)
{
    bool multiple = engine_is_power_of_two(st->step) ? (bs & (st->step - 1)) == 0 : bs % st->step == 0;
    if (!multiple) {
        st->filtered++;
        return;
    }
    if (bs > st->pool)
        return;
    if (st->out && st->n < st->cap) {
        st->out[st->n] = bs;
        st->sum += bs;
    }
    st->n++;
}

/* BS: ascending, each larger than the last. */
static void stream_feed(capture_stream *st, uint32_t bs)
{
    if (bs > st->pool && !st->passed_pool) {
        st->passed_pool = true; /* max(list) > N: the runner adds N */
        if (st->last != st->pool)
            stream_keep(st, st->pool);
    }
    st->last = bs;
    stream_keep(st, bs);
}

static void stream_range(capture_stream *st, uint32_t from, uint32_t to_inclusive, uint32_t step)
{
    if (to_inclusive > ENGINE_RELEASE_MAX_BS)
        to_inclusive = ENGINE_RELEASE_MAX_BS;
    uint32_t x = from;
    /* The sizes up to N under a power-of-two filter, while OUT has room, are counted and written
     * as a progression (a plain fill) instead of one by one; what remains (sizes past N, a full
     * OUT, other filters) takes the general path. */
    uint32_t below = to_inclusive < st->pool ? to_inclusive : st->pool;
    if (st->out && engine_is_power_of_two(st->step) && step && x <= below && st->n < st->cap) {
        uint64_t count = (uint64_t)engine_div_u32(below - x, step) + 1;
        if (count > st->cap - st->n)
            count = st->cap - st->n;
        uint32_t filter = st->step, *out = st->out + st->n, first = x, kept_step = step;
        uint32_t last_in_range = x + ((uint32_t)count - 1) * step;
        uint64_t kept = count;
        /* Both steps are powers of two: the kept sizes are themselves a progression. A range step
         * the filter divides keeps all or none; a finer one keeps every multiple of the filter. */
        if (filter > 1 && engine_is_power_of_two(step) && (x & (step - 1)) == 0) {
            if (step >= filter) {
                kept = (x & (filter - 1)) == 0 ? count : 0;
            } else {
                first = (x + filter - 1) & ~(filter - 1);
                kept_step = filter;
                kept = first <= last_in_range ? ((last_in_range - first) >> __builtin_ctz(filter)) + 1 : 0;
            }
        } else if (filter > 1) { /* any other range: size by size */
            kept = 0;
            for (uint32_t i = 0; i < (uint32_t)count; i++) {
                uint32_t bs = x + i * step;
                if ((bs & (filter - 1)) == 0)
                    out[kept++] = bs, st->sum += bs;
            }
            kept_step = 0;
        }
        if (kept_step) {
            for (uint32_t i = 0; i < (uint32_t)kept; i++)
                out[i] = first + i * kept_step;
            st->sum += kept * first + kept_step * (kept * (kept - 1) / 2); /* an arithmetic series */
        }
        st->n += kept;
        st->filtered += (uint32_t)(count - kept);
        st->last = x + ((uint32_t)count - 1) * step;
        x += (uint32_t)count * step;
    }
    for (; x <= to_inclusive; x += step)
        stream_feed(st, x);
}

/* v0.5.3rc2+ server_args generator, up to max_bs. */
static void server_grid(const int32_t *v, const engine_capture_params *p, uint32_t max_bs, capture_stream *st)
{
    /* Each range stops at max_bs: server_args never generates above it. */
#define RANGE(from, to, step) stream_range(st, (from), (to) < max_bs ? (to) : max_bs, (step))
    if (p->disable_padding) {
        RANGE(1, max_bs, 1);
    } else if (!p->speculative) {
        RANGE(1, 2, 1);
        RANGE(4, 12, 4);
        RANGE(16, 256, 8);
        RANGE(272, 496, 16);
        RANGE(512, max_bs, 32);
    } else {
        RANGE(1, 8, 1);
        RANGE(10, 32, 2);
        RANGE(40, (uint32_t)(v[RF_SPEC_GRID_64] ? 64 : 60), 4);
        RANGE(72, 256, 8);
        RANGE(272, max_bs, 16);
    }
#undef RANGE
}

/* N: req_to_token_pool.size, max_num_reqs + 1 up to v0.4.6 (RF_POOL_EXTRA_ROW). Speculative
 * algorithms set max_running_requests when unset (32 from PR #3986, 48 from PR #4908; server_args
 * _handle_speculative_decoding, arg_groups/speculative_hook.py on main); without it the pool is
 * clamp(tokens / context * 512, 2048, 4096), capped by tokens // 2 (resolve_max_num_reqs), which
 * is at least 2048 for any pool of 4096+ tokens: 2048 is used. */
static uint32_t pool_size(const int32_t *v, const engine_capture_params *p, bool speculative, uint32_t dp,
                          bool *defaulted)
{
    *defaulted = false;
    if (p->pool_size)
        return p->pool_size;
    uint32_t requested = p->max_running_requests;
    if (!requested && speculative)
        requested = (uint32_t)v[RF_SPEC_MAX_RUNNING];
    if (requested) {
        *defaulted = p->max_running_requests == 0;
        uint32_t n = v[RF_POOL_PER_DP] ? engine_div_u32(requested, dp) : requested;
        return (n ? n : 1) + (uint32_t)v[RF_POOL_EXTRA_ROW]; /* [I] 0 would fail in SGLang */
    }
    *defaulted = true;
    return 2048 + (uint32_t)v[RF_POOL_EXTRA_ROW];
}

static size_t emit(const bs_set *s, uint32_t *out, size_t cap, engine_capture_notes *nt)
{
    size_t n = 0;
    uint64_t sum = 0;
    for (size_t w = 0; w < s->hi; w++)
        for (uint64_t bits = s->bits[w]; bits; bits &= bits - 1) { /* set_add keeps 0 and > max out */
            uint32_t bs = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
            if (out && n < cap) {
                out[n] = bs;
                sum += bs;
            }
            n++;
        }
    nt->truncated = n > cap;
    nt->written_sum = sum;
    return n;
}

size_t engine_release_capture_list(const engine_release *r, const engine_capture_params *p, uint32_t *out, size_t cap,
                                   engine_capture_notes *notes)
{
    engine_capture_notes local;
    engine_capture_notes *nt = notes ? notes : &local;
    memset(nt, 0, sizeof *nt);
    nt->beyond_model = r->beyond_model;
    nt->mul_base = 1;

    int32_t scratch[RF_COUNT];
    const int32_t *v = facts_of(r, scratch);
    uint32_t tp = p->tp_size ? p->tp_size : 1;
    uint32_t dp = p->dp ? p->dp : 1;
    uint32_t attn_tp = p->attn_tp ? p->attn_tp : 1;
    uint32_t attn_cp = p->attn_cp ? p->attn_cp : 1;
    uint32_t width = p->width ? p->width : 1;
    bool has_explicit = p->explicit_bs && p->n_explicit > 0;
    if (has_explicit && !v[RF_EXPLICIT_FLAG]) { /* no --cuda-graph-bs to give them with */
        nt->no_explicit_flag = true;
        has_explicit = false;
    }
    bool speculative = p->speculative && v[RF_EAGLE_RUNNER] != ENGINE_EAGLE_NONE;
    nt->no_speculative = p->speculative && !speculative;

    bs_set set;
    set_init(&set);
    bs_set *s = &set;
    if (has_explicit)
        for (size_t i = 0; i < p->n_explicit; i++)
            set_add(s, p->explicit_bs[i]);

    bool defaulted = false;
    uint32_t n_pool = pool_size(v, p, speculative, dp, &defaulted);
    nt->pool_defaulted = defaulted;

    if (v[RF_GRID] != ENGINE_GRID_SERVER) {
        /* Runner era: the list is built and filtered in the runner; cuda_graph_max_bs may be unset,
         * or (before v0.3.5) not exist. */
        uint32_t max_bs = 0;
        if (v[RF_MAXBS_FLAG]) {
            max_bs = p->max_bs ? p->max_bs : runner_max_bs_setting(v, p->gpu_mem_mib, tp);
            nt->max_bs_defaulted = p->max_bs == 0 && max_bs != 0;
            if (v[RF_SMALL_GPU_FORCED] && runner_small_gpu(v, p->gpu_mem_mib)) { /* v0.3.5.post2: "= 4" */
                uint32_t forced = runner_max_bs_setting(v, p->gpu_mem_mib, tp);
                nt->max_bs_forced = p->max_bs != 0 && p->max_bs != forced;
                max_bs = forced;
            }
            uint32_t dp_cap = (uint32_t)v[RF_DP_ATTN_MAX_BS];
            if (dp_cap && dp > 1 && (max_bs == 0 || max_bs > dp_cap)) { /* min(cuda_graph_max_bs, 96) */
                nt->max_bs_forced = nt->max_bs_forced || p->max_bs != 0;
                max_bs = dp_cap;
            }
        }
        /* EAGLE set --disable-cuda-graph-padding from v0.4.1.post4 to v0.4.4.post1 */
        bool no_padding = p->disable_padding || (speculative && v[RF_SPEC_NO_PADDING]);
        if (!has_explicit && !runner_grid(v, speculative, no_padding, p->gpu_mem_mib, dp, p->rocm, s)) {
            nt->capture_fails = true; /* the list expression raises: start-up fails */
            nt->max_bs = max_bs;
            nt->pool_size = n_pool;
            return 0;
        }
        if (!v[RF_MAXBS_FLAG] && p->max_bs && p->max_bs < set_max(s))
            nt->no_max_bs_flag = true;
        if (p->rocm && v[RF_HIP_TIER] == HIP_TIER_BEFORE_CLAMP)
            hip_tier(s);
        if (v[RF_POOL_CLAMP] != POOL_NONE && set_max(s) > n_pool) {
            nt->clamped_to_pool = true;
            if (v[RF_POOL_CLAMP] == POOL_ADD) {
                set_add(s, n_pool);
                if (v[RF_POOL_ADD_PREV] && n_pool > 1) {
                    set_add(s, n_pool - 1);
                    nt->added_pool_minus_one = true;
                }
            }
        }
        if (v[RF_MAXBS_RULE] == MAXBS_CUT) { /* to v0.4.6.post3: clamp to the pool, then cut at max_bs */
            if (v[RF_POOL_CLAMP] != POOL_NONE)
                set_keep_at_most(s, n_pool);
            if (max_bs)
                set_keep_at_most(s, max_bs);
            if (p->rocm && v[RF_HIP_TIER] == HIP_TIER_AFTER_CUT) /* v0.4.3: appended after both filters */
                hip_tier(s);
        } else {
            if (p->tbo && v[RF_TBO] == TBO_AT_LEAST_2 && set_has(s, 1)) {
                set_del(s, 1);
                nt->filtered_out++;
            } else if (p->tbo && v[RF_TBO] == TBO_EVEN) {
                nt->filtered_out += set_keep_multiples(s, 2, 1);
                nt->mul_base = 2;
            } else {
                uint32_t mul = 1;
                if (p->tbo && v[RF_TBO] == TBO_MULBASE)
                    mul *= 2;
                if (p->require_gathered && v[RF_GATHERED_MULBASE])
                    mul *= attn_tp;
                nt->filtered_out += set_keep_multiples(s, mul, 1);
                nt->mul_base = mul;
            }
            if (max_bs) {
                set_keep_at_most(s, max_bs);
                uint32_t top = set_max(s);
                if (top == 0) { /* max() of an empty list raises in SGLang */
                    nt->capture_fails = true;
                    nt->max_bs = max_bs;
                    nt->pool_size = n_pool;
                    return 0;
                }
                if (top < max_bs && v[RF_MAXBS_RULE] == MAXBS_CUT_EXTEND16) {
                    set_range(s, top, max_bs, 16); /* not re-filtered by mul_base in SGLang */
                    nt->extended_to_max_bs = true;
                }
            }
            set_keep_at_most(s, n_pool);
        }
        nt->max_bs = max_bs ? max_bs : set_max(s);
    } else {
        /* Server era: server_args fills the list (or takes the explicit one and sets max_bs to
         * its max); the runner clamps to the pool and filters by mul_base. */
        uint32_t max_bs;
        if (has_explicit) {
            max_bs = set_max(s);
        } else {
            max_bs = p->max_bs ? p->max_bs : server_default_max_bs(v, p->gpu_mem_mib, tp);
            nt->max_bs_defaulted = p->max_bs == 0;
        }
        nt->max_bs = max_bs;
        uint32_t mul = 1, align_width = v[RF_WIDTH_FILTER] ? width : 1;
        if (p->tbo) { /* tbo splits a request's rows over two micro-batches: align per request */
            mul *= 2;
            align_width = 1;
        }
        if (p->require_gathered)
            mul *= attn_tp;
        if (v[RF_ATTN_CP] && attn_cp > 1 && mul % attn_cp != 0)
            mul *= attn_cp;
        nt->mul_base = mul;
        if (v[RF_POOL_PAD])
            n_pool = engine_is_power_of_two(mul) ? (uint32_t)(((uint64_t)n_pool + mul - 1) & ~(uint64_t)(mul - 1))
                                            : (uint32_t)(((uint64_t)n_pool + mul - 1) / mul * mul);
        /* (bs x width) % mul == 0 holds exactly for the multiples of mul / gcd(mul, width) */
        capture_stream st = {
            .out = out, .cap = cap, .step = mul > 1 ? mul / gcd32(mul, align_width) : 1, .pool = n_pool};
        if (st.step == 0)
            st.step = 1;
        if (has_explicit) {
            for (size_t w = 0; w < s->hi; w++)
                for (uint64_t bits = s->bits[w]; bits; bits &= bits - 1)
                    stream_feed(&st, (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits)));
        } else {
            server_grid(v, p, max_bs, &st);
            if (v[RF_APPEND_MAX_BS] && st.last != max_bs) {
                nt->appended_max_bs = true;
                if (max_bs > ENGINE_RELEASE_MAX_BS)
                    s->dropped++;
                else
                    stream_feed(&st, max_bs);
            }
        }
        nt->clamped_to_pool = st.passed_pool;
        nt->filtered_out = st.filtered;
        nt->pool_size = n_pool;
        nt->dropped_out_of_range = s->dropped;
        nt->truncated = st.n > cap;
        nt->written_sum = st.sum;
        if (st.n == 0)
            nt->capture_fails = true; /* assert len(capture_bs) > 0 in get_batch_sizes_to_capture */
        return st.n;
    }
    nt->pool_size = n_pool;
    nt->dropped_out_of_range = s->dropped;
    size_t n = emit(s, out, cap, nt);
    if (n == 0)
        nt->capture_fails = true; /* assert len(capture_bs) > 0 in get_batch_sizes_to_capture */
    return n;
}
