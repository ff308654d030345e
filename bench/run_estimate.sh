#!/usr/bin/env bash
# Estimator speed: the C engine vs a straightforward Python implementation of the same formulas
# (and the same wall bisection) on the same sweep, neither caching anything across
# configurations. Prints both rates, checks the checksums agree (they cover every number both
# compute), and the ratios: terms (one estimate, as each probe of the wall) and full (the budget
# at the plan's fraction and the wall with its limiting term: what search runs per layout), the
# closing line being the full estimate's. Build with the default RelWithDebInfo (the engine at -O3).
# Usage: bench/run_estimate.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
secs=${2:-4}
c_out=$("$build/bench/bench_estimate" k3-dp16 "$secs")
py_out=$(python3 "$here/bench_estimate.py" "$secs")
echo "$c_out"; echo "$py_out"
field() { echo "$1" | awk -v k="$2" '$0 ~ "^"k {print $(NF-6)}' | tr -d ' '; }
sum() { echo "$1" | awk -v k="$2" '$0 ~ "^"k {print $NF}'; }
status=0
for kind in terms full; do
  c_rate=$(field "$c_out" "$kind"); c_sum=$(sum "$c_out" "$kind")
  py_rate=$(field "$py_out" "python $kind"); py_sum=$(sum "$py_out" "python $kind")
  if [ "$c_sum" = "$py_sum" ]; then echo "$kind: checksums agree ($c_sum)"; else echo "$kind: CHECKSUMS DIFFER: C $c_sum, Python $py_sum"; status=1; fi
  awk -v k="$kind" -v c="$c_rate" -v p="$py_rate" 'BEGIN { printf "%s: C / Python %.0fx\n", k, c / p }'
done
c_rate=$(field "$c_out" full); py_rate=$(field "$py_out" "python full")
awk -v c="$c_rate" -v p="$py_rate" 'BEGIN { printf "C / Python: %.0fx faster\n", c / p }'
exit $status
