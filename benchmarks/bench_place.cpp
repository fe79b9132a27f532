// bench_place — the 2-D placement search (gca/engine/place_search.hpp) alone, on planted SB problems
// (gca/gen/planted_sb.hpp: a placement is built first, so every problem is feasible, its busiest points
// full to the last byte of every partition their patterns cover). One table (docs/PERFORMANCE.md,
// section 10): per family, pinned fraction and size, over `--seeds` seeds from `--first-seed`, the fit
// rate, median and maximum time and median search nodes of place_search with the skyline fill
// (engine/place_fill.hpp) and, with `--baseline 1`, of the canonical walk alone (`search_limits::fill`
// off), each instance run by both in the same run. `--nodes N` is the node budget (1,000,000 by default,
// the allocator's first-round budget), `--sizes 20,60,150,300`, `--families mixed,tight,128`,
// `--pins 0,0.2`, `--holes H` (planted_sb_options::holes: that share of the unpinned tensors removed, so
// free space is scattered through the busiest points; 0 by default), `--memory psum` (the same kernels
// planted in PSUM, planted_sb_options::memory: banks of the target, each tensor inside one),
// `--construction sweep` (planted_sb_options::construction: places cut anew as tensors die, no epochs),
// `--tightness T` (planted_sb_options::tightness: the planted placement uses that share of the bytes, the
// rest of the memory is free above it; 1 by default), `--capacity-scale F` (the search's memory has F x
// the bytes of the one planted in, per segment, aligned down: F > 1 asks whether more room ever loses a
// placement; 1 by default; in PSUM only with `--pins 0`, as a pin's planted offset would move between banks),
// `--threads 2` (search_limits::threads: the sweep beside the fills, the same fits and nodes, less wall time),
// `--given-first-birth 1` (a diagnostic: the tensors live at the kernel's first step are pinned at their
// planted places as well, so the search is asked for everything but that first arrangement),
// `--holes-oracle 1` (a diagnostic of the filler turns, with `--holes`: three more columns, the time sweep
// alone given the removed tensors back, given their true lives cut into one-quarter pieces, and on the
// search's own guesses of the free space; see oracle() below),
// `--repair-alone 1` (the repair walk alone, engine/place_repair.hpp, on the whole budget, in place of the
// search: how the walk's rules do on their own; repair_alone() below), `--each 1` (a line per kernel on
// stderr: family, pins, size, seed, fit or miss, nodes, seconds; to compare two builds kernel by kernel).
// A fit is checked here by a pairwise
// overlap test that does not use the search, and "infeasible" on a planted problem is reported as a bug.
//   ninja -C build benchmarks/bench-place && build/benchmarks/bench-place --baseline 1
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gca/engine/place_repair.hpp>
#include <gca/engine/place_search.hpp>
#include <gca/engine/place_sweep.hpp>
#include <gca/engine/rect_completion.hpp>
#include <gca/gen/planted_sb.hpp>
#include <gca/geometry/rect_layout.hpp>

namespace {

struct outcome {
  bool fit = false;
  bool bug = false;
  double seconds = 0;
  std::uint64_t nodes = 0;
};

/// Whether r places every tensor of k, legally and without two live-together tensors sharing a
/// partition and a byte.
bool valid(const gca::planted_sb& k, const gca::place_result& r, const gca::rect_layout& lay) {
  if (r.placements.size() != k.tensors.size()) return false;
  for (std::size_t a = 0; a < k.tensors.size(); ++a) {
    const auto& x = k.tensors[a];
    if (!r.placements[a] || r.placements[a]->offset + x.shape.bytes > lay.capacity()) return false;
    if (r.placements[a]->partition + x.shape.partitions > lay.partitions) return false;
    const std::uint64_t o = r.placements[a]->offset;  // inside one segment (a PSUM bank)
    if (o / lay.segment_bytes != (o + x.shape.bytes - 1) / lay.segment_bytes) return false;
    for (std::size_t b = 0; b < a; ++b) {
      const auto& y = k.tensors[b];
      if (x.born >= y.dies || y.born >= x.dies) continue;
      const gca::placement &p = *r.placements[a], &q = *r.placements[b];
      const bool rows = p.partition < q.partition + y.shape.partitions && q.partition < p.partition + x.shape.partitions;
      const bool bytes = p.offset < q.offset + y.shape.bytes && q.offset < p.offset + x.shape.bytes;
      if (rows && bytes) return false;
    }
  }
  return true;
}

/// The memory the kernel was planted in, as the search sees it: SB one segment, PSUM one per bank.
/// `scale` (--capacity-scale) multiplies each segment's bytes, aligned down.
gca::rect_layout layout_of(gca::memory_type m, const gca::target& tgt, double scale) {
  auto scaled = [&](std::uint64_t bytes, std::uint64_t align) {
    return static_cast<std::uint64_t>(static_cast<double>(bytes) * scale) / align * align;
  };
  if (m == gca::memory_type::sb) return {tgt.sb_partitions, tgt.sb_alignment, scaled(tgt.sb_usable, tgt.sb_alignment), 1};
  if (tgt.psum_may_span_banks)
    return {tgt.sb_partitions, tgt.psum_alignment, scaled(std::uint64_t{tgt.psum_banks} * tgt.psum_bank_bytes, tgt.psum_alignment), 1};
  return {tgt.sb_partitions, tgt.psum_alignment, scaled(tgt.psum_bank_bytes, tgt.psum_alignment), tgt.psum_banks};
}

/// The kernel's tensors as a place problem (pins where pinned), to which the oracle adds nodes.
gca::owned_place_problem problem_of(const gca::planted_sb& k) {
  gca::owned_place_problem p;
  for (const auto& x : k.tensors) {
    const gca::interval i{x.born, x.dies};
    p.add(std::span(&i, 1), x.shape, x.pinned ? std::optional<gca::placement>(x.at) : std::nullopt);
  }
  return p;
}

outcome run(const gca::planted_sb& k, const gca::rect_layout& lay, std::uint64_t nodes, bool fill, bool given_first,
            unsigned threads) {
  gca::owned_place_problem q = problem_of(k);
  std::uint32_t first_step = ~std::uint32_t{0};
  for (const auto& x : k.tensors) first_step = std::min(first_step, x.born);
  for (std::size_t v = 0; v < k.tensors.size(); ++v)
    if (given_first && k.tensors[v].born == first_step) q.pins[v] = k.tensors[v].at;
  gca::search_limits lim;
  lim.max_nodes = nodes;
  lim.fill = fill;
  lim.threads = threads;
  const auto t0 = std::chrono::steady_clock::now();
  const gca::place_result r = gca::place_search(gca::place_problem{q.ranges, q.extents, q.pins}, lay, lim);
  outcome o;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.nodes = r.nodes;
  o.fit = r.status == gca::search_status::found && valid(k, r, lay);
  o.bug = r.status == gca::search_status::infeasible || (r.status == gca::search_status::found && !o.fit);
  return o;
}

/// --repair-alone: the repair walk (engine/place_repair.hpp) alone on the problem of k, on `nodes`.
outcome repair_alone(const gca::planted_sb& k, const gca::rect_layout& lay, std::uint64_t nodes) {
  const gca::owned_place_problem q = problem_of(k);
  const auto t0 = std::chrono::steady_clock::now();
  const gca::interference_graph g = gca::build_interference(q.ranges);
  gca::detail::conflict_repairer<> walk(q.extents, q.pins, g, lay);
  outcome o;
  const auto got = walk.run(nodes, std::chrono::steady_clock::time_point::max(), o.nodes);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!got) return o;
  gca::place_result r;
  r.placements.assign(got->begin(), got->end());
  o.fit = valid(k, r, lay);
  o.bug = !o.fit;
  return o;
}

/// The time sweep alone (engine/place_sweep.hpp) on each of `tries` within `nodes / tries.size()` nodes
/// each, in turn, until one places the kernel k (its tensors, the first nodes of every try, checked by
/// valid()); the nodes and time of all the tries run.
outcome sweep_alone(const gca::planted_sb& k, const std::vector<gca::owned_place_problem>& tries, const gca::rect_layout& lay,
                    std::uint64_t nodes) {
  outcome o;
  const auto t0 = std::chrono::steady_clock::now();
  for (const gca::owned_place_problem& p : tries) {
    const gca::interference_graph g = gca::build_interference(p.ranges);
    gca::detail::time_sweeper<> sweep(p.ranges, p.extents, p.pins, g, lay);
    std::uint64_t spent = 0;
    const auto got = sweep.run(nodes / tries.size(), std::chrono::steady_clock::time_point::max(), spent);
    o.nodes += spent;
    if (!got) continue;
    gca::place_result r;
    r.placements.assign(got->begin(), got->begin() + static_cast<std::ptrdiff_t>(k.tensors.size()));
    o.fit = valid(k, r, lay);
    o.bug = !o.fit;
    break;
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

/// --holes-oracle: what the filler turns' guess of the free space misses (docs/PERFORMANCE.md section 10,
/// "What the filler guess misses"). `holed` is `full` with some tensors removed (the same options and
/// seed, holes 0 for `full`). Three sweeps, each alone on `nodes`: (0) the removed tensors given back as
/// free tensors (the free space's true shapes and lives); (1) their true lives, each cut into one-quarter
/// pieces as the guess cuts a filler (rect_pieces: 4, 12 and 2 pieces, a third of the nodes each); (2) the
/// guess itself (rect_fillers, the same three cuts: filler_turns' tries).
std::array<outcome, 3> oracle(const gca::planted_sb& full, const gca::planted_sb& holed, const gca::rect_layout& lay,
                              std::uint64_t nodes) {
  std::vector<const gca::planted_tensor*> removed;
  std::size_t h = 0;
  for (const auto& x : full.tensors)  // names are given before the holes are drawn: holed keeps full's order
    if (h < holed.tensors.size() && holed.tensors[h].name == x.name) ++h;
    else removed.push_back(&x);
  const gca::owned_place_problem base = problem_of(holed);
  gca::owned_place_problem given = base;
  for (const auto* x : removed) {
    const gca::interval i{x->born, x->dies};
    given.add(std::span(&i, 1), x->shape);
  }
  auto quarters = [](std::uint32_t parts) {  // the fewest quarters an allowed start makes a tensor touch
    std::uint32_t cmin[16];
    gca::detail::quarter_reach(gca::detail::allowed_partition_starts(parts, 128), parts, 4, cmin);
    return std::uint64_t{cmin[15]};
  };
  std::vector<gca::owned_place_problem> lives, guesses;
  std::vector<std::uint64_t> area;
  std::size_t free = 0;  // as filler_turns: at most as many pieces as free nodes, none smaller than one
  std::uint64_t least = ~std::uint64_t{0};
  for (const auto& x : holed.tensors) {
    area.push_back(x.shape.bytes * quarters(x.shape.partitions));
    if (!x.pinned) ++free, least = std::min(least, area.back());
  }
  for (const std::uint64_t pieces : {4, 12, 2}) {
    lives.push_back(base);
    for (const auto* x : removed) {
      const gca::interval i{x->born, x->dies};
      for (const gca::extent& e : gca::detail::rect_pieces(x->shape.bytes * quarters(x->shape.partitions) / lay.alignment, pieces, lay))
        lives.back().add(std::span(&i, 1), e);
    }
    const auto f = gca::detail::rect_fillers(base.ranges, area, lay, 4, pieces, free, least);
    if (!f) continue;
    guesses.push_back(base);
    for (std::size_t j = 0; j < f->life.size(); ++j) guesses.back().add(std::span(&f->life[j], 1), f->extents[j]);
  }
  std::array<outcome, 3> out{sweep_alone(holed, {given}, lay, nodes), sweep_alone(holed, lives, lay, nodes), outcome{}};
  if (!guesses.empty()) out[2] = sweep_alone(holed, guesses, lay, nodes);
  return out;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::stringstream in{std::string(s)};
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

/// "fits/n | median s | max s | median nodes" of one column.
std::string cells(std::vector<outcome> v) {
  std::size_t fits = 0;
  for (const outcome& o : v) fits += o.fit;
  std::sort(v.begin(), v.end(), [](const outcome& a, const outcome& b) { return a.seconds < b.seconds; });
  const double median = v[v.size() / 2].seconds, max = v.back().seconds;
  std::sort(v.begin(), v.end(), [](const outcome& a, const outcome& b) { return a.nodes < b.nodes; });
  char buf[160];
  std::snprintf(buf, sizeof buf, " %zu/%zu | %.3f s | %.3f s | %llu |", fits, v.size(), median, max,
                static_cast<unsigned long long>(v[v.size() / 2].nodes));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t first = 1, seeds = 20, nodes = 1000000;
  bool baseline = false, given_first = false, holes_oracle = false, repair = false, each = false;
  unsigned threads = 1;
  double holes = 0, tightness = 1, scale = 1;
  gca::memory_type memory = gca::memory_type::sb;
  gca::planted_sb_construction construction = gca::planted_sb_construction::epochs;
  std::vector<std::string> sizes{"20", "60", "150", "300"}, families{"mixed", "tight", "128"}, pin_shares{"0", "0.2"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--first-seed") first = std::stoull(v);
    else if (a == "--seeds") seeds = std::stoull(v);
    else if (a == "--nodes") nodes = std::stoull(v);
    else if (a == "--baseline") baseline = v == "1";
    else if (a == "--given-first-birth") given_first = v == "1";
    else if (a == "--holes-oracle") holes_oracle = v == "1";
    else if (a == "--repair-alone") repair = v == "1";
    else if (a == "--each") each = v == "1";  // one line per kernel on stderr: what the table's cells summarize
    else if (a == "--threads") threads = static_cast<unsigned>(std::stoul(v));
    else if (a == "--sizes") sizes = split(v);
    else if (a == "--families") families = split(v);
    else if (a == "--pins") pin_shares = split(v);
    else if (a == "--holes") holes = std::stod(v);
    else if (a == "--tightness") tightness = std::stod(v);
    else if (a == "--capacity-scale") scale = std::stod(v);
    else if (a == "--memory" && (v == "sb" || v == "psum")) memory = v == "psum" ? gca::memory_type::psum : gca::memory_type::sb;
    else if (a == "--construction" && (v == "epochs" || v == "sweep"))
      construction = v == "sweep" ? gca::planted_sb_construction::sweep : gca::planted_sb_construction::epochs;
    else {
      std::fprintf(stderr, "bench-place: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (scale != 1 && memory == gca::memory_type::psum &&
      std::any_of(pin_shares.begin(), pin_shares.end(), [](const std::string& x) { return std::stod(x) != 0; })) {
    std::fprintf(stderr, "bench-place: --capacity-scale in PSUM needs --pins 0 (a pin's offset would change banks)\n");
    return 2;
  }
  if (holes_oracle && !(holes > 0)) {
    std::fprintf(stderr, "bench-place: --holes-oracle needs --holes H > 0\n");
    return 2;
  }
  if (holes_oracle) {
    std::printf("| family | pinned | tensors (requested) | search: fits | median | max | median nodes |");
    for (const char* c : {"sweep, holes given", "sweep, true lives", "sweep, the guess"})
      std::printf(" %s: fits | median | max | median nodes |", c);
    std::printf("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf("| family | pinned | tensors (requested) | %s: fits | median | max | median nodes |%s\n",
                repair ? "repair walk alone" : "with fill", baseline ? " canonical walk alone: fits | median | max | median nodes |" : "");
    std::printf("|---|---:|---:|---:|---:|---:|---:|%s\n", baseline ? "---:|---:|---:|---:|" : "");
  }
  int bugs = 0;
  for (const std::string& fam : families)
    for (const std::string& pin : pin_shares)
      for (const std::string& size : sizes) {
        std::vector<outcome> with, without;
        std::array<std::vector<outcome>, 3> sweeps;
        for (std::uint64_t s = first; s < first + seeds; ++s) {
          gca::planted_sb_options o;
          o.tensors = std::stoul(size);
          o.seed = s;
          o.pins = std::stod(pin);
          o.holes = holes;
          o.tightness = tightness;
          o.memory = memory;
          o.construction = construction;
          o.family = fam == "tight" ? gca::planted_sb_family::tight
                     : fam == "128" ? gca::planted_sb_family::only128
                                    : gca::planted_sb_family::mixed;
          const gca::planted_sb k = gca::make_planted_sb(o);
          with.push_back(repair ? repair_alone(k, layout_of(memory, o.tgt, scale), nodes)
                                : run(k, layout_of(memory, o.tgt, scale), nodes, true, given_first, threads));
          if (each)
            std::fprintf(stderr, "%s %s %s %llu %s %llu %.3f\n", fam.c_str(), pin.c_str(), size.c_str(),
                         static_cast<unsigned long long>(s), with.back().fit ? "fit" : "miss",
                         static_cast<unsigned long long>(with.back().nodes), with.back().seconds);
          if (baseline) without.push_back(run(k, layout_of(memory, o.tgt, scale), nodes, false, given_first, threads));
          if (holes_oracle) {
            gca::planted_sb_options whole = o;
            whole.holes = 0;
            const std::array<outcome, 3> x = oracle(gca::make_planted_sb(whole), k, layout_of(memory, o.tgt, scale), nodes);
            for (std::size_t j = 0; j < 3; ++j) sweeps[j].push_back(x[j]);
          }
          for (const outcome* x : {&with.back(), baseline ? &without.back() : nullptr, holes_oracle ? &sweeps[0].back() : nullptr,
                                   holes_oracle ? &sweeps[1].back() : nullptr, holes_oracle ? &sweeps[2].back() : nullptr})
            if (x && x->bug) {
              ++bugs;
              std::fprintf(stderr, "bench-place: BUG on %s pins %s size %s seed %llu\n", fam.c_str(), pin.c_str(),
                           size.c_str(), static_cast<unsigned long long>(s));
            }
        }
        if (holes_oracle)
          std::printf("| %s | %s | %s |%s%s%s%s\n", fam.c_str(), pin.c_str(), size.c_str(), cells(with).c_str(),
                      cells(sweeps[0]).c_str(), cells(sweeps[1]).c_str(), cells(sweeps[2]).c_str());
        else
          std::printf("| %s | %s | %s |%s%s\n", fam.c_str(), pin.c_str(), size.c_str(), cells(with).c_str(),
                      baseline ? cells(without).c_str() : "");
        std::fflush(stdout);
      }
  return bugs == 0 ? 0 : 1;
}
