#!/usr/bin/env bash
# Plans from a model alone (--model, --set tp=, --sglang-args) and releases (issue 8's contract).
source "$CGPLAN_TESTLIB"
set -e
GIB=1073741824
term() { echo "[t for t in j['terms'] if t['id']=='$1'][0]"; }

# --- the contract line: no deployment preset, an HF id, tp, a release
expect_exit 0 "$CGPLAN" estimate --model deepseek-ai/DeepSeek-V3 --set gpu=h200 --set tp=8 --set sglang=0.4.6 \
  --set max_bs=256 --format json
check_py "j['model'] == 'deepseek-v3' and j['gpu'] == 'h200' and j['knobs']['tp'] == 8 and j['knobs']['max_bs'] == 256" "model plan knobs"
check_py "j['knob_origins']['max_bs'] == 'set' and j['knob_origins']['ep'] == 'release default'" "knob origins"
check_py "all(k in j for k in ('total_bytes', 'terms', 'budget', 'warnings')) and 'static_bytes' in j['layers']['target']" "JSON keys kept"
# No K3 coefficient for another model: every term from its mechanism, each with a range.
check_py "$(term lazy.other)['source'] == 'derived' and [p['id'] for p in $(term lazy.other)['parts']] == ['lazy.cublas', 'lazy.nccl'] and $(term lazy.other)['bytes'] == 33 * 2**20" "lazy: cuBLAS 32 + 1 MiB on sm90, no NCCL in the window"
check_py "$(term buckets)['source'] == 'empirical' and [p['id'] for p in $(term buckets)['parts']][0] == 'buckets.nodes' and $(term buckets)['low_bytes'] < $(term buckets)['bytes'] < $(term buckets)['high_bytes']" "buckets: kernel nodes, empirical, a range"
check_py "j['total_complete'] is True and j['total_low_bytes'] <= j['total_bytes'] <= j['total_high_bytes'] and j['plan_total_bytes'] == j['total_high_bytes'] and j['bound'] == 'high'" "complete total with its range, planned on the high end"
check_py "all(t['low_bytes'] <= t['bytes'] <= t['high_bytes'] for t in j['terms'])" "every term in its range"
check_py "'k3_coefficients' not in [w['code'] for w in j['warnings']] and 'terms_unknown' not in [w['code'] for w in j['warnings']]" "no unknown term"
# DeepSeek-V3 at TP8: 61 layers, so 2 x 61 + 1 = 123 all-reduces per graph, what SGLang logs as
# "Registering 6273 cuda graph addresses" over 51 graphs (bench/data dsr1-tp8-ep8-b200-bs512).
check_py "j['graph_nodes']['target']['allreduce_per_graph'] == 123 and 1500 <= j['graph_nodes']['target']['per_graph'] <= 2200" "kernel nodes per graph (2L + 1 all-reduces)"
# 0.4.6 on an H200 (over 81,920 MiB): [1, 2, 4, 8] + 16..256 step 8, 35 graphs; it kept each
# graph's FP32 logits: the other buckets' rows x vocab x 4 (PR #8579 came later).
check_py "len(j['knobs']['buckets']) == 35 and j['knobs']['buckets'][:5] == [1, 2, 4, 8, 16] and $(term buckets.logits)['bytes'] == (sum(j['knobs']['buckets']) - 256) * 129280 * 4" "per-graph logits before #8579"
# Without an a2a backend the MoE runs the fused kernels over every token: no DeepEP bytes.
check_py "$(term moe.deepep)['bytes'] == 0 and $(term moe.fused)['bytes'] > 0 and j['rows']['moe'] == 256" "fused MoE, all rows"
expect_exit 0 "$CGPLAN" estimate --model deepseek-ai/DeepSeek-V3 --set gpu=h200 --set tp=8 --set max_bs=256 --format json
check_py "$(term buckets.logits)['bytes'] == 0" "main shares one logits buffer"

# --- knobs left unset take SGLang's launch defaults: --tp-size 1, max_bs from the release's GPU
# tiers (_handle_gpu_memory_settings: 80-160 GiB class, 256 below tp 4, 512 from it; B200 512)
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --format json
check_py "j['knobs']['tp'] == 1 and j['knobs']['max_bs'] == 256 and j['knob_origins']['tp'] == 'release default' and j['knob_origins']['max_bs'] == 'release default'" "unset tp and max_bs: SGLang's"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set tp=4
contains "$OUT" "unset   max_bs 512: what SGLang" "the table says which knobs took SGLang's value"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set tp=4 --set sglang=0.4.6 --format json
check_py "j['knobs']['max_bs'] == 160 and len(j['knobs']['buckets']) == 23" "0.4.6 leaves max_bs unset: the runner list's top (160 at or below 81,920 MiB)"
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set max_bs=48 --format json
check_py "j['knobs']['max_bs'] == 48 and j['knob_origins']['max_bs'] == 'set'" "a set max_bs wins"

# --- bad input
expect_exit 2 "$CGPLAN" estimate --model deepseek-ai/DeepSeek-V3 --set tp=8
contains "$ERR" "--set gpu=NAME" "a model plan needs a GPU"
expect_exit 2 "$CGPLAN" estimate --model no-such/Model --set gpu=h200
contains "$ERR" "no model preset" "unknown model named"
expect_exit 2 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set sglang=0.2.15
contains "$ERR" "v0.3.0" "too old a release names the oldest"
expect_exit 2 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set attention_backend=nope
contains "$ERR" "fa3" "a bad choice lists the choices"

# --- SGLang's own flags read back into knobs
expect_exit 0 "$CGPLAN" estimate --set gpu=b200 --sglang-args "python3 -m sglang.launch_server --model-path \
  deepseek-ai/DeepSeek-R1-0528 --tp-size 8 --enable-dp-attention --dp-size 8 --moe-a2a-backend deepep \
  --cuda-graph-max-bs 64 --context-length 32768 --enable-two-batch-overlap" --format json
check_py "j['model'] == 'deepseek-v3' and j['knobs']['tp'] == 8 and j['knobs']['dp'] == 8 and j['knobs']['dp_attention'] is True" "flags: layout"
check_py "j['knobs']['a2a'] == 'deepep' and j['knobs']['tbo'] is True and j['knobs']['context_len'] == 32768" "flags: a2a, tbo, context"
check_py "all(b % 2 == 0 for b in j['knobs']['buckets']) and j['knobs']['max_bs'] == 64" "two-batch overlap: even sizes"
# The article's DP2 x DCP8 layout through its own flags gives the graph memory of the same knobs
# set one by one (the model alone: the article's fit belongs to the deployment preset).
bs="16 24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 176 184 192"
expect_exit 0 "$CGPLAN" estimate --model kimi-k3 --set gpu=b200 --set attention_backend=flashinfer --set tp=16 \
  --set dp=2 --set dp_attention=on --set dcp=8 --set a2a=deepep --set max_bs=192 --set "buckets=${bs// /,}" --set mtp=5 \
  --set context_len=1048576 --set max_dispatch=128 --format json
want=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['total_bytes'])")
expect_exit 0 "$CGPLAN" estimate --model kimi-k3 --set gpu=b200 --set attention_backend=flashinfer --sglang-args \
  "--tp-size 16 --dp-size 2 --enable-dp-attention --dcp-size 8 --moe-a2a-backend deepep --cuda-graph-max-bs 192 \
   --cuda-graph-bs $bs --speculative-algorithm EAGLE --speculative-num-steps 4 --speculative-num-draft-tokens 5 \
   --context-length 1048576 SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128" --format json
check_py "j['total_bytes'] == $want" "flags reproduce the k3-dp2-dcp8 graph memory"
check_py "j['knob_origins']['max_dispatch'] == 'set' and j['knobs']['max_dispatch'] == 128" "env assignment read"

# search ranks a model without calibration on the high end of every term, and says so.
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16 --format json
check_py "j['total_complete'] is True and j['bound'] == 'high'" "search: deepseek-v3's walls on the high end"
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16
contains "$OUT" "planned on the high end" "search says which end its walls use"
# The answers plan on the high end: launch's fraction never exceeds 1 - (total_high + other
# runtime + margin) / pre-load free memory (the every-term issue's DeepSeek-V3 TP8 H200 0.5.6
# plan, which printed 0.954 on 0.36 GiB of graphs when two terms counted as zero, among them).
cap_case() {
  expect_exit 0 "$CGPLAN" estimate "$@" --format json
  printf '%s' "$OUT" > "$TEST_TMP/cap-est.json"
  expect_exit 0 "$CGPLAN" launch "$@" --format json
  printf '%s' "$OUT" > "$TEST_TMP/cap-launch.json"
  python3 - "$TEST_TMP/cap-est.json" "$TEST_TMP/cap-launch.json" <<'PY' && pass || fail "launch's fraction above the high end's cap: $*"
import json, sys
e, l = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
b = e['budget']
cap = 1 - (e['total_high_bytes'] + b['other_runtime_bytes'] + b['margin_bytes']) / b['pre_load_free_bytes']
sys.exit(0 if l['mem_fraction_static'] <= cap + 1e-9 and l['total_high_bytes'] == e['total_high_bytes'] and
         l['bound'] == 'high' else 1)
PY
}
cap_case --model deepseek-ai/DeepSeek-V3 --set gpu=h200 --set tp=8 --set sglang=0.5.6 --set max_bs=192
cap_case --model meta-llama/Llama-3.3-70B-Instruct --set gpu=h200 --set tp=8 --set sglang=0.5.3
cap_case --model qwen3-8b --set gpu=h100 --set max_bs=64
cap_case --preset k3-dp16
expect_exit 0 "$CGPLAN" launch --model deepseek-ai/DeepSeek-V3 --set gpu=h200 --set tp=8 --set sglang=0.5.6 --set max_bs=192 --format json
check_py "j['mem_fraction_static'] <= 0.945 and j['total_high_bytes'] > j['total_bytes']" "DeepSeek-V3 TP8 0.5.6: planned on the high end, well below 0.954"

# gpt-oss-120b on 4 x H100: SGLang pools its 18 sliding-window layers apart (model_runner
# set_num_token_hybrid: full = total / (r x n_swa + n_full), swa = r x full), so a full-attention
# token costs F x n_full + r x S x n_swa with F = S = 8 / 4 KV heads x 64 x 2 (K, V) x 2 B = 512:
# 512 x (18 + 0.8 x 18) = 16,588.8 B, 1.8 x the 9,216 of the full layers alone.
expect_exit 0 "$CGPLAN" estimate --model gpt-oss-120b --set gpu=h100 --set tp=4 --format json
check_py "j['budget']['kv_cell_bytes'] == round(512 * (18 + 0.8 * 18)) == 16589 and j['budget']['kv_tokens_per_gib'] == 2**30 // 16589" "gpt-oss SWA pool: 16,589 B per full-attention token"
check_py "j['budget']['kv_pools']['full_cell_bytes'] == 9216 and j['budget']['kv_pools']['swa_cell_bytes'] == 7373 and abs(j['budget']['kv_pools']['swa_bytes'] / j['budget']['kv_pool_bytes'] - 7373 / 16589) < 1e-6" "the two pools, split as SGLang splits them"
expect_exit 0 "$CGPLAN" estimate --model gpt-oss-120b --set gpu=h100 --set tp=4 --set swa_full_tokens_ratio=0.5 --format json
check_py "j['budget']['kv_cell_bytes'] == 512 * 27" "swa_full_tokens_ratio moves the sliding-window share"
check_py "j['budget']['kv_pools']['swa_layers_pooled'] is True" "gpt-oss is on is_hybrid_swa_model's list"
# The release decides (release.c RF_SWA_GPTOSS): gpt-oss's window pool came with PR #17261 (v0.5.8);
# until PR #19079 (v0.5.10) trtllm_mha, its default on B200, turned it off (PR #17429).
swa_case() { # expected kv_cell_bytes and pooled, then the estimate's arguments
  local want_cell=$1 want_pooled=$2
  shift 2
  expect_exit 0 "$CGPLAN" estimate "$@" --format json
  check_py "(j['budget']['kv_cell_bytes'], j['budget']['kv_pools']['swa_layers_pooled']) == ($want_cell, $want_pooled)" \
    "$*: $want_cell B a token, window pool $want_pooled"
}
swa_case 18432 False --model gpt-oss-120b --set gpu=h100 --set tp=4 --set sglang=0.5.6
swa_case 16589 True --model gpt-oss-120b --set gpu=h100 --set tp=4 --set sglang=0.5.8
swa_case 18432 False --model gpt-oss-120b --set gpu=b200 --set tp=4 --set sglang=0.5.9
swa_case 16589 True --model gpt-oss-120b --set gpu=b200 --set tp=4 --set sglang=0.5.9 --set attention_backend=fa4
swa_case 16589 True --model gpt-oss-120b --set gpu=b200 --set tp=4 --set sglang=0.5.10
expect_exit 0 "$CGPLAN" estimate --model gpt-oss-120b --set gpu=b200 --set tp=4 --set sglang=0.5.9
contains "$OUT" "turns gpt-oss's sliding-window pool off under trtllm_mha (PR #17429" "the text names the rule"
# Llama 4 Maverick at TP8: 1 KV head x 128 x 2 x 2 B = 512 a layer, 12 global + 36 chunked layers.
# Until PR #16399 (v0.5.8) the chunked layers kept every token (a pool of their own only with
# --hybrid-kvcache-ratio): 48 x 512; from it, --swa-full-tokens-ratio 0.8: 512 x (12 + 0.8 x 36).
swa_case 24576 False --model llama-4-maverick-fp8 --set gpu=h100 --set tp=8 --set sglang=0.4.9.post4
swa_case 24576 False --model llama-4-maverick-fp8 --set gpu=h100 --set tp=8 --set sglang=0.5.7
swa_case "round(512 * (12 + 0.8 * 36))" True --model llama-4-maverick-fp8 --set gpu=h100 --set tp=8 --set sglang=0.5.8
swa_case "round(512 * (12 + 0.8 * 36))" True --model llama-4-maverick-fp8 --set gpu=h100 --set tp=8
# --disable-hybrid-swa-memory: no window pool, every layer's KV in the full one; launch writes it
expect_exit 0 "$CGPLAN" estimate --model gpt-oss-120b --set gpu=h100 --sglang-args "--tp 4 --disable-hybrid-swa-memory" --format json
check_py "(j['budget']['kv_cell_bytes'], j['budget']['kv_pools']['swa_layers_pooled'], j['knobs']['disable_hybrid_swa_memory']) == (512 * 36, False, True)" \
  "--disable-hybrid-swa-memory: 18,432 B a token, the 18 sliding layers' KV in full"
expect_exit 0 "$CGPLAN" launch --model gpt-oss-120b --set gpu=h100 --set tp=4 --set disable_hybrid_swa_memory=on
contains "$OUT" "--disable-hybrid-swa-memory" "launch writes the flag the plan assumed"
# Gemma 3 is not on that list: SGLang gives its 52 sliding-window layers full KV beside the 10
# global ones, one pool of 62 x 16 KV heads x 128 x 2 (K, V) x 2 B per token, whatever the ratio
expect_exit 0 "$CGPLAN" estimate --model gemma-3-27b --set gpu=h100 --set tp=1 --set swa_full_tokens_ratio=0.5 --format json
check_py "(j['budget']['kv_cell_bytes'], j['budget']['kv_pools']['swa_cell_bytes'], j['budget']['kv_pools']['swa_layers_pooled'], j['budget']['kv_tokens_per_gib']) == (62 * 16 * 128 * 2 * 2, 0, False, 2**30 // 507904)" \
  "Gemma 3: one pool, every layer's KV (507,904 B a token, not 422,707 with a window pool)"
expect_exit 0 "$CGPLAN" estimate --model gemma-3-27b --set gpu=h100 --set tp=1
contains "$OUT" "KV pool: one for all 62 layers, its 52 windowed layers holding every token: SGLang pools Gemma 3's windowed layers only from PR #7367 to PR #8895" "the text says why"
# ... which it did from PR #7367 (v0.4.9.post3) until PR #8895 (v0.5.0rc0): 16 x 128 x 2 x 2 B x (10 + 0.8 x 52)
swa_case "round(8192 * (10 + 0.8 * 52))" True --model gemma-3-27b --set gpu=h100 --set tp=1 --set sglang=0.4.10.post2
swa_case 507904 False --model gemma-3-27b --set gpu=h100 --set tp=1 --set sglang=0.5.0rc0

# Qwen3-Next's Gated DeltaNet state as SGLang sizes its mamba cache (handle_max_mamba_cache): the
# pool takes r / (1 + r) of what weights and the reserve leave, r = 0.9, in whole request states
# of 77,266,944 / 4 B at TP4; the KV pool the rest.
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --format json
check_py "(lambda b, per: b['kv_pools']['state_slots'] == int((b['pre_load_free_bytes'] - b['weights_bytes'] - b['static_budget_bytes']) * 0.9 / 1.9 / per) and b['state_pool_bytes'] == b['kv_pools']['state_slots'] * per)(j['budget'], 77266944 // 4)" "mamba cache: 0.9 / 1.9 of the rest, in whole states"
check_py "abs(j['budget']['kv_pool_bytes'] + j['budget']['state_pool_bytes'] - (j['budget']['pre_load_free_bytes'] - j['budget']['weights_bytes'] - j['budget']['static_budget_bytes'])) < 2" "state and KV pools share what is left"
POOLS_WITH_RADIX=$(python3 -c "import json,sys; b=json.loads(sys.argv[1])['budget']; print(b['kv_pool_bytes'] + b['state_pool_bytes'])" "$OUT")
# --disable-radix-cache: no prefix keeps a state, so the pool is max_running_requests // dp states
# (one per running request: 96 here), and the KV pool takes the rest; launch passes the flag on.
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --set max_bs=96 --set disable_radix_cache=on --format json
check_py "j['budget']['kv_pools']['state_slots'] == 96 and j['budget']['state_pool_bytes'] == 96 * (77266944 // 4)" "no radix cache: one state per running request"
check_py "abs(j['budget']['kv_pool_bytes'] + j['budget']['state_pool_bytes'] - $POOLS_WITH_RADIX) < 2 and j['budget']['kv_pool_bytes'] > 80 * 2**30" "no radix cache: the 38.6 GiB the states left go to the KV pool (44.8 -> 83.5 GiB)"
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --sglang-args "--tp 4 --cuda-graph-max-bs 96 --disable-radix-cache"
contains "$OUT" "state pool 1.73 GiB: 96 request states, one per running request (no radix cache: disable_radix_cache on)" "the flag read from a launch line, the pool printed"
# a decode server (PD disaggregation) runs no radix cache whatever its line says: server_args.py
# forces disable_radix_cache for it, so its state pool is the same
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --sglang-args "--tp 4 --cuda-graph-max-bs 96 --disaggregation-mode decode" --format json
check_py "j['knobs']['disable_radix_cache'] is True and j['budget']['kv_pools']['state_slots'] == 96 and j['budget']['kv_pools']['state_rule'] == 'one per running request'" "decode server: the radix cache off, one state per running request"
# --disaggregation-decode-enable-radix-cache (PR #19746) keeps the decode server's radix cache
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --sglang-args "--tp 4 --cuda-graph-max-bs 96 --disaggregation-mode decode --disaggregation-decode-enable-radix-cache" --format json
check_py "j['knobs']['disable_radix_cache'] is False and j['budget']['kv_pools']['state_rule'] == 'mamba_full_memory_ratio of the rest'" "a decode radix cache: the ratio rule"
expect_exit 0 "$CGPLAN" launch --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --set max_bs=96 --disaggregation-mode decode --format json
check_py "'--disable-radix-cache' in j['args'] and '--disaggregation-mode decode' in ' '.join(j['args'])" "launch --disaggregation-mode decode plans and writes the decode server's pool"
expect_exit 0 "$CGPLAN" launch --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --set max_bs=96 --set disable_radix_cache=on
contains "$OUT" "--disable-radix-cache" "launch writes the flag the plan assumed"
# Before PR #11214 (v0.5.4) SGLang turned the radix cache off for every hybrid GDN model itself:
# the same one-state-per-request pool without the flag; from v0.5.4 the ratio rule.
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --set max_bs=96 --set sglang=0.5.3 --format json
check_py "j['budget']['kv_pools']['state_slots'] == 96 and j['budget']['kv_pools']['state_rule'] == 'one per running request'" "v0.5.3: no radix cache for hybrid models, one state per request"
expect_exit 0 "$CGPLAN" estimate --model qwen3-next-80b-a3b --set gpu=h200 --set tp=4 --set max_bs=96 --set sglang=0.5.4 --format json
check_py "j['budget']['kv_pools']['state_slots'] > 2000 and j['budget']['kv_pools']['state_rule'] == 'mamba_full_memory_ratio of the rest'" "v0.5.4: the radix cache, the ratio rule"

# A term no formula covers (DeepEP has no default normal-mode config for 6 ranks) leaves no upper end: every
# answer refuses with exit 3 and names the term, and nothing counts it as zero.
for cmd in "search --gpus 8" "launch" "solve max_bs" "estimate --check"; do
  expect_exit 3 "$CGPLAN" $cmd --model deepseek-v3 --set gpu=h200 --set tp=6 --set a2a=deepep
  contains "$ERR$OUT" "moe.deepep_normal" "$cmd refuses an unknown term by name"
done
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set tp=6 --set a2a=deepep --format json
check_py "j['total_complete'] is False and j['total_high_bytes'] is None and j['heuristic']['share_of_prediction'] is None" "unknown: no upper end, no heuristic share"
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set tp=6 --set a2a=deepep
contains "$OUT" "cannot plan" "the table says it cannot plan"
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set tp=6 --set a2a=deepep --format csv
contains "$OUT" ",moe.deepep_normal,unknown,,," "csv: an unknown term's bytes and range are empty (null), not 0"
printf '%s\n' "$OUT" | grep -q ',,,total,,[0-9]*,[0-9]*,$' && pass || fail "csv: a total with an unknown term has no upper end"
expect_exit 0 "$CGPLAN" search --model kimi-k3 --set gpu=b200 --gpus 16 --format json
check_py "j['total_complete'] is True" "search: K3's terms are all known"
finish
