// What split learning (strategy.kind splitfed) puts on the wire, for `edgetrain validate`: where the
// model is cut, the activations (and their gradient) of each local step, the device part's delta up and
// the device part down after the local steps, and a round's bytes on the devices' links.
#pragma once

#include <string>

#include "backend/charged_model.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::sim {

// Lines of text in place of wire_plan's "messages:" and "a round:" lines (charged.split is set).
std::string split_wire_text(const scenario::Scenario& scenario, const backend::ChargedModel& charged);

}  // namespace edgetrain::sim
