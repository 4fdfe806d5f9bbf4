// What a run will put on the wire and spend, from the scenario alone, for `edgetrain validate`:
// each direction's message size with the chosen model and compressor, a round's bytes on the
// devices' links, and the privacy budget the run spends by its stop condition. A planner reads these
// before simulating anything.
#pragma once

#include <cstdint>
#include <string>

#include "backend/charged_model.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::sim {

// Bytes a Python strategy declares beside each model sent down and each update sent up (message_bytes).
struct DeclaredBytes {
  int64_t model = 0, update = 0;
};

// Lines of text, each ending in a newline: "messages: ...", "a round: ..." and, with
// privacy.dp, "privacy: ...".
std::string wire_plan_text(const scenario::Scenario& scenario, const backend::ChargedModel& charged,
                           DeclaredBytes declared = {});

}  // namespace edgetrain::sim
