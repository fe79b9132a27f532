// gca/spill/spill_code.hpp — the body of spill_to_next_tier (spill/spill_to_next_tier.hpp, whose header
// comment describes the rewrite and its cost model): choosing the victims (detail::choose_victims,
// detail::spillable), and editing the program (detail::insert_spill_code with its helpers: fresh names,
// temporaries, move costs, loop spans).
//
// Apart from the policy's declaration so a file that only names the policy (a driver's declaration in the
// compiled mode, gca/compiled.hpp) does not parse the spill code; spill_to_next_tier.hpp includes it in the
// default header-only mode.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gca/engine/space_colorer.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/spill_to_next_tier.hpp>

namespace gca {

inline bool spill_to_next_tier::spillable(const function& f, const liveness& live, web_id w,
                                            const space_filter& filter, const spill_state& st) {
  const web& x = live.webs[w];
  const tensor& t = f.tensors[x.tensor];
  if (!filter.colors(t) || st.is_temp(x.tensor)) return false;
  if (t.kind != tensor_kind::internal || x.live_in || x.live_out) return false;
  // A PSUM accumulation group stays in its bank from its first to its last accumulating write.
  if (t.memory == memory_type::psum && x.accumulates) return false;
  return x.defs > 0;
}

namespace detail {

/// The points of each flattened loop of the chain: [its own point, one past its last body point),
/// indexed by loop instruction (empty for other instructions and opaque loops).
inline std::vector<interval> loop_spans(const linearized_function& lf) {
  std::vector<interval> spans(lf.work().insts.size());
  std::vector<inst_id> open;
  for (const chain_node& n : lf.chain()) {
    while (open.size() > n.depth) {
      spans[open.back()].end = n.point;
      open.pop_back();
    }
    if (lf.work().insts[n.inst].is_loop() && !n.opaque_loop) {
      spans[n.inst].begin = n.point;
      open.push_back(n.inst);
    }
  }
  for (; !open.empty(); open.pop_back()) spans[open.back()].end = static_cast<program_point>(lf.points() + 1);
  return spans;
}

/// Victims, in two steps. (1) Pressure: where the live area (partitions x bytes) exceeds the memory's
/// area, no coloring exists, and only a web that is live *across* such a point without being read or
/// written there is relieved by spilling it (spill code keeps a web live at its own reads and writes).
/// Greedily take the web with the most over-full points relieved per unit of spill cost, update the
/// pressure, and repeat until no point is over-full. (2) If no point was over-full, select failed on
/// fragmentation: the search's victims (spill_state::guided) if it chose any, else spill each unplaced
/// web that may be spilled, or else its cheapest spillable neighbor.
inline std::vector<web_id> choose_victims(const linearized_function& lf, const space_attempt& a,
                                          const space_filter& filter, const target& tgt, spill_state& st,
                                          std::vector<std::uint8_t>& over_full) {
  const function& f = lf.work();
  const liveness& live = a.live;
  const std::size_t n_points = live.points + 2;
  auto area = [](const extent& e) { return static_cast<double>(e.partitions) * static_cast<double>(e.bytes); };
  const double capacity = static_cast<double>(capacity_of(tgt, filter.memory)) *
                 (filter.memory == memory_type::sb || filter.memory == memory_type::psum
                      ? static_cast<double>(tgt.sb_partitions)
                      : 1.0);
  const double unit = filter.memory == memory_type::reg ? 1.0 : 0.0;  // a register counts as 1
  auto size_of = [&](const extent& e) { return unit > 0 ? unit : area(e); };

  // Pressure per point from every node of the attempt, by the node's range in the graph.
  std::vector<double> pressure(n_points + 1, 0.0);
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const double sz = size_of(a.extents[v]);
    for (const interval& i : a.ranges.ranges(v)) {
      pressure[i.begin] += sz;
      pressure[std::min<std::size_t>(i.end, n_points)] -= sz;
    }
  }
  for (std::size_t p = 1; p <= n_points; ++p) pressure[p] += pressure[p - 1];

  // Event points of each web (where it is read or written: spill code keeps it live there).
  std::vector<std::vector<program_point>> events(live.webs.size());
  for (std::size_t s = 0; s < live.slot_web.size(); ++s)
    if (live.slot_web[s] != no_web) events[live.slot_web[s]].push_back(live.slot_point[s]);
  for (auto& e : events) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
  std::vector<web_id> candidates;
  for (web_id w = 0; w < live.webs.size(); ++w)
    if (spill_to_next_tier::spillable(f, live, w, filter, st)) candidates.push_back(w);

  std::vector<web_id> out;
  std::vector<std::uint8_t> chosen(live.webs.size(), 0);
  std::vector<double> over_prefix(n_points + 1, 0.0);
  bool first_round = true;
  for (;;) {
    bool any = false;
    for (std::size_t p = 0; p < n_points; ++p) {
      const bool over = pressure[p] > capacity + 1e-9;
      any = any || over;
      over_prefix[p + 1] = over_prefix[p] + (over ? 1.0 : 0.0);
    }
    if (!any) break;
    if (first_round) {
      over_full.assign(n_points, 0);
      for (std::size_t p = 0; p < n_points; ++p) over_full[p] = over_prefix[p + 1] > over_prefix[p] ? 1 : 0;
    }
    std::optional<web_id> best;
    double best_score = 0;
    for (web_id w : candidates) {
      if (chosen[w]) continue;
      double relief = 0;
      for (const interval& i : live.range(w))
        relief += over_prefix[std::min<std::size_t>(i.end, n_points)] - over_prefix[i.begin];
      for (program_point q : events[w]) relief -= over_prefix[q + 1] - over_prefix[q];
      if (relief <= 0) continue;
      const double score = relief * size_of(f.tensors[live.webs[w].tensor].shape) /
                  std::max(live.webs[w].spill_cost, 1e-9);
      if (!best || score > best_score) best = w, best_score = score;  // ties: lowest id (iteration order)
    }
    if (!best) {
      if (first_round) {
        // Over-full from the start and nothing can relieve it: every web there is read or written
        // at that very point (or may not be spilled). Name them; spilling can't help.
        program_point worst = 0;
        while (worst < n_points && !(pressure[worst] > capacity + 1e-9)) ++worst;
        for (node_id v = 0; v < a.node_web.size(); ++v) {
          const web_id w = a.node_web[v];
          if (w == no_web) continue;
          for (const interval& i : live.range(w))
            if (i.begin <= worst && worst < i.end) st.hopeless.push_back(live.webs[w].tensor);
        }
        return {};
      }
      break;
    }
    first_round = false;
    chosen[*best] = 1;
    out.push_back(*best);
    const double sz = size_of(f.tensors[live.webs[*best].tensor].shape);
    // Remove the victim's area from its range, except at its own event points.
    std::vector<double> delta(n_points + 1, 0.0);
    for (const interval& i : live.range(*best)) {
      delta[i.begin] -= sz;
      delta[std::min<std::size_t>(i.end, n_points)] += sz;
    }
    for (program_point q : events[*best]) {
      delta[q] += sz;
      delta[q + 1] -= sz;
    }
    double run = 0;
    for (std::size_t p = 0; p < n_points; ++p) pressure[p] += (run += delta[p]);
  }
  if (!out.empty()) {
    std::sort(out.begin(), out.end());
    return out;
  }
  // Victims chosen by the exact search (spill/place_or_prove.hpp): spilling them leaves a space that
  // has a placement. (Over-full points come first: their victims are needed whatever the search says.)
  if (!st.guided.empty()) {
    for (web_id w : st.guided)
      if (w < live.webs.size() && spill_to_next_tier::spillable(f, live, w, filter, st)) out.push_back(w);
    st.guided.clear();
    if (!out.empty()) return out;
  }

  for (const unplaced_node& u : a.result->unplaced) {
    const web_id w = a.node_web[u.node];
    if (w == no_web) continue;
    if (u.reason == unplaced_reason::does_not_fit || u.reason == unplaced_reason::pinned_illegal) continue;
    if (spill_to_next_tier::spillable(f, live, w, filter, st)) {
      if (!chosen[w]) chosen[w] = 1, out.push_back(w);
      continue;
    }
    // Relieve an unspillable web through its cheapest spillable neighbor (cost per byte freed); the
    // linear-scan engine builds no graph, so there the unplaced web itself is all it can offer.
    if (!a.graph) continue;
    std::optional<web_id> best;
    double best_ratio = 0;
    for (node_id nb : a.graph->neighbors(u.node)) {
      const web_id nw = a.node_web[nb];
      if (nw == no_web || !spill_to_next_tier::spillable(f, live, nw, filter, st)) continue;
      const double ratio = a.costs[nb] / area(a.extents[nb]);
      if (!best || ratio < best_ratio || (ratio == best_ratio && nw < *best)) best = nw, best_ratio = ratio;
    }
    if (best && !chosen[*best]) chosen[*best] = 1, out.push_back(*best);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string fresh_name(const function& f, std::set<std::string>& names, const std::string& base) {
  if (names.empty())
    for (const tensor& t : f.tensors) names.insert(t.name);
  for (std::uint32_t k = 1;; ++k) {
    std::string n = base + std::to_string(k);
    if (names.insert(n).second) return n;
  }
}

inline tensor_id add_tensor(function& f, tensor t, spill_state& st, bool temp, tensor_id origin) {
  f.tensors.push_back(std::move(t));
  st.no_spill.resize(f.tensors.size(), 0);
  st.no_spill.back() = temp ? 1 : 0;
  st.origin.resize(f.tensors.size(), no_tensor);
  st.origin.back() = origin;
  return static_cast<tensor_id>(f.tensors.size() - 1);
}

inline std::uint64_t move_cycles(const extent& e, double weight, const target& tgt) {
  const std::uint64_t bytes = std::uint64_t{e.partitions} * e.bytes;
  const std::uint64_t per = (bytes + tgt.dma_bytes_per_cycle - 1) / tgt.dma_bytes_per_cycle;
  return static_cast<std::uint64_t>(static_cast<double>(per) * weight);
}

/// In the body of opaque loop `l`, is the first touch of web `w` a read?
inline bool body_reads_first(const function& f, inst_id l, const std::vector<web_id>& slot_web, web_id w) {
  for (inst_id k = l + 1; k < f.insts[l].end; ++k) {
    const instruction& b = f.insts[k];
    if (b.is_loop()) continue;
    for (std::uint32_t s = b.first_operand + b.n_outputs; s < b.first_operand + b.n_outputs + b.n_inputs; ++s)
      if (slot_web[s] == w) return true;
    for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs; ++s)
      if (slot_web[s] == w) return b.rmw;
  }
  return false;
}

inline void insert_spill_code(linearized_function& lf, const space_attempt& a, web_id w, memory_type next,
                              const target& tgt, spill_state& st, const std::vector<std::uint8_t>& over,
                              const std::vector<interval>& spans) {
  function& f = lf.work();
  const web& x = a.live.webs[w];
  const tensor original = f.tensors[x.tensor];
  std::set<std::string> names;
  const bool reload_from_source = x.load_source != no_tensor;

  tensor_id slot = no_tensor;
  if (!reload_from_source) {
    tensor s;
    s.name = fresh_name(f, names, original.name + ".slot");
    s.memory = next;
    s.space = address_space::local;
    s.shape = next == memory_type::dram ? extent{1, std::uint64_t{original.shape.partitions} * original.shape.bytes}
                               : original.shape;
    slot = add_tensor(f, std::move(s), st, false, x.tensor);
  }
  ++st.spilled_webs;
  st.spilled_bytes += original.shape.bytes;
  st.spilled.push_back(original.name);

  // Loop weights of original instructions, for the cost model.
  const std::vector<inst_id> parent = loop_parents(f);
  auto weight_of_loop = [&](inst_id l) {
    double wgt = 1;
    for (; l != no_inst; l = parent[l]) wgt *= static_cast<double>(f.insts[l].trips);
    return wgt;
  };

  // Walk the chain; collect the nodes that touch the web first (editing while walking would visit the
  // inserted nodes).
  std::vector<chain_node*> touching;
  std::vector<std::pair<inst_id, chain_node*>> loop_nodes;  // flattened loops' nodes, for hoisted reloads
  for (chain_node& n : lf.chain()) {
    const instruction& i = f.insts[n.inst];
    if (i.is_loop() && !n.opaque_loop) {
      loop_nodes.emplace_back(n.inst, &n);
      continue;
    }
    const inst_id last = n.opaque_loop ? i.end : n.inst + 1;
    bool hit = false;
    for (inst_id k = n.inst; k < last && !hit; ++k) {
      const instruction& b = f.insts[k];
      for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs + b.n_inputs; ++s)
        if (s < a.live.slot_web.size() && a.live.slot_web[s] == w) {
          hit = true;
          break;
        }
    }
    if (hit) touching.push_back(&n);
  }
  // What each touching node does with the web.
  std::vector<std::uint8_t> node_reads(touching.size(), 0), node_writes(touching.size(), 0);
  for (std::size_t j = 0; j < touching.size(); ++j) {
    const chain_node* n = touching[j];
    const instruction& i = f.insts[n->inst];
    const inst_id last = n->opaque_loop ? i.end : n->inst + 1;
    bool reads = false, writes = false;
    for (inst_id k = n->inst; k < last; ++k) {
      const instruction& b = f.insts[k];
      if (b.is_loop()) continue;
      for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs + b.n_inputs; ++s) {
        if (s >= a.live.slot_web.size() || a.live.slot_web[s] != w) continue;
        const bool out = s < b.first_operand + b.n_outputs;
        if (out) writes = true;
        if (!out || b.rmw) reads = true;
      }
    }
    // In an opaque loop the body may read what it wrote in the previous iteration: the liveness
    // said so by tying the write to a read at this point; a body that writes first reads nothing in.
    if (n->opaque_loop && reads && writes) reads = body_reads_first(f, n->inst, a.live.slot_web, w);
    node_reads[j] = reads ? 1 : 0;
    node_writes[j] = writes ? 1 : 0;
  }
  // Loop-invariant reloads: a read inside a (flattened) loop that contains no write of the web sees the
  // same slot contents in every iteration, so one reload before the loop serves all of them, unless the
  // loop holds a point this round found over-full: keeping the temporary live across the loop would undo
  // the relief there. The outermost such loop is used; its reads share one temporary.
  auto inside = [&](inst_id l, const chain_node* m) {
    for (inst_id c = m->loop; c != no_inst; c = parent[c])
      if (c == l) return true;
    return false;
  };
  auto over_in = [&](inst_id l) {
    for (program_point p = spans[l].begin; p < spans[l].end && p < over.size(); ++p)
      if (over[p]) return true;
    return false;
  };
  std::vector<inst_id> hoist(touching.size(), no_inst);
  if (lf.flattened() && !over.empty())
    for (std::size_t j = 0; j < touching.size(); ++j) {
      if (!node_reads[j] || node_writes[j]) continue;
      for (inst_id l = touching[j]->loop; l != no_inst; l = parent[l]) {
        bool written = false;
        for (std::size_t q = 0; q < touching.size() && !written; ++q)
          written = node_writes[q] && inside(l, touching[q]);
        if (written || over_in(l)) break;
        hoist[j] = l;
      }
    }
  std::vector<std::pair<inst_id, tensor_id>> hoisted;  // loop -> its shared temporary (few entries)

  for (std::size_t j = 0; j < touching.size(); ++j) {
    chain_node* n = touching[j];
    const instruction i = f.insts[n->inst];
    const inst_id last = n->opaque_loop ? i.end : n->inst + 1;
    const bool reads = node_reads[j] != 0, writes = node_writes[j] != 0;
    tensor_id r = no_tensor;
    bool new_reload = reads;
    if (hoist[j] != no_inst) {
      for (const auto& [l, t] : hoisted)
        if (l == hoist[j]) r = t, new_reload = false;
    }
    if (r == no_tensor) {
      tensor tmp = original;
      tmp.name = fresh_name(f, names, original.name + ".r");
      tmp.kind = tensor_kind::internal;
      tmp.at.reset();
      r = add_tensor(f, std::move(tmp), st, true, x.tensor);
      if (reads && writes) lf.set_tied(r);
      if (hoist[j] != no_inst) hoisted.emplace_back(hoist[j], r);
    }
    for (inst_id k = n->inst; k < last; ++k) {
      const instruction& b = f.insts[k];
      if (b.is_loop()) continue;
      for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs + b.n_inputs; ++s)
        if (s < a.live.slot_web.size() && a.live.slot_web[s] == w) f.operands[s] = r;
    }
    if (new_reload) {
      const tensor_id src = reload_from_source ? x.load_source : slot;
      const tensor_id outs[] = {r};
      const tensor_id ins[] = {src};
      const inst_id k = f.add_instruction(reload_from_source ? op::load : op::reload, outs, ins, false, i.loc);
      if (hoist[j] != no_inst) {
        // Before the loop's own node (loop_nodes is in chain order, so ids are sorted).
        const auto at = std::lower_bound(loop_nodes.begin(), loop_nodes.end(), hoist[j],
                                [](const auto& e, inst_id l) { return e.first < l; });
        lf.insert_before(*at->second, k);
        st.cycles += move_cycles(original.shape, weight_of_loop(parent[hoist[j]]), tgt);
      } else {
        lf.insert_before(*n, k);
        st.cycles += move_cycles(original.shape, weight_of_loop(n->loop), tgt);
      }
      ++st.reloads;
    }
    if (writes && !reload_from_source) {
      const tensor_id outs[] = {slot};
      const tensor_id ins[] = {r};
      const inst_id k = f.add_instruction(op::spill, outs, ins, false, i.loc);
      lf.insert_after(*n, k);
      st.cycles += move_cycles(original.shape, weight_of_loop(n->loop), tgt);
      ++st.stores;
    }
  }
}


}  // namespace detail

inline std::size_t spill_to_next_tier::spill(linearized_function& lf, const space_attempt& a,
                                            const space_filter& filter, const target& tgt,
                                            spill_state& st) const {
  const std::optional<memory_type> next = next_tier(filter.memory);
  if (!next) return 0;
  st.no_spill.resize(lf.work().tensors.size(), 0);
  std::vector<std::uint8_t> over;  // points over-full at the start of this round (empty: none)
  const std::vector<web_id> victims = detail::choose_victims(lf, a, filter, tgt, st, over);
  const std::vector<interval> spans = detail::loop_spans(lf);  // before any insertion: points of this attempt
  for (web_id w : victims) detail::insert_spill_code(lf, a, w, *next, tgt, st, over, spans);
  lf.renumber_locations();
  return victims.size();
}

}  // namespace gca
