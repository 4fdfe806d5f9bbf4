// Differential privacy in a run (privacy.dp): the epsilon ledger the run keeps from the scenario, the
// stop.epsilon budget checked before each round, and the summary's `privacy` keys. The noise itself is
// the back-end's (backend/update_privacy.hpp): what the protocol sees is which rounds released what.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "privacy/epsilon_ledger.hpp"
#include "scenario/scenario.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

struct RunState;

// The ledger of a scenario with privacy.dp; null without.
std::unique_ptr<privacy::EpsilonLedger> make_epsilon_ledger(const scenario::Scenario& scenario);

// stop.epsilon: whether one more round over `members` devices would take epsilon above the budget
// (the run is then stopped, saying so).
bool epsilon_budget_spent(RunState& state, size_t members);

// The accountant's settings (a Poisson draw's chance of an empty round) and secure aggregation's for the
// rounds the scenario plans (K devices each): an input error naming the key when they cannot hold; and
// the lines `validate` prints for the privacy mechanisms.
void check_privacy(const scenario::Scenario& scenario, int64_t params);
std::string describe_privacy(const scenario::Scenario& scenario, int64_t params);

// Secure aggregation with training.round_timeout_s: refused (ScenarioError naming the key) when no
// device could deliver its masked input before the round closes. Before it, the model and three
// exchanges with the aggregator (adverts, peers' adverts, shares, shares back, then the masked input)
// cross each device's route: at least three round trips of its latencies, whatever the bandwidth.
void check_secure_round_timeout(const scenario::Scenario& scenario, const simgrid::s4u::Host* server,
                                const std::vector<simgrid::s4u::Host*>& devices);

// summary.json's `privacy`: DP's settings, epsilon at delta and the releases accounted; secure
// aggregation's settings, bytes and time by phase and the rounds that failed; null without either.
nlohmann::json privacy_summary(const RunState& state);

// The warning of a run whose secure aggregation clipped input values (summary.json's
// privacy.secure_aggregation.clipped_coordinates); none when nothing was clipped.
std::optional<std::string> secure_clipping_warning(const RunState& state);

}  // namespace edgetrain::sim
