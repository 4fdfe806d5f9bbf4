// The keys of federated algorithms (docs/explanation/strategies.md): the server's strategy
// (`strategy`: FedAvg, FedAvgM, FedAdam, FedYogi, FedAdagrad, FedProx), a robust aggregation rule
// (`defence`) and attackers among the devices (`attack`), with the rules that say where they apply.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> strategy_rows();  // strategy.*, defence.*, attack.*
std::vector<Rule> strategy_rules();

}  // namespace edgetrain::scenario::keys
