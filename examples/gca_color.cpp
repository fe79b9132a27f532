// gca-color — colors a DIMACS graph with the register geometry (the REG colorer of gca).
//
//   gca-color [--registers K] [-o OUT] FILE.col
//
// Without --registers the register file is unbounded and the result is the number of colors gca's
// Chaitin–Briggs colorer needs (best-of-n over its simplify orders). Prints
//   vertices=N edges=E colors=C spilled=S
// on stdout; OUT gets one `vertex color` line per vertex (1-based vertex, 0-based color, -1 if spilled).
// Exit status: 0 done (spilled vertices are a result, not an error), 1 bad input or usage.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/error.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dimacs.hpp>

namespace {

int usage(const char* why) {
  std::cerr << "gca-color: " << why << "\nusage: gca-color [--registers K] [-o OUT] FILE.col\n";
  return 1;
}

std::optional<std::uint64_t> number(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t k = gca::unbounded;
  std::string out_path, in_path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--registers") {
      const auto n = i + 1 < argc ? number(argv[++i]) : std::nullopt;
      if (!n || *n == 0) return usage("--registers needs a positive integer");
      k = *n;
    } else if (a == "-o") {
      if (i + 1 >= argc) return usage("-o needs a file name");
      out_path = argv[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option");
    } else if (in_path.empty()) {
      in_path = std::string(a);
    } else {
      return usage("more than one input file");
    }
  }
  if (in_path.empty()) return usage("no input file");

  gca::dimacs_graph d;
  try {
    d = gca::read_dimacs_file(in_path);
  } catch (const gca::parse_error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  const gca::interference_graph g = gca::build_interference(d.vertices, d.edges);
  const std::vector<gca::extent> extents(d.vertices, gca::extent{1, 4});
  const gca::coloring_problem problem{.graph = g, .extents = extents};
  const gca::coloring_result r = gca::color_best_of(problem, gca::registers(k));

  std::cout << "vertices=" << g.num_nodes() << " edges=" << g.num_edges() << " colors=" << r.peak
            << " spilled=" << r.unplaced.size() << '\n';
  if (!out_path.empty()) {
    std::ofstream out(out_path);
    for (std::size_t v = 0; v < r.placements.size(); ++v) {
      out << v + 1 << ' ';
      if (r.placements[v]) {
        out << r.placements[v]->offset << '\n';
      } else {
        out << "-1\n";
      }
    }
    out.flush();
    if (!out) {
      std::cerr << "gca-color: cannot write " << out_path << '\n';
      return 1;
    }
  }
  return 0;
}
