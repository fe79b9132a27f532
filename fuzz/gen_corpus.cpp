// fuzz/gen_corpus.cpp — writes a few generated programs (tests/support/random_program.hpp) into the seed
// corpus, printed with gca::print (fuzz/corpus/gen_1.gca .. gen_12.gca came from it). To regenerate:
//   g++ -std=c++20 -O1 -Iinclude -Itests fuzz/gen_corpus.cpp -o build-fuzz/gen_corpus && build-fuzz/gen_corpus fuzz/corpus
#include <cstdio>
#include <fstream>
#include <string>

#include <gca/gca.hpp>

#include "support/random_program.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_corpus DIR\n");
    return 1;
  }
  const std::string dir = argv[1];
  int k = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    gca::test::random_program_options o;
    o.seed = seed;
    o.tgt = seed % 3 == 0 ? gca::trn3 : seed % 3 == 1 ? gca::trn2 : gca::trn1;
    o.functions = seed % 4 == 0 ? 2 : 1;
    o.instructions = 8 + static_cast<std::uint32_t>(seed % 4) * 4;
    o.max_loop_depth = static_cast<std::uint32_t>(seed % 4);
    o.sb_tensors = 4;
    o.psum_tensors = 2;
    o.dram_tensors = 1;
    o.shared_tensors = seed % 2;
    o.pressure = seed % 3 == 2 ? 1.5 : 0.5;
    o.pin_probability = seed % 5 == 0 ? 0.3 : 0.05;
    o.dram_max_bytes = 4096;
    const std::string text = gca::print(gca::test::random_program(o));
    std::ofstream(dir + "/gen_" + std::to_string(seed) + ".gca", std::ios::binary) << text;
    ++k;
  }
  std::printf("gen_corpus: wrote %d programs to %s\n", k, dir.c_str());
  return 0;
}
