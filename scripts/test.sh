#!/usr/bin/env bash
# The test command of the README and of CI: builds ./build (g++ release, NDEBUG) and ./build-asan (clang
# debug with ASan and UBSan), runs the doctest suite and the tool tests in both and the compile checks
# (compile-fail tests, the compiled mode) in ./build, builds and runs the consumer project three ways (scripts/consumers.sh:
# meson subproject, pkg-config, CMake find_package), a reproducible fuzz smoke of each libFuzzer harness,
# and ends with the line
#   tests: N passed, N failed
# counting doctest test cases plus meson's other tests. Exit status 0 only when nothing failed.
#
# After the builds (which use every core), the checks run in two lanes at once, since each doctest suite
# is one process on one core: lane 1 the two doctest suites (optimized, then sanitized); lane 2 the tool
# and compile tests, the consumers and the fuzz smoke. Each lane writes its own log, printed whole and in
# a fixed order when both are done, so the output does not depend on how the lanes interleave.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --asan || { echo "tests: 0 passed, 1 failed"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# Each check prints its output and one line "COUNT passed failed"; the totals are summed from those.
doctest_suite() {
  local dir=$1 skip=()
  echo "== $dir: doctest suite [${SECONDS}s]"
  # Under ASan+UBSan (-O1, about 9x slower) the three generated-program sweeps, which run the exact
  # search on hundreds of refused spaces (4 minutes optimized), are left to the optimized build, and the
  # other sweeps run their first seeds only (tests/support/sanitized.hpp); every other test runs in both.
  [ "$dir" = build-asan ] && skip=("--test-case-exclude=property*,generated programs*,pass cache*")
  local out rc line p f
  out=$("$dir/tests/gca-tests" "${skip[@]}" 2>&1); rc=$?
  echo "$out" | tail -n 40
  echo "$out" | grep -E -A14 "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" | head -n 80
  line=$(echo "$out" | grep -E '^\[doctest\] test cases:' | tail -n 1)
  p=$(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')
  [[ "$p" =~ ^[0-9]+$ ]] || p=0; [[ "$f" =~ ^[0-9]+$ ]] || f=0
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi   # a crash before the summary still fails
  echo "COUNT $p $f"
}

meson_tests() {
  local dir=$1
  # ./build-asan holds the suite and the tools only (scripts/setup.sh): its tool tests run without a rebuild.
  if [ "$dir" = build ]; then
    echo "== $dir: tool and compile tests [${SECONDS}s]"
    meson test -C "$dir" --no-rebuild --no-suite unit --print-errorlogs > "$dir/meson-test.out" 2>&1
  else
    echo "== $dir: tool tests [${SECONDS}s]"
    meson test -C "$dir" --no-rebuild --suite tools --print-errorlogs > "$dir/meson-test.out" 2>&1
  fi
  tail -n 12 "$dir/meson-test.out"
  local ok xf bad=0 k n
  ok=$(grep -E '^Ok:' "$dir/meson-test.out" | awk '{print $2}'); xf=$(grep -E '^Expected Fail:' "$dir/meson-test.out" | awk '{print $3}')
  for k in '^Fail:' '^Unexpected Pass:' '^Timeout:'; do
    n=$(grep -E "$k" "$dir/meson-test.out" | awk '{print $NF}'); [[ "$n" =~ ^[0-9]+$ ]] && bad=$((bad + n))
  done
  [ -n "$ok" ] || bad=$((bad + 1))   # meson did not run
  echo "COUNT $((${ok:-0} + ${xf:-0})) $bad"
}

# Consumers (README "Using gca"): one test per way gca can be consumed.
consumers() {
  echo "== consumers (meson subproject, pkg-config, CMake find_package) [${SECONDS}s]"
  local out c_ok c_bad
  out=$(scripts/consumers.sh 2>&1); echo "$out"
  c_ok=$(echo "$out" | grep -c '^consumer .*: ok$'); c_bad=$(echo "$out" | grep -c '^consumer .*: FAILED')
  [ "$c_ok" = 3 ] || [ "$c_bad" -gt 0 ] || c_bad=1
  echo "COUNT $c_ok $c_bad"
}

# Fuzz smoke (docs/RELIABILITY.md): each libFuzzer harness replays fuzz/corpus (every bug input ever
# found), then runs 3000 inputs from a fixed seed, so the smoke is reproducible: what passes here passes
# in CI. Long fuzzing runs are `scripts/fuzz.sh SECONDS`. Counted as one test per harness.
fuzz_smoke() {
  echo "== fuzz smoke (replay fuzz/corpus, then 3000 inputs per harness, seed 1) [${SECONDS}s]"
  rm -rf build-fuzz/corpus-* build-fuzz/seeds-*
  local h
  for h in parse check alloc; do
    if FUZZ_ARGS="-seed=1 -runs=3000" scripts/fuzz.sh 120 "$h" > "build-fuzz-$h.log" 2>&1; then
      tail -n 2 "build-fuzz-$h.log"; echo "COUNT 1 0"
    else
      tail -n 40 "build-fuzz-$h.log"; echo "COUNT 0 1"
    fi
  done
}

( doctest_suite build; doctest_suite build-asan ) > build/lane1.log 2>&1 &
lane1=$!
( meson_tests build; meson_tests build-asan; consumers; fuzz_smoke ) > build/lane2.log 2>&1
wait "$lane1"
cat build/lane1.log build/lane2.log | grep -v '^COUNT '
read -r passed failed < <(cat build/lane1.log build/lane2.log | awk '/^COUNT /{p += $2; f += $3} END{print p + 0, f + 0}')
# Both lanes must have reported: two suites, two meson runs, the consumers and three harnesses.
n=$(cat build/lane1.log build/lane2.log | grep -c '^COUNT ')
[ "$n" = 8 ] || { echo "test.sh: expected 8 reports, got $n"; failed=$((failed + 1)); }
echo "(test.sh took ${SECONDS}s)"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
