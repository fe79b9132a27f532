// gca-pack — packs a DSA problem (buffers with lifetimes and sizes) into one linear address space.
//
//   gca-pack [--capacity BYTES] [--alignment A] [--search] [--search-ms MS] [--search-nodes N] [--threads T]
//            [--interference auto|graph|intervals] [-o OUT.csv] IN.csv
//
// Reads `id,lower,upper,size[,alignment]` (half-open lifetimes) and colors it with the linear DRAM
// geometry, on one of two interference representations (`--interference`, auto by default):
//   graph      the interference graph built by an endpoint sweep, best-of-n over the select heuristics
//              and simplify orders (engine/colorer.hpp), plus the classical size-descending best fit
//              run on the interval index (so the result is never above that greedy);
//   intervals  no edge list: best-of-n of engine/interval_colorer.hpp over the interval index, memory
//              O(buffers) whatever the number of interfering pairs;
//   auto       intervals when the interfering pairs (counted by sweep) exceed both 64 per buffer and
//              2^22 (where the graph's memory and time grow past the buffers', and past tens of MB:
//              docs/PERFORMANCE.md, "Dense traces"), the graph otherwise (it runs more variants).
// Either way, when the peak is more than 0.5 % above max-live, it is then lowered by repacking the
// buffers that define it (improve_peak), and
// `id,lower,upper,size,offset` is written in input order to OUT or stdout. Prints one summary line on
// stderr:  buffers=N max_live=L peak=P capacity=C fits=yes|no nodes=S time_ms=T search=R
//          interference=graph|intervals
// where R is the exact search's answer: found, infeasible (proven: no placement within the capacity, or
// within max-live without --capacity, exists), gave-up (its time or node budget ran out), or off.
// When --capacity is given and the best coloring does not fit, the exact search of
// gca/engine/search.hpp runs next (MS milliseconds, 2000 by default); --search runs it in any case
// (without --capacity it aims at max-live, the lower bound). `nodes` counts the search's placements
// (0 when it did not run). --search-nodes N also stops it after N placements (deterministic, unlike the
// time budget).
// Exit status: 0 fits (or no capacity), 3 does not fit (nothing written), 1 bad input or usage.
// --threads T runs the best-of-n variants on T threads (0, the default: one per hardware thread); the
// result does not depend on T.
// Per-buffer alignments are honored by aligning every buffer to the least common multiple of them and
// --alignment (exact for the usual powers of two, conservative otherwise).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/interval_colorer.hpp>
#include <gca/engine/search.hpp>
#include <gca/error.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/io/dsa_csv.hpp>

namespace {

int usage(const char* why) {
  std::cerr << "gca-pack: " << why << "\n"
            << "usage: gca-pack [--capacity BYTES] [--alignment A] [--search] [--search-ms MS] [--search-nodes N]\n"
               "                [--threads T] [--interference auto|graph|intervals] [-o OUT.csv] IN.csv\n";
  return 1;
}

std::optional<std::uint64_t> number(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (UINT64_MAX - static_cast<std::uint64_t>(c - '0')) / 10) return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::uint64_t> capacity;
  std::uint64_t alignment = 1;
  bool search = false;
  std::uint64_t search_ms = 2000;
  std::uint64_t search_nodes = UINT64_MAX;
  const char* search_status = "off";
  std::uint64_t threads = 0;
  std::string out_path, in_path, interference = "auto";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string_view(argv[++i]);
    };
    if (a == "--search") {
      search = true;
    } else if (a == "--search-ms") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n) return usage("--search-ms needs a non-negative integer");
      search_ms = *n;
    } else if (a == "--search-nodes") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n == 0) return usage("--search-nodes needs a positive integer");
      search_nodes = *n;
    } else if (a == "--threads") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n > 1024) return usage("--threads needs an integer from 0 to 1024");
      threads = *n;
    } else if (a == "--capacity" || a == "--alignment") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n == 0) return usage(a == "--capacity" ? "--capacity needs a positive integer"
                                                         : "--alignment needs a positive integer");
      if (a == "--capacity") {
        capacity = n;
      } else {
        alignment = *n;
      }
    } else if (a == "--interference") {
      const auto v = value();
      if (!v || (*v != "auto" && *v != "graph" && *v != "intervals"))
        return usage("--interference needs auto, graph or intervals");
      interference = std::string(*v);
    } else if (a == "-o") {
      const auto v = value();
      if (!v) return usage("-o needs a file name");
      out_path = std::string(*v);
    } else if (a == "-h" || a == "--help") {
      usage("packs buffers into one address space");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option");
    } else if (in_path.empty()) {
      in_path = std::string(a);
    } else {
      return usage("more than one input file");
    }
  }
  if (in_path.empty()) return usage("no input file");

  const auto t0 = std::chrono::steady_clock::now();
  gca::dsa_problem p;
  try {
    p = gca::read_dsa_csv_file(in_path);
  } catch (const gca::parse_error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  // Addresses are 64-bit: the sizes must sum to something representable (then every packing is), and
  // the common alignment must not overflow.
  std::uint64_t total = 0;
  for (const gca::dsa_buffer& b : p.buffers) {
    if (b.size > UINT64_MAX - total) {
      std::cerr << in_path << ':' << b.line << ": error: total size of the buffers overflows 64 bits\n";
      return 1;
    }
    total += b.size;
    const std::uint64_t step = b.alignment / std::gcd(alignment, b.alignment);
    if (step > 1 && step > (std::uint64_t{1} << 62) / alignment) {
      std::cerr << in_path << ':' << b.line << ": error: the common alignment overflows\n";
      return 1;
    }
    alignment *= step;
  }

  const gca::live_range_table live = gca::to_live_ranges(p);
  const gca::interval_index index(live);
  std::vector<gca::extent> extents;
  std::vector<double> priority;  // bytes x lifetime: the "area" order, one of the best-of-n variants
  for (gca::node_id v = 0; v < p.buffers.size(); ++v) {
    extents.push_back({1, p.buffers[v].size});
    priority.push_back(static_cast<double>(p.buffers[v].size) * static_cast<double>(live.live_length(v)));
  }
  const gca::linear_dram geom(capacity.value_or(gca::unbounded), alignment);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const gca::interval_problem iproblem{.live = live, .index = index, .extents = extents, .priority = priority};
  // Past 64 pairs per buffer the graph costs more than the buffers, and past 2^22 pairs (about 50 MB of
  // graph and weights) more than a trace's size justifies (measured: docs/PERFORMANCE.md).
  constexpr std::uint64_t pairs_per_buffer = 64, small_graph = std::uint64_t{1} << 22;
  const std::uint64_t pairs = interference == "auto" ? gca::sweep_pairs(gca::sweep_degrees(live, index)) : 0;
  const bool use_intervals = interference == "intervals" ||
                             (interference == "auto" && pairs > pairs_per_buffer * p.buffers.size() && pairs > small_graph);
  std::optional<gca::interference_graph> g;  // only on the graph path (the exact search reads it too)
  gca::coloring_result r;
  if (use_intervals) {
    r = gca::color_intervals(iproblem, geom, static_cast<unsigned>(threads));
  } else {
    g = gca::build_interference(live);
    const gca::coloring_problem problem{.graph = *g, .extents = extents, .priority = priority};
    r = gca::color_best_of(problem, geom, static_cast<unsigned>(threads));
    // The classical greedy as one more variant: never above size-descending best fit.
    const gca::color_options classic{gca::select_heuristic::best_fit, gca::simplify_order::size_descending};
    gca::coloring_result c =
        gca::color_in_order(problem, gca::geometry_ref(geom), gca::size_descending_order(live, extents), classic);
    if (gca::detail::better_result({}, c, r)) r = std::move(c);
  }
  const std::uint64_t lower = gca::max_live(p);
  // The peak repack is for what the greedies leave far from the bound: within 0.5 % of max-live it is
  // skipped (its rounds cost a few colorer passes each; docs/PERFORMANCE.md, "Dense traces").
  if (r.complete() && r.peak - lower > lower / 200)
    gca::improve_peak(iproblem, gca::geometry_ref(geom), r, lower, static_cast<unsigned>(threads));
  bool fits = r.complete();
  std::uint64_t peak = r.peak;
  std::vector<std::uint64_t> offsets;
  if (fits)
    for (const auto& pl : r.placements) offsets.push_back(pl->offset);
  std::uint64_t nodes = 0;
  if ((capacity && !fits) || (search && (!fits || peak > lower))) {
    // The exact search: within the capacity, or (no capacity) at max-live, the best possible peak.
    std::vector<gca::interval> lifetimes;
    for (const gca::dsa_buffer& b : p.buffers) lifetimes.push_back({b.lower, b.upper});
    gca::linear_search_options opt;
    opt.deadline = t0 + std::chrono::milliseconds(search_ms);
    opt.node_limit = search_nodes;
    if (!capacity) opt.capacity = lower;
    if (!g) g = gca::build_interference(live);
    const gca::search_result s = gca::search_placement(*g, extents, lifetimes, geom, opt);
    nodes = s.stats.nodes;
    // "gave-up" (one word) keeps the key=value line splittable on spaces.
    search_status = s.status == gca::search_status::gave_up ? "gave-up" : gca::to_string(s.status).data();
    if (s.found() && (!fits || s.peak < peak)) {
      fits = true;
      peak = s.peak;
      offsets.clear();
      for (const gca::placement& pl : s.placements) offsets.push_back(pl.offset);
    }
  }
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::cerr << "buffers=" << p.buffers.size() << " max_live=" << lower << " peak=" << peak
            << " capacity=" << (capacity ? std::to_string(*capacity) : std::string("none"))
            << " fits=" << (fits ? "yes" : "no") << " nodes=" << nodes
            << " time_ms=" << static_cast<std::uint64_t>(ms + 0.5) << " search=" << search_status
            << " interference=" << (use_intervals ? "intervals" : "graph") << '\n';
  if (!fits) return 3;

  if (out_path.empty()) {
    gca::write_dsa_solution(std::cout, p, offsets);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream out(out_path);
  if (!out) {
    std::cerr << "gca-pack: cannot write " << out_path << '\n';
    return 1;
  }
  gca::write_dsa_solution(out, p, offsets);
  out.flush();
  return out ? 0 : 1;
}
