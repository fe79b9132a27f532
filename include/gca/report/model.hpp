// gca/report/model.hpp — what a report of an allocated function shows, computed here so that the tools
// only print (gca-alloc's JSON and SVG reports, examples/report_writers.hpp):
//
//   role_of(f, t)          a tensor's role: the program's own, a spill slot or a spill/reload temporary,
//                          read off its origin (ir/module.hpp), never guessed from its name
//   memory_peaks(f, tgt)   per memory (and DRAM address space) that holds tensors: its tensors, how many
//                          are unplaced, the highest placed end, its unit and the capacity
//   read_chain(lf)         per program point of the linearized chain its label and kind; each loop's
//                          span, depth and trips; the spill and reload moves with their memories
//
// Layer: reads the IR and the linearized chain (ir/, linearize/); no allocator, no output format.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>

namespace gca {

/// What a tensor is for in a report. A web split off into a tensor of its own plays the role of the
/// tensor it was split from (a split web of a slot is a slot).
enum class tensor_role : std::uint8_t { plain = 0, spill_slot = 1, reload_temp = 2 };

constexpr std::string_view to_string(tensor_role r) noexcept {
  switch (r) {
    case tensor_role::plain: return "tensor";
    case tensor_role::spill_slot: return "spill_slot";
    case tensor_role::reload_temp: return "reload_temp";
  }
  return "tensor";
}

template <class = void>
tensor_role role_of(const function& f, tensor_id t) noexcept {
  // Origins are earlier tensors (validate()), so the walk over split webs ends.
  while (t < f.tensors.size() && f.tensors[t].origin == origin_kind::split_web && f.tensors[t].origin_of < t)
    t = f.tensors[t].origin_of;
  if (t >= f.tensors.size()) return tensor_role::plain;
  switch (f.tensors[t].origin) {
    case origin_kind::spill_slot: return tensor_role::spill_slot;
    case origin_kind::spill_temp: return tensor_role::reload_temp;
    case origin_kind::user:
    case origin_kind::split_web: break;
  }
  return tensor_role::plain;
}

/// role_of for every tensor of f.
template <class = void>
std::vector<tensor_role> tensor_roles(const function& f) {
  std::vector<tensor_role> role(f.tensors.size());
  for (tensor_id t = 0; t < f.tensors.size(); ++t) role[t] = role_of(f, t);
  return role;
}

/// One past the highest unit a placed tensor uses: bytes per partition (SB, PSUM, a rectangle memory a
/// target adds), bytes (DRAM, a linear memory a target adds), registers (REG); 0 when unplaced.
template <class = void>
std::uint64_t placed_end(const tensor& t) noexcept {
  if (!t.at) return 0;
  switch (t.memory) {
    case memory_type::reg: return t.at->offset + 1;
    case memory_type::dram: return t.at->offset + std::uint64_t{t.shape.partitions} * t.shape.bytes;
    case memory_type::sb:
    case memory_type::psum: return t.at->offset + t.shape.bytes;
  }
  return t.at->offset + t.shape.bytes;  // a memory a target adds: linear (1 partition) or per partition
}

/// The unit of placed_end and of the capacity of memory m.
constexpr std::string_view peak_unit(const target& t, memory_type m) noexcept {
  switch (layout_of(t, m)) {
    case memory_layout::rectangles: return "bytes per partition";
    case memory_layout::linear: return "bytes";
    case memory_layout::registers: return "registers";
  }
  return "";
}

/// One memory (one DRAM address space) of a function, as the reports show it.
struct memory_peak {
  memory_type memory = memory_type::sb;
  address_space space = address_space::local;  // local unless DRAM
  std::vector<tensor_id> tensors;               // in id order
  std::size_t unplaced = 0;
  std::uint64_t peak = 0;                       // the highest placed_end
  std::uint64_t capacity = 0;                   // capacity_of(target, memory), in peak_unit(target, memory)
};

/// The memories of f that hold tensors, in the order `order` lists them (DRAM split by address space:
/// local, shared, debug), then the memories the target adds, in its order.
template <class = void>
std::vector<memory_peak> memory_peaks(const function& f, const target& tgt,
                                      std::initializer_list<memory_type> order = {
                                                 memory_type::sb, memory_type::psum, memory_type::dram,
                                                 memory_type::reg}) {
  std::vector<memory_type> all(order);
  for (std::size_t k = 0; k < tgt.memories.size(); ++k) all.push_back(static_cast<memory_type>(first_user_memory + k));
  std::vector<memory_peak> out;
  for (memory_type mem : all)
    for (address_space sp : {address_space::local, address_space::shared, address_space::debug}) {
      if (mem != memory_type::dram && sp != address_space::local) continue;
      memory_peak p{mem, sp, {}, 0, 0, capacity_of(tgt, mem)};
      for (tensor_id t = 0; t < f.tensors.size(); ++t) {
        const tensor& x = f.tensors[t];
        if (x.memory != mem || (mem == memory_type::dram && x.space != sp)) continue;
        p.tensors.push_back(t);
        if (!x.at) ++p.unplaced;
        p.peak = std::max(p.peak, placed_end(x));
      }
      if (!p.tensors.empty()) out.push_back(std::move(p));
    }
  return out;
}

/// A loop of the chain: [begin, end) is its own point and its body's (an opaque loop: its point only).
struct loop_span {
  program_point begin, end;
  std::uint32_t depth;
  std::string name;
  std::uint64_t trips;
};

/// A spill store or a reload (a re-load from the source counts: a load into a spill temporary).
struct move_point {
  program_point point;
  bool is_spill;                    // else a reload
  std::vector<memory_type> memories;  // of its operands, outputs first
};

enum class point_kind : std::uint8_t { plain = 0, spill = 1, reload = 2, loop = 3, boundary = 4 };

/// What a report needs of one function's chain, per point 0..N+1 (0 the entry, N+1 the exit).
struct chain_facts {
  std::vector<std::string> point_label;  // "entry", the opcode, "loop NAME", "exit"
  std::vector<point_kind> kind;
  std::vector<loop_span> loops;
  std::vector<move_point> moves;
  std::uint32_t max_depth = 0;           // loop nesting depth (0: no loops)
};

template <class = void>
chain_facts read_chain(const linearized_function& lf) {
  const function& f = lf.work();
  const std::size_t n = lf.points();
  chain_facts c;
  c.point_label.assign(n + 2, "");
  c.kind.assign(n + 2, point_kind::plain);
  c.point_label[0] = "entry";
  c.point_label[n + 1] = "exit";
  c.kind[0] = c.kind[n + 1] = point_kind::boundary;
  std::vector<std::size_t> open;  // indices into c.loops, innermost last
  for (const chain_node& node : lf.chain()) {
    // A point no deeper than an open loop's own point is past that loop's body.
    while (!open.empty() && node.depth <= c.loops[open.back()].depth) {
      c.loops[open.back()].end = node.point;
      open.pop_back();
    }
    const instruction& i = f.insts[node.inst];
    c.point_label[node.point] = std::string(f.opcode_name(i));
    if (i.is_loop()) {
      c.point_label[node.point] = "loop " + f.symbols[i.label];
      c.kind[node.point] = point_kind::loop;
      c.loops.push_back({node.point, node.point + 1, node.depth, f.symbols[i.label], i.trips});
      c.max_depth = std::max(c.max_depth, node.depth + 1);
      if (!node.opaque_loop) open.push_back(c.loops.size() - 1);
      continue;
    }
    const bool is_spill = i.opcode == op::spill;
    bool is_reload = i.opcode == op::reload;
    if (i.opcode == op::load)
      for (tensor_id t : f.outputs(i))
        if (role_of(f, t) == tensor_role::reload_temp) is_reload = true;
    if (!is_spill && !is_reload) continue;
    c.kind[node.point] = is_spill ? point_kind::spill : point_kind::reload;
    move_point mp{node.point, is_spill, {}};
    for (tensor_id t : f.outputs(i)) mp.memories.push_back(f.tensors[t].memory);
    for (tensor_id t : f.inputs(i)) mp.memories.push_back(f.tensors[t].memory);
    c.moves.push_back(std::move(mp));
  }
  for (std::size_t k : open) c.loops[k].end = static_cast<program_point>(n + 1);
  return c;
}

}  // namespace gca
