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

#include <gca/engine/space_colorer.hpp>
#include <gca/ir/target.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/live_ranges.hpp>

namespace gca {

/// What the fixpoint carries from one iteration to the next, and what it reports at the end.
struct spill_state {
  std::vector<std::uint8_t> no_spill;  // per tensor of lf.work(): a reload/spill temporary, never spilled again
  std::size_t spilled_webs = 0;        // webs spilled (the Neuron allocator's "number of tensors spilled")
  std::uint64_t spilled_bytes = 0;     // bytes per partition of the spilled webs' tensors
  std::uint64_t cycles = 0;            // estimated DMA cycles of the inserted code (the cost model of docs/ALLOCATOR.md section 4)
  std::size_t reloads = 0;             // reload (or re-load) instructions inserted
  std::size_t stores = 0;              // spill instructions inserted
  std::vector<std::string> spilled;    // names of spilled tensors, in spill order
  std::vector<tensor_id> origin;       // per tensor: the tensor a temporary stands for (no_tensor: itself)
  std::vector<tensor_id> hopeless;     // set when no spill can help: the tensors over-filling a point
  std::vector<web_id> guided;          // victims the exact search chose for this round (used once, then cleared)
  bool is_temp(tensor_id t) const noexcept { return t < no_spill.size() && no_spill[t] != 0; }
  /// The user's tensor behind `t` (temporaries report the tensor they replaced).
  tensor_id original(tensor_id t) const noexcept {
    while (t < origin.size() && origin[t] != no_tensor) t = origin[t];
    return t;
  }
};

/**
 * @brief A spill policy for the fixpoint of spill/fixpoint.hpp.
 *
 * Requirements, for `S s`, a numbered linearized_function `lf`, the failed attempt `a` (a.complete() is
 * false), its space_filter `f`, the module's target `t` and the spill_state `st`:
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
concept SpillPolicy = requires(S s, linearized_function& lf, const space_attempt& a, const space_filter& f,
                               const target& t, spill_state& st) {
  { S::name } -> std::convertible_to<std::string_view>;
  { s.spill(lf, a, f, t, st) } -> std::same_as<std::size_t>;
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
