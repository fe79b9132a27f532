// gca/gca.hpp — the umbrella header of the allocator: the IR, the phases, the drivers, the pipelines and
// the verifiers. The stand-alone exact search for static-allocation problems (engine/search.hpp), the
// input readers (io/) and the generators (gen/) are included on their own, so a file that only
// allocates kernels does not compile them.
#pragma once

#include <gca/error.hpp>
#include <gca/ir/def_use.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/linearize/static_check.hpp>
#include <gca/liveness/interval.hpp>
#include <gca/liveness/live_ranges.hpp>
#include <gca/graph/interference.hpp>
#include <gca/geometry/concept.hpp>
#include <gca/geometry/linear_dram.hpp>
#include <gca/geometry/psum_banks.hpp>
#include <gca/geometry/registers.hpp>
#include <gca/geometry/scratchpad_2d.hpp>
#include <gca/engine/colorer.hpp>
#include <gca/engine/observer.hpp>
#include <gca/engine/space_colorer.hpp>
#include <gca/spill/concept.hpp>
#include <gca/spill/fixpoint.hpp>
#include <gca/spill/spill_to_next_tier.hpp>
#include <gca/drivers/coloring_allocator.hpp>
#include <gca/pipeline/passes.hpp>
#include <gca/pipeline/pipeline.hpp>
#include <gca/verify/verify.hpp>
#include <gca/verify/translation.hpp>
