// bench_pack — gca's DSA packing (interference sweep + best-of-n Chaitin–Briggs over linear DRAM) and the
// `lsa` family's linear scan (engine/linear_scan.hpp) against the size-descending best-fit baseline (TFLite/XLA style, benchmarks/dsa_baseline.hpp), on the shared
// DSA files. Counters per file: buffers, max_live, peak (of that run's algorithm), baseline_peak,
// over_max_live_pct. `--trace FILE` (repeatable) adds more DSA files, e.g. a generated large trace;
// `--threads T` runs best-of-n on T threads (default: one per hardware thread, as gca-pack does).
// Remake the tables of docs/ENGINE.md and docs/PERFORMANCE.md with:
//   build/examples/gca-gen --trace 62000 > /tmp/trace62k.csv
//   build/benchmarks/bench-pack --trace /tmp/trace62k.csv --benchmark_format=json > /tmp/b.json
//   python3 benchmarks/engine_table.py /tmp/b.json
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/linear_scan.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dsa_csv.hpp>

#include "dsa_baseline.hpp"

namespace {

unsigned threads = 0;

gca::coloring_result pack(const gca::dsa_problem& p) {
  const gca::live_range_table live = gca::to_live_ranges(p);
  const gca::interference_graph g = gca::build_interference(live);
  std::vector<gca::extent> extents;
  std::vector<double> priority;
  for (gca::node_id v = 0; v < p.buffers.size(); ++v) {
    extents.push_back({1, p.buffers[v].size});
    priority.push_back(static_cast<double>(p.buffers[v].size) * static_cast<double>(live.live_length(v)));
  }
  return gca::color_best_of({.graph = g, .extents = extents, .priority = priority}, gca::linear_dram(gca::unbounded, 1),
                            threads);
}

/// The `lsa` family on the same problem: linear scan over the live ranges, best fit, no graph.
gca::coloring_result pack_lsa(const gca::dsa_problem& p) {
  const gca::live_range_table live = gca::to_live_ranges(p);
  std::vector<gca::extent> extents;
  for (const gca::dsa_buffer& b : p.buffers) extents.push_back({1, b.size});
  return gca::linear_scan(live, extents, {}, gca::linear_dram(gca::unbounded, 1));
}

void set_counters(benchmark::State& state, const gca::dsa_problem& p, std::uint64_t peak, std::uint64_t base,
                  std::uint64_t lower) {
  state.counters["buffers"] = static_cast<double>(p.buffers.size());
  state.counters["max_live"] = static_cast<double>(lower);
  state.counters["peak"] = static_cast<double>(peak);
  state.counters["baseline_peak"] = static_cast<double>(base);
  state.counters["over_max_live_pct"] = 100.0 * (static_cast<double>(peak) / static_cast<double>(lower) - 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path root = std::filesystem::path(GCA_DATA_DIR) / "dsa";
  std::vector<std::filesystem::path> files;
  for (const char* sub : {"traces", "challenging"})
    for (const auto& e : std::filesystem::directory_iterator(root / sub))
      if (e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // Our own options, removed before Google Benchmark sees the rest.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--trace" || a == "--threads") && i + 1 < argc) {
      if (a == "--trace") files.emplace_back(argv[++i]);
      else threads = static_cast<unsigned>(std::stoul(argv[++i]));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& f : files) {
    const auto p = std::make_shared<gca::dsa_problem>(gca::read_dsa_csv_file(f.string()));
    const std::uint64_t lower = gca::max_live(*p);
    const std::uint64_t base = gca_bench::baseline_best_fit(*p).peak;
    // Shared files are named by their folder (traces/, challenging/), --trace files as generated/.
    const bool shared = f.parent_path().parent_path() == root;
    const std::string name = (shared ? f.parent_path().filename().string() : std::string("generated")) + "/" +
                             f.stem().string();
    benchmark::RegisterBenchmark(("gca/" + name).c_str(), [p, lower, base](benchmark::State& state) {
      std::uint64_t peak = 0;
      std::string winner;
      for (auto _ : state) {
        const gca::coloring_result r = pack(*p);
        peak = r.peak;
        winner = gca::name(r.options);
        benchmark::DoNotOptimize(peak);
      }
      set_counters(state, *p, peak, base, lower);
      state.SetLabel(winner);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("lsa/" + name).c_str(), [p, lower, base](benchmark::State& state) {
      std::uint64_t peak = 0;
      for (auto _ : state) {
        peak = pack_lsa(*p).peak;
        benchmark::DoNotOptimize(peak);
      }
      set_counters(state, *p, peak, base, lower);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("baseline/" + name).c_str(), [p, lower, base](benchmark::State& state) {
      std::uint64_t peak = 0;
      for (auto _ : state) {
        peak = gca_bench::baseline_best_fit(*p).peak;
        benchmark::DoNotOptimize(peak);
      }
      set_counters(state, *p, peak, base, lower);
    })->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
