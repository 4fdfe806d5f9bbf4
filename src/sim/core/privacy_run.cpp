// See privacy_run.hpp.
#include "sim/core/privacy_run.hpp"

#include <cstdio>
#include <string>

#include "scenario/population.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

std::unique_ptr<privacy::EpsilonLedger> make_epsilon_ledger(const scenario::Scenario& scenario) {
  const auto& dp = scenario.privacy.dp;
  if (!dp) return nullptr;
  privacy::LedgerSettings settings;
  settings.placement = dp->placement == "central"       ? privacy::Placement::central
                       : dp->placement == "distributed" ? privacy::Placement::distributed
                                                        : privacy::Placement::local;
  settings.noise_multiplier = dp->noise_multiplier;
  settings.delta = dp->delta;
  settings.sampling = dp->sampling == "poisson" ? privacy::Sampling::poisson : privacy::Sampling::fixed_size;
  const auto& selection = scenario.training.selection;
  settings.uniform_selection = selection.kind == "all" || selection.kind == "random";
  const size_t devices = scenario.devices.size();
  settings.planned_per_round = static_cast<int64_t>(scenario::round_size(selection, devices).value_or(devices));
  return std::make_unique<privacy::EpsilonLedger>(settings, devices);
}

namespace {
std::string four_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}
}  // namespace

bool epsilon_budget_spent(RunState& state, size_t members) {
  const auto& budget = state.scenario.stop.epsilon;
  if (!budget || !state.privacy) return false;
  const auto picked = static_cast<int64_t>(scenario::most_picked(state.scenario.training.selection, members));
  const double next = state.privacy->epsilon_after_next(picked, static_cast<int64_t>(members));
  if (next <= *budget) return false;
  state.stop("completed", "stop.epsilon reached: another round would take epsilon from " +
                              four_digits(state.privacy->epsilon()) + " to " + four_digits(next) +
                              ", above " + four_digits(*budget));
  return true;
}

nlohmann::json privacy_summary(const RunState& state) {
  const auto& dp = state.scenario.privacy.dp;
  if (!dp || !state.privacy) return nullptr;
  return {{"epsilon", state.privacy->epsilon()},
          {"delta", dp->delta},
          {"dp",
           {{"placement", dp->placement},
            {"clip", dp->clip},
            {"noise_multiplier", dp->noise_multiplier},
            {"order", dp->order},
            {"sampling", dp->sampling},
            {"releases_accounted", state.privacy->releases()}}}};
}

}  // namespace edgetrain::sim
