// tests/support/sanitized.hpp — how many instances a sweep test runs under the sanitizers.
//
// scripts/test.sh runs the suite twice: optimized (g++ release) and under AddressSanitizer +
// UndefinedBehaviorSanitizer (clang, -O1, assertions on), where the same work costs about nine times as
// much. The sanitizers look for memory errors and undefined behaviour on the code paths a test reaches;
// a sweep's first few instances reach the same paths as all of them. So a sweep test that checks a count
// over many seeded instances runs them all in the optimized build and its first `sanitized` instances
// under the sanitizers, and states its expected count as a share of what it ran. The three
// generated-program sweeps are left out of the sanitizer run altogether (scripts/test.sh).
#pragma once

#include <cstdint>

namespace gca::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool under_sanitizers = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool under_sanitizers = true;
#else
inline constexpr bool under_sanitizers = false;
#endif
#else
inline constexpr bool under_sanitizers = false;
#endif

/// The number of seeds a sweep runs: `all` in an optimized build, `sanitized` under the sanitizers.
constexpr std::uint64_t sweep_seeds(std::uint64_t all, std::uint64_t sanitized) {
  return under_sanitizers ? sanitized : all;
}

}  // namespace gca::test
