// gca/engine/select.hpp — the select phase of the Chaitin–Briggs colorer, for any GeometryPolicy.
//
// Provides `unplaced_reason` / `unplaced_node` (how the colorer reports a node it could not place: never a
// silent drop) and `select`, which pops the simplify stack and asks the geometry for a position given the
// positions of the node's already-placed neighbors. A node removed by the trivially-colorable test always
// gets a place (that is the test's soundness; `select_result::trivial_failures` counts violations so
// tests can check it); an optimistically removed node may not, and is then reported.
// Cost: O(d log d) per node with d placed neighbors (the geometry's select), O(E log) overall.
// Models no concept itself; it takes any GeometryPolicy, through a geometry_ref (engine/geometry_ref.hpp)
// so that its body is compiled once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/simplify.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/watchdog.hpp>
#include <gca/ir/types.hpp>

namespace gca {

enum class unplaced_reason : std::uint8_t {
  does_not_fit,      // the extent cannot be placed even in an empty memory
  no_free_position,  // every candidate position overlaps a placed neighbor (an optimistic push failed)
  pinned_illegal,    // its pinned placement is out of bounds, misaligned or breaks a placement rule
};

constexpr std::string_view to_string(unplaced_reason r) noexcept {
  switch (r) {
    case unplaced_reason::does_not_fit: return "does not fit in an empty memory";
    case unplaced_reason::no_free_position: return "no free position left by its placed neighbors";
    case unplaced_reason::pinned_illegal: return "pinned placement is not legal in this memory";
  }
  return "?";
}

struct unplaced_node {
  node_id node;
  unplaced_reason reason;
  friend constexpr bool operator==(const unplaced_node&, const unplaced_node&) = default;
};

struct select_result {
  std::vector<unplaced_node> unplaced;  // in stack-pop order
  std::size_t trivial_failures = 0;     // nodes that passed the trivially-colorable test yet got no place
};

/// Pops `s.stack` from the back and places each node by heuristic `h`. `placements` holds the pinned
/// nodes' placements on entry (and nothing for the others) and every placement made on return.
/// Throws input_error when a span has the wrong length.
template <class = void>
select_result select(const interference_graph& g, std::span<const extent> extents, const simplify_result& s,
                     geometry_ref geom, select_heuristic h, std::vector<std::optional<placement>>& placements) {
  if (extents.size() != g.num_nodes() || placements.size() != g.num_nodes() ||
      s.optimistic.size() != s.stack.size())
    throw input_error("select: extents and placements need one entry per graph node");
  select_result out;
  std::vector<placed_neighbor> nbrs;
  for (std::size_t i = s.stack.size(); i-- > 0;) {
    const node_id v = s.stack[i];
    watchdog_tick(1 + g.degree(v));  // the watchdog (gca/watchdog.hpp): a node costs about its degree
    nbrs.clear();
    for (node_id u : g.neighbors(v))
      if (placements[u]) nbrs.push_back({extents[u], *placements[u]});
    placements[v] = geom.select(extents[v], std::span<const placed_neighbor>(nbrs), h);
    if (!placements[v]) {
      out.unplaced.push_back({v, unplaced_reason::no_free_position});
      if (!s.optimistic[i]) ++out.trivial_failures;
    }
  }
  return out;
}

/// select with any GeometryPolicy model.
template <GeometryPolicy Geometry>
select_result select(const interference_graph& g, std::span<const extent> extents, const simplify_result& s,
                     const Geometry& geom, select_heuristic h, std::vector<std::optional<placement>>& placements) {
  return select(g, extents, s, geometry_ref(geom), h, placements);
}

}  // namespace gca
