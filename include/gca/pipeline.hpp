// gca/pipeline.hpp — the pass registry and the pipelines of each optlevel (1, 2, 3, 6 and 7).
#pragma once

#include <gca/pipeline/passes.hpp>
#include <gca/pipeline/pipeline.hpp>
