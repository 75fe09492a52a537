#!/usr/bin/env bash
# Instructions the trace reader costs against the floor (a minimal in-place parser, the one the
# benchmark's "parse" part times), counted by callgrind: unlike time, the count is the same on a busy
# machine. One trace of 1e6 lines (the benchmark's driver trace), read once by each, each read a
# function of its own (count_floor, count_library), counted alone.
#   usage: tests/callgrind_parse.sh [path/to/ttft_tpot_trace_bench]
set -euo pipefail
bench=${1:-build/tests/ttft_tpot_trace_bench}
command -v valgrind >/dev/null || { echo "callgrind_parse: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bench" --callgrind-parse write "$out/trace.csv" >/dev/null
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1" --toggle-collect="count_$1" "$bench" \
    --callgrind-parse "$1" "$out/trace.csv" >"$out/$1.n" 2>/dev/null
  awk '/^summary:/ {print $2; exit}' "$out/$1"
}
floor=$(count floor)
library=$(count library)
[ "$(cat "$out/floor.n")" = "$(cat "$out/library.n")" ] || { echo "callgrind_parse: the readers disagree: $(cat "$out/floor.n") and $(cat "$out/library.n") samples" >&2; exit 1; }
awk -v f="$floor" -v l="$library" -v n="$(cat "$out/floor.n")" 'BEGIN {
  printf "callgrind_parse: %d samples; ttft_tpot_trace_read %d instructions (%.1f a line), floor %d (%.1f a line): ratio %.3f (target <= 1.5)\n", n, l, l / n, f, f / n, l / f
  printf "{\"parse_instructions\":%d,\"floor_instructions\":%d,\"parse_ratio\":%.4f}\n", l, f, l / f }'
