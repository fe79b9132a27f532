// gca/engine/search_status.hpp — the answer of gca's exact searches.
//
// Provides `search_status` (found, infeasible, gave up) and its `to_string`. Both exact searches use it:
// the 1-D branch and bound of engine/search.hpp and the 2-D placement search of engine/place_search.hpp;
// one definition lets a phase above the engine (spill/dram_peak.hpp) include both.
#pragma once

#include <cstdint>
#include <string_view>

namespace gca {

enum class search_status : std::uint8_t {
  found,       // a complete, checked placement
  infeasible,  // the search space was exhausted: no placement within the capacity exists
  gave_up,     // node limit or deadline reached first
};

constexpr std::string_view to_string(search_status s) noexcept {
  switch (s) {
    case search_status::found: return "found";
    case search_status::infeasible: return "infeasible";
    case search_status::gave_up: return "gave up";
  }
  return "?";
}

}  // namespace gca
