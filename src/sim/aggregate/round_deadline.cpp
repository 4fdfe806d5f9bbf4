// See round_deadline.hpp.
#include "sim/aggregate/round_deadline.hpp"

#include <algorithm>

namespace edgetrain::sim {

RoundDeadline::RoundDeadline(std::string kind, std::optional<double> timeout, size_t members,
                             std::shared_ptr<policy::DeadlinePolicy> python)
    : kind_(std::move(kind)), timeout_(timeout), last_(members, -1.0), python_(std::move(python)) {}

std::optional<double> RoundDeadline::timeout(int64_t round, const std::vector<bool>& picked) const {
  if (kind_ == "fixed") return timeout_;
  if (python_) {
    std::vector<size_t> devices;
    for (size_t m = 0; m < picked.size(); ++m)
      if (picked[m]) devices.push_back(m);
    const std::optional<double> deadline = python_->deadline(round, devices);
    if (!deadline) return timeout_;
    return timeout_ ? std::optional<double>(std::min(*deadline, *timeout_)) : deadline;
  }
  std::vector<double> times;
  size_t unknown = 0;
  for (size_t m = 0; m < picked.size(); ++m) {
    if (!picked[m]) continue;
    if (last_[m] < 0) {
      unknown += 1;
    } else {
      times.push_back(last_[m]);
    }
  }
  if (times.empty()) return timeout_;  // nothing seen of these devices yet
  std::sort(times.begin(), times.end());
  // A device never timed is expected at the slowest time seen: it counts only at the last candidate.
  double best = times.front(), best_rate = -1;
  for (size_t i = 0; i < times.size(); ++i) {
    if (i + 1 < times.size() && times[i + 1] == times[i]) continue;  // a tie counts once, at its last
    const double expected = static_cast<double>(i + 1) + (i + 1 == times.size() ? static_cast<double>(unknown) : 0.0);
    const double rate = expected / times[i];
    if (rate > best_rate) {
      best_rate = rate;
      best = times[i];
    }
  }
  // A deadline exactly at a device's time would race its arrival: a hair after it.
  const double deadline = best * (1 + 1e-9);
  return timeout_ ? std::optional<double>(std::min(deadline, *timeout_)) : std::optional<double>(deadline);
}

}  // namespace edgetrain::sim
