#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, then configures and builds gca in ./build (g++,
# debugoptimized). With --asan, also a clang build with AddressSanitizer + UndefinedBehaviorSanitizer in
# ./build-asan; with --release, a g++ release build (-O3) of the test suite in ./build-release. So every
# change is compiled warning-free by both compilers and both optimizing buildtypes: these development
# builds turn -Werror on (it is not a default of the project, so it never breaks a user's build).
# Idempotent: re-running only rebuilds what changed.
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
[ -d build ] || meson setup build -Dwerror=true
ninja -C build -j "$jobs"
for opt in "$@"; do
  case "$opt" in
    --asan)
      [ -d build-asan ] || CXX=clang++ meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbenchmarks=disabled -Dbuildtype=debug -Dwerror=true
      ninja -C build-asan -j "$jobs" ;;
    --release)
      [ -d build-release ] || meson setup build-release --buildtype=release -Dbenchmarks=disabled -Dwerror=true
      ninja -C build-release -j "$jobs" tests/gca-tests ;;
    *) echo "setup.sh: unknown option '$opt' (known: --asan, --release)" >&2; exit 1 ;;
  esac
done
