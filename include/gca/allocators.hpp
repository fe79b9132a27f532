// gca/allocators.hpp — the drivers: the coloring_allocator class template, its eight registrations and
// the with-loop driver, with their options and reports. What a compiler pass that runs allocators
// includes (with <gca/ir.hpp> for the module). In the compiled mode (-DGCA_COMPILED, gca/compiled.hpp)
// this is declarations only: the standard allocators' bodies come from the gca_compiled library.
#pragma once

#include <gca/drivers/coloring_allocator.hpp>
#include <gca/engine/observer.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/spill_to_next_tier.hpp>
