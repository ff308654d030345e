#!/usr/bin/env bash
# Reliability of the store under ingest (issue 11): concurrent ingests, an ingest reading a pipe
# while others write, a store locked by another process, kill -9 at any moment, a full disk.
# Sized for CI (2 cores, this file well under a minute; the same under the sanitizers).
source "$CGPLAN_TESTLIB"
set -e
DP2="$LOGS/k3-dp2-dcp8-b200-article.log"
DP16="$LOGS/k3-dp16-b200-article.log"
L27="$LOGS/27-2025-01-docs-llama31-8b-h100-kv-no-tokens-end-no-mem.log"
runs_json() { "$CGPLAN" runs list --db "$1" --format json; }
count() { sqlite3 "$1" "SELECT count(*) FROM $2"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# gen_log OUT MIB TAG: the fixture logs repeated to MIB MiB, each repetition behind a comment
# line, the first line TAG (so every generated log has its own hash).
gen_log() {
  python3 - "$LOGS" "$1" "$2" "$3" <<'PY'
import glob, os, sys
src, out, mib, tag = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
texts = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(src, "*.log")))]
block = b"".join(t if t.endswith(b"\n") else t + b"\n" for t in texts)
with open(out, "wb") as f:
    f.write(b"# %s\n" % tag.encode())
    n = 0
    while f.tell() < mib * (1 << 20):
        f.write(b"# repetition %d\n" % n + block)
        n += 1
PY
}

# --- eight concurrent ingests of distinct 16 MiB logs into one store: every one succeeds
CDB="$TEST_TMP/concurrent.db"
"$CGPLAN" runs list --db "$CDB" > /dev/null
gen_log "$TEST_TMP/c0.log" 16 concurrent-0
PER=$("$CGPLAN" ingest --dry-run "$TEST_TMP/c0.log" | grep -c '^would store run')
[ "$PER" -gt 2000 ] && pass || fail "generated log holds only $PER runs"
for n in 1 2 3 4 5 6 7 8; do { echo "# concurrent $n"; cat "$TEST_TMP/c0.log"; } > "$TEST_TMP/c$n.log"; done
t0=$(now)
pids=()
for n in 1 2 3 4 5 6 7 8; do
  "$CGPLAN" ingest --db "$CDB" "$TEST_TMP/c$n.log" > "$TEST_TMP/c$n.out" 2> "$TEST_TMP/c$n.err" & pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
echo "concurrent: 8 x 16 MiB ingests ($PER runs each) in $(since "$t0") s, $failed failed"
[ "$failed" = 0 ] && pass || fail "$failed of 8 concurrent ingests failed: $(cat "$TEST_TMP"/c*.err | head -3)"
[ "$(count "$CDB" runs)" = $((2 + 8 * PER)) ] && pass || fail "concurrent: $(count "$CDB" runs) runs, want $((2 + 8 * PER))"
[ "$(sqlite3 "$CDB" 'PRAGMA integrity_check')" = ok ] && pass || fail "concurrent: integrity_check"
# each file's runs are contiguous and whole: one transaction per file
[ "$(sqlite3 "$CDB" "SELECT count(DISTINCT path) FROM runs WHERE path IS NOT NULL GROUP BY path HAVING count(*) = $PER AND max(id) - min(id) = $PER - 1" | wc -l)" = 8 ] \
  && pass || fail "concurrent: a file's runs are not contiguous"
rm -f "$TEST_TMP"/c[0-9].log

# --- an ingest reading a pipe held open for 5 s blocks no other writer waiting 2 s
PDB="$TEST_TMP/pipe.db"
"$CGPLAN" runs list --db "$PDB" > /dev/null
mkfifo "$TEST_TMP/fifo"
{ sed '1i # through a pipe' "$DP2"; sleep 5; echo "# the end"; } > "$TEST_TMP/fifo" &
WP=$!
"$CGPLAN" ingest --db "$PDB" "$TEST_TMP/fifo" > "$TEST_TMP/pipe.out" 2>&1 &
PP=$!
sleep 0.5
t0=$(now)
expect_exit 0 env CGPLAN_BUSY_TIMEOUT_MS=2000 "$CGPLAN" ingest --db "$PDB" "$L27"
contains "$OUT" "stored run 3" "a second ingest while the first reads a pipe"
expect_exit 0 env CGPLAN_BUSY_TIMEOUT_MS=2000 "$CGPLAN" runs rm 1 --yes --db "$PDB"
t=$(since "$t0")
awk -v t="$t" 'BEGIN { exit !(t < 2) }' && pass || fail "the other writers waited $t s for the pipe's reader"
kill -0 "$PP" 2>/dev/null && pass || fail "the pipe's ingest ended before the others wrote"
wait "$WP"
if wait "$PP"; then pass; else fail "the pipe's ingest failed: $(cat "$TEST_TMP/pipe.out")"; fi
grep -q "stored run 4" "$TEST_TMP/pipe.out" && pass || fail "the pipe's run: $(cat "$TEST_TMP/pipe.out")"
echo "pipe: held 5 s; a second ingest and a runs rm (busy timeout 2 s) done in $t s"

# --- a store locked by another process: ingest waits, then fails with the fix; data untouched
LDB="$TEST_TMP/locked.db"
"$CGPLAN" ingest --db "$LDB" "$L27" > /dev/null
runs_json "$LDB" > "$TEST_TMP/locked.before"
hold() { # hold DB SECONDS READYFILE: a write transaction (an uncommitted DELETE of every run)
  python3 - "$@" <<'PY' &
import sqlite3, sys, time
db, secs, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
c = sqlite3.connect(db, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("DELETE FROM runs")
open(ready, "w").close()
time.sleep(secs)
c.execute("ROLLBACK")
PY
  HP=$!
  for _ in $(seq 100); do [ -e "$3" ] && break; sleep 0.05; done
}
sed '1i # while locked' "$DP16" > "$TEST_TMP/locked.log"
hold "$LDB" 5 "$TEST_TMP/ready1"
t0=$(now)
expect_exit 1 env CGPLAN_BUSY_TIMEOUT_MS=1500 "$CGPLAN" ingest --db "$LDB" "$TEST_TMP/locked.log"
t=$(since "$t0")
awk -v t="$t" 'BEGIN { exit !(t >= 1.5 && t < 4.5) }' && pass || fail "locked: failed after $t s, want about 1.5"
one_line "$ERR" "locked: one line"
contains "$ERR" "$TEST_TMP/locked.log" "locked: names the log"
contains "$ERR" "$LDB" "locked: names the store"
contains "$ERR" "write lock" "locked: says why"
contains "$ERR" "try again when it is done" "locked: the fix"
contains "$ERR" "CGPLAN_BUSY_TIMEOUT_MS" "locked: how to wait longer"
contains "$ERR" "nothing of this file was stored" "locked: what became of the file"
[ -z "$OUT" ] && pass || fail "locked: a file not stored was reported: $OUT"
expect_exit 1 env CGPLAN_BUSY_TIMEOUT_MS=500 "$CGPLAN" runs rm 1 --yes --db "$LDB"
contains "$ERR" "try again when it is done" "locked rm: the fix"
wait "$HP"
runs_json "$LDB" > "$TEST_TMP/locked.after"
cmp -s "$TEST_TMP/locked.before" "$TEST_TMP/locked.after" && pass || fail "locked: the stored runs changed"
[ "$(sqlite3 "$LDB" 'PRAGMA integrity_check')" = ok ] && pass || fail "locked: integrity_check"
hold "$LDB" 1.5 "$TEST_TMP/ready2"
t0=$(now)
expect_exit 0 env CGPLAN_BUSY_TIMEOUT_MS=10000 "$CGPLAN" ingest --db "$LDB" "$DP16"
t=$(since "$t0")
contains "$OUT" "already stored" "locked: a stored copy is still reported"
awk -v t="$t" 'BEGIN { exit !(t < 1) }' && pass || fail "locked: a stored copy took $t s: it waited for the lock"
wait "$HP"
# a holder that lets go within the wait: the ingest waits and stores
hold "$LDB" 1.5 "$TEST_TMP/ready3"
sed '1i # after a wait' "$DP16" > "$TEST_TMP/wait.log"
t0=$(now)
expect_exit 0 env CGPLAN_BUSY_TIMEOUT_MS=10000 "$CGPLAN" ingest --db "$LDB" "$TEST_TMP/wait.log"
t=$(since "$t0")
contains "$OUT" "stored run" "locked briefly: stored after the wait"
awk -v t="$t" 'BEGIN { exit !(t >= 1.0) }' && pass || fail "locked briefly: stored after $t s, before the holder let go"
wait "$HP"

# --- kill -9 at 20 moments spread over a whole ingest (parse, write, commit): never a partial
# file, never damage
KDB="$TEST_TMP/kill.db"
"$CGPLAN" runs list --db "$KDB" > /dev/null
gen_log "$TEST_TMP/k.log" 8 kill-0
t0=$(now)
"$CGPLAN" ingest --db "$KDB" "$TEST_TMP/k.log" > /dev/null
T=$(since "$t0")
SEED_RUNS=2
KPER=$(($(count "$KDB" runs) - SEED_RUNS))
# a run's groups and bars are its detail record, in its own row (schema 5): whole with the run
killed=0
bad=0
for i in $(seq 1 20); do
  { echo "# kill $i"; cat "$TEST_TMP/k.log"; } > "$TEST_TMP/ki.log"
  delay=$(awk -v t="$T" -v i="$i" 'BEGIN { printf "%.3f", 0.85 * t * (i - 0.5) / 20 }')
  "$CGPLAN" ingest --db "$KDB" "$TEST_TMP/ki.log" > /dev/null 2>&1 &
  KP=$!
  sleep "$delay"
  kill -9 "$KP" 2>/dev/null && killed=$((killed + 1))
  wait "$KP" 2>/dev/null || true
  runs=$(count "$KDB" runs)
  files=$(((runs - SEED_RUNS) / KPER))
  if [ "$(sqlite3 "$KDB" 'PRAGMA integrity_check')" != ok ] || [ $(((runs - SEED_RUNS) % KPER)) != 0 ] ||
     [ "$(sqlite3 "$KDB" 'SELECT count(*) FROM runs WHERE detail IS NULL OR knobs_text IS NULL')" != 0 ]; then
    bad=$((bad + 1))
    echo "after kill $i at $delay s: $runs runs" >&2
  fi
done
files=$((($(count "$KDB" runs) - SEED_RUNS) / KPER))
echo "kill -9: 20 kills over a $T s ingest of 8 MiB ($KPER runs): $killed landed before the process ended, $((files - 1)) of the files were stored whole, $bad left a partial or damaged store"
[ "$bad" = 0 ] && pass || fail "$bad kills left a partial file or a damaged store"
[ "$killed" -ge 12 ] && pass || fail "only $killed of 20 kills landed mid-ingest"
{ echo "# after the kills"; cat "$TEST_TMP/k.log"; } > "$TEST_TMP/ki.log"
expect_exit 0 "$CGPLAN" ingest --db "$KDB" "$TEST_TMP/ki.log"
[ "$(count "$KDB" runs)" = $((SEED_RUNS + (files + 1) * KPER)) ] && pass || fail "kill: the store takes a whole file after the kills"
[ "$(sqlite3 "$KDB" 'PRAGMA integrity_check')" = ok ] && pass || fail "kill: integrity_check at the end"
rm -f "$TEST_TMP/k.log" "$TEST_TMP/ki.log"

# --- a full disk: the store keeps its data, the error names the disk
# Inside a private mount namespace (nothing to clean up if the test dies), else a plain mount.
cat > "$TEST_TMP/disk.sh" <<'EOF'
set -u
dir=$1 cgplan=$2 log=$3 out=$4
mount -t tmpfs -o size=1m cgplan-test "$dir" || exit 77
trap 'umount "$dir"' EXIT
"$cgplan" ingest --db "$dir/runs.db" "$5" > /dev/null || exit 3
"$cgplan" runs list --db "$dir/runs.db" --format json > "$out.before"
"$cgplan" ingest --db "$dir/runs.db" "$log" > "$out.stdout" 2> "$out.stderr"
echo $? > "$out.rc"
"$cgplan" runs list --db "$dir/runs.db" --format json > "$out.after"
sqlite3 "$dir/runs.db" 'PRAGMA integrity_check' > "$out.integrity"
df -k "$dir" | tail -1 > "$out.df"
EOF
mkdir -p "$TEST_TMP/disk"
gen_log "$TEST_TMP/full.log" 4 full-disk
D="$TEST_TMP/disk-result"
ran=no
for how in "unshare -m --propagation private" "unshare -rm --propagation private" ""; do
  set +e
  $how bash "$TEST_TMP/disk.sh" "$TEST_TMP/disk" "$CGPLAN" "$TEST_TMP/full.log" "$D" "$L27" 2> "$TEST_TMP/disk.err"
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then ran=yes; break; fi
done
if [ "$ran" = no ]; then
  echo "SKIP: full disk: cannot mount a small tmpfs here (needs root or user namespaces): $(head -c 200 "$TEST_TMP/disk.err")"
else
  [ "$(cat "$D.rc")" = 1 ] && pass || fail "full disk: exit $(cat "$D.rc"), want 1"
  ERR=$(cat "$D.stderr")
  one_line "$ERR" "full disk: one line"
  contains "$ERR" "$TEST_TMP/full.log" "full disk: names the log"
  contains "$ERR" "the disk holding $TEST_TMP/disk is full" "full disk: names the disk"
  contains "$ERR" "free space there or pass --db on another disk" "full disk: the fix"
  cmp -s "$D.before" "$D.after" && pass || fail "full disk: the stored runs changed"
  [ ! -s "$D.stdout" ] && pass || fail "full disk: a rolled-back file was reported: $(head -c 300 "$D.stdout")"
  [ "$(cat "$D.integrity")" = ok ] && pass || fail "full disk: integrity_check: $(cat "$D.integrity")"
  echo "full disk: 1 MiB tmpfs, $(cat "$D.df" | awk '{print $4}') KiB left after; $ERR"
fi

finish
