// gca/engine/linear_scan.hpp — the `lsa` family's engine: linear-scan placement, no interference graph.
//
// Provides `linear_scan`, an alternative to the Chaitin–Briggs colorer (engine/colorer.hpp) with the same
// inputs' meaning and the same result type, so the spill fixpoint and the drivers use either (the engine
// is chosen by `engine_kind`). In the manner of Poletto and Sarkar's linear scan, nodes are visited in
// order of the first point of their live range (ties by id) while an active list holds the placed nodes
// whose ranges have not ended; each node is placed by the geometry's select against the active nodes its
// range really meets (ranges may have holes). There is no graph and no simplify: O(n log n + n * A + S)
// for A the largest active list (pins included) and S the pins starting inside the nodes' ranges, and
// quality that is usually close to the colorer's on interval-like problems, worse where a global order
// matters. Pinned nodes take their place first; every node keeps clear of the pins its range meets,
// whenever they start.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <utility>
#include <string_view>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/options.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>

namespace gca {

namespace detail {

template <class = void>
bool ranges_meet(std::span<const interval> a, std::span<const interval> b) {
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i].overlaps(b[j])) return true;
    (a[i].end < b[j].end) ? ++i : ++j;
  }
  return false;
}

/// The lists of nodes whose ranges have not ended, as the scan reaches each start: placed nodes, user
/// pins, fixed pins. Entries leave when their range ends, found through a min-heap of ends (not by
/// scanning the lists per node: a pass whose earlier placements include tens of thousands of
/// always-live tensors made that quadratic), and are swap-removed, so each list's order is arbitrary; it
/// only feeds select's neighbor set and conflicts (sorted by the caller), never a decision by position.
template <class = void>
class active_lists {
 public:
  explicit active_lists(std::size_t n) : list_of_(n, nullptr), slot_(n, 0) {}
  std::vector<node_id> placed, user, fixed;

  void activate(std::vector<node_id>& list, node_id v, program_point end) {
    list_of_[v] = &list;
    slot_[v] = list.size();
    list.push_back(v);
    ends_.emplace(end, v);
  }
  /// Drops every entry whose range ends at or before `start`.
  void expire(program_point start) {
    while (!ends_.empty() && ends_.top().first <= start) {
      const node_id u = ends_.top().second;
      ends_.pop();
      std::vector<node_id>& list = *list_of_[u];
      list[slot_[u]] = list.back();
      slot_[list[slot_[u]]] = slot_[u];
      list.pop_back();
    }
  }

 private:
  using ending = std::pair<program_point, node_id>;
  std::vector<std::vector<node_id>*> list_of_;
  std::vector<std::size_t> slot_;
  std::priority_queue<ending, std::vector<ending>, std::greater<>> ends_;
};

/// The scan's order: by first point; at the same point pinned nodes first, so they are active before
/// anyone is placed.
template <class = void>
std::vector<node_id> scan_order(const live_range_table& ranges, std::span<const std::optional<placement>> pinned) {
  auto first = [&](node_id v) { return ranges.ranges(v).empty() ? program_point{0} : ranges.ranges(v).front().begin; };
  auto is_pin = [&](node_id v) { return !pinned.empty() && pinned[v].has_value(); };
  std::vector<node_id> order(ranges.num_nodes());
  for (node_id v = 0; v < order.size(); ++v) order[v] = v;
  std::stable_sort(order.begin(), order.end(), [&](node_id a, node_id b) {
    if (first(a) != first(b)) return first(a) < first(b);
    return is_pin(a) && !is_pin(b);
  });
  return order;
}

}  // namespace detail

/// Linear scan over `ranges` (one canonical live range per node). `pinned` may be empty. Reports like
/// `color`: placements, unplaced nodes (sorted by id), pin conflicts, peak; `options.heuristic` is `h`.
/// `fixed` (empty, or one flag per node) marks pins whose places were decided together (by an earlier
/// colorer or another core): two fixed pins are never checked against each other, as in
/// build_interference, so thousands of earlier placements cost no quadratic conflict scan.
template <class D = void>
coloring_result linear_scan(const live_range_table& ranges, std::span<const extent> extents,
                            std::span<const std::optional<placement>> pinned, geometry_ref geom,
                            select_heuristic h = select_heuristic::best_fit,
                            std::span<const std::uint8_t> fixed = {}) {
  const std::size_t n = ranges.num_nodes();
  if (extents.size() != n || (!pinned.empty() && pinned.size() != n) || (!fixed.empty() && fixed.size() != n))
    throw input_error("linear_scan: extents, pinned and fixed need one entry per node");
  coloring_result r;
  r.options = {h, simplify_order::priority_first};
  r.placements.assign(n, std::nullopt);
  r.stats.nodes = n;
  r.stats.runs = 1;
  auto first = [&](node_id v) { return ranges.ranges(v).empty() ? program_point{0} : ranges.ranges(v).front().begin; };
  auto last = [&](node_id v) { return ranges.ranges(v).empty() ? program_point{0} : ranges.ranges(v).back().end; };
  auto is_pin = [&](node_id v) { return !pinned.empty() && pinned[v].has_value(); };
  auto is_fixed = [&](node_id v) { return !fixed.empty() && fixed[v] != 0; };
  const std::vector<node_id> order = detail::scan_order(ranges, pinned);
  // Pins are placed up front (illegal ones reported); they enter an active list when their range starts.
  for (node_id v = 0; v < n; ++v) {
    if (!is_pin(v)) continue;
    if (geom.legal(extents[v], *pinned[v])) {
      r.placements[v] = pinned[v];
      ++r.stats.pinned;
    } else {
      r.unplaced.push_back({v, unplaced_reason::pinned_illegal});
    }
  }
  std::vector<node_id> pins;  // legal pins in `order`: the ones visited so far are a prefix
  for (node_id v : order)
    if (is_pin(v) && r.placements[v]) pins.push_back(v);
  std::size_t started_pins = 0;
  detail::active_lists<D> act(n);
  std::vector<placed_neighbor> nbrs;
  auto meets = [&](node_id u, std::span<const interval> rv) { return detail::ranges_meet(rv, ranges.ranges(u)); };
  for (node_id v : order) {
    act.expire(first(v));
    const auto rv = ranges.ranges(v);
    if (is_pin(v)) {
      if (!r.placements[v]) continue;  // illegal pin, reported
      ++started_pins;
      auto check = [&](const std::vector<node_id>& against) {
        for (node_id u : against)
          if (meets(u, rv) && geom.overlaps(extents[v], *r.placements[v], extents[u], *r.placements[u]))
            r.pinned_conflicts.emplace_back(std::min(u, v), std::max(u, v));
      };
      check(act.user);
      if (!is_fixed(v)) check(act.fixed);
      act.activate(is_fixed(v) ? act.fixed : act.user, v, last(v));
      continue;
    }
    if (!geom.fits(extents[v])) {
      r.unplaced.push_back({v, unplaced_reason::does_not_fit});
      continue;
    }
    // Placed neighbors: the active nodes and pins that meet v, and the pins that start inside v's range
    // (a pin's place is known from the start, so v must keep clear of it).
    nbrs.clear();
    for (const std::vector<node_id>* list : {&act.placed, &act.user, &act.fixed})
      for (node_id u : *list)
        if (meets(u, rv)) nbrs.push_back({extents[u], *r.placements[u]});
    for (std::size_t k = started_pins; k < pins.size() && first(pins[k]) < last(v); ++k)
      if (meets(pins[k], rv)) nbrs.push_back({extents[pins[k]], *r.placements[pins[k]]});
    r.placements[v] = geom.select(extents[v], nbrs, h);
    if (!r.placements[v]) {
      r.unplaced.push_back({v, unplaced_reason::no_free_position});
      continue;
    }
    act.activate(act.placed, v, last(v));
  }
  detail::sort_by_node(r.unplaced);
  std::sort(r.pinned_conflicts.begin(), r.pinned_conflicts.end());
  for (node_id v = 0; v < n; ++v)
    if (r.placements[v]) r.peak = std::max(r.peak, geom.end(extents[v], *r.placements[v]));
  return r;
}

/// linear_scan with any GeometryPolicy model.
template <GeometryPolicy Geometry>
coloring_result linear_scan(const live_range_table& ranges, std::span<const extent> extents,
                            std::span<const std::optional<placement>> pinned, const Geometry& geom,
                            select_heuristic h = select_heuristic::best_fit, std::span<const std::uint8_t> fixed = {}) {
  return linear_scan(ranges, extents, pinned, geometry_ref(geom), h, fixed);
}

}  // namespace gca
