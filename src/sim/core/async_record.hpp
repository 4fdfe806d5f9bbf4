// What asynchronous aggregation (mode async, local-sgd with aggregation async, a hierarchy's async cloud)
// records as it goes, and the summary.json keys it writes: each push's staleness (staleness.csv),
// pushes dropped for staleness, the pushes of a last buffer never applied, and the SSP barrier's holds.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::sim {

struct AsyncRecord {
  std::vector<report::StalenessRow> staleness;  // one row per push taken into a buffer
  int64_t stale_drops = 0;
  int64_t buffered_at_end = 0;  // pushes in a partly filled buffer when the run ended (not applied)
  int64_t holds = 0;            // staleness_policy hold: pulls held, and for how long in all
  double held_s = 0;

  // Writes its keys to `extra`: the staleness statistics, drops, and with updates applied on arrival
  // the buffer's size and the versions applied (`rounds`), else null.
  void summarize(nlohmann::json& extra, bool on_arrival, int64_t buffer_size, int64_t rounds) const;
};

}  // namespace edgetrain::sim
