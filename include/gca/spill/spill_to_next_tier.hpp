// gca/spill/spill_to_next_tier.hpp — the Neuron allocator's spill step: create_eintervals + insert_spill_code.
//
// Provides `spill_to_next_tier`, a SpillPolicy (spill/concept.hpp); its step's body is in
// spill/spill_code.hpp, which this header includes unless the compiled mode (gca/compiled.hpp) is on. Victims: the webs live across an
// over-full point (by area) if any; else, in SB and PSUM, the set the exact search chose
// (spill_state::guided, see spill/place_or_prove.hpp) when it found one; else every web select left
// unplaced that may be spilled; for an unplaced web that may not (a temporary, a pinned or I/O tensor,
// a PSUM accumulation group), its cheapest spillable neighbor per byte of relief. Each victim web gets a
// slot in the next memory of the cascade (Trainium's: PSUM -> SB, SB -> DRAM; same bytes per partition in
// SB, partitions x bytes in DRAM; spill_cascade names another) and is replaced, point by point, by short temporaries:
//
//      %t = op ...            becomes     %t.rK = op ...
//                                         %t.slot = spill %t.rK
//      ... = use %t           becomes     %t.rJ = reload %t.slot
//                                         ... = use %t.rJ
//
// A point that both reads and writes the web (a `+=`, an opaque loop that carries it) reloads before and
// spills after, through one temporary. A web whose every write is a `load` of a tensor the function never
// writes is not stored at all: its reads re-load from the source (the Neuron allocator's find_loads). Temporaries are
// never spilled again (spill_state::no_spill), so the fixpoint terminates.
//
// Cost model (docs/ALLOCATOR.md section 4): an inserted move of B bytes at a point that runs W times (the product of
// the enclosing trip counts) costs W * ceil(B / target.dma_bytes_per_cycle) cycles.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/spill/concept.hpp>

namespace gca {

/// Where each memory spills, if anywhere: the cascade of a target's memory hierarchy. The default is
/// Trainium's (docs/HARDWARE.md section 6: PSUM -> SB -> DRAM; DRAM and REG spill nowhere); another
/// accelerator names its own (examples/custom_accelerator.cpp: its accumulator spills straight to DRAM).
/// A slot in DRAM holds the partitions x bytes of the spilled tensor linearly; in SB or PSUM, the same
/// shape. The memories a target adds spill where their spec says (memory_spec::spills_to, ir/target.hpp),
/// into a linear memory linearly and into a rectangle memory with the same shape.
struct spill_cascade {
  std::optional<memory_type> sb = memory_type::dram;
  std::optional<memory_type> psum = memory_type::sb;
  std::optional<memory_type> dram = std::nullopt;
  std::optional<memory_type> reg = std::nullopt;

  /// Where `m`'s victims go on target `t`, or nothing.
  constexpr std::optional<memory_type> next(memory_type m, const target& t) const noexcept {
    switch (m) {
      case memory_type::sb: return sb;
      case memory_type::psum: return psum;
      case memory_type::dram: return dram;
      case memory_type::reg: return reg;
    }
    const memory_spec* s = user_memory(t, m);
    if (s == nullptr || s->spills_to == m) return std::nullopt;
    return s->spills_to;
  }
};

struct spill_to_next_tier {
  static constexpr std::string_view name = "spill_to_next_tier";
  spill_cascade cascade;  // where each memory's victims go (default: Trainium's)

  /// The step: choose the victims, insert their spill code (spill/spill_code.hpp holds the body).
  template <class = void>
  std::size_t spill(linearized_function& lf, const space_attempt& a, const space_filter& filter,
                    const target& tgt, spill_state& st) const;
  /// May this web be spilled at all? (Not a temporary, an I/O or live-in/out web, or a PSUM accumulation
  /// group.) The optional member of SpillPolicy the exact search asks (spill/concept.hpp).
  template <class = void>
  static bool spillable(const function& f, const liveness& live, web_id w, const space_filter& filter,
                        const spill_state& st);
};
static_assert(SpillPolicy<spill_to_next_tier>);
static_assert(ReportsSpillable<spill_to_next_tier>);

}  // namespace gca

#ifndef GCA_COMPILED
#include <gca/spill/spill_code.hpp>  // the body of spill(); in the compiled mode it is in the gca_compiled library
#endif
