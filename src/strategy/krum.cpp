// Krum and MultiKrum (Blanchard et al., NeurIPS 2017) and Bulyan (El Mhamdi et al., ICML 2018), on the
// squared L2 distances between the round's updates. Where n is too small for f (Krum wants n > 2f + 2,
// Bulyan n >= 4f + 3), the counts are clamped to at least one, as the docs say.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "strategy/defence.hpp"

namespace edgetrain::strategy {

namespace {

double squared_distance(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double d = static_cast<double>(a[k]) - b[k];
    s += d * d;
  }
  return s;
}

// Updates by ascending score, ties by position (deterministic).
std::vector<size_t> by_score(const std::vector<double>& scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  return order;
}

void mean_of(std::span<const std::vector<float>> updates, const std::vector<size_t>& chosen, std::vector<float>& out) {
  std::vector<double> sum(updates[0].size(), 0.0);
  for (size_t i : chosen)
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += updates[i][k];
  out.resize(sum.size());
  for (size_t k = 0; k < sum.size(); ++k) out[k] = static_cast<float>(sum[k] / static_cast<double>(chosen.size()));
}

}  // namespace

namespace {

using Distances = std::vector<std::vector<double>>;

Distances pairwise(std::span<const std::vector<float>> updates) {
  const size_t n = updates.size();
  Distances dist(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) dist[i][j] = dist[j][i] = squared_distance(updates[i], updates[j]);
  return dist;
}

// Krum's score of each update of `among` (indices), over its nearest others in `among`.
std::vector<double> scores_among(const Distances& dist, const std::vector<size_t>& among, int64_t byzantine) {
  const auto n = static_cast<int64_t>(among.size());
  const int64_t nearest = std::clamp<int64_t>(n - byzantine - 2, 1, std::max<int64_t>(n - 1, 1));
  std::vector<double> scores(among.size(), 0.0), others;
  for (size_t i = 0; i < among.size(); ++i) {
    others.clear();
    for (size_t j = 0; j < among.size(); ++j)
      if (j != i) others.push_back(dist[among[i]][among[j]]);
    std::sort(others.begin(), others.end());
    const auto take = std::min<size_t>(static_cast<size_t>(nearest), others.size());
    scores[i] = std::accumulate(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(take), 0.0);
  }
  return scores;
}

std::vector<size_t> all_of(size_t n) {
  std::vector<size_t> out(n);
  std::iota(out.begin(), out.end(), size_t{0});
  return out;
}

}  // namespace

std::vector<double> krum_scores(std::span<const std::vector<float>> updates, int64_t byzantine) {
  return scores_among(pairwise(updates), all_of(updates.size()), byzantine);
}

void krum(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out) {
  out = round.updates[by_score(krum_scores(round.updates, round.byzantine)).front()];
}

void multikrum(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out) {
  const auto n = static_cast<int64_t>(round.updates.size());
  const int64_t m = std::clamp<int64_t>(spec.multikrum_m.value_or(n - round.byzantine), 1, n);
  std::vector<size_t> order = by_score(krum_scores(round.updates, round.byzantine));
  order.resize(static_cast<size_t>(m));
  mean_of(round.updates, order, out);
}

void bulyan(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out) {
  const auto n = static_cast<int64_t>(round.updates.size());
  const int64_t f = round.byzantine;
  // Selection: Krum chooses theta = n - 2f updates one at a time, each taken out of the set; the distances
  // between updates do not change as the set shrinks, so they are measured once.
  const int64_t theta = std::clamp<int64_t>(n - 2 * f, 1, n);
  const Distances dist = pairwise(round.updates);
  std::vector<size_t> left = all_of(static_cast<size_t>(n)), chosen;
  while (static_cast<int64_t>(chosen.size()) < theta) {
    const size_t best = by_score(scores_among(dist, left, f)).front();
    chosen.push_back(left[best]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
  }
  // Aggregation: per coordinate, the mean of the beta = theta - 2f values closest to their median.
  const auto beta = static_cast<size_t>(std::clamp<int64_t>(theta - 2 * f, 1, theta));
  const size_t d = round.updates[0].size();
  out.assign(d, 0.0f);
  std::vector<float> column(chosen.size());
  for (size_t k = 0; k < d; ++k) {
    for (size_t i = 0; i < chosen.size(); ++i) column[i] = round.updates[chosen[i]][k];
    std::sort(column.begin(), column.end());
    const size_t c = column.size();
    const double median = c % 2 ? column[c / 2] : (static_cast<double>(column[c / 2 - 1]) + column[c / 2]) / 2;
    std::stable_sort(column.begin(), column.end(), [median](float a, float b) {
      return std::abs(a - median) < std::abs(b - median);
    });
    double sum = 0;
    for (size_t i = 0; i < beta; ++i) sum += column[i];
    out[k] = static_cast<float>(sum / static_cast<double>(beta));
  }
}

}  // namespace edgetrain::strategy
