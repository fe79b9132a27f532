// gca/engine/print_set.hpp — a set of 128-bit prints of search states: the failed-state tables of the
// 1-D searches (engine/search.hpp's R4, engine/chain_search.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gca::detail {

/// A 128-bit print of a search state (R4).
struct print_key {
  std::uint64_t a, b;
  friend bool operator==(const print_key&, const print_key&) = default;
};

/// The failed states (R4's table): a set of 128-bit prints, open addressing with linear probing in a
/// power-of-two table kept at most half full. The search asks it at every node, and a node-based set
/// (std::unordered_set) costs a bucket read and a pointer chase per question, 14 % of the 1-D search's
/// time on planted long-short problems; here one probe usually reads one slot. The print {0, 0} marks
/// an empty slot, so it is kept apart.
class print_set {
 public:
  template <class = void>
  void clear() {
    slots_.clear();
    count_ = 0;
    has_zero_ = false;
  }
  std::size_t size() const noexcept { return count_; }
  template <class = void>
  bool contains(const print_key& k) const noexcept {
    if (empty(k)) return has_zero_;
    return !slots_.empty() && slots_[probe(slots_, k)] == k;
  }
  template <class = void>
  void insert(const print_key& k) {
    if (empty(k)) {
      count_ += has_zero_ ? 0 : 1;
      has_zero_ = true;
      return;
    }
    if (2 * (count_ + 1) > slots_.size()) grow();
    print_key& slot = slots_[probe(slots_, k)];
    if (empty(slot)) slot = k, ++count_;
  }

 private:
  static bool empty(const print_key& k) noexcept { return k.a == 0 && k.b == 0; }
  /// The slot of t holding k, or the empty slot where k would go (t is never full).
  template <class = void>
  static std::size_t probe(const std::vector<print_key>& t, const print_key& k) noexcept {
    std::size_t i = k.a & (t.size() - 1);
    while (!(t[i] == k) && !empty(t[i])) i = (i + 1) & (t.size() - 1);
    return i;
  }
  template <class = void>
  void grow() {
    std::vector<print_key> bigger(std::max<std::size_t>(1024, 2 * slots_.size()), print_key{0, 0});
    for (const print_key& k : slots_)
      if (!empty(k)) bigger[probe(bigger, k)] = k;
    slots_.swap(bigger);
  }
  std::vector<print_key> slots_;
  std::size_t count_ = 0;
  bool has_zero_ = false;
};

}  // namespace gca::detail
