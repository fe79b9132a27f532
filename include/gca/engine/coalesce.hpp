// gca/engine/coalesce.hpp — the Neuron allocator's find_partners: conservative coalescing of the two
// sides of a move.
//
// The two sides of a move (copy, dma, load, ...) within one memory, of the same shape, that do not
// interfere, may share one place, and the move then costs nothing. Partners are coalesced
// conservatively: only when the merged node still passes the geometry's sound trivially-colorable test
// (`trivially_colorable`, engine/simplify.hpp, the same test simplify applies) against the union of both
// neighborhoods — the sized form of Briggs' and George's criterion — so coalescing never turns a
// colorable graph into one that needs a spill. Merges are tried in chain order (deterministic); a merged
// node's range is the union of its members'. color_space (engine/space_colorer.hpp) runs it after the
// first build and builds the graph again over the merged nodes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/simplify.hpp>
#include <gca/engine/space_attempt.hpp>
#include <gca/engine/space_filter.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/module.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/interval.hpp>

namespace gca {

namespace detail {

/// Union-find over graph nodes that keeps each group's members; the smaller id represents its group.
class node_groups {
 public:
  explicit node_groups(std::size_t n) : parent_(n), members_(n) {
    for (node_id v = 0; v < n; ++v) {
      parent_[v] = v;
      members_[v] = {v};
    }
  }
  node_id find(node_id v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  /// Joins two different groups, given by their representatives.
  template <class = void>
  void join(node_id a, node_id b) {
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    members_[a].insert(members_[a].end(), members_[b].begin(), members_[b].end());
    members_[b].clear();
  }
  const std::vector<node_id>& members(node_id r) const { return members_[r]; }

 private:
  std::vector<node_id> parent_;
  std::vector<std::vector<node_id>> members_;
};

/// The live range of a group: its members' ranges, merged.
template <class = void>
std::vector<interval> group_range(const live_range_table& table, const std::vector<node_id>& members) {
  std::vector<interval> r;
  for (node_id m : members) r.insert(r.end(), table.ranges(m).begin(), table.ranges(m).end());
  normalize(r);
  return r;
}

/// Whether two groups are live together anywhere but at the move's own point `at`. The two sides of a
/// move overlap there (it reads its input, then writes its output); sharing a place at that point is
/// exactly what a move onto itself does, so that overlap is allowed. Any other common point is real
/// interference.
template <class = void>
bool groups_interfere(const std::vector<interval>& x, const std::vector<interval>& y, program_point at) {
  for (std::size_t p = 0, q = 0; p < x.size() && q < y.size();) {
    const program_point lo = std::max(x[p].begin, y[q].begin), hi = std::min(x[p].end, y[q].end);
    if (lo < hi && !(lo == at && hi == at + 1)) return true;
    (x[p].end < y[q].end) ? ++p : ++q;
  }
  return false;
}

/// Whether the merge of groups `ro` and `ri` (extent `e`) passes the trivially-colorable test against the
/// union of both neighborhoods, counted by group (each neighboring group once, the two groups not at all).
template <class = void>
bool merge_is_safe(const interference_graph& g, node_groups& groups, node_id ro, node_id ri, const extent& e,
                   std::span<const extent> extents, geometry_ref geom, std::vector<node_id>& nbrs) {
  const std::uint64_t cand = geom.candidates(e);
  if (cand == unbounded) return true;
  nbrs.clear();
  for (node_id r : {ro, ri})
    for (node_id m : groups.members(r))
      for (node_id u : g.neighbors(m)) {
        const node_id ru = groups.find(u);
        if (ru != ro && ru != ri) nbrs.push_back(ru);
      }
  std::sort(nbrs.begin(), nbrs.end());
  nbrs.erase(std::unique(nbrs.begin(), nbrs.end()), nbrs.end());
  wide_sum pressure;
  for (node_id u : nbrs) {
    pressure.add(geom.max_blocked(e, extents[u]));
    if (!trivially_colorable(cand, pressure)) return false;
  }
  return true;
}

/// Rebuilds the attempt's node lists with one node per group, at the position of its representative
/// (costs summed, ranges merged), and records each merged web in `a.coalesced`.
template <class = void>
void regroup_nodes(space_attempt& a, node_groups& groups, live_range_table& table) {
  const std::size_t n = a.node_web.size();
  space_attempt out;
  live_range_table merged;
  std::vector<node_id> new_id(n, ~node_id{0});
  for (node_id v = 0; v < n; ++v) {
    if (groups.find(v) != v) continue;
    new_id[v] = static_cast<node_id>(out.node_web.size());
    out.node_web.push_back(a.node_web[v]);
    out.node_tensor.push_back(a.node_tensor[v]);
    out.extents.push_back(a.extents[v]);
    out.pins.push_back(a.pins[v]);
    double cost = 0;
    for (node_id m : groups.members(v)) cost += a.costs[m];
    out.costs.push_back(cost);
    merged.add(group_range(table, groups.members(v)));
  }
  for (node_id v = 0; v < n; ++v)
    if (groups.find(v) != v) a.coalesced.emplace_back(a.node_web[v], new_id[groups.find(v)]);
  if (a.block_node != ~node_id{0}) a.block_node = new_id[a.block_node];
  a.node_web = std::move(out.node_web);
  a.node_tensor = std::move(out.node_tensor);
  a.extents = std::move(out.extents);
  a.pins = std::move(out.pins);
  a.costs = std::move(out.costs);
  table = std::move(merged);
}

}  // namespace detail

/// find_partners over attempt `a` (its graph built over `table`): merges the partners of every move that
/// is a point of its own, in chain order, when that is safe (see the top of this header). Rewrites the
/// attempt's node lists and `table`; returns whether anything was merged.
template <class = void>
bool find_partners(space_attempt& a, const linearized_function& lf, const space_filter& filter,
                   geometry_ref geom, live_range_table& table) {
  const function& f = lf.work();
  const std::size_t n = a.node_web.size();
  std::vector<node_id> web_node(a.live.webs.size(), ~node_id{0});
  for (node_id v = 0; v < n; ++v)
    if (a.node_web[v] != no_web) web_node[a.node_web[v]] = v;
  detail::node_groups groups(n);
  std::vector<node_id> nbrs;
  bool merged = false;
  // Moves that are points of their own only: inside an opaque loop both sides share the loop's point
  // with the whole body, which hides whether they are live together elsewhere in it.
  for (const chain_node& node : lf.chain()) {
    if (node.opaque_loop) continue;
    const instruction& i = f.insts[node.inst];
    if (i.is_loop() || !op::is_move(i.opcode) || i.n_outputs != 1 || i.n_inputs != 1) continue;
    const web_id wo = a.live.slot_web[i.first_operand], wi = a.live.slot_web[i.first_operand + 1];
    if (wo == no_web || wi == no_web || wo == wi) continue;
    const node_id vo = web_node[wo], vi = web_node[wi];
    if (vo == ~node_id{0} || vi == ~node_id{0}) continue;
    if (a.pins[vo] || a.pins[vi] || a.extents[vo] != a.extents[vi]) continue;
    if (!filter.colors(f.tensors[a.node_tensor[vo]]) || !filter.colors(f.tensors[a.node_tensor[vi]])) continue;
    const node_id ro = groups.find(vo), ri = groups.find(vi);
    if (ro == ri) continue;
    if (detail::groups_interfere(detail::group_range(table, groups.members(ro)),
                                 detail::group_range(table, groups.members(ri)), a.live.slot_point[i.first_operand]))
      continue;
    if (!detail::merge_is_safe(*a.graph, groups, ro, ri, a.extents[vo], a.extents, geom, nbrs)) continue;
    groups.join(ro, ri);
    merged = true;
  }
  if (merged) detail::regroup_nodes(a, groups, table);
  return merged;
}

}  // namespace gca
