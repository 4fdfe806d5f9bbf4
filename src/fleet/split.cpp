// See split.hpp.
#include "fleet/split.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace edgetrain::fleet {

std::vector<int64_t> exact_split(int64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int64_t> parts(weights.size(), 0);
  if (weights.empty() || !(sum > 0)) return parts;
  std::vector<double> remainder(weights.size());
  int64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double quota = static_cast<double>(total) * (weights[i] / sum);
    parts[i] = std::min<int64_t>(static_cast<int64_t>(std::floor(quota)), total - given);
    remainder[i] = quota - static_cast<double>(parts[i]);
    given += parts[i];
  }
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t k = 0; given < total; k = (k + 1) % order.size()) {
    if (weights[order[k]] > 0) {
      ++parts[order[k]];
      ++given;
    }
  }
  return parts;
}

}  // namespace edgetrain::fleet
