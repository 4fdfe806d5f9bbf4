// The data streams' keys: the global `stream` section (rate, trace, arrivals, buffer, sample size,
// what arrives while a device is off) and the per-device copies `devices[].stream` that override
// it key by key. Each device's StreamSpec is filled from its own copy.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> stream_rows();         // stream.*
std::vector<KeySpec> device_stream_rows();  // devices[].stream.*: after the devices' own rows

}  // namespace edgetrain::scenario::keys
