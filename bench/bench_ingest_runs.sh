#!/usr/bin/env bash
# Peak memory of `cgplan ingest` against the number of runs in a log: a log of N short runs
# (three lines each: weights, capture begin, capture end, 283 bytes) for each N, stored into a
# fresh store and dry-run, and the bytes each further run adds to the peak, between the smallest
# and the largest N. The dry run is the baseline: it keeps nothing per run. A stored ingest that
# keeps its memory bounded in the run count shows about the same slope.
# Usage: bench/bench_ingest_runs.sh [BUILD_DIR] [N ...]     (default: 250000 1000000 4000000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(250000 1000000 4000000)
cgplan="$build/cgplan"
[ -x "$cgplan" ] || { echo "no $cgplan: build first (cmake --build build)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cgplan-bench-runs.XXXXXX")
trap 'rm -rf "$work"' EXIT

peak_kib() { awk '/peak RSS/ { printf "%d", $(NF-1) }' "$1"; }
printf "%10s %14s %14s\n" runs "dry-run peak" "stored peak"
first_n= first_dry= first_store= n= dry= stored=
for n in "${counts[@]}"; do
  python3 - "$work/runs.log" "$n" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    for i in range(n):  # the mem usage varies, so runs are not all alike
        s = i % 60
        f.write("[2026-01-01 00:00:%02d TP0] Load weight begin. avail mem=93.61 GB\n" % s)
        f.write("[2026-01-01 00:00:%02d TP0] Capture cuda graph begin. This can take up to several minutes. "
                "avail mem=20.00 GB\n" % s)
        f.write("[2026-01-01 00:00:%02d TP0] Capture cuda graph end. Time elapsed: 1.00 s. mem usage=%.2f GB. "
                "avail mem=19.00 GB.\n" % (s, 1 + (i % 97) / 100))
PY
  CGPLAN_REPORT_PEAK=1 "$cgplan" ingest --dry-run "$work/runs.log" > /dev/null 2> "$work/dry.err"
  rm -f "$work/runs.db"*
  CGPLAN_REPORT_PEAK=1 "$cgplan" ingest --db "$work/runs.db" "$work/runs.log" > "$work/store.out" 2> "$work/store.err"
  got=$(grep -c '^stored run' "$work/store.out" || true)
  [ "$got" = "$n" ] || { echo "stored $got runs of $n:"; tail -3 "$work/store.err"; exit 1; }
  dry=$(peak_kib "$work/dry.err") stored=$(peak_kib "$work/store.err")
  printf "%10d %11.1f MiB %11.1f MiB\n" "$n" "$(awk -v k="$dry" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$stored" 'BEGIN { print k / 1024 }')"
  [ -n "$first_n" ] || { first_n=$n first_dry=$dry first_store=$stored; }
done
if [ "$n" != "$first_n" ]; then
  awk -v a="$first_n" -v b="$n" -v d0="$first_dry" -v d1="$dry" -v s0="$first_store" -v s1="$stored" 'BEGIN {
    printf "bytes per further run, %d to %d runs: dry run %.1f, stored %.1f\n", a, b,
      (d1 - d0) * 1024 / (b - a), (s1 - s0) * 1024 / (b - a) }'
fi
