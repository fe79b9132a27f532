// gca/ir/fresh_names.hpp — new tensor names for what an allocator adds to a function: spill slots and
// temporaries (spill/edit.hpp, "%t.slot1", "%t.r3") and webs split off into tensors of their own
// (engine/space_colorer.hpp, "%t.2"). One rule for both: the base and the smallest number from 1 that
// no tensor of the function, and no name handed out before, has.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <gca/ir/module.hpp>

namespace gca {

/// A pool of fresh names for one batch of additions to one function. The function's names are read on
/// the first request (most batches add nothing); per base, the search resumes after the last number
/// taken, which is the smallest free one since the set of names only grows.
class fresh_names {
 public:
  explicit fresh_names(const function& f) : f_(&f) {}

  template <class = void>
  std::string take(const std::string& base) {
    if (!filled_) {
      for (const tensor& t : f_->tensors) used_.insert(t.name);
      filled_ = true;
    }
    std::uint32_t& k = next_[base];
    for (;;) {
      std::string n = base + std::to_string(++k);
      if (used_.insert(n).second) return n;
    }
  }

 private:
  const function* f_;
  bool filled_ = false;
  std::unordered_set<std::string> used_;                // lookup only: never iterated
  std::unordered_map<std::string, std::uint32_t> next_;  // lookup only: never iterated
};

}  // namespace gca
