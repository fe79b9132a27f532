// gca/liveness/liveness_cache.hpp — liveness computed once per function and reused by later passes.
//
// Provides `liveness_cache`: a store of the last liveness computed for each function (by name), with the
// fingerprint of the program it was computed on. `take(lf, key)` returns the stored liveness when the
// function's program is still the one it describes (moved out: no copy), and computes it otherwise;
// `give_back(live, key)` stores it again once the caller is done with it (after commit).
//
// Why: the DRAM allocators color every function four times per kernel (local, debug, and twice after
// linking; the two shared passes need no liveness), each on a fresh linearization of the same program,
// and each used to recompute liveness over the whole function: about 0.3 s per pass at 10^6 points,
// whatever the number of DRAM tensors (docs/PERFORMANCE.md, sections 3 and 8). The DRAM passes insert
// no spill code, so the program one of them sees is usually the one the previous one saw.
//
// When a stored liveness is reused (the key, `liveness_key`): liveness reads the chain (instruction,
// loop, depth, opaque flag of every point), every instruction's opcode, operand slots, `+=` flag, loop
// end and trip count, every operand, every tensor's kind, memory, space and shape, the tied flags of the
// linearization, and of a tensor's place only whether it has one (kept_whole). The key holds a 128-bit
// fingerprint of all of it but the places (two independent 64-bit multiply-xorshift lanes over every
// field; two programs that differ anywhere liveness looks have the same fingerprint only by a hash
// collision), and the kept_whole flag of every tensor exactly. A stored liveness is reused when the
// function has the same name and fingerprint and every tensor whose kept_whole flag changed has one web
// on its own (`several` in analyze_liveness): placing such a tensor, or forgetting its place as the
// post-link passes do, leaves its webs, and so the whole liveness, exactly as they were. Anything else
// (spill code, a web split into a tensor of its own at commit, an added tensor, an edited operand or
// trip count) misses, and liveness is computed again. So a reused liveness is the liveness
// analyze_liveness would return; the allocation cannot differ (tests/test_alloc.cpp checks both ways).
// Thread-safe (functions of one pass may be colored at once); memory: one liveness per function name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <gca/ir/module.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/live_ranges.hpp>

namespace gca {

/// What a liveness was computed on (see the header comment).
struct liveness_key {
  std::string function;
  std::array<std::uint64_t, 2> program{};  // fingerprint of everything liveness reads but the places
  std::vector<std::uint8_t> whole;         // per tensor: kept_whole when computed
  std::vector<std::uint8_t> several;       // per tensor: several webs when not kept whole
  bool valid = false;                      // filled by liveness_cache::take
};

namespace detail {

/// Two 64-bit lanes with different multipliers and shifts (the finalizers of MurmurHash3 and of
/// splitmix64), fed every field as a 64-bit word.
struct fingerprint_lanes {
  std::uint64_t a = 0x9e3779b97f4a7c15ull, b = 0x243f6a8885a308d3ull;
  template <class = void>
  void add(std::uint64_t x) noexcept {
    a = (a ^ x) * 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    b = (b + x + 0x632be59bd9b4e019ull) * 0x94d049bb133111ebull;
    b ^= b >> 31;
  }
};

template <class = void>
std::array<std::uint64_t, 2> program_fingerprint(const linearized_function& lf) {
  const function& f = lf.work();
  fingerprint_lanes h;
  h.add(lf.flattened() ? 1 : 0);
  h.add(lf.points());
  h.add(f.insts.size());
  h.add(f.operands.size());
  h.add(f.tensors.size());
  for (const chain_node& n : lf.chain()) {
    h.add(std::uint64_t{n.inst} << 32 | n.loop);
    h.add(std::uint64_t{n.depth} << 1 | (n.opaque_loop ? 1 : 0));
  }
  for (const instruction& i : f.insts) {
    h.add(std::uint64_t{i.opcode} << 32 | i.first_operand);
    h.add(std::uint64_t{i.n_outputs} << 32 | i.n_inputs);
    h.add(std::uint64_t{i.end} << 1 | (i.rmw ? 1 : 0));
    h.add(i.trips);
  }
  for (std::size_t s = 0; s + 1 < f.operands.size(); s += 2) h.add(std::uint64_t{f.operands[s]} << 32 | f.operands[s + 1]);
  if (f.operands.size() % 2 == 1) h.add(f.operands.back());
  for (tensor_id t = 0; t < f.tensors.size(); ++t) {
    const tensor& x = f.tensors[t];
    h.add(static_cast<std::uint64_t>(x.kind) << 48 | static_cast<std::uint64_t>(x.memory) << 40 |
          static_cast<std::uint64_t>(x.space) << 32 | (lf.tied(t) ? 1 : 0));
    h.add(std::uint64_t{x.shape.partitions});
    h.add(x.shape.bytes);
  }
  return {h.a, h.b};
}

}  // namespace detail

class liveness_cache {
 public:
  struct counts {
    std::size_t reused = 0;    // take() returned a stored liveness
    std::size_t computed = 0;  // take() computed it
  };

  /// The liveness of `lf` (numbered), and in `key` what it was computed on, for give_back.
  template <class = void>
  liveness take(const linearized_function& lf, liveness_key& key) {
    key.function = lf.work().name;
    key.program = detail::program_fingerprint(lf);
    key.whole.resize(lf.work().tensors.size());
    for (tensor_id t = 0; t < lf.work().tensors.size(); ++t) key.whole[t] = kept_whole(lf.work().tensors[t]) ? 1 : 0;
    key.valid = true;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      auto it = stored_.find(key.function);
      if (it != stored_.end() && reusable(it->second.key, key)) {
        liveness out = std::move(it->second.live);
        key.several = std::move(it->second.key.several);
        stored_.erase(it);
        ++counts_.reused;
        return out;
      }
      if (it != stored_.end()) stored_.erase(it);  // stale: free it now
      ++counts_.computed;
    }
    return analyze_liveness(lf, &key.several);
  }

  /// Stores `live` (computed on the program `key` describes) for the next take of its function.
  template <class = void>
  void give_back(liveness&& live, liveness_key&& key) {
    if (!key.valid) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    std::string name = key.function;
    stored_.insert_or_assign(std::move(name), entry{std::move(key), std::move(live)});
  }

  counts count() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  struct entry {
    liveness_key key;
    liveness live;
  };

  /// Stored liveness `old` is the liveness of `now` (see the header comment).
  template <class = void>
  static bool reusable(const liveness_key& old, const liveness_key& now) {
    if (old.program != now.program || old.whole.size() != now.whole.size() || old.several.size() != old.whole.size())
      return false;
    for (std::size_t t = 0; t < now.whole.size(); ++t)
      if (old.whole[t] != now.whole[t] && old.several[t]) return false;
    return true;
  }

  mutable std::mutex mutex_;
  std::map<std::string, entry> stored_;  // by function name; lookup only, never iterated
  counts counts_;
};

}  // namespace gca
