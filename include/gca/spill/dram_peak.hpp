// gca/spill/dram_peak.hpp — optlevel 7 for DRAM: lower a colored linear space's peak with the 1-D exact
// search (engine/search.hpp), and say whether the result is proven optimal.
//
// Provides `peak_verdict`, `peak_search_report`, `linear_lower_bound` and `lower_linear_peak`. The spill
// fixpoint (spill/fixpoint.hpp) calls `lower_linear_peak` on a complete DRAM attempt when
// `search_options::primary` is set; the report travels in `space_report::peak_search` to the tools.
//
// The problem. The nodes of the space without coalescing (coalescing is a choice of the colorer that may
// cost peak, so the search starts from the webs themselves), as color_space builds them: one node per web,
// the webs live at every point as one block of their aligned sizes, untouched shared buffers, blockers.
// Nodes with a place (user pins, places decided by an earlier pass, other cores' bytes) are fixed.
//
// Sound reductions (any placement the search returns is valid for the true problem; search_placement
// checks it with the geometry's predicates against the hull graph before returning it):
//   - hull: a web whose live range is several intervals enters the search as one interval, its hull
//     (first begin, last end). Hulls overlap whenever the ranges do, so the search's interference is a
//     superset of the true one. The converse fails: a proof of infeasibility on hulls proves nothing.
//   - floor: the free nodes are placed at or above `base`, the aligned highest end of every fixed node,
//     so they never meet a fixed node (the search has no fixed nodes). Again one-sided.
//   - block: the webs live at every point are one node of their aligned sizes laid end to end (color_space
//     does this for the colorer too). Such a web is a stripe no other node crosses: cutting it out and
//     moving everything above it down by its aligned size keeps a placement valid and aligned, so the
//     stripes can all go to the bottom at no cost when every member's size is a multiple of the
//     alignment (exact); otherwise the block may cost up to one rounding (one-sided).
// `exact` is true when none of the three is one-sided (one interval per web, no fixed node, aligned block
// members): only then may an infeasible answer be used as a proof.
//
// Lower bound. Nodes live at one point are pairwise disjoint; stacked in offset order, each but the top one
// occupies its size rounded up to the alignment (the next one starts at an aligned offset), so
// peak >= sum of aligned sizes - the largest rounding among them. Fixed nodes (aligned by legality) may
// overlap each other, so they count as the bytes of their union. `linear_lower_bound` is the maximum of
// (union of the live fixed nodes + aligned sizes of the live free nodes - their largest rounding) over
// the points, and of the highest end of a fixed node. (This is max-live, alignment-aware.)
//
// The probes. Binary search on the peak between the lower bound and the colorer's peak: probe capacity c
// asks the search for a placement with every end <= c within `peak_probe_nodes` search nodes. The lower
// bound is probed first (reaching it proves optimality). A found placement lowers the best peak to its
// own; an infeasible answer (exact problems only) proves every peak <= c impossible; a gave-up answer (or
// infeasible on a one-sided problem) raises the low end past c without proof. Probes stop at
// `peak_total_nodes`. Node budgets decide every answer, so the result is deterministic; the deadline can
// only turn a probe into gave-up.
//
// The verdict. proven_optimal: the best peak equals the lower bound, or an exact probe proved the best
// peak - 1 infeasible. feasible: the search lowered the peak, not proved optimal. coloring_fallback: the
// search found nothing lower than the colorer's peak (and no proof), or did not run (`note` says why).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/search.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/place_or_prove.hpp>
#include <gca/spill/report.hpp>

namespace gca {

/// The lower bound of the header comment over the attempt's nodes (fixed: those with `pins`). The block
/// of webs live at every point counts as its members: its size is their aligned sum, and its rounding the
/// largest of theirs (any of them may be the top one).
template <class = void>
std::uint64_t linear_lower_bound(const space_attempt& b, const function& f, std::uint64_t align) {
  align = std::max<std::uint64_t>(1, align);
  auto up = [&](std::uint64_t s) { return (s + align - 1) / align * align; };
  std::uint64_t block_waste = 0;
  for (web_id w : b.block_members) {
    const std::uint64_t s = f.tensors[b.live.webs[w].tensor].shape.bytes;
    block_waste = std::max(block_waste, up(s) - s);
  }
  std::uint64_t bound = 0;
  for (node_id v = 0; v < b.extents.size(); ++v)
    if (b.pins[v]) bound = std::max(bound, b.pins[v]->offset + b.extents[v].bytes);
  // Sweep: (point, -1 end / +1 begin, node); ends sort before begins at one point (half-open ranges).
  std::vector<std::pair<program_point, std::pair<int, node_id>>> ev;
  for (node_id v = 0; v < b.extents.size(); ++v)
    for (const interval& i : b.ranges.ranges(v)) {
      ev.push_back({i.begin, {1, v}});
      ev.push_back({i.end, {-1, v}});
    }
  std::sort(ev.begin(), ev.end());
  std::vector<std::uint64_t> waste;  // roundings of the live free nodes (a sorted multiset)
  std::vector<std::pair<std::uint64_t, std::uint64_t>> fixed;  // [offset, end) of the live fixed nodes
  std::uint64_t sum = 0, covered = 0;  // aligned sizes of the live free nodes; bytes under live fixed nodes
  bool dirty = false;
  for (const auto& [at, e] : ev) {
    const node_id v = e.second;
    const std::uint64_t s = b.extents[v].bytes;
    if (b.pins[v]) {  // fixed nodes may overlap each other: count the bytes of their union
      const std::pair<std::uint64_t, std::uint64_t> span{b.pins[v]->offset, b.pins[v]->offset + s};
      if (e.first < 0) fixed.erase(std::find(fixed.begin(), fixed.end(), span));
      else fixed.insert(std::upper_bound(fixed.begin(), fixed.end(), span), span);
      dirty = true;
    } else {
      const std::uint64_t w = v == b.block_node ? block_waste : up(s) - s;
      if (e.first < 0) {
        sum -= up(s);
        waste.erase(std::find(waste.begin(), waste.end(), w));
      } else {
        sum += up(s);
        waste.insert(std::upper_bound(waste.begin(), waste.end(), w), w);
      }
    }
    if (e.first < 0) continue;
    if (dirty) {
      covered = 0;
      std::uint64_t reach = 0;
      for (const auto& [lo, hi] : fixed) {
        if (hi > std::max(lo, reach)) covered += hi - std::max(lo, reach);
        reach = std::max(reach, hi);
      }
      dirty = false;
    }
    bound = std::max(bound, covered + sum - (waste.empty() ? 0 : waste.back()));
  }
  return bound;
}

namespace detail {

/// The search input of the header comment: free nodes of `b`, their hulls, the hull interference graph.
struct peak_problem {
  std::vector<node_id> free;  // search node k is attempt node free[k]
  std::vector<extent> extents;
  std::vector<interval> hulls;
  std::optional<interference_graph> graph;
  std::uint64_t base = 0;  // the floor: aligned highest end of a fixed node
  bool exact = true;
};

/// Builds the search input; returns nothing (with `why`) when the problem is too large for the search.
template <class = void>
std::optional<peak_problem> make_peak_problem(const space_attempt& b, std::uint64_t align,
                                              const search_options& opt, std::string& why) {
  peak_problem p;
  for (node_id v = 0; v < b.extents.size(); ++v) {
    if (b.pins[v]) {
      p.exact = false;
      const std::uint64_t end = b.pins[v]->offset + b.extents[v].bytes;
      p.base = std::max(p.base, (end + align - 1) / align * align);
      continue;
    }
    const auto r = b.ranges.ranges(v);
    if (r.size() != 1) p.exact = false;
    p.free.push_back(v);
    p.extents.push_back(b.extents[v]);
    p.hulls.push_back({r.front().begin, r.back().end});
  }
  if (p.free.size() > opt.peak_max_nodes) {
    why = std::to_string(p.free.size()) + " nodes, more than the search takes (" + std::to_string(opt.peak_max_nodes) + ")";
    return std::nullopt;
  }
  // Interfering pairs of the hulls, counted before the graph is built (its memory is O(pairs)).
  std::vector<program_point> begins, ends;
  for (const interval& h : p.hulls) {
    begins.push_back(h.begin);
    ends.push_back(h.end);
  }
  std::sort(begins.begin(), begins.end());
  std::sort(ends.begin(), ends.end());
  std::uint64_t pairs = 0;
  for (std::size_t k = 0, j = 0; k < begins.size(); ++k) {
    while (j < ends.size() && ends[j] <= begins[k]) ++j;
    pairs += k - j;  // hulls begun before this one and not ended
  }
  if (pairs > opt.peak_max_pairs) {
    why = std::to_string(pairs) + " interfering pairs, more than the search takes (" + std::to_string(opt.peak_max_pairs) + ")";
    return std::nullopt;
  }
  live_range_table t;
  for (const interval& h : p.hulls) t.add(h);
  p.graph.emplace(build_interference(t));
  return p;
}

/// Writes the search's placement into `b` (free nodes at base + their offset, fixed nodes at their pins)
/// and returns the new peak. search_placement has checked it against the hull graph, a superset of the
/// true interference, and base keeps it clear of the fixed nodes.
template <class = void>
std::uint64_t adopt_peak_search(space_attempt& b, const peak_problem& p, const search_result& r,
                                geometry_ref geom) {
  coloring_result& c = *b.result;
  c.placements = b.pins;
  for (std::size_t k = 0; k < p.free.size(); ++k) c.placements[p.free[k]] = placement{0, p.base + r.placements[k].offset};
  c.unplaced.clear();
  c.pinned_conflicts.clear();
  c.peak = 0;
  for (node_id v = 0; v < b.extents.size(); ++v) c.peak = std::max(c.peak, geom.end(b.extents[v], *c.placements[v]));
  return c.peak;
}

}  // namespace detail

/**
 * Lowers the peak of the complete attempt `a` (memory `filter` of `lf`, a linear geometry) by the probes of
 * the header comment. When the search finds a lower peak, `a` is replaced by the uncoalesced attempt
 * carrying the search's placement (commit it as usual); otherwise `a` is left as it is.
 */
template <class = void>
peak_search_report lower_linear_peak(const linearized_function& lf, const space_filter& filter,
                                     geometry_ref geom, std::span<const placed_neighbor> blockers,
                                     const search_options& opt,
                                     std::chrono::steady_clock::time_point deadline, space_attempt& a) {
  peak_search_report rep;
  rep.coloring_peak = rep.peak = a.result->peak;
  const std::uint64_t align = std::max<std::uint64_t>(1, geom.linear_alignment().value_or(1));
  null_observer quiet;
  space_attempt b = color_space(lf, filter, geom, {}, quiet, blockers, engine_kind::linear_scan, 1);
  rep.lower_bound = linear_lower_bound(b, lf.work(), align);
  if (rep.coloring_peak <= rep.lower_bound) {  // nothing to search: coloring reached the bound
    rep.verdict = peak_verdict::proven_optimal;
    return rep;
  }
  std::string why;
  std::optional<detail::peak_problem> p = detail::make_peak_problem(b, align, opt, why);
  if (!p) {
    rep.note = "not searched: " + why;
    return rep;
  }
  for (web_id w : b.block_members)
    if (lf.work().tensors[b.live.webs[w].tensor].shape.bytes % align != 0) p->exact = false;
  rep.exact = p->exact;
  const linear_dram dram(geom.capacity(), align);
  std::optional<search_result> best_found;  // the lowest placement found so far
  std::uint64_t best = rep.coloring_peak, lo = rep.lower_bound;
  std::optional<std::uint64_t> proved;  // highest capacity proved infeasible
  std::uint64_t gave_up = 0, refused = 0;  // probes that gave up; infeasible on a one-sided input
  auto probe = [&](std::uint64_t cap) {
    ++rep.probes;
    linear_search_options so;
    so.deadline = deadline;
    so.node_limit = std::min(opt.peak_probe_nodes, opt.peak_total_nodes - rep.nodes);
    so.capacity = cap - p->base;
    so.threads = opt.threads;  // the lanes' race: the same answer on two threads
    so.max_live_turns = false;  // the probes choose their capacities themselves, the lower bound among them
    search_result r = search_placement(*p->graph, p->extents, p->hulls, dram, so);
    rep.nodes += r.stats.nodes;
    if (r.found()) {
      best = p->base + r.peak;
      best_found = std::move(r);
    } else if (r.status == search_status::infeasible && p->exact) {
      proved = std::max(proved.value_or(0), cap);
      lo = cap + 1;
    } else {
      ++(r.status == search_status::infeasible ? refused : gave_up);
      lo = cap + 1;
    }
  };
  // The bound first (the common case: the colorer's order was the only obstacle), then bisection.
  if (lo > p->base) probe(lo);
  while (lo < best && rep.nodes < opt.peak_total_nodes) {
    const std::uint64_t mid = lo + (best - 1 - lo) / 2;
    if (mid <= p->base) {
      lo = p->base + 1;
      continue;
    }
    probe(mid);
  }
  const bool optimal = best <= rep.lower_bound || (proved && *proved + 1 >= best);
  if (best_found) {
    rep.peak = detail::adopt_peak_search(b, *p, *best_found, geom);
    a = std::move(b);
  }
  if (optimal) {
    rep.verdict = peak_verdict::proven_optimal;
  } else if (best_found) {
    rep.verdict = peak_verdict::feasible;
  } else {
    rep.note = "the exact search found no lower peak in " + std::to_string(rep.probes) + " probes: " +
               std::to_string(gave_up) + " gave up, " + std::to_string(refused) + " infeasible" +
               (refused ? " on the conservative input (hulls, pins or the block; proves nothing)" : "");
  }
  return rep;
}

}  // namespace gca
