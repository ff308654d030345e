# tmux.sh — helpers for the TUI tests (sourced after $CGPLAN_TESTLIB): one private tmux server
# per session, polling instead of sleeping, and reading the screen the way CLI.md's contract
# says. A server per session, not per test: a new-session sent to a server that kill-server has
# told to go, but whose socket is not yet gone, fails with "server exited unexpectedly" (CI).
TMUX_SOCK="cgplan-test-$$-0"
TMUX_SESSIONS=0
tm() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
cleanup_tmux() { tm kill-server >/dev/null 2>&1 || true; }
trap 'cleanup_tmux; rm -rf "$TEST_TMP"' EXIT

# start_session W H COMMAND: the command runs in a shell that stays after it (to check the
# terminal is restored), and its exit status lands in $TEST_TMP/status.
start_session() {
  local w=$1 h=$2; shift 2
  rm -f "$TEST_TMP/status"
  cleanup_tmux
  TMUX_SESSIONS=$((TMUX_SESSIONS + 1)); TMUX_SOCK="cgplan-test-$$-$TMUX_SESSIONS"
  tm new-session -d -s t -x "$w" -y "$h" "$*; echo EXIT=\$? > $TEST_TMP/status; echo AFTER-TUI; sleep 300"
}

capture() { tm capture-pane -p -t t; }

# wait_for PATTERN [SECONDS]: polls the screen until grep -E PATTERN matches.
wait_for() {
  local pat=$1 limit=${2:-10} i=0
  while [ "$i" -lt $((limit * 20)) ]; do
    if capture | grep -qE -- "$pat"; then return 0; fi
    sleep 0.05; i=$((i + 1))
  done
  fail "timed out waiting for /$pat/; screen:"; capture >&2; return 1
}

# wait_status SECONDS: waits for the program to exit; prints its status.
wait_status() {
  local limit=${1:-10} i=0
  while [ ! -s "$TEST_TMP/status" ] && [ "$i" -lt $((limit * 20)) ]; do sleep 0.05; i=$((i + 1)); done
  cat "$TEST_TMP/status" 2>/dev/null || echo "EXIT=none"
}

# screen_total: the N.NN after the one line whose first word is `total` (after borders);
# fails unless exactly one such line exists.
screen_total() {
  capture | python3 -c '
import re, sys
hits = []
for line in sys.stdin.read().splitlines():
    s = line.lstrip(" |+-=\u2500\u2502\u250c\u2510\u2514\u2518\u2501\u2503\u2550\u2551")
    if s.split()[:1] == ["total"]:
        hits.append(s)
if len(hits) != 1:
    sys.exit("expected one total line, got %d" % len(hits))
m = re.match(r"total\s+(\d+\.\d\d) GiB", hits[0])
if not m:
    sys.exit("total line without N.NN GiB: " + hits[0])
print(m.group(1))'
}

# wait_total_change OLD: polls until the total differs from OLD; prints the new one.
wait_total_change() {
  local old=$1 i=0 t
  while [ "$i" -lt 200 ]; do
    t=$(screen_total 2>/dev/null) && [ -n "$t" ] && [ "$t" != "$old" ] && { echo "$t"; return 0; }
    sleep 0.05; i=$((i + 1))
  done
  echo "$old"
}

# screen_knob NAME: the value shown on knob NAME's slider line.
screen_knob() {
  capture | python3 -c '
import sys
name = sys.argv[1]
for line in sys.stdin.read().splitlines():
    s = line.lstrip(" |\u2502>\u25b6")
    w = s.split()
    if w[:1] == [name] and len(w) > 1:
        print(w[1]); break' "$1"
}

# expected_total PRESET KNOB=VALUE...: cgplan estimate's total as %.2f GiB.
expected_total() {
  local preset=$1; shift
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  "$CGPLAN" estimate --preset "$preset" "${sets[@]}" --db "$TEST_TMP/runs.db" --format json |
    python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["total_bytes"] / 2**30))'
}

# track_cols NAME: "ROW FIRST LAST" (1-based, as SGR mouse reports them) of knob NAME's track.
track_cols() {
  capture | python3 -c '
import sys
name = sys.argv[1]
track = set("\u2501\u25cf\u2500=O-")
for row, line in enumerate(sys.stdin.read().splitlines()):
    s = line.lstrip(" |\u2502>\u25b6")
    if s.split()[:1] != [name]:
        continue
    start = len(line) - len(s)
    i = start + len(name)
    while i < len(line) and line[i] == " ": i += 1
    while i < len(line) and line[i] != " ": i += 1   # the value
    while i < len(line) and line[i] == " ": i += 1
    j = i
    while j < len(line) and line[j] in track: j += 1
    print(row + 1, i + 1, j)
    break' "$1"
}
