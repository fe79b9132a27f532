// fuzz/fuzz_check.cpp — libFuzzer harness for parse -> validate -> static_check (linearize/static_check.hpp).
//
// Inputs that do not parse are skipped (fuzz_parse covers them). For a parsed module: validate may throw
// input_error (e.g. a dram.shared name declared with different sizes); static_check must not throw at
// all, its report must be deterministic, and its message must have the documented shape (the Neuron allocator's
// header lines and one "FILE:LINE: %name ..." line per name). Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/static_check.hpp>

namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_check: %s\n%s\n", what, detail.c_str());
  std::abort();
}

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gca::module m;
  try {
    m = gca::parse(text, "fuzz.gca");
  } catch (const gca::parse_error&) {
    return 0;
  }
  try {
    gca::validate(m);  // a parsed module may still break a module-wide rule (shared DRAM sizes)
  } catch (const gca::input_error&) {
  }
  for (const gca::function& f : m.functions) {
    const gca::static_check_report r = gca::static_check(f);
    const gca::static_check_report r2 = gca::static_check(f);
    const std::string msg = r.message(f, "fuzz.gca");
    if (msg != r2.message(f, "fuzz.gca")) bug("static_check is not deterministic", msg);
    if (r.ok()) {
      if (!msg.empty()) bug("an ok report has a message", msg);
      continue;
    }
    if (msg.rfind("Bad input file - failed static checks.\n", 0) != 0) bug("message lacks the Neuron allocator's header", msg);
    if (count_lines(msg) != 3 + r.undefined.size() + r.unused.size()) bug("message has the wrong number of lines", msg);
    for (const auto& d : r.undefined)
      if (d.tensor >= f.tensors.size() || d.loc.line == 0) bug("undefined-name diagnostic without a place", msg);
    for (const auto& d : r.unused)
      if (d.tensor >= f.tensors.size() || d.loc.line == 0) bug("unused-name diagnostic without a place", msg);
  }
  return 0;
}
