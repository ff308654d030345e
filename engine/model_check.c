/* model_check.c — the bounds a model and a deployment must keep so every product the engine
 * forms fits in 64 bits (issue "Hardening": no signed overflow, no silent wrap). The loader and
 * the config.json import check each value where it is read (with its file position); this is
 * the backstop both call on the assembled struct, so nothing out of bounds reaches an estimate.
 *
 * The widest products: rows (max_bs x mtp <= 2^14, x dp <= 2^24 without an a2a backend) times
 * vocab (<= 2^24) times 4; experts (<= 2^16) x dispatch (<= 2^14) x 6 x a dimension (<= 2^20);
 * a per-row coefficient (<= 2^32) x rows x heads (<= 2^16); and the parameter count, bounded
 * as a whole below. */
#include <stdarg.h>
#include <stdio.h>

#include "engine.h"


#define CHECK(value, max, what)                                                                                        \
    do {                                                                                                               \
        if ((uint64_t)(value) > (uint64_t)(max))                                                                       \
            return engine_fail(err, errlen, "%s: value too large: %s %llu is above %llu", m->name, what,               \
                             (unsigned long long)(value), (unsigned long long)(max));                                 \
    } while (0)

int engine_model_check(const engine_model *m, char *err, size_t errlen)
{
    CHECK(m->vocab, ENGINE_VOCAB_MAX, "vocab");
    const struct {
        uint64_t v;
        const char *name;
    } dims[] = {{m->hidden, "hidden"},
                {m->head_dim, "head_dim"},
                {m->full_head_dim, "full_head_dim"},
                {m->kv_lora_rank, "kv_lora_rank"},
                {m->qk_rope_dim, "qk_rope_dim"},
                {m->q_lora_rank, "q_lora_rank"},
                {m->qk_nope_dim, "qk_nope_dim"},
                {m->v_head_dim, "v_head_dim"},
                {m->intermediate, "intermediate"},
                {m->dispatch_hidden, "dispatch_hidden"},
                {m->moe_intermediate, "moe_intermediate"},
                {m->shared_intermediate, "shared_intermediate"},
                {m->sliding_window, "sliding_window"}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        CHECK(dims[i].v, ENGINE_DIM_MAX, dims[i].name);
    const struct {
        uint64_t v;
        const char *name;
    } counts[] = {{m->heads, "heads"},           {m->kv_heads, "kv_heads"},         {m->layers, "layers"},
                  {m->num_experts, "num_experts"}, {m->shared_experts, "shared_experts"}, {m->top_k, "top_k"}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        CHECK(counts[i].v, ENGINE_COUNT_MAX, counts[i].name);
    CHECK(m->full_kv_heads, ENGINE_COUNT_MAX, "full_kv_heads");
    /* The relations the preset loader checks where it reads each key, kept here as well so a
     * config.json (`model import`, `--model CONFIG`) meets the same ones and what import writes
     * loads (issue 21): a wrapped full_attn_layers was a KV cell of terabytes. */
    const engine_knob_info *ctx = &engine_knobs[KNOB_CONTEXT_LEN];
    if (m->context_len < ctx->min || m->context_len > ctx->max)
        return engine_fail(err, errlen, "%s: context_len %llu is outside the context_len knob's range %s", m->name,
                           (unsigned long long)m->context_len, ctx->range);
    uint64_t kinds = (uint64_t)m->full_attn_layers + m->swa_layers + m->linear_attn_layers;
    if (kinds > m->layers)
        return engine_fail(err, errlen,
                           "%s: full_attn_layers %u + swa_layers %u + linear_attn_layers %u exceed the %u layers",
                           m->name, m->full_attn_layers, m->swa_layers, m->linear_attn_layers, m->layers);
    if (m->dense_layers > m->layers)
        return engine_fail(err, errlen, "%s: dense_layers %u exceed the %u layers", m->name, m->dense_layers,
                           m->layers);
    if (m->num_experts && m->top_k > m->num_experts)
        return engine_fail(err, errlen, "%s: top_k %u is above num_experts %u", m->name, m->top_k, m->num_experts);
    if (m->attn_kind == ATTN_GQA && m->kv_heads > m->heads)
        return engine_fail(err, errlen, "%s: kv_heads %u is above heads %u", m->name, m->kv_heads, m->heads);
    if (m->attn_kind == ATTN_GQA && m->full_kv_heads > m->heads)
        return engine_fail(err, errlen, "%s: full_kv_heads %u is above heads %u", m->name, m->full_kv_heads, m->heads);
    if (m->attn_kind == ATTN_DSV4) {
        uint64_t entries = (uint64_t)m->dsv4_swa_only_layers + m->dsv4_c4_layers + m->dsv4_c128_layers;
        if (entries < m->layers)
            return engine_fail(err, errlen, "%s: compress_ratios has %llu entries for %u layers", m->name,
                               (unsigned long long)entries, m->layers);
        if (!m->o_groups || m->heads % m->o_groups)
            return engine_fail(err, errlen, "%s: o_groups %u does not divide the %u heads", m->name, m->o_groups,
                               m->heads);
        if (m->qk_rope_dim >= m->head_dim)
            return engine_fail(err, errlen, "%s: qk_rope_dim %u is not below head_dim %u", m->name, m->qk_rope_dim,
                               m->head_dim);
    }
    CHECK(m->linear_state_bytes_per_request, ENGINE_SIZE_MAX, "linear_state_bytes_per_request");
    CHECK(m->param_count, ENGINE_SIZE_MAX, "param_count");
    CHECK(m->vision_params, ENGINE_SIZE_MAX, "vision params");
    if (m->vision_attn_tp_params > m->vision_params ||
        m->vision_tp_params > m->vision_params - m->vision_attn_tp_params)
        return engine_fail(err, errlen, "%s: vision attn_tp_params %llu + tp_params %llu exceed its %llu params",
                           m->name, (unsigned long long)m->vision_attn_tp_params,
                           (unsigned long long)m->vision_tp_params, (unsigned long long)m->vision_params);
    for (int c = 0; c < COEF_COUNT; c++)
        CHECK(m->coef[c], ENGINE_COEF_MAX, engine_coef_names[c]);
    /* The parameters as a whole, in floating point so the check itself cannot wrap: a model of
     * more than 2^52 parameters (4.5 quadrillion) would not fit any set of GPUs. */
    double h = m->hidden, layers = m->layers;
    double head_dim = m->full_head_dim > m->head_dim ? m->full_head_dim : m->head_dim;
    double kv_heads = m->full_kv_heads > m->kv_heads ? m->full_kv_heads : m->kv_heads;
    double experts = (double)m->num_experts + m->shared_experts;
    double mlp = 3.0 * h * ((double)m->intermediate + experts * m->moe_intermediate);
    double attn = h * ((double)m->heads + 2.0 * kv_heads) * (head_dim ? head_dim : 1) * 2.0 +
                  h * ((double)m->q_lora_rank + m->kv_lora_rank) * 4.0 +
                  (double)m->heads * (head_dim ? head_dim : 1) * ((double)m->q_lora_rank + m->o_lora_rank) +
                  (double)m->o_groups * m->o_lora_rank * h +
                  (double)m->q_lora_rank * m->index_heads * m->index_head_dim;
    double params = layers * (mlp + attn) + 2.0 * (double)m->vocab * h + layers * (double)m->linear_attn_layer_params;
    if (params > 4503599627370496.0) /* 2^52 */
        return engine_fail(err, errlen, "%s: value too large: about %.3g parameters (the engine takes up to 2^52)",
                         m->name, params);
    return 0;
}

int engine_deployment_check(const engine_deployment *d, char *err, size_t errlen)
{
    if (engine_model_check(&d->model, err, errlen) != 0)
        return -1;
    const struct {
        uint64_t v;
        const char *name;
    } sizes[] = {{d->weights_bytes, "weights_bytes"},
                 {d->state_pool_bytes, "state_pool_bytes"},
                 {d->other_runtime_bytes, "other_runtime_bytes"},
                 {d->pre_load_free_bytes, "pre_load_free_bytes"},
                 {d->margin_bytes, "margin_bytes"},
                 {d->gpu.cuda_total_bytes, "cuda_total_bytes"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].v > ENGINE_SIZE_MAX)
            return engine_fail(err, errlen, "%s: value too large: %s %llu is above %llu (1 PiB)", d->name,
                             sizes[i].name, (unsigned long long)sizes[i].v, (unsigned long long)ENGINE_SIZE_MAX);
    return 0;
}

uint64_t engine_calibration_max(int c)
{
    return c == COEF_LAZY_BYTES || c == COEF_DRAFT_BASE_BYTES || c == COEF_COUNT ? ENGINE_SIZE_MAX : ENGINE_COEF_MAX;
}
