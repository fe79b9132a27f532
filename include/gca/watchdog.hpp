// gca/watchdog.hpp — the wall-clock watchdog inside long loops ("GCA is taking too long").
//
// An allocator knows its deadline (allocator_options::timeout_seconds); the loops where the time goes
// (simplify, select, the exact search, the shared-DRAM graph) do not take it as a parameter. Instead the
// deadline lives in a thread-local slot: `watchdog_scope` installs it for a region of code (and
// detail::run_jobs carries it into worker threads), and `watchdog_tick(work)` at a loop head counts
// work and reads the clock once every `watchdog_period` units, throwing timeout_error once the deadline
// has passed. A unit is about one neighbor visited, so the clock is read every few microseconds and
// the watchdog fires within a second of its deadline wherever the time goes; outside any scope a tick
// is one thread-local load and a compare. The callers that throw leave their inputs unchanged: every
// allocator works on a copy of the module and replaces it only on success.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <gca/error.hpp>

namespace gca {

/// Work units between two readings of the clock (a reading costs tens of nanoseconds).
inline constexpr std::uint64_t watchdog_period = 4096;

namespace detail {

struct watchdog_state {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::uint64_t work = 0;  // units counted since the last reading
};

template <class = void>
watchdog_state& watchdog() noexcept {
  thread_local watchdog_state s;
  return s;
}

}  // namespace detail

/// The calling thread's deadline (time_point::max(): none).
template <class = void>
std::chrono::steady_clock::time_point watchdog_deadline() noexcept { return detail::watchdog().deadline; }

/// Throws timeout_error if the calling thread's deadline has passed (reads the clock).
template <class = void>
void watchdog_check() {
  const auto d = detail::watchdog().deadline;
  if (d != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() > d)
    throw timeout_error();
}

/// Counts `work` units; every watchdog_period units, watchdog_check().
template <class = void>
void watchdog_tick(std::uint64_t work = 1) {
  detail::watchdog_state& s = detail::watchdog();
  if (s.deadline == std::chrono::steady_clock::time_point::max()) return;
  if ((s.work += work) < watchdog_period) return;
  s.work = 0;
  watchdog_check();
}

/// Installs `deadline` for the calling thread until destruction. Scopes nest; an inner scope can only
/// bring the deadline closer (an allocator called under a caller's watchdog keeps the caller's limit).
class watchdog_scope {
 public:
  explicit watchdog_scope(std::chrono::steady_clock::time_point deadline) : saved_(detail::watchdog().deadline) {
    detail::watchdog().deadline = std::min(saved_, deadline);
  }
  ~watchdog_scope() { detail::watchdog().deadline = saved_; }
  watchdog_scope(const watchdog_scope&) = delete;
  watchdog_scope& operator=(const watchdog_scope&) = delete;

 private:
  std::chrono::steady_clock::time_point saved_;
};

}  // namespace gca
