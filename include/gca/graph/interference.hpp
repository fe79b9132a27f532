// gca/graph/interference.hpp — the interference graph the colorers work on.
//
// Provides `interference_graph`, an immutable undirected graph stored as a Boost.Graph
// `compressed_sparse_row_graph<directedS>` that holds every edge in both directions (so it models BGL's
// IncidenceGraph, AdjacencyGraph and VertexListGraph, with O(1) `out_degree` = the undirected degree), and
// its two builders:
//   build_interference(live_range_table)       endpoint sweep over per-node live ranges, O(n log n + E)
//   build_interference(num_nodes, edge list)   explicit edges (DIMACS), duplicates and self loops dropped
// Neighbors of every node are sorted by node id, so every walk over the graph is deterministic.
// The graph is never mutated after construction: simplify keeps its degrees in a separate array.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

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
  std::uint64_t live_length(node_id v) const noexcept {
    std::uint64_t n = 0;
    for (const interval& i : ranges(v)) n += i.end - i.begin;
    return n;
  }
};

class interference_graph {
 public:
  /// Vertex descriptors are node ids; edge indices are size_t so graphs with > 4 G directed edges work.
  using graph_type = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                        boost::no_property, boost::no_property, node_id,
                                                        std::size_t>;

  interference_graph() = default;

  /// Builds from adjacency lists in CSR form: node v's neighbors are column[row_start[v] ..
  /// row_start[v + 1]), each list sorted by id, no duplicates, no self loops, every edge in both lists.
  interference_graph(std::span<const std::size_t> row_start, std::span<const node_id> column)
      : graph_(boost::edges_are_sorted, csr_arc_iterator(row_start, column, 0),
               csr_arc_iterator(row_start, column, column.size()),
               static_cast<graph_type::vertices_size_type>(row_start.size() - 1),
               static_cast<graph_type::edges_size_type>(column.size())) {}

  std::size_t num_nodes() const noexcept { return num_vertices(graph_); }
  /// Undirected edges (each stored twice).
  std::size_t num_edges() const noexcept { return boost::num_edges(graph_) / 2; }
  std::uint32_t degree(node_id v) const noexcept { return static_cast<std::uint32_t>(out_degree(v, graph_)); }
  /// Neighbors of v, sorted by id. The span stays valid as long as the graph lives.
  std::span<const node_id> neighbors(node_id v) const noexcept {
    auto [first, last] = adjacent_vertices(v, graph_);
    return std::span<const node_id>(std::to_address(first), static_cast<std::size_t>(last - first));
  }
  bool adjacent(node_id u, node_id v) const noexcept {
    const auto n = neighbors(u);
    return std::binary_search(n.begin(), n.end(), v);
  }
  /// The underlying BGL graph, for BGL algorithms.
  const graph_type& graph() const noexcept { return graph_; }

 private:
  /// Walks CSR arrays as the (source, target) pairs Boost's sorted-edges constructor reads once.
  class csr_arc_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::pair<node_id, node_id>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;
    csr_arc_iterator(std::span<const std::size_t> rows, std::span<const node_id> column, std::size_t arc)
        : rows_(rows), column_(column), arc_(arc) {
      settle();
    }
    reference operator*() const noexcept { return cur_; }
    pointer operator->() const noexcept { return &cur_; }
    csr_arc_iterator& operator++() noexcept {
      ++arc_;
      settle();
      return *this;
    }
    friend bool operator==(const csr_arc_iterator& a, const csr_arc_iterator& b) noexcept { return a.arc_ == b.arc_; }

   private:
    void settle() noexcept {
      if (arc_ >= column_.size()) return;
      while (rows_[src_ + 1] <= arc_) ++src_;
      cur_ = {src_, column_[arc_]};
    }
    std::span<const std::size_t> rows_;
    std::span<const node_id> column_;
    std::size_t arc_;
    node_id src_ = 0;
    value_type cur_{};
  };

  graph_type graph_;
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
  return interference_graph(row, column);
}

}  // namespace detail

/// Interference from live ranges by an endpoint sweep: events sorted by point, ends before begins at the
/// same point (half-open intervals that only touch do not interfere); a begin interferes with every node
/// active at that moment. Never compares all pairs: O(n log n + E) for n intervals and E overlaps.
/// Throws input_error if a node's list is not sorted and disjoint or holds an empty interval.
/// `fixed` (empty, or one flag per node) marks nodes whose places are already decided (pins, other
/// spaces, other cores): no edge joins two fixed nodes, since neither will be colored, so many
/// always-live fixed nodes cost no quadratic edge count.
inline interference_graph build_interference(const live_range_table& live, std::span<const std::uint8_t> fixed = {}) {
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
inline interference_graph build_interference(std::size_t num_nodes,
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
