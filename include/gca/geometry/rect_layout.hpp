// gca/geometry/rect_layout.hpp — the rectangle memories (SBUF, PSUM) as plain data, and the
// RectangleGeometry refinement of GeometryPolicy that the exact placement search needs.
//
// Provides `rect_layout` (total partitions, byte alignment, and the byte segments a tensor may not cross:
// one segment for SBUF and for PSUM on targets that allow bank spanning, one per bank otherwise),
// `rect_layout_of` for the two models, and the concept `RectangleGeometry`.
//
// Semantic contract of RectangleGeometry (tests/test_place_search.cpp checks it on both models): for every
// extent e and placement p, g.legal(e, p) holds exactly when p.partition is one of
// detail::allowed_partition_starts(e.partitions, layout.partitions), p.offset is a multiple of
// layout.alignment and [p.offset, p.offset + e.bytes) lies inside one segment; and g.overlaps is "share a
// partition and a byte". Then a search that enumerates rect_layout positions enumerates exactly the
// geometry's legal positions.
#pragma once

#include <concepts>
#include <cstdint>
#include <vector>

#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/ir/types.hpp>

namespace gca {

struct rect_layout {
  std::uint32_t partitions = 128;     // partitions of the memory
  std::uint64_t alignment = 1;        // byte offsets are multiples of this
  std::uint64_t segment_bytes = 0;    // bytes of one segment (a PSUM bank, or the whole partition)
  std::uint32_t segments = 1;         // segments, laid end to end from byte 0

  std::uint64_t capacity() const noexcept { return segment_bytes * segments; }
  /// Whether p is a place of e in this memory, by the contract below: an allowed start partition, an
  /// aligned offset, and [p.offset, p.offset + e.bytes) inside one segment (e.bytes > 0).
  template <class = void>
  bool legal(const extent& e, const placement& p) const {
    const detail::partition_starts s = detail::allowed_partition_starts(e.partitions, partitions);
    bool start = false;
    for (std::uint32_t k = 0; k < s.count; ++k) start = start || s.start[k] == p.partition;
    if (!start || e.bytes == 0 || segment_bytes == 0 || p.offset % alignment != 0) return false;
    return p.offset / segment_bytes < segments && p.offset % segment_bytes + e.bytes <= segment_bytes;
  }
  /// The byte starts e may take (before alignment), as sorted disjoint closed ranges, one per segment.
  template <class = void>
  std::vector<detail::start_range> domain(const extent& e) const {
    std::vector<detail::start_range> d;
    if (e.bytes == 0 || e.bytes > segment_bytes) return d;
    for (std::uint64_t k = 0; k < segments; ++k) d.push_back({k * segment_bytes, k * segment_bytes + segment_bytes - e.bytes});
    return d;
  }
};

inline rect_layout rect_layout_of(const scratchpad_2d& g) {
  return rect_layout{g.partitions(), g.alignment(), g.capacity(), 1};
}

template <class = void>
rect_layout rect_layout_of(const psum_banks& g) {
  if (g.may_span_banks()) return rect_layout{g.partitions(), g.alignment(), g.capacity(), 1};
  return rect_layout{g.partitions(), g.alignment(), g.bank_bytes(), g.banks()};
}

/// A GeometryPolicy whose legal positions are those of a rect_layout (see the contract above).
template <class G>
concept RectangleGeometry = GeometryPolicy<G> && requires(const G& g) {
  { rect_layout_of(g) } -> std::same_as<rect_layout>;
};

static_assert(RectangleGeometry<scratchpad_2d>);
static_assert(RectangleGeometry<psum_banks>);

}  // namespace gca
