// Tests of the coloring engine: interference builders, the four geometries, simplify/select/best-of-n,
// and the DSA/DIMACS readers. Exact placements on hand-checked cases; randomized properties checked by
// brute force and by an overlap check that does not use the engine; quality bounds on the shared data.
#include <doctest/doctest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/graph_concepts.hpp>
#include <boost/graph/sequential_vertex_coloring.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/linear_scan.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/graph/bgl.hpp>
#include <gca/graph/interference.hpp>
#include <gca/io/dimacs.hpp>
#include <gca/io/dsa_csv.hpp>
#include <gca/ir/target.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/spill_to_next_tier.hpp>

#include "../benchmarks/dsa_baseline.hpp"

using namespace gca;

namespace {

placed_neighbor at(std::uint32_t parts, std::uint64_t bytes, std::uint32_t partition, std::uint64_t offset) {
  return {extent{parts, bytes}, placement{partition, offset}};
}

template <class G>
std::optional<placement> pick(const G& g, extent e, std::vector<placed_neighbor> nbrs,
                              select_heuristic h = select_heuristic::first_fit) {
  return g.select(e, std::span<const placed_neighbor>(nbrs), h);
}

// A geometry that lacks `select`: must not satisfy the concept.
struct no_select {
  static constexpr memory_type space = memory_type::dram;
  bool fits(const extent&) const { return true; }
  bool legal(const extent&, const placement&) const { return true; }
  std::uint64_t candidates(const extent&) const { return 1; }
  std::uint64_t max_blocked(const extent&, const extent&) const { return 1; }
  bool overlaps(const extent&, const placement&, const extent&, const placement&) const { return true; }
  std::uint64_t end(const extent&, const placement&) const { return 0; }
  std::uint64_t capacity() const { return 0; }
};
static_assert(!GeometryPolicy<no_select>);
static_assert(GeometryPolicy<linear_dram> && GeometryPolicy<scratchpad_2d> && GeometryPolicy<psum_banks> &&
              GeometryPolicy<registers>);

// Near misses of the other concepts: each type lacks one requirement, or has it with the wrong type.
struct spill_returns_bool {  // `spill` must return the number of webs spilled, not whether it spilled
  [[maybe_unused]] static constexpr std::string_view name = "near-miss";
  bool spill(linearized_function&, const space_attempt&, const space_filter&, const target&, spill_state&) const {
    return false;
  }
};
struct spill_without_name {
  std::size_t spill(linearized_function&, const space_attempt&, const space_filter&, const target&,
                    spill_state&) const {
    return 0;
  }
};
struct spill_not_const {  // the fixpoint holds its policy as `const Spill&`: a mutating `spill` cannot be called
  [[maybe_unused]] static constexpr std::string_view name = "near-miss";
  std::size_t spill(linearized_function&, const space_attempt&, const space_filter&, const target&, spill_state&) {
    return 0;
  }
};
static_assert(!SpillPolicy<spill_returns_bool> && !SpillPolicy<spill_without_name> && !SpillPolicy<spill_not_const>);
struct spillable_returns_int {  // the optional member must answer yes or no
  static int spillable(const function&, const liveness&, web_id, const space_filter&, const spill_state&) { return 1; }
};
static_assert(!ReportsSpillable<spillable_returns_int> && !ReportsSpillable<no_spill>);
static_assert(ReportsSpillable<spill_to_next_tier>);
static_assert(SpillPolicy<no_spill> && SpillPolicy<spill_to_next_tier>);
struct linearization_without_flag {  // no decision at all
  [[maybe_unused]] static constexpr std::string_view name = "near-miss";
};
struct linearization_by_flag {  // the old tag form: a constant instead of a decision per loop
  [[maybe_unused]] static constexpr std::string_view name = "near-miss";
  [[maybe_unused]] static constexpr bool flattens_loops = true;
};
struct linearization_not_const {  // the drivers hold the policy const: a mutating `flattens` cannot be called
  [[maybe_unused]] static constexpr std::string_view name = "near-miss";
  bool flattens(const function&, inst_id) { return true; }
};
static_assert(!LinearizationPolicy<linearization_without_flag> && !LinearizationPolicy<linearization_by_flag> &&
              !LinearizationPolicy<linearization_not_const>);
static_assert(LinearizationPolicy<opaque_loops> && LinearizationPolicy<flattened_loops> &&
              LinearizationPolicy<flatten_up_to<4>>);
struct observer_without_finish {  // misses the fixpoint's closing hook
  void will_allocate(memory_type) {}
  void best_of_n(memory_type, std::string_view) {}
  void score(memory_type, std::uint64_t) {}
  void did_color(memory_type, std::string_view) {}
  void note(std::string_view) {}
};
struct observer_const_only : null_observer {};  // a model, but the drivers call its hooks on a non-const lvalue
static_assert(!AllocationObserver<observer_without_finish> && !AllocationObserver<const observer_const_only>);
static_assert(AllocationObserver<null_observer> && AllocationObserver<stream_observer&>);
// A linear memory is a GeometryPolicy but has no rectangle layout: the 2-D search does not take it.
static_assert(!RectangleGeometry<linear_dram> && !RectangleGeometry<registers>);

}  // namespace

// An observer_ref is convertible from any observer (not from itself through the template), and
// forwards each hook, with its arguments, to the observer it refers to: the same lines as the observer
// called directly.
static_assert(std::is_convertible_v<stream_observer&, observer_ref> && !std::is_convertible_v<const null_observer&, observer_ref>);
TEST_CASE("an observer_ref says what the observer it refers to would say") {
  std::ostringstream direct, through;
  stream_observer d{&direct}, t{&through};
  observer_ref r(t);
  d.will_allocate(memory_type::sb), r.will_allocate(memory_type::sb);
  d.best_of_n(memory_type::psum, "h1"), r.best_of_n(memory_type::psum, "h1");
  d.score(memory_type::sb, 1234), r.score(memory_type::sb, 1234);
  d.did_color(memory_type::sb, "h2"), r.did_color(memory_type::sb, "h2");
  d.did_finish(memory_type::sb, 3, 700, 2, 4096), r.did_finish(memory_type::sb, 3, 700, 2, 4096);
  d.note("a note"), r.note("a note");
  CHECK(through.str() == direct.str());
  CHECK(through.str().find("number of tensors spilled from SB = 2") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------------
// Interference graph

TEST_CASE("interference: sweep builder matches brute force on random live ranges") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::size_t n = 1 + rng() % 40;
    live_range_table t;
    std::vector<std::vector<interval>> ranges(n);
    for (std::size_t v = 0; v < n; ++v) {
      const int k = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < k; ++i) {
        const auto b = static_cast<program_point>(rng() % 60);
        ranges[v].push_back({b, static_cast<program_point>(b + 1 + rng() % 10)});
      }
      normalize(ranges[v]);
      t.add(ranges[v]);
    }
    const interference_graph g = build_interference(t);
    REQUIRE(g.num_nodes() == n);
    std::size_t edges = 0;
    for (node_id u = 0; u < n; ++u) {
      std::vector<node_id> expect;
      for (node_id v = 0; v < n; ++v) {
        bool hit = false;
        for (const interval& a : ranges[u])
          for (const interval& b : ranges[v]) hit = hit || a.overlaps(b);
        if (u != v && hit) expect.push_back(v);
      }
      const auto got = g.neighbors(u);
      CHECK(std::vector<node_id>(got.begin(), got.end()) == expect);  // also checks sorted order
      CHECK(g.degree(u) == expect.size());
      edges += expect.size();
    }
    CHECK(g.num_edges() * 2 == edges);
  }
}

TEST_CASE("interference: touching half-open intervals do not interfere") {
  live_range_table t;
  t.add(interval{0, 5});
  t.add(interval{5, 9});
  t.add(interval{4, 6});
  const interference_graph g = build_interference(t);
  CHECK_FALSE(g.adjacent(0, 1));
  CHECK(g.adjacent(0, 2));
  CHECK(g.adjacent(2, 1));
}

TEST_CASE("interference: edge-list builder drops duplicates and self loops, rejects bad nodes") {
  const std::vector<std::pair<node_id, node_id>> e{{0, 1}, {1, 0}, {2, 2}, {3, 1}, {0, 1}};
  const interference_graph g = build_interference(4, e);
  CHECK(g.num_edges() == 2);
  CHECK(g.degree(1) == 2);
  CHECK(g.degree(2) == 0);
  const auto n1 = g.neighbors(1);
  CHECK(std::vector<node_id>(n1.begin(), n1.end()) == std::vector<node_id>{0, 3});
  const std::vector<std::pair<node_id, node_id>> bad{{0, 4}};
  CHECK_THROWS_AS(build_interference(4, bad), std::invalid_argument);
  live_range_table t;
  const std::vector<interval> unsorted{{5, 7}, {1, 3}};
  t.add(unsorted);
  CHECK_THROWS_AS(build_interference(t), std::invalid_argument);
}

TEST_CASE("interference: the CSR constructor checks the shape it is given") {
  const interference_graph g(std::vector<std::size_t>{0, 1, 2}, std::vector<node_id>{1, 0});
  CHECK(g.num_edges() == 1);
  CHECK(g.adjacent(1, 0));
  CHECK_THROWS_AS(interference_graph(std::vector<std::size_t>{0, 2, 1}, std::vector<node_id>{1, 0}),
                  std::invalid_argument);  // row_start decreases
  CHECK_THROWS_AS(interference_graph(std::vector<std::size_t>{0, 1, 3}, std::vector<node_id>{1, 0}),
                  std::invalid_argument);  // does not end at the column count
  CHECK_THROWS_AS(interference_graph(std::vector<std::size_t>{0, 1, 2}, std::vector<node_id>{1, 2}),
                  std::invalid_argument);  // neighbor 2 of a 2-node graph
  CHECK(interference_graph().num_nodes() == 0);
}

// The BGL adapter (gca/graph/bgl.hpp): the concepts BGL algorithms require, and three BGL algorithms run
// on random interval graphs, each checked against an answer computed without BGL.
TEST_CASE("interference: Boost.Graph algorithms run on the graph through gca/graph/bgl.hpp") {
  using G = interference_graph;
  BOOST_CONCEPT_ASSERT((boost::VertexListGraphConcept<G>));
  BOOST_CONCEPT_ASSERT((boost::IncidenceGraphConcept<G>));
  BOOST_CONCEPT_ASSERT((boost::AdjacencyGraphConcept<G>));
  BOOST_CONCEPT_ASSERT((boost::EdgeListGraphConcept<G>));
  BOOST_CONCEPT_ASSERT((boost::BidirectionalGraphConcept<G>));
  BOOST_CONCEPT_ASSERT((boost::ReadablePropertyMapConcept<boost::property_map<G, boost::vertex_index_t>::const_type, node_id>));
  std::mt19937 rng(42);
  for (int round = 0; round < 30; ++round) {
    const std::size_t n = 1 + rng() % 40;
    live_range_table t;
    for (std::size_t v = 0; v < n; ++v) {
      const auto b = static_cast<program_point>(rng() % 100);
      t.add(interval{b, static_cast<program_point>(b + 1 + rng() % 12)});
    }
    const G g = build_interference(t);
    // edges(g): every undirected edge once, as (u, v) with u < v, in CSR order; num_edges agrees.
    std::vector<std::pair<node_id, node_id>> listed, expect;
    for (auto [e, end] = edges(g); e != end; ++e) listed.emplace_back(bgl::source(*e, g), bgl::target(*e, g));
    for (node_id u = 0; u < n; ++u)
      for (node_id v : g.neighbors(u))
        if (u < v) expect.emplace_back(u, v);
    CHECK(listed == expect);
    CHECK(num_edges(g) == expect.size());
    // out_edges(v) point away from v and reach exactly its neighbors; an edge equals its reverse.
    for (node_id v = 0; v < n; ++v) {
      std::vector<node_id> out;
      for (auto [e, end] = out_edges(v, g); e != end; ++e) {
        CHECK(bgl::source(*e, g) == v);
        out.push_back(bgl::target(*e, g));
        CHECK(*e == bgl::edge{bgl::target(*e, g), v, 0});
      }
      const auto nb = g.neighbors(v);
      CHECK(out == std::vector<node_id>(nb.begin(), nb.end()));
      CHECK(out_degree(v, g) == nb.size());
    }
    // BGL's greedy coloring: proper, with at most max degree + 1 colors.
    std::vector<std::size_t> color(n);
    const auto index = get(boost::vertex_index, g);
    const std::size_t colors =
        boost::sequential_vertex_coloring(g, boost::make_iterator_property_map(color.begin(), index));
    std::size_t max_degree = 0;
    for (node_id v = 0; v < n; ++v) {
      max_degree = std::max<std::size_t>(max_degree, g.degree(v));
      for (node_id u : g.neighbors(v)) CHECK(color[u] != color[v]);
    }
    CHECK(colors <= max_degree + 1);
    // BGL's connected components against a sweep: interval graph components are the maximal runs of
    // intervals that chain by overlap, so two nodes share a component iff no gap separates them.
    std::vector<int> comp(n);
    const int count = boost::connected_components(g, boost::make_iterator_property_map(comp.begin(), index));
    std::vector<node_id> order(n);
    for (node_id v = 0; v < n; ++v) order[v] = v;
    auto span_of = [&](node_id v) { return t.ranges(v)[0]; };
    std::sort(order.begin(), order.end(), [&](node_id a, node_id b) { return span_of(a).begin < span_of(b).begin; });
    int runs = 0;
    program_point reach = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const interval iv = span_of(order[k]);
      if (k == 0 || iv.begin >= reach) ++runs;
      else CHECK(comp[order[k]] == comp[order[k - 1]]);
      reach = k == 0 ? iv.end : std::max(reach, iv.end);
    }
    CHECK(count == runs);
    // BGL's breadth-first search reaches exactly the start's component.
    std::vector<boost::default_color_type> seen(n, boost::white_color);
    boost::breadth_first_search(g, node_id{0}, boost::color_map(boost::make_iterator_property_map(seen.begin(), index)));
    for (node_id v = 0; v < n; ++v) CHECK((seen[v] != boost::white_color) == (comp[v] == comp[0]));
  }
}

// ---------------------------------------------------------------------------------------------------
// Geometries: exact placements

TEST_CASE("linear_dram: first fit, best fit, alignment, capacity") {
  const linear_dram d(1000, 1);
  const std::vector<placed_neighbor> n{at(1, 100, 0, 0), at(1, 150, 0, 150), at(1, 190, 0, 310)};
  CHECK(pick(d, {1, 10}, n) == placement{0, 100});
  CHECK(pick(d, {1, 10}, n, select_heuristic::best_fit) == placement{0, 300});  // the 10-byte hole
  CHECK(pick(d, {1, 40}, n, select_heuristic::best_fit) == placement{0, 100});
  CHECK(pick(d, {1, 60}, n) == placement{0, 500});
  CHECK(pick(d, {1, 500}, n) == placement{0, 500});
  CHECK_FALSE(pick(d, {1, 501}, n));
  const linear_dram a(128, 64);
  CHECK(pick(a, {1, 5}, {at(1, 10, 0, 0)}) == placement{0, 64});
  CHECK_FALSE(pick(a, {1, 10}, {at(1, 100, 0, 0)}));  // starts 0 and 64 both overlap [0, 100)
  CHECK(a.candidates({1, 64}) == 2);
  CHECK(a.legal({1, 64}, {0, 64}));
  CHECK_FALSE(a.legal({1, 64}, {0, 32}));
  CHECK_FALSE(a.fits({1, 129}));
  const linear_dram u;  // unbounded, aligned to 64
  CHECK(u.candidates({1, 1}) == unbounded);
  CHECK(pick(u, {1, 1}, {at(1, 1000, 0, 0)}) == placement{0, 1024});
  CHECK_THROWS_AS(linear_dram(10, 0), std::invalid_argument);
}

TEST_CASE("scratchpad_2d: start-partition rule and rectangles") {
  const scratchpad_2d sb(trn1);
  CHECK(sb.capacity() == 180224);
  // The rule: > 64 -> 0; 33..64 -> 0 or 64; 1..32 -> 0, 32, 64, 96.
  CHECK(sb.legal({65, 8}, {0, 0}));
  CHECK_FALSE(sb.legal({65, 8}, {32, 0}));
  CHECK(sb.legal({64, 8}, {64, 0}));
  CHECK_FALSE(sb.legal({64, 8}, {32, 0}));
  CHECK_FALSE(sb.legal({33, 8}, {95, 0}));
  CHECK(sb.legal({32, 8}, {96, 0}));
  CHECK_FALSE(sb.legal({32, 8}, {16, 0}));
  CHECK_FALSE(sb.legal({1, 180225}, {0, 0}));
  CHECK_FALSE(sb.fits({129, 1}));
  CHECK(sb.candidates({32, 180224}) == 4);
  CHECK(sb.candidates({64, 180224 - 9}) == 2 * 10);

  // A full-height tensor pushes everything up; a 32-partition tensor at partition 0 leaves 32..127 free.
  CHECK(pick(sb, {32, 500}, {at(128, 1000, 0, 0)}) == placement{0, 1000});
  CHECK(pick(sb, {32, 500}, {at(32, 100, 0, 0)}) == placement{32, 0});
  CHECK(pick(sb, {33, 500}, {at(33, 100, 0, 0)}) == placement{64, 0});
  CHECK(pick(sb, {65, 500}, {at(32, 100, 64, 0)}) == placement{0, 100});  // rows 0..64 meet 64..95
  CHECK(pick(sb, {65, 500}, {at(32, 100, 96, 0)}) == placement{0, 0});
  // Best fit: a 32-partition tensor of 50 bytes goes into the 50-byte hole at partitions 64..95.
  const std::vector<placed_neighbor> holes{at(128, 100, 0, 0), at(64, 1000, 0, 100), at(32, 50, 64, 150),
                                           at(32, 200, 96, 100)};
  CHECK(pick(sb, {32, 50}, holes) == placement{64, 100});
  CHECK(pick(sb, {32, 50}, holes, select_heuristic::best_fit) == placement{64, 100});
  CHECK(pick(sb, {32, 60}, holes) == placement{64, 200});
  // No hole of 60 between tensors: best fit takes the tightest top-of-memory hole (rows 0..63 end at
  // 1100, the highest), first fit the lowest address.
  CHECK(pick(sb, {32, 60}, holes, select_heuristic::best_fit) == placement{0, 1100});
  const scratchpad_2d aligned(128, 1024, 64);
  CHECK(pick(aligned, {128, 10}, {at(1, 65, 5, 0)}) == placement{0, 128});
}

TEST_CASE("psum_banks: a tensor stays in one bank on trn1/trn2, may span on trn3") {
  const psum_banks p1(trn1), p3(trn3);
  CHECK(p1.capacity() == 16384);
  CHECK(p1.fits({128, 2048}));
  CHECK_FALSE(p1.fits({128, 2049}));
  CHECK(p3.fits({128, 2049}));
  CHECK_FALSE(p3.fits({128, 16385}));
  CHECK(p1.candidates({128, 2048}) == 8);
  CHECK(p1.legal({1, 1000}, {0, 1048}));
  CHECK_FALSE(p1.legal({1, 1000}, {0, 1052}));  // would cross into bank 1
  CHECK(p3.legal({1, 1000}, {0, 1052}));
  CHECK_FALSE(p1.legal({1, 8}, {0, 2}));  // alignment 4
  CHECK(pick(p1, {128, 1500}, {at(128, 1000, 0, 0)}) == placement{0, 2048});
  CHECK(pick(p3, {128, 1500}, {at(128, 1000, 0, 0)}) == placement{0, 1000});
  CHECK(pick(p1, {128, 4}, {at(128, 1001, 0, 0)}) == placement{0, 1004});
  CHECK(pick(p1, {32, 2048}, {at(32, 2048, 0, 0)}) == placement{32, 0});
  // All eight banks of the full height taken: nothing left for a full-height tensor.
  std::vector<placed_neighbor> full;
  for (std::uint64_t b = 0; b < 8; ++b) full.push_back(at(128, 1500, 0, b * 2048));
  CHECK_FALSE(pick(p1, {128, 600}, full));
  CHECK(pick(p1, {128, 548}, full, select_heuristic::best_fit) == placement{0, 1500});
}

TEST_CASE("registers: lowest free register, K bound") {
  const registers r(3);
  CHECK(pick(r, {1, 4}, {at(1, 4, 0, 0), at(1, 4, 0, 1), at(1, 4, 0, 0)}) == placement{0, 2});
  CHECK(pick(r, {1, 4}, {at(1, 4, 0, 1)}) == placement{0, 0});
  CHECK_FALSE(pick(r, {1, 4}, {at(1, 4, 0, 2), at(1, 4, 0, 1), at(1, 4, 0, 0)}));
  CHECK(r.max_blocked({1, 4}, {1, 4}) == 1);
  CHECK_FALSE(r.fits({1, 8}));
  CHECK(registers::for_target(trn2).capacity() == 64);
  CHECK_THROWS_AS(registers(0), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------
// Geometries: randomized soundness of the trivially-colorable test, checked by brute force

namespace {

/// Every legal placement of e, by brute force over a small memory.
template <class G>
std::vector<placement> all_legal(const G& g, extent e, std::uint32_t parts, std::uint64_t bytes) {
  std::vector<placement> out;
  for (std::uint64_t o = 0; o < bytes; ++o)
    for (std::uint32_t p = 0; p < parts; ++p)
      if (g.legal(e, {p, o})) out.push_back({p, o});
  return out;
}

template <class G>
void check_soundness(const G& g, std::uint32_t parts, std::uint64_t bytes, auto random_extent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 150; ++round) {
    const extent e = random_extent(rng);
    if (!g.fits(e)) {
      CHECK(g.candidates(e) == 0);
      continue;
    }
    const auto mine = all_legal(g, e, parts, bytes);
    REQUIRE(g.candidates(e) <= mine.size());  // select searches at least that many positions
    // Random neighbors while the sound test still says "trivially colorable".
    std::vector<placed_neighbor> nbrs;
    std::uint64_t pressure = 0;
    for (int k = 0; k < 40; ++k) {
      const extent f = random_extent(rng);
      if (!g.fits(f)) continue;
      const auto theirs = all_legal(g, f, parts, bytes);
      // The blocking bound, by brute force, for a random legal position of f.
      const placement q = theirs[rng() % theirs.size()];
      std::uint64_t blocked = 0;
      for (const placement& p : mine) blocked += g.overlaps(e, p, f, q) ? 1 : 0;
      REQUIRE(blocked <= g.max_blocked(e, f));
      if (pressure + g.max_blocked(e, f) >= g.candidates(e)) break;
      pressure += g.max_blocked(e, f);
      nbrs.push_back({f, q});
    }
    for (select_heuristic h : {select_heuristic::first_fit, select_heuristic::best_fit}) {
      const auto p = g.select(e, std::span<const placed_neighbor>(nbrs), h);
      REQUIRE(p);  // the soundness claim
      CHECK(g.legal(e, *p));
      for (const placed_neighbor& n : nbrs) CHECK_FALSE(g.overlaps(e, *p, n.size, n.at));
    }
    // Completeness and first fit, by brute force, with more neighbors than the test allows.
    for (int k = 0; k < 6; ++k) {
      const extent f = random_extent(rng);
      if (!g.fits(f)) continue;
      const auto theirs = all_legal(g, f, parts, bytes);
      nbrs.push_back({f, theirs[rng() % theirs.size()]});
    }
    std::optional<placement> lowest;
    for (const placement& p : mine) {
      bool free = true;
      for (const placed_neighbor& n : nbrs) free = free && !g.overlaps(e, p, n.size, n.at);
      if (free && (!lowest || p.offset < lowest->offset ||
                   (p.offset == lowest->offset && p.partition < lowest->partition)))
        lowest = p;
    }
    const auto ff = g.select(e, std::span<const placed_neighbor>(nbrs), select_heuristic::first_fit);
    CHECK(ff == lowest);
    const auto bf = g.select(e, std::span<const placed_neighbor>(nbrs), select_heuristic::best_fit);
    CHECK(bf.has_value() == lowest.has_value());
  }
}

}  // namespace

TEST_CASE("soundness: trivially colorable implies select succeeds (linear_dram)") {
  for (std::uint64_t align : {1, 3, 8}) {
    const linear_dram g(200, align);
    check_soundness(g, 1, 200, [](std::mt19937_64& r) { return extent{1, 1 + r() % 40}; }, align);
  }
}

TEST_CASE("soundness: trivially colorable implies select succeeds (scratchpad_2d)") {
  const scratchpad_2d g(128, 48, 4);
  check_soundness(g, 128, 48, [](std::mt19937_64& r) {
    const std::uint32_t parts[] = {1, 16, 32, 33, 64, 65, 128};
    return extent{parts[r() % 7], 1 + r() % 16};
  }, 11);
}

TEST_CASE("soundness: trivially colorable implies select succeeds (psum_banks)") {
  for (bool span : {false, true}) {
    const psum_banks g(128, 4, 16, 4, span);
    check_soundness(g, 128, 64, [](std::mt19937_64& r) {
      const std::uint32_t parts[] = {1, 32, 33, 64, 128};
      return extent{parts[r() % 5], 1 + r() % 20};
    }, span ? 12 : 13);
  }
}

TEST_CASE("soundness: trivially colorable implies select succeeds (registers)") {
  const registers g(6);
  check_soundness(g, 1, 6, [](std::mt19937_64&) { return extent{1, 4}; }, 14);
}

// ---------------------------------------------------------------------------------------------------
// The colorer

namespace {

struct random_problem {
  std::vector<interval> life;  // one interval per node
  std::vector<extent> extents;
  live_range_table table;
};

random_problem make_problem(std::mt19937_64& rng, std::size_t n, auto random_extent) {
  random_problem p;
  for (std::size_t v = 0; v < n; ++v) {
    const auto b = static_cast<program_point>(rng() % 100);
    p.life.push_back({b, static_cast<program_point>(b + 1 + rng() % 30)});
    p.extents.push_back(random_extent(rng));
    p.table.add(p.life.back());
  }
  return p;
}

/// The independent check: uses the intervals (not the graph) and the geometry's legal/overlaps only.
template <class G>
void check_coloring(const random_problem& p, const G& g, const coloring_result& r,
                    const std::vector<std::optional<placement>>& pinned = {}) {
  const std::size_t n = p.life.size();
  REQUIRE(r.placements.size() == n);
  std::set<node_id> unplaced;
  for (const unplaced_node& u : r.unplaced) unplaced.insert(u.node);
  CHECK(unplaced.size() == r.unplaced.size());
  std::uint64_t peak = 0;
  for (node_id v = 0; v < n; ++v) {
    CHECK(r.placements[v].has_value() != (unplaced.count(v) == 1));  // placed xor reported
    if (!r.placements[v]) continue;
    CHECK(g.legal(p.extents[v], *r.placements[v]));
    peak = std::max(peak, g.end(p.extents[v], *r.placements[v]));
    if (!pinned.empty() && pinned[v]) CHECK(r.placements[v] == pinned[v]);
    for (node_id u = 0; u < v; ++u) {
      if (!r.placements[u] || !p.life[u].overlaps(p.life[v])) continue;
      const bool both_pinned = !pinned.empty() && pinned[u] && pinned[v];
      if (!both_pinned) CHECK_FALSE(g.overlaps(p.extents[u], *r.placements[u], p.extents[v], *r.placements[v]));
    }
  }
  CHECK(r.peak == peak);
  CHECK(r.stats.trivial_failures == 0);
}

/// simplify by its definition, O(n^2 d): at every step recompute which remaining nodes pass the
/// trivially-colorable test, take the smallest ready key, else the smallest cost / remaining degree.
template <class G>
simplify_result reference_simplify(const interference_graph& ig, const std::vector<extent>& ext,
                                   const std::vector<double>& costs, const G& g, simplify_order order) {
  const std::size_t n = ig.num_nodes();
  std::vector<bool> removed(n, false);
  simplify_result out;
  auto remaining_degree = [&](node_id v) {
    std::uint32_t d = 0;
    for (node_id u : ig.neighbors(v)) d += removed[u] ? 0 : 1;
    return d;
  };
  auto trivial = [&](node_id v) {
    const std::uint64_t cand = g.candidates(ext[v]);
    if (cand == unbounded) return true;
    std::uint64_t pressure = 0;  // the tests' capacities are small: no overflow
    for (node_id u : ig.neighbors(v))
      if (!removed[u]) pressure += std::min<std::uint64_t>(g.max_blocked(ext[v], ext[u]), 0xFFFFFFFFu);
    return pressure < cand;
  };
  auto footprint = [&](node_id v) { return static_cast<double>(ext[v].partitions) * static_cast<double>(ext[v].bytes); };
  using key = std::tuple<double, double, node_id>;
  for (std::size_t step = 0; step < n; ++step) {
    std::optional<key> ready, spill;
    for (node_id v = 0; v < n; ++v) {
      if (removed[v]) continue;
      if (trivial(v)) {
        key k{footprint(v), static_cast<double>(ig.degree(v)), v};
        if (order == simplify_order::priority_first) k = {footprint(v), footprint(v), v};  // no priorities
        if (order == simplify_order::smallest_last) k = {static_cast<double>(remaining_degree(v)), footprint(v), v};
        if (order == simplify_order::largest_degree) k = {static_cast<double>(ig.degree(v)), footprint(v), v};
        if (!ready || k < *ready) ready = k;
      } else {
        const std::uint32_t d = remaining_degree(v);
        const key k{d == 0 ? std::numeric_limits<double>::infinity() : costs[v] / d, 0.0, v};
        if (!spill || k < *spill) spill = k;
      }
    }
    const node_id v = std::get<2>(ready ? *ready : *spill);
    removed[v] = true;
    out.stack.push_back(v);
    out.optimistic.push_back(!ready);
  }
  return out;
}

template <class G>
void run_random_colorings(const G& g, auto random_extent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 25; ++round) {
    random_problem p = make_problem(rng, 10 + rng() % 80, random_extent);
    const interference_graph ig = build_interference(p.table);
    std::vector<double> costs;
    for (std::size_t v = 0; v < p.life.size(); ++v) costs.push_back(static_cast<double>(1 + rng() % 10));
    const coloring_problem problem{.graph = ig, .extents = p.extents, .spill_costs = costs};
    for (const color_options& o : default_variants()) check_coloring(p, g, color(problem, g, o));
    const coloring_result best = color_best_of(problem, g);
    check_coloring(p, g, best);
    CHECK(best.stats.runs == default_variants().size());
    // Determinism: the same input gives the same output (on any number of threads: these graphs are
    // below parallel_threshold, so the threaded path is checked on the traces below).
    const coloring_result again = color_best_of(problem, g);
    CHECK(again.placements == best.placements);
    CHECK(again.unplaced == best.unplaced);
    CHECK(again.options == best.options);
    const coloring_result threaded = color_best_of(problem, g, 3);
    CHECK(threaded.placements == best.placements);
    CHECK(threaded.options == best.options);
    // simplify (indexed heaps, lazy spill keys, precomputed weights, the static-key shortcut) removes
    // exactly the nodes the definition says, in the same order, with the same optimistic flags.
    const std::vector<node_role> roles(p.life.size(), node_role::normal);
    for (simplify_order o : {simplify_order::largest_first, simplify_order::priority_first,
                             simplify_order::smallest_last, simplify_order::largest_degree}) {
      const simplify_result got = simplify(ig, p.extents, roles, costs, {}, g, o);
      const simplify_result want = reference_simplify(ig, p.extents, costs, g, o);
      CHECK(got.stack == want.stack);
      CHECK(got.optimistic == want.optimistic);
    }
  }
}

}  // namespace

TEST_CASE("colorer: random interval problems, all geometries, checked independently") {
  run_random_colorings(linear_dram(4096, 64), [](std::mt19937_64& r) { return extent{1, 1 + r() % 600}; }, 21);
  run_random_colorings(linear_dram(), [](std::mt19937_64& r) { return extent{1, 1 + r() % 600}; }, 22);
  run_random_colorings(scratchpad_2d(128, 2048, 8), [](std::mt19937_64& r) {
    const std::uint32_t parts[] = {1, 32, 48, 64, 100, 128};
    return extent{parts[r() % 6], 1 + r() % 700};
  }, 23);
  run_random_colorings(psum_banks(trn1), [](std::mt19937_64& r) {
    const std::uint32_t parts[] = {32, 64, 128};
    return extent{parts[r() % 3], 4 * (1 + r() % 600)};
  }, 24);
  run_random_colorings(psum_banks(trn3), [](std::mt19937_64& r) {
    return extent{128, 4 * (1 + r() % 1500)};
  }, 25);
  run_random_colorings(registers(8), [](std::mt19937_64&) { return extent{1, 4}; }, 26);
}

TEST_CASE("linear_scan: pins that start inside a range are avoided; fixed pins are not checked against each other") {
  // 0, 1: user pins that overlap in time and bytes (a conflict); 2, 3: fixed pins (placed together by an
  // earlier pass) that overlap too but are trusted; 4, 5, 6: free nodes, placed by best fit in order of
  // first point, each clear of every pin its range meets, including pin 3, which starts inside node 6.
  live_range_table t;
  const interval life[] = {{0, 10}, {5, 15}, {0, 10}, {2, 12}, {0, 20}, {12, 20}, {0, 3}};
  for (const interval& i : life) t.add(i);
  const std::vector<extent> ext{{1, 100}, {1, 100}, {1, 100}, {1, 100}, {1, 100}, {1, 100}, {1, 10}};
  const std::vector<std::optional<placement>> pins{placement{0, 0}, placement{0, 50}, placement{0, 200},
                                                   placement{0, 250}, std::nullopt, std::nullopt, std::nullopt};
  const std::vector<std::uint8_t> fixed{0, 0, 1, 1, 0, 0, 0};
  const coloring_result r = linear_scan(t, ext, pins, linear_dram(unbounded, 1), select_heuristic::best_fit, fixed);
  CHECK(r.pinned_conflicts == std::vector<std::pair<node_id, node_id>>{{0, 1}});
  CHECK(r.unplaced.empty());
  CHECK(r.placements[4] == placement{0, 350});  // clear of [0, 150) and [200, 350)
  CHECK(r.placements[5] == placement{0, 150});  // meets pin 1 and node 4 only: the 200-byte hole
  CHECK(r.placements[6] == placement{0, 100});  // meets pins 0, 2, 3 (3 starts at 2) and node 4
  // Without the flags every overlapping pair of pins is a conflict.
  const coloring_result all = linear_scan(t, ext, pins, linear_dram(unbounded, 1), select_heuristic::best_fit);
  CHECK(all.pinned_conflicts == std::vector<std::pair<node_id, node_id>>{{0, 1}, {2, 3}});
}

TEST_CASE("colorer: pins are placed first and kept; conflicts and illegal pins are reported") {
  // 0 and 1 interfere and are pinned on top of each other; 2 interferes with both; 3 cannot fit.
  live_range_table t;
  t.add(interval{0, 10});
  t.add(interval{0, 10});
  t.add(interval{5, 15});
  t.add(interval{0, 20});
  t.add(interval{30, 40});
  const interference_graph g = build_interference(t);
  const std::vector<extent> ex{{1, 64}, {1, 64}, {1, 64}, {1, 5000}, {1, 64}};
  const std::vector<std::optional<placement>> pins{placement{0, 128}, placement{0, 128}, std::nullopt,
                                                   std::nullopt, placement{0, 10}};
  const linear_dram d(1024, 64);
  const coloring_result r = color({.graph = g, .extents = ex, .pinned = pins}, d);
  CHECK(r.placements[0] == placement{0, 128});
  CHECK(r.placements[1] == placement{0, 128});
  CHECK(r.pinned_conflicts == std::vector<std::pair<node_id, node_id>>{{0, 1}});
  CHECK(r.placements[2] == placement{0, 0});
  CHECK(r.unplaced == std::vector<unplaced_node>{{3, unplaced_reason::does_not_fit},
                                                 {4, unplaced_reason::pinned_illegal}});
  CHECK_FALSE(r.complete());
  CHECK(r.stats.pinned == 2);
  CHECK(r.peak == 192);
}

TEST_CASE("colorer: random pins") {
  std::mt19937_64 rng(31);
  const scratchpad_2d g(128, 4096, 4);
  for (int round = 0; round < 20; ++round) {
    random_problem p = make_problem(rng, 60, [](std::mt19937_64& r) { return extent{32, 4 * (1 + r() % 200)}; });
    const interference_graph ig = build_interference(p.table);
    std::vector<std::optional<placement>> pins(p.life.size());
    for (std::size_t v = 0; v < pins.size(); v += 7) pins[v] = placement{32 * static_cast<std::uint32_t>(rng() % 4), 4 * (rng() % 100)};
    const coloring_result r = color_best_of({.graph = ig, .extents = p.extents, .pinned = pins}, g);
    check_coloring(p, g, r, pins);
  }
}

TEST_CASE("colorer: the sound test is Chaitin's degree < K for registers") {
  // A 4-cycle needs 2 registers: simplify must never go optimistic with K = 3.
  const std::vector<std::pair<node_id, node_id>> e{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  const interference_graph g = build_interference(4, e);
  const std::vector<extent> ex(4, extent{1, 4});
  const coloring_result r3 = color({.graph = g, .extents = ex}, registers(3));
  CHECK(r3.complete());
  CHECK(r3.stats.optimistic == 0);
  // With K = 2 every node has degree 2: Briggs pushes optimistically and still colors it.
  const coloring_result r2 = color({.graph = g, .extents = ex}, registers(2));
  CHECK(r2.complete());
  CHECK(r2.stats.optimistic > 0);
  CHECK(r2.peak == 2);
  // A triangle with K = 2: one node is reported, the cheapest by spill cost / degree.
  const std::vector<std::pair<node_id, node_id>> tri{{0, 1}, {1, 2}, {2, 0}};
  const interference_graph t = build_interference(3, tri);
  const std::vector<extent> ex3(3, extent{1, 4});
  const std::vector<double> cost{5, 1, 5};
  const coloring_result rt = color({.graph = t, .extents = ex3, .spill_costs = cost}, registers(2));
  CHECK(rt.unplaced == std::vector<unplaced_node>{{1, unplaced_reason::no_free_position}});
  CHECK_THROWS_AS(color({.graph = t, .extents = ex}, registers(2)), std::invalid_argument);
}

TEST_CASE("colorer: variant names and the default best-of-n set") {
  CHECK(name(color_options{}) == "best-fit/largest-first");
  CHECK(name({select_heuristic::first_fit, simplify_order::smallest_last}) == "first-fit/smallest-last");
  CHECK(default_variants().size() == 6);
  CHECK(default_variants(true).size() == 8);
  CHECK(default_variants().front() == color_options{});
  const interference_graph g = build_interference(1, std::span<const std::pair<node_id, node_id>>{});
  const std::vector<extent> ex{{1, 4}};
  CHECK_THROWS_AS(color_best_of({.graph = g, .extents = ex}, registers(1), std::span<const color_options>{}),
                  std::invalid_argument);
}

TEST_CASE("colorer: best fit earns its keep on a crafted DSA problem") {
  // Three pinned buffers at 0, 400 and 600 (100 bytes each, alive [0, 10)) leave a 300-byte hole at 100
  // and a 100-byte hole at 500. Then a 100-byte and a 300-byte buffer, alive together, are placed in
  // that order (priority). First fit puts the 100 at 100 and the 300 on top (peak 1000); best fit puts
  // the 100 into the 100-byte hole and the 300 into the 300-byte hole (peak 700).
  const std::vector<interval> life{{0, 10}, {0, 10}, {0, 10}, {2, 5}, {2, 5}};
  const std::vector<extent> ex{{1, 100}, {1, 100}, {1, 100}, {1, 100}, {1, 300}};
  const std::vector<std::optional<placement>> pins{placement{0, 0}, placement{0, 400}, placement{0, 600},
                                                   std::nullopt, std::nullopt};
  live_range_table t;
  for (const interval& i : life) t.add(i);
  const interference_graph g = build_interference(t);
  const std::vector<double> prio{0, 0, 0, 10, 1};  // the 100-byte buffer goes first
  const coloring_problem problem{.graph = g, .extents = ex, .pinned = pins, .priority = prio};
  const auto ff = color(problem, linear_dram(unbounded, 1), {select_heuristic::first_fit, simplify_order::priority_first});
  const auto bf = color(problem, linear_dram(unbounded, 1), {select_heuristic::best_fit, simplify_order::priority_first});
  CHECK(ff.peak == 1000);
  CHECK(bf.peak == 700);
  CHECK(color_best_of(problem, linear_dram(unbounded, 1)).peak <= bf.peak);
}

// ---------------------------------------------------------------------------------------------------
// Quality on the shared data

TEST_CASE("quality: DIMACS register-allocation graphs reach their chromatic numbers") {
  const std::pair<const char*, std::uint64_t> files[] = {
      {"fpsol2.i.1", 65}, {"mulsol.i.1", 49}, {"zeroin.i.1", 49}, {"inithx.i.3", 31}};
  for (const auto& file : files) {
    const std::string name = file.first;  // no structured binding: clang 14 cannot capture one
    const std::uint64_t chi = file.second;
    CAPTURE(name);
    const dimacs_graph d = read_dimacs_file(std::string(GCA_DATA_DIR) + "/dimacs/" + name + ".col");
    const interference_graph g = build_interference(d.vertices, d.edges);
    const std::vector<extent> ex(d.vertices, extent{1, 4});
    const coloring_result r = color_best_of({.graph = g, .extents = ex}, registers(unbounded));
    CHECK(r.complete());
    CHECK(r.peak == chi);
    for (node_id v = 0; v < g.num_nodes(); ++v)
      for (node_id u : g.neighbors(v)) CHECK_FALSE(r.placements[u]->offset == r.placements[v]->offset);
    // With exactly chi registers the bounded colorer still places everything.
    CHECK(color_best_of({.graph = g, .extents = ex}, registers(chi)).complete());
  }
}

TEST_CASE("quality: DSA traces no worse than size-descending best fit and within 0.5% of max-live") {
  for (const char* name : {"G_1", "resnet50"}) {
    CAPTURE(name);
    const dsa_problem p = read_dsa_csv_file(std::string(GCA_DATA_DIR) + "/dsa/traces/" + name + ".csv");
    const live_range_table live = to_live_ranges(p);
    const interference_graph g = build_interference(live);
    std::vector<extent> ex;
    std::vector<double> prio;
    for (node_id v = 0; v < p.buffers.size(); ++v) {
      ex.push_back({1, p.buffers[v].size});
      prio.push_back(static_cast<double>(p.buffers[v].size) * static_cast<double>(live.live_length(v)));
    }
    const coloring_result r = color_best_of({.graph = g, .extents = ex, .priority = prio}, linear_dram(unbounded, 1));
    REQUIRE(r.complete());
    const std::uint64_t lower = max_live(p);
    const auto base = gca_bench::baseline_best_fit(p);
    CHECK(r.peak >= lower);
    CHECK(r.peak <= base.peak);
    CHECK(static_cast<double>(r.peak) <= 1.005 * static_cast<double>(lower));
    // Large enough for best-of-n to use threads: the same answer on any number of them.
    REQUIRE(g.num_nodes() + g.num_edges() >= parallel_threshold);
    const coloring_result threaded =
        color_best_of({.graph = g, .extents = ex, .priority = prio}, linear_dram(unbounded, 1), 3);
    CHECK(threaded.placements == r.placements);
    CHECK(threaded.options == r.options);
    // Independent overlap check of the baseline too (it is the cross-check of the data path).
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const auto& a = p.buffers[i];
        const auto& b = p.buffers[j];
        if (a.lower < b.upper && b.lower < a.upper) {
          CHECK_FALSE((r.placements[i]->offset < r.placements[j]->offset + b.size &&
                       r.placements[j]->offset < r.placements[i]->offset + a.size));
          CHECK_FALSE((base.offsets[i] < base.offsets[j] + b.size && base.offsets[j] < base.offsets[i] + a.size));
        }
      }
  }
}

// ---------------------------------------------------------------------------------------------------
// Readers

namespace {

std::string csv_error(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)read_dsa_csv(in, "in.csv");
  } catch (const parse_error& e) {
    return e.what();
  }
  return "no error";
}

std::string dimacs_error(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)read_dimacs(in, "g.col");
  } catch (const parse_error& e) {
    return e.what();
  }
  return "no error";
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

TEST_CASE("dsa_csv: reads rows, alignment column, max-live") {
  std::istringstream in("id,lower,upper,size\n0,0,10,100\n\n1,5,8,50\r\n2,10,12,30\n");
  const dsa_problem p = read_dsa_csv(in, "x.csv");
  REQUIRE(p.buffers.size() == 3);
  CHECK(p.buffers[1].id == "1");
  CHECK(p.buffers[1].line == 4);
  CHECK(max_live(p) == 150);  // [10,12) starts when [0,10) has ended
  std::istringstream ina("id,lower,upper,size,alignment\na,0,1,8,64\n");
  const dsa_problem q = read_dsa_csv(ina, "y.csv");
  CHECK(q.has_alignment);
  CHECK(q.buffers[0].alignment == 64);
  std::ostringstream out;
  const std::vector<std::uint64_t> off{0, 100, 0};
  write_dsa_solution(out, p, off);
  CHECK(out.str() == "id,lower,upper,size,offset\n0,0,10,100,0\n1,5,8,50,100\n2,10,12,30,0\n");
}

TEST_CASE("dsa_csv: errors name FILE:LINE") {
  CHECK(starts_with(csv_error(""), "in.csv:1: error: empty file"));
  CHECK(starts_with(csv_error("id,low,upper,size\n"), "in.csv:1: error: bad header"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,x,1\n"), "in.csv:2: error: upper is not"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,5,5,1\n"), "in.csv:2: error: lower 5 is not below"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,5,0\n"), "in.csv:2: error: size is 0"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,5,99999999999999999999\n"), "in.csv:2: error: size overflows"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,5,1\n0,1,2,3\n"), "in.csv:3: error: duplicate id"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,5\n"), "in.csv:2: error: expected 4 fields"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,0,4294967296,1\n"), "in.csv:2: error: upper overflows"));
  CHECK(starts_with(csv_error("id,lower,upper,size\n0,-1,5,1\n"), "in.csv:2: error: lower is not"));
  CHECK(csv_error("id,lower,upper,size\n") == "no error");
}

TEST_CASE("dimacs: reads and reports errors with FILE:LINE") {
  std::istringstream in("c hi\np edge 3 2\ne 1 2\ne 2 3\n");
  const dimacs_graph g = read_dimacs(in, "g.col");
  CHECK(g.vertices == 3);
  CHECK(g.declared_edges == 2);
  CHECK(g.edges == std::vector<std::pair<node_id, node_id>>{{0, 1}, {1, 2}});
  CHECK(starts_with(dimacs_error("c only\n"), "g.col:1: error: no 'p edge"));
  CHECK(starts_with(dimacs_error("e 1 2\n"), "g.col:1: error: 'e' line before"));
  CHECK(starts_with(dimacs_error("p edge 2 1\ne 1 3\n"), "g.col:2: error: vertex 3 is outside"));
  CHECK(starts_with(dimacs_error("p edge 2 1\ne 0 1\n"), "g.col:2: error: vertex 0 is outside"));
  CHECK(starts_with(dimacs_error("p edge 2 1\ne 1 x\n"), "g.col:2: error: vertex is not"));
  CHECK(starts_with(dimacs_error("p edge 2 1\np edge 2 1\n"), "g.col:2: error: second 'p'"));
  CHECK(starts_with(dimacs_error("p edge 2 1\nq 1\n"), "g.col:2: error: unknown line"));
}
