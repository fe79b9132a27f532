// gca/ir/validate.hpp — the target rules every tensor must obey (docs/HARDWARE.md section 5).
//
// Provides `tensor_problem` (the first rule a tensor breaks, as a message, or nothing), the start-
// partition rule shared with the SB/PSUM geometries and the verifier, `place_rules` (what a memory's
// geometry allows beyond the target's rules), and `validate(module)`, which
// throws input_error naming the function and tensor. The parser calls tensor_problem and wraps the
// message with file:line:col, so text and API input get the same wording.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>

namespace gca {

/// Start-partition rule: a tensor of more than 64 partitions starts at 0; 33..64 at 0 or 64;
/// 1..32 at 0, 32, 64 or 96. Equivalently: the start is a multiple of the smallest power-of-two
/// quadrant (32, 64 or 128) that holds the tensor.
constexpr std::uint32_t partition_step(std::uint32_t partitions) noexcept {
  return partitions > 64 ? 128 : partitions > 32 ? 64 : 32;
}
constexpr bool valid_start_partition(std::uint32_t start, std::uint32_t partitions) noexcept {
  return start % partition_step(partitions) == 0;
}

/// The capacity of one partition of `m` on `t` (bytes), DRAM's byte budget, or the register count.
constexpr std::uint64_t capacity_of(const target& t, memory_type m) noexcept {
  switch (m) {
    case memory_type::sb: return t.sb_usable;
    case memory_type::psum: return t.psum_bytes();
    case memory_type::dram: return t.dram_bytes;
    case memory_type::reg: return t.registers;
  }
  const memory_spec* s = user_memory(t, m);
  return s != nullptr ? s->bytes : 0;
}
constexpr std::uint64_t alignment_of(const target& t, memory_type m) noexcept {
  switch (m) {
    case memory_type::sb: return t.sb_alignment;
    case memory_type::psum: return t.psum_alignment;
    case memory_type::dram: return t.dram_alignment;
    case memory_type::reg: return 1;
  }
  const memory_spec* s = user_memory(t, m);
  return s != nullptr && s->alignment != 0 ? s->alignment : 1;
}

/// What is wrong with the memories a target adds, or nothing: each needs a fresh lowercase name, a log
/// name, bytes, an alignment, at most as many partitions as a start-partition rule knows (128), and a
/// spill target that is a memory of the target; and the cascade must end (no cycle through spills_to
/// other than a memory naming itself, which means "spills nowhere"). The parser checks a user's
/// target when a module names it; validate() checks the module's.
template <class = void>
std::optional<std::string> target_problem(const target& t) {
  if (t.memories.size() > 255u - first_user_memory) return "a target lists more than 251 memories";
  for (std::size_t k = 0; k < t.memories.size(); ++k) {
    const memory_spec& s = t.memories[k];
    const std::string where = "target " + std::string(t.name) + ", memory " + std::to_string(k) + " '" +
                              std::string(s.name) + "': ";
    const bool word = !s.name.empty() && std::all_of(s.name.begin(), s.name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }) && !(s.name[0] >= '0' && s.name[0] <= '9');
    if (!word) return where + "a memory's name is a lowercase word (a-z, 0-9, _)";
    const std::optional<memory_type> first = find_memory(t, s.name);
    if (first != static_cast<memory_type>(first_user_memory + k))
      return where + "the name is taken by another memory";
    if (s.log_name.empty()) return where + "a memory needs a log name";
    if (s.bytes == 0 || s.alignment == 0) return where + "bytes and alignment must be at least 1";
    if (s.partitions == 0 || s.partitions > 128) return where + "partitions must be 1..128";
    if (!has_memory(t, s.spills_to)) return where + "spills_to names a memory the target does not have";
    // A slot has the victim's shape in a rectangle memory (and its bytes laid end to end in a linear
    // one), so a rectangle memory may spill only into one with as many partitions, or a linear one.
    const memory_layout to = layout_of(t, s.spills_to);
    if (to == memory_layout::registers) return where + "a memory cannot spill into registers";
    if (s.spills_to != static_cast<memory_type>(first_user_memory + k) && s.partitions > 1 &&
        to == memory_layout::rectangles && partitions_of(t, s.spills_to) < s.partitions)
      return where + "it spills into a memory of fewer partitions (" +
             std::to_string(partitions_of(t, s.spills_to)) + " < " + std::to_string(s.partitions) + ")";
    memory_type m = static_cast<memory_type>(first_user_memory + k);
    for (std::size_t steps = 0;; ++steps) {  // follow the cascade: it must reach a memory that spills nowhere
      const memory_spec* u = user_memory(t, m);
      if (u == nullptr || u->spills_to == m) break;  // the four spill as their policy says; itself: nowhere
      if (steps > t.memories.size()) return where + "its spill cascade never ends (spills_to forms a cycle)";
      m = u->spills_to;
    }
  }
  return std::nullopt;
}

namespace detail {

// One rule per layout, serving the four memories and those a target adds. The messages of SB and PSUM
// predate named memories and say less (they are the parser's documented errors, asserted verbatim), so
// the callers pass the words that name the bound: "the target has" / "usable in SB on trn2" for SB,
// "of WBUF" / "of WBUF on vega" for a memory of the target's own.

/// A tensor of a rectangle memory of `partitions` partitions: 1..partitions partitions and at least one
/// byte in each; at most `bytes` per partition when `bytes_bound` is given (PSUM judges bytes itself).
template <class = void>
std::optional<std::string> rectangle_shape_problem(const extent& e, std::uint32_t partitions,
                                                   const std::string& partitions_bound, std::uint64_t bytes,
                                                   const std::string& bytes_bound) {
  if (e.partitions == 0) return "a tensor needs at least 1 partition";
  if (e.partitions > partitions)
    return std::to_string(e.partitions) + " partitions is more than the " + std::to_string(partitions) + " " +
           partitions_bound;
  if (e.bytes == 0) return "a tensor needs at least 1 byte per partition";
  if (!bytes_bound.empty() && e.bytes > bytes)
    return std::to_string(e.bytes) + " bytes per partition is more than the " + std::to_string(bytes) + " " +
           bytes_bound;
  return std::nullopt;
}

/// A tensor of a linear memory (DRAM or a target's own): a size in bytes, at least one, at most `bytes`.
template <class = void>
std::optional<std::string> linear_shape_problem(const extent& e, std::uint64_t bytes, const std::string& name,
                                                std::string_view target_name) {
  if (e.partitions != 1) return "a " + name + " tensor has a size in bytes, not partitions";
  if (e.bytes == 0) return "a " + name + " tensor needs at least 1 byte";
  if (e.bytes > bytes)
    return std::to_string(e.bytes) + " bytes is more than the " + name + " of " + std::string(target_name) + " (" +
           std::to_string(bytes) + " bytes)";
  return std::nullopt;
}

/// A place in a rectangle memory: its partitions inside the memory's, a start the start-partition rule
/// allows, an aligned offset, its bytes inside `bytes`. `name` is empty for SB and PSUM (their messages
/// name no memory), the log name for a target's own.
template <class = void>
std::optional<std::string> rectangle_place_problem(const placement& p, const extent& e,
                                                   std::uint32_t partitions, std::uint64_t bytes,
                                                   std::uint64_t align, const std::string& name) {
  if (p.partition >= partitions || e.partitions > partitions - p.partition)
    return "placement partitions " + std::to_string(p.partition) + ".." +
           std::to_string(std::uint64_t{p.partition} + e.partitions - 1) + " are out of bounds" +
           (name.empty() ? "" : " (" + name + " has " + std::to_string(partitions) + ")");
  if (!valid_start_partition(p.partition, e.partitions))
    return "a tensor of " + std::to_string(e.partitions) + " partitions can't start at partition " +
           std::to_string(p.partition) + " (it must start at a multiple of " +
           std::to_string(partition_step(e.partitions)) + ")";
  if (p.offset % align != 0)
    return "byte offset " + std::to_string(p.offset) + " is not aligned to " + std::to_string(align);
  if (p.offset >= bytes || e.bytes > bytes - p.offset)
    return "bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) +
           " are out of bounds (" + std::to_string(bytes) + (name.empty() ? " bytes per partition)" : " bytes in " + name + ")");
  return std::nullopt;
}

/// A place in a linear memory: partition 0, an aligned address, its bytes inside `bytes`.
template <class = void>
std::optional<std::string> linear_place_problem(const placement& p, const extent& e, std::uint64_t bytes,
                                                std::uint64_t align, const std::string& name) {
  if (p.partition != 0) return "a " + name + " placement has no partition";
  if (p.offset % align != 0)
    return name + " address " + std::to_string(p.offset) + " is not aligned to " + std::to_string(align);
  if (p.offset >= bytes || e.bytes > bytes - p.offset)
    return name + " bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) +
           " are out of bounds (" + std::to_string(bytes) + " bytes)";
  return std::nullopt;
}

}  // namespace detail

/// Shape rules only (no placement).
template <class = void>
std::optional<std::string> shape_problem(const target& t, const tensor& x) {
  const extent& e = x.shape;
  switch (x.memory) {
    case memory_type::sb:
      return detail::rectangle_shape_problem(e, t.sb_partitions, "the target has", t.sb_usable,
                                             "usable in SB on " + std::string(t.name));
    case memory_type::psum:
      if (auto s = detail::rectangle_shape_problem(e, t.sb_partitions, "the target has", 0, "")) return s;
      if (!t.psum_may_span_banks && e.bytes > t.psum_bank_bytes)
        return "a PSUM tensor of " + std::to_string(e.bytes) + " bytes per partition is wider than a bank (" +
               std::to_string(t.psum_bank_bytes) + " bytes) and " + std::string(t.name) +
               " does not let a tensor span banks";
      if (e.bytes > t.psum_bytes())
        return "a PSUM tensor of " + std::to_string(e.bytes) + " bytes per partition is larger than PSUM (" +
               std::to_string(t.psum_bytes()) + " bytes)";
      return std::nullopt;
    case memory_type::dram: return detail::linear_shape_problem(e, t.dram_bytes, "DRAM", t.name);
    case memory_type::reg:
      if (e.partitions != 1 || e.bytes != 4) return "a register tensor is one 32-bit register";
      return std::nullopt;
  }
  const memory_spec* s = user_memory(t, x.memory);
  if (s == nullptr) return "unknown memory type";
  const std::string name(s->log_name);
  if (s->partitions == 1) return detail::linear_shape_problem(e, s->bytes, name, t.name);
  return detail::rectangle_shape_problem(e, s->partitions, "of " + name, s->bytes,
                                         "of " + name + " on " + std::string(t.name));
}

/// Placement rules for a placed (pinned or allocated) tensor.
template <class = void>
std::optional<std::string> placement_problem(const target& t, const tensor& x) {
  if (!x.at) return std::nullopt;
  const placement& p = *x.at;
  const extent& e = x.shape;
  switch (x.memory) {
    case memory_type::sb:
    case memory_type::psum: {
      if (auto s = detail::rectangle_place_problem(p, e, t.sb_partitions, capacity_of(t, x.memory),
                                                   alignment_of(t, x.memory), ""))
        return s;
      if (x.memory == memory_type::psum && !t.psum_may_span_banks &&
          p.offset / t.psum_bank_bytes != (p.offset + e.bytes - 1) / t.psum_bank_bytes)
        return "PSUM bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) +
               " cross a bank boundary";
      return std::nullopt;
    }
    case memory_type::dram: return detail::linear_place_problem(p, e, t.dram_bytes, t.dram_alignment, "DRAM");
    case memory_type::reg:
      if (p.partition != 0 || p.offset >= t.registers)
        return "register r" + std::to_string(p.offset) + " does not exist (the target has " +
               std::to_string(t.registers) + ")";
      return std::nullopt;
  }
  const memory_spec* s = user_memory(t, x.memory);
  if (s == nullptr) return std::nullopt;  // shape_problem reports an unknown memory
  const std::string name(s->log_name);
  const std::uint64_t align = alignment_of(t, x.memory);
  if (s->partitions == 1) return detail::linear_place_problem(p, e, s->bytes, align, name);
  return detail::rectangle_place_problem(p, e, s->partitions, s->bytes, align, name);
}

/// What a memory's geometry allows beyond the target's rules: the legal places of a user's geometry
/// (an accumulator taken in whole banks, examples/vega.hpp) are a subset of what the target's fields
/// say. Empty per memory: the target's rules alone. The parser (pins), validate() and the verifiers
/// (verify_options::rules) ask it, so they judge a place as the geometry the allocator colored in does.
struct place_rules {
  std::vector<std::function<bool(const extent&, const placement&)>> legal;  // by memory_type (may be short)

  /// Judge places in G::space by g.legal(e, p) too (any GeometryPolicy; geometry/concept.hpp).
  template <class G>
    requires requires(const G& g, const extent& e, const placement& p) {
      { g.legal(e, p) } -> std::same_as<bool>;
      { G::space } -> std::convertible_to<memory_type>;
    }
  place_rules& use(G g) {
    const std::size_t k = static_cast<std::size_t>(G::space);
    if (legal.size() <= k) legal.resize(k + 1);
    legal[k] = [g = std::move(g)](const extent& e, const placement& p) {
      return g.legal(e, p);
    };
    return *this;
  }

  bool allows(const tensor& x) const {
    const std::size_t k = static_cast<std::size_t>(x.memory);
    return !x.at || k >= legal.size() || !legal[k] || legal[k](x.shape, *x.at);
  }
};

/// The message for a place the rules refuse (the target's rules allow it).
template <class = void>
std::string place_rule_problem(const target& t, const tensor& x) {
  return std::string(log_name(t, x.memory)) + " place " + std::to_string(x.at->partition) + ":" +
         std::to_string(x.at->offset) + " of a " + std::to_string(x.shape.partitions) + "x" +
         std::to_string(x.shape.bytes) + " tensor is not one the memory's geometry allows";
}

template <class = void>
std::optional<std::string> tensor_problem(const target& t, const tensor& x) {
  if (x.memory != memory_type::dram && x.space != address_space::local)
    return "only DRAM tensors can be shared or debug";
  if (auto s = shape_problem(t, x)) return s;
  return placement_problem(t, x);
}

/// Checks a module built through the API: target rules (and the geometries' place rules), operand ids,
/// loop structure, origins, shared-DRAM consistency. Throws input_error naming the function and tensor
/// (or instruction) at fault.
template <class = void>
void validate(const module& m, const place_rules& rules = {}) {
  if (auto p = target_problem(m.tgt)) throw input_error(*p);
  for (const function& f : m.functions) {
    const std::string where = "function '" + f.name + "'";
    if (f.open_loops() != 0) throw input_error(where + ": a loop was begun and never ended");
    for (tensor_id t = 0; t < f.tensors.size(); ++t) {
      const tensor& x = f.tensors[t];
      if (auto p = tensor_problem(m.tgt, x)) throw input_error(where + ", tensor %" + x.name + ": " + *p);
      if (!rules.allows(x)) throw input_error(where + ", tensor %" + x.name + ": " + place_rule_problem(m.tgt, x));
      // An origin comes before what stands for it: the chains user_tensor() walks end.
      if ((x.origin == origin_kind::user) != (x.origin_of == no_tensor) ||
          (x.origin_of != no_tensor && x.origin_of >= t))
        throw input_error(where + ", tensor %" + x.name +
                          ": its origin must be an earlier tensor of the function (and only an allocator-made "
                          "tensor has one)");
    }
    for (std::size_t k = 0; k < f.insts.size(); ++k) {
      const instruction& i = f.insts[k];
      if (std::size_t{i.first_operand} + i.n_outputs + i.n_inputs > f.operands.size() || i.end <= k ||
          i.end > f.insts.size() || (!i.is_loop() && i.end != k + 1) || i.opcode >= f.symbols.size())
        throw input_error(where + ": instruction " + std::to_string(k) + " is malformed");
      if (op::is_move(i.opcode) && (i.n_outputs != 1 || i.n_inputs != 1 || i.rmw))
        throw input_error(where + ": instruction " + std::to_string(k) + " (" + f.symbols[i.opcode] +
                          ") moves a value and needs one output, one input and '='");
      if (i.is_loop() && i.trips == 0)
        throw input_error(where + ": loop " + f.symbols[i.label] + " has 0 trips");
      for (tensor_id x : f.outputs(i))
        if (x >= f.tensors.size())
          throw input_error(where + ": instruction " + std::to_string(k) + " names tensor " +
                            std::to_string(x) + ", which does not exist");
      for (tensor_id x : f.inputs(i))
        if (x >= f.tensors.size())
          throw input_error(where + ": instruction " + std::to_string(k) + " names tensor " +
                            std::to_string(x) + ", which does not exist");
    }
  }
  // A dram.shared name is one buffer across the module: same size everywhere.
  for (std::size_t a = 0; a < m.functions.size(); ++a)
    for (const tensor& x : m.functions[a].tensors) {
      if (x.memory != memory_type::dram || x.space != address_space::shared) continue;
      for (std::size_t b = a + 1; b < m.functions.size(); ++b) {
        tensor_id y = m.functions[b].find_tensor(x.name);
        if (y == no_tensor) continue;
        const tensor& t2 = m.functions[b].tensors[y];
        if (t2.memory != x.memory || t2.space != x.space || t2.shape != x.shape ||
            (t2.at && x.at && t2.at != x.at))
          throw input_error("shared tensor %" + x.name + " is declared differently in functions '" +
                            m.functions[a].name + "' and '" + m.functions[b].name + "'");
      }
    }
}

}  // namespace gca
