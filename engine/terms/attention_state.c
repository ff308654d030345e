/* terms/attention_state.c — each attention backend's CUDA-graph state (init_cuda_graph_state,
 * and the per-size metadata its capture keeps): the static.kv_index term. */
#include "terms.h"

/* FlashAttentionBackend (layers/attention/flashattention_backend.py), read at v0.4.9.post4
 * (2272c2a5b) and main (8905cbd42, 2026-07-20); the release facts say which parts a release has
 * (engine_release_fa3_state). B = bs_max, P = ceil(context_len / page_size) page-table columns,
 * int32 unless said; context_len is the backend's max_context_len (model_config.context_len).
 * init_cuda_graph_state:
 *  - decode metadata, always: cache_seqlens (B), cu_seqlens_q and cu_seqlens_k (B + 1 each), the
 *    page table (B x P) and strided_indices, an int64 arange(0, context_len, page_size) (P);
 *  - page_table_draft_decode (B x P): always before PR #9455, then with speculation only;
 *  - chunked local attention (attention_chunk_size set; main: is_local_attention_model), over
 *    V = B x ceil(context_len / chunk) virtual batches: local_query_start_loc (V + 1),
 *    local_seqused_k (V), local_block_table (V x ceil(chunk / page_size));
 *  - speculation (num_draft_tokens > 0; taken with eagle topk 1, cgplan's mtp = draft tokens):
 *    target_verify and draft_extend, each cache_seqlens (B), cu_seqlens_q and _k (B + 1 each),
 *    a page table (B x P) and int64 strided_indices (P); on main also the target's bool tree-mask
 *    scratch, max_num_tokens (= attn_rows) x (context_len + draft tokens), PR #29589;
 *  - encoder metadata: encoder_page_table (B x context_len, not pages), encoder_lens (B),
 *    encoder_cu_seqlens_k (B + 1): for every model before PR #16527, then encoder-decoder only
 *    (no cgplan model is one).
 * init_forward_metadata_capture_cuda_graph: before PR #8567 each captured size bs took its page
 * table as page_table[req_pool_indices, :], an advanced-indexing copy (bs x P) that the size's
 * metadata keeps for replay: 4P x sum(bs) over the captured list (the verify table's copy under
 * speculation, the same shape). From PR #8567 the metadata holds slices, no copy.
 * Not counted: topk > 1 tables (cgplan has no topk knob); the sliding-window pool's
 * swa_page_table (B x P) and swa_out_cache_loc buffer that main adds when SGLang pools the SWA
 * layers apart (whether it does is not known here); main's FA3 scheduler-metadata buffer
 * (1 + 4 ceil4(B) int32, under 3 KiB); the sub-KiB cu_seqlens tensors each captured size makes;
 * the draft worker's own backends (the draft graph term). */
static uint64_t flashattention_state(const engine_deployment *d, const engine_estimate *e, uint64_t page)
{
    uint32_t bits = engine_release_fa3_state(&d->knobs.sglang);
    uint64_t ctx = d->knobs.context_len, B = e->bs_max, P = (ctx + page - 1) / page;
    bool spec = d->knobs.mtp > 1;
    uint64_t table = 4 * B * P, meta = 4 * B + 8 * (B + 1) + table + 8 * P;
    uint64_t bytes = meta; /* decode_cuda_graph_metadata */
    if (spec || (bits & ENGINE_FA3_DRAFT_TABLE))
        bytes += table; /* page_table_draft_decode */
    uint64_t chunk = d->model.attention_chunk;
    if (chunk) { /* decode_cuda_graph_local_attn_metadata */
        uint64_t v = B * ((ctx + chunk - 1) / chunk);
        bytes += 4 * (v + 1) + 4 * v + 4 * v * ((chunk + page - 1) / page);
    }
    if (spec) { /* target_verify_metadata, draft_extend_metadata */
        bytes += 2 * meta;
        if (bits & ENGINE_FA3_VERIFY_MASK) /* cuda_graph_custom_mask */
            bytes += (uint64_t)e->attn_rows * (ctx + d->knobs.mtp);
    }
    if (bits & ENGINE_FA3_ENCODER_TABLE) /* encoder_metadata */
        bytes += 4 * B * ctx + 4 * B + 4 * (B + 1);
    if (bits & ENGINE_FA3_CAPTURE_COPIES) /* the captured sizes' page-table copies */
        for (uint32_t i = 0; i < e->n_buckets; i++)
            bytes += 4 * (uint64_t)e->buckets[i] * P;
    return bytes;
}

/* Each attention backend's init_cuda_graph_state (the layers/attention backends; reference:
 * sglang.md 5.3): what it allocates for the largest bucket, bs_max requests of attn_rows tokens. */
static void backend_state(const engine_deployment *d, const engine_estimate *e, engine_term *t)
{
    const engine_model *m = &d->model;
    uint64_t ctx = d->knobs.context_len, bs = e->bs_max, tokens = e->attn_rows;
    uint32_t attn_tp = e->attn_tp ? e->attn_tp : 1;
    uint64_t heads_l = m->heads / attn_tp ? m->heads / attn_tp : 1;
    uint64_t page = e->layout.page_size ? e->layout.page_size : 1;
    bool spec = d->knobs.mtp > 1;
    switch (e->layout.backend) {
    case BACKEND_FLASHINFER_MLA: /* kv_indices int32 (max_bs x ctx) */
        t->bytes = bs * ctx * 4;
        return;
    case BACKEND_TRTLLM_MLA:
    case BACKEND_FLASHMLA:
    case BACKEND_CUTLASS_MLA: /* block table int32 (max_bs, ceil((ctx + 64) / 64)) */
        t->bytes = bs * ((ctx + 64 + 63) / 64) * 4;
        t->formula = "bs_max x ceil((context_len + 64) / 64) x 4 (int32 block table)";
        if (e->layout.backend == BACKEND_FLASHMLA && spec) { /* + a bool mask for the draft tokens */
            t->bytes += tokens * (ctx + d->knobs.mtp);
            t->formula = "bs_max x ceil((context_len + 64) / 64) x 4 + attn_rows x (context_len + mtp) (bool mask)";
        }
        return;
    case BACKEND_FLASHINFER: { /* kv_indices int32 per token of the largest bucket, per wrapper */
        uint64_t wrappers = m->swa_layers ? 2 : 1;
        t->bytes = wrappers * tokens * ctx * 4 + (spec ? tokens * ctx : 0); /* + uint8 custom_mask */
        t->formula = "wrappers x attn_rows x context_len x 4 (+ attn_rows x context_len custom mask with MTP)";
        t->origin = "flashinfer_backend.py init_cuda_graph_state";
        return;
    }
    case BACKEND_TRITON: {         /* attn_logits + attn_lse FP32 over 8 KV splits, kv_indices int64 */
        const uint64_t splits = 8; /* triton_backend.py max_kv_splits default */
        uint64_t v_dim = m->attn_kind == ATTN_MLA ? m->kv_lora_rank : m->head_dim;
        t->bytes = tokens * heads_l * splits * (v_dim + 1) * 4 + tokens * ctx * 8;
        t->formula = "attn_rows x heads/attn_tp x 8 splits x (v_dim + 1) x 4 + attn_rows x context_len x 8";
        t->origin = "triton_backend.py init_cuda_graph_state";
        return;
    }
    case BACKEND_AITER: /* kv_indices int32 and a custom_mask byte per token and context position */
        t->bytes = tokens * ctx * 4 + tokens * ctx;
        t->formula = "attn_rows x context_len x (4 + 1): kv_indices and custom_mask";
        t->origin = "aiter_backend.py init_cuda_graph_state";
        return;
    case BACKEND_FA3:
    case BACKEND_FA4: /* one class: main's fa4 is FlashAttentionBackend(fa_impl_ver=4) */
        t->bytes = flashattention_state(d, e, page);
        t->formula = "4B + 8(B+1) + 4BP + 8P decode [+ 4BP draft-decode table] [chunked: 8V + 4 + 4V x "
                     "ceil(chunk/page_size)] [MTP: 2 x (4B + 8(B+1) + 4BP + 8P) verify + draft extend "
                     "(+ attn_rows x (context_len + mtp) mask)] [+ 4B x context_len + 8B + 4 encoder] "
                     "[+ 4P x sum(bs) capture copies]; B = bs_max, P = ceil(context_len / page_size), "
                     "V = B x ceil(context_len / chunk); which terms by release";
        t->origin = "flashattention_backend.py init_cuda_graph_state, init_forward_metadata_capture_cuda_graph "
                    "(v0.4.9.post4 2272c2a5b, main 8905cbd42)";
        return;
    case BACKEND_TRTLLM_MHA: /* page_table int32 (max_bs, ceil(ctx / page)) */
        t->bytes = bs * ((ctx + page - 1) / page) * 4;
        t->formula = "bs_max x ceil(context_len / page_size) x 4 (int32 page table)";
        t->origin = "trtllm_mha_backend.py init_cuda_graph_state";
        return;
    case BACKEND_NSA: {
        /* init_cuda_graph_state's page table is page-size-1 and per token (max_num_tokens x
         * max_context_len int32); each captured size keeps its real page table, a strided copy
         * at --page-size > 1 (_transform_table_1_to_real); the indexer's MQA logits, FP32 over
         * the context for every token, are the largest bucket's transient (nsa_indexer.py). */
        uint64_t pages = (ctx + page - 1) / page, copies = 0;
        if (page > 1)
            for (uint32_t i = 0; i < e->n_buckets; i++)
                copies += 4 * (uint64_t)e->buckets[i] * (spec ? d->knobs.mtp : 1) * pages;
        t->bytes = tokens * ctx * 4 + copies + tokens * ctx * 4;
        t->formula = "attn_rows x context_len x 4 (page table) + 4 x sum(bs x rows) x ceil(context_len / page) "
                     "(real page tables, page > 1) + attn_rows x context_len x 4 (indexer logits)";
        t->origin = "nsa_backend.py init_cuda_graph_state, init_forward_metadata_capture_cuda_graph; nsa_indexer.py";
        return;
    }
    case BACKEND_DSV4: {
        /* init_cuda_graph_state allocates nothing; each captured size keeps the DSV4Metadata its
         * init_forward_metadata_decode built at max_seq_len = context_len: per request (row) the
         * page table (int32, page 256 columns), the c4 layers' top-k page indices and their raw
         * copy (int32, index_topk each) and the window's indices (int32, sliding_window). The
         * largest bucket's indexer logits are the graph pool's transient: FP32 per row over the
         * context's c4 rows (deep_gemm fp8_paged_mqa_logits over ceil(context_len / 4)). */
        uint64_t per_row = 4 * ((ctx + page - 1) / page) + (m->dsv4_c4_layers ? 2 * 4 * (uint64_t)m->index_topk : 0) +
                           4 * (uint64_t)m->sliding_window;
        uint64_t rows_kept = 0, width = spec ? d->knobs.mtp : 1;
        for (uint32_t i = 0; i < e->n_buckets; i++)
            rows_kept += (uint64_t)e->buckets[i] * width;
        uint64_t logits = m->dsv4_c4_layers ? tokens * ((ctx + 3) / 4) * 4 : 0;
        t->bytes = rows_kept * per_row + logits;
        t->formula = "sum(bs x rows) x (4 ceil(context_len / page) + 8 index_topk + 4 sliding_window) (per-size "
                     "metadata) + attn_rows x ceil(context_len / 4) x 4 (indexer logits)";
        t->origin = "deepseek_v4_backend.py init_cuda_graph_state, init_forward_metadata_capture_cuda_graph, "
                    "init_forward_metadata_decode; dsv4/indexer.py";
        return;
    }
    case BACKEND_TORCH_NATIVE:
    case BACKEND_COUNT:
        t->bytes = 0;
        t->formula = "no graph state";
        return;
    }
}

void term_kv_index(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    backend_state(d, e, set_term(e, TERM_KV_INDEX, 0));
}
