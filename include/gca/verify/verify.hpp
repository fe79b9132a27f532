// gca/verify/verify.hpp — an independent checker of an allocated module (docs/VERIFY.md).
//
// Provides `verify(module, verify_options)`, which returns a `verify_report`: one `verify_failure` per
// broken rule, each naming the function, the tensor, a source line and what is wrong. Two parts:
//   static   every tensor placed, inside its memory on the module's target, aligned, on a legal start
//            partition, inside one PSUM bank (unless the target lets tensors span banks); shared DRAM
//            names placed alike in every function and overlapping no other DRAM tensor of the module
//            (and, after linking, no two functions' DRAM overlapping at all);
//   dynamic  each function is SIMULATED: every write gets a fresh value id (a move passes its input's
//            id on), a shadow of each memory records which value, written through which tensor, each
//            byte range holds, and every read must find the value the program itself says is latest.
// It deliberately uses nothing of the allocator (linearize, liveness, graph, geometry, engine, spill):
// it only reads the IR, so a bug in those layers cannot hide itself here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/ir/validate.hpp>  // place_rules: what a user's geometry allows (the target rules are re-derived here)

namespace gca {

enum class verify_failure_kind : std::uint8_t {
  unplaced,             // a tensor has no placement
  out_of_bounds,        // partitions, bytes, DRAM address or register number outside the target
  misaligned,           // byte offset / DRAM address not a multiple of the target's alignment
  bad_start_partition,  // >64 partitions must start at 0; 33..64 at 0/64; 1..32 at 0/32/64/96
  crosses_bank,         // a PSUM tensor crosses a 2 KiB bank boundary on a target that forbids it
  clobbered_read,       // a read found (part of) its tensor overwritten since the tensor's latest write
  clobbered_output,     // at exit an output tensor no longer holds its latest value
  undefined_read,       // a tensor is read before anything wrote it (and it is not an input)
  shared_mismatch,      // a dram.shared name has different placements (or sizes) in two functions
  shared_overlap,       // a dram.shared tensor overlaps another DRAM tensor of some function
  linked_overlap,       // (linked) DRAM tensors of two different functions overlap
  in_place,             // an output overlaps an input of the same instruction (not allowed by default)
  geometry_rule,        // a place the target allows but the memory's geometry does not (verify_options::rules)
};

constexpr std::string_view to_string(verify_failure_kind k) noexcept {
  switch (k) {
    case verify_failure_kind::unplaced: return "unplaced";
    case verify_failure_kind::out_of_bounds: return "out_of_bounds";
    case verify_failure_kind::misaligned: return "misaligned";
    case verify_failure_kind::bad_start_partition: return "bad_start_partition";
    case verify_failure_kind::crosses_bank: return "crosses_bank";
    case verify_failure_kind::clobbered_read: return "clobbered_read";
    case verify_failure_kind::clobbered_output: return "clobbered_output";
    case verify_failure_kind::undefined_read: return "undefined_read";
    case verify_failure_kind::shared_mismatch: return "shared_mismatch";
    case verify_failure_kind::shared_overlap: return "shared_overlap";
    case verify_failure_kind::linked_overlap: return "linked_overlap";
    case verify_failure_kind::in_place: return "in_place";
    case verify_failure_kind::geometry_rule: return "geometry_rule";
  }
  return "?";
}

struct verify_failure {
  verify_failure_kind kind = verify_failure_kind::unplaced;
  std::string function;  // the function the tensor belongs to
  std::string tensor;    // its name, without the leading '%'
  source_loc loc;        // the reading instruction, the clobbering write (outputs), or the declaration
  std::string message;   // what is wrong, naming the other tensor involved when there is one
};

struct verify_options {
  std::uint64_t max_trips = 3;  // a loop is simulated min(trips, max_trips) times (2 already sees every
                                // loop-carried hazard; 3 is a margin). 0 is taken as 1.
  bool linked = false;          // after the post-link step: DRAM of different functions shares one space
  bool allow_in_place = false;  // let an output overlap an input of its own instruction (a target
                                // property; docs/HARDWARE.md section 6 asks for conservative by default)
  std::uint64_t max_steps = std::uint64_t{1} << 22;  // simulated instructions per function before loops
                                                     // (outermost first) are cut down to one iteration
  place_rules rules = {};  // what the memories' geometries allow beyond the target (a user's geometry:
                           // `rules.use(g)`); a place they refuse is a geometry_rule failure
};

struct verify_report {
  std::vector<verify_failure> failures;
  std::uint64_t steps = 0;            // instructions simulated, all functions together
  std::uint64_t loops_shortened = 0;  // loops run fewer than min(trips, max_trips) times (max_steps)

  bool ok() const noexcept { return failures.empty(); }
  std::size_t count(verify_failure_kind k) const noexcept {
    return static_cast<std::size_t>(
        std::count_if(failures.begin(), failures.end(), [&](const verify_failure& f) { return f.kind == k; }));
  }
  /// One line per failure: "function 'f', tensor %x, line N: <kind>: <message>".
  template <class = void>
  std::string message() const {
    std::string s;
    for (const verify_failure& f : failures) {
      s += "function '" + f.function + "', tensor %" + f.tensor + ", line " + std::to_string(f.loc.line) +
           ": " + std::string(to_string(f.kind)) + ": " + f.message + '\n';
    }
    return s;
  }
};

namespace detail::verify_impl {

/// What one byte range of the shadow holds: a value id, the tensor whose write put it there (the
/// value's bytes are laid out from that tensor's placement) and the writing instruction.
struct cell {
  std::uint64_t value = 0;
  tensor_id writer = no_tensor;
  inst_id inst = no_inst;  // no_inst: written at function entry (an input or a shared buffer)
};

/// A map from disjoint half-open byte ranges [lo, hi) to cells. Assigning a range costs O(log n)
/// amortized (each assignment inserts at most three segments; erased ones were inserted before), so the
/// shadow of a 200 KB partition costs what the writes into it cost, not what its bytes cost.
class segment_map {
 public:
  struct seg {
    std::uint64_t hi;
    cell c;
  };

  template <class = void>
  void assign(std::uint64_t lo, std::uint64_t hi, const cell& c) {
    auto it = map_.lower_bound(lo);
    // Fast path: rewriting exactly one existing segment (a tensor written again, or the next tensor
    // of the same size in a reused slot) is the common case and needs no node allocation.
    if (it != map_.end() && it->first == lo && it->second.hi == hi) {
      it->second.c = c;
      return;
    }
    if (it != map_.begin()) {
      auto p = std::prev(it);
      if (p->second.hi > lo) {  // a segment starting before lo reaches into [lo, hi): keep its head
        const seg old = p->second;
        p->second.hi = lo;
        if (old.hi > hi) map_.emplace_hint(it, hi, old);  // ... and its tail beyond hi
      }
    }
    while (it != map_.end() && it->first < hi) {
      if (it->second.hi > hi) {  // the last one reaches past hi: keep its tail
        const seg tail = it->second;
        it = map_.erase(it);
        it = map_.emplace_hint(it, hi, tail);
        break;
      }
      it = map_.erase(it);
    }
    map_.emplace_hint(it, lo, seg{hi, c});
  }

  /// Calls visit(lo, hi, cell*) for each piece of [lo, hi) in order; cell* is null for a gap (never
  /// written). Stops early when visit returns false.
  template <class Visit>
  void scan(std::uint64_t lo, std::uint64_t hi, Visit&& visit) const {
    auto it = map_.upper_bound(lo);
    if (it != map_.begin() && std::prev(it)->second.hi > lo) --it;
    std::uint64_t at = lo;
    while (at < hi) {
      if (it == map_.end() || it->first >= hi) {
        visit(at, hi, static_cast<const cell*>(nullptr));
        return;
      }
      if (it->first > at) {
        if (!visit(at, it->first, static_cast<const cell*>(nullptr))) return;
        at = it->first;
      }
      const std::uint64_t end = std::min(hi, it->second.hi);
      if (!visit(at, end, &it->second.c)) return;
      at = end;
      ++it;
    }
  }

 private:
  std::map<std::uint64_t, seg> map_;
};

/// The rectangle (or range) a placed tensor occupies: partitions [p0, p1) x bytes [b0, b1). DRAM uses
/// partition 0 and byte addresses; REG uses partition 0 and [register, register + 1).
struct region {
  std::uint32_t p0 = 0, p1 = 0;
  std::uint64_t b0 = 0, b1 = 0;
  bool simulated = false;  // placed and in bounds: it takes part in the simulation
};

inline bool overlap(const region& a, const region& b) noexcept {
  return a.p0 < b.p1 && b.p0 < a.p1 && a.b0 < b.b1 && b.b0 < a.b1;
}

inline std::size_t memory_index(const tensor& x) noexcept { return static_cast<std::size_t>(x.memory); }

inline std::string line_of(const instruction* i) {
  return i == nullptr ? std::string("entry") : "line " + std::to_string(i->loc.line);
}

/// Saturating arithmetic for the step plan: a deep nest's product of trip counts overflows 64 bits.
template <class = void>
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// ---- the step plan: how many times each loop is simulated (shared with verify/translation.hpp) -----

/// Every loop wants min(trips, max_trips) iterations. Simulating all of them costs the product of
/// those counts down each nest, which a deep nest makes astronomic, so loops are granted their
/// iterations innermost first (deepest, then program order) while the function's total stays within
/// max_steps; the rest run once. Running a loop fewer times than it really runs never invents a
/// failure: after k >= 1 iterations every byte's last writer is the same instruction as after any
/// other k >= 1, so what follows sees the same picture; only later iterations' own reads go unchecked.
template <class = void>
std::vector<std::uint64_t> plan_iterations(const function& f, const verify_options& opt,
                                          std::uint64_t& shortened) {
  const std::size_t n = f.insts.size();
  std::vector<std::uint64_t> iters(n, 1), body_cost(n, 0);
  std::vector<std::uint32_t> depth(n, 0);
  std::vector<inst_id> loops;
  const std::vector<inst_id> parent = loop_parents(f);
  for (inst_id i = 0; i < n; ++i) {
    if (parent[i] != no_inst) depth[i] = depth[parent[i]] + 1;  // parents precede their bodies
    if (f.insts[i].is_loop()) loops.push_back(i);
  }
  std::stable_sort(loops.begin(), loops.end(), [&](inst_id a, inst_id b) { return depth[a] > depth[b]; });
  const std::uint64_t cap = std::max<std::uint64_t>(opt.max_trips, 1);
  std::uint64_t total = n;  // every instruction once
  for (inst_id l : loops) {
    // One pass over the body, counting nested loops at their granted iterations (already decided:
    // they are deeper). Walking direct children only keeps this linear over the function.
    std::uint64_t cost = 0;
    for (inst_id i = l + 1; i < f.insts[l].end; i = f.insts[i].end) {
      cost = sat_add(cost, 1);
      if (f.insts[i].is_loop()) cost = sat_add(cost, sat_mul(iters[i], body_cost[i]));
    }
    body_cost[l] = cost;
    const std::uint64_t want = std::min(f.insts[l].trips, cap);
    const std::uint64_t grown = sat_add(total, sat_mul(want - 1, cost));
    if (grown <= opt.max_steps) {
      iters[l] = want;
      total = grown;
    } else if (want > 1) {
      ++shortened;
    }
  }
  return iters;
}

/// One shadow per memory: the partitions cut into bands, one byte map per band.
struct shadow {
  std::vector<std::uint32_t> bounds;  // partition band boundaries (sorted, unique)
  std::vector<segment_map> bands;     // one byte map per band [bounds[k], bounds[k+1])
};

/// Lays out the shadows of function f for the tensor regions `reg` (only simulated ones take part): per
/// tensor the bands it covers, and whether it is `alone` (no other region
/// overlaps it, so it needs no shadow).
template <class = void>
void layout_shadows(const function& f, const std::vector<region>& reg, std::vector<shadow>& mem,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& band_range,
                    std::vector<char>& alone) {
  const std::size_t n = f.tensors.size();
  std::size_t memories = 4;  // the four, and every memory a target adds that a tensor lives in
  for (const tensor& x : f.tensors) memories = std::max(memories, memory_index(x) + 1);
  mem.assign(memories, shadow{});
  band_range.assign(n, {0, 0});
  for (tensor_id t = 0; t < n; ++t)
    if (reg[t].simulated) {
      shadow& s = mem[memory_index(f.tensors[t])];
      s.bounds.push_back(reg[t].p0);
      s.bounds.push_back(reg[t].p1);
    }
  // Partition bands: cut the partitions at every tensor's first and one-past-last partition, so each
  // band is covered entirely or not at all by every tensor and one byte map per band is exact. Most
  // programs use few distinct partition ranges, hence few bands.
  for (shadow& s : mem) {
    std::sort(s.bounds.begin(), s.bounds.end());
    s.bounds.erase(std::unique(s.bounds.begin(), s.bounds.end()), s.bounds.end());
    s.bands.resize(s.bounds.size() < 2 ? 0 : s.bounds.size() - 1);
  }
  for (tensor_id t = 0; t < n; ++t) {
    if (!reg[t].simulated) continue;
    const auto& b = mem[memory_index(f.tensors[t])].bounds;
    const auto lo = std::lower_bound(b.begin(), b.end(), reg[t].p0) - b.begin();
    const auto hi = std::lower_bound(b.begin(), b.end(), reg[t].p1) - b.begin();
    band_range[t] = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi)};
  }
  // Tensors whose region no other tensor touches (per band: sorted by first byte, a range overlaps
  // an earlier one iff it starts before their furthest end, a later one iff it ends after the next
  // start) need no shadow at all. Exact, and it keeps big resident tensors (weights, I/O) free.
  alone.assign(n, 1);
  for (std::size_t mi = 0; mi < mem.size(); ++mi) {
    std::vector<std::vector<tensor_id>> members(mem[mi].bands.size());
    for (tensor_id t = 0; t < n; ++t)
      if (reg[t].simulated && memory_index(f.tensors[t]) == mi)
        for (std::uint32_t b = band_range[t].first; b < band_range[t].second; ++b) members[b].push_back(t);
    for (auto& v : members) {
      std::sort(v.begin(), v.end(), [&](tensor_id a, tensor_id b) { return reg[a].b0 < reg[b].b0; });
      std::uint64_t furthest = 0;
      for (std::size_t k = 0; k < v.size(); ++k) {
        const region& g = reg[v[k]];
        if ((k > 0 && g.b0 < furthest) || (k + 1 < v.size() && reg[v[k + 1]].b0 < g.b1)) alone[v[k]] = 0;
        furthest = std::max(furthest, g.b1);
      }
    }
  }
}

template <class = void>
class checker {
 public:
  checker(const module& m, const verify_options& opt, verify_report& r) : m_(m), opt_(opt), r_(r) {}

  void run() {
    for (const function& f : m_.functions) run_function(f);
    cross_function();
  }

 private:
  const module& m_;
  const verify_options& opt_;
  verify_report& r_;

  void fail(verify_failure_kind k, const function& f, const tensor& x, source_loc loc, std::string msg) {
    r_.failures.push_back({k, f.name, x.name, loc, std::move(msg)});
  }

  // ---- static part: one tensor against the target ------------------------------------------------

  /// Re-derives the target rules from target fields alone (no ir/validate.hpp helpers), records every
  /// rule the tensor breaks, and returns the tensor's region (simulated only if placed and in bounds).
  region check_tensor(const function& f, const tensor& x) {
    const target& t = m_.tgt;
    region g;
    if (!x.at) {
      fail(verify_failure_kind::unplaced, f, x, x.loc, "has no placement");
      return g;
    }
    if (!opt_.rules.allows(x)) fail(verify_failure_kind::geometry_rule, f, x, x.loc, place_rule_problem(m_.tgt, x));
    const placement& p = *x.at;
    const extent& e = x.shape;
    if (e.bytes == 0 || e.partitions == 0) return g;  // occupies nothing: nothing to simulate
    switch (x.memory) {
      case memory_type::sb:
        return check_rectangle(f, x, t.sb_partitions, t.sb_usable, t.sb_alignment, "SB");
      case memory_type::psum: {
        const std::uint64_t cap = std::uint64_t{t.psum_banks} * t.psum_bank_bytes;
        g = check_rectangle(f, x, t.sb_partitions, cap, t.psum_alignment, "PSUM");
        // Judged whenever its bytes are inside PSUM, whatever its partitions (as before check_rectangle).
        const bool bytes_inside = p.offset <= cap && e.bytes <= cap - p.offset;
        if (bytes_inside && !t.psum_may_span_banks && t.psum_bank_bytes != 0 &&
            p.offset / t.psum_bank_bytes != (p.offset + e.bytes - 1) / t.psum_bank_bytes)
          fail(verify_failure_kind::crosses_bank, f, x, x.loc,
               "PSUM bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) +
                   " cross a " + std::to_string(t.psum_bank_bytes) + "-byte bank boundary");
        return g;
      }
      case memory_type::dram: return check_linear(f, x, t.dram_bytes, t.dram_alignment, "DRAM");
      case memory_type::reg: {
        if (p.partition != 0 || p.offset >= t.registers) {
          fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
               "register r" + std::to_string(p.offset) + " does not exist (the target has " +
                   std::to_string(t.registers) + ")");
          return g;
        }
        g = {0, 1, p.offset, p.offset + 1, true};
        return g;
      }
    }
    const memory_spec* s = user_memory(t, x.memory);
    if (s == nullptr) {
      fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
           "lives in memory " + std::to_string(static_cast<unsigned>(x.memory)) + ", which the target does not have");
      return g;
    }
    if (s->partitions == 1) return check_linear(f, x, s->bytes, s->alignment, std::string(s->log_name));
    return check_rectangle(f, x, s->partitions, s->bytes, s->alignment, std::string(s->log_name));
  }

  /// A rectangle memory (SB, PSUM, a target's own): the tensor's partitions inside the memory's, its
  /// start a multiple of the smallest quadrant group (32, 64, 128) that holds it (>64 partitions -> 0;
  /// 33..64 -> 0, 64; 1..32 -> 0, 32, 64, 96), an aligned offset, its bytes inside each partition's.
  region check_rectangle(const function& f, const tensor& x, std::uint32_t partitions, std::uint64_t bytes,
                         std::uint64_t align, const std::string& name) {
    const placement& p = *x.at;
    const extent& e = x.shape;
    bool in_bounds = true;
    if (std::uint64_t{p.partition} + e.partitions > partitions) {
      in_bounds = false;
      fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
           "partitions " + std::to_string(p.partition) + ".." +
               std::to_string(std::uint64_t{p.partition} + e.partitions - 1) + " exceed the " +
               std::to_string(partitions) + " of " + name);
    }
    const std::uint32_t step = e.partitions > 64 ? 128 : e.partitions > 32 ? 64 : 32;
    if (p.partition % step != 0)
      fail(verify_failure_kind::bad_start_partition, f, x, x.loc,
           std::to_string(e.partitions) + " partitions may not start at partition " + std::to_string(p.partition) +
               " (a multiple of " + std::to_string(step) + " is required)");
    if (align > 1 && p.offset % align != 0)
      fail(verify_failure_kind::misaligned, f, x, x.loc,
           "byte offset " + std::to_string(p.offset) + " is not a multiple of " + std::to_string(align));
    if (p.offset > bytes || e.bytes > bytes - p.offset) {
      in_bounds = false;
      fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
           "bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) + " exceed the " +
               std::to_string(bytes) + " bytes per partition of " + name);
    }
    return {p.partition, p.partition + e.partitions, p.offset, p.offset + e.bytes, in_bounds};
  }

  /// A linear memory (DRAM, a target's own): partition 0, an aligned address, inside its bytes.
  region check_linear(const function& f, const tensor& x, std::uint64_t bytes, std::uint64_t align,
                      const std::string& name) {
    const placement& p = *x.at;
    const extent& e = x.shape;
    bool in_bounds = true;
    if (p.partition != 0) {
      in_bounds = false;
      fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
           "a " + name + " placement has no partition (got " + std::to_string(p.partition) + ")");
    }
    if (align > 1 && p.offset % align != 0)
      fail(verify_failure_kind::misaligned, f, x, x.loc,
           name + " address " + std::to_string(p.offset) + " is not a multiple of " + std::to_string(align));
    if (p.offset > bytes || e.bytes > bytes - p.offset) {
      in_bounds = false;
      fail(verify_failure_kind::out_of_bounds, f, x, x.loc,
           name + " bytes " + std::to_string(p.offset) + ".." + std::to_string(p.offset + e.bytes - 1) +
               " exceed the " + std::to_string(bytes) + "-byte " + name);
    }
    return {0, 1, p.offset, p.offset + e.bytes, in_bounds};
  }

  std::vector<std::uint64_t> plan(const function& f) { return plan_iterations(f, opt_, r_.loops_shortened); }

  // ---- dynamic part: the simulation --------------------------------------------------------------

  const function* f_ = nullptr;
  std::vector<region> reg_;                        // per tensor
  std::vector<std::pair<std::uint32_t, std::uint32_t>> band_range_;  // per tensor: bands it covers
  std::vector<char> alone_;  // per tensor: no other tensor's region overlaps it (needs no shadow)
  std::vector<shadow> mem_;  // per memory
  std::vector<std::uint64_t> cur_;                 // per tensor: its latest value in program semantics
  std::vector<inst_id> last_write_;                // per tensor: the instruction of that write
  std::uint64_t next_value_ = 1;                   // 0 means "never written"
  std::set<std::tuple<std::uint8_t, inst_id, tensor_id>> reported_;  // one report per (kind, inst, tensor)

  bool first_report(verify_failure_kind k, inst_id i, tensor_id t) {
    return reported_.emplace(static_cast<std::uint8_t>(k), i, t).second;
  }

  void write(tensor_id t, std::uint64_t value, inst_id at) {
    cur_[t] = value;
    last_write_[t] = at;
    if (!reg_[t].simulated || alone_[t]) return;
    shadow& s = mem_[memory_index(f_->tensors[t])];
    const cell c{value, t, at};
    for (std::uint32_t b = band_range_[t].first; b < band_range_[t].second; ++b)
      s.bands[b].assign(reg_[t].b0, reg_[t].b1, c);
  }

  /// Does tensor t's whole region hold t's latest value, laid out from t's own placement? Returns the
  /// first cell that does not (or a null cell for bytes never written) through `bad`.
  bool holds(tensor_id t, const cell*& bad, bool& gap) const {
    // A tensor nothing else overlaps can only hold what its own latest write put there.
    if (!reg_[t].simulated || alone_[t]) return true;
    const shadow& s = mem_[memory_index(f_->tensors[t])];
    const std::uint64_t want = cur_[t];
    const placement& at = *f_->tensors[t].at;
    bool good = true;
    for (std::uint32_t b = band_range_[t].first; good && b < band_range_[t].second; ++b)
      s.bands[b].scan(reg_[t].b0, reg_[t].b1, [&](std::uint64_t, std::uint64_t, const cell* c) {
        // Same value id is not enough: a copy of the value placed elsewhere that overlaps this region
        // puts the value's bytes at other addresses. The writer's placement must equal t's.
        if (c != nullptr && c->value == want && *f_->tensors[c->writer].at == at) return true;
        good = false;
        bad = c;
        gap = c == nullptr;
        return false;
      });
    return good;
  }

  std::string describe_clobber(tensor_id t, const cell* bad, bool gap) const {
    const function& f = *f_;
    const std::string wrote = last_write_[t] == no_inst ? std::string("it held at entry")
                                                        : "written at " + line_of(&f.insts[last_write_[t]]);
    if (gap || bad == nullptr) return "its value (" + wrote + ") is missing: part of its region was never written";
    const tensor& w = f.tensors[bad->writer];
    const std::string by = "%" + w.name + " (" + line_of(bad->inst == no_inst ? nullptr : &f.insts[bad->inst]) + ")";
    if (bad->value == cur_[t])
      return "its value (" + wrote + ") was overwritten by a copy of the same value laid out from another "
             "placement, through " + by;
    return "its value (" + wrote + ") was overwritten by the write to " + by;
  }

  void read(tensor_id t, inst_id at) {
    const function& f = *f_;
    const tensor& x = f.tensors[t];
    if (cur_[t] == 0) {
      if (first_report(verify_failure_kind::undefined_read, at, t))
        fail(verify_failure_kind::undefined_read, f, x, f.insts[at].loc, "is read before anything wrote it");
      return;
    }
    const cell* bad = nullptr;
    bool gap = false;
    if (!holds(t, bad, gap) && first_report(verify_failure_kind::clobbered_read, at, t))
      fail(verify_failure_kind::clobbered_read, f, x, f.insts[at].loc, "read here, but " + describe_clobber(t, bad, gap));
  }

  void check_in_place(inst_id k) {
    const function& f = *f_;
    const instruction& i = f.insts[k];
    auto against = [&](tensor_id o, tensor_id in) {
      if (o == in || !reg_[o].simulated || !reg_[in].simulated) return;
      const tensor& a = f.tensors[o];
      const tensor& b = f.tensors[in];
      if (a.memory != b.memory || !overlap(reg_[o], reg_[in])) return;
      // A move onto the very same placement rewrites the bytes already there: always safe.
      if (op::is_move(i.opcode) && *a.at == *b.at) return;
      if (first_report(verify_failure_kind::in_place, k, o))
        fail(verify_failure_kind::in_place, f, a, i.loc,
             "written in place over %" + b.name + ", an input of the same instruction");
    };
    for (tensor_id o : f.outputs(i)) {
      for (tensor_id in : f.inputs(i)) against(o, in);
      if (i.rmw)
        for (tensor_id o2 : f.outputs(i)) against(o, o2);
    }
  }

  void execute(inst_id k) {
    const function& f = *f_;
    const instruction& i = f.insts[k];
    // All reads first (inputs, then the outputs of a `+=`), then the writes.
    for (tensor_id t : f.inputs(i)) read(t, k);
    if (i.rmw)
      for (tensor_id t : f.outputs(i)) read(t, k);
    if (!opt_.allow_in_place) check_in_place(k);
    const bool move = op::is_move(i.opcode) && i.n_inputs == 1 && i.n_outputs == 1;
    std::uint64_t moved = move ? cur_[f.inputs(i)[0]] : 0;
    for (tensor_id t : f.outputs(i)) write(t, moved != 0 ? moved : next_value_++, k);
  }

  void setup(const function& f) {
    f_ = &f;
    const std::size_t n = f.tensors.size();
    reg_.assign(n, {});
    cur_.assign(n, 0);
    last_write_.assign(n, no_inst);
    reported_.clear();
    for (tensor_id t = 0; t < n; ++t) reg_[t] = check_tensor(f, f.tensors[t]);
    layout_shadows(f, reg_, mem_, band_range_, alone_);
  }

  void run_function(const function& f) {
    setup(f);
    // Entry: inputs hold their values, in declaration order. A dram.shared buffer may have been
    // written by another core, which runs concurrently: treat it as holding a value too (the
    // cross-function rules keep every other tensor off it).
    for (tensor_id t = 0; t < f.tensors.size(); ++t) {
      const tensor& x = f.tensors[t];
      if (x.kind == tensor_kind::input || (x.memory == memory_type::dram && x.space == address_space::shared))
        write(t, next_value_++, no_inst);
    }
    const std::vector<std::uint64_t> iters = plan(f);
    struct frame {
      inst_id loop;
      std::uint64_t left;  // iterations still to run after the current one
    };
    std::vector<frame> stack;  // explicit: nests may be thousands deep
    const auto n = static_cast<inst_id>(f.insts.size());
    inst_id pc = 0;
    for (;;) {
      while (!stack.empty() && pc == f.insts[stack.back().loop].end) {
        if (stack.back().left > 0) {
          --stack.back().left;
          pc = stack.back().loop + 1;
        } else {
          stack.pop_back();
        }
      }
      if (pc >= n) break;
      ++r_.steps;
      if (f.insts[pc].is_loop()) {
        stack.push_back({pc, iters[pc] - 1});
        ++pc;
        continue;
      }
      execute(pc);
      ++pc;
    }
    // Exit: every output must still hold its latest value.
    for (tensor_id t = 0; t < f.tensors.size(); ++t) {
      const tensor& x = f.tensors[t];
      if (x.kind != tensor_kind::output || cur_[t] == 0) continue;
      const cell* bad = nullptr;
      bool gap = false;
      if (holds(t, bad, gap)) continue;
      const source_loc at = bad != nullptr && bad->inst != no_inst ? f.insts[bad->inst].loc : x.loc;
      fail(verify_failure_kind::clobbered_output, f, x, at, "at exit, " + describe_clobber(t, bad, gap));
    }
    f_ = nullptr;
  }

  // ---- cross-function rules ----------------------------------------------------------------------

  struct dram_item {
    std::uint64_t lo, hi;
    std::uint32_t fn;
    tensor_id t;
    bool shared;
  };

  static std::string dram_range(const dram_item& d) {
    return std::to_string(d.lo) + ".." + std::to_string(d.hi - 1);
  }

  void cross_function() {
    shared_names_agree();
    dram_overlaps();
  }

  /// Shared names: one buffer, so one size and one placement everywhere.
  void shared_names_agree() {
    std::map<std::string, std::pair<std::uint32_t, tensor_id>> first;
    for (std::uint32_t fi = 0; fi < m_.functions.size(); ++fi) {
      const function& f = m_.functions[fi];
      for (tensor_id t = 0; t < f.tensors.size(); ++t) {
        const tensor& x = f.tensors[t];
        if (x.memory != memory_type::dram || x.space != address_space::shared) continue;
        auto [it, fresh] = first.emplace(x.name, std::pair{fi, t});
        if (fresh) continue;
        const function& g = m_.functions[it->second.first];
        const tensor& y = g.tensors[it->second.second];
        if (y.shape != x.shape)
          fail(verify_failure_kind::shared_mismatch, f, x, x.loc,
               "shared buffer has " + std::to_string(x.shape.bytes) + " bytes here but " +
                   std::to_string(y.shape.bytes) + " in function '" + g.name + "'");
        else if (x.at && y.at && *x.at != *y.at)
          fail(verify_failure_kind::shared_mismatch, f, x, x.loc,
               "shared buffer is at " + std::to_string(x.at->offset) + " here but at " +
                   std::to_string(y.at->offset) + " in function '" + g.name + "'");
      }
    }
  }

  /// Every placed DRAM range of the module within bounds (out-of-bounds ones are failures already),
  /// sorted by start.
  std::vector<dram_item> dram_items() const {
    std::vector<dram_item> items;
    for (std::uint32_t fi = 0; fi < m_.functions.size(); ++fi) {
      const function& f = m_.functions[fi];
      for (tensor_id t = 0; t < f.tensors.size(); ++t) {
        const tensor& x = f.tensors[t];
        if (x.memory != memory_type::dram || !x.at || x.shape.bytes == 0 || x.at->partition != 0) continue;
        if (x.at->offset > m_.tgt.dram_bytes || x.shape.bytes > m_.tgt.dram_bytes - x.at->offset) continue;
        items.push_back({x.at->offset, x.at->offset + x.shape.bytes, fi, t, x.space == address_space::shared});
      }
    }
    std::sort(items.begin(), items.end(), [](const dram_item& a, const dram_item& b) {
      return std::tie(a.lo, a.fn, a.t) < std::tie(b.lo, b.fn, b.t);
    });
    return items;
  }

  /// Overlaps, by a sweep over DRAM ranges sorted by start: when a range arrives, every range still
  /// active (ending after its start) overlaps it, so counters per class tell at once whether a
  /// forbidden partner exists. Each arriving range reports at most one partner per rule, which keeps
  /// a badly broken module from producing a quadratic number of lines.
  void dram_overlaps() {
    const std::vector<dram_item> items = dram_items();
    auto name_of = [&](const dram_item& d) -> const std::string& { return m_.functions[d.fn].tensors[d.t].name; };
    std::multimap<std::uint64_t, std::size_t> active;  // end -> item
    std::map<std::string, std::size_t> shared_by_name;
    std::vector<std::size_t> local_by_fn(m_.functions.size(), 0);
    std::size_t n_shared = 0, n_local = 0;
    auto report = [&](verify_failure_kind k, const dram_item& a, const dram_item& b) {
      const function& fa = m_.functions[a.fn];
      const tensor& x = fa.tensors[a.t];
      fail(k, fa, x, x.loc,
           "DRAM bytes " + dram_range(a) + " overlap %" + name_of(b) + " of function '" + m_.functions[b.fn].name +
               "' (bytes " + dram_range(b) + ")" +
               (k == verify_failure_kind::linked_overlap ? "; after linking, cores share one address space" : ""));
    };
    for (const dram_item& d : items) {
      while (!active.empty() && active.begin()->first <= d.lo) {
        const dram_item& gone = items[active.begin()->second];
        if (gone.shared) {
          --n_shared;
          --shared_by_name[name_of(gone)];
        } else {
          --n_local;
          --local_by_fn[gone.fn];
        }
        active.erase(active.begin());
      }
      auto partner = [&](auto&& accept) -> const dram_item* {
        for (const auto& [end, idx] : active)
          if (accept(items[idx])) return &items[idx];
        return nullptr;
      };
      const std::size_t same_name = d.shared ? shared_by_name[name_of(d)] : 0;
      if (d.shared && n_shared + n_local > same_name) {
        // A shared buffer may meet only its own instances (same name) in other functions.
        if (const dram_item* p = partner([&](const dram_item& o) { return !o.shared || name_of(o) != name_of(d); }))
          report(verify_failure_kind::shared_overlap, d, *p);
      } else if (!d.shared && n_shared > 0) {
        if (const dram_item* p = partner([](const dram_item& o) { return o.shared; }))
          report(verify_failure_kind::shared_overlap, *p, d);  // the rule is about the shared buffer
      }
      if (opt_.linked && !d.shared && n_local > local_by_fn[d.fn]) {
        if (const dram_item* p = partner([&](const dram_item& o) { return !o.shared && o.fn != d.fn; }))
          report(verify_failure_kind::linked_overlap, d, *p);
      }
      const std::size_t idx = static_cast<std::size_t>(&d - items.data());
      active.emplace(d.hi, idx);
      if (d.shared) {
        ++n_shared;
        ++shared_by_name[name_of(d)];
      } else {
        ++n_local;
        ++local_by_fn[d.fn];
      }
    }
  }
};

}  // namespace detail::verify_impl

/// Checks an allocated module: placements against the target, then a simulation of every function
/// (loops run min(trips, max_trips) times within opt.max_steps), then the cross-function DRAM rules.
/// Never throws on a bad allocation: every problem is a failure in the report. The module must be
/// structurally valid (ir/validate.hpp); operand ids out of range are the caller's error.
template <class = void>
[[nodiscard]] verify_report verify(const module& m, verify_options opt = {}) {
  verify_report r;
  detail::verify_impl::checker c(m, opt, r);
  c.run();
  return r;
}

/// The compiled mode (gca/compiled.hpp) compiles the verifier once, into the gca_compiled library, as
/// it does the parser (ir/parser.hpp); gca/compiled.cpp expands the same list as the definition.
#define GCA_COMPILED_VERIFY(Prefix) \
  Prefix template verify_report verify<void>(const module&, verify_options);
#ifdef GCA_COMPILED
GCA_COMPILED_VERIFY(extern)
#endif

}  // namespace gca
