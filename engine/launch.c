/* launch.c — the SGLang launch command of a plan (CLI.md, launch). Flags are those of
 * python/sglang/srt/server_args.py at the release the plan names; each is cited where it is
 * chosen. */
#include "launch.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* server_args.py ATTENTION_BACKEND_CHOICES (main 2026-07-20): "flashinfer" selects
 * flashinfer_mla_backend.py on an MLA model; "nsa" is still accepted (a deprecated alias of
 * "dsa" on main, the only name in older releases). Indexed by engine_backend. */
static const char *const sglang_backend_names[BACKEND_COUNT] = {
    "flashinfer", "trtllm_mla", "flashmla", "cutlass_mla", "flashinfer",  "fa3",
    "fa4",        "triton",     "aiter",    "trtllm_mha",  "nsa",         "torch_native",
    "dsv4",
};

const char *engine_launch_backend_name(engine_backend b)
{
    return b >= 0 && b < BACKEND_COUNT ? sglang_backend_names[b] : "auto";
}

static void add_arg(engine_launch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_arg(engine_launch *l, const char *fmt, ...)
{
    if (l->n_args >= ENGINE_LAUNCH_MAX_ARGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->args[l->n_args++], sizeof l->args[0], fmt, ap);
    va_end(ap);
}

static void refuse(engine_launch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(engine_launch *l, const char *fmt, ...)
{
    if (l->n_refusals >= ENGINE_LAUNCH_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->refusals[l->n_refusals++], sizeof l->refusals[0], fmt, ap);
    va_end(ap);
}

/* The graph flags of the release: PR #23906 (2026-06-09) added --cuda-graph-max-bs-decode and
 * --cuda-graph-bs-decode and deprecated the older names. */
static void graph_flag(const engine_deployment *d, engine_knob_id knob, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", engine_knobs[knob].sglang_flag,
             engine_release_has_decode_graph_flags(&d->knobs.sglang) ? "-decode" : "");
}

int engine_launch_release_refusals(const engine_knobs_state *k, char (*why)[ENGINE_TEXT_MAX], int cap)
{
    char rel[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(&k->sglang, rel, sizeof rel);
    int n = 0;
#define REFUSE(...)                                                                                                    \
    do {                                                                                                               \
        if (n < cap)                                                                                                   \
            snprintf(why[n], ENGINE_TEXT_MAX, __VA_ARGS__);                                                            \
        n++;                                                                                                           \
    } while (0)
    /* argparse refuses a flag the release does not define (release.c, the flag facts). */
    if (k->dcp > 1 && !engine_release_has_flag(&k->sglang, ENGINE_FLAG_DCP_SIZE))
        REFUSE("SGLang %s has no --dcp-size (decode context parallel is in main from 2026-06-24)", rel);
    if (k->mtp > 1 && !engine_release_has_flag(&k->sglang, ENGINE_FLAG_SPECULATIVE))
        REFUSE("SGLang %s has no --speculative-algorithm (speculative decoding from v0.4.1.post4, PR #2150)", rel);
    if (!k->buckets_auto && !engine_release_has_flag(&k->sglang, ENGINE_FLAG_CUDA_GRAPH_BS))
        REFUSE("SGLang %s has no --cuda-graph-bs (an explicit bucket list from v0.4.1.post5, PR #2761): "
               "use buckets=auto",
               rel);
    if (!k->backend_auto && !engine_release_has_flag(&k->sglang, ENGINE_FLAG_ATTENTION_BACKEND))
        REFUSE("SGLang %s has no --attention-backend (from v0.3.1, PR #1380): use attention_backend=auto", rel);
    /* server_args.py _handle_dcp_validation: CUDA builds reject any speculative algorithm with
     * dcp > 1. */
    if (k->dcp > 1 && k->mtp > 1)
        REFUSE("SGLang %s rejects dcp %u with mtp %u (speculative decoding) on CUDA builds (_handle_dcp_validation)",
               rel, k->dcp, k->mtp);
#undef REFUSE
    return n;
}

/* SGLang caps each ModelRunner's profiled pool at --max-total-tokens (model_runner_kv_cache_mixin.py
 * init_memory / _resolve_token_capacity on main; model_runner.py init_memory_pool before it:
 * min(profiled, max_total_tokens), then floored to page_size). Every rank profiles and caps its
 * own pool, and unlike --max-running-requests the value is not divided by dp_size: it is one DP
 * rank's pool. With DCP the allocator holds max_total_num_tokens x dcp_size logical tokens
 * (PagedTokenToKVPoolAllocator(max_total_num_tokens * dcp_size, ...)): the cap is per rank's
 * slots, the estimate's kv_tokens (x dcp) over dcp. */
uint64_t engine_launch_pinned_tokens(const engine_deployment *d, const engine_estimate *e)
{
    uint32_t dcp = d->knobs.dcp ? d->knobs.dcp : 1;
    uint32_t page = e->layout.page_size ? e->layout.page_size : 1;
    uint64_t slots = e->budget.kv_pool_bytes > 0 ? e->budget.kv_tokens / dcp : 0;
    return slots / page * page;
}

void engine_launch_build(const engine_deployment *d, const engine_estimate *e, const engine_launch_opts *o,
                         engine_launch *l)
{
    static const engine_launch_opts none = {0};
    const engine_knobs_state *k = &d->knobs;
    const engine_layout *lay = &e->layout;
    if (!o)
        o = &none;
    memset(l, 0, sizeof *l);
    l->mem_fraction_static = k->mem_fraction_static;
    /* dp replicas without DP attention are dp servers of tp GPUs each, one process group: the
     * data-parallel controller gives each replica its own tp_size GPUs (data_parallel_controller.py
     * launch_dp_schedulers), so the nodes cover tp x dp. */
    l->gpus = k->world * (!lay->dp_attention && k->dp > 1 ? k->dp : 1);
    l->nnodes = (l->gpus + ENGINE_LAUNCH_GPUS_PER_NODE - 1) / ENGINE_LAUNCH_GPUS_PER_NODE;
    l->fits = engine_warnings_blocking(&e->warnings, NULL) == 0;
    for (int i = 0; i < e->warnings.n; i++)
        if (e->warnings.items[i].severity == SEVERITY_BLOCKING)
            refuse(l, "does not fit: %s: %s", e->warnings.items[i].code, e->warnings.items[i].message);

    bool rejected = false;
    char why[ENGINE_LAUNCH_MAX_NOTES][ENGINE_TEXT_MAX];
    int n_why = engine_launch_release_refusals(k, why, ENGINE_LAUNCH_MAX_NOTES);
    for (int i = 0; i < n_why && i < ENGINE_LAUNCH_MAX_NOTES; i++) {
        refuse(l, "%s%s", why[i], o->allow_patched ? "; printed anyway for a patched build (--allow-patched)" : "");
        rejected = true;
    }
    l->patched = rejected && o->allow_patched;
    l->rejected = rejected && !o->allow_patched;

    /* The environment: max_dispatch is read only from SGLang's environment (environ.py). */
    if (lay->deepep) {
        snprintf(l->env[l->n_env++], sizeof l->env[0], "%s=%u", engine_knobs[KNOB_MAX_DISPATCH].sglang_env,
                 e->max_dispatch);
        const engine_warning *qp = engine_warning_find(&e->warnings, "qp_depth");
        if (qp)
            snprintf(l->env[l->n_env++], sizeof l->env[0], "NVSHMEM_QP_DEPTH=%.0f", qp->value);
    }

    const engine_model *m = &d->model;
    const char *path = m->n_hf_names ? m->hf_names[0] : m->name;
    /* Texts from a preset or a config are one shell word each, so the line runs nothing else
     * (issue 21); ENGINE_LAUNCH_ARG_MAX holds the longest such word quoted. */
    char word[ENGINE_LAUNCH_ARG_MAX];
    engine_shell_quote(word, sizeof word, path);
    add_arg(l, "--model-path %s", word);
    if (m->trust_remote_code)
        add_arg(l, "--trust-remote-code");
    /* --tp-size, not --tp: argparse's abbreviation of it (server_args.py add_cli_args). */
    add_arg(l, "%s %u", engine_knobs[KNOB_WORLD].sglang_flag, k->world);
    if (lay->moe && lay->ep > 1)
        add_arg(l, "%s %u", engine_knobs[KNOB_EP].sglang_flag, lay->ep);
    if (lay->dp_attention && k->dp > 1)
        add_arg(l, "%s %u %s", engine_knobs[KNOB_DP].sglang_flag, k->dp, engine_knobs[KNOB_DP_ATTENTION].sglang_flag);
    else if (k->dp > 1) /* dp replicas of tp GPUs each (the data-parallel controller) */
        add_arg(l, "%s %u", engine_knobs[KNOB_DP].sglang_flag, k->dp);
    else if (lay->dp_attention) /* dp_attention=on at dp 1: the path the plan was estimated on */
        add_arg(l, "%s", engine_knobs[KNOB_DP_ATTENTION].sglang_flag);
    if (k->dcp > 1)
        add_arg(l, "%s %u", engine_knobs[KNOB_DCP].sglang_flag, k->dcp);
    if (lay->deepep)
        add_arg(l, "%s deepep", engine_knobs[KNOB_A2A].sglang_flag);
    if (lay->deepep && k->deepep_mode != DEEPEP_AUTO)
        add_arg(l, "%s %s", engine_knobs[KNOB_DEEPEP_MODE].sglang_flag, engine_deepep_mode_names[k->deepep_mode]);
    if (lay->moe && !k->moe_runner_auto)
        add_arg(l, "%s %s", engine_knobs[KNOB_MOE_RUNNER].sglang_flag, engine_moe_runner_names[k->moe_runner]);
    if (engine_release_has_flag(&k->sglang, ENGINE_FLAG_ATTENTION_BACKEND)) /* v0.3.1 on (PR #1380) */
        add_arg(l, "%s %s", engine_knobs[KNOB_ATTENTION_BACKEND].sglang_flag, engine_launch_backend_name(lay->backend));
    if (k->kv_dtype != KV_DTYPE_AUTO)
        add_arg(l, "%s %s", engine_knobs[KNOB_KV_DTYPE].sglang_flag, engine_kv_dtype_names[k->kv_dtype]);
    if (!k->page_size_auto)
        add_arg(l, "%s %u", engine_knobs[KNOB_PAGE_SIZE].sglang_flag, k->page_size);
    if (k->tbo)
        add_arg(l, "%s", engine_knobs[KNOB_TBO].sglang_flag);
    if (k->disable_radix_cache)
        add_arg(l, "%s", engine_knobs[KNOB_DISABLE_RADIX].sglang_flag);
    if (k->disable_hybrid_swa_memory)
        add_arg(l, "%s", engine_knobs[KNOB_DISABLE_HYBRID_SWA].sglang_flag);

    char flag[64];
    /* Before v0.3.5 (PR #1809) there is no --cuda-graph-max-bs: the release's fixed list, cut
     * by the request pool printed below, is what the plan captured (the capture notes'
     * no_max_bs_flag), so the flag is left out rather than refused by argparse. */
    graph_flag(d, KNOB_MAX_BS, flag, sizeof flag);
    if (engine_release_has_flag(&k->sglang, ENGINE_FLAG_CUDA_GRAPH_MAX_BS))
        add_arg(l, "%s %u", flag, k->max_bs);
    if (!k->buckets_auto) { /* SGLang's form: nargs="+", space-separated */
        char list[160];
        size_t used = 0;
        list[0] = '\0';
        for (uint32_t i = 0; i < e->n_buckets && used + 8 < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", i ? " " : "", e->buckets[i]);
        graph_flag(d, KNOB_BUCKETS, flag, sizeof flag);
        add_arg(l, "%s %s", flag, list);
    }
    if (k->mtp > 1) {
        /* MTP as EAGLE with one draft token per step (server_args.py speculative_*). */
        add_arg(l, "--speculative-algorithm EAGLE");
        add_arg(l, "--speculative-num-steps %u", k->mtp - 1);
        add_arg(l, "--speculative-eagle-topk 1");
        add_arg(l, "%s %u", engine_knobs[KNOB_MTP].sglang_flag, k->mtp);
        if (m->draft_separate) {
            engine_shell_quote(word, sizeof word, m->draft_model_path[0] ? m->draft_model_path : "DRAFT_PATH");
            add_arg(l, "--speculative-draft-model-path %s", word);
        }
    }
    /* Under speculation SGLang defaults to 48 running requests and clamps the capture list to
     * the pool: the plan's own pool is printed (engine_plan_max_running_requests). */
    add_arg(l, "%s %u", engine_knobs[KNOB_MAX_RUNNING_REQUESTS].sglang_flag, engine_plan_max_running_requests(k));
    add_arg(l, "%s %llu", engine_knobs[KNOB_CONTEXT_LEN].sglang_flag, (unsigned long long)k->context_len);
    add_arg(l, "%s %.3f", engine_knobs[KNOB_MEM_FRACTION].sglang_flag, k->mem_fraction_static);
    if (o->pin_kv) {
        l->max_total_tokens = engine_launch_pinned_tokens(d, e);
        if (l->max_total_tokens)
            add_arg(l, "--max-total-tokens %llu", (unsigned long long)l->max_total_tokens);
        else
            refuse(l, "--pin-kv: the plan has no KV pool to pin (kv_tokens 0)");
    }
    if (o->disaggregation_mode)
        add_arg(l, "--disaggregation-mode %s", o->disaggregation_mode);
}

size_t engine_launch_command(const engine_launch *l, uint32_t node, char *buf, size_t len)
{
    size_t used = 0;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int n_ = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, __VA_ARGS__);                  \
        used += n_ > 0 ? (size_t)n_ : 0;                                                                               \
    } while (0)
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < l->n_env; i++)
        PUT("%s%s", i ? " " : "", l->env[i]);
    PUT("%spython3 -m sglang.launch_server", l->n_env ? " " : "");
    for (int i = 0; i < l->n_args; i++)
        PUT(" \\\n  %s", l->args[i]);
    if (l->nnodes > 1) /* HOST:PORT: node 0's address, replaced by the operator */
        PUT(" \\\n  --nnodes %u --node-rank %u --dist-init-addr HOST:PORT", l->nnodes, node);
#undef PUT
    return used;
}
