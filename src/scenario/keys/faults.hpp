// The fault keys (`faults`: devices that go off and come back, link bandwidth over time and link
// outages, the retry delay) and the rules on their entries.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> fault_rows();  // faults.*
std::vector<Rule> fault_rules();

// The entries of the list `key` ("devices", "links") of the resolved `faults` section; none when
// the section or the list is null.
const nlohmann::json& fault_entries(const nlohmann::json& resolved, const char* key);

}  // namespace edgetrain::scenario::keys
