/* terms/activations.c — the widest layer's temporaries at the largest bucket: a fitted
 * act_bytes_per_row (the article's K3, a calibration) or the model's shapes. */
#include "terms.h"

/* The widest layer's temporaries at the largest bucket, in the model's dtype (BF16: 2 bytes),
 * for a model without a fitted act_bytes_per_row. The graph pool reuses a freed block for the
 * next op, so the peak is the larger of the attention block and the MLP block, plus the
 * residual and the layer output that live across both (reference: accuracy-audit "The widest
 * layer"; models/deepseek_v2.py forward_absorb_prepare/core for MLA; llama.py / qwen3.py for GQA
 * and the gated MLP). */
void widest_layer(const engine_deployment *d, const engine_estimate *e, engine_term *t)
{
    const engine_model *m = &d->model;
    const uint64_t elem = 2;
    uint64_t rows = e->attn_rows;
    uint64_t heads_l = e->heads_per_gpu ? e->heads_per_gpu : 1;
    uint64_t attn;
    uint64_t residual_width = m->hidden;
    if (m->attn_kind == ATTN_DSV4) {
        /* MQALayer.forward: q_padded holds every head at attn_tp > 1 (its slice is this GPU's q),
         * the attention output, the grouped wo_a output, q_lora, and the c4 indexer's q; the
         * residual stream carries hc_mult copies of the hidden state (models/deepseek_v4.py). */
        uint64_t all_heads = e->attn_tp > 1 ? m->heads : heads_l;
        uint64_t groups_l = m->o_groups / (e->attn_tp ? e->attn_tp : 1) ? m->o_groups / (e->attn_tp ? e->attn_tp : 1) : 1;
        attn = rows * ((all_heads + 2 * heads_l) * m->head_dim + groups_l * m->o_lora_rank + m->q_lora_rank +
                       (uint64_t)m->index_heads * m->index_head_dim) *
               elem;
        residual_width = (uint64_t)m->hidden * (m->hc_mult ? m->hc_mult : 1);
        t->formula = "attn_rows x ((heads + 2 heads/GPU) x head_dim + o_groups/GPU x o_lora + q_lora + index heads x "
                     "index_head_dim, or max(MLP)) x 2 + 2 attn_rows x hc_mult x hidden x 2";
    } else if (m->attn_kind == ATTN_MLA) {
        /* q (nope + rope), q_nope absorbed to kv_lora, the attention output in kv_lora, and the
         * output after the v up-projection. */
        uint64_t nope = m->qk_nope_dim ? m->qk_nope_dim : 128, v = m->v_head_dim ? m->v_head_dim : 128;
        attn = rows * heads_l * (nope + m->qk_rope_dim + 2 * (uint64_t)m->kv_lora_rank + v) * elem;
        t->formula = "attn_rows x (heads/GPU x (nope + rope + 2 kv_lora + v) + max(MLP) + 2 hidden) x 2";
    } else {
        /* the fused qkv projection and the attention output */
        uint32_t attn_tp = e->attn_tp ? e->attn_tp : 1;
        uint64_t kv_l = m->kv_heads / attn_tp ? m->kv_heads / attn_tp : 1;
        attn = rows * ((heads_l + 2 * kv_l) * m->head_dim + heads_l * m->head_dim) * elem;
        /* full-attention layers with their own heads and head size (Gemma 4): the wider of the two */
        uint64_t fkv_l = engine_full_kv_heads(m) / attn_tp ? engine_full_kv_heads(m) / attn_tp : 1;
        uint64_t fhd = engine_full_head_dim(m);
        uint64_t full = rows * ((heads_l + 2 * fkv_l) * fhd + heads_l * fhd) * elem;
        if (m->full_attn_layers && full > attn)
            attn = full;
        t->formula = "attn_rows x ((q + 2 kv heads/GPU) x head_dim + q heads/GPU x head_dim + max(MLP) + 2 hidden) x 2";
    }
    /* The dense MLP (a dense model, the leading dense layers, shared experts): gate_up (2 I) and
     * the activation (I), sharded like attention. */
    uint64_t inter = m->num_experts ? (m->dense_layers ? m->intermediate : 0) : m->intermediate;
    uint64_t shared =
        m->shared_experts * (uint64_t)(m->shared_intermediate ? m->shared_intermediate : m->moe_intermediate);
    if (shared > inter)
        inter = shared;
    uint64_t mlp_tp = e->attn_tp ? e->attn_tp : 1;
    uint64_t mlp = rows * 3 * (inter / mlp_tp) * elem;
    t->bytes = (attn > mlp ? attn : mlp) + 2 * rows * residual_width * elem;
    t->source = SOURCE_DERIVED;
    t->origin = "first principles over the model's shapes (no fitted act_bytes_per_row)";
}

void term_act(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    const engine_model *m = &d->model;
    engine_term *act = set_term(e, TERM_ACT, 0);
    if (!has_fit(d, cal, COEF_ACT_BYTES_PER_ROW)) {
        widest_layer(d, e, act); /* no fitted value: the temporaries from the model's shapes */
    } else {
        uint64_t per_row = coef(d, cal, COEF_ACT_BYTES_PER_ROW, act);
        act->bytes = m->heads ? per_row * e->attn_rows * e->heads_per_gpu / m->heads : 0;
    }
}
