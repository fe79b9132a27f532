// gca/compiled.cpp — the one translation unit of the optional `gca_compiled` library (gca/compiled.hpp):
// the explicit instantiation definitions of the standard allocators' bodies. Built by meson's
// `gca_compiled_dep`; a CMake or hand-written build compiles this file once with -DGCA_COMPILED and
// links it, and compiles its own files with -DGCA_COMPILED.
#ifndef GCA_COMPILED
#define GCA_COMPILED
#endif
#include <gca/gca.hpp>  // every header, the drivers' bodies (drivers/allocate.hpp) among them

namespace gca {
GCA_COMPILED_LIST()  // the list of gca/compiled.hpp, as explicit instantiation definitions
GCA_COMPILED_PARSER()       // and the parser's (ir/parser.hpp),
GCA_COMPILED_VERIFY()       // the verifier's (verify/verify.hpp),
GCA_COMPILED_TRANSLATION()  // the two-program check's (verify/translation.hpp)
GCA_COMPILED_PIPELINE()     // and the pass registry's and the pipeline runner's (pipeline/pipeline.hpp)
}  // namespace gca
