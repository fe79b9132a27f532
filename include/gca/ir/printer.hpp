// gca/ir/printer.hpp — writes the canonical text form of a module (docs/FORMAT.md).
//
// Provides `print(module)` / `print(os, module)`. The form is canonical and byte-stable: one blank
// line after the module line and between functions, tensors first in declaration order, two spaces
// of indentation per nesting level, operands separated by ", ". parse(print(m)) == m for every valid
// module, and an allocated module prints every placement after '@', so it is valid input again.
#pragma once

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gca/ir/module.hpp>

namespace gca {

template <class = void>
void print_shape(std::ostream& os, const target& t, const tensor& x) {
  switch (layout_of(t, x.memory)) {
    case memory_layout::rectangles: os << ' ' << x.shape.partitions << 'x' << x.shape.bytes; break;
    case memory_layout::linear: os << ' ' << x.shape.bytes; break;
    case memory_layout::registers: break;
  }
}

template <class = void>
void print_placement(std::ostream& os, memory_layout layout, const placement& p) {
  switch (layout) {
    case memory_layout::rectangles: os << p.partition << ':' << p.offset; break;
    case memory_layout::linear: os << p.offset; break;
    case memory_layout::registers: os << 'r' << p.offset; break;
  }
}

template <class = void>
void print_memory(std::ostream& os, const target& t, const tensor& x) {
  os << memory_name(t, x.memory);
  if (x.memory == memory_type::dram && x.space != address_space::local) os << '.' << to_string(x.space);
}

/// One tensor's declaration; `t` names and shapes the memories a target adds.
template <class = void>
void print_tensor(std::ostream& os, const target& t, const function& f, const tensor& x) {
  os << "tensor %" << x.name << " : ";
  print_memory(os, t, x);
  print_shape(os, t, x);
  if (x.kind == tensor_kind::input) os << " input";
  if (x.kind == tensor_kind::output) os << " output";
  if (x.at) {
    os << " @ ";
    print_placement(os, layout_of(t, x.memory), *x.at);
  }
  if (x.origin != origin_kind::user && x.origin_of < f.tensors.size())
    os << ' ' << origin_keyword(x.origin) << " %" << f.tensors[x.origin_of].name;
}

template <class = void>
void print_instruction(std::ostream& os, const function& f, const instruction& i) {
  const auto outs = f.outputs(i);
  for (std::size_t k = 0; k < outs.size(); ++k) os << (k ? ", %" : "%") << f.tensors[outs[k]].name;
  if (!outs.empty()) os << (i.rmw ? " += " : " = ");
  os << f.opcode_name(i);
  const auto ins = f.inputs(i);
  for (std::size_t k = 0; k < ins.size(); ++k) os << (k ? ", %" : " %") << f.tensors[ins[k]].name;
}

/// One function of a module on target `t`.
template <class = void>
void print(std::ostream& os, const target& t, const function& f) {
  os << "function " << f.name << " core=" << f.core << " {\n";
  for (const tensor& x : f.tensors) {
    os << "  ";
    print_tensor(os, t, f, x);
    os << '\n';
  }
  std::vector<inst_id> open;  // loop ends, innermost last
  std::string indent = "  ";
  for (inst_id k = 0; k < f.insts.size(); ++k) {
    while (!open.empty() && open.back() == k) {
      open.pop_back();
      indent.resize(indent.size() - 2);
      os << indent << "}\n";
    }
    const instruction& i = f.insts[k];
    os << indent;
    if (i.is_loop()) {
      os << "loop " << f.symbols[i.label] << ' ' << i.trips << " {\n";
      open.push_back(i.end);
      indent += "  ";
      if (i.end == k + 1) {  // empty body
        open.pop_back();
        indent.resize(indent.size() - 2);
        os << indent << "}\n";
      }
      continue;
    }
    print_instruction(os, f, i);
    os << '\n';
  }
  while (!open.empty()) {
    open.pop_back();
    indent.resize(indent.size() - 2);
    os << indent << "}\n";
  }
  os << "}\n";
}

template <class = void>
void print(std::ostream& os, const module& m) {
  os << "module " << m.name << " target=" << m.tgt.name << '\n';
  for (const function& f : m.functions) {
    os << '\n';
    print(os, m.tgt, f);
  }
}

template <class = void>
std::string print(const module& m) {
  std::ostringstream os;
  print(os, m);
  return os.str();
}

}  // namespace gca
