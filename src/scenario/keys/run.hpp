// The run's own keys: its name and seed, the platform (with its what-ifs), the server and the
// devices (a list, or a selector naming platform hosts), and the rule that keeps device names
// unique and the server off the devices.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> run_rows();     // name, seed, platform, server
std::vector<KeySpec> device_rows();  // devices, its selector's keys, devices[].host and .name
std::vector<Rule> run_rules();

}  // namespace edgetrain::scenario::keys
