// gca/verify/translation.hpp — translation validation: the allocated program computes what the original
// did (docs/VERIFY.md, "The two-program check").
//
// Provides `verify(original, allocated, verify_options)`, which returns a `translation_report`: everything
// `verify(allocated)` (verify.hpp) reports, plus one `translation_failure` per read of the allocated
// program that does not see the value the corresponding read of the original sees. Three phases:
//   match     the correspondence between the two programs, rebuilt from their text alone: per loop
//             body, the allocated instructions are the original's in order (same opcode, operand counts,
//             `+=`, operand memories and shapes; loops with the same name and trips), plus inserted
//             moves (copy, dma, load, store, spill, reload with one output and one input);
//   simulate  both programs run side by side on value numbers. Every execution of an original
//             instruction that computes (not a move) makes fresh values; the original runs on ideal
//             storage (one cell per tensor), the allocated program on shadows of its physical memories,
//             where moves -- the allocator's and the program's own -- copy whatever bytes they find;
//   judge     every read of a computing instruction of the allocated program must find, in its
//             tensor's bytes, the value the original's read sees, laid out from its own placement; at
//             exit every kernel output and shared buffer must hold the original's final value.
// Nothing the allocator recorded is trusted: not the spill record, not tensor names (renamed webs and
// temporaries are matched by position), not the claims of the spill code about what it carries.
// Like verify.hpp it includes only ir/ and error.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/verify/verify.hpp>

namespace gca {

enum class translation_failure_kind : std::uint8_t {
  unmatched,        // the programs do not correspond (an instruction, loop, function or kernel I/O tensor
                    // of one has no counterpart in the other); nothing of that function is simulated
  missing_value,    // a read finds bytes nothing wrote (directly or through a copy of such bytes)
  stale_value,      // a read finds another value of the same original tensor (older or newer; e.g. from
                    // another iteration, or from before a write a store failed to save)
  wrong_value,      // a read finds a value of another original tensor
  misplaced_value,  // a read finds the right value, but (some of) its bytes laid out from another place
  wrong_output,     // at exit a kernel output or shared buffer does not hold the original's final value
};

constexpr std::string_view to_string(translation_failure_kind k) noexcept {
  switch (k) {
    case translation_failure_kind::unmatched: return "unmatched";
    case translation_failure_kind::missing_value: return "missing_value";
    case translation_failure_kind::stale_value: return "stale_value";
    case translation_failure_kind::wrong_value: return "wrong_value";
    case translation_failure_kind::misplaced_value: return "misplaced_value";
    case translation_failure_kind::wrong_output: return "wrong_output";
  }
  return "?";
}

struct translation_failure {
  translation_failure_kind kind = translation_failure_kind::unmatched;
  std::string function;      // the function (same name in both programs)
  std::string tensor;        // the allocated program's tensor read (or the output), without '%'
  source_loc loc;            // the reading instruction in the allocated program (0: none)
  source_loc original_loc;   // the corresponding instruction (or declaration) of the original (0: none)
  std::string message;       // which value the read should see, and which it sees
};

struct translation_report {
  verify_report placement;                    // verify(allocated): the single-module checks
  std::vector<translation_failure> failures;  // in simulation order: the first is the first wrong read
  std::uint64_t steps = 0;                    // allocated instructions simulated in the two-program run
  std::uint64_t loops_shortened = 0;          // loops run fewer than min(trips, max_trips) times

  bool ok() const noexcept { return placement.ok() && failures.empty(); }
  std::size_t count(verify_failure_kind k) const noexcept { return placement.count(k); }
  std::size_t count(translation_failure_kind k) const noexcept {
    return static_cast<std::size_t>(std::count_if(failures.begin(), failures.end(),
                                                  [&](const translation_failure& f) { return f.kind == k; }));
  }
  /// One line per failure, translation failures first: "function 'f', tensor %x, line N: <kind>: <message>".
  template <class = void>
  std::string message() const {
    std::string s;
    for (const translation_failure& f : failures)
      s += "function '" + f.function + "', tensor %" + f.tensor + ", line " + std::to_string(f.loc.line) + ": " +
           std::string(to_string(f.kind)) + ": " + f.message + '\n';
    return s + placement.message();
  }
};

namespace detail::translation_impl {

using verify_impl::cell;
using verify_impl::region;
using verify_impl::shadow;

/// The region a tensor occupies, for the simulation only (verify(allocated) reports the rule breaks):
/// unplaced, empty or out-of-bounds tensors are not simulated on a shadow but as ideal storage of their
/// own, so the data flow through them is still judged.
template <class = void>
region region_of(const target& t, const tensor& x) {
  region g;
  if (!x.at || x.shape.bytes == 0 || x.shape.partitions == 0) return g;
  const placement& p = *x.at;
  const extent& e = x.shape;
  switch (x.memory) {
    case memory_type::sb:
    case memory_type::psum: {
      const std::uint64_t cap =
          x.memory == memory_type::sb ? t.sb_usable : std::uint64_t{t.psum_banks} * t.psum_bank_bytes;
      const bool in = std::uint64_t{p.partition} + e.partitions <= t.sb_partitions && p.offset <= cap &&
                      e.bytes <= cap - p.offset;
      return {p.partition, p.partition + e.partitions, p.offset, p.offset + e.bytes, in};
    }
    case memory_type::dram: {
      const bool in = p.partition == 0 && p.offset <= t.dram_bytes && e.bytes <= t.dram_bytes - p.offset;
      return {0, 1, p.offset, p.offset + e.bytes, in};
    }
    case memory_type::reg: return {0, 1, p.offset, p.offset + 1, p.partition == 0 && p.offset < t.registers};
  }
  if (const memory_spec* s = user_memory(t, x.memory)) {  // a memory the target adds
    const bool in = std::uint64_t{p.partition} + e.partitions <= s->partitions && p.offset <= s->bytes &&
                    e.bytes <= s->bytes - p.offset;
    return {p.partition, p.partition + e.partitions, p.offset, p.offset + e.bytes, in};
  }
  return g;
}

/// Does allocated instruction `a` stand for original instruction `o`? Same opcode, operand counts and
/// `+=`, and each operand of the same memory and shape (renaming and spilling keep both: a web's
/// temporaries are copies of its tensor's declaration); loops: same name and trip count.
template <class = void>
bool same_shape(const function& fa, const instruction& a, const function& fo, const instruction& o) {
  if (a.is_loop() != o.is_loop()) return false;
  if (a.is_loop()) return a.trips == o.trips && fa.symbols[a.label] == fo.symbols[o.label];
  if (fa.opcode_name(a) != fo.opcode_name(o) || a.n_outputs != o.n_outputs || a.n_inputs != o.n_inputs ||
      a.rmw != o.rmw)
    return false;
  for (std::uint32_t k = 0; k < a.n_outputs + a.n_inputs; ++k) {
    const tensor& x = fa.tensors[fa.operands[a.first_operand + k]];
    const tensor& y = fo.tensors[fo.operands[o.first_operand + k]];
    if (x.memory != y.memory || x.shape != y.shape) return false;
  }
  return true;
}

/// An instruction the allocated program may add: a move (it carries a value, it never makes one).
inline bool insertable(const instruction& a) {
  return !a.is_loop() && op::is_move(a.opcode) && a.n_outputs == 1 && a.n_inputs == 1 && !a.rmw;
}

/// What one value number is, for the messages and the classification of a wrong read: 8 bytes per value
/// (a simulation makes one per computed output per step); garbage values keep their story aside.
struct value_info {
  inst_id made_by = no_inst;     // the original instruction that computed it (no_inst: held at entry;
                                 // garbage_mark: garbage, see garbage_info)
  tensor_id tensor = no_tensor;  // the original tensor it was computed into (no_tensor: allocated only)
};
inline constexpr inst_id garbage_mark = no_inst - 1;
struct garbage_info {
  std::uint64_t first = 0;      // what the source's first byte range held (0: never written)
  std::uint64_t bad = 0;        // what the first range disagreeing with it held (0: never written)
  inst_id copied_by = no_inst;  // the allocated move that copied bytes not holding one value
};

template <class = void>
class lockstep {
 public:
  lockstep(const module& o, const module& a, const verify_options& opt, translation_report& r)
      : om_(o), am_(a), opt_(opt), r_(r) {}

  void run() {
    if (om_.tgt != am_.tgt) {
      module_failure("the allocated module is for target " + std::string(am_.tgt.name) + ", the original for " +
                     std::string(om_.tgt.name));
      return;
    }
    if (om_.functions.size() != am_.functions.size()) {
      module_failure("the original has " + std::to_string(om_.functions.size()) + " functions, the allocated " +
                     std::to_string(am_.functions.size()));
      return;
    }
    for (std::size_t k = 0; k < om_.functions.size(); ++k) {
      const function& fo = om_.functions[k];
      const function& fa = am_.functions[k];
      if (fo.name != fa.name || fo.core != fa.core) {
        fail(translation_failure_kind::unmatched, fa, "", fa.loc, fo.loc,
             "function '" + fa.name + "' (core " + std::to_string(fa.core) + ") stands where the original has '" +
                 fo.name + "' (core " + std::to_string(fo.core) + ")");
        continue;
      }
      if (match_tensors(fo, fa) && match_instructions(fo, fa)) simulate(fo, fa);
    }
  }

 private:
  const module& om_;
  const module& am_;
  const verify_options& opt_;
  translation_report& r_;

  // Per function pair.
  const function* fo_ = nullptr;
  const function* fa_ = nullptr;
  std::vector<inst_id> match_;           // allocated instruction -> original one (no_inst: inserted move)
  std::vector<tensor_id> io_partner_;    // original tensor -> allocated tensor of the same name (I/O, shared)
  std::vector<std::uint64_t> ocur_;      // the original's state: each tensor's value
  std::vector<std::uint64_t> acur_;      // allocated: the value last written through each tensor
  std::vector<region> reg_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> band_range_;
  std::vector<char> alone_;
  std::vector<shadow> mem_;  // per memory
  std::vector<value_info> values_{value_info{}};  // value 0: never written
  std::map<std::uint64_t, garbage_info> garbage_;  // the garbage values' stories
  std::set<std::pair<inst_id, tensor_id>> reported_;

  void fail(translation_failure_kind k, const function& fa, std::string tensor, source_loc at, source_loc orig,
            std::string msg) {
    r_.failures.push_back({k, fa.name, std::move(tensor), at, orig, std::move(msg)});
  }
  void module_failure(std::string msg) {
    r_.failures.push_back({translation_failure_kind::unmatched, "", "", {}, {}, std::move(msg)});
  }

  // ---- match: the correspondence, from the programs' text ----------------------------------------

  /// Kernel inputs, outputs and shared buffers are the interface: the allocated function must declare
  /// each of the original's under the same name, memory, space, shape and kind (internal tensors may be
  /// renamed, split and added freely).
  bool match_tensors(const function& fo, const function& fa) {
    io_partner_.assign(fo.tensors.size(), no_tensor);
    std::unordered_map<std::string_view, tensor_id> by_name;  // lookup only (never iterated)
    by_name.reserve(fa.tensors.size());
    for (tensor_id u = 0; u < fa.tensors.size(); ++u) by_name.emplace(fa.tensors[u].name, u);
    bool ok = true;
    for (tensor_id t = 0; t < fo.tensors.size(); ++t) {
      const tensor& x = fo.tensors[t];
      const bool shared = x.memory == memory_type::dram && x.space == address_space::shared;
      if (x.kind == tensor_kind::internal && !shared) continue;
      const auto found = by_name.find(x.name);
      const tensor_id u = found == by_name.end() ? no_tensor : found->second;
      if (u == no_tensor || fa.tensors[u].memory != x.memory || fa.tensors[u].space != x.space ||
          fa.tensors[u].shape != x.shape || fa.tensors[u].kind != x.kind) {
        fail(translation_failure_kind::unmatched, fa, x.name, u == no_tensor ? source_loc{} : fa.tensors[u].loc, x.loc,
             u == no_tensor ? "the original's kernel interface tensor is not declared in the allocated function"
                            : "declared with another memory, size or kind than in the original");
        ok = false;
        continue;
      }
      io_partner_[t] = u;
    }
    return ok;
  }

  /// Aligns the two instruction lists body by body (an explicit stack: nests may be thousands deep).
  /// Greedy is exact here: an allocated instruction that could stand for the next original one but is
  /// taken as inserted must be a move, and so is the original one then (same opcode); moves only carry
  /// values, so which of two interchangeable moves stands for the original's changes nothing simulated.
  bool match_instructions(const function& fo, const function& fa) {
    match_.assign(fa.insts.size(), no_inst);
    std::vector<std::pair<inst_id, inst_id>> open;  // (original loop, allocated loop)
    const auto no = static_cast<inst_id>(fo.insts.size()), na = static_cast<inst_id>(fa.insts.size());
    inst_id i = 0, j = 0;
    for (;;) {
      const inst_id o_end = open.empty() ? no : fo.insts[open.back().first].end;
      const inst_id a_end = open.empty() ? na : fa.insts[open.back().second].end;
      if (j == a_end) {
        if (i != o_end) {
          const instruction& o = fo.insts[i];
          fail(translation_failure_kind::unmatched, fa, "", source_loc{}, o.loc,
               "line " + std::to_string(o.loc.line) + " of the original (" + std::string(fo.opcode_name(o)) +
                   ") has no counterpart in the allocated program");
          return false;
        }
        if (open.empty()) return true;
        open.pop_back();
        continue;
      }
      const instruction& a = fa.insts[j];
      if (i < o_end && same_shape(fa, a, fo, fo.insts[i])) {
        match_[j] = i;
        if (a.is_loop()) open.emplace_back(i, j);
        ++i, ++j;
        continue;
      }
      if (insertable(a)) {
        ++j;
        continue;
      }
      const std::string what = i < o_end ? "line " + std::to_string(fo.insts[i].loc.line) + " of the original (" +
                                                std::string(fo.opcode_name(fo.insts[i])) + ")"
                                          : "the end of the original's body";
      fail(translation_failure_kind::unmatched, fa, "", a.loc, i < o_end ? fo.insts[i].loc : source_loc{},
           std::string(a.is_loop() ? "loop " + fa.symbols[a.label] : std::string(fa.opcode_name(a))) +
               " does not correspond to " + what + " and is not a move the allocator may insert");
      return false;
    }
  }

  // ---- simulate: both programs, side by side -------------------------------------------------------

  std::uint64_t new_value(inst_id made_by, tensor_id t) {
    values_.push_back({made_by, t});
    return values_.size() - 1;
  }
  bool is_garbage(std::uint64_t v) const { return v != 0 && values_[v].made_by == garbage_mark; }

  void setup(const function& fo, const function& fa) {
    fo_ = &fo;
    fa_ = &fa;
    ocur_.assign(fo.tensors.size(), 0);
    acur_.assign(fa.tensors.size(), 0);
    reported_.clear();
    reg_.assign(fa.tensors.size(), {});
    for (tensor_id t = 0; t < fa.tensors.size(); ++t) reg_[t] = region_of(am_.tgt, fa.tensors[t]);
    verify_impl::layout_shadows(fa, reg_, mem_, band_range_, alone_);
  }

  /// Puts value v in allocated tensor t's bytes, laid out from t's placement.
  void a_write(tensor_id t, std::uint64_t v, inst_id at) {
    acur_[t] = v;
    if (!reg_[t].simulated || alone_[t]) return;
    shadow& s = mem_[verify_impl::memory_index(fa_->tensors[t])];
    const cell c{v, t, at};
    for (std::uint32_t b = band_range_[t].first; b < band_range_[t].second; ++b)
      s.bands[b].assign(reg_[t].b0, reg_[t].b1, c);
  }

  /// What tensor t's bytes hold against `want`: the first byte range that is not `want` laid out from t's
  /// placement. `want` == ~0 takes the first range's value as the one wanted (a move copies whatever is
  /// there). A tensor nothing else overlaps (or one outside the shadows) holds its own latest write.
  struct probe {
    bool ok = true;
    std::uint64_t first = 0;  // what the first byte range holds (0: never written)
    std::uint64_t value = 0;  // ok: the value held; else what the first bad range holds (0: never written)
    bool misplaced = false;   // the bad range holds the value from another placement
    inst_id writer = no_inst; // the allocated instruction that wrote the bad range (no_inst: entry / none)
  };
  probe look(tensor_id t, std::uint64_t want) const {
    if (!reg_[t].simulated || alone_[t]) {
      const std::uint64_t v = acur_[t];
      return {v != 0 && (want == ~std::uint64_t{0} || v == want), v, v, false, no_inst};
    }
    const shadow& s = mem_[verify_impl::memory_index(fa_->tensors[t])];
    const placement& at = *fa_->tensors[t].at;
    probe p;
    bool first = true;
    for (std::uint32_t b = band_range_[t].first; p.ok && b < band_range_[t].second; ++b)
      s.bands[b].scan(reg_[t].b0, reg_[t].b1, [&](std::uint64_t, std::uint64_t, const cell* c) {
        if (first) p.first = c == nullptr ? 0 : c->value, first = false;
        if (c != nullptr && want == ~std::uint64_t{0}) want = c->value;
        // The value alone is not enough: a copy of it at another place that overlaps t puts its bytes
        // at other addresses. The writer's placement must be t's.
        if (c != nullptr && c->value == want && *fa_->tensors[c->writer].at == at) return true;
        p = {false, p.first, c == nullptr ? 0 : c->value, c != nullptr && c->value == want,
             c == nullptr ? no_inst : c->inst};
        return false;
      });
    if (p.ok) p.value = want;
    return p;
  }

  /// An allocated move: the destination gets whatever its source holds; bytes not holding one value laid
  /// out from the source's place become a garbage value remembering why.
  void a_move(inst_id k) {
    const function& f = *fa_;
    const instruction& i = f.insts[k];
    const tensor_id src = f.inputs(i)[0];
    const probe p = look(src, ~std::uint64_t{0});
    std::uint64_t v = p.value;
    if (!p.ok) {
      v = new_value(garbage_mark, no_tensor);
      garbage_.emplace(v, garbage_info{p.first, p.value, k});
    }
    a_write(f.outputs(i)[0], v, k);
  }

  /// The allocated read of tensor t at instruction k must find `want` (the original's read value).
  void judge_read(inst_id k, tensor_id t, tensor_id orig, std::uint64_t want) {
    if (want == 0) return;  // the original reads nothing defined: not the allocator's business
    const probe p = look(t, want);
    if (p.ok || !reported_.emplace(k, t).second) return;
    const instruction& i = fa_->insts[k];
    const auto [kind, saw] = classify(p, want, orig);
    fail(kind, *fa_, fa_->tensors[t].name, i.loc, fo_->insts[match_[k]].loc,
         "%" + fa_->tensors[t].name + " should hold " + describe(want) + " (what %" + fo_->tensors[orig].name +
             " holds where line " + std::to_string(fo_->insts[match_[k]].loc.line) + " of the original reads it), but " +
             saw);
  }

  /// A computing instruction: reads (inputs, then the outputs of a `+=`) judged against the original's,
  /// then fresh values for the outputs, written to both programs.
  void compute(inst_id k) {
    const function& fa = *fa_;
    const function& fo = *fo_;
    const instruction& a = fa.insts[k];
    const instruction& o = fo.insts[match_[k]];
    for (std::uint32_t j = 0; j < a.n_inputs; ++j)
      judge_read(k, fa.inputs(a)[j], fo.inputs(o)[j], ocur_[fo.inputs(o)[j]]);
    if (a.rmw)
      for (std::uint32_t j = 0; j < a.n_outputs; ++j)
        judge_read(k, fa.outputs(a)[j], fo.outputs(o)[j], ocur_[fo.outputs(o)[j]]);
    for (std::uint32_t j = 0; j < a.n_outputs; ++j) {
      const tensor_id ot = fo.outputs(o)[j];
      ocur_[ot] = new_value(match_[k], ot);
      a_write(fa.outputs(a)[j], ocur_[ot], k);
    }
  }

  void execute(inst_id k) {
    const inst_id m = match_[k];
    if (m != no_inst && !op::is_move(fo_->insts[m].opcode)) return compute(k);
    if (m != no_inst) {  // the original's own move: its state moves too
      const instruction& o = fo_->insts[m];
      ocur_[fo_->outputs(o)[0]] = ocur_[fo_->inputs(o)[0]];
    }
    a_move(k);
  }

  /// Entry: the original's inputs and shared buffers hold values; the allocated program's partners
  /// (same name) hold the same ones. A shared buffer only the allocated function declares (a lifetime
  /// extension) holds a value of its own.
  void entry() {
    const function& fo = *fo_;
    const function& fa = *fa_;
    std::vector<std::uint64_t> given(fa.tensors.size(), 0);
    for (tensor_id t = 0; t < fo.tensors.size(); ++t) {
      const tensor& x = fo.tensors[t];
      if (x.kind != tensor_kind::input && !(x.memory == memory_type::dram && x.space == address_space::shared)) continue;
      ocur_[t] = new_value(no_inst, t);
      if (io_partner_[t] != no_tensor) given[io_partner_[t]] = ocur_[t];
    }
    for (tensor_id t = 0; t < fa.tensors.size(); ++t) {
      const tensor& x = fa.tensors[t];
      if (x.kind != tensor_kind::input && !(x.memory == memory_type::dram && x.space == address_space::shared)) continue;
      a_write(t, given[t] != 0 ? given[t] : new_value(no_inst, no_tensor), no_inst);
    }
  }

  /// Exit: every kernel output and shared buffer of the original ends, in the allocated program, with
  /// the original's final value.
  void exit_check() {
    const function& fo = *fo_;
    const function& fa = *fa_;
    for (tensor_id t = 0; t < fo.tensors.size(); ++t) {
      const tensor_id u = io_partner_[t];
      if (u == no_tensor || ocur_[t] == 0) continue;
      if (fo.tensors[t].kind == tensor_kind::input && fo.tensors[t].space != address_space::shared) continue;
      const probe p = look(u, ocur_[t]);
      if (p.ok) continue;
      const std::string saw = classify(p, ocur_[t], t).second;
      fail(translation_failure_kind::wrong_output, fa, fa.tensors[u].name,
           p.writer != no_inst ? fa.insts[p.writer].loc : fa.tensors[u].loc, fo.tensors[t].loc,
           "at exit %" + fa.tensors[u].name + " should hold " + describe(ocur_[t]) + ", but " + saw);
    }
  }

  /// Runs the allocated program (loops min(trips, max_trips) times within max_steps, planned as in
  /// verify.hpp) and the original along with it through the match.
  void simulate(const function& fo, const function& fa) {
    setup(fo, fa);
    entry();
    const std::vector<std::uint64_t> iters = verify_impl::plan_iterations(fa, opt_, r_.loops_shortened);
    struct frame {
      inst_id loop;
      std::uint64_t left;  // iterations still to run after the current one
    };
    std::vector<frame> stack;
    const auto n = static_cast<inst_id>(fa.insts.size());
    for (inst_id pc = 0;;) {
      while (!stack.empty() && pc == fa.insts[stack.back().loop].end) {
        if (stack.back().left > 0) {
          --stack.back().left;
          pc = stack.back().loop + 1;
        } else {
          stack.pop_back();
        }
      }
      if (pc >= n) break;
      ++r_.steps;
      if (fa.insts[pc].is_loop()) {
        stack.push_back({pc, iters[pc] - 1});
      } else {
        execute(pc);
      }
      ++pc;
    }
    exit_check();
  }

  // ---- judge: what a wrong read saw ----------------------------------------------------------------

  std::string describe(std::uint64_t v) const {
    if (v == 0) return "nothing (bytes never written)";
    const value_info& x = values_[v];
    if (x.tensor == no_tensor) return "a value the original does not have";
    const std::string name = "%" + fo_->tensors[x.tensor].name;
    if (x.made_by == no_inst) return "the value " + name + " holds at entry";
    return "the value written to " + name + " by line " + std::to_string(fo_->insts[x.made_by].loc.line) +
           " of the original";
  }

  /// The kind of a wrong read, and what it saw. Garbage is followed back to what its bad bytes held.
  std::pair<translation_failure_kind, std::string> classify(const probe& p, std::uint64_t want,
                                                            tensor_id orig) const {
    using K = translation_failure_kind;
    std::string via;
    std::uint64_t v = p.value;
    bool misplaced = p.misplaced;
    // Garbage is judged by what its source held: the first range, or the one disagreeing with it,
    // whichever is not the wanted value (both wanted: the right value torn between placements). Each
    // garbage value's sources are older than itself, so the chain ends.
    while (is_garbage(v)) {
      const garbage_info& g = garbage_.at(v);
      if (via.empty()) via = " (copied by line " + std::to_string(fa_->insts[g.copied_by].loc.line) + ")";
      v = g.first != want ? g.first : g.bad;
      misplaced = misplaced || v == want;
    }
    const std::string where = p.writer != no_inst && via.empty()
                                  ? " (put there by line " + std::to_string(fa_->insts[p.writer].loc.line) + ")"
                                  : via;
    if (v == 0) return {K::missing_value, "its bytes were never written" + where};
    if (v == want || misplaced)
      return {K::misplaced_value, "finds that value laid out from another placement" + where};
    const value_info& saw = values_[v];
    const value_info& wanted = values_[want];
    const bool same = saw.tensor != no_tensor && (saw.tensor == wanted.tensor || saw.tensor == orig);
    const std::string tail = saw.made_by != no_inst && saw.made_by == wanted.made_by
                                 ? " from another execution of that line"
                                 : "";
    if (same) return {K::stale_value, "it holds " + describe(v) + tail + where + ": a stale value"};
    return {K::wrong_value, "it holds " + describe(v) + where};
  }
};

}  // namespace detail::translation_impl

/// The two-program check: `allocated` must be `original` with placements, renamed internal tensors and
/// inserted moves, and compute the same values (see the top of this header and docs/VERIFY.md). The
/// report holds verify(allocated, opt) too, so ok() means both. Loops run min(trips, opt.max_trips)
/// times (3 by default: a value carried around a back edge twice), within opt.max_steps per function.
/// Never throws on a bad allocation. Both modules must be structurally valid (ir/validate.hpp).
template <class = void>
[[nodiscard]] translation_report verify(const module& original, const module& allocated,
                                        verify_options opt = {}) {
  translation_report r;
  r.placement = verify(allocated, opt);
  detail::translation_impl::lockstep(original, allocated, opt, r).run();
  return r;
}

/// The compiled mode (gca/compiled.hpp) compiles the two-program check once, into the gca_compiled
/// library, as it does the parser (ir/parser.hpp); gca/compiled.cpp expands the same list as the
/// definition.
#define GCA_COMPILED_TRANSLATION(Prefix) \
  Prefix template translation_report verify<void>(const module&, const module&, verify_options);
#ifdef GCA_COMPILED
GCA_COMPILED_TRANSLATION(extern)
#endif

}  // namespace gca
