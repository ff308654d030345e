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
    if (m->attn_kind == ATTN_MLA) {
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
    t->bytes = (attn > mlp ? attn : mlp) + 2 * rows * m->hidden * elem;
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
