// gca/engine/space_filter.hpp — which tensors of a function one colorer places (`space_filter`).
//
// On its own so that the reports and the drivers' declarations (spill/report.hpp,
// drivers/coloring_allocator.hpp) name it without engine/space_colorer.hpp.
#pragma once

#include <gca/ir/module.hpp>
#include <gca/ir/types.hpp>

namespace gca {

/// Which tensors one colorer places: those of `memory` and (for DRAM) `space`. Tensors of the same
/// memory that already have a place (pinned, or placed by an earlier colorer) take part as fixed nodes.
struct space_filter {
  memory_type memory = memory_type::sb;
  address_space space = address_space::local;
  bool colors(const tensor& t) const noexcept {
    return t.memory == memory && (memory != memory_type::dram || t.space == space) && !t.at;
  }
  bool constrains(const tensor& t) const noexcept { return t.memory == memory && t.at.has_value(); }
};

}  // namespace gca
