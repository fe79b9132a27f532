// gca/spill/edit.hpp — the program edit of spill_to_next_tier (spill/spill_to_next_tier.hpp, whose header
// comment shows the rewrite and its cost model): one victim web's slot in the next memory, its stores
// after writes and reloads (or re-loads from the source, find_loads) before reads, through fresh
// temporaries that are never spilled again (detail::insert_spill_code), with its helpers: the added
// tensors with their origin on them (ir/fresh_names.hpp names them), move costs, the points of
// flattened loops. spill/victims.hpp chooses the webs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gca/engine/space_colorer.hpp>
#include <gca/ir/fresh_names.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/concept.hpp>

namespace gca::detail {

/// The points of each flattened loop of the chain: [its own point, one past its last body point),
/// indexed by loop instruction (empty for other instructions and opaque loops).
template <class = void>
std::vector<interval> loop_spans(const linearized_function& lf) {
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

/// Appends a tensor the edit made, with its origin (what it stands for: the victim's tensor) on it;
/// temporaries are never spilled again.
template <class = void>
tensor_id add_tensor(function& f, tensor t, spill_state& st, origin_kind kind, tensor_id of) {
  t.origin = kind;
  t.origin_of = of;
  f.tensors.push_back(std::move(t));
  st.no_spill.resize(f.tensors.size(), 0);
  st.no_spill.back() = kind == origin_kind::spill_temp ? 1 : 0;
  return static_cast<tensor_id>(f.tensors.size() - 1);
}

template <class = void>
std::uint64_t move_cycles(const extent& e, double weight, const target& tgt) {
  const std::uint64_t bytes = std::uint64_t{e.partitions} * e.bytes;
  const std::uint64_t per = (bytes + tgt.dma_bytes_per_cycle - 1) / tgt.dma_bytes_per_cycle;
  return static_cast<std::uint64_t>(static_cast<double>(per) * weight);
}

/// In the body of opaque loop `l`, is the first touch of web `w` a read?
template <class = void>
bool body_reads_first(const function& f, inst_id l, const std::vector<web_id>& slot_web, web_id w) {
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

/// The chain nodes that touch web w, in chain order, with what each does with it and the operand slots
/// that name it (CSR: node j's are slots[slot_begin[j] .. slot_begin[j + 1])), so the edit renames
/// without walking the operands again; and the flattened loops' own nodes (for hoisted reloads), in
/// chain order too.
struct web_touches {
  std::vector<chain_node*> nodes;
  std::vector<std::uint8_t> reads, writes;
  std::vector<std::uint32_t> slot_begin{0};
  std::vector<std::uint32_t> slots;
  std::vector<std::pair<inst_id, chain_node*>> loop_nodes;

  std::span<const std::uint32_t> slots_of(std::size_t j) const {
    return {slots.data() + slot_begin[j], slot_begin[j + 1] - slot_begin[j]};
  }
};

/// One walk of the chain, before any edit (editing while walking would visit the inserted nodes): per
/// node, the operand slots of web w in its instructions (an opaque loop's whole body), and whether it
/// reads and writes the web. In an opaque loop the body may read what it wrote in the previous
/// iteration: the liveness said so by tying the write to a read at this point; a body that writes
/// first reads nothing in.
template <class = void>
web_touches collect_touches(linearized_function& lf, const std::vector<web_id>& slot_web, web_id w) {
  const function& f = lf.work();
  web_touches t;
  for (chain_node& n : lf.chain()) {
    const instruction& i = f.insts[n.inst];
    if (i.is_loop() && !n.opaque_loop) {
      t.loop_nodes.emplace_back(n.inst, &n);
      continue;
    }
    const std::size_t first = t.slots.size();
    bool reads = false, writes = false;
    for (inst_id k = n.inst; k < (n.opaque_loop ? i.end : n.inst + 1); ++k) {
      const instruction& b = f.insts[k];
      if (b.is_loop()) continue;
      for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs + b.n_inputs; ++s) {
        if (s >= slot_web.size() || slot_web[s] != w) continue;
        t.slots.push_back(s);
        const bool out = s < b.first_operand + b.n_outputs;
        if (out) writes = true;
        if (!out || b.rmw) reads = true;
      }
    }
    if (t.slots.size() == first) continue;
    if (n.opaque_loop && reads && writes) reads = body_reads_first(f, n.inst, slot_web, w);
    t.nodes.push_back(&n);
    t.reads.push_back(reads ? 1 : 0);
    t.writes.push_back(writes ? 1 : 0);
    t.slot_begin.push_back(static_cast<std::uint32_t>(t.slots.size()));
  }
  return t;
}

/// Loop-invariant reloads: a read inside a (flattened) loop that contains no write of the web sees the
/// same slot contents in every iteration, so one reload before the loop serves all of them, unless the
/// loop holds a point this round found over-full (`over`): keeping the temporary live across the loop
/// would undo the relief there. Per touching node, the outermost such loop (no_inst: reload in place).
template <class = void>
std::vector<inst_id> hoist_targets(const linearized_function& lf, const web_touches& t,
                                   const std::vector<inst_id>& parent, const std::vector<std::uint8_t>& over,
                                   const std::vector<interval>& spans) {
  std::vector<inst_id> hoist(t.nodes.size(), no_inst);
  if (!lf.flattened() || over.empty()) return hoist;
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
  for (std::size_t j = 0; j < t.nodes.size(); ++j) {
    if (!t.reads[j] || t.writes[j]) continue;
    for (inst_id l = t.nodes[j]->loop; l != no_inst; l = parent[l]) {
      bool written = false;
      for (std::size_t q = 0; q < t.nodes.size() && !written; ++q) written = t.writes[q] && inside(l, t.nodes[q]);
      if (written || over_in(l)) break;
      hoist[j] = l;
    }
  }
  return hoist;
}

/// What the edits of one round share (spill_to_next_tier::spill makes it once per round): the loops'
/// parents and weights and the flattened loops' spans, all of the program before the round's first
/// insertion, which stay right for every victim of the round (the edits add no loops, and a victim's
/// touches are instructions of that program: the attempt's operand slots), and one pool of fresh names
/// (the names it hands out are those a pool per victim would: the smallest free ones).
struct spill_round {
  std::vector<inst_id> parent;
  std::vector<double> weight;  // loop_weights: how often each loop's body runs
  std::vector<interval> spans;
  fresh_names names;

  template <class = void>
  explicit spill_round(const linearized_function& lf)
      : parent(loop_parents(lf.work())), weight(loop_weights(lf.work(), parent)), spans(loop_spans(lf)),
        names(lf.work()) {}
};

/// One victim web's edit (insert_spill_code): where its value lives between touches (`slot`, or its
/// load source when it can be re-loaded), and, per touching node, a fresh temporary, the reload before
/// and the store after, each costed by its loop weight.
template <class = void>
struct spill_edit {
  linearized_function& lf;
  const space_attempt& a;
  web_id w;
  const target& tgt;
  spill_state& st;
  spill_round& round;
  tensor original;
  tensor_id slot = no_tensor;  // no_tensor when reloading from the load source

  spill_edit(linearized_function& lf_, const space_attempt& a_, web_id w_, const target& tgt_, spill_state& st_,
             spill_round& round_)
      : lf(lf_), a(a_), w(w_), tgt(tgt_), st(st_), round(round_),
        original(lf_.work().tensors[a_.live.webs[w_].tensor]) {}

  const web& victim() const { return a.live.webs[w]; }
  bool from_source() const { return victim().load_source != no_tensor; }

  double weight_of_loop(inst_id l) const { return l == no_inst ? 1.0 : round.weight[l]; }

  /// The slot in memory `next` (a linear memory, DRAM among them, holds the partitions x bytes
  /// linearly; a rectangle memory the same shape), and the spill's counts.
  void make_slot(memory_type next) {
    if (!from_source()) {
      tensor s;
      s.name = round.names.take(original.name + ".slot");
      s.memory = next;
      s.space = address_space::local;
      s.shape = layout_of(tgt, next) == memory_layout::linear
                    ? extent{1, std::uint64_t{original.shape.partitions} * original.shape.bytes}
                    : original.shape;
      slot = add_tensor(lf.work(), std::move(s), st, origin_kind::spill_slot, victim().tensor);
    }
    ++st.spilled_webs;
    st.spilled_bytes += original.shape.bytes;
    st.spilled.push_back(original.name);
  }

  /// A fresh temporary for one touch (never spilled again), tied when the touch reads and writes it.
  tensor_id new_temporary(bool tied) {
    tensor tmp = original;
    tmp.name = round.names.take(original.name + ".r");
    tmp.kind = tensor_kind::internal;
    tmp.at.reset();
    const tensor_id r = add_tensor(lf.work(), std::move(tmp), st, origin_kind::spill_temp, victim().tensor);
    if (tied) lf.set_tied(r);
    return r;
  }

  /// The web's operands in one touching node (collect_touches found them) now name temporary r.
  void rename_operands(std::span<const std::uint32_t> slots, tensor_id r) {
    for (std::uint32_t s : slots) lf.work().operands[s] = r;
  }

  /// r = reload slot (or load source) before `before`, weighted by the loop `weight_loop` it runs in.
  void insert_reload(tensor_id r, chain_node& before, inst_id weight_loop, source_loc loc) {
    const tensor_id outs[] = {r};
    const tensor_id ins[] = {from_source() ? victim().load_source : slot};
    const inst_id k = lf.work().add_instruction(from_source() ? op::load : op::reload, outs, ins, false, loc);
    lf.insert_before(before, k);
    st.cycles += move_cycles(original.shape, weight_of_loop(weight_loop), tgt);
    ++st.reloads;
  }

  /// slot = spill r after node n.
  void insert_store(tensor_id r, chain_node& n, source_loc loc) {
    const tensor_id outs[] = {slot};
    const tensor_id ins[] = {r};
    const inst_id k = lf.work().add_instruction(op::spill, outs, ins, false, loc);
    lf.insert_after(n, k);
    st.cycles += move_cycles(original.shape, weight_of_loop(n.loop), tgt);
    ++st.stores;
  }
};

/// Spills web w to memory `next`: collect its touches, choose hoisted reloads, then per touching node a
/// temporary (shared by the reads a hoisted reload serves), the reload before and the store after.
template <class = void>
void insert_spill_code(linearized_function& lf, const space_attempt& a, web_id w, memory_type next,
                       const target& tgt, spill_state& st, const std::vector<std::uint8_t>& over,
                       spill_round& round) {
  spill_edit e(lf, a, w, tgt, st, round);
  e.make_slot(next);
  const web_touches t = collect_touches(lf, a.live.slot_web, w);
  const std::vector<inst_id> hoist = hoist_targets(lf, t, round.parent, over, round.spans);
  std::vector<std::pair<inst_id, tensor_id>> hoisted;  // loop -> its shared temporary (few entries)
  for (std::size_t j = 0; j < t.nodes.size(); ++j) {
    chain_node& n = *t.nodes[j];
    const source_loc loc = lf.work().insts[n.inst].loc;
    tensor_id r = no_tensor;
    bool new_reload = t.reads[j] != 0;
    if (hoist[j] != no_inst)
      for (const auto& [l, tmp] : hoisted)
        if (l == hoist[j]) r = tmp, new_reload = false;
    if (r == no_tensor) {
      r = e.new_temporary(t.reads[j] && t.writes[j]);
      if (hoist[j] != no_inst) hoisted.emplace_back(hoist[j], r);
    }
    e.rename_operands(t.slots_of(j), r);
    if (new_reload) {
      if (hoist[j] != no_inst) {
        // Before the loop's own node (loop_nodes is in chain order, so ids are sorted).
        const auto at = std::lower_bound(t.loop_nodes.begin(), t.loop_nodes.end(), hoist[j],
                                         [](const auto& x, inst_id l) { return x.first < l; });
        e.insert_reload(r, *at->second, round.parent[hoist[j]], loc);
      } else {
        e.insert_reload(r, n, n.loop, loc);
      }
    }
    if (t.writes[j] && !e.from_source()) e.insert_store(r, n, loc);
  }
}

}  // namespace gca::detail
