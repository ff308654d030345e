"""Plays an SGLang start-up on the stand-in torch (tests/hook/fake_torch): the log lines SGLang
prints on stderr, and a capture loop shaped as CudaGraphRunner's (largest size first; per size a
graph is made, warm-up runs that create DeepEP's lazy buffers on the first, then the capture).
The hook, loaded by hook/sitecustomize.py (CGPLAN_HOOK=1), prints its lines in between, as it
would inside SGLang. Usage: drive_capture.py SIZE..."""

import sys

import torch

GiB = 1 << 30
sizes = sorted((int(a) for a in sys.argv[1:]), reverse=True)


def avail():
    return torch.cuda.mem_get_info()[0] / GiB


def log(msg):
    sys.stderr.write("[2026-08-20 10:00:00] " + msg + "\n")
    sys.stderr.flush()


log("server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, cuda_graph_max_bs=%d, "
    "cuda_graph_bs=%s, speculative_algorithm=None)" % (sizes[0], sorted(sizes)))
log("Load weight end. elapsed=1.00 s, type=Qwen3ForCausalLM, avail mem=%.2f GB, mem usage=16.00 GB." % avail())
begin = avail()
log("Capture cuda graph begin. This can take up to several minutes. avail mem=%.2f GB" % begin)
log("Capture cuda graph bs %s" % sorted(sizes))


def capture_one_batch_size(bs):
    graph = torch.cuda.CUDAGraph()
    if bs == sizes[0]:  # warm-up of the largest size: lazy buffers
        torch.cuda._fake_alloc(0.5 * GiB, "layers/moe/token_dispatcher/deepep.py", in_torch=False)  # NVSHMEM
        torch.cuda._fake_alloc(0.25 * GiB, "layers/moe/token_dispatcher/deepep.py")
        torch.cuda._fake_alloc(0.125 * GiB, "layers/moe/moe_runner/deep_gemm.py")
        torch.cuda._fake_alloc(0.0625 * GiB, "model_executor/graph_shared_output.py")
    scratch = torch.cuda._fake_alloc(0.01 * GiB, "layers/attention/flashinfer_backend.py")
    torch.cuda._fake_free(scratch)  # freed within the window: not a held term
    with torch.cuda.graph(graph):
        torch.cuda._fake_alloc(bs * 0.01 * GiB, "models/qwen3.py")  # the graph's own pool
    return graph


for i, bs in enumerate(sizes):
    sys.stderr.write("Capturing batches (bs=%d avail_mem=%.2f GB): %3d%%|#| %d/%d [00:01<00:00, 1.00it/s]\n"
                     % (bs, avail(), 100 * i // len(sizes), i, len(sizes)))
    capture_one_batch_size(bs)
end = avail()
log("Capture cuda graph end. Time elapsed: 2.00 s. mem usage=%.2f GB. avail mem=%.2f GB." % (begin - end, end))
log("The server is fired up and ready to roll!")
