// Tests of the exact 2-D placement search (gca/engine/place_search.hpp): hand-checked cases (the
// issue-11 kernel's SB problem, banks, pins) and random tiny problems compared with a plain exhaustive
// enumeration of every legal position of every node (which shares no code with the search), feasible and
// infeasible ones alike. Every placement the search returns is checked with the geometry's own legal and
// overlaps.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include <gca/engine/place_search.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/graph/interference.hpp>

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

/// Every legal position of e in g, by brute force over all partitions and byte offsets.
template <class G>
std::vector<placement> positions(const G& g, const extent& e, std::uint64_t capacity) {
  std::vector<placement> out;
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint64_t o = 0; o < capacity; ++o)
      if (g.legal(e, placement{p, o})) out.push_back({p, o});
  return out;
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
      const program_point b = static_cast<program_point>(rng() % 4);
      const extent e{parts[rng() % 6], 1 + rng() % (cap / 2 + 1)};
      t.add({b, b + 1 + static_cast<program_point>(rng() % 3)}, e);
    }
    auto run = [&](const auto& g, std::uint64_t capacity) {
      // Pin a node now and then at one of its legal positions.
      if (rng() % 3 == 0) {
        const std::size_t v = rng() % t.ext.size();
        const auto pos = positions(g, t.ext[v], capacity);
        if (!pos.empty()) t.pins[v] = pos[rng() % pos.size()];
      }
      const place_result r = place_search({t.ranges, t.ext, t.pins}, g);
      const bool truth = exhaustive(g, t, capacity);
      REQUIRE(r.status != search_status::gave_up);
      CHECK((r.status == search_status::found) == truth);
      if (r.status == search_status::found) {
        check_valid(g, t, r);
        ++found;
      } else {
        ++infeasible;
      }
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
