#!/usr/bin/env bash
# The rest of the planner's acts (issue 9 item 4), in tmux: F10 quits as q does; / filters the
# preset picker and the runs browser; the comparison's difference column and concurrency sentence
# (numbers from the engine's estimates), and no silent self-comparison; the labels' legends in the
# help; the light theme and its toggle.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
not_contains() { case "$1" in *"$2"*) fail "$3: '$2' is there" ;; *) pass ;; esac; }
TUI="env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB"

# F10 quits, from the main screen and from an overlay, with status 0 and the terminal restored
for where in main help; do
  start_session 120 40 "$TUI"
  wait_for 'max_bs' || { finish; exit 1; }
  [ "$where" = help ] && { tm send-keys -t t '?'; wait_for 'help 1/2'; }
  tm send-keys -t t F10
  [ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "F10 ($where) did not exit 0"
  wait_for 'AFTER-TUI' && pass
  cleanup_tmux
done

start_session 160 48 "$TUI"
wait_for 'max_bs' || { finish; exit 1; }
# / in the picker: typing narrows (case-insensitive), Backspace edits, Escape clears, Enter loads
tm send-keys -t t p
wait_for 'presets:.*/ filter' && pass
tm send-keys -t t / D C P
wait_for '/DCP_' && pass
contains "$(capture)" "k3-dp2-dcp8" "the filter keeps the matching preset"
not_contains "$(capture)" "k3-dp16          " "the filter drops the presets that do not match"
tm send-keys -t t BSpace BSpace BSpace 1 6
wait_for '/16_' && pass
contains "$(capture)" "k3-dp16          " "Backspace edits the filter"
tm send-keys -t t Escape
wait_for 'presets:' && sleep 0.2
not_contains "$(capture)" "/16" "Escape clears the filter"
contains "$(capture)" "k3-dp2-dcp8" "every preset is back"
tm send-keys -t t / d c p 8 Enter
wait_for 'loaded k3-dp2-dcp8' && pass
contains "$(capture)" "k3-dp2-dcp8 · kimi-k3" "Enter loads the highlighted match"
# c: the default comparison (k3-dp2-dcp8) is now the main preset itself: the next one instead
tm send-keys -t t c
wait_for 'comparing with ' && pass
contains "$(capture)" "is the main preset" "the self-comparison is announced"
not_contains "$(capture)" "vs k3-dp2-dcp8" "c does not compare the preset with itself"
cleanup_tmux

# The comparison: B-A per term, and the concurrency sentence from both plans' engine walls
start_session 160 48 "$TUI"
wait_for 'max_bs' || { finish; exit 1; }
tm send-keys -t t c
wait_for 'vs k3-dp2-dcp8' && pass
contains "$(capture)" "B-A" "the difference column's heading"
est() { "$CGPLAN" estimate --preset "$1" --db "$DB" --format json; }
want=$(python3 - "$(est k3-dp16)" "$(est k3-dp2-dcp8)" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ta = {t["id"]: t["bytes"] for t in a["terms"]}
tb = {t["id"]: t["bytes"] for t in b["terms"]}
d = (tb["static.logits"] - ta["static.logits"]) / 2**30
ca = a["knobs"]["dp"] * a["budget"]["wall_max_bs"]
cb = b["knobs"]["dp"] * b["budget"]["wall_max_bs"]
more, less = ("k3-dp16", "k3-dp2-dcp8") if ca > cb else ("k3-dp2-dcp8", "k3-dp16")
print("%+.2f|%s serves %d more requests than %s (%d x %d = %d vs %d x %d = %d" % (
    d, more, abs(ca - cb), less, a["knobs"]["dp"], a["budget"]["wall_max_bs"], ca,
    b["knobs"]["dp"], b["budget"]["wall_max_bs"], cb))
PY
)
logits_diff=${want%%|*}; sentence=${want#*|}
line=$(capture | grep -E '│ static +logits ')
contains "$line" " $logits_diff " "logits' B-A is the engine's B minus A ($logits_diff)"
contains "$(capture)" "At the wall $sentence" "the concurrency sentence: $sentence"
cleanup_tmux

# --compare naming the main preset: said in the message line
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --db "$DB" --preset k3-dp16 --compare k3-dp16
contains "$OUT" "comparing k3-dp16 with itself" "a self-comparison is announced"

# Legends: each knob's brief and each term's short label with its legend, from the engine's tables
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 160x48 --db "$DB" --keys "?"
contains "$OUT" "max_dispatch         disp" "the help lists a knob's brief label"
contains "$OUT" "F10 quit" "the help names F10"
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 160x48 --db "$DB" --keys "? Tab"
contains "$OUT" "help 2/2: the term labels" "Tab turns the help to the term labels"
contains "$OUT" "graphs       captured graphs" "a term's short and long label"
contains "$OUT" "the FP32 logits buffer of the largest bucket" "a term's legend"

# The light theme: from CGPLAN_THEME, toggled by t; the frame's text is the same
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --db "$DB" --keys "t"
contains "$OUT" "theme: light" "t turns the light theme on"
expect_exit 0 env CGPLAN_THEME=light "$CGPLAN" tui --snapshot 120x40 --db "$DB" --keys "t"
contains "$OUT" "theme: dark" "CGPLAN_THEME=light starts light, t turns it dark"
expect_exit 0 env CGPLAN_THEME=sepia "$CGPLAN" tui --snapshot 120x40 --db "$DB"
contains "$OUT" "CGPLAN_THEME=sepia: dark or light" "an unknown theme is named"
light=$(env CGPLAN_THEME=light "$CGPLAN" tui --snapshot 120x40 --db "$DB")
dark=$("$CGPLAN" tui --snapshot 120x40 --db "$DB")
[ "$light" = "$dark" ] && pass || fail "the light theme changed the snapshot's text"
start_session 120 40 "env CGPLAN_THEME=light TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB"
wait_for 'max_bs' && pass
tm send-keys -t t t
wait_for 'theme: dark' && pass
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q after t did not exit 0"
cleanup_tmux

# --model, --set and --sglang-args build the main plan as estimate does: the planner opens on the
# model alone at SGLang's defaults (tp 1, the release's max_bs), or on a preset with --set applied
start_session 140 44 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --model qwen3-8b --set gpu=h100"
wait_for 'qwen3-8b · qwen3-8b · 1 x h100' && pass
read -r want want_low want_high < <("$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --db "$DB" --format json |
  python3 -c 'import json,sys; j=json.load(sys.stdin); print(" ".join("%.2f" % (j[k] / 2**30) for k in ("total_bytes", "total_low_bytes", "total_high_bytes")))')
[ "$(screen_total)" = "$want" ] && pass || fail "tui --model total $(screen_total), estimate $want"
[ "$(screen_knob max_bs)" = 256 ] && [ "$(screen_knob world)" = 1 ] && pass || fail "tui --model knobs: max_bs $(screen_knob max_bs), world $(screen_knob world)"
contains "$(capture)" "[$want_low, $want_high]" "the total's range beside it"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q in a --model plan did not exit 0"
cleanup_tmux
start_session 140 44 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --preset k3-dp16 --set max_bs=64"
wait_for 'k3-dp16 · kimi-k3' && pass
[ "$(screen_knob max_bs)" = 64 ] && [ "$(screen_total)" = "$(expected_total k3-dp16 max_bs=64)" ] && pass ||
  fail "tui --set max_bs=64: max_bs $(screen_knob max_bs), total $(screen_total)"
not_contains "$(capture)" "of the known terms" "K3's total is complete"
tm send-keys -t t q
wait_status 10 > /dev/null
cleanup_tmux
# a term no formula covers: the planner says it cannot plan, and compares no heuristic share
start_session 140 44 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --model deepseek-v3 --set gpu=h200 --set tp=6 --set a2a=deepep"
wait_for 'deepseek-v3 · deepseek-v3' && pass
contains "$(capture)" "of the known terms: cannot plan" "a partial total: cannot plan"
not_contains "$(capture)" "% of it)" "no heuristic share of a partial total"
tm send-keys -t t q
wait_status 10 > /dev/null
cleanup_tmux
expect_exit 2 "$CGPLAN" tui --db "$DB" --model no-such/Model --set gpu=h100
contains "$ERR" "no model preset" "tui --model names an unknown model"
expect_exit 2 "$CGPLAN" tui --db "$DB" --model qwen3-8b
contains "$ERR" "--set gpu=NAME" "tui --model needs a GPU"
# e on a mechanism-built term lists its parts, each with its range and source
keys="e"; for n in $(seq 13); do keys="$keys Down"; done
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 120x40 --db "$DB" --model qwen3-8b --set gpu=h100 --keys "$keys"
contains "$OUT" "captured graphs (buckets) · empirical" "explain: the buckets term"
contains "$OUT" "part      buckets.nodes" "explain: its kernel-nodes part"
printf '%s\n' "$OUT" | grep -q "part      buckets.nodes  *[0-9.]* GiB \[[0-9.]*, [0-9.]*\] empirical" && pass || fail "explain: the part's range and source"
# at 64x20 the explanation wraps under its labels, never cut, and End scrolls to its last part
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 64x20 --db "$DB" --model qwen3-8b --set gpu=h100 --keys "$keys"
printf '%s\n' "$OUT" | grep -q "│           (bench/gpu/node_cost.py); flashinfer wrappers;" && pass || fail "explain: the origin wraps under its label"
printf '%s\n' "$OUT" | grep -q "1-16 of 19 · ↓ 3 more" && pass || fail "explain: the rows below are counted on the border"
not_contains "$OUT" "part      buckets.nccl_work" "explain: the last part is below the window"
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 64x20 --db "$DB" --model qwen3-8b --set gpu=h100 --keys "$keys End"
printf '%s\n' "$OUT" | grep -q "part      buckets.nccl_work    0.000 GiB" && pass || fail "explain: End reaches the last part"
contains "$OUT" "4-19 of 19" "explain: End shows the last rows"
finish
