// gca/ir.hpp — the IR layer: modules, functions, tensors and instructions, the hardware targets, the
// text format's parser and printer, def-use chains and validation. What a compiler pass that builds or
// reads kernels includes; it does not parse the allocator.
#pragma once

#include <gca/error.hpp>
#include <gca/ir/def_use.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/ir/validate.hpp>
