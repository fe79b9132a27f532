// Tests of the IR layer: the text format (round trip, canonical form, every error kind), validation
// against the target, the def/use index and the static def/use check.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gca/ir/def_use.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/static_check.hpp>

namespace {

std::vector<std::string> bundled_kernels() {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GCA_SOURCE_DIR) + "/examples/kernels"))
    if (e.path().extension() == ".gca") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// Parses `text` expecting a parse_error; returns "LINE:COL: message".
std::string error_of(const std::string& text) {
  try {
    (void)gca::parse(text, "t.gca");
  } catch (const gca::parse_error& e) {
    CHECK(e.file() == "t.gca");
    return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.message();
  }
  return "no error";
}

const std::string head = "module m target=trn2\nfunction f core=0 {\n";

}  // namespace

TEST_CASE("parse: the issue's example, exact IR") {
  const std::string text = R"(# comment to end of line
module attention target=trn2
function main core=0 {
  tensor %x   : dram 65536 input
  tensor %y   : dram 65536 output
  tensor %a   : sb 128x512
  tensor %acc : psum 128x2048
  tensor %i   : reg
  tensor %s   : dram.shared 4096
  tensor %w   : sb 32x1024 @ 32:0          # pinned
  %a = load %x
  %acc = memset
  loop k 4 {
    %acc += matmul %a, %a
  }
  %b = act %acc                            # %b declared elsewhere in the function
  %y = store %b
  tensor %b : sb 128x4
}
)";
  const gca::module m = gca::parse(text, "ex.gca");
  CHECK(m.name == "attention");
  CHECK(m.tgt.name == "trn2");
  REQUIRE(m.functions.size() == 1);
  const gca::function& f = m.functions[0];
  CHECK(f.name == "main");
  CHECK(f.core == 0);
  REQUIRE(f.tensors.size() == 8);
  CHECK(f.tensors[0].name == "x");
  CHECK(f.tensors[0].memory == gca::memory_type::dram);
  CHECK(f.tensors[0].shape == gca::extent{1, 65536});
  CHECK(f.tensors[0].kind == gca::tensor_kind::input);
  CHECK(f.tensors[3].shape == gca::extent{128, 2048});
  CHECK(f.tensors[4].memory == gca::memory_type::reg);
  CHECK(f.tensors[5].space == gca::address_space::shared);
  REQUIRE(f.tensors[6].at.has_value());
  CHECK(*f.tensors[6].at == gca::placement{32, 0});
  CHECK(f.tensors[7].name == "b");  // declaration order, though used before it was declared
  REQUIRE(f.insts.size() == 6);
  CHECK(f.opcode_name(f.insts[0]) == "load");
  CHECK(f.insts[2].is_loop());
  CHECK(f.insts[2].trips == 4);
  CHECK(f.insts[2].end == 4);
  CHECK(f.symbols[f.insts[2].label] == "k");
  CHECK(f.insts[3].rmw);
  CHECK(f.inputs(f.insts[3]).size() == 2);
  CHECK(f.tensors[f.outputs(f.insts[4])[0]].name == "b");
  CHECK(f.insts[3].loc.line == 14);
}

TEST_CASE("print: canonical form and byte-stable round trip") {
  const std::string text =
      "module m target=trn3\n\nfunction f core=2 {\n"
      "  tensor %a : sb 64x100 input @ 64:8\n"
      "  tensor %r : reg @ r7\n"
      "  tensor %d : dram.debug 128 output @ 640\n"
      "  tensor %p : psum 2x4096\n"
      "  %p = memset\n"
      "  loop outer 3 {\n"
      "    loop inner 2 {\n"
      "      %p += mm %a, %r\n"
      "    }\n"
      "    loop empty 5 {\n"
      "    }\n"
      "  }\n"
      "  barrier\n"
      "  %d, %r = split %p\n"
      "}\n";
  const gca::module m = gca::parse(text);
  CHECK(gca::print(m) == text);
  CHECK(gca::parse(gca::print(m)) == m);
}

TEST_CASE("origins: what the allocator made a tensor for, printed, parsed and checked") {
  const std::string text =
      "module m target=trn2\n\nfunction f core=0 {\n"
      "  tensor %x : dram 512 input @ 0\n"
      "  tensor %t : sb 4x128\n"
      "  tensor %t.slot1 : dram 512 slot_of %t\n"
      "  tensor %t.r1 : sb 4x128 temp_of %t\n"
      "  tensor %t.slot1.1 : dram 512 @ 512 split_of %t.slot1\n"
      "  %t.r1 = load %x\n"
      "  %t.slot1 = spill %t.r1\n"
      "}\n";
  const gca::module m = gca::parse(text);
  const gca::function& f = m.functions[0];
  CHECK(f.tensors[1].origin == gca::origin_kind::user);
  CHECK(f.tensors[2].origin == gca::origin_kind::spill_slot);
  CHECK(f.tensors[2].origin_of == 1);
  CHECK(f.tensors[3].origin == gca::origin_kind::spill_temp);
  CHECK(f.tensors[4].origin == gca::origin_kind::split_web);
  CHECK(f.tensors[4].origin_of == 2);
  CHECK(gca::user_tensor(f, 4) == 1);  // a split web of a slot of %t stands for %t
  CHECK(gca::user_tensor(f, 0) == 0);
  CHECK(gca::print(m) == text);
  CHECK(gca::parse(gca::print(m)) == m);
  CHECK_NOTHROW(gca::validate(m));
  // An origin is part of what a tensor is: dropping it makes another module.
  gca::module other = m;
  other.functions[0].tensors[3].origin = gca::origin_kind::user;
  other.functions[0].tensors[3].origin_of = gca::no_tensor;
  CHECK_FALSE(other == m);

  CHECK(error_of(head + "  tensor %a : sb 4x4 temp_of %b\n  tensor %b : sb 4x4\n}\n") ==
        "3:30: tensor %b must be declared before the tensors that stand for it");
  CHECK(error_of(head + "  tensor %a : sb 4x4 slot_of %a\n}\n") ==
        "3:30: tensor %a must be declared before the tensors that stand for it");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  tensor %b : sb 4x4 split_of a\n}\n") ==
        "4:31: expected a tensor name like %x after 'split_of' but found 'a'");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  tensor %b : sb 4x4 slot_of\n}\n") ==
        "4:29: expected the tensor it stands for at end of line");
  // Built through the API, an origin must be an earlier tensor (so the chains user_tensor walks end).
  gca::module api = m;
  api.functions[0].tensors[2].origin_of = 3;
  CHECK_THROWS_WITH_AS(gca::validate(api),
                       "function 'f', tensor %t.slot1: its origin must be an earlier tensor of the function (and "
                       "only an allocator-made tensor has one)",
                       gca::input_error);
}

TEST_CASE("round trip on every bundled kernel") {
  const auto files = bundled_kernels();
  REQUIRE(files.size() >= 3);
  for (const std::string& path : files) {
    CAPTURE(path);
    const gca::module m = gca::parse_file(path);
    const std::string once = gca::print(m);
    const gca::module again = gca::parse(once);
    CHECK(again == m);
    CHECK(gca::print(again) == once);
    CHECK_NOTHROW(gca::validate(m));
    for (const auto& f : m.functions) {
      CAPTURE(f.name);
      CHECK(gca::static_check(f).ok());
    }
  }
}

TEST_CASE("parse errors: file, line, column and message") {
  CHECK(error_of("") == "1:1: empty file: expected 'module NAME target=TARGET'");
  CHECK(error_of("# only a comment\n\n") == "2:1: empty file: expected 'module NAME target=TARGET'");
  CHECK(error_of("module m target=trn9\n") == "1:17: unknown target 'trn9' (known: trn1, trn2, trn3)");
  CHECK(error_of("function f core=0 {\n}\n") == "1:1: expected 'module NAME target=TARGET' before 'function'");
  CHECK(error_of(head + "  tensor %a : hbm 12\n}\n") ==
        "3:15: unknown memory 'hbm' (known: sb, psum, dram, dram.shared, dram.debug, reg)");
  CHECK(error_of(head + "  tensor %a : sb 0x12\n}\n") == "3:18: a tensor needs at least 1 partition");
  CHECK(error_of(head + "  tensor %a : sb 129x12\n}\n") ==
        "3:18: 129 partitions is more than the 128 the target has");
  CHECK(error_of(head + "  tensor %a : sb 128x0\n}\n") == "3:18: a tensor needs at least 1 byte per partition");
  CHECK(error_of(head + "  tensor %a : sb 128x300000\n}\n") ==
        "3:18: 300000 bytes per partition is more than the 212984 usable in SB on trn2");
  CHECK(error_of(head + "  tensor %a : psum 128x4096\n}\n") ==
        "3:20: a PSUM tensor of 4096 bytes per partition is wider than a bank (2048 bytes) and trn2 does "
        "not let a tensor span banks");
  CHECK(error_of(head + "  tensor %a : dram 0\n}\n") == "3:20: a DRAM tensor needs at least 1 byte");
  CHECK(error_of(head + "  tensor %a : dram 4x4\n}\n") ==
        "3:20: a DRAM tensor has a size in bytes, not partitions x bytes");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  tensor %a : sb 4x4\n}\n") ==
        "4:10: tensor %a is declared twice (first at line 3)");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  %a = copy %zz\n}\n") ==
        "4:13: tensor %zz is used but never declared");
  CHECK(error_of(head + "  tensor %a : sb 32x4 @ 96:400000\n}\n") ==
        "3:25: bytes 400000..400003 are out of bounds (212984 bytes per partition)");
  CHECK(error_of(head + "  tensor %a : sb 64x4 @ 32:0\n}\n") ==
        "3:25: a tensor of 64 partitions can't start at partition 32 (it must start at a multiple of 64)");
  CHECK(error_of(head + "  tensor %a : sb 16x4 @ 120:0\n}\n") ==
        "3:25: placement partitions 120..135 are out of bounds");
  CHECK(error_of(head + "  tensor %a : psum 16x4 @ 0:2\n}\n") == "3:27: byte offset 2 is not aligned to 4");
  CHECK(error_of(head + "  tensor %a : psum 16x1024 @ 0:1536\n}\n") ==
        "3:30: PSUM bytes 1536..2559 cross a bank boundary");
  CHECK(error_of(head + "  tensor %a : dram 64 @ 32\n}\n") == "3:25: DRAM address 32 is not aligned to 64");
  CHECK(error_of(head + "  tensor %a : reg @ r64\n}\n") == "3:21: register r64 does not exist (the target has 64)");
  CHECK(error_of(head + "  loop k 0 {\n  }\n}\n") == "3:10: loop k has 0 trips");
  CHECK(error_of(head + "  tensor %a : dram 99999999999999999999\n}\n") ==
        "3:20: a size in bytes '99999999999999999999' is too large (at most 18446744073709551615)");
  CHECK(error_of(head + "  loop k 4 {\n") == "3:1: unexpected end of file: missing '}' for loop k opened at line 3");
  CHECK(error_of(head) == "2:1: unexpected end of file: missing '}' for function 'f' opened at line 2");
  CHECK(error_of(head + "}\n}\n") == "4:1: expected 'function NAME core=N {' but found '}'");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  %a = load\n}\n") ==
        "4:8: 'load' moves a value: it takes '%out = load %in' (one output, one input, '=')");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  %a = 12 %a\n}\n") == "4:8: expected an opcode but found '12'");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  %a = add %a %a\n}\n") == "4:15: expected ',' but found '%a'");
  CHECK(error_of(head + "  tensor % : sb 4x4\n}\n") == "3:10: a tensor name is '%' then a letter or '_'");
  CHECK(error_of(head + "  tensor %a : sb 4x4\n  %a = tensor %a\n}\n") == "4:8: 'tensor' is a keyword, not an opcode");
  CHECK(error_of(head + "function g core=1 {\n}\n") ==
        "3:1: missing '}' before 'function' (function 'f' is still open)");
  CHECK(error_of("module m target=trn2\nfunction f core=0 {\n}\nfunction f core=1 {\n}\n") ==
        "4:10: function 'f' is defined twice");
  CHECK(error_of(head + "  tensor %a : sb 4x4 output input\n}\n") == "3:29: unexpected 'input' at end of statement");
  CHECK(error_of(head + "  tensor %a : sb.shared 4x4\n}\n") ==
        "3:15: unknown memory 'sb.shared' (known: sb, psum, dram, dram.shared, dram.debug, reg)");
}

TEST_CASE("parse errors: binary garbage, a 1 MB line, a deep nest") {
  std::string garbage = "module m target=trn2\n";
  garbage += std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00", 8);
  CHECK(error_of(garbage) == "2:1: unexpected character byte 0x7f");
  CHECK(error_of(std::string("\0\0\0", 3)) == "1:1: unexpected character byte 0x00");

  const std::string long_name(1 << 20, 'q');
  const std::string msg = error_of(head + "  tensor %a : " + long_name + " 4\n}\n");
  CHECK(msg == "3:15: unknown memory '" + std::string(40, 'q') + "...' (known: sb, psum, dram, dram.shared, "
                                                                 "dram.debug, reg)");

  std::string deep = head;
  for (int i = 0; i < 100000; ++i) deep += "loop l 2 {\n";
  CHECK(error_of(deep) == "4099:1: loops nested deeper than 4096 levels");

  // Within the limit, a deep nest parses and prints without recursion.
  std::string ok = head + "  tensor %a : sb 1x4\n  %a = memset\n";
  for (int i = 0; i < 4096; ++i) ok += "loop l 2 {\n";
  ok += "%a = inc %a\n";
  for (int i = 0; i < 4096; ++i) ok += "}\n";
  ok += "}\n";
  const gca::module m = gca::parse(ok);
  CHECK(m.functions[0].insts.size() == 4096 + 2);
  CHECK(gca::parse(gca::print(m)) == m);
}

TEST_CASE("parse: trn3 lets PSUM tensors span banks; trn1 and trn2 do not") {
  const std::string body = "function f core=0 {\n  tensor %a : psum 128x4096 @ 0:1024\n}\n";
  CHECK_NOTHROW((void)gca::parse("module m target=trn3\n" + body));
  CHECK_THROWS_AS((void)gca::parse("module m target=trn1\n" + body), gca::parse_error);
  CHECK(error_of("module m target=trn3\nfunction f core=0 {\n  tensor %a : psum 1x16388\n}\n") ==
        "3:20: a PSUM tensor of 16388 bytes per partition is larger than PSUM (16384 bytes)");
}

TEST_CASE("validate: API-built modules get errors naming the function and tensor") {
  gca::module m;
  m.name = "api";
  gca::function f;
  f.name = "g";
  gca::tensor t;
  t.name = "big";
  t.memory = gca::memory_type::psum;
  t.shape = {128, 4096};
  f.tensors.push_back(t);
  m.functions.push_back(f);
  try {
    gca::validate(m);
    FAIL("expected input_error");
  } catch (const gca::input_error& e) {
    CHECK(std::string(e.what()) ==
          "function 'g', tensor %big: a PSUM tensor of 4096 bytes per partition is wider than a bank (2048 "
          "bytes) and trn2 does not let a tensor span banks");
  }
  m.functions[0].tensors[0].shape = {128, 2048};
  CHECK_NOTHROW(gca::validate(m));
  const gca::tensor_id bad[] = {7};
  m.functions[0].add_instruction(m.functions[0].intern("op"), bad, {});
  CHECK_THROWS_WITH_AS(gca::validate(m), "function 'g': instruction 0 names tensor 7, which does not exist",
                       gca::input_error);
}

TEST_CASE("validate: a shared DRAM name is one buffer across the module") {
  const std::string text =
      "module m target=trn1\n"
      "function a core=0 {\n  tensor %s : dram.shared 4096\n}\n"
      "function b core=1 {\n  tensor %s : dram.shared 8192\n}\n";
  CHECK_THROWS_WITH_AS(gca::validate(gca::parse(text)),
                       "shared tensor %s is declared differently in functions 'a' and 'b'", gca::input_error);
}

TEST_CASE("def/use index: reads before writes within an instruction") {
  const gca::module m = gca::parse(head +
                                   "  tensor %a : psum 1x4\n  tensor %b : sb 1x4\n"
                                   "  %a = memset\n  loop l 2 {\n    %a += mm %b, %a\n  }\n}\n");
  const auto& f = m.functions[0];
  const auto du = gca::build_def_use(f);
  const auto ev = du.of(0);
  REQUIRE(ev.size() == 4);
  CHECK((ev[0].inst == 0 && ev[0].is_def));
  CHECK((ev[1].inst == 2 && !ev[1].is_def));  // input %a
  CHECK((ev[2].inst == 2 && !ev[2].is_def));  // += reads its output
  CHECK((ev[3].inst == 2 && ev[3].is_def));
  CHECK(gca::loop_parents(f) == std::vector<gca::inst_id>{gca::no_inst, gca::no_inst, 1});
}

namespace {
gca::static_check_report check_of(const std::string& body) {
  static gca::module keep;
  keep = gca::parse(head + body + "}\n");
  return gca::static_check(keep.functions[0]);
}
std::vector<std::string> names(const std::vector<gca::name_diagnostic>& v) {
  std::vector<std::string> r;
  for (const auto& d : v) r.push_back(std::to_string(d.loc.line) + " " + std::to_string(d.tensor));
  return r;
}
}  // namespace

TEST_CASE("static check: straight line") {
  const std::string decl = "  tensor %x : dram 64 input\n  tensor %a : sb 1x4\n  tensor %b : sb 1x4\n"
                           "  tensor %y : dram 64 output\n";
  auto r = check_of(decl + "  %a = load %x\n  %y = store %a\n");
  CHECK(r.ok());
  r = check_of(decl + "  %a = add %b\n  %y = store %a\n");  // %b is never defined
  CHECK(names(r.undefined) == std::vector<std::string>{"7 2"});
  CHECK(r.unused.empty());
  r = check_of(decl + "  %a = load %x\n  %b = load %x\n  %y = store %a\n");  // %b is dead
  CHECK(r.undefined.empty());
  CHECK(names(r.unused) == std::vector<std::string>{"8 2"});
  r = check_of(decl + "  %a = load %x\n  %a = load %x\n  %y = store %a\n");  // first %a overwritten unread
  CHECK(names(r.unused) == std::vector<std::string>{"7 1"});
  r = check_of(decl + "  %b = memset\n  %b += add %a\n  %y = store %b\n");  // += reads; %a undefined
  CHECK(names(r.undefined) == std::vector<std::string>{"8 1"});
  r = check_of(decl + "  %y = store %a\n  %a = load %x\n");  // read before def, and def unread
  CHECK(names(r.undefined) == std::vector<std::string>{"7 1"});
  CHECK(names(r.unused) == std::vector<std::string>{"8 1"});
  // Outputs are exempt from the unused check even when overwritten; inputs are defined at entry.
  r = check_of(decl + "  %y = store %x\n  %y = store %x\n");
  CHECK(r.ok());
}

TEST_CASE("static check: loops see the previous iteration and the code before the loop") {
  const std::string decl = "  tensor %x : dram 64 input\n  tensor %a : sb 1x4\n  tensor %b : sb 1x4\n"
                           "  tensor %y : dram 64 output\n";
  // Carried: %a read at the top of the body, redefined at its bottom, first defined before the loop.
  auto r = check_of(decl + "  %a = load %x\n  loop l 4 {\n    %b = inc %a\n    %a = copy %b\n  }\n"
                           "  %y = store %a\n");
  CHECK(r.ok());
  // The same body without a definition before the loop reads %a undefined in the first iteration.
  r = check_of(decl + "  loop l 4 {\n    %b = inc %a\n    %a = copy %b\n  }\n  %y = store %a\n");
  CHECK(names(r.undefined) == std::vector<std::string>{"8 1"});
  // A definition at the bottom of a body that is only read at the top is live only through the back
  // edge: with one trip there is no back edge, so it is dead.
  r = check_of(decl + "  %a = load %x\n  loop l 1 {\n    %b = inc %a\n    %a = copy %b\n  }\n"
                      "  %y = store %b\n");
  CHECK(names(r.unused) == std::vector<std::string>{"10 1"});
  r = check_of(decl + "  %a = load %x\n  loop l 2 {\n    %b = inc %a\n    %a = copy %b\n  }\n"
                      "  %y = store %b\n");
  CHECK(r.ok());
  // Read after the loop through nested loops.
  r = check_of(decl + "  loop o 2 {\n    loop i 3 {\n      %a = load %x\n    }\n  }\n  %y = store %a\n");
  CHECK(r.ok());
  // Redefined at the top of every iteration before any read: the definition before the loop is dead.
  r = check_of(decl + "  %a = load %x\n  loop l 2 {\n    %a = load %x\n    %b = inc %a\n  }\n"
                      "  %y = store %b\n");
  CHECK(names(r.unused) == std::vector<std::string>{"7 1"});
}

TEST_CASE("static check: message uses the Neuron allocator's wording") {
  const std::string decl = "  tensor %x : dram 64 input\n  tensor %a : sb 1x4\n  tensor %b : sb 1x4\n";
  static gca::module keep;
  keep = gca::parse(head + decl + "  %a = add %b\n}\n");
  const auto r = gca::static_check(keep.functions[0]);
  CHECK(r.message(keep.functions[0], "k.gca") ==
        "Bad input file - failed static checks.\n"
        "1 names were undefined at use point\n"
        "k.gca:6: %b is read before any definition (function 'f')\n"
        "1 names were unused at definition point\n"
        "k.gca:6: %a is defined here and never read (function 'f')\n");
}
