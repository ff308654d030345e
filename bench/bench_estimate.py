#!/usr/bin/env python3
"""A straightforward Python implementation of cgplan's terms and budget (MODEL.md), run over the
same sweep as bench_estimate.c, so the two can be compared: same checksums, configurations per
second. Each estimate computes what one C estimate computes: the layout the release resolves,
its capture list (generator, pool clamp, divisibility filter), every term with the DeepEP and
masked-GEMM alternatives, the release's heuristic and the warnings' codes. "terms" is one
estimate per configuration (the TUI per drag event, each probe of the wall); "full" adds what
search reads of a plan: its budget at its own fraction (KV tokens, the recommended fraction) and
the wall (the fit rule at each size's recommended fraction, bisected over SGLang's grid as the C
engine does) with the term that limits it: the same formulas and the same algorithm, nothing
cached across configurations.
Usage: bench_estimate.py [SECONDS]   (K3 DP16 preset values, written out below)"""
import math, sys, time

GIB = 1 << 30
MIB = 1 << 20
K3 = dict(vocab=163840, hidden=7168, heads=96, E=896, H=3584, I=3072, ctx=1048576,
          act=4884109, lazy=581477093, graph=52706322, out=26365, dbase=510343173, drow=631613,
          kv_lora=512, rope=64, attn_layers=24, draft_layers=1, kv_bytes=2, layers=93, linear=69, dense=1)
# k3-dp16's budget: P = B200's 178.35 GiB - 0.8 GiB, W 150 GiB, S 8 GiB, O 1 GiB; the fit rule's
# margin (5 GiB) and KV minimum (4096 tokens per running request)
BUDGET = dict(P=190642860851, W=150 * GIB, S=8 * GIB, O=GIB, margin=5 * GIB, min_kv=4096, f_top=0.99)
# The newest release's facts as engine/release.c records them
RELEASE = dict(append_max_bs=True, width_filter=True, pool_pad=True, pool_per_dp=True, shared_logits=True)
# Backends SGLang accepts for one attention kind only (server_args.py): name, for MLA
BACKEND_KIND = [("trtllm_mla", True), ("flashmla", True), ("cutlass_mla", True), ("nsa", True),
                ("trtllm_mha", False), ("fa4", False)]
BLOCKING = {"dispatch_below_rows", "dispatch_cap", "weights_exceed_gpu", "kv_pool_exhausted",
            "backend_unsupported", "headroom_negative"}

def grid(max_bs, spec):
    segs = ([(1, 8, 1), (10, 32, 2), (40, 64, 4), (72, 256, 8), (272, 1 << 30, 16)] if spec else
            [(1, 2, 1), (4, 12, 4), (16, 256, 8), (272, 496, 16), (512, 1 << 30, 32)])
    return [v for a, b, s in segs for v in range(a, min(b, max_bs) + 1, s)]

def deepep(T, H, E):
    S = H // 128; D = 16 + max(2 * H, H + 4 * S); C = 2 * H + 4 * S
    send = max(T * D, E * T * C); recv = E * T * max(D, C); sig = (4 * E + 127) // 128 * 128
    return ((2 * send + 2 * recv + 2 * sig) // 128 + 1) * 128

# DeepEP's default normal-mode configs at EP16 (deep_ep buffer.py get_dispatch_config /
# get_combine_config): nvl_recv, rdma_send, rdma_recv of dispatch and combine; 10 channels
NORMAL16 = dict(nvl_recv=(288, 288), rdma_send=(20, 12), rdma_recv=(128, 128))

def align_up(v, a):
    return (v + a - 1) // a * a

def deepep_normal(ranks, hb, cfg=NORMAL16):
    ch, rdma_ranks, nvl_ranks = 10, max(ranks // 8, 1), min(ranks, 8)
    nvl = rdma = 0
    for c in range(2):
        n = ch * nvl_ranks * cfg['nvl_recv'][c]
        nvl = max(nvl, align_up(4 * ch * nvl_ranks * (2 * rdma_ranks + 3) + n * (hb + 2056), 128))
        if ranks > 8:
            mm = ch * rdma_ranks * align_up(cfg['rdma_recv'][c], cfg['rdma_send'][c])
            rdma = max(rdma, align_up(144 * ch * rdma_ranks + 2 * mm * (hb + 2072), 128))
    return nvl, rdma

def masked_gemm_peak(T, H, I, E, ue8m0=True):
    """The lifetime-aware peak of the three phases (B200: UE8M0 scales, one per 128)."""
    sH, sI = (H // 128, I // 128) if ue8m0 else (H // 32, I // 32)
    return E * T * max(H + sH + 4 * I + 4, 5 * I + sI + 4, I + sI + 2 * H + 4)

def heuristic(max_bs, dp, deepep_on):
    """reserve_for_graph_mb + reserve_for_deepep_a2a_mb, counted in half MiB."""
    half = 4 * max_bs
    if dp > 1:
        half += 6 * max_bs * dp
        if max_bs > 300:
            half += 3 * max_bs * dp
    return half * MIB // 2 + (2048 * MIB if deepep_on else 0)

def layout(world, dp, m, a2a="deepep", backend="flashinfer_mla", deepep_mode="auto"):
    """The auto knobs as the release resolves them."""
    ep = world if a2a == "deepep" else 1
    if not ep or world % ep:
        ep = 1
    return dict(dp_attention=dp > 1, moe=m['E'] > 0, ep=ep, moe_tp=world // ep, backend=backend,
                deepep=a2a == "deepep" and m['E'] > 0, deepep_ll=deepep_mode != "normal",
                deepep_normal=deepep_mode != "low_latency")

def capture_list(max_bs, mtp, dp, dp_attention, attn_tp, gathered, r=RELEASE):
    """The release's list: the generator up to max_bs, max_bs appended, the pool clamp, the filter."""
    requested = dp * max_bs  # a plan's max_running_requests: dp x max_bs
    pool = (requested // (dp if dp_attention else 1) if r['pool_per_dp'] else requested) or 1
    s = set(grid(max_bs, mtp > 1))
    if r['append_max_bs']:
        s.add(max_bs)
    mul = attn_tp if gathered else 1
    if r['pool_pad']:
        pool = -(-pool // mul) * mul
    if max(s) > pool:
        s.add(pool)
    step = mul // math.gcd(mul, mtp if r['width_filter'] else 1)
    return sorted(x for x in s if x % step == 0 and x <= pool)

def buckets(max_bs, mtp, dp, dp_attention, attn_tp, gathered, warnings):
    b = capture_list(max_bs, mtp, dp, dp_attention, attn_tp, gathered)
    if b:
        return b
    b = [v for v in sorted(set(grid(max_bs, mtp > 1) + [max_bs])) if not gathered or v * mtp % attn_tp == 0]
    if not b:  # nothing divides: the next size that does
        v = max_bs + 1
        while v * mtp % attn_tp:
            v += 1
        b = [v]
        warnings.append("no_bucket_survives")
    return b

def graph_nodes(attn_tp, mtp, m=K3):
    """Kernel nodes of one captured graph (engine/graph_nodes.c) for K3's layer kinds: 24 absorbed
    MLA blocks (FlashInfer MLA), 69 KDA blocks, one dense MLP, 92 MoE layers behind DeepEP with
    DeepGEMM and the shared experts; (low, high, expected)."""
    lo = hi = 0
    mla = (11, 14); kda = (8, 16); dense = (4, 4); moe = (2 + 6 + 3, 2 + 11 + 5)
    counts = ((mla, m['layers'] - m['linear']), (kda, m['linear']), (dense, m['dense']), (moe, m['layers'] - m['dense']))
    for (a, b), n in counts:
        lo += a * n; hi += b * n
    ar = 2 * m['layers'] + 1 if attn_tp > 1 else 0  # all-reduces; DeepEP: no DP gathers
    lo += ar + 5; hi += ar + 9                       # the model's own
    if attn_tp > 1:
        lo += 1; hi += 1                             # the vocab all-gather
    if mtp > 1:
        lo += 1; hi += 4                             # target verify
    return lo, hi, (lo + hi + 1) // 2

def pct(b, lo, hi):
    """A term's range from its tolerance in percent (engine term_range's integer arithmetic)."""
    return b // 100 * (100 - lo) + b % 100 * (100 - lo) // 100, b // 100 * (100 + hi) + b % 100 * (100 + hi) // 100

# Each term's tolerance (low %, high %) in the C engine's order: the coefficients of the article's
# fit 5% either way, the derived page index +5%, inputs +10%; the masked GEMM's own (peak .. sum).
TOLERANCE = [(0, 0), (0, 5), (0, 10), (0, 0), None, (5, 5), (5, 5), (5, 5), (5, 5), (0, 0), (0, 0), (0, 0), (0, 0)]

def estimate(world, dp, dcp, mtp, max_bs, max_dispatch, m=K3, seen=None):
    """Every term of one plan: (total, heuristic, NVSHMEM-chunked DeepEP, masked-GEMM peak);
    SEEN gets the terms and the warnings' codes."""
    lay = layout(world, dp, m)
    warnings = []
    attn_tp = world // dp if lay['dp_attention'] else world
    gathered = attn_tp > 1 and (lay['dp_attention'] or lay['deepep'])
    b = buckets(max_bs, mtp, dp, lay['dp_attention'], attn_tp, gathered, warnings)
    bs_max = b[-1]
    attn = bs_max * mtp
    moe = -(-attn // attn_tp) if lay['deepep'] else attn * (dp if lay['dp_attention'] else 1)
    T = moe if max_dispatch == 0 else max_dispatch
    heads_per_gpu = m['heads'] * dcp // attn_tp
    ll = deepep(T, m['H'], m['E']) if lay['deepep'] else 0
    nvl, rdma = deepep_normal(lay['ep'], 2 * m['H']) if lay['deepep'] and lay['deepep_normal'] else (0, 0)
    other_rows = sum(b[:-1]) * mtp
    terms = [  # in the C engine's order (engine_term_id), so the wall's limiting term is one index
        attn * m['vocab'] * 4,                                       # logits
        bs_max * m['ctx'] * 4,                                       # flashinfer MLA kv_indices
        attn * (2 * m['hidden'] + 48),                               # inputs
        ll if lay['deepep_ll'] else 0,                               # DeepEP low-latency buffer
        m['E'] * T * (m['H'] + 5 * m['I']) if lay['deepep'] else 0,  # masked GEMM
        m['lazy'],                                                   # lazy allocations
        m['act'] * attn * heads_per_gpu // m['heads'],               # activations
        m['graph'] * (len(b) - 1) + m['out'] * other_rows,           # further buckets
        m['dbase'] + m['drow'] * attn if mtp > 1 else 0,             # draft graph
        0,                                                           # fused MoE (DeepEP runs the experts)
        0 if RELEASE['shared_logits'] else other_rows * m['vocab'] * 4,  # per-graph logits
        0,                                                           # calibrated intercept (none)
        nvl + max(rdma - (ll if lay['deepep_ll'] else 0), 0),        # DeepEP normal buffers
    ]
    total = sum(terms)
    nvshmem = -(-ll // (512 * MIB)) * (512 * MIB)
    peak = masked_gemm_peak(T, m['H'], m['I'], m['E']) if lay['deepep'] else 0
    low = high = 0
    for t, tol in zip(terms, TOLERANCE):
        lo, hi = (min(peak, t), t) if tol is None else pct(t, *tol)
        low += lo; high += hi
    nodes = graph_nodes(attn_tp, mtp, m)[2]
    heur = heuristic(max_bs, dp if lay['dp_attention'] else 1, lay['deepep'])
    if lay['deepep'] and max_dispatch and max_dispatch < moe:
        warnings.append("dispatch_below_rows")
    if lay['deepep'] and T > 1024:
        warnings.append("dispatch_cap")
    if lay['deepep'] and T > 511:
        warnings.append("qp_depth")  # NVSHMEM_QP_DEPTH >= 2 x T + 2
    if dcp > 1 and mtp > 1:
        warnings.append("dcp_with_speculation")
    for backend, mla in BACKEND_KIND:
        if lay['backend'] == backend and not mla:  # K3 is MLA
            warnings.append("backend_unsupported")
    if seen is not None:  # the answers plan on the high end
        seen.update(warnings=warnings, terms=terms, plan=high)
    return total, heur, nvshmem, peak, low, high, nodes

DISPATCH_CODES = {"dispatch_below_rows", "dispatch_cap"}

def kv_cell(m, mtp):
    return (m['kv_lora'] + m['rope']) * (m['attn_layers'] + (m['draft_layers'] if mtp > 1 else 0)) * m['kv_bytes']

def fit_at(total, warnings, f, mtp, dcp, max_bs, m=K3, b=BUDGET):
    """The fit rule at fraction F: (first blocking code or None, KV tokens)."""
    P = b['P']
    reserve = round(P * (1.0 - f))
    pool = P - b['W'] - reserve - b['S']
    headroom = reserve - total - b['O']
    cell = kv_cell(m, mtp)
    kv_min = -(-max_bs * b['min_kv'] * cell // dcp)
    kv_tokens = pool // cell * dcp if pool > 0 else 0
    if b['W'] >= P:
        return "weights_exceed_gpu", kv_tokens
    if pool <= 0 or pool < kv_min:
        return "kv_pool_exhausted", kv_tokens
    if headroom < 0 or f <= 0:
        return "headroom_negative", kv_tokens
    for w in warnings:
        if w in BLOCKING:
            return w, kv_tokens
    return None, kv_tokens

def recommended(total, b=BUDGET):
    f = 1.0 - (total + b['O'] + b['margin']) / b['P']
    return min(math.floor(f * 1000 + 1e-6) / 1000, b['f_top'])

def fits(world, dp, dcp, mtp, max_bs, max_dispatch, m=K3):
    """The fit rule at the fraction recommended for this plan: (fits, f, blocking, terms)."""
    seen = {}
    estimate(world, dp, dcp, mtp, max_bs, max_dispatch, m, seen)
    total = seen['plan']
    f = recommended(total)
    blocking = fit_at(total, seen['warnings'], f, mtp, dcp, max_bs, m)[0]
    return blocking is None, f, blocking, seen['terms']

def growth(a, b):
    """The term that changes most from A to B (the first of equals)."""
    g = [abs(y - x) for x, y in zip(a, b)]
    return g.index(max(g))

def wall(world, dp, dcp, mtp, max_dispatch, now_terms):
    """The largest max_bs of the grid that fits, its fraction and the term that limits it:
    both ends, then a bisection."""
    g = grid(1024, mtp > 1)
    lo_fit = fits(world, dp, dcp, mtp, g[0], max_dispatch)
    if not lo_fit[0]:
        return 0, 0.0, lo_fit[3].index(max(lo_fit[3]))
    hi_fit = fits(world, dp, dcp, mtp, g[-1], max_dispatch)
    if hi_fit[0]:
        return g[-1], hi_fit[1], growth(now_terms, hi_fit[3])
    lo, hi = 0, len(g) - 1
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        r = fits(world, dp, dcp, mtp, g[mid], max_dispatch)
        if r[0]:
            lo, lo_fit = mid, r
        else:
            hi, hi_fit = mid, r
    term = 3 if hi_fit[2] in DISPATCH_CODES else growth(lo_fit[3], hi_fit[3])  # 3: DeepEP's buffer
    return g[lo], lo_fit[1], term

def budget(total, warnings, mtp, dcp, max_bs, f_plan=0.92):
    """The plan at its own fraction (k3-dp16 sets 0.920): KV tokens and the recommended fraction."""
    return fit_at(total, warnings, f_plan, mtp, dcp, max_bs)[1], recommended(total)

def sweep(full=False):
    total, count = 0, 0
    dp = 1
    while dp <= 16:
        dcp = 1
        while dcp <= 16 // dp:
            for mtp in range(1, 9):
                for bs in grid(1024, mtp > 1):
                    for disp in (0, 128, 256):
                        seen = {}
                        est = estimate(16, dp, dcp, mtp, bs, disp, K3, seen)
                        t = sum(est)  # total, heuristic, both alternatives, the range, the nodes
                        if full:
                            kv_tokens, f_rec = budget(seen['plan'], seen['warnings'], mtp, dcp, bs)
                            w, f, term = wall(16, dp, dcp, mtp, disp, seen['terms'])
                            t += kv_tokens + round(f_rec * 1000) + w + round(f * 1000) + term
                        total += t
                        count += 1
            dcp *= 2
        dp *= 2
    return count, total

def run(full, seconds):
    t0 = time.perf_counter(); done = 0
    count, checksum = sweep(full); done += count
    while time.perf_counter() - t0 < seconds / 2:
        done += sweep(full)[0]
    dt = time.perf_counter() - t0
    print(f"python {'full' if full else 'terms'}: {count} configurations per pass, {done / dt:.0f} configurations/s "
          f"({1e6 * dt / done:.2f} us each), checksum {checksum}")

if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    run(False, seconds)
    run(True, seconds)
