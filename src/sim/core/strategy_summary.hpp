// summary.json's keys of the federated algorithms: the strategy, the defence and the attack as
// resolved, with the attackers' count and a backdoor's last attack success rate.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

// Adds "strategy", "defence" and "attack" to `extra`, each only when its section is on (other runs'
// summaries stay as they were).
void summarize_strategy(const RunState& state, nlohmann::json& extra);

}  // namespace edgetrain::sim
