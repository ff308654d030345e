#!/usr/bin/env bash
# The knob help line names the flag of the plan's release: --cuda-graph-max-bs-decode only where
# the release has it (v0.5.14 on, PR #23906), --cuda-graph-max-bs before; changing the release in
# the setup pop-up changes the line.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"

start_session 120 44 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB --set sglang=0.5.6"
wait_for 'max_bs' || { finish; exit 1; }
wait_for '[-]-cuda-graph-max-bs: the largest' && pass
capture | grep -q -- '--cuda-graph-max-bs-decode' && fail "0.5.6 has no --cuda-graph-max-bs-decode, the help names it" || pass
# the release to main in the setup pop-up (its eleventh row): the decode flag
tm send-keys -t t o
wait_for 'setup: Up/Down'
tm send-keys -t t Down Down Down Down Down Down Down Down Down Down Enter m a i n Enter Escape
wait_for '[-]-cuda-graph-max-bs-decode: the largest' && pass
# the buckets knob names its list flag the same way
tm send-keys -t t Down Down Down Down Down Down
wait_for '[-]-cuda-graph-bs-decode' && pass
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
# v0.5.14 has it, v0.5.13 not
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 120x44 --db "$DB" --set sglang=0.5.13
contains "$OUT" "--cuda-graph-max-bs: the largest" "v0.5.13: the old flag"
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 120x44 --db "$DB" --set sglang=0.5.14
contains "$OUT" "--cuda-graph-max-bs-decode: the largest" "v0.5.14: the decode flag"
finish
