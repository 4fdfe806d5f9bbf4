// The stale-synchronous-parallel barrier of asynchronous aggregation (training.staleness_policy
// "hold", Ho et al., NIPS 2013): a member's clock is the number of its pushes the aggregator has
// received, and a member whose clock is more than `bound` ahead of the slowest member's is not
// answered when it pulls (its pull is held) until the slowest catches up. Only members taking part
// count for the slowest: one that went off (a fault) leaves, and when it pulls again it rejoins at
// the slowest's clock (or its own, if higher), so neither an off device nor a restarted one holds
// the others back. Pure bookkeeping (the aggregator says what happened and when), unit-tested
// without a simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace edgetrain::sim {

class SspBarrier {
 public:
  SspBarrier(size_t members, int64_t bound);
  // Member `m` pulls at `now`: true if it may start an update now, false if its pull is held.
  // Every member takes part from the start; one that had left rejoins.
  bool pull(size_t m, double now);
  // One push of `m` received.
  void pushed(size_t m);
  // `m` stopped taking part (switched off): it holds nobody back and its held pull is dropped.
  void leave(size_t m, double now);
  bool taking_part(size_t m) const { return taking_part_[m]; }
  // The held members that may now start (in member order); they are no longer held.
  std::vector<size_t> released(double now);
  // The run ends at `now`: the pulls still held count their time until then.
  void finish(double now);

  int64_t clock(size_t m) const { return clock_[m]; }
  int64_t holds() const { return holds_; }   // pulls held
  double held_s() const { return held_s_; }  // total time pulls were held
  bool held(size_t m) const { return held_.count(m) > 0; }

 private:
  int64_t slowest() const { return clocks_.empty() ? 0 : clocks_.begin()->first; }
  int64_t bound_;
  std::vector<int64_t> clock_;
  std::vector<bool> taking_part_;
  std::map<int64_t, size_t> clocks_;  // clock -> members taking part at that clock
  std::set<size_t> held_;
  std::vector<double> held_since_;
  int64_t holds_ = 0;
  double held_s_ = 0;
};

}  // namespace edgetrain::sim
