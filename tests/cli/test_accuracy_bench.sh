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

DATA="$TEST_TMP/deployments.json"
python3 - "$TOTAL" "$DATA" <<'PY'
import json, sys
total = int(sys.argv[1]) / 2**30
pts = [
    {"id": "k3-exact", "preset": "k3-dp16", "knobs": {}, "measured_gib": total, "fit": False},
    {"id": "k3-fit", "preset": "k3-dp16", "knobs": {"max_bs": 24}, "measured_gib": 4.0, "fit": True},
    {"id": "k3-over", "preset": "k3-dp16", "knobs": {"mtp": 6}, "measured_gib": total / 1.1, "fit": False},
    {"id": "k3-badknob", "preset": "k3-dp16", "knobs": {"nonsense": 1}, "measured_gib": 1.0, "fit": False},
    {"id": "k3-nogpu", "model": "moonshotai/Kimi-K3", "gpu": None, "knobs": {}, "measured_gib": 1.0},
    {"id": "k3-unmeasured", "preset": "k3-dp16", "knobs": {}, "measured_gib": None},
    # the log captured 99 graphs, the estimate another count: another configuration
    {"id": "k3-graphs", "preset": "k3-dp16", "knobs": {}, "graphs": 99, "measured_gib": 1.0},
    # a model with unknown terms: the known terms' sum, marked (fit: out of the statistics)
    {"id": "qwen-partial", "model": "qwen3-8b", "gpu": "h100", "knobs": {}, "measured_gib": 1.0, "fit": True},
]
json.dump({"points": pts}, open(sys.argv[2], "w"))
PY

export CGPLAN_ACCURACY_DATA="$DATA"
expect_exit 0 python3 "$BENCH" "$BUILD"
row() { printf '%s\n' "$OUT" | awk -v id="$1" '$1 == id'; }
contains "$(printf '%s\n' "$OUT" | head -1)" "pred_gib" "header line"
contains "$(row k3-exact)" " +0.0% " "exact point: error 0.0%"
contains "$(row k3-exact)" " $HEUR_GIB " "exact point: heuristic GiB"
contains "$(row k3-exact)" " $HEUR_ERR" "exact point: heuristic error"
contains "$(row k3-over)" " +10.0% " "over point: error +10.0%"
contains "$(row k3-fit)" "fit" "fit point marked"
contains "$(row k3-badknob)" "n/a" "unknown knob: n/a"
contains "$(row k3-badknob)" "unknown knob" "unknown knob: the binary's first error line"
contains "$(row k3-nogpu)" "gpu not stated" "missing gpu: n/a with the reason"
[ -z "$(row k3-unmeasured)" ] && pass || fail "unmeasured point printed a row"
contains "$OUT" $'\nmedian |error|: 5.0% over 2 points\n' "median over the non-fit estimated points"
contains "$OUT" $'\nworst |error|: 10.0% (k3-over)\n' "worst"
contains "$(row k3-graphs)" "captures 6 graphs, the log 99" "graph count differs: n/a with both counts"
contains "$(row qwen-partial)" "fit partial" "unknown terms: marked partial"
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
