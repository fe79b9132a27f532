// bench_dense — the classical greedies on DSA traces, measured in the same run as gca-pack's rows of
// docs/PERFORMANCE.md ("Dense traces"; scripts/dense.sh runs both). For each CSV file, one line:
//   name buffers live_at_once pairs max_live naive_peak naive_s sweep_peak sweep_s
// naive = size-descending best fit as TFLite's and XLA's planners do it, O(n^2) (benchmarks/
// dsa_baseline.hpp, written without gca code); sweep = the same greedy on gca's interval index and
// occupancy tree (engine/interval_colorer.hpp, variant best-fit/size-descending), which must give the
// same peak. live_at_once is the most buffers live at one point, pairs the interfering pairs (by sweep).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <gca/engine/interval_colorer.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/io/dsa_csv.hpp>

#include "dsa_baseline.hpp"

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  for (int i = 1; i < argc; ++i) {
    const gca::dsa_problem p = gca::read_dsa_csv_file(argv[i]);
    const gca::live_range_table live = gca::to_live_ranges(p);
    const gca::interval_index index(live);
    const std::uint64_t pairs = gca::sweep_pairs(gca::sweep_degrees(live, index));
    std::vector<std::pair<gca::program_point, int>> ev;
    for (const gca::dsa_buffer& b : p.buffers) ev.push_back({b.lower, 1}), ev.push_back({b.upper, -1});
    std::sort(ev.begin(), ev.end());
    long cur = 0, most = 0;
    for (const auto& e : ev) most = std::max(most, cur += e.second);
    const auto t0 = clock::now();
    const gca_bench::baseline_result naive = gca_bench::baseline_best_fit(p);
    const auto t1 = clock::now();
    std::vector<gca::extent> ex;
    for (const gca::dsa_buffer& b : p.buffers) ex.push_back({1, b.size});
    const gca::color_options classic{gca::select_heuristic::best_fit, gca::simplify_order::size_descending};
    const gca::coloring_result sweep = gca::color_intervals({.live = live, .index = index, .extents = ex},
                                                            gca::linear_dram(gca::unbounded, 1), std::span(&classic, 1));
    const auto t2 = clock::now();
    std::cout << std::filesystem::path(argv[i]).stem().string() << ' ' << p.buffers.size() << ' ' << most << ' '
              << pairs << ' ' << gca::max_live(p) << ' ' << naive.peak << ' '
              << std::chrono::duration<double>(t1 - t0).count() << ' ' << sweep.peak << ' '
              << std::chrono::duration<double>(t2 - t1).count() << '\n';
  }
  return 0;
}
