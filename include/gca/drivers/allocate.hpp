// gca/drivers/allocate.hpp — the bodies of the allocators' runs (drivers/coloring_allocator.hpp declares
// them): per function for core-local memories and after linking (allocate_functions, allocate_standard),
// across the module for shared DRAM (allocate_shared_dram), the loop-aware driver (allocate_with_loop),
// and what they share (space options, other cores' blockers, a tensor-list rollback, index legalization).
//
// Included by drivers/coloring_allocator.hpp in the default header-only mode. In the compiled mode
// (gca/compiled.hpp) the standard instantiations come from the gca_compiled library; a file that runs an
// allocator with its own policy or observer includes this header (or <gca/gca.hpp>, which does) to
// instantiate them in place.
#pragma once

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gca/drivers/coloring_allocator.hpp>
#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/error.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/fixpoint.hpp>
#include <gca/spill/spill_code.hpp>
#include <gca/watchdog.hpp>

namespace gca {

namespace detail {

template <class Cache>
std::shared_ptr<Cache> new_pass_cache() {
  return std::make_shared<Cache>();
}

/// What an allocator's options give every space it colors: the best-of-n variants, the deadline, the
/// engine, the exact-search budgets and the cache the passes share; `threads` for the variants and the
/// exact search. The blockers are the caller's (per function, after linking).
template <class = void>
space_options space_options_of(const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                               unsigned threads) {
  space_options so{opt.variants, deadline, {}, opt.engine, threads, opt.search, opt.cache.get()};
  so.search.threads = threads;  // the exact search's too: its answer does not depend on them
  return so;
}

/// Disjoint byte blocks covering every placed DRAM tensor of `m` outside function `skip`: what other
/// cores hold, as fixed blockers. A shared buffer that function `skip` declares itself is left out (it is
/// one of that function's own fixed tensors already).
template <class = void>
std::vector<placed_neighbor> dram_blockers(const module& m, std::size_t skip) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [begin, end)
  auto own_shared = [&](const tensor& t) {
    return skip < m.functions.size() && t.space == address_space::shared &&
           m.functions[skip].find_tensor(t.name) != no_tensor;
  };
  for (std::size_t k = 0; k < m.functions.size(); ++k) {
    if (k == skip) continue;
    for (const tensor& t : m.functions[k].tensors)
      if (t.memory == memory_type::dram && t.at && !own_shared(t))
        spans.emplace_back(t.at->offset, t.at->offset + t.shape.bytes);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<placed_neighbor> out;
  for (const auto& [b, e] : spans) {
    if (!out.empty() && b <= out.back().at.offset + out.back().size.bytes) {
      auto& last = out.back();
      last.size.bytes = std::max(last.size.bytes, e - last.at.offset);
    } else {
      out.push_back({extent{1, e - b}, placement{0, b}});
    }
  }
  return out;
}

/// The body of a core-local allocator's run: per function, linearize, allocate the space with the
/// spill fixpoint, commit. Before linking the functions are independent and may run on several threads;
/// after linking (`post_link`) each function's blockers are the other cores' bytes placed so far.
/// Throws allocation_error naming the pass and function; `m` is replaced only when every function
/// succeeded.
template <LinearizationPolicy Linearization, SpillPolicy Spill, class Observer>
void allocate_functions(module& m, pass_report& rep, space_filter filter, bool post_link, geometry_ref geom,
                        const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                        const Spill& spill, Observer& obs) {
  module work = m;
  if (post_link) {
    // After linking, local DRAM is one address space shared by concurrent cores: forget the pre-link
    // places of everything the user did not pin, and color again against the others.
    for (function& f : work.functions)
      for (tensor& t : f.tensors)
        if (t.memory == memory_type::dram && t.space == filter.space && !t.pinned) t.at.reset();
  }
  const std::size_t n = work.functions.size();
  std::vector<std::optional<space_report>> reports(n);
  std::vector<std::exception_ptr> errors(n);
  // Functions run in parallel only before linking and without a user observer (below); the threads a
  // function does not get go to its best-of-n variants.
  constexpr bool quiet_observer = std::is_same_v<Observer, null_observer>;
  const unsigned hw = thread_count(opt.threads);
  const unsigned threads = post_link || !quiet_observer ? 1u : static_cast<unsigned>(std::min<std::size_t>(n, hw));
  const unsigned variant_threads = std::max(1u, hw / std::max(1u, threads));
  auto one = [&](std::size_t k, auto& observer) {
    try {
      space_options so = space_options_of(opt, deadline, variant_threads);
      if (post_link) so.blockers = dram_blockers(work, k);
      // `work` is this pass's own copy: the function moves into its linearization and back (no copy
      // and no rebuild of 10^6 instructions when nothing was inserted: linearize.hpp, commit() &&).
      linearized_function lf = linearize(std::move(work.functions[k]), Linearization{});
      space_report r = allocate_space(lf, m.tgt, filter, geom, spill, observer, so);
      if (!r.ok) throw allocation_error(rep.pass + ": function '" + lf.work().name + "': " + r.error);
      work.functions[k] = std::move(lf).commit();
      reports[k] = std::move(r);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  // Core-local functions are independent before linking, so they may be colored at once. Each writes
  // only its own slots, and the first error in function order wins, so the result is the serial one. A
  // user observer sees a serial run (its calls stay in order); after linking each function's blockers
  // depend on the ones before it, so that is serial too.
  bool done = false;
  if constexpr (quiet_observer) {
    if (threads > 1) {
      run_jobs(n, threads, [&](std::size_t k) {
        null_observer quiet;
        one(k, quiet);
      });
      done = true;
    }
  }
  if (!done) {
    for (std::size_t k = 0; k < n; ++k) {
      one(k, obs);
      if (errors[k]) break;
    }
  }
  for (std::size_t k = 0; k < n; ++k)
    if (errors[k]) std::rethrow_exception(errors[k]);
  for (std::size_t k = 0; k < n; ++k) rep.functions.emplace_back(work.functions[k].name, std::move(*reports[k]));
  m = std::move(work);
}

/// The body of coloring_allocator::run for a core-local or post-link space: the geometry behind a
/// geometry_ref, so allocate_functions (and the engine under it) is one copy for every geometry.
template <LinearizationPolicy Linearization, SpillPolicy Spill, GeometryPolicy Geometry, class Observer>
void allocate_standard(module& m, pass_report& rep, space_filter filter, bool post_link, const Geometry& geom,
                       const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                       const Spill& spill, Observer& obs) {
  allocate_functions<Linearization>(m, rep, filter, post_link, geometry_ref(geom), opt, deadline, spill, obs);
}

/// Puts every function's tensor list back when destroyed, unless keep() was called: a step that edits
/// tensors only leaves the module as it was when it fails, without copying the module's instructions
/// (10^6 of them cost more than the step).
class tensor_rollback {
 public:
  explicit tensor_rollback(module& m) : m_(m) {
    saved_.reserve(m.functions.size());
    for (const function& f : m.functions) saved_.push_back(f.tensors);
  }
  tensor_rollback(const tensor_rollback&) = delete;
  tensor_rollback& operator=(const tensor_rollback&) = delete;
  ~tensor_rollback() {
    if (!kept_)
      for (std::size_t k = 0; k < saved_.size() && k < m_.functions.size(); ++k) m_.functions[k].tensors = std::move(saved_[k]);
  }
  void keep() noexcept { kept_ = true; }

 private:
  module& m_;
  std::vector<std::vector<tensor>> saved_;
  bool kept_ = false;
};

/// The module's shared DRAM buffers by name: one entry per name, in order of first declaration, with
/// its size and its place when some function pins it (a name placed in any function has that place in
/// all of them). The hash map is a lookup only, never iterated. Throws input_error when two functions
/// disagree on a name's size or pinned place.
struct shared_names {
  struct entry {
    std::string name;
    std::uint64_t bytes = 0;
    std::optional<placement> at;
  };
  std::vector<entry> entries;
  std::unordered_map<std::string, std::uint32_t> index;

  static bool is_shared(const tensor& t) { return t.memory == memory_type::dram && t.space == address_space::shared; }
  template <class = void>
  static shared_names collect(const module& m) {
    shared_names out;
    for (const function& f : m.functions)
      for (const tensor& t : f.tensors) {
        if (!is_shared(t)) continue;
        const auto [it, fresh] = out.index.emplace(t.name, static_cast<std::uint32_t>(out.entries.size()));
        if (fresh) out.entries.push_back({t.name, t.shape.bytes, std::nullopt});
        entry& e = out.entries[it->second];
        if (e.bytes != t.shape.bytes)
          throw input_error("shared tensor %" + t.name + " has different sizes in different functions");
        if (t.at && e.at && *e.at != *t.at)
          throw input_error("shared tensor %" + t.name + " is pinned at different places in different functions");
        if (t.at) e.at = t.at;
      }
    return out;
  }
  /// Every unplaced copy of a shared name in `m` takes the name's place (if it has one).
  template <class = void>
  void write_places(module& m) const {
    for (function& f : m.functions)
      for (tensor& t : f.tensors)
        if (is_shared(t) && !t.at) t.at = entries[index.at(t.name)].at;
  }
};

/// Why the shared buffers `bad` found no place among `extents` (the shared buffers and the blocks, all
/// live whenever any core runs): footprints (GeometryPolicy requirement 6: bytes, for linear_dram)
/// summing above the capacity prove that no placement exists; short of that, the colorer only failed to
/// find one.
template <GeometryPolicy Geometry>
std::string shared_refusal(const Geometry& geom, std::span<const extent> extents, const std::vector<std::string>& bad) {
  std::uint64_t total = 0;
  for (const extent& e : extents) {
    const std::uint64_t need = geom.end(e, placement{});
    total = need > unbounded - total ? unbounded : total + need;
  }
  return total > geom.capacity() ? cant_help_message(log_name(memory_type::dram), bad) +
                                       ": together they need more bytes than DRAM holds"
                                 : colorer_gave_up_message(log_name(memory_type::dram), bad);
}

/// Shared DRAM: one buffer per name across the module, live whenever any core runs (cores are
/// concurrent and their points are not comparable), so every shared buffer interferes with every other
/// and with every placed DRAM byte of every core.
template <GeometryPolicy Geometry, class Observer>
void allocate_shared_dram(module& m, pass_report& rep, bool post_link, const Geometry& geom,
                          std::span<const color_options> variants, std::chrono::steady_clock::time_point deadline,
                          Observer& obs) {
  const watchdog_scope watchdog(deadline);  // the pair loop below and the coloring tick it
  watchdog_check();
  tensor_rollback undo(m);  // only tensors change: saved, not the whole module copied
  module& work = m;
  if (post_link) {
    for (function& f : work.functions)
      for (tensor& t : f.tensors)
        if (shared_names::is_shared(t) && !t.pinned) t.at.reset();
  }
  obs.will_allocate(memory_type::dram);
  shared_names names = shared_names::collect(work);
  std::vector<std::uint32_t> unplaced;  // entries to color, in order of first declaration
  for (std::uint32_t k = 0; k < names.entries.size(); ++k)
    if (!names.entries[k].at) unplaced.push_back(k);
  names.write_places(work);  // copies of placed names first: they are blockers below
  const std::vector<placed_neighbor> blocks = dram_blockers(work, work.functions.size());
  const std::size_t n = unplaced.size(), b = blocks.size();
  std::vector<extent> extents;
  std::vector<std::optional<placement>> pins;
  std::vector<std::pair<node_id, node_id>> edges;
  for (std::size_t i = 0; i < n; ++i) {
    extents.push_back({1, names.entries[unplaced[i]].bytes});
    pins.emplace_back();
    watchdog_tick(i + b);  // n^2 / 2 + n b edges: the time goes here with many shared buffers
    for (std::size_t j = 0; j < i; ++j) edges.emplace_back(static_cast<node_id>(j), static_cast<node_id>(i));
    for (std::size_t j = 0; j < b; ++j) edges.emplace_back(static_cast<node_id>(i), static_cast<node_id>(n + j));
  }
  for (const placed_neighbor& blk : blocks) {
    extents.push_back(blk.size);
    pins.emplace_back(blk.at);
  }
  const interference_graph g = build_interference(n + b, edges);
  const coloring_problem problem{g, extents, {}, pins};
  for (const color_options& o : variants) obs.best_of_n(memory_type::dram, name(o));
  const coloring_result r = color_best_of(problem, geom, variants);
  obs.score(memory_type::dram, r.peak);
  space_report sr;
  sr.memory = memory_type::dram;
  sr.space = address_space::shared;
  sr.iterations = 1;
  sr.heuristic = name(r.options);
  sr.peak = r.peak;
  sr.nodes = n + b;
  sr.edges = g.num_edges();
  if (!r.complete()) {
    std::vector<std::string> bad;
    for (const unplaced_node& u : r.unplaced)
      if (u.node < n) bad.push_back(names.entries[unplaced[u.node]].name);
    throw allocation_error(rep.pass + ": " + shared_refusal(geom, extents, bad));
  }
  for (std::size_t i = 0; i < n; ++i) names.entries[unplaced[i]].at = r.placements[i];
  names.write_places(work);
  obs.did_color(memory_type::dram, sr.heuristic);
  sr.ok = true;
  rep.functions.emplace_back("<module>", std::move(sr));
  undo.keep();
}

}  // namespace detail

/// Checks the operands of PSUM and SB after placement (the Neuron allocator's indice_legalization): every operand of
/// those memories must name a placed tensor whose place is legal on the target. Throws input_error naming
/// the function and tensor.
template <class = void>
void legalize_indices(const function& f, const target& t) {
  for (const instruction& i : f.insts) {
    if (i.is_loop()) continue;
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs + i.n_inputs; ++s) {
      const tensor& x = f.tensors[f.operands[s]];
      if (x.memory != memory_type::psum && x.memory != memory_type::sb) continue;
      if (!x.at) throw input_error("indice_legalization: function '" + f.name + "', tensor %" + x.name + " has no place");
      if (auto p = placement_problem(t, x))
        throw input_error("indice_legalization: function '" + f.name + "', tensor %" + x.name + ": " + *p);
    }
  }
}

namespace detail {

/// The body of coloring_allocator_with_loop::run.
template <SpillPolicy Spill, GeometryPolicy PsumGeometry, GeometryPolicy SbGeometry, class Observer>
void allocate_with_loop(module& m, pass_report& rep, const PsumGeometry& psum, const SbGeometry& sb,
                        const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                        const Spill& spill, Observer& obs) {
  module work = m;
  const space_options so = space_options_of(opt, deadline, thread_count(opt.threads));
  for (function& f : work.functions) {
    linearized_function lf = linearize(f, flattened_loops{});
    space_report p = allocate_space(lf, m.tgt, space_filter{memory_type::psum, address_space::local},
                                    psum, spill, obs, so);
    if (!p.ok) throw allocation_error(rep.pass + ": function '" + f.name + "': " + p.error);
    space_report s = allocate_space(lf, m.tgt, space_filter{memory_type::sb, address_space::local},
                                    sb, spill, obs, so);
    if (!s.ok) throw allocation_error(rep.pass + ": function '" + f.name + "': " + s.error);
    function done = lf.commit();
    legalize_indices(done, m.tgt);
    rep.functions.emplace_back(f.name, std::move(p));
    rep.functions.emplace_back(f.name, std::move(s));
    f = std::move(done);
  }
  m = std::move(work);
}

}  // namespace detail

}  // namespace gca
