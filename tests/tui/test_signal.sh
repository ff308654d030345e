#!/usr/bin/env bash
# A fatal signal leaves the terminal as it was (issue 11): the TUI in tmux gets SIGSEGV (and the
# other fatal signals); afterwards the alternate screen is left, mouse reporting is off, the
# cursor shows, the tty is back in cooked mode with echo, and the exit status is the signal's.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
"$CGPLAN" runs list --db "$DB" >/dev/null # create and seed the store outside the timed part

crash_once() {
  local sig=$1 num=$2
  rm -f "$TEST_TMP/pid" "$TEST_TMP/stty"
  # ulimit -c 0: the default action of most of these signals dumps core; not in the build tree.
  # The sanitizers' own SEGV/BUS/FPE handlers would report and exit without restoring: the
  # test is about cgplan's handler, which runs in every build.
  start_session 120 40 "ulimit -c 0; ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0 sh -c 'echo \$\$ > $TEST_TMP/pid; exec env TERM=xterm LANG=C.UTF-8 $CGPLAN tui --db $DB'; st=\$?; stty -a > $TEST_TMP/stty; (exit \$st)"
  wait_for 'max_bs' || return
  local i=0
  while [ "$(tm display -p -t t '#{mouse_any_flag}')" != 1 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ "$(tm display -p -t t '#{alternate_on}')" = 1 ] && [ "$(tm display -p -t t '#{mouse_any_flag}')" = 1 ] && pass ||
    fail "$sig: the TUI did not enter the alternate screen with the mouse on (the test proves nothing)"
  kill -s "$sig" "$(cat "$TEST_TMP/pid")"
  local st; st=$(wait_status 10)
  [ "$st" = "EXIT=$((128 + num))" ] && pass || fail "$sig: status $st, want EXIT=$((128 + num))"
  wait_for 'AFTER-TUI' || true
  [ "$(tm display -p -t t '#{alternate_on}')" = 0 ] && pass || fail "$sig: alternate screen left on"
  [ "$(tm display -p -t t '#{mouse_any_flag}')" = 0 ] && pass || fail "$sig: mouse reporting left on"
  [ "$(tm display -p -t t '#{cursor_flag}')" = 1 ] && pass || fail "$sig: cursor left hidden"
  if grep -qE '(^| )-icanon|(^| )-echo( |$)' "$TEST_TMP/stty" 2>/dev/null; then
    fail "$sig: the tty is left raw: $(tr '\n' ' ' < "$TEST_TMP/stty" | head -c 300)"
  else
    [ -s "$TEST_TMP/stty" ] && pass || fail "$sig: no stty output"
  fi
  cleanup_tmux
  sleep 0.1
}

crash_once SEGV 11
crash_once ABRT 6
crash_once BUS 7
crash_once FPE 8
crash_once ILL 4
crash_once QUIT 3
finish
