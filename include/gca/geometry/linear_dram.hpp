// gca/geometry/linear_dram.hpp — DRAM as one linear address range; models GeometryPolicy.
//
// Provides `linear_dram`: byte addresses [0, capacity) (capacity may be `unbounded`, as in a DSA problem
// that asks for the smallest peak), every placement aligned to `alignment` (64 by default, the target's
// dram_alignment; gca-pack uses 1). An extent is 1 x bytes; placement.offset is the address.
// Trivially-colorable bound: a neighbor of t bytes covers the starts [q - s + 1, q + t - 1] of a node of
// s bytes, s + t - 1 consecutive integers, of which at most ceil((s + t - 1) / alignment) are aligned.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

class linear_dram {
 public:
  static constexpr memory_type space = memory_type::dram;

  /// Throws input_error if alignment is 0.
  explicit linear_dram(std::uint64_t capacity = unbounded, std::uint64_t alignment = 64)
      : capacity_(capacity), alignment_(alignment) {
    if (alignment == 0) throw input_error("linear_dram: alignment must be at least 1");
  }
  /// The per-core DRAM budget and alignment of a target.
  static linear_dram for_target(const target& t) { return linear_dram(t.dram_bytes, t.dram_alignment); }

  std::uint64_t capacity() const noexcept { return capacity_; }
  std::uint64_t alignment() const noexcept { return alignment_; }

  bool fits(const extent& e) const noexcept { return e.partitions == 1 && e.bytes >= 1 && e.bytes <= capacity_; }

  bool legal(const extent& e, const placement& p) const noexcept {
    return fits(e) && p.partition == 0 && p.offset % alignment_ == 0 && p.offset <= capacity_ - e.bytes;
  }

  template <class = void>
  std::uint64_t candidates(const extent& e) const noexcept {
    if (!fits(e)) return 0;
    if (capacity_ == unbounded) return unbounded;
    return (capacity_ - e.bytes) / alignment_ + 1;  // aligned starts in [0, capacity - bytes]
  }

  template <class = void>
  std::uint64_t max_blocked(const extent& e, const extent& f) const noexcept {
    if (e.bytes == 0 || f.bytes == 0) return 0;
    const std::uint64_t run = e.bytes - 1 > unbounded - f.bytes ? unbounded : e.bytes - 1 + f.bytes;
    return std::min(detail::multiples_in_run(run, alignment_), candidates(e));
  }

  static bool overlaps(const extent& e, const placement& p, const extent& f, const placement& q) noexcept {
    return detail::bytes_overlap(e, p, f, q);
  }

  std::uint64_t end(const extent& e, const placement& p) const noexcept { return p.offset + e.bytes; }

  template <class = void>
  std::optional<placement> select(const extent& e, std::span<const placed_neighbor> placed,
                                  select_heuristic h) const {
    if (!fits(e)) return std::nullopt;
    std::vector<detail::start_range>& blocked = detail::scratch_ranges();
    for (const placed_neighbor& n : placed)
      if (n.size.bytes > 0) blocked.push_back(detail::blocked_starts(e.bytes, n.at.offset, n.size.bytes));
    const detail::start_range domain{0, capacity_ - e.bytes};
    const auto c = detail::pick_start(std::span(&domain, 1), blocked, e.bytes, alignment_, h);
    if (!c) return std::nullopt;
    return placement{0, c->start};
  }

 private:
  std::uint64_t capacity_;
  std::uint64_t alignment_;
};

static_assert(GeometryPolicy<linear_dram>);

}  // namespace gca
