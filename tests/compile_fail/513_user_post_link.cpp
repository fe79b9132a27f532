// This file must FAIL to compile, with "coloring_allocator error 513" in the diagnostic: a memory a
// target adds is core-local and allocated before linking. Compiled with -DGCA_CONTROL (the same memory,
// not post-link) it must compile (tests/meson.build runs both through scripts/compile-fail.sh).
#include <gca/drivers/coloring_allocator.hpp>

inline constexpr gca::memory_type mine{gca::first_user_memory};
#ifdef GCA_CONTROL
inline constexpr bool post_link = false;
#else
inline constexpr bool post_link = true;
#endif
using probe = gca::coloring_allocator<mine, post_link, gca::address_space::local, gca::address_space::local,
                                      gca::opaque_loops, gca::spill_to_next_tier, gca::linear_memory<mine>>;

int main() {
  const probe allocator;
  (void)allocator;
  return static_cast<int>(probe::type);
}
