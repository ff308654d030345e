#!/usr/bin/env bash
# cgplan calibrate: fitting MODEL.md's coefficients from stored runs (issue 3).
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

expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16
contains "$OUT" "mixed 2 layouts" "table says it mixed two layouts"
contains "$OUT" "DP16 MTP6" "names the DP16 layout"
contains "$OUT" "DP2xDCP8 MTP5" "names the DP2 layout"
contains "$OUT" "residuals" "prints residuals"

expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format json
defaults="dict(act_bytes_per_row=4.66*2**20, lazy_bytes=0.739*2**30, graph_bytes=50.3*2**20, out_bytes_per_row=25.7*1024, draft_base_bytes=0.475*2**30, draft_bytes_per_row=0.602*2**20)"
check_py "all(abs(j['calibrations'][0]['coefficients'][k]['after_bytes'] - v) <= 0.05 * v for k, v in $defaults.items())" "within 5% of MODEL.md's K3 defaults"
check_py "j['calibrations'][0]['mixed_layouts'] is True and sorted(j['calibrations'][0]['runs']) == [1, 2]" "two runs, mixed"
check_py "all(c['fit'] == 'slope and intercept' for c in j['calibrations'][0]['coefficients'].values())" "slopes fitted"
check_py "abs(j['calibrations'][0]['residuals'][0]['largest_bytes']) < 2**20" "residual ~0 with two points"

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

# One run: only intercepts, and the output says why.
expect_exit 0 "$CGPLAN" runs rm 2 --db "$DB" --yes
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format json
check_py "j['calibrations'][0]['coefficients']['lazy_bytes']['fit'] == 'intercept only'" "intercept only"
check_py "'one run' in j['calibrations'][0]['coefficients']['lazy_bytes']['note']" "says one run"
check_py "j['calibrations'][0]['coefficients']['act_bytes_per_row']['after_bytes'] == j['calibrations'][0]['coefficients']['act_bytes_per_row']['before_bytes']" "slope kept"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16
contains "$OUT" "one run" "table says one run"
contains "$OUT" "one layout: DP16 MTP6" "one layout"

# A run whose GPU stays unknown is stored, shown, and left out with the reason.
printf '[2026-08-19 21:40:02] server_args=ServerArgs(model_path='"'"'moonshotai/Kimi-K3'"'"', tp_size=16, dp_size=16, enable_dp_attention=True, dcp_size=1, speculative_num_draft_tokens=6, context_length=1048576)\n' > "$TEST_TMP/nogpu.log"
grep -v server_args "$LOGS/k3-dp16-b200-article.log" | sed 's/avail mem=14.09/avail mem=14.19/' >> "$TEST_TMP/nogpu.log"
expect_exit 0 "$CGPLAN" ingest --db "$DB" "$TEST_TMP/nogpu.log"
expect_exit 0 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format json
check_py "any('GPU unknown' in x['reason'] for x in j['calibrations'][0]['excluded'])" "unknown GPU left out with the reason"

# Nothing to fit, and bad usage.
expect_exit 1 "$CGPLAN" calibrate --db "$TEST_TMP/empty.db" --preset dsv3-h200-dp16
one_line "$ERR" "no runs: one line"
contains "$ERR" "no usable run" "says why"
expect_exit 2 "$CGPLAN" calibrate --db "$DB" --preset k3-dp16 --format csv
expect_exit 2 "$CGPLAN" calibrate --db "$DB" extra
expect_exit 2 "$CGPLAN" calibrate --db "$DB" --preset nope

finish
