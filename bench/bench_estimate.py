#!/usr/bin/env python3
"""A straightforward Python implementation of cgplan's terms and budget (MODEL.md), run over the
same sweep as bench_estimate.c, so the two can be compared: same checksums, configurations per
second. "terms" is the estimate the TUI runs per drag event; "full" adds the budget, the fit rule
(headroom, KV minimum, DeepEP dispatch) and the wall, bisected over SGLang's grid as the C engine
does: the same formulas and the same algorithm, nothing cached across configurations.
Usage: bench_estimate.py [SECONDS]   (K3 DP16 preset values, written out below)"""
import math, sys, time

GIB = 1 << 30
K3 = dict(vocab=163840, hidden=7168, heads=96, E=896, H=3584, I=3072, ctx=1048576,
          act=4884109, lazy=581477093, graph=52706322, out=26365, dbase=510343173, drow=631613,
          kv_lora=512, rope=64, attn_layers=24, draft_layers=1, kv_bytes=2)
# k3-dp16's budget: P = B200's 178.35 GiB - 0.8 GiB, W 150 GiB, S 8 GiB, O 1 GiB; the fit rule's
# margin (5 GiB) and KV minimum (4096 tokens per running request)
BUDGET = dict(P=190642860851, W=150 * GIB, S=8 * GIB, O=GIB, margin=5 * GIB, min_kv=4096, f_top=0.99)

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

def estimate(world, dp, dcp, mtp, max_bs, max_dispatch, m=K3, rows=None):
    attn_tp = world // dp
    b = sorted(set(grid(max_bs, mtp > 1) + [max_bs]))
    if attn_tp > 1:
        b = [x for x in b if x * mtp % attn_tp == 0]
        if not b:
            v = max_bs + 1
            while v * mtp % attn_tp:
                v += 1
            b = [v]
    bs_max = b[-1]
    attn = bs_max * mtp
    moe = -(-attn // attn_tp)
    T = moe if max_dispatch == 0 else max_dispatch
    heads_per_gpu = m['heads'] * dcp // attn_tp
    static = attn * m['vocab'] * 4 + bs_max * m['ctx'] * 4 + attn * (2 * m['hidden'] + 48)
    ll = deepep(T, m['H'], m['E'])
    nvl, rdma = deepep_normal(world, 2 * m['H'])  # deepep_mode auto: the normal buffers beside LL
    largest = (ll + nvl + max(rdma - ll, 0) + m['E'] * T * (m['H'] + 5 * m['I']) + m['lazy']
               + m['act'] * attn * heads_per_gpu // m['heads'])
    buckets = m['graph'] * (len(b) - 1) + m['out'] * sum(x * mtp for x in b[:-1])
    draft = m['dbase'] + m['drow'] * attn if mtp > 1 else 0
    if rows is not None:
        rows.append(moe)
        rows.append(T)
    return static + largest + buckets + draft

def fits(world, dp, dcp, mtp, max_bs, max_dispatch, m=K3, b=BUDGET):
    """The fit rule at the fraction recommended for this plan; returns (fits, f)."""
    rows = []
    total = estimate(world, dp, dcp, mtp, max_bs, max_dispatch, m, rows)
    moe, T = rows
    P = b['P']
    f = 1.0 - (total + b['O'] + b['margin']) / P
    f = min(math.floor(f * 1000 + 1e-6) / 1000, b['f_top'])
    reserve = round(P * (1.0 - f))
    pool = P - b['W'] - reserve - b['S']
    headroom = reserve - total - b['O']
    cell = (m['kv_lora'] + m['rope']) * (m['attn_layers'] + (m['draft_layers'] if mtp > 1 else 0)) * m['kv_bytes']
    kv_min = -(-max_bs * b['min_kv'] * cell // dcp)
    ok = (b['W'] < P and pool > 0 and pool >= kv_min and headroom >= 0 and f > 0
          and not (max_dispatch and max_dispatch < moe) and T <= 1024)
    return ok, f

def wall(world, dp, dcp, mtp, max_dispatch):
    g = grid(1024, mtp > 1)
    if not fits(world, dp, dcp, mtp, g[0], max_dispatch)[0]:
        return 0
    if fits(world, dp, dcp, mtp, g[-1], max_dispatch)[0]:
        return g[-1]
    lo, hi = 0, len(g) - 1
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if fits(world, dp, dcp, mtp, g[mid], max_dispatch)[0]:
            lo = mid
        else:
            hi = mid
    return g[lo]

def sweep(full=False):
    total, count = 0, 0
    dp = 1
    while dp <= 16:
        dcp = 1
        while dcp <= 16 // dp:
            for mtp in range(1, 9):
                for bs in grid(1024, mtp > 1):
                    for disp in (0, 128, 256):
                        t = estimate(16, dp, dcp, mtp, bs, disp)
                        if full:
                            t += wall(16, dp, dcp, mtp, disp)
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
