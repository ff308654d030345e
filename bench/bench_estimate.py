#!/usr/bin/env python3
"""A straightforward Python implementation of cgplan's terms (MODEL.md), run over the same sweep
as bench_estimate.c, so the two can be compared: same checksum, configurations per second.
Usage: bench_estimate.py [SECONDS]   (K3 DP16 preset values, written out below)"""
import sys, time

GIB = 1 << 30
K3 = dict(vocab=163840, hidden=7168, heads=96, E=896, H=3584, I=3072, ctx=1048576,
          act=4884109, lazy=794000357, graph=52706322, out=26365, dbase=510343173, drow=631613)

def grid(max_bs, spec):
    segs = ([(1, 8, 1), (10, 32, 2), (40, 64, 4), (72, 256, 8), (272, 1 << 30, 16)] if spec else
            [(1, 2, 1), (4, 12, 4), (16, 256, 8), (272, 496, 16), (512, 1 << 30, 32)])
    return [v for a, b, s in segs for v in range(a, min(b, max_bs) + 1, s)]

def deepep(T, H, E):
    S = H // 128; D = 16 + max(2 * H, H + 4 * S); C = 2 * H + 4 * S
    send = max(T * D, E * T * C); recv = E * T * max(D, C); sig = (4 * E + 127) // 128 * 128
    return ((2 * send + 2 * recv + 2 * sig) // 128 + 1) * 128

def estimate(world, dp, dcp, mtp, max_bs, max_dispatch, m=K3):
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
    largest = (deepep(T, m['H'], m['E']) + m['E'] * T * (m['H'] + 5 * m['I']) + m['lazy']
               + m['act'] * attn * heads_per_gpu // m['heads'])
    buckets = m['graph'] * (len(b) - 1) + m['out'] * sum(x * mtp for x in b[:-1])
    draft = m['dbase'] + m['drow'] * attn if mtp > 1 else 0
    return static + largest + buckets + draft

def sweep():
    total, count = 0, 0
    dp = 1
    while dp <= 16:
        dcp = 1
        while dcp <= 16 // dp:
            for mtp in range(1, 9):
                for bs in grid(1024, mtp > 1):
                    for disp in (0, 128, 256):
                        total += estimate(16, dp, dcp, mtp, bs, disp)
                        count += 1
            dcp *= 2
        dp *= 2
    return count, total

if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    t0 = time.perf_counter(); done = 0
    count, checksum = sweep(); done += count
    while time.perf_counter() - t0 < seconds / 2:
        done += sweep()[0]
    dt = time.perf_counter() - t0
    print(f"python terms: {count} configurations per pass, {done / dt:.0f} configurations/s "
          f"({1e6 * dt / done:.2f} us each), checksum {checksum}")
