// one_allocator.cpp — a compiler pass that runs one allocator (scripts/compile-time.sh): the umbrella
// header, the text parser, and the SB colorer. No verifier: a compiler pass does not call it.
#include <gca/gca.hpp>

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  gca::module m = gca::parse_file(argv[1]);
  gca::coloring_allocator_sb{}.run(m);
  return 0;
}
