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
defined_header=$(nm -C "$tmp/header.o" | grep -Ec ' [TtWw] (.* )?gca::allocate_space<')
defined_compiled=$(nm -C "$tmp/compiled.o" | grep -Ec ' [TtWw] (.* )?gca::allocate_space<')
referenced_compiled=$(nm -C "$tmp/compiled.o" | grep -Ec ' U (.* )?gca::detail::allocate_standard<')
echo "allocate_space definitions: header-only $defined_header, compiled $defined_compiled; allocate_standard references in compiled: $referenced_compiled"
# The parser likewise (ir/parser.hpp's GCA_COMPILED_PARSER): its body is the library's.
parser_header=$(nm -C "$tmp/header.o" | grep -Ec ' [TtWw] (.* )?gca::detail::text_parser<void>::run')
parser_compiled=$(nm -C "$tmp/compiled.o" | grep -Ec ' [TtWw] (.* )?gca::detail::text_parser<void>::run')
parse_referenced=$(nm -C "$tmp/compiled.o" | grep -Ec ' U (.* )?gca::parse(_file)?<void>')
echo "text_parser::run definitions: header-only $parser_header, compiled $parser_compiled; parse references in compiled: $parse_referenced"
[ "$defined_header" -gt 0 ] && [ "$defined_compiled" = 0 ] && [ "$referenced_compiled" -gt 0 ] &&
  [ "$parser_header" -gt 0 ] && [ "$parser_compiled" = 0 ] && [ "$parse_referenced" -gt 0 ]
