#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora under DIR (default build-fuzz/seeds): the real fixture
# logs (tests/fixtures/sglang-logs), the built-in presets (presets/*/*.yaml) and a few hostile
# shapes, --set / --vary values for every knob, and key sequences for the TUI. Usage:
#   tests/fuzz/seed_corpus.sh [DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$src/build-fuzz/seeds}
rm -rf "$out"
mkdir -p "$out"/caplog "$out"/preset "$out"/knobs "$out"/tui
cp "$src"/tests/fixtures/sglang-logs/*.log "$out"/caplog/
cp "$src"/presets/*/*.yaml "$out"/preset/
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
PY
echo "seeds in $out: $(ls "$out"/caplog | wc -l) logs, $(ls "$out"/preset | wc -l) presets, $(ls "$out"/knobs | wc -l) knob values, $(ls "$out"/tui | wc -l) key sequences"
