#!/usr/bin/env bash
# Gemma 4's KV pools as SGLang sizes them, derived here from google/gemma-4-26B-A4B's config.json (the byte
# copy in tests/fixtures/configs) with SGLang's own formula, and set against cgplan's budget.kv_cell_bytes,
# budget.kv_pools, kv_tokens_per_gib, kv_tokens and kv_min_bytes at several TP sizes, KV dtypes and
# --swa-full-tokens-ratio values; the 31B the same; NVIDIA's NVFP4 releases hold the weights their
# quantization configs give; the kernel-node table counts Gemma 4's third all-reduce; bad full-layer keys are
# refused with file:line:column.
source "$CGPLAN_TESTLIB"
set -e
CONFIGS="$CGPLAN_FIXTURES/configs"

# SGLang's bytes per full-attention token of a hybrid-SWA model (sgl-project/sglang):
# - utils/hf_transformers/config.py (@ 0067b4fe), model_type gemma4: the config's head_dim and
#   num_key_value_heads are the sliding layers' and become swa_head_dim (= swa_v_head_dim) and
#   swa_num_key_value_heads; global_head_dim and num_global_key_value_heads become head_dim and
#   num_key_value_heads; v_head_dim = head_dim (V has its own buffer whatever attention_k_eq_v says).
# - configs/model_config.py (@ 001adf564) get_hybrid_layer_ids: Gemma 4's full and sliding layers are the
#   full_attention and sliding_attention entries of layer_types.
# - model_executor/pool_configurator.py (@ 003fca80) HybridSWAPoolConfigurator:
#     full_per_token = get_num_kv_heads(tp) x (head_dim + v_head_dim) x kv_size
#     swa_per_token  = get_swa_num_kv_heads(tp) x (swa_head_dim + swa_v_head_dim) x kv_size
#     cell_size      = full_per_token x n_full + swa_full_tokens_ratio x swa_per_token x n_swa
#   with get_num_kv_heads(tp) = max(1, heads // tp); max_total_num_tokens = available_bytes // cell_size
#   full-attention tokens.
# Prints the full share, the sliding share and the cell.
sglang_cell() {
  python3 - "$@" <<'PY'
import json, sys
path, tp, kv_size, ratio = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
text = json.load(open(path))['text_config']
swa_head_dim = swa_v_head_dim = text['head_dim']
swa_kv_heads = text['num_key_value_heads']
head_dim = v_head_dim = text['global_head_dim']
kv_heads = text['num_global_key_value_heads'] or text['num_key_value_heads']
n_full = text['layer_types'].count('full_attention')
n_swa = text['layer_types'].count('sliding_attention')
full_per_token = max(1, kv_heads // tp) * (head_dim + v_head_dim) * kv_size
swa_per_token = max(1, swa_kv_heads // tp) * (swa_head_dim + swa_v_head_dim) * kv_size
full, swa = full_per_token * n_full, ratio * swa_per_token * n_swa
print(full, round(swa), full + swa)
PY
}

check_cell() { # MODEL CONFIG TP KV_DTYPE KV_SIZE RATIO
  local model=$1 config=$2 tp=$3 kv_dtype=$4 kv_size=$5 ratio=$6
  read -r full swa cell <<<"$(sglang_cell "$config" "$tp" "$kv_size" "$ratio")"
  expect_exit 0 "$CGPLAN" estimate --model "$model" --set gpu=h200 --set tp="$tp" --set kv_dtype="$kv_dtype" \
    --set swa_full_tokens_ratio="$ratio" --format json
  check_py "j['budget']['kv_pools']['full_cell_bytes'] == $full and j['budget']['kv_pools']['swa_cell_bytes'] == $swa" \
    "$model tp $tp $kv_dtype ratio $ratio: full $full + sliding $swa B per full-attention token (SGLang's split)"
  check_py "j['budget']['kv_cell_bytes'] == round($cell) and j['budget']['kv_pools']['swa_layers_pooled'] is True" \
    "$model tp $tp $kv_dtype ratio $ratio: kv_cell_bytes $cell (HybridSWAPoolConfigurator cell_size)"
  check_py "j['budget']['kv_tokens_per_gib'] == 2**30 // round($cell) and j['budget']['kv_tokens'] == j['budget']['kv_pool_bytes'] // round($cell)" \
    "$model tp $tp: tokens per GiB and the pool's tokens at $cell B each"
  check_py "j['budget']['kv_min_bytes'] == j['knobs']['max_bs'] * j['knobs']['min_kv_tokens'] * round($cell)" \
    "$model tp $tp: min_kv_tokens for each of max_bs requests at $cell B each"
  check_py "abs(j['budget']['kv_pools']['swa_bytes'] / j['budget']['kv_pool_bytes'] - $swa / $cell) < 1e-6" \
    "$model tp $tp: the sliding pool takes $swa of every $cell bytes"
}

# --- 26B-A4B: 5 full layers of 2 x (512 + 512), 25 sliding of 8 x (256 + 256). TP1 BF16: 20,480 + 163,840 =
# 184,320 B; TP 8: the 2 global KV heads are replicated (one per GPU), the 8 sliding ones split.
G26="$CONFIGS/google--gemma-4-26B-A4B.json"
read -r full swa cell <<<"$(sglang_cell "$G26" 1 2 0.8)"
[ "$full" = 20480 ] && [ "$swa" = 163840 ] && pass || fail "SGLang's formula on the 26B-A4B config: $full + $swa, want 20480 + 163840"
for tp in 1 2 4 8; do
  check_cell gemma-4-26b-a4b "$G26" "$tp" auto 2 0.8
done
check_cell gemma-4-26b-a4b "$G26" 2 fp8_e4m3 1 0.8
check_cell gemma-4-26b-a4b "$G26" 1 auto 2 0.5
check_cell gemma-4-26b-a4b-nvfp4 "$CONFIGS/nvidia--Gemma-4-26B-A4B-NVFP4.json" 1 fp8_e4m3 1 0.8

# the same numbers from the config itself (`--model CONFIG.json` imports it on the fly)
expect_exit 0 "$CGPLAN" estimate --model "$G26" --set gpu=h200 --format json
check_py "j['budget']['kv_cell_bytes'] == 184320 and j['budget']['kv_tokens_per_gib'] == 5825" \
  "26B-A4B config.json: 184,320 B per full-attention token, 5825 tokens per GiB"

# --- 31B: 10 full layers of 4 x (512 + 512), 50 sliding of 16 x (256 + 256): 81,920 + 655,360 = 737,280 B at
# TP1 BF16 (the NVFP4 copy's text_config is Google's architecture)
G31="$CONFIGS/nvidia--Gemma-4-31B-IT-NVFP4.json"
for tp in 1 4; do
  check_cell gemma-4-31b "$G31" "$tp" auto 2 0.8
done
check_cell gemma-4-31b-nvfp4 "$G31" 2 fp8_e4m3 1 0.8

# --- the weights: BF16 everywhere but what each quantization config quantises, NVFP4 at 4 bits and an FP8
# scale per 16 (group_size 16). 26B-A4B-NVFP4: the routed experts only (its ignore list keeps every layer's
# self_attn, mlp and router); 31B-IT-NVFP4: the MLPs (only self_attn ignored). Parameters as SGLang holds
# them: the full layers' v too (k_eq_v loads k_proj into it). The vision tower and embed_vision, which both
# quantization configs exclude (model.vision_tower*, model.embed_vision*), BF16 from the vision_config as
# sglang 8905cbd42 gemma4_vision.py builds them: per layer a fused q / k / v of (heads + 2 x KV heads) x
# head_dim, o_proj and a gated MLP; the patch embedder's Linear over 3 x patch^2 pixels and its 2-axis
# position table; embed_vision from the vision width to the text width.
weights() {
  python3 - "$@" <<'PY'
import json, sys
path, which = sys.argv[1], sys.argv[2]
t = json.load(open(path))['text_config']
h, v = t['hidden_size'], t['vocab_size']
types = t['layer_types']
attn = 0
for kind in types:
    hd = t['global_head_dim'] if kind == 'full_attention' else t['head_dim']
    kv = (t['num_global_key_value_heads'] or t['num_key_value_heads']) if kind == 'full_attention' else t['num_key_value_heads']
    attn += 2 * t['num_attention_heads'] * hd * h + 2 * kv * hd * h
mlp = len(types) * 3 * h * t['intermediate_size']
experts = router = 0
if t.get('enable_moe_block'):
    experts = len(types) * t['num_experts'] * 3 * h * t['moe_intermediate_size']
    router = len(types) * t['num_experts'] * h
fp4 = experts if which == 'experts' else mlp
vc = json.load(open(path))['vision_config']
vw, vhd = vc['hidden_size'], vc['head_dim']
vlayer = vw * (vc['num_attention_heads'] + 2 * vc['num_key_value_heads']) * vhd + vc['num_attention_heads'] * vhd * vw
vlayer += 3 * vw * vc['intermediate_size']
tower = vc['num_hidden_layers'] * vlayer + 3 * vc['patch_size'] ** 2 * vw + 2 * vc['position_embedding_size'] * vw + vw * h
bf16 = v * h + attn + mlp + experts + router - fp4 + tower
print(bf16 * 2 + fp4 * 4500 // 8000)
PY
}
w26=$(weights "$CONFIGS/nvidia--Gemma-4-26B-A4B-NVFP4.json" experts)
expect_exit 0 "$CGPLAN" estimate --model gemma-4-26b-a4b-nvfp4 --set gpu=h200 --set tp=1 --format json
check_py "j['budget']['weights_bytes'] == $w26" "26B-A4B-NVFP4: $w26 B of weights (NVFP4 experts, the rest and the vision tower BF16)"
w31=$(weights "$G31" mlp)
expect_exit 0 "$CGPLAN" estimate --model gemma-4-31b-nvfp4 --set gpu=h200 --set tp=1 --format json
check_py "j['budget']['weights_bytes'] == $w31" "31B-IT-NVFP4: $w31 B of weights (NVFP4 MLP, BF16 attention and vision tower)"
expect_exit 0 "$CGPLAN" estimate --model "$G31" --set gpu=h200 --set tp=1 --format json
check_py "j['budget']['weights_bytes'] == $w31" "31B-IT-NVFP4 config.json: the same weights from its quantization_config"

# --- TP all-reduces: o_proj and the MLP's down_proj per layer, the embedding's, and in a 26B-A4B layer the
# experts' own (Gemma4MoE reduce_results beside Gemma3MLP's RowParallelLinear): 3 x 30 + 1 = 91; 31B 2 x 60 + 1
expect_exit 0 "$CGPLAN" estimate --model gemma-4-26b-a4b --set gpu=h200 --set tp=2 --format json
check_py "j['graph_nodes']['target']['allreduce_per_graph'] == 91" "26B-A4B tp 2: 91 all-reduces a graph"
expect_exit 0 "$CGPLAN" estimate --model gemma-4-31b --set gpu=h200 --set tp=2 --format json
check_py "j['graph_nodes']['target']['allreduce_per_graph'] == 121" "31B tp 2: 121 all-reduces a graph"

# --- Hugging Face ids find the presets
expect_exit 0 "$CGPLAN" estimate --model google/gemma-4-26B-A4B-it --set gpu=h200 --format json
check_py "j['model'] == 'gemma-4-26b-a4b'" "google/gemma-4-26B-A4B-it is gemma-4-26b-a4b"
expect_exit 0 "$CGPLAN" estimate --model nvidia/Gemma-4-31B-IT-NVFP4 --set gpu=h200 --format json
check_py "j['model'] == 'gemma-4-31b-nvfp4'" "nvidia/Gemma-4-31B-IT-NVFP4 is gemma-4-31b-nvfp4"

# --- the full layers' keys need both layer kinds; a bad one names file:line:column
cat >"$TEST_TMP/one-kind.yaml" <<'EOF'
kind: model
name: one-kind
vocab: 1000
hidden: 256
layers: 4
context_len: 4096
attention:
  kind: gqa
  heads: 4
  kv_heads: 2
  head_dim: 64
  full_head_dim: 128
intermediate: 512
EOF
expect_exit 1 "$CGPLAN" estimate --model "$TEST_TMP/one-kind.yaml" --set gpu=h200
contains "$ERR" "one-kind.yaml:12:18: full_head_dim on a model without both full-attention and sliding-window layers" \
  "full_head_dim on a one-kind model"
sed -e 's/  full_head_dim: 128/  swa_layers: 3\n  sliding_window: 128\n  full_kv_heads: 8/' -e 's/one-kind/too-many/' \
  "$TEST_TMP/one-kind.yaml" \
  >"$TEST_TMP/too-many.yaml"
expect_exit 1 "$CGPLAN" estimate --model "$TEST_TMP/too-many.yaml" --set gpu=h200
contains "$ERR" "too-many.yaml:14:" "full_kv_heads above heads names its line"
contains "$ERR" "full_kv_heads" "full_kv_heads above heads names the key"

finish
