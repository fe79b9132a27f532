// gca/ir/target.hpp — the hardware facts a geometry reads (docs/HARDWARE.md section 5).
//
// Provides `target`, a plain description of one NeuronCore generation, and `find_target` for the three
// known ones (trn1 = inf2 = v2, trn2 = v3, trn3 = v4). Everything a geometry needs is a field here, so a
// user can describe another chip without touching the colorers.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gca {

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

  constexpr std::uint64_t psum_bytes() const noexcept { return psum_banks * psum_bank_bytes; }
  friend constexpr bool operator==(const target&, const target&) = default;
};

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
