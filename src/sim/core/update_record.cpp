// See update_record.hpp.
#include "sim/core/update_record.hpp"

namespace edgetrain::sim {

namespace {

nlohmann::json participation(const UpdateRecord& r, const std::vector<report::DeviceRecord>& devices) {
  int64_t selected = 0, aggregated = 0, never_selected = 0, never_aggregated = 0;
  for (const report::DeviceRecord& d : devices) {
    selected += d.rounds_selected;
    aggregated += d.rounds_aggregated;
    never_selected += d.rounds_selected == 0 ? 1 : 0;
    never_aggregated += d.rounds_aggregated == 0 ? 1 : 0;
  }
  const int64_t rounds = r.rounds_started;
  auto per_round = [&](int64_t total) {
    return rounds > 0 ? static_cast<double>(total) / static_cast<double>(rounds) : 0.0;
  };
  return {{"rounds", rounds},
          {"selected", selected},
          {"aggregated", aggregated},
          {"late", r.late_pushes},
          {"failed", r.selections_failed},
          {"missing", r.selections_missing},
          {"discarded", r.selections_discarded},
          {"selected_per_round_mean", per_round(selected)},
          {"aggregated_per_round_mean", per_round(aggregated)},
          {"devices_never_selected", never_selected},
          {"devices_never_aggregated", never_aggregated}};
}

}  // namespace

void UpdateRecord::summarize(nlohmann::json& extra, const std::vector<report::DeviceRecord>& devices,
                             bool on_arrival) const {
  extra["failed_pushes"] = failed_pushes;
  extra["late_pushes"] = late_pushes;
  extra["missing_updates"] = missing_updates;
  extra["empty_rounds"] = empty_rounds;
  extra["rounds_below_min"] = rounds_below_min;
  extra["rounds_extended"] = rounds_extended;
  extra["participation"] = on_arrival ? nlohmann::json(nullptr) : participation(*this, devices);
}

}  // namespace edgetrain::sim
