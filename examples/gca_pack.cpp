// gca-pack — packs a DSA problem (buffers with lifetimes and sizes) into one linear address space.
//
//   gca-pack [--capacity BYTES] [--alignment A] [--search] [--search-ms MS] [--search-nodes N] [--threads T]
//            [--search-max-pairs P] [--interference auto|graph|intervals] [-o OUT.csv] IN.csv
//
// Reads `id,lower,upper,size[,alignment]` (half-open lifetimes), packs it with gca::pack (gca/pack.hpp:
// the interference representation `--interference` chooses, best-of-n coloring with the classical
// size-descending best fit among the variants, the peak repack past 0.5 % over max-live, then the exact
// search when --capacity is given and the coloring does not fit, or always with --search) and writes
// `id,lower,upper,size,offset` in input order to OUT or stdout. Prints one summary line on stderr:
//          buffers=N max_live=L peak=P capacity=C fits=yes|no nodes=S time_ms=T search=R
//          interference=graph|intervals
// where P is the placement's highest end, or none when nothing fits (a partial coloring's peak says
// nothing of what fits), R is the exact search's answer: found, infeasible (proven: no placement within the capacity, or
// within max-live without --capacity, exists), gave-up (its time or node budget ran out), skipped (it was
// due but did not run: more interfering pairs than --search-max-pairs P, 2^22 by default, since it builds
// the interference graph; "does not fit" is then no proof), or off; a capacity below max-live is
// infeasible without a search. For infeasible-without-a-search and skipped one more line on stderr says
// why. `nodes` counts the search's placements (0 when it did not run); MS is the search's budget (2000 by
// default), --search-nodes N its node budget (deterministic, unlike the time budget).
// Exit status: 0 fits (or no capacity), 3 does not fit (nothing written), 1 bad input or usage.
// --threads T runs the best-of-n variants on T threads (0, the default: one per hardware thread), and
// with T >= 2 the search's two lanes at once (gca/engine/lanes.hpp); the result does not depend on T.
// Per-buffer alignments are honored by aligning every buffer to the least common multiple of them and
// --alignment (exact for the usual powers of two, conservative otherwise).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gca/error.hpp>
#include <gca/io/dsa_csv.hpp>
#include <gca/pack.hpp>

namespace {

int usage(const char* why) {
  std::cerr << "gca-pack: " << why << "\n"
            << "usage: gca-pack [--capacity BYTES] [--alignment A] [--search] [--search-ms MS] [--search-nodes N]\n"
               "                [--threads T] [--search-max-pairs P] [--interference auto|graph|intervals] [-o OUT.csv] IN.csv\n";
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

/// The command line: the packing's options and the files.
struct cli {
  gca::pack_options opt;
  std::string out_path, in_path, interference = "auto";
};

/// Reads the command line into `c`. Returns an exit status when the run ends here (--help, bad usage).
std::optional<int> parse_args(int argc, char** argv, cli& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string_view(argv[++i]);
    };
    if (a == "--search") {
      c.opt.search = true;
    } else if (a == "--search-ms") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n) return usage("--search-ms needs a non-negative integer");
      c.opt.search_time = std::chrono::milliseconds(*n);
    } else if (a == "--search-nodes") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n == 0) return usage("--search-nodes needs a positive integer");
      c.opt.search_nodes = *n;
    } else if (a == "--search-max-pairs") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n) return usage("--search-max-pairs needs a non-negative integer");
      c.opt.search_max_pairs = *n;
    } else if (a == "--threads") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n > 1024) return usage("--threads needs an integer from 0 to 1024");
      c.opt.threads = static_cast<unsigned>(*n);
    } else if (a == "--capacity" || a == "--alignment") {
      const auto v = value();
      const auto n = v ? number(*v) : std::nullopt;
      if (!n || *n == 0) return usage(a == "--capacity" ? "--capacity needs a positive integer"
                                                         : "--alignment needs a positive integer");
      if (a == "--capacity") {
        c.opt.capacity = n;
      } else {
        c.opt.alignment = *n;
      }
    } else if (a == "--interference") {
      const auto v = value();
      if (!v || (*v != "auto" && *v != "graph" && *v != "intervals"))
        return usage("--interference needs auto, graph or intervals");
      c.interference = std::string(*v);
    } else if (a == "-o") {
      const auto v = value();
      if (!v) return usage("-o needs a file name");
      c.out_path = std::string(*v);
    } else if (a == "-h" || a == "--help") {
      usage("packs buffers into one address space");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option");
    } else if (c.in_path.empty()) {
      c.in_path = std::string(a);
    } else {
      return usage("more than one input file");
    }
  }
  return std::nullopt;
}

/// Writes `id,lower,upper,size,offset` in input order to `path`, or stdout when it is empty; the exit status.
int write_solution(const std::string& path, const gca::dsa_problem& p, const std::vector<std::uint64_t>& offsets) {
  if (path.empty()) {
    gca::write_dsa_solution(std::cout, p, offsets);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream out(path);
  if (!out) {
    std::cerr << "gca-pack: cannot write " << path << '\n';
    return 1;
  }
  gca::write_dsa_solution(out, p, offsets);
  out.flush();
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  cli c;
  if (const std::optional<int> status = parse_args(argc, argv, c)) return *status;
  if (c.in_path.empty()) return usage("no input file");

  const auto t0 = std::chrono::steady_clock::now();
  gca::dsa_problem p;
  try {
    p = gca::read_dsa_csv_file(c.in_path);
  } catch (const gca::parse_error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  c.opt.interference = c.interference == "graph"       ? gca::pack_interference::graph
                       : c.interference == "intervals" ? gca::pack_interference::intervals
                                                       : gca::pack_interference::automatic;
  gca::pack_result r;
  try {
    r = gca::pack(p, c.opt);
  } catch (const gca::pack_error& e) {
    std::cerr << c.in_path << ':' << e.line() << ": error: " << e.what() << '\n';
    return 1;
  }
  // "gave-up" (one word) keeps the key=value line splittable on spaces.
  const std::string search_status = !r.search && !r.search_note.empty()       ? "skipped"
                                    : !r.search                                ? "off"
                                    : *r.search == gca::search_status::gave_up ? "gave-up"
                                                                               : std::string(gca::to_string(*r.search));
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::cerr << "buffers=" << p.buffers.size() << " max_live=" << r.max_live << " peak=" << (r.fits ? std::to_string(r.peak) : std::string("none"))
            << " capacity=" << (c.opt.capacity ? std::to_string(*c.opt.capacity) : std::string("none"))
            << " fits=" << (r.fits ? "yes" : "no") << " nodes=" << r.search_nodes
            << " time_ms=" << static_cast<std::uint64_t>(ms + 0.5) << " search=" << search_status
            << " interference=" << (r.used_intervals ? "intervals" : "graph") << '\n';
  if (!r.search_note.empty()) std::cerr << "gca-pack: " << r.search_note << '\n';
  if (!r.fits) return 3;

  return write_solution(c.out_path, p, r.offsets);
}
