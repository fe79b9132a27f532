// gca/linearize/linearize.hpp — the LinearizedFunction: one chain of instruction points per function.
//
// Provides `linearized_function` (the LinearizationPolicy concept and its models are in
// linearize/policy.hpp), which
// keeps a private working copy of the function plus a Boost.Intrusive list of nodes (one per
// instruction point) over it. Spill code is appended to the working copy and spliced into the chain
// in constant time (`insert_before` / `insert_after`); `commit()` rebuilds a function in chain order.
// The caller's function is never touched, so an allocation that fails leaves it as it was.
//
// The policy decides, loop by loop, whether a loop is one opaque point or is followed by its body's
// points (linearize/policy.hpp lists the models: opaque_loops, flattened_loops, flatten_up_to<N>).
//
// As in the Neuron allocator, linearization does not number the points: `renumber_locations()` walks the chain and
// gives dense ids (1..N; 0 is function entry and N+1 function exit).
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/intrusive/list.hpp>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/types.hpp>
#include <gca/linearize/policy.hpp>

namespace gca {

/// One instruction point. The chain position IS the point; `point` is filled by renumber_locations.
struct chain_node
    : boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::safe_link>> {
  inst_id inst = 0;          // the instruction in linearized_function::work()
  inst_id loop = no_inst;    // innermost enclosing loop instruction (no_inst at top level)
  std::uint32_t depth = 0;   // loop nesting depth of the point
  program_point point = 0;   // dense id, 1-based, after renumber_locations
  bool opaque_loop = false;  // a loop collapsed to one point (its body is attributed to it)
};

using chain_list = boost::intrusive::list<chain_node, boost::intrusive::constant_time_size<false>>;

class linearized_function {
 public:
  linearized_function() = default;
  linearized_function(const linearized_function&) = delete;
  linearized_function& operator=(const linearized_function&) = delete;
  // A deque's elements keep their addresses when the deque is moved, so the chain stays valid.
  linearized_function(linearized_function&&) noexcept = default;
  // Not the default: it would free the old nodes (storage_) while the old chain still links them.
  linearized_function& operator=(linearized_function&& o) noexcept {
    if (this == &o) return *this;
    chain_.clear();
    work_ = std::move(o.work_);
    flattened_ = o.flattened_;
    points_ = o.points_;
    storage_ = std::move(o.storage_);
    chain_ = std::move(o.chain_);
    loop_of_ = std::move(o.loop_of_);
    tied_ = std::move(o.tied_);
    return *this;
  }
  ~linearized_function() { chain_.clear(); }

  /// Builds the chain of `f` (copied, or moved from when the caller passes its own copy) under policy L.
  template <LinearizationPolicy L>
  static linearized_function make(const function& f, L policy = {}) {
    return make(function(f), policy);
  }
  template <LinearizationPolicy L>
  static linearized_function make(function&& f, L policy = {}) {
    linearized_function lf;
    lf.work_ = std::move(f);
    const function& w = lf.work_;
    std::vector<inst_id> open;  // enclosing loops
    for (inst_id k = 0; k < w.insts.size();) {
      while (!open.empty() && w.insts[open.back()].end <= k) open.pop_back();
      const instruction& i = w.insts[k];
      chain_node& n = lf.storage_.emplace_back();
      n.inst = k;
      n.loop = open.empty() ? no_inst : open.back();
      n.depth = static_cast<std::uint32_t>(open.size());
      lf.chain_.push_back(n);
      if (i.is_loop() && !policy.flattens(w, k)) {
        n.opaque_loop = true;
        k = i.end;  // the body is attributed to this one point
        continue;
      }
      if (i.is_loop()) {
        open.push_back(k);
        lf.flattened_ = true;
      }
      ++k;
    }
    lf.loop_of_ = loop_parents(w);
    lf.renumber_locations();
    return lf;
  }

  /// A copy with a chain of its own (a chain's hooks cannot be copied): the same working function,
  /// points in the same order, loops and ties. The spill fixpoint keeps one of a space's input to try
  /// the colorer alone on it (spill/fixpoint.hpp).
  template <class = void>
  linearized_function clone() const {
    linearized_function c;
    c.work_ = work_;
    c.flattened_ = flattened_;
    c.points_ = points_;
    c.loop_of_ = loop_of_;
    c.tied_ = tied_;
    for (const chain_node& n : chain_) {
      chain_node& m = c.storage_.emplace_back();
      m.inst = n.inst;
      m.loop = n.loop;
      m.depth = n.depth;
      m.point = n.point;
      m.opaque_loop = n.opaque_loop;
      c.chain_.push_back(m);
    }
    return c;
  }

  /// Whether some loop was flattened (its body's points follow its own).
  bool flattened() const noexcept { return flattened_; }

  /// A tied tensor's writes join the web of its reads at the same point (as `+=` does): spill code
  /// marks the temporary that replaces a value read and rewritten by one instruction, so that the
  /// rewritten program needs no more room at that instruction than the original did.
  bool tied(tensor_id t) const noexcept { return t < tied_.size() && tied_[t] != 0; }
  void set_tied(tensor_id t) {
    if (tied_.size() <= t) tied_.resize(t + 1, 0);
    tied_[t] = 1;
  }
  const function& work() const noexcept { return work_; }
  function& work() noexcept { return work_; }
  const chain_list& chain() const noexcept { return chain_; }
  chain_list& chain() noexcept { return chain_; }  // for spill code: edit nodes, not the list
  std::size_t points() const noexcept { return points_; }

  /// Dense ids 1..N in chain order (the Neuron allocator's renumber_locations). Returns N.
  template <class = void>
  std::size_t renumber_locations() {
    program_point p = 0;
    for (chain_node& n : chain_) n.point = ++p;
    points_ = p;
    return points_;
  }

  /// Appends `i` (already added to work() by the caller) as a new point right before / after `at`,
  /// in the same loop as `at`. Constant time; call renumber_locations() before using points again.
  template <class = void>
  chain_node& insert_before(const chain_node& at, inst_id i) { return insert(at, i, false); }
  template <class = void>
  chain_node& insert_after(const chain_node& at, inst_id i) { return insert(at, i, true); }

  /// commit() of a linearization the caller is done with: when the chain still lists the working
  /// copy's instructions in order and the copy is laid out as commit() lays a function out (operands in
  /// instruction order, the fields add_instruction / begin_loop set), the copy IS the committed function
  /// and is moved out instead of rebuilt (at 10^6 points the rebuild was a tenth of a DRAM pass).
  template <class = void>
  function commit() && {
    if (!in_commit_form()) return static_cast<const linearized_function&>(*this).commit();
    return std::move(work_);
  }

  /// The function in chain order: loops re-nested, inserted instructions in place. In the opaque
  /// form a loop's body is copied through unchanged (nothing is inserted inside an opaque loop).
  template <class = void>
  function commit() const& {
    function out;
    out.name = work_.name;
    out.core = work_.core;
    out.tensors = work_.tensors;
    out.symbols = work_.symbols;
    out.loc = work_.loc;
    out.insts.reserve(work_.insts.size());
    out.operands.reserve(work_.operands.size());
    std::vector<inst_id> open;  // open loops, as ids in work_
    auto copy_one = [&](inst_id k) {
      const instruction& i = work_.insts[k];
      if (i.is_loop()) {
        out.begin_loop(i.label, i.trips, i.loc);
      } else {
        out.add_instruction(i.opcode, work_.outputs(i), work_.inputs(i), i.rmw, i.loc);
      }
    };
    for (const chain_node& n : chain_) {
      // Close the loops this point is not inside of.
      while (!open.empty() && !inside(n, open.back())) {
        out.end_loop();
        open.pop_back();
      }
      if (n.opaque_loop) {
        // Copy the whole loop with its body, keeping nesting by the body's own `end`s.
        const instruction& l = work_.insts[n.inst];
        std::vector<inst_id> body_open;
        for (inst_id k = n.inst; k < l.end; ++k) {
          while (!body_open.empty() && work_.insts[body_open.back()].end <= k) {
            out.end_loop();
            body_open.pop_back();
          }
          copy_one(k);
          if (work_.insts[k].is_loop()) body_open.push_back(k);
        }
        while (!body_open.empty()) {
          out.end_loop();
          body_open.pop_back();
        }
        continue;
      }
      copy_one(n.inst);
      if (work_.insts[n.inst].is_loop()) open.push_back(n.inst);
    }
    while (!open.empty()) {
      out.end_loop();
      open.pop_back();
    }
    return out;
  }

 private:
  /// Would commit() return work_ field for field? (See commit() &&.)
  template <class = void>
  bool in_commit_form() const {
    if (work_.open_loops() != 0) return false;
    inst_id next = 0;  // the chain must visit 0, 1, ... (an opaque loop stands for its body)
    for (const chain_node& n : chain_) {
      if (n.inst != next || next >= work_.insts.size()) return false;
      next = n.opaque_loop ? work_.insts[next].end : next + 1;
    }
    if (next != work_.insts.size()) return false;
    std::uint32_t operand = 0;
    std::vector<inst_id> open;  // loops must close exactly where commit() closes them
    for (inst_id k = 0; k < work_.insts.size(); ++k) {
      const instruction& i = work_.insts[k];
      for (; !open.empty() && work_.insts[open.back()].end <= k; open.pop_back())
        if (work_.insts[open.back()].end != k) return false;
      if (i.is_loop()) open.push_back(k);
      if (i.first_operand != operand) return false;
      if (i.is_loop() ? (i.n_outputs != 0 || i.n_inputs != 0 || i.rmw || i.end <= k)
                      : (i.end != k + 1 || i.trips != 1 || i.label != 0))
        return false;
      operand += i.n_outputs + i.n_inputs;
    }
    for (inst_id l : open)
      if (work_.insts[l].end != work_.insts.size()) return false;
    return operand == work_.operands.size();
  }

  /// Is point n inside loop `l` (directly or through nested loops)? Walks n's enclosing loops using
  /// the innermost-loop links of the loop points, which nest like the program does.
  template <class = void>
  bool inside(const chain_node& n, inst_id l) const {
    for (inst_id cur = n.loop; cur != no_inst; cur = loop_of_[cur]) {
      if (cur == l) return true;
    }
    return false;
  }

  template <class = void>
  chain_node& insert(const chain_node& at, inst_id i, bool after) {
    chain_node& n = storage_.emplace_back();
    n.inst = i;
    n.loop = at.loop;
    n.depth = at.depth;
    auto it = chain_.iterator_to(at);
    if (after) ++it;
    chain_.insert(it, n);
    return n;
  }

  function work_;
  bool flattened_ = false;
  std::size_t points_ = 0;
  std::deque<chain_node> storage_;  // owns the nodes; declared before chain_ so the chain dies first
  chain_list chain_;
  std::vector<inst_id> loop_of_;    // enclosing loop of each original instruction (loop_parents)
  std::vector<std::uint8_t> tied_;  // per tensor of work_: see tied()
};

/// the Neuron allocator's Rep::linearize: build the chain under policy L.
template <LinearizationPolicy L>
linearized_function linearize(const function& f, L policy = {}) {
  return linearized_function::make(f, policy);
}
/// The same, from a function the caller no longer needs (moved into the working copy, not copied).
template <LinearizationPolicy L>
linearized_function linearize(function&& f, L policy = {}) {
  return linearized_function::make(std::move(f), policy);
}

}  // namespace gca
