// This file must FAIL to compile, with "coloring_allocator error 510" in the diagnostic.
// Compiled with -DGCA_CONTROL it must compile: the control shows that the failure is the invariant's,
// not a typo (tests/meson.build runs both through scripts/compile-fail.sh).
#include <gca/drivers/coloring_allocator.hpp>

#ifdef GCA_CONTROL
using probe = gca::coloring_allocator<gca::memory_type::psum, false, gca::address_space::local>;
#else
using probe = gca::coloring_allocator<gca::memory_type::psum, true, gca::address_space::local>;
#endif

int main() {
  const probe allocator;
  (void)allocator;
  return static_cast<int>(probe::type);
}
