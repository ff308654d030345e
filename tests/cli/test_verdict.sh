#!/usr/bin/env bash
# Issue 20, "one coherent verdict": measured figures kept to their own layout, the request
# policy's own limit, SGLang's own default fraction beside every answer, solve's sentences.
source "$CGPLAN_TESTLIB"
set -e
GIB=1073741824

# --- A preset's measured weights and state hold only at the layout they were measured at.
# k3-dp16 moved to DP2 x DCP8 used to keep "weights 150.00 (measured)" and a 5.35 GiB KV pool.
LAYOUT=(--set dp=2 --set dcp=8 --set max_bs=192 --set mtp=5 --set buckets=auto)
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 "${LAYOUT[@]}"
contains "$OUT" "computed from the model: the measured 150.00 GiB was at DP16, this plan is DP2 x DCP8" \
  "the budget line says the measured figure is another layout's"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 "${LAYOUT[@]}" --format json
moved=$OUT
check_py "j['budget']['weights_source'] == 'computed' and j['budget']['weights_measured'] is False" "moved: computed"
check_py "j['budget']['state_source'] == 'computed' and j['budget']['measured_layout'] == 'DP16'" "moved: state too"
check_py "j['budget']['weights_bytes'] != 150 * $GIB and 90 * $GIB < j['budget']['weights_bytes'] < 110 * $GIB" \
  "moved: the DP2 x DCP8 weights (attention over 8 GPUs), not DP16's 150 GiB"
# The same figure as the model alone gives for that layout.
expect_exit 0 "$CGPLAN" estimate --model kimi-k3 --set gpu=b200 --set world=16 --set a2a=deepep "${LAYOUT[@]}" --format json
w_model=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['budget']['weights_bytes'])")
OUT=$moved
check_py "j['budget']['weights_bytes'] == $w_model" "moved: the model's own count"
# The preset's own layout (and a knob that is not a layout's) keeps the measured figure.
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16
contains "$OUT" "weights 150.00 GiB (measured at DP16)" "own layout: measured"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_bs=32 --format json
check_py "j['budget']['weights_bytes'] == 150 * $GIB and j['budget']['weights_measured'] is True" "max_bs: measured"
check_py "j['budget']['state_pool_bytes'] == 8 * $GIB and j['budget']['state_source'] == 'measured'" "max_bs: state"
# ep is a layout knob too: the experts per GPU change.
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set ep=8
contains "$OUT" "this plan is DP16, ep 8" "ep names the dimension that differs"

finish
