// gca/spill/victims.hpp — which webs spill_to_next_tier spills (spill/spill_to_next_tier.hpp): whether a
// web may be spilled at all (detail::spillable_web, behind spill_to_next_tier::spillable) and the choice
// of victims for one round (detail::choose_victims): pressure first, then the exact search's choice, then
// the unplaced webs or their cheapest spillable neighbors. spill/edit.hpp inserts their spill code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gca/engine/space_colorer.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/concept.hpp>

namespace gca::detail {

/// May web `w` be spilled at all? Not a temporary, an I/O or live-in/out web, or a PSUM accumulation
/// group (spill_to_next_tier::spillable).
inline bool spillable_web(const function& f, const liveness& live, web_id w, const space_filter& filter,
                          const spill_state& st) {
  const web& x = live.webs[w];
  const tensor& t = f.tensors[x.tensor];
  if (!filter.colors(t) || st.is_temp(x.tensor)) return false;
  if (t.kind != tensor_kind::internal || x.live_in || x.live_out) return false;
  // A PSUM accumulation group stays in its bank from its first to its last accumulating write.
  if (t.memory == memory_type::psum && x.accumulates) return false;
  return x.defs > 0;
}


/// Victims, in two steps. (1) Pressure: where the live area (partitions x bytes) exceeds the memory's
/// area, no coloring exists, and only a web that is live *across* such a point without being read or
/// written there is relieved by spilling it (spill code keeps a web live at its own reads and writes).
/// Greedily take the web with the most over-full points relieved per unit of spill cost, update the
/// pressure, and repeat until no point is over-full. (2) If no point was over-full, select failed on
/// fragmentation: the search's victims (spill_state::guided) if it chose any, else spill each unplaced
/// web that may be spilled, or else its cheapest spillable neighbor.
inline std::vector<web_id> choose_victims(const linearized_function& lf, const space_attempt& a,
                                          const space_filter& filter, const target& tgt, spill_state& st,
                                          std::vector<std::uint8_t>& over_full) {
  const function& f = lf.work();
  const liveness& live = a.live;
  const std::size_t n_points = live.points + 2;
  auto area = [](const extent& e) { return static_cast<double>(e.partitions) * static_cast<double>(e.bytes); };
  const double capacity = static_cast<double>(capacity_of(tgt, filter.memory)) *
                 (filter.memory == memory_type::sb || filter.memory == memory_type::psum
                      ? static_cast<double>(tgt.sb_partitions)
                      : 1.0);
  const double unit = filter.memory == memory_type::reg ? 1.0 : 0.0;  // a register counts as 1
  auto size_of = [&](const extent& e) { return unit > 0 ? unit : area(e); };

  // Pressure per point from every node of the attempt, by the node's range in the graph.
  std::vector<double> pressure(n_points + 1, 0.0);
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const double sz = size_of(a.extents[v]);
    for (const interval& i : a.ranges.ranges(v)) {
      pressure[i.begin] += sz;
      pressure[std::min<std::size_t>(i.end, n_points)] -= sz;
    }
  }
  for (std::size_t p = 1; p <= n_points; ++p) pressure[p] += pressure[p - 1];

  // Event points of each web (where it is read or written: spill code keeps it live there).
  std::vector<std::vector<program_point>> events(live.webs.size());
  for (std::size_t s = 0; s < live.slot_web.size(); ++s)
    if (live.slot_web[s] != no_web) events[live.slot_web[s]].push_back(live.slot_point[s]);
  for (auto& e : events) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
  std::vector<web_id> candidates;
  for (web_id w = 0; w < live.webs.size(); ++w)
    if (spillable_web(f, live, w, filter, st)) candidates.push_back(w);

  std::vector<web_id> out;
  std::vector<std::uint8_t> chosen(live.webs.size(), 0);
  std::vector<double> over_prefix(n_points + 1, 0.0);
  bool first_round = true;
  for (;;) {
    bool any = false;
    for (std::size_t p = 0; p < n_points; ++p) {
      const bool over = pressure[p] > capacity + 1e-9;
      any = any || over;
      over_prefix[p + 1] = over_prefix[p] + (over ? 1.0 : 0.0);
    }
    if (!any) break;
    if (first_round) {
      over_full.assign(n_points, 0);
      for (std::size_t p = 0; p < n_points; ++p) over_full[p] = over_prefix[p + 1] > over_prefix[p] ? 1 : 0;
    }
    std::optional<web_id> best;
    double best_score = 0;
    for (web_id w : candidates) {
      if (chosen[w]) continue;
      double relief = 0;
      for (const interval& i : live.range(w))
        relief += over_prefix[std::min<std::size_t>(i.end, n_points)] - over_prefix[i.begin];
      for (program_point q : events[w]) relief -= over_prefix[q + 1] - over_prefix[q];
      if (relief <= 0) continue;
      const double score = relief * size_of(f.tensors[live.webs[w].tensor].shape) /
                  std::max(live.webs[w].spill_cost, 1e-9);
      if (!best || score > best_score) best = w, best_score = score;  // ties: lowest id (iteration order)
    }
    if (!best) {
      if (first_round) {
        // Over-full from the start and nothing can relieve it: every web there is read or written
        // at that very point (or may not be spilled). Name them; spilling can't help.
        program_point worst = 0;
        while (worst < n_points && !(pressure[worst] > capacity + 1e-9)) ++worst;
        for (node_id v = 0; v < a.node_web.size(); ++v) {
          const web_id w = a.node_web[v];
          if (w == no_web) continue;
          for (const interval& i : live.range(w))
            if (i.begin <= worst && worst < i.end) st.hopeless.push_back(live.webs[w].tensor);
        }
        return {};
      }
      break;
    }
    first_round = false;
    chosen[*best] = 1;
    out.push_back(*best);
    const double sz = size_of(f.tensors[live.webs[*best].tensor].shape);
    // Remove the victim's area from its range, except at its own event points.
    std::vector<double> delta(n_points + 1, 0.0);
    for (const interval& i : live.range(*best)) {
      delta[i.begin] -= sz;
      delta[std::min<std::size_t>(i.end, n_points)] += sz;
    }
    for (program_point q : events[*best]) {
      delta[q] += sz;
      delta[q + 1] -= sz;
    }
    double run = 0;
    for (std::size_t p = 0; p < n_points; ++p) pressure[p] += (run += delta[p]);
  }
  if (!out.empty()) {
    std::sort(out.begin(), out.end());
    return out;
  }
  // Victims chosen by the exact search (spill/place_or_prove.hpp): spilling them leaves a space that
  // has a placement. (Over-full points come first: their victims are needed whatever the search says.)
  if (!st.guided.empty()) {
    for (web_id w : st.guided)
      if (w < live.webs.size() && spillable_web(f, live, w, filter, st)) out.push_back(w);
    st.guided.clear();
    if (!out.empty()) return out;
  }

  for (const unplaced_node& u : a.result->unplaced) {
    const web_id w = a.node_web[u.node];
    if (w == no_web) continue;
    if (u.reason == unplaced_reason::does_not_fit || u.reason == unplaced_reason::pinned_illegal) continue;
    if (spillable_web(f, live, w, filter, st)) {
      if (!chosen[w]) chosen[w] = 1, out.push_back(w);
      continue;
    }
    // Relieve an unspillable web through its cheapest spillable neighbor (cost per byte freed); the
    // linear-scan engine builds no graph, so there the unplaced web itself is all it can offer.
    if (!a.graph) continue;
    std::optional<web_id> best;
    double best_ratio = 0;
    for (node_id nb : a.graph->neighbors(u.node)) {
      const web_id nw = a.node_web[nb];
      if (nw == no_web || !spillable_web(f, live, nw, filter, st)) continue;
      const double ratio = a.costs[nb] / area(a.extents[nb]);
      if (!best || ratio < best_ratio || (ratio == best_ratio && nw < *best)) best = nw, best_ratio = ratio;
    }
    if (best && !chosen[*best]) chosen[*best] = 1, out.push_back(*best);
  }
  std::sort(out.begin(), out.end());
  return out;
}


}  // namespace gca::detail
