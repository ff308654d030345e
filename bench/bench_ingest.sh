#!/usr/bin/env bash
# Ingest throughput and peak memory on a log of at least 1 GiB built from the fixture logs,
# beside `grep -c 'Capturing batches'` on the same file (the floor: one pass, no parsing).
# Each repetition of the fixtures starts with a counter line, so no two stretches are identical.
# Each rate is the best of RUNS rounds (default 5) over the same file, the page cache warm for
# all: one run on a shared machine can lose a third to a neighbour, and the VM's speed drifts by
# as much over minutes; the best of five is the program's more often than the best of three was
# (two benches a minute apart gave dry-run ratios of 0.43 and 0.53 at RUNS=3). Each run starts
# after a sync, so none pays for writing back what an earlier step wrote (the 1 GiB log itself, a
# store run's 200 MiB): on a 2-core VM the kernel's flusher competes with the ingest's threads.
# Usage: bench/bench_ingest.sh [BUILD_DIR] [MIB]     (MIB: the log's size, default 1024)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
mib=${2:-1024}
runs=${RUNS:-5}
cgplan="$build/cgplan"
[ -x "$cgplan" ] || { echo "no $cgplan: build first (cmake --build build)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cgplan-bench-ingest.XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$work/big.log"

python3 - "$here/../tests/fixtures/sglang-logs" "$log" "$mib" <<'PY'
import glob, os, sys
src, out, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
texts = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(src, "*.log")))]
texts = [t if t.endswith(b"\n") else t + b"\n" for t in texts]
block = b"".join(texts)
want = mib << 20
with open(out, "wb") as f:
    n = 0
    while f.tell() < want:
        f.write(b"# bench repetition %d\n" % n)
        f.write(block)
        n += 1
PY
sync
bytes=$(stat -c %s "$log")
echo "log: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }') from $(ls "$here/../tests/fixtures/sglang-logs/"*.log | wc -l) fixtures, best of $runs runs each"

now() { date +%s.%N; }
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%8.1f MB/s (%.2f s)", b / 1e6 / s, s }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
better() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; } # true when A < B

# One round: grep (the floor: one pass, no parsing), the dry run (parsing only), then the store
# (parse, hash and store every run in one transaction into a fresh store, while a probe tries the
# write lock every 50 ms: how long the ingest keeps every other writer out). The rounds alternate
# the three, so each ratio compares runs made a few seconds apart: this VM's speed drifts by a
# third over a minute, and three greps, then three dry runs, then three stores put the drift
# into the ratios.
grep_once() {
  sync
  t0=$(now); bars=$(grep -c 'Capturing batches' "$log"); t1=$(now)
  s=$(secs "$t0" "$t1")
  if [ -z "$grep_s" ] || better "$s" "$grep_s"; then grep_s=$s; fi
}
dry_once() {
  sync
  t0=$(now); CGPLAN_REPORT_PEAK=1 "$cgplan" ingest --dry-run "$log" > "$work/dry.out" 2> "$work/dry.err"; t1=$(now)
  s=$(secs "$t0" "$t1")
  if [ -z "$dry_s" ] || better "$s" "$dry_s"; then dry_s=$s; cp "$work/dry.err" "$work/dry.best"; fi
}
store_once() {
  local i=$1 db="$work/runs$1.db"
  "$cgplan" runs list --db "$db" > /dev/null
  python3 - "$db" "$work/held$i" <<'PROBE' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
held = 0.0
while True:
    t = time.monotonic()
    try:
        c.execute("BEGIN IMMEDIATE")
        c.execute("ROLLBACK")
        locked = False
    except sqlite3.OperationalError:
        locked = True
    time.sleep(0.05)
    held += time.monotonic() - t if locked else 0
    with open(sys.argv[2] + ".new", "w") as f:  # replaced whole: the kill may come mid-write
        f.write("%.1f" % held)
    os.replace(sys.argv[2] + ".new", sys.argv[2])
PROBE
  local probe=$!
  sync
  t0=$(now); CGPLAN_REPORT_PEAK=1 "$cgplan" ingest --db "$db" "$log" > "$work/ingest.out" 2> "$work/ingest.err"; t1=$(now)
  kill "$probe"; wait "$probe" 2> /dev/null || true
  s=$(secs "$t0" "$t1")
  if [ -z "$store_s" ] || better "$s" "$store_s"; then
    store_s=$s
    best=$i
    cp "$work/ingest.err" "$work/ingest.best"
    stored=$(grep -c '^stored run' "$work/ingest.out")
    store_mib=$(du -m "$db" | cut -f1)
  fi
  rm -f "$db" "$db-wal" "$db-shm" # a fresh store each round
}

grep -c 'Capturing batches' "$log" > /dev/null # the page cache warm for everyone
grep_s= dry_s= store_s= best= store_mib=
for i in $(seq "$runs"); do
  grep_once
  dry_once
  store_once "$i"
done
runs_seen=$(grep -c '^would store run' "$work/dry.out")
echo "grep -c 'Capturing batches'      $(rate "$grep_s")  -> $bars lines"
echo "cgplan ingest --dry-run           $(rate "$dry_s")  peak RSS $(awk '/peak RSS/ {print $(NF-1), $NF}' "$work/dry.best"), $runs_seen runs"
echo "cgplan ingest (store)             $(rate "$store_s")  peak RSS $(awk '/peak RSS/ {print $(NF-1), $NF}' "$work/ingest.best"), $stored runs stored, store $store_mib MiB"
echo "  write lock held                 $(cat "$work/held$best" 2> /dev/null || echo 0) s of $(awk -v s="$store_s" 'BEGIN { printf "%.1f", s }') s (other writers wait only then)"

# the rates as fractions of grep's over the same bytes (issue 10 asks for dry-run >= 0.5 and
# store >= 0.15): time ratios, so the log's size cancels
awk -v g="$grep_s" -v d="$dry_s" 'BEGIN { printf "dry-run / grep: %.2f\n", g / d }'
awk -v g="$grep_s" -v s="$store_s" 'BEGIN { printf "store / grep: %.2f\n", g / s }'
