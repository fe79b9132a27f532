// Tests of the exact placement search (gca/engine/search.hpp): exact answers on hand-made and brute-forced
// tiny problems (feasible ones found, infeasible ones proven so), the shared "challenging" DSA files packed
// within their capacity (checked here by an overlap check that does not use the search), and one
// "earns its keep" case per pruning rule (switching the rule off explores more nodes).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <gca/engine/lanes.hpp>
#include <gca/engine/presolve.hpp>
#include <gca/engine/search.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dsa_csv.hpp>
#include <gca/io/planted_dsa.hpp>

using namespace gca;

namespace {

struct buf {
  program_point lo, hi;
  std::uint64_t size;
};

struct instance {
  std::vector<buf> bufs;
  interference_graph g;
  std::vector<extent> ext;
  std::vector<interval> life;
  explicit instance(std::vector<buf> b) : bufs(std::move(b)) {
    live_range_table t;
    for (const buf& x : bufs) {
      t.add(interval{x.lo, x.hi});
      ext.push_back({1, x.size});
      life.push_back({x.lo, x.hi});
    }
    g = build_interference(t);
  }
  search_result run(std::uint64_t cap, linear_search_options o = {}, std::uint64_t align = 1, bool lifetimes = true) const {
    return search_placement(g, ext, lifetimes ? std::span<const interval>(life) : std::span<const interval>(),
                            linear_dram(cap, align), o);
  }
};

/// Independent check: every pair alive together is disjoint in memory, everything inside [0, cap).
bool valid(const std::vector<buf>& b, const std::vector<placement>& p, std::uint64_t cap, std::uint64_t align = 1) {
  if (p.size() != b.size()) return false;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (p[i].offset + b[i].size > cap || p[i].offset % align != 0) return false;
    for (std::size_t j = i + 1; j < b.size(); ++j) {
      const bool together = b[i].lo < b[j].hi && b[j].lo < b[i].hi;
      const bool apart = p[i].offset + b[i].size <= p[j].offset || p[j].offset + b[j].size <= p[i].offset;
      if (together && !apart) return false;
    }
  }
  return true;
}

/// Brute force: does any assignment of aligned offsets fit?
bool brute_feasible(const std::vector<buf>& b, std::uint64_t cap, std::uint64_t align) {
  std::vector<placement> p(b.size());
  auto rec = [&](auto&& self, std::size_t i) -> bool {
    if (i == b.size()) return true;
    for (std::uint64_t o = 0; o + b[i].size <= cap; o += align) {
      p[i].offset = o;
      bool ok = true;
      for (std::size_t j = 0; j < i && ok; ++j)
        if (b[i].lo < b[j].hi && b[j].lo < b[i].hi && o < p[j].offset + b[j].size && p[j].offset < o + b[i].size)
          ok = false;
      if (ok && self(self, i + 1)) return true;
    }
    return false;
  };
  return rec(rec, 0);
}

/// One order, no splits, no memo: node counts show the pruning rules alone. The level-order search
/// (`valley_branching` off) unless `valley`.
linear_search_options bare(bool valley = false) {
  linear_search_options o;
  o.restarts = false;
  o.decompose = false;
  o.memo = false;
  o.valley_branching = valley;
  o.handoff_chains = false;  // the hand-off search has tests of its own (below)
  return o;
}

// Infeasible at capacity 13 although max-live is 13 (found by brute-force search over random instances);
// the four unit buffers at the end add interchangeable work the rules must cut.
const std::vector<buf> core{{0, 4, 1}, {5, 6, 8}, {0, 1, 7}, {1, 3, 6}, {3, 7, 5}, {4, 5, 2}, {2, 5, 6}};

}  // namespace

TEST_CASE("search: tiny exact answers") {
  SUBCASE("three buffers alive together fit exactly, one byte less is infeasible") {
    const instance in({{0, 4, 4}, {1, 3, 4}, {2, 5, 4}});
    const search_result r = in.run(12);
    REQUIRE(r.found());
    CHECK(r.peak == 12);
    CHECK(valid(in.bufs, r.placements, 12));
    CHECK(in.run(11).status == search_status::infeasible);
  }
  SUBCASE("max-live fits although greedy largest-first would not") {
    // b (size 2) must sit on top of a at 0..1 while c reuses a's space after a dies.
    const instance in({{0, 2, 1}, {1, 4, 2}, {2, 4, 1}, {0, 1, 2}});
    const search_result r = in.run(3);
    REQUIRE(r.found());
    CHECK(valid(in.bufs, r.placements, 3));
  }
  SUBCASE("max-live equals the capacity and still nothing fits") {
    const instance in(core);
    const search_result r = in.run(13);
    CHECK(r.status == search_status::infeasible);
    CHECK(!brute_feasible(core, 13, 1));
    REQUIRE(in.run(14).found());
    CHECK(valid(core, in.run(14).placements, 14));
  }
  SUBCASE("alignment") {
    const instance in({{0, 2, 3}, {1, 3, 3}});
    CHECK(in.run(6, {}, 4).status == search_status::infeasible);  // the second must start at 4
    const search_result r = in.run(7, {}, 4);
    REQUIRE(r.found());
    CHECK(valid(in.bufs, r.placements, 7, 4));
  }
  SUBCASE("a node limit gives up instead of answering") {
    linear_search_options o = bare();
    o.node_limit = 3;
    CHECK(instance(core).run(13, o).status == search_status::gave_up);
  }
  SUBCASE("wrong spans throw") {
    const instance in(core);
    std::vector<extent> few(2, extent{1, 1});
    CHECK_THROWS_AS(search_placement(in.g, few, {}, linear_dram(10, 1)), input_error);
  }
}

TEST_CASE("search: agrees with brute force on random tiny problems, every rule combination") {
  std::mt19937 rng(2024);
  int feasible = 0, infeasible = 0;
  for (int it = 0; it < 300; ++it) {
    std::vector<buf> b;
    const int n = 3 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const program_point lo = rng() % 5;
      b.push_back({lo, lo + 1 + static_cast<program_point>(rng() % 4), 1 + rng() % 4});
    }
    const std::uint64_t align = 1 + rng() % 2;
    const std::uint64_t cap = 4 + rng() % 6;
    const bool truth = brute_feasible(b, cap, align);
    (truth ? feasible : infeasible)++;
    const instance in(b);
    // 14 switches: every one of the 16384 combinations runs on at least one instance (300 x 55 masks),
    // and all-on / all-off on every instance.
    std::vector<unsigned> masks{0, 16383};
    for (unsigned j = 0; j < 55; ++j) masks.push_back((static_cast<unsigned>(it) * 55 + j) % 16384);
    for (unsigned mask : masks) {
      linear_search_options o;
      o.bound = mask & 1;
      o.gap_dominance = mask & 2;
      o.identical_symmetry = mask & 4;
      o.section_cuts = mask & 8;
      o.decompose = mask & 16;
      o.memo = mask & 32;
      o.forced_nodes = mask & 64;
      o.part_restarts = mask & 128;
      o.passed_nodes = mask & 256;
      o.sweep_order = mask & 512;
      o.random_orders = mask & 1024;
      o.restarts = mask & 2048;
      o.valley_branching = mask & 4096;
      o.valley_cover = mask & 8192;
      for (bool lifetimes : {true, false}) {
        const search_result r = in.run(cap, o, align, lifetimes);
        CAPTURE(it);
        CAPTURE(mask);
        REQUIRE(r.status != search_status::gave_up);
        CHECK(r.found() == truth);
        if (r.found()) CHECK(valid(b, r.placements, cap, align));
      }
    }
  }
  MESSAGE(feasible, " feasible, ", infeasible, " infeasible");
  CHECK(feasible > 20);
  CHECK(infeasible > 20);
}

namespace {
/// A tiny exact tiling of [0, cap) x [0, horizon) (every section full), built like planted_dsa's sweep:
/// pieces of 1-3 bytes at time 0; at each later step each piece ends with odds 1/3, and every run of
/// adjacent freed bytes is cut into new pieces starting then. Sorted by start (quicker brute force).
std::vector<buf> tiny_tiling(std::mt19937& rng, std::uint64_t cap, program_point horizon) {
  struct piece {
    std::uint64_t off, size;
    program_point start;
  };
  std::vector<piece> live;
  std::vector<buf> out;
  auto cut = [&](std::vector<piece>& into, std::uint64_t off, std::uint64_t len, program_point t) {
    while (len > 0) {
      const std::uint64_t s = 1 + rng() % std::min<std::uint64_t>(len, 3);
      into.push_back({off, s, t});
      off += s;
      len -= s;
    }
  };
  cut(live, 0, cap, 0);
  for (program_point t = 1; t <= horizon; ++t) {
    std::vector<piece> next;
    std::uint64_t run_off = 0, run_len = 0;
    for (std::size_t i = 0; i <= live.size(); ++i) {  // live is sorted by offset
      const bool ends = i < live.size() && (t == horizon || rng() % 3 == 0);
      if (ends) {
        out.push_back({live[i].start, t, live[i].size});
        if (run_len == 0) run_off = live[i].off;
        run_len += live[i].size;
        continue;
      }
      if (run_len > 0 && t < horizon) cut(next, run_off, run_len, t);
      run_len = 0;
      if (i < live.size()) next.push_back(live[i]);
    }
    live = std::move(next);
  }
  std::sort(out.begin(), out.end(), [](const buf& a, const buf& b) { return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi; });
  return out;
}
}  // namespace

TEST_CASE("search: hand-offs at full sections are searched as one buffer, and answers stay exact") {
  SUBCASE("hand-checked") {
    // Capacity 10: a [0, 2) hands off to c [2, 4) (both 6 bytes) while b (4 bytes) lives throughout; both
    // sections are full, so c must take a's place: one merged buffer.
    linear_search_options on;
    on.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
    on.merge_handoffs = true;
    const instance in({{0, 2, 6}, {0, 4, 4}, {2, 4, 6}});
    const search_result r = in.run(10, on);
    REQUIRE(r.found());
    CHECK(r.stats.merged == 1);
    CHECK(r.placements[0].offset == r.placements[2].offset);
    CHECK(valid(in.bufs, r.placements, 10));
    CHECK(in.run(11, on).stats.merged == 0);  // not full: c may go elsewhere (and at 11 it could)
    CHECK(in.run(10).stats.merged == 0);      // off by default
    // A chain: a -> c -> d, each 5 bytes, beside e: two links, one buffer for all three.
    const instance chain({{0, 1, 5}, {0, 3, 5}, {1, 2, 5}, {2, 3, 5}});
    const search_result rc = chain.run(10, on);
    REQUIRE(rc.found());
    CHECK(rc.stats.merged == 2);
    CHECK((rc.placements[0].offset == rc.placements[2].offset && rc.placements[2].offset == rc.placements[3].offset));
    // Two buffers end where two start: no merge (either may take either place).
    const instance two({{0, 1, 2}, {0, 1, 2}, {1, 2, 2}, {1, 2, 2}});
    CHECK(two.run(4, on).stats.merged == 0);
  }
  SUBCASE("the merged problem") {
    const instance in({{0, 2, 6}, {0, 4, 4}, {2, 4, 6}, {4, 5, 10}});
    const std::optional<handoff_merge> m = merge_handoffs(in.g, in.ext, in.life, 10);
    REQUIRE(m);
    CHECK(m->merged == 1);
    CHECK(m->rep == std::vector<node_id>{0, 1, 0, 2});
    REQUIRE(m->graph.num_nodes() == 3);
    CHECK(m->lifetimes[0] == interval{0, 4});
    CHECK(m->graph.adjacent(0, 1));
    CHECK(!m->graph.adjacent(0, 2));
    CHECK(m->graph.num_edges() == 1);
    CHECK(!merge_handoffs(in.g, in.ext, in.life, 11));
  }
  SUBCASE("brute force on tiny tilings and perturbed ones, merging on and off") {
    std::mt19937 rng(77);
    int feasible = 0, infeasible = 0, merged = 0;
    for (int it = 0; it < 400; ++it) {
      const std::uint64_t cap = 4 + rng() % 3;
      std::vector<buf> b = tiny_tiling(rng, cap, 2 + static_cast<program_point>(rng() % 3));
      if (b.size() > 10) continue;
      if (rng() % 2 == 0) {  // one buffer one byte larger or one step longer: often infeasible
        buf& x = b[rng() % b.size()];
        if (rng() % 2 == 0)
          x.size += 1;
        else
          x.hi += 1;
      }
      const bool truth = brute_feasible(b, cap, 1);
      (truth ? feasible : infeasible)++;
      const instance in(b);
      for (bool merge : {true, false}) {
        linear_search_options o;
        o.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
        o.merge_handoffs = merge;
        const search_result r = in.run(cap, o);
        CAPTURE(it);
        CAPTURE(merge);
        REQUIRE(r.status != search_status::gave_up);
        CHECK(r.found() == truth);
        if (r.found()) CHECK(valid(b, r.placements, cap));
        if (merge) merged += r.stats.merged > 0;
      }
    }
    MESSAGE("tilings: " << feasible << " feasible, " << infeasible << " infeasible, " << merged << " with merges");
    CHECK(feasible > 50);
    CHECK(infeasible > 20);
    CHECK(merged > 50);
  }
}

TEST_CASE("search: every pruning rule earns its keep") {
  std::vector<buf> b = core;
  for (int i = 0; i < 4; ++i) b.push_back({6, 7, 1});
  const instance in(b);
  const std::uint64_t on = in.run(13, bare()).stats.nodes;
  REQUIRE(in.run(13, bare()).status == search_status::infeasible);
  auto without = [&](auto change) {
    linear_search_options o = bare();
    change(o);
    const search_result r = in.run(13, o);
    CHECK(r.status == search_status::infeasible);
    return r.stats.nodes;
  };
  CHECK(without([](linear_search_options& o) { o.gap_dominance = false; }) > on);
  CHECK(without([](linear_search_options& o) { o.identical_symmetry = false; }) > on);
  CHECK(without([](linear_search_options& o) { o.section_cuts = false; }) > on);
  CHECK(without([](linear_search_options& o) { o.forced_nodes = false; }) > on);
  CHECK(without([](linear_search_options& o) { o.passed_nodes = false; }) > on);
  // (a) is implied by the section cuts when they are on; with them off it still prunes.
  const std::uint64_t no_cuts = without([](linear_search_options& o) { o.section_cuts = false; });
  CHECK(without([](linear_search_options& o) {
          o.section_cuts = false;
          o.bound = false;
        }) > no_cuts);
}

namespace {
/// A planted problem's buffers (gca-gen --planted-dsa) and the capacity they were planted in.
struct planted_buffers {
  std::vector<buf> b;
  std::uint64_t capacity;
};
planted_buffers make_planted_buffers(planted_family f, std::size_t n, std::uint64_t seed, double tightness = 1.0) {
  const planted_dsa d = make_planted_dsa({.family = f, .buffers = n, .seed = seed, .tightness = tightness});
  planted_buffers p{{}, d.capacity};
  for (const dsa_buffer& x : d.problem.buffers) p.b.push_back({x.lower, x.upper, x.size});
  return p;
}
/// Runs the search at `capacity` and checks that it finds a valid placement within `most` nodes.
search_result found_within(const instance& in, const std::vector<buf>& b, std::uint64_t capacity,
                           const linear_search_options& o, std::uint64_t most) {
  search_result r = in.run(capacity, o);
  REQUIRE(r.found());
  CHECK(r.stats.nodes < most);
  CHECK(valid(b, r.placements, capacity));
  return r;
}
instance planted_instance(planted_family f, std::size_t n, std::uint64_t seed) {
  planted_buffers p = make_planted_buffers(f, n, seed);
  REQUIRE(p.capacity == 1048576);
  return instance(std::move(p.b));
}
}  // namespace

TEST_CASE("search: valley branching (f) and the rules under it earn their keep") {
  SUBCASE("(f) finds a planted tiling the level order does not find in 5x the nodes") {
    // uniform, 150 buffers, as given (no hand-offs merged): the race of (f) and the level order needs
    // 2,700 nodes ((f) decides it in 1,350), the level order alone 18,387 (node counts are
    // deterministic without a deadline).
    const instance in = planted_instance(planted_family::uniform, 150, 1000);
    linear_search_options o;
    o.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
    o.merge_handoffs = false;
    o.node_limit = 3000;
    const search_result r = in.run(1048576, o);
    REQUIRE(r.found());
    CHECK(valid(in.bufs, r.placements, 1048576));
    o.valley_branching = false;
    CHECK(in.run(1048576, o).status == search_status::gave_up);
  }
  SUBCASE("under (f): (b1), (b2), (g), flush first, (c) and (a) each cut nodes") {
    auto nodes = [](const instance& in, std::uint64_t cap, auto change) {
      linear_search_options o;
      o.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
      o.restarts = false;  // (f) alone, one order, on the problem as given
      o.merge_handoffs = false;
      o.node_limit = 1'000'000;
      change(o);
      const search_result r = in.run(cap, o);
      CHECK(r.status != search_status::gave_up);
      return r.stats.nodes;
    };
    auto same = [](linear_search_options&) {};
    // (b1): a raise that leaves room for a buffer inside it (ramp, 90 buffers: 274 nodes, 1,110 without).
    const instance ramp = planted_instance(planted_family::challenging_ramp, 90, 1001);
    CHECK(nodes(ramp, 1048576, [](linear_search_options& o) { o.gap_dominance = false; }) > nodes(ramp, 1048576, same));
    // (b2): identical buffers (heavy, 120 buffers: 7,636 nodes, 9,988 without).
    const instance heavy = planted_instance(planted_family::heavy_tailed, 120, 1003);
    CHECK(nodes(heavy, 1048576, [](linear_search_options& o) { o.identical_symmetry = false; }) >
          nodes(heavy, 1048576, same));
    // (g): a valley whose full sections the buffers that can lie at its level cannot cover is dead at
    // once (uniform, 120 buffers: 518 nodes, 618 without).
    const instance uniform = planted_instance(planted_family::uniform, 120, 1003);
    CHECK(nodes(uniform, 1048576, [](linear_search_options& o) { o.valley_cover = false; }) > nodes(uniform, 1048576, same));
    // Flush first (branch order only): uniform, 150 buffers, seeds 1001-1004: 1,800 nodes in all, 2,836
    // without.
    std::uint64_t flush = 0, no_flush = 0;
    for (std::uint64_t seed = 1001; seed <= 1004; ++seed) {
      const instance in = planted_instance(planted_family::uniform, 150, seed);
      flush += nodes(in, 1048576, same);
      no_flush += nodes(in, 1048576, [](linear_search_options& o) { o.flush_first = false; });
    }
    CHECK(no_flush > flush);
    // (c), and (a) without (c), on the crafted infeasible instance (exhausted: 18, 761, 5,052 nodes).
    std::vector<buf> b = core;
    for (int i = 0; i < 4; ++i) b.push_back({6, 7, 1});
    const instance in(b);
    auto bare_valley = [&](auto change) {
      linear_search_options o = bare(true);
      change(o);
      const search_result r = in.run(13, o);
      CHECK(r.status == search_status::infeasible);
      return r.stats.nodes;
    };
    const std::uint64_t on = bare_valley(same);
    const std::uint64_t no_cuts = bare_valley([](linear_search_options& o) { o.section_cuts = false; });
    CHECK(no_cuts > on);
    CHECK(bare_valley([](linear_search_options& o) {
            o.section_cuts = false;
            o.bound = false;
          }) > no_cuts);
  }
  SUBCASE("(f) is used only when the lifetimes say exactly who interferes") {
    // An extra edge between two buffers whose lifetimes do not overlap: (f) would misjudge skylines,
    // so the search falls back to the level order, and still answers exactly.
    live_range_table t;
    const std::vector<buf> b{{0, 2, 2}, {2, 4, 2}, {0, 4, 1}};
    for (const buf& x : b) t.add(interval{x.lo, x.hi});
    const interference_graph g = build_interference(t);
    const interference_graph extra(std::vector<std::size_t>{0, 2, 4, 6}, std::vector<node_id>{1, 2, 0, 2, 0, 1});
    const std::vector<extent> ext{{1, 2}, {1, 2}, {1, 1}};
    const std::vector<interval> life{{0, 2}, {2, 4}, {0, 4}};
    CHECK(search_placement(g, ext, life, linear_dram(3, 1)).found());  // 0 and 1 share [0, 2)
    CHECK(search_placement(extra, ext, life, linear_dram(3, 1)).status == search_status::infeasible);
    const search_result r = search_placement(extra, ext, life, linear_dram(5, 1));
    REQUIRE(r.found());
    CHECK((r.placements[0].offset + 2 <= r.placements[1].offset || r.placements[1].offset + 2 <= r.placements[0].offset));
  }
}

TEST_CASE("search: (f) and the level order race on each part, with one answer on one thread or two") {
  // A planted heavy-tailed instance of 150 buffers: the level lane decides it in 41,737 nodes and the race
  // stops (f) there, 83,474 nodes in all. A planted uniform tiling of 150 buffers goes the other way ((f)
  // wins). Taking turns on one thread or running at once on two, the winner, its placement and the node
  // count are the same.
  const instance g = planted_instance(planted_family::heavy_tailed, 150, 1010);
  const instance u = planted_instance(planted_family::uniform, 150, 1000);
  for (const instance* in : {&g, &u}) {
    linear_search_options o;
    o.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
    o.node_limit = 200'000;
    o.threads = 1;
    const search_result one = in->run(1048576, o);
    o.threads = 2;
    const search_result two = in->run(1048576, o);
    REQUIRE(one.found());
    REQUIRE(two.found());
    CHECK(valid(in->bufs, one.placements, 1048576));
    CHECK(one.stats.nodes == two.stats.nodes);
    CHECK(one.stats.rounds == two.stats.rounds);
    bool same = true;
    for (std::size_t v = 0; v < one.placements.size(); ++v) same = same && one.placements[v] == two.placements[v];
    CHECK(same);
    MESSAGE("race: " << one.stats.nodes << " nodes, " << one.stats.rounds << " rounds");
  }
  linear_search_options o;
  o.handoff_chains = false;  // measures the other lanes (the hand-off search: below)
  o.node_limit = 200'000;
  CHECK(g.run(1048576, o).stats.nodes == 2 * 41737);
  o.valley_branching = false;  // the level order alone, no race
  CHECK(g.run(1048576, o).stats.nodes == 41737);
  // Both are full at every point: the hand-off search (on by default) places each in a few hundred nodes.
  for (const instance* in : {&g, &u}) {
    const search_result c = in->run(1048576);
    REQUIRE(c.found());
    CHECK(c.stats.nodes == c.stats.chain_nodes);
    CHECK(c.stats.nodes < 1000);
    CHECK(valid(in->bufs, c.placements, 1048576));
  }
}

TEST_CASE("lanes: the race's verdict is a rule in node counts, and a lane that throws is not waited for") {
  using detail::lane_race;
  // In turns, turns of 16,384 nodes, and lane 1 starts after lane 0's first; at once, a tick every 64
  // nodes, and lane 1 starts at 1,024.
  const lane_race turns(false), once(true);
  CHECK(turns.next_tick(0) == 16384);
  CHECK(turns.next_tick(16384) == 32768);
  CHECK(turns.start_other_at() == 16384);
  CHECK(once.next_tick(5000) == 5064);
  CHECK(once.start_other_at() == 1024);
  for (const bool concurrent : {false, true}) {
    CAPTURE(concurrent);
    lane_race gate(concurrent);
    lane_race::verdict v1;
    // Part 1: lane 1 decides (finds) at 2,000 nodes, lane 0 would at 3,000: lane 1 wins with its count.
    // Part 2: both decide at 500, a tie: lane 0 wins. Part 3: neither decides: no winner.
    std::thread other([&] {
      gate.begin(1);
      for (std::uint64_t n = gate.next_tick(0); n < 2000; n = gate.next_tick(n)) CHECK_FALSE(gate.tick(1, n));
      v1 = gate.end(1, true, true, 2000);
      gate.begin(1);
      gate.end(1, true, false, 500);
      gate.begin(1);
      gate.end(1, false, false, 7);
    });
    gate.begin(0);
    std::uint64_t n = gate.next_tick(0);
    bool stopped = false;
    for (; n <= 3000 && !stopped; n = gate.next_tick(n)) stopped = gate.tick(0, n);
    // lane 0 is stopped once past 2,000 (concurrently it may also reach 3,000 first: the verdict is the same)
    const lane_race::verdict v0 = gate.end(0, !stopped, true, stopped ? n : 3000);
    CHECK(v0.winner == 1);
    CHECK(v0.nodes == 2000);
    CHECK(v0.found);
    gate.begin(0);
    const lane_race::verdict tie = gate.end(0, true, true, 500);
    CHECK(tie.winner == 0);
    CHECK(tie.found);
    gate.begin(0);
    CHECK(gate.end(0, false, false, 9).winner == -1);
    other.join();
    CHECK(v1.winner == 1);
    // A lane that leaves: the other is stopped at its next tick and ends the part without waiting.
    lane_race gone(concurrent);
    std::thread leaver([&] {
      gone.begin(1);
      gone.leave(1);
    });
    gone.begin(0);
    bool stop = false;
    for (std::uint64_t k = gone.next_tick(0); !stop; k = gone.next_tick(k)) stop = gone.tick(0, k);
    CHECK(gone.end(0, false, false, 0).winner == -1);
    leaver.join();
  }
}

TEST_CASE("search: the challenging DSA files fit within their capacity") {
  for (const char* name : {"A", "B", "C", "D", "E", "F"}) {
    CAPTURE(name);
    const dsa_problem p =
        read_dsa_csv_file(std::string(GCA_DATA_DIR) + "/dsa/challenging/" + name + ".1048576.csv");
    std::vector<buf> b;
    for (const dsa_buffer& x : p.buffers) b.push_back({x.lower, x.upper, x.size});
    const instance in(b);
    // A node limit, not a clock: the result must not depend on the machine or the build (under the
    // sanitizers a clock of 20 s ran out on a slow machine). The six need 2,936 to 473,802 nodes today.
    linear_search_options o;
    o.node_limit = 2'000'000;
    const search_result r = in.run(1048576, o);
    REQUIRE(r.found());
    CHECK(r.peak <= 1048576);
    CHECK(valid(b, r.placements, 1048576));
  }
}

TEST_CASE("search: independent parts restart on their own") {
  // E splits at a zero cut into two parts that the same static order does not both solve quickly; with
  // one restart schedule per part it is found well inside a node limit the shared schedule exhausts.
  const dsa_problem p = read_dsa_csv_file(std::string(GCA_DATA_DIR) + "/dsa/challenging/E.1048576.csv");
  std::vector<buf> b;
  for (const dsa_buffer& x : p.buffers) b.push_back({x.lower, x.upper, x.size});
  const instance in(b);
  linear_search_options o;
  o.node_limit = 150000;
  o.sweep_order = false;  // the three classic orders without perturbation: the mechanism in isolation
  o.random_orders = false;
  o.valley_branching = false;
  o.fillers = false;
  const search_result split = in.run(1048576, o);
  REQUIRE(split.found());
  CHECK(valid(b, split.placements, 1048576));
  CHECK(split.stats.nodes < o.node_limit);
  o.part_restarts = false;
  CHECK(in.run(1048576, o).status == search_status::gave_up);
}

TEST_CASE("planted DSA generator: the planted placement is valid, tiles the box at tightness 1, is deterministic") {
  for (planted_family f : all_planted_families) {
    for (std::size_t n : {1u, 7u, 60u, 300u}) {
      CAPTURE(to_string(f));
      CAPTURE(n);
      const planted_dsa d = make_planted_dsa({.family = f, .buffers = n, .seed = 5});
      std::vector<buf> b;
      program_point horizon = 0;
      long double area = 0;
      for (const dsa_buffer& x : d.problem.buffers) {
        b.push_back({x.lower, x.upper, x.size});
        horizon = std::max(horizon, x.upper);
        area += static_cast<long double>(x.upper - x.lower) * static_cast<long double>(x.size);
      }
      std::vector<placement> p;
      for (std::uint64_t o : d.offsets) p.push_back({0, o});
      CHECK(valid(b, p, d.capacity));
      CHECK(d.capacity == 1048576);
      if (f != planted_family::challenging_ramp) {
        CHECK(b.size() == n);
        CHECK(area == static_cast<long double>(horizon) * static_cast<long double>(d.capacity));  // exact tiling
        CHECK(max_live(d.problem) == d.capacity);
      } else {
        CHECK(b.size() <= n);
      }
      const planted_dsa again = make_planted_dsa({.family = f, .buffers = n, .seed = 5});
      CHECK(again.offsets == d.offsets);
      const planted_dsa thin = make_planted_dsa({.family = f, .buffers = n, .seed = 5, .tightness = 0.8});
      long double kept = 0;
      program_point h2 = 0;
      for (const dsa_buffer& x : thin.problem.buffers) {
        kept += static_cast<long double>(x.upper - x.lower) * static_cast<long double>(x.size);
        h2 = std::max(h2, x.upper);
      }
      CHECK(kept <= 0.8L * static_cast<long double>(horizon) * static_cast<long double>(d.capacity) + 1);
    }
  }
  CHECK_THROWS_AS(make_planted_dsa({.buffers = 0}), input_error);
  CHECK_THROWS_AS(make_planted_dsa({.tightness = 1.5}), input_error);
  CHECK_THROWS_AS(make_planted_dsa({.family = planted_family::challenging_cut, .buffers = 100001}), input_error);
  CHECK(parse_planted_family("cut") == planted_family::challenging_cut);
  CHECK(!parse_planted_family("nope"));
}

TEST_CASE("search: small planted instances always fit, one byte less is proven infeasible") {
  int found = 0;
  for (planted_family f : all_planted_families)
    for (std::size_t n : {6u, 12u, 20u, 30u})
      for (double t : {1.0, 0.9})
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
          CAPTURE(to_string(f));
          CAPTURE(n);
          CAPTURE(t);
          CAPTURE(seed);
          const planted_dsa d = make_planted_dsa({.family = f, .buffers = n, .seed = seed, .tightness = t});
          std::vector<buf> b;
          for (const dsa_buffer& x : d.problem.buffers) b.push_back({x.lower, x.upper, x.size});
          const instance in(b);
          linear_search_options o;
          o.node_limit = 5'000'000;  // deterministic: no deadline
          const search_result r = in.run(d.capacity, o);
          REQUIRE(r.found());
          CHECK(valid(b, r.placements, d.capacity));
          ++found;
          if (t == 1.0 && f != planted_family::challenging_ramp)  // max-live == capacity: one byte less cannot fit
            CHECK(in.run(d.capacity - 1, o).status == search_status::infeasible);
        }
  CHECK(found == 6 * 4 * 2 * 6);
}

TEST_CASE("watchdog: a caller's deadline stops the exact search with timeout_error") {
  // The search's own deadline gives up (a result); a watchdog installed by the caller (an allocator's
  // "GCA is taking too long") must fire inside the search loop too. A deadline already past: the first
  // clock reading (within 256 search nodes) throws; E needs tens of thousands of nodes.
  const dsa_problem p = read_dsa_csv_file(std::string(GCA_DATA_DIR) + "/dsa/challenging/E.1048576.csv");
  std::vector<buf> b;
  for (const dsa_buffer& x : p.buffers) b.push_back({x.lower, x.upper, x.size});
  const instance in(b);
  {
    const gca::watchdog_scope scope(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    CHECK_THROWS_WITH_AS(in.run(1048576), "GCA is taking too long", gca::timeout_error);
  }
  CHECK(gca::watchdog_deadline() == std::chrono::steady_clock::time_point::max());  // the scope ended
  linear_search_options o;
  o.node_limit = 1000;
  CHECK(in.run(1048576, o).status == search_status::gave_up);  // outside a scope: unchanged
}

// The 1-D search's table of failed states (search.hpp, print_set): every answer against std::set over
// random prints with many collisions of their slot bits, the print {0, 0} (its empty-slot mark), repeats,
// growth past several table sizes, and clear().
TEST_CASE("print_set: contains and size agree with std::set, through growth and clear") {
  using gca::detail::print_key;
  gca::detail::print_set s;
  std::set<std::pair<std::uint64_t, std::uint64_t>> ref;
  std::mt19937_64 rng(11);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20000; ++i) {
      // a in few values (many share a slot), b free; now and then the zero print
      const print_key k = i % 997 == 0 ? print_key{0, 0} : print_key{rng() % 5000 * 64, rng() % 3};
      CHECK(s.contains(k) == ref.contains({k.a, k.b}));
      if (rng() % 2) {
        s.insert(k);
        ref.insert({k.a, k.b});
      }
      REQUIRE(s.size() == ref.size());
    }
    for (const auto& [a, b] : ref) CHECK(s.contains(print_key{a, b}));
    s.clear();
    ref.clear();
    CHECK(s.size() == 0);
    CHECK_FALSE(s.contains(print_key{0, 0}));
  }
}

// ---------------------------------------------------------------------------------------------------
// The hand-off search (engine/chain_search.hpp)

namespace {
detail::chain_searcher<> chains_of(const std::vector<buf>& b, std::uint64_t cap, std::vector<interval>& life,
                                   std::vector<std::uint64_t>& bytes, std::uint64_t limit = 1'000'000) {
  life.clear(), bytes.clear();
  for (const buf& x : b) life.push_back({x.lo, x.hi}), bytes.push_back(x.size);
  return detail::chain_searcher<>(life, bytes, cap, limit, std::chrono::steady_clock::time_point::max());
}
std::vector<placement> as_placements(const std::vector<std::uint64_t>& off) {
  std::vector<placement> p;
  for (std::uint64_t o : off) p.push_back({0, o});
  return p;
}
/// One walk in the fixed order (no restarts) with every rule, and one with `switch_off` applied too (a
/// rule turned off): their first placements and node counts, to check that the rule only cuts subtrees
/// without a placement. `decided`: the second walk did not give up (else there is nothing to compare).
struct walk_pair {
  std::vector<std::uint64_t> with, without;
  std::uint64_t with_nodes = 0, without_nodes = 0;
  bool decided = false;
};
template <class SwitchOff>
walk_pair walk_with_and_without(const std::vector<buf>& b, std::uint64_t cap, std::uint64_t limit, SwitchOff switch_off) {
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  auto with = chains_of(b, cap, life, bytes, limit);
  REQUIRE(with.applicable());
  with.set_restarts(false);
  walk_pair w;
  w.with = with.run(), w.with_nodes = with.nodes();
  std::vector<interval> life2;
  std::vector<std::uint64_t> bytes2;
  auto without = chains_of(b, cap, life2, bytes2, limit);
  without.set_restarts(false);
  switch_off(without);
  w.without = without.run(), w.without_nodes = without.nodes();
  w.decided = !(w.without.empty() && w.without_nodes > limit);
  return w;
}
}  // namespace

TEST_CASE("hand-off search: exact answers on hand-checked problems, and where it does not apply") {
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  // Capacity 10: a (6 bytes, [0, 2)) hands off to c (6 bytes, [2, 4)); b (4 bytes) lives throughout. The
  // first birth's chains are a and b alone; at 2 the hole a leaves is c's; the final chains {a, c} and
  // {b} side by side, in the order of their first buffers: a and c at 0, b at 6.
  const std::vector<buf> handoff{{0, 2, 6}, {0, 4, 4}, {2, 4, 6}};
  auto cs = chains_of(handoff, 10, life, bytes);
  REQUIRE(cs.applicable());
  CHECK(cs.run() == std::vector<std::uint64_t>{0, 6, 0});
  // Two buffers dying at 2 side by side make room for one of their total: they must be glued (5 + 3).
  const std::vector<buf> glue{{0, 2, 5}, {0, 2, 3}, {0, 3, 2}, {2, 3, 8}};
  auto g = chains_of(glue, 10, life, bytes);
  REQUIRE(g.applicable());
  const std::vector<std::uint64_t> off = g.run();
  REQUIRE(off.size() == 4);
  CHECK(valid(glue, as_placements(off), 10));
  CHECK(off[3] == std::min(off[0], off[1]));  // the newborn takes the joined place of the two
  // Not full at every point: capacity 11 for the first problem (a byte free at the first birth), and a
  // birth whose newborns do not have the total of the buffers dying there.
  CHECK(!chains_of(handoff, 11, life, bytes).applicable());
  CHECK(!chains_of({{0, 2, 6}, {0, 4, 4}, {2, 4, 5}}, 10, life, bytes).applicable());
  CHECK(chains_of(handoff, 11, life, bytes).run().empty());
  // Through search_placement: found, with the hand-off search's nodes counted.
  const search_result r = instance(handoff).run(10);
  REQUIRE(r.found());
  CHECK(r.stats.chain_nodes > 0);
  CHECK(r.stats.nodes == r.stats.chain_nodes);
  CHECK(valid(handoff, r.placements, 10));
}

TEST_CASE("hand-off search: finds a placement of every random full tiling, and what it finds is one") {
  // tiny_tiling makes problems full at every point with a planted placement; the walk is complete on
  // them (engine/chain_search.hpp), so with an ample budget it must find one, and the brute-force
  // checker must accept it.
  std::mt19937 rng(29);
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  int tried = 0;
  for (int it = 0; it < 300; ++it) {
    const std::uint64_t cap = 4 + rng() % 9;
    const std::vector<buf> b = tiny_tiling(rng, cap, static_cast<program_point>(3 + rng() % 6));
    CAPTURE(it);
    auto cs = chains_of(b, cap, life, bytes, 5'000'000);
    REQUIRE(cs.applicable());
    const std::vector<std::uint64_t> off = cs.run();
    REQUIRE(off.size() == b.size());
    CHECK(valid(b, as_placements(off), cap));
    CHECK(cs.nodes() < 5'000'000);
    ++tried;
  }
  CHECK(tried == 300);
}

namespace {
/// A problem full at every point with nothing planted: the capacity cut at random at the first point,
/// and what dies at each later point cut at random into newborns (any sizes, random ends within the
/// horizon). Often infeasible: the newborns need not tile the holes the dying leave.
std::vector<buf> random_full(std::mt19937& rng, std::uint64_t cap, program_point horizon) {
  std::vector<buf> out;
  auto cut = [&](std::uint64_t len, program_point t) {
    while (len > 0) {
      const std::uint64_t s = 1 + rng() % len;
      out.push_back({t, t + 1 + static_cast<program_point>(rng() % static_cast<std::uint64_t>(horizon - t)), s});
      len -= s;
    }
  };
  cut(cap, 0);
  for (program_point t = 1; t < horizon; ++t) {
    std::uint64_t dying = 0;
    for (const buf& x : out) dying += x.hi == t ? x.size : 0;
    cut(dying, t);
  }
  return out;
}
}  // namespace

TEST_CASE("hand-off search: on random full problems it places exactly the feasible ones, and stops on the others") {
  // Against brute force: the walk is complete on problems full at every point, so it finds a placement
  // of every feasible one; on an infeasible one every walk ends without a placement, and run() must
  // stop there (it claims nothing) instead of restarting without end.
  std::mt19937 rng(30);
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  int tried = 0;
  for (int it = 0; it < 2000; ++it) {
    const std::uint64_t cap = 3 + rng() % 10;
    const std::vector<buf> b = random_full(rng, cap, static_cast<program_point>(2 + rng() % 5));
    if (b.size() > 10) continue;
    CAPTURE(it);
    auto cs = chains_of(b, cap, life, bytes, 5'000'000);
    REQUIRE(cs.applicable());
    const std::vector<std::uint64_t> off = cs.run();
    CHECK(!off.empty() == brute_feasible(b, cap, 1));
    if (!off.empty()) CHECK(valid(b, as_placements(off), cap));
    CHECK(cs.nodes() < 5'000'000);
    ++tried;
  }
  CHECK(tried > 1000);
  // Such problems are rarely infeasible (8 of 181,335 of these draws); three of them. The first by hand:
  // at 4, B (1 byte, alive from 0), E (4, born at 2 in D's place) and G (3, born at 3 in C's place) die
  // and I (8) is born, so they must lie side by side. B lies at an edge of the memory (A, 11 bytes, is
  // beside it), C (5) and D (6) fill A's place, E shares D's place with F (2), G shares C's with H (2):
  // E cannot touch both B's side and C's, nor G both B's side and D's, so B, E and G are never a run.
  const std::vector<std::vector<buf>> refused{
      // A         B          C          D          E          F          G          H          I
      {{0, 1, 11}, {0, 4, 1}, {1, 3, 5}, {1, 2, 6}, {2, 4, 4}, {2, 5, 2}, {3, 4, 3}, {3, 5, 2}, {4, 5, 8}},
      {{0, 2, 5}, {0, 3, 6}, {2, 5, 1}, {2, 4, 4}, {3, 4, 4}, {3, 4, 1}, {3, 5, 1}, {4, 6, 9}, {5, 6, 2}},
      {{0, 2, 6}, {0, 1, 4}, {0, 3, 1}, {1, 4, 2}, {1, 3, 1}, {1, 2, 1}, {2, 3, 5}, {2, 4, 2}, {3, 4, 7}}};
  const std::uint64_t caps[] = {12, 11, 11};
  for (std::size_t i = 0; i < refused.size(); ++i) {
    CAPTURE(i);
    REQUIRE_FALSE(brute_feasible(refused[i], caps[i], 1));
    auto cs = chains_of(refused[i], caps[i], life, bytes, 5'000'000);
    REQUIRE(cs.applicable());
    CHECK(cs.run().empty());
    const std::uint64_t spent = cs.nodes();
    CHECK(spent < 1000);
    CHECK(cs.run().empty());  // and it stays stopped: no walk again
    CHECK(cs.nodes() == spent);
  }
}

TEST_CASE("hand-off search: the look-ahead at holes fixed for later births cuts only subtrees without a placement") {
  // One walk in the fixed order (no restarts), with and without future_fits: the test is sound, so the
  // walk with it finds the same first placement (or both none) in no more nodes; random full problems
  // (many infeasible subtrees) and planted long-short ones. It must cut something somewhere.
  std::mt19937 rng(31);
  int fewer = 0, tried = 0;
  auto compare = [&](const std::vector<buf>& b, std::uint64_t cap, std::uint64_t limit) {
    const walk_pair w = walk_with_and_without(b, cap, limit, [](auto& cs) { cs.set_lookahead(false); });
    if (!w.decided) return;  // the plain walk gave up: nothing to compare
    CHECK(w.with == w.without);
    CHECK(w.with_nodes <= w.without_nodes);
    if (!w.with.empty()) CHECK(valid(b, as_placements(w.with), cap));
    fewer += w.with_nodes < w.without_nodes ? 1 : 0;
    ++tried;
  };
  for (int it = 0; it < 2000; ++it) {
    const std::uint64_t cap = 3 + rng() % 14;
    const std::vector<buf> b = random_full(rng, cap, static_cast<program_point>(3 + rng() % 6));
    CAPTURE(it);
    compare(b, cap, 1'000'000);
  }
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const planted_buffers p = make_planted_buffers(planted_family::long_short, 100, seed);
    compare(p.b, p.capacity, 200'000);
  }
  CHECK(tried > 1500);
  CHECK(fewer > 0);
}

TEST_CASE("hand-off search: orders that are two holes side by side are skipped, and no answer changes") {
  // split_points' dominance changes the walk only where an order it skips would have been walked, which
  // on random full problems is rare (about 1 in 10,000 draws): 100,000 draws, each walked with and
  // without it; wherever the two walks differ, both answers must be brute force's.
  std::mt19937 rng(32);
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  int changed = 0;
  for (int it = 0; it < 100'000; ++it) {
    const std::uint64_t cap = 3 + rng() % 10;
    const std::vector<buf> b = random_full(rng, cap, static_cast<program_point>(2 + rng() % 7));
    if (b.size() > 12) continue;
    CAPTURE(it);
    auto cs = chains_of(b, cap, life, bytes, 5'000'000);
    const std::vector<std::uint64_t> off = cs.run();
    auto plain = chains_of(b, cap, life, bytes, 5'000'000);
    plain.set_dominance(false);
    const std::vector<std::uint64_t> all = plain.run();
    if (off.empty() == all.empty() && plain.nodes() == cs.nodes()) continue;
    ++changed;
    const bool truth = brute_feasible(b, cap, 1);
    CHECK(off.empty() != truth);
    CHECK(all.empty() != truth);
    if (!off.empty()) CHECK(valid(b, as_placements(off), cap));
  }
  CHECK(changed > 3);
}

TEST_CASE("hand-off search: backjumps skip only births without a placement below them") {
  // One walk in the fixed order (no restarts), with and without backjump(): the births it unwinds over
  // fail whole (engine/chain_search.hpp), so the walk with it finds the same first placement (or both
  // none); random full problems, small enough for brute force to say which are feasible, and planted
  // long-short ones. It must skip something somewhere, and over them all spend fewer nodes.
  std::mt19937 rng(33);
  int fewer = 0, tried = 0;
  std::uint64_t with_nodes = 0, without_nodes = 0;
  auto compare = [&](const std::vector<buf>& b, std::uint64_t cap, std::uint64_t limit, bool brute) {
    const walk_pair w = walk_with_and_without(b, cap, limit, [](auto& cs) { cs.set_backjump(false); });
    if (!w.decided) return;  // the plain walk gave up: nothing to compare
    CHECK(w.with == w.without);
    if (brute) CHECK(!w.with.empty() == brute_feasible(b, cap, 1));
    if (!w.with.empty()) CHECK(valid(b, as_placements(w.with), cap));
    with_nodes += w.with_nodes, without_nodes += w.without_nodes;
    fewer += w.with_nodes < w.without_nodes ? 1 : 0;
    ++tried;
  };
  for (int it = 0; it < 3000; ++it) {
    const std::uint64_t cap = 3 + rng() % 10;
    const std::vector<buf> b = random_full(rng, cap, static_cast<program_point>(3 + rng() % 6));
    if (b.size() > 11) continue;
    CAPTURE(it);
    compare(b, cap, 1'000'000, true);
  }
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const planted_buffers p = make_planted_buffers(planted_family::long_short, 100, seed);
    compare(p.b, p.capacity, 200'000, false);
  }
  CHECK(tried > 1000);
  CHECK(fewer > 0);
  CHECK(with_nodes < without_nodes);
}

TEST_CASE("hand-off search: a backjump places a planted long-short problem it gave up on") {
  // A planted long-short problem of 300 buffers, full at every point (seed 11810, found measuring the
  // backjumps, docs/PERFORMANCE.md section 1): the walk with restarts gave up on it within 1,000,000
  // nodes, and places it with the backjumps in about 22,000.
  const planted_buffers p = make_planted_buffers(planted_family::long_short, 300, 11810);
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  auto without = chains_of(p.b, p.capacity, life, bytes);
  without.set_backjump(false);
  CHECK(without.run().empty());
  auto with = chains_of(p.b, p.capacity, life, bytes);
  const std::vector<std::uint64_t> off = with.run();
  REQUIRE_FALSE(off.empty());
  CHECK(valid(p.b, as_placements(off), p.capacity));
  CHECK(with.nodes() < 100'000);
}

TEST_CASE("hand-off search: restarts in seeded orders place planted problems one long walk does not") {
  // Planted long-short problems of 200 buffers (seeds 1-8), the hand-off search alone on 200,000 nodes:
  // one walk in the fixed order, and walks restarted on Luby budgets (engine/chain_search.hpp). Every
  // placement is checked; the restarts place more, and the same ones again.
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  int one_walk = 0, restarted = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    const planted_dsa d = make_planted_dsa({.family = planted_family::long_short, .buffers = 200, .seed = seed});
    std::vector<buf> b;
    for (const dsa_buffer& x : d.problem.buffers) b.push_back({x.lower, x.upper, x.size});
    for (bool restarts : {false, true}) {
      auto cs = chains_of(b, d.capacity, life, bytes, 200'000);
      REQUIRE(cs.applicable());
      cs.set_restarts(restarts);
      const std::vector<std::uint64_t> off = cs.run();
      if (off.empty()) {
        CHECK(cs.nodes() > 200'000);
        continue;
      }
      CHECK(valid(b, as_placements(off), d.capacity));
      (restarts ? restarted : one_walk)++;
      auto again = chains_of(b, d.capacity, life, bytes, 200'000);
      again.set_restarts(restarts);
      CHECK(again.run() == off);
    }
  }
  CHECK(restarted > one_walk);
}

TEST_CASE("fillers: the free bytes as rectangles that make the memory full at every point") {
  using detail::filler_order;
  // Capacity 10; x [0, 4) 5 bytes, y [0, 1) 2, z [2, 4) 1, w [3, 4) 4: free 3, 5, 4, 0 on [0, 1), [1, 2),
  // [2, 3), [3, 4). Newest first: A (3 bytes) born at 0, B (2) at 1; at 2 one byte goes: B dies, 1 byte
  // of it reborn; at 3 all goes. Oldest first: at 2 A dies, 2 bytes of it reborn, at 3 the rest.
  const std::vector<interval> life{{0, 4}, {0, 1}, {2, 4}, {3, 4}};
  const std::vector<std::uint64_t> bytes{5, 2, 1, 4};
  using filler = std::tuple<program_point, program_point, std::uint64_t>;
  auto fillers = [&](filler_order order) {
    const auto c = detail::full_completion(life, bytes, 10, 1, order);
    REQUIRE(c.has_value());
    CHECK(std::vector<interval>(c->life.begin(), c->life.begin() + 4) == life);  // the buffers first, as given
    std::vector<filler> f;
    for (std::size_t i = 4; i < c->life.size(); ++i) f.emplace_back(c->life[i].begin, c->life[i].end, c->bytes[i]);
    std::sort(f.begin(), f.end());
    return f;
  };
  CHECK(fillers(filler_order::newest) == std::vector<filler>{{0, 3, 3}, {1, 2, 2}, {2, 3, 1}});
  CHECK(fillers(filler_order::oldest) == std::vector<filler>{{0, 2, 3}, {1, 3, 2}, {2, 3, 2}});
  CHECK(fillers(filler_order::whole) == fillers(filler_order::newest));  // at 2 nothing dies whole: newest cut
  // Split: at 2 nothing dies whole, so B gives the byte from its birth on ([1, 2)) and keeps the other
  // with its birth; at 3 A and then what is left of B die whole.
  CHECK(fillers(filler_order::split) == std::vector<filler>{{0, 3, 3}, {1, 2, 1}, {1, 3, 1}});
  {
    // Split without slivers (least 3): at 1 the growth of 2 < 3 ends A and makes one of 5; at 2 the cut
    // of 1 < 3, which no filler takes whole, ends it and makes one of 4; at 3 that one dies whole.
    const auto c = detail::full_completion(life, bytes, 10, 1, filler_order::split, 3);
    REQUIRE(c.has_value());
    std::vector<filler> f;
    for (std::size_t i = 4; i < c->life.size(); ++i) f.emplace_back(c->life[i].begin, c->life[i].end, c->bytes[i]);
    std::sort(f.begin(), f.end());
    CHECK(f == std::vector<filler>{{0, 1, 3}, {1, 2, 5}, {2, 3, 4}});
    // least 2: the growth of 2 at 1 is no sliver (B is born); the cut of 1 at 2 is: B ends, 1 reborn.
    const auto two = detail::full_completion(life, bytes, 10, 1, filler_order::split, 2);
    REQUIRE(two.has_value());
    f.clear();
    for (std::size_t i = 4; i < two->life.size(); ++i) f.emplace_back(two->life[i].begin, two->life[i].end, two->bytes[i]);
    std::sort(f.begin(), f.end());
    CHECK(f == std::vector<filler>{{0, 3, 3}, {1, 2, 2}, {2, 3, 1}});
    const auto newest = detail::full_completion(life, bytes, 10, 1, filler_order::newest, 3);  // split only
    REQUIRE(newest.has_value());
    CHECK(newest->bytes == detail::full_completion(life, bytes, 10, 1, filler_order::newest)->bytes);
  }
  {
    // Capacity 10; x [0, 5) 5 bytes, y [0, 1) 3, u [0, 2) 1, z [3, 5) 3, w [4, 5) 2: free 1, 4, 5, 2, 0 on
    // [0, 1) ... [4, 5). Fillers A (1 byte) born at 0, B (3) at 1, C (1) at 2; at 3 three bytes go, at
    // 4 the last two. Whole first: at 3 B dies whole; at 4 C (the newer of two equals), then A. Newest
    // first: at 3 C dies, B is cut (1 byte reborn), at 4 the rest. Oldest first: at 3 A dies, B is cut.
    const std::vector<interval> l2{{0, 5}, {0, 1}, {0, 2}, {3, 5}, {4, 5}};
    const std::vector<std::uint64_t> b2{5, 3, 1, 3, 2};
    auto fill2 = [&](filler_order order) {
      const auto c = detail::full_completion(l2, b2, 10, 1, order);
      REQUIRE(c.has_value());
      std::vector<filler> f;
      for (std::size_t i = l2.size(); i < c->life.size(); ++i) f.emplace_back(c->life[i].begin, c->life[i].end, c->bytes[i]);
      std::sort(f.begin(), f.end());
      return f;
    };
    CHECK(fill2(filler_order::whole) == std::vector<filler>{{0, 4, 1}, {1, 3, 3}, {2, 4, 1}});
    CHECK(fill2(filler_order::newest) == std::vector<filler>{{0, 4, 1}, {1, 3, 3}, {2, 3, 1}, {3, 4, 1}});
    CHECK(fill2(filler_order::oldest) == std::vector<filler>{{0, 3, 1}, {1, 3, 3}, {2, 4, 1}, {3, 4, 1}});
    CHECK(fill2(filler_order::split) == fill2(filler_order::whole));  // every shrink takes whole ones
  }
  CHECK_FALSE(detail::full_completion(life, bytes, 9, 1, filler_order::newest));  // [3, 4) holds 10
  CHECK_FALSE(detail::full_completion(life, bytes, 10, 2, filler_order::newest));  // 3 free: no multiple of 2
  const std::vector<interval> tiled{{0, 2}, {0, 1}, {1, 2}};
  CHECK_FALSE(detail::full_completion(tiled, std::vector<std::uint64_t>{4, 6, 6}, 10, 1, filler_order::oldest));

  // Random problems: wherever a completion exists, the buffers and fillers hold exactly the capacity at
  // every point from the first to the last, and each filler is a multiple of the alignment.
  std::mt19937 rng(32);
  int completed = 0;
  for (int it = 0; it < 2000; ++it) {
    std::vector<interval> l;
    std::vector<std::uint64_t> b;
    const std::uint64_t align = 1 + rng() % 3;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n; ++i) {
      const program_point lo = rng() % 10;
      l.push_back({lo, lo + 1 + static_cast<program_point>(rng() % 6)});
      b.push_back(align * (1 + rng() % 4));
    }
    const std::uint64_t cap = align * (4 + rng() % 12);
    const std::uint64_t least = align * (1 + rng() % 4);  // the last run: split without slivers below it
    for (int k = 0; k < 5; ++k) {
      const filler_order order = k == 4 ? filler_order::split : std::array{filler_order::newest, filler_order::oldest, filler_order::whole, filler_order::split}[k];
      const auto c = detail::full_completion(l, b, cap, align, order, k == 4 ? least : 0);
      if (!c) continue;
      ++completed;
      program_point first = l[0].begin, last = l[0].end;
      for (const interval& i : l) first = std::min(first, i.begin), last = std::max(last, i.end);
      for (program_point t = first; t < last; ++t) {
        std::uint64_t held = 0;
        for (std::size_t v = 0; v < c->life.size(); ++v)
          if (c->life[v].begin <= t && t < c->life[v].end) held += c->bytes[v];
        CHECK(held == cap);
      }
      for (std::size_t v = l.size(); v < c->life.size(); ++v) {
        CHECK(c->bytes[v] % align == 0);
        CHECK(c->life[v].begin < c->life[v].end);
        CHECK(c->life[v].end <= last);
      }
    }
  }
  CHECK(completed > 1500);
}

TEST_CASE("fillers: the search on the problem with fillers places planted problems the search as given does not") {
  // Planted uniform problems of 300 buffers with 5 % of the area taken out at random (the busiest points
  // still full, free space scattered elsewhere): the memory is not full at every point, so the hand-off
  // search does not apply. At 100,000 nodes, no deadline (node counts deterministic), the
  // search as given gives up on seeds 9804, 9807 and 9810; with the fillers' turns it places them, each
  // placement valid for the problem without its fillers (search_placement checks it too).
  for (std::uint64_t seed : {9804u, 9807u, 9810u}) {
    CAPTURE(seed);
    const auto [b, capacity] = make_planted_buffers(planted_family::uniform, 300, seed, 0.95);
    const instance in(b);
    linear_search_options o;
    o.node_limit = 100'000;
    const search_result with = in.run(capacity, o);
    REQUIRE(with.found());
    CHECK(with.stats.chain_nodes == 0);
    CHECK(valid(b, with.placements, capacity));
    o.fillers = false;
    CHECK(in.run(capacity, o).status == search_status::gave_up);
  }
}

TEST_CASE("fillers: whole fillers first, and the hand-off walks on the problem with fillers") {
  // Planted uniform problems of 300 buffers with 2 % of the area taken out: the free space is mostly
  // what the buffers taken out left, and the whole-first fillers (engine/completion.hpp) take their
  // shapes. At 30,000 nodes per lane, no deadline (node counts deterministic): the hand-off walks on
  // the completion place seeds 9801, 9805 and 9809 within 15,000 nodes in all; the skyline search alone
  // on it (filler_walks off) needs more than 40,000 (or gives up); without fillers the search gives up.
  for (std::uint64_t seed : {9801u, 9805u, 9809u}) {
    CAPTURE(seed);
    const auto [b, capacity] = make_planted_buffers(planted_family::uniform, 300, seed, 0.98);
    const instance in(b);
    linear_search_options o;
    o.node_limit = 30'000;
    found_within(in, b, capacity, o, 15'000);
    o.filler_walks = false;
    const search_result sky = in.run(capacity, o);
    CHECK((!sky.found() || sky.stats.nodes > 40'000));
    o.fillers = false;
    CHECK(in.run(capacity, o).status == search_status::gave_up);
  }
}

TEST_CASE("max-live turns: more room than the busiest point needs does not lose a placement") {
  SUBCASE("max_live_bytes: the most bytes live at once, lifetimes half-open") {
    const std::vector<extent> ext{{1, 5}, {1, 3}, {1, 4}, {1, 9}};
    const std::vector<interval> life{{0, 2}, {1, 3}, {2, 4}, {5, 5}};  // 5+3 at point 1; the 9 is empty
    CHECK(detail::max_live_bytes(ext, life) == 8);
  }
  SUBCASE("planted problems at 1 % over their capacity: found in the max-live turn") {
    // Both were placed by the search at their planted capacity and given up on at 1 % more with 200,000
    // nodes per lane (docs/PERFORMANCE.md section 1, "Max-live turns"); their busiest points are full,
    // so max-live is the planted capacity. Node counts are deterministic (no deadline).
    struct planted_case {
      planted_family family;
      std::uint64_t seed;
      double tightness;
    };
    const planted_case cases[] = {{planted_family::challenging_cut, 10605, 0.95}, {planted_family::long_short, 10608, 1.0}};
    for (const planted_case& c : cases) {
      CAPTURE(c.seed);
      const auto [b, planted] = make_planted_buffers(c.family, 300, c.seed, c.tightness);
      const std::uint64_t capacity = planted + planted / 100;
      const instance in(b);
      linear_search_options o;
      o.node_limit = 50'000;
      CHECK(found_within(in, b, capacity, o, 20'000).peak <= planted);  // placed inside max-live
      o.max_live_turns = false;
      CHECK(in.run(capacity, o).status == search_status::gave_up);
    }
  }
  SUBCASE("a problem the capacity's first turn decides is answered as without the turns") {
    const auto [b, planted] = make_planted_buffers(planted_family::long_short, 150, 10601, 0.95);
    const std::uint64_t capacity = planted + planted / 100;
    const instance in(b);
    linear_search_options o;
    o.node_limit = 50'000;
    const search_result with = in.run(capacity, o);
    o.max_live_turns = false;
    const search_result without = in.run(capacity, o);
    REQUIRE(with.found());
    REQUIRE(without.found());
    CHECK(with.stats.nodes == without.stats.nodes);
    CHECK(with.stats.nodes < 4'096);
    CHECK(with.placements == without.placements);
  }
}

TEST_CASE("hand-off search: a search whose deadline has passed gives up, however large its node budget") {
  // A full problem (the hand-off search applies, so the other search takes turns with it), no node
  // limit, a deadline already past: every turn is over at once. The turns' budget grew fourfold up to
  // the node limit; unbounded, it overflowed to 0 after 26 turns and the turns never ended (session 32:
  // gca-pack --search, whose node budget is unbounded unless --search-nodes is given, hung after its
  // clock ran out on full problems it could not place). This test hung then.
  const instance in = planted_instance(planted_family::long_short, 100, 1);
  linear_search_options o;
  REQUIRE(o.node_limit == std::numeric_limits<std::uint64_t>::max());
  REQUIRE(o.chain_node_limit == std::numeric_limits<std::uint64_t>::max());
  o.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const search_result r = in.run(1048576, o);
  CHECK(r.status == search_status::gave_up);
  CHECK(r.stats.nodes == 0);  // nothing was searched past the deadline
}

TEST_CASE("hand-off search: walks the time-reversed problem where only that one is full at every point") {
  // Capacity 10: a (4 bytes) lives [0, 4), b (6) [1, 3), d (6) [3, 4). Forward the first point holds 4
  // bytes: not full. Reversed ([T - e, T - b), T = 4) a and d are born at 0 and fill the memory, and b
  // takes d's place at 1: the walk applies there, and its placement is one of the problem as given (the
  // same pairs overlap).
  const std::vector<buf> b{{0, 4, 4}, {1, 3, 6}, {3, 4, 6}};
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
  CHECK_FALSE(chains_of(b, 10, life, bytes).applicable());
  linear_search_options o;
  o.chain_reverse = false;
  const search_result forward_only = instance(b).run(10, o);
  CHECK(forward_only.stats.chain_nodes == 0);
  const search_result both = instance(b).run(10);
  REQUIRE(both.found());
  CHECK(both.stats.chain_nodes > 0);
  CHECK(both.stats.nodes == both.stats.chain_nodes);
  CHECK(valid(b, both.placements, 10));
}

TEST_CASE("hand-off search: places planted long-short problems the other searches give up on") {
  // Planted long-short problems of 100 buffers, full at every point (seeds 1-12). With the hand-off
  // search off, the two lanes of the 1-D search give up on some within 200,000 nodes each; with it on
  // every problem the hand-off search places is a valid placement, and it places at least those.
  int placed_before = 0, placed_now = 0, only_now = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    const planted_dsa d = make_planted_dsa({.family = planted_family::long_short, .buffers = 100, .seed = seed});
    std::vector<buf> b;
    for (const dsa_buffer& x : d.problem.buffers) b.push_back({x.lower, x.upper, x.size});
    const instance in(b);
    linear_search_options off;
    off.node_limit = 200'000;
    off.handoff_chains = false;
    linear_search_options on = off;
    on.handoff_chains = true;
    const search_result before = in.run(d.capacity, off), now = in.run(d.capacity, on);
    CHECK(before.status != search_status::infeasible);
    if (now.found()) CHECK(valid(b, now.placements, d.capacity));
    CHECK(now.stats.chain_nodes <= std::min(on.node_limit, on.chain_node_limit) + 2);  // a node over, per direction
    placed_before += before.found(), placed_now += now.found();
    only_now += now.found() && !before.found();
    // deterministic: the same placement again
    const search_result again = in.run(d.capacity, on);
    CHECK(again.placements == now.placements);
  }
  CHECK(placed_now >= placed_before);
  CHECK(only_now > 0);
}
