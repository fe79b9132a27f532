// gca/gen/planted_sb.hpp — SB kernels with a planted spill-free placement (feasible by construction).
//
// Provides `planted_sb_options`, `planted_sb` and `make_planted_sb`: first a placement is built, then a
// kernel whose SB tensors have exactly the lives that placement was built for, so the kernel has a
// spill-free SB placement (the planted one) whatever an allocator does with it.
//
// The placement. Time runs in epochs of 4..8 steps. In each epoch the byte range [0, tightness x usable)
// is cut into segments (the first few segments of the previous epoch may carry over, with the tensors
// that live in them); each new segment gets a partition pattern, a set of slots at legal start partitions
// (e.g. 128 | 64 + 64 | 64 + 32 + 32 | 32 x 4 | 16 + 16 + 64, by family); each (segment, slot) cell holds a
// sequence of tensors of the slot's partitions x the segment's bytes, one after another in time, each
// live for >= 2 steps, together covering the epoch. So at every step inside an epoch every cell is
// occupied: the busiest points use `tightness` of the bytes of every partition a pattern covers (100 %
// for 128-partition and 32 x 4 patterns). A fraction `pins` of the tensors is pinned at its planted place.
// With `memory` = psum the same is built in PSUM: segments of 1/4 .. all of a bank are cut in each bank
// separately (each bank's first `tightness` share; one range when the target lets tensors span banks),
// so every tensor lies inside one bank, offsets aligned to the PSUM alignment; the tensors are `psum`.
// Then a fraction `holes` of the unpinned tensors is removed (each with that probability, from the same
// seed): the places they leave are free space scattered through the busiest points, where `tightness`
// leaves it only above them (a user's kernel is rarely full to the byte everywhere; measured in
// docs/PERFORMANCE.md section 10). The planted places of the rest stay valid, so the kernel stays feasible.
//
// The sweep construction (`construction` = sweep) builds the same kind of placement without epochs: at
// step 0 the memory is cut into segments and patterns as above, one tensor per cell, each with its own
// life of 2..10 steps. When tensors die, their cells are freed together; half of the time a dying cell
// also ends a neighbour's tensor then (one at least 2 steps old) so that the two free cells can join:
// side by side in partitions when the union is a legal block (32 + 32 at 0 or 64; 64 + 32 at 0; 64 + 64; 96 + 32),
// end to end in bytes within a region. Each freed block is cut anew, in partitions (into two legal
// blocks; never in family 128, always for a block over 64 partitions in family tight) and in bytes (pieces of
// len/small .. len/large), and every piece gets a new tensor (a 32-partition block sometimes a 16-partition
// one, as in the patterns). So tensors start and end at every step, no step re-cuts the whole memory, and
// the busiest points are full as with epochs. Pins and holes are drawn as above.
//
// The kernel. One instruction per step: a tensor live on steps [b, e) is written by the instruction of
// step b and read (once, last) by the instruction of step e - 1, so its live range in gca is exactly those steps, and two
// tensors share a step exactly when their planted lives overlap (a tensor ending at e and one born at e
// never meet: the first is read at e - 1). A DRAM input feeds instructions that read nothing else; a
// final store writes a DRAM output.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

enum class planted_sb_family : std::uint8_t {
  mixed,     // 128, 64, 32 and 16-partition tensors
  only128,   // 128-partition tensors only (a 1-D packing problem per step)
  tight,     // 16/32/64-partition mixes only (the start-partition rule matters most)
};

/// How the planted placement is built (see the top of this header).
enum class planted_sb_construction : std::uint8_t {
  epochs,  // the memory is cut anew at every epoch's end (most of it: the first segments may carry over)
  sweep,   // a tensor's place is cut anew when it dies; lives are independent, no step re-cuts everything
};

struct planted_sb_options {
  std::size_t tensors = 50;     // at least this many SB tensors (the last epoch is completed)
  std::uint64_t seed = 1;
  double pins = 0.0;            // fraction of tensors pinned at their planted place
  double tightness = 1.0;       // fraction of usable SB bytes the segments cover (0 < t <= 1)
  double holes = 0.0;           // fraction of unpinned tensors removed after placement (0 <= h < 1)
  memory_type memory = memory_type::sb;  // sb, or psum (see the top of this header)
  planted_sb_construction construction = planted_sb_construction::epochs;
  planted_sb_family family = planted_sb_family::mixed;
  target tgt = trn2;
};

struct planted_tensor {
  std::string name;
  extent shape;
  placement at;        // the planted place
  std::uint32_t born;  // first step
  std::uint32_t dies;  // one past the last step
  bool pinned = false;
};

struct planted_sb {
  std::vector<planted_tensor> tensors;
  std::uint32_t steps = 0;
  std::string text;  // the kernel in the gca text format (docs/FORMAT.md)
};

namespace detail {

/// The generator's random source: uniform integers in [lo, hi] from one mt19937_64 stream (the order of
/// the calls is part of the output: deterministic in the seed).
struct planted_random {
  std::mt19937_64 rng;
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); }
};

/// A slot of a partition pattern: tensors of `parts` partitions at start partition `start` (legal by the
/// start-partition rule).
struct planted_slot {
  std::uint32_t start, parts;
};
using planted_pattern = std::vector<planted_slot>;

/// The partition patterns a family cuts its segments into (each covers all 128 partitions but the
/// 16-partition ones, which leave gaps the rule forces anyway).
template <class = void>
std::vector<planted_pattern> planted_patterns(planted_sb_family family) {
  switch (family) {
    case planted_sb_family::only128: return {{{0, 128}}};
    case planted_sb_family::mixed:
      return {{{0, 128}}, {{0, 64}, {64, 64}}, {{0, 64}, {64, 32}, {96, 32}}, {{0, 32}, {32, 32}, {64, 64}},
              {{0, 32}, {32, 32}, {64, 32}, {96, 32}}, {{0, 96}, {96, 32}}, {{0, 16}, {32, 16}, {64, 64}}};
    case planted_sb_family::tight:
      return {{{0, 64}, {64, 64}}, {{0, 64}, {64, 32}, {96, 32}}, {{0, 32}, {32, 32}, {64, 64}},
              {{0, 32}, {32, 32}, {64, 32}, {96, 32}}, {{0, 16}, {32, 32}, {64, 16}, {96, 32}},
              {{0, 32}, {32, 16}, {64, 64}}};
  }
  return {};
}

/// Pins each tensor with probability `pins`, then removes each unpinned one with probability `holes`.
template <class = void>
void pin_and_thin(std::vector<planted_tensor>& tensors, double pins, double holes, planted_random& rng) {
  for (planted_tensor& t : tensors) t.pinned = static_cast<double>(rng.rng() % 1000000) < pins * 1e6;
  if (holes > 0)  // drawn only when asked: kernels without holes stay as they were, byte for byte
    std::erase_if(tensors, [&](const planted_tensor& t) {
      return !t.pinned && static_cast<double>(rng.rng() % 1000000) < holes * 1e6;
    });
}

/// The bytes of the next segment of a region of `len` bytes with `room` bytes left: len/small .. len/large,
/// aligned, and all of the room when less than len/small would be left after it (no sliver at the end).
template <class = void>
std::uint64_t planted_segment(planted_random& rng, std::uint64_t len, std::uint64_t room, std::uint64_t align,
                              std::uint64_t small, std::uint64_t large) {
  std::uint64_t bytes = rng.uniform(len / small + 1, len / large) / align * align;
  bytes = std::max(bytes, align);
  return room < bytes + len / small ? room : bytes;
}

/// One (segment, slot) cell of an epoch: its bytes, its slot, the step from which it is empty, and its
/// last tensor (an index into the output, or npos).
struct planted_cell {
  static constexpr std::size_t npos = ~std::size_t{0};
  std::uint64_t offset, bytes;
  planted_slot s;
  std::uint32_t free_from;
  std::size_t last;
};

/// The placement, epoch by epoch (see the top of this header).
template <class = void>
class planted_placement {
 public:
  /// `regions`: the byte ranges segments are cut in, in address order (SB: one; PSUM: one per bank);
  /// segments take len/`small` .. len/`large` bytes of a region of len bytes.
  planted_placement(const planted_sb_options& opt, std::vector<std::pair<std::uint64_t, std::uint64_t>> regions,
                    std::uint64_t align, std::uint64_t small, std::uint64_t large)
      : regions_(std::move(regions)), align_(align), small_(small), large_(large),
        patterns_(planted_patterns(opt.family)) {
    rng_.rng.seed(opt.seed);
  }

  /// Epochs until at least `n` tensors are planted; then each is pinned with probability `pins`; then each
  /// unpinned one is removed with probability `holes`.
  std::vector<planted_tensor> run(std::size_t n, double pins, double holes) {
    std::uint32_t epoch_start = 0;
    while (tensors_.size() < n) {
      const std::uint32_t epoch_end = epoch_start + static_cast<std::uint32_t>(rng_.uniform(4, 8));
      cut_segments(epoch_start);
      for (planted_cell& c : cells_) fill(c, epoch_end);
      epoch_start = epoch_end;
    }
    pin_and_thin(tensors_, pins, holes, rng_);
    return std::move(tensors_);
  }

 private:
  /// Keeps the first segments (and their cells) of the previous epoch, at most half of them; cuts the
  /// rest of each region anew into segments of len/small .. len/large bytes (len: the region's length; no
  /// sliver at a region's end), each with a random pattern of slots.
  void cut_segments(std::uint32_t epoch_start) {
    const std::size_t keep = seg_end_.empty() ? 0 : static_cast<std::size_t>(rng_.uniform(0, seg_end_.size() - 1) / 2);
    std::uint64_t from = keep == 0 ? regions_.front().first : seg_end_[keep - 1];
    std::vector<planted_cell> next;
    for (const planted_cell& c : cells_)
      if (c.offset < from) next.push_back(c);
    seg_end_.resize(keep);
    for (const auto& [lo, hi] : regions_) {
      if (hi <= from) continue;
      from = std::max(from, lo);
      const std::uint64_t len = hi - lo;
      while (from < hi) {
        const std::uint64_t bytes = planted_segment(rng_, len, hi - from, align_, small_, large_);
        const planted_pattern& p = patterns_[rng_.uniform(0, patterns_.size() - 1)];
        for (const planted_slot& s : p) next.push_back({from, bytes, s, epoch_start, planted_cell::npos});
        from += bytes;
        seg_end_.push_back(from);
      }
    }
    cells_ = std::move(next);
  }

  /// Fills cell c's time up to the epoch's end with tensors of >= 2 steps, one after another; a gap of
  /// one step is given to the cell's last tensor.
  void fill(planted_cell& c, std::uint32_t epoch_end) {
    while (c.free_from < epoch_end) {
      const std::uint32_t room = epoch_end - c.free_from;
      if (room < 2) {
        if (c.last != planted_cell::npos) tensors_[c.last].dies = epoch_end;
        c.free_from = epoch_end;
        return;
      }
      const std::uint32_t l = room <= 3 ? room : static_cast<std::uint32_t>(rng_.uniform(2, room));
      planted_tensor t;
      t.name = "t" + std::to_string(tensors_.size());
      t.shape = {c.s.parts, c.bytes};
      t.at = {c.s.start, c.offset};
      t.born = c.free_from;
      t.dies = c.free_from + l;
      c.last = tensors_.size();
      c.free_from = t.dies;
      tensors_.push_back(std::move(t));
    }
  }

  planted_random rng_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions_;
  std::uint64_t align_, small_, large_;
  std::vector<planted_pattern> patterns_;
  std::vector<planted_cell> cells_;      // the current epoch's cells, segment by segment
  std::vector<std::uint64_t> seg_end_;   // per segment of the current epoch: its end byte
  std::vector<planted_tensor> tensors_;
};

/// A block of the sweep construction: partitions [start, start + parts) (a legal block by the
/// start-partition rule) x bytes [offset, offset + bytes) inside region `region`, held by tensor `tensor`.
struct sweep_cell {
  std::uint32_t start, parts;
  std::uint64_t offset, bytes;
  std::size_t region, tensor;
};

/// The placement of the sweep construction (see the top of this header).
template <class = void>
class planted_sweep_placement {
 public:
  planted_sweep_placement(const planted_sb_options& opt, std::vector<std::pair<std::uint64_t, std::uint64_t>> regions,
                          std::uint64_t align, std::uint64_t small, std::uint64_t large)
      : regions_(std::move(regions)), align_(align), small_(small), large_(large), family_(opt.family) {
    rng_.rng.seed(opt.seed);
  }

  /// Steps until at least `n` tensors are planted; then pins and holes as in the epochs construction.
  std::vector<planted_tensor> run(std::size_t n, double pins, double holes) {
    cut_start();
    while (tensors_.size() < n) {
      std::uint32_t t = ~std::uint32_t{0};
      for (const sweep_cell& c : cells_) t = std::min(t, tensors_[c.tensor].dies);
      std::vector<sweep_cell> freed = free_at(t);
      join(freed);
      for (const sweep_cell& c : freed) recut(c, t);
    }
    pin_and_thin(tensors_, pins, holes, rng_);
    return std::move(tensors_);
  }

 private:
  /// Whether a block of `parts` partitions may start at `start` (the start-partition rule).
  static bool legal_block(std::uint32_t start, std::uint32_t parts) {
    const partition_starts st = allowed_partition_starts(parts, 128);
    return std::find(st.start.begin(), st.start.begin() + st.count, start) != st.start.begin() + st.count;
  }
  /// Whether two free blocks form one block: side by side in partitions (a legal union), or end to end
  /// in bytes with the same partitions, in one region.
  static bool joinable(const sweep_cell& a, const sweep_cell& b) {
    if (a.region != b.region) return false;
    if (a.offset == b.offset && a.bytes == b.bytes)
      return (a.start + a.parts == b.start || b.start + b.parts == a.start) &&
             legal_block(std::min(a.start, b.start), a.parts + b.parts);
    return a.start == b.start && a.parts == b.parts && (a.offset + a.bytes == b.offset || b.offset + b.bytes == a.offset);
  }

  /// Step 0: every region cut into segments with a random pattern each, one tensor per slot.
  void cut_start() {
    const std::vector<planted_pattern> patterns = planted_patterns(family_);
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      const auto [lo, hi] = regions_[r];
      for (std::uint64_t from = lo; from < hi;) {
        const std::uint64_t bytes = planted_segment(rng_, hi - lo, hi - from, align_, small_, large_);
        for (const planted_slot& s : patterns[rng_.uniform(0, patterns.size() - 1)])  // a 16-partition slot's block is 32
          place({s.start, std::max<std::uint32_t>(s.parts, 32), from, bytes, r, 0}, 0, s.parts);
        from += bytes;
      }
    }
  }

  /// Removes the cells whose tensors die at t, and half of the time for each also a joinable
  /// neighbour's, whose tensor then dies at t too (if it is at least 2 steps old).
  std::vector<sweep_cell> free_at(std::uint32_t t) {
    std::vector<sweep_cell> freed, kept;
    for (const sweep_cell& c : cells_) (tensors_[c.tensor].dies == t ? freed : kept).push_back(c);
    for (std::size_t i = 0, n = freed.size(); i < n; ++i) {
      if (rng_.uniform(0, 1) == 0) continue;
      for (std::size_t k = 0; k < kept.size(); ++k)
        if (tensors_[kept[k].tensor].born + 2 <= t && joinable(freed[i], kept[k])) {
          tensors_[kept[k].tensor].dies = t;
          freed.push_back(kept[k]);
          kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(k));
          break;
        }
    }
    cells_ = std::move(kept);
    return freed;
  }

  /// Joins free blocks pairwise while two are joinable.
  static void join(std::vector<sweep_cell>& freed) {
    for (bool again = true; again;) {
      again = false;
      for (std::size_t i = 0; i < freed.size() && !again; ++i)
        for (std::size_t j = i + 1; j < freed.size() && !again; ++j)
          if (joinable(freed[i], freed[j])) {
            sweep_cell& a = freed[i];
            const sweep_cell& b = freed[j];
            if (a.offset == b.offset && a.bytes == b.bytes) a.start = std::min(a.start, b.start), a.parts += b.parts;
            else a.offset = std::min(a.offset, b.offset), a.bytes += b.bytes;
            freed.erase(freed.begin() + static_cast<std::ptrdiff_t>(j));
            again = true;
          }
    }
  }

  /// Cuts a free block anew: into two legal blocks of partitions (never in family 128; always a block
  /// of more than 64 partitions in family tight; else a third of the time), then each in bytes.
  void recut(const sweep_cell& c, std::uint32_t t) {
    const bool split = c.parts > 32 && family_ != planted_sb_family::only128 &&
                       ((family_ == planted_sb_family::tight && c.parts > 64) || rng_.uniform(0, 2) == 0);
    if (!split) return recut_bytes(c, t);
    const std::uint32_t low = c.parts == 96 ? 64
                              : c.parts == 128 && family_ == planted_sb_family::mixed && rng_.uniform(0, 1) == 0 ? 96
                                                                                                            : c.parts / 2;
    sweep_cell a = c, b = c;
    a.parts = low;
    b.start = c.start + low;
    b.parts = c.parts - low;
    recut_bytes(a, t);
    recut_bytes(b, t);
  }

  /// Cuts pieces of len/small .. len/large bytes off a block (always while it is longer than len/large,
  /// a third of the time while two fit), each a new tensor.
  void recut_bytes(sweep_cell c, std::uint32_t t) {
    const std::uint64_t len = regions_[c.region].second - regions_[c.region].first;
    const std::uint64_t least = std::max(align_, (len / small_ + align_ - 1) / align_ * align_), most = len / large_;
    while (c.bytes >= 2 * least && (c.bytes > most || rng_.uniform(0, 2) == 0)) {
      sweep_cell a = c;
      a.bytes = rng_.uniform(least, c.bytes - least) / align_ * align_;
      place(a, t, a.parts);
      c.offset += a.bytes;
      c.bytes -= a.bytes;
    }
    place(c, t, c.parts);
  }

  /// A new tensor in block c from step t, of `parts` partitions (a 32-partition block: 16 a quarter of
  /// the time, unless in family 128), living 2..10 steps.
  void place(sweep_cell c, std::uint32_t t, std::uint32_t parts) {
    if (parts == 32 && t > 0 && family_ != planted_sb_family::only128 && rng_.uniform(0, 3) == 0) parts = 16;
    planted_tensor x;
    x.name = "t" + std::to_string(tensors_.size());
    x.shape = {parts, c.bytes};
    x.at = {c.start, c.offset};
    x.born = t;
    x.dies = t + static_cast<std::uint32_t>(rng_.uniform(2, 10));
    c.tensor = tensors_.size();
    tensors_.push_back(std::move(x));
    cells_.push_back(c);
  }

  planted_random rng_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions_;
  std::uint64_t align_, small_, large_;
  planted_sb_family family_;
  std::vector<sweep_cell> cells_;
  std::vector<planted_tensor> tensors_;
};

/// The kernel of a placement (see the top of this header): one instruction per step that writes the
/// tensors born there and reads the ones last live there.
template <class = void>
std::string planted_sb_text(const planted_sb_options& opt, const planted_sb& out) {
  std::string s = std::string(opt.memory == memory_type::psum ? "# planted PSUM kernel: seed " : "# planted SB kernel: seed ") +
                  std::to_string(opt.seed) + ", " + std::to_string(out.tensors.size()) +
                  " tensors, a spill-free placement exists by construction\nmodule planted target=" +
                  std::string(opt.tgt.name) + "\n\nfunction main core=0 {\n  tensor %x : dram 64 input\n" +
                  "  tensor %y : dram 64 output\n";
  for (const planted_tensor& t : out.tensors) {
    s += "  tensor %" + t.name + (opt.memory == memory_type::psum ? " : psum " : " : sb ") +
         std::to_string(t.shape.partitions) + "x" + std::to_string(t.shape.bytes);
    if (t.pinned) s += " @ " + std::to_string(t.at.partition) + ":" + std::to_string(t.at.offset);
    s += "\n";
  }
  std::vector<std::vector<std::size_t>> born(out.steps + 1), last(out.steps + 1);
  for (std::size_t k = 0; k < out.tensors.size(); ++k) {
    born[out.tensors[k].born].push_back(k);
    last[out.tensors[k].dies - 1].push_back(k);
  }
  for (std::uint32_t step = 0; step < out.steps; ++step) {
    if (born[step].empty() && last[step].empty()) continue;
    std::string line = "  ";
    for (std::size_t j = 0; j < born[step].size(); ++j) line += (j ? ", %" : "%") + out.tensors[born[step][j]].name;
    if (!born[step].empty()) line += " = ";
    line += "op";
    if (last[step].empty()) {
      line += " %x";
    } else {
      for (std::size_t j = 0; j < last[step].size(); ++j) line += (j ? ", %" : " %") + out.tensors[last[step][j]].name;
    }
    s += line + "\n";
  }
  return s + "  %y = store %x\n}\n";
}

}  // namespace detail

/// Builds a planted SB kernel (see the top of this header). Deterministic in the options.
template <class = void>
planted_sb make_planted_sb(const planted_sb_options& opt) {
  if (!(opt.tightness > 0 && opt.tightness <= 1)) throw input_error("planted SB: tightness must be in (0, 1]");
  if (!(opt.pins >= 0 && opt.pins <= 1)) throw input_error("planted SB: pins must be a fraction in [0, 1]");
  if (!(opt.holes >= 0 && opt.holes < 1)) throw input_error("planted SB: holes must be a fraction in [0, 1)");
  if (opt.tensors == 0) throw input_error("planted SB: at least one tensor");
  if (opt.memory != memory_type::sb && opt.memory != memory_type::psum)
    throw input_error("planted SB: the memory must be sb or psum");
  const bool psum = opt.memory == memory_type::psum;
  const std::uint64_t align = std::max<std::uint64_t>(1, psum ? opt.tgt.psum_alignment : opt.tgt.sb_alignment);
  auto used = [&](std::uint64_t bytes) {  // the tightness share of a region, aligned down
    return static_cast<std::uint64_t>(static_cast<double>(bytes) * opt.tightness) / align * align;
  };
  // SB: one region; PSUM: one per bank (a tensor stays inside its bank), or one when banks may be spanned.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions;
  if (!psum) regions.emplace_back(0, used(opt.tgt.sb_usable));
  else if (opt.tgt.psum_may_span_banks) regions.emplace_back(0, used(std::uint64_t{opt.tgt.psum_banks} * opt.tgt.psum_bank_bytes));
  else
    for (std::uint64_t k = 0; k < opt.tgt.psum_banks; ++k)
      regions.emplace_back(k * opt.tgt.psum_bank_bytes, k * opt.tgt.psum_bank_bytes + used(opt.tgt.psum_bank_bytes));
  if (regions.empty() || regions.front().second - regions.front().first < 16 * align)
    throw input_error("planted SB: tightness leaves too few bytes");
  planted_sb out;
  // Segments of 1/12 .. 1/3 of SB; in PSUM of 1/4 .. all of a bank (accumulators are few and large).
  const std::uint64_t small = psum ? 4 : 12, large = psum ? 1 : 3;
  out.tensors = opt.construction == planted_sb_construction::sweep
                    ? detail::planted_sweep_placement(opt, std::move(regions), align, small, large)
                          .run(opt.tensors, opt.pins, opt.holes)
                    : detail::planted_placement(opt, std::move(regions), align, small, large)
                          .run(opt.tensors, opt.pins, opt.holes);
  if (out.tensors.empty()) throw input_error("planted SB: holes removed every tensor");
  // Tensors of carried cells may outlive the last epoch's end: the kernel's steps cover them all.
  for (const planted_tensor& t : out.tensors) out.steps = std::max(out.steps, t.dies);
  out.text = detail::planted_sb_text(opt, out);
  return out;
}

}  // namespace gca
