// gca/liveness/live_ranges.hpp — webs and their live ranges over a linearized function.
//
// Provides `analyze_liveness(lf)`, the Neuron allocator's find_first_defs / find_last_uses / find_loads /
// memloc_split / live_range phases in one linear pass: every operand slot of the chain becomes a read
// or write event at its point; the writes that reach a common read are united into one *web* (the unit
// the colorers place: a tensor redefined after its old value died is two webs that can live apart);
// and each web gets a live range, a sorted list of half-open intervals of points.
//
// Points: 0 is function entry (inputs are written there), 1..N the chain, N+1 function exit (outputs
// are read there). A read at point p and a write at point p: the read happens first; the written
// value occupies [p, last read + 1), so an input dying at p and an output born at p overlap at p —
// gca never lets an output share memory with an input of the same instruction (docs/HARDWARE.md section 6).
//
// Loops (flattened chains only; an opaque loop is a single point): a read whose value comes from
// before its loop, or from the previous iteration, makes the value live over the WHOLE loop span, as
// the contract requires; a value defined and dead inside one iteration is live only there. Every body
// instruction runs on every iteration (the IR has no branches) and trips >= 1, so "the last write
// before p in the same body" is exactly the write a read sees, and the walk outwards through enclosing
// loops below is exact. In an opaque loop a tensor that the body both reads and writes is *tied*: its
// write joins the web of its read, since the next iteration reads what this one wrote.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/interval.hpp>
#include <gca/watchdog.hpp>

namespace gca {

struct web {
  tensor_id tensor = no_tensor;
  program_point first_def = 0;   // earliest write (0: the value is live-in at entry)
  program_point last_use = 0;    // latest read (N+1: live-out at exit)
  double spill_cost = 0;         // bytes moved per slot, weighted by enclosing trip counts
  std::uint32_t defs = 0;        // number of writes
  std::uint32_t uses = 0;        // number of reads
  bool accumulates = false;      // has a `+=` write (a PSUM accumulation group: never split)
  bool live_in = false;          // holds an input value at entry
  bool live_out = false;         // an output's final value
  tensor_id load_source = no_tensor;  // every write is `load` from this never-written tensor (find_loads)
};

struct liveness {
  std::size_t points = 0;                 // N
  std::vector<web> webs;                  // in order of first appearance (deterministic)
  std::vector<std::uint32_t> range_begin; // web w's intervals: ranges[range_begin[w] .. range_begin[w+1])
  std::vector<interval> ranges;
  std::vector<web_id> slot_web;           // per operand slot of lf.work(): its web (no_web: not reached)
  std::vector<program_point> slot_point;  // per operand slot: the point it is read or written at

  std::span<const interval> range(web_id w) const noexcept {
    return {ranges.data() + range_begin[w], range_begin[w + 1] - range_begin[w]};
  }
};

namespace detail {

struct live_event {
  program_point point;
  std::uint32_t slot;  // operand slot in work(), or ~0u for the synthetic entry write / exit read
  bool is_def;
  bool tied;           // def only: joins the web of the reads of the same tensor at the same point
  bool rmw = false;    // def only: written by `+=` (an accumulation)
};

struct loop_scope {
  program_point begin;  // the loop's own point; its body is (begin, end)
  program_point end;    // one past the last body point
  std::uint64_t trips;
  std::uint32_t parent;  // enclosing scope, or ~0u
};

struct union_find {
  std::vector<std::uint32_t> up;
  std::uint32_t find(std::uint32_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  }
  // The smaller root wins, so the result does not depend on the order of unions.
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a < b) up[b] = a;
    else if (b < a) up[a] = b;
  }
};

}  // namespace detail

/// Pinned or placed tensors, kernel I/O and shared or debug DRAM buffers keep one name and one place:
/// their events form ONE web, never split. The only way a tensor's `at` matters to liveness.
inline bool kept_whole(const tensor& x) noexcept {
  return x.at.has_value() || x.kind != tensor_kind::internal ||
         (x.memory == memory_type::dram && x.space != address_space::local);
}

/// `several`, if given, receives one flag per tensor: whether its events form several webs when it is
/// not kept whole (whatever kept_whole says of it now). A tensor with one such web has the same webs
/// whether it is kept whole or not, so placing it (or forgetting its place) leaves the liveness as it
/// was (liveness/liveness_cache.hpp relies on that).
inline liveness analyze_liveness(const linearized_function& lf, std::vector<std::uint8_t>* several = nullptr) {
  using detail::live_event;
  const function& f = lf.work();
  const std::size_t n_points = lf.points();
  const auto exit_point = static_cast<program_point>(n_points + 1);
  const std::uint32_t none = ~0u;
  liveness out;
  out.points = n_points;

  // Weights: product of the trip counts of the loops around each original instruction.
  const std::vector<inst_id> parent = loop_parents(f);
  std::vector<double> loop_weight(f.insts.size(), 1.0);
  for (inst_id k = 0; k < f.insts.size(); ++k)
    if (f.insts[k].is_loop())
      loop_weight[k] = static_cast<double>(f.insts[k].trips) * (parent[k] == no_inst ? 1.0 : loop_weight[parent[k]]);
  auto weight_in = [&](inst_id loop) { return loop == no_inst ? 1.0 : loop_weight[loop]; };

  // 1. Events, per tensor, in point order (reads before writes within a point), and loop scopes.
  std::vector<std::uint32_t> count(f.tensors.size() + 1, 0);
  std::vector<std::pair<tensor_id, live_event>> flat;
  flat.reserve(f.operands.size() + f.tensors.size());
  std::vector<double> slot_weight(f.operands.size(), 0.0);
  out.slot_point.assign(f.operands.size(), 0);
  std::vector<detail::loop_scope> scopes;
  std::vector<std::uint32_t> point_scope(n_points + 2, none);
  std::vector<std::uint32_t> open;
  std::vector<std::uint32_t> open_depth;
  // Scratch for opaque loops.
  struct opaque_state {
    std::uint8_t first = 0;  // 0 untouched, 1 first touched by a read, 2 by a write
    bool rmw = false;
    std::uint32_t read_slot = ~0u, write_slot = ~0u;
  };
  std::vector<opaque_state> state(f.tensors.size());
  std::vector<tensor_id> touched;
  std::vector<std::uint32_t> rep_of_tensor(f.tensors.size(), none);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> alias;  // (slot, representative slot)
  if (!lf.flattened()) alias.reserve(f.operands.size());  // at most one per slot: no regrowth at 10^6 points
  std::size_t alias_from = 0;

  for (tensor_id t = 0; t < f.tensors.size(); ++t)
    if (f.tensors[t].kind == tensor_kind::input) flat.push_back({t, {0, none, true, false}});

  for (const chain_node& node : lf.chain()) {
    watchdog_tick();  // gca/watchdog.hpp: a caller's deadline holds here too (10^6 points take a while)
    const program_point p = node.point;
    while (!open.empty() && open_depth.back() > node.depth) {  // points after a loop's body
      scopes[open.back()].end = p;
      open.pop_back();
      open_depth.pop_back();
    }
    point_scope[p] = open.empty() ? none : open.back();
    const instruction& i = f.insts[node.inst];
    if (i.is_loop() && !node.opaque_loop) {
      scopes.push_back({p, 0, i.trips, open.empty() ? none : open.back()});
      open.push_back(static_cast<std::uint32_t>(scopes.size() - 1));
      open_depth.push_back(node.depth + 1);
      continue;
    }
    if (node.opaque_loop) {
      // The whole body is one point. Per tensor: a read is visible at this point only if the body's
      // first touch of the tensor is a read (otherwise every iteration writes it before reading it);
      // a tensor read that way and also written is tied. Other slots alias the tensor's event.
      touched.clear();
      for (inst_id k = node.inst + 1; k < i.end; ++k) {
        const instruction& b = f.insts[k];
        if (b.is_loop()) continue;
        const double w = weight_in(parent[k]);
        auto touch = [&](std::uint32_t s, bool write) {
          const tensor_id t = f.operands[s];
          slot_weight[s] = w;
          out.slot_point[s] = p;
          opaque_state& st = state[t];
          if (st.first == 0) {
            st.first = write ? 2 : 1;
            touched.push_back(t);
          }
          if (write && st.write_slot == none) st.write_slot = s;
          if (!write && st.read_slot == none) st.read_slot = s;
          if (write && b.rmw) st.rmw = true;
          alias.push_back({s, t});
        };
        for (std::uint32_t s = b.first_operand + b.n_outputs; s < b.first_operand + b.n_outputs + b.n_inputs; ++s)
          touch(s, false);
        if (b.rmw)
          for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs; ++s) touch(s, false);
        for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs; ++s) touch(s, true);
      }
      for (tensor_id t : touched)
        if (state[t].first == 1) flat.push_back({t, {p, state[t].read_slot, false, false}});
      for (tensor_id t : touched) {
        opaque_state& st = state[t];
        if (st.write_slot != none)
          flat.push_back({t, {p, st.write_slot, true, st.first == 1, st.rmw}});
        // Every slot of t in the body belongs to the web of t's event at this point.
        const std::uint32_t rep = st.first == 1 ? st.read_slot : st.write_slot;
        st = opaque_state{};
        rep_of_tensor[t] = rep;
      }
      for (std::size_t a = alias_from; a < alias.size(); ++a) alias[a].second = rep_of_tensor[alias[a].second];
      alias_from = alias.size();
      continue;
    }
    // Reads first (inputs, and the outputs of `+=`), then writes.
    const double w = weight_in(node.loop);
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs + i.n_inputs; ++s) {
      slot_weight[s] = w;
      out.slot_point[s] = p;
      if (s < i.first_operand + i.n_outputs && !i.rmw) continue;
      flat.push_back({f.operands[s], {p, s, false, false}});
    }
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs; ++s)
      flat.push_back({f.operands[s], {p, s, true, i.rmw || lf.tied(f.operands[s]), i.rmw}});
  }
  while (!open.empty()) {
    scopes[open.back()].end = exit_point;
    open.pop_back();
  }
  for (tensor_id t = 0; t < f.tensors.size(); ++t)
    if (f.tensors[t].kind == tensor_kind::output) flat.push_back({t, {exit_point, none, false, false}});

  for (const auto& [t, e] : flat) ++count[t + 1];
  for (std::size_t t = 1; t < count.size(); ++t) count[t] += count[t - 1];
  std::vector<live_event> ev(flat.size());
  {
    std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
    for (const auto& [t, e] : flat) ev[fill[t]++] = e;
  }
  flat.clear();
  flat.shrink_to_fit();
  // The exit reads were appended last and inputs' entry writes first, so each tensor's list is sorted.

  // 2. Reaching writes for every read, united into webs; each read's live interval.
  detail::union_find uf;
  uf.up.resize(ev.size());
  for (std::uint32_t k = 0; k < ev.size(); ++k) uf.up[k] = k;
  std::vector<interval> read_span(ev.size(), interval{0, 0});
  std::vector<std::uint32_t> defs_idx;  // scratch: indices of the current tensor's writes

  for (tensor_id t = 0; t < f.tensors.size(); ++t) {
    const std::uint32_t b = count[t], e = count[t + 1];
    defs_idx.clear();
    for (std::uint32_t k = b; k < e; ++k)
      if (ev[k].is_def) defs_idx.push_back(k);
    // Last write strictly before point p (index into defs_idx), or none.
    auto last_def_before = [&](program_point p) -> std::uint32_t {
      auto it = std::partition_point(defs_idx.begin(), defs_idx.end(),
                                     [&](std::uint32_t k) { return ev[k].point < p; });
      return it == defs_idx.begin() ? none : *(it - 1);
    };
    for (std::uint32_t k = b; k < e; ++k) {
      if (ev[k].is_def) {
        if (ev[k].tied) {
          // Join the reads of t at the same point (they precede it in the list).
          for (std::uint32_t r = k; r-- > b && ev[r].point == ev[k].point;)
            if (!ev[r].is_def) uf.unite(k, r);
        }
        continue;
      }
      const program_point p = ev[k].point;
      program_point cur = p;
      program_point hi = p + 1;
      std::uint32_t s = cur <= n_points ? point_scope[cur] : none;
      program_point lo_start = 0;
      bool found = false;
      for (;;) {
        const program_point lo = s == none ? 0 : scopes[s].begin + 1;
        const std::uint32_t d = last_def_before(cur);
        if (d != none && ev[d].point >= lo) {
          uf.unite(k, d);
          lo_start = ev[d].point;
          found = true;
          break;
        }
        if (s == none) break;
        const detail::loop_scope& sc = scopes[s];
        if (sc.trips > 1) {
          hi = std::max(hi, sc.end);
          const std::uint32_t back = last_def_before(sc.end);  // the write the back edge carries
          if (back != none && ev[back].point >= lo) uf.unite(k, back);
        }
        cur = sc.begin;
        s = sc.parent;
      }
      if (!found) lo_start = 0;  // live-in (an input's entry write, or an undefined read: be safe)
      read_span[k] = {lo_start, hi};
    }
  }

  if (several) {  // before kept_whole joins anything: the webs each tensor would have on its own
    several->assign(f.tensors.size(), 0);
    for (tensor_id t = 0; t < f.tensors.size(); ++t)
      for (std::uint32_t k = count[t]; k < count[t + 1] && !(*several)[t]; ++k)
        if (uf.find(k) != uf.find(count[t])) (*several)[t] = 1;
  }

  // 3. Webs: one per union-find root, numbered in order of first appearance by tensor then event.
  std::vector<web_id> root_web(ev.size(), no_web);
  std::vector<std::vector<interval>> pieces;
  for (tensor_id t = 0; t < f.tensors.size(); ++t) {
    const bool keep_whole = kept_whole(f.tensors[t]);  // never split (see kept_whole)
    for (std::uint32_t k = count[t]; k < count[t + 1]; ++k)
      if (keep_whole) uf.unite(count[t], k);
    for (std::uint32_t k = count[t]; k < count[t + 1]; ++k) {
      const std::uint32_t r = uf.find(k);
      if (root_web[r] == no_web) {
        root_web[r] = static_cast<web_id>(out.webs.size());
        web w;
        w.tensor = t;
        w.first_def = ev[k].point;
        w.last_use = ev[k].point;
        out.webs.push_back(w);
        pieces.emplace_back();
      }
      const web_id wid = root_web[r];
      web& w = out.webs[wid];
      const live_event& x_ev = ev[k];
      w.first_def = std::min(w.first_def, x_ev.point);
      w.last_use = std::max(w.last_use, x_ev.point);
      if (x_ev.is_def) {
        ++w.defs;
        if (x_ev.slot == none) w.live_in = true;
        if (x_ev.rmw) w.accumulates = true;
        pieces[wid].push_back({x_ev.point, x_ev.point + 1});
      } else {
        ++w.uses;
        if (x_ev.slot == none) w.live_out = true;
        pieces[wid].push_back(read_span[k]);
      }
    }
  }

  // find_loads: a web whose every write is `load` of a tensor the function never writes can be
  // re-loaded from its source instead of stored.
  std::vector<std::uint8_t> written(f.tensors.size(), 0);
  for (const instruction& i : f.insts)
    if (!i.is_loop())
      for (tensor_id t : f.outputs(i)) written[t] = 1;
  std::vector<std::uint8_t> all_loads(out.webs.size(), 1);
  std::vector<tensor_id> source(out.webs.size(), no_tensor);

  out.slot_web.assign(f.operands.size(), no_web);
  for (tensor_id t = 0; t < f.tensors.size(); ++t)
    for (std::uint32_t k = count[t]; k < count[t + 1]; ++k)
      if (ev[k].slot != none) out.slot_web[ev[k].slot] = root_web[uf.find(k)];
  for (const auto& [slot, rep] : alias) out.slot_web[slot] = out.slot_web[rep];
  // Spill cost: the bytes every slot would move, weighted by how often it runs.
  for (std::uint32_t s = 0; s < f.operands.size(); ++s) {
    const web_id w = out.slot_web[s];
    if (w == no_web) continue;
    const extent& x = f.tensors[f.operands[s]].shape;
    out.webs[w].spill_cost += static_cast<double>(x.partitions) * static_cast<double>(x.bytes) * slot_weight[s];
  }
  for (const instruction& i : f.insts) {
    if (i.is_loop()) continue;
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs; ++s) {
      const web_id w = out.slot_web[s];
      if (w == no_web) continue;
      const bool is_load = i.opcode == op::load && i.n_inputs == 1 && !written[f.inputs(i)[0]];
      if (!is_load) {
        all_loads[w] = 0;
        continue;
      }
      const tensor_id src = f.inputs(i)[0];
      if (source[w] != no_tensor && source[w] != src) all_loads[w] = 0;
      source[w] = src;
    }
  }
  for (web_id w = 0; w < out.webs.size(); ++w)
    if (all_loads[w] && source[w] != no_tensor && !out.webs[w].live_in && !out.webs[w].accumulates)
      out.webs[w].load_source = source[w];

  // Kernel I/O in DRAM is a buffer the runtime owns before the kernel starts and after it ends, and a
  // shared buffer may be used by another core at any time (cores run concurrently; their points are not
  // comparable): both are live over the whole function, so they share bytes with nothing else.
  for (web_id w = 0; w < out.webs.size(); ++w) {
    const tensor& t = f.tensors[out.webs[w].tensor];
    if (t.memory == memory_type::dram && (t.kind != tensor_kind::internal || t.space == address_space::shared))
      pieces[w].push_back({0, exit_point + 1});
  }

  // 4. Ranges, normalized, in CSR form.
  out.range_begin.assign(out.webs.size() + 1, 0);
  for (web_id w = 0; w < out.webs.size(); ++w) {
    normalize(pieces[w]);
    out.range_begin[w + 1] = out.range_begin[w] + static_cast<std::uint32_t>(pieces[w].size());
  }
  out.ranges.reserve(out.range_begin.back());
  for (auto& pc : pieces) out.ranges.insert(out.ranges.end(), pc.begin(), pc.end());
  return out;
}

}  // namespace gca
