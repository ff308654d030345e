#!/usr/bin/env bash
# SGLang releases before v0.4.6 (issue 19 item 4): each estimates with the list its own source
# builds (engine/release.c cites the lines), and a release past the newest modelled one says main
# stands in for it.
source "$CGPLAN_TESTLIB"
set -e
PAD160="[1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160]"

# --- the two lines: an H100 at tp 1. Both releases set cuda_graph_max_bs 160 (server_args.py
# "cuda_graph_max_bs: int = 160" at v0.3.6; "else: self.cuda_graph_max_bs = 160" at v0.4.3) and
# capture [1, 2, 4] + [i * 8 for i in range(1, 21)], each keeping its own logits (before PR #8579),
# with flashinfer (no fa3 default before PR #5344, v0.4.5.post1).
for rel in 0.4.3 0.3.6; do
  expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=$rel --format json
  check_py "j['knobs']['sglang'] == 'v$rel' and j['knobs']['max_bs'] == 160 and j['knobs']['buckets'] == $PAD160" "$rel: its list"
  check_py "j['knobs']['attention_backend'] == 'auto (flashinfer)'" "$rel: flashinfer by default"
  check_py "[t for t in j['terms'] if t['id'] == 'buckets.logits'][0]['bytes'] > 0 and j['total_complete'] is True" "$rel: per-graph logits, a complete total"
done
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.3.6
contains "$OUT" "buckets 23 captured (auto): $PAD160" "the table prints the list"

# --- where the releases differ: an L4 (23,034 MiB) at tp 1 takes cuda_graph_max_bs 4 in v0.3.6
# (server_args.py: "if gpu_mem < 25000: ... self.cuda_graph_max_bs = 4"), 8 in v0.4.3
# ("if gpu_mem is not None and gpu_mem < 25_000: if self.tp_size < 4: self.cuda_graph_max_bs = 8"),
# 80 at tp 4.
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=l4 --set sglang=0.3.6 --set max_running_requests=256 --format json
check_py "j['knobs']['max_bs'] == 4 and j['knobs']['buckets'] == [1, 2, 4]" "0.3.6 on an L4: 4"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=l4 --set sglang=0.4.3 --set max_running_requests=256 --format json
check_py "j['knobs']['max_bs'] == 8 and j['knobs']['buckets'] == [1, 2, 4, 8]" "0.4.3 on an L4: 8"
# ... and EAGLE in v0.4.3 sets disable_cuda_graph_padding: list(range(1, 33)) + [64, 128].
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.4.3 --set mtp=4 --format json
check_py "j['knobs']['buckets'] == list(range(1, 33)) + [64, 128]" "0.4.3 under EAGLE: the unpadded list"

# --- bench/data's qwq-32b-tp4-l4-pcie (v0.4.3.post4, 4 x L4, max_running_requests=2049 in its log):
# 80 at tp 4, the 13 graphs the log counts.
expect_exit 0 "$CGPLAN" estimate --model Qwen/QwQ-32B --set gpu=l4 --set tp=4 --set sglang=0.4.3.post4 \
  --set context_len=131072 --set mem_fraction_static=0.85 --set max_running_requests=2049 --format json
check_py "j['knobs']['max_bs'] == 80 and len(j['knobs']['buckets']) == 13 and j['knobs']['buckets'][-1] == 80" "QwQ on 4 x L4: 13 graphs"

# --- the range's ends
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.3.0 --format json
check_py "j['knobs']['sglang'] == 'v0.3.0' and j['knobs']['buckets'] == $PAD160" "0.3.0, the oldest"
expect_exit 2 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.2.15
contains "$ERR" "older than the oldest modelled release v0.3.0" "older: an error naming the oldest"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.6.0 --format json
check_py "any(w['code'] == 'adjusted' and w['severity'] == 'info' and w['message'].endswith('newer than the newest modelled release main@2026-07-20: planned as main@2026-07-20') for w in j['warnings'])" "newer: planned as main, and said"
check_py "j['knobs']['sglang'] == 'v0.6.0'" "newer: printed as given"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=0.6.0
contains "$OUT" "SGLang v0.6.0 is newer than the newest modelled release main@2026-07-20: planned as main@2026-07-20" "the table says it too"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set sglang=main --format json
check_py "'adjusted' not in [w['code'] for w in j['warnings']]" "main itself: no note"
# v0.4.3 .. v0.4.5.post2 append 168..256 step 8 on AMD GPUs (is_hip; PR #3420): the estimate
# asks the GPU preset's arch
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=mi300x --set sglang=0.4.3 --format json
check_py "j['knobs']['buckets'][-12:] == list(range(168, 257, 8)) and len(j['knobs']['buckets']) == 35" "AMD: 168..256 appended at 0.4.3"
finish
