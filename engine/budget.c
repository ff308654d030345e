/* budget.c — the budget of an estimate (MODEL.md, "Budget"): the memory before and after the
 * weights, the KV pool at a fraction, the fit rule, the recommended fraction, the wall and what
 * stops it, and post-capture KV sizing. The terms come from estimate.c. */
#include "engine.h"
#include "estimate_internal.h"
#include "dsv4.h"
#include "weights.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DISPATCH KNOB_BIT(KNOB_MAX_DISPATCH)

/* ---- Budget and wall (MODEL.md, "Budget"). ---- */

static uint64_t pre_load_free(const engine_deployment *d)
{
    if (d->pre_load_free_bytes)
        return d->pre_load_free_bytes;
    uint64_t context = (uint64_t)(0.8 * (double)ENGINE_GIB); /* CUDA context + NCCL before weights */
    return d->gpu.cuda_total_bytes > context ? d->gpu.cuda_total_bytes - context : 0;
}

/* P x (1 - f): what SGLang leaves outside the static pool for graphs and the runtime. */
static int64_t reserve_of(const engine_deployment *d, double f)
{
    return (int64_t)llround((double)pre_load_free(d) * (1.0 - f));
}

engine_measured_layout engine_measured_layout_of(const engine_deployment *d)
{
    const engine_knobs_state *k = &d->knobs;
    engine_measured_layout l = {.known = true,
                                .world = k->world,
                                .dp = k->dp,
                                .dcp = k->dcp,
                                /* the knobs' a2a, not the model's: a preset records it before its model loads */
                                .ep = estimate_ep_under(k, d->a2a == A2A_DEEPEP),
                                .dp_attention = engine_dp_attention(k)};
    return l;
}

void engine_measured_layout_record(engine_deployment *d)
{
    d->measured_at = engine_measured_layout_of(d);
}

static bool same_layout(const engine_measured_layout *a, const engine_measured_layout *b)
{
    return a->world == b->world && a->dp == b->dp && a->dcp == b->dcp && a->ep == b->ep &&
           a->dp_attention == b->dp_attention;
}

bool engine_measured_layout_holds(const engine_deployment *d)
{
    if (!d->measured_at.known)
        return true;
    engine_measured_layout now = engine_measured_layout_of(d);
    return same_layout(&now, &d->measured_at);
}

void engine_measured_layout_text(const engine_measured_layout *l, const engine_measured_layout *other, char *buf,
                                 size_t len)
{
    char name[48], other_name[48] = "";
    engine_knobs_state k = {.world = l->world, .dp = l->dp, .dcp = l->dcp};
    engine_layout_name(&k, LAYOUT_NAME_PLAIN, name, sizeof name);
    if (other) {
        k.world = other->world, k.dp = other->dp, k.dcp = other->dcp;
        engine_layout_name(&k, LAYOUT_NAME_PLAIN, other_name, sizeof other_name);
    }
    if (!other || same_layout(l, other) || strcmp(name, other_name) != 0)
        snprintf(buf, len, "%s", name);
    else if (l->world != other->world)
        snprintf(buf, len, "%s on tp %u", name, l->world);
    else if (l->dp_attention != other->dp_attention)
        snprintf(buf, len, "%s with DP attention %s", name, l->dp_attention ? "on" : "off");
    else
        snprintf(buf, len, "%s, ep %u", name, l->ep);
}

/* The weights on one GPU: a measured figure (a log's "Load weight end ... mem usage", in the
 * preset) wins while the plan keeps the layout it was measured at; else what the model and the
 * layout put there (weights.c). */
static uint64_t plan_weights(const engine_deployment *d, const engine_estimate *e, bool *known)
{
    if (d->weights_bytes && engine_measured_layout_holds(d)) {
        *known = true;
        return d->weights_bytes;
    }
    const engine_knobs_state *k = &d->knobs;
    /* DeepSeek-V4's wo_a: FP8 where the release defaults SGLANG_OPT_FP8_WO_A_GEMM on and the GPU
     * is SM100 / SM103 (server_args.py turns it off below SM100; SM120 and ROCm force it off) */
    bool fp8_wo_a = d->model.attn_kind == ATTN_DSV4 && engine_release_dsv4_fp8_wo_a(&k->sglang) &&
                    (d->gpu.arch == GPU_ARCH_SM100 || d->gpu.arch == GPU_ARCH_SM103);
    return engine_weight_bytes_per_gpu_wo_a(&d->model, k->world, k->dp, e->layout.dp_attention, e->layout.ep, fp8_wo_a,
                                            known);
}

/* The requests one GPU's pool serves: a DP rank's share of the request pool (launch prints
 * max_bs per DP rank or replica when max_running_requests is auto). */
static uint32_t running_requests(const engine_deployment *d)
{
    const engine_knobs_state *k = &d->knobs;
    if (k->max_running_requests_auto)
        return k->max_bs;
    uint32_t dp = engine_dp_attention(k) && k->dp ? k->dp : 1;
    return (k->max_running_requests + dp - 1) / dp;
}

/* Whether the state pool is one state per running request: no radix cache keeps a prefix's
 * state, by --disable-radix-cache or because the release forces it off (before PR #11214). */
static bool state_per_request(const engine_deployment *d)
{
    return d->knobs.disable_radix_cache || !engine_release_mamba_radix(&d->knobs.sglang);
}

/* DeepSeek-V4 from PR #28612 (engine_release_dsv4_sum): the c128 compressor states a fixed pool
 * of request slots, taken off the available bytes before the per-token pools
 * (DSV4PoolConfigurator.calculate_pool_sizes): --max-running-requests per DP worker + 1, the flag
 * the plan launches with (engine_plan_max_running_requests). 0 for earlier releases. */
static uint64_t plan_dsv4_c128_state(const engine_deployment *d, uint64_t *slots)
{
    const engine_knobs_state *k = &d->knobs;
    engine_dsv4_shape shape = engine_dsv4_shape_of(&d->model);
    engine_dsv4_launch launch = engine_dsv4_launch_of(d);
    if (!launch.c128_per_request)
        return 0;
    uint32_t dp = engine_dp_attention(k) && k->dp ? k->dp : 1;
    uint64_t req_slots = engine_plan_max_running_requests(k) / dp + 1;
    if (slots)
        *slots = req_slots;
    return engine_dsv4_c128_state_bytes(&shape, &launch, req_slots);
}

/* The linear-attention (KDA, Gated DeltaNet, Mamba) state pool as SGLang sizes it
 * (model_runner_kv_cache_mixin.py handle_max_mamba_cache): under speculation the running
 * requests' intermediate states (x draft tokens) come off what weights and the reserve leave;
 * then the pool takes r / (1 + r) of the rest, r = --mamba-full-memory-ratio (0.9), in whole
 * request states, and the KV pool the remainder. Without the radix cache (state_per_request)
 * the pool is one state per running request (max_mamba_cache_size = max_running_requests //
 * dp), whatever memory is left. One state is the model's per-request state, its heads split
 * over the attention group like the KV heads. A preset's figure wins.
 * REST is P - weights - P x (1 - f); SLOTS (may be NULL) gets the states the pool holds. */
static uint64_t plan_state(const engine_deployment *d, const engine_estimate *e, int64_t rest, uint64_t *slots)
{
    const engine_knobs_state *k = &d->knobs;
    if (slots)
        *slots = 0;
    bool held = engine_measured_layout_holds(d);
    if (d->model.attn_kind == ATTN_DSV4 && !(d->state_pool_bytes && held))
        return plan_dsv4_c128_state(d, slots);
    if ((d->state_pool_bytes && held) || !d->model.linear_state_bytes_per_request)
        return held ? d->state_pool_bytes : 0;
    uint64_t per_req = d->model.linear_state_bytes_per_request / (e->attn_tp ? e->attn_tp : 1);
    if (!per_req)
        return 0;
    uint64_t spec = k->mtp > 1 ? per_req * running_requests(d) * k->mtp : 0;
    double avail = (double)rest - (double)spec, r = k->mamba_full_memory_ratio;
    uint64_t n;
    if (state_per_request(d))
        n = running_requests(d);
    else if (avail <= 0 || r <= 0)
        return spec;
    else
        n = (uint64_t)(avail * r / (1 + r) / (double)per_req);
    if (slots)
        *slots = n;
    return n * per_req + spec;
}

/* (P - W) - P x (1 - f): what the state and KV pools share. SGLang multiplies f by P, not by the
 * total (kv_cache_configurator.py _profile_available_bytes). */
static int64_t rest_after_weights(const engine_deployment *d, const engine_estimate *e, int64_t reserve)
{
    bool known;
    return (int64_t)pre_load_free(d) - (int64_t)plan_weights(d, e, &known) - reserve;
}

/* KV pool = the rest less the state pool. */
static int64_t kv_pool_after(const engine_deployment *d, const engine_estimate *e, int64_t reserve)
{
    int64_t rest = rest_after_weights(d, e, reserve);
    return rest - (int64_t)plan_state(d, e, rest, NULL);
}

/* With DCP each GPU stores 1/dcp of the tokens (SGLang allocator, reference/sglang.md 3.5). */
static uint64_t kv_min_bytes_of(const engine_deployment *d, uint64_t cell)
{
    uint64_t dcp = d->knobs.dcp ? d->knobs.dcp : 1;
    uint64_t tokens = (uint64_t)running_requests(d) * d->knobs.min_kv_tokens;
    return (tokens * cell + dcp - 1) / dcp;
}

/* 1 - (graphs + O + margin) / P, floored to the three decimals SGLang's flag is written with,
 * so launching the printed value leaves at least the margin; at most the knob's top. */
static double recommended_fraction(const engine_deployment *d, uint64_t graph_total)
{
    double P = (double)pre_load_free(d);
    if (P <= 0)
        return 0;
    double f = 1.0 - (double)(graph_total + d->other_runtime_bytes + d->margin_bytes) / P;
    /* 1e-6: 0.91 computed as 0.90999.. is still 0.910; the floor by hand, since without SSE4.1
     * floor() is a library call on every probe of the wall */
    double scaled = f * 1000 + 1e-6;
    if (scaled > -1e15) { /* within int64_t (f < 1 always); absurd inputs take floor() */
        int64_t thousandths = (int64_t)scaled;
        if ((double)thousandths > scaled)
            thousandths--;
        f = (double)thousandths / 1000;
    } else {
        f = floor(scaled) / 1000;
    }
    double top = engine_knobs[KNOB_MEM_FRACTION].max;
    return f > top ? top : f;
}

bool engine_fraction_settable(double f)
{
    return f >= engine_knobs[KNOB_MEM_FRACTION].min - 1e-9;
}

/* The full-attention tokens (x dcp) a KV pool of POOL bytes holds at CELL bytes a token: by the
 * ratio, pool / cell; under the sliding-window cap (engine_swa_cap_of) the capped pool comes off
 * first and the full pool's tokens are floored to the page (SWAChunkCapPoolConfigurator
 * calculate_pool_sizes). */
static uint64_t kv_tokens_of(const engine_deployment *d, const engine_swa_cap *cap, int64_t pool, uint64_t cell)
{
    int64_t full = cap->applies ? pool - (int64_t)cap->fixed_bytes : pool;
    if (full <= 0 || !cell)
        return 0;
    uint64_t tokens = (uint64_t)full / cell;
    if (cap->applies)
        tokens = tokens / cap->page * cap->page;
    return tokens * d->knobs.dcp;
}

/* The fit rule at fraction F over a terms-only estimate E (its warnings are the combination's). */
static void fit_at(const engine_deployment *d, const engine_estimate *e, double f, engine_fit *out)
{
    uint64_t cell = engine_kv_cell_bytes(d);
    engine_swa_cap cap = engine_swa_cap_of(d);
    out->mem_fraction_static = f;
    int64_t reserve = reserve_of(d, f); /* once: the pool and the headroom share it */
    out->kv_pool_bytes = kv_pool_after(d, e, reserve);
    out->headroom_bytes = reserve - (int64_t)e->plan_total_bytes - (int64_t)d->other_runtime_bytes;
    /* the capped sliding-window pool is held whatever the requests' tokens */
    out->kv_min_bytes = kv_min_bytes_of(d, cell) + (cap.applies ? cap.fixed_bytes : 0);
    out->kv_tokens = kv_tokens_of(d, &cap, out->kv_pool_bytes, cell);
    out->blocking = NULL;
    bool known;
    uint64_t weights = plan_weights(d, e, &known);
    if (weights >= pre_load_free(d))
        out->blocking = "weights_exceed_gpu";
    else if (out->kv_pool_bytes <= 0 || (cap.applies && !out->kv_tokens)) /* the cap leaves no full pool */
        out->blocking = "kv_pool_exhausted";
    else if ((uint64_t)out->kv_pool_bytes < out->kv_min_bytes)
        out->blocking = "kv_per_request"; /* the request policy: the answers plan to it */
    else if (out->headroom_bytes < 0 || !engine_fraction_settable(f))
        out->blocking = "headroom_negative"; /* no fraction the knob can set leaves the graphs room */
    for (int i = 0; !out->blocking && i < e->warnings.n; i++)
        if (e->warnings.items[i].severity == SEVERITY_BLOCKING)
            out->blocking = estimate_warning_code(e->warnings.items[i].kind); /* blocking: a row of the table */
    out->fits = out->blocking == NULL;
}

bool engine_fit_at_recommended(const engine_deployment *d, const engine_calibration *cal, engine_estimate *scratch,
                               engine_fit *out)
{
    estimate_terms_run(d, cal, scratch, true); /* the scan reads numbers and codes, no text, no budget */
    fit_at(d, scratch, recommended_fraction(d, scratch->plan_total_bytes), out);
    return out->fits;
}

/* engine_fit_at_recommended for the wall's probes, with the plan's own kernel-node count. */
static bool probe_fits(const engine_deployment *d, const engine_calibration *cal, const engine_graph_nodes *nodes,
                       engine_estimate *scratch, engine_fit *out)
{
    estimate_terms_run_nodes(d, cal, scratch, true, nodes);
    fit_at(d, scratch, recommended_fraction(d, scratch->plan_total_bytes), out);
    return out->fits;
}

static engine_term_id largest_growth(const engine_estimate *a, const engine_estimate *b)
{
    engine_term_id best = TERM_LOGITS;
    int64_t best_growth = -1;
    for (int i = 0; i < TERM_COUNT; i++) {
        int64_t g = (int64_t)b->terms[i].bytes - (int64_t)a->terms[i].bytes;
        if (g < 0)
            g = -g;
        if (g > best_growth) {
            best_growth = g;
            best = (engine_term_id)i;
        }
    }
    return best;
}

static engine_term_id largest_term(const engine_estimate *e)
{
    engine_term_id best = TERM_LOGITS;
    for (int i = 0; i < TERM_COUNT; i++)
        if (e->terms[i].bytes > e->terms[best].bytes)
            best = (engine_term_id)i;
    return best;
}

/* A token count for sentences: 4096, 41k, 1.05M. */
static const char *tokens_text(uint64_t n, char *buf, size_t len)
{
    if (n < 10000)
        snprintf(buf, len, "%llu", (unsigned long long)n);
    else if (n < 1000000)
        snprintf(buf, len, "%.0fk", (double)n / 1e3);
    else
        snprintf(buf, len, "%.2fM", (double)n / 1e6);
    return buf;
}

/* "the KV pool holds 41k tokens, under min_kv_tokens 4096 x 48 requests": the policy's shortfall. */
static void per_request_text(const engine_deployment *d, uint64_t kv_tokens, char *buf, size_t len)
{
    char have[16], need[16];
    uint64_t want = (uint64_t)running_requests(d) * d->knobs.min_kv_tokens;
    snprintf(buf, len, "the KV pool holds %s tokens, under min_kv_tokens %llu x %u requests = %s",
             tokens_text(kv_tokens, have, sizeof have), (unsigned long long)d->knobs.min_kv_tokens, running_requests(d),
             tokens_text(want, need, sizeof need));
}

/* Why a plan evaluated by fit_at does not fit, once, in words (never inside the scan). */
void engine_fit_reason(const engine_deployment *d, const engine_calibration *cal, const engine_estimate *e,
                       const engine_fit *f, const char *lead, char *buf, size_t len)
{
    const char *code = f->blocking;
    double gib = (double)ENGINE_GIB;
    if (!code) {
        char have[16], need[16];
        snprintf(buf, len,
                 "%s fits at --mem-fraction-static %.3f: headroom %.2f GiB (margin %.2f), the KV pool holds %s "
                 "tokens (min_kv_tokens %llu x %u requests = %s)",
                 lead, f->mem_fraction_static, (double)f->headroom_bytes / gib, (double)d->margin_bytes / gib,
                 tokens_text(f->kv_tokens, have, sizeof have), (unsigned long long)d->knobs.min_kv_tokens,
                 running_requests(d),
                 tokens_text((uint64_t)running_requests(d) * d->knobs.min_kv_tokens, need, sizeof need));
    } else if (strcmp(code, "weights_exceed_gpu") == 0) {
        bool known;
        snprintf(buf, len, "the weights (%.2f GiB per GPU) exceed the GPU's %.2f GiB free before load (%s)",
                 (double)plan_weights(d, e, &known) / gib, (double)pre_load_free(d) / gib, code);
    } else if (strcmp(code, "kv_pool_exhausted") == 0 && f->kv_pool_bytes > 0) { /* the sliding-window cap's */
        engine_swa_cap cap = engine_swa_cap_of(d);
        snprintf(buf, len,
                 "%s at --mem-fraction-static %.3f: the capped sliding-window pool (%llu tokens, %.2f GiB) leaves no "
                 "full-attention pool in the %.2f GiB KV pool (%s)",
                 lead, f->mem_fraction_static, (unsigned long long)cap.cap_tokens, (double)cap.fixed_bytes / gib,
                 (double)f->kv_pool_bytes / gib, code);
    } else if (strcmp(code, "kv_pool_exhausted") == 0 && !engine_fraction_settable(f->mem_fraction_static)) {
        snprintf(buf, len,
                 "%s does not fit at any --mem-fraction-static: weights, state and the graphs' share take %.2f GiB "
                 "more than the GPU has (%s)",
                 lead, (double)-f->kv_pool_bytes / gib, code);
    } else if (strcmp(code, "kv_pool_exhausted") == 0) {
        snprintf(buf, len,
                 "%s at its recommended --mem-fraction-static %.3f leaves no KV pool: weights, state and the "
                 "graphs' share take %.2f GiB more than the GPU has (%s)",
                 lead, f->mem_fraction_static, (double)-f->kv_pool_bytes / gib, code);
    } else if (strcmp(code, "kv_per_request") == 0) {
        char why[160];
        per_request_text(d, f->kv_tokens, why, sizeof why);
        snprintf(buf, len, "%s at its recommended --mem-fraction-static %.3f: %s (%s)", lead, f->mem_fraction_static,
                 why, code);
    } else if (strcmp(code, "headroom_negative") == 0) {
        snprintf(buf, len, "%s: the graphs (%.2f GiB, %s end) leave no fraction with headroom (%s)", lead,
                 (double)e->plan_total_bytes / gib, engine_bound_names[d->knobs.bound], code);
    } else {
        char message[ENGINE_TEXT_MAX];
        engine_warning_message_for(d, cal, code, message, sizeof message);
        snprintf(buf, len, "%s: %.200s (%s)", lead, message, code);
    }
}

static void reason_text(const engine_deployment *d, const engine_calibration *cal, const engine_estimate *e,
                        const engine_fit *f, char *buf, size_t len)
{
    char lead[32];
    snprintf(lead, sizeof lead, "max_bs %u", d->knobs.max_bs);
    engine_fit_reason(d, cal, e, f, lead, buf, len);
}

const char *engine_fit_limit(const engine_fit *fits, const engine_fit *next, engine_term_id term)
{
    if (!next->blocking || strcmp(next->blocking, "kv_per_request") != 0)
        return engine_terms[term].key;
    if (!fits)
        return "kv_per_request";
    /* From the value that fits to the next, the requirement grows by the new requests' tokens and
     * the pool shrinks by what the graphs grow: the larger of the two is the true limit. */
    int64_t need = (int64_t)next->kv_min_bytes - (int64_t)fits->kv_min_bytes;
    int64_t shrink = fits->kv_pool_bytes - next->kv_pool_bytes;
    return need >= shrink ? "kv_per_request" : engine_terms[term].key;
}

/* The wall: the largest max_bs of SGLang's grid that fits at the fraction recommended for it.
 * A bisection over the grid, 1 and 1024 first: each step is one terms-only estimate, so the
 * whole wall costs ~9 estimates instead of one per grid size, and the size just above the wall
 * is always a tested failure. */
static void find_wall(const engine_deployment *d, const engine_calibration *cal, const engine_estimate *now,
                      engine_budget *b, bool quiet)
{
    engine_deployment p = *d;
    uint32_t grid[ENGINE_MAX_BUCKETS];
    size_t n = engine_bucket_grid(1024, d->knobs.mtp > 1, grid, ENGINE_MAX_BUCKETS);
    /* Three estimates, swapped by pointer: the fitting end, the failing end, the probe. */
    engine_estimate pool[3];
    engine_estimate *lo_e = &pool[0], *hi_e = &pool[1], *mid_e = &pool[2];
    engine_fit lo_f, hi_f, mid_f;
    b->wall_max_bs = 0;
    b->wall_next_bs = 0;
    b->wall_beyond_range = false;
    b->wall_code = NULL;
    b->wall_limit = NULL;
    b->wall_reason[0] = '\0';

    p.knobs.max_bs = grid[0];
    if (!probe_fits(&p, cal, &now->graph_nodes, lo_e, &lo_f)) { /* nothing fits */
        b->wall_code = lo_f.blocking;
        b->wall_term = largest_term(lo_e);
        b->wall_limit = engine_fit_limit(NULL, &lo_f, b->wall_term);
        if (!quiet)
            reason_text(&p, cal, lo_e, &lo_f, b->wall_reason, sizeof b->wall_reason);
        return;
    }
    p.knobs.max_bs = grid[n - 1];
    if (probe_fits(&p, cal, &now->graph_nodes, hi_e, &hi_f)) {
        b->wall_max_bs = grid[n - 1];
        b->wall_beyond_range = true;
        b->wall_mem_fraction_static = hi_f.mem_fraction_static;
        b->wall_term = largest_growth(now, hi_e);
        b->wall_limit = engine_terms[b->wall_term].key;
        return;
    }
    size_t lo = 0, hi = n - 1; /* grid[lo] fits, grid[hi] does not */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        p.knobs.max_bs = grid[mid];
        engine_estimate *t;
        if (probe_fits(&p, cal, &now->graph_nodes, mid_e, &mid_f)) {
            lo = mid;
            lo_f = mid_f;
            t = lo_e, lo_e = mid_e, mid_e = t;
        } else {
            hi = mid;
            hi_f = mid_f;
            t = hi_e, hi_e = mid_e, mid_e = t;
        }
    }
    b->wall_max_bs = grid[lo];
    b->wall_next_bs = grid[hi];
    b->wall_mem_fraction_static = lo_f.mem_fraction_static;
    b->wall_code = hi_f.blocking;
    /* A dispatch limit is the DeepEP buffer's (max_dispatch sizes it); a memory limit is the
     * term that grows most from the wall to the next size. */
    b->wall_term = largest_growth(lo_e, hi_e);
    if (estimate_warning_knobs(estimate_warning_kind(hi_f.blocking)) & DISPATCH)
        b->wall_term = TERM_DEEPEP;
    b->wall_limit = engine_fit_limit(&lo_f, &hi_f, b->wall_term);
    p.knobs.max_bs = grid[hi];
    if (!quiet)
        reason_text(&p, cal, hi_e, &hi_f, b->wall_reason, sizeof b->wall_reason);
}

/* SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (opt-in since PR #30157, 2026-07-07): the pool is reserved
 * as virtual memory, graphs are captured, then the pool is backed from what is free. HEAD's
 * server_args.post_capture_kv_sizing_planned() refuses MLA, dcp > 1 and DP attention. */
static void post_capture(const engine_deployment *d, const engine_estimate *e, engine_budget *b)
{
    const engine_knobs_state *k = &d->knobs;
    b->post_capture_applies = false;
    b->post_capture_kv_bytes = 0;
    if (k->sglang.stage != ENGINE_RELEASE_MAIN && !k->sglang.beyond_model)
        b->post_capture_why = "not in this release (main from 2026-07-07, PR #30157)";
    else if (d->model.attn_kind == ATTN_MLA)
        b->post_capture_why = "does not apply: SGLang plans it only off the MLA backend";
    else if (d->model.attn_kind == ATTN_DSV4) /* its pools are sized by DSv4's own calculator */
        b->post_capture_why = "not counted for DeepSeek-V4: whether it resizes DSv4's compressed pools is not known";
    else if (k->dcp > 1)
        b->post_capture_why = "does not apply: SGLang plans it only with dcp 1 (the DCP-sharded pool cannot resize)";
    else if (engine_dp_attention(k))
        b->post_capture_why = "does not apply: SGLang main (2026-07-20) plans it only without DP attention";
    else {
        /* The reserve shrinks to 512 + tp/8 x 1024 MiB (sglang.md 2.2 step 1) and the pool takes
         * what the captured graphs leave above P x (1 - f). */
        double G = (double)d->gpu.cuda_total_bytes / (double)ENGINE_MIB;
        double reserved = 512 + (double)k->world / 8 * 1024;
        double f = G > 0 ? round((G - reserved) / G * 1000) / 1000 : 0;
        int64_t free_after = (int64_t)pre_load_free(d) - (int64_t)b->weights_bytes - (int64_t)b->state_pool_bytes -
                             (int64_t)e->plan_total_bytes - (int64_t)d->other_runtime_bytes;
        int64_t kv = free_after - reserve_of(d, f);
        b->post_capture_applies = true;
        b->post_capture_kv_bytes = kv > 0 ? kv : 0;
        b->post_capture_why = "applies when SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1: the pool is sized after capture";
    }
}

/* The prefill graphs' sizes up to MAX on main (server_args.py _generate_prefill_cuda_graph_batch_sizes:
 * 4..32 by 4, 48..256 by 16, 288..512 by 32, 576..1024 by 64, 1280..4096 by 256, then by 512;
 * no append). */
static uint32_t prefill_graph_count(uint32_t max)
{
    static const uint32_t segs[][3] = {{4, 32, 4},      {48, 256, 16},     {288, 512, 32},
                                       {576, 1024, 64}, {1280, 4096, 256}, {4608, UINT32_MAX, 512}};
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++)
        for (uint64_t v = segs[i][0]; v <= segs[i][1] && v <= max; v += segs[i][2])
            n++;
    return n;
}

/* The --mem-fraction-static SGLang's server_args.py picks for D when none is given (reference/
 * sglang.md 2.2-2.3), G the GPU's memory in MiB (nvidia-smi's), B the plan's --cuda-graph-max-bs:
 *  - v0.3.0 .. v0.4.6.post1: a fraction by tp (engine_release_default_mem_fraction);
 *  - v0.4.8 .. v0.5.2 (PR #7054): reserved = a per-tier (a + tp / b) GiB, + 2048 MiB under
 *    speculation, + 4096 under DP attention;
 *  - v0.5.3rc2 .. v0.5.15 (PR #10372/#10975, inline in _handle_gpu_memory_settings): reserved =
 *    512 + 1.5 max(C, 2048) + the decode graphs' reserve (engine_heuristic_graph_bytes) + tp/8 GiB,
 *    floored to 10 GiB above 61,440 MiB, then the speculative add-on
 *    (engine_release_eagle_reserve_mib); a release whose add-on is not 2048 MiB is past
 *    2026-02-26, where piecewise prefill graphs (default-on from PR #16331) add a term not
 *    modelled here: unknown;
 *  - main (PR #30157, reserve_for_graph_mb / reserve_for_deepep_a2a_mb): the same, the prefill
 *    graphs' 8 MiB each where the breakable backend runs (not MLA, DP attention, an a2a backend
 *    or dcp > 1), and DeepEP's 2048 MiB after the floor (engine_heuristic_deepep_bytes);
 * then f = round((G - reserved) / G, 3). The H200 branch of v0.4.6.post2 .. v0.4.7 is unknown. */
static bool sglang_default_fraction(const engine_deployment *d, const engine_estimate *e, double *out)
{
    const engine_knobs_state *k = &d->knobs;
    double G = d->gpu.nvidia_smi_mib, tp = k->world, reserved;
    bool spec = k->mtp > 1, dpa = e->layout.dp_attention;
    if (!G || !k->world)
        return false;
    engine_heuristic_variant v = engine_release_heuristic_variant(&k->sglang);
    switch (v) {
    case ENGINE_HEURISTIC_TP_FRACTION:
        *out = engine_release_default_mem_fraction(&k->sglang, (uint32_t)G, k->world);
        return *out > 0;
    case ENGINE_HEURISTIC_TP_FRACTION_H200:
        return false;
    case ENGINE_HEURISTIC_GPU_TIER_RESERVE:
        reserved = (G < 35840 ? 2.8 + tp / 10 : G < 92160 ? 9.5 + tp / 2 : G < 163840 ? 12 + tp / 2 : 32) * 1024;
        reserved += (spec ? 2048 : 0) + (dpa ? 4096 : 0);
        break;
    case ENGINE_HEURISTIC_INLINE_FORMULA:
    case ENGINE_HEURISTIC_RESERVE_METHODS: {
        uint32_t eagle = engine_release_eagle_reserve_mib(&k->sglang);
        if (v == ENGINE_HEURISTIC_INLINE_FORMULA && eagle != 2048)
            return false;
        double chunk = engine_default_chunked_prefill(G);
        reserved = 512 + 1.5 * (chunk > 2048 ? chunk : 2048) +
                   (double)engine_heuristic_graph_bytes(k->max_bs, dpa ? k->dp : 1) / (double)ENGINE_MIB +
                   tp / 8 * 1024;
        /* the prefill graphs' share: not for MLA, nor DeepSeek-V4, whose prefill graphs server_args
         * turns off (test_server_args: test_disables_only_prefill_cuda_graph_for_dsv4_and_dsa) */
        if (v == ENGINE_HEURISTIC_RESERVE_METHODS && d->model.attn_kind == ATTN_GQA && !dpa &&
            engine_plan_a2a(d) == A2A_NONE && k->dcp <= 1) {
            uint64_t prefill_max =
                k->context_len && k->context_len < (uint64_t)chunk ? k->context_len : (uint64_t)chunk;
            reserved += 8.0 * prefill_graph_count((uint32_t)prefill_max);
        }
        if (G > 61440 && reserved < 10240)
            reserved = 10240;
        if (spec)
            reserved += eagle;
        if (v == ENGINE_HEURISTIC_RESERVE_METHODS)
            reserved += (double)engine_heuristic_deepep_bytes(engine_plan_a2a(d)) / (double)ENGINE_MIB;
        break;
    }
    default:
        return false;
    }
    *out = round((G - reserved) / G * 1000) / 1000;
    return *out > 0;
}

static void estimate_compute(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e, bool quiet)
{
    memset(&e->budget, 0, sizeof e->budget);
    estimate_terms_run(d, cal, e, quiet);
    engine_budget *b = &e->budget;
    const engine_knobs_state *k = &d->knobs;
    b->pre_load_free_bytes = pre_load_free(d);
    bool held = engine_measured_layout_holds(d);
    b->weights_measured = d->weights_bytes != 0 && held;
    b->state_measured = d->state_pool_bytes != 0 && held;
    b->measured_elsewhere = (d->weights_bytes || d->state_pool_bytes) && !held;
    b->weights_bytes = plan_weights(d, e, &b->weights_known);
    int64_t reserve = reserve_of(d, k->mem_fraction_static);
    b->state_pool_bytes = plan_state(d, e, rest_after_weights(d, e, reserve), &b->state_slots);
    b->state_per_request = b->state_slots && (state_per_request(d) || d->model.attn_kind == ATTN_DSV4);
    b->other_runtime_bytes = d->other_runtime_bytes;
    b->margin_bytes = d->margin_bytes;
    b->static_budget_bytes = (uint64_t)reserve;
    b->recommended_mem_fraction_static = recommended_fraction(d, e->plan_total_bytes);
    engine_fit now;
    fit_at(d, e, k->mem_fraction_static, &now);
    b->kv_pool_bytes = now.kv_pool_bytes;
    b->headroom_bytes = now.headroom_bytes;
    b->kv_min_bytes = now.kv_min_bytes;
    b->kv_tokens = now.kv_tokens;
    b->running_requests = running_requests(d);
    b->kv_cell_bytes = engine_kv_cell_split(d, &b->kv_cell_full_bytes, &b->kv_cell_swa_bytes);
    engine_swa_cap cap = engine_swa_cap_of(d);
    b->kv_swa_cap_tokens = cap.applies ? cap.cap_tokens : 0;
    if (cap.applies) /* the capped pool first, the full pool the rest (none where the cap takes it all) */
        b->kv_swa_pool_bytes = b->kv_pool_bytes <= 0                         ? 0
                               : b->kv_pool_bytes < (int64_t)cap.fixed_bytes ? b->kv_pool_bytes
                                                                             : (int64_t)cap.fixed_bytes;
    else
        b->kv_swa_pool_bytes =
            b->kv_cell_bytes && b->kv_pool_bytes > 0
                ? (int64_t)((double)b->kv_pool_bytes * (double)b->kv_cell_swa_bytes / (double)b->kv_cell_bytes)
                : 0;
    b->kv_full_pool_bytes = b->kv_pool_bytes - b->kv_swa_pool_bytes;
    b->kv_tokens_per_gib = b->kv_cell_bytes ? ENGINE_GIB / b->kv_cell_bytes * k->dcp : 0;
    find_wall(d, cal, e, b, quiet);
    post_capture(d, e, b);
    double sglang_f;
    b->sglang_default_known = sglang_default_fraction(d, e, &sglang_f);
    if (b->sglang_default_known) {
        engine_fit at_default;
        fit_at(d, e, sglang_f, &at_default);
        b->sglang_default_mem_fraction_static = sglang_f;
        b->sglang_default_kv_tokens = at_default.kv_tokens;
        b->sglang_default_kv_pool_bytes = at_default.kv_pool_bytes;
    }

    /* The budget's warnings, on the plan's own fraction (formatted once, here). */
    double gib = (double)ENGINE_GIB;
    double safe_fraction = b->recommended_mem_fraction_static;
    char brief[48];
    if (b->weights_bytes >= b->pre_load_free_bytes)
        WARN_AT(&e->warnings, "weights_exceed_gpu", (double)b->weights_bytes, (double)b->pre_load_free_bytes,
                "weights exceed the GPU",
                "weights of %.2f GiB per GPU exceed the %.2f GiB free before load on %s: use more GPUs (world) "
                "or a larger GPU",
                (double)b->weights_bytes / gib, (double)b->pre_load_free_bytes / gib, d->gpu.name);
    /* The pool's advice agrees with the headroom's: a higher fraction is offered only while the
     * graphs allow it (up to the recommended one), and only where it would be enough. */
    char advice[160] = "", safe_tokens[16];
    if (!e->warnings.quiet && !engine_fraction_settable(safe_fraction)) {
        snprintf(advice, sizeof advice,
                 "no --mem-fraction-static leaves the graphs room: lower max_bs or use more GPUs");
    } else if (!e->warnings.quiet) { /* the advice is text: the quiet estimates of search and the wall skip it */
        engine_fit at_safe;
        fit_at(d, e, safe_fraction, &at_safe);
        tokens_text(at_safe.kv_tokens, safe_tokens, sizeof safe_tokens);
        if (at_safe.kv_pool_bytes <= 0)
            snprintf(advice, sizeof advice,
                     "even %.3f, the most the graphs allow, leaves no KV pool: lower max_bs or use more GPUs",
                     safe_fraction);
        else if (fabs(k->mem_fraction_static - safe_fraction) < 0.0005)
            snprintf(advice, sizeof advice,
                     "%.3f is the most the graphs allow: lower max_bs or min_kv_tokens, or use more GPUs",
                     safe_fraction);
        else if (k->mem_fraction_static > safe_fraction)
            snprintf(advice, sizeof advice,
                     "the graphs allow at most %.3f, which holds %s tokens: lower max_bs or min_kv_tokens, or use "
                     "more GPUs",
                     safe_fraction, safe_tokens);
        else if ((uint64_t)at_safe.kv_pool_bytes < at_safe.kv_min_bytes)
            snprintf(advice, sizeof advice,
                     "even %.3f, the most the graphs allow, holds only %s tokens: lower max_bs or min_kv_tokens, "
                     "or use more GPUs",
                     safe_fraction, safe_tokens);
        else
            snprintf(advice, sizeof advice,
                     "raise mem_fraction_static to %.3f (the most the graphs allow: %s tokens), or lower max_bs or "
                     "min_kv_tokens",
                     safe_fraction, safe_tokens);
    }
    b->meets_min_kv = b->kv_pool_bytes > 0 && (uint64_t)b->kv_pool_bytes >= b->kv_min_bytes;
    if (b->kv_pool_bytes <= 0) {
        WARN_AT(&e->warnings, "kv_pool_exhausted", (double)b->kv_pool_bytes, 0, "no KV pool left",
                "no GPU memory for the KV cache: weights and state leave %.2f GiB at mem_fraction_static %.3f: %s",
                (double)b->kv_pool_bytes / gib, k->mem_fraction_static, advice);
    } else if (cap.applies && !b->kv_tokens) { /* SGLang raises: the cap leaves no full pool */
        WARN_AT(&e->warnings, "kv_pool_exhausted", (double)b->kv_pool_bytes, (double)cap.fixed_bytes,
                "no full KV pool left",
                "the capped sliding-window pool (%llu tokens, %.2f GiB) fills the %.2f GiB KV pool, SGLang "
                "refuses to start: lower max_running_requests; %s",
                (unsigned long long)cap.cap_tokens, (double)cap.fixed_bytes / gib, (double)b->kv_pool_bytes / gib,
                advice);
    } else if (!b->meets_min_kv) {
        char why[160];
        if (!e->warnings.quiet)
            per_request_text(d, b->kv_tokens, why, sizeof why);
        int before = e->warnings.n;
        WARN_AT(&e->warnings, "kv_per_request", (double)b->kv_pool_bytes, (double)b->kv_min_bytes,
                "KV under min_kv_tokens", "at mem_fraction_static %.3f %s: %s", k->mem_fraction_static, why, advice);
        /* A policy by default (SGLang starts; requests queue): binding where the operator set it. */
        engine_knob_origin o = d->knob_origin[KNOB_MIN_KV];
        if (e->warnings.n > before && (o == ORIGIN_SET || o == ORIGIN_PRESET))
            e->warnings.items[e->warnings.n - 1].severity = SEVERITY_BLOCKING;
    }
    bool settable = engine_fraction_settable(safe_fraction);
    if (settable)
        BRIEF(&e->warnings, brief, "OOM: use <= %.3f", safe_fraction);
    else
        BRIEF(&e->warnings, brief, "OOM at any fraction");
    char lower[64];
    if (settable)
        snprintf(lower, sizeof lower, "set it to %.3f or lower", safe_fraction);
    else
        snprintf(lower, sizeof lower, "no fraction leaves them room: lower max_bs or use more GPUs");
    if (b->headroom_bytes < 0)
        WARN_AT(&e->warnings, "headroom_negative", k->mem_fraction_static, safe_fraction, brief,
                "graphs need %.2f GiB more than mem_fraction_static %.3f leaves: the capture will OOM (%s)",
                (double)-b->headroom_bytes / gib, k->mem_fraction_static, lower);
    else if ((uint64_t)b->headroom_bytes < d->margin_bytes)
        WARN_AT(&e->warnings, "headroom_below_margin", (double)b->headroom_bytes, (double)d->margin_bytes,
                "headroom below the margin",
                "headroom %.2f GiB is below the margin %.2f GiB at mem_fraction_static %.3f (%.3f leaves it)",
                (double)b->headroom_bytes / gib, (double)d->margin_bytes / gib, k->mem_fraction_static, safe_fraction);
    /* With the radix cache SGLang admits at most slots / 3 requests (model_runner_kv_cache_mixin.py
     * init_memory_pool: max_num_reqs = min(max_num_reqs, max_mamba_cache_size //
     * MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO), 3; the mamba extra buffer adds 1 or 2 more per
     * request, so 3 is the most it admits). A plan past that runs fewer requests than it counts. */
    if (b->state_slots && !b->state_per_request && b->state_slots / 3 < b->running_requests)
        WARN_AT(&e->warnings, "state_caps_requests", (double)(b->state_slots / 3), (double)b->running_requests,
                "state pool caps requests",
                "the state pool holds %llu request states: SGLang admits at most %llu requests at once (3 states "
                "each with the radix cache), under the plan's %u per DP rank: raise --mamba-full-memory-ratio or "
                "lower max_bs",
                (unsigned long long)b->state_slots, (unsigned long long)(b->state_slots / 3), b->running_requests);
    if (!k->buckets_auto) { /* an explicit list still follows MODEL.md's Buckets rule */
        bool same = e->n_buckets == k->n_buckets;
        for (uint32_t i = 0; same && i < e->n_buckets; i++)
            same = e->buckets[i] == k->buckets[i];
        if (!same)
            engine_warn(
                &e->warnings, "adjusted",
                "buckets: the explicit list (%u sizes) is captured as %u sizes up to %u: sizes above max_bs "
                "drop, max_bs is appended, the divisibility filter applies (as SGLang's get_batch_sizes_to_capture)",
                k->n_buckets, e->n_buckets, e->bs_max);
    }
    b->fits = engine_warnings_blocking(&e->warnings, NULL) == 0;
}

void engine_estimate_compute(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    estimate_compute(d, cal, e, false);
}

void engine_estimate_compute_quiet(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    estimate_compute(d, cal, e, true);
}
