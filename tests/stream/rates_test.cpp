// Per-device rates: the ScaDLES presets, seeded draws, independence between devices.
#include "stream/rates.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "stream/rate_profile.hpp"
#include "util/limits.hpp"

using namespace edgetrain::stream;

namespace {

RateDistribution make(const std::string& dist) {
  RateDistribution d;
  d.dist = dist;
  return d;
}

double mean_of(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

std::vector<double> draw_all(const RateDistribution& d, uint64_t seed, size_t devices) {
  std::vector<double> out;
  for (size_t i = 0; i < devices; ++i) out.push_back(draw_rate(d, seed, i));
  return out;
}

}  // namespace

namespace {
// The ScaDLES rate sets' distributions (the scenario module resolves the preset names).
RateDistribution uniform(double mean, double spread) {
  RateDistribution d = make("uniform");
  d.mean = mean;
  d.spread = spread;
  return d;
}
RateDistribution normal(double mean, double std_dev) {
  RateDistribution d = make("normal");
  d.mean = mean;
  d.std = std_dev;
  return d;
}
}  // namespace

TEST_CASE("draw_rate of a constant and of a list") {
  RateDistribution c = make("constant");
  c.value = 12.5;
  for (size_t i = 0; i < 10; ++i) CHECK(draw_rate(c, 99, i) == 12.5);
  RateDistribution l = make("list");
  l.values = {3, 7.5, 11};
  const std::vector<double> expected{3, 7.5, 11, 3, 7.5, 11, 3};
  CHECK(draw_all(l, 1, 7) == expected);
  CHECK(draw_all(l, 2, 7) == expected);  // a list involves no randomness
}

TEST_CASE("uniform rates stay within their bounds") {
  for (const RateDistribution& d : {uniform(38, 24), uniform(300, 112)}) {
    const std::vector<double> rates = draw_all(d, 2022, 4000);
    for (double r : rates) {
      CHECK(r >= d.mean - d.spread);
      CHECK(r <= d.mean + d.spread);
    }
    // U[m - s, m + s] has standard deviation s / sqrt(3): the mean of 4000 draws is within 5 sd of m.
    CHECK(std::abs(mean_of(rates) - d.mean) < 5 * d.spread / std::sqrt(3.0) / std::sqrt(4000.0));
    CHECK(std::set<double>(rates.begin(), rates.end()).size() == rates.size());
  }
  RateDistribution degenerate = make("uniform");
  degenerate.mean = 5;
  CHECK(draw_rate(degenerate, 1, 0) == 5);  // spread 0: the mean itself
}

TEST_CASE("normal rates are clipped at the floor") {
  RateDistribution d = make("normal");
  d.mean = 2;
  d.std = 5;
  const std::vector<double> rates = draw_all(d, 7, 2000);
  const auto clipped = std::count(rates.begin(), rates.end(), kMinNormalRate);
  CHECK(*std::min_element(rates.begin(), rates.end()) == kMinNormalRate);
  // P(N(2, 5) < 1) = 0.42: about 840 of 2000 draws are clipped.
  CHECK(clipped > 700);
  CHECK(clipped < 980);
  for (double r : rates) CHECK(r >= kMinNormalRate);

  const std::vector<double> s10 = draw_all(normal(64, 24), 7, 4000);
  CHECK(std::abs(mean_of(s10) - 64) < 5 * 24 / std::sqrt(4000.0));
  RateDistribution fixed = make("normal");
  fixed.mean = 40;
  CHECK(draw_rate(fixed, 3, 4) == 40);  // std 0: the mean itself
}

TEST_CASE("drawn rates never exceed the maximum rate, constant and listed ones above it are errors") {
  RateDistribution wide = make("normal");
  wide.mean = 5;
  wide.std = 1e300;  // a huge std draws huge rates: clipped
  for (double r : draw_all(wide, 7, 200)) {
    CHECK(r >= kMinNormalRate);
    CHECK(r <= edgetrain::util::kMaxRate);
  }
  RateDistribution uniform = make("uniform");
  uniform.mean = 1e300;
  uniform.spread = 1e299;
  for (double r : draw_all(uniform, 7, 50)) CHECK(r == edgetrain::util::kMaxRate);
  RateDistribution constant = make("constant");
  constant.value = 1e17;
  CHECK_THROWS_WITH_AS(draw_rate(constant, 1, 0),
                       "stream rate: a constant rate must be at most 1e+09 samples/s, got 1e+17", StreamError);
  RateDistribution list = make("list");
  list.values = {5, 1e17};
  CHECK_THROWS_AS(draw_rate(list, 1, 0), StreamError);
  CHECK_THROWS_AS(RateProfile::constant(1e17), StreamError);
}

TEST_CASE("rates are seeded and independent per device") {
  const RateDistribution d = normal(64, 24);
  CHECK(draw_rate(d, 11, 3) == draw_rate(d, 11, 3));
  CHECK(draw_rate(d, 11, 3) != draw_rate(d, 12, 3));
  CHECK(draw_rate(d, 11, 3) != draw_rate(d, 11, 4));
  // Growing the fleet from 5 to 50 devices leaves the first five rates unchanged.
  const std::vector<double> small = draw_all(d, 11, 5), large = draw_all(d, 11, 50);
  CHECK(std::equal(small.begin(), small.end(), large.begin()));
  // The device's draw does not depend on which other devices drew before it.
  const double alone = draw_rate(uniform(300, 112), 5, 3);
  draw_all(uniform(300, 112), 5, 10);
  CHECK(draw_rate(uniform(300, 112), 5, 3) == alone);
}

TEST_CASE("bad rate parameters are rejected") {
  RateDistribution c = make("constant");
  CHECK_THROWS_WITH_AS(draw_rate(c, 1, 0), "stream rate: a constant rate must be > 0, got 0", StreamError);
  c.value = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(draw_rate(c, 1, 0), StreamError);
  RateDistribution l = make("list");
  CHECK_THROWS_WITH_AS(draw_rate(l, 1, 0), "stream rate: the list of rates is empty", StreamError);
  l.values = {4, -1};
  CHECK_THROWS_WITH_AS(draw_rate(l, 1, 0), "stream rate: every listed rate must be > 0, got -1", StreamError);
  RateDistribution u = make("uniform");
  u.mean = 10;
  u.spread = -1;
  CHECK_THROWS_WITH_AS(draw_rate(u, 1, 0), "stream rate: a uniform rate needs spread >= 0, got -1", StreamError);
  RateDistribution n = make("normal");
  n.mean = 10;
  n.std = -2;
  CHECK_THROWS_WITH_AS(draw_rate(n, 1, 0), "stream rate: a normal rate needs std >= 0, got -2", StreamError);
  CHECK_THROWS_WITH_AS(draw_rate(make("gamma"), 1, 0),
                       "stream rate: unknown distribution 'gamma' (expected constant, uniform, normal or list)",
                       StreamError);
}

TEST_CASE("a uniform rate that reaches below the floor is clipped") {
  RateDistribution u = make("uniform");
  u.mean = 2;
  u.spread = 10;  // validation upstream forbids this, the floor keeps the stream flowing anyway
  for (double r : draw_all(u, 3, 500)) CHECK(r >= kMinNormalRate);
}
