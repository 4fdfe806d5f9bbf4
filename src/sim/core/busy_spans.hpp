// The time some transfers touching one device were in flight (the union of their spans), for the
// device's time ledger: an aggregator on a device's host may exchange models over the device's own
// links while the device waits for its next model, and that overlap is the device's communication
// time (time_ledger.hpp's count_as_comm_while_waiting). Spans are taken in time order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace edgetrain::sim {

class BusySpans {
 public:
  void begin(double now) {
    if (active_++ == 0) since_ = now;
  }
  void end(double now) {
    if (--active_ == 0 && now > since_) closed_.emplace_back(since_, now);
  }
  // The busy time within [from, until); forgets the spans that end by `until` (later calls start there).
  double take(double from, double until) {
    double busy = 0;
    for (const auto& [a, b] : closed_) busy += std::max(0.0, std::min(b, until) - std::max(a, from));
    if (active_ > 0) busy += std::max(0.0, until - std::max(since_, from));
    std::erase_if(closed_, [until](const std::pair<double, double>& s) { return s.second <= until; });
    return busy;
  }

 private:
  int64_t active_ = 0;
  double since_ = 0;
  std::vector<std::pair<double, double>> closed_;  // disjoint, in time order
};

}  // namespace edgetrain::sim
