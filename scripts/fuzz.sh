#!/usr/bin/env bash
# scripts/fuzz.sh — build the libFuzzer harnesses of fuzz/ and run each for SECONDS (docs/RELIABILITY.md).
#
#   scripts/fuzz.sh SECONDS [HARNESS...]     HARNESS: parse, check, alloc (default: all three)
#
# Builds build-fuzz/fuzz_{parse,check,alloc} with clang++ -fsanitize=fuzzer,address,undefined (rebuilt
# only when a source or header is newer), then for each harness:
#   1. replays every input of fuzz/corpus once (the seed corpus and every bug input ever found), naming
#      each one that fails, and
#   2. fuzzes for SECONDS seconds (SECONDS=0 skips this step: replay only), growing the working corpus
#      build-fuzz/corpus-HARNESS (seeded from the passing inputs of fuzz/corpus, which is never written).
# Crashes, leaks, timeouts and sanitizer reports go to build-fuzz/artifacts/. One harness runs at a time
# (the build machine has two cores). Exit status 0 only if no harness found anything (a failing corpus
# input counts: fuzz/corpus keeps every bug input, so the smoke stays red until the bug is fixed).
# Environment: FUZZ_JOBS (libFuzzer -jobs/-workers, default 1), FUZZ_ARGS (extra libFuzzer flags).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS [parse|check|alloc ...]" >&2
  exit 1
fi
seconds=$1; shift
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(parse check alloc)

CXX=${CXX_FUZZ:-clang++}
out=build-fuzz
mkdir -p "$out/artifacts"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -Wall -Wextra -Wpedantic -Werror -Iinclude)

# Per-harness libFuzzer settings: input size cap and the per-input timeout (seconds).
max_len() { case $1 in alloc) echo 4096 ;; *) echo 16384 ;; esac; }
timeout_of() { case $1 in alloc) echo 30 ;; *) echo 10 ;; esac; }

newest_source() { find include fuzz/fuzz_"$1".cpp -type f -newer "$out/fuzz_$1" 2>/dev/null | head -n 1; }

for h in "${harnesses[@]}"; do
  case $h in parse|check|alloc) ;; *) echo "fuzz.sh: unknown harness '$h' (parse, check, alloc)" >&2; exit 1 ;; esac
  if [ ! -x "$out/fuzz_$h" ] || [ -n "$(newest_source "$h")" ]; then
    echo "== building $out/fuzz_$h"
    "$CXX" "${flags[@]}" "fuzz/fuzz_$h.cpp" -o "$out/fuzz_$h" || { echo "fuzz.sh: build of fuzz_$h failed" >&2; exit 1; }
  fi
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
for h in "${harnesses[@]}"; do
  bin=$out/fuzz_$h
  common=(-max_len="$(max_len "$h")" -timeout="$(timeout_of "$h")" -rss_limit_mb=2048
          -dict=fuzz/gca.dict -artifact_prefix="$out/artifacts/$h-" -print_final_stats=1)
  # Replay: every input of fuzz/corpus once, each on its own so that every failing one is named. The
  # ones that pass seed the fuzzing step (a known crasher would stop libFuzzer before it starts).
  seeds=$out/seeds-$h
  rm -rf "$seeds"; mkdir -p "$seeds"
  n=0; bad=0
  for f in fuzz/corpus/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if "$bin" "${common[@]}" -runs=1 "$f" > "$out/replay-$h.log" 2>&1; then
      cp "$f" "$seeds/"
    else
      bad=$((bad + 1))
      echo "fuzz.sh: fuzz_$h FAILS on $f:"
      grep -E 'ERROR|fuzz_[a-z]+:|SUMMARY|what\(\)' "$out/replay-$h.log" | head -n 6 | sed 's/^/    /'
    fi
  done
  echo "== fuzz_$h: replayed fuzz/corpus: $n inputs, $bad failing"
  [ $bad -ne 0 ] && status=1
  [ "$seconds" = 0 ] && continue
  mkdir -p "$out/corpus-$h"
  echo "== fuzz_$h: fuzzing for $seconds s (log: $out/fuzz-$h.log)"
  # shellcheck disable=SC2086
  "$bin" "${common[@]}" -max_total_time="$seconds" ${FUZZ_ARGS:-} "$out/corpus-$h" "$seeds" \
    > "$out/fuzz-$h.log" 2>&1
  rc=$?
  grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$out/fuzz-$h.log" | tr '\n' ' '; echo
  if [ $rc -ne 0 ]; then
    echo "fuzz.sh: fuzz_$h found a problem (exit $rc):"; grep -E 'ERROR|error:|fuzz_[a-z]+:|SUMMARY|Test unit written' "$out/fuzz-$h.log" | head -n 20
    status=1
  fi
done
[ $status = 0 ] && echo "fuzz.sh: ok (${harnesses[*]})" || echo "fuzz.sh: FAILED"
exit $status
