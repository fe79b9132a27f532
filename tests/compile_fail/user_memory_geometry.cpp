// This file must FAIL to compile: an allocator of a memory a target adds names no geometry, and such a
// memory has no default ("has no default geometry", from detail::default_geometry_of). Compiled with
// -DGCA_CONTROL, naming rect_memory, it must compile (tests/meson.build runs both through
// scripts/compile-fail.sh).
#include <gca/drivers/coloring_allocator.hpp>

inline constexpr gca::memory_type mine{gca::first_user_memory};
#ifdef GCA_CONTROL
using probe = gca::coloring_allocator<mine, false, gca::address_space::local, gca::address_space::local,
                                      gca::opaque_loops, gca::spill_to_next_tier, gca::rect_memory<mine>>;
#else
using probe = gca::coloring_allocator<mine, false, gca::address_space::local>;
#endif

int main() {
  const probe allocator;
  (void)allocator;
  return static_cast<int>(probe::type);
}
