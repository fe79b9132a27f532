// Tests of the independent verifier (gca/verify/verify.hpp) and of the random program generator
// (tests/support/random_program.hpp): hand-written allocated modules that are correct, the same modules
// broken on purpose once per failure kind, loop-carried hazards only a simulated loop can see, moves,
// rmw, deep nests, and generated programs under a trivially correct reference placement. Then the
// two-program form (gca/verify/translation.hpp): stored correct allocations of spilling kernels
// (tests/tool_inputs/*.O2.gca, *.O6.gca) verify, and the same allocations with their spill code broken
// on purpose are caught, each with its kind.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/static_check.hpp>
#include <gca/verify/translation.hpp>
#include <gca/verify/verify.hpp>

#include "support/random_program.hpp"

namespace {

using gca::verify_failure_kind;
using kind = gca::verify_failure_kind;

/// Is there a failure of kind k on tensor %t at line `line`?
bool has(const gca::verify_report& r, kind k, const std::string& t, std::uint32_t line) {
  for (const auto& f : r.failures)
    if (f.kind == k && f.tensor == t && f.loc.line == line) return true;
  return false;
}

gca::tensor& tensor_named(gca::module& m, const std::string& fn, const std::string& t) {
  for (auto& f : m.functions)
    if (f.name == fn) return f.tensors.at(f.find_tensor(t));
  throw std::logic_error("no function " + fn);
}

// A small correct allocation: line numbers below are those of this text.
const std::string base = R"(module m target=trn2
function f core=0 {
  tensor %x   : dram 4096 input @ 0
  tensor %x2  : dram 4096 input @ 4096
  tensor %y   : dram 4096 output @ 8192
  tensor %a   : sb 128x512 @ 0:0
  tensor %b   : sb 128x512 @ 0:512
  tensor %c   : sb 128x512 @ 0:1024
  tensor %acc : psum 128x2048 @ 0:0
  tensor %q   : psum 64x1024 @ 0:2048
  tensor %r   : reg @ r3
  %a = load %x
  %b = load %x2
  %acc = memset
  loop k 4 {
    %acc += matmul %a, %b
  }
  %r = iota
  %c = act %acc, %r
  %y = store %c
}
)";

}  // namespace

TEST_CASE("verify: a correct allocation is ok") {
  const gca::module m = gca::parse(base);
  const auto r = gca::verify(m);
  CHECK_MESSAGE(r.ok(), r.message());
  CHECK(r.message().empty());
  // 7 top-level instructions (the loop counts once) + the body's one instruction, 4 trips capped at 3.
  CHECK(r.steps == 7 + 3);
  CHECK(r.loops_shortened == 0);
}

TEST_CASE("verify: static failures, one per kind, naming tensor and line") {
  SUBCASE("unplaced") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "b").at.reset();
    const auto r = gca::verify(m);
    CHECK(has(r, kind::unplaced, "b", 7));
    CHECK(r.message().find("function 'f', tensor %b, line 7: unplaced:") != std::string::npos);
  }
  SUBCASE("out of bounds: SB bytes, partitions, DRAM, register") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "b").at = gca::placement{0, 212984 - 256};
    tensor_named(m, "f", "q").at = gca::placement{96, 2048};  // 64 partitions from 96 run past 128
    tensor_named(m, "f", "y").at = gca::placement{0, (std::uint64_t{24} << 30) - 2048};
    tensor_named(m, "f", "r").at = gca::placement{0, 64};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::out_of_bounds, "b", 7));
    CHECK(has(r, kind::out_of_bounds, "q", 10));
    CHECK(has(r, kind::out_of_bounds, "y", 5));
    CHECK(has(r, kind::out_of_bounds, "r", 11));
  }
  SUBCASE("misaligned") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "q").at = gca::placement{0, 2050};
    tensor_named(m, "f", "y").at = gca::placement{0, 8192 + 32};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::misaligned, "q", 10));
    CHECK(has(r, kind::misaligned, "y", 5));
    CHECK(r.count(kind::misaligned) == 2);
  }
  SUBCASE("bad start partition") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "q").at = gca::placement{32, 2048};  // 64 partitions: only 0 or 64
    const auto r = gca::verify(m);
    CHECK(has(r, kind::bad_start_partition, "q", 10));
    CHECK(r.count(kind::out_of_bounds) == 0);
  }
  SUBCASE("crosses a PSUM bank on trn2, not on trn3") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "q").at = gca::placement{0, 3072};  // bytes 3072..4095: inside bank 1
    CHECK(gca::verify(m).ok());
    tensor_named(m, "f", "q").at = gca::placement{0, 3584};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::crosses_bank, "q", 10));
    m.tgt = gca::trn3;
    CHECK(gca::verify(m).count(kind::crosses_bank) == 0);
  }
}

TEST_CASE("verify: dynamic failures, one per kind") {
  SUBCASE("clobbered read names the reader's line and the clobbering tensor") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "b").at = gca::placement{0, 0};  // onto %a, which is read with %b later
    const auto r = gca::verify(m);
    CHECK(has(r, kind::clobbered_read, "a", 16));
    CHECK(r.message().find("overwritten by the write to %b (line 13)") != std::string::npos);
  }
  SUBCASE("a register clobbered") {
    const std::string text = R"(module m target=trn1
function f core=0 {
  tensor %y : dram 64 output @ 0
  tensor %i : reg @ r5
  tensor %j : reg @ r5
  %i = iota
  %j = iota
  %y = add %i, %j
}
)";
    const auto r = gca::verify(gca::parse(text));
    CHECK(has(r, kind::clobbered_read, "i", 8));
    CHECK(r.failures.size() == 1);
  }
  SUBCASE("clobbered output: the line is the clobbering write") {
    const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %x : dram 4096 input @ 0
  tensor %y : dram 4096 output @ 4096
  tensor %d : dram 128 @ 4160
  tensor %a : sb 128x64 @ 0:0
  tensor %b : sb 128x64 @ 0:64
  %a = load %x
  %y = store %a
  %d = store %a
  %b = exp %d
  %y = store %b
  %d = store %b
}
)";
    gca::module m = gca::parse(text);
    const auto r = gca::verify(m);
    CHECK(has(r, kind::clobbered_output, "y", 13));
    CHECK(r.failures.size() == 1);  // the read of %d at line 11 is fine: it holds what line 10 wrote
    tensor_named(m, "f", "d").at = gca::placement{0, 8192};
    CHECK(gca::verify(m).ok());
  }
  SUBCASE("undefined read, also through a += that never had its memset") {
    const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %y   : dram 4096 output @ 0
  tensor %a   : sb 128x512 @ 0:0
  tensor %b   : sb 128x512 @ 0:512
  tensor %acc : psum 128x2048 @ 0:0
  %b = act %a
  loop k 2 {
    %acc += matmul %b, %b
  }
  %y = store %acc
}
)";
    const auto r = gca::verify(gca::parse(text));
    CHECK(has(r, kind::undefined_read, "a", 7));
    CHECK(has(r, kind::undefined_read, "acc", 9));
    CHECK(r.count(kind::undefined_read) == 2);  // reported once per instruction, not per iteration
  }
  SUBCASE("in place: an output over a dying input of the same instruction") {
    gca::module m = gca::parse(base);
    tensor_named(m, "f", "c").at = gca::placement{0, 0};  // %c = act %acc, %r — onto %a: fine
    CHECK(gca::verify(m).ok());
    // An output over an input of the same instruction, which dies there:
    const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %x : dram 4096 input @ 0
  tensor %y : dram 4096 output @ 4096
  tensor %a : sb 128x512 @ 0:0
  tensor %c : sb 128x512 @ 0:256
  %a = load %x
  %c = exp %a
  %y = store %c
}
)";
    const auto r = gca::verify(gca::parse(text));
    CHECK(has(r, kind::in_place, "c", 8));
    CHECK(r.failures.size() == 1);
    gca::verify_options o;
    o.allow_in_place = true;
    CHECK(gca::verify(gca::parse(text), o).ok());
  }
}

TEST_CASE("verify: a loop-carried value clobbered in the 2nd iteration only") {
  // %c is defined before the loop, read at the top of the body and redefined below; %w shares %c's
  // slot and is written after the redefinition, so the first iteration's read is fine and only the
  // second iteration's read of %c (line 13) finds %w's value.
  const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %x  : dram 4096 input @ 0
  tensor %x2 : dram 4096 input @ 4096
  tensor %y  : dram 4096 output @ 8192
  tensor %c  : sb 128x512 @ 0:0
  tensor %t  : sb 128x512 @ 0:512
  tensor %w  : sb 128x512 @ 0:0
  tensor %z  : sb 128x512 @ 0:1024
  tensor %o  : sb 128x512 @ 0:1536
  %c = load %x
  loop k 2 {
    %t = mul %c
    %c = add %t
    %w = load %x2
    %z = exp %w
  }
  %o = add %z
  %y = store %o
}
)";
  gca::module m = gca::parse(text);
  REQUIRE(gca::static_check(m.functions[0]).ok());
  const auto r = gca::verify(m);
  CHECK(has(r, kind::clobbered_read, "c", 13));
  CHECK(r.failures.size() == 1);
  CHECK(r.message().find("overwritten by the write to %w (line 15)") != std::string::npos);
  gca::verify_options once;
  once.max_trips = 1;  // one iteration can't see it: the hazard needs the back edge
  CHECK(gca::verify(m, once).ok());
  tensor_named(m, "f", "w").at = gca::placement{0, 2048};
  CHECK(gca::verify(m).ok());
}

TEST_CASE("verify: moves carry values") {
  // %a's value lives on in %b after the copy, so %c may take %a's slot; %y gets %x's value at %x's
  // own address, so %x still reads fine after the store.
  const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %x  : dram 4096 input @ 0
  tensor %x2 : dram 4096 input @ 4096
  tensor %y  : dram 4096 output @ 0
  tensor %a  : sb 128x512 @ 0:0
  tensor %b  : sb 128x512 @ 0:512
  tensor %c  : sb 128x512 @ 0:0
  tensor %d  : sb 128x512 @ 0:1024
  tensor %e  : sb 128x512 @ 0:0
  %a = load %x
  %b = copy %a
  %c = load %x2
  %d = add %b, %c
  %y = store %a
  %e = load %x
  %d += add %e
}
)";
  gca::module m = gca::parse(text);
  auto r = gca::verify(m);
  CHECK(has(r, kind::clobbered_read, "a", 15));  // %a itself is read after %c took its slot
  CHECK(r.failures.size() == 1);
  // Read %b instead: now the store is fine and so is %x after it.
  m.functions[0].operands[m.functions[0].insts[4].first_operand + 1] = m.functions[0].find_tensor("b");
  r = gca::verify(m);
  CHECK_MESSAGE(r.ok(), r.message());
  // A copy laid out at another offset over its source: same value id, wrong bytes.
  const std::string shifted = R"(module m target=trn2
function f core=0 {
  tensor %x : dram 4096 input @ 0
  tensor %y : dram 4096 output @ 4096
  tensor %a : sb 128x512 @ 0:0
  tensor %b : sb 128x512 @ 0:256
  %a = load %x
  %b = copy %a
  %y = store %a
}
)";
  gca::verify_options o;
  o.allow_in_place = true;
  r = gca::verify(gca::parse(shifted), o);
  CHECK(has(r, kind::clobbered_read, "a", 9));
  CHECK(r.message().find("copy of the same value") != std::string::npos);
  // The same copy onto the very same placement is a no-op and fine, in place or not.
  gca::module same = gca::parse(shifted);
  tensor_named(same, "f", "b").at = gca::placement{0, 0};
  CHECK(gca::verify(same).ok());
}

TEST_CASE("verify: rmw reads its outputs before writing them") {
  gca::module m = gca::parse(base);
  // %q (written between the memset and the loop) on %acc's bank: the += reads a clobbered %acc.
  auto& f = m.functions[0];
  const gca::tensor_id q = f.find_tensor("q");
  const gca::tensor_id a = f.find_tensor("a");
  gca::function g;
  g.name = f.name;
  g.tensors = f.tensors;
  for (gca::inst_id k = 0; k < f.insts.size(); ++k) {
    const auto& i = f.insts[k];
    if (i.is_loop()) {
      g.begin_loop(g.intern(f.symbols[i.label]), i.trips, i.loc);
      continue;
    }
    std::vector<gca::tensor_id> outs(f.outputs(i).begin(), f.outputs(i).end());
    std::vector<gca::tensor_id> ins(f.inputs(i).begin(), f.inputs(i).end());
    g.add_instruction(g.intern(f.opcode_name(i)), outs, ins, i.rmw, i.loc);
    if (f.opcode_name(i) == "memset") {
      const gca::tensor_id qo[] = {q}, qi[] = {a};
      g.add_instruction(g.intern("exp"), qo, qi, false, {99, 1});
    }
    if (f.opcode_name(i) == "matmul") g.end_loop();
  }
  f = g;
  CHECK(gca::verify(m).ok());  // %q at 0:2048 is apart from %acc
  tensor_named(m, "f", "q").at = gca::placement{0, 1024};
  const auto r = gca::verify(m);
  CHECK(has(r, kind::clobbered_read, "acc", 16));  // the `+=` line
  CHECK(r.count(kind::clobbered_read) == 1);
}

TEST_CASE("verify: shared DRAM across functions, and linked DRAM") {
  const std::string text = R"(module m target=trn1
function f core=0 {
  tensor %s : dram.shared 4096 @ 0
  tensor %x : dram 4096 input @ 4096
  tensor %a : sb 128x32 @ 0:0
  %a = load %x
  %s = store %a
}
function g core=1 {
  tensor %s : dram.shared 4096 @ 0
  tensor %y : dram 4096 output @ 8192
  tensor %b : sb 128x32 @ 0:0
  %b = load %s
  %y = store %b
}
)";
  gca::module m = gca::parse(text);
  CHECK(gca::verify(m).ok());
  gca::verify_options linked;
  linked.linked = true;
  CHECK(gca::verify(m, linked).ok());
  SUBCASE("shared mismatch") {
    tensor_named(m, "g", "s").at = gca::placement{0, 12288};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::shared_mismatch, "s", 10));
    CHECK(r.failures.size() == 1);
  }
  SUBCASE("shared overlap with another function's local DRAM") {
    tensor_named(m, "g", "y").at = gca::placement{0, 1024};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::shared_overlap, "s", 3));
    CHECK(r.message().find("overlap %y of function 'g'") != std::string::npos);
  }
  SUBCASE("shared overlap within its own function") {
    tensor_named(m, "f", "x").at = gca::placement{0, 0};
    const auto r = gca::verify(m);
    CHECK(has(r, kind::shared_overlap, "s", 3));  // against f's %x, and g's %s against f's %x too
    CHECK(r.count(kind::shared_overlap) == 2);
  }
  SUBCASE("local DRAM of two cores: fine before linking, an overlap after") {
    tensor_named(m, "g", "y").at = gca::placement{0, 4096};  // same address as f's %x
    CHECK(gca::verify(m).ok());
    const auto r = gca::verify(m, linked);
    CHECK(has(r, kind::linked_overlap, "y", 11));
    CHECK(r.failures.size() == 1);
  }
}

TEST_CASE("verify: tensors on partial partitions") {
  // Tensors in different partitions can share bytes; one moved over two of them clobbers both. (%c
  // computes a new value: a load of %x would hold %x's value, laid out from the same placement as %a.)
  const std::string text = R"(module m target=trn2
function f core=0 {
  tensor %x : dram 4096 input @ 0
  tensor %y : dram 4096 output @ 4096
  tensor %a : sb 32x512 @ 0:0
  tensor %b : sb 32x512 @ 32:0
  tensor %c : sb 64x512 @ 64:0
  tensor %d : sb 128x512 @ 0:512
  %a = load %x
  %b = load %x
  %c = exp %x
  %d = add %a, %b, %c
  %y = store %d
}
)";
  gca::module m = gca::parse(text);
  CHECK(gca::verify(m).ok());
  tensor_named(m, "f", "c").at = gca::placement{0, 0};
  const auto r = gca::verify(m);
  CHECK(has(r, kind::clobbered_read, "a", 12));
  CHECK(has(r, kind::clobbered_read, "b", 12));
  CHECK(r.count(kind::clobbered_read) == 2);
}

TEST_CASE("verify: a 5000-deep nest is simulated iteratively within the step budget") {
  gca::module m;
  m.tgt = gca::trn2;
  auto& f = m.functions.emplace_back();
  f.name = "deep";
  auto add_tensor = [&](std::string name, std::uint64_t slot) {
    gca::tensor t;
    t.name = std::move(name);
    t.shape = {128, 64};
    t.at = gca::placement{0, slot * 64};
    f.tensors.push_back(t);
    return static_cast<gca::tensor_id>(f.tensors.size() - 1);
  };
  const auto c = add_tensor("c", 0), t = add_tensor("t", 1), w = add_tensor("w", 0);
  const gca::symbol_id op = f.intern("op"), l = f.intern("l");
  const gca::tensor_id oc[] = {c}, ot[] = {t}, ow[] = {w};
  f.add_instruction(op, oc, {}, false, {1, 1});
  for (int d = 0; d < 5000; ++d) f.begin_loop(l, 2, {2, 1});
  // The innermost body reads %c at its top, then %w takes %c's slot (the value was read), then %c is
  // redefined for the next iteration.
  f.add_instruction(op, ot, oc, false, {3, 1});
  f.add_instruction(op, ow, ot, false, {4, 1});
  f.add_instruction(op, oc, ot, false, {5, 1});
  for (int d = 0; d < 5000; ++d) f.end_loop();
  gca::verify_options o;
  o.max_steps = 1 << 16;
  const auto start = std::chrono::steady_clock::now();
  auto r = gca::verify(m, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("5000-deep nest verified in " << s << " s");  // reported, not asserted: the bound is on steps
  CHECK(r.steps <= (1 << 16) + f.insts.size());
  CHECK(r.loops_shortened > 4900);
  CHECK(r.ok());  // %c is redefined after %w, so the carried value is intact
  // Now redefine %c before %w is written: only the innermost loop's 2nd iteration sees the clobber.
  std::swap(f.operands[f.insts[5002].first_operand], f.operands[f.insts[5003].first_operand]);
  r = gca::verify(m, o);
  CHECK(has(r, kind::clobbered_read, "c", 3));
  CHECK(r.failures.size() == 1);
}

// ---- generated programs ---------------------------------------------------------------------------

namespace {

/// A trivially correct reference placement for generated modules: every tensor gets bytes of its own
/// (SB and PSUM from partition 0, bytes apart; registers one each; DRAM one module-wide address
/// space, a shared name once), stepping around pinned tensors. Returns false when it doesn't fit.
/// Independent of the allocator on purpose: the verifier must accept it and must reject it once
/// broken.
bool place_disjoint_for_reference(gca::module& m) {
  const gca::target& t = m.tgt;
  using range = std::pair<std::uint64_t, std::uint64_t>;
  auto fit = [](std::uint64_t cursor, std::uint64_t size, std::uint64_t align, const std::vector<range>& taken,
                std::uint64_t bank) {
    std::uint64_t pos = (cursor + align - 1) / align * align;
    for (bool moved = true; moved;) {
      moved = false;
      if (bank != 0 && size <= bank && pos / bank != (pos + size - 1) / bank) {
        pos = (pos / bank + 1) * bank;
        moved = true;
      }
      for (const range& r : taken)
        if (pos < r.second && r.first < pos + size) {
          pos = (r.second + align - 1) / align * align;
          moved = true;
        }
    }
    return pos;
  };
  std::vector<range> dram_taken;
  std::map<std::string, gca::placement> shared;
  for (const auto& f : m.functions)
    for (const auto& x : f.tensors)
      if (x.memory == gca::memory_type::dram && x.at) {
        dram_taken.push_back({x.at->offset, x.at->offset + x.shape.bytes});
        if (x.space == gca::address_space::shared) shared[x.name] = *x.at;
      }
  std::uint64_t dram_cursor = 0;
  for (auto& f : m.functions) {
    std::vector<range> sb_taken, psum_taken;
    std::vector<bool> reg_taken(t.registers, false);
    for (const auto& x : f.tensors) {
      if (!x.at) continue;
      if (x.memory == gca::memory_type::sb) sb_taken.push_back({x.at->offset, x.at->offset + x.shape.bytes});
      if (x.memory == gca::memory_type::psum) psum_taken.push_back({x.at->offset, x.at->offset + x.shape.bytes});
      if (x.memory == gca::memory_type::reg) reg_taken[x.at->offset] = true;
    }
    std::uint64_t sb = 0, psum = 0, reg = 0;
    for (auto& x : f.tensors) {
      if (x.at) continue;
      switch (x.memory) {
        case gca::memory_type::sb: {
          const std::uint64_t p = fit(sb, x.shape.bytes, t.sb_alignment, sb_taken, 0);
          if (p + x.shape.bytes > t.sb_usable) return false;
          x.at = gca::placement{0, p};
          sb = p + x.shape.bytes;
          break;
        }
        case gca::memory_type::psum: {
          const std::uint64_t p = fit(psum, x.shape.bytes, t.psum_alignment, psum_taken,
                                      t.psum_may_span_banks ? 0 : t.psum_bank_bytes);
          if (p + x.shape.bytes > t.psum_bytes()) return false;
          x.at = gca::placement{0, p};
          psum = p + x.shape.bytes;
          break;
        }
        case gca::memory_type::reg:
          while (reg < t.registers && reg_taken[reg]) ++reg;
          if (reg == t.registers) return false;
          x.at = gca::placement{0, reg++};
          break;
        case gca::memory_type::dram: {
          if (x.space == gca::address_space::shared && shared.count(x.name)) {
            x.at = shared[x.name];
            break;
          }
          const std::uint64_t p = fit(dram_cursor, x.shape.bytes, t.dram_alignment, dram_taken, 0);
          if (p + x.shape.bytes > t.dram_bytes) return false;
          x.at = gca::placement{0, p};
          dram_cursor = p + x.shape.bytes;
          if (x.space == gca::address_space::shared) shared[x.name] = *x.at;
          break;
        }
      }
    }
  }
  return true;
}

gca::test::random_program_options options_for(std::uint64_t seed) {
  gca::test::random_program_options o;
  o.seed = seed;
  o.tgt = seed % 3 == 0 ? gca::trn1 : seed % 3 == 1 ? gca::trn2 : gca::trn3;
  o.functions = 1 + static_cast<std::uint32_t>(seed % 3);
  o.instructions = 20 + static_cast<std::uint32_t>(seed % 7) * 15;
  o.max_loop_depth = static_cast<std::uint32_t>(seed % 5);
  o.max_trips = seed % 4 == 0 ? 1000 : 6;
  o.pin_probability = 0.15;
  o.pressure = 0.4;
  return o;
}

}  // namespace

TEST_CASE("verify: the bundled kernels under the reference placement") {
  // Kernels that over-subscribe a memory on purpose can't have every tensor apart; the others must
  // verify (attention, matmul and two_core at least).
  std::size_t placed = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GCA_SOURCE_DIR) + "/examples/kernels")) {
    if (e.path().extension() != ".gca") continue;
    CAPTURE(e.path().string());
    gca::module m = gca::parse_file(e.path().string());
    CHECK(gca::verify(m).count(kind::unplaced) > 0);  // as written, not everything is placed
    if (!place_disjoint_for_reference(m)) continue;
    ++placed;
    gca::verify_options linked;
    linked.linked = true;
    const auto r = gca::verify(m, linked);
    CHECK_MESSAGE(r.ok(), r.message());
  }
  CHECK(placed >= 3);
}

TEST_CASE("generator: modules are valid, deterministic and exercise every feature") {
  std::size_t loops = 0, rmw = 0, nested = 0, carried = 0, pinned = 0, moves = 0, shared_multi = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    CAPTURE(seed);
    auto o = options_for(seed);
    o.pressure = seed % 5 == 0 ? 2.5 : 0.6;  // some over-subscribed
    const gca::module m = gca::test::random_program(o);
    CHECK_NOTHROW(gca::validate(m));
    CHECK(gca::print(gca::test::random_program(o)) == gca::print(m));  // same seed, same module
    for (const auto& f : m.functions) {
      const auto sc = gca::static_check(f);
      CHECK_MESSAGE(sc.ok(), sc.message(f));
      const auto parent = gca::loop_parents(f);
      std::vector<std::uint32_t> depth(f.insts.size(), 0);
      std::uint32_t deepest = 0;
      for (gca::inst_id k = 0; k < f.insts.size(); ++k) {
        depth[k] = parent[k] == gca::no_inst ? 0 : depth[parent[k]] + 1;
        deepest = std::max(deepest, depth[k]);
        carried += depth[k] > 0 && f.opcode_name(f.insts[k]) == "next";
      }
      nested += deepest >= 2;
      for (const auto& i : f.insts) {
        loops += i.is_loop();
        rmw += i.rmw;
        moves += gca::op::is_move(i.opcode);
      }
      for (const auto& x : f.tensors) pinned += x.at.has_value();
    }
    std::map<std::string, int> declared_by;  // dram.shared name -> number of functions declaring it
    for (const auto& f : m.functions)
      for (const auto& x : f.tensors)
        if (x.memory == gca::memory_type::dram && x.space == gca::address_space::shared) ++declared_by[x.name];
    shared_multi += std::any_of(declared_by.begin(), declared_by.end(), [](const auto& e) { return e.second >= 2; });
  }
  // Thresholds well below what the 150 seeds give (about 1900 loops, 2000 `+=`, 170 functions nesting
  // 2+ deep, 1600 carried redefinitions, 1000 pins, 6800 moves): a generator that stopped producing
  // any of them fails here.
  CHECK(loops > 1000);
  CHECK(rmw > 1000);
  CHECK(moves > 3000);
  CHECK(pinned > 500);
  CHECK(nested > 100);
  CHECK(carried > 800);
  CHECK(shared_multi == 100);  // the 100 multi-core seeds share dram.shared names between cores
  // The pressure knob over-subscribes SB: the sizes of one function add up beyond the usable bytes.
  gca::test::random_program_options over;
  over.pressure = 3.0;
  std::uint64_t sb_bytes = 0;
  const gca::module over_module = gca::test::random_program(over);  // kept: the loop reads into it
  for (const auto& x : over_module.functions[0].tensors)
    if (x.memory == gca::memory_type::sb) sb_bytes += x.shape.bytes;
  CHECK(sb_bytes > 2 * over.tgt.sb_usable);
  gca::test::random_program_options a, b;
  a.seed = 7;
  b.seed = 8;
  CHECK(gca::print(gca::test::random_program(a)) != gca::print(gca::test::random_program(b)));
}

TEST_CASE("generator + reference placement verify ok; moving a tensor onto a live one is caught") {
  std::size_t mutated = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    CAPTURE(seed);
    gca::module m = gca::test::random_program(options_for(seed));
    REQUIRE(place_disjoint_for_reference(m));
    gca::verify_options linked;
    linked.linked = true;
    const auto r = gca::verify(m, linked);
    REQUIRE_MESSAGE(r.ok(), (r.message() + gca::print(m)));
    const gca::module original = gca::test::random_program(options_for(seed));
    const auto two = gca::verify(original, m, linked);
    REQUIRE_MESSAGE(two.ok(), two.message());
    // Break it: an instruction reads %a and writes %b (not a move, so %b's value is new); %a is read
    // again later with nothing touching %a or %b between. Putting %b on %a's placement must make that
    // later read fail.
    bool done = false;
    for (auto& f : m.functions) {
      for (gca::inst_id k = 0; k < f.insts.size() && !done; ++k) {
        const auto& i = f.insts[k];
        if (i.is_loop() || gca::op::is_move(i.opcode)) continue;
        for (gca::tensor_id a : f.inputs(i)) {
          for (gca::tensor_id b : f.outputs(i)) {
            if (done || a == b) continue;
            const auto& ta = f.tensors[a];
            auto& tb = f.tensors[b];
            const auto outs = f.outputs(i);
            if (ta.memory != tb.memory || tb.space != gca::address_space::local ||
                tb.kind != gca::tensor_kind::internal || std::find(outs.begin(), outs.end(), a) != outs.end())
              continue;
            // The next instruction after k touching %a or %b (in program order) must read %a and not
            // write %a; %b must not be written before it.
            gca::inst_id j = k + 1;
            bool reads_a = false;
            for (; j < f.insts.size(); ++j) {
              const auto& n = f.insts[j];
              if (n.is_loop()) continue;
              bool ra = false, wa = false, wb = false;
              for (auto x : f.inputs(n)) ra |= x == a;
              for (auto x : f.outputs(n)) {
                wa |= x == a;
                wb |= x == b;
                ra |= n.rmw && x == a;
              }
              if (ra || wa || wb) {
                reads_a = ra;
                break;
              }
            }
            if (!reads_a || j == f.insts.size()) continue;
            gca::tensor moved = tb;
            moved.at = ta.at;
            if (gca::placement_problem(m.tgt, moved)) continue;
            tb.at = ta.at;
            const auto broken = gca::verify(m, linked);
            CHECK_MESSAGE(has(broken, kind::clobbered_read, ta.name, f.insts[j].loc.line),
                          ("moved %" + tb.name + " onto %" + ta.name + "\n" + broken.message()));
            // The two-program form sees %b's value where the original reads %a's.
            const auto two_broken = gca::verify(original, m, linked);
            // (or, when only a move reads it, the output it reaches at exit).
            CHECK_MESSAGE(two_broken.count(gca::translation_failure_kind::wrong_value) +
                                  two_broken.count(gca::translation_failure_kind::wrong_output) > 0,
                          two_broken.message());
            done = true;
          }
        }
      }
      if (done) break;
    }
    mutated += done;
  }
  CHECK(mutated > 110);  // 119 of the 120 seeds have such an instruction
}

TEST_CASE("verify: 10^5 generated instructions in well under a second") {
  gca::test::random_program_options o;
  o.seed = 12345;
  o.functions = 1;
  o.instructions = 100000;
  o.max_loop_depth = 3;
  o.max_trips = 50;
  o.sb_tensors = 40;
  o.pressure = 0.5;
  o.pin_probability = 0;
  gca::module m = gca::test::random_program(o);
  REQUIRE(place_disjoint_for_reference(m));
  auto timed = [](const gca::module& x) {
    const auto start = std::chrono::steady_clock::now();
    auto r = gca::verify(x);
    return std::pair{r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  };
  const auto [r, s] = timed(m);
  MESSAGE("disjoint: " << m.functions[0].insts.size() << " instructions, " << r.steps << " steps, " << s << " s");
  CHECK(r.ok());
  CHECK(r.steps > 500000);  // the loops really run: about 8 simulated instructions per instruction
  // Timing is reported, not asserted (the machine is shared and sanitizers slow it): benchmarks/ measures.
  // The shadow's worst case: every tensor of a memory at the same place, so every write splits and
  // every read scans shared segments (and most reads fail, each producing a report line).
  for (auto& x : m.functions[0].tensors)
    if (x.memory != gca::memory_type::dram) x.at = gca::placement{0, 0};
  const auto [dense, ds] = timed(m);
  MESSAGE("dense: " << dense.failures.size() << " failures, " << ds << " s");
  CHECK(dense.count(kind::clobbered_read) > 1000);
}

TEST_CASE("verify: 10^5 instructions over reused slots, correct, in well under a second") {
  // 30 tensors of different partition counts share 3 slots (tensor j in slot j % 3) and form a chain
  // %s[i] = op %s[i-1] that wraps around 30 and around two nested loops: every write lands on bytes
  // other tensors used, so each read really scans the shadow, and the allocation is correct.
  gca::module m;
  auto& f = m.functions.emplace_back();
  f.name = "chain";
  const std::uint32_t parts[] = {128, 64, 32, 16, 100, 7};
  for (std::uint32_t j = 0; j < 30; ++j) {
    gca::tensor t;
    t.name = "s" + std::to_string(j);
    t.shape = {parts[j % 6], 1024};
    t.at = gca::placement{0, (j % 3) * 1024};
    f.tensors.push_back(t);
  }
  gca::tensor x;
  x.name = "x";
  x.memory = gca::memory_type::dram;
  x.kind = gca::tensor_kind::input;
  x.shape = {1, 4096};
  x.at = gca::placement{0, 0};
  f.tensors.push_back(x);
  const gca::symbol_id op = f.intern("op");
  const gca::tensor_id s29[] = {29}, xin[] = {30};
  f.add_instruction(gca::op::load, s29, xin, false, {1, 1});
  f.begin_loop(f.intern("i"), 3, {2, 1});
  f.begin_loop(f.intern("j"), 3, {3, 1});
  for (std::uint32_t i = 0; i < 100020; ++i) {
    const gca::tensor_id out[] = {i % 30}, in[] = {(i + 29) % 30};
    f.add_instruction(op, out, in, false, {4 + i, 1});
  }
  f.end_loop();
  f.end_loop();
  const auto start = std::chrono::steady_clock::now();
  const auto r = gca::verify(m);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("reused slots: " << r.steps << " steps, " << s << " s");
  CHECK_MESSAGE(r.ok(), r.message().substr(0, 500));
  CHECK(r.steps == 1 + 1 + 3 + 9 * 100020);
  // Timing is reported, not asserted (the machine is shared and sanitizers slow it): benchmarks/ measures.
  // Every value is read by the very next instruction, so moving one tensor into a neighbour's slot
  // makes an instruction write over its own input.
  f.tensors[7].at = gca::placement{0, 0};  // %s7 onto slot 0, where %s6 is read by %s7's writer
  CHECK(has(gca::verify(m), kind::in_place, "s7", 4 + 7));
  f.tensors[7].at = gca::placement{0, 2048};  // onto slot 2: %s8's writer reads %s7 and writes over it
  CHECK(has(gca::verify(m), kind::in_place, "s8", 4 + 8));
}

// ---- the two-program form ------------------------------------------------------------------------

namespace {

using tkind = gca::translation_failure_kind;

std::string tool_input(const std::string& name) {
  std::ifstream in(std::string(GCA_SOURCE_DIR) + "/tests/tool_inputs/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string kernel_text(const std::string& name) {
  std::ifstream in(std::string(GCA_SOURCE_DIR) + "/examples/kernels/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// `text` with the line `from` (without indentation) replaced by `to` (same indentation; empty: the line
/// is deleted). The line must be there exactly once, so an edit can never silently miss.
std::string edit_line(const std::string& text, const std::string& from, const std::string& to) {
  std::string out;
  int found = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, nl - at);
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line.substr(indent) == from) {
      ++found;
      if (!to.empty()) out += line.substr(0, indent) + to + '\n';
    } else {
      out += line + '\n';
    }
    at = nl + 1;
  }
  REQUIRE_MESSAGE(found == 1, ("line '" + from + "' found " + std::to_string(found) + " times"));
  return out;
}

/// The 1-based line of the only line that reads `what` (without indentation).
std::uint32_t line_of(const std::string& text, const std::string& what) {
  std::uint32_t n = 0, hit = 0, hits = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, nl - at);
    ++n;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line.substr(indent) == what) hit = n, ++hits;
    at = nl + 1;
  }
  REQUIRE_MESSAGE(hits == 1, ("line '" + what + "'"));
  return hit;
}

bool has(const gca::translation_report& r, tkind k, const std::string& t, std::uint32_t line) {
  for (const auto& f : r.failures)
    if (f.kind == k && f.tensor == t && f.loc.line == line) return true;
  return false;
}

gca::translation_report two_program(const std::string& original, const std::string& allocated) {
  gca::verify_options o;
  o.linked = true;
  return gca::verify(gca::parse(original, "original.gca"), gca::parse(allocated, "allocated.gca"), o);
}

}  // namespace

TEST_CASE("two-program verify: stored allocations of spilling kernels are correct") {
  const std::pair<std::string, std::string> pairs[] = {
      {tool_input("spill_exit.gca"), tool_input("spill_exit.O2.gca")},
      {tool_input("spill_exit.gca"), tool_input("spill_exit.O6.gca")},
      {tool_input("spill_carried.gca"), tool_input("spill_carried.O6.gca")},
      {kernel_text("oversubscribed.gca"), tool_input("oversubscribed.O2.gca")}};
  for (const auto& [o, a] : pairs) {
    const auto r = two_program(o, a);
    CHECK_MESSAGE(r.ok(), r.message());
    CHECK(r.steps > 0);
    CHECK(a.find("spill") != std::string::npos);  // they do spill
    // The original is a correct "allocation" of itself only once placed; unplaced, only the placement
    // part fails (and the translation part has nothing to say).
    const auto self = two_program(o, o);
    CHECK(self.failures.empty());
    CHECK(self.placement.count(kind::unplaced) > 0);
  }
}

TEST_CASE("two-program verify: broken spill code is caught, each with its kind") {
  const std::string over = kernel_text("oversubscribed.gca");
  const std::string over2 = tool_input("oversubscribed.O2.gca");
  const std::string exit_k = tool_input("spill_exit.gca");
  const std::string carried = tool_input("spill_carried.gca");
  const std::string carried6 = tool_input("spill_carried.O6.gca");
  // Each broken allocation also passes the single-module checks where noted: that form trusts the
  // spill code, which is the point of the two-program form.
  SUBCASE("a reload from the wrong slot") {
    const std::string a = edit_line(over2, "%p0.r2 = reload %p0.slot1", "%p0.r2 = reload %p8.slot1");
    const auto r = two_program(over, a);
    CHECK(r.placement.ok());
    CHECK_MESSAGE(has(r, tkind::wrong_value, "p0.r2", line_of(a, "%s = sum %p0.r2, %p1, %p2, %p3, %p4, %p5, %p6, %p7")),
                  r.message());
    CHECK(r.failures.front().message.find("should hold the value written to %p0 by line 25 of the original") !=
          std::string::npos);
    CHECK(r.failures.front().message.find("it holds the value written to %p8 by line 33 of the original") !=
          std::string::npos);
  }
  SUBCASE("a reload from a slot a later spill store overwrote") {
    const std::string a = edit_line(over2, "%p8.slot1 = spill %p8.r1", "%p0.slot1 = spill %p8.r1");
    const auto r = two_program(over, a);
    CHECK_MESSAGE(has(r, tkind::wrong_value, "p0.r2", line_of(a, "%s = sum %p0.r2, %p1, %p2, %p3, %p4, %p5, %p6, %p7")),
                  r.message());
    // ... and %p8's own slot, never written, holds what %v.r1 left in those bytes.
    CHECK(has(r, tkind::wrong_value, "p8.r2", line_of(a, "%y = add %s, %p8.r2, %v.r2, %w")));
  }
  SUBCASE("a web written twice, the store after the second write missing") {
    // %acc is written before the loop and in it; without the store in the body the reload after it
    // (same iteration) sees the value from before the loop.
    const std::string a = edit_line(carried6, "%acc.slot1 = spill %acc.r2", "");
    const auto r = two_program(carried, a);
    CHECK_MESSAGE(has(r, tkind::stale_value, "acc.r3", line_of(a, "%k.r2 = add %k.r2, %acc.r3")), r.message());
  }
  SUBCASE("a reload hoisted above a write of its web inside the loop") {
    // %acc.r2's reload moved before the loop: %t's load takes its bytes in the body.
    std::string a = edit_line(carried6, "%acc.r2 = reload %acc.slot1", "");
    a = edit_line(a, "loop l 3 {", "%acc.r2 = reload %acc.slot1\n  loop l 3 {");
    const auto r = two_program(carried, a);
    CHECK_MESSAGE(has(r, tkind::wrong_value, "acc.r2", line_of(a, "%acc.r2 = add %acc.r2, %u")), r.message());
    CHECK(r.failures.front().message.find("the value %x holds at entry") != std::string::npos);
  }
  SUBCASE("a rename makes a read see another tensor of the same size") {
    const std::string a = edit_line(over2, "%y = add %s, %p8.r2, %v.r2, %w", "%y = add %s, %p8.r2, %w, %w");
    const auto r = two_program(over, a);
    CHECK(r.placement.ok());
    CHECK_MESSAGE(has(r, tkind::wrong_value, "w", line_of(a, "%y = add %s, %p8.r2, %w, %w")), r.message());
  }
  SUBCASE("a missing reload") {
    const std::string a = edit_line(over2, "%p0.r2 = reload %p0.slot1", "");
    const auto r = two_program(over, a);
    // %p0.r2's bank now holds %p8's value (its own reload wrote it last).
    CHECK_MESSAGE(has(r, tkind::wrong_value, "p0.r2", line_of(a, "%s = sum %p0.r2, %p1, %p2, %p3, %p4, %p5, %p6, %p7")),
                  r.message());
  }
  SUBCASE("a missing store") {
    const std::string a = edit_line(over2, "%v.slot1 = spill %v.r1", "");
    const auto r = two_program(over, a);
    CHECK_MESSAGE(has(r, tkind::missing_value, "v.r2", line_of(a, "%y = add %s, %p8.r2, %v.r2, %w")), r.message());
  }
  SUBCASE("a stale value after a loop exit") {
    const std::string a = tool_input("spill_exit.O2.broken.gca");
    const auto r = two_program(exit_k, a);
    REQUIRE_FALSE(r.failures.empty());
    CHECK_MESSAGE(has(r, tkind::stale_value, "acc.r3", line_of(a, "%y = add %acc.r3, %c")), r.message());
    CHECK(r.failures.front().message.find("should hold the value written to %acc by line 15 of the original") !=
          std::string::npos);
    CHECK(r.failures.front().message.find("holds the value written to %acc by line 13 of the original") !=
          std::string::npos);
    // At -O6 the store is in the body: without it the next iteration reloads the value from before the loop.
    const std::string a6 = edit_line(tool_input("spill_exit.O6.gca"), "%acc.slot1 = spill %acc.r2", "");
    const auto r6 = two_program(exit_k, a6);
    CHECK_MESSAGE(has(r6, tkind::stale_value, "acc.r2", line_of(a6, "%acc.r2 = add %acc.r2, %x")), r6.message());
    // ... and the read after the exit sees the value from before the loop instead of the last iteration's.
    const auto& last = r6.failures.back();
    CHECK(last.kind == tkind::stale_value);
    CHECK(last.loc.line == line_of(a6, "%y = add %acc.r3, %c"));
    CHECK(last.message.find("holds the value written to %acc by line 13 of the original") != std::string::npos);
  }
  SUBCASE("an output written from the wrong value") {
    const std::string a = edit_line(over2, "%y = add %s, %p8.r2, %v.r2, %w", "%y = copy %x");
    CHECK(two_program(over, a).count(tkind::unmatched) == 1);  // not a move the original has: unmatched
    const std::string e = edit_line(tool_input("spill_exit.O2.gca"), "%y = add %acc.r3, %c", "%y = add %acc.r3, %c\n  %y = copy %x");
    const auto r = two_program(exit_k, e);
    CHECK_MESSAGE(r.count(tkind::wrong_output) == 1, r.message());
    CHECK(r.failures.front().tensor == "y");
  }
}

TEST_CASE("two-program verify: harmless edits are accepted, structural ones are unmatched") {
  const std::string carried = tool_input("spill_carried.gca");
  const std::string carried6 = tool_input("spill_carried.O6.gca");
  // %acc.r3 shares its bytes with %acc.r2, which holds %acc's latest value wherever %acc.r3 is read:
  // reloading it once before the loop is still correct, and the check (which judges values, not the
  // spill code's intent) accepts it.
  std::string hoisted = edit_line(carried6, "%acc.r3 = reload %acc.slot1", "");
  hoisted = edit_line(hoisted, "loop l 3 {", "%acc.r3 = reload %acc.slot1\n  loop l 3 {");
  const auto ok = two_program(carried, hoisted);
  CHECK_MESSAGE(ok.failures.empty(), ok.message());
  // An extra inserted move is fine (it only carries a value), an extra computation is not.
  const std::string moved = edit_line(carried6, "%k.r3 = reload %k.slot1", "%k.r3 = reload %k.slot1\n  %k.r3 = copy %k.r3");
  CHECK(two_program(carried, moved).failures.empty());
  const std::string extra = edit_line(carried6, "%k.r3 = reload %k.slot1", "%k.r3 = reload %k.slot1\n  %k.r1 = inc %k.r3");
  const auto r1 = two_program(carried, extra);
  REQUIRE(r1.failures.size() == 1);
  CHECK(r1.failures[0].kind == tkind::unmatched);
  CHECK(r1.failures[0].loc.line == line_of(extra, "%k.r1 = inc %k.r3"));
  // A computation dropped, a trip count changed, an operand of another shape.
  CHECK(two_program(carried, edit_line(carried6, "%u = inc %t", "")).count(tkind::unmatched) == 1);
  CHECK(two_program(carried, edit_line(carried6, "loop l 3 {", "loop l 4 {")).count(tkind::unmatched) == 1);
  CHECK(two_program(carried, edit_line(carried6, "%k.r2 = add %k.r2, %acc.r3", "%k.r2 = add %k.r2, %x"))
            .count(tkind::unmatched) == 1);
  // The kernel interface must stay: an output renamed away is unmatched.
  const std::string renamed = edit_line(carried6, "tensor %y : dram 65536 output @ 11585536",
                                        "tensor %z : dram 65536 output @ 11585536");
  CHECK(two_program(carried, edit_line(renamed, "%y = add %acc.r4, %k.r3", "%z = add %acc.r4, %k.r3"))
            .count(tkind::unmatched) == 1);
}

TEST_CASE("two-program verify: a value carried twice around a back edge needs the third iteration") {
  // %b gets a new value at the bottom of each iteration and %c takes %b's one iteration later, so the
  // value computed in iteration 1 reaches the read of %c in iteration 3, after crossing the back edge
  // twice. An allocation that leaves %c alone (`%c = copy %c`: same shapes, so it stands for the
  // original's copy) reads the right value in iterations 1 and 2 (the entry value both times) and the
  // wrong one only in iteration 3.
  const std::string original = R"(module m target=trn2
function f core=0 {
  tensor %x : dram 64 input
  tensor %y : dram 64 output
  tensor %b : sb 1x64
  tensor %c : sb 1x64
  tensor %d : sb 1x64
  %b = load %x
  %c = load %x
  loop l 3 {
    %d = add %c, %x
    %c = copy %b
    %b = inc %d
  }
  %y = store %d
}
)";
  std::string placed = original;
  placed = edit_line(placed, "tensor %x : dram 64 input", "tensor %x : dram 64 input @ 0");
  placed = edit_line(placed, "tensor %y : dram 64 output", "tensor %y : dram 64 output @ 64");
  placed = edit_line(placed, "tensor %b : sb 1x64", "tensor %b : sb 1x64 @ 0:0");
  placed = edit_line(placed, "tensor %c : sb 1x64", "tensor %c : sb 1x64 @ 0:64");
  placed = edit_line(placed, "tensor %d : sb 1x64", "tensor %d : sb 1x64 @ 0:128");
  const gca::module o = gca::parse(original);
  CHECK(gca::verify(o, gca::parse(placed)).ok());
  const std::string broken = edit_line(placed, "%c = copy %b", "%c = copy %c");
  gca::verify_options two;
  two.max_trips = 2;
  CHECK(gca::verify(o, gca::parse(broken), two).failures.empty());  // two iterations can't see it
  const auto r = gca::verify(o, gca::parse(broken));                 // the default, 3, does
  CHECK_MESSAGE(has(r, tkind::wrong_value, "c", line_of(broken, "%d = add %c, %x")), r.message());
  CHECK(r.placement.ok());  // the single-module form trusts the program as written
}
