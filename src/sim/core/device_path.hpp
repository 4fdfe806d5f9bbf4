// The run's side of the choice between devices as activities and devices as actors
// (scenario/device_path.hpp says what each path covers and why).
#pragma once

#include <string>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct DevicePath {
  bool activities = false;
  std::string reason;  // why the devices keep their actors (empty on the activity path)
};

// `crosscheck`: edgetrain crosscheck records every transfer for its packet replay. Call it once the engine
// read its --cfg flags.
DevicePath choose_device_path(const scenario::Scenario& scenario, bool crosscheck);

}  // namespace edgetrain::sim
