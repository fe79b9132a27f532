// benchmarks/dsa_baseline.hpp — the baseline gca's DSA quality is measured against.
//
// Provides `baseline_best_fit`: the size-descending best-fit greedy of TFLite's "greedy by size" memory
// planner and XLA's heap simulator. Buffers are taken largest first (ties: longer lifetime, then file
// order); each goes into the smallest gap between the already-placed buffers that are alive at the same
// time and that can hold it, or on top of them when no gap can. Written from that description, on purpose
// without any gca code (no interference graph, no geometry), so tests can also use it as an independent
// cross-check. O(n^2 log n). Alignment 1, unbounded capacity.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <gca/io/dsa_csv.hpp>

namespace gca_bench {

struct baseline_result {
  std::vector<std::uint64_t> offsets;  // per buffer, in file order
  std::uint64_t peak = 0;
};

inline baseline_result baseline_best_fit(const gca::dsa_problem& p) {
  const auto& b = p.buffers;
  std::vector<std::size_t> order(b.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    if (b[x].size != b[y].size) return b[x].size > b[y].size;
    return b[x].upper - b[x].lower > b[y].upper - b[y].lower;
  });
  baseline_result r;
  r.offsets.assign(b.size(), 0);
  std::vector<std::size_t> placed;
  struct range {
    std::uint64_t lo, hi;
  };
  std::vector<range> busy;
  for (std::size_t i : order) {
    busy.clear();
    for (std::size_t j : placed)
      if (b[i].lower < b[j].upper && b[j].lower < b[i].upper) busy.push_back({r.offsets[j], r.offsets[j] + b[j].size});
    std::sort(busy.begin(), busy.end(), [](const range& x, const range& y) { return x.lo < y.lo; });
    std::uint64_t cursor = 0, best = 0, best_gap = std::numeric_limits<std::uint64_t>::max();
    bool found = false;
    for (const range& x : busy) {
      if (x.lo > cursor) {
        const std::uint64_t gap = x.lo - cursor;
        if (gap >= b[i].size && gap < best_gap) {
          best_gap = gap;
          best = cursor;
          found = true;
        }
      }
      cursor = std::max(cursor, x.hi);
    }
    r.offsets[i] = found ? best : cursor;
    r.peak = std::max(r.peak, r.offsets[i] + b[i].size);
    placed.push_back(i);
  }
  return r;
}

}  // namespace gca_bench
