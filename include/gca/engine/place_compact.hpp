// gca/engine/place_compact.hpp — pushing a found rectangle placement down, so that its high-water falls.
//
// Provides `compact_down`: given a valid placement of a rectangle memory's nodes (every node placed, no
// two interfering nodes sharing a partition and a byte), move each free (unpinned) block, in increasing
// (offset, id) order, to the lowest aligned offset at which one of its allowed start partitions leaves it
// clear of every interfering node, at the places they have at that moment, in a segment at or below its
// own; passes repeat until none moves a block (at most `max_passes`).
//
// Why. The searches of engine/place_search.hpp ask for a fit, not a low high-water: the repair walk
// (engine/place_repair.hpp) puts blocks flush with the top of a segment, and the fills and the sweep stop
// at the first placement that fits. A placement that reaches the capacity where a lower one exists costs
// the user the room above it (the SB high-water that gca-alloc reports and the next pass can use).
//
// Rules, each with the reason it keeps the placement valid, or the pass short, or the answer the same:
//   C1 one block at a time, the others where they are. A block moves only to a legal position (an allowed
//      start partition, an aligned offset, inside one segment) that no interfering node overlaps at that
//      moment, so after each move the placement is valid again.
//   C2 down only. A block moves only to a strictly lower offset, so no block's end rises and the
//      high-water can only fall; and since offsets are whole numbers that only fall, the passes end.
//   C3 ties keep the block where it is, then the lowest start partition: a move that lowers nothing is
//      not made (C2), and the choice among equal offsets is a fixed function of the state (deterministic).
//   C4 passes. Within one start partition a single pass would leave every block at its lowest free
//      offset: a block Y handled before X that conflicts with X ends at or below X's old offset o (the
//      placement was valid), so Y's lower positions never met X's old place. Across start partitions that
//      fails (at another start, Y may meet X's old place), so the pass repeats while it moves something.
//   C5 pins never move, and a pin's place is never taken (it is an interfering node like any other).
// Cost: each block sorts, for each of its at most four start partitions, the byte ranges of its
// interfering neighbors that share a partition with it there, so a pass costs the sum over blocks of
// deg log deg: the interfering pairs, which the search that found the placement has already paid for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>

namespace gca {

namespace detail {

/// The lowest aligned start in [lo, hi - b] (a segment) clear of `busy` (byte ranges sorted by start), or
/// hi when none.
template <class = void>
std::uint64_t lowest_clear(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& busy, std::uint64_t lo,
                           std::uint64_t hi, std::uint64_t b, std::uint64_t a) {
  std::uint64_t pos = (lo + a - 1) / a * a;
  for (const auto& [s, e] : busy) {
    if (pos + b > hi) return hi;
    if (e <= pos) continue;       // wholly below the candidate
    if (s >= pos + b) return pos;  // the sorted rest starts above it: the candidate is clear
    pos = (e + a - 1) / a * a;     // the candidate meets it: try just above it
  }
  return pos + b <= hi ? pos : hi;
}

}  // namespace detail

/// Pushes the free blocks of `at` down (see the top of this header). `at` has one placement per node, and
/// is a valid placement for `g` (the interference graph of the nodes) in `layout`; `pinned[v]` nonzero
/// for the nodes that must stay (may be empty: none). Returns how many moves were made.
template <class = void>
std::size_t compact_down(const interference_graph& g, std::span<const extent> extents, std::span<const std::uint8_t> pinned,
                         const rect_layout& layout, std::vector<std::optional<placement>>& at, int max_passes = 4) {
  const std::size_t n = extents.size();
  if (layout.segment_bytes == 0) return 0;  // no legal place at all, so no placement to push down
  std::vector<node_id> order;
  for (node_id v = 0; v < n; ++v)
    if ((pinned.empty() || !pinned[v]) && at[v]) order.push_back(v);
  const std::uint64_t seg = layout.segment_bytes, a = std::max<std::uint64_t>(1, layout.alignment);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
  // The lowest clear offset of v at start partition s, below `below` (C2), or `below` when none.
  auto lowest = [&](node_id v, std::uint32_t s, std::uint64_t below) {
    const extent& e = extents[v];
    const placement here{s, 0};
    busy.clear();
    for (node_id u : g.neighbors(v))
      if (at[u] && detail::partitions_overlap(e, here, extents[u], *at[u]))
        busy.emplace_back(at[u]->offset, at[u]->offset + extents[u].bytes);
    std::sort(busy.begin(), busy.end());
    for (std::uint64_t k = 0; k * seg < below; ++k) {  // segments in increasing order: the first clear wins
      const std::uint64_t lo = k * seg, hi = lo + seg;
      const std::uint64_t pos = detail::lowest_clear(busy, lo, hi, e.bytes, a);
      if (pos != hi) return std::min(pos, below);
    }
    return below;
  };
  std::size_t moves = 0;
  for (int pass = 0; pass < max_passes; ++pass) {
    std::sort(order.begin(), order.end(), [&](node_id x, node_id y) {
      return std::pair(at[x]->offset, x) < std::pair(at[y]->offset, y);
    });
    std::size_t moved = 0;
    for (node_id v : order) {
      placement& p = *at[v];
      placement best = p;
      const detail::partition_starts st = detail::allowed_partition_starts(extents[v].partitions, layout.partitions);
      for (std::uint32_t k = 0; k < st.count; ++k) {  // increasing starts: ties keep the lower one (C3)
        const std::uint64_t o = lowest(v, st.start[k], best.offset);
        if (o < best.offset) best = placement{st.start[k], o};
      }
      if (best.offset < p.offset) p = best, ++moved;
    }
    moves += moved;
    if (moved == 0) break;
  }
  return moves;
}

}  // namespace gca
