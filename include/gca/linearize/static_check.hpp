// gca/linearize/static_check.hpp — the Neuron allocator's "linearize and check": use-before-def and dead defs.
//
// Provides `static_check(function)`: the names read before any definition, and the names with a
// definition no read can see (output tensors are exempt: the caller reads them). Reads inside a loop
// body also see definitions made later in the body by the previous iteration (when the loop runs more
// than once) and definitions made before the loop. Reported with the Neuron allocator's wording:
//   Bad input file - failed static checks.
//   <N> names were undefined at use point
//   <N> names were unused at definition point
// Every instruction of a loop body runs on every iteration (the IR has no branches) and trips >= 1,
// so "first event of a tensor in program order" decides questions of the first iteration exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gca/ir/def_use.hpp>
#include <gca/ir/module.hpp>

namespace gca {

struct name_diagnostic {
  tensor_id tensor = no_tensor;
  source_loc loc;  // the offending use (undefined) or definition (unused)
};

struct static_check_report {
  std::vector<name_diagnostic> undefined;  // one per name, at its first offending use
  std::vector<name_diagnostic> unused;     // one per name, at its first dead definition
  bool ok() const noexcept { return undefined.empty() && unused.empty(); }

  /// the Neuron allocator's lines, then one `FILE:LINE: %name ...` line per offending name.
  template <class = void>
  std::string message(const function& f, const std::string& file = "<input>") const {
    std::ostringstream os;
    if (ok()) return {};
    os << "Bad input file - failed static checks.\n";
    os << undefined.size() << " names were undefined at use point\n";
    for (const auto& d : undefined)
      os << file << ':' << d.loc.line << ": %" << f.tensors[d.tensor].name
         << " is read before any definition (function '" << f.name << "')\n";
    os << unused.size() << " names were unused at definition point\n";
    for (const auto& d : unused)
      os << file << ':' << d.loc.line << ": %" << f.tensors[d.tensor].name
         << " is defined here and never read (function '" << f.name << "')\n";
    return os.str();
  }
};

namespace detail {

/// Does the value written by event `e` (a def of the tensor whose events are `ev`) reach a read?
/// Walks outwards through the enclosing loops: first the rest of the current body, then (if the loop
/// repeats) the body from its top, then whatever follows the loop.
template <class = void>
bool def_reaches_read(const function& f, const std::vector<inst_id>& parent,
                      std::span<const def_use_event> ev, std::size_t e) {
  inst_id pos = ev[e].inst;
  inst_id scope = parent[pos];
  auto first_at_or_after = [&](inst_id from) {
    return std::partition_point(ev.begin(), ev.end(), [&](const def_use_event& x) { return x.inst < from; });
  };
  for (;;) {
    const inst_id limit = scope == no_inst ? static_cast<inst_id>(f.insts.size()) : f.insts[scope].end;
    auto next = first_at_or_after(pos + 1);
    if (next != ev.end() && next->inst < limit) return !next->is_def;
    if (scope == no_inst) return false;
    if (f.insts[scope].trips > 1) {
      // Back edge: the next iteration starts at the top of the body, and the first event there (at
      // or before `pos`, as nothing lies between pos and the end of the body) is a read or a kill.
      // A kill ends only this path: the last iteration still leaves the loop with the value.
      auto top = first_at_or_after(scope + 1);
      if (top != ev.end() && top->inst < limit && !top->is_def) return true;
    }
    pos = limit - 1;
    scope = parent[scope];
  }
}

}  // namespace detail

template <class = void>
static_check_report static_check(const function& f, const def_use_index& du,
                                 const std::vector<inst_id>& parent) {
  static_check_report r;
  for (tensor_id t = 0; t < f.tensors.size(); ++t) {
    const auto ev = du.of(t);
    if (ev.empty()) continue;
    const tensor& x = f.tensors[t];
    // A dram.shared buffer is one value across the module's cores: another core may define it or
    // read it, so neither check can be decided inside one function.
    if (x.memory == memory_type::dram && x.space == address_space::shared) continue;
    if (x.kind != tensor_kind::input && !ev.front().is_def)
      r.undefined.push_back({t, f.insts[ev.front().inst].loc});
    if (x.kind == tensor_kind::output) continue;
    for (std::size_t e = 0; e < ev.size(); ++e) {
      if (!ev[e].is_def) continue;
      if (!detail::def_reaches_read(f, parent, ev, e)) {
        r.unused.push_back({t, f.insts[ev[e].inst].loc});
        break;
      }
    }
  }
  return r;
}

template <class = void>
static_check_report static_check(const function& f) {
  return static_check(f, build_def_use(f), loop_parents(f));
}

}  // namespace gca
