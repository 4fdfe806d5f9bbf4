// Loading the SimGrid platform and checking it against the scenario: every host named
// exists, and every device has a route to the server and back. Problems are reported as
// PlatformError with the scenario's JSON path, never as a SimGrid backtrace.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class PlatformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PlatformHosts {
  simgrid::s4u::Host* server = nullptr;
  std::vector<simgrid::s4u::Host*> devices;  // in scenario order
};

// Loads and seals the platform into `engine`, then checks the scenario's hosts and routes.
PlatformHosts load_and_check_platform(simgrid::s4u::Engine& engine, const scenario::Scenario& scenario);

}  // namespace edgetrain::sim
