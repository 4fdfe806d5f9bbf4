// The sites of a hierarchical topology (topology.sites): which host aggregates which devices.
// Given as {"AGG-HOST": device selector or list of device names}, or derived from a generated
// fleet (hosts with role `site-aggregator`, devices by their `site` property). Resolved into
// {"AGG-HOST": [device names, in device order]}, with every device in exactly one site.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "platform/check.hpp"

namespace edgetrain::scenario {

// `given`: the value as written (null or absent: derive from the platform). `devices`: the
// resolved device entries (name, host). Throws ScenarioError naming `at` or one of its hosts.
nlohmann::json resolve_sites(const nlohmann::json* given, const std::string& at, const nlohmann::json& devices,
                             const platform::PlatformInfo& info, const std::string& server,
                             const std::filesystem::path& platform_file);

}  // namespace edgetrain::scenario
