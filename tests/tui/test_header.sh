#!/usr/bin/env bash
# The header and the comparison's labels (operator issue, item 5): the header names the plan's
# SGLang release and the --mem-fraction-static SGLang would pick itself (the engine's figure);
# comparing, a plan edited since it was loaded is named with its edits (the baseline keeps its
# name), in the header, the summary's concurrency sentence and the plot's legend, so the label
# describes the plan on screen.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
"$CGPLAN" runs list --db "$DB" >/dev/null
not_contains() { case "$1" in *"$2"*) fail "$3: '$2' is there" ;; *) pass ;; esac; }

# the header: the release and SGLang's own default fraction, as estimate gives them
for rel in "" 0.5.13; do
  sets=(); [ -n "$rel" ] && sets=(--set "sglang=$rel")
  expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 "${sets[@]}" --db "$DB" --format json
  want=$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); f = j["budget"]["sglang_default_mem_fraction_static"]; print("SGLang %s" % j["knobs"]["sglang"] + (" (its default f %.3f)" % f if f is not None else ""))')
  expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 200x48 --db "$DB" --preset k3-dp16 "${sets[@]}"
  contains "$(printf '%s\n' "$OUT" | head -1)" "MTP 6 · $want" "the header names ${rel:-the default} release: $want"
done

# the compare label after an edit (tmux): a baseline of the same preset, then dp and max_bs moved
start_session 200 48 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --preset k3-dp16 --compare k3-dp16"
wait_for 'max_bs' || { finish; exit 1; }
wait_for 'comparing k3-dp16 with itself' && pass
contains "$(capture | head -1)" " k3-dp16 vs k3-dp16 · kimi-k3" "unedited, the plan is named as loaded"
tm send-keys -t t Down Left Up
wait_for '^ cgplan  k3-dp16 edited \(dp 8\) vs k3-dp16 · kimi-k3 · 16 x b200' && pass
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set dp=8 --db "$DB" --format json
a=$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%d x %d" % (j["knobs"]["dp"], j["budget"]["wall_max_bs"]))')
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --db "$DB" --format json
b=$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%d x %d" % (j["knobs"]["dp"], j["budget"]["wall_max_bs"]))')
summary=$(capture | sed -n '/At the wall/,$p' | sed 's/^ *//' | tr '\n' ' ')
contains "$summary" "k3-dp16 edited (dp 8)" "the concurrency sentence names the edited plan"
contains "$summary" "($a = " "the edited plan's concurrency is the engine's ($a)"
contains "$summary" " vs $b = " "the baseline's concurrency is the engine's ($b)"
tm send-keys -t t Right
wait_for 'k3-dp16 edited \(max_bs [0-9]+, dp 8\)' && pass
# back to the preset's values: the label is the name again
tm send-keys -t t Left Down Right Up
wait_for '^ cgplan  k3-dp16 vs k3-dp16 · kimi-k3' && pass
not_contains "$(capture)" "edited (" "no edit left, no edit named"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
finish
