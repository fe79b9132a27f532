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
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

enum class planted_sb_family : std::uint8_t {
  mixed,     // 128, 64, 32 and 16-partition tensors
  only128,   // 128-partition tensors only (a 1-D packing problem per step)
  tight,     // 16/32/64-partition mixes only (the start-partition rule matters most)
};

struct planted_sb_options {
  std::size_t tensors = 50;     // at least this many SB tensors (the last epoch is completed)
  std::uint64_t seed = 1;
  double pins = 0.0;            // fraction of tensors pinned at their planted place
  double tightness = 1.0;       // fraction of usable SB bytes the segments cover (0 < t <= 1)
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

/// Builds a planted SB kernel (see the top of this header). Deterministic in the options.
inline planted_sb make_planted_sb(const planted_sb_options& opt) {
  if (!(opt.tightness > 0 && opt.tightness <= 1)) throw input_error("planted SB: tightness must be in (0, 1]");
  if (!(opt.pins >= 0 && opt.pins <= 1)) throw input_error("planted SB: pins must be a fraction in [0, 1]");
  if (opt.tensors == 0) throw input_error("planted SB: at least one tensor");
  std::mt19937_64 rng(opt.seed);
  auto uniform = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  const std::uint64_t align = std::max<std::uint64_t>(1, opt.tgt.sb_alignment);
  const std::uint64_t cap = static_cast<std::uint64_t>(static_cast<double>(opt.tgt.sb_usable) * opt.tightness) / align * align;
  if (cap < 16 * align) throw input_error("planted SB: tightness leaves too few bytes");
  struct slot {
    std::uint32_t start, parts;
  };
  using pattern = std::vector<slot>;
  std::vector<pattern> patterns;
  switch (opt.family) {
    case planted_sb_family::only128: patterns = {{{0, 128}}}; break;
    case planted_sb_family::mixed:
      patterns = {{{0, 128}}, {{0, 64}, {64, 64}}, {{0, 64}, {64, 32}, {96, 32}}, {{0, 32}, {32, 32}, {64, 64}},
                  {{0, 32}, {32, 32}, {64, 32}, {96, 32}}, {{0, 96}, {96, 32}}, {{0, 16}, {32, 16}, {64, 64}}};
      break;
    case planted_sb_family::tight:
      patterns = {{{0, 64}, {64, 64}}, {{0, 64}, {64, 32}, {96, 32}}, {{0, 32}, {32, 32}, {64, 64}},
                  {{0, 32}, {32, 32}, {64, 32}, {96, 32}}, {{0, 16}, {32, 32}, {64, 16}, {96, 32}},
                  {{0, 32}, {32, 16}, {64, 64}}};
      break;
  }
  struct cell {
    std::uint64_t offset, bytes;
    slot s;
    std::uint32_t free_from;  // the step from which the cell is empty
    std::size_t last;         // the cell's last tensor (index), or npos
  };
  constexpr std::size_t npos = ~std::size_t{0};
  planted_sb out;
  std::vector<cell> cells;           // the current epoch's cells, segment by segment
  std::vector<std::uint64_t> seg_end;  // per segment of the current epoch: its end byte
  std::uint32_t epoch_start = 0;
  while (out.tensors.size() < opt.tensors) {
    const std::uint32_t len = static_cast<std::uint32_t>(uniform(4, 8));
    const std::uint32_t epoch_end = epoch_start + len;
    // Keep the first k segments (and their cells) of the previous epoch; cut the rest anew.
    const std::size_t keep = seg_end.empty() ? 0 : static_cast<std::size_t>(uniform(0, seg_end.size() - 1) / 2);
    std::uint64_t from = keep == 0 ? 0 : seg_end[keep - 1];
    std::vector<cell> next;
    for (const cell& c : cells)
      if (c.offset < from) next.push_back(c);
    seg_end.resize(keep);
    while (from < cap) {
      std::uint64_t bytes = uniform(cap / 12 + 1, cap / 3) / align * align;
      bytes = std::max(bytes, align);
      if (cap - from < bytes + cap / 12) bytes = cap - from;  // no sliver at the end
      const pattern& p = patterns[uniform(0, patterns.size() - 1)];
      for (const slot& s : p) next.push_back({from, bytes, s, epoch_start, npos});
      from += bytes;
      seg_end.push_back(from);
    }
    cells = std::move(next);
    // Fill each cell's time up to the epoch's end with tensors of >= 2 steps.
    for (cell& c : cells) {
      while (c.free_from < epoch_end) {
        const std::uint32_t room = epoch_end - c.free_from;
        if (room < 2) {  // too short for a tensor: the previous one lives on
          if (c.last != npos) out.tensors[c.last].dies = epoch_end;
          c.free_from = epoch_end;
          break;
        }
        const std::uint32_t l = room <= 3 ? room : static_cast<std::uint32_t>(uniform(2, room));
        planted_tensor t;
        t.name = "t" + std::to_string(out.tensors.size());
        t.shape = {c.s.parts, c.bytes};
        t.at = {c.s.start, c.offset};
        t.born = c.free_from;
        t.dies = c.free_from + l;
        c.last = out.tensors.size();
        c.free_from = t.dies;
        out.tensors.push_back(std::move(t));
      }
    }
    epoch_start = epoch_end;
  }
  // Tensors of carried cells may outlive the last epoch's end: the kernel's steps cover them all.
  for (const planted_tensor& t : out.tensors) out.steps = std::max(out.steps, t.dies);
  for (planted_tensor& t : out.tensors) t.pinned = static_cast<double>(rng() % 1000000) < opt.pins * 1e6;

  // The kernel.
  std::string& s = out.text;
  s = "# planted SB kernel: seed " + std::to_string(opt.seed) + ", " + std::to_string(out.tensors.size()) +
      " tensors, a spill-free placement exists by construction\nmodule planted target=" + std::string(opt.tgt.name) +
      "\n\nfunction main core=0 {\n  tensor %x : dram 64 input\n  tensor %y : dram 64 output\n";
  for (const planted_tensor& t : out.tensors) {
    s += "  tensor %" + t.name + " : sb " + std::to_string(t.shape.partitions) + "x" + std::to_string(t.shape.bytes);
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
  s += "  %y = store %x\n}\n";
  return out;
}

}  // namespace gca
