// See async_record.hpp.
#include "sim/core/async_record.hpp"

namespace edgetrain::sim {

void AsyncRecord::summarize(nlohmann::json& extra, bool on_arrival, int64_t buffer_size, int64_t rounds) const {
  const nlohmann::json summary = report::staleness_summary(staleness);  // kept: items() does not own it
  for (const auto& [key, value] : summary.items()) extra[key] = value;
  extra["stale_drops"] = stale_drops;
  // Pushes per version, versions applied (= rounds), pushes of the unapplied last buffer; pulls held by
  // the SSP barrier.
  extra["buffer_size"] = on_arrival ? nlohmann::json(buffer_size) : nlohmann::json();
  extra["buffers_applied"] = on_arrival ? nlohmann::json(rounds) : nlohmann::json();
  extra["pushes_buffered_at_end"] = buffered_at_end;
  extra["holds"] = holds;
  extra["held_s"] = held_s;
}

}  // namespace edgetrain::sim
