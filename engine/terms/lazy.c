/* terms/lazy.c — what lands in the capture window lazily: the capture streams' cuBLAS
 * workspaces, and a NCCL communicator only where one is created there. */
#include "terms.h"

/* Lazy allocations in the capture window (lazy-comm.md §3, §1.4, §5): the cuBLAS workspace of
 * each capture stream, and a NCCL communicator only where one is created inside the window.
 * SGLang's own communicators, custom all-reduce and FlashInfer's float workspace are allocated
 * before it and are not graph memory. */
void term_lazy(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    engine_term *t = set_term(e, TERM_LAZY, 0);
    if (has_fit(d, cal, COEF_LAZY_BYTES)) {
        uint64_t v = coef(d, cal, COEF_LAZY_BYTES, t);
        term_from_fit(e, t, PART_LAZY_FIT, v, "the deployment preset's fit (the article's two K3 runs)");
        return;
    }
    /* cuBLAS: one workspace per (handle, stream), on the decode runner's fresh capture stream and
     * on each draft runner's; CUBLAS_WORKSPACE_CONFIG :4096:8 = 32 MiB on sm90, :4096:2:16:8 =
     * 8.125 MiB elsewhere (served from a 20 MiB segment), 32 MiB on sm100 in 2026 torch builds;
     * cuBLASLt 1 MiB (a 2 MiB segment). ROCm gfx942/950: hipBLAS 128 MiB + hipBLASLt 76 MiB. */
    uint64_t streams = d->knobs.mtp > 1 ? 3 : 1;
    uint64_t ws, lo, hi;
    engine_gpu_arch arch = d->gpu.arch;
    if (engine_gpu_is_rocm(arch)) { /* hipBLAS 128 MiB on gfx942/950 (32 elsewhere) + hipBLASLt 76 */
        ws = lo = hi = ((arch == GPU_ARCH_CDNA3 || arch == GPU_ARCH_CDNA4) ? 128 : 32) * ENGINE_MIB + 76 * ENGINE_MIB;
    } else if (arch == GPU_ARCH_SM90) {
        ws = lo = 33 * ENGINE_MIB;
        hi = 34 * ENGINE_MIB;
    } else { /* Blackwell's 2026 builds take 32 MiB (PR #175344), Ampere and Ada 8.125 */
        bool blackwell =
            arch == GPU_ARCH_SM100 || arch == GPU_ARCH_SM103 || arch == GPU_ARCH_SM120 || arch == GPU_ARCH_SM121;
        ws = lo = 8 * ENGINE_MIB + ENGINE_MIB / 8 + ENGINE_MIB;
        hi = (blackwell ? 32 : 20) * ENGINE_MIB + 2 * ENGINE_MIB;
    }
    set_part(e, PART_LAZY_CUBLAS, streams * ws, lo, streams * hi);
    /* NCCL: SGLang sets NCCL_CUMEM_ENABLE=0, so communicators connect eagerly at init. DeepEP's
     * buffer set-up gathers over the TP group's torch communicator at the first dispatch, in the
     * largest bucket's warm-up, and creates it there: ring 12 MiB x C, tree 6..12 MiB x C, the
     * NET-shared pool pow2(C) x 16 x chunk (512 KiB within a node, 128 KiB across nodes), with
     * C = 32 channels on one NVSwitch node, 16..32 across nodes (lazy-comm.md §1.3, §5). */
    uint64_t nccl = 0, nccl_lo = 0, nccl_hi = 0;
    if (e->layout.deepep && d->knobs.world > 1) {
        if (d->knobs.world <= 8) {
            nccl_lo = 32 * 12 * ENGINE_MIB + 32 * 6 * ENGINE_MIB + 32 * 16 * ENGINE_MIB / 2;
            nccl_hi = 32 * 12 * ENGINE_MIB + 32 * 12 * ENGINE_MIB + 32 * 16 * ENGINE_MIB / 2;
        } else {
            nccl_lo = 16 * 12 * ENGINE_MIB + 16 * 6 * ENGINE_MIB + 16 * 16 * ENGINE_MIB / 8;
            nccl_hi = 32 * 12 * ENGINE_MIB + 32 * 12 * ENGINE_MIB + 32 * 16 * ENGINE_MIB / 8;
        }
        nccl = (nccl_lo + nccl_hi) / 2;
    }
    set_part(e, PART_LAZY_NCCL, nccl, nccl_lo, nccl_hi);
    term_from_parts(e, t);
}
