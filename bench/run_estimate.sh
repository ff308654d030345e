#!/usr/bin/env bash
# Estimator speed: C engine vs a straightforward Python implementation of the same formulas on
# the same sweep. Prints both rates, checks the checksums agree, and prints the ratio.
# Usage: bench/run_estimate.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
secs=${2:-4}
c_out=$("$build/bench/bench_estimate" k3-dp16 "$secs")
py_out=$(python3 "$here/bench_estimate.py" "$secs")
echo "$c_out"; echo "$py_out"
c_rate=$(echo "$c_out" | awk '/^terms/ {print $(NF-6)}' | tr -d ' ')
c_sum=$(echo "$c_out" | awk '/^terms/ {print $NF}')
py_rate=$(echo "$py_out" | awk '{print $(NF-6)}')
py_sum=$(echo "$py_out" | awk '{print $NF}')
[ "$c_sum" = "$py_sum" ] && echo "checksums agree ($c_sum)" || { echo "CHECKSUMS DIFFER: C $c_sum, Python $py_sum"; exit 1; }
awk -v c="$c_rate" -v p="$py_rate" 'BEGIN { printf "C / Python: %.0fx faster\n", c / p }'
