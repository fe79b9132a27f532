// gca-gen — writes a realistic kernel of a chosen size in the text format, for scale measurements.
//
//   gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P] [--matmuls M]
//   gca-gen --trace BUFFERS [--seed S]
//   gca-gen --planted-sb N [--seed S] [--pins F] [--tightness T] [--family mixed|128|tight] [--target T]
//     an SB kernel of at least N tensors with a planted spill-free placement (gca/gen/planted_sb.hpp)
//
// The kernel is a chain of layers, each a tiled matmul: an outer loop over output tiles, an inner loop
// over the contraction dimension that loads two SB tiles and accumulates into a PSUM bank (`+=`), then
// the accumulator is evacuated to SB, scaled by a per-layer SB tile loaded before the loop, combined with
// a residual kept from an earlier layer (so some SB values live across several layers), and stored to the
// DRAM tensor the next layer reads. About 12 instruction points and 10 tensors per layer; N points give
// about N/12 layers. `--pressure` scales SB tile sizes (1.0 keeps the busiest point near SB's capacity;
// more than 1 forces spills). `--matmuls M` issues M matmuls per contraction step into the same PSUM
// accumulator (reading the same two SB tiles: a kernel that reuses each loaded tile for M output columns),
// which adds M - 1 points per step and no tensor: it sets the ratio of points to tensors.
//
// `--trace BUFFERS` writes a static-allocation trace instead (the `id,lower,upper,size` CSV gca-pack
// reads), shaped like a training loop with gradient accumulation: micro-batches of a forward pass over
// L layers (each layer's activation lives until that layer's backward step, plus short-lived
// temporaries) and a backward pass (gradients live two steps), over a few buffers that live the whole
// trace (optimizer state). Sizes are log-uniform, multiples of 512 bytes. Deterministic for a given seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gca/error.hpp>
#include <gca/gen/planted_sb.hpp>
#include <gca/ir/target.hpp>

namespace {

int usage() {
  std::cerr << "usage: gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P]"
               " [--matmuls M]\n       gca-gen --trace BUFFERS [--seed S]\n"
               "       gca-gen --planted-sb N [--seed S] [--pins F] [--tightness T] [--family mixed|128|tight]"
               " [--target T]\n";
  return 1;
}

/// The `--trace` mode: see the header comment.
int write_trace(std::uint64_t buffers, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Log-uniform size in [lo, hi], rounded up to a multiple of 512 bytes.
  auto size = [&](double lo, double hi) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double b = std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
    return (static_cast<std::uint64_t>(b) + 511) / 512 * 512;
  };
  struct buf {
    std::uint64_t lower, upper, size;
  };
  std::vector<buf> out;
  const std::uint64_t layers = 48, persistent = 16;
  std::uint64_t t = 0;
  std::vector<std::uint64_t> act(layers), act_size(layers);
  for (std::uint64_t l = 0; l < layers; ++l) act_size[l] = size(64 << 10, 8 << 20);
  // Persistent buffers first; their upper end is set when the trace ends.
  for (std::uint64_t i = 0; i < persistent; ++i) out.push_back({0, 0, size(256 << 10, 4 << 20)});
  auto temps = [&](std::uint64_t count) {
    for (std::uint64_t k = 0; k < count && out.size() < buffers; ++k)
      out.push_back({t, t + 1 + rng() % 3, size(4 << 10, 1 << 20)});
  };
  while (out.size() < buffers) {
    for (std::uint64_t l = 0; l < layers && out.size() < buffers; ++l, ++t) {  // forward
      act[l] = out.size();
      out.push_back({t, 0, act_size[l]});
      temps(1 + rng() % 3);
    }
    for (std::uint64_t l = layers; l-- > 0;) {  // backward (also closes the activations of a cut pass)
      if (act[l] != UINT64_MAX) out[act[l]].upper = t + 1;
      act[l] = UINT64_MAX;
      if (out.size() < buffers) out.push_back({t, t + 2, act_size[l]});  // the gradient
      temps(1 + rng() % 3);
      ++t;
    }
    std::fill(act.begin(), act.end(), UINT64_MAX);
  }
  for (std::uint64_t i = 0; i < persistent && i < out.size(); ++i) out[i].upper = t + 3;
  std::cout << "id,lower,upper,size\n";
  for (std::size_t i = 0; i < out.size() && i < buffers; ++i)
    std::cout << i << ',' << out[i].lower << ',' << out[i].upper << ',' << out[i].size << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t points = 1000, seed = 1, cores = 1, matmuls = 1, trace = 0, planted = 0;
  double pressure = 0.6, pins = 0, tightness = 1;
  std::string family = "mixed";
  std::string target = "trn2";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--points") points = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--seed") seed = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--cores") cores = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--matmuls") matmuls = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--trace") trace = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--pressure") pressure = std::strtod(v.c_str(), &end);
    else if (a == "--target") target = v, end = nullptr;
    else if (a == "--planted-sb") planted = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--pins") pins = std::strtod(v.c_str(), &end);
    else if (a == "--tightness") tightness = std::strtod(v.c_str(), &end);
    else if (a == "--family") family = v, end = nullptr;
    else return usage();
    if (end != nullptr && (*end != '\0' || end == v.c_str())) return usage();
  }
  if (trace > 0) return write_trace(trace, seed);
  if (planted > 0) {  // an SB kernel with a planted spill-free placement (gca/gen/planted_sb.hpp)
    gca::planted_sb_options o;
    o.tensors = planted;
    o.seed = seed;
    o.pins = pins;
    o.tightness = tightness;
    o.family = family == "128" ? gca::planted_family::only128 : family == "tight" ? gca::planted_family::tight
                                                                                 : gca::planted_family::mixed;
    const auto tg = gca::find_target(target);
    if (!tg || (family != "mixed" && family != "128" && family != "tight")) return usage();
    o.tgt = *tg;
    try {
      std::cout << gca::make_planted_sb(o).text;
    } catch (const gca::input_error& e) {
      std::cerr << "gca-gen: " << e.what() << '\n';
      return 1;
    }
    return 0;
  }
  const auto tgt = gca::find_target(target);
  if (!tgt || cores == 0 || cores > 64 || !(pressure > 0) || points == 0 || matmuls == 0 || matmuls > 4096)
    return usage();
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  // Tile bytes per partition: about eight SB tiles are alive at the busiest point of a layer.
  const auto tile = [&] {
    const double b = static_cast<double>(tgt->sb_usable) * pressure / 8.0;
    return static_cast<std::uint64_t>(b * static_cast<double>(pick(70, 100)) / 100.0) / 4 * 4 + 4;
  };
  const std::uint64_t layers = points / (11 + matmuls) / cores + 1;
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
      for (std::uint64_t k = 0; k < matmuls; ++k)
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
