// gca/geometry/scratchpad_2d.hpp — SBUF as partitions x bytes; models GeometryPolicy.
//
// Provides `scratchpad_2d`: a tensor is a rectangle of `partitions` contiguous partitions times `bytes`
// bytes, at the same byte offset in every partition it uses (docs/HARDWARE.md section 5). Start partitions
// follow the hardware rule (> 64 partitions: 0; 33..64: 0 or 64; 1..32: 0, 32, 64, 96); byte offsets are
// aligned to the target's sb_alignment and end within sb_usable.
//
//   partition  0 ┌──────────┐
//                │  A (64)  │      ┌────┐ C (32 partitions, start 32 would be legal too)
//             64 ├──────────┤      │ C  │
//                │          │ ┌────┴────┘
//            128 └──────────┘ bytes →
//
// Trivially-colorable bound: the candidates of a node are (allowed start partitions) x (aligned byte
// starts). A placed neighbor can block only start partitions whose rows it shares (at most
// max_partition_conflicts, computed exactly over the neighbor's own allowed starts) and, in each, at most
// ceil((s + t - 1) / alignment) byte starts; the product bounds what it blocks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

class scratchpad_2d {
 public:
  static constexpr memory_type space = memory_type::sb;

  /// Throws input_error on a zero dimension or alignment.
  scratchpad_2d(std::uint32_t partitions, std::uint64_t bytes_per_partition, std::uint64_t alignment)
      : partitions_(partitions), bytes_(bytes_per_partition), alignment_(alignment) {
    if (partitions == 0 || bytes_per_partition == 0)
      throw input_error("scratchpad_2d: partitions and bytes per partition must be at least 1");
    if (alignment == 0) throw input_error("scratchpad_2d: alignment must be at least 1");
  }
  /// The allocator-usable SBUF of a target.
  explicit scratchpad_2d(const target& t) : scratchpad_2d(t.sb_partitions, t.sb_usable, t.sb_alignment) {}
  static scratchpad_2d for_target(const target& t) { return scratchpad_2d(t); }

  std::uint32_t partitions() const noexcept { return partitions_; }
  std::uint64_t capacity() const noexcept { return bytes_; }  // bytes per partition
  std::uint64_t alignment() const noexcept { return alignment_; }

  bool fits(const extent& e) const noexcept {
    return e.bytes >= 1 && e.bytes <= bytes_ &&
           detail::allowed_partition_starts(e.partitions, partitions_).count > 0;
  }

  template <class = void>
  bool legal(const extent& e, const placement& p) const noexcept {
    if (!fits(e) || p.offset % alignment_ != 0 || p.offset > bytes_ - e.bytes) return false;
    const auto s = detail::allowed_partition_starts(e.partitions, partitions_);
    return std::find(s.start.begin(), s.start.begin() + s.count, p.partition) != s.start.begin() + s.count;
  }

  std::uint64_t candidates(const extent& e) const noexcept {
    if (!fits(e)) return 0;
    return detail::allowed_partition_starts(e.partitions, partitions_).count * byte_starts(e);
  }

  template <class = void>
  std::uint64_t max_blocked(const extent& e, const extent& f) const noexcept {
    if (!fits(e) || f.bytes == 0) return 0;
    const std::uint64_t rows = detail::max_partition_conflicts(e.partitions, f.partitions, partitions_);
    const std::uint64_t run = e.bytes - 1 + std::min(f.bytes, bytes_);  // a legal f is <= bytes_
    return rows * std::min(detail::multiples_in_run(run, alignment_), byte_starts(e));
  }

  static bool overlaps(const extent& e, const placement& p, const extent& f, const placement& q) noexcept {
    return detail::partitions_overlap(e, p, f, q) && detail::bytes_overlap(e, p, f, q);
  }

  std::uint64_t end(const extent& e, const placement& p) const noexcept { return p.offset + e.bytes; }

  template <class = void>
  std::optional<placement> select(const extent& e, std::span<const placed_neighbor> placed,
                                  select_heuristic h) const {
    if (!fits(e)) return std::nullopt;
    const detail::start_range domain{0, bytes_ - e.bytes};
    return detail::select_rect(e, placed, partitions_, std::span(&domain, 1), alignment_, h);
  }

 private:
  std::uint64_t byte_starts(const extent& e) const noexcept {
    return detail::multiples_in(0, bytes_ - e.bytes, alignment_);
  }

  std::uint32_t partitions_;
  std::uint64_t bytes_;
  std::uint64_t alignment_;
};

static_assert(GeometryPolicy<scratchpad_2d>);

}  // namespace gca
