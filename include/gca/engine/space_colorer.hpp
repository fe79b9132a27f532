// gca/engine/space_colorer.hpp — one coloring attempt of one memory over a linearized function, and
// its commit.
//
// Provides `color_space` (the phases of one pass through the Neuron allocator's fixpoint head: renumber_locations,
// find_partners (engine/coalesce.hpp) / find_first_defs / find_last_uses / find_loads / live_range (liveness), build, find_costs,
// simplify, select, with the best-of-n choice of heuristic) and `commit_space` (placements written into
// the linearized function's working copy: webs that got different places become tensors of their own,
// `name.N`, and the operands that belong to them are renamed). The spill fixpoint (spill/fixpoint.hpp)
// drives these two; the drivers call it. They take any GeometryPolicy through a geometry_ref (compiled
// once, see engine/geometry_ref.hpp); any observer, through an observer_ref (compiled once too), receives
// the Neuron allocator's log lines (engine/observer.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/interval_colorer.hpp>
#include <gca/engine/linear_scan.hpp>
#include <gca/engine/observer.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/ir/fresh_names.hpp>
#include <gca/ir/module.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/live_ranges.hpp>
#include <gca/liveness/liveness_cache.hpp>
#include <gca/engine/coalesce.hpp>
#include <gca/engine/space_attempt.hpp>
#include <gca/engine/space_filter.hpp>

namespace gca {

/// A DRAM coloring problem as color_space's interval path poses it (nodes in order: live ranges, sizes,
/// spill costs, places of the fixed nodes and which are fixed, the memory's capacity and alignment).
struct interval_question {
  std::vector<std::size_t> offsets;
  std::vector<interval> intervals;
  std::vector<extent> extents;
  std::vector<double> costs;
  std::vector<std::optional<placement>> pins;
  std::vector<std::uint8_t> fixed;
  std::uint64_t capacity = 0;
  std::uint64_t alignment = 0;
  friend bool operator==(const interval_question&, const interval_question&) = default;
};

/// What the passes of one pipeline share about a function (allocator_options::cache): its liveness
/// (liveness/liveness_cache.hpp), and the last answer of the DRAM interval colorer per function and
/// DRAM space. Why the answers: the local DRAM space is colored once before linking and twice after it,
/// and unless another core, a debug or a shared buffer changed the problem in between (on a one-core
/// kernel without them nothing does), it is the same problem each time: 8,000 nested DRAM tensors cost
/// about 0.4 s of CPU per coloring (docs/PERFORMANCE.md, section 8). The stored question is compared in
/// full (no hash): the colorer is deterministic, so a stored answer is exactly the answer it would give.
class pass_cache {
 public:
  liveness_cache liveness;

  struct counts {
    std::size_t reused = 0;
    std::size_t computed = 0;
  };
  /// The stored answer to `q` for (function, space), if the question stored there is `q`.
  template <class = void>
  std::optional<coloring_result> answer(const std::string& function, address_space space, const interval_question& q) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = answers_.find({function, space});
    if (it != answers_.end() && it->second.first == q) {
      ++counts_.reused;
      return it->second.second;
    }
    return std::nullopt;
  }
  template <class = void>
  void remember(const std::string& function, address_space space, interval_question q, const coloring_result& r) {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.computed;
    answers_.insert_or_assign(std::pair{function, space}, std::pair{std::move(q), r});
  }
  counts interval_counts() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, address_space>, std::pair<interval_question, coloring_result>> answers_;  // lookup only
  counts counts_;
};

namespace detail {

/// The nodes of `a` for memory `filter` (a.live must hold the function's liveness): one per web the
/// memory colors or is constrained by, the block of whole-function webs of a linear memory, placed
/// shared buffers the function does not touch, and `blockers`. Returns their live ranges, in node order.
template <class = void>
live_range_table collect_nodes(space_attempt& a, const function& f, const space_filter& filter,
                               std::span<const placed_neighbor> blockers, std::optional<std::uint64_t> linear_alignment) {
  live_range_table table;
  const auto whole = static_cast<program_point>(a.live.points + 2);  // [0, whole): every point
  // In a linear memory, the unplaced webs live at every point (kernel I/O and shared buffers in DRAM)
  // interfere with everything and with each other: any coloring puts them side by side. They become ONE
  // node, a block of their aligned sizes laid end to end, instead of a clique with k^2 edges.
  std::uint64_t block_bytes = 0;
  for (web_id w = 0; w < a.live.webs.size(); ++w) {
    const tensor& t = f.tensors[a.live.webs[w].tensor];
    if (!filter.colors(t) && !filter.constrains(t)) continue;
    if (linear_alignment) {
      const auto r = a.live.range(w);
      if (filter.colors(t) && r.size() == 1 && r.front().begin == 0 && r.front().end >= whole - 1) {
        const std::uint64_t align = std::max<std::uint64_t>(1, *linear_alignment);
        a.block_members.push_back(w);
        a.block_offsets.push_back(block_bytes);
        block_bytes += (t.shape.bytes + align - 1) / align * align;
        continue;
      }
    }
    a.node_web.push_back(w);
    a.node_tensor.push_back(a.live.webs[w].tensor);
    a.extents.push_back(t.shape);
    a.costs.push_back(a.live.webs[w].spill_cost);
    a.pins.push_back(t.at);
    table.add(a.live.range(w));
  }
  // Nodes that are no web: live at every point, cost nothing to keep.
  auto add_everywhere = [&](tensor_id t, extent e, std::optional<placement> at) {
    a.node_web.push_back(no_web);
    a.node_tensor.push_back(t);
    a.extents.push_back(e);
    a.costs.push_back(0);
    a.pins.push_back(at);
    table.add(interval{0, whole});
  };
  // A placed shared buffer that this function does not touch is still live whenever any core runs, so
  // it holds its bytes throughout. (Untouched tensors this colorer places are placed at commit.)
  std::vector<std::uint8_t> has_web(f.tensors.size(), 0);
  for (const web& w : a.live.webs) has_web[w.tensor] = 1;
  for (tensor_id t = 0; t < f.tensors.size(); ++t) {
    const tensor& x = f.tensors[t];
    if (!has_web[t] && filter.constrains(x) && x.memory == memory_type::dram && x.space == address_space::shared)
      add_everywhere(t, x.shape, x.at);
  }
  if (!a.block_members.empty()) {
    a.block_node = static_cast<node_id>(a.node_web.size());
    add_everywhere(no_tensor, {1, block_bytes}, std::nullopt);
  }
  for (const placed_neighbor& b : blockers) add_everywhere(no_tensor, b.size, b.at);
  return table;
}

/// Which nodes of `a` have places decided together (by an earlier colorer or another core): consistent
/// by construction, so no edges among them. User pins keep theirs, so two pins that overlap while both
/// live are still reported.
template <class = void>
std::vector<std::uint8_t> fixed_flags(const space_attempt& a, const function& f) {
  std::vector<std::uint8_t> fixed(a.pins.size(), 0);
  for (node_id v = 0; v < a.pins.size(); ++v)
    fixed[v] = a.pins[v] && !(a.node_tensor[v] != no_tensor && f.tensors[a.node_tensor[v]].pinned) ? 1 : 0;
  return fixed;
}

/// Interval order: placing ranges by their first point colors an interval graph optimally, and it is a
/// good order for sized nodes too; best-of-n tries it beside the size and degree orders.
template <class = void>
std::vector<double> interval_priority(const live_range_table& table) {
  std::vector<double> priority(table.num_nodes());
  for (node_id v = 0; v < priority.size(); ++v) priority[v] = -static_cast<double>(table.ranges(v).front().begin);
  return priority;
}

/// A linear memory where the interfering pairs far outnumber the nodes (thousands of DRAM tensors live
/// at once) is colored without an edge list (engine/interval_colorer.hpp): memory O(nodes), not
/// O(pairs). Past 64 pairs per node and 2^20 pairs: at 2,000 DRAM tensors live at once (2 M pairs) the
/// graph path already costs more CPU than the interval path at 8,000 (docs/PERFORMANCE.md, "Dense
/// kernels"). That path does no move coalescing (find_partners walks graph neighborhoods), so a move
/// between two DRAM tensors keeps its cost. Colors `a` and takes `table` when the problem is of that
/// kind, or was asked before (pass_cache: only this path stores answers); returns whether it did.
template <class = void>
bool color_dense_linear(space_attempt& a, live_range_table& table, const function& f, const space_filter& filter,
                        geometry_ref geom, std::uint64_t alignment, observer_ref obs, unsigned threads,
                        pass_cache* cache) {
  const std::vector<std::uint8_t> fixed = fixed_flags(a, f);
  std::optional<interval_question> q;
  if (cache) {
    q = interval_question{table.offsets, table.intervals, a.extents, a.costs, a.pins, fixed, geom.capacity(), alignment};
    if (auto r = cache->answer(f.name, filter.space, *q)) a.result = std::move(*r);
  }
  const std::optional<interval_index> index = a.result ? std::nullopt : std::optional<interval_index>(table);
  const std::uint64_t pairs = a.result ? 0 : sweep_pairs(sweep_degrees(table, *index));
  if (!a.result && !(pairs > 64 * table.num_nodes() && pairs > (std::uint64_t{1} << 20))) return false;
  a.priority = interval_priority(table);
  const std::vector<color_options> iv = interval_variants_dram();
  for (const color_options& o : iv) obs.best_of_n(filter.memory, name(o));
  if (!a.result) {
    a.result = color_intervals({table, *index, a.extents, a.costs, a.pins, a.priority, fixed}, geom, iv, threads);
    if (q) cache->remember(f.name, filter.space, std::move(*q), *a.result);
  }
  a.ranges = std::move(table);
  return true;
}

}  // namespace detail

/// One pass through the fixpoint head for memory `filter` (the linearized function must be numbered).
/// `blockers` are fixed extents live at every point (another core's memory, after linking); they must
/// not overlap each other. They become graph nodes with `node_web == no_web`. `threads`: best-of-n
/// variants colored at once. `cache`: what earlier passes computed on the same program and problem is
/// reused (see pass_cache; the caller gives the liveness back after commit).
template <class = void>
space_attempt color_space(const linearized_function& lf, const space_filter& filter, geometry_ref geom,
                          std::span<const color_options> variants, observer_ref obs,
                          std::span<const placed_neighbor> blockers = {},
                          engine_kind engine = engine_kind::chaitin_briggs, unsigned threads = 1,
                          pass_cache* cache = nullptr) {
  space_attempt a;
  a.geometry = geom;
  const function& f = lf.work();
  // first defs, last uses, loads, memloc_split, live ranges, costs
  a.live = cache ? cache->liveness.take(lf, a.live_key) : analyze_liveness(lf);
  std::optional<std::uint64_t> linear_alignment = geom.linear_alignment();  // a linear memory's only
  if (!geom.linear_bytes()) linear_alignment.reset();
  live_range_table table = detail::collect_nodes(a, f, filter, blockers, linear_alignment);
  if (engine == engine_kind::linear_scan) {  // the `lsa` family: no graph, no coalescing
    a.ranges = std::move(table);
    obs.best_of_n(filter.memory, "linear-scan/best-fit");
    a.result = linear_scan(a.ranges, a.extents, a.pins, geom, select_heuristic::best_fit, detail::fixed_flags(a, f));
  } else if (!linear_alignment ||
             !detail::color_dense_linear(a, table, f, filter, geom, *linear_alignment, obs, threads, cache)) {
    auto build = [&] { a.graph.emplace(build_interference(table, detail::fixed_flags(a, f))); };
    build();
    if (find_partners(a, lf, filter, geom, table)) build();  // again, over the coalesced nodes
    a.priority = detail::interval_priority(table);
    a.ranges = std::move(table);
    const coloring_problem problem{*a.graph, a.extents, a.costs, a.pins, a.priority};
    for (const color_options& o : variants) obs.best_of_n(filter.memory, name(o));
    a.result = color_best_of(problem, geom, variants, threads);  // simplify + select, best-of-n
  }
  obs.score(filter.memory, a.result->peak);
  return a;
}

/// Writes the placements of a complete attempt into `lf.work()`. Each tensor's first web keeps its
/// name; a further web becomes a new tensor `name.N` (N the smallest free suffix) and every operand slot
/// of that web is renamed. Returns the number of webs split off into new tensors.
template <class = void>
std::size_t commit_space(linearized_function& lf, const space_attempt& a, const space_filter& filter,
                         geometry_ref geom) {
  function& f = lf.work();
  const std::size_t original = f.tensors.size();
  std::vector<tensor_id> web_tensor(a.live.webs.size(), no_tensor);
  std::vector<std::uint8_t> first_seen(original, 0);
  fresh_names names(f);
  // Decide membership before any placement is written (a placed tensor no longer "needs coloring").
  std::vector<std::uint8_t> colored(original, 0);
  for (tensor_id t = 0; t < original; ++t) colored[t] = filter.colors(f.tensors[t]) ? 1 : 0;

  // A tensor's first placed web keeps its name; each further web becomes a tensor `name.N` of its own.
  auto place_web = [&](web_id w, placement at) {
    const tensor_id t = a.live.webs[w].tensor;
    if (!first_seen[t]) {
      first_seen[t] = 1;
      web_tensor[w] = t;
      f.tensors[t].at = at;
      return;
    }
    tensor copy = f.tensors[t];
    copy.name = names.take(copy.name + ".");
    copy.origin = origin_kind::split_web;
    copy.origin_of = t;
    copy.at = at;
    copy.kind = tensor_kind::internal;  // I/O tensors are never split (liveness keeps them whole)
    web_tensor[w] = static_cast<tensor_id>(f.tensors.size());
    f.tensors.push_back(std::move(copy));
  };
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const web_id w = a.node_web[v];
    if (w == no_web) {  // a blocker, an untouched shared buffer, or the block of whole-function webs
      if (v == a.block_node)
        for (std::size_t k = 0; k < a.block_members.size(); ++k) {
          const tensor_id t = a.live.webs[a.block_members[k]].tensor;
          placement at = *a.result->placements[v];
          at.offset += a.block_offsets[k];
          f.tensors[t].at = at;
          first_seen[t] = 1;
        }
      continue;
    }
    if (colored[a.live.webs[w].tensor]) place_web(w, *a.result->placements[v]);  // else: a fixed node
  }
  // Coalesced webs take their partner's place (a web of a tensor already placed becomes a tensor of
  // its own, like any further web).
  for (const auto& [w, v] : a.coalesced) place_web(w, *a.result->placements[v]);
  // Tensors of the space that no instruction touches never hold a value: any legal place clear of the
  // fixed nodes (pins, other spaces, other cores) will do.
  std::vector<placed_neighbor> fixed;
  for (node_id v = 0; v < a.node_web.size(); ++v)
    if (a.pins[v]) fixed.push_back({a.extents[v], *a.pins[v]});
  // If the fixed nodes leave no room, any legal place will do: such a tensor never holds a value, so it
  // overlaps nothing that matters (shared buffers, the only tensors whose overlaps matter untouched, are
  // placed by the shared colorer, not here).
  for (tensor_id t = 0; t < original; ++t)
    if (colored[t] && !first_seen[t]) {
      auto at = geom.select(f.tensors[t].shape, fixed, select_heuristic::first_fit);
      if (!at) at = geom.select(f.tensors[t].shape, {}, select_heuristic::first_fit);
      f.tensors[t].at = at;
    }
  for (std::size_t s = 0; s < f.operands.size(); ++s) {
    const web_id w = a.live.slot_web[s];
    if (w != no_web && web_tensor[w] != no_tensor) f.operands[s] = web_tensor[w];
  }
  return f.tensors.size() - original;
}

}  // namespace gca
