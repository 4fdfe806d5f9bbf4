// What a round's aggregation costs beyond the weighted mean and an SGD step (AggregationCost): nothing
// without a strategy or a defence, 8 FLOPs a parameter for the FedOpt kinds, and each defence's formula
// (defences.cpp) with f from defence.byzantine or the attackers' share.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "strategy/aggregation_cost.hpp"

using namespace edgetrain;

namespace {

scenario::Scenario eight_devices() {
  scenario::Scenario s;
  s.seed = 11;
  for (int i = 1; i <= 8; ++i) {
    s.devices.emplace_back();
    s.devices.back().name = "d" + std::to_string(i);
  }
  return s;
}

scenario::DefenceSpec defence(const std::string& kind) {
  scenario::DefenceSpec d;
  d.kind = kind;
  return d;
}

double krum_flops(double n, double d) { return 1.5 * n * (n - 1) * d + n * d; }

}  // namespace

TEST_CASE("aggregation cost: zero without a strategy or a defence, and for the SGD kinds") {
  scenario::Scenario s = eight_devices();
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == 0);
  for (const char* kind : {"fedavg", "fedavgm", "fedprox"}) {
    CAPTURE(kind);
    s.strategy = scenario::StrategySpec{};
    s.strategy->kind = kind;
    CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == 0);
  }
}

TEST_CASE("aggregation cost: the FedOpt kinds add 8 FLOPs a parameter, whatever the updates") {
  scenario::Scenario s = eight_devices();
  for (const char* kind : {"fedadam", "fedyogi", "fedadagrad"}) {
    CAPTURE(kind);
    s.strategy = scenario::StrategySpec{};
    s.strategy->kind = kind;
    const strategy::AggregationCost cost(s);
    CHECK(cost.extra_flops(1000, 8) == 8000);
    CHECK(cost.extra_flops(12345, 1) == 8 * 12345);
    CHECK(cost.extra_flops(1000, 0) == 8000);
  }
}

TEST_CASE("aggregation cost: krum and multikrum add 1.5 n (n - 1) d + n d") {
  scenario::Scenario s = eight_devices();
  for (const char* kind : {"krum", "multikrum"}) {
    CAPTURE(kind);
    s.defence = defence(kind);
    const strategy::AggregationCost cost(s);
    CHECK(cost.extra_flops(1000, 8) == doctest::Approx(1.5 * 8 * 7 * 1000 + 8 * 1000));
    CHECK(cost.extra_flops(1000, 8) == doctest::Approx(92000));
    CHECK(cost.extra_flops(500, 3) == doctest::Approx(krum_flops(3, 500)));
    CHECK(cost.extra_flops(500, 0) == 0);  // no updates, nothing to compare
  }
  // With fedadam too, the two add up.
  s.defence = defence("krum");
  s.strategy = scenario::StrategySpec{};
  s.strategy->kind = "fedadam";
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == doctest::Approx(92000 + 8000));
}

TEST_CASE("aggregation cost: sorting rules and norm bounding") {
  scenario::Scenario s = eight_devices();
  for (const char* kind : {"median", "trimmed-mean"}) {
    CAPTURE(kind);
    s.defence = defence(kind);
    CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == doctest::Approx(1000 * 8 * 3));  // d n log2 n
    CHECK(strategy::AggregationCost(s).extra_flops(1000, 1) == doctest::Approx(1000));           // log2 at least 1
  }
  s.defence = defence("norm-bound");
  s.defence->norm_bound = 1;
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == doctest::Approx(4 * 8 * 1000));
}

TEST_CASE("aggregation cost: bulyan's f comes from defence.byzantine or the attackers' share") {
  scenario::Scenario s = eight_devices();
  s.defence = defence("bulyan");
  const double d = 1000, n = 8;
  // No attack, no byzantine: f = 0, theta = 8 Krum selections, then a sort of 8 per coordinate.
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == doctest::Approx(8 * krum_flops(n, d) + d * 8 * 3));
  s.defence->byzantine = 1;  // theta = 6
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) ==
        doctest::Approx(6 * krum_flops(n, d) + d * 6 * std::log2(6.0)));
  // Attackers: round(0.25 x 8) = 2 of 8 devices, a share of 0.25; a round of 8 updates assumes f = 2.
  s.defence->byzantine.reset();
  s.attack = scenario::AttackSpec{};
  s.attack->kind = "sign-flip";
  s.attack->fraction = 0.25;
  s.attack->scale = 1;
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 8) == doctest::Approx(4 * krum_flops(n, d) + d * 4 * 2));
  // A round of 5 updates: f = ceil(1.25) = 2, theta = max(1, 1) = 1, a sort of one (log2 clamped to 1).
  CHECK(strategy::AggregationCost(s).extra_flops(1000, 5) == doctest::Approx(krum_flops(5, d) + d));
}
