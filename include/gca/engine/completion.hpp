// gca/engine/completion.hpp — fillers that make a 1-D problem full at every point.
//
// Provides `detail::filler_order` and `detail::full_completion`: given the buffers' lifetimes and sizes
// and a capacity, the same buffers followed by filler buffers that take the free bytes, so that the
// memory is full at every point; search_placement's filler_turns (engine/search.hpp) searches that
// problem with the hand-off walks and the skyline search.
//
// Why. The hand-off search places planted problems full at every point that the skyline search misses,
// but one buffer fewer makes a problem ineligible, and with a few percent of free space the skyline
// search misses most planted problems of 300-450 buffers (the MiniMalloc challenging files are 89-98 %
// full), and in a memory full at every point the skyline search's section rules prune in every section
// (docs/PERFORMANCE.md section 1, "Fillers: the search below 100 %").
// Sound one way only: a placement of the completed problem, without its fillers, is a placement of the
// problem (fillers only take room). Not the other: a placement's free space need not have the fillers'
// shape, so a completion is a guess: a placement found for it is checked like any placement, and a proof
// that it has none proves nothing of the problem.
//
// The fillers: per elementary interval [t_i, t_i+1) of the lifetimes' end points, the free bytes
// cap - live(t_i), kept as a stack of rectangles: where the free space grows, a filler of the growth is
// born; where it shrinks, fillers die, the newest first (`newest`) or the oldest first (`oldest`), and the
// one cut through is reborn with what is left; or whole ones first (`whole`): the largest filler that
// the shrink can take whole dies, as long as there is one, and only then is the newest cut. Three
// orders, three guesses for the 1-D search; none places all that another does (measured; filler_turns
// says how the search shares its turns among them). A fourth, `split`, below.
// Why `whole`: where the free space is what buffers taken out of a tiling left (planted problems below
// 100 %), a shrink is often one such buffer ending, and a filler that dies whole there has its shape:
// the completion is then more often the tiling the problem was cut from, which has a placement. On
// planted `uniform` problems of ~300 buffers at 98 %, the skyline search and the hand-off search given
// the whole-first completion placed 9 of 10 within 0.5 s, given the newest-first one 6
// (docs/PERFORMANCE.md section 1, "Whole fillers first", seeds 9801-9810).
// `split` (the rectangle memories' filler turns, engine/rect_completion.hpp): whole ones first as in
// `whole`, then the newest gives the rest of the shrink from its own birth on, and what is left of it
// keeps that birth. Free space that stays free keeps its place, so of a filler cut through, the part
// that goes on was there since the filler's birth; `whole` and `newest` instead end the whole filler and
// start a new one with the rest, a filler whose shape changes where nothing in the problem does. (Over
// planted SB kernels with holes whose removed tensors are known, seeds 1911-1920, `split` at the births
// gives back the removed tensors' lives where `whole` cut them: docs/PERFORMANCE.md section 10, "2-D
// fillers".)
// `least` (split only; 0: off): a change of the free space smaller than `least` is taken as one filler
// ending where another begins, not as a sliver: where the free space grows by g < least, the newest filler
// (s bytes) ends and one of s + g is born; where a shrink leaves a cut c < least that no filler takes
// whole, the newest (more than c) ends and one of s - c is born. Why: over planted SB kernels with holes
// the free space is tensors taken out, each at least the smallest tensor, and a small change is a hole
// ending where a slightly different one begins; `split` alone kept the first of them going and made a
// sliver of the difference. The rect filler turns pass the smallest free node's area (measured:
// docs/PERFORMANCE.md section 10, "What the filler guess misses, and fillers without slivers").
// Cost: O(n log n) for n buffers with `newest` and `oldest`, at most one filler born per end point;
// `whole` scans the live fillers at each shrink: O(n f) for at most f fillers live at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gca/ir/types.hpp>
#include <gca/liveness/interval.hpp>

namespace gca::detail {

/// Which fillers die first where the free space shrinks.
enum class filler_order : std::uint8_t { newest, oldest, whole, split };

/// A problem with its fillers: the original buffers first (same indices), then the fillers.
struct completed_problem {
  std::vector<interval> life;
  std::vector<std::uint64_t> bytes;
};

/// The problem (life, bytes; one entry per buffer) with the fillers that make it full at every point
/// within `cap`, each a multiple of `align` bytes; nothing when it is full already, when some point holds
/// more than `cap`, or when a free amount is no multiple of `align` (fillers of such sizes would leave
/// the buffers above them unaligned: the hand-off search's offsets are sums of sizes). `least`: see the top.
template <class = void>
std::optional<completed_problem> full_completion(std::span<const interval> life, std::span<const std::uint64_t> bytes,
                                                 std::uint64_t cap, std::uint64_t align, filler_order order,
                                                 std::uint64_t least = 0) {
  if (order != filler_order::split) least = 0;
  std::vector<std::pair<program_point, std::int64_t>> delta;  // (point, change of the live bytes)
  for (std::size_t v = 0; v < life.size(); ++v) {
    if (life[v].empty() || bytes[v] > cap) return std::nullopt;
    delta.emplace_back(life[v].begin, static_cast<std::int64_t>(bytes[v]));
    delta.emplace_back(life[v].end, -static_cast<std::int64_t>(bytes[v]));
  }
  std::sort(delta.begin(), delta.end());
  completed_problem out{{life.begin(), life.end()}, {bytes.begin(), bytes.end()}};
  std::deque<std::pair<program_point, std::uint64_t>> alive;  // (born, bytes), oldest first
  std::uint64_t live = 0, free = 0;
  auto end_filler = [&](program_point at, std::pair<program_point, std::uint64_t> f) {
    if (f.first < at) out.life.push_back({f.first, at}), out.bytes.push_back(f.second);
  };
  for (std::size_t i = 0; i < delta.size();) {
    const program_point t = delta[i].first;
    std::int64_t change = 0;
    for (; i < delta.size() && delta[i].first == t; ++i) change += delta[i].second;
    live = static_cast<std::uint64_t>(static_cast<std::int64_t>(live) + change);
    if (live > cap) return std::nullopt;
    const std::uint64_t want = i == delta.size() ? 0 : cap - live;  // nothing after the last end
    if (want % align != 0) return std::nullopt;
    if (want > free && want - free < least && !alive.empty()) {  // no sliver: the newest is reborn larger
      const std::pair<program_point, std::uint64_t> f = alive.back();
      end_filler(t, f);
      alive.back() = {t, f.second + (want - free)};
    } else if (want > free) {
      alive.emplace_back(t, want - free);
    }
    for (std::uint64_t cut = free > want ? free - want : 0; cut > 0;) {
      if (order == filler_order::whole || order == filler_order::split) {  // the largest that dies whole (the newest of equals), if any
        std::size_t pick = alive.size();
        for (std::size_t k = 0; k < alive.size(); ++k)
          if (alive[k].second <= cut && (pick == alive.size() || alive[k].second >= alive[pick].second)) pick = k;
        if (pick != alive.size()) {
          end_filler(t, alive[pick]);
          cut -= alive[pick].second;
          alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(pick));
          continue;
        }
      }
      if (cut < least && alive.back().second > cut) {  // no sliver: the newest ends, reborn with the rest
        const std::pair<program_point, std::uint64_t> f = alive.back();
        end_filler(t, f);
        alive.back() = {t, f.second - cut};
        break;
      }
      if (order == filler_order::split) {  // the newest gives the cut from its birth on; the rest keeps it
        auto& f = alive.back();
        const std::uint64_t gone = std::min(cut, f.second);
        end_filler(t, {f.first, gone});
        cut -= gone;
        f.second -= gone;
        if (f.second == 0) alive.pop_back();
        continue;
      }
      const bool back = order != filler_order::oldest;
      auto f = back ? alive.back() : alive.front();
      if (back) alive.pop_back();
      else alive.pop_front();
      end_filler(t, f);
      const std::uint64_t gone = std::min(cut, f.second);
      cut -= gone;
      if (f.second > gone) {  // reborn with what is left, in the same place of the stack
        if (back) alive.emplace_back(t, f.second - gone);
        else alive.emplace_front(t, f.second - gone);
      }
    }
    free = want;
  }
  if (out.life.size() == life.size()) return std::nullopt;  // full at every point already
  return out;
}

}  // namespace gca::detail
