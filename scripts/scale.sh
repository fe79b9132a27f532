#!/usr/bin/env bash
# scale.sh [--matmuls M] [--dram-live D] [--allocator coloring|lsa] [POINTS...]: generates kernels with gca-gen and times
# gca-alloc at -O2 and -O6 (wall time and peak resident memory from /usr/bin/time), printing a Markdown
# table for docs/PERFORMANCE.md. --matmuls M is passed to gca-gen (matmuls per contraction step: more
# points per tensor; 90 gives about 10 points per tensor) and --dram-live D (D DRAM tensors live at once,
# three more points each), --allocator to gca-alloc.
set -euo pipefail
cd "$(dirname "$0")/.."
gen_args=()
alloc_args=()
while [ $# -ge 2 ]; do
  case "$1" in
    --matmuls) gen_args+=(--matmuls "$2"); shift 2 ;;
    --dram-live) gen_args+=(--dram-live "$2"); shift 2 ;;
    --allocator) alloc_args=(--allocator "$2"); shift 2 ;;
    *) break ;;
  esac
done
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000 1000000)
tmp=$(mktemp -d)
echo "| points | tensors | -O2 time | -O2 peak RSS | -O6 time | -O6 peak RSS |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  build/examples/gca-gen --points "$n" "${gen_args[@]}" > "$tmp/k.gca"
  tensors=$(grep -c '^  tensor ' "$tmp/k.gca")
  row="| $n | $tensors"
  for level in -O2 -O6; do
    /usr/bin/time -f "%e %M" -o "$tmp/t" build/examples/gca-alloc "$level" "${alloc_args[@]}" --emit-ir "$tmp/out.gca" "$tmp/k.gca" 2>/dev/null
    read -r secs kb < "$tmp/t"
    row="$row | ${secs} s | $((kb / 1024)) MiB"
  done
  echo "$row |"
done
rm -rf "$tmp"
