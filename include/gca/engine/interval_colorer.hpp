// gca/engine/interval_colorer.hpp — the colorer for interval live ranges, with no edge list.
//
// Provides `interval_problem` (live ranges + their interval_index instead of a graph, with the same
// extents, costs, pins and priorities as `coloring_problem`), `color_intervals` (best-of-n over
// placement orders x select heuristics, the same result type as `color_best_of`), `interval_variants`
// (the default variants) and `improve_peak` (repacks the buffers that define the peak).
//
// Why: when every node is a union of a few intervals, "u and v interfere" is a property of their
// intervals, so select can ask an interval index (graph/interval_index.hpp) which placed nodes meet v
// instead of walking v's edges. Time O(n log n + sum over nodes of the intervals their query meets),
// memory O(n + intervals): the pairs are visited, never stored. On a trace with 9,000 buffers live at
// once that is the difference between gigabytes and megabytes (docs/PERFORMANCE.md, "Dense traces").
//
// What it computes, and how it relates to the graph colorer (engine/colorer.hpp):
//   * With an unbounded capacity every node is trivially colorable, so simplify is a sort by its ready
//     key and select places nodes in the reverse of that order. The orders largest-first,
//     priority-first and largest-degree are reproduced here exactly (same keys, same tie-breaks, the
//     degrees counted by sweep: graph/interval_index.hpp), so those variants give the same placements
//     as `color` (tests/test_engine.cpp checks it). smallest-last needs the remaining degrees as nodes
//     leave, i.e. a walk over every edge, and is not offered here.
//   * Two orders only this engine has, because they need live ranges: size-descending (largest first,
//     then the longer lifetime, then the lower id: the order of TFLite's "greedy by size" planner and
//     XLA's heap simulator; with best-fit it *is* that classical greedy, so a best-of-n that includes it
//     is never above it) and longest-first (longest lifetime first, then larger, then lower id).
//   * With a bounded capacity there is no trivially-colorable test (it would need each node's pressure,
//     a sum over its neighbors of a non-linear bound): every node is placed greedily, and nodes that
//     find no place are reported unplaced (no_free_position), as an optimistic node would be.
// Pins, nodes that cannot fit and pin conflicts are handled as `color` does (phases 1 and 2 of
// engine/colorer.hpp); `fixed` pins are never checked against each other, as in build_interference.
// Deterministic: every order ends in the node id, best-of-n breaks ties on variant order, and threads
// only decide which variant runs where.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca {

/// What to color: like coloring_problem, with the live ranges and their index in place of a graph.
/// Non-owning: everything must outlive the call; `index` must be built from `live`.
struct interval_problem {
  const live_range_table& live;
  const interval_index& index;
  std::span<const extent> extents;                        // one per node
  std::span<const double> spill_costs = {};               // one per node, >= 0; empty: all 1
  std::span<const std::optional<placement>> pinned = {};  // one per node; empty: nothing pinned
  std::span<const double> priority = {};                  // one per node, for priority_first; empty: footprint
  std::span<const std::uint8_t> fixed = {};               // pins decided together (never checked against each other)
};

/// The variants color_intervals runs by default: the classical greedy (best-fit/size-descending), first
/// fit by size, best fit by degree and best fit by lifetime. Fewer than the graph colorer's eight: on
/// dense traces each costs a full pass, and the peak repack (improve_peak) gains more than the other
/// pairings did. priority-first (gca-pack's area order) is left out on purpose: it interleaves long and
/// short buffers, which fragments memory into thousands of gaps, and exact best fit must look at every
/// gap (3.4 s of the 62,000-buffer dense trace's 4.4 s, for the same peak as largest-degree:
/// docs/PERFORMANCE.md, "Dense traces"); callers can still ask for it.
template <class = void>
std::vector<color_options> interval_variants() {
  using enum simplify_order;
  constexpr select_heuristic bf = select_heuristic::best_fit, ff = select_heuristic::first_fit;
  return {{bf, size_descending}, {ff, largest_first}, {bf, largest_degree}, {bf, longest_first}};
}

/// The classical size-descending order (largest first, then the longer total lifetime, then the lower
/// id) of the nodes of `live`: with best fit, TFLite's "greedy by size" and XLA's heap simulator.
/// For color_in_order (engine/colorer.hpp) on the graph path.
template <class = void>
std::vector<node_id> size_descending_order(const live_range_table& live, std::span<const extent> extents) {
  if (extents.size() != live.num_nodes()) throw input_error("size_descending_order: one extent per node");
  std::vector<node_id> nodes(live.num_nodes());
  std::iota(nodes.begin(), nodes.end(), node_id{0});
  auto footprint = [&](node_id v) {
    return static_cast<double>(extents[v].partitions) * static_cast<double>(extents[v].bytes);
  };
  std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
    if (footprint(a) != footprint(b)) return footprint(a) > footprint(b);
    return live.live_length(a) > live.live_length(b);
  });
  return nodes;
}

/// The variants color_space runs on a DRAM space without a graph: the classical greedy, and first fit
/// by the interval order (priority-first: the caller's first-point priority) and by lifetime. Fewer than
/// on traces: a query reads the occupancy lists of its interval, and when thousands of tensors live
/// nested one inside the other (a forward pass saving activations for its backward pass) those lists
/// interleave in address, so each variant walks every placed neighbor once: O(pairs) time (with O(n)
/// memory), about 0.6 s per variant for 8,000 nested tensors (docs/PERFORMANCE.md, "Dense kernels").
template <class = void>
std::vector<color_options> interval_variants_dram() {
  using enum simplify_order;
  constexpr select_heuristic bf = select_heuristic::best_fit, ff = select_heuristic::first_fit;
  return {{bf, size_descending}, {ff, priority_first}, {ff, longest_first}};
}

namespace detail {

template <class = void>
void check_interval_problem(const interval_problem& p) {
  const std::size_t n = p.live.num_nodes();
  if (p.index.num_nodes() != n || p.index.num_intervals() != p.live.intervals.size())
    throw input_error("color_intervals: the interval index was not built from these live ranges");
  auto check_size = [n](std::size_t got, const char* what) {
    if (got != n)
      throw input_error(std::string("color_intervals: ") + what + " has " + std::to_string(got) +
                        " entries for " + std::to_string(n) + " nodes");
  };
  check_size(p.extents.size(), "extents");
  if (!p.spill_costs.empty()) check_size(p.spill_costs.size(), "spill_costs");
  if (!p.pinned.empty()) check_size(p.pinned.size(), "pinned");
  if (!p.priority.empty()) check_size(p.priority.size(), "priority");
  if (!p.fixed.empty()) check_size(p.fixed.size(), "fixed");
  check_costs(p.spill_costs, p.priority);
}

/// The placed nodes whose live range meets v's, as select's neighbor list. `stamp` (one slot per node,
/// kept by the caller across queries) drops the repeats of nodes met by several intervals; `query` must
/// differ from every value used before with the same array.
struct meeting_scratch {
  std::vector<std::uint64_t> stamp;
  std::uint64_t query = 0;
  std::vector<placed_neighbor> nbrs;
  explicit meeting_scratch(std::size_t n) : stamp(n, 0) {}
};

template <class = void>
std::span<const placed_neighbor> placed_meeting(const interval_problem& p, node_id v,
                                                const std::vector<std::optional<placement>>& placements,
                                                meeting_scratch& s) {
  s.nbrs.clear();
  const std::uint64_t q = ++s.query;
  s.stamp[v] = q;
  p.index.for_each_meeting(p.live.ranges(v), [&](node_id u) {
    if (s.stamp[u] == q || !placements[u]) return;
    s.stamp[u] = q;
    s.nbrs.push_back({p.extents[u], *placements[u]});
  });
  return s.nbrs;
}


/// The address ranges of the placed nodes of a linear memory over time, so select needs no neighbor
/// list. A segment tree over the elementary time slots between consecutive interval endpoints; every
/// tree node x holds two sorted lists of disjoint address ranges:
///   stored(x)  the ranges of the placed intervals whose canonical decomposition includes x (live over
///              x's whole span), touching ranges coalesced;
///   agg(x)     the union of the ranges of the placed intervals live at some slot of x's span (those
///              stored at x or below, and some more, see insert), overlapping and touching ranges merged.
/// A query for [l, u) (slots [L, R)) reads agg(c) for the canonical nodes c of [L, R) and stored(x) for
/// the nodes x on the root paths of leaves L and R - 1. Why that is exactly the placed intervals meeting
/// [l, u), as a union of address ranges:
///   sound: everything read is live at some slot in [L, R) (agg(c): c lies inside [L, R); stored(x): x
///          contains slot L or R - 1 and stored intervals cover all of x);
///   complete: an interval B meeting [l, u) is live at some slot s in [L, R); s lies in one canonical
///          node c of the query and in one canonical node d of B, and c, d both contain s, so one is an
///          ancestor of the other. If d is c or below it, B is in agg(c) (insert adds B to agg of its
///          canonical nodes and of all their ancestors); if d is above c, d is an ancestor of a canonical
///          node of [L, R), hence on the root path of L or of R - 1, and B is in stored(d).
/// Insert adds B to stored of its canonical nodes and to agg of those and of every node on the root
/// paths of its first and last slot (which hold all their ancestors, and are live-at-some-slot too).
/// In a packed memory the ranges of nearby nodes touch and merge, so a query reads far fewer entries
/// than there are placed neighbors: no O(neighbors log neighbors) sort per select. There is no erase
/// (agg cannot un-merge): callers build one per placement pass. Memory O(placed intervals x log T).
class occupancy {
 public:
  struct range {
    std::uint64_t lo, hi;  // [lo, hi)
  };

  explicit occupancy(const live_range_table& live) {
    points_.reserve(2 * live.intervals.size());
    for (const interval& i : live.intervals) {
      points_.push_back(i.begin);
      points_.push_back(i.end);
    }
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
    leaves_ = 1;
    while (leaves_ + 1 < points_.size()) leaves_ *= 2;
    stored_.resize(2 * leaves_);
    agg_.resize(2 * leaves_);
  }

  /// Stores the address range [a, b) (a < b) over every interval of `r`, whose endpoints must be
  /// endpoints of the table this was built from.
  template <class = void>
  void insert(std::span<const interval> r, std::uint64_t a, std::uint64_t b) {
    for (const interval& i : r) {
      const std::size_t first = slot(i.begin) + leaves_, last = slot(i.end) - 1 + leaves_;
      for (std::size_t l = first, h = last + 1; l < h; l /= 2, h /= 2) {
        if (l & 1) touch_add(stored_[l], a, b), merge_add(agg_[l++], a, b);
        if (h & 1) touch_add(stored_[--h], a, b), merge_add(agg_[h], a, b);
      }
      on_paths(first, last, [&](std::size_t x) { merge_add(agg_[x], a, b); });
    }
  }

  /// Calls f(range) for stored ranges whose union is the union of the ranges of the placed intervals
  /// meeting `q` (whose endpoints must be endpoints of the table); ranges may overlap, in no order.
  template <class F>
  void for_each_meeting(const interval& q, F&& f) const {
    const std::size_t first = slot(q.begin) + leaves_, last = slot(q.end) - 1 + leaves_;
    for (std::size_t l = first, h = last + 1; l < h; l /= 2, h /= 2) {
      if (l & 1)
        for (const range& x : agg_[l++]) f(x);
      if (h & 1)
        for (const range& x : agg_[--h]) f(x);
    }
    // Path nodes inside [L, R) lie below a canonical node of the query, whose agg holds their stored
    // ranges already: only the strict ancestors of the canonical nodes are read.
    const std::size_t lo_slot = first - leaves_, hi_slot = last + 1 - leaves_;
    auto read = [&](std::size_t z, std::size_t width) {
      const std::size_t from = z * width - leaves_;
      if (from >= lo_slot && from + width <= hi_slot) return;
      for (const range& r : stored_[z]) f(r);
    };
    for (std::size_t x = first, y = last, width = 1; x >= 1; x /= 2, y /= 2, width *= 2) {
      read(x, width);
      if (y != x) read(y, width);
    }
  }

  /// The union of the address ranges of the placed intervals meeting any interval of `r`, as sorted,
  /// disjoint, non-touching ranges in `out` (cleared first). The lists for_each_meeting reads are each
  /// sorted and disjoint but overlap one another heavily (an interval spanning several canonical nodes
  /// of the query is in the agg of each), so instead of sorting every entry this merges the lists by a
  /// heap of their heads, and a list whose head extends the union range being built jumps past that
  /// range by binary search. Heap steps: at most min(m, k x U) for m entries in k lists and U union
  /// ranges, each O(log k); sorting the entries was O(m log m), and m is about ten times U on dense
  /// traces (docs/PERFORMANCE.md, "Dense traces").
  template <class = void>
  void union_meeting(std::span<const interval> r, std::vector<range>& out) const {
    out.clear();
    walk_union(r, [&](const range& x) {
      out.push_back(x);
      return true;
    });
  }

  /// The ranges of union_meeting, in increasing address order, to f(range) -> bool; stops early when f
  /// returns false (first fit needs the union only up to the first gap that fits).
  template <class F>
  void walk_union(std::span<const interval> r, F&& f) const {
    lists_.clear();
    auto take = [&](const std::vector<range>& v) {
      if (!v.empty()) lists_.push_back({v.front().lo, v.data(), v.data() + v.size()});
    };
    for (const interval& q : r) {
      const std::size_t first = slot(q.begin) + leaves_, last = slot(q.end) - 1 + leaves_;
      for (std::size_t l = first, h = last + 1; l < h; l /= 2, h /= 2) {
        if (l & 1) take(agg_[l++]);
        if (h & 1) take(agg_[--h]);
      }
      const std::size_t lo_slot = first - leaves_, hi_slot = last + 1 - leaves_;
      auto read = [&](std::size_t z, std::size_t width) {
        const std::size_t from = z * width - leaves_;
        if (from >= lo_slot && from + width <= hi_slot) return;
        take(stored_[z]);
      };
      for (std::size_t x = first, y = last, width = 1; x >= 1; x /= 2, y /= 2, width *= 2) {
        read(x, width);
        if (y != x) read(y, width);
      }
    }
    // A min-heap of the lists by head: take the lowest head; if it starts inside (or touches) the union
    // range being built, grow the range, skip that list past it and sift it down in place. On a kernel
    // with thousands of nested DRAM ranges the heads interleave and a list moves by one or two entries
    // per step, so the step is one sift (not a pop and a push), the head's address is kept in the
    // cursor, and the skip gallops from the head instead of a binary search over the whole list.
    auto later = [](const cursor& x, const cursor& y) { return x.lo > y.lo; };
    std::make_heap(lists_.begin(), lists_.end(), later);
    bool open = false;
    range cur{0, 0};
    while (!lists_.empty()) {
      cursor& c = lists_.front();
      if (open && c.lo > cur.hi) {
        if (!f(cur)) return;
        open = false;
      }
      if (!open) {
        cur = *c.head;
        open = true;
      } else {
        cur.hi = std::max(cur.hi, c.head->hi);
      }
      c.head = skip_past(c.head + 1, c.end, cur.hi);
      if (c.head == c.end) {
        c = lists_.back();
        lists_.pop_back();
      } else {
        c.lo = c.head->lo;
      }
      sift_down(lists_);
    }
    if (open) f(cur);
  }

 private:
  struct cursor {
    std::uint64_t lo;  // head->lo
    const range* head;
    const range* end;
  };
  /// Restores the min-heap (by lo) after its top changed.
  template <class = void>
  static void sift_down(std::vector<cursor>& h) {
    const std::size_t n = h.size();
    std::size_t i = 0;
    while (true) {
      const std::size_t l = 2 * i + 1, r = l + 1;
      std::size_t m = i;
      if (l < n && h[l].lo < h[m].lo) m = l;
      if (r < n && h[r].lo < h[m].lo) m = r;
      if (m == i) return;
      std::swap(h[i], h[m]);
      i = m;
    }
  }
  /// The first entry of [p, end) (sorted by hi) whose hi exceeds x: galloping from p.
  template <class = void>
  static const range* skip_past(const range* p, const range* end, std::uint64_t x) {
    if (p == end || p->hi > x) return p;
    const auto n = static_cast<std::size_t>(end - p);
    std::size_t lo = 1, hi = 1;  // p[lo - 1].hi <= x
    while (hi < n && p[hi].hi <= x) {
      lo = hi + 1;
      hi *= 2;
    }
    hi = std::min(hi, n);
    return std::upper_bound(p + lo, p + hi, x, [](std::uint64_t k, const range& e) { return k < e.hi; });
  }
  mutable std::vector<cursor> lists_;  // scratch of union_meeting (an occupancy is used by one thread)

  std::size_t slot(program_point p) const noexcept {
    return static_cast<std::size_t>(std::lower_bound(points_.begin(), points_.end(), p) - points_.begin());
  }
  /// Every node on the root paths of leaves `x` and `y` (x <= y), once.
  template <class F>
  static void on_paths(std::size_t x, std::size_t y, F&& f) {
    for (; x != y; x /= 2, y /= 2) f(x), f(y);
    for (; x >= 1; x /= 2) f(x);
  }
  /// Adds [a, b), disjoint from every range of v, coalescing with the ranges it touches.
  template <class = void>
  static void touch_add(std::vector<range>& v, std::uint64_t a, std::uint64_t b) {
    auto it = std::lower_bound(v.begin(), v.end(), a, [](const range& x, std::uint64_t k) { return x.lo < k; });
    const bool joins_prev = it != v.begin() && std::prev(it)->hi == a;
    const bool joins_next = it != v.end() && it->lo == b;
    if (joins_prev && joins_next) {
      std::prev(it)->hi = it->hi;
      v.erase(it);
    } else if (joins_prev) {
      std::prev(it)->hi = b;
    } else if (joins_next) {
      it->lo = a;
    } else {
      v.insert(it, range{a, b});
    }
  }
  /// Adds [a, b) to the union v, merging every range it overlaps or touches.
  template <class = void>
  static void merge_add(std::vector<range>& v, std::uint64_t a, std::uint64_t b) {
    auto first = std::lower_bound(v.begin(), v.end(), a, [](const range& x, std::uint64_t k) { return x.hi < k; });
    auto last = std::upper_bound(first, v.end(), b, [](std::uint64_t k, const range& x) { return k < x.lo; });
    if (first == last) {
      v.insert(first, range{a, b});
      return;
    }
    first->lo = std::min(first->lo, a);
    first->hi = std::max(std::prev(last)->hi, b);
    v.erase(std::next(first), last);
  }

  std::vector<program_point> points_;  // every interval endpoint, sorted, unique
  std::size_t leaves_ = 1;
  std::vector<std::vector<range>> stored_, agg_;  // 1-based heap layout; leaf of slot j: leaves_ + j
};

/// Phases 1 and 2 of engine/colorer.hpp without a graph: the legal pins placed, illegal pins and nodes
/// that fit nowhere reported, overlapping pins of meeting live ranges reported (u < v, sorted).
template <class = void>
prepared_problem prepare_intervals(const interval_problem& p, geometry_ref geom) {
  const std::size_t n = p.live.num_nodes();
  prepared_problem q;
  q.roles.assign(n, node_role::normal);
  q.placements.assign(n, std::nullopt);
  for (node_id v = 0; v < n; ++v) {
    if (p.pinned.empty() || !p.pinned[v]) continue;
    if (!geom.legal(p.extents[v], *p.pinned[v])) {
      q.roles[v] = node_role::excluded;
      q.unplaced.push_back({v, unplaced_reason::pinned_illegal});
      continue;
    }
    q.roles[v] = node_role::pinned;
    q.placements[v] = p.pinned[v];
    ++q.pinned;
  }
  auto is_fixed = [&](node_id v) { return !p.fixed.empty() && p.fixed[v] != 0; };
  // Each pair with at least one node not fixed is visited once, from that node (from the lower id when
  // neither is fixed): the queries start only at such nodes, so thousands of fixed DRAM tensors placed
  // by an earlier pass, all live at once, cost nothing here (they used to be O(pairs)).
  std::vector<node_id> stamp(q.pinned > 0 ? n : 0, static_cast<node_id>(-1));
  for (node_id v = 0; v < n && q.pinned > 0; ++v) {
    if (q.roles[v] != node_role::pinned || is_fixed(v)) continue;
    p.index.for_each_meeting(p.live.ranges(v), [&](node_id u) {
      if (u == v || stamp[u] == v || q.roles[u] != node_role::pinned || (u < v && !is_fixed(u))) return;
      stamp[u] = v;
      if (geom.overlaps(p.extents[v], *q.placements[v], p.extents[u], *q.placements[u]))
        q.pinned_conflicts.emplace_back(std::min(u, v), std::max(u, v));
    });
  }
  std::sort(q.pinned_conflicts.begin(), q.pinned_conflicts.end());
  for (node_id v = 0; v < n; ++v) {
    if (q.roles[v] == node_role::normal && !geom.fits(p.extents[v])) {
      q.roles[v] = node_role::excluded;
      q.unplaced.push_back({v, unplaced_reason::does_not_fit});
    }
  }
  return q;
}

/// The nodes of role `normal` in the order select places them under `order` (see the header comment:
/// the reverse of the graph simplify's removal order for the orders both engines have).
template <class = void>
std::vector<node_id> placement_order(const interval_problem& p, const prepared_problem& q,
                                     std::span<const std::uint32_t> degree, simplify_order order) {
  const std::size_t n = p.live.num_nodes();
  std::vector<node_id> nodes;
  for (node_id v = 0; v < n; ++v)
    if (q.roles[v] == node_role::normal) nodes.push_back(v);
  auto footprint = [&](node_id v) {
    return static_cast<double>(p.extents[v].partitions) * static_cast<double>(p.extents[v].bytes);
  };
  auto life = [&](node_id v) { return p.live.live_length(v); };
  // The graph simplify pops the smallest (primary, secondary, id) first and select places the last
  // popped first: placement is by descending (primary, secondary, id).
  auto by_keys = [&](auto key) {
    std::vector<std::pair<std::pair<double, double>, node_id>> k;
    k.reserve(nodes.size());
    for (node_id v : nodes) k.push_back({key(v), v});
    std::sort(k.begin(), k.end(), [](const auto& a, const auto& b) { return a > b; });
    for (std::size_t i = 0; i < k.size(); ++i) nodes[i] = k[i].second;
  };
  switch (order) {
    case simplify_order::largest_first:
      by_keys([&](node_id v) { return std::pair{footprint(v), static_cast<double>(degree[v])}; });
      break;
    case simplify_order::priority_first:
      by_keys([&](node_id v) { return std::pair{p.priority.empty() ? footprint(v) : p.priority[v], footprint(v)}; });
      break;
    case simplify_order::largest_degree:
      by_keys([&](node_id v) { return std::pair{static_cast<double>(degree[v]), footprint(v)}; });
      break;
    case simplify_order::size_descending:
      std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
        if (footprint(a) != footprint(b)) return footprint(a) > footprint(b);
        return life(a) > life(b);
      });
      break;
    case simplify_order::longest_first:
      std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
        if (life(a) != life(b)) return life(a) > life(b);
        return footprint(a) > footprint(b);
      });
      break;
    case simplify_order::smallest_last:
      throw input_error("color_intervals: smallest-last needs the remaining degrees, i.e. an edge list; "
                        "use the graph colorer (engine/colorer.hpp)");
  }
  return nodes;
}

/// Places `nodes` in order by heuristic h into `placements` (which holds the pins and earlier
/// placements); returns the nodes that found no place, in order. In a linear DRAM the blocked starts
/// come from an `occupancy` of the placed nodes (built here) and the gap walk of linear_dram::select is
/// called on them directly: the union of the placed neighbors' address ranges gives the same set of
/// blocked starts (overlapping or touching ranges give overlapping or touching start runs, which
/// pick_start merges anyway), so the same answer as select over the neighbor list, at sweep speed.
/// Other geometries get the neighbor list from the interval index and their own select.
/// `base`, if given, is the occupancy of exactly the nodes placed on entry (linear DRAM only): it is
/// copied instead of built.
inline bool linear_memory(geometry_ref geom) {
  return geom.linear_alignment().has_value() && geom.linear_bytes();
}

template <class = void>
occupancy occupancy_of(const interval_problem& p, const std::vector<std::optional<placement>>& placements) {
  occupancy occ(p.live);
  for (node_id v = 0; v < p.live.num_nodes(); ++v)
    if (placements[v] && p.extents[v].bytes > 0)
      occ.insert(p.live.ranges(v), placements[v]->offset, placements[v]->offset + p.extents[v].bytes);
  return occ;
}

template <class = void>
std::vector<unplaced_node> place_in_order(const interval_problem& p, geometry_ref geom,
                                          std::span<const node_id> nodes, select_heuristic h,
                                          std::vector<std::optional<placement>>& placements,
                                          meeting_scratch& scratch, const occupancy* base = nullptr) {
  std::vector<unplaced_node> out;
  if (nodes.empty()) return out;  // nothing to place: no occupancy to build (a space whose nodes are all fixed)
  if (!linear_memory(geom)) {
    for (node_id v : nodes) {
      watchdog_tick(16);
      placements[v] = geom.select(p.extents[v], placed_meeting(p, v, placements, scratch), h);
      if (!placements[v]) out.push_back({v, unplaced_reason::no_free_position});
    }
    return out;
  }
  const std::uint64_t align = *geom.linear_alignment();
  occupancy occ = base ? *base : occupancy_of(p, placements);
  const std::uint64_t cap = geom.capacity();
  std::vector<start_range> blocked;
  std::vector<occupancy::range> used;
  for (node_id v : nodes) {
    watchdog_tick(16);  // the watchdog (gca/watchdog.hpp): a placement walks the ranges it meets
    const extent& e = p.extents[v];
    std::optional<start_choice> c;
    if (geom.fits(e) && h == select_heuristic::first_fit) {
      // First fit walks the union in address order and stops at the first gap that holds an aligned
      // start: the lowest aligned p <= cap - s with [p, p + s) clear of every range, as pick_start's.
      const std::uint64_t s = e.bytes;
      std::optional<std::uint64_t> at = align_up(0, align);
      std::uint64_t x = 0;  // lowest address not known to be covered
      bool done = false;
      occ.walk_union(p.live.ranges(v), [&](const occupancy::range& u) {
        at = align_up(x, align);
        if (at && *at <= u.lo && u.lo - *at >= s) {
          done = true;
          return false;
        }
        x = std::max(x, u.hi);
        return true;
      });
      if (!done) at = align_up(x, align);
      if (at && *at <= cap - s) c = start_choice{*at, 0};
    } else if (geom.fits(e)) {
      const std::uint64_t s = e.bytes;
      occ.union_meeting(p.live.ranges(v), used);
      blocked.clear();
      for (const occupancy::range& x : used) blocked.push_back(blocked_starts(s, x.lo, x.hi - x.lo));
      const start_range domain{0, cap - s};
      c = pick_start(std::span(&domain, 1), blocked, s, align, h);
    }
    if (!c) {
      placements[v].reset();
      out.push_back({v, unplaced_reason::no_free_position});
      continue;
    }
    placements[v] = placement{0, c->start};
    occ.insert(p.live.ranges(v), c->start, c->start + e.bytes);
  }
  return out;
}

template <class = void>
coloring_result finish_intervals(const interval_problem& p, geometry_ref geom, const color_options& opt,
                                 const prepared_problem& q, std::span<const node_id> nodes,
                                 std::uint64_t pairs) {
  const std::size_t n = p.live.num_nodes();
  coloring_result r;
  r.options = opt;
  r.placements = q.placements;
  r.pinned_conflicts = q.pinned_conflicts;
  r.stats.nodes = n;
  r.stats.edges = pairs;
  r.stats.runs = 1;
  r.stats.pinned = q.pinned;
  meeting_scratch scratch(n);
  std::vector<unplaced_node> unplaced = place_in_order(p, geom, nodes, opt.heuristic, r.placements, scratch);
  unplaced.insert(unplaced.end(), q.unplaced.begin(), q.unplaced.end());
  sort_by_node(unplaced);
  r.unplaced = std::move(unplaced);
  for (node_id v = 0; v < n; ++v)
    if (r.placements[v]) r.peak = std::max(r.peak, geom.end(p.extents[v], *r.placements[v]));
  return r;
}

}  // namespace detail

/// Best-of-n over `variants` (their orders must not be smallest-last) with the interval index, on up to
/// `threads` threads; the winner by the same score as color_best_of, ties to the earlier variant, so
/// the answer does not depend on the thread count. `result.stats.edges` is the number of interfering
/// pairs, counted by sweep (never listed). Throws input_error on inconsistent sizes, bad costs, an
/// empty variant list or smallest-last.
template <class = void>
coloring_result color_intervals(const interval_problem& p, geometry_ref geom,
                                std::span<const color_options> variants, unsigned threads = 1) {
  if (variants.empty()) throw input_error("color_intervals: no variant to run");
  detail::check_interval_problem(p);
  for (const color_options& o : variants)
    if (o.order == simplify_order::smallest_last)
      throw input_error("color_intervals: smallest-last needs an edge list; use the graph colorer");
  const std::vector<std::uint32_t> degree = sweep_degrees(p.live, p.index);
  const std::uint64_t pairs = sweep_pairs(degree);
  const detail::prepared_problem q = detail::prepare_intervals(p, geom);
  const bool worth_it = p.live.num_nodes() + pairs >= parallel_threshold;
  std::vector<std::optional<coloring_result>> results(variants.size());
  detail::run_jobs(variants.size(), worth_it ? threads : 1, [&](std::size_t i) {
    const std::vector<node_id> nodes = detail::placement_order(p, q, degree, variants[i].order);
    results[i] = detail::finish_intervals(p, geom, variants[i], q, nodes, pairs);
  });
  std::size_t best = 0;
  for (std::size_t i = 1; i < variants.size(); ++i)
    if (detail::better_result(p.spill_costs, *results[i], *results[best])) best = i;
  results[best]->stats.runs = variants.size();
  return std::move(*results[best]);
}

template <GeometryPolicy Geometry>
coloring_result color_intervals(const interval_problem& p, const Geometry& geom,
                                std::span<const color_options> variants, unsigned threads = 1) {
  return color_intervals(p, geometry_ref(geom), variants, threads);
}

/// best-of-n over interval_variants().
template <GeometryPolicy Geometry>
coloring_result color_intervals(const interval_problem& p, const Geometry& geom, unsigned threads = 1) {
  const std::vector<color_options> v = interval_variants();
  return color_intervals(p, geometry_ref(geom), std::span<const color_options>(v), threads);
}

struct improve_stats {
  std::size_t rounds = 0;    // rounds that lowered the peak
  std::size_t trials = 0;    // repacks tried
  std::uint64_t before = 0;  // peak on entry
};

/// Lowers the peak of a complete coloring `r` of `p` by repacking the buffers that define it. For cuts
/// some way below the peak (1/128, 1/32 and 1/8 of it, at least 1, and `lower_bound` itself when lower
/// still: everything above it must move for the peak to reach it), two sets of victims are taken out
/// and placed again around the nodes that stay: the nodes that end above the cut, and those with every
/// node their live ranges meet (pins never move). Each set is placed in four orders (size-descending,
/// longest-first, largest area, earliest start) with best fit; a repack is kept when every node finds a
/// place and the peak falls, and the next round starts from it. Stops when a round gains nothing, the
/// peak reaches `lower_bound` (e.g. max-live), or after `max_rounds`. Work per round is bounded by node
/// placements (max(2n, 4096), sets times orders; sets above `max_victims` are skipped), never by time,
/// so the answer is deterministic; the repacks of a round run on up to `threads` threads and the best
/// (lowest peak, then the first in trial order) is kept, so it does not depend on the thread count.
/// Never raises the peak; `r` must be complete (otherwise nothing is done).
/// One piece (about 130 lines) because a round's victim sets, their base occupancies and the trials
/// over them share the round's state; split, each part would take all of it as arguments.
template <class = void>
improve_stats improve_peak(const interval_problem& p, geometry_ref geom, coloring_result& r,
                           std::uint64_t lower_bound = 0, unsigned threads = 1, std::size_t max_rounds = 4,
                           std::size_t max_victims = 1u << 14) {
  detail::check_interval_problem(p);
  improve_stats st;
  st.before = r.peak;
  if (!r.complete()) return st;
  const std::size_t n = p.live.num_nodes();
  auto footprint = [&](node_id v) {
    return static_cast<double>(p.extents[v].partitions) * static_cast<double>(p.extents[v].bytes);
  };
  auto life = [&](node_id v) { return p.live.live_length(v); };
  auto start = [&](node_id v) { return p.live.ranges(v).empty() ? program_point{0} : p.live.ranges(v).front().begin; };
  auto is_pin = [&](node_id v) { return !p.pinned.empty() && p.pinned[v].has_value(); };
  constexpr std::uint64_t shifts[] = {7, 5, 3};
  constexpr std::size_t orders = 4;
  for (std::size_t round = 0; round < max_rounds && r.peak > lower_bound; ++round) {
    struct trial {
      std::vector<std::optional<placement>> placements;
      std::uint64_t peak = 0;
      bool ok = false;
    };
    std::vector<std::uint64_t> cuts;
    for (std::uint64_t s : shifts) cuts.push_back(r.peak - std::max<std::uint64_t>(1, r.peak >> s));
    if (lower_bound > 0 && lower_bound < cuts.back()) cuts.push_back(lower_bound);
    // Two victim sets per cut: the nodes that end above it (their order changes, the gaps below stay),
    // and those plus every node their live ranges meet (the column of memory under the peak, so the
    // gaps below change too). A set is tried only while the round's work stays within `budget` node
    // placements (sets, times the orders): a deterministic bound, about two colorer passes.
    std::vector<std::vector<node_id>> victims;
    std::size_t budget = std::max<std::size_t>(2 * n, 4096);
    auto offer = [&](std::vector<node_id> v) {
      if (v.empty() || v.size() > max_victims || v.size() * orders > budget) return;
      for (const std::vector<node_id>& w : victims)
        if (w == v) return;
      budget -= v.size() * orders;
      victims.push_back(std::move(v));
    };
    std::vector<std::uint8_t> in(n, 0);
    for (std::uint64_t cut : cuts) {
      std::vector<node_id> top;
      for (node_id u = 0; u < n; ++u)
        if (r.placements[u] && !is_pin(u) && geom.end(p.extents[u], *r.placements[u]) > cut) top.push_back(u);
      std::vector<node_id> column;
      std::fill(in.begin(), in.end(), 0);
      auto take = [&](node_id u) {
        if (!in[u] && r.placements[u] && !is_pin(u)) {
          in[u] = 1;
          column.push_back(u);
        }
      };
      for (node_id u = 0; u < n && top.size() * orders <= budget; ++u)
        if (r.placements[u] && geom.end(p.extents[u], *r.placements[u]) > cut) {
          take(u);
          p.index.for_each_meeting(p.live.ranges(u), take);
        }
      std::sort(column.begin(), column.end());
      offer(std::move(top));
      offer(std::move(column));
    }
    // The placements without each set's victims, and (linear DRAM) their occupancy, once per set.
    std::vector<std::vector<std::optional<placement>>> kept(victims.size(), r.placements);
    std::vector<std::optional<detail::occupancy>> base(victims.size());
    const bool linear = detail::linear_memory(geom);
    detail::run_jobs(victims.size(), n >= parallel_threshold ? threads : 1, [&](std::size_t c) {
      for (node_id v : victims[c]) kept[c][v].reset();
      if (linear) base[c] = detail::occupancy_of(p, kept[c]);
    });
    std::vector<trial> trials(victims.size() * orders);
    detail::run_jobs(trials.size(), n >= parallel_threshold ? threads : 1, [&](std::size_t t) {
      std::vector<node_id> nodes = victims[t / orders];
      switch (t % orders) {
        case 0:
          std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
            return footprint(a) != footprint(b) ? footprint(a) > footprint(b) : life(a) > life(b);
          });
          break;
        case 1:
          std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
            return life(a) != life(b) ? life(a) > life(b) : footprint(a) > footprint(b);
          });
          break;
        case 2:
          std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) {
            return footprint(a) * static_cast<double>(life(a)) > footprint(b) * static_cast<double>(life(b));
          });
          break;
        default:
          std::stable_sort(nodes.begin(), nodes.end(), [&](node_id a, node_id b) { return start(a) < start(b); });
          break;
      }
      trial& tr = trials[t];
      tr.placements = kept[t / orders];
      detail::meeting_scratch scratch(linear ? 0 : n);
      const detail::occupancy* b = base[t / orders] ? &*base[t / orders] : nullptr;
      tr.ok = detail::place_in_order(p, geom, nodes, select_heuristic::best_fit, tr.placements, scratch, b).empty();
      for (node_id v = 0; v < n && tr.ok; ++v)
        if (tr.placements[v]) tr.peak = std::max(tr.peak, geom.end(p.extents[v], *tr.placements[v]));
    });
    st.trials += trials.size();
    std::size_t best = trials.size();
    for (std::size_t t = 0; t < trials.size(); ++t)
      if (trials[t].ok && trials[t].peak < r.peak && (best == trials.size() || trials[t].peak < trials[best].peak))
        best = t;
    if (best == trials.size()) break;
    r.placements = std::move(trials[best].placements);
    r.peak = trials[best].peak;
    ++st.rounds;
  }
  return st;
}

}  // namespace gca
