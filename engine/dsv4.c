/* dsv4.c — DeepSeek-V4's KV pool sum (see dsv4.h for the SGLang functions it follows). */
#include "dsv4.h"

#include "release.h"

/* The fp32 compressor states: (kv, score) pairs, c4 overlapping two windows. */
enum { STATE_DTYPE_BYTES = 4, INDEXER_QUANT_BLOCK = 128, INDEXER_SCALE_BYTES = 4, KV_SCALE_BYTES = 8 };

uint32_t engine_dsv4_ring_size(uint32_t ratio, const engine_dsv4_launch *l)
{
    if (ratio == 128 && l->online_c128)
        return 1;
    uint32_t base = ratio == 4 ? 8 : ratio == 128 ? 128 : 0;
    return l->speculative ? 2 * base : base;
}

engine_dsv4_bytes engine_dsv4_bytes_per_full_token(const engine_dsv4_shape *s, const engine_dsv4_launch *l)
{
    engine_dsv4_bytes b = {0};
    /* One KV row: FP8 nope, BF16 rope, the nope's scales. */
    double kv_row = (double)s->qk_nope_head_dim + 2.0 * s->qk_rope_head_dim + KV_SCALE_BYTES;
    /* One FP8 indexer key with a 4-byte scale per 128 values. */
    double indexer_row =
        (double)s->index_head_dim + (double)(s->index_head_dim / INDEXER_QUANT_BLOCK) * INDEXER_SCALE_BYTES;
    double attn_dim = (double)s->qk_nope_head_dim + s->qk_rope_head_dim;
    double c4_state_slot = 2.0 * 2.0 * attn_dim * STATE_DTYPE_BYTES;
    double c128_state_slot = (l->online_c128 ? 3.0 : 2.0) * attn_dim * STATE_DTYPE_BYTES;
    double indexer_state_slot = 2.0 * 2.0 * s->index_head_dim * STATE_DTYPE_BYTES;
    double window = s->window_size ? (double)s->window_size : 1.0;
    double c4_ring_per_token = engine_dsv4_ring_size(4, l) / window;
    double c128_ring_per_token = engine_dsv4_ring_size(128, l) / window;

    double total = l->model_layers_only ? s->model_layers : s->layers_total;
    double c4 = l->model_layers_only ? s->model_c4 : s->layers_c4;
    double c128 = l->model_layers_only ? s->model_c128 : s->layers_c128;

    b.swa_kv = l->swa_ratio * kv_row * total;
    b.c4_kv = kv_row / 4.0 * c4;
    b.c128_kv = kv_row / 128.0 * c128;
    b.c4_indexer = indexer_row / 4.0 * c4;
    b.c4_state = l->swa_ratio * c4_ring_per_token * c4_state_slot * c4;
    /* from PR #28612 the c128 state is request-scoped: engine_dsv4_c128_state_bytes */
    b.c128_state = l->c128_per_request ? 0 : l->swa_ratio * c128_ring_per_token * c128_state_slot * c128;
    b.indexer_state = l->swa_ratio * c4_ring_per_token * indexer_state_slot * c4;
    if (l->speculative && l->draft_scaled && total > 0) {
        /* the draft worker's pool: SGLang inflates bytes_per_full_token by (T + 1) / T, each part alike */
        double f = (total + 1) / total;
        b.swa_kv *= f, b.c4_kv *= f, b.c128_kv *= f, b.c4_indexer *= f;
        b.c4_state *= f, b.c128_state *= f, b.indexer_state *= f;
    }
    b.total = b.swa_kv + b.c4_kv + b.c128_kv + b.c4_indexer + b.c4_state + b.c128_state + b.indexer_state;
    return b;
}

engine_dsv4_pools engine_dsv4_pool_sizes(const engine_dsv4_shape *s, const engine_dsv4_launch *l,
                                         uint64_t available_bytes, uint32_t page_size)
{
    engine_dsv4_pools p = {0};
    engine_dsv4_bytes b = engine_dsv4_bytes_per_full_token(s, l);
    if (b.total <= 0 || page_size == 0)
        return p;
    uint64_t full = (uint64_t)((double)available_bytes / b.total);
    p.full_tokens = full / page_size * page_size;
    p.swa_tokens = (uint64_t)((double)p.full_tokens * l->swa_ratio) / page_size * page_size;
    p.c4_tokens = p.full_tokens / 4;
    p.c128_tokens = p.full_tokens / 128;
    uint32_t window = s->window_size ? s->window_size : 1;
    p.c4_state_slots = p.swa_tokens / window * engine_dsv4_ring_size(4, l);
    p.c128_state_slots = l->c128_per_request ? 0 : p.swa_tokens / window * engine_dsv4_ring_size(128, l);
    return p;
}

uint64_t engine_dsv4_c128_state_bytes(const engine_dsv4_shape *s, const engine_dsv4_launch *l, uint64_t req_slots)
{
    uint32_t c128 = l->model_layers_only ? s->model_c128 : s->layers_c128;
    if (!l->c128_per_request || !c128)
        return 0;
    uint64_t attn_dim = (uint64_t)s->qk_nope_head_dim + s->qk_rope_head_dim;
    uint64_t ring = engine_dsv4_ring_size(128, l);
    uint64_t rows, row_bytes;
    if (l->online_c128) {
        rows = req_slots + ring + 1;
        row_bytes = 3 * attn_dim * STATE_DTYPE_BYTES;
    } else {
        rows = (req_slots * ring + ring + 1 + 127) / 128 * 128;
        row_bytes = 2 * attn_dim * STATE_DTYPE_BYTES;
    }
    return rows * row_bytes * c128;
}

engine_dsv4_shape engine_dsv4_shape_of(const engine_model *m)
{
    engine_dsv4_shape s = {
        .qk_nope_head_dim = m->head_dim > m->qk_rope_dim ? m->head_dim - m->qk_rope_dim : 0,
        .qk_rope_head_dim = m->qk_rope_dim,
        .index_head_dim = m->index_head_dim,
        .window_size = m->sliding_window,
        .layers_total = m->dsv4_swa_only_layers + m->dsv4_c4_layers + m->dsv4_c128_layers,
        .layers_c4 = m->dsv4_c4_layers,
        .layers_c128 = m->dsv4_c128_layers,
        .model_layers = m->layers,
    };
    s.model_c4 = m->dsv4_c4_layers < m->layers ? m->dsv4_c4_layers : m->layers;
    s.model_c128 = m->dsv4_c128_layers < m->layers - s.model_c4 ? m->dsv4_c128_layers : m->layers - s.model_c4;
    return s;
}

engine_dsv4_launch engine_dsv4_launch_of(const engine_deployment *d)
{
    engine_knob_origin o = d->knob_origin[KNOB_SWA_RATIO];
    bool given = o != ORIGIN_UNKNOWN && o != ORIGIN_RELEASE;
    engine_dsv4_launch l = {
        .swa_ratio = given ? d->knobs.swa_full_tokens_ratio : ENGINE_DSV4_SWA_RATIO_DEFAULT,
        .speculative = d->knobs.mtp > 1,
        .online_c128 = false,
    };
    engine_dsv4_sum sum = engine_release_dsv4_sum(&d->knobs.sglang);
    l.model_layers_only = sum >= ENGINE_DSV4_SUM_MODEL_LAYERS;
    l.draft_scaled = sum >= ENGINE_DSV4_SUM_DRAFT_SCALED;
    l.c128_per_request = sum >= ENGINE_DSV4_SUM_C128_PER_REQUEST;
    return l;
}
