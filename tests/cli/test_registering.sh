#!/usr/bin/env bash
# Custom all-reduce's "Registering N cuda graph addresses" (one address per all-reduce node of the
# captured graphs): ingest keeps it with its group, and `runs show` puts it beside what the run's
# estimate counts, graph_nodes.allreduce (2L + 1 at attention TP > 1) x its graphs, and says which
# knob is off when they differ.
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/runs.db"
L28="$LOGS/28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log"
L29="$LOGS/29-2025-11-qwen3-30b-a3b-fp8-tp2-registering-before-two-end-lines.log"
run_id() { printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])'; }

# --- the dry run prints the group's count
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$L28"
check_py "j['runs'][0]['groups'][0]['registered_addresses'] == 8372" "dry run: registered_addresses"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$LOGS/k3-dp2-dcp8-b200-article.log"
check_py "all(g['registered_addresses'] is None for g in j['runs'][0]['groups'])" "dry run: unknown without the line"

# --- Llama-3.3-70B at TP8: 8372 = (2 x 80 + 1) x 52, as the estimate counts (the run states no
# a2a backend: SGLang's none, so all 52 logged sizes are captured)
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model llama-3.1-70b --set gpu=h200 --set world=8 --format json "$L28"
ID=$(run_id)
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['allreduce_registered'] == 8372 and j['allreduce_estimated'] == 8372" "registered beside estimated"
check_py "j['allreduce_mismatch'] is None" "no mismatch when they agree"
check_py "j['groups'][0]['registered_addresses'] == 8372 and j['groups'][0]['target']" "the group's count"
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB"
contains "$OUT" "all-reduce addresses  logged 8372  estimated 8372 (161 per graph x 52 graphs)" "table line"
case "$OUT" in *"they differ"*) fail "agreeing counts reported as differing" ;; *) pass ;; esac

# --- the same log read as a 64-layer model: 161 per graph is 80 layers
sed '1i # the wrong model' "$L28" > "$TEST_TMP/wrong-model.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model qwen3-32b --set gpu=h200 --set world=8 --format json "$TEST_TMP/wrong-model.log"
ID=$(run_id)
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['allreduce_registered'] == 8372 and j['allreduce_estimated'] == 129 * 52" "64 layers: 129 per graph"
check_py "'161 per graph (2 x 80 layers + 1) x 52 graphs, the model has 64 layers' in j['allreduce_mismatch']" "the layer count named"
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB"
contains "$OUT" "estimated 6708 (129 per graph x 52 graphs)" "table: the estimate's factors"
contains "$OUT" "they differ: the log's 8372 is 161 per graph" "table: the difference said"

# --- read as TP1: the estimate has no all-reduce at all
sed '1i # tp 1' "$L28" > "$TEST_TMP/tp1.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model llama-3.1-70b --set gpu=h200 --set world=1 --format json "$TEST_TMP/tp1.log"
ID=$(run_id)
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['allreduce_estimated'] == 0 and 'attention TP 1 (no all-reduce) but the log registered 8372' in j['allreduce_mismatch']" "TP1: no all-reduce estimated"

# --- Qwen3-30B-A3B-FP8 at TP2 (no bs list): 3492 = (2 x 48 + 1) x 36 at max_bs 256, the release's
# 36 sizes; at max_bs 128 the knobs capture 20, and the graph count is named
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model qwen3-30b-a3b-fp8 --set gpu=h100 --set world=2 --set max_bs=256 --format json "$L29"
ID=$(run_id)
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['allreduce_registered'] == 3492 and j['allreduce_estimated'] == 3492 and j['allreduce_mismatch'] is None" "TP2: agree at max_bs 256"
check_py "[g['registered_addresses'] for g in j['groups']] == [None, 3492]" "TP0's line joins TP0's end line, not TP1's"
sed '1i # max_bs 128' "$L29" > "$TEST_TMP/maxbs128.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --model qwen3-30b-a3b-fp8 --set gpu=h100 --set world=2 --set max_bs=128 --format json "$TEST_TMP/maxbs128.log"
ID=$(run_id)
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['allreduce_estimated'] == 97 * 20" "max_bs 128: 20 graphs"
check_py "'97 per graph x 36 graphs, the knobs capture 20: max_bs or buckets is off' in j['allreduce_mismatch']" "the graph count named"

# --- a run whose log has no such line: null, and no table line
expect_exit 0 "$CGPLAN" runs show 2 --db "$DB" --format json
check_py "j['allreduce_registered'] is None and j['allreduce_mismatch'] is None and j['allreduce_estimated'] is not None" "seeded run: not logged"
expect_exit 0 "$CGPLAN" runs show 2 --db "$DB"
case "$OUT" in *"all-reduce addresses"*) fail "a run without the line shows one" ;; *) pass ;; esac

finish
