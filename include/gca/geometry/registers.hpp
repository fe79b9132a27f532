// gca/geometry/registers.hpp — K interchangeable registers; models GeometryPolicy.
//
// Provides `registers`: each node takes one 32-bit register (extent 1 x 1..4 bytes); placement.offset is
// the register number, partition is 0. K is the target's register count (64 per engine sequencer) or
// `unbounded` (to find how many colors a graph needs, as gca-color does without --registers).
// Trivially-colorable bound: candidates = K and a placed neighbor holds one register, so max_blocked = 1
// and the test is Chaitin's "degree < K". Both heuristics pick the lowest free register: every hole in a
// register file is one register wide, so best fit and first fit agree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

class registers {
 public:
  static constexpr memory_type space = memory_type::reg;

  /// K registers (K may be `unbounded`). Throws input_error if K is 0.
  explicit registers(std::uint64_t count = 64) : count_(count) {
    if (count == 0) throw input_error("registers: the register count must be at least 1");
  }
  static registers for_target(const target& t) { return registers(t.registers); }

  std::uint64_t capacity() const noexcept { return count_; }

  bool fits(const extent& e) const noexcept { return e.partitions == 1 && e.bytes >= 1 && e.bytes <= 4; }
  bool legal(const extent& e, const placement& p) const noexcept {
    return fits(e) && p.partition == 0 && p.offset < count_;
  }
  std::uint64_t candidates(const extent& e) const noexcept { return fits(e) ? count_ : 0; }
  std::uint64_t max_blocked(const extent& e, const extent& f) const noexcept { return fits(e) && fits(f) ? 1 : 0; }
  static bool overlaps(const extent&, const placement& p, const extent&, const placement& q) noexcept {
    return p.offset == q.offset;
  }
  std::uint64_t end(const extent&, const placement& p) const noexcept { return p.offset + 1; }

  /// The lowest register no neighbor holds: O(d log d).
  template <class = void>
  std::optional<placement> select(const extent& e, std::span<const placed_neighbor> placed,
                                  select_heuristic) const {
    if (!fits(e)) return std::nullopt;
    std::vector<std::uint64_t> taken;
    taken.reserve(placed.size());
    for (const placed_neighbor& n : placed) taken.push_back(n.at.offset);
    std::sort(taken.begin(), taken.end());
    std::uint64_t r = 0;
    for (std::uint64_t t : taken) {
      if (t > r) break;
      if (t == r) ++r;
    }
    if (r >= count_) return std::nullopt;
    return placement{0, r};
  }

 private:
  std::uint64_t count_;
};

static_assert(GeometryPolicy<registers>);

}  // namespace gca
