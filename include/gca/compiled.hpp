// gca/compiled.hpp — the optional compiled mode: the standard allocators' bodies compiled once, into the
// `gca_compiled` library, instead of in every file that runs an allocator.
//
// Header-only is the default. With `-DGCA_COMPILED` (meson: `gca_compiled_dep` sets it and links the
// library), drivers/coloring_allocator.hpp ends by including this header instead of the drivers' bodies
// (drivers/allocate.hpp), and the headers a driver's declaration needs are light ones (spill/report.hpp,
// engine/options.hpp, linearize/policy.hpp, spill/spill_to_next_tier.hpp without its body): a file that
// includes <gca/ir.hpp> and <gca/allocators.hpp> and runs the eight registrations, the with-loop driver
// or the pass registry parses declarations, not the engine (docs/PERFORMANCE.md, "Compile time").
//
// The list below names what is instantiated in the library, for the standard policy set: both
// linearizations, the spill_to_next_tier and no_spill policies, and the two observers of
// engine/observer.hpp (null_observer: silent; stream_observer: `gca-alloc -v`), with the four standard
// geometries (default_geometry) — the per-function driver (allocate_standard), the shared-DRAM driver (allocate_shared_dram), the with-loop driver
// (allocate_with_loop), allocator_options' cache (new_pass_cache) and the spill policy's two members
// (spill_to_next_tier::spill and ::spillable, whose body, spill/spill_code.hpp, is left out here). Here the list is expanded as
// explicit instantiation declarations (`extern template`), which keep a file from instantiating these
// non-inline templates itself ([temp.explicit]); the library's one file (gca/compiled.cpp) includes the
// bodies and expands the same list as explicit instantiation definitions: one list, no drift. The parser
// (ir/parser.hpp), the verifier and the two-program check (verify/verify.hpp, verify/translation.hpp), and
// the pass registry and the pipeline runner (pipeline/pipeline.hpp) have such lists of their own, declared
// in their headers (a file that parses, verifies or runs pipelines includes those headers, not this one)
// and defined in gca/compiled.cpp as well. A file
// that uses any other instantiation (its own policy or observer) includes drivers/allocate.hpp or
// <gca/gca.hpp> and instantiates it in place, so the mode never changes what compiles, only where.
#pragma once

#include <chrono>
#include <memory>
#include <span>

#include <gca/drivers/coloring_allocator.hpp>  // what is declared below; a file may include this header alone

#define GCA_COMPILED_GEOMETRY(Prefix, Linearization, Spill, Geometry, Observer)                              \
  Prefix template void detail::allocate_standard<Linearization, Spill, Geometry, Observer>(                  \
      module&, pass_report&, space_filter, bool, const Geometry&, const allocator_options&,                  \
      std::chrono::steady_clock::time_point, const Spill&, Observer&);
#define GCA_COMPILED_FUNCTIONS(Prefix, Linearization, Spill, Observer)                                        \
  GCA_COMPILED_GEOMETRY(Prefix, Linearization, Spill, scratchpad_2d, Observer)                               \
  GCA_COMPILED_GEOMETRY(Prefix, Linearization, Spill, psum_banks, Observer)                                  \
  GCA_COMPILED_GEOMETRY(Prefix, Linearization, Spill, linear_dram, Observer)                                 \
  GCA_COMPILED_GEOMETRY(Prefix, Linearization, Spill, registers, Observer)
#define GCA_COMPILED_WITH_LOOP(Prefix, Spill, Observer)                                                        \
  Prefix template void detail::allocate_with_loop<Spill, psum_banks, scratchpad_2d, Observer>(              \
      module&, pass_report&, const psum_banks&, const scratchpad_2d&, const allocator_options&,              \
      std::chrono::steady_clock::time_point, const Spill&, Observer&);
#define GCA_COMPILED_OBSERVER(Prefix, Observer)                                                                \
  GCA_COMPILED_FUNCTIONS(Prefix, opaque_loops, spill_to_next_tier, Observer)                                 \
  GCA_COMPILED_FUNCTIONS(Prefix, flattened_loops, spill_to_next_tier, Observer)                              \
  GCA_COMPILED_FUNCTIONS(Prefix, opaque_loops, no_spill, Observer)                                           \
  GCA_COMPILED_FUNCTIONS(Prefix, flattened_loops, no_spill, Observer)                                        \
  GCA_COMPILED_WITH_LOOP(Prefix, spill_to_next_tier, Observer)                                               \
  GCA_COMPILED_WITH_LOOP(Prefix, no_spill, Observer)                                                         \
  Prefix template void detail::allocate_shared_dram<linear_dram, Observer>(                                  \
      module&, pass_report&, bool, const linear_dram&, std::span<const color_options>,                      \
      std::chrono::steady_clock::time_point, Observer&);
/// The whole list, each entry preceded by `Prefix` (extern here; nothing in gca/compiled.cpp).
#define GCA_COMPILED_LIST(Prefix)                                                                              \
  Prefix template std::shared_ptr<pass_cache> detail::new_pass_cache<pass_cache>();                          \
  Prefix template std::size_t spill_to_next_tier::spill<void>(linearized_function&, const space_attempt&,    \
                                                              const space_filter&, const target&,            \
                                                              spill_state&) const;                           \
  Prefix template bool spill_to_next_tier::spillable<void>(const function&, const liveness&, web_id,          \
                                                           const space_filter&, const spill_state&);          \
  GCA_COMPILED_OBSERVER(Prefix, null_observer)                                                               \
  GCA_COMPILED_OBSERVER(Prefix, stream_observer)

namespace gca {
GCA_COMPILED_LIST(extern)
}  // namespace gca
