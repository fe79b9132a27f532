// gca/liveness/interval.hpp — half-open intervals of program points, the unit of every live range.
//
// Provides `interval` ([begin, end), half-open: a value written at point p and last read at point q
// occupies [p, q + 1)); a live range is a sorted vector of disjoint intervals (liveness/live_ranges.hpp).
// Plain data, no concept; and `max_live_sum`, the most bytes live at one point.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

/// Max-live: the largest sum of `size(i)` over the items i < count whose intervals `life(i)` hold one
/// point. Half-open, so an item ending where another begins does not meet it; an empty one meets nothing.
/// A lower bound on the peak of any placement of the items in a linear memory.
template <class Life, class Size>
std::uint64_t max_live_sum(std::size_t count, Life&& life, Size&& size) {
  struct event {
    program_point at;
    bool starts;  // false sorts first: an item ending at t is dead before one starting at t is alive
    std::uint64_t size;
  };
  std::vector<event> ev;
  ev.reserve(2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    const interval x = life(i);
    if (x.empty()) continue;
    ev.push_back({x.begin, true, size(i)});
    ev.push_back({x.end, false, size(i)});
  }
  std::sort(ev.begin(), ev.end(), [](const event& a, const event& b) { return a.at != b.at ? a.at < b.at : a.starts < b.starts; });
  std::uint64_t live = 0, best = 0;
  for (const event& e : ev) {
    if (e.starts) best = std::max(best, live += e.size);
    else live -= e.size;
  }
  return best;
}

}  // namespace gca
