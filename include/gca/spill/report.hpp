// gca/spill/report.hpp — what one space's allocation is asked and what it answers, as plain values: the
// exact search's budgets (search_options), what the fixpoint spilled (spill_state), the -O7 DRAM peak
// search's verdict (peak_search_report), and the space's report (space_report).
//
// Apart from the phases that fill them (spill/fixpoint.hpp, spill/place_or_prove.hpp, spill/dram_peak.hpp)
// so the drivers' declarations (drivers/coloring_allocator.hpp) and a caller
// reading reports need none of those bodies: in the compiled mode (gca/compiled.hpp) a file that runs an
// allocator parses this header, not the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/ir/types.hpp>
#include <gca/engine/space_filter.hpp>

namespace gca {

/// The exact placement search's budgets (spill/place_or_prove.hpp, and spill/dram_peak.hpp at -O7).
struct search_options {
  bool enabled = true;                  // run the exact search when coloring leaves SB/PSUM nodes unplaced
  bool primary = false;                 // optlevel 7: the search places the space first, coloring is the fallback
  std::uint64_t nodes = 1000000;        // search nodes for the spill-free placement of a whole space
                                        // (the first round; later rounds of the fixpoint get a tenth)
  std::uint64_t guided_nodes = 20000;   // search nodes for each trial set of spill victims
  // Search nodes for each repair walk that grows the victims' set from the search's best state
  // (spill/place_or_prove.hpp, guided_victims::repair_set): at most four walks, each started next to a
  // placement (every node but a few where the best state had it), where the trial sets after them are
  // dozens of searches of guided_nodes. On six SB kernels of 150 tensors at tightness 0.97 that the search
  // gave up on, walks of 20,000 nodes left the spilled webs' reloads out, and the trial sets then chose
  // 74 victims in all, where walks of 200,000 nodes led to 42 (docs/PERFORMANCE.md section 10, "Longer
  // walks for the victims' set").
  std::uint64_t repair_set_nodes = 200000;
  std::uint64_t point_nodes = 5000;     // search nodes for each instruction's operand set (proof 1)
  std::size_t proof_points = 64;        // how many of the fullest points proof 1 examines
  std::uint64_t total_nodes = 3000000;  // per space: after this many, the search runs only to prove a refusal
  std::uint64_t max_pairs = std::uint64_t{1} << 20;  // past this many interfering pairs no search runs
                                                     // (search_limits::max_pairs)
  // Optlevel 7, DRAM (spill/dram_peak.hpp): the 1-D search lowering the colorer's peak. Search nodes per
  // probe of one capacity and per space over all probes, and the largest problem it is asked (each search
  // node scans the unplaced nodes, and the hull graph holds every interfering pair).
  std::uint64_t peak_probe_nodes = 20000;
  std::uint64_t peak_total_nodes = 200000;
  std::size_t peak_max_nodes = 5000;
  std::uint64_t peak_max_pairs = std::uint64_t{1} << 20;
  // Per space, the search's wall-clock budget: at most `time_share` of the time left before the
  // allocation's deadline (the watchdog, --timeout), from the space's start, and at most `seconds`. Past
  // it every search of the space gives up at once (and says so), so the fixpoint spills or refuses
  // honestly instead of meeting the watchdog. Under the default deadline (2700 s) the node budgets end the
  // search long before the clock, so the results stay deterministic; the clock decides only near a short
  // deadline (e.g. --timeout 20: 10 s of search).
  double seconds = std::numeric_limits<double>::infinity();
  double time_share = 0.5;
  // Threads of one search (search_limits::threads): the same answers and node counts at any count. The
  // allocators set it to the threads a function's best-of-n coloring gets (drivers/allocate.hpp).
  unsigned threads = 1;
};

/// What the fixpoint carries from one iteration to the next, and what it reports at the end.
struct spill_state {
  std::vector<std::uint8_t> no_spill;  // per tensor of lf.work(): a reload/spill temporary, never spilled again
  std::size_t spilled_webs = 0;        // webs spilled (the Neuron allocator's "number of tensors spilled")
  std::uint64_t spilled_bytes = 0;     // bytes per partition of the spilled webs' tensors
  std::uint64_t cycles = 0;            // estimated DMA cycles of the inserted code (the cost model of docs/ALLOCATOR.md section 4)
  std::size_t reloads = 0;             // reload (or re-load) instructions inserted
  std::size_t stores = 0;              // spill instructions inserted
  std::vector<std::string> spilled;    // names of spilled tensors, in spill order
  std::vector<tensor_id> hopeless;     // set when no spill can help: the tensors over-filling a point
  std::vector<web_id> guided;          // victims the exact search chose for this round (used once, then cleared)
  bool is_temp(tensor_id t) const noexcept { return t < no_spill.size() && no_spill[t] != 0; }
};

/// The -O7 DRAM peak search's verdict (spill/dram_peak.hpp, which explains each).
enum class peak_verdict : std::uint8_t { proven_optimal, feasible, coloring_fallback };

/// What the DRAM peak search did for one space (one function's local or debug DRAM).
struct peak_search_report {
  peak_verdict verdict = peak_verdict::coloring_fallback;
  std::uint64_t coloring_peak = 0;  // the colorer's peak (the search starts from it)
  std::uint64_t peak = 0;           // the committed peak (<= coloring_peak)
  std::uint64_t lower_bound = 0;    // linear_lower_bound of the space
  std::uint64_t nodes = 0;          // search nodes spent over all probes
  std::size_t probes = 0;           // capacities asked
  bool exact = false;               // the search input is the true problem (see the header comment)
  std::string note;                 // coloring_fallback: why (did not run, or what the probes answered)
};

/// What allocating one space of one function did (spill/fixpoint.hpp, allocate_space).
struct space_report {
  memory_type memory = memory_type::sb;
  address_space space = address_space::local;
  bool ok = false;
  std::string error;              // the failure message (empty when ok)
  std::vector<std::string> unplaceable;  // tensors named by the failure
  std::size_t iterations = 0;     // attempts made (the Neuron allocator's "Number of iterations in SB spills do loop")
  std::string heuristic;          // best-of-n winner of the last attempt
  std::uint64_t peak = 0;         // the score: highest end in the space's linear measure
  std::size_t nodes = 0;          // graph nodes in the last attempt
  std::size_t edges = 0;          // graph edges in the last attempt
  std::size_t split = 0;          // webs committed as tensors of their own (memloc_split)
  std::vector<std::pair<std::string, std::string>> coalesced;  // find_partners: (tensor, partner) sharing a place
  spill_state spills;             // what was spilled, and its estimated cost
  std::string placed_by = "coloring";  // "coloring", "linear scan" or "exact search" (who placed the result)
  std::uint64_t search_nodes = 0;      // search nodes spent by the exact placement search
  std::string search_outcome;          // the search's first answer for a spill-free placement ("found",
                                       // "infeasible", "gave up"; empty: not run); -O7: the primary search's
  std::string search_skipped;          // when a search did not run (search_options::max_pairs): why
  std::optional<peak_search_report> peak_search;  // optlevel 7, DRAM: the 1-D search lowering the peak
};

}  // namespace gca
