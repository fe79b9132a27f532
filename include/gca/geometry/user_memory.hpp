// gca/geometry/user_memory.hpp — the geometries of the memories a target adds (target::memories).
//
// Provides `linear_memory<M>` and `rect_memory<M>`, the two GeometryPolicy models (TargetGeometry too) a
// user names for a memory of their own, `M = memory_type{first_user_memory + k}` (ir/target.hpp):
//
//   linear_memory<M>  one linear byte range of spec.bytes, offsets aligned to spec.alignment: the rules
//                     (and the select, bounds and footprints) of linear_dram, in memory M
//   rect_memory<M>    spec.partitions x spec.bytes rectangles under the start-partition rule, aligned:
//                     the rules of scratchpad_2d, in memory M; a RectangleGeometry, so the exact
//                     placement search (engine/place_search.hpp) places it as it places SBUF
//
// Each is its standard model with `space` = M and `for_target` reading the memory's spec, so every
// semantic requirement of GeometryPolicy holds as it does for the model (tests/test_alloc.cpp checks the
// two against the contract by brute force). A memory a target adds has no default geometry: an
// allocator for it names one of these (or the user's own model; docs/ALLOCATOR.md, "A memory of your
// own").
#pragma once

#include <string>

#include <gca/error.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/ir/target.hpp>

namespace gca {

namespace detail {
/// The spec of memory M on `t`, or input_error when `t` does not list it.
inline const memory_spec& spec_of(const target& t, memory_type m, std::uint32_t min_partitions) {
  const memory_spec* s = user_memory(t, m);
  if (s == nullptr)
    throw input_error("target " + std::string(t.name) + " has no memory " +
                      std::to_string(static_cast<unsigned>(m)) + " (it lists " + std::to_string(t.memories.size()) +
                      " memories of its own)");
  if (s->partitions < min_partitions)
    throw input_error("memory " + std::string(s->name) + " of target " + std::string(t.name) +
                      " is linear (1 partition): its geometry is linear_memory, not rect_memory");
  return *s;
}
}  // namespace detail

template <memory_type M>
class linear_memory : public linear_dram {
  static_assert(is_user_memory(M), "linear_memory: M must be a memory a target adds (4 and up)");

 public:
  static constexpr memory_type space = M;

  /// Throws input_error if alignment is 0.
  linear_memory(std::uint64_t capacity, std::uint64_t alignment) : linear_dram(capacity, alignment) {}
  /// Memory M of `t` (input_error if `t` does not list it, or lists it with partitions: a linear view
  /// of a rectangle memory would put tensors of different partitions side by side in one range).
  static linear_memory for_target(const target& t) {
    const memory_spec& s = detail::spec_of(t, M, 1);
    if (s.partitions != 1)
      throw input_error("memory " + std::string(s.name) + " of target " + std::string(t.name) + " has " +
                        std::to_string(s.partitions) + " partitions: its geometry is rect_memory, not linear_memory");
    return linear_memory(s.bytes, s.alignment);
  }
};

template <memory_type M>
class rect_memory : public scratchpad_2d {
  static_assert(is_user_memory(M), "rect_memory: M must be a memory a target adds (4 and up)");

 public:
  static constexpr memory_type space = M;

  /// Throws input_error on a zero dimension or alignment.
  rect_memory(std::uint32_t partitions, std::uint64_t bytes_per_partition, std::uint64_t alignment)
      : scratchpad_2d(partitions, bytes_per_partition, alignment) {}
  /// Memory M of `t` (input_error if `t` does not list it, or lists it as linear).
  static rect_memory for_target(const target& t) {
    const memory_spec& s = detail::spec_of(t, M, 2);
    return rect_memory(s.partitions, s.bytes, s.alignment);
  }
};

static_assert(TargetGeometry<linear_memory<memory_type{first_user_memory}>>);
static_assert(TargetGeometry<rect_memory<memory_type{first_user_memory}>>);

}  // namespace gca
