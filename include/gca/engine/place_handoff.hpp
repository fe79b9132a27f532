// gca/engine/place_handoff.hpp — whether blocks tile a region of the rectangle memory exactly.
//
// Provides `detail::exact_tiler`, the time sweep's (engine/place_sweep.hpp) test of a hand-off: at a
// program point t where every cell of the memory is taken just before t and at t, the cells of the
// tensors that die at t are exactly the cells the tensors born at t must cover, so the newborns tile that
// region exactly, whatever else is placed. The region is known as soon as the dying tensors are placed,
// often several births before t; a region its newborns cannot tile shows a dead state that early.
//
// The region is given per 32-partition quarter as its free byte runs (every allowed start partition is a
// multiple of 32, so blocks share a partition exactly when they share a quarter). The search branches on
// the lowest free cell of the quarter whose lowest cell has the fewest blocks that can cover it (fail
// first): every cell below it in that quarter is outside the region, so a block covering it starts at
// its offset. Blocks of the same extent are interchangeable: of those unused, only the first is tried.
// A node budget bounds it; an exhausted budget answers gave_up, which the sweep reads as "may tile" (the
// test only cuts when it proves a region untileable, so it never removes a completion).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include <gca/engine/place_fill.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/ir/types.hpp>

namespace gca::detail {

class exact_tiler {
 public:
  struct free_run {
    std::uint64_t lo, hi;
  };
  enum class answer : std::uint8_t { tiles, cannot, gave_up };
  /// Whether `blocks` (partitions x bytes) cover the `region` (per quarter q < quarters, its free runs,
  /// sorted and disjoint) exactly: each block at an allowed start partition and an aligned offset, inside
  /// one segment, every cell of the region covered once and no block outside it. Within `max_nodes`.
  template <class = void>
  answer run(std::span<const std::vector<free_run>> region, std::span<const extent> blocks, const rect_layout& lay,
             std::uint32_t quarters, std::uint64_t max_nodes) {
    lay_ = lay, quarters_ = quarters, budget_ = max_nodes, nodes_ = 0;
    std::uint64_t area = 0, need = 0;
    for (std::uint32_t q = 0; q < quarters; ++q) {
      free_[q].assign(region[q].begin(), region[q].end());
      for (const free_run& r : region[q]) area += r.hi - r.lo;
    }
    blocks_.assign(blocks.begin(), blocks.end());
    // Larger first (they have the fewest places), and equal extents side by side for the twin rule.
    std::sort(blocks_.begin(), blocks_.end(), [](const extent& a, const extent& b) {
      return a.partitions != b.partitions ? a.partitions > b.partitions : a.bytes > b.bytes;
    });
    for (const extent& b : blocks_) {
      const partition_starts st = allowed_partition_starts(b.partitions, lay.partitions);
      std::uint32_t fewest = 32;
      for (std::uint32_t k = 0; k < st.count; ++k)
        fewest = std::min<std::uint32_t>(fewest, static_cast<std::uint32_t>(std::popcount(quarter_mask(st.start[k], b.partitions))));
      if (st.count == 0) return answer::cannot;
      need += fewest * b.bytes;
    }
    if (need > area) return answer::cannot;  // the blocks take at least `need` cells
    used_.assign(blocks_.size(), 0);
    return search(blocks_.size());
  }

 private:
  template <class = void>
  answer search(std::size_t left) {
    if (left == 0) {
      for (std::uint32_t q = 0; q < quarters_; ++q)
        if (!free_[q].empty()) return answer::cannot;  // a cell stays uncovered
      return answer::tiles;
    }
    if (++nodes_ > budget_) return answer::gave_up;
    // The cell: per quarter its lowest free cell; the one the fewest (block, start) pairs can cover.
    std::uint32_t best_q = quarters_;
    std::size_t best_n = ~std::size_t{0};
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (free_[q].empty()) continue;
      const std::size_t n = count_fits(q);
      if (n < best_n) best_n = n, best_q = q;
      if (n == 0) return answer::cannot;
    }
    if (best_q == quarters_) return answer::cannot;  // blocks left, no cell to cover
    const std::uint64_t lo = free_[best_q].front().lo;
    bool gave_up = false;
    answer out = answer::cannot;
    each_cover(best_q, [&](std::size_t i, std::uint32_t m) {
      const std::array<std::vector<free_run>, 4> saved = free_;
      take(m, lo, blocks_[i].bytes);
      used_[i] = 1;
      const answer a = search(left - 1);
      used_[i] = 0;
      free_ = saved;
      if (a == answer::gave_up) gave_up = true;
      if (a == answer::tiles) out = a;
      else if (nodes_ > budget_) out = answer::gave_up;
      return out != answer::cannot;
    });
    return out != answer::cannot ? out : gave_up ? answer::gave_up : answer::cannot;
  }
  /// Calls visit(block, quarter mask) for each unused block (the first of its twins) at each allowed
  /// start that takes quarter q and fits at q's lowest free cell, until visit returns true.
  template <class Visit>
  void each_cover(std::uint32_t q, Visit&& visit) const {
    const std::uint64_t lo = free_[q].front().lo;
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      if (used_[i] || twin_waits(i)) continue;
      const partition_starts st = allowed_partition_starts(blocks_[i].partitions, lay_.partitions);
      for (std::uint32_t k = 0; k < st.count; ++k) {
        const std::uint32_t m = quarter_mask(st.start[k], blocks_[i].partitions);
        if ((m >> q & 1) && fits(m, lo, blocks_[i].bytes) && visit(i, m)) return;
      }
    }
  }
  /// Blocks i and i - 1 have the same extent and i - 1 is unused: i waits (twins are used in order).
  bool twin_waits(std::size_t i) const {
    return i > 0 && !used_[i - 1] && blocks_[i - 1].partitions == blocks_[i].partitions &&
           blocks_[i - 1].bytes == blocks_[i].bytes;
  }
  template <class = void>
  std::size_t count_fits(std::uint32_t q) const {
    std::size_t n = 0;
    each_cover(q, [&](std::size_t, std::uint32_t) { return ++n, false; });
    return n;
  }
  /// Whether [o, o + b) is aligned, inside one segment, and free in every quarter of m.
  template <class = void>
  bool fits(std::uint32_t m, std::uint64_t o, std::uint64_t b) const {
    if ((m >> quarters_) != 0) return false;  // a quarter the memory does not have
    if (o % std::max<std::uint64_t>(1, lay_.alignment) != 0 || o + b > lay_.capacity()) return false;
    if (o / lay_.segment_bytes != (o + b - 1) / lay_.segment_bytes) return false;
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(m >> q & 1)) continue;
      const std::vector<free_run>& f = free_[q];
      const auto it = std::upper_bound(f.begin(), f.end(), o, [](std::uint64_t x, const free_run& r) { return x < r.lo; });
      if (it == f.begin() || std::prev(it)->hi < o + b) return false;
    }
    return true;
  }
  /// Removes [o, o + b) from the free runs of every quarter of m (fits() held).
  template <class = void>
  void take(std::uint32_t m, std::uint64_t o, std::uint64_t b) {
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(m >> q & 1)) continue;
      std::vector<free_run>& f = free_[q];
      auto it = std::prev(std::upper_bound(f.begin(), f.end(), o, [](std::uint64_t x, const free_run& r) { return x < r.lo; }));
      const free_run r = *it;
      it = f.erase(it);
      if (o + b < r.hi) it = f.insert(it, free_run{o + b, r.hi});
      if (r.lo < o) f.insert(it, free_run{r.lo, o});
    }
  }

  rect_layout lay_{};
  std::uint32_t quarters_ = 1;
  std::uint64_t budget_ = 0, nodes_ = 0;
  std::array<std::vector<free_run>, 4> free_;
  std::vector<extent> blocks_;
  std::vector<std::uint8_t> used_;
};

}  // namespace gca::detail
