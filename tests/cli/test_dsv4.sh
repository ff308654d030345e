#!/usr/bin/env bash
# DeepSeek-V4: its KV pools as SGLang's DSv4 calculator sums them, its own attention backend,
# its weights, the import of its config.json, and the capture against the H20 TP8 log of
# DeepSeek-V4-Flash-Base (bench/data/deployments.json dsv4-flash-base-tp8-h20-bs320-f088).
source "$CGPLAN_TESTLIB"
set -e
term() { echo "[t for t in j['terms'] if t['id']=='$1'][0]"; }
# One full token, as engine/dsv4.c sums it for V4-Flash's 44 compress_ratios entries (2 + 1 MTP x 0,
# 21 x 4, 20 x 128): a 584 B KV row (448 FP8 + 64 x 2 BF16 + 8 scales), a 132 B indexer key, the
# fp32 compressor rings (c4 8 slots of 2 x 2 x 512 x 4, c128 128 of 2 x 512 x 4, indexer 8 of
# 2 x 2 x 128 x 4) per 128-token window, doubled under speculation.
cell() { # RATIO SPEC
  python3 -c "
import math, sys
r, spec = float(sys.argv[1]), int(sys.argv[2])
ring4, ring128 = (16, 256) if spec else (8, 128)
swa = r * 584 * 44
rest = 584 / 4 * 21 + 584 / 128 * 20 + 132 / 4 * 21 + r * (ring4 / 128 * 8192 * 21 + ring128 / 128 * 4096 * 20 + ring4 / 128 * 2048 * 21)
print(math.floor(swa), math.ceil(swa + rest) - math.floor(swa))" "$@"
}

# --- the log's deployment: 8 x H20, --kv-cache-dtype bf16, max_bs 320 under 256 running requests
args=(--model deepseek-ai/DeepSeek-V4-Flash-Base --set gpu=h20 --set tp=8 --set max_bs=320 --set max_running_requests=256
  --set mem_fraction_static=0.88 --set kv_dtype=bf16 --set context_len=1048576 --set sglang=0.5.10)
expect_exit 0 "$CGPLAN" estimate "${args[@]}" --format json
read -r swa full <<<"$(cell 0.1 0)"
# SGLang logs bytes_per_full_token=15955.85: 15956 whole bytes, the window's 2569 at its DSv4 ratio 0.1
check_py "j['model'] == 'deepseek-v4-flash-base' and j['budget']['kv_cell_bytes'] == 15956 and j['budget']['kv_pools']['swa_cell_bytes'] == $swa and j['budget']['kv_pools']['full_cell_bytes'] == $full and j['budget']['kv_pools']['swa_full_tokens_ratio'] == 0.1" "V4-Flash: 15956 B a full token at SGLang's DSv4 ratio 0.1"
check_py "j['knobs']['attention_backend'] == 'auto (dsv4)' and j['knobs']['page_size'] == 256" "its own backend, page 256"
# 256 running requests clamp the list: 36 sizes to 256, as the log's 54 s capture of 36 graphs
check_py "len(j['knobs']['buckets']) == 36 and j['knobs']['buckets'][-1] == 256" "the request pool clamps max_bs 320 to 256"
# the capture SGLang logged: mem usage=1.93 GB; the estimate's range holds it
check_py "j['total_low_bytes'] <= 1.93 * 2**30 <= j['total_high_bytes'] and abs(j['total_bytes'] / (1.93 * 2**30) - 1) < 0.15" "capture within its range of the logged 1.93 GiB"
# 43 layers: 2 x 43 + 1 all-reduces; the c4 layers' indexer makes a graph costlier than MLA's 61 layers would suggest per layer
check_py "j['graph_nodes']['target']['allreduce_per_graph'] == 87 and 1500 <= j['graph_nodes']['target']['per_graph'] <= 2800" "kernel nodes per graph"
# the per-size metadata (int32 page table of ceil(1M / 256) columns, 2 x 512 top-k, 128 window
# indices per request) and the largest bucket's FP32 indexer logits over 1M / 4 c4 rows
check_py "$(term static.kv_index)['bytes'] == sum(j['knobs']['buckets']) * (4 * 4096 + 8 * 512 + 4 * 128) + 256 * 262144 * 4" "dsv4 backend state"
# a given ratio is SGLang's, not the DSv4 default
expect_exit 0 "$CGPLAN" estimate "${args[@]}" --set swa_full_tokens_ratio=0.25 --format json
read -r swa full <<<"$(cell 0.25 0)"
check_py "j['budget']['kv_pools']['swa_cell_bytes'] == $swa and j['budget']['kv_cell_bytes'] == $swa + $full and j['budget']['kv_pools']['swa_full_tokens_ratio'] == 0.25" "--swa-full-tokens-ratio 0.25 given"
# speculation doubles the compressor rings: 25491.85
expect_exit 0 "$CGPLAN" estimate "${args[@]}" --set mtp=2 --format json
read -r swa full <<<"$(cell 0.1 1)"
check_py "j['budget']['kv_cell_bytes'] == 25492 and j['budget']['kv_cell_bytes'] == $swa + $full" "speculative: 25492 B a full token"
# --kv-cache-dtype does not change the DSv4 row (FP8 nope + BF16 rope whatever the flag)
expect_exit 0 "$CGPLAN" estimate "${args[@]}" --set kv_dtype=fp8_e4m3 --format json
check_py "j['budget']['kv_cell_bytes'] == 15956" "the row is the same at fp8_e4m3"
# the text says which pools
expect_exit 0 "$CGPLAN" estimate "${args[@]}"
contains "$OUT" "KV pools: compressed (c4/c128 rows, indexer keys, compressor states)" "the pools by name"
contains "$OUT" "full-attention token at ratio 0.10" "the ratio used"

# --- the sum follows the release: the MTP entry's window out from PR #25750 (placed at v0.5.13), the
# c128 state a fixed pool of max_running_requests + 1 slots from PR #28612 (placed at v0.5.15)
rel() { # RELEASE [--set ...]: kv cell, state bytes, state slots
  local r=$1
  shift
  expect_exit 0 "$CGPLAN" estimate "${args[@]/--set sglang=0.5.10/}" --set sglang="$r" "$@" --format json
  printf '%s' "$OUT" | python3 -c "import json,sys; b=json.load(sys.stdin)['budget']; print(b['kv_cell_bytes'], b['kv_pools']['state_bytes'], b['kv_pools']['state_slots'])"
}
[ "$(rel 0.5.12)" = "15956 0 0" ] && pass || fail "v0.5.12: every compress_ratios entry, no fixed pool: $(rel 0.5.12)"
[ "$(rel 0.5.13)" = "15898 0 0" ] && pass || fail "v0.5.13: 15897.45 over the 43 layers: $(rel 0.5.13)"
[ "$(rel 0.5.14)" = "15898 0 0" ] && pass || fail "v0.5.14: as v0.5.13: $(rel 0.5.14)"
# 257 slots: ceil128(257 x 128 + 129) = 33152 rows of 2 x 512 x 4 B in 20 c128 layers
[ "$(rel 0.5.15)" = "7706 $((33152 * 4096 * 20)) 257" ] && pass || fail "v0.5.15: 7705.45 + a 2.52 GiB c128 state pool: $(rel 0.5.15)"
expect_exit 0 "$CGPLAN" estimate "${args[@]/--set sglang=0.5.10/}" --set sglang=0.5.15
contains "$OUT" "c128 compressor states, 257 request slots" "the c128 state pool named"
# speculation from PR #23862 (v0.5.14): the draft's pool as (43 + 1) / 43 of the sum; the c128 ring 256
[ "$(rel 0.5.13 --set mtp=2)" = "25434 0 0" ] && pass || fail "v0.5.13 speculative: $(rel 0.5.13 --set mtp=2)"
[ "$(rel 0.5.14 --set mtp=2)" = "26025 0 0" ] && pass || fail "v0.5.14 speculative x 44/43: $(rel 0.5.14 --set mtp=2)"
[ "$(rel 0.5.15 --set mtp=2)" = "9260 $((66176 * 4096 * 20)) 257" ] && pass ||
  fail "v0.5.15 speculative: 9259.91 + ceil128(257 x 256 + 257) rows: $(rel 0.5.15 --set mtp=2)"

# --- wo_a: dequantised to BF16 until PR #25181 (placed at v0.5.13) turns SGLANG_OPT_FP8_WO_A_GEMM on, and
# then kept FP8 on SM100 / SM103 only: V4-Pro at TP8 holds 61 x 128 x 512 x 1024 / 8 of it, one byte
# a parameter less (0.477 GiB) on B200 from v0.5.13, none on H20
wgt() { # GPU RELEASE
  expect_exit 0 "$CGPLAN" estimate --model deepseek-v4-pro --set gpu="$1" --set tp=8 --set sglang="$2" --format json
  printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['budget']['weights_bytes'])"
}
wo_a=$((61 * 128 * 512 * 1024 / 8))
b12=$(wgt b200 0.5.12) b13=$(wgt b200 0.5.13) h12=$(wgt h20 0.5.12) h13=$(wgt h20 main)
python3 -c "import sys; sys.exit(0 if abs(($b12 - $b13) / $wo_a - 1) < 0.001 else 1)" &&
  pass || fail "B200: wo_a FP8 from v0.5.13 ($b12 -> $b13, want $wo_a B less)"
[ "$h12" = "$h13" ] && [ "$h12" = "$b12" ] && pass || fail "H20: wo_a BF16 in every release ($h12, $h13; B200 0.5.12 $b12)"

# --- a backend that cannot read its pools, and its backend on another model, are refused
expect_exit 0 "$CGPLAN" estimate --model deepseek-v4-flash --set gpu=h200 --set tp=8 --set attention_backend=fa3 --format json
check_py "('backend_unsupported', 'blocking') in [(w['code'], w['severity']) for w in j['warnings']]" "fa3 on DeepSeek-V4"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set attention_backend=dsv4 --format json
check_py "('backend_unsupported', 'blocking') in [(w['code'], w['severity']) for w in j['warnings']]" "dsv4 on a GQA model"

# --- the launch line names the checkpoint and the backend
expect_exit 0 "$CGPLAN" launch --model deepseek-v4-flash --set gpu=h200 --set tp=8
contains "$OUT" "--model-path deepseek-ai/DeepSeek-V4-Flash " "launch path"
contains "$OUT" "--attention-backend dsv4" "launch backend"

# --- import: a config.json written from the numbers the preset cites imports to the same plan
cat >"$TEST_TMP/deepseek-ai--DeepSeek-V4-Flash.config.json" <<'JSON'
{"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "vocab_size": 129280, "hidden_size": 4096,
 "num_hidden_layers": 43, "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "qk_rope_head_dim": 64,
 "q_lora_rank": 1024, "o_lora_rank": 1024, "o_groups": 8, "sliding_window": 128, "max_position_embeddings": 1048576,
 "index_n_heads": 64, "index_head_dim": 128, "index_topk": 512, "hc_mult": 4, "n_routed_experts": 256,
 "n_shared_experts": 1, "moe_intermediate_size": 2048, "num_experts_per_tok": 6, "num_nextn_predict_layers": 1,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16", "expert_dtype": "fp4",
 "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]},
 "compress_ratios": [0, 0, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 0]}
JSON
export CGPLAN_PRESETS="$TEST_TMP/presets"
expect_exit 0 "$CGPLAN" model import "$TEST_TMP/deepseek-ai--DeepSeek-V4-Flash.config.json" --name dsv4-imported
expect_exit 0 "$CGPLAN" estimate --model dsv4-imported --set gpu=h200 --set tp=8 --format json
imported=$OUT
expect_exit 0 "$CGPLAN" estimate --model deepseek-v4-flash --set gpu=h200 --set tp=8 --format json
OUT2=$OUT
OUT=$imported
check_py "j['budget']['kv_cell_bytes'] == $(printf '%s' "$OUT2" | python3 -c "import json,sys; print(json.load(sys.stdin)['budget']['kv_cell_bytes'])") and j['budget']['weights_bytes'] == $(printf '%s' "$OUT2" | python3 -c "import json,sys; print(json.load(sys.stdin)['budget']['weights_bytes'])") and j['total_bytes'] == $(printf '%s' "$OUT2" | python3 -c "import json,sys; print(json.load(sys.stdin)['total_bytes'])")" "the import plans as the built-in preset"
# a ratio SGLang does not know is refused with the key named
sed 's/"compress_ratios": \[0, 0, 4/"compress_ratios": [0, 2, 4/' "$TEST_TMP/deepseek-ai--DeepSeek-V4-Flash.config.json" >"$TEST_TMP/bad.json"
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/bad.json" --name dsv4-bad
contains "$ERR" "compress_ratios" "a bad ratio names the key"
finish
