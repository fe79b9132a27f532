// gca/spill/concept.hpp — the SpillPolicy concept: what the fixpoint does when select leaves webs
// unplaced, and the bookkeeping every model shares.
//
// Models (catalogue):
//   no_spill            (this header)               never spills: an unplaced web ends the allocation.
//   spill_to_next_tier  (spill/spill_to_next_tier.hpp)  the Neuron allocator's fixpoint: spill code into the next memory
//                       of the hierarchy (PSUM -> SB -> DRAM), reload before reads, color again.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gca/ir/target.hpp>
#include <gca/spill/report.hpp>  // space_filter, spill_state

namespace gca {

// The concept names these by reference only, so a declaration of the policies (and of the drivers that
// take them) needs neither the linearization nor the coloring engine.
class linearized_function;  // linearize/linearize.hpp
struct space_attempt;       // engine/space_attempt.hpp
struct liveness;            // liveness/live_ranges.hpp

/**
 * @brief A spill policy for the fixpoint of spill/fixpoint.hpp.
 *
 * Requirements, for `const S s` (the fixpoint holds the policy by const reference), a numbered linearized_function `lf`, the failed attempt `a` (a.complete() is
 * false; `*a.geometry` is the geometry it colored in, which a policy measures pressure against), its
 * space_filter `f`, the module's target `t` and the spill_state `st`:
 *   S::name                         string_view  for logs
 *   s.spill(lf, a, f, t, st)        size_t       edit `lf` (insert spill code, rename reads) and return the
 *                                                number of webs spilled; 0 means "spilling can't help".
 * Semantics: progress. Each call that returns > 0 must remove at least one read or write slot from tensors
 * that are not temporaries (`st.no_spill`), and temporaries it creates must be marked in `st.no_spill`. As
 * slots of non-temporaries are finite, the fixpoint then ends after finitely many iterations, with either a
 * coloring or 0. The edited program must compute the same values (the two-program verifier,
 * verify(original, allocated) in verify/translation.hpp, checks this from the programs' text alone).
 */
template <class S>
concept SpillPolicy = requires(const S& s, linearized_function& lf, const space_attempt& a, const space_filter& f,
                               const target& t, spill_state& st) {
  { S::name } -> std::convertible_to<std::string_view>;
  { s.spill(lf, a, f, t, st) } -> std::same_as<std::size_t>;
};

/**
 * @brief The optional part of a SpillPolicy: which webs it may spill.
 *
 * `S::spillable(f, live, w, filter, st)` (static, bool): whether the policy may spill web `w` of function
 * `f` at all. The exact placement search (spill/place_or_prove.hpp) asks it to choose victims that make a
 * placement possible and to prove that spilling can't help (every spillable web spilled); a policy
 * without it is taken to spill nothing the search could use. A model that has the member states it with
 * `static_assert(ReportsSpillable<S>)`, so a signature that drifts fails to compile instead of silently
 * turning the search's victims off.
 */
template <class S>
concept ReportsSpillable = requires(const function& f, const liveness& live, web_id w, const space_filter& filter,
                                    const spill_state& st) {
  { S::spillable(f, live, w, filter, st) } -> std::same_as<bool>;
};

/// The model that never spills.
struct no_spill {
  static constexpr std::string_view name = "none";
  std::size_t spill(linearized_function&, const space_attempt&, const space_filter&, const target&,
                    spill_state&) const {
    return 0;
  }
};
static_assert(SpillPolicy<no_spill>);

}  // namespace gca
