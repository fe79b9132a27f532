// This file must FAIL to compile: an allocator of SB given PSUM's geometry ("the geometry describes
// another memory than Type"). Compiled with -DGCA_CONTROL, SB's own geometry named explicitly, it must
// compile (tests/meson.build runs both through scripts/compile-fail.sh).
#include <gca/drivers/coloring_allocator.hpp>

#ifdef GCA_CONTROL
using geometry = gca::scratchpad_2d;
#else
using geometry = gca::psum_banks;
#endif
using probe = gca::coloring_allocator<gca::memory_type::sb, false, gca::address_space::local, gca::address_space::local,
                                      gca::opaque_loops, gca::spill_to_next_tier, geometry>;

int main() {
  const probe allocator;
  (void)allocator;
  return static_cast<int>(probe::type);
}
