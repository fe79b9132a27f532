// gca-alloc — the main command-line driver over a textual kernel (docs/FORMAT.md).
//
//   gca-alloc --check FILE   parse and run the static def/use check; exit 0, or 1 with diagnostics
//   gca-alloc --print FILE   print the canonical form of FILE
//
// Exit status: 0 done, 1 bad input or usage.
#include <cstring>
#include <iostream>
#include <string>

#include <gca/gca.hpp>

namespace {

int usage() {
  std::cerr << "usage: gca-alloc --check FILE\n"
               "       gca-alloc --print FILE\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode, file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check" || a == "--print") {
      mode = a;
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "gca-alloc: unknown option '" << a << "'\n";
      return usage();
    } else if (file.empty()) {
      file = a;
    } else {
      std::cerr << "gca-alloc: more than one input file\n";
      return usage();
    }
  }
  if (file.empty() || mode.empty()) return usage();
  try {
    const gca::module m = gca::parse_file(file);
    if (mode == "--print") {
      gca::print(std::cout, m);
      return 0;
    }
    bool ok = true;
    for (const gca::function& f : m.functions) {
      const auto r = gca::static_check(f);
      if (!r.ok()) {
        std::cerr << r.message(f, file);
        ok = false;
      }
    }
    if (ok) std::cout << file << ": ok (" << m.functions.size() << " functions)\n";
    return ok ? 0 : 1;
  } catch (const gca::parse_error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gca-alloc: " << e.what() << '\n';
    return 1;
  }
}
