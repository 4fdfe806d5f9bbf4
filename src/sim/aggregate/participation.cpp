// See participation.hpp.
#include "sim/aggregate/participation.hpp"

namespace edgetrain::sim {

nlohmann::json participation_summary(const RunState& state) {
  if (state.mode.applies_on_arrival()) return nullptr;
  int64_t selected = 0, aggregated = 0, never_selected = 0, never_aggregated = 0;
  for (const report::DeviceRecord& d : state.devices) {
    selected += d.rounds_selected;
    aggregated += d.rounds_aggregated;
    never_selected += d.rounds_selected == 0 ? 1 : 0;
    never_aggregated += d.rounds_aggregated == 0 ? 1 : 0;
  }
  const int64_t rounds = state.rounds_started;
  auto per_round = [&](int64_t total) {
    return rounds > 0 ? static_cast<double>(total) / static_cast<double>(rounds) : 0.0;
  };
  return {{"rounds", rounds},
          {"selected", selected},
          {"aggregated", aggregated},
          {"late", state.late_pushes},
          {"failed", state.selections_failed},
          {"missing", state.selections_missing},
          {"discarded", state.selections_discarded},
          {"selected_per_round_mean", per_round(selected)},
          {"aggregated_per_round_mean", per_round(aggregated)},
          {"devices_never_selected", never_selected},
          {"devices_never_aggregated", never_aggregated}};
}

}  // namespace edgetrain::sim
