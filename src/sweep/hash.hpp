// The identity of a run: SHA-256 of its resolved scenario (compact JSON, keys sorted), so that the
// same scenario gets the same id whatever the order of the sweep file or of the scenario's keys.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace edgetrain::sweep {

// 64 lowercase hex digits.
std::string scenario_hash(const nlohmann::json& resolved);

// The run's folder name: the first 12 hex digits of its hash.
inline std::string run_id(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace edgetrain::sweep
