// The default the schema gives a key of a resolved scenario, for `edgetrain compare`: a key that one
// run's scenario.json lacks (it does not apply there: another mode's keys, a section left null) is
// compared by the value it would take, so that defaults are not reported as differences.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace edgetrain::scenario {

// The default of the key at `dotted_path` ("training.staleness_history", "devices.3.stream.rate",
// "compression.kind") given the rest of the resolved document `resolved` (conditional defaults are
// decided by its values: compression.error_feedback is true for signsgd). Empty when the key is not
// in the schema or has no default (required keys, the scenario file's name).
std::optional<nlohmann::json> schema_default(const std::string& dotted_path, const nlohmann::json& resolved);

// Whether the section at `dotted_path` ("privacy.dp") is one whose null turns a mechanism off: given
// with only its defaults it is on, so it does not equal null (KeySpec::null_is_off).
bool null_is_off(const std::string& dotted_path);

}  // namespace edgetrain::scenario
