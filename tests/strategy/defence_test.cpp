// The robust aggregation rules (src/strategy/defence.hpp): coordinate median and trimmed mean, Krum's
// scores, Krum, MultiKrum, Bulyan and norm bounding on small rounds worked out by hand; the f a round
// assumes; the kinds' table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "strategy/defence.hpp"

using namespace edgetrain;
using strategy::RoundUpdates;

namespace {

using Updates = std::vector<std::vector<float>>;

// Runs `rule` on `updates` (weights 1 unless given) assuming `f` attackers.
std::vector<float> aggregate(strategy::Rule rule, const Updates& updates, int64_t f = 0,
                             const scenario::DefenceSpec& spec = {}, std::vector<double> weights = {}) {
  if (weights.empty()) weights.assign(updates.size(), 1.0);
  const RoundUpdates round{updates, weights, f};
  std::vector<float> out{42.0f};  // sized by the rule
  rule(spec, round, out);
  return out;
}

scenario::DefenceSpec trim(double share) {
  scenario::DefenceSpec s;
  s.kind = "trimmed-mean";
  s.trim = share;
  return s;
}

void check_values(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-6));
  }
}

// The tiny Krum example: a = (0,0), b = (1,0), c = (0,2), d = (10,10). Squared distances: ab 1, ac 4,
// ad 200, bc 5, bd 181, cd 164.
const Updates kTiny{{0, 0}, {1, 0}, {0, 2}, {10, 10}};

}  // namespace

TEST_CASE("defence median: odd n takes the middle value per coordinate") {
  const Updates u{{1, 5, 3}, {2, -1, 0}, {10, 0, 1}};
  check_values(aggregate(strategy::coordinate_median, u), {2, 0, 1});
}

TEST_CASE("defence median: even n takes the mean of the two middle values") {
  const Updates u{{1, 5, 3}, {2, -1, 0}, {10, 0, 1}, {4, 2, 2}};
  check_values(aggregate(strategy::coordinate_median, u), {3, 1, 1.5});
}

TEST_CASE("defence median: weights do not count, a single update is itself") {
  const Updates u{{1}, {2}, {3}};
  check_values(aggregate(strategy::coordinate_median, u, 0, {}, {1, 1, 1000}), {2});
  check_values(aggregate(strategy::coordinate_median, Updates{{7, -7}}), {7, -7});
}

TEST_CASE("defence trimmed-mean: trim 0.2 with n = 5 cuts one value at each end") {
  const Updates u{{1, -100}, {100, 0}, {3, 1}, {2, 3}, {4, 2}};
  // Coordinate 0: 1 2 3 4 100 -> (2 + 3 + 4) / 3; coordinate 1: -100 0 1 2 3 -> (0 + 1 + 2) / 3.
  check_values(aggregate(strategy::trimmed_mean, u, 0, trim(0.2)), {3, 1});
  // trim 0 is the plain mean; trim 0.1 with n = 5 cuts floor(0.5) = 0.
  check_values(aggregate(strategy::trimmed_mean, u, 0, trim(0.0)), {22, -94.0 / 5});
  check_values(aggregate(strategy::trimmed_mean, u, 0, trim(0.1)), {22, -94.0 / 5});
  // trim 0.4 with n = 5: floor(2) = 2 cut each end, the median is left.
  check_values(aggregate(strategy::trimmed_mean, u, 0, trim(0.4)), {3, 1});
}

TEST_CASE("defence trimmed-mean: a trim that would cut everything leaves at least one value") {
  const Updates four{{1}, {2}, {4}, {100}};
  // 0.49 x 4 -> 1 cut each end: (2 + 4) / 2.
  check_values(aggregate(strategy::trimmed_mean, four, 0, trim(0.49)), {3});
  // Past the key's range (below 0.5), the cut is still bounded: (n - 1) / 2 each end.
  check_values(aggregate(strategy::trimmed_mean, four, 0, trim(0.9)), {3});
  const Updates three{{1}, {5}, {100}};
  check_values(aggregate(strategy::trimmed_mean, three, 0, trim(0.49)), {5});
  check_values(aggregate(strategy::trimmed_mean, three, 0, trim(0.99)), {5});
  check_values(aggregate(strategy::trimmed_mean, Updates{{8}}, 0, trim(0.49)), {8});
  check_values(aggregate(strategy::trimmed_mean, Updates{{8}, {2}}, 0, trim(0.9)), {5});
}

TEST_CASE("defence krum_scores: the sum of squared distances to the n - f - 2 nearest, by hand") {
  // f = 1: the nearest one.
  const std::vector<double> f1 = strategy::krum_scores(kTiny, 1);
  REQUIRE(f1.size() == 4);
  CHECK(f1[0] == 1);
  CHECK(f1[1] == 1);
  CHECK(f1[2] == 4);
  CHECK(f1[3] == 164);
  // f = 0: the two nearest.
  const std::vector<double> f0 = strategy::krum_scores(kTiny, 0);
  CHECK(f0[0] == 5);
  CHECK(f0[1] == 6);
  CHECK(f0[2] == 9);
  CHECK(f0[3] == 345);
  // n <= f + 2: at least the nearest one.
  CHECK(strategy::krum_scores(kTiny, 3) == f1);
  CHECK(strategy::krum_scores(kTiny, 100) == f1);
  // One update: score 0.
  const std::vector<double> one = strategy::krum_scores(Updates{{1, 2}}, 0);
  REQUIRE(one.size() == 1);
  CHECK(one[0] == 0);
}

TEST_CASE("defence krum: picks the lowest score, ties by position") {
  check_values(aggregate(strategy::krum, kTiny, 1), {0, 0});  // a and b score 1: a first
  const Updates swapped{{1, 0}, {0, 0}, {0, 2}, {10, 10}};
  check_values(aggregate(strategy::krum, swapped, 1), {1, 0});
}

TEST_CASE("defence krum: with one far outlier it returns a member of the honest cluster, unchanged") {
  const Updates u{{1.0f, 1.1f, 0.9f}, {1.2f, 0.9f, 1.0f}, {-50, -50, 50}, {0.9f, 1.0f, 1.1f},
                  {1.1f, 1.0f, 1.0f}, {1.0f, 0.8f, 1.2f}};
  const std::vector<float> out = aggregate(strategy::krum, u, 1);
  CHECK(out != u[2]);
  CHECK(std::find(u.begin(), u.end(), out) != u.end());
  // The outlier first in the list changes nothing.
  Updates first = u;
  std::swap(first[0], first[2]);
  const std::vector<float> again = aggregate(strategy::krum, first, 1);
  CHECK(again != first[0]);
  CHECK(std::find(u.begin(), u.end(), again) != u.end());
}

TEST_CASE("defence multikrum: the mean of the m best, m = n - f by default") {
  // f = 1: scores 1, 1, 4, 164; m = 3 keeps a, b, c.
  check_values(aggregate(strategy::multikrum, kTiny, 1), {1.0 / 3, 2.0 / 3});
  // f = 0: m = 4, everything (scores 5, 6, 9, 345 order them all).
  check_values(aggregate(strategy::multikrum, kTiny, 0), {11.0 / 4, 3});
  scenario::DefenceSpec two;
  two.kind = "multikrum";
  two.multikrum_m = 2;
  check_values(aggregate(strategy::multikrum, kTiny, 1, two), {0.5, 0});
  two.multikrum_m = 1;  // m = 1 is Krum
  check_values(aggregate(strategy::multikrum, kTiny, 1, two), {0, 0});
  two.multikrum_m = 10;  // clamped to n
  check_values(aggregate(strategy::multikrum, kTiny, 1, two), {11.0 / 4, 3});
}

TEST_CASE("defence bulyan: 7 one-value updates with f = 1, selection and trimmed aggregation by hand") {
  // Krum (f = 1) picks from the shrinking set: 3 (tie with 4, first), 4, 2, 5, 1: theta = 7 - 2 = 5
  // chosen, the outlier never. Then beta = 5 - 2 = 3 values closest to the median 3: 3, 2, 4 -> 3.
  const Updates u{{1}, {2}, {3}, {4}, {5}, {6}, {1000}};
  check_values(aggregate(strategy::bulyan, u, 1), {3});
}

TEST_CASE("defence bulyan: a far outlier among 7 updates with f = 1 is rejected") {
  Updates u;
  for (int i = 0; i < 6; ++i) {
    const float e = 0.05f * static_cast<float>(i - 2);
    u.push_back({1.0f + e, -1.0f - e, 0.5f + e * e});
  }
  u.insert(u.begin() + 3, std::vector<float>{1e4f, -1e4f, 1e4f});
  REQUIRE(u.size() == 7);
  const std::vector<float> out = aggregate(strategy::bulyan, u, 1);
  REQUIRE(out.size() == 3);
  for (size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    float lo = 1e9f, hi = -1e9f;
    for (size_t i = 0; i < u.size(); ++i) {
      if (i == 3) continue;
      lo = std::min(lo, u[i][k]);
      hi = std::max(hi, u[i][k]);
    }
    CHECK(out[k] >= lo);
    CHECK(out[k] <= hi);
  }
  // The plain mean is dragged far away: 1e4 / 7 on coordinate 0.
  double mean0 = 0;
  for (const auto& x : u) mean0 += x[0] / 7.0;
  CHECK(mean0 > 1000);
}

TEST_CASE("defence norm-bound: long updates scaled to the bound, short ones kept, then the weighted mean") {
  scenario::DefenceSpec s;
  s.kind = "norm-bound";
  s.norm_bound = 1.0;
  const Updates u{{3, 4}, {0.3f, 0.4f}};
  // (0.6, 0.8) weight 1 and (0.3, 0.4) weight 3: ((0.6 + 0.9) / 4, (0.8 + 1.2) / 4).
  check_values(aggregate(strategy::norm_bound, u, 0, s, {1, 3}), {0.375, 0.5});
  // Weights 1 and 1: the plain mean of the bounded updates.
  check_values(aggregate(strategy::norm_bound, u, 0, s), {0.45, 0.6});
  // A bound above every norm is the weighted mean.
  s.norm_bound = 10;
  check_values(aggregate(strategy::norm_bound, u, 0, s, {1, 3}), {(3 + 0.9) / 4, (4 + 1.2) / 4});
  // One short update comes out bit for bit.
  const std::vector<float> one = aggregate(strategy::norm_bound, Updates{{0.3f, -0.4f}}, 0, s, {5});
  CHECK(one == std::vector<float>{0.3f, -0.4f});
}

TEST_CASE("defence assumed_byzantine: defence.byzantine when given, else ceil(share x n)") {
  scenario::DefenceSpec s;
  s.kind = "krum";
  s.byzantine = 3;
  CHECK(strategy::assumed_byzantine(s, 0.5, 8) == 3);
  CHECK(strategy::assumed_byzantine(s, 0.0, 2) == 3);
  s.byzantine = 0;
  CHECK(strategy::assumed_byzantine(s, 0.5, 8) == 0);
  s.byzantine.reset();
  CHECK(strategy::assumed_byzantine(s, 0.0, 8) == 0);
  CHECK(strategy::assumed_byzantine(s, 0.25, 8) == 2);
  CHECK(strategy::assumed_byzantine(s, 0.25, 4) == 1);
  CHECK(strategy::assumed_byzantine(s, 0.25, 5) == 2);  // 1.25 rounded up
  CHECK(strategy::assumed_byzantine(s, 0.25, 3) == 1);  // 0.75 rounded up
  CHECK(strategy::assumed_byzantine(s, 7.0 / 100, 100) == 7);  // 7 / 100 x 100 is 7.000000000000001 in double
  CHECK(strategy::assumed_byzantine(s, 1.0 / 3, 9) == 3);
  CHECK(strategy::assumed_byzantine(s, 1.0, 6) == 6);
}

TEST_CASE("defence kinds: each name has its rule, an unknown kind is a logic_error") {
  CHECK((strategy::defence_kind("median").aggregate == &strategy::coordinate_median));
  CHECK((strategy::defence_kind("trimmed-mean").aggregate == &strategy::trimmed_mean));
  CHECK((strategy::defence_kind("krum").aggregate == &strategy::krum));
  CHECK((strategy::defence_kind("multikrum").aggregate == &strategy::multikrum));
  CHECK((strategy::defence_kind("bulyan").aggregate == &strategy::bulyan));
  CHECK((strategy::defence_kind("norm-bound").aggregate == &strategy::norm_bound));
  CHECK_THROWS_AS(strategy::defence_kind("mean"), std::logic_error);
}
