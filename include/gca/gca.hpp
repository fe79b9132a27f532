// gca/gca.hpp — the umbrella header: includes every public part of gca, nothing else.
#pragma once

#include <gca/error.hpp>
#include <gca/ir/def_use.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/parser.hpp>
#include <gca/ir/printer.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/ir/validate.hpp>
#include <gca/linearize/static_check.hpp>
#include <gca/liveness/interval.hpp>
