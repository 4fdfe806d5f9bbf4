// The coordinate-wise rules: median (Yin et al., ICML 2018; Flower's FedMedian) and trimmed mean
// (FedTrimmedAvg). Each coordinate's n values are sorted; both weigh updates alike.
#include <algorithm>
#include <cmath>

#include "strategy/defence.hpp"

namespace edgetrain::strategy {

namespace {

// Calls take(k, sorted values of coordinate k) for every coordinate.
template <class Take>
void per_coordinate(const RoundUpdates& round, std::vector<float>& out, Take take) {
  const size_t n = round.updates.size(), d = round.updates[0].size();
  out.assign(d, 0.0f);
  std::vector<float> column(n);
  for (size_t k = 0; k < d; ++k) {
    for (size_t i = 0; i < n; ++i) column[i] = round.updates[i][k];
    std::sort(column.begin(), column.end());
    out[k] = take(column);
  }
}

}  // namespace

void coordinate_median(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out) {
  per_coordinate(round, out, [](const std::vector<float>& c) {
    const size_t n = c.size();
    return n % 2 ? c[n / 2] : static_cast<float>((static_cast<double>(c[n / 2 - 1]) + c[n / 2]) / 2);
  });
}

void trimmed_mean(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out) {
  const size_t n = round.updates.size();
  // floor(trim x n) cut at each end, leaving at least one value.
  const size_t cut = std::min(static_cast<size_t>(std::floor(spec.trim * static_cast<double>(n))), (n - 1) / 2);
  per_coordinate(round, out, [cut](const std::vector<float>& c) {
    double sum = 0;
    for (size_t i = cut; i < c.size() - cut; ++i) sum += c[i];
    return static_cast<float>(sum / static_cast<double>(c.size() - 2 * cut));
  });
}

}  // namespace edgetrain::strategy
