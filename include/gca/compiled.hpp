// gca/compiled.hpp — the optional compiled mode: the heavy instantiations of the standard allocators,
// compiled once into the `gca_compiled` library instead of in every file that runs an allocator.
//
// Header-only is the default. With `-DGCA_COMPILED` (meson: `gca_compiled_dep` sets it and links the
// library), drivers/coloring_allocator.hpp ends by including this header, whose explicit instantiation
// declarations tell the compiler that the functions where an allocator spends its code — the spill
// fixpoint of one space (allocate_space), the per-function driver (allocate_functions) and the
// shared-DRAM driver (allocate_shared_dram) — are instantiated elsewhere, for the standard policy set:
// both linearizations, the spill_to_next_tier and no_spill policies, and the two observers of
// engine/observer.hpp (null_observer: silent; stream_observer: `gca-alloc -v`). A file that runs the eight
// registrations, the with-loop driver or the pass registry then compiles at about include-only speed
// (docs/PERFORMANCE.md, "Compile time"). Any other instantiation (a user's own policy or observer) is
// still compiled in place from the headers, so the mode never changes what compiles, only where.
//
// The declarations name non-inline function templates, so the declaration really suppresses their
// implicit instantiation ([temp.explicit]: it does not for inline functions). The library's one
// translation unit (gca/compiled.cpp) includes this header with GCA_COMPILED_EXTERN defined empty, which
// turns the same list into the explicit instantiation definitions: one list, no drift. Including this
// header directly opts a file into the compiled mode as -DGCA_COMPILED does.
#pragma once

#include <chrono>
#include <span>

#include <gca/drivers/coloring_allocator.hpp>  // what is declared below; a file may include this header alone

#ifndef GCA_COMPILED_EXTERN
#define GCA_COMPILED_EXTERN extern
#endif

#define GCA_COMPILED_SPACE(Spill, Observer)                                                                  \
  GCA_COMPILED_EXTERN template space_report allocate_space<Spill, Observer>(                                 \
      linearized_function&, const target&, const space_filter&, geometry_ref, const Spill&, Observer&,       \
      const space_options&);
#define GCA_COMPILED_FUNCTIONS(Linearization, Spill, Observer)                                                 \
  GCA_COMPILED_EXTERN template void detail::allocate_functions<Linearization, Spill, Observer>(              \
      module&, pass_report&, space_filter, bool, geometry_ref, const allocator_options&,                    \
      std::chrono::steady_clock::time_point, const Spill&, Observer&);
#define GCA_COMPILED_OBSERVER(Observer)                                                                      \
  GCA_COMPILED_SPACE(spill_to_next_tier, Observer)                                                           \
  GCA_COMPILED_SPACE(no_spill, Observer)                                                                     \
  GCA_COMPILED_FUNCTIONS(opaque_loops, spill_to_next_tier, Observer)                                         \
  GCA_COMPILED_FUNCTIONS(flattened_loops, spill_to_next_tier, Observer)                                      \
  GCA_COMPILED_FUNCTIONS(opaque_loops, no_spill, Observer)                                                   \
  GCA_COMPILED_FUNCTIONS(flattened_loops, no_spill, Observer)                                                \
  GCA_COMPILED_EXTERN template void detail::allocate_shared_dram<Observer>(                                  \
      module&, pass_report&, bool, std::span<const color_options>, std::chrono::steady_clock::time_point,    \
      Observer&);

namespace gca {
GCA_COMPILED_OBSERVER(null_observer)
GCA_COMPILED_OBSERVER(stream_observer)
}  // namespace gca

#undef GCA_COMPILED_OBSERVER
#undef GCA_COMPILED_FUNCTIONS
#undef GCA_COMPILED_SPACE
