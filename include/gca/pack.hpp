// gca/pack.hpp — packing a static-allocation (DSA) problem into one linear address space: gca-pack's
// strategy as a library call, `gca::pack(problem, options)`.
//
// The strategy, in order:
//   1. Interference. `pack_interference::graph`: the interference graph by an endpoint sweep, best-of-n
//      over the select heuristics and simplify orders (engine/colorer.hpp), plus the classical
//      size-descending best fit as one more variant, so the result is never above that greedy.
//      `intervals`: no edge list, best-of-n of engine/interval_colorer.hpp over the interval index
//      (memory O(buffers) whatever the number of interfering pairs). `automatic`: intervals when the
//      interfering pairs (counted by sweep) exceed both 64 per buffer and 2^22, where the graph's memory
//      and time grow past the buffers' and past tens of MB (docs/PERFORMANCE.md, "Dense traces"); the
//      graph otherwise (it runs more variants).
//   2. When the peak is more than 0.5 % above max-live, the buffers that define it are repacked
//      (improve_peak; its rounds cost a few colorer passes each, and below 0.5 % they gain little).
//   3. The exact search (engine/search.hpp) when a capacity is given and the coloring does not fit, or
//      when `search` is set and the coloring is above max-live: within the capacity, or at max-live
//      without one, in `search_time` and `search_nodes`. It replaces the coloring when it found a lower
//      peak (or any placement when the coloring did not fit). Two cases are answered without it, since
//      it walks the interference graph, whose memory and construction time grow with the interfering
//      pairs (a trace of 62,000 buffers with ~9,000 live at once has hundreds of millions: 6 GB and
//      35 s to build, docs/PERFORMANCE.md section 7): a capacity below max-live is infeasible (max-live
//      is a lower bound on every placement's peak; `search_note` says so), and above
//      `search_max_pairs` interfering pairs (the graph's, or counted by the sweep without listing one
//      where the coloring ran over the intervals) the search does not run (`search` stays empty,
//      `search_note` says why): the coloring's answer stands, and "does not fit" is then no proof.
// Per-buffer alignments are honored by aligning every buffer to the least common multiple of them and
// `alignment` (exact for the usual powers of two, conservative otherwise). The result does not depend on
// `threads`.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/interval_colorer.hpp>
#include <gca/engine/search.hpp>
#include <gca/engine/search_status.hpp>
#include <gca/error.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/io/dsa_csv.hpp>

namespace gca {

enum class pack_interference : std::uint8_t { automatic, graph, intervals };

struct pack_options {
  std::optional<std::uint64_t> capacity;     // none: unbounded (the search then aims at max-live)
  std::uint64_t alignment = 1;               // every buffer's offset is a multiple of it (and of its own)
  bool search = false;                       // run the exact search even when the coloring fits
  std::chrono::milliseconds search_time{2000};  // the search's budget, from the start of the call
  std::uint64_t search_nodes = UINT64_MAX;   // and its node budget (deterministic, unlike the time)
  unsigned threads = 0;                      // best-of-n variants at once (0: one per hardware thread)
  pack_interference interference = pack_interference::automatic;
  // The search builds the interference graph and its own tables (memory about 40-50 bytes per interfering
  // pair); above this many pairs it does not run (step 3 above). 2^22, the size from which the coloring
  // leaves the graph too (pack_coloring): there the search, a walk of O(buffers) per node, places a few
  // hundred nodes in its 2 s on traces of 18,000 buffers (docs/PERFORMANCE.md section 7).
  std::uint64_t search_max_pairs = std::uint64_t{1} << 22;
};

struct pack_result {
  bool fits = false;                      // a placement within the capacity (always, without one)
  std::uint64_t peak = 0;                 // highest end of the placement (when fits)
  std::uint64_t max_live = 0;             // the lower bound on any peak
  std::vector<std::uint64_t> offsets;     // per buffer, in problem order (empty unless fits)
  bool used_intervals = false;            // which interference the coloring ran on
  std::optional<search_status> search;    // the exact search's answer (nullopt: it did not run)
  std::uint64_t search_nodes = 0;         // its placements
  std::string search_note;                // when the search was due and did not run, or answered without
                                          // walking (step 3 above): why; empty otherwise
};

/// A problem gca::pack cannot represent in 64-bit addresses; `line()` is the buffer's line in its file.
class pack_error : public input_error {
 public:
  pack_error(std::uint32_t line, const std::string& what) : input_error(what), line_(line) {}
  std::uint32_t line() const noexcept { return line_; }

 private:
  std::uint32_t line_;
};

namespace detail {

/// The common alignment of `p`'s buffers and `alignment`; throws pack_error when the sizes do not sum to
/// something representable (then every packing is) or the alignment overflows.
template <class = void>
std::uint64_t pack_alignment(const dsa_problem& p, std::uint64_t alignment) {
  std::uint64_t total = 0;
  for (const dsa_buffer& b : p.buffers) {
    if (b.size > UINT64_MAX - total) throw pack_error(b.line, "total size of the buffers overflows 64 bits");
    total += b.size;
    const std::uint64_t step = b.alignment / std::gcd(alignment, b.alignment);
    if (step > 1 && step > (std::uint64_t{1} << 62) / alignment)
      throw pack_error(b.line, "the common alignment overflows");
    alignment *= step;
  }
  return alignment;
}

/// Step 1 (see the top of this header): the coloring, and which interference it ran on; `g` holds the
/// graph when one was built and `pairs` the sweep's count of interfering pairs when it was taken (the
/// exact search reads both too).
template <class = void>
coloring_result pack_coloring(const live_range_table& live, const interval_problem& iproblem,
                              std::span<const extent> extents, std::span<const double> priority,
                              const linear_dram& geom, const pack_options& opt, unsigned threads,
                              std::optional<interference_graph>& g, std::optional<std::uint64_t>& pairs,
                              bool& used_intervals) {
  constexpr std::uint64_t pairs_per_buffer = 64, small_graph = std::uint64_t{1} << 22;
  if (opt.interference == pack_interference::automatic) pairs = sweep_pairs(sweep_degrees(live, iproblem.index));
  used_intervals = opt.interference == pack_interference::intervals ||
                   (opt.interference == pack_interference::automatic &&
                    *pairs > pairs_per_buffer * live.num_nodes() && *pairs > small_graph);
  if (used_intervals) return color_intervals(iproblem, geom, threads);
  g = build_interference(live);
  const coloring_problem problem{.graph = *g, .extents = extents, .priority = priority};
  coloring_result r = color_best_of(problem, geom, threads);
  const color_options classic{select_heuristic::best_fit, simplify_order::size_descending};
  coloring_result c = color_in_order(problem, geometry_ref(geom), size_descending_order(live, extents), classic);
  if (better_result({}, c, r)) r = std::move(c);
  return r;
}

/// Step 3 (see the top of this header), for pack: the exact search, or why it is not needed or not run.
template <class = void>
void pack_search(const dsa_problem& p, const live_range_table& live, const interval_index& index,
                 std::span<const extent> extents, const linear_dram& geom, const pack_options& opt,
                 std::chrono::steady_clock::time_point t0, unsigned threads, std::optional<interference_graph>& g,
                 std::optional<std::uint64_t> pairs, pack_result& out) {
  if (opt.capacity && *opt.capacity < out.max_live) {
    out.search = search_status::infeasible;
    out.search_note = "max-live " + std::to_string(out.max_live) + " exceeds the capacity " + std::to_string(*opt.capacity);
    return;
  }
  if (g) pairs = g->num_edges();
  if (!pairs) pairs = sweep_pairs(sweep_degrees(live, index));
  if (*pairs > opt.search_max_pairs) {
    out.search_note = "the exact search did not run: " + std::to_string(*pairs) +
                      " interfering pairs, more than it builds its graph for (" + std::to_string(opt.search_max_pairs) + ")";
    return;
  }
  std::vector<interval> lifetimes;
  for (const dsa_buffer& b : p.buffers) lifetimes.push_back({b.lower, b.upper});
  linear_search_options so;
  so.deadline = t0 + opt.search_time;
  so.node_limit = opt.search_nodes;
  so.threads = threads;  // the race of the search's two lanes: at once on two threads, same answer
  if (!opt.capacity) so.capacity = out.max_live;
  if (!g) g = build_interference(live);
  const search_result s = search_placement(*g, extents, lifetimes, geom, so);
  out.search = s.status;
  out.search_nodes = s.stats.nodes;
  if (s.found() && (!out.fits || s.peak < out.peak)) {
    out.fits = true;
    out.peak = s.peak;
    out.offsets.clear();
    for (const placement& pl : s.placements) out.offsets.push_back(pl.offset);
  }
}

}  // namespace detail

/// Packs `p` (see the top of this header). Throws pack_error for a problem 64-bit addresses cannot hold.
template <class = void>
pack_result pack(const dsa_problem& p, const pack_options& opt = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t alignment = detail::pack_alignment(p, opt.alignment);
  const live_range_table live = to_live_ranges(p);
  const interval_index index(live);
  std::vector<extent> extents;
  std::vector<double> priority;  // bytes x lifetime: the "area" order, one of the best-of-n variants
  for (node_id v = 0; v < p.buffers.size(); ++v) {
    extents.push_back({1, p.buffers[v].size});
    priority.push_back(static_cast<double>(p.buffers[v].size) * static_cast<double>(live.live_length(v)));
  }
  const linear_dram geom(opt.capacity.value_or(unbounded), alignment);
  const unsigned threads = opt.threads != 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  const interval_problem iproblem{.live = live, .index = index, .extents = extents, .priority = priority};
  pack_result out;
  std::optional<interference_graph> g;
  std::optional<std::uint64_t> pairs;
  coloring_result r = detail::pack_coloring(live, iproblem, extents, priority, geom, opt, threads, g, pairs, out.used_intervals);
  out.max_live = max_live(p);
  if (r.complete() && r.peak - out.max_live > out.max_live / 200)
    improve_peak(iproblem, geometry_ref(geom), r, out.max_live, threads);
  out.fits = r.complete();
  out.peak = r.peak;
  if (out.fits)
    for (const auto& pl : r.placements) out.offsets.push_back(pl->offset);
  if ((opt.capacity && !out.fits) || (opt.search && (!out.fits || out.peak > out.max_live)))
    detail::pack_search(p, live, index, extents, geom, opt, t0, threads, g, pairs, out);
  return out;
}

}  // namespace gca
