// custom_accelerator — gca instantiated for an accelerator that is not Trainium, from outside the library
// (examples/vega.hpp describes it).
//
//   custom-accelerator [KERNEL.gca]   allocates the kernel (default: vega::default_kernel) for vega one
//                                     allocator at a time, then through the -O2 and post-link pipelines
//                                     with vega's accumulator registered in place of Trainium's and its
//                                     weight buffer's pass before SBUF's; verifies both against the input
//                                     program; prints the accumulator's banks and the weight buffer's
//                                     places. Exit 0 when both verify, 2 when one does not, 3 on an error.
#include <iostream>
#include <string>
#include <vector>

#include <gca/gca.hpp>

#include "vega.hpp"

int main(int argc, char** argv) {
  try {
    const gca::target user_targets[] = {vega::chip};
    const gca::place_rules rules = vega::rules();  // pins and results are judged in whole banks
    const gca::parse_options po{.targets = user_targets, .rules = rules};
    const gca::module original =
        argc > 1 ? gca::parse_file(argv[1], po) : gca::parse(vega::default_kernel, "<vega kernel>", po);

    // One allocator at a time, in the cascade's order (a memory's spill slots are placed by a later pass).
    gca::module m = original;
    const gca::pass_report acc = vega::accumulator_allocator({}, vega::spill).run(m);
    const gca::pass_report wb = vega::wbuf_allocator({}, vega::spill).run(m);  // its victims go to SBUF
    gca::coloring_allocator_sb{}.run(m);
    gca::coloring_allocator_dram{}.run(m);
    gca::coloring_allocator_reg{}.run(m);
    const gca::translation_report v = gca::verify(original, m, {.rules = rules});  // still computes the same
    if (!v.ok()) {
      std::cerr << v.message();
      return 2;
    }
    gca::module packed = original;  // for contrast: Trainium's accumulator geometry on vega's numbers
    const gca::pass_report std_acc = gca::coloring_allocator_psum({}, vega::spill).run(packed);
    std::cout << "psum_banks (partitions packed in a bank): " << std_acc.functions[0].second.spills.spilled_webs
              << " webs spilled\n";
    std::cout << "accumulator (whole banks of " << vega::chip.psum_bank_bytes << " bytes), spilled to DRAM:";
    for (const auto& [fn, r] : acc.functions)
      for (const std::string& s : r.spills.spilled) std::cout << " %" << s;
    std::cout << '\n';
    const gca::function& f = m.functions[0];
    std::vector<char> used(f.tensors.size(), 0);  // a spilled tensor's reads and writes now name temporaries
    for (gca::tensor_id x : f.operands) used[x] = 1;
    for (gca::tensor_id x = 0; x < f.tensors.size(); ++x)
      if (const gca::tensor& t = f.tensors[x]; used[x] && t.memory == gca::memory_type::psum && t.at)
        std::cout << "  %" << t.name << " : banks " << t.at->offset / vega::chip.psum_bank_bytes << ".."
                  << (t.at->offset + t.shape.bytes - 1) / vega::chip.psum_bank_bytes << '\n';
    std::cout << "weight buffer (" << vega::memories[0].partitions << " x " << vega::memories[0].bytes
              << " bytes), spilled to SBUF:";
    for (const auto& [fn, r] : wb.functions)
      for (const std::string& s : r.spills.spilled) std::cout << " %" << s;
    std::cout << '\n';
    for (gca::tensor_id x = 0; x < f.tensors.size(); ++x)
      if (const gca::tensor& t = f.tensors[x]; used[x] && t.memory == vega::wbuf && t.at)
        std::cout << "  %" << t.name << " : partitions " << t.at->partition << ".."
                  << t.at->partition + t.shape.partitions - 1 << ", bytes " << t.at->offset << ".."
                  << t.at->offset + t.shape.bytes - 1 << '\n';

    // The -O2 pipeline of gca's registry, vega's accumulator registered in place of Trainium's and the
    // weight buffer's pass before SBUF's.
    gca::module p = original;
    const gca::pass_registry reg = vega::registry();
    gca::run_pipeline(p, vega::pipeline(2), reg, {}, {.skip_unregistered = true});
    gca::run_pipeline(p, gca::build_post_link_pipeline(), reg, {}, {.skip_unregistered = true});  // DRAM, REG
    const gca::translation_report vp = gca::verify(original, p, {.linked = true, .rules = rules});
    if (!vp.ok()) {
      std::cerr << vp.message();
      return 2;
    }
    std::cout << "-O2 and post-link pipelines with vega's accumulator and weight buffer: verify: ok\n";
    std::cout << "one allocator at a time: verify: ok\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 3;
  }
  return 0;
}
