#!/bin/sh
# compile-fail.sh CXX INCLUDE_DIR FILE EXPECTED
# Passes when FILE fails to compile with EXPECTED in the diagnostics AND compiles with -DGCA_CONTROL.
cxx=$1; inc=$2; file=$3; expected=$4
if "$cxx" -std=c++20 -fsyntax-only -DGCA_CONTROL -I"$inc" "$file" 2>/tmp/gca-cf-control.$$; then :; else
  echo "control of $file does not compile:"; cat /tmp/gca-cf-control.$$; rm -f /tmp/gca-cf-*.$$; exit 1
fi
if "$cxx" -std=c++20 -fsyntax-only -I"$inc" "$file" 2>/tmp/gca-cf-out.$$; then
  echo "$file compiled, but it must not"; rm -f /tmp/gca-cf-*.$$; exit 1
fi
if grep -q "$expected" /tmp/gca-cf-out.$$; then rm -f /tmp/gca-cf-*.$$; exit 0; fi
echo "$file failed to compile, but not with '$expected':"; head -20 /tmp/gca-cf-out.$$; rm -f /tmp/gca-cf-*.$$; exit 1
