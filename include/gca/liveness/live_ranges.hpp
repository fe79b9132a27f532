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

/// "No index" for the 32-bit indices below: no operand slot (the synthetic entry write / exit read), no
/// enclosing scope, no earlier write.
inline constexpr std::uint32_t no_index = ~std::uint32_t{0};

struct live_event {
  program_point point;
  std::uint32_t slot;  // operand slot in work(), or no_index for the synthetic entry write / exit read
  bool is_def;
  bool tied;           // def only: joins the web of the reads of the same tensor at the same point
  bool rmw = false;    // def only: written by `+=` (an accumulation)
};

struct loop_scope {
  program_point begin;  // the loop's own point; its body is (begin, end)
  program_point end;    // one past the last body point
  std::uint64_t trips;
  std::uint32_t parent;  // enclosing scope, or no_index
};

struct union_find {
  std::vector<std::uint32_t> up;
  std::uint32_t find(std::uint32_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  }
  // The smaller root wins, so the result does not depend on the order of unions.
  template <class = void>
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
template <class = void>
bool kept_whole(const tensor& x) noexcept {
  return x.at.has_value() || x.kind != tensor_kind::internal ||
         (x.memory == memory_type::dram && x.space != address_space::local);
}

namespace detail {

/// Phase 1's result: every read and write event, grouped by tensor in point order (reads before writes
/// within a point), and what the later phases need of the walk.
struct event_table {
  std::vector<std::uint32_t> begin;  // tensor t's events: ev[begin[t] .. begin[t + 1])
  std::vector<live_event> ev;
  std::vector<double> slot_weight;         // per operand slot: trip-count product around its instruction
  std::vector<program_point> slot_point;   // per operand slot: its point
  std::vector<std::pair<std::uint32_t, std::uint32_t>> alias;  // opaque loops: (slot, representative slot)
  std::vector<loop_scope> scopes;          // flattened loops
  std::vector<std::uint32_t> point_scope;  // per point: its innermost flattened loop scope, or detail::no_index
};

/// Walks the chain once (find_first_defs / find_last_uses): one event per operand slot at its point,
/// an opaque loop's body folded into one point, flattened loops recorded as scopes.
template <class = void>
class event_collector {
 public:
  explicit event_collector(const linearized_function& lf)
      : lf_(lf), f_(lf.work()), parent_(loop_parents(f_)), loop_weight_(loop_weights(f_, parent_)),
        state_(f_.tensors.size()), rep_of_tensor_(f_.tensors.size(), no_index) {
    flat_.reserve(f_.operands.size() + f_.tensors.size());
    t_.slot_weight.assign(f_.operands.size(), 0.0);
    t_.slot_point.assign(f_.operands.size(), 0);
    t_.point_scope.assign(lf.points() + 2, no_index);
    if (!lf.flattened()) t_.alias.reserve(f_.operands.size());  // at most one per slot: no regrowth at 10^6 points
  }

  event_table run() {
    const auto exit_point = static_cast<program_point>(lf_.points() + 1);
    for (tensor_id t = 0; t < f_.tensors.size(); ++t)
      if (f_.tensors[t].kind == tensor_kind::input) flat_.push_back({t, {0, no_index, true, false}});
    for (const chain_node& node : lf_.chain()) {
      watchdog_tick();  // gca/watchdog.hpp: a caller's deadline holds here too (10^6 points take a while)
      close_loops(node.point, node.depth);
      t_.point_scope[node.point] = open_.empty() ? no_index : open_.back();
      const instruction& i = f_.insts[node.inst];
      if (i.is_loop() && !node.opaque_loop) open_loop(node, i);
      else if (node.opaque_loop) opaque_loop(node, i);
      else instruction_events(node, i);
    }
    close_loops(exit_point, 0);
    for (tensor_id t = 0; t < f_.tensors.size(); ++t)
      if (f_.tensors[t].kind == tensor_kind::output) flat_.push_back({t, {exit_point, no_index, false, false}});
    group_by_tensor();
    return std::move(t_);
  }

 private:
  // Scratch for opaque loops, per tensor.
  struct opaque_state {
    std::uint8_t first = 0;  // 0 untouched, 1 first touched by a read, 2 by a write
    bool rmw = false;
    std::uint32_t read_slot = no_index, write_slot = no_index;
  };

  double weight_in(inst_id loop) const { return loop == no_inst ? 1.0 : loop_weight_[loop]; }

  /// Points after a loop's body (depth below its body's) end its scope.
  void close_loops(program_point p, std::uint32_t depth) {
    while (!open_.empty() && open_depth_.back() > depth) {
      t_.scopes[open_.back()].end = p;
      open_.pop_back();
      open_depth_.pop_back();
    }
  }

  void open_loop(const chain_node& node, const instruction& i) {
    t_.scopes.push_back({node.point, 0, i.trips, open_.empty() ? no_index : open_.back()});
    open_.push_back(static_cast<std::uint32_t>(t_.scopes.size() - 1));
    open_depth_.push_back(node.depth + 1);
  }

  /// The whole body is one point. Per tensor: a read is visible at this point only if the body's first
  /// touch of the tensor is a read (otherwise every iteration writes it before reading it); a tensor
  /// read that way and also written is tied. Other slots alias the tensor's event.
  void opaque_loop(const chain_node& node, const instruction& i) {
    const program_point p = node.point;
    touched_.clear();
    for (inst_id k = node.inst + 1; k < i.end; ++k) {
      const instruction& b = f_.insts[k];
      if (b.is_loop()) continue;
      const double w = weight_in(parent_[k]);
      auto touch = [&](std::uint32_t s, bool write) {
        const tensor_id t = f_.operands[s];
        t_.slot_weight[s] = w;
        t_.slot_point[s] = p;
        opaque_state& st = state_[t];
        if (st.first == 0) {
          st.first = write ? 2 : 1;
          touched_.push_back(t);
        }
        if (write && st.write_slot == no_index) st.write_slot = s;
        if (!write && st.read_slot == no_index) st.read_slot = s;
        if (write && b.rmw) st.rmw = true;
        t_.alias.push_back({s, t});
      };
      for (std::uint32_t s = b.first_operand + b.n_outputs; s < b.first_operand + b.n_outputs + b.n_inputs; ++s)
        touch(s, false);
      if (b.rmw)
        for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs; ++s) touch(s, false);
      for (std::uint32_t s = b.first_operand; s < b.first_operand + b.n_outputs; ++s) touch(s, true);
    }
    for (tensor_id t : touched_)
      if (state_[t].first == 1) flat_.push_back({t, {p, state_[t].read_slot, false, false}});
    for (tensor_id t : touched_) {
      opaque_state& st = state_[t];
      if (st.write_slot != no_index) flat_.push_back({t, {p, st.write_slot, true, st.first == 1, st.rmw}});
      // Every slot of t in the body belongs to the web of t's event at this point.
      rep_of_tensor_[t] = st.first == 1 ? st.read_slot : st.write_slot;
      st = opaque_state{};
    }
    for (std::size_t a = alias_from_; a < t_.alias.size(); ++a) t_.alias[a].second = rep_of_tensor_[t_.alias[a].second];
    alias_from_ = t_.alias.size();
  }

  /// Reads first (inputs, and the outputs of `+=`), then writes.
  void instruction_events(const chain_node& node, const instruction& i) {
    const program_point p = node.point;
    const double w = weight_in(node.loop);
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs + i.n_inputs; ++s) {
      t_.slot_weight[s] = w;
      t_.slot_point[s] = p;
      if (s < i.first_operand + i.n_outputs && !i.rmw) continue;
      flat_.push_back({f_.operands[s], {p, s, false, false}});
    }
    for (std::uint32_t s = i.first_operand; s < i.first_operand + i.n_outputs; ++s)
      flat_.push_back({f_.operands[s], {p, s, true, i.rmw || lf_.tied(f_.operands[s]), i.rmw}});
  }

  /// Counting sort by tensor, stable: the exit reads were appended last and the inputs' entry writes
  /// first, so each tensor's list comes out in point order.
  void group_by_tensor() {
    t_.begin.assign(f_.tensors.size() + 1, 0);
    for (const auto& [t, e] : flat_) ++t_.begin[t + 1];
    for (std::size_t t = 1; t < t_.begin.size(); ++t) t_.begin[t] += t_.begin[t - 1];
    t_.ev.resize(flat_.size());
    std::vector<std::uint32_t> fill(t_.begin.begin(), t_.begin.end() - 1);
    for (const auto& [t, e] : flat_) t_.ev[fill[t]++] = e;
    flat_.clear();
    flat_.shrink_to_fit();
  }

  const linearized_function& lf_;
  const function& f_;
  std::vector<inst_id> parent_;
  std::vector<double> loop_weight_;
  event_table t_;
  std::vector<std::pair<tensor_id, live_event>> flat_;
  std::vector<std::uint32_t> open_, open_depth_;  // the flattened loops around the walk, and their body depth
  std::vector<opaque_state> state_;
  std::vector<tensor_id> touched_;
  std::vector<std::uint32_t> rep_of_tensor_;
  std::size_t alias_from_ = 0;
};

/// Phase 2 (memloc_split): the writes that reach each read, united into webs, and each read's interval.
struct reaching {
  union_find uf;
  std::vector<interval> read_span;  // per read event: [its reaching write's point, past the read or loop)
};

/// For the read at index k: walks out through the enclosing flattened loops. A write before the read
/// in the same body reaches it (and ends the walk); a loop of more than one trip also carries its last
/// write around the back edge and keeps the value live to its end.
template <class = void>
void reach_read(const event_table& t, const std::vector<std::uint32_t>& defs_idx, std::uint32_t k,
                std::size_t n_points, reaching& r) {
  const std::vector<live_event>& ev = t.ev;
  // Last write strictly before point p (index into ev), or no_index.
  auto last_def_before = [&](program_point p) -> std::uint32_t {
    auto it = std::partition_point(defs_idx.begin(), defs_idx.end(), [&](std::uint32_t d) { return ev[d].point < p; });
    return it == defs_idx.begin() ? no_index : *(it - 1);
  };
  program_point cur = ev[k].point;
  program_point hi = cur + 1;
  std::uint32_t s = cur <= n_points ? t.point_scope[cur] : no_index;
  program_point lo_start = 0;  // no write found: live-in (an input's entry write, or an undefined read: be safe)
  for (;;) {
    const program_point lo = s == no_index ? 0 : t.scopes[s].begin + 1;
    const std::uint32_t d = last_def_before(cur);
    if (d != no_index && ev[d].point >= lo) {
      r.uf.unite(k, d);
      lo_start = ev[d].point;
      break;
    }
    if (s == no_index) break;
    const loop_scope& sc = t.scopes[s];
    if (sc.trips > 1) {
      hi = std::max(hi, sc.end);
      const std::uint32_t back = last_def_before(sc.end);  // the write the back edge carries
      if (back != no_index && ev[back].point >= lo) r.uf.unite(k, back);
    }
    cur = sc.begin;
    s = sc.parent;
  }
  r.read_span[k] = {lo_start, hi};
}

template <class = void>
reaching reaching_writes(const event_table& t, std::size_t n_tensors, std::size_t n_points) {
  const std::vector<live_event>& ev = t.ev;
  reaching r;
  r.uf.up.resize(ev.size());
  for (std::uint32_t k = 0; k < ev.size(); ++k) r.uf.up[k] = k;
  r.read_span.assign(ev.size(), interval{0, 0});
  std::vector<std::uint32_t> defs_idx;  // scratch: indices of the current tensor's writes
  for (tensor_id x = 0; x < n_tensors; ++x) {
    const std::uint32_t b = t.begin[x], e = t.begin[x + 1];
    defs_idx.clear();
    for (std::uint32_t k = b; k < e; ++k)
      if (ev[k].is_def) defs_idx.push_back(k);
    for (std::uint32_t k = b; k < e; ++k) {
      if (!ev[k].is_def) {
        reach_read(t, defs_idx, k, n_points, r);
      } else if (ev[k].tied) {
        // Join the reads of x at the same point (they precede it in the list).
        for (std::uint32_t q = k; q-- > b && ev[q].point == ev[k].point;)
          if (!ev[q].is_def) r.uf.unite(k, q);
      }
    }
  }
  return r;
}

/// Phase 3: one web per union-find root (kept_whole tensors' events joined first), numbered in order of
/// first appearance by tensor then event; each web's pieces of range. Returns each event's web.
template <class = void>
std::vector<web_id> form_webs(const function& f, const event_table& t, reaching& r, liveness& out,
                              std::vector<std::vector<interval>>& pieces) {
  std::vector<web_id> root_web(t.ev.size(), no_web);
  for (tensor_id x = 0; x < f.tensors.size(); ++x) {
    if (kept_whole(f.tensors[x]))  // never split (see kept_whole)
      for (std::uint32_t k = t.begin[x]; k < t.begin[x + 1]; ++k) r.uf.unite(t.begin[x], k);
    for (std::uint32_t k = t.begin[x]; k < t.begin[x + 1]; ++k) {
      const std::uint32_t root = r.uf.find(k);
      const live_event& e = t.ev[k];
      if (root_web[root] == no_web) {
        root_web[root] = static_cast<web_id>(out.webs.size());
        web w;
        w.tensor = x;
        w.first_def = e.point;
        w.last_use = e.point;
        out.webs.push_back(w);
        pieces.emplace_back();
      }
      const web_id wid = root_web[root];
      web& w = out.webs[wid];
      w.first_def = std::min(w.first_def, e.point);
      w.last_use = std::max(w.last_use, e.point);
      if (e.is_def) {
        ++w.defs;
        if (e.slot == no_index) w.live_in = true;
        if (e.rmw) w.accumulates = true;
        pieces[wid].push_back({e.point, e.point + 1});
      } else {
        ++w.uses;
        if (e.slot == no_index) w.live_out = true;
        pieces[wid].push_back(r.read_span[k]);
      }
    }
  }
  std::vector<web_id> event_web(t.ev.size());
  for (std::uint32_t k = 0; k < t.ev.size(); ++k) event_web[k] = root_web[r.uf.find(k)];
  return event_web;
}

/// Each operand slot's web (opaque loops' slots through their representative), and each web's spill
/// cost: the bytes every slot would move, weighted by how often it runs.
template <class = void>
void assign_slots(const function& f, const event_table& t, const std::vector<web_id>& event_web, liveness& out) {
  out.slot_web.assign(f.operands.size(), no_web);
  for (std::uint32_t k = 0; k < t.ev.size(); ++k)
    if (t.ev[k].slot != no_index) out.slot_web[t.ev[k].slot] = event_web[k];
  for (const auto& [slot, rep] : t.alias) out.slot_web[slot] = out.slot_web[rep];
  for (std::uint32_t s = 0; s < f.operands.size(); ++s) {
    const web_id w = out.slot_web[s];
    if (w == no_web) continue;
    const extent& x = f.tensors[f.operands[s]].shape;
    out.webs[w].spill_cost += static_cast<double>(x.partitions) * static_cast<double>(x.bytes) * t.slot_weight[s];
  }
}

/// find_loads: a web whose every write is `load` of a tensor the function never writes can be re-loaded
/// from its source instead of stored.
template <class = void>
void find_loads(const function& f, liveness& out) {
  std::vector<std::uint8_t> written(f.tensors.size(), 0);
  for (const instruction& i : f.insts)
    if (!i.is_loop())
      for (tensor_id t : f.outputs(i)) written[t] = 1;
  std::vector<std::uint8_t> all_loads(out.webs.size(), 1);
  std::vector<tensor_id> source(out.webs.size(), no_tensor);
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
}

/// Phase 4 (live_range): the pieces normalized, in CSR form. Kernel I/O in DRAM is a buffer the runtime
/// owns before the kernel starts and after it ends, and a shared buffer may be used by another core at
/// any time (cores run concurrently; their points are not comparable): both are live over the whole
/// function, so they share bytes with nothing else.
template <class = void>
void store_ranges(const function& f, std::vector<std::vector<interval>>& pieces, liveness& out) {
  const auto exit_point = static_cast<program_point>(out.points + 1);
  for (web_id w = 0; w < out.webs.size(); ++w) {
    const tensor& t = f.tensors[out.webs[w].tensor];
    if (t.memory == memory_type::dram && (t.kind != tensor_kind::internal || t.space == address_space::shared))
      pieces[w].push_back({0, exit_point + 1});
  }
  out.range_begin.assign(out.webs.size() + 1, 0);
  for (web_id w = 0; w < out.webs.size(); ++w) {
    normalize(pieces[w]);
    out.range_begin[w + 1] = out.range_begin[w] + static_cast<std::uint32_t>(pieces[w].size());
  }
  out.ranges.reserve(out.range_begin.back());
  for (auto& pc : pieces) out.ranges.insert(out.ranges.end(), pc.begin(), pc.end());
}

}  // namespace detail

/// The four phases in order: events (detail::event_collector), reaching writes (detail::reaching_writes),
/// webs (detail::form_webs, assign_slots, find_loads), ranges (detail::store_ranges).
/// `several`, if given, receives one flag per tensor: whether its events form several webs when it is
/// not kept whole (whatever kept_whole says of it now). A tensor with one such web has the same webs
/// whether it is kept whole or not, so placing it (or forgetting its place) leaves the liveness as it
/// was (liveness/liveness_cache.hpp relies on that).
template <class = void>
liveness analyze_liveness(const linearized_function& lf, std::vector<std::uint8_t>* several = nullptr) {
  const function& f = lf.work();
  liveness out;
  out.points = lf.points();
  detail::event_table t = detail::event_collector(lf).run();
  detail::reaching r = detail::reaching_writes(t, f.tensors.size(), out.points);
  if (several) {  // before kept_whole joins anything: the webs each tensor would have on its own
    several->assign(f.tensors.size(), 0);
    for (tensor_id x = 0; x < f.tensors.size(); ++x)
      for (std::uint32_t k = t.begin[x]; k < t.begin[x + 1] && !(*several)[x]; ++k)
        if (r.uf.find(k) != r.uf.find(t.begin[x])) (*several)[x] = 1;
  }
  std::vector<std::vector<interval>> pieces;
  const std::vector<web_id> event_web = detail::form_webs(f, t, r, out, pieces);
  out.slot_point = std::move(t.slot_point);
  detail::assign_slots(f, t, event_web, out);
  detail::find_loads(f, out);
  detail::store_ranges(f, pieces, out);
  return out;
}

/// Per web: the sorted points where it is read or written (spill code keeps a web live there; the
/// spill victims and the exact search's proofs both ask).
template <class = void>
std::vector<std::vector<program_point>> web_events(const liveness& live) {
  std::vector<std::vector<program_point>> ev(live.webs.size());
  for (std::size_t s = 0; s < live.slot_web.size(); ++s)
    if (live.slot_web[s] != no_web) ev[live.slot_web[s]].push_back(live.slot_point[s]);
  for (auto& e : ev) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
  return ev;
}

}  // namespace gca
