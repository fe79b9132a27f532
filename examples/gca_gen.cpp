// gca-gen — writes a realistic kernel of a chosen size in the text format, for scale measurements.
//
//   gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P] [--matmuls M]
//           [--dram-live D]
//   gca-gen --trace BUFFERS [--seed S] [--live N]
//   gca-gen --planted-dsa FAMILY --buffers N [--seed S] [--tightness T]
//   gca-gen --planted-sb N [--seed S] [--pins F] [--holes F] [--tightness T] [--family mixed|128|tight] [--target T]
//           [--construction epochs|sweep]
//     an SB kernel of at least N tensors with a planted spill-free placement (gca/gen/planted_sb.hpp); sweep:
//     places cut anew as tensors die, with independent lives, instead of epoch by epoch
//   gca-gen --planted-psum N [the same options]
//     the same in PSUM: every tensor inside one bank (unless the target lets tensors span banks)
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
// `--dram-live D` adds D local DRAM tensors that are all live at once, like the activations a forward
// pass saves for its backward pass: the layers of the first half each store their share of them (from
// the layer's scale tile, after its loop), and the layers of the second half load them back in reverse
// order (into the layer's residual tile, which then scales the scale tile, before the residual is
// reloaded), so the middle of the kernel has all D live. Sizes are Pareto-distributed (4 KiB and up,
// multiples of 64 bytes). Three points per tensor.
//
// `--trace BUFFERS` writes a static-allocation trace instead (the `id,lower,upper,size` CSV gca-pack
// reads), shaped like a training loop with gradient accumulation: micro-batches of a forward pass over
// L layers (each layer's activation lives until that layer's backward step, plus short-lived
// temporaries) and a backward pass (gradients live two steps), over a few buffers that live the whole
// trace (optimizer state). Sizes are log-uniform, multiples of 512 bytes. Deterministic for a given seed.
//
// `--trace BUFFERS --live N` writes a dense trace instead, about N buffers live at once at its busiest
// point, shaped like one training step of a deep network with gradient accumulation:
//   * parameters: per layer a weight with its two optimizer moments (Adam's m and v), all live the whole
//     trace; each backward step writes the layer's weight gradient into a short-lived buffer;
//   * activations: each layer saves four activations in the forward pass, live until that layer's
//     backward step of the same micro-batch (so the busiest point is the turn from forward to backward);
//   * temporaries: one to three per forward and backward step, live one to three steps;
//   * a final optimizer step with one short temporary per parameter.
// Layers repeat a block of six kinds (as the blocks of a transformer do), so sizes repeat; each kind's
// sizes are drawn once from a Pareto distribution (alpha 1.3, so a few buffers are much larger than the
// median) and rounded up to 512 bytes; temporaries draw their own Pareto sizes. The number of layers is
// chosen so that parameters + saved activations come to about N; micro-batches repeat until BUFFERS
// buffers are written (the last one is cut short, its activations closed by its backward pass).
// Deterministic for a given seed (sizes come from the generator's raw bits, not from std distributions,
// whose results differ between standard libraries).
//
// `--planted-dsa FAMILY` writes a DSA CSV with a planted solution (gca/io/planted_dsa.hpp: a placement
// tiling capacity x time is built first; FAMILY is uniform, heavy, long-short, identical, cut or ramp),
// and prints `capacity=C buffers=N max_live=L` on stderr: pack it with `gca-pack --capacity C`.
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
#include <gca/io/planted_dsa.hpp>
#include <gca/ir/target.hpp>

namespace {

int usage() {
  std::cerr << "usage: gca-gen [--points N] [--target trn1|trn2|trn3] [--cores C] [--seed S] [--pressure P]"
               " [--matmuls M] [--dram-live D]\n       gca-gen --trace BUFFERS [--seed S] [--live N]\n"
               "       gca-gen --planted-dsa uniform|heavy|long-short|identical|cut|ramp --buffers N [--seed S]"
               " [--tightness T]\n"
               "       gca-gen --planted-sb N [--seed S] [--pins F] [--holes F] [--tightness T] [--family mixed|128|tight]"
               " [--target T] [--construction epochs|sweep]\n"
               "       gca-gen --planted-psum N [the options of --planted-sb]\n";
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

/// The `--trace BUFFERS --live N` mode: see the header comment.
int write_dense_trace(std::uint64_t buffers, std::uint64_t live, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto unit = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };  // in (0, 1)
  // Pareto(alpha) above `lo`, capped at `cap`, rounded up to 512 bytes.
  auto pareto = [&](double lo, double cap, double alpha) {
    const double x = std::min(cap, lo / std::pow(unit(), 1.0 / alpha));
    return (static_cast<std::uint64_t>(x) + 511) / 512 * 512;
  };
  struct buf {
    std::uint64_t lower, upper, size;
  };
  std::vector<buf> out;
  constexpr std::uint64_t kinds = 6, saved = 4, per_param = 3;
  const std::uint64_t layers = std::max<std::uint64_t>(1, live / (per_param + saved));
  struct kind {
    std::uint64_t weight, act[saved];
  };
  std::vector<kind> kind_of(kinds);
  for (kind& k : kind_of) {
    k.weight = pareto(256 << 10, 256 << 20, 1.3);
    for (std::uint64_t& a : k.act) a = pareto(128 << 10, 128 << 20, 1.3);
  }
  std::uint64_t t = 0;
  // Parameters first (weight, m, v of every layer); their upper end is set when the trace ends.
  for (std::uint64_t l = 0; l < layers; ++l)
    for (std::uint64_t c = 0; c < per_param && out.size() < buffers; ++c) out.push_back({0, 0, kind_of[l % kinds].weight});
  const std::uint64_t persistent = out.size();
  auto temps = [&](std::uint64_t count) {
    for (std::uint64_t k = 0; k < count && out.size() < buffers; ++k)
      out.push_back({t, t + 1 + rng() % 3, pareto(16 << 10, 64 << 20, 1.2)});
  };
  std::vector<std::uint64_t> act(layers * saved, UINT64_MAX);
  while (out.size() < buffers) {
    for (std::uint64_t l = 0; l < layers && out.size() < buffers; ++l, ++t) {  // forward
      for (std::uint64_t a = 0; a < saved && out.size() < buffers; ++a) {
        act[l * saved + a] = out.size();
        out.push_back({t, 0, kind_of[l % kinds].act[a]});
      }
      temps(1 + rng() % 3);
    }
    for (std::uint64_t l = layers; l-- > 0; ++t) {  // backward: closes the saved activations
      for (std::uint64_t a = 0; a < saved; ++a) {
        if (act[l * saved + a] != UINT64_MAX) out[act[l * saved + a]].upper = t + 1;
        act[l * saved + a] = UINT64_MAX;
      }
      if (out.size() < buffers) out.push_back({t, t + 2, kind_of[l % kinds].act[0]});  // its input's gradient
      if (out.size() < buffers) out.push_back({t, t + 1, kind_of[l % kinds].weight});  // its weight gradient
      temps(1 + rng() % 3);
    }
  }
  // The optimizer step: a short temporary per parameter, if the budget allows, and the end of the trace.
  for (std::uint64_t i = 0; i < persistent && out.size() < buffers; ++i, ++t) out.push_back({t, t + 1, out[i].size});
  for (std::uint64_t i = 0; i < persistent; ++i) out[i].upper = t + 1;
  std::cout << "id,lower,upper,size\n";
  for (std::size_t i = 0; i < out.size(); ++i)
    std::cout << i << ',' << out[i].lower << ',' << out[i].upper << ',' << out[i].size << '\n';
  return 0;
}

/// The command line.
struct cli {
  std::uint64_t points = 1000, seed = 1, cores = 1, matmuls = 1, trace = 0, live = 0, dram_live = 0;
  double pressure = 0.6;
  std::string target = "trn2", planted;
  std::uint64_t planted_buffers = 100, planted_sb = 0;
  bool planted_psum = false;  // --planted-psum: the planted kernel in PSUM
  double tightness = 1.0, pins = 0, holes = 0;
  std::string family = "mixed", construction = "epochs";
};

/// Reads the command line into `c`; false on a malformed one.
bool parse_args(int argc, char** argv, cli& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--points") c.points = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--seed") c.seed = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--cores") c.cores = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--matmuls") c.matmuls = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--trace") c.trace = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--live") c.live = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--dram-live") c.dram_live = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--pressure") c.pressure = std::strtod(v.c_str(), &end);
    else if (a == "--target") c.target = v, end = nullptr;
    else if (a == "--planted-dsa") c.planted = v, end = nullptr;
    else if (a == "--buffers") c.planted_buffers = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--tightness") c.tightness = std::strtod(v.c_str(), &end);
    else if (a == "--planted-sb") c.planted_sb = std::strtoull(v.c_str(), &end, 10);
    else if (a == "--planted-psum") c.planted_sb = std::strtoull(v.c_str(), &end, 10), c.planted_psum = true;
    else if (a == "--pins") c.pins = std::strtod(v.c_str(), &end);
    else if (a == "--holes") c.holes = std::strtod(v.c_str(), &end);
    else if (a == "--family") c.family = v, end = nullptr;
    else if (a == "--construction") c.construction = v, end = nullptr;
    else return false;
    if (end != nullptr && (*end != '\0' || end == v.c_str())) return false;
  }
  return true;
}

/// --planted-sb (--planted-psum): an SB (PSUM) kernel with a planted spill-free placement (gca/gen/planted_sb.hpp).
int write_planted_sb(const cli& c) {
  gca::planted_sb_options o;
  o.tensors = c.planted_sb;
  o.memory = c.planted_psum ? gca::memory_type::psum : gca::memory_type::sb;
  o.seed = c.seed;
  o.pins = c.pins;
  o.holes = c.holes;
  o.tightness = c.tightness;
  o.family = c.family == "128"     ? gca::planted_sb_family::only128
             : c.family == "tight" ? gca::planted_sb_family::tight
                                   : gca::planted_sb_family::mixed;
  const auto tg = gca::find_target(c.target);
  if (!tg || (c.family != "mixed" && c.family != "128" && c.family != "tight") ||
      (c.construction != "epochs" && c.construction != "sweep"))
    return usage();
  o.construction = c.construction == "sweep" ? gca::planted_sb_construction::sweep : gca::planted_sb_construction::epochs;
  o.tgt = *tg;
  try {
    std::cout << gca::make_planted_sb(o).text;
  } catch (const gca::input_error& e) {
    std::cerr << "gca-gen: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

/// --planted-dsa: a DSA CSV with a planted solution (gca/io/planted_dsa.hpp), its capacity on stderr.
int write_planted_dsa(const cli& c) {
  const auto fam = gca::parse_planted_family(c.planted);
  if (!fam || c.planted_buffers == 0 || c.planted_buffers > 1000000 || !(c.tightness > 0 && c.tightness <= 1))
    return usage();
  gca::planted_dsa d;
  try {
    d = gca::make_planted_dsa({.family = *fam, .buffers = c.planted_buffers, .seed = c.seed, .tightness = c.tightness});
  } catch (const gca::input_error& e) {
    std::cerr << "gca-gen: " << e.what() << '\n';
    return 1;
  }
  std::cout << "id,lower,upper,size\n";
  for (const gca::dsa_buffer& b : d.problem.buffers)
    std::cout << b.id << ',' << b.lower << ',' << b.upper << ',' << b.size << '\n';
  std::cerr << "capacity=" << d.capacity << " buffers=" << d.problem.buffers.size()
            << " max_live=" << gca::max_live(d.problem) << '\n';
  return 0;
}

/// The layered kernel (see the top of this file). Every draw of `rng` is in output order, so the text is
/// deterministic in the seed.
class kernel_writer {
 public:
  kernel_writer(const cli& c, const gca::target& tgt)
      : c_(c), tgt_(tgt), rng_(c.seed), layers_(c.points / (11 + c.matmuls) / c.cores + 1),
        half_(std::max<std::uint64_t>(1, layers_ / 2)), per_layer_((c.dram_live + half_ - 1) / half_) {}

  void write() {
    // --dram-live: saved tensor k is stored by layer k / per_layer of the first half and loaded back by
    // the mirror layer (layers - 1 - that layer) of the second half. Pareto sizes, 4 KiB and up.
    std::vector<std::uint64_t> saved_bytes(c_.dram_live);
    for (std::uint64_t& b : saved_bytes) {
      const double u = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
      b = (static_cast<std::uint64_t>(std::min(4096.0 * 256, 4096.0 / std::pow(u, 1.0 / 1.3))) + 63) / 64 * 64;
    }
    std::cout << "module generated target=" << c_.target << "\n";
    for (std::uint64_t core = 0; core < c_.cores; ++core) {
      std::cout << "\nfunction core" << core << " core=" << core << " {\n";
      std::cout << "  tensor %in : dram 1048576 input\n  tensor %out : dram 1048576 output\n";
      for (std::uint64_t l = 0; l < layers_; ++l) declare_layer(l);
      for (std::uint64_t k = 0; k < c_.dram_live; ++k) std::cout << "  tensor %sv" << k << " : dram " << saved_bytes[k] << "\n";
      for (std::uint64_t l = 0; l < layers_; ++l) write_layer(l);
      std::cout << "}\n";
    }
  }

 private:
  std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) { return lo + rng_() % (hi - lo + 1); }
  /// Tile bytes per partition: about eight SB tiles are alive at the busiest point of a layer.
  std::uint64_t tile() {
    const double b = static_cast<double>(tgt_.sb_usable) * c_.pressure / 8.0;
    return static_cast<std::uint64_t>(b * static_cast<double>(pick(70, 100)) / 100.0) / 4 * 4 + 4;
  }

  void declare_layer(std::uint64_t l) {
    const std::string s = std::to_string(l);
    std::cout << "  tensor %w" << s << " : dram 65536 input\n";
    if (l + 1 < layers_) std::cout << "  tensor %d" << s << " : dram 262144\n";
    std::cout << "  tensor %a" << s << " : sb 128x" << tile() << "\n";
    std::cout << "  tensor %b" << s << " : sb 128x" << tile() << "\n";
    std::cout << "  tensor %sc" << s << " : sb 128x" << tile() << "\n";
    std::cout << "  tensor %o" << s << " : sb 128x2048\n";
    std::cout << "  tensor %t" << s << " : sb 128x2048\n";
    std::cout << "  tensor %r" << s << " : sb 128x" << tile() << "\n";
    std::cout << "  tensor %acc" << s << " : psum 128x" << 512 * pick(1, 4) << "\n";
    std::cout << "  tensor %i" << s << " : reg\n";
  }

  void write_layer(std::uint64_t l) {
    const std::string s = std::to_string(l);
    const std::string src = l == 0 ? "%in" : "%d" + std::to_string(l - 1);
    const std::string dst = l + 1 == layers_ ? "%out" : "%d" + s;
    std::cout << "  %sc" << s << " = load %w" << s << "\n";
    if (layers_ - 1 - l < half_ && layers_ - 1 - l != l)  // second half: load back the mirror layer's tensors
      for (std::uint64_t k = (layers_ - 1 - l) * per_layer_; k < std::min(c_.dram_live, (layers_ - l) * per_layer_); ++k)
        std::cout << "  %r" << s << " = load %sv" << k << "\n  %sc" << s << " = mul %sc" << s << ", %r" << s << "\n";
    std::cout << "  %r" << s << " = load " << src << "\n";
    std::cout << "  %i" << s << " = iota\n";
    std::cout << "  loop m" << s << " " << pick(2, 8) << " {\n";
    std::cout << "    %acc" << s << " = memset\n";
    std::cout << "    loop k" << s << " " << pick(2, 16) << " {\n";
    std::cout << "      %a" << s << " = load " << src << "\n";
    std::cout << "      %b" << s << " = load %w" << s << "\n";
    for (std::uint64_t k = 0; k < c_.matmuls; ++k)
      std::cout << "      %acc" << s << " += matmul %a" << s << ", %b" << s << ", %i" << s << "\n";
    std::cout << "    }\n";
    std::cout << "    %o" << s << " = act %acc" << s << "\n";
    std::cout << "    %t" << s << " = mul %o" << s << ", %sc" << s << ", %r" << s << "\n";
    std::cout << "    " << dst << " = store %t" << s << "\n";
    std::cout << "  }\n";
    if (l < half_ && layers_ - 1 - l != l)  // first half: save this layer's share
      for (std::uint64_t k = l * per_layer_; k < std::min(c_.dram_live, (l + 1) * per_layer_); ++k)
        std::cout << "  %sv" << k << " = store %sc" << s << "\n";
  }

  const cli& c_;
  const gca::target& tgt_;
  std::mt19937_64 rng_;
  const std::uint64_t layers_, half_, per_layer_;
};

}  // namespace

int main(int argc, char** argv) {
  cli c;
  if (!parse_args(argc, argv, c)) return usage();
  if (c.live > 0 && c.trace == 0) return usage();
  if (c.trace > 0) return c.live > 0 ? write_dense_trace(c.trace, c.live, c.seed) : write_trace(c.trace, c.seed);
  if (c.planted_sb > 0) return write_planted_sb(c);
  if (!c.planted.empty()) return write_planted_dsa(c);
  const auto tgt = gca::find_target(c.target);
  if (!tgt || c.cores == 0 || c.cores > 64 || !(c.pressure > 0) || c.points == 0 || c.matmuls == 0 || c.matmuls > 4096)
    return usage();
  kernel_writer(c, *tgt).write();
  return 0;
}
