// Devices named without listing hosts: a selector object in place of the `devices` list, e.g.
// {"hosts": "pi-*"}, {"class": "pi4"}, {"site": "site-3", "exclude": "*-7"} or {"hosts": "*"}.
// Each field is a glob (fnmatch: `*`, `?`, `[...]`) or a list of globs (any may match); fields
// combine with AND. `class`, `site` and `role` match the host properties the fleet generator
// writes. The server is never selected, nor are hosts whose `role` is not `device` unless the
// selector names a role. Hosts come in platform file order.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/check.hpp"

namespace edgetrain::scenario {

struct SelectedHosts {
  std::vector<std::string> hosts;  // in platform file order
  nlohmann::json resolved;         // the selector as written, with "matched": the number of hosts
};

// Throws ScenarioError naming `at` ("devices") or its field ("devices.class") when the selector
// is malformed, matches nothing, or does not match its own `matched` count.
SelectedHosts select_hosts(const nlohmann::json& selector, const std::string& at, const platform::PlatformInfo& info,
                           const std::string& server, const std::filesystem::path& platform_file);

// population.hosts "slots": the devices are every device of the fleet, in its order, so the selector
// must name them all ({"role": "device"} or {"hosts": "*"}); a subset takes part per round through
// training.selection. Returns the selector as resolved, with "matched": `population`.
nlohmann::json select_population(const nlohmann::json& selector, const std::string& at, size_t population);

}  // namespace edgetrain::scenario
