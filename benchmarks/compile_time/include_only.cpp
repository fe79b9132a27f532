// include_only.cpp — the cheapest use of gca: the umbrella header and nothing else (scripts/compile-time.sh).
#include <gca/gca.hpp>

int main() { return 0; }
