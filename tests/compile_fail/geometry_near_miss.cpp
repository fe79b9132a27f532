// This file must FAIL to compile: a geometry that almost models GeometryPolicy (its `end` takes the
// placement only) is refused as the allocator's Geometry, by the concept, naming it. With -DGCA_CONTROL
// the same type with the right signature compiles (tests/meson.build runs both through
// scripts/compile-fail.sh).
#include <cstdint>
#include <optional>
#include <span>

#include <gca/drivers/coloring_allocator.hpp>

struct almost_dram {
  static constexpr gca::memory_type space = gca::memory_type::dram;
  static almost_dram for_target(const gca::target&) { return {}; }
  bool fits(const gca::extent&) const { return true; }
  bool legal(const gca::extent&, const gca::placement&) const { return true; }
  std::uint64_t candidates(const gca::extent&) const { return 1; }
  std::uint64_t max_blocked(const gca::extent&, const gca::extent&) const { return 1; }
  bool overlaps(const gca::extent&, const gca::placement&, const gca::extent&, const gca::placement&) const { return true; }
  std::optional<gca::placement> select(const gca::extent&, std::span<const gca::placed_neighbor>,
                                       gca::select_heuristic) const {
    return gca::placement{};
  }
#ifdef GCA_CONTROL
  std::uint64_t end(const gca::extent& e, const gca::placement& p) const { return p.offset + e.bytes; }
#else
  std::uint64_t end(const gca::placement& p) const { return p.offset; }
#endif
  std::uint64_t capacity() const { return 1; }
};

using probe = gca::coloring_allocator<gca::memory_type::dram, false, gca::address_space::local, gca::address_space::local,
                                      gca::opaque_loops, gca::spill_to_next_tier, almost_dram>;

int main() {
  const probe allocator;
  (void)allocator;
  return static_cast<int>(probe::type);
}
