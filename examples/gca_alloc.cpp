// gca-alloc — the main command-line driver: allocate a kernel written in the text format.
//
//   gca-alloc [-O1|-O2|-O3|-O6|-O7] [--smt-allocation] [--no-placement-search]
//             [--target trn1|trn2|trn3] [--disable-dram-allocation]
//             [--disable-dram-rotation] [--memory-analysis-after PASS,...] [--print-pipeline]
//             [--emit-ir FILE] [--json FILE] [--svg FILE] [--verify] [--timeout SECONDS] [-v]
//             [--allocator coloring|lsa] [--threads N] [--search-max-pairs P] [--search-nodes N] FILE.gca
//   gca-alloc --check FILE     parse and run the static def/use check only
//   gca-alloc --print FILE     print the canonical form only
//
// Runs the pre-codegen pipeline of the optlevel (default 2), then the post-link pipeline, skipping the
// passes gca does not implement (one line each under -v). Exit status: 0 done, 1 bad input or usage,
// 2 watchdog ("GCA is taking too long"), 3 allocation impossible. --threads N bounds the threads the
// allocators use (0, the default: one per hardware thread); the output does not depend on it.
// -O7 (forced by --smt-allocation) runs the -O2 schedule with SB and PSUM placed by the exact placement
// search first (coloring is the fallback) and local and debug DRAM's colored peak lowered by the 1-D exact
// search (spill/dram_peak.hpp), and prints, per space, which placed it and what was proved. --no-placement-search
// turns the search off (the colorer alone, as before it existed; for comparisons). --search-max-pairs P:
// a search whose problem has more than P interfering pairs does not run (search_options::max_pairs).
// --search-nodes N: the placement search's first round in a space gets N nodes (1,000,000 by default) and
// the space 3 N in all (search_options::nodes, total_nodes): more finds spill-free placements that the
// default gives up on, at their cost in time (docs/ALLOCATOR.md, "The search's budget").
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gca/gca.hpp>

#include "report_writers.hpp"

namespace {

int usage(std::ostream& os) {
  os << "usage: gca-alloc [-O1|-O2|-O3|-O6|-O7] [--smt-allocation] [--no-placement-search]\n"
        "                 [--target trn1|trn2|trn3] [--disable-dram-allocation]\n"
        "                 [--disable-dram-rotation] [--memory-analysis-after PASS,...] [--print-pipeline]\n"
        "                 [--emit-ir FILE] [--json FILE] [--svg FILE] [--verify] [--timeout SECONDS] [-v]\n"
        "                 [--allocator coloring|lsa] [--threads N] [--search-max-pairs P] [--search-nodes N]\n"
        "                 FILE.gca\n"
        "       gca-alloc --check FILE.gca\n"
        "       gca-alloc --print FILE.gca\n";
  return 1;
}

struct cli {
  gca::pipeline_config pipeline;
  std::string target, emit_ir, json, svg, file;
  bool print_pipeline = false, verify = false, verbose = false, check_only = false, print_only = false;
  bool smt = false;        // --smt-allocation: forces optlevel 7
  bool no_search = false;  // --no-placement-search: the colorer alone (for comparisons)
  double timeout = 2700;
  unsigned threads = 0;
  std::optional<std::uint64_t> max_pairs;  // --search-max-pairs (search_options::max_pairs)
  std::optional<std::uint64_t> search_nodes;  // --search-nodes (search_options::nodes, total_nodes)
};

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

/// The -O7 verdict of one DRAM space (spill/dram_peak.hpp computes it; this only words it).
void print_peak_search(const gca::space_report& sr) {
  if (!sr.peak_search) {
    std::cerr << "coloring fallback (peak " << sr.peak << "; the exact search does not run on "
              << (sr.space == gca::address_space::shared ? "shared DRAM" : "this space") << ")\n";
    return;
  }
  const gca::peak_search_report& p = *sr.peak_search;
  const std::string bound = "lower bound " + std::to_string(p.lower_bound);
  const std::string nodes = std::to_string(p.nodes) + " search nodes";
  switch (p.verdict) {
    case gca::peak_verdict::proven_optimal:
      std::cerr << "proven optimal (";
      if (p.peak < p.coloring_peak) std::cerr << "exact search lowered the peak from " << p.coloring_peak << " to " << p.peak;
      else std::cerr << "coloring's peak " << p.peak;
      if (p.peak <= p.lower_bound) std::cerr << " = " << bound;
      else std::cerr << "; the search proved " << p.peak - 1 << " infeasible, " << bound;
      std::cerr << ", " << nodes << ")\n";
      return;
    case gca::peak_verdict::feasible:
      std::cerr << "feasible (exact search lowered the peak from " << p.coloring_peak << " to " << p.peak << ", "
                << nodes << "; " << bound << ")\n";
      return;
    case gca::peak_verdict::coloring_fallback:
      std::cerr << "coloring fallback (peak " << p.peak << "; " << p.note << ", " << nodes << "; " << bound << ")\n";
      return;
  }
}

/// v as a whole decimal count in [lo, hi] (no sign); nothing otherwise.
std::optional<unsigned long long> count_in(const std::string& v, unsigned long long lo, unsigned long long hi) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0' || v[0] == '-' || n < lo || n > hi) return std::nullopt;
  return n;
}

/// Reads the command line into `c`. Returns an exit status when the run ends here (--help, bad usage).
std::optional<int> parse_args(int argc, char** argv, cli& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "gca-alloc: " << a << " needs " << what << '\n';
        std::exit(usage(std::cerr));
      }
      return argv[++i];
    };
    if (a == "-O1" || a == "-O2" || a == "-O3" || a == "-O4" || a == "-O5" || a == "-O6" || a == "-O7") {
      c.pipeline.optlevel = a[2] - '0';
    } else if (a == "--smt-allocation") {
      c.smt = true;
    } else if (a == "--no-placement-search") {
      c.no_search = true;
    } else if (a == "--target") {
      c.target = value("a target");
    } else if (a == "--disable-dram-allocation") {
      c.pipeline.disable_dram_allocation = true;
    } else if (a == "--disable-dram-rotation") {
      c.pipeline.disable_dram_rotation = true;
    } else if (a == "--memory-analysis-after") {
      std::stringstream ss(value("a list of passes"));
      for (std::string p; std::getline(ss, p, ',');)
        if (!p.empty()) c.pipeline.memory_analysis_after.insert(p);
    } else if (a == "--allocator") {
      c.pipeline.allocator = value("an allocator family");
    } else if (a == "--print-pipeline") {
      c.print_pipeline = true;
    } else if (a == "--emit-ir") {
      c.emit_ir = value("a file");
    } else if (a == "--json") {
      c.json = value("a file");
    } else if (a == "--svg") {
      c.svg = value("a file");
    } else if (a == "--verify") {
      c.verify = true;
    } else if (a == "--timeout") {
      const std::string v = value("seconds");
      char* end = nullptr;
      c.timeout = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(c.timeout > 0)) {
        std::cerr << "gca-alloc: --timeout needs a positive number of seconds, not '" << v << "'\n";
        return usage(std::cerr);
      }
    } else if (a == "--threads") {
      const std::string v = value("a number");
      const auto n = count_in(v, 0, 1024);
      if (!n) {
        std::cerr << "gca-alloc: --threads needs a number from 0 to 1024, not '" << v << "'\n";
        return usage(std::cerr);
      }
      c.threads = static_cast<unsigned>(*n);
    } else if (a == "--search-max-pairs") {
      const std::string v = value("a number");
      const auto n = count_in(v, 0, std::numeric_limits<unsigned long long>::max());
      if (!n) {
        std::cerr << "gca-alloc: --search-max-pairs needs a number of pairs, not '" << v << "'\n";
        return usage(std::cerr);
      }
      c.max_pairs = *n;
    } else if (a == "--search-nodes") {
      const std::string v = value("a number");
      c.search_nodes = count_in(v, 1, 1ull << 40);
      if (!c.search_nodes) {
        std::cerr << "gca-alloc: --search-nodes needs a number of search nodes from 1 to 2^40, not '" << v << "'\n";
        return usage(std::cerr);
      }
    } else if (a == "-v") {
      c.verbose = true;
    } else if (a == "--check") {
      c.check_only = true;
    } else if (a == "--print") {
      c.print_only = true;
    } else if (a == "-h" || a == "--help") {
      usage(std::cout);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "gca-alloc: unknown option '" << a << "'\n";
      return usage(std::cerr);
    } else if (c.file.empty()) {
      c.file = a;
    } else {
      std::cerr << "gca-alloc: more than one input file\n";
      return usage(std::cerr);
    }
  }
  return std::nullopt;
}

/// The input module with --target applied, validated again (target rules, shared buffers across
/// functions). Prints why and returns nothing when it cannot be read.
std::optional<gca::module> load(const cli& c) {
  try {
    gca::module m = gca::parse_file(c.file);
    if (!c.target.empty()) {
      auto t = gca::find_target(c.target);
      if (!t) {
        std::cerr << "gca-alloc: unknown target '" << c.target << "' (known: trn1, trn2, trn3)\n";
        return std::nullopt;
      }
      m.tgt = *t;
    }
    gca::validate(m);
    return m;
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return std::nullopt;
  }
}

/// The static def/use check of every function; prints each failure.
bool statically_ok(const cli& c, const gca::module& m) {
  bool ok = true;
  for (const gca::function& f : m.functions) {
    const auto r = gca::static_check(f);
    if (!r.ok()) {
      std::cerr << r.message(f, c.file);
      ok = false;
    }
  }
  return ok;
}

/// The passes' options from the command line.
gca::pass_options pass_options_of(const cli& c) {
  gca::pass_options popt;
  popt.alloc.timeout_seconds = c.timeout;
  popt.alloc.threads = c.threads;
  if (c.pipeline.allocator == "lsa") popt.alloc.engine = gca::engine_kind::linear_scan;
  popt.alloc.search.primary = c.pipeline.optlevel == 7;
  popt.alloc.search.enabled = !c.no_search;
  if (c.max_pairs) popt.alloc.search.max_pairs = *c.max_pairs;
  if (c.search_nodes) popt.alloc.search.nodes = *c.search_nodes, popt.alloc.search.total_nodes = 3 * *c.search_nodes;
  popt.log = c.verbose ? &std::cerr : nullptr;
  return popt;
}

/// Runs `all` pass by pass, so that a long run reports progress on stderr: once the run has taken more
/// than a second (from `start`), every pass that ran prints one line with its time. Returns the exit
/// status of a failure (2 watchdog, 3 allocation, 1 anything else), after its message.
std::optional<int> run_passes(gca::module& m, const std::vector<std::string>& all, const gca::pass_options& popt,
                              const gca::run_options& ropt, std::chrono::steady_clock::time_point start,
                              std::vector<gca::pass_report>& reports) {
  try {
    const gca::pass_registry reg = gca::default_registry();
    for (std::size_t k = 0; k < all.size(); ++k) {
      const auto pass_start = std::chrono::steady_clock::now();
      const std::vector<std::string> one{all[k]};
      for (auto& r : gca::run_pipeline(m, one, reg, popt, ropt)) reports.push_back(std::move(r));
      const auto now = std::chrono::steady_clock::now();
      if (reg.contains(all[k]) && now - start > std::chrono::seconds(1))
        std::cerr << "gca-alloc: [" << k + 1 << "/" << all.size() << "] " << all[k] << " "
                  << static_cast<long>(std::chrono::duration<double, std::milli>(now - pass_start).count())
                  << " ms\n";
    }
  } catch (const gca::timeout_error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const gca::allocation_error& e) {
    std::cerr << "gca-alloc: " << e.what() << '\n';
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "gca-alloc: " << e.what() << '\n';
    return 1;
  }
  return std::nullopt;
}

/// --emit-ir, --json, --svg. False, after the message, when a file cannot be written.
bool write_outputs(const cli& c, const gca::module& m, const std::vector<gca::pass_report>& reports) {
  auto write = [](const std::string& path, const std::string& text) {
    if (write_file(path, text)) return true;
    std::cerr << "gca-alloc: cannot write " << path << '\n';
    return false;
  };
  return (c.emit_ir.empty() || write(c.emit_ir, gca::print(m))) &&
         (c.json.empty() || write(c.json, gca_tools::json_report(m, reports))) &&
         (c.svg.empty() || write(c.svg, gca_tools::svg_memory_map(m)));
}

/// The summary line; at -O7 one line per SB/PSUM/DRAM space: who placed it, and what the search answered.
void print_summary(const cli& c, const gca::module& m, const std::vector<gca::pass_report>& reports,
                   const gca::pass_options& popt, double ms) {
  std::size_t spilled = 0;
  for (const auto& r : reports)
    for (const auto& [fn, sr] : r.functions) spilled += sr.spills.spilled_webs;
  std::cerr << c.file << ": allocated " << m.functions.size() << " functions at -O" << c.pipeline.optlevel
            << " on " << m.tgt.name << ", " << spilled << " webs spilled, " << static_cast<long>(ms) << " ms\n";
  // Whether each SB/PSUM spill was needed: a spill after the search gave up is not a proof.
  for (const auto& r : reports)
    for (const auto& [fn, sr] : r.functions) {
      if (sr.spills.spilled_webs == 0 || (sr.memory != gca::memory_type::sb && sr.memory != gca::memory_type::psum)) continue;
      std::cerr << "gca-alloc: " << r.pass << ": function '" << fn << "': " << gca::log_name(m.tgt, sr.memory) << ": "
                << sr.spills.spilled_webs << " webs spilled; ";
      if (!popt.alloc.search.enabled) std::cerr << "the placement search was off\n";
      else if (sr.search_outcome == gca::to_string(gca::search_status::infeasible)) std::cerr << "no spill-free placement exists (proved by the placement search)\n";
      else if (sr.search_outcome == gca::to_string(gca::search_status::gave_up))
        std::cerr << "the placement search gave up on a spill-free placement (" << sr.search_nodes
                  << " search nodes in all" << (sr.search_skipped.empty() ? "" : "; one search did not run: " + sr.search_skipped)
                  << "): one may exist\n";
      else std::cerr << "the placement search did not run (its budget was spent)\n";
    }
  if (c.pipeline.optlevel != 7) return;
  for (const auto& r : reports)
    for (const auto& [fn, sr] : r.functions) {
      if (sr.memory == gca::memory_type::reg) continue;
      std::cerr << "smt-allocation: " << r.pass << ": function '" << fn << "': " << gca::log_name(m.tgt, sr.memory) << ": ";
      if (!popt.alloc.search.enabled) std::cerr << "coloring fallback (search off)\n";
      else if (sr.memory == gca::memory_type::dram) print_peak_search(sr);
      else if (sr.placed_by == "exact search") std::cerr << "feasible (exact search, " << sr.search_nodes << " search nodes)\n";
      else if (sr.placed_by == "linear scan") std::cerr << "feasible (linear scan placed it; no search needed)\n";
      else std::cerr << "coloring fallback (the exact search " << (sr.search_outcome.empty() ? "was not needed" : sr.search_outcome) << ", " << sr.search_nodes << " search nodes)\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
  cli c;
  if (const std::optional<int> status = parse_args(argc, argv, c)) return *status;
  std::vector<std::string> schedule;
  try {
    schedule = gca::build_pipeline(c.pipeline);
  } catch (const gca::input_error& e) {
    std::cerr << "gca-alloc: " << e.what() << '\n';
    return 1;
  }
  const std::vector<std::string> post_link = gca::build_post_link_pipeline();
  if (c.print_pipeline) {
    for (const auto& p : schedule) std::cout << p << '\n';
    for (const auto& p : post_link) std::cout << p << '\n';
    return 0;
  }
  if (c.smt) c.pipeline.optlevel = 7;
  if (c.file.empty()) return usage(std::cerr);

  std::optional<gca::module> loaded = load(c);
  if (!loaded) return 1;
  gca::module& m = *loaded;
  if (c.print_only) {
    gca::print(std::cout, m);
    return 0;
  }
  if (!statically_ok(c, m)) return 1;
  if (c.check_only) {
    std::cout << c.file << ": ok (" << m.functions.size() << " functions)\n";
    return 0;
  }

  // --verify checks the allocation against the original (the two-program form); copied only then.
  const gca::module original = c.verify ? m : gca::module{};
  const gca::pass_options popt = pass_options_of(c);
  const gca::run_options ropt{true, c.verbose ? &std::cerr : nullptr};
  std::vector<std::string> all = schedule;
  all.insert(all.end(), post_link.begin(), post_link.end());
  std::vector<gca::pass_report> reports;
  const auto start = std::chrono::steady_clock::now();
  if (const std::optional<int> status = run_passes(m, all, popt, ropt, start, reports)) return *status;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (c.verbose && popt.alloc.cache) {  // what the passes shared (pass_cache, engine/space_colorer.hpp)
    const auto n = popt.alloc.cache->liveness.count();
    const auto d = popt.alloc.cache->interval_counts();
    std::cerr << "shared: liveness computed " << n.computed << " times, reused " << n.reused
              << " times; DRAM interval colorings computed " << d.computed << ", reused " << d.reused << '\n';
  }

  int status = 0;
  if (c.verify) {
    const gca::translation_report v = gca::verify(original, m, {.linked = true});
    if (v.ok()) {
      std::cerr << "verify: ok\n";
    } else {
      std::cerr << "verify: FAILED\n" << v.message();
      status = 3;
    }
  }
  if (!write_outputs(c, m, reports)) return 1;
  print_summary(c, m, reports, popt, ms);
  if (c.emit_ir.empty() && c.json.empty() && c.svg.empty()) gca::print(std::cout, m);
  return status;
}
