#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, then configures and builds gca in ./build (g++,
# --buildtype=release with NDEBUG, as a user ships it: everything, tests, tools, benchmarks, the header
# self-containment check and the compiled mode). With --asan, also a clang build with
# AddressSanitizer + UndefinedBehaviorSanitizer in ./build-asan (debug info, assertions on, -O1: at -O0
# the suite ran about 30 times slower than optimized, at -O1 about 9), of the test suite and the tools
# only (the header and compile checks need one compiler's word, not two builds). So every change is
# compiled warning-free by both compilers: these development builds turn -Werror on (it is not a
# default of the project, so it never breaks a user's build).
# Idempotent: re-running only rebuilds what changed. (Before 2026-12-01 ./build was debugoptimized, -O2
# -g, and a third tree build-release held the release test suite; docs/PERFORMANCE.md says which build
# each table was measured in.)
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs="meson ninja-build cmake pkg-config time g++ clang libboost-graph-dev libboost-dev doctest-dev libbenchmark-dev libclang-rt-14-dev"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
jobs=$(nproc)
[ -d build ] || meson setup build --buildtype=release -Db_ndebug=if-release -Dwerror=true
ninja -C build -j "$jobs"
for opt in "$@"; do
  case "$opt" in
    --asan)
      [ -d build-asan ] || CXX=clang++ meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbenchmarks=disabled -Dbuildtype=debug -Doptimization=1 -Dwerror=true
      ninja -C build-asan -j "$jobs" tests/gca-tests examples/gca-alloc examples/gca-pack examples/gca-color \
        examples/gca-verify examples/gca-gen examples/quick-start examples/custom-accelerator ;;
    *) echo "setup.sh: unknown option '$opt' (known: --asan)" >&2; exit 1 ;;
  esac
done
