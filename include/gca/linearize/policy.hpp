// gca/linearize/policy.hpp — the LinearizationPolicy concept and its models.
//
// Models (catalogue):
//   opaque_loops     the plain family (SB_Allocator::linearize): a loop is ONE point; everything its
//                    body reads or writes is attributed to that point.
//   flattened_loops  the with-loop family (flattern_loop): the loop's point is followed, in place, by
//                    its body's points, recursively for nested loops.
//   flatten_up_to<N> a per-loop choice: loops of at most N trips are flattened, longer ones stay opaque
//                    (one chain mixes both; a user's policy may decide by any fact of the function).
// linearize/linearize.hpp builds the chain a policy describes. This header is apart so the drivers'
// declarations (drivers/coloring_allocator.hpp) name the policies without the chain's machinery.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include <gca/ir/module.hpp>

namespace gca {

/**
 * @brief How loops appear in the chain: the linearization's one decision.
 *
 * Requirements, for `const L l`, a function `f` and a loop instruction `k` of f:
 *   L::name            string_view  for logs
 *   l.flattens(f, k)   bool         true: loop k's point is followed, in place, by the points of its body
 *                                   (each of which is decided again if it is a loop); false: the loop is
 *                                   one opaque point, and everything its body reads or writes is
 *                                   attributed to that point.
 * Default-constructible (the drivers make one per function). Semantics: a pure function of (f, k), so the
 * chain, and the allocation, are deterministic. Both answers are sound (liveness/live_ranges.hpp handles
 * opaque points and flattened scopes in one chain); they differ in precision and in the points' count.
 * Models: opaque_loops, flattened_loops, flatten_up_to<N>.
 */
template <class L>
concept LinearizationPolicy = std::default_initializable<L> && requires(const L& l, const function& f, inst_id k) {
  { L::name } -> std::convertible_to<std::string_view>;
  { l.flattens(f, k) } -> std::same_as<bool>;
};

struct opaque_loops {
  static constexpr std::string_view name = "opaque";
  static constexpr bool flattens(const function&, inst_id) noexcept { return false; }
};
struct flattened_loops {
  static constexpr std::string_view name = "flattern_loop";
  static constexpr bool flattens(const function&, inst_id) noexcept { return true; }
};
/// Flattens the loops of at most `MaxTrips` trips; longer ones stay one opaque point.
template <std::uint64_t MaxTrips>
struct flatten_up_to {
  static constexpr std::string_view name = "flatten_up_to";
  static bool flattens(const function& f, inst_id k) noexcept { return f.insts[k].trips <= MaxTrips; }
};
static_assert(LinearizationPolicy<opaque_loops>);
static_assert(LinearizationPolicy<flattened_loops>);
static_assert(LinearizationPolicy<flatten_up_to<8>>);

}  // namespace gca
