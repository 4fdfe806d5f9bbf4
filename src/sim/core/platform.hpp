// Loading the SimGrid platform and checking it against the scenario: the file passes
// platform::check_platform_file first (SimGrid aborts on values it does not expect), every
// host named exists, is reachable by the network model in use, and every device has a route
// to the server and back. Wi-Fi stations get their rate level. Problems are reported as
// PlatformError with the file and line or the scenario's JSON path, never as a SimGrid backtrace.
// A platform the scenario changed or generated (scenario.platform_xml) is loaded from a temporary
// file, and what-ifs on one direction of a SPLITDUPLEX link are applied once it is loaded.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/check.hpp"
#include "scenario/scenario.hpp"
#include "util/input_error.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class PlatformError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct PlatformHosts {
  simgrid::s4u::Host* server = nullptr;
  std::vector<simgrid::s4u::Host*> devices;  // in scenario order
  std::vector<simgrid::s4u::Host*> sites;    // hierarchical: the site aggregators, in topology.sites order
};

// Reads and checks the scenario's platform file without SimGrid (or returns the check load_scenario made of
// a platform it changed, generated or read for a device selector).
platform::PlatformInfo read_platform(const scenario::Scenario& scenario);

// Loads and seals the platform (checked by read_platform) into `engine`, sets every Wi-Fi
// station's rate, then checks the scenario's hosts and routes.
PlatformHosts load_and_check_platform(simgrid::s4u::Engine& engine, const scenario::Scenario& scenario,
                                      const platform::PlatformInfo& info);

// Property of a Wi-Fi link holding its level-0 rate in bytes/s (links.csv reports that rate).
constexpr const char* kWifiTopRateProperty = "edgetrain_wifi_top_rate_Bps";

// SimGrid 3.32's ns-3 binding aborts on a message larger than this (an assert in
// ns3_simulator.cpp once a flow outgrows ns-3's default TCP send buffer).
constexpr int64_t kNs3MaxMessageBytes = 131072;

}  // namespace edgetrain::sim
