// gca/engine/simplify.hpp — the simplify phase of the Chaitin–Briggs colorer, for any GeometryPolicy.
//
// Provides `simplify_order` (which trivially colorable node to remove next), `simplify_weights` (what the
// geometry contributes: candidates per node and what each neighbor blocks, computed once by
// `make_simplify_weights`) and `simplify`, which returns the removal stack. Briggs' optimistic variant
// (Briggs, Cooper & Torczon, TOPLAS 1994): remove nodes that pass the geometry's sound
// trivially-colorable test; when none does, remove the node with the smallest spill_cost / degree anyway
// ("optimistically") and let select discover whether it fits.
//
// Why the split: the removal loop is the same for every geometry, so it is compiled once (a plain
// inline function); only `make_simplify_weights` is a template. best-of-n computes the weights once for
// all its variants instead of calling max_blocked on every edge per run.
// The graph is never mutated: remaining degrees and pressures live in separate arrays. The worklists are
// two indexed binary heaps (one slot per node, so never more than n entries):
//   ready: trivially colorable nodes. Only smallest-last's key moves (down, as the degree falls): a
//          decrease-key per removed edge; the other orders' keys are fixed per node.
//   spill: the others, by cost / degree. That key only grows as neighbors leave, so it is updated
//          lazily: the top is re-keyed when popped and kept only if its stored key was current. Every
//          stored key is <= its node's current key, so a top whose key is current is the true minimum.
// A node moves from spill to ready once (pressure only falls). Cost O((n + E) log n) in the worst case,
// O(n log n + E) for the orders with fixed ready keys.
//
// The trivially-colorable test (see gca/geometry/concept.hpp for why it is sound): node v passes when
//   pressure(v) = sum over not-yet-removed neighbors and pinned neighbors u of max_blocked(e_v, e_u)
// is below candidates(e_v). Neighbors removed before v are placed after v, so they do not count.
// Models no concept itself; `make_simplify_weights` is generic over any GeometryPolicy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/watchdog.hpp>
#include <gca/engine/options.hpp>
#include <gca/ir/types.hpp>

namespace gca {

// simplify_order (which trivially colorable node simplify removes first) is in engine/options.hpp.

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

/// The sound trivially-colorable test (gca/geometry/concept.hpp says why it is sound): a node with
/// `candidates` positions (geom.candidates) whose neighbors can block `pressure` of them at most (the sum
/// of geom.max_blocked) always finds one free. Simplify asks it of every node; coalescing
/// (engine/coalesce.hpp) asks it of a merged node before merging.
inline bool trivially_colorable(std::uint64_t candidates, const detail::wide_sum& pressure) noexcept {
  return candidates == unbounded || pressure.less_than(candidates);
}

/// What simplify needs from the geometry, computed once per (graph, extents, geometry).
struct simplify_weights {
  std::vector<std::uint64_t> candidates;  // per node: geom.candidates(e_v) (unbounded: always trivially colorable)
  /// Per directed arc v -> u, at v's position in the CSR adjacency order (`g.neighbors(v)[i]` is arc
  /// `arc_base(v) + i`): how many of u's candidate positions v can block, max_blocked(e_u, e_v),
  /// saturated at 2^32 - 1. Saturation only over-states pressure, which keeps the test sound. Empty when
  /// every candidate count is unbounded (nothing is ever counted).
  std::vector<std::uint32_t> blocks;
  /// First arc of v's adjacency (size num_nodes() + 1), when `blocks` is not empty.
  std::vector<std::size_t> arc_base;
};

/// Asks the geometry for candidates(e_v) per node and max_blocked(e_u, e_v) per arc.
/// Throws input_error when `extents` has the wrong length.
template <GeometryPolicy Geometry>
simplify_weights make_simplify_weights(const interference_graph& g, std::span<const extent> extents,
                                       const Geometry& geom) {
  const std::size_t n = g.num_nodes();
  if (extents.size() != n) throw input_error("simplify: extents need one entry per graph node");
  simplify_weights w;
  w.candidates.resize(n);
  bool bounded = false;
  for (node_id v = 0; v < n; ++v) {
    w.candidates[v] = geom.candidates(extents[v]);
    bounded = bounded || w.candidates[v] != unbounded;
  }
  if (!bounded) return w;
  w.arc_base.resize(n + 1, 0);
  for (node_id v = 0; v < n; ++v) w.arc_base[v + 1] = w.arc_base[v] + g.degree(v);
  w.blocks.resize(w.arc_base[n]);
  constexpr std::uint64_t cap = std::numeric_limits<std::uint32_t>::max();
  for (node_id v = 0; v < n; ++v) {
    const auto nb = g.neighbors(v);
    for (std::size_t i = 0; i < nb.size(); ++i) {
      const node_id u = nb[i];
      const std::uint64_t b = w.candidates[u] == unbounded ? 0 : geom.max_blocked(extents[u], extents[v]);
      w.blocks[w.arc_base[v] + i] = static_cast<std::uint32_t>(std::min(b, cap));
    }
  }
  return w;
}

namespace detail {

/// A binary min-heap over node ids with one key per node, ordered by (key, id), and the position of
/// every member, so a member's key can be changed or the member erased in O(log n).
class node_heap {
 public:
  struct key {
    double primary = 0, secondary = 0;
  };

  explicit node_heap(std::size_t n) : pos_(n, absent), key_(n) {}
  bool empty() const noexcept { return heap_.empty(); }
  bool contains(node_id v) const noexcept { return pos_[v] != absent; }
  node_id top() const noexcept { return heap_.front(); }
  const key& key_of(node_id v) const noexcept { return key_[v]; }

  template <class = void>
  void push(node_id v, key k) {
    key_[v] = k;
    pos_[v] = heap_.size();
    heap_.push_back(v);
    up(pos_[v]);
  }
  /// Changes a member's key (either direction).
  template <class = void>
  void update(node_id v, key k) {
    key_[v] = k;
    up(pos_[v]);
    down(pos_[v]);
  }
  template <class = void>
  void erase(node_id v) {
    const std::size_t i = pos_[v];
    pos_[v] = absent;
    const node_id last = heap_.back();
    heap_.pop_back();
    if (last == v) return;
    heap_[i] = last;
    pos_[last] = i;
    up(i);
    down(pos_[last]);
  }
  template <class = void>
  node_id pop() {
    const node_id v = heap_.front();
    erase(v);
    return v;
  }

 private:
  static constexpr std::size_t absent = std::numeric_limits<std::size_t>::max();
  template <class = void>
  bool less(node_id a, node_id b) const noexcept {
    const key &x = key_[a], &y = key_[b];
    if (x.primary != y.primary) return x.primary < y.primary;
    if (x.secondary != y.secondary) return x.secondary < y.secondary;
    return a < b;
  }
  void place(std::size_t i, node_id v) noexcept {
    heap_[i] = v;
    pos_[v] = i;
  }
  template <class = void>
  void up(std::size_t i) noexcept {
    const node_id v = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!less(v, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, v);
  }
  template <class = void>
  void down(std::size_t i) noexcept {
    const node_id v = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && less(heap_[c + 1], heap_[c])) ++c;
      if (!less(heap_[c], v)) break;
      place(i, heap_[c]);
      i = c;
    }
    place(i, v);
  }

  std::vector<node_id> heap_;
  std::vector<std::size_t> pos_;
  std::vector<key> key_;
};

/// Simplify's state: the remaining normal neighbors and (with a bounded node) the pressure of each node,
/// the ready heap (trivially colorable nodes) and the spill heap (the others), and the choice and
/// removal of one node at a time. simplify() below runs it.
template <class = void>
class simplifier {
 public:
  simplifier(const interference_graph& g, std::span<const extent> extents, std::span<const node_role> roles,
             std::span<const double> costs, std::span<const double> priority, const simplify_weights& weights,
             simplify_order order)
      : g_(g), extents_(extents), roles_(roles), costs_(costs), priority_(priority), w_(weights), order_(order),
        counted_(!weights.blocks.empty()), pressure_(counted_ ? g.num_nodes() : 0), deg_(g.num_nodes(), 0),
        removed_(g.num_nodes(), false), ready_(g.num_nodes()), spill_(g.num_nodes()) {
    const std::size_t n = g.num_nodes();
    for (node_id v = 0; v < n; ++v) {
      if (roles[v] == node_role::excluded) continue;
      const auto nb = g.neighbors(v);
      if (roles[v] == node_role::normal) ++remaining_;
      for (std::size_t i = 0; i < nb.size(); ++i) {
        const node_id u = nb[i];
        if (roles[u] != node_role::normal) continue;
        if (roles[v] == node_role::normal) ++deg_[u];  // pinned neighbors block but never leave
        if (counted_) pressure_[u].add(weights.blocks[weights.arc_base[v] + i]);
      }
    }
    for (node_id v = 0; v < n; ++v) {
      if (roles[v] != node_role::normal) continue;
      if (trivial(v)) ready_.push(v, ready_key(v));
      else spill_.push(v, spill_key(v));
    }
  }

  std::size_t remaining() const noexcept { return remaining_; }

  /// The next node to remove, and whether it is an optimistic (spill-heap) choice.
  std::pair<node_id, bool> pick() {
    if (!ready_.empty()) return {ready_.pop(), false};
    // Every remaining node is in one heap, so spill is not empty here. Lazy re-keying (see top).
    for (;;) {
      const node_id v = spill_.top();
      const key k = spill_key(v);
      if (k.primary == spill_.key_of(v).primary) break;
      spill_.update(v, k);
    }
    return {spill_.pop(), true};
  }

  /// Removes `v` (picked) from the graph: its remaining neighbors lose a neighbor and its pressure.
  void remove(node_id v) {
    removed_[v] = true;
    --remaining_;
    // Once every remaining node is trivially colorable and the ready keys are fixed, removals change
    // nothing any later choice reads (pressure only falls, degrees feed only the spill keys): the rest
    // of the stack is the ready heap's order, so the edge walk is skipped. On byte memories without a
    // bound (DSA traces) that is every removal.
    if (spill_.empty() && !dynamic_ready_key()) return;
    const auto nb = g_.neighbors(v);
    watchdog_tick(nb.size());
    for (std::size_t i = 0; i < nb.size(); ++i) {
      const node_id u = nb[i];
      if (roles_[u] != node_role::normal || removed_[u]) continue;
      const bool was_trivial = trivial(u);
      --deg_[u];
      if (counted_) pressure_[u].sub(w_.blocks[w_.arc_base[v] + i]);
      if (was_trivial) {
        if (dynamic_ready_key()) ready_.update(u, ready_key(u));
      } else if (trivial(u)) {
        spill_.erase(u);
        ready_.push(u, ready_key(u));
      }
    }
  }

 private:
  using key = node_heap::key;
  // Without a bounded node nothing was counted, and every node is unbounded (so trivially colorable).
  bool trivial(node_id v) const {
    return counted_ ? trivially_colorable(w_.candidates[v], pressure_[v]) : w_.candidates[v] == unbounded;
  }
  double footprint(node_id v) const {
    return static_cast<double>(extents_[v].partitions) * static_cast<double>(extents_[v].bytes);
  }
  bool dynamic_ready_key() const noexcept { return order_ == simplify_order::smallest_last; }
  key ready_key(node_id v) const {
    switch (order_) {
      case simplify_order::priority_first: return {priority_.empty() ? footprint(v) : priority_[v], footprint(v)};
      case simplify_order::smallest_last: return {static_cast<double>(deg_[v]), footprint(v)};
      case simplify_order::largest_degree: return {static_cast<double>(g_.degree(v)), footprint(v)};
      case simplify_order::largest_first:
      case simplify_order::size_descending:
      case simplify_order::longest_first: break;
    }
    return {footprint(v), static_cast<double>(g_.degree(v))};
  }
  // Spill key: smallest cost / remaining degree first (a node with no remaining neighbor gains nothing
  // from removal: infinite metric).
  key spill_key(node_id v) const {
    const double c = costs_.empty() ? 1.0 : costs_[v];
    return {deg_[v] == 0 ? std::numeric_limits<double>::infinity() : c / deg_[v], 0.0};
  }

  const interference_graph& g_;
  std::span<const extent> extents_;
  std::span<const node_role> roles_;
  std::span<const double> costs_, priority_;
  const simplify_weights& w_;
  simplify_order order_;
  bool counted_;
  std::vector<wide_sum> pressure_;
  std::vector<std::uint32_t> deg_;  // remaining normal neighbors
  std::vector<bool> removed_;
  std::size_t remaining_ = 0;
  node_heap ready_, spill_;
};

}  // namespace detail

/// Simplify over the nodes whose role is `normal`, with the geometry's `weights` (from
/// make_simplify_weights for the same graph and extents). `costs` and `priority` may be empty (all 1;
/// footprint). Throws input_error when a span has the wrong length.
/// Deterministic: every choice is ordered by a key and then by node id.
template <class D = void>
simplify_result simplify(const interference_graph& g, std::span<const extent> extents,
                         std::span<const node_role> roles, std::span<const double> costs,
                         std::span<const double> priority, const simplify_weights& weights,
                         simplify_order order) {
  const std::size_t n = g.num_nodes();
  if (extents.size() != n || roles.size() != n || (!costs.empty() && costs.size() != n) ||
      (!priority.empty() && priority.size() != n) || weights.candidates.size() != n ||
      (!weights.blocks.empty() && weights.arc_base.size() != n + 1))
    throw input_error("simplify: extents, roles, costs, priority and weights need one entry per graph node");
  if (order == simplify_order::size_descending || order == simplify_order::longest_first)
    throw input_error("simplify: order " + std::string(to_string(order)) +
                      " needs live ranges; the interval colorer (engine/interval_colorer.hpp) runs it");
  detail::simplifier<D> s(g, extents, roles, costs, priority, weights, order);
  simplify_result out;
  out.stack.reserve(s.remaining());
  out.optimistic.reserve(s.remaining());
  while (s.remaining() > 0) {
    watchdog_tick();  // the watchdog (gca/watchdog.hpp): one unit per removal, one per edge walked
    const auto [v, optimistic] = s.pick();
    out.optimistic_count += optimistic ? 1 : 0;
    out.stack.push_back(v);
    out.optimistic.push_back(optimistic);
    s.remove(v);
  }
  return out;
}

/// Simplify with the geometry's weights computed here (one run; best-of-n computes them once).
template <GeometryPolicy Geometry>
simplify_result simplify(const interference_graph& g, std::span<const extent> extents,
                         std::span<const node_role> roles, std::span<const double> costs,
                         std::span<const double> priority, const Geometry& geom, simplify_order order) {
  return simplify(g, extents, roles, costs, priority, make_simplify_weights(g, extents, geom), order);
}

}  // namespace gca
