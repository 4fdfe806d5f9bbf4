// The staleness rules of the asynchronous server, against hand-computed schedules.
#include "backend/staleness.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using edgetrain::backend::StalenessRule;

TEST_CASE("none leaves steps alone and inverse divides them by the staleness") {
  StalenessRule none("none", 3, 10), inverse("inverse", 3, 10);
  CHECK(none.factors(4, {}) == std::vector<float>{1, 1, 1});
  CHECK(inverse.factors(4, {}) == std::vector<float>{0.25f, 0.25f, 0.25f});
  CHECK(inverse.factors(0, {}) == std::vector<float>{1, 1, 1});  // max(1, d)
}

TEST_CASE("adacomp divides coordinate k by the number of updates since the pull that touched k") {
  StalenessRule rule("adacomp", 4, 10);
  rule.applied({0, 1});  // oldest
  rule.applied({1, 2});
  rule.applied({1});  // newest
  // d = 2: the two newest updates, {1} and {1, 2}: sigma = 0, 2, 1 on coordinates 0, 1, 2.
  const auto two = rule.factors(2, {0, 1, 2});
  CHECK(two[0] == 1.0f);
  CHECK(two[1] == 0.5f);
  CHECK(two[2] == 1.0f);
  CHECK(two[3] == 1.0f);  // not touched by the push: unchanged
  // d = 3 adds {0, 1}: sigma = 1, 3, 1.
  const auto three = rule.factors(3, {0, 1, 2});
  CHECK(three[1] == doctest::Approx(1.0 / 3));
  CHECK(three[0] == 1.0f);
  // A dense push (no index set) is scaled on every coordinate; coordinate 3 was never touched.
  const auto dense = rule.factors(3, {});
  CHECK(dense[3] == 1.0f);
  CHECK(dense[1] == doctest::Approx(1.0 / 3));
}

TEST_CASE("adacomp counts dense updates and updates beyond the history as touching everything") {
  StalenessRule rule("adacomp", 3, 2);
  rule.applied({0});
  rule.applied({});  // dense
  rule.applied({1});
  // History keeps {1} and dense; d = 3 reaches one update further back, assumed dense.
  const auto f = rule.factors(3, {0, 1, 2});
  CHECK(f[0] == doctest::Approx(0.5));      // dense + beyond
  CHECK(f[1] == doctest::Approx(1.0 / 3));  // {1} + dense + beyond
  CHECK(f[2] == doctest::Approx(0.5));
}

TEST_CASE("an unknown rule is rejected") { CHECK_THROWS_AS(StalenessRule("sqrt", 1, 1), std::invalid_argument); }
