// include_layers.cpp — what a compiler pass that runs allocators includes (scripts/compile-time.sh): the
// IR layer and the drivers' layer, nothing else. In the compiled mode (-DGCA_COMPILED) the second is
// declarations only.
#include <gca/allocators.hpp>
#include <gca/ir.hpp>

int main() { return 0; }
