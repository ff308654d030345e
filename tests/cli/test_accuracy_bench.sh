#!/usr/bin/env bash
# bench/accuracy against a generated deployments file ($CGPLAN_ACCURACY_DATA): rows, error column,
# fit and n/a handling, the summary lines, and exit codes.
source "$CGPLAN_TESTLIB"
set -e
BENCH="$CGPLAN_SRC/bench/accuracy"
BUILD=$(dirname "$CGPLAN")

expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --format json
TOTAL=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['total_bytes'])")
# The heuristic's columns for the exact point, from the same JSON: GiB and error vs the prediction.
read -r HEUR_GIB HEUR_ERR < <(printf '%s' "$OUT" | python3 -c "
import json,sys; j=json.load(sys.stdin); h=j['heuristic']['total_bytes']; t=j['total_bytes']
print('%.2f' % (h / 2**30), '%+.1f%%' % (100 * (h - t) / max(t, 2**28)))")

# Two models of two families, each "measured" at its own estimate with node_bytes 20000: left out
# in turn, each one's node_bytes is refitted from the other alone, exactly 20000, so both predict
# their measurement (the leave-one-out path end to end).
nb_total() {
  expect_exit 0 "$CGPLAN" estimate --model "$1" --set gpu=h100 --set node_bytes=20000 --format json
  printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['total_bytes'])"
}
LLAMA=$(nb_total llama-3.1-8b)
QWEN=$(nb_total qwen3-8b)

DATA="$TEST_TMP/deployments.json"
python3 - "$TOTAL" "$DATA" "$LLAMA" "$QWEN" <<'PY'
import json, sys
total = int(sys.argv[1]) / 2**30
llama, qwen = int(sys.argv[3]) / 2**30, int(sys.argv[4]) / 2**30
pts = [
    {"id": "k3-exact", "preset": "k3-dp16", "knobs": {}, "measured_gib": total, "fit": False},
    {"id": "k3-fit", "preset": "k3-dp16", "knobs": {"max_bs": 24}, "measured_gib": 4.0, "fit": True},
    {"id": "k3-over", "preset": "k3-dp16", "knobs": {"mtp": 6}, "measured_gib": total / 1.1, "fit": False},
    {"id": "k3-badknob", "preset": "k3-dp16", "knobs": {"nonsense": 1}, "measured_gib": 1.0, "fit": False},
    {"id": "k3-nogpu", "model": "moonshotai/Kimi-K3", "gpu": None, "knobs": {}, "measured_gib": 1.0},
    {"id": "k3-unmeasured", "preset": "k3-dp16", "knobs": {}, "measured_gib": None},
    # the log captured 99 graphs, the estimate another count: another configuration
    {"id": "k3-graphs", "preset": "k3-dp16", "knobs": {}, "graphs": 99, "measured_gib": 1.0},
    # a term with no formula (DeepEP has no default normal-mode config for 6 ranks): the known
    # terms' sum, marked partial
    # (fit: out of the statistics)
    {"id": "dsv3-partial", "model": "deepseek-v3", "gpu": "h200", "knobs": {"tp": 6, "a2a": "deepep"},
     "measured_gib": 1.0, "fit": True},
    {"id": "loo-llama", "model": "llama-3.1-8b", "gpu": "h100", "knobs": {}, "measured_gib": llama, "fit": False},
    {"id": "loo-qwen", "model": "qwen3-8b", "gpu": "h100", "knobs": {}, "measured_gib": qwen, "fit": False},
]
json.dump({"points": pts}, open(sys.argv[2], "w"))
PY

export CGPLAN_ACCURACY_DATA="$DATA"
expect_exit 0 python3 "$BENCH" "$BUILD"
row() { printf '%s\n' "$OUT" | awk -v id="$1" '$1 == id'; }
contains "$(printf '%s\n' "$OUT" | head -1)" "leave-one-out" "the header says it is leave-one-out"
contains "$(printf '%s\n' "$OUT" | sed -n 2p)" "pred_gib" "header line"
contains "$(row k3-exact)" " +0.0% " "exact point: error 0.0%"
contains "$(row k3-exact)" " $HEUR_GIB " "exact point: heuristic GiB"
contains "$(row k3-exact)" " $HEUR_ERR" "exact point: heuristic error"
contains "$(row k3-over)" " +10.0% " "over point: error +10.0%"
contains "$(row k3-fit)" "fit" "fit point marked"
contains "$(row k3-badknob)" "n/a" "unknown knob: n/a"
contains "$(row k3-badknob)" "unknown knob" "unknown knob: the binary's first error line"
contains "$(row k3-nogpu)" "gpu not stated" "missing gpu: n/a with the reason"
[ -z "$(row k3-unmeasured)" ] && pass || fail "unmeasured point printed a row"
contains "$OUT" $'\nmedian |error|: 0.0% over 4 points\n' "median over the non-fit estimated points"
contains "$OUT" $'\nworst |error|: 10.0% (k3-over)\n' "worst"
contains "$(row k3-graphs)" "captures 6 graphs, the log 99" "graph count differs: n/a with both counts"
contains "$(row dsv3-partial)" "fit partial" "unknown terms: marked partial"
contains "$(row loo-qwen)" " +0.0% " "leave-one-out: refitted from the other family alone"
contains "$(row loo-qwen)" "node_bytes=20000" "leave-one-out: the node_bytes passed"
contains "$(row loo-qwen)" " yes " "the measurement inside the range"
contains "$OUT" $'\nfamily qwen: median |error| 0.0% over 1 point\n' "per-family line"
contains "$OUT" "article k3-dp16: calibrated 8.1" "the article's total, calibrated"
[ -z "$(row k3-exact | grep partial)" ] && pass || fail "a complete estimate marked partial"
contains "$OUT" $'\nnot estimated: 3\n' "not estimated count"
contains "$OUT" "not measured: 1 (k3-unmeasured)" "not measured count"

# Stable output: a second run prints the same.
FIRST="$OUT"
expect_exit 0 python3 "$BENCH" "$BUILD"
[ "$OUT" = "$FIRST" ] && pass || fail "output differs between runs"

# No binary: exit 2 with a message.
expect_exit 2 python3 "$BENCH" "$TEST_TMP/no-such-build"
contains "$ERR" "no cgplan binary" "missing binary message"
finish
