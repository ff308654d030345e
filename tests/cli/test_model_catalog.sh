#!/usr/bin/env bash
# The model catalog: every built-in model preset names its source (a comment line citing a repository
# or a URL), claims Hugging Face ids no other preset claims, and estimates on 8 H200s; the stored
# configs (tests/fixtures/configs/ORG--NAME.json) of the architectures the importer reads import; and
# for models whose model card publishes a parameter count, the count cgplan computes from the preset's
# shapes is within 2% of it.
source "$CGPLAN_TESTLIB"
set -e
: "${CGPLAN_SRC:?CGPLAN_SRC must point to the source tree (the built-in presets are presets/models/NAME.yaml there)}"
PRESETS="$CGPLAN_SRC/presets/models"

expect_exit 0 "$CGPLAN" presets --format json
models=$(printf '%s' "$OUT" | python3 -c "
import json, sys
for p in json.load(sys.stdin)['presets']:
    if p['kind'] == 'model' and p['origin'].startswith('builtin:'):
        print(p['name'])")
[ "$(echo $models | wc -w)" -ge 70 ] && pass || fail "expected 70+ built-in models, got: $models"

# --- each preset file cites its source: a comment naming a repository (owner/name) or a URL
for m in $models; do
  f="$PRESETS/$m.yaml"
  if [ ! -f "$f" ]; then
    fail "$m: no $f"
    continue
  fi
  if grep -E '^#' "$f" |
    grep -qE 'https?://[^ ]+|[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]*[A-Za-z][A-Za-z0-9_.-]*'; then
    pass
  else
    fail "$m: $f has no comment line naming a repository or URL (its source)"
  fi
done

# --- a Hugging Face id resolves to one preset only
dups=$(cd "$PRESETS" && python3 -c "
import re, sys, collections
seen = collections.defaultdict(list)
for m in sys.argv[1:]:
    text = open(m + '.yaml').read()
    hit = re.search(r'^hf_names:\s*\[([^\]]*)\]', text, re.M | re.S)
    for name in (hit.group(1).replace('\n', ' ').split(',') if hit else []):
        name = name.strip().strip('\"').lower()
        if name:
            seen[name].append(m)
print(' '.join('%s(%s)' % (k, '+'.join(v)) for k, v in sorted(seen.items()) if len(v) > 1))" $models)
[ -z "$dups" ] && pass || fail "Hugging Face ids claimed by two presets: $dups"

# --- every model estimates on 8 H200s: exit 0 (or 3 when it does not fit) and a positive total
for m in $models; do
  set +e
  OUT=$("$CGPLAN" estimate --model "$m" --set gpu=h200 --set tp=8 --format json 2>"$TEST_TMP/stderr")
  rc=$?
  set -e
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    fail "$m: estimate exit $rc, want 0 or 3: $(head -c 300 "$TEST_TMP/stderr")"
    continue
  fi
  pass
  check_py "j['model'] == '$m' and j['total_bytes'] > 0 and j['budget']['weights_bytes'] > 0" "$m: a positive total on 8 H200s"
done

# --- the stored configs of the architectures the importer reads import (into a private directory)
export CGPLAN_PRESETS="$TEST_TMP/imported"
for f in "$CGPLAN_FIXTURES"/configs/*--*.json; do
  case $f in *.hf_quant_config.json) continue ;; esac
  arch=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['architectures'][0])" "$f")
  case $arch in
  DeepseekV3ForCausalLM | KimiK25ForConditionalGeneration | GlmMoeDsaForCausalLM | Qwen2ForCausalLM | Qwen3ForCausalLM | \
    LlamaForCausalLM | Qwen3MoeForCausalLM | Qwen3NextForCausalLM | Glm4MoeForCausalLM | GptOssForCausalLM | \
    Gemma4ForConditionalGeneration | Qwen2_5_VLForConditionalGeneration)
    expect_exit 0 "$CGPLAN" model import "$f" --name catalog-import-check ;;
  esac
done
unset CGPLAN_PRESETS

# --- an LFM2 plan reports its state pool: SGLang's mamba cache of conv states (configs/lfm2.py
# mamba2_cache_params), 10 conv layers x hidden 2048 x (conv_L_cache 3 - 1) x 2 B = 81,920 per slot
expect_exit 0 "$CGPLAN" estimate --model LiquidAI/LFM2-1.2B --set gpu=rtx4080-16gb --format json
check_py "j['budget']['kv_pools']['state_slots'] > 0 and j['budget']['state_pool_bytes'] == j['budget']['kv_pools']['state_slots'] * 81920 and j['budget']['kv_pools']['full_cell_bytes'] == 6 * 8 * 64 * 2 * 2" "lfm2-1.2b: a state pool of whole 81,920 B conv states beside a 12,288 B KV cell"
# its short-conv layers' in_proj / out_proj are replicated nn.Linear (models/lfm2.py): at TP 2 the
# all-reduces are one per MLP (16), one per attention layer (6) and the embedding's, 23 a graph
expect_exit 0 "$CGPLAN" estimate --model LiquidAI/LFM2-1.2B --set gpu=h100 --set tp=2 --format json
check_py "j['graph_nodes']['target']['allreduce_per_graph'] == 23" "lfm2-1.2b at tp 2: no all-reduce after a conv layer"

# --- a Granite 4.0-H plan: SGLang's mamba cache of Mamba2 states (configs/granitemoehybrid.py
# mamba_cache_params, Mamba2StateShape): per request 36 layers x ((3072 + 2 x 128) x 3 x 2 B of BF16
# conv + 48 x 64 x 128 x 4 B of float32 SSM) = 57,341,952 B, halved over TP 2 like the heads; the KV
# cell of its 4 attention layers, 4 x 4 KV heads x 128 x 2 x 2 B / 2; and the kernel nodes of
# 36 Mamba2 layers, 4 NoPE attention layers and 40 MoE + shared MLP sublayers (H100, FA3, Triton
# MoE): 957 .. 1365 on one GPU; on two the gated norm's native path (18 .. 23 a Mamba2 layer) and
# 121 all-reduces (4 o_proj, 36 gated-norm sums, 40 experts', 40 shared MLPs', the embedding's)
expect_exit 0 "$CGPLAN" estimate --model ibm-granite/granite-4.0-h-tiny --set gpu=h100 --set tp=2 --format json
check_py "j['budget']['kv_pools']['state_slots'] > 0 and j['budget']['state_pool_bytes'] == j['budget']['kv_pools']['state_slots'] * 28670976 and j['budget']['kv_pools']['full_cell_bytes'] == 4096" \
  "granite-4.0-h-tiny at tp 2: whole 28,670,976 B Mamba2 states beside a 4,096 B KV cell"
check_py "j['graph_nodes']['target']['per_graph_low'] == 1403 and j['graph_nodes']['target']['per_graph_high'] == 1811 and j['graph_nodes']['target']['allreduce_per_graph'] == 121" \
  "granite-4.0-h-tiny at tp 2: 1403 .. 1811 kernel nodes a graph, 121 all-reduces"
expect_exit 0 "$CGPLAN" estimate --model ibm-granite/granite-4.0-h-tiny --set gpu=h100 --set tp=1 --format json
check_py "j['graph_nodes']['target']['per_graph_low'] == 957 and j['graph_nodes']['target']['per_graph_high'] == 1365 and j['graph_nodes']['target']['allreduce_per_graph'] == 0" \
  "granite-4.0-h-tiny at tp 1: 957 .. 1365 kernel nodes a graph"

# --- W4A16 group 128 variants (AWQ: int4_g128_zp, 4 + 16/128 + 4/128 bits, engine_dtype_bits_x1000 4156): the
# weights per GPU are the base preset's with every decoder linear layer at 4156/16000 of its BF16 bytes; the
# embedding and the LM head (FP16, vocab-parallel: ceil(vocab / tp) rows each, two matrices untied) stay 2 bytes.
# Within 16 bytes: each term of the sum is truncated to whole bytes.
while read -r m base ratio; do
  case $m in '' | '#'*) continue ;; esac
  for tp in 1 8; do
    w=()
    for p in "$m" "$base"; do
      set +e
      OUT=$("$CGPLAN" estimate --model "$p" --set gpu=b300 --set tp=$tp --format json 2>"$TEST_TMP/stderr")
      rc=$?
      set -e
      [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "$p at tp $tp: estimate exit $rc: $(head -c 300 "$TEST_TMP/stderr")"
      w+=("$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['budget']['weights_bytes'])")")
    done
    embed=$(python3 - "$PRESETS/$m.yaml" "$tp" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
get = lambda k: re.search(r'^%s:\s*(\S+)' % k, t, re.M).group(1)
tp = int(sys.argv[2])
rows = -(-int(get('vocab')) // tp)
print(rows * int(get('hidden')) * 2 * (1 if get('tie_embeddings') == 'true' else 2))
PY
)
    if python3 -c "import sys; q, b, e, r = map(int, sys.argv[1:5]); sys.exit(0 if abs((q - e) - (b - e) * r / 16000) <= 16 else 1)" \
      "${w[0]}" "${w[1]}" "$embed" "$ratio"; then
      pass
    else
      fail "$m at tp $tp: ${w[0]} B, want the embeddings' $embed B + ($base's ${w[1]} B - $embed) x $ratio / 16000"
    fi
  done
done <<'EOF2'
# preset                         base                 bits x 1000 of the quantised layers
mistral-large-2411-awq           mistral-large-2      4156
mistral-large-2407-awq           mistral-large-2      4156
llama-3.1-70b-instruct-awq-int4  llama-3.1-70b        4156
qwq-32b-awq                      qwq-32b              4156
EOF2

# --- published parameter counts (model cards; Grok-2: the tensor count in its Hub discussion #6;
# Hunyuan-A13B: the README of Tencent's repository, "a total of 80 billion parameters"; ERNIE 4.5
# 21B-A3B: the Hub's 21.8B, which Baidu's card rounds to 21B; Granite 4.0-H: IBM's 7B and 32B totals).
# cgplan's count is the weights it computes for one GPU of a BF16 preset, 2 bytes a parameter: embeddings,
# attention, MLPs, experts and routers (norms and biases, a few millionths, are left out), and a VL
# preset's vision tower (vision:), which the published totals of the VL rows include. The presets here
# are BF16 throughout.
while read -r m published; do
  case $m in '' | '#'*) continue ;; esac
  f="$PRESETS/$m.yaml"
  if [ ! -f "$f" ]; then
    fail "$m: no built-in preset $f for the parameter table"
    continue
  fi
  if grep -E '^(dtype|dense_dtype|expert_dtype):' "$f" | grep -qv 'bf16'; then
    fail "$m: the parameter table takes BF16 presets only"
    continue
  fi
  expect_exit 0 "$CGPLAN" estimate --model "$m" --set gpu=b300 --set tp=1 --format json
  check_py "j['budget']['weights_source'] == 'computed' and abs(j['budget']['weights_bytes'] / 2 / ($published * 1e9) - 1) <= 0.02" \
    "$m: $published B published, cgplan counts $(printf '%s' "$OUT" | python3 -c "import json,sys; print('%.3f' % (json.load(sys.stdin)['budget']['weights_bytes'] / 2e9))") B"
done <<'EOF'
# preset                 published total (billions)
qwen2.5-1.5b             1.54
qwen2.5-7b               7.61
qwen2.5-14b              14.7
qwen2.5-32b              32.5
qwen2.5-72b              72.7
qwen3-1.7b               1.7
qwen3-8b                 8.2
qwen3-32b                32.8
qwen3-30b-a3b            30.5
qwen3-235b-a22b          235
qwen3-coder-480b-a35b    480
llama-3.2-1b             1.23
llama-3.2-3b             3.21
llama-3.1-8b             8.03
llama-3.1-70b            70.6
llama-3.1-405b           405
mistral-7b-v0.3          7.25
mistral-large-2          123
mixtral-8x7b             46.7
mixtral-8x22b            141
phi-4-mini               3.8
phi-4                    14.7
glm-4.5-air              106
glm-4.7                  355
grok-2                   269.5
lfm2-1.2b                1.17
lfm2-8b-a1b              8.3
hunyuan-a13b             80
ernie-4.5-21b-a3b        21.8
ernie-4.5-300b-a47b      300
granite-4.0-h-tiny       7
granite-4.0-h-small      32
# Gemma 4: the model card's 25.2B (26B-A4B) and NVIDIA's model reference's 30.7B (31B) are the language
# model alone (their config.json's text weights are 25.232B and 30.696B; the card lists the ~550M vision
# encoder in a row apart), so the row is that total plus the card's 0.55B; cgplan holds the full layers' v
# (k_eq_v) as SGLang does and counts the tower at 0.573B / 0.576B (gemma4_vision.py, in the presets)
gemma-4-26b-a4b          25.75
gemma-4-31b              31.25
# with the vision tower: Gemma 3 model cards (cited in the presets); Qwen3-VL as test_model_import.c cites
gemma-3-4b               4.3
gemma-3-12b              12.2
gemma-3-27b              27.4
qwen3-vl-8b              8.77
qwen3-vl-30b-a3b         31.07
EOF
finish
