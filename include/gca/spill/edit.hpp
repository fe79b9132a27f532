// gca/spill/edit.hpp — the program edit of spill_to_next_tier (spill/spill_to_next_tier.hpp, whose header
// comment shows the rewrite and its cost model): one victim web's slot in the next memory, its stores
// after writes and reloads (or re-loads from the source, find_loads) before reads, through fresh
// temporaries that are never spilled again (detail::insert_spill_code), with its helpers: fresh names,
// temporaries with their origin, move costs, the points of flattened loops. spill/victims.hpp chooses the
// webs.
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

namespace gca::detail {

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



}  // namespace gca::detail
