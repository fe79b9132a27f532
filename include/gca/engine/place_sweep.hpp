// gca/engine/place_sweep.hpp — a time sweep for the rectangle memories: the exact search's second try.
//
// Provides `detail::time_sweeper`, which place_search (engine/place_search.hpp) runs on a part of a
// problem in turns with the skyline fill (engine/place_fill.hpp), before its exhaustive walk. It answers
// found (every node placed, each checked against every placed neighbor and pin) or gave_up; never
// infeasible: like the fill it is a heuristic walk with backtracking, not a proof.
//
// Why a third walk. The canonical walk fills byte levels across all of time, the fill fills the lowest
// cell of (quarter, section) anywhere in time. Kernels whose memory is cut anew wherever tensors die
// (no epochs at whose end most of it is freed: docs/PERFORMANCE.md section 10, "Planted by sweep") are
// a chain of such cuts over the whole program, and both walks meet a wrong cut made early in time only
// after many choices elsewhere. The sweep follows time instead, as a program runs (and as the 1-D
// search's time-sweep order does at one level):
//
//   order      the free nodes in groups by their first program point ("birth"), groups in time order. A
//              group is placed whole before the next: every node born earlier is placed by then, so at
//              the birth t every placed node live at t is known, and the free space at t is final for it.
//   branching  at the current birth t, take the lowest free cell of one segment in one quarter (32
//              partitions each: every allowed start partition is a multiple of 32, so two blocks share a
//              partition exactly when they share a quarter): the lowest aligned offset of the segment, in
//              the quarter, that no placed node live at t covers. Branch on the unplaced node of the
//              group, at each allowed start partition touching that quarter, that covers it from that
//              offset up and overlaps no placed neighbor (over its whole life: pins born later count).
//              When the free space at t must be tiled exactly this loses nothing at t, whichever cell it
//              is: the block covering it has every cell of that quarter and segment below it filled, and
//              does not cross the segment's start, so it starts at that offset. Of these cells (per
//              quarter one in SB, one per bank in PSUM) the one with the fewest choices is taken (fail
//              first, as the 1-D search's valleys), ties to the lower offset, then the lower quarter; a
//              cell with none is a dead state at once. (Taking the lowest cell instead, a quarter whose
//              cell nothing could take was found only once its cell became the lowest: planted sweep
//              kernels held out, seeds 1901-1920, 40 / 60 / 150 tensors, 100,000 nodes in place_search:
//              119 -> 140 of 240 placed; each bank's cell, not only each quarter's lowest: PSUM seeds
//              1401-1410 98 -> 103 of 120, 2001-2010 105 -> 106.) The last branch leaves the cell empty
//              at t, up to the lowest end above it of a placed neighbor of an unplaced node of the group
//              in that quarter (where a block blocked at the cell may first fit; pins born later among
//              them), or to the run's end, when the free area at t still holds the group's area after it.
//   order of   the choices that "close" space first (contacts()): a block whose top meets the end of the
//   choices    free run leaves no sliver; a block against a placed neighbor that dies at the same point
//              (directly below it, or beside it in the next quarter with the same bytes) frees one joined
//              place with it, which later births often need whole (a tensor over more quarters, or more
//              bytes). Then larger area first. (In a first version of this walk, without this order it
//              placed 10 and 7 of 20 planted kernels where it placed 14 and 11: mixed, 40 and 60
//              tensors, seeds 1601-1620, 25,000 nodes.)
//   pruning    the area at t (the group's fewest quarters x bytes against the free quarter-bytes), with
//              the slivers a choice leaves above itself that no other node of the group can cover counted
//              against the spare area (slivers(); planted PSUM kernels of 60 tensors, seeds 1701-1710: 3 -> 8 of 10);
//              after each placement, every unplaced neighbor of the placed node must keep a position
//              free of its placed neighbors at some start (a dead node has no completion); and on entering
//              a group and after each placement, the exact search's rule R2 at its birth and the next
//              few (ahead_fits): placed nodes never move, so the unplaced nodes live at a later birth
//              must fit in the free runs the placed ones leave there, each run counted for the largest
//              subset sum that fits. (Checked on entering a group only, a group of 7 tensors was walked
//              whole, in all its orders, before a birth 4 groups on failed: docs/PERFORMANCE.md
//              section 10, "R2 after each placement".) And the hand-offs of full births, after each
//              placement at the births it was live just before (handoffs_fit, handoffs_tile): where
//              every cell is taken at a birth, the cells that nodes dying there leave must be covered
//              by its newborns; where every cell is taken just before it too, the newborns must tile
//              them exactly, a test (engine/place_handoff.hpp) made as soon as the dying are placed
//              (or all but one, which then has few places), often several births ahead
//              (docs/PERFORMANCE.md section 10, "Hand-offs at full births"). refuted_along() walks a
//              valid placement's path for the tests: no rule may refute it.
//   order of   limited discrepancy: walks in which the k-th choice of a frame costs k, with a limit of
//   walks      0, 1, 2, ... on a path; a state (which nodes are placed, and per quarter the bytes taken
//              until when; see state_print) whose walk failed with d allowed is not walked again with d
//              or fewer, at a birth's start and inside its group.
//
// Where it is weak: the first birth's group, a tiling of the empty memory that only later births
// constrain. A wrong first arrangement is refuted a few births later, after the choices in between, and
// most kernels it misses it places once that arrangement is given (docs/PERFORMANCE.md section 10,
// "Where the sweep's budget goes").
//
// Only completeness is heuristic (the empty branch skips to the next end, not every offset; a block is
// only tried at the lowest free cell), so the sweep never proves anything; a placement it finds is a
// placement. Deterministic: the walk depends only on the problem and the node budget (a deadline can only
// turn found into nothing).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include <gca/engine/place_fill.hpp>
#include <gca/engine/place_handoff.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca::detail {

/// Bytes [lo, hi) of one quarter taken by a placed node, and a key of when it is live from now on.
struct taken_run {
  std::uint64_t lo, hi, life;
};
/// Adds to p the print of quarter q's taken runs (any order; sorted here): adjacent runs of equal `life`
/// merged first, so that the print depends on which bytes are taken until when, not by which nodes.
/// Sorts the runs and merges adjacent ones of equal `life`, in place; how many are left.
template <class = void>
std::size_t merge_taken(std::span<taken_run> runs) {
  std::sort(runs.begin(), runs.end(), [](const taken_run& a, const taken_run& b) { return a.lo < b.lo; });
  std::size_t n = 0;
  for (std::size_t i = 0; i < runs.size();) {
    taken_run r = runs[i];
    while (++i < runs.size() && runs[i].lo == r.hi && runs[i].life == r.life) r.hi = runs[i].hi;
    runs[n++] = r;
  }
  return n;
}
/// Adds to p the print of merged runs (merge_taken's) as quarter q's.
template <class = void>
void hash_taken(print128& p, std::uint32_t q, std::span<const taken_run> merged) {
  for (const taken_run& r : merged) {
    const std::uint64_t at = r.lo << 2 | q;
    p[0] += salted_mix(salted_mix(salted_mix(at, 13) ^ r.hi, 15) ^ r.life, 17);
    p[1] += salted_mix(salted_mix(salted_mix(at, 14) ^ r.hi, 16) ^ r.life, 18);
  }
}
template <class = void>
void add_taken_print(print128& p, std::uint32_t q, std::span<taken_run> runs) {
  hash_taken(p, q, runs.first(merge_taken(runs)));
}
/// The mask m with quarter q moved to pi[q].
template <class = void>
std::uint32_t permute_quarters(std::uint32_t m, const std::array<std::uint8_t, 4>& pi) {
  std::uint32_t r = 0;
  for (std::uint32_t q = 0; q < 4; ++q)
    if (m >> q & 1) r |= 1u << pi[q];
  return r;
}

/// The permutations of the first `quarters` quarters that map a problem onto itself, identity first:
/// every pinned block's quarters onto themselves, and every free block's family of quarter sets at its
/// allowed starts onto that same family. A placement maps to a placement under each, and a state of the
/// sweep to a state with the mapped completions, so its memory of failed states keys a state by the least
/// of its images' prints (time_sweeper::state_print). In SB (four quarters of 32 partitions, a block of
/// 64 starting at 0 or 64, one of 96 at 0 only): without free blocks of 96 partitions, the 8 permutations
/// that keep the pairs {0, 1} and {2, 3}; with one, the identity and 0 <-> 1. (The memory's walks are
/// ordered by quarter, so an image is walked in another order: the memory is a heuristic's, as before.)
template <class = void>
std::vector<std::array<std::uint8_t, 4>> quarter_symmetries(std::span<const extent> ext,
                                                            std::span<const std::optional<placement>> pins,
                                                            std::uint32_t partitions, std::uint32_t quarters) {
  std::vector<std::array<std::uint8_t, 4>> out;
  std::array<std::uint8_t, 4> pi{0, 1, 2, 3};
  // Blocks over every quarter (128 partitions) look the same under each permutation: only the identity
  // is worth printing.
  const std::uint32_t all = (1u << std::min<std::uint32_t>(quarters, 4)) - 1;
  if (std::all_of(ext.begin(), ext.end(), [&](const extent& e) { return quarter_mask(0, e.partitions) == all; }))
    return {pi};
  do {
    bool keeps = true;
    for (std::size_t v = 0; v < ext.size() && keeps; ++v) {
      if (!pins.empty() && pins[v]) {
        const std::uint32_t m = quarter_mask(pins[v]->partition, ext[v].partitions);
        keeps = permute_quarters(m, pi) == m;
        continue;
      }
      const partition_starts st = allowed_partition_starts(ext[v].partitions, partitions);
      for (std::uint32_t k = 0; k < st.count && keeps; ++k) {
        const std::uint32_t image = permute_quarters(quarter_mask(st.start[k], ext[v].partitions), pi);
        bool found = false;
        for (std::uint32_t i = 0; i < st.count && !found; ++i) found = quarter_mask(st.start[i], ext[v].partitions) == image;
        keeps = found;
      }
    }
    if (keeps) out.push_back(pi);
  } while (std::next_permutation(pi.begin(), pi.begin() + std::min<std::uint32_t>(quarters, 4)));
  return out;
}

template <class = void>
class time_sweeper {
 public:
  /// `graph`: the interference of the problem's nodes; `pins`: empty or one per node.
  time_sweeper(const live_range_table& ranges, std::span<const extent> extents,
               std::span<const std::optional<placement>> pins, const interference_graph& graph, const rect_layout& lay)
      : ranges_(ranges), ext_(extents), pins_(pins), graph_(graph), lay_(lay), n_(ranges.num_nodes()),
        quarters_(std::clamp<std::uint32_t>((lay.partitions + 31) / 32, 1, 4)) {}

  /// Places every node within `max_nodes` branch nodes (counted on from `nodes`); the placements, or
  /// nothing (gave up, or every walk ended without one). Called again with a larger budget after giving
  /// up on its budget, it goes on where it stopped: node for node the walks of one call with the larger
  /// budget (place_search runs the fills and the sweep in rounds of growing budgets). Once it has found a
  /// placement, or walked everything, or run out of time, it answers the same again. `cancel`, when set
  /// during the call, stops it as its budget would (see resumable_walk).
  std::optional<std::vector<placement>> run(std::uint64_t max_nodes, std::chrono::steady_clock::time_point deadline,
                                            std::uint64_t& nodes, const std::atomic<bool>* cancel = nullptr) {
    auto start = [&] {
      memo_.clear(), limit_ = 0, stack_.clear();
      return prepare();
    };
    run_.cancel = cancel;
    const bool found = run_.resume(max_nodes, deadline, start, [&] { return walks(nodes); });
    run_.cancel = nullptr;
    if (!found) return std::nullopt;
    std::vector<placement> out(n_);
    for (node_id v = 0; v < n_; ++v) out[v] = placement{part_[v], off_[v]};
    return out;
  }

  /// For tests of the pruning rules: places the free nodes group by group, each at at[v] (a valid
  /// placement of the whole problem), running after each placement the checks the walk runs after one
  /// (a neighbor's room, R2 ahead, the hand-offs), and on entering a group those of entering; how many
  /// placements were made when a check claimed that no completion exists, or nothing if none did. A sound
  /// rule never claims it on the path of a placement.
  std::optional<std::size_t> refuted_along(std::span<const placement> at) {
    if (!prepare()) return 0;
    start_walk();
    if (groups_.empty()) return std::nullopt;
    enter(0);
    if (!ahead_fits(0, none, true, true) || !handoffs_fit(none, true) || !handoffs_tile(none, true)) return 0;
    std::size_t count = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (g > 0) {
        enter(g);
        if (!ahead_fits(g, none, true, false)) return count;
      }
      for (node_id v : groups_[g]) {
        placed_[v] = 1, part_[v] = at[v].partition, off_[v] = at[v].offset, qm_[v] = mask(v, part_[v]);
        active_.push_back(v);
        ++count;
        if (!neighbors_keep_room(v) || !ahead_fits(g, v, false, false) || !handoffs_fit(v, false) || !handoffs_tile(v, false))
          return count;
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  /// How many births ahead_fits checks (from the group's own): on planted mixed kernels of 40 and 60
  /// tensors (seeds 1701-1710, 25,000 nodes), 4 places 9 and 4 of 10 where the group's own birth alone
  /// places 7 and 2; every later birth cuts nothing more and costs up to 4x the time at 150 tensors.
  static constexpr std::size_t births_ahead = 4;
  struct run_of_bytes {
    std::uint64_t lo, hi;
  };
  struct empty_run {  // a free run left empty at the birth of `group`
    std::uint32_t quarters;
    std::uint64_t lo, hi;
    std::size_t group;
  };
  struct choice {
    node_id v;              // none: leave the cell's free run empty at this birth
    std::uint32_t partition;
    int contacts;
    std::uint64_t area;
  };
  struct frame {
    std::size_t group = 0;
    std::uint32_t disc = 0;  // discrepancies left on arrival
    std::uint32_t quarter = 0;
    std::uint64_t offset = 0, run_end = 0, raise_to = 0;
    std::vector<choice> choices;
    std::size_t next = 0;
    bool applied = false;
    print128 print{};  // the state this frame starts from (state_print)
  };

  std::uint32_t mask(node_id v, std::uint32_t start) const { return quarter_mask(start, ext_[v].partitions); }
  std::uint64_t align_up(std::uint64_t x) const { return (x + align_ - 1) / align_ * align_; }
  bool live_at(node_id v, program_point t) const {
    for (const interval& i : ranges_.ranges(v))
      if (i.begin <= t && t < i.end) return true;
    return false;
  }

  /// Births, groups, pins placed. False when a free node fits no segment or no start (nothing to find).
  bool prepare() {
    align_ = std::max<std::uint64_t>(1, lay_.alignment);
    part_.assign(n_, 0);
    off_.assign(n_, 0);
    placed_.assign(n_, 0);
    last_.assign(n_, 0);
    reach_.assign(n_, 0);
    qm_.assign(n_, 0);
    cmin_.assign(n_ * 16, 0);
    witness_.assign(n_, std::nullopt);
    seen_.assign(n_, 0), stamp_ = 0;
    std::vector<node_id> free;
    for (node_id v = 0; v < n_; ++v) {
      const auto r = ranges_.ranges(v);
      if (!r.empty()) last_[v] = r.back().end;
      if (!pins_.empty() && pins_[v]) {
        part_[v] = pins_[v]->partition, off_[v] = pins_[v]->offset, placed_[v] = 1;
        qm_[v] = mask(v, part_[v]);
        continue;
      }
      const partition_starts st = allowed_partition_starts(ext_[v].partitions, lay_.partitions);
      if (st.count == 0 || ext_[v].bytes > lay_.segment_bytes) return false;
      reach_[v] = quarter_reach(st, ext_[v].partitions, quarters_, &cmin_[v * 16]);
      if (r.empty()) {  // never live: meets nothing
        part_[v] = st.start[0], placed_[v] = 1, qm_[v] = mask(v, part_[v]);
        continue;
      }
      free.push_back(v);
    }
    std::stable_sort(free.begin(), free.end(), [&](node_id a, node_id b) {
      return ranges_.ranges(a).front().begin < ranges_.ranges(b).front().begin;
    });
    groups_.clear();
    births_.clear();
    for (node_id v : free) {
      const program_point b = ranges_.ranges(v).front().begin;
      if (births_.empty() || births_.back() != b) births_.push_back(b), groups_.emplace_back();
      groups_.back().push_back(v);
    }
    find_twins();
    order_neighbors();
    span_.assign(births_.size(), {});
    for (node_id v = 0; v < n_; ++v) {
      const auto r = ranges_.ranges(v);
      if (r.empty()) continue;
      const bool pinned = !pins_.empty() && pins_[v];
      auto j = static_cast<std::size_t>(std::lower_bound(births_.begin(), births_.end(), pinned ? program_point{0} : r.front().begin) - births_.begin());
      for (; j < births_.size() && births_[j] < last_[v]; ++j) span_[j].push_back(v);
    }
    find_handoffs();
    sym_ = quarter_symmetries(ext_, pins_, lay_.partitions, quarters_);
    return true;
  }
  /// dying_[j]: the nodes live at births_[j] - 1 and not at births_[j] (pins too); full_[j]: whether the
  /// nodes live at births_[j] take every cell of every quarter then, whatever their places (their fewest
  /// quarters x bytes add up to the memory's), for handoffs_fit().
  void find_handoffs() {
    dying_.assign(births_.size(), {});
    full_.assign(births_.size(), 0);
    full_before_.assign(births_.size(), 0);
    for (node_id v = 0; v < n_; ++v)
      for (const interval& i : ranges_.ranges(v)) {
        const auto j = static_cast<std::size_t>(std::lower_bound(births_.begin(), births_.end(), i.end) - births_.begin());
        if (j < births_.size() && births_[j] == i.end && !live_at(v, i.end)) dying_[j].push_back(v);
      }
    const std::uint64_t total = std::uint64_t{quarters_} * lay_.capacity();
    for (std::size_t j = 0; j < births_.size(); ++j) {
      full_[j] = live_area(span_[j], births_[j]) == total;
      // Just before the birth: the nodes live at births_[j] - 1 were born by births_[j - 1] (free nodes
      // are born at births), so span_[j - 1] holds them.
      full_before_[j] = j > 0 && births_[j] > 0 && live_area(span_[j - 1], births_[j] - 1) == total;
    }
    tiled_.clear();
  }
  /// The fewest quarter-bytes the nodes among `nodes` live at t take (a pin's own quarters).
  std::uint64_t live_area(const std::vector<node_id>& nodes, program_point t) const {
    std::uint64_t area = 0;
    for (node_id v : nodes)
      if (live_at(v, t)) area += ext_[v].bytes * (placed_[v] ? std::popcount(qm_[v]) : cmin_[v * 16 + (1u << quarters_) - 1]);
    return area;
  }

  /// The placed nodes live at the birth of group g (pins included).
  void enter(std::size_t g) {
    cur_ = g;
    active_.clear();
    for (node_id v = 0; v < n_; ++v)
      if (placed_[v] && live_at(v, births_[g])) active_.push_back(v);
  }
  bool group_done(std::size_t g) const {
    return std::all_of(groups_[g].begin(), groups_[g].end(), [&](node_id v) { return placed_[v] != 0; });
  }
  /// The state in group g, as what the rest of the walk can see of it: which nodes are placed (the groups
  /// before g and the pins, the same in every state of g, and those of g itself), the runs left empty at
  /// this birth, and the occupancy. A placed node matters to the nodes born from births_[g] on only
  /// through the cells it takes (quarter, bytes) and when it is live from then on (a later node meets it
  /// exactly when their ranges overlap after births_[g]); so the occupancy is printed per quarter as the
  /// taken byte runs with the liveness of their occupants after the birth, adjacent runs of equal
  /// liveness merged. Two states that differ by an exchange of placed nodes of
  /// the same future liveness (blocks of different sizes that die together, stacked in another order)
  /// leave the same runs, the same constraints on everything later, and share one print: a failure of
  /// one is a failure of the other. (By node and place instead, and at a birth's start only, the planted
  /// sweep kernels of docs/PERFORMANCE.md section 10, "One print per occupancy", placed fewer.)
  print128 state_print(std::size_t g) {
    const program_point t = births_[g];
    print128 p{salted_mix(g, 11), salted_mix(g, 12)};
    for (std::uint32_t q = 0; q < quarters_; ++q) taken_[q].clear();
    for (node_id v : span_[g])
      if (placed_[v]) {
        const std::uint64_t life = future_of(v, t);
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if (qm_[v] >> q & 1) taken_[q].push_back({off_[v], off_[v] + ext_[v].bytes, life});
      }
    for (std::uint32_t q = 0; q < quarters_; ++q) taken_[q].resize(merge_taken(taken_[q]));
    for (node_id v : groups_[g])
      if (placed_[v]) p[0] += salted_mix(v, 20), p[1] += salted_mix(v, 21);
    // The least print over the problem's quarter symmetries (sym_): states that are images of each other
    // under one have the same completions, mapped.
    print128 best{};
    for (std::size_t k = 0; k < sym_.size(); ++k) {
      const std::array<std::uint8_t, 4>& pi = sym_[k];
      print128 x = p;
      for (std::uint32_t q = 0; q < quarters_; ++q) hash_taken(x, pi[q], taken_[q]);
      for (const empty_run& w : waste_)
        if (w.group == g) {
          const std::uint64_t at = w.lo << 4 | permute_quarters(w.quarters, pi);
          x[0] += salted_mix(salted_mix(at, 22) ^ w.hi, 24), x[1] += salted_mix(salted_mix(at, 23) ^ w.hi, 25);
        }
      if (k == 0 || x < best) best = x;
    }
    return best;
  }
  /// A key of v's live ranges clipped to [t, end): equal for nodes that are live at the same points from t on.
  std::uint64_t future_of(node_id v, program_point t) const {
    std::uint64_t k = 0;
    for (const interval& i : ranges_.ranges(v))
      if (i.end > t) k = salted_mix(k ^ (std::uint64_t{std::max(i.begin, t)} << 32 | i.end), 19);
    return k;
  }

  /// Fills f's cell (the lowest free aligned offset at the group's birth over the quarters) and choices;
  /// false when no cell is left while the group is not placed, or the area at the birth is short.
  bool open(frame& f) {
    std::uint64_t used = 0;
    for (node_id u : active_) used += std::popcount(qm_[u]) * ext_[u].bytes;
    for (const empty_run& w : waste_)
      if (w.group == cur_) used += std::popcount(w.quarters) * (w.hi - w.lo);
    std::uint64_t need = 0;
    for (node_id v : groups_[f.group])
      if (!placed_[v]) need += ext_[v].bytes * cmin_[v * 16 + (1u << quarters_) - 1];
    const std::uint64_t total = std::uint64_t{quarters_} * lay_.capacity();
    if (used + need > total) return false;
    spare_ = total - used - need;
    // The cell: the lowest free cell of each segment in each quarter is one a block must start at (or
    // be left empty); branch on the one with the fewest choices (fail first), ties to the lower offset,
    // then the lower quarter. Cells are compared by count, each counted only as far as the best so far
    // (PSUM has a cell per bank and quarter; building every cell's sorted choices was 29 % of the
    // sweep's time on planted PSUM kernels of 150 tensors), and the choices are built for the one kept.
    find_smallest(f.group);
    index_birth();
    bool have = false;
    std::size_t best = 0;
    std::uint32_t best_q = 0;
    run_of_bytes best_cell{};
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      lowest_free(q);
      for (const run_of_bytes& cell : cells_) {
        f.quarter = q, f.offset = cell.lo, f.run_end = cell.hi;
        const std::size_t n = count_choices(f, have ? best + 1 : ~std::size_t{0});
        if (!have || n < best || (n == best && cell.lo < best_cell.lo)) have = true, best = n, best_q = q, best_cell = cell;
        if (best == 0) return false;  // nothing covers this cell and it may not stay empty
      }
    }
    if (!have) return false;
    f.quarter = best_q, f.offset = best_cell.lo, f.run_end = best_cell.hi;
    choices(f);
    return true;
  }
  /// In cells_, per segment of quarter q, its lowest free aligned offset at the current birth and the end
  /// of that free run (cut at the segment's end). A block covering such a cell starts there: below it in
  /// the quarter every cell of the segment is taken, and a block does not cross a segment's start.
  void lowest_free(std::uint32_t q) {
    runs_.clear();
    for (node_id u : active_)
      if (qm_[u] >> q & 1) runs_.push_back({off_[u], off_[u] + ext_[u].bytes});
    for (const empty_run& w : waste_)
      if (w.group == cur_ && (w.quarters >> q & 1)) runs_.push_back({w.lo, w.hi});
    cells_.clear();
    each_free_piece([&](std::uint64_t lo, std::uint64_t hi) {
      if (cells_.empty() || lo / lay_.segment_bytes != cells_.back().lo / lay_.segment_bytes) cells_.push_back({lo, hi});
      return false;
    });
  }
  /// Sorts the occupied ranges in runs_, then visits the free pieces they leave in [0, capacity): maximal
  /// free runs inside one segment, each begun at an aligned offset, lowest first, until `visit(lo, hi)`
  /// returns true; whether it did.
  template <class Visit>
  bool each_free_piece(Visit&& visit) {
    std::sort(runs_.begin(), runs_.end(), [](const run_of_bytes& a, const run_of_bytes& b) { return a.lo < b.lo; });
    const std::uint64_t cap = lay_.capacity();
    std::uint64_t from = 0;
    for (std::size_t i = 0; i <= runs_.size(); ++i) {
      const std::uint64_t a = i < runs_.size() ? std::min(runs_[i].lo, cap) : cap;
      for (std::uint64_t lo = align_up(from); lo < a;) {
        const std::uint64_t seg_end = (lo / lay_.segment_bytes + 1) * lay_.segment_bytes;
        if (visit(lo, std::min(a, seg_end))) return true;
        lo = align_up(seg_end);
      }
      if (i < runs_.size()) from = std::max(from, runs_[i].hi);
    }
    return false;
  }
  /// Whether v at (start, o) stays inside one segment and clear of every placed neighbor.
  /// Its neighbors are read in by_birth_'s order, up to the first born in a group after both v's and the
  /// current one: the free nodes are placed group by group, so none from there on is placed (the same
  /// answer as reading them all; on planted PSUM kernels fits() was the sweep's costliest step after
  /// count_choices, most of it reading unplaced neighbors born later).
  bool fits(node_id v, std::uint32_t start, std::uint64_t o) const {
    const std::uint64_t b = ext_[v].bytes;
    if (!in_one_segment(o, b)) return false;
    return clear_of(v, by_birth_, by_birth_at_, mask(v, start), o, b);
  }
  /// Whether [o, o + b) lies inside the memory and inside one of its segments (a PSUM bank).
  bool in_one_segment(std::uint64_t o, std::uint64_t b) const {
    return o + b <= lay_.capacity() && o / lay_.segment_bytes == (o + b - 1) / lay_.segment_bytes;
  }
  /// Whether v at quarters m and bytes [o, o + b) is clear of the placed nodes of its list in `list`
  /// (by_birth_ or later_, each in key order), read up to the first one born in a group after both v's
  /// and the current one (none of those is placed: see fits()).
  bool clear_of(node_id v, const std::vector<node_id>& list, const std::vector<std::size_t>& at, std::uint32_t m,
                std::uint64_t o, std::uint64_t b) const {
    const std::uint32_t until = std::max<std::uint32_t>(key_[v], static_cast<std::uint32_t>(cur_) + 1);
    for (std::size_t k = at[v], e = at[v + 1]; k < e; ++k) {
      const node_id u = list[k];
      if (key_[u] > until) break;
      if (placed_[u] && (qm_[u] & m) && off_[u] < o + b && o < off_[u] + ext_[u].bytes) return false;
    }
    return true;
  }
  /// Per quarter, at the current birth: the bytes the placed nodes live there take (held_, the union of
  /// their runs, sorted), and where those nodes and the runs left empty at this birth start (starts_,
  /// sorted; slivers()), and tops_ (raise_to()). Built by open() for its cells' choices, which read the
  /// state it was built in.
  void index_birth() {
    for (std::uint32_t q = 0; q < quarters_; ++q) held_[q].clear(), starts_[q].clear(), tops_[q].clear();
    // tops_: the aligned ends of the placed neighbors of the group's unplaced nodes, each once; only
    // where a cell may be left empty (spare area: empty_until()), the one reader of raise_to().
    if (++stamp_ == 0) seen_.assign(n_, 0), stamp_ = 1;
    for (node_id v : spare_ > 0 ? std::span<const node_id>(groups_[cur_]) : std::span<const node_id>()) {
      if (placed_[v]) continue;
      for (node_id u : graph_.neighbors(v)) {
        if (!placed_[u] || seen_[u] == stamp_) continue;
        seen_[u] = stamp_;
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if (qm_[u] >> q & 1) tops_[q].push_back(align_up(off_[u] + ext_[u].bytes));
      }
    }
    for (node_id u : active_)
      for (std::uint32_t q = 0; q < quarters_; ++q)
        if (qm_[u] >> q & 1) held_[q].push_back({off_[u], off_[u] + ext_[u].bytes}), starts_[q].push_back(off_[u]);
    for (const empty_run& w : waste_)
      if (w.group == cur_)
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if (w.quarters >> q & 1) starts_[q].push_back(w.lo);
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      std::vector<run_of_bytes>& h = held_[q];
      std::sort(h.begin(), h.end(), [](const run_of_bytes& a, const run_of_bytes& b) { return a.lo < b.lo; });
      std::size_t k = 0;  // merged: two pins placed together (fixed) may overlap
      for (const run_of_bytes& r : h)
        if (k > 0 && r.lo <= h[k - 1].hi) h[k - 1].hi = std::max(h[k - 1].hi, r.hi);
        else h[k++] = r;
      h.resize(k);
      std::sort(starts_[q].begin(), starts_[q].end());
      std::sort(tops_[q].begin(), tops_[q].end());
    }
  }
  /// fits() for a node v of the current group (born at its birth t), in the state index_birth() saw:
  /// the same answer, without reading v's neighbors live at t. Those are the placed nodes live at t
  /// (active_; a free node interferes with every node live with it), so they are held_'s runs, one
  /// binary search per quarter; the other placed neighbors (pins born later, or nodes live again later)
  /// are read from later_, in fits()'s order and up to where it stops. (fits() read them all: 23 % of
  /// the time on a planted PSUM kernel of 150 tensors that the sweep places, most of it neighbors live
  /// at t, placed or not.)
  bool fits_now(node_id v, std::uint32_t start, std::uint64_t o) const {
    const std::uint64_t b = ext_[v].bytes;
    if (!in_one_segment(o, b)) return false;
    const std::uint32_t m = mask(v, start);
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(m >> q & 1)) continue;
      const std::vector<run_of_bytes>& h = held_[q];
      const auto first = std::partition_point(h.begin(), h.end(), [&](const run_of_bytes& r) { return r.hi <= o; });
      if (first != h.end() && first->lo < o + b) return false;
    }
    return clear_of(v, later_, later_at_, m, o, b);
  }
  /// by_birth_: each node's neighbors, the pins and the never-live first (key 0: placed from the start),
  /// then the free ones by their group (key: group + 1); by_birth_at_: where each node's list starts.
  /// Built without sorting: each node u, taken in key order, joins its neighbors' lists.
  void order_neighbors() {
    key_.assign(n_, 0);
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (node_id v : groups_[g]) key_[v] = static_cast<std::uint32_t>(g + 1);
    by_birth_at_.assign(n_ + 1, 0);
    for (node_id v = 0; v < n_; ++v) by_birth_at_[v + 1] = by_birth_at_[v] + graph_.neighbors(v).size();
    by_birth_.resize(by_birth_at_[n_]);
    std::vector<std::size_t> next(by_birth_at_.begin(), by_birth_at_.end() - 1);
    auto join = [&](node_id u) {
      for (node_id v : graph_.neighbors(u)) by_birth_[next[v]++] = u;
    };
    for (node_id u = 0; u < n_; ++u)
      if (key_[u] == 0) join(u);
    for (const std::vector<node_id>& g : groups_)
      for (node_id u : g) join(u);
    // later_: of each free node's list, the neighbors not live at its birth (fits_now()).
    later_at_.assign(n_ + 1, 0);
    later_.clear();
    for (node_id v = 0; v < n_; ++v) {
      if (key_[v] > 0)
        for (std::size_t k = by_birth_at_[v]; k < by_birth_at_[v + 1]; ++k)
          if (!live_at(by_birth_[k], births_[key_[v] - 1])) later_.push_back(by_birth_[k]);
      later_at_[v + 1] = later_.size();
    }
  }
  /// How much a block closes space (see the top of this header): flush with the run's end, and against a
  /// live placed node that dies at the same point (below it: 1; beside it with the same bytes: 2).
  int contacts(node_id v, std::uint32_t start, const frame& f) const {
    const std::uint32_t m = mask(v, start), beside = ((m << 1) | (m >> 1)) & ~m;
    int c = f.offset + ext_[v].bytes == f.run_end ? 4 : 0;
    for (node_id u : active_) {
      if (last_[u] != last_[v]) continue;
      const std::uint32_t mu = qm_[u];
      if ((mu & m) && off_[u] + ext_[u].bytes == f.offset) c += 1;
      else if (!(mu & m) && (mu & beside) && off_[u] == f.offset && ext_[u].bytes == ext_[v].bytes) c += 2;
    }
    return c;
  }
  /// Two unplaced nodes of one group with the same extent and live range are interchangeable (swapping
  /// them maps placements to placements): only the first unplaced of such twins is branched on, so twins
  /// are placed in group order and v waits while its previous twin is unplaced.
  bool shadowed(node_id v) const { return twin_[v] != none && !placed_[twin_[v]]; }
  /// twin_[v]: the previous node of v's group with v's extent and live range, or none.
  void find_twins() {
    twin_.assign(n_, none);
    auto same = [&](node_id a, node_id b) {
      return ext_[a].partitions == ext_[b].partitions && ext_[a].bytes == ext_[b].bytes &&
             std::ranges::equal(ranges_.ranges(a), ranges_.ranges(b));
    };
    auto before = [&](node_id a, node_id b) {
      if (ext_[a].partitions != ext_[b].partitions) return ext_[a].partitions < ext_[b].partitions;
      if (ext_[a].bytes != ext_[b].bytes) return ext_[a].bytes < ext_[b].bytes;
      const auto ra = ranges_.ranges(a), rb = ranges_.ranges(b);
      const auto key = [](const interval& i) { return std::pair{i.begin, i.end}; };
      if (!std::ranges::equal(ra, rb))
        return std::ranges::lexicographical_compare(ra, rb, {}, key, key);
      return a < b;
    };
    for (const std::vector<node_id>& g : groups_) {
      std::vector<node_id> sorted = g;
      std::sort(sorted.begin(), sorted.end(), before);
      for (std::size_t k = 1; k < sorted.size(); ++k)
        if (same(sorted[k - 1], sorted[k])) twin_[sorted[k]] = sorted[k - 1];
    }
  }
  /// Per quarter, the two smallest unplaced nodes of group g that can reach it (for slivers()).
  void find_smallest(std::size_t g) {
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      smallest_[q] = smallest_pair{};
      for (node_id u : groups_[g]) {
        if (placed_[u] || !(reach_[u] >> q & 1)) continue;
        smallest_pair& s = smallest_[q];
        if (ext_[u].bytes < s.bytes) s.second = s.bytes, s.bytes = ext_[u].bytes, s.node = u;
        else if (ext_[u].bytes < s.second) s.second = ext_[u].bytes;
      }
    }
  }
  /// Calls visit(v, start) for each unplaced node v of f's group, at each allowed start taking f's
  /// quarter, that may cover f's cell: it fits there clear of its placed neighbors, and the slivers it
  /// leaves fit in the spare area (find_smallest() was called for the group). Stops when visit returns true.
  template <class Visit>
  void each_fit(const frame& f, Visit&& visit) {
    for (node_id v : groups_[f.group]) {
      // The run holds the block (its end is the next byte taken at this birth in the cell's quarter, or
      // the segment's end): a cheap test before fits() reads the neighbors.
      if (placed_[v] || shadowed(v) || f.offset + ext_[v].bytes > f.run_end) continue;
      const partition_starts st = allowed_partition_starts(ext_[v].partitions, lay_.partitions);
      for (std::uint32_t k = 0; k < st.count; ++k)
        if ((mask(v, st.start[k]) >> f.quarter & 1) && fits_now(v, st.start[k], f.offset) &&
            slivers(v, st.start[k], f.offset) <= spare_ && visit(v, st.start[k]))
          return;
    }
  }
  /// Up to where f's cell may stay empty at this birth (raise_to; the last of choices()), or nothing:
  /// there must be spare area at all (none when the group must tile the free space), and enough of it.
  std::optional<std::uint64_t> empty_until(const frame& f) const {
    if (spare_ == 0) return std::nullopt;
    const std::uint64_t to = raise_to(f);
    return spare_ >= to - f.offset ? std::optional<std::uint64_t>(to) : std::nullopt;
  }
  /// choices(f).size(), counted no further than `limit`.
  std::size_t count_choices(const frame& f, std::size_t limit) {
    std::size_t n = 0;
    each_fit(f, [&](node_id, std::uint32_t) { return ++n >= limit; });
    return n >= limit ? n : n + (empty_until(f) ? 1 : 0);
  }
  void choices(frame& f) {
    f.choices.clear();
    each_fit(f, [&](node_id v, std::uint32_t start) {
      f.choices.push_back({v, start, contacts(v, start, f), std::popcount(mask(v, start)) * ext_[v].bytes});
      return false;
    });
    std::stable_sort(f.choices.begin(), f.choices.end(), [](const choice& a, const choice& b) {
      return a.contacts != b.contacts ? a.contacts > b.contacts : a.area > b.area;
    });
    if (const std::optional<std::uint64_t> to = empty_until(f)) {
      f.raise_to = *to;
      f.choices.push_back({none, 0, 0, 0});
    }
  }
  /// The free bytes that v at (start, o) would leave, in its quarters at the current birth, between its
  /// top and the next occupied byte (or the segment's end), where that gap is shorter than every other
  /// unplaced node of the group that can reach the quarter. No node of the group can cover such a sliver
  /// at this birth, so it stays free there: if the slivers exceed the spare area, the group's nodes no
  /// longer fit in what is left (the area bound of open()), and the choice has no completion.
  std::uint64_t slivers(node_id v, std::uint32_t start, std::uint64_t o) {
    const std::uint64_t top = o + ext_[v].bytes, seg_end = (o / lay_.segment_bytes + 1) * lay_.segment_bytes;
    std::uint64_t total = 0;
    const std::uint32_t m = mask(v, start);
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(m >> q & 1)) continue;
      std::uint64_t next = seg_end;
      const auto above = std::lower_bound(starts_[q].begin(), starts_[q].end(), top);
      if (above != starts_[q].end() && *above < next) next = *above;
      if (next <= top) continue;
      const std::uint64_t smallest = smallest_[q].node == v ? smallest_[q].second : smallest_[q].bytes;
      if (next - top < smallest) total += next - top;
    }
    return total;
  }
  /// Where the empty branch raises the cell to: the lowest end above it, in the run, of a placed neighbor
  /// of an unplaced node of the group that shares the cell's quarter (pins born later among them), the
  /// first offset at which a block blocked at the cell may fit; else the run's end.
  /// Read from index_birth()'s tops_, built once for all of open()'s cells (it read every unplaced node's
  /// neighbors for each cell: most of open()'s own time on planted PSUM kernels, 32 cells a birth).
  std::uint64_t raise_to(const frame& f) const {
    const std::vector<std::uint64_t>& tops = tops_[f.quarter];
    const auto above = std::upper_bound(tops.begin(), tops.end(), f.offset);
    return above != tops.end() && *above < f.run_end ? *above : f.run_end;
  }

  /// Whether w, unplaced, still has a position clear of its placed neighbors at some start, now that v
  /// is placed. Each node keeps the last such position found (its witness): a witness is clear of every
  /// placed neighbor when found, each neighbor placed later is checked against it here (every placement
  /// checks all its unplaced neighbors, or is undone at once), and undoing placements frees positions;
  /// so a witness that v does not overlap is still clear, and only then is the memory searched again.
  bool has_room(node_id w, node_id v) {
    if (witness_[w] && !meets(w, *witness_[w], v)) return true;
    witness_[w].reset();
    const partition_starts st = allowed_partition_starts(ext_[w].partitions, lay_.partitions);
    const std::uint64_t b = ext_[w].bytes;
    for (std::uint32_t k = 0; k < st.count; ++k) {
      const std::uint32_t m = mask(w, st.start[k]);
      runs_.clear();
      for (node_id u : graph_.neighbors(w))
        if (placed_[u] && (qm_[u] & m)) runs_.push_back({off_[u], off_[u] + ext_[u].bytes});
      if (each_free_piece([&](std::uint64_t lo, std::uint64_t hi) {
            if (hi - lo < b) return false;
            witness_[w] = placement{st.start[k], lo};
            return true;
          }))
        return true;
    }
    return false;
  }
  /// Whether w at p and the placed v share a partition and a byte.
  bool meets(node_id w, const placement& p, node_id v) const {
    return (mask(w, p.partition) & qm_[v]) && p.offset < off_[v] + ext_[v].bytes &&
           off_[v] < p.offset + ext_[w].bytes;
  }
  bool neighbors_keep_room(node_id v) {
    for (node_id w : graph_.neighbors(v))
      if (!placed_[w] && !has_room(w, v)) return false;
    return true;
  }

  void apply(frame& f, const choice& c) {
    if (c.v == none) {
      waste_.push_back({std::uint32_t{1} << f.quarter, f.offset, f.raise_to, f.group});
    } else {
      placed_[c.v] = 1, part_[c.v] = c.partition, off_[c.v] = f.offset, qm_[c.v] = mask(c.v, c.partition);
      active_.push_back(c.v);
    }
    f.applied = true;
  }
  void undo(frame& f) {
    const choice& c = f.choices[f.next - 1];
    if (c.v == none) waste_.pop_back();
    else placed_[c.v] = 0, active_.erase(std::find(active_.begin(), active_.end(), c.v));
    f.applied = false;
  }

  /// Pushes the frame that continues from the current state with `disc` discrepancies left: in group g,
  /// or at the next group's birth when g is placed; its print is checked against the memory of failed
  /// states first. 1: a frame was pushed; 2: everything is placed; 0: a dead end.
  /// `now`: the node the last choice placed (none: a run left empty, or the walk's start).
  int descend(std::size_t g, std::uint32_t disc, std::vector<frame>& stack, node_id now = none) {
    const bool start = stack.empty();  // the walk's first frame: no birth checked yet
    bool first = start;
    if (!first && group_done(g)) {
      if (++g == groups_.size()) return 2;
      first = true;
    }
    if (g == groups_.size()) return 2;
    if (first) enter(g);
    frame f;
    f.group = g, f.disc = disc, f.print = state_print(g);
    if (memo_.failed(f.print, disc)) return 0;
    if (!ahead_fits(g, now, first, start) || !handoffs_fit(now, start) || !handoffs_tile(now, start)) {
      memo_.store(f.print, disc);
      return 0;
    }
    if (!open(f)) {
      memo_.store(f.print, disc);
      return 0;
    }
    stack.push_back(std::move(f));
    return 1;
  }
  /// Rule R2 of the exact search at the births ahead: at the birth of group j >= g, the unplaced nodes
  /// live there (of groups g..j) must fit, for every set S of quarters, in the room the placed nodes live
  /// there leave in S's quarters, each free run counted for the largest subset sum of its candidates'
  /// sizes that fits. Placed nodes stay where they are, so a birth that fails here fails in every
  /// completion.
  /// Checks `all` the births at the walk's start; after that, only those whose live sets changed since
  /// their last check, made on the way to this state: where `now` (the node just placed; none after a
  /// run left empty, which changes no live set) is live, and on `entering` a group the birth that came
  /// into the window. (Keeping the rooms of the quarters `now` does not take, an upper bound, cost 5 of
  /// 480 planted problems at equal nodes, for about 15 % less time: measured, not kept.)
  bool ahead_fits(std::size_t g, node_id now, bool entering, bool all) {
    const std::size_t end = std::min(groups_.size(), g + births_ahead);
    for (std::size_t j = g; j < end; ++j) {
      const program_point t = births_[j];
      if (!all && !(now != none && live_at(now, t)) && !(entering && j + 1 == g + births_ahead)) continue;
      // The unplaced nodes live at t are those of groups g..j (every earlier group is placed), the placed
      // ones are placed nodes; span_[j] holds both.
      ahead_.clear();
      std::array<std::uint64_t, 16> need{};
      for (std::uint32_t q = 0; q < quarters_; ++q) taken_by_[q].clear();
      for (node_id v : span_[j]) {
        if (!live_at(v, t)) continue;
        if (placed_[v]) {
          for (std::uint32_t q = 0; q < quarters_; ++q)
            if (qm_[v] >> q & 1) taken_by_[q].push_back({off_[v], off_[v] + ext_[v].bytes});
          continue;
        }
        ahead_.push_back(v);
        for (std::uint32_t S = 1; S < (1u << quarters_); ++S) need[S] += ext_[v].bytes * cmin_[v * 16 + S];
      }
      std::sort(ahead_.begin(), ahead_.end(), [&](node_id a, node_id b) { return ext_[a].bytes < ext_[b].bytes; });
      std::array<std::uint64_t, 4> room{};
      for (std::uint32_t q = 0; q < quarters_; ++q) {
        std::swap(runs_, taken_by_[q]);
        each_free_piece([&](std::uint64_t lo, std::uint64_t hi) {
          sizes_.clear();
          std::uint64_t total = 0;
          for (node_id v : ahead_)
            if ((reach_[v] >> q & 1) && ext_[v].bytes <= hi - lo) sizes_.push_back(ext_[v].bytes), total += ext_[v].bytes;
          room[q] += fill_(sizes_, total, hi - lo);
          return false;
        });
      }
      for (std::uint32_t S = 1; S < (1u << quarters_); ++S) {
        std::uint64_t have = 0;
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if (S >> q & 1) have += room[q];
        if (need[S] > have) return false;
      }
    }
    return true;
  }

  /// Rule "hand-off": at a birth t where every cell is taken (full_), take a free run at t in one quarter,
  /// between cells taken at t by placed nodes (or a segment's ends). Its bytes that placed nodes dying at
  /// t (dying_) took at t - 1 are covered at t, and not by a node live at t - 1 (those cells were the
  /// dying ones' then) nor by a placed node (the run is free of them): by unplaced nodes born at t (live
  /// at t, not at t - 1), stacked in bytes inside the run. So a subset of their sizes sums to at least
  /// those bytes and at most the run; when none does, no completion exists (placed nodes never move).
  /// Checked after each placement of `now` at the births where it was live just before (the runs it
  /// takes or bounds), and at every birth at the walk's `start`.
  bool handoffs_fit(node_id now, bool start) {
    if (now == none) {
      if (!start) return true;
      for (std::size_t j = cur_; j < births_.size(); ++j)
        if (full_[j] && !handoff_runs_fit(j, (1u << quarters_) - 1)) return false;
      return true;
    }
    for (std::size_t j = cur_; j < births_.size() && births_[j] <= last_[now]; ++j)
      if (full_[j] && births_[j] > 0 && live_at(now, births_[j] - 1) && !handoff_runs_fit(j, qm_[now])) return false;
    return true;
  }
  /// handoffs_fit at birth j, in the quarters of `quarters`.
  bool handoff_runs_fit(std::size_t j, std::uint32_t quarters) {
    const program_point t = births_[j];
    if (t == 0) return true;
    ahead_.clear();
    for (node_id v : span_[j])
      if (!placed_[v] && live_at(v, t) && !live_at(v, t - 1)) ahead_.push_back(v);
    std::sort(ahead_.begin(), ahead_.end(), [&](node_id a, node_id b) { return ext_[a].bytes < ext_[b].bytes; });
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(quarters >> q & 1)) continue;
      gather_region(dying_[j], q, region_[q]);
      if (region_[q].empty()) continue;
      runs_.clear();
      for (node_id u : span_[j])
        if (placed_[u] && (qm_[u] >> q & 1) && live_at(u, t)) runs_.push_back({off_[u], off_[u] + ext_[u].bytes});
      const bool dead = each_free_piece([&](std::uint64_t lo, std::uint64_t hi) {
        const std::uint64_t must = covered_bytes(region_[q], lo, hi);
        if (must == 0) return false;
        sizes_.clear();
        std::uint64_t total = 0;
        for (node_id v : ahead_)
          if ((reach_[v] >> q & 1) && ext_[v].bytes <= hi - lo) sizes_.push_back(ext_[v].bytes), total += ext_[v].bytes;
        return fill_(sizes_, total, hi - lo) < must;
      });
      if (dead) return false;
    }
    return true;
  }
  /// Rule "hand-off tiling": at a birth t where every cell is taken at t - 1 and at t (full_before_,
  /// full_), the nodes live at t - 1 and at t keep their cells, so the free cells at t are exactly those
  /// of the nodes that die at t (dying_), and the nodes born at t must tile them exactly. Once every
  /// dying node is placed that region is fixed, however the nodes born in between are placed: if the
  /// newborns cannot tile it (exact_tiler, within a budget; gave up counts as "can"), no completion
  /// exists. Checked when `now` completes a birth's dying set, and at the walk's `start` for all.
  bool handoffs_tile(node_id now, bool start) {
    if (now == none && !start) return true;
    for (std::size_t j = cur_ + 1; j < births_.size(); ++j) {
      if (now != none && births_[j] > last_[now]) break;
      if (!full_[j] || !full_before_[j]) continue;
      if (now != none && std::find(dying_[j].begin(), dying_[j].end(), now) == dying_[j].end()) continue;
      if (!tileable(j)) return false;
    }
    return true;
  }
  /// handoffs_tile at birth j: the region of the nodes dying there against its newborns, once every dying
  /// node is placed but one at most. Answers for a placed region are remembered by its print (the
  /// newborns of a later birth are all unplaced, so the region decides; at most tiled_most of them, then
  /// forgotten). One dying node u unplaced: see one_left_tileable.
  bool tileable(std::size_t j) {
    const program_point t = births_[j];
    node_id left = none;
    for (node_id u : dying_[j])
      if (!placed_[u]) {
        if (left != none) return true;  // the region is not known yet
        left = u;
      }
    newborn_.clear();
    for (node_id v : span_[j])
      if (live_at(v, t) && !live_at(v, t - 1)) {
        if (placed_[v]) return true;  // a pin born at t: not modelled (rare), no cut
        newborn_.push_back(ext_[v]);
      }
    for (std::uint32_t q = 0; q < quarters_; ++q) gather_region(dying_[j], q, region_[q]);
    if (left != none) return one_left_tileable(j, left);
    print128 p{salted_mix(j, 30), salted_mix(j, 31)};
    for (std::uint32_t q = 0; q < quarters_; ++q)
      for (const exact_tiler::free_run& r : region_[q])
        p[0] += salted_mix(salted_mix(r.lo << 2 | q, 32) ^ r.hi, 34), p[1] += salted_mix(salted_mix(r.lo << 2 | q, 33) ^ r.hi, 35);
    const auto known = tiled_.find(p[0] ^ (p[1] << 1));
    if (known != tiled_.end()) return known->second != 0;
    const bool can = tiler_.run(region_, newborn_, lay_, quarters_, tile_nodes) != exact_tiler::answer::cannot;
    if (tiled_.size() >= tiled_most) tiled_.clear();  // bounded memory; forgetting costs a recomputation only
    tiled_.emplace(p[0] ^ (p[1] << 1), can ? 1 : 0);
    return can;
  }
  /// Into out: the cells of quarter q of the placed nodes among `nodes`, sorted, adjacent ones merged.
  void gather_region(const std::vector<node_id>& nodes, std::uint32_t q, std::vector<exact_tiler::free_run>& out) {
    freed_.clear();
    for (node_id u : nodes)
      if (placed_[u] && (qm_[u] >> q & 1)) freed_.push_back({off_[u], off_[u] + ext_[u].bytes});
    std::sort(freed_.begin(), freed_.end(), [](const run_of_bytes& a, const run_of_bytes& b) { return a.lo < b.lo; });
    out.clear();
    for (const run_of_bytes& r : freed_) {
      if (!out.empty() && out.back().hi == r.lo) out.back().hi = r.hi;
      else out.push_back({r.lo, r.hi});
    }
  }
  /// tileable with one dying node u unplaced (region_ holds the placed ones' cells, newborn_ the
  /// newborns). u was born at a birth k before j; where every cell is taken at k and just before it, u
  /// lies in the cells freed at k (the region of birth k, known once k's dying are placed), tiled exactly
  /// by k's newborns: so in a quarter u takes, the bytes below it in its run of that region are a sum of
  /// other newborns of k. Each such place of u, free of its placed neighbors, completes the region of j;
  /// if the newborns of j tile none, no completion exists. Not remembered (the places depend on more than
  /// the region); no test when u was born elsewhere or its places are too many to try.
  bool one_left_tileable(std::size_t j, node_id u) {
    const auto k = static_cast<std::size_t>(
        std::lower_bound(births_.begin(), births_.end(), ranges_.ranges(u).front().begin) - births_.begin());
    if (k >= j || k >= births_.size() || births_[k] != ranges_.ranges(u).front().begin || !full_[k] || !full_before_[k]) return true;
    for (node_id w : dying_[k])
      if (!placed_[w]) return true;
    const std::array<std::vector<exact_tiler::free_run>, 4> known = region_;
    for (std::uint32_t q = 0; q < quarters_; ++q) gather_region(dying_[k], q, region_k_[q]);
    const std::uint64_t b = ext_[u].bytes;
    const partition_starts st = allowed_partition_starts(ext_[u].partitions, lay_.partitions);
    std::size_t tried = 0;
    for (std::uint32_t s = 0; s < st.count; ++s) {
      const std::uint32_t m = mask(u, st.start[s]);
      const auto q = static_cast<std::uint32_t>(std::countr_zero(m));
      for (const exact_tiler::free_run& r : region_k_[q]) {
        if (r.hi - r.lo < b) continue;
        if (!below_sums(u, k, q, r.hi - r.lo - b)) return true;  // too many sums to try
        for (std::size_t x = 0; x < sums_.size(); ++x) {
          const std::uint64_t o = r.lo + sums_[x];
          if (o % align_ != 0 || !fits(u, st.start[s], o) || !inside_region_k(m, o, b)) continue;
          if (++tried > 64) return true;
          for (std::uint32_t qq = 0; qq < quarters_; ++qq) {
            region_[qq] = known[qq];
            if (m >> qq & 1) add_cells(region_[qq], o, o + b);
          }
          if (tiler_.run(region_, newborn_, lay_, quarters_, tile_nodes) != exact_tiler::answer::cannot) return true;
        }
      }
    }
    return false;
  }
  /// Into sums_: the distinct sums (at most `most`) of subsets of the sizes of the nodes born at birth k
  /// (live at it, not just before; placed or not) other than u that can take quarter q; false when there
  /// are more than 256 of them.
  bool below_sums(node_id u, std::size_t k, std::uint32_t q, std::uint64_t most) {
    sums_.assign(1, 0);
    const program_point t = births_[k];
    for (node_id v : span_[k]) {
      if (v == u || !live_at(v, t) || (t > 0 && live_at(v, t - 1))) continue;
      if (placed_[v] ? !(qm_[v] >> q & 1) : !(reach_[v] >> q & 1)) continue;
      const std::size_t n = sums_.size();
      for (std::size_t i = 0; i < n; ++i)
        if (sums_[i] + ext_[v].bytes <= most) sums_.push_back(sums_[i] + ext_[v].bytes);
      std::sort(sums_.begin(), sums_.end());
      sums_.erase(std::unique(sums_.begin(), sums_.end()), sums_.end());
      if (sums_.size() > 256) return false;
    }
    return true;
  }
  /// Whether [o, o + b) lies in the cells freed at birth k (region_k_) in every quarter of m.
  bool inside_region_k(std::uint32_t m, std::uint64_t o, std::uint64_t b) const {
    for (std::uint32_t q = 0; q < quarters_; ++q) {
      if (!(m >> q & 1)) continue;
      const std::vector<exact_tiler::free_run>& c = region_k_[q];
      if (std::none_of(c.begin(), c.end(), [&](const exact_tiler::free_run& r) { return r.lo <= o && o + b <= r.hi; }))
        return false;
    }
    return true;
  }
  /// Adds [lo, hi) (disjoint from them) to the sorted runs c, merging touching ones.
  static void add_cells(std::vector<exact_tiler::free_run>& c, std::uint64_t lo, std::uint64_t hi) {
    c.push_back({lo, hi});
    std::sort(c.begin(), c.end(), [](const exact_tiler::free_run& a, const exact_tiler::free_run& b) { return a.lo < b.lo; });
    std::size_t n = 0;
    for (const exact_tiler::free_run& r : c) {
      if (n > 0 && c[n - 1].hi == r.lo) c[n - 1].hi = r.hi;
      else c[n++] = r;
    }
    c.resize(n);
  }
  /// How many bytes of [lo, hi) the disjoint runs c cover.
  static std::uint64_t covered_bytes(const std::vector<exact_tiler::free_run>& c, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t n = 0;
    for (const exact_tiler::free_run& r : c)
      if (r.lo < hi && lo < r.hi) n += std::min(hi, r.hi) - std::max(lo, r.lo);
    return n;
  }

  /// A walk's start: only the pins and the nodes never live are placed, no run is left empty.
  void start_walk() {
    for (node_id v = 0; v < n_; ++v) placed_[v] = (!pins_.empty() && pins_[v]) || ranges_.ranges(v).empty();
    waste_.clear();
  }

  /// The walks with 0, 1, 2, ... discrepancies allowed (see the top of this header); the walk in
  /// progress (its limit and frames) is kept between calls of run(). True: everything placed.
  bool walks(std::uint64_t& nodes) {
    for (;;) {
      if (stack_.empty()) {  // a new walk at limit_
        skipped_ = false;
        start_walk();
        if (groups_.empty()) return true;
        if (descend(0, limit_, stack_) != 1) return false;
      }
      if (walk_on(nodes)) return true;
      if (run_.out || !skipped_) return false;  // the budget or the clock ran out (the frames stay), or all walked
      ++limit_;
    }
  }
  /// The walk in progress, from its top frame. Stops (run_.out) before taking a choice, its frame undone, so
  /// that the next call takes it as this one would.
  bool walk_on(std::uint64_t& nodes) {
    std::vector<frame>& stack = stack_;
    while (!stack.empty()) {
      frame& f = stack.back();
      if (cur_ != f.group) enter(f.group);  // back from the next group: this birth's live set again
      if (f.applied) undo(f);
      if (f.next < f.choices.size() && f.next > f.disc) skipped_ = true, f.next = f.choices.size();
      if (f.next == f.choices.size()) {
        memo_.store(f.print, f.disc);
        stack.pop_back();
        continue;
      }
      if (run_.stop(nodes)) return false;
      ++nodes;
      watchdog_tick(16);
      const std::uint32_t left = f.disc - static_cast<std::uint32_t>(f.next);
      const choice c = f.choices[f.next++];
      apply(f, c);
      if (c.v != none && !neighbors_keep_room(c.v)) continue;
      const std::size_t g = f.group;
      const int r = descend(g, left, stack, c.v);  // may move the stack, and f with it
      if (r == 2) return true;
    }
    return false;
  }

  const live_range_table& ranges_;
  std::span<const extent> ext_;
  std::span<const std::optional<placement>> pins_;
  const interference_graph& graph_;
  rect_layout lay_;
  std::size_t n_;
  std::uint32_t quarters_;
  std::uint64_t align_ = 1, spare_ = 0;
  resumable_walk run_;                    // across calls of run()
  std::vector<frame> stack_;              // the walk in progress (see walks)
  std::uint32_t limit_ = 0;               // its discrepancy limit
  bool skipped_ = false;                  // whether it has skipped a branch over the limit
  std::vector<std::uint32_t> part_;
  std::vector<std::uint64_t> off_;
  std::vector<std::uint8_t> placed_;
  std::vector<std::uint32_t> qm_;                   // per placed node, the quarters it takes
  std::vector<program_point> last_;                 // one past each node's last point
  std::vector<node_id> twin_;                       // see shadowed()
  std::vector<std::optional<placement>> witness_;   // see has_room()
  std::vector<program_point> births_;               // per group
  std::vector<std::vector<node_id>> groups_;        // free nodes by birth, in time order
  std::vector<std::uint32_t> key_;                  // see order_neighbors()
  std::vector<node_id> by_birth_;                   // fits()'s neighbor order (order_neighbors())
  std::vector<std::size_t> by_birth_at_;
  std::vector<node_id> later_;                      // fits_now()'s (order_neighbors())
  std::vector<std::size_t> later_at_;
  std::array<std::vector<run_of_bytes>, 4> held_;   // index_birth()'s, per quarter
  std::array<std::vector<std::uint64_t>, 4> starts_;
  std::array<std::vector<std::uint64_t>, 4> tops_;  // raise_to()'s
  std::vector<std::uint32_t> seen_;                 // index_birth()'s marks, by stamp_
  std::uint32_t stamp_ = 0;
  std::size_t cur_ = 0;                             // the group whose birth active_ describes
  std::vector<node_id> active_;                     // placed nodes live at births_[cur_]
  std::vector<empty_run> waste_;                    // runs left empty, a stack over the walk's path
  std::vector<run_of_bytes> runs_;
  std::vector<run_of_bytes> cells_;  // lowest_free()'s
  std::array<std::vector<taken_run>, 4> taken_;          // state_print()'s, per quarter
  std::array<std::vector<run_of_bytes>, 4> taken_by_;    // ahead_fits()'s, per quarter
  /// Per birth j, the nodes that may be placed and live at or after births_[j]: pins live then or later,
  /// and free nodes born by then that are live at some point from then on (prepare()).
  std::vector<std::vector<node_id>> span_;
  struct smallest_pair {
    std::uint64_t bytes = ~std::uint64_t{0}, second = ~std::uint64_t{0};
    node_id node = none;
  };
  std::array<smallest_pair, 4> smallest_{};
  failed_states memo_;
  std::vector<std::array<std::uint8_t, 4>> sym_;  // quarter_symmetries() of the problem
  std::vector<std::uint32_t> reach_;  // per node, the quarters some allowed start touches
  std::vector<std::uint32_t> cmin_;   // per node and set S of quarters (v * 16 + S), the fewest of S it touches
  std::vector<node_id> ahead_;
  std::vector<std::vector<node_id>> dying_;  // see find_handoffs()
  std::vector<std::uint8_t> full_;
  std::vector<run_of_bytes> freed_;          // gather_region()'s
  std::vector<std::uint8_t> full_before_;
  static constexpr std::uint64_t tile_nodes = 2000;
  static constexpr std::size_t tiled_most = std::size_t{1} << 16;  // answers tileable() remembers at most
  std::array<std::vector<exact_tiler::free_run>, 4> region_;
  std::array<std::vector<exact_tiler::free_run>, 4> region_k_;  // one_left_tileable()'s: the region of u's birth
  std::vector<std::uint64_t> sums_;
  std::vector<extent> newborn_;
  exact_tiler tiler_;
  std::unordered_map<std::uint64_t, std::uint8_t> tiled_;
  std::vector<std::uint64_t> sizes_;
  subset_fill fill_;
};

}  // namespace gca::detail
