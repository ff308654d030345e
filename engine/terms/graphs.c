/* terms/graphs.c — each captured graph's own cost: the driver's records of its kernel nodes
 * (graph_nodes.c counts them), FlashInfer's per-size wrappers, NCCL's work for the collectives
 * captured, the per-graph logits of releases before PR #8579; and the draft graphs. */
#include "terms.h"

/* FlashInfer wrappers per captured size (flashinfer_backend.py _create_decode_wrappers,
 * flashinfer_mla_backend.py): each owns an 8 MiB device int workspace. */
static uint64_t wrappers_per_graph(const engine_deployment *d, const engine_layout *l)
{
    if (l->backend == BACKEND_FLASHINFER) {
        uint64_t w = d->model.swa_layers ? 2 : 1; /* num_wrappers: sliding window or not */
        return d->knobs.mtp > 1 ? 2 * w : w;      /* target verify adds its prefill set */
    }
    return l->backend == BACKEND_FLASHINFER_MLA ? 1 : 0;
}

/* Each captured graph's own cost (per-graph.md §3): the driver's node records, FlashInfer's
 * wrappers, NCCL's work for the collectives captured; or a fit's per-graph coefficient. */
void term_buckets(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    engine_term *t = set_term(e, TERM_BUCKETS, 0);
    if (has_fit(d, cal, COEF_GRAPH_BYTES)) {
        uint64_t graph = coef(d, cal, COEF_GRAPH_BYTES, t);
        uint64_t out_row = coef(d, cal, COEF_OUT_BYTES_PER_ROW, t);
        term_from_fit(e, t, PART_BUCKETS_FIT, graph * (e->n_buckets - 1) + out_row * e->other_bucket_rows,
                      "the deployment preset's fit (the article's per-bucket increments, two K3 runs)");
        return;
    }
    uint64_t n = e->n_buckets, bytes, lo, hi;
    e->graph_nodes_total = n * e->graph_nodes.nodes.expected;
    priced(e->graph_nodes_total, &e->node_bytes_range, &bytes, &lo, &hi);
    set_part(e, PART_BUCKETS_NODES, bytes, lo, hi);
    mark_nodes_part(e, PART_BUCKETS_NODES);
    uint64_t w = wrappers_per_graph(d, &e->layout) * n * 8 * ENGINE_MIB;
    set_part(e, PART_BUCKETS_WRAPPERS, w, w, w);
    /* NCCL inside each graph: the vocab all-gather, and the all-reduces custom all-reduce does not
     * serve (outside its group sizes, or inputs of bs x mtp x hidden x 2 B past its buffer). */
    uint64_t ops = 0;
    for (uint32_t i = 0; i < e->n_buckets; i++) {
        uint64_t ar_bytes = (uint64_t)e->buckets[i] * d->knobs.mtp * d->model.hidden * 2;
        ops += e->graph_nodes.vocab_gather;
        if (e->graph_nodes.allreduce && !engine_custom_ar_covers(d, e->attn_tp, ar_bytes))
            ops += e->graph_nodes.allreduce;
    }
    e->nccl_graph_ops = (uint32_t)ops;
    set_part(e, PART_BUCKETS_NCCL_WORK, ops * ENGINE_MIB / 5, ops * 16 * 1024, ops * 3 * ENGINE_MIB / 10);
    term_from_parts(e, t);
}

/* The draft graphs: the draft runners capture per size mtp - 1 decode steps and a draft extend
 * through the draft layers (their nodes), FlashInfer's per-step wrappers, and their outputs and
 * temporaries; or a fit's base and per-row coefficients. */
void term_draft(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    engine_term *t = set_term(e, TERM_DRAFT, 0);
    if (d->knobs.mtp <= 1) { /* no speculation: no draft graph, exactly 0 */
        t->source = SOURCE_EXACT;
        return;
    }
    if (has_fit(d, cal, COEF_DRAFT_BASE_BYTES)) {
        uint64_t base = coef(d, cal, COEF_DRAFT_BASE_BYTES, t);
        uint64_t row = coef(d, cal, COEF_DRAFT_BYTES_PER_ROW, t);
        term_from_fit(e, t, PART_DRAFT_FIT, base + row * e->attn_rows,
                      "the deployment preset's fit (the article's draft graph, two K3 runs)");
        return;
    }
    const engine_model *m = &d->model;
    uint64_t n = e->n_buckets, bytes, lo, hi;
    priced(n * e->graph_nodes.draft_nodes.expected, &e->node_bytes_range, &bytes, &lo, &hi);
    set_part(e, PART_DRAFT_NODES, bytes, lo, hi);
    mark_nodes_part(e, PART_DRAFT_NODES);
    bool fi = e->layout.backend == BACKEND_FLASHINFER || e->layout.backend == BACKEND_FLASHINFER_MLA;
    uint64_t w = fi ? n * d->knobs.mtp * 8 * ENGINE_MIB : 0;
    set_part(e, PART_DRAFT_WRAPPERS, w, w, w);
    /* The draft logits (FP32) and hidden states in and out for every row, and one draft layer's
     * widest temporaries (the same shapes as the target's). */
    engine_term act = *t;
    widest_layer(d, e, &act);
    uint64_t buf = (uint64_t)e->attn_rows * ((uint64_t)m->vocab * 4 + 4 * (uint64_t)m->hidden * 2) + act.bytes;
    set_part(e, PART_DRAFT_BUFFERS, buf, buf / 4 * 3, buf / 2 * 3);
    term_from_parts(e, t);
}

/* Releases before the shared logits buffer kept each captured graph's FP32 logits. */
void term_graph_logits(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    bool per_graph_logits = !engine_release_has_shared_logits(&d->knobs.sglang);
    set_term(e, TERM_GRAPH_LOGITS, per_graph_logits ? e->other_bucket_rows * d->model.vocab * 4 : 0);
}
