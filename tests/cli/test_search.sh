#!/usr/bin/env bash
# cgplan search (issue 20): only what the release runs, the knobs --set fixed held, replicas and DP
# ranks apart, mtp variants folded; every layout it lists launches.
set -eu
# shellcheck source=../lib.sh
. "${CGPLAN_TESTLIB:-$(dirname "$0")/../lib.sh}"
S=(search --model deepseek-v3 --set gpu=h200 --gpus 16)

# --- the release: v0.5.6 has no --dcp-size, so no DCP layout is ranked; main has them
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.5.6 --format json
check_py "len(j['layouts']) > 0 and all(l['dcp'] == 1 for l in j['layouts'])" "0.5.6: no dcp layout"
check_py "j['refused_by_release'] > 0" "0.5.6: the refused layouts are counted"
# the limit is the wall's own (budget.wall_limit): these layouts stop at min_kv_tokens per request,
# each row's KV per request just above 4096, not at the term that grows most
check_py "j['layouts'][0]['limit'] == 'kv_per_request' and 4096 <= j['layouts'][0]['kv_tokens_per_request'] < 4096 * 1.1" \
  "0.5.6: the first layout's limit is the request policy"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.5.6
contains "$OUT" "cannot run" "the table says layouts were left out for the release"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main --format json
check_py "any(l['dcp'] > 1 for l in j['layouts'])" "main: dcp layouts stay"
check_py "not any(l['dcp'] > 1 and l['mtp'] > 1 for l in j['layouts'])" "main: no dcp with mtp (_handle_dcp_validation)"
# an old release without --speculative-algorithm (v0.4.1.post4) gets no mtp layout
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.4.0 --all --format json
check_py "len(j['layouts']) > 0 and all(l['mtp'] == 1 for l in j['layouts'])" "0.4.0: no speculation"

# --- held knobs: --set dcp=1 --set mtp=1 keeps every layout at dcp 1, mtp 1, and says so
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main --set dcp=1 --set mtp=1 --all --format json
check_py "len(j['layouts']) > 0 and all(l['dcp'] == 1 and l['mtp'] == 1 for l in j['layouts'])" "dcp, mtp held"
check_py "j['held'] == {'dcp': '1', 'mtp': '1'}" "json names the held knobs"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main --set dcp=1 --set mtp=1
contains "$OUT" "held: dcp 1, mtp 1 (--set)" "the table says what it held"
expect_exit 0 "$CGPLAN" "${S[@]}" --set tp=8 --set a2a=none --format json
check_py "all(l['tp'] == 8 and l['a2a'] == 'none' and l['replicas'] == 2 for l in j['layouts'])" "tp and a2a held"
# held knobs the release cannot run: nothing is ranked, and it says why (exit 3)
expect_exit 3 "$CGPLAN" "${S[@]}" --set sglang=0.5.6 --set tp=16 --set dcp=2
contains "$ERR" "with dcp 2, world 16 (held by --set) that SGLang v0.5.6 runs" "held knobs the release refuses"
expect_exit 0 "$CGPLAN" "${S[@]}" --set mtp=3 --all --format json
check_py "len(j['layouts']) > 0 and all(l['mtp'] == 3 for l in j['layouts'])" "mtp 3 held"

# --- columns: dp is --dp-size (1 without DP attention), replicas a sibling; concurrency from both
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.5.6 --format json
check_py "all(l['replicas'] * l['tp'] == 16 for l in j['layouts'])" "replicas x tp = the GPUs"
check_py "all((l['dp'] > 1) == l['dp_attention'] for l in j['layouts'])" "dp > 1 only with DP attention"
check_py "all(l['concurrency'] == l['replicas'] * l['dp'] * l['max_bs'] for l in j['layouts'])" "concurrency = replicas x dp x max_bs"
check_py "any(l['replicas'] == 2 and l['dp'] == 8 for l in j['layouts'])" "a layout with replicas and DP ranks both > 1"
check_py "j['bound'] == 'high'" "walls planned on the high end"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.5.6
contains "$OUT" " tp repl   dp dpa" "replicas and DP ranks are separate columns"
row=$(printf '%s\n' "$OUT" | awk '$1 == 8 && $2 == 2 && $3 == 8 && $4 == "on" && $7 == "none" {print; exit}')
[ -n "$row" ] && pass || fail "table row tp 8, repl 2, dp 8: $OUT"

# --- fold: one row per layout unless --all; the count of folded variants is said
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main --format json
folded=$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["folded"], len(j["layouts"]))')
check_py "len({(l['tp'], l['dp'], l['dp_attention'], l['dcp'], l['a2a'], l['ep']) for l in j['layouts']}) == len(j['layouts'])" "one row per layout"
check_py "j['folded'] > 0" "variants folded"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main --all --format json
check_py "j['folded'] == 0 and len(j['layouts']) == sum(map(int, '$folded'.split()))" "--all lists folded + shown"
check_py "any(l['mtp'] > 1 for l in j['layouts'])" "--all keeps mtp variants"
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=main
contains "$OUT" "mtp variants into the best per layout" "the table says how many were folded"

# --- done when: every layout search lists for 0.5.6 launches: exit 0, or 3 naming search's limit
expect_exit 0 "$CGPLAN" "${S[@]}" --set sglang=0.5.6 --format json
walk=$(printf '%s' "$OUT" | python3 -c '
import json,sys
for l in json.load(sys.stdin)["layouts"]:
    print(l["limit"], "--set tp=%d --set dp=%d --set dp_attention=%s --set dcp=%d --set a2a=%s --set mtp=%d --set max_bs=%d" % (
        l["tp"], l["dp"], "on" if l["dp_attention"] else "off", l["dcp"], l["a2a"], l["mtp"], l["max_bs"]))')
walked=0
while read -r limit line; do
  walked=$((walked + 1))
  set +e
  # shellcheck disable=SC2086
  "$CGPLAN" launch --model deepseek-v3 --set gpu=h200 --set sglang=0.5.6 $line >/dev/null 2>"$TEST_TMP/launch.err"
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then pass
  elif [ "$rc" -eq 3 ] && grep -q "$limit" "$TEST_TMP/launch.err"; then pass
  else fail "launch $line: exit $rc: $(cat "$TEST_TMP/launch.err")"; fi
done <<<"$walk"
[ "$walked" -ge 10 ] && pass || fail "walked $walked layouts"
# a held dcp on a model alone is checked against the layouts scanned, not against tp 1
expect_exit 0 "$CGPLAN" search --model deepseek-v3 --set gpu=h200 --gpus 16 --set dcp=2 --format json
check_py "len(j['layouts']) > 0 and all(l['dcp'] == 2 for l in j['layouts'])" "search --set dcp=2 on a model alone"
# a preset's measured weights stay at its own layout (measured_at), as estimate keeps them there
expect_exit 0 "$CGPLAN" search --preset k3-dp16 --gpus 16 --set dp=16 --set mtp=6 --format json
check_py "[l['weights_bytes'] for l in j['layouts'] if l['dp'] == 16 and l['a2a'] == 'deepep'] == [150 * 2**30]" \
  "search: the preset's own layout keeps its measured 150 GiB of weights"
check_py "all(l['weights_bytes'] != 150 * 2**30 for l in j['layouts'] if l['a2a'] != 'deepep')" \
  "search: other layouts take the model's weights"
finish
