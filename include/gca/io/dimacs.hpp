// gca/io/dimacs.hpp — reading graph-coloring instances in the DIMACS format.
//
// Provides `dimacs_graph` and `read_dimacs` / `read_dimacs_file`: `c` comment lines, one `p edge N E`
// (or `p col N E`) line, then `e u v` lines with 1-based vertices. Edges are returned 0-based, as read
// (duplicates and self loops are left to build_interference, which drops them). The declared edge count
// E is kept but not enforced: published instances disagree with it often enough. Malformed input throws
// gca::parse_error whose what() is "FILE:LINE: error: MESSAGE". Plain data, no concept.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/source_file.hpp>
#include <gca/graph/interference.hpp>

namespace gca {

struct dimacs_graph {
  std::size_t vertices = 0;                         // N of the p line
  std::size_t declared_edges = 0;                   // E of the p line
  std::vector<std::pair<node_id, node_id>> edges;   // 0-based, in file order
};

namespace detail {

template <class = void>
std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> w;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) w.push_back(s.substr(i, j - i));
    i = j;
  }
  return w;
}

template <class = void>
std::uint64_t dimacs_number(std::string_view w, const char* what, const std::string& file,
                            std::uint32_t line) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec == std::errc::result_out_of_range)
    throw parse_error(file, {line, 0}, std::string(what) + " overflows: " + std::string(w));
  if (ec != std::errc{} || ptr != w.data() + w.size())
    throw parse_error(file, {line, 0}, std::string(what) + " is not a non-negative integer: '" + std::string(w) + "'");
  return v;
}

}  // namespace detail

/// Reads a DIMACS graph. `file` is only used in messages. Errors: no or a second `p` line, an `e` line
/// before `p`, a vertex outside 1..N, a wrong word count, a non-numeric field, an unknown line type.
template <class = void>
dimacs_graph read_dimacs(std::istream& in, const std::string& file) {
  dimacs_graph g;
  bool have_p = false;
  std::string raw;
  std::uint32_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const auto w = detail::split_ws(raw);
    if (w.empty() || w[0] == "c") continue;
    if (w[0] == "p") {
      if (have_p) throw parse_error(file, {line, 0}, "second 'p' line");
      if (w.size() != 4 || (w[1] != "edge" && w[1] != "col"))
        throw parse_error(file, {line, 0}, "expected 'p edge N E'");
      const std::uint64_t n = detail::dimacs_number(w[2], "vertex count", file, line);
      if (n >= std::numeric_limits<node_id>::max())
        throw parse_error(file, {line, 0}, "vertex count overflows: " + std::string(w[2]));
      g.vertices = static_cast<std::size_t>(n);
      g.declared_edges = static_cast<std::size_t>(detail::dimacs_number(w[3], "edge count", file, line));
      g.edges.reserve(std::min<std::size_t>(g.declared_edges, std::size_t{1} << 24));
      have_p = true;
    } else if (w[0] == "e") {
      if (!have_p) throw parse_error(file, {line, 0}, "'e' line before the 'p' line");
      if (w.size() != 3) throw parse_error(file, {line, 0}, "expected 'e U V'");
      const std::uint64_t u = detail::dimacs_number(w[1], "vertex", file, line);
      const std::uint64_t v = detail::dimacs_number(w[2], "vertex", file, line);
      for (std::uint64_t x : {u, v})
        if (x < 1 || x > g.vertices)
          throw parse_error(file, {line, 0}, "vertex " + std::to_string(x) + " is outside 1.." +
                                                 std::to_string(g.vertices));
      g.edges.emplace_back(static_cast<node_id>(u - 1), static_cast<node_id>(v - 1));
    } else {
      throw parse_error(file, {line, 0}, "unknown line type '" + std::string(w[0]) + "'");
    }
  }
  if (!have_p) throw parse_error(file, {line == 0 ? 1u : line, 0}, "no 'p edge N E' line");
  return g;
}

/// Reads and parses `path`; a file that cannot be read is a parse_error "FILE: error: cannot ...".
template <class = void>
dimacs_graph read_dimacs_file(const std::string& path) {
  std::istringstream in(read_source_file(path));
  return read_dimacs(in, path);
}

}  // namespace gca
