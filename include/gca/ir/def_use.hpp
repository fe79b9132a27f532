// gca/ir/def_use.hpp — every read and write of every tensor, grouped by tensor, in program order.
//
// Provides `def_use_index`: a compressed (CSR) list of events per tensor, each naming the instruction
// and whether it reads or writes. Within one instruction reads come before writes (an instruction
// reads all its inputs before it writes its outputs), so a `+=` is a read then a write of its outputs.
// Built in two linear passes with no per-tensor allocation; the static check, liveness and the
// verifier's bookkeeping all start from it. Plain data; no concept.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gca/ir/module.hpp>

namespace gca {

struct def_use_event {
  inst_id inst = 0;   // the instruction (never a loop: loops themselves read and write nothing)
  bool is_def = false;  // a write (for `+=`, the write that follows the read)
};

struct def_use_index {
  std::vector<std::uint32_t> begin;  // events of tensor t: events[begin[t] .. begin[t+1])
  std::vector<def_use_event> events;

  std::span<const def_use_event> of(tensor_id t) const noexcept {
    return {events.data() + begin[t], begin[t + 1] - begin[t]};
  }
};

template <class = void>
def_use_index build_def_use(const function& f) {
  def_use_index d;
  d.begin.assign(f.tensors.size() + 1, 0);
  auto each = [&](auto&& visit) {
    for (inst_id k = 0; k < f.insts.size(); ++k) {
      const instruction& i = f.insts[k];
      if (i.is_loop()) continue;
      for (tensor_id x : f.inputs(i)) visit(x, k, false);
      if (i.rmw)
        for (tensor_id x : f.outputs(i)) visit(x, k, false);
      for (tensor_id x : f.outputs(i)) visit(x, k, true);
    }
  };
  each([&](tensor_id x, inst_id, bool) { ++d.begin[x + 1]; });
  for (std::size_t t = 1; t < d.begin.size(); ++t) d.begin[t] += d.begin[t - 1];
  d.events.resize(d.begin.back());
  std::vector<std::uint32_t> fill(d.begin.begin(), d.begin.end() - 1);
  each([&](tensor_id x, inst_id k, bool def) { d.events[fill[x]++] = {k, def}; });
  return d;
}

}  // namespace gca
