// quick_start — the README's usage example, compiled and run by the test suite so it stays true.
//
//   quick_start KERNEL.gca    allocates the kernel one allocator at a time, then (on a fresh copy) through
//                             the -O6 and post-link pipelines, verifies both, prints the second.
#include <cstdlib>
#include <iostream>

#include <gca/gca.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: quick_start KERNEL.gca\n";
    return 1;
  }
  try {
    gca::module m = gca::parse_file(argv[1]);  // throws gca::parse_error: FILE:LINE:COL: ...
    for (const gca::function& f : m.functions)
      if (auto r = gca::static_check(f); !r.ok()) {
        std::cerr << r.message(f, argv[1]);
        return 1;
      }
    const gca::module original = m;

    // One allocator at a time: the Neuron allocator's eight registrations are typedefs of one class template.
    gca::coloring_allocator_psum{}.run(m);  // PSUM first, then SB, then DRAM, REG
    gca::coloring_allocator_sb{}.run(m);    // throws gca::allocation_error, m unchanged
    gca::coloring_allocator_dram{}.run(m);
    gca::coloring_allocator_dram_shared{}.run(m);
    gca::coloring_allocator_dram_debug{}.run(m);
    gca::coloring_allocator_reg{}.run(m);
    if (!gca::verify(original, m).ok()) return 2;  // computes what the original did

    // The whole pipeline of an optimization level, then the post-link one.
    m = original;
    const auto reg = gca::default_registry();
    gca::run_pipeline(m, gca::build_pipeline({.optlevel = 6}), reg, {}, {.skip_unregistered = true});
    gca::run_pipeline(m, gca::build_post_link_pipeline(), reg, {}, {.skip_unregistered = true});
    const auto v = gca::verify(original, m, {.linked = true});  // the independent check, two programs
    if (!v.ok()) {
      std::cerr << v.message();
      return 2;
    }
    gca::print(std::cout, m);  // every tensor with its placement
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 3;
  }
  return 0;
}
