# lib.sh — helpers for the command-line and TUI tests (sourced). Each test runs the real binary
# ($CGPLAN) with a private HOME, config and database so nothing leaks between tests.
set -u
: "${CGPLAN:?CGPLAN must point to the cgplan binary}"
: "${CGPLAN_FIXTURES:?CGPLAN_FIXTURES must point to tests/fixtures}"
LOGS="$CGPLAN_FIXTURES/sglang-logs"
TEST_TMP=$(mktemp -d)
trap 'rm -rf "$TEST_TMP"' EXIT
export HOME="$TEST_TMP/home" XDG_CONFIG_HOME="$TEST_TMP/config" XDG_DATA_HOME="$TEST_TMP/data"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
unset CGPLAN_DB CGPLAN_PRESETS
failures=0
checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }

# expect_exit CODE CMD... : runs CMD, stores stdout/stderr in $OUT/$ERR, checks the exit code.
expect_exit() {
  local want=$1; shift
  set +e
  OUT=$("$@" 2>"$TEST_TMP/stderr"); local got=$?
  set -e
  ERR=$(cat "$TEST_TMP/stderr")
  if [ "$got" -ne "$want" ]; then fail "exit $got, want $want: $* | stderr: $ERR"; else pass; fi
}

# check_py 'python expression over j (the JSON in $OUT)' description
check_py() {
  if printf '%s' "$OUT" | python3 -c "import json,sys; j=json.load(sys.stdin); sys.exit(0 if ($1) else 1)"; then
    pass
  else
    fail "$2: $1"
    printf '%s\n' "$OUT" | head -c 3000 >&2
  fi
}

# contains HAYSTACK NEEDLE description
contains() { case "$1" in *"$2"*) pass ;; *) fail "$3: '$2' not in: $(printf '%s' "$1" | head -c 500)" ;; esac; }
one_line() { [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ] && pass || fail "$2: expected one line, got: $1"; }

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}
