/* search.c — search (solve.h): every layout of a model on N GPUs, ranked. Moved from solve.c. */
#include "solve.h"

#include "launch.h"

#include <string.h>

/* ---- search ---- */

static bool better(const engine_layout_result *a, const engine_layout_result *b)
{
    if (a->concurrency != b->concurrency)
        return a->concurrency > b->concurrency;
    return a->kv_per_request > b->kv_per_request;
}

/* Whether BASE's user fixed KNOB (--set, or --sglang-args read as one). */
static bool held(const engine_deployment *base, engine_knob_id knob)
{
    return base->knob_origin[knob] == ORIGIN_SET;
}

static bool same_layout(const engine_layout_result *a, const engine_layout_result *b)
{
    return a->tp == b->tp && a->dp == b->dp && a->dp_attention == b->dp_attention && a->dcp == b->dcp &&
           a->a2a == b->a2a && a->ep == b->ep;
}

size_t engine_search(const engine_deployment *base, const engine_calibration *cal, const engine_search_opts *o,
                     engine_layout_result *out, size_t cap, engine_search_counts *counts, engine_estimate *e)
{
    size_t n = 0;
    memset(counts, 0, sizeof *counts);
    for (int k = 0; k < KNOB_COUNT; k++)
        if ((ENGINE_SEARCH_KNOBS & KNOB_BIT(k)) && held(base, (engine_knob_id)k))
            counts->held |= KNOB_BIT(k);
#define HELD(k) ((counts->held & KNOB_BIT(k)) != 0)
    const engine_knobs_state *bk = &base->knobs;
    const engine_model *m = &base->model;
    bool moe = m->num_experts > 0;
    uint32_t max_mtp = m->draft_layers ? (o->max_mtp ? o->max_mtp : 8) : 1;
    for (uint32_t tp = 1; tp <= o->gpus; tp++) {
        if (o->gpus % tp || (HELD(KNOB_WORLD) && tp != bk->world))
            continue;
        uint32_t replicas = o->gpus / tp;
        for (uint32_t dp = 1; dp <= tp; dp++) {
            if (tp % dp || (HELD(KNOB_DP) && dp != bk->dp))
                continue;
            for (int dpa = 0; dpa <= 1; dpa++) {
                if (HELD(KNOB_DP_ATTENTION) && dpa != (int)bk->dp_attention)
                    continue;
                if (dpa && dp == 1)
                    continue; /* DP attention needs dp > 1 */
                if (!dpa && dp > 1)
                    continue; /* dp without DP attention is replicas, counted by tp */
                uint32_t attn_tp = tp / dp;
                for (uint32_t dcp = 1; dcp <= attn_tp; dcp++) {
                    if (attn_tp % dcp || (dcp > 1 && m->attn_kind != ATTN_MLA) || (HELD(KNOB_DCP) && dcp != bk->dcp))
                        continue;
                    for (int a = 0; a < (moe ? 2 : 1); a++) {
                        engine_a2a a2a = moe && a == 0 ? A2A_DEEPEP : A2A_NONE;
                        if (HELD(KNOB_A2A) && a2a != base->a2a)
                            continue;
                        if (a2a == A2A_DEEPEP && tp == 1)
                            continue; /* DeepEP dispatches across GPUs */
                        for (uint32_t mtp = 1; mtp <= (HELD(KNOB_MTP) ? bk->mtp : max_mtp); mtp++) {
                            if (HELD(KNOB_MTP) && mtp != bk->mtp)
                                continue;
                            engine_deployment d = *base;
                            d.knobs.world = tp;
                            d.knobs.dp = dp;
                            d.knobs.dp_attention = dpa;
                            d.knobs.dp_attention_auto = false;
                            d.knobs.dcp = dcp;
                            d.knobs.mtp = mtp;
                            d.a2a = a2a;
                            d.knobs.ep_auto = !HELD(KNOB_EP);
                            /* What the release cannot run is not a layout (launch holds the rule). */
                            if (engine_launch_release_refusals(&d.knobs, NULL, 0)) {
                                counts->refused++;
                                continue;
                            }
                            d.knobs.max_dispatch_auto = true;
                            d.knobs.buckets_auto = true;
                            d.knobs.max_running_requests_auto = true;
                            /* a preset's measured weights and state stay: the budget uses them
                             * only at the layout they were measured at (measured_at), as
                             * `estimate --preset P --set ...` does for the same row */
                            counts->scanned++;
                            engine_estimate_compute_quiet(&d, cal, e); /* numbers only: no text is read */
                            const engine_budget *b = &e->budget;
                            if (!b->wall_max_bs)
                                continue;
                            engine_layout_result r = {0};
                            r.tp = tp;
                            r.dp = dp;
                            r.dp_attention = dpa;
                            r.ep = e->layout.ep;
                            r.dcp = dcp;
                            r.mtp = mtp;
                            r.a2a = a2a;
                            r.replicas = replicas;
                            r.max_bs = b->wall_max_bs;
                            r.mem_fraction_static = b->wall_mem_fraction_static;
                            r.limit = b->wall_term;
                            r.limit_key = b->wall_limit ? b->wall_limit : engine_terms[b->wall_term].key;
                            r.weights_bytes = b->weights_bytes;
                            d.knobs.max_bs = b->wall_max_bs;
                            engine_fit f;
                            engine_fit_at_recommended(&d, cal, e, &f);
                            r.kv_tokens = f.kv_tokens;
                            r.kv_per_request = r.max_bs ? f.kv_tokens / r.max_bs : 0;
                            r.concurrency = (uint64_t)replicas * (dpa ? dp : 1) * r.max_bs;
                            size_t at = n;
                            if (!o->all) /* one row per layout: its best mtp */
                                for (size_t j = 0; j < n; j++)
                                    if (same_layout(&out[j], &r)) {
                                        at = j;
                                        break;
                                    }
                            if (at < n) {
                                counts->folded++;
                                if (better(&r, &out[at]))
                                    out[at] = r;
                            } else if (n < cap) {
                                out[n++] = r;
                            }
                        }
                    }
                }
            }
        }
    }
#undef HELD
    for (size_t i = 1; i < n; i++) { /* insertion sort: a few hundred layouts */
        engine_layout_result x = out[i];
        size_t j = i;
        while (j > 0 && better(&x, &out[j - 1])) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    for (size_t i = 0; i < n; i++) {
        out[i].pareto = true;
        for (size_t j = 0; j < n && out[i].pareto; j++)
            if (j != i && out[j].concurrency >= out[i].concurrency && out[j].kv_per_request >= out[i].kv_per_request &&
                (out[j].concurrency > out[i].concurrency || out[j].kv_per_request > out[i].kv_per_request))
                out[i].pareto = false;
    }
    return n;
}
