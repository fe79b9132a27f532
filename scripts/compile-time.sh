#!/usr/bin/env bash
# Compile-time benchmark (docs/PERFORMANCE.md): g++ -O2 CPU seconds (user + system) and peak memory of the
# translation units a user of gca writes, against the headers of a baseline revision in the same run, so
# the ratio is what counts (this machine's speed varies by about 10 % over a session).
#   include only       benchmarks/compile_time/include_only.cpp    (<gca/gca.hpp>, every layer)
#   include layers     benchmarks/compile_time/include_layers.cpp  (<gca/ir.hpp> + <gca/allocators.hpp>)
#   one allocator      benchmarks/compile_time/one_allocator.cpp   (those two, parser + coloring_allocator_sb)
#   the eight          benchmarks/compile_time/eight_allocators.cpp (+ the with-loop driver)
#   quick_start        examples/quick_start.cpp (+ pipelines and the verifier)
# Each is also compiled in the compiled mode (-DGCA_COMPILED, include/gca/compiled.hpp: the standard
# allocators' instantiations come from the gca_compiled library, whose one file is measured last).
# Usage: scripts/compile-time.sh [BASE_REV [RUNS]]   (default: BASE_REV = HEAD, RUNS = 3; medians)
# A revision without the per-layer headers (gca/ir.hpp, gca/allocators.hpp, ...) compiles each file with
# <gca/gca.hpp> in their place, which is what a user of that revision had to write.
# Prints a markdown table: TU, base s, now s, ratio now/base, now peak MB, compiled-mode s and MB.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}; runs=${2:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
git archive "$base" include | tar -xf - -C "$tmp"   # the baseline's headers
cxx=${CXX:-g++}
measure() {  # measure INCLUDE_DIR TU [FLAG] -> "median_cpu_seconds peak_mb"
  local i tu=$2; : > "$tmp/times"
  if [ ! -f "$1/gca/allocators.hpp" ]; then  # before the per-layer headers: the umbrella in their place
    tu="$tmp/$(basename "$2")"
    sed -E 's#<gca/(ir|allocators|engine|pipeline|verify)\.hpp>#<gca/gca.hpp>#' "$2" > "$tu"
  fi
  for ((i = 0; i < runs; ++i)); do
    /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$cxx" -std=c++20 -O2 ${3:-} -I"$1" -c "$tu" -o "$tmp/x.o"
    awk '{printf "%.2f %d\n", $1 + $2, $3 / 1024}' "$tmp/t" >> "$tmp/times"
  done
  sort -n "$tmp/times" | awk -v n="$runs" 'NR == int((n + 1) / 2) {print}'
}
echo "| translation unit | base ($base) s | now s | now / base | now peak MB | compiled mode s | compiled mode MB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for tu in benchmarks/compile_time/include_only.cpp benchmarks/compile_time/include_layers.cpp \
          benchmarks/compile_time/one_allocator.cpp \
          benchmarks/compile_time/eight_allocators.cpp examples/quick_start.cpp; do
  read -r b _ < <(measure "$tmp/include" "$tu")
  read -r n mb < <(measure include "$tu")
  read -r c cmb < <(measure include "$tu" -DGCA_COMPILED)
  awk -v t="$(basename "$tu" .cpp)" -v b="$b" -v n="$n" -v mb="$mb" -v c="$c" -v cmb="$cmb" \
    'BEGIN {printf "| %s | %s | %s | %.2f | %s | %s | %s |\n", t, b, n, n / b, mb, c, cmb}'
done
read -r l lmb < <(measure include include/gca/compiled.cpp)
echo "| (the gca_compiled library, once per build) | | | | | $l | $lmb |"
