// What became of a run's updates, counted by the devices and the aggregators as they go, and the
// summary.json keys it writes: failed, late and missing updates, empty and short rounds, and the
// `participation` object of synchronous rounds (every selection ends exactly one way, so selected =
// aggregated + late + failed + missing + discarded).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::sim {

struct UpdateRecord {
  int64_t failed_pushes = 0, late_pushes = 0;
  int64_t missing_updates = 0;  // sync rounds: devices whose update was not aggregated in a round
  int64_t empty_rounds = 0;     // sync rounds that closed with no update at all
  // training.selection.min_updates: rounds that applied nothing for want of updates, and rounds that
  // waited past their timeout for them.
  int64_t rounds_below_min = 0, rounds_extended = 0;
  // Sync rounds' participation: each time a device is selected it ends aggregated
  // (DeviceRecord::rounds_aggregated), late (late_pushes), failed (a fault while its model was out),
  // missing (not sent, being off or busy with an earlier round; or still out when the run ended) or
  // discarded (its round had fewer than min_updates).
  int64_t rounds_started = 0;
  int64_t selections_failed = 0, selections_missing = 0;
  int64_t selections_discarded = 0;

  // Writes its keys to `extra`; `participation` is null when updates are applied on arrival (no rounds).
  void summarize(nlohmann::json& extra, const std::vector<report::DeviceRecord>& devices, bool on_arrival) const;
};

}  // namespace edgetrain::sim
