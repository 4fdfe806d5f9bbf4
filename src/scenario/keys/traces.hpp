// The device-trace keys (`traces`: when each device is on, its compute and bandwidth, from CSV
// files such as FedScale's traces converted by tools/traces/fedscale_to_csv.py, and how the
// trace rows meet the devices) and the rules on what they combine with.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> trace_rows();  // traces.*
std::vector<Rule> trace_rules();

}  // namespace edgetrain::scenario::keys
