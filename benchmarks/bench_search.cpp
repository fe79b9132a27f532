// bench_search — the exact placement search (gca/engine/search.hpp) on tight 1-D problems. Two tables
// (docs/PERFORMANCE.md):
//   1. the shared "challenging" DSA files A-K (capacity 1,048,576): per file whether it fits, the peak,
//      the search time (median of `--repeat` runs, 3 by default), nodes and restarts, next to MiniMalloc's
//      published times (A-F); files given with `--extra FILE.CAP.csv` (the capacity in the name, MiniMalloc's
//      convention) are added to it;
//   2. planted instances (gca/io/planted_dsa.hpp: feasible by construction, at `--tightness`, 1.0 by
//      default): per family and size, over `--seeds` seeds (100 by default), the fit rate, median and
//      maximum time of the search, and the same for the best-of-n colorer alone (one thread), in the
//      same run. Sizes from `--sizes 20,50,100,200,300,500`, families from `--families` (all);
//      `--capacity-scale X` (>= 1) gives both X times the planted box's capacity.
// `--first-seed N` starts the seeds at N (1 by default: develop on other seeds than the published ones).
// `--baseline 1` also runs every instance with `valley_branching` off (the level-order search alone:
// the search before (f)) in the same run and prints its fits, median and maximum next to the new ones.
// `--threads N` (1 by default) is the search's `threads`: 1 runs its two lanes, (f) and the level order, in
// turns on one core, 2 at once on two (the same answers and node counts; engine/lanes.hpp).
// `--nodes N` limits each lane to N search nodes (node counts, unlike a deadline, do not depend on the
// machine); `--order-seed S` seeds the restarts' random orders, `--merge 1` turns on the hand-off
// presolve and `--random-orders 0` turns off the random orders (linear_search_options), to measure each.
// `--only challenging` or `--only planted` prints one table. Every run gets `--deadline-ms` (1000 by default). A fit is checked here by a pairwise overlap test
// that does not use the search, and a search claiming "infeasible" on a planted instance is reported
// as a bug (it cannot be: the planted placement exists).
//   ninja -C build -j2 benchmarks/bench-search && build/benchmarks/bench-search
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/search.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dsa_csv.hpp>
#include <gca/io/planted_dsa.hpp>

namespace {

bool valid(const gca::dsa_problem& p, const std::vector<std::uint64_t>& off, std::uint64_t cap) {
  if (off.size() != p.buffers.size()) return false;
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const gca::dsa_buffer& a = p.buffers[i];
    if (off[i] + a.size > cap) return false;
    for (std::size_t j = i + 1; j < p.buffers.size(); ++j) {
      const gca::dsa_buffer& b = p.buffers[j];
      if (a.lower < b.upper && b.lower < a.upper && off[i] < off[j] + b.size && off[j] < off[i] + a.size) return false;
    }
  }
  return true;
}

struct outcome {
  bool fits = false;
  bool claimed_infeasible = false;
  double seconds = 0;
  gca::search_result res;
};

struct prepared {
  gca::interference_graph g;
  std::vector<gca::extent> ext;
  std::vector<gca::interval> life;
  std::vector<double> priority;
  explicit prepared(const gca::dsa_problem& p) {
    const gca::live_range_table t = gca::to_live_ranges(p);
    g = gca::build_interference(t);
    for (gca::node_id v = 0; v < p.buffers.size(); ++v) {
      ext.push_back({1, p.buffers[v].size});
      life.push_back({p.buffers[v].lower, p.buffers[v].upper});
      priority.push_back(static_cast<double>(p.buffers[v].size) * static_cast<double>(t.live_length(v)));
    }
  }
};

unsigned search_threads = 1;  // --threads
gca::linear_search_options base_options;  // --nodes, --order-seed, --merge, --random-orders

outcome run_search(const gca::dsa_problem& p, const prepared& q, std::uint64_t cap, long deadline_ms,
                   bool valley = true) {
  outcome o;
  gca::linear_search_options so = base_options;
  so.valley_branching = valley;
  so.threads = search_threads;
  const auto t0 = std::chrono::steady_clock::now();
  so.deadline = t0 + std::chrono::milliseconds(deadline_ms);
  o.res = gca::search_placement(q.g, q.ext, q.life, gca::linear_dram(cap, 1), so);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.claimed_infeasible = o.res.status == gca::search_status::infeasible;
  if (o.res.found()) {
    std::vector<std::uint64_t> off;
    for (const gca::placement& pl : o.res.placements) off.push_back(pl.offset);
    o.fits = valid(p, off, cap);
  }
  return o;
}

outcome run_colorer(const gca::dsa_problem& p, const prepared& q, std::uint64_t cap) {
  outcome o;
  const auto t0 = std::chrono::steady_clock::now();
  const gca::coloring_problem prob{.graph = q.g, .extents = q.ext, .priority = q.priority};
  const gca::coloring_result r = gca::color_best_of(prob, gca::linear_dram(cap, 1), 1);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.complete()) {
    std::vector<std::uint64_t> off;
    for (const auto& pl : r.placements) off.push_back(pl->offset);
    o.fits = valid(p, off, cap);
  }
  return o;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::stringstream in{std::string(s)};
  for (std::string x; std::getline(in, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

double at(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

/// The command line (see the header for each option).
struct bench_args {
  int repeat = 3, seeds = 100, first_seed = 1;
  bool baseline = false;
  long deadline_ms = 1000;
  double tightness = 1.0, capacity_scale = 1.0;
  std::vector<std::string> sizes{"20", "50", "100", "200", "300", "500"}, families, extra;
  bool challenging = true, planted = true;
};

/// Parses the options into `a` (and the search options into base_options, search_threads); false, with
/// a message, on an unknown one.
bool parse_args(int argc, char** argv, bench_args& a) {
  for (gca::planted_family f : gca::all_planted_families) a.families.emplace_back(gca::to_string(f));
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view o = argv[i];
    const std::string_view v = argv[i + 1];
    if (o == "--repeat") a.repeat = std::max(1, std::atoi(v.data()));
    else if (o == "--deadline-ms") a.deadline_ms = std::max(1L, std::atol(v.data()));
    else if (o == "--seeds") a.seeds = std::max(1, std::atoi(v.data()));
    else if (o == "--first-seed") a.first_seed = std::atoi(v.data());
    else if (o == "--baseline") a.baseline = std::atoi(v.data()) != 0;
    else if (o == "--tightness") a.tightness = std::atof(v.data());
    else if (o == "--capacity-scale") a.capacity_scale = std::max(1.0, std::atof(v.data()));
    else if (o == "--sizes") a.sizes = split(v);
    else if (o == "--families") a.families = split(v);
    else if (o == "--extra") a.extra.emplace_back(v);
    else if (o == "--nodes") base_options.node_limit = std::strtoull(v.data(), nullptr, 10);
    else if (o == "--order-seed") base_options.order_seed = std::strtoull(v.data(), nullptr, 10);
    else if (o == "--merge") base_options.merge_handoffs = std::atoi(v.data()) != 0;
    else if (o == "--random-orders") base_options.random_orders = std::atoi(v.data()) != 0;
    else if (o == "--threads") search_threads = static_cast<unsigned>(std::max(1, std::atoi(v.data())));
    else if (o == "--only") a.challenging = v == "challenging", a.planted = v == "planted";
    else {
      std::fprintf(stderr, "bench-search: unknown option %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

/// The challenging files (and --extra ones): one row each (two with --baseline).
void bench_challenging(const bench_args& a) {
  const int repeat = a.repeat;
  const long deadline_ms = a.deadline_ms;
  const bool baseline = a.baseline;
  struct row {
    std::string path, name;
    double minimalloc_s;
  };
  std::vector<row> rows;
  const std::pair<const char*, double> shared[] = {{"A", 4.4}, {"B", 3.4}, {"C", 0.6}, {"D", 2.5}, {"E", 3.3}, {"F", 4.6},
                                                   {"G", 0}, {"H", 0},   {"I", 0},   {"J", 0},   {"K", 0}};
  for (const auto& [n, t] : shared)
    rows.push_back({std::string(GCA_DATA_DIR) + "/dsa/challenging/" + n + ".1048576.csv",
                    std::string("challenging/") + n + ".1048576", t});
  for (const std::string& e : a.extra) rows.push_back({e, e.substr(e.find_last_of('/') + 1), 0});
  std::printf("search threads: %u\n\n", search_threads);
  std::printf("| file | buffers | max-live | fits | peak | search time | nodes | restarts | MiniMalloc time |\n");
  std::printf("|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
  for (const row& r : rows) {
    const gca::dsa_problem p = gca::read_dsa_csv_file(r.path);
    std::uint64_t cap = 1048576;
    const std::string base = r.path.substr(r.path.find_last_of('/') + 1);
    if (const auto d1 = base.find('.'), d2 = base.rfind('.'); d1 != d2) cap = std::stoull(base.substr(d1 + 1, d2 - d1 - 1));
    const prepared q(p);
    std::vector<double> times;
    outcome o;
    for (bool valley : baseline ? std::vector<bool>{false, true} : std::vector<bool>{true}) {
      times.clear();
      for (int k = 0; k < repeat; ++k) {
        o = run_search(p, q, cap, deadline_ms, valley);
        times.push_back(o.seconds);
      }
      std::printf("| %s%s | %zu | %llu | %s | %s | %.3f s | %llu | %llu | %s |\n", r.name.c_str(),
                  baseline ? (valley ? " (f)" : " before") : "", p.buffers.size(),
                  static_cast<unsigned long long>(gca::max_live(p)),
                  o.fits ? "yes" : (o.res.found() ? "INVALID" : o.claimed_infeasible ? "no (infeasible)" : "no (gave up)"),
                  o.fits ? std::to_string(o.res.peak).c_str() : "-", at(times, 0.5),
                  static_cast<unsigned long long>(o.res.stats.nodes), static_cast<unsigned long long>(o.res.stats.rounds),
                  r.minimalloc_s > 0 ? (std::to_string(r.minimalloc_s).substr(0, 3) + " s").c_str() : "-");
      std::fflush(stdout);
    }
  }
}

/// The planted families: one row per family and size; false when a family is unknown.
bool bench_planted(const bench_args& a) {
  const int seeds = a.seeds, first_seed = a.first_seed;
  const long deadline_ms = a.deadline_ms;
  const bool baseline = a.baseline;
  const double tightness = a.tightness, capacity_scale = a.capacity_scale;
  std::printf("\nplanted instances: tightness %.2f, capacity x %.4f, seeds %d..%d, deadline %ld ms per run, search threads %u\n\n",
              tightness, capacity_scale, first_seed, first_seed + seeds - 1, deadline_ms, search_threads);
  if (baseline) {
    std::printf("| family | buffers | before fits | median | max | search fits | median | max | colorer fits | median | max |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf("| family | buffers | search fits | median | max | colorer fits | median | max |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  for (const std::string& fam : a.families) {
    const auto f = gca::parse_planted_family(fam);
    if (!f) {
      std::fprintf(stderr, "bench-search: unknown family %s\n", fam.c_str());
      return false;
    }
    for (const std::string& sz : a.sizes) {
      const std::size_t n = std::stoul(sz);
      int sfit = 0, cfit = 0, bfit = 0, bugs = 0;
      std::vector<double> st, ct, bt;
      std::size_t actual = 0;
      for (int s = first_seed; s < first_seed + seeds; ++s) {
        const gca::planted_dsa d = gca::make_planted_dsa(
            {.family = *f, .buffers = n, .seed = static_cast<std::uint64_t>(s), .tightness = tightness});
        actual += d.problem.buffers.size();
        const prepared q(d.problem);
        // --capacity-scale: more room than the planted box (a planted instance stays feasible).
        const auto cap = static_cast<std::uint64_t>(static_cast<double>(d.capacity) * capacity_scale);
        if (baseline) {
          const outcome bo = run_search(d.problem, q, cap, deadline_ms, false);
          bfit += bo.fits;
          bugs += bo.claimed_infeasible || (bo.res.found() && !bo.fits);
          bt.push_back(bo.seconds);
        }
        const outcome so = run_search(d.problem, q, cap, deadline_ms);
        const outcome co = run_colorer(d.problem, q, cap);
        sfit += so.fits;
        cfit += co.fits;
        bugs += so.claimed_infeasible || (so.res.found() && !so.fits);
        st.push_back(so.seconds);
        ct.push_back(co.seconds);
      }
      std::printf("| %s | %zu |", fam.c_str(), actual / static_cast<std::size_t>(seeds));
      if (baseline) std::printf(" %d/%d | %.3f s | %.3f s |", bfit, seeds, at(bt, 0.5), at(bt, 1.0));
      std::printf(" %d/%d | %.3f s | %.3f s | %d/%d | %.3f s | %.3f s |%s\n", sfit, seeds, at(st, 0.5), at(st, 1.0), cfit, seeds,
                  at(ct, 0.5), at(ct, 1.0), bugs ? " BUG: a wrong answer" : "");
      std::fflush(stdout);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bench_args a;
  if (!parse_args(argc, argv, a)) return 1;
  if (a.challenging) bench_challenging(a);
  if (a.planted && !bench_planted(a)) return 1;
  return 0;
}
