// gca/engine/lanes.hpp — two searches racing on one problem, with an answer that does not depend on
// the machine.
//
// Provides `detail::lane_race`, the meeting point of two "lanes": two searches of the same independent
// parts, one after the other, each deterministic on its own (engine/search.hpp runs its valley lane and
// its level lane this way). The rule that makes the race deterministic is stated in node counts, not in
// time:
//
//   For each part, the lane that DECIDES it (finds a placement, or proves that none exists) in fewer
//   search nodes of its own wins the part (a tie goes to lane 0). The other lane is stopped once it has
//   expanded more nodes than the winner's count; it counts as having spent exactly that many.
//
// Each lane's walk depends only on the problem and on its own node counts, so whichever thread runs
// faster, the winner, its answer and the nodes counted are the same. Two ways to run the lanes:
//   concurrent  each lane on its own thread, at once (two cores: the part takes the time of the faster
//               lane, not of the two in turn);
//   in turns    the lanes take turns of `turn_nodes` nodes, only one running at a time (one core: the
//               part costs at most twice the winner's nodes, or the winner's plus one turn when lane 1
//               wins within lane 0's first turn).
// Both give the same answer, node for node. A caller may also run a lane alone, stopped past the other's
// count, when the other decided before the race began (engine/search.hpp does so for parts its first
// lane decides within one turn, without starting a thread): the same rule. After each part the loser
// carries the winner's count, not its own, into the next one, so its node limit there is the race's
// and not the scheduler's.
//
// A lane that leaves (an exception: a caller's watchdog, bad_alloc) is never waited for again; the
// other lane stops at its next tick, and the caller rethrows.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>

namespace gca::detail {

class lane_race {
 public:
  static constexpr std::uint64_t turn_nodes = 16384;  // in turns: nodes a lane runs before the other's turn
  static constexpr std::uint64_t early_start = 1024;  // at once: lane 0's nodes before lane 1 starts
  static constexpr std::uint64_t undecided = std::numeric_limits<std::uint64_t>::max();

  /// What a part came to: the winning lane (or -1: both lanes gave up), its nodes, and whether it found
  /// a placement (else it proved that none exists).
  struct verdict {
    int winner = -1;
    std::uint64_t nodes = undecided;
    bool found = false;
  };

  explicit lane_race(bool concurrent) : concurrent_(concurrent) {}

  /// Lane k starts a part: in turns it waits for its turn (lane 0 begins every part).
  void begin(int k) {
    std::unique_lock lock(m_);
    wait_turn(lock, k);
  }

  /// A lane that ticked at `nodes` of the part ticks next at the returned count: often enough to stop a
  /// beaten lane soon (at once), or at the end of its next turn.
  std::uint64_t next_tick(std::uint64_t nodes) const noexcept { return nodes + (concurrent_ ? 64 : turn_nodes); }

  /// For a caller that starts lane 1 only when lane 0 has not decided the part alone (engine/search.hpp):
  /// lane 0's nodes before lane 1 starts. In turns one turn, so a part lane 0 decides sooner costs no
  /// thread and no hand-over. At once, 1,024: lane 1 runs on the other core, so starting it early
  /// costs a thread but no time, and a part lane 1 decides in a few thousand nodes is not held back by
  /// lane 0's first 16,384 (measured on the challenging files, two threads: H 0.035 -> 0.014 s, F
  /// 0.038 -> 0.019 s, none slower; in turns, starting at 1,024 made small planted instances up to
  /// twice as slow, a thread and hand-overs for parts lane 0 decides in a few thousand nodes).
  std::uint64_t start_other_at() const noexcept { return concurrent_ ? early_start : turn_nodes; }

  /// Lane k has expanded `nodes` nodes of the current part (called at the counts next_tick gives). True:
  /// stop, the other lane has decided the part in fewer nodes. In turns, hands over to the other lane.
  template <class = void>
  bool tick(int k, std::uint64_t nodes) {
    std::unique_lock lock(m_);
    if (gone_[1 - k]) return true;  // the caller rethrows the other lane's exception: no answer to race for
    if (decided_[1 - k] != undecided && nodes > decided_[1 - k]) return true;
    if (!concurrent_ && !done_[1 - k] && !gone_[1 - k]) {
      turn_ = 1 - k;
      cv_.notify_all();
      wait_turn(lock, k);
      if (decided_[1 - k] != undecided && nodes > decided_[1 - k]) return true;
    }
    return false;
  }

  /// Lane k has ended the current part: decided it in `nodes` nodes (`found`: a placement, else a proof
  /// that none exists), or not (gave up, or was stopped). Waits for the other lane, then returns the
  /// part's verdict (the same to both lanes).
  template <class = void>
  verdict end(int k, bool decided, bool found, std::uint64_t nodes) {
    std::unique_lock lock(m_);
    done_[k] = true;
    if (decided) decided_[k] = nodes;
    found_[k] = found;
    turn_ = 1 - k;
    cv_.notify_all();
    const std::uint64_t gen = gen_;
    cv_.wait(lock, [&] { return gen_ != gen || done_[1 - k] || gone_[1 - k]; });
    if (gen_ == gen) {  // the second to end (or alone): settle the part and open the next one
      const std::uint64_t a = decided_[0], b = decided_[1];
      last_ = a == undecided && b == undecided ? verdict{} : a <= b ? verdict{0, a, found_[0]} : verdict{1, b, found_[1]};
      done_[0] = done_[1] = false;
      decided_[0] = decided_[1] = undecided;
      turn_ = 0;
      ++gen_;
      cv_.notify_all();
    }
    return last_;
  }

  /// Lane k leaves the race (it threw): the other lane never waits for it again.
  template <class = void>
  void leave(int k) {
    std::lock_guard lock(m_);
    gone_[k] = true;
    cv_.notify_all();
  }

 private:
  void wait_turn(std::unique_lock<std::mutex>& lock, int k) {
    if (concurrent_) return;
    cv_.wait(lock, [&] { return turn_ == k || done_[1 - k] || gone_[1 - k]; });
  }

  const bool concurrent_;
  std::mutex m_;
  std::condition_variable cv_;
  int turn_ = 0;
  bool done_[2] = {false, false};
  bool gone_[2] = {false, false};
  bool found_[2] = {false, false};
  std::uint64_t decided_[2] = {undecided, undecided};
  std::uint64_t gen_ = 0;
  verdict last_;
};

}  // namespace gca::detail
