// gca/engine/observer.hpp — where the colorers' log lines go.
//
// Provides the observer policy the colorers report through: the concept `AllocationObserver` with its
// contract, its two models, `null_observer` (the default: silent) and `stream_observer` (writes the
// Neuron allocator's lines, word for word, to an std::ostream, for `gca-alloc -v`), and `observer_ref`,
// one type for any observer, through which the engine calls them (so the engine is compiled once for
// every observer; the hooks fire a few times per round). The hooks are named after the moment they fire. The same figures are
// returned as values (see spill/fixpoint.hpp `space_report`), so nobody has to parse the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

/**
 * @brief What the drivers report to while they allocate (`run(module, observer)`).
 *
 * Syntactic requirements, for an lvalue `o` of type O, a memory_type `m`, a string_view `s`, sizes `n`,
 * `k` and counts `c`, `b`:
 *   o.will_allocate(m)              a space of memory m is about to be colored
 *   o.best_of_n(m, s)               the best-of-n loop tries heuristic s
 *   o.score(m, c)                   the chosen coloring's score (its peak)
 *   o.did_color(m, s)               the space was colored; s names the heuristic kept
 *   o.did_finish(m, n, c, k, b)     the spill fixpoint ended: iterations, estimated cycles of its spill
 *                                   code, tensors spilled, bytes per partition spilled
 *   o.note(s)                       a free-form line
 *
 * Semantic requirements: an observer only watches. The hooks may not touch the module being allocated
 * (the drivers work on a copy and the allocation does not depend on what a hook does), and they are
 * called from one thread at a time, in program order of the run: a driver given an observer other than
 * null_observer runs its functions serially so the lines come in function order (docs/ALLOCATOR.md,
 * section 5). A hook may throw; the run then leaves the module unchanged, as any failed run does.
 *
 * Models: null_observer, stream_observer (below); tests/test_reliability.cpp's sleepy_observer; and
 * observer_ref, which stands for any of them.
 */
template <class O>
concept AllocationObserver =
    requires(O& o, memory_type m, std::string_view s, std::size_t n, std::uint64_t c) {
      o.will_allocate(m);
      o.best_of_n(m, s);
      o.score(m, c);
      o.did_color(m, s);
      o.did_finish(m, n, c, n, c);
      o.note(s);
    };

struct null_observer {
  void will_allocate(memory_type) {}
  void best_of_n(memory_type, std::string_view) {}
  void score(memory_type, std::uint64_t) {}
  void did_color(memory_type, std::string_view) {}
  void did_finish(memory_type, std::size_t, std::uint64_t, std::size_t, std::uint64_t) {}
  void note(std::string_view) {}
};

/// the Neuron allocator's log lines (docs/HARDWARE.md section 3), "SB" replaced by the space's name.
/// `tgt`, when given, names the memories a target adds (ir/target.hpp); without it they print as "?".
struct stream_observer {
  std::ostream* os;
  const target* tgt = nullptr;
  std::string_view log_name(memory_type m) const { return tgt ? gca::log_name(*tgt, m) : gca::log_name(m); }
  void will_allocate(memory_type m) { *os << "  allocating " << log_name(m) << '\n'; }
  void best_of_n(memory_type, std::string_view h) { *os << "      best-of-n loop, heuristic = " << h << '\n'; }
  void score(memory_type m, std::uint64_t s) { *os << "        " << log_name(m) << " score = " << s << '\n'; }
  void did_color(memory_type m, std::string_view h) {
    *os << "      best " << log_name(m) << " heuristic = " << h << '\n';
  }
  /// After the fixpoint: iterations, estimated cycles, tensors spilled, bytes per partition spilled.
  template <class = void>
  void did_finish(memory_type m, std::size_t iterations, std::uint64_t cycles, std::size_t spilled,
                  std::uint64_t bytes) {
    const std::string_view n = log_name(m);
    *os << "Number of iterations in " << n << " spills do loop: " << iterations << '\n';
    *os << "spilling from " << n << " cost about " << cycles << " cycles\n";
    *os << "number of tensors spilled from " << n << " = " << spilled << '\n';
    *os << "total size of spilled tensors = " << bytes << " bytes/partition\n";
  }
  void note(std::string_view s) { *os << s << '\n'; }
};

/// Any AllocationObserver behind one type (a pointer to it and its hooks). The spill fixpoint and the
/// space colorer take their observer through it, so their bodies are compiled once, not once per
/// observer type: a driver run with a caller's observer, the colorer-alone run that records its lines
/// (spill/fixpoint.hpp), and the silent runs inside the placement steps all share one copy. The hooks
/// fire a few times per fixpoint round, so the indirect call costs nothing measurable; what it saves is
/// a copy of the fixpoint and everything under it per observer (docs/PERFORMANCE.md section 6).
class observer_ref {
 public:
  template <AllocationObserver O>
    requires(!std::is_same_v<O, observer_ref>)
  observer_ref(O& o) noexcept : self_(&o), hooks_(&hooks_of<O>) {}  // NOLINT: converts, like a reference
  void will_allocate(memory_type m) { hooks_->will_allocate(self_, m); }
  void best_of_n(memory_type m, std::string_view h) { hooks_->best_of_n(self_, m, h); }
  void score(memory_type m, std::uint64_t s) { hooks_->score(self_, m, s); }
  void did_color(memory_type m, std::string_view h) { hooks_->did_color(self_, m, h); }
  void did_finish(memory_type m, std::size_t iterations, std::uint64_t cycles, std::size_t spilled, std::uint64_t bytes) {
    hooks_->did_finish(self_, m, iterations, cycles, spilled, bytes);
  }
  void note(std::string_view s) { hooks_->note(self_, s); }

 private:
  struct hooks {
    void (*will_allocate)(void*, memory_type);
    void (*best_of_n)(void*, memory_type, std::string_view);
    void (*score)(void*, memory_type, std::uint64_t);
    void (*did_color)(void*, memory_type, std::string_view);
    void (*did_finish)(void*, memory_type, std::size_t, std::uint64_t, std::size_t, std::uint64_t);
    void (*note)(void*, std::string_view);
  };
  template <class O>
  static constexpr hooks hooks_of{
      [](void* o, memory_type m) { static_cast<O*>(o)->will_allocate(m); },
      [](void* o, memory_type m, std::string_view h) { static_cast<O*>(o)->best_of_n(m, h); },
      [](void* o, memory_type m, std::uint64_t s) { static_cast<O*>(o)->score(m, s); },
      [](void* o, memory_type m, std::string_view h) { static_cast<O*>(o)->did_color(m, h); },
      [](void* o, memory_type m, std::size_t i, std::uint64_t c, std::size_t k, std::uint64_t b) {
        static_cast<O*>(o)->did_finish(m, i, c, k, b);
      },
      [](void* o, std::string_view s) { static_cast<O*>(o)->note(s); },
  };
  void* self_;
  const hooks* hooks_;
};

static_assert(AllocationObserver<null_observer> && AllocationObserver<stream_observer> && AllocationObserver<observer_ref>);

}  // namespace gca
