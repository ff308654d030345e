#!/usr/bin/env python3
"""node_cost.py: what the CUDA driver keeps per captured CUDA-graph node (cgplan's per-GPU `node_bytes`).

Captures synthetic graphs of N nodes and a random-weight decoder stack over SGLang's batch-size grid
into shared graph pools, largest first, and fits the driver's bytes (the drop in cudaMemGetInfo free
bytes minus the growth of torch's reserved bytes) against node counts. A measurement needs torch with
CUDA; --dry-run, --self-test and --refit need neither. See bench/gpu/README.md.
Exit status: 0 done, 1 measured with errors (listed in the JSON), 2 bad input or no torch/GPU."""
import argparse, ctypes, gc, json, math, os, platform, re, sys, time

SCHEMA, VERSION = "cgplan.node_cost", 1
KINDS = ("add", "foreach", "zero", "memset")  # x.add_(1), _foreach_add_ over 100 tensors, x.zero_(), cuMemsetD8Async
FOREACH_TENSORS, FOREACH_NUMEL = 100, 64
PARTS = ("synthetic", "decoder", "decoder-layers")
PHASES = {"capture": (0, 1), "replay": (1, 2), "total": (0, 2)}  # indices into the free/reserved triples
NODE_TYPES = ("kernel", "memcpy", "memset", "host", "graph", "empty", "wait_event", "event_record",
              "ext_sem_signal", "ext_sem_wait", "mem_alloc", "mem_free", "batch_mem_op", "conditional")
MODELS = {  # widths from the models' config.json; random bf16 weights, a few layers
    "llama-3.1-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=128256, qk_norm=False),
    "qwen3-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, intermediate=12288, vocab=151936, qk_norm=True)}
T95 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
       2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04)
MIB = 1 << 20

class Error(Exception):
    """Bad input or environment: printed as `node_cost: error: ...`, exit status 2."""

# ------------------------------------------------------------------ pure parts: no torch, no GPU
def sglang_bs_grid(max_bs):
    """SGLang's default decode capture list, [1, 2, 4, 8] + 16..max_bs step 8."""
    return [b for b in [1, 2, 4, 8] + list(range(16, max_bs + 1, 8)) if b <= max_bs]

def foreach_launches(tensors, max_tensors=110):
    """Kernels one torch._foreach_add_(list, scalar) launches over tensors of at most 65536 elements
    (one block each): ATen's multi_tensor_apply<1> launches per 110 tensors (770 with 32 KB params)."""
    return -(-tensors // max_tensors)

def make_plan(sizes, kinds, graphs, model, layers, max_bs, sweep_bs=16, sweep_reps=2):
    """Capture order. Synthetic: largest N first, `graphs` of each kind (kinds interleaved), one pool.
    Decoder: SGLang's grid largest first at `layers`, then a layer sweep at sweep_bs, one more pool.
    The first point of each pool is flagged `first`: it also carries the pool's one-off bytes."""
    per = {k: foreach_launches(FOREACH_TENSORS) if k == "foreach" else 1 for k in kinds}
    pts = [{"part": "synthetic", "series": k, "ops": -(-n // per[k]), "nodes_expected": -(-n // per[k]) * per[k]}
           for n in sorted(set(sizes), reverse=True) for _ in range(graphs) for k in kinds]
    if model != "none":
        pts += [{"part": "decoder", "series": model, "bs": bs, "layers": layers} for bs in reversed(sglang_bs_grid(max_bs))]
        sweep = sorted({max(1, layers >> i) for i in range(layers.bit_length())}, reverse=True)
        pts += [{"part": "decoder-layers", "series": model, "bs": min(sweep_bs, max_bs), "layers": n}
                for n in sweep for _ in range(sweep_reps)]
    pools = set()
    for i, p in enumerate(pts):
        p["index"], pool = i, p["part"] == "synthetic"
        if pool not in pools:
            p["first"] = True
            pools.add(pool)
    return pts

def tally_types(types):
    """CUgraphNodeType codes -> {name: count}."""
    out = {}
    for t in types:
        name = NODE_TYPES[t] if 0 <= t < len(NODE_TYPES) else "type%d" % t
        out[name] = out.get(name, 0) + 1
    return out

def driver_bytes(p, phase="total"):
    """Device bytes outside torch's allocator that a point's phase added."""
    i, j = PHASES[phase]
    return (p["free"][i] - p["free"][j]) - (p["reserved"][j] - p["reserved"][i])

def reserved_bytes(p):
    return p["reserved"][2] - p["reserved"][0]

def fit(xs, ys, origin=False):
    """Least squares y = slope*x + intercept (or y = slope*x); low/high: the slope's 95% interval."""
    n, need = len(xs), 2 if origin else 3
    if n < need:
        raise Error("a fit needs %d points, got %d" % (need, n))
    mx, my = (0.0, 0.0) if origin else (sum(xs) / n, sum(ys) / n)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise Error("x does not vary (all %s)" % xs[0])
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    icept = my - slope * mx
    sse = sum((y - icept - slope * x) ** 2 for x, y in zip(xs, ys))
    df = n - need + 1
    se = math.sqrt(sse / df / sxx)
    t = T95[df - 1] if df <= len(T95) else 1.96
    out = {"slope": slope, "se": se, "low": slope - t * se, "high": slope + t * se, "points": n}
    if not origin:
        syy = sum((y - my) ** 2 for y in ys)
        out.update(intercept=icept, r2=1 - sse / syy if syy else 1.0)
    return out

def compute_fits(points):
    """Fits per series from the raw free/reserved triples; first-of-pool points only give one_off."""
    groups, firsts = {}, {}
    for p in points:
        if "free" in p:
            groups.setdefault((p["part"], p["series"]), []).append(p)
            if p.get("first"):
                firsts[p["part"]] = p
    fits = []
    for (part, series), ps in groups.items():
        use = [p for p in ps if not p.get("first")]
        counted = [p for p in use if p.get("nodes")]
        specs = [("node_bytes", False, "nodes", counted, driver_bytes)]
        if part == "decoder":  # node counts barely vary over bs: a ratio, plus slopes over bs
            specs = [("node_bytes", True, "nodes", counted, driver_bytes), ("bs_bytes", False, "bs", use, driver_bytes),
                     ("retained_bs_bytes", False, "bs", use, reserved_bytes)]
        for quantity, origin, xkey, sel, yfn in specs:
            f = {"name": "%s/%s" % (part, series), "quantity": quantity, "model": "origin" if origin else "line", "x": xkey}
            try:
                f.update(fit([p[xkey] for p in sel], [yfn(p) for p in sel], origin))
                total = sum(driver_bytes(p) for p in sel)
                if yfn is driver_bytes and total:
                    f["replay_share"] = sum(driver_bytes(p, "replay") for p in sel) / total
                fp = firsts.get(part)
                if fp is not None and fp["series"] == series and fp.get(xkey) is not None:
                    f["one_off"] = yfn(fp) - (f["slope"] * fp[xkey] + f.get("intercept", 0.0))
            except Error as e:
                f["error"] = str(e)
            fits.append(f)
    return fits

def recommend(doc):
    """Preset value: the decoder layer sweep's slope (realistic kernels) if fitted, else the decoder
    ratio, else the median synthetic slope; low/high span every node_bytes interval measured."""
    node = [f for f in doc["fits"] if f["quantity"] == "node_bytes" and "slope" in f]
    if not node:
        return None
    pick = next(s for s in ([f for f in node if f["name"].split("/")[0] == part] for part in PARTS[::-1]) if s)
    best = sorted(pick, key=lambda f: f["slope"])[len(pick) // 2]
    env = doc["env"]
    source = "measured: bench/gpu/node_cost.py v%d, %s, driver %s, torch %s, CUDA %s, fit %s" % (
        VERSION, env.get("gpu"), env.get("driver") or "unknown", env.get("torch"), env.get("cuda"), best["name"])
    return {"fit": round(best["slope"]), "low": round(max(0.0, min(f["low"] for f in node))),
            "high": round(max(f["high"] for f in node)), "from": best["name"], "source": source}

def make_document(env, config, points, **extra):
    doc = dict(schema=SCHEMA, version=VERSION, env=env, config=config, points=points, **extra)
    doc["fits"] = compute_fits(points)
    doc["recommended"] = recommend(doc)
    return doc

def _count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0

def validate_document(doc):
    """Raise Error naming the first field that is not what this version writes."""
    def need(ok, msg):
        if not ok:
            raise Error(msg)
    need(isinstance(doc, dict), "document is not a JSON object")
    need(doc.get("schema") == SCHEMA, "not a node_cost document (schema %r, want %r)" % (doc.get("schema"), SCHEMA))
    need(doc.get("version") == VERSION, "unsupported version %r (this script reads %d)" % (doc.get("version"), VERSION))
    need(isinstance(doc.get("env"), dict) and isinstance(doc["env"].get("gpu"), str), "env.gpu is missing or not a string")
    need(isinstance(doc.get("points"), list), "points is missing or not a list")
    for i, p in enumerate(doc["points"]):
        need(isinstance(p, dict), "points[%d] is not an object" % i)
        need(p.get("part") in PARTS, "points[%d].part is %r, not one of %s" % (i, p.get("part"), ", ".join(PARTS)))
        need(isinstance(p.get("series"), str), "points[%d].series is missing or not a string" % i)
        if "free" in p or "reserved" in p:  # measured; a point without both was not (skipped, or a plan)
            for k in ("free", "reserved"):
                v = p.get(k)
                need(isinstance(v, list) and len(v) == 3 and all(_count(x) for x in v),
                     "points[%d].%s must be 3 byte counts (before, after capture, after replay)" % (i, k))
        for k in ("nodes", "bs", "layers", "ops"):
            need(p.get(k) is None or _count(p[k]), "points[%d].%s must be a non-negative integer or null" % (i, k))
    return doc

def load_document(path):
    try:
        with open(path) as fh:
            return validate_document(json.load(fh))
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise Error("%s is not JSON: %s" % (path, e))

def summary_lines(doc):
    env, lines = doc["env"], []
    for f in doc["fits"]:
        head = '%s gpu="%s" driver=%s series=%s' % (f["quantity"], env["gpu"], env.get("driver") or "unknown", f["name"])
        if "error" in f:
            lines.append('%s fit=n/a reason="%s"' % (head, f["error"]))
            continue
        tail = "".join(" %s=%d" % (k, round(f[k])) for k in ("intercept", "one_off") if k in f)
        tail += " r2=%.3f" % f["r2"] if "r2" in f else ""
        lines.append("%s fit=%d low=%d high=%d%s points=%d" % (head, round(f["slope"]), round(f["low"]), round(f["high"]), tail, f["points"]))
    rec = doc.get("recommended")
    if rec:
        lines.append('preset node_bytes: {fit: %d, low: %d, high: %d, source: "%s"}' % (rec["fit"], rec["low"], rec["high"], rec["source"]))
    return lines

def parse_driver_version(text):
    """'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ...' -> '580.65.06'."""
    m = re.search(r"NVRM version:.*?\s(\d{3,}\.\d+(?:\.\d+)?)\s", text + " ")
    return m.group(1) if m else None

def self_test():
    """The pure parts on made-up data with known answers."""
    k, c, one_off, top = 15360, 256 * 1024, 48 * MIB, 80 << 30
    pts = make_plan([100, 1000, 5000], ["add", "foreach"], 3, "llama-3.1-8b", 8, 32)
    for p in pts:
        p["nodes"] = p.get("nodes_expected") or 9 + 16 * p["layers"] + (p["bs"] >= 16)
        drv, kept = k * p["nodes"] + c + (one_off if p.get("first") else 0), 2 * 128256 * p.get("bs", 0)
        p["free"], p["reserved"] = [top, top - drv - kept, top - drv - kept], [MIB, MIB + kept, MIB + kept]
    doc = make_document({"gpu": "self-test"}, {}, pts)
    f = {(f["name"], f["quantity"]): f for f in doc["fits"]}
    checks = [(len(pts) == 2 * 3 * 3 + 7 + 8, "plan size"),
              (abs(f["synthetic/add", "node_bytes"]["slope"] - k) < 1e-6, "synthetic slope"),
              (abs(f["synthetic/foreach", "node_bytes"]["intercept"] - c) < 1e-3, "synthetic intercept"),
              (abs(f["synthetic/add", "node_bytes"]["one_off"] - one_off) < 1e-3, "first graph's one-off"),
              (abs(f["decoder-layers/llama-3.1-8b", "node_bytes"]["slope"] - k) < 1e-6, "layer sweep slope"),
              (abs(f["decoder/llama-3.1-8b", "retained_bs_bytes"]["slope"] - 2 * 128256) < 1e-6, "retained per bs"),
              (doc["recommended"]["fit"] == k, "recommended value"),
              (compute_fits(validate_document(json.loads(json.dumps(doc)))["points"]) == doc["fits"], "round trip"),
              (foreach_launches(FOREACH_TENSORS) == 1 and foreach_launches(221) == 3, "foreach"),
              (len(sglang_bs_grid(256)) == 35, "SGLang grid")]
    bad = [name for ok, name in checks if not ok]
    if bad:
        raise Error("self-test failed: " + ", ".join(bad))
    print("self-test ok: %d checks" % len(checks))
    return 0

# ------------------------------------------------------------------ GPU parts: torch, CUDA
def require_torch():
    try:
        import torch
    except ImportError as e:
        raise Error("torch is not installed (%s); a measurement needs a CUDA build of PyTorch "
                    "(--dry-run, --self-test and --refit run without it)" % e)
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        raise Error("no CUDA device: torch %s (CUDA %s) sees none" % (torch.__version__, getattr(torch.version, "cuda", None)))
    return torch

def _check(rc, what):
    if rc != 0:
        raise RuntimeError("%s failed: CUresult %d" % (what, rc))

def libcuda_node_types(cu, handle):
    n, t, out = ctypes.c_size_t(0), ctypes.c_int(), []
    _check(cu.cuGraphGetNodes(ctypes.c_void_p(handle), None, ctypes.byref(n)), "cuGraphGetNodes")
    nodes = (ctypes.c_void_p * n.value)()
    _check(cu.cuGraphGetNodes(ctypes.c_void_p(handle), nodes, ctypes.byref(n)), "cuGraphGetNodes")
    for node in nodes[:n.value]:
        _check(cu.cuGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(t)), "cuGraphNodeGetType")
        out.append(t.value)
    return out

def cuda_python_counter():
    try:
        from cuda.bindings import runtime as rt
    except ImportError:
        from cuda import cudart as rt  # older cuda-python; ImportError if neither

    def count(handle):
        err, _, n = rt.cudaGraphGetNodes(handle, 0)
        err, nodes, n = rt.cudaGraphGetNodes(handle, n)
        if int(err) != 0:
            raise RuntimeError("cudaGraphGetNodes: %s" % err)
        return [int(rt.cudaGraphNodeGetType(x)[1]) for x in nodes[:n]]
    return count

def probe_types(torch, fn, stream, counter):
    """Node types of fn's graph: a keep_graph capture in a private pool, never instantiated."""
    g, out = torch.cuda.CUDAGraph(keep_graph=True), None
    try:
        with torch.cuda.stream(stream):
            g.capture_begin()
            out = fn()
            g.capture_end()
        return counter(g.raw_cuda_graph())
    finally:
        del out
        g.reset()

def pick_counter(torch, stream, cu):
    """cuda-python, else libcuda through ctypes; either must find one kernel node in x.add_(1)."""
    cands = []
    try:
        cands.append(("cuda-python", cuda_python_counter()))
    except Exception:  # not installed, or a broken install
        pass
    if cu is not None:
        cands.append(("libcuda", lambda h: libcuda_node_types(cu, h)))
    x = torch.zeros(1, device="cuda")
    for name, counter in cands:
        try:
            if probe_types(torch, lambda: x.add_(1.0), stream, counter) == [0]:
                return name, counter
        except Exception as e:  # torch without keep_graph, or a binding that differs
            print("node_cost: counting via %s unavailable: %s" % (name, e), file=sys.stderr)
    return "expected", None

def synthetic_ops(torch, cu):
    """Kind -> run(n): n ops of one node each on the current stream, one dependency chain."""
    x = torch.zeros(256, device="cuda")
    ts = [torch.zeros(FOREACH_NUMEL, device="cuda") for _ in range(FOREACH_TENSORS)]
    buf = torch.zeros(4096, dtype=torch.uint8, device="cuda")

    def rep(op):
        def run(n):
            for _ in range(n):
                op()
        return run

    def memset():
        _check(cu.cuMemsetD8Async(ctypes.c_uint64(buf.data_ptr()), ctypes.c_ubyte(0), ctypes.c_size_t(buf.numel()),
                                  ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)), "cuMemsetD8Async")
    ops = {"add": rep(lambda: x.add_(1.0)), "foreach": rep(lambda: torch._foreach_add_(ts, 1.0)),
           "zero": rep(x.zero_)}  # zero_() is ATen's fill kernel on CUDA, not a memset node
    if cu is not None:
        ops["memset"] = rep(memset)
    return ops

def build_decoder(torch, cfg, layers, max_bs, ctx):
    """One decode step of a GQA decoder in eager ops: embedding; per layer RMSNorm, qkv GEMM, [q/k
    norm], RoPE, KV write, SDPA over a static cache, o_proj, RMSNorm, gate_up, SiLU*up, down; final
    norm, lm_head. Returns forward(bs, n_layers) -> logits (each graph's are kept, as in SGLang)."""
    F, dt, dev = torch.nn.functional, torch.bfloat16, "cuda"
    H, nh, nkv, d, inter, vocab = (cfg[k] for k in ("hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab"))
    gen = torch.Generator(device=dev).manual_seed(0)
    w = lambda *s: torch.randn(*s, device=dev, dtype=dt, generator=gen).mul_(0.02)
    ones = lambda n: torch.ones(n, device=dev, dtype=dt)
    cache = lambda: torch.zeros(max_bs, nkv, ctx, d, device=dev, dtype=dt)
    Ls = [dict(ln1=ones(H), ln2=ones(H), qn=ones(d), kn=ones(d), qkv=w((nh + 2 * nkv) * d, H), o=w(H, nh * d),
               gu=w(2 * inter, H), down=w(H, inter), kc=cache(), vc=cache()) for _ in range(layers)]
    emb, lm, normf = w(vocab, H), w(vocab, H), ones(H)
    ids = torch.zeros(max_bs, dtype=torch.long, device=dev)
    pos = torch.full((max_bs,), ctx - 1, dtype=torch.long, device=dev)
    ang = torch.outer(torch.arange(ctx, device=dev, dtype=torch.float32),
                      1.0 / 500000.0 ** (torch.arange(0, d, 2, device=dev, dtype=torch.float32) / d))
    cos_t, sin_t = ang.cos().to(dt), ang.sin().to(dt)

    rms = lambda x, wt: F.rms_norm(x, (x.shape[-1],), wt, 1e-6)  # torch >= 2.4

    def rope(x, c, s):
        x1, x2 = x.chunk(2, -1)
        return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), -1)

    def forward(bs, nl):
        x = F.embedding(ids[:bs], emb)
        c, s = cos_t[pos[:bs]].unsqueeze(1), sin_t[pos[:bs]].unsqueeze(1)
        for L in Ls[:nl]:
            q, k, v = F.linear(rms(x, L["ln1"]), L["qkv"]).split((nh * d, nkv * d, nkv * d), -1)
            q, k, v = q.reshape(bs, nh, d), k.reshape(bs, nkv, d), v.reshape(bs, nkv, d)
            if cfg["qk_norm"]:
                q, k = rms(q, L["qn"]), rms(k, L["kn"])
            q, k = rope(q, c, s), rope(k, c, s)
            L["kc"][:bs, :, ctx - 1] = k
            L["vc"][:bs, :, ctx - 1] = v
            # GQA decode: a KV head's query heads stand as its query positions
            o = F.scaled_dot_product_attention(q.view(bs, nkv, nh // nkv, d), L["kc"][:bs], L["vc"][:bs])
            x = x + F.linear(o.reshape(bs, nh * d), L["o"])
            gate, up = F.linear(rms(x, L["ln2"]), L["gu"]).chunk(2, -1)
            x = x + F.linear(F.silu(gate) * up, L["down"])
        return F.linear(rms(x, normf), lm)
    return forward

def snap(torch):
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0], torch.cuda.memory_reserved()

def measure_part(torch, pts, fn_for, stream, counter, deadline, log):
    """Count each distinct graph's nodes first (probes), then capture the points in plan order into
    one shared pool, keeping every graph and its output alive until the part ends."""
    key = lambda p: (p["series"], p.get("ops"), p.get("bs"), p.get("layers"))
    types = {}
    for p in pts:
        if counter is not None and key(p) not in types:
            with torch.cuda.stream(stream):
                fn_for(p)()  # eager first: kernels loaded, this stream's cuBLAS workspace made
            types[key(p)] = probe_types(torch, fn_for(p), stream, counter)
    pool, keep = torch.cuda.graph_pool_handle(), []
    for p in pts:
        if time.time() > deadline:
            p["skipped"] = "time limit"
            continue
        fn, t = fn_for(p), types.get(key(p))
        p["nodes"] = len(t) if t is not None else p.get("nodes_expected")
        p["node_types"] = tally_types(t) if t is not None else None
        with torch.cuda.stream(stream):  # SGLang runs each batch size twice before capturing it
            fn(), fn()
        torch.cuda.synchronize()
        gc.collect()
        torch.cuda.empty_cache()  # as torch.cuda.graph does on entry
        s0 = snap(torch)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            g.capture_begin(pool=pool)
            out = fn()
            g.capture_end()  # instantiates (keep_graph=False)
        s1 = snap(torch)
        g.replay()
        s2 = snap(torch)
        keep.append((g, out))
        p["free"], p["reserved"] = [s0[0], s1[0], s2[0]], [s0[1], s1[1], s2[1]]
        log("[%d] %s/%s nodes=%s driver=%.2f MiB reserved=%+.2f MiB" % (
            p["index"], p["part"], p["series"], p["nodes"], driver_bytes(p) / MIB, reserved_bytes(p) / MIB))
    del keep
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()

def gpu_env(torch, cu, count_method):
    driver, api, cuda_python = None, ctypes.c_int(0), None
    if os.path.exists("/proc/driver/nvidia/version"):
        with open("/proc/driver/nvidia/version") as fh:
            driver = parse_driver_version(fh.read())
    if cu is not None:
        cu.cuDriverGetVersion(ctypes.byref(api))
    try:
        from importlib.metadata import version
        cuda_python = version("cuda-python")
    except Exception:
        pass
    return {"gpu": torch.cuda.get_device_name(), "capability": list(torch.cuda.get_device_capability()),
            "total_bytes": torch.cuda.mem_get_info()[1], "driver": driver, "cuda_driver_api": api.value or None,
            "torch": torch.__version__, "cuda": torch.version.cuda, "cuda_python": cuda_python,
            "count_method": count_method, "host": platform.node(), "python": platform.python_version(),
            "CUDA_MODULE_LOADING": os.environ.get("CUDA_MODULE_LOADING")}

def measure(args, config, pts):
    torch = require_torch()
    log = lambda s: print("node_cost: " + s, file=sys.stderr, flush=True)
    t0, cu = time.time(), None
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        pass
    torch.zeros(1, device="cuda")
    stream = torch.cuda.Stream()
    method, counter = pick_counter(torch, stream, cu)
    env, errors, deadline = gpu_env(torch, cu, method), [], t0 + args.time_limit
    log("%s, driver %s, torch %s, counting nodes via %s" % (env["gpu"], env["driver"], env["torch"], method))
    try:
        ops = synthetic_ops(torch, cu)
        for p in pts:
            if p["part"] == "synthetic" and p["series"] not in ops:
                p["skipped"] = "libcuda not loadable"
        syn = [p for p in pts if p["part"] == "synthetic" and p["series"] in ops]
        measure_part(torch, syn, lambda p: (lambda: ops[p["series"]](p["ops"])), stream, counter, deadline, log)
    except Exception as e:
        errors.append("synthetic: %s: %s" % (type(e).__name__, e))
    dec = [p for p in pts if p["part"] != "synthetic"]
    if dec:
        try:
            fwd = build_decoder(torch, MODELS[args.model], args.layers, args.max_bs, args.ctx)
            measure_part(torch, dec, lambda p: (lambda: fwd(p["bs"], p["layers"])), stream, counter, deadline, log)
        except Exception as e:
            errors.append("decoder: %s: %s" % (type(e).__name__, e))
    for e in errors:
        log("error: " + e)
    return make_document(env, config, pts, errors=errors, elapsed_s=round(time.time() - t0, 1),
                         truncated=any(p.get("skipped") == "time limit" for p in pts))

def parse_args(argv):
    def ints(s):
        if not re.fullmatch(r"[1-9]\d*(,[1-9]\d*)*", s):
            raise argparse.ArgumentTypeError("expected comma-separated positive integers, got %r" % s)
        return [int(x) for x in s.split(",")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write the JSON document here (required for a measurement)")
    ap.add_argument("--quick", action="store_true", help="fewer sizes, graphs and layers (under a minute)")
    ap.add_argument("--dry-run", action="store_true", help="print the capture plan as JSON; no torch")
    ap.add_argument("--self-test", action="store_true", help="check the fitting on made-up data; no torch")
    ap.add_argument("--refit", metavar="JSON", help="recompute fits and summary from a saved document; no torch")
    ap.add_argument("--sizes", type=ints, help="synthetic node counts (default 100,500,1000,2500,5000)")
    ap.add_argument("--kinds", type=lambda s: s.split(","), default=list(KINDS), help="of " + ",".join(KINDS))
    ap.add_argument("--graphs", type=int, help="graphs per synthetic size and kind (default 5)")
    ap.add_argument("--model", default="llama-3.1-8b", choices=sorted(MODELS) + ["none"])
    ap.add_argument("--layers", type=int, help="decoder layers (default 8)")
    ap.add_argument("--ctx", type=int, help="static KV length per request (default 1024)")
    ap.add_argument("--max-bs", type=int, help="largest decode batch size (default 256)")
    ap.add_argument("--time-limit", type=float, default=420.0, help="capture no more after this many seconds")
    a = ap.parse_args(argv)
    for name, full, quick in (("sizes", [100, 500, 1000, 2500, 5000], [100, 1000, 2500]), ("graphs", 5, 3),
                              ("layers", 8, 4), ("ctx", 1024, 256), ("max_bs", 256, 64)):
        if getattr(a, name) is None:
            setattr(a, name, quick if a.quick else full)
    bad = [k for k in a.kinds if k not in KINDS]
    if bad:
        ap.error("unknown kind %s (kinds: %s)" % (",".join(bad), ",".join(KINDS)))
    if min(a.graphs, a.layers, a.ctx, a.max_bs) < 1:
        ap.error("--graphs, --layers, --ctx and --max-bs must be positive")
    return a

def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if a.self_test:
            return self_test()
        if a.refit:
            doc = load_document(a.refit)
            doc["fits"] = compute_fits(doc["points"])
            doc["recommended"] = recommend(doc)
        else:
            config = {k: getattr(a, k) for k in ("sizes", "kinds", "graphs", "model", "layers", "ctx", "max_bs", "time_limit", "quick")}
            config.update(foreach_tensors=FOREACH_TENSORS, foreach_numel=FOREACH_NUMEL)
            pts = make_plan(a.sizes, a.kinds, a.graphs, a.model, a.layers, a.max_bs)
            if a.dry_run:
                print(json.dumps(dict(schema=SCHEMA, version=VERSION, dry_run=True, config=config, points=pts, graphs=len(pts),
                                      synthetic_nodes=sum(p.get("nodes_expected", 0) for p in pts)), indent=1))
                return 0
            outdir = os.path.dirname(os.path.abspath(a.out or "."))
            if not a.out or not os.path.isdir(outdir):
                raise Error("--out PATH is required for a measurement" if not a.out else "--out: no directory " + outdir)
            doc = measure(a, config, pts)
        if a.out:
            with open(a.out + ".tmp", "w") as fh:
                json.dump(doc, fh, indent=1)
            os.replace(a.out + ".tmp", a.out)
        print("\n".join(summary_lines(doc)))
        return 1 if doc.get("errors") else 0
    except Error as e:
        print("node_cost: error: %s" % e, file=sys.stderr)
        return 2

if __name__ == "__main__":
    sys.exit(main())
