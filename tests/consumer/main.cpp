// A consumer of gca: what a compiler backend that builds gca in (meson subproject) or finds it installed
// (pkg-config, CMake find_package) compiles. scripts/consumers.sh builds and runs it all three ways.
#include <iostream>

// Per-layer headers: only what the file uses (<gca/gca.hpp> would do too, and compile slower).
#include <gca/allocators.hpp>
#include <gca/ir.hpp>
#include <gca/verify.hpp>

int main() {
  gca::module m = gca::parse(R"(module consumer target=trn2
function main core=0 {
  tensor %in  : dram 65536 input
  tensor %out : dram 65536 output
  tensor %a   : sb 128x512
  tensor %b   : sb 128x512
  %a = load %in
  %b = act %a
  %out = store %b
}
)", "consumer.gca");
  const gca::module original = m;
  gca::coloring_allocator_sb{}.run(m);    // places %a and %b in SBUF
  gca::coloring_allocator_dram{}.run(m);  // places the kernel's I/O buffers in DRAM
  const gca::verify_report v = gca::verify(m);
  if (!v.ok()) {
    std::cerr << v.message();
    return 1;
  }
  std::cout << "consumer: allocated and verified\n";
  return 0;
}
