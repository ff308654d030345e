"""torch.cuda.memory's history recording, as the stand-in device keeps it."""

import pickle

_history = {"enabled": False, "events": []}


def _event(action, addr, size, filename):
    if _history["enabled"]:
        frames = [{"filename": "/opt/sglang/python/sglang/srt/" + filename, "line": 1, "name": "f"},
                  {"filename": "/opt/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", "line": 2,
                   "name": "capture_one_batch_size"}]
        _history["events"].append({"action": action, "addr": addr, "size": size, "frames": frames})


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=1):
    _history["enabled"] = enabled is not None
    if enabled is None:
        _history["events"] = []


def _snapshot(device=None):
    return {"segments": [], "device_traces": [list(_history["events"])]}


def _dump_snapshot(filename="dump_snapshot.pickle"):
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)
