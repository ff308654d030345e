#!/usr/bin/env bash
# ^Z in the planner (issue 21): stopped, it leaves the alternate screen and turns xterm mouse
# reporting off, so clicks at the shell's prompt type nothing; fg turns both back on.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
"$CGPLAN" runs list --db "$DB" >/dev/null # create and seed the store outside the timed part

# wait_flags ALT MOUSE: polls tmux's pane flags until the alternate screen and mouse reporting
# are as given (1 on, 0 off); returns 1 after 5 s.
wait_flags() {
  local i=0
  while [ $i -lt 100 ]; do
    [ "$(tm display -p -t t '#{alternate_on} #{mouse_any_flag}')" = "$1 $2" ] && return 0
    sleep 0.05; i=$((i + 1))
  done
  return 1
}

# An interactive shell with job control, so ^Z stops the planner and fg brings it back.
start_session 120 40 "env -i PATH=$PATH HOME=$HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME TERM=xterm LANG=C.UTF-8 PS1='PROMPT\$ ' bash --norc --noprofile -i"
wait_for 'PROMPT\$' || { finish; exit 1; }
tm send-keys -t t "$CGPLAN tui --db $DB" Enter
wait_for 'max_bs' || { finish; exit 1; }
wait_flags 1 1 && pass || fail "the planner did not turn the mouse on (the test proves nothing)"
tm send-keys -t t C-z
wait_for 'Stopped' || true
wait_flags 0 0 && pass || fail "stopped with ^Z: alternate screen and mouse are $(tm display -p -t t '#{alternate_on} #{mouse_any_flag}'), want 0 0"
tm send-keys -t t 'fg' Enter
wait_flags 1 1 && pass || fail "after fg: alternate screen and mouse are $(tm display -p -t t '#{alternate_on} #{mouse_any_flag}'), want 1 1"
wait_for 'max_bs' && pass
# A second ^Z / fg works the same (the handler is back in place).
tm send-keys -t t C-z
wait_flags 0 0 && pass || fail "the second ^Z left the mouse or the alternate screen on"
tm send-keys -t t 'fg' Enter
wait_flags 1 1 && pass || fail "the second fg did not bring the planner back"
tm send-keys -t t q
wait_for 'PROMPT\$' && pass
wait_flags 0 0 && pass || fail "q left the mouse or the alternate screen on"
finish
