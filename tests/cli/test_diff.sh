#!/usr/bin/env bash
# cgplan diff (issue 20): the one knob given twice names the two sides; every term, the totals,
# the budget, the wall and the grid side by side with the difference.
set -eu
# shellcheck source=../lib.sh
. "${CGPLAN_TESTLIB:-$(dirname "$0")/../lib.sh}"
M=(--model deepseek-v3 --set gpu=h200 --set tp=8)
VOCAB=129280 # DeepSeek-V3 config.json vocab_size

# --- a knob's meaning: max_bs 128 -> 256 on main. The logits buffer is logits_rows x vocab x 4
# (FP32, one buffer for the largest bucket): +128 rows; the grid gains 136..256 step 8.
expect_exit 0 "$CGPLAN" diff "${M[@]}" --set max_bs=128 --set max_bs=256 --format json
check_py "j['knob'] == 'max_bs' and [s['value'] for s in j['sides']] == ['128', '256']" "sides named by the doubled knob"
check_py "j['differences']['terms']['static.logits'] == 128 * $VOCAB * 4" "logits term: +128 rows x vocab x 4"
check_py "j['differences']['n_buckets'] == len(range(136, 257, 8)) and j['differences']['bs_max'] == 128" "grid: +16 sizes"
check_py "[s['estimate']['knobs']['max_bs'] for s in j['sides']] == [128, 256]" "both estimates in full"
check_py "j['differences']['total_bytes'] == j['sides'][1]['estimate']['total_bytes'] - j['sides'][0]['estimate']['total_bytes']" "total difference"
check_py "j['differences']['kv_tokens'] == j['sides'][1]['estimate']['budget']['kv_tokens'] - j['sides'][0]['estimate']['budget']['kv_tokens']" "kv_tokens difference"

# --- an upgrade: 0.4.6 -> main. v0.4.6's runner captures [1, 2, 4, 8] + 16..256 step 8 on an H200
# (35 sizes) and every size keeps its own logits; main's server grid is [1, 2, 4, 8, 12] + 16..256
# step 8 + 272..512 step 16 (52) with one shared logits buffer (PR #8579, v0.4.10.post2).
expect_exit 0 "$CGPLAN" diff "${M[@]}" --set sglang=0.4.6 --set sglang=main --format json
check_py "[len(s['estimate']['knobs']['buckets']) for s in j['sides']] == [4 + len(range(16, 257, 8)), 5 + len(range(16, 257, 8)) + len(range(272, 513, 16))]" "bucket counts 35 and 52"
check_py "j['differences']['n_buckets'] == 17" "17 more captured sizes"
check_py "[{t['id']: t['bytes'] for t in s['estimate']['terms']}['buckets.logits'] > 0 for s in j['sides']] == [True, False]" "per-size logits only on 0.4.6"
check_py "j['differences']['terms']['static.logits'] == (512 - 256) * $VOCAB * 4" "the shared buffer for 512 rows against 256"
expect_exit 0 "$CGPLAN" diff "${M[@]}" --set sglang=0.4.6 --set sglang=main
contains "$OUT" "sglang: A 0.4.6, B main" "the header names the sides"
row=$(printf '%s\n' "$OUT" | awk '$1 == "captured" {print $4, $5, $6}')
[ "$row" = "35 52 +17" ] && pass || fail "bucket row: '$row'"
for part in "static.logits" "buckets.logits" "total (known terms)" "KV pool (GiB)" "kv_tokens" "wall max_bs" "recommended fraction"; do
  contains "$OUT" "$part" "the table has $part"
done

# --- a preset, and the exits: 1 when one side cannot be estimated (named), 2 for usage
expect_exit 0 "$CGPLAN" diff --preset k3-dp16 --set sglang=0.5.6 --set sglang=main
expect_exit 1 "$CGPLAN" diff "${M[@]}" --set sglang=0.4.6 --set sglang=0.1.0
contains "$ERR" "side B (--set sglang=0.1.0) could not be estimated" "names the side"
contains "$ERR" "older than the oldest modelled release" "and why"
expect_exit 2 "$CGPLAN" diff "${M[@]}"
contains "$ERR" "no knob is given twice" "no sides"
expect_exit 2 "$CGPLAN" diff "${M[@]}" --set max_bs=1 --set max_bs=2 --set mtp=1 --set mtp=2
contains "$ERR" "more than one knob is given twice" "two doubled knobs"
expect_exit 2 "$CGPLAN" diff "${M[@]}" --set max_bs=1 --set max_bs=2 --set max_bs=3
contains "$ERR" "given 3 times" "a tripled knob"
finish
