// gca/geometry/detail/start_search.hpp — the 1-D search every byte-addressed geometry shares.
// IWYU pragma: private, include <gca/geometry/linear_dram.hpp>
//
// Provides, in gca::detail: the set of start positions of an extent as sorted closed ranges
// (`start_range`), the starts one placed neighbor blocks, and `pick_start`, which walks the gaps between
// blocked ranges once (O(d log d) for d neighbors, never per byte) and returns the first-fit or best-fit
// aligned start. Also the start-partition rule of SBUF/PSUM. Models no concept.
//
//   allowed starts:   [=========== domain segment ===========]   [==== next segment (PSUM bank) ====]
//   blocked starts:        [xxxx]      [xxxxxxxxx]                      [xx]
//   free runs:        [===]      [====]           [==========]   [====]    [=======================]
// A free run [x, y] of starts is a hole [x, y + size) in memory; best fit picks the smallest such hole.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gca/geometry/concept.hpp>

namespace gca::detail {

/// A closed range [lo, hi] of byte start positions.
struct start_range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
};

struct start_choice {
  std::uint64_t start = 0;  // the chosen (aligned) start
  std::uint64_t hole = 0;   // size of the free hole it sits in (saturates at unbounded)
};

/// Smallest multiple of `a` that is >= x, or nothing if it would overflow.
constexpr std::optional<std::uint64_t> align_up(std::uint64_t x, std::uint64_t a) noexcept {
  const std::uint64_t r = x % a;
  if (r == 0) return x;
  if (x > unbounded - (a - r)) return std::nullopt;
  return x + (a - r);
}

/// At most how many multiples of `a` lie among `n` consecutive integers: ceil(n / a).
constexpr std::uint64_t multiples_in_run(std::uint64_t n, std::uint64_t a) noexcept {
  return n / a + (n % a != 0 ? 1 : 0);
}

/// Multiples of `a` in the closed range [lo, hi].
constexpr std::uint64_t multiples_in(std::uint64_t lo, std::uint64_t hi, std::uint64_t a) noexcept {
  if (lo > hi) return 0;
  const auto first = align_up(lo, a);
  if (!first || *first > hi) return 0;
  return (hi - *first) / a + 1;
}

/// The starts of an extent of `size` bytes that overlap a neighbor of `nbr_size` bytes at `nbr_offset`:
/// p < nbr_offset + nbr_size and p + size > nbr_offset, i.e. [nbr_offset - size + 1, nbr_end - 1].
/// Both sizes are >= 1 and the neighbor's end does not overflow (it is a legal placement).
constexpr start_range blocked_starts(std::uint64_t size, std::uint64_t nbr_offset,
                                     std::uint64_t nbr_size) noexcept {
  return {nbr_offset >= size - 1 ? nbr_offset - (size - 1) : 0, nbr_offset + nbr_size - 1};
}

/// Sorts and merges blocked ranges in place (touching ranges merge too: no start lies between them).
/// Sorting by `lo` alone is enough: ranges with equal `lo` merge into one whatever their order.
template <class = void>
void merge_ranges(std::vector<start_range>& r) {
  std::sort(r.begin(), r.end(), [](const start_range& a, const start_range& b) { return a.lo < b.lo; });
  std::size_t w = 0;
  for (const start_range& x : r) {
    if (w > 0 && (r[w - 1].hi == unbounded || x.lo <= r[w - 1].hi + 1)) {
      r[w - 1].hi = std::max(r[w - 1].hi, x.hi);
    } else {
      r[w++] = x;
    }
  }
  r.resize(w);
}

/// A per-thread buffer for the blocked ranges of one select call: select runs once per node, and a fresh
/// vector each time was a measurable share of coloring a large trace. Callers clear it before use.
template <class = void>
std::vector<start_range>& scratch_ranges() {
  thread_local std::vector<start_range> buffer;
  buffer.clear();
  return buffer;
}

/// True if `a` is better than `b` under heuristic h (ties: lower start; the caller breaks further ties).
constexpr bool better(const start_choice& a, const start_choice& b, select_heuristic h) noexcept {
  if (h == select_heuristic::best_fit && a.hole != b.hole) return a.hole < b.hole;
  return a.start < b.start;
}

/// The free aligned start chosen by `h` among `domain` (sorted, disjoint closed ranges of allowed starts)
/// minus `blocked` (any order; sorted and merged here, hence by reference). One pass over the gaps.
template <class = void>
std::optional<start_choice> pick_start(std::span<const start_range> domain,
                                       std::vector<start_range>& blocked, std::uint64_t size,
                                       std::uint64_t align, select_heuristic h) {
  merge_ranges(blocked);
  std::optional<start_choice> best;
  // Considers the free run of starts [x, y]; returns true when first fit may stop (runs come in
  // increasing address order, so the first usable run holds the lowest free start).
  auto consider = [&](std::uint64_t x, std::uint64_t y) {
    const auto s = align_up(x, align);
    if (!s || *s > y) return false;
    const std::uint64_t hole = y - x > unbounded - size ? unbounded : y - x + size;
    const start_choice c{*s, hole};
    if (!best || better(c, *best, h)) best = c;
    return h == select_heuristic::first_fit;
  };
  std::size_t j = 0;
  for (const start_range& seg : domain) {
    while (j < blocked.size() && blocked[j].hi < seg.lo) ++j;
    std::uint64_t x = seg.lo;  // lowest start of this segment not known to be blocked
    for (std::size_t k = j;; ++k) {
      if (k == blocked.size() || blocked[k].lo > seg.hi) {
        if (consider(x, seg.hi)) return best;
        break;
      }
      if (blocked[k].lo > x && consider(x, blocked[k].lo - 1)) return best;
      if (blocked[k].hi >= seg.hi) break;  // the rest of the segment is blocked
      x = std::max(x, blocked[k].hi + 1);
    }
  }
  return best;
}

/// The start-partition rule of SBUF and PSUM (docs/HARDWARE.md section 5): an extent of more than 64
/// partitions starts at 0; 33..64 at 0 or 64; 1..32 at 0, 32, 64 or 96 — filtered by the partitions the
/// memory has. Returns the starts in increasing order and how many there are.
struct partition_starts {
  std::array<std::uint32_t, 4> start{};
  std::uint32_t count = 0;
};

constexpr partition_starts allowed_partition_starts(std::uint32_t parts, std::uint32_t total) noexcept {
  partition_starts r;
  if (parts == 0 || parts > total) return r;
  const std::uint32_t step = parts > 64 ? 128 : parts > 32 ? 64 : 32;
  for (std::uint32_t s = 0; s < 128 && s + parts <= total; s += step) r.start[r.count++] = s;
  return r;
}

/// At most how many start partitions of an extent of `parts` partitions a neighbor of `nbr_parts`
/// partitions (at any legal start) can share a partition with.
constexpr std::uint64_t max_partition_conflicts(std::uint32_t parts, std::uint32_t nbr_parts,
                                                std::uint32_t total) noexcept {
  const partition_starts mine = allowed_partition_starts(parts, total);
  const partition_starts theirs = allowed_partition_starts(nbr_parts, total);
  std::uint64_t worst = 0;
  for (std::uint32_t i = 0; i < theirs.count; ++i) {
    std::uint64_t n = 0;
    for (std::uint32_t k = 0; k < mine.count; ++k) {
      const std::uint32_t a = mine.start[k], b = theirs.start[i];
      if (a < b + nbr_parts && b < a + parts) ++n;
    }
    worst = std::max(worst, n);
  }
  return worst;
}

constexpr bool partitions_overlap(const extent& e, const placement& p, const extent& f,
                                  const placement& q) noexcept {
  return p.partition < q.partition + f.partitions && q.partition < p.partition + e.partitions;
}

constexpr bool bytes_overlap(const extent& e, const placement& p, const extent& f,
                             const placement& q) noexcept {
  return p.offset < q.offset + f.bytes && q.offset < p.offset + e.bytes;
}

/// Select in a partitions x bytes memory: for each allowed start partition, the neighbors sharing a
/// partition block byte starts; `pick_start` finds the best start there; the best over the (at most 4)
/// start partitions wins, ties to the lower start partition. O(k d log d) for k <= 4 start partitions.
template <class = void>
std::optional<placement> select_rect(const extent& e, std::span<const placed_neighbor> placed,
                                     std::uint32_t total_partitions,
                                     std::span<const start_range> domain, std::uint64_t align,
                                     select_heuristic h) {
  const partition_starts starts = allowed_partition_starts(e.partitions, total_partitions);
  std::optional<placement> best;
  std::optional<start_choice> best_choice;
  std::vector<start_range>& blocked = scratch_ranges();
  for (std::uint32_t i = 0; i < starts.count; ++i) {
    const placement at{starts.start[i], 0};
    blocked.clear();
    for (const placed_neighbor& n : placed)
      if (n.size.bytes > 0 && partitions_overlap(e, at, n.size, n.at))
        blocked.push_back(blocked_starts(e.bytes, n.at.offset, n.size.bytes));
    const auto c = pick_start(domain, blocked, e.bytes, align, h);
    if (c && (!best_choice || better(*c, *best_choice, h))) {
      best_choice = c;
      best = placement{at.partition, c->start};
    }
  }
  return best;
}

}  // namespace gca::detail
