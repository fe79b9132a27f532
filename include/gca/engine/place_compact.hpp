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
// Cost: each block's select sorts, for each of its at most four start partitions, the byte ranges its
// interfering neighbors block there, so a pass costs the sum over blocks of deg log deg: the interfering
// pairs, which the search that found the placement has already paid for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>

namespace gca {

/// Pushes the free blocks of `at` down (see the top of this header). `at` has one placement per node, and
/// is a valid placement for `g` (the interference graph of the nodes) in `layout`; `pinned[v]` nonzero
/// for the nodes that must stay (may be empty: none). Returns how many moves were made. Each block's
/// lowest clear place is the colorer's own first-fit select (detail::select_rect over the layout's
/// segments, its neighbors where they are: ties to the lower start partition, C3); the block itself is
/// no neighbor of its own, so its place is one of the candidates and the answer is never higher (C2).
template <class = void>
std::size_t compact_down(const interference_graph& g, std::span<const extent> extents, std::span<const std::uint8_t> pinned,
                         const rect_layout& layout, std::vector<std::optional<placement>>& at, int max_passes = 4) {
  const std::size_t n = extents.size();
  std::vector<node_id> order;
  for (node_id v = 0; v < n; ++v)
    if ((pinned.empty() || !pinned[v]) && at[v]) order.push_back(v);
  const std::uint64_t a = std::max<std::uint64_t>(1, layout.alignment);
  std::vector<placed_neighbor> near;
  std::size_t moves = 0;
  for (int pass = 0; pass < max_passes; ++pass) {
    std::sort(order.begin(), order.end(), [&](node_id x, node_id y) {
      return std::pair(at[x]->offset, x) < std::pair(at[y]->offset, y);
    });
    std::size_t moved = 0;
    for (node_id v : order) {
      near.clear();
      for (node_id u : g.neighbors(v))
        if (at[u]) near.push_back({extents[u], *at[u]});
      const std::vector<detail::start_range> domain = layout.domain(extents[v]);
      const std::optional<placement> low =
          detail::select_rect(extents[v], near, layout.partitions, domain, a, select_heuristic::first_fit);
      if (low && low->offset < at[v]->offset) at[v] = low, ++moved;
    }
    moves += moved;
    if (moved == 0) break;
  }
  return moves;
}

}  // namespace gca
