#!/usr/bin/env bash
# cgplan launch --pin-kv (issue 20): --max-total-tokens is one rank's KV slots, as SGLang's
# max_total_num_tokens counts them (per ModelRunner, so per DP rank; x dcp_size in the allocator).
set -eu
# shellcheck source=../lib.sh
. "${CGPLAN_TESTLIB:-$(dirname "$0")/../lib.sh}"
M=(--model deepseek-v3 --set gpu=h200)
DPA=(--set tp=8 --set dp=8 --set dp_attention=on --set max_bs=160)

# without --pin-kv the pool follows free memory at boot: no --max-total-tokens
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --format json
check_py "j['max_total_tokens'] is None and not any(a.startswith('--max-total-tokens') for a in j['args'])" "not pinned by default"

# DP attention, dcp 1, page 1: N is the plan's KV tokens of one DP rank, not x 8 DP ranks
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --pin-kv --format json
check_py "j['kv_tokens'] > 100000 and j['max_total_tokens'] == j['kv_tokens'] and ('--max-total-tokens %d' % j['kv_tokens']) in j['args']" "pinned at kv_tokens per DP rank"
# the same figure as estimate's kv_tokens at the fraction launch planned at
read -r f n <<<"$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.3f" % j["mem_fraction_static"], j["max_total_tokens"])')"
expect_exit 0 "$CGPLAN" estimate "${M[@]}" "${DPA[@]}" --set mem_fraction_static="$f" --format json
check_py "j['budget']['kv_tokens'] == $n" "launch's N is estimate's kv_tokens"
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --pin-kv
contains "$OUT" "--max-total-tokens $n" "the command carries the flag"
contains "$OUT" "# --pin-kv:" "the comment says what it pins"

# DCP 2: the allocator holds max_total_num_tokens x dcp_size, so N is kv_tokens / 2
expect_exit 0 "$CGPLAN" launch "${M[@]}" --set tp=16 --set dp=8 --set dp_attention=on --set dcp=2 --set max_bs=256 --pin-kv --format json
check_py "j['kv_tokens'] > 0 and j['max_total_tokens'] == j['kv_tokens'] // 2" "dcp 2 halves N"

# page 64: SGLang floors the cap to the page; N is on a page boundary, under the slots
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --set page_size=64 --pin-kv --format json
check_py "j['max_total_tokens'] % 64 == 0 and 0 <= j['kv_tokens'] - j['max_total_tokens'] < 64" "page-aligned N"

# the verdict is the engine's severities: a warning (headroom under the margin) is printed as one
# and the command still comes with exit 0; a blocking code exits 3 (launch spells no codes)
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --set mem_fraction_static=0.95
contains "$OUT" "# warning headroom_below_margin:" "a warning is said"
contains "$OUT" "python3 -m sglang.launch_server" "and the command printed"
expect_exit 0 "$CGPLAN" launch "${M[@]}" "${DPA[@]}" --set mem_fraction_static=0.95 --format json
check_py "j['fits'] and not j['rejected'] and j['refusals'] == []" "a warning is no refusal"
check_py "any(x['code'] == 'headroom_below_margin' and x['severity'] == 'warning' for x in j['warnings'])" "json lists the warning"
# SGLang's own default (max_bs 512 at tp 8) leaves under min_kv_tokens a request: a policy
# warning while the default is the release's, blocking once the operator sets the policy
expect_exit 0 "$CGPLAN" launch "${M[@]}" --set tp=8 --set max_bs=512
contains "$OUT" "# warning kv_per_request" "SGLang's own default launches, warned"
expect_exit 3 "$CGPLAN" launch "${M[@]}" --set tp=8 --set max_bs=512 --set min_kv_tokens=4096
contains "$ERR" "does not fit: kv_per_request" "a blocking code refuses"
finish
