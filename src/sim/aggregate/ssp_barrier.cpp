// See ssp_barrier.hpp.
#include "sim/aggregate/ssp_barrier.hpp"

#include <algorithm>

namespace edgetrain::sim {

SspBarrier::SspBarrier(size_t members, int64_t bound)
    : bound_(bound), clock_(members, 0), taking_part_(members, true), held_since_(members, 0) {
  if (members > 0) clocks_[0] = members;
}

bool SspBarrier::pull(size_t m, double now) {
  if (!taking_part_[m]) {
    clock_[m] = std::max(clock_[m], slowest());
    taking_part_[m] = true;
    ++clocks_[clock_[m]];
  }
  if (clock_[m] - slowest() <= bound_) return true;
  held_.insert(m);
  held_since_[m] = now;
  ++holds_;
  return false;
}

void SspBarrier::pushed(size_t m) {
  if (taking_part_[m]) {
    auto at = clocks_.find(clock_[m]);
    if (--at->second == 0) clocks_.erase(at);
    ++clocks_[clock_[m] + 1];
  }
  ++clock_[m];
}

void SspBarrier::leave(size_t m, double now) {
  if (!taking_part_[m]) return;
  auto at = clocks_.find(clock_[m]);
  if (--at->second == 0) clocks_.erase(at);
  taking_part_[m] = false;
  if (held_.erase(m) > 0) held_s_ += now - held_since_[m];
}

std::vector<size_t> SspBarrier::released(double now) {
  std::vector<size_t> out;
  const int64_t floor = slowest();
  for (auto it = held_.begin(); it != held_.end();) {
    if (clock_[*it] - floor <= bound_) {
      held_s_ += now - held_since_[*it];
      out.push_back(*it);
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

void SspBarrier::finish(double now) {
  for (size_t m : held_) held_s_ += now - held_since_[m];
  held_.clear();
}

}  // namespace edgetrain::sim
