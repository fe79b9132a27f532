// gca/graph/interval_index.hpp — interference of interval live ranges without materialized edges.
//
// Provides `interval_index`, a static index over every interval of a live_range_table that answers "which
// nodes does this live range meet?" in O(log M + k) for M intervals and k intervals met, and the two
// sweep facts the engine needs from it: `sweep_degrees` (each node's interference degree) and
// `sweep_pairs` (the number of interfering pairs), both without listing a pair.
//
// Why: an explicit interference graph costs O(pairs) time and memory, and a trace with thousands of
// buffers live at once has hundreds of millions of pairs (docs/PERFORMANCE.md, "Dense traces"). Every
// live range is a union of a few intervals on one linearization, so "u meets v" is a property of their
// intervals, and the engine can ask the index instead of walking an edge list. Memory O(M).
//
// How a query works. An interval x meets [l, u) iff x.begin < u and l < x.end, which splits in two
// disjoint cases:
//   (a) x.begin <= l < x.end: x contains the point l — a stabbing query on a centered interval tree
//       (each tree node holds the intervals containing its center, sorted by begin and by end, so a
//       stabbing query reads only intervals it reports, plus one node per tree level);
//   (b) l < x.begin < u: x starts inside the range — a contiguous run of the intervals sorted by begin.
// So every interval meeting [l, u) is reported exactly once per interval of the query; a node with
// several intervals can be reported several times (callers de-duplicate with a stamp array), and the
// querying node reports itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gca/error.hpp>
#include <gca/graph/interference.hpp>
#include <gca/liveness/interval.hpp>

namespace gca {

class interval_index {
 public:
  interval_index() = default;

  /// Indexes every interval of `live` (canonical ranges: sorted, disjoint, non-empty; checked).
  template <class = void>
  explicit interval_index(const live_range_table& live) : nodes_(live.num_nodes()) {
    std::vector<entry> all;
    all.reserve(live.intervals.size());
    for (node_id v = 0; v < nodes_; ++v) {
      const auto r = live.ranges(v);
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (r[i].empty() || (i > 0 && r[i].begin < r[i - 1].end))
          throw input_error("interval_index: live range of node " + std::to_string(v) +
                            " is not sorted, disjoint and non-empty");
        all.push_back({r[i].begin, r[i].end, v});
      }
      single_ = single_ && r.size() <= 1;
    }
    std::sort(all.begin(), all.end(), by_begin);
    starts_.resize(all.size());
    start_node_.resize(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      starts_[i] = all[i].begin;
      start_node_[i] = all[i].node;
    }
    build(all);
  }

  std::size_t num_nodes() const noexcept { return nodes_; }
  std::size_t num_intervals() const noexcept { return starts_.size(); }
  /// Every node has at most one interval (no node can be reported twice for one query interval).
  bool single_intervals() const noexcept { return single_; }

  /// Calls f(u) for every interval of a node u that begins strictly inside q: q.begin < begin < q.end
  /// (case (b) of the header comment alone).
  template <class F>
  void for_each_starting_inside(const interval& q, F&& f) const {
    auto first = std::upper_bound(starts_.begin(), starts_.end(), q.begin);
    const auto last = std::lower_bound(first, starts_.end(), q.end);
    for (auto i = static_cast<std::size_t>(first - starts_.begin()), e = static_cast<std::size_t>(last - starts_.begin());
         i < e; ++i)
      f(start_node_[i]);
  }

  /// Calls f(u) for every interval of a node u that meets `range` (see the header comment: once per
  /// pair of meeting intervals, the querying node included).
  template <class F>
  void for_each_meeting(std::span<const interval> range, F&& f) const {
    for (const interval& q : range) {
      stab(q.begin, f);
      for_each_starting_inside(q, f);
    }
  }

 private:
  struct entry {
    program_point begin, end;
    node_id node;
  };
  static bool by_begin(const entry& a, const entry& b) noexcept {
    return a.begin != b.begin ? a.begin < b.begin : a.node < b.node;
  }
  /// A centered interval tree node: the intervals containing `center` are rows [first, first + count) of
  /// both `asc_` (by begin, ascending) and `desc_` (by end, descending).
  struct tree_node {
    program_point center;
    std::uint32_t left, right;  // child indices, `none` if absent
    std::size_t first, count;
  };
  static constexpr std::uint32_t none = 0xffffffffu;

  /// Builds the tree over `all` (sorted by begin) without recursion: a work list of slices, each with
  /// the node that will point to it.
  template <class = void>
  void build(std::vector<entry>& all) {
    asc_.reserve(all.size());
    desc_.reserve(all.size());
    struct job {
      std::vector<entry> items;
      std::uint32_t parent;  // `none` for the root
      bool right;            // which child of the parent
    };
    std::vector<job> work;
    if (!all.empty()) work.push_back({std::move(all), none, false});
    std::vector<program_point> points;
    while (!work.empty()) {
      job j = std::move(work.back());
      work.pop_back();
      // The median of the endpoints splits the intervals not containing it about evenly: depth O(log M).
      points.clear();
      for (const entry& e : j.items) {
        points.push_back(e.begin);
        points.push_back(e.end - 1);
      }
      const auto mid = points.begin() + static_cast<std::ptrdiff_t>(points.size() / 2);
      std::nth_element(points.begin(), mid, points.end());
      const program_point c = *mid;
      std::vector<entry> left, right, here;
      for (const entry& e : j.items) {
        if (e.end <= c) left.push_back(e);
        else if (e.begin > c) right.push_back(e);
        else here.push_back(e);
      }
      j.items = {};
      const auto idx = static_cast<std::uint32_t>(tree_.size());
      if (j.parent == none) root_ = idx;
      else if (j.right) tree_[j.parent].right = idx;
      else tree_[j.parent].left = idx;
      tree_.push_back({c, none, none, asc_.size(), here.size()});
      // `here` is sorted by begin (a filtered slice of a list sorted by begin).
      for (const entry& e : here) asc_.push_back({e.begin, e.node});
      std::sort(here.begin(), here.end(), [](const entry& x, const entry& y) {
        return x.end != y.end ? x.end > y.end : x.node < y.node;
      });
      for (const entry& e : here) desc_.push_back({e.end, e.node});
      if (!left.empty()) work.push_back({std::move(left), idx, false});
      if (!right.empty()) work.push_back({std::move(right), idx, true});
    }
  }

  /// Reports every interval containing point p: at a node whose center is right of p, the intervals
  /// there that begin at or before p (a prefix of `asc_`: they all end after the center, so after p);
  /// left of p, those that end after p (a prefix of `desc_`). Then one child. O(depth + k).
  template <class F>
  void stab(program_point p, F& f) const {
    for (std::uint32_t t = root_; t != none;) {
      const tree_node& n = tree_[t];
      if (p < n.center) {
        for (std::size_t i = n.first, e = n.first + n.count; i < e && asc_[i].key <= p; ++i) f(asc_[i].node);
        t = n.left;
      } else {
        for (std::size_t i = n.first, e = n.first + n.count; i < e && desc_[i].key > p; ++i) f(desc_[i].node);
        if (p == n.center) break;  // every interval containing p contains the center: all reported
        t = n.right;
      }
    }
  }

  struct keyed {
    program_point key;
    node_id node;
  };

  std::size_t nodes_ = 0;
  bool single_ = true;
  std::vector<program_point> starts_;  // every interval's begin, sorted
  std::vector<node_id> start_node_;    // its node
  std::vector<tree_node> tree_;
  std::vector<keyed> asc_, desc_;
  std::uint32_t root_ = none;
};

/// The interference degree of every node (how many other nodes its live range meets), by sweep: with
/// one interval per node, deg(v) = #{u : begin_u < end_v} - #{u : end_u <= begin_v} - 1 (every u that
/// ends at or before v begins also begins before v ends), two binary searches in sorted arrays, O(n log n).
/// With several intervals per node a node can meet another twice, so the index is walked with a stamp
/// per node instead: O(n + pairs) time but still O(n) memory.
template <class = void>
std::vector<std::uint32_t> sweep_degrees(const live_range_table& live, const interval_index& index) {
  const std::size_t n = live.num_nodes();
  std::vector<std::uint32_t> deg(n, 0);
  if (index.single_intervals()) {
    std::vector<program_point> begins, ends;
    for (const interval& i : live.intervals) {
      begins.push_back(i.begin);
      ends.push_back(i.end);
    }
    std::sort(begins.begin(), begins.end());
    std::sort(ends.begin(), ends.end());
    for (node_id v = 0; v < n; ++v) {
      const auto r = live.ranges(v);
      if (r.empty()) continue;
      const auto started = std::lower_bound(begins.begin(), begins.end(), r[0].end) - begins.begin();
      const auto ended = std::upper_bound(ends.begin(), ends.end(), r[0].begin) - ends.begin();
      deg[v] = static_cast<std::uint32_t>(started - ended - 1);
    }
    return deg;
  }
  std::vector<node_id> stamp(n, static_cast<node_id>(-1));
  for (node_id v = 0; v < n; ++v)
    index.for_each_meeting(live.ranges(v), [&](node_id u) {
      if (u != v && stamp[u] != v) {
        stamp[u] = v;
        ++deg[v];
      }
    });
  return deg;
}

/// The number of interfering pairs, from the degrees: half their sum.
template <class = void>
std::uint64_t sweep_pairs(std::span<const std::uint32_t> degrees) noexcept {
  std::uint64_t s = 0;
  for (std::uint32_t d : degrees) s += d;
  return s / 2;
}

}  // namespace gca
