#!/usr/bin/env bash
# Builds and runs tests/consumer (one allocation, verified) three ways, as a user of gca would:
#   subproject   gca copied into the consumer's subprojects/: only the consumer's own file is compiled
#                (gca builds none of its tests, tools or header checks there)
#   pkg-config   gca installed into a prefix by meson; the consumer compiled with `pkg-config --cflags gca`
#   cmake        the same prefix; the consumer's CMakeLists.txt does find_package(gca) -> gca::gca
# Prints one line "consumer <way>: ok|FAILED" per way and exits non-zero if any failed.
# Usage: scripts/consumers.sh [WORKDIR]   (default: build-consumers/)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=${1:-$root/build-consumers}
rm -rf "$work"; mkdir -p "$work"
failed=0
report() { if [ "$2" = 0 ]; then echo "consumer $1: ok"; else echo "consumer $1: FAILED (log: $work/$1.log)"; tail -n 30 "$work/$1.log"; failed=1; fi; }

# The repository as a user would have it (the tracked files and the work tree's edits, no build dirs).
copy_repo() { mkdir -p "$1" && git ls-files -z --cached --others --exclude-standard | \
  xargs -0 -I{} sh -c 'test -f "{}" && echo "{}"' | tar -cf - -T - | tar -xf - -C "$1"; }

# (a) meson subproject
( set -e
  cp -r tests/consumer "$work/sub"; copy_repo "$work/sub/subprojects/gca"
  cd "$work/sub"; meson setup build > /dev/null
  # Every compile step of the consumer's build must be the consumer's own.
  steps=$(ninja -C build -t commands consumer | grep -c -- ' -c ' || true)
  foreign=$(ninja -C build -t commands | grep -cE -- ' -c [^ ]*subprojects/gca' || true)
  echo "compile steps: $steps, of gca's own: $foreign"
  [ "$steps" = 1 ] && [ "$foreign" = 0 ]
  ninja -C build; build/consumer ) > "$work/subproject.log" 2>&1
report subproject $?

# (b) installed, found through pkg-config
prefix="$work/prefix"
( set -e
  meson setup "$work/gca-build" --prefix="$prefix" -Dtests=disabled -Dexamples=disabled \
    -Dbenchmarks=disabled > /dev/null
  meson install -C "$work/gca-build" > /dev/null
  export PKG_CONFIG_PATH="$prefix/share/pkgconfig"
  # As a release build with every warning fatal: the headers must stay clean at -O3 (no -Wno-restrict here).
  c++ -std=c++20 -O3 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags gca) tests/consumer/main.cpp -pthread \
    -o "$work/consumer-pkgconfig"
  "$work/consumer-pkgconfig" ) > "$work/pkg-config.log" 2>&1
report pkg-config $?

# (c) installed, found through CMake's find_package(gca)
( set -e
  cmake -S tests/consumer -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$work/cmake"
  "$work/cmake/consumer" ) > "$work/cmake.log" 2>&1
report cmake $?
exit $failed
