// Differential privacy in a run (privacy.dp): the epsilon ledger the run keeps from the scenario, the
// stop.epsilon budget checked before each round, and the summary's `privacy` keys. The noise itself is
// the back-end's (backend/update_privacy.hpp): what the protocol sees is which rounds released what.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>

#include "privacy/epsilon_ledger.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct RunState;

// The ledger of a scenario with privacy.dp; null without.
std::unique_ptr<privacy::EpsilonLedger> make_epsilon_ledger(const scenario::Scenario& scenario);

// stop.epsilon: whether one more round over `members` devices would take epsilon above the budget
// (the run is then stopped, saying so).
bool epsilon_budget_spent(RunState& state, size_t members);

// summary.json's `privacy`: the settings, epsilon at delta and the releases accounted; null without.
nlohmann::json privacy_summary(const RunState& state);

}  // namespace edgetrain::sim
