// How the devices of a trace meet the scenario's devices (traces.assign):
//  - name: the trace's device name is the scenario device's name; a trace device the scenario
//    does not have is an error; a scenario device the trace does not list gets none;
//  - order: the trace's devices in file order, the first to the first scenario device;
//  - random: a seeded draw without replacement (seed, "traces-<kind>");
//  - most-data-fastest / most-data-slowest: the same seeded draw picks which trace devices take
//    part, then the devices with the most training samples get the best (worst) of them, best
//    by `merit` (ties: the file's order; devices with equal samples: the scenario's order).
// Every way but name needs at least as many trace devices as scenario devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input/trace_files.hpp"

namespace edgetrain::scenario {

struct AssignInput {
  std::string assign;                                      // traces.assign
  std::string where;                                       // "traces.capacity: FILE", for messages
  std::string seed_tag;                                    // "traces-capacity"
  uint64_t seed = 0;                                       // the scenario seed
  const std::vector<input::TraceDevice>* trace = nullptr;  // the trace's devices
  std::vector<double> merit;                               // per trace device: larger = faster or more often on
  std::vector<std::string> devices;                        // the scenario's device names
  std::vector<int64_t> samples;                            // per scenario device: its training samples
};

// Per scenario device, the index of its trace device, or none. Throws ScenarioError (one line).
std::vector<std::optional<size_t>> assign_trace(const AssignInput& in);

}  // namespace edgetrain::scenario
