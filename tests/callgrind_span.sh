#!/usr/bin/env bash
# Instructions one span costs outside its clock calls, counted by callgrind: unlike time, the count is
# the same on a busy machine. The benchmark's --callgrind mode runs 100000 spans with a counter for a
# clock (callgrind cannot run the vDSO clock faithfully), and the same 100000 pairs of clock calls
# alone; the difference, divided by 100000, is the span's own work.
#   usage: tests/callgrind_span.sh [path/to/ttft_tpot_bench]
set -euo pipefail
bench=${1:-build/tests/ttft_tpot_bench}
command -v valgrind >/dev/null || { echo "callgrind_span: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1" --toggle-collect="$1" "$bench" --callgrind >/dev/null 2>&1
  awk '/^summary:/ {print $2; exit}' "$out/$1"
}
spans=$(count bench_spans)
clock=$(count bench_clock_only)
awk -v s="$spans" -v c="$clock" 'BEGIN {
  printf "callgrind: %d instructions for 100000 spans, %d for the clock calls alone\n", s, c
  printf "{\"span_instructions\":%.1f}\n", (s - c) / 100000 }'
