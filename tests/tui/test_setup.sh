#!/usr/bin/env bash
# The setup pop-up (F2 or o, htop's Setup): the secondary knobs, the SGLang release among them;
# Left/Right and Enter change them through the engine, and the total follows `cgplan estimate`.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"

start_session 120 44 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB"
wait_for 'max_bs' || { finish; exit 1; }
t0=$(screen_total)
tm send-keys -t t F2
wait_for 'setup: Up/Down' && pass
for k in sglang a2a kv_dtype min_kv_tokens margin max_running_requests page_size; do
  contains "$(capture)" " $k " "the setup pop-up lists $k"
done
# close(): Escape, then wait for the pop-up to go (the total line is under it)
close() {
  tm send-keys -t t Escape
  local i=0; while capture | grep -q 'setup: Up/Down' && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  capture | grep -q 'setup: Up/Down' && fail "Escape did not close the setup pop-up" || pass
}
# a2a is the third row: Right cycles deepep -> none, and the estimate follows
tm send-keys -t t Down Down Right
wait_for 'a2a = none' && pass
close
t1=$(wait_total_change "$t0")
want=$(expected_total k3-dp16 a2a=none)
[ "$t1" = "$want" ] && pass || fail "a2a none: screen total $t1, estimate says $want"
# the release (the eleventh row): Enter types it, the row and the total follow
tm send-keys -t t o
wait_for 'setup: Up/Down'
tm send-keys -t t Down Down Down Down Down Down Down Down Down Down Enter
wait_for 'sglang = _' && pass
tm send-keys -t t 0 . 5 . 6 Enter
wait_for 'sglang +v0\.5\.6' && pass
# kv_dtype (the row above it): Enter cycles its values
tm send-keys -t t Up Up Enter
wait_for 'kv_dtype = bf16' && pass
close
t2=$(screen_total)
want=$(expected_total k3-dp16 a2a=none sglang=0.5.6 kv_dtype=bf16)
[ "$t2" = "$want" ] && pass || fail "sglang 0.5.6, kv_dtype bf16: screen total $t2, estimate says $want"
# o opens it too
tm send-keys -t t o
wait_for 'setup: Up/Down' && pass
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
finish
