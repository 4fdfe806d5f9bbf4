// Reading a fleet description (docs/reference/fleet-description.md documents every key): JSON in, a
// validated FleetSpec out. Unknown keys get a "did you mean"; quantities take the scenario's
// units ("2Gf", "10Mbps", "20ms"); counts and shares resolve to exact per-class counts. Every
// problem is one FleetError whose message starts with the JSON path it concerns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/spec.hpp"

namespace edgetrain::fleet {

// Limits that keep a typo from eating the machine's memory (and SimGrid's Full top zone, which
// holds a table of sites x sites entries, small).
// A fleet's devices as records (population.hosts "slots", about 1.4 kB each): the memory estimate
// refuses what the machine cannot hold; this only stops a typo.
inline constexpr int64_t kMaxDevices = 100000000;
// A fleet with a host per device (a platform written out for SimGrid): 10^6 hosts already make a 441 MB
// platform that takes minutes to load.
inline constexpr int64_t kMaxHostDevices = 1000000;
inline constexpr int64_t kMaxSites = 2000;
inline constexpr int64_t kMaxCores = 4096;

// `where` is the JSON path of the description inside its document ("platform" when a scenario
// holds it; "" for a fleet file): messages read "<where>.classes.pi.count: ...". A class's trace
// files are relative to `base_dir` (the description's folder).
FleetSpec parse_fleet(const nlohmann::json& description, const std::string& where = "",
                      const std::filesystem::path& base_dir = {});

// Reads a fleet file (JSON; // and /* */ comments allowed, as in scenario files; a key given
// twice is an error) and parses it. Messages start with the file name.
FleetSpec load_fleet_file(const std::filesystem::path& file);

// A fleet written out as a platform file (a host per device) holds at most kMaxHostDevices:
// FleetError naming `shown` (the description) otherwise.
void check_host_per_device(const FleetSpec& spec, const std::string& shown);

}  // namespace edgetrain::fleet
