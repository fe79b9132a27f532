// gca/engine/simplify.hpp — the simplify phase of the Chaitin–Briggs colorer, for any GeometryPolicy.
//
// Provides `simplify_order` (which trivially colorable node to remove next) and `simplify`, which returns
// the removal stack. Briggs' optimistic variant (Briggs, Cooper & Torczon, TOPLAS 1994): remove nodes
// that pass the geometry's sound trivially-colorable test; when none does, remove the node with the
// smallest spill_cost / degree anyway ("optimistically") and let select discover whether it fits.
// The graph is never mutated: remaining degrees and "pressures" live in separate arrays, and two lazy
// min-heaps (entries carry a per-node version, stale ones are skipped) serve as worklists, so the whole
// phase is O((n + E) log n) plus E calls of max_blocked.
//
// The trivially-colorable test (see gca/geometry/concept.hpp for why it is sound): node v passes when
//   pressure(v) = sum over not-yet-removed neighbors and pinned neighbors u of max_blocked(e_v, e_u)
// is below candidates(e_v). Neighbors removed before v are placed after v, so they do not count.
// Models no concept itself; it is generic over any GeometryPolicy.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>

namespace gca {

/// Which trivially colorable node simplify removes first. Select pops in reverse, so the node removed
/// LAST is placed FIRST: each order puts the hardest nodes at the bottom of the stack.
enum class simplify_order : std::uint8_t {
  largest_first,   // remove the smallest footprint (partitions x bytes) first: the largest is placed first
                   // (equal footprints: the smaller original degree first, so the most connected is placed first)
  priority_first,  // remove the lowest caller priority first (e.g. bytes x lifetime): highest placed first
  smallest_last,   // remove the node of smallest remaining degree first (Matula's smallest-last order)
  largest_degree,  // remove the smallest original degree first: Welsh–Powell, most-connected placed first
};

constexpr std::string_view to_string(simplify_order o) noexcept {
  switch (o) {
    case simplify_order::largest_first: return "largest-first";
    case simplify_order::priority_first: return "priority-first";
    case simplify_order::smallest_last: return "smallest-last";
    case simplify_order::largest_degree: return "largest-degree";
  }
  return "?";
}

/// How simplify sees each node.
enum class node_role : std::uint8_t {
  normal,    // simplified and then placed by select
  pinned,    // already placed (fixed); blocks its neighbors for good, never removed
  excluded,  // will not be placed (cannot fit, or a rejected pin); blocks nobody
};

struct simplify_result {
  std::vector<node_id> stack;      // removal order: select places stack.back() first
  std::vector<bool> optimistic;    // optimistic[i]: stack[i] was removed without passing the test
  std::size_t optimistic_count = 0;
};

namespace detail {

/// An exact sum of up to 2^32 values below 2^64 (pressures must not saturate, because simplify
/// subtracts from them again).
struct wide_sum {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  void add(std::uint64_t x) noexcept {
    lo += x;
    if (lo < x) ++hi;
  }
  void sub(std::uint64_t x) noexcept {
    if (lo < x) --hi;
    lo -= x;
  }
  bool less_than(std::uint64_t x) const noexcept { return hi == 0 && lo < x; }
};

}  // namespace detail

/// Simplify over the nodes whose role is `normal`. `costs` and `priority` may be empty (all 1; footprint).
/// Throws input_error when a span has the wrong length.
/// Deterministic: every choice is ordered by a key and then by node id.
template <GeometryPolicy Geometry>
simplify_result simplify(const interference_graph& g, std::span<const extent> extents,
                         std::span<const node_role> roles, std::span<const double> costs,
                         std::span<const double> priority, const Geometry& geom, simplify_order order) {
  const std::size_t n = g.num_nodes();
  if (extents.size() != n || roles.size() != n || (!costs.empty() && costs.size() != n) ||
      (!priority.empty() && priority.size() != n))
    throw input_error("simplify: extents, roles, costs and priority need one entry per graph node");
  std::vector<std::uint64_t> cand(n, 0);
  std::vector<detail::wide_sum> pressure(n);
  std::vector<std::uint32_t> deg(n, 0);       // remaining normal neighbors
  std::vector<std::uint32_t> version(n, 0);   // bumped whenever deg or triviality changes
  std::vector<bool> removed(n, false);
  std::size_t remaining = 0;

  for (node_id v = 0; v < n; ++v) {
    if (roles[v] != node_role::normal) continue;
    ++remaining;
    cand[v] = geom.candidates(extents[v]);
    for (node_id u : g.neighbors(v)) {
      if (roles[u] == node_role::excluded) continue;
      if (roles[u] == node_role::normal) ++deg[v];
      if (cand[v] != unbounded) pressure[v].add(geom.max_blocked(extents[v], extents[u]));
    }
  }
  auto trivial = [&](node_id v) { return cand[v] == unbounded || pressure[v].less_than(cand[v]); };
  auto footprint = [&](node_id v) {
    return static_cast<double>(extents[v].partitions) * static_cast<double>(extents[v].bytes);
  };

  // Ready worklist: trivially colorable nodes, smallest key first.
  using key = std::tuple<double, double, node_id, std::uint32_t>;  // (primary, secondary, id, version)
  auto ready_key = [&](node_id v) -> key {
    switch (order) {
      case simplify_order::priority_first:
        return {priority.empty() ? footprint(v) : priority[v], footprint(v), v, version[v]};
      case simplify_order::smallest_last:
        return {static_cast<double>(deg[v]), footprint(v), v, version[v]};
      case simplify_order::largest_degree:
        return {static_cast<double>(g.degree(v)), footprint(v), v, version[v]};
      case simplify_order::largest_first:
        break;
    }
    return {footprint(v), static_cast<double>(g.degree(v)), v, version[v]};
  };
  // Only smallest-last's ready key moves as neighbors leave; the others are fixed per node, so a node that
  // stays trivially colorable keeps its one ready entry (this saves a heap push per edge).
  const bool dynamic_ready_key = order == simplify_order::smallest_last;
  // Spill worklist: the other nodes, smallest cost / degree first (a node with no remaining neighbor
  // gains nothing from removal: infinite metric).
  auto spill_key = [&](node_id v) -> key {
    const double c = costs.empty() ? 1.0 : costs[v];
    const double m = deg[v] == 0 ? std::numeric_limits<double>::infinity() : c / deg[v];
    return {m, 0.0, v, version[v]};
  };
  std::priority_queue<key, std::vector<key>, std::greater<>> ready, spill;
  auto enqueue = [&](node_id v) {
    if (trivial(v)) {
      ready.push(ready_key(v));
    } else {
      spill.push(spill_key(v));
    }
  };
  for (node_id v = 0; v < n; ++v)
    if (roles[v] == node_role::normal) enqueue(v);

  simplify_result out;
  out.stack.reserve(remaining);
  out.optimistic.reserve(remaining);
  auto fresh = [&](const key& k) {
    const node_id v = std::get<2>(k);
    return !removed[v] && std::get<3>(k) == version[v];
  };
  while (remaining > 0) {
    while (!ready.empty() && !fresh(ready.top())) ready.pop();
    bool optimistic = false;
    node_id v;
    if (!ready.empty()) {
      v = std::get<2>(ready.top());
      ready.pop();
    } else {
      while (!spill.empty() && !fresh(spill.top())) spill.pop();
      // Every remaining node has a fresh entry in one of the heaps, so spill is not empty here.
      v = std::get<2>(spill.top());
      spill.pop();
      optimistic = true;
      ++out.optimistic_count;
    }
    removed[v] = true;
    --remaining;
    out.stack.push_back(v);
    out.optimistic.push_back(optimistic);
    for (node_id u : g.neighbors(v)) {
      if (roles[u] != node_role::normal || removed[u]) continue;
      const bool was_trivial = trivial(u);
      --deg[u];
      if (cand[u] != unbounded) pressure[u].sub(geom.max_blocked(extents[u], extents[v]));
      if (was_trivial && !dynamic_ready_key) continue;  // its ready entry is still fresh
      ++version[u];
      enqueue(u);
    }
  }
  return out;
}

}  // namespace gca
