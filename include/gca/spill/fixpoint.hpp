// gca/spill/fixpoint.hpp — the per-space colorer: the Neuron allocator's *_Allocator::allocate with its spill fixpoint.
//
// Provides `allocate_space`: color one memory of a linearized function; while select leaves webs
// unplaced, let the SpillPolicy insert spill code (a larger function) and color again. The loop ends on
// data, not on a count: when an attempt places everything (commit), or when the policy says spilling can't
// help (failure, with the Neuron allocator's message and the tensors named). The only other way out is the
// wall-clock watchdog, which throws timeout_error ("GCA is taking too long"). The figures the Neuron allocator logs
// are returned in a `space_report` and sent to the Observer.
//
//   restart:  renumber_locations, liveness (partners, first defs, last uses, loads, memloc_split,
//             live_range), build, find_costs, simplify, select   (engine/space_colorer.hpp)
//             complete?  -> commit, return
//             otherwise  -> create_eintervals + insert_spill_code (the policy), goto restart
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gca/engine/colorer.hpp>
#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/error.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/ir/target.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/concept.hpp>
#include <gca/watchdog.hpp>
#include <gca/spill/dram_peak.hpp>
#include <gca/spill/place_or_prove.hpp>
#include <gca/spill/report.hpp>

namespace gca {

struct space_options {
  std::vector<color_options> variants = default_variants(true);  // the best-of-n heuristics, in order
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::vector<placed_neighbor> blockers;  // fixed, live everywhere (other cores' memory); must not overlap
  engine_kind engine = engine_kind::chaitin_briggs;  // the coloring plane, or the `lsa` family
  unsigned threads = 1;  // best-of-n variants colored at once (the result does not depend on it)
  search_options search;  // the exact placement search of SB and PSUM (spill/place_or_prove.hpp)
  pass_cache* cache = nullptr;  // what passes share (engine/space_colorer.hpp: liveness, DRAM answers)
};

/// The message when spilling can't help (docs/HARDWARE.md section 3), with the tensors named.
inline std::string cant_help_message(memory_type m, const std::vector<std::string>& names) {
  std::string s = "couldn't allocate every tensor in " + std::string(log_name(m)) + " and spilling can't help";
  if (!names.empty()) {
    s += " (";
    for (std::size_t k = 0; k < names.size(); ++k) s += (k ? ", %" : "%") + names[k];
    s += ")";
  }
  return s;
}

/// The tensors of the webs an attempt left unplaced.
inline std::vector<tensor_id> unplaced_tensors(const space_attempt& a) {
  std::vector<tensor_id> who;
  for (web_id w : a.unplaced_webs()) who.push_back(a.live.webs[w].tensor);
  return who;
}

/// The message when allocation fails and no proof that spilling can't help exists (docs/HARDWARE.md's "can't
/// help" is a promise: it is printed only with a proof).
inline std::string gave_up_message(memory_type m, const std::vector<std::string>& names, std::uint64_t nodes,
                                   bool out_of_time = false) {
  std::string s = "couldn't allocate every tensor in " + std::string(log_name(m));
  if (!names.empty()) {
    s += " (";
    for (std::size_t k = 0; k < names.size(); ++k) s += (k ? ", %" : "%") + names[k];
    s += ")";
  }
  return s + ": nothing more can be spilled, and the placement search gave up after " + std::to_string(nodes) +
         " search nodes" + (out_of_time ? " (its time budget spent)" : "") +
         " without finding a placement or proving that none exists";
}

/// Why the fixpoint stops when nothing more can be spilled (and no proof ended it earlier).
enum class refusal {
  search_gave_up,   // the exact search ran and proved nothing: say so, never "can't help"
  search_off,       // a rectangle memory with the search off: nothing is proved
  over_full,        // the policy's over-full point: the live area there exceeds the memory, whatever is spilled
  not_rectangular,  // a memory without a rectangle view (registers, a user geometry): no search exists, the policy names its tensors
};

/// The error of such a stop, naming the user's tensors. (The policy's own over-full point is an area
/// proof; with the search on, the search's proof 1 would have found it, so search_gave_up comes first.)
inline std::string nothing_left_message(refusal why, memory_type m, const std::vector<std::string>& names,
                                        std::uint64_t search_nodes, bool search_out_of_time) {
  switch (why) {
    case refusal::search_gave_up:
      return gave_up_message(m, names, search_nodes, search_out_of_time);
    case refusal::search_off:
      return "couldn't allocate every tensor in " + std::string(log_name(m)) + " (%" +
             (names.empty() ? std::string("?") : names.front()) + (names.size() > 1 ? ", ..." : "") +
             "): nothing more can be spilled, and the placement search is off (no proof that spilling can't help)";
    case refusal::over_full:
      return cant_help_message(m, names) +
             ": their area at one instruction exceeds the memory, and none of them can be spilled there";
    case refusal::not_rectangular:
      break;
  }
  return cant_help_message(m, names);
}

/// allocate_space with the geometry behind a geometry_ref (its body is compiled once per spill policy
/// and observer, not once per geometry).
template <SpillPolicy Spill, class Observer = null_observer>
space_report allocate_space(linearized_function& lf, const target& tgt, const space_filter& filter,
                            geometry_ref geom, const Spill& spill, Observer& obs, const space_options& opt = {}) {
  const watchdog_scope watchdog(opt.deadline);  // fires inside an attempt too (simplify, select)
  space_report rep;
  rep.memory = filter.memory;
  rep.space = filter.space;
  obs.will_allocate(filter.memory);
  rep.spills.no_spill.assign(lf.work().tensors.size(), 0);

  // A tensor that fits nowhere even alone can't be helped by spilling others.
  for (const tensor& t : lf.work().tensors)
    if (filter.colors(t) && !geom.fits(t.shape)) rep.unplaceable.push_back(t.name);
  if (!rep.unplaceable.empty()) {
    rep.error = cant_help_message(filter.memory, rep.unplaceable);
    return rep;
  }

  const std::optional<rect_layout> lay = opt.search.enabled ? geom.rect() : std::nullopt;
  const auto search_until = search_deadline(opt.search, std::chrono::steady_clock::now(), opt.deadline);
  auto spillable = [&](const space_attempt& x, web_id w) {
    if constexpr (ReportsSpillable<Spill>)
      return Spill::spillable(lf.work(), x.live, w, filter, rep.spills);
    else
      return false;
  };
  auto names_of = [&](std::vector<tensor_id> who) {
    for (tensor_id& t : who) t = rep.spills.original(t);
    std::sort(who.begin(), who.end());
    who.erase(std::unique(who.begin(), who.end()), who.end());
    std::vector<std::string> names;
    for (tensor_id t : who) names.push_back(lf.work().tensors[t].name);
    return names;
  };
  auto finish = [&](space_attempt& a) {
    obs.did_color(filter.memory, rep.heuristic);
    for (const auto& [w, v] : a.coalesced)
      rep.coalesced.emplace_back(lf.work().tensors[a.live.webs[w].tensor].name,
                                 lf.work().tensors[a.node_tensor[v]].name);
    rep.split = commit_space(lf, a, filter, geom);
    if (opt.cache) opt.cache->liveness.give_back(std::move(a.live), std::move(a.live_key));
    rep.ok = true;
    obs.did_finish(filter.memory, rep.iterations, rep.spills.cycles, rep.spills.spilled_webs,
                   rep.spills.spilled_bytes);
  };
  for (;;) {
    if (std::chrono::steady_clock::now() > opt.deadline) throw timeout_error();
    ++rep.iterations;
    lf.renumber_locations();
    if (lay && opt.search.primary) {
      // Optlevel 7: the exact search places the space; coloring is the fallback.
      search_options so = opt.search;
      if (rep.iterations > 1) so.nodes = std::max<std::uint64_t>(1, so.nodes / 10);
      rescue r = place_or_prove(lf, filter, geom, *lay, opt.blockers, so, search_until, spillable, false);
      rep.search_nodes += r.search_nodes;
      if (rep.search_outcome.empty()) rep.search_outcome = std::string(to_string(r.spill_free));
      if (r.placed) {
        rep.placed_by = r.by_linear_scan ? "linear scan" : "exact search";
        rep.heuristic = "exact-search";
        rep.peak = r.placed->result->peak;
        rep.nodes = r.placed->node_web.size();
        finish(*r.placed);
        return rep;
      }
    }
    space_attempt a =
        color_space(lf, filter, geom, opt.variants, obs, opt.blockers, opt.engine, opt.threads, opt.cache);
    rep.heuristic = name(a.result->options);
    rep.peak = a.result->peak;
    rep.nodes = a.result->stats.nodes;
    rep.edges = a.result->stats.edges;
    rep.placed_by = "coloring";
    if (a.complete()) {
      if (opt.search.primary && opt.search.enabled && geom.space() == memory_type::dram) {
        // Optlevel 7: the 1-D exact search lowers the colorer's peak (spill/dram_peak.hpp).
        rep.peak_search = lower_linear_peak(lf, filter, geom, opt.blockers, opt.search, opt.deadline, a);
        rep.search_nodes += rep.peak_search->nodes;
        if (rep.peak_search->peak < rep.peak) {
          rep.placed_by = "exact search";
          rep.heuristic = "exact-search";
          rep.peak = rep.peak_search->peak;
          rep.nodes = a.node_web.size();
        }
      }
      finish(a);
      return rep;
    }
    const function& f = lf.work();
    if (!a.result->pinned_conflicts.empty()) {
      const auto [u, v] = a.result->pinned_conflicts.front();
      auto who = [&](node_id x) {
        return a.node_tensor[x] == no_tensor ? std::string("<memory of another core>") : f.tensors[a.node_tensor[x]].name;
      };
      rep.unplaceable = {who(u), who(v)};
      rep.error = cant_help_message(filter.memory, rep.unplaceable) + ": pinned tensors overlap while both live";
      return rep;
    }
    // SB and PSUM: before spilling anything, the exact search (spill/place_or_prove.hpp). The first
    // round decides whether the kernel needs any spill at all: it gets the full budget, later rounds a
    // tenth, and once a space has spent `total_nodes` the search only runs again to prove a refusal.
    // Past `search_until` (search_options::seconds, time_share) every search gives up at once.
    search_options so = opt.search;
    if (rep.iterations > 1) so.nodes = std::max<std::uint64_t>(1, so.nodes / 10);
    const bool budget_left = rep.search_nodes < opt.search.total_nodes && std::chrono::steady_clock::now() < search_until;
    std::optional<rescue> r;
    if (lay && budget_left) {
      r = place_or_prove(lf, filter, geom, *lay, opt.blockers, so, search_until, spillable);
      rep.search_nodes += r->search_nodes;
      if (r->placed) {
        rep.placed_by = r->by_linear_scan ? "linear scan" : "exact search";
        rep.peak = r->placed->result->peak;
        finish(*r->placed);
        return rep;
      }
      rep.spills.guided = r->victims;
    }
    // A proof ends the fixpoint at once (with the instruction of the original program named): asked
    // before spilling when the search found no victims, and in any case before refusing.
    std::optional<rescue> proof;
    auto refuse_with_proof = [&] {
      rep.unplaceable = names_of(proof->proof_tensors.empty() ? unplaced_tensors(a) : proof->proof_tensors);
      rep.error = cant_help_message(filter.memory, rep.unplaceable) + ": " + proof->proof + " (proved by the placement search)";
      return rep;
    };
    if (r && r->victims.empty()) {
      proof = prove_cant_help(lf, filter, geom, *lay, opt.blockers, so, search_until, spillable);
      rep.search_nodes += proof->search_nodes;
      if (proof->proven) return refuse_with_proof();
    }
    std::size_t spilled = spill.spill(lf, a, filter, tgt, rep.spills);
    if (spilled == 0 && lay && !proof) {
      proof = prove_cant_help(lf, filter, geom, *lay, opt.blockers, so, search_until, spillable);
      rep.search_nodes += proof->search_nodes;
      if (proof->proven) return refuse_with_proof();
    }
    if (spilled == 0 && proof && !proof->victims.empty()) {
      // Nothing the policy would spill, but spilling every spillable web makes a placement possible.
      rep.spills.guided = proof->victims;
      spilled = spill.spill(lf, a, filter, tgt, rep.spills);
    }
    if (spilled == 0) {
      // Name the user's tensors: the ones over-filling a point if the policy found such a point, else
      // the unplaced ones; a temporary is reported as the tensor it stands for.
      std::vector<tensor_id> who = rep.spills.hopeless;
      if (who.empty()) who = unplaced_tensors(a);
      rep.unplaceable = names_of(who);
      const refusal why = lay                           ? refusal::search_gave_up
                          : !geom.rect()                ? refusal::not_rectangular
                          : rep.spills.hopeless.empty() ? refusal::search_off
                                                        : refusal::over_full;
      rep.error = nothing_left_message(why, filter.memory, rep.unplaceable, rep.search_nodes,
                                       std::chrono::steady_clock::now() >= search_until);
      return rep;
    }
  }
}

/// Colors memory `filter` of `lf` with `geom`, spilling with `spill` until everything is placed or
/// spilling can't help (see the top of this header).
template <GeometryPolicy Geometry, SpillPolicy Spill, class Observer = null_observer>
space_report allocate_space(linearized_function& lf, const target& tgt, const space_filter& filter,
                            const Geometry& geom, const Spill& spill, Observer& obs,
                            const space_options& opt = {}) {
  return allocate_space(lf, tgt, filter, geometry_ref(geom), spill, obs, opt);
}

}  // namespace gca
