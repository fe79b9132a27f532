// gca/engine/search.hpp — exact branch-and-bound placement for tight static-allocation problems.
//
// Provides `linear_search_options`, `search_stats`, `search_result` and `search_placement`: given the
// interference graph, one extent per node, (optionally) one lifetime per node and a 1-D geometry, find a
// placement of every node inside the geometry's capacity such that no two interfering nodes overlap, or
// prove that none exists, or give up at a node limit / deadline (it always ends).
//
// Why: the Chaitin–Briggs colorer is greedy. On problems with almost no slack (the MiniMalloc
// "challenging" set: max-live equals the capacity) every greedy order needs 20–40 % more memory. This is
// the complement: a depth-first search over *canonical* solutions with strong pruning, in the style of
// skyline / sweep solvers for strip packing and of MiniMalloc (Moffitt, ASPLOS 2023). The code is gca's own.
//
// Presolve (switch `merge_handoffs`, off by default, engine/presolve.hpp): a buffer born where exactly
// one dies, between two sections that the buffers alive there fill to the capacity, must take the dead
// one's place; such pairs (and chains) are searched as one node, and the answer is mapped back. Exact
// both ways. Off because measured no better with the other rules (docs/PERFORMANCE.md: 221 against 221
// planted fits over four seeds, and challenging F past 5 s for one random-order seed in ten).
//
// The hand-off search (switch `handoff_chains`, on; engine/chain_search.hpp, which says why it loses
// nothing): on a problem whose memory is full at every point it walks the births in time order over
// chains of buffers known to lie side by side, never enumerating the first arrangement, restarting in
// seeded orders on Luby budgets (`chain_restarts`), forward in time and on the time-reversed problem
// (`chain_reverse`); it takes turns with the search below (chain_turns) up to `chain_node_limit` of its
// own nodes (by default as many as the node limit). It never proves.
//
// Fillers (switch `fillers`, on; engine/completion.hpp): where the memory is not full at every point,
// filler buffers that take its free bytes make it so, in three guesses of the free space's shape; the
// search below runs on each, and the hand-off walks on the first (switch `filler_walks`, on), in turns
// with the search on the problem as given (filler_turns), and what they place there, without the
// fillers, is checked like any placement. A guess proves nothing.
//
// Algorithm. Every node is placed at its "skyline" h(v): the lowest legal (aligned) offset at or above the
// top of every already-placed neighbor. Each search step places one unplaced node b at h(b), in an order
// whose offsets never decrease. Backtracking undoes placements (a trail of old h and section floors).
//
// Completeness — why restricting to canonical placements loses nothing. Among all solutions of peak <=
// capacity take T* minimizing (1) the sum of offsets, then (2) the offset vector lexicographically by id.
//   * T* is gravity-stable: every node sits on the top of a neighbor below it or at 0 (rounded up to the
//     alignment), else lowering it would decrease the sum. Sort T* by (offset, id): then each node's
//     offset is exactly h(node) given the nodes before it, so T* is one path of the search tree.
// Each pruning rule below is sound because T*'s path never violates it:
//   (o) canonical order: the next node b must have (h(b), b) > (last offset, last node) — T*'s order.
//       (Any fixed tie-break works in place of the id: nodes at one offset are pairwise non-adjacent, so
//       every order of them is a path; the code breaks ties by the static rank of the current restart.)
//   (a) bound: if an unplaced c has max(h(c), last) + size(c) > capacity, no completion exists (h only
//       grows as nodes are placed, and every later offset is >= last).
//   (b1) gap dominance: do not place b at x if another unplaced c has h(c) + size(c) <= x. In any
//       completion c lands at >= x; moving it down to h(c) overlaps nothing (it is below x, where every
//       later node starts, and above every placed neighbor) and lowers the offset sum, so T* does not
//       make that choice.
//   (b2) symmetry of identical nodes: nodes with the same extent, lifetime and neighbor set are
//       interchangeable; swapping two of them keeps the sum, and rule (2) of T* puts the lower id lower,
//       hence first. So node j is never placed while an identical i < j is unplaced.
//   (c) section cuts (needs lifetimes): cut time into sections at every lifetime endpoint. All nodes
//       alive in one section interfere pairwise (the lifetimes must agree with the graph: two nodes whose
//       lifetimes overlap are adjacent), so they occupy disjoint byte ranges. In section k everything
//       still unplaced lands at or above base(k) = max(floor(k), last, min over those nodes of h), where
//       floor(k) is the highest top of a placed node alive in k; so
//       base(k) + (sum of sizes of unplaced nodes alive in k) <= capacity, else prune. After placing b at
//       x the child re-checks only the sections of b's unplaced neighbors (the only skylines that rose);
//       elsewhere only `last` moved to x, which the look-ahead x + rem(k) <= capacity already covers.
//   (d) forced nodes: call an unplaced c forced when every unplaced neighbor d has h(d) >= h(c) + size(c).
//       T* puts c at exactly h(c): c's placed neighbors end at or below h(c), and each unplaced neighbor d
//       lands at >= h(d) (h only grows), so at or above h(c) + size(c); moving c down to h(c) overlaps
//       nothing and lowers the offset sum. So c comes at (h(c), rank c) in T*'s order, and the next node
//       of T* is at or before it in the candidate order (h, then rank): the candidates after the first
//       forced node are skipped, and if that forced node lies before (last, last rank) -- which T* has
//       already passed -- the state is not on T*'s path at all and fails. (b1) is the special
//       case "c cannot be blocked because every later node starts at or above x"; (d) looks at the
//       unplaced neighbors instead, and the two prune different candidates.
//   (e) passed nodes (needs (c)): call an unplaced c passed when (h(c), rank c) < (last, last rank): T*'s
//       order has gone past c's current key, so c, which T* places later with a larger key, cannot stay
//       at h(c) <= last. Its skyline must rise above `last`, and it only rises by the top of a neighbor
//       placed from now on, at an offset >= last; so c lands at >= align(last + the smallest size of
//       any neighbor of c) (no neighbor at all: never). (c) uses that floor instead of h(c) for passed
//       nodes ("some unplaced node of section k can still reach the room below cap - rem(k)"). These
//       floors move outside b's neighbors too: when the level rises (x > last) every passed node's floor
//       rises, so the child checks every section of the part; at the same level (x == last) only the
//       nodes passed by this step (h == x, rank between the previous placement's and b's) changed, so
//       the child checks their sections besides those of b's neighbors. With the time-sweep
//       order below, (e) makes a hole left at the current level visible at once: every node that could
//       fill it starts earlier than the node just placed, hence is passed.
//   (f) valley branching (switch `valley_branching`; needs lifetimes that agree exactly with the graph:
//       neighbors are the nodes whose lifetimes overlap, checked at construction, else the level order
//       below is used). It replaces (o), (e) and the level order by a time-local one. The state is the
//       set of unplaced nodes and a floor per section; invariant: in T* every unplaced node alive in
//       section k lies at or above floor(k) (a placed node's top, or a raise below), so h(c) =
//       align_up(max floor over c's sections). A valley V = [a, b) is a maximal run of sections holding
//       unplaced nodes whose floors align up to the same y, with both bordering sections higher (or
//       walls: the part's end, a section no unplaced node is alive in). Let S be T*'s nodes at offset y
//       covering a section of V: each lies inside V (covering a border would put it at >= the border's
//       aligned floor > y), and they are disjoint in time. Branch on S's leftmost member c (every
//       unplaced c inside V; h(c) = y), or S empty. Raise: in branch c, the sections W = [a, start(c)),
//       in branch "S empty" all of V, hold no node at y; then every unplaced node alive in W lies at >=
//       min(the floor left of W, the floor right of W), where the right side is c's top y + size(c) or
//       V's right border. Proof: take the lowest such node c'. If c' lies inside W, T* (minimal offset
//       sum) cannot lower it by one alignment unit, so a neighbor d ends above c' - align and starts
//       below c'; d overlaps c' in time, so d is alive in W: unplaced, d would be lower than c'
//       (contradiction); placed, its top is <= y, so c' < y + align, c' = y (contradiction: nothing at y
//       in W). So c' covers a bordering section, above everything there. So W's floors rise to that
//       level (the branch applies it; raises strictly rise, so the search ends). The same holds
//       mirrored (S's rightmost member, W after its end); the search takes whichever end of whichever
//       valley has the fewest viable branches (ties: the lowest valley), a "fail first" choice. A branch
//       is not viable when the raised sections fail (c) (level + rem(k) > capacity), when an unplaced
//       node inside W fits below the level (y + size <= level: moving it down to y overlaps nothing and
//       lowers the sum, so T* does not take that branch; this is (b1) here, switch `gap_dominance`), or
//       when both borders are walls. A valley with no viable branch fails the state at once, wherever
//       it is in time, so a hole left anywhere is seen when it is made, not when the level order gets
//       there. (b2) carries over: a twin is not a candidate before its lower-id twin (the one placed
//       first lies lower). (d) would too (a candidate no unplaced neighbor can block sits at y), but
//       it made no measurable difference under (f) and is applied only in the level order. (c) is
//       checked with base(k) = max(floor(k), min h). The memo key is the unplaced set and the floors of
//       the sections holding them: it does not depend on the order, so a failure found in one (f)
//       round is reused by the later ones. With (f) applicable, (f) and the level order RACE on each
//       independent part (two lanes, each with the static orders in turn and its own failed states;
//       engine/lanes.hpp): the part takes the placement, or the proof, of the lane that decides it in
//       fewer nodes of its own, and the other lane is stopped there. On the challenging files each
//       decides within a second some that the other does not decide in ten (PERFORMANCE.md section
//       1). The rule is stated in nodes, so the answer and the node count are the same whether the
//       lanes take turns on one thread or run at once on two (`threads`); the race costs at most twice
//       the winner's nodes in turns (or the winner's plus one turn, lanes.hpp), about the winner's time at
//       once. (Before, the restart rounds alternated
//       between the two: a part cost the sum of both searches' rounds up to the one that decided it.)
//   (g) valley cover (switch `valley_cover`; under (f)): call section k full when the sizes of the nodes
//       alive in it add up to the capacity. In a full section of V, T* leaves no byte free, and the
//       placed nodes alive there fill [0, y) exactly ((c) holds: rem(k) <= capacity - base(k), and they
//       lie below floor(k)), so some unplaced node covers offset y there and lies at y: a member of S.
//       So S, disjoint in time and inside V, covers every full section of V. If no set of candidates
//       (unplaced nodes inside V with h = y and room at y) can, the state fails; in branch c (S's
//       leftmost member) the full sections of [end(c), b) must be coverable, mirrored [a, start(c))
//       for the rightmost. The branches this rules out are dropped from the chosen valley's list, but
//       the counts that choose the valley are (f)'s own: counting them there steered (f) to other
//       valleys, a different walk rather than a shorter one (challenging B took 36 x the nodes).
// Branching: candidates (nodes allowed by every active rule) are tried lowest h first, then by a static
// rank. Four ranks take turns in the restarts: the time sweep (earliest start, then longer, then larger:
// one level is filled left to right; switch `sweep_order`), and three "hard nodes first" orders (the
// heaviest section a node lives in, lifetime length, area, in different priorities). Each cycle of the
// four is followed by four seeded random ranks (a whole shuffle, a new one per round; switch
// `random_orders`) on the same node budget, which then doubles: a restart does not replay the same
// early mistake. Any rank keeps the search complete (above), and the memo key includes the rank's
// identity, so no failed state of one order is reused by another (the (f) lane's key needs none).
//
// Geometry. The search is written against GeometryPolicy for everything but the axis: it needs a 1-D
// geometry with an `alignment()` (linear_dram today; SB/PSUM would add a partition dimension). Extents
// must have partitions == 1. The result is checked with the geometry's own `legal` and `overlaps` on
// every edge before it is returned, so a bug can only cost a solution, never return a wrong one.
//
// Where it is weak (measured on planted instances, benchmarks/bench_search.cpp and docs/PERFORMANCE.md):
// before (f), problems that tile capacity x time exactly with a few hundred buffers: a wrong choice at a
// low level was detected only when the level order climbed to where the pieces' ends matter, after
// enumerating every choice elsewhere in time at the levels between. (f) fixed that for most families;
// the hand-off presolve, the random half of the restarts and the flush-first branch order (each
// measured in docs/PERFORMANCE.md) took most of the rest; what remains is buffers that live long next
// to many short ones (families `heavy` and `long-short` from 200 buffers):
// a long buffer can go down only where the short ones under it end flat at one level over its whole
// life, and a stack that misses that level is seen only when the long buffer's skyline is too high.
// And problems whose busiest points are full but whose other sections have a few percent free,
// scattered (planted tilings thinned to 0.95, `uniform` and `cut` from 200 buffers): (g) needs full
// sections, and (c) sees a wrong choice in a section with slack only once its waste exceeds the slack.
// Tried with (f) and dropped: an exact per-section "staircase" bound (stack the unplaced nodes of a
// section from their own skylines, earliest first; sound, but it cost 10x per node and fitted fewer).
// Tried for issue 11 and dropped (no change in fit rate): Luby and x1.5 restart schedules, an exact
// per-section "staircase" bound on the (e) floors, and a pure time-sweep probe (placing buffers in start
// order into free segments, best fit first), which thrashes even more. Also dropped: "stacked true twins
// ascend" (a node never directly on a larger node of the same lifetime: T* would swap them), sound but
// it prunes the easy non-canonical solutions a satisfiable search finds first, while the memo already
// merges the permutations (their floors are equal): `heavy` 200 fitted 4 of 20 instead of 13 within 1 s.
//
// Restarts per independent part. Time ranges that no node crosses (a zero cut between sections of the
// whole problem) are independent problems: no node of one shares a section, hence an edge, with a node of
// another. Each such part gets its own restart schedule (static orders with doubling node budgets, the
// last round unbounded), so a part that only one order solves quickly does not force that order -- or a
// budget big enough for the other part under it -- on the rest. (Challenging file E is two such parts
// that want different orders: with one shared schedule it gave up after 2 s, with one each it takes
// ~60k nodes.) A part proven infeasible makes the whole problem infeasible; a part giving up gives up.
// Splits that appear during the search (decompose) stay inside the current order and budget.
// Deterministic: every order breaks ties on node id; the deadline is the only non-deterministic input.
//
// Cost per state. Both memo keys are sums of per-node and per-section terms (commutative: + and xor), so
// they are kept up to date as nodes are placed and undone (vsum_ for (f), lsum_ for the level order) and a
// state reads its key in O(1), where summing it cost O(nodes + sections) per state; a part's key is the
// running sum less the terms outside the part, taken when the part starts (they stay put while it is
// searched). Each section keeps its unplaced nodes in front of its list (place() swaps a node behind
// them, undo moves the boundary back), so (c) and the raises of (f) never skip placed nodes. The level
// order's part keeps its unplaced nodes in front in the same way (dfs swaps the node it places behind
// them and back), so its per-state loops cover the unplaced nodes only. Under (f) a state lists its
// valleys with their branch counts, and a child recounts only the runs around the sections its branch
// changed (a valley's counts read only its own and its borders' floors and rem). (c) tries first the
// node that was low in a section last time. None of this changes a walk: node counts and placements
// are the same as with everything recomputed (debug builds assert the keys equal).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gca/engine/chain_search.hpp>
#include <gca/engine/completion.hpp>
#include <gca/engine/lanes.hpp>
#include <gca/engine/presolve.hpp>
#include <gca/engine/print_set.hpp>
#include <gca/engine/search_status.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/liveness/interval.hpp>
#include <gca/watchdog.hpp>

namespace gca {

/// Limits and switches of `search_placement`. The switches exist to measure each pruning rule; leave
/// them on in production.
struct linear_search_options {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::uint64_t node_limit = std::numeric_limits<std::uint64_t>::max();  // per lane of the race (below)
  std::uint64_t capacity = unbounded;  // a tighter limit than the geometry's capacity (unbounded: none)
  bool bound = true;               // (a) prune when some unplaced node cannot fit any more
  bool gap_dominance = true;       // (b1) never leave below b a gap some unplaced node fits in
  bool identical_symmetry = true;  // (b2) interchangeable nodes are placed in id order
  bool section_cuts = true;        // (c) per-section capacity cuts (needs lifetimes)
  bool decompose = true;           // solve time ranges no unplaced node crosses independently
  bool restarts = true;            // rotate static orders with a doubling node budget
  std::uint32_t first_order = 0;   // which static order to start with (0, 1, 2)
  bool memo = true;                // remember failed states (unplaced set, their skylines, last placement)
  bool forced_nodes = true;        // (d) a node no unplaced neighbor can block must come next or earlier
  bool part_restarts = true;       // each independent time range runs its own restart schedule
  bool passed_nodes = true;        // (e) nodes the canonical order has passed must rise: lift their floor
  bool sweep_order = true;         // add the time-sweep static order (earliest start first) to the restarts
  bool random_orders = true;       // each cycle of restarts adds as many seeded random orders
  std::uint64_t order_seed = 0;    // the random orders' seed (any is as good; benchmarks show the spread)
  bool valley_branching = true;    // (f) fill one valley of the skyline at a time (needs exact lifetimes)
  bool valley_cover = true;        // (g) under (f): full sections of a valley must be covered at its level
  bool flush_first = true;         // under (f), branches flush with a bordering floor first (order only)
  bool merge_handoffs = false;     // search hand-offs at full sections as one node (engine/presolve.hpp;
                                   // exact, but off: measured no better, and less robust on one file)
  // The hand-off search (engine/chain_search.hpp), tried first when the memory is full at every point,
  // on a budget of its own: at most this many of its nodes (and at most node_limit; 200,000 until
  // session 30, when its restarts made a larger budget pay: docs/PERFORMANCE.md section 1, "Restarts,
  // both ways in time").
  bool handoff_chains = true;
  std::uint64_t chain_node_limit = std::numeric_limits<std::uint64_t>::max();
  bool chain_restarts = true;  // its walks restart in seeded orders on Luby budgets (chain_search.hpp)
  bool chain_reverse = true;   // and walk the time-reversed problem too, sharing its turns (chain_turns)
  // Where the memory is not full at every point (either way in time), the search also runs on the
  // problem with fillers that make it so (engine/completion.hpp), in turns (filler_turns).
  bool fillers = true;
  bool filler_walks = true;  // the hand-off walks on the problem with fillers too (not only the skyline search)
  // Where the busiest point leaves room (max-live below the capacity), the search at the capacity takes
  // turns with one at max-live, the least capacity no count of bytes rules out (search_placement says
  // how); a placement found there is one here. Why: the search is not monotone in the capacity. Room
  // beyond the busiest point leaves the memory full nowhere, so the hand-off walks never apply and the
  // fillers must invent that band of free space too: planted problems it places at their capacity it
  // missed at 1 % more (docs/PERFORMANCE.md section 1, "Max-live turns"). What a turn proves (nothing
  // fits in max-live) says nothing of the capacity and is dropped. Skipped when the budget is unbounded
  // both ways: the search must then decide, and the turns could only add to that.
  bool max_live_turns = true;
  // With (f) applicable, its lane and the level order's race on each part (engine/lanes.hpp): 1 runs
  // them in turns on one core, 2 or more at once on two threads. The answer and the node counts are the
  // same either way. Each lane has `node_limit` to itself (so a race reports at most twice as many:
  // halved, (f) gave up on DRAM problems of 2,000 tensors that it decides within 11,000 nodes).
  unsigned threads = 1;
};

struct search_stats {
  std::uint64_t nodes = 0;             // placements tried (search-tree nodes below the root)
  std::uint64_t pruned_bound = 0;      // subtrees cut by (a)
  std::uint64_t pruned_section = 0;    // subtrees cut by (c)
  std::uint64_t pruned_dominance = 0;  // candidates skipped by (b1)
  std::uint64_t pruned_symmetry = 0;   // candidates skipped by (b2)
  std::uint64_t backtracks = 0;        // placements undone
  std::uint64_t decompositions = 0;    // independent splits solved
  std::uint64_t pruned_memo = 0;       // subtrees cut because the same state failed before
  std::uint64_t pruned_forced = 0;     // candidates skipped and states cut by (d)
  std::uint64_t rounds = 0;            // restarts used, summed over independent parts (orders tried)
  std::uint64_t deepest = 0;           // most nodes placed at once (how close a failed search came)
  std::uint64_t pruned_valley = 0;     // states cut by (f): a valley with no viable branch
  std::uint64_t merged = 0;            // nodes searched as part of another (hand-offs, engine/presolve.hpp)
  std::uint64_t chain_nodes = 0;       // nodes of the hand-off search (engine/chain_search.hpp), in `nodes` too
  double seconds = 0;
};

struct search_result {
  search_status status = search_status::gave_up;
  std::vector<placement> placements;  // one per node when found, else empty
  std::uint64_t peak = 0;             // max offset + size when found
  search_stats stats;
  bool found() const noexcept { return status == search_status::found; }
};

namespace detail {

template <class G>
concept linear_search_geometry = GeometryPolicy<G> && requires(const G& g) {
  { g.alignment() } -> std::convertible_to<std::uint64_t>;
};


template <class = void>
class placement_search {
 public:
  placement_search(const interference_graph& g, std::span<const extent> ext, std::span<const interval> life,
                   std::uint64_t capacity, std::uint64_t alignment, const linear_search_options& opt)
      : g_(g), n_(g.num_nodes()), cap_(capacity), align_(alignment), opt_(opt) {
    size_.resize(n_);
    for (std::size_t v = 0; v < n_; ++v) size_[v] = ext[v].bytes;
    top_.assign(n_, 0);
    off_.assign(n_, 0);
    placed_.assign(n_, 0);
    build_sections(life);
    build_twins(life);
    min_nb_.assign(n_, unbounded);
    for (std::size_t v = 0; v < n_; ++v)
      for (node_id u : g_.neighbors(static_cast<node_id>(v))) min_nb_[v] = std::min(min_nb_[v], size_[u]);
    valley_ok_ = opt_.valley_branching && sections_ && lifetimes_match_graph(life);
    valley_ = valley_ok_;
    if (valley_ok_) {
      starts_.assign(sections(), {});
      spos_.resize(n_);
      for (std::size_t v = 0; v < n_; ++v) {
        spos_[v] = static_cast<std::uint32_t>(starts_[sec_lo_[v]].size());
        starts_[sec_lo_[v]].push_back(static_cast<node_id>(v));
      }
      unstarted_.resize(sections());
      for (std::size_t k = 0; k < sections(); ++k) unstarted_[k] = static_cast<std::uint32_t>(starts_[k].size());
      vkey_.resize(n_);  // each node's two terms of valley_key, mixed once here rather than in every state
      for (std::uint64_t c = 0; c < n_; ++c)
        vkey_[c] = {mix(c * 0x9E3779B97F4A7C15ull + 1), mix((c << 40) ^ 0x632BE59BD9B4E019ull)};
    }
  }

  search_result run() {
    search_result r;
    const auto t0 = std::chrono::steady_clock::now();
    outcome out = outcome::fail;
    bool ok = true;
    for (std::size_t v = 0; v < n_; ++v)
      if (size_[v] == 0 || size_[v] > cap_) ok = false;
    if (ok) {
      const std::vector<root_part> parts = root_parts();
      out = valley_ok_ ? race(parts) : solve_each(parts);
    }
    r.stats = st_;
    r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ok && out == outcome::ok) {
      r.status = search_status::found;
      r.placements.resize(n_);
      for (std::size_t v = 0; v < n_; ++v) {
        r.placements[v] = placement{0, off_[v]};
        r.peak = std::max(r.peak, off_[v] + size_[v]);
      }
    } else {
      r.status = ok && out == outcome::abort ? search_status::gave_up : search_status::infeasible;
    }
    return r;
  }

 private:
  enum class outcome : std::uint8_t { ok, fail, abort };
  using memo_key = print_key;
  static constexpr node_id none = std::numeric_limits<node_id>::max();
  static constexpr std::size_t heuristics = 3;
  static constexpr std::array<std::size_t, 4> order_list{6, 0, 1, 2};  // with the sweep order

  /// An independent part of the whole problem: its nodes, alone in sections [lo, hi).
  struct root_part {
    std::vector<node_id> nodes;
    std::uint32_t lo, hi;
  };

  /// The root's independent parts (zero cuts), each to get its own restarts; one part when the switch
  /// is off or there are no lifetimes.
  std::vector<root_part> root_parts() const {
    std::vector<std::uint32_t> points{0};
    if (sections_ && opt_.decompose && opt_.part_restarts)
      for (std::uint32_t k = 0; k + 1 < sections(); ++k)
        if (cuts_[k] == 0) points.push_back(k + 1);
    points.push_back(static_cast<std::uint32_t>(sections()));
    std::vector<root_part> parts;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      root_part p{{}, points[i], points[i + 1]};
      for (std::size_t v = 0; v < n_; ++v)
        if (points.size() == 2 || (sec_lo_[v] < points[i + 1] && sec_hi_[v] > points[i]))
          p.nodes.push_back(static_cast<node_id>(v));
      if (!p.nodes.empty()) parts.push_back(std::move(p));
    }
    return parts;
  }

  /// The level order alone on each part in turn (no race: (f) does not apply).
  outcome solve_each(const std::vector<root_part>& parts) {
    outcome out = outcome::ok;
    for (std::size_t i = 0; i < parts.size() && out == outcome::ok; ++i)
      out = restart(parts[i].nodes, parts[i].lo, parts[i].hi);
    return out;
  }

  /// What one lane did on one part: its outcome and its statistics there.
  struct lane_part {
    outcome out = outcome::abort;
    search_stats stats;
  };

  /// (f) (this searcher, lane 0) and the level order (a copy, lane 1) race on each part, by the rule of
  /// engine/lanes.hpp: a part takes the placement, or the proof, of the lane that decides it in fewer
  /// nodes. On the challenging files each of the two decides, within a second, files the other does not
  /// decide in ten (PERFORMANCE.md section 1); racing them costs at most twice the winner in turns, the
  /// winner's time at once, where taking turns round by round cost the sum of both up to the winner.
  outcome race(const std::vector<root_part>& parts) {
    memo_cap_ /= 2;  // each lane keeps half as many failed states: the race takes no more memory
    lane_ = 0;
    placement_search level(*this);  // nothing is placed yet: the same problem, a state of its own
    level.lane_ = 1;
    search_stats total;
    outcome out = outcome::ok;
    for (const root_part& part : parts) {
      lane_part mine, theirs;
      const lane_race::verdict v = race_part(part, level, mine, theirs);
      if (v.winner < 0) {  // both gave up: their whole work counts
        add_stats(total, mine.stats, mine.stats.nodes);
        add_stats(total, theirs.stats, theirs.stats.nodes);
        out = outcome::abort;
        break;
      }
      const lane_part& w = v.winner == 0 ? mine : theirs;
      const lane_part& l = v.winner == 0 ? theirs : mine;
      add_stats(total, w.stats, w.stats.nodes + std::min(l.stats.nodes, v.nodes));
      if (v.winner == 1)
        for (node_id x : part.nodes) off_[x] = level.off_[x];
      if (!v.found) {
        out = outcome::fail;
        break;
      }
    }
    st_ = total;
    return out;
  }

  /// One part of the race (lanes.hpp). This lane (0) runs here; the level lane gets a thread of its own
  /// only when this one reaches lane_race::start_other_at() nodes without deciding the part. Most parts are
  /// decided sooner, and then the level lane runs here after it, stopped past this lane's count: the
  /// same rule, without a thread (a lane's walk does not depend on how it is run, only where it stops).
  lane_race::verdict race_part(const root_part& part, placement_search& level, lane_part& mine, lane_part& theirs) {
    lane_race gate(opt_.threads > 1);
    std::thread other;
    std::exception_ptr error1;
    const auto deadline = watchdog_deadline();  // the caller's watchdog holds in the level lane too
    start_other_ = [&] {
      other = std::thread([&] {
        const watchdog_scope scope(deadline);
        try {
          theirs = level.run_part(part, &gate);
          gate.end(1, theirs.out != outcome::abort, theirs.out == outcome::ok, theirs.stats.nodes);
        } catch (...) {
          error1 = std::current_exception();
          gate.leave(1);
        }
      });
    };
    lane_race::verdict v;
    try {
      mine = run_part(part, &gate);
      if (other.joinable()) v = gate.end(0, mine.out != outcome::abort, mine.out == outcome::ok, mine.stats.nodes);
    } catch (...) {
      start_other_ = nullptr;
      gate.leave(0);
      if (other.joinable()) other.join();
      throw;
    }
    start_other_ = nullptr;
    if (other.joinable()) {
      other.join();
      if (error1) std::rethrow_exception(error1);
    } else {  // decided (or given up) within its first turn: the level lane runs here, after it
      const bool d0 = mine.out != outcome::abort;
      theirs = level.run_part(part, nullptr, d0 ? mine.stats.nodes : no_quota);
      const bool d1 = theirs.out != outcome::abort;
      if (d1 && (!d0 || theirs.stats.nodes < mine.stats.nodes))
        v = {1, theirs.stats.nodes, theirs.out == outcome::ok};
      else if (d0)
        v = {0, mine.stats.nodes, mine.out == outcome::ok};
    }
    end_part(v, mine.stats.nodes);
    level.end_part(v, theirs.stats.nodes);
    return v;
  }

  /// This lane's walk of one part from a fresh start (the part's failed states, statistics and node
  /// count begin here), under the race's `gate` or stopped after `quota` nodes. The stop only
  /// ends the walk; up to it, the walk is the same however the lanes are run.
  lane_part run_part(const root_part& part, lane_race* gate, std::uint64_t quota = no_quota) {
    failed_.clear();  // another part's failed states never match here (their keys hold their sections)
    const search_stats before = st_;
    st_.deepest = 0;
    part_base_ = st_.nodes;
    part_mark_ = log_.size();
    race_ = gate;
    race_next_ = gate ? (start_other_ ? gate->start_other_at() : gate->next_tick(0)) : 0;
    quota_ = quota;
    stopped_ = false;
    if (gate) gate->begin(lane_);
    const outcome o = restart(part.nodes, part.lo, part.hi);
    race_ = nullptr;
    quota_ = no_quota;
    stopped_ = false;
    return {o, stats_since(before)};
  }

  /// After the verdict: a lane that lost the part undoes it and counts the winner's nodes there (its
  /// node limit is judged on that count, not on how far it ran).
  void end_part(const lane_race::verdict& v, std::uint64_t own) {
    if (v.winner == lane_) return;
    undo_to(part_mark_);
    if (v.winner >= 0) {
      st_.nodes = part_base_ + std::min(own, v.nodes);
      aborted_ = st_.nodes >= opt_.node_limit || past_deadline();
    }
  }

  /// The additive counters of search_stats (all but `deepest` and `seconds`), for the two functions below.
  static constexpr std::array<std::uint64_t search_stats::*, 11> counters{
      &search_stats::nodes,          &search_stats::pruned_bound,   &search_stats::pruned_section,
      &search_stats::pruned_dominance, &search_stats::pruned_symmetry, &search_stats::backtracks,
      &search_stats::decompositions, &search_stats::pruned_memo,    &search_stats::pruned_forced,
      &search_stats::rounds,         &search_stats::pruned_valley};

  /// The statistics gathered since `before` (the additive ones; `deepest` of this part alone).
  search_stats stats_since(const search_stats& before) const {
    search_stats d = st_;
    for (auto field : counters) d.*field -= before.*field;
    return d;
  }

  /// Adds part statistics `d` to `t`, with `nodes` in place of d.nodes (a race's loser is charged the
  /// winner's count).
  static void add_stats(search_stats& t, const search_stats& d, std::uint64_t nodes) {
    const std::uint64_t before = t.nodes;
    for (auto field : counters) t.*field += d.*field;
    t.nodes = before + nodes;
    t.deepest = std::max(t.deepest, d.deepest);
  }

  /// Solves `part` (all of it unplaced, alone in sections [slo, shi)) with restarts: each static order
  /// gets a node budget; the budget doubles after every round of orders, so a lucky order finishes early
  /// and an unlucky one cannot hold the search forever. The last round is unbounded (up to the user's
  /// limits), so the search stays complete. On failure nothing of the part stays placed.
  outcome restart(const std::vector<node_id>& part, std::uint32_t slo, std::uint32_t shi) {
    const std::size_t mark = log_.size();
    std::uint64_t budget = std::max<std::uint64_t>(part.size(), 64);
    // (f) in the valley lane (lane_ 0), the level order otherwise; each lane takes the orders in turn.
    valley_ = lane_ == 0;
    // The running sums of this lane's memo key ((f): vsum_ and over_; the level order: lsum_).
    vsum_ = lsum_ = memo_key{0, 0};
    over_ = 0;
    if (valley_) {
      vsum_ = valley_sum();
      for (std::size_t c = 0; c < n_; ++c) over_ += !placed_[c] && no_room(static_cast<node_id>(c));
    } else {
      for (std::size_t c = 0; c < n_; ++c)
        if (!placed_[c]) fold(lsum_, level_term(static_cast<node_id>(c)), +1);
    }
    const std::size_t count = opt_.sweep_order && sections_ ? heuristics + 1 : heuristics;
    // A cycle: the `count` static orders, then (random_orders) as many random ones, all on one budget.
    const std::size_t cycle = opt_.random_orders ? 2 * count : count;
    for (std::size_t round = 0;; ++round) {
      const std::size_t slot = (round + opt_.first_order) % count;
      const std::size_t h = slot < order_list.size() && opt_.sweep_order && sections_ ? order_list[slot] : slot;
      // The second half of a cycle takes seeded random orders (a new one each round: deterministic).
      // Why: on tight problems the search's time is heavy-tailed -- an order either finds a placement
      // within a few thousand nodes or is stuck below an early mistake for millions -- and short runs of
      // many different orders escape that tail (restarts with randomization, as in SAT/CP solvers),
      // while the static orders, which decide most problems first, keep half of every cycle.
      const std::uint64_t shake = round % cycle >= count ? round + (opt_.order_seed << 32) : 0;
      build_rank(h, shake);
      variant_ = h + 16 * shake;
      const bool last_round = !opt_.restarts || budget >= opt_.node_limit;
      attempt_limit_ = last_round ? opt_.node_limit : std::min(opt_.node_limit, st_.nodes + budget);
      std::vector<node_id> nodes = part;
      const outcome out = solve(nodes, slo, shi);
      ++st_.rounds;
      if (out != outcome::abort || aborted_ || stopped_ || last_round) return out;
      undo_to(mark);  // a budget abort: start over with the next order
      if ((round + 1) % cycle == 0) budget *= 2;
    }
  }

  std::uint64_t align_up(std::uint64_t x) const noexcept {
    if (align_pow2_ && x <= std::numeric_limits<std::uint64_t>::max() - align_)  // no division (hot in (f))
      return (x + align_ - 1) & ~(align_ - 1);
    const std::uint64_t r = x % align_;
    return r == 0 ? x : x + (align_ - r);
  }
  /// The skyline of v: lowest aligned offset above every placed neighbor (kept aligned in top_).
  std::uint64_t h(std::size_t v) const noexcept { return top_[v]; }
  std::size_t sections() const noexcept { return rem_.size(); }
  /// The unplaced nodes alive in section k (the front of alive_[k]; place() swaps a node behind them).
  std::span<const node_id> unplaced_alive(std::uint32_t k) const noexcept {
    return {alive_[k].data(), unplaced_[k]};
  }
  /// The unplaced nodes whose lifetime starts at section k ((f); kept as unplaced_alive).
  std::span<const node_id> unplaced_starting(std::uint32_t k) const noexcept {
    return {starts_[k].data(), unstarted_[k]};
  }
  /// Where v sits in alive_[k], k one of v's sections.
  std::uint32_t& apos(node_id v, std::uint32_t k) noexcept { return apos_[apos_base_[v] + (k - sec_lo_[v])]; }

  void build_sections(std::span<const interval> life) {
    if (life.empty()) return;
    std::vector<program_point> pts;
    pts.reserve(2 * n_);
    for (const interval& i : life) {
      pts.push_back(i.begin);
      pts.push_back(i.end);
    }
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    const std::size_t count = pts.empty() ? 0 : pts.size() - 1;
    sec_lo_.resize(n_);
    sec_hi_.resize(n_);
    rem_.assign(count, 0);
    floor_.assign(count, 0);
    cuts_.assign(count, 0);
    alive_.assign(count, {});
    for (std::size_t v = 0; v < n_; ++v) {
      sec_lo_[v] = static_cast<std::uint32_t>(std::lower_bound(pts.begin(), pts.end(), life[v].begin) - pts.begin());
      sec_hi_[v] = static_cast<std::uint32_t>(std::lower_bound(pts.begin(), pts.end(), life[v].end) - pts.begin());
      for (std::uint32_t k = sec_lo_[v]; k < sec_hi_[v]; ++k) {
        rem_[k] += size_[v];
        alive_[k].push_back(static_cast<node_id>(v));
      }
      for (std::uint32_t k = sec_lo_[v]; k + 1 < sec_hi_[v]; ++k) ++cuts_[k];
    }
    unplaced_.resize(count);
    witness_.assign(count, none);
    full_.resize(count);
    for (std::size_t k = 0; k < count; ++k) full_[k] = rem_[k] == cap_;
    for (std::size_t k = 0; k < count; ++k) unplaced_[k] = static_cast<std::uint32_t>(alive_[k].size());
    apos_base_.resize(n_);
    std::size_t total = 0;
    for (std::size_t v = 0; v < n_; ++v) {
      apos_base_[v] = total;
      total += sec_hi_[v] - sec_lo_[v];
    }
    apos_.resize(total);
    for (std::size_t k = 0; k < count; ++k)
      for (std::size_t i = 0; i < alive_[k].size(); ++i) apos(alive_[k][i], static_cast<std::uint32_t>(k)) = static_cast<std::uint32_t>(i);
    length_.resize(n_);
    for (std::size_t v = 0; v < n_; ++v) length_[v] = life[v].end - life[v].begin;
    sections_ = true;
  }

  /// twin_[v]: the largest id u < v interchangeable with v (same size, lifetime and neighbors), or none.
  void build_twins(std::span<const interval> life) {
    twin_.assign(n_, none);
    if (!opt_.identical_symmetry) return;
    std::vector<node_id> ids(n_);
    for (std::size_t v = 0; v < n_; ++v) ids[v] = static_cast<node_id>(v);
    auto same_class = [&](node_id a, node_id b) {
      if (size_[a] != size_[b] || g_.degree(a) != g_.degree(b)) return false;
      return life.empty() || life[a] == life[b];
    };
    auto less = [&](node_id a, node_id b) {
      if (size_[a] != size_[b]) return size_[a] < size_[b];
      if (g_.degree(a) != g_.degree(b)) return g_.degree(a) < g_.degree(b);
      if (!life.empty() && !(life[a] == life[b]))
        return life[a].begin != life[b].begin ? life[a].begin < life[b].begin : life[a].end < life[b].end;
      return a < b;
    };
    std::sort(ids.begin(), ids.end(), less);
    // Same neighbors apart from each other: N(a) \ {b} == N(b) \ {a}.
    auto same_neighbors = [&](node_id a, node_id b) {
      const auto na = g_.neighbors(a), nb = g_.neighbors(b);
      std::size_t i = 0, j = 0;
      for (;;) {
        while (i < na.size() && na[i] == b) ++i;
        while (j < nb.size() && nb[j] == a) ++j;
        if (i == na.size() || j == nb.size()) return i == na.size() && j == nb.size();
        if (na[i] != nb[j]) return false;
        ++i;
        ++j;
      }
    };
    for (std::size_t i = 1; i < n_; ++i) {
      for (std::size_t j = i; j-- > 0;) {
        if (!same_class(ids[j], ids[i])) break;
        if (same_neighbors(ids[j], ids[i])) {
          twin_[ids[i]] = ids[j];
          break;
        }
      }
    }
  }

  /// Static order among candidates of equal h (and the tie-break of the canonical order): variant 0
  /// sorts by the heaviest section a node lives in, then area (size x length), then length; variant 1 by
  /// heaviest section, length, area; variant 2 by area, heaviest section, length. All descending, then id.
  /// A nonzero `shake` replaces it by a random order seeded with `shake`.
  void build_rank(std::size_t variant, std::uint64_t shake) {
    std::vector<node_id> ids(n_);
    for (std::size_t v = 0; v < n_; ++v) ids[v] = static_cast<node_id>(v);
    if (shake != 0) {  // a random order: a seeded shuffle of the whole rank (Fisher-Yates)
      std::uint64_t x = mix(shake);
      for (std::size_t i = n_; i > 1; --i) {
        x = mix(x);
        std::swap(ids[i - 1], ids[static_cast<std::size_t>(x % i)]);
      }
    } else {
      sort_rank(variant, ids);
    }
    rank_.assign(n_, 0);
    for (std::size_t i = 0; i < n_; ++i) rank_[ids[i]] = static_cast<std::uint32_t>(i);
  }

  /// The static orders of build_rank (`ids` holds every node).
  void sort_rank(std::size_t variant, std::vector<node_id>& ids) const {
    std::vector<std::uint64_t> heavy(n_, 0), len(n_, 0);
    std::vector<double> area(n_, 0);
    for (std::size_t v = 0; v < n_; ++v) {
      if (sections_) {
        for (std::uint32_t k = sec_lo_[v]; k < sec_hi_[v]; ++k) heavy[v] = std::max(heavy[v], rem_[k]);
        len[v] = length_[v];
      } else {
        heavy[v] = size_[v];
        for (node_id u : g_.neighbors(static_cast<node_id>(v))) heavy[v] += size_[u];
        len[v] = g_.degree(static_cast<node_id>(v));
      }
      area[v] = static_cast<double>(size_[v]) * static_cast<double>(len[v]);
    }
    std::sort(ids.begin(), ids.end(), [&](node_id a, node_id b) {
      switch (variant) {
        case 0:
          if (heavy[a] != heavy[b]) return heavy[a] > heavy[b];
          if (area[a] != area[b]) return area[a] > area[b];
          if (len[a] != len[b]) return len[a] > len[b];
          break;
        case 1:
          if (len[a] != len[b]) return len[a] > len[b];
          if (area[a] != area[b]) return area[a] > area[b];
          if (heavy[a] != heavy[b]) return heavy[a] > heavy[b];
          break;
        case 2:
          if (heavy[a] != heavy[b]) return heavy[a] > heavy[b];
          if (len[a] != len[b]) return len[a] > len[b];
          if (area[a] != area[b]) return area[a] > area[b];
          break;
        case 3:
          if (size_[a] != size_[b]) return size_[a] > size_[b];
          if (len[a] != len[b]) return len[a] > len[b];
          break;
        case 4:
          if (area[a] != area[b]) return area[a] > area[b];
          break;
        case 6:  // time sweep: earliest start first, then longer, then larger
          if (sections_ && sec_lo_[a] != sec_lo_[b]) return sec_lo_[a] < sec_lo_[b];
          if (len[a] != len[b]) return len[a] > len[b];
          if (size_[a] != size_[b]) return size_[a] > size_[b];
          break;
        default:
          if (heavy[a] != heavy[b]) return heavy[a] > heavy[b];
          if (size_[a] != size_[b]) return size_[a] > size_[b];
          if (len[a] != len[b]) return len[a] > len[b];
          break;
      }
      return a < b;
    });
  }

  bool past_deadline() const {
    return opt_.deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= opt_.deadline;
  }

  bool out_of_budget() {
    watchdog_tick(16);  // a caller's watchdog (gca/watchdog.hpp) throws here: the clock every 256 nodes
    if (aborted_ || stopped_) return true;
    if (st_.nodes >= opt_.node_limit) aborted_ = true;
    if (st_.nodes - part_base_ > quota_) return stopped_ = true;  // past the other lane's count
    if (race_ && st_.nodes - part_base_ >= race_next_) {  // the other lane decided first, or its turn
      if (start_other_) {  // the race's lane 0 did not decide the part in its first turn: lane 1 starts
        start_other_();
        start_other_ = nullptr;
      }
      race_next_ = race_->next_tick(race_next_);
      stopped_ = race_->tick(lane_, st_.nodes - part_base_);
      if (stopped_) return true;
    }
    // The clock every 16 nodes: a node costs O(n) (its candidates sorted), about a millisecond on traces
    // of 18,000 buffers, where every 256 nodes let a 1-second budget run to 3 s; a reading of the clock
    // costs tens of nanoseconds, a node microseconds at least.
    if ((st_.nodes & 15) == 0 && past_deadline()) aborted_ = true;
    return aborted_ || st_.nodes >= attempt_limit_;
  }

  /// Places every unplaced node of `nodes` (all live inside sections [slo, shi), and no unplaced node
  /// outside `nodes` shares a section with them) from scratch: a fresh canonical order.
  outcome solve(std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi) {
    std::erase_if(nodes, [&](node_id v) { return placed_[v] != 0; });
    if (nodes.empty()) return outcome::ok;
    if (sections_ && opt_.decompose) {
      // Static split at zero cuts inside the range.
      std::vector<std::uint32_t> points{slo};
      for (std::uint32_t k = slo; k + 1 < shi; ++k)
        if (cuts_[k] == 0) points.push_back(k + 1);
      if (points.size() > 1) {
        points.push_back(shi);
        return solve_parts(nodes, points);
      }
    }
    // The memo keys of the part's states are kept up to date across the whole problem (vsum_, lsum_);
    // what lies outside the part stays put while it is searched (no node of it shares a section, hence
    // an edge, with the part's), so the part's key is the sum less that context, taken here.
    // The same for over_ ((a) under (f)).
    const memo_key outer = ctx_;
    const std::size_t outer_over = over_ctx_;
    const memo_key inner = valley_ ? valley_key(nodes, slo, shi) : level_sum(nodes), sum = valley_ ? vsum_ : lsum_;
    ctx_ = {sum.a - inner.a, sum.b ^ inner.b};
    if (valley_) over_ctx_ = over_ - count_over(nodes);
    const outcome o = valley_ ? vdfs(nodes, slo, shi, nodes.size(), slo, shi) : dfs(nodes, slo, shi, nodes.size(), 0, none, slo, shi);
    ctx_ = outer;
    over_ctx_ = outer_over;
    return o;
  }

  /// Solves the independent parts between consecutive `points`; on failure undoes all of them.
  outcome solve_parts(std::span<const node_id> nodes, const std::vector<std::uint32_t>& points) {
    const std::size_t mark = log_.size();
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      std::vector<node_id> part;
      for (node_id v : nodes)
        if (!placed_[v] && sec_lo_[v] < points[i + 1] && sec_hi_[v] > points[i]) part.push_back(v);
      if (part.empty()) continue;
      const outcome o = solve(part, points[i], points[i + 1]);
      if (o != outcome::ok) {
        undo_to(mark);
        return o;
      }
    }
    ++st_.decompositions;
    return outcome::ok;
  }

  /// Depth-first search over canonical placements of the part `nodes`, whose first `left` entries are
  /// its unplaced nodes (in no particular order: every rule below is a minimum, a count or a sort, so
  /// the walk does not depend on it; each step swaps the node it places behind them and back), the last
  /// placement at offset `last` by the node of rank `last_rank`. (c) need only be checked on sections
  /// [dlo, dhi): the caller knows every other section of [slo, shi) passes (see the loop below).
  /// One piece on purpose: the per-state scan (bound, the two lowest tops for (b1), the memo key), the
  /// forced node of (d), the look-ahead of (c) and the child's check range of (c)/(e) are computed once
  /// per state and used by every candidate; split up, a dozen locals would travel between the parts.
  outcome dfs(std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi, std::size_t left,
              std::uint64_t last, std::uint32_t last_rank, std::uint32_t dlo, std::uint32_t dhi) {
    if (left == 0) return outcome::ok;
    const std::span<const node_id> un(nodes.data(), left);
    // One pass over the unplaced nodes: bound (a) and the two lowest h + size for (b1).
    constexpr std::uint64_t inf = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t best1 = inf, best2 = inf;  // two smallest h(c) + size(c)
    node_id arg1 = none;
    // The memo key: the state's header and every unplaced node's term (level_term), kept in lsum_.
    memo_key key{mix(last ^ (std::uint64_t{last_rank} << 32) ^ variant_), mix(slo + (std::uint64_t{shi} << 32) + variant_)};
    const memo_key terms{lsum_.a - ctx_.a, lsum_.b ^ ctx_.b};
    assert(terms == level_sum(nodes));
    fold(key, terms, +1);
    for (node_id c : un) {
      assert(!placed_[c]);
      const std::uint64_t hc = h(c);
      if (opt_.bound && std::max(hc, last) > cap_ - size_[c]) {
        ++st_.pruned_bound;
        return outcome::fail;
      }
      const std::uint64_t t = hc + size_[c];
      if (t < best1) {
        best2 = best1;
        best1 = t;
        arg1 = c;
      } else if (t < best2) {
        best2 = t;
      }
    }
    // (e) needs every section: the set of passed nodes changes everywhere when (last, last_rank) moves.
    const bool lift = opt_.passed_nodes && sections_ && opt_.section_cuts;
    if (sections_ && opt_.section_cuts && !section_cut(dlo, dhi, last, last_rank, lift)) {
      ++st_.pruned_section;
      return outcome::fail;
    }
    if (opt_.memo && failed_.contains(key)) {
      ++st_.pruned_memo;
      return outcome::fail;
    }
    // (d): the first forced node in candidate order (h, rank), if any.
    std::uint64_t fh = inf;
    std::uint32_t frank = none;
    if (opt_.forced_nodes) {
      for (node_id c : un) {
        const std::uint64_t hc = h(c);
        if (hc > fh || (hc == fh && rank_[c] > frank)) continue;  // cannot come first
        if (forced(c, hc)) {
          fh = hc;
          frank = rank_[c];
        }
      }
      if (fh != inf && (fh < last || (fh == last && last_rank != none && frank < last_rank))) {
        ++st_.pruned_forced;
        return outcome::fail;
      }
    }
    // The candidates, as places in `nodes` (a child restores the order it found), on a stack shared by
    // the frames (no allocation per state); this frame's entries are [base, end).
    const stack_frame<std::uint32_t> frame(scratch_);
    for (std::size_t i = 0; i < left; ++i) {
      const node_id c = nodes[i];
      const std::uint64_t hc = h(c);
      if (hc < last || (hc == last && last_rank != none && rank_[c] < last_rank)) continue;  // (o)
      if (hc > cap_ - size_[c]) continue;
      if (opt_.gap_dominance && hc >= (c == arg1 ? best2 : best1)) {
        ++st_.pruned_dominance;
        continue;
      }
      if (hc > fh || (hc == fh && rank_[c] > frank)) {
        ++st_.pruned_forced;
        continue;
      }
      if (twin_[c] != none && !placed_[twin_[c]]) {
        ++st_.pruned_symmetry;
        continue;
      }
      scratch_.push_back(static_cast<std::uint32_t>(i));
    }
    const std::size_t end = scratch_.size();
    std::sort(scratch_.begin() + static_cast<std::ptrdiff_t>(frame.base), scratch_.end(), [&](std::uint32_t i, std::uint32_t j) {
      const node_id a = nodes[i], b = nodes[j];
      const std::uint64_t ha = h(a), hb = h(b);
      return ha != hb ? ha < hb : rank_[a] < rank_[b];
    });
    // Look-ahead of (c) without placing: after b goes to x every section k still holding unplaced
    // nodes has base >= x (monotone order), so x + rem(k) <= capacity for every k. Candidates come in
    // increasing x, so the first that fails ends the loop.
    std::uint64_t max_rem = 0;
    if (sections_ && opt_.section_cuts)
      for (std::uint32_t k = slo; k < shi; ++k) max_rem = std::max(max_rem, rem_[k]);
    for (std::size_t j = frame.base; j < end; ++j) {
      const std::uint32_t i = scratch_[j];
      const node_id b = nodes[i];
      if (h(b) > cap_ - max_rem) {
        ++st_.pruned_section;
        break;
      }
      ++st_.nodes;
      if (out_of_budget()) return outcome::abort;
      const std::uint64_t x = h(b);
      const std::size_t mark = log_.size();
      place(b, x);
      std::swap(nodes[i], nodes[left - 1]);  // b leaves the unplaced front
      st_.deepest = std::max<std::uint64_t>(st_.deepest, placed_count_);
      const outcome o = dfs_child(nodes, slo, shi, left - 1, b, last, last_rank, lift);
      std::swap(nodes[i], nodes[left - 1]);
      if (o == outcome::ok) return o;
      undo_to(mark);
      ++st_.backtracks;
      if (o == outcome::abort) return o;
    }
    if (opt_.memo && failed_.size() < memo_cap_) failed_.insert(key);
    return outcome::fail;
  }

  /// After dfs placed b at x = h(b) (behind the part's `left` unplaced nodes): split at zero cuts inside
  /// b's lifetime, or go on with (c) checked where it can have changed.
  outcome dfs_child(std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi, std::size_t left, node_id b,
                    std::uint64_t last, std::uint32_t last_rank, bool lift) {
    const std::uint64_t x = off_[b];
    if (sections_ && opt_.decompose && has_zero_cut(b, slo, shi)) return solve_parts({nodes.data(), left}, split_points(b, slo, shi));
    // The child need check (c) only where a skyline rose: the sections of b's unplaced neighbors.
    // Elsewhere in [slo, shi) a section k passes: if k is in b's lifetime, every unplaced node alive
    // in k is a neighbor of b, so k is covered or empty (rem 0); otherwise its floor and the skylines
    // of the nodes alive in it are unchanged, so base(k) = max(its base here, x), and both
    // base here + rem(k) <= capacity (this state passed) and x + rem(k) <= capacity (look-ahead).
    std::uint32_t dlo = shi, dhi = slo;
    if (sections_ && opt_.section_cuts)
      for (node_id u : g_.neighbors(b))
        if (!placed_[u]) {
          dlo = std::min(dlo, std::max(sec_lo_[u], slo));
          dhi = std::max(dhi, std::min(sec_hi_[u], shi));
        }
    // (e) moves floors outside b's neighbors too. If the level rose (x > last), every passed node's
    // floor align(last + smallest neighbor) rose with it: check the whole range. If not, the only
    // change is the nodes passed by this step (h == x, rank between the last placement's and b's):
    // add their sections.
    if (lift && x > last) {
      dlo = slo;
      dhi = shi;
    } else if (lift) {
      for (std::size_t i = 0; i < left; ++i) {
        const node_id c = nodes[i];
        if (h(c) == x && rank_[c] < rank_[b] && (last_rank == none || rank_[c] > last_rank)) {
          dlo = std::min(dlo, std::max(sec_lo_[c], slo));
          dhi = std::max(dhi, std::min(sec_hi_[c], shi));
        }
      }
    }
    return dfs(nodes, slo, shi, left, x, rank_[b], dlo, std::max(dlo, dhi));
  }

  /// Whether some section boundary inside b's lifetime (and [slo, shi)) has no unplaced node crossing
  /// it: the part then splits there (decomposition).
  bool has_zero_cut(node_id b, std::uint32_t slo, std::uint32_t shi) const noexcept {
    for (std::uint32_t k = std::max(sec_lo_[b], slo); k + 1 < std::min(sec_hi_[b], shi); ++k)
      if (cuts_[k] == 0) return true;
    return false;
  }
  /// The part's split points after b was placed: slo, each zero cut inside b's lifetime, shi.
  std::vector<std::uint32_t> split_points(node_id b, std::uint32_t slo, std::uint32_t shi) const {
    std::vector<std::uint32_t> points{slo};
    for (std::uint32_t k = std::max(sec_lo_[b], slo); k + 1 < std::min(sec_hi_[b], shi); ++k)
      if (cuts_[k] == 0) points.push_back(k + 1);
    points.push_back(shi);
    return points;
  }

  /// A search frame's share of a stack of entries shared by the frames (dfs's candidates, vdfs's
  /// valleys): [base, size) while the frame lives, so a state allocates nothing once the stack has grown.
  template <class T>
  struct stack_frame {
    explicit stack_frame(std::vector<T>& v) noexcept : v(v), base(v.size()) {}
    ~stack_frame() { v.resize(base); }
    stack_frame(const stack_frame&) = delete;
    stack_frame& operator=(const stack_frame&) = delete;
    std::vector<T>& v;
    std::size_t base;
  };

  /// (d): no unplaced neighbor of c (with skyline hc) can ever reach below hc + size(c).
  bool forced(node_id c, std::uint64_t hc) const noexcept {
    const std::uint64_t t = hc + size_[c];
    for (node_id d : g_.neighbors(c))
      if (!placed_[d] && h(d) < t) return false;
    return true;
  }

  // ---- (f) valley branching ------------------------------------------------------------------------

  /// (f) needs lifetimes that say exactly who interferes: v's neighbors are the nodes whose lifetimes
  /// overlap v's, so h(v) = align_up(the highest floor among v's sections). Checked by counting:
  /// overlapping lifetimes are adjacent (the search's precondition), so equal counts mean equal sets.
  bool lifetimes_match_graph(std::span<const interval> life) const {
    std::vector<program_point> begins, ends;
    for (const interval& i : life) {
      if (i.empty()) return false;
      begins.push_back(i.begin);
      ends.push_back(i.end);
    }
    std::sort(begins.begin(), begins.end());
    std::sort(ends.begin(), ends.end());
    for (std::size_t v = 0; v < n_; ++v) {
      const auto before = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), life[v].begin) - ends.begin());
      const auto after = static_cast<std::size_t>(begins.end() - std::lower_bound(begins.begin(), begins.end(), life[v].end));
      if (g_.degree(static_cast<node_id>(v)) != n_ - 1 - before - after) return false;
    }
    return true;
  }

  /// A valley: a maximal run [a, b) of sections holding unplaced nodes whose floors align up to the same
  /// y, with both bordering sections higher (their floors `left`, `right`; unbounded: a wall, i.e. the
  /// part's end or a section no unplaced node is alive in).
  struct valley {
    std::uint32_t a = 0, b = 0;
    std::uint64_t y = 0, left = 0, right = 0;
  };
  /// One branch of (f): node c at y (none: nothing at y in the valley), and the sections [wlo, whi) of
  /// the valley left empty at y raised to `level`.
  struct vbranch {
    node_id c = none;
    std::uint32_t wlo = 0, whi = 0;
    std::uint64_t level = 0;
    std::uint64_t key = 0;  // branch order: empty width, then contacts (more first), then rank
    bool viable = true;
  };

  /// What scan_valley reads of a valley [a, b), the same from both ends (so computed once per valley):
  /// pre[i] / suf[i], the largest rem in [a, a + i) / [a + i, b); min_hi[i] / min_lo[i], the smallest
  /// unplaced node lying inside [a, a + i) / [a + i, b).
  struct valley_tables {
    std::vector<std::uint64_t> pre, suf, min_lo, min_hi;
    std::vector<std::uint8_t> to_end, from_start;  // (g): [a + i, b) / [a, a + i) can be covered at y
  };

  /// Fills vt_ for valley v.
  void prepare_valley(const valley& v) {
    constexpr std::uint64_t inf = std::numeric_limits<std::uint64_t>::max();
    const std::uint32_t w = v.b - v.a;
    vt_.pre.assign(w + 1, 0);
    vt_.suf.assign(w + 1, 0);
    vt_.min_hi.assign(w + 1, inf);
    vt_.min_lo.assign(w + 1, inf);
    for (std::uint32_t i = 0; i < w; ++i) vt_.pre[i + 1] = std::max(vt_.pre[i], rem_[v.a + i]);
    for (std::uint32_t i = w; i-- > 0;) vt_.suf[i] = std::max(vt_.suf[i + 1], rem_[v.a + i]);
    // (g): which stretches of the valley the nodes that can lie at y cover, full sections all covered;
    // from_start grows forward with the scan below, to_end backward after it.
    const bool cover = opt_.valley_cover;
    vt_.from_start.assign(w + 1, 0);
    vt_.from_start[0] = 1;
    const auto at_y = [&](node_id c) { return h(c) == v.y && v.y <= cap_ - size_[c]; };
    for (std::uint32_t k = v.a; k < v.b; ++k) {
      const std::uint32_t i = k - v.a;
      const bool reached = cover && vt_.from_start[i];
      if (reached && !full_[k]) vt_.from_start[i + 1] = 1;
      for (node_id c : unplaced_starting(k))
        if (sec_hi_[c] <= v.b) {
          vt_.min_hi[sec_hi_[c] - v.a] = std::min(vt_.min_hi[sec_hi_[c] - v.a], size_[c]);
          vt_.min_lo[i] = std::min(vt_.min_lo[i], size_[c]);
          if (reached && at_y(c)) vt_.from_start[sec_hi_[c] - v.a] = 1;
        }
    }
    for (std::uint32_t i = 0; i < w; ++i) vt_.min_hi[i + 1] = std::min(vt_.min_hi[i + 1], vt_.min_hi[i]);
    for (std::uint32_t i = w; i-- > 0;) vt_.min_lo[i] = std::min(vt_.min_lo[i], vt_.min_lo[i + 1]);
    if (!cover) return;
    vt_.to_end.assign(w + 1, 0);
    vt_.to_end[w] = 1;
    for (std::uint32_t i = w; i-- > 0;) {
      const std::uint32_t k = v.a + i;
      std::uint8_t r = !full_[k] && vt_.to_end[i + 1];
      for (node_id c : unplaced_starting(k))
        if (!r && sec_hi_[c] <= v.b && at_y(c) && vt_.to_end[sec_hi_[c] - v.a]) r = 1;
      vt_.to_end[i] = r;
    }
  }

  /// Counts the viable branches of valley v (prepare_valley(v) done) from its left end (`right` false:
  /// which node at y is the leftmost) or its right end, and appends every branch to `out` if given. A
  /// branch is viable unless its raise fails the look-ahead of (c) (level + rem(k) > capacity in a raised
  /// section k), leaves room a node inside the raised sections fits in ((b1)), or has no level to raise
  /// to (walls).
  std::size_t scan_valley(const valley& v, bool right, std::vector<vbranch>* out) {
    constexpr std::uint64_t inf = std::numeric_limits<std::uint64_t>::max();
    const std::uint32_t w = v.b - v.a;
    // Raising the prefix [a, a + i) (suffix [a + i, b) when `right`) to `level`.
    auto viable = [&](std::uint32_t i, std::uint64_t level) {
      const bool empty = right ? i == w : i == 0;
      if (empty) return true;
      if (level == unbounded) return false;
      const std::uint64_t rem = right ? vt_.suf[i] : vt_.pre[i];
      const std::uint64_t small = right ? vt_.min_lo[i] : vt_.min_hi[i];
      if (opt_.section_cuts && (rem > cap_ || level > cap_ - rem)) return false;
      if (opt_.gap_dominance && small != inf && v.y + small <= level) return false;
      return true;
    };
    std::size_t count = 0;
    for (std::uint32_t k = v.a; k < v.b; ++k)
      for (node_id c : unplaced_starting(k)) {
        if (sec_hi_[c] > v.b || h(c) != v.y || v.y > cap_ - size_[c]) continue;
        if (twin_[c] != none && !placed_[twin_[c]]) continue;  // (b2)
        // (g) drops the branches it proves dead from the list, but leaves the counts that choose the valley
        // alone: fewer branches there would steer (f) to other valleys, a different walk, not a shorter one.
        if (out && opt_.valley_cover && !(right ? vt_.from_start[k - v.a] : vt_.to_end[sec_hi_[c] - v.a])) continue;
        const std::uint64_t level = std::min(right ? v.right : v.left, v.y + size_[c]);
        const std::uint32_t i = right ? sec_hi_[c] - v.a : k - v.a;
        const bool ok = viable(i, level);
        count += ok;
        if (out) {
          const std::uint32_t width = right ? w - i : i;
          out->push_back({c, right ? sec_hi_[c] : v.a, right ? v.b : k, level,
                          (std::uint64_t{width} << 34) + (std::uint64_t{2 - (opt_.flush_first ? contacts(v, c) : 0)} << 32) + rank_[c],
                          ok});
        }
      }
    // Nothing at y anywhere in the valley: all of it rises to the lower border.
    const std::uint64_t level = std::min(v.left, v.right);
    const bool ok = viable(right ? 0 : w, level);
    count += ok;
    if (out) out->push_back({none, v.a, v.b, level, inf, ok});
    return count;
  }

  /// How many of valley v's borders candidate c (at v.y) would be flush with: c starts (ends) at the
  /// valley's start (end) and its top is the left (right) border's floor. The branch order tries the
  /// branches that leave the least empty width first, then the ones with more contacts, then by rank: a
  /// placement flush with its neighbors makes one level of two ("maximal touching perimeter" in packing
  /// heuristics), and in a memory full to the byte most buffers end flush with their neighbors (a dead
  /// buffer's space is taken by new ones that fill it exactly). Order only: every branch is still tried.
  std::uint64_t contacts(const valley& v, node_id c) const noexcept {
    const std::uint64_t top = v.y + size_[c];
    return std::uint64_t{sec_lo_[c] == v.a && top == v.left} + std::uint64_t{sec_hi_[c] == v.b && top == v.right};
  }

  /// A valley with its viable branch counts from each end (scan_valley), as listed by list_valleys.
  struct counted_valley {
    valley v;
    std::size_t count[2] = {0, 0};  // from the left end, from the right end
  };
  /// Where a vdfs state's valleys may differ from its parent's: the parent's list (vlist_[base, end))
  /// and the sections [lo, hi) whose floor or rem the branch between them changed (the placed node's
  /// lifetime and the raised sections, which are adjacent: one range).
  struct valley_hint {
    std::size_t base = 0, end = 0;
    std::uint32_t lo = 0, hi = 0;
  };

  /// Appends to vlist_ the valleys among the runs of [from, to) (`from` starts a run or is a wall, `to`
  /// ends one or is a wall or shi), each with its counts: a run is a maximal stretch of sections holding
  /// unplaced nodes whose floors align up to one y; a valley is a run both of whose borders are higher.
  void list_valleys(std::uint32_t from, std::uint32_t to, std::uint32_t slo, std::uint32_t shi) {
    auto level_of = [&](std::uint32_t k) { return rem_[k] == 0 ? unbounded : floor_[k]; };
    for (std::uint32_t k = from; k < to;) {
      if (rem_[k] == 0) {
        ++k;
        continue;
      }
      valley v;
      v.a = k;
      v.y = align_up(floor_[k]);
      while (k < shi && rem_[k] != 0 && align_up(floor_[k]) == v.y) ++k;
      v.b = k;
      v.left = v.a > slo ? level_of(v.a - 1) : unbounded;
      v.right = v.b < shi ? level_of(v.b) : unbounded;
      if ((v.left != unbounded && align_up(v.left) < v.y) || (v.right != unbounded && align_up(v.right) < v.y))
        continue;  // not a local minimum
      prepare_valley(v);
      if (opt_.valley_cover && !vt_.to_end[0])
        vlist_.push_back({v, {0, 0}});  // (g): no cover of its full sections at y: the state is dead
      else
        vlist_.push_back({v, {scan_valley(v, false, nullptr), scan_valley(v, true, nullptr)}});
    }
  }

  /// Lists this state's valleys at the end of vlist_: all of [slo, shi) at a part's first state; else
  /// the parent's list, with the runs around the changed sections listed anew. A valley's counts depend
  /// only on the floors and rem of its sections and of its two borders (the skylines and twins they
  /// read are functions of those floors: see lifetimes_match_graph), so the parent's valleys that
  /// neither contain nor border a changed section keep theirs. The runs listed anew go from the start of
  /// the run holding lo - 1 to the end of the run holding hi: every run outside is unchanged, with its
  /// borders.
  void list_state_valleys(std::uint32_t slo, std::uint32_t shi, const valley_hint* parent) {
    if (!parent) return list_valleys(slo, shi, slo, shi);
    const auto same_run = [&](std::uint32_t k, std::uint32_t j) {
      return rem_[k] != 0 && rem_[j] != 0 && align_up(floor_[k]) == align_up(floor_[j]);
    };
    std::uint32_t r0 = std::max(parent->lo, slo), r1 = std::min(parent->hi, shi);
    if (r0 > slo && rem_[r0 - 1] != 0) {
      --r0;
      while (r0 > slo && same_run(r0 - 1, r0)) --r0;
    }
    if (r1 < shi && rem_[r1] != 0)
      while (r1 + 1 < shi && same_run(r1, r1 + 1)) ++r1;
    if (r1 < shi && rem_[r1] != 0) ++r1;  // past the run holding hi (r1 was its last section)
    for (std::size_t i = parent->base; i < parent->end && vlist_[i].v.b <= r0; ++i) vlist_.push_back(vlist_[i]);
    list_valleys(r0, r1, slo, shi);
    for (std::size_t i = parent->base; i < parent->end; ++i)
      if (vlist_[i].v.a >= r1) vlist_.push_back(vlist_[i]);
  }

  /// The valley and end of (f) with the fewest viable branches among vlist_[from, end) (ties: the
  /// lowest, then the leftmost, the left end first), or a count of 0 when some valley has none (the
  /// state fails). The best valley's prepare_valley tables are left in place for scan_valley.
  std::size_t pick_valley(std::size_t from, valley& best, bool& best_right) {
    std::size_t best_count = std::numeric_limits<std::size_t>::max();
    for (std::size_t i = from; i < vlist_.size(); ++i)
      for (bool right : {false, true}) {
        const std::size_t c = vlist_[i].count[right];
        if (c < best_count || (c == best_count && vlist_[i].v.y < best.y)) {
          best_count = c;
          best = vlist_[i].v;
          best_right = right;
          if (c == 0) return 0;
        }
      }
    if (best_count != std::numeric_limits<std::size_t>::max()) prepare_valley(best);
    return best_count;
  }

  /// Raises the floors of sections [lo, hi) to `level`, and the skylines of their unplaced nodes with them.
  void raise(std::uint32_t lo, std::uint32_t hi, std::uint64_t level) {
    log_.push_back({none, trail_.size(), ftrail_.size()});
    const std::uint64_t la = align_up(level);
    for (std::uint32_t k = lo; k < hi; ++k) {
      if (floor_[k] < level) {
        ftrail_.push_back({k, floor_[k]});
        track_section(k, -1);
        floor_[k] = level;
        track_section(k, +1);
      }
      for (node_id u : unplaced_alive(k))
        if (top_[u] < la) {
          trail_.push_back({u, top_[u]});
          track_skyline(u, -1);
          top_[u] = la;
          track_skyline(u, +1);
        }
    }
  }

  /// The state's memo key under (f): the unplaced nodes and the floors of the sections holding them
  /// determine everything below (skylines, rem, the valleys), whatever order led here.
  memo_key valley_key(const std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi) const {
    memo_key key{mix(slo + (std::uint64_t{shi} << 32) + 0x5BD1E995ull), mix(0xA0761D6478BD642Full ^ slo ^ (std::uint64_t{shi} << 20))};
    for (node_id c : nodes)
      if (!placed_[c]) fold(key, {vkey_[c][0], vkey_[c][1]}, +1);
    for (std::uint32_t k = slo; k < shi; ++k)
      if (rem_[k] != 0) fold(key, floor_term(k), +1);
    return key;
  }

  /// Adds (+1) or takes away (-1) term t of a memo key: a sum in `a`, an exclusive or in `b`.
  static void fold(memo_key& key, const memo_key& t, int sign) noexcept {
    key.a = sign > 0 ? key.a + t.a : key.a - t.a;
    key.b ^= t.b;
  }
  /// (a): node c has no room left at its skyline.
  bool no_room(node_id c) const noexcept { return h(c) > cap_ - size_[c]; }

  /// Node c's terms of the level order's memo key (dfs): its skyline and id.
  memo_key level_term(node_id c) const noexcept {
    const std::uint64_t hc = h(c);
    return {mix(hc * 0x9E3779B97F4A7C15ull + c), mix(hc + (std::uint64_t{c} << 40) + 0x632BE59BD9B4E019ull)};
  }
  /// level_term summed over the unplaced nodes of `nodes`, or of the whole problem.
  memo_key level_sum(std::span<const node_id> nodes) const {
    memo_key sum{0, 0};
    for (node_id c : nodes)
      if (!placed_[c]) fold(sum, level_term(c), +1);
    return sum;
  }
  /// Called around every change of top_[c] and of placed_[c] (-1 before, +1 after): keeps this lane's
  /// running sums up to date, over_ (the unplaced nodes with no room left: (a) under (f)) or lsum_ (node
  /// c's level_term, the level order).
  void track_skyline(node_id c, int sign) noexcept {
    if (!valley_) {
      fold(lsum_, level_term(c), sign);
    } else if (no_room(c)) {
      over_ = sign > 0 ? over_ + 1 : over_ - 1;
    }
  }
  /// How many unplaced nodes of `nodes` have no room left at their skyline (what over_ counts).
  std::size_t count_over(std::span<const node_id> nodes) const noexcept {
    std::size_t k = 0;
    for (node_id c : nodes) k += !placed_[c] && no_room(c);
    return k;
  }

  /// Section k's terms of valley_key (when it holds unplaced nodes).
  memo_key floor_term(std::uint32_t k) const noexcept {
    return {mix(floor_[k] * 0xD6E8FEB86659FD93ull + k), mix(floor_[k] + (std::uint64_t{k} << 40) + 0x8EBC6AF09C88C6E3ull)};
  }

  /// valley_key's terms over the whole problem, without the part's header: what vsum_ tracks.
  memo_key valley_sum() const {
    memo_key sum{0, 0};
    for (std::size_t c = 0; c < n_; ++c)
      if (!placed_[c]) fold(sum, {vkey_[c][0], vkey_[c][1]}, +1);
    for (std::uint32_t k = 0; k < sections(); ++k)
      if (rem_[k] != 0) fold(sum, floor_term(k), +1);
    return sum;
  }

  /// vsum_ without (`sign` -1) or with (+1) section k's terms, if it holds unplaced nodes; called around
  /// every change of floor_[k] or rem_[k] while (f) runs.
  void track_section(std::uint32_t k, int sign) noexcept {
    if (valley_ && rem_[k] != 0) fold(vsum_, floor_term(k), sign);
  }
  void track_node(node_id v) noexcept {  // v placed or unplaced: its terms leave or join vsum_
    if (valley_) fold(vsum_, {vkey_[v][0], vkey_[v][1]}, placed_[v] ? -1 : +1);
  }

  /// Depth-first search under (f) over the unplaced nodes of `nodes` (`left` of them), all inside
  /// sections [slo, shi); (c) need only be checked on [dlo, dhi) (the rest passed in the parent and
  /// did not change). Each state picks one valley and branches on which node lies lowest at its left
  /// (or right) end, or on nothing at all at its level; see the header comment, (f).
  outcome vdfs(const std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi, std::size_t left,
               std::uint32_t dlo, std::uint32_t dhi, const valley_hint* parent = nullptr) {
    if (left == 0) return outcome::ok;
    if (opt_.section_cuts && !section_cut(dlo, dhi, 0, none, false)) {
      ++st_.pruned_section;
      return outcome::fail;
    }
    assert(over_ - over_ctx_ == count_over(nodes));
    if (opt_.bound && over_ != over_ctx_) {  // (a): some unplaced node of the part has no room left
      ++st_.pruned_bound;
      return outcome::fail;
    }
    const memo_key key{vsum_.a - ctx_.a, vsum_.b ^ ctx_.b};
    assert(key == valley_key(nodes, slo, shi));
    if (opt_.memo && failed_.contains(key)) {
      ++st_.pruned_memo;
      return outcome::fail;
    }
    valley v;
    bool right = false;
    const stack_frame<counted_valley> frame(vlist_);
    list_state_valleys(slo, shi, parent);
    const valley_hint mine{frame.base, vlist_.size(), 0, 0};
    const stack_frame<vbranch> branches(vbranches_);  // this state's branches: [branches.base, end)
    if (pick_valley(frame.base, v, right) == 0) {
      ++st_.pruned_valley;
    } else {
      scan_valley(v, right, &vbranches_);  // pick_valley left v's tables in place
      const auto first = vbranches_.begin() + static_cast<std::ptrdiff_t>(branches.base);
      vbranches_.erase(std::remove_if(first, vbranches_.end(), [](const vbranch& x) { return !x.viable; }), vbranches_.end());
      std::sort(vbranches_.begin() + static_cast<std::ptrdiff_t>(branches.base), vbranches_.end(),
                [](const vbranch& x, const vbranch& y) { return x.key < y.key; });
    }
    const std::size_t end = vbranches_.size();
    for (std::size_t i = branches.base; i < end; ++i) {
      const vbranch x = vbranches_[i];  // a copy: the children's branches may move the stack
      ++st_.nodes;
      if (out_of_budget()) return outcome::abort;
      const std::size_t mark = log_.size();
      if (x.c != none) place(x.c, v.y);
      if (x.wlo < x.whi) raise(x.wlo, x.whi, x.level);
      st_.deepest = std::max<std::uint64_t>(st_.deepest, placed_count_);
      const outcome o = valley_child(nodes, slo, shi, left - (x.c != none ? 1 : 0), x, mine);
      if (o == outcome::ok) return o;
      undo_to(mark);
      ++st_.backtracks;
      if (o == outcome::abort) return o;
    }
    if (opt_.memo && failed_.size() < memo_cap_) failed_.insert(key);
    return outcome::fail;
  }

  /// After branch x of (f) is applied: split at zero cuts inside the placed node's lifetime, or go on
  /// with (c) checked where floors, rem or skylines changed (x's sections and its unplaced nodes').
  outcome valley_child(const std::vector<node_id>& nodes, std::uint32_t slo, std::uint32_t shi, std::size_t left,
                       const vbranch& x, valley_hint hint) {
    std::uint32_t lo = shi, hi = slo;
    auto cover = [&](std::uint32_t a, std::uint32_t b) {
      lo = std::min(lo, std::max(a, slo));
      hi = std::max(hi, std::min(b, shi));
    };
    if (x.c != none) {
      if (opt_.decompose && has_zero_cut(x.c, slo, shi)) return solve_parts(nodes, split_points(x.c, slo, shi));
      cover(sec_lo_[x.c], sec_hi_[x.c]);
      for (node_id u : g_.neighbors(x.c))
        if (!placed_[u]) cover(sec_lo_[u], sec_hi_[u]);
    }
    if (x.wlo < x.whi) {
      cover(x.wlo, x.whi);
      for (std::uint32_t k = x.wlo; k < x.whi; ++k)
        for (node_id u : unplaced_alive(k)) cover(sec_lo_[u], sec_hi_[u]);
    }
    // The sections whose floor or rem changed: x.c's lifetime and the raised ones, side by side.
    hint.lo = std::min(x.wlo < x.whi ? x.wlo : shi, x.c != none ? sec_lo_[x.c] : shi);
    hint.hi = std::max(x.wlo < x.whi ? x.whi : slo, x.c != none ? sec_hi_[x.c] : slo);
    assert(hint.lo < hint.hi);
    return vdfs(nodes, slo, shi, left, lo, std::max(lo, hi), &hint);
  }

  static std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finalizer
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

  /// (c) on sections [lo, hi): base(k) = max(floor(k), last, min over unplaced nodes c alive in k of h(c)).
  /// Each section stops at the first unplaced node low enough, so loose sections cost little.
  bool section_cut(std::uint32_t lo, std::uint32_t hi, std::uint64_t last, std::uint32_t last_rank,
                   bool lift) noexcept {
    for (std::uint32_t k = lo; k < hi; ++k) {
      if (rem_[k] == 0) continue;
      if (rem_[k] > cap_) return false;
      const std::uint64_t room = cap_ - rem_[k];  // the highest base section k can afford
      if (floor_[k] > room || last > room) return false;
      // (e): a passed node lands at or above last + its smallest neighbor.
      const auto low = [&](node_id c) {
        const std::uint64_t hc = h(c);
        if (hc > room) return false;  // too high, passed or not (a passed node's floor lies above last >= hc)
        const bool passed = lift && (hc < last || (hc == last && last_rank != none && rank_[c] < last_rank));
        const std::uint64_t lo = !passed ? hc : min_nb_[c] > room ? unbounded : align_up(last + min_nb_[c]);
        return lo <= room;
      };
      // The node that was low here last time is tried first: it often still is (a cache, no rule).
      const node_id w = witness_[k];
      if (w != none && !placed_[w] && low(w)) continue;
      bool found = false;
      for (node_id c : unplaced_alive(k))
        if (low(c)) {
          witness_[k] = c;
          found = true;
          break;
        }
      if (!found) return false;
    }
    return true;
  }

  void place(node_id b, std::uint64_t x) {
    log_.push_back({b, trail_.size(), ftrail_.size()});
    track_skyline(b, -1);
    placed_[b] = 1;
    track_node(b);
    ++placed_count_;
    off_[b] = x;
    const std::uint64_t t = x + size_[b], ta = align_up(t);
    for (node_id u : g_.neighbors(b)) {
      if (placed_[u] || top_[u] >= ta) continue;
      trail_.push_back({u, top_[u]});
      track_skyline(u, -1);
      top_[u] = ta;
      track_skyline(u, +1);
    }
    if (valley_ok_)
      behind_front(starts_[sec_lo_[b]], unstarted_[sec_lo_[b]], b, [&](node_id v) -> std::uint32_t& { return spos_[v]; });
    if (sections_) {
      for (std::uint32_t k = sec_lo_[b]; k < sec_hi_[b]; ++k) {
        behind_front(alive_[k], unplaced_[k], b, [&](node_id v) -> std::uint32_t& { return apos(v, k); });
        track_section(k, -1);
        rem_[k] -= size_[b];
        if (floor_[k] < t) {
          ftrail_.push_back({k, floor_[k]});
          floor_[k] = t;
        }
        track_section(k, +1);
      }
      for (std::uint32_t k = sec_lo_[b]; k + 1 < sec_hi_[b]; ++k) --cuts_[k];
    }
  }

  /// Moves b from the unplaced front of `list` (its first `front` entries) to just behind it, by a swap
  /// with the front's last entry (`pos(v)`: where v sits in `list`). Undo (LIFO) only moves the boundary
  /// back: b is then the front's last entry again.
  template <class Pos>
  static void behind_front(std::vector<node_id>& list, std::uint32_t& front, node_id b, Pos pos) {
    const std::uint32_t i = pos(b), j = --front;
    const node_id u = list[j];
    list[j] = b;
    list[i] = u;
    pos(u) = i;
    pos(b) = j;
  }

  /// Undoes placements until `mark` remain in the log.
  void undo_to(std::size_t mark) {
    while (log_.size() > mark) {
      const log_entry e = log_.back();
      log_.pop_back();
      while (trail_.size() > e.trail) {
        const node_id u = trail_.back().first;
        track_skyline(u, -1);
        top_[u] = trail_.back().second;
        track_skyline(u, +1);
        trail_.pop_back();
      }
      if (e.node == none) {  // a raise of (f): floors and skylines only
        while (ftrail_.size() > e.ftrail) {
          const std::uint32_t k = ftrail_.back().first;
          track_section(k, -1);
          floor_[k] = ftrail_.back().second;
          track_section(k, +1);
          ftrail_.pop_back();
        }
        continue;
      }
      placed_[e.node] = 0;
      if (valley_ok_) ++unstarted_[sec_lo_[e.node]];
      track_node(e.node);
      track_skyline(e.node, +1);
      --placed_count_;
      if (sections_) {
        // e.node's sections are the only ones its ftrail entries name: take their terms out of vsum_
        // before rem and the floors go back, and put them in after.
        for (std::uint32_t k = sec_lo_[e.node]; k < sec_hi_[e.node]; ++k) {
          track_section(k, -1);
          rem_[k] += size_[e.node];
          ++unplaced_[k];  // e.node is at the new last place of the front (place() put it there)
        }
        for (std::uint32_t k = sec_lo_[e.node]; k + 1 < sec_hi_[e.node]; ++k) ++cuts_[k];
        while (ftrail_.size() > e.ftrail) {
          floor_[ftrail_.back().first] = ftrail_.back().second;
          ftrail_.pop_back();
        }
        for (std::uint32_t k = sec_lo_[e.node]; k < sec_hi_[e.node]; ++k) track_section(k, +1);
      }
    }
  }

  std::size_t memo_cap_ = std::size_t{1} << 22;  // failed states kept (each of the race's lanes: half)
  print_set failed_;
  std::vector<std::uint32_t> scratch_;  // dfs's candidate lists, a stack (stack_frame)
  std::uint64_t variant_ = 0;

  struct log_entry {
    node_id node;
    std::size_t trail, ftrail;
  };

  const interference_graph& g_;
  std::size_t n_;
  std::uint64_t cap_;
  std::uint64_t align_;
  bool align_pow2_ = (align_ & (align_ - 1)) == 0;
  linear_search_options opt_;
  std::vector<std::uint64_t> size_, top_, off_, length_, min_nb_;  // min_nb_: smallest neighbor (unbounded: none)  // top_[v] = h(v), already aligned
  std::vector<std::uint8_t> placed_;
  std::vector<node_id> twin_;
  std::vector<std::uint32_t> rank_;
  bool sections_ = false;
  std::vector<std::uint32_t> sec_lo_, sec_hi_, cuts_;
  std::vector<std::uint64_t> rem_, floor_;
  std::vector<std::vector<node_id>> alive_;  // per section, the nodes alive in it: unplaced ones first
  std::vector<std::uint32_t> unplaced_;       // per section, how many of alive_[k] are unplaced
  std::vector<node_id> witness_;              // per section, the last unplaced node (c) found low there
  std::vector<std::uint8_t> full_;            // per section: its nodes' sizes add up to the capacity
  std::vector<std::size_t> apos_base_;        // apos_: per node, its place in alive_[k] for each section
  std::vector<std::uint32_t> apos_;           //   k of its lifetime, from apos_base_[v]
  std::vector<std::pair<node_id, std::uint64_t>> trail_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> ftrail_;
  std::vector<log_entry> log_;
  search_stats st_;
  std::uint64_t attempt_limit_ = std::numeric_limits<std::uint64_t>::max();
  bool aborted_ = false;
  int lane_ = -1;                   // the race's lane: 0 (f), 1 the level order; -1 no race (level order)
  lane_race* race_ = nullptr;       // set while a lane runs a part
  std::uint64_t part_base_ = 0;     // st_.nodes when the lane began the current part
  std::uint64_t race_next_ = 0;     // the part's node count of the next tick
  bool stopped_ = false;            // the other lane decided the current part in fewer nodes
  static constexpr std::uint64_t no_quota = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t quota_ = no_quota;  // nodes of the part before stopping (lane 1 run after lane 0)
  std::size_t part_mark_ = 0;       // log_ when the lane began the current part
  std::function<void()> start_other_;  // lane 0 of the race, before its first tick: starts lane 1
  std::size_t placed_count_ = 0;
  bool valley_ok_ = false;                   // (f) is on and applicable (lifetimes match the graph)
  bool valley_ = false;                      // the current round uses (f)
  memo_key vsum_{0, 0};                      // (f): valley_key's terms summed over the whole problem
  memo_key lsum_{0, 0};                      // the level order: level_term summed over the unplaced nodes
  memo_key ctx_{0, 0};                       // what the lane's sum holds outside the part being searched
  std::size_t over_ = 0, over_ctx_ = 0;      // (a): unplaced nodes with h + size > capacity; outside the part
  std::vector<std::vector<node_id>> starts_;  // (f): per section, the nodes whose lifetime starts there,
  std::vector<std::uint32_t> unstarted_;      //   unplaced ones first (unstarted_[k] of them), as alive_
  std::vector<std::uint32_t> spos_;           // (f): where v sits in starts_[sec_lo_[v]]
  std::vector<std::array<std::uint64_t, 2>> vkey_;  // (f): per node, its two terms of valley_key
  valley_tables vt_;                   // (f): prepare_valley's, for scan_valley
  std::vector<counted_valley> vlist_;  // (f): the vdfs frames' valley lists, a stack (stack_frame)
  std::vector<vbranch> vbranches_;     // (f): the vdfs frames' branches, a stack (stack_frame)
};

/// Whether `deadline` (time_point::max(): none) has passed.
inline bool past(std::chrono::steady_clock::time_point deadline) {
  return deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() > deadline;
}
/// The next turn's budget: four times this one, never past `limit`. (An unbounded limit, the default,
/// made budget * 4 overflow to 0 after 26 turns: gca-pack --search without --search-nodes then never
/// returned on a full problem it could not place in time.)
inline std::uint64_t next_turn(std::uint64_t budget, std::uint64_t limit) { return budget > limit / 4 ? limit : budget * 4; }

/// The hand-off search (engine/chain_search.hpp) on one problem, forward in time and, where that applies
/// too (and `chain_reverse`), on its time reverse (each live range [b, e) as [T - e, T - b): the same
/// pairs overlap, so a placement of one is a placement of the other, and a tiling of the whole box is
/// full at every point both ways). Why both: on planted long-short problems the cost of one direction
/// says little of the other's (docs/PERFORMANCE.md section 1, "Restarts, both ways in time"). Each walk
/// keeps its failed states and its place in its restarts from one run() to the next. Not movable (the
/// walks point at its members): construct it where it stays. No walk applies when `enabled` is false
/// or a size is not a multiple of `align` (the walks' offsets are sums of sizes).
template <class D = void>
class handoff_walks {
 public:
  handoff_walks(std::span<const interval> life, std::span<const std::uint64_t> bytes, std::uint64_t cap,
                std::uint64_t align, std::uint64_t limit, const linear_search_options& opt, bool enabled = true)
      : on_(enabled && std::all_of(bytes.begin(), bytes.end(), [&](std::uint64_t b) { return b % align == 0; })),
        reversed_(on_ && opt.chain_reverse ? reversed(life) : std::vector<interval>{}),
        fwd_(on_ ? life : std::span<const interval>{}, bytes, cap, limit, opt.deadline),
        rev_(reversed_, bytes, cap, limit, opt.deadline) {
    for (chain_searcher<D>* c : {&fwd_, &rev_})
      if (c->applicable()) c->set_restarts(opt.chain_restarts), walks_.push_back(c);
  }
  handoff_walks(const handoff_walks&) = delete;
  handoff_walks& operator=(const handoff_walks&) = delete;

  /// Whether some direction is full at every point (the walks apply).
  bool applicable() const noexcept { return !walks_.empty(); }
  /// Nodes walked so far, both directions.
  std::uint64_t nodes() const noexcept { return fwd_.nodes() + rev_.nodes(); }
  /// Walks on until each direction has walked `budget` / (directions) nodes in all, or one finds offsets
  /// that `accept` takes; returns those offsets, or nothing.
  template <class Accept>
  std::vector<std::uint64_t> run(std::uint64_t budget, Accept&& accept) {
    for (chain_searcher<D>* c : walks_) {
      std::vector<std::uint64_t> off = c->run(budget / walks_.size());
      if (!off.empty() && accept(off)) return off;
    }
    return {};
  }

 private:
  static std::vector<interval> reversed(std::span<const interval> life) {
    program_point horizon = 0;
    for (const interval& i : life) horizon = std::max(horizon, i.end);
    std::vector<interval> out;
    for (const interval& i : life) out.push_back({horizon - i.end, horizon - i.begin});
    return out;
  }
  bool on_;
  std::vector<interval> reversed_;
  chain_searcher<D> fwd_, rev_;  // D: dependent, so that defining the walks instantiates nothing
  std::vector<chain_searcher<D>*> walks_;
};

/// The buffers of sizes `bytes` at the first offsets of `off` as a found search_result (a completion's
/// fillers, after its buffers, dropped).
template <class = void>
search_result found_at(std::span<const std::uint64_t> off, std::span<const std::uint64_t> bytes) {
  search_result r;
  r.status = search_status::found;
  for (std::size_t v = 0; v < bytes.size(); ++v) {
    r.placements.push_back(placement{0, off[v]});
    r.peak = std::max(r.peak, off[v] + bytes[v]);
  }
  return r;
}

/// The hand-off search (handoff_walks) in turns with `other` (the skyline search, given its options
/// with a node limit), while the hand-off search has budget left: turns of 4,096 nodes each, then four
/// times as many, and so on; the two directions share the hand-off search's turn. Returns the first
/// decisive answer (a placement `accept` takes, or `other`'s proof), or gave_up with every node
/// counted, also when neither direction is full at every point (or a size is not a multiple of the
/// alignment: offsets are sums of sizes) and nothing was tried.
template <class Accept, class Other, class D = void>
search_result chain_turns(std::span<const extent> extents, std::span<const interval> lifetimes, std::uint64_t cap,
                          std::uint64_t align, const linear_search_options& opt, Accept&& accept, Other&& other) {
  search_result out;
  if (!opt.handoff_chains || lifetimes.empty()) return out;
  std::vector<std::uint64_t> bytes;
  for (const extent& e : extents) bytes.push_back(e.bytes);
  const std::uint64_t limit = std::min(opt.node_limit, opt.chain_node_limit);
  handoff_walks<D> walks(lifetimes, bytes, cap, align, limit, opt);
  if (!walks.applicable()) return out;
  std::uint64_t spent = 0;  // the other search's nodes in its turns
  auto count = [&](search_result& r) {
    r.stats.chain_nodes = walks.nodes();
    r.stats.nodes = spent + r.stats.chain_nodes;
  };
  search_result found;
  auto take = [&](std::span<const std::uint64_t> off) {
    found = found_at(off, bytes);
    count(found);
    return accept(found);
  };
  for (std::uint64_t budget = 4096;; budget = next_turn(budget, limit)) {  // the deadline ends them too
    if (!walks.run(std::min(budget, limit), take).empty()) return found;
    if (budget >= limit || past(opt.deadline)) break;
    linear_search_options o = opt;
    o.node_limit = std::min(budget, opt.node_limit);
    search_result s = other(o);
    spent += s.stats.nodes;
    if (s.status != search_status::gave_up) {
      count(s);
      return s;
    }
  }
  count(out);
  return out;
}

/// One guess of filler_turns: a completion (engine/completion.hpp) as the skyline search needs it
/// (graph, extents) and its hand-off walks (it is full at every point; `walk` false: none), each
/// searching B / `share` nodes in a turn of B. Constructed in place, never moved (the walks point at
/// `p`); `dropped` once a search proves it holds no placement.
template <class D = void>
struct filler_guess {
  filler_guess(completed_problem c, std::uint64_t cap, std::uint64_t align, const linear_search_options& opt,
               bool walk, std::uint64_t sh)
      : p(std::move(c)), g(graph_of(p.life)), ext(extents_of(p.bytes)),
        walks(p.life, p.bytes, cap, align, opt.node_limit, opt, walk), share(sh) {}
  completed_problem p;
  interference_graph g;
  std::vector<extent> ext;
  handoff_walks<D> walks;
  std::uint64_t share;
  bool dropped = false;

 private:
  static interference_graph graph_of(std::span<const interval> life) {
    live_range_table t;
    for (const interval& i : life) t.add(i);
    return build_interference(t);
  }
  static std::vector<extent> extents_of(std::span<const std::uint64_t> bytes) {
    std::vector<extent> ext;
    for (std::uint64_t b : bytes) ext.push_back({1, b});
    return ext;
  }
};

/// Where the hand-off search does not apply (the memory is not full at every point, either way in
/// time): the problem with fillers (engine/completion.hpp), full at every point, in three guesses of
/// the free space's shape, in turns with `other` (the skyline search on the problem as given, with its
/// node limit) on budgets that grow fourfold from 4,096 nodes, up to the node limit or the deadline.
/// Why: with its memory full at every point, (c) and (g) prune in every section and the hand-off walks
/// apply; the problem as given has a few percent free in most of them, where they prune a wrong choice
/// only once the waste exceeds the slack (docs/PERFORMANCE.md section 1, "Fillers" and "Whole fillers
/// first"). A completion is a guess, not the problem: its placement counts only if `accept` takes it
/// (the buffers without the fillers, checked like any placement), and its proof of infeasibility drops
/// it and proves nothing. In a turn of B nodes `other` goes first on B; then the whole-first guess's
/// hand-off walks go on to B / 2 nodes in all and its skyline search runs afresh on B / 2; then the
/// skyline search on the newest-first and the oldest-first guesses, afresh on B / 4 each. Why so: on
/// planted `uniform` problems the walks on the whole-first guess place most (the other two guesses with
/// shares as large took its turns' nodes and placed fewer), on planted `cut` problems the skyline
/// search on the other two places some that it misses (section 1, "Whole fillers first").
/// Returns the first decisive answer (an accepted placement, or `other`'s proof or placement), or
/// gave_up with every node counted; nothing was tried when no completion exists (the problem is full
/// already, or a free amount is no multiple of the alignment).
template <class Accept, class Other, class D = void>
search_result filler_turns(std::span<const extent> extents, std::span<const interval> lifetimes, std::uint64_t cap,
                           std::uint64_t align, const linear_search_options& opt, Accept&& accept, Other&& other) {
  search_result out;
  if (opt.node_limit <= 4096) return out;  // no turn would run: the guesses are not built
  std::vector<std::uint64_t> bytes;
  for (const extent& e : extents) bytes.push_back(e.bytes);
  std::deque<filler_guess<D>> guesses;  // a deque: the guesses never move
  struct kind {
    filler_order order;
    bool walks;
    std::uint64_t share;
  };
  for (const kind k : {kind{filler_order::whole, true, 2}, kind{filler_order::newest, false, 4},
                       kind{filler_order::oldest, false, 4}}) {
    if (past(opt.deadline)) break;  // a guess builds its own interference graph
    std::optional<completed_problem> c = full_completion(lifetimes, bytes, cap, align, k.order);
    if (c) guesses.emplace_back(std::move(*c), cap, align, opt, k.walks && opt.filler_walks && opt.handoff_chains, k.share);
  }
  std::size_t live = guesses.size();
  std::uint64_t spent = 0;
  search_result found;
  auto take = [&](std::span<const std::uint64_t> off) {
    found = found_at(off, bytes);
    found.stats.nodes = spent;
    return accept(found);
  };
  for (std::uint64_t budget = 4096;; budget = next_turn(budget, opt.node_limit)) {
    // then `other` alone, on the whole budget (search_placement)
    if (live == 0 || budget >= opt.node_limit || past(opt.deadline)) break;
    linear_search_options o = opt;
    o.node_limit = budget;
    search_result s = other(o);  // first: where it decides, the turns cost it a third more nodes
    spent += s.stats.nodes;
    if (s.status != search_status::gave_up) {
      s.stats.nodes = spent;
      return s;
    }
    for (filler_guess<D>& f : guesses) {
      if (f.dropped) continue;
      if (past(opt.deadline)) break;  // each guess's search starts afresh: its set-up is O(buffers) or more
      o.node_limit = std::max<std::uint64_t>(1, budget / f.share);
      if (f.walks.applicable()) {
        const std::uint64_t before = f.walks.nodes();
        const bool hit = !f.walks.run(o.node_limit, take).empty();
        spent += f.walks.nodes() - before;
        if (hit) {
          found.stats.nodes = spent;
          return found;
        }
      }
      search_result r = placement_search<D>(f.g, f.ext, f.p.life, cap, align, o).run();
      spent += r.stats.nodes;
      if (r.status == search_status::infeasible) {  // this guess holds no placement: dropped
        f.dropped = true, --live;
        continue;
      }
      if (!r.found()) continue;
      std::vector<std::uint64_t> off;
      for (const placement& pl : r.placements) off.push_back(pl.offset);
      if (take(off)) return found;
    }
  }
  out.stats.nodes = spent;
  return out;
}

/// The most bytes live at once (max_live_sum, liveness/interval.hpp) of nodes with these sizes and lifetimes.
template <class = void>
std::uint64_t max_live_bytes(std::span<const extent> extents, std::span<const interval> lifetimes) {
  return max_live_sum(lifetimes.size(), [&](std::size_t v) { return lifetimes[v]; }, [&](std::size_t v) { return extents[v].bytes; });
}

/// The search at one capacity (search_placement without its max-live turn).
template <linear_search_geometry Geometry, class D = void>
search_result search_at_capacity(const interference_graph& g, std::span<const extent> extents,
                                 std::span<const interval> lifetimes, const Geometry& geom,
                                 const linear_search_options& opt) {
  const std::size_t n = g.num_nodes();
  if (extents.size() != n || (!lifetimes.empty() && lifetimes.size() != n))
    throw input_error("search_placement: extents and lifetimes need one entry per graph node");
  std::uint64_t total = 0;
  for (const extent& e : extents) {
    if (e.partitions != 1) throw input_error("search_placement: only 1-D extents (partitions == 1) are supported");
    total = e.bytes > unbounded - total ? unbounded : total + e.bytes;
  }
  std::uint64_t cap = std::min(geom.capacity(), opt.capacity);
  if (cap == unbounded) cap = total;
  const std::uint64_t align = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(geom.alignment()));
  // Legal, within the capacity, no two neighbors overlapping: the geometry's own predicates.
  auto invalid_at = [&](const search_result& x) -> std::optional<node_id> {
    for (node_id v = 0; v < n; ++v) {
      if (!geom.legal(extents[v], x.placements[v]) || geom.end(extents[v], x.placements[v]) > cap) return v;
      for (node_id u : g.neighbors(v))
        if (u > v && geom.overlaps(extents[v], x.placements[v], extents[u], x.placements[u])) return v;
    }
    return std::nullopt;
  };
  std::optional<handoff_merge> merged;
  if (opt.merge_handoffs && !lifetimes.empty()) merged = merge_handoffs(g, extents, lifetimes, cap);
  auto other = [&](const linear_search_options& o) {  // the skyline search (and its race)
    if (!merged) return detail::placement_search<D>(g, extents, lifetimes, cap, align, o).run();
    // the merged problem, then each node at its chain's offset (engine/presolve.hpp)
    search_result m = detail::placement_search<D>(merged->graph, merged->extents, merged->lifetimes, cap, align, o).run();
    m.stats.merged = merged->merged;
    if (m.found()) {
      std::vector<placement> mine(n);
      for (node_id v = 0; v < n; ++v) mine[v] = m.placements[merged->rep[v]];
      m.placements = std::move(mine);
    }
    return m;
  };
  // The hand-off search where the memory is full at every point (engine/chain_search.hpp), in turns with
  // the other search on budgets that grow fourfold (4,096 nodes each first), up to its own limit; then
  // the other search alone. What either finds is checked like any placement; the turns cost the other
  // search at most a third more nodes than its last one (it starts each turn afresh).
  auto accept = [&](search_result& c) { return !invalid_at(c); };
  search_result r = detail::chain_turns(extents, lifetimes, cap, align, opt, accept, other);
  if (r.status == search_status::gave_up && r.stats.chain_nodes == 0 && opt.fillers && !lifetimes.empty() &&
      !detail::past(opt.deadline)) {  // the hand-off search did not apply: the fillers' turns instead
    search_result f = detail::filler_turns(extents, lifetimes, cap, align, opt, accept, other);
    f.stats.nodes += r.stats.nodes;
    r = std::move(f);
  }
  if (r.status == search_status::gave_up && !detail::past(opt.deadline)) {
    search_result last = other(opt);
    last.stats.nodes += r.stats.nodes;
    last.stats.chain_nodes = r.stats.chain_nodes;
    r = std::move(last);
  }
  if (!r.found()) return r;
  if (const auto v = invalid_at(r))  // an independent check of the search
    throw std::logic_error("search_placement: the search returned an invalid placement for node " + std::to_string(*v));
  return r;
}

}  // namespace detail

/// Searches for a placement of every node of `g` within the capacity (the smaller of the geometry's and
/// `opt.capacity`; if both are unbounded, the sum of all sizes, which always fits). `lifetimes` is empty
/// (graph-only search, no section cuts) or one interval per node that agrees with the graph (overlapping
/// lifetimes => adjacent). Throws input_error on wrong span lengths or extents with partitions != 1.
template <detail::linear_search_geometry Geometry>
search_result search_placement(const interference_graph& g, std::span<const extent> extents,
                               std::span<const interval> lifetimes, const Geometry& geom,
                               const linear_search_options& opt = {}) {
  constexpr auto no_limit = std::numeric_limits<std::uint64_t>::max();
  constexpr auto no_deadline = std::chrono::steady_clock::time_point::max();
  const bool bounded = opt.node_limit != no_limit || opt.deadline != no_deadline;
  if (!opt.max_live_turns || lifetimes.empty() || lifetimes.size() != extents.size() || !bounded)
    return detail::search_at_capacity(g, extents, lifetimes, geom, opt);
  const std::uint64_t cap = std::min(geom.capacity(), opt.capacity);
  const std::uint64_t live = detail::max_live_bytes(extents, lifetimes);
  if (live == 0 || live >= cap) return detail::search_at_capacity(g, extents, lifetimes, geom, opt);
  // Turns on budgets that grow fourfold (4,096 nodes first): the capacity, then max-live, each afresh,
  // until the capacity's turn has the whole node limit (or the clock runs out). A turn that decides at
  // the capacity, or finds inside max-live, ends it. So a problem the capacity's first turn decides is
  // answered as before, and one decided later costs at most about 8/3 of its own nodes.
  std::uint64_t spent = 0, chain = 0;
  auto tally = [&](search_result& r) {
    spent += r.stats.nodes;
    chain += r.stats.chain_nodes;
    r.stats.nodes = spent;
    r.stats.chain_nodes = chain;
  };
  for (std::uint64_t budget = 4096;; budget = detail::next_turn(budget, opt.node_limit)) {
    linear_search_options at = opt;
    at.node_limit = std::min(budget, opt.node_limit);
    search_result r = detail::search_at_capacity(g, extents, lifetimes, geom, at);
    tally(r);
    if (r.status != search_status::gave_up || at.node_limit == opt.node_limit || detail::past(opt.deadline)) return r;
    linear_search_options tight = at;
    tight.capacity = live;
    search_result t = detail::search_at_capacity(g, extents, lifetimes, geom, tight);
    tally(t);
    if (t.found()) return t;  // inside max-live, so inside the capacity
  }
}

}  // namespace gca
