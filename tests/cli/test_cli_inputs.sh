#!/usr/bin/env bash
# Inputs as operators type them (issue 9): global options before the command, "did you mean",
# ingest from stdin and a gzip'd log named as such, runs rm asking; the docs stay inside the
# repository and install with cmake --install.
source "$CGPLAN_TESTLIB"
DB="$TEST_TMP/runs.db"
expect_exit 0 "$CGPLAN" --db "$DB" runs list
contains "$OUT" "article (reconstructed)" "global --db before the command"
expect_exit 0 "$CGPLAN" --format json estimate --preset k3-dp16
check_py "j['preset'] == 'k3-dp16'" "global --format before the command"
expect_exit 2 "$CGPLAN" estimat --preset k3-dp16
contains "$ERR" "did you mean estimate" "did you mean: command"
expect_exit 2 "$CGPLAN" estimate --preset k3-dp61
contains "$ERR" "did you mean k3-dp16" "did you mean: preset"
expect_exit 2 "$CGPLAN" estimate --preset k3-dp16 --set max_bz=3
contains "$ERR" "did you mean max_bs" "did you mean: knob"
LOG="$LOGS/02-tp8-tqdm-newline-per-bs-avail.log"
OUT=$("$CGPLAN" ingest --dry-run --preset k3-dp16 - <"$LOG" 2>&1) && pass || fail "ingest - reads stdin: $OUT"
contains "$OUT" "stdin" "ingest - names its source stdin"
gzip -c "$LOG" >"$TEST_TMP/log.gz"
expect_exit 1 "$CGPLAN" ingest --dry-run --preset k3-dp16 "$TEST_TMP/log.gz"
contains "$ERR" "gzip-compressed" "a gzip'd log is named as such"
expect_exit 2 "$CGPLAN" --db "$DB" runs rm 1 </dev/null
contains "$ERR" "--yes" "runs rm without a terminal asks for --yes"
# the README points nowhere outside the repository
src=${CGPLAN_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if grep -n '\.\./' "$src/README.md"; then fail "README links outside the repository"; else pass; fi
[ -f "$src/doc/cgplan.1" ] && [ -f "$src/doc/cgplan.bash" ] && pass || fail "doc/cgplan.1 and doc/cgplan.bash"
build=$(dirname "$CGPLAN")
if [ -f "$build/cmake_install.cmake" ]; then
  cmake --install "$build" --prefix "$TEST_TMP/prefix" >/dev/null 2>&1 && pass || fail "cmake --install"
  [ -f "$TEST_TMP/prefix/share/man/man1/cgplan.1" ] && pass || fail "man page installed"
  [ -f "$TEST_TMP/prefix/share/bash-completion/completions/cgplan" ] && pass || fail "completion installed"
fi
finish
