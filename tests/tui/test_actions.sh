#!/usr/bin/env bash
# The planner acts (issue 9): l launch (with what launch would refuse), s save a preset, w the
# warnings with code and severity, f the recommended fraction, e a term explained; in tmux.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"

start_session 130 44 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --preset k3-dp2-dcp8"
wait_for 'max_bs' || { finish; exit 1; }
# w: every warning with its code and severity; the status line counts them
wait_for '1 warning \(w\)'
tm send-keys -t t w
wait_for 'warnings: code' && pass
contains "$(capture)" "dcp_with_speculation" "w lists the DCP + MTP warning"
contains "$(capture)" "warning " "w shows the severity"
tm send-keys -t t Escape
# l: the launch command, with the refusal above it
tm send-keys -t t l
wait_for 'launch \(node 0' && pass
contains "$(capture)" "--tp-size 16" "l shows the launch flags"
contains "$(capture)" "refused: SGLang" "l writes launch's refusal above the command"
contains "$(capture)" "--cuda-graph-max-bs-decode 192" "l: the release's graph flag"
tm send-keys -t t Escape
# e: a term explained (formula, origin, depends on), Down the next one
tm send-keys -t t e
wait_for 'explain: Up/Down the next term' && pass
contains "$(capture)" "formula" "e shows the formula"
contains "$(capture)" "origin" "e shows the origin"
contains "$(capture)" "depends" "e shows what it depends on"
tm send-keys -t t Down
sleep 0.2
tm send-keys -t t Escape
# f: the recommended fraction applied (0.874 in the preset, 0.885 recommended: the high end of the range)
tm send-keys -t t f
wait_for 'the recommended fraction' && pass
contains "$(capture)" "mem_fraction_static 0.885" "f applies the recommended fraction"
# s: saved as a preset in the user directory, which the CLI then loads
tm send-keys -t t s
wait_for 'save preset as: k3-dp2-dcp8-saved_' && pass
tm send-keys -t t Enter
wait_for 'saved as preset' && pass
f="$XDG_CONFIG_HOME/cgplan/presets/k3-dp2-dcp8-saved.yaml"
[ -f "$f" ] && pass || fail "s wrote no $f"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp2-dcp8-saved --format json
check_py "j['knobs']['mem_fraction_static'] == 0.885 and j['knobs']['dcp'] == 8 and j['knobs']['max_bs'] == 192" "the saved preset loads with the planner's knobs"
cleanup_tmux
# blocking warnings lead the status line (k3-dp16 at max_bs 128 has no KV)
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --db "$DB" --keys "= 1 2 8 Enter"
contains "$OUT" "blocking; w lists them" "a blocking warning leads the status line"
finish
