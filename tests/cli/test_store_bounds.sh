#!/usr/bin/env bash
# Issue 21 item 4: the numbers a store holds keep, on the way back, the bounds its save keeps, and
# those bounds are what the estimate's arithmetic is sized for. A calibration at every bound at once
# estimates the largest plan without a wrap (the sanitizer build reports any); one past a bound is
# refused naming its row and the fix, exit 1, never an estimate from it. A damaged run record
# hides no other run: runs list prints them all and names it, calibrate leaves it out.
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/s.db"
expect_exit 0 "$CGPLAN" runs list --db "$DB" # a fresh store: its seeded runs are kimi-k3 on b200
COEF_MAX=4294967296 # ENGINE_COEF_MAX: a per-row or per-graph coefficient
SIZE_MAX=1125899906842624 # ENGINE_SIZE_MAX: lazy, the draft's base, the static intercept
NODE_MAX=1048576 # the node_bytes knob's top
sqlite3 "$DB" "INSERT INTO calibrations (model, gpu, created_at, act_bytes_per_row, lazy_bytes, graph_bytes,
  out_bytes_per_row, draft_base_bytes, draft_bytes_per_row, runs, report, static_bytes, held_node_bytes)
  VALUES ('kimi-k3', 'b200', '2026-01-01T00:00:00Z', $COEF_MAX, $SIZE_MAX, $COEF_MAX, $COEF_MAX, $SIZE_MAX,
  $COEF_MAX, '1,2', 'worst case', $SIZE_MAX, $NODE_MAX);
  INSERT INTO gpu_calibrations (gpu, created_at, node_bytes, node_bytes_low, node_bytes_high, n_runs, runs)
  VALUES ('b200', '2026-01-01T00:00:00Z', $NODE_MAX, 0, $NODE_MAX, 2, '1,2')"
CAL=$(sqlite3 "$DB" "SELECT id FROM calibrations WHERE model = 'kimi-k3'")
NODE=$(sqlite3 "$DB" "SELECT id FROM gpu_calibrations WHERE gpu = 'b200'")

# the worst case: every value at its bound, the largest batch and the deepest speculation
for preset in k3-dp16 k3-dp2-dcp8; do
  expect_exit 0 "$CGPLAN" estimate --preset "$preset" --set max_bs=1024 --db "$DB" --format json
  check_py 'j["total_bytes"] > 0 and j["total_bytes"] < 2**63' "$preset: the worst case is a number, not a wrap"
  check_py '[t for t in j["terms"] if t.get("source") == "calibrated"] != []' "$preset: the calibration is used"
  case "$ERR" in *"runtime error"*) fail "$preset: the worst case wraps: $ERR" ;; *) pass ;; esac
done
expect_exit 0 "$CGPLAN" runs show 1 --db "$DB"
case "$ERR" in *"runtime error"*) fail "runs show at the worst case wraps: $ERR" ;; *) pass ;; esac
expect_exit 0 "$CGPLAN" calibrate list --db "$DB"

# one past a bound, each value the issue found: named with its row and the fix, exit 1
for col in lazy_bytes act_bytes_per_row out_bytes_per_row draft_base_bytes; do
  max=$COEF_MAX
  case $col in lazy_bytes | draft_base_bytes) max=$SIZE_MAX ;; esac
  for v in 9223372036854775807 $((max + 1)); do
    sqlite3 "$DB" "UPDATE calibrations SET $col = $v WHERE id = $CAL"
    expect_exit 1 "$CGPLAN" estimate --preset k3-dp16 --db "$DB"
    contains "$ERR" "calibration $CAL: $col $v is out of bounds; cgplan calibrate --reset kimi-k3 b200" "$col $v"
    one_line "$ERR" "$col $v: one line"
    [ -z "$OUT" ] && pass || fail "$col $v: an estimate was printed from it: $OUT"
    expect_exit 1 "$CGPLAN" calibrate list --db "$DB"
    contains "$ERR" "calibration $CAL: $col $v is out of bounds" "calibrate list: $col $v"
    sqlite3 "$DB" "UPDATE calibrations SET $col = $max WHERE id = $CAL"
  done
done
sqlite3 "$DB" "UPDATE calibrations SET static_bytes = $((SIZE_MAX + 1)) WHERE id = $CAL"
expect_exit 1 "$CGPLAN" runs show 1 --db "$DB"
contains "$ERR" "calibration $CAL: static_bytes $((SIZE_MAX + 1)) is out of bounds" "static_bytes, runs show"
sqlite3 "$DB" "UPDATE calibrations SET static_bytes = $SIZE_MAX, held_node_bytes = 255 WHERE id = $CAL"
expect_exit 1 "$CGPLAN" calibrate list --db "$DB"
contains "$ERR" "calibration $CAL: held_node_bytes 255 is out of bounds" "held_node_bytes below the knob's range"
sqlite3 "$DB" "UPDATE calibrations SET held_node_bytes = NULL WHERE id = $CAL"
for range in "$((NODE_MAX + 1)), 0, $((NODE_MAX + 1))" "255, 0, 300" "4096, 5000, 6000" "4096, 0, $((NODE_MAX * 2))"; do
  sqlite3 "$DB" "UPDATE gpu_calibrations SET (node_bytes, node_bytes_low, node_bytes_high) = ($range) WHERE id = $NODE"
  expect_exit 1 "$CGPLAN" estimate --preset k3-dp16 --db "$DB"
  contains "$ERR" "node_bytes calibration $NODE: node_bytes" "node_bytes ($range) named"
  contains "$ERR" "is out of bounds; cgplan calibrate --reset b200" "node_bytes ($range): the fix"
  expect_exit 1 "$CGPLAN" sweep --preset k3-dp16 --vary max_bs=8:16 --db "$DB"
done

# the fix given works, and the other GPU's plans never depended on it
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set gpu=h200 --db "$DB"
expect_exit 0 "$CGPLAN" calibrate --reset b200 --db "$DB"
expect_exit 0 "$CGPLAN" calibrate --reset kimi-k3 b200 --db "$DB"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --db "$DB"

# damaged run records: every readable run listed, each damaged one marked and named after the list
expect_exit 0 "$CGPLAN" ingest --db "$DB" "$LOGS"/k3-dp2-dcp8-b200-maxbs1*.log
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
check_py 'len(j["runs"]) == 8 and not any(r["damaged"] for r in j["runs"])' "8 whole runs"
damage() { sqlite3 "$DB" "INSERT INTO run_texts (body) VALUES ($2); UPDATE runs SET knobs_text = last_insert_rowid() WHERE id = $1"; }
damage 4 "X'0103'" # cut short
damage 6 "X'07'"   # a record of another version
expect_exit 1 "$CGPLAN" runs list --db "$DB"
[ "$(printf '%s\n' "$OUT" | wc -l)" = 9 ] && pass || fail "runs list stopped at a damaged run: $OUT"
contains "$(printf '%s\n' "$OUT" | grep '^    4 ')" "k3-dp2-dcp8-b200-maxbs128.log" "the damaged run's own columns"
contains "$(printf '%s\n' "$OUT" | grep '^    4 ')" "DAMAGED" "the damaged run marked"
contains "$(printf '%s\n' "$OUT" | grep '^    1 ')" "DP16 MTP 6" "the run after the damaged ones"
contains "$ERR" "2 damaged runs in $DB (6, 4): cgplan runs show ID says what; cgplan runs rm ID" "named with the fix"
one_line "$ERR" "damaged runs: one line"
expect_exit 1 "$CGPLAN" runs list --db "$DB" --format json
check_py '[r["id"] for r in j["runs"] if r["damaged"]] == [6, 4] and len(j["runs"]) == 8' "json: all 8, 2 marked"
check_py '"record damaged" in [r for r in j["runs"] if r["id"] == 4][0]["calibration_excluded"]' "json: left out of calibration"
expect_exit 1 "$CGPLAN" runs list --db "$DB" --format csv
[ "$(printf '%s\n' "$OUT" | wc -l)" = 9 ] && pass || fail "csv: a header and 8 rows"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --dry-run
contains "$OUT" "skipped run 4: record damaged" "calibrate skips run 4 and says so"
contains "$OUT" "skipped run 6: record damaged" "calibrate skips run 6 and says so"
contains "$OUT" "calibration of kimi-k3 on b200" "calibrate fits from the other runs"
expect_exit 0 "$CGPLAN" runs rm 4 --db "$DB" --yes
expect_exit 0 "$CGPLAN" runs rm 6 --db "$DB" --yes
expect_exit 0 "$CGPLAN" runs list --db "$DB"

# a stored name too long for cgplan's names is damage, never cut to another (maybe real) name
LONG=kimi-k3-$(printf 'x%.0s' $(seq 1 56)) # 64 bytes: cut to 63, it would pass for another name
sqlite3 "$DB" "UPDATE runs SET model = '$LONG' WHERE id = 3"
expect_exit 1 "$CGPLAN" runs list --db "$DB"
contains "$ERR" "1 damaged run in $DB (3)" "a run's long model name: damaged"
expect_exit 1 "$CGPLAN" runs show 3 --db "$DB"
contains "$ERR" "run 3: its stored model name is longer than 63 bytes (damaged); cgplan runs set-model 3 MODEL" \
  "runs show: the long name and its fix"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --dry-run
contains "$OUT" "skipped run 3: record damaged" "calibrate leaves the run out"
expect_exit 0 "$CGPLAN" runs set-model 3 kimi-k3 --db "$DB"
expect_exit 0 "$CGPLAN" runs list --db "$DB"
sqlite3 "$DB" "INSERT INTO calibrations (model, gpu, created_at, lazy_bytes, runs) VALUES ('$LONG', 'b200',
  '2026-01-01T00:00:00Z', 1, '1')"
expect_exit 1 "$CGPLAN" calibrate list --db "$DB"
contains "$ERR" "its model, GPU or release name is longer than cgplan's names (damaged)" "a calibration's long name"
sqlite3 "$DB" "DELETE FROM calibrations; INSERT INTO gpu_calibrations (gpu, created_at, node_bytes, node_bytes_low,
  node_bytes_high, n_runs, runs) VALUES ('b200-$(printf 'y%.0s' $(seq 1 60))', '2026-01-01T00:00:00Z', 4096, 0, 8192, 2, '1,2')"
expect_exit 1 "$CGPLAN" calibrate list --db "$DB"
contains "$ERR" "a GPU, release or model name in it is longer than cgplan's (damaged)" "a node calibration's long GPU"

# stored ingest keeps the lines it prints after the commit in an unlinked temporary file, not in
# memory; with no temporary file to be had it prints them from its reports, the same lines
mkdir "$TEST_TMP/tmpdir"
expect_exit 0 env TMPDIR="$TEST_TMP/tmpdir" "$CGPLAN" ingest --db "$TEST_TMP/a.db" "$LOGS"/k3-dp2-dcp8-b200-maxbs1*.log
A=$OUT
[ -z "$(ls -A "$TEST_TMP/tmpdir")" ] && pass || fail "the report's temporary file outlived the ingest"
expect_exit 0 env TMPDIR="$TEST_TMP/none" "$CGPLAN" ingest --db "$TEST_TMP/b.db" "$LOGS"/k3-dp2-dcp8-b200-maxbs1*.log
[ "$(printf '%s' "$A" | sed 's/ in [0-9.]* s//')" = "$(printf '%s' "$OUT" | sed 's/ in [0-9.]* s//')" ] && pass ||
  fail "the lines differ without a temporary file: $A // $OUT"
contains "$A" "stored run 8" "the stored runs' lines"
finish
