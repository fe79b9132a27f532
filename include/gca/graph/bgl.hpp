// gca/graph/bgl.hpp — gca's interference graph as a Boost.Graph graph, for BGL's algorithms.
//
// `interference_graph` (graph/interference.hpp) stores its CSR arrays itself; this header adapts them to
// BGL's concepts without a copy, so any BGL algorithm runs on the graph the colorers use:
//   VertexListGraph   vertices(g), num_vertices(g)          vertex_descriptor = gca::node_id
//   IncidenceGraph    out_edges(v, g), out_degree(v, g), source(e, g), target(e, g)
//   AdjacencyGraph    adjacent_vertices(v, g)               (the sorted neighbor span itself)
//   EdgeListGraph     edges(g), num_edges(g)                 each undirected edge once, as (u, v) with u < v
//   BidirectionalGraph in_edges / in_degree / degree         (the graph is undirected: in = out)
// and the `vertex_index` property map (the identity: node ids are dense). The graph is undirected
// (`undirected_tag`): out_edges(v) yields (v, u) for every neighbor u, and two descriptors of the same
// edge compare equal whichever way they point. Parallel edges and self loops never occur (the builders
// drop them).
//
// Why a separate header: Boost's graph headers take longer to compile than the rest of gca's core, and the
// engine uses none of BGL's algorithms (it walks the neighbor spans directly), so only a translation unit
// that wants BGL pays for it. tests/test_graph.cpp checks the concepts and runs BGL algorithms through it.
#pragma once

#include <cstddef>
#include <iterator>
#include <limits>
#include <utility>

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/property_map/property_map.hpp>

#include <gca/graph/interference.hpp>

namespace gca::bgl {

/// An edge seen from `source`: the arc at `arc` of the CSR column array. Equality ignores direction.
struct edge {
  node_id source = 0;
  node_id target = 0;
  std::size_t arc = 0;
  friend bool operator==(const edge& a, const edge& b) noexcept {
    return (a.source == b.source && a.target == b.target) || (a.source == b.target && a.target == b.source);
  }
};

/// Walks arcs [arc, ...) of one node (IncidenceGraph) or of every node keeping only u < v (EdgeListGraph).
class arc_iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = edge;
  using difference_type = std::ptrdiff_t;
  using pointer = const edge*;
  using reference = edge;

  arc_iterator() = default;
  /// `all` = walk the whole graph (from node `from`) and yield each undirected edge once.
  arc_iterator(const interference_graph* g, node_id from, std::size_t arc, bool all) noexcept
      : g_(g), source_(from), arc_(arc), all_(all) {
    settle();
  }
  edge operator*() const noexcept { return {source_, g_->column()[arc_], arc_}; }
  arc_iterator& operator++() noexcept {
    ++arc_;
    settle();
    return *this;
  }
  arc_iterator operator++(int) noexcept {
    arc_iterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const arc_iterator& a, const arc_iterator& b) noexcept { return a.arc_ == b.arc_; }

 private:
  // In the whole-graph walk, advances past arcs that point down (v -> u with u < v: the edge was
  // yielded from u) and moves `source_` along the rows; a per-node walk needs nothing.
  template <class = void>
  void settle() noexcept {
    if (!all_) return;
    const auto rows = g_->row_start();
    const auto column = g_->column();
    while (arc_ < column.size()) {
      while (rows[source_ + 1] <= arc_) ++source_;
      if (column[arc_] > source_) return;
      ++arc_;
    }
  }
  const interference_graph* g_ = nullptr;
  node_id source_ = 0;
  std::size_t arc_ = 0;
  bool all_ = false;
};

struct traversal_tag : virtual boost::bidirectional_graph_tag,  // (an incidence graph too)
                       virtual boost::adjacency_graph_tag,
                       virtual boost::vertex_list_graph_tag,
                       virtual boost::edge_list_graph_tag {};

// An edge's ends, found by argument-dependent lookup on the edge (in namespace gca the name `target` is
// the hardware description, so these live beside the edge type; code that sees gca::target by ordinary
// lookup, e.g. after `using namespace gca`, writes gca::bgl::target(e, g)).
inline node_id source(const edge& e, const interference_graph&) noexcept { return e.source; }
inline node_id target(const edge& e, const interference_graph&) noexcept { return e.target; }

}  // namespace gca::bgl

namespace boost {

template <>
struct graph_traits<gca::interference_graph> {
  using vertex_descriptor = gca::node_id;
  using edge_descriptor = gca::bgl::edge;
  using directed_category = undirected_tag;
  using edge_parallel_category = disallow_parallel_edge_tag;
  using traversal_category = gca::bgl::traversal_tag;
  using vertex_iterator = counting_iterator<gca::node_id>;
  using out_edge_iterator = gca::bgl::arc_iterator;
  using in_edge_iterator = gca::bgl::arc_iterator;
  using adjacency_iterator = const gca::node_id*;
  using edge_iterator = gca::bgl::arc_iterator;
  using vertices_size_type = std::size_t;
  using edges_size_type = std::size_t;
  using degree_size_type = std::size_t;
  static vertex_descriptor null_vertex() noexcept { return std::numeric_limits<gca::node_id>::max(); }
};

template <>
struct property_map<gca::interference_graph, vertex_index_t> {
  using type = typed_identity_property_map<gca::node_id>;
  using const_type = type;
};

}  // namespace boost

namespace gca {

// The BGL free functions, found by argument-dependent lookup on interference_graph (source and target
// are beside the edge type, above).
using bgl_traits = boost::graph_traits<interference_graph>;

inline std::pair<bgl_traits::vertex_iterator, bgl_traits::vertex_iterator> vertices(const interference_graph& g) {
  return {bgl_traits::vertex_iterator(0), bgl_traits::vertex_iterator(static_cast<node_id>(g.num_nodes()))};
}
inline std::size_t num_vertices(const interference_graph& g) noexcept { return g.num_nodes(); }
inline std::size_t num_edges(const interference_graph& g) noexcept { return g.num_edges(); }
inline std::pair<bgl::arc_iterator, bgl::arc_iterator> out_edges(node_id v, const interference_graph& g) noexcept {
  return {bgl::arc_iterator(&g, v, g.row_start()[v], false), bgl::arc_iterator(&g, v, g.row_start()[v + 1], false)};
}
inline std::pair<bgl::arc_iterator, bgl::arc_iterator> in_edges(node_id v, const interference_graph& g) noexcept {
  return out_edges(v, g);  // undirected: the edges into v are the edges out of it
}
inline std::size_t out_degree(node_id v, const interference_graph& g) noexcept { return g.degree(v); }
inline std::size_t in_degree(node_id v, const interference_graph& g) noexcept { return g.degree(v); }
inline std::size_t degree(node_id v, const interference_graph& g) noexcept { return g.degree(v); }
template <class = void>
std::pair<const node_id*, const node_id*> adjacent_vertices(node_id v, const interference_graph& g) noexcept {
  const auto n = g.neighbors(v);
  return {n.data(), n.data() + n.size()};
}
inline std::pair<bgl::arc_iterator, bgl::arc_iterator> edges(const interference_graph& g) noexcept {
  return {bgl::arc_iterator(&g, 0, 0, true), bgl::arc_iterator(&g, 0, g.column().size(), true)};
}
inline boost::typed_identity_property_map<node_id> get(boost::vertex_index_t, const interference_graph&) noexcept {
  return {};
}

}  // namespace gca
