// summary.json's `participation` object: what became of each selection of a device in synchronous
// rounds. Every selection ends exactly one way, so selected = aggregated + late + failed + missing.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

// Null when updates are applied on arrival (no rounds to take part in).
nlohmann::json participation_summary(const RunState& state);

}  // namespace edgetrain::sim
