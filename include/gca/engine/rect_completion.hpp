// gca/engine/rect_completion.hpp — fillers that make a rectangle-memory problem full at every birth.
//
// Provides `detail::rect_fillers`: for a problem of the rectangle memories (SB, PSUM; geometry/
// rect_layout.hpp), blocks that take the free quarter-bytes at every point where a node is born, so that
// the time sweep (engine/place_sweep.hpp) meets every birth full. place_search's filler turns
// (engine/place_search.hpp) run the sweep on the problem with them.
//
// Why. The sweep's strongest rules hold only where a birth is full: the hand-offs (the cells the dying
// leave are exactly the newborns' cells) and R2 asking every cell to be filled. Kernels with free space
// scattered through their busiest points (planted kernels by sweep with some tensors removed: the
// "holes" of docs/PERFORMANCE.md section 10) have spare area at every birth a hole spans, the sweep must
// guess at each of them where that space lies, and the search misses half of them. Given the removed
// tensors back as free blocks, it places all ten of one such set within 12,000 nodes each; fillers are a
// guess at them.
// The 1-D search met the same difficulty and answers it the same way (engine/completion.hpp).
//
// The guess, in three steps:
//   births only   The sweep places nodes birth by birth, so free space matters only at births: each live
//                 range is taken as the births it covers (the time axis compacted to births), and a
//                 filler lives from a birth to a later one (or one past the last birth). After the last
//                 birth nothing more is placed and no filler is made (the memory emptying at a kernel's
//                 end is not a hole).
//   amounts       full_completion (engine/completion.hpp) on the nodes' areas (bytes x the fewest quarters
//                 any allowed start makes them touch; a pin its own quarters) against quarters x capacity,
//                 in the `split` order: a shrink ends whole fillers first, then takes the rest from the
//                 newest, whose remainder keeps its birth (free space that stays free keeps its place);
//                 a change smaller than `least` (the smallest free node's area) makes no sliver: the
//                 newest filler ends and is reborn with it (a hole ending where another begins).
//   shapes        a filler's area a is free space of some shape; a removed tensor of q quarters and b
//                 bytes is q columns of b bytes, one per quarter. The guess cuts a into k one-quarter
//                 pieces of a / k bytes (aligned, as even as the alignment allows, none wider than a
//                 segment): k = 4 tiles holes of 1, 2 and 4 quarters (stacking), k = 12 those of 3 too, k = 2
//                 those of 1 and 2 with fewer pieces. More pieces tile more shapes but give the sweep more
//                 to place: no k places all that another does (measured: docs/PERFORMANCE.md section 10, "2-D
//                 fillers"), so the turns try several.
// Sound one way: the fillers only take room, so a placement of the completed problem without them is a
// placement of the problem (place_search checks it all the same). A completion with no placement proves
// nothing: the free space of a placement need not have the fillers' shapes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gca/engine/completion.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>

namespace gca::detail {

/// The fillers of one guess: a live range and an extent each.
struct rect_filler_set {
  std::vector<interval> life;
  std::vector<extent> extents;
};

/// A free area of `units` alignment units of `lay` cut into one-quarter pieces (see the top, "shapes"):
/// `pieces` of them (fewer when there are fewer units; more when a piece would be wider than a segment),
/// as even as the alignment allows. (Also docs/PERFORMANCE.md's diagnostic, bench-place --holes-oracle:
/// the removed tensors' true lives cut the same way.)
template <class = void>
std::vector<extent> rect_pieces(std::uint64_t units, std::uint64_t pieces, const rect_layout& lay) {
  const std::uint64_t a = lay.alignment, seg_units = lay.segment_bytes / a;
  const std::uint32_t parts = std::min<std::uint32_t>(32, lay.partitions);
  const std::uint64_t k = std::max(std::min(pieces, units), (units + seg_units - 1) / seg_units);
  std::vector<extent> out;
  for (std::uint64_t j = 0; j < k; ++j) out.push_back({parts, (units / k + (j < units % k ? 1 : 0)) * a});
  return out;
}

/// The fillers that make the problem (ranges, and per node `area`: its bytes x the fewest quarters it
/// takes) full at every birth in `lay` with `quarters` quarters, each filler cut into `pieces` one-quarter
/// pieces (see the top; `least` as full_completion's); nothing when the problem is full at every birth
/// already, when the free area at some birth is no multiple of the alignment, when a segment is no
/// multiple of it (an aligned piece could not start every segment), or when more than `most` pieces would
/// be made.
template <class = void>
std::optional<rect_filler_set> rect_fillers(const live_range_table& ranges, std::span<const std::uint64_t> area,
                                            const rect_layout& lay, std::uint32_t quarters, std::uint64_t pieces,
                                            std::size_t most, std::uint64_t least = 0) {
  const std::uint64_t a = lay.alignment, seg_units = lay.segment_bytes / a;
  if (seg_units == 0 || (lay.segments > 1 && lay.segment_bytes % a != 0) || pieces == 0) return std::nullopt;
  std::vector<program_point> births;
  for (const interval& i : ranges.intervals) births.push_back(i.begin);
  std::sort(births.begin(), births.end());
  births.erase(std::unique(births.begin(), births.end()), births.end());
  auto index = [&](program_point t) {  // the first birth at or after t
    return static_cast<program_point>(std::lower_bound(births.begin(), births.end(), t) - births.begin());
  };
  std::vector<interval> life;
  std::vector<std::uint64_t> amount;
  for (node_id v = 0; v < ranges.num_nodes(); ++v)
    for (const interval& i : ranges.ranges(v)) life.push_back({index(i.begin), index(i.end)}), amount.push_back(area[v]);
  const auto done = full_completion(life, amount, lay.capacity() * quarters, a, filler_order::split, least);
  if (!done) return std::nullopt;
  rect_filler_set out;
  for (std::size_t f = life.size(); f < done->life.size(); ++f) {
    const interval at = done->life[f];
    const interval when{births[at.begin], at.end < births.size() ? births[at.end] : births.back() + 1};
    const std::vector<extent> cut = rect_pieces(done->bytes[f] / a, pieces, lay);
    if (out.life.size() + cut.size() > most) return std::nullopt;
    out.life.insert(out.life.end(), cut.size(), when);
    out.extents.insert(out.extents.end(), cut.begin(), cut.end());
  }
  return out;
}

}  // namespace gca::detail
