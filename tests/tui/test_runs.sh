#!/usr/bin/env bash
# Observed runs on the plot: the seeded store's K3 runs appear as marks; a run ingested with
# `cgplan ingest` appears, and after `cgplan runs rm ID` it is gone (the store is re-read when the
# runs browser closes, and on start).
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
DB="$TEST_TMP/runs.db"

# marks: how many observed marks (● / @) the plot shows
marks() { capture | python3 -c 'import sys; t=sys.stdin.read(); i=t.find("graph memory (GiB) vs"); print(t[i:].split("\n",1)[1].count("\u25cf") if i>=0 else -1)'; }

start_session 120 40 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB"
wait_for 'max_bs'
m0=$(marks)
[ "$m0" -ge 1 ] && pass || fail "the seeded DP16 run is not on the plot ($m0 marks)"
contains "$(capture)" "stored runs" "status line counts the runs"
tm send-keys -t t q
wait_status 10 >/dev/null
cleanup_tmux

# ingest a DP16 log at another max_bs: one more mark after a restart
expect_exit 0 "$CGPLAN" ingest --db "$DB" --preset k3-dp16 --set max_bs=24 --label "tui test" "$LOGS/k3-dp16-b200-article.log"
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
ids=$(printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); r=j["runs"] if isinstance(j,dict) else j; print(" ".join(str(x["id"]) for x in r))' 2>/dev/null || true)
n_before=$(echo "$ids" | wc -w)

start_session 120 40 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB"
wait_for 'max_bs'
tm send-keys -t t r
wait_for 'stored runs:'
scr=$(capture)
for id in $ids; do contains "$scr" " $id " "runs browser lists run $id"; done
tm send-keys -t t Escape
sleep 0.2
m1=$(marks)
# remove every DP16 run from outside, then reopen the browser: the marks go away
for id in $ids; do "$CGPLAN" runs rm "$id" --db "$DB" --yes >/dev/null 2>&1 || "$CGPLAN" runs rm "$id" --db "$DB" >/dev/null 2>&1; done
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
tm send-keys -t t r
sleep 0.2
tm send-keys -t t Escape
i=0; while [ "$(marks)" != 0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
[ "$(marks)" = 0 ] && pass || fail "marks still shown after runs rm (before $m1, now $(marks))"
contains "$(capture)" "0 stored runs" "status says the store is empty"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q"
cleanup_tmux

# a store that is not a store: the planner still runs and says so
echo "not a database" > "$TEST_TMP/bad.db"
start_session 120 40 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $TEST_TMP/bad.db"
wait_for 'max_bs'
contains "$(capture)" "no observed runs" "status line names the broken store"
screen_total >/dev/null && pass || fail "no total with a broken store"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q with a broken store"
[ "$(cat "$TEST_TMP/bad.db")" = "not a database" ] && pass || fail "the bad store file was modified"
cleanup_tmux

# a real log leaves dp and dcp unknown (0 in the store; mtp 1 is inferred from no speculation
# lines): the run is drawn where the knobs it knows (model, world, max_bs, mtp) match the plan,
# hollow, and the status line says which knobs
HDB="$TEST_TMP/hollow.db"
expect_exit 0 "$CGPLAN" ingest --db "$HDB" --model llama-3.1-70b --set gpu=h100 --set world=8 \
  "$LOGS/28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log"
expect_exit 0 "$CGPLAN" runs list --db "$HDB" --format json
check_py '[r for r in (j["runs"] if isinstance(j, dict) else j) if r["source"].startswith("28-") and r["world"] == 8 and r["dp"] is None and r["mtp"] == 1 and r["max_bs"] == 512]' "the ingested run knows world 8, max_bs 512 and mtp 1, not dp"
hollow() { capture | python3 -c 'import sys; t=sys.stdin.read(); i=t.find("graph memory (GiB) vs"); print(t[i:].split("\n",1)[1].count(sys.argv[1]) if i>=0 else -1)' "$1"; }
start_session 120 40 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $HDB --model llama-3.1-70b --set gpu=h100 --set world=8"
wait_for 'max_bs' || { finish; exit 1; }
wait_for 'stored runs \(1 with unknown dp, dcp drawn hollow\)' && pass
[ "$(hollow ○)" = 1 ] && pass || fail "one hollow mark on the plot, got $(hollow ○)"
contains "$(capture)" "○ a knob unknown" "the legend names the hollow mark"
# another world, back on max_bs's axis: the run's world 8 no longer matches, so it is not drawn
tm send-keys -t t Down Down Down Down Down Right Up Up Up Up Up
wait_for 'world +16 ' && pass
wait_for 'vs max_bs' && sleep 0.2
[ "$(hollow ○)" = 0 ] && pass || fail "a run of world 8 drawn on a world 16 plan ($(hollow ○) marks)"
not_contains_hollow=$(capture | grep -c 'drawn hollow' || true)
[ "$not_contains_hollow" = 0 ] && pass || fail "the hollow note stays without a hollow mark"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q"
# --ascii: the hollow mark is o
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --ascii --db "$HDB" --model llama-3.1-70b --set gpu=h100 --set world=8
contains "$OUT" "o a knob unknown" "the ASCII legend's hollow mark"
contains "$OUT" "(1 with unknown dp, dcp drawn hollow)" "the note in a snapshot"
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --db "$HDB" --keys r
contains "$OUT" "world 8   dp ?   dcp ?  mtp 1  max_bs 512" "the runs browser shows an unknown knob as ?"
finish
