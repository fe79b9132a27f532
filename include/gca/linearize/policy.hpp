// gca/linearize/policy.hpp — the LinearizationPolicy concept and its two models.
//
// Models (catalogue):
//   opaque_loops     the plain family (SB_Allocator::linearize): a loop is ONE point; everything its
//                    body reads or writes is attributed to that point.
//   flattened_loops  the with-loop family (flattern_loop): the loop's point is followed, in place, by
//                    its body's points, recursively for nested loops.
// linearize/linearize.hpp builds the chain a policy describes. This header is apart so the drivers'
// declarations (drivers/coloring_allocator.hpp) name the policies without the chain's machinery.
#pragma once

#include <concepts>
#include <string_view>

namespace gca {

/**
 * @brief How loops appear in the chain.
 *
 * Requirements: `L::flattens_loops` (bool constant): true if a loop's body instructions become points of
 * their own after the loop's point; false if the loop is one opaque point. `L::name` (string_view) for
 * logs. Stateless. Models: opaque_loops, flattened_loops.
 */
template <class L>
concept LinearizationPolicy = requires {
  { L::flattens_loops } -> std::convertible_to<bool>;
  { L::name } -> std::convertible_to<std::string_view>;
};

struct opaque_loops {
  static constexpr bool flattens_loops = false;
  static constexpr std::string_view name = "opaque";
};
struct flattened_loops {
  static constexpr bool flattens_loops = true;
  static constexpr std::string_view name = "flattern_loop";
};
static_assert(LinearizationPolicy<opaque_loops>);
static_assert(LinearizationPolicy<flattened_loops>);

}  // namespace gca
