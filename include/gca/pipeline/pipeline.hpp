// gca/pipeline/pipeline.hpp — the pass schedules of each optimization level, and the pass manager.
//
// Provides `build_pipeline(config)` (the pre-codegen builder: optlevels 1, 2, 3 and 6 of the coloring
// family, in the exact order of docs/HARDWARE.md section 2, with the --disable-dram-allocation,
// --disable-dram-rotation and --memory-analysis-after gates), `build_post_link_pipeline()` (the low-level
// builder that runs after bir_linker), and `run_pipeline`, which runs a schedule through a registry.
// Names gca does not implement are the registry's error, or, when the caller asks for it, skipped with a
// line saying so: gca never pretends to run a pass.
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/module.hpp>
#include <gca/pipeline/passes.hpp>

namespace gca {

struct pipeline_config {
  int optlevel = 2;
  std::string allocator = "coloring";        // --allocator: "coloring", or "lsa" (linear-scan engines)
  bool disable_dram_allocation = false;      // --disable-dram-allocation
  bool disable_dram_rotation = false;        // --disable-dram-rotation
  std::set<std::string> memory_analysis_after{};  // --memory-analysis-after PASS,...
};

/// The pre-codegen schedule of `cfg` (the Neuron allocator's sub_80A6E0 at optlevel 1/2/3; sub_807EF0 at 6).
template <class = void>
std::vector<std::string> build_pipeline(const pipeline_config& cfg) {
  // The Neuron compiler names the linear-scan family (`lsa`) but not its passes: gca runs the same schedule with
  // each allocator's engine switched to linear scan (allocator_options::engine, set by the caller).
  if (cfg.allocator != "coloring" && cfg.allocator != "lsa")
    throw input_error("--allocator " + cfg.allocator + ": unknown allocator family (known: coloring, lsa)");
  const int o = cfg.optlevel;
  if (o == 4 || o == 5) throw input_error("optlevel " + std::to_string(o) + " is not defined (the Neuron compiler describes optlevels 1, 2, 3, 6 and 7)");
  if (o < 1 || o > 7) throw input_error("optlevel " + std::to_string(o) + " does not exist (use 1, 2, 3, 6 or 7)");
  // Optlevel 7 (the Neuron allocator's SMT allocation plane, `--smt-allocation`): the -O2 schedule; its allocators
  // place SB and PSUM with the exact search first and color only as a fallback
  // (allocator_options::search.primary, set by the caller: gca-alloc does it for -O7).
  std::vector<std::string> s;
  auto emit = [&](const std::string& p) {
    s.push_back(p);
    if (cfg.memory_analysis_after.count(p) != 0) s.push_back("memory_analysis_after_" + p);
  };
  emit("runtime_memory_reservation");
  emit("psum_legalization");
  if (o == 6) {
    emit("coloring_allocator_with_loop");  // PSUM then SB over one flattened function
    emit("dma_optimization_psum");
    emit("address_rotation_psum");
    emit("dma_optimization_sb");
    emit("address_rotation_sb");
  } else {
    emit("coloring_allocator_psum");
    emit("dma_optimization_psum");
    emit("address_rotation_psum");
    emit("coloring_allocator_sb");
    emit("dma_optimization_sb");
    emit("address_rotation_sb");
  }
  emit("non_ssa_legalization");
  if (!cfg.disable_dram_allocation) emit("coloring_allocator_dram");
  if (!cfg.disable_dram_rotation) emit("address_rotation_dram");  // there is no dma_optimization_dram
  emit("dynamic_dma_cleanup");
  emit("build_fdeps");
  emit("anti_dependency_analyzer");
  emit("coloring_allocator_dram_shared");
  emit("sync_shared_allocations");
  emit("extend_shared_lifetimes");
  emit("lower_local_collectives");
  emit("coloring_allocator_dram_debug");
  return s;
}

/// The low-level builder (sub_805870): always after codegen, starting with bir_linker.
template <class = void>
std::vector<std::string> build_post_link_pipeline() {
  return {"bir_linker",
          "report_stats",
          "coloring_allocator_dram_post_lnk",
          "coloring_allocator_dram_shared_post_lnk",
          "sync_shared_allocations",
          "coloring_allocator_dram_post_lnk",
          "anti_dependency_analyzer_post_lnk",
          "separate_load_and_compute_post_ada",
          "lower_ap",
          "coloring_allocator_reg",
          "vnc_remote_addr_map"};
}

struct run_options {
  bool skip_unregistered = false;  // skip names the registry lacks, with a line, instead of failing
  std::ostream* log = nullptr;     // skip lines and the passes' own log lines
};

/// Runs `schedule` over `m`, pass by pass. Memory-analysis steps are registered on the fly. Throws on
/// the first failing pass; passes that already ran keep their effect, the failing one leaves none.
template <class = void>
std::vector<pass_report> run_pipeline(module& m, const std::vector<std::string>& schedule,
                                      pass_registry registry, const pass_options& popt,
                                      const run_options& ropt = {}) {
  std::vector<pass_report> out;
  for (const std::string& name : schedule) {
    if (name.rfind("memory_analysis_after_", 0) == 0 && !registry.contains(name)) add_memory_analysis(registry, name);
    if (!registry.contains(name) && ropt.skip_unregistered) {
      if (ropt.log) *ropt.log << "skipping " << name << ": not implemented by gca (register it to run it)\n";
      continue;
    }
    backend_pass p = registry.create(name, popt);
    out.push_back(p.run(m));
  }
  return out;
}

/// The compiled mode (gca/compiled.hpp) compiles the pass registry and the pipeline runner once, into the
/// gca_compiled library, as it does the parser (ir/parser.hpp); gca/compiled.cpp expands the same list
/// as the definitions.
#define GCA_COMPILED_PIPELINE(Prefix)                                                                       \
  Prefix template backend_pass make_coloring_allocator<void>(memory_type, bool, address_space, address_space, \
                                                             const pass_options&);                          \
  Prefix template pass_registry default_registry<void>();                                                   \
  Prefix template std::vector<pass_report> run_pipeline<void>(module&, const std::vector<std::string>&,     \
                                                              pass_registry, const pass_options&,           \
                                                              const run_options&);
#ifdef GCA_COMPILED
GCA_COMPILED_PIPELINE(extern)
#endif

}  // namespace gca
