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
//
// The loop is detail::space_fixpoint::run, one named step per line: unplaceable_alone, then per round
// placed_by_primary_search (-O7), color_space, colored, pinned_conflict, rescued (the exact search of
// SB and PSUM, or its proof), spilled (the policy; refuse when nothing can be spilled).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
#include <gca/spill/victims.hpp>

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

/// " (%a, %b)": the tensors a refusal names, or "" when it names none.
template <class = void>
std::string named_tensors(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  std::string s = " (";
  for (std::size_t k = 0; k < names.size(); ++k) s += (k ? ", %" : "%") + names[k];
  return s + ")";
}

/// The message when spilling can't help (docs/HARDWARE.md section 3), with the tensors named.
template <class = void>
std::string cant_help_message(std::string_view m, const std::vector<std::string>& names) {
  return "couldn't allocate every tensor in " + std::string(m) + " and spilling can't help" +
         named_tensors(names);
}

/// The tensors of the webs an attempt left unplaced.
template <class = void>
std::vector<tensor_id> unplaced_tensors(const space_attempt& a) {
  std::vector<tensor_id> who;
  for (web_id w : a.unplaced_webs()) who.push_back(a.live.webs[w].tensor);
  return who;
}

/// The message when allocation fails and no proof that spilling can't help exists (docs/HARDWARE.md's "can't
/// help" is a promise: it is printed only with a proof).
template <class = void>
std::string gave_up_message(std::string_view m, const std::vector<std::string>& names, std::uint64_t nodes,
                            bool out_of_time = false, std::string_view skipped = {}) {
  return "couldn't allocate every tensor in " + std::string(m) + named_tensors(names) +
         ": nothing more can be spilled, and the placement search gave up after " + std::to_string(nodes) +
         " search nodes" + (out_of_time ? " (its time budget spent)" : "") +
         (skipped.empty() ? std::string() : " (one search did not run: " + std::string(skipped) + ")") +
         " without finding a placement or proving that none exists";
}

/// The message when the colorer left tensors unplaced in a memory no exact search covers (DRAM and REG,
/// which have nowhere to spill; a user's geometry without a rectangle view), nothing more can be spilled,
/// and no instruction needs more than the memory holds: a placement may exist, so nothing is claimed.
template <class = void>
std::string colorer_gave_up_message(std::string_view m, const std::vector<std::string>& names) {
  return "couldn't allocate every tensor in " + std::string(m) + named_tensors(names) +
         ": the colorer found no place for them and nothing more can be spilled; no instruction needs more "
         "than the memory holds, so this is not a proof that no placement exists";
}

/// In a memory measured in one dimension (DRAM: bytes; REG: registers), is some point over-full whatever
/// goes where? Every node live at a point (pinned ones and other cores' bytes included) needs its own
/// bytes, or its own register, below geom.capacity() (GeometryPolicy, requirement 6), so a live total
/// above the capacity is a proof that no placement exists. Sums of integers below 2^53 are exact.
template <class = void>
bool linear_over_full(const space_attempt& a, const geometry_ref& geom) {
  detail::pressure_measure pm = detail::measure_of(geom);
  // Starts are aligned, so no two tensors share an alignment unit: each needs its size rounded up (the
  // block of whole-function webs is measured so), within the capacity rounded up.
  const std::uint64_t align = std::max<std::uint64_t>(1, geom.linear_alignment().value_or(1));
  const std::uint64_t cap = geom.capacity();
  pm.capacity = static_cast<double>(cap == unbounded ? cap : (cap + align - 1) / align * align);
  const std::size_t n_points = a.live.points + 2;
  const std::vector<double> pressure = detail::pressure_profile(a, pm, n_points);
  for (std::size_t p = 0; p < n_points; ++p)
    if (pm.over(pressure[p])) return true;
  return false;
}

/// Why the fixpoint stops when nothing more can be spilled (and no proof ended it earlier).
enum class refusal {
  search_gave_up,   // the exact search ran and proved nothing: say so, never "can't help"
  search_off,       // a rectangle memory with the search off: nothing is proved
  over_full,        // an over-full point: the live area there exceeds the memory, whatever is spilled
  colorer_gave_up,  // no rectangle view (DRAM, REG, a user geometry), no over-full point: nothing is proved
};

/// The error of such a stop, naming the user's tensors. (The policy's own over-full point is an area
/// proof; with the search on, the search's proof 1 would have found it, so search_gave_up comes first.)
template <class = void>
std::string nothing_left_message(refusal why, std::string_view m, const std::vector<std::string>& names,
                                 std::uint64_t search_nodes, bool search_out_of_time, std::string_view skipped = {}) {
  switch (why) {
    case refusal::search_gave_up:
      return gave_up_message(m, names, search_nodes, search_out_of_time, skipped);
    case refusal::search_off:
      return "couldn't allocate every tensor in " + std::string(m) + " (%" +
             (names.empty() ? std::string("?") : names.front()) + (names.size() > 1 ? ", ..." : "") +
             "): nothing more can be spilled, and the placement search is off (no proof that spilling can't help)";
    case refusal::over_full:
      return cant_help_message(m, names) +
             ": their area at one instruction exceeds the memory, and none of them can be spilled there";
    case refusal::colorer_gave_up:
      break;
  }
  return colorer_gave_up_message(m, names);
}

namespace detail {

/// One run of the fixpoint, as named steps over its shared state; allocate_space below is the loop. Each
/// step that ends the run returns true with the report final (placed, or refused with its message).
template <SpillPolicy Spill>
class space_fixpoint {
 public:
  space_fixpoint(linearized_function& lf, const target& tgt, const space_filter& filter, geometry_ref geom,
                 const Spill& spill, observer_ref obs, const space_options& opt)
      : lf_(lf), tgt_(tgt), filter_(filter), geom_(geom), spill_(spill), obs_(obs), opt_(opt),
        lay_(opt.search.enabled ? geom.rect() : std::nullopt),
        search_until_(search_deadline(opt.search, std::chrono::steady_clock::now(), opt.deadline)) {
    rep_.memory = filter.memory;
    rep_.space = filter.space;
    rep_.spills.no_spill.assign(lf.work().tensors.size(), 0);
  }

  space_report run() {
    obs_.will_allocate(filter_.memory);
    if (unplaceable_alone()) return std::move(rep_);
    for (;;) {
      if (std::chrono::steady_clock::now() > opt_.deadline) throw timeout_error();
      ++rep_.iterations;
      lf_.renumber_locations();
      if (placed_by_primary_search()) return std::move(rep_);
      space_attempt a = color_space(lf_, filter_, geom_, opt_.variants, obs_, opt_.blockers, opt_.engine,
                                    opt_.threads, opt_.cache);
      if (colored(a) || pinned_conflict(a)) return std::move(rep_);
      keep_input();
      if (rescued(a) || !spilled(a)) return std::move(rep_);
    }
  }

  /// The space's input, kept when the first coloring left nodes unplaced and the search is on (see
  /// allocate_space: the colorer alone is then tried on it too).
  std::optional<linearized_function>& input() { return input_; }

 private:
  void keep_input() {
    if (!input_ && rep_.iterations == 1 && lay_) input_ = lf_.clone();
  }

  /// A tensor that fits nowhere even alone can't be helped by spilling others.
  bool unplaceable_alone() {
    for (const tensor& t : lf_.work().tensors)
      if (filter_.colors(t) && !geom_.fits(t.shape)) rep_.unplaceable.push_back(t.name);
    if (rep_.unplaceable.empty()) return false;
    rep_.error = cant_help_message(log_name(tgt_, filter_.memory), rep_.unplaceable);
    return true;
  }

  /// Optlevel 7: the exact search places the space; coloring is the fallback. Later rounds get a tenth of
  /// the node budget (the first decides whether any spill is needed).
  bool placed_by_primary_search() {
    if (!lay_ || !opt_.search.primary) return false;
    rescue r = place_or_prove(lf_, filter_, geom_, *lay_, opt_.blockers, round_budget(), search_until_,
                              spillable_fn(), false);
    count_search(r);
    if (rep_.search_outcome.empty()) rep_.search_outcome = std::string(to_string(r.spill_free));
    if (!r.placed) return false;
    rep_.heuristic = "exact-search";
    rep_.nodes = r.placed->node_web.size();
    return finish_rescue(r);
  }

  /// The colorer's attempt: record its figures; when it placed everything, commit (at -O7, DRAM's peak
  /// first lowered by the 1-D exact search, spill/dram_peak.hpp).
  bool colored(space_attempt& a) {
    rep_.heuristic = name(a.result->options);
    rep_.peak = a.result->peak;
    rep_.nodes = a.result->stats.nodes;
    rep_.edges = a.result->stats.edges;
    rep_.placed_by = "coloring";
    if (!a.complete()) return false;
    if (opt_.search.primary && opt_.search.enabled && geom_.space() == memory_type::dram) {
      rep_.peak_search = lower_linear_peak(lf_, filter_, geom_, opt_.blockers, opt_.search, opt_.deadline, a);
      rep_.search_nodes += rep_.peak_search->nodes;
      if (rep_.peak_search->peak < rep_.peak) {
        rep_.placed_by = "exact search";
        rep_.heuristic = "exact-search";
        rep_.peak = rep_.peak_search->peak;
        rep_.nodes = a.node_web.size();
      }
    }
    finish(a);
    return true;
  }

  /// Two pinned tensors overlap while both live: no spill moves a pin.
  bool pinned_conflict(const space_attempt& a) {
    if (a.result->pinned_conflicts.empty()) return false;
    const auto [u, v] = a.result->pinned_conflicts.front();
    auto who = [&](node_id x) {
      return a.node_tensor[x] == no_tensor ? std::string("<memory of another core>")
                                           : lf_.work().tensors[a.node_tensor[x]].name;
    };
    rep_.unplaceable = {who(u), who(v)};
    rep_.error = cant_help_message(log_name(tgt_, filter_.memory), rep_.unplaceable) + ": pinned tensors overlap while both live";
    return true;
  }

  /// SB and PSUM: before spilling anything, the exact search (spill/place_or_prove.hpp) places the space,
  /// or chooses victims that make a placement possible (kept for the policy in spill_state::guided). Once
  /// a space has spent `total_nodes`, or past `search_until` (search_options::seconds, time_share), it
  /// runs only to prove a refusal.
  bool rescued(const space_attempt& a) {
    search_.reset();
    proof_.reset();
    if (!lay_) return false;
    if (!search_budget_left()) return placed_by_hints();
    search_ = search_step(round_budget(), search_until_);
    // The first round's answer for a spill-free placement, kept so that a spill can say whether it was
    // proven necessary ("infeasible") or the search only gave up (a spill-free placement may exist).
    if (rep_.search_outcome.empty()) rep_.search_outcome = std::string(to_string(search_->spill_free));
    if (search_->placed) return finish_rescue(*search_);
    rep_.spills.guided = search_->victims;
    // A proof ends the fixpoint at once; asked before spilling when the search found no victims.
    return search_->victims.empty() && proved_cant_help(a);
  }

  /// Lets the policy spill; returns false with the refusal when nothing can be spilled. A proof, asked
  /// before refusing, ends the run (with the instruction of the original program named); when it found
  /// that spilling every spillable web makes a placement possible, those are spilled instead.
  bool spilled(const space_attempt& a) {
    std::size_t n = spill_.spill(lf_, a, filter_, tgt_, rep_.spills);
    if (n == 0 && lay_ && !proof_ && proved_cant_help(a)) return false;
    if (n == 0 && proof_ && !proof_->victims.empty()) {
      rep_.spills.guided = proof_->victims;
      n = spill_.spill(lf_, a, filter_, tgt_, rep_.spills);
    }
    if (n == 0 && placed_at_last(a, n)) return false;
    if (n == 0) refuse(a);
    return n != 0;
  }

  /// Before a refusal on fragmentation: the search once more, on the space as it is now, when its own
  /// budget (search_options::total_nodes, or its time share) was spent before this round. Nothing more can
  /// be spilled by the policy's rules then, and the colorer, a heuristic, failed; but many webs are
  /// spilled by now, and what is left is often small and easy for the search (planted kernels of 150
  /// tensors that the colorer left with one unplaced tensor were refused under `--timeout 4` to `20`:
  /// docs/PERFORMANCE.md section 10, "A last search before a refusal"). A refusal is the worst answer,
  /// so this search gets the first round's node budget (search_options::nodes) and, like a space's
  /// first search, its time share of what is left before the allocation's deadline (never the
  /// watchdog). It places the space (true), or chooses victims that it spills (`n`), or changes nothing;
  /// once per space.
  bool placed_at_last(const space_attempt& a, std::size_t& n) {
    if (!lay_ || !opt_.search.enabled || !rep_.spills.hopeless.empty() || searched_at_last_) return false;
    if (search_budget_left()) return false;  // the search ran this round, with its budget: its answer stands
    searched_at_last_ = true;       // once per space: its cost stays one first round's
    const auto until = search_deadline(opt_.search, std::chrono::steady_clock::now(), opt_.deadline);
    rescue r = search_step(opt_.search, until);
    if (r.placed) return finish_rescue(r);
    if (!r.victims.empty()) {
      rep_.spills.guided = r.victims;
      n = spill_.spill(lf_, a, filter_, tgt_, rep_.spills);
    }
    return false;
  }

  /// Past the space's search budget, the last victims' placement (hints_) is still tried, once. Those
  /// victims were chosen because the search placed their spilled view; without this check the colorer
  /// alone, which could not place the space before, chooses every victim from then on (an SB kernel of 150
  /// tensors at tightness 0.97 whose first search spent the whole budget: 9 victims chosen with a
  /// placement, then 46 webs spilled; docs/PERFORMANCE.md section 10, "Victims past the search budget").
  /// Linear scan and one search of opt.guided_nodes with the hints pinned (place_or_prove, `search`
  /// false); no new hints come of it, so it runs at most once per space.
  bool placed_by_hints() {
    if (hints_.empty() || !opt_.search.enabled) return false;
    const std::vector<std::pair<tensor_id, placement>> hints = std::move(hints_);
    hints_.clear();
    const auto until = search_deadline(opt_.search, std::chrono::steady_clock::now(), opt_.deadline);
    rescue r = place_or_prove(lf_, filter_, geom_, *lay_, opt_.blockers, opt_.search, until, spillable_fn(), false, hints, false);
    count_search(r);
    return r.placed && finish_rescue(r);
  }

  /// place_or_prove with victims, on the last victims' placement as hints (spill/place_or_prove.hpp): its
  /// nodes counted, its victims' placement kept for the next round.
  rescue search_step(const search_options& so, std::chrono::steady_clock::time_point until) {
    rescue r = place_or_prove(lf_, filter_, geom_, *lay_, opt_.blockers, so, until, spillable_fn(), true, hints_);
    count_search(r);
    hints_ = std::move(r.hints);
    return r;
  }

  /// A search step's figures into the report: its nodes, and why a search of it did not run
  /// (search_options::max_pairs), for the report and a refusal.
  void count_search(const rescue& r) {
    rep_.search_nodes += r.search_nodes;
    if (!r.search_skipped.empty()) rep_.search_skipped = r.search_skipped;
  }

  /// Whether the space's search may still run: below search_options::total_nodes and before its time share.
  bool search_budget_left() const {
    return rep_.search_nodes < opt_.search.total_nodes && std::chrono::steady_clock::now() < search_until_;
  }
  /// Commits the placement a search step found (r.placed) and reports who placed it; true.
  bool finish_rescue(rescue& r) {
    rep_.placed_by = r.by_linear_scan ? "linear scan" : "exact search";
    rep_.peak = r.placed->result->peak;
    finish(*r.placed);
    return true;
  }

  /// prove_cant_help on this round's view; on a proof, the refusal names its tensors and what it proved.
  bool proved_cant_help(const space_attempt& a) {
    proof_ = prove_cant_help(lf_, filter_, geom_, *lay_, opt_.blockers, round_budget(), search_until_, spillable_fn());
    count_search(*proof_);
    if (!proof_->proven) return false;
    rep_.unplaceable = names_of(proof_->proof_tensors.empty() ? unplaced_tensors(a) : proof_->proof_tensors);
    rep_.error = cant_help_message(log_name(tgt_, filter_.memory), rep_.unplaceable) + ": " + proof_->proof +
                 " (proved by the placement search)";
    return true;
  }

  /// Nothing more can be spilled and no proof ended the run earlier. Names the user's tensors: the ones
  /// over-filling a point if the policy found such a point, else the unplaced ones (a temporary as the
  /// tensor it stands for). An over-full point is a proof: the policy's (webs it may not spill), or, in a
  /// memory without a rectangle view, any (DRAM and REG have no next memory, so the policy measures
  /// nothing there).
  void refuse(const space_attempt& a) {
    std::vector<tensor_id> who = rep_.spills.hopeless;
    if (who.empty()) who = unplaced_tensors(a);
    rep_.unplaceable = names_of(who);
    const bool over_full = !rep_.spills.hopeless.empty() || (!geom_.rect() && linear_over_full(a, geom_));
    const refusal why = lay_         ? refusal::search_gave_up
                        : over_full  ? refusal::over_full
                        : geom_.rect() ? refusal::search_off
                                     : refusal::colorer_gave_up;
    rep_.error = nothing_left_message(why, log_name(tgt_, filter_.memory), rep_.unplaceable, rep_.search_nodes,
                                      std::chrono::steady_clock::now() >= search_until_, rep_.search_skipped);
  }

  /// Commits a complete attempt and reports it.
  void finish(space_attempt& a) {
    obs_.did_color(filter_.memory, rep_.heuristic);
    for (const auto& [w, v] : a.coalesced)
      rep_.coalesced.emplace_back(lf_.work().tensors[a.live.webs[w].tensor].name,
                                  lf_.work().tensors[a.node_tensor[v]].name);
    rep_.split = commit_space(lf_, a, filter_, geom_);
    if (opt_.cache) opt_.cache->liveness.give_back(std::move(a.live), std::move(a.live_key));
    rep_.ok = true;
    obs_.did_finish(filter_.memory, rep_.iterations, rep_.spills.cycles, rep_.spills.spilled_webs,
                    rep_.spills.spilled_bytes);
  }

  /// The search's options this round: the full node budget in the first, a tenth later.
  search_options round_budget() const {
    search_options so = opt_.search;
    if (rep_.iterations > 1) so.nodes = std::max<std::uint64_t>(1, so.nodes / 10);
    return so;
  }

  /// Which webs the search may count as spillable: the policy's answer (spill/concept.hpp,
  /// ReportsSpillable), or none.
  auto spillable_fn() {
    if constexpr (ReportsSpillable<Spill>)
      return [this](const space_attempt& x, web_id w) {
        return Spill::spillable(lf_.work(), x.live, w, filter_, rep_.spills);
      };
    else
      return [](const space_attempt&, web_id) { return false; };
  }

  /// The user's names of tensors (what a slot, temporary or split web stands for), sorted and unique.
  std::vector<std::string> names_of(std::vector<tensor_id> who) const {
    for (tensor_id& t : who) t = user_tensor(lf_.work(), t);
    std::sort(who.begin(), who.end());
    who.erase(std::unique(who.begin(), who.end()), who.end());
    std::vector<std::string> names;
    for (tensor_id t : who) names.push_back(lf_.work().tensors[t].name);
    return names;
  }

  linearized_function& lf_;
  const target& tgt_;
  const space_filter& filter_;
  geometry_ref geom_;
  const Spill& spill_;
  observer_ref obs_;
  const space_options& opt_;
  const std::optional<rect_layout> lay_;  // the search's view of a rectangle memory (search on), else nothing
  const std::chrono::steady_clock::time_point search_until_;
  space_report rep_;
  std::optional<rescue> search_, proof_;  // this round's search and proof, if they ran
  std::vector<std::pair<tensor_id, placement>> hints_;  // the last victims' placement, for the next round
  bool searched_at_last_ = false;          // placed_at_last ran
  std::optional<linearized_function> input_;  // keep_input
};

/// An observer that keeps what it is told, to pass it on later to another (allocate_space tells its
/// caller's observer about the colorer's run without the search only when it keeps that run).
class recording_observer {
 public:
  void will_allocate(memory_type m) { events_.push_back({kind::will_allocate, m}); }
  void best_of_n(memory_type m, std::string_view h) { events_.push_back({kind::best_of_n, m, std::string(h)}); }
  void score(memory_type m, std::uint64_t s) { events_.push_back({kind::score, m, {}, s}); }
  void did_color(memory_type m, std::string_view h) { events_.push_back({kind::did_color, m, std::string(h)}); }
  void did_finish(memory_type m, std::size_t iterations, std::uint64_t cycles, std::size_t spilled, std::uint64_t bytes) {
    events_.push_back({kind::did_finish, m, {}, cycles, bytes, iterations, spilled});
  }
  void note(std::string_view s) { events_.push_back({kind::note, memory_type::sb, std::string(s)}); }

  template <class Observer>
  void replay(Observer& to) const {
    for (const event& e : events_) switch (e.what) {
        case kind::will_allocate: to.will_allocate(e.m); break;
        case kind::best_of_n: to.best_of_n(e.m, e.text); break;
        case kind::score: to.score(e.m, e.a); break;
        case kind::did_color: to.did_color(e.m, e.text); break;
        case kind::did_finish: to.did_finish(e.m, e.i, e.a, e.j, e.b); break;
        case kind::note: to.note(e.text); break;
      }
  }

 private:
  enum class kind : std::uint8_t { will_allocate, best_of_n, score, did_color, did_finish, note };
  struct event {
    kind what;
    memory_type m;
    std::string text{};
    std::uint64_t a = 0, b = 0;
    std::size_t i = 0, j = 0;
  };
  std::vector<event> events_;
};

/// Whether report x (the colorer alone) is better than y (with the search): it allocated and y did
/// not, or both did and x's spill code costs fewer cycles (then: fewer webs spilled).
template <class = void>
bool spills_less(const space_report& x, const space_report& y) {
  if (x.ok != y.ok) return x.ok;
  if (!x.ok) return false;
  if (x.spills.cycles != y.spills.cycles) return x.spills.cycles < y.spills.cycles;
  return x.spills.spilled_webs < y.spills.spilled_webs;
}

}  // namespace detail

/// allocate_space with the geometry behind a geometry_ref. The fixpoint under it is compiled once per
/// spill policy: not once per geometry (geometry_ref), nor per observer (observer_ref, engine/observer.hpp);
/// only this short function is per observer.
template <SpillPolicy Spill, class Observer = null_observer>
space_report allocate_space(linearized_function& lf, const target& tgt, const space_filter& filter,
                            geometry_ref geom, const Spill& spill, Observer& obs, const space_options& opt = {}) {
  const watchdog_scope watchdog(opt.deadline);  // fires inside an attempt too (simplify, select)
  // With the exact search on, a space the colorer does not place at once is also given to the colorer
  // alone (the fixpoint without the search) from the same input, and the run whose spill code costs less
  // is kept: where the search gives up, the victims it chooses (the first set whose spilled program it
  // can place) may be many more than the colorer's (planted SB kernels of 150 tensors: 127 webs against
  // 56, docs/PERFORMANCE.md section 10). So the search never makes an allocation worse than the colorer
  // alone; the report keeps what the search answered. The caller's observer hears the run with the
  // search as it goes, then, when the colorer alone is kept, a note saying so and that run's events.
  detail::space_fixpoint<Spill> searched(lf, tgt, filter, geom, spill, obs, opt);
  space_report rep = searched.run();
  std::optional<linearized_function>& input = searched.input();
  if (input && !(rep.ok && rep.spills.spilled_webs == 0)) {
    space_options alone = opt;
    alone.search.enabled = false;
    detail::recording_observer heard_alone;
    space_report plain = detail::space_fixpoint<Spill>(*input, tgt, filter, geom, spill, heard_alone, alone).run();
    if (detail::spills_less(plain, rep)) {
      obs.note("  " + std::string(log_name(tgt, filter.memory)) +
               ": the colorer without the placement search spills less; its allocation is kept");
      heard_alone.replay(obs);
      plain.search_outcome = rep.search_outcome;
      plain.search_nodes = rep.search_nodes;
      plain.search_skipped = rep.search_skipped;
      lf = std::move(*input);
      rep = std::move(plain);
    }
  }
  return rep;
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
