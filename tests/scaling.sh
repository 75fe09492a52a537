#!/usr/bin/env bash
# Every writer, the reader, --compare, the shape table and a phase's statistics are linear (or n log n)
# in their input: callgrind counts each one's instructions (run_case only) at N and 10 N, and a ratio
# past 15 fails.
# At N = 3000 today's code gives 10.4 at most. The quadratic paths this guards against gave 17 and 25 at
# N = 3000 (HTML kernel shares, Chrome request lanes), 71 and 98 at N = 1000 (--compare, shape keys).
# Instruction counts, unlike times, are the same on a busy machine.
#   usage: tests/scaling.sh [path/to/ttft_tpot_scaling] [N]
set -euo pipefail
bin=${1:-build/tests/ttft_tpot_scaling}
n=${2:-3000}
command -v valgrind >/dev/null || { echo "scaling: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # case, size: instructions in run_case
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect=run_case "$bin" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:/ {print $2; exit}' "$out/cg"
}
status=0
for c in ${CASES:-text json prometheus chrome trace_write trace_read html compare shapes phase_stats}; do
  a=$(count "$c" "$n")
  b=$(count "$c" $((10 * n)))
  awk -v c="$c" -v a="$a" -v b="$b" -v n="$n" 'BEGIN {
    r = b / a
    printf "%-12s %12.0f instructions at N=%d, %13.0f at 10 N: %5.2fx%s\n", c, a, n, b, r,
           (r > 15 ? "  NOT LINEAR" : "")
    exit (r > 15) }' || status=1
done
exit $status
