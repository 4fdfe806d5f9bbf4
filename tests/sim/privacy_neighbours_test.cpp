// The epsilon a run reports against the worst pair of neighbouring fleets, computed here exactly
// (docs/explanation/privacy.md, "Neighbouring fleets"). One round of central DP on eight devices
// (tests/sim/data/eight-devices.json, timing-only): the fleet D and D' = D plus one device. The round's
// sum moves by the new device's update (at most the clip C) or, where a round aggregates at most K
// updates, by its update minus the one it displaced (at most 2C); the new device takes part with
// probability p. The worst pair is one-dimensional: the output is N(0, (zC)^2) under D and the mixture
// (1 - p) N(0, (zC)^2) + p N(shift, (zC)^2) under D'. Its exact (epsilon, delta) follows from the
// hockey-stick divergence of the two, both ways; the reported epsilon must be at least that.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cli_helpers.hpp"

using namespace test;

namespace {

constexpr double kDelta = 1e-5;
constexpr int kDevices = 8;

double upper_tail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }  // P(N(0,1) > x)
double lower_tail(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }  // P(N(0,1) < x)

// delta(epsilon) of the pair P = (1 - p) N(0,1) + p N(mu,1), Q = N(0,1) (mu = shift / (zC) > 0), the
// larger of both directions. The privacy loss log P/Q = log(1 - p + p exp(mu x - mu^2 / 2)) grows with x,
// so each region where one density exceeds e^epsilon times the other is a half-line.
double delta_of(double epsilon, double p, double mu) {
  const double e = std::exp(epsilon);
  const double above = (std::log((e - (1 - p)) / p) + mu * mu / 2) / mu;
  const double p_over_q = (1 - p) * upper_tail(above) + p * upper_tail(above - mu) - e * upper_tail(above);
  double q_over_p = 0;
  if (const double b = 1 / e - (1 - p); b > 0) {
    const double below = (std::log(b / p) + mu * mu / 2) / mu;
    q_over_p = lower_tail(below) - e * ((1 - p) * lower_tail(below) + p * lower_tail(below - mu));
  }
  return std::max(p_over_q, q_over_p);
}

// The smallest epsilon with delta_of(epsilon) <= kDelta (delta_of decreases in epsilon).
double exact_epsilon(double p, double mu) {
  double lo = 0, hi = 200;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (delta_of(mid, p, mu) > kDelta ? lo : hi) = mid;
  }
  return hi;
}

double reported(const std::string& tag, const std::string& selection, double z) {
  const fs::path out = run_ok("eight-devices.json",
                              "--set training.compute=timing-only --set stop.rounds=1 --set 'training.selection=" +
                                  selection + "' --set 'privacy.dp={\"noise_multiplier\":" + std::to_string(z) + "}'",
                              tag);
  const auto s = read_json(out / "summary.json");
  REQUIRE(s["privacy"]["dp"]["releases_accounted"] == 1);
  return s["privacy"]["epsilon"].get<double>();
}

struct Case {
  const char* name;
  std::string selection;
  double p;      // the chance the added device takes part
  double shift;  // in clips: 1 (added) or 2 (added, displacing another)
};

}  // namespace

TEST_CASE("the exact epsilon of the worst pair matches the published Gaussian figures") {
  // Balle and Wang 2018's analytic Gaussian: sensitivity = sigma, delta 1e-5.
  CHECK(exact_epsilon(1, 1) == doctest::Approx(4.3772).epsilon(1e-4));
  // The pair: one of two available devices selected, one more added (p = 1/2, shift 2C).
  CHECK(exact_epsilon(0.5, 2) == doctest::Approx(8.9815).epsilon(1e-4));
  CHECK(exact_epsilon(0.5, 1) == doctest::Approx(3.5340).epsilon(1e-4));
  CHECK(exact_epsilon(0.5, 0.5) == doctest::Approx(1.3536).epsilon(1e-4));
}

TEST_CASE("privacy: every selection kind reports at least the exact epsilon of its worst neighbouring fleets") {
  const Case cases[] = {
      // Every device: the added one always takes part, nothing to displace.
      {"all", "{\"kind\":\"all\"}", 1, 1},
      // Every available device: as above.
      {"available", "{\"kind\":\"available\"}", 1, 1},
      // 3 of the available ones: the added device may be picked (with probability up to 1 as the pool
      // shrinks to 3) and push out one that would have been.
      {"available-3", "{\"kind\":\"available\",\"per_round\":3}", 1, 2},
      // A uniform 3 of 8: D' has 9 devices; the added one is in with probability 3/9 and displaces one.
      {"random-3", "{\"kind\":\"random\",\"per_round\":3}", 3.0 / (kDevices + 1), 2},
      // 3 of 8, over-selecting 5 and keeping the first 3 to arrive.
      {"random-3-over", "{\"kind\":\"random\",\"per_round\":3,\"over_selection\":0.5}", 5.0 / (kDevices + 1), 2},
      // 8 of 8: D' has 9, of which 8 are picked: the added one displaces one with probability 8/9.
      {"random-8", "{\"kind\":\"random\",\"per_round\":8}", 8.0 / (kDevices + 1), 2},
  };
  for (const Case& c : cases) {
    for (double z : {1.0, 2.0, 4.0}) {
      CAPTURE(c.name);
      CAPTURE(z);
      const double exact = exact_epsilon(c.p, c.shift / z);
      const double got = reported(std::string("neighbours-") + c.name + "-" + std::to_string(static_cast<int>(z)),
                                  c.selection, z);
      CHECK(got >= exact);
    }
  }
}

TEST_CASE("privacy: a Poisson draw that could leave a round empty is refused in one line") {
  const Result r = run_cli("validate " + (kData / "eight-devices.json").string() +
                               " --set 'training.selection={\"kind\":\"random\",\"per_round\":3}'"
                               " --set 'privacy.dp={\"sampling\":\"poisson\"}'",
                           "poisson-empty");
  CHECK(r.status == 2);
  CHECK(r.err.find("privacy.dp.sampling: poisson draws no one in a round with probability") != std::string::npos);
  CHECK(lines_of(r.err).size() == 1);
}
