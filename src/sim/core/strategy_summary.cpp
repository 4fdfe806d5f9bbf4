// See strategy_summary.hpp.
#include "sim/core/strategy_summary.hpp"

#include <algorithm>

#include "strategy/attack.hpp"

namespace edgetrain::sim {

void summarize_strategy(const RunState& state, nlohmann::json& extra) {
  const nlohmann::json& resolved = state.scenario.resolved;
  for (const char* key : {"strategy", "defence", "attack"})
    if (resolved.contains(key) && !resolved.at(key).is_null()) extra[key] = resolved.at(key);
  if (!state.scenario.attack) return;
  const std::vector<bool> who = strategy::attackers(state.scenario);
  nlohmann::json& attack = extra["attack"];
  attack["attackers"] = std::count(who.begin(), who.end(), true);
  const bool backdoor = !state.evals.empty() && state.evals.back().attack_success;
  attack["final_attack_success"] = backdoor ? nlohmann::json(*state.evals.back().attack_success) : nlohmann::json();
}

}  // namespace edgetrain::sim
