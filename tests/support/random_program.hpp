// tests/support/random_program.hpp — a seeded generator of valid random modules for tests.
//
// Provides `gca::test::random_program(options)`: a `gca::module` of several cores built from one
// std::mt19937_64 seeded explicitly, so a seed names one program on every platform (draws use `rng() % n`,
// never the implementation-defined std distributions). Every module it returns passes gca::validate and
// gca::static_check: the generator never writes a tensor whose latest value has not been read yet and
// only reads tensors already written, then reads everything still pending at the end. It produces nested
// loops, loop-carried values (defined before a loop, read at the top of the body, redefined at its
// bottom), PSUM accumulation groups (`%p = memset`, `%p += matmul` in a loop, read after), pinned tensors
// at valid, mutually disjoint placements, moves (load/store/copy/dma), rmw, multi-output instructions and
// dram.shared buffers declared by every core. Sizes follow the target's rules; `pressure` scales SB and
// PSUM sizes so that memories can be over-subscribed (> 1). The text is printed and parsed back so each
// instruction carries its real line number.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/validate.hpp>

namespace gca::test {

struct random_program_options {
  std::uint64_t seed = 1;
  target tgt = trn2;
  std::uint32_t functions = 2;            // cores (functions), each with core = its index
  std::uint32_t inputs = 2;               // DRAM `input` tensors per function (>= 1 is enforced)
  std::uint32_t outputs = 2;              // DRAM `output` tensors per function (>= 1 is enforced)
  std::uint32_t shared_tensors = 2;       // dram.shared names, declared by every function
  std::uint32_t dram_tensors = 3;         // local scratch DRAM tensors per function
  std::uint32_t sb_tensors = 8;           // per function (>= 2 is enforced)
  std::uint32_t psum_tensors = 3;         // per function
  std::uint32_t reg_tensors = 2;          // per function
  bool debug_tensor = true;               // one dram.debug output written by `print`
  std::uint32_t instructions = 60;        // non-loop instructions per function (approximately)
  std::uint32_t max_loop_depth = 3;       // deepest loop nest (0: straight-line code)
  std::uint64_t min_trips = 1, max_trips = 8;
  double pressure = 0.5;                  // sum of SB (PSUM) bytes per partition / capacity
  double pin_probability = 0.1;           // chance each tensor is pinned
  std::uint64_t dram_max_bytes = 1 << 20; // DRAM tensor sizes are 1 .. this
};

namespace detail {

class program_generator {
 public:
  explicit program_generator(const random_program_options& o) : o_(o), rng_(o.seed) {}

  module run() {
    module m;
    m.name = "random" + std::to_string(o_.seed);
    m.tgt = o_.tgt;
    shared_decls();
    for (std::uint32_t k = 0; k < std::max<std::uint32_t>(o_.functions, 1); ++k) {
      m.functions.emplace_back();
      build_function(m.functions.back(), k);
    }
    // Round trip through the text so that every tensor and instruction carries its real line.
    return parse(print(m), m.name + ".gca");
  }

 private:
  const random_program_options& o_;
  std::mt19937_64 rng_;

  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
  double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

  // ---- tensors ---------------------------------------------------------------------------------

  struct rect {
    memory_type mem;
    std::uint64_t p0, p1, b0, b1;
  };
  std::vector<rect> pins_;        // this function's SB/PSUM/REG pins (kept disjoint)
  std::vector<rect> dram_pins_;   // every DRAM pin of the module (kept disjoint module-wide)
  std::vector<tensor> shared_;    // one declaration per shared name, copied into every function

  static bool clash(const std::vector<rect>& v, const rect& r) {
    for (const rect& q : v)
      if (q.mem == r.mem && q.p0 < r.p1 && r.p0 < q.p1 && q.b0 < r.b1 && r.b0 < q.b1) return true;
    return false;
  }

  std::uint64_t dram_size() {
    std::uint64_t b = between(1, std::max<std::uint64_t>(o_.dram_max_bytes, 1));
    if (chance(0.8)) b = std::max<std::uint64_t>(64, b / 64 * 64);
    return std::min(b, o_.tgt.dram_bytes);
  }

  /// A valid placement for x disjoint from earlier pins, or nothing after a few attempts.
  std::optional<placement> pin_for(const tensor& x) {
    const target& t = o_.tgt;
    for (int attempt = 0; attempt < 8; ++attempt) {
      placement p;
      rect r{x.memory, 0, 1, 0, 0};
      switch (x.memory) {
        case memory_type::sb:
        case memory_type::psum: {
          const std::uint32_t step = partition_step(x.shape.partitions);
          const std::uint32_t starts = (t.sb_partitions - x.shape.partitions) / step + 1;
          p.partition = static_cast<std::uint32_t>(below(starts)) * step;
          const std::uint64_t align = alignment_of(t, x.memory);
          std::uint64_t lo = 0, hi = capacity_of(t, x.memory) - x.shape.bytes;  // offset range
          if (x.memory == memory_type::psum && !t.psum_may_span_banks) {
            lo = below(t.psum_banks) * t.psum_bank_bytes;
            hi = lo + t.psum_bank_bytes - x.shape.bytes;
          }
          p.offset = (lo + below(hi - lo + 1)) / align * align;
          if (p.offset < lo) continue;
          r = {x.memory, p.partition, p.partition + x.shape.partitions, p.offset, p.offset + x.shape.bytes};
          break;
        }
        case memory_type::dram:
          p.offset = below((std::uint64_t{1} << 30) / t.dram_alignment) * t.dram_alignment;
          r = {x.memory, 0, 1, p.offset, p.offset + x.shape.bytes};
          break;
        case memory_type::reg:
          p.offset = below(t.registers);
          r = {x.memory, 0, 1, p.offset, p.offset + 1};
          break;
      }
      std::vector<rect>& v = x.memory == memory_type::dram ? dram_pins_ : pins_;
      if (clash(v, r)) continue;
      v.push_back(r);
      return p;
    }
    return std::nullopt;
  }

  void shared_decls() {
    for (std::uint32_t k = 0; k < o_.shared_tensors; ++k) {
      tensor x;
      x.name = "sh" + std::to_string(k);
      x.memory = memory_type::dram;
      x.space = address_space::shared;
      x.shape = {1, dram_size()};
      x.kind = chance(0.3) ? tensor_kind::input : tensor_kind::internal;
      if (chance(o_.pin_probability)) x.at = pin_for(x);  // one placement, used by every core
      shared_.push_back(x);
    }
  }

  /// Per-partition sizes whose sum is about pressure x capacity, each within `cap_each`.
  std::vector<std::uint64_t> sizes(std::uint32_t n, std::uint64_t capacity, std::uint64_t cap_each,
                                   std::uint64_t multiple) {
    std::vector<double> w(n);
    double sum = 0;
    for (double& x : w) sum += (x = 0.2 + unit());
    std::vector<std::uint64_t> s(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      auto b = static_cast<std::uint64_t>(o_.pressure * static_cast<double>(capacity) * w[i] / sum);
      b = std::clamp<std::uint64_t>(b / multiple * multiple, multiple, cap_each / multiple * multiple);
      s[i] = b;
    }
    return s;
  }

  std::uint32_t partitions() {
    switch (below(6)) {
      case 0: case 1: case 2: return 128;
      case 3: return 64;
      case 4: return 32;
      default: return static_cast<std::uint32_t>(between(1, o_.tgt.sb_partitions));
    }
  }

  // ---- per-function program state ----------------------------------------------------------------

  function* f_ = nullptr;
  std::vector<tensor_id> ins_, outs_, shared_ids_, dram_, sb_, psum_, reg_;
  tensor_id dbg_ = no_tensor;
  std::vector<char> defined_, pending_, tracked_;  // pending: written, latest value not read yet
  std::vector<char> written_out_;
  std::uint32_t remaining_ = 0;
  std::uint32_t loop_names_ = 0;  // labels cycle through 8 names: interning is linear in distinct names

  struct frame {
    std::vector<tensor_id> carried;  // read at the top, redefined at the bottom
    std::uint32_t left = 0;          // instructions still to emit in this body
    std::uint32_t emitted = 0;
  };
  std::vector<frame> frames_;

  tensor_id declare(tensor x) {
    f_->tensors.push_back(std::move(x));
    return static_cast<tensor_id>(f_->tensors.size() - 1);
  }

  void build_function(function& f, std::uint32_t core) {
    f_ = &f;
    f.name = "core" + std::to_string(core);
    f.core = core;
    pins_.clear();
    ins_.clear(); outs_.clear(); shared_ids_.clear(); dram_.clear(); sb_.clear(); psum_.clear(); reg_.clear();
    dbg_ = no_tensor;
    const target& t = o_.tgt;
    auto dram = [&](std::string name, tensor_kind kind, address_space space) {
      tensor x;
      x.name = std::move(name);
      x.memory = memory_type::dram;
      x.space = space;
      x.kind = kind;
      x.shape = {1, dram_size()};
      if (chance(o_.pin_probability)) x.at = pin_for(x);
      return declare(std::move(x));
    };
    for (std::uint32_t k = 0; k < std::max<std::uint32_t>(o_.inputs, 1); ++k)
      ins_.push_back(dram("in" + std::to_string(k), tensor_kind::input, address_space::local));
    for (std::uint32_t k = 0; k < std::max<std::uint32_t>(o_.outputs, 1); ++k)
      outs_.push_back(dram("out" + std::to_string(k), tensor_kind::output, address_space::local));
    for (const tensor& x : shared_) shared_ids_.push_back(declare(x));
    for (std::uint32_t k = 0; k < o_.dram_tensors; ++k)
      dram_.push_back(dram("d" + std::to_string(k), tensor_kind::internal, address_space::local));
    if (o_.debug_tensor) dbg_ = dram("dbg", tensor_kind::output, address_space::debug);
    const std::uint32_t n_sb = std::max<std::uint32_t>(o_.sb_tensors, 2);
    const auto sb_sizes = sizes(n_sb, t.sb_usable, t.sb_usable, 1);
    for (std::uint32_t k = 0; k < n_sb; ++k) {
      tensor x;
      x.name = "s" + std::to_string(k);
      x.memory = memory_type::sb;
      x.shape = {partitions(), sb_sizes[k]};
      if (chance(o_.pin_probability)) x.at = pin_for(x);
      sb_.push_back(declare(std::move(x)));
    }
    const std::uint64_t psum_each = t.psum_may_span_banks ? t.psum_bytes() : t.psum_bank_bytes;
    const auto psum_sizes = sizes(o_.psum_tensors, t.psum_bytes(), psum_each, 4);
    for (std::uint32_t k = 0; k < o_.psum_tensors; ++k) {
      tensor x;
      x.name = "p" + std::to_string(k);
      x.memory = memory_type::psum;
      x.shape = {partitions(), psum_sizes[k]};
      if (chance(o_.pin_probability)) x.at = pin_for(x);
      psum_.push_back(declare(std::move(x)));
    }
    for (std::uint32_t k = 0; k < o_.reg_tensors; ++k) {
      tensor x;
      x.name = "r" + std::to_string(k);
      x.memory = memory_type::reg;
      x.shape = {1, 4};
      if (chance(o_.pin_probability)) x.at = pin_for(x);
      reg_.push_back(declare(std::move(x)));
    }
    const std::size_t n = f.tensors.size();
    defined_.assign(n, 0);
    pending_.assign(n, 0);
    tracked_.assign(n, 0);
    written_out_.assign(n, 0);
    for (tensor_id x : ins_) defined_[x] = 1;
    for (tensor_id x : shared_ids_) defined_[x] = 1;  // another core may have written it
    for (auto* pool : {&dram_, &sb_, &psum_, &reg_})
      for (tensor_id x : *pool) tracked_[x] = 1;
    body();
  }

  // ---- emission ----------------------------------------------------------------------------------

  void emit(const char* opcode, std::vector<tensor_id> outs, std::vector<tensor_id> ins, bool rmw = false) {
    for (tensor_id x : ins) pending_[x] = 0;
    if (rmw)
      for (tensor_id x : outs) pending_[x] = 0;
    for (tensor_id x : outs) {
      // The discipline that keeps static_check quiet: never kill a value nobody has read.
      if (pending_[x]) throw std::logic_error("generator bug: %" + f_->tensors[x].name + " written while pending");
      defined_[x] = 1;
      pending_[x] = tracked_[x];
      written_out_[x] = 1;
    }
    f_->add_instruction(f_->intern(opcode), outs, ins, rmw);
    if (remaining_ > 0) --remaining_;
    for (frame& fr : frames_) {
      if (fr.left > 0) --fr.left;
      ++fr.emitted;
    }
  }

  std::optional<tensor_id> writable(const std::vector<tensor_id>& pool, std::vector<tensor_id> except = {}) {
    std::vector<tensor_id> c;
    for (tensor_id x : pool)
      if (!pending_[x] && std::find(except.begin(), except.end(), x) == except.end()) c.push_back(x);
    if (c.empty()) return std::nullopt;
    return c[below(c.size())];
  }
  std::optional<tensor_id> readable(std::initializer_list<const std::vector<tensor_id>*> pools,
                                    std::vector<tensor_id> except = {}) {
    std::vector<tensor_id> c;
    for (const auto* pool : pools)
      for (tensor_id x : *pool)
        if (defined_[x] && std::find(except.begin(), except.end(), x) == except.end()) c.push_back(x);
    if (c.empty()) return std::nullopt;
    return c[below(c.size())];
  }
  tensor_id any_output() { return outs_[below(outs_.size())]; }

  // ---- statements: each returns false when the state does not allow it ----------------------------

  bool load() {
    auto dst = writable(sb_);
    if (!dst) return false;
    auto src = readable({&ins_, &shared_ids_, &dram_});
    emit(chance(0.8) ? "load" : "dma", {*dst}, {*src});  // inputs are always readable
    return true;
  }
  bool compute() {
    auto dst = writable(sb_);
    if (!dst) return false;
    std::vector<tensor_id> srcs;
    for (std::uint64_t k = between(1, 3); k > 0; --k)
      if (auto s = readable({&sb_, &psum_, &reg_}, srcs)) srcs.push_back(*s);
    if (srcs.empty()) return false;
    static const char* const ops[] = {"add", "mul", "act", "exp", "tanh"};
    emit(ops[below(5)], {*dst}, srcs);
    return true;
  }
  bool copy() {
    auto src = readable({&sb_, &psum_});
    if (!src) return false;
    auto dst = writable(sb_, {*src});
    if (!dst) return false;
    emit("copy", {*dst}, {*src});
    return true;
  }
  bool store() {
    auto src = readable({&sb_, &psum_});
    if (!src) return false;
    std::optional<tensor_id> dst;
    switch (below(3)) {
      case 0: dst = writable(dram_); break;
      case 1: if (!shared_ids_.empty()) dst = shared_ids_[below(shared_ids_.size())]; break;
      default: break;
    }
    emit("store", {dst ? *dst : any_output()}, {*src});
    return true;
  }
  bool dram_to_dram() {
    auto dst = writable(dram_);
    if (!dst) return false;
    emit("dma", {*dst}, {*readable({&ins_, &shared_ids_})});
    return true;
  }
  bool accumulate_in_place() {
    auto dst = readable({&sb_});
    if (!dst) return false;
    auto src = readable({&sb_, &psum_}, {*dst});
    if (!src) return false;
    emit("add", {*dst}, {*src}, true);
    return true;
  }
  bool registers() {
    if (reg_.empty()) return false;
    auto r = readable({&reg_});
    if (r && chance(0.5)) {
      emit("incr", {*r}, {*r});  // reads before it writes: a counter
      return true;
    }
    if (r && chance(0.5)) {
      auto s = readable({&sb_});
      auto d = writable(sb_);
      if (s && d) {
        emit("scale", {*d}, {*s, *r});
        return true;
      }
    }
    auto w = writable(reg_);
    if (!w) return false;
    emit("iota", {*w}, {});
    return true;
  }
  bool split() {
    auto src = readable({&sb_});
    if (!src) return false;
    auto a = writable(sb_);
    if (!a) return false;
    auto b = writable(sb_, {*a});
    if (!b) return false;
    emit("split", {*a, *b}, {*src});
    return true;
  }
  bool debug_print() {
    if (dbg_ == no_tensor) return false;
    auto src = readable({&sb_, &psum_});
    if (!src) return false;
    emit("print", {dbg_}, {*src});
    return true;
  }

  std::uint64_t trips() { return between(std::max<std::uint64_t>(o_.min_trips, 1), std::max(o_.max_trips, o_.min_trips)); }

  /// `%p = memset`, then `%p += matmul` in a loop (loading an operand inside when needed), then a read.
  bool accumulation_group() {
    if (frames_.size() + 1 > o_.max_loop_depth || remaining_ < 3) return false;
    auto p = writable(psum_);
    if (!p) return false;
    auto operand = readable({&sb_});
    auto reload = writable(sb_);
    if (!operand && !reload) return false;
    emit("memset", {*p}, {});
    f_->begin_loop(f_->intern("acc" + std::to_string(loop_names_++ % 8)), trips());
    tensor_id a;
    if (reload && (!operand || chance(0.5))) {
      emit("load", {*reload}, {ins_[below(ins_.size())]});
      a = *reload;
    } else {
      a = *operand;
    }
    auto b = readable({&sb_});
    emit("matmul", {*p}, {a, b ? *b : a}, true);
    f_->end_loop();
    auto dst = writable(sb_);
    if (dst && chance(0.7))
      emit("act", {*dst}, {*p});
    else
      emit("store", {any_output()}, {*p});
    return true;
  }

  bool open_loop() {
    if (frames_.size() >= o_.max_loop_depth || remaining_ < 4) return false;
    frame fr;
    fr.left = static_cast<std::uint32_t>(between(2, std::min<std::uint32_t>(remaining_, 16)));
    for (int k = 0; k < 2; ++k)
      if (auto c = readable({&sb_, &reg_}, fr.carried); c && chance(0.7)) fr.carried.push_back(*c);
    f_->begin_loop(f_->intern("L" + std::to_string(loop_names_++ % 8)), trips());
    frames_.push_back(fr);
    if (!fr.carried.empty()) {
      // The top of the body reads the carried values: in iterations 2.. it sees the bottom's write.
      auto dst = writable(sb_, fr.carried);
      if (dst)
        emit("mix", {*dst}, fr.carried);
      else
        emit("sink", {any_output()}, fr.carried);
    }
    return true;
  }

  void close_loop() {
    frame& fr = frames_.back();
    for (tensor_id c : fr.carried) {
      if (pending_[c]) emit("sink", {any_output()}, {c});
      auto src = readable({&sb_, &reg_}, {c});
      emit("next", {c}, {src ? *src : c});  // the bottom redefinition, live into the next iteration
    }
    if (fr.emitted == 0) emit("barrier", {}, {});
    frames_.pop_back();
    f_->end_loop();
  }

  void statement() {
    for (int attempt = 0; attempt < 6; ++attempt) {
      bool done = false;
      switch (below(14)) {
        case 0: case 1: done = load(); break;
        case 2: case 3: done = compute(); break;
        case 4: done = copy(); break;
        case 5: done = store(); break;
        case 6: done = dram_to_dram(); break;
        case 7: done = accumulate_in_place(); break;
        case 8: done = registers(); break;
        case 9: done = split(); break;
        case 10: done = debug_print(); break;
        case 11: done = accumulation_group(); break;
        case 12: case 13: done = open_loop(); break;
      }
      if (done) return;
    }
    // Always possible: read something pending into an output, or synchronize.
    for (tensor_id x = 0; x < pending_.size(); ++x)
      if (pending_[x]) {
        emit("store", {any_output()}, {x});
        return;
      }
    emit("barrier", {}, {});
  }

  void body() {
    remaining_ = std::max<std::uint32_t>(o_.instructions, 1);
    frames_.clear();
    while (remaining_ > 0) {
      if (!frames_.empty() && frames_.back().left == 0)
        close_loop();
      else
        statement();
    }
    while (!frames_.empty()) close_loop();
    // Read every value still pending (so no definition is dead), four per instruction.
    std::vector<tensor_id> left;
    for (tensor_id x = 0; x < pending_.size(); ++x)
      if (pending_[x]) left.push_back(x);
    for (std::size_t k = 0; k < left.size(); k += 4)
      emit("sink", {any_output()}, std::vector<tensor_id>(left.begin() + static_cast<std::ptrdiff_t>(k),
                                                            left.begin() + static_cast<std::ptrdiff_t>(std::min(k + 4, left.size()))));
    for (tensor_id o : outs_)
      if (!written_out_[o]) emit("store", {o}, {ins_[below(ins_.size())]});
  }
};

}  // namespace detail

/// A valid random module for `o` (deterministic in o.seed).
inline module random_program(const random_program_options& o) { return detail::program_generator(o).run(); }

}  // namespace gca::test
