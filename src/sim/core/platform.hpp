// Loading the SimGrid platform and checking it against the scenario: the file passes
// platform::check_platform_file first (SimGrid aborts on values it does not expect), every
// host named exists, is reachable by the network model in use, and every device has a route
// to the aggregator it sends to and back (the topology says which: PlatformNeeds). Wi-Fi
// stations get their rate level. Problems are reported as
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
  std::vector<simgrid::s4u::Host*> devices;  // in scenario order; null for a population's (placed per round)
};

// What the topology adds to the platform's checks (sim/topology implements it): the hosts of its
// own aggregators, and the host each device sends its updates to.
class PlatformNeeds {
 public:
  virtual ~PlatformNeeds() = default;
  // Before SimGrid loads the platform, after the server's and the devices' hosts: its own hosts
  // checked as check_routable checks them.
  virtual void check_before_loading(const platform::PlatformInfo&, const scenario::Scenario&) const {}
  // Once the platform is loaded and the server found, before the devices are: its own hosts found
  // and their routes checked (find_host, check_route). Per device, the host it sends its updates to,
  // whose routes to and from the device are checked next; null where the topology checks the routes
  // its devices use itself.
  virtual std::vector<simgrid::s4u::Host*> upstream_hosts(const simgrid::s4u::Engine& engine,
                                                          const scenario::Scenario& scenario,
                                                          simgrid::s4u::Host* server) = 0;
};

// Reads and checks the scenario's platform file without SimGrid (or returns the check load_scenario made of
// a platform it changed, generated or read for a device selector).
platform::PlatformInfo read_platform(const scenario::Scenario& scenario);

// Loads and seals the platform (checked by read_platform) into `engine`, sets every Wi-Fi
// station's rate, then checks the scenario's hosts and routes, and the topology's (`needs`).
PlatformHosts load_and_check_platform(simgrid::s4u::Engine& engine, const scenario::Scenario& scenario,
                                      const platform::PlatformInfo& info, PlatformNeeds& needs);

// The checks a topology's own hosts take, each error naming `path` (the scenario key):
// before loading, routes SimGrid 3.32 would abort on between `host` and `server`;
void check_routable(const platform::PlatformInfo& info, const std::string& path, const std::string& host,
                    const std::string& server);
// once loaded, the host itself (PlatformError listing the platform's hosts when it is not there)
simgrid::s4u::Host* find_host(const simgrid::s4u::Engine& engine, const std::string& path, const std::string& name,
                              const scenario::Scenario& scenario);
// and a route from `from` to `to`.
void check_route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, const std::string& path);

// Property of a Wi-Fi link holding its level-0 rate in bytes/s (links.csv reports that rate).
constexpr const char* kWifiTopRateProperty = "edgetrain_wifi_top_rate_Bps";

// SimGrid 3.32's ns-3 binding aborts on a message larger than this (an assert in
// ns3_simulator.cpp once a flow outgrows ns-3's default TCP send buffer).
constexpr int64_t kNs3MaxMessageBytes = 131072;

}  // namespace edgetrain::sim
