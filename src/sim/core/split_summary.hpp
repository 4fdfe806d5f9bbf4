// summary.json's `split` block (strategy.kind splitfed): where the model was cut, each side's share, and
// what each local step's exchange put on the wire.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

// Adds "split" to `extra` when the model is split (other runs' summaries stay as they were).
void summarize_split(const RunState& state, nlohmann::json& extra);

}  // namespace edgetrain::sim
