#!/usr/bin/env bash
# cgplan solve / search and the wall's fit rule (issue 9's "Done when").
source "$CGPLAN_TESTLIB"

# --- the wall: at its recommended fraction the wall fits; the next capture size at its own does not
for p in k3-dp16 k3-dp2-dcp8; do
  expect_exit 0 "$CGPLAN" estimate --preset "$p" --format json
  read -r wall frac next <<<"$(printf '%s' "$OUT" | python3 -c 'import json,sys; b=json.load(sys.stdin)["budget"]; print(b["wall_max_bs"], b["wall_mem_fraction_static"], b["wall_code"] and 1)')"
  [ "$wall" -gt 0 ] && pass || fail "$p has a wall"
  expect_exit 0 "$CGPLAN" estimate --preset "$p" --set max_bs="$wall" --set mem_fraction_static="$frac" --check --format json
  check_py "j['budget']['headroom_bytes'] >= 0 and j['budget']['kv_pool_bytes'] > 0 and not [w for w in j['warnings'] if w['severity'] == 'blocking']" "$p at its wall $wall, f $frac"
  expect_exit 0 "$CGPLAN" solve max_bs --preset "$p" --format json
  check_py "j['value'] == $wall and j['next'] is not None" "$p solve max_bs = the wall"
  nb=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["next"]))')
  expect_exit 0 "$CGPLAN" estimate --preset "$p" --set max_bs="$nb" --format json
  nf=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["budget"]["recommended_mem_fraction_static"])')
  # min_kv_tokens set by the operator binds (by default a shortfall is a policy warning)
  expect_exit 3 "$CGPLAN" estimate --preset "$p" --set max_bs="$nb" --set mem_fraction_static="$nf" --set min_kv_tokens=4096 --check
  contains "$ERR" "does not fit" "$p: the next size $nb at $nf is blocked"
done
# DP2 x DCP8 with max_dispatch 128: 208 is the first size past the dispatch
expect_exit 0 "$CGPLAN" solve max_bs --preset k3-dp2-dcp8 --format json
check_py "j['value'] == 200 and j['next'] == 208 and j['code'] == 'dispatch_below_rows' and j['limit'] == 'moe.deepep'" "dcp8 wall stops at the dispatch"
# 150 GiB of weights on an H200: nothing fits, --check exits 3, the wall is null
expect_exit 3 "$CGPLAN" estimate --preset k3-dp16 --set gpu=h200 --check
contains "$ERR" "weights_exceed_gpu" "h200: the weights do not fit"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set gpu=h200 --format json
check_py "j['budget']['wall_max_bs'] is None and j['budget']['wall_code'] == 'weights_exceed_gpu'" "h200 wall is null"
check_py "[w['severity'] for w in j['warnings'] if w['code'] == 'weights_exceed_gpu'] == ['blocking']" "weights_exceed_gpu is blocking"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp2-dcp8 --format json
check_py "[w['severity'] for w in j['warnings'] if w['code'] == 'dcp_with_speculation'] == ['warning'] and j['budget']['fits']" "dcp_with_speculation is a warning"
check_py "j['budget']['post_capture_kv_sizing']['applies'] is False and 'MLA' in j['budget']['post_capture_kv_sizing']['why']" "post-capture sizing: not for MLA"
expect_exit 3 "$CGPLAN" solve max_bs --preset k3-dp16 --set gpu=h200

# --- solve: every knob, every format
for k in max_bs max_dispatch context_len mtp mem_fraction_static; do
  expect_exit 0 "$CGPLAN" solve "$k" --preset k3-dp16
  contains "$OUT" "k3-dp16" "solve $k table"
  expect_exit 0 "$CGPLAN" solve "$k" --preset k3-dp16 --format json
  check_py "j['knob'] == '$k' and j['fits'] and j['value'] is not None" "solve $k json"
  expect_exit 0 "$CGPLAN" solve "$k" --preset k3-dp16 --format csv
  contains "$OUT" "preset,knob,fits,value" "solve $k csv"
done
expect_exit 2 "$CGPLAN" solve max_bz --preset k3-dp16
contains "$ERR" "did you mean max_bs" "solve: did you mean"
expect_exit 2 "$CGPLAN" solve --preset k3-dp16

# --- knob inputs as SGLang reads them
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set context_len=128k --format json
check_py "j['knobs']['context_len'] == 128000" "128k = 128,000"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set context_len=128K --format json
check_py "j['knobs']['context_len'] == 131072" "128K = 131,072"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set context_len=1M --format json
check_py "j['knobs']['context_len'] == 1048576" "1M = 1,048,576"
expect_exit 2 "$CGPLAN" estimate --preset k3-dp16 --set context_len=12x
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set "buckets=1 2 4 8 16 24" --format json
check_py "j['knobs']['buckets'] == [1, 2, 4, 8, 16, 24]" "space-separated bucket list"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set "buckets=1 2 4" --format json
check_py "'adjusted' in [w['code'] for w in j['warnings'] if w['severity'] == 'info']" "an extended explicit list says so"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set margin=8G --format json
check_py "j['budget']['margin_bytes'] == 8 * 2**30" "margin 8G"

# --- search
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16 --format json
check_py "j['scanned'] > 0 and j['elapsed_s'] < 1 and len(j['layouts']) > 0 and all(k in j['layouts'][0] for k in ('tp','dp','dp_attention','ep','dcp','a2a','mtp','max_bs','mem_fraction_static','concurrency','kv_tokens','limit'))" "search json"
check_py "[l['concurrency'] for l in j['layouts']] == sorted([l['concurrency'] for l in j['layouts']], reverse=True) and any(l['pareto'] for l in j['layouts'])" "ranked by concurrency, Pareto marked"
# a listed layout estimates as fitting with its own knobs
sets=$(printf '%s' "$OUT" | python3 -c '
import json,sys
for l in json.load(sys.stdin)["layouts"][:3]:
    print("--set tp=%d --set dp=%d --set dp_attention=%s --set dcp=%d --set a2a=%s --set mtp=%d --set max_bs=%d --set mem_fraction_static=%.3f" % (
        l["tp"], l["dp"], "on" if l["dp_attention"] else "off", l["dcp"], l["a2a"], l["mtp"], l["max_bs"], l["mem_fraction_static"]))')
while read -r line; do
  # shellcheck disable=SC2086
  expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 $line --check
done <<<"$sets"
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16
contains "$OUT" "(2 nodes)" "search: --nodes defaults to the GPUs over 8, rounded up"
contains "$OUT" "scanned in" "search says how many it scanned and how long it took"
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16 --format csv
contains "$OUT" "tp,dp,dp_attention,ep,dcp,a2a,mtp" "search csv"
expect_exit 2 "$CGPLAN" search --model deepseek-v3 --set gpu=h200
expect_exit 2 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16 --nodes 3
finish
