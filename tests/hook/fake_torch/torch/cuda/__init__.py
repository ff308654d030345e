"""torch.cuda over a simulated device.

The device has TOTAL bytes; torch's caching allocator holds `reserved` of them, other libraries
(DeepEP's NVSHMEM, NCCL) `outside`. _fake_alloc(nbytes, filename, in_torch=True) allocates a
block the way a frame in FILENAME would; while history is recorded it leaves an "alloc" event
with that frame, as torch.cuda.memory._snapshot() reports them."""

from . import memory  # noqa: F401

GiB = 1 << 30
TOTAL = 80 * GiB
_dev = {"reserved": 0, "outside": 0, "used_before": 20 * GiB, "next_addr": 0x7F0000000000, "blocks": {}}


def synchronize():
    pass


def empty_cache():
    pass


def current_device():
    return 0


def memory_reserved(device=None):
    return _dev["reserved"]


def mem_get_info(device=None):
    used = _dev["used_before"] + _dev["reserved"] + _dev["outside"]
    return TOTAL - used, TOTAL


def _fake_alloc(nbytes, filename, in_torch=True):
    nbytes = int(nbytes)
    addr = _dev["next_addr"]
    _dev["next_addr"] += nbytes + 512
    _dev["reserved" if in_torch else "outside"] += nbytes
    _dev["blocks"][addr] = (nbytes, in_torch)
    if in_torch:
        memory._event("alloc", addr, nbytes, filename)
    return addr


def _fake_free(addr):
    nbytes, in_torch = _dev["blocks"].pop(addr)
    if in_torch:
        memory._event("free_requested", addr, nbytes, "caching_allocator.py")
        # the caching allocator keeps the block reserved: freed, not returned to the device


class CUDAGraph:
    def __init__(self, keep_graph=False):
        self.captured = False

    def capture_begin(self, *args, **kwargs):
        pass

    def capture_end(self):
        self.captured = True

    def replay(self):
        pass


class graph:
    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        self.cuda_graph = cuda_graph

    def __enter__(self):
        synchronize()
        empty_cache()
        self.cuda_graph.capture_begin()
        return self

    def __exit__(self, *exc):
        self.cuda_graph.capture_end()
        return None
