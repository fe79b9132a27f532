// Tests of the exact 2-D placement search (gca/engine/place_search.hpp): hand-checked cases (the
// issue-11 kernel's SB problem, banks, pins) and random tiny problems compared with a plain exhaustive
// enumeration of every legal position of every node (which shares no code with the search), feasible and
// infeasible ones alike. Every placement the search returns is checked with the geometry's own legal and
// overlaps.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gca/engine/place_compact.hpp>
#include <gca/engine/place_search.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/graph/interference.hpp>
#include <gca/watchdog.hpp>
#include "support/sanitized.hpp"

using namespace gca;

namespace {

struct tiny {
  live_range_table ranges;
  std::vector<extent> ext;
  std::vector<std::optional<placement>> pins;
  void add(interval i, extent e, std::optional<placement> at = std::nullopt) {
    ranges.add(i);
    ext.push_back(e);
    pins.push_back(at);
  }
  bool meet(std::size_t a, std::size_t b) const {
    const interval x = ranges.ranges(static_cast<node_id>(a))[0], y = ranges.ranges(static_cast<node_id>(b))[0];
    return x.begin < y.end && y.begin < x.end;
  }
};

/// Adds to t a node born at a point below `births`, live for 1..3 points, of the extent `draw_extent()`
/// gives. The draws come in one order (birth, extent, length) on every compiler, which a node's
/// interval and extent drawn inside one call's arguments would not guarantee.
template <class DrawExtent>
void add_random_node(tiny& t, std::mt19937_64& rng, program_point births, DrawExtent&& draw_extent) {
  const program_point b = static_cast<program_point>(rng() % births);
  const extent e = draw_extent();
  t.add({b, b + 1 + static_cast<program_point>(rng() % 3)}, e);
}

/// The time sweep alone on t (engine/place_sweep.hpp) within `budget` nodes, counted on from `nodes`.
std::optional<std::vector<placement>> sweep_alone(const tiny& t, const rect_layout& lay, std::uint64_t budget,
                                                  std::uint64_t& nodes) {
  const interference_graph g = build_interference(t.ranges);
  return gca::detail::time_sweeper(t.ranges, t.ext, t.pins, g, lay)
      .run(budget, std::chrono::steady_clock::time_point::max(), nodes);
}

/// Every legal position of e in g, by brute force over all partitions and byte offsets.
template <class G>
std::vector<placement> positions(const G& g, const extent& e, std::uint64_t capacity) {
  std::vector<placement> out;
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint64_t o = 0; o < capacity; ++o)
      if (g.legal(e, placement{p, o})) out.push_back({p, o});
  return out;
}

/// Pins a node of t drawn at random at one of its legal positions drawn at random (none if it has none).
template <class G>
void pin_at_random(const G& g, tiny& t, std::mt19937_64& rng, std::uint64_t capacity) {
  const std::size_t v = rng() % t.ext.size();
  const auto pos = positions(g, t.ext[v], capacity);
  if (!pos.empty()) t.pins[v] = pos[rng() % pos.size()];
}

/// Exhaustive: does any assignment of legal positions avoid every overlap of meeting nodes?
template <class G>
bool exhaustive(const G& g, const tiny& t, std::uint64_t capacity) {
  const std::size_t n = t.ext.size();
  std::vector<std::vector<placement>> pos(n);
  for (std::size_t v = 0; v < n; ++v) {
    if (t.pins[v]) {
      if (!g.legal(t.ext[v], *t.pins[v])) return false;
      pos[v] = {*t.pins[v]};
    } else {
      pos[v] = positions(g, t.ext[v], capacity);
    }
  }
  std::vector<placement> at(n);
  auto rec = [&](auto&& self, std::size_t v) -> bool {
    if (v == n) return true;
    for (const placement& p : pos[v]) {
      bool ok = true;
      for (std::size_t u = 0; u < v && ok; ++u)
        if (t.meet(u, v) && g.overlaps(t.ext[v], p, t.ext[u], at[u])) ok = false;
      if (!ok) continue;
      at[v] = p;
      if (self(self, v + 1)) return true;
    }
    return false;
  };
  return rec(rec, 0);
}

template <class G>
void check_valid(const G& g, const tiny& t, const place_result& r) {
  REQUIRE(r.placements.size() == t.ext.size());
  for (std::size_t v = 0; v < t.ext.size(); ++v) {
    REQUIRE(r.placements[v]);
    CHECK(g.legal(t.ext[v], *r.placements[v]));
    if (t.pins[v]) CHECK(*r.placements[v] == *t.pins[v]);
    for (std::size_t u = 0; u < v; ++u)
      if (t.meet(u, v)) CHECK_FALSE(g.overlaps(t.ext[v], *r.placements[v], t.ext[u], *r.placements[u]));
  }
}

/// place_search on t, checked against exhaustive enumeration: it decides, agrees, and what it finds is
/// valid. Returns its result (for the caller's counts).
template <class G>
place_result decided_as_exhaustive(const G& g, const tiny& t, std::uint64_t capacity) {
  const place_result r = place_search({t.ranges, t.ext, t.pins}, g);
  REQUIRE(r.status != search_status::gave_up);
  CHECK((r.status == search_status::found) == exhaustive(g, t, capacity));
  if (r.status == search_status::found) check_valid(g, t, r);
  return r;
}

}  // namespace

TEST_CASE("place_search: the issue-11 SB problem (two pins, four free tensors) is placed") {
  // trn2 usable SB: 128 partitions x 212984 bytes. The lives are those of tests/tool_inputs/issue11_sb.gca.
  const scratchpad_2d sb(128, 212984, 1);
  tiny t;
  t.add({0, 7}, {128, 65536}, placement{0, 0});
  t.add({1, 7}, {32, 80000}, placement{96, 120000});
  t.add({2, 7}, {128, 20000});
  t.add({3, 5}, {64, 60000});
  t.add({4, 7}, {128, 20000});
  t.add({5, 7}, {32, 80000});
  const place_result r = place_search({t.ranges, t.ext, t.pins}, sb);
  REQUIRE(r.status == search_status::found);
  check_valid(sb, t, r);
}

TEST_CASE("place_search: a node marked fixed must be pinned") {
  // `fixed` marks pins placed together; a free node marked fixed would lose its edges to the other fixed
  // nodes, and the time sweep reads every node live with a free node as its neighbor.
  const scratchpad_2d sb(128, 100, 1);
  tiny t;
  t.add({0, 2}, {128, 40}, placement{0, 0});
  t.add({0, 2}, {128, 40});
  const std::vector<std::uint8_t> pin_fixed{1, 0}, free_fixed{1, 1};
  CHECK(place_search({t.ranges, t.ext, t.pins, pin_fixed}, sb).status == search_status::found);
  CHECK_THROWS_WITH_AS(place_search({t.ranges, t.ext, t.pins, free_fixed}, sb), "place_search: node 1 is fixed but not pinned",
                       input_error);
}

TEST_CASE("place_search: hand-checked proofs and finds") {
  const scratchpad_2d sb(128, 100, 1);
  SUBCASE("three 128-partition tensors of 40 bytes live together do not fit in 100 bytes") {
    tiny t;
    for (int k = 0; k < 3; ++k) t.add({0, 2}, {128, 40});
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb);
    CHECK(r.status == search_status::infeasible);
  }
  SUBCASE("four 32-partition tensors of 100 bytes fill the memory exactly, one per start partition") {
    tiny t;
    for (int k = 0; k < 4; ++k) t.add({0, 2}, {32, 100});
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb);
    REQUIRE(r.status == search_status::found);
    check_valid(sb, t, r);
  }
  SUBCASE("a 33-partition tensor may not start at 32: two of them and one 64 of 100 bytes do not fit") {
    // 33..64 partitions start at 0 or 64, so the two 33-partition tensors take both halves; the 64 needs one.
    tiny t;
    t.add({0, 2}, {33, 100});
    t.add({0, 2}, {33, 100});
    t.add({0, 2}, {64, 100});
    CHECK(place_search({t.ranges, t.ext, t.pins}, sb).status == search_status::infeasible);
    CHECK_FALSE(exhaustive(sb, t, 100));
  }
  SUBCASE("lives that do not meet share bytes") {
    tiny t;
    t.add({0, 2}, {128, 100});
    t.add({2, 4}, {128, 100});
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb);
    REQUIRE(r.status == search_status::found);
    CHECK(r.placements[1]->offset == 0);
  }
  SUBCASE("PSUM: a tensor may not cross a bank") {
    const psum_banks ps(128, 2, 10, 1, false);
    tiny t;
    t.add({0, 2}, {128, 6});
    t.add({0, 2}, {128, 6});
    t.add({0, 2}, {128, 6});  // 18 <= 20 bytes, but only one 6-byte tensor fits in a 10-byte bank
    CHECK(place_search({t.ranges, t.ext, t.pins}, ps).status == search_status::infeasible);
    const psum_banks span(128, 2, 10, 1, true);
    CHECK(place_search({t.ranges, t.ext, t.pins}, span).status == search_status::found);
  }
  SUBCASE("a budget of one search node gives up before placing two nodes (and says so)") {
    tiny t;
    for (int k = 0; k < 2; ++k) t.add({0, 2}, {128, 40});
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{1});
    CHECK(r.status == search_status::gave_up);
  }
}

TEST_CASE("place_search: R2 counts only what fits in the holes below pins") {
  // A 128-partition pin of 40 bytes at offset 50 leaves holes of 50 and 10 bytes; two free 30-byte
  // blocks live with it fill at most 30 of the first and none of the second. The area (60 of the 60 free
  // bytes) does not show it; the holes do, at the root. (The fill's bound cuts it at its root too, with
  // no node spent; the time sweep, which has no such bound, spends one before the walk's root.)
  const scratchpad_2d sb(128, 100, 1);
  tiny t;
  t.add({0, 2}, {128, 40}, placement{0, 50});
  t.add({0, 2}, {128, 30});
  t.add({0, 2}, {128, 30});
  const place_result r = place_search({t.ranges, t.ext, t.pins}, sb);
  CHECK(r.status == search_status::infeasible);
  CHECK(r.nodes <= 2);  // the walk's root (R2 cuts it there), after the time sweep's one try
  CHECK_FALSE(exhaustive(sb, t, 100));
  // With the 128-partition pin at 60, the hole [0, 60) holds both 30s exactly; a 1-byte pin at 59 in
  // partitions 96..127 shortens that quarter's hole to 59 bytes, where only one of them fits.
  tiny u;
  u.add({0, 2}, {128, 40}, placement{0, 60});
  u.add({0, 2}, {128, 30});
  u.add({0, 2}, {128, 30});
  const place_result ok = place_search({u.ranges, u.ext, u.pins}, sb);
  REQUIRE(ok.status == search_status::found);
  check_valid(sb, u, ok);
  u.add({0, 2}, {32, 1}, placement{96, 59});  // a 1-byte pin at the top of the hole in partitions 96..127
  CHECK(place_search({u.ranges, u.ext, u.pins}, sb).status == search_status::infeasible);
  CHECK_FALSE(exhaustive(sb, u, 100));
}

TEST_CASE("place_search: agrees with exhaustive enumeration on random tiny problems with several pins") {
  // Pins make holes (R2) and the search's print (R4) sees more distinct states; each problem has 2 or 3
  // pins at legal positions that do not overlap each other while both live, and up to 7 nodes in all.
  std::mt19937_64 rng(23);
  int found = 0, infeasible = 0;
  const std::uint32_t parts[] = {16, 32, 64, 96, 128};
  for (int it = 0; it < 300; ++it) {
    const std::uint64_t cap = 8 + rng() % 5;
    const scratchpad_2d sb(128, cap, 1 + rng() % 2);
    tiny t;
    const int n = 4 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      add_random_node(t, rng, 4, [&] { return extent{parts[rng() % 5], 1 + rng() % (cap / 2)}; });
    }
    const int pins = 2 + static_cast<int>(rng() % 2);
    for (int k = 0; k < pins; ++k) {
      const std::size_t v = rng() % t.ext.size();
      const auto pos = positions(sb, t.ext[v], cap);
      if (pos.empty()) continue;
      const placement at = pos[rng() % pos.size()];
      bool clash = false;
      for (std::size_t u = 0; u < t.ext.size(); ++u)
        if (u != v && t.pins[u] && t.meet(u, v) && sb.overlaps(t.ext[v], at, t.ext[u], *t.pins[u])) clash = true;
      if (!clash) t.pins[v] = at;
    }
    CAPTURE(it);
    const place_result r = decided_as_exhaustive(sb, t, cap);
    (r.status == search_status::found ? found : infeasible) += 1;
  }
  CHECK(found > 40);
  CHECK(infeasible > 40);
}

TEST_CASE("watchdog: a caller's deadline stops the placement search inside its node loop") {
  // The search ticks the watchdog (gca/watchdog.hpp) 16 units per node, so the clock is read every 256
  // nodes. The first seeded random problem that takes the search past 1024 nodes without a deadline must
  // throw timeout_error under a deadline already past; its own budget (a result: gave_up) is separate.
  const scratchpad_2d sb(128, 100, 1);
  const std::uint32_t parts[] = {16, 32, 33, 64, 65, 96, 128};
  bool tried = false;
  for (std::uint64_t seed = 1; seed <= 400 && !tried; ++seed) {
    std::mt19937_64 rng(seed);
    tiny t;
    for (int k = 0; k < 16; ++k) {
      add_random_node(t, rng, 5, [&] { return extent{parts[rng() % 7], 10 + rng() % 51}; });
    }
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{200000});
    if (r.nodes < 1024) continue;
    tried = true;
    CAPTURE(seed);
    const watchdog_scope scope(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    CHECK_THROWS_WITH_AS(place_search({t.ranges, t.ext, t.pins}, sb, search_limits{200000}), "GCA is taking too long",
                         timeout_error);
  }
  CHECK(tried);
}

TEST_CASE("place_search: agrees with exhaustive enumeration on random tiny problems") {
  std::mt19937_64 rng(11);
  int found = 0, infeasible = 0;
  const std::uint32_t parts[] = {16, 32, 48, 64, 96, 128};
  for (int it = 0; it < 400; ++it) {
    const std::uint64_t cap = 6 + rng() % 5;
    const std::uint64_t align = 1 + rng() % 2;
    const bool psum = rng() % 3 == 0;
    tiny t;
    const int n = 2 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) {
      add_random_node(t, rng, 4, [&] { return extent{parts[rng() % 6], 1 + rng() % (cap / 2 + 1)}; });
    }
    auto run = [&](const auto& g, std::uint64_t capacity) {
      // Pin a node now and then at one of its legal positions.
      if (rng() % 3 == 0) pin_at_random(g, t, rng, capacity);
      const place_result r = decided_as_exhaustive(g, t, capacity);
      (r.status == search_status::found ? found : infeasible) += 1;
    };
    if (psum) {
      run(psum_banks(128, 2, cap, align, rng() % 2 == 0), 2 * cap);
    } else {
      run(scratchpad_2d(128, cap, align), cap);
    }
  }
  CHECK(found > 50);
  CHECK(infeasible > 50);
}

// Probe turns (place_searcher::probe_turn): the canonical walk, the only one that proves, takes turns
// with the others, so a part it proves infeasible in a few nodes is answered then, not after the fills,
// the sweep and the repair walk have each spent their share of the budget (3/8 of it: the repair walk
// alone moves eight times a node). Random tiny problems, SB and PSUM, with pins now and then, at
// search_limits' default budget (200,000 nodes): with and without the probes the same answer, which
// agrees with enumeration; of the infeasible ones R2 does not cut at the root, without the probes each
// is proved after more than 3/8 of the budget, with them never in more nodes (the probes are the final
// walk cut into turns) and most in half the nodes or fewer (when written, 15 of 15).
TEST_CASE("place_search: probes of the canonical walk prove infeasible parts early") {
  std::mt19937_64 rng(53);
  int proved = 0, early = 0, found = 0;
  const std::uint32_t parts[] = {16, 32, 48, 64, 96, 128};
  for (std::uint64_t it = 0; it < gca::test::sweep_seeds(200, 100); ++it) {
    const std::uint64_t cap = 6 + rng() % 5;
    const bool psum = rng() % 3 == 0;
    tiny t;
    const int n = 5 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) add_random_node(t, rng, 3, [&] { return extent{parts[rng() % 6], 1 + rng() % (cap / 2 + 1)}; });
    auto run = [&](const auto& g, std::uint64_t capacity) {
      if (rng() % 3 == 0) pin_at_random(g, t, rng, capacity);
      search_limits with, without;
      without.probes = false;
      const place_result r = place_search({t.ranges, t.ext, t.pins}, g, with);
      const place_result o = place_search({t.ranges, t.ext, t.pins}, g, without);
      REQUIRE(r.status != search_status::gave_up);
      CHECK(r.status == o.status);
      CHECK((r.status == search_status::found) == exhaustive(g, t, capacity));
      if (r.status == search_status::found) {
        ++found;
        check_valid(g, t, r);
      } else if (o.nodes > 1000) {  // not cut at the root: the other walks ran
        ++proved;
        CHECK(o.nodes > with.max_nodes / 8 * 3);
        CHECK(r.nodes <= o.nodes);
        early += r.nodes <= o.nodes / 2;
      }
    };
    CAPTURE(it);
    if (psum) run(psum_banks(128, 2, cap, 1, rng() % 2 == 0), 2 * cap);
    else run(scratchpad_2d(128, cap, 1), cap);
  }
  MESSAGE(proved << " proved infeasible past the root (" << early << " by a probe), " << found << " found");
  CHECK(proved >= static_cast<int>(gca::test::sweep_seeds(10, 1)));
  CHECK(early * 4 >= proved * 3);
  CHECK(found >= static_cast<int>(gca::test::sweep_seeds(50, 10)));
}

// ---- planted SB kernels and refusals checked by enumeration ------------------------------------------

#include <gca/gen/planted_sb.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/spill/place_or_prove.hpp>
#include <gca/pipeline/passes.hpp>
#include <gca/pipeline/pipeline.hpp>
#include <gca/verify/verify.hpp>
#include <gca/verify/translation.hpp>

namespace {

/// -O2 pass options for the allocator tests under small search budgets: `nodes` for a space's first
/// round, `guided` per trial victim set, `total` per space, on `threads` threads.
gca::pass_options search_budget(std::uint64_t total, std::uint64_t nodes = 5000, std::uint64_t guided = 1000,
                                unsigned threads = 1) {
  gca::pass_options popt;
  popt.alloc.threads = threads;
  popt.alloc.search.nodes = nodes;
  popt.alloc.search.guided_nodes = guided;
  popt.alloc.search.repair_set_nodes = 10 * guided;  // the defaults' ratio
  popt.alloc.search.total_nodes = total;
  return popt;
}

/// Runs the pre-codegen pipeline of `level` and allocator `family` ("coloring" or "lsa", whose engines
/// it switches to linear scan) on m with `popt`; the reports of its passes.
std::vector<gca::pass_report> run_level(gca::module& m, int level, const std::string& family, gca::pass_options popt) {
  gca::pipeline_config cfg;
  cfg.optlevel = level;
  cfg.allocator = family;
  if (family == "lsa") popt.alloc.engine = gca::engine_kind::linear_scan;
  return gca::run_pipeline(m, gca::build_pipeline(cfg), gca::default_registry(), popt, {true, nullptr});
}

/// The -O2 pipeline, coloring family, on m; the reports of its passes.
std::vector<gca::pass_report> run_o2(gca::module& m, const gca::pass_options& popt) { return run_level(m, 2, "coloring", popt); }

/// Runs run_level with one thread and the default budgets; returns the error text ("" on success) and
/// adds the webs spilled to `spilled`.
std::string allocate(gca::module& m, int level, const std::string& family, std::size_t& spilled) {
  gca::pass_options popt;
  popt.alloc.threads = 1;
  try {
    for (const gca::pass_report& r : run_level(m, level, family, popt))
      for (const auto& [fn, rep] : r.functions) spilled += rep.spills.spilled_webs;
  } catch (const gca::allocation_error& e) {
    return e.what();
  }
  return "";
}

/// Allocates `original` at -O2 and -O6 in both allocator families: each must succeed without a spill and
/// verify. (The caller's CAPTUREs name the kernel.)
void allocates_spill_free(const gca::module& original) {
  for (int level : {2, 6})
    for (const std::string family : {"coloring", "lsa"}) {
      CAPTURE(level);
      CAPTURE(family);
      gca::module m = original;
      std::size_t spilled = 0;
      REQUIRE(allocate(m, level, family, spilled) == "");
      CHECK(spilled == 0);
      const gca::verify_report v = gca::verify(m, {.linked = false});
      INFO(v.message());
      CHECK(v.ok());
    }
}

}  // namespace

// Small planted kernels never spill nor are refused, with or without a fifth of their tensors pinned
// (the search finds their spill-free placement within its node budget: deterministic under the default
// deadline, see search_options).
TEST_CASE("planted SB kernels: the planted placement is valid, and small ones never spill nor are refused") {
  for (const auto fam : {gca::planted_sb_family::mixed, gca::planted_sb_family::only128, gca::planted_sb_family::tight})
    for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(4, 1); ++seed)
      for (const double pins : {0.0, 0.2}) {
        gca::planted_sb_options o;
        o.tensors = 12;
        o.seed = seed;
        o.family = fam;
        o.pins = pins;
        const gca::planted_sb p = gca::make_planted_sb(o);
        // The planted placement itself: legal, and disjoint wherever two lives overlap.
        const scratchpad_2d sb(o.tgt);
        for (std::size_t a = 0; a < p.tensors.size(); ++a) {
          REQUIRE(sb.legal(p.tensors[a].shape, p.tensors[a].at));
          for (std::size_t b = 0; b < a; ++b)
            if (p.tensors[a].born < p.tensors[b].dies && p.tensors[b].born < p.tensors[a].dies)
              REQUIRE_FALSE(sb.overlaps(p.tensors[a].shape, p.tensors[a].at, p.tensors[b].shape, p.tensors[b].at));
        }
        CAPTURE(seed);
        CAPTURE(pins);
        CAPTURE(static_cast<int>(fam));
        allocates_spill_free(gca::parse(p.text));
      }
}

// Holes (planted_sb_options::holes): the kernel keeps a subset of the tensors of the same kernel without
// holes, at the same places and lives, every pinned one among them, and about the asked share of the
// unpinned ones gone; the busiest points then have free space scattered through them, not only above. Small
// ones still allocate without a spill at -O2 and -O6 in both families, and verify.
TEST_CASE("planted SB kernels with holes: a subset of the full kernel, and small ones never spill") {
  CHECK_THROWS_AS(gca::make_planted_sb({.holes = 1.0}), gca::input_error);
  CHECK_THROWS_AS(gca::make_planted_sb({.holes = -0.1}), gca::input_error);
  for (const double pins : {0.0, 0.2}) {
    gca::planted_sb_options o;
    o.tensors = 300;
    o.seed = 7;
    o.pins = pins;
    const gca::planted_sb full = gca::make_planted_sb(o);
    o.holes = 0.3;
    const gca::planted_sb holed = gca::make_planted_sb(o);
    std::size_t unpinned = 0, kept_unpinned = 0, j = 0;
    for (const gca::planted_tensor& t : full.tensors) {
      unpinned += !t.pinned;
      if (j < holed.tensors.size() && holed.tensors[j].name == t.name) {
        const gca::planted_tensor& h = holed.tensors[j++];
        CHECK(h.at == t.at);
        CHECK(h.born == t.born);
        CHECK(h.dies == t.dies);
        CHECK(h.pinned == t.pinned);
        kept_unpinned += !h.pinned;
      } else {
        CHECK_FALSE(t.pinned);  // only unpinned tensors are removed
      }
    }
    CHECK(j == holed.tensors.size());  // every kept tensor was matched, in order
    CAPTURE(pins);
    CHECK(kept_unpinned > unpinned * 55 / 100);  // about 70 % kept
    CHECK(kept_unpinned < unpinned * 85 / 100);
  }
  for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(3, 1); ++seed)
    for (const double pins : {0.0, 0.2}) {
      gca::planted_sb_options o;
      o.tensors = 30;
      o.seed = seed;
      o.pins = pins;
      o.holes = 0.2;
      o.family = gca::planted_sb_family::tight;
      CAPTURE(seed);
      CAPTURE(pins);
      allocates_spill_free(gca::parse(gca::make_planted_sb(o).text));
    }
}

// What a spill says about itself (space_report::search_outcome, printed by gca-alloc and in --json): a
// space over-full at one point (three tensors of 0.4 SB live at `%c = op %b`, no instruction reading more
// than two) spills with the search's proof that no spill-free placement exists ("infeasible"); a planted
// kernel the colorer cannot place is placed by the search ("found", nothing spilled); with the search cut
// to 50 nodes it spills, and says that the search gave up.
TEST_CASE("a spill reports whether the search proved it necessary") {
  const std::uint64_t b = trn2.sb_usable / 5 * 2 / trn2.sb_alignment * trn2.sb_alignment;  // three do not fit
  const std::string over = "module m target=trn2\nfunction main core=0 {\n  tensor %x : dram 64 input\n"
                           "  tensor %y : dram 64 output\n  tensor %a : sb 128x" + std::to_string(b) +
                           "\n  tensor %b : sb 128x" + std::to_string(b) + "\n  tensor %c : sb 128x" +
                           std::to_string(b) + "\n  %a = op %x\n  %b = op %x\n  %c = op %b\n  op %a, %c\n"
                           "  %y = store %x\n}\n";
  std::string skipped;
  auto run = [&skipped](const std::string& text, std::uint64_t nodes, std::uint64_t max_pairs = std::uint64_t{1} << 20) {
    gca::module m = gca::parse(text);
    gca::pass_options popt;
    popt.alloc.threads = 1;
    popt.alloc.search.nodes = nodes;
    popt.alloc.search.max_pairs = max_pairs;
    std::pair<std::size_t, std::string> out{0, "(no SB report)"};
    for (const gca::pass_report& r : run_o2(m, popt))
      for (const auto& [fn, rep] : r.functions)
        if (rep.memory == gca::memory_type::sb && r.pass == "coloring_allocator_sb")
          out = {rep.spills.spilled_webs, rep.search_outcome}, skipped = rep.search_skipped;
    const gca::verify_report v = gca::verify(m, {.linked = false});
    INFO(v.message());
    CHECK(v.ok());
    return out;
  };
  const auto [spilled_over, outcome_over] = run(over, 1000000);
  CHECK(spilled_over > 0);
  CHECK(outcome_over == "infeasible");
  gca::planted_sb_options o;
  o.tensors = 150;
  o.seed = 3;
  const std::string planted = gca::make_planted_sb(o).text;
  const auto [spilled_full, outcome_full] = run(planted, 1000000);
  CHECK(spilled_full == 0);
  CHECK(outcome_full == "found");
  // A 50-node search gives up on it; the victims' searches (20,000 nodes each) find a set whose spilled
  // view they place, and the next round places the spilled program at that view's places (the hints):
  // a spill, which says that the search only gave up. (Before the hints, later rounds searched from
  // scratch on 5 nodes, spilled on and ended refused.)
  const auto [spilled_cut, outcome_cut] = run(planted, 50);
  CHECK(spilled_cut > 0);
  CHECK(outcome_cut == "gave up");
  CHECK(skipped.empty());
  // With a pair limit below the whole space's interfering pairs (search_options::max_pairs) the searches
  // of the space do not run (only those of views with 10 pairs or fewer): the colorer spills on until
  // nothing more can be spilled, and the refusal says that the search did not run, and claims nothing.
  std::string refusal;
  try {
    run(planted, 1000000, 10);
  } catch (const gca::allocation_error& e) {
    refusal = e.what();
  }
  INFO(refusal);
  CHECK(refusal.find("(one search did not run: 1454 interfering pairs, more than the search builds its graph for (10))") !=
        std::string::npos);
  CHECK(refusal.find("can't help") == std::string::npos);
}

namespace {
/// A planted SB (or PSUM) problem (gca/gen/planted_sb.hpp) as a place_search input: its tensors, pinned
/// ones at their planted place.
tiny planted_problem(gca::planted_sb_family family, std::size_t tensors, std::uint64_t seed, double pins,
                     memory_type memory = memory_type::sb,
                     gca::planted_sb_construction construction = gca::planted_sb_construction::epochs,
                     double holes = 0, double tightness = 1) {
  gca::planted_sb_options o;
  o.tensors = tensors;
  o.tightness = tightness;
  o.seed = seed;
  o.family = family;
  o.pins = pins;
  o.holes = holes;
  o.memory = memory;
  o.construction = construction;
  const gca::planted_sb p = gca::make_planted_sb(o);
  tiny t;
  for (const gca::planted_tensor& x : p.tensors)
    t.add({x.born, x.dies}, x.shape, x.pinned ? std::optional<placement>(x.at) : std::nullopt);
  return t;
}

/// The kernel (module) of a planted SB problem of `tensors` tensors built by sweep (no pins).
gca::module sweep_kernel(gca::planted_sb_family family, std::uint64_t seed, std::size_t tensors = 60, double tightness = 1) {
  gca::planted_sb_options o;
  o.tensors = tensors;
  o.tightness = tightness;
  o.seed = seed;
  o.family = family;
  o.construction = gca::planted_sb_construction::sweep;
  return gca::parse(gca::make_planted_sb(o).text);
}

/// Planted problems of `family` and `tensors` (memory `memory`, seeds 1..seeds, pins 0 and 0.2): each must
/// be placed, validly, within `budget` nodes; returns the nodes spent in all, and those spent with
/// `without` (the same budget, one rule switched off; the budget counted for a problem not placed).
template <class G>
std::pair<std::uint64_t, std::uint64_t> nodes_with_and_without(const G& g, gca::planted_sb_family family,
                                                               std::size_t tensors, memory_type memory,
                                                               std::uint64_t seeds, const search_limits& without) {
  std::uint64_t nodes = 0, nodes_without = 0;
  for (const double pins : {0.0, 0.2})
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      const tiny t = planted_problem(family, tensors, seed, pins, memory);
      CAPTURE(seed);
      CAPTURE(pins);
      const place_result r = place_search({t.ranges, t.ext, t.pins}, g, search_limits{without.max_nodes});
      REQUIRE(r.status == search_status::found);
      check_valid(g, t, r);
      nodes += r.nodes;
      nodes_without += place_search({t.ranges, t.ext, t.pins}, g, without).nodes;
    }
  return {nodes, nodes_without};
}
}  // namespace

// The skyline fill (engine/place_fill.hpp) on planted SB problems of 60 tensors whose busiest points are
// exactly full: tight partition mixes and a fifth pinned, where the canonical walk alone placed 1 of the 8
// tight pinned ones of this sweep within the same budget when the fill came. Each must be found within
// 200,000 search nodes, and is checked with the geometry's own legal and overlaps.
TEST_CASE("place_search: planted SB problems of 60 tensors, exactly full, are placed within the node budget") {
  const scratchpad_2d sb(trn2);
  for (const auto fam : {gca::planted_sb_family::tight, gca::planted_sb_family::mixed})
    for (const double pins : {0.0, 0.2})
      for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(8, 1); ++seed) {
        const tiny t = planted_problem(fam, 60, seed, pins);
        CAPTURE(seed);
        CAPTURE(pins);
        CAPTURE(static_cast<int>(fam));
        const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{200000});
        REQUIRE(r.status == search_status::found);
        check_valid(sb, t, r);
      }
}

// The fill's flush-first order (place_fill.hpp, contacts()): exactly full tight problems of 300 tensors,
// pinned or not, on the fill's development seeds, where the order by area alone needed a median of 30,000-
// 38,000 nodes and missed some within 1,000,000. With blocks flush with their neighbours tried first, each
// is placed within 20,000 nodes (the bottom-up fill's quarter: 5,000). With `flush_first` off they took
// 508,218 nodes in all before the fill's free cuts (session 16) and 21,163 since, against 4,526 with it on
// (1,000,000 nodes each): so `flush_first` must still save most of the nodes within 20,000 each.
TEST_CASE("place_search: the fill places exactly full 300-tensor problems almost without backtracking") {
  search_limits area_only{20000};
  area_only.flush_first = false;
  const auto [nodes, nodes_without] =
      nodes_with_and_without(scratchpad_2d(trn2), gca::planted_sb_family::tight, 300, memory_type::sb, 4, area_only);
  MESSAGE("nodes " << nodes << " with the order by area alone " << nodes_without);
  CHECK(nodes * 3 < nodes_without);
}

// The fill upside down (place_search.hpp, fill_and_sweep): a planted tight pinned problem of 150 tensors
// (seed 216, held out) whose hardest part the bottom-up fill and the canonical walk each gave up on after
// 500,000 nodes, and which the reflected fill places in a few thousand. Before the reflection, 20,000
// nodes were not enough (nor 1,000,000); the placement, reflected back, must be valid.
TEST_CASE("place_search: a pinned problem the fill misses bottom-up is found upside down") {
  const scratchpad_2d sb(trn2);
  const tiny t = planted_problem(gca::planted_sb_family::tight, 150, 216, 0.2);
  const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{20000});
  REQUIRE(r.status == search_status::found);
  check_valid(sb, t, r);
  for (std::size_t v = 0; v < t.pins.size(); ++v)
    if (t.pins[v]) CHECK(*r.placements[v] == *t.pins[v]);
}

// The reverse turns (place_search.hpp, reverse_turn): a planted PSUM kernel by epochs at tightness 1, a
// fifth pinned (seed 15407, 150 tensors), whose last epoch has pins born inside it; every forward walk gave
// up on it after 1,000,000 nodes (and 4,000,000), the same walks reversed in time place it in a few
// thousand. Without the reverse turns it is given up on within this budget, with them it is placed, and the
// placement, taken as it is (a placement reversed in time is one forward), must be valid.
TEST_CASE("place_search: a pinned PSUM problem the walks miss forward is found reversed in time") {
  const psum_banks ps(trn2);
  const tiny t = planted_problem(gca::planted_sb_family::tight, 150, 15407, 0.2, memory_type::psum,
                                 gca::planted_sb_construction::epochs, 0, 1.0);
  search_limits forward{200000};
  forward.reverse_turns = false;
  CHECK(place_search({t.ranges, t.ext, t.pins}, ps, forward).status == search_status::gave_up);
  const place_result r = place_search({t.ranges, t.ext, t.pins}, ps, search_limits{200000});
  REQUIRE(r.status == search_status::found);
  check_valid(ps, t, r);
  for (std::size_t v = 0; v < t.pins.size(); ++v)
    if (t.pins[v]) CHECK(*r.placements[v] == *t.pins[v]);
}

namespace {

struct small_tensor {
  extent shape;
  std::uint32_t born, dies;
  std::optional<placement> pin;
};

/// Exhaustive: is there a spill-free placement? Free tensors take every start partition and every
/// offset that is 0 or the end of a pin plus the sizes of a subset of the other free tensors (pushing a
/// tensor down until it meets 0 or a tensor below it reaches such an offset, so these offsets include one
/// placement of every feasible instance); the enumeration shares no code with the search.
bool spill_free_exists(const std::vector<small_tensor>& ts, const scratchpad_2d& sb) {
  const std::size_t n = ts.size();
  std::vector<std::uint64_t> bases{0};
  for (const small_tensor& t : ts)
    if (t.pin) bases.push_back(t.pin->offset + t.shape.bytes);
  std::vector<std::size_t> free;
  for (std::size_t k = 0; k < n; ++k)
    if (!ts[k].pin) free.push_back(k);
  std::vector<std::vector<placement>> pos(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (ts[k].pin) {
      if (!sb.legal(ts[k].shape, *ts[k].pin)) return false;
      pos[k] = {*ts[k].pin};
      continue;
    }
    for (std::uint64_t base : bases)
      for (std::uint32_t mask = 0; mask < (1u << free.size()); ++mask) {
        std::uint64_t o = base;
        for (std::size_t j = 0; j < free.size(); ++j)
          if ((mask >> j) & 1) o += ts[free[j]].shape.bytes;
        for (std::uint32_t p : {0u, 32u, 64u, 96u})
          if (sb.legal(ts[k].shape, placement{p, o})) pos[k].push_back({p, o});
      }
  }
  std::vector<placement> at(n);
  auto rec = [&](auto&& self, std::size_t k) -> bool {
    if (k == n) return true;
    for (const placement& p : pos[k]) {
      bool ok = true;
      for (std::size_t u = 0; u < k && ok; ++u)
        if (ts[u].born < ts[k].dies && ts[k].born < ts[u].dies && sb.overlaps(ts[k].shape, p, ts[u].shape, at[u]))
          ok = false;
      if (!ok) continue;
      at[k] = p;
      if (self(self, k + 1)) return true;
    }
    return false;
  };
  return rec(rec, 0);
}

}  // namespace

TEST_CASE("small random SB kernels: every refusal is checked by exhaustive enumeration") {
  // A refused kernel must have no spill-free placement; a refusal that claims "spilling can't help" must
  // come with its proof named; one without proof says the search gave up.
  std::mt19937_64 rng(7);
  const gca::target tgt = gca::trn2;
  const scratchpad_2d sb(tgt);
  const std::uint32_t parts[] = {16, 32, 64, 96, 128};
  int refused = 0, placed = 0, spill_free = 0;
  for (int it = 0; it < 120; ++it) {
    std::vector<small_tensor> ts(3 + rng() % 3);
    for (small_tensor& t : ts) {
      t.shape = {parts[rng() % 5], tgt.sb_usable / 5 + rng() % (tgt.sb_usable / 2)};
      t.born = static_cast<std::uint32_t>(rng() % 4);
      t.dies = t.born + 2 + static_cast<std::uint32_t>(rng() % 3);
      if (rng() % 4 == 0) {
        const auto st = gca::detail::allowed_partition_starts(t.shape.partitions, 128);
        t.pin = placement{st.start[rng() % st.count], rng() % (tgt.sb_usable - t.shape.bytes + 1)};
      }
    }
    // Pins must not overlap each other while both live (that is bad input, reported differently).
    bool bad = false;
    for (std::size_t a = 0; a < ts.size(); ++a)
      for (std::size_t b = 0; b < a; ++b)
        if (ts[a].pin && ts[b].pin && ts[a].born < ts[b].dies && ts[b].born < ts[a].dies &&
            sb.overlaps(ts[a].shape, *ts[a].pin, ts[b].shape, *ts[b].pin))
          bad = true;
    if (bad) continue;
    std::string text = "module r target=trn2\nfunction main core=0 {\n  tensor %x : dram 64 input\n  tensor %y : dram 64 output\n";
    std::uint32_t steps = 0;
    for (std::size_t k = 0; k < ts.size(); ++k) {
      text += "  tensor %t" + std::to_string(k) + " : sb " + std::to_string(ts[k].shape.partitions) + "x" +
              std::to_string(ts[k].shape.bytes);
      if (ts[k].pin) text += " @ " + std::to_string(ts[k].pin->partition) + ":" + std::to_string(ts[k].pin->offset);
      text += "\n";
      steps = std::max(steps, ts[k].dies);
    }
    for (std::uint32_t s = 0; s < steps; ++s) {
      std::string outs, ins;
      for (std::size_t k = 0; k < ts.size(); ++k) {
        if (ts[k].born == s) outs += (outs.empty() ? "%t" : ", %t") + std::to_string(k);
        if (ts[k].dies - 1 == s) ins += (ins.empty() ? " %t" : ", %t") + std::to_string(k);
      }
      if (outs.empty() && ins.empty()) continue;
      text += "  " + (outs.empty() ? std::string() : outs + " = ") + "op" + (ins.empty() ? std::string(" %x") : ins) + "\n";
    }
    text += "  %y = store %x\n}\n";
    const bool exists = spill_free_exists(ts, sb);
    spill_free += exists ? 1 : 0;
    for (const std::string family : {"coloring", "lsa"}) {
      CAPTURE(text);
      CAPTURE(family);
      gca::module m = gca::parse(text);
      std::size_t spilled = 0;
      const std::string err = allocate(m, 2, family, spilled);
      if (err.empty()) {
        ++placed;
        if (exists) CHECK(spilled == 0);  // a spill-free placement exists: nothing may spill
        continue;
      }
      ++refused;
      CHECK_FALSE(exists);
      const bool cant_help = err.find("spilling can't help") != std::string::npos;
      CHECK((cant_help ? err.find("(proved by the placement search)") != std::string::npos
                       : err.find("placement search gave up") != std::string::npos));
    }
  }
  CHECK(refused > 10);
  CHECK(placed > 10);
  CHECK(spill_free > 10);
}

TEST_CASE("search_deadline: a space's search time is a share of the time left, and at most `seconds`") {
  using namespace std::chrono;
  const steady_clock::time_point t0 = steady_clock::now();
  gca::search_options o;  // half of what is left, no fixed cap
  CHECK(gca::search_deadline(o, t0, steady_clock::time_point::max()) == steady_clock::time_point::max());
  const auto four = gca::search_deadline(o, t0, t0 + seconds(4));
  CHECK(four >= t0 + milliseconds(1999));
  CHECK(four <= t0 + milliseconds(2001));
  CHECK(gca::search_deadline(o, t0, t0 - seconds(1)) <= t0);  // already late: no search time at all
  o.seconds = 10;
  CHECK(gca::search_deadline(o, t0, steady_clock::time_point::max()) == t0 + seconds(10));
  CHECK(gca::search_deadline(o, t0, t0 + seconds(100)) == t0 + seconds(10));
  o.seconds = 0;
  CHECK(gca::search_deadline(o, t0, steady_clock::time_point::max()) == t0);
}

// Planted PSUM kernels (planted_sb_options::memory): every tensor inside one 2 KiB bank, the banks full at
// the busiest points. The fill's walk with no discrepancy follows the first choice that survives the bound
// (`free_cuts`); when a cut choice cost a discrepancy, that walk ended at the first block leaving a bank's
// rest unfillable. Each of 16 must be placed within 20,000 nodes (checked with the PSUM geometry's legal
// and overlaps: no tensor crosses a bank), in a fraction of the nodes it takes with `free_cuts` off
// (counting the budget for the ones not found).
TEST_CASE("place_search: planted PSUM problems are placed inside the banks within a small budget") {
  search_limits counted{20000};
  counted.free_cuts = false;
  const auto [nodes, nodes_without] =
      nodes_with_and_without(psum_banks(trn2), gca::planted_sb_family::mixed, 20, memory_type::psum, 8, counted);
  MESSAGE("nodes " << nodes << " without free cuts " << nodes_without);
  CHECK(nodes * 3 < nodes_without);
}

// End to end in PSUM: small planted PSUM kernels (every tensor inside one bank) allocate without a spill at
// -O2 and -O6 in both allocator families, with or without pins, and verify (the verifier checks the bank
// rule on every PSUM placement).
TEST_CASE("planted PSUM kernels: small ones never spill nor are refused") {
  for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(3, 1); ++seed)
    for (const double pins : {0.0, 0.2}) {
      gca::planted_sb_options o;
      o.tensors = 20;
      o.seed = seed;
      o.pins = pins;
      o.memory = memory_type::psum;
      const gca::planted_sb p = gca::make_planted_sb(o);
      for (const gca::planted_tensor& t : p.tensors)  // the planted places respect the banks
        REQUIRE(t.at.offset / trn2.psum_bank_bytes == (t.at.offset + t.shape.bytes - 1) / trn2.psum_bank_bytes);
      CAPTURE(seed);
      CAPTURE(pins);
      allocates_spill_free(gca::parse(p.text));
    }
}

// The sweep construction (planted_sb_options::construction): places are cut anew as tensors die, each
// tensor with its own life, so a step after the first where every live tensor is new is rare (in the
// epochs construction every epoch's end re-cuts most of the memory). The planted placement is legal and disjoint
// wherever two lives meet, PSUM tensors stay inside one bank, family 128 has only 128-partition tensors
// and its busiest point is full to the byte; the same options give the same kernel.
TEST_CASE("planted SB kernels by sweep: a valid placement, independent lives, full busiest points") {
  for (const auto memory : {memory_type::sb, memory_type::psum})
    for (const auto fam : {gca::planted_sb_family::mixed, gca::planted_sb_family::only128, gca::planted_sb_family::tight})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        gca::planted_sb_options o;
        o.tensors = 80;
        o.seed = seed;
        o.family = fam;
        o.memory = memory;
        o.construction = gca::planted_sb_construction::sweep;
        const gca::planted_sb p = gca::make_planted_sb(o);
        CAPTURE(seed);
        CAPTURE(static_cast<int>(fam));
        CAPTURE(static_cast<int>(memory));
        REQUIRE(p.tensors.size() >= 80);
        CHECK(gca::make_planted_sb(o).text == p.text);
        const scratchpad_2d sb(o.tgt);
        const psum_banks banks(o.tgt);
        std::vector<std::uint64_t> bytes_at(p.steps, 0);
        for (std::size_t a = 0; a < p.tensors.size(); ++a) {
          const gca::planted_tensor& x = p.tensors[a];
          REQUIRE(x.dies >= x.born + 2);
          REQUIRE((memory == memory_type::sb ? sb.legal(x.shape, x.at) : banks.legal(x.shape, x.at)));
          if (fam == gca::planted_sb_family::only128) CHECK(x.shape.partitions == 128);
          if (fam == gca::planted_sb_family::tight) CHECK(x.shape.partitions <= 64);
          for (std::uint32_t t = x.born; t < x.dies; ++t) bytes_at[t] += x.shape.bytes;
          for (std::size_t b = 0; b < a; ++b)
            if (x.born < p.tensors[b].dies && p.tensors[b].born < x.dies)
              REQUIRE_FALSE(sb.overlaps(x.shape, x.at, p.tensors[b].shape, p.tensors[b].at));
        }
        if (fam == gca::planted_sb_family::only128)
          CHECK(*std::max_element(bytes_at.begin(), bytes_at.end()) ==
                (memory == memory_type::sb ? o.tgt.sb_usable / o.tgt.sb_alignment * o.tgt.sb_alignment
                                           : std::uint64_t{o.tgt.psum_banks} * o.tgt.psum_bank_bytes));
        std::size_t recut = 0;  // steps after the first at which every live tensor is new
        for (std::uint32_t t = 1; t < p.steps; ++t) {
          bool all_new = true, any = false;
          for (const gca::planted_tensor& x : p.tensors)
            if (x.born <= t && t < x.dies) any = true, all_new = all_new && x.born == t;
          recut += any && all_new;
        }
        CHECK(recut * 10 <= p.steps);  // by chance only (all of a few cells ending at once)
      }
}

// A problem in which every two blocks share a partition (each more than 96 of 128 partitions, no pins,
// one segment) is a problem of bytes alone, and place_search gives it to the 1-D search
// (place_searcher::linear). Its answers agree with exhaustive enumeration, and its proofs say so.
TEST_CASE("place_search: whole-width problems go to the 1-D search, and agree with exhaustive enumeration") {
  std::mt19937_64 rng(23);
  int found = 0, infeasible = 0;
  for (int it = 0; it < 300; ++it) {
    const std::uint64_t cap = 5 + rng() % 5, align = 1 + rng() % 2;
    tiny t;
    const int n = 2 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) {
      add_random_node(t, rng, 4, [&] { return extent{97 + static_cast<std::uint32_t>(rng() % 32), 1 + rng() % (cap / 2 + 1)}; });
    }
    const scratchpad_2d sb(128, cap, align);
    CAPTURE(it);
    const place_result r = decided_as_exhaustive(sb, t, cap);
    if (r.status == search_status::found) ++found;
    else infeasible += r.proof.find("1-D search") != std::string::npos;
  }
  CHECK(found > 50);
  CHECK(infeasible > 20);
}

// Planted 128-partition kernels by sweep (held out of the search's development: seeds 1401-1410 of 60
// tensors, where the fill and the canonical walk placed 4 of 10 within 100,000 nodes and the 1-D search
// all 10 within 4,000): each of 6 seeds of 60 and 150 tensors is placed within 20,000 nodes.
TEST_CASE("place_search: planted 128-partition kernels by sweep are placed by the 1-D search") {
  const scratchpad_2d sb(trn2);
  for (const std::size_t tensors : {60, 150})
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const tiny t = planted_problem(gca::planted_sb_family::only128, tensors, seed, 0, memory_type::sb,
                                     gca::planted_sb_construction::sweep);
      CAPTURE(seed);
      CAPTURE(tensors);
      const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{20000});
      REQUIRE(r.status == search_status::found);
      check_valid(sb, t, r);
    }
}

// The colorer alone beside the search (allocate_space, spill/fixpoint.hpp): where the search cannot place
// a space, the victims it guides (the first set whose spilled program it places within a small budget)
// can be many more than the colorer's own. Planted tight SB kernels by sweep of 60 tensors under small
// search budgets: whenever the colorer alone allocates, the allocator with the search allocates too, with
// spill code that costs no more, and verifies; on some of them (seed 7 here, sessions 46 and 47) the colorer's run is
// the one kept, and the observer is told so. (Seeds 1-8 in every build: before the victims' placement
// became the next round's hints, seeds 1, 3 and 4 were kept that way; now the search's spills cost less
// there, and seed 4 needs none.) The walks that grow the victims' set run on a trial set's budget here,
// as before session 44: at ten times it (search_options::repair_set_nodes' ratio) the search's spills
// cost less than the colorer's on all eight (seed 7: 392,858 cycles against 641,392; seed 8: 1,086,248
// against 1,156,916), and the fallback this test is about is not taken.
TEST_CASE("a space the search cannot place spills no more than the colorer alone") {
  int kept = 0, compared = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const gca::module original = sweep_kernel(gca::planted_sb_family::tight, seed);
    // -O2, whose SB pass is coloring_allocator_sb; its spill cost, or nothing when refused.
    auto run = [&](bool search, gca::module& m, std::ostringstream& log) -> std::optional<std::uint64_t> {
      gca::pass_options popt = search_budget(40000);
      popt.alloc.search.repair_set_nodes = 1000;  // short walks for the victims' set (see above)
      popt.alloc.search.enabled = search;
      popt.log = &log;  // the allocators' log lines
      std::optional<std::uint64_t> cost;
      try {
        for (const gca::pass_report& r : run_o2(m, popt))
          for (const auto& [fn, rep] : r.functions)
            if (r.pass == "coloring_allocator_sb") cost = rep.spills.cycles;
      } catch (const gca::allocation_error&) {
        return std::nullopt;
      }
      return cost;
    };
    gca::module alone = original, with = original;
    std::ostringstream quiet, log;
    const auto cost_alone = run(false, alone, quiet);
    const auto cost_with = run(true, with, log);
    CAPTURE(seed);
    kept += log.str().find("SB: the colorer without the placement search spills less") != std::string::npos;
    if (!cost_alone) continue;
    ++compared;
    REQUIRE(cost_with);
    CHECK(*cost_with <= *cost_alone);
    const gca::verify_report v = gca::verify(with, {.linked = false});
    INFO(v.message());
    CHECK(v.ok());
  }
  CHECK(compared >= 2);
  CHECK(kept >= 1);
}

// When the search's budget for a space is spent and the spill policy finds nothing more to spill, the
// fixpoint searches once more, on the space as it is by then, before refusing (a refusal is the worst
// answer). Planted sweep kernels of 60 tensors with small search budgets (5,000 nodes a round, 20,000 in
// all): before, 8 of the 20 of seeds 1-10 were refused ("nothing more can be spilled, and the placement
// search gave up"), every one with a spill-free placement; now none is, and each computes what its input
// did (the two-program verifier).
TEST_CASE("a space whose search budget is spent is searched once more before a refusal") {
  for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(10, 4); ++seed)
    for (const auto family : {gca::planted_sb_family::tight, gca::planted_sb_family::mixed}) {
      const gca::module original = sweep_kernel(family, seed);
      gca::module m = original;
      CAPTURE(seed);
      CAPTURE(static_cast<int>(family));
      REQUIRE_NOTHROW(run_o2(m, search_budget(20000)));
      CHECK(gca::verify(original, m).ok());  // the placements, and the same values computed
    }
}

// The last victims' placement (the hints) is tried even once the space's search budget is spent
// (fixpoint::placed_by_hints): the victims were chosen because the search placed their spilled view, so
// a first search that spends the whole budget (total_nodes 1 here) must not hand the later rounds to the
// colorer alone. Planted tight SB kernels by sweep of 60 tensors under small budgets: on each that the
// search gives up on and whose spill is the search's own (not the colorer's run kept), the webs spilled
// are those of an unspent budget (6 of seeds 1-8 when written; without the check past the budget, seeds
// 2, 5 and 6 spilled 66, 61 and 62 webs instead of 18, 21 and 18, and on 1, 3 and 8 the colorer's run was
// kept, with 22, 23 and 30 instead of 18, 4 and 12).
TEST_CASE("the victims' placement is tried past the search budget") {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const gca::module original = sweep_kernel(gca::planted_sb_family::tight, seed);
    // -O2's SB pass: webs spilled, and whether the colorer's own run was kept.
    auto run = [&](std::uint64_t total) -> std::pair<std::size_t, bool> {
      gca::module m = original;
      gca::pass_options popt = search_budget(total);
      std::ostringstream log;
      popt.log = &log;
      std::size_t webs = 0;
      for (const gca::pass_report& r : run_o2(m, popt))
        for (const auto& [fn, rep] : r.functions)
          if (r.pass == "coloring_allocator_sb") webs = rep.spills.spilled_webs;
      CHECK(gca::verify(original, m).ok());
      return {webs, log.str().find("SB: the colorer without the placement search spills less") != std::string::npos};
    };
    CAPTURE(seed);
    const auto [webs, kept] = run(std::numeric_limits<std::uint64_t>::max());
    const auto [webs_spent, kept_spent] = run(1);
    MESSAGE("seed " << seed << ": " << webs << " webs spilled, " << webs_spent << " with the budget spent at once" << std::string(kept || kept_spent ? " (the colorer's run kept)" : ""));
    if (webs == 0 || kept || kept_spent) continue;
    ++compared;
    CHECK(webs_spent == webs);
  }
  CHECK(compared >= 4);
}

// The time sweep (engine/place_sweep.hpp), hand-checked: the lowest free cell at a free node's birth is
// under a pin born later, so the node must go above it; the empty branch raises the cell to the pin's end
// (not to the run's end, which would leave no room), and the node is placed there. In PSUM banks of 64
// bytes, a node of 48 bytes after a pin of 32 in bank 0 goes to bank 1: it may not cross a bank.
TEST_CASE("time sweep: pins born later, and banks, are respected") {
  {
    tiny t;
    t.add({0, 4}, {128, 50});
    t.add({2, 6}, {128, 50}, placement{0, 0});
    std::uint64_t nodes = 0;
    const auto got = sweep_alone(t, rect_layout{128, 1, 100, 1}, 1000, nodes);
    REQUIRE(got);
    CHECK((*got)[0] == placement{0, 50});
    CHECK((*got)[1] == placement{0, 0});
  }
  {
    tiny t;
    t.add({0, 4}, {128, 32}, placement{0, 0});
    t.add({1, 5}, {128, 48});
    t.add({1, 5}, {32, 16});
    std::uint64_t nodes = 0;
    const auto got = sweep_alone(t, rect_layout{128, 4, 64, 2}, 1000, nodes);
    REQUIRE(got);
    CHECK((*got)[1] == placement{0, 64});   // 32 + 48 > 64: not in bank 0
    CHECK((*got)[2] == placement{0, 32});   // the rest of bank 0, lowest cell first
  }
}

// The time sweep branches on the cell with the fewest choices among each quarter's lowest free cell.
// Hand-checked: a pin takes bytes [0, 10) of quarter 0; born with it, three blocks of 32 partitions x 100
// bytes and one of 32 x 90, 390 quarter-bytes: exactly the free area, so nothing may stay empty. The only
// block for quarter 0's free run [10, 100) is the 32 x 90 one, and a second pin, born later but while that
// block lives, takes that run: quarter 0's cell has no choice, so the state is dead before any node is
// spent. Rule R2 at the birth does not see it (the pin is not live there: the run holds 90 bytes of
// candidates), and branching at the lowest offset (quarter 1's cell at 0, as the sweep did before) spent
// 3 nodes placing the 100-byte blocks before reaching quarter 0. Without the later pin, the 90-byte block
// goes to (0, 10) and the others fill quarters 1-3.
TEST_CASE("time sweep: the cell with the fewest choices first, and a dead cell found at once") {
  auto sweep = [](bool later_pin, std::uint64_t& nodes) {
    tiny t;
    t.add({0, 4}, {32, 10}, placement{0, 0});
    for (int k = 0; k < 3; ++k) t.add({0, 4}, {32, 100});
    t.add({0, 4}, {32, 90});
    if (later_pin) t.add({2, 6}, {32, 90}, placement{0, 10});
    return sweep_alone(t, rect_layout{128, 1, 100, 1}, 1000, nodes);
  };
  std::uint64_t nodes = 0;
  CHECK_FALSE(sweep(true, nodes));
  CHECK(nodes == 0);
  const auto got = sweep(false, nodes);
  REQUIRE(got);
  CHECK((*got)[4] == placement{0, 10});
  std::set<std::uint32_t> quarters;
  for (int k = 1; k <= 3; ++k) {
    CHECK((*got)[k].offset == 0);
    quarters.insert((*got)[k].partition / 32);
  }
  CHECK(quarters == std::set<std::uint32_t>{1, 2, 3});
}

// In a memory of segments (PSUM banks) each segment's lowest free cell of a quarter is a cell too: a block
// does not cross a segment's start. Two banks of 64 bytes, eight blocks of 32 partitions x 64 bytes born
// together, exactly the free area; a pin born later but while they live takes quarter 0 of bank 1, so
// no block can take that cell: dead at 0 nodes (branching only at each quarter's lowest cell, the sweep
// placed a block in bank 0 first, 1 node). Without the pin the blocks fill both banks.
TEST_CASE("time sweep: each bank's lowest cell is a cell") {
  auto sweep = [](bool later_pin, std::uint64_t& nodes) {
    tiny t;
    for (int k = 0; k < 8; ++k) t.add({0, 4}, {32, 64});
    if (later_pin) t.add({2, 6}, {32, 64}, placement{0, 64});
    return sweep_alone(t, rect_layout{128, 4, 64, 2}, 1000, nodes);
  };
  std::uint64_t nodes = 0;
  CHECK_FALSE(sweep(true, nodes));
  CHECK(nodes == 0);
  const auto got = sweep(false, nodes);
  REQUIRE(got);
  std::set<std::pair<std::uint32_t, std::uint64_t>> places;
  for (const placement& p : *got) places.insert({p.partition, p.offset});
  CHECK(places.size() == 8);
  for (const auto& [partition, offset] : places) CHECK((partition % 32 == 0 && (offset == 0 || offset == 64)));
}

// The same rule on planted tight SB kernels by sweep of 60 tensors (seeds 1-8), the sweep alone: within
// 12,000 nodes it places seeds 3, 4 and 8 (in 6,375, 268 and 5,763; 10,031, 297 and 7,886 before the
// failed states were printed by occupancy and R2 checked after each placement); branching at the lowest offset it
// placed none of the eight within 25,000. Each placement is checked with the geometry.
TEST_CASE("time sweep: fewest choices first places tight planted kernels the lowest cell missed") {
  const scratchpad_2d sb(trn2);
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const tiny t = planted_problem(gca::planted_sb_family::tight, 60, seed, 0, memory_type::sb,
                                   gca::planted_sb_construction::sweep);
    std::uint64_t nodes = 0;
    const auto got = sweep_alone(t, rect_layout_of(sb), 12000, nodes);
    CAPTURE(seed);
    CHECK(nodes <= 12000);
    if (!got) continue;
    place_result r;
    r.status = search_status::found;
    r.placements.assign(got->begin(), got->end());
    check_valid(sb, t, r);
    ++found;
  }
  CHECK(found >= 3);
}

// The sweep's memory of failed states keys a time's state by what the rest of the walk sees: per quarter,
// the bytes taken until when. Blocks of 30 and 20 bytes that die together leave [0, 50) taken whichever
// lies lower; a different liveness, a byte between them, or another quarter is another state.
TEST_CASE("time sweep: one print per occupancy, whichever blocks take it") {
  using gca::detail::taken_run;
  auto print = [](std::uint32_t q, std::vector<taken_run> runs) {
    gca::detail::print128 p{};
    gca::detail::add_taken_print(p, q, runs);
    return p;
  };
  const auto a_low = print(0, {{0, 30, 7}, {30, 50, 7}, {60, 100, 9}});
  CHECK(a_low == print(0, {{60, 100, 9}, {20, 50, 7}, {0, 20, 7}}));  // B lower, any order of the list
  CHECK(a_low == print(0, {{0, 50, 7}, {60, 100, 9}}));               // one block of 50
  CHECK(a_low != print(0, {{0, 30, 7}, {30, 50, 8}, {60, 100, 9}}));  // the upper one lives on
  CHECK(a_low != print(0, {{0, 30, 7}, {31, 50, 7}, {60, 100, 9}}));  // a byte free between them
  CHECK(a_low != print(1, {{0, 30, 7}, {30, 50, 7}, {60, 100, 9}}));  // another quarter
  CHECK(print(0, {}) == gca::detail::print128{});
}

// Rule R2 at the births ahead is checked after each placement, not only on entering a birth's group. One
// quarter of 100 bytes (alignment 10): d [0,20) x 10; a [10,30) x 10, b [10,30) x 40, e [10,40) x 20;
// c [20,50) x 30. At 20 the live bytes fill the memory, so c needs d's place and the 20 bytes beside it
// free at 10; the sweep's empty branch leaves a run empty up to a placed neighbor's end or the run's end,
// never just 20 bytes, so the sweep alone cannot place it: it gives up after 9 nodes (21 before the
// hand-off rule saw that the run d leaves at 20 must hold 10 of c's bytes; 41 when R2 ran only on
// entering a group: a placement of the group at 10 that leaves no 30 bytes for c was finished before its
// failure was seen). The exhaustive search places it.
TEST_CASE("time sweep: R2 after each placement, and the sweep's known gap") {
  tiny t;
  t.add({10, 30}, {32, 10});
  t.add({10, 30}, {32, 40});
  t.add({20, 50}, {32, 30});
  t.add({0, 20}, {32, 10});
  t.add({10, 40}, {32, 20});
  const rect_layout lay{32, 10, 100, 1};
  std::uint64_t nodes = 0;
  CHECK_FALSE(sweep_alone(t, lay, 1000, nodes));
  CHECK(nodes == 9);
  search_limits lim;
  lim.fill = lim.sweep = false;
  const place_result r = place_search(place_problem{t.ranges, t.ext, t.pins}, lay, lim);
  REQUIRE(r.status == search_status::found);
  const std::uint64_t c = r.placements[2]->offset, d = r.placements[3]->offset;
  CHECK((c <= d && d + 10 <= c + 30));  // c takes d's place
}

// place_search runs the fills and the time sweep in rounds of growing budgets, each resuming where it
// stopped; that the part is placed exactly when one of them places it on its share rests on this: a walk
// called with budgets 1,000, 3,000, 9,000, ... up to B answers, node for node and placement for
// placement, as one call with B. Planted kernels by sweep of 40 and 60 tensors, mixed and tight, pinned
// or not (found and gave-up alike).
TEST_CASE("fill and time sweep: a walk resumed in rounds is the walk of one call") {
  const scratchpad_2d sb(trn2);
  const rect_layout lay = rect_layout_of(sb);
  const auto never = std::chrono::steady_clock::time_point::max();
  auto same = [&](auto make, std::uint64_t budget) {
    auto one = make(), turns = make();
    std::uint64_t n1 = 0, n2 = 0;
    const auto r1 = one.run(budget, never, n1);
    std::optional<std::vector<placement>> r2;
    for (std::uint64_t b = 1000;; b *= 3) {
      r2 = turns.run(std::min(b, budget), never, n2);
      if (r2 || b >= budget) break;
    }
    CHECK(n1 == n2);
    REQUIRE(r1.has_value() == r2.has_value());
    if (r1) CHECK(*r1 == *r2);
    return r1.has_value();
  };
  int found = 0, gave_up = 0;
  for (std::size_t tensors : {40, 60})
    for (std::uint64_t seed = 1; seed <= 3; ++seed)
      for (auto family : {gca::planted_sb_family::mixed, gca::planted_sb_family::tight}) {
        const tiny t = planted_problem(family, tensors, seed, seed == 2 ? 0.2 : 0, memory_type::sb,
                                       gca::planted_sb_construction::sweep);
        const interference_graph g = build_interference(t.ranges);
        std::vector<std::uint32_t> reach(t.ext.size()), cmin(t.ext.size() * 16);
        for (std::size_t v = 0; v < t.ext.size(); ++v)
          reach[v] = gca::detail::quarter_reach(gca::detail::allowed_partition_starts(t.ext[v].partitions, lay.partitions),
                                                t.ext[v].partitions, 4, &cmin[v * 16]);
        CAPTURE(tensors);
        CAPTURE(seed);
        for (bool ok : {same([&] { return gca::detail::time_sweeper(t.ranges, t.ext, t.pins, g, lay); }, 20000),
                        same([&] { return gca::detail::skyline_filler(t.ranges, t.ext, t.pins, g, lay, reach, cmin); }, 20000)})
          ++(ok ? found : gave_up);
      }
  MESSAGE(found << " found, " << gave_up << " gave up");
  CHECK(found > 0);
  CHECK(gave_up > 0);
}

// Planted kernels by sweep (places cut anew as tensors die, no epochs; docs/PERFORMANCE.md section 10),
// seeds 1-8: SB mixed partitions, 40 tensors, and PSUM mixed, 20 tensors per bank cut (25-44 in all).
// Within 40,000 nodes the fill and the canonical walk place 1 of the 8 SB ones and 2 of the PSUM ones;
// with the time sweep on its quarter of the budget, 6 and 8. Each placement is checked with the geometry's
// own legal and overlaps.
TEST_CASE("place_search: the time sweep places planted kernels by sweep that the fill and the walk miss") {
  auto count = [](const auto& g, std::size_t tensors, memory_type memory, bool sweep) {
    int found = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      const tiny t = planted_problem(gca::planted_sb_family::mixed, tensors, seed, 0, memory,
                                     gca::planted_sb_construction::sweep);
      search_limits lim{40000};
      lim.sweep = sweep;
      lim.repair = false;  // the sweep alone (the repair walk too: without the sweep, 3 and 6 of them are placed)
      const place_result r = place_search({t.ranges, t.ext, t.pins}, g, lim);
      CAPTURE(seed);
      REQUIRE(r.status != search_status::infeasible);
      if (r.status == search_status::found) check_valid(g, t, r), ++found;
    }
    return found;
  };
  const scratchpad_2d sb(trn2);
  const psum_banks psum(trn2);
  const int sb_with = count(sb, 40, memory_type::sb, true), sb_without = count(sb, 40, memory_type::sb, false);
  const int psum_with = count(psum, 20, memory_type::psum, true), psum_without = count(psum, 20, memory_type::psum, false);
  MESSAGE("SB " << sb_without << " -> " << sb_with << " of 8, PSUM " << psum_without << " -> " << psum_with);
  CHECK(sb_with >= 6);
  CHECK(sb_with >= sb_without + 4);
  CHECK(psum_with == 8);
  CHECK(psum_with >= psum_without + 5);
}

// search_limits::threads: from the second round of turns the sweep runs beside the fills on a thread of
// its own, and whole-width problems race the 1-D search's lanes on two. The answer must be the one
// thread's, placement for placement and node for node, whether a fill, the sweep, the canonical walk or
// nobody answers; problems decided after the first round (4,096 nodes a walk) are the ones that use the
// second thread, and some must be among them.
TEST_CASE("place_search: two threads give one thread's answer, placements and node count") {
  const scratchpad_2d sb(trn2);
  const psum_banks psum(trn2);
  int late = 0, found = 0, found_late = 0, total = 0;
  auto same = [&](const auto& g, gca::planted_sb_family family, std::size_t tensors, memory_type memory, std::uint64_t seed) {
    const tiny t = planted_problem(family, tensors, seed, 0, memory, gca::planted_sb_construction::sweep);
    search_limits one{30000}, two{30000};
    two.threads = 2;
    const place_result a = place_search({t.ranges, t.ext, t.pins}, g, one);
    const place_result b = place_search({t.ranges, t.ext, t.pins}, g, two);
    CAPTURE(seed);
    CAPTURE(tensors);
    CHECK(a.status == b.status);
    CHECK(a.nodes == b.nodes);
    CHECK(a.placements == b.placements);
    if (a.status == search_status::found) check_valid(g, t, a), ++found;
    late += a.nodes > 3 * 4096;
    found_late += a.nodes > 3 * 4096 && a.status == search_status::found;
    ++total;
  };
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    same(sb, gca::planted_sb_family::mixed, 60, memory_type::sb, seed);
    same(sb, gca::planted_sb_family::tight, 60, memory_type::sb, seed);
    same(sb, gca::planted_sb_family::only128, 150, memory_type::sb, seed);
    same(psum, gca::planted_sb_family::mixed, 60, memory_type::psum, seed);
  }
  MESSAGE(found << " of " << total << " placed, " << late << " went past the first round (" << found_late
                << " of them placed)");
  CHECK(late >= 3);
  CHECK(found_late >= 1);
}

// The same through an allocator: -O2 on planted sweep kernels whose SB search goes past its first round
// (placed by it, or spilled after it gives up), at 1 and 2 threads (the allocators pass their threads to
// the search: search_options::threads): the same module, byte for byte, or the same refusal.
TEST_CASE("allocators: the placement search on two threads gives the one thread's module") {
  int past_first_round = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const gca::module original = sweep_kernel(gca::planted_sb_family::tight, seed);
    std::string printed[2];
    for (int k = 0; k < 2; ++k) {
      gca::module m = original;
      try {
        for (const gca::pass_report& r : run_o2(m, search_budget(80000, 40000, 2000, k == 0 ? 1 : 2)))
          for (const auto& [fn, rep] : r.functions)
            if (r.pass == "coloring_allocator_sb" && k == 0) past_first_round += rep.search_nodes > 3 * 4096;
        printed[k] = gca::print(m);
      } catch (const gca::allocation_error& e) {
        printed[k] = e.what();
      }
    }
    CAPTURE(seed);
    CHECK(printed[0] == printed[1]);
  }
  CHECK(past_first_round >= 1);
}

// A node's cost (detail::node_work): the canonical walk alone places n blocks of 32 partitions, all live
// together, in a memory with room for all, one block per node without a backtrack (n + 1 nodes opened).
// Placing a block makes each of its n - 1 neighbors refresh its lowest offsets, visiting n - 1 neighbors
// each: about n^2 / 8 steps per node. At n = 20 (50 steps) every node counts once; at n = 200 (about
// 5,000) each counts several times, so the answer's count is well above the nodes opened.
TEST_CASE("place_search: a node whose checks take many steps counts as several against the budget; past a pair limit none runs") {
  const scratchpad_2d sb(trn2);
  auto nodes = [&](std::size_t n) {
    tiny t;
    for (std::size_t v = 0; v < n; ++v) t.add({0, 1}, {32, 64});
    search_limits lim{1000000};
    lim.fill = lim.sweep = lim.narrow_turns = lim.filler_turns = lim.repair = lim.probes = false;
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, lim);
    REQUIRE(r.status == search_status::found);
    check_valid(sb, t, r);
    return r.nodes;
  };
  CHECK(nodes(20) == 21);
  {  // past search_limits::max_pairs the search does not run (20 blocks live together: 190 pairs)
    tiny t;
    for (std::size_t v = 0; v < 20; ++v) t.add({0, 1}, {32, 64});
    search_limits lim{1000000};
    lim.max_pairs = 189;
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, lim);
    CHECK(r.status == search_status::gave_up);
    CHECK(r.nodes == 0);
    CHECK(r.skipped == "190 interfering pairs, more than the search builds its graph for (189)");
    lim.max_pairs = 190;
    CHECK(place_search({t.ranges, t.ext, t.pins}, sb, lim).status == search_status::found);
  }
  const std::uint64_t wide = nodes(200);
  MESSAGE("200 blocks live together: " << wide << " nodes counted for 201 opened");
  CHECK(wide >= 3 * 201);
}

// Rule R2's largest subset sum (place_fill.hpp, subset_fill): its answer against the definition, a set of
// the distinct sums <= len built size by size (len once len is reached or more than 256 sums appear), on
// random sizes of small and large gcd (the bit-set and the merged-list paths), and against brute force
// over every subset where it answers below len (then it must be exact; it may never be below the best).
TEST_CASE("subset_fill: the largest subset sum within a length, against its definition and brute force") {
  gca::detail::subset_fill fill, any_order;
  auto brute_best = [](const std::vector<std::uint64_t>& sizes, std::uint64_t len) {  // over every subset
    std::uint64_t best = 0;
    for (std::uint32_t m = 0; m < (1u << sizes.size()); ++m) {
      std::uint64_t t = 0;
      for (std::size_t k = 0; k < sizes.size(); ++k) t += (m >> k & 1) ? sizes[k] : 0;
      if (t <= len) best = std::max(best, t);
    }
    return best;
  };
  CHECK(fill({3, 5, 9}, 17, 13) == 12);          // 3 + 9
  CHECK(fill({3, 5, 9}, 17, 11) == 9);           // 9, or 3 + 5 = 8
  CHECK(fill({4, 6}, 10, 3) == 0);               // nothing fits
  CHECK(fill({64, 128, 192}, 384, 320) == 320);  // 128 + 192, reaching len
  {
    // Remembered answers keep their sizes in 32 bits; a size beyond that is computed, never mistaken
    // for a remembered one of the same low bits (1 + 2^32 here against 1 above it).
    const std::uint64_t big = std::uint64_t{1} << 32;
    gca::detail::subset_fill memo;
    CHECK(memo({1, 5, 9, 20}, 35, 27) == 26);  // 1 + 5 + 20
    CHECK(memo({1, 5, 9, 20}, 35, 27) == 26);  // again, remembered
    CHECK(memo({5, 9, 20, 1 + big}, 35 + big, 27) == 25);  // 5 + 20: the big one never fits
    CHECK(memo({5, 9, 20, 1 + big}, 35 + big, big + 7) == big + 6);  // 1 + 2^32 + 5
  }
  {
    // The memory starts small and is made larger (emptied) after 65,536 calls: the answers stay the
    // definition's before, across and after that point (300 keys asked in turn, 80,000 calls).
    std::mt19937_64 keys(11);
    struct key {
      std::vector<std::uint64_t> sizes;
      std::uint64_t total = 0, len = 0, expected = 0;
    };
    std::vector<key> asked;
    for (int k = 0; k < 300; ++k) {
      key q;
      q.sizes.resize(2 + keys() % 7);  // at most 8: at most 256 sums, never cut
      for (auto& x : q.sizes) x = 1 + keys() % 200;
      std::sort(q.sizes.begin(), q.sizes.end());
      for (std::uint64_t x : q.sizes) q.total += x;
      q.len = q.sizes.front() + keys() % (q.total - q.sizes.front());
      q.expected = brute_best(q.sizes, q.len);
      asked.push_back(std::move(q));
    }
    gca::detail::subset_fill memo;
    int wrong = 0;
    for (int call = 0; call < 80000; ++call) {
      const key& q = asked[static_cast<std::size_t>(call) % asked.size()];
      wrong += memo(q.sizes, q.total, q.len) == q.expected ? 0 : 1;
    }
    CHECK(wrong == 0);
  }
  std::mt19937_64 rng(7);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  int below = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::uint64_t unit = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 64 : pick(1, 5000);
    std::vector<std::uint64_t> sizes(pick(1, trial % 7 == 0 ? 20 : 12));
    for (auto& x : sizes) x = unit * pick(1, trial % 2 ? 60 : 3000);
    std::sort(sizes.begin(), sizes.end());
    std::uint64_t total = 0;
    for (std::uint64_t x : sizes) total += x;
    const std::uint64_t len = pick(0, total + unit);
    const std::uint64_t got = fill(sizes, total, len);
    std::uint64_t expected = len;  // the definition
    if (sizes.front() > len) expected = 0;
    else if (total <= len) expected = total;
    else if (total - sizes.front() <= len) expected = total - sizes.front();
    else if (sizes.size() <= 16) {
      std::set<std::uint64_t> sums{0};
      bool cut = false;
      for (std::uint64_t x : sizes) {
        std::vector<std::uint64_t> more;
        for (std::uint64_t t : sums)
          if (t + x <= len) more.push_back(t + x);
        sums.insert(more.begin(), more.end());
        if (*sums.rbegin() == len || sums.size() > 256) {
          cut = true;
          break;
        }
      }
      if (!cut) expected = *sums.rbegin();
    }
    CAPTURE(trial);
    CHECK(got == expected);
    // The same answer from the sizes in any order, given their least (subset_fill::unsorted).
    std::vector<std::uint64_t> shuffled = sizes;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    CHECK(any_order.unsorted(shuffled, total, sizes.front(), len) == got);
    if (sizes.size() <= 16) {
      const std::uint64_t best = brute_best(sizes, len);
      CHECK(got >= best);
      if (got < len) {
        CHECK(got == best);
        ++below;
      }
    }
  }
  MESSAGE(below << " of 3000 answered below len");
  CHECK(below >= 500);
}

// The hand-off tiler (engine/place_handoff.hpp) against brute force: small regions of 2 or 4 quarters x
// 12 bytes (alignment 1 or 2, one or two segments), cut from blocks placed first (so some tile) and then
// changed by a cell now and then (so some cannot), each answered by exact_tiler and by trying every
// position of every block. With a budget it cannot spend, "gave up" is never an answer.
TEST_CASE("hand-off tiler: exact tilings agree with brute force") {
  using gca::detail::exact_tiler;
  std::mt19937_64 rng(7);
  auto draw = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  int tiles = 0, cannot = 0;
  for (int round = 0; round < 600; ++round) {
    const std::uint32_t parts = draw(0, 1) ? 64 : 128, quarters = parts / 32;
    const rect_layout lay{parts, draw(1, 2), draw(0, 1) ? 12u : 6u, 1};
    const rect_layout mem{lay.partitions, lay.alignment, lay.segment_bytes, lay.segment_bytes == 6 ? 2u : 1u};
    // Cells of each quarter, byte by byte; blocks placed at random legal free positions take them.
    std::vector<std::vector<std::uint8_t>> cell(quarters, std::vector<std::uint8_t>(12, 0));
    std::vector<extent> blocks;
    const std::uint32_t sizes[] = {16, 32, 64, 128};
    for (int k = 0, n = static_cast<int>(draw(1, 5)); k < n; ++k) {
      const extent e{sizes[draw(0, parts == 64 ? 2 : 3)], draw(1, 5)};
      const gca::detail::partition_starts st = gca::detail::allowed_partition_starts(e.partitions, parts);
      const std::uint32_t start = st.start[draw(0, st.count - 1)];
      const std::uint64_t o = draw(0, 11) / mem.alignment * mem.alignment;
      if (o + e.bytes > 12 || o / mem.segment_bytes != (o + e.bytes - 1) / mem.segment_bytes) continue;
      const std::uint32_t m = gca::detail::quarter_mask(start, e.partitions);
      bool free = true;
      for (std::uint32_t q = 0; q < quarters; ++q)
        for (std::uint64_t b = o; b < o + e.bytes; ++b) free = free && !((m >> q & 1) && cell[q][b]);
      if (!free) continue;
      for (std::uint32_t q = 0; q < quarters; ++q)
        for (std::uint64_t b = o; b < o + e.bytes; ++b) cell[q][b] |= static_cast<std::uint8_t>(m >> q & 1);
      blocks.push_back(e);
    }
    if (blocks.empty()) continue;
    if (draw(0, 2) == 0) cell[draw(0, quarters - 1)][draw(0, 11)] ^= 1;  // one cell more or less
    std::vector<std::vector<exact_tiler::free_run>> region(quarters);
    for (std::uint32_t q = 0; q < quarters; ++q)
      for (std::uint64_t b = 0; b < 12; ++b)
        if (cell[q][b]) {
          if (!region[q].empty() && region[q].back().hi == b && b % mem.segment_bytes != 0) ++region[q].back().hi;
          else region[q].push_back({b, b + 1});
        }
    // Brute force: place the blocks in turn at every legal position inside what is left of the region.
    std::function<bool(std::size_t)> brute = [&](std::size_t k) -> bool {
      if (k == blocks.size()) {
        for (const auto& row : cell)
          for (const std::uint8_t c : row)
            if (c) return false;
        return true;
      }
      const extent e = blocks[k];
      const gca::detail::partition_starts st = gca::detail::allowed_partition_starts(e.partitions, parts);
      for (std::uint32_t i = 0; i < st.count; ++i)
        for (std::uint64_t o = 0; o + e.bytes <= 12; o += mem.alignment) {
          if (o / mem.segment_bytes != (o + e.bytes - 1) / mem.segment_bytes) continue;
          const std::uint32_t m = gca::detail::quarter_mask(st.start[i], e.partitions);
          bool inside = true;
          for (std::uint32_t q = 0; q < quarters; ++q)
            for (std::uint64_t b = o; b < o + e.bytes; ++b) inside = inside && (!(m >> q & 1) || cell[q][b]);
          if (!inside) continue;
          for (std::uint32_t q = 0; q < quarters; ++q)
            for (std::uint64_t b = o; b < o + e.bytes; ++b)
              if (m >> q & 1) cell[q][b] = 0;
          const bool ok = brute(k + 1);
          for (std::uint32_t q = 0; q < quarters; ++q)
            for (std::uint64_t b = o; b < o + e.bytes; ++b)
              if (m >> q & 1) cell[q][b] = 1;
          if (ok) return true;
        }
      return false;
    };
    exact_tiler tiler;
    const exact_tiler::answer a = tiler.run(region, blocks, mem, quarters, 1'000'000);
    REQUIRE(a != exact_tiler::answer::gave_up);
    const bool expect = brute(0);
    CAPTURE(round);
    CHECK((a == exact_tiler::answer::tiles) == expect);
    ++(expect ? tiles : cannot);
  }
  CHECK(tiles >= 100);
  CHECK(cannot >= 100);
}

// Hand-offs in the time sweep: where every cell is taken just before a birth and at it, the tensors born
// there tile exactly the cells of those that die there (exact_tiler, once those are placed), and a run
// between cells taken at the birth must be covered by the newborns as far as dying tensors take it
// (a subset sum). A planted sweep kernel of 20 tensors (mixed, seed 36) that the sweep placed in 4,217
// nodes before these rules is placed within 1,000 now (in 425); a placement found is a placement.
TEST_CASE("time sweep: hand-offs at full births are checked as soon as the dying are placed") {
  gca::planted_sb_options o;
  o.tensors = 20;
  o.seed = 36;
  o.family = gca::planted_sb_family::mixed;
  o.construction = gca::planted_sb_construction::sweep;
  const gca::planted_sb k = gca::make_planted_sb(o);
  tiny t;
  for (const gca::planted_tensor& x : k.tensors) t.add(interval{x.born, x.dies}, x.shape);
  const rect_layout lay{o.tgt.sb_partitions, o.tgt.sb_alignment, o.tgt.sb_usable, 1};
  std::uint64_t nodes = 0;
  const auto got = sweep_alone(t, lay, 1000, nodes);
  REQUIRE(got);
  CHECK(nodes <= 1000);
  for (std::size_t a = 0; a < t.ext.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (t.meet(a, b)) {
        const bool rows = (gca::detail::quarter_mask((*got)[a].partition, t.ext[a].partitions) &
                           gca::detail::quarter_mask((*got)[b].partition, t.ext[b].partitions)) != 0;
        const bool bytes = (*got)[a].offset < (*got)[b].offset + t.ext[b].bytes &&
                           (*got)[b].offset < (*got)[a].offset + t.ext[a].bytes;
        CHECK_FALSE((rows && bytes));
      }
}

// The sweep's quarter symmetries (engine/place_sweep.hpp): in SB, blocks of 32 and 64 partitions allow
// the 8 permutations that keep the pairs {0, 1} and {2, 3} (within a pair, and the pairs swapped); a
// free block of 96 partitions (quarters 0-2, its only start) leaves 2: the identity and 0 <-> 1.
// 128-partition blocks alone look the same under all 24, so the identity is kept alone; a pin of 32
// partitions at partition 0 keeps only those that fix quarter 0. And a state's taken runs print as their
// merged runs do, in the quarter given (the image's print is its runs under the moved quarters).
TEST_CASE("time sweep: quarter symmetries of a problem, and one print per image") {
  using gca::detail::quarter_symmetries;
  const std::vector<std::optional<placement>> none;
  const std::vector<extent> small{{32, 10}, {64, 20}, {16, 5}};
  CHECK(quarter_symmetries(small, none, 128, 4).size() == 8);
  std::vector<extent> with96 = small;
  with96.push_back({96, 7});
  const auto s96 = quarter_symmetries(with96, none, 128, 4);
  REQUIRE(s96.size() == 2);
  CHECK(s96[1] == std::array<std::uint8_t, 4>{1, 0, 2, 3});
  CHECK(quarter_symmetries(std::vector<extent>{{128, 8}, {128, 9}}, none, 128, 4).size() == 1);  // all look alike
  const std::vector<std::optional<placement>> pinned{placement{0, 0}, std::nullopt};
  const auto sp = quarter_symmetries(std::vector<extent>{{32, 8}, {32, 9}}, pinned, 128, 4);
  CHECK(sp.size() == 6);
  for (const auto& pi : sp) CHECK(pi[0] == 0);
  CHECK(quarter_symmetries(small, none, 128, 4).front() == std::array<std::uint8_t, 4>{0, 1, 2, 3});
  CHECK(gca::detail::permute_quarters(0b0011, {1, 0, 3, 2}) == 0b0011);
  CHECK(gca::detail::permute_quarters(0b0001, {2, 3, 0, 1}) == 0b0100);
  using gca::detail::taken_run;
  gca::detail::print128 a{}, b{};
  std::vector<taken_run> runs{{0, 30, 7}, {30, 50, 7}};
  gca::detail::add_taken_print(a, 1, runs);
  gca::detail::hash_taken(b, 1, std::vector<taken_run>{{0, 50, 7}});
  CHECK(a == b);
}

// The sweep's pruning rules are sound: on the path of a valid placement (the planted one, placed group
// by group as the walk would), no rule may claim that no completion exists. Planted kernels by sweep
// (every birth full, so the hand-off rules apply) and with epochs, SB and PSUM, mixed and tight, pins 0
// and 0.2, 20 to 60 tensors, 192 paths. (A version of the tiling test with one dying node left that
// counted only the unplaced newborns below that node fails this on 51 of the 192.)
TEST_CASE("time sweep: no pruning rule refutes the planted placement's path") {
  int paths = 0;
  for (const auto construction : {gca::planted_sb_construction::sweep, gca::planted_sb_construction::epochs})
    for (const auto memory : {memory_type::sb, memory_type::psum})
      for (const auto family : {gca::planted_sb_family::mixed, gca::planted_sb_family::tight})
        for (const double pins : {0.0, 0.2})
          for (const std::size_t tensors : {20, 40, 60})
            for (std::uint64_t seed = 1; seed <= gca::test::sweep_seeds(4, 1); ++seed) {
              gca::planted_sb_options o;
              o.tensors = tensors, o.seed = seed, o.family = family, o.pins = pins, o.memory = memory;
              o.construction = construction;
              const gca::planted_sb k = gca::make_planted_sb(o);
              tiny t;
              std::vector<placement> at;
              for (const gca::planted_tensor& x : k.tensors) {
                t.add({x.born, x.dies}, x.shape, x.pinned ? std::optional<placement>(x.at) : std::nullopt);
                at.push_back(x.at);
              }
              const rect_layout lay = memory == memory_type::psum ? rect_layout_of(psum_banks(o.tgt))
                                                                  : rect_layout_of(scratchpad_2d(o.tgt));
              const interference_graph g = build_interference(t.ranges);
              gca::detail::time_sweeper sweep(t.ranges, t.ext, t.pins, g, lay);
              CAPTURE(seed);
              CAPTURE(tensors);
              CAPTURE(static_cast<int>(family));
              CAPTURE(static_cast<int>(memory));
              CAPTURE(static_cast<int>(construction));
              CHECK_FALSE(sweep.refuted_along(at).has_value());
              ++paths;
            }
  CHECK(paths >= 48);
}

namespace {
/// The planted SB kernel by sweep of 40 tensors, seed 1, full at every birth at its own width, searched
/// on 40,000 nodes with and without the turn `turn` of search_limits: node for node the same answer (no
/// narrower width passes R2, no birth has free area, so the turn never runs).
void same_answer_without(bool search_limits::*turn) {
  const tiny t = planted_problem(gca::planted_sb_family::mixed, 40, 1, 0, memory_type::sb, gca::planted_sb_construction::sweep);
  const scratchpad_2d sb(trn2);
  search_limits with{40000}, without{40000};
  without.*turn = false;
  const place_result a = place_search({t.ranges, t.ext, t.pins}, sb, with), b = place_search({t.ranges, t.ext, t.pins}, sb, without);
  CHECK(a.status == b.status);
  CHECK(a.nodes == b.nodes);
  CHECK(a.placements == b.placements);
}
}  // namespace

// search_limits::narrow_turns (place_searcher::narrow_turn): planted kernels by sweep, placed at their own
// width within the budget, were given up on in a memory 1 % wider (SB, and each PSUM bank) (room above every placement: full
// nowhere, so R2 asks no cell to be filled exactly). With the narrow turns the search also tries the
// narrowest width R2 allows at the root, here the planted one, and places them again. At the planted
// width no narrower memory passes R2, and the answer is node for node the one without the turns.
TEST_CASE("place_search: narrow turns, more room does not lose a placement") {
  gca::target wide = trn2;
  wide.sb_usable = static_cast<std::uint64_t>(static_cast<double>(trn2.sb_usable) * 1.01) / trn2.sb_alignment * trn2.sb_alignment;
  const scratchpad_2d sb(trn2), sb_wide(wide);
  for (const std::uint64_t seed : {9, 24, 25}) {
    CAPTURE(seed);
    const tiny t = planted_problem(gca::planted_sb_family::tight, 40, seed, 0, memory_type::sb,
                                   gca::planted_sb_construction::sweep);
    search_limits with{40000}, without{40000};
    without.narrow_turns = false;
    without.filler_turns = false;  // room at every birth: fillers apply too (and place seeds 9 and 25)
    const place_result own = place_search({t.ranges, t.ext, t.pins}, sb, with);
    REQUIRE(own.status == search_status::found);
    check_valid(sb, t, own);
    CHECK(place_search({t.ranges, t.ext, t.pins}, sb_wide, without).status == search_status::gave_up);
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb_wide, with);
    REQUIRE(r.status == search_status::found);
    check_valid(sb_wide, t, r);
  }
  // In PSUM each bank 1 % wider: the narrow memory is eight narrow banks, and its placement is mapped back
  // bank by bank.
  const std::uint64_t bank = trn2.psum_bank_bytes * 101 / 100 / trn2.psum_alignment * trn2.psum_alignment;
  const psum_banks psum(trn2), psum_wide(128, trn2.psum_banks, bank, trn2.psum_alignment, false);
  for (const std::uint64_t seed : {8, 24}) {
    CAPTURE(seed);
    const tiny t = planted_problem(gca::planted_sb_family::mixed, 20, seed, 0, memory_type::psum,
                                   gca::planted_sb_construction::sweep);
    search_limits with{20000}, without{20000};
    without.narrow_turns = false;
    without.filler_turns = false;
    with.repair = without.repair = false;  // the repair walk places these two (room in every bank): off
    REQUIRE(place_search({t.ranges, t.ext, t.pins}, psum, with).status == search_status::found);
    CHECK(place_search({t.ranges, t.ext, t.pins}, psum_wide, without).status == search_status::gave_up);
    const place_result r = place_search({t.ranges, t.ext, t.pins}, psum_wide, with);
    REQUIRE(r.status == search_status::found);
    check_valid(psum_wide, t, r);
  }
  same_answer_without(&search_limits::narrow_turns);
}

// place_result::turn_nodes: the narrow, filler and repair turns of a part are counted in the answer but
// not taken from the later parts' budget (search_parts). Two planted PSUM kernels at tightness 0.97 (room
// in every bank, so the narrow turns run), the second after the first in time: two independent parts
// after the pins' part (searched first, empty here: the empty problem's nodes), the first searched as the
// first kernel alone within what the pins' part left of the budget, the second as the second alone within
// what the pins' part and the first left of it without the first's turns. The answer's nodes and turn
// nodes are the sums. (In
// session 46, the turns taken from the next part's budget left it none in a victims' trial search.)
TEST_CASE("place_search: a part's turns leave the later parts' budget whole") {
  const psum_banks psum(trn2);
  constexpr std::uint64_t budget = 8000;
  const place_result none = place_search({live_range_table{}, {}, {}}, psum, search_limits{budget});
  REQUIRE(none.status == search_status::found);
  int with_turns = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const tiny a = planted_problem(gca::planted_sb_family::mixed, 20, seed, 0, memory_type::psum,
                                   gca::planted_sb_construction::epochs, 0, 0.97);
    const tiny b = planted_problem(gca::planted_sb_family::tight, 60, seed + 100, 0, memory_type::psum,
                                   gca::planted_sb_construction::sweep, 0, 1);
    tiny both = a;
    program_point end = 0;
    for (node_id v = 0; v < a.ext.size(); ++v) end = std::max(end, a.ranges.ranges(v)[0].end);
    for (node_id v = 0; v < b.ext.size(); ++v) {
      const interval i = b.ranges.ranges(v)[0];
      both.add({i.begin + end, i.end + end}, b.ext[v]);
    }
    const place_result ra = place_search({a.ranges, a.ext, a.pins}, psum, search_limits{budget - none.nodes});
    REQUIRE(ra.status == search_status::found);
    REQUIRE(ra.turn_nodes <= ra.nodes);
    const std::uint64_t used = none.nodes + ra.nodes - ra.turn_nodes;
    const place_result rb = place_search({b.ranges, b.ext, b.pins}, psum, search_limits{budget > used ? budget - used : 0});
    const place_result r = place_search({both.ranges, both.ext, both.pins}, psum, search_limits{budget});
    CHECK(r.status == rb.status);
    CHECK(r.nodes == none.nodes + ra.nodes + rb.nodes);
    CHECK(r.turn_nodes == ra.turn_nodes + rb.turn_nodes);
    if (r.status == search_status::found) check_valid(psum, both, r);
    // Seeds where it matters: the second kernel searched within what the first left with its turns
    // taken too (the accounting before session 47) takes other nodes.
    const std::uint64_t with_its_turns = none.nodes + ra.nodes;
    with_turns += place_search({b.ranges, b.ext, b.pins}, psum, search_limits{budget > with_its_turns ? budget - with_its_turns : 0}).nodes != rb.nodes;
  }
  CHECK(with_turns >= 2);
}

// The narrow turns map a placement in narrowed segments back (offset o in narrow segment k: k x segment +
// o mod w) and carry pins the other way; the filler turns drop their fillers. On tiny problems with room to spare, in SB and in two PSUM banks,
// alignment 1 or 2 (banks of odd size too), with pins, and budgets so small that the rounds end at once and the narrow turns run: whatever is found
// is valid in the full memory (checked with the geometry's own predicates) and agrees with enumeration;
// and some answers differ from those without the turns (a narrow or filler turn's placement was taken).
TEST_CASE("place_search: narrow and filler turns in banks and with pins place only validly") {
  std::mt19937_64 rng(47);
  int found = 0, only_narrow = 0, from_narrow = 0;
  const std::uint32_t parts[] = {16, 32, 64, 128};
  for (int it = 0; it < 300; ++it) {
    const std::uint64_t cap = 8 + rng() % 6;
    const bool psum = rng() % 2 == 0;
    tiny t;
    const int n = 3 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      add_random_node(t, rng, 3, [&] { return extent{parts[rng() % 4], 1 + rng() % (cap / 3)}; });
    }
    auto run = [&](const auto& g, std::uint64_t capacity) {
      if (rng() % 2 == 0) pin_at_random(g, t, rng, capacity);
      const std::uint64_t budget = 4 + rng() % 12;
      search_limits with{budget}, without{budget};
      without.narrow_turns = false;
      without.filler_turns = false;
      without.repair = false;
      const place_result r = place_search({t.ranges, t.ext, t.pins}, g, with);
      if (r.status != search_status::found) return;
      ++found;
      check_valid(g, t, r);
      CHECK(exhaustive(g, t, capacity));
      const place_result o = place_search({t.ranges, t.ext, t.pins}, g, without);
      only_narrow += o.status != search_status::found;
      from_narrow += o.status == search_status::found && o.placements != r.placements;
    };
    CAPTURE(it);
    // Alignment 2 with an odd bank size: the second bank starts at an unaligned offset (no narrow turns).
    const std::uint64_t align = 1 + rng() % 2;
    if (psum) run(psum_banks(128, 2, cap, align, false), 2 * cap);
    else run(scratchpad_2d(128, cap, align), cap);
  }
  MESSAGE(found << " found, " << from_narrow << " of them placed otherwise without the turns, " << only_narrow
                << " not at all");
  CHECK(found > 100);
  CHECK(from_narrow + only_narrow > 10);
}

// detail::rect_fillers (engine/rect_completion.hpp), by hand. Memory of 4 quarters x 8 bytes (area 32),
// alignment 1; births at 0 and 2. A: 128 partitions x 4 bytes [0, 4) (area 16); B: 32 x 8 [0, 4) (8);
// D: 32 x 4 [2, 4) (4). Free area at birth 0: 8, at birth 2: 4. The split order: filler F (8) born at
// birth 0; at birth 2 the shrink of 4 ends no filler whole, so F gives 4 from its birth on, [0, 2), and
// keeps 4 with its birth, up to one past the last birth, [0, 3) (no filler after the last birth, though D
// lives on to 4). Two pieces each: one-quarter pieces of 2 bytes.
TEST_CASE("rect_fillers: the free area at each birth as one-quarter pieces") {
  live_range_table r;
  r.add(interval{0, 4});
  r.add(interval{0, 4});
  r.add(interval{2, 4});
  const std::vector<std::uint64_t> area{16, 8, 4};
  const rect_layout lay{128, 1, 8, 1};
  const auto f = detail::rect_fillers(r, area, lay, 4, 2, 100);
  REQUIRE(f.has_value());
  CHECK(f->life == std::vector<interval>{{0, 2}, {0, 2}, {0, 3}, {0, 3}});
  CHECK(f->extents == std::vector<extent>{{32, 2}, {32, 2}, {32, 2}, {32, 2}});
  // Four pieces of a 4-byte filler: 1 byte each; three pieces: 2, 1, 1 (as even as the alignment allows).
  const auto four = detail::rect_fillers(r, area, lay, 4, 4, 100), three = detail::rect_fillers(r, area, lay, 4, 3, 100);
  REQUIRE(four.has_value());
  REQUIRE(three.has_value());
  CHECK(four->extents == std::vector<extent>(8, extent{32, 1}));
  CHECK(three->extents == std::vector<extent>{{32, 2}, {32, 1}, {32, 1}, {32, 2}, {32, 1}, {32, 1}});
  // No slivers below 5: the shrink of 4 at birth 2 ends F whole, [0, 2), and one of 4 is born there,
  // [2, 3) (its pieces of 2 bytes).
  const auto least = detail::rect_fillers(r, area, lay, 4, 2, 100, 5);
  REQUIRE(least.has_value());
  CHECK(least->life == std::vector<interval>{{0, 2}, {0, 2}, {2, 3}, {2, 3}});
  CHECK(least->extents == std::vector<extent>{{32, 4}, {32, 4}, {32, 2}, {32, 2}});
  // More pieces than allowed, and a problem full at every birth (D as wide as B): no fillers.
  CHECK_FALSE(detail::rect_fillers(r, area, lay, 4, 2, 3).has_value());
  live_range_table full;
  full.add(interval{0, 4});
  full.add(interval{0, 2});
  full.add(interval{0, 4});
  full.add(interval{2, 4});
  CHECK_FALSE(detail::rect_fillers(full, std::vector<std::uint64_t>{16, 8, 8, 8}, lay, 4, 2, 100).has_value());
  // A piece is never wider than a segment: in two banks of 3 bytes (area 24), X [0, 2) of area 12 and Y
  // [1, 2) of 4 leave 12 free at birth 0 and 8 at birth 1: fillers of 4 ([0, 1)) and 8 ([0, 2)), which at
  // one piece wanted are cut into two (2, 2) and three (3, 3, 2).
  const rect_layout banks{128, 1, 3, 2};
  live_range_table one;
  one.add(interval{0, 2});
  one.add(interval{1, 2});
  const auto cut = detail::rect_fillers(one, std::vector<std::uint64_t>{12, 4}, banks, 4, 1, 100);
  REQUIRE(cut.has_value());
  CHECK(cut->life == std::vector<interval>{{0, 1}, {0, 1}, {0, 2}, {0, 2}, {0, 2}});
  CHECK(cut->extents == std::vector<extent>{{32, 2}, {32, 2}, {32, 3}, {32, 3}, {32, 2}});
}

// search_limits::filler_turns (place_searcher::filler_turns): planted SB kernels by sweep with a tenth of
// their tensors removed (free space scattered through the busiest points) that the search gives up on
// within its budget without the turns, and places with them; the placement, without the fillers, is
// valid. A kernel full at every birth has no fillers: the answer is node for node the one without.
TEST_CASE("place_search: filler turns place kernels with holes") {
  const scratchpad_2d sb(trn2);
  for (const std::pair<std::size_t, std::uint64_t>& kernel : {std::pair<std::size_t, std::uint64_t>{20, 25}, {40, 4}}) {
    const std::size_t tensors = kernel.first;
    const std::uint64_t seed = kernel.second;
    CAPTURE(tensors);
    CAPTURE(seed);
    const tiny t = planted_problem(gca::planted_sb_family::mixed, tensors, seed, 0, memory_type::sb,
                                   gca::planted_sb_construction::sweep, 0.1);
    search_limits with{20000}, without{20000};
    without.filler_turns = false;
    with.repair = without.repair = false;  // the filler turns alone (the repair walk places both too)
    CHECK(place_search({t.ranges, t.ext, t.pins}, sb, without).status == search_status::gave_up);
    const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, with);
    REQUIRE(r.status == search_status::found);
    check_valid(sb, t, r);
  }
  same_answer_without(&search_limits::filler_turns);
}

// search_limits::repair (place_searcher::repair_turn, engine/place_repair.hpp): planted kernels by sweep
// with a tenth of their tensors removed that every other walk gives up on within 20,000 nodes, and the
// repair walk places (SB mixed partitions, 40 tensors, seeds 3 and 10; PSUM mixed, 60 tensors, seed 3);
// each placement is checked with the geometry's own predicates. A kernel that the fills or the sweep
// place in their first turn is answered node for node as without the repair walk.
TEST_CASE("place_search: repair turns place kernels with holes that the other walks give up on") {
  const scratchpad_2d sb(trn2);
  const psum_banks psum(trn2);
  auto check = [](const auto& g, const tiny& t) {
    search_limits with{20000}, without{20000};
    without.repair = false;
    CHECK(place_search({t.ranges, t.ext, t.pins}, g, without).status == search_status::gave_up);
    const place_result r = place_search({t.ranges, t.ext, t.pins}, g, with);
    REQUIRE(r.status == search_status::found);
    check_valid(g, t, r);
  };
  for (const std::uint64_t seed : {3, 10}) {
    CAPTURE(seed);
    check(sb, planted_problem(gca::planted_sb_family::mixed, 40, seed, 0, memory_type::sb, gca::planted_sb_construction::sweep, 0.1));
  }
  check(psum, planted_problem(gca::planted_sb_family::mixed, 60, 3, 0, memory_type::psum, gca::planted_sb_construction::sweep, 0.1));
  same_answer_without(&search_limits::repair);
}

// detail::conflict_repairer alone, on tiny problems with room to spare (SB, and two PSUM banks of odd
// size with alignment 1 or 2, so the second bank starts unaligned; some pins): whatever it places is
// valid by the geometry's own predicates (pins kept); it places most problems that exhaustive enumeration
// finds placeable (and none of the others: nothing to place them with); the same problem and budget give
// the same placements and nodes; and a walk resumed with a larger budget is the walk of one call.
TEST_CASE("conflict_repairer: valid placements, most feasible tiny problems placed, deterministic, resumable") {
  std::mt19937_64 rng(53);
  int feasible = 0, placed = 0;
  const std::uint32_t parts[] = {16, 32, 64, 128};
  for (int it = 0; it < 300; ++it) {
    CAPTURE(it);
    const std::uint64_t cap = 6 + rng() % 8, align = 1 + rng() % 2;
    const bool in_banks = rng() % 2 == 0;
    tiny t;
    const int n = 3 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) add_random_node(t, rng, 3, [&] { return extent{parts[rng() % 4], 1 + rng() % (cap / 2)}; });
    auto run = [&](const auto& g, std::uint64_t capacity) {
      if (rng() % 2 == 0) pin_at_random(g, t, rng, capacity);
      const bool can = exhaustive(g, t, capacity);
      const interference_graph graph = build_interference(t.ranges);
      const rect_layout lay = rect_layout_of(g);
      constexpr auto never = std::chrono::steady_clock::time_point::max();
      std::uint64_t nodes = 0, again = 0, resumed = 0;
      gca::detail::conflict_repairer<> walk(t.ext, t.pins, graph, lay), same(t.ext, t.pins, graph, lay),
          halves(t.ext, t.pins, graph, lay);
      const auto got = walk.run(2000, never, nodes);
      CHECK(same.run(2000, never, again) == got);
      CHECK(again == nodes);
      (void)halves.run(nodes / 2, never, resumed);  // stops halfway (or at the same end)
      CHECK(halves.run(2000, never, resumed) == got);
      CHECK(resumed == nodes);
      feasible += can;
      if (!got) return;
      CHECK(can);
      ++placed;
      place_result r;
      r.placements.assign(got->begin(), got->end());
      check_valid(g, t, r);
    };
    if (in_banks) run(psum_banks(128, 2, cap, align, false), 2 * cap);
    else run(scratchpad_2d(128, cap, align), cap);
  }
  MESSAGE(placed << " of " << feasible << " feasible tiny problems placed");
  CHECK(feasible > 150);
  CHECK(placed + 5 >= feasible);  // 271 of 272 when written
}

// conflict_repairer's positions flush with a segment's top (the mirror of its first offset): planted SB
// kernels by sweep of 40 tensors at tightness 0.97 (3 % of every partition free above the planted
// placement), seeds 1-40, each on 20,000 nodes of the walk alone. With the top positions it placed 39 of
// them when written (seed 21 in 3,866 nodes), without them 37 (seed 21 not within the budget; median
// nodes about 1,300 against 540): room at the top is where a block pushed up meets the memory's end,
// and the walk tried only places pushed down (or up against a neighbor). Each placement is checked with
// the geometry's own predicates.
TEST_CASE("conflict_repairer: positions flush with the memory's top place kernels with room above them") {
  const scratchpad_2d sb(trn2);
  constexpr auto never = std::chrono::steady_clock::time_point::max();
  int placed = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    const tiny t = planted_problem(gca::planted_sb_family::mixed, 40, seed, 0, memory_type::sb,
                                   gca::planted_sb_construction::sweep, 0, 0.97);
    const interference_graph graph = build_interference(t.ranges);
    gca::detail::conflict_repairer<> walk(t.ext, t.pins, graph, rect_layout_of(sb));
    std::uint64_t nodes = 0;
    const auto got = walk.run(20000, never, nodes);
    if (seed == 21) CHECK(got.has_value());
    if (!got) continue;
    ++placed;
    place_result r;
    r.placements.assign(got->begin(), got->end());
    check_valid(sb, t, r);
  }
  CHECK(placed >= 39);
}

// conflict_repairer::best_state and seed: on tiny problems that exhaustive enumeration finds
// unplaceable, the walk gives up, and its best state is a partial placement: pins kept, every placed
// pair of meeting nodes apart, some free node left out. Seeded with a valid placement it answers it
// without a move; seeded with two free nodes on each other, the later one (in id order) is left out.
TEST_CASE("conflict_repairer: the best state is a valid partial placement; seeds") {
  std::mt19937_64 rng(59);
  int unplaceable = 0;
  const std::uint32_t parts[] = {16, 32, 64, 128};
  constexpr auto never = std::chrono::steady_clock::time_point::max();
  for (int it = 0; it < 300 && unplaceable < 40; ++it) {
    CAPTURE(it);
    const std::uint64_t cap = 4 + rng() % 4;
    const scratchpad_2d g(128, cap, 1);
    tiny t;
    const int n = 4 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) add_random_node(t, rng, 2, [&] { return extent{parts[rng() % 4], 1 + rng() % cap}; });
    if (exhaustive(g, t, cap)) continue;
    const interference_graph graph = build_interference(t.ranges);
    gca::detail::conflict_repairer<> walk(t.ext, t.pins, graph, rect_layout_of(g));
    std::uint64_t nodes = 0;
    if (walk.run(500, never, nodes)) continue;  // a node with no legal place at all: no state
    const std::vector<std::optional<placement>> best = walk.best_state();
    if (best.empty()) continue;
    ++unplaceable;
    REQUIRE(best.size() == t.ext.size());
    std::size_t left = 0;
    for (std::size_t v = 0; v < best.size(); ++v) {
      if (!best[v]) {
        ++left;
        continue;
      }
      CHECK(g.legal(t.ext[v], *best[v]));
      for (std::size_t u = 0; u < v; ++u)
        if (best[u] && t.meet(u, v)) CHECK_FALSE(g.overlaps(t.ext[v], *best[v], t.ext[u], *best[u]));
    }
    CHECK(left > 0);
  }
  CHECK(unplaceable >= 20);
  // Seeds: a valid placement is answered at once; two nodes on each other leave the later one out.
  const scratchpad_2d sb(128, 8, 1);
  tiny t;
  t.add({0, 2}, {128, 4});
  t.add({1, 3}, {128, 4});
  const interference_graph graph = build_interference(t.ranges);
  const std::vector<std::optional<placement>> apart{placement{0, 0}, placement{0, 4}}, onto{placement{0, 0}, placement{0, 2}};
  gca::detail::conflict_repairer<> a(t.ext, t.pins, graph, rect_layout_of(sb)), b(t.ext, t.pins, graph, rect_layout_of(sb));
  a.seed(apart);
  std::uint64_t nodes = 0;
  CHECK(a.run(100, never, nodes) == std::vector<placement>{{0, 0}, {0, 4}});
  CHECK(nodes == 0);
  b.seed(onto);
  CHECK(b.run(0, never, nodes) == std::nullopt);  // no budget: the seeded state, no move
  const std::optional<std::vector<placement>> got = b.run(100, never, nodes);
  REQUIRE(got);
  CHECK((*got)[0] == placement{0, 0});  // the walk keeps the first and moves the left-out one above it
  CHECK((*got)[1] == placement{0, 4});
}

// place_result::left_out and partial: a planted kernel with holes that the search gives up on within
// 20,000 nodes (SB mixed, 60 tensors, seed 8; seed 2 until the walk's nodes were counted as work in
// session 39, which the walk now places) carries the repair walk's best state: a valid partial
// placement, pins kept, exactly the free nodes of left_out missing.
TEST_CASE("place_search: a give-up carries the repair walk's best state") {
  const scratchpad_2d sb(trn2);
  const tiny t = planted_problem(gca::planted_sb_family::mixed, 60, 8, 0, memory_type::sb, gca::planted_sb_construction::sweep, 0.1);
  const place_result r = place_search({t.ranges, t.ext, t.pins}, sb, search_limits{20000});
  REQUIRE(r.status == search_status::gave_up);
  REQUIRE(r.partial.size() == t.ext.size());
  CHECK_FALSE(r.left_out.empty());
  std::vector<node_id> missing;
  for (std::size_t v = 0; v < t.ext.size(); ++v) {
    if (!r.partial[v]) {
      missing.push_back(static_cast<node_id>(v));
      continue;
    }
    CHECK(sb.legal(t.ext[v], *r.partial[v]));
    if (t.pins[v]) CHECK(*r.partial[v] == *t.pins[v]);
    for (std::size_t u = 0; u < v; ++u)
      if (r.partial[u] && t.meet(u, v)) CHECK_FALSE(sb.overlaps(t.ext[v], *r.partial[v], t.ext[u], *r.partial[u]));
  }
  CHECK(missing == r.left_out);
}

// compact_down (engine/place_compact.hpp), by hand: a 1,000-byte memory, a pin P (128 x 50 at 120), and
// free blocks left high. Order (offset, id): D, A, C, E, B. D meets nothing: (0, 0). A (128 partitions)
// goes under the pin: 0. C (32) finds 170 at start 0 (above A and P), no lower at 32 or 64: it moves to
// start 0. E (32) finds 470 at start 0 (above C) but 170 at start 32: (32, 170). B (128): above C, 470.
// A second pass moves nothing. The high-water falls from 1,000 to 670.
TEST_CASE("compact_down: blocks move to their lowest free offsets, across start partitions") {
  const rect_layout lay{128, 1, 1000, 1};
  tiny t;
  t.add({0, 2}, {128, 50}, placement{0, 120});  // P, pinned
  t.add({0, 2}, {128, 100});                    // A
  t.add({0, 2}, {128, 200});                    // B
  t.add({0, 2}, {32, 300});                     // C
  t.add({5, 6}, {32, 400});                     // D, meets nothing
  t.add({0, 2}, {32, 100});                     // E
  std::vector<std::optional<placement>> at = {placement{0, 120}, placement{0, 500}, placement{0, 800},
                                              placement{32, 600}, placement{64, 300}, placement{0, 700}};
  const interference_graph g = build_interference(t.ranges);
  const std::vector<std::uint8_t> pinned = {1, 0, 0, 0, 0, 0};
  CHECK(compact_down(g, t.ext, pinned, lay, at) == 5);
  CHECK(at[0] == placement{0, 120});
  CHECK(at[1] == placement{0, 0});
  CHECK(at[2] == placement{0, 470});
  CHECK(at[3] == placement{0, 170});
  CHECK(at[4] == placement{0, 0});
  CHECK(at[5] == placement{32, 170});
  CHECK(compact_down(g, t.ext, pinned, lay, at) == 0);
}

// compact_down in banks and with alignment: a block that no longer fits in the first bank's room goes to
// the lowest bank where it does (never across a bank's end); an aligned block starts at the first
// multiple of the alignment above what it must clear. And the second pass (C4), in a memory of 64
// partitions: Y (32 x 400 at start 0,
// offset 200, on a pin 32 x 200) is handled first and cannot go lower, at start 32 because X (32 x 100 at
// start 32, offset 300) is in the way; X then goes to 0, and only the next pass finds Y its place above
// X at start 32: offset 100.
TEST_CASE("compact_down: segments, alignment, and a second pass") {
  {
    const rect_layout lay{64, 1, 1000, 1};  // 64 partitions: starts 0 and 32
    tiny t;
    t.add({0, 1}, {32, 200}, placement{0, 0});  // the pin
    t.add({0, 1}, {32, 400});                   // Y
    t.add({0, 1}, {32, 100});                   // X
    std::vector<std::optional<placement>> at = {placement{0, 0}, placement{0, 200}, placement{32, 300}};
    const std::vector<std::uint8_t> pinned = {1, 0, 0};
    const interference_graph g = build_interference(t.ranges);
    CHECK(compact_down(g, t.ext, pinned, lay, at, 1) == 1);  // one pass: X alone
    CHECK(at[2] == placement{32, 0});
    CHECK(at[1] == placement{0, 200});
    CHECK(compact_down(g, t.ext, pinned, lay, at) == 1);
    CHECK(at[1] == placement{32, 100});
  }
  {
    const rect_layout banks{128, 1, 2048, 4};
    tiny t;
    t.add({0, 1}, {128, 1500});
    t.add({0, 1}, {128, 1000});
    std::vector<std::optional<placement>> at = {placement{0, 3 * 2048}, placement{0, 2 * 2048}};
    CHECK(compact_down(build_interference(t.ranges), t.ext, {}, banks, at) == 2);
    CHECK(at[1] == placement{0, 0});
    CHECK(at[0] == placement{0, 2048});
  }
  {
    const rect_layout aligned{128, 64, 1024, 1};
    tiny t;
    t.add({0, 1}, {128, 30}, placement{0, 0});
    t.add({0, 1}, {128, 128});
    std::vector<std::optional<placement>> at = {placement{0, 0}, placement{0, 640}};
    const std::vector<std::uint8_t> pinned = {1, 0};
    CHECK(compact_down(build_interference(t.ranges), t.ext, pinned, aligned, at) == 1);
    CHECK(at[1] == placement{0, 64});
  }
}

// compact_down against brute force: on random tiny problems that place_search places, each free block
// of its placement then moved (in random order) to a position drawn at random among those clear of the
// others (so the start is valid, and seldom low), the pushed-down placement is valid, keeps every pin,
// lowers no block's end, and leaves no free block a legal position at a lower offset, in any start
// partition, clear of its meeting nodes (every position of the memory tried); a second call moves
// nothing.
TEST_CASE("compact_down: on random tiny problems, no block can go lower, checked by brute force") {
  std::mt19937_64 rng(71);
  const std::uint32_t parts[] = {16, 32, 64, 128};
  int checked = 0, lowered = 0;
  for (int it = 0; it < 400; ++it) {
    CAPTURE(it);
    const std::uint64_t cap = 6 + rng() % 6;
    const scratchpad_2d g(128, cap, 1);
    tiny t;
    const int n = 4 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) add_random_node(t, rng, 3, [&] { return extent{parts[rng() % 4], 1 + rng() % (cap / 2)}; });
    if (rng() % 3 == 0) pin_at_random(g, t, rng, cap);
    search_limits lim;
    lim.compact = false;
    const place_result r = place_search({t.ranges, t.ext, t.pins}, g, lim);
    if (r.status != search_status::found) continue;
    ++checked;
    place_result start = r;  // scattered: each free block at a random clear position
    for (std::size_t v = 0; v < t.ext.size(); ++v) {
      if (t.pins[v]) continue;
      std::vector<placement> clear_at;
      for (const placement& p : positions(g, t.ext[v], cap)) {
        bool clear = true;
        for (std::size_t u = 0; u < t.ext.size() && clear; ++u)
          if (u != v && t.meet(u, v) && g.overlaps(t.ext[v], p, t.ext[u], *start.placements[u])) clear = false;
        if (clear) clear_at.push_back(p);
      }
      start.placements[v] = clear_at[rng() % clear_at.size()];  // its own position is one of them
    }
    check_valid(g, t, start);
    place_result c = start;
    std::vector<std::uint8_t> pinned(t.ext.size());
    for (std::size_t v = 0; v < t.ext.size(); ++v) pinned[v] = t.pins[v] ? 1 : 0;
    const interference_graph graph = build_interference(t.ranges);
    lowered += compact_down(graph, t.ext, pinned, rect_layout_of(g), c.placements) > 0;
    check_valid(g, t, c);
    for (std::size_t v = 0; v < t.ext.size(); ++v) {
      CHECK(c.placements[v]->offset <= start.placements[v]->offset);
      if (t.pins[v]) continue;
      for (const placement& p : positions(g, t.ext[v], cap)) {
        if (p.offset >= c.placements[v]->offset) continue;
        bool clear = true;
        for (std::size_t u = 0; u < t.ext.size() && clear; ++u)
          if (u != v && t.meet(u, v) && g.overlaps(t.ext[v], p, t.ext[u], *c.placements[u])) clear = false;
        CHECK_FALSE(clear);
      }
    }
    CHECK(compact_down(graph, t.ext, pinned, rect_layout_of(g), c.placements) == 0);
  }
  CHECK(checked >= 200);
  CHECK(lowered >= checked / 2);
  MESSAGE(checked, " placed, ", lowered, " lowered");
}

// place_search pushes what it finds down (search_limits::compact): on planted SB kernels by sweep of 40
// tensors at tightness 0.97 (3 % of every partition free above the planted placement), seeds 1-40,
// 20,000 nodes, the answer and node count are those without it, the placement is valid, and its
// high-water is never higher, and lower on several kernels: the repair walk and the fills leave blocks
// higher than they must be.
TEST_CASE("place_search: a found placement is pushed down; its high-water never rises") {
  const scratchpad_2d sb(trn2);
  int found = 0, lower = 0;
  auto high_water = [](const tiny& t, const place_result& r) {
    std::uint64_t h = 0;
    for (std::size_t v = 0; v < t.ext.size(); ++v) h = std::max(h, r.placements[v]->offset + t.ext[v].bytes);
    return h;
  };
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    const tiny t = planted_problem(gca::planted_sb_family::mixed, 40, seed, seed % 4 == 0 ? 0.2 : 0, memory_type::sb,
                                   gca::planted_sb_construction::sweep, 0, 0.97);
    search_limits on{20000}, off{20000};
    off.compact = false;
    const place_result a = place_search({t.ranges, t.ext, t.pins}, sb, on);
    const place_result b = place_search({t.ranges, t.ext, t.pins}, sb, off);
    REQUIRE(a.status == b.status);
    CHECK(a.nodes == b.nodes);
    if (a.status != search_status::found) continue;
    ++found;
    check_valid(sb, t, a);
    CHECK(high_water(t, a) <= high_water(t, b));
    lower += high_water(t, a) < high_water(t, b);
  }
  MESSAGE(found, " found, ", lower, " lower");
  CHECK(found >= 35);
  CHECK(lower >= 3);
}

// search_options::repair_set_nodes: the walks that grow the victims' set from the search's best state
// (guided_victims::repair_set) at ten times a trial set's search, against one time: planted SB kernels by
// sweep of 60 tensors at tightness 0.97, seeds 1-20, mixed / tight, under small budgets (2,000 nodes for
// the space, 1,000 per trial set). When written: 42 webs spilled in all against 54 (six kernels fewer,
// none more), where the short walk left the spilled webs' reloads out and the trial sets chose more.
// Every allocation verified against its input.
TEST_CASE("victims: longer walks from the search's best state spill fewer webs") {
  std::size_t short_walks = 0, long_walks = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const gca::module original = sweep_kernel(seed % 2 ? gca::planted_sb_family::mixed : gca::planted_sb_family::tight, seed, 60, 0.97);
    auto run = [&](std::uint64_t walk) {
      gca::module m = original;
      gca::pass_options popt = search_budget(300000, 2000, 1000);
      popt.alloc.search.repair_set_nodes = walk;
      std::size_t webs = 0;
      for (const gca::pass_report& r : run_o2(m, popt))
        for (const auto& [fn, rep] : r.functions)
          if (r.pass == "coloring_allocator_sb") webs = rep.spills.spilled_webs;
      CHECK(gca::verify(original, m).ok());
      return webs;
    };
    short_walks += run(1000);
    long_walks += run(10000);
  }
  MESSAGE(long_walks, " webs spilled with the longer walks, ", short_walks, " with the short ones");
  CHECK(long_walks + 8 <= short_walks);
}
