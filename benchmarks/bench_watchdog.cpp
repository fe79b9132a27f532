// bench-watchdog — how late the watchdog ("GCA is taking too long") fires: runs four allocators on a kernel
// with a timeout and prints, per allocator, how long run() took until timeout_error (or completion) and
// by how much that passed the timeout (docs/RELIABILITY.md, "The watchdog").
//
//   build/benchmarks/bench-watchdog KERNEL.gca TIMEOUT_SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <gca/gca.hpp>
template <class A>
void measure(const char* name, const gca::module& m0, double t) {
  gca::module m = m0;
  gca::allocator_options o;
  o.timeout_seconds = t;
  const auto s = std::chrono::steady_clock::now();
  const char* what = "completed";
  try { A(o).run(m); } catch (const gca::timeout_error&) { what = "timeout"; }
  const double e = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
  std::printf("%-28s timeout %.2f s: %s after %.3f s (late by %.3f s)\n", name, t, what, e, e - t);
}
int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench-watchdog KERNEL.gca TIMEOUT_SECONDS\n");
    return 1;
  }
  gca::module m = gca::parse_file(argv[1]);
  const double t = std::atof(argv[2]);
  gca::module sb = m;
  gca::coloring_allocator_psum{}.run(sb);
  measure<gca::coloring_allocator_psum>("coloring_allocator_psum", m, t);
  measure<gca::coloring_allocator_sb>("coloring_allocator_sb", sb, t);
  measure<gca::coloring_allocator_with_loop>("coloring_allocator_with_loop", m, t);
  measure<gca::coloring_allocator_dram>("coloring_allocator_dram", sb, t);
}
