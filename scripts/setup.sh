#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, then configures and builds gca in ./build (and, with
# --asan, a clang build with AddressSanitizer + UndefinedBehaviorSanitizer in ./build-asan, so every
# change is compiled warning-free by both g++ and clang). Idempotent: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs="meson ninja-build cmake pkg-config g++ clang libboost-graph-dev libboost-dev doctest-dev libbenchmark-dev libclang-rt-14-dev"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
jobs=$(nproc)
[ -d build ] || meson setup build
ninja -C build -j "$jobs"
if [ "${1:-}" = "--asan" ]; then
  [ -d build-asan ] || CXX=clang++ meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbenchmarks=disabled -Dbuildtype=debug
  ninja -C build-asan -j "$jobs"
fi
