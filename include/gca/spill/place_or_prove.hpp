// gca/spill/place_or_prove.hpp — the spill fixpoint's step between "coloring left nodes unplaced" and
// "spill": place the space by the exact search, or choose spill victims the search says make a placement
// possible, or prove that spilling can't help.
//
// Provides `search_options` (the budgets), `space_nodes` (an attempt's nodes as a place_problem, possibly
// with some webs "spilled"), `place_or_prove` (the step) and its `rescue` answer. Only for the rectangle
// memories (SBUF, PSUM: geometry_ref::rect()); the other spaces keep the fixpoint's plain behavior.
//
// The spilled view. The spill policy (spill/spill_to_next_tier.hpp) replaces a spilled web, at every point
// where it is read or written (its "event points"), by a temporary of the same extent live at that point,
// and by nothing elsewhere. The view models that: a spilled web becomes one node per event point q, live
// on [q, q + 1), each free to take its own place. Whatever the real spill code adds (a reload before q, a
// store after it, a reload hoisted out of a loop) only makes the temporaries live at MORE points, so a
// placement of a real spilled program, read at the original points, is a placement of the view. Hence:
//   - the view with EVERY spillable web spilled has no placement  =>  no choice of spills has one
//     ("spilling can't help", proof 2);
//   - a point q of that view whose live nodes (the operands of the instruction at q, the pins, inputs,
//     outputs and temporaries live there) have no placement together  =>  the same (proof 1, local);
//   - the view with a set V spilled has a placement  =>  V is worth spilling (the search then normally
//     places the spilled program on the next round: its temporaries are live only at their points).
// Hints. A search on the next round, from scratch, often fails to find again what the view's search found
// (the same kernel, a few tensors fewer: as hard for a heuristic walk), and the fixpoint then spills more.
// So the view's placement goes with the victims (`rescue::hints`: per tensor that stands whole in the
// view, its place), and the next round first tries it: those tensors pinned there, the spill code's
// temporaries free. A reload is inserted just before the point q that reads a spilled web, a store just
// after the one that writes it, so a temporary is live at q and next to it, where the tensors live
// beside it are those live at q (less the ones born at q or dying before it): the place the view gave it
// at q is usually still free. When it is not (or a pinned pair now overlaps), the search says so and the
// step goes on as without hints.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gca/engine/geometry_ref.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/place_repair.hpp>
#include <gca/engine/place_search.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/geometry/rect_layout.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/report.hpp>

namespace gca {

/// The instant a space's searches must stop (see search_options::time_share), for a space started at
/// `start` under `deadline` (time_point::max(): none).
template <class = void>
std::chrono::steady_clock::time_point search_deadline(const search_options& opt,
                                                      std::chrono::steady_clock::time_point start,
                                                      std::chrono::steady_clock::time_point deadline) {
  using sec = std::chrono::duration<double>;
  const bool none = deadline == std::chrono::steady_clock::time_point::max();
  double budget = none ? opt.seconds : std::min(opt.seconds, std::max(0.0, sec(deadline - start).count()) * opt.time_share);
  if (!(budget < 1e9)) return deadline;  // unbounded (or beyond any deadline that matters)
  budget = std::max(0.0, budget);
  return std::min(deadline, start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(sec(budget)));
}

/// The place_search limits of one search of a space: `nodes`, the deadline, and the options' threads.
template <class = void>
search_limits limits_of(const search_options& opt, std::uint64_t nodes, std::chrono::steady_clock::time_point deadline) {
  search_limits lim{nodes, deadline};
  lim.threads = opt.threads;
  lim.max_pairs = opt.max_pairs;
  return lim;
}

/// Nodes of one space as a place_problem (owned). `origin`: the attempt node each one stands for.
struct space_nodes : owned_place_problem {
  std::vector<node_id> origin;
  template <class = void>
  void add(std::span<const interval> r, extent e, std::optional<placement> at, bool fix, node_id from) {
    owned_place_problem::add(r, e, at, fix);
    origin.push_back(from);
  }
};

/// The nodes of attempt `a` (made without coalescing), the webs flagged in `spilled` (per web, may be
/// empty) replaced by one node per event point. Pins decided by an earlier colorer are `fixed`, as in
/// color_space.
template <class = void>
space_nodes spilled_view(const space_attempt& a, const function& f, std::span<const std::uint8_t> spilled,
                         const std::vector<std::vector<program_point>>& events) {
  space_nodes out;
  for (node_id v = 0; v < a.node_web.size(); ++v) {
    const web_id w = a.node_web[v];
    const bool fix = a.pins[v] && !(a.node_tensor[v] != no_tensor && f.tensors[a.node_tensor[v]].pinned);
    if (w != no_web && w < spilled.size() && spilled[w]) {
      for (program_point q : events[w]) {
        const interval i{q, q + 1};
        out.add(std::span(&i, 1), a.extents[v], std::nullopt, false, v);
      }
      continue;
    }
    out.add(a.ranges.ranges(v), a.extents[v], a.pins[v], fix, v);
  }
  return out;
}

/// What place_or_prove decided.
struct rescue {
  std::optional<space_attempt> placed;  // a complete attempt to commit
  bool by_linear_scan = false;          // `placed` came from linear scan (no search was needed)
  std::vector<web_id> victims;          // spill these: the spilled view then has a placement
  bool proven = false;                  // spilling can't help, proved (see `proof`)
  std::string proof;                    // which proof, for the message
  std::vector<tensor_id> proof_tensors; // the tensors the proof is about (proof 1: those at the point)
  std::uint64_t search_nodes = 0;       // search nodes spent in this step
  std::string search_skipped;           // a search that did not run (place_result::skipped): why
  search_status spill_free = search_status::gave_up;  // the search for a spill-free placement
  std::vector<std::pair<tensor_id, placement>> hints;  // with victims: the spilled view's placement (see top)
};

/// One search of a step (place_or_prove, prove_cant_help): place_search on `view` within `nodes` and the
/// deadline, its nodes counted into `out`, and why it did not run (place_result::skipped) kept there.
template <class = void>
place_result search_view(const space_nodes& view, const rect_layout& lay, const search_options& opt, std::uint64_t nodes,
                         std::chrono::steady_clock::time_point deadline, rescue& out) {
  place_result r = place_search(view.problem(), lay, limits_of(opt, nodes, deadline));
  out.search_nodes += r.nodes;
  if (!r.skipped.empty()) out.search_skipped = std::move(r.skipped);
  return r;
}

namespace detail {

template <class = void>
std::string describe_point(const linearized_function& lf, program_point q) {
  for (const chain_node& n : lf.chain())
    if (n.point == q) {
      const instruction& i = lf.work().insts[n.inst];
      const bool spill_code = i.opcode == op::spill || i.opcode == op::reload;
      std::string s = spill_code ? "the spill code" : "`" + lf.work().symbols[i.opcode] + "`";
      if (i.loc.line != 0) s += " at line " + std::to_string(i.loc.line);
      return s;
    }
  return "at point " + std::to_string(q);
}

template <class = void>
void adopt(space_attempt& a, const place_result& r, const space_nodes& view, geometry_ref geom) {
  coloring_result& c = *a.result;
  c.placements.assign(a.node_web.size(), std::nullopt);
  for (std::size_t k = 0; k < view.origin.size(); ++k) c.placements[view.origin[k]] = r.placements[k];
  c.unplaced.clear();
  c.peak = 0;
  for (node_id v = 0; v < a.node_web.size(); ++v) c.peak = std::max(c.peak, geom.end(a.extents[v], *c.placements[v]));
}

/// Per tensor of f, how many nodes of attempt a stand for it (a hint names a tensor; only a tensor with
/// one node has one place).
template <class = void>
std::vector<std::uint32_t> nodes_per_tensor(const space_attempt& a, const function& f) {
  std::vector<std::uint32_t> n(f.tensors.size(), 0);
  for (tensor_id t : a.node_tensor)
    if (t != no_tensor) ++n[t];
  return n;
}

/// The hints of a placement r of `view` (attempt a, the webs flagged in `spilled` replaced by their
/// temporaries): each tensor that one node of a stands for (`count`: nodes_per_tensor), not spilled, at
/// its place.
template <class = void>
std::vector<std::pair<tensor_id, placement>> hints_of(const space_attempt& a, std::span<const std::uint32_t> count,
                                                      const space_nodes& view, const place_result& r,
                                                      std::span<const std::uint8_t> spilled) {
  std::vector<std::pair<tensor_id, placement>> out;
  for (std::size_t k = 0; k < view.origin.size(); ++k) {
    const node_id v = view.origin[k];
    const web_id w = a.node_web[v];
    const tensor_id t = a.node_tensor[v];
    if ((w != no_web && w < spilled.size() && spilled[w]) || t == no_tensor || count[t] != 1 || !r.placements[k]) continue;
    out.emplace_back(t, *r.placements[k]);
  }
  return out;
}

/// Pins the nodes of `view` (attempt a) whose tensor has a hint there, unless already pinned; how many.
template <class = void>
std::size_t pin_hints(space_nodes& view, const space_attempt& a, const function& f,
                      std::span<const std::pair<tensor_id, placement>> hints) {
  const std::vector<std::uint32_t> count = nodes_per_tensor(a, f);
  std::vector<std::optional<placement>> at(f.tensors.size());
  for (const auto& [t, p] : hints)
    if (t < at.size()) at[t] = p;
  std::size_t n = 0;
  for (std::size_t k = 0; k < view.origin.size(); ++k) {
    const tensor_id t = a.node_tensor[view.origin[k]];
    if (t == no_tensor || count[t] != 1 || !at[t] || view.pins[k]) continue;
    view.pins[k] = at[t];  // not `fixed`: the search checks hinted pins against each other
    ++n;
  }
  return n;
}

/// Pins the nodes of `to` where `at` places the nodes of `from` that stand for the same attempt node, but
/// leaves free those of the attempt nodes of web `keep` (and nodes pinned already). `from` and `to` are
/// spilled views of one attempt that differ only in whether `keep` is spilled: spilled_view lists the
/// nodes by attempt node in increasing order, so each attempt node has as many nodes in both but `keep`'s.
template <class = void>
void pin_as(space_nodes& to, const space_nodes& from, std::span<const std::optional<placement>> at,
            const space_attempt& a, web_id keep) {
  std::size_t i = 0, j = 0;
  while (i < from.origin.size() || j < to.origin.size()) {
    const node_id v = i == from.origin.size() ? to.origin[j]
                      : j == to.origin.size() ? from.origin[i]
                                              : std::min(from.origin[i], to.origin[j]);
    const bool free = a.node_web[v] == keep;
    for (; i < from.origin.size() && from.origin[i] == v; ++i, j += free ? 0 : 1)
      if (!free && j < to.origin.size() && !to.pins[j]) to.pins[j] = at[i];
    if (free)
      while (j < to.origin.size() && to.origin[j] == v) ++j;
  }
}

/// Stage 2 of place_or_prove: the victims, as named steps over the attempt b and its spilled views.
/// `run(view, nodes)` is the step's search (it counts the nodes). choose() leaves `out.victims` (sorted)
/// and `out.hints` (the placement found for them), or both empty when no prefix of the candidates
/// makes the view placeable.
template <class Spillable, class Run, class D = void>  // D: conflict_repairer<D> instantiated where used
class guided_victims {
 public:
  /// `nodes`: each trial set's search; `walk_nodes`: each walk of repair_set (search_options::repair_set_nodes).
  /// `left_out`, `partial`: the search's repair walk's best state on the unspilled view (place_result's,
  /// whose node k is attempt node k): the nodes it left out, and where it had the others.
  /// `lay`, `deadline`, `spent`: the space's layout, the step's deadline and its node count (the repair
  /// walks of repair_set count there, as the searches of `run` do).
  guided_victims(const space_attempt& b, const function& f, const std::vector<std::vector<program_point>>& events,
                 Spillable& spillable, Run& run, std::uint64_t nodes, std::uint64_t walk_nodes, std::span<const node_id> left_out,
                 std::span<const std::optional<placement>> partial, const rect_layout& lay,
                 std::chrono::steady_clock::time_point deadline, std::uint64_t& spent)
      : b_(b), f_(f), events_(events), run_(run), nodes_(nodes), walk_nodes_(walk_nodes), count_(nodes_per_tensor(b, f)),
        flags_(b.live.webs.size(), 0), left_out_(left_out), partial_(partial), lay_(lay), deadline_(deadline),
        spent_(&spent) {
    candidates(spillable);
    left_out_first();
  }

  /// The first prefix of 1, 2, 4, ... candidates whose view is placeable, shortened by bisection down to
  /// the last prefix that failed (with hints the next round keeps this round's set: docs/PERFORMANCE.md
  /// section 10, "The victims' placement as hints"), un-spilled, then trimmed.
  void choose(rescue& out) {
    if (repair_set(out)) return;
    for (std::size_t k = 1, failed = 0; !cands_.empty(); failed = k, k = std::min(2 * k, cands_.size())) {
      if (!placeable(prefix(k), out)) {
        if (k == cands_.size()) return;
        continue;
      }
      std::size_t hi = k;
      for (std::size_t lo = failed; hi - lo > 1;) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (placeable(prefix(mid), out) ? hi : lo) = mid;
      }
      std::vector<web_id> set = prefix(hi);
      unspill(set, out);
      trim(set, out);
      std::sort(set.begin(), set.end());
      out.victims = std::move(set);
      return;
    }
  }

 private:
  /// Spillable webs live at more points than they are read or written, cheapest spill cost per unit of
  /// area x points relieved first (a total order, so any sort gives the same result; the size guard keeps
  /// g++ 12 at -O2 from a false -Wnonnull inside std::sort's insertion step on an empty vector).
  void candidates(Spillable& spillable) {
    for (node_id v = 0; v < b_.node_web.size(); ++v) {
      const web_id w = b_.node_web[v];
      if (w == no_web || !spillable(b_, w)) continue;
      const std::uint64_t len = b_.ranges.live_length(v), ev = events_[w].size();
      if (len <= ev) continue;
      const double area = static_cast<double>(b_.extents[v].partitions) * static_cast<double>(b_.extents[v].bytes);
      cands_.push_back({w, b_.costs[v] / (area * static_cast<double>(len - ev))});
    }
    if (cands_.size() > 1)
      std::sort(cands_.begin(), cands_.end(), [](const cand& x, const cand& y) {
        return x.score != y.score ? x.score < y.score : x.w < y.w;
      });
  }
  /// The webs of the nodes the repair walk left out (docs/PERFORMANCE.md section 10, "The repair walk's
  /// left-out blocks as victims"), when each is a candidate: in its best state every other node had a
  /// place, but the spilled webs' temporaries need room too, at their points. So a repair walk runs on
  /// the view with those webs spilled, started from that state (every node that stands whole in the view
  /// where the state had it, the temporaries left out), on walk_nodes (ten times a trial set's search by
  /// default: one walk next to a placement in place of dozens of searches): where it places the view,
  /// the set (unspilled and trimmed as a prefix would be) is the answer; where its best state leaves out
  /// nodes of whole webs, those of candidate webs join the set and it runs again from that state (up to
  /// 4 times); where the set does not grow (temporaries left out only, or nodes of no candidate web), this
  /// gives up and the prefixes below choose. (Until session 39 a left-out node of no candidate web ended it
  /// at once: on an SB kernel of 150 tensors at tightness 0.97 the prefixes then chose 35 victims, where
  /// skipping that node the set grew to 9 in four walks and was placed.)
  bool repair_set(rescue& out) {
    if (left_out_.empty() || partial_.size() != b_.node_web.size()) return false;
    std::vector<std::uint8_t> is_cand(flags_.size(), 0);
    for (const cand& c : cands_) is_cand[c.w] = 1;
    std::vector<web_id> set;
    std::vector<std::optional<placement>> at(partial_.begin(), partial_.end());  // per attempt node
    std::vector<node_id> left(left_out_.begin(), left_out_.end());
    for (int round = 0; round < 4; ++round) {
      // A left-out node of no candidate web (a pin, a temporary, a web spilling would not relieve) is
      // skipped: spilling others may make room for it. The set must grow each round, or nothing changes.
      const std::size_t had = set.size();
      for (node_id v : left) {
        const web_id w = v < b_.node_web.size() ? b_.node_web[v] : no_web;
        if (w != no_web && is_cand[w]) set.push_back(w);
      }
      std::sort(set.begin(), set.end());
      set.erase(std::unique(set.begin(), set.end()), set.end());
      if (set.size() == had) return false;
      mark(set);
      space_nodes view = spilled_view(b_, f_, flags_, events_);
      std::vector<std::optional<placement>> seed(view.pins.size());
      for (std::size_t k = 0; k < seed.size(); ++k) {
        const web_id w = b_.node_web[view.origin[k]];
        if (w == no_web || !flags_[w]) seed[k] = at[view.origin[k]];
      }
      const interference_graph g = build_interference(view.ranges, view.fixed);
      conflict_repairer<D> walk(view.extents, view.pins, g, lay_);
      walk.seed(seed);
      std::uint64_t spent = 0;
      const std::optional<std::vector<placement>> got = walk.run(walk_nodes_, deadline_, spent);
      *spent_ += spent;
      if (got && valid_in(view, g, *got)) {
        place_result r;
        r.status = search_status::found;
        r.placements.assign(got->begin(), got->end());
        keep(std::move(view), std::move(r), out);
        unspill(set, out);
        trim(set, out);
        std::sort(set.begin(), set.end());
        out.victims = std::move(set);
        return true;
      }
      const std::vector<std::optional<placement>> best = walk.best_state();
      if (best.empty()) return false;
      left.clear();
      std::fill(at.begin(), at.end(), std::nullopt);
      for (std::size_t k = 0; k < best.size(); ++k) {
        const node_id v = view.origin[k];
        const web_id w = b_.node_web[v];
        if (w != no_web && flags_[w]) continue;  // a temporary
        if (best[k]) at[v] = best[k];
        else left.push_back(v);
      }
      if (left.empty()) return false;  // only temporaries left out: more spills of this kind will not help
    }
    return false;
  }
  /// An independent check of a walk's placement of `view` (g its interference): pins kept, no two
  /// neighbors sharing a partition and a byte (the walk's own invariant, checked again before it counts).
  static bool valid_in(const space_nodes& view, const interference_graph& g, const std::vector<placement>& at) {
    for (node_id k = 0; k < at.size(); ++k) {
      if (view.pins[k] && !(*view.pins[k] == at[k])) return false;
      for (node_id u : g.neighbors(k))
        if (u > k && partitions_overlap(view.extents[k], at[k], view.extents[u], at[u]) &&
            bytes_overlap(view.extents[k], at[k], view.extents[u], at[u]))
          return false;
    }
    return true;
  }
  /// When that set will not do, the candidates whose webs the repair walk left out go first in the
  /// prefixes, each group in its order.
  void left_out_first() {
    if (left_out_.empty()) return;
    std::vector<std::uint8_t> out(flags_.size(), 0);
    for (node_id v : left_out_)
      if (v < b_.node_web.size() && b_.node_web[v] != no_web) out[b_.node_web[v]] = 1;
    std::stable_partition(cands_.begin(), cands_.end(), [&](const cand& c) { return out[c.w] != 0; });
  }
  std::vector<web_id> prefix(std::size_t k) const {
    std::vector<web_id> set;
    for (std::size_t j = 0; j < k; ++j) set.push_back(cands_[j].w);
    return set;
  }
  /// flags_ marks `set` but `except`.
  void mark(const std::vector<web_id>& set, web_id except = no_web) {
    std::fill(flags_.begin(), flags_.end(), 0);
    for (web_id w : set)
      if (w != except) flags_[w] = 1;
  }
  /// Keeps a placement r of `view` as the answer's hints and the base of unspill (the last set found
  /// placeable is the answer's).
  void keep(space_nodes&& view, place_result&& r, rescue& out) {
    out.hints = hints_of(b_, count_, view, r, flags_);
    found_view_ = std::move(view), found_at_ = std::move(r.placements);
  }
  /// Whether the search places the view with `set` spilled.
  bool placeable(const std::vector<web_id>& set, rescue& out) {
    mark(set);
    space_nodes view = spilled_view(b_, f_, flags_, events_);
    place_result r = run_(view, nodes_);
    if (r.status != search_status::found) return false;
    keep(std::move(view), std::move(r), out);
    return true;
  }
  /// Takes off `set` each victim whose whole web fits where the placement found leaves room: its web the
  /// one free node, every other node pinned where found_at_ has it (the other victims' temporaries too).
  /// The costliest spills per relief (last in `set`) first. (Tried: the temporaries free as well. Three
  /// tight 150-tensor SB kernels kept 25, 29, 25 victims instead of 26, 33, 27, but a 60-tensor kernel
  /// under small budgets was then refused, its spilled program not placeable: the view's temporaries live
  /// at one point each, the spill code's at more, and moved ones lose the room the pinned ones had.)
  void unspill(std::vector<web_id>& set, rescue& out) {
    for (std::size_t j = set.size(); j-- > 0;) {
      mark(set, set[j]);
      space_nodes view = spilled_view(b_, f_, flags_, events_);
      pin_as(view, found_view_, found_at_, b_, set[j]);
      place_result r = run_(view, nodes_);
      if (r.status != search_status::found) continue;
      keep(std::move(view), std::move(r), out);
      set.erase(set.begin() + static_cast<std::ptrdiff_t>(j));
    }
  }
  /// For sets of up to 8: a victim whose removal keeps the view placeable (a search of its own) is dropped.
  void trim(std::vector<web_id>& set, rescue& out) {
    for (std::size_t j = set.size(); set.size() > 1 && set.size() <= 8 && j-- > 0;) {
      std::vector<web_id> fewer = set;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(j));
      if (placeable(fewer, out)) set = std::move(fewer);
    }
  }

  struct cand {
    web_id w;
    double score;
  };
  const space_attempt& b_;
  const function& f_;
  const std::vector<std::vector<program_point>>& events_;
  Run& run_;
  std::uint64_t nodes_;
  std::uint64_t walk_nodes_;  // each repair_set walk's (search_options::repair_set_nodes)
  const std::vector<std::uint32_t> count_;  // nodes_per_tensor of b, for the hints
  std::vector<cand> cands_;
  std::vector<std::uint8_t> flags_;   // the webs spilled in the view being built
  std::span<const node_id> left_out_;                  // the repair walk's best state (see the constructor)
  std::span<const std::optional<placement>> partial_;
  rect_layout lay_;
  std::chrono::steady_clock::time_point deadline_;
  std::uint64_t* spent_;
  space_nodes found_view_;            // the last spilled view the search placed, and where
  std::vector<std::optional<placement>> found_at_;
};

}  // namespace detail

/**
 * The step (see the top of this header). `spillable(a, w)` says whether the spill policy may spill web w.
 * 1. The space's nodes without coalescing (coalescing may make a placeable space unplaceable): if linear
 *    scan places them, or the search with the previous round's `hints` pinned does within
 *    `opt.guided_nodes`, or the search alone does within `opt.nodes`, return that attempt. With `search`
 *    false, only linear scan and the hints are tried (the caller's search budget is spent; no victims).
 * 2. Victims: first, when the search's repair walk left some nodes out in its best state, their webs,
 *    grown by repair walks on the spilled view started from that state (guided_victims::repair_set);
 *    else spillable webs that are live at more points than they are read or written, cheapest spill
 *    cost per unit of area x points relieved first; the first prefix of 1, 2, 4, ... of them whose spilled
 *    view the search places, shortened by bisection down to the last prefix that failed, is the answer,
 *    less the victims whose whole web fits where that placement leaves room (unspill), then trimmed (a
 *    victim whose removal keeps the view placeable is dropped, for sets of up to 8), with the placement
 *    found for it as `hints`. If none is found,
 *    `victims` stays empty and the policy chooses.
 * Stage 2 is detail::guided_victims; stage 1 stays here, sharing the attempt and the node count with it.
 */
template <class Spillable>
rescue place_or_prove(const linearized_function& lf, const space_filter& filter, geometry_ref geom,
                      const rect_layout& lay, std::span<const placed_neighbor> blockers, const search_options& opt,
                      std::chrono::steady_clock::time_point deadline, Spillable&& spillable,
                      bool want_victims = true, std::span<const std::pair<tensor_id, placement>> hints = {},
                      bool search = true) {
  rescue out;
  const function& f = lf.work();
  null_observer quiet;
  space_attempt b = color_space(lf, filter, geom, {}, quiet, blockers, engine_kind::linear_scan, 1);
  if (b.complete()) {
    out.spill_free = search_status::found;
    out.by_linear_scan = true;
    out.placed = std::move(b);
    return out;
  }
  if (!b.result->pinned_conflicts.empty()) {  // the caller reports those
    out.spill_free = search_status::infeasible;
    return out;
  }
  const auto events = web_events(b.live);
  auto run = [&](const space_nodes& view, std::uint64_t nodes) { return search_view(view, lay, opt, nodes, deadline, out); };
  if (!hints.empty()) {
    space_nodes view = spilled_view(b, f, {}, events);
    if (detail::pin_hints(view, b, f, hints) != 0) {
      const place_result r = run(view, opt.guided_nodes);
      if (r.status == search_status::found) {
        out.spill_free = search_status::found;
        detail::adopt(b, r, view, geom);
        out.placed = std::move(b);
        return out;
      }
    }
  }
  if (!search) return out;  // stage 1 only (the caller's search budget is spent)
  std::vector<node_id> left_out;  // the repair walk's best state (view node = attempt node)
  std::vector<std::optional<placement>> partial;
  {
    const space_nodes view = spilled_view(b, f, {}, events);
    place_result r = run(view, opt.nodes);
    out.spill_free = r.status;
    if (r.status == search_status::found) {
      detail::adopt(b, r, view, geom);
      out.placed = std::move(b);
      return out;
    }
    left_out = std::move(r.left_out), partial = std::move(r.partial);
  }
  if (want_victims)
    detail::guided_victims(b, f, events, spillable, run, opt.guided_nodes, opt.repair_set_nodes, left_out, partial, lay,
                           deadline, out.search_nodes)
        .choose(out);
  return out;
}

/**
 * Proofs that spilling can't help (see the top of this header), asked when the spill policy has nothing
 * left to spill: proof 1 at the fullest points of the all-spilled view, then proof 2 (the search on the
 * whole all-spilled view). `out.proven` stays false when neither is proved within the budgets; if the
 * all-spilled view turns out placeable, `out.victims` lists every spillable web.
 */
template <class Spillable>
rescue prove_cant_help(const linearized_function& lf, const space_filter& filter, geometry_ref geom,
                       const rect_layout& lay, std::span<const placed_neighbor> blockers, const search_options& opt,
                       std::chrono::steady_clock::time_point deadline, Spillable&& spillable) {
  rescue out;
  const function& f = lf.work();
  null_observer quiet;
  const space_attempt b = color_space(lf, filter, geom, {}, quiet, blockers, engine_kind::linear_scan, 1);
  const auto events = web_events(b.live);
  auto run = [&](const space_nodes& view, std::uint64_t nodes) { return search_view(view, lay, opt, nodes, deadline, out); };
  std::vector<std::uint8_t> all(b.live.webs.size(), 0);
  for (node_id v = 0; v < b.node_web.size(); ++v)
    if (b.node_web[v] != no_web && spillable(b, b.node_web[v])) all[b.node_web[v]] = 1;
  const space_nodes view = spilled_view(b, f, all, events);
  // Proof 1 at the fullest points of the all-spilled view: the nodes live at one point interfere pairwise.
  std::vector<program_point> pts;
  for (const interval& i : view.ranges.intervals) pts.push_back(i.begin);
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  std::vector<std::pair<program_point, double>> steps;  // (point, area change), swept once
  for (node_id v = 0; v < view.extents.size(); ++v) {
    const double area = static_cast<double>(view.extents[v].partitions) * static_cast<double>(view.extents[v].bytes);
    for (const interval& i : view.ranges.ranges(v)) {
      steps.emplace_back(i.begin, area);
      steps.emplace_back(i.end, -area);
    }
  }
  std::sort(steps.begin(), steps.end());
  std::vector<std::pair<double, program_point>> fullest;  // (-area, point): fullest first, then lowest point
  double live = 0;
  for (std::size_t k = 0, j = 0; k < pts.size(); ++k) {
    for (; j < steps.size() && steps[j].first <= pts[k]; ++j) live += steps[j].second;
    fullest.emplace_back(-live, pts[k]);
  }
  std::sort(fullest.begin(), fullest.end());
  if (fullest.size() > opt.proof_points) fullest.resize(opt.proof_points);
  for (const auto& [neg_area, q] : fullest) {
    space_nodes at;
    const interval one{0, 1};
    for (node_id v = 0; v < view.extents.size(); ++v)
      for (const interval& i : view.ranges.ranges(v))
        if (i.begin <= q && q < i.end) at.add(std::span(&one, 1), view.extents[v], view.pins[v], view.fixed[v], v);
    const place_result r = run(at, opt.point_nodes);
    if (r.status != search_status::infeasible) continue;
    out.proven = true;
    out.proof = "the operands of " + detail::describe_point(lf, q) +
                " and the tensors that must stay there (pinned, inputs, outputs, temporaries) cannot be placed together";
    for (node_id k : at.origin) {
      const node_id v = view.origin[k];
      if (b.node_tensor[v] != no_tensor) out.proof_tensors.push_back(b.node_tensor[v]);
    }
    return out;
  }
  const place_result r_all = run(view, opt.nodes);
  if (r_all.status == search_status::found) {
    for (web_id w = 0; w < all.size(); ++w)
      if (all[w]) out.victims.push_back(w);
  } else if (r_all.status == search_status::infeasible) {
    out.proven = true;
    out.proof = "no placement exists even with every spillable tensor spilled";
  }
  return out;
}

}  // namespace gca
