// gca/verify.hpp — the verifiers: verify(module) checks one allocated module's places and pins on its
// own; verify(original, allocated) checks that the allocated program computes what the original did.
#pragma once

#include <gca/verify/translation.hpp>
#include <gca/verify/verify.hpp>
