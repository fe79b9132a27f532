// vega.hpp — "vega", a made-up accelerator that is not Trainium, described with gca's policies from
// outside the library: its target numbers, its accumulator's geometry (whole_banks), its spill cascade,
// its allocators and pass registry. examples/custom_accelerator.cpp runs it; tests/test_alloc.cpp checks
// whole_banks against the GeometryPolicy contract and the allocations against the verifier.
//
// Vega differs from Trainium in four ways, each expressed with gca's policies, none by editing gca:
//   - its numbers (64 partitions, 96 KiB of SBUF per partition, 4 accumulator banks of 4 KiB, 32
//     registers): a `gca::target`, which the parser accepts by name (parse_options::targets);
//   - its accumulator's geometry: a bank belongs to one tensor in every partition (an accumulation group
//     clears whole banks), and a tensor takes as many adjacent banks as its bytes need. Trainium's
//     psum_banks packs tensors of few partitions side by side in a bank; `whole_banks` never does. It is
//     a GeometryPolicy, given to coloring_allocator as its Geometry parameter;
//   - its spill cascade: the accumulator has no path to SBUF, so its victims go straight to DRAM
//     (spill_to_next_tier with a spill_cascade);
//   - a memory Trainium does not have: `wbuf`, a weight buffer of 64 partitions x 8 KiB beside SBUF,
//     whose victims spill into SBUF. It is listed in the target (gca::memory_spec), so the parser reads
//     `wbuf 64x4096` tensors and the verifier judges their places; a coloring_allocator of that memory in
//     gca's rect_memory geometry places it, in vega's registry and pipeline before SBUF's pass (the
//     slots of its victims are SBUF tensors).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gca/gca.hpp>

namespace vega {

/// Vega's own memory: the first a target may add (gca::first_user_memory).
inline constexpr gca::memory_type wbuf{gca::first_user_memory};
inline constexpr gca::memory_spec memories[] = {
    {.name = "wbuf", .log_name = "WBUF", .partitions = 64, .bytes = 8192, .alignment = 32,
     .spills_to = gca::memory_type::sb},
};

inline constexpr gca::target chip{.name = "vega",
                                  .sb_partitions = 64,
                                  .sb_bytes = 98304,
                                  .sb_usable = 98304,
                                  .psum_banks = 4,
                                  .psum_bank_bytes = 4096,
                                  .psum_may_span_banks = true,  // a tensor may take adjacent banks
                                  .dram_bytes = std::uint64_t{4} << 30,
                                  .registers = 32,
                                  .sb_alignment = 32,
                                  .psum_alignment = 4,
                                  .dram_alignment = 256,
                                  .memories = memories};

/// Vega's accumulator: `banks` banks of `bank_bytes` bytes in every partition; a tensor of b bytes per
/// partition takes ceil(b / bank_bytes) adjacent banks in all partitions, starting at a bank boundary,
/// at partition 0. Positions are bank numbers, so the trivially-colorable bound is the one of an
/// interval of banks: a tensor of k banks has banks - k + 1 starts, and a placed neighbor of j banks
/// blocks at most k + j - 1 of them. No rectangle view (rect_layout_of), so the exact placement search
/// stays off for it; the footprint of a tensor (GeometryPolicy requirement 6) is its banks' bytes.
class whole_banks {
 public:
  static constexpr gca::memory_type space = gca::memory_type::psum;

  whole_banks(std::uint32_t partitions, std::uint32_t banks, std::uint64_t bank_bytes)
      : partitions_(partitions), banks_(banks), bank_bytes_(bank_bytes) {}
  static whole_banks for_target(const gca::target& t) {
    return whole_banks(t.sb_partitions, t.psum_banks, t.psum_bank_bytes);
  }

  std::uint64_t banks_of(const gca::extent& e) const { return (e.bytes + bank_bytes_ - 1) / bank_bytes_; }
  bool fits(const gca::extent& e) const {
    return e.partitions >= 1 && e.partitions <= partitions_ && e.bytes >= 1 && banks_of(e) <= banks_;
  }
  bool legal(const gca::extent& e, const gca::placement& p) const {
    return fits(e) && p.partition == 0 && p.offset % bank_bytes_ == 0 && p.offset / bank_bytes_ + banks_of(e) <= banks_;
  }
  std::uint64_t candidates(const gca::extent& e) const { return fits(e) ? banks_ - banks_of(e) + 1 : 0; }
  std::uint64_t max_blocked(const gca::extent& e, const gca::extent& f) const {
    return fits(e) && fits(f) ? std::min(candidates(e), banks_of(e) + banks_of(f) - 1) : 0;
  }
  bool overlaps(const gca::extent& e, const gca::placement& p, const gca::extent& f, const gca::placement& q) const {
    const std::uint64_t a = p.offset / bank_bytes_, b = q.offset / bank_bytes_;
    return a < b + banks_of(f) && b < a + banks_of(e);
  }
  /// First fit: the lowest free run of banks. Best fit: the free run that leaves the fewest banks over
  /// (then the lowest). Both see every free run, so select fails only when no run is free (requirement 3).
  std::optional<gca::placement> select(const gca::extent& e, std::span<const gca::placed_neighbor> placed,
                                       gca::select_heuristic h) const {
    if (!fits(e)) return std::nullopt;
    std::vector<char> busy(banks_, 0);
    for (const gca::placed_neighbor& n : placed)
      for (std::uint64_t k = n.at.offset / bank_bytes_; k < n.at.offset / bank_bytes_ + banks_of(n.size) && k < banks_; ++k)
        busy[k] = 1;
    const std::uint64_t need = banks_of(e);
    std::optional<std::uint64_t> best;
    std::uint64_t best_waste = 0;
    for (std::uint64_t k = 0; k < banks_;) {
      if (busy[k]) {
        ++k;
        continue;
      }
      std::uint64_t run = k;
      while (run < banks_ && !busy[run]) ++run;
      if (run - k >= need) {
        if (h == gca::select_heuristic::first_fit) return gca::placement{0, k * bank_bytes_};
        if (!best || run - k - need < best_waste) best = k, best_waste = run - k - need;
      }
      k = run;
    }
    if (!best) return std::nullopt;
    return gca::placement{0, *best * bank_bytes_};
  }
  std::uint64_t end(const gca::extent& e, const gca::placement& p) const { return p.offset + banks_of(e) * bank_bytes_; }
  std::uint64_t capacity() const { return std::uint64_t{banks_} * bank_bytes_; }

 private:
  std::uint32_t partitions_, banks_;
  std::uint64_t bank_bytes_;
};
static_assert(gca::TargetGeometry<whole_banks>);

/// What vega's memories allow beyond its target's numbers: accumulator places in whole banks. The parser
/// (pins), validate() and the verifiers judge places by it (gca::place_rules, ir/validate.hpp).
inline gca::place_rules rules() { return gca::place_rules{}.use(whole_banks::for_target(chip)); }

/// The accumulator has no path to SBUF: its victims go to DRAM (SBUF's too, as on Trainium).
inline constexpr gca::spill_cascade cascade{.sb = gca::memory_type::dram, .psum = gca::memory_type::dram};
inline const gca::spill_to_next_tier spill{cascade};

/// Vega's allocators: the accumulator in whole banks; SBUF, DRAM and registers in gca's standard
/// geometries, which read vega's numbers from the module's target.
using accumulator_allocator =
    gca::coloring_allocator<gca::memory_type::psum, false, gca::address_space::local, gca::address_space::local,
                            gca::opaque_loops, gca::spill_to_next_tier, whole_banks>;

/// The weight buffer's allocator: gca's rectangles (start-partition rule, 32-byte offsets) in memory
/// `wbuf`, with vega's numbers read from the target's memory list at each run.
using wbuf_allocator = gca::coloring_allocator<wbuf, false, gca::address_space::local, gca::address_space::local,
                                               gca::opaque_loops, gca::spill_to_next_tier, gca::rect_memory<wbuf>>;

/// The -O1..-O3 passes of gca's registry, with vega's accumulator allocator under the PSUM pass's name
/// and the weight buffer's as a pass of its own.
inline gca::pass_registry registry() {
  gca::pass_registry reg = gca::default_registry();
  reg.add("coloring_allocator_psum", [](const gca::pass_options& opt) {
    return gca::allocator_pass("coloring_allocator_psum", accumulator_allocator(opt.alloc, spill), opt.log);
  });
  reg.add("vega_allocator_wbuf", [](const gca::pass_options& opt) {
    return gca::allocator_pass("vega_allocator_wbuf", wbuf_allocator(opt.alloc, spill), opt.log);
  });
  return reg;
}

/// gca's schedule for `optlevel`, with the weight buffer's pass before SBUF's (whose pass then places the
/// slots of the weight buffer's victims).
inline std::vector<std::string> pipeline(int optlevel = 2) {
  std::vector<std::string> s = gca::build_pipeline({.optlevel = optlevel});
  auto at = std::find(s.begin(), s.end(), "coloring_allocator_sb");
  s.insert(at, "vega_allocator_wbuf");
  return s;
}

// Four matmul results in the accumulator, live at once at the fourth matmul: 1 + 2 + 1 + 1 banks of
// vega's 4, so one of them is spilled to DRAM and reloaded before its read. (gca's psum_banks would put
// %a3's 16 partitions beside %a1's 32 in the same banks, and nothing would spill: main prints both.)
// Three weight tiles of 64 x 4096 in the 64 x 8192 weight buffer, live at once at the third: one of
// them is spilled into SBUF and reloaded before its matmul.
const char* default_kernel = R"(module block target=vega
function f core=0 {
  tensor %x  : dram 262144 input
  tensor %w  : dram 262144 input
  tensor %y  : dram 524288 output
  tensor %xs : sb 64x4096
  tensor %ws : sb 64x4096
  tensor %a0 : psum 64x4096
  tensor %a1 : psum 32x6000
  tensor %a2 : psum 64x2048
  tensor %a3 : psum 16x4096
  tensor %o  : sb 64x8192
  tensor %n  : reg
  tensor %t0 : wbuf 64x4096
  tensor %t1 : wbuf 64x4096
  tensor %t2 : wbuf 64x4096
  %n = iota
  %xs = load %x
  %ws = load %w
  %t0 = transpose %ws
  %t1 = transpose %t0
  %t2 = transpose %t1
  %a0 = matmul %xs, %t0
  %a1 = matmul %xs, %t1
  %a2 = matmul %xs, %t2
  %a3 = matmul %xs, %ws, %n
  %o = add %a0, %a1
  %o += add %a2, %a3
  %y = store %o
}
)";

}  // namespace vega
