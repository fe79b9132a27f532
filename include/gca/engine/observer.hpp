// gca/engine/observer.hpp — where the colorers' log lines go.
//
// Provides the observer policy the colorers report through: `null_observer` (the default: silent, and
// free, since every call inlines to nothing) and `stream_observer` (writes the Neuron allocator's lines, word for
// word, to an std::ostream, for `gca-alloc -v`). An observer is any type with the members below; the
// hooks are named after the moment they fire. The same figures are returned as values (see
// spill/fixpoint.hpp `space_report`), so nobody has to parse the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

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

}  // namespace gca
