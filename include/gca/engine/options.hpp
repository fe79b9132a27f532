// gca/engine/options.hpp — the engine's choices, as plain values: the simplify orders, the colorer's
// variants (heuristic x order) and the best-of-n default list, and which engine colors a space.
//
// Apart from the phases that use them (engine/simplify.hpp, engine/colorer.hpp, engine/linear_scan.hpp)
// so that the options the drivers take (drivers/coloring_allocator.hpp) can be declared without the
// engine's bodies: in the compiled mode (gca/compiled.hpp) a file that runs an allocator parses this
// header, not the engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gca/geometry/concept.hpp>  // select_heuristic

namespace gca {

/// Which trivially colorable node simplify removes first. Select pops in reverse, so the node removed
/// LAST is placed FIRST: each order puts the hardest nodes at the bottom of the stack.
enum class simplify_order : std::uint8_t {
  largest_first,   // remove the smallest footprint (partitions x bytes) first: the largest is placed first
                   // (equal footprints: the smaller original degree first, so the most connected is placed first)
  priority_first,  // remove the lowest caller priority first (e.g. bytes x lifetime): highest placed first
  smallest_last,   // remove the node of smallest remaining degree first (Matula's smallest-last order)
  largest_degree,  // remove the smallest original degree first: Welsh–Powell, most-connected placed first
  // The two orders below need live ranges, which a graph does not have: only the interval colorer
  // (engine/interval_colorer.hpp) runs them, and `simplify` rejects them.
  size_descending,  // place the largest first, then the longer lifetime, then the lower id (TFLite / XLA)
  longest_first,    // place the longest lifetime first, then the larger, then the lower id
};

constexpr std::string_view to_string(simplify_order o) noexcept {
  switch (o) {
    case simplify_order::largest_first: return "largest-first";
    case simplify_order::priority_first: return "priority-first";
    case simplify_order::smallest_last: return "smallest-last";
    case simplify_order::largest_degree: return "largest-degree";
    case simplify_order::size_descending: return "size-descending";
    case simplify_order::longest_first: return "longest-first";
  }
  return "?";
}

/// One variant of the colorer.
struct color_options {
  select_heuristic heuristic = select_heuristic::best_fit;
  simplify_order order = simplify_order::largest_first;
  friend constexpr bool operator==(const color_options&, const color_options&) = default;
};

/// "best-fit/largest-first": the name the log line `best-of-n loop, heuristic = <name>` prints.
inline std::string name(const color_options& o) {
  return std::string(to_string(o.heuristic)) + "/" + std::string(to_string(o.order));
}

/// The variants best-of-n tries by default: both heuristics with each simplify order (the caller's
/// priority order only when the problem has priorities). Sizes-first wins on byte memories (DSA traces),
/// the degree orders on registers; running all of them costs a small constant factor.
template <class = void>
std::vector<color_options> default_variants(bool with_priority = false) {
  std::vector<color_options> v;
  for (simplify_order o : {simplify_order::largest_first, simplify_order::priority_first,
                           simplify_order::smallest_last, simplify_order::largest_degree}) {
    if (o == simplify_order::priority_first && !with_priority) continue;
    for (select_heuristic h : {select_heuristic::best_fit, select_heuristic::first_fit}) v.push_back({h, o});
  }
  return v;
}

/// Which engine colors a space: the Neuron allocator's default (coloring plane) or the `lsa` family.
enum class engine_kind : std::uint8_t { chaitin_briggs, linear_scan };

constexpr std::string_view to_string(engine_kind e) noexcept {
  return e == engine_kind::linear_scan ? "linear-scan" : "chaitin-briggs";
}

}  // namespace gca
