// See strategy_summary.hpp.
#include "sim/core/strategy_summary.hpp"

#include <algorithm>

#include "strategy/attack.hpp"

namespace edgetrain::sim {

void summarize_strategy(const RunState& state, nlohmann::json& extra) {
  const nlohmann::json& resolved = state.scenario.resolved;
  for (const char* key : {"strategy", "defence", "attack"})
    if (resolved.contains(key) && !resolved.at(key).is_null()) extra[key] = resolved.at(key);
  if (state.scenario.strategy && state.scenario.strategy->evaluates_devices()) {
    // The last evaluation's personalised accuracy (null before any device trained).
    const report::EvalPoint* last = state.evals.empty() ? nullptr : &state.evals.back();
    auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json& personal = extra["personalisation"];
    personal["final_accuracy_mean"] = last ? value(last->personal_accuracy_mean) : nlohmann::json();
    personal["final_accuracy_p10"] = last ? value(last->personal_accuracy_p10) : nlohmann::json();
    personal["devices"] = last && last->personal_devices ? *last->personal_devices : 0;
  }
  if (!state.scenario.attack) return;
  const std::vector<bool> who = strategy::attackers(state.scenario);
  nlohmann::json& attack = extra["attack"];
  attack["attackers"] = std::count(who.begin(), who.end(), true);
  const bool backdoor = !state.evals.empty() && state.evals.back().attack_success;
  attack["final_attack_success"] = backdoor ? nlohmann::json(*state.evals.back().attack_success) : nlohmann::json();
}

}  // namespace edgetrain::sim
