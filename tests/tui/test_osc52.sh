#!/usr/bin/env bash
# The planner's l copies the launch command by OSC 52 (issue 21): what reaches the clipboard is
# the command launch prints, each preset text one shell word, so running it runs nothing else.
source "$CGPLAN_TESTLIB"
source "$(dirname "${BASH_SOURCE[0]}")/tmux.sh"
command -v tmux >/dev/null || { fail "tmux is not installed"; finish; exit 1; }
DB="$TEST_TMP/runs.db"
P="$XDG_CONFIG_HOME/cgplan/presets"
mkdir -p "$P" "$TEST_TMP/fakebin"
sed -e 's/^name: qwen3-8b/name: evil-copy/' -e "s|^hf_names:.*|hf_names: [\"org/m; touch $TEST_TMP/PWNED #\"]|" \
  "$CGPLAN_SRC/presets/models/qwen3-8b.yaml" >"$P/evil-copy.yaml"
printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' >"$TEST_TMP/fakebin/python3"
chmod +x "$TEST_TMP/fakebin/python3"
"$CGPLAN" runs list --db "$DB" >/dev/null

start_session 130 44 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL= $CGPLAN tui --db $DB --model evil-copy --set gpu=h200 --set max_bs=8 --set mem_fraction_static=0.85"
tm set -g set-clipboard on # tmux keeps an application's OSC 52 as a paste buffer
wait_for 'max_bs' || { finish; exit 1; }
tm send-keys -t t l
wait_for 'copied to the clipboard' && pass
i=0
while ! tm show-buffer >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
copied=$(tm show-buffer 2>/dev/null || true)
contains "$copied" "--model-path 'org/m; touch $TEST_TMP/PWNED #'" "the copied command quotes the preset's id"
expect_exit 0 "$CGPLAN" launch --model evil-copy --set gpu=h200 --set max_bs=8 --set mem_fraction_static=0.85 --db "$DB"
[ "$(printf '%s\n' "$OUT" | grep -v '^#')" = "$copied" ] && pass || fail "the copy is not launch's command: $copied"
printf '%s\n' "$copied" | sh -n && pass || fail "sh -n parses the copied command"
args=$(PATH="$TEST_TMP/fakebin:$PATH" sh -c "$copied")
printf '%s\n' "$args" | grep -qxF -- "org/m; touch $TEST_TMP/PWNED #" && pass || fail "the id came back as one word: $args"
[ ! -e "$TEST_TMP/PWNED" ] && pass || fail "running the copied command ran the injection"
tm send-keys -t t q
[ "$(wait_status 10)" = "EXIT=0" ] && pass || fail "q did not exit 0"
finish
