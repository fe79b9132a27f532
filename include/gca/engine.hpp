// gca/engine.hpp — the IR-free half and its IR glue, for a caller who drives the phases itself:
// linearization, liveness, the interference graph, the geometries, the colorers (Chaitin–Briggs, linear
// scan, the interval colorer behind color_space) and the spill fixpoint with its policies.
// Boost.Graph's view of the graph (graph/bgl.hpp), the stand-alone exact search (engine/search.hpp) and
// the 2-D placement search (engine/place_search.hpp) are included on their own.
#pragma once

#include <gca/engine/colorer.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/options.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/graph/interference.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/linearize/policy.hpp>
#include <gca/linearize/static_check.hpp>
#include <gca/liveness/interval.hpp>
#include <gca/liveness/live_ranges.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/fixpoint.hpp>
#include <gca/spill/report.hpp>
#include <gca/spill/spill_code.hpp>
#include <gca/spill/spill_to_next_tier.hpp>
