/* terms/moe.c — the MoE terms: DeepEP's low-latency and normal-mode buffers, DeepGEMM's
 * masked-GEMM intermediates behind DeepEP, and the fused-MoE kernels' caches without it. */
#include "terms.h"

/* ---- DeepEP (deep_ep Buffer.get_low_latency_rdma_size_hint / csrc/config.hpp
 * LowLatencyLayout, unchanged 2025-08 .. 2026-07; reference/moe-comm-memory.md §1.2). ---- */

uint64_t engine_deepep_ll_hint_bytes(uint64_t T, uint64_t H, uint64_t E)
{
    uint64_t scales = H / 128;
    uint64_t dispatch_msg = 16 + (2 * H > H + 4 * scales ? 2 * H : H + 4 * scales);
    uint64_t combine_msg = 2 * H + 4 * scales; /* LogFMT min/max, since DeepEP c5facf5 */
    uint64_t send = T * dispatch_msg > E * T * combine_msg ? T * dispatch_msg : E * T * combine_msg;
    uint64_t recv = E * T * (dispatch_msg > combine_msg ? dispatch_msg : combine_msg);
    uint64_t sig = (4 * E + 127) / 128 * 128;
    uint64_t total = 2 * send + 2 * recv + 2 * sig;
    return (total / 128 + 1) * 128; /* NUM_BUFFER_ALIGNMENT_BYTES: always adds 1..128 */
}

/* DeepEP's default normal-mode configs (deep_ep/buffer.py get_dispatch_config / get_combine_config
 * at HEAD, reference/moe-comm-memory.md 1.6): {ranks, nvl_recv, rdma_send, rdma_recv} of the
 * dispatch and the combine config; num_sms 20 (Buffer.num_sms), so 10 channels. */
static const struct {
    uint32_t ranks;
    uint32_t nvl_recv[2], rdma_send[2], rdma_recv[2];
} deepep_configs[] = {
    {2, {256, 256}, {6, 6}, {128, 128}},    {4, {256, 256}, {6, 6}, {128, 128}},
    {8, {256, 256}, {6, 6}, {128, 128}},    {16, {288, 288}, {20, 12}, {128, 128}},
    {24, {288, 288}, {8, 8}, {128, 128}},   {32, {288, 288}, {8, 8}, {128, 128}},
    {48, {288, 288}, {8, 8}, {128, 128}},   {64, {288, 288}, {8, 8}, {128, 128}},
    {96, {480, 480}, {12, 8}, {128, 128}},  {128, {560, 560}, {12, 8}, {128, 128}},
    {144, {720, 720}, {12, 8}, {128, 128}}, {160, {720, 720}, {12, 8}, {128, 128}},
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

bool engine_deepep_normal_bytes(uint32_t ranks, uint64_t hb, uint64_t *nvl, uint64_t *rdma)
{
    const uint64_t channels = 20 / 2;
    for (size_t i = 0; i < sizeof deepep_configs / sizeof deepep_configs[0]; i++) {
        if (deepep_configs[i].ranks != ranks)
            continue;
        uint64_t rdma_ranks = ranks / 8 > 1 ? ranks / 8 : 1, nvl_ranks = ranks < 8 ? ranks : 8;
        *nvl = *rdma = 0;
        for (int c = 0; c < 2; c++) {
            uint64_t n = channels * nvl_ranks * deepep_configs[i].nvl_recv[c];
            uint64_t v = align_up(4 * channels * nvl_ranks * (2 * rdma_ranks + 3) + n * (hb + 2056), 128);
            *nvl = v > *nvl ? v : *nvl;
            if (ranks > 8) { /* RDMA only across nodes */
                uint32_t recv = deepep_configs[i].rdma_recv[c], send = deepep_configs[i].rdma_send[c];
                uint64_t m = channels * rdma_ranks * ((recv + send - 1) / send * send); /* a 32-bit division */
                uint64_t r = align_up(144 * channels * rdma_ranks + 2 * m * (hb + 2072), 128);
                *rdma = r > *rdma ? r : *rdma;
            }
        }
        return true;
    }
    return false;
}

uint32_t engine_nvshmem_qp_depth(uint32_t max_dispatch)
{
    return 2 * max_dispatch + 2; /* DeepEP >= d981409 asserts QP depth >= 2 x (T + 1) */
}

uint64_t engine_deepep_nvshmem_bytes(uint64_t hint)
{
    const uint64_t chunk = 512 * ENGINE_MIB; /* NVSHMEM_CUMEM_GRANULARITY set by DeepEP */
    return (hint + chunk - 1) / chunk * chunk;
}

/* The article's "FP8 receive + BF16 gate_up + FP8 down input alive together"
 * (moe_runner/deep_gemm.py _run_masked_gemm): E x T rows of H + 2 x 2I + I bytes. */
uint64_t engine_masked_gemm_sum_bytes(uint64_t T, uint64_t H, uint64_t I, uint64_t E)
{
    return E * T * (H + 4 * I + I);
}

/* Lifetime-aware peak over the three phases (reference/moe-comm-memory.md §2). */
uint64_t engine_masked_gemm_peak_bytes(uint64_t T, uint64_t H, uint64_t I, uint64_t E, bool ue8m0)
{
    uint64_t sH = ue8m0 ? H / 128 : H / 32, sI = ue8m0 ? I / 128 : I / 32;
    uint64_t p1 = H + sH + 4 * I + 4, p2 = 5 * I + sI + 4, p3 = I + sI + 2 * H + 4;
    uint64_t peak = p1 > p2 ? p1 : p2;
    return E * T * (peak > p3 ? peak : p3);
}

/* The largest bucket's MoE buffers follow max_dispatch; with it auto, the rows. */
static uint32_t dispatch_deps(const engine_deployment *d)
{
    return d->knobs.max_dispatch_auto ? ENGINE_ROWS_MASK : 0;
}

void term_deepep(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    const engine_model *m = &d->model;
    bool deepep = e->layout.deepep && e->layout.deepep_ll; /* normal mode only: no low-latency buffer */
    uint64_t bytes = deepep ? engine_deepep_ll_hint_bytes(e->max_dispatch, m->dispatch_hidden, m->num_experts) : 0;
    engine_term *t = set_term(e, TERM_DEEPEP, bytes);
    t->depends_on |= dispatch_deps(d);
    t->alt_bytes = deepep ? engine_deepep_nvshmem_bytes(bytes) : 0;
    t->alt_label = "NVSHMEM 512 MiB chunks";
}

/* Normal and auto mode add the normal-mode NVL buffer; their RDMA buffer is the larger of the
 * normal hint and the LL one (so auto adds only what the normal hint has beyond LL). SGLang
 * passes hidden x 2 bytes (params_bytes 2: BF16 dispatch) over the EP group. */
void term_deepep_normal(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    engine_term *t = set_term(e, TERM_DEEPEP_NORMAL, 0);
    if (!e->layout.deepep || !e->layout.deepep_normal)
        return;
    uint64_t nvl, rdma;
    if (engine_deepep_normal_bytes(e->layout.ep, 2 * (uint64_t)d->model.dispatch_hidden, &nvl, &rdma)) {
        uint64_t ll = e->terms[TERM_DEEPEP].bytes; /* computed before: 0 without the LL buffer */
        t->bytes = nvl + (rdma > ll ? rdma - ll : 0);
    } else {
        t->known = false;
        t->source = SOURCE_UNKNOWN;
        t->formula = "DeepEP has no default normal-mode config for this EP size";
    }
}

void term_masked_gemm(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    const engine_model *m = &d->model;
    bool deepep = e->layout.deepep;
    uint64_t T = e->max_dispatch;
    uint64_t gemm =
        deepep ? engine_masked_gemm_sum_bytes(T, m->dispatch_hidden, m->moe_intermediate, m->num_experts) : 0;
    engine_term *t = set_term(e, TERM_MASKED_GEMM, gemm);
    t->depends_on |= dispatch_deps(d);
    t->alt_bytes = deepep ? engine_masked_gemm_peak_bytes(T, m->dispatch_hidden, m->moe_intermediate, m->num_experts,
                                                          d->gpu.ue8m0_scales)
                          : 0;
    t->alt_label = "lifetime-aware peak";
    t->low_bytes = t->alt_bytes < gemm ? t->alt_bytes : gemm; /* the sum is the high end */
    t->high_bytes = gemm;
}

/* Without DeepEP, the routed experts run the fused-MoE kernels: one cache of
 * M x top_k x max(N, K) shared by cache1 and cache3, plus cache2 (M x top_k, N / 2), BF16,
 * N = 2 x I / moe_tp, K = hidden (fused_experts_impl); the largest bucket's peak. */
void term_fused_moe(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    const engine_model *m = &d->model;
    const engine_layout *l = &e->layout;
    uint64_t fused = 0;
    if (l->moe && !e->layout.deepep) {
        uint64_t n = 2 * (uint64_t)m->moe_intermediate / l->moe_tp;
        uint64_t wide = n > m->hidden ? n : m->hidden;
        fused = 2 * (uint64_t)e->moe_rows * m->top_k * (wide + n / 2);
    }
    set_term(e, TERM_FUSED_MOE, fused);
}
