// gca/ir/types.hpp — the vocabulary every layer shares.
//
// Provides the Neuron allocator's two discriminators with the Neuron allocator's numbering (memory_type: 0=SB 1=PSUM 2=DRAM
// 3=REG; address_space: 0=Local 1=Shared 2=Debug), tensor kinds, the dense id aliases, and the two small
// value types that describe memory: an `extent` (what a tensor needs) and a `placement` (where it went).
// Models no concept; it is plain data.
#pragma once

#include <cstdint>
#include <string_view>

namespace gca {

/// The memory a tensor lives in. Values are the Neuron allocator's `Type` immediates; 4 and up are the
/// memories a target adds (target::memories, ir/target.hpp), which to_string and log_name below do not
/// know (they answer "?"): the overloads that take the target do.
enum class memory_type : std::uint8_t { sb = 0, psum = 1, dram = 2, reg = 3 };

/// Which DRAM address space (meaningful for dram only). Values are the Neuron allocator's `MemoryAddressSpace`.
enum class address_space : std::uint8_t { local = 0, shared = 1, debug = 2 };

/// input: holds a value at function entry; output: must hold its final value at exit.
enum class tensor_kind : std::uint8_t { internal = 0, input = 1, output = 2 };

/// Why a tensor exists, when the allocator made it (docs/FORMAT.md, "Origins"): a spill slot, a spill
/// or reload temporary, or a web of a tensor split off into a tensor of its own; `user` for the
/// program's own tensors. Reports read roles here instead of guessing them from names.
enum class origin_kind : std::uint8_t { user = 0, spill_slot = 1, spill_temp = 2, split_web = 3 };

using tensor_id = std::uint32_t;   // index into function::tensors
using inst_id = std::uint32_t;     // index into function::insts (program order, loops in preorder)
using symbol_id = std::uint32_t;   // index into function::symbols (opcode and loop names)
using program_point = std::uint32_t;  // dense instruction-point number given by renumber_locations

inline constexpr tensor_id no_tensor = ~tensor_id{0};
// A web (liveness/live_ranges.hpp): one tensor's values that must share a place. Declared here, with the
// other ids, so the spill reports (spill/report.hpp) name webs without the liveness analysis.
using web_id = std::uint32_t;
inline constexpr web_id no_web = ~web_id{0};

/// What one tensor occupies. SB/PSUM: `partitions` x `bytes` per partition; DRAM: 1 x bytes;
/// REG: 1 x 4 (one 32-bit register).
struct extent {
  std::uint32_t partitions = 1;  // contiguous partitions (1..128)
  std::uint64_t bytes = 0;       // bytes per partition
  friend constexpr bool operator==(const extent&, const extent&) = default;
};

/// Where a tensor was put. SB/PSUM: start partition and byte offset inside every partition it uses;
/// DRAM: `offset` is the byte address (partition 0); REG: `offset` is the register number.
struct placement {
  std::uint32_t partition = 0;  // first partition
  std::uint64_t offset = 0;     // byte offset per partition, DRAM address, or register number
  friend constexpr bool operator==(const placement&, const placement&) = default;
};

constexpr std::string_view to_string(memory_type m) noexcept {
  switch (m) {
    case memory_type::sb: return "sb";
    case memory_type::psum: return "psum";
    case memory_type::dram: return "dram";
    case memory_type::reg: return "reg";
  }
  return "?";
}

/// The keyword of the textual IR for an origin ("" for user).
constexpr std::string_view origin_keyword(origin_kind k) noexcept {
  switch (k) {
    case origin_kind::user: return "";
    case origin_kind::spill_slot: return "slot_of";
    case origin_kind::spill_temp: return "temp_of";
    case origin_kind::split_web: return "split_of";
  }
  return "";
}

/// The name the Neuron allocator's log lines use for a space ("allocating SB", "spilling from PSUM ...").
constexpr std::string_view log_name(memory_type m) noexcept {
  switch (m) {
    case memory_type::sb: return "SB";
    case memory_type::psum: return "PSUM";
    case memory_type::dram: return "DRAM";
    case memory_type::reg: return "REG";
  }
  return "?";
}

constexpr std::string_view to_string(address_space a) noexcept {
  switch (a) {
    case address_space::local: return "local";
    case address_space::shared: return "shared";
    case address_space::debug: return "debug";
  }
  return "?";
}

}  // namespace gca
