#!/usr/bin/env bash
# s asks for a name (the plan's own with -saved offered; Escape cancels), saves the user preset,
# and the preset picker (p) lists it at once, without a restart. The saved weights are the
# measured figure only while the estimate uses it (budget.weights_source "measured").
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
PRESETS="$XDG_CONFIG_HOME/cgplan/presets"

start_session 120 44 "env TERM=xterm-256color LANG=C.UTF-8 $CGPLAN tui --db $DB"
wait_for 'max_bs' || { finish; exit 1; }
# Escape cancels: nothing written
tm send-keys -t t s
wait_for 'save preset as: k3-dp16-saved_' && pass
tm send-keys -t t Escape
wait_for 'save cancelled' && pass
[ ! -e "$PRESETS/k3-dp16-saved.yaml" ] && pass || fail "Escape still saved a preset"
# a name that is not a file stem is refused, saying what a name may hold
tm send-keys -t t s BSpace BSpace BSpace BSpace BSpace BSpace '/' x Enter
wait_for "is not a preset name" && pass
# the default edited into k3-dp16-mine, after one step of max_bs
tm send-keys -t t Right
wait_for 'max_bs +26 '
bs=$(screen_knob max_bs)
tm send-keys -t t s BSpace BSpace BSpace BSpace BSpace m i n e Enter
wait_for 'saved as preset k3-dp16-mine' && pass
[ -f "$PRESETS/k3-dp16-mine.yaml" ] && pass || fail "no $PRESETS/k3-dp16-mine.yaml"
# p lists it now
tm send-keys -t t p
wait_for 'presets: Enter load' && pass
contains "$(capture)" "k3-dp16-mine" "the picker lists the preset just saved"
tm send-keys -t t Escape
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
# it loads with the planner's knobs; weights_bytes is there exactly when the figure was measured
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16-mine --format json --db "$DB"
check_py "j['knobs']['max_bs'] == $bs" "the saved preset has the stepped max_bs"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_bs=$bs --format json --db "$DB"
measured=$(printf '%s' "$OUT" | python3 -c 'import json,sys; b=json.load(sys.stdin)["budget"]; print(b.get("weights_measured", b.get("weights_source") == "measured"))')
if [ "$measured" = True ]; then
  grep -q '^weights_bytes: ' "$PRESETS/k3-dp16-mine.yaml" && pass || fail "measured weights not saved"
else
  grep -q '^weights_bytes: ' "$PRESETS/k3-dp16-mine.yaml" && fail "a weights figure not in use was saved" || pass
fi
finish
