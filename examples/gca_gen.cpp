// gca-gen — writes a realistic kernel of a chosen size in the text format, for scale measurements.
//
//   gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P]
//
// The kernel is a chain of layers, each a tiled matmul: an outer loop over output tiles, an inner loop
// over the contraction dimension that loads two SB tiles and accumulates into a PSUM bank (`+=`), then
// the accumulator is evacuated to SB, scaled by a per-layer SB tile loaded before the loop, combined with
// a residual kept from an earlier layer (so some SB values live across several layers), and stored to the
// DRAM tensor the next layer reads. About 12 instruction points and 10 tensors per layer; N points give
// about N/12 layers. `--pressure` scales SB tile sizes (1.0 keeps the busiest point near SB's capacity;
// more than 1 forces spills). Deterministic for a given seed.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include <gca/ir/target.hpp>

namespace {

int usage() {
  std::cerr << "usage: gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P]\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t points = 1000, seed = 1, cores = 1;
  double pressure = 0.6;
  std::string target = "trn2";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--points") points = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--seed") seed = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--cores") cores = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--pressure") pressure = std::strtod(v.c_str(), &end);
    else if (a == "--target") target = v, end = nullptr;
    else return usage();
    if (end != nullptr && (*end != '\0' || end == v.c_str())) return usage();
  }
  const auto tgt = gca::find_target(target);
  if (!tgt || cores == 0 || cores > 64 || !(pressure > 0) || points == 0) return usage();
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  // Tile bytes per partition: about eight SB tiles are alive at the busiest point of a layer.
  const auto tile = [&] {
    const double b = static_cast<double>(tgt->sb_usable) * pressure / 8.0;
    return static_cast<std::uint64_t>(b * static_cast<double>(pick(70, 100)) / 100.0) / 4 * 4 + 4;
  };
  const std::uint64_t layers = points / 12 / cores + 1;
  std::cout << "module generated target=" << target << "\n";
  for (std::uint64_t c = 0; c < cores; ++c) {
    std::cout << "\nfunction core" << c << " core=" << c << " {\n";
    std::cout << "  tensor %in : dram 1048576 input\n  tensor %out : dram 1048576 output\n";
    for (std::uint64_t l = 0; l < layers; ++l) {
      const std::string s = std::to_string(l);
      std::cout << "  tensor %w" << s << " : dram 65536 input\n";
      if (l + 1 < layers) std::cout << "  tensor %d" << s << " : dram 262144\n";
      std::cout << "  tensor %a" << s << " : sb 128x" << tile() << "\n";
      std::cout << "  tensor %b" << s << " : sb 128x" << tile() << "\n";
      std::cout << "  tensor %sc" << s << " : sb 128x" << tile() << "\n";
      std::cout << "  tensor %o" << s << " : sb 128x2048\n";
      std::cout << "  tensor %t" << s << " : sb 128x2048\n";
      std::cout << "  tensor %r" << s << " : sb 128x" << tile() << "\n";
      std::cout << "  tensor %acc" << s << " : psum 128x" << 512 * pick(1, 4) << "\n";
      std::cout << "  tensor %i" << s << " : reg\n";
    }
    for (std::uint64_t l = 0; l < layers; ++l) {
      const std::string s = std::to_string(l);
      const std::string src = l == 0 ? "%in" : "%d" + std::to_string(l - 1);
      const std::string dst = l + 1 == layers ? "%out" : "%d" + s;
      std::cout << "  %sc" << s << " = load %w" << s << "\n";
      std::cout << "  %r" << s << " = load " << src << "\n";
      std::cout << "  %i" << s << " = iota\n";
      std::cout << "  loop m" << s << " " << pick(2, 8) << " {\n";
      std::cout << "    %acc" << s << " = memset\n";
      std::cout << "    loop k" << s << " " << pick(2, 16) << " {\n";
      std::cout << "      %a" << s << " = load " << src << "\n";
      std::cout << "      %b" << s << " = load %w" << s << "\n";
      std::cout << "      %acc" << s << " += matmul %a" << s << ", %b" << s << ", %i" << s << "\n";
      std::cout << "    }\n";
      std::cout << "    %o" << s << " = act %acc" << s << "\n";
      std::cout << "    %t" << s << " = mul %o" << s << ", %sc" << s << ", %r" << s << "\n";
      std::cout << "    " << dst << " = store %t" << s << "\n";
      std::cout << "  }\n";
    }
    std::cout << "}\n";
  }
  return 0;
}
