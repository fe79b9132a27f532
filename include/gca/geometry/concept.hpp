// gca/geometry/concept.hpp — the GeometryPolicy concept: what a memory looks like to the colorer.
//
// Provides the concept `GeometryPolicy`, the vocabulary its members speak (`placed_neighbor`,
// `select_heuristic`, `unbounded`), and nothing else: the models live one per header next to this one.
// The colorer (gca/engine/colorer.hpp) is written once against this concept; a geometry is the only
// thing that knows what "a color" is in its memory (a register, a DRAM address, a rectangle of SBUF
// partitions x bytes, a slot in a PSUM bank).
//
// Models (catalogue):
//   scratchpad_2d  (geometry/scratchpad_2d.hpp)  SBUF: partitions x bytes rectangles, start-partition rule
//   psum_banks     (geometry/psum_banks.hpp)     PSUM: like SBUF, 8 banks x 2 KiB, one bank per tensor
//   linear_dram    (geometry/linear_dram.hpp)    DRAM: one linear address range, possibly unbounded
//   registers      (geometry/registers.hpp)      REG: K interchangeable registers, one per node
//   linear_memory<M>, rect_memory<M>  (geometry/user_memory.hpp)  a memory a target adds (ir/target.hpp):
//                  linear_dram's or scratchpad_2d's rules on its spec's numbers
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

/// "No limit": a capacity or a candidate count that never runs out.
inline constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

/// How `select` chooses among the free positions. Every heuristic is complete: it fails only when no
/// candidate position is free (that is what the trivially-colorable test relies on).
enum class select_heuristic : std::uint8_t {
  first_fit,  // the lowest free address (then the lowest start partition)
  best_fit,   // the free gap that encloses the extent most tightly (then the lowest address)
};

/// The heuristic's name as the log line `best-of-n loop, heuristic = <name>` prints it.
constexpr std::string_view to_string(select_heuristic h) noexcept {
  switch (h) {
    case select_heuristic::first_fit: return "first-fit";
    case select_heuristic::best_fit: return "best-fit";
  }
  return "?";
}

/// A neighbor that already has a place: what it occupies and where.
struct placed_neighbor {
  extent size;   // the neighbor's extent
  placement at;  // its (legal) placement
};

/**
 * @brief A memory geometry the Chaitin–Briggs colorer can allocate in.
 *
 * Syntactic requirements, for `const G g`, extents `e`, `f`, placements `p`, `q`, a span `placed` of
 * placed_neighbor and a select_heuristic `h`:
 *   G::space                         memory_type   which memory this geometry describes
 *   g.fits(e)                        bool          can e be placed at all in an empty memory
 *   g.legal(e, p)                    bool          p is an allowed position for e (bounds, alignment, rules;
 *                                                  place_rules hands it to the parser and the verifiers)
 *   g.candidates(e)                  uint64        how many positions select searches for e (or unbounded)
 *   g.max_blocked(e, f)              uint64        at most how many of those one placed f can block
 *   g.overlaps(e, p, f, q)           bool          e at p and f at q share a byte (a register)
 *   g.select(e, placed, h)           optional<placement>   a free legal position for e, by heuristic h
 *   g.end(e, p)                      uint64        where e at p ends in the space's linear measure
 *   g.capacity()                     uint64        the size of that linear measure (or unbounded)
 *
 * Semantic requirements (the compiler cannot check these; tests/test_engine.cpp does):
 *   1. Purity and determinism: every member is a function of its arguments and the geometry's value; the
 *      order of `placed` may not change select's answer.
 *   2. `overlaps` is symmetric.
 *   3. Completeness of select. There is a set C(e) of legal positions with |C(e)| >= candidates(e), and
 *      select(e, placed, h) returns some p in C(e) that overlaps no element of `placed` whenever such a
 *      p exists, and nothing only when none does. The heuristic only decides WHICH free p.
 *   4. Blocking bound. For every legal position q of f,
 *      |{ p in C(e) : overlaps(e, p, f, q) }| <= max_blocked(e, f).
 *   5. fits(e) == (candidates(e) > 0); legal(e, p) for every p select returns; end(e, p) <= capacity()
 *      for every legal p; candidates(e) == unbounded only if capacity() == unbounded.
 *   6. Footprints, for a model without a rectangle view (geometry/rect_layout.hpp; DRAM, REG, a user's
 *      memory): e at a legal p takes [p.offset, end(e, p)) of the linear measure, an interval of length
 *      end(e, {0, 0}) inside [0, capacity()), and two placements that do not overlap take disjoint
 *      intervals. (linear_dram: bytes; registers: one register number.) So the footprints of tensors
 *      live at one point sum to at most capacity() in any placement: the spill policy measures pressure
 *      so (spill/victims.hpp), and a point above it is the fixpoint's proof that no placement exists
 *      (spill/fixpoint.hpp).
 *
 * Why 3 + 4 make simplify sound (the generalization of Chaitin's "degree < K"): let N be the neighbors
 * of node v that may be placed before v. If  sum_{n in N} max_blocked(e_v, e_n) < candidates(e_v), then
 * whatever legal positions the neighbors take, they block at most that many positions of C(e_v)
 * (a union is no larger than the sum of its parts), so at least one p in C(e_v) stays free, and by
 * completeness select finds one. For K registers (max_blocked = 1, candidates = K) this is exactly
 * "degree < K"; for bytes it charges each neighbor the number of aligned starts it can cover.
 */
template <class G>
concept GeometryPolicy =
    std::copy_constructible<G> &&
    requires(const G& g, const extent& e, const placement& p, std::span<const placed_neighbor> placed,
             select_heuristic h) {
      { G::space } -> std::convertible_to<memory_type>;
      { g.fits(e) } -> std::same_as<bool>;
      { g.legal(e, p) } -> std::same_as<bool>;
      { g.candidates(e) } -> std::same_as<std::uint64_t>;
      { g.max_blocked(e, e) } -> std::same_as<std::uint64_t>;
      { g.overlaps(e, p, e, p) } -> std::same_as<bool>;
      { g.select(e, placed, h) } -> std::same_as<std::optional<placement>>;
      { g.end(e, p) } -> std::same_as<std::uint64_t>;
      { g.capacity() } -> std::same_as<std::uint64_t>;
    };

/**
 * @brief A geometry the drivers can make from the module's target alone.
 *
 * `G::for_target(t)` (static, returns G): the memory `G::space` of target `t` as this model sees it. The
 * allocators (drivers/coloring_allocator.hpp) make their geometry so at each run unless they were given
 * one; a model without it (its facts are not in `target`) is given to the allocator's constructor.
 * Models: the four standard geometries.
 */
template <class G>
concept TargetGeometry = GeometryPolicy<G> && requires(const target& t) {
  { G::for_target(t) } -> std::same_as<G>;
};

}  // namespace gca
