// gca/engine/place_fill.hpp — a skyline fill for the rectangle memories: the exact search's first try.
//
// Provides `detail::skyline_filler`, which place_search (engine/place_search.hpp) runs on each part of a
// problem before its exhaustive walk. It answers found (every node placed, checked against every placed
// neighbor and pin) or gave_up; never infeasible: it is a heuristic walk with backtracking, not a proof.
//
// Why a second walk. The exact search enumerates canonical placements in (offset, id) order: it fills one
// byte level across all of time before the next, so a wrong choice made at a low offset in one stretch of
// time is found only when the levels reach where it matters, after every combination of choices made in
// the meantime elsewhere. Kernels whose busiest points fill a memory exactly are where that hurts most.
// The fill works where the memory is emptiest instead, one cell at a time:
//
//   cells      a cell is (quarter, section): 32 partitions (every allowed start partition is a multiple
//              of 32, so two blocks share a partition exactly when they share a quarter) during one
//              section of time (a run of program points between two consecutive live-range bounds).
//   floors     each cell has a floor: every placed block covering the cell lies below it. A cell is open
//              while some unplaced block live there may touch its quarter.
//   branching  take an open cell with the lowest floor, the one with the fewest choices among them
//              (fail first), and branch on the block that covers it from that floor up: each unplaced
//              block live there, at each allowed start partition touching the quarter, that fits at that
//              offset (no overlap with any placed neighbor or pin sharing a partition, inside one
//              segment); the ones whose top is flush with the most neighboring floors first (contacts()),
//              then largest area x lifetime. The last branch leaves the cell's floor empty and
//              raises it to the nearest higher floor of a cell next to it (same section, next quarter;
//              same quarter, next section), or to the lowest higher floor anywhere.
//   pruning    the quarter-set bound of the exact search's rule R2, per section whose cells changed: the
//              unplaced blocks live in a section need, in every set S of quarters, at least their bytes
//              times the fewest quarters of S any allowed start makes them touch; a cell offers its free
//              runs above the floor (cut by pins and segment ends), each counted for the largest subset
//              sum of its candidates' sizes that fits. In a section filled to the last byte this asks
//              every cell to be filled exactly, which is what makes a wrong block fail at once.
//   order      limited discrepancy (as the exact search): walks with 0, 1, 2, 4, ... branches other than
//              the first allowed on a path, so an early wrong choice is revisited soon. The first choice
//              is the first that survives the bound: choices the bound cuts at once cost no discrepancy
//              (`free_cuts`). Counting them made the walk with limit 0 end at the first cut: in PSUM, where
//              most blocks leave a bank's rest unfillable, the greedy dive died after 2 nodes and planted
//              20-tensor kernels needed 10,000-200,000+ nodes (PERFORMANCE.md section 10, "PSUM").
//   memory     failed states (the placed set and the floors, hashed), with the discrepancies they were
//              allowed, are not walked again.
//
// A placement it finds is a placement (every block is checked when placed), so only its completeness is
// heuristic: the empty-cell branch does not try every level, and a forgotten or colliding state can only
// lose a branch. Deterministic: the walk depends only on the problem and the node budget.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <iterator>
#include <limits>
#include <numeric>
#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca::detail {

/// A 64-bit mix (splitmix64's finalizer) of x under one of several salts: independent keys per salt, for
/// the Zobrist-style prints of the fill and of the exact search (rule R4).
template <class = void>
std::uint64_t salted_mix(std::uint64_t x, std::uint64_t salt) {
  x += 0x9e3779b97f4a7c15ull * (salt + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A 128-bit print (two salted 64-bit hashes) of a search state.
using print128 = std::array<std::uint64_t, 2>;
/// Equality of two prints, written out: std::array's operator== became a call to memcmp in the fill's
/// inner loop (17 % of its time on a 43-tensor kernel, perf).
inline bool same_print(const print128& a, const print128& b) { return a[0] == b[0] && a[1] == b[1]; }

/// The 32-partition quarters a block of `parts` partitions at start partition `start` touches, as a mask.
/// Every allowed start is a multiple of 32, so two blocks share a partition exactly when they share a
/// quarter (the fill's cells; the exact search's rule R2).
template <class = void>
std::uint32_t quarter_mask(std::uint32_t start, std::uint32_t parts) {
  std::uint32_t m = 0;
  for (std::uint32_t q = start / 32; q * 32 < start + parts && q < 32; ++q) m |= 1u << q;
  return m;
}

/// The quarters a free block of `parts` partitions can touch at its allowed starts `st`, with, in
/// cmin[S] for every set S of the first `quarters` quarters (S = 1 .. 2^quarters - 1), the fewest of S it
/// touches at any of them: rule R2's c_S (0 when it has no start). Shared by the exact search
/// (place_searcher::prepare_quarters) and the time sweep (engine/place_sweep.hpp).
template <class = void>
std::uint32_t quarter_reach(const partition_starts& st, std::uint32_t parts, std::uint32_t quarters,
                            std::uint32_t* cmin) {
  std::uint32_t reach = 0;
  for (std::uint32_t k = 0; k < st.count; ++k) reach |= quarter_mask(st.start[k], parts);
  for (std::uint32_t S = 1; S < (1u << quarters); ++S) {
    std::uint32_t fewest = 32;
    for (std::uint32_t k = 0; k < st.count; ++k)
      fewest = std::min<std::uint32_t>(fewest, static_cast<std::uint32_t>(std::popcount(quarter_mask(st.start[k], parts) & S)));
    cmin[S] = st.count == 0 ? 0 : fewest;
  }
  return reach;
}

/// Failed states of a walk with limited discrepancy, by print, each with the discrepancies it was
/// allowed: a state that failed with d allowed fails again with d or fewer, so it is not walked again.
/// One entry per slot (2^16), a newer print replacing an older one: forgetting is sound. Shared by the
/// skyline fill and the time sweep.
class failed_states {
 public:
  void clear() { slots_.assign(std::size_t{1} << 16, entry{}); }
  bool failed(const print128& p, std::uint32_t allowance) const {
    const entry& e = slots_[p[0] & (slots_.size() - 1)];
    return same_print(e.print, p) && e.allowance >= allowance;
  }
  template <class = void>
  void store(const print128& p, std::uint32_t allowance) {
    entry& e = slots_[p[0] & (slots_.size() - 1)];
    if (same_print(e.print, p) && e.allowance >= allowance) return;
    e = entry{p, allowance};
  }

 private:
  struct entry {
    print128 print{};
    std::uint32_t allowance = 0;
  };
  std::vector<entry> slots_;
};

/// A search node's cost, for the walks whose steps per node grow with the nodes live together: the exact
/// search's R2 visits the nodes live at every kept point and its lowest offsets their neighbors
/// (engine/place_search.hpp), the fill's choices and bound the nodes live in a section and the
/// neighbors of each. On the planted kernels of up to 150 SB tensors a node takes a few hundred such
/// steps, but where hundreds of tensors are live together tens of thousands, and a budget of nodes
/// became minutes (a kernel of 500 SB tensors live together: 152 s at -O2). So a node counts
/// 1 + steps / node_work against a budget (a neighbor visited is 1/8 of a step, the cheaper one): the
/// same count as before where a node takes fewer steps, which is every node of those kernels, and
/// elsewhere a time per counted node that no longer grows with them (docs/PERFORMANCE.md section 10,
/// "A node's cost").
/// Deterministic: the steps are counted, not timed.
inline constexpr std::uint64_t node_work = 1024;

/// What the skyline fill and the time sweep keep between calls of their run(), to be resumed in rounds of
/// growing budgets (place_search): whether the walk is fresh, paused by its budget, or done (found, or
/// ended: everything walked, or the clock ran out), and the budget and clock of the current call.
struct resumable_walk {
  enum class state : std::uint8_t { fresh, paused, found, ended };
  state at = state::fresh;
  std::uint64_t budget = 0;
  std::chrono::steady_clock::time_point deadline;
  bool out = false;        // the budget or the clock ran out
  bool timed_out = false;  // the clock: nothing more in any later call
  std::uint64_t steps = 0;  // calls of stop(): the clock's cadence (a costly node counts as several, node_work)
  // Set by a caller that no longer needs this call's answer (place_search's turns on two threads: the
  // fill placed the part); read every 256 nodes, it stops the call as the budget does.
  const std::atomic<bool>* cancel = nullptr;
  /// One call: start() prepares a fresh walk (false: nothing to find), walks() goes on from where the
  /// last call stopped (true: everything placed). Whether a placement is found, now or before.
  template <class Start, class Walks>
  bool resume(std::uint64_t max_nodes, std::chrono::steady_clock::time_point clock, Start&& start, Walks&& walks) {
    if (at == state::fresh) at = start() ? state::paused : state::ended;
    if (at == state::paused) {
      budget = max_nodes, deadline = clock, out = false;
      at = walks() ? state::found : out && !timed_out ? state::paused : state::ended;
    }
    return at == state::found;
  }
  /// Whether the walk stops before its next node: the budget (paused) or, every 256 calls, the clock or
  /// a cancel.
  template <class = void>
  bool stop(std::uint64_t nodes) {
    if (nodes >= budget) return out = true;
    if ((++steps & 255) != 0) return false;
    if (cancel && cancel->load(std::memory_order_relaxed)) return out = true;
    if (std::chrono::steady_clock::now() > deadline) return out = timed_out = true;
    return false;
  }
};

/// The most bytes that a subset of `sizes` (sorted ascending, summing to `total`) fills of `len` bytes:
/// the largest subset sum <= len when that is cheap to find (at most 16 sizes, 256 distinct sums), else
/// len, which is larger. (When all but the smallest fit, that is the answer: a subset that fits leaves
/// one size out.) Shared by the exact search's rule R2, the fill's bound and the sweep's look-ahead; it was
/// 62 % of gca-alloc's time on a planted kernel the search gives up on (docs/PERFORMANCE.md section 10,
/// "Cheaper subset sums"), hence, with the same answers: a memory of recent answers, in front of a bit set
/// when the sizes share a large enough factor, else the merged lists. Keeps its scratch space.
class subset_fill {
 public:
  template <class = void>
  std::uint64_t operator()(const std::vector<std::uint64_t>& sizes, std::uint64_t total, std::uint64_t len) {
    if (sizes.empty() || sizes.front() > len) return 0;
    if (total <= len) return total;
    if (total - sizes.front() <= len) return total - sizes.front();
    if (sizes.size() > 16) return len;
    return remembered(sizes, len);
  }
  /// operator()'s answer for `sizes` in any order, `least` the least of them: sorted (in place) only where
  /// the answer reads more than their sum and least, at most 16 sizes neither all fitting nor all but the
  /// least. Sorting hundreds of sizes for every free run was most of the fill's bound where hundreds of
  /// tensors are live together (docs/PERFORMANCE.md section 10, "A node's cost").
  template <class = void>
  std::uint64_t unsorted(std::vector<std::uint64_t>& sizes, std::uint64_t total, std::uint64_t least, std::uint64_t len) {
    if (sizes.empty() || least > len) return 0;
    if (total <= len) return total;
    if (total - least <= len) return total - least;
    if (sizes.size() > 16) return len;
    if (!std::is_sorted(sizes.begin(), sizes.end())) std::sort(sizes.begin(), sizes.end());
    return remembered(sizes, len);
  }

 private:
  static constexpr std::size_t words = 64;  // by_bits's reach: sums up to 4,095 units of the sizes' gcd
  /// The distinct sums <= len, after each size: the sums before, merged with those sums plus the size.
  /// Both lists strictly ascending, so one merge pass keeps the result so, without a duplicate; at most
  /// 256 sums enter a pass, so at most 512 leave it.
  template <class = void>
  std::uint64_t by_lists(const std::vector<std::uint64_t>& sizes, std::uint64_t len) {
    std::uint64_t* from = one_.data();
    std::uint64_t* to = two_.data();
    std::size_t n = 1;
    from[0] = 0;
    for (const std::uint64_t x : sizes) {
      std::size_t i = 0, j = 0, m = 0;
      while (j < n && from[j] + x <= len) {
        const std::uint64_t shifted = from[j] + x;
        if (i < n && from[i] < shifted) {
          to[m++] = from[i++];
        } else {
          if (i < n && from[i] == shifted) ++i;
          to[m++] = shifted, ++j;
        }
      }
      while (i < n) to[m++] = from[i++];
      if (to[m - 1] == len || m > 256) return len;
      std::swap(from, to);
      n = m;
    }
    return from[n - 1];
  }
  /// The same sums as a bit set in units of g, the sizes' gcd (every sum is a multiple of it): bit k is
  /// the sum k g. Adding a size is one shift-or, and the count and the largest sum are read off the
  /// words; so the answer is by_lists's, at a fraction of its branches (this is rule R2's hot loop).
  template <class = void>
  std::uint64_t by_bits(const std::vector<std::uint64_t>& sizes, std::uint64_t len, std::uint64_t g) {
    const std::uint64_t top = len / g;  // the largest sum that fits, in units
    const std::size_t used = static_cast<std::size_t>(top / 64) + 1;
    const std::uint64_t last_mask = top % 64 == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << (top % 64)) - 1;
    std::fill(bits_.begin(), bits_.begin() + static_cast<std::ptrdiff_t>(used), 0);
    bits_[0] = 1;
    for (const std::uint64_t x : sizes) {
      const std::uint64_t units = x / g;
      const std::size_t ws = static_cast<std::size_t>(units / 64);
      const unsigned bs = static_cast<unsigned>(units % 64);
      for (std::size_t w = used; w-- > ws;) {  // from the top down: reads only words not yet written
        std::uint64_t in = bits_[w - ws] << bs;
        if (bs != 0 && w > ws) in |= bits_[w - ws - 1] >> (64 - bs);
        bits_[w] |= in;
      }
      bits_[used - 1] &= last_mask;
      std::size_t count = 0;
      for (std::size_t w = 0; w < used; ++w) count += static_cast<std::size_t>(std::popcount(bits_[w]));
      if ((len % g == 0 && (bits_[used - 1] >> (top % 64) & 1)) || count > 256) return len;
    }
    std::size_t w = used;
    while (bits_[w - 1] == 0) --w;  // bit 0 (the empty sum) is always set
    return (static_cast<std::uint64_t>(w - 1) * 64 + static_cast<std::uint64_t>(63 - std::countl_zero(bits_[w - 1]))) * g;
  }

  /// by_bits when the sizes' gcd makes len short enough in its units, else by_lists.
  template <class = void>
  std::uint64_t computed(const std::vector<std::uint64_t>& sizes, std::uint64_t len) {
    std::uint64_t g = 0;  // the sizes' gcd, while the bit set can still hold len in its units
    for (std::size_t k = 0; k < sizes.size() && (g == 0 || len / g < 64 * words); ++k) g = std::gcd(g, sizes[k]);
    return len / g < 64 * words ? by_bits(sizes, len, g) : by_lists(sizes, len);
  }
  /// computed() through a memory of recent answers: the exact search asks the same gaps with the same
  /// candidates at node after node (a placement changes a few gaps), and an answer costs a gcd and up to
  /// 16 passes over 512 sums (or 4,096 bits). A slot per hash of (sizes, len), the newer answer replacing
  /// the older; a hit compares the whole key, so the answer is computed()'s. Sizes are kept in 32 bits
  /// (a call with a larger one is computed, not remembered), so a slot takes 88 bytes. 1,024 slots (88
  /// KiB) at first, and 8,192 (704 KiB, the small memory dropped) from the 65,536th call on: a long search
  /// needs the larger memory (with 1,024 slots of 152 bytes, on a planted SB kernel of 150 tensors the
  /// search gave up on, 86 % of 7.6 million calls hit, and 92 % of the misses were keys asked before,
  /// evicted since: the misses' lists were then the sweep's costliest step, 17 % of its time;
  /// docs/PERFORMANCE.md section 10, "A larger memory of subset sums"), and a short one does not pay for it
  /// (made on the first call, it took 2.7 MB more of a small kernel's peak memory, 10 -> 12.7 MB).
  template <class = void>
  std::uint64_t remembered(const std::vector<std::uint64_t>& sizes, std::uint64_t len) {
    if (memo_.size() < memo_slots && ++calls_ > memo_grow_after) memo_.assign(memo_slots, memo_entry{});
    if (memo_.empty()) memo_.resize(memo_first_slots);
    std::uint64_t h = len * 0x9e3779b97f4a7c15ull;
    for (const std::uint64_t x : sizes) {
      if (x > std::numeric_limits<std::uint32_t>::max()) return computed(sizes, len);
      h = (h ^ x) * 0xff51afd7ed558ccdull, h ^= h >> 29;
    }
    memo_entry& e = memo_[h & (memo_.size() - 1)];
    if (e.count == sizes.size() && e.len == len && std::equal(sizes.begin(), sizes.end(), e.sizes.begin()))
      return e.answer;
    e.count = static_cast<std::uint32_t>(sizes.size()), e.len = len;
    std::copy(sizes.begin(), sizes.end(), e.sizes.begin());
    return e.answer = computed(sizes, len);
  }

  static constexpr std::size_t memo_first_slots = 1024, memo_slots = 8192;  // powers of two
  static constexpr std::uint64_t memo_grow_after = 65536;                  // calls
  struct memo_entry {
    std::uint32_t count = 0;  // 0: empty (a call has at least one size)
    std::uint64_t len = 0, answer = 0;
    std::array<std::uint32_t, 16> sizes{};
  };
  std::uint64_t calls_ = 0;  // while the memory is the small one
  std::array<std::uint64_t, 512> one_{}, two_{};
  std::array<std::uint64_t, words> bits_{};
  std::vector<memo_entry> memo_;
};

template <class = void>
class skyline_filler {
 public:
  /// `graph`: the interference of the problem's nodes; `pins`: empty or one per node. `reach` and `cmin`
  /// are the exact search's (place_searcher::prepare_quarters, rule R2): per node the quarters it can
  /// touch, and per node and set S of quarters the fewest of S it touches (read for unplaced nodes only).
  /// `flush_first`: order the choices by contacts() first (off: by area x lifetime only, to measure it).
  /// `free_cuts`: a choice the bound cuts at once costs no discrepancy (off: every choice after a frame's
  /// first costs one, to measure it; see walk).
  skyline_filler(const live_range_table& ranges, std::span<const extent> extents,
                 std::span<const std::optional<placement>> pins, const interference_graph& graph,
                 const rect_layout& lay, std::span<const std::uint32_t> reach, std::span<const std::uint32_t> cmin,
                 bool flush_first = true, bool free_cuts = true)
      : ranges_(ranges), ext_(extents), pins_(pins), graph_(graph), lay_(lay), n_(ranges.num_nodes()),
        reach_(reach), cmin_(cmin), flush_first_(flush_first), free_cuts_(free_cuts) {}

  /// Places every node within `max_nodes` branch nodes (counted on from `nodes`); the placements, or
  /// nothing (gave up). Called again with a larger budget after giving up on its budget, it goes on where
  /// it stopped: node for node the walk of one call with the larger budget (place_search runs the fills
  /// and the time sweep in rounds of growing budgets). Once it has found a placement, or walked
  /// everything, or run out of time, it answers the same again.
  std::optional<std::vector<placement>> run(std::uint64_t max_nodes, std::chrono::steady_clock::time_point deadline,
                                            std::uint64_t& nodes) {
    auto start = [&] {
      memo_.clear(), limit_ = 0, stack_.clear();
      return prepare();
    };
    if (!run_.resume(max_nodes, deadline, start, [&] { return walk(nodes); })) return std::nullopt;
    std::vector<placement> out(n_);
    for (node_id v = 0; v < n_; ++v) out[v] = placement{part_[v], off_[v]};
    return out;
  }

 private:
  static constexpr std::uint64_t top = ~std::uint64_t{0};

  struct choice {
    node_id v;
    std::uint32_t partition;
    std::uint64_t weight;    // partitions x bytes x sections
    std::uint32_t contacts;  // see contacts()
  };
  /// How many cells next to block v placed at (pv, o) have their floor exactly at its top: in the quarters
  /// it touches, the section just before and just after each run of its sections; in the quarters beside
  /// it, each of its sections. A block flush with its neighbors leaves one level where there were two,
  /// and in a memory full to the byte the pieces of a placement are flush with each other almost
  /// everywhere ("touching perimeter" in packing heuristics; the 1-D search's (f) orders its branches so
  /// too). Branch order only.
  std::uint32_t contacts(node_id v, std::uint32_t pv, std::uint64_t o) const {
    const std::uint64_t top = o + ext_[v].bytes;
    const std::uint32_t m = quarter_mask(pv, ext_[v].partitions), beside = ((m << 1) | (m >> 1)) & ~m;
    const auto sections = static_cast<std::uint32_t>(floor_.size() / quarters_);
    const std::vector<std::uint32_t>& ss = secs_[v];
    std::uint32_t n = 0;
    for (std::size_t i = 0; i < ss.size(); ++i) {
      const std::uint32_t s = ss[i];
      const bool first = i == 0 || ss[i - 1] + 1 != s, last = i + 1 == ss.size() || ss[i + 1] != s + 1;
      for (std::uint32_t q = 0; q < quarters_; ++q) {
        if ((m >> q) & 1) {
          n += first && s > 0 && floor_[(s - 1) * quarters_ + q] == top;
          n += last && s + 1 < sections && floor_[(s + 1) * quarters_ + q] == top;
        } else if ((beside >> q) & 1) {
          n += floor_[s * quarters_ + q] == top;
        }
      }
    }
    return n;
  }
  /// One level of the walk: the cell it fills, its choices, and what to undo.
  struct frame {
    std::uint32_t cell = 0;
    std::uint64_t level = 0;
    std::vector<choice> choices;
    std::size_t next = 0;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> undo;  // (cell, old floor)
    node_id placed = ~node_id{0};
    std::array<std::uint64_t, 2> print{};
    std::uint32_t disc = 0;  // discrepancies taken on the path to it
    bool opened = false;     // some choice passed the bound and was walked below (see walk: discrepancies)
  };

  static std::uint64_t mix(std::uint64_t x, std::uint64_t salt) { return salted_mix(x, salt); }
  bool pinned(node_id v) const { return !pins_.empty() && pins_[v].has_value(); }
  partition_starts starts(node_id v) const { return allowed_partition_starts(ext_[v].partitions, lay_.partitions); }

  /// Sections, each node's sections, the candidates per cell, the pins per cell. False when the layout's
  /// starts are not multiples of 32 (the cells would not model sharing) or a pin is off the quarters.
  bool prepare() {
    quarters_ = std::min<std::uint32_t>((lay_.partitions + 31) / 32, 4);
    std::vector<program_point> b;
    for (const interval& i : ranges_.intervals) b.push_back(i.begin), b.push_back(i.end);
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    sections_ = b.empty() ? 0 : static_cast<std::uint32_t>(b.size() - 1);
    auto index = [&](program_point x) { return static_cast<std::uint32_t>(std::lower_bound(b.begin(), b.end(), x) - b.begin()); };
    secs_.assign(n_, {});
    for (node_id v = 0; v < n_; ++v)
      for (const interval& i : ranges_.ranges(v))
        for (std::uint32_t s = index(i.begin); s < index(i.end); ++s) secs_[v].push_back(s);
    live_.assign(sections_, {});
    for (node_id v = 0; v < n_; ++v)
      for (std::uint32_t s : secs_[v]) live_[s].push_back(v);
    const std::size_t cells = std::size_t{sections_} * quarters_;
    floor_.assign(cells, 0);
    cand_.assign(cells, 0);
    placed_.assign(n_, 0);
    part_.assign(n_, 0);
    off_.assign(n_, 0);
    twin_.assign(n_, ~node_id{0});
    pin_cells_.assign(cells, {});
    sec_hash_.assign(sections_, 0);
    rooms_.assign(std::clamp<std::size_t>(std::bit_ceil(8 * cells), rooms_least, rooms_most), room_entry{});
    rooms_missed_ = 0;
    for (node_id v = 0; v < n_; ++v) {
      const partition_starts st = starts(v);
      for (std::uint32_t k = 0; k < st.count; ++k)
        if (st.start[k] % 32 != 0) return false;
      if (pinned(v)) {
        placed_[v] = 1;
        part_[v] = pins_[v]->partition;
        off_[v] = pins_[v]->offset;
        if (part_[v] % 32 != 0) return false;
        const std::uint32_t m = quarter_mask(part_[v], ext_[v].partitions);
        for (std::uint32_t s : secs_[v])
          for (std::uint32_t q = 0; q < quarters_; ++q)
            if ((m >> q) & 1) pin_cells_[s * quarters_ + q].push_back(v);
        continue;
      }
      ++unplaced_;
      for (std::uint32_t s : secs_[v]) sec_hash_[s] ^= mix(v, 13);
      for (std::uint32_t s : secs_[v])
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if ((reach_[v] >> q) & 1) ++cand_[s * quarters_ + q];
    }
    // Twins: free nodes with the same extent and the same sections are interchangeable; the later one
    // waits for the earlier (only a branching choice: it loses no placement).
    std::vector<node_id> order;
    for (node_id v = 0; v < n_; ++v)
      if (!pinned(v)) order.push_back(v);
    auto key = [&](node_id v) { return std::tie(ext_[v].partitions, ext_[v].bytes, secs_[v]); };
    std::sort(order.begin(), order.end(), [&](node_id a, node_id b) { return key(a) != key(b) ? key(a) < key(b) : a < b; });
    for (std::size_t k = 1; k < order.size(); ++k)
      if (key(order[k - 1]) == key(order[k])) twin_[order[k]] = order[k - 1];
    domains_.assign(n_, {});
    for (node_id v = 0; v < n_; ++v) domains_[v] = lay_.domain(ext_[v]);
    for (std::uint32_t c = 0; c < cells; ++c) raise(c, 0, nullptr);
    for (std::uint32_t s = 0; s < sections_; ++s)
      if (!fits(s)) return false;
    return true;
  }

  /// Sets cell c's floor to at least `to`, past any pin it then meets (a pin covering the floor's byte).
  void raise(std::uint32_t c, std::uint64_t to, frame* f) {
    std::uint64_t x = std::max(floor_[c], to);
    for (bool moved = true; moved;) {
      moved = false;
      for (node_id u : pin_cells_[c])
        if (off_[u] <= x && x < off_[u] + ext_[u].bytes) x = off_[u] + ext_[u].bytes, moved = true;
    }
    if (x == floor_[c]) return;
    if (f) f->undo.emplace_back(c, floor_[c]);
    hash_[0] ^= mix(c ^ (floor_[c] << 20), 1) ^ mix(c ^ (x << 20), 1);
    hash_[1] ^= mix(c ^ (floor_[c] << 20), 2) ^ mix(c ^ (x << 20), 2);
    floor_[c] = x;
  }

  /// The area bound in section s (see the top of this header).
  bool fits(std::uint32_t s) {
    std::uint64_t need[16] = {};
    bool any = false;
    work_ += live_[s].size();
    for (node_id v : live_[s])
      if (!placed_[v]) {
        any = true;
        for (std::uint32_t S = 1; S < (1u << quarters_); ++S) need[S] += ext_[v].bytes * cmin_[v * 16 + S];
      }
    if (!any) return true;
    std::uint64_t room[4] = {};
    for (std::uint32_t q = 0; q < quarters_; ++q) room[q] = cell_room(s, q);
    for (std::uint32_t S = 1; S < (1u << quarters_); ++S) {
      std::uint64_t r = 0;
      for (std::uint32_t q = 0; q < quarters_; ++q)
        if ((S >> q) & 1) r += room[q];
      if (need[S] > r) return false;
    }
    return true;
  }

  /// A remembered cell_room (see there).
  struct room_entry {
    std::array<std::uint64_t, 2> key{};
    std::uint64_t room = 0;
  };

  /// The bytes cell (s, q) can still give: its free runs above the floor (cut by the pins there), each
  /// counted for the most that the sizes of the unplaced nodes live in s that may touch q fill of it.
  std::uint64_t cell_room(std::uint32_t s, std::uint32_t q) {
    const std::uint32_t c = s * quarters_ + q;
    // It depends only on the floor and on which nodes live in s are unplaced: remembered by those.
    const std::array<std::uint64_t, 2> key{mix(c ^ (floor_[c] << 24), 14) ^ sec_hash_[s], mix(floor_[c] ^ (std::uint64_t{c} << 40), 15) ^ mix(sec_hash_[s], 16)};
    if (const room_entry& slot = rooms_[key[0] & (rooms_.size() - 1)]; same_print(slot.key, key)) return slot.room;
    if (++rooms_missed_ > 2 * rooms_.size() && rooms_.size() < rooms_most) grow_rooms();
    room_entry& slot = rooms_[key[0] & (rooms_.size() - 1)];
    slot.key = key;
    slot.room = measure_room(s, q);
    return slot.room;
  }
  /// cell_room's memory starts at 8 entries a cell (at least rooms_least) and grows fourfold, emptied,
  /// each time it has missed twice its size, up to rooms_most. It only remembers what measure_room
  /// answers (no step counted, no answer changed: the nodes are the same at any size). A fixed 2^16
  /// entries (1.5 MB, zeroed by each fill made) cost small parts more time in page faults than their
  /// search took, once the narrow turn's search, with two fills of its own, came first in each round
  /// (docs/PERFORMANCE.md section 10, "The narrow turn first": 80 small SB kernels 0.5 -> 0.16 s).
  static constexpr std::size_t rooms_least = std::size_t{1} << 10, rooms_most = std::size_t{1} << 16;
  void grow_rooms() {
    rooms_.assign(std::min(rooms_.size() * 4, rooms_most), room_entry{});
    rooms_missed_ = 0;
  }
  std::uint64_t measure_room(std::uint32_t s, std::uint32_t q) {
    const std::uint32_t c = s * quarters_ + q;
    sizes_.clear();
    std::uint64_t total = 0, least = top;
    for (node_id v : live_[s])
      if (!placed_[v] && ((reach_[v] >> q) & 1))
        sizes_.push_back(ext_[v].bytes), total += ext_[v].bytes, least = std::min(least, ext_[v].bytes);
    if (sizes_.empty()) return 0;
    runs_.clear();
    for (node_id u : pin_cells_[c])
      if (off_[u] >= floor_[c]) runs_.push_back({off_[u], off_[u] + ext_[u].bytes});
    std::sort(runs_.begin(), runs_.end(), [](const start_range& a, const start_range& b) { return a.lo < b.lo; });
    std::uint64_t room = 0, at = floor_[c];
    auto run = [&](std::uint64_t lo, std::uint64_t hi) {  // [lo, hi), cut at segment ends (a block never crosses one)
      while (lo < hi) {
        const std::uint64_t end = std::min(hi, (lo / lay_.segment_bytes + 1) * lay_.segment_bytes);
        const std::uint64_t a = (lo + lay_.alignment - 1) / lay_.alignment * lay_.alignment;
        if (a < end) room += fill_.unsorted(sizes_, total, least, end - a);
        lo = end;
      }
    };
    for (const start_range& pin : runs_) {
      if (pin.lo > at) run(at, pin.lo);
      at = std::max(at, pin.hi);
    }
    run(at, lay_.capacity());
    return room;
  }

  /// Whether v fits at (pv, o): allowed place, and no placed neighbor or pin sharing a partition overlaps.
  bool free_at(node_id v, std::uint32_t pv, std::uint64_t o) const {
    const extent& e = ext_[v];
    if (o % lay_.alignment != 0) return false;
    bool in = false;
    for (const start_range& d : domains_[v]) in = in || (d.lo <= o && o <= d.hi);
    if (!in) return false;
    work_ += graph_.neighbors(v).size() / 8;
    for (node_id u : graph_.neighbors(v))
      if (placed_[u] && pv < part_[u] + ext_[u].partitions && part_[u] < pv + e.partitions && o < off_[u] + ext_[u].bytes &&
          off_[u] < o + e.bytes)
        return false;
    return true;
  }

  /// The open cell with the lowest floor (fewest candidates, then earliest), or nothing when none is open.
  std::optional<std::uint32_t> lowest_cell() const {
    std::optional<std::uint32_t> best;
    for (std::uint32_t c = 0; c < floor_.size(); ++c) {
      if (cand_[c] == 0 || floor_[c] >= lay_.capacity()) continue;
      if (!best || floor_[c] < floor_[*best] || (floor_[c] == floor_[*best] && cand_[c] < cand_[*best])) best = c;
    }
    return best;
  }

  /// The choices at cell c, level o (see "branching" at the top of this header).
  std::vector<choice> choices(std::uint32_t c, std::uint64_t o) const {
    const std::uint32_t s = c / quarters_, q = c % quarters_;
    std::vector<choice> out;
    work_ += live_[s].size();
    for (node_id v : live_[s]) {
      if (placed_[v] || (twin_[v] != ~node_id{0} && !placed_[twin_[v]])) continue;
      const partition_starts st = starts(v);
      for (std::uint32_t k = 0; k < st.count; ++k)
        if (((quarter_mask(st.start[k], ext_[v].partitions) >> q) & 1) && free_at(v, st.start[k], o))
          out.push_back({v, st.start[k], ext_[v].partitions * ext_[v].bytes * secs_[v].size(),
                         flush_first_ ? contacts(v, st.start[k], o) : 0});
    }
    std::sort(out.begin(), out.end(), [](const choice& a, const choice& b) {
      if (a.contacts != b.contacts) return a.contacts > b.contacts;
      if (a.weight != b.weight) return a.weight > b.weight;
      return a.v != b.v ? a.v < b.v : a.partition < b.partition;
    });
    return out;
  }

  /// Places v at (pv, o): floors of its cells rise to its end; candidates of its reach drop.
  void place(frame& f, node_id v, std::uint32_t pv, std::uint64_t o) {
    placed_[v] = 1;
    part_[v] = pv;
    off_[v] = o;
    --unplaced_;
    hash_[0] ^= mix(v, 3);
    hash_[1] ^= mix(v, 4);
    const std::uint32_t m = quarter_mask(pv, ext_[v].partitions);
    for (std::uint32_t s : secs_[v])
      for (std::uint32_t q = 0; q < quarters_; ++q) {
        if (q == 0) sec_hash_[s] ^= mix(v, 13);
        if ((reach_[v] >> q) & 1) --cand_[s * quarters_ + q];
        if ((m >> q) & 1) raise(s * quarters_ + q, o + ext_[v].bytes, &f);
      }
    f.placed = v;
  }
  void unplace(frame& f) {
    for (auto it = f.undo.rbegin(); it != f.undo.rend(); ++it) {
      const auto [c, old] = *it;
      hash_[0] ^= mix(c ^ (floor_[c] << 20), 1) ^ mix(c ^ (old << 20), 1);
      hash_[1] ^= mix(c ^ (floor_[c] << 20), 2) ^ mix(c ^ (old << 20), 2);
      floor_[c] = old;
    }
    f.undo.clear();
    if (f.placed == ~node_id{0}) return;
    const node_id v = f.placed;
    placed_[v] = 0;
    ++unplaced_;
    hash_[0] ^= mix(v, 3);
    hash_[1] ^= mix(v, 4);
    for (std::uint32_t s : secs_[v]) {
      sec_hash_[s] ^= mix(v, 13);
      for (std::uint32_t q = 0; q < quarters_; ++q)
        if ((reach_[v] >> q) & 1) ++cand_[s * quarters_ + q];
    }
    f.placed = ~node_id{0};
  }

  /// The empty-cell branch: cell c's floor rises to the nearest higher floor next to it, else anywhere.
  std::uint64_t next_level(std::uint32_t c) const {
    const std::uint32_t s = c / quarters_, q = c % quarters_;
    const std::uint64_t at = floor_[c];
    std::uint64_t near = top, far = top;
    auto see = [&](std::uint32_t d, std::uint64_t& best) {
      if (floor_[d] > at) best = std::min(best, floor_[d]);
    };
    if (q > 0) see(c - 1, near);
    if (q + 1 < quarters_) see(c + 1, near);
    if (s > 0) see(c - quarters_, near);
    if (s + 1 < sections_) see(c + quarters_, near);
    if (near != top) return near;
    for (std::uint32_t d = 0; d < floor_.size(); ++d) see(d, far);
    return far == top ? lay_.capacity() : far;
  }

  /// Limited discrepancy, as in the exact search: walks with a growing limit on how many times a path may
  /// take a branch other than the first (0, 1, 2, 4, ...), so a wrong early choice is revisited after a
  /// few thousand nodes instead of after everything below it. A state whose walk failed with d
  /// discrepancies allowed is not walked again with d or fewer. The walk in progress (its limit and its
  /// frames) is kept between calls of run(): a walk stopped by the budget goes on from its last frame.
  bool walk(std::uint64_t& nodes) {
    for (;;) {
      if (stack_.empty()) {  // a new walk at limit_
        skipped_ = false;
        if (open(0, nodes)) return true;
      }
      if (walk_on(nodes)) return true;
      if (run_.out) return false;  // the budget or the clock ran out: the frames stay for the next call
      if (!skipped_) return false;  // everything walked
      limit_ = limit_ == 0 ? 1 : 2 * limit_;
    }
  }
  /// Pushes the frame of the current state, reached with d discrepancies; true: every node placed.
  bool open(std::uint32_t d, std::uint64_t& nodes) {
    ++nodes;
    nodes += (work_ - charged_) / node_work;  // the steps since the last node (the bound's on the way here)
    charged_ = work_;
    if (unplaced_ == 0) return true;
    frame f;
    f.print = hash_;
    f.disc = d;
    const auto c = lowest_cell();
    if (c && !memo_.failed(f.print, limit_ - d)) {
      f.cell = *c;
      f.level = *align_up(floor_[*c], lay_.alignment);
      f.choices = choices(*c, f.level);
      // Fail first: the cell with the fewest choices among those at the same floor. A cell has at most
      // as many choices as candidates, so only cells with fewer candidates are asked, at most 16.
      for (std::uint32_t e = 0, asked = 0; e < floor_.size() && f.choices.size() > 1 && asked < 16; ++e) {
        if (e == *c || cand_[e] == 0 || cand_[e] >= f.choices.size() || floor_[e] != floor_[*c]) continue;
        ++asked;
        auto other = choices(e, f.level);
        if (other.size() < f.choices.size()) f.cell = e, f.choices = std::move(other);
      }
      f.choices.push_back({~node_id{0}, 0, 0, 0});  // the empty-cell branch
    }
    stack_.push_back(std::move(f));
    return false;
  }

  // One piece: the frame stack, the budget and the undo of each step only make sense together. Stops
  // (run_.out) before taking a choice, its frame undone, so that the next call takes it as this one would.
  bool walk_on(std::uint64_t& nodes) {
    while (!stack_.empty()) {
      frame& f = stack_.back();
      unplace(f);
      // A discrepancy is a departure from the first choice that survives the bound: choices the bound
      // cuts at once cost none, so the walk with limit 0 is the order's greedy dive, not its first choice
      // or nothing (in PSUM banks most first choices leave a bank's rest unfillable and are cut at once).
      const std::uint32_t d = f.disc + ((free_cuts_ ? f.opened : f.next > 0) ? 1 : 0);
      if (f.next < f.choices.size() && d > limit_) {
        skipped_ = true;
        f.next = f.choices.size();
      }
      if (f.next == f.choices.size()) {
        if (!f.choices.empty()) memo_.store(f.print, limit_ - f.disc);
        stack_.pop_back();
        continue;
      }
      if (run_.stop(nodes)) return false;
      watchdog_tick(16);
      const choice ch = f.choices[f.next++];
      bool ok = true;
      if (ch.v == ~node_id{0}) {
        raise(f.cell, next_level(f.cell), &f);
        ok = fits(f.cell / quarters_);
      } else {
        place(f, ch.v, ch.partition, f.level);
        for (std::uint32_t s : secs_[ch.v]) ok = ok && fits(s);
      }
      if (!ok) continue;
      f.opened = true;  // before open(): it may move the stack, and f with it
      if (open(d, nodes)) return true;
    }
    return false;
  }

  const live_range_table& ranges_;
  std::span<const extent> ext_;
  std::span<const std::optional<placement>> pins_;
  const interference_graph& graph_;
  rect_layout lay_;
  std::size_t n_;
  std::uint32_t quarters_ = 4, sections_ = 0;
  resumable_walk run_;                    // across calls of run()
  std::vector<frame> stack_;              // the walk in progress (see walk)
  std::uint32_t limit_ = 0;               // its discrepancy limit
  bool skipped_ = false;                  // whether it has skipped a branch over the limit
  std::size_t unplaced_ = 0;
  std::vector<std::vector<std::uint32_t>> secs_;        // per node: the sections it is live in
  std::vector<std::vector<node_id>> live_;              // per section: the nodes live in it
  std::vector<std::uint64_t> floor_;                    // per cell (section x quarters + quarter)
  std::vector<std::uint32_t> cand_;                     // per cell: unplaced nodes that may touch it
  std::vector<std::vector<node_id>> pin_cells_;         // per cell: the pins there
  std::span<const std::uint32_t> reach_, cmin_;         // per node: quarters reachable; c_S (the search's R2)
  bool flush_first_ = true;                             // order choices by contacts() first
  bool free_cuts_ = true;                               // a choice cut by the bound costs no discrepancy
  std::vector<std::uint8_t> placed_;
  std::vector<std::uint32_t> part_;
  std::vector<std::uint64_t> off_;
  std::vector<node_id> twin_;
  std::vector<std::vector<start_range>> domains_;       // per node: the layout's allowed offsets
  std::vector<std::uint64_t> sec_hash_;                 // per section: a hash of its unplaced live nodes
  std::vector<room_entry> rooms_;                       // cell_room's memory (grow_rooms)
  std::size_t rooms_missed_ = 0;                        // its misses since it was last emptied
  std::vector<std::uint64_t> sizes_;                    // cell_room's scratch
  std::vector<start_range> runs_;
  subset_fill fill_;
  std::array<std::uint64_t, 2> hash_{mix(0, 5), mix(0, 6)};  // never {0, 0}, the empty memo slot
  failed_states memo_;
  mutable std::uint64_t work_ = 0;  // steps taken (see node_work; choices() and free_at() are const)
  std::uint64_t charged_ = 0;       // of them, those already counted against the budget
};

}  // namespace gca::detail
