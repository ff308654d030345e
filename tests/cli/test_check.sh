#!/usr/bin/env bash
# cgplan check: one start-up log's measured layers beside the estimate and its range, the ones
# outside marked, the next --cuda-graph-max-bs and --mem-fraction-static; a dry run unless
# --calibrate stores and fits it; exit 1 on a log without a capture it can use, 2 on usage.
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/runs.db"

# --- the article's K3 DP16 log with its preset: every layer within its range ---
expect_exit 0 "$CGPLAN" check --db "$DB" --preset k3-dp16 "$LOGS/k3-dp16-b200-article.log"
contains "$OUT" "check k3-dp16-b200-article.log:1-22 (run 1 of 1) · kimi-k3 · b200 · DP16 MTP 6" "the run checked"
contains "$OUT" "world 16 (log) dp 16 (log) dcp 1 (log) max_bs 24 (log) mtp 6 (log) max_dispatch 144 (env)" \
  "the knobs, where each came from"
contains "$OUT" "static           0.18         0.184      [0.184, 0.188]" "static beside its estimate and range"
contains "$OUT" "largest          7.17         7.170      [6.745, 7.230]" "largest"
contains "$OUT" "draft            0.56         0.560      [0.532, 0.588]" "draft"
contains "$OUT" "total            8.16         8.164      [7.698, 8.269]" "total"
contains "$OUT" "every measured layer within its range" "nothing outside"
contains "$OUT" "next     --cuda-graph-max-bs 24 --mem-fraction-static 0.919 (stops at: moe.deepep)" "the next settings"
[ ! -e "$DB" ] && pass || fail "a check without --calibrate created the store"
expect_exit 0 "$CGPLAN" check --db "$DB" --preset k3-dp16 --format json "$LOGS/k3-dp16-b200-article.log"
check_py "[(l['layer'], l['measured_gib'], l['estimate_bytes'], l['low_bytes'], l['high_bytes'], l['outside']) for l in j['estimate']['layers']][1] == ('largest', 7.17, 7698728885, 7242256485, 7762968323, None)" \
  "JSON: the largest bucket's estimate and range, exact"
check_py "j['next'] == {'cuda_graph_max_bs': 24, 'mem_fraction_static': 0.919, 'limit': 'moe.deepep', 'beyond_range': False}" \
  "JSON: the next settings"
check_py "j['stored'] is False and j['estimate']['calibrated'] is False and j['estimate']['outside_count'] == 0" "a dry run"

# --- a K3 DP2 x DCP8 launch at max_bs 128 (built with a 10% steeper slope): three layers outside ---
expect_exit 0 "$CGPLAN" check --db "$DB" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs128.log"
contains "$OUT" "static           0.89         0.899      [0.899, 0.925]   OUTSIDE: measured below" "static below"
contains "$OUT" "buckets          0.66         0.804      [0.764, 0.844]   OUTSIDE: measured below" "buckets below"
contains "$OUT" "largest          8.64         8.784      [8.287, 8.957]" "largest within"
contains "$OUT" "3 layers outside their range: cgplan check --calibrate fits the pool to this log" "the count and the fix"
contains "$OUT" "the recommended --mem-fraction-static is 0.900 (the log ran 0.874)" "the fraction at the logged max_bs"
contains "$OUT" "next     --cuda-graph-max-bs 200 --mem-fraction-static 0.886 (stops at: moe.deepep)" "the next settings"

# --- a TP4 log that states no knob: world, dp and mtp from its lines, max_bs from 13 graphs on v0.4.6 ---
QWQ="$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log"
expect_exit 0 "$CGPLAN" check --db "$DB" --model qwq-32b --set gpu=h100 --set sglang=0.4.6 "$QWQ"
contains "$OUT" "world 4 (inferred) dp 1 (inferred) dcp ? max_bs 80 (inferred) mtp 1 (inferred)" "the inferred knobs"
contains "$OUT" "buckets  13 (inferred): [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80]" "the inferred buckets"
contains "$OUT" "total            0.92         0.599      [0.542, 0.680]   OUTSIDE: measured above" "total above"
contains "$OUT" "next     --cuda-graph-max-bs 224 --mem-fraction-static 0.911 (stops at: kv_per_request)" "next"
expect_exit 0 "$CGPLAN" check --db "$DB" --model qwq-32b --set gpu=h100 --set sglang=0.4.6 --format json "$QWQ"
check_py "j['knobs']['max_bs'] == {'value': 80, 'origin': 'inferred'} and j['knobs']['sglang']['value'] == 'v0.4.6'" \
  "JSON: the knobs with their origins"
check_py "[l['outside'] for l in j['estimate']['layers']] == [None, None, None, None, 'above']" "JSON: total above"

# --- the capture hook's terms (its stand-in torch: tests/hook/fake_torch) beside their estimates ---
: "${CGPLAN_SRC:?CGPLAN_SRC must point to the source tree}"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$CGPLAN_SRC/hook:$CGPLAN_SRC/tests/hook/fake_torch" CGPLAN_HOOK=1 \
  CGPLAN_HOOK_SNAPSHOT="$TEST_TMP" python3 "$CGPLAN_SRC/tests/hook/drive_capture.py" 4 2 1 2> "$TEST_TMP/hook.log"
expect_exit 0 "$CGPLAN" check --db "$DB" --set gpu=h100 "$TEST_TMP/hook.log"
contains "$OUT" "static.logits             0.062         0.002      [0.002, 0.002]   OUTSIDE: measured above" \
  "a hook term beside its estimate and range"
contains "$OUT" "unattributed              0.040             -                   -" "no term of the estimate: no range"
expect_exit 0 "$CGPLAN" check --db "$DB" --set gpu=h100 --format json "$TEST_TMP/hook.log"
check_py "[(t['term'], t['measured_bytes'], t['outside']) for t in j['estimate']['terms']][:3] == [('moe.deepep', 268435456, 'above'), ('moe.masked_gemm', 134217728, 'above'), ('static.logits', 67108864, 'above')]" \
  "JSON: the hook's terms"

# --- --calibrate: stored as ingest stores it, the pool fitted, the estimate then calibrated ---
expect_exit 0 "$CGPLAN" check --db "$DB" --preset k3-dp2-dcp8 --calibrate --format json "$LOGS/k3-dp2-dcp8-b200-maxbs128.log"
check_py "j['stored'] is True and j['calibrated_now'] is True and j['estimate']['calibrated'] is True" \
  "--calibrate stores, fits, and checks against the fit"
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
check_py "[r['source'] for r in j['runs']][0] == 'k3-dp2-dcp8-b200-maxbs128.log'" "the run is stored"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB" --format json
check_py "[(c['model'], c['gpu']) for c in j['calibrations']] == [('kimi-k3', 'b200')]" "the calibration is stored"
expect_exit 0 "$CGPLAN" check --db "$DB" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs128.log"
contains "$OUT" "calibrated coefficients" "a later check uses the calibration"

# --- the pools' flags from server_args: printed after SGLang's rules, so a printed
# disable_radix_cache wins; a decode server's print without it gets the decode rule (radix off) ---
qn_log() {
  printf "[2026-08-19 21:40:02] server_args=ServerArgs(model_path='Qwen/Qwen3-Next-80B-A3B-Instruct', tp_size=4, disaggregation_mode='decode'%s, cuda_graph_max_bs=96)\n" "$1"
  printf '[2026-08-19 21:47:38 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.09 GB\n'
  printf '[2026-08-19 21:48:38 TP0] Capture cuda graph end. Time elapsed: 10.0 s. mem usage=0.50 GB. avail mem=19.59 GB.\n'
}
qn_log "" > "$TEST_TMP/decode.log"
expect_exit 0 "$CGPLAN" check --db "$DB" --set gpu=h200 --format json "$TEST_TMP/decode.log"
check_py "j['knobs']['disable_radix_cache'] == {'value': True, 'origin': 'log'}" "a decode server's log: the radix cache off"
qn_log ", disable_radix_cache=False, swa_full_tokens_ratio=0.6, mamba_full_memory_ratio=0.5, disable_hybrid_swa_memory=True" > "$TEST_TMP/decode-radix.log"
expect_exit 0 "$CGPLAN" check --db "$DB" --set gpu=h200 --format json "$TEST_TMP/decode-radix.log"
check_py "[j['knobs'][k] for k in ('disable_radix_cache', 'swa_full_tokens_ratio', 'mamba_full_memory_ratio', 'disable_hybrid_swa_memory')] == [{'value': False, 'origin': 'log'}, {'value': 0.6, 'origin': 'log'}, {'value': 0.5, 'origin': 'log'}, {'value': True, 'origin': 'log'}]" \
  "the printed disable_radix_cache (a decode radix cache), both pool ratios and disable_hybrid_swa_memory, read"

# --- exit 1: nothing to check; exit 2: usage ---
expect_exit 1 "$CGPLAN" check --db "$DB" "$LOGS/06-mimo-v2-flash-swa-two-kv-pools-capture-begin.log"
contains "$ERR" "holds no CUDA-graph capture it can use: the capture at line 15 prints no memory after it begins" \
  "a capture that only begins"
expect_exit 1 "$CGPLAN" check --db "$DB" "$LOGS/24-2026-04-dsv4-pro-h200-2node-dp16-eagle-capture-oom-rewrapped.log"
contains "$ERR" "its last CUDA-graph capture failed (CUDA out of memory.)" "a failed capture"
printf 'INFO: vllm engine started\n' > "$TEST_TMP/other.log"
expect_exit 1 "$CGPLAN" check --db "$DB" "$TEST_TMP/other.log"
contains "$ERR" "holds no SGLang start-up lines" "not an SGLang log"
expect_exit 1 "$CGPLAN" check --db "$DB" "$TEST_TMP/missing.log"
contains "$ERR" "cannot read $TEST_TMP/missing.log" "no such file"
expect_exit 2 "$CGPLAN" check --db "$DB"
contains "$ERR" "expected a log" "no log"
expect_exit 2 "$CGPLAN" check --db "$DB" --format csv "$QWQ"
expect_exit 2 "$CGPLAN" check --db "$DB" --preset k3-dp16 --model qwq-32b "$QWQ"
expect_exit 2 "$CGPLAN" check --db "$DB" --set nope=1 "$QWQ"
# a log whose model no preset names: measured layers, no estimate, still exit 0
expect_exit 0 "$CGPLAN" check --db "$DB" "$QWQ"
contains "$OUT" "(no estimate: the log names no model a preset knows (check --model M or --preset P))" "no model: said"
finish
