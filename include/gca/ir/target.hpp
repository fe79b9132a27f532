// gca/ir/target.hpp — the hardware facts a geometry reads (docs/HARDWARE.md section 5).
//
// Provides `target`, a plain description of one NeuronCore generation, and `find_target` for the three
// known ones (trn1 = inf2 = v2, trn2 = v3, trn3 = v4). Everything a geometry needs is a field here, so a
// user can describe another chip without touching the colorers.
//
// Memories beyond the four of Trainium: a target may list more (`target::memories`, `memory_spec`); the
// k-th is `memory_type{first_user_memory + k}`, named in the IR by its spec's `name`, placed as
// rectangles (partitions x bytes, under the start-partition rule) or as one linear byte range, and
// spilled to the memory its spec names (docs/ALLOCATOR.md, "A memory of your own"). `memory_name`,
// `layout_of`, `find_memory` answer for every memory, the four and the listed ones alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include <gca/ir/types.hpp>

namespace gca {

/// The first memory_type value a target's own memories take (0..3 are SB, PSUM, DRAM, REG).
inline constexpr std::uint8_t first_user_memory = 4;

/// How a memory's places look: rectangles of partitions x bytes (SB, PSUM), one linear byte range
/// (DRAM), or interchangeable registers (REG). The parser, printer, validation and verifiers read and
/// judge a place by its memory's layout.
enum class memory_layout : std::uint8_t { rectangles, linear, registers };

/// One memory a target adds to the four. `partitions == 1`: linear bytes (a tensor is `mem BYTES`,
/// placed `@ OFFSET`); more: rectangles (`mem PxB`, `@ PARTITION:OFFSET`), whose start partitions follow
/// the start-partition rule of docs/HARDWARE.md section 5. `spills_to` is the next memory of the cascade
/// (where the spill policy puts this memory's victims); the memory itself means none (its refusals are
/// final). The cascade must end: following `spills_to` from any memory reaches one that spills nowhere.
struct memory_spec {
  std::string_view name;         // the IR keyword: a lowercase word, not sb/psum/dram/reg, unique
  std::string_view log_name;     // in log lines and messages ("allocating WBUF")
  std::uint32_t partitions = 1;  // 1: linear; 2..: rectangles of that many partitions
  std::uint64_t bytes = 0;       // bytes (per partition) the allocator may hand out
  std::uint64_t alignment = 1;   // byte-offset alignment
  memory_type spills_to = memory_type::dram;
  friend constexpr bool operator==(const memory_spec&, const memory_spec&) = default;
};

struct target {
  std::string_view name;                 // "trn1", "trn2", "trn3"
  std::uint32_t sb_partitions = 128;     // SBUF partitions
  std::uint64_t sb_bytes = 0;            // SBUF bytes per partition (physical)
  std::uint64_t sb_usable = 0;           // bytes per partition the allocator may hand out
  std::uint32_t psum_banks = 8;          // PSUM banks per partition
  std::uint64_t psum_bank_bytes = 2048;  // bytes per PSUM bank per partition
  bool psum_may_span_banks = false;      // a PSUM tensor may cross a bank boundary (trn3)
  std::uint64_t dram_bytes = 0;          // DRAM budget per core
  std::uint32_t registers = 64;          // 32-bit registers per engine sequencer
  std::uint64_t sb_alignment = 1;        // byte-offset alignment in SBUF  [gca: not published]
  std::uint64_t psum_alignment = 4;      // byte-offset alignment in PSUM  [gca: not published]
  std::uint64_t dram_alignment = 64;     // DRAM address alignment          [gca]
  std::uint64_t dma_bytes_per_cycle = 64;  // cost model: DMA throughput per core cycle [gca]
  std::span<const memory_spec> memories = {};  // memories beyond the four (memory_type{4 + k}); the
                                               // target does not own them: keep the array alive

  constexpr std::uint64_t psum_bytes() const noexcept { return psum_banks * psum_bank_bytes; }
  friend constexpr bool operator==(const target& a, const target& b) noexcept {
    return a.name == b.name && a.sb_partitions == b.sb_partitions && a.sb_bytes == b.sb_bytes &&
           a.sb_usable == b.sb_usable && a.psum_banks == b.psum_banks && a.psum_bank_bytes == b.psum_bank_bytes &&
           a.psum_may_span_banks == b.psum_may_span_banks && a.dram_bytes == b.dram_bytes &&
           a.registers == b.registers && a.sb_alignment == b.sb_alignment && a.psum_alignment == b.psum_alignment &&
           a.dram_alignment == b.dram_alignment && a.dma_bytes_per_cycle == b.dma_bytes_per_cycle &&
           std::equal(a.memories.begin(), a.memories.end(), b.memories.begin(), b.memories.end());
  }
};

/// Is `m` one of the memories a target adds (not SB, PSUM, DRAM or REG)?
constexpr bool is_user_memory(memory_type m) noexcept { return static_cast<std::uint8_t>(m) >= first_user_memory; }

/// The spec of a memory `t` adds, or null (one of the four, or not a memory of `t`).
constexpr const memory_spec* user_memory(const target& t, memory_type m) noexcept {
  if (!is_user_memory(m)) return nullptr;
  const std::size_t k = static_cast<std::uint8_t>(m) - first_user_memory;
  return k < t.memories.size() ? &t.memories[k] : nullptr;
}

/// Is `m` a memory of `t`: one of the four, or one it lists?
constexpr bool has_memory(const target& t, memory_type m) noexcept {
  return !is_user_memory(m) || user_memory(t, m) != nullptr;
}

/// How places in `m` look (a memory `t` does not have: linear, and every place of it is refused by
/// validation as an unknown memory).
constexpr memory_layout layout_of(const target& t, memory_type m) noexcept {
  switch (m) {
    case memory_type::sb:
    case memory_type::psum: return memory_layout::rectangles;
    case memory_type::dram: return memory_layout::linear;
    case memory_type::reg: return memory_layout::registers;
  }
  const memory_spec* s = user_memory(t, m);
  return s != nullptr && s->partitions > 1 ? memory_layout::rectangles : memory_layout::linear;
}

/// The partitions of a memory (1 for linear memories and registers).
constexpr std::uint32_t partitions_of(const target& t, memory_type m) noexcept {
  if (m == memory_type::sb || m == memory_type::psum) return t.sb_partitions;
  const memory_spec* s = user_memory(t, m);
  return s != nullptr ? s->partitions : 1;
}

/// The IR keyword of a memory ("sb", ..., or the spec's name; "?" for a memory `t` does not have).
constexpr std::string_view memory_name(const target& t, memory_type m) noexcept {
  if (!is_user_memory(m)) return to_string(m);
  const memory_spec* s = user_memory(t, m);
  return s != nullptr ? s->name : std::string_view("?");
}

/// The name log lines and messages use ("SB", ..., or the spec's log_name).
constexpr std::string_view log_name(const target& t, memory_type m) noexcept {
  if (!is_user_memory(m)) return log_name(m);
  const memory_spec* s = user_memory(t, m);
  return s != nullptr ? s->log_name : std::string_view("?");
}

/// The memory an IR keyword names on `t` (the four, then the listed ones), or nothing.
constexpr std::optional<memory_type> find_memory(const target& t, std::string_view name) noexcept {
  for (memory_type m : {memory_type::sb, memory_type::psum, memory_type::dram, memory_type::reg})
    if (name == to_string(m)) return m;
  for (std::size_t k = 0; k < t.memories.size(); ++k)
    if (t.memories[k].name == name) return static_cast<memory_type>(first_user_memory + k);
  return std::nullopt;
}

inline constexpr target trn1{.name = "trn1",
                             .sb_bytes = 196608,
                             .sb_usable = 180224,
                             .psum_may_span_banks = false,
                             .dram_bytes = std::uint64_t{16} << 30};
inline constexpr target trn2{.name = "trn2",
                             .sb_bytes = 229376,
                             .sb_usable = 212984,
                             .psum_may_span_banks = false,
                             .dram_bytes = std::uint64_t{24} << 30};
inline constexpr target trn3{.name = "trn3",
                             .sb_bytes = 262144,
                             .sb_usable = 245752,
                             .psum_may_span_banks = true,
                             .dram_bytes = std::uint64_t{72} << 30};

/// The known target of that name, or nothing.
constexpr std::optional<target> find_target(std::string_view name) noexcept {
  if (name == "trn1") return trn1;
  if (name == "trn2") return trn2;
  if (name == "trn3") return trn3;
  return std::nullopt;
}

}  // namespace gca
