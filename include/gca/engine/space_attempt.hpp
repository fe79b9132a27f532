// gca/engine/space_attempt.hpp — one coloring attempt of one memory over a linearized function, as data:
// the geometry it colors in, the liveness it was computed on, the graph's nodes (webs, blockers, a block of laid-out webs), their
// extents, costs, pins and live ranges, the coalesced pairs, the graph and the coloring.
// engine/space_colorer.hpp fills it (color_space) and commits it (commit_space); engine/coalesce.hpp
// merges its nodes; the spill fixpoint and the spill policies read it.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/liveness/live_ranges.hpp>
#include <gca/liveness/liveness_cache.hpp>

namespace gca {

/// The outcome of one attempt: the liveness it was computed on, the graph's nodes, and the coloring.
struct space_attempt {
  std::optional<geometry_ref> geometry;        // what it colors in (the spill policy measures pressure so)
  liveness live;
  liveness_key live_key;                        // what `live` was computed on (with a liveness_cache)
  std::vector<web_id> node_web;                 // graph node -> web (no_web: untouched tensor, blocker)
  std::vector<tensor_id> node_tensor;           // graph node -> tensor (no_tensor: blocker)
  std::vector<extent> extents;                  // per node
  std::vector<double> costs;                    // per node: the web's spill cost
  std::vector<std::optional<placement>> pins;   // per node: fixed placement, if any
  std::vector<double> priority;                 // per node: earlier first point = higher (interval order)
  std::vector<web_id> block_members;            // webs laid end to end in the block node (see color_space)
  std::vector<std::uint64_t> block_offsets;     // each member's offset inside the block
  node_id block_node = ~node_id{0};             // the block's graph node, if any
  std::vector<std::pair<web_id, node_id>> coalesced;  // find_partners: a web sharing another's node
  live_range_table ranges;                      // per node: its live range (merged nodes: the union)
  std::optional<interference_graph> graph;
  std::optional<coloring_result> result;

  bool complete() const noexcept { return result && result->complete(); }
  /// Webs (of tensors this colorer places) that select left unplaced.
  template <class = void>
  std::vector<web_id> unplaced_webs() const {
    std::vector<web_id> v;
    if (result)
      for (const unplaced_node& u : result->unplaced)
      if (node_web[u.node] != no_web) v.push_back(node_web[u.node]);
    return v;
  }
};

}  // namespace gca
