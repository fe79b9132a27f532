// eight_allocators.cpp — a translation unit scripts/compile-time.sh times: <gca/gca.hpp> plus one run() of each
// of the eight registered allocators and the with-loop driver, as a user's compiler pass would have
// (the module comes from the text parser so that the program does something checkable: it exits 0 when
// every allocator ran). The verifier is left out on purpose: a compiler pass does not call it; what it
// adds is measured separately (docs/PERFORMANCE.md).
#include <gca/gca.hpp>

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  gca::module m = gca::parse_file(argv[1]);
  gca::coloring_allocator_psum{}.run(m);
  gca::coloring_allocator_sb{}.run(m);
  gca::coloring_allocator_dram{}.run(m);
  gca::coloring_allocator_dram_shared{}.run(m);
  gca::coloring_allocator_dram_debug{}.run(m);
  gca::bir_linker(m);
  gca::coloring_allocator_dram_post_lnk{}.run(m);
  gca::coloring_allocator_dram_shared_post_lnk{}.run(m);
  gca::coloring_allocator_reg{}.run(m);
  gca::module n = gca::parse_file(argv[1]);
  gca::coloring_allocator_with_loop{}.run(n);
  return 0;
}
