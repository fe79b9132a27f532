// fuzz/fuzz_parse.cpp — libFuzzer harness for the text parser (ir/parser.hpp) and printer.
//
// Any input either parses or throws gca::parse_error; anything else (another exception, a crash, a
// sanitizer report, a hang) is a bug. Oracles beyond "no crash":
//   - a parse_error's what() is ONE line "FILE:LINE:COL: error: MESSAGE" of bounded length, with a line
//     inside the input and a 1-based column;
//   - a module that parses prints canonically: parse(print(m)) == m and print is byte-stable.
// Build and run: scripts/fuzz.sh SECONDS (see docs/RELIABILITY.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>

namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_parse: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gca::module m;
  try {
    m = gca::parse(text, "fuzz.gca");
  } catch (const gca::parse_error& e) {
    const std::string w = e.what();
    if (w.find('\n') != std::string::npos) bug("parse_error message spans several lines", w);
    if (w.size() > 400) bug("parse_error message longer than 400 bytes", w);
    if (w.rfind("fuzz.gca:", 0) != 0) bug("parse_error message does not start with the file name", w);
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n';
    if (e.line() == 0 || e.line() > lines) bug("parse_error line outside the input", w);
    if (e.column() == 0) bug("parse_error without a column", w);
    return 0;
  }
  // Everything else escapes to libFuzzer as an uncaught exception: a crash, which is the point.
  const std::string once = gca::print(m);
  gca::module again;
  try {
    again = gca::parse(once, "printed.gca");
  } catch (const gca::parse_error& e) {
    bug("the printed form of a parsed module does not parse", std::string(e.what()) + "\n" + once);
  }
  if (!(again == m)) bug("parse(print(m)) != m", once);
  if (gca::print(again) != once) bug("print is not byte-stable", once);
  return 0;
}
