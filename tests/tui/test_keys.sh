#!/usr/bin/env bash
# The planner in tmux: keys, mouse drag, resize, quit, terminal restored (CLI.md "The TUI, as a
# test sees it"), under xterm-256color/UTF-8, screen, xterm (mouse) and vt100/ASCII.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"

run_flow() {
  local term=$1 lang=$2
  start_session 120 40 "env TERM=$term LANG=$lang LC_ALL= $CGPLAN tui --db $DB"
  wait_for 'max_bs' || return
  contains "$(capture)" "k3-dp16" "$term: starts on k3-dp16"
  local t0; t0=$(screen_total) || fail "$term: no single total line"
  [ "$t0" = "$(expected_total k3-dp16)" ] && pass || fail "$term: start total $t0"
  # Right: one step of max_bs
  tm send-keys -t t Right
  local t1; t1=$(wait_total_change "$t0")
  local bs; bs=$(screen_knob max_bs)
  [ "$bs" = 26 ] && pass || fail "$term: max_bs after Right is '$bs', want 26"
  [ "$t1" = "$(expected_total k3-dp16 max_bs="$bs")" ] && pass || fail "$term: total $t1 at max_bs $bs"
  # = value Enter
  tm send-keys -t t = 6 4 Enter
  t1=$(wait_total_change "$t1")
  [ "$(screen_knob max_bs)" = 64 ] && pass || fail "$term: typed max_bs 64"
  [ "$t1" = "$(expected_total k3-dp16 max_bs=64)" ] && pass || fail "$term: total $t1 at max_bs 64"
  # PgDn, Home, focus moves, the comparison, the overlays
  tm send-keys -t t Home
  wait_for '(▶|>)max_bs +1 ' || true
  tm send-keys -t t Down Left
  wait_for 'dp +8 ' || true
  tm send-keys -t t c
  wait_for 'vs k3-dp2-dcp8' || true
  tm send-keys -t t '?'
  wait_for 'help' || true
  tm send-keys -t t Escape
  tm send-keys -t t p
  wait_for 'presets:' || true
  tm send-keys -t t Escape
  sleep 0.2
  tm send-keys -t t q
  local st; st=$(wait_status 10)
  [ "$st" = "EXIT=0" ] && pass || fail "$term: q exits with $st"
  wait_for 'AFTER-TUI' || true
  local scr; scr=$(capture)
  case "$scr" in *max_bs*) fail "$term: the planner is still on screen after q" ;; *) pass ;; esac
  [ "$(tm display -p -t t '#{mouse_any_flag}')" = 0 ] && pass || fail "$term: mouse mode left on"
  [ "$(tm display -p -t t '#{alternate_on}')" = 0 ] && pass || fail "$term: alternate screen left on"
  cleanup_tmux
  sleep 0.1
}

run_flow xterm-256color C.UTF-8
run_flow screen C.UTF-8

# vt100, LANG=C: keys only, ASCII, monochrome
start_session 120 40 "env TERM=vt100 LANG=C LC_ALL= $CGPLAN tui --db $DB"
wait_for 'max_bs'
scr=$(capture)
if printf '%s' "$scr" | LC_ALL=C grep -q '[^ -~]'; then
  fail "vt100: non-ASCII characters on screen"; printf '%s\n' "$scr" | LC_ALL=C grep -n '[^ -~]' | head -3 >&2
else pass; fi
t0=$(screen_total)
tm send-keys -t t Right
t1=$(wait_total_change "$t0")
[ "$t1" = "$(expected_total k3-dp16 max_bs=26)" ] && pass || fail "vt100: total $t1 after Right"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "vt100: q"
cleanup_tmux
sleep 0.1

# xterm: mouse press and drag on the max_bs track
start_session 120 40 "env TERM=xterm LANG=C.UTF-8 $CGPLAN tui --db $DB"
wait_for 'max_bs'
i=0; while [ "$(tm display -p -t t '#{mouse_any_flag}')" != 1 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
[ "$(tm display -p -t t '#{mouse_any_flag}')" = 1 ] && pass || fail "xterm: mouse reporting not enabled"
read -r row first last < <(track_cols max_bs)
[ -n "${last:-}" ] && [ "$last" -gt "$first" ] && pass || fail "no max_bs track found"
t0=$(screen_total)
x2=$((first + (last - first) / 3))
tm send-keys -t t -l $'\e[<0;'"$first;$row"'M'
tm send-keys -t t -l $'\e[<32;'"$((first + 2));$row"'M'
tm send-keys -t t -l $'\e[<32;'"$x2;$row"'M'
tm send-keys -t t -l $'\e[<0;'"$x2;$row"'m'
t1=$(wait_total_change "$t0")
sleep 0.2; t1=$(screen_total)
bs=$(screen_knob max_bs)
[ "$bs" != 24 ] && pass || fail "drag did not move max_bs"
[ "$t1" = "$(expected_total k3-dp16 max_bs="$bs")" ] && pass || fail "drag: total $t1 at max_bs $bs"
# resize 120x40 -> 80x24 -> 30x10 (too small) -> back
tm resize-window -t t -x 80 -y 24
wait_for 'max_bs' && pass
[ "$(screen_total)" = "$t1" ] && pass || fail "80x24: total changed"
tm resize-window -t t -x 30 -y 10
wait_for 'too small' && pass
contains "$(capture)" "60x20" "too small names the size needed"
tm resize-window -t t -x 120 -y 40
wait_for 'max_bs' && pass
[ "$(screen_total)" = "$t1" ] && pass || fail "back at 120x40: total changed"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "xterm: q"
wait_for 'AFTER-TUI'
[ "$(tm display -p -t t '#{mouse_any_flag}')" = 0 ] && pass || fail "xterm: mouse mode left on after q"
cleanup_tmux
sleep 0.1

# SIGTERM: the terminal is restored too
start_session 120 40 "sh -c 'echo \$\$ > $TEST_TMP/pid; exec env TERM=xterm LANG=C.UTF-8 $CGPLAN tui --db $DB'"
wait_for 'max_bs'
pid=$(cat "$TEST_TMP/pid")
[ -n "$pid" ] && kill -TERM "$pid"
st=$(wait_status 10)
case "$st" in EXIT=143) pass ;; *) fail "SIGTERM: status $st" ;; esac
wait_for 'AFTER-TUI'
[ "$(tm display -p -t t '#{mouse_any_flag}')" = 0 ] && pass || fail "SIGTERM: mouse mode left on"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] && pass || fail "SIGTERM: alternate screen left on"
cleanup_tmux
sleep 0.1

# A terminal that cannot address the cursor gets a message and status 1, not a heap of glyphs.
start_session 120 40 "env TERM=dumb $CGPLAN tui --db $DB"
[ "$(wait_status 10)" = "EXIT=1" ] && pass || fail "TERM=dumb: status"
wait_for 'cannot move the cursor' && pass
finish
