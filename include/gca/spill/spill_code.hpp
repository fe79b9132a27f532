// gca/spill/spill_code.hpp — the body of spill_to_next_tier::spill (spill/spill_to_next_tier.hpp): one
// round is choose the victims (spill/victims.hpp), then insert their spill code (spill/edit.hpp), then
// number the points again.
//
// Apart from the policy's declaration so a file that only names the policy (a driver's declaration in the
// compiled mode, gca/compiled.hpp) does not parse the spill code; spill_to_next_tier.hpp includes it in the
// default header-only mode.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <gca/engine/space_colorer.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/spill/edit.hpp>
#include <gca/spill/spill_to_next_tier.hpp>
#include <gca/spill/victims.hpp>

namespace gca {

template <class Deferred>
bool spill_to_next_tier::spillable(const function& f, const liveness& live, web_id w,
                                          const space_filter& filter, const spill_state& st) {
  return detail::spillable_web(f, live, w, filter, st);
}

template <class Deferred>
std::size_t spill_to_next_tier::spill(linearized_function& lf, const space_attempt& a,
                                            const space_filter& filter, const target& tgt,
                                            spill_state& st) const {
  const std::optional<memory_type> next = cascade.next(filter.memory, tgt);
  if (!next) return 0;
  st.no_spill.resize(lf.work().tensors.size(), 0);
  std::vector<std::uint8_t> over;  // points over-full at the start of this round (empty: none)
  const std::vector<web_id> victims = detail::choose_victims(lf, a, filter, st, over);
  detail::spill_round round(lf);  // before any insertion: loops and points of this attempt
  for (web_id w : victims) detail::insert_spill_code(lf, a, w, *next, tgt, st, over, round);
  lf.renumber_locations();
  return victims.size();
}

}  // namespace gca
