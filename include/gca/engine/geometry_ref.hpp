// gca/engine/geometry_ref.hpp — a non-owning, type-erased view of one GeometryPolicy model.
//
// Provides `geometry_ref`: the members of the GeometryPolicy concept (gca/geometry/concept.hpp) as calls
// through a table of function pointers made once per model at compile time, plus the two things the
// engine asks of a model beyond the concept: its `alignment()` if it is a linear memory, and its
// simplify weights (`make_simplify_weights`, whose per-edge loop stays a template so max_blocked is
// inlined there).
//
// Why: the engine's interface is generic (color, color_best_of, linear_scan, color_space, commit_space
// and allocate_space take any GeometryPolicy), but its bodies are the same for every geometry and call
// the geometry O(1) times per node. Instantiating them once per geometry made every driver's translation
// unit compile four copies of the whole engine. Behind this view the engine is compiled once; each
// model costs one small table. The indirect call is per node (select, legal, fits), never per edge, so
// it does not show in run time (docs/PERFORMANCE.md, "Compile time").
// The referenced geometry must outlive the view. Not itself a GeometryPolicy (its memory type is a
// run-time value).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>

#include <gca/engine/simplify.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>

namespace gca {

class geometry_ref {
 public:
  // The first conjunct stops the concept check from asking about geometry_ref itself (copying it would
  // otherwise consider this constructor, whose constraint asks whether geometry_ref is copyable...).
  template <class G>
    requires(!std::same_as<G, geometry_ref> && GeometryPolicy<G>)
  explicit geometry_ref(const G& g) noexcept : g_(&g), t_(&table<G>) {}

  memory_type space() const noexcept { return t_->space; }
  /// Places are linear_dram's (DRAM, or a linear memory a target adds: geometry/user_memory.hpp): one
  /// byte range, aligned starts. The engine's linear paths (the whole-function block, the sweep of the
  /// interval colorer) are exact for these and only these.
  bool linear_bytes() const noexcept { return t_->linear_bytes; }
  bool fits(const extent& e) const { return t_->fits(g_, e); }
  bool legal(const extent& e, const placement& p) const { return t_->legal(g_, e, p); }
  std::uint64_t candidates(const extent& e) const { return t_->candidates(g_, e); }
  std::uint64_t max_blocked(const extent& e, const extent& f) const { return t_->max_blocked(g_, e, f); }
  bool overlaps(const extent& e, const placement& p, const extent& f, const placement& q) const {
    return t_->overlaps(g_, e, p, f, q);
  }
  std::optional<placement> select(const extent& e, std::span<const placed_neighbor> placed, select_heuristic h) const {
    return t_->select(g_, e, placed, h);
  }
  std::uint64_t end(const extent& e, const placement& p) const { return t_->end(g_, e, p); }
  std::uint64_t capacity() const { return t_->capacity(g_); }
  /// The alignment of a linear memory (one with an `alignment()` member), else nothing.
  std::optional<std::uint64_t> linear_alignment() const { return t_->linear_alignment(g_); }
  /// The rectangle layout of an SBUF or PSUM model (what the exact placement search needs), else nothing.
  std::optional<rect_layout> rect() const { return t_->rect(g_); }
  /// make_simplify_weights with the referenced model.
  simplify_weights weights(const interference_graph& g, std::span<const extent> extents) const {
    return t_->weights(g_, g, extents);
  }

 private:
  struct vtable {
    memory_type space;
    bool linear_bytes;
    bool (*fits)(const void*, const extent&);
    bool (*legal)(const void*, const extent&, const placement&);
    std::uint64_t (*candidates)(const void*, const extent&);
    std::uint64_t (*max_blocked)(const void*, const extent&, const extent&);
    bool (*overlaps)(const void*, const extent&, const placement&, const extent&, const placement&);
    std::optional<placement> (*select)(const void*, const extent&, std::span<const placed_neighbor>, select_heuristic);
    std::uint64_t (*end)(const void*, const extent&, const placement&);
    std::uint64_t (*capacity)(const void*);
    std::optional<std::uint64_t> (*linear_alignment)(const void*);
    std::optional<rect_layout> (*rect)(const void*);
    simplify_weights (*weights)(const void*, const interference_graph&, std::span<const extent>);
  };

  template <class G>
  static const G& self(const void* p) noexcept {
    return *static_cast<const G*>(p);
  }

  template <class G>
  static constexpr vtable table{
      G::space,
      std::derived_from<G, linear_dram>,
      [](const void* p, const extent& e) { return self<G>(p).fits(e); },
      [](const void* p, const extent& e, const placement& q) { return self<G>(p).legal(e, q); },
      [](const void* p, const extent& e) { return self<G>(p).candidates(e); },
      [](const void* p, const extent& e, const extent& f) { return self<G>(p).max_blocked(e, f); },
      [](const void* p, const extent& e, const placement& q, const extent& f, const placement& r) {
        return self<G>(p).overlaps(e, q, f, r);
      },
      [](const void* p, const extent& e, std::span<const placed_neighbor> placed, select_heuristic h) {
        return self<G>(p).select(e, placed, h);
      },
      [](const void* p, const extent& e, const placement& q) { return self<G>(p).end(e, q); },
      [](const void* p) { return self<G>(p).capacity(); },
      [](const void* p) -> std::optional<std::uint64_t> {
        if constexpr (requires(const G& g) { g.alignment(); }) return static_cast<std::uint64_t>(self<G>(p).alignment());
        else return std::nullopt;
      },
      [](const void* p) -> std::optional<rect_layout> {
        if constexpr (RectangleGeometry<G>) return rect_layout_of(self<G>(p));
        else return std::nullopt;
      },
      [](const void* p, const interference_graph& g, std::span<const extent> extents) {
        return make_simplify_weights(g, extents, self<G>(p));
      },
  };

  const void* g_;
  const vtable* t_;
};

}  // namespace gca
