// `edgetrain fleet FLEET.json -o PLATFORM.xml [--seed N]`: generates a SimGrid platform from a
// fleet description (src/fleet) and the device list beside it (PLATFORM.devices.csv).
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

// `args`: what follows the word "fleet". Returns the exit status (0, or 2 for bad input, with one
// line on stderr); prints its own usage and help.
int fleet_command(const std::vector<std::string>& args);

}  // namespace edgetrain::cli
