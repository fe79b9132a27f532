// gca/compiled.cpp — the one translation unit of the optional `gca_compiled` library (gca/compiled.hpp):
// the explicit instantiation definitions of the standard allocators' heavy functions. Built by meson's
// `gca_compiled_dep`; a CMake or hand-written build compiles this file once with -DGCA_COMPILED and
// links it, and compiles its own files with -DGCA_COMPILED.
#define GCA_COMPILED_EXTERN  // empty: the list in gca/compiled.hpp becomes definitions
#ifndef GCA_COMPILED
#define GCA_COMPILED
#endif
#include <gca/gca.hpp>
