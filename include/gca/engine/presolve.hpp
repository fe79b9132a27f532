// gca/engine/presolve.hpp — exact reductions of a 1-D placement problem, before the search.
//
// Provides `handoff_merge` and `merge_handoffs`: the 1-D search (engine/search.hpp) hands its problem
// here first and searches the smaller one this returns, if any.
//
// Hand-offs. Cut time into sections at every lifetime endpoint and call a section full when the sizes
// of the nodes alive in it add up to the capacity. Take a point t between two full sections at which
// exactly one node e ends and exactly one node s starts. Every placement within the capacity puts s at
// e's offset:
//   the nodes alive in one section interfere pairwise (the search's precondition: overlapping lifetimes
//   are adjacent), so they occupy disjoint byte ranges; in a full section those ranges add up to the
//   capacity, so they tile [0, capacity) exactly. The nodes alive on both sides of t (all but e before,
//   all but s after) keep their offsets, so e's range before t and s's range after t are both the
//   complement of the same set: they are equal (and so are the sizes, which the sums force anyway).
// So e and s can be searched as one node m: e's size, alive from e's start to s's end, adjacent to the
// neighbors of both. A placement of the merged problem gives one of the original (e and s at m's
// offset: every edge of either is an edge of m), and every placement of the original is one of the
// merged problem (it puts e and s at one offset), so "infeasible" stays a proof. Links chain (s may hand
// off to a node at its own end). A link whose node is adjacent to a member of the chain it would join is
// not made (that problem is infeasible, and the search proves it without help).
//
// Why: problems that fill the capacity exactly over long stretches of time (the MiniMalloc "challenging"
// family, planted tilings; docs/PERFORMANCE.md) have many such points -- a temporary that dies and one of
// the same size born at the same instruction -- and the search otherwise rediscovers, state after state,
// that the newcomer must sit where the old one was. Cost: O(n log n + edges). The search applies it only
// when asked (`linear_search_options::merge_handoffs`): alone it fits more planted problems, but with the
// random orders and the flush-first branch order it fits as many, and on challenging file F it moves
// the static orders' walks so that only random orders find a placement (measured in PERFORMANCE.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/liveness/interval.hpp>

namespace gca {

/// The merged problem of `merge_handoffs`: node r of it stands for every original node v with
/// rep[v] == r (a chain of hand-offs).
struct handoff_merge {
  interference_graph graph;
  std::vector<extent> extents;
  std::vector<interval> lifetimes;
  std::vector<node_id> rep;  // original node -> merged node
  std::size_t merged = 0;    // original nodes that joined a predecessor's chain (original - merged count)
};

namespace detail {

/// Per section (between consecutive endpoints), whether its live sizes add up to `capacity`; `lo[v]` and
/// `hi[v]` are the indices of v's first and end endpoint among the `points` endpoints. Sums are exact: the
/// caller has checked that the total of all sizes does not overflow.
template <class = void>
std::vector<std::uint8_t> full_sections(std::span<const extent> ext, std::span<const std::size_t> lo,
                                        std::span<const std::size_t> hi, std::size_t points,
                                        std::uint64_t capacity) {
  std::vector<std::uint64_t> delta(points, 0), minus(points, 0);
  for (std::size_t v = 0; v < ext.size(); ++v) {
    delta[lo[v]] += ext[v].bytes;
    minus[hi[v]] += ext[v].bytes;
  }
  std::vector<std::uint8_t> full(points == 0 ? 0 : points - 1, 0);
  std::uint64_t live = 0;
  for (std::size_t k = 0; k < full.size(); ++k) {
    live = live + delta[k] - minus[k];  // never below zero: what ends at point k was added before
    full[k] = live == capacity;
  }
  return full;
}

/// The chains of hand-offs: next[v] is the node v hands off to (or v itself: none).
template <class = void>
std::vector<node_id> handoff_links(const interference_graph& g, std::span<const extent> ext,
                                   std::span<const interval> life, std::uint64_t capacity) {
  const std::size_t n = ext.size();
  std::vector<node_id> next(n), head(n);
  for (std::size_t v = 0; v < n; ++v) next[v] = head[v] = static_cast<node_id>(v);
  std::vector<program_point> pts;
  for (const interval& i : life) {
    pts.push_back(i.begin);
    pts.push_back(i.end);
  }
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  auto at = [&](program_point p) { return static_cast<std::size_t>(std::lower_bound(pts.begin(), pts.end(), p) - pts.begin()); };
  std::vector<std::size_t> lo(n), hi(n);
  for (std::size_t v = 0; v < n; ++v) {
    lo[v] = at(life[v].begin);
    hi[v] = at(life[v].end);
  }
  const std::vector<std::uint8_t> full = full_sections(ext, lo, hi, pts.size(), capacity);
  // Per endpoint: how many nodes end / start there, and one of each.
  constexpr node_id none = static_cast<node_id>(-1);
  std::vector<std::uint32_t> ends(pts.size(), 0), starts(pts.size(), 0);
  std::vector<node_id> ender(pts.size(), none), starter(pts.size(), none);
  for (std::size_t v = 0; v < n; ++v) {
    ++starts[lo[v]];
    starter[lo[v]] = static_cast<node_id>(v);
    ++ends[hi[v]];
    ender[hi[v]] = static_cast<node_id>(v);
  }
  // In time order, so a chain grows at its tail: its members are head .. tail along next.
  for (std::size_t p = 1; p + 1 < pts.size(); ++p) {
    if (!full[p - 1] || !full[p] || ends[p] != 1 || starts[p] != 1) continue;
    const node_id e = ender[p], s = starter[p];
    if (ext[e].bytes != ext[s].bytes) continue;  // cannot happen when both sections are full
    bool clash = false;
    for (node_id m = head[e];; m = next[m]) {
      clash = clash || g.adjacent(m, s);
      if (m == e) break;
    }
    if (clash) continue;
    next[e] = s;
    head[s] = head[e];
  }
  return next;
}

}  // namespace detail

/// Merges every hand-off (header comment) of the problem: graph `g`, `ext` (partitions 1), `life` (one
/// non-empty interval per node, overlapping ones adjacent in g) within `capacity`. Returns nothing when
/// no hand-off exists or the sizes' total overflows (then no section is known to be full).
template <class = void>
std::optional<handoff_merge> merge_handoffs(const interference_graph& g, std::span<const extent> ext,
                                            std::span<const interval> life, std::uint64_t capacity) {
  const std::size_t n = ext.size();
  std::uint64_t total = 0;
  for (std::size_t v = 0; v < n; ++v) {
    if (life[v].empty() || ext[v].bytes > unbounded - total) return std::nullopt;
    total += ext[v].bytes;
  }
  const std::vector<node_id> next = detail::handoff_links(g, ext, life, capacity);
  handoff_merge m;
  m.rep.assign(n, 0);
  std::vector<std::uint8_t> member(n, 0);
  for (std::size_t v = 0; v < n; ++v)
    if (next[v] != v) member[next[v]] = 1;
  // Merged nodes in the order of their chains' first members: node ids keep their relative order.
  for (std::size_t v = 0; v < n; ++v) {
    if (member[v]) continue;
    const auto r = static_cast<node_id>(m.extents.size());
    node_id t = static_cast<node_id>(v);
    m.rep[t] = r;
    while (next[t] != t) {
      t = next[t];
      m.rep[t] = r;
      ++m.merged;
    }
    m.extents.push_back(ext[v]);
    m.lifetimes.push_back({life[v].begin, life[t].end});
  }
  if (m.merged == 0) return std::nullopt;
  // Each merged node's neighbors: its members' neighbors, renamed, sorted, without repeats.
  std::vector<std::vector<node_id>> adj(m.extents.size());
  for (std::size_t v = 0; v < n; ++v)
    for (node_id u : g.neighbors(static_cast<node_id>(v))) adj[m.rep[v]].push_back(m.rep[u]);
  std::vector<std::size_t> row{0};
  std::vector<node_id> col;
  for (std::size_t r = 0; r < adj.size(); ++r) {
    std::sort(adj[r].begin(), adj[r].end());
    adj[r].erase(std::unique(adj[r].begin(), adj[r].end()), adj[r].end());
    for (node_id u : adj[r])
      if (u != r) col.push_back(u);  // never equal: a chain has no inner edge (handoff_links)
    row.push_back(col.size());
  }
  m.graph = interference_graph(std::move(row), std::move(col));
  return m;
}

}  // namespace gca
