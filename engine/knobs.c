/* knobs.c — the knob table and the rules for setting a knob (ranges, divisors, adjustments).
 *
 * Each knob is one row (tmux's options-table.c is the model): its name, range, step rule,
 * default, unit, help, where its value lives in engine_deployment, how the store keeps it and
 * the SGLang flag or environment variable that sets it. Every function below reads the row;
 * adding a knob is one row plus the code that uses its value. */
#include "engine.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint32_t world_of(const engine_knobs_state *k)
{
    return k->world;
}
static uint32_t attn_tp_of(const engine_knobs_state *k)
{
    return engine_attn_tp(k);
}
static const engine_knob_base base_world = {"world", world_of, NULL};
static const engine_knob_base base_attn_tp = {"attn_tp", attn_tp_of, "world / dp"};

#define AT(field) offsetof(engine_deployment, field)
#define RESOLVED(field) .resolved_offset = offsetof(engine_estimate, field)
#define CHOICES(names) .choices = names, .n_choices = (int)(sizeof names / sizeof names[0])

static const char *const a2a_choices[] = {"deepep", "none"}; /* indexed by engine_a2a */

/* MODEL.md's knob table. The CUDA-graph flags are those of SGLang main (2026-07). */
const engine_knob_info engine_knobs[KNOB_COUNT] = {
    {.id = KNOB_MAX_BS,
     .name = "max_bs",
     .label = "max_bs",
     .brief = "bs",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 1024,
     .range = "1..1024",
     .steps = KNOB_STEPS_CAPTURE_GRID,
     .default_text = "preset",
     .unit = "requests",
     .help = "--cuda-graph-max-bs-decode: the largest captured batch, per DP rank",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.max_bs),
     .sglang_flag_alt = "--cuda-graph-max-bs-decode",
     .sglang_flag = "--cuda-graph-max-bs"},
    {.id = KNOB_DP,
     .name = "dp",
     .label = "dp",
     .brief = "dp",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 1024,
     .range = "divisors of world",
     .steps = KNOB_STEPS_DIVISORS,
     .base = &base_world,
     .default_text = "preset",
     .unit = "groups",
     .help = "DP-attention groups (--dp-size); attn_tp = world / dp",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.dp),
     .sglang_flag_alt = "--dp",
     .sglang_flag = "--dp-size"},
    {.id = KNOB_DCP,
     .name = "dcp",
     .label = "dcp",
     .brief = "dcp",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 1024,
     .range = "divisors of attn_tp",
     .steps = KNOB_STEPS_DIVISORS,
     .base = &base_attn_tp,
     .default_text = "1",
     .unit = "GPUs",
     .help = "decode context parallel inside an attention group (--dcp-size)",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.dcp),
     .sglang_flag = "--dcp-size"},
    {.id = KNOB_MAX_DISPATCH,
     .name = "max_dispatch",
     .label = "max_dispatch",
     .brief = "disp",
     .type = KNOB_TYPE_INT_OR_AUTO,
     .min = 1,
     .max = 1024,
     .range = "auto or 1..1024",
     .steps = KNOB_STEPS_LINEAR,
     .step_first = 8,
     .step_size = 8,
     .leaving_auto = "starts from its value",
     .default_text = "preset",
     .unit = "tokens",
     .help = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK; auto = the MoE rows per GPU",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.max_dispatch),
     .auto_offset = AT(knobs.max_dispatch_auto),
     RESOLVED(max_dispatch),
     .sglang_env = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"},
    {.id = KNOB_MTP,
     .name = "mtp",
     .label = "mtp",
     .brief = "mtp",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 16,
     .range = "1..16",
     .steps = KNOB_STEPS_LINEAR,
     .step_first = 1,
     .step_size = 1,
     .default_text = "preset",
     .unit = "tokens/request",
     .help = "tokens per request in target verify (--speculative-num-draft-tokens); 1 = no speculation",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.mtp),
     .sglang_flag = "--speculative-num-draft-tokens"},
    {.id = KNOB_WORLD,
     .name = "world",
     .alias = "tp", /* SGLang's name (--tp-size) */
     .label = "world",
     .brief = "world",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 1024,
     .range = "1..1024",
     .steps = KNOB_STEPS_LINEAR,
     .step_first = 8,
     .step_size = 8,
     .default_text = "preset",
     .unit = "GPUs",
     .help = "--tp-size: the GPUs of one instance (also read as tp)",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.world),
     .sglang_flag_alt = "--tp",
     .sglang_flag = "--tp-size"},
    {.id = KNOB_BUCKETS,
     .name = "buckets",
     .label = "buckets",
     .brief = "bkts",
     .type = KNOB_TYPE_LIST_OR_AUTO,
     .min = 1,
     .max = 1024,
     .range = "auto or a list",
     .steps = KNOB_STEPS_NONE,
     .default_text = "preset",
     .unit = "",
     .help = "captured batch sizes (--cuda-graph-bs-decode; \"1 2 4\" or 1,2,4); auto = SGLang's grid up to max_bs",
     .field = KNOB_FIELD_LIST,
     .offset = AT(knobs.buckets),
     .sglang_flag_alt = "--cuda-graph-bs-decode",
     .auto_offset = AT(knobs.buckets_auto),
     .count_offset = AT(knobs.n_buckets),
     .sglang_flag = "--cuda-graph-bs"},
    {.id = KNOB_CONTEXT_LEN,
     .name = "context_len",
     .label = "context_len",
     .brief = "ctx",
     .type = KNOB_TYPE_INT,
     .min = 1,
     .max = 16777216,
     .range = "1..16,777,216",
     .steps = KNOB_STEPS_POW2,
     .default_text = "model",
     .unit = "tokens",
     .help = "--context-length (sizes the page-index buffer; 128k = 128,000, 128K = 131,072)",
     .field = KNOB_FIELD_U64,
     .offset = AT(knobs.context_len),
     .sglang_flag = "--context-length",
     .human_int = true},
    {.id = KNOB_MEM_FRACTION,
     .name = "mem_fraction_static",
     .label = "mem_fraction",
     .brief = "f",
     .type = KNOB_TYPE_FRACTION,
     .min = 0.50,
     .max = 0.99,
     .range = "0.50..0.99",
     .steps = KNOB_STEPS_LINEAR,
     .step_first = 0.50,
     .step_size = 0.005,
     .default_text = "preset",
     .unit = "",
     .help = "--mem-fraction-static: SGLang's static share of pre-load free memory",
     .field = KNOB_FIELD_DOUBLE,
     .offset = AT(knobs.mem_fraction_static),
     .sglang_flag = "--mem-fraction-static"},
    {.id = KNOB_GPU,
     .name = "gpu",
     .label = "gpu",
     .brief = "gpu",
     .type = KNOB_TYPE_NAME,
     .range = "a GPU preset",
     .steps = KNOB_STEPS_NONE,
     .default_text = "preset",
     .unit = "",
     .help = "the GPU model (a GPU preset name)",
     .field = KNOB_FIELD_NAME,
     .offset = AT(gpu.name),
     .store = KNOB_STORE_COLUMN},
    {.id = KNOB_DP_ATTENTION,
     .name = "dp_attention",
     .label = "dp_attention",
     .brief = "dpa",
     .type = KNOB_TYPE_BOOL,
     .autoable = true,
     .range = "on, off or auto",
     .default_text = "auto (on when dp > 1)",
     .unit = "",
     .help = "--enable-dp-attention: each DP group runs attention for its own requests",
     .field = KNOB_FIELD_BOOL,
     .offset = AT(knobs.dp_attention),
     .auto_offset = AT(knobs.dp_attention_auto),
     RESOLVED(layout.dp_attention),
     .sglang_flag = "--enable-dp-attention"},
    {.id = KNOB_EP,
     .name = "ep",
     .label = "ep",
     .brief = "ep",
     .type = KNOB_TYPE_INT,
     .autoable = true,
     .min = 1,
     .max = 1024,
     .range = "auto or divisors of tp",
     .steps = KNOB_STEPS_DIVISORS,
     .base = &base_world,
     .default_text = "auto (tp with DeepEP, else 1)",
     .unit = "GPUs",
     .help = "--ep-size: the GPUs the routed experts are sharded over",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.ep),
     .sglang_flag_alt = "--ep",
     .auto_offset = AT(knobs.ep_auto),
     RESOLVED(layout.ep),
     .sglang_flag = "--ep-size"},
    {.id = KNOB_A2A,
     .name = "a2a",
     .label = "a2a",
     .brief = "a2a",
     .type = KNOB_TYPE_ENUM,
     CHOICES(a2a_choices),
     .range = "deepep or none",
     .default_text = "preset (none without one)",
     .unit = "",
     .help = "--moe-a2a-backend: the MoE all-to-all (none: every GPU's MoE sees all its group's tokens)",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(a2a),
     .sglang_flag = "--moe-a2a-backend"},
    {.id = KNOB_DEEPEP_MODE,
     .name = "deepep_mode",
     .label = "deepep_mode",
     .brief = "mode",
     .type = KNOB_TYPE_ENUM,
     .choices = engine_deepep_mode_names,
     .n_choices = DEEPEP_MODE_COUNT,
     .range = "auto, low_latency or normal",
     .default_text = "auto",
     .unit = "",
     .help = "--deepep-mode: auto allocates both the low-latency and the normal-mode buffers",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(knobs.deepep_mode),
     .sglang_flag = "--deepep-mode"},
    {.id = KNOB_MOE_RUNNER,
     .name = "moe_runner",
     .label = "moe_runner",
     .brief = "runner",
     .type = KNOB_TYPE_ENUM,
     .choices = engine_moe_runner_names,
     .n_choices = MOE_RUNNER_COUNT,
     .autoable = true,
     .range = "auto or a runner",
     .default_text = "auto",
     .unit = "",
     .help = "--moe-runner-backend: the kernels of the routed experts",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(knobs.moe_runner),
     .auto_offset = AT(knobs.moe_runner_auto),
     RESOLVED(layout.moe_runner),
     .sglang_flag = "--moe-runner-backend"},
    {.id = KNOB_ATTENTION_BACKEND,
     .name = "attention_backend",
     .label = "attention",
     .brief = "attn",
     .type = KNOB_TYPE_ENUM,
     .choices = engine_backend_names,
     .n_choices = BACKEND_COUNT,
     .autoable = true,
     .range = "auto or an SGLang backend",
     .default_text = "auto (the release's choice)",
     .unit = "",
     .help = "--attention-backend: decides the page-index buffers of the graphs",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(backend),
     .auto_offset = AT(knobs.backend_auto),
     RESOLVED(layout.backend),
     .sglang_flag = "--attention-backend"},
    {.id = KNOB_MAX_RUNNING_REQUESTS,
     .name = "max_running_requests",
     .label = "max_running",
     .brief = "mrr",
     .type = KNOB_TYPE_INT,
     .autoable = true,
     .min = 1,
     .max = 1048576,
     .range = "auto or 1..1,048,576",
     .default_text = "auto (a plan: max_bs per DP rank, per replica)",
     .unit = "requests",
     .help = "--max-running-requests: the request pool; SGLang clamps the capture list to it",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.max_running_requests),
     .auto_offset = AT(knobs.max_running_requests_auto),
     .sglang_flag = "--max-running-requests"},
    {.id = KNOB_TBO,
     .name = "tbo",
     .label = "tbo",
     .brief = "tbo",
     .type = KNOB_TYPE_BOOL,
     .range = "on or off",
     .default_text = "off",
     .unit = "",
     .help = "--enable-two-batch-overlap: captured sizes must be even",
     .field = KNOB_FIELD_BOOL,
     .offset = AT(knobs.tbo),
     .sglang_flag = "--enable-two-batch-overlap"},
    {.id = KNOB_KV_DTYPE,
     .name = "kv_dtype",
     .label = "kv_dtype",
     .brief = "kv",
     .type = KNOB_TYPE_ENUM,
     .choices = engine_kv_dtype_names,
     .n_choices = KV_DTYPE_COUNT,
     .range = "auto, bf16, fp8_e4m3, fp8_e5m2",
     .default_text = "auto (the model's dtype)",
     .unit = "",
     .help = "--kv-cache-dtype: bytes per KV element",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(knobs.kv_dtype),
     .sglang_flag = "--kv-cache-dtype"},
    {.id = KNOB_PAGE_SIZE,
     .name = "page_size",
     .label = "page_size",
     .brief = "page",
     .type = KNOB_TYPE_INT,
     .autoable = true,
     .min = 1,
     .max = 1024,
     .range = "auto or 1..1024",
     .steps = KNOB_STEPS_POW2,
     .default_text = "auto (the backend's)",
     .unit = "tokens",
     .help = "--page-size: tokens per KV page",
     .field = KNOB_FIELD_U32,
     .offset = AT(knobs.page_size),
     .auto_offset = AT(knobs.page_size_auto),
     RESOLVED(layout.page_size),
     .sglang_flag = "--page-size"},
    {.id = KNOB_SGLANG,
     .name = "sglang",
     .label = "sglang",
     .brief = "rel",
     .type = KNOB_TYPE_RELEASE,
     .range = "0.3.0.. 0.5.N[.postN|rcN] or main",
     .default_text = "main (" ENGINE_RELEASE_MAIN_DATE ")",
     .unit = "",
     .help = "the SGLang release: its capture list, logits buffers and flags",
     .field = KNOB_FIELD_RELEASE,
     .offset = AT(knobs.sglang)},
    /* The fit rule's two allowances. SGLang's tuning guide (docs_new/docs/advanced_features/
     * hyperparameter_tuning.mdx) aims for an available_gpu_mem of 5-8 GB after capture, the
     * memory activations and fragmentation draw on: the margin is its low end, and with it the
     * article's k3-dp16 gets its own 0.920. */
    {.id = KNOB_MARGIN,
     .name = "margin",
     .label = "margin",
     .brief = "margin",
     .type = KNOB_TYPE_INT,
     .min = 0,
     .max = 68719476736.0,
     .range = "0..64G bytes",
     .steps = KNOB_STEPS_LINEAR,
     .step_first = 0,
     .step_size = 536870912.0,
     .default_text = "5G (5 GiB: SGLang's tuning guide aims for 5-8 GB available_gpu_mem)",
     .unit = "bytes",
     .help = "memory left free at the recommended --mem-fraction-static (5G = 5 GiB, 5g = 5e9)",
     .field = KNOB_FIELD_U64,
     .offset = AT(margin_bytes),
     .human_int = true},
    /* 4096 tokens per running request: a short chat turn with its answer; both article
     * deployments hold more at their own max_bs (k3-dp16 about 8k, k3-dp2-dcp8 about 57k). */
    {.id = KNOB_MIN_KV,
     .name = "min_kv_tokens",
     .label = "min_kv",
     .brief = "kvmin",
     .type = KNOB_TYPE_INT,
     .min = 0,
     .max = 16777216,
     .range = "0..16M tokens",
     .steps = KNOB_STEPS_POW2,
     .default_text = "4096",
     .unit = "tokens/request",
     .help = "KV tokens the pool must hold for every running request (max_bs per DP rank) to fit",
     .field = KNOB_FIELD_U64,
     .offset = AT(knobs.min_kv_tokens),
     .human_int = true},
    /* The driver's bytes per kernel node of an instantiated graph: the GPU's empirical default
     * (graph_nodes.c) unless a measurement or the operator's own figure says otherwise. */
    {.id = KNOB_NODE_BYTES,
     .name = "node_bytes",
     .label = "node_bytes",
     .brief = "node",
     .type = KNOB_TYPE_INT,
     .autoable = true,
     .min = 256,
     .max = 1048576,
     .range = "auto or 256..1M bytes",
     .default_text = "auto (the GPU's: its preset, else its arch's empirical fit)",
     .unit = "bytes",
     .help = "bytes the CUDA driver keeps per kernel node of each captured graph (15K = 15 KiB)",
     .field = KNOB_FIELD_U64,
     .offset = AT(node_bytes),
     .auto_offset = AT(knobs.node_bytes_auto),
     RESOLVED(node_bytes),
     .human_int = true},
    {.id = KNOB_BOUND,
     .name = "bound",
     .label = "bound",
     .brief = "bound",
     .type = KNOB_TYPE_ENUM,
     .choices = engine_bound_names,
     .n_choices = BOUND_COUNT,
     .range = "high or expected",
     .default_text = "high",
     .unit = "",
     .help = "which end of each term's range the fraction, the wall, solve, search and launch plan on",
     .field = KNOB_FIELD_ENUM,
     .offset = AT(knobs.bound)},
    {.id = KNOB_SWA_RATIO,
     .name = "swa_full_tokens_ratio",
     .label = "swa_ratio",
     .brief = "swa",
     .type = KNOB_TYPE_FRACTION,
     .min = 0.01,
     .max = 1.0,
     .range = "0.01..1",
     .default_text = "0.8 (SGLang's)",
     .unit = "",
     .help = "--swa-full-tokens-ratio: sliding-window pool tokens per full-attention token (hybrid SWA models)",
     .field = KNOB_FIELD_DOUBLE,
     .offset = AT(knobs.swa_full_tokens_ratio),
     .sglang_flag = "--swa-full-tokens-ratio"},
    {.id = KNOB_MAMBA_RATIO,
     .name = "mamba_full_memory_ratio",
     .label = "mamba_ratio",
     .brief = "mamba",
     .type = KNOB_TYPE_FRACTION,
     .min = 0.01,
     .max = 16.0,
     .range = "0.01..16",
     .default_text = "0.9 (SGLang's)",
     .unit = "",
     .help = "--mamba-full-memory-ratio: the linear-attention state pool's memory per byte of KV pool",
     .field = KNOB_FIELD_DOUBLE,
     .offset = AT(knobs.mamba_full_memory_ratio),
     .sglang_flag = "--mamba-full-memory-ratio"},
    /* Only a hybrid model's state pool sees it (model_runner_kv_cache_mixin.py
     * handle_max_mamba_cache); the prefix cache itself lives inside the KV pool. */
    {.id = KNOB_DISABLE_RADIX,
     .name = "disable_radix_cache",
     .label = "no_radix",
     .brief = "norad",
     .type = KNOB_TYPE_BOOL,
     .range = "on or off",
     .default_text = "off",
     .unit = "",
     .help = "--disable-radix-cache: a hybrid model's state pool holds one state per running request instead of "
             "its share of the memory",
     .field = KNOB_FIELD_BOOL,
     .offset = AT(knobs.disable_radix_cache),
     .sglang_flag = "--disable-radix-cache"},
    /* model_config.py: is_hybrid_swa = is_hybrid_swa_model(...) and not disable_hybrid_swa_memory */
    {.id = KNOB_DISABLE_HYBRID_SWA,
     .name = "disable_hybrid_swa_memory",
     .label = "no_swa_pool",
     .brief = "noswa",
     .type = KNOB_TYPE_BOOL,
     .range = "on or off",
     .default_text = "off",
     .unit = "",
     .help = "--disable-hybrid-swa-memory: a sliding-window model's windowed layers keep every token in the "
             "full-attention pool instead of a pool of their own",
     .field = KNOB_FIELD_BOOL,
     .offset = AT(knobs.disable_hybrid_swa_memory),
     .sglang_flag = "--disable-hybrid-swa-memory"},
};

/* Whether name is a flag's ServerArgs field: argparse's dest, the flag without "--" and with '-'
 * read as '_' (server_args.py add_cli_args), so cuda_graph_max_bs and tp_size name their knobs. */
static bool is_field_of_flag(const char *name, const char *flag)
{
    if (!flag || strncmp(flag, "--", 2) != 0)
        return false;
    const char *f = flag + 2;
    for (; *f && *name; f++, name++)
        if (*name != (*f == '-' ? '_' : *f))
            return false;
    return *f == '\0' && *name == '\0';
}

const engine_knob_info *engine_knob_find(const char *name)
{
    for (int i = 0; i < KNOB_COUNT; i++)
        if (strcmp(engine_knobs[i].name, name) == 0 ||
            (engine_knobs[i].alias && strcmp(engine_knobs[i].alias, name) == 0))
            return &engine_knobs[i];
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[i];
        if (is_field_of_flag(name, k->sglang_flag) || is_field_of_flag(name, k->sglang_flag_alt) ||
            (k->sglang_env && strcmp(k->sglang_env, name) == 0))
            return k;
    }
    return NULL;
}

void engine_knob_steps_text(const engine_knob_info *k, char *buf, size_t len)
{
    switch (k->steps) {
    case KNOB_STEPS_CAPTURE_GRID:
        snprintf(buf, len, "next size of SGLang's capture grid");
        break;
    case KNOB_STEPS_DIVISORS:
        snprintf(buf, len, "next divisor of %s", k->base->name);
        break;
    case KNOB_STEPS_LINEAR:
        if (strcmp(k->unit, "bytes") == 0 && k->step_size >= ENGINE_MIB && fmod(k->step_size, ENGINE_MIB) == 0)
            snprintf(buf, len, "%.0f MiB", k->step_size / ENGINE_MIB); /* a size step reads as a size */
        else
            snprintf(buf, len, "%g", k->step_size);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k->leaving_auto ? " (leaving auto " : "",
                 k->leaving_auto ? k->leaving_auto : "");
        if (k->leaving_auto)
            snprintf(buf + strlen(buf), len - strlen(buf), ")");
        break;
    case KNOB_STEPS_POW2:
        snprintf(buf, len, "power of two");
        break;
    case KNOB_STEPS_NONE:
        snprintf(buf, len, "none (typed)");
        break;
    }
}

void engine_knob_apply_order(engine_knob_id out[KNOB_COUNT])
{
    /* A knob whose rule divides a base goes after the knobs that make the base: bases first,
     * in table order, then the divisor knobs by the depth of their base. world makes dp's
     * base; world and dp make dcp's (attn_tp). */
    int n = 0;
    out[n++] = KNOB_WORLD;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (engine_knobs[i].steps == KNOB_STEPS_DIVISORS && engine_knobs[i].base == &base_world)
            out[n++] = (engine_knob_id)i;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (engine_knobs[i].steps == KNOB_STEPS_DIVISORS && engine_knobs[i].base != &base_world)
            out[n++] = (engine_knob_id)i;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (i != KNOB_WORLD && engine_knobs[i].steps != KNOB_STEPS_DIVISORS)
            out[n++] = (engine_knob_id)i;
}

void engine_knob_mask_names(uint32_t mask, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int k = 0; k < KNOB_COUNT && used < len; k++)
        if (mask & KNOB_BIT(k))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "", engine_knobs[k].name);
}


int engine_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void engine_copy_text(char *dst, size_t cap, const char *src)
{
    if (!cap)
        return;
    size_t n = src ? strnlen(src, cap - 1) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

/* ---- Typed access through the row's offsets. ---- */

static void *field_ptr(engine_deployment *d, size_t offset)
{
    return (char *)d + offset;
}
static const void *field_cptr(const engine_deployment *d, size_t offset)
{
    return (const char *)d + offset;
}

static bool has_auto(const engine_knob_info *k)
{
    return k->type == KNOB_TYPE_INT_OR_AUTO || k->type == KNOB_TYPE_LIST_OR_AUTO || k->autoable;
}

bool engine_knob_is_auto(const engine_deployment *d, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    return has_auto(k) && *(const bool *)field_cptr(d, k->auto_offset);
}

static void set_auto_flag(engine_deployment *d, const engine_knob_info *k, bool on)
{
    if (has_auto(k))
        *(bool *)field_ptr(d, k->auto_offset) = on;
}

bool engine_knob_set_auto(engine_deployment *d, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (!has_auto(k) || engine_knob_is_auto(d, knob))
        return false;
    set_auto_flag(d, k, true);
    if (k->field == KNOB_FIELD_LIST)
        *(uint32_t *)field_ptr(d, k->count_offset) = 0;
    return true;
}

/* The stored number (not resolved): what the field holds. */
static double raw_value(const engine_deployment *d, const engine_knob_info *k)
{
    const void *p = field_cptr(d, k->offset);
    switch (k->field) {
    case KNOB_FIELD_U32:
        return *(const uint32_t *)p;
    case KNOB_FIELD_U64:
        return (double)*(const uint64_t *)p;
    case KNOB_FIELD_DOUBLE:
        return *(const double *)p;
    case KNOB_FIELD_ENUM:
        return *(const int *)p;
    case KNOB_FIELD_BOOL:
        return *(const bool *)p;
    case KNOB_FIELD_RELEASE:
    case KNOB_FIELD_LIST:
    case KNOB_FIELD_NAME:
        break;
    }
    return 0;
}

static void store_number(engine_deployment *d, const engine_knob_info *k, uint64_t v)
{
    void *p = field_ptr(d, k->offset);
    if (k->field == KNOB_FIELD_U32)
        *(uint32_t *)p = (uint32_t)v;
    else if (k->field == KNOB_FIELD_U64)
        *(uint64_t *)p = v;
}

size_t engine_knob_value_size(const engine_deployment *d, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    switch (k->field) {
    case KNOB_FIELD_U32:
        return sizeof(uint32_t);
    case KNOB_FIELD_U64:
        return sizeof(uint64_t);
    case KNOB_FIELD_DOUBLE:
        return sizeof(double);
    case KNOB_FIELD_NAME:
        return ENGINE_NAME_MAX;
    case KNOB_FIELD_RELEASE:
        return sizeof(engine_release);
    case KNOB_FIELD_ENUM:
        return sizeof(int);
    case KNOB_FIELD_BOOL:
        return sizeof(bool);
    case KNOB_FIELD_LIST:
        return *(const uint32_t *)field_cptr(d, k->count_offset) * sizeof(uint32_t);
    }
    return 0;
}

void engine_knob_copy(engine_deployment *dst, const engine_deployment *src, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (k->field == KNOB_FIELD_LIST)
        *(uint32_t *)field_ptr(dst, k->count_offset) = *(const uint32_t *)field_cptr(src, k->count_offset);
    memcpy(field_ptr(dst, k->offset), field_cptr(src, k->offset), engine_knob_value_size(src, knob));
    if (has_auto(k))
        set_auto_flag(dst, k, engine_knob_is_auto(src, knob));
}

bool engine_knob_equal(const engine_deployment *a, const engine_deployment *b, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (engine_knob_is_auto(a, knob) != engine_knob_is_auto(b, knob))
        return false;
    if (engine_knob_is_auto(a, knob))
        return true;
    switch (k->field) {
    case KNOB_FIELD_NAME:
        return strcmp((const char *)field_cptr(a, k->offset), (const char *)field_cptr(b, k->offset)) == 0;
    case KNOB_FIELD_RELEASE:
        return engine_release_cmp(field_cptr(a, k->offset), field_cptr(b, k->offset)) == 0;
    case KNOB_FIELD_LIST: {
        uint32_t n = *(const uint32_t *)field_cptr(a, k->count_offset);
        return n == *(const uint32_t *)field_cptr(b, k->count_offset) &&
               memcmp(field_cptr(a, k->offset), field_cptr(b, k->offset), n * sizeof(uint32_t)) == 0;
    }
    default:
        return raw_value(a, k) == raw_value(b, k);
    }
}

/* ---- Parsing. ---- */

/* Strict integer parse: digits only (surrounding blanks allowed), no sign, no overflow. */
static bool parse_u64(const char *text, uint64_t *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

/* SGLang's human_readable_int (utils/common.py, read by --context-length): a number with an
 * optional suffix, lower-case k, m, g decimal (10^3, 10^6, 10^9), upper-case K, M, G binary
 * (2^10, 2^20, 2^30); a fractional mantissa is allowed ("1.5K") when the product is whole. */
static bool parse_human_u64(const char *text, uint64_t *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text))
        return false;
    errno = 0;
    char *end;
    double mant = strtod(text, &end);
    if (errno || end == text)
        return false;
    uint64_t mul = 1;
    switch (*end) {
    case 'k': mul = 1000; end++; break;
    case 'm': mul = 1000000; end++; break;
    case 'g': mul = 1000000000; end++; break;
    case 'K': mul = 1u << 10; end++; break;
    case 'M': mul = 1u << 20; end++; break;
    case 'G': mul = 1u << 30; end++; break;
    default: break;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    if (mul == 1) /* no suffix: the exact integer, not through a double */
        return parse_u64(text, out);
    double v = mant * (double)mul;
    if (!(v >= 0) || v > 1.8e19 || v != floor(v))
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A plain decimal number: strtod also reads hex floats ("0x1p-1"), infinities and NaN, which
 * nobody means as a fraction. */
static bool parse_fraction(const char *text, double *out)
{
    for (const char *c = text; *c; c++)
        if (!isdigit((unsigned char)*c) && !strchr(".eE+- \t", *c))
            return false;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

static uint32_t largest_divisor_not_above(uint32_t n, uint32_t limit)
{
    for (uint32_t v = limit < n ? limit : n; v > 1; v--)
        if (n % v == 0)
            return v;
    return 1;
}

/* After any change: every divisor knob (in apply order, so dp moves before dcp) must still
 * divide its base; one that does not moves to the largest divisor not above it. */
static void keep_divisors(engine_deployment *d, engine_warnings *adj)
{
    engine_knob_id order[KNOB_COUNT];
    engine_knob_apply_order(order);
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[order[i]];
        if (k->steps != KNOB_STEPS_DIVISORS)
            continue;
        uint32_t base = k->base->value(&d->knobs);
        uint32_t v = (uint32_t)raw_value(d, k);
        if (engine_knob_is_auto(d, order[i]) || v == 0 || base == 0 || base % v == 0)
            continue;
        uint32_t moved = largest_divisor_not_above(base, v);
        engine_warn(adj, "adjusted", "%s %u does not divide %s %u: %s is now %u", k->name, v, k->base->name, base,
                    k->name, moved);
        store_number(d, k, moved);
    }
}

static int set_integer(engine_deployment *d, engine_knob_id knob, uint64_t v, engine_warnings *adj, char *err,
                       size_t errlen)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (k->field != KNOB_FIELD_U32 && k->field != KNOB_FIELD_U64)
        return engine_fail(err, errlen, "%s is not an integer knob", k->name);
    if (v < (uint64_t)k->min || v > (uint64_t)k->max)
        return engine_fail(err, errlen, "%s=%llu is outside %s", k->name, (unsigned long long)v, k->range);
    if (k->steps == KNOB_STEPS_DIVISORS) {
        uint32_t base = k->base->value(&d->knobs);
        if (base == 0 || base % v != 0) {
            char how[96] = "";
            if (k->base->how)
                snprintf(how, sizeof how, " (= %s)", k->base->how);
            return engine_fail(err, errlen, "%s=%llu does not divide %s %u%s: use one of its divisors", k->name,
                        (unsigned long long)v, k->base->name, base, how);
        }
    }
    store_number(d, k, v);
    set_auto_flag(d, k, false);
    keep_divisors(d, adj);
    return 0;
}

static int set_list_text(engine_deployment *d, const engine_knob_info *k, const char *text, char *err, size_t errlen)
{
    while (isspace((unsigned char)*text))
        text++;
    if (strcmp(text, "auto") == 0) {
        set_auto_flag(d, k, true);
        *(uint32_t *)field_ptr(d, k->count_offset) = 0;
        return 0;
    }
    /* "[1, 2, 4]", "1,2,4" or SGLang's own space-separated form "1 2 4" (--cuda-graph-bs-decode
     * is nargs="+") */
    uint32_t list[ENGINE_MAX_BUCKETS];
    uint32_t n = 0;
    const char *p = text;
    bool bracket = *p == '[';
    if (bracket)
        p++;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ']' || *p == '\0')
            break;
        if (!isdigit((unsigned char)*p))
            return engine_fail(err, errlen, "%s: expected 'auto' or a list of integers like [1, 2, 4], got '%s'", k->name,
                        text);
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (v < (unsigned long)k->min || v > (unsigned long)k->max)
            return engine_fail(err, errlen, "%s: size %lu is outside %g..%g", k->name, v, k->min, k->max);
        if (n >= ENGINE_MAX_BUCKETS)
            return engine_fail(err, errlen, "%s: more than %d sizes", k->name, ENGINE_MAX_BUCKETS);
        list[n++] = (uint32_t)v;
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',')
            p++;
        else if (*p != ']' && *p != '\0' && !isdigit((unsigned char)*p))
            return engine_fail(err, errlen, "%s: expected ',', ' ' or ']' after %lu in '%s'", k->name, v, text);
    }
    /* A '[' is closed by a ']' with nothing after it; without '[' no ']' may stand. */
    if (bracket != (*p == ']'))
        return engine_fail(err, errlen, "%s: '%s' %s", k->name, text,
                           bracket ? "opens '[' but does not close it" : "closes a ']' it never opened");
    if (*p == ']') {
        p++;
        while (isspace((unsigned char)*p))
            p++;
        if (*p)
            return engine_fail(err, errlen, "%s: unexpected '%s' after the list in '%s'", k->name, p, text);
    }
    if (n == 0)
        return engine_fail(err, errlen, "%s: the list is empty (use 'auto' for SGLang's grid)", k->name);
    set_auto_flag(d, k, false);
    *(uint32_t *)field_ptr(d, k->count_offset) = n;
    memcpy(field_ptr(d, k->offset), list, n * sizeof list[0]);
    return 0;
}

/* cgplan's older names of SGLang choices, still read. */
static const struct {
    const char *old, *now;
} choice_aliases[] = {{"dsa", "nsa"}, {"fp8", "fp8_e4m3"}};

static int set_choice_text(engine_deployment *d, const engine_knob_info *k, const char *text, char *err, size_t errlen)
{
    if (k->autoable && strcmp(text, "auto") == 0) {
        set_auto_flag(d, k, true);
        return 0;
    }
    if (k->type == KNOB_TYPE_BOOL) {
        /* the spellings a launch script or Python's str(bool) uses */
        static const char *const on_words[] = {"on", "true", "yes", "1"};
        static const char *const off_words[] = {"off", "false", "no", "0"};
        bool on = false, off = false;
        for (size_t w = 0; w < sizeof on_words / sizeof on_words[0]; w++) {
            on |= strcasecmp(text, on_words[w]) == 0;
            off |= strcasecmp(text, off_words[w]) == 0;
        }
        if (!on && !off)
            return engine_fail(err, errlen, "%s=%s: expected on or off (true/false, yes/no, 1/0)%s", k->name, text,
                               k->autoable ? ", or auto" : "");
        *(bool *)field_ptr(d, k->offset) = on;
        set_auto_flag(d, k, false);
        return 0;
    }
    const char *name = text;
    for (size_t a = 0; a < sizeof choice_aliases / sizeof choice_aliases[0]; a++)
        if (strcmp(text, choice_aliases[a].old) == 0)
            name = choice_aliases[a].now;
    for (int i = 0; i < k->n_choices; i++)
        if (strcmp(k->choices[i], name) == 0) {
            *(int *)field_ptr(d, k->offset) = i;
            set_auto_flag(d, k, false);
            return 0;
        }
    char list[512] = "";
    for (int i = 0; i < k->n_choices; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", k->choices[i]);
    return engine_fail(err, errlen, "%s=%s: expected %s%s", k->name, text, k->autoable ? "auto, " : "", list);
}

int engine_knob_set_text(engine_deployment *d, engine_knob_id knob, const char *text, engine_warnings *adj, char *err,
                         size_t errlen)
{
    const engine_knob_info *k = &engine_knobs[knob];
    switch (k->type) {
    case KNOB_TYPE_INT:
    case KNOB_TYPE_INT_OR_AUTO: {
        if ((k->type == KNOB_TYPE_INT_OR_AUTO || k->autoable) && strcmp(text, "auto") == 0) {
            set_auto_flag(d, k, true);
            return 0;
        }
        uint64_t v;
        if (k->human_int ? !parse_human_u64(text, &v) : !parse_u64(text, &v))
            return engine_fail(err, errlen, "%s=%s: expected %s%s", k->name, text, k->range,
                               k->human_int ? " (an integer, or with k/m/g = 10^3/10^6/10^9, K/M/G = 2^10/2^20/2^30)" : "");
        return set_integer(d, knob, v, adj, err, errlen);
    }
    case KNOB_TYPE_FRACTION: {
        double v;
        if (!parse_fraction(text, &v))
            return engine_fail(err, errlen, "%s=%s: expected a number in %s", k->name, text, k->range);
        return engine_knob_set_value(d, knob, v, adj, err, errlen);
    }
    case KNOB_TYPE_LIST_OR_AUTO:
        return set_list_text(d, k, text, err, errlen);
    case KNOB_TYPE_ENUM:
    case KNOB_TYPE_BOOL:
        return set_choice_text(d, k, text, err, errlen);
    case KNOB_TYPE_RELEASE: {
        char why[ENGINE_TEXT_MAX];
        engine_release *r = field_ptr(d, k->offset);
        if (engine_release_parse(text, r, why, sizeof why) != 0)
            return engine_fail(err, errlen, "%s=%s: %s", k->name, text, why);
        if (engine_release_model_note(r, why, sizeof why)) /* newer than main: planned as main */
            engine_warn(adj, "adjusted", "%s", why);
        return 0;
    }
    case KNOB_TYPE_NAME:
        break;
    }
    return engine_fail(err, errlen, "%s names a preset and is resolved by the caller", k->name);
}

void engine_plan_decode_server(engine_deployment *d)
{
    d->decode_server = true; /* the sliding-window cap takes its decode side (engine_swa_cap_of) */
    if (d->knobs.disable_radix_cache)
        return;
    d->knobs.disable_radix_cache = true;
    d->knob_origin[KNOB_DISABLE_RADIX] = ORIGIN_RELEASE;
}

/* The value an auto knob resolves to, read from the estimate where the row says. */
static double resolved_value(const engine_deployment *d, const engine_estimate *e, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (!k->resolved_offset)
        return raw_value(d, k);
    engine_estimate scratch;
    if (!e) {
        engine_estimate_terms_quiet(d, NULL, &scratch);
        e = &scratch;
    }
    const void *p = (const char *)e + k->resolved_offset;
    switch (k->field) {
    case KNOB_FIELD_U32:
        return *(const uint32_t *)p;
    case KNOB_FIELD_U64:
        return (double)*(const uint64_t *)p;
    case KNOB_FIELD_ENUM:
        return *(const int *)p;
    case KNOB_FIELD_BOOL:
        return *(const bool *)p;
    default:
        return raw_value(d, k);
    }
}

double engine_knob_value(const engine_deployment *d, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (engine_knob_is_auto(d, knob) && k->resolved_offset)
        return resolved_value(d, NULL, knob);
    return raw_value(d, k);
}

int engine_knob_set_value(engine_deployment *d, engine_knob_id knob, double value, engine_warnings *adj, char *err,
                          size_t errlen)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (k->type == KNOB_TYPE_FRACTION) {
        if (!(value >= k->min - 1e-9 && value <= k->max + 1e-9))
            return engine_fail(err, errlen, "%s=%g is outside %s", k->name, value, k->range);
        *(double *)field_ptr(d, k->offset) = value;
        return 0;
    }
    if (k->type != KNOB_TYPE_INT && k->type != KNOB_TYPE_INT_OR_AUTO)
        return engine_fail(err, errlen, "%s has no numeric value", k->name);
    if (!(value >= 0) || value != floor(value))
        return engine_fail(err, errlen, "%s=%g: expected an integer in %s", k->name, value, k->range);
    return set_integer(d, knob, (uint64_t)value, adj, err, errlen);
}

/* ---- Steps. ---- */

static size_t push(double *out, size_t n, size_t cap, double v)
{
    if (n < cap)
        out[n] = v;
    return n + 1;
}

size_t engine_knob_steps(const engine_deployment *d, engine_knob_id knob, double *out, size_t cap)
{
    const engine_knob_info *k = &engine_knobs[knob];
    size_t n = 0;
    switch (k->steps) {
    case KNOB_STEPS_CAPTURE_GRID: {
        uint32_t grid[ENGINE_MAX_BUCKETS];
        size_t g = engine_bucket_grid((uint32_t)k->max, d->knobs.mtp > 1, grid, ENGINE_MAX_BUCKETS);
        for (size_t i = 0; i < g; i++)
            n = push(out, n, cap, grid[i]);
        break;
    }
    case KNOB_STEPS_DIVISORS: {
        uint32_t base = k->base->value(&d->knobs);
        for (uint32_t v = 1; v <= base; v++)
            if (base % v == 0)
                n = push(out, n, cap, v);
        break;
    }
    case KNOB_STEPS_LINEAR: {
        /* The knob's minimum comes first when the walk starts above it (world: 1, 8, 16, ...);
         * an auto knob's walk starts at its first step (max_dispatch: 8, 16, ...). */
        if (k->step_first > k->min && !has_auto(k))
            n = push(out, n, cap, k->min);
        long count = lround((k->max - k->step_first) / k->step_size);
        for (long i = 0; i <= count; i++)
            n = push(out, n, cap, k->step_first + k->step_size * (double)i);
        break;
    }
    case KNOB_STEPS_POW2:
        for (double v = 1; v <= k->max; v *= 2)
            if (v >= k->min)
                n = push(out, n, cap, v);
        break;
    case KNOB_STEPS_NONE:
        return 0;
    }
    return n < cap ? n : cap;
}

int engine_knob_step(engine_deployment *d, engine_knob_id knob, int delta, int to_end, engine_warnings *adj, char *err,
                     size_t errlen)
{
    const engine_knob_info *k = &engine_knobs[knob];
    double steps[ENGINE_MAX_BUCKETS + 1];
    size_t n = engine_knob_steps(d, knob, steps, sizeof steps / sizeof steps[0]);
    if (n == 0)
        return engine_fail(err, errlen, "%s has no steps: type a value", k->name);
    /* Leaving auto starts from the resolved value. */
    double v = engine_knob_value(d, knob);
    bool was_auto = engine_knob_is_auto(d, knob);
    long i;
    if (to_end) {
        i = to_end > 0 ? (long)n - 1 : 0;
    } else if (delta > 0) {
        size_t j = 0;
        while (j < n && steps[j] <= v + 1e-9)
            j++;
        if (j == n)
            return 1;
        i = (long)j + delta - 1;
    } else {
        long j = (long)n - 1;
        while (j >= 0 && steps[j] >= v - 1e-9)
            j--;
        if (j < 0)
            return 1;
        i = j + delta + 1;
    }
    i = i < 0 ? 0 : i >= (long)n ? (long)n - 1 : i;
    if (!was_auto && fabs(steps[i] - v) < 1e-9)
        return 1;
    return engine_knob_set_value(d, knob, steps[i], adj, err, errlen) == 0 ? 0 : -1;
}

/* ---- Text. ---- */

static void list_text(const engine_deployment *d, const engine_knob_info *k, bool canonical, char *buf, size_t len)
{
    uint32_t n = *(const uint32_t *)field_cptr(d, k->count_offset);
    const uint32_t *v = field_cptr(d, k->offset);
    size_t used = 0;
    buf[0] = '\0';
    const char *sep = canonical ? "," : ", ";
    for (uint32_t i = 0; i < n && used + 16 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? sep : canonical ? "" : "[", v[i]);
    if (!canonical && used + 2 <= len)
        snprintf(buf + used, len - used, "]");
}

/* The shortest %g text that reads back as the same double. */
static void exact_real(double v, char *buf, size_t len)
{
    for (int digits = 3; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void engine_knob_text(const engine_deployment *d, const engine_estimate *e, engine_knob_id knob,
                      engine_knob_text_style style, char *buf, size_t len)
{
    const engine_knob_info *k = &engine_knobs[knob];
    bool is_auto = engine_knob_is_auto(d, knob);
    if (k->field == KNOB_FIELD_NAME) {
        snprintf(buf, len, "%s", (const char *)field_cptr(d, k->offset));
        return;
    }
    if (k->field == KNOB_FIELD_RELEASE) {
        engine_release_text(field_cptr(d, k->offset), buf, len);
        return;
    }
    if (k->field == KNOB_FIELD_LIST) {
        if (style == KNOB_TEXT_SHORT) { /* the count of sizes captured */
            engine_estimate scratch;
            if (!e) {
                engine_estimate_terms_quiet(d, NULL, &scratch);
                e = &scratch;
            }
            snprintf(buf, len, "%u", e->n_buckets);
        } else if (is_auto)
            snprintf(buf, len, "auto");
        else
            list_text(d, k, style == KNOB_TEXT_CANONICAL, buf, len);
        return;
    }
    if (!is_auto && k->field == KNOB_FIELD_ENUM) {
        int v = *(const int *)field_cptr(d, k->offset);
        snprintf(buf, len, "%s", v >= 0 && v < k->n_choices ? k->choices[v] : "?");
        return;
    }
    if (!is_auto && k->field == KNOB_FIELD_BOOL) {
        snprintf(buf, len, "%s", *(const bool *)field_cptr(d, k->offset) ? "on" : "off");
        return;
    }
    if (is_auto && (style == KNOB_TEXT_FULL || style == KNOB_TEXT_SHORT) && k->resolved_offset &&
        k->type != KNOB_TYPE_INT_OR_AUTO && k->type != KNOB_TYPE_INT) { /* "auto (fa3)" */
        double v = resolved_value(d, e, knob);
        const char *name = k->field == KNOB_FIELD_BOOL            ? (v != 0 ? "on" : "off")
                           : (int)v >= 0 && (int)v < k->n_choices ? k->choices[(int)v]
                                                                  : "?";
        snprintf(buf, len, style == KNOB_TEXT_FULL ? "auto (%s)" : "auto %s", name);
        return;
    }
    if (is_auto && !(k->resolved_offset && (style == KNOB_TEXT_FULL || style == KNOB_TEXT_SHORT))) {
        snprintf(buf, len, "auto");
        return;
    }
    if (is_auto) {
        snprintf(buf, len, style == KNOB_TEXT_FULL ? "auto (%.0f)" : "auto %.0f", resolved_value(d, e, knob));
        return;
    }
    double v = raw_value(d, k);
    if (k->field == KNOB_FIELD_DOUBLE) {
        double used = knob == KNOB_SWA_RATIO ? engine_swa_ratio(d) : v;
        if (style == KNOB_TEXT_CANONICAL)
            exact_real(v, buf, len);
        else if (fabs(used - v) > 1e-9) /* the ratio the pools are sized with, not the flag's default */
            snprintf(buf, len, "%.3f (DeepSeek-V4's default)", used);
        else
            snprintf(buf, len, "%.3f", v);
        return;
    }
    unsigned long long u = k->field == KNOB_FIELD_U64 ? *(const uint64_t *)field_cptr(d, k->offset) : (uint64_t)v;
    if (style == KNOB_TEXT_SHORT && (k->steps == KNOB_STEPS_POW2 || k->human_int)) { /* 1M, 128K */
        if (u >= ENGINE_GIB && u % ENGINE_GIB == 0) {
            snprintf(buf, len, "%lluG", u / ENGINE_GIB);
            return;
        }
        if (u >= ENGINE_MIB && u % ENGINE_MIB == 0)
            snprintf(buf, len, "%lluM", u / ENGINE_MIB);
        else if (u >= 1024 && u % 1024 == 0)
            snprintf(buf, len, "%lluK", u / 1024);
        else
            snprintf(buf, len, "%llu", u);
        return;
    }
    if ((style == KNOB_TEXT_FULL || style == KNOB_TEXT_DISPLAY) && strcmp(k->unit, "bytes") == 0) {
        snprintf(buf, len, "%.2f GiB", (double)u / (double)ENGINE_GIB); /* a size reads in GiB */
        return;
    }
    snprintf(buf, len, "%llu", u);
}

void engine_knob_format(const engine_deployment *d, engine_knob_id knob, char *buf, size_t len)
{
    engine_knob_text(d, NULL, knob, KNOB_TEXT_FULL, buf, len);
}
