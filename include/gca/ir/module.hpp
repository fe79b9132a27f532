// gca/ir/module.hpp — the in-memory IR: modules of per-core functions, tensors, instructions, loops.
//
// Layout is chosen for 10^6 instructions: a function keeps its instructions in ONE vector in program
// order with loops in preorder (a loop instruction is followed by its body; `end` is one past its last
// body instruction), and every operand of every instruction in ONE flat vector. Building a function
// therefore costs no heap allocation per instruction, loops nest without pointers, and walking the
// program is a linear scan. Opcode and loop names are interned per function in `symbols`.
// Plain data; no concept. Validation against a target lives in ir/validate.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

struct tensor {
  std::string name;                           // without the leading '%'
  memory_type memory = memory_type::sb;
  address_space space = address_space::local;  // meaningful for dram only
  extent shape;                               // partitions x bytes per partition (REG: 1 x 4)
  tensor_kind kind = tensor_kind::internal;
  std::optional<placement> at;                // pinned (input) or allocated (output) placement
  bool pinned = false;                        // `at` is the user's (never moved), not an allocator's;
                                              // not part of equality: a printed allocation re-read
                                              // pins everything, which is what re-reading it means
  origin_kind origin = origin_kind::user;     // what the allocator made it for (user: the program's own)
  tensor_id origin_of = no_tensor;            // the tensor it stands for; always declared before it
  source_loc loc;                             // where it was declared; not part of equality

  friend bool operator==(const tensor& a, const tensor& b) {
    return a.name == b.name && a.memory == b.memory && a.space == b.space && a.shape == b.shape &&
           a.kind == b.kind && a.at == b.at && a.origin == b.origin && a.origin_of == b.origin_of;
  }
};

/// Symbols every function starts with, at these fixed ids. Moves (copy..reload) carry their input's
/// value to their output; every other opcode computes a new value.
namespace op {
inline constexpr symbol_id loop = 0;
inline constexpr symbol_id copy = 1;
inline constexpr symbol_id dma = 2;
inline constexpr symbol_id load = 3;
inline constexpr symbol_id store = 4;
inline constexpr symbol_id spill = 5;
inline constexpr symbol_id reload = 6;
inline constexpr symbol_id builtin_count = 7;
inline constexpr std::string_view builtin_names[builtin_count] = {"loop",  "copy",  "dma",   "load",
                                                                   "store", "spill", "reload"};
constexpr bool is_move(symbol_id s) noexcept { return s >= copy && s <= reload; }
}  // namespace op

struct instruction {
  symbol_id opcode = 0;             // into function::symbols (op::loop for a loop)
  std::uint32_t first_operand = 0;  // into function::operands: n_outputs outputs, then n_inputs inputs
  std::uint32_t n_outputs = 0;
  std::uint32_t n_inputs = 0;
  bool rmw = false;                 // `+=`: the outputs are read too (PSUM accumulation)
  inst_id end = 0;                  // loop: one past its body; otherwise this instruction's id + 1
  std::uint64_t trips = 1;          // loop trip count (>= 1); 1 for other instructions
  symbol_id label = 0;              // loop name (into symbols); unused otherwise
  source_loc loc;                   // where it was written; not part of equality

  bool is_loop() const noexcept { return opcode == op::loop; }
};

class function {
 public:
  std::string name;
  std::uint32_t core = 0;
  std::vector<tensor> tensors;
  std::vector<instruction> insts;
  std::vector<tensor_id> operands;
  std::vector<std::string> symbols{op::builtin_names, op::builtin_names + op::builtin_count};
  source_loc loc;

  std::span<const tensor_id> outputs(const instruction& i) const noexcept {
    return {operands.data() + i.first_operand, i.n_outputs};
  }
  std::span<const tensor_id> inputs(const instruction& i) const noexcept {
    return {operands.data() + i.first_operand + i.n_outputs, i.n_inputs};
  }
  std::string_view opcode_name(const instruction& i) const noexcept { return symbols[i.opcode]; }

  /// Linear search; the parser keeps its own index. Returns no_tensor when absent.
  template <class = void>
  tensor_id find_tensor(std::string_view n) const noexcept {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].name == n) return static_cast<tensor_id>(i);
    return no_tensor;
  }

  /// Interns a symbol. Linear in the number of distinct symbols, which stays small (opcodes, loops).
  template <class = void>
  symbol_id intern(std::string_view s) {
    for (std::size_t i = 0; i < symbols.size(); ++i)
      if (symbols[i] == s) return static_cast<symbol_id>(i);
    symbols.emplace_back(s);
    return static_cast<symbol_id>(symbols.size() - 1);
  }

  /// Appends an instruction to the innermost open loop (or the function body).
  template <class = void>
  inst_id add_instruction(symbol_id opcode, std::span<const tensor_id> outs,
                          std::span<const tensor_id> ins, bool rmw = false, source_loc at = {}) {
    instruction i;
    i.opcode = opcode;
    i.first_operand = static_cast<std::uint32_t>(operands.size());
    i.n_outputs = static_cast<std::uint32_t>(outs.size());
    i.n_inputs = static_cast<std::uint32_t>(ins.size());
    i.rmw = rmw;
    i.loc = at;
    operands.insert(operands.end(), outs.begin(), outs.end());
    operands.insert(operands.end(), ins.begin(), ins.end());
    const auto id = static_cast<inst_id>(insts.size());
    i.end = id + 1;
    insts.push_back(i);
    return id;
  }

  /// Opens a loop; instructions added until the matching end_loop() form its body.
  template <class = void>
  inst_id begin_loop(symbol_id label, std::uint64_t trips, source_loc at = {}) {
    instruction i;
    i.opcode = op::loop;
    i.first_operand = static_cast<std::uint32_t>(operands.size());
    i.trips = trips;
    i.label = label;
    i.loc = at;
    const auto id = static_cast<inst_id>(insts.size());
    insts.push_back(i);
    open_loops_.push_back(id);
    return id;
  }
  template <class = void>
  void end_loop() {
    if (open_loops_.empty()) throw input_error("function '" + name + "': end_loop() without a loop");
    insts[open_loops_.back()].end = static_cast<inst_id>(insts.size());
    open_loops_.pop_back();
  }
  std::size_t open_loops() const noexcept { return open_loops_.size(); }

  friend bool operator==(const function& a, const function& b) {
    if (a.name != b.name || a.core != b.core || a.tensors != b.tensors || a.operands != b.operands ||
        a.insts.size() != b.insts.size())
      return false;
    for (std::size_t k = 0; k < a.insts.size(); ++k) {
      const instruction& x = a.insts[k];
      const instruction& y = b.insts[k];
      if (a.symbols[x.opcode] != b.symbols[y.opcode] || x.first_operand != y.first_operand ||
          x.n_outputs != y.n_outputs || x.n_inputs != y.n_inputs || x.rmw != y.rmw ||
          x.end != y.end || x.trips != y.trips ||
          (x.is_loop() && a.symbols[x.label] != b.symbols[y.label]))
        return false;
    }
    return true;
  }

 private:
  std::vector<inst_id> open_loops_;
};

struct module {
  std::string name;
  target tgt = trn2;
  std::vector<function> functions;
  friend bool operator==(const module& a, const module& b) {
    return a.name == b.name && a.tgt == b.tgt && a.functions == b.functions;
  }
};

/// The program's own tensor behind `t`: t itself, or where its chain of origins ends (a DRAM slot of an
/// SB slot of %x is %x's). The walk ends because an origin is always an earlier tensor (validate()).
template <class = void>
tensor_id user_tensor(const function& f, tensor_id t) noexcept {
  while (t < f.tensors.size() && f.tensors[t].origin != origin_kind::user && f.tensors[t].origin_of < t)
    t = f.tensors[t].origin_of;
  return t;
}

/// The innermost loop enclosing each instruction (no_inst for top level), computed with an explicit
/// stack so that deep nests cost no recursion.
inline constexpr inst_id no_inst = ~inst_id{0};
template <class = void>
std::vector<inst_id> loop_parents(const function& f) {
  std::vector<inst_id> parent(f.insts.size(), no_inst);
  std::vector<inst_id> stack;
  for (inst_id i = 0; i < f.insts.size(); ++i) {
    while (!stack.empty() && f.insts[stack.back()].end <= i) stack.pop_back();
    parent[i] = stack.empty() ? no_inst : stack.back();
    if (f.insts[i].is_loop()) stack.push_back(i);
  }
  return parent;
}

/// Per loop instruction, how often its body runs: its trip count times that of every loop around it
/// (1 for the other instructions). The one rule of the spill costs (liveness/live_ranges.hpp) and of
/// the spill edit's cycle counts (spill/edit.hpp).
template <class = void>
std::vector<double> loop_weights(const function& f, const std::vector<inst_id>& parent) {
  std::vector<double> w(f.insts.size(), 1.0);
  for (inst_id k = 0; k < f.insts.size(); ++k)
    if (f.insts[k].is_loop())
      w[k] = static_cast<double>(f.insts[k].trips) * (parent[k] == no_inst ? 1.0 : w[parent[k]]);
  return w;
}

}  // namespace gca
