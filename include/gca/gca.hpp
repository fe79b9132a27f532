// gca/gca.hpp — the umbrella header of the allocator: every layer's header (gca/ir.hpp, gca/engine.hpp,
// gca/allocators.hpp with the drivers' bodies, gca/pipeline.hpp, gca/verify.hpp, and the report model
// gca/report/model.hpp). A file that uses only a part includes that layer's header and compiles faster
// (docs/PERFORMANCE.md, "Compile time"). The
// stand-alone exact search for static-allocation problems (engine/search.hpp), Boost.Graph's view of the
// interference graph (graph/bgl.hpp), the input readers (io/) and the generators (gen/) are included on
// their own.
#pragma once

#include <gca/allocators.hpp>
#include <gca/drivers/allocate.hpp>  // the drivers' bodies, also in the compiled mode (own policies, observers)
#include <gca/engine.hpp>
#include <gca/ir.hpp>
#include <gca/pipeline.hpp>
#include <gca/report/model.hpp>
#include <gca/verify.hpp>
