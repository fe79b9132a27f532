// gca/graph/interference.hpp — the interference graph the colorers work on.
//
// Provides `interference_graph`, an immutable undirected graph in compressed sparse row form (every edge
// stored in both directions, so a node's degree is O(1) and its neighbors one contiguous sorted span), and
// its two builders:
//   build_interference(live_range_table)       endpoint sweep over per-node live ranges, O(n log n + E)
//   build_interference(num_nodes, edge list)   explicit edges (DIMACS), duplicates and self loops dropped
// Neighbors of every node are sorted by node id, so every walk over the graph is deterministic.
// The graph is never mutated after construction: simplify keeps its degrees in a separate array.
// gca/graph/bgl.hpp makes it a Boost.Graph graph (IncidenceGraph, AdjacencyGraph, VertexListGraph,
// EdgeListGraph) for BGL's algorithms; that header is separate because Boost's graph headers are the
// largest part of a translation unit that includes gca, and the engine needs none of them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/liveness/interval.hpp>
#include <gca/watchdog.hpp>

namespace gca {

using node_id = std::uint32_t;  // dense index of an interference-graph node (a tensor, a register value)

/// Per-node live ranges in CSR form: node v owns intervals [offsets[v], offsets[v+1]). Each node's list
/// must be sorted by begin and disjoint (what `normalize` produces); empty intervals are not allowed.
struct live_range_table {
  std::vector<std::size_t> offsets{0};  // size num_nodes() + 1
  std::vector<interval> intervals;

  std::size_t num_nodes() const noexcept { return offsets.size() - 1; }
  /// Appends the next node; `r` must already be canonical (sorted, disjoint, non-empty intervals).
  void add(std::span<const interval> r) {
    intervals.insert(intervals.end(), r.begin(), r.end());
    offsets.push_back(intervals.size());
  }
  /// Appends a node alive over the single interval `i` (the DSA-problem case).
  void add(interval i) { add(std::span<const interval>(&i, 1)); }
  std::span<const interval> ranges(node_id v) const noexcept {
    return std::span<const interval>(intervals).subspan(offsets[v], offsets[v + 1] - offsets[v]);
  }
  /// Total number of program points node v is alive (the "length" of its live range).
  template <class = void>
  std::uint64_t live_length(node_id v) const noexcept {
    std::uint64_t n = 0;
    for (const interval& i : ranges(v)) n += i.end - i.begin;
    return n;
  }
};

class interference_graph {
 public:
  interference_graph() = default;

  /// Builds from adjacency lists in CSR form: node v's neighbors are column[row_start[v] ..
  /// row_start[v + 1]), each list sorted by id, no duplicates, no self loops, every edge in both lists.
  /// The shape (row_start starts at 0, never decreases, ends at column.size(); every id < the node
  /// count) is checked, O(n + E), and a bad one throws input_error; the list properties are the caller's.
  interference_graph(std::vector<std::size_t> row_start, std::vector<node_id> column)
      : row_start_(std::move(row_start)), column_(std::move(column)) {
    if (row_start_.empty()) row_start_.push_back(0);
    const std::size_t n = row_start_.size() - 1;
    if (n > std::numeric_limits<node_id>::max())
      throw input_error("interference_graph: too many nodes for node_id");
    if (row_start_.front() != 0 || row_start_.back() != column_.size())
      throw input_error("interference_graph: row_start must run from 0 to the column count");
    for (std::size_t v = 0; v < n; ++v)
      if (row_start_[v] > row_start_[v + 1])
        throw input_error("interference_graph: row_start decreases at node " + std::to_string(v));
    for (node_id u : column_)
      if (u >= n) throw input_error("interference_graph: neighbor " + std::to_string(u) + " is not a node");
  }
  interference_graph(std::span<const std::size_t> row_start, std::span<const node_id> column)
      : interference_graph(std::vector<std::size_t>(row_start.begin(), row_start.end()),
                           std::vector<node_id>(column.begin(), column.end())) {}

  std::size_t num_nodes() const noexcept { return row_start_.size() - 1; }
  /// Undirected edges (each stored twice).
  std::size_t num_edges() const noexcept { return column_.size() / 2; }
  std::uint32_t degree(node_id v) const noexcept {
    return static_cast<std::uint32_t>(row_start_[v + 1] - row_start_[v]);
  }
  /// Neighbors of v, sorted by id. The span stays valid as long as the graph lives.
  std::span<const node_id> neighbors(node_id v) const noexcept {
    return std::span<const node_id>(column_).subspan(row_start_[v], row_start_[v + 1] - row_start_[v]);
  }
  bool adjacent(node_id u, node_id v) const noexcept {
    const auto n = neighbors(u);
    return std::binary_search(n.begin(), n.end(), v);
  }
  /// The CSR arrays themselves: node v's arcs are [row_start()[v], row_start()[v + 1]) of column().
  /// An arc's index into column() is what gca/graph/bgl.hpp uses as the BGL edge index.
  std::span<const std::size_t> row_start() const noexcept { return row_start_; }
  std::span<const node_id> column() const noexcept { return column_; }

  /// For gca's own builders, whose arrays have the shape above by construction: not checked again
  /// (at 10^8 arcs the check is a pass over memory the builder has just written).
  struct prechecked_t {};
  interference_graph(prechecked_t, std::vector<std::size_t> row_start, std::vector<node_id> column) noexcept
      : row_start_(std::move(row_start)), column_(std::move(column)) {}

 private:
  std::vector<std::size_t> row_start_{0};
  std::vector<node_id> column_;
};

namespace detail {

/// The graph of the meetings `for_each_meeting(meet)` reports: it calls meet(u, v) once per meeting of
/// two different nodes u, v < n (in any order, possibly several times), and is called twice: once to
/// count each node's meetings, once to write them straight into CSR rows, so no edge list is materialized
/// or reallocated (at millions of edges that, and its page faults, was most of the cost). One
/// transposition then sorts every row at once: walking sources in increasing id and appending each to its
/// targets' rows leaves every row sorted (the graph is symmetric, so the rows are the same); repeated
/// meetings, now adjacent, are dropped in the same pass. O(n + E).
template <class ForEachMeeting>
interference_graph csr_from_meetings(std::size_t n, ForEachMeeting&& for_each_meeting) {
  std::vector<std::size_t> row(n + 1, 0);
  for_each_meeting([&](node_id u, node_id v) {
    ++row[u + 1];
    ++row[v + 1];
  });
  for (std::size_t v = 0; v < n; ++v) row[v + 1] += row[v];
  std::vector<node_id> unsorted(row[n]);
  {
    std::vector<std::size_t> fill(row.begin(), row.end() - 1);
    for_each_meeting([&](node_id u, node_id v) {
      unsorted[fill[u]++] = v;
      unsorted[fill[v]++] = u;
    });
  }
  std::vector<node_id> column(row[n]);
  {
    std::vector<std::size_t> fill(row.begin(), row.end() - 1);
    for (node_id v = 0; v < n; ++v)
      for (std::size_t i = row[v]; i < row[v + 1]; ++i) column[fill[unsorted[i]]++] = v;
  }
  unsorted = {};
  std::size_t w = 0, first = 0;
  for (std::size_t v = 0; v < n; ++v) {
    const std::size_t last = row[v + 1];
    row[v] = w;
    for (std::size_t i = first; i < last; ++i)
      if (i == first || column[i] != column[i - 1]) column[w++] = column[i];
    first = last;
  }
  row[n] = w;
  column.resize(w);
  return interference_graph(interference_graph::prechecked_t{}, std::move(row), std::move(column));
}

}  // namespace detail

/// Interference from live ranges by an endpoint sweep: events sorted by point, ends before begins at the
/// same point (half-open intervals that only touch do not interfere); a begin interferes with every node
/// active at that moment. Never compares all pairs: O(n log n + E) for n intervals and E overlaps.
/// Throws input_error if a node's list is not sorted and disjoint or holds an empty interval.
/// `fixed` (empty, or one flag per node) marks nodes whose places are already decided (pins, other
/// spaces, other cores): no edge joins two fixed nodes, since neither will be colored, so many
/// always-live fixed nodes cost no quadratic edge count.
template <class = void>
interference_graph build_interference(const live_range_table& live, std::span<const std::uint8_t> fixed = {}) {
  const std::size_t n = live.num_nodes();
  if (!fixed.empty() && fixed.size() != n)
    throw input_error("build_interference: `fixed` needs one flag per node");
  auto is_fixed = [&](node_id v) -> std::size_t { return !fixed.empty() && fixed[v] != 0 ? 1 : 0; };
  if (live.offsets.empty() || live.offsets.front() != 0 || live.offsets.back() != live.intervals.size())
    throw input_error("build_interference: live_range_table offsets do not cover its intervals");
  struct event {
    program_point at;
    bool is_begin;  // false sorts first: an end at p frees the node before a begin at p sees it
    node_id node;
  };
  std::vector<event> events;
  events.reserve(2 * live.intervals.size());
  for (node_id v = 0; v < n; ++v) {
    const auto r = live.ranges(v);
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (r[i].empty())
        throw input_error("build_interference: node " + std::to_string(v) + " has an empty interval");
      if (i > 0 && r[i].begin < r[i - 1].end)
        throw input_error("build_interference: live range of node " + std::to_string(v) +
                          " is not sorted and disjoint");
      events.push_back({r[i].begin, true, v});
      events.push_back({r[i].end, false, v});
    }
  }
  std::sort(events.begin(), events.end(), [](const event& a, const event& b) {
    if (a.at != b.at) return a.at < b.at;
    if (a.is_begin != b.is_begin) return !a.is_begin;
    return a.node < b.node;
  });
  // Active set with O(1) insert and erase (swap with the last); its order never reaches the output
  // because every row is sorted afterwards.
  // Two active sets, free nodes [0] and fixed nodes [1]: a fixed node meets only the free ones.
  // Nodes with several intervals may meet more than once; csr_from_meetings drops the repeats.
  constexpr std::size_t absent = std::numeric_limits<std::size_t>::max();
  std::vector<node_id> active[2];
  std::vector<std::size_t> slot(n, absent);
  return detail::csr_from_meetings(n, [&](auto&& meet) {
    for (const event& e : events) {
      watchdog_tick(1 + active[0].size() + active[1].size());  // gca/watchdog.hpp: the meetings made here
      std::vector<node_id>& mine = active[is_fixed(e.node)];
      if (e.is_begin) {
        for (std::size_t set = 0; set < 2; ++set) {
          if (set == 1 && is_fixed(e.node)) continue;
          for (node_id u : active[set]) meet(u, e.node);
        }
        slot[e.node] = mine.size();
        mine.push_back(e.node);
      } else {
        const std::size_t s = slot[e.node];
        mine[s] = mine.back();
        slot[mine[s]] = s;
        mine.pop_back();
        slot[e.node] = absent;
      }
    }
  });
}

/// Interference from an explicit undirected edge list over nodes 0..num_nodes-1. Duplicate edges (in
/// either direction) and self loops are dropped. Throws input_error naming an out-of-range endpoint.
template <class = void>
interference_graph build_interference(std::size_t num_nodes,
                                      std::span<const std::pair<node_id, node_id>> edges) {
  if (num_nodes > std::numeric_limits<node_id>::max())
    throw input_error("build_interference: too many nodes for node_id");
  for (const auto& [u, v] : edges)
    if (u >= num_nodes || v >= num_nodes)
      throw input_error("build_interference: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                        ") names a node >= " + std::to_string(num_nodes));
  return detail::csr_from_meetings(num_nodes, [&](auto&& meet) {
    for (const auto& [u, v] : edges)
      if (u != v) meet(u, v);
  });
}

}  // namespace gca
