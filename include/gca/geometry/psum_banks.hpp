// gca/geometry/psum_banks.hpp — PSUM as partitions x banks of bytes; models GeometryPolicy.
//
// Provides `psum_banks`: like SBUF (a rectangle of contiguous partitions at one byte offset, the same
// start-partition rule), but each partition's 16 KiB is 8 banks of 2 KiB and a tensor must lie inside one
// bank unless the target allows spanning (trn3). Offsets are aligned to psum_alignment (4).
//
//   bytes:  | bank 0 (2 KiB) | bank 1 | ... | bank 7 |      a tensor may not cross a `|` (trn1, trn2)
//
// Trivially-colorable bound: candidates = (allowed start partitions) x (aligned starts that keep the
// tensor within a bank, summed over banks). A placed neighbor blocks at most max_partition_conflicts start
// partitions and, in each, at most ceil((s + t - 1) / alignment) aligned byte starts (the starts that
// overlap it are s + t - 1 consecutive integers whatever bank they fall in).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>

namespace gca {

class psum_banks {
 public:
  static constexpr memory_type space = memory_type::psum;

  /// Throws input_error on a zero dimension or alignment.
  psum_banks(std::uint32_t partitions, std::uint32_t banks, std::uint64_t bank_bytes, std::uint64_t alignment,
             bool may_span_banks)
      : partitions_(partitions), banks_(banks), bank_bytes_(bank_bytes), alignment_(alignment),
        may_span_(may_span_banks) {
    if (partitions == 0 || banks == 0 || bank_bytes == 0)
      throw input_error("psum_banks: partitions, banks and bank bytes must be at least 1");
    if (alignment == 0) throw input_error("psum_banks: alignment must be at least 1");
  }
  /// The PSUM of a target (bank spanning as the target says).
  explicit psum_banks(const target& t)
      : psum_banks(t.sb_partitions, t.psum_banks, t.psum_bank_bytes, t.psum_alignment, t.psum_may_span_banks) {}
  static psum_banks for_target(const target& t) { return psum_banks(t); }

  std::uint32_t partitions() const noexcept { return partitions_; }
  std::uint32_t banks() const noexcept { return banks_; }
  std::uint64_t bank_bytes() const noexcept { return bank_bytes_; }
  bool may_span_banks() const noexcept { return may_span_; }
  std::uint64_t capacity() const noexcept { return banks_ * bank_bytes_; }  // bytes per partition
  std::uint64_t alignment() const noexcept { return alignment_; }

  template <class = void>
  bool fits(const extent& e) const noexcept { return candidates(e) > 0; }

  template <class = void>
  bool legal(const extent& e, const placement& p) const noexcept {
    if (e.bytes == 0 || p.offset % alignment_ != 0 || e.bytes > capacity() || p.offset > capacity() - e.bytes)
      return false;
    if (!may_span_ && p.offset / bank_bytes_ != (p.offset + e.bytes - 1) / bank_bytes_) return false;
    const auto s = detail::allowed_partition_starts(e.partitions, partitions_);
    return std::find(s.start.begin(), s.start.begin() + s.count, p.partition) != s.start.begin() + s.count;
  }

  template <class = void>
  std::uint64_t candidates(const extent& e) const noexcept {
    if (e.bytes == 0) return 0;
    return detail::allowed_partition_starts(e.partitions, partitions_).count * byte_starts(e);
  }

  template <class = void>
  std::uint64_t max_blocked(const extent& e, const extent& f) const noexcept {
    if (!fits(e) || f.bytes == 0) return 0;
    const std::uint64_t rows = detail::max_partition_conflicts(e.partitions, f.partitions, partitions_);
    const std::uint64_t run = e.bytes - 1 + std::min(f.bytes, capacity());  // a legal f is <= capacity
    return rows * std::min(detail::multiples_in_run(run, alignment_), byte_starts(e));
  }

  static bool overlaps(const extent& e, const placement& p, const extent& f, const placement& q) noexcept {
    return detail::partitions_overlap(e, p, f, q) && detail::bytes_overlap(e, p, f, q);
  }

  std::uint64_t end(const extent& e, const placement& p) const noexcept { return p.offset + e.bytes; }

  template <class = void>
  std::optional<placement> select(const extent& e, std::span<const placed_neighbor> placed,
                                  select_heuristic h) const {
    if (!fits(e)) return std::nullopt;
    const std::vector<detail::start_range> d = domain(e);
    return detail::select_rect(e, placed, partitions_, d, alignment_, h);
  }

 private:
  /// The byte starts that keep e inside the memory (and inside one bank unless spanning is allowed).
  template <class = void>
  std::vector<detail::start_range> domain(const extent& e) const {
    std::vector<detail::start_range> d;
    if (e.bytes == 0) return d;
    if (may_span_) {
      if (e.bytes <= capacity()) d.push_back({0, capacity() - e.bytes});
    } else if (e.bytes <= bank_bytes_) {
      for (std::uint64_t b = 0; b < banks_; ++b) d.push_back({b * bank_bytes_, b * bank_bytes_ + bank_bytes_ - e.bytes});
    }
    return d;
  }
  template <class = void>
  std::uint64_t byte_starts(const extent& e) const noexcept {
    if (e.bytes == 0) return 0;
    if (may_span_) return e.bytes <= capacity() ? detail::multiples_in(0, capacity() - e.bytes, alignment_) : 0;
    if (e.bytes > bank_bytes_) return 0;
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < banks_; ++b)
      n += detail::multiples_in(b * bank_bytes_, b * bank_bytes_ + bank_bytes_ - e.bytes, alignment_);
    return n;
  }

  std::uint32_t partitions_;
  std::uint32_t banks_;
  std::uint64_t bank_bytes_;
  std::uint64_t alignment_;
  bool may_span_;
};

static_assert(GeometryPolicy<psum_banks>);

}  // namespace gca
