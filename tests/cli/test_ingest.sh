#!/usr/bin/env bash
# cgplan ingest / runs against the fixture logs (issue 2: the store and its commands).
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/runs.db"
DP2="$LOGS/k3-dp2-dcp8-b200-article.log"
DP16="$LOGS/k3-dp16-b200-article.log"
L27="$LOGS/27-2025-01-docs-llama31-8b-h100-kv-no-tokens-end-no-mem.log"
runs_count() { "$CGPLAN" runs list --db "$1" --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))'; }

# --- a fresh store holds the article's two runs, labelled reconstructed, with their presets' knobs
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
check_py "len(j['runs']) == 2" "fresh store: two seeded runs"
check_py "all(r['reconstructed'] and 'reconstructed' in r['label'] for r in j['runs'])" "seeded runs labelled reconstructed"
check_py "sorted(r['gpu'] for r in j['runs']) == ['b200', 'b200'] and {r['model'] for r in j['runs']} == {'kimi-k3'}" "seeded model and GPU"
check_py "[r['id'] for r in j['runs']] == [2, 1]" "newest first"
expect_exit 0 "$CGPLAN" runs list --db "$DB"
contains "$OUT" "article (reconstructed): K3 DP2 x DCP8" "table label"
contains "$OUT" "13.96" "table total"

# --- re-ingesting a stored log: "already stored as run N", exit 0, nothing added
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp2-dcp8 "$DP2"
contains "$OUT" "already stored as run 2" "dedup by content hash"
[ "$(runs_count "$DB")" = 2 ] && pass || fail "dedup stored something"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --format json "$DP16"
check_py "j['runs'] == [{'id': 1, 'source': 'k3-dp16-b200-article.log', 'already_stored': True}]" "dedup json"

# --- runs show: measured layers beside the estimate for the run's own knobs
expect_exit 0 "$CGPLAN" runs show 2 --db "$DB" --format json
check_py "j['measured'] == dict(j['measured'], static_gib=1.33, largest_gib=10.24, buckets_gib=1.35, draft_gib=1.04, total_gib=13.96, target_total_gib=12.92)" "DP2 measured layers"
check_py "j['knobs']['max_dispatch'] == {'value': 128, 'origin': 'env'}" "max_dispatch 128 from env"
check_py "j['knobs']['gpu'] == {'value': 'b200', 'origin': 'preset'} and j['gpu'] == 'b200'" "gpu b200 from preset"
check_py "j['knobs']['dp'] == {'value': 2, 'origin': 'log'} and j['knobs']['dcp'] == {'value': 8, 'origin': 'log'}" "dp/dcp from log"
check_py "j['knobs']['mtp'] == {'value': 5, 'origin': 'log'} and j['knobs']['world']['value'] == 16" "mtp, world"
check_py "len(j['knobs']['buckets']['value']) == 23 and j['knobs']['buckets']['value'][-1] == 192" "captured buckets"
check_py "j['estimate'] is not None and abs(j['estimate']['total_bytes']/2**30 - 13.96) < 0.03*13.96" "estimate total"
check_py "all(abs(j['error'][l]['percent']) < 3 for l in ('static','largest','buckets','draft','total'))" "each layer within 3%"
check_py "set(j['error']['static']) == {'bytes','gib','percent'}" "error fields"
check_py "j['calibration_excluded'] is None and j['reconstructed'] is True" "usable for calibration"
check_py "j['groups'][0]['kind'] == 'target verify' and j['groups'][0]['target'] and j['groups'][1]['role'] == 'draft'" "groups"
check_py "j['groups'][0]['rank'] == 'TP0' and j['groups'][0]['rank_label'] == 'DP0 TP0 EP0' and j['ranks'][0]['rank'] == 'TP0'" "runs show: a rank is TPn from its tags"
expect_exit 0 "$CGPLAN" runs show 1 --db "$DB" --format json
check_py "j['measured']['total_gib'] == 8.16 and j['measured']['draft_gib'] == 0.56 and j['knobs']['max_dispatch'] == {'value': 144, 'origin': 'env'}" "DP16 run"
expect_exit 0 "$CGPLAN" runs show 2 --db "$DB"
contains "$OUT" "measured GiB" "show table header"
contains "$OUT" "max_dispatch 128 (env)" "show table origin"
contains "$OUT" "10.24" "show table largest"

# --- a new copy of the log (one more line) is a new run; the log wins over --preset/--set
sed '1i # a copy' "$DP2" > "$TEST_TMP/copy.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp16 --set max_dispatch=200 --label "copy" "$TEST_TMP/copy.log"
contains "$OUT" "stored run 3" "copy stored"
expect_exit 0 "$CGPLAN" runs show 3 --db "$DB" --format json
check_py "j['knobs']['dp']['value'] == 2 and j['knobs']['max_dispatch'] == {'value': 128, 'origin': 'env'}" "log wins over preset and --set"
check_py "j['knobs']['gpu']['origin'] == 'preset' and j['label'] == 'copy' and j['preset'] == 'k3-dp16'" "preset fills the GPU"
grep -v '^SGLANG_DEEPEP' "$TEST_TMP/copy.log" | sed '1s/.*/# another copy/' > "$TEST_TMP/noenv.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --set max_dispatch=200 --set gpu=h200 --format json "$TEST_TMP/noenv.log"
check_py "len(j['runs']) == 1 and j['runs'][0]['gpu'] == 'h200' and j['runs'][0]['already_stored'] is False" "ingest json"
ID=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_py "j['knobs']['max_dispatch'] == {'value': 200, 'origin': 'set'} and j['knobs']['gpu'] == {'value': 'h200', 'origin': 'set'}" "--set fills what the log lacks"

# --- dry run: CLI.md's object, nothing stored, no database created
expect_exit 0 "$CGPLAN" ingest --dry-run --format json --db "$TEST_TMP/none/runs.db" "$DP2"
[ ! -e "$TEST_TMP/none" ] && pass || fail "dry run created a database"
check_py "len(j['runs']) == 1 and j['runs'][0]['source'] == 'k3-dp2-dcp8-b200-article.log' and j['runs'][0]['first_line'] == 1" "dry-run run"
check_py "j['runs'][0]['model'] == 'kimi-k3'" "dry-run model matched by hf_names"
check_py "j['runs'][0]['server_args']['tp_size'] == 16 and j['runs'][0]['server_args']['dcp_size'] == 8 and j['runs'][0]['server_args']['cuda_graph_max_bs'] == 192" "server_args"
check_py "j['runs'][0]['env'] == {'SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK': '128'}" "env"
check_py "(lambda g: g['kind'] == 'target verify' and g['role'] == 'target' and g['phase'] == 'verify' and g['step'] is None)(j['runs'][0]['groups'][0])" "group kind/role/phase"
check_py "j['runs'][0]['groups'][0]['rank'] == 'TP0' and j['runs'][0]['ranks'][0]['rank'] == 'TP0' and j['runs'][0]['groups'][0]['rank_label'] == 'DP0 TP0 EP0'" "ranks named as CLI.md (TP0)"
check_py "(lambda b: b['bs'] == 192 and b['avail_gib'] == 21.00)(j['runs'][0]['groups'][0]['bars'][0])" "first bar"
check_py "j['runs'][0]['groups'][0]['bs'][:2] == [192, 184] and j['runs'][0]['groups'][0]['tokens_per_req'] == 5" "bs list"
check_py "j['runs'][0]['groups'][0]['layers'] == {'static_gib': 1.33, 'largest_gib': 10.24, 'buckets_gib': 1.35, 'total_gib': 12.92}" "layers"
check_py "j['runs'][0]['ranks'][0]['kv_gib'] == 34.60 and j['runs'][0]['ranks'][0]['kv_tokens'] == 1343488 and j['runs'][0]['ranks'][0]['pool_avail_gib'] == 22.45" "ranks"
expect_exit 0 "$CGPLAN" ingest --dry-run "$DP2"
contains "$OUT" "would store run" "dry-run table"

# --- a log without rank tags: its rank is "", in the dry run and in runs show
L20="$LOGS/20-2026-08-ling3-tiny-newest-format-capture-target-decode-to-ready.log"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$L20"
check_py "j['runs'][0]['groups'][0]['rank'] == '' and j['runs'][0]['ranks'][0]['rank'] == ''" "untagged rank is ''"
check_py "j['runs'][0]['groups'][0]['layers']['buckets_gib'] is None and 'empty_cache' in j['runs'][0]['groups'][0]['note'] and j['runs'][0]['groups'][0]['layers']['total_gib'] == 0.45" "end after empty_cache: buckets null with the reason, total begin - end"
check_py "j['runs'][0]['architecture'] == 'BailingMoeV3ForCausalLM'" "architecture read"
# a model_path no hf_names knows: the architecture class names the model when one preset alone has
# it (Qwen3-Next's; the QwQ log's Qwen2ForCausalLM is shared by QwQ, Qwen2.5 and R1-Distill-Qwen)
L15="$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$L15"
check_py "j['runs'][0]['architecture'] == 'Qwen2ForCausalLM' and j['runs'][0]['model'] is None" "a shared class names no model"
sed 's/Qwen2ForCausalLM/Qwen3NextForCausalLM/g' "$L15" > "$TEST_TMP/next.log"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$TEST_TMP/next.log"
check_py "j['runs'][0]['architecture'] == 'Qwen3NextForCausalLM' and j['runs'][0]['model'] == 'qwen3-next-80b-a3b'" "model from the architecture class"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$LOGS/17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log"
check_py "j['runs'][0]['architecture'] == 'DeepseekV3ForCausalLM' and j['runs'][0]['model'] is None" "a class several presets share names no model"
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/l20.db" --format json "$L20"
L20_ID=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_exit 0 "$CGPLAN" runs show "$L20_ID" --db "$TEST_TMP/l20.db" --format json
check_py "j['groups'][0]['rank'] == '' and j['groups'][0]['buckets_gib'] is None and j['measured']['buckets_gib'] is None" "runs show: untagged rank '', no negative layer"

# --- a log cut mid-line is stored up to its last whole line
head -c 3000 "$DP2" > "$TEST_TMP/cut.log"
expect_exit 0 "$CGPLAN" ingest --dry-run --format json "$TEST_TMP/cut.log"
check_py "len(j['runs'][0]['groups'][0]['bars']) == $(head -c 3000 "$DP2" | grep -c '^Capturing batches') - 1" "cut: partial last bar ignored"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --set gpu=b200 "$TEST_TMP/cut.log"
contains "$OUT" "stored run" "cut log stored"

# --- GPU inferred from Load weight begin (78.81 GiB free: an H100), and a GPU that stays unknown
expect_exit 0 "$CGPLAN" ingest --db "$DB" --format json "$L27"
check_py "j['runs'][0]['gpu'] == 'h100' and j['runs'][0]['gpu_inferred'] is True" "h100 inferred"
sed '1i # no preset, no GPU' "$DP16" > "$TEST_TMP/nogpu.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --format json "$TEST_TMP/nogpu.log"
check_py "j['runs'][0]['gpu'] is None and 'GPU unknown' in j['runs'][0]['calibration_excluded']" "GPU unknown, left out of calibration"
U=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
check_py "[r for r in j['runs'] if r['id'] == $U][0]['gpu'] is None" "unknown GPU listed"
check_py "[r for r in j['runs'] if r['gpu'] == 'h100'][0]['gpu_inferred'] is True" "inferred GPU listed"
expect_exit 0 "$CGPLAN" runs list --db "$DB"
contains "$OUT" "h100 (inferred)" "table marks inferred"
expect_exit 0 "$CGPLAN" runs show "$U" --db "$DB"
contains "$OUT" "GPU unknown" "show says why it is left out"
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format csv
contains "$OUT" "id,label,source,model,gpu" "csv header"

# --- bad input: one line naming the file, exit 1, nothing stored
BEFORE=$(runs_count "$DB")
: > "$TEST_TMP/empty.log"
head -c 4096 /dev/urandom > "$TEST_TMP/binary.log"
printf 'INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\nINFO 05-01 10:00:05 [gpu_model_runner.py:1686] Graph capturing finished in 6 secs, took 0.45 GiB\nINFO 05-01 10:00:06 [core.py:159] init engine (profile, create kv cache, warmup model) took 21.55 seconds\n' > "$TEST_TMP/vllm.log"
mkdir -p "$TEST_TMP/adir"
for bad in "$TEST_TMP/empty.log" "$TEST_TMP/binary.log" "$TEST_TMP/vllm.log" "$TEST_TMP/adir" "$TEST_TMP/missing.log"; do
  expect_exit 1 "$CGPLAN" ingest --db "$DB" "$bad"
  one_line "$ERR" "$bad: one line"
  contains "$ERR" "cgplan: $bad" "$bad: names the file"
  expect_exit 1 "$CGPLAN" ingest --dry-run "$bad"
done
[ "$(runs_count "$DB")" = "$BEFORE" ] && pass || fail "bad input stored something"
# one bad file among good ones: the good ones are stored, exit 1
sed '1i # third copy' "$DP16" > "$TEST_TMP/third.log"
expect_exit 1 "$CGPLAN" ingest --db "$DB" "$TEST_TMP/missing.log" "$TEST_TMP/third.log"
contains "$OUT" "stored run" "good file after a bad one"
[ "$(runs_count "$DB")" = "$((BEFORE + 1))" ] && pass || fail "good file not stored"

# --- usage errors: exit 2
expect_exit 2 "$CGPLAN" ingest --db "$DB"
expect_exit 2 "$CGPLAN" ingest --db "$DB" --set nonsense=1 "$DP2"
expect_exit 2 "$CGPLAN" ingest --db "$DB" --bogus "$DP2"
expect_exit 2 "$CGPLAN" ingest --db "$DB" --preset no-such-preset "$DP2"
expect_exit 2 "$CGPLAN" runs frobnicate --db "$DB"
expect_exit 2 "$CGPLAN" runs show abc --db "$DB"
expect_exit 2 "$CGPLAN" runs show --db "$DB"

# --- runs rm
expect_exit 2 "$CGPLAN" runs rm 3 --db "$DB" </dev/null   # no terminal and no --yes: refused (issue 9)
contains "$ERR" "add --yes" "runs rm without a terminal names --yes"
expect_exit 0 "$CGPLAN" runs rm 3 --db "$DB" --yes
contains "$OUT" "removed run 3" "rm"
expect_exit 1 "$CGPLAN" runs show 3 --db "$DB"
one_line "$ERR" "show of a removed run"
expect_exit 1 "$CGPLAN" runs rm 3 --db "$DB" --yes
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs WHERE id = 3')" = 0 ] && pass || fail "rm left the run behind"

# --- a corrupt or foreign database is reported and left byte-identical
head -c 65536 /dev/urandom > "$TEST_TMP/random.db"
cp "$TEST_TMP/random.db" "$TEST_TMP/random.orig"
"$CGPLAN" runs list --db "$TEST_TMP/real.db" > /dev/null
head -c 8192 "$TEST_TMP/real.db" > "$TEST_TMP/truncated.db"
cp "$TEST_TMP/truncated.db" "$TEST_TMP/truncated.orig"
sqlite3 "$TEST_TMP/other.db" "CREATE TABLE notes (text); INSERT INTO notes VALUES ('mine')"
cp "$TEST_TMP/other.db" "$TEST_TMP/other.orig"
for db in random truncated other; do
  expect_exit 1 "$CGPLAN" ingest --db "$TEST_TMP/$db.db" "$L27"
  one_line "$ERR" "$db db: one line"
  contains "$ERR" "$TEST_TMP/$db.db" "$db db: names the path"
  expect_exit 1 "$CGPLAN" runs list --db "$TEST_TMP/$db.db"
  cmp -s "$TEST_TMP/$db.db" "$TEST_TMP/$db.orig" && pass || fail "$db db was modified"
  [ ! -e "$TEST_TMP/$db.db-wal" ] && pass || fail "$db db got a -wal file"
done
contains "$ERR" "not a cgplan store" "foreign database message"
# a store from a newer cgplan is refused, naming both versions
"$CGPLAN" runs list --db "$TEST_TMP/newer.db" > /dev/null
sqlite3 "$TEST_TMP/newer.db" "PRAGMA user_version = 99"
expect_exit 1 "$CGPLAN" runs list --db "$TEST_TMP/newer.db"
contains "$ERR" "99" "newer version named"

# --- a read-only database: exit 1, data intact (as an unprivileged user when run as root)
mkdir -p "$TEST_TMP/ro"
"$CGPLAN" ingest --db "$TEST_TMP/ro/runs.db" "$L27" > /dev/null
cp "$TEST_TMP/ro/runs.db" "$TEST_TMP/ro.orig"
chmod 444 "$TEST_TMP/ro/runs.db"; chmod 555 "$TEST_TMP/ro"; chmod 755 "$TEST_TMP"
AS=()
if [ "$(id -u)" = 0 ]; then AS=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
expect_exit 1 "${AS[@]}" "$CGPLAN" ingest --db "$TEST_TMP/ro/runs.db" "$TEST_TMP/third.log"
one_line "$ERR" "read-only: one line"
contains "$ERR" "read-only" "read-only message"
expect_exit 0 "${AS[@]}" "$CGPLAN" runs list --db "$TEST_TMP/ro/runs.db" --format json
check_py "len(j['runs']) == 3" "read-only store still lists"
cmp -s "$TEST_TMP/ro/runs.db" "$TEST_TMP/ro.orig" && pass || fail "read-only db modified"
chmod 755 "$TEST_TMP/ro"; chmod 644 "$TEST_TMP/ro/runs.db"

# --- two ingests at the same time both succeed
for n in 1 2 3 4; do sed "1i # parallel $n" "$DP16" > "$TEST_TMP/par$n.log"; done
PAR="$TEST_TMP/par.db"
"$CGPLAN" runs list --db "$PAR" > /dev/null
pids=()
for n in 1 2 3 4; do "$CGPLAN" ingest --db "$PAR" "$TEST_TMP/par$n.log" > "$TEST_TMP/par$n.out" 2>&1 & pids+=($!); done
for p in "${pids[@]}"; do if wait "$p"; then pass; else fail "a parallel ingest failed: $(cat "$TEST_TMP"/par*.out)"; fi; done
[ "$(runs_count "$PAR")" = 6 ] && pass || fail "parallel ingests: $(runs_count "$PAR") runs, want 6"

# --- killing an ingest midway leaves exactly the runs there were
BIG="$TEST_TMP/big.log"
python3 -c "
import sys
d = open(sys.argv[1], 'rb').read()
with open(sys.argv[2], 'wb') as f:
    for i in range(120000): f.write(d)
" "$DP2" "$BIG"
KDB="$TEST_TMP/kill.db"
"$CGPLAN" ingest --db "$KDB" "$L27" > /dev/null
"$CGPLAN" runs list --db "$KDB" --format json > "$TEST_TMP/before.json"
"$CGPLAN" ingest --db "$KDB" "$BIG" > /dev/null 2>&1 &
KP=$!
sleep 0.5 # well inside the parse (780 MB: over a second here), long before the commit
if kill -9 "$KP" 2>/dev/null; then pass; else fail "the big ingest finished before the kill: make the log bigger"; fi
wait "$KP" 2>/dev/null || true
"$CGPLAN" runs list --db "$KDB" --format json > "$TEST_TMP/after.json"
cmp -s "$TEST_TMP/before.json" "$TEST_TMP/after.json" && pass || fail "killed ingest changed the runs"
[ "$(sqlite3 "$KDB" 'PRAGMA integrity_check')" = ok ] && pass || fail "integrity_check after kill"
[ "$(sqlite3 "$KDB" 'SELECT count(*) FROM measured_terms WHERE run_id NOT IN (SELECT id FROM runs)')" = 0 ] && pass || fail "orphan measured terms"
# and the store still takes new runs
expect_exit 0 "$CGPLAN" ingest --db "$KDB" "$TEST_TMP/third.log"

# A run whose model the log does not name (issue 10): stored, listed as unusable with the fix
# that works; --model names it at ingest, runs set-model afterwards. Exit 0 either way.
MDB="$TEST_TMP/model.db"
QWQ="$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log"
expect_exit 0 "$CGPLAN" ingest --db "$MDB" "$QWQ" "$LOGS/03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log"
contains "$OUT" "not usable for calibration: model unknown" "each unusable run listed"
contains "$OUT" "cgplan model import config.json" "the fix: import the model"
contains "$OUT" "runs set-model ID MODEL" "the fix: set-model"
# The QwQ log comes from a g6.12xlarge (4x L4, says its source): its 21.63 GiB free infers the l4
# preset; its Qwen2ForCausalLM is shared by several presets, so its model is not inferred and both
# runs are unusable until the model is named.
contains "$OUT" "model ? · l4 (inferred)" "the L4 inferred from the QwQ log's free memory"
[ "$(printf '%s\n' "$OUT" | grep -c 'not usable for calibration')" -eq 2 ] && pass || fail "both model-less runs said unusable"
# the fix once: a later run with the same reason says only the reason
expect_exit 0 "$CGPLAN" ingest --dry-run "$LOGS/02-tp8-tqdm-newline-per-bs-avail.log" "$LOGS/03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log"
[ "$(printf '%s\n' "$OUT" | grep -c 'runs set-model ID MODEL')" -eq 1 ] && pass || fail "the fix said once"
contains "$OUT" "not usable for calibration: model unknown (as above)" "the second run: the reason, the fix above"
expect_exit 0 "$CGPLAN" ingest --db "$MDB" "$QWQ"
contains "$OUT" "already stored as run" "re-ingest: already stored, exit 0"
ID=$(sqlite3 "$MDB" "SELECT id FROM runs WHERE source LIKE '15-%'")
expect_exit 0 "$CGPLAN" runs set-model "$ID" deepseek-v3 --db "$MDB"
contains "$OUT" "model deepseek-v3" "set-model says what it set"
expect_exit 0 "$CGPLAN" runs show "$ID" --db "$MDB" --format json
check_py "j['model'] == 'deepseek-v3'" "the run has the model now"
expect_exit 0 "$CGPLAN" runs set-model "$ID" deepseek-ai/DeepSeek-V3 --db "$MDB"
expect_exit 2 "$CGPLAN" runs set-model "$ID" no-such-model --db "$MDB"
contains "$ERR" "model import" "unknown model: the fix"
expect_exit 1 "$CGPLAN" runs set-model 999 deepseek-v3 --db "$MDB"
expect_exit 2 "$CGPLAN" runs set-model "$ID" --db "$MDB"
# --model at ingest: a preset name or an HF id; a config.json is imported first
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/model2.db" --model deepseek-v3 --set gpu=h200 --format json "$QWQ"
check_py "j['runs'][0]['model'] == 'deepseek-v3' and j['runs'][0]['calibration_excluded'].startswith('max_bs unknown')" \
  "--model names the run; its 13 graphs give no max_bs without the release"
expect_exit 0 "$CGPLAN" ingest --dry-run --model moonshotai/Kimi-K3 --format json "$QWQ"
check_py "j['runs'][0]['model'] == 'kimi-k3'" "--model takes an HF id"
expect_exit 2 "$CGPLAN" ingest --db "$TEST_TMP/model3.db" --model config.json "$QWQ"
contains "$ERR" "cgplan model import config.json" "config.json: import it first"
expect_exit 2 "$CGPLAN" ingest --db "$TEST_TMP/model3.db" --model nope "$QWQ"

# --- the report after the commit is what the store holds: every fixture, with a GPU set for some
# and inferred or unknown for others (it is printed from the runs as derived, not read back)
RDB="$TEST_TMP/report.db"
expect_exit 0 "$CGPLAN" ingest --db "$RDB" --format json "$LOGS"/*.log
printf '%s' "$OUT" > "$TEST_TMP/report.json"
expect_exit 0 "$CGPLAN" runs list --db "$RDB" --format json
printf '%s' "$OUT" > "$TEST_TMP/stored.json"
python3 - "$TEST_TMP/report.json" "$TEST_TMP/stored.json" <<'PY' && pass || fail "ingest's report differs from the stored runs"
import json, sys
report = json.load(open(sys.argv[1]))["runs"]
stored = {r["id"]: r for r in json.load(open(sys.argv[2]))["runs"]}
keys = ("model", "gpu", "gpu_inferred", "target_total_gib", "draft_gib", "total_gib", "calibration_excluded")
fresh = [r for r in report if not r["already_stored"]]
assert len(fresh) == len(stored) - 2 and len(fresh) >= 15, (len(fresh), len(stored))
assert any(r["gpu"] is None for r in fresh) and any(r["gpu_inferred"] for r in fresh)
for r in fresh:
    s = stored[r["id"]]
    bad = [k for k in keys if r[k] != s[k]]
    assert s["source"] == r["source"] and not bad, (r, s, bad)
PY
# the table's line of a stored run is the dry run's, with its id (the article's logs are the seed's)
NEW_LOGS=()
for f in "$LOGS"/*.log; do case "$f" in *-article.log) ;; *) NEW_LOGS+=("$f") ;; esac; done
expect_exit 0 "$CGPLAN" ingest --dry-run --set gpu=h200 "${NEW_LOGS[@]}"
printf '%s\n' "$OUT" | sed 's/^would store run:/run:/' > "$TEST_TMP/dry.txt"
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/report2.db" --set gpu=h200 "${NEW_LOGS[@]}"
printf '%s\n' "$OUT" | sed 's/^stored run [0-9]*:/run:/' > "$TEST_TMP/stored.txt"
[ "$(grep -c '^run:' "$TEST_TMP/stored.txt")" -ge 15 ] && cmp -s "$TEST_TMP/dry.txt" "$TEST_TMP/stored.txt" && pass ||
  fail "stored lines differ from the dry run's: $(diff "$TEST_TMP/dry.txt" "$TEST_TMP/stored.txt" | head -5)"
IDS=$(printf '%s\n' "$OUT" | sed -n 's/^stored run \([0-9]*\):.*/\1/p' | tr '\n' ' ')
[ "$IDS" = "$(sqlite3 "$TEST_TMP/report2.db" "SELECT group_concat(id, ' ') || ' ' FROM (SELECT id FROM runs WHERE id > 2 ORDER BY id)")" ] && pass ||
  fail "stored ids printed: $IDS"

# A log cut short while it is read (truncated; rotated by copytruncate): its mapped pages past the
# new end raise SIGBUS, which must end in a message and exit 1 with nothing stored, never a crash.
# The cut comes once the file shows in the ingest's mappings (it is being read then); racy all the
# same (the last window may be done already): up to ten tries each way, one cut mid-read is
# enough, no try may crash, and a try that reports the cut stores nothing.
python3 - "$LOGS" "$TEST_TMP/long.log" <<'PY'
import glob, os, sys
block = b"".join(open(p, "rb").read() for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.log"))))
with open(sys.argv[2], "wb") as f:
    for n in range(max(1, (128 << 20) // len(block))):
        f.write(b"# stretch %d\n" % n + block)
PY
SDB="$TEST_TMP/shrink.db"
expect_exit 0 "$CGPLAN" runs list --db "$SDB"
for mode in dry store; do
  cut=0 crashed=0 stored=0
  for try in 1 2 3 4 5 6 7 8 9 10; do
    cp "$TEST_TMP/long.log" "$TEST_TMP/cut.log"
    if [ $mode = dry ]; then args=(--dry-run); else args=(--db "$SDB"); fi
    before=$(runs_count "$SDB")
    "$CGPLAN" ingest "${args[@]}" "$TEST_TMP/cut.log" > /dev/null 2> "$TEST_TMP/cut.err" &
    pid=$!
    for i in $(seq 3000); do
      grep -q cut.log "/proc/$pid/maps" 2> /dev/null && break
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.001
    done
    truncate -s 100000 "$TEST_TMP/cut.log"
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" -le 1 ] || crashed=$rc
    if grep -q "became shorter while it was read" "$TEST_TMP/cut.err"; then
      [ "$(runs_count "$SDB")" = "$before" ] || stored=1
      cut=1
      break
    fi
  done
  [ "$crashed" = 0 ] && pass || fail "$mode: a log cut short while read ended with exit $crashed"
  [ "$cut" = 1 ] && pass || fail "$mode: no cut landed mid-read in ten tries"
  [ "$stored" = 0 ] && pass || fail "$mode: an ingest that reported the cut stored runs"
done
contains "$(cat "$TEST_TMP/cut.err")" "nothing of it was stored: ingest it again" "a cut store ingest: the fix"

# the dry run's line says what its JSON's layers say (bars bound the largest bucket, no end line),
# and its JSON carries the knobs a stored run would hold, inferred ones marked
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/dry.db" --dry-run "$LOGS/03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log"
contains "$OUT" "max_bs 32 · largest bucket 5.69 GiB, total unknown" "the dry run's summary: the largest bucket"
expect_exit 0 "$CGPLAN" ingest --db "$TEST_TMP/dry.db" --dry-run --format json --set sglang=0.4.6 "$QWQ"
check_py "j['runs'][0]['derived']['knobs']['world'] == {'value': 4, 'origin': 'inferred'} and j['runs'][0]['derived']['knobs']['max_bs'] == {'value': 80, 'origin': 'inferred'} and j['runs'][0]['derived']['total_gib'] == 0.92" \
  "the dry run's JSON: the derived knobs and layers"
[ ! -e "$TEST_TMP/dry.db" ] && pass || fail "a dry run created the store"

finish
