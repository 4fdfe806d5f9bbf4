// See round_times.hpp.
#include "report/round_times.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace edgetrain::report {

template <class T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}
template double nearest_rank(const std::vector<double>&, double);
template int64_t nearest_rank(const std::vector<int64_t>&, double);

nlohmann::json round_summary(std::vector<double> durations_s) {
  if (durations_s.empty()) return nullptr;
  std::sort(durations_s.begin(), durations_s.end());
  double sum = 0;
  for (double d : durations_s) sum += d;
  return {{"mean", sum / static_cast<double>(durations_s.size())},
          {"median", nearest_rank(durations_s, 0.5)},
          {"p95", nearest_rank(durations_s, 0.95)},
          {"max", durations_s.back()},
          {"count", durations_s.size()}};
}

std::vector<double> gaps(const std::vector<double>& ends_s, double start_s) {
  std::vector<double> out;
  double previous = start_s;
  for (double t : ends_s) {
    out.push_back(t - previous);
    previous = t;
  }
  return out;
}

}  // namespace edgetrain::report
