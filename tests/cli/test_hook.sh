#!/usr/bin/env bash
# hook/cgplan_capture_hook.py against a stand-in torch (tests/hook/fake_torch), driven by
# tests/hook/drive_capture.py as SGLang's capture loop would drive it; then cgplan ingest reads
# its lines and runs show puts the measured terms beside the estimate's (issue 10, methods 3-4).
# No GPU here: a real torch.cuda.graph capture is not exercised.
source "$CGPLAN_TESTLIB"
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
set -e
: "${CGPLAN_SRC:?CGPLAN_SRC must point to the source tree}"
HOOKPATH="$CGPLAN_SRC/hook:$CGPLAN_SRC/tests/hook/fake_torch"
DRIVE="$CGPLAN_SRC/tests/hook/drive_capture.py"
LOG="$TEST_TMP/server.log"
GIB=1073741824

# --- the hook's lines, in the log where SGLang's own go (stderr)
mkdir -p "$TEST_TMP/snap"
PYTHONPATH="$HOOKPATH" CGPLAN_HOOK=1 CGPLAN_HOOK_SNAPSHOT="$TEST_TMP/snap" python3 "$DRIVE" 4 2 1 2> "$LOG"
[ "$(grep -c '^\[cgplan-hook\] capture ' "$LOG")" = 3 ] && pass || fail "one capture line per size: $(cat "$LOG")"
grep -q '^\[cgplan-hook\] capture seq=0 size=4 rank=0 ' "$LOG" && pass || fail "the largest size first, named by its bs"
grep -q '^\[cgplan-hook\] term=moe.deepep bytes=268435456 size=4' "$LOG" && pass || fail "deepep.py's tensors: moe.deepep"
grep -q '^\[cgplan-hook\] term=moe.masked_gemm bytes=134217728' "$LOG" && pass || fail "deep_gemm.py: moe.masked_gemm"
grep -q '^\[cgplan-hook\] term=static.logits bytes=67108864' "$LOG" && pass || fail "graph_shared_output.py: static.logits"
[ -s "$TEST_TMP/snap/cgplan-snapshot-rank0.pickle" ] && pass || fail "the snapshot's pickle is written"
[ "$(grep -c '^\[cgplan-hook\] term=' "$LOG")" = 4 ] && pass || fail "one snapshot only (the largest size)"

# without CGPLAN_HOOK=1 the directory on the path changes nothing
PYTHONPATH="$HOOKPATH" python3 "$DRIVE" 4 2 1 2> "$TEST_TMP/plain.log"
! grep -q 'cgplan-hook' "$TEST_TMP/plain.log" && pass || fail "hook active without CGPLAN_HOOK=1"
# ranks above 0 stay quiet unless asked
PYTHONPATH="$HOOKPATH" CGPLAN_HOOK=1 FAKE_RANK=1 python3 "$DRIVE" 4 2 1 2> "$TEST_TMP/rank1.log"
! grep -q 'cgplan-hook' "$TEST_TMP/rank1.log" && pass || fail "rank 1 printed without CGPLAN_HOOK_RANKS=all"

# --- ingest reads them: the largest bucket's torch / non-torch split and the snapshot's terms
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$LOG"
check_py "(lambda h: h['captures'] == 3 and h['size'] == 4 and h['non_torch_bytes'] == $GIB // 2 and h['torch_bytes'] == 523449138)(j['runs'][0]['groups'][0]['hook'])" "split of the largest bucket"
check_py "[t['term'] for t in j['runs'][0]['hook_terms']] == ['moe.deepep', 'moe.masked_gemm', 'static.logits', 'unattributed']" "terms read"
check_py "j['runs'][0]['groups'][0]['layers']['total_gib'] == 1.04 and j['runs'][0]['model'] == 'qwen3-8b'" "the log's own layers and model unchanged"

DB="$TEST_TMP/runs.db"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --set gpu=h100 --format json "$LOG"
ID=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['measured_split'] == {'size': 4, 'torch_bytes': 523449138, 'non_torch_bytes': $GIB // 2}" "runs show: measured split"
check_py "(lambda t: t['measured_bytes'] == 268435456 and 'predicted_bytes' in t and t['layer'] == 'largest')(next(t for t in j['terms'] if t['id'] == 'moe.deepep'))" "runs show: moe.deepep measured beside predicted"
check_py "(lambda t: t['measured_bytes'] == 67108864 and t['predicted_bytes'] is not None)(next(t for t in j['terms'] if t['id'] == 'static.logits'))" "runs show: static.logits predicted and measured"
check_py "any(t['id'] == 'unattributed' and t['predicted_bytes'] is None for t in j['terms'])" "runs show: unattributed bytes"
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB"
contains "$OUT" "measured by the capture hook: largest bucket (bs 4) torch 0.487 GiB, non-torch 0.500 GiB" "table: split"
contains "$OUT" "moe.deepep" "table: terms"
# a run without hook lines shows none
expect_exit 0 "$CGPLAN" runs show 2 --db "$DB" --format json
check_py "j['measured_split'] is None and all(t['measured_bytes'] is None for t in j['terms'])" "no hook, no measured terms"
expect_exit 0 "$CGPLAN" runs rm "$ID" --db "$DB" --yes
expect_exit 0 "$CGPLAN" ingest --db "$DB" --set gpu=h100 "$LOG"
contains "$OUT" "stored run" "re-ingest after rm (the measured terms went with the run)"

finish
