#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora under DIR (default build-fuzz/seeds): the real fixture
# logs (tests/fixtures/sglang-logs), the built-in presets (presets/*/*.yaml) and a few hostile
# shapes, --set / --vary values for every knob, key sequences for the TUI, the fixture configs
# (tests/fixtures/configs), SGLang launch lines, edits of the two store records fuzz_record
# encodes, and calibration points. Usage:
#   tests/fuzz/seed_corpus.sh [DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$src/build-fuzz/seeds}
rm -rf "$out"
mkdir -p "$out"/caplog "$out"/preset "$out"/knobs "$out"/tui "$out"/config "$out"/record "$out"/sglang_args "$out"/lint "$out"/calibrate
cp "$src"/tests/fixtures/sglang-logs/*.log "$out"/caplog/
cp "$src"/presets/*/*.yaml "$out"/preset/
cp "$src"/tests/fixtures/configs/*.json "$out"/config/
python3 - "$out" <<'PY'
import os, sys
out = sys.argv[1]
def put(kind, name, data):
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
# presets: flow and block nesting at the scan's edge, anchors, a multi-document file
put("preset", "deep-flow", "kind: model\nname: x\nx: " + "[" * 9 + "]" * 9 + "\n")
put("preset", "deep-block", "".join(" " * i + "k%d:\n" % i for i in range(9)) + "         v: 1\n")
put("preset", "anchors", "kind: gpu\nname: g\ncuda_total_bytes: &a 100 GiB\npre_load_free_bytes: *a\n")
put("preset", "two-docs", "kind: gpu\n---\nkind: gpu\n")
# knobs: values for every knob (first byte: its index in engine_knobs[], modulo the count)
values = ["24", "auto", "16", "8", "1", "[1, 2, 4, 8]", "1,2,4", "131072", "0.9", "b200", "on", "off",
          "deepep", "low_latency", "flashinfer_mla", "1024", "fp8_e4m3", "64", "nan", "0x1p-1", "1e400"]
for k in range(32):
    for i, v in enumerate(values[:6]):
        put("knobs", "k%02d-%d" % (k, i), bytes([k]) + v.encode())
for k, v in enumerate(values):
    put("knobs", "v%02d" % k, bytes([k % 32]) + v.encode())
for i, v in enumerate(["max_bs=8:256", "mem_fraction_static=0.5:0.99:0.01", "context_len=1:16777216",
                       "dp=1:16", "world=8:64:8", "max_bs=1:1024:0.001"]):
    put("knobs", "vary-%d" % i, bytes([255]) + v.encode())  # 0xff: --vary
# tui: sizes, then keys and mouse
keys = [b"\x1b[C\x1b[C\x1b[D", b"=64\r", b"\t\x1b[B\x1b[C", b"c\x1b[6~\x1b[5~", b"?\x1b", b"p\x1b[B\r",
        b"r\x1b[B\x1b", b"\x1b[<0;40;5M\x1b[<32;60;5M\x1b[<0;60;5m", b"\x1b[<64;10;10M\x1b[<65;10;10M",
        b"\x1b[<0;-2147483648;1M", b"=abc\x7f\x7f1\r", b"\x1b[H\x1b[F\x1b[Z"]
for i, k in enumerate(keys):
    put("tui", "keys-%02d" % i, bytes([100, 43, 30, 19, i]) + k)
    put("tui", "small-%02d" % i, bytes([40, 10, 210, 250, i]) + k)
# sglang_args: a base deployment's index, then a launch line (cgplan launch's shape and others)
lines = ["python3 -m sglang.launch_server --model-path moonshotai/Kimi-K3 --tp-size 16 --dp-size 16 "
         "--enable-dp-attention --moe-a2a-backend deepep --deepep-mode low_latency --cuda-graph-max-bs 64 "
         "--mem-fraction-static 0.85 --context-length 131072 --page-size 64",
         "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256 python3 -m sglang.launch_server --tp 8 --ep 8",
         "--cuda-graph-bs 1 2 4 8 16 32 --disable-radix-cache --kv-cache-dtype fp8_e4m3",
         "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1",
         "--speculative-num-draft-tokens=4 --attention-backend=flashinfer_mla --dcp-size 2",
         "--enable-two-batch-overlap --max-running-requests 128k --swa-full-tokens-ratio 0.5 \\\n  --port 30000",
         "--enable-deepep-moe --moe-runner-backend auto --host 0.0.0.0 --dist-init-addr 10.0.0.1:5000 --nnodes 2"]
for i, l in enumerate(lines):
    for b in range(2):
        put("sglang_args", "line-%02d-%d" % (i, b), bytes([b]) + l.encode())
# lint: base and release byte, then a whole line (the same lines, and shell text around one)
for i, l in enumerate(lines + ["export X=1\nCUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server \\\n  --model-path 'a b' --tp=8 # c",
                               "sglang serve --speculative-algorithm NEXTN --quantization fp8 --bogus-flag 3", "ls -la"]):
    put("lint", "line-%02d" % i, bytes([i * 5 % 12]) + l.encode())
# record: [record and mode] then edits of three bytes (op, position low, position high / value)
put("record", "knobs", b"\x00")
put("record", "detail", b"\x01")
put("record", "detail-small-room", bytes([1 | 4 * 9]))
for i in range(24):
    op, at = i % 6, (i * 37) % 256
    put("record", "knobs-edit-%02d" % i, bytes([0, op, at, i * 11 % 256]))
    put("record", "detail-edit-%02d" % i, bytes([1, op, at, i * 13 % 256, (op + 1) % 6, at ^ 0x55, 0x20]))
put("record", "raw-empty", b"\x02")
put("record", "raw-version", b"\x03\x01")
put("record", "raw-huge-count", b"\x03\x01\xff\xff\xff\xff\x0f")
# calibrate: [fit and point count] then tagged numbers (see fuzz_calibrate.c)
import random
rng = random.Random(21)
for i in range(16):
    n = 1 + i % 8
    body = bytes(rng.randrange(256) for _ in range(40 * n))
    put("calibrate", "model-%02d" % i, bytes([n << 1]) + body)
    put("calibrate", "node-%02d" % i, bytes([n << 1 | 1]) + body)
PY
echo "seeds in $out: $(ls "$out"/caplog | wc -l) logs, $(ls "$out"/preset | wc -l) presets, $(ls "$out"/knobs | wc -l) knob values, $(ls "$out"/tui | wc -l) key sequences, $(ls "$out"/config | wc -l) configs, $(ls "$out"/sglang_args | wc -l) launch lines, $(ls "$out"/record | wc -l) records, $(ls "$out"/calibrate | wc -l) point sets"
