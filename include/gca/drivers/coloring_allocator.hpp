// gca/drivers/coloring_allocator.hpp — the Neuron allocator's ColoringAllocator: one class template, eight
// registrations, and the loop-aware ColoringAllocatorWithLoop.
//
// Provides `coloring_allocator<Type, PostLink, From, To, Linearization, Spill, Geometry>` (the discriminator
// tuple of the Neuron allocator's constructor, checked at compile time: the four constructor invariants
// 508..511 are static_asserts; then the policies: how loops are linearized, what a failed coloring spills,
// and the geometry the memory is colored in, `default_geometry<Type>` unless named), the nine typedefs of docs/HARDWARE.md section 1, `invariant_violation` for tuples built at
// run time, and `coloring_allocator_with_loop` (PSUM then SB over one flattened linearized function, then
// index legalization; its PSUM and SB geometries are parameters too). Each allocator run()s on a whole module: per function for core-local memories,
// across functions for shared DRAM and after linking. A run that fails throws allocation_error (or
// timeout_error) and leaves the module exactly as it was: every function is allocated on a copy, and the
// copies replace the originals only when all succeeded.
//
// This header declares; drivers/allocate.hpp holds the bodies of the runs and is included at the end,
// except in the compiled mode (gca/compiled.hpp), where a file that runs the standard allocators compiles
// against these declarations alone.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <gca/engine/observer.hpp>
#include <gca/engine/options.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/geometry/user_memory.hpp>
#include <gca/ir/module.hpp>
#include <gca/linearize/policy.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/report.hpp>
#include <gca/spill/spill_to_next_tier.hpp>

namespace gca {

class pass_cache;  // engine/space_colorer.hpp

namespace detail {
/// A new pass_cache for allocator_options. A template only so that its body, which needs pass_cache
/// complete (and with it the coloring engine), is instantiated where the definition is: at the end of a
/// header-only file (drivers/allocate.hpp), or once in the gca_compiled library (gca/compiled.hpp).
template <class Cache = pass_cache>
std::shared_ptr<Cache> new_pass_cache();
}  // namespace detail

struct allocator_options {
  double timeout_seconds = 2700;                                 // the watchdog ("GCA is taking too long")
  std::vector<color_options> variants = default_variants(true);  // best-of-n heuristics
  unsigned threads = 0;  // threads of core-local passes (0: one per hardware thread): functions colored at
                         // once, and the best-of-n variants of a space when there are fewer functions
  engine_kind engine = engine_kind::chaitin_briggs;  // --allocator lsa: engine_kind::linear_scan
  search_options search;  // the exact SB/PSUM placement search (spill/place_or_prove.hpp); -O7: primary
  // Shared by the passes made from these options (copies share it): a pass reuses the liveness and the
  // DRAM answers an earlier one computed on the same program and problem (pass_cache in
  // engine/space_colorer.hpp; the results are the same). nullptr: every pass computes everything.
  std::shared_ptr<pass_cache> cache = detail::new_pass_cache();
};

/// What one allocator pass did: one space_report per function it colored (module-level passes: one).
struct pass_report {
  std::string pass;
  std::vector<std::pair<std::string, space_report>> functions;  // (function name, report)
};

/// The constructor invariants of the Neuron allocator (error codes 508..511), and gca's rule for REG.
/// Returns 0 when the tuple is allowed.
constexpr int invariant_violation(memory_type type, bool post_link, address_space from) noexcept {
  if (type == memory_type::sb && post_link) return 508;
  if (type == memory_type::sb && from != address_space::local) return 509;
  if (type == memory_type::psum && post_link) return 510;
  if (type == memory_type::psum && from != address_space::local) return 511;
  if (type == memory_type::reg && (post_link || from != address_space::local)) return 512;
  if (is_user_memory(type) && (post_link || from != address_space::local)) return 513;
  return 0;
}

constexpr std::string_view invariant_message(int code) noexcept {
  switch (code) {
    case 508: return "error 508: SB is allocated before linking (post_lnk must be false)";
    case 509: return "error 509: SB is core-local (from_space must be Local)";
    case 510: return "error 510: PSUM is allocated before linking (post_lnk must be false)";
    case 511: return "error 511: PSUM is core-local (from_space must be Local)";
    case 512: return "error 512 (gca): REG is core-local and not post-link";
    case 513: return "error 513 (gca): a target's own memory is core-local and not post-link";
  }
  return "";
}

/// One registration of the Neuron allocator: its pass name and its constructor tuple.
struct registration {
  std::string_view name;
  memory_type type;
  bool post_link;
  address_space from;
};

/// The eight registrations (docs/HARDWARE.md section 1), in the order the pipelines meet them. The one
/// list: the typedefs below, registered_name, allocator_pass_names and the pass registry's factories
/// (pipeline/passes.hpp) are derived from it.
inline constexpr registration registrations[] = {
    {"coloring_allocator_psum", memory_type::psum, false, address_space::local},
    {"coloring_allocator_sb", memory_type::sb, false, address_space::local},
    {"coloring_allocator_dram", memory_type::dram, false, address_space::local},
    {"coloring_allocator_dram_shared", memory_type::dram, false, address_space::shared},
    {"coloring_allocator_dram_debug", memory_type::dram, false, address_space::debug},
    {"coloring_allocator_dram_post_lnk", memory_type::dram, true, address_space::local},
    {"coloring_allocator_dram_shared_post_lnk", memory_type::dram, true, address_space::shared},
    {"coloring_allocator_reg", memory_type::reg, false, address_space::local},
};
inline constexpr std::size_t registration_count = std::size(registrations);

namespace detail {
template <memory_type Type>
struct default_geometry_of {
  // A memory a target adds (ir/target.hpp) may be linear or rectangles: only its spec, a run-time
  // value, says which, so the allocator's type must name its geometry.
  static_assert(!is_user_memory(Type),
                "coloring_allocator: a memory a target adds has no default geometry; name one as the Geometry "
                "parameter (linear_memory<M> or rect_memory<M>, gca/geometry/user_memory.hpp, or your own)");
  using type =
      std::conditional_t<Type == memory_type::sb, scratchpad_2d,
                         std::conditional_t<Type == memory_type::psum, psum_banks,
                                            std::conditional_t<Type == memory_type::dram, linear_dram, registers>>>;
};
}  // namespace detail

/// The geometry a memory is colored in unless an allocator names another (docs/HARDWARE.md section 5):
/// SBUF rectangles under the start-partition rule, PSUM banks, linear DRAM, interchangeable registers.
/// The memories a target adds have none (detail::default_geometry_of says why).
template <memory_type Type>
using default_geometry = typename detail::default_geometry_of<Type>::type;

/// The index in `registrations` of a tuple, or registration_count when no registration has it.
constexpr std::size_t registration_index(memory_type type, bool post_link, address_space from) noexcept {
  for (std::size_t k = 0; k < registration_count; ++k)
    if (registrations[k].type == type && registrations[k].post_link == post_link && registrations[k].from == from)
      return k;
  return registration_count;
}

/// The registered pass name of a tuple, or "" when no registration has it.
constexpr std::string_view registered_name(memory_type type, bool post_link, address_space from) noexcept {
  const std::size_t k = registration_index(type, post_link, from);
  return k < registration_count ? registrations[k].name : std::string_view{};
}

namespace detail {

template <class = void>
unsigned thread_count(unsigned requested) {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

template <class = void>
std::chrono::steady_clock::time_point deadline_after(double seconds) {
  if (!(seconds > 0) || seconds > 1e9) return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}


/// The bodies of the drivers' run()s (drivers/allocate.hpp), declared here so a file that runs a standard
/// allocator in the compiled mode (gca/compiled.hpp) needs only these declarations. They depend on the
/// linearization, spill policy and observer, not on the registration's tuple, so the eight allocators
/// share their copies.

/// A core-local or post-link allocator: per function, linearize, allocate the space `filter` names with
/// the spill fixpoint in `geom`, commit. (The body sees the geometry through a type-erased view, so the
/// engine under it is compiled once for every geometry.)
template <LinearizationPolicy Linearization, SpillPolicy Spill, GeometryPolicy Geometry, class Observer>
void allocate_standard(module& m, pass_report& rep, space_filter filter, bool post_link, const Geometry& geom,
                       const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                       const Spill& spill, Observer& obs);

/// Shared DRAM across the module's functions (coloring_allocator_dram_shared and its post-link form).
template <GeometryPolicy Geometry, class Observer>
void allocate_shared_dram(module& m, pass_report& rep, bool post_link, const Geometry& geom,
                          std::span<const color_options> variants, std::chrono::steady_clock::time_point deadline,
                          Observer& obs);

/// coloring_allocator_with_loop: per function, PSUM then SB on one flattened linearization, then index
/// legalization.
template <SpillPolicy Spill, GeometryPolicy PsumGeometry, GeometryPolicy SbGeometry, class Observer>
void allocate_with_loop(module& m, pass_report& rep, const PsumGeometry& psum, const SbGeometry& sb,
                        const allocator_options& opt, std::chrono::steady_clock::time_point deadline,
                        const Spill& spill, Observer& obs);

/// An allocator's geometry for a run on target `t`: the one it was given, or the model's for_target(t).
/// (The constructors that take no geometry require a TargetGeometry, so `given` is set otherwise.)
template <GeometryPolicy Geometry>
Geometry geometry_for(const std::optional<Geometry>& given, const target& t) {
  if constexpr (TargetGeometry<Geometry>) {
    return given ? *given : Geometry::for_target(t);
  } else {
    return *given;
  }
}

}  // namespace detail

template <memory_type Type, bool PostLink, address_space From, address_space To = address_space::local,
          LinearizationPolicy Linearization = opaque_loops, SpillPolicy Spill = spill_to_next_tier,
          GeometryPolicy Geometry = default_geometry<Type>>
class coloring_allocator {
  static_assert(invariant_violation(Type, PostLink, From) != 508,
                "coloring_allocator error 508: SB is allocated before linking (post_lnk must be false)");
  static_assert(invariant_violation(Type, PostLink, From) != 509,
                "coloring_allocator error 509: SB is core-local (from_space must be Local)");
  static_assert(invariant_violation(Type, PostLink, From) != 510,
                "coloring_allocator error 510: PSUM is allocated before linking (post_lnk must be false)");
  static_assert(invariant_violation(Type, PostLink, From) != 511,
                "coloring_allocator error 511: PSUM is core-local (from_space must be Local)");
  static_assert(invariant_violation(Type, PostLink, From) != 512,
                "coloring_allocator error 512 (gca): REG is core-local and not post-link");
  static_assert(invariant_violation(Type, PostLink, From) != 513,
                "coloring_allocator error 513 (gca): a target's own memory is core-local and not post-link");
  static_assert(Geometry::space == Type, "coloring_allocator: the geometry describes another memory than Type");

 public:
  static constexpr memory_type type = Type;
  static constexpr bool is_post_link = PostLink;
  static constexpr address_space from_space = From;
  static constexpr address_space to_space = To;  // the Neuron allocator's unexercised fourth argument, kept
  static constexpr std::string_view pass_name = registered_name(Type, PostLink, From);
  using linearization = Linearization;
  using spill_policy = Spill;
  using geometry = Geometry;

  /// The geometry is made from each module's target at run time (Geometry::for_target).
  explicit coloring_allocator(allocator_options opt = {}, Spill spill = {})
    requires TargetGeometry<Geometry>
      : opt_(std::move(opt)), spill_(std::move(spill)) {}
  /// Every run colors in `geom`, whatever the module's target (a user's memory, or a standard model
  /// made with other numbers than the target's).
  coloring_allocator(allocator_options opt, Spill spill, Geometry geom)
      : opt_(std::move(opt)), spill_(std::move(spill)), geom_(std::move(geom)) {}

  template <AllocationObserver Observer = null_observer>
  pass_report run(module& m, Observer&& obs = {}) const {
    pass_report rep;
    rep.pass = pass_name.empty() ? "coloring_allocator" : std::string(pass_name);
    const auto deadline = detail::deadline_after(opt_.timeout_seconds);
    // The work is done by functions that do not depend on the registration's tuple (only on the
    // linearization, spill policy, observer and geometry, which they see through a type-erased view),
    // so the eight allocators share one copy of the engine under them.
    const Geometry geom = detail::geometry_for(geom_, m.tgt);
    if constexpr (Type == memory_type::dram && From == address_space::shared) {
      detail::allocate_shared_dram(m, rep, PostLink, geom, opt_.variants, deadline, obs);
    } else {
      detail::allocate_standard<Linearization>(m, rep, space_filter{Type, From}, PostLink, geom, opt_, deadline,
                                               spill_, obs);
    }
    return rep;
  }

 private:
  allocator_options opt_;
  Spill spill_;
  std::optional<Geometry> geom_;  // nothing: Geometry::for_target(the module's target) at each run
};

/// Registration K of `registrations`, as its allocator type.
template <std::size_t K>
  requires(K < registration_count)
using registered_allocator =
    coloring_allocator<registrations[K].type, registrations[K].post_link, registrations[K].from>;

// The eight registrations by name. (A typedef's name cannot come from the table; the pass_name checks
// below tie each one to its entry.)
using coloring_allocator_psum = registered_allocator<0>;
using coloring_allocator_sb = registered_allocator<1>;
using coloring_allocator_dram = registered_allocator<2>;
using coloring_allocator_dram_shared = registered_allocator<3>;
using coloring_allocator_dram_debug = registered_allocator<4>;
using coloring_allocator_dram_post_lnk = registered_allocator<5>;
using coloring_allocator_dram_shared_post_lnk = registered_allocator<6>;
using coloring_allocator_reg = registered_allocator<7>;
static_assert(coloring_allocator_psum::pass_name == "coloring_allocator_psum");
static_assert(coloring_allocator_sb::pass_name == "coloring_allocator_sb");
static_assert(coloring_allocator_dram::pass_name == "coloring_allocator_dram");
static_assert(coloring_allocator_dram_shared::pass_name == "coloring_allocator_dram_shared");
static_assert(coloring_allocator_dram_debug::pass_name == "coloring_allocator_dram_debug");
static_assert(coloring_allocator_dram_post_lnk::pass_name == "coloring_allocator_dram_post_lnk");
static_assert(coloring_allocator_dram_shared_post_lnk::pass_name == "coloring_allocator_dram_shared_post_lnk");
static_assert(coloring_allocator_reg::pass_name == "coloring_allocator_reg");

/// All nine allocator pass names: the eight registrations in table order, then the loop-aware class.
inline constexpr auto allocator_pass_names = [] {
  std::array<std::string_view, registration_count + 1> names{};
  for (std::size_t k = 0; k < registration_count; ++k) names[k] = registrations[k].name;
  names[registration_count] = "coloring_allocator_with_loop";
  return names;
}();

/// the Neuron allocator's ColoringAllocatorWithLoop (optlevel 6): per function, linearize with flattened loops,
/// PSUM then SB on the same linearized function, index legalization, free. The two geometries are
/// policies as in coloring_allocator.
template <SpillPolicy Spill = spill_to_next_tier, GeometryPolicy PsumGeometry = psum_banks,
          GeometryPolicy SbGeometry = scratchpad_2d>
class basic_coloring_allocator_with_loop {
  static_assert(PsumGeometry::space == memory_type::psum, "coloring_allocator_with_loop: PsumGeometry is not PSUM");
  static_assert(SbGeometry::space == memory_type::sb, "coloring_allocator_with_loop: SbGeometry is not SB");

 public:
  static constexpr std::string_view pass_name = "coloring_allocator_with_loop";
  using linearization = flattened_loops;

  explicit basic_coloring_allocator_with_loop(allocator_options opt = {}, Spill spill = {})
    requires TargetGeometry<PsumGeometry> && TargetGeometry<SbGeometry>
      : opt_(std::move(opt)), spill_(std::move(spill)) {}
  basic_coloring_allocator_with_loop(allocator_options opt, Spill spill, PsumGeometry psum, SbGeometry sb)
      : opt_(std::move(opt)), spill_(std::move(spill)), psum_(std::move(psum)), sb_(std::move(sb)) {}

  template <AllocationObserver Observer = null_observer>
  pass_report run(module& m, Observer&& obs = {}) const {
    pass_report rep;
    rep.pass = std::string(pass_name);
    detail::allocate_with_loop(m, rep, detail::geometry_for(psum_, m.tgt), detail::geometry_for(sb_, m.tgt), opt_,
                               detail::deadline_after(opt_.timeout_seconds), spill_, obs);
    return rep;
  }

 private:
  allocator_options opt_;
  Spill spill_;
  std::optional<PsumGeometry> psum_;  // nothing: made from the module's target at each run
  std::optional<SbGeometry> sb_;
};

using coloring_allocator_with_loop = basic_coloring_allocator_with_loop<>;

}  // namespace gca

// The drivers' bodies (drivers/allocate.hpp), or, in the compiled mode, the declarations that they are
// instantiated in the gca_compiled library for the standard policies (gca/compiled.hpp).
#ifdef GCA_COMPILED
#include <gca/compiled.hpp>
#else
#include <gca/drivers/allocate.hpp>
#endif
