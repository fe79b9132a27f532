// gca/engine/place_search.hpp — the exact placement search for the rectangle memories (SBUF, PSUM).
//
// Provides `place_search`: given the nodes of one space (extents partitions x bytes, live ranges, pins),
// find a placement in which no two nodes whose live ranges meet share a partition and a byte, or prove
// that none exists, within a budget of search nodes (and an optional deadline). Its answer is one of
// found (with every node's placement), infeasible (proved), gave_up (budget spent). Works on any
// RectangleGeometry (geometry/rect_layout.hpp) through its rect_layout. Deterministic: the result depends
// only on the problem and the node budget (a deadline, when given, can only turn an answer into gave_up).
//
// Bytes alone. A problem in which every allowed start of every node touches all four 32-partition
// quarters (more than 96 partitions), without pins, in one segment, is a problem of a linear memory: it
// goes to the 1-D search of engine/search.hpp, exact both ways (place_searcher::linear).
//
// First try. Each part of the problem (see place_search at the end) is first given to the skyline fill
// of engine/place_fill.hpp on 3/8 of its node budget: a heuristic walk that fills the emptiest cell of
// partitions x time first, fast on kernels whose busiest points are exactly full, which the canonical
// order below explores slowly; bottom-up on 3/16 of the budget, and upside down (the problem reflected,
// o -> C - o - b) on 3/16 when the memory is symmetric (fill_and_sweep). With it the time sweep of
// engine/place_sweep.hpp (placing the nodes in order of birth, each birth's free space filled from a
// quarter's lowest free cell) has 3/8; the fills and the sweep take turns in rounds of
// growing budgets, each resuming where it stopped. What they find is a placement; when they find nothing
// the walk below runs on what is left of the budget; only that walk proves infeasibility.
//
// Probe turns. So that a part the walk below proves infeasible in a few nodes is answered then, that walk
// also takes a turn in each round, after the fills and the sweep, on an eighth of the round's budget,
// resuming where it stopped (place_searcher::probe_turn).
//
// Narrow turns. After each round of those turns that finds nothing, the part is also searched afresh in
// the narrowest memory in which R2 holds at the root (each segment cut to fewer bytes): the walks are at
// their best where the busiest points are full, and more room must not lose a placement
// (place_searcher::narrow_turn).
//
// Reverse turns. Where a pin is born after a free node, the same walks also take turns, after the fills
// and the sweep of each round, on the problem reversed in time (the same meetings, so the same
// placements), where such a pin is met at once instead of at its birth (place_searcher::reverse_turn).
//
// Filler turns. Where some births have free area, the sweep also runs, in turns of its own, on the part
// completed with filler blocks that make every birth full (engine/rect_completion.hpp), three guesses of
// their shapes, each resuming where it stopped (place_searcher::filler_turns).
//
// Repair turns. After the fills and the sweep in each round, the repair walk of engine/place_repair.hpp
// (a min-conflicts local search: a block left out goes where the blocks it overlaps cost least, and they
// are left out instead) on the sweep's share of the round, resuming where it stopped: free space
// scattered through the busiest points, where the tree walks lose their strongest rules, is what it
// needs (place_searcher::repair_turn).
//
// Threads. With search_limits::threads of 2 or more the sweep's turn of each round after the first runs
// on a thread of its own beside the fills' turns (place_searcher::beside), and the 1-D search's two lanes
// race on two threads (engine/lanes.hpp). Either way the answer, the placements and the node count are
// those of one thread (each walk depends only on its own budget, and the fills' answer in a round comes
// first, as in turns); only the wall-clock time changes.
//
// Canonical placements. Take any valid placement and, repeatedly, move a free (unpinned) block to the
// lowest aligned byte offset, in its own start partition, where it overlaps neither a pin nor a block that
// precedes it in (offset, id) order. Blocks that follow it and interfere with it while sharing a
// partition lie wholly above its old offset (they follow it and cannot overlap it), so they stay clear of
// it; the sum of offsets drops each time, so this ends. In the result ("canonical") every block sits at the
// LOWEST free offset its start partition allows, given the pins and the blocks before it in (offset, id)
// order. The search enumerates exactly such sequences: it places blocks one at a time, each at its lowest
// free offset given what is placed, and only in increasing (offset, id) order. So if a placement exists,
// the canonical one is on some branch, and exhausting the branches proves that none exists. Each block's
// offset is therefore 0 (the start of a segment, aligned), or the aligned end of an interfering block that
// shares partitions with it: these are the only offsets ever tried.
//
// Pruning rules (each may only cut branches with no canonical completion):
//   R1 dead block. An unplaced block must come after the last placed one in (offset, id) order, so its
//      offset is >= the last offset (> it if its id is smaller); placing more blocks only blocks more
//      positions. If no start partition leaves it a free position there, no completion exists.
//   R1b hole below the frontier. If v, at start partition p, has a free position [h, h + size) wholly
//      below the last placed offset, every block placed from now on (at offsets >= the last) leaves it
//      free, so v's lowest free offset at p stays below the frontier and v can never be placed at p in
//      (offset, id) order: p is dead for v (and v is dead when every p is, by R1).
//   R2 quarters and holes at a point. Every allowed start partition is a multiple of 32, so whether two
//      blocks share a partition depends only on the 32-partition "quarters" they touch: a block of p
//      partitions at start s touches quarters [s/32, ceil((s+p)/32)), and two blocks share a partition
//      exactly when they share a quarter. So at one program point t each quarter is a line of bytes, and
//      the nodes live at t use disjoint byte ranges of every quarter they touch. Unplaced ones lie wholly
//      at or above the frontier (R1), in the free byte ranges ("gaps") that the placed nodes live at t
//      leave there: a gap of quarter q is a maximal free range of q above the frontier, cut at segment
//      ends (a block never crosses one) and begun at an aligned offset (a block starts at one). The
//      unplaced nodes that end up in one gap are live at t together, so their sizes sum to at most its
//      length; and each of them is a "candidate" of the gap: its size fits, and (for a hole, a gap closed
//      above by a placed node, where this is checked) it has a start partition touching q and a position
//      inside the gap, at or above its lowest allowed offset (R1), that no placed neighbor overlaps at any
//      of its points (placed nodes stay where they are in every completion). So a gap holds at most
//      fill(gap) = the largest sum of a subset of its candidates' sizes that is <= its length (computed
//      exactly for up to 16 candidates and 256 sums; else the length, which is larger), and quarter q
//      offers room_q = the sum of fill over its gaps. For every set S of quarters, a block uses at least
//      c_S(block) = min over its allowed starts of |quarters touched within S| byte ranges of its size
//      inside S; if the unplaced nodes live at t need more than the sum of room_q over q in S, no
//      completion exists. S = all quarters is the area bound counted in quarters; S = {0} holds every
//      block of more than 64 partitions (the 1-D bound of 128-partition problems); S = {0, 2} charges such
//      a block twice and a 33..64-partition block (start 0 or 64) once. The holes make pins count: the
//      space below a pin must be filled by blocks that fit there, exactly when the point is full. Checked
//      at the first point of every live interval whose live nodes are not all live at the next such point
//      too (any set of points is sound; these are the busiest candidates of an interval-like problem, and
//      one point per run of births keeps a node's cost from growing with the pairs live together:
//      keep_busiest_points).
//   R3 identical blocks. Two free blocks with the same extent and the same live range are
//      interchangeable: swapping them maps placements to placements. Only the canonical placement in
//      which the lower id comes first in (offset, id) order is kept, so the higher one may not be
//      placed before the lower.
//   R4 failed states. The canonical completions of a state depend only on: the set of placed blocks
//      (hence the unplaced set U), the last placed (offset, id), which unplaced (block, start partition)
//      pairs are dead (no free position, or one wholly below the frontier: R1b), and the positions of the
//      placed free blocks that end above (frontier - the largest size in U). Indeed an unplaced block that
//      is not dead at a start has all its free positions above (frontier - its size), and whether such a
//      position is free depends only on the blocks that end above it; the rules R1..R3 read nothing
//      else (pins are the same in every state). Two states that agree on these have the same subtrees, so
//      when a state's subtree held no placement, a later state with the same "print" is cut. The print is
//      a pair of 64-bit Zobrist-style hashes (independent keys from splitmix64) of that data: a false match
//      needs two independent 64-bit collisions, far less likely (< 2^-100 over a search of 10^7 nodes)
//      than a hardware fault, and is the one approximation in a "proved" answer. Under limited discrepancy
//      (below) a state whose subtree was walked with d discrepancies still allowed, and failed, cuts a later
//      equal state only with at most d allowed, and then the walk counts as having skipped something.
// Value order (not a rule, decides only how fast a placement is found): lowest offset first, then larger
// area, then id. Only the print of a state whose children were all walked is kept (1 M slots at most,
// one per hash slot, a newer print replacing an older one: forgetting is sound).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <bit>
#include <chrono>
#include <iterator>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gca/error.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/engine/place_compact.hpp>
#include <gca/engine/place_fill.hpp>
#include <gca/engine/place_repair.hpp>
#include <gca/engine/place_sweep.hpp>
#include <gca/engine/rect_completion.hpp>
#include <gca/engine/search.hpp>
#include <gca/engine/search_status.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/graph/interval_index.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca {

struct search_limits {
  std::uint64_t max_nodes = 200000;  // search nodes expanded before giving up (deterministic; the narrow
                                     // turns below may add up to about 4/3 of it)
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  bool fill = true;  // try the skyline fill first (engine/place_fill.hpp); off: the canonical walk alone
  bool flush_first = true;  // the fill tries blocks flush with neighbouring floors first (off: area only)
  bool free_cuts = true;    // in the fill, a choice the bound cuts at once costs no discrepancy
  bool sweep = true;        // try the time sweep after the fill (engine/place_sweep.hpp)
  // 2 or more: the time sweep's turns run beside the fills' on a second thread, and the 1-D search's two
  // lanes race on two (fill_and_sweep, linear). The answer, the placements and the node count are those
  // of one thread; only the wall-clock time changes.
  unsigned threads = 1;
  // Where the root bound (R2) leaves the memory room to spare, take turns in a narrower memory too: the
  // narrowest in which R2 holds at the root (place_searcher::narrow_turn).
  bool narrow_turns = true;
  // Take turns with the same walks on the problem reversed in time (place_searcher::reverse_turn).
  bool reverse_turns = true;
  // Where some birth has free area, take turns with the time sweep on the part made full at every birth by
  // filler blocks (engine/rect_completion.hpp; place_searcher::filler_turns).
  bool filler_turns = true;
  // Take turns with the repair walk (engine/place_repair.hpp; place_searcher::repair_turn).
  bool repair = true;
  // Take turns with probes of the canonical walk, the one walk that proves (place_searcher::probe_turn).
  bool probes = true;
  // Past this many interfering pairs (counted by a sweep over the live ranges, before any graph is
  // built; pairs of two fixed nodes, which have no edge, are counted too) the search does not run: it
  // answers gave_up at once, and place_result::skipped says why. The search's interference graph and each
  // walk's setup cost the pairs, and a spill step runs hundreds of searches: 3,000 SB tensors live
  // together (4.5 M pairs) took 433 s at -O2 where the colorer alone took 7 s for the same spills
  // (docs/PERFORMANCE.md section 10, "A node's cost"). 2^20 pairs, the DRAM peak search's limit too, is
  // about 1,450 tensors live together.
  std::uint64_t max_pairs = std::uint64_t{1} << 20;
  // Push a found placement's free blocks down to their lowest free offsets (engine/place_compact.hpp), so
  // that its high-water is no higher than it must be; off: the placement as the walk that found it left it.
  bool compact = true;
};

/// One space's nodes. Non-owning; every span has one entry per node of `ranges` (pins and fixed may be
/// empty). `fixed`: pins whose places were decided together (an earlier colorer, another core); two fixed
/// pins are not checked against each other, as in build_interference (a fixed node without a pin is an
/// input_error of place_search).
struct place_problem {
  const live_range_table& ranges;
  std::span<const extent> extents;
  std::span<const std::optional<placement>> pins = {};
  std::span<const std::uint8_t> fixed = {};
};

/// A place_problem's arrays, owned: a problem made inside the library (place_searcher's filler guesses,
/// spill/place_or_prove.hpp's spilled views). `fixed` has one flag per node (all 0: none fixed, which
/// build_interference reads as an empty span).
struct owned_place_problem {
  live_range_table ranges;
  std::vector<extent> extents;
  std::vector<std::optional<placement>> pins;
  std::vector<std::uint8_t> fixed;
  place_problem problem() const { return {ranges, extents, pins, fixed}; }
  /// Appends a node: its live ranges, extent, pin (none: free) and whether that pin is fixed.
  template <class = void>
  void add(std::span<const interval> r, extent e, std::optional<placement> at = std::nullopt, bool fix = false) {
    ranges.add(r);
    extents.push_back(e);
    pins.push_back(at);
    fixed.push_back(fix ? 1 : 0);
  }
  /// A copy of p, its empty pins and fixed spans made one entry per node.
  template <class = void>
  static owned_place_problem copy_of(const place_problem& p) {
    owned_place_problem out;
    out.ranges = p.ranges;
    out.extents.assign(p.extents.begin(), p.extents.end());
    out.pins.assign(p.ranges.num_nodes(), std::nullopt);
    std::copy(p.pins.begin(), p.pins.end(), out.pins.begin());
    out.fixed.assign(p.ranges.num_nodes(), 0);
    std::copy(p.fixed.begin(), p.fixed.end(), out.fixed.begin());
    return out;
  }
};

struct place_result {
  search_status status = search_status::gave_up;
  std::vector<std::optional<placement>> placements;  // found: one per node (pins where pinned)
  std::uint64_t nodes = 0;  // search nodes expanded (one whose checks take many steps counts as several: node_work)
  // Of `nodes`, those of the narrow, reverse, filler and repair turns, which the budget (search_limits::max_nodes)
  // does not count: they leave the canonical walk's budget whole, and the later parts' (search_parts).
  std::uint64_t turn_nodes = 0;
  std::string proof;                                 // infeasible: what proved it
  std::string skipped;  // gave_up without searching (search_limits::max_pairs): why, for the caller's message
  // gave_up, when the repair walk ran (engine/place_repair.hpp): the free nodes its best state left out
  // (sorted; every node of `partial` then placed without an overlap), and that state, one entry per
  // node (nothing for those left out, and for the nodes of parts not searched). A hint for choosing
  // spills (spill/place_or_prove.hpp), not a proof; both empty otherwise.
  std::vector<node_id> left_out;
  std::vector<std::optional<placement>> partial;
};

namespace detail {

template <class Deferred = void>
class place_searcher {
 public:
  /// `shared`: the interference graph of `p` when the caller has built it (the narrow turns: the same
  /// ranges and fixed flags), else it is built here.
  place_searcher(const place_problem& p, const rect_layout& lay, const search_limits& lim,
                 const interference_graph* shared = nullptr)
      : p_(p), lay_(lay), lim_(lim), n_(p.ranges.num_nodes()), shared_(shared) {
    if (p.extents.size() != n_ || (!p.pins.empty() && p.pins.size() != n_) || (!p.fixed.empty() && p.fixed.size() != n_))
      throw input_error("place_search: extents, pins and fixed must have one entry per node");
  }

  place_result run() {
    place_result r;
    if (!prepare(r)) {
      r.status = search_status::infeasible;
      return r;
    }
    if (linear_problem()) {
      linear(r);
      return r;
    }
    if ((lim_.fill || lim_.sweep) && free_.size() > 1 && fill_and_sweep(r)) {
      r.nodes += turns_spent_, r.turn_nodes = turns_spent_;
      return r;
    }
    r.status = search(r, lim_.max_nodes);
    r.nodes += turns_spent_, r.turn_nodes = turns_spent_;  // after the canonical walk, whose budget they leave whole (narrow_turn)
    if (r.status == search_status::gave_up && repairer_) {
      r.partial = repairer_->best_state();
      for (node_id v = 0; v < r.partial.size(); ++v)
        if (!r.partial[v]) r.left_out.push_back(v);
    }
    if (r.status == search_status::found) {
      r.placements.assign(n_, std::nullopt);
      for (node_id v = 0; v < n_; ++v) r.placements[v] = placement{part_[v], off_[v]};
    }
    return r;
  }

  /// Whether the problem is one of bytes alone: no pins, one segment, one live interval per node, and
  /// every allowed start of every node touches every quarter of the memory, so that any two nodes share a
  /// partition (nodes of more than 96 of 128 partitions: start 0 only). Then two nodes conflict exactly
  /// when they are live together and their byte ranges meet, as in a linear memory of the same capacity
  /// and alignment, and a placement of one is a placement of the other (partition 0 for every node).
  bool linear_problem() const {
    if (free_.size() != n_ || n_ < 2 || lay_.segments != 1) return false;
    const std::uint32_t all = quarter_mask(0, lay_.partitions);
    for (node_id v = 0; v < n_; ++v) {
      if (p_.ranges.ranges(v).size() != 1) return false;
      const partition_starts st = starts(v);
      for (std::uint32_t k = 0; k < st.count; ++k)
        if (quarter_mask(st.start[k], p_.extents[v].partitions) != all) return false;
    }
    return true;
  }
  /// Such a problem goes to the 1-D search (engine/search.hpp), whose rules use that every two nodes
  /// live together conflict (its valley branching and section cuts): planted 128-partition kernels that
  /// this walk and the fill gave up on after 100,000 nodes take it a few thousand (docs/PERFORMANCE.md,
  /// section 10). Its answer is exact both ways, so it is this search's answer; its two lanes share the
  /// node budget (each gets half).
  void linear(place_result& r) {
    std::vector<extent> bytes(n_);
    std::vector<interval> life(n_);
    for (node_id v = 0; v < n_; ++v) bytes[v] = {1, p_.extents[v].bytes}, life[v] = p_.ranges.ranges(v).front();
    linear_search_options so;
    so.deadline = lim_.deadline;
    so.node_limit = std::max<std::uint64_t>(1, lim_.max_nodes / 2);
    so.threads = lim_.threads;  // the lanes' race: the same answer on two threads (engine/lanes.hpp)
    const search_result s = search_placement(graph(), bytes, life, linear_dram(lay_.capacity(), lay_.alignment), so);
    r.nodes += s.stats.nodes;
    r.status = s.status;
    if (s.status == search_status::found) {
      r.placements.assign(n_, std::nullopt);
      for (node_id v = 0; v < n_; ++v) r.placements[v] = placement{0, s.placements[v].offset};
    } else if (s.status == search_status::infeasible) {
      r.proof = "every two nodes share a partition, and the 1-D search proved that their bytes do not fit";
    }
  }

  /// The heuristic walks before the canonical walk: the skyline fill (engine/place_fill.hpp) on 3/8 of
  /// the budget, the time sweep (engine/place_sweep.hpp) on 3/8, and the canonical walk keeps the last
  /// quarter (it alone proves infeasibility). On kernels with epochs the fill finds nearly everything
  /// within a few thousand nodes; the sweep finds most of what it misses on kernels cut anew as tensors
  /// die, and more the longer it runs (docs/PERFORMANCE.md, section 10, "The time sweep" and "Turns":
  /// with the fill on half and the sweep on a quarter, two held-out sets placed 6 problems fewer each,
  /// none more). When the memory is symmetric under reflection the fill's part is split: bottom-up on
  /// half of it, upside down on the other half (else bottom-up on all of it). Reflection o -> C - o - b
  /// (C the capacity, b the block's bytes) maps the memory onto itself: segments onto segments, and aligned offsets onto aligned offsets when C, the
  /// segment bytes and every block's bytes are multiples of the alignment. So the reflected problem has a
  /// placement exactly when the problem has, and the fill, which works from the floor up, works on it from
  /// the top down: pins high in the memory, which fix the order of what lies below them and which a
  /// bottom-up fill meets last, come first. (Two tight pinned parts of 27 and 25 free blocks, which the
  /// fill and the canonical walk each gave up on after 500,000 nodes, were found upside down in 6,650 and
  /// 346.)
  ///
  /// The walks take turns, in rounds of growing budgets (4,096 nodes each, then 4 times as many each
  /// round, up to each one's share), each going on where it stopped: a walk's nodes and answer depend only
  /// on its own budget, so each gives up where it did alone on its share, and the part is placed exactly
  /// when one of them places it; but the part costs about what the walk that places it needs, not the
  /// fill's whole part first (planted kernels built by sweep, placed by the sweep: docs/PERFORMANCE.md
  /// section 10, "Turns"). In turns of a few thousand nodes without resuming, the two fills had cost more
  /// in total on held-out problems: most parts need the bottom-up fill alone, and their cost doubled.
  /// A round, in order: the narrow turn, the fills and the sweep, a probe of the canonical walk, the
  /// repair walk, the filler turns.
  bool fill_and_sweep(place_result& r) {
    constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t b = first_round;; b = b > most / 4 ? most : 4 * b) {
      if (narrow_turn(r, b) || walk_round(r, b) || reverse_turn(r, b)) return true;
      const walk_set& k = *walks_;
      if (probe_turn(r, std::min(b, k.part) / 8) || repair_turn(r, std::min(b, k.repair_share)) ||
          filler_turns(r, std::min(b, k.sweep_share)))
        return true;
      if ((b >= k.fill_share && b >= k.sweep_share && b >= k.repair_share) || std::chrono::steady_clock::now() > lim_.deadline)
        return false;
    }
  }
  static constexpr std::uint64_t first_round = 4096;
  /// fill_and_sweep's walks between rounds, made on the first: the fills (bottom-up, and upside down over
  /// the reflected pins when the memory is symmetric), the sweep, each one's nodes and how many of them
  /// the answer has. Held by pointer: the walks keep references to `flipped`.
  struct walk_set {
    bool symmetric = false;
    std::uint64_t part = 0, fill_share = 0, sweep_share = 0, repair_share = 0;
    std::vector<std::optional<placement>> flipped;
    std::optional<skyline_filler<Deferred>> up, down;
    std::optional<time_sweeper<Deferred>> sweep;
    std::array<std::uint64_t, 3> spent{}, counted{};
  };
  void make_walks() {
    walks_ = std::make_unique<walk_set>();
    walk_set& k = *walks_;
    k.symmetric = lim_.fill && reflection_exact();
    k.part = lim_.max_nodes / 8 * 3;  // the fill's (both ways), and the sweep's
    k.fill_share = !lim_.fill ? 0 : k.symmetric ? k.part / 2 : k.part;
    k.sweep_share = lim_.sweep ? k.part : 0, k.repair_share = lim_.repair ? k.part : 0;
    if (k.symmetric && !p_.pins.empty()) {
      k.flipped.assign(n_, std::nullopt);
      for (node_id v = 0; v < n_; ++v)
        if (p_.pins[v]) k.flipped[v] = reflect(*p_.pins[v], p_.extents[v]);
    }
    auto filler = [&](std::optional<skyline_filler<Deferred>>& f, std::span<const std::optional<placement>> pins) {
      f.emplace(p_.ranges, p_.extents, pins, graph(), lay_, reach_, cmin_, lim_.flush_first, lim_.free_cuts);
    };
    filler(k.up, p_.pins);
    filler(k.down, p_.pins.empty() ? std::span<const std::optional<placement>>{} : std::span<const std::optional<placement>>(k.flipped));
    k.sweep.emplace(p_.ranges, p_.extents, p_.pins, graph(), lay_);
  }
  /// One round of the fills and the sweep on budget `b` (each up to its share), each resuming where it
  /// stopped; whether one placed the part (then r has the placement). `split_fills`: the two fills of a
  /// symmetric memory share b (the narrow turns), instead of b each.
  bool walk_round(place_result& r, std::uint64_t b, bool split_fills = false) {
    if (!walks_) make_walks();
    walk_set& k = *walks_;
    // A walk's turn ended with `got`: its nodes go to r, and its placement, if any, is the answer.
    auto take = [&](std::size_t i, const std::optional<std::vector<placement>>& got, bool reflected) {
      r.nodes += k.spent[i] - k.counted[i];
      k.counted[i] = k.spent[i];
      if (!got) return false;
      r.status = search_status::found;
      r.placements.assign(n_, std::nullopt);
      for (node_id v = 0; v < n_; ++v) r.placements[v] = reflected ? reflect((*got)[v], p_.extents[v]) : (*got)[v];
      return true;
    };
    auto step = [&](auto& walk, std::size_t i, std::uint64_t budget, bool reflected) {
      return take(i, walk.run(budget, lim_.deadline, k.spent[i]), reflected);
    };
    auto fills = [&](std::uint64_t f) { return f > 0 && (step(*k.up, 0, f, false) || (k.symmetric && step(*k.down, 1, f, true))); };
    const std::uint64_t f = std::min(split_fills && k.symmetric ? b / 2 : b, k.fill_share), w = std::min(b, k.sweep_share);
    // The first round alone stays on one thread: most parts are placed within it, and a thread would
    // cost more than it saves there.
    if (lim_.threads > 1 && b > first_round && f > 0 && w > 0)
      return beside([&] { return fills(f); }, [&](const std::atomic<bool>* cancel) { return k.sweep->run(w, lim_.deadline, k.spent[2], cancel); },
                    [&](const std::optional<std::vector<placement>>& got) { return take(2, got, false); });
    return fills(f) || (w > 0 && step(*k.sweep, 2, w, false));
  }
  /// One round of fill_and_sweep's turns on two threads: the sweep's turn (`sweep_turn`) on a new thread,
  /// the fills' (`fill_turns`) on this one, with the answer of the turns in order: the fills' placement if
  /// they found one (the sweep's turn is then cancelled, and neither its nodes nor its answer are taken,
  /// as in order it would not have run), else the sweep's turn, taken whole (`take_sweep`). Each walk
  /// resumes where it stopped and depends only on its own budget, so the answer and the node count are
  /// the one thread's; the round costs the longer of the two turns instead of their sum. The walks share
  /// only the problem, which they read. An exception of the fills (the watchdog) cancels the sweep first;
  /// one of the sweep counts only when its turn would have run.
  template <class Fills, class SweepTurn, class TakeSweep>
  bool beside(Fills&& fill_turns, SweepTurn&& sweep_turn, TakeSweep&& take_sweep) {
    std::atomic<bool> cancel{false};
    std::optional<std::vector<placement>> got;
    std::exception_ptr error;
    const auto watch = watchdog_deadline();  // the caller's watchdog holds in the sweep's thread too
    std::thread other([&] {
      const watchdog_scope scope(watch);
      try {
        got = sweep_turn(&cancel);
      } catch (...) {
        error = std::current_exception();
      }
    });
    bool placed = false;
    try {
      placed = fill_turns();
    } catch (...) {
      cancel = true;
      other.join();
      throw;
    }
    if (placed) cancel = true;
    other.join();
    if (placed) return true;
    if (error) std::rethrow_exception(error);
    return take_sweep(got);
  }

  /// Narrow turns: more room must not lose a placement. The walks above are at their best where the
  /// busiest points are full to the byte: R2 then asks every cell to be filled exactly, and a wrong block
  /// fails at once. With room to spare above every placement the memory is full nowhere, and the same
  /// walks wander: planted SB kernels they place at their own width were lost at 1 % more bytes (seeds
  /// 1901-1910, tight partition mixes of 60 tensors: 5 of 10 placed at the planted width, 2 at 1.01 x;
  /// docs/PERFORMANCE.md section 10, "Narrow turns"). So at the head of each round the same
  /// problem is searched in the narrowest memory in which R2 holds at the root (each segment cut to w
  /// bytes, w aligned; narrowest_width) by a search of its own, made on the first turn, which each turn
  /// takes one round further: its fills (sharing the round's budget when there are two) and its sweep
  /// resume up to the round's budget, and its canonical walk probes half of it. Each walk gets about as
  /// far as in a fresh search of 8/3 of the round's budget (the turns' old form: fills and sweep on 3/8
  /// of it each, the canonical walk on the rest), without walking the same way again each round: about
  /// 8/3 of the last round's budget in all, not 32/9 (docs/PERFORMANCE.md section 10, "Narrow turns that
  /// resume"). Their nodes are counted in the answer but not against the canonical
  /// walk's budget, the one walk that proves infeasibility: a problem given up on costs about one budget
  /// more for them, and a proof costs what it did. First in the round, since session 47: where a narrow
  /// turn runs at all the memory has room to spare at its busiest points, where the walks here wander
  /// and the same walks in the narrow memory, full there, do not; on held-out kernels the same fits
  /// with a geometric mean per kernel of 0.02 (PSUM by epochs) to 0.62 of the nodes, and a part the walks
  /// here place costs the narrow turn of that round more (docs/PERFORMANCE.md section 10, "The narrow
  /// turn first"). A placement there is one here: offset
  /// o in narrow segment k is k x segment + (o mod w), inside segment k, and two blocks keep their
  /// relative bytes within a segment (checked below all the same). Its proofs say nothing of this memory
  /// and are dropped. The 2-D analogue of the 1-D search's max-live turns (engine/search.hpp), where R2's
  /// root bound is max-live. Off in the narrow search itself, and where no narrower memory passes R2.
  bool narrow_turn(place_result& r, std::uint64_t budget) {
    if (!lim_.narrow_turns) return false;
    if (narrow_ == 0) narrow_ = narrowest_width();
    if (narrow_ >= lay_.segment_bytes) return false;
    if (!narrow_search_) make_narrow();
    alternate_part& n = *narrow_search_;
    if (!alternate_turn(n, budget, budget / 2)) return false;
    r.status = search_status::found;
    r.placements.assign(n_, std::nullopt);
    for (node_id v = 0; v < n_; ++v) {
      const std::uint64_t o = n.r.placements[v]->offset;
      r.placements[v] = placement{n.r.placements[v]->partition, o / narrow_ * lay_.segment_bytes + o % narrow_};
    }
    check_placement(r);
    return true;
  }
  /// A search taking turns with this one on a problem of its own (narrow_turn: the pins narrowed;
  /// reverse_turn: the live ranges reversed), kept between rounds: what differs from this problem, the
  /// problem (which the searcher keeps a reference to), its searcher and its answer so far; `ended` once
  /// it placed its problem or proved that it has no placement (or its root check failed).
  struct alternate_part {
    live_range_table ranges;                     // reverse_turn's (narrow_turn: unused)
    std::vector<std::optional<placement>> pins;  // narrow_turn's (reverse_turn: unused)
    std::optional<place_problem> problem;
    std::unique_ptr<place_searcher> search;
    place_result r;
    bool ended = false;
  };
  /// a's searcher, on a's problem in layout `lay`, with no turns of its own (narrow, reverse and filler
  /// turns and the repair walk off, as the narrow turns' search had them before): each turn
  /// takes a's fills, sweep and canonical walk one round further, and nothing else.
  void start_alternate(alternate_part& a, const rect_layout& lay) {
    search_limits lim = lim_;
    lim.narrow_turns = false, lim.reverse_turns = false, lim.filler_turns = false, lim.repair = false;
    a.search = std::make_unique<place_searcher>(*a.problem, lay, lim, &graph());
    a.ended = !a.search->prepare(a.r);
  }
  /// One turn of a: a round of its walks on `walk` nodes, then a probe of its canonical walk on `probe`,
  /// resuming where its last turn stopped; its nodes counted as turn nodes. Whether it placed its problem
  /// (the placement in a.r).
  bool alternate_turn(alternate_part& a, std::uint64_t walk, std::uint64_t probe) {
    if (a.ended) return false;
    const std::uint64_t before = a.r.nodes;
    a.ended = a.search->walk_round(a.r, walk, true) || a.search->probe_turn(a.r, probe);
    turns_spent_ += a.r.nodes - before;
    return a.r.status == search_status::found;
  }
  void make_narrow() {
    narrow_search_ = std::make_unique<alternate_part>();
    alternate_part& n = *narrow_search_;
    n.pins = *narrow_pins(narrow_);
    n.problem.emplace(place_problem{p_.ranges, p_.extents, n.pins, p_.fixed});
    start_alternate(n, narrow_layout(narrow_));
  }
  /// Reverse turns: the same walks on the problem reversed in time, each live range [b, e) taken to
  /// [T - e, T - b) (T: the end of the last one). Two nodes meet in one exactly when they meet in the
  /// other, the pins stay, so a placement of one is a placement of the other, and the interference graph
  /// is shared. The walks follow time (the sweep by births, the fill by sections), and what is hard one
  /// way can be easy the other: where pins are born inside an epoch, the free blocks born before them must
  /// leave them exactly their place, met only at their birth going forward and at once going backward
  /// (planted PSUM kernels by epochs at tightness 1, pinned: two epochs of 84 and 95 tensors that every
  /// walk here gave up on after 1,000,000 nodes, placed reversed in 7,127 and 9,239; docs/PERFORMANCE.md
  /// section 10, "Reverse turns"). After the fills and the sweep of each round, so a part they place in
  /// the first round costs nothing more; each turn takes the reversed search one round further on a
  /// quarter of the round's budget (its fills sharing it, its sweep, a probe of its canonical walk on an
  /// eighth), resuming, its nodes counted in the answer but not against the budget, as the narrow turns'.
  /// Only where a pin is born after a free node (pin_born_late). (On the whole round's budget, as the
  /// narrow turns, and on every part, the same fits cost 1.20-1.37 times the nodes on the benchmark sets
  /// where it placed nothing more; on a quarter, 1.05-1.24; with the pins' condition too, pinned sets up
  /// to 1.09, unpinned ones node for node the same.) Its proofs hold here too, but are left to the
  /// canonical walk here (the same walk, the same bounds). Off in the narrow and reversed searches
  /// themselves.
  bool reverse_turn(place_result& r, std::uint64_t budget) {
    if (!lim_.reverse_turns) return false;
    if (!reverse_search_ && !pin_born_late()) return false;
    if (!reverse_search_) make_reverse();
    alternate_part& n = *reverse_search_;
    if (!alternate_turn(n, budget / 4, budget / 8)) return false;
    r.status = search_status::found;
    r.placements = n.r.placements;
    check_placement(r);
    return true;
  }
  /// Whether a pin is born after a free node: what the reverse turns are for. Without one, the walks
  /// meet every pin from their start forward, and reversed the problem only begins with free space where
  /// it ended (session 25: the sweep reversed placed fewer unpinned kernels by sweep), so no turn is
  /// taken and the part costs what it did.
  bool pin_born_late() const {
    program_point first_free = std::numeric_limits<program_point>::max(), last_pin = 0;
    bool any_pin = false;
    for (node_id v = 0; v < n_; ++v) {
      const auto r = p_.ranges.ranges(v);
      if (r.empty()) continue;
      if (pinned(v)) any_pin = true, last_pin = std::max(last_pin, r.front().begin);
      else first_free = std::min(first_free, r.front().begin);
    }
    return any_pin && last_pin > first_free;
  }
  void make_reverse() {
    reverse_search_ = std::make_unique<alternate_part>();
    alternate_part& n = *reverse_search_;
    program_point end = 0;
    for (const interval& i : p_.ranges.intervals) end = std::max(end, i.end);
    std::vector<interval> back;
    for (node_id v = 0; v < n_; ++v) {
      back.clear();
      const auto forward = p_.ranges.ranges(v);
      for (auto i = forward.rbegin(); i != forward.rend(); ++i) back.push_back({end - i->end, end - i->begin});
      n.ranges.add(back);
    }
    n.problem.emplace(place_problem{n.ranges, p_.extents, p_.pins, p_.fixed});
    start_alternate(n, lay_);
  }
  /// Filler turns: the time sweep on the part completed with fillers (engine/rect_completion.hpp says
  /// why and how), one sweep per guess of the fillers' shapes (pieces of a filler: 4, 12, 2), the guesses
  /// sharing the round's sweep budget in equal parts, each resuming where it stopped (time_sweeper::run),
  /// so a guess placed within n nodes is placed after about 3 n of the guesses' nodes, and a part given
  /// up on costs 3/8 of its budget more. (Each guess on the whole sweep budget placed one kernel more of
  /// the 40 of docs/PERFORMANCE.md section 10, "2-D fillers", and cost three times as much; the budget is
  /// shared by the parts of a problem, so it starved later parts: a test of spilled kernels refused one.)
  /// Only the sweep, not the fills or the canonical walk: on planted SB kernels with holes (seeds
  /// 1911-1920, 40 and 60 tensors) the sweep alone placed all but 2 of the 45 completions the whole
  /// search placed, and a completion proves nothing. What a guess places, without its fillers, is a
  /// placement of the part (checked). Their nodes are counted in the answer, not against the canonical
  /// walk's budget, as the narrow turns'. Off in the narrow searches (their memory has no room to spare
  /// at the busiest points) and where no birth has free area.
  bool filler_turns(place_result& r, std::uint64_t budget) {
    if (!lim_.filler_turns || budget == 0) return false;
    if (!filled_built_) build_filled();
    for (const std::unique_ptr<filled_part>& f : filled_) {
      const std::uint64_t before = f->spent;
      const std::optional<std::vector<placement>> got = f->sweep->run(budget / filled_.size(), lim_.deadline, f->spent);
      turns_spent_ += f->spent - before;
      if (!got) continue;
      r.status = search_status::found;
      r.placements.assign(n_, std::nullopt);
      for (node_id v = 0; v < n_; ++v) r.placements[v] = (*got)[v];
      check_placement(r);
      return true;
    }
    return false;
  }
  /// Probe turns: the canonical walk (search below), the only walk that proves a part infeasible, on an
  /// eighth of the round's budget (at most an eighth of the other walks' share), after the fills and the
  /// sweep and before the repair walk. Without them an infeasible part was proved only after every other
  /// walk had spent its whole share, though most such parts are proved in a few thousand canonical
  /// nodes: the operand sets of proof 1 and the all-spilled views of spill/place_or_prove.hpp, each with
  /// 3/8 of its budget going to the repair walk, eight moves a node (small random SB kernels, 240
  /// allocations: 1.1 s before the repair walk's budget of session 39, 3.8 s after it, most of it in the
  /// repair walk). The walk resumes where the last turn stopped and its nodes count against its own
  /// budget, as before: it is the final walk cut into turns, so a part given up on costs what it did.
  /// (Probes that started afresh, each counted beside the budget, cost about a sixth of a share more on
  /// every part given up on: spilling SB kernels of 150 tensors 8 % slower; docs/PERFORMANCE.md section
  /// 10, "Probes of the canonical walk".) A probe's placement is checked here; its proof is the walk's.
  bool probe_turn(place_result& r, std::uint64_t budget) {
    if (!lim_.probes || budget == 0) return false;
    const search_status s = search(r, std::min(r.nodes + budget, lim_.max_nodes));
    if (s == search_status::gave_up) return false;
    r.status = s;
    if (s == search_status::infeasible) return true;
    r.placements.assign(n_, std::nullopt);
    for (node_id v = 0; v < n_; ++v) r.placements[v] = placement{part_[v], off_[v]};
    check_placement(r);
    return true;
  }
  /// Repair turns: the repair walk (engine/place_repair.hpp says why and how) on the part, resuming where
  /// it stopped, on the round's budget (up to 3/8 of the part's, as the sweep). Free space scattered
  /// through the busiest points, which costs the tree walks their strongest rules, is what it needs:
  /// on SB kernels by sweep with holes 0.1 it alone placed 129 of 160 held-out ones that the search
  /// before it placed 101 of, and the two together 142 (docs/PERFORMANCE.md section 10, "The repair
  /// walk"). After the fills and the sweep, so that what they place within a round is answered as
  /// before; its nodes count in the answer, not against the canonical walk's budget, as the narrow
  /// turns'. What it places is checked here.
  bool repair_turn(place_result& r, std::uint64_t budget) {
    if (budget == 0) return false;
    // Not where R2 fails at the root: no placement exists there, and the walk would spend its whole
    // budget finding none (the canonical walk proves it in a node or two).
    if (!repair_checked_) {
      repair_checked_ = true;
      if (bands_fit()) repairer_.emplace(p_.extents, p_.pins, graph(), lay_);
    }
    if (!repairer_) return false;
    const std::uint64_t before = repair_spent_;
    const std::optional<std::vector<placement>> got = repairer_->run(budget, lim_.deadline, repair_spent_);
    turns_spent_ += repair_spent_ - before;
    if (!got) return false;
    r.status = search_status::found;
    r.placements.assign(n_, std::nullopt);
    for (node_id v = 0; v < n_; ++v) r.placements[v] = (*got)[v];
    check_placement(r);
    return true;
  }
  /// One guess of filler_turns: the part's nodes, then the fillers (free), and a sweep over them. Held by
  /// pointer: the sweep keeps references to the rest.
  struct filled_part {
    owned_place_problem p;
    interference_graph graph;
    std::optional<time_sweeper<Deferred>> sweep;  // dependent: instantiated only with the searcher
    std::uint64_t spent = 0;
  };
  /// The guesses: at most as many pieces as the part has free nodes (beyond that the sweep has more
  /// fillers to place than nodes, the memory is mostly free space, and the narrow turns serve it better).
  void build_filled() {
    filled_built_ = true;
    std::vector<std::uint64_t> area(n_);
    for (node_id v = 0; v < n_; ++v) area[v] = p_.extents[v].bytes * cmin_[v * 16 + sets_];
    std::uint64_t least = std::numeric_limits<std::uint64_t>::max();  // no filler smaller than a free node
    for (node_id v : free_) least = std::min(least, area[v]);
    for (const std::uint64_t pieces : {4, 12, 2}) {
      const std::optional<rect_filler_set> add = rect_fillers(p_.ranges, area, lay_, quarters_, pieces, free_.size(), least);
      if (!add) continue;
      auto f = std::make_unique<filled_part>();
      f->p = owned_place_problem::copy_of(p_);
      for (std::size_t k = 0; k < add->life.size(); ++k) f->p.add(std::span(&add->life[k], 1), add->extents[k]);
      f->graph = build_interference(f->p.ranges, f->p.fixed);
      f->sweep.emplace(f->p.ranges, f->p.extents, f->p.pins, f->graph, lay_);
      filled_.push_back(std::move(f));
    }
  }
  rect_layout narrow_layout(std::uint64_t w) const { return {lay_.partitions, lay_.alignment, w, lay_.segments}; }
  /// The pins in segments cut to w bytes (same segment, same offset in it); none if one does not fit.
  std::optional<std::vector<std::optional<placement>>> narrow_pins(std::uint64_t w) const {
    std::vector<std::optional<placement>> out(p_.pins.size());
    for (std::size_t v = 0; v < p_.pins.size(); ++v) {
      if (!p_.pins[v]) continue;
      const std::uint64_t seg = p_.pins[v]->offset / lay_.segment_bytes, in = p_.pins[v]->offset % lay_.segment_bytes;
      if (in + p_.extents[v].bytes > w) return std::nullopt;
      out[v] = placement{p_.pins[v]->partition, seg * w + in};
    }
    return out;
  }
  /// The narrowest aligned segment width w (below the segment's own) at which the problem passes the
  /// root's checks (prepare, and R2 at every point: bands_fit); the segment's width when none does. R2
  /// holds at w' > w when it holds at w (a gap only grows, and so does its best subset sum; the pins keep
  /// their offsets), so the least such w is found by bisection, each probe one root check (a searcher's
  /// prepare on this searcher's interference graph, which every narrow searcher shares, and R2 over the
  /// points).
  std::uint64_t narrowest_width() {
    const std::uint64_t a = lay_.alignment, seg = lay_.segment_bytes, top = seg / a * a;
    // Segments that do not start at aligned offsets (a bank size no multiple of the alignment) would map
    // an aligned narrow offset to an unaligned one: no narrow turns there.
    if (lay_.segments > 1 && seg % a != 0) return seg;
    std::uint64_t lo = a;
    for (node_id v = 0; v < n_; ++v)
      lo = std::max(lo, (pinned(v) ? p_.pins[v]->offset % seg : 0) + p_.extents[v].bytes);
    lo = (lo + a - 1) / a * a;
    if (lo >= top) return seg;
    std::uint64_t hi = top;  // R2 is assumed to hold at the segment's own width (else nothing is lost)
    while (lo < hi) {
      const std::uint64_t mid = (lo + (hi - lo) / 2) / a * a;
      if (root_fits(mid)) hi = mid;
      else lo = mid + a;
    }
    return lo >= top ? seg : lo;
  }
  bool root_fits(std::uint64_t w) {
    const auto pins = narrow_pins(w);
    if (!pins) return false;
    const place_problem q{p_.ranges, p_.extents, *pins, p_.fixed};  // the searcher keeps a reference
    place_searcher s(q, narrow_layout(w), lim_, &graph());
    place_result ignored;
    return s.prepare(ignored) && s.bands_fit();
  }
  /// An independent check of a placement taken from elsewhere (a narrow, reverse, filler or repair turn):
  /// legal, and no two live neighbors (not both fixed) sharing a partition and a byte.
  void check_placement(const place_result& r) const {
    for (node_id v = 0; v < n_; ++v) {
      const extent& e = p_.extents[v];
      const placement& at = *r.placements[v];
      if (!lay_.legal(e, at)) throw std::logic_error("place_search: a narrow, reverse, filler or repair turn placed node " + std::to_string(v) + " illegally");
      for (node_id u : graph().neighbors(v)) {
        if (u < v) continue;
        const placement& b = *r.placements[u];
        const extent& f = p_.extents[u];
        if (partitions_overlap(e, at, f, b) && bytes_overlap(e, at, f, b))
          throw std::logic_error("place_search: a narrow, reverse, filler or repair turn placed nodes " + std::to_string(v) + " and " +
                                 std::to_string(u) + " on each other");
      }
    }
  }

  bool reflection_exact() const {
    const std::uint64_t a = lay_.alignment;
    if (lay_.capacity() % a != 0 || lay_.segment_bytes % a != 0) return false;
    return std::all_of(p_.extents.begin(), p_.extents.end(), [&](const extent& e) { return e.bytes % a == 0; });
  }
  placement reflect(const placement& p, const extent& e) const { return {p.partition, lay_.capacity() - p.offset - e.bytes}; }

 private:
  static constexpr std::uint64_t none = unbounded;

  struct child {
    std::uint64_t offset;
    node_id v;
    std::uint32_t partition;
  };
  struct frame {
    std::vector<child> children;
    std::size_t next = 0;
    node_id placed = ~node_id{0};  // the child this frame has placed, if any
    std::uint64_t saved_off = 0;
    node_id saved_id = ~node_id{0};
    std::uint32_t disc = 0;         // discrepancies taken on the path to it
    std::array<std::uint64_t, 2> print{};  // the state's print (R4), when expanded
    bool expanded = false;          // its children come from expand (not cut by R4)
    bool incomplete = false;        // some child was skipped below it (limited discrepancy)
  };
  static constexpr std::uint32_t complete = ~std::uint32_t{0};
  struct memo_entry {
    std::array<std::uint64_t, 2> print{};
    std::uint32_t allowance = 0;  // its subtree failed with this many discrepancies allowed (complete: any)
    bool used = false;
  };

  static std::uint64_t mix(std::uint64_t x, std::uint64_t salt) { return salted_mix(x, salt); }

  /// R4: the placed free nodes that reach above (last offset - the largest unplaced size), into the print.
  void window_print() {
    std::uint64_t s_max = 0;
    for (node_id v : free_)
      if (!placed_[v]) s_max = std::max(s_max, p_.extents[v].bytes);
    for (node_id u : free_)
      if (placed_[u] && off_[u] + p_.extents[u].bytes + s_max > last_off_) {
        const std::uint64_t x = (std::uint64_t{part_[u]} << 48) ^ off_[u];
        print_[0] ^= mix(x ^ mix(u, 7), 8);
        print_[1] ^= mix(x ^ mix(u, 9), 10);
      }
  }

  const memo_entry* memo_find(const std::array<std::uint64_t, 2>& k) const {
    if (memo_.empty()) return nullptr;
    const memo_entry& e = memo_[k[0] & (memo_.size() - 1)];
    return e.used && detail::same_print(e.print, k) ? &e : nullptr;
  }
  void memo_store(const std::array<std::uint64_t, 2>& k, std::uint32_t allowance) {
    if (memo_.empty()) {
      std::size_t size = 1024;
      while (size < lim_.max_nodes && size < (std::size_t{1} << 20)) size *= 2;
      memo_.resize(size);
    }
    memo_entry& e = memo_[k[0] & (memo_.size() - 1)];
    if (e.used && detail::same_print(e.print, k) && e.allowance >= allowance) return;
    e = memo_entry{k, allowance, true};
  }

  bool pinned(node_id v) const { return !p_.pins.empty() && p_.pins[v].has_value(); }
  std::uint64_t area(node_id v) const { return std::uint64_t{p_.extents[v].partitions} * p_.extents[v].bytes; }
  bool share_rows(node_id v, std::uint32_t pv, node_id u) const {
    return pv < part_[u] + p_.extents[u].partitions && part_[u] < pv + p_.extents[v].partitions;
  }

  /// Graph, pins, the points of R2, twins (R3). False (with r.proof) when the root is infeasible.
  bool prepare(place_result& r) {
    if (!shared_) own_graph_ = build_interference(p_.ranges, p_.fixed);
    placed_.assign(n_, 0);
    part_.assign(n_, 0);
    off_.assign(n_, 0);
    for (node_id v = 0; v < n_; ++v) {
      const extent& e = p_.extents[v];
      if (pinned(v)) {
        const placement& at = *p_.pins[v];
        if (!lay_.legal(e, at)) {
          r.proof = "node " + std::to_string(v) + " is pinned at an illegal place";
          return false;
        }
        placed_[v] = 1;
        part_[v] = at.partition;
        off_[v] = at.offset;
        continue;
      }
      if (starts(v).count == 0 || lay_.domain(e).empty()) {
        r.proof = "node " + std::to_string(v) + " does not fit in an empty memory";
        return false;
      }
      free_.push_back(v);
    }
    for (node_id v = 0; v < n_; ++v)
      if (pinned(v))
        for (node_id u : graph().neighbors(v))
          if (u < v && pinned(u) && share_rows(v, part_[v], u) && off_[v] < off_[u] + p_.extents[u].bytes &&
              off_[u] < off_[v] + p_.extents[v].bytes) {
            r.proof = "pinned nodes " + std::to_string(u) + " and " + std::to_string(v) + " overlap while both live";
            return false;
          }
    // Points: first points of all intervals; each with the nodes live there.
    std::vector<program_point> pts;
    for (const interval& i : p_.ranges.intervals) pts.push_back(i.begin);
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    live_at_.assign(pts.size(), {});
    for (node_id v = 0; v < n_; ++v)
      for (const interval& i : p_.ranges.ranges(v))
        for (auto k = std::lower_bound(pts.begin(), pts.end(), i.begin); k != pts.end() && *k < i.end; ++k)
          live_at_[static_cast<std::size_t>(k - pts.begin())].push_back(v);
    keep_busiest_points();
    // R3: the previous free node with the same extent and live range.
    twin_.assign(n_, ~node_id{0});
    std::vector<node_id> order = free_;
    auto key_less = [&](node_id a, node_id b) {
      const extent &x = p_.extents[a], &y = p_.extents[b];
      if (x.partitions != y.partitions) return x.partitions < y.partitions;
      if (x.bytes != y.bytes) return x.bytes < y.bytes;
      const auto ra = p_.ranges.ranges(a), rb = p_.ranges.ranges(b);
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      for (std::size_t k = 0; k < ra.size(); ++k) {
        if (ra[k].begin != rb[k].begin) return ra[k].begin < rb[k].begin;
        if (ra[k].end != rb[k].end) return ra[k].end < rb[k].end;
      }
      return a < b;
    };
    std::sort(order.begin(), order.end(), key_less);
    for (std::size_t k = 1; k < order.size(); ++k) {
      const node_id a = order[k - 1], b = order[k];
      const auto ra = p_.ranges.ranges(a), rb = p_.ranges.ranges(b);
      if (p_.extents[a] == p_.extents[b] && std::equal(ra.begin(), ra.end(), rb.begin(), rb.end(), [](const interval& x, const interval& y) {
            return x.begin == y.begin && x.end == y.end;
          }))
        twin_[b] = a;
    }
    prepare_quarters();
    cache_all_.assign(n_ * 4, none);
    cache_ge_.assign(n_ * 4, none);
    cache_key_.assign(n_ * 4, none);
    dirty_.assign(n_, 1);
    free_at_.assign(n_ * 4, {});
    free_dirty_.assign(n_ * 4, 1);
    return true;
  }

  const interference_graph& graph() const { return shared_ ? *shared_ : own_graph_; }
  partition_starts starts(node_id v) const { return allowed_partition_starts(p_.extents[v].partitions, lay_.partitions); }

  /// The lowest free aligned offset >= lo for v at start partition `pv` (index k of its starts), given the
  /// placed nodes (none: no such offset): the first aligned start >= lo among its free starts.
  std::uint64_t lowest(node_id v, std::uint32_t k, std::uint32_t pv, std::uint64_t lo) {
    // Counted as when this read v's placed neighbors (it did until session 48): the walk's node count,
    // its budget's unit, stays what it was, and with it every answer.
    work_ += graph().neighbors(v).size() / 8;
    const std::vector<start_range>& fr = free_starts(v, k, pv);
    for (auto it = std::lower_bound(fr.begin(), fr.end(), lo, [](const start_range& r, std::uint64_t x) { return r.hi < x; });
         it != fr.end(); ++it) {
      const std::uint64_t x = (std::max(lo, it->lo) + lay_.alignment - 1) / lay_.alignment * lay_.alignment;
      if (x <= it->hi) return x;
    }
    return none;
  }

  void refresh(node_id v) {
    if (!dirty_[v]) return;
    dirty_[v] = 0;
    const partition_starts s = starts(v);
    for (std::uint32_t k = 0; k < s.count; ++k) {
      cache_all_[v * 4 + k] = lowest(v, k, s.start[k], 0);
      cache_key_[v * 4 + k] = none;
    }
  }
  std::uint64_t lowest_ge(node_id v, std::uint32_t k, std::uint32_t pv, std::uint64_t lo) {
    const std::uint64_t all = cache_all_[v * 4 + k];
    if (all == none || all >= lo) return all;
    // Lowest >= key stays the lowest >= lo for any lo in [key, value] while nothing near v changes.
    if (cache_key_[v * 4 + k] != none && cache_key_[v * 4 + k] <= lo && (cache_ge_[v * 4 + k] == none || cache_ge_[v * 4 + k] >= lo))
      return cache_ge_[v * 4 + k];
    cache_key_[v * 4 + k] = lo;
    return cache_ge_[v * 4 + k] = lowest(v, k, pv, lo);
  }

  /// The caches of v's neighbors once v is placed (`placed`) or unplaced: their lowest offsets are taken
  /// again (dirty_); their free starts at a start partition sharing rows with v lose v's blocked starts
  /// when v is placed (the same set as recomputed: the free starts less one more blocked range, cut from
  /// sorted disjoint ranges, leaves them sorted, disjoint and maximal) and are recomputed when v is
  /// unplaced; at a start sharing no row with v they do not change. (Recomputing them all on every
  /// placement was the canonical walk's largest cost: 14 % of a planted PSUM kernel's search.)
  void touch_neighbors(node_id v, bool placed) {
    for (node_id u : graph().neighbors(v)) {
      dirty_[u] = 1;
      const partition_starts s = starts(u);
      for (std::uint32_t k = 0; k < s.count; ++k) {
        if (free_dirty_[u * 4 + k] || !share_rows(u, s.start[k], v)) continue;
        if (placed) cut_starts(free_at_[u * 4 + k], blocked_starts(p_.extents[u].bytes, off_[v], p_.extents[v].bytes));
        else free_dirty_[u * 4 + k] = 1;
      }
    }
  }
  /// Removes the closed range b from the sorted disjoint closed ranges fr.
  static void cut_starts(std::vector<start_range>& fr, const start_range& b) {
    const auto first = std::lower_bound(fr.begin(), fr.end(), b.lo, [](const start_range& r, std::uint64_t x) { return r.hi < x; });
    auto last = first;
    while (last != fr.end() && last->lo <= b.hi) ++last;
    if (first == last) return;
    const start_range low{first->lo, b.lo - 1}, high{b.hi + 1, std::prev(last)->hi};
    const bool keep_low = first->lo < b.lo, keep_high = std::prev(last)->hi > b.hi;
    const auto at = first - fr.begin();
    fr.erase(first, last);
    if (keep_high) fr.insert(fr.begin() + at, high);
    if (keep_low) fr.insert(fr.begin() + at, low);
  }


  /// Per node, c_S for every set S of quarters (R2): the least number of quarters of S it touches.
  void prepare_quarters() {
    quarters_ = std::min<std::uint32_t>((lay_.partitions + 31) / 32, 4);
    sets_ = (1u << quarters_) - 1;
    cmin_.assign(n_ * 16, 0);
    reach_.assign(n_, 0);
    for (node_id v = 0; v < n_; ++v) {
      const partition_starts st = starts(v);
      reach_[v] = quarter_reach(st, p_.extents[v].partitions, quarters_, &cmin_[v * 16]);
      if (pinned(v) && st.count != 0)  // a pin touches exactly its own quarters
        for (std::uint32_t S = 1; S <= sets_; ++S)
          cmin_[v * 16 + S] = static_cast<std::uint32_t>(std::popcount(quarter_mask(part_[v], p_.extents[v].partitions) & S));
    }
  }

  /// R2 at every point (see the top of this header): the unplaced nodes live there must fit in the bytes
  /// each quarter can still give them (gap_room).
  bool bands_fit() {
    const std::uint64_t cap = lay_.capacity();
    if (last_off_ >= cap) return placed_count_ == free_.size();
    std::uint64_t need[16];
    for (const std::vector<node_id>& live : live_at_) {
      work_ += live.size();
      std::fill(need, need + 16, 0);
      for (std::uint32_t q = 0; q < quarters_; ++q) occ_[q].clear(), cand_[q].clear();
      bool any = false;
      for (node_id v : live) {
        const extent& e = p_.extents[v];
        if (!placed_[v]) {
          any = true;
          for (std::uint32_t S = 1; S <= sets_; ++S) need[S] += e.bytes * cmin_[v * 16 + S];
          for (std::uint32_t q = 0; q < quarters_; ++q)
            if ((reach_[v] >> q) & 1) cand_[q].push_back(v);
          continue;
        }
        const std::uint64_t end = off_[v] + e.bytes;
        if (end <= last_off_) continue;
        const std::uint32_t m = quarter_mask(part_[v], e.partitions);
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if ((m >> q) & 1) occ_[q].push_back({std::max(off_[v], last_off_), end});
      }
      if (!any) continue;
      std::uint64_t room[4] = {0, 0, 0, 0};
      for (std::uint32_t q = 0; q < quarters_; ++q) room[q] = gap_room(q);
      for (std::uint32_t S = 1; S <= sets_; ++S) {
        std::uint64_t r = 0;
        for (std::uint32_t q = 0; q < quarters_; ++q)
          if ((S >> q) & 1) r += room[q];
        if (need[S] > r) return false;
      }
    }
    return true;
  }

  /// Drops each point whose live nodes are all live at the next point too (only births between them):
  /// R2 may be checked at any set of points, and where the nodes live at hundreds of points are mostly
  /// the same (hundreds of tensors live together), checking each of those points made a node cost the
  /// pairs of nodes live together (a kernel of 200 SB tensors born one after the other, all live
  /// together: 200 points of up to 200 nodes each, one kept). A point dropped is one at which fewer
  /// nodes are live than at the next; its bound can still differ (another gap's candidates), so this may
  /// cut less, never wrongly (docs/PERFORMANCE.md section 10, "Busiest points").
  void keep_busiest_points() {
    std::vector<std::vector<node_id>> kept;
    for (std::size_t k = 0; k < live_at_.size(); ++k) {
      const bool contained = k + 1 < live_at_.size() &&
                             std::includes(live_at_[k + 1].begin(), live_at_[k + 1].end(), live_at_[k].begin(), live_at_[k].end());
      if (!contained) kept.push_back(std::move(live_at_[k]));
    }
    live_at_ = std::move(kept);
  }

  /// subset_fill's answer for `count` sizes (the first 16 of them in sizes_) of sum `total` and least
  /// size `least`, each at most `len`: the same cases in the same order, the sort only where it reads
  /// the sizes themselves.
  std::uint64_t gap_fill(std::size_t count, std::uint64_t total, std::uint64_t least, std::uint64_t len) {
    if (total <= len) return total;
    if (total - least <= len) return total - least;
    if (count > 16) return len;
    std::sort(sizes_.begin(), sizes_.end());
    return fill_(sizes_, total, len);
  }

  /// R2's room in quarter q at one point: the free byte ranges ("gaps") of q above the frontier, between
  /// the placed nodes live there (occ_[q]; pins included), cut at segment ends and started at an aligned
  /// offset, each counted for the most that its candidates can fill of it. A candidate of a gap is an
  /// unplaced node live there (cand_[q]) with a start partition touching q and a free position (given every
  /// placed node, at all its points) inside the gap at or above its lowest allowed offset (R1).
  std::uint64_t gap_room(std::uint32_t q) {
    std::vector<start_range>& occ = occ_[q];
    if (cand_[q].empty()) return 0;
    std::sort(occ.begin(), occ.end(), [](const start_range& a, const start_range& b) { return a.lo < b.lo; });
    std::uint64_t room = 0, cursor = last_off_;
    // [lo, hi), split at segment ends. Only a hole (a gap closed by a placed node above it) checks its
    // candidates' positions (fits_in): that is where the placed nodes decide what fits; elsewhere the
    // size alone is checked, which can only count more room (cheaper, and still sound).
    auto gap = [&](std::uint64_t lo, std::uint64_t hi, bool hole) {
      while (lo < hi) {
        const std::uint64_t seg_end = std::min(hi, (lo / lay_.segment_bytes + 1) * lay_.segment_bytes);
        const std::uint64_t a = (lo + lay_.alignment - 1) / lay_.alignment * lay_.alignment;
        const bool check = hole && seg_end == hi;
        if (a < seg_end) {
          // subset_fill's answer without sorting more than 16 sizes: it needs only the total and the
          // least size, except for 16 sizes or fewer that neither all fit nor fit but the least
          // (place_fill.hpp). Sorting every gap's candidates was most of the walk's time where hundreds
          // of nodes are live at once (a kernel of 200 SB tensors live together: 65 s at -O2).
          const std::uint64_t len = seg_end - a;
          sizes_.clear();
          std::uint64_t total = 0, least = std::numeric_limits<std::uint64_t>::max();
          std::size_t count = 0;
          for (node_id v : cand_[q]) {
            const std::uint64_t b = p_.extents[v].bytes;
            if (b > len || (check && !fits_in(v, q, a, seg_end))) continue;
            if (++count <= 16) sizes_.push_back(b);
            total += b, least = std::min(least, b);
          }
          if (count > 0) room += gap_fill(count, total, least, len);
        }
        lo = seg_end;
      }
    };
    for (const start_range& o : occ) {
      if (o.lo > cursor) gap(cursor, o.lo, true);
      cursor = std::max(cursor, o.hi);
    }
    gap(cursor, lay_.capacity(), false);
    return room;
  }

  /// Whether unplaced v has a free aligned position [o, o + size) inside [a, b), o >= its lowest allowed
  /// offset (R1), at a start partition whose rows touch quarter q.
  bool fits_in(node_id v, std::uint32_t q, std::uint64_t a, std::uint64_t b) {
    const extent& e = p_.extents[v];
    const std::uint64_t lo = std::max(a, has_last_ && v < last_id_ ? last_off_ + 1 : last_off_);
    if (b < e.bytes || b - e.bytes < lo) return false;
    const std::uint64_t hi = b - e.bytes;
    const partition_starts s = starts(v);
    for (std::uint32_t k = 0; k < s.count; ++k) {
      if (!((quarter_mask(s.start[k], e.partitions) >> q) & 1)) continue;
      const std::vector<start_range>& fr = free_starts(v, k, s.start[k]);
      auto it = std::lower_bound(fr.begin(), fr.end(), lo, [](const start_range& r, std::uint64_t x) { return r.hi < x; });
      for (; it != fr.end() && it->lo <= hi; ++it) {
        const std::uint64_t x = (std::max(lo, it->lo) + lay_.alignment - 1) / lay_.alignment * lay_.alignment;
        if (x <= std::min(hi, it->hi)) return true;
      }
    }
    return false;
  }

  /// The free (unaligned) byte starts of v at start partition index k given the placed nodes, as sorted
  /// disjoint closed ranges; recomputed when a neighbor of v was placed or unplaced since.
  const std::vector<start_range>& free_starts(node_id v, std::uint32_t k, std::uint32_t pv) {
    std::vector<start_range>& out = free_at_[v * 4 + k];
    if (!free_dirty_[v * 4 + k]) return out;
    free_dirty_[v * 4 + k] = 0;
    const extent& e = p_.extents[v];
    blocked_.clear();
    for (node_id u : graph().neighbors(v))
      if (placed_[u] && share_rows(v, pv, u)) blocked_.push_back(blocked_starts(e.bytes, off_[u], p_.extents[u].bytes));
    merge_ranges(blocked_);
    out.clear();
    for (const start_range& d : lay_.domain(e)) {
      std::uint64_t from = d.lo;
      for (const start_range& b : blocked_) {
        if (b.hi < from) continue;
        if (b.lo > d.hi) break;
        if (b.lo > from) out.push_back({from, b.lo - 1});
        from = b.hi + 1;
        if (from > d.hi) break;
      }
      if (from <= d.hi) out.push_back({from, d.hi});
    }
    return out;
  }

  /// The children of the current state, or nothing when a rule cuts it.
  std::optional<std::vector<child>> expand() {
    if (!bands_fit()) return std::nullopt;
    std::vector<child> out;
    print_ = {placed_print_[0] ^ mix(last_off_, 1), placed_print_[1] ^ mix(last_off_, 2)};
    print_[0] ^= mix(last_id_, 3);
    print_[1] ^= mix(last_id_, 4);
    for (node_id v : free_) {
      if (placed_[v]) continue;
      refresh(v);
      const std::uint64_t lo = has_last_ && v < last_id_ ? last_off_ + 1 : last_off_;
      const bool twin_waits = twin_[v] != ~node_id{0} && !placed_[twin_[v]];
      const partition_starts s = starts(v);
      bool alive = false;
      for (std::uint32_t k = 0; k < s.count; ++k) {
        const std::uint64_t all = cache_all_[v * 4 + k];
        if (all != none && all >= lo) {
          alive = true;
          if (!twin_waits) out.push_back({all, v, s.start[k]});
        } else if (all == none || all + p_.extents[v].bytes <= last_off_) {
          // R1b: a free position wholly below the frontier stays free (R1b at the top of this header).
          print_[0] ^= mix(v * 4 + k, 5);  // (v, k) is dead: part of the state's print (R4)
          print_[1] ^= mix(v * 4 + k, 6);
        } else if (!alive && lowest_ge(v, k, s.start[k], lo) != none) {
          alive = true;
        }
      }
      if (!alive) return std::nullopt;  // R1
    }
    window_print();
    std::sort(out.begin(), out.end(), [&](const child& a, const child& b) {
      if (a.offset != b.offset) return a.offset < b.offset;
      if (area(a.v) != area(b.v)) return area(a.v) > area(b.v);
      if (a.v != b.v) return a.v < b.v;
      return a.partition < b.partition;
    });
    return out;
  }

  void place(const child& c) {
    placed_print_[0] ^= mix(c.v, 11);
    placed_print_[1] ^= mix(c.v, 12);
    placed_[c.v] = 1;
    part_[c.v] = c.partition;
    off_[c.v] = c.offset;
    last_off_ = c.offset;
    last_id_ = c.v;
    has_last_ = true;
    ++placed_count_;
    touch_neighbors(c.v, true);
  }
  void unplace(node_id v, std::uint64_t off, node_id id) {
    placed_print_[0] ^= mix(v, 11);
    placed_print_[1] ^= mix(v, 12);
    placed_[v] = 0;
    --placed_count_;
    last_off_ = off;
    last_id_ = id;
    has_last_ = id != ~node_id{0};
    touch_neighbors(v, false);
  }

  // One piece: the depth-first walk owns the frame stack, the budget and the undo of each step, which
  // only make sense together.
  //
  // Limited discrepancy: the walk is repeated with a growing limit on how many times a path may take a
  // child other than the first (the value order's choice): 0, 1, 2, 4, ..., then no limit. A wrong early
  // choice is revisited after a few thousand nodes instead of after the whole subtree below it. Only a
  // walk that skipped nothing proves infeasibility, so completeness is kept; the repeated prefixes cost
  // little against the budget.
  //
  // Resumable: when it stops at `cap` nodes in all (or the deadline) its stack and limit stay, and the next call goes
  // on from there, so the probes (probe_turn) and the final walk are one walk cut into turns, the same
  // nodes in the same order as one call.
  search_status search(place_result& r, std::uint64_t cap) {
    for (;;) {
      const search_status s = walk(r, cap);
      if (s == search_status::gave_up || s == search_status::found || !skipped_) return s;
      r.proof.clear();
      limit_ = limit_ == 0 ? 1 : 2 * limit_;
    }
  }

  search_status walk(place_result& r, std::uint64_t cap) {
    const std::uint32_t limit = limit_ >= 64 ? ~std::uint32_t{0} : limit_;
    std::vector<frame>& stack = stack_;
    bool& skipped = skipped_;
    auto open = [&](std::uint32_t d) -> bool {
      ++r.nodes, ++opened_;
      if (placed_count_ == free_.size()) return true;
      const std::uint64_t work = work_;
      auto c = expand();
      r.nodes += (work_ - work) / node_work;  // a costly node counts as several (node_work)
      frame f{c ? std::move(*c) : std::vector<child>{}, 0, ~node_id{0}, last_off_, last_id_};
      f.disc = d;
      if (c && !f.children.empty()) {
        f.print = print_;
        const std::uint32_t allowance = limit - std::min(limit, d);
        if (const memo_entry* m = memo_find(print_); m && m->allowance >= allowance) {  // R4
          f.children.clear();
          f.incomplete = m->allowance != complete;
          skipped = skipped || f.incomplete;
        } else {
          f.expanded = true;
        }
      }
      stack.push_back(std::move(f));
      return false;
    };
    if (!walking_) {  // a new walk (else go on where the last call stopped)
      walking_ = true;
      skipped = false;
      if (open(0)) return search_status::found;
      if (stack.back().children.empty()) {
        stack.clear();
        walking_ = false;
        r.proof = "the pruning rules cut the root (the bytes needed in some partitions at one point exceed the memory, or a node has no place)";
        return search_status::infeasible;
      }
    }
    while (!stack.empty()) {
      frame& top = stack.back();
      if (top.placed != ~node_id{0}) {
        unplace(top.placed, top.saved_off, top.saved_id);
        top.placed = ~node_id{0};
      }
      const std::uint32_t d = top.disc + (top.next > 0 ? 1 : 0);
      if (top.next < top.children.size() && d > limit) {
        skipped = true;
        top.incomplete = true;
        top.next = top.children.size();
      }
      if (top.next == top.children.size()) {
        // Its subtree holds no placement within the discrepancies it was allowed (R4 remembers that).
        if (top.expanded) memo_store(top.print, top.incomplete ? limit - std::min(limit, top.disc) : complete);
        const bool incomplete = top.incomplete;
        stack.pop_back();
        if (!stack.empty()) stack.back().incomplete = stack.back().incomplete || incomplete;
        continue;
      }
      if (r.nodes >= cap) return search_status::gave_up;
      if ((opened_ & 255) == 0 && std::chrono::steady_clock::now() > lim_.deadline) return search_status::gave_up;
      watchdog_tick(16);  // a caller's watchdog (gca/watchdog.hpp) throws here: the clock every 256 nodes
      const child c = top.children[top.next++];
      top.placed = c.v;
      place(c);
      if (open(d)) return search_status::found;
    }
    walking_ = false;
    r.proof = "every canonical placement was tried (" + std::to_string(r.nodes) + " search nodes)";
    return search_status::infeasible;
  }


  const place_problem& p_;
  rect_layout lay_;
  search_limits lim_;
  std::size_t n_;
  const interference_graph* shared_;  // the caller's graph of the problem, if any (graph())
  interference_graph own_graph_;       // else the one prepare builds
  std::vector<node_id> free_;
  std::vector<std::uint8_t> placed_;
  std::vector<std::uint32_t> part_;
  std::vector<std::uint64_t> off_;
  std::vector<std::vector<node_id>> live_at_;
  std::vector<node_id> twin_;
  std::vector<std::uint64_t> cache_all_, cache_ge_, cache_key_;  // per node x start-partition index
  std::vector<std::uint8_t> dirty_;
  std::uint32_t quarters_ = 4, sets_ = 15;
  std::vector<std::uint32_t> cmin_;  // per node x set of quarters: c_S (R2)
  std::vector<std::uint32_t> reach_;  // per node: the quarters some allowed start makes it touch (R2)
  std::vector<start_range> occ_[4];   // R2 at one point: per quarter, the placed byte ranges above the frontier
  std::vector<node_id> cand_[4];         // R2 at one point: per quarter, the unplaced nodes that may touch it
  std::vector<std::uint64_t> sizes_;  // gap_room's candidate sizes
  subset_fill fill_;                  // R2's largest subset sums
  std::vector<std::vector<start_range>> free_at_;  // per node x start-partition index: free starts (R2)
  std::vector<std::uint8_t> free_dirty_;
  std::array<std::uint64_t, 2> print_{}, placed_print_{};  // R4: the current state's print; the placed set's part
  std::vector<memo_entry> memo_;                          // R4: failed states (by print), one per slot
  std::vector<start_range> blocked_;
  std::uint64_t last_off_ = 0;
  node_id last_id_ = ~node_id{0};
  bool has_last_ = false;
  std::size_t placed_count_ = 0;
  std::unique_ptr<walk_set> walks_;  // fill_and_sweep's walks (made on its first round)
  std::uint64_t narrow_ = 0;        // narrow_turn's width (0: not computed yet)
  std::unique_ptr<alternate_part> narrow_search_;  // narrow_turn's search (made on its first turn)
  std::unique_ptr<alternate_part> reverse_search_;  // reverse_turn's search (made on its first turn)
  std::uint64_t turns_spent_ = 0;  // the narrow, reverse, filler and repair turns' nodes (added to the answer's count at the end)
  std::vector<std::unique_ptr<filled_part>> filled_;  // filler_turns' guesses (built on the first turn)
  bool filled_built_ = false;
  std::optional<conflict_repairer<Deferred>> repairer_;  // repair_turn's walk (made on its first turn)
  std::uint64_t repair_spent_ = 0;
  // The canonical walk between calls (search): its stack, its discrepancy limit and whether it skipped a
  // child, and whether a walk is under way.
  std::vector<frame> stack_;
  std::uint32_t limit_ = 0;
  bool skipped_ = false;
  bool walking_ = false;
  std::uint64_t work_ = 0;    // steps taken (see node_work in engine/place_fill.hpp)
  std::uint64_t opened_ = 0;  // nodes opened, each counted once (the deadline's cadence)
  bool repair_checked_ = false;  // whether repair_turn has checked R2 at the root (and made repairer_)
};

}  // namespace detail

namespace detail {

/// The connected components of the interference graph restricted to free (unpinned) nodes, each listing
/// its nodes; pins belong to none.
template <class Pinned>
std::vector<std::vector<node_id>> free_components(const interference_graph& g, std::size_t n, Pinned pinned) {
  std::vector<node_id> comp(n, ~node_id{0});
  std::vector<std::vector<node_id>> comps;
  for (node_id s = 0; s < n; ++s) {
    if (pinned(s) || comp[s] != ~node_id{0}) continue;
    comps.emplace_back();
    std::vector<node_id> todo{s};
    comp[s] = static_cast<node_id>(comps.size() - 1);
    while (!todo.empty()) {
      const node_id v = todo.back();
      todo.pop_back();
      comps.back().push_back(v);
      for (node_id u : g.neighbors(v))
        if (!pinned(u) && comp[u] == ~node_id{0}) comp[u] = comp[s], todo.push_back(u);
    }
  }
  return comps;
}

/// The part of `p` made of `members` (sorted node ids), renumbered 0.. in that order, searched alone
/// within `lim`.
template <class D>
place_result search_part(const place_problem& p, std::span<const node_id> members, const rect_layout& layout,
                         const search_limits& lim) {
  live_range_table t;
  std::vector<extent> e;
  std::vector<std::optional<placement>> pins;
  std::vector<std::uint8_t> fx;
  for (node_id v : members) {
    t.add(p.ranges.ranges(v));
    e.push_back(p.extents[v]);
    pins.push_back(p.pins.empty() ? std::nullopt : p.pins[v]);
    fx.push_back(p.fixed.empty() ? 0 : p.fixed[v]);
  }
  return place_searcher<D>({t, e, pins, fx}, layout, lim).run();
}

/// place_search over parts (below): the pins alone first (a pin pair that overlaps while both live makes
/// everything infeasible), then each component with the pins it meets, on what the parts before it left
/// of the budget. The first part not placed decides the answer; its best state goes beside the parts
/// placed before it. A part's turns (place_result::turn_nodes) are counted in the answer but not taken
/// from the later parts' budget, as they are not from its own canonical walk's: else a part placed by
/// its walks in a few hundred nodes, after a narrow turn of a few hundred more, left the next part no
/// budget at all under a guided search's 1,000 nodes (docs/PERFORMANCE.md section 10, "The narrow turn
/// first"). The whole costs at most the budget plus the turns', each a bounded multiple of its part's.
template <class D>
place_result search_parts(const place_problem& p, const interference_graph& g, std::vector<std::vector<node_id>>& comps,
                          const rect_layout& layout, const search_limits& lim) {
  const std::size_t n = p.extents.size();
  auto pinned = [&](node_id v) { return !p.pins.empty() && p.pins[v].has_value(); };
  place_result out;
  out.status = search_status::found;
  out.placements.assign(n, std::nullopt);
  std::vector<node_id> pin_ids;
  for (node_id v = 0; v < n; ++v)
    if (pinned(v)) out.placements[v] = p.pins[v], pin_ids.push_back(v);
  {
    const place_result r = search_part<D>(p, pin_ids, layout, lim);
    out.nodes += r.nodes, out.turn_nodes += r.turn_nodes;
    if (r.status != search_status::found) return r;
  }
  std::vector<std::uint8_t> mark(n, 0);
  for (std::vector<node_id>& c : comps) {
    std::sort(c.begin(), c.end());
    std::vector<node_id> members = c;
    for (node_id v : c)
      for (node_id u : g.neighbors(v))
        if (pinned(u) && !mark[u]) mark[u] = 1, members.push_back(u);
    for (node_id v : members) mark[v] = 0;
    std::sort(members.begin(), members.end());
    search_limits sub = lim;
    const std::uint64_t used = out.nodes - out.turn_nodes;
    sub.max_nodes = lim.max_nodes > used ? lim.max_nodes - used : 0;
    const place_result r = search_part<D>(p, members, layout, sub);
    out.nodes += r.nodes, out.turn_nodes += r.turn_nodes;
    if (r.status != search_status::found) {
      out.status = r.status;
      out.proof = r.proof;
      if (!r.left_out.empty()) {  // the part's best state beside the parts placed before it
        for (node_id k : r.left_out) out.left_out.push_back(members[k]);  // sorted, as members is
        out.partial = std::move(out.placements);
        for (std::size_t k = 0; k < members.size(); ++k) out.partial[members[k]] = r.partial[k];
      }
      out.placements.clear();
      return out;
    }
    for (std::size_t k = 0; k < members.size(); ++k) out.placements[members[k]] = r.placements[k];
  }
  return out;
}

}  // namespace detail

/// The exact search in a rectangle memory described by `layout` (see the top of this header).
/// Decomposition: free nodes interact only through interference among themselves (pins are fixed
/// obstacles), so the connected components of the interference graph restricted to free nodes are
/// independent problems: each is searched alone, with the pins it meets, and the budget is shared. The
/// whole is placeable exactly when every component is.
template <class D = void>
place_result place_search(const place_problem& p, const rect_layout& layout, const search_limits& lim = {}) {
  const std::size_t n = p.ranges.num_nodes();
  if (p.extents.size() != n || (!p.pins.empty() && p.pins.size() != n) || (!p.fixed.empty() && p.fixed.size() != n))
    throw input_error("place_search: extents, pins and fixed must have one entry per node");
  auto pinned = [&](node_id v) { return !p.pins.empty() && p.pins[v].has_value(); };
  // `fixed` marks pins (no edge joins two fixed nodes); the walks read a free node's neighbors as every
  // node live with it (the time sweep's fits_now), which a fixed free node would break.
  for (node_id v = 0; v < p.fixed.size(); ++v)
    if (p.fixed[v] && !pinned(v)) throw input_error("place_search: node " + std::to_string(v) + " is fixed but not pinned");
  if (n > 1) {
    const interval_index index(p.ranges);
    const std::uint64_t pairs = sweep_pairs(sweep_degrees(p.ranges, index));
    if (pairs > lim.max_pairs) {
      place_result out;
      out.skipped = std::to_string(pairs) + " interfering pairs, more than the search builds its graph for (" +
                    std::to_string(lim.max_pairs) + ")";
      return out;
    }
  }
  const interference_graph g = build_interference(p.ranges, p.fixed);
  std::vector<std::vector<node_id>> comps = detail::free_components(g, n, pinned);
  // One part: the searcher takes this graph (the same ranges and fixed flags) instead of building its own,
  // whose cost is the interfering pairs (most of a search's setup where hundreds of tensors live together).
  place_result r = comps.size() <= 1 ? detail::place_searcher<D>(p, layout, lim, &g).run()
                                     : detail::search_parts<D>(p, g, comps, layout, lim);
  if (r.status == search_status::found && lim.compact) {  // a found placement pushed down (place_compact.hpp)
    std::vector<std::uint8_t> stays(n, 0);
    for (node_id v = 0; v < n; ++v) stays[v] = pinned(v) ? 1 : 0;
    compact_down(g, p.extents, stays, layout, r.placements);
  }
  return r;
}

/// The exact search in the memory of geometry `g`.
template <RectangleGeometry G>
place_result place_search(const place_problem& p, const G& g, const search_limits& lim = {}) {
  return place_search(p, rect_layout_of(g), lim);
}

}  // namespace gca
