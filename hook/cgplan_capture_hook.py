"""cgplan_capture_hook: per-term CUDA-graph memory measurements for `cgplan ingest`.

The start-up log tells the planner how much free memory each captured size cost; it cannot
say what the memory went to. This hook measures that inside every SGLang process, with
nothing but torch (the article's methods 3 and 4):

* around each captured size, from the creation of its torch.cuda.CUDAGraph (before the
  warm-up runs that create lazy buffers) to the end of its capture:
  torch.cuda.memory_reserved() and torch.cuda.mem_get_info(). Their growths split the
  largest bucket into what torch's caching allocator holds (pool tensors) and what was
  allocated beside it (DeepEP's NVSHMEM and NVL buffers, NCCL's buffers);
* on request, a memory snapshot of the largest size (torch.cuda.memory._record_memory_history
  and _dump_snapshot): the allocations made in its window and still held, in bytes per term
  of cgplan's estimate, attributed by the source file that allocated them.

It prints one line per measurement on stderr, where SGLang's own log goes:

    [cgplan-hook] capture seq=0 size=256 rank=0 reserved_before=B reserved_after=B free_before=B free_after=B total=B
    [cgplan-hook] term=moe.deepep bytes=B size=256 rank=0
    [cgplan-hook] snapshot size=256 rank=0 file=PATH

so `cgplan ingest server.log` stores them with the run (`cgplan runs show ID` puts them beside
the estimate's terms).

Use (hook/README.md has more):

    PYTHONPATH=/path/to/cgplan/hook CGPLAN_HOOK=1 python -m sglang.launch_server ... 2>&1 | tee server.log

hook/sitecustomize.py imports this module in every Python process started with that
PYTHONPATH when CGPLAN_HOOK=1 (SGLang's scheduler processes are spawned: they inherit the
environment, not the parent's patches). Settings, all from the environment:

    CGPLAN_HOOK=1               install the hook (sitecustomize.py)
    CGPLAN_HOOK_SNAPSHOT=DIR    also take the snapshot of the largest size; the pickle goes to
                                DIR/cgplan-snapshot-rank<R>.pickle (torch's memory_viz reads it)
    CGPLAN_HOOK_RANKS=all       every rank prints (default: rank 0 only, the rank whose bars the
                                log shows; cgplan keeps the lowest rank's lines anyway)
    CGPLAN_HOOK_OUT=FILE        append the lines to FILE instead of stderr

Measuring costs a device synchronisation per captured size, nothing while serving. The hook
wraps torch.cuda.CUDAGraph.__init__ and torch.cuda.graph.__exit__ only; SGLang is not touched.
"""

import os
import sys

import torch

__all__ = ["install", "TERM_BY_FILE"]

PREFIX = "[cgplan-hook] "

# The source file whose frame allocated a block -> the term of cgplan's estimate it belongs to
# (engine_terms[] in engine/estimate.c). The innermost frame with a file listed here decides;
# allocations with none are "unattributed".
TERM_BY_FILE = {
    "deepep.py": "moe.deepep",  # SGLang's token_dispatcher/deepep.py: DeepEP's buffers
    "buffer.py": "moe.deepep",  # deep_ep/buffer.py
    "deep_gemm.py": "moe.masked_gemm",  # moe_runner/deep_gemm.py: the masked GEMM's intermediates
    "graph_shared_output.py": "static.logits",  # the largest bucket's shared FP32 logits
    "logits_processor.py": "static.logits",
    "fused_moe.py": "moe.fused",  # fused_moe_triton: the fused-MoE caches
    "buffers.py": "static.inputs",  # runner_utils/buffers.py: the graphs' input buffers
}

# What a frame's locals name the captured size (capture_one_batch_size(self, bs, ...) and the
# piecewise runner's num_tokens), looked for up the stack from where the graph is created.
SIZE_LOCALS = ("bs", "num_tokens", "num_seqs")
SIZE_FRAMES = 8

_state = {"installed": False, "seq": 0, "snapshot_done": False, "recording": False}


def _rank():
    dist = getattr(torch, "distributed", None)
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception:  # a half-initialised process group: the rank is not known yet
        pass
    return int(os.environ.get("RANK", "0") or 0)


def _emit(text):
    if os.environ.get("CGPLAN_HOOK_RANKS") != "all" and _rank() != 0:
        return
    line = PREFIX + text + "\n"
    out = os.environ.get("CGPLAN_HOOK_OUT")
    if out:
        with open(out, "a") as f:
            f.write(line)
    else:
        sys.stderr.write(line)
        sys.stderr.flush()


def _reading():
    """(reserved, free, total) in bytes, after the device has finished what was queued."""
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return int(torch.cuda.memory_reserved()), int(free), int(total)


def _caller_size():
    frame = sys._getframe(2)
    for _ in range(SIZE_FRAMES):
        if frame is None:
            break
        for name in SIZE_LOCALS:
            v = frame.f_locals.get(name)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
        frame = frame.f_back
    return 0


def _term_of(frames):
    for fr in frames or ():
        base = os.path.basename(str(fr.get("filename", "")))
        if base in TERM_BY_FILE:
            return TERM_BY_FILE[base]
    return "unattributed"


def _attribute(snapshot, device):
    """Bytes per term of the blocks allocated in the recorded window and still held at its end."""
    traces = snapshot.get("device_traces") or []
    events = traces[device] if device < len(traces) else []
    live = {}
    for ev in events:
        action = ev.get("action")
        if action == "alloc":
            live[ev.get("addr")] = (int(ev.get("size", 0)), ev.get("frames"))
        elif action in ("free_requested", "free_completed"):
            live.pop(ev.get("addr"), None)
    terms = {}
    for size, frames in live.values():
        term = _term_of(frames)
        terms[term] = terms.get(term, 0) + size
    return terms


def _snapshot_wanted():
    return bool(os.environ.get("CGPLAN_HOOK_SNAPSHOT")) and not _state["snapshot_done"]


def _start_recording():
    if _state["recording"] or not _snapshot_wanted():
        return
    torch.cuda.memory._record_memory_history(max_entries=1000000)
    _state["recording"] = True


def _finish_snapshot(size):
    if not _state["recording"]:
        return
    _state["recording"] = False
    _state["snapshot_done"] = True
    rank = _rank()
    snapshot = torch.cuda.memory._snapshot()
    path = os.path.join(os.environ["CGPLAN_HOOK_SNAPSHOT"], "cgplan-snapshot-rank%d.pickle" % rank)
    try:
        torch.cuda.memory._dump_snapshot(path)
    except OSError as e:  # the bytes per term still come out
        path = "unwritten (%s)" % e
    torch.cuda.memory._record_memory_history(enabled=None)
    terms = _attribute(snapshot, torch.cuda.current_device())
    for term in sorted(terms, key=lambda t: -terms[t]):
        _emit("term=%s bytes=%d size=%d rank=%d" % (term, terms[term], size, rank))
    _emit("snapshot size=%d rank=%d file=%s" % (size, rank, path))


def install():
    """Wrap torch.cuda.CUDAGraph.__init__ and torch.cuda.graph.__exit__ in place. Idempotent.

    In place, not by subclassing: code that imported the names before keeps working, and the
    construction of torch's graph (a C++ class underneath) runs exactly as it would.
    """
    if _state["installed"]:
        return
    _state["installed"] = True
    graph_cls = torch.cuda.CUDAGraph
    ctx_cls = torch.cuda.graph
    graph_init = graph_cls.__init__
    ctx_exit = ctx_cls.__exit__

    # A size's window opens where its graph is made: SGLang makes it before the warm-up runs,
    # which is where DeepEP's and NCCL's lazy buffers are created.
    def __init__(self, *args, **kwargs):
        graph_init(self, *args, **kwargs)
        self._cgplan_size = _caller_size()
        _start_recording()
        self._cgplan_before = _reading()

    def __exit__(self, *exc):
        result = ctx_exit(self, *exc)
        g = getattr(self, "cuda_graph", None)
        before = getattr(g, "_cgplan_before", None)
        if before is not None and not any(exc):
            rb, fb, _ = before
            ra, fa, total = _reading()
            size = g._cgplan_size
            _emit(
                "capture seq=%d size=%d rank=%d reserved_before=%d reserved_after=%d free_before=%d "
                "free_after=%d total=%d" % (_state["seq"], size, _rank(), rb, ra, fb, fa, total)
            )
            _state["seq"] += 1
            _finish_snapshot(size)  # the first capture is the largest size: capture runs largest first
        return result

    graph_cls.__init__ = __init__
    ctx_cls.__exit__ = __exit__
