// gca/engine/chain_search.hpp — the hand-off search: 1-D problems whose memory is full at every point.
//
// Provides `detail::chain_searcher`, which search_placement (engine/search.hpp) runs first, on a node
// budget of its own, when a 1-D problem is full at every point (below). It answers found (offsets, which
// the caller checks against the graph and the geometry) or nothing (gave up, or the problem is not of
// that kind); never "infeasible".
//
// Why. The skyline search fixes buffers in offset order and the time sweep fixes the first birth's whole
// arrangement before anything else; on problems full at every point whose buffers mostly live briefly
// (the planted `long-short` family), a wrong first arrangement is refuted only births later, and there
// are hundreds of thousands of them (docs/PERFORMANCE.md section 1, "The hand-off search"). Here nothing
// is arranged before a hand-off needs it.
//
// Full at every point: the buffers born at the first point have the capacity as their total, and at
// every later birth t (up to the last) the buffers born at t have the total of those dying at t. Then in
// any placement the memory is tiled at every point, so the buffers dying at t lie in maximal runs of
// adjacent dying buffers ("holes"), and the newborns of t tile each hole exactly, in some order.
// Conversely, a sequence of such hand-offs is a placement: each newborn takes a place some dying
// buffers leave at its birth, and survivors never move.
//
// State: chains. A chain is a sequence of live buffers known to lie side by side, in this order or its
// reverse; the first birth's buffers start as chains of one (their arrangement is never enumerated), and
// chains only grow, when a hand-off glues them. Different chains are unordered: any order of the final
// chains side by side is a placement (place() says why). At birth t the holes are formed from:
//   inner runs   dying buffers with survivors of the same chain on both sides: a hole of its own, fixed;
//   end runs     dying buffers at a chain's end: a hole alone, or glued to another chain's end run;
//   whole chains chains all of whose buffers die at t: they join any hole (or form one), and vanish.
// Every real hole has this form. Holes kept apart that are in fact adjacent are harmless (the newborns
// of both, side by side, tile the joined hole), so nothing needs them apart. Two ends of one chain, or
// of chains already joined at this birth, are never glued: a ring has no place in a line.
// Then the newborns: which (by class: buffers with the same end and size are interchangeable) tile
// each hole (exact sums; the inner holes first, with a subset-sum check of the ones left), then their
// order in each hole (orders whose runs of equal death are the same are one: such buffers die together,
// so nothing later tells them apart; a hole of whole chains only is a new chain, one order of each
// mirror pair). The newborns join the chains in place of the dying.
// Memory of failed states: the state after a birth is the multiset of chains, each as its runs of
// (end, bytes), up to reversal; the rest of the walk depends on nothing else. For problems full at
// every point the walk is complete (every placement is a path of it, or where dominance below skips an
// order, one with those chains apart is); the budget makes it a try.
//
// Look-ahead (future_fits, fill_fits): a run of buffers of one death d between chain neighbors that
// both outlive d is a hole at d whatever happens before, so d's newborns must make its length; tested on
// entering a birth and for each hole's order before the next hole's orders are walked.
// Dominance (split_points): an order of a glued or whole-chain hole that is two such holes side by side
// is skipped; the walk makes the two holes elsewhere, and two chains do whatever one does.
//
// Backjumps (backjump): a birth whose walk fails without entering the next birth fails for what the
// chains with a buffer dying there hold; the births since the last one that put a buffer into them (or
// one dying there) cannot change that, so the walk unwinds over them at once.
//
// Restarts: the walk is run again and again from the first birth, each time with its choices in another
// seeded order (the newborn classes, the holes' runs and whole chains, and the orders' ranking: classify
// and orders), on Luby budgets, keeping the failed states (run() says why they hold in every order).
// Chronological backtracking spends a walk's budget below a wrong early choice; short walks in many
// orders do not (long-short 200 / 300 of one set, this walk alone on 1,000,000 nodes: 3 / 3 of 20 in
// one walk, 14 / 11 with restarts; docs/PERFORMANCE.md section 1, "Restarts, both ways in time").
//
// Cost: per search node (a multiset, an order, a birth's state) work linear in the live buffers; the
// budget counts nodes. Deterministic: the walk depends only on the problem and the sequence of budgets
// it is given (the deadline can only turn found into nothing).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <gca/engine/print_set.hpp>
#include <gca/ir/types.hpp>
#include <gca/liveness/interval.hpp>

namespace gca::detail {

template <class = void>
class chain_searcher {
  using node_id = std::uint32_t;  // a buffer: its index in the problem (graph/interference.hpp's node_id)

 public:
  chain_searcher(std::span<const interval> life, std::span<const std::uint64_t> size, std::uint64_t cap,
                 std::uint64_t node_limit, std::chrono::steady_clock::time_point deadline)
      : life_(life), size_(size), cap_(cap), budget_(node_limit), deadline_(deadline) {
    prepare();
  }

  /// Whether the problem is full at every point (see the top); run() answers nothing otherwise.
  bool applicable() const noexcept { return applicable_; }
  std::uint64_t nodes() const noexcept { return nodes_; }

  /// Every node's offset when found; empty when the walk gave up (budget, deadline) or does not apply.
  /// The walk runs from the start again and again, each time with its choices in another seeded order
  /// (the first time in the fixed order: larger newborns first, orders lexicographic), on budgets of
  /// 4,096 nodes times the Luby sequence (1 1 2 1 1 2 4 ...), until it finds a placement or nodes()
  /// reaches `limit`. Why restarts: on the planted long-short problems the walk's cost is heavy-tailed
  /// (a wrong choice at an early birth is refuted only many births later, and the walk, backtracking
  /// in time order, spends its budget below it), so many short walks in different orders find what one
  /// long walk does not (docs/PERFORMANCE.md section 1, "Restarts, both ways in time"); Luby's
  /// sequence is within a log factor of the best fixed restart budget for any distribution of costs,
  /// which nobody knows here. They lose nothing: a state is remembered as failed only when its whole
  /// subtree was walked, which holds in any order of choices, so no walk repeats what an earlier one
  /// refuted. A later call goes on where this one stopped (the next budget of the sequence, the failed
  /// states found so far): search_placement takes turns with the other search so. Deterministic for a
  /// given problem and sequence of limits (the deadline can only turn found into nothing).
  std::vector<std::uint64_t> run(std::uint64_t limit) {
    while (applicable_ && !exhausted_ && nodes_ < limit && std::chrono::steady_clock::now() <= deadline_) {
      if (spent_ >= walk_budget()) ++restart_, spent_ = 0;
      const std::uint64_t before = nodes_, left = walk_budget() - spent_;
      limit_ = left >= limit - nodes_ ? limit : nodes_ + left;
      seed_ = restart_;  // 0 first: the fixed order
      std::vector<std::uint64_t> off = walk();
      spent_ += nodes_ - before;
      if (!off.empty()) return off;
      exhausted_ = !aborted_;  // walked out without a placement: every later walk would too (no proof is claimed)
    }
    return {};
  }
  /// The same up to the constructor's node limit.
  std::vector<std::uint64_t> run() { return run(budget_); }
  /// Off: one walk in the fixed order on the whole budget (measures the restarts; leave them on).
  void set_restarts(bool on) noexcept { restarts_ = on; }
  /// Off: no test of the holes fixed at later births (measures it; leave it on).
  void set_lookahead(bool on) noexcept { lookahead_ = on; }
  /// Off: orders that are two holes side by side are walked too (measures split_points; leave it on).
  void set_dominance(bool on) noexcept { dominance_ = on; }
  /// Off: no backjumping over the births a local failure does not depend on (measures it; leave it on).
  void set_backjump(bool on) noexcept { backjump_ = on; }

 private:
  static constexpr std::uint64_t restart_unit = 4096;
  /// The Luby sequence, from i = 0: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
  static std::uint64_t luby(std::uint64_t i) {
    ++i;
    for (;;) {
      std::uint64_t k = 1;
      while ((std::uint64_t{1} << k) - 1 < i) ++k;
      if (i == (std::uint64_t{1} << k) - 1) return std::uint64_t{1} << (k - 1);
      i -= (std::uint64_t{1} << (k - 1)) - 1;
    }
  }
  std::uint64_t walk_budget() const {
    return restarts_ ? luby(restart_) * restart_unit : std::numeric_limits<std::uint64_t>::max();
  }
  /// One walk from the first birth, in the order of seed_, until found or limit_.
  std::vector<std::uint64_t> walk() {
    aborted_ = nodes_ >= limit_;
    if (aborted_) return {};
    unwinding_ = false;  // a jump to the first birth (no choices there) ends the walk
    path_.clear();
    std::vector<std::vector<node_id>> chains;
    for (node_id v : births_[0]) chains.push_back({v});
    if (!birth(1, chains)) return {};
    std::reverse(path_.begin(), path_.end());  // recorded on the way back: first birth first
    return place();
  }

  static constexpr std::uint32_t none = 0xffffffffu;
  using runs_t = std::vector<std::pair<std::uint32_t, std::uint64_t>>;  // (death, bytes), equal deaths merged
  struct newborn_class {
    std::uint32_t death;  // index of its end in times_
    std::uint64_t bytes;
    std::vector<node_id> ids;
  };
  struct inner_run {
    std::uint32_t ci, a, b;
    std::uint64_t len;
  };
  struct end_run {
    std::uint32_t ci;
    bool right;  // the run is at the chain's last buffers
    std::uint64_t len;
  };
  struct whole_chain {
    std::uint32_t ci;
    std::uint64_t len;
  };
  struct hole {
    bool inner = false;
    std::uint32_t run = none;         // inner: index into inner
    std::uint32_t j = none, m = none;  // glued end runs (indices into ends), none: that side free
    std::vector<std::uint32_t> wholes;  // whole chains in it (indices into wholes)
    std::vector<std::uint32_t> counts;  // newborns per class
    std::vector<node_id> fill;          // the newborns in order (phase two)
  };
  /// One birth's walk (the holes of phase one, their orders in phase two).
  struct birth_walk {
    std::uint32_t k = 0;
    const std::vector<std::vector<node_id>>* chains = nullptr;
    std::vector<newborn_class> classes;
    std::vector<std::uint32_t> pool, taken;
    std::vector<inner_run> inner;
    std::vector<end_run> ends;
    std::vector<whole_chain> wholes;
    std::vector<hole> holes;
    std::vector<std::uint8_t> end_used, whole_used;
    std::uint64_t scanned = 0;  // choices of whole chains made (with_wholes)
  };
  /// What place() needs of one birth of the path found.
  struct step {
    std::uint32_t k;
    std::vector<std::vector<node_id>> chains;
    std::vector<inner_run> inner;
    std::vector<end_run> ends;
    std::vector<whole_chain> wholes;
    std::vector<hole> holes;
  };

  /// Times, births, and the test of fullness (see the top); the subset-sum unit.
  template <class = void>
  void prepare() {
    const std::size_t n = life_.size();
    if (n == 0 || size_.size() != n) return;
    for (std::size_t v = 0; v < n; ++v) {
      if (life_[v].empty() || size_[v] == 0) return;
      times_.push_back(life_[v].begin);
      times_.push_back(life_[v].end);
    }
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    auto index = [&](program_point t) {
      return static_cast<std::uint32_t>(std::lower_bound(times_.begin(), times_.end(), t) - times_.begin());
    };
    births_.assign(times_.size(), {});
    std::vector<std::uint64_t> born(times_.size(), 0), dying(times_.size(), 0);
    death_.resize(n);
    unit_ = cap_;
    for (node_id v = 0; v < n; ++v) {
      const std::uint32_t b = index(life_[v].begin);
      death_[v] = index(life_[v].end);
      births_[b].push_back(v);
      born[b] += size_[v];
      dying[death_[v]] += size_[v];
      unit_ = std::gcd(unit_, size_[v]);
    }
    if (born[0] != cap_) return;
    for (std::uint32_t k = 1; k < times_.size(); ++k)
      if (born[k] != 0) last_birth_ = k;
    for (std::uint32_t k = 1; k <= last_birth_; ++k)
      if (born[k] != dying[k]) return;
    // the subset-sum check of inner holes, in units of the sizes' gcd, when that table is small
    if (unit_ != 0 && cap_ / unit_ <= (std::uint64_t{1} << 16)) words_ = static_cast<std::size_t>(cap_ / unit_ / 64 + 1);
    born_ = std::move(born);
    born_sums_table();
    // backjump(): per node the index of its birth, per birth the latest birth of a node dying there
    born_at_.resize(n);
    feeder_.assign(times_.size(), 0);
    for (node_id v = 0; v < n; ++v) {
      born_at_[v] = index(life_[v].begin);
      feeder_[death_[v]] = std::max(feeder_[death_[v]], born_at_[v]);
    }
    applicable_ = true;
  }

  /// Whether the holes a chain (its runs, add_run) already fixes at later births can be tiled (a
  /// necessary test, run on entering a birth). A run of buffers of one death d, with a neighbor on each
  /// side in its chain that lives past d, is a hole at d whatever happens before: nothing between the
  /// neighbors changes until d, and they stay. So the newborns of d must make its length (a subset sum).
  /// Without it a chain glued wrongly at birth k is refuted only at d, after every arrangement of the
  /// births between (long-short problems).
  bool future_fits(const runs_t& runs) const {
    for (std::size_t r = 1; r + 1 < runs.size(); ++r) {
      const auto [d, len] = runs[r];
      if (d <= last_birth_ && runs[r - 1].first > d && runs[r + 1].first > d && !fits_alone(d, len)) return false;
    }
    return true;
  }
  /// Whether a hole of len bytes at birth d can be tiled by d's newborns, alone.
  bool fits_alone(std::uint32_t d, std::uint64_t len) const {
    if (len > born_[d]) return false;
    const std::uint64_t u = len / unit_;
    return born_row_.empty() || (born_sums_[born_row_[d] + u / 64] >> (u % 64) & 1);
  }
  /// Per birth the sums (in units) its newborns make, with bounded counts, up to what is born there:
  /// rows of born_[k] / unit_ / 64 + 1 words, so the table grows with the buffers' total size in units,
  /// and is left out (fits_alone tests the length alone) beyond 2^22 words (32 MiB) or without units.
  template <class = void>
  void born_sums_table() {
    if (words_ == 0) return;
    std::vector<std::size_t> row(last_birth_ + 2, 0);
    for (std::uint32_t k = 1; k <= last_birth_; ++k)
      row[k + 1] = row[k] + static_cast<std::size_t>(born_[k] / unit_ / 64 + 1);
    if (row[last_birth_ + 1] > (std::size_t{1} << 22)) return;
    born_sums_.assign(row[last_birth_ + 1], 0);
    for (std::uint32_t k = 1; k <= last_birth_; ++k) {
      std::uint64_t* bits = &born_sums_[row[k]];
      bits[0] = 1;
      for (node_id v : births_[k]) add_copy(bits, row[k + 1] - row[k], static_cast<std::size_t>(size_[v] / unit_));
    }
    born_row_ = std::move(row);
  }

  bool tick() {
    if (stopped()) return false;
    ++nodes_;
    if (nodes_ > limit_ || ((nodes_ & 1023) == 0 && std::chrono::steady_clock::now() > deadline_)) aborted_ = true;
    return !aborted_;
  }
  bool dies_at(node_id v, std::uint32_t k) const { return death_[v] == k; }
  /// Whether the walk stops here: out of budget, or unwinding to a backjump's target (backjump()).
  bool stopped() const { return aborted_ || unwinding_; }

  static std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ull;
  }
  /// Adds a buffer of `death` and `bytes` to runs, merged with the last run if it dies then too.
  static void add_run(runs_t& runs, std::uint32_t death, std::uint64_t bytes) {
    if (!runs.empty() && runs.back().first == death) runs.back().second += bytes;
    else runs.emplace_back(death, bytes);
  }
  /// The print of a sequence of runs; with `either_way`, the same for the sequence and its reverse.
  template <class = void>
  static print_key print_runs(const runs_t& runs, bool either_way) {
    print_key f{1, 2}, r{1, 2};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto& x = runs[i];
      const auto& y = runs[runs.size() - 1 - i];
      f = {mix(f.a, x.first * 0x100000001b3ull ^ x.second), mix(f.b ^ 0x51ed27, x.second * 31 + x.first)};
      r = {mix(r.a, y.first * 0x100000001b3ull ^ y.second), mix(r.b ^ 0x51ed27, y.second * 31 + y.first)};
    }
    return either_way && std::tie(r.a, r.b) < std::tie(f.a, f.b) ? r : f;
  }

  /// The state's print: the chains' prints (each of its runs, either way) sorted and hashed with the birth.
  template <class = void>
  static print_key print(std::uint32_t k, std::vector<print_key>& each) {
    std::sort(each.begin(), each.end(), [](const print_key& x, const print_key& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
    print_key p{mix(7, k), mix(11, k + 1)};
    for (const print_key& e : each) p = {mix(p.a, e.a), mix(p.b, e.b)};
    return p;
  }

  /// Birth k (an index into times_) given the chains just before it; then the births after it.
  template <class = void>
  bool birth(std::uint32_t k, const std::vector<std::vector<node_id>>& chains) {
    if (aborted_) return false;
    if (k > last_birth_) return true;
    // each chain's runs, read once: its print, and the holes it fixes (the look-ahead)
    std::vector<print_key> each;
    runs_t runs;
    bool fits = true;
    for (const auto& c : chains) {
      runs.clear();
      for (node_id v : c) add_run(runs, death_[v], size_[v]);
      each.push_back(print_runs(runs, true));
      fits = fits && (!lookahead_ || future_fits(runs));
    }
    const print_key key = print(k, each);
    if (failed_.contains(key) || !fits) return false;
    birth_walk w;
    w.k = k;
    w.chains = &chains;
    classify(w);
    const std::uint64_t entered = entered_;
    const bool ok = inner_holes(w, 0);
    if (!ok && !aborted_) failed_.insert(key);  // unwinding too: a jump's births fail whole (backjump())
    if (!ok && !aborted_ && !unwinding_ && entered_ == entered && backjump_) backjump(w);
    return ok;
  }
  /// Backjumping, after a local failure at birth w.k (its walk failed without entering the next birth):
  /// such a failure depends only on the chains with a buffer dying at w.k (their runs make the holes,
  /// and what the walk reads beside them is in them) and on w.k's newborns. A chain with no buffer born
  /// at birth b was untouched at b in every choice b has (a birth changes only chains with a buffer dying
  /// there, and puts at least one newborn into each), and where no buffer born at b dies at w.k, every
  /// choice at b leaves the chains with a buffer dying at w.k the same. So every birth after the latest
  /// b that put a buffer into one of those chains or one dying at w.k fails whole: the walk unwinds to b
  /// (orders()) and goes on there, and the births between are remembered as failed, which they are.
  /// Without it such a failure is met again for every arrangement of the births between: a planted
  /// long-short problem of 300 buffers (seed 11810) that the walk gave up on within 1,000,000 nodes is
  /// placed in 21,925. Most local failures depend on the birth just before (on seed 11807, 110,279 local
  /// failures, 94 jumps), so it rarely fires: on 360 held-out planted problems no fit changed
  /// (docs/PERFORMANCE.md section 1, "Backjumps in the hand-off search").
  template <class = void>
  void backjump(const birth_walk& w) {
    std::uint32_t b = feeder_[w.k];
    for (const auto& c : *w.chains) {
      bool dying = false;
      std::uint32_t latest = 0;
      for (node_id v : c) dying = dying || dies_at(v, w.k), latest = std::max(latest, born_at_[v]);
      if (dying) b = std::max(b, latest);
    }
    if (b + 1 < w.k) jump_to_ = b, unwinding_ = true;
  }

  /// The newborns by class (largest first), and each chain's dying runs.
  template <class = void>
  void classify(birth_walk& w) const {
    for (node_id v : births_[w.k]) {
      auto it = std::find_if(w.classes.begin(), w.classes.end(),
                             [&](const newborn_class& c) { return c.death == death_[v] && c.bytes == size_[v]; });
      if (it == w.classes.end()) w.classes.push_back({death_[v], size_[v], {v}});
      else it->ids.push_back(v);
    }
    std::sort(w.classes.begin(), w.classes.end(), [](const newborn_class& x, const newborn_class& y) {
      return x.bytes != y.bytes ? x.bytes > y.bytes : x.death < y.death;
    });
    if (seed_ != 0) {  // a restart: the classes in a seeded order (the multisets' order follows)
      std::uint64_t h = mix(seed_, w.k);
      seeded_shuffle(w.classes, h);
    }
    for (const newborn_class& c : w.classes) w.pool.push_back(static_cast<std::uint32_t>(c.ids.size()));
    w.taken.assign(w.classes.size(), 0);
    const auto& chains = *w.chains;
    for (std::uint32_t ci = 0; ci < chains.size(); ++ci) {
      const auto& c = chains[ci];
      const auto n = static_cast<std::uint32_t>(c.size());
      std::uint32_t dying = 0;
      for (node_id v : c) dying += dies_at(v, w.k) ? 1 : 0;
      if (dying == n) {
        std::uint64_t len = 0;
        for (node_id v : c) len += size_[v];
        w.wholes.push_back({ci, len});
        continue;
      }
      for (std::uint32_t j = 0; j < n;) {
        if (!dies_at(c[j], w.k)) {
          ++j;
          continue;
        }
        const std::uint32_t a = j;
        std::uint64_t len = 0;
        for (; j < n && dies_at(c[j], w.k); ++j) len += size_[c[j]];
        if (a == 0) w.ends.push_back({ci, false, len});
        else if (j == n) w.ends.push_back({ci, true, len});
        else w.inner.push_back({ci, a, j, len});
      }
    }
    if (seed_ != 0) {  // a restart: the holes' parts in a seeded order too (the order they are formed in)
      std::uint64_t h = mix(seed_ ^ 0x2545f491, w.k);
      seeded_shuffle(w.ends, h);
      seeded_shuffle(w.wholes, h);
      seeded_shuffle(w.inner, h);
    }
    w.end_used.assign(w.ends.size(), 0);
    w.whole_used.assign(w.wholes.size(), 0);
  }
  /// Fisher-Yates on the running hash h (advanced, so successive calls draw on one sequence).
  template <class T>
  static void seeded_shuffle(std::vector<T>& v, std::uint64_t& h) {
    for (std::size_t i = v.size(); i > 1; --i) {
      h = mix(h, i);
      std::swap(v[i - 1], v[h % i]);
    }
  }

  /// One scan of each_multiset: the multiset so far, and per class index x the sums (in units) the
  /// pool's classes x.. could make when the scan began (empty: no table).
  struct multiset_scan {
    std::vector<std::uint32_t> cur;
    std::vector<std::uint64_t> reach;  // row x at x * words
    std::size_t words = 0;
    std::uint64_t units = 0;  // the hole's length in units of the sizes' gcd
    std::uint64_t steps = 0;
    bool can(std::size_t x, std::uint64_t sum) const {  // sum in units
      return words == 0 || (reach[x * words + sum / 64] >> (sum % 64) & 1);
    }
  };
  /// Each sub-multiset of the pool whose bytes add up to `length`, the classes in the walk's order;
  /// `visit` sees it with the pool already short of it. Stops at the first visit that returns true.
  /// Only prefixes that can still be completed are extended once a scan is long (64 prefixes): with the
  /// subset-sum table (small capacities in units) a prefix is dropped when the classes after it cannot
  /// make up the rest (with the counts at the scan's start, at least those left further down, so no
  /// completion is cut); and every 64 prefixes extended count a node, so the budget bounds a scan
  /// without the table too. (Built for every scan, the table was most of the walk's time.)
  /// (With neither, one birth of a planted heavy-tailed problem of 300 buffers, many sizes, scanned
  /// dead prefixes for 150 s within 336,000 nodes.)
  template <class Visit>
  bool each_multiset(birth_walk& w, std::uint64_t length, Visit&& visit) {
    multiset_scan s;
    s.cur.assign(w.classes.size(), 0);
    if (unit_ == 0 || length % unit_ != 0 || length > pool_bytes(w)) return false;  // sizes are multiples of unit_
    s.units = length / unit_;
    return multisets_from(w, 0, length, s, visit);
  }
  /// The bytes of the newborns no hole has taken yet.
  static std::uint64_t pool_bytes(const birth_walk& w) {
    std::uint64_t total = 0;
    for (std::size_t y = 0; y < w.classes.size(); ++y) total += w.pool[y] * w.classes[y].bytes;
    return total;
  }
  /// s.reach: row x holds the sums up to s.units that classes x.. of the pool at the scan's start (the
  /// pool now and the multiset so far) make, with bounded counts.
  template <class = void>
  void reachable_sums(const birth_walk& w, multiset_scan& s) const {
    const std::uint64_t units = s.units;
    const std::size_t c = w.classes.size();
    s.words = static_cast<std::size_t>(units / 64 + 1);
    s.reach.assign((c + 1) * s.words, 0);
    s.reach[c * s.words] = 1;
    for (std::size_t x = c; x-- > 0;) {
      std::uint64_t* row = &s.reach[x * s.words];
      std::copy(row + s.words, row + 2 * s.words, row);  // row x+1: none of class x
      const std::size_t sh = static_cast<std::size_t>(w.classes[x].bytes / unit_);
      for (std::uint32_t k = 0; k < w.pool[x] + s.cur[x] && sh <= units; ++k) add_copy(row, s.words, sh);
    }
  }
  /// bits |= bits << sh over `words` words (bits beyond the end dropped): one more copy of a size of sh
  /// units in a subset-sum table with bounded counts. High words first, so each word is read unchanged.
  static void add_copy(std::uint64_t* bits, std::size_t words, std::size_t sh) {
    const std::size_t ws = sh / 64, bs = sh % 64;
    for (std::size_t i = words; i-- > ws;) {
      std::uint64_t moved = bits[i - ws] << bs;
      if (bs != 0 && i > ws) moved |= bits[i - ws - 1] >> (64 - bs);
      bits[i] |= moved;
    }
  }
  template <class Visit>
  bool multisets_from(birth_walk& w, std::size_t x, std::uint64_t rem, multiset_scan& s, Visit& visit) {
    if (rem == 0) return visit(s.cur);
    if (!s.can(x, rem / unit_)) return false;
    for (std::size_t y = x; y < w.classes.size() && !stopped(); ++y) {
      if (w.pool[y] == 0 || w.classes[y].bytes > rem) continue;
      if ((++s.steps & 63) == 0) {  // a long scan: a node, and the table (cheap scans go without it)
        if (!tick()) return false;
        if (s.words == 0 && words_ != 0) reachable_sums(w, s);
      }
      --w.pool[y], ++s.cur[y];
      const bool ok = multisets_from(w, y, rem - w.classes[y].bytes, s, visit);
      ++w.pool[y], --s.cur[y];
      if (ok) return true;
    }
    return false;
  }

  /// Whether the pool's subset sums still reach every inner hole from `from` on (a necessary test).
  template <class = void>
  bool sums_reach(const birth_walk& w, std::size_t from) const {
    if (words_ == 0 || from >= w.inner.size()) return true;
    std::uint64_t longest = 0;  // the sums above the longest hole do not matter
    for (std::size_t j = from; j < w.inner.size(); ++j) longest = std::max(longest, w.inner[j].len / unit_);
    const std::size_t words = std::min(words_, static_cast<std::size_t>(longest / 64 + 1));
    std::vector<std::uint64_t> bits(words, 0);
    bits[0] = 1;
    for (std::size_t y = 0; y < w.classes.size(); ++y)
      for (std::uint32_t c = 0; c < w.pool[y]; ++c) {
        const std::size_t sh = static_cast<std::size_t>(w.classes[y].bytes / unit_);
        if (sh > longest) break;
        add_copy(bits.data(), words, sh);
      }
    for (std::size_t j = from; j < w.inner.size(); ++j) {
      const std::size_t L = static_cast<std::size_t>(w.inner[j].len / unit_);
      if (L / 64 >= words || !((bits[L / 64] >> (L % 64)) & 1)) return false;
    }
    return true;
  }

  /// Phase one, 1: the inner holes, each with a multiset of newborns.
  template <class = void>
  bool inner_holes(birth_walk& w, std::size_t j) {
    if (j == w.inner.size()) return end_holes(w, 0);
    return each_multiset(w, w.inner[j].len, [&](const std::vector<std::uint32_t>& counts) {
      if (!tick()) return false;
      hole h;
      h.inner = true;
      h.run = static_cast<std::uint32_t>(j);
      h.counts = counts;
      w.holes.push_back(std::move(h));
      const bool ok = sums_reach(w, j + 1) && inner_holes(w, j + 1);
      w.holes.pop_back();
      return ok;
    });
  }

  /// Whether chains a and b are joined already through this birth's holes.
  template <class = void>
  bool joined(const birth_walk& w, std::uint32_t a, std::uint32_t b) const {
    std::vector<std::uint32_t> todo{a}, seen{a};
    while (!todo.empty()) {
      const std::uint32_t u = todo.back();
      todo.pop_back();
      if (u == b) return true;
      for (const hole& h : w.holes) {
        if (h.inner || h.j == none || h.m == none) continue;
        const std::uint32_t x = w.ends[h.j].ci, y = w.ends[h.m].ci;
        const std::uint32_t other = x == u ? y : y == u ? x : none;
        if (other != none && std::find(seen.begin(), seen.end(), other) == seen.end()) seen.push_back(other), todo.push_back(other);
      }
    }
    return false;
  }

  /// Phase one, 2: each end run, alone or glued to a later one of another chain, with whole chains.
  template <class = void>
  bool end_holes(birth_walk& w, std::size_t j) {
    while (j < w.ends.size() && w.end_used[j]) ++j;
    if (j == w.ends.size()) return whole_holes(w);
    w.end_used[j] = 1;
    std::vector<std::uint32_t> with;
    bool ok = with_wholes(w, 0, w.ends[j].len, with, static_cast<std::uint32_t>(j), none);
    for (std::size_t m = j + 1; !ok && !stopped() && m < w.ends.size(); ++m) {
      if (w.end_used[m] || w.ends[m].ci == w.ends[j].ci || joined(w, w.ends[j].ci, w.ends[m].ci)) continue;
      w.end_used[m] = 1;
      ok = with_wholes(w, 0, w.ends[j].len + w.ends[m].len, with, static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(m));
      w.end_used[m] = 0;
    }
    w.end_used[j] = 0;
    return ok;
  }

  /// Chooses which whole chains (from x on) join the hole, then its newborns; then the next hole (the
  /// next end run, or, for a hole of whole chains only, the next such hole).
  /// Whole chains only lengthen a hole, so a hole longer than the pool's bytes ends the choice; and the
  /// choices of whole chains made count a node per 64, so the budget bounds them (2^wholes of them: a
  /// birth where 30 chains die whole has a billion, and without these a heavy-tailed problem of 100
  /// buffers spent 8 s in 2,000 nodes).
  template <class = void>
  bool with_wholes(birth_walk& w, std::size_t x, std::uint64_t length, std::vector<std::uint32_t>& with,
                   std::uint32_t j, std::uint32_t m) {
    if (stopped() || length > pool_bytes(w)) return false;
    if ((++w.scanned & 63) == 0 && !tick()) return false;
    if (x == w.wholes.size()) {
      return each_multiset(w, length, [&](const std::vector<std::uint32_t>& counts) {
        if (!tick()) return false;
        hole h;
        h.j = j, h.m = m, h.wholes = with, h.counts = counts;
        w.holes.push_back(std::move(h));
        const bool ok = j != none ? end_holes(w, j + 1) : whole_holes(w);
        w.holes.pop_back();
        return ok;
      });
    }
    if (w.whole_used[x]) return with_wholes(w, x + 1, length, with, j, m);
    if (with_wholes(w, x + 1, length, with, j, m)) return true;
    if (stopped()) return false;
    w.whole_used[x] = 1;
    with.push_back(static_cast<std::uint32_t>(x));
    const bool ok = with_wholes(w, x + 1, length + w.wholes[x].len, with, j, m);
    with.pop_back();
    w.whole_used[x] = 0;
    return ok;
  }

  /// Phase one, 3: the whole chains no end run took, in holes of their own; then phase two.
  template <class = void>
  bool whole_holes(birth_walk& w) {
    std::size_t x = 0;
    while (x < w.wholes.size() && w.whole_used[x]) ++x;
    if (x == w.wholes.size()) {
      for (std::uint32_t p : w.pool)
        if (p != 0) return false;
      return orders(w, 0);
    }
    w.whole_used[x] = 1;
    std::vector<std::uint32_t> with{static_cast<std::uint32_t>(x)};
    const bool ok = with_wholes(w, x + 1, w.wholes[x].len, with, none, none);
    w.whole_used[x] = 0;
    return ok;
  }

  /// Phase two: the order of each hole's newborns (distinct runs of equal death only); then the chains
  /// after the birth, and the next birth.
  template <class = void>
  bool orders(birth_walk& w, std::size_t h) {
    if (h == w.holes.size()) {
      ++entered_;
      const bool ok = birth(w.k + 1, after(w));
      if (unwinding_ && jump_to_ >= w.k) unwinding_ = false;  // the jump's target: its next choice
      if (!ok) return false;
      path_.push_back({w.k, *w.chains, w.inner, w.ends, w.wholes, w.holes});  // the path, last birth first
      return true;
    }
    hole& o = w.holes[h];
    std::vector<std::uint32_t> items;
    for (std::uint32_t y = 0; y < o.counts.size(); ++y) items.insert(items.end(), o.counts[y], y);
    // orders in lexicographic order of (death, bytes): the newborns that die first nearest the hole's start
    auto rank = [&](std::uint32_t x) {  // a restart ranks classes at random first (seed 0: all equal)
      return seed_ == 0 ? 0 : mix(mix(seed_ ^ 0x5bd1e995, w.classes[x].death), w.classes[x].bytes);
    };
    auto sooner = [&](std::uint32_t x, std::uint32_t y) {
      const auto rx = rank(x), ry = rank(y);
      return std::tie(rx, w.classes[x].death, w.classes[x].bytes) < std::tie(ry, w.classes[y].death, w.classes[y].bytes);
    };
    std::sort(items.begin(), items.end(), sooner);
    const bool mirror = !o.inner && o.j == none && o.m == none;  // a new chain: either direction
    const std::vector<std::uint64_t> cuts = split_points(w, o);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;  // the orders' prints, sorted
    runs_t runs;
    std::uint64_t scanned = 0;
    do {
      // an order counts as a node when it is new; the orders scanned past count a node per 64
      if ((++scanned & 63) == 0 && !tick()) return false;
      runs.clear();
      for (std::uint32_t y : items) add_run(runs, w.classes[y].death, w.classes[y].bytes);
      const print_key key = print_runs(runs, mirror);
      const std::pair<std::uint64_t, std::uint64_t> kp{key.a, key.b};
      const auto at = std::lower_bound(seen.begin(), seen.end(), kp);
      if (at != seen.end() && *at == kp) continue;
      seen.insert(at, kp);
      if (!tick()) return false;
      o.fill.clear();
      for (std::uint32_t y : items) o.fill.push_back(w.classes[y].ids[w.taken[y]++]);
      const bool ok = !(dominance_ && splits(o, cuts)) && (!lookahead_ || fill_fits(w, o)) && orders(w, h + 1);
      for (std::uint32_t y : items) --w.taken[y];
      if (ok) return true;
      if (stopped()) return false;
    } while (std::next_permutation(items.begin(), items.end(), sooner));
    return false;
  }

  /// Where an order of a hole that glues chains or takes whole chains would be two holes side by side:
  /// the lengths (from the hole's start, end run j's side) at which the newborns before them tile j's
  /// end run (if any) and some of the whole chains, and those after them the rest. Dominance: such an
  /// order makes one chain of what the walk also makes as two (the same chains glued: j's end run with
  /// those whole chains and those newborns a hole of its own, the rest another), and two chains do
  /// whatever one does (kept side by side, every later hole of the one is a hole of the two, inner
  /// runs across the seam as two glued end runs), so orders() skips it. Sorted; empty for an inner
  /// hole (its neighbors are fixed) and when the whole chains make over 4,096 sums (not worth it).
  template <class = void>
  std::vector<std::uint64_t> split_points(const birth_walk& w, const hole& o) const {
    std::vector<std::uint64_t> sums{0}, more;
    if (o.inner || (o.wholes.empty() && o.m == none)) return {};
    for (std::uint32_t x : o.wholes) {
      more.clear();
      for (std::uint64_t t : sums) more.push_back(t + w.wholes[x].len);
      const std::size_t n = sums.size();
      sums.insert(sums.end(), more.begin(), more.end());
      std::inplace_merge(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(n), sums.end());
      sums.erase(std::unique(sums.begin(), sums.end()), sums.end());
      if (sums.size() > 4096) return {};
    }
    const std::uint64_t base = o.j != none ? w.ends[o.j].len : 0;
    for (std::uint64_t& t : sums) t += base;
    if (base == 0) sums.erase(sums.begin());  // a hole of whole chains only: each side takes some
    return sums;
  }
  /// Whether the newborns before some point of the order have a length of `cuts` (split_points).
  bool splits(const hole& o, const std::vector<std::uint64_t>& cuts) const {
    std::uint64_t at = 0;
    for (std::size_t i = 0; i + 1 < o.fill.size() && !cuts.empty(); ++i) {
      at += size_[o.fill[i]];
      if (std::binary_search(cuts.begin(), cuts.end(), at)) return true;
    }
    return false;
  }

  /// future_fits for one hole's order, before the other holes' orders are chosen: the runs of one death
  /// d through its newborns (and on through the chain beyond a survivor of death d) whose neighbors
  /// live past d are holes at d, as there. A side of the hole no survivor closes (a free end, a new
  /// chain) and a chain's end are no neighbor. Without it the orders of the other holes are walked for
  /// each order of this one before the next birth refutes them all.
  template <class = void>
  bool fill_fits(const birth_walk& w, const hole& o) {
    side left, right;
    if (o.inner) {
      const inner_run& r = w.inner[o.run];
      left = {&(*w.chains)[r.ci], static_cast<std::ptrdiff_t>(r.a) - 1, -1};
      right = {&(*w.chains)[r.ci], static_cast<std::ptrdiff_t>(r.b), 1};
    } else if (o.j != none) {
      left = survivor_side(w, w.ends[o.j]);  // the fill runs outward from end j (after())
      if (o.m != none) right = survivor_side(w, w.ends[o.m]);
    }
    fixed_.clear();
    const auto& f = o.fill;
    // the survivors' runs beside the hole, now between a newborn and the chain beyond
    bool ok = left.beside(*this, death_[f.front()]) && right.beside(*this, death_[f.back()]);
    for (std::size_t i = 0; ok && i < f.size();) {
      const std::uint32_t d = death_[f[i]];
      std::size_t e = i;
      std::uint64_t len = 0;
      for (; e < f.size() && death_[f[e]] == d; ++e) len += size_[f[e]];
      const std::uint32_t before = i == 0 ? left.extend(*this, d, len) : death_[f[i - 1]];
      const std::uint32_t next = e == f.size() ? right.extend(*this, d, len) : death_[f[e]];
      if (d <= last_birth_ && before > d && next > d) ok = fixed_hole(d, len);
      i = e;
    }
    return ok;
  }
  /// Counts a fixed hole at d of len bytes in one hole's order; whether it can be tiled alone, and the
  /// fixed holes at d of this order together are no longer than what is born at d.
  bool fixed_hole(std::uint32_t d, std::uint64_t len) {
    auto at = std::find_if(fixed_.begin(), fixed_.end(), [&](const auto& x) { return x.first == d; });
    if (at == fixed_.end()) at = fixed_.emplace(fixed_.end(), d, 0);
    at->second += len;
    return at->second <= born_[d] && fits_alone(d, len);
  }
  /// One side of a hole: the chain's buffers from index `at` outward by `step` (no chain: open).
  struct side {
    const std::vector<node_id>* chain = nullptr;
    std::ptrdiff_t at = 0, step = 0;
    /// The death of the neighbor of a run of death d reaching this side, after adding to len the bytes
    /// of the buffers of death d it runs on through; 0 (outlives nothing) when it reaches the chain's end.
    std::uint32_t extend(const chain_searcher& cs, std::uint32_t d, std::uint64_t& len) const {
      if (chain == nullptr) return 0;
      std::ptrdiff_t i = at;
      for (; i >= 0 && i < static_cast<std::ptrdiff_t>(chain->size()) && cs.death_[(*chain)[i]] == d; i += step)
        len += cs.size_[(*chain)[i]];
      return i >= 0 && i < static_cast<std::ptrdiff_t>(chain->size()) ? cs.death_[(*chain)[i]] : 0;
    }
    /// The run of the survivor's death on this side, with the hole's newborn of death `inner` next to
    /// it: whether it can be tiled if that makes it a fixed hole (true when it does not).
    bool beside(chain_searcher& cs, std::uint32_t inner) const {
      if (chain == nullptr) return true;
      const std::uint32_t d = cs.death_[(*chain)[at]];
      std::uint64_t len = 0;
      const std::uint32_t beyond = extend(cs, d, len);
      return d > cs.last_birth_ || inner <= d || beyond <= d || cs.fixed_hole(d, len);
    }
  };
  /// The survivor next to an end run (the chain's nearest buffer not dying at w.k), looking inward.
  side survivor_side(const birth_walk& w, const end_run& r) const {
    const auto& c = (*w.chains)[r.ci];
    std::ptrdiff_t i = r.right ? static_cast<std::ptrdiff_t>(c.size()) - 1 : 0;
    const std::ptrdiff_t step = r.right ? -1 : 1;
    while (dies_at(c[i], w.k)) i += step;
    return {&c, i, step};
  }

  /// The chains after birth w.k: inner runs replaced by their newborns, end runs by theirs, glued to the
  /// chains they were glued to; a hole of whole chains only becomes a chain of its newborns.
  template <class = void>
  std::vector<std::vector<node_id>> after(const birth_walk& w) const {
    const auto& chains = *w.chains;
    std::vector<std::vector<node_id>> live = chains;
    std::vector<const hole*> inner;
    for (const hole& h : w.holes)
      if (h.inner) inner.push_back(&h);
    std::sort(inner.begin(), inner.end(), [&](const hole* x, const hole* y) {
      const inner_run &a = w.inner[x->run], &b = w.inner[y->run];
      return a.ci != b.ci ? a.ci < b.ci : a.a > b.a;  // right to left within a chain: indices stay valid
    });
    for (const hole* h : inner) {
      const inner_run& r = w.inner[h->run];
      auto& c = live[r.ci];
      c.erase(c.begin() + r.a, c.begin() + r.b);
      c.insert(c.begin() + r.a, h->fill.begin(), h->fill.end());
    }
    // per chain end (2 ci + right): the hole glued there and whether its fill runs outward from here
    std::vector<std::uint32_t> at(2 * chains.size(), none);
    std::vector<std::uint8_t> outward(2 * chains.size(), 0), gone(chains.size(), 0);
    for (const whole_chain& x : w.wholes) gone[x.ci] = 1;
    std::vector<std::vector<node_id>> out;
    for (std::uint32_t h = 0; h < w.holes.size(); ++h) {
      const hole& o = w.holes[h];
      if (o.inner) continue;
      if (o.j == none) {
        out.push_back(o.fill);
        continue;
      }
      const end_run& a = w.ends[o.j];
      at[2 * a.ci + a.right] = h, outward[2 * a.ci + a.right] = 1;
      if (o.m != none) {
        const end_run& b = w.ends[o.m];
        at[2 * b.ci + b.right] = h, outward[2 * b.ci + b.right] = 0;
      }
    }
    auto partner = [&](std::uint32_t end) -> std::uint32_t {  // the chain end across the hole at `end`
      const hole& o = w.holes[at[end]];
      const std::uint32_t other = outward[end] ? o.m : o.j;
      return other == none ? none : 2 * w.ends[other].ci + w.ends[other].right;
    };
    auto fill_from = [&](std::uint32_t end, std::vector<node_id>& seq) {  // the hole's fill, from `end` outward
      const auto& f = w.holes[at[end]].fill;
      if (outward[end]) seq.insert(seq.end(), f.begin(), f.end());
      else seq.insert(seq.end(), f.rbegin(), f.rend());
    };
    std::vector<std::uint8_t> done(chains.size(), 0);
    for (std::uint32_t ci = 0; ci < chains.size(); ++ci) {
      if (gone[ci] || done[ci]) continue;
      std::uint32_t end = 2 * ci;  // walk out through the left ends to one extreme of the joined chains
      for (std::size_t guard = 0; at[end] != none && partner(end) != none && guard <= chains.size(); ++guard) {
        const std::uint32_t p = partner(end);
        end = p ^ 1u;  // the far end of the chain across
      }
      std::vector<node_id> seq;
      if (at[end] != none) {  // newborns at the free end: read inward
        std::vector<node_id> f;
        fill_from(end, f);
        seq.insert(seq.end(), f.rbegin(), f.rend());
      }
      for (;;) {
        const std::uint32_t c = end / 2;
        done[c] = 1;
        const auto& body = live[c];
        auto keep = [&](node_id v) {
          if (!dies_at(v, w.k)) seq.push_back(v);
        };
        if (end % 2 == 0) std::for_each(body.begin(), body.end(), keep);
        else std::for_each(body.rbegin(), body.rend(), keep);
        const std::uint32_t far = end ^ 1u;
        if (at[far] == none) break;
        fill_from(far, seq);
        const std::uint32_t p = partner(far);
        if (p == none || done[p / 2]) break;
        end = p;
      }
      out.push_back(std::move(seq));
    }
    return out;
  }

  /// Offsets from the path found. Each chain keeps coordinates of its own (lo, hi): a birth only puts
  /// newborns where dying buffers of the same chains were, so a chain's extent changes only when chains
  /// are glued (the union), and the final chains side by side, in any order, place every buffer: at any
  /// point the chains live then lie within their final chains' extents, apart.
  template <class = void>
  std::vector<std::uint64_t> place() const {
    chain_coordinates at(*this);
    for (const step& s : path_) {
      for (const hole& h : s.holes)
        if (h.inner) at.lay_inner(s, h);
      for (const hole& h : s.holes)
        if (!h.inner && !at.lay_joined(s, h)) return {};
    }
    return at.side_by_side() == cap_ ? at.off : std::vector<std::uint64_t>{};
  }

  /// place()'s coordinates: per buffer its offset and its group (the chain it belongs to, with every
  /// buffer that ever was in it), per group its members and extent [lo, hi).
  struct chain_coordinates {
    const chain_searcher& cs;
    std::vector<std::uint64_t> off;
    std::vector<std::uint32_t> grp;
    std::vector<std::vector<node_id>> members;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ext;

    explicit chain_coordinates(const chain_searcher& c) : cs(c), off(c.life_.size(), 0), grp(c.life_.size(), none) {
      for (node_id v : cs.births_[0]) {
        grp[v] = static_cast<std::uint32_t>(members.size());
        members.push_back({v});
        ext.emplace_back(0, cs.size_[v]);
      }
    }
    void flip(std::uint32_t g) {  // mirror g within its extent
      for (node_id v : members[g]) off[v] = ext[g].first + ext[g].second - off[v] - cs.size_[v];
    }
    void shift(std::uint32_t g, std::uint64_t to) {  // g's lo moved to `to`
      for (node_id v : members[g]) off[v] = off[v] - ext[g].first + to;
      ext[g] = {to, to + ext[g].second - ext[g].first};
    }
    void merge(std::uint32_t a, std::uint32_t b) {
      for (node_id v : members[b]) grp[v] = a, members[a].push_back(v);
      members[b].clear();
      ext[a] = {std::min(ext[a].first, ext[b].first), std::max(ext[a].second, ext[b].second)};
    }
    void lay(const std::vector<node_id>& f, bool up, std::uint64_t o, std::uint32_t g) {
      auto put = [&](node_id v) { off[v] = o, o += cs.size_[v], grp[v] = g, members[g].push_back(v); };
      if (up) std::for_each(f.begin(), f.end(), put);
      else std::for_each(f.rbegin(), f.rend(), put);
    }
    /// An inner hole's newborns where its run was, in the chain's direction there.
    void lay_inner(const step& s, const hole& h) {
      const inner_run& r = s.inner[h.run];
      const auto& c = s.chains[r.ci];
      std::uint64_t o = off[c[r.a]];
      for (std::uint32_t i = r.a; i < r.b; ++i) o = std::min(o, off[c[i]]);
      lay(h.fill, off[c[r.a - 1]] < o, o, grp[c[r.a]]);
    }
    /// The extent [lo, hi) of end run e's buffers (dying at the step's birth).
    std::pair<std::uint64_t, std::uint64_t> run_of(const step& s, const end_run& e) const {
      const auto& c = s.chains[e.ci];
      std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
      for (std::size_t i = 0; i < c.size(); ++i) {
        const node_id v = c[e.right ? c.size() - 1 - i : i];
        if (!cs.dies_at(v, s.k)) break;
        lo = std::min(lo, off[v]), hi = std::max(hi, off[v] + cs.size_[v]);
      }
      return {lo, hi};
    }
    /// Turns end run e's group so that the run lies at the group's top (or bottom): the group and the
    /// run's [lo, hi), or none when neither way puts it there (a bug in the path).
    std::optional<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> turn(const step& s, const end_run& e, bool top) {
      const std::uint32_t g = grp[s.chains[e.ci].front()];
      auto at_edge = [&] {
        const auto [lo, hi] = run_of(s, e);
        return top ? hi == ext[g].second : lo == ext[g].first;
      };
      if (!at_edge()) flip(g);
      if (!at_edge()) return std::nullopt;
      const auto [lo, hi] = run_of(s, e);
      return std::tuple{g, lo, hi};
    }
    /// A hole of end runs and whole chains: the first chain turned so its run is at its top, the whole
    /// chains above it, the last chain turned so its run is at its bottom and above them, all one group,
    /// the newborns over the hole. False if the path does not fit (a bug; the caller then has nothing).
    bool lay_joined(const step& s, const hole& h) {
      std::uint32_t base = none;
      std::uint64_t start = 0, cur = 0;
      if (h.j != none) {
        const auto first = turn(s, s.ends[h.j], true);
        if (!first) return false;
        std::tie(base, start, cur) = *first;
      }
      for (std::uint32_t x : h.wholes) {
        const std::uint32_t g = grp[s.chains[s.wholes[x].ci].front()];
        if (base == none) base = g, start = ext[g].first, cur = ext[g].second;
        else shift(g, cur), cur = ext[g].second, merge(base, g);
      }
      if (h.m != none) {
        const auto last = turn(s, s.ends[h.m], false);
        if (!last) return false;
        const auto [g, lo, hi] = *last;
        if (base == none) base = g, start = lo, cur = hi;
        else shift(g, cur), cur += hi - lo, merge(base, g);
      }
      std::uint64_t len = 0;
      for (node_id v : h.fill) len += cs.size_[v];
      if (base == none || len != cur - start) return false;
      lay(h.fill, true, start, base);
      return true;
    }
    /// The groups left side by side from 0, in index order; where they end.
    std::uint64_t side_by_side() {
      std::uint64_t pos = 0;
      for (std::uint32_t g = 0; g < members.size(); ++g) {
        if (members[g].empty()) continue;
        shift(g, pos);
        pos = ext[g].second;
      }
      return pos;
    }
  };

  std::span<const interval> life_;
  std::span<const std::uint64_t> size_;
  std::uint64_t cap_;
  std::uint64_t budget_;     // the constructor's node limit
  std::uint64_t limit_ = 0;  // the current walk's
  std::chrono::steady_clock::time_point deadline_;
  bool applicable_ = false;
  bool aborted_ = false;
  bool exhausted_ = false;     // a walk ended without a placement and without running out of budget
  bool restarts_ = true;
  std::uint64_t seed_ = 0;     // the walk's order of choices (0: the fixed order)
  std::uint64_t restart_ = 0;  // the walk's index in the Luby sequence
  std::uint64_t spent_ = 0;    // nodes it has spent of its budget
  std::uint64_t nodes_ = 0;
  std::vector<program_point> times_;
  std::vector<std::vector<node_id>> births_;  // per time, the nodes born there
  std::vector<std::uint32_t> death_;          // per node, the index of its end in times_
  std::uint32_t last_birth_ = 0;
  std::uint64_t unit_ = 0;
  std::size_t words_ = 0;  // of the subset-sum table (0: no table)
  std::vector<std::uint64_t> born_;       // per time, the bytes born there
  std::vector<std::uint64_t> born_sums_;  // per birth k, from born_row_[k]: the sums its newborns make
  std::vector<std::size_t> born_row_;     // empty: no table
  runs_t fixed_;                          // fill_fits' scratch: (death, bytes) of one order's fixed holes
  bool lookahead_ = true;
  bool dominance_ = true;
  bool backjump_ = true;
  bool unwinding_ = false;                // unwinding to birth jump_to_ (backjump())
  std::uint32_t jump_to_ = 0;
  std::uint64_t entered_ = 0;             // births entered from a birth's walk (a local failure enters none)
  std::vector<std::uint32_t> born_at_;    // per node, the index of its birth in times_
  std::vector<std::uint32_t> feeder_;     // per birth, the latest birth of a node dying there
  print_set failed_;
  std::vector<step> path_;
};

}  // namespace gca::detail
