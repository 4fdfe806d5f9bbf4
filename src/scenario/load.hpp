// Entry points of the scenario module: read a scenario file (or an in-memory JSON document),
// apply --set overrides and the seed override, validate against the schema and return the
// typed Scenario. Only ScenarioError escapes; its message is the full line to show the user.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario/error.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

// The file name that stands for standard input ("edgetrain run -", the Python module's dicts).
inline constexpr const char* kStandardInput = "-";

// Reads `file` (JSON; // and /* */ comments allowed), then parse_scenario(). `file` "-" reads the
// document from standard input, as parse_scenario's document of no file (relative paths from the
// current directory, default name "scenario").
Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& set_overrides = {},
                       std::optional<uint64_t> seed_override = std::nullopt);

// Validates an in-memory document. `file_for_relative_paths` is the scenario file the document
// stands for: relative paths are resolved against its folder and its stem is the default name
// (empty: the current directory and "scenario").
// Each override is "key.path=value": the value is read as JSON if it parses as JSON (numbers,
// true, null, [..], {..}, "quoted"), else taken as a plain string; numeric path segments
// index lists ("devices.0", "model.hidden.1"; the index one past the end appends). Optional
// sections are created on the way ("stream.rate=S10" adds a stream section), and a rate's
// object keys can be set one by one ("stream.rate.mean=40").
Scenario parse_scenario(nlohmann::json doc, const std::filesystem::path& file_for_relative_paths,
                        const std::vector<std::string>& set_overrides = {},
                        std::optional<uint64_t> seed_override = std::nullopt);

// The text of a seed option (`--seed -1`), checked by the same rule as the scenario key `seed`;
// messages name `option`: "--seed: must be a non-negative integer, got -1".
uint64_t parse_seed_option(const std::string& text, const std::string& option = "--seed");

// Applies one --set override to a raw document (before validation). Exposed for tests.
void apply_override(nlohmann::json& doc, const std::string& override_text);

// The typed scenario with every key at its schema default (keys without one: empty or zero; no
// devices, no platform), for code and tests that build part of a scenario by hand:
// `TrainingSpec t = typed_defaults().training;`.
Scenario typed_defaults();

// Short human summary for `edgetrain validate`: name, seed, platform, server, devices, dataset
// and partition, streams, model, training (and the ScaDLES, local-SGD or staleness settings of
// its mode), uplink and downlink compression, the topology, faults, evaluation and stop
// conditions, one line each (describe.cpp).
std::string describe(const Scenario& s);

}  // namespace edgetrain::scenario
