#!/usr/bin/env bash
# estimate --sglang-args: the issue's reproducers, each flag with its status (never dropped in
# silence), and the rules SGLang applies after parsing (server_args.py).
set -eu
# shellcheck source=../lib.sh
. "${CGPLAN_TESTLIB:-$(dirname "$0")/../lib.sh}"
L=(--set gpu=h200)
BASE="--model-path meta-llama/Llama-3.1-70B-Instruct --tp 8"

# status of FLAG in the JSON's sglang_args
status_is() { check_py "[f['status'] for f in j['sglang_args'] if f['flag'] == '$1'] == ['$2']" "$1 is $2"; }

# The reproducers: each listed with its status, warned on stderr when not modelled or unknown
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --enable-torch-compile --chunked-prefill-size 8192 --bogus-flag 3 --host 0.0.0.0" --format json
status_is --enable-torch-compile not_modelled
status_is --bogus-flag unknown
status_is --host no_effect
# no decode-graph term reads the chunk, but without --mem-fraction-static SGLang's default
# fraction does (1.5 x chunk in its reserve), which cgplan takes at the GPU's default chunk
status_is --chunked-prefill-size not_modelled
check_py "[f['value'] for f in j['sglang_args'] if f['flag'] == '--bogus-flag'] == ['3']" "the unknown flag keeps its value"
contains "$ERR" "--bogus-flag 3: unknown" "unknown flag warned on stderr"
contains "$ERR" "--enable-torch-compile: not_modelled" "not-modelled flag warned on stderr"
# --hybrid-kvcache-ratio (v0.4.9 .. v0.5.7) was a real flag: Llama 4's own chunked-layer pool, which
# the plan does not model (it keeps one pool); not "not an SGLang flag"
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --set sglang=0.5.6 --sglang-args "--model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --tp 8 --hybrid-kvcache-ratio 1" --format json
status_is --hybrid-kvcache-ratio not_modelled
check_py "j['budget']['kv_pools']['swa_layers_pooled'] is False" "the plan keeps Llama 4's one pool at v0.5.6"
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --chunked-prefill-size 8192 --mem-fraction-static 0.85" --format json
status_is --chunked-prefill-size no_effect
# the table lists them too
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --bogus-flag 3"
contains "$OUT" "sglang args (3 flags)" "the table's block"
contains "$OUT" "--bogus-flag 3" "the table names the unknown flag"

# --cuda-graph-bs 1 2 4 8 16 32 without --cuda-graph-max-bs: max_bs = max(list) = 32, 6 graphs
# (server_args.py _handle_gpu_memory_settings: an explicit cuda_graph_bs sets cuda_graph_max_bs)
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --cuda-graph-bs 1 2 4 8 16 32" --format json
check_py "j['knobs']['max_bs'] == 32 and j['rows']['bs_max'] == 32 and j['graph_nodes']['target']['graphs'] == 6" "explicit list: max_bs 32, 6 graphs"
check_py "[f['value'] for f in j['sglang_args'] if f['flag'] == '--cuda-graph-bs'] == ['1 2 4 8 16 32']" "the list's value as written"

# --speculative-algorithm NEXTN without --max-running-requests: SGLang sets 48 requests (PR #4908)
# and the capture list stops at the pool: the speculative grid 1..8, 10..32/2, 40, 44, 48 = 23 graphs
# (not the 512 of H200's tier)
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 "${L[@]}" --sglang-args "--tp 8 --speculative-algorithm NEXTN" --format json
check_py "j['knobs']['max_running_requests'] == 48 and j['knobs']['max_bs'] == 48 and j['knobs']['mtp'] == 4" "NEXTN: pool 48, max_bs 48, mtp 3 + 1"
check_py "j['knobs']['buckets'] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 40, 44, 48] and j['graph_nodes']['target']['graphs'] == 23" "NEXTN: 23 graphs up to 48"
status_is --speculative-algorithm modelled
# with --max-running-requests given the rule stays out
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 "${L[@]}" --sglang-args "--tp 8 --speculative-algorithm EAGLE --max-running-requests 256" --format json
check_py "j['knobs']['max_running_requests'] == 256 and j['knobs']['max_bs'] == 512" "EAGLE with a pool: the tier's 512"
# the window: 32 from v0.4.3.post3 (PR #3986), none before (lint applies --set sglang first)
expect_exit 0 "$CGPLAN" lint --set gpu=h200 --set sglang=0.4.3.post3 --format json "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --speculative-algorithm EAGLE"
check_py "j['max_running_requests'] == 32" "v0.4.3.post3: 32 requests"
expect_exit 0 "$CGPLAN" lint --set gpu=h200 --set sglang=0.4.3.post2 --format json "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --speculative-algorithm EAGLE"
check_py "j['max_running_requests'] is None" "v0.4.3.post2: no rule"
# an algorithm cgplan does not model is said, and sets no speculation
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 "${L[@]}" --sglang-args "--tp 8 --speculative-algorithm NGRAM" --format json
status_is --speculative-algorithm not_modelled
check_py "j['knobs']['mtp'] == 1" "NGRAM: no mtp"

# --quantization fp8 counts a BF16 checkpoint's weights as FP8 (about half); an unmodelled method says so
w_bf16=$("$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["budget"]["weights_bytes"])')
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --quantization fp8" --format json
status_is --quantization modelled
check_py "0.45 < j['budget']['weights_bytes'] / $w_bf16 < 0.56" "fp8 weights about half of bf16"
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --quantization awq" --format json
status_is --quantization not_modelled
check_py "j['budget']['weights_bytes'] == $w_bf16" "awq: the weights as the preset gives them"
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --dtype float32" --format json
status_is --dtype modelled
check_py "1.9 < j['budget']['weights_bytes'] / $w_bf16 < 2.1" "float32 doubles the unquantised weights"

# kept rules: --dp-size without --enable-dp-attention is replicas; --enable-deepep-moe is a2a deepep
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 "${L[@]}" --sglang-args "--tp 8 --dp-size 2 --enable-deepep-moe" --format json
check_py "j['knobs']['dp'] == 2 and j['knobs']['dp_attention'] is False and j['knobs']['a2a'] == 'deepep'" "replicas and the legacy switch"
status_is --enable-deepep-moe modelled
# the JSON's flag text goes through the JSON writer: a quote and a control character escaped
expect_exit 0 "$CGPLAN" estimate "${L[@]}" --sglang-args "$BASE --served-model-name 'a\"b'" --format json
check_py "[f['value'] for f in j['sglang_args'] if f['flag'] == '--served-model-name'] == ['a\"b']" "escaped value"

# estimate reads the line with --set's release: v0.4.3.post3's EAGLE pool is 32 (PR #3986), and
# v0.4.3.post2 has no such rule (SGLang's 160 default tier for the GPU)
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set sglang=0.4.3.post3 \
  --sglang-args "--tp 8 --speculative-algorithm EAGLE" --format json
check_py "j['knobs']['max_running_requests'] == 32 and j['knobs']['max_bs'] == 32" "estimate: --set sglang= reaches the reader"
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --sglang-args "--tp 8" --set dcp=2 --format json
check_py "j['knobs']['dcp'] == 2 and j['knobs']['world'] == 8" "estimate: a layout --set applies after the line's tp"

# the vision tower's flags are known, not modelled: the plan splits the tower as the model file does
# without --mm-enable-dp-encoder, and counts none for Llama 4, whose tower only --enable-multimodal loads
expect_exit 0 "$CGPLAN" estimate --model qwen3-vl-8b --set gpu=h200 \
  --sglang-args "--tp 4 --mm-enable-dp-encoder --enable-multimodal" --format json
status_is --mm-enable-dp-encoder not_modelled
status_is --enable-multimodal not_modelled
contains "$ERR" "--mm-enable-dp-encoder: not_modelled" "the DP encoder flag warned on stderr"
finish
