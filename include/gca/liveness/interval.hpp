// gca/liveness/interval.hpp — half-open intervals of program points, the unit of every live range.
//
// Provides `interval` ([begin, end), half-open: a value written at point p and last read at point q
// occupies [p, q + 1)); a live range is a sorted vector of disjoint intervals (liveness/live_ranges.hpp).
// Plain data, no concept.
#pragma once

#include <algorithm>
#include <vector>

#include <gca/ir/types.hpp>

namespace gca {

/// [begin, end): half-open, in dense program points.
struct interval {
  program_point begin = 0;
  program_point end = 0;
  constexpr bool empty() const noexcept { return begin >= end; }
  constexpr bool overlaps(const interval& o) const noexcept { return begin < o.end && o.begin < end; }
  friend constexpr bool operator==(const interval&, const interval&) = default;
};

/// Sort and merge touching or overlapping intervals in place, so the list is a canonical live range.
template <class = void>
void normalize(std::vector<interval>& r) {
  std::sort(r.begin(), r.end(), [](const interval& a, const interval& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::size_t w = 0;
  for (const interval& i : r) {
    if (i.empty()) continue;
    if (w > 0 && i.begin <= r[w - 1].end) {
      r[w - 1].end = std::max(r[w - 1].end, i.end);
    } else {
      r[w++] = i;
    }
  }
  r.resize(w);
}

}  // namespace gca
