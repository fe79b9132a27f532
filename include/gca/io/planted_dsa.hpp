// gca/io/planted_dsa.hpp — DSA problems with a planted solution, for tests and benchmarks.
//
// Provides `planted_family`, `planted_options`, `planted_dsa` and `make_planted_dsa`: a generator that
// first builds a valid placement (buffers = rectangles in time x offset inside a box of `capacity` bytes)
// and then forgets the offsets, so every instance is feasible within its capacity by construction. Used
// by the search tests, benchmarks/bench_search.cpp and `gca-gen --planted-dsa`; nothing in the library
// includes it (gca.hpp does not).
//
// Two constructions, both tiling the box exactly before any thinning (max-live == capacity at every
// point, area fill 100 %):
//   * sweep: at time 0 the address range [0, capacity) is cut into buffers; whenever buffers end, each
//     maximal run of freed, adjacent addresses is cut again into new buffers starting then. Sizes and
//     lifetimes come from the family's distributions; the last piece of a run takes what is left (a
//     piece that would leave less than the family's smallest size takes the rest of its run). After
//     the N-th buffer, every live buffer ends at the next end time. Not guillotine; ends that coincide
//     merge their space (the usual "several temporaries die at one instruction").
//   * cut: a guillotine subdivision of the box (a 1024 x 1024 grid): a rectangle chosen with
//     probability proportional to its area is split at a uniform grid position, along time or along
//     the address axis (even odds), until there are N rectangles. This is the structure of MiniMalloc's
//     "challenging" files A-E and I-K (grid of 1024 bytes x 1024 time units; runs of equal-size buffers
//     end to end in time; stacks of buffers whose sizes add up to one larger buffer's; thin buffers alive
//     through most of the horizon next to tall short ones).
// Families (`--planted-dsa` names in parentheses):
//   uniform (uniform):        sweep, sizes uniform in [C/64, C/8], lifetimes uniform in [8, 64];
//   heavy-tailed (heavy):     sweep, sizes Pareto (alpha 1.1) from C/256 up to C/2, lifetimes log-uniform
//                             in [1, 512];
//   long-short (long-short):  sweep, 1 in 10 new buffers lives 100-400 steps and takes C/16-C/4, the rest
//                             are temporaries of 1-8 steps and C/128-C/16;
//   identical (identical):    sweep, every size C/16, lifetimes uniform in [1, 32];
//   challenging-cut (cut):    the guillotine construction above, like challenging A-E, I-K;
//   challenging-ramp (ramp):  sweep with sizes 30-120 KiB in 1 KiB steps and lifetimes of 11-56 units of
//                             1024 (capacity 1 MiB), then thinned so that the address space is full only
//                             in a window at 65-85 % of the horizon and sparser away from it (60-75 %
//                             area fill; 1.5 N buffers are made, the thinning keeps N): the look of
//                             challenging F-H.
// `tightness` T in (0, 1]: after construction, buffers are removed in a seeded random order while the
// kept area exceeds T x the box's area (capacity x horizon); T = 1 keeps the exact tiling. The planted
// offsets stay valid, so the instance stays feasible. Deterministic for given options on every platform
// (own integer draws from std::mt19937_64, no <random> distributions). Buffers are shuffled so that the
// file order does not give the planted order away.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/io/dsa_csv.hpp>

namespace gca {

enum class planted_family : std::uint8_t { uniform, heavy_tailed, long_short, identical, challenging_cut, challenging_ramp };

inline constexpr planted_family all_planted_families[] = {
    planted_family::uniform,   planted_family::heavy_tailed,    planted_family::long_short,
    planted_family::identical, planted_family::challenging_cut, planted_family::challenging_ramp};

constexpr const char* to_string(planted_family f) noexcept {
  switch (f) {
    case planted_family::uniform: return "uniform";
    case planted_family::heavy_tailed: return "heavy";
    case planted_family::long_short: return "long-short";
    case planted_family::identical: return "identical";
    case planted_family::challenging_cut: return "cut";
    case planted_family::challenging_ramp: return "ramp";
  }
  return "?";
}

template <class = void>
std::optional<planted_family> parse_planted_family(std::string_view s) {
  for (planted_family f : all_planted_families)
    if (s == to_string(f)) return f;
  return std::nullopt;
}

struct planted_options {
  planted_family family = planted_family::uniform;
  std::size_t buffers = 100;  // before thinning (tightness < 1 and ramp remove some)
  std::uint64_t seed = 1;
  double tightness = 1.0;     // kept area / box area, in (0, 1]
};

struct planted_dsa {
  dsa_problem problem;                // ids 0..n-1, shuffled
  std::uint64_t capacity = 0;         // the box's height: the planted offsets fit in it
  std::vector<std::uint64_t> offsets;  // the planted solution, one per buffer
};

namespace detail {

class planted_rng {
 public:
  explicit planted_rng(std::uint64_t seed) : g_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  /// Uniform in [lo, hi] (hi - lo far below 2^64, so the modulo bias is negligible and portable).
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + g_() % (hi - lo + 1); }
  double unit() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  template <class = void>
  std::uint64_t log_uniform(std::uint64_t lo, std::uint64_t hi) {
    const double x = std::exp(std::log(static_cast<double>(lo)) +
                              unit() * (std::log(static_cast<double>(hi) + 1) - std::log(static_cast<double>(lo))));
    return std::clamp(static_cast<std::uint64_t>(x), lo, hi);
  }
  std::uint64_t raw() { return g_(); }

 private:
  std::mt19937_64 g_;
};

struct planted_rect {
  std::uint64_t t0, t1, off, size;
};

/// The sweep construction (see the header comment). `size` draws a size in grain units, `life` a
/// lifetime in time units; both >= 1.
/// A piece that would leave less than `min_rest` units of its run goes to the end of the run instead.
template <class SizeFn, class LifeFn>
std::vector<planted_rect> planted_sweep(std::size_t n, std::uint64_t units, std::uint64_t min_rest, SizeFn size,
                                        LifeFn life) {
  struct slot {
    std::uint64_t off, size, end;
    std::size_t rect;
  };
  constexpr std::uint64_t never = ~std::uint64_t{0};
  std::vector<planted_rect> out;
  std::vector<slot> live;  // sorted by offset, covering [0, units)
  auto fill = [&](std::uint64_t t, std::uint64_t off, std::uint64_t len, std::vector<slot>& into) {
    while (len > 0) {
      std::uint64_t s = std::max<std::uint64_t>(1, size());
      const bool last = out.size() + 1 >= n;
      if (s + min_rest > len || last) s = len;
      into.push_back({off, s, t + std::max<std::uint64_t>(1, life()), out.size()});
      out.push_back({t, never, off, s});
      off += s;
      len -= s;
    }
  };
  fill(0, 0, units, live);
  for (;;) {
    std::uint64_t t = never;
    for (const slot& s : live) t = std::min(t, s.end);
    if (out.size() >= n || t == never) {
      if (t == never) {  // every slot was kept alive: end them together, after the last start
        t = 0;
        for (const slot& s : live) t = std::max(t, out[s.rect].t0 + 1);
      }
      for (const slot& s : live) out[s.rect].t1 = t;
      return out;
    }
    std::vector<slot> next;
    for (std::size_t i = 0; i < live.size();) {
      if (live[i].end != t) {
        next.push_back(live[i++]);
        continue;
      }
      std::size_t j = i;
      std::uint64_t len = 0;
      while (j < live.size() && live[j].end == t) len += live[j++].size;
      if (out.size() >= n) {  // no buffer left to give: the ended ones live on to the end instead
        for (std::size_t k = i; k < j; ++k) next.push_back({live[k].off, live[k].size, never, live[k].rect});
      } else {
        for (std::size_t k = i; k < j; ++k) out[live[k].rect].t1 = t;
        fill(t, live[i].off, len, next);
      }
      i = j;
    }
    live = std::move(next);
  }
}

/// The guillotine construction on a k x k grid (see the header comment).
template <class = void>
std::vector<planted_rect> planted_cut(std::size_t n, std::uint64_t k, planted_rng& rng) {
  std::vector<planted_rect> r{{0, k, 0, k}};
  while (r.size() < n) {
    std::uint64_t total = 0;
    for (const planted_rect& x : r) total += (x.t1 - x.t0) * x.size;
    std::uint64_t pick = rng.between(0, total - 1);
    std::size_t i = 0;
    for (; pick >= (r[i].t1 - r[i].t0) * r[i].size; ++i) pick -= (r[i].t1 - r[i].t0) * r[i].size;
    planted_rect a = r[i];
    const bool time_ok = a.t1 - a.t0 > 1, size_ok = a.size > 1;
    if (!time_ok && !size_ok) continue;  // a 1x1 cell; the area draw moves on
    const bool along_time = time_ok && (!size_ok || rng.between(0, 1) == 0);
    planted_rect b = a;
    if (along_time) {
      const std::uint64_t c = rng.between(a.t0 + 1, a.t1 - 1);
      a.t1 = c;
      b.t0 = c;
    } else {
      const std::uint64_t c = rng.between(1, a.size - 1);
      b.off = a.off + c;
      b.size = a.size - c;
      a.size = c;
    }
    r[i] = a;
    r.push_back(b);
  }
  return r;
}

/// The rectangles of one family on its grid: sizes in units of `grain` bytes, times in units of `tscale`
/// points, `units` size units of capacity.
struct planted_grid {
  std::vector<planted_rect> rects;
  std::uint64_t grain = 64, tscale = 1, units = (std::uint64_t{1} << 20) / 64;
};

/// challenging_ramp's window: keeps every buffer that touches [0.65, 0.85] of the horizon; elsewhere
/// keeps each with a probability falling linearly with the distance to the window (0.9 next to it, 0.3
/// at the ends); then back to n buffers, dropping random ones away from the window first, then any.
template <class = void>
void keep_ramp_window(std::vector<planted_rect>& r, std::size_t n, planted_rng& rng) {
  std::uint64_t horizon = 0;
  for (const auto& x : r) horizon = std::max(horizon, x.t1);
  const double lo = 0.65 * static_cast<double>(horizon), hi = 0.85 * static_cast<double>(horizon);
  std::erase_if(r, [&](const planted_rect& x) {
    const double a = static_cast<double>(x.t0), b = static_cast<double>(x.t1);
    const double d = b <= lo ? (lo - b) / lo : a >= hi ? (a - hi) / std::max(1.0, static_cast<double>(horizon) - hi) : 0;
    const double keep = d == 0 ? 1.0 : 0.9 - 0.6 * std::min(1.0, d);
    return rng.unit() >= keep;
  });
  for (int pass = 0; pass < 2 && r.size() > n; ++pass)
    for (std::size_t i = r.size(); i-- > 0 && r.size() > n;) {
      const bool in_window = static_cast<double>(r[i].t1) > lo && static_cast<double>(r[i].t0) < hi;
      if ((pass == 1 || !in_window) && rng.between(0, 1) == 0) r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

/// The family's planted placement (see the header comment for each).
template <class = void>
planted_grid planted_family_grid(const planted_options& o, planted_rng& rng) {
  planted_grid g;
  const std::uint64_t units = g.units;
  const std::size_t n = o.buffers;
  switch (o.family) {
    case planted_family::uniform:
      g.rects = planted_sweep(n, units, units / 64, [&] { return rng.between(units / 64, units / 8); },
                              [&] { return rng.between(8, 64); });
      break;
    case planted_family::heavy_tailed:
      g.rects = planted_sweep(
          n, units, 1,
          [&] {
            const double x = static_cast<double>(units / 256) / std::pow(1.0 - rng.unit(), 1.0 / 1.1);
            return std::min<std::uint64_t>(units / 2, static_cast<std::uint64_t>(x));
          },
          [&] { return rng.log_uniform(1, 512); });
      break;
    case planted_family::long_short: {
      bool is_long = false;
      g.rects = planted_sweep(
          n, units, units / 128,
          [&] {
            is_long = rng.between(0, 9) == 0;
            return is_long ? rng.between(units / 16, units / 4) : rng.between(units / 128, units / 16);
          },
          [&] { return is_long ? rng.between(100, 400) : rng.between(1, 8); });
      break;
    }
    case planted_family::identical:
      g.rects = planted_sweep(n, units, 1, [&] { return units / 16; }, [&] { return rng.between(1, 32); });
      break;
    case planted_family::challenging_cut:
      g.grain = g.tscale = g.units = 1024;
      g.rects = planted_cut(n, g.units, rng);
      break;
    case planted_family::challenging_ramp:
      g.grain = g.tscale = g.units = 1024;
      g.rects = planted_sweep(n + n / 2, g.units, 30, [&] { return rng.between(30, 120); },
                              [&] { return rng.between(11, 56); });
      keep_ramp_window(g.rects, n, rng);
      break;
  }
  return g;
}

/// Thinning to the tightness: a random order of the rectangles (the file's order), and which of them
/// are removed, in that order, while the kept area is above `tightness` x the box (horizon x units).
template <class = void>
std::pair<std::vector<std::size_t>, std::vector<std::uint8_t>> planted_thinning(const planted_grid& g,
                                                                               double tightness,
                                                                               planted_rng& rng) {
  const std::vector<planted_rect>& r = g.rects;
  std::uint64_t horizon = 0;
  long double area = 0;
  for (const auto& x : r) {
    horizon = std::max(horizon, x.t1);
    area += static_cast<long double>(x.t1 - x.t0) * static_cast<long double>(x.size);
  }
  const long double box = static_cast<long double>(horizon) * static_cast<long double>(g.units);
  std::vector<std::size_t> order(r.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.between(0, i - 1)]);
  std::vector<std::uint8_t> gone(r.size(), 0);
  for (std::size_t i = 0; i < order.size() && area > static_cast<long double>(tightness) * box + 1e-9L; ++i) {
    const auto& x = r[order[i]];
    gone[order[i]] = 1;
    area -= static_cast<long double>(x.t1 - x.t0) * static_cast<long double>(x.size);
  }
  return {std::move(order), std::move(gone)};
}

}  // namespace detail

/// Builds an instance (see the header comment). Throws input_error for a buffer count outside 1..10^7
/// (1..10^5 for the cut family) or a tightness outside (0, 1].
template <class = void>
planted_dsa make_planted_dsa(const planted_options& o) {
  if (o.buffers == 0 || o.buffers > 10'000'000) throw input_error("planted DSA: buffers must be in 1..10000000");
  if (!(o.tightness > 0.0 && o.tightness <= 1.0)) throw input_error("planted DSA: tightness must be in (0, 1]");
  // The guillotine construction draws a rectangle by area in O(n) per cut (O(n^2) in all) on a grid of
  // 2^20 cells: keep it well inside both.
  if (o.family == planted_family::challenging_cut && o.buffers > 100'000)
    throw input_error("planted DSA: the cut family takes at most 100000 buffers");
  detail::planted_rng rng(o.seed * 8 + static_cast<std::uint64_t>(o.family));
  const detail::planted_grid g = detail::planted_family_grid(o, rng);
  const auto [order, gone] = detail::planted_thinning(g, o.tightness, rng);
  planted_dsa out;
  out.capacity = g.units * g.grain;
  std::uint32_t id = 0;
  for (std::size_t i : order) {  // the shuffled order is the file order
    if (gone[i]) continue;
    const auto& x = g.rects[i];
    dsa_buffer b;
    b.id = std::to_string(id++);
    b.lower = static_cast<program_point>(x.t0 * g.tscale);
    b.upper = static_cast<program_point>(x.t1 * g.tscale);
    b.size = x.size * g.grain;
    b.line = id + 1;
    out.problem.buffers.push_back(std::move(b));
    out.offsets.push_back(x.off * g.grain);
  }
  return out;
}

}  // namespace gca
