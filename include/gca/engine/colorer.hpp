// gca/engine/colorer.hpp — the generic Chaitin–Briggs colorer: simplify + select over any GeometryPolicy.
//
// Provides `coloring_problem` (graph, per-node extents, spill costs, pins, priorities), `color_options`
// (select heuristic x simplify order), `coloring_result`, `color` (one run) and `color_best_of` (the
// Neuron allocator's "best-of-n loop": one run per variant, keep the best score). Algorithm: Chaitin (1982) with
// Briggs' optimistic coloring (1994); the degree < K test generalized by the geometry's blocking bound
// (gca/geometry/concept.hpp). Phases, in order:
//   1. pins: every pinned node is placed where it is pinned, first, and never moved; an illegal pin is
//      reported (pinned_illegal) and two interfering pins that overlap are reported (pinned_conflicts);
//   2. nodes that cannot fit even alone are reported (does_not_fit) and take no part;
//   3. simplify (gca/engine/simplify.hpp), 4. select (gca/engine/select.hpp).
// Deterministic: all orders break ties on node id, and best-of-n breaks ties on variant order.
// Models no concept itself; `color` and `color_best_of` take any GeometryPolicy.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/options.hpp>
#include <gca/engine/select.hpp>
#include <gca/engine/simplify.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca {

/// What to color. Non-owning: the spans must outlive the call. Empty optional spans mean "default".
struct coloring_problem {
  const interference_graph& graph;
  std::span<const extent> extents;                        // one per node
  std::span<const double> spill_costs = {};               // one per node, >= 0; empty: all 1
  std::span<const std::optional<placement>> pinned = {};  // one per node; empty: nothing pinned
  std::span<const double> priority = {};                  // one per node, for priority_first; empty: footprint
};

struct coloring_stats {
  std::size_t nodes = 0;             // nodes in the graph
  std::size_t edges = 0;             // undirected interference edges
  std::size_t pinned = 0;            // nodes placed by pin
  std::size_t optimistic = 0;        // nodes simplify removed without passing the trivially-colorable test
  std::size_t trivial_failures = 0;  // must be 0: trivially colorable nodes select could not place
  std::size_t runs = 0;              // colorer runs behind this result (best-of-n: the number of variants)
};

struct coloring_result {
  std::vector<std::optional<placement>> placements;          // per node; empty optional: unplaced
  std::vector<unplaced_node> unplaced;                       // sorted by node id
  std::vector<std::pair<node_id, node_id>> pinned_conflicts;  // interfering pins that overlap (u < v)
  std::uint64_t peak = 0;  // max end over placed nodes in the geometry's linear measure (0 if none)
  color_options options;   // the variant that produced this result
  coloring_stats stats;

  /// Every node placed and no pin conflict.
  bool complete() const noexcept { return unplaced.empty() && pinned_conflicts.empty(); }
};

namespace detail {

inline void sort_by_node(std::vector<unplaced_node>& v) {
  std::sort(v.begin(), v.end(), [](const unplaced_node& a, const unplaced_node& b) { return a.node < b.node; });
}

/// Spill costs finite and >= 0, priorities not NaN (shared with the interval colorer).
template <class = void>
void check_costs(std::span<const double> spill_costs, std::span<const double> priority) {
  for (std::size_t v = 0; v < spill_costs.size(); ++v)
    if (!(spill_costs[v] >= 0) || std::isinf(spill_costs[v]))
      throw input_error("color: spill cost of node " + std::to_string(v) + " is not a finite number >= 0");
  for (std::size_t v = 0; v < priority.size(); ++v)
    if (std::isnan(priority[v])) throw input_error("color: priority of node " + std::to_string(v) + " is NaN");
}

template <class = void>
void check_problem(const coloring_problem& p) {
  const std::size_t n = p.graph.num_nodes();
  auto check_size = [n](std::size_t got, const char* what) {
    if (got != n)
      throw input_error(std::string("color: ") + what + " has " + std::to_string(got) +
                        " entries for a graph of " + std::to_string(n) + " nodes");
  };
  check_size(p.extents.size(), "extents");
  if (!p.spill_costs.empty()) check_size(p.spill_costs.size(), "spill_costs");
  if (!p.pinned.empty()) check_size(p.pinned.size(), "pinned");
  if (!p.priority.empty()) check_size(p.priority.size(), "priority");
  check_costs(p.spill_costs, p.priority);
}

}  // namespace detail

namespace detail {

/// Phases 1 and 2, which do not depend on the variant: the roles, the pins' placements and conflicts,
/// and the nodes reported before simplify.
struct prepared_problem {
  std::vector<node_role> roles;
  std::vector<std::optional<placement>> placements;  // the legal pins
  std::vector<unplaced_node> unplaced;                // illegal pins, nodes that fit nowhere
  std::vector<std::pair<node_id, node_id>> pinned_conflicts;
  std::size_t pinned = 0;
};

template <class = void>
prepared_problem prepare(const coloring_problem& p, geometry_ref geom) {
  const interference_graph& g = p.graph;
  const std::size_t n = g.num_nodes();
  prepared_problem q;
  q.roles.assign(n, node_role::normal);
  q.placements.assign(n, std::nullopt);
  // 1. Pins, in id order: a legal pin is placed as given (never moved), an illegal one is dropped and
  // reported. Conflicts between legal pins are reported but both keep their place: pins are facts.
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
  for (node_id v = 0; v < n; ++v) {
    if (q.roles[v] != node_role::pinned) continue;
    for (node_id u : g.neighbors(v))
      if (u > v && q.roles[u] == node_role::pinned &&
          geom.overlaps(p.extents[v], *q.placements[v], p.extents[u], *q.placements[u]))
        q.pinned_conflicts.emplace_back(v, u);
  }
  // 2. Nodes that fit nowhere.
  for (node_id v = 0; v < n; ++v) {
    if (q.roles[v] == node_role::normal && !geom.fits(p.extents[v])) {
      q.roles[v] = node_role::excluded;
      q.unplaced.push_back({v, unplaced_reason::does_not_fit});
    }
  }
  return q;
}

/// Phase 3 for one simplify order.
template <class = void>
simplify_result simplify_prepared(const coloring_problem& p, const prepared_problem& q,
                                  const simplify_weights& weights, simplify_order order) {
  return simplify(p.graph, p.extents, std::span<const node_role>(q.roles), p.spill_costs, p.priority, weights,
                  order);
}

/// Phase 4 (select with heuristic `opt.heuristic` over the stack `s` of order `opt.order`) and the result.
template <class = void>
coloring_result finish(const coloring_problem& p, geometry_ref geom, const color_options& opt,
                       const prepared_problem& q, const simplify_result& s) {
  const interference_graph& g = p.graph;
  const std::size_t n = g.num_nodes();
  coloring_result r;
  r.options = opt;
  r.placements = q.placements;
  r.pinned_conflicts = q.pinned_conflicts;
  r.stats.nodes = n;
  r.stats.edges = g.num_edges();
  r.stats.runs = 1;
  r.stats.pinned = q.pinned;
  r.stats.optimistic = s.optimistic_count;
  select_result sel = select(g, p.extents, s, geom, opt.heuristic, r.placements);
  r.stats.trivial_failures = sel.trivial_failures;
  std::vector<unplaced_node> unplaced = q.unplaced;
  unplaced.insert(unplaced.end(), sel.unplaced.begin(), sel.unplaced.end());
  sort_by_node(unplaced);
  r.unplaced = std::move(unplaced);
  for (node_id v = 0; v < n; ++v)
    if (r.placements[v]) r.peak = std::max(r.peak, geom.end(p.extents[v], *r.placements[v]));
  return r;
}

/// Runs `count` independent jobs job(0..count-1) on up to `threads` threads (1: in this thread, in
/// order); threads take the next job as they finish one, so jobs of different sizes balance. Each job
/// writes only its own slot; the first exception in job order is rethrown after all ran.
template <class Job>
void run_jobs(std::size_t count, std::size_t threads, Job&& job) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  const auto deadline = watchdog_deadline();  // the caller's watchdog holds in the workers too
  auto run = [&] {
    const watchdog_scope scope(deadline);
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t workers = std::min(std::max<std::size_t>(threads, 1), count);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(run);
  run();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace detail

/// One run of the colorer with one variant. Throws input_error on inconsistent input sizes or bad costs;
/// an allocation that cannot succeed is not an error: see `unplaced` and `pinned_conflicts`.
template <GeometryPolicy Geometry>
coloring_result color(const coloring_problem& p, const Geometry& geom, const color_options& opt = {}) {
  detail::check_problem(p);
  const geometry_ref ref(geom);
  const detail::prepared_problem q = detail::prepare(p, ref);
  const simplify_weights w = make_simplify_weights(p.graph, p.extents, geom);
  return detail::finish(p, ref, opt, q, detail::simplify_prepared(p, q, w, opt.order));
}

namespace detail {

/// Total spill cost of the unplaced nodes (1 per node without costs).
template <class = void>
double unplaced_cost(std::span<const double> spill_costs, const coloring_result& r) {
  double c = 0;
  for (const unplaced_node& u : r.unplaced) c += spill_costs.empty() ? 1.0 : spill_costs[u.node];
  return c;
}

/// Score order of best-of-n: complete colorings first, then the lowest peak; among incomplete ones the
/// fewest pin conflicts, the lowest spill cost left unplaced, the fewest unplaced nodes, the lowest peak.
/// (Takes the problem's spill costs, so the interval colorer shares it.)
template <class = void>
bool better_result(std::span<const double> spill_costs, const coloring_result& a, const coloring_result& b) {
  if (a.complete() != b.complete()) return a.complete();
  if (a.complete()) return a.peak < b.peak;
  if (a.pinned_conflicts.size() != b.pinned_conflicts.size())
    return a.pinned_conflicts.size() < b.pinned_conflicts.size();
  const double ca = unplaced_cost(spill_costs, a), cb = unplaced_cost(spill_costs, b);
  if (ca != cb) return ca < cb;
  if (a.unplaced.size() != b.unplaced.size()) return a.unplaced.size() < b.unplaced.size();
  return a.peak < b.peak;
}

}  // namespace detail

/// Graphs smaller than this (nodes + edges) are colored on one thread whatever `threads` says.
inline constexpr std::size_t parallel_threshold = 20000;

/// The best-of-n loop: runs `color` once per variant and keeps the best score (see
/// detail::better_result; ties keep the earlier variant). `result.options` names the winner and
/// `result.stats.runs` the number of runs. What does not depend on the variant is done once: the pins
/// and the geometry's simplify weights for all variants, simplify once per distinct order (the two
/// select heuristics of one order share its stack). With `threads` > 1 (and a graph of at least
/// parallel_threshold nodes + edges) the orders, then the variants, run on that many threads at once;
/// each writes only its own slot and the winner is chosen in variant order afterwards, so the answer
/// does not depend on the thread count or timing. Throws input_error if `variants` is empty.
template <class = void>
coloring_result color_best_of(const coloring_problem& p, geometry_ref geom,
                              std::span<const color_options> variants, unsigned threads = 1) {
  if (variants.empty()) throw input_error("color_best_of: no variant to run");
  detail::check_problem(p);
  const simplify_weights weights = geom.weights(p.graph, p.extents);
  const detail::prepared_problem q = detail::prepare(p, geom);
  // A thread costs tens of microseconds to start: small graphs are colored faster on one.
  const bool worth_it = p.graph.num_nodes() + p.graph.num_edges() >= parallel_threshold;
  const std::size_t workers = worth_it ? threads : 1;
  std::vector<simplify_order> orders;  // distinct, in variant order
  std::vector<std::size_t> order_of(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto at = std::find(orders.begin(), orders.end(), variants[i].order);
    order_of[i] = static_cast<std::size_t>(at - orders.begin());
    if (at == orders.end()) orders.push_back(variants[i].order);
  }
  std::vector<simplify_result> stacks(orders.size());
  detail::run_jobs(orders.size(), workers,
                   [&](std::size_t k) { stacks[k] = detail::simplify_prepared(p, q, weights, orders[k]); });
  std::vector<std::optional<coloring_result>> results(variants.size());
  detail::run_jobs(variants.size(), workers, [&](std::size_t i) {
    results[i] = detail::finish(p, geom, variants[i], q, stacks[order_of[i]]);
  });
  std::size_t best = 0;
  for (std::size_t i = 1; i < variants.size(); ++i)
    if (detail::better_result(p.spill_costs, *results[i], *results[best])) best = i;
  results[best]->stats.runs = variants.size();
  return std::move(*results[best]);
}

template <GeometryPolicy Geometry>
coloring_result color_best_of(const coloring_problem& p, const Geometry& geom,
                              std::span<const color_options> variants, unsigned threads = 1) {
  return color_best_of(p, geometry_ref(geom), variants, threads);
}

/// One variant whose placement order comes from outside the graph (e.g. the size-descending order of
/// engine/interval_colorer.hpp, which needs live ranges): pins and nodes that fit nowhere as in `color`,
/// then select places the nodes of `order` (a permutation of some node ids; pinned and excluded ones are
/// skipped, nodes missing from it are left unplaced and reported) in that order with `opt.heuristic`.
/// There is no simplify, so no trivially-colorable guarantee: every node counts as optimistic.
/// `result.options` is `opt`. Throws input_error on inconsistent sizes or a node id out of range.
template <class = void>
coloring_result color_in_order(const coloring_problem& p, geometry_ref geom, std::span<const node_id> order,
                               const color_options& opt) {
  detail::check_problem(p);
  const std::size_t n = p.graph.num_nodes();
  const detail::prepared_problem q = detail::prepare(p, geom);
  simplify_result s;
  std::vector<bool> seen(n, false);
  for (std::size_t i = order.size(); i-- > 0;) {
    const node_id v = order[i];
    if (v >= n) throw input_error("color_in_order: node " + std::to_string(v) + " out of range");
    if (q.roles[v] != node_role::normal || seen[v]) continue;
    seen[v] = true;
    s.stack.push_back(v);
    s.optimistic.push_back(true);
    ++s.optimistic_count;
  }
  coloring_result r = detail::finish(p, geom, opt, q, s);
  for (node_id v = 0; v < n; ++v)
    if (q.roles[v] == node_role::normal && !seen[v]) r.unplaced.push_back({v, unplaced_reason::no_free_position});
  detail::sort_by_node(r.unplaced);
  return r;
}

/// best-of-n over default_variants().
template <GeometryPolicy Geometry>
coloring_result color_best_of(const coloring_problem& p, const Geometry& geom, unsigned threads = 1) {
  const std::vector<color_options> v = default_variants(!p.priority.empty());
  return color_best_of(p, geom, std::span<const color_options>(v), threads);
}

}  // namespace gca
