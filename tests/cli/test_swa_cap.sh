#!/usr/bin/env bash
# SGLang's capped sliding-window pool (SWAChunkCapPoolConfigurator, PR #28755, from v0.5.14): gpt-oss-120b at
# TP 4 on H100 with --max-running-requests 64 --disable-radix-cache, its pools derived here from the model's
# config.json (tests/fixtures/configs/gpt-oss-120b.json) with SGLang's formula written out below, and set
# against cgplan's budget; v0.5.13 and v0.5.14 either side of the cut; the ratio rule wherever one condition is
# missing; a decode server's side read from a launch line; a cap that fills the pool refused (exit 3).
source "$CGPLAN_TESTLIB"
set -e
CONFIG="$CGPLAN_FIXTURES/configs/gpt-oss-120b.json"

# sgl-project/sglang main 8905cbd42 (mirror modal-projects/sglang), python/sglang/srt/:
# - models/gpt_oss.py get_attention_sliding_window_size: config.sliding_window - 1 (the window SGLang keeps);
# - environ.py SGLANG_SWA_EVICTION_INTERVAL = EnvInt(128);
# - server_args.py _handle_gpu_memory_settings: chunked_prefill_size 8192 for an H100 (80 GiB: below 90 x 1024 MiB);
# - model_executor/pool_configurator.py SWAChunkCapPoolConfigurator.__init__ (no speculation, overlap scheduler on):
#     trailing = window + eviction_interval x draft_tokens(1) + page; decode_alloc = page
#     per_request = trailing + decode_alloc; num_reqs = max_running_requests // attn_dp_size
#     cap = per_request x num_reqs + 2 (chunks in flight) x chunked_prefill_size + page      (not a decode server)
#     cap = per_request x num_reqs + (window + page) x disaggregation_decode_extra_slots     (a decode server;
#           arg_groups/pd_disaggregation_hook.py: extra slots 2 x requests per worker at 32 or fewer, else 0)
#   calculate_pool_sizes: swa_tokens = ceil_align(cap, page); fixed = swa_tokens x swa_per_token x n_swa;
#     full_tokens = (available - fixed) // (full_per_token x n_full) // page x page
# - HybridSWAPoolConfigurator: per_token = max(1, kv_heads // tp) x (head_dim + v_head_dim) x kv_size, the same
#   for gpt-oss's full and sliding layers; the ratio rule's cell F x n_full + 0.8 x S x n_swa.
# Prints: per-token bytes of one layer kind x its layers (full, sliding), the cap's two sides, swa_tokens.
sglang_cap() { # TP REQUESTS PAGE CHUNK DP
  python3 - "$CONFIG" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
tp, reqs, page, chunk, dp = (int(a) for a in sys.argv[2:7])
n_swa = c['layer_types'].count('sliding_attention')
n_full = c['layer_types'].count('full_attention')
per_token = max(1, c['num_key_value_heads'] // tp) * (c['head_dim'] + c['head_dim']) * 2
window = c['sliding_window'] - 1
per_request = window + 128 * 1 + page + page
num_reqs = reqs // dp
per_worker = reqs // dp
extra = 2 * per_worker if per_worker <= 32 else 0
plain = per_request * num_reqs + 2 * chunk + page
decode = per_request * num_reqs + (window + page) * extra
ceil = lambda x: (x + page - 1) // page * page
print(per_token * n_full, per_token * n_swa, ceil(plain), ceil(decode))
PY
}

read -r F S PLAIN DECODE <<<"$(sglang_cap 4 64 1 8192 1)"
[ "$F" = 9216 ] && [ "$S" = 9216 ] && [ "$PLAIN" = 32833 ] && [ "$DECODE" = 16448 ] && pass ||
  fail "SGLang's formula on gpt-oss-120b's config at TP 4: $F $S $PLAIN $DECODE, want 9216 9216 32833 16448"

PLAN=(--model gpt-oss-120b --set gpu=h100 --set tp=4)
# check_cap CAP: the budget as SWAChunkCapPoolConfigurator sizes it, CAP SWA tokens fixed
check_cap() {
  local cap=$1 what=$2
  check_py "j['knobs']['page_size'] == 1" "$what: fa3 at page 1 (the formula's page)"
  check_py "j['budget']['kv_pools']['swa_sizing'] == 'cap' and j['budget']['kv_pools']['swa_cap_tokens'] == $cap and j['budget']['kv_pools']['swa_token_bytes'] == $S" \
    "$what: the SWA pool capped at $cap tokens of $S B"
  check_py "j['budget']['kv_pools']['swa_bytes'] == $cap * $S and j['budget']['kv_pools']['full_bytes'] == j['budget']['kv_pool_bytes'] - $cap * $S" \
    "$what: the capped pool first, the full pool the rest"
  check_py "j['budget']['kv_cell_bytes'] == $F and j['budget']['kv_pools']['full_cell_bytes'] == $F and j['budget']['kv_pools']['swa_cell_bytes'] == 0 and j['budget']['kv_pools']['swa_full_tokens_ratio'] is None" \
    "$what: a full-attention token costs F x n_full = $F B, no share of the fixed pool"
  check_py "j['budget']['kv_tokens'] == (j['budget']['kv_pool_bytes'] - $cap * $S) // $F and j['budget']['kv_tokens_per_gib'] == 2**30 // $F" \
    "$what: full tokens (available - fixed) // $F"
  check_py "j['budget']['kv_min_bytes'] == (j['knobs']['max_running_requests'] or j['knobs']['max_bs']) * j['knobs']['min_kv_tokens'] * $F + $cap * $S" \
    "$what: the requests' minimum over the full pool (one rank), plus the fixed pool"
}
check_ratio() {
  local what=$1 cell=$((F + (S * 8 + 5) / 10))
  check_py "j['budget']['kv_pools']['swa_sizing'] == 'ratio' and j['budget']['kv_pools']['swa_cap_tokens'] is None" \
    "$what: sized by the ratio"
  check_py "j['budget']['kv_cell_bytes'] == $cell and j['budget']['kv_tokens'] == j['budget']['kv_pool_bytes'] // $cell" \
    "$what: $cell B a full-attention token (F x n_full + 0.8 x S x n_swa)"
}

# --- main and v0.5.14: the cap (not a decode server as far as the plan knows: the larger side, the prefilling
# server's 32,833 over a decode server's 16,448)
for rel in main 0.5.14; do
  expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set sglang=$rel --set max_running_requests=64 \
    --set disable_radix_cache=true --format json
  check_cap "$PLAIN" "sglang $rel"
done
# --- v0.5.13: before PR #28755, the ratio
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set sglang=0.5.13 --set max_running_requests=64 \
  --set disable_radix_cache=true --format json
check_ratio "sglang 0.5.13"

# --- max_running_requests auto: launch prints --max-running-requests (max_bs, 512 here), so the server it starts
# is capped, and so is the plan (engine_plan_max_running_requests, as the state pools read it)
read -r _ _ PLAIN512 _ <<<"$(sglang_cap 4 512 1 8192 1)"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set disable_radix_cache=true --format json
check_py "j['knobs']['max_bs'] == 512" "the plan's max_bs, which launch prints as --max-running-requests"
check_cap "$PLAIN512" "max_running_requests auto (launch's 512)"
expect_exit 0 "$CGPLAN" launch "${PLAN[@]}" --set disable_radix_cache=true
contains "$OUT" "--max-running-requests 512" "launch prints the requests the cap was planned with"
# --- the ratio wherever a condition is missing: the radix cache on; the windowed layers in the full pool have no
# sliding pool at all
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set max_running_requests=64 --format json
check_ratio "the radix cache on"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set max_running_requests=64 --set disable_radix_cache=true \
  --set disable_hybrid_swa_memory=true --format json
check_py "j['budget']['kv_pools']['swa_sizing'] is None and j['budget']['kv_pools']['swa_layers_pooled'] is False and j['budget']['kv_cell_bytes'] == $F + $S" \
  "no sliding pool: every layer holds every token"

# --- the text says which rule sized the pools
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set max_running_requests=64 --set disable_radix_cache=true
contains "$OUT" "sliding window 0.28 GiB fixed, sized by the cap (SWAChunkCapPoolConfigurator): 32833 tokens of 9216 B = 64 requests x (window 127 + eviction interval 128 x 1 draft + page 1 + decode 1) + 2 chunks in flight of 8192" \
  "the KV pools line: the cap and its parts"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set max_running_requests=64
contains "$OUT" "full-attention token at ratio 0.80: sized by the ratio" "the KV pools line: the ratio"

# --- a PD decode server (the launch line's --disaggregation-mode decode turns the radix cache off): no chunks;
# at 16 requests per worker 32 extra slots of window + page
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --sglang-args "--max-running-requests 64 --disaggregation-mode decode" \
  --format json
check_cap "$DECODE" "decode server, 64 requests"
read -r _ _ PLAIN16 DECODE16 <<<"$(sglang_cap 4 16 1 8192 1)"
[ "$DECODE16" = $((257 * 16 + 128 * 32)) ] && pass || fail "decode side at 16 requests: $DECODE16"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --sglang-args "--max-running-requests 16 --disaggregation-mode decode" \
  --format json
check_cap "$DECODE16" "decode server, 16 requests"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --sglang-args "--max-running-requests 16 --disable-radix-cache" \
  --format json
check_cap "$PLAIN16" "16 requests, not known to be a decode server: the larger side"

# --- DP attention 2 on TP 4: 32 requests and a 4096 chunk per rank, 64 extra slots (32 a worker)
read -r _ _ PLAINDP DECODEDP <<<"$(sglang_cap 2 64 1 4096 2)"
expect_exit 0 "$CGPLAN" estimate "${PLAN[@]}" --set dp=2 --set max_running_requests=64 --set disable_radix_cache=true \
  --format json
check_py "j['budget']['kv_pools']['swa_cap_tokens'] == max($PLAINDP, $DECODEDP)" "DP attention 2: per-rank cap"

# --- Gemma 4 26B-A4B (tests/fixtures/configs/google--gemma-4-26B-A4B.json) on one H200, 32 requests: window
# sliding_window - 1 = 1023 (models/gemma4_causal.py), triton at page 1, chunk 8192 (below 160 x 1024 MiB); its
# full layers 2 KV heads x (512 + 512), its sliding ones 8 x (256 + 256) (utils/hf_transformers/config.py's
# swap). A decode server's 64 extra slots of 1024 outweigh the two chunks: the larger side is the decode one.
read -r GF GS GPLAIN GDECODE <<<"$(python3 - "$CGPLAN_FIXTURES/configs/google--gemma-4-26B-A4B.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['text_config']
n_full, n_swa = t['layer_types'].count('full_attention'), t['layer_types'].count('sliding_attention')
F = t['num_global_key_value_heads'] * 2 * t['global_head_dim'] * 2 * n_full
S = t['num_key_value_heads'] * 2 * t['head_dim'] * 2 * n_swa
window, page, reqs = t['sliding_window'] - 1, 1, 32
per_request = window + 128 + page + page
print(F, S, per_request * reqs + 2 * 8192 + page, per_request * reqs + (window + page) * 2 * reqs)
PY
)"
[ "$GF" = 20480 ] && [ "$GS" = 204800 ] && [ "$GPLAIN" = 53281 ] && [ "$GDECODE" = 102432 ] && pass ||
  fail "SGLang's formula on Gemma 4 26B-A4B: $GF $GS $GPLAIN $GDECODE"
expect_exit 0 "$CGPLAN" estimate --model gemma-4-26b-a4b --set gpu=h200 --set max_running_requests=32 \
  --set disable_radix_cache=true --format json
check_py "j['knobs']['page_size'] == 1 and j['budget']['kv_pools']['swa_cap_tokens'] == $GDECODE and j['budget']['kv_pools']['swa_token_bytes'] == $GS" \
  "Gemma 4: $GDECODE SWA tokens of $GS B"
check_py "j['budget']['kv_cell_bytes'] == $GF and j['budget']['kv_tokens'] == (j['budget']['kv_pool_bytes'] - $GDECODE * $GS) // $GF" \
  "Gemma 4: full tokens (available - fixed) // $GF"

# --- a cap that fills the KV pool: SGLang raises; the plan does not fit (exit 3) and says why
expect_exit 3 "$CGPLAN" estimate --model llama-4-scout --set gpu=h200 --set tp=8 --set max_running_requests=4096 \
  --set disable_radix_cache=true --check
contains "$ERR" "kv_pool_exhausted: the capped sliding-window pool (34103297 tokens" "the refusal names the cap"
contains "$ERR" "lower max_running_requests" "and the fix"

finish
