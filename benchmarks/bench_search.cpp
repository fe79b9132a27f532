// bench_search — the exact placement search (gca/engine/search.hpp) on the shared "challenging" DSA files
// (capacity 1,048,576, almost no slack). Prints the markdown table of docs/PERFORMANCE.md: per file
// whether it fits, the peak, the search time (median of `--repeat` runs, 3 by default), the nodes explored
// and the restarts, next to MiniMalloc's published times. Each run gets `--deadline-ms` (2000 by default).
// The placement is checked here with its own pairwise overlap test, not by the search's claim.
//   ninja -C build -j2 benchmarks/bench-search && build/benchmarks/bench-search
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <gca/engine/search.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dsa_csv.hpp>

int main(int argc, char** argv) {
  int repeat = 3;
  long deadline_ms = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--deadline-ms") deadline_ms = std::max(1L, std::atol(argv[i + 1]));
  }
  struct row {
    const char* name;
    double minimalloc_s;
  };
  const row rows[] = {{"A", 4.4}, {"B", 3.4}, {"C", 0.6}, {"D", 2.5}, {"E", 3.3}, {"F", 4.6}};
  const std::uint64_t cap = 1048576;
  std::printf("| file | buffers | max-live | fits | peak | search time | nodes | restarts | MiniMalloc time |\n");
  std::printf("|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
  for (const row& r : rows) {
    const std::string path = std::string(GCA_DATA_DIR) + "/dsa/challenging/" + r.name + ".1048576.csv";
    const gca::dsa_problem p = gca::read_dsa_csv_file(path);
    const gca::interference_graph g = gca::build_interference(gca::to_live_ranges(p));
    std::vector<gca::extent> ext;
    std::vector<gca::interval> life;
    for (const gca::dsa_buffer& b : p.buffers) {
      ext.push_back({1, b.size});
      life.push_back({b.lower, b.upper});
    }
    std::vector<double> times;
    gca::search_result res;
    for (int k = 0; k < repeat; ++k) {
      gca::search_options o;
      const auto t0 = std::chrono::steady_clock::now();
      o.deadline = t0 + std::chrono::milliseconds(deadline_ms);
      res = gca::search_placement(g, ext, life, gca::linear_dram(cap, 1), o);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    bool ok = res.found();
    for (std::size_t i = 0; ok && i < p.buffers.size(); ++i) {
      const gca::dsa_buffer& a = p.buffers[i];
      if (res.placements[i].offset + a.size > cap) ok = false;
      for (std::size_t j = i + 1; ok && j < p.buffers.size(); ++j) {
        const gca::dsa_buffer& b = p.buffers[j];
        const std::uint64_t oa = res.placements[i].offset, ob = res.placements[j].offset;
        if (a.lower < b.upper && b.lower < a.upper && oa < ob + b.size && ob < oa + a.size) ok = false;
      }
    }
    std::printf("| challenging/%s.1048576 | %zu | %llu | %s | %s | %.3f s | %llu | %llu | %.1f s |\n", r.name,
                p.buffers.size(), static_cast<unsigned long long>(gca::max_live(p)),
                ok ? "yes" : (res.found() ? "INVALID" : "no (gave up)"),
                ok ? std::to_string(res.peak).c_str() : "-", times[times.size() / 2],
                static_cast<unsigned long long>(res.stats.nodes), static_cast<unsigned long long>(res.stats.rounds),
                r.minimalloc_s);
  }
  return 0;
}
