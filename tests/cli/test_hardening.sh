#!/usr/bin/env bash
# Bounded inputs (issue 11): a deeply nested preset costs milliseconds and is reported once; the
# absurd-values log stores no value outside its knob's range.
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/runs.db"
ms() { date +%s%N | cut -c1-13; }

# --- a preset nested 40,000 deep (the issue's 80 KB file) and one just under the 64 KiB cap
export CGPLAN_PRESETS="$TEST_TMP/presets"
mkdir -p "$CGPLAN_PRESETS" "$TEST_TMP/files"
python3 - "$CGPLAN_PRESETS" "$TEST_TMP/files" <<'PY'
import sys
user, files = sys.argv[1:]
open(user + "/deep.yaml", "w").write("kind: model\nname: deep\nx: " + "[" * 30000 + "]" * 30000 + "\n")
open(files + "/deep40k.yaml", "w").write("kind: deployment\nname: deep40k\nx: " + "[" * 40000 + "]" * 40000 + "\n")
open(files + "/deep32k.yaml", "w").write("kind: deployment\nname: deep32k\nx: " + "[" * 32000 + "]" * 32000 + "\n")
PY
t0=$(ms)
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --db "$DB" --format json
t1=$(ms)
[ $((t1 - t0)) -lt 1000 ] && pass || fail "estimate with a 30,000-deep user preset took $((t1 - t0)) ms"
check_py "j['preset'] == 'k3-dp16'" "the other presets still load"
expect_exit 1 "$CGPLAN" presets
[ "$(grep -c 'deep.yaml' "$TEST_TMP/stderr")" = 1 ] && pass || fail "the deep file is not reported exactly once: $(cat "$TEST_TMP/stderr")"
contains "$(cat "$TEST_TMP/stderr")" "deep.yaml:3:11: the file nests deeper than 8 levels" "located nesting message"
for f in deep40k deep32k; do
  t0=$(ms)
  expect_exit 1 "$CGPLAN" estimate --preset "$TEST_TMP/files/$f.yaml" --db "$DB"
  t1=$(ms)
  [ $((t1 - t0)) -lt 1000 ] && pass || fail "$f refused in $((t1 - t0)) ms"
  contains "$(cat "$TEST_TMP/stderr")" "$TEST_TMP/files/$f.yaml:" "$f: the message names the file"
done
contains "$(cat "$TEST_TMP/stderr")" "nests deeper than 8 levels" "deep32k: refused by the scan"
unset CGPLAN_PRESETS

# --- absurd values: nothing out of range reaches the store
ABSURD="$LOGS/absurd-values.log"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$ABSURD"
check_py "len(j['runs']) == 1 and all(j['runs'][0]['server_args'][k] is None for k in ('tp_size', 'dp_size', 'dcp_size', 'ep_size', 'cuda_graph_max_bs', 'cuda_graph_bs', 'speculative_num_draft_tokens', 'context_length', 'mem_fraction_static', 'max_running_requests'))" "absurd server_args are null"
check_py "all(g['begin_avail_gib'] is None and g['bs'] is None and g['bars'] == [] for g in j['runs'][0]['groups'])" "absurd capture values are null"
check_py "j['runs'][0]['ranks'] == []" "no rank has a plausible value"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp16 --format json "$ABSURD"
ID=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "all(v is None or abs(v) <= 65536 for v in j['measured'].values())" "no absurd GiB value is stored"
# every numeric knob within its range (cgplan estimate --help's table)
check_py "
(lambda k, ranges: all(
    k[n]['value'] in (None, 'auto') or lo <= k[n]['value'] <= hi for n, (lo, hi) in ranges.items()) and
    all(1 <= b <= 1024 for b in (k['buckets']['value'] or [])))(j['knobs'], {
  'max_bs': (1, 1024), 'dp': (1, 1024), 'dcp': (1, 1024), 'max_dispatch': (1, 1024), 'mtp': (1, 16),
  'world': (1, 1024), 'context_len': (1, 16777216), 'mem_fraction_static': (0.5, 0.99)})" "every knob within its range"
check_py "all(v['origin'] != 'log' or n in ('dp', 'dcp') for n, v in j['knobs'].items())" "no absurd value became a knob from the log"
finish
