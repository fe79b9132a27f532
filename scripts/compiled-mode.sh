#!/bin/sh
# compiled-mode.sh CXX INCLUDE_DIR FILE — checks the compiled mode (include/gca/compiled.hpp) on FILE,
# a program that runs an allocator: compiled header-only, its object defines gca::allocate_space (the
# spill fixpoint, the heaviest listed instantiation); compiled with -DGCA_COMPILED, it defines none and
# references gca::detail::allocate_standard (nm: U), so the instantiations really come from the
# gca_compiled library; the same for the parser (text_parser::run defined header-only, gca::parse referenced
# in the compiled mode). Prints both compile times (user + system CPU seconds of the compiler).
cxx=$1; inc=$2; file=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for mode in header compiled; do
  flag=""; [ "$mode" = compiled ] && flag="-DGCA_COMPILED"
  if ! /usr/bin/time -f "$mode: %U s user + %S s system, %M KiB" -o "$tmp/$mode.time" \
      "$cxx" -std=c++20 -O1 $flag -I"$inc" -c "$file" -o "$tmp/$mode.o" 2>"$tmp/$mode.err"; then
    echo "$file does not compile ($mode):"; head -20 "$tmp/$mode.err"; exit 1
  fi
  cat "$tmp/$mode.time"
done
# nm prints "ADDR KIND NAME" for definitions and "U NAME" (KIND first) for references.
count() {  # count MODE KINDS PATTERN: symbols of MODE's object of a kind in KINDS whose name starts PATTERN
  nm -C "$tmp/$1.o" | grep -Ec " $2 (.* )?$3"
}
# moved BODY CALLED: BODY is defined header-only and not in the compiled mode, which references CALLED.
moved() {
  h=$(count header '[TtWw]' "$1"); c=$(count compiled '[TtWw]' "$1"); r=$(count compiled U "$2")
  echo "$1 definitions: header-only $h, compiled $c; $2 references in compiled: $r"
  [ "$h" -gt 0 ] && [ "$c" = 0 ] && [ "$r" -gt 0 ]
}
# The drivers (gca/compiled.hpp's list), and the parser (ir/parser.hpp's GCA_COMPILED_PARSER).
moved 'gca::allocate_space<' 'gca::detail::allocate_standard<' &&
  moved 'gca::detail::text_parser<void>::run' 'gca::parse(_file)?<void>'
