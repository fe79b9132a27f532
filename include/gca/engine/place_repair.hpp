// gca/engine/place_repair.hpp — the repair walk of the rectangle memories (SBUF, PSUM): a placement made
// by moving blocks out of each other's way, not by a tree of choices.
//
// Provides `detail::conflict_repairer`, which place_search (engine/place_search.hpp) runs in turns with its
// other walks. The fills, the sweep and the canonical walk decide blocks one after the other and undo the
// latest decision first, so a wrong decision made early is met only after every combination of the later
// ones. Where the memory has room to spare at its busiest points (free space scattered through them: the
// kernels with holes of docs/PERFORMANCE.md section 10) a placement is one of very many, and a wrong
// early decision is usually cheap to mend where it shows, by moving the few blocks in the way. So this
// walk keeps a partial placement and, one move at a time, places a block that is left out at the position
// where the blocks it overlaps cost least, and leaves those out instead (min-conflicts with growing
// weights, the "breakout" scheme of constraint solving). Its rules, each kept for what it placed of the
// SB kernels by sweep with holes 0.1 of seeds 3901-3920 (160 kernels, 100,000 nodes, the walk alone;
// docs/PERFORMANCE.md section 10, "The repair walk"), added in this order:
//   - Positions: the canonical ones of the exact search (a segment's first aligned offset, the aligned top
//     of a placed neighbor that shares a quarter) and their mirror (just below one, and flush with the
//     segment's top), at every allowed start partition. Pushed down (or up) until it meets something, a
//     neighbor or the segment's end, any position reaches one of them. (The segment's top was missing
//     until session 43: on SB kernels by sweep with room above the planted placement, tightness 0.97,
//     the walk alone on 20,000 nodes placed 37 of 40 kernels of 40 tensors without it and 39 with it, at
//     less than half the median nodes; of 60 tensors on 1,000,000-2,000,000 nodes, 17 of 20 and 20 of 20
//     in a quarter of the time; docs/PERFORMANCE.md section 10, "The repair walk meets the top".)
//   - A block's weight is 1 plus the number of times it was placed after being left out, and a position
//     costs the weights of the free blocks it overlaps: blocks that keep coming back become hard to move,
//     and the walk does not cycle between equally cheap positions. Pins are never overlapped.
//   - A block placed in the last `tenure` moves (2: this one and the last) is overlapped only when nothing
//     else is possible, so a block just left out cannot at once leave out the block that took its place.
//   - Among positions of the same cost, one at random: with the lowest (and tenure 3), every block went
//     back where it was: 62 placed; 91 with this rule (tenures 1, 3, 5 and 8: 68, 85, 86 and 78).
//   - The block placed next: one of those left out, at random: the one left out most often first (then
//     the larger area x lifetime) kept turning over the same few blocks: 91; 110 with this rule
//     (tenures 1, 3 and 5: 78, 100 and 88; with it, ties at the lowest position placed 110 as well).
//   - Each overlapped block costs its weight x (1 + footprint / the smallest footprint), footprint =
//     partitions x bytes: a large block left out is hard to place again. Over four seeds of the
//     generator 113-119 placed, 104-112 without this factor (the seed alone moves the count by up to 8).
// The random choices come from a fixed-seed generator: deterministic, the answer depends only on the
// problem and the budget. It never answers "infeasible" (a walk that places nothing within its budget
// proves nothing), and what it places is checked by its caller as every walk's placement is.
//
// Cost per move: for each allowed start (at most 4) the placed neighbors that share a quarter, sorted twice
// (by bottom and by top); the candidate positions merged from those two sorted lists (and the segments'
// ends), and each one's cost read from their prefix sums by two pointers that only move forward: O(d log d)
// for a block of d neighbors, never the pairs among them. (Until session 45 the positions were sorted as one
// list and each cost took two binary searches: the same positions, costs and moves, at 1.37-1.43 times the
// time: g++ -O2, the walk alone on planted SB kernels by sweep at tightness 0.97, 150 tensors 1.42 -> 1.02 us
// a unit, 60 tensors 1.24 -> 0.90, PSUM 60 1.71 -> 1.20.) A move's work is one unit plus one per 32 candidate
// positions weighed (so a unit costs about the same whatever the degree: 1.1-1.5 us in SB before that change,
// measured below), and 8 units count as one search node, so that a budget in nodes bounds the walk's time as
// it bounds the tree walks'. Measured (g++ -O2, SB kernels by sweep: 60 tensors with holes 0.1 and 150 at
// tightness 0.9 and 1; PSUM 40 with holes; each walk alone to its whole budget): a node of the fills costs
// 4.4-17 us, of the sweep 4.8-19, of the canonical walk 6.4-27, growing with the kernel (PSUM 24-35 us),
// against 1.1-1.5 us for a unit (PSUM 2.8): 4-12 units. Until session 39 a unit counted as a node, so the
// walk got an eighth of the time of the others on the same share, and on unpinned SB kernels of 150 tensors
// at tightness 0.9 it placed 0 of 10 on the search's 3/8 of 100,000 nodes, where alone on 2,000,000 units it
// placed 9 of 10 within 2.3 s each (docs/PERFORMANCE.md section 10, "The repair walk's budget").
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <gca/engine/place_fill.hpp>
#include <gca/geometry/detail/start_search.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/graph/interference.hpp>
#include <gca/ir/types.hpp>
#include <gca/watchdog.hpp>

namespace gca::detail {

template <class = void>
class conflict_repairer {
 public:
  /// One node per extent; `graph`: their interference; `pins`: empty or one per node.
  conflict_repairer(std::span<const extent> extents, std::span<const std::optional<placement>> pins,
                    const interference_graph& graph, const rect_layout& lay)
      : ext_(extents), pins_(pins), graph_(graph), lay_(lay), n_(extents.size()) {}

  /// Starts the walk (before its first run) from a state: free node v at at[v] where it has one (left out
  /// instead where that is no legal place, or overlaps a pin or a node placed before it in id order), the
  /// others left out. spill/place_or_prove.hpp starts it from an earlier walk's best state; `at` must
  /// outlive the first run.
  void seed(std::span<const std::optional<placement>> at) { seed_ = at; }

  /// Moves until every node is placed or `max_nodes` search nodes are spent (counted on from `nodes`);
  /// the placements, or nothing. Called again with a larger budget it goes on where it stopped (the same
  /// moves as one call with the larger budget); once it has found a placement it answers it again.
  std::optional<std::vector<placement>> run(std::uint64_t max_nodes, std::chrono::steady_clock::time_point deadline,
                                            std::uint64_t& nodes) {
    if (!started_ && !start()) dead_ = true;
    while (!dead_ && !out_.empty() && nodes < max_nodes) {
      if ((moves_ & 255) == 0 && std::chrono::steady_clock::now() > deadline) break;
      const std::uint64_t work = move();
      watchdog_tick(16 * work);
      work_ += work;
      nodes += work_ / work_per_node;
      work_ %= work_per_node;
      if (out_.size() < best_count_) best_count_ = out_.size(), ++snap_;  // the state now is the best
    }
    if (dead_ || !out_.empty()) return std::nullopt;
    std::vector<placement> at(n_);
    for (node_id v = 0; v < n_; ++v) at[v] = placement{part_[v], off_[v]};
    return at;
  }

  /// The state with the fewest nodes left out so far (the first such): every node's place in it, nothing
  /// for those it left out. Every placed node was then placed, pins kept, without an overlap, so spilling
  /// those left out (and nothing else) leaves a space with a placement. Empty before the first move,
  /// after a placement, or when a node can never be placed. A hint for choosing spills
  /// (spill/place_or_prove.hpp), not a minimum.
  std::vector<std::optional<placement>> best_state() const {
    if (dead_ || !started_ || moves_ == 0 || out_.empty()) return {};
    std::vector<std::optional<placement>> at(n_);
    for (node_id v = 0; v < n_; ++v) {
      const bool saved = stamp_[v] == snap_;
      if (saved ? was_placed_[v] : placed_[v]) at[v] = saved ? was_[v] : placement{part_[v], off_[v]};
    }
    return at;
  }

 private:
  static constexpr std::uint64_t pin_cost = std::numeric_limits<std::uint64_t>::max();  // marks a pin
  static constexpr std::uint64_t tabu_cost = std::uint64_t{1} << 56;  // taken only when nothing else is
  static constexpr std::uint64_t tenure = 2;                          // moves a new block stays put
  // The work a search node stands for: one move plus one per 32 positions weighed is a unit, and a
  // search node of the tree walks (the fills', the sweep's, the canonical walk's) costs about 8 of them
  // (see the top of this header), so that the walk's budget in nodes bounds its time as theirs does.
  static constexpr std::uint64_t work_per_node = 8;

  struct span_of {  // a placed neighbor's bytes in the quarters of a start, and what leaving it out costs
    std::uint64_t lo, hi, cost;
  };
  struct bound {  // a span's bottom or top, then (sorted) the prefix sums of costs and pins up to it
    std::uint64_t at = 0, cost = 0, pins = 0;
  };
  struct choice {
    std::uint64_t cost = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t offset = 0;
    std::uint32_t partition = 0;
  };

  bool pinned(node_id v) const { return !pins_.empty() && pins_[v].has_value(); }
  std::uint64_t footprint(node_id v) const { return std::uint64_t{ext_[v].partitions} * ext_[v].bytes; }
  /// The next number of the walk's generator (a 64-bit LCG, its high bits): fixed seed, so deterministic.
  std::uint64_t random() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return state_ >> 33;
  }

  /// Pins placed, every free node left out; false when a free node has no legal position at all.
  bool start() {
    started_ = true;
    placed_.assign(n_, 0), part_.assign(n_, 0), off_.assign(n_, 0), mask_.assign(n_, 0);
    weight_.assign(n_, 1), since_.assign(n_, 0);
    for (node_id v = 0; v < n_; ++v) {
      if (pinned(v)) {
        placed_[v] = 1, part_[v] = pins_[v]->partition, off_[v] = pins_[v]->offset;
        mask_[v] = quarter_mask(part_[v], ext_[v].partitions);
        continue;
      }
      if (allowed_partition_starts(ext_[v].partitions, lay_.partitions).count == 0 || ext_[v].bytes == 0 ||
          ext_[v].bytes > lay_.segment_bytes)
        return false;
      out_.push_back(v);
      unit_ = std::min(unit_, footprint(v));
    }
    if (seed_.size() == n_) seeded();
    best_count_ = out_.size();
    stamp_.assign(n_, 0), was_placed_.assign(n_, 0), was_.assign(n_, placement{});
    snap_ = 1;  // the state now (nothing free placed) is the best
    return true;
  }

  /// The seed's places taken (see seed): in id order, each where it overlaps nothing placed.
  void seeded() {
    std::vector<node_id> still;
    for (node_id v : out_) {  // in id order: start() lists them so
      bool ok = seed_[v].has_value() && lay_.legal(ext_[v], *seed_[v]);
      if (ok) {
        const std::uint32_t m = quarter_mask(seed_[v]->partition, ext_[v].partitions);
        for (node_id u : graph_.neighbors(v))
          if (placed_[u] && (mask_[u] & m) && off_[u] < seed_[v]->offset + ext_[v].bytes && seed_[v]->offset < off_[u] + ext_[u].bytes)
            ok = false;
      }
      if (!ok) {
        still.push_back(v);
        continue;
      }
      placed_[v] = 1, part_[v] = seed_[v]->partition, off_[v] = seed_[v]->offset;
      mask_[v] = quarter_mask(part_[v], ext_[v].partitions);
    }
    out_ = std::move(still);
  }

  /// One move: a left-out node at its cheapest position, the free nodes it overlaps left out. Returns
  /// its work: 1, plus 1 per 32 positions weighed.
  std::uint64_t move() {
    ++moves_;
    const std::size_t i = random() % out_.size();
    const node_id v = out_[i];
    std::uint64_t weighed = 0;
    const choice c = cheapest(v, weighed);
    if (c.cost == std::numeric_limits<std::uint64_t>::max()) {  // every position meets a pin: never placed
      dead_ = true;
      return 1;
    }
    out_[i] = out_.back(), out_.pop_back();
    place(v, c);
    return 1 + weighed / 32;
  }

  /// Saves v's place in the best state before its first change since (copy on write: a new best state
  /// costs nothing, each change O(1)).
  void keep(node_id v) {
    if (stamp_[v] == snap_) return;
    stamp_[v] = snap_, was_placed_[v] = placed_[v], was_[v] = placement{part_[v], off_[v]};
  }

  void place(node_id v, const choice& c) {
    keep(v);
    const std::uint64_t b = ext_[v].bytes;
    part_[v] = c.partition, off_[v] = c.offset, mask_[v] = quarter_mask(c.partition, ext_[v].partitions);
    for (node_id u : graph_.neighbors(v)) {
      if (!placed_[u] || pinned(u) || !(mask_[u] & mask_[v])) continue;
      if (off_[u] < c.offset + b && c.offset < off_[u] + ext_[u].bytes) keep(u), placed_[u] = 0, out_.push_back(u);
    }
    placed_[v] = 1, since_[v] = moves_;
    ++weight_[v];
  }

  /// What leaving out the placed node u costs (pin_cost for a pin).
  std::uint64_t cost_of(node_id u) const {
    if (pinned(u)) return pin_cost;
    if (moves_ - since_[u] < tenure) return tabu_cost;
    return weight_[u] * (1 + footprint(u) / unit_);
  }

  /// v's cheapest position over its allowed starts, ties at random (`weighed` counts the positions).
  choice cheapest(node_id v, std::uint64_t& weighed) {
    const partition_starts st = allowed_partition_starts(ext_[v].partitions, lay_.partitions);
    choice best;
    std::uint64_t ties = 0;
    segment_ends(ext_[v].bytes);
    for (std::uint32_t k = 0; k < st.count; ++k) {
      const std::uint32_t m = quarter_mask(st.start[k], ext_[v].partitions);
      spans_.clear();
      for (node_id u : graph_.neighbors(v))
        if (placed_[u] && (mask_[u] & m)) spans_.push_back({off_[u], off_[u] + ext_[u].bytes, cost_of(u)});
      bounds();
      candidates(ext_[v].bytes);
      weighed += offsets_.size();
      weigh(ext_[v].bytes, st.start[k], best, ties);
    }
    return best;
  }

  /// The spans' bottoms and tops, each sorted, with the prefix sums of their costs and pins (lows_,
  /// highs_): what candidates and weigh read.
  void bounds() {
    lows_.clear(), highs_.clear();
    for (const span_of& x : spans_) {
      const bool pin = x.cost == pin_cost;
      lows_.push_back({x.lo, pin ? 0 : x.cost, pin}), highs_.push_back({x.hi, pin ? 0 : x.cost, pin});
    }
    auto prefix = [](std::vector<bound>& e) {
      std::sort(e.begin(), e.end(), [](const bound& x, const bound& y) { return x.at < y.at; });
      std::uint64_t sum = 0, pins = 0;
      for (bound& x : e) x.cost = sum += x.cost, x.pins = pins += x.pins;
    };
    prefix(lows_), prefix(highs_);
  }

  /// Each segment's first aligned offset and its top less b (aligned down), sorted: positions for a block
  /// of b bytes whatever its neighbors, so made once a move, not once a start partition (PSUM: 16 a move).
  void segment_ends(std::uint64_t b) {
    const std::uint64_t a = lay_.alignment, seg = lay_.segment_bytes;
    ends_.clear();
    for (std::uint32_t s = 0; s < lay_.segments; ++s) {
      ends_.push_back((std::uint64_t{s} * seg + a - 1) / a * a);
      if (seg >= b) ends_.push_back((std::uint64_t{s} * seg + seg - b) / a * a);
    }
    std::sort(ends_.begin(), ends_.end());
  }
  /// The positions tried for a block of b bytes among spans_: the segments' ends (segment_ends), just
  /// above each span and just below it (aligned), those inside one segment; sorted, without repeats.
  /// Aligning is monotone, so the spans' tops (highs_, sorted) give the positions above them in order and
  /// their bottoms (lows_) those below: three sorted runs merged, not one list sorted (a sixth of the
  /// walk's time when it was).
  void candidates(std::uint64_t b) {
    const std::uint64_t a = lay_.alignment, seg = lay_.segment_bytes;
    auto inside = [&](std::uint64_t o) { return o % seg + b <= seg && o / seg < lay_.segments; };
    ups_.clear(), downs_.clear();
    for (const bound& x : highs_) ups_.push_back((x.at + a - 1) / a * a);
    for (const bound& x : lows_)
      if (x.at >= b) downs_.push_back((x.at - b) / a * a);
    offsets_.clear();
    std::size_t i = 0, j = 0, k = 0;
    for (;;) {  // the smallest head of the three runs, each position once
      std::uint64_t o = std::numeric_limits<std::uint64_t>::max();
      if (i < ends_.size()) o = std::min(o, ends_[i]);
      if (j < ups_.size()) o = std::min(o, ups_[j]);
      if (k < downs_.size()) o = std::min(o, downs_[k]);
      if (i == ends_.size() && j == ups_.size() && k == downs_.size()) break;
      while (i < ends_.size() && ends_[i] == o) ++i;
      while (j < ups_.size() && ups_[j] == o) ++j;
      while (k < downs_.size() && downs_[k] == o) ++k;
      if (inside(o)) offsets_.push_back(o);
    }
  }

  /// Each candidate offset o's cost: the spans that meet [o, o + b) are those that begin below o + b less
  /// those that end at or below o (which begin below it too), so the prefix sums over the spans sorted by
  /// bottom and by top give it; the offsets rise, so two pointers that only move forward find those sums (two
  /// binary searches a position did, and with them the walk took 1.4 times as long). Pins are counted apart
  /// (a position over one is never taken). Keeps the cheapest in `best`, one of `ties` equally cheap ones at
  /// random (reservoir sampling: each of them is kept with the same chance).
  void weigh(std::uint64_t b, std::uint32_t partition, choice& best, std::uint64_t& ties) {
    std::size_t in = 0, gone = 0;  // lows_ below o + b, highs_ at or below o
    for (const std::uint64_t o : offsets_) {
      while (in < lows_.size() && lows_[in].at < o + b) ++in;
      while (gone < highs_.size() && highs_[gone].at <= o) ++gone;
      const bound x = in == 0 ? bound{} : lows_[in - 1], y = gone == 0 ? bound{} : highs_[gone - 1];
      if (x.pins != y.pins) continue;  // over a pin
      const std::uint64_t cost = x.cost - y.cost;
      if (cost < best.cost) ties = 0;
      if (cost > best.cost || random() % ++ties != 0) continue;
      best = {cost, o, partition};
    }
  }

  std::span<const extent> ext_;
  std::span<const std::optional<placement>> pins_;
  const interference_graph& graph_;
  rect_layout lay_;
  std::size_t n_;
  bool started_ = false, dead_ = false;
  std::uint64_t work_ = 0;  // work not yet counted as a node (below work_per_node)
  std::uint64_t moves_ = 0, state_ = 0x9e3779b97f4a7c15ull, unit_ = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint8_t> placed_;
  std::vector<std::uint32_t> part_, mask_;
  std::vector<std::uint64_t> off_, weight_, since_;
  std::vector<node_id> out_;  // left out now
  std::span<const std::optional<placement>> seed_;  // see seed()
  // The best state (fewest left out), copy on write: node v's place there is was_placed_[v] / was_[v]
  // when stamp_[v] == snap_, else its place now.
  std::size_t best_count_ = 0;
  std::uint32_t snap_ = 0;
  std::vector<std::uint32_t> stamp_;
  std::vector<std::uint8_t> was_placed_;
  std::vector<placement> was_;
  std::vector<span_of> spans_;
  std::vector<std::uint64_t> offsets_, ends_, ups_, downs_;
  std::vector<bound> lows_, highs_;
};

}  // namespace gca::detail
