// gca/io/dsa_csv.hpp — reading and writing dynamic-storage-allocation (DSA) problems as CSV.
//
// Provides `dsa_problem` (buffers alive over half-open [lower, upper) with a size and an optional
// alignment), `read_dsa_csv` / `read_dsa_csv_file` (header `id,lower,upper,size[,alignment]`, the de facto
// format of google/minimalloc and cappadokes/idealloc), `write_dsa_solution` (adds `offset`), and the
// two facts every DSA tool needs: `max_live` (the lower bound on any peak) and the live-range table the
// interference builder takes. Plain data and functions, no concept. Malformed input throws
// gca::parse_error whose what() is "FILE:LINE: error: MESSAGE".
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/source_file.hpp>
#include <gca/graph/interference.hpp>
#include <gca/liveness/interval.hpp>

namespace gca {

struct dsa_buffer {
  std::string id;               // as written in the file (opaque, unique)
  program_point lower = 0;      // first point alive
  program_point upper = 0;      // first point dead again (half-open)
  std::uint64_t size = 0;       // bytes, >= 1
  std::uint64_t alignment = 1;  // bytes; 1 when the file has no alignment column
  std::uint32_t line = 0;       // 1-based line in the file, for messages
};

struct dsa_problem {
  std::vector<dsa_buffer> buffers;  // in file order
  bool has_alignment = false;       // the file had an alignment column
};

namespace detail {

template <class = void>
std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <class = void>
std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> f;
  for (;;) {
    const auto c = line.find(',');
    f.push_back(trim(line.substr(0, c)));
    if (c == std::string_view::npos) break;
    line.remove_prefix(c + 1);
  }
  return f;
}

/// An unsigned decimal field no larger than `max`, or a parse_error naming the column.
template <class = void>
std::uint64_t parse_unsigned(std::string_view field, std::string_view column, std::uint64_t max,
                             const std::string& file, std::uint32_t line) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec == std::errc::invalid_argument || ptr != field.data() + field.size())
    throw parse_error(file, {line, 0}, std::string(column) + " is not a non-negative integer: '" +
                                           std::string(field) + "'");
  if (ec == std::errc::result_out_of_range || v > max)
    throw parse_error(file, {line, 0}, std::string(column) + " overflows: " + std::string(field));
  return v;
}

}  // namespace detail

/// Reads a DSA problem. `file` is only used in messages. Blank lines are skipped. Errors: a missing or
/// wrong header, a wrong field count, a non-numeric or overflowing field, lower >= upper, size 0,
/// alignment 0, a duplicate id, a file with no header at all ("empty file").
template <class = void>
dsa_problem read_dsa_csv(std::istream& in, const std::string& file) {
  dsa_problem p;
  std::string raw;
  std::uint32_t line = 0;
  bool header = false;
  std::size_t columns = 4;
  constexpr std::uint64_t max_point = std::numeric_limits<program_point>::max();
  while (std::getline(in, raw)) {
    ++line;
    const std::string_view text = detail::trim(raw);
    if (text.empty()) continue;
    const auto f = detail::split_csv(text);
    if (!header) {
      const bool base = f.size() >= 4 && f[0] == "id" && f[1] == "lower" && f[2] == "upper" && f[3] == "size";
      if (!base || f.size() > 5 || (f.size() == 5 && f[4] != "alignment"))
        throw parse_error(file, {line, 0},
                          "bad header '" + std::string(text) + "', expected id,lower,upper,size[,alignment]");
      header = true;
      columns = f.size();
      p.has_alignment = columns == 5;
      continue;
    }
    if (f.size() != columns)
      throw parse_error(file, {line, 0}, "expected " + std::to_string(columns) + " fields, found " +
                                             std::to_string(f.size()));
    dsa_buffer b;
    b.line = line;
    b.id = std::string(f[0]);
    if (b.id.empty()) throw parse_error(file, {line, 0}, "id is empty");
    b.lower = static_cast<program_point>(detail::parse_unsigned(f[1], "lower", max_point, file, line));
    b.upper = static_cast<program_point>(detail::parse_unsigned(f[2], "upper", max_point, file, line));
    b.size = detail::parse_unsigned(f[3], "size", std::numeric_limits<std::uint64_t>::max(), file, line);
    if (columns == 5)
      b.alignment = detail::parse_unsigned(f[4], "alignment", std::uint64_t{1} << 62, file, line);
    if (b.lower >= b.upper)
      throw parse_error(file, {line, 0}, "lower " + std::to_string(b.lower) + " is not below upper " +
                                             std::to_string(b.upper) + " (lifetimes are half-open)");
    if (b.size == 0) throw parse_error(file, {line, 0}, "size is 0");
    if (b.alignment == 0) throw parse_error(file, {line, 0}, "alignment is 0");
    p.buffers.push_back(std::move(b));
  }
  if (!header) throw parse_error(file, {line == 0 ? 1u : line, 0}, "empty file (no header)");
  // Duplicate ids: sort indices by id (stable, so the later line is the one reported).
  std::vector<std::size_t> idx(p.buffers.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return p.buffers[a].id < p.buffers[b].id; });
  for (std::size_t i = 1; i < idx.size(); ++i) {
    const dsa_buffer& a = p.buffers[idx[i - 1]];
    const dsa_buffer& b = p.buffers[idx[i]];
    if (a.id == b.id)
      throw parse_error(file, {b.line, 0}, "duplicate id '" + b.id + "' (first on line " + std::to_string(a.line) + ")");
  }
  return p;
}

/// Reads and parses `path`; a file that cannot be read is a parse_error "FILE: error: cannot ...".
template <class = void>
dsa_problem read_dsa_csv_file(const std::string& path) {
  std::istringstream in(read_source_file(path));
  return read_dsa_csv(in, path);
}

/// One node per buffer, alive over [lower, upper).
template <class = void>
live_range_table to_live_ranges(const dsa_problem& p) {
  live_range_table t;
  t.offsets.reserve(p.buffers.size() + 1);
  t.intervals.reserve(p.buffers.size());
  for (const dsa_buffer& b : p.buffers) t.add(interval{b.lower, b.upper});
  return t;
}

/// The largest total size alive at one point: a lower bound on the peak of any solution.
template <class = void>
std::uint64_t max_live(const dsa_problem& p) {
  return max_live_sum(
      p.buffers.size(), [&](std::size_t i) { return interval{p.buffers[i].lower, p.buffers[i].upper}; },
      [&](std::size_t i) { return p.buffers[i].size; });
}

/// Writes `id,lower,upper,size,offset` rows in input order (with the header).
template <class = void>
void write_dsa_solution(std::ostream& out, const dsa_problem& p, std::span<const std::uint64_t> offsets) {
  out << "id,lower,upper,size,offset\n";
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const dsa_buffer& b = p.buffers[i];
    out << b.id << ',' << b.lower << ',' << b.upper << ',' << b.size << ',' << offsets[i] << '\n';
  }
}

}  // namespace gca
