// See aggregation_cost.hpp.
#include "strategy/aggregation_cost.hpp"

#include "strategy/attack.hpp"
#include "strategy/defence.hpp"

namespace edgetrain::strategy {

namespace {
// FedOpt's step beyond SGD's: two moments, a square root and a division per parameter.
constexpr double kFedOptFlopsPerParam = 8;
// FedDyn's: its drift state moved and subtracted.
constexpr double kFedDynFlopsPerParam = 3;
}  // namespace

AggregationCost::AggregationCost(const scenario::Scenario& scenario) : scenario_(scenario) {
  if (!scenario.attack || scenario.devices.empty()) return;
  attacker_share_ = attacker_share(attackers(scenario));
}

double AggregationCost::extra_flops(int64_t params, int64_t updates) const {
  double flops = 0;
  const auto d = static_cast<double>(params), n = static_cast<double>(updates);
  if (scenario_.strategy && scenario_.strategy->fedopt()) flops += kFedOptFlopsPerParam * d;
  if (scenario_.strategy_is("feddyn")) flops += kFedDynFlopsPerParam * d;
  if (const auto& defence = scenario_.defence; defence && updates > 0) {
    const auto f = static_cast<double>(assumed_byzantine(*defence, attacker_share_, updates));
    flops += defence_kind(defence->kind).flops(*defence, n, d, f);
  }
  return flops;
}

}  // namespace edgetrain::strategy
