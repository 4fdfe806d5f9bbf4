// summary.json's round_s on hand-computed values: nearest-rank percentiles, the gaps between
// rounds' ends, null without rounds.
#include "report/round_times.hpp"

#include <doctest/doctest.h>

using namespace edgetrain::report;

TEST_CASE("round_s: mean, nearest-rank median and p95, max, on hand-computed values") {
  // Ten durations 1..10 s, given out of order. Nearest rank: median = rank ceil(0.5 x 10) = 5 -> 5 s
  // (the lower middle value, not 5.5), p95 = rank ceil(9.5) = 10 -> 10 s.
  const auto ten = round_summary({7, 2, 9, 1, 10, 4, 3, 8, 6, 5});
  CHECK(ten["mean"] == doctest::Approx(5.5));
  CHECK(ten["median"] == 5.0);
  CHECK(ten["p95"] == 10.0);
  CHECK(ten["max"] == 10.0);
  CHECK(ten["count"] == 10);
  // Twenty-one rounds of 2 s and one of 30 s (22 rounds): p95 = rank ceil(20.9) = 21 -> 2 s, max 30 s.
  std::vector<double> d(21, 2.0);
  d.push_back(30.0);
  const auto tail = round_summary(d);
  CHECK(tail["mean"] == doctest::Approx((21 * 2.0 + 30) / 22));
  CHECK(tail["median"] == 2.0);
  CHECK(tail["p95"] == 2.0);
  CHECK(tail["max"] == 30.0);
  // One slow round in twenty is above the p95 (rank ceil(0.95 x 20) = 19 -> 2 s); one in ten is not
  // (rank ceil(9.5) = 10 -> 30 s).
  std::vector<double> twenty(19, 2.0);
  twenty.push_back(30.0);
  CHECK(round_summary(twenty)["p95"] == 2.0);
  std::vector<double> ten_of(9, 2.0);
  ten_of.push_back(30.0);
  CHECK(round_summary(ten_of)["p95"] == 30.0);
  const auto one = round_summary({4.25});
  CHECK(one["mean"] == 4.25);
  CHECK(one["median"] == 4.25);
  CHECK(one["p95"] == 4.25);
  CHECK(round_summary({}).is_null());
  CHECK(nearest_rank(std::vector<int64_t>{1, 2, 3, 4}, 0.5) == 2);
  CHECK(nearest_rank(std::vector<int64_t>{1, 2, 3, 4}, 0.51) == 3);
}

TEST_CASE("round_s: rounds of runs without rounds.csv are the gaps between their ends, from the start") {
  CHECK(gaps({1.5, 2.0, 4.0}, 0.0) == std::vector<double>{1.5, 0.5, 2.0});
  CHECK(gaps({}, 0.0).empty());
}
