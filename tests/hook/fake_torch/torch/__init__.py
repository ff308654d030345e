"""A stand-in for torch, for testing hook/cgplan_capture_hook.py without a GPU: the few names
the hook and tests/hook/drive_capture.py use, over a simulated device whose allocations are
made explicitly (torch.cuda._fake_alloc). Not a model of CUDA beyond that."""

from . import cuda, distributed  # noqa: F401

__version__ = "0.0-cgplan-fake"
