// gca/spill/victims.hpp — which webs spill_to_next_tier spills (spill/spill_to_next_tier.hpp): whether a
// web may be spilled at all (detail::spillable_web, behind spill_to_next_tier::spillable) and the choice
// of victims for one round (detail::choose_victims): pressure first, then the exact search's choice, then
// the unplaced webs or their cheapest spillable neighbors. spill/edit.hpp inserts their spill code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
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
template <class = void>
bool spillable_web(const function& f, const liveness& live, web_id w, const space_filter& filter,
                   const spill_state& st) {
  const web& x = live.webs[w];
  const tensor& t = f.tensors[x.tensor];
  if (!filter.colors(t) || st.is_temp(x.tensor)) return false;
  if (t.kind != tensor_kind::internal || x.live_in || x.live_out) return false;
  // A PSUM accumulation group stays in its bank from its first to its last accumulating write.
  if (t.memory == memory_type::psum && x.accumulates) return false;
  return x.defs > 0;
}


/// How a round measures memory, from the geometry the attempt colors in. A rectangle memory (SB, PSUM):
/// areas, partitions x bytes, against capacity() x partitions. Any other (DRAM, REG, a user's): each
/// extent's footprint in the geometry's linear measure, end(e, {0, 0}) (bytes, or one register), against
/// capacity() (GeometryPolicy, requirement 6).
struct pressure_measure {
  double capacity = 0;
  std::optional<geometry_ref> linear;  // set for a memory without a rectangle view
  static double area(const extent& e) { return static_cast<double>(e.partitions) * static_cast<double>(e.bytes); }
  double size_of(const extent& e) const {
    return linear ? static_cast<double>(linear->end(e, placement{})) : area(e);
  }
  bool over(double pressure) const { return pressure > capacity + 1e-9; }
};

template <class = void>
pressure_measure measure_of(const geometry_ref& g) {
  pressure_measure pm;
  const std::optional<rect_layout> rect = g.rect();
  pm.capacity = static_cast<double>(g.capacity()) * (rect ? static_cast<double>(rect->partitions) : 1.0);
  if (!rect) pm.linear = g;
  return pm;
}

/// Live area per point (n_points + 1 entries, the last one a sentinel), from every node of the attempt
/// by its range in the graph.
template <class = void>
std::vector<double> pressure_profile(const space_attempt& a, const pressure_measure& pm, std::size_t n_points) {
  std::vector<double> pressure(n_points + 1, 0.0);
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const double sz = pm.size_of(a.extents[v]);
    for (const interval& i : a.ranges.ranges(v)) {
      pressure[i.begin] += sz;
      pressure[std::min<std::size_t>(i.end, n_points)] -= sz;
    }
  }
  for (std::size_t p = 1; p <= n_points; ++p) pressure[p] += pressure[p - 1];
  return pressure;
}

/// Over-full points so far: over_prefix[p] counts them below p. Returns whether there is any.
template <class = void>
bool count_over_full(const std::vector<double>& pressure, const pressure_measure& pm, std::size_t n_points,
                     std::vector<double>& over_prefix) {
  bool any = false;
  for (std::size_t p = 0; p < n_points; ++p) {
    const bool over = pm.over(pressure[p]);
    any = any || over;
    over_prefix[p + 1] = over_prefix[p] + (over ? 1.0 : 0.0);
  }
  return any;
}

/// The candidate relieving the most over-full points per unit of spill cost (ties: the lowest id). A
/// web relieves a point it is live across, not one where it is read or written (spill code keeps it
/// live at its own events).
template <class = void>
std::optional<web_id> best_relief(const function& f, const liveness& live, const std::vector<web_id>& candidates,
                                  const std::vector<std::uint8_t>& chosen,
                                  const std::vector<std::vector<program_point>>& events,
                                  const std::vector<double>& over_prefix, const pressure_measure& pm,
                                  std::size_t n_points) {
  std::optional<web_id> best;
  double best_score = 0;
  for (web_id w : candidates) {
    if (chosen[w]) continue;
    double relief = 0;
    for (const interval& i : live.range(w))
      relief += over_prefix[std::min<std::size_t>(i.end, n_points)] - over_prefix[i.begin];
    for (program_point q : events[w]) relief -= over_prefix[q + 1] - over_prefix[q];
    if (relief <= 0) continue;
    const double score = relief * pm.size_of(f.tensors[live.webs[w].tensor].shape) /
                         std::max(live.webs[w].spill_cost, 1e-9);
    if (!best || score > best_score) best = w, best_score = score;  // ties: lowest id (iteration order)
  }
  return best;
}

/// Spilling web w removes its area from its range except at its own event points.
template <class = void>
void relieve(std::vector<double>& pressure, std::span<const interval> range,
             const std::vector<program_point>& events, double sz, std::size_t n_points) {
  std::vector<double> delta(n_points + 1, 0.0);
  for (const interval& i : range) {
    delta[i.begin] -= sz;
    delta[std::min<std::size_t>(i.end, n_points)] += sz;
  }
  for (program_point q : events) {
    delta[q] += sz;
    delta[q + 1] -= sz;
  }
  double run = 0;
  for (std::size_t p = 0; p < n_points; ++p) pressure[p] += (run += delta[p]);
}

/// Over-full from the start and nothing can relieve it: every web live at the first over-full point is
/// read or written there (or may not be spilled). Names their tensors in st.hopeless: spilling can't help.
template <class = void>
void name_hopeless(const space_attempt& a, const std::vector<double>& pressure, const pressure_measure& pm,
                   std::size_t n_points, spill_state& st) {
  program_point worst = 0;
  while (worst < n_points && !pm.over(pressure[worst])) ++worst;
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const web_id w = a.node_web[v];
    if (w == no_web) continue;
    for (const interval& i : a.live.range(w))
      if (i.begin <= worst && worst < i.end) st.hopeless.push_back(a.live.webs[w].tensor);
  }
}

/// Step (1) of choose_victims: pressure victims, greedily (best_relief, then relieve) until no point is
/// over-full or nothing relieves what is left. Marks the first round's over-full points in `over_full`.
/// nullopt: over-full from the start and nothing relieves it (st.hopeless names why): no spill can help.
template <class = void>
std::optional<std::vector<web_id>> pressure_victims(const function& f, const space_attempt& a,
                                                    const space_filter& filter, spill_state& st,
                                                    std::vector<std::uint8_t>& over_full,
                                                    std::vector<std::uint8_t>& chosen) {
  const liveness& live = a.live;
  const std::size_t n_points = live.points + 2;
  const pressure_measure pm = measure_of(*a.geometry);
  std::vector<double> pressure = pressure_profile(a, pm, n_points);
  const std::vector<std::vector<program_point>> events = web_events(live);
  std::vector<web_id> candidates;
  for (web_id w = 0; w < live.webs.size(); ++w)
    if (spillable_web(f, live, w, filter, st)) candidates.push_back(w);

  std::vector<web_id> out;
  std::vector<double> over_prefix(n_points + 1, 0.0);
  for (bool first_round = true; count_over_full(pressure, pm, n_points, over_prefix); first_round = false) {
    if (first_round) {
      over_full.assign(n_points, 0);
      for (std::size_t p = 0; p < n_points; ++p) over_full[p] = over_prefix[p + 1] > over_prefix[p] ? 1 : 0;
    }
    const std::optional<web_id> best = best_relief(f, live, candidates, chosen, events, over_prefix, pm, n_points);
    if (!best) {
      if (!first_round) break;
      name_hopeless(a, pressure, pm, n_points, st);
      return std::nullopt;
    }
    chosen[*best] = 1;
    out.push_back(*best);
    relieve(pressure, live.range(*best), events[*best], pm.size_of(f.tensors[live.webs[*best].tensor].shape), n_points);
  }
  return out;
}

/// Step (2) of choose_victims, when select failed on fragmentation: each unplaced web that may be
/// spilled, else its cheapest spillable neighbor (cost per byte freed; the linear-scan engine builds no
/// graph, so there the unplaced web itself is all it can offer).
template <class = void>
std::vector<web_id> fragmentation_victims(const function& f, const space_attempt& a, const space_filter& filter,
                                          const spill_state& st, std::vector<std::uint8_t>& chosen) {
  const liveness& live = a.live;
  std::vector<web_id> out;
  for (const unplaced_node& u : a.result->unplaced) {
    const web_id w = a.node_web[u.node];
    if (w == no_web) continue;
    if (u.reason == unplaced_reason::does_not_fit || u.reason == unplaced_reason::pinned_illegal) continue;
    if (spillable_web(f, live, w, filter, st)) {
      if (!chosen[w]) chosen[w] = 1, out.push_back(w);
      continue;
    }
    if (!a.graph) continue;
    std::optional<web_id> best;
    double best_ratio = 0;
    for (node_id nb : a.graph->neighbors(u.node)) {
      const web_id nw = a.node_web[nb];
      if (nw == no_web || !spillable_web(f, live, nw, filter, st)) continue;
      const double ratio = a.costs[nb] / pressure_measure::area(a.extents[nb]);
      if (!best || ratio < best_ratio || (ratio == best_ratio && nw < *best)) best = nw, best_ratio = ratio;
    }
    if (best && !chosen[*best]) chosen[*best] = 1, out.push_back(*best);
  }
  return out;
}

/// Victims, in two steps. (1) Pressure: where the live area (partitions x bytes) exceeds the memory's
/// area, no coloring exists, and only a web that is live *across* such a point without being read or
/// written there is relieved by spilling it (spill code keeps a web live at its own reads and writes):
/// pressure_victims. (2) If no point was over-full, select failed on fragmentation: the search's victims
/// (spill_state::guided) if it chose any, in its order, else fragmentation_victims; (1) and the last
/// are sorted by web id.
template <class = void>
std::vector<web_id> choose_victims(const linearized_function& lf, const space_attempt& a,
                                   const space_filter& filter, spill_state& st,
                                   std::vector<std::uint8_t>& over_full) {
  const function& f = lf.work();
  std::vector<std::uint8_t> chosen(a.live.webs.size(), 0);
  std::optional<std::vector<web_id>> pressured = pressure_victims(f, a, filter, st, over_full, chosen);
  if (!pressured) return {};
  std::vector<web_id> out = std::move(*pressured);
  if (out.empty() && !st.guided.empty()) {
    // Victims chosen by the exact search (spill/place_or_prove.hpp): spilling them leaves a space that
    // has a placement, in the search's order. (Over-full points come first: their victims are needed
    // whatever the search says.)
    for (web_id w : st.guided)
      if (w < a.live.webs.size() && spillable_web(f, a.live, w, filter, st)) out.push_back(w);
    st.guided.clear();
    if (!out.empty()) return out;
  }
  if (out.empty()) out = fragmentation_victims(f, a, filter, st, chosen);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gca::detail
