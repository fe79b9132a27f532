#!/usr/bin/env bash
# dense.sh [--graph]: the "Dense traces" table of docs/PERFORMANCE.md. Generates dense training-step
# traces with gca-gen (--trace BUFFERS --live N), adds the shared traces and the sparse generated 62k
# trace, and for each prints one Markdown row: gca-pack end to end (wall time, CPU time (user + system,
# all threads) and peak resident memory from /usr/bin/time, default options: two threads on this
# machine, `auto` interference) and, measured in
# the same run by bench-dense, the classical size-descending best fit both naive (O(n^2), TFLite / XLA
# style) and on gca's interval index. --graph adds gca-pack --interference graph (slow and large on the
# dense traces: minutes and gigabytes for the 62k one). Needs build/ with benchmarks enabled.
set -euo pipefail
cd "$(dirname "$0")/.."
graph=0; [ "${1:-}" = "--graph" ] && graph=1
tmp=$(mktemp -d)
files=()
for spec in 18000:1000 28500:3200 62000:9000; do
  build/examples/gca-gen --trace "${spec%%:*}" --live "${spec##*:}" > "$tmp/dense${spec%%:*}.csv"
  files+=("$tmp/dense${spec%%:*}.csv")
done
build/examples/gca-gen --trace 62000 > "$tmp/sparse62000.csv"
files+=(benchmarks/data/dsa/traces/G_1.csv benchmarks/data/dsa/traces/resnet50.csv "$tmp/sparse62000.csv")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f %%", 100 * (a / b - 1) }'; }
echo "| trace | buffers | live at once | pairs | max-live | gca-pack peak | wall | CPU | RSS | path | naive best fit peak | time | sweep best fit time |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
for f in "${files[@]}"; do
  read -r name buffers most pairs lower npeak ntime speak stime < <(build/benchmarks/bench-dense "$f")
  [ "$npeak" = "$speak" ] || { echo "sweep best fit $speak differs from naive $npeak on $name" >&2; exit 1; }
  modes=(auto); [ $graph = 1 ] && modes+=(graph)
  for mode in "${modes[@]}"; do
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" build/examples/gca-pack --interference "$mode" -o "$tmp/out.csv" "$f" 2> "$tmp/log"
    read -r secs user sys kb < "$tmp/t"
    peak=$(sed -n 's/.* peak=\([0-9]*\) .*/\1/p' "$tmp/log")
    path=$(sed -n 's/.*interference=\([a-z]*\).*/\1/p' "$tmp/log")
    echo "| $name | $buffers | $most | $pairs | $lower | $peak ($(pct "$peak" "$lower")) | ${secs} s | $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') s | $((kb / 1024)) MiB | $path | $npeak ($(pct "$npeak" "$lower")) | $(printf %.2f "$ntime") s | $(printf %.2f "$stime") s |"
  done
done
rm -rf "$tmp"
