// gca-verify — checks that an allocated kernel computes what the original kernel did.
//
//   gca-verify [--linked] [--max-trips N] ORIGINAL.gca ALLOCATED.gca
//
// Runs gca::verify(original, allocated) (include/gca/verify/translation.hpp, docs/VERIFY.md): the
// placement rules of the allocated module, and both programs simulated side by side on value numbers.
// Names the first wrong read (function, the instruction's line in ALLOCATED.gca, the tensor, and the
// value it should have seen), then every failure, one line each, on stderr ("verify: ok" goes to stdout). --linked: the allocated module is
// after the post-link step (all functions' DRAM is one space). --max-trips: iterations simulated per
// loop (default 3). Exit status: 0 a correct allocation, 4 not, 1 bad input or usage.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <gca/error.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/validate.hpp>
#include <gca/verify/translation.hpp>

namespace {

int usage(const std::string& why) {
  if (!why.empty()) std::cerr << "gca-verify: " << why << '\n';
  std::cerr << "usage: gca-verify [--linked] [--max-trips N] ORIGINAL.gca ALLOCATED.gca\n";
  return 1;
}

/// "FILE:LINE" of a failure: the allocated file's line, or the original's when the failure has none
/// there (a missing counterpart), or just the allocated file.
std::string where(const gca::translation_failure& f, const std::string& original, const std::string& allocated) {
  if (f.loc.line != 0) return allocated + ":" + std::to_string(f.loc.line);
  if (f.original_loc.line != 0) return original + ":" + std::to_string(f.original_loc.line);
  return allocated;
}

}  // namespace

int main(int argc, char** argv) {
  gca::verify_options opt;
  std::string files[2];
  int n_files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--linked") {
      opt.linked = true;
    } else if (a == "--max-trips") {
      if (i + 1 >= argc) return usage("--max-trips needs a number");
      const std::string v = argv[++i];
      char* end = nullptr;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || v[0] == '-' || *end != '\0' || n < 1 || n > 1000)
        return usage("--max-trips needs a number from 1 to 1000, not '" + v + "'");
      opt.max_trips = n;
    } else if (a == "-h" || a == "--help") {
      usage("");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (n_files < 2) {
      files[n_files++] = a;
    } else {
      return usage("more than two files");
    }
  }
  if (n_files != 2) return usage("needs the original and the allocated kernel");

  gca::module original, allocated;
  try {
    original = gca::parse_file(files[0]);
    gca::validate(original);
    allocated = gca::parse_file(files[1]);
    gca::validate(allocated);
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }

  const gca::translation_report r = gca::verify(original, allocated, opt);
  if (r.ok()) {
    std::cout << "verify: ok (" << allocated.functions.size() << " functions, " << r.steps
              << " instructions simulated)\n";
    return 0;
  }
  if (!r.failures.empty()) {
    const gca::translation_failure& f = r.failures.front();
    std::cerr << where(f, files[0], files[1]) << ": first wrong read: function '" << f.function << "'"
              << (f.tensor.empty() ? "" : ", tensor %" + f.tensor) << ": " << to_string(f.kind) << ": " << f.message
              << '\n';
  }
  std::cerr << "verify: FAILED (" << r.failures.size() + r.placement.failures.size() << " failures)\n";
  for (const gca::translation_failure& f : r.failures)
    std::cerr << where(f, files[0], files[1]) << ": " << to_string(f.kind) << ": function '" << f.function << "'"
              << (f.tensor.empty() ? "" : ", tensor %" + f.tensor) << ": " << f.message << '\n';
  for (const gca::verify_failure& f : r.placement.failures)
    std::cerr << files[1] << ":" << f.loc.line << ": " << to_string(f.kind) << ": function '" << f.function
              << "', tensor %" << f.tensor << ": " << f.message << '\n';
  return 4;
}
