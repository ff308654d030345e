#!/usr/bin/env bash
# cgplan calibrate: fitting the estimator's non-exact terms from stored runs (issues 3, 10 and 18).
source "$CGPLAN_TESTLIB"
set -e
DB="$TEST_TMP/runs.db"

# Both K3 fixtures with their presets: a fresh store already holds them (the seed), so the
# ingest reports them as stored; calibrating over both mixes two layouts and reproduces
# MODEL.md's default K3 coefficients within 5%.
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp16 "$LOGS/k3-dp16-b200-article.log"
contains "$OUT" "already stored as run" "seeded DP16 run"
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-article.log"
contains "$OUT" "already stored as run" "seeded DP2 run"

# --dry-run: the same report, nothing stored.
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --dry-run
contains "$OUT" "dry run: nothing stored" "dry run says so"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB"
contains "$OUT" "no calibration stored" "dry run stored nothing"

expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16
contains "$OUT" "pooled 2 layouts" "table says it pooled two layouts"
contains "$OUT" "DP16 MTP6" "names the DP16 layout"
contains "$OUT" "DP2xDCP8 MTP5" "names the DP2 layout"
contains "$OUT" "residuals" "prints residuals"
contains "$OUT" "sglang main@" "names the release pooled"

expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format json --dry-run
# lazy: the article's 0.739 GiB less DeepEP's normal-mode buffer (212,523,264 B), now its own term.
defaults="dict(act_bytes_per_row=4.66*2**20, lazy_bytes=0.5415*2**30, graph_bytes=50.3*2**20, out_bytes_per_row=25.7*1024, draft_base_bytes=0.475*2**30, draft_bytes_per_row=0.602*2**20)"
check_py "all(abs(j['calibrations'][0]['coefficients'][k]['after_bytes'] - v) <= 0.05 * v for k, v in $defaults.items())" "within 5% of MODEL.md's K3 defaults"
check_py "j['calibrations'][0]['mixed_layouts'] is True and sorted(j['calibrations'][0]['runs']) == [1, 2]" "two runs, mixed"
check_py "all(j['calibrations'][0]['coefficients'][k]['fit'] == 'fitted' for k in $defaults)" "slopes fitted"
check_py "j['calibrations'][0]['coefficients']['static_bytes']['fit'] == 'refused' and 'refused' in j['calibrations'][0]['coefficients']['static_bytes']['note']" "negative static intercept refused"
check_py "abs(j['calibrations'][0]['residuals'][0]['largest_bytes']) < 2**20" "residual ~0 with two points"
check_py "j['calibrations'][0]['stored'] is False and j['dry_run'] is True" "dry run in JSON"

# From then on estimate uses it, marking the fitted terms calibrated with the run ids.
expect_exit 0 "$CGPLAN" estimate --db "$DB" --preset k3-dp16 --format json
check_py "[t['source'] for t in j['terms'] if t['id'] in ('lazy.other','act.attention','buckets','draft')] == ['calibrated']*4" "terms marked calibrated"
check_py "sorted([t for t in j['terms'] if t['id']=='act.attention'][0]['runs']) == [1, 2]" "calibrated terms name the runs"
check_py "[t['source'] for t in j['terms'] if t['id']=='moe.deepep'] == ['exact']" "exact terms stay exact"
check_py "abs(j['total_bytes']/2**30 - 8.16) <= 0.03*8.16" "total still reproduces"
expect_exit 0 "$CGPLAN" estimate --db "$DB" --preset k3-dp16
contains "$OUT" "calibrated terms use the fit of runs" "table names the runs"
# another GPU has no calibration
expect_exit 0 "$CGPLAN" estimate --db "$DB" --preset k3-dp16 --set gpu=h200 --format json
check_py "[t['source'] for t in j['terms'] if t['id']=='lazy.other'] == ['coefficient']" "no calibration for h200"
# another release has none either
expect_exit 0 "$CGPLAN" estimate --db "$DB" --preset k3-dp16 --set sglang=0.5.3 --format json
check_py "[t['source'] for t in j['terms'] if t['id']=='lazy.other'] == ['coefficient']" "no calibration for another release"

# list, then --reset undoes it.
expect_exit 0 "$CGPLAN" calibrate list --db "$DB" --format json
check_py "len(j['calibrations']) == 1 and j['calibrations'][0]['model'] == 'kimi-k3' and j['calibrations'][0]['current']" "list shows it"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB"
contains "$OUT" "kimi-k3" "list table"
expect_exit 1 "$CGPLAN" calibrate --reset kimi-k3 h200 --db "$DB"
contains "$ERR" "no calibration of kimi-k3 on h200" "reset of nothing says so"
expect_exit 0 "$CGPLAN" calibrate --reset kimi-k3 b200 --db "$DB"
contains "$OUT" "removed 1 calibration" "reset removes it"
expect_exit 0 "$CGPLAN" estimate --db "$DB" --preset k3-dp16 --format json
check_py "[t['source'] for t in j['terms'] if t['id']=='lazy.other'] == ['coefficient']" "after reset: the preset's coefficients"
expect_exit 2 "$CGPLAN" calibrate --reset kimi-k3 --db "$DB"
expect_exit 2 "$CGPLAN" calibrate --reset kimi-k3 b200 nonsense --db "$DB"

# One run: only intercepts, and the output says why.
expect_exit 0 "$CGPLAN" runs rm 2 --db "$DB" --yes
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format json
check_py "j['calibrations'][0]['coefficients']['lazy_bytes']['fit'] == 'fitted'" "intercept fitted"
check_py "j['calibrations'][0]['coefficients']['act_bytes_per_row']['fit'] == 'held' and 'one run' in j['calibrations'][0]['coefficients']['act_bytes_per_row']['note']" "slope held: one run"
check_py "j['calibrations'][0]['coefficients']['act_bytes_per_row']['after_bytes'] == j['calibrations'][0]['coefficients']['act_bytes_per_row']['before_bytes']" "slope kept"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16
contains "$OUT" "one run" "table says one run"
contains "$OUT" "one layout: DP16 MTP6" "one layout"

# A run whose GPU stays unknown, and one whose model is unknown, are stored, shown, and skipped
# with the reason; the pools that can be fitted still are (exit 0).
printf '[2026-08-19 21:40:02] server_args=ServerArgs(model_path='"'"'moonshotai/Kimi-K3'"'"', tp_size=16, dp_size=16, enable_dp_attention=True, dcp_size=1, speculative_num_draft_tokens=6, context_length=1048576)\n' > "$TEST_TMP/nogpu.log"
grep -v server_args "$LOGS/k3-dp16-b200-article.log" | sed 's/avail mem=14.09/avail mem=14.19/' >> "$TEST_TMP/nogpu.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" "$TEST_TMP/nogpu.log"
# (fixture 17 names DeepseekV3ForCausalLM, a class DeepSeek-V3 and the Kimi K2 presets share: no
# model; fixture 15's Qwen2ForCausalLM is QwQ-32B's alone, so it names its model now)
expect_exit 0 "$CGPLAN" ingest --db "$DB" "$LOGS/17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log"
contains "$OUT" "cgplan model import config.json" "unknown model: the fix that works"
contains "$OUT" "runs set-model" "unknown model: set-model"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --format json
check_py "any('GPU unknown' in x['reason'] for x in j['skipped'])" "unknown GPU skipped with the reason"
check_py "any('model unknown' in x['reason'] and 'set-model' in x['reason'] for x in j['skipped'])" "unknown model skipped with the fix"
check_py "[c['model'] for c in j['calibrations']] == ['kimi-k3'] and j['calibrations'][0]['stored']" "the fittable pool is stored"
expect_exit 0 "$CGPLAN" calibrate --db "$DB"
contains "$OUT" "skipped run" "table says what it skipped"
expect_exit 0 "$CGPLAN" calibrate list --db "$DB" --format json
check_py "all(c['model'] == 'kimi-k3' for c in j['calibrations'])" "nothing stored it did not fit"

# The article's method 2: two logs of one deployment that differ only in max_bs (128 and 176,
# made from the article's DP2 log: INDEX.md) predict a third (160) within 5% on the fitted layers.
P="$TEST_TMP/pair.db"
expect_exit 0 "$CGPLAN" runs rm 1 --db "$P" --yes
expect_exit 0 "$CGPLAN" runs rm 2 --db "$P" --yes
expect_exit 0 "$CGPLAN" ingest --db "$P" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs128.log" "$LOGS/k3-dp2-dcp8-b200-maxbs176.log"
expect_exit 0 "$CGPLAN" calibrate --db "$P"
contains "$OUT" "differ only in max_bs: the article's method 2, the cleanest slope" "method 2 said so"
expect_exit 0 "$CGPLAN" calibrate --db "$P" --format json --dry-run
check_py "sorted(j['calibrations'][0]['method2_runs']) == [3, 4] and j['calibrations'][0]['coefficients']['act_bytes_per_row']['method2']" "method-2 runs named"
check_py "abs(j['calibrations'][0]['coefficients']['act_bytes_per_row']['after_bytes'] / 4884109 - 1.10) < 0.02" "finds the fixtures' per-row slope (+10%)"
expect_exit 0 "$CGPLAN" ingest --db "$P" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs160.log"
expect_exit 0 "$CGPLAN" runs show 5 --db "$P" --format json
check_py "j['estimate']['calibrated'] and all(abs(j['error'][l]['percent']) <= 5 for l in ('largest', 'buckets', 'draft', 'total'))" "third max_bs within 5% on the fitted layers"
expect_exit 0 "$CGPLAN" estimate --db "$P" --preset k3-dp2-dcp8 --set max_bs=160 --format json
check_py "abs(sum(t['bytes'] for t in j['terms'] if t['layer'] == 'largest')/2**30 - 9.44) <= 0.05*9.44" "estimate at max_bs 160 too"

# Totals only (the end lines, no bars): three max_bs of one deployment calibrate, and each fitted
# run's total lands within 3% of what it measured (runs show).
T="$TEST_TMP/totals.db"
expect_exit 0 "$CGPLAN" runs rm 1 --db "$T" --yes
expect_exit 0 "$CGPLAN" runs rm 2 --db "$T" --yes
expect_exit 0 "$CGPLAN" ingest --db "$T" --preset k3-dp2-dcp8 "$LOGS/k3-dp2-dcp8-b200-maxbs128-totals.log" "$LOGS/k3-dp2-dcp8-b200-maxbs160-totals.log" "$LOGS/k3-dp2-dcp8-b200-maxbs176-totals.log"
expect_exit 0 "$CGPLAN" calibrate --db "$T" --format json
check_py "j['calibrations'][0]['stored'] and 'totals' in j['calibrations'][0]['coefficients']['lazy_bytes']['note']" "totals give the intercept"
check_py "j['calibrations'][0]['coefficients']['static_bytes']['fit'] == 'held'" "totals do not part static from lazy"
check_py "all(r['loo_total_bytes'] is not None for r in j['calibrations'][0]['residuals'])" "leave-one-out with three runs"
for id in 3 4 5; do
  expect_exit 0 "$CGPLAN" runs show $id --db "$T" --format json
  check_py "j['estimate']['calibrated'] and abs(j['error']['total']['percent']) <= 3" "totals-only run $id within 3%"
done

# A pool with nothing to fit stores nothing and says what data would make it possible.
N="$TEST_TMP/nothing.db"
printf '[2026-08-19 21:40:02] server_args=ServerArgs(model_path='"'"'moonshotai/Kimi-K3'"'"', tp_size=16, dp_size=16, enable_dp_attention=True, speculative_num_draft_tokens=6)\n[2026-08-19 21:47:38 DP0 TP0 EP0] Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=6, bs=[1, 2, 4, 8, 16, 24], avail mem=14.09 GB\n' > "$TEST_TMP/nomem.log"
expect_exit 0 "$CGPLAN" ingest --db "$N" --preset k3-dp16 --set gpu=h200 "$TEST_TMP/nomem.log"
expect_exit 1 "$CGPLAN" calibrate --db "$N" --preset k3-dp16 --set gpu=h200
contains "$ERR" "nothing fitted, nothing stored" "says nothing was stored"

# node_bytes belongs to the GPU (issue 18): runs of two graph counts on one GPU (the max_bs
# variants of the article's DP2 log, here on h200) fit it, and a plan of any other model on that
# GPU then prices its kernel nodes at it and says so.
G="$TEST_TMP/gpu.db"
expect_exit 0 "$CGPLAN" ingest --db "$G" --preset k3-dp2-dcp8 --set gpu=h200 "$LOGS/k3-dp2-dcp8-b200-maxbs128.log"
# one run of one graph count: nothing fitted for the GPU, and the data that would make it possible
expect_exit 0 "$CGPLAN" calibrate --db "$G" --preset k3-dp2-dcp8 --set gpu=h200 --format json --dry-run
check_py "len(j['node_bytes']) == 1 and j['node_bytes'][0]['gpu'] == 'h200' and j['node_bytes'][0]['fitted'] is False" "one run: node_bytes not fitted"
check_py "'two graph counts or two models' in j['node_bytes'][0]['advice'] and '--cuda-graph-max-bs' in j['node_bytes'][0]['advice']" "one run: the advice names the data"
expect_exit 0 "$CGPLAN" ingest --db "$G" --preset k3-dp2-dcp8 --set gpu=h200 "$LOGS/k3-dp2-dcp8-b200-maxbs176.log"
expect_exit 0 "$CGPLAN" calibrate --db "$G" --preset k3-dp2-dcp8 --set gpu=h200 --format json --dry-run
check_py "[n['gpu'] for n in j['node_bytes']] == ['h200'] and j['node_bytes'][0]['fitted'] and sorted(r['run'] for r in j['node_bytes'][0]['runs']) == [3, 4]" "two graph counts: node_bytes fitted from both"
check_py "j['node_bytes'][0]['node_bytes_low'] <= j['node_bytes'][0]['node_bytes'] <= j['node_bytes'][0]['node_bytes_high'] and j['node_bytes'][0]['node_bytes_low'] < j['node_bytes'][0]['node_bytes_high']" "node_bytes has a range"
check_py "j['node_bytes'][0]['models'] == ['kimi-k3'] and j['node_bytes'][0]['before_bytes'] == 17715" "its runs' models, and the default it replaces"
check_py "j['calibrations'][0]['held_node_bytes'] == j['node_bytes'][0]['node_bytes']" "the model's fit comes after it"
expect_exit 0 "$CGPLAN" calibrate --db "$G" --preset k3-dp2-dcp8 --set gpu=h200
contains "$OUT" "node_bytes of h200 (every sglang release) from 2 runs of 1 model (kimi-k3)" "the fit, its runs and models"
contains "$OUT" "one model's log improves every model on h200" "says it improves every model on the GPU"
expect_exit 0 "$CGPLAN" calibrate list --db "$G" --format json
check_py "len(j['node_bytes']) == 1 and j['node_bytes'][0]['gpu'] == 'h200' and j['node_bytes'][0]['sglang'] is None and j['node_bytes'][0]['runs'] == [4, 3]" "list: the GPU's row"
check_py "j['node_bytes'][0]['run_releases'].startswith('main@') and j['node_bytes'][0]['run_models'] == 'kimi-k3'" "list: the releases and models of its runs"
nb=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["node_bytes"][0]["node_bytes"])')
expect_exit 0 "$CGPLAN" calibrate list --db "$G"
contains "$OUT" "one model's log improves every model on that GPU" "list table says so"
contains "$OUT" "main@2026-07-20" "list table: the releases of its runs"
# another model on the same GPU: its kernel nodes at the calibration, named as the source
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h200 --format json
check_py "j['graph_nodes']['node_bytes'] == $nb and j['graph_nodes']['node_bytes_source'].startswith('calibrated from 2 runs on h200')" "another model takes the GPU's node_bytes"
check_py "j['graph_nodes']['node_bytes_runs'] == 2 and [t['source'] for t in j['terms'] if t['id'] == 'buckets'] == ['calibrated']" "its graphs marked calibrated"
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h200
contains "$OUT" "calibrated from 2 runs on h200" "the table names the calibration"
# the knob still wins; another GPU keeps its default
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h200 --set node_bytes=20000 --format json
check_py "j['graph_nodes']['node_bytes'] == 20000 and 'knob' in j['graph_nodes']['node_bytes_source']" "the knob over the calibration"
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h100 --format json
check_py "j['graph_nodes']['node_bytes_source'].startswith('empirical')" "another GPU: its default"
# a model's calibration from before node_bytes was per GPU (schema 7) is kept, still overrides the
# mechanism for its model, and the list says so
sqlite3 "$G" "INSERT INTO calibrations (model, gpu, created_at, graph_bytes, out_bytes_per_row, runs) VALUES ('qwen3-8b', 'h200', '2026-01-01T00:00:00Z', 20971520, 0, '9')"
expect_exit 0 "$CGPLAN" calibrate list --db "$G" --format json
check_py "[c['before_node_bytes'] for c in j['calibrations'] if c['model'] == 'qwen3-8b'] == [True]" "list marks the old graph_bytes"
expect_exit 0 "$CGPLAN" calibrate list --db "$G"
contains "$OUT" "fitted before node_bytes was calibrated per GPU" "list table says so"
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h200 --format json
check_py "[t['source'] for t in j['terms'] if t['id'] == 'buckets'] == ['calibrated'] and any(p['id'] == 'buckets.fit' for t in j['terms'] if t['id'] == 'buckets' for p in t['parts'])" "the old graph_bytes still prices its model's graphs"
sqlite3 "$G" "DELETE FROM calibrations WHERE model = 'qwen3-8b'"
# --reset GPU removes its node_bytes
expect_exit 2 "$CGPLAN" calibrate --reset nonsense --db "$G"
contains "$ERR" "not a GPU preset" "reset of a name that is no GPU"
expect_exit 0 "$CGPLAN" calibrate --reset h200 --db "$G"
contains "$OUT" "removed 1 node_bytes calibration of h200" "reset removes the GPU's node_bytes"
expect_exit 0 "$CGPLAN" estimate --db "$G" --model qwen3-8b --set gpu=h200 --format json
check_py "j['graph_nodes']['node_bytes'] == 17715" "after reset: the default again"
# per release where the runs separate them: each release's own runs of two graph counts fit
# apart, and a plan takes its release's node_bytes before the one over every release
R="$TEST_TMP/releases.db"
expect_exit 0 "$CGPLAN" ingest --db "$R" --preset k3-dp2-dcp8 --set gpu=h100 --set sglang=0.5.3 "$LOGS/k3-dp2-dcp8-b200-maxbs128.log" "$LOGS/k3-dp2-dcp8-b200-maxbs176.log"
expect_exit 0 "$CGPLAN" ingest --db "$R" --preset k3-dp2-dcp8 --set gpu=h100 "$LOGS/k3-dp2-dcp8-b200-maxbs128-totals.log" "$LOGS/k3-dp2-dcp8-b200-maxbs160-totals.log"
expect_exit 0 "$CGPLAN" calibrate --db "$R" --preset k3-dp2-dcp8 --set gpu=h100 --format json
check_py "sorted(str(n['sglang']) for n in j['node_bytes'] if n['stored']) == ['None', 'main@2026-07-20', 'v0.5.3']" "one row over every release, one per release"
check_py "sorted(r['run'] for n in j['node_bytes'] if n['sglang'] == 'v0.5.3' for r in n['runs']) == [3, 4]" "a release's row from its own runs"
expect_exit 0 "$CGPLAN" estimate --db "$R" --model qwen3-8b --set gpu=h100 --set sglang=0.5.3 --format json
check_py "'sglang v0.5.3' in j['graph_nodes']['node_bytes_source']" "a plan takes its release's node_bytes"
expect_exit 0 "$CGPLAN" estimate --db "$R" --model qwen3-8b --set gpu=h100 --set sglang=0.5.6 --format json
check_py "'every release' in j['graph_nodes']['node_bytes_source'] and j['graph_nodes']['node_bytes_runs'] == 4" "another release: the one over every release"
expect_exit 0 "$CGPLAN" calibrate --help
contains "$OUT" "node_bytes per GPU" "help states the order"
contains "$OUT" "at least two runs, of two graph" "help states the minimum runs"

# Nothing to fit, and bad usage.
expect_exit 1 "$CGPLAN" calibrate --db "$TEST_TMP/empty.db" --preset dsv3-h200-dp16
one_line "$ERR" "no runs: one line"
contains "$ERR" "no usable run" "says why"
expect_exit 2 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format csv
expect_exit 2 "$CGPLAN" calibrate --db "$DB" extra
expect_exit 2 "$CGPLAN" calibrate --db "$DB" --preset nope
expect_exit 2 "$CGPLAN" calibrate list --db "$DB" --preset k3-dp16

# A fresh store holds only the article's two reconstructed K3 runs: they keep their deployment
# fit and never become every model's node_bytes on b200.
expect_exit 0 "$CGPLAN" calibrate --db "$TEST_TMP/fresh.db" --format json
check_py "j['node_bytes'] == []" "the seeded runs fit no GPU's node_bytes"
# Issue 20: each run's own release decides its pool. Two launches ingested with --set sglang=0.4.6
# and no preset pool under v0.4.6, never under main (the seeded runs' release).
RDB="$TEST_TMP/release.db"
expect_exit 0 "$CGPLAN" ingest --db "$RDB" --model kimi-k3 --set gpu=b200 --set sglang=0.4.6 \
  "$LOGS/k3-dp2-dcp8-b200-maxbs128.log" "$LOGS/k3-dp2-dcp8-b200-maxbs176.log"
expect_exit 0 "$CGPLAN" runs show 3 --db "$RDB" --format json
check_py "j['knobs']['sglang'] == {'value': 'v0.4.6', 'origin': 'set'}" "runs show: the release by its name, never 0"
check_py "j['knobs']['a2a']['value'] is None or isinstance(j['knobs']['a2a']['value'], str)" "an enum by its name"
check_py "j['model_origin'] == 'set'" "the model's origin: --model"
expect_exit 0 "$CGPLAN" runs show 3 --db "$RDB"
contains "$OUT" "kimi-k3 (set)" "runs show: the model from --model"
case "$OUT" in *"from --preset"*) fail "runs show says (from --preset) with no preset given" ;; *) pass ;; esac
expect_exit 0 "$CGPLAN" calibrate --db "$RDB" --format json --dry-run
check_py "sorted(c['runs'] for c in j['calibrations'] if c['sglang'] == 'v0.4.6') == [[4, 3]]" "0.4.6 runs pooled under v0.4.6"
check_py "all(3 not in c['runs'] and 4 not in c['runs'] for c in j['calibrations'] if c['sglang'] != 'v0.4.6')" "and not under main"
finish
