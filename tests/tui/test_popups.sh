#!/usr/bin/env bash
# The text pop-ups (operator issue, item 5): w, ? and l wrap to the screen and scroll when taller
# than it. At 80x24, l for k3-dp16 shows --node-rank after End; its rows, copied as they stand,
# are the command `cgplan launch` prints (a long quoted id broken inside its quotes too); the ?
# overlay names the graph flag of the plan's release; the summary under the plot wraps instead of
# being cut.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
"$CGPLAN" runs list --db "$DB" >/dev/null
not_contains() { case "$1" in *"$2"*) fail "$3: '$2' is there" ;; *) pass ;; esac; }
snap() { env LANG=C.UTF-8 LC_ALL= "$CGPLAN" tui --db "$DB" "$@"; }

# popup_rows TITLE: the text rows of the pop-up whose top border holds TITLE (in $OUT), one a line,
# the window's borders and margins taken off.
popup_rows() {
  printf '%s\n' "$OUT" | python3 -c '
import sys
title, lines = sys.argv[1], sys.stdin.read().splitlines()
for top, line in enumerate(lines):
    at = line.find(title)
    if at > 0:
        break
else:
    sys.exit("no pop-up titled " + title)
x = lines[top].rfind("\u250c", 0, at)
w = lines[top].find("\u2510", at) - x + 1
for line in lines[top + 1:]:
    if line[x:x + 1] == "\u2514":
        break
    print(line[x + 2:x + w - 2].rstrip())' "$1"
}

# l at 80x24 (tmux): the window is cut at the screen and says how much is below; End shows the
# last flags, --node-rank among them, and Up/Down move it a row
start_session 80 24 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --preset k3-dp16"
wait_for 'max_bs' || { finish; exit 1; }
tm send-keys -t t l
wait_for 'launch \(node 0' && pass
wait_for '1-20 of 23 · ↓ 3 more' && pass
not_contains "$(capture)" "--node-rank" "the first page of l stops above --node-rank"
tm send-keys -t t End
wait_for '4-23 of 23 · ↑ Home' && pass
contains "$(capture)" "--nnodes 2 --node-rank 0 --dist-init-addr HOST:PORT" "End shows --node-rank"
tm send-keys -t t Up
wait_for '3-22 of 23 · ↓ 1 more' && pass
tm send-keys -t t Home
wait_for '1-20 of 23' && pass
tm send-keys -t t PgDn
wait_for '4-23 of 23' && pass
tm send-keys -t t x # any other key closes it
sleep 0.2
not_contains "$(capture)" "launch (node 0" "a key other than the scrolling ones closes l"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
cleanup_tmux

# The rows of l at 80 columns (tall enough to show them all) are node 0's command as launch
# prints it: run with a python3 that prints its arguments, the same words come out.
mkdir -p "$TEST_TMP/fakebin"
printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' >"$TEST_TMP/fakebin/python3"
chmod +x "$TEST_TMP/fakebin/python3"
same_command() { # $1: the pop-up rows; $2: launch's output; $3: what
  local shown wanted
  shown=$(printf '%s\n' "$1" | grep -v '^#' | PATH="$TEST_TMP/fakebin:$PATH" sh 2>&1)
  wanted=$(printf '%s\n' "$2" | awk '/^# node 1/ { exit } { print }' | grep -v '^#' | PATH="$TEST_TMP/fakebin:$PATH" sh 2>&1)
  [ -n "$shown" ] && [ "$shown" = "$wanted" ] && pass || fail "$3: the rows run as '$shown', launch as '$wanted'"
}
expect_exit 0 snap --snapshot 80x60 --preset k3-dp16 --keys "l"
rows=$(popup_rows "launch (node 0")
contains "$rows" "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=144 \\" "the environment has a row of its own"
contains "$rows" "# 2 nodes: HOST:PORT is node 0's address" "the node note is a comment"
expect_exit 0 "$CGPLAN" launch --preset k3-dp16 --set mem_fraction_static=0.92 --db "$DB"
same_command "$rows" "$OUT" "k3-dp16's l"
# a model id longer than a row, with a space and a quote in it: broken inside its quotes
P="$XDG_CONFIG_HOME/cgplan/presets"
mkdir -p "$P"
long="org/a-model-whose-id-goes-on-and-on-well-past-the-width-of-one-row-of-the-pop-up it's #long"
sed -e 's/^name: qwen3-8b/name: long-id/' -e "s|^hf_names:.*|hf_names: [\"$long\"]|" \
  "$CGPLAN_SRC/presets/models/qwen3-8b.yaml" >"$P/long-id.yaml"
set_args=(--model long-id --set gpu=h200 --set max_bs=8 --set mem_fraction_static=0.85)
expect_exit 0 snap --snapshot 80x40 "${set_args[@]}" --keys "l"
rows=$(popup_rows "launch (node 0")
printf '%s\n' "$rows" | grep -q "'\\\\$" && pass || fail "the quoted id is broken inside its quotes: $rows"
expect_exit 0 "$CGPLAN" launch "${set_args[@]}" --db "$DB"
same_command "$rows" "$OUT" "the long id's l"
printf '%s\n' "$rows" | grep -v '^#' | PATH="$TEST_TMP/fakebin:$PATH" sh | grep -qxF -- "$long" && pass ||
  fail "the long id came back as one word"

# w at 80x24: a message longer than the row wraps under the message column; the last word shows
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --db "$DB" --format json
msg=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print([w["message"] for w in json.load(sys.stdin)["warnings"] if w["code"] == "headroom_below_margin"][0])')
expect_exit 0 snap --snapshot 80x24 --preset k3-dp16 --keys "w"
rows=$(popup_rows "warnings: code")
flat=$(printf '%s\n' "$rows" | sed 's/^ *//' | tr '\n' ' ' | sed 's/  */ /g')
contains "$flat" "headroom_below_margin warning $msg" "w shows the whole message, wrapped"
[ "$(printf '%s\n' "$rows" | wc -l)" -gt 4 ] && pass || fail "the message did not wrap: $rows"
contains "$(printf '%s\n' "$rows" | tail -1)" "info: a note" "w's legend shows its end"
expect_exit 0 "$CGPLAN" tui --snapshot 80x24 --ascii --db "$DB" --preset k3-dp16 --keys "w"
contains "$OUT" "+ warnings: code - severity - message (Up/Down scroll - any other key closes +" "the ASCII pop-up's title is folded"

# ? at 80x24: scrolled to its end, the last line; with a release before v0.5.14 the help names
# --cuda-graph-max-bs, from v0.5.14 --cuda-graph-max-bs-decode (PR #23906)
expect_exit 0 snap --snapshot 80x24 --preset k3-dp16 --keys "?"
contains "$OUT" "more" "? says there is more below"
not_contains "$OUT" "they decide the rows" "the first page of ? does not reach its end"
expect_exit 0 snap --snapshot 80x24 --preset k3-dp16 --keys "? End"
contains "$OUT" "rows = max_bs, buckets, mtp, dp, world (they decide the rows)" "End shows the end of ?"
expect_exit 0 snap --snapshot 160x60 --preset k3-dp16 --set sglang=0.5.13 --keys "?"
rows=$(popup_rows "help 1/2")
contains "$rows" "--cuda-graph-max-bs: the largest" "? at v0.5.13 names --cuda-graph-max-bs"
not_contains "$rows" "--cuda-graph-max-bs-decode" "? at v0.5.13 names no decode flag"
expect_exit 0 snap --snapshot 160x60 --preset k3-dp16 --set sglang=0.5.14 --keys "?"
contains "$(popup_rows "help 1/2")" "--cuda-graph-max-bs-decode: the largest" "? at v0.5.14 names the decode flag"

# The summary wraps at 80 columns: comparing, the concurrency sentence leads, and the limiting
# sentence still ends on screen with the engine's wall
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --db "$DB" --format json
wall=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["budget"]["wall_max_bs"])')
expect_exit 0 snap --snapshot 80x24 --preset k3-dp16 --keys "c"
summary=$(printf '%s\n' "$OUT" | sed -n '/At the wall/,$p' | head -n -1 | sed 's/^ *//' | tr '\n' ' ')
contains "$summary" "fits up to max_bs $wall." "the summary's end is on screen at 80 columns"
contains "$summary" "At the wall k3-dp16 serves" "the concurrency sentence leads"
finish
