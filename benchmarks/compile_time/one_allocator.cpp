// one_allocator.cpp — a compiler pass that runs one allocator (scripts/compile-time.sh): the IR layer with
// its text parser, and the SB colorer from the drivers' layer. No verifier: a compiler pass does not call
// it. (Against a revision without the per-layer headers, the script compiles it with <gca/gca.hpp>.)
#include <gca/allocators.hpp>
#include <gca/ir.hpp>

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  gca::module m = gca::parse_file(argv[1]);
  gca::coloring_allocator_sb{}.run(m);
  return 0;
}
