#!/usr/bin/env bash
# cgplan runs: what ingest infers from a log (world and dp from the rank tags, mtp 1 without
# speculation, max_bs and buckets from the bar count and the release's grid), a run's release
# deciding its calibration pool, `runs set` for the shape knobs a log does not show, a run whose
# shape is unknown never fitted, and `runs rm` refitting or dropping what the run fed.
source "$CGPLAN_TESTLIB"
set -e
QWQ="$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log"

# --- inference: TP0..TP3 tags, a 0/13 bar, no speculation line; 13 graphs on v0.4.6 ---
DB="$TEST_TMP/infer.db"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model qwq-32b --set gpu=h100 --set sglang=0.4.6 "$QWQ"
contains "$OUT" "stored run 3: qwq-32b · h100 · DP1 no MTP · max_bs 80 · graphs 0.92 GiB" "the inferred run"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB" --format json
check_py "j['knobs']['world'] == {'value': 4, 'origin': 'inferred'}" "world 4 from the TP0..TP3 tags"
check_py "j['knobs']['dp'] == {'value': 1, 'origin': 'inferred'}" "dp 1: tags without DP"
check_py "j['knobs']['mtp'] == {'value': 1, 'origin': 'inferred'}" "mtp 1: no speculation line"
check_py "j['knobs']['max_bs'] == {'value': 80, 'origin': 'inferred'}" "max_bs 80: 13 graphs on v0.4.6's grid"
check_py "j['knobs']['buckets'] == {'value': [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80], 'origin': 'inferred'}" \
  "the buckets: v0.4.6's grid cut at 13"
check_py "j['knobs']['sglang'] == {'value': 'v0.4.6', 'origin': 'set'}" "the release by name"
check_py "j['calibration_excluded'] is None" "a shape known: usable"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB"
contains "$OUT" "world 4 (inferred) dp 1 (inferred)" "runs show marks the inferred knobs"
contains "$OUT" "buckets  13 (inferred): [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80]" "and the buckets"
contains "$OUT" "model    qwq-32b (set)" "the model from --model, said so"
contains "$OUT" "gpu      h100 (set)" "the GPU from --set, said so"
# its own release decides its pool: calibrate --model without --set sglang pools it under v0.4.6
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --model qwq-32b --set gpu=h100 --dry-run --format json
check_py "[c['sglang'] for c in j['calibrations']] == ['v0.4.6'] and j['calibrations'][0]['runs'] == [3]" \
  "pooled under v0.4.6"
check_py "[r['sglang'] for r in j['node_bytes'][0]['runs']] == ['v0.4.6']" "its node_bytes point says v0.4.6"
# without the release the 13 graphs give no max_bs: not fitted (it was, at a preset's max_bs)
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/norel.db" --model qwq-32b --set gpu=h100 --format json "$QWQ"
check_py "j['runs'][0]['calibration_excluded'].startswith('max_bs unknown: the log lists no captured sizes')" \
  "no release: max_bs unknown, not fitted"
expect_exit 1 "$CGPLAN" calibrate --db "$TEST_TMP/norel.db" --model qwq-32b --set gpu=h100 --dry-run
contains "$OUT" "skipped run 3: max_bs unknown" "calibrate leaves it out and says why"

# DP attention's "DPn TPn EPn" tags: dp from the DP numbers
sed 's/ TP\([0-3]\)\]/ DP\1 TP\1 EP\1]/' "$QWQ" > "$TEST_TMP/dp4.log"
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/dp4.db" --model qwq-32b --set gpu=h100 "$TEST_TMP/dp4.log"
expect_exit 0 "$CGPLAN" runs show 3 --db "$TEST_TMP/dp4.db" --format json
check_py "j['knobs']['world'] == {'value': 4, 'origin': 'inferred'} and j['knobs']['dp'] == {'value': 4, 'origin': 'inferred'}" \
  "DP0..DP3 tags: dp 4"

# --- a TP4 log with its rank tags gone: world and max_bs unknown until runs set ---
# (TP0's lines and the bars, every tag dropped, TP1's line glued to the bar cut off: one untagged
# rank, as a TP1 log prints)
grep -a -v '^\[[^]]* TP[123]\]' "$QWQ" | sed 's/\[\([0-9-]* [0-9:]*\) TP[0-9]\]/[\1]/g; s/\(it\/s\]\)\[2025.*/\1/' \
  > "$TEST_TMP/untagged.log"
DB="$TEST_TMP/set.db"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model qwq-32b --set gpu=h100 --format json "$TEST_TMP/untagged.log"
check_py "j['runs'][0]['calibration_excluded'].startswith('world unknown')" "no tags: world unknown, not fitted"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB"
contains "$OUT" "calibration: world unknown: the log states no tp_size and tags no ranks; cgplan runs set ID tp=N" \
  "runs show says what is missing and the fix"
expect_exit 1 "$CGPLAN" calibrate --db "$DB" --model qwq-32b --set gpu=h100 --dry-run
contains "$OUT" "skipped run 3: world unknown" "never fitted at a preset's world"
expect_exit 0 "$CGPLAN" runs set 3 tp=4 dp=1 --db "$DB"
contains "$OUT" "run 3: tp 4, dp 1 (set); not pooled until cgplan runs set 3 max_bs=B" "runs set: what is still missing"
expect_exit 0 "$CGPLAN" runs set 3 max_bs=80 --db "$DB"
contains "$OUT" "run 3: max_bs 80 (set); cgplan calibrate now pools it (qwq-32b on h100, sglang main@2026-07-20)" \
  "runs set: now pooled, and where"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB" --format json
check_py "j['knobs']['world'] == {'value': 4, 'origin': 'set'} and j['knobs']['max_bs'] == {'value': 80, 'origin': 'set'}" \
  "the set knobs stored, origin set"
check_py "j['calibration_excluded'] is None" "usable now"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --model qwq-32b --set gpu=h100 --dry-run --format json
check_py "j['calibrations'][0]['runs'] == [3]" "calibrate pools it now"
# runs set reads values as --set does, and says what it does not take
expect_exit 2 "$CGPLAN" runs set 3 tp=x --db "$DB"
contains "$ERR" "world=x: expected 1..1024" "a bad value: the knob's range"
expect_exit 2 "$CGPLAN" runs set 3 speed=9 --db "$DB"
contains "$ERR" "unknown knob 'speed'" "an unknown knob"
expect_exit 2 "$CGPLAN" runs set 3 tp4 --db "$DB"
contains "$ERR" "'tp4' is not KNOB=VALUE" "not an assignment"
expect_exit 2 "$CGPLAN" runs set 3 --db "$DB"
expect_exit 1 "$CGPLAN" runs set 99 tp=4 --db "$DB"
contains "$ERR" "no run 99" "no such run"
expect_exit 0 "$CGPLAN" runs set 3 gpu=h200 model=qwq-32b --db "$DB"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB"
contains "$OUT" "gpu      h200 (set)" "the GPU set again"

# set-model is runs set ID model=M, and promises no pooling a GPU-less run cannot have
DB="$TEST_TMP/model.db"
LLAMA="$LOGS/28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" "$LLAMA"
expect_exit 0 "$CGPLAN" runs set-model 3 llama-3.1-70b --db "$DB"
contains "$OUT" "run 3: model llama-3.1-70b (set); not pooled until cgplan runs set 3 gpu=NAME" "set-model: the GPU still missing"
# (an excerpt: TP0's capture and TP1's KV line tell no world; 52 listed sizes give max_bs 512)
expect_exit 0 "$CGPLAN" runs set 3 gpu=h200 --db "$DB"
contains "$OUT" "run 3: gpu h200 (set); not pooled until cgplan runs set 3 tp=N" "an excerpt's ranks: world still missing"
expect_exit 0 "$CGPLAN" runs set 3 tp=8 --db "$DB"
contains "$OUT" "cgplan calibrate now pools it (llama-3.1-70b on h200" "then pooled"

# --- runs rm: the calibrations a run fed are refitted from the runs left, or dropped ---
DB="$TEST_TMP/rm.db"
for m in 128 160; do
  expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs$m.log"
done
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp2-dcp8
expect_exit 0 "$CGPLAN" calibrate list --db "$DB" --format json
check_py "[c['runs'] for c in j['calibrations']] == [[4, 3, 2, 1]] and j['calibrations'][0]['run_releases'] == 'main@2026-07-20'" \
  "calibrate list: a calibration's runs and their releases"
check_py "[c['runs'] for c in j['node_bytes']] == [[4, 3]]" "the node_bytes fit from the two max_bs runs"
expect_exit 0 "$CGPLAN" runs rm 3 --yes --db "$DB"
contains "$OUT" "node_bytes calibration 1 of b200 (sglang every) dropped: the 1 run left fit nothing" \
  "node_bytes: one graph count left, dropped"
contains "$OUT" "calibration 1 of kimi-k3 on b200 (sglang main@2026-07-20) refitted from 3 runs" "the model's refitted"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB" --format json
check_py "[c['runs'] for c in j['calibrations']] == [[4, 2, 1]] and j['node_bytes'] == []" "what the store holds after"
expect_exit 0 "$CGPLAN" runs rm 4 --yes --db "$DB" --format json
check_py "j == {'removed': 4, 'calibrations': ['calibration 2 of kimi-k3 on b200 (sglang main@2026-07-20) refitted from 2 runs']}" \
  "runs rm --format json lists them"
expect_exit 0 "$CGPLAN" runs rm 1 --yes --db "$DB"
expect_exit 0 "$CGPLAN" runs rm 2 --yes --db "$DB"
contains "$OUT" "calibration 4 of kimi-k3 on b200 (sglang main@2026-07-20) dropped: no runs left" "the last run: dropped"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB"
contains "$OUT" "no calibration stored" "nothing left"

# --- runs list: unknowns print ? or -, never 0 or nan; long model names cut with … ---
DB="$TEST_TMP/list.db"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model deepseek-r1-distill-qwen-32b "$LOGS/03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log"
expect_exit 0 "$CGPLAN" runs list --db "$DB"
contains "$OUT" "deepseek-r1-distill… ?                DP? no MTP               32        -       -        -" \
  "the list row: the model cut with …, the unknowns as ? and -"
case "$OUT" in *nan*|*"DP0"*) fail "runs list prints nan or DP0: $OUT" ;; *) pass ;; esac
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format csv
contains "$OUT" "3,,03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log,deepseek-r1-distill-qwen-32b,,0,0,,,,32,1,,0.02,5.69,,,," \
  "CSV: empty for unknown, never 0"
finish
